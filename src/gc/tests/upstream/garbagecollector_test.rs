//! `pkg/controller/garbagecollector/garbagecollector_test.go`.
//!
//! The fake REST mapper of these tests serves core `v1`, `rbac.authorization.k8s.io` Role in
//! `v1` and `v1beta1`, and `apps/v1` Deployment, but not `extensions/v1beta1` Deployment
//! (§7.1); the testkit's cluster serves the same, with `v1beta1` Role added where a scenario
//! needs it.

use super::*;
use crate::gc::graph::{Graph, NodeId};
use crate::testkit::Cluster;

/// `TestConflictingData`: sixteen scripted scenarios of references whose coordinates disagree
/// with what exists (§7.1). Each test here is one scenario (or the two orders of one), named
/// after it; the end state of upstream's script is the assertion, and the graph invariants
/// upstream checks after every step (`verifyGraphInvariants`) hold for the graph of the
/// scenario's objects.
mod conflicting_data {
    use super::*;

    /// "good child in ns1 -> cluster-scoped owner": a pod in ns1 owned by an existing Node.
    /// Upstream ends with both in the graph and nothing queued or deleted.
    #[test]
    fn good_child_in_ns1_to_cluster_scoped_owner() {
        let mut c = Cluster::new();
        c.obj("v1", "Node", "", "nodename", "nodeuid1");
        c.obj("v1", "Pod", "ns1", "podname1", "poduid1")
            .owner("v1", "Node", "nodename", "nodeuid1");
        let s = c.build();
        for gc in RELEASES {
            graph_invariants(&s, &Graph::build_for(&s, gc), &gc.to_string());
            assert_eq!(classes(&s, gc, "podname1"), ["solid"], "{gc}");
            assert_eq!(
                verdict(&s, gc, "podname1"),
                Verdict::Keep { unknown: vec![] }
            );
            let p = restart(&s, gc);
            assert!(p.actions.is_empty(), "{gc}: {:#?}", p.actions);
            assert_certain(&p, &s, "podname1", EndState::Kept);
            assert_certain(&p, &s, "nodename", EndState::Kept);
        }
    }

    /// Pod `podname1` in ns1 names `podname2`/`poduid2`, which lives in ns2; `first` says
    /// which of the two the informers list first (upstream scripts both orders).
    fn bad_child_in_ns1_to_owner_in_ns2(child_first: bool) {
        let mut c = Cluster::new();
        if !child_first {
            c.obj("v1", "Pod", "ns2", "podname2", "poduid2");
        }
        c.obj("v1", "Pod", "ns1", "podname1", "poduid1")
            .owner("v1", "Pod", "podname2", "poduid2");
        if child_first {
            c.obj("v1", "Pod", "ns2", "podname2", "poduid2");
        }
        let s = c.build();
        for gc in RELEASES {
            graph_invariants(&s, &Graph::build_for(&s, gc), &gc.to_string());
            assert_eq!(classes(&s, gc, "podname1"), ["dangling"], "{gc}");
            for p in [restart(&s, gc), steady(&s, gc)] {
                assert_certain(&p, &s, "podname1", EndState::Deleted);
                assert_certain(&p, &s, "podname2", EndState::Kept);
            }
        }
    }

    /// "bad child in ns1 -> owner in ns2 (child first)": the child is deleted (its owner GET
    /// in ns1 answers 404) and the real owner in ns2 stays.
    #[test]
    fn bad_child_in_ns1_to_owner_in_ns2_child_first() {
        bad_child_in_ns1_to_owner_in_ns2(true);
    }

    /// "bad child in ns1 -> owner in ns2 (owner first)": the same end state.
    #[test]
    fn bad_child_in_ns1_to_owner_in_ns2_owner_first() {
        bad_child_in_ns1_to_owner_in_ns2(false);
    }

