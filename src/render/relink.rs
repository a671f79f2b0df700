//! `kubectl gc relink`'s plan as people read it: one row per reference to set, the skipped
//! ones with why, and the counts; `-o json|yaml` is the `RelinkPlan` document.

use super::{Styles, text::sanitized};
use crate::diagnose::relink::Relink;
use std::io::Write;

/// The `RelinkPlan` document (`-o json|yaml`).
pub fn document(p: &Relink, dry_run: bool) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": crate::build_info::REPORT_API_VERSION,
        "kind": "RelinkPlan",
        "dryRun": dry_run,
        "links": p.links,
        "skipped": p.skipped,
    })
}

/// The plan as a table; `applying`: `--apply` performs it next, so the counts say what is
/// being set, not what a dry run would set (newcomer NC14).
pub fn table(w: &mut dyn Write, p: &Relink, styles: Styles, applying: bool) -> std::io::Result<()> {
    if p.links.is_empty() {
        writeln!(w, "Nothing to relink.")?;
    } else {
        let mut t = super::table(styles);
        t.set_header(["NAMESPACE", "OBJECT", "OWNER", "OLD UID", "NEW UID"]);
        super::pad_columns(&mut t);
        for l in &p.links {
            for r in &l.add {
                t.add_row([
                    sanitized(if l.namespace.is_empty() {
                        "-"
                    } else {
                        &l.namespace
                    }),
                    sanitized(&format!("{}/{}", l.kind, l.name)),
                    sanitized(&format!("{}/{}", r.kind, r.name)),
                    sanitized(&r.old_uid),
                    sanitized(&r.uid),
                ]);
            }
        }
        super::write_table(w, &t)?;
    }
    if !p.skipped.is_empty() {
        writeln!(w)?;
        let mut t = super::table(styles);
        t.set_header(["SKIPPED", "OWNER", "WHY"]);
        super::pad_columns(&mut t);
        for s in &p.skipped {
            t.add_row([
                sanitized(&s.object),
                sanitized(&s.owner),
                sanitized(&s.reason),
            ]);
        }
        super::write_table(w, &t)?;
    }
    let refused: Vec<&crate::diagnose::relink::Link> =
        p.links.iter().filter(|l| l.permission.is_some()).collect();
    if !refused.is_empty() {
        writeln!(w)?;
        for l in refused {
            let ns = if l.namespace.is_empty() {
                String::new()
            } else {
                format!(" -n {}", l.namespace)
            };
            writeln!(
                w,
                "GC027 {}: {}",
                sanitized(&format!("{}/{}{ns}", l.kind, l.name)),
                sanitized(l.permission.as_deref().unwrap_or_default())
            )?;
        }
    }
    let (n, objects, skipped) = (
        p.links.iter().map(|l| l.add.len()).sum::<usize>(),
        p.links.len(),
        p.skipped.len(),
    );
    if applying && n > 0 {
        writeln!(
            w,
            "\nsetting {n} reference(s) on {objects} object(s) · {skipped} skipped"
        )
    } else {
        writeln!(
            w,
            "\n{n} reference(s) to set on {objects} object(s) · {skipped} skipped"
        )
    }
}
