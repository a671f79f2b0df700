//! The plan's driver: the simulation run in the GC's race-free order, then in every informer
//! order ([`super::orders`]) and with every race's first chain held back, and the runs merged
//! into a [`Plan`]: end states that differ are order-dependent [`Alternative`]s, and only the
//! requests every order makes stay in the plan's actions. The report types it fills are in
//! [`super`]; `flips.rs` makes the re-runs that hold races back, `merge.rs` merges the runs.

mod flips;
mod merge;

use super::orders::{Choice, Components, Orders, informer_choices};
use super::{Alternative, OpenOrder, Plan};
use crate::gc::simulation::{self, Delays, Delivery, MayAct, Race, Run, Scope, Start, Unquiet};
use crate::gc::{GarbageCollector, State};
use crate::model::ObjId;
use crate::util::fork::{Tickets, join};
use flips::{FlipSets, Flipped, MAX_RACE_RUNS, RaceKey, flip, per_chain, race_key};
use merge::{Signature, fate, plan_from, signature};
use std::collections::{BTreeMap, HashSet};

/// Runs the simulation in the GC's race-free order, then in every order upstream leaves open
/// that can matter, and merges the outcomes.
pub(super) fn simulate(gc: &GarbageCollector<'_>, start: Start) -> Plan {
    let _span = tracing::debug_span!("simulate", ?start).entered();
    let p = Prepared::new(gc, start);
    let scope = p.primary_scope(None, None);
    // The other informer orders' runs cover only their components. They are independent of
    // one another and of the primary run, so they run beside it; whichever side is free takes
    // the next one.
    let tickets = Tickets::new(1, p.orders.runs);
    let (primary, runs) = if p.orders.runs > 1 {
        let ((primary, mut runs), theirs) = join(
            gc.fork,
            "primary-run",
            || (p.run_primary(scope.as_ref()), p.informer_runs(&tickets)),
            || p.informer_runs(&tickets),
        );
        runs.extend(theirs);
        (primary, runs)
    } else {
        (p.run_primary(scope.as_ref()), Vec::new())
    };
    p.finish(primary, runs)
}

/// A steady state's plan up to the one thing it needs from the classification of every
/// reference: which objects are not quiet ([`Unquiet`]). [`Pending::finish`] takes that set.
pub struct Pending<'g, 'a> {
    prepared: Prepared<'g, 'a>,
    /// What may act whatever the set holds.
    early: MayAct,
    /// The other informer orders' runs, by number.
    runs: Vec<(usize, (Run, Scope))>,
}

impl std::fmt::Debug for Pending<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("informer_runs", &self.runs.len())
            .finish_non_exhaustive()
    }
}

/// The steady state's work that does not depend on which objects are quiet: the other informer
/// orders' runs, and what may act regardless.
pub(super) fn begin_steady_state<'g, 'a>(gc: &'g GarbageCollector<'a>) -> Pending<'g, 'a> {
    let _span =
        tracing::debug_span!("simulate", start = "SteadyState, before the unquiet set").entered();
    let prepared = Prepared::new(gc, Start::SteadyState);
    let p = &prepared;
    let tickets = Tickets::new(1, p.orders.runs);
    let early = || MayAct::regardless_of_quiet(gc, &p.initial);
    let (early, runs) = if p.orders.runs > 1 {
        let (mut runs, (early, theirs)) = join(
            gc.fork,
            "informer-runs",
            || p.informer_runs(&tickets),
            || (early(), p.informer_runs(&tickets)),
        );
        runs.extend(theirs);
        (early, runs)
    } else {
        (early(), Vec::new())
    };
    Pending {
        prepared,
        early,
        runs,
    }
}