    /// "bad cluster-scoped child -> owner in ns1" (child first, owner first): a Node naming a
    /// pod that exists in ns1. Upstream never deletes the Node: the namespace-less virtual owner
    /// is dropped without a request, and the Node's own evaluation only GETs it.
    #[test]
    fn bad_cluster_scoped_child_to_owner_in_ns1() {
        for child_first in [true, false] {
            let mut c = Cluster::new();
            if !child_first {
                c.obj("v1", "Pod", "ns1", "podname1", "poduid1");
            }
            c.obj("v1", "Node", "", "nodename", "nodeuid1")
                .owner("v1", "Pod", "podname1", "poduid1");
            if child_first {
                c.obj("v1", "Pod", "ns1", "podname1", "poduid1");
            }
            let s = c.build();
            for gc in RELEASES {
                graph_invariants(&s, &Graph::build_for(&s, gc), &gc.to_string());
                assert_eq!(classes(&s, gc, "nodename"), ["invalid-scope"], "{gc}");
                assert!(matches!(
                    verdict(&s, gc, "nodename"),
                    Verdict::NeverCollected { dropped: true, .. }
                ));
                let p = restart(&s, gc);
                assert!(p.actions.is_empty(), "{gc}: {:#?}", p.actions);
                assert_certain(&p, &s, "nodename", EndState::Kept);
                assert_certain(&p, &s, "podname1", EndState::Kept);
            }
        }
    }

    /// "good child -> existing owner with non-preferred accessible API version": a pod names
    /// its Role by `rbac.authorization.k8s.io/v1beta1`, served but not preferred. Upstream: not
    /// deleted while the Role exists; deleted once the Role is gone.
    #[test]
    fn good_child_to_existing_owner_with_non_preferred_accessible_api_version() {
        for role_exists in [true, false] {
            let mut c = Cluster::new();
            c.served_version("rbac.authorization.k8s.io", "v1beta1", "Role");
            if role_exists {
                c.obj(
                    "rbac.authorization.k8s.io/v1",
                    "Role",
                    "ns1",
                    "role1",
                    "roleuid1",
                );
            }
            c.obj("v1", "Pod", "ns1", "podname1", "poduid1").owner(
                "rbac.authorization.k8s.io/v1beta1",
                "Role",
                "role1",
                "roleuid1",
            );
            let (class, state) = if role_exists {
                ("solid", EndState::Kept)
            } else {
                ("dangling", EndState::Deleted)
            };
            // Live, discovery says v1beta1 is served; as a file input, the release's tables
            // do, and of the two releases only v1.20.2 serves it (removed in v1.22).
            let [live, files] = live_and_files(c.build());
            for (s, gc) in RELEASES
                .map(|gc| (&live, gc))
                .into_iter()
                .chain([(&files, V1_20_2)])
            {
                assert_eq!(classes(s, gc, "podname1"), [class], "{gc}");
                for p in [restart(s, gc), steady(s, gc)] {
                    assert_certain(&p, s, "podname1", state.clone());
                }
            }
        }
    }

    /// "child -> existing owner with inaccessible API version" (child first, owner first): a
    /// pod names an existing Deployment by `extensions/v1beta1`, which is not served. Upstream:
    /// the pod is never deleted, and stays queued (retried) also after the Deployment is gone.
    #[test]
    fn child_to_existing_owner_with_inaccessible_api_version() {
        for owner_exists in [true, false] {
            let mut c = Cluster::new();
            if owner_exists {
                c.obj(
                    "apps/v1",
                    "Deployment",
                    "ns1",
                    "deployment1",
                    "deploymentuid1",
                );
            }
            c.obj("v1", "Pod", "ns1", "podname1", "poduid1").owner(
                "extensions/v1beta1",
                "Deployment",
                "deployment1",
                "deploymentuid1",
            );
            for s in live_and_files(c.build()) {
                for gc in RELEASES {
                    graph_invariants(&s, &Graph::build_for(&s, gc), &gc.to_string());
                    assert_eq!(classes(&s, gc, "podname1"), ["unresolvable"], "{gc}");
                    assert!(matches!(
                        verdict(&s, gc, "podname1"),
                        Verdict::NeverCollected { dropped: false, .. }
                    ));
                    for p in [restart(&s, gc), steady(&s, gc)] {
                        assert!(!deletes(&p, &s, "podname1"), "{gc}: {:#?}", p.actions);
                        assert_certain(&p, &s, "podname1", EndState::Kept);
                    }
                }
            }
        }
    }

