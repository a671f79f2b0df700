//! The plan's driver: the simulation run in the GC's race-free order, then in every informer
//! order ([`super::orders`]) and with every race's first chain held back, and the runs merged
//! into a [`Plan`]: end states that differ are order-dependent [`Alternative`]s, and only the
//! requests every order makes stay in the plan's actions. The report types it fills are in
//! [`super`]; `flips.rs` makes the re-runs that hold races back, `merge.rs` merges the runs.

mod flips;
mod merge;

use super::orders::{Components, Orders, informer_choices};
use super::{Alternative, OpenOrder, Plan};
use crate::gc::GarbageCollector;
use crate::gc::simulation::{self, Delays, MayAct, Race, Run, Scope, Start, Unquiet};
use crate::model::ObjId;
use flips::{FlipSets, Flipped, MAX_RACE_RUNS, RaceKey, flip, per_chain, race_key};
use merge::{Signature, fate, plan_from, signature};
use std::collections::{BTreeMap, HashSet};

/// Where a steady-state plan gets the objects that are not quiet, when asked; `None` if it
/// cannot tell after all.
pub type UnquietSource<'a> = Box<dyn FnOnce() -> Option<Unquiet> + Send + 'a>;

/// Runs the simulation in the GC's race-free order, then in every order upstream leaves open
/// that can matter, and merges the outcomes.
///
/// `unquiet`, for a steady state, hands over the objects that are not quiet
/// ([`simulation::Unquiet`]) when the primary run's scope needs them; `None` from it, or no
/// `unquiet`, and they are worked out here.
pub(super) fn simulate(
    gc: &GarbageCollector<'_>,
    start: Start,
    unquiet: Option<UnquietSource<'_>>,
) -> Plan {
    let clock = std::time::Instant::now();
    let store = &gc.snap.store;
    let initial = gc.initial_state();
    let choices = informer_choices(gc, &initial, start);
    let target = match start {
        Start::UserDelete(u) => Some(u.target.0),
        _ => None,
    };
    let mut comps: Option<Components> = None;
    let orders = if choices.is_empty() {
        Orders {
            groups: Vec::new(),
            group_runs: Vec::new(),
            runs: 1,
        }
    } else {
        Orders::new(
            gc,
            &choices,
            comps.get_or_insert_with(|| Components::new(gc, target)),
        )
    };
    let none = Delays::default();
    let primary_delivery = orders.delivery(&choices, 0);
    // In a steady state the primary run covers only the components where anything can happen
    // (most of a healthy cluster is left as it is): on the 1M-object bench, building the whole
    // graph was most of the run. The tests check every such run against the whole one. The
    // scope needs to know which objects are not quiet: when the caller is working that out
    // (the audit classifies every reference anyway), it comes after the informer orders' runs,
    // which do not need it.
    let deferred = start == Start::SteadyState && unquiet.is_some();
    let primary_scope =
        |c: &Components, unquiet: Option<&Unquiet>, early: Option<&MayAct>| match start {
            Start::SteadyState => {
                let scope = steady_state_scope(gc, &initial, unquiet, early, &choices, c);
                #[cfg(test)]
                same_as_whole(gc, start, &primary_delivery, &initial, &scope);
                (scope.members().len() <= store.len() / 2).then_some(scope)
            }
            _ => None,
        };
    let early_scope = if deferred {
        None
    } else {
        primary_scope(
            comps.get_or_insert_with(|| Components::new(gc, target)),
            None,
            None,
        )
    };
    let t_choices = clock.elapsed();
    // The other informer orders' runs cover only their components. They are independent of
    // one another and of the primary run, so they run beside it: on their own thread when the
    // primary run's scope is still to come (this one waits for it), otherwise the primary run
    // goes on its own thread.
    let run_primary = |scope: Option<&Scope>| {
        simulation::run(gc, start, &primary_delivery, &none, scope, &initial)
    };
    // The `k`-th informer order's run, over the components that have a `k`-th order.
    let informer_run = |c: &Components, k: usize| {
        let seeds: Vec<u32> = orders
            .groups
            .iter()
            .zip(&orders.group_runs)
            .filter(|&(_, &n)| n > k)
            .flat_map(|(g, _)| g.iter())
            .filter_map(|&i| gc.graph.uid_to_node(choices[i].uid).map(|n| n.0))
            .chain(target)
            .collect();
        let scope = c.scope(gc, seeds);
        let run = simulation::run(
            gc,
            start,
            &orders.delivery(&choices, k),
            &none,
            Some(&scope),
            &initial,
        );
        (run, scope)
    };
    // Orders 1.. are taken one at a time by whichever thread is free: the one that ran the
    // primary run joins in once it is done, rather than wait for the other to finish them.
    let next_order = Shared::from(1);
    let informer_runs = |c: &Components| next_order.take_all(orders.runs, |k| informer_run(c, k));
    let c = comps.get_or_insert_with(|| Components::new(gc, target));
    let (primary, runs) = std::thread::scope(|threads| {
        let spawn = |name: &str| std::thread::Builder::new().name(name.into());
        if deferred {
            let beside = (orders.runs > 1)
                .then(|| spawn("informer-runs").spawn_scoped(threads, || informer_runs(c)))
                .and_then(Result::ok);
            // What does not depend on the caller's set is worked out while it is made.
            let early = MayAct::regardless_of_quiet(gc, &initial);
            // The caller's set, or (if it gave up) the same set worked out here.
            let given = unquiet.and_then(|give| give());
            let primary = run_primary(primary_scope(c, given.as_ref(), Some(&early)).as_ref());
            let mut runs = informer_runs(c);
            if let Some(handle) = beside {
                runs.extend(crate::util::join(handle));
            }
            (primary, runs)
        } else {
            let beside = (orders.runs > 1)
                .then(|| {
                    spawn("primary-run").spawn_scoped(threads, || {
                        (run_primary(early_scope.as_ref()), informer_runs(c))
                    })
                })
                .and_then(Result::ok);
            let mut runs = informer_runs(c);
            let primary = match beside {
                Some(handle) => {
                    let (primary, theirs) = crate::util::join(handle);
                    runs.extend(theirs);
                    primary
                }
                None => run_primary(early_scope.as_ref()),
            };
            (primary, runs)
        }
    });
    let mut raced: Vec<(usize, Vec<Race>)> = Vec::new();
    let mut others: Vec<(Run, Scope, OpenOrder)> = Vec::new();
    for (k, (run, scope)) in Shared::in_order(runs) {
        if !run.races.is_empty() {
            raced.push((k, run.races.clone()));
        }
        others.push((run, scope, OpenOrder::Informers));
    }
    let t_primary = clock.elapsed();
    // The primary run's races come first, as when the runs were made one after the other.
    if !primary.races.is_empty() {
        raced.insert(0, (0, primary.races.clone()));
    }
    // Races: re-run with the chain that got there first held back. Races of different
    // components cannot interact, so round `r` takes the `r`-th race of every component (a
    // component with more races than rounds has them all held back at once). A re-run can
    // uncover races of its own (a reader held back now reads after another write too): those
    // are flipped once more, on top of what the re-run held back in their component, and no
    // further; batched across the re-runs of one informer order the same way.
    let c = comps.get_or_insert_with(|| Components::new(gc, target));
    let rerun = |k: usize, delays: &Delays, scope: &Scope| {
        simulation::run(
            gc,
            start,
            &orders.delivery(&choices, k),
            delays,
            Some(scope),
            &initial,
        )
    };
    let (mut level1, mut level2) = (0, 0);
    for (k, races) in raced {
        let known: HashSet<RaceKey> = races.iter().map(race_key).collect();
        let mut sets = FlipSets::new();
        for r in races {
            sets.entry(c.find(r.object.0)).or_default().push(vec![r]);
        }
        for v in sets.values_mut() {
            if v.len() > MAX_RACE_RUNS {
                *v = per_chain(v.concat());
            }
        }
        let mut uncovered = FlipSets::new();
        for Flipped { run, scope, held } in flip(gc, c, target, &sets, |d, s| rerun(k, d, s)) {
            level1 += 1;
            for r in &run.races {
                let comp = c.find(r.object.0);
                let Some(set) = held.get(&comp) else { continue };
                if known.contains(&race_key(r)) || set.iter().any(|h| race_key(h) == race_key(r)) {
                    continue;
                }
                let list = uncovered.entry(comp).or_default();
                let mut more = set.clone();
                more.push(*r);
                if list.len() < MAX_RACE_RUNS && !list.contains(&more) {
                    list.push(more);
                }
            }
            others.push((run, scope, OpenOrder::Requests));
        }
        for Flipped { run, scope, .. } in flip(gc, c, target, &uncovered, |d, s| rerun(k, d, s)) {
            level2 += 1;
            others.push((run, scope, OpenOrder::Requests));
        }
    }
    if start == Start::SteadyState
        && let Some(delivery) = stranding_order(gc)
    {
        // Only the components of the stranded dependents can end differently.
        let c = comps.get_or_insert_with(|| Components::new(gc, target));
        let scope = c.scope(gc, delivery.unseeded.iter().map(|d| d.0));
        let run = simulation::run(gc, start, &delivery, &none, Some(&scope), &initial);
        others.push((run, scope, OpenOrder::Informers));
    }
    if std::env::var_os("KGC_SIM_STATS").is_some() {
        eprintln!(
            "simulate {start:?}: {} choices, {} informer orders, {} extra runs ({level1} flip races, {level2} flip the races those uncover); choices {:?}, primary and informer orders {:?}, all runs {:?}",
            choices.len(),
            orders.runs,
            others.len(),
            t_choices,
            t_primary - t_choices,
            clock.elapsed()
        );
    }
    // Merge.
    let mut alternatives: BTreeMap<ObjId, Vec<Alternative>> = BTreeMap::new();
    for (run, scope, order) in &others {
        for &id in scope.members() {
            let base = fate(&primary, store, id);
            let alt = fate(run, store, id);
            if alt != base {
                let list = alternatives.entry(id).or_default();
                if !list
                    .iter()
                    .any(|a| a.state == alt.0 && a.owner_refs == alt.1)
                {
                    list.push(Alternative {
                        state: alt.0,
                        owner_refs: alt.1,
                        never_evaluated: !run.evaluated[id.index()],
                        order: *order,
                    });
                }
            }
        }
    }
    // The requests on an order-dependent object that every order makes (an orphan patch that
    // lands before or after the race, say) stay in the plan: later requests (the orphan
    // finalizer's removal) rely on them. Only the ones some order does not make are left out.
    // One pass over each run's requests, not one per order-dependent object: on a snapshot
    // dense with races (thousands of such objects, a thousand runs) the passes per object
    // were a tenth of `check restart`, on one thread.
    let mut certain: BTreeMap<ObjId, Vec<Signature>> =
        alternatives.keys().map(|&id| (id, Vec::new())).collect();
    for a in &primary.actions {
        if let Some(common) = certain.get_mut(&a.target) {
            common.push(signature(a));
        }
    }
    let mut made: BTreeMap<ObjId, Vec<Signature>> = BTreeMap::new();
    for (run, scope, _) in &others {
        made.clear();
        for a in run
            .actions
            .iter()
            .filter(|a| certain.contains_key(&a.target))
        {
            made.entry(a.target).or_default().push(signature(a));
        }
        for (&id, common) in certain.iter_mut().filter(|(id, _)| scope.contains(**id)) {
            let made = made.get(&id).map_or(&[][..], Vec::as_slice);
            common.retain(|s| made.contains(s));
        }
    }
    let mut plan = plan_from(gc, primary, alternatives, &certain);
    if let Start::UserDelete(u) = start {
        plan.reached[u.target.index()] = true;
    }
    plan
}

