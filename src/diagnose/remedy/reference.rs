//! The remedy catalogue for broken ownerReferences: one answer per kind of break, used by every
//! command (`why`, `audit`, `check restart`, `check apply`). Each remedy fixes the object that
//! *carries* the reference, never a dependent further down the cascade, and only in a way that
//! works for that break: no UID makes a reference cross namespaces, an absent owner has no
//! "current UID", and an object already being deleted is finished by its finalizers, not by
//! reference surgery.

use super::{Remedy, json_patch, ref_index, remove_ref};
use crate::diagnose::judge::place::{Break, break_of};
use crate::gc::{GarbageCollector, State};
use crate::model::{ObjId, OwnerRef};
use serde_json::json;

/// The remedies for reference `r` of `carrier`, safest first; empty for a reference the GC
/// accepts (or one the input cannot judge).
pub fn for_reference(
    gc: &GarbageCollector<'_>,
    state: &State,
    carrier: ObjId,
    r: &OwnerRef,
) -> Vec<Remedy> {
    let class = gc.classify_reference(state, carrier, r);
    match break_of(gc, carrier, r, &class, None) {
        Some(brk) => for_break(gc, state, carrier, r, &brk),
        None => Vec::new(),
    }
}

/// The remedies for reference `r` of `carrier`, judged to be broken as `brk`, safest first.
pub fn for_break(
    gc: &GarbageCollector<'_>,
    state: &State,
    carrier: ObjId,
    r: &OwnerRef,
    brk: &Break,
) -> Vec<Remedy> {
    if matches!(brk, Break::Waiting { .. } | Break::Unknown { .. }) {
        return Vec::new();
    }
    if state.being_deleted(carrier) {
        return vec![finish_deletion(gc, state, carrier)];
    }
    let snap = gc.snap;
    let store = &snap.store;
    let owner = format!("{}/{}", store.str(r.kind), store.str(r.name));
    let remove = |when: &str| Remedy {
        note: format!(
            "remove the reference to {owner} from {}: {when}",
            snap.describe(carrier)
        ),
        command: remove_ref(snap, state, carrier, r.uid),
        manifest: remove_entry(gc, r),
    };
    match brk {
        Break::OtherNamespace { holder: h, .. } => vec![
            remove(
                "the object is kept and no longer goes with its owner (an ownerReference \
                 cannot cross namespaces, whatever UID it holds)",
            ),
            Remedy {
                note: format!(
                    "if {} should own it, the two must share a namespace: create the object \
                     in namespace {} beside its owner (or the owner in {}) and delete this one",
                    snap.describe(*h),
                    store.str(store.object(*h).namespace),
                    store.str(store.object(carrier).namespace),
                ),
                command: String::new(),
                manifest: format!(
                    "or write this object into namespace {} beside its owner",
                    store.str(store.object(*h).namespace)
                ),
            },
        ],
        Break::Misnamed { holder: h } => vec![
            fix_coordinates(
                gc,
                state,
                carrier,
                r,
                *h,
                format!(
                    "the reference holds the UID of {} but names {owner}, so the GC finds \
                     no owner",
                    snap.describe(*h)
                ),
            ),
            remove("if the object should not go with that owner, it is then kept"),
        ],
        Break::Recreated { found } => vec![
            Remedy {
                note: format!(
                    "if {} (recreated under a new UID) should own it, re-point the reference \
                     at its current UID; the patch refuses to apply if the reference changed",
                    snap.describe(*found)
                ),
                command: json_patch(
                    snap,
                    carrier,
                    json!([
                        {"op": "test", "path": uid_path(snap, state, carrier, r), "value": store.str(r.uid)},
                        {"op": "replace", "path": uid_path(snap, state, carrier, r), "value": store.str(store.object(*found).uid)},
                    ]),
                ),
                manifest: String::new(),
            },
            Remedy {
                manifest: format!(
                    "delete the ownerReferences entry that names {owner}: the owner gets a \
                     new UID when it is created, which no manifest can know; its controller \
                     adopts the object, or `kubectl gc relink` re-points it after the apply"
                ),
                ..remove("if it should no longer go with that owner, it is then kept")
            },
        ],
        Break::Absent => vec![
            remove(super::wording::ABSENT_WHEN),
            Remedy {
                note: format!(
                    "if {owner} should exist, recreate it first (from its manifest), then \
                     re-point this reference at its new UID: `kubectl gc relink -f` with the \
                     manifests writes that patch"
                ),
                command: String::new(),
                manifest: String::new(),
            },
        ],
        Break::Unresolvable { reason } | Break::Unrequestable { reason } => {
            let why = format!("the GC cannot resolve {owner}: {reason}");
            let mut out = Vec::new();
            match store.by_uid(r.uid).filter(|&h| h != carrier) {
                Some(h) => out.push(fix_coordinates(gc, state, carrier, r, h, why)),
                None => out.push(Remedy {
                    note: format!(
                        "{} ({why}); until then the GC retries the object forever",
                        super::wording::FIX_COORDINATES
                    ),
                    command: String::new(),
                    manifest: format!(
                        "set the apiVersion, kind and name of the entry that names {owner} to a \
                         served kind's"
                    ),
                }),
            }
            out.push(remove("if it needs no owner, it is then kept"));
            out
        }
        Break::InvalidScope => vec![remove(super::wording::INVALID_SCOPE_WHEN)],
        Break::Waiting { .. } | Break::Unknown { .. } => Vec::new(),
    }
}

