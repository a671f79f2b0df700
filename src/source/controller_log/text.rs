//! The pieces of a controller-manager message, as klog and the GC print them: Go-quoted
//! strings, `key=value` pairs of structured lines, the GC's object identities
//! (`[v1/ConfigMap, namespace: ns, name: n, uid: u]`) and owner references printed with `%#v`,
//! `%+v` or as JSON. Every function takes hostile bytes and answers `None` rather than panic.

use super::Ident;

/// A quoted Go string at the start of `s` (`"…"` with `\"`, `\\`, `\n`, `\t`, `\xNN`,
/// `\uNNNN`): the unquoted text and the rest after the closing quote.
pub(super) fn quoted(s: &str) -> Option<(String, &str)> {
    let body = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &body[i + 1..])),
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'x' | 'u' | 'U' => {
                        let n = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let mut v = 0u32;
                        for _ in 0..n {
                            let (_, h) = chars.next()?;
                            v = v * 16 + h.to_digit(16)?;
                        }
                        out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                    }
                    other => out.push(other),
                }
            }
            c => out.push(c),
        }
    }
    None
}

/// The `key=value` pairs after a structured line's message: values quoted (`key="a b"`),
/// bare (`key=Background`), or bracketed and braced as Go prints slices and structs
/// (`key=[{…} {…}]`), kept as text. Stops at the first thing that is no pair.
pub(super) fn pairs(mut s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    loop {
        s = s.trim_start();
        let Some(eq) = s.find('=') else { break };
        let key = &s[..eq];
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            break;
        }
        let rest = &s[eq + 1..];
        let (value, after) = if rest.starts_with('"') {
            match quoted(rest) {
                Some((v, after)) => (v, after),
                None => break,
            }
        } else if rest.starts_with('[') || rest.starts_with('{') || rest.starts_with('<') {
            let end = balanced(rest).unwrap_or(rest.len());
            (rest[..end].to_owned(), &rest[end..])
        } else {
            let end = rest.find(' ').unwrap_or(rest.len());
            (rest[..end].to_owned(), &rest[end..])
        };
        out.push((key.to_owned(), value));
        s = after;
    }
    out
}

