//! Remedies: ready-to-run `kubectl` commands that fix a reference or finish a deletion. Each
//! write is guarded by a JSON-patch `test` of the value it expects, so it fails instead of
//! changing an object that moved on since the snapshot.

use crate::gc::State;
use crate::model::{ObjId, Sym};
use crate::snapshot::Snapshot;

/// `kubectl` target words for an object: `kind.group/name [-n ns]`.
pub fn kubectl_target(snap: &Snapshot, id: ObjId) -> String {
    let o = snap.store.object(id);
    let r = snap.resource_of(o);
    let res = if r.group.is_empty() {
        r.plural.clone()
    } else {
        format!("{}.{}", r.plural, r.group)
    };
    let ns = snap.store.str(o.namespace);
    let name = snap.store.str(o.name);
    if ns.is_empty() {
        format!("{res}/{name}")
    } else {
        format!("{res}/{name} -n {ns}")
    }
}

fn ref_index(snap: &Snapshot, state: &State, id: ObjId, uid: Sym) -> usize {
    state
        .owner_refs(&snap.store, id)
        .iter()
        .position(|r| r.uid == uid)
        .unwrap_or(0)
}

/// `kubectl patch` removing the reference to `uid` (JSON patch with a `test` guard, which
/// works for custom resources too).
pub fn remove_ref(snap: &Snapshot, state: &State, id: ObjId, uid: Sym) -> String {
    let i = ref_index(snap, state, id, uid);
    format!(
        "kubectl patch {} --type=json -p '[{{\"op\":\"test\",\"path\":\"/metadata/ownerReferences/{i}/uid\",\"value\":\"{}\"}},{{\"op\":\"remove\",\"path\":\"/metadata/ownerReferences/{i}\"}}]'",
        kubectl_target(snap, id),
        snap.store.str(uid)
    )
}

/// `kubectl patch` setting `blockOwnerDeletion=false` on the reference to `uid`.
pub fn unblock_ref(snap: &Snapshot, state: &State, id: ObjId, uid: Sym) -> String {
    let i = ref_index(snap, state, id, uid);
    format!(
        "kubectl patch {} --type=json -p '[{{\"op\":\"test\",\"path\":\"/metadata/ownerReferences/{i}/uid\",\"value\":\"{}\"}},{{\"op\":\"replace\",\"path\":\"/metadata/ownerReferences/{i}/blockOwnerDeletion\",\"value\":false}}]'",
        kubectl_target(snap, id),
        snap.store.str(uid)
    )
}

/// Finishes a deletion held by finalizers: removes them all, guarded by a test on their
/// current value. Only for when the controllers owning them cannot or will not.
pub fn remove_finalizers(snap: &Snapshot, state: &State, id: ObjId) -> String {
    let store = &snap.store;
    let fins: Vec<&str> = state
        .finalizers(store, id)
        .iter()
        .map(|f| store.str(*f))
        .collect();
    format!(
        "kubectl patch {} --type=json -p '[{{\"op\":\"test\",\"path\":\"/metadata/finalizers\",\"value\":{}}},{{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}}]'",
        kubectl_target(snap, id),
        serde_json::to_string(&fins).expect("strings serialize")
    )
}
