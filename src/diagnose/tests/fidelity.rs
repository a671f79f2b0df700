//! Issue 14 ("GC fidelity, round 2"): each test pins one case the real GC decides differently
//! from a synchronous, wave-by-wave reading of the rules. The comment of each test names the
//! upstream function (`pkg/controller/garbagecollector`) whose behaviour it follows.

use crate::catalog::KubeVersion;
use crate::diagnose::restart;
use crate::gc::plan::{EndState, Plan, UserDelete, Verb};
use crate::gc::{GarbageCollector, Policy};
use crate::model::{ObjId, Sym};
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;

fn obj(snap: &Snapshot, name: &str) -> ObjId {
    snap.store
        .ids()
        .find(|&id| snap.store.str(snap.store.object(id).name) == name)
        .unwrap_or_else(|| panic!("no object {name}"))
}

/// The end state of `name` in the plan's order (the order the GC takes when nothing races).
fn end(plan: &Plan, snap: &Snapshot, name: &str) -> EndState {
    let id = obj(snap, name);
    if !plan.end.exists(id) {
        EndState::Deleted
    } else if plan.end.being_deleted(id) {
        EndState::Terminating {
            finalizers: plan.end.finalizers(&snap.store, id).to_vec(),
        }
    } else {
        EndState::Kept
    }
}

/// The other end states the plan reports for `name` (order-dependent outcomes).
fn alternatives(plan: &Plan, snap: &Snapshot, name: &str) -> Vec<EndState> {
    let id = obj(snap, name);
    plan.outcomes
        .iter()
        .filter(|o| o.target == id)
        .flat_map(|o| o.alternatives.iter().map(|a| a.state.clone()))
        .collect()
}

/// The other end states with the ownerReference UIDs each leaves.
fn alternatives_with_refs(plan: &Plan, snap: &Snapshot, name: &str) -> Vec<(EndState, Vec<Sym>)> {
    let id = obj(snap, name);
    plan.outcomes
        .iter()
        .filter(|o| o.target == id)
        .flat_map(|o| o.alternatives.iter())
        .map(|a| (a.state.clone(), a.owner_refs.clone()))
        .collect()
}

/// Every end state of `name` with the ownerReference UIDs each leaves: the plan's order's
/// first, then the alternatives.
fn ends_with_refs(plan: &Plan, snap: &Snapshot, name: &str) -> Vec<(EndState, Vec<Sym>)> {
    let refs_now = plan
        .end
        .owner_refs(&snap.store, obj(snap, name))
        .iter()
        .map(|x| x.uid)
        .collect();
    let mut ends = vec![(end(plan, snap, name), refs_now)];
    ends.extend(alternatives_with_refs(plan, snap, name));
    ends
}

fn deletes(plan: &Plan, snap: &Snapshot, name: &str) -> bool {
    let id = obj(snap, name);
    plan.actions
        .iter()
        .any(|a| a.target == id && a.verb == Verb::Delete)
}

fn terminating_with(snap: &Snapshot, f: &[&str]) -> EndState {
    EndState::Terminating {
        finalizers: f
            .iter()
            .map(|x| snap.store.strings.get(x).expect("interned finalizer"))
            .collect(),
    }
}

const V1_20_2: KubeVersion = KubeVersion::release(20, 2);

// ---- 1: the GC's queue order -------------------------------------------------------------

/// Case 1, as measured against the real v1.20.2 GC: a dependent of an owner being deleted with
/// the orphan policy and of a missing owner. After a start, `processTransitions` sends the
/// orphaning owner to attemptToOrphan at once and `orphanDependents` removes its reference in
/// the first round trip; the dependent reaches `attemptToDeleteItem` only after its missing
/// owner's virtual node was verified absent and the virtual delete event processed
/// (`processGraphChanges`), by which time its only reference left is dangling: deleted (the
/// order the GC takes when nothing races; the real v1.20.2 GC deleted it in every run).
#[test]
fn queue_order_orphaned_dependent_of_a_missing_owner_is_deleted_after_a_start() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "orphaning", "u-a")
        .deleting()
        .finalizers(&["orphan"]);
    c.obj("v1", "Secret", "ns", "dependent", "u-d")
        .owner("v1", "ConfigMap", "orphaning", "u-a")
        .owner("v1", "ConfigMap", "ghost", "u-ghost");
    let s = c.build();
    let gc = GarbageCollector::new(&s, V1_20_2);
    let r = restart::predict(&gc);
    assert_eq!(end(&r.plan, &s, "dependent"), EndState::Deleted);
    // The orphan PATCH leads by one round trip only, and nothing upstream orders the two
    // workers (a start fills both queues at once): held back, it lands after the dependent's
    // evaluation, which then strips the dangling reference and keeps it. The plan says so.
    assert_eq!(alternatives(&r.plan, &s, "dependent"), vec![EndState::Kept]);
    assert_eq!(end(&r.plan, &s, "orphaning"), EndState::Deleted);
    // An order-dependent object is never acted on by the plan (collect --apply).
    assert!(!deletes(&r.plan, &s, "dependent"));
}

