//! The OwnerReferencesPermissionEnforcement rule, case by case as upstream's
//! `gc_admission_test.go` exercises it: which writes it asks about, what it asks, and what the
//! answers make of the write.

use super::*;

fn r<'a>(name: &'a str, uid: &'a str, block: Option<bool>) -> RefIn<'a> {
    RefIn {
        api_version: "apps/v1",
        kind: "Deployment",
        name,
        uid,
        controller: Some(true),
        block_owner_deletion: block,
    }
}

fn write<'a>(old: Option<&'a [RefIn<'a>]>, new: &'a [RefIn<'a>]) -> Write<'a> {
    Write {
        group: "apps",
        version: "v1",
        resource: "replicasets",
        subresource: "",
        namespace: "shop",
        name: "web-1",
        old,
        new,
    }
}

fn deployments(_: &RefIn<'_>) -> OwnerMapping {
    OwnerMapping::Mapped(vec![("apps".into(), "deployments".into(), true)])
}

fn finalizers(name: &str, namespace: &str) -> ResourceAttributes {
    ResourceAttributes {
        verb: "update".into(),
        group: "apps".into(),
        version: "v1".into(),
        resource: "deployments".into(),
        subresource: "finalizers".into(),
        namespace: namespace.into(),
        name: name.into(),
    }
}

fn access(c: &Check) -> (&ResourceAttributes, Why) {
    match c {
        Check::Access { attrs, why } => (attrs, *why),
        other => panic!("not an access check: {other:?}"),
    }
}

#[test]
fn a_create_needs_finalizers_of_each_blocking_owner_and_no_delete() {
    let new = [
        r("web", "u1", Some(true)),
        r("api", "u2", Some(false)),
        r("db", "u3", None),
    ];
    let checks = required(&write(None, &new), &deployments);
    assert_eq!(checks.len(), 1, "{checks:?}");
    assert_eq!(
        access(&checks[0]),
        (&finalizers("web", "shop"), Why::Blocks(0))
    );
    // No reference, no check; a create with only non-blocking references: none either.
    assert!(required(&write(None, &[]), &deployments).is_empty());
    assert!(required(&write(None, &new[1..]), &deployments).is_empty());
}

#[test]
fn an_update_that_changes_the_references_needs_delete_on_the_object() {
    let old = [r("web", "u1", None)];
    let new = [r("web", "u1", Some(false))];
    let checks = required(&write(Some(&old), &new), &deployments);
    // Unset and false differ (upstream compares with DeepEqual): the list changed.
    assert_eq!(checks.len(), 1, "{checks:?}");
    let (attrs, why) = access(&checks[0]);
    assert_eq!(why, Why::ChangesReferences);
    assert_eq!(
        (
            attrs.verb.as_str(),
            attrs.resource.as_str(),
            attrs.name.as_str()
        ),
        ("delete", "replicasets", "web-1")
    );
    assert_eq!(
        (attrs.group.as_str(), attrs.namespace.as_str()),
        ("apps", "shop")
    );
    // The same list, reordered, is a change too; the same list as it was is none.
    let two = [r("a", "u1", None), r("b", "u2", None)];
    let swapped = [two[1], two[0]];
    assert_eq!(
        required(&write(Some(&two), &swapped), &deployments).len(),
        1
    );
    assert!(required(&write(Some(&two), &two), &deployments).is_empty());
}

#[test]
fn only_references_that_become_blocking_need_the_owners_finalizers() {
    let old = [r("web", "u1", Some(true)), r("api", "u2", Some(false))];
    // web stays blocking, api becomes blocking, db is new and blocking.
    let new = [
        r("web", "u1", Some(true)),
        r("api", "u2", Some(true)),
        r("db", "u3", Some(true)),
    ];
    let checks = required(&write(Some(&old), &new), &deployments);
    let whys: Vec<Why> = checks.iter().map(|c| access(c).1).collect();
    assert_eq!(
        whys,
        [Why::ChangesReferences, Why::Blocks(1), Why::Blocks(2)]
    );
    assert_eq!(access(&checks[1]).0.name, "api");
    assert_eq!(access(&checks[2]).0.name, "db");
}

#[test]
fn a_uid_shared_by_two_old_references_is_judged_by_the_last_as_upstream_does() {
    // Upstream indexes the old list by UID; the later reference replaces the earlier.
    let old = [r("victim", "x", Some(false)), r("mine", "x", Some(true))];
    let new = [r("victim", "x", Some(true)), r("mine", "x", Some(true))];
    let checks = required(&write(Some(&old), &new), &deployments);
    assert_eq!(checks.len(), 1, "only the delete check: {checks:?}");
    assert_eq!(access(&checks[0]).1, Why::ChangesReferences);
}

#[test]
fn a_cluster_scoped_owner_is_asked_about_at_cluster_scope() {
    let new = [RefIn {
        api_version: "v1",
        kind: "Node",
        ..r("node-1", "u1", Some(true))
    }];
    let nodes = |_: &RefIn<'_>| OwnerMapping::Mapped(vec![(String::new(), "nodes".into(), false)]);
    let checks = required(&write(None, &new), &nodes);
    let (attrs, _) = access(&checks[0]);
    assert_eq!(
        (attrs.resource.as_str(), attrs.namespace.as_str()),
        ("nodes", "")
    );
    assert_eq!((attrs.group.as_str(), attrs.version.as_str()), ("", "v1"));
    assert_eq!(
        describe(attrs),
        "update nodes/finalizers \"node-1\" at cluster scope"
    );
}

#[test]
fn an_unmappable_blocking_owner_is_refused_and_an_unknown_one_is_unknown() {
    let new = [r("web", "u1", Some(true))];
    let unmappable = |_: &RefIn<'_>| OwnerMapping::Unmappable("apps/v1beta1 is not served".into());
    let checks = required(&write(None, &new), &unmappable);
    let v = judge(&checks, &[], &new, "alice");
    let Verdict::Refused(d) = v else {
        panic!("{v:?}")
    };
    assert!(
        d[0].message.starts_with(
            "cannot set blockOwnerDeletion in this case because cannot find RESTMapping"
        )
    );
    assert!(
        d[0].message
            .contains("Deployment/web: apps/v1beta1 is not served")
    );
    let unknown = |_: &RefIn<'_>| OwnerMapping::Unknown("discovery of apps/v1 failed".into());
    let checks = required(&write(None, &new), &unknown);
    assert!(matches!(
        judge(&checks, &[], &new, "alice"),
        Verdict::Unknown(_)
    ));
}

#[test]
fn pods_status_is_never_judged() {
    let new = [r("web", "u1", Some(true))];
    let w = Write {
        group: "",
        resource: "pods",
        subresource: "status",
        ..write(Some(&[]), &new)
    };
    assert!(required(&w, &deployments).is_empty());
}

#[test]
fn the_answers_decide_and_a_failed_review_is_unknown_never_admitted() {
    let old = [r("web", "u1", None)];
    let new = [r("web", "u1", Some(true))];
    let checks = required(&write(Some(&old), &new), &deployments);
    assert_eq!(checks.len(), 2);
    let yes = || {
        Ok(Decision {
            allowed: true,
            reason: String::new(),
        })
    };
    let no = || {
        Ok(Decision {
            allowed: false,
            reason: String::new(),
        })
    };
    assert_eq!(
        judge(&checks, &[yes(), yes()], &new, "alice"),
        Verdict::Admitted
    );
    let Verdict::Refused(d) = judge(&checks, &[yes(), no()], &new, "alice") else {
        panic!()
    };
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].message,
        "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set \
         finalizers on: alice may not update deployments.apps/finalizers \"web\" in namespace \
         \"shop\", which blockOwnerDeletion=true on the reference to Deployment/web needs"
    );
    let Verdict::Refused(d) = judge(&checks, &[no(), no()], &new, "alice") else {
        panic!()
    };
    assert_eq!(d.len(), 2);
    assert!(d[0].message.starts_with("cannot set an ownerRef on a resource you can't delete: alice may not delete replicasets.apps \"web-1\""));
    let v = judge(&checks, &[yes(), Err("403".into())], &new, "alice");
    assert!(matches!(v, Verdict::Unknown(_)), "{v:?}");
    // Fewer answers than checks: unknown, never admitted.
    assert!(matches!(
        judge(&checks, &[yes()], &new, "alice"),
        Verdict::Unknown(_)
    ));
}

#[test]
fn the_grant_binds_a_role_in_the_namespace_or_a_cluster_role() {
    assert_eq!(
        grant_commands("alice", &finalizers("web", "shop"), "kubectl-gc-owner-web"),
        "kubectl create role kubectl-gc-owner-web -n shop --verb=update \
         --resource=deployments.apps/finalizers --resource-name=web && kubectl create \
         rolebinding kubectl-gc-owner-web -n shop --role=kubectl-gc-owner-web --user=alice"
    );
    let mut nodes = finalizers("node 1", "");
    nodes.group.clear();
    nodes.resource = "nodes".into();
    assert_eq!(
        grant_commands("system:serviceaccount:ops:restorer", &nodes, "x"),
        "kubectl create clusterrole x --verb=update --resource=nodes/finalizers \
         --resource-name='node 1' && kubectl create clusterrolebinding x --clusterrole=x \
         --serviceaccount=ops:restorer"
    );
}
