//! Scenario tests: each pins one GC behaviour (gc-model section in the name or comment)
//! to the classification or decision kubectl-gc derives from a snapshot.

use crate::catalog::KubeVersion;
use crate::gc::*;
use crate::model::ObjId;
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;

fn v(minor: u32) -> KubeVersion {
    KubeVersion::v1(minor)
}

/// The object named `name` (first match).
fn obj(snap: &Snapshot, name: &str) -> ObjId {
    snap.store
        .ids()
        .find(|&id| snap.store.str(snap.store.object(id).name) == name)
        .unwrap_or_else(|| panic!("no object {name}"))
}

fn classes(snap: &Snapshot, gc: KubeVersion, name: &str) -> Vec<&'static str> {
    let a = GarbageCollector::new(snap, gc);
    let st = a.initial_state();
    a.classify_references(&st, obj(snap, name))
        .iter()
        .map(|c| c.label())
        .collect()
}

fn verdict(snap: &Snapshot, gc: KubeVersion, name: &str) -> Verdict {
    let a = GarbageCollector::new(snap, gc);
    let st = a.initial_state();
    a.attempt_to_delete_item(&st, obj(snap, name))
}

fn is_delete(v: &Verdict, policy: Policy) -> bool {
    matches!(v, Verdict::Delete { policy: p, .. } if *p == policy)
}

// §7.1 TestConflictingData: in the upstream suite, `upstream::garbagecollector_test`.

// ---- §7.8 kubectl-check-ownerreferences TestVerify -----------------------------------------

/// TestVerify's fixture: Node node1 (uid nodeuid) exists; Pod p references it with the given
/// apiVersion/kind/name. Returns the reference's class.
fn verify_pod_ref_to_node1(api_version: &str, kind: &str, name: &str) -> Vec<&'static str> {
    let mut c = Cluster::new();
    c.obj("v1", "Node", "", "node1", "nodeuid");
    c.obj("v1", "Pod", "ns1", "p", "puid")
        .owner(api_version, kind, name, "nodeuid");
    classes(&c.build(), v(28), "p")
}

#[test]
fn verify_forbidden_owner_resource_is_unknown_not_dangling() {
    let mut c = Cluster::new();
    c.forbid("", "secrets");
    c.obj("v1", "ConfigMap", "ns1", "cm", "cmuid")
        .owner("v1", "Secret", "s", "suid");
    let s = c.build();
    assert_eq!(classes(&s, v(28), "cm"), ["unknown"]);
    assert!(matches!(verdict(&s, v(28), "cm"), Verdict::Unknown { .. }));
}

#[test]
fn verify_failed_list_is_unknown_not_dangling() {
    let mut c = Cluster::new();
    c.outcome(
        "",
        "secrets",
        crate::snapshot::ListOutcome::Failed {
            message: "503".into(),
        },
    );
    c.obj("v1", "ConfigMap", "ns1", "cm", "cmuid")
        .owner("v1", "Secret", "s", "suid");
    let s = c.build();
    assert_eq!(classes(&s, v(28), "cm"), ["unknown"]);
}

#[test]
fn verify_unavailable_version_is_unresolvable() {
    assert_eq!(
        verify_pod_ref_to_node1("v2", "Node", "node1"),
        ["unresolvable"]
    );
}

#[test]
fn verify_mismatched_name_is_dangling() {
    assert_eq!(verify_pod_ref_to_node1("v1", "Node", "nodex"), ["dangling"]);
}

#[test]
fn verify_mismatched_kind_is_dangling() {
    assert_eq!(verify_pod_ref_to_node1("v1", "Pod", "node1"), ["dangling"]);
}

#[test]
fn verify_case_different_kinds_exact_and_lowercase_resolve_others_do_not() {
    let mut c = Cluster::new();
    c.obj("v1", "Node", "", "node1", "nodeuid");
    c.obj("v1", "Pod", "ns1", "exact", "u1")
        .owner("v1", "Node", "node1", "nodeuid");
    c.obj("v1", "Pod", "ns1", "lower", "u2")
        .owner("v1", "node", "node1", "nodeuid");
    c.obj("v1", "Pod", "ns1", "upper", "u3")
        .owner("v1", "NODE", "node1", "nodeuid");
    c.obj("v1", "Pod", "ns1", "plural", "u4")
        .owner("v1", "nodes", "node1", "nodeuid");
    let s = c.build();
    assert_eq!(classes(&s, v(28), "exact"), ["solid"]);
    assert_eq!(classes(&s, v(28), "lower"), ["solid"]);
    assert_eq!(classes(&s, v(28), "upper"), ["unresolvable"]);
    assert_eq!(classes(&s, v(28), "plural"), ["unresolvable"]);
}

