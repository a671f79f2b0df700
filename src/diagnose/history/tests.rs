//! The history's tests: reading, attribution and the answer, on events built by hand.

use super::*;
use crate::snapshot::Snapshot;
use crate::source::audit::{AuditEvent, Level, ObjectReference, OwnerRefSeen, Position};
use crate::testkit::Cluster;

const USER: &str = "alice";
const T0: i64 = 1_790_000_000_000_000;

/// An event: `who` did `verb` on `resource/name` in `ns` at T0 + `ms` milliseconds.
fn ev(ms: i64, who: &str, verb: &str, resource: &str, ns: &str, name: &str) -> AuditEvent {
    let (group, resource) = match resource.split_once('.') {
        Some((r, g)) => (g.to_owned(), r.to_owned()),
        None => (String::new(), resource.to_owned()),
    };
    AuditEvent {
        audit_id: format!("id-{ms}"),
        level: Level::Metadata,
        time_us: T0 + ms * 1000,
        verb: verb.into(),
        user: who.into(),
        user_agent: "test".into(),
        object: Some(ObjectReference {
            resource,
            namespace: ns.into(),
            name: name.into(),
            api_group: group,
            api_version: "v1".into(),
            ..ObjectReference::default()
        }),
        code: 200,
        position: Position {
            source: "audit.log".into(),
            line: ms as u64,
        },
        ..AuditEvent::default()
    }
}

fn item<'h>(h: &'h History, action: &str, name: &str) -> &'h Item {
    h.items
        .iter()
        .find(|i| i.action == action && i.object.name == name)
        .unwrap_or_else(|| panic!("no {action} of {name}: {:#?}", h.items))
}

fn cause<'h>(h: &'h History, action: &str, name: &str) -> &'h Cause {
    item(h, action, name).cause.as_ref().expect("a cause")
}

/// `dep` in `shop` owned by ConfigMap `owner` (uid u-owner) in the snapshot before.
fn before() -> Snapshot {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "owner", "u-owner");
    c.obj("v1", "ConfigMap", "shop", "dep", "u-dep")
        .owner("v1", "ConfigMap", "owner", "u-owner");
    c.build()
}

#[test]
fn a_background_cascade_is_traced_to_the_users_delete() {
    let events = [
        ev(0, USER, "delete", "configmaps", "shop", "owner"),
        ev(5, GC_USER, "delete", "configmaps", "shop", "dep"),
    ];
    let h = history(&events, Some(&mut before()));
    assert!(
        item(&h, "delete", "owner").cause.is_none(),
        "a user's action has no cause"
    );
    let c = cause(&h, "delete", "dep");
    assert_eq!(c.type_, "owner-deleted");
    assert_eq!(c.policy, "Background");
    assert_eq!(c.owner.as_ref().unwrap().name, "owner");
    let root = c.root.as_ref().unwrap();
    assert_eq!((root.user.as_str(), root.action.as_str()), (USER, "delete"));
    assert_eq!(root.object.name, "owner");
    assert_eq!(h.summary.unexplained, 0);
    assert!(h.summary.gc_seen);
}

#[test]
fn a_chain_of_cascades_has_the_first_action_as_its_root() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "shop", "web", "u-d");
    c.obj("apps/v1", "ReplicaSet", "shop", "web-1", "u-rs")
        .owner("apps/v1", "Deployment", "web", "u-d");
    c.obj("v1", "Pod", "shop", "web-1-a", "u-p")
        .owner("apps/v1", "ReplicaSet", "web-1", "u-rs");
    let events = [
        ev(0, USER, "delete", "deployments.apps", "shop", "web"),
        ev(4, GC_USER, "delete", "replicasets.apps", "shop", "web-1"),
        ev(9, GC_USER, "delete", "pods", "shop", "web-1-a"),
    ];
    let h = history(&events, Some(&mut c.build()));
    let pod = cause(&h, "delete", "web-1-a");
    assert_eq!(pod.type_, "owner-deleted");
    assert_eq!(pod.owner.as_ref().unwrap().resource, "replicasets");
    assert_eq!(pod.root.as_ref().unwrap().object.name, "web");
    assert_eq!(pod.root.as_ref().unwrap().user, USER);
}

