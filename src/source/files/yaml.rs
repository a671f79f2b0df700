//! YAML inputs: multi-document streams, split at `---` lines as kubectl's YAML reader splits
//! them (so one broken document does not lose the others), each document parsed by
//! serde-saphyr straight into [`TopValue`] (no node tree).

use super::accounting::Loc;
use super::coverage::Hole;
use super::doc::{Doc, Element, Items, TopValue};
use super::recognize::Reader;
use crate::catalog::REDACTED;
use std::io::BufRead;

/// The largest YAML document accepted (one document is held while it is parsed).
pub(crate) const MAX_DOCUMENT: usize = 1 << 30;

/// Reads a YAML input.
pub(crate) fn read(
    name: &str,
    r: &mut dyn BufRead,
    reader: &mut Reader<'_>,
) -> std::io::Result<()> {
    let mut doc: Vec<u8> = Vec::new();
    let mut line: Vec<u8> = Vec::new();
    let mut line_no = 0usize;
    let mut doc_start = 1usize;
    let mut doc_no = 0usize;
    let mut separated = false;
    loop {
        line.clear();
        let n = read_line(r, &mut line, MAX_DOCUMENT.saturating_sub(doc.len()))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if memchr::memchr(0, &line).is_some() {
            let loc = Loc {
                file: name.into(),
                line: Some(line_no),
                ..Loc::default()
            };
            reader.broken(
                &loc,
                "binary data (a NUL byte), not YAML or JSON text",
                Hole::Everything,
            );
            return Ok(());
        }
        if !line.ends_with(b"\n") && doc.len() + line.len() >= MAX_DOCUMENT {
            let loc = Loc {
                file: name.into(),
                doc: doc_no + 1,
                many: separated,
                line: Some(doc_start),
                ..Loc::default()
            };
            reader.broken(
                &loc,
                format!("a YAML document larger than {} MiB", MAX_DOCUMENT >> 20),
                Hole::Everything,
            );
            return Ok(());
        }
        if is_separator(&line) {
            separated = true;
            flush(name, &mut doc, &mut doc_no, doc_start, true, reader);
            doc_start = line_no + 1;
        } else {
            doc.extend_from_slice(&line);
        }
    }
    flush(name, &mut doc, &mut doc_no, doc_start, separated, reader);
    Ok(())
}

/// Reads one line (with its `\n`), at most `limit` bytes.
fn read_line(r: &mut dyn BufRead, out: &mut Vec<u8>, limit: usize) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(total);
        }
        let room = limit.saturating_sub(total).max(1);
        let (take, done) = match memchr::memchr(b'\n', buf) {
            Some(i) if i < room => (i + 1, true),
            _ => (buf.len().min(room), total + buf.len() >= room),
        };
        out.extend_from_slice(&buf[..take]);
        r.consume(take);
        total += take;
        if done || memchr::memchr(0, &out[out.len() - take..]).is_some() {
            return Ok(total);
        }
    }
}

/// `---` alone or followed by a comment (kubectl's `YAMLReader` rule; `--- value` on one line
/// stays inside its document).
fn is_separator(line: &[u8]) -> bool {
    match line.strip_prefix(b"---") {
        Some(rest) => {
            let rest = rest.trim_ascii();
            rest.is_empty() || rest.starts_with(b"#")
        }
        None => false,
    }
}

/// True for a document of only blank lines, comments, directives and end markers.
fn is_empty_yaml(doc: &[u8]) -> bool {
    doc.split(|&b| b == b'\n').all(|l| {
        let t = l.trim_ascii();
        t.is_empty() || t.starts_with(b"#") || t.starts_with(b"%") || t == b"..."
    })
}

