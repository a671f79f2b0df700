//! kubectl's JSONPath templates (`-o jsonpath=…`, `custom-columns=`, `--sort-by`).
//!
//! The path expressions themselves are evaluated by the `jsonpath-rust` crate (RFC 9535).
//! kubectl's syntax is a template layer around such expressions, which no crate implements;
//! this module is only that layer:
//!
//! - text outside `{…}` is printed as it is; `{"text"}` prints quoted text (with `\n`, `\t`);
//! - `{EXPR}` prints the values EXPR selects, separated by spaces: strings as they are,
//!   numbers and booleans as text, objects and arrays as JSON;
//! - `{range EXPR}…{end}` repeats its body for every value EXPR selects, with paths in the
//!   body relative to that value;
//! - EXPR may start with `.`, `[`, `$` or `@` (`$`/`@` are optional, as in kubectl), and a
//!   dotted name may hold any character but `.` and `[` (`\.` for a dot), so
//!   `.metadata.labels.app\.kubernetes\.io/name` works as in kubectl; each dotted name is
//!   handed to the crate as a bracketed name (`['app.kubernetes.io/name']`).
//!
//! A path that selects nothing prints nothing (kubectl's `--allow-missing-template-keys`
//! default).

use jsonpath_rust::parser::model::JpQuery;
use serde_json::Value;

/// A parsed path expression.
#[derive(Debug, Clone)]
pub struct Path {
    query: JpQuery,
}

impl Path {
    /// Parses a kubectl path expression (`.a.b[*]`, `{.a}`, `$.a`, `@`).
    pub fn parse(expr: &str) -> Result<Path, String> {
        let inner = expr
            .trim()
            .strip_prefix('{')
            .and_then(|e| e.strip_suffix('}'))
            .unwrap_or(expr.trim());
        let rfc = to_rfc9535(inner)?;
        let query = jsonpath_rust::parser::parse_json_path(&rfc)
            .map_err(|e| format!("invalid JSONPath {inner:?}: {e}"))?;
        Ok(Path { query })
    }

    /// The values the path selects in `root`.
    pub fn select<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        jsonpath_rust::query::js_path_process(&self.query, root)
            .map(|refs| refs.into_iter().map(|r| r.val()).collect())
            .unwrap_or_default()
    }
}

/// Rewrites a kubectl path into RFC 9535 syntax: a leading `$`, dotted names as bracketed
/// names, bracketed parts (indices, slices, unions, filters) kept as they are.
fn to_rfc9535(expr: &str) -> Result<String, String> {
    let mut out = String::from("$");
    let chars: Vec<char> = expr.trim().chars().collect();
    let mut i = 0;
    if matches!(chars.first(), Some('$' | '@')) {
        i = 1;
    }
    while i < chars.len() {
        match chars[i] {
            '.' => {
                let recursive = chars.get(i + 1) == Some(&'.');
                i += if recursive { 2 } else { 1 };
                if recursive {
                    out.push_str("..");
                }
                if chars.get(i) == Some(&'*') {
                    out.push_str(if recursive { "*" } else { ".*" });
                    i += 1;
                    continue;
                }
                if chars.get(i) == Some(&'[') {
                    // `.[0]` is `[0]`; `..[0]` keeps its `..`.
                    continue;
                }
                let mut name = String::new();
                while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                    if chars[i] == '\\' && chars.get(i + 1) == Some(&'.') {
                        name.push('.');
                        i += 2;
                    } else {
                        name.push(chars[i]);
                        i += 1;
                    }
                }
                if name.is_empty() {
                    if i >= chars.len() && !recursive {
                        // A trailing `.` (or the whole expression `.`): the current value.
                        continue;
                    }
                    return Err(format!("invalid JSONPath {expr:?}: empty name"));
                }
                out.push_str(&format!(
                    "['{}']",
                    name.replace('\\', "\\\\").replace('\'', "\\'")
                ));
            }
            '[' => {
                // Copy up to the matching `]`, skipping quoted strings and nested brackets.
                let start = i;
                let mut depth = 0;
                let mut quote: Option<char> = None;
                while i < chars.len() {
                    let c = chars[i];
                    match quote {
                        Some(_) if c == '\\' => i += 1,
                        Some(q) if c == q => quote = None,
                        Some(_) => {}
                        None => match c {
                            '\'' | '"' => quote = Some(c),
                            '[' => depth += 1,
                            ']' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        },
                    }
                    i += 1;
                }
                if i >= chars.len() {
                    return Err(format!("invalid JSONPath {expr:?}: unclosed '['"));
                }
                out.extend(&chars[start..=i]);
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            _ => {
                // A name without a leading dot (`metadata.name`): kubectl requires the dot,
                // so does this.
                return Err(format!(
                    "invalid JSONPath {expr:?}: expected '.' or '[' at {:?}",
                    chars[i..].iter().collect::<String>()
                ));
            }
        }
    }
    Ok(out)
}

/// One piece of a template.
#[derive(Debug, Clone)]
enum Node {
    Text(String),
    Expr(Path),
    Range(Path, Vec<Node>),
}

/// A parsed kubectl JSONPath template.
#[derive(Debug, Clone)]
pub struct Template {
    nodes: Vec<Node>,
}