#[test]
fn foreground_and_orphan_are_inferred_from_what_the_gc_did_next() {
    // Foreground: the GC deletes the dependent, then removes the owner's finalizer.
    let events = [
        ev(0, USER, "delete", "configmaps", "shop", "owner"),
        ev(5, GC_USER, "delete", "configmaps", "shop", "dep"),
        ev(9, GC_USER, "patch", "configmaps", "shop", "owner"),
    ];
    let h = history(&events, Some(&mut before()));
    assert_eq!(cause(&h, "delete", "dep").policy, "Foreground");
    let fin = cause(&h, "remove-finalizer", "owner");
    assert_eq!(
        (fin.type_.as_str(), fin.policy.as_str()),
        ("foreground-finished", "Foreground")
    );
    assert_eq!(fin.root.as_ref().unwrap().user, USER);
    // Orphan: the GC removes the dependent's reference, then the owner's finalizer.
    let events = [
        ev(0, USER, "delete", "configmaps", "shop", "owner"),
        ev(5, GC_USER, "patch", "configmaps", "shop", "dep"),
        ev(9, GC_USER, "patch", "configmaps", "shop", "owner"),
    ];
    let h = history(&events, Some(&mut before()));
    let dep = cause(&h, "remove-owner-references", "dep");
    assert_eq!(
        (dep.type_.as_str(), dep.policy.as_str()),
        ("orphaned", "Orphan")
    );
    let fin = cause(&h, "remove-finalizer", "owner");
    assert_eq!(
        (fin.type_.as_str(), fin.policy.as_str()),
        ("orphaned", "Orphan")
    );
}

#[test]
fn a_foreground_owner_whose_finalizer_goes_before_its_non_blocking_dependent_is_foreground() {
    // Foreground waits only for blockOwnerDeletion dependents: the GC may remove the finalizer
    // first and delete `dep` once the owner is gone (a live run does either). An Orphan would
    // have unlinked `dep` first, so a later GC delete of it, still linked, rules Orphan out.
    let events = [
        ev(0, USER, "delete", "configmaps", "shop", "owner"),
        ev(4, GC_USER, "patch", "configmaps", "shop", "owner"),
        ev(9, GC_USER, "delete", "configmaps", "shop", "dep"),
    ];
    let h = history(&events, Some(&mut before()));
    let fin = cause(&h, "remove-finalizer", "owner");
    assert_eq!(
        (fin.type_.as_str(), fin.policy.as_str()),
        ("foreground-finished", "Foreground"),
        "{fin:#?}"
    );
    assert_eq!(cause(&h, "delete", "dep").policy, "Foreground");
    // Nothing deleted or unlinked near it: the log cannot tell, and says so.
    let events = [
        ev(0, USER, "delete", "configmaps", "shop", "owner"),
        ev(4, GC_USER, "patch", "configmaps", "shop", "owner"),
    ];
    let h = history(&events, Some(&mut before()));
    assert_eq!(cause(&h, "remove-finalizer", "owner").policy, "unknown");
    // A delete of it long after the removal is not read as the deletion's doing.
    let events = [
        ev(0, USER, "delete", "configmaps", "shop", "owner"),
        ev(4, GC_USER, "patch", "configmaps", "shop", "owner"),
        ev(60_000, GC_USER, "delete", "configmaps", "shop", "dep"),
    ];
    let h = history(&events, Some(&mut before()));
    assert_eq!(cause(&h, "remove-finalizer", "owner").policy, "unknown");
}

#[test]
fn the_request_bodys_policy_wins_over_inference() {
    let mut del = ev(0, USER, "delete", "configmaps", "shop", "owner");
    del.level = Level::Request;
    del.bodies.propagation_policy = Some("Foreground".into());
    let events = [del, ev(5, GC_USER, "delete", "configmaps", "shop", "dep")];
    let h = history(&events, Some(&mut before()));
    assert_eq!(cause(&h, "delete", "dep").policy, "Foreground");
    assert_eq!(item(&h, "delete", "dep").level, "Metadata");
}