#[test]
fn verify_unparsable_api_version_is_unresolvable() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns1", "p", "puid")
        .owner("a/b/c", "Thing", "x", "xuid");
    let s = c.build();
    assert_eq!(classes(&s, v(28), "p"), ["unresolvable"]);
}

#[test]
fn discovery_failure_makes_the_group_unknown_not_unresolvable() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns1", "p", "puid").owner(
        "metrics.k8s.io/v1beta1",
        "PodMetrics",
        "x",
        "xuid",
    );
    let mut s = c.build();
    s.discovery_failures
        .push(crate::snapshot::DiscoveryFailure {
            group_version: "metrics.k8s.io/v1beta1".into(),
            message: "503".into(),
        });
    assert_eq!(classes(&s, v(28), "p"), ["unknown"]);
}

// ---- §3.2 decision table rows --------------------------------------------------------------

#[test]
fn row1_terminating_object_is_left_alone_even_with_dangling_owner() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("v1", "Pod", "gone", "gone")
        .finalizers(&["x/y"])
        .deleting();
    let s = c.build();
    assert_eq!(verdict(&s, v(28), "p"), Verdict::Terminating);
}

#[test]
fn row6_no_owner_references_nothing_to_do() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "p", "p");
    let s = c.build();
    assert_eq!(verdict(&s, v(28), "p"), Verdict::NoOwners);
}

#[test]
fn row7_one_unresolvable_ref_aborts_even_with_dangling_siblings() {
    // Integration TestCrossNamespaceReferences: the 25-bad-kind children are never collected.
    let mut c = Cluster::new();
    c.obj("v1", "Secret", "a", "child", "c")
        .owner("test/v1", "invalid1", "x", "u1")
        .owner("v1", "Pod", "invalid", "parentuid");
    let s = c.build();
    assert!(matches!(
        verdict(&s, v(28), "child"),
        Verdict::NeverCollected { dropped: false, .. }
    ));
}

#[test]
fn row8_solid_owner_keeps_object_and_strips_dangling_then_waiting() {
    // TestSolidOwnerDoesNotBlockWaitingOwner + §6.4.
    let mut c = Cluster::new();
    c.obj("v1", "ReplicationController", "ns", "remaining", "rem");
    c.obj("v1", "ReplicationController", "ns", "tobedeleted", "tbd")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("v1", "ReplicationController", "tobedeleted", "tbd")
        .block(true)
        .owner("v1", "ReplicationController", "gone", "goneuid")
        .owner("v1", "ReplicationController", "remaining", "rem");
    let s = c.build();
    let uids = |names: &[&str]| -> Vec<crate::model::Sym> {
        names
            .iter()
            .map(|n| s.store.strings.get(n).unwrap())
            .collect()
    };
    assert_eq!(
        verdict(&s, v(28), "p"),
        Verdict::RemoveRefs {
            uids: uids(&["goneuid", "tbd"]),
            unknown: vec![]
        }
    );
}

#[test]
fn row8_terminating_owner_without_foreground_finalizer_is_solid() {
    // §3.4 / §6.17: background deletion held by another finalizer keeps the owner solid.
    let mut c = Cluster::new();
    c.obj("v1", "ReplicationController", "ns", "rc", "rc")
        .finalizers(&["x/y"])
        .deleting();
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("v1", "ReplicationController", "rc", "rc");
    let s = c.build();
    assert_eq!(classes(&s, v(28), "p"), ["solid"]);
}

#[test]
fn row9_waiting_owner_and_dependents_deletes_in_foreground() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "ns", "d", "d")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("apps/v1", "ReplicaSet", "ns", "rs", "rs")
        .owner("apps/v1", "Deployment", "d", "d")
        .block(true);
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("apps/v1", "ReplicaSet", "rs", "rs")
        .block(true);
    let s = c.build();
    assert_eq!(classes(&s, v(28), "rs"), ["waiting"]);
    assert_eq!(
        verdict(&s, v(28), "rs"),
        Verdict::Delete {
            policy: Policy::Foreground,
            row: 9,
            unblock_first: false
        }
    );
    // The pod's owner is not waiting: it is solid, so the pod is kept for now.
    assert_eq!(classes(&s, v(28), "p"), ["solid"]);
}