/// Case 1's false deletions: a dependent that names an orphaning owner by UID with the wrong
/// kind is queued by the add event (`addDependentToOwners`: coordinates disagree with the
/// observed owner) and at the same time `attemptToOrphanWorker` patches the reference away.
/// The orphan patch is one round trip; the dependent's evaluation needs three (GET it, GET the
/// owner, DELETE), so the patch lands first and the dependent survives (the real GC, every
/// run). Nothing upstream orders the two workers, so the plan says so: kept, or deleted, and no
/// DELETE in its actions.
#[test]
fn queue_order_orphan_patch_lands_before_the_delete_of_a_wrong_kind_dependent() {
    let mut c = Cluster::new();
    c.obj("v1", "Secret", "ns", "orphaning", "u-a")
        .deleting()
        .finalizers(&["orphan"]);
    c.obj("v1", "ConfigMap", "ns", "dependent", "u-d")
        .owner("v1", "ConfigMap", "orphaning", "u-a")
        .block(true);
    let s = c.build();
    let gc = GarbageCollector::new(&s, V1_20_2);
    for plan in [restart::predict(&gc).plan, Plan::steady_state(&gc)] {
        assert_eq!(end(&plan, &s, "dependent"), EndState::Kept);
        assert!(!deletes(&plan, &s, "dependent"), "{:?}", plan.actions);
        assert_eq!(
            alternatives(&plan, &s, "dependent"),
            vec![EndState::Deleted],
            "order-dependent"
        );
        assert_eq!(end(&plan, &s, "orphaning"), EndState::Deleted);
        // The orphan finalizer's removal is planned only with the dependent's orphan patch
        // before it: alone, it runs ahead of the GC (and `--apply` refuses it, the dependent
        // still referencing the owner), so an apply could never converge.
        let (owner, dependent) = (obj(&s, "orphaning"), obj(&s, "dependent"));
        let has = |target: ObjId, verb: Verb| {
            plan.actions
                .iter()
                .any(|a| a.target == target && a.verb == verb)
        };
        assert!(
            !has(owner, Verb::RemoveFinalizer) || has(dependent, Verb::RemoveOwnerReferences),
            "{:?}",
            plan.actions
        );
    }
}

// ---- 2: unmonitored owners that exist ----------------------------------------------------

/// An `events.k8s.io` Event (not monitored from v1.25, #110888) is a virtual node when it is
/// referenced as an owner. `attemptToDeleteWorker` runs the full `attemptToDeleteItem` on
/// every poll of a virtual node: the GET finds the Event, its own ownerReferences are
/// classified, none is solid, so the GC deletes it; the next poll 404s, the virtual delete
/// event enqueues its dependents, which are now dangling.
fn event_owner(event_owner_exists: bool) -> Snapshot {
    let mut c = Cluster::new();
    c.resource("events.k8s.io", "v1", "Event", "events", true);
    if event_owner_exists {
        c.obj("v1", "Pod", "ns", "pod", "u-pod");
    }
    c.obj("events.k8s.io/v1", "Event", "ns", "ev", "u-ev")
        .owner("v1", "Pod", "pod", "u-pod");
    c.obj("v1", "ConfigMap", "ns", "dependent", "u-d").owner(
        "events.k8s.io/v1",
        "Event",
        "ev",
        "u-ev",
    );
    c.build()
}

#[test]
fn unmonitored_owner_without_a_solid_owner_is_deleted_by_the_virtual_node_poll() {
    let s = event_owner(false);
    let gc = GarbageCollector::new(&s, KubeVersion::release(25, 0));
    for plan in [restart::predict(&gc).plan, Plan::steady_state(&gc)] {
        assert_eq!(end(&plan, &s, "ev"), EndState::Deleted);
        assert_eq!(end(&plan, &s, "dependent"), EndState::Deleted);
    }
    // With its own owner alive, the poll finds nothing to do: both stay.
    let s = event_owner(true);
    let gc = GarbageCollector::new(&s, KubeVersion::release(25, 0));
    for plan in [restart::predict(&gc).plan, Plan::steady_state(&gc)] {
        assert_eq!(end(&plan, &s, "ev"), EndState::Kept);
        assert_eq!(end(&plan, &s, "dependent"), EndState::Kept);
    }
}