fn flush(
    name: &str,
    doc: &mut Vec<u8>,
    doc_no: &mut usize,
    start: usize,
    many: bool,
    reader: &mut Reader<'_>,
) {
    if is_empty_yaml(doc) {
        doc.clear();
        return;
    }
    *doc_no += 1;
    let mut loc = Loc {
        file: name.into(),
        doc: *doc_no,
        many,
        line: Some(start),
        ..Loc::default()
    };
    let text = match std::str::from_utf8(doc) {
        Ok(t) => t,
        Err(e) => {
            let bad_line = start
                + doc[..e.valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
            loc.line = Some(bad_line);
            reader.broken(&loc, "not UTF-8 text", Hole::Everything);
            doc.clear();
            return;
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match parse(text) {
        Ok(v) => accept(reader, &mut loc, text, start, v),
        Err(e) => {
            // The parser's message runs over several lines (a snippet); a problem is one line,
            // so the note on a redaction goes after the message's first.
            let mut cause = format!(
                "invalid YAML: {}",
                super::accounting::one_line(&e.to_string())
            );
            if let Some(l) = e.location() {
                let line = (l.line() as usize).saturating_sub(1);
                loc.line = Some(start + line);
                // Support-bundle collectors (troubleshoot.sh) redact values as a bare
                // `***HIDDEN***`, which YAML reads as an alias: say so, or the file looks
                // damaged when it was written that way.
                if text.lines().nth(line).is_some_and(|l| {
                    l.contains(&format!(": {REDACTED}")) || redacted_scalar(l).is_some()
                }) {
                    cause.push_str(
                        " (a redaction: the collector wrote `***HIDDEN***` unquoted, which YAML reads as an alias)",
                    );
                    match read_redacted(reader, &mut loc, text, start) {
                        Ok(()) => {
                            doc.clear();
                            return;
                        }
                        Err(Some(field)) => cause.push_str(&format!(
                            "; `{field}` is among the redacted values, so the object cannot be told"
                        )),
                        Err(None) => {}
                    }
                }
            }
            match kinds_named(text) {
                Some(kinds) => reader.broken_kinds(&loc, cause, &kinds),
                None => reader.broken(&loc, cause, Hole::Everything),
            }
        }
    }
    doc.clear();
}

/// A parsed document, handed to the reader.
fn accept(reader: &mut Reader<'_>, loc: &mut Loc, text: &str, start: usize, v: TopValue<'_>) {
    if let TopValue::Object(d) = &v
        && looks_cut(d)
    {
        let hole = reader.list_hole(&super::recognize::ListCtx::none(), &Default::default());
        reader.broken(
            loc,
            "a list with `apiVersion` and `items` but no `kind` or `metadata`: kubectl writes those after the items, so the document looks cut off",
            hole,
        );
    }
    loc.line = None;
    if reader.track_lines {
        reader.lines = super::origin::yaml_lines(text, start);
    }
    reader.document(loc, v);
    reader.lines = None;
}

/// Reads `text`, which does not parse, as the collector meant it: its redactions
/// ([`REDACTED`], which YAML reads as aliases of anchors that do not exist when written
/// unquoted at the start of a value) quoted, the redacted values as text. Refused when a value
/// kubectl-gc reads is among them (then what the object is, or what it points at, cannot be
/// told): `Err(Some(field))`; `Err(None)` when quoting does not make the document parse.
fn read_redacted(
    reader: &mut Reader<'_>,
    loc: &mut Loc,
    text: &str,
    start: usize,
) -> Result<(), Option<&'static str>> {
    let quoted = quote_redactions(text).ok_or(None)?;
    let v = parse(&quoted).map_err(|_| None)?;
    if let Some(field) = redaction_read(&v) {
        return Err(Some(field));
    }
    reader.stats.redacted += 1;
    accept(reader, loc, &quoted, start, v);
    Ok(())
}

/// `text` with every plain scalar that starts with [`REDACTED`] single-quoted, as the
/// collector meant it (`ip: ***HIDDEN***` → `ip: '***HIDDEN***'`, `a: ***HIDDEN***:10000` →
/// `a: '***HIDDEN***:10000'`); `None` when no line has one.
///
/// A scalar is quoted only where nothing can change but that scalar: the token starts a value
/// (after `key: `, after `- `, or alone on its line) and the rest of the line after it holds no
/// space, quote, comment or flow indicator (`, [ ] { }`), so the quoted text is exactly the
/// scalar YAML's plain-scalar rules end there, in block and flow context alike. Every value
/// the quoting changes still holds the token ([`redaction_read`] looks for it).
fn quote_redactions(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 64);
    let mut quoted = false;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let eol = &line[body.len()..];
        match redacted_scalar(body) {
            Some(at) => {
                let end = body.trim_end().len();
                out.push_str(&body[..at]);
                out.push('\'');
                out.push_str(&body[at..end]);
                out.push('\'');
                out.push_str(&body[end..]);
                out.push_str(eol);
                quoted = true;
            }
            None => out.push_str(line),
        }
    }
    quoted.then_some(out)
}