#[test]
fn row9_cycle_guard_unblocks_when_a_dependent_is_deleting_dependents() {
    // e2e "should not be blocked by dependency circle": pod1→pod3, pod2→pod1, pod3→pod2.
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "pod1", "u1")
        .owner("v1", "Pod", "pod3", "u3")
        .block(true)
        .controller(true)
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "Pod", "ns", "pod2", "u2")
        .owner("v1", "Pod", "pod1", "u1")
        .block(true)
        .controller(true);
    c.obj("v1", "Pod", "ns", "pod3", "u3")
        .owner("v1", "Pod", "pod2", "u2")
        .block(true)
        .controller(true);
    let s = c.build();
    // pod2's owner pod1 is waiting; pod2's dependent pod3 is not deletingDependents: no unblock.
    assert_eq!(
        verdict(&s, v(28), "pod2"),
        Verdict::Delete {
            policy: Policy::Foreground,
            row: 9,
            unblock_first: false
        }
    );
}

#[test]
fn row9_cycle_guard_fires_when_any_of_mixed_dependents_is_deleting_dependents() {
    // garbagecollector.go attemptToDeleteItem, row 9: the loop over the item's dependents
    // unblocks on the *first* one that is deletingDependents. `b` waits for `a`; of its two
    // dependents `c` is in foreground deletion and `d` is not: the guard fires (with `.all`
    // it would not, and `a` would stay blocked behind `b`).
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "a", "a")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "ConfigMap", "ns", "b", "b")
        .owner("v1", "ConfigMap", "a", "a")
        .block(true);
    c.obj("v1", "ConfigMap", "ns", "d", "d")
        .owner("v1", "ConfigMap", "b", "b")
        .block(true);
    c.obj("v1", "ConfigMap", "ns", "c", "c")
        .owner("v1", "ConfigMap", "b", "b")
        .block(true)
        .finalizers(&["foregroundDeletion"])
        .deleting();
    let s = c.build();
    let want = Verdict::Delete {
        policy: Policy::Foreground,
        row: 9,
        unblock_first: true,
    };
    assert_eq!(verdict(&s, v(28), "b"), want);
    assert_eq!(verdict(&s, v(20), "b"), want);
}

#[test]
fn row10_policy_follows_the_objects_own_finalizers() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "orphaner", "a")
        .owner("v1", "Pod", "gone", "g")
        .finalizers(&["orphan"]);
    c.obj("v1", "Pod", "ns", "fg", "b")
        .owner("v1", "Pod", "gone", "g")
        .finalizers(&["foregroundDeletion"]);
    c.obj("v1", "Pod", "ns", "plain", "c")
        .owner("v1", "Pod", "gone", "g");
    let s = c.build();
    assert!(is_delete(&verdict(&s, v(28), "orphaner"), Policy::Orphan));
    assert!(is_delete(&verdict(&s, v(28), "fg"), Policy::Foreground));
    assert!(is_delete(&verdict(&s, v(28), "plain"), Policy::Background));
}

#[test]
fn row10_waiting_owner_without_dependents_deletes_with_own_policy() {
    let mut c = Cluster::new();
    c.obj("v1", "ReplicationController", "ns", "rc", "rc")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("v1", "ReplicationController", "rc", "rc")
        .block(true);
    let s = c.build();
    assert_eq!(
        verdict(&s, v(28), "p"),
        Verdict::Delete {
            policy: Policy::Background,
            row: 10,
            unblock_first: false
        }
    );
}

// ---- §3.5 foreground deletion ---------------------------------------------------------------

#[test]
fn foreground_owner_without_blocking_dependents_loses_its_finalizer() {
    // TestNonBlockingOwnerRefDoesNotBlock: unset/false blockOwnerDeletion does not block.
    let mut c = Cluster::new();
    c.obj("v1", "ReplicationController", "ns", "rc", "rc")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "Pod", "ns", "unset", "p1")
        .owner("v1", "ReplicationController", "rc", "rc")
        .finalizers(&["x/y"]);
    c.obj("v1", "Pod", "ns", "false", "p2")
        .owner("v1", "ReplicationController", "rc", "rc")
        .block(false)
        .finalizers(&["x/y"]);
    let s = c.build();
    assert_eq!(verdict(&s, v(28), "rc"), Verdict::RemoveForegroundFinalizer);
}