// ---- 3: core Events before 1.25 ----------------------------------------------------------

/// Until #110888 (v1.25) the GC ignores only core `""/events`; the same stored Events are served
/// and monitored as `events.k8s.io` events (`GetDeletableResources` minus the ignored list), so
/// an Event whose owner is gone is collected (`attemptToDeleteItem` row 10). A file input lists
/// them as core `v1` only.
#[test]
fn core_event_with_a_missing_owner_is_collected_before_1_25_only() {
    let mut c = Cluster::new();
    c.obj("v1", "Event", "ns", "ev", "u-ev")
        .owner("v1", "Pod", "gone", "u-gone");
    let s = c.build();
    for (v, expected) in [
        (KubeVersion::release(24, 17), EndState::Deleted),
        (KubeVersion::release(25, 0), EndState::Kept),
    ] {
        let gc = GarbageCollector::new(&s, v);
        assert_eq!(end(&Plan::steady_state(&gc), &s, "ev"), expected, "GC {v}");
    }
}

// ---- 5: apiVersion "/v1" -----------------------------------------------------------------

/// `schema.ParseGroupVersion("/v1")` is core v1 (the REST mapping succeeds and the API server
/// accepts the reference): an existing owner named that way is solid, a missing one dangling.
#[test]
fn slash_v1_parses_as_core_v1() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "owner", "u-o");
    c.obj("v1", "Secret", "ns", "kept", "u-k")
        .owner("/v1", "ConfigMap", "owner", "u-o");
    c.obj("v1", "Secret", "ns", "orphan", "u-x")
        .owner("/v1", "ConfigMap", "gone", "u-gone");
    let s = c.build();
    let gc = GarbageCollector::new(&s, V1_20_2);
    let plan = Plan::steady_state(&gc);
    assert_eq!(end(&plan, &s, "kept"), EndState::Kept);
    assert_eq!(end(&plan, &s, "orphan"), EndState::Deleted);
}

/// When the `/v1` owner is already gone at a start, its virtual node carries the identity
/// `/v1`, but `enqueueVirtualDeleteEvent` rebuilds the event's group version with
/// `ParseGroupVersion`, so the virtual delete says `v1`: `processGraphChanges` finds the
/// identities differ and `partitionDependents` matches no dependent, so the virtual node is
/// kept and the dependent is never enqueued (stranded).
#[test]
fn slash_v1_owner_gone_at_a_start_strands_its_dependent() {
    let mut c = Cluster::new();
    c.obj("v1", "Secret", "ns", "dependent", "u-d")
        .owner("/v1", "ConfigMap", "gone", "u-gone");
    let s = c.build();
    let gc = GarbageCollector::new(&s, V1_20_2);
    let r = restart::predict(&gc);
    assert_eq!(end(&r.plan, &s, "dependent"), EndState::Kept);
    let d = obj(&s, "dependent");
    assert!(r.stranded.iter().any(|x| x.object == d), "{:?}", r.stranded);
    // Not because the reference is unusable: a GC that was running when the owner went (it
    // observed the owner, so its delete event carries the informer's "v1") collects it.
    assert_eq!(
        end(&Plan::steady_state(&gc), &s, "dependent"),
        EndState::Deleted
    );
    // The same dependent with "v1" is collected.
    let mut c = Cluster::new();
    c.obj("v1", "Secret", "ns", "dependent", "u-d")
        .owner("v1", "ConfigMap", "gone", "u-gone");
    let s = c.build();
    let gc = GarbageCollector::new(&s, V1_20_2);
    assert_eq!(
        end(&restart::predict(&gc).plan, &s, "dependent"),
        EndState::Deleted
    );
}

// ---- 6: resources without GC policies ----------------------------------------------------

