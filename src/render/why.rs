//! `kubectl gc why`: the answer as text for people (the verdict, then the evidence as a tree,
//! then the remedies in order) and as the JSON/YAML document of `schemas/why.schema.json`.
//!
//! Every string in the answer came from a cluster or a file: the text form prints each through
//! [`sanitize`]; remedies are already shell-quoted by `diagnose::remedy`.

use super::Styles;
use super::text::sanitize;
use crate::build_info::REPORT_API_VERSION;
use crate::diagnose::analysis::ObjectOutcome;
use crate::diagnose::timeline::{self, When};
use crate::diagnose::why::{FinalizerWhy, Holds, Why};
use crate::gc::ObjectRef;
use owo_colors::OwoColorize;
use std::io::Write;

/// The JSON document: the answer with `apiVersion` and `kind: Why`.
pub fn document(why: &Why) -> serde_json::Value {
    let mut v = serde_json::to_value(why).unwrap_or_default();
    if let serde_json::Value::Object(map) = &mut v {
        let mut out = serde_json::Map::new();
        out.insert("apiVersion".into(), REPORT_API_VERSION.into());
        out.insert("kind".into(), "Why".into());
        out.extend(std::mem::take(map));
        return serde_json::Value::Object(out);
    }
    v
}

/// At most this many objects per list in the text form (JSON has up to 50).
const SHOWN: usize = 10;

/// Writes the text form.
pub fn text(w: &mut dyn Write, why: &Why, styles: Styles) -> std::io::Result<()> {
    let bold = |s: &str| {
        if styles.color {
            s.bold().to_string()
        } else {
            s.to_owned()
        }
    };
    writeln!(w, "{}", bold(&sanitize(&why.verdict)))?;
    writeln!(w)?;
    let o = &why.object;
    writeln!(w, "{}", sanitize(&o.to_string()))?;
    let mut tree = Tree::new(w);
    if why.state == "unknown" {
        tree.item(
            0,
            "not in the input, and the input does not prove it absent",
        )?;
        for u in &why.unknowns {
            tree.item(0, &format!("unknown: {u}"))?;
        }
        return Ok(());
    }
    tree.item(0, &format!("uid: {}", o.uid))?;
    match (&why.deletion_timestamp, &why.terminating_for) {
        (Some(t), Some(age)) => tree.item(0, &format!("terminating since {t} ({age})"))?,
        (Some(t), None) => tree.item(0, &format!("terminating since {t}"))?,
        _ => tree.item(0, "exists (no deletionTimestamp)")?,
    }
    if why.finalizers.is_empty() {
        tree.item(0, "finalizers: none")?;
    } else {
        tree.item(0, "finalizers:")?;
        for f in &why.finalizers {
            finalizer(&mut tree, f)?;
        }
    }
    if let Some(ns) = &why.namespace {
        tree.item(0, &format!("namespace controller: {}", ns.outlook))?;
        if let Some(spec) = &ns.spec_finalizers {
            tree.item(1, &format!("spec.finalizers: [{}]", spec.join(", ")))?;
        }
        for b in &ns.blockers {
            tree.item(1, &format!("{} ({}): {}", b.type_, b.outlook, b.message))?;
            for a in &b.api_services {
                let avail = a
                    .available
                    .as_ref()
                    .map_or("no Available condition".to_owned(), |c| {
                        format!("Available={} {}: {}", c.status, c.reason, c.message)
                    });
                tree.item(
                    2,
                    &format!(
                        "APIService {} ({}) {}",
                        a.name,
                        a.service.as_deref().unwrap_or("served by the API server"),
                        avail
                    ),
                )?;
            }
            objects(&mut tree, 2, &b.objects)?;
        }
        for c in &ns.failing_conditions {
            tree.item(
                1,
                &format!("condition {}=True ({}): {}", c.type_, c.reason, c.message),
            )?;
        }
        if ns.content.is_empty() {
            tree.item(1, "content: nothing left in the input")?;
        } else {
            let parts: Vec<String> = ns
                .content
                .iter()
                .map(|c| format!("{} {}", c.count, c.resource))
                .collect();
            tree.item(1, &format!("content: {}", parts.join(", ")))?;
        }
    }
    // The decision table's row stays in the JSON (`gc.row`): a row number means nothing
    // without docs/gc-model.md beside it.
    tree.item(
        0,
        &format!(
            "the GC's decision on it as it is now: {} — {}",
            why.gc.verdict, why.gc.explanation
        ),
    )?;
    for r in &why.gc.owner_references {
        tree.item(
            1,
            &format!(
                "ownerReference {}/{} {} ({}): {} — {}",
                r.kind, r.name, r.uid, r.api_version, r.class, r.detail
            ),
        )?;
    }
    if !why.gc.blocks.is_empty() {
        tree.item(1, "blocks the foreground deletion of:")?;
        objects(&mut tree, 2, &why.gc.blocks)?;
    }
    if !why.gc.dependents.is_empty() {
        tree.item(1, &format!("dependents: {}", why.gc.dependents.len()))?;
        objects(&mut tree, 2, &why.gc.dependents)?;
    }
    tree.item(0, &outcome_words(&why.outcome))?;
    for c in &why.conditions {
        tree.item(
            0,
            &format!(
                "condition {}={} ({}): {}",
                c.type_, c.status, c.reason, c.message
            ),
        )?;
    }
    for u in &why.unknowns {
        tree.item(0, &format!("unknown: {u}"))?;
    }
    if !why.remedies.is_empty() {
        writeln!(tree.w)?;
        writeln!(tree.w, "{}", bold("What to do, safest first:"))?;
        for (i, r) in why.remedies.iter().enumerate() {
            writeln!(tree.w, "  {}. {}", i + 1, sanitize(&r.note))?;
            if !r.command.is_empty() {
                // Shell-quoted by diagnose::remedy; printed as it is to be pasted.
                writeln!(tree.w, "     {}", sanitize(&r.command))?;
            }
            if !r.leaks.is_empty() {
                writeln!(tree.w, "     leaks: {}", sanitize(&r.leaks))?;
            }
        }
    }
    Ok(())
}