/// The components of a steady state's primary run: those of every object the GC can act on
/// or because of ([`simulation::may_act`]), and of every UID whose informer order is chosen.
fn steady_state_scope(
    gc: &GarbageCollector<'_>,
    initial: &crate::gc::State,
    unquiet: Option<&Unquiet>,
    early: Option<&MayAct>,
    choices: &[super::orders::Choice],
    c: &Components,
) -> Scope {
    let store = &gc.snap.store;
    #[cfg(test)]
    if let Some(given) = unquiet {
        assert_eq!(*given, Unquiet::of(gc, initial), "the caller's unquiet set");
    }
    let acting: Vec<u32> = match (unquiet, early) {
        (Some(u), Some(early)) => early.with(u).iter().map(|i| i as u32).collect(),
        _ => store
            .ids()
            .filter(|&id| simulation::may_act(gc, initial, unquiet, id))
            .map(|id| id.0)
            .collect(),
    };
    #[cfg(test)]
    assert_eq!(
        acting,
        store
            .ids()
            .filter(|&id| simulation::may_act(gc, initial, None, id))
            .map(|id| id.0)
            .collect::<Vec<_>>(),
        "the objects that may act, however they were worked out"
    );
    let seeds: Vec<u32> = acting
        .into_iter()
        .chain(
            choices
                .iter()
                .filter_map(|ch| gc.graph.uid_to_node(ch.uid).map(|n| n.0)),
        )
        .collect();
    c.scope(gc, seeds)
}