#[test]
fn namespace_controller_actions_are_traced_to_the_namespace_deletion() {
    let mut fin = ev(
        20,
        NAMESPACE_CONTROLLER_USER,
        "update",
        "namespaces",
        "",
        "shop",
    );
    fin.object.as_mut().unwrap().subresource = "finalize".into();
    let events = [
        ev(0, USER, "delete", "namespaces", "", "shop"),
        ev(
            10,
            NAMESPACE_CONTROLLER_USER,
            "deletecollection",
            "configmaps",
            "shop",
            "",
        ),
        fin,
    ];
    let h = history(&events, None);
    let dc = cause(&h, "delete-collection", "");
    assert_eq!(dc.type_, "namespace-deleted");
    assert_eq!(dc.policy, "Background");
    assert_eq!(dc.root.as_ref().unwrap().object.name, "shop");
    assert_eq!(
        item(&h, "delete-collection", "").actor.kind,
        "namespace-controller"
    );
    assert_eq!(
        cause(&h, "remove-finalizer", "shop").type_,
        "namespace-deleted"
    );
}

#[test]
fn an_absent_owner_is_dangling_cross_namespace_stale_or_unexplained_by_the_snapshot() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "other", "far", "u-far");
    c.obj("v1", "ConfigMap", "shop", "recreated", "u-new");
    c.obj("v1", "ConfigMap", "shop", "alive", "u-alive");
    c.obj("v1", "ConfigMap", "shop", "d1", "u-1")
        .owner("v1", "ConfigMap", "ghost", "u-ghost");
    c.obj("v1", "ConfigMap", "shop", "d2", "u-2")
        .owner("v1", "ConfigMap", "far", "u-far");
    c.obj("v1", "ConfigMap", "shop", "d3", "u-3")
        .owner("v1", "ConfigMap", "recreated", "u-old");
    c.obj("v1", "ConfigMap", "shop", "d4", "u-4")
        .owner("v1", "ConfigMap", "alive", "u-alive");
    let mut s = c.build();
    let events = [
        ev(1, GC_USER, "delete", "configmaps", "shop", "d1"),
        ev(2, GC_USER, "delete", "configmaps", "shop", "d2"),
        ev(3, GC_USER, "delete", "configmaps", "shop", "d3"),
        ev(4, GC_USER, "delete", "configmaps", "shop", "d4"),
    ];
    let h = history(&events, Some(&mut s));
    assert_eq!(cause(&h, "delete", "d1").type_, "dangling-owner");
    assert_eq!(cause(&h, "delete", "d2").type_, "cross-namespace-owner");
    assert_eq!(cause(&h, "delete", "d3").type_, "owner-uid-mismatch");
    let d4 = cause(&h, "delete", "d4");
    assert_eq!(d4.type_, "unexplained");
    assert!(d4.root.is_none());
    assert_eq!(h.summary.unexplained, 1);
    // Whatever the order of the references: a delete with an owner present is unexplained.
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "alive", "u-alive");
    c.obj("v1", "ConfigMap", "shop", "d5", "u-5")
        .owner("v1", "ConfigMap", "ghost", "u-ghost")
        .owner("v1", "ConfigMap", "alive", "u-alive");
    c.obj("v1", "ConfigMap", "shop", "d6", "u-6")
        .owner("v1", "ConfigMap", "alive", "u-alive")
        .owner("v1", "ConfigMap", "ghost", "u-ghost");
    let mut two = c.build();
    let deletes = [
        ev(5, GC_USER, "delete", "configmaps", "shop", "d5"),
        ev(6, GC_USER, "delete", "configmaps", "shop", "d6"),
    ];
    let h2 = history(&deletes, Some(&mut two));
    assert_eq!(cause(&h2, "delete", "d5").type_, "unexplained");
    assert_eq!(cause(&h2, "delete", "d6").type_, "unexplained");
    // Without the snapshot nothing is guessed.
    let h = history(&events, None);
    assert_eq!(h.items.len(), 4);
    assert!(
        h.items
            .iter()
            .all(|i| i.cause.as_ref().unwrap().type_ == "unknown")
    );
    assert!(h.summary.notes.iter().any(|n| n.contains("no snapshot")));
}