/// Events use `rest.Unsupported` as their delete strategy: `BeforeDelete` adds no orphan or
/// foregroundDeletion finalizer whatever the propagation policy, so the Event is gone at once.
#[test]
fn event_delete_with_a_propagation_policy_is_immediate() {
    let mut c = Cluster::new();
    c.obj("v1", "Event", "ns", "ev", "u-ev");
    let s = c.build();
    let gc = GarbageCollector::new(&s, KubeVersion::v1(28));
    for policy in [Policy::Foreground, Policy::Orphan, Policy::Background] {
        let plan = Plan::preview_delete(
            &gc,
            UserDelete {
                target: obj(&s, "ev"),
                policy: Some(policy),
            },
        );
        assert_eq!(end(&plan, &s, "ev"), EndState::Deleted, "{policy:?}");
    }
}

// ---- 7: namespaces -----------------------------------------------------------------------

/// A deleted Namespace keeps its `kubernetes` spec finalizer until the namespace controller has
/// deleted everything in it; content held by a finalizer keeps the namespace terminating.
#[test]
fn deleted_namespace_stays_terminating_while_its_content_is_deleted() {
    let mut c = Cluster::new();
    c.obj("v1", "Namespace", "", "team", "u-ns");
    c.obj("v1", "ConfigMap", "team", "cm", "u-cm");
    c.obj("v1", "Secret", "team", "held", "u-s")
        .finalizers(&["example.com/hold"]);
    c.obj("v1", "ConfigMap", "other", "elsewhere", "u-e");
    let s = c.build();
    let gc = GarbageCollector::new(&s, KubeVersion::v1(28));
    let plan = Plan::preview_delete(
        &gc,
        UserDelete {
            target: obj(&s, "team"),
            policy: None,
        },
    );
    assert_eq!(end(&plan, &s, "cm"), EndState::Deleted);
    assert_eq!(
        end(&plan, &s, "held"),
        terminating_with(&s, &["example.com/hold"])
    );
    assert!(matches!(
        end(&plan, &s, "team"),
        EndState::Terminating { .. }
    ));
    assert_eq!(end(&plan, &s, "elsewhere"), EndState::Kept);
    // Without the held Secret the namespace goes once it is empty.
    let mut c = Cluster::new();
    c.obj("v1", "Namespace", "", "team", "u-ns");
    c.obj("v1", "ConfigMap", "team", "cm", "u-cm");
    let s = c.build();
    let gc = GarbageCollector::new(&s, KubeVersion::v1(28));
    let plan = Plan::preview_delete(
        &gc,
        UserDelete {
            target: obj(&s, "team"),
            policy: None,
        },
    );
    assert_eq!(end(&plan, &s, "cm"), EndState::Deleted);
    assert_eq!(end(&plan, &s, "team"), EndState::Deleted);
}

/// An operator's Namespace whose owner is gone is garbage (`attemptToDeleteItem` row 10): the
/// GC's DELETE starts the namespace deletion and the namespace controller takes its content.
/// (A cluster-scoped owner kind: from v1.20 a namespaced one makes the Namespace dropped.)
#[test]
fn namespace_with_a_missing_owner_takes_its_content_with_it() {
    let mut c = Cluster::new();
    c.obj("v1", "Namespace", "", "tenant", "u-ns")
        .owner("v1", "Node", "gone", "u-gone");
    c.obj("v1", "ConfigMap", "tenant", "cm", "u-cm");
    let s = c.build();
    let gc = GarbageCollector::new(&s, KubeVersion::v1(28));
    let plan = Plan::steady_state(&gc);
    assert_eq!(end(&plan, &s, "cm"), EndState::Deleted);
    assert_eq!(end(&plan, &s, "tenant"), EndState::Deleted);
}

// ---- 3: owners evaluated because a dependent was listed first ------------------------------