impl Pending<'_, '_> {
    /// The plan, now that `unquiet` says which objects are not quiet. `unquiet` must be
    /// [`Unquiet::of`] the snapshot as captured (checked in tests).
    pub fn finish(self, unquiet: &Unquiet) -> Plan {
        let _span = tracing::debug_span!("simulate", start = "SteadyState, given the unquiet set")
            .entered();
        let p = self.prepared;
        let scope = p.primary_scope(Some(unquiet), Some(&self.early));
        let primary = p.run_primary(scope.as_ref());
        p.finish(primary, self.runs)
    }
}

/// What every run of one start shares: the state as captured, the informer orders that can
/// matter and the graph's components.
struct Prepared<'g, 'a> {
    gc: &'g GarbageCollector<'a>,
    start: Start,
    initial: State,
    choices: Vec<Choice>,
    /// The object a user deletes.
    target: Option<u32>,
    comps: Components,
    orders: Orders,
    primary_delivery: Delivery,
}

impl<'g, 'a> Prepared<'g, 'a> {
    fn new(gc: &'g GarbageCollector<'a>, start: Start) -> Self {
        let _span = tracing::debug_span!("informer choices").entered();
        let initial = gc.initial_state();
        let choices = informer_choices(gc, &initial, start);
        let target = match start {
            Start::UserDelete(u) => Some(u.target.0),
            _ => None,
        };
        let comps = Components::new(gc, target);
        let orders = if choices.is_empty() {
            Orders {
                groups: Vec::new(),
                group_runs: Vec::new(),
                runs: 1,
            }
        } else {
            Orders::new(gc, &choices, &comps)
        };
        let primary_delivery = orders.delivery(&choices, 0);
        Prepared {
            gc,
            start,
            initial,
            choices,
            target,
            comps,
            orders,
            primary_delivery,
        }
    }

    /// The primary run's scope. In a steady state the primary run covers only the components
    /// where anything can happen (most of a healthy cluster is left as it is); the tests check
    /// every such run against the whole one. The scope needs to know which objects are not
    /// quiet: `unquiet` when the caller has it, else worked out here.
    fn primary_scope(&self, unquiet: Option<&Unquiet>, early: Option<&MayAct>) -> Option<Scope> {
        match self.start {
            Start::SteadyState => {
                let gc = self.gc;
                let scope = steady_state_scope(
                    gc,
                    &self.initial,
                    unquiet,
                    early,
                    &self.choices,
                    &self.comps,
                );
                #[cfg(test)]
                same_as_whole(
                    gc,
                    self.start,
                    &self.primary_delivery,
                    &self.initial,
                    &scope,
                );
                (scope.members().len() <= gc.snap.store.len() / 2).then_some(scope)
            }
            _ => None,
        }
    }

    fn run_primary(&self, scope: Option<&Scope>) -> Run {
        simulation::run(
            self.gc,
            self.start,
            &self.primary_delivery,
            &Delays::default(),
            scope,
            &self.initial,
        )
    }

    /// The `k`-th informer order's run, over the components that have a `k`-th order.
    fn informer_run(&self, k: usize) -> (Run, Scope) {
        let gc = self.gc;
        let seeds: Vec<u32> = self
            .orders
            .groups
            .iter()
            .zip(&self.orders.group_runs)
            .filter(|&(_, &n)| n > k)
            .flat_map(|(g, _)| g.iter())
            .filter_map(|&i| gc.graph.uid_to_node(self.choices[i].uid).map(|n| n.0))
            .chain(self.target)
            .collect();
        let scope = self.comps.scope(gc, seeds);
        let run = simulation::run(
            gc,
            self.start,
            &self.orders.delivery(&self.choices, k),
            &Delays::default(),
            Some(&scope),
            &self.initial,
        );
        (run, scope)
    }

    /// The informer orders' runs this side takes from `tickets`.
    fn informer_runs(&self, tickets: &Tickets) -> Vec<(usize, (Run, Scope))> {
        tickets.take_all(|k| self.informer_run(k))
    }