#[test]
fn foreground_owner_waits_for_blocking_dependent() {
    // TestBlockingOwnerRefDoesBlock.
    let mut c = Cluster::new();
    c.obj("v1", "ReplicationController", "ns", "rc", "rc")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("v1", "ReplicationController", "rc", "rc")
        .block(true)
        .finalizers(&["x/y"]);
    let s = c.build();
    let p = obj(&s, "p");
    assert_eq!(
        verdict(&s, v(28), "rc"),
        Verdict::WaitForDependents { blocking: vec![p] }
    );
}

// ---- Appendix A: version differences ----------------------------------------------------------

#[test]
fn before_1_20_cluster_scoped_child_of_namespaced_owner_is_deleted() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns1", "podname1", "poduid1");
    c.obj("v1", "Node", "", "nodename", "nodeuid1")
        .owner("v1", "Pod", "podname1", "poduid1");
    let s = c.build();
    assert_eq!(classes(&s, v(19), "nodename"), ["dangling"]);
    assert!(is_delete(
        &verdict(&s, v(13), "nodename"),
        Policy::Background
    ));
    assert_eq!(classes(&s, v(20), "nodename"), ["invalid-scope"]);
}

#[test]
fn events_are_not_monitored_and_never_collected() {
    let mut c = Cluster::new();
    c.obj("v1", "Event", "ns", "e", "e")
        .owner("v1", "Pod", "gone", "gone");
    let s = c.build();
    assert_eq!(verdict(&s, v(28), "e"), Verdict::NotMonitored);
}

#[test]
fn events_k8s_io_events_are_monitored_before_1_25_and_unknown_until_1_28() {
    // §5.2 / Appendix A row A10: `events.k8s.io` events joined the GC's ignored resources
    // with PR #110888 (opened 2022-06-30, after the v1.24 branch), in a release not verified:
    // a v1.28 source tree has it. Before v1.25 the GC watched them and acted on their
    // ownerReferences; from v1.28 it ignores them; in between, the verdict on a broken
    // reference is unknown, never "not monitored".
    let mut c = Cluster::new();
    c.resource("events.k8s.io", "v1", "Event", "events", true);
    c.obj("events.k8s.io/v1", "Event", "ns", "e", "e")
        .owner("v1", "Pod", "gone", "gone");
    let s = c.build();
    assert!(is_delete(&verdict(&s, v(24), "e"), Policy::Background));
    assert!(is_delete(&verdict(&s, v(20), "e"), Policy::Background));
    for minor in [25, 26, 27] {
        match verdict(&s, v(minor), "e") {
            Verdict::Unknown { reason } => assert!(
                reason.contains("kubernetes#110888") && reason.contains("v1.25.0"),
                "{reason}"
            ),
            other => panic!("v1.{minor}: {other:?}"),
        }
    }
    assert_eq!(verdict(&s, v(28), "e"), Verdict::NotMonitored);
    // Core events: the same stored objects are monitored as `events.k8s.io` events before
    // v1.25 (issue 14 item 3), so a file input listing them as core `v1` gets them collected
    // too; from v1.28 neither resource is monitored.
    let mut c = Cluster::new();
    c.obj("v1", "Event", "ns", "e", "e")
        .owner("v1", "Pod", "gone", "gone");
    let s = c.build();
    assert!(is_delete(&verdict(&s, v(20), "e"), Policy::Background));
    assert!(is_delete(&verdict(&s, v(24), "e"), Policy::Background));
    assert!(matches!(verdict(&s, v(26), "e"), Verdict::Unknown { .. }));
    assert_eq!(verdict(&s, v(28), "e"), Verdict::NotMonitored);
}

#[test]
fn an_event_with_a_solid_owner_is_kept_whatever_the_release() {
    // Watched or not, the GC keeps an object whose owner exists: nothing is unknown.
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "p", "p");
    c.obj("v1", "Event", "ns", "e", "e")
        .owner("v1", "Pod", "p", "p");
    let s = c.build();
    assert_eq!(verdict(&s, v(26), "e"), Verdict::NotMonitored);
    assert!(matches!(verdict(&s, v(24), "e"), Verdict::Keep { .. }));
}

