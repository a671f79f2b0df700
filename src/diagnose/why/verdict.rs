//! The answer's first line: one plain sentence that says what becomes of the object and when,
//! read off the same plan `collect` prints ([`ObjectOutcome`]), with the one reason that
//! decides it.

use super::{FinalizerWhy, GcWhy, Holds, NamespaceWhy, ReferenceWhy};
use crate::diagnose::analysis::ObjectOutcome;
use crate::diagnose::timeline::{self, When};
use crate::gc::ObjectRef;

/// What the sentence is about.
pub(super) struct Subject<'a> {
    pub object: &'a ObjectRef,
    pub terminating: bool,
    /// How long it has been terminating.
    pub age: Option<&'a str>,
    pub finalizers: &'a [FinalizerWhy],
    pub namespace: Option<&'a NamespaceWhy>,
    pub gc: &'a GcWhy,
    pub outcome: &'a ObjectOutcome,
    /// Before 1.20: another object's bad reference names the same owner UID as one of this
    /// object's valid references (GC012).
    pub collateral: bool,
}

pub(super) fn verdict(s: &Subject<'_>) -> String {
    let who = s.object.to_string();
    let since = s.age.map(|a| format!(" for {a}")).unwrap_or_default();
    if let Some(ns) = s.namespace {
        return namespace_sentence(&who, &since, s.terminating, ns);
    }
    let o = s.outcome;
    match o.state {
        "order-dependent" => {
            let ends: Vec<String> = o.alternatives.iter().map(end_words).collect();
            let order = if o.alternatives.iter().any(|a| a.order == Some("requests")) {
                crate::gc::OpenOrder::Requests.what()
            } else {
                crate::gc::OpenOrder::Informers.what()
            };
            let mut line = format!(
                "Whether the GC deletes {who} depends on {order}, which upstream does not fix: \
                 it ends {}.",
                ends.join(", or ")
            );
            if s.collateral {
                line.pop();
                line.push_str(
                    " (before 1.20 the GC caches an owner's UID as absent for every dependent \
                     once one bad reference names it, kubernetes#65200).",
                );
            }
            line
        }
        "unknown" => format!(
            "Whether the GC deletes {who} is unknown: {}.",
            strip_unknown(&s.gc.explanation)
        ),
        _ if s.terminating => terminating_sentence(&who, &since, s),
        "deleted" | "terminating" => deleting_sentence(&who, s),
        _ => kept_sentence(&who, s),
    }
}

fn namespace_sentence(who: &str, since: &str, terminating: bool, ns: &NamespaceWhy) -> String {
    let first = ns.blockers.first().map_or("", |b| b.summary.as_str());
    match (terminating, ns.outlook) {
        (true, "finishes") => format!(
            "{who} has been Terminating{since}; nothing holds it, so the namespace controller \
             finishes it."
        ),
        (true, "stuck") => format!("{who} has been stuck Terminating{since}: {first}."),
        (true, "waiting") => {
            format!("{who} has been Terminating{since} and stays so while {first}.")
        }
        (true, _) => {
            format!("{who} has been Terminating{since}; whether it finishes is unknown: {first}.")
        }
        (false, "finishes") => format!(
            "{who} exists; if it were deleted now, the namespace controller would finish the \
             deletion."
        ),
        (false, "stuck") => format!(
            "{who} exists; if it were deleted now, it would stay stuck Terminating: {first}."
        ),
        (false, "waiting") => format!(
            "{who} exists; if it were deleted now, it would stay Terminating while {first}."
        ),
        (false, _) => {
            format!("{who} exists; whether a deletion of it would finish is unknown: {first}.")
        }
    }
}