    /// The races re-run, the stranding order run, and everything merged into the plan.
    fn finish(self, primary: Run, runs: Vec<(usize, (Run, Scope))>) -> Plan {
        let Prepared {
            gc,
            start,
            initial,
            choices,
            target,
            comps: c,
            orders,
            ..
        } = self;
        let none = Delays::default();
        let mut raced: Vec<(usize, Vec<Race>)> = Vec::new();
        let mut others: Vec<(Run, Scope, OpenOrder)> = Vec::new();
        for (k, (run, scope)) in Tickets::in_order(runs) {
            if !run.races.is_empty() {
                raced.push((k, run.races.clone()));
            }
            others.push((run, scope, OpenOrder::Informers));
        }
        // The primary run's races come first, as when the runs were made one after the other.
        if !primary.races.is_empty() {
            raced.insert(0, (0, primary.races.clone()));
        }
        // Races: re-run with the chain that got there first held back. Races of different
        // components cannot interact, so round `r` takes the `r`-th race of every component (a
        // component with more races than rounds has them all held back at once). A re-run can
        // uncover races of its own (a reader held back now reads after another write too):
        // those are flipped once more, on top of what the re-run held back in their component,
        // and no further; batched across the re-runs of one informer order the same way.
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
            for Flipped { run, scope, held } in flip(gc, &c, target, &sets, |d, s| rerun(k, d, s)) {
                level1 += 1;
                for r in &run.races {
                    let comp = c.find(r.object.0);
                    let Some(set) = held.get(&comp) else { continue };
                    if known.contains(&race_key(r))
                        || set.iter().any(|h| race_key(h) == race_key(r))
                    {
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
            for Flipped { run, scope, .. } in
                flip(gc, &c, target, &uncovered, |d, s| rerun(k, d, s))
            {
                level2 += 1;
                others.push((run, scope, OpenOrder::Requests));
            }
        }
        if start == Start::SteadyState
            && let Some(delivery) = stranding_order(gc)
        {
            // Only the components of the stranded dependents can end differently.
            let scope = c.scope(gc, delivery.unseeded.iter().map(|d| d.0));
            let run = simulation::run(gc, start, &delivery, &none, Some(&scope), &initial);
            others.push((run, scope, OpenOrder::Informers));
        }
        tracing::debug!(
            choices = choices.len(),
            informer_orders = orders.runs,
            extra_runs = others.len(),
            race_flips = level1,
            uncovered_race_flips = level2,
            "simulation runs made"
        );
        merge_runs(gc, start, primary, &others)
    }
}

/// The runs merged into the plan: where a run ends an object differently from the primary run,
/// an [`Alternative`]; the requests every run makes stay in the plan.
fn merge_runs(
    gc: &GarbageCollector<'_>,
    start: Start,
    primary: Run,
    others: &[(Run, Scope, OpenOrder)],
) -> Plan {
    let store = &gc.snap.store;
    let mut alternatives: BTreeMap<ObjId, Vec<Alternative>> = BTreeMap::new();
    for (run, scope, order) in others {
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
    // One pass over each run's requests, not one per order-dependent object: a snapshot dense
    // with races has thousands of such objects and a thousand runs.
    let mut certain: BTreeMap<ObjId, Vec<Signature>> =
        alternatives.keys().map(|&id| (id, Vec::new())).collect();
    for a in &primary.actions {
        if let Some(common) = certain.get_mut(&a.target) {
            common.push(signature(a));
        }
    }
    let mut made: BTreeMap<ObjId, Vec<Signature>> = BTreeMap::new();
    for (run, scope, _) in others {
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
    initial: &State,
    unquiet: Option<&Unquiet>,
    early: Option<&MayAct>,
    choices: &[Choice],
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
    delivery: &Delivery,
    initial: &State,
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
fn stranding_order(gc: &GarbageCollector<'_>) -> Option<Delivery> {
    use crate::gc::rest_mapper::Mapping;
    if !gc.rules.namespace_less_virtual_owner_strands() {
        return None;
    }
    let store = &gc.snap.store;
    let mut delivery = Delivery::default();
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