/// Live differential, seed 1, forest 77 (a CI run of the real v1.20.2 GC): `held` names the
/// orphaning `owner`, and is itself named by `child`, in foreground deletion. The informers'
/// first list comes in no fixed order (the API server's watch cache is a map), so `child` can
/// be added before `held`: `addDependentToOwners` makes `held` a virtual node and queues it,
/// `held`'s own add event marks that node observed in place, and `attemptToDeleteWorker` runs
/// the full `attemptToDeleteItem` on `held`. Its GET can come before the orphan PATCH that
/// removes its reference, and its GET of `owner` after `attemptToOrphanWorker` removed the
/// finalizer: `owner` is gone, the reference dangling, and `held` is deleted (terminating under
/// its own finalizer, the reference already patched away). In the other orders `held` is kept.
#[test]
fn an_owner_listed_after_its_dependent_races_the_orphaning_of_its_own_owner() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "owner", "u-owner")
        .deleting()
        .finalizers(&["orphan"])
        .owner("v1", "ConfigMap", "ghost", "u-ghost")
        .block(false);
    c.obj("v1", "ConfigMap", "ns", "held", "u-held")
        .finalizers(&["example.com/hold"])
        .owner("v1", "ConfigMap", "owner", "u-owner")
        .block(true);
    c.obj("v1", "ConfigMap", "ns", "child", "u-child")
        .deleting()
        .finalizers(&["foregroundDeletion"])
        .owner("v1", "ConfigMap", "held", "u-held")
        .controller(true);
    c.obj("v1", "ConfigMap", "ns", "sibling", "u-sibling")
        .owner("v1", "ConfigMap", "owner", "u-owner");
    let s = c.build();
    let gc = GarbageCollector::new(&s, V1_20_2);
    let r = restart::predict(&gc);
    assert_eq!(end(&r.plan, &s, "held"), EndState::Kept);
    assert_eq!(
        alternatives(&r.plan, &s, "held"),
        vec![terminating_with(&s, &["example.com/hold"])],
        "order-dependent"
    );
    assert!(!deletes(&r.plan, &s, "held"));
    assert_eq!(end(&r.plan, &s, "owner"), EndState::Deleted);
    assert_eq!(end(&r.plan, &s, "child"), EndState::Deleted);
}

/// Live differential, seed 11, forest 957 (1,000 forests): `owner` is in foreground deletion,
/// held there by `blocker` (a blocking dependent that its own finalizer keeps). `quiet` refers
/// to it without blocking. When the informers deliver `owner` first, its add event
/// (`processTransitions`) queues no dependent, `processDeletingDependentsItem` queues only the
/// blocking one, and `quiet` is never evaluated: kept. When they deliver every dependent first,
/// the add event queues them all and `quiet`, whose only owner is waiting for its dependents,
/// is deleted (row 10), as the real v1.20.2 GC did. Both dependents name the owner with the
/// same identity, so "one dependent first" alone does not cover it: the one with that
/// identity first in snapshot order is `blocker`.
#[test]
fn every_dependent_listed_before_an_owner_in_foreground_deletion_is_queued() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "blocker", "u-blocker")
        .deleting()
        .finalizers(&["example.com/hold"])
        .owner("v1", "Secret", "owner", "u-owner")
        .block(true);
    c.obj("v1", "Secret", "ns", "owner", "u-owner")
        .deleting()
        .finalizers(&["example.com/hold", "foregroundDeletion"])
        .owner("v1", "ConfigMap", "ghost", "u-ghost")
        .block(true);
    c.obj("v1", "Secret", "ns", "quiet", "u-quiet")
        .owner("v1", "Secret", "owner", "u-owner");
    let s = c.build();
    let gc = GarbageCollector::new(&s, V1_20_2);
    let r = restart::predict(&gc);
    assert_eq!(end(&r.plan, &s, "quiet"), EndState::Kept);
    assert_eq!(
        alternatives(&r.plan, &s, "quiet"),
        vec![EndState::Deleted],
        "order-dependent"
    );
    assert!(!deletes(&r.plan, &s, "quiet"));
    assert_eq!(
        end(&r.plan, &s, "owner"),
        terminating_with(&s, &["example.com/hold", "foregroundDeletion"])
    );
}

/// Live differential, seed 1, 1,000 forests (forest 984): `held` names `owner` (in foreground
/// deletion, not blocked by it) and a missing owner. `held` is queued by `owner`'s add event
/// and evaluated while `owner` still waits (row 10: DELETE, its own finalizer keeps it); the
/// missing owner's virtual delete event queues it again meanwhile. Row 1 of that second
/// evaluation reads the graph, which may not have `held`'s update event yet (the worker has
/// the DELETE's response before the graph builder has the watch event): it goes on with live
/// data, finds `owner` solid (its `foregroundDeletion` gone) and strips the dangling
/// reference. The real v1.20.2 GC left `held` terminating with only `owner`'s reference.
#[test]
fn a_row_1_check_can_read_a_graph_that_lags_behind_the_gcs_own_delete() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "owner", "u-owner")
        .deleting()
        .finalizers(&["example.com/hold", "foregroundDeletion"])
        .owner("v1", "Secret", "ghost", "u-ghost")
        .block(false);
    c.obj("v1", "ConfigMap", "ns", "held", "u-held")
        .finalizers(&["example.com/hold"])
        .owner("v1", "ConfigMap", "owner", "u-owner")
        .controller(true)
        .owner("v1", "Secret", "ghost", "u-ghost");
    let s = c.build();
    let gc = GarbageCollector::new(&s, V1_20_2);
    let r = restart::predict(&gc);
    let sym = |x: &str| s.store.strings.get(x).expect("interned");
    let held = alternatives_with_refs(&r.plan, &s, "held");
    assert!(
        held.contains(&(
            terminating_with(&s, &["example.com/hold"]),
            vec![sym("u-owner")]
        )),
        "{held:?}"
    );
    assert!(!deletes(&r.plan, &s, "held"));
    assert_eq!(
        end(&r.plan, &s, "owner"),
        terminating_with(&s, &["example.com/hold"])
    );
}