/// Where on `line` a plain scalar starting with [`REDACTED`] begins, if one does (see
/// [`quote_redactions`]).
fn redacted_scalar(line: &str) -> Option<usize> {
    let at = line.find(REDACTED)?;
    let before = &line[..at];
    let starts_value = before.trim_start().is_empty()
        || before.ends_with(' ') && {
            let b = before.trim_end();
            b.ends_with(':') || b.ends_with('-') && b.trim_start_matches([' ', '-']).is_empty()
        };
    let rest = line[at + REDACTED.len()..].trim_end();
    let plain = !rest.contains([' ', '\t', '\'', '"', '#', ',', '[', ']', '{', '}']);
    (starts_value && plain).then_some(at)
}

/// The first value kubectl-gc reads from `v` that holds [`REDACTED`], or `None` when the
/// redactions are all in values it skips. Documents with hints (a CRD's names and versions,
/// discovery, a ClusterOperator's status) are read in more places than this lists: their
/// redactions always count.
fn redaction_read(v: &TopValue<'_>) -> Option<&'static str> {
    fn doc(d: &Doc<'_>) -> Option<&'static str> {
        let has = |s: &str| s.contains(REDACTED);
        let opt = |s: &Option<std::borrow::Cow<'_, str>>| s.as_deref().is_some_and(has);
        if d.hints.is_some() {
            return Some("a field read for the resource table");
        }
        if opt(&d.api_version) {
            return Some("apiVersion");
        }
        if opt(&d.kind) {
            return Some("kind");
        }
        if d.error.as_deref().is_some_and(has) {
            return Some("a value of the wrong type");
        }
        if let Some(m) = &d.metadata {
            let mi = &m.meta;
            let fields: [(&'static str, bool); 12] = [
                ("metadata.namespace", has(&mi.namespace)),
                ("metadata.name", has(&mi.name)),
                ("metadata.uid", has(&mi.uid)),
                ("metadata.resourceVersion", has(&mi.resource_version)),
                ("metadata.creationTimestamp", has(&mi.creation_timestamp)),
                ("metadata.deletionTimestamp", opt(&mi.deletion_timestamp)),
                ("metadata.finalizers", mi.finalizers.iter().any(|f| has(f))),
                (
                    "metadata.labels",
                    mi.labels.0.iter().any(|(k, v)| has(k) || has(v)),
                ),
                (
                    "metadata.ownerReferences",
                    mi.owner_references.iter().any(|r| {
                        has(&r.api_version) || has(&r.kind) || has(&r.name) || has(&r.uid)
                    }),
                ),
                ("metadata.annotations", opt(&mi.ignore)),
                ("metadata.selfLink", opt(&m.self_link)),
                ("metadata", opt(&m.generate_name) || opt(&m.continue_token)),
            ];
            if let Some((field, _)) = fields.iter().find(|(_, held)| *held) {
                return Some(field);
            }
        }
        match &d.items {
            Items::List(items) => elements(items),
            _ => None,
        }
    }
    fn elements(items: &[Element<'_>]) -> Option<&'static str> {
        items.iter().find_map(|e| match e {
            Element::Object(d) => doc(d),
            Element::Other => None,
        })
    }
    match v {
        TopValue::Object(d) => doc(d),
        TopValue::Array(items) => elements(items),
        TopValue::Null | TopValue::Other => None,
    }
}

/// Every kind a document that does not parse names in its text, with its group when a
/// sibling `apiVersion` line gives it (`XList` also as `X`), or `None` when it names none. The
/// objects of a document all carry a `kind` line (items of a typed list inherit the list's),
/// so what the document could hold is among these: an over-approximation, the safe side.
/// (`ownerReferences` entries name kinds too; their `apiVersion` keeps them to their group.)
fn kinds_named(text: &str) -> Option<Vec<(Option<String>, String)>> {
    // (indent, is_kind, value) of `kind:` and `apiVersion:` lines; a `- ` counts as indent.
    let mut lines: Vec<Option<(usize, bool, String)>> = Vec::new();
    let mut flow_kinds: Vec<String> = Vec::new();
    for line in text.lines() {
        let body = line.trim_start();
        let mut indent = line.len() - body.len();
        let mut body = body;
        while let Some(rest) = body.strip_prefix("- ") {
            indent += 2 + (rest.len() - rest.trim_start().len());
            body = rest.trim_start();
        }
        let entry = [("kind:", true), ("apiVersion:", false)]
            .iter()
            .find_map(|(k, is_kind)| body.strip_prefix(k).map(|v| (*is_kind, v)))
            .map(|(is_kind, v)| {
                let v = v.trim().trim_matches(['"', '\'']);
                (indent, is_kind, v.to_owned())
            });
        if entry.is_none() && body.contains("kind") {
            // Flow style or JSON on one line: `"kind": "X"`, `{kind: X}`.
            let mut rest = body;
            while let Some(i) = rest.find("kind") {
                let after = rest[i + 4..].trim_start_matches(['"', '\'']).trim_start();
                rest = &rest[i + 4..];
                if let Some(v) = after.strip_prefix(':') {
                    let name: String = v
                        .trim_start()
                        .trim_start_matches(['"', '\''])
                        .chars()
                        .take_while(char::is_ascii_alphanumeric)
                        .collect();
                    if !name.is_empty() {
                        flow_kinds.push(name);
                    }
                }
            }
        }
        let blank = body.is_empty() || body.starts_with('#');
        lines.push(if blank {
            None
        } else {
            Some(entry.unwrap_or((indent, false, String::new())))
        });
    }
    let mut out: Vec<(Option<String>, String)> = Vec::new();
    let mut push = |group: Option<String>, kind: &str| {
        let mut names = vec![kind.to_owned()];
        if let Some(base) = kind.strip_suffix("List").filter(|b| !b.is_empty()) {
            names.push(base.to_owned());
        }
        for k in names {
            if !out.iter().any(|(g, x)| *g == group && *x == k) {
                out.push((group.clone(), k));
            }
        }
    };
    for (i, l) in lines.iter().enumerate() {
        let Some((indent, true, kind)) = l else {
            continue;
        };
        let kind: String = kind
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        if kind.is_empty() {
            continue;
        }
        // The sibling `apiVersion`: same indentation, same mapping.
        let sibling = |range: &mut dyn Iterator<Item = usize>| {
            for j in range {
                match &lines[j] {
                    None => continue,
                    Some((ind, _, _)) if ind < indent => return None,
                    Some((ind, false, v)) if ind == indent && !v.is_empty() => {
                        return Some(v.clone());
                    }
                    _ => continue,
                }
            }
            None
        };
        let api = sibling(&mut (0..i).rev()).or_else(|| sibling(&mut (i + 1..lines.len())));
        let group = api
            .as_deref()
            .and_then(crate::snapshot::split_api_version)
            .map(|(g, _)| g.to_owned());
        push(group, &kind);
    }
    for k in flow_kinds {
        push(None, &k);
    }
    (!out.is_empty()).then_some(out)
}

/// kubectl prints `apiVersion`, `items`, `kind`, `metadata` in this order: a list document
/// with only the first two was cut at an item boundary.
fn looks_cut(d: &super::doc::Doc<'_>) -> bool {
    d.api_version.is_some()
        && d.kind.is_none()
        && d.metadata.is_none()
        && matches!(d.items, Items::List(_))
        && d.keys == 2
}

pub(crate) fn parse(doc: &str) -> Result<TopValue<'_>, serde_saphyr::Error> {
    let mut budget = serde_saphyr::Budget::default();
    // Real dumps are big (an OpenShift `events.yaml` has millions of nodes); these limits
    // only guard against runaway input, not against size.
    budget.max_reader_input_bytes = None;
    budget.max_events = usize::MAX / 2;
    budget.max_nodes = usize::MAX / 2;
    budget.max_total_scalar_bytes = usize::MAX / 2;
    budget.max_depth = 128;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::LastWins;
    serde_saphyr::from_str_with_options::<TopValue>(doc, options)
}
