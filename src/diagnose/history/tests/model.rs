//! Causes on the GC model: the kind of break is the finding code's (GC001–GC004, as `audit`
//! names it), an owner is named where it lives, a root is never a deletion from before the
//! dependent existed, a policy not read from the request is marked inferred and an orphan
//! delete never reads Foreground; the namespace controller's rows of one namespace are one.

use super::*;

/// The newcomer's N2/NM2 case: `inplace`'s reference names `localowner-old` with the UID of
/// `localowner`, in the same namespace (an in-place edit). GC003, not cross-namespace.
#[test]
fn a_same_namespace_name_uid_mismatch_is_gc003_not_cross_namespace() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "monitoring", "localowner", "u-local");
    c.obj("v1", "ConfigMap", "monitoring", "inplace", "u-in")
        .owner("v1", "ConfigMap", "localowner-old", "u-local");
    let events = [ev(
        1,
        GC_USER,
        "delete",
        "configmaps",
        "monitoring",
        "inplace",
    )];
    let h = history(&events, Some(&mut c.build()));
    let c = cause(&h, "delete", "inplace");
    assert_eq!(c.type_, "owner-coordinates-mismatch", "{c:?}");
    assert_eq!(c.type_.code().map(|c| c.id()), Some("GC003"));
    let owner = c.owner.as_ref().unwrap();
    assert_eq!(
        (owner.namespace.as_str(), owner.name.as_str()),
        ("monitoring", "localowner")
    );
    assert!(!c.detail.contains("cross"), "{c:?}");
    assert!(c.detail.contains("localowner-old"), "{c:?}");
    assert!(c.rootless(), "no action started it: {c:?}");
    let json = serde_json::to_value(c).unwrap();
    assert_eq!(json["code"], "GC003");
}

/// N4: a cross-namespace owner is named in its own namespace, in the row and in JSON.
#[test]
fn a_cross_namespace_owner_is_named_in_its_own_namespace() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ops", "redis-cache", "u-redis");
    c.obj("v1", "ConfigMap", "copy", "exporter", "u-exp").owner(
        "v1",
        "ConfigMap",
        "redis-cache",
        "u-redis",
    );
    let events = [ev(1, GC_USER, "delete", "configmaps", "copy", "exporter")];
    let h = history(&events, Some(&mut c.build()));
    let c = cause(&h, "delete", "exporter");
    assert_eq!(c.type_, "cross-namespace-owner", "{c:?}");
    let json = serde_json::to_value(c).unwrap();
    assert_eq!(json["code"], "GC004");
    assert_eq!(json["owner"]["namespace"], "ops", "{json:#}");
    assert_eq!(json["owner"]["name"], "redis-cache");
    assert_eq!(
        c.owner.as_ref().unwrap().display(),
        "ConfigMap/redis-cache -n ops"
    );
    assert!(c.detail.contains("namespace ops"), "{c:?}");
}

/// N5: `parent` was deleted and created again; then `child-stale` was created pointing at the
/// old UID. The GC's deletion of the child is a stale UID (GC002), not a cascade of the
/// deletion that came before the child existed — whether the log or the state shows when the
/// child was created.
#[test]
fn a_root_is_never_a_deletion_from_before_the_dependent_existed() {
    let state = |created: &str| {
        let mut c = Cluster::new();
        // Created again in the second the log's create is in.
        c.obj("v1", "ConfigMap", "copy", "parent", "u-new")
            .created_at(&crate::snapshot::format_rfc3339(T0 / 1_000_000));
        let child = c
            .obj("v1", "ConfigMap", "copy", "child-stale", "u-child")
            .owner("v1", "ConfigMap", "parent", "u-old");
        child.created_at(created);
        c.build()
    };
    let delete = ev(0, USER, "delete", "configmaps", "copy", "parent");
    let recreate = ev(100, USER, "create", "configmaps", "copy", "parent");
    let gc = ev(
        5_000,
        GC_USER,
        "delete",
        "configmaps",
        "copy",
        "child-stale",
    );
    // The child's create is in the log, after the delete.
    let create_child = ev(400, USER, "create", "configmaps", "copy", "child-stale");
    let events = [delete.clone(), recreate.clone(), create_child, gc.clone()];
    let same_second = crate::snapshot::format_rfc3339(T0 / 1_000_000);
    let h = history(&events, Some(&mut state(&same_second)));
    let c = cause(&h, "delete", "child-stale");
    assert_eq!(c.type_, "owner-uid-mismatch", "{c:?}");
    assert!(c.root.is_none(), "{c:?}");
    assert!(c.detail.contains("before this object was created"), "{c:?}");
    // Only the state's creation time (second precision) shows it: T0 is 1790000000 s.
    let later = crate::snapshot::format_rfc3339(T0 / 1_000_000 + 1);
    let h = history(&[delete, recreate, gc], Some(&mut state(&later)));
    let c = cause(&h, "delete", "child-stale");
    assert_eq!(c.type_, "owner-uid-mismatch", "{c:?}");
    assert!(c.root.is_none(), "{c:?}");
}