/// Live differential, seed 3, 1,000 forests (forests 663 and 794): `owner` and `held` both
/// name a missing owner, and `held` names `owner` too. The missing owner's virtual delete
/// event queues both at once, and two workers take them side by side: `owner` is deleted
/// (its only reference dangling) and `held`'s GET of `owner` may come before that DELETE or
/// after it. Before: `owner` is solid, the dangling reference is stripped, and `held` is
/// deleted only when `owner`'s delete event queues it again (the real v1.20.2 GC: terminating
/// with `owner`'s reference left). After: both references dangle and `held` is deleted with
/// both. Items of one causal chain race each other too.
#[test]
fn two_items_queued_by_one_event_race_each_other() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "owner", "u-owner")
        .owner("v1", "ConfigMap", "ghost", "u-ghost");
    c.obj("v1", "ConfigMap", "ns", "held", "u-held")
        .finalizers(&["example.com/hold"])
        .owner("v1", "ConfigMap", "ghost", "u-ghost")
        .block(true)
        .owner("v1", "ConfigMap", "owner", "u-owner")
        .block(true);
    let s = c.build();
    let gc = GarbageCollector::new(&s, V1_20_2);
    let r = restart::predict(&gc);
    let sym = |x: &str| s.store.strings.get(x).expect("interned");
    let mut ends = ends_with_refs(&r.plan, &s, "held");
    ends.sort_by_key(|e| e.1.len());
    let terminating = terminating_with(&s, &["example.com/hold"]);
    assert_eq!(
        ends,
        vec![
            (terminating.clone(), vec![sym("u-owner")]),
            (terminating, vec![sym("u-ghost"), sym("u-owner")]),
        ]
    );
    assert_eq!(end(&r.plan, &s, "owner"), EndState::Deleted);
}

/// Live differential, seed 5, 1,000 forests (forest 673): `f0` is in foreground deletion and
/// names a missing Secret; `f1` blocks `f0`; `held` names the missing Secret and `f1`; `x`, in
/// another namespace, names `f1` (the GC checks it at once: `OwnerRefInvalidNamespace`); `f4`
/// is orphaning and names both. Every informer order has more races in this one component
/// than are flipped one by one. Before, they were all held back at once, and in that run
/// `f1`'s foreground DELETE still comes before `held`'s GET of `f1`: `held` was always deleted
/// with both references. The real v1.20.2 GC read `f1` first, stripped the dangling reference,
/// and deleted `held` once `f1` was waiting for its dependents: terminating with only `f1`'s
/// reference. Now each chain that got somewhere first is held back on its own in one re-run.
#[test]
fn a_chain_is_held_back_on_its_own_when_a_component_has_many_races() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "b", "f0", "u-f0")
        .deleting()
        .finalizers(&["foregroundDeletion"])
        .owner("v1", "Secret", "ghost", "u-ghost");
    c.obj("v1", "ConfigMap", "b", "f1", "u-f1")
        .owner("v1", "ConfigMap", "f0", "u-f0")
        .block(true);
    c.obj("v1", "ConfigMap", "b", "held", "u-held")
        .finalizers(&["example.com/hold"])
        .owner("v1", "Secret", "ghost", "u-ghost")
        .block(true)
        .owner("v1", "ConfigMap", "f1", "u-f1");
    c.obj("v1", "ConfigMap", "a", "x", "u-x")
        .owner("v1", "ConfigMap", "f1", "u-f1")
        .block(true);
    c.obj("v1", "ConfigMap", "b", "f4", "u-f4")
        .deleting()
        .finalizers(&["orphan"])
        .owner("v1", "Secret", "ghost", "u-ghost")
        .owner("v1", "ConfigMap", "f0", "u-f0");
    let s = c.build();
    let gc = GarbageCollector::new(&s, V1_20_2);
    let r = restart::predict(&gc);
    let sym = |x: &str| s.store.strings.get(x).expect("interned");
    let terminating = terminating_with(&s, &["example.com/hold"]);
    assert_eq!(end(&r.plan, &s, "held"), terminating);
    let held = alternatives_with_refs(&r.plan, &s, "held");
    assert!(held.contains(&(terminating, vec![sym("u-f1")])), "{held:?}");
    assert_eq!(end(&r.plan, &s, "x"), EndState::Deleted);
}

