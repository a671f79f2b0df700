//! The remedy catalogue, one test per kind of break: the object patched is the one carrying the
//! reference, the command is what that break needs (read back through bash, as a user pastes
//! it), and a hostile name stays one word.

use crate::catalog::KubeVersion;
use crate::diagnose::remedy::{Remedy, for_reference};
use crate::gc::GarbageCollector;
use crate::model::ObjId;
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;
use serde_json::{Value, json};

fn obj(s: &Snapshot, name: &str) -> ObjId {
    s.store
        .ids()
        .find(|&id| s.store.str(s.store.object(id).name) == name)
        .unwrap_or_else(|| panic!("no object {name}"))
}

/// The remedies for the first reference of the object named `name`.
fn remedies(c: &Cluster, name: &str) -> Vec<Remedy> {
    let s = c.build();
    let gc = GarbageCollector::new(&s, KubeVersion::v1(30));
    let state = gc.initial_state();
    let id = obj(&s, name);
    let r = s.store.owner_refs(id)[0];
    for_reference(&gc, &state, id, &r)
}

/// The words bash reads from `cmd` (nothing is run but `printf`).
fn words(cmd: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("printf '%s\\0' {cmd}"))
        .current_dir(dir.path())
        .output()
        .expect("bash");
    assert!(out.status.success(), "{cmd}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{cmd}");
    out.stdout
        .split(|&b| b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8(w.to_vec()).unwrap())
        .collect()
}

/// A `kubectl patch` command read back: its target words and its JSON patch.
fn patch(cmd: &str) -> (Vec<String>, Value) {
    let w = words(cmd);
    assert_eq!(&w[..2], ["kubectl", "patch"], "{cmd}");
    let p = w.iter().position(|x| x == "-p").expect("-p");
    assert_eq!(w[p - 1], "--type=json");
    (
        w[2..p - 1].to_vec(),
        serde_json::from_str(&w[p + 1]).unwrap(),
    )
}

fn owner_cm(c: &mut Cluster, ns: &str, name: &str, uid: &str) {
    c.obj("v1", "ConfigMap", ns, name, uid);
}

#[test]
fn cross_namespace_owner_removes_the_reference_or_shares_a_namespace_never_a_new_uid() {
    let mut c = Cluster::new();
    owner_cm(&mut c, "kube-system", "owner", "owner-uid");
    c.obj("v1", "Secret", "monitoring", "bad", "bad-uid").owner(
        "v1",
        "ConfigMap",
        "owner",
        "owner-uid",
    );
    let r = remedies(&c, "bad");
    assert_eq!(r.len(), 2, "{r:?}");
    let (target, ops) = patch(&r[0].command);
    assert_eq!(target, ["secrets/bad", "-n", "monitoring"]);
    assert_eq!(
        ops,
        json!([
            {"op": "test", "path": "/metadata/ownerReferences/0/uid", "value": "owner-uid"},
            {"op": "remove", "path": "/metadata/ownerReferences/0"},
        ])
    );
    assert!(r[1].command.is_empty());
    assert!(r[1].note.contains("share a namespace"), "{}", r[1].note);
    assert!(
        r.iter()
            .all(|x| !x.note.contains("UID") || x.note.contains("whatever UID"))
    );
}

#[test]
fn absent_owner_removes_the_reference_or_recreates_the_owner_then_relinks() {
    let mut c = Cluster::new();
    c.obj("v1", "Secret", "shop", "orphan", "orphan-uid").owner(
        "v1",
        "ConfigMap",
        "gone",
        "gone-uid",
    );
    let r = remedies(&c, "orphan");
    assert_eq!(r.len(), 2, "{r:?}");
    let (target, ops) = patch(&r[0].command);
    assert_eq!(target, ["secrets/orphan", "-n", "shop"]);
    assert_eq!(
        ops[1],
        json!({"op": "remove", "path": "/metadata/ownerReferences/0"})
    );
    assert!(r[1].command.is_empty());
    assert!(r[1].note.contains("recreate it first") && r[1].note.contains("relink"));
}

#[test]
fn stale_uid_re_points_the_reference_guarded_by_the_old_uid() {
    let mut c = Cluster::new();
    owner_cm(&mut c, "shop", "web", "new-uid");
    c.obj("v1", "Secret", "shop", "tls", "tls-uid")
        .owner("v1", "ConfigMap", "other", "other-uid")
        .owner("v1", "ConfigMap", "web", "old-uid");
    let s = c.build();
    let gc = GarbageCollector::new(&s, KubeVersion::v1(30));
    let state = gc.initial_state();
    let id = obj(&s, "tls");
    let r = s.store.owner_refs(id)[1];
    let r = for_reference(&gc, &state, id, &r);
    let (target, ops) = patch(&r[0].command);
    assert_eq!(target, ["secrets/tls", "-n", "shop"]);
    assert_eq!(
        ops,
        json!([
            {"op": "test", "path": "/metadata/ownerReferences/1/uid", "value": "old-uid"},
            {"op": "replace", "path": "/metadata/ownerReferences/1/uid", "value": "new-uid"},
        ])
    );
    // No manifest can know the recreated owner's UID.
    assert!(r[0].manifest.is_empty());
    let (_, ops) = patch(&r[1].command);
    assert_eq!(
        ops[1],
        json!({"op": "remove", "path": "/metadata/ownerReferences/1"})
    );
}