#[test]
fn an_owner_the_snapshot_before_did_not_read_is_unknown_not_dangling() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "d1", "u-1")
        .owner("v1", "Secret", "ghost", "u-ghost");
    c.forbid("", "secrets");
    let events = [ev(1, GC_USER, "delete", "configmaps", "shop", "d1")];
    let h = history(&events, Some(&mut c.build()));
    let d1 = cause(&h, "delete", "d1");
    assert_eq!(d1.type_, "unknown", "{d1:?}");
    assert!(d1.detail.contains("secrets"), "{d1:?}");
}

#[test]
fn the_state_after_proves_what_exists_never_what_did_not() {
    // Only the state after: the dependents are gone, their owners' fates differ.
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "other", "far", "u-far");
    c.obj("v1", "ConfigMap", "shop", "recreated", "u-new");
    c.obj("v1", "ConfigMap", "shop", "alive", "u-alive");
    c.obj("v1", "ConfigMap", "shop", "leaving", "u-leaving")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "ConfigMap", "shop", "held", "u-held")
        .finalizers(&["example.com/keep"])
        .deleting();
    let mut after = c.build();
    // The dependents' owners come from create bodies (Request level).
    let mut events = Vec::new();
    for (i, (name, owner, uid)) in [
        ("d1", "ghost", "u-ghost"),
        ("d2", "far", "u-far"),
        ("d3", "recreated", "u-old"),
        ("d4", "alive", "u-alive"),
        ("d5", "leaving", "u-leaving"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut create = ev(i as i64, USER, "create", "configmaps", "shop", name);
        create.level = Level::Request;
        create.bodies.owner_references = Some(vec![OwnerRefSeen {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            name: owner.into(),
            uid: uid.into(),
        }]);
        events.push(create);
        events.push(ev(
            10 + i as i64,
            GC_USER,
            "delete",
            "configmaps",
            "shop",
            name,
        ));
    }
    events.push(ev(20, USER, "delete", "configmaps", "shop", "held"));
    let h = history_between(&events, None, Some(&mut after));
    let d1 = cause(&h, "delete", "d1");
    assert_eq!(
        d1.type_, "unknown",
        "absent after is not never-existed: {d1:?}"
    );
    assert_eq!(cause(&h, "delete", "d2").type_, "cross-namespace-owner");
    assert_eq!(cause(&h, "delete", "d3").type_, "owner-uid-mismatch");
    assert_eq!(cause(&h, "delete", "d4").type_, "unexplained");
    let d5 = cause(&h, "delete", "d5");
    assert_eq!(
        (d5.type_.as_str(), d5.policy.as_str()),
        ("owner-deleted", "Foreground")
    );
    // What became of each object.
    assert_eq!(
        item(&h, "delete", "d1").after.map(|f| f.as_str()),
        Some("gone")
    );
    assert_eq!(
        item(&h, "delete", "held").after.map(|f| f.as_str()),
        Some("terminating")
    );
    // Without the state after, nothing is said of it.
    let h = history(&events, None);
    assert!(!h.items.is_empty());
    assert!(h.items.iter().all(|i| i.after.is_none()));
}