    /// "child -> non-existent owner with inaccessible API version" (inaccessible version
    /// first, accessible version first): two pods name a missing Deployment, one by the
    /// unserved `extensions/v1beta1`, one by `apps/v1`. Upstream: the `apps/v1` child is
    /// deleted, the other is retried for ever, in both orders.
    #[test]
    fn child_to_non_existent_owner_with_inaccessible_api_version() {
        for inaccessible_first in [true, false] {
            let mut c = Cluster::new();
            let pod = |c: &mut Cluster, name: &str, uid: &str, api_version: &str| {
                c.obj("v1", "Pod", "ns1", name, uid).owner(
                    api_version,
                    "Deployment",
                    "deployment1",
                    "deploymentuid1",
                );
            };
            if inaccessible_first {
                pod(&mut c, "podname1", "poduid1", "extensions/v1beta1");
                pod(&mut c, "podname2", "poduid2", "apps/v1");
            } else {
                pod(&mut c, "podname2", "poduid2", "apps/v1");
                pod(&mut c, "podname1", "poduid1", "extensions/v1beta1");
            }
            for s in live_and_files(c.build()) {
                for gc in RELEASES {
                    graph_invariants(&s, &Graph::build_for(&s, gc), &gc.to_string());
                    assert!(matches!(
                        verdict(&s, gc, "podname1"),
                        Verdict::NeverCollected { dropped: false, .. }
                    ));
                    for p in [restart(&s, gc), steady(&s, gc)] {
                        assert_certain(&p, &s, "podname2", EndState::Deleted);
                        assert_certain(&p, &s, "podname1", EndState::Kept);
                    }
                }
            }
        }
    }

    /// The three "bad child -> existing owner with incorrect API version" scenarios (bad child,
    /// good child, bad parent delete, good parent; bad child, good child, good parent, bad
    /// parent delete; good child, bad child, good parent): `badpod` names the Deployment's UID
    /// as a `v1` Secret, `goodpod` names the Deployment. Upstream, in every order: the bad child
    /// is deleted, the good child and the Deployment stay.
    #[test]
    fn bad_child_to_existing_owner_with_incorrect_api_version() {
        for good_first in [false, true] {
            let mut c = Cluster::new();
            c.obj(
                "apps/v1",
                "Deployment",
                "ns1",
                "deployment1",
                "deploymentuid1",
            );
            let bad = |c: &mut Cluster| {
                c.obj("v1", "Pod", "ns1", "badpod", "badpoduid").owner(
                    "v1",
                    "Secret",
                    "secretname",
                    "deploymentuid1",
                );
            };
            let good = |c: &mut Cluster| {
                c.obj("v1", "Pod", "ns1", "goodpod", "goodpoduid").owner(
                    "apps/v1",
                    "Deployment",
                    "deployment1",
                    "deploymentuid1",
                );
            };
            if good_first {
                good(&mut c);
                bad(&mut c);
            } else {
                bad(&mut c);
                good(&mut c);
            }
            let s = c.build();
            for gc in RELEASES {
                graph_invariants(&s, &Graph::build_for(&s, gc), &gc.to_string());
                assert_eq!(classes(&s, gc, "badpod"), ["dangling"], "{gc}");
                assert_eq!(classes(&s, gc, "goodpod"), ["solid"], "{gc}");
                for p in [restart(&s, gc), steady(&s, gc)] {
                    assert_certain(&p, &s, "badpod", EndState::Deleted);
                    assert_certain(&p, &s, "goodpod", EndState::Kept);
                    assert_certain(&p, &s, "deployment1", EndState::Kept);
                }
            }
        }
    }

    /// The #98040 objects: Node `nodename` (cluster-scoped) and pod `podname2` in ns1 both name
    /// the pod `podname1`/`poduid1`; `parent` says whether that pod exists.
    fn cluster_scoped_bad_child_and_namespaced_good_child(
        parent: bool,
        node_first: bool,
    ) -> Snapshot {
        let mut c = Cluster::new();
        if parent {
            c.obj("v1", "Pod", "ns1", "podname1", "poduid1");
        }
        let node = |c: &mut Cluster| {
            c.obj("v1", "Node", "", "nodename", "nodeuid1")
                .owner("v1", "Pod", "podname1", "poduid1");
        };
        let pod = |c: &mut Cluster| {
            c.obj("v1", "Pod", "ns1", "podname2", "poduid2")
                .owner("v1", "Pod", "podname1", "poduid1");
        };
        if node_first {
            node(&mut c);
            pod(&mut c);
        } else {
            pod(&mut c);
            node(&mut c);
        }
        c.build()
    }

