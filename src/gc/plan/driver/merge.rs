//! The runs merged into a [`Plan`]: the requests every order makes, the end state of every
//! object the plan touches or leaves stuck, and why it is stuck.

use super::super::{Action, Alternative, EndState, Outcome, Plan, Reason, Verb};
use crate::gc::GarbageCollector;
use crate::gc::attempt_to_delete::Policy;
use crate::gc::graph_builder::VisitCause;
use crate::gc::simulation::{self, Run};
use crate::model::{ObjId, Store, Sym};
use std::collections::{BTreeMap, HashMap, HashSet};

/// What an object ends as in one run.
pub(super) fn fate(run: &Run, store: &Store, id: ObjId) -> (EndState, Vec<Sym>) {
    let s = &run.state;
    if !s.exists(id) {
        (EndState::Deleted, vec![])
    } else if s.being_deleted(id) {
        (
            EndState::Terminating {
                finalizers: s.finalizers(store, id).to_vec(),
            },
            s.owner_refs(store, id).iter().map(|r| r.uid).collect(),
        )
    } else {
        (
            EndState::Kept,
            s.owner_refs(store, id).iter().map(|r| r.uid).collect(),
        )
    }
}

/// What a request does, whichever step it is sent at.
pub(super) type Signature = (Verb, Vec<Sym>, Option<Sym>, Option<Policy>);

pub(super) fn signature(a: &Action) -> Signature {
    (a.verb, a.owner_refs.clone(), a.finalizer, a.policy)
}

