//! Each tool's output schema: the JSON Schema of its command's `-o json` document
//! (`schemas/`), made self-contained (a client resolves no file: the documents it refers to
//! are inlined under `$defs`), plus the fields the server adds: `planId` (plan,
//! delete_preview) and `continuation` (any page of a paged answer).

use serde_json::{Map, Value, json};

/// The schema files, by name, as shipped in `schemas/`.
const FILES: &[(&str, &str)] = &[
    (
        "common.schema.json",
        include_str!("../../schemas/common.schema.json"),
    ),
    (
        "audit-report.schema.json",
        include_str!("../../schemas/audit-report.schema.json"),
    ),
    (
        "collect-plan.schema.json",
        include_str!("../../schemas/collect-plan.schema.json"),
    ),
    (
        "history.schema.json",
        include_str!("../../schemas/history.schema.json"),
    ),
    (
        "ownership-graph.schema.json",
        include_str!("../../schemas/ownership-graph.schema.json"),
    ),
    (
        "why.schema.json",
        include_str!("../../schemas/why.schema.json"),
    ),
    (
        "apply-result.schema.json",
        include_str!("../../schemas/apply-result.schema.json"),
    ),
    (
        "apply-record.schema.json",
        include_str!("../../schemas/apply-record.schema.json"),
    ),
];

fn file(name: &str) -> Value {
    let text = FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .unwrap_or_else(|| panic!("schemas/{name} is not bundled"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("schemas/{name}: {e}"))
}

/// The `$defs` key a bundled document's own definition `def` gets (`common.objectRef`).
fn def_key(file: &str, def: Option<&str>) -> String {
    let stem = file.trim_end_matches(".schema.json");
    match def {
        Some(d) => format!("{stem}.{d}"),
        None => stem.to_owned(),
    }
}

/// `name`'s schema with every reference to another file turned into one to `$defs`.
pub fn bundled(name: &str) -> Map<String, Value> {
    let mut root = file(name);
    let mut defs = Map::new();
    let mut pending: Vec<String> = Vec::new();
    rewrite(&mut root, name, false, &mut pending);
    while let Some(other) = pending.pop() {
        if defs.contains_key(&def_key(&other, None)) {
            continue;
        }
        let mut doc = file(&other);
        rewrite(&mut doc, &other, true, &mut pending);
        if let Some(Value::Object(own)) = doc.as_object_mut().and_then(|d| d.remove("$defs")) {
            for (k, v) in own {
                defs.insert(def_key(&other, Some(&k)), v);
            }
        }
        if let Some(d) = doc.as_object_mut() {
            d.remove("$schema");
            d.remove("$id");
        }
        defs.insert(def_key(&other, None), doc);
    }
    let obj = root.as_object_mut().expect("a schema is an object");
    obj.remove("$id");
    if !defs.is_empty() {
        let own = obj
            .entry("$defs")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(own) = own {
            own.extend(defs);
        }
    }
    obj.clone()
}

/// Rewrites the `$ref`s of `v` (a part of `file`; `inlined`: not the root document):
/// `other.json#/$defs/x…` to the bundled `#/$defs/other.x…`, `other.json` to `#/$defs/other`,
/// and in an inlined file `#/$defs/x…` to `#/$defs/file.x…`. Files referred to are pushed on
/// `pending`.
fn rewrite(v: &mut Value, file: &str, inlined: bool, pending: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get_mut("$ref") {
                let (target, pointer) = r.split_once('#').unwrap_or((r.as_str(), ""));
                let (target, pointer) = (target.to_owned(), pointer.to_owned());
                let def = pointer.strip_prefix("/$defs/");
                // `x/properties/y` → key `x`, then the rest of the pointer.
                let split = def.map(|d| d.split_once('/').unwrap_or((d, "")));
                let local = |f: &str| match split {
                    Some((key, "")) => format!("#/$defs/{}", def_key(f, Some(key))),
                    Some((key, rest)) => format!("#/$defs/{}/{rest}", def_key(f, Some(key))),
                    None => format!("#/$defs/{}{pointer}", def_key(f, None)),
                };
                if !target.is_empty() {
                    *r = local(&target);
                    pending.push(target);
                } else if inlined && split.is_some() {
                    *r = local(file);
                }
            }
            for child in map.values_mut() {
                rewrite(child, file, inlined, pending);
            }
        }
        Value::Array(items) => {
            for child in items {
                rewrite(child, file, inlined, pending);
            }
        }
        _ => {}
    }
}

/// The output schema of a tool whose document has schema `name`; `plan_id`: the answer
/// may carry a `planId`.
pub fn output(name: &str, plan_id: bool) -> Map<String, Value> {
    let mut schema = bundled(name);
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        props.insert("continuation".into(), continuation());
        if name == "apply-result.schema.json" {
            props.insert(
                "requests".into(),
                json!({
                    "description": "Added by kubectl gc mcp: every request apply_plan sent, in order, as the apply record holds it (method, path, body, the status answered).",
                    "type": "array",
                    "items": {"type": "object"}
                }),
            );
        }
        if plan_id {
            props.insert(
                "planId".into(),
                json!({
                    "description": "Added by kubectl gc mcp --allow-apply on a live cluster: pass it to apply_plan to carry out exactly this plan.",
                    "type": "string",
                    "pattern": "^plan-[0-9a-f]{32}$"
                }),
            );
        }
    }
    schema
}

fn continuation() -> Value {
    json!({
        "description": "Added by kubectl gc mcp when the document was larger than its answer cap: this page holds the document's fields with part of its lists; call the same tool with only {\"continuation\": token} for the next page.",
        "type": "object",
        "properties": {
            "token": {"type": "string"},
            "page": {"type": "integer", "minimum": 1},
            "pages": {"type": "integer", "minimum": 1},
            "items": {"description": "List items in this page, by field", "type": "object", "additionalProperties": {"type": "integer"}},
            "totalItems": {"description": "List items in the whole document, by field", "type": "object", "additionalProperties": {"type": "integer"}}
        },
        "required": ["page", "pages"],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    out.push(r.clone());
                }
                m.values().for_each(|c| refs(c, out));
            }
            Value::Array(a) => a.iter().for_each(|c| refs(c, out)),
            _ => {}
        }
    }

    #[test]
    fn every_reference_of_a_bundled_schema_resolves_inside_it() {
        for (name, _) in FILES {
            let schema = Value::Object(output(name, true));
            let mut found = Vec::new();
            refs(&schema, &mut found);
            for r in found {
                let pointer = r.strip_prefix('#').unwrap_or_else(|| panic!("{name}: {r}"));
                assert!(
                    schema.pointer(pointer).is_some(),
                    "{name}: {r} does not resolve"
                );
            }
            assert!(jsonschema::validator_for(&schema).is_ok(), "{name}");
        }
    }
}