#[test]
fn the_states_before_and_after_list_what_went_without_a_deletion_of_its_own() {
    let mut c = Cluster::new();
    c.obj("v1", "Namespace", "", "shop", "u-ns");
    c.obj("v1", "ConfigMap", "shop", "a", "u-a");
    c.obj("v1", "Secret", "shop", "b", "u-b");
    c.obj("v1", "ConfigMap", "shop", "kept", "u-kept");
    c.obj("v1", "ConfigMap", "shop", "logged", "u-logged");
    let mut before = c.build();
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "kept", "u-kept");
    let mut after = c.build();
    let events = [
        ev(0, USER, "delete", "namespaces", "shop", "shop"),
        ev(1, USER, "delete", "configmaps", "shop", "logged"),
        ev(
            5,
            NAMESPACE_CONTROLLER_USER,
            "deletecollection",
            "configmaps",
            "shop",
            "",
        ),
        ev(
            9,
            NAMESPACE_CONTROLLER_USER,
            "delete",
            "namespaces",
            "shop",
            "shop",
        ),
    ];
    let h = history_between(&events, Some(&mut before), Some(&mut after));
    let gone: Vec<(&str, bool)> = h
        .unlogged
        .iter()
        .map(|u| (u.object.name.as_str(), u.collection.is_some()))
        .collect();
    assert_eq!(gone, [("a", true), ("b", false)], "{:#?}", h.unlogged);
    let a = h.unlogged[0].collection.as_ref().unwrap();
    assert_eq!(a.user, NAMESPACE_CONTROLLER_USER);
}

#[test]
fn an_object_recreated_after_the_log_is_recreated_not_present_and_went_unlogged() {
    // The log names no UIDs (Metadata level): the state after's creation time tells an
    // object made again after the deletion from one the deletion did not remove.
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "again", "u-old");
    c.obj("v1", "ConfigMap", "shop", "renewed", "u-r1");
    let mut before = c.build();
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "again", "u-new")
        .created_at("2027-01-01T00:00:00Z");
    c.obj("v1", "ConfigMap", "shop", "renewed", "u-r2");
    let mut after = c.build();
    let events = [ev(1, USER, "delete", "configmaps", "shop", "again")];
    let h = history_between(&events, Some(&mut before), Some(&mut after));
    assert_eq!(
        item(&h, "delete", "again").after.map(|f| f.as_str()),
        Some("recreated")
    );
    // `renewed` is there under another UID with no deletion in the log: the object of
    // the state before went unlogged.
    let gone: Vec<&str> = h.unlogged.iter().map(|u| u.object.name.as_str()).collect();
    assert_eq!(gone, ["renewed"]);
}

#[test]
fn a_custom_resource_owner_is_mapped_by_the_state_after_alone() {
    let mut c = Cluster::new();
    c.resource("example.com", "v1", "Widget", "widgets", true);
    c.obj("example.com/v1", "Widget", "shop", "w", "u-w");
    let mut after = c.build();
    let mut create = ev(0, USER, "create", "configmaps", "shop", "dep");
    create.level = Level::Request;
    create.bodies.owner_references = Some(vec![OwnerRefSeen {
        api_version: "example.com/v1".into(),
        kind: "Widget".into(),
        name: "w".into(),
        uid: "u-w".into(),
    }]);
    let events = [
        create,
        ev(5, GC_USER, "delete", "configmaps", "shop", "dep"),
    ];
    let h = history_between(&events, None, Some(&mut after));
    // The owner exists after the log with the reference's UID: the GC's deletion is
    // unexplained (before, the kind could not be mapped without a state before).
    assert_eq!(cause(&h, "delete", "dep").type_, "unexplained");
}

#[test]
fn the_recorder_keeps_only_what_the_history_uses_and_the_whole_window() {
    let mut r = Recorder::default();
    r.push(ev(0, USER, "get", "configmaps", "shop", "x"));
    r.push(ev(
        1,
        "system:node:n1",
        "update",
        "leases",
        "kube-node-lease",
        "n1",
    ));
    r.push(ev(2, USER, "list", "pods", "shop", ""));
    let mut miss = ev(3, GC_USER, "get", "configmaps", "shop", "owner");
    miss.code = 404;
    r.push(miss);
    r.push(ev(4, GC_USER, "delete", "configmaps", "shop", "dep"));
    r.push(ev(9, USER, "get", "configmaps", "shop", "y"));
    assert_eq!((r.seen(), r.kept()), (6, 1));
    let h = r.finish(Some(&mut before()), None);
    assert_eq!(h.items.len(), 1);
    assert_eq!(h.summary.from.as_deref(), Some(format_us(T0).as_str()));
    assert_eq!(h.summary.to.as_deref(), Some(format_us(T0 + 9000).as_str()));
    assert!(cause(&h, "delete", "dep").detail.contains("answered 404"));
}

