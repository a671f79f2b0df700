//! What the GC does with the object: each reference classified, the verdict in words.

use super::{GcWhy, ReferenceWhy, refs};
use crate::gc::ObjectRef;
use crate::gc::{Dangling, GarbageCollector, RefClass, State, Verdict};
use crate::model::ObjId;

pub(super) fn gc_why(gc: &GarbageCollector<'_>, state: &State, id: ObjId) -> GcWhy {
    let snap = gc.snap;
    let store = &snap.store;
    let owner_references = state
        .owner_refs(store, id)
        .iter()
        .map(|r| {
            let class = gc.classify_reference(state, id, r);
            let (detail, owner) = match &class {
                RefClass::Solid { owner } => {
                    ("the owner exists with this UID".to_owned(), Some(*owner))
                }
                RefClass::Waiting { owner } => (
                    "the owner exists and is being deleted in the foreground".to_owned(),
                    Some(*owner),
                ),
                RefClass::Dangling(Dangling::Absent) => match gc.misdirected(state, id, r) {
                    Some(elsewhere) => (
                        format!(
                            "the owner with this UID is {}, but the GC looks for it only in the \
                             dependent's own namespace (or at cluster scope): ownerReferences \
                             cannot cross namespaces, so it treats the owner as gone",
                            snap.describe(elsewhere)
                        ),
                        Some(elsewhere),
                    ),
                    None => (
                        "no such owner where the GC looks (its kind and name in the dependent's \
                         namespace, or at cluster scope): the GC treats it as gone"
                            .to_owned(),
                        None,
                    ),
                },
                RefClass::Dangling(Dangling::UidMismatch { found }) => (
                    format!(
                        "an object of that kind and name exists with another UID ({}): the \
                         owner was recreated, and the GC treats this one as gone",
                        store.str(store.object(*found).uid)
                    ),
                    Some(*found),
                ),
                RefClass::Unresolvable { reason }
                | RefClass::Unrequestable { reason }
                | RefClass::Unknown { reason } => (reason.clone(), None),
                RefClass::InvalidScope => (
                    "a cluster-scoped object cannot have a namespaced owner: the GC drops it \
                     and never collects it"
                        .to_owned(),
                    None,
                ),
            };
            ReferenceWhy {
                api_version: store.str(r.api_version).to_owned(),
                kind: store.str(r.kind).to_owned(),
                name: store.str(r.name).to_owned(),
                uid: store.str(r.uid).to_owned(),
                class: class.label(),
                detail,
                owner: owner.map(|o| ObjectRef::of(snap, o)),
            }
        })
        .collect();
    let blocks: Vec<ObjId> = state
        .owner_refs(store, id)
        .iter()
        .filter(|r| r.blocks())
        .filter_map(|r| match gc.classify_reference(state, id, r) {
            RefClass::Waiting { owner } => Some(owner),
            _ => None,
        })
        .collect();
    let verdict = gc.attempt_to_delete_item(state, id);
    let (row, explanation) = explain_verdict(gc, &verdict);
    GcWhy {
        verdict: verdict.label(),
        row,
        explanation,
        owner_references,
        dependents: refs(snap, gc.current_dependents(state, id)),
        blocks: refs(snap, blocks),
    }
}

fn explain_verdict(gc: &GarbageCollector<'_>, v: &Verdict) -> (Option<u8>, String) {
    let describe = |ids: &[ObjId]| {
        ids.iter()
            .take(5)
            .map(|&d| gc.snap.describe(d))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match v {
        Verdict::NotMonitored => (
            None,
            "the GC does not watch this resource: it never deletes or patches it".to_owned(),
        ),
        Verdict::Terminating => (
            Some(1),
            "it is being deleted without foregroundDeletion: the GC leaves it to its finalizers"
                .to_owned(),
        ),
        Verdict::NoOwners => (
            Some(6),
            "it has no ownerReferences: the GC never deletes it on its own".to_owned(),
        ),
        Verdict::Keep { unknown } if unknown.is_empty() => (
            Some(8),
            "at least one owner exists: the GC keeps it".to_owned(),
        ),
        Verdict::Keep { unknown } => (
            Some(8),
            format!(
                "at least one owner exists: the GC keeps it ({} reference(s) could not be checked)",
                unknown.len()
            ),
        ),
        Verdict::RemoveRefs { uids, .. } => (
            Some(8),
            format!(
                "a solid owner remains: the GC keeps it and removes {} reference(s) to owners \
                 that are gone or being deleted in the foreground",
                uids.len()
            ),
        ),
        Verdict::Delete { policy, row, .. } => (
            Some(*row),
            format!(
                "no owner is left: the GC deletes it (propagationPolicy={})",
                policy.as_str()
            ),
        ),
        Verdict::RemoveForegroundFinalizer => (
            None,
            "in foreground deletion and nothing blocks it: the GC removes foregroundDeletion"
                .to_owned(),
        ),
        Verdict::WaitForDependents { blocking } => (
            None,
            format!(
                "in foreground deletion: the GC waits for {} dependent(s) with \
                 blockOwnerDeletion=true ({})",
                blocking.len(),
                describe(blocking)
            ),
        ),
        Verdict::NeverCollected { reason, dropped } => (
            Some(7),
            format!(
                "the GC cannot classify its references and never collects it ({}): {reason}",
                if *dropped {
                    "dropped from its queue"
                } else {
                    "retried forever"
                }
            ),
        ),
        Verdict::Unknown { reason } => (None, format!("unknown: {reason}")),
    }
}
