//! What the table says of the sources besides the audit log (kube-controller-manager's log):
//! what was read of it, which sources prove each row, the GC's starts.

use crate::diagnose::history::{Answer, Item, Read, Verb};
use crate::render::text::sanitize;
use std::io::Write;

/// `N controller-manager log line(s) read (…)`, where that log was read.
pub(super) fn log_line(read: &Read) -> Option<String> {
    read.controller_manager_log.as_ref().map(|l| {
        format!(
            "{} controller-manager log line(s) read ({} of the GC and the namespace controller, \
             --v={} or more)",
            l.lines, l.controller_lines, l.verbosity
        )
    })
}

/// The sources that show a row (`PROVEN BY`): the audit log, the controller manager's log.
pub(super) fn proven_by(it: &Item) -> String {
    let mut names: Vec<&str> = it
        .evidence
        .iter()
        .map(|e| match e.source {
            "controller-manager-log" => "kcm-log",
            other => other,
        })
        .collect();
    names.dedup();
    if names.is_empty() {
        "audit-log".to_owned()
    } else {
        names.join("+")
    }
}

/// True when a source besides the audit log shows any row: the table then says which.
pub(super) fn other_sources(items: &[Item]) -> bool {
    items
        .iter()
        .any(|it| it.evidence.iter().any(|e| e.source != "audit-log"))
}

/// The cause column of a GC start: what its line says (the release), and what a start means.
pub(super) fn start_text(it: &Item) -> Option<String> {
    (it.action == Verb::GcStart).then(|| {
        it.evidence
            .first()
            .and_then(|e| e.says.clone())
            .unwrap_or_else(|| "the garbage collector started".to_owned())
    })
}

/// ` · 1.234s after a GC start`, for a row soon after one.
pub(super) fn after_start(it: &Item) -> String {
    it.after_gc_start_ms.map_or(String::new(), |ms| {
        format!(" · {}.{:03}s after a GC start", ms / 1000, ms % 1000)
    })
}

/// The first lines of the controller manager's log that could not be read, as warnings.
pub(super) fn warnings(w: &mut dyn Write, a: &Answer) -> std::io::Result<()> {
    for p in a.log_problems.iter().take(crate::error::SHOWN_PROBLEMS) {
        writeln!(
            w,
            "warning: {}:{}: {}",
            sanitize(&p.position.source),
            p.position.line,
            sanitize(&p.cause)
        )?;
    }
    if a.log_problems.len() > crate::error::SHOWN_PROBLEMS {
        writeln!(
            w,
            "warning: … {} more unreadable line(s) of the controller-manager log",
            a.log_problems.len() - crate::error::SHOWN_PROBLEMS
        )?;
    }
    Ok(())
}