#[test]
fn owners_come_from_the_response_body_when_the_log_has_it() {
    let mut d = ev(5, GC_USER, "delete", "pods", "shop", "p");
    d.level = Level::RequestResponse;
    d.bodies.response_owner_references = Some(vec![OwnerRefSeen {
        api_version: "apps/v1".into(),
        kind: "ReplicaSet".into(),
        name: "rs".into(),
        uid: "u-rs".into(),
    }]);
    let events = [ev(0, USER, "delete", "replicasets.apps", "shop", "rs"), d];
    let h = history(&events, None);
    let c = cause(&h, "delete", "p");
    assert_eq!(c.type_, "owner-deleted");
    assert_eq!(c.owner.as_ref().unwrap().resource, "replicasets");
    assert_eq!(c.root.as_ref().unwrap().user, USER);
}

#[test]
fn a_request_level_create_body_names_the_owners_without_a_snapshot() {
    let mut create = ev(0, USER, "create", "configmaps", "shop", "dep");
    create.level = Level::Request;
    create.bodies.owner_references = Some(vec![OwnerRefSeen {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: "owner".into(),
        uid: "u-owner".into(),
    }]);
    let events = [
        create,
        ev(10, USER, "delete", "configmaps", "shop", "owner"),
        ev(15, GC_USER, "delete", "configmaps", "shop", "dep"),
    ];
    let h = history(&events, None);
    let c = cause(&h, "delete", "dep");
    assert_eq!(c.type_, "owner-deleted");
    assert_eq!(c.root.as_ref().unwrap().object.name, "owner");
    // A user's patch that sets references is not a removal; the GC's is.
    let mut p = ev(20, USER, "patch", "configmaps", "shop", "x");
    p.bodies.owner_references = Some(vec![OwnerRefSeen::default()]);
    let mut g = ev(21, GC_USER, "patch", "configmaps", "shop", "y");
    g.bodies.owner_references = Some(vec![OwnerRefSeen::default()]);
    let h = history(&[p, g], None);
    assert_eq!(h.items.len(), 1);
    assert_eq!(h.items[0].action, "remove-owner-references");
}

#[test]
fn actors_by_user_and_user_agent_and_impersonation() {
    let mut e = ev(
        0,
        "system:kube-controller-manager",
        "delete",
        "pods",
        "a",
        "p",
    );
    e.user_agent = "kube-controller-manager/v1.20.2 (linux/amd64) kubernetes/faecb19/generic-garbage-collector".into();
    assert_eq!(actor_of(&e).kind, "garbage-collector");
    e.user_agent =
        "kube-controller-manager/v1.20.2 (linux/amd64) kubernetes/faecb19/replicaset-controller"
            .into();
    assert_eq!(actor_of(&e).kind, "controller");
    let mut e = ev(0, "admin", "delete", "pods", "a", "p");
    e.impersonated_user = Some("bob".into());
    let a = actor_of(&e);
    assert_eq!((a.kind.as_str(), a.user.as_str()), ("user", "bob"));
    // Failed requests and reads are not actions; a log without the GC says so.
    let mut failed = ev(1, GC_USER, "delete", "pods", "a", "p");
    failed.code = 404;
    let h = history(&[failed, ev(2, USER, "get", "pods", "a", "p")], None);
    assert!(h.items.is_empty());
    let h = history(&[ev(2, USER, "delete", "pods", "a", "p")], None);
    assert!(!h.summary.gc_seen);
    assert!(h.summary.notes[0].contains("no write of the garbage collector"));
}

#[test]
fn times_keep_microseconds() {
    assert_eq!(format_us(T0 + 123_456), "2026-09-21T14:13:20.123456Z");
    assert_eq!(format_us(7), "1970-01-01T00:00:00.000007Z");
}

mod answers;
mod evidence;
mod identity;
mod model;
