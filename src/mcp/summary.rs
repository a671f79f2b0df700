//! The one-line summary put before each document: what the answer says at a glance, from the
//! document itself (so it cannot disagree with it).

use super::tools::Kind;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

fn len(doc: &Map<String, Value>, field: &str) -> usize {
    doc.get(field).and_then(Value::as_array).map_or(0, Vec::len)
}

fn count_by(doc: &Map<String, Value>, list: &str, key: &str) -> String {
    let mut by: BTreeMap<String, usize> = BTreeMap::new();
    for item in doc
        .get(list)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(k) = item.get(key).and_then(Value::as_str) {
            *by.entry(k.to_owned()).or_default() += 1;
        }
    }
    by.iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// The summary of `doc`, the answer of `kind`.
pub fn line(kind: Kind, doc: &Map<String, Value>) -> String {
    let mut s = match kind {
        Kind::Audit | Kind::CheckRestart | Kind::CheckApply => {
            let n = len(doc, "findings");
            match n {
                0 => "no finding".to_owned(),
                _ => format!(
                    "{} ({})",
                    plural(n, "finding"),
                    count_by(doc, "findings", "severity")
                ),
            }
        }
        Kind::Why => doc
            .get("verdict")
            .and_then(Value::as_str)
            .unwrap_or("explained")
            .to_owned(),
        Kind::Plan | Kind::DeletePreview => plan_line(doc),
        Kind::History => {
            let n = len(doc, "items");
            match n {
                0 => "no action in the logs (within the selection)".to_owned(),
                _ => format!(
                    "{} in the logs ({})",
                    plural(n, "action"),
                    count_by(doc, "items", "action")
                ),
            }
        }
        Kind::Graph => format!(
            "{}, {}",
            plural(len(doc, "nodes"), "node"),
            plural(len(doc, "edges"), "edge")
        ),
        Kind::ApplyPlan => apply_line(doc),
    };
    if let Some(id) = doc.get("planId").and_then(Value::as_str) {
        s.push_str(&format!(
            "; planId {id}: apply_plan carries out exactly this plan"
        ));
    }
    if let Some(c) = doc.get("continuation") {
        let page = c.get("page").and_then(Value::as_u64).unwrap_or(0);
        let pages = c.get("pages").and_then(Value::as_u64).unwrap_or(0);
        s.push_str(&format!("; page {page} of {pages}"));
        if let Some(t) = c.get("token").and_then(Value::as_str) {
            s.push_str(&format!(" (next: continuation {t})"));
        }
    }
    crate::render::text::sanitized(&s)
}

fn plan_line(doc: &Map<String, Value>) -> String {
    let n = len(doc, "actions");
    let summary = doc.get("summary");
    let waves = summary
        .and_then(|s| s.get("waves"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let deleted = summary
        .and_then(|s| s.get("deleted"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let terminating = summary
        .and_then(|s| s.get("terminating"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if n == 0 {
        return "nothing to do: no action".to_owned();
    }
    format!(
        "{} in {} ({}); {deleted} object(s) end deleted, {terminating} terminating",
        plural(n, "action"),
        plural(waves as usize, "wave"),
        count_by(doc, "actions", "verb")
    )
}

fn apply_line(doc: &Map<String, Value>) -> String {
    let r = doc.get("result");
    let get = |k: &str| {
        r.and_then(|r| r.get(k))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let complete = r
        .and_then(|r| r.get("complete"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut s = format!(
        "applied: {} done, {} skipped, {} failed, {} not done",
        get("done"),
        get("skipped"),
        get("failed"),
        get("notDone")
    );
    if !complete && let Some(m) = r.and_then(|r| r.get("message")).and_then(Value::as_str) {
        s.push_str(&format!(" ({m})"));
    }
    s
}
