//! kubectl's list outputs over any report's JSON: `-o name`, `-o jsonpath=`,
//! `-o custom-columns=` and `--sort-by`. A report is its JSON document plus the items those
//! outputs walk (findings, actions, nodes); every value printed is sanitised
//! ([`super::text`]), as in every human-facing output.

use super::jsonpath::{Path, Template, value_text};
use super::text::sanitize;
use super::{Styles, cells, pad_columns, table, write_table};
use serde_json::Value;
use std::cmp::Ordering;
use std::io::Write;

/// `kind.group/name` as kubectl's `-o name` prints an object (`pod/web-1`,
/// `deployment.apps/web`), from an object reference's JSON (`apiVersion`, `kind`, `name`).
pub fn name_of(object: &Value) -> Option<String> {
    let kind = object.get("kind")?.as_str()?;
    let name = object.get("name")?.as_str()?;
    let group = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .and_then(|v| v.split_once('/'))
        .map(|(g, _)| g)
        .unwrap_or("");
    let kind = kind.to_ascii_lowercase();
    Some(if group.is_empty() {
        format!("{kind}/{name}")
    } else {
        format!("{kind}.{group}/{name}")
    })
}

/// Writes each name once, in order.
pub fn write_names(
    w: &mut dyn Write,
    names: impl IntoIterator<Item = String>,
) -> std::io::Result<()> {
    let mut seen = hashbrown::HashSet::new();
    for n in names {
        if seen.insert(n.clone()) {
            w.write_all(sanitize(&n).as_bytes())?;
            w.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// Writes a JSONPath template rendered over `doc` (values sanitised).
pub fn write_jsonpath(w: &mut dyn Write, doc: &Value, template: &Template) -> std::io::Result<()> {
    let text = template.render(doc);
    // The template's own text (`{"\n"}`, `{"\t"}`) is the user's; the values are not.
    w.write_all(text.as_bytes())?;
    if !text.ends_with('\n') && !text.is_empty() {
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// Parsed `custom-columns=HEADER:JSONPATH,…`.
#[derive(Debug, Clone)]
pub struct Columns {
    columns: Vec<(String, Path)>,
}

impl Columns {
    /// Parses kubectl's custom-columns spec.
    pub fn parse(spec: &str) -> Result<Columns, String> {
        let mut columns = Vec::new();
        for part in split_top_level(spec) {
            let Some((header, path)) = part.split_once(':') else {
                return Err(format!(
                    "custom-columns: expected HEADER:JSONPATH, got {part:?} (e.g. CODE:.code)"
                ));
            };
            columns.push((header.trim().to_owned(), Path::parse(path)?));
        }
        if columns.is_empty() {
            return Err("custom-columns: no column given".into());
        }
        Ok(Columns { columns })
    }

    /// Writes the table: one row per item, `<none>` where a path selects nothing.
    pub fn write(
        &self,
        w: &mut dyn Write,
        items: &[Value],
        no_headers: bool,
    ) -> std::io::Result<()> {
        let mut t = table(Styles::plain());
        if !no_headers {
            t.set_header(cells(self.columns.iter().map(|(h, _)| h.as_str())));
        }
        for item in items {
            t.add_row(cells(self.columns.iter().map(|(_, p)| {
                let values = p.select(item);
                if values.is_empty() {
                    "<none>".to_owned()
                } else {
                    values
                        .into_iter()
                        .map(value_text)
                        .collect::<Vec<_>>()
                        .join(",")
                }
            })));
        }
        pad_columns(&mut t);
        write_table(w, &t)
    }
}

/// Splits at commas outside brackets and quotes (`A:.a[?(@.x=="1,2")],B:.b`).
fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{' | '(') => depth += 1,
            (None, ']' | '}' | ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// The order `--sort-by PATH` gives `items`: by the first value the path selects in each
/// (numbers by value, strings and the rest by their text; items where it selects nothing
/// last), stable for equal keys.
pub fn sort_order(items: &[Value], path: &Path) -> Vec<usize> {
    let keys: Vec<Option<&Value>> = items
        .iter()
        .map(|i| path.select(i).into_iter().next())
        .collect();
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| compare(keys[a], keys[b]));
    order
}

fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(Value::Number(x)), Some(Value::Number(y))) => x
            .as_f64()
            .partial_cmp(&y.as_f64())
            .unwrap_or(Ordering::Equal),
        (Some(x), Some(y)) => value_text(x).cmp(&value_text(y)),
    }
}

/// Reorders `v` by `order` (from [`sort_order`]).
pub fn apply_order<T>(v: &mut Vec<T>, order: &[usize]) {
    let mut slots: Vec<Option<T>> = v.drain(..).map(Some).collect();
    for &i in order {
        if let Some(x) = slots[i].take() {
            v.push(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_kubectls() {
        assert_eq!(
            name_of(&json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"})),
            Some("deployment.apps/web".into())
        );
        assert_eq!(
            name_of(&json!({"apiVersion": "v1", "kind": "Pod", "name": "p"})),
            Some("pod/p".into())
        );
    }

    #[test]
    fn custom_columns_and_sorting() {
        let items = vec![
            json!({"code": "GC007", "n": 10, "object": {"name": "b"}}),
            json!({"code": "GC001", "n": 9, "object": {"name": "a\u{1b}[2J"}}),
            json!({"code": "GC013", "n": 100}),
        ];
        let cols = Columns::parse("CODE:.code,NAME:.object.name").unwrap();
        let mut out = Vec::new();
        cols.write(&mut out, &items, false).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "CODE    NAME\nGC007   b\nGC001   a^[[2J\nGC013   <none>\n"
        );
        let by_n = sort_order(&items, &Path::parse(".n").unwrap());
        assert_eq!(by_n, [1, 0, 2], "numbers by value");
        let by_name = sort_order(&items, &Path::parse("{.object.name}").unwrap());
        assert_eq!(by_name, [1, 0, 2], "missing last");
        let mut v = vec!["x", "y", "z"];
        apply_order(&mut v, &by_n);
        assert_eq!(v, ["y", "x", "z"]);
        assert!(Columns::parse("CODE").is_err());
        let mut out = Vec::new();
        cols.write(&mut out, &items[..1], true).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "GC007   b\n");
    }
}