#[test]
fn plans_report_an_event_of_an_unsettled_release_as_unknown() {
    // collect's plan (and so why, which reads it) must not call the Event kept at v1.26:
    // a GC that watches it deletes it, one that ignores it keeps it.
    let mut c = Cluster::new();
    c.obj("v1", "Event", "ns", "e", "e")
        .owner("v1", "Pod", "gone", "gone");
    let s = c.build();
    let e = obj(&s, "e");
    let at = |minor| {
        let gc = GarbageCollector::new(&s, v(minor));
        let plan = crate::gc::plan::Plan::steady_state(&gc);
        let outcome = plan.outcomes.iter().find(|o| o.target == e).cloned();
        let deletes = plan.actions.iter().any(|a| a.target == e);
        (outcome, deletes)
    };
    let (o, deletes) = at(26);
    let o = o.expect("v1.26: the Event is listed");
    assert_eq!(o.state, crate::gc::plan::EndState::Kept);
    assert!(
        o.why.as_deref().is_some_and(|w| w.starts_with("unknown: ")),
        "{:?}",
        o.why
    );
    assert!(!deletes);
    let (o, deletes) = at(24);
    assert_eq!(o.map(|o| o.state), Some(crate::gc::plan::EndState::Deleted));
    assert!(deletes);
    let (o, deletes) = at(28);
    assert!(o.is_none() && !deletes, "v1.28 ignores Events: {o:?}");
}

#[test]
fn rest_mapper_list_pseudo_kinds_map_and_their_owner_get_404s() {
    // §3.3 step 3 [quirk]: the discovery REST mapper also maps `<Kind>List` (same scope as the
    // kind) and `List` (cluster scope) for every served group/version, to guessed resources
    // the server does not serve. Mapping succeeds, the owner GET 404s: the reference is
    // dangling, not unresolvable. Only the exact `<Kind>List` spelling is registered.
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "a", "a")
        .owner("apps/v1", "ReplicaSetList", "x", "x");
    c.obj("v1", "Pod", "ns", "b", "b")
        .owner("v1", "List", "x", "x2");
    c.obj("v1", "Pod", "ns", "c", "c")
        .owner("apps/v1", "replicasetlist", "x", "x3");
    c.obj("v1", "Pod", "ns", "d", "d")
        .owner("example.com/v1", "List", "x", "x4");
    c.obj("v1", "Node", "", "n", "n")
        .owner("apps/v1", "ReplicaSetList", "x", "x5");
    c.obj("v1", "Node", "", "m", "m")
        .owner("v1", "List", "x", "x6");
    let s = c.build();
    assert_eq!(classes(&s, v(28), "a"), ["dangling"]);
    assert!(is_delete(&verdict(&s, v(28), "a"), Policy::Background));
    assert_eq!(classes(&s, v(28), "b"), ["dangling"]);
    assert_eq!(classes(&s, v(28), "c"), ["unresolvable"]);
    assert_eq!(classes(&s, v(28), "d"), ["unresolvable"]);
    assert_eq!(classes(&s, v(28), "n"), ["invalid-scope"]);
    assert_eq!(classes(&s, v(28), "m"), ["dangling"]);
}

#[test]
fn two_captures_of_a_recreated_owner_make_its_refs_unknown_not_dangling() {
    // Files captured at different times can hold an owner twice: before and after it was
    // recreated. The GC GETs by name and compares UIDs; which of the two it would find now is
    // not in the input, so neither reference may be called dangling.
    let mut c = Cluster::new();
    c.obj("apps/v1", "ReplicaSet", "ns", "web", "rs-old");
    c.obj("apps/v1", "ReplicaSet", "ns", "web", "rs-new");
    c.obj("v1", "Pod", "ns", "p-old", "p1")
        .owner("apps/v1", "ReplicaSet", "web", "rs-old");
    c.obj("v1", "Pod", "ns", "p-new", "p2")
        .owner("apps/v1", "ReplicaSet", "web", "rs-new");
    // A UID that no captured object has is still a plain mismatch.
    c.obj("v1", "Pod", "ns", "p-ghost", "p3")
        .owner("apps/v1", "ReplicaSet", "web", "rs-gone");
    let s = c.build();
    let mut labels: Vec<&str> = ["p-old", "p-new"]
        .iter()
        .flat_map(|n| classes(&s, v(28), n))
        .collect();
    labels.sort();
    assert_eq!(labels, ["solid", "unknown"]);
    for n in ["p-old", "p-new"] {
        assert!(
            !matches!(verdict(&s, v(28), n), Verdict::Delete { .. }),
            "{n} must not be deleted"
        );
    }
    assert_eq!(classes(&s, v(28), "p-ghost"), ["dangling"]);
}