/// The end state as `collect` predicts it, and when, for the tree.
fn outcome_words(o: &ObjectOutcome) -> String {
    let wave = o.wave.map(|w| format!(" in wave {w}")).unwrap_or_default();
    let end = match o.state {
        "deleted" => "deleted".to_owned(),
        "terminating" if !o.finalizers.is_empty() => {
            format!("Terminating, held by {}", o.finalizers.join(", "))
        }
        "order-dependent" => format!(
            "depends on an order upstream does not fix: {}",
            o.alternatives
                .iter()
                .map(|a| a.state)
                .collect::<Vec<_>>()
                .join(" or ")
        ),
        other => other.to_owned(),
    };
    let clause = timeline::clause(o.when, o.when_reason);
    let when = match (o.when, &o.after) {
        (When::Now, Some(owner)) => {
            format!(", by the GC{wave}, after it deletes {}", owner)
        }
        (_, Some(owner)) => {
            format!(", by the GC{wave}, after it deletes {},{clause}", owner)
        }
        (When::Now, _) if o.by == Some("namespace-controller") => {
            ", by the namespace controller with its namespace".to_owned()
        }
        (When::Now, _) if o.when_reason == Some(timeline::Reason::Written) => {
            format!(", by the GC{wave},{clause}")
        }
        (When::Now, _) if o.state != "order-dependent" => {
            format!(", by the GC{wave}, as soon as it evaluates it")
        }
        (When::Restart, _) if o.state == "kept" => format!(
            "; after a kube-controller-manager restart the GC {}{wave}",
            match o.at_restart.as_ref().map(|a| a.state) {
                Some("kept") | None => "acts on it",
                _ => "deletes it",
            }
        ),
        (When::Restart | When::NowOrRestart | When::NowOrNever, _) => {
            format!(", by the GC{wave},{clause}")
        }
        _ => String::new(),
    };
    format!("end state (as collect predicts it): {end}{when}")
}

fn finalizer(tree: &mut Tree<'_>, f: &FinalizerWhy) -> std::io::Result<()> {
    let holds = match f.holds {
        Holds::Yes => "holds",
        Holds::No => "released",
        Holds::Unknown => "unknown",
    };
    let field = if f.field == "spec.finalizers" {
        " (spec.finalizers)"
    } else {
        ""
    };
    tree.item(
        1,
        &format!("{}{field} [{holds}] — {}", f.name, f.controller),
    )?;
    tree.item(2, &f.detail)?;
    if !f.set_by.is_empty() {
        tree.item(2, &format!("set by: {}", f.set_by.join(", ")))?;
    }
    if !f.controller_found.is_empty() {
        let found: Vec<String> = f.controller_found.iter().map(ToString::to_string).collect();
        tree.item(2, &format!("its controller here: {}", found.join(", ")))?;
    }
    objects(tree, 2, &f.waiting_for)
}

fn objects(tree: &mut Tree<'_>, depth: usize, list: &[ObjectRef]) -> std::io::Result<()> {
    for o in list.iter().take(SHOWN) {
        tree.item(depth, &o.to_string())?;
    }
    if list.len() > SHOWN {
        tree.item(
            depth,
            &format!("… {} more (-o json lists up to 50)", list.len() - SHOWN),
        )?;
    }
    Ok(())
}

/// Indented lines: two spaces per level under the object line, each item sanitised.
struct Tree<'w> {
    w: &'w mut dyn Write,
}

impl<'w> Tree<'w> {
    fn new(w: &'w mut dyn Write) -> Self {
        Tree { w }
    }

    fn item(&mut self, depth: usize, text: &str) -> std::io::Result<()> {
        writeln!(self.w, "{}- {}", "  ".repeat(depth + 1), sanitize(text))
    }
}
