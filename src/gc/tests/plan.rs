//! Plan scenarios: GC cascades beyond the upstream integration and e2e outcomes (§7.6, §7.7),
//! which are in the upstream suite (`upstream::integration`, `upstream::e2e`).

use crate::catalog::KubeVersion;
use crate::gc::plan::*;
use crate::gc::{GarbageCollector, Policy};
use crate::model::ObjId;
use crate::snapshot::Snapshot;
use crate::testkit::{Cluster, forests};

fn obj(snap: &Snapshot, name: &str) -> ObjId {
    snap.store
        .ids()
        .find(|&id| snap.store.str(snap.store.object(id).name) == name)
        .unwrap_or_else(|| panic!("no object {name}"))
}

fn end(plan: &Plan, snap: &Snapshot, name: &str) -> Option<EndState> {
    let id = obj(snap, name);
    plan.outcomes
        .iter()
        .find(|o| o.target == id)
        .map(|o| o.state.clone())
}

fn deleted(plan: &Plan, snap: &Snapshot, name: &str) -> bool {
    !plan.end.exists(obj(snap, name))
}

fn preview(snap: &Snapshot, name: &str, policy: Option<Policy>) -> Plan {
    let a = GarbageCollector::new(snap, KubeVersion::v1(28));
    Plan::preview_delete(
        &a,
        UserDelete {
            target: obj(snap, name),
            policy,
        },
    )
}

fn collect(snap: &Snapshot) -> Plan {
    let a = GarbageCollector::new(snap, KubeVersion::v1(28));
    Plan::steady_state(&a)
}

fn deployment_chain() -> Cluster {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "ns", "web", "d");
    c.obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs")
        .owner("apps/v1", "Deployment", "web", "d")
        .controller(true)
        .block(true);
    for i in 0..3 {
        c.obj("v1", "Pod", "ns", &format!("web-1-{i}"), &format!("p{i}"))
            .owner("apps/v1", "ReplicaSet", "web-1", "rs")
            .controller(true)
            .block(true);
    }
    c
}

#[test]
fn healthy_cluster_plans_nothing() {
    let s = deployment_chain().build();
    let p = collect(&s);
    assert!(p.actions.is_empty(), "{:?}", p.actions);
}

#[test]
fn background_cascade_depth_3_deletes_in_waves() {
    let s = deployment_chain().build();
    let p = preview(&s, "web", Some(Policy::Background));
    assert!(deleted(&p, &s, "web") && deleted(&p, &s, "web-1") && deleted(&p, &s, "web-1-2"));
    let wave_of = |n: &str| {
        p.actions
            .iter()
            .find(|a| a.target == obj(&s, n))
            .unwrap()
            .wave
    };
    // One API round trip per step: the ReplicaSet is evaluated after the Deployment's delete
    // event (GET it, GET its owner, DELETE), the pods after the ReplicaSet's.
    assert_eq!(
        (wave_of("web"), wave_of("web-1"), wave_of("web-1-0")),
        (1, 4, 7)
    );
    assert_eq!(p.count(Verb::Delete), 5);
}

#[test]
fn foreground_cascade_deletes_bottom_up_and_owner_last() {
    // e2e "should keep the rc around until all its pods are deleted if the deleteOptions says so".
    let s = deployment_chain().build();
    let p = preview(&s, "web", Some(Policy::Foreground));
    for n in ["web", "web-1", "web-1-0", "web-1-1", "web-1-2"] {
        assert!(deleted(&p, &s, n), "{n} survives");
    }
    let last_wave = |n: &str| {
        p.actions
            .iter()
            .filter(|a| a.target == obj(&s, n))
            .map(|a| a.wave)
            .max()
            .unwrap()
    };
    assert!(last_wave("web") > last_wave("web-1") && last_wave("web-1") > last_wave("web-1-0"));
    // The RS is deleted in Foreground (row 9) because its owner is waiting and it has pods.
    let rs_delete = p
        .actions
        .iter()
        .find(|a| a.target == obj(&s, "web-1") && a.verb == Verb::Delete)
        .unwrap();
    assert_eq!(
        (rs_delete.policy, &rs_delete.reason),
        (Some(Policy::Foreground), &Reason::ForegroundForWaitingOwner)
    );
}