// ---- issue 25 defect 3: the emulated release's served versions, not the input -------------

/// A file input (no server version recorded, no `--gc-version`): the GC emulated is the
/// default release, and that release's served API versions decide what its REST mapper
/// resolves (§5.3, §6.8, §6.16). An owner named by a version the release serves besides the
/// preferred one is solid; one the release never served (or no longer does) is unresolvable,
/// retried for ever. Unknown only where the release's tables cannot tell: a group they do not
/// have (it may be a custom resource the input does not show).
#[test]
fn file_input_served_versions_follow_the_emulated_release_without_gc_version() {
    let mut c = Cluster::new();
    c.obj(
        "apps/v1",
        "Deployment",
        "ns1",
        "deployment1",
        "deploymentuid1",
    );
    c.obj(
        "rbac.authorization.k8s.io/v1",
        "Role",
        "ns1",
        "role1",
        "roleuid1",
    );
    c.obj("v1", "Pod", "ns1", "extensions", "p1").owner(
        "extensions/v1beta1",
        "Deployment",
        "deployment1",
        "deploymentuid1",
    );
    c.obj("v1", "Pod", "ns1", "rbac-v1beta1", "p2").owner(
        "rbac.authorization.k8s.io/v1beta1",
        "Role",
        "role1",
        "roleuid1",
    );
    c.obj("v1", "Pod", "ns1", "unknown-group", "p3").owner(
        "unknown.group/v1",
        "UnknownType",
        "x",
        "xuid",
    );
    let mut s = c.build();
    s.provenance.source = crate::snapshot::SourceKind::Files;
    assert!(s.provenance.server_version.is_none() && s.assumed_version.is_none());
    // extensions/v1beta1 Deployment: removed in 1.16.
    for gc in [KubeVersion::NEWEST, KubeVersion::release(20, 2)] {
        assert_eq!(classes(&s, gc, "extensions"), ["unresolvable"], "{gc}");
        assert!(matches!(
            verdict(&s, gc, "extensions"),
            Verdict::NeverCollected { dropped: false, .. }
        ));
        assert_eq!(classes(&s, gc, "unknown-group"), ["unknown"], "{gc}");
    }
    // rbac.authorization.k8s.io/v1beta1: served, not preferred, up to 1.21; removed in 1.22.
    assert_eq!(
        classes(&s, KubeVersion::release(20, 2), "rbac-v1beta1"),
        ["solid"]
    );
    assert_eq!(
        classes(&s, KubeVersion::NEWEST, "rbac-v1beta1"),
        ["unresolvable"]
    );
}

/// A file input that lists objects in a version the emulated release no longer serves (an old
/// manifest, an export from an older cluster): the release's tables still decide. The v1.25
/// GC cannot map `policy/v1beta1` PodDisruptionBudget (removed in v1.25), so a reference in it
/// is unresolvable even though the input holds objects in that version; v1.20.2 serves it, and
/// the missing owner is dangling there.
#[test]
fn file_input_objects_in_an_unserved_version_do_not_make_it_served() {
    let mut c = Cluster::new();
    c.resource(
        "policy",
        "v1beta1",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        true,
    );
    c.obj(
        "policy/v1beta1",
        "PodDisruptionBudget",
        "ns1",
        "pdb",
        "pdbuid",
    );
    c.obj("v1", "ConfigMap", "ns1", "solid", "c1").owner(
        "policy/v1beta1",
        "PodDisruptionBudget",
        "pdb",
        "pdbuid",
    );
    c.obj("v1", "ConfigMap", "ns1", "dangling", "c2").owner(
        "policy/v1beta1",
        "PodDisruptionBudget",
        "gone",
        "goneuid",
    );
    let mut s = c.build();
    s.provenance.source = crate::snapshot::SourceKind::Files;
    for at in [None, Some(KubeVersion::v1(25))] {
        s.assumed_version = at;
        for name in ["solid", "dangling"] {
            assert_eq!(classes(&s, v(25), name), ["unresolvable"], "{at:?} {name}");
            assert!(!is_delete(&verdict(&s, v(25), name), Policy::Background));
        }
    }
    s.assumed_version = None;
    let v1_20_2 = KubeVersion::release(20, 2);
    assert_eq!(classes(&s, v1_20_2, "solid"), ["solid"]);
    assert_eq!(classes(&s, v1_20_2, "dangling"), ["dangling"]);
}

