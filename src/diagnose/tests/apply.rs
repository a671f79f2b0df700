//! `check apply`'s cluster after the apply (`diagnose::apply`): creates, updates, Velero's
//! rules, copies of one object, and GC025.

use crate::catalog::KubeVersion;
use crate::diagnose::apply::{Restorer, Target, apply, block_owner_deletion_findings};
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
    let a = apply(Target::Cluster(&target), &input, Restorer::Apply);
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
    let v = apply(Target::Cluster(&target), &input, Restorer::Velero);
    let child = find(&v.snapshot, "ConfigMap", "child");
    assert_eq!(refs(&v.snapshot, child), ["old/t-old"]);
    assert!(!v.from_input(child));
    assert_eq!(v.not_restored.len(), 1, "{:?}", v.not_restored);
    // Named, so a note can say which object it is about.
    assert_eq!(v.not_restored[0].0, "ConfigMap/child -n shop");
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
    let a = apply(Target::Empty(KubeVersion::NEWEST), &input, Restorer::Apply);
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
    let a = apply(Target::Empty(KubeVersion::NEWEST), &input, Restorer::Apply);
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
    let a = apply(Target::Empty(KubeVersion::NEWEST), &input, Restorer::Apply);
    let gc = GarbageCollector::new(
        &a.snapshot,
        GarbageCollector::default_gc_version(&a.snapshot),
    );
    let f = block_owner_deletion_findings(&audit(&gc).findings, &a.snapshot);
    assert_eq!(f.len(), 1, "{f:?}");
}

/// Manifests as `check apply` reads them.
fn manifests(yaml: &str) -> Snapshot {
    let opts = crate::source::files::FileOptions {
        assume_complete: true,
        manifests: true,
        ..Default::default()
    };
    crate::source::files::read_bytes("in.yaml", yaml.as_bytes(), &opts)
        .expect("reads")
        .0
}

/// ConfigMap `name` in namespace shop owned by `api_version` `kind` `owner`.
fn owned(name: &str, api_version: &str, kind: &str, owner: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: shop\n  name: {name}\n  \
         ownerReferences: [{{apiVersion: {api_version}, kind: {kind}, name: {owner}, uid: u-{owner}}}]\n---\n"
    )
}

/// (dependent's name, its reference's classification) of every reference the audit judged.
fn classes(a: &crate::diagnose::apply::Applied, at: KubeVersion) -> Vec<(String, &'static str)> {
    let gc = GarbageCollector::new(&a.snapshot, at);
    let mut v: Vec<(String, &'static str)> = audit(&gc)
        .findings
        .iter()
        .filter_map(|f| {
            let id = f.object?;
            Some((
                a.snapshot
                    .store
                    .str(a.snapshot.store.object(id).name)
                    .to_owned(),
                f.classification?,
            ))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_new_cluster_has_no_owner_outside_the_input_and_serves_only_its_release_and_the_inputs_crds() {
    let at = KubeVersion::parse("1.20").unwrap();
    let yaml = [
        // A built-in kind the input does not hold: a new cluster has none.
        owned("a", "apps/v1", "Deployment", "web"),
        // A custom kind nothing defines: not served.
        owned("b", "example.com/v1", "Widget", "w"),
        // A custom kind whose CRD is in the input (and none of its objects): served, absent.
        owned("c", "stable.example.com/v1", "CronTab", "ct"),
        // A version 1.20 no longer serves.
        owned("d", "extensions/v1beta1", "Deployment", "old"),
        // Objects of a custom kind without its CRD cannot make it served.
        owned("e", "example.com/v1", "Gadget", "g"),
        "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {namespace: shop, name: other}\n---\n"
            .into(),
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
         metadata: {name: crontabs.stable.example.com}\nspec:\n  group: stable.example.com\n  \
         scope: Namespaced\n  names: {kind: CronTab, plural: crontabs}\n  \
         versions: [{name: v1, served: true, storage: true}]\n"
            .into(),
    ]
    .concat();
    let input = manifests(&yaml);
    let a = apply(Target::Empty(at), &input, Restorer::Apply);
    assert!(a.snapshot.new_cluster);
    assert_eq!(
        classes(&a, at),
        [
            ("a".to_owned(), "dangling"),
            ("b".to_owned(), "unresolvable"),
            ("c".to_owned(), "dangling"),
            ("d".to_owned(), "unresolvable"),
            ("e".to_owned(), "unresolvable"),
        ]
    );
}

#[test]
fn a_target_that_did_not_read_a_kind_keeps_its_owners_unknown() {
    // The target could not list Deployments; the input's owner is one, and not in the input:
    // whether it exists in the target cannot be told.
    let mut t = Cluster::new();
    t.forbid("apps", "deployments");
    t.obj("v1", "ConfigMap", "shop", "unrelated", "t-1");
    let target = t.build();
    let input = manifests(&owned("a", "apps/v1", "Deployment", "web"));
    let a = apply(Target::Cluster(&target), &input, Restorer::Apply);
    assert!(!a.snapshot.new_cluster);
    assert_eq!(
        classes(&a, KubeVersion::NEWEST),
        [("a".to_owned(), "unknown")]
    );
    // The same input in a new cluster: that Deployment certainly does not exist.
    let a = apply(Target::Empty(KubeVersion::NEWEST), &input, Restorer::Apply);
    assert_eq!(
        classes(&a, KubeVersion::NEWEST),
        [("a".to_owned(), "dangling")]
    );
}

#[test]
fn a_kind_the_target_did_not_read_stays_unknown_though_the_input_holds_some() {
    // The target: files holding ConfigMaps only. The input holds a Deployment, and a Secret
    // owned by another Deployment: whether the target has that one cannot be told.
    let target =
        manifests("apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: shop, name: x}\n");
    let yaml = [
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {namespace: shop, name: api}\n---\n"
            .to_owned(),
        owned("a", "apps/v1", "Deployment", "web"),
    ]
    .concat();
    let input = manifests(&yaml);
    let a = apply(Target::Cluster(&target), &input, Restorer::Apply);
    assert_eq!(
        classes(&a, KubeVersion::NEWEST),
        [("a".to_owned(), "unknown")]
    );
}