pub(super) fn plan_from(
    gc: &GarbageCollector<'_>,
    run: Run,
    mut alternatives: BTreeMap<ObjId, Vec<Alternative>>,
    certain: &BTreeMap<ObjId, Vec<Signature>>,
) -> Plan {
    let store = &gc.snap.store;
    let sure = |a: &Action| {
        certain
            .get(&a.target)
            .is_none_or(|c| c.contains(&signature(a)))
    };
    // A finalizer's removal follows what the GC did to the object's dependents first: the
    // orphan patches of attemptToOrphan, the deletions a foreground deletion waits for. When
    // one of those is left out as order-dependent, the removal is left out too; sent alone it
    // would run ahead of the GC (and `--apply`'s re-verification refuses it: the dependent
    // still references the owner). A foreground deletion waits only for dependents whose
    // reference blocks it (processDeletingDependentsItem's blockingDependents, §3.5); a
    // dependent that merely references the owner is no reason to hold the removal back.
    let unsure_refs = || {
        run.actions
            .iter()
            .filter(|a| !sure(a))
            .flat_map(|a| store.owner_refs(a.target).iter())
    };
    let waiting_owners: HashSet<Sym> = unsure_refs().map(|r| r.uid).collect();
    let blocked_owners: HashSet<Sym> = unsure_refs()
        .filter(|r| r.blocks())
        .map(|r| r.uid)
        .collect();
    // attemptToOrphan (§4) finishes in every order: its worker patches every dependent of the
    // owner's node that still references the owner, then removes `orphan`. A dependent whose
    // fate is order-dependent (its own attemptToDelete may delete it or strip the reference
    // before the orphan patch lands, which then changes nothing) still gets that patch in
    // every order where it still references the owner; so the patch stays in the plan, and
    // the finalizer removal after it. Without it `--apply` left the owner terminating and
    // the dependent referencing it, an end state no order produces. Of the orders, this is
    // the one where the orphan worker gets there first: it deletes nothing, and the
    // dependent's own fate is re-planned from there.
    let mut orphan_patches: Vec<Action> = Vec::new();
    let mut orphaned_owners: HashSet<Sym> = HashSet::new();
    for done in run
        .actions
        .iter()
        .filter(|a| a.reason == Reason::OrphanDone && sure(a))
    {
        let owner = done.target;
        let uid = store.object(owner).uid;
        let reason = Reason::Orphan { owner };
        let wave = run
            .actions
            .iter()
            .filter(|a| a.reason == reason)
            .map(|a| a.wave)
            .min()
            .unwrap_or(done.wave);
        let mut deps: Vec<ObjId> = gc
            .graph
            .dependents(gc.graph.node_of_object(owner))
            .iter()
            .filter_map(|&n| gc.graph.object(n))
            .filter(|d| {
                certain.contains_key(d) && store.owner_refs(*d).iter().any(|r| r.uid == uid)
            })
            .collect();
        deps.sort();
        deps.dedup();
        for d in deps {
            match run
                .actions
                .iter()
                .find(|a| a.target == d && a.reason == reason)
            {
                Some(made) if !sure(made) => orphan_patches.push(made.clone()),
                Some(_) => {}
                None => orphan_patches.push(gc.orphan_patch(owner, d, wave)),
            }
        }
        orphaned_owners.insert(uid);
    }
    // Requests every order makes that wait for an order-dependent one (a foreground
    // deletion's finalizer removal after a dependent whose deletion is order-dependent):
    // left out of the actions, and kept as withheld so that `--apply` says what is left.
    let withheld_by_order = |a: &Action| {
        let uid = store.object(a.target).uid;
        a.verb == Verb::RemoveFinalizer
            && match a.reason {
                Reason::OrphanDone => {
                    !orphaned_owners.contains(&uid) && waiting_owners.contains(&uid)
                }
                Reason::ForegroundDone => blocked_owners.contains(&uid),
                _ => waiting_owners.contains(&uid),
            }
    };
    let mut actions: Vec<Action> = run
        .actions
        .iter()
        .filter(|a| (sure(a) && !withheld_by_order(a)) || orphan_patches.contains(a))
        .cloned()
        .collect();
    // The patches the race-free order did not make go into their owner's orphan wave (at the
    // latest its finalizer removal's: patches run first within a wave); the sort is stable.
    actions.extend(
        orphan_patches
            .into_iter()
            .filter(|p| !run.actions.contains(p)),
    );
    actions.sort_by_key(|a| a.wave);
    let withheld: Vec<Action> = run
        .actions
        .iter()
        .filter(|a| sure(a) && withheld_by_order(a))
        .cloned()
        .collect();
    let visits: BTreeMap<ObjId, VisitCause> = run
        .visits
        .iter()
        .filter(|(_, c)| {
            !matches!(
                c,
                VisitCause::OwnerRemoved { .. }
                    | VisitCause::DependentChanged
                    | VisitCause::Retry
                    | VisitCause::VirtualOwner
                    | VisitCause::BlockingDependent { .. }
            )
        })
        .map(|(o, c)| (*o, *c))
        .collect();
    let mut outcomes = Vec::new();
    // The objects that are stuck or have alternatives, as a mask: most objects are neither,
    // and one lookup in a map per object was most of this loop (BENCHMARKS.md, "Figures behind the code").
    let mut listed = vec![false; store.len()];
    for id in run.stuck.keys().chain(alternatives.keys()) {
        listed[id.index()] = true;
    }
    // Objects outside the graph that this release may watch after all (an unverified release
    // boundary): their fate is unknown, and the plan says so instead of leaving them out.
    let unsettled: HashMap<ObjId, String> = store
        .ids()
        .filter(|&id| !gc.graph.monitors(id))
        .filter_map(|id| {
            let why = gc.monitoring_unsettled(&run.state, id)?;
            listed[id.index()] = true;
            Some((id, format!("unknown: {why}")))
        })
        .collect();
    for id in store.ids() {
        let touched = run.touched[id.index()];
        let terminating = run.state.exists(id) && run.state.being_deleted(id);
        if !touched && !terminating && !listed[id.index()] {
            continue;
        }
        let stuck = run.stuck.get(&id).or_else(|| unsettled.get(&id));
        let alts = alternatives.remove(&id).unwrap_or_default();
        if !touched && !terminating && stuck.is_none() && alts.is_empty() {
            continue;
        }
        // Untouched objects are reported only when stuck on something the GC would otherwise
        // act on (never collected, unknown), or when their fate is open.
        if !touched && !terminating && alts.is_empty() {
            let refs = run.state.owner_refs(store, id);
            if refs.is_empty() {
                continue;
            }
            let classes = gc.classify_references(&run.state, id);
            if classes
                .iter()
                .all(|c| matches!(c, crate::gc::RefClass::Solid { .. }))
            {
                continue;
            }
        }
        let (state, mut owner_refs) = fate(&run, store, id);
        if state == EndState::Deleted {
            owner_refs.clear();
        }
        let why = match &state {
            EndState::Terminating { .. } => Some(why_terminating(gc, &run, id)),
            EndState::Deleted if run.by_namespace_controller.contains(&id) => Some(
                "deleted by the namespace controller (its namespace is being deleted)".to_owned(),
            ),
            EndState::Deleted => None,
            EndState::Kept => stuck.cloned(),
        };
        outcomes.push(Outcome {
            target: id,
            state,
            owner_refs,
            why,
            alternatives: alts,
        });
    }
    let mut reached = run.touched;
    for (r, e) in reached.iter_mut().zip(&run.evaluated) {
        *r |= *e;
    }
    Plan {
        waves: actions.last().map_or(0, |a| a.wave),
        actions,
        withheld,
        outcomes,
        end: run.state,
        truncated: run.truncated,
        visits,
        evaluated: run.evaluated,
        reached,
    }
}