#[test]
fn wrong_kind_fixes_the_reference_to_the_object_whose_uid_it_holds() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "shop", "web", "web-uid");
    c.obj("apps/v1", "ReplicaSet", "shop", "web-1", "rs-uid")
        .owner("apps/v1", "Deploymnt", "web", "web-uid");
    let r = remedies(&c, "web-1");
    assert_eq!(r.len(), 2, "{r:?}");
    assert!(r[0].note.contains("cannot resolve"), "{}", r[0].note);
    let (target, ops) = patch(&r[0].command);
    assert_eq!(target, ["replicasets.apps/web-1", "-n", "shop"]);
    assert_eq!(
        ops,
        json!([
            {"op": "test", "path": "/metadata/ownerReferences/0/uid", "value": "web-uid"},
            {"op": "replace", "path": "/metadata/ownerReferences/0/apiVersion", "value": "apps/v1"},
            {"op": "replace", "path": "/metadata/ownerReferences/0/kind", "value": "Deployment"},
            {"op": "replace", "path": "/metadata/ownerReferences/0/name", "value": "web"},
        ])
    );
}

#[test]
fn cluster_scoped_dependent_of_a_namespaced_owner_only_removes_the_reference() {
    let mut c = Cluster::new();
    owner_cm(&mut c, "shop", "owner", "owner-uid");
    c.obj("v1", "PersistentVolume", "", "pv-1", "pv-uid").owner(
        "v1",
        "ConfigMap",
        "owner",
        "owner-uid",
    );
    let r = remedies(&c, "pv-1");
    assert_eq!(r.len(), 1, "{r:?}");
    let (target, ops) = patch(&r[0].command);
    assert_eq!(target, ["persistentvolumes/pv-1"]);
    assert_eq!(
        ops[1],
        json!({"op": "remove", "path": "/metadata/ownerReferences/0"})
    );
}

#[test]
fn terminating_carrier_gets_no_reference_surgery_but_what_finishes_it() {
    let mut c = Cluster::new();
    c.obj("v1", "Secret", "shop", "going", "going-uid")
        .owner("v1", "ConfigMap", "gone", "gone-uid")
        .finalizers(&["example.com/hold"])
        .deleting();
    let r = remedies(&c, "going");
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(r[0].command.is_empty());
    assert!(r[0].note.contains("already being deleted") && r[0].note.contains("example.com/hold"));
}

#[test]
fn solid_references_get_no_remedy() {
    let mut c = Cluster::new();
    owner_cm(&mut c, "shop", "owner", "owner-uid");
    c.obj("v1", "Secret", "shop", "fine", "fine-uid").owner(
        "v1",
        "ConfigMap",
        "owner",
        "owner-uid",
    );
    assert!(remedies(&c, "fine").is_empty());
}

#[test]
fn hostile_names_stay_one_word_and_run_nothing() {
    let (ns, name) = ("x'; touch pwned; '", "$(touch pwned)`id`");
    let mut c = Cluster::new();
    c.obj("v1", "Secret", ns, name, "a'b\u{1b}[2J").owner(
        "v1",
        "ConfigMap",
        "gone",
        "u'$(touch pwned)",
    );
    let r = remedies(&c, name);
    let (target, ops) = patch(&r[0].command);
    assert_eq!(
        target,
        [format!("secrets/{name}"), "-n".into(), ns.to_owned()]
    );
    assert_eq!(ops[0]["value"], "u'$(touch pwned)");
}

#[test]
fn restart_victims_are_fixed_on_the_object_carrying_the_bad_reference() {
    // W11: the Pod goes only because its Secret goes; orphaning the Pod fixes nothing.
    let mut c = Cluster::new();
    owner_cm(&mut c, "kube-system", "owner", "owner-uid");
    c.obj("v1", "Secret", "monitoring", "bad", "bad-uid").owner(
        "v1",
        "ConfigMap",
        "owner",
        "owner-uid",
    );
    c.obj("v1", "Pod", "monitoring", "bad-child", "bad-child-uid")
        .owner("v1", "Secret", "bad", "bad-uid");
    let s = c.build();
    let gc = GarbageCollector::new(&s, KubeVersion::v1(30));
    let r = crate::diagnose::restart::predict(&gc);
    let f = crate::diagnose::restart::findings(&gc, &r);
    let child = obj(&s, "bad-child");
    let victim = f.iter().find(|x| x.object == Some(child)).expect("GC015");
    assert!(!victim.remedies.is_empty());
    for m in victim.remedies.iter().filter(|m| !m.command.is_empty()) {
        let (target, _) = patch(&m.command);
        assert_eq!(target, ["secrets/bad", "-n", "monitoring"]);
    }
}

#[test]
fn before_1_20_collateral_dependents_are_fixed_on_the_object_with_the_bad_reference() {
    // kubernetes#65200: the valid sibling and its child are endangered by the bad reference of
    // another object; removing their own valid references would orphan them for nothing.
    let mut c = Cluster::new();
    owner_cm(&mut c, "kube-system", "owner", "owner-uid");
    c.obj("v1", "Secret", "kube-system", "valid", "valid-uid")
        .owner("v1", "ConfigMap", "owner", "owner-uid");
    c.obj("v1", "Pod", "kube-system", "valid-child", "valid-child-uid")
        .owner("v1", "Secret", "valid", "valid-uid");
    c.obj("v1", "Secret", "monitoring", "bad", "bad-uid").owner(
        "v1",
        "ConfigMap",
        "owner",
        "owner-uid",
    );
    let s = c.build();
    let gc = GarbageCollector::new(&s, KubeVersion::v1(19));
    let r = crate::diagnose::restart::predict(&gc);
    let f = crate::diagnose::restart::findings(&gc, &r);
    for name in ["valid", "bad"] {
        let x = f
            .iter()
            .find(|x| x.object == Some(obj(&s, name)))
            .unwrap_or_else(|| panic!("no finding on {name}: {f:?}"));
        let commands = x.commands();
        assert!(!commands.is_empty(), "{name}");
        for cmd in commands {
            assert_eq!(patch(&cmd).0, ["secrets/bad", "-n", "monitoring"], "{name}");
        }
    }
}