fn terminating_sentence(who: &str, since: &str, s: &Subject<'_>) -> String {
    let o = s.outcome;
    if o.state == "deleted" {
        return format!(
            "{who} has been Terminating{since}; nothing holds it any longer, and it is gone as \
             soon as {} removes its last finalizer.",
            match o.by {
                Some("garbage-collector") => "the GC",
                Some("namespace-controller") => "the namespace controller",
                _ => "its controller",
            }
        );
    }
    let holding: Vec<&FinalizerWhy> = s
        .finalizers
        .iter()
        .filter(|f| f.holds != Holds::No)
        .collect();
    let blocks = blocks_words(s.gc);
    match holding.as_slice() {
        [] if s.finalizers.is_empty() => {
            format!("{who} has been Terminating{since} with no finalizer left: it goes at once.")
        }
        [] => format!(
            "{who} has been Terminating{since}; what its finalizers wait for is done, so {} \
             should remove them{blocks}.",
            join_and(s.finalizers.iter().map(|f| f.controller.clone()).collect())
        ),
        hs => format!(
            "{who} has been Terminating{since} and stays so: {}{blocks}.",
            hs.iter()
                .map(|f| held_words(f))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    }
}

/// `held by F, …` for one finalizer that holds.
fn held_words(f: &FinalizerWhy) -> String {
    if f.owner_kind == "unknown" {
        format!("{} holds it, a finalizer kubectl-gc does not know", f.name)
    } else if f.detail.is_empty() {
        format!("{} holds it ({})", f.name, f.controller)
    } else {
        format!("{} holds it: {}", f.name, f.detail)
    }
}

fn deleting_sentence(who: &str, s: &Subject<'_>) -> String {
    let o = s.outcome;
    let then = if o.state == "terminating" && !o.finalizers.is_empty() {
        format!(
            "; its finalizers ({}) then hold it Terminating",
            o.finalizers.join(", ")
        )
    } else {
        String::new()
    };
    if o.by == Some("namespace-controller") {
        return format!(
            "{who} goes with its namespace: the namespace controller deletes it{then}."
        );
    }
    let clause = timeline::clause(o.when, o.when_reason);
    let because = timeline::because(o.when, o.when_reason);
    match (&o.after, o.when) {
        (Some(owner), When::Now) => format!(
            "The GC will delete {who} in the cascade, after it deletes its owner {}{then}.",
            owner
        ),
        (Some(owner), _) => format!(
            "The GC will delete {who} in the cascade, after it deletes its owner {},{clause}{then}.",
            owner
        ),
        (None, When::Now) if o.when_reason != Some(timeline::Reason::Written) => format!(
            "The GC will delete {who} as soon as it evaluates it: {}{then}.",
            reason(s.object, s.gc)
        ),
        (None, When::Restart) => format!(
            "The GC will delete {who}{clause}, not before: {}{because}{then}.",
            reason(s.object, s.gc)
        ),
        (None, When::Never) => format!(
            "The GC would delete {who} if it evaluated it ({}), but it never gets to it{because}{then}.",
            reason(s.object, s.gc)
        ),
        _ => format!(
            "The GC will delete {who}{clause}: {}{then}.",
            reason(s.object, s.gc)
        ),
    }
}

fn kept_sentence(who: &str, s: &Subject<'_>) -> String {
    let o = s.outcome;
    if o.when == When::Restart {
        let at = o
            .at_restart
            .as_ref()
            .map_or("deletes it".to_owned(), |a| match a.state {
                "deleted" => "deletes it".to_owned(),
                "terminating" => format!(
                    "deletes it, and its finalizers ({}) then hold it Terminating",
                    a.finalizers.join(", ")
                ),
                _ => "acts on it".to_owned(),
            });
        return format!(
            "The running GC keeps {who}, but after kube-controller-manager restarts (or its \
             leader changes) the GC {at}: {}{}.",
            reason(s.object, s.gc),
            timeline::because(o.when, o.when_reason)
        );
    }
    let g = s.gc;
    match g.verdict {
        "no-owners" => format!(
            "The GC keeps {who}: it has no ownerReferences, and the GC deletes only objects whose \
             owners are gone."
        ),
        "not-monitored" => {
            format!("The GC keeps {who}: it does not watch this resource, so it never deletes it.")
        }
        "never-collected" => format!("The GC never collects {who}: {}.", g.explanation),
        "remove-refs" => format!(
            "The GC keeps {who}, because an owner of it exists, and removes its references to \
             {}.",
            join_and(
                g.owner_references
                    .iter()
                    .filter(|r| matches!(r.class, "dangling" | "waiting"))
                    .map(|r| format!("{}/{}", r.kind, r.name))
                    .collect()
            )
        ),
        _ => {
            let solid: Vec<String> = g
                .owner_references
                .iter()
                .filter(|r| r.class == "solid")
                .map(|r| {
                    r.owner
                        .as_ref()
                        .map_or(format!("{}/{}", r.kind, r.name), ToString::to_string)
                })
                .collect();
            match solid.as_slice() {
                [] => format!("The GC keeps {who}."),
                [one] => format!("The GC keeps {who}: its owner {one} exists."),
                many => format!(
                    "The GC keeps {who}: its owners {} exist.",
                    join_and(many.to_vec())
                ),
            }
        }
    }
}

/// Why the GC deletes the object itself: the first reference it counts as gone.
fn reason(object: &ObjectRef, g: &GcWhy) -> String {
    let Some(r) = g
        .owner_references
        .iter()
        .find(|r| r.class == "dangling")
        .or_else(|| g.owner_references.iter().find(|r| r.class == "waiting"))
    else {
        return "no owner of it is left".to_owned();
    };
    dangling_words(object, r)
}

fn dangling_words(object: &ObjectRef, r: &ReferenceWhy) -> String {
    let named = format!("{}/{}", r.kind, r.name);
    match (&r.owner, r.class) {
        (Some(owner), "waiting") => format!(
            "its owner {} is being deleted in the foreground and waits for it",
            owner
        ),
        (Some(owner), _) if owner.namespace != object.namespace => format!(
            "its owner {named} is in namespace {}, but an ownerReference cannot cross \
             namespaces: the GC looks for the owner only in {}, finds none, and treats it as gone",
            owner.namespace,
            if object.namespace.is_empty() {
                "cluster scope".to_owned()
            } else {
                format!("namespace {}", object.namespace)
            }
        ),
        (Some(_), _) => format!(
            "its owner {named} was recreated under another UID, so the owner the reference \
             names is gone"
        ),
        (None, _) => format!("its owner {named} does not exist"),
    }
}

fn strip_unknown(s: &str) -> &str {
    s.strip_prefix("unknown: ").unwrap_or(s)
}

/// How one end state reads in a sentence.
fn end_words(s: &crate::diagnose::analysis::StateWhy) -> String {
    match s.state {
        "deleted" => "deleted".to_owned(),
        "terminating" if !s.finalizers.is_empty() => {
            format!("Terminating, held by {}", s.finalizers.join(", "))
        }
        "terminating" => "Terminating".to_owned(),
        _ => match &s.owner_references {
            Some(refs) if refs.is_empty() => "kept, without ownerReferences".to_owned(),
            _ => "kept".to_owned(),
        },
    }
}

/// `, and it blocks the foreground deletion of …` when it does.
fn blocks_words(g: &GcWhy) -> String {
    if g.blocks.is_empty() {
        return String::new();
    }
    format!(
        ", and it blocks the foreground deletion of {}",
        join_and(g.blocks.iter().map(ToString::to_string).collect())
    )
}

/// `a`, `a and b`, `a, b and c`.
fn join_and(mut items: Vec<String>) -> String {
    match items.len() {
        0 => String::new(),
        1 => items.remove(0),
        _ => {
            let last = items.pop().unwrap_or_default();
            format!("{} and {last}", items.join(", "))
        }
    }
}