impl Template {
    /// Parses a template such as `{range .findings[*]}{.code}{"\t"}{.object.name}{"\n"}{end}`.
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut stack: Vec<(Option<Path>, Vec<Node>)> = vec![(None, Vec::new())];
        let mut rest = text;
        while !rest.is_empty() {
            let Some(open) = rest.find('{') else {
                stack
                    .last_mut()
                    .expect("root")
                    .1
                    .push(Node::Text(rest.to_owned()));
                break;
            };
            if open > 0 {
                stack
                    .last_mut()
                    .expect("root")
                    .1
                    .push(Node::Text(rest[..open].to_owned()));
            }
            let after = &rest[open + 1..];
            let close = matching_brace(after)
                .ok_or_else(|| format!("unclosed '{{' in template {text:?}"))?;
            let inner = after[..close].trim();
            rest = &after[close + 1..];
            if let Some(expr) = inner.strip_prefix("range ") {
                stack.push((Some(Path::parse(expr)?), Vec::new()));
            } else if inner == "end" {
                if stack.len() == 1 {
                    return Err(format!("{{end}} without {{range}} in template {text:?}"));
                }
                let (path, body) = stack.pop().expect("checked");
                stack
                    .last_mut()
                    .expect("root")
                    .1
                    .push(Node::Range(path.expect("range"), body));
            } else if let Some(q) = quoted(inner) {
                stack.last_mut().expect("root").1.push(Node::Text(q));
            } else {
                stack
                    .last_mut()
                    .expect("root")
                    .1
                    .push(Node::Expr(Path::parse(inner)?));
            }
        }
        if stack.len() > 1 {
            return Err(format!("{{range}} without {{end}} in template {text:?}"));
        }
        Ok(Template {
            nodes: stack.pop().expect("root").1,
        })
    }

    /// Renders the template over `root`.
    pub fn render(&self, root: &Value) -> String {
        let mut out = String::new();
        render_nodes(&self.nodes, root, &mut out);
        out
    }
}

/// The index of the `}` closing a `{` just before `s`, skipping quoted text.
fn matching_brace(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '}') => return Some(i),
            _ => {}
        }
    }
    None
}

/// `"text"` with kubectl's escapes, or `None` when `s` is not one quoted string.
fn quoted(s: &str) -> Option<String> {
    let body = s.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    Some(out)
}

fn render_nodes(nodes: &[Node], current: &Value, out: &mut String) {
    for node in nodes {
        match node {
            Node::Text(t) => out.push_str(t),
            Node::Expr(p) => {
                let values = p.select(current);
                // Values from the input are hostile text: shown sanitised (the template's own
                // text, such as {"\n"}, is the user's and printed as written).
                let texts: Vec<String> = values
                    .into_iter()
                    .map(|v| super::text::sanitized(&value_text(v)))
                    .collect();
                out.push_str(&texts.join(" "));
            }
            Node::Range(p, body) => {
                for v in p.select(current) {
                    render_nodes(body, v, out);
                }
            }
        }
    }
}

/// A value as kubectl prints it in templates: strings bare, scalars as text, null as
/// nothing, objects and arrays as JSON.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(_) | Value::Number(_) => v.to_string(),
        _ => serde_json::to_string(v).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({
            "kind": "List",
            "items": [
                {"metadata": {"name": "a", "labels": {"app.kubernetes.io/name": "web", "tier": "fe"}}, "n": 2, "ok": true},
                {"metadata": {"name": "b", "labels": {}}, "n": 10, "ok": false}
            ]
        })
    }

    fn render(t: &str) -> String {
        Template::parse(t).unwrap().render(&doc())
    }

    #[test]
    fn kubectl_templates_render_like_kubectl() {
        assert_eq!(render("{.kind}"), "List");
        assert_eq!(render("kind is {.kind}"), "kind is List");
        assert_eq!(render("{$.kind}"), "List");
        assert_eq!(render("{.items[*].metadata.name}"), "a b");
        assert_eq!(render("{.items[0].n}"), "2");
        assert_eq!(render("{.items[-1:].metadata.name}"), "b");
        assert_eq!(render("{..name}"), "a b");
        assert_eq!(
            render("{range .items[*]}{.metadata.name}{\"\\t\"}{.n}{\"\\n\"}{end}"),
            "a\t2\nb\t10\n"
        );
        assert_eq!(
            render("{.items[?(@.n==10)].metadata.name}"),
            "b",
            "filters as kubectl writes them"
        );
        assert_eq!(
            render("{.items[0].metadata.labels.app\\.kubernetes\\.io/name}"),
            "web"
        );
        assert_eq!(render("{.items[0].metadata.labels['tier']}"), "fe");
        assert_eq!(render("{.items[1].metadata.labels}"), "{}");
        assert_eq!(render("{.items[*].ok}"), "true false");
        assert_eq!(render("{.nothing.here}"), "", "missing keys print nothing");
        assert_eq!(
            render("{range .items[*]}[{range .metadata.labels.*}{@}{end}]{end}"),
            "[webfe][]",
            "nested ranges, @ is the current value"
        );
    }

    #[test]
    fn bad_templates_are_errors() {
        for t in [
            "{.kind",
            "{range .items[*]}",
            "{end}",
            "{.items[}",
            "{kind}",
        ] {
            assert!(Template::parse(t).is_err(), "{t}");
        }
    }
}
