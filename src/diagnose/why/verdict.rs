//! The answer's first line.

use super::{FinalizerWhy, GcWhy, Holds, NamespaceWhy, ObjectRef};

pub(super) fn verdict(
    object: &ObjectRef,
    terminating: bool,
    age: Option<&str>,
    finalizers: &[FinalizerWhy],
    namespace: Option<&NamespaceWhy>,
    gc: &GcWhy,
) -> String {
    let who = object.display();
    let for_age = age.map(|a| format!(" for {a}")).unwrap_or_default();
    if let Some(ns) = namespace {
        let first = ns.blockers.first();
        return match (terminating, ns.outlook) {
            (true, "finishes") => format!(
                "{who} is Terminating{for_age}; nothing holds it: the namespace controller \
                 finishes it"
            ),
            (true, "stuck") => format!(
                "{who} is stuck Terminating{for_age}: {}",
                first.map_or("", |b| b.summary.as_str())
            ),
            (true, "waiting") => format!(
                "{who} is Terminating{for_age} and waits: {}",
                first.map_or("", |b| b.summary.as_str())
            ),
            (true, _) => format!(
                "{who} is Terminating{for_age}; whether it finishes is unknown: {}",
                first.map_or("", |b| b.summary.as_str())
            ),
            (false, "finishes") => {
                format!("{who} exists; deleted now, the namespace controller would finish it")
            }
            (false, outlook) => format!(
                "{who} exists; deleted now, it would be {}: {}",
                match outlook {
                    "stuck" => "stuck Terminating",
                    "waiting" => "held Terminating a while",
                    _ => "of unknown fate",
                },
                first.map_or("", |b| b.summary.as_str())
            ),
        };
    }
    if terminating {
        let holding: Vec<&FinalizerWhy> =
            finalizers.iter().filter(|f| f.holds != Holds::No).collect();
        return match holding.as_slice() {
            [] if finalizers.is_empty() => {
                format!("{who} is Terminating{for_age} with no finalizer left: it goes at once")
            }
            [] => format!(
                "{who} is Terminating{for_age}; its finalizers' conditions are met: {} should \
                 remove them",
                finalizers
                    .iter()
                    .map(|f| f.controller.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            hs => format!(
                "{who} is Terminating{for_age}, held by {}{}",
                hs.iter()
                    .map(|f| if f.owner_kind == "unknown" {
                        format!("{} (a finalizer kubectl-gc does not know)", f.name)
                    } else {
                        format!("{} ({}: {})", f.name, f.controller, f.detail)
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
                blocks_text(gc)
            ),
        };
    }
    let first_gone = gc
        .owner_references
        .iter()
        .find(|r| r.class == "dangling")
        .map(|r| format!(" {}/{} {}", r.kind, r.name, r.detail))
        .unwrap_or_default();
    match gc.verdict {
        "delete" => format!("the GC will delete {who}: no owner is left —{first_gone}"),
        "remove-refs" => format!(
            "the GC keeps {who} but removes the references to owners that are gone —{first_gone}"
        ),
        "keep" | "no-owners" | "not-monitored" => {
            format!("the GC will not delete {who}: {}", gc.explanation)
        }
        _ => format!("{who}: {}", gc.explanation),
    }
}

/// `; it blocks the foreground deletion of …` when it does.
fn blocks_text(gc: &GcWhy) -> String {
    if gc.blocks.is_empty() {
        return String::new();
    }
    format!(
        "; it blocks the foreground deletion of {}",
        gc.blocks
            .iter()
            .map(ObjectRef::display)
            .collect::<Vec<_>>()
            .join(", ")
    )
}