/// Live differential, seed 5, 1,000 forests (forest 827), GC 1.20.2: `f1` names `f0` with the
/// wrong kind, `f2` names it right, and both (with `f0`) name a missing `ghost`, which a
/// cluster-scoped, orphaning `cr` names too. When the informers deliver `f1` before `f2` and
/// `f2` before `f0`, `f1`'s reference makes `f0`'s virtual node a Secret and `f2` is queued
/// for disagreeing with it (`addDependentToOwners`). If `cr` came first too, `ghost`'s virtual
/// node has no namespace and is never verified (kubernetes#98040), so nothing else queues `f0`:
/// `f2` strips its dangling reference to `ghost` while `f0` is solid, and stays. Before, every
/// dependent came before the owner only for an owner in foreground deletion, and no order
/// left `f2` kept with only `f0`'s reference, the real v1.20.2 GC's end state.
#[test]
fn a_dependent_delivered_between_a_wrong_kind_sibling_and_the_owner_is_checked_against_it() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "c", "f0", "u-f0")
        .owner("v1", "ConfigMap", "ghost", "u-ghost")
        .block(true);
    c.obj("v1", "Secret", "c", "f1", "u-f1")
        .owner("v1", "Secret", "f0", "u-f0")
        .block(true);
    c.obj("v1", "Secret", "c", "f2", "u-f2")
        .owner("v1", "ConfigMap", "f0", "u-f0")
        .controller(true)
        .owner("v1", "ConfigMap", "ghost", "u-ghost");
    c.obj(
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        "",
        "cr",
        "u-cr",
    )
    .deleting()
    .finalizers(&["orphan"])
    .owner("v1", "Secret", "f2", "u-f2")
    .block(false)
    .owner("v1", "ConfigMap", "ghost", "u-ghost")
    .controller(true);
    let s = c.build();
    let gc = GarbageCollector::new(&s, V1_20_2);
    let r = restart::predict(&gc);
    let sym = |x: &str| s.store.strings.get(x).expect("interned");
    let f2 = alternatives_with_refs(&r.plan, &s, "f2");
    assert!(f2.contains(&(EndState::Kept, vec![sym("u-f0")])), "{f2:?}");
    assert_eq!(end(&r.plan, &s, "f1"), EndState::Deleted);
}

/// Live differential, seed 5, 1,000 forests (forest 702), GC 1.20.2: `f1` is in foreground
/// deletion, `f2` is its only dependent, `f3` names `f2` and a missing `ghost`, `f4` (held by
/// a finalizer) blocks `f3` and names `f2` with a wrong name. When `f2` is listed before `f1`,
/// `f1`'s add event queues `f2`, which reads `f1` still waiting and deletes itself in the
/// foreground (row 9). The real v1.20.2 GC sent that DELETE just after `f3` read `f2`, though
/// `f2`'s GET of `f1` came before `f1`'s finalizer was removed: `f3` stripped `ghost` while
/// `f2` was solid, then saw `f2` waiting and was deleted in the foreground itself, held by
/// `f4`. Between two chains only a whole chain was held back, and holding `f2`'s chain back
/// also made it read `f1` gone (a background delete): now the write alone can be late.
#[test]
fn a_write_can_land_after_another_chains_read_while_its_own_reads_keep_their_time() {
    let mut c = Cluster::new();
    c.obj(
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        "",
        "cr0",
        "u-cr0",
    );
    c.obj("v1", "ConfigMap", "a", "f1", "u-f1")
        .deleting()
        .finalizers(&["foregroundDeletion"])
        .owner(
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            "cr0",
            "u-cr0",
        )
        .owner("v1", "ConfigMap", "ghost", "u-ghost")
        .block(true);
    c.obj("v1", "Secret", "a", "f2", "u-f2")
        .owner("v1", "ConfigMap", "f1", "u-f1")
        .block(false);
    c.obj("v1", "Secret", "a", "f3", "u-f3")
        .owner("v1", "Secret", "f2", "u-f2")
        .controller(true)
        .owner("v1", "ConfigMap", "ghost", "u-ghost");
    c.obj("v1", "ConfigMap", "a", "f4", "u-f4")
        .finalizers(&["example.com/hold"])
        .owner("v1", "Secret", "f2-renamed", "u-f2")
        .owner("v1", "Secret", "f3", "u-f3")
        .block(true)
        .controller(true);
    let s = c.build();
    let gc = GarbageCollector::new(&s, V1_20_2);
    let r = restart::predict(&gc);
    let sym = |x: &str| s.store.strings.get(x).expect("interned");
    let f3 = ends_with_refs(&r.plan, &s, "f3");
    assert!(
        f3.contains(&(
            terminating_with(&s, &["foregroundDeletion"]),
            vec![sym("u-f2")]
        )),
        "{f3:?}"
    );
}

