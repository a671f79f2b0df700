//! `kubectl gc history`: the actions of an audit log as a table for people (unexplained GC
//! deletions first, then everything in time order, each GC or namespace-controller action with
//! its cause and the action at the start of its chain), and the `History` JSON/YAML document.
//!
//! Every string came from an audit log anyone may have written: the table prints each through
//! [`sanitize`].

use super::Styles;
use super::text::sanitize;
use crate::build_info::REPORT_API_VERSION;
use crate::diagnose::history::{History, Item};
use owo_colors::OwoColorize;
use std::io::Write;

/// The JSON document: `{"apiVersion", "kind": "History", "items": […], "summary": {…}}`.
pub fn document(h: &History) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": REPORT_API_VERSION,
        "kind": "History",
        "items": h.items,
        "summary": h.summary,
    })
}

fn cause_text(it: &Item, wide: bool) -> String {
    let Some(c) = &it.cause else {
        return "-".to_owned();
    };
    let mut s = c.type_.to_owned();
    if let Some(o) = &c.owner {
        s.push_str(&format!(" {}", o.display()));
    }
    if c.policy != "unknown" {
        s.push_str(&format!(" ({})", c.policy));
    }
    match &c.root {
        Some(r) => s.push_str(&format!(
            " ← {} {} by {}{}",
            r.action,
            r.object.display(),
            r.user,
            if wide {
                format!(" at {}", r.time)
            } else {
                String::new()
            }
        )),
        None => s.push_str(" ← root not in the inputs"),
    }
    if wide {
        s.push_str(&format!(" — {}", c.detail));
    }
    s
}

/// Writes the table (`wide`: full causes, user agents and sources).
pub fn table(w: &mut dyn Write, h: &History, wide: bool, styles: Styles) -> std::io::Result<()> {
    let unexplained: Vec<&Item> = h
        .items
        .iter()
        .filter(|i| i.cause.as_ref().is_some_and(|c| c.type_ == "unexplained"))
        .collect();
    if !unexplained.is_empty() {
        let head = format!(
            "{} GC action(s) nothing in the inputs accounts for:",
            unexplained.len()
        );
        if styles.color {
            writeln!(w, "{}", head.red().bold())?;
        } else {
            writeln!(w, "{head}")?;
        }
        for it in &unexplained {
            writeln!(
                w,
                "  {} {} {} — {}",
                it.time,
                it.action,
                sanitize(&it.object.display()),
                sanitize(it.cause.as_ref().map_or("", |c| c.detail.as_str()))
            )?;
        }
        writeln!(w)?;
    }
    let mut t = super::table(styles);
    let mut header = vec!["TIME", "ACTOR", "ACTION", "OBJECT", "CAUSE"];
    if wide {
        header.extend(["USER", "SOURCE"]);
    }
    t.set_header(header);
    for it in &h.items {
        let mut row = vec![
            it.time.clone(),
            it.actor.kind.to_owned(),
            it.action.to_owned(),
            sanitize(&it.object.display()).into_owned(),
            sanitize(&cause_text(it, wide)).into_owned(),
        ];
        if wide {
            row.push(sanitize(&it.actor.user).into_owned());
            row.push(sanitize(&it.source).into_owned());
        }
        t.add_row(row);
    }
    if h.items.is_empty() {
        writeln!(
            w,
            "No deletions, reference or finalizer removals in the log."
        )?;
    } else {
        super::write_table(w, &t)?;
    }
    writeln!(w)?;
    let s = &h.summary;
    let actors: Vec<String> = s
        .by_actor
        .iter()
        .map(|(k, n)| format!("{n} by {k}"))
        .collect();
    let window = match (&s.from, &s.to) {
        (Some(f), Some(t)) => format!(" · log window {f} – {t}"),
        _ => String::new(),
    };
    writeln!(
        w,
        "{} action(s){}{} · {} unexplained",
        h.items.len(),
        if actors.is_empty() {
            String::new()
        } else {
            format!(" ({})", actors.join(", "))
        },
        window,
        s.unexplained
    )?;
    for n in &s.notes {
        writeln!(w, "note: {}", sanitize(n))?;
    }
    Ok(())
}

/// `why KIND/NAME --audit-log` for an object that is gone: what the log says happened to it,
/// last action first, each with its cause and chain.
pub fn gone(
    w: &mut dyn Write,
    target: &str,
    items: &[&Item],
    styles: Styles,
) -> std::io::Result<()> {
    let Some(last) = items.last() else {
        return Ok(());
    };
    let who = match last.actor.kind {
        "garbage-collector" => "by the garbage collector".to_owned(),
        "namespace-controller" => "by the namespace controller".to_owned(),
        _ => format!("by {}", last.actor.user),
    };
    let head = format!(
        "{target} is gone: {} at {} {who}",
        match last.action {
            "delete" => "deleted",
            "delete-collection" => "deleted with its collection",
            other => other,
        },
        last.time
    );
    if styles.color {
        writeln!(w, "{}", sanitize(&head).bold())?;
    } else {
        writeln!(w, "{}", sanitize(&head))?;
    }
    writeln!(w)?;
    for it in items.iter().rev() {
        writeln!(
            w,
            "- {} {} {} by {} ({})",
            it.time,
            it.action,
            sanitize(&it.object.display()),
            sanitize(&it.actor.user),
            it.actor.kind
        )?;
        if let Some(c) = &it.cause {
            writeln!(w, "  - cause: {} — {}", c.type_, sanitize(&c.detail))?;
            match &c.root {
                Some(r) => writeln!(
                    w,
                    "  - chain started by: {} {} by {} at {}",
                    r.action,
                    sanitize(&r.object.display()),
                    sanitize(&r.user),
                    r.time
                )?,
                None => writeln!(w, "  - chain started by: not in the inputs")?,
            }
        }
        writeln!(w, "  - read from {}", sanitize(&it.source))?;
    }
    Ok(())
}