    /// "cluster-scoped bad child, namespaced good child, missing parent" (#98040): the Node is
    /// observed first, so the missing pod's virtual node has no namespace. Upstream (with the
    /// third coordinate check, v1.20.3+): the good child is queued by the check and deleted;
    /// the Node stays.
    ///
    /// v1.20.0–v1.20.2 lack the check (§6.7, Appendix A row A8): in this order the good child
    /// is never evaluated and stays, in the other order (the next test) it is deleted. A
    /// snapshot does not fix the order, so at v1.20.2 the plan must report both end states.
    #[test]
    fn cluster_scoped_bad_child_namespaced_good_child_missing_parent() {
        let s = cluster_scoped_bad_child_and_namespaced_good_child(false, true);
        for gc in RELEASES {
            graph_invariants(&s, &Graph::build_for(&s, gc), &gc.to_string());
        }
        for p in [
            restart(&s, KubeVersion::NEWEST),
            steady(&s, KubeVersion::NEWEST),
        ] {
            assert_certain(&p, &s, "podname2", EndState::Deleted);
            assert_certain(&p, &s, "nodename", EndState::Kept);
        }
        for p in [restart(&s, V1_20_2), steady(&s, V1_20_2)] {
            let mut states = vec![end(&p, &s, "podname2")];
            states.extend(alternatives(&p, &s, "podname2"));
            assert!(
                states.contains(&EndState::Deleted) && states.contains(&EndState::Kept),
                "v1.20.2: order-dependent, deleted or stranded: {states:?}"
            );
            assert!(
                !deletes(&p, &s, "podname2"),
                "an order-dependent object is not acted on"
            );
            assert_certain(&p, &s, "nodename", EndState::Kept);
        }
    }

    /// "cluster-scoped bad child, namespaced good child, late observed parent": the parent pod
    /// exists. Upstream: the good child's owner GET finds it (kept), the Node gets the
    /// `OwnerRefInvalidNamespace` event and is dropped without being deleted.
    #[test]
    fn cluster_scoped_bad_child_namespaced_good_child_late_observed_parent() {
        let s = cluster_scoped_bad_child_and_namespaced_good_child(true, true);
        for gc in RELEASES {
            graph_invariants(&s, &Graph::build_for(&s, gc), &gc.to_string());
            assert_eq!(classes(&s, gc, "podname2"), ["solid"], "{gc}");
            assert!(matches!(
                verdict(&s, gc, "nodename"),
                Verdict::NeverCollected { dropped: true, .. }
            ));
            for p in [restart(&s, gc), steady(&s, gc)] {
                assert!(p.actions.is_empty(), "{gc}: {:#?}", p.actions);
                assert_certain(&p, &s, "podname2", EndState::Kept);
                assert_certain(&p, &s, "podname1", EndState::Kept);
                assert_certain(&p, &s, "nodename", EndState::Kept);
            }
        }
    }

    /// "namespaced good child, cluster-scoped bad child, missing parent": the good child is
    /// observed first, its virtual owner is verified absent in ns1, and the virtual delete
    /// queues it: deleted; the owner is re-identified without a namespace and the Node stays.
    /// This order needs no third check, so v1.20.2 reaches the same end state in it; the
    /// snapshot is the previous test's, where v1.20.2's other order strands the child.
    #[test]
    fn namespaced_good_child_cluster_scoped_bad_child_missing_parent() {
        let s = cluster_scoped_bad_child_and_namespaced_good_child(false, false);
        for gc in RELEASES {
            graph_invariants(&s, &Graph::build_for(&s, gc), &gc.to_string());
        }
        for p in [
            restart(&s, KubeVersion::NEWEST),
            steady(&s, KubeVersion::NEWEST),
        ] {
            assert_certain(&p, &s, "podname2", EndState::Deleted);
            assert_certain(&p, &s, "nodename", EndState::Kept);
        }
        for p in [restart(&s, V1_20_2), steady(&s, V1_20_2)] {
            let mut states = vec![end(&p, &s, "podname2")];
            states.extend(alternatives(&p, &s, "podname2"));
            assert!(states.contains(&EndState::Deleted), "{states:?}");
            assert_certain(&p, &s, "nodename", EndState::Kept);
        }
    }
}