/// Checks that the primary run on `scope` does what the whole run does, object for object.
#[cfg(test)]
fn same_as_whole(
    gc: &GarbageCollector<'_>,
    start: Start,
    delivery: &simulation::Delivery,
    initial: &crate::gc::State,
    scope: &Scope,
) {
    let none = Delays::default();
    let whole = simulation::run(gc, start, delivery, &none, None, initial);
    let part = simulation::run(gc, start, delivery, &none, Some(scope), initial);
    let store = &gc.snap.store;
    for id in store.ids() {
        assert_eq!(
            fate(&whole, store, id),
            fate(&part, store, id),
            "{} (in scope: {})",
            store.str(store.object(id).name),
            scope.contains(id)
        );
    }
    assert_eq!(
        format!("{:?}", whole.actions),
        format!("{:?}", part.actions)
    );
    assert_eq!(whole.touched, part.touched);
    assert_eq!(whole.evaluated, part.evaluated);
    assert_eq!(format!("{:?}", whole.races), format!("{:?}", part.races));
    assert_eq!(whole.visits, part.visits);
    assert_eq!(whole.stuck, part.stuck);
    assert_eq!(whole.by_namespace_controller, part.by_namespace_controller);
    assert_eq!(whole.namespace_holds, part.namespace_holds);
    assert_eq!(whole.truncated, part.truncated);
}

