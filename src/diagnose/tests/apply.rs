//! `check apply`'s cluster after the apply (`diagnose::apply`): creates, updates, Velero's
//! rules, copies of one object, and GC025.

use crate::diagnose::apply::{Restorer, apply, block_owner_deletion_findings};
use crate::diagnose::{Code, audit};
use crate::gc::GarbageCollector;
use crate::model::ObjId;
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;

fn find(s: &Snapshot, kind: &str, name: &str) -> ObjId {
    s.store
        .ids()
        .find(|&id| {
            let o = s.store.object(id);
            s.resource_of(o).kind == kind && s.store.str(o.name) == name
        })
        .unwrap_or_else(|| panic!("{kind}/{name}"))
}

fn refs(s: &Snapshot, id: ObjId) -> Vec<String> {
    s.store
        .owner_refs(id)
        .iter()
        .map(|r| format!("{}/{}", s.store.str(r.name), s.store.str(r.uid)))
        .collect()
}

#[test]
fn an_update_keeps_the_targets_uid_and_carries_the_inputs_references() {
    let mut t = Cluster::new();
    t.obj("v1", "ConfigMap", "shop", "owner", "t-owner");
    t.obj("v1", "ConfigMap", "shop", "child", "t-child")
        .owner("v1", "ConfigMap", "old", "t-old");
    let target = t.build();
    let mut i = Cluster::new();
    i.obj("v1", "ConfigMap", "shop", "child", "src-child")
        .owner("v1", "ConfigMap", "owner", "t-owner");
    i.obj("v1", "ConfigMap", "shop", "new", "src-new");
    let input = i.build();
    let a = apply(Some(&target), &input, Restorer::Apply);
    let s = &a.snapshot;
    assert_eq!(s.store.len(), 3);
    let child = find(s, "ConfigMap", "child");
    assert_eq!(s.store.str(s.store.object(child).uid), "t-child", "kept");
    assert_eq!(refs(s, child), ["owner/t-owner"], "the input's references");
    assert!(a.from_input(child));
    assert!(!a.from_input(find(s, "ConfigMap", "owner")));
    let new = find(s, "ConfigMap", "new");
    assert!(
        s.store
            .str(s.store.object(new).uid)
            .starts_with("kgc-created-")
    );
    assert_eq!(a.input_of[new.index()], Some(ObjId(1)));
    // Velero leaves the existing object as it is: its old reference stays, and it is not
    // counted as restored.
    let v = apply(Some(&target), &input, Restorer::Velero);
    let child = find(&v.snapshot, "ConfigMap", "child");
    assert_eq!(refs(&v.snapshot, child), ["old/t-old"]);
    assert!(!v.from_input(child));
    assert_eq!(v.not_restored.len(), 1, "{:?}", v.not_restored);
}

#[test]
fn copies_at_one_coordinate_are_one_object_and_conflict_only_when_they_disagree() {
    let mut i = Cluster::new();
    i.obj("v1", "ConfigMap", "shop", "a", "kgc-manifest-1");
    i.obj("v1", "ConfigMap", "shop", "a", "kgc-manifest-2");
    i.obj("v1", "ConfigMap", "shop", "b", "u-b1");
    i.obj("v1", "ConfigMap", "shop", "b", "u-b2")
        .owner("v1", "ConfigMap", "a", "x");
    let input = i.build();
    let a = apply(None, &input, Restorer::Apply);
    assert_eq!(a.snapshot.store.len(), 2, "one object per coordinate");
    assert_eq!(a.conflicts.len(), 1, "{:?}", a.conflicts);
    let (first, second, differs) = &a.conflicts[0];
    assert_eq!((*first, *second), (ObjId(2), ObjId(3)));
    assert_eq!(differs, &["uid", "ownerReferences"]);
}

#[test]
fn block_owner_deletion_to_an_owner_that_will_not_exist_is_gc025() {
    let mut i = Cluster::new();
    i.obj("v1", "ConfigMap", "shop", "blocking", "u1")
        .owner("v1", "ConfigMap", "gone", "g")
        .block(true);
    i.obj("v1", "ConfigMap", "shop", "plain", "u2")
        .owner("v1", "ConfigMap", "gone", "g");
    let input = i.build();
    let a = apply(None, &input, Restorer::Apply);
    let gc = GarbageCollector::new(
        &a.snapshot,
        GarbageCollector::default_gc_version(&a.snapshot),
    );
    let findings = audit(&gc).findings;
    let f = block_owner_deletion_findings(&findings, &a.snapshot);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].code, Code::BlockOwnerDeletionToNothing);
    assert_eq!(
        f[0].object,
        Some(find(&a.snapshot, "ConfigMap", "blocking"))
    );
    // Its owner, re-created from the input, gets a new UID: the reference is stale as well.
    let mut i = Cluster::new();
    i.obj("v1", "ConfigMap", "shop", "gone", "g");
    i.obj("v1", "ConfigMap", "shop", "blocking", "u1")
        .owner("v1", "ConfigMap", "gone", "g")
        .block(true);
    let input = i.build();
    let a = apply(None, &input, Restorer::Apply);
    let gc = GarbageCollector::new(
        &a.snapshot,
        GarbageCollector::default_gc_version(&a.snapshot),
    );
    let f = block_owner_deletion_findings(&audit(&gc).findings, &a.snapshot);
    assert_eq!(f.len(), 1, "{f:?}");
}