/// The fix for reference `r` while `carrier` is being written (`kubectl gc admit`): what to
/// change in the object before it is stored, in the words of the remedies above (their
/// manifest form, which `check apply` gives too). A stale UID is the one break whose remedy
/// differs from a manifest's: the owner exists, so its current UID is known. `None` when no
/// edit of the object helps (an object already being deleted) or the GC accepts the reference.
pub fn for_write(
    gc: &GarbageCollector<'_>,
    state: &State,
    carrier: ObjId,
    r: &OwnerRef,
) -> Option<String> {
    let class = gc.classify_reference(state, carrier, r);
    let brk = break_of(gc, carrier, r, &class, None)?;
    for_write_break(gc, state, carrier, r, &brk)
}

/// [`for_write`] of a reference judged broken as `brk`.
pub fn for_write_break(
    gc: &GarbageCollector<'_>,
    state: &State,
    carrier: ObjId,
    r: &OwnerRef,
    brk: &Break,
) -> Option<String> {
    let store = &gc.snap.store;
    if let Break::Waiting { .. } = brk {
        return Some("reference an owner that is not being deleted".to_owned());
    }
    let remedies = for_break(gc, state, carrier, r, brk);
    if remedies.is_empty() || state.being_deleted(carrier) {
        return None;
    }
    if let Break::Recreated { found } = brk {
        return Some(format!(
            "set the entry's uid to {}, the owner's current uid, or {}",
            store.str(store.object(*found).uid),
            remove_entry(gc, r)
        ));
    }
    let mut out = String::new();
    for m in remedies
        .iter()
        .map(|m| m.manifest.as_str())
        .filter(|m| !m.is_empty())
    {
        if !out.is_empty() {
            out.push_str(if m.starts_with("or ") { ", " } else { ", or " });
        }
        out.push_str(m);
    }
    (!out.is_empty()).then_some(out)
}

/// The manifest form of removing the reference.
fn remove_entry(gc: &GarbageCollector<'_>, r: &OwnerRef) -> String {
    let store = &gc.snap.store;
    format!(
        "delete the ownerReferences entry that names {}/{}",
        store.str(r.kind),
        store.str(r.name)
    )
}

/// For an object already being deleted: no change to its references helps; what finishes it.
pub fn finish_deletion(gc: &GarbageCollector<'_>, state: &State, id: ObjId) -> Remedy {
    let store = &gc.snap.store;
    let fins: Vec<&str> = state
        .finalizers(store, id)
        .iter()
        .map(|f| store.str(*f))
        .collect();
    Remedy {
        note: if fins.is_empty() {
            format!(
                "{} is already being deleted and holds no finalizer: it goes without any change",
                gc.snap.describe(id)
            )
        } else {
            format!(
                "{} is already being deleted, and no change to its ownerReferences keeps it: \
                 it goes once its finalizers ({}) are removed",
                gc.snap.describe(id),
                fins.join(", ")
            )
        },
        command: String::new(),
        manifest: String::new(),
    }
}

fn uid_path(snap: &crate::snapshot::Snapshot, state: &State, id: ObjId, r: &OwnerRef) -> String {
    format!(
        "/metadata/ownerReferences/{}/uid",
        ref_index(snap, state, id, r.uid)
    )
}

/// Re-points the reference's apiVersion, kind and name at `holder`, the object whose UID it
/// already holds in the dependent's own namespace (or cluster-wide).
fn fix_coordinates(
    gc: &GarbageCollector<'_>,
    state: &State,
    carrier: ObjId,
    r: &OwnerRef,
    holder: ObjId,
    why: String,
) -> Remedy {
    let snap = gc.snap;
    let store = &snap.store;
    let h = store.object(holder);
    let res = snap.resource_of(h);
    let api_version = if res.group.is_empty() {
        res.version.clone()
    } else {
        format!("{}/{}", res.group, res.version)
    };
    let i = ref_index(snap, state, carrier, r.uid);
    Remedy {
        note: format!(
            "fix the reference to name {} ({why}); the patch refuses to apply if the reference \
             changed",
            snap.describe(holder)
        ),
        command: json_patch(
            snap,
            carrier,
            json!([
                {"op": "test", "path": format!("/metadata/ownerReferences/{i}/uid"), "value": store.str(r.uid)},
                {"op": "replace", "path": format!("/metadata/ownerReferences/{i}/apiVersion"), "value": api_version},
                {"op": "replace", "path": format!("/metadata/ownerReferences/{i}/kind"), "value": res.kind},
                {"op": "replace", "path": format!("/metadata/ownerReferences/{i}/name"), "value": store.str(h.name)},
            ]),
        ),
        manifest: format!(
            "set the entry's apiVersion to {api_version}, kind to {} and name to {}",
            res.kind,
            store.str(h.name)
        ),
    }
}