// ---- the row-9 cycle guard with mixed dependents ------------------------------------------

/// The cluster of the live `check::cycle_guard_with_mixed_dependents_matches_the_gc`: `a` is
/// deleted in the foreground; its dependent `b` (blocking) has two dependents of its own, `c`
/// in foreground deletion (held there by `e`, which a custom finalizer keeps) and the plain
/// `d`. attemptToDeleteItem(b) takes row 9, and because *one* of b's dependents is
/// deletingDependents (garbagecollector.go: the loop over `item.getDependents()` breaks on the
/// first `isDeletingDependents`) it first sends the unblockOwnerReferences patch, so `a`, no
/// longer blocked, loses `foregroundDeletion` and goes while `b` waits for `c`.
pub(crate) fn cycle_guard_mixed_dependents() -> Snapshot {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "a", "u-a")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "ConfigMap", "ns", "b", "u-b")
        .owner("v1", "ConfigMap", "a", "u-a")
        .block(true);
    c.obj("v1", "ConfigMap", "ns", "c", "u-c")
        .owner("v1", "ConfigMap", "b", "u-b")
        .block(true)
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "ConfigMap", "ns", "d", "u-d")
        .owner("v1", "ConfigMap", "b", "u-b")
        .block(true);
    c.obj("v1", "ConfigMap", "ns", "e", "u-e")
        .owner("v1", "ConfigMap", "c", "u-c")
        .block(true)
        .finalizers(&["example.com/hold"]);
    c.build()
}

/// The promise: the cycle guard fires when *any* dependent is deletingDependents, not only when
/// all are (a `.all` here keeps `a` terminating for as long as `c` is held). Pinned on both
/// plans at v1.20.2, as the real GC ended it live.
#[test]
fn cycle_guard_fires_when_any_of_mixed_dependents_is_deleting_dependents() {
    let snap = cycle_guard_mixed_dependents();
    let a = GarbageCollector::new(&snap, V1_20_2);
    let restart = restart::predict(&a).plan;
    let steady = Plan::steady_state(&a);
    for (name, plan) in [("restart", &restart), ("steady state", &steady)] {
        let unblocked: Vec<ObjId> = plan
            .actions
            .iter()
            .filter(|x| x.verb == Verb::UnblockOwnerReferences)
            .map(|x| x.target)
            .collect();
        assert_eq!(unblocked, [obj(&snap, "b")], "{name}: {:#?}", plan.actions);
        assert_eq!(end(plan, &snap, "a"), EndState::Deleted, "{name}");
        assert_eq!(
            end(plan, &snap, "b"),
            terminating_with(&snap, &["foregroundDeletion"]),
            "{name}"
        );
        assert_eq!(
            end(plan, &snap, "c"),
            terminating_with(&snap, &["foregroundDeletion"]),
            "{name}"
        );
        assert_eq!(end(plan, &snap, "d"), EndState::Deleted, "{name}");
        assert_eq!(
            end(plan, &snap, "e"),
            terminating_with(&snap, &["example.com/hold"]),
            "{name}"
        );
        for x in ["a", "b", "c", "d", "e"] {
            assert!(alternatives(plan, &snap, x).is_empty(), "{name}: {x}");
        }
        // b keeps its reference to a, no longer blocking.
        let id = obj(&snap, "b");
        let refs = plan.end.owner_refs(&snap.store, id);
        assert_eq!(refs.len(), 1, "{name}");
        assert_ne!(refs[0].block_owner_deletion, Some(true), "{name}");
    }
}