fn why_terminating(gc: &GarbageCollector<'_>, run: &Run, id: ObjId) -> String {
    let store = &gc.snap.store;
    let state = &run.state;
    let fg = state.foreground_sym();
    let orphan = state.orphan_sym();
    let fins = state.finalizers(store, id);
    let mut parts = Vec::new();
    if fins.contains(&fg) {
        let blocking = gc.blocking_dependents(state, id);
        let mut names: Vec<String> = blocking.iter().map(|&d| gc.snap.describe(d)).collect();
        names.dedup();
        if names.is_empty() {
            parts.push(
                "foregroundDeletion: the GC removes it once it processes the object".to_owned(),
            );
        } else {
            parts.push(format!(
                "foregroundDeletion: blocked by dependents with blockOwnerDeletion=true: {}",
                names.join(", ")
            ));
        }
    }
    if fins.contains(&orphan) {
        parts.push("orphan: the GC removes it after orphaning the dependents".to_owned());
    }
    let others: Vec<&str> = fins
        .iter()
        .filter(|f| **f != fg && **f != orphan)
        .map(|f| store.str(*f))
        .collect();
    if !others.is_empty() {
        parts.push(format!(
            "held by finalizer(s) the GC does not manage: {}",
            others.join(", ")
        ));
    }
    if gc.snap.resource_of(store.object(id)).plural == "namespaces"
        && gc.snap.resource_of(store.object(id)).group.is_empty()
    {
        parts.push(why_namespace_stays(gc, run, id));
    }
    parts.join("; ")
}

/// Why a namespace the run leaves terminating stays (§10): what holds it for good, else the
/// content it waits for, else that what holds it is not in the input.
fn why_namespace_stays(gc: &GarbageCollector<'_>, run: &Run, id: ObjId) -> String {
    let store = &gc.snap.store;
    let name = store.object(id).name;
    let holds = match run.namespace_holds.get(&id) {
        Some(h) => h.clone(),
        None => simulation::removal_holds(gc.snap, store.str(name)),
    };
    if !holds.is_empty() {
        return format!("a namespace the namespace controller cannot finish: {holds}");
    }
    let left = store
        .ids()
        .filter(|&o| store.object(o).namespace == name && run.state.exists(o))
        .count();
    if left > 0 {
        format!(
            "a namespace: the namespace controller removes it once the {left} object(s) left \
             in it are gone"
        )
    } else {
        "a namespace with nothing left in it: what holds it is not in the input (see \
         `kubectl gc why namespace/NAME`)"
            .to_owned()
    }
}