#[test]
fn foreground_chain_blocked_by_dependent_with_its_own_finalizer() {
    // TestBlockingOwnerRefDoesBlock, one level deeper: the pod holds x/y; RS and Deployment wait.
    let mut c = deployment_chain();
    c.obj("v1", "Pod", "ns", "stuck", "stuck")
        .owner("apps/v1", "ReplicaSet", "web-1", "rs")
        .block(true)
        .finalizers(&["example.com/cleanup"]);
    let s = c.build();
    let p = preview(&s, "web", Some(Policy::Foreground));
    assert!(deleted(&p, &s, "web-1-0"));
    let Some(EndState::Terminating { finalizers }) = end(&p, &s, "stuck") else {
        panic!()
    };
    assert_eq!(
        finalizers
            .iter()
            .map(|f| s.store.str(*f))
            .collect::<Vec<_>>(),
        ["example.com/cleanup"]
    );
    assert!(matches!(
        end(&p, &s, "web-1"),
        Some(EndState::Terminating { .. })
    ));
    assert!(matches!(
        end(&p, &s, "web"),
        Some(EndState::Terminating { .. })
    ));
    let why = p
        .outcomes
        .iter()
        .find(|o| o.target == obj(&s, "web-1"))
        .unwrap()
        .why
        .clone()
        .unwrap();
    assert!(why.contains("Pod/stuck"), "{why}");
}

#[test]
fn collect_deletes_dangling_dependents_and_their_subtrees() {
    // TestCreateWithNonExistentOwner, plus the cascade below the deleted object.
    let mut c = Cluster::new();
    c.obj("apps/v1", "ReplicaSet", "ns", "rs", "rs")
        .owner("apps/v1", "Deployment", "gone", "gone");
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("apps/v1", "ReplicaSet", "rs", "rs");
    let s = c.build();
    let p = collect(&s);
    assert!(deleted(&p, &s, "rs") && deleted(&p, &s, "p"));
    assert_eq!(p.actions[0].reason, Reason::NoSolidOwner);
}

#[test]
fn collect_reports_stuck_unresolvable_dependents() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("extensions/v1beta1", "Deployment", "d", "d");
    let s = c.build();
    let p = collect(&s);
    assert!(p.actions.is_empty());
    let o = p
        .outcomes
        .iter()
        .find(|o| o.target == obj(&s, "p"))
        .expect("stuck object reported");
    assert_eq!(o.state, EndState::Kept);
    assert!(o.why.as_deref().unwrap().contains("forever"));
}

#[test]
fn pending_orphan_finalizer_is_processed() {
    // §4: an object terminating with `orphan` gets its dependents orphaned, then goes away.
    let mut c = Cluster::new();
    c.obj("apps/v1", "ReplicaSet", "ns", "rs", "rs")
        .finalizers(&["orphan"])
        .deleting();
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("apps/v1", "ReplicaSet", "rs", "rs");
    let s = c.build();
    let p = collect(&s);
    assert!(deleted(&p, &s, "rs"));
    assert!(!deleted(&p, &s, "p"));
    assert!(p.end.owner_refs(&s.store, obj(&s, "p")).is_empty());
}

#[test]
fn user_delete_without_policy_follows_an_orphan_finalizer_before_the_type_default() {
    // Appendix B (store.go shouldOrphanDependents): with no explicit option, an `orphan`
    // finalizer already on the object decides before the type default (TestStressingCascading-
    // Deletion collection 2). A ReplicaSet defaults to Background, yet this one orphans.
    let mut c = Cluster::new();
    c.obj("apps/v1", "ReplicaSet", "ns", "rs", "rs")
        .finalizers(&["orphan"]);
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("apps/v1", "ReplicaSet", "rs", "rs")
        .block(true);
    let s = c.build();
    let p = preview(&s, "rs", None);
    assert_eq!(
        p.actions[0].policy,
        Some(Policy::Orphan),
        "{:#?}",
        p.actions
    );
    assert!(deleted(&p, &s, "rs"));
    assert!(!deleted(&p, &s, "p"), "the pod is orphaned, not deleted");
    assert!(p.end.owner_refs(&s.store, obj(&s, "p")).is_empty());
}

#[test]
fn user_delete_without_policy_follows_a_foreground_finalizer_before_the_type_default() {
    // Appendix B (store.go shouldDeleteDependents): a `foregroundDeletion` finalizer already on
    // the object makes a delete without options foreground, even for a type that defaults to
    // orphaning (core/v1 ReplicationController).
    let mut c = Cluster::new();
    c.obj("v1", "ReplicationController", "ns", "rc", "rc")
        .finalizers(&["foregroundDeletion"]);
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("v1", "ReplicationController", "rc", "rc")
        .block(true);
    let s = c.build();
    let p = preview(&s, "rc", None);
    assert_eq!(
        p.actions[0].policy,
        Some(Policy::Foreground),
        "{:#?}",
        p.actions
    );
    assert!(deleted(&p, &s, "p") && deleted(&p, &s, "rc"));
}