/// A dependent created before its owner's deletion still has that deletion as its root.
#[test]
fn a_deletion_after_the_dependent_was_created_stays_its_root() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "owner", "u-owner");
    c.obj("v1", "ConfigMap", "shop", "dep", "u-dep")
        .owner("v1", "ConfigMap", "owner", "u-owner")
        .created_at(&crate::snapshot::format_rfc3339(T0 / 1_000_000 - 60));
    let events = [
        ev(0, USER, "delete", "configmaps", "shop", "owner"),
        ev(5, GC_USER, "delete", "configmaps", "shop", "dep"),
    ];
    let h = history(&events, Some(&mut c.build()));
    let c = cause(&h, "delete", "dep");
    assert_eq!(c.type_, "owner-deleted");
    assert_eq!(c.root.as_ref().unwrap().user, USER);
    assert!(c.policy_inferred, "Metadata level: {c:?}");
}

/// N3: `kubectl delete ns orph --cascade=orphan` at Metadata level: the GC removes the
/// namespace's `orphan` finalizer with nothing to orphan, so the log cannot tell Orphan from
/// Foreground — never Foreground as a fact; the namespace controller's rows follow. With the
/// request's body (Request level), Orphan, read.
#[test]
fn an_orphan_delete_of_a_namespace_is_never_foreground() {
    let events = [
        ev(0, USER, "delete", "namespaces", "orph", "orph"),
        ev(40, GC_USER, "patch", "namespaces", "orph", "orph"),
        ev(
            60,
            NAMESPACE_CONTROLLER_USER,
            "deletecollection",
            "configmaps",
            "orph",
            "",
        ),
    ];
    let h = history(&events, None);
    let fin = cause(&h, "remove-finalizer", "orph");
    assert_eq!(fin.type_, "deletion-finished", "{fin:?}");
    assert_eq!(fin.policy, "unknown");
    assert!(fin.policy_inferred);
    assert!(fin.detail.contains("Foreground or Orphan"), "{fin:?}");
    let nc = cause(&h, "delete-collection", "");
    assert_eq!(
        (nc.type_.as_str(), nc.policy.as_str()),
        ("namespace-deleted", "unknown")
    );
    // The request says Orphan.
    let mut with_body = events.clone();
    with_body[0].level = Level::Request;
    with_body[0].bodies.propagation_policy = Some("Orphan".into());
    let h = history(&with_body, None);
    let fin = cause(&h, "remove-finalizer", "orph");
    assert_eq!(
        (fin.type_.as_str(), fin.policy.as_str()),
        ("orphaned", "Orphan")
    );
    assert!(!fin.policy_inferred);
    let nc = cause(&h, "delete-collection", "");
    assert_eq!(nc.policy, "Orphan");
    assert!(!nc.policy_inferred);
}

/// C10, NC5: a stuck namespace's collection deletions, one per resource and retried, are one
/// row naming each resource by its group; a lone collection deletion stays as it is.
#[test]
fn a_namespaces_content_is_one_row_naming_its_resources() {
    let nc = |ms, resource: &str| {
        ev(
            ms,
            NAMESPACE_CONTROLLER_USER,
            "deletecollection",
            resource,
            "orph",
            "",
        )
    };
    let mut events = vec![ev(0, USER, "delete", "namespaces", "orph", "orph")];
    for round in 0..3 {
        let t = 10 + round * 100;
        events.extend([
            nc(t, "configmaps"),
            nc(t + 1, "ingresses.extensions"),
            nc(t + 2, "ingresses.networking.k8s.io"),
        ]);
    }
    events.push(ev(
        20,
        NAMESPACE_CONTROLLER_USER,
        "deletecollection",
        "configmaps",
        "other",
        "",
    ));
    let mut h = history(&events, None);
    h.collapse();
    let rows: Vec<&Item> = h
        .items
        .iter()
        .filter(|i| i.action == "delete-collection")
        .collect();
    assert_eq!(rows.len(), 2, "{rows:#?}");
    let orph = rows.iter().find(|i| i.object.namespace == "orph").unwrap();
    assert_eq!(orph.count, 9);
    assert_eq!(
        orph.resources,
        [
            "configmaps",
            "ingresses.extensions",
            "ingresses.networking.k8s.io"
        ]
    );
    assert_eq!(orph.object.display(), "content of Namespace/orph");
    let other = rows.iter().find(|i| i.object.namespace == "other").unwrap();
    assert!(other.resources.is_empty());
    assert_eq!(other.object.display(), "ConfigMap (all) -n other");
    // Two groups' kinds are spelt apart.
    let ing = |g: &str| ObjectRef {
        group: g.into(),
        resource: "ingresses".into(),
        namespace: "orph".into(),
        ..ObjectRef::default()
    };
    assert_ne!(
        ing("extensions").display(),
        ing("networking.k8s.io").display()
    );
    assert_eq!(
        ing("networking.k8s.io").display(),
        "Ingress.networking.k8s.io (all) -n orph"
    );
}

/// C11: a reference to an owner that the state shows never there has no root to miss; an
/// owner whose deletion is before the log does.
#[test]
fn a_dangling_owner_has_no_root_to_miss() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "orphan-settings", "u-o")
        .owner("v1", "ConfigMap", "gone", "u-gone");
    let events = [ev(
        1,
        GC_USER,
        "delete",
        "configmaps",
        "shop",
        "orphan-settings",
    )];
    let h = history(&events, Some(&mut c.build()));
    let c = cause(&h, "delete", "orphan-settings");
    assert_eq!(c.type_, "dangling-owner", "{c:?}");
    assert!(c.rootless());
    let unknown = Cause::unknown(String::new());
    assert!(!unknown.rootless());
}
