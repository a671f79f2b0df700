//! Evidence first: a cause never contradicts the log or the states beside it, and objects are
//! matched by UID wherever the inputs give one.

use super::*;

/// `kubectl delete deploy web --cascade=foreground` at Metadata level, still blocked: the GC
/// deleted the ReplicaSet with Foreground (it removed the ReplicaSet's finalizer after), and
/// never removed the Deployment's.
#[test]
fn a_blocked_foreground_delete_is_foreground_by_the_gcs_own_requests() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "shop", "web", "u-d");
    c.obj("apps/v1", "ReplicaSet", "shop", "web-1", "u-rs")
        .owner("apps/v1", "Deployment", "web", "u-d");
    c.obj("v1", "Pod", "shop", "web-1-a", "u-p")
        .owner("apps/v1", "ReplicaSet", "web-1", "u-rs");
    let mut before = c.build();
    let events = [
        ev(0, USER, "delete", "deployments.apps", "shop", "web"),
        ev(4, GC_USER, "delete", "replicasets.apps", "shop", "web-1"),
        ev(6, GC_USER, "delete", "pods", "shop", "web-1-a"),
        ev(8, GC_USER, "patch", "replicasets.apps", "shop", "web-1"),
    ];
    let h = history(&events, Some(&mut before));
    let rs = cause(&h, "delete", "web-1");
    assert_eq!(rs.type_, "owner-deleted");
    assert_eq!(rs.policy, "Foreground", "{rs:?}");
    assert!(rs.detail.contains("Foreground"), "{rs:?}");
    assert_eq!(cause(&h, "delete", "web-1-a").policy, "Foreground");
}

#[test]
fn the_state_after_showing_the_owner_held_by_foreground_deletion_is_foreground() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "owner", "u-owner")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    let mut after = c.build();
    let events = [
        ev(0, USER, "delete", "configmaps", "shop", "owner"),
        ev(5, GC_USER, "delete", "configmaps", "shop", "dep"),
    ];
    let h = history_between(&events, Some(&mut before()), Some(&mut after));
    let c = cause(&h, "delete", "dep");
    assert_eq!(
        (c.type_.as_str(), c.policy.as_str()),
        ("owner-deleted", "Foreground"),
        "{c:?}"
    );
    assert!(c.detail.contains("state after"), "{c:?}");
}

#[test]
fn the_gcs_404_read_of_the_owner_is_the_evidence_of_background() {
    let mut miss = ev(3, GC_USER, "get", "configmaps", "shop", "owner");
    miss.code = 404;
    let events = [
        ev(0, USER, "delete", "configmaps", "shop", "owner"),
        miss,
        ev(5, GC_USER, "delete", "configmaps", "shop", "dep"),
    ];
    let h = history(&events, Some(&mut before()));
    let c = cause(&h, "delete", "dep");
    assert_eq!(c.policy, "Background");
    assert!(c.detail.contains("404"), "{c:?}");
    assert!(!c.detail.contains("what the GC did next"), "{c:?}");
}

/// The state before holds an older object of the same name (a Node's Lease recreated): the
/// GC's deletion names another UID, so that object's references say nothing.
#[test]
fn a_state_object_with_another_uid_than_the_log_names_is_not_used() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "owner", "u-owner-2");
    c.obj("v1", "ConfigMap", "shop", "dep", "u-dep-1").owner(
        "v1",
        "ConfigMap",
        "owner",
        "u-owner-1",
    );
    let mut before = c.build();
    let mut del = ev(5, GC_USER, "delete", "configmaps", "shop", "dep");
    del.deleted_uid = Some("u-dep-2".into());
    let h = history(&[del], Some(&mut before));
    let c = cause(&h, "delete", "dep");
    assert_eq!(
        c.type_, "unknown",
        "not owner-uid-mismatch of another incarnation: {c:?}"
    );
    assert!(
        c.detail.contains("u-dep-1") && c.detail.contains("u-dep-2"),
        "{c:?}"
    );
}

/// No UID in the log, but it creates the object after the state before was captured: the
/// state's object may be an earlier incarnation.
#[test]
fn a_name_only_match_created_again_after_the_state_is_unknown() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "owner", "u-owner-2");
    c.obj("v1", "ConfigMap", "shop", "dep", "u-dep-1").owner(
        "v1",
        "ConfigMap",
        "owner",
        "u-owner-1",
    );
    let mut before = c.build();
    let events = [
        ev(1, "system:node:n1", "create", "configmaps", "shop", "dep"),
        ev(5, GC_USER, "delete", "configmaps", "shop", "dep"),
    ];
    let h = history(&events, Some(&mut before));
    let c = cause(&h, "delete", "dep");
    assert_eq!(c.type_, "unknown", "{c:?}");
    assert!(c.detail.contains("created"), "{c:?}");
    // The same owner found stale when nothing says the object changed.
    let h = history(&events[1..], Some(&mut before));
    assert_eq!(cause(&h, "delete", "dep").type_, "owner-uid-mismatch");
    // A state whose object was created by that create (the same second: a state's times
    // have no fraction) holds the object the GC saw.
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "owner", "u-owner-2");
    c.obj("v1", "ConfigMap", "shop", "dep", "u-dep-1")
        .owner("v1", "ConfigMap", "owner", "u-owner-1")
        .created_at(&crate::snapshot::format_rfc3339(T0 / 1_000_000));
    let h = history(&events, Some(&mut c.build()));
    assert_eq!(cause(&h, "delete", "dep").type_, "owner-uid-mismatch");
}