/// A counter that threads take numbers from, each number once: independent runs shared by
/// whichever thread is free. At the end of an audit the plan's runs were left to one thread
/// while the other core had nothing to do.
struct Shared(std::sync::atomic::AtomicUsize);

impl From<usize> for Shared {
    fn from(first: usize) -> Shared {
        Shared(std::sync::atomic::AtomicUsize::new(first))
    }
}

impl Shared {
    /// Every number below `end` that no other thread has taken, with `f` of it, in the
    /// order taken.
    fn take_all<T>(&self, end: usize, mut f: impl FnMut(usize) -> T) -> Vec<(usize, T)> {
        let mut out = Vec::new();
        loop {
            let k = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if k >= end {
                return out;
            }
            out.push((k, f(k)));
        }
    }

    /// What the threads took, joined, in the numbers' order: as if one thread had made it.
    fn in_order<T>(mut taken: Vec<(usize, T)>) -> Vec<(usize, T)> {
        taken.sort_unstable_by_key(|&(k, _)| k);
        taken
    }
}

/// GC 1.20.0–1.20.2 (kubernetes#98040): a running GC whose informers delivered a
/// cluster-scoped dependent of a missing namespaced owner first gave the owner's virtual node no
/// namespace, never verifies it, and never queued the owner's namespaced dependents (the third
/// coordinate check came in v1.20.3): they are never collected. A steady state cannot tell which
/// dependent the GC saw first when it started, so that order is one of the runs: the
/// cluster-scoped dependents delivered first, the namespaced ones not evaluated at the start.
/// The restart simulation models the same choice among its informer orders. `None` when the
/// release or the snapshot has no such owner.
///
/// Upstream: TestConflictingData "cluster-scoped bad child, namespaced good child, missing
/// parent", whose end state v1.20.2 reaches only with the third check absent in this order.
fn stranding_order(gc: &GarbageCollector<'_>) -> Option<simulation::Delivery> {
    use crate::gc::rest_mapper::Mapping;
    if !gc.rules.namespace_less_virtual_owner_strands() {
        return None;
    }
    let store = &gc.snap.store;
    let mut delivery = simulation::Delivery::default();
    for v in gc.graph.virtual_nodes() {
        let uid = gc.graph.node(v).id.uid;
        let deps: Vec<ObjId> = gc
            .graph
            .dependents(v)
            .iter()
            .filter_map(|&d| gc.graph.object(d))
            .collect();
        let (cluster, namespaced): (Vec<ObjId>, Vec<ObjId>) = deps
            .into_iter()
            .partition(|&d| store.object(d).namespace.is_empty());
        if cluster.is_empty() {
            continue;
        }
        // Only references to a namespaced owner kind: a cluster-scoped one keeps its (empty)
        // namespace and is verified.
        let stranded: Vec<ObjId> = namespaced
            .into_iter()
            .filter(|&d| {
                store.owner_refs(d).iter().any(|r| {
                    r.uid == uid
                        && match gc.rest_mapper.map(gc.snap, r.api_version, r.kind) {
                            Mapping::Resolved(gr) => gc.rest_mapper.gr(gr).namespaced,
                            _ => false,
                        }
                })
            })
            .collect();
        if stranded.is_empty() {
            continue;
        }
        delivery.first.extend(cluster);
        delivery.unseeded.extend(stranded);
    }
    (!delivery.unseeded.is_empty()).then_some(delivery)
}

#[cfg(test)]
mod tests {
    use super::Shared;

    #[test]
    fn shared_numbers_are_each_taken_once_by_one_thread() {
        for threads in [1, 2, 4] {
            let next = Shared::from(3);
            let mut taken: Vec<(usize, usize)> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads)
                    .map(|_| s.spawn(|| next.take_all(500, |k| k * 2)))
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().unwrap())
                    .collect()
            });
            taken = Shared::in_order(taken);
            assert_eq!(
                taken,
                (3..500).map(|k| (k, k * 2)).collect::<Vec<_>>(),
                "{threads} threads"
            );
            // Once all are taken, nothing is left for a late thread.
            assert!(next.take_all(500, |k| k).is_empty());
        }
    }
}