#[test]
fn cycle_guard_sees_deleting_dependents_flag_that_outlives_the_finalizer() {
    // §1.2: the graph's `deletingDependents` is one-way (set, never cleared), and the row-9
    // cycle guard (§3.2) reads that flag, not the live finalizers. `d` was in foreground
    // deletion and keeps a foreign finalizer after the GC removes `foregroundDeletion`; when
    // its owner `i` later takes row 9, the guard still fires and unblocks `i`'s reference to
    // `o`, so `o` and `p` finish their foreground deletions.
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "p", "p")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "Pod", "ns", "o", "o")
        .owner("v1", "Pod", "p", "p")
        .block(true);
    c.obj("v1", "Pod", "ns", "i", "i")
        .owner("v1", "Pod", "o", "o")
        .block(true);
    c.obj("v1", "Pod", "ns", "d", "d")
        .owner("v1", "Pod", "i", "i")
        .block(true)
        .finalizers(&["foregroundDeletion", "x/y"])
        .deleting();
    let s = c.build();
    let p = collect(&s);
    let unblocked: Vec<ObjId> = p
        .actions
        .iter()
        .filter(|a| a.verb == Verb::UnblockOwnerReferences)
        .map(|a| a.target)
        .collect();
    assert_eq!(unblocked, [obj(&s, "i")], "{:#?}", p.actions);
    assert!(deleted(&p, &s, "o") && deleted(&p, &s, "p"));
    assert!(matches!(
        end(&p, &s, "d"),
        Some(EndState::Terminating { .. })
    ));
}

#[test]
fn steady_state_on_1_20_2_makes_no_request_below_a_dependent_98040_can_strand() {
    // GC 1.20.0–1.20.2 (#98040, §6.7): `good` may be stranded (never evaluated) when the
    // cluster-scoped `bad` was observed first. In that order the GC sends nothing on `good`, and
    // nothing on `good`'s own dependent either (its owner stays): the plan may act on neither,
    // and reports both end states of both.
    let mut c = Cluster::new();
    c.obj("v1", "Node", "", "bad", "bad")
        .owner("v1", "Pod", "parent", "gone");
    c.obj("v1", "Pod", "ns", "good", "good")
        .owner("v1", "Pod", "parent", "gone");
    c.obj("v1", "ConfigMap", "ns", "below", "below")
        .owner("v1", "Pod", "good", "good");
    let s = c.build();
    let a = GarbageCollector::new(&s, KubeVersion::release(20, 2));
    let p = Plan::steady_state(&a);
    for n in ["good", "below"] {
        let o = p
            .outcomes
            .iter()
            .find(|o| o.target == obj(&s, n))
            .unwrap_or_else(|| panic!("{n} reported"));
        let mut states = vec![o.state.clone()];
        states.extend(o.alternatives.iter().map(|x| x.state.clone()));
        assert!(
            states.contains(&EndState::Deleted) && states.contains(&EndState::Kept),
            "{n}: {states:?}"
        );
        assert!(
            !p.actions.iter().any(|x| x.target == obj(&s, n)),
            "{n}: {:#?}",
            p.actions
        );
    }
    // v1.20.3 has the third coordinate check: both are deleted whatever the order.
    let a = GarbageCollector::new(&s, KubeVersion::release(20, 3));
    let p = Plan::steady_state(&a);
    for n in ["good", "below"] {
        assert!(deleted(&p, &s, n), "{n}");
    }
}

#[test]
fn random_forests_steady_state_primary_run_on_its_components_does_what_the_whole_run_does() {
    // `Plan::steady_state` runs the primary order only on the components where anything can
    // happen; under `cfg(test)` it also runs the whole graph and asserts that every object
    // ends the same, with the same requests, visits, races and holds. Here on random forests
    // (deletion states, missing and mistyped owners, references into other namespaces, cluster-
    // scoped dependents) at releases before, at and after the coordinate-aware graph.
    let versions = [
        KubeVersion::v1(19),
        KubeVersion::parse("1.20.2").unwrap(),
        KubeVersion::v1(21),
        KubeVersion::NEWEST,
    ];
    let (mut left_out, mut objects) = (0, 0);
    for seed in 1..=12u64 {
        let snap = forests::forest_cluster(&forests::random_forests(seed, 40)).build();
        for v in versions {
            let gc = GarbageCollector::new(&snap, v);
            let _ = Plan::steady_state(&gc);
            let initial = gc.initial_state();
            left_out += snap
                .store
                .ids()
                .filter(|&id| !crate::gc::simulation::may_act(&gc, &initial, None, id))
                .count();
            objects += snap.store.len();
        }
    }
    // Not vacuous: many objects are ones the GC cannot act on (their forests, when all of
    // them are, are left out of the primary run).
    assert!(left_out > objects / 10, "{left_out} of {objects}");
}