/// `TestAttemptToDeleteItem`: pod `ToBeDeletedPod` in ns1 names ReplicationController `owner1`
/// (uid 123), whose GET answers 404. Upstream asserts the worker's requests end in a DELETE of
/// the pod; here, that attemptToDeleteItem deletes it (row 10, its own background policy) and
/// the plan does.
#[test]
fn attempt_to_delete_item() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns1", "ToBeDeletedPod", "456").owner(
        "v1",
        "ReplicationController",
        "owner1",
        "123",
    );
    let s = c.build();
    for gc in RELEASES {
        assert_eq!(
            verdict(&s, gc, "ToBeDeletedPod"),
            Verdict::Delete {
                policy: Policy::Background,
                row: 10,
                unblock_first: false
            },
            "{gc}"
        );
        assert_certain(&restart(&s, gc), &s, "ToBeDeletedPod", EndState::Deleted);
    }
}

/// `TestAbsentOwnerCache`: four pods in ns1 owned by three missing ReplicationControllers
/// (`rc1` twice, once with `controller: true` and once `false`; `rc2`; `rc3`). Upstream checks
/// that the cache answers for `rc1` the second time; each pod's evaluation ends in its DELETE.
/// Here: all four are deleted, whatever the order.
#[test]
fn absent_owner_cache() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns1", "rc1Pod1", "p11")
        .owner("v1", "ReplicationController", "rc1", "1")
        .controller(true);
    c.obj("v1", "Pod", "ns1", "rc1Pod2", "p12")
        .owner("v1", "ReplicationController", "rc1", "1")
        .controller(false);
    c.obj("v1", "Pod", "ns1", "rc2Pod1", "p21")
        .owner("v1", "ReplicationController", "rc2", "2");
    c.obj("v1", "Pod", "ns1", "rc3Pod1", "p31")
        .owner("v1", "ReplicationController", "rc3", "3");
    let s = c.build();
    for gc in RELEASES {
        for p in [restart(&s, gc), steady(&s, gc)] {
            for pod in ["rc1Pod1", "rc1Pod2", "rc2Pod1", "rc3Pod1"] {
                assert_certain(&p, &s, pod, EndState::Deleted);
            }
        }
    }
}

/// `TestDeleteOwnerRefPatch`: the removal patch for UIDs 2 and 3 applied to a pod with
/// references 1, 2, 3 leaves only 1. Here the GC builds that patch itself: owner 1 exists,
/// 2 and 3 do not (row 8), and the pod keeps exactly reference 1.
#[test]
fn delete_owner_ref_patch() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns1", "owner1", "1");
    c.obj("v1", "Pod", "ns1", "pod", "100")
        .owner("v1", "ConfigMap", "owner1", "1")
        .owner("v1", "ConfigMap", "owner2", "2")
        .owner("v1", "ConfigMap", "owner3", "3");
    let s = c.build();
    for gc in RELEASES {
        let p = steady(&s, gc);
        let patches: Vec<Vec<String>> = p
            .actions
            .iter()
            .filter(|a| a.verb == Verb::RemoveOwnerReferences)
            .filter_map(|a| a.patched_owner_uids(&s.store))
            .collect();
        assert_eq!(patches, [["2", "3"]], "{gc}");
        assert_certain(&p, &s, "pod", EndState::Kept);
        assert_eq!(owners_left(&p, &s, "pod"), ["1"], "{gc}");
    }
}