// ---- support-bundle redactions (`***HIDDEN***`): what the input does not say -----------------

/// A support bundle's collector writes `***HIDDEN***` for values it hides (an IP, and so a Node
/// named by its IP). A GET that finds no owner says nothing of the cluster where what it
/// compares was redacted: unknown, never dangling. Where the input holds the redacted owner and
/// the reference names it the same way, it is found.
#[test]
fn redacted_owner_names_and_uids_are_unknown_not_dangling() {
    let hidden = crate::catalog::REDACTED;
    let pod_to_node = |node_name: &str, node_uid: &str, ref_name: &str, ref_uid: &str| {
        let mut c = Cluster::new();
        c.obj("v1", "Node", "", node_name, node_uid);
        c.obj("v1", "Pod", "ns1", "p", "puid")
            .owner("v1", "Node", ref_name, ref_uid);
        classes(&c.build(), v(28), "p")
    };
    // The reference's name is redacted, its owner is not in the input under it.
    assert_eq!(pod_to_node("n1", "nuid", hidden, "other"), ["unknown"]);
    // The reference's UID is redacted: found by name, the UIDs cannot be compared.
    assert_eq!(pod_to_node("n1", "nuid", "n1", hidden), ["unknown"]);
    // The found object's UID is redacted.
    assert_eq!(pod_to_node("n1", hidden, "n1", "nuid"), ["unknown"]);
    // A redacted UID is no object's identity: an object elsewhere holding the same redaction
    // does not make the reference dangling by UID.
    let mut c = Cluster::new();
    c.obj("v1", "Node", "", "n1", "nuid");
    c.obj("v1", "ConfigMap", "ns2", "cm", hidden);
    c.obj("v1", "Pod", "ns1", "p", "puid")
        .owner("v1", "Node", "n9", hidden);
    assert_eq!(classes(&c.build(), v(28), "p"), ["unknown"]);
    // Redacted alike in the owner and the reference: found, by the redacted name and the UID.
    assert_eq!(pod_to_node(hidden, "nuid", hidden, "nuid"), ["solid"]);
    // No redaction: the same shapes are dangling.
    assert_eq!(pod_to_node("n1", "nuid", "n2", "other"), ["dangling"]);
    assert_eq!(pod_to_node("n1", "nuid", "n1", "other"), ["dangling"]);

    // An owner missing under its name, where an object of its kind in its namespace has a
    // redacted name: it may be that owner.
    let rs_owner = |other_rs: &str| {
        let mut c = Cluster::new();
        c.obj("apps/v1", "ReplicaSet", "ns1", other_rs, "r2");
        c.obj("v1", "Pod", "ns1", "p", "puid")
            .owner("apps/v1", "ReplicaSet", "web-1", "r1");
        let s = c.build();
        (classes(&s, v(28), "p"), verdict(&s, v(28), "p"))
    };
    let (class, verdict_hidden) = rs_owner(hidden);
    assert_eq!(class, ["unknown"]);
    assert!(
        matches!(verdict_hidden, Verdict::Unknown { .. }),
        "{verdict_hidden:?}"
    );
    let (class, verdict_plain) = rs_owner("web-2");
    assert_eq!(class, ["dangling"]);
    assert!(
        is_delete(&verdict_plain, Policy::Background),
        "{verdict_plain:?}"
    );
}

#[test]
fn path_segment_names_are_the_names_the_api_server_can_be_asked_for() {
    use crate::gc::classify::is_path_segment_name;
    for ok in ["web", "a.b", "...", ".x", "x-1", "", "名前"] {
        assert!(is_path_segment_name(ok), "{ok:?}");
    }
    for bad in [".", "..", "a/b", "/", "50%", "%2F", "a%b/c", "x/"] {
        assert!(!is_path_segment_name(bad), "{bad:?}");
    }
}