/// The length of the bracketed text at the start of `s` (`[…]`, `{…}`, `<…>`), brackets
/// nested and quotes skipped.
fn balanced(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut in_quote = false;
    let mut escaped = false;
    for (i, b) in s.bytes().enumerate() {
        if in_quote {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_quote = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_quote = true,
            b'[' | b'{' | b'<' => depth += 1,
            b']' | b'}' | b'>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The GC's identity of an object, `[apiVersion/Kind, namespace: ns, name: n, uid: u]`
/// (`objectReference.String()`), anywhere at the start of `s` (surrounding text and quotes
/// allowed after it): the identity and the rest.
pub(super) fn identity(s: &str) -> Option<(Ident, &str)> {
    let s = s.trim_start();
    let body = s.strip_prefix('[')?;
    let end = body.find(']')?;
    let inner = &body[..end];
    let (gvk, rest) = inner.split_once(", namespace: ")?;
    let (namespace, rest) = rest.split_once(", name: ")?;
    let (name, uid) = rest.split_once(", uid: ")?;
    let (api_version, kind) = gvk.rsplit_once('/')?;
    Some((
        Ident {
            api_version: api_version.to_owned(),
            kind: kind.to_owned(),
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            uid: uid.to_owned(),
        },
        &body[end + 1..],
    ))
}

/// `ns/name` or `name` (klog's `KRef` in text): namespace and name.
pub(super) fn kref(s: &str) -> (String, String) {
    match s.split_once('/') {
        Some((ns, name)) => (ns.to_owned(), name.to_owned()),
        None => (String::new(), s.to_owned()),
    }
}

/// The owner references in `s`, however printed: Go's `%#v`
/// (`v1.OwnerReference{APIVersion:"v1", Kind:"ConfigMap", Name:"x", UID:"…", …}`), `%+v`
/// (`{APIVersion:v1 Kind:ConfigMap Name:x UID:… …}`) or JSON (`{"apiVersion":"v1",…}`), and
/// GC identities (`[v1/ConfigMap, namespace: …]`). The namespace of a reference is not in it
/// (it is the dependent's): left empty.
pub(super) fn owner_refs(s: &str) -> Vec<Ident> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find(['{', '[']) {
        let here = &rest[start..];
        if here.starts_with('[')
            && let Some((id, after)) = identity(here)
        {
            out.push(id);
            rest = after;
            continue;
        }
        if let Some(inner) = here.strip_prefix('{') {
            let end = inner.find(['{', '}']).map_or(here.len(), |e| e + 1);
            let body = &here[1..end];
            if let Some(r) = reference_fields(body) {
                out.push(r);
            }
            rest = &here[end.min(here.len())..];
            if rest.starts_with('}') {
                rest = &rest[1..];
            }
            continue;
        }
        rest = &here[1..];
    }
    out
}

/// The fields of one printed owner reference (the text between its braces).
fn reference_fields(body: &str) -> Option<Ident> {
    let field = |names: &[&str]| names.iter().find_map(|n| field_value(body, n));
    let name = field(&["Name", "\"name\""])?;
    let uid = field(&["UID", "\"uid\""])?;
    Some(Ident {
        api_version: field(&["APIVersion", "\"apiVersion\""]).unwrap_or_default(),
        kind: field(&["Kind", "\"kind\""]).unwrap_or_default(),
        namespace: String::new(),
        name,
        uid,
    })
}

/// The value of `key` in a printed struct: `key:"v"` (`%#v`, JSON) or `key:v` (`%+v`).
fn field_value(body: &str, key: &str) -> Option<String> {
    let mut from = 0;
    while let Some(at) = body[from..].find(key) {
        let at = from + at;
        from = at + key.len();
        // A whole key: not the tail of a longer one (`Name` in `Namespace`, `UID` in `OwnerUID`).
        let before = body[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric()) {
            continue;
        }
        let Some(after) = body[from..].strip_prefix(':') else {
            continue;
        };
        if after.starts_with('"') {
            return quoted(after).map(|(v, _)| v);
        }
        let end = after.find([' ', ',', '}']).unwrap_or(after.len());
        return Some(after[..end].to_owned());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_strings_and_pairs_as_klog_prints_them() {
        let (s, rest) = quoted(r#""a \"b\" \\ \x41\u00e9" tail"#).unwrap();
        assert_eq!(s, "a \"b\" \\ Aé");
        assert_eq!(rest, " tail");
        assert_eq!(quoted(r#""open"#), None);
        assert_eq!(quoted(r#""\u12"#), None);
        let p = pairs(
            r#"object="cross/dep" objectUID=22be kind="ConfigMap" propagationPolicy=Background owner=[{APIVersion:v1 Name:x}] x"#,
        );
        let keys: Vec<&str> = p.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            ["object", "objectUID", "kind", "propagationPolicy", "owner"]
        );
        assert_eq!(p[4].1, "[{APIVersion:v1 Name:x}]");
        assert!(pairs("=x a b").is_empty());
    }

    #[test]
    fn identities_and_owner_references_in_every_printing() {
        let (id, rest) =
            identity("[apps/v1/ReplicaSet, namespace: ns, name: web-1, uid: u-1] to the queue")
                .unwrap();
        assert_eq!(
            (
                id.api_version.as_str(),
                id.kind.as_str(),
                id.namespace.as_str(),
                id.name.as_str(),
                id.uid.as_str()
            ),
            ("apps/v1", "ReplicaSet", "ns", "web-1", "u-1")
        );
        assert_eq!(rest, " to the queue");
        assert!(identity("[v1/ConfigMap, name: x]").is_none());
        let go = r#"[]v1.OwnerReference{v1.OwnerReference{APIVersion:"v1", Kind:"ConfigMap", Name:"ghost", UID:"0b0e", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}}"#;
        let plus = "[{APIVersion:v1 Kind:ConfigMap Name:ghost UID:0b0e Controller:<nil> BlockOwnerDeletion:<nil>}]";
        let json = r#"[{"apiVersion":"v1","kind":"ConfigMap","name":"ghost","uid":"0b0e"}]"#;
        for s in [go, plus, json] {
            let refs = owner_refs(s);
            assert_eq!(refs.len(), 1, "{s}");
            assert_eq!(
                (
                    refs[0].api_version.as_str(),
                    refs[0].kind.as_str(),
                    refs[0].name.as_str(),
                    refs[0].uid.as_str()
                ),
                ("v1", "ConfigMap", "ghost", "0b0e"),
                "{s}"
            );
        }
        assert!(owner_refs("[]v1.OwnerReference(nil)").is_empty());
        assert_eq!(kref("ns/n"), ("ns".into(), "n".into()));
        assert_eq!(kref("n"), (String::new(), "n".into()));
    }
}