/// `TestUnblockOwnerReference`: the unblock patch turns `blockOwnerDeletion` [true, false,
/// unset] into [false, false, unset]. Here the GC sends it itself, as row 9's cycle guard: the
/// pod's three owners wait for their dependents, and the pod's own dependent is itself being
/// deleted in the foreground. The pod holds a foreign finalizer, so its references can be read
/// at the end.
#[test]
fn unblock_owner_reference() {
    let mut c = Cluster::new();
    for (name, uid) in [("o1", "1"), ("o2", "2"), ("o3", "3")] {
        c.obj("v1", "ConfigMap", "ns1", name, uid)
            .finalizers(&["foregroundDeletion"])
            .deleting();
    }
    c.obj("v1", "Pod", "ns1", "pod", "100")
        .finalizers(&["x/y"])
        .owner("v1", "ConfigMap", "o1", "1")
        .block(true)
        .owner("v1", "ConfigMap", "o2", "2")
        .block(false)
        .owner("v1", "ConfigMap", "o3", "3");
    c.obj("v1", "Pod", "ns1", "dependent", "200")
        .owner("v1", "Pod", "pod", "100")
        .finalizers(&["foregroundDeletion", "x/y"])
        .deleting();
    let s = c.build();
    for gc in RELEASES {
        assert!(matches!(
            verdict(&s, gc, "pod"),
            Verdict::Delete {
                row: 9,
                unblock_first: true,
                ..
            }
        ));
        let p = steady(&s, gc);
        assert_eq!(p.count(Verb::UnblockOwnerReferences), 1, "{gc}");
        let pod = obj(&s, "pod");
        let blocks: Vec<(String, Option<bool>)> = p
            .end
            .owner_refs(&s.store, pod)
            .iter()
            .map(|r| (s.store.str(r.uid).to_owned(), r.block_owner_deletion))
            .collect();
        assert_eq!(
            blocks,
            [
                ("1".to_owned(), Some(false)),
                ("2".to_owned(), Some(false)),
                ("3".to_owned(), None)
            ],
            "{gc}"
        );
    }
}

/// A bare pod of `TestProcessEvent`: its UID and its owners' UIDs.
type Pod<'a> = (&'a str, &'a [&'a str]);

/// `TestProcessEvent`: four event sequences on bare pods whose references carry only UIDs;
/// upstream checks the graph invariants after each event (every dependent lists its owner and
/// every owner its dependents). Here: the invariants of the graph built from each scenario's
/// final objects, at both releases.
#[test]
fn process_event() {
    // (name, [(uid, owner uids)]) after the scenario's last event.
    let scenarios: [(&str, &[Pod]); 4] = [
        ("test1", &[("1", &[]), ("2", &["1"]), ("3", &["1", "2"])]),
        // test2 deletes 2: its dependents 3 and 4 keep references to it.
        ("test2", &[("1", &[]), ("3", &["1", "2"]), ("4", &["2"])]),
        // test3 updates 2 to be owned by 4: a cycle 2 → 4 → 3 → 2.
        (
            "test3",
            &[("1", &[]), ("2", &["4"]), ("3", &["1", "2"]), ("4", &["3"])],
        ),
        (
            "reverse test2",
            &[("4", &["2"]), ("3", &["1", "2"]), ("1", &[])],
        ),
    ];
    for (name, objects) in scenarios {
        let mut c = Cluster::new();
        for (uid, owners) in objects {
            let o = c.obj("v1", "Pod", "ns", &format!("p{uid}"), uid);
            for owner in *owners {
                // Upstream's references carry only a UID: no apiVersion, kind or name.
                o.owner("", "", "", owner);
            }
        }
        let s = c.build();
        for gc in RELEASES {
            graph_invariants(&s, &Graph::build_for(&s, gc), name);
        }
    }
}

/// Upstream's `verifyGraphInvariants`: a node's dependents all list it as an owner, and every
/// owner reference of a node whose owner is in the graph is among that owner's dependents.
fn graph_invariants(s: &Snapshot, g: &Graph, scenario: &str) {
    for (i, n) in g.nodes().iter().enumerate() {
        for &d in g.dependents(NodeId(i as u32)) {
            let dep = g.object(d).expect("dependents are observed objects");
            assert!(
                s.store.owner_refs(dep).iter().any(|r| r.uid == n.id.uid),
                "{scenario}: dependent without the owner's UID"
            );
        }
    }
    for id in s.store.ids() {
        let node = g.node_of_object(id);
        for r in s.store.owner_refs(id) {
            let owner = g
                .uid_to_node(r.uid)
                .unwrap_or_else(|| panic!("{scenario}: owner UID without a node"));
            assert!(
                g.dependents(owner).contains(&node),
                "{scenario}: owner without the dependent"
            );
        }
    }
}
