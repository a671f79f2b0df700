//! What a freshly (re)started GC does (§6.22), and the findings that come of it.
//!
//! [`Plan::restart`] simulates the start: only what the initial add events enqueue is
//! evaluated, so a restart turns some pending garbage into deletions now and leaves other
//! garbage alone; objects whose owners exist and agree are never looked at. Where the outcome
//! depends on an order upstream does not fix (which informer delivers first; before v1.20 that
//! decides whether a bad reference poisons the UID-keyed absent cache, kubernetes#65200; in
//! v1.20.0–v1.20.2 whether a namespace-less virtual owner strands namespaced dependents,
//! kubernetes#98040), the plan says so, and so do the findings.

use super::code::{Code, Severity};
use super::finding::Finding;
use super::remedy;
use crate::gc::graph_builder::VisitCause;
use crate::gc::{EndState, GarbageCollector, Outcome, Plan, State, Verb, Verdict};
use crate::model::ObjId;
use std::collections::{BTreeMap, BTreeSet};

/// An object whose fate after a restart depends on an order upstream does not fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderDependent {
    /// The object.
    pub object: ObjId,
    /// Some order deletes it (or leaves it terminating after the GC's DELETE).
    pub deleted: bool,
    /// Every end state it can reach, the plan's first.
    pub states: Vec<EndState>,
    /// Objects its fate hangs on: the live owner its misdirected reference names.
    pub related: Vec<ObjId>,
}

/// Garbage a restarted GC does not evaluate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stranded {
    /// The dependent.
    pub object: ObjId,
    /// False when it depends on the informers' order (another order evaluates, and collects,
    /// it).
    pub certain: bool,
    /// Why.
    pub why: String,
}

/// The prediction.
#[derive(Debug)]
pub struct Restart {
    /// Objects the restarted GC evaluates because of its start, and why.
    pub visits: BTreeMap<ObjId, VisitCause>,
    /// What it then does (the certain part in `actions`; every outcome, with its
    /// alternatives, in `outcomes`).
    pub plan: Plan,
    /// Outcomes that depend on order and may delete something meant to live.
    pub order_dependent: Vec<OrderDependent>,
    /// Garbage it never evaluates, or evaluates only in some orders.
    pub stranded: Vec<Stranded>,
    /// Objects whose fate the snapshot cannot tell (a virtual owner it cannot verify).
    pub unknown: Vec<(ObjId, String)>,
}

/// References whose owner's existence the input cannot tell (classified `unknown`): a file
/// input's kinds not proven complete, a kind it does not hold, a resource that could not be
/// read. Such an owner is absent from the input, so only the dependents of the graph's virtual
/// nodes are classified. The restart's plan keeps their dependents, since the input cannot say
/// what the GC's lookup of the owner would find; `check` then says how to tell more.
pub fn unknown_references(gc: &GarbageCollector<'_>) -> usize {
    let graph = &gc.graph;
    let mut dependents: Vec<ObjId> = graph
        .virtual_nodes()
        .flat_map(|v| graph.dependents(v).iter().filter_map(|&d| graph.object(d)))
        .collect();
    if dependents.is_empty() {
        return 0;
    }
    dependents.sort_unstable();
    dependents.dedup();
    let state = gc.initial_state();
    dependents
        .into_iter()
        .map(|id| {
            gc.classify_references(&state, id)
                .iter()
                .filter(|c| c.label() == "unknown")
                .count()
        })
        .sum()
}

/// Predicts a GC restart on this snapshot.
pub fn predict(gc: &GarbageCollector<'_>) -> Restart {
    predict_from(gc, Plan::restart(gc))
}

/// [`predict`] from the start's plan ([`Plan::restart`]), made already.
pub fn predict_from(gc: &GarbageCollector<'_>, plan: Plan) -> Restart {
    let initial = gc.initial_state();
    let store = &gc.snap.store;
    let garbage = |id: ObjId| {
        gc.graph.monitors(id)
            && matches!(
                gc.attempt_to_delete_item(&initial, id),
                Verdict::Delete { .. } | Verdict::RemoveRefs { .. }
            )
    };
    let mut order_dependent = Vec::new();
    let mut stranded = Vec::new();
    let mut unknown = Vec::new();
    let by_target: BTreeMap<ObjId, &Outcome> =
        plan.outcomes.iter().map(|o| (o.target, o)).collect();
    for o in &plan.outcomes {
        if !o.order_dependent() {
            if let (EndState::Kept, Some(why)) = (&o.state, &o.why)
                && why.starts_with("unknown")
            {
                unknown.push((o.target, why.clone()));
            }
            continue;
        }
        let id = o.target;
        let mut states = vec![o.state.clone()];
        states.extend(o.alternatives.iter().map(|a| a.state.clone()));
        let deleted = states.iter().any(|s| *s != EndState::Kept);
        let never_evaluated =
            !plan.evaluated[id.index()] || o.alternatives.iter().any(|a| a.never_evaluated);
        let related: Vec<ObjId> = store
            .owner_refs(id)
            .iter()
            .filter_map(|r| gc.misdirected(&initial, id, r))
            .collect();
        if never_evaluated && garbage(id) && related.is_empty() {
            // Every end state, not only "never evaluated" and the plan's: the orders that do
            // evaluate it can end differently from one another.
            let possible = end_state_texts(gc, o);
            stranded.push(Stranded {
                object: id,
                certain: false,
                why: format!(
                    "which of its owner's dependents the restarted GC's informers deliver first decides whether the owner's virtual node is verified for it: in one order it is evaluated and collected, in another never (e.g. kubernetes#98040 before v1.20.3: a cluster-scoped dependent observed first gives a missing namespaced owner a namespace-less virtual node); possible end states: {}",
                    possible.join(" | ")
                ),
            });
        } else {
            order_dependent.push(OrderDependent {
                object: id,
                deleted,
                states,
                related,
            });
        }
    }
    // Garbage the start never reaches, in every order.
    for id in store.ids() {
        if plan.evaluated[id.index()]
            || by_target.get(&id).is_some_and(|o| o.order_dependent())
            || !plan.end.exists(id)
            || !garbage(id)
        {
            continue;
        }
        stranded.push(Stranded {
            object: id,
            certain: true,
            why: stranded_reason(gc, &initial, id),
        });
    }
    Restart {
        visits: plan.visits.clone(),
        plan,
        order_dependent,
        stranded,
        unknown,
    }
}

/// Why a restart never evaluates garbage: its dangling owners' virtual nodes are never
/// verified for it.
fn stranded_reason(gc: &GarbageCollector<'_>, state: &State, id: ObjId) -> String {
    let store = &gc.snap.store;
    for r in state.owner_refs(store, id) {
        if let crate::gc::rest_mapper::Mapping::Unresolvable(reason) =
            gc.rest_mapper.map(gc.snap, r.api_version, r.kind)
        {
            return format!("its owner's kind cannot be mapped: {reason}");
        }
    }
    "nothing a restarted GC enqueues leads to it (its owners' virtual nodes are never verified for it)"
        .into()
}

/// Describes a restart visit cause.
fn visit_text(gc: &GarbageCollector<'_>, c: &VisitCause) -> String {
    let store = &gc.snap.store;
    match c {
        VisitCause::MissingOwner { uid } => format!(
            "owner uid {} is not in the graph; the GC verifies it, finds it absent and evaluates its dependents",
            store.str(*uid)
        ),
        VisitCause::NamespaceMismatch { owner } => format!(
            "its ownerReference points at {} in another namespace; the GC re-checks it on start (OwnerRefInvalidNamespace)",
            gc.snap.describe(*owner)
        ),
        VisitCause::CoordinateMismatch { owner } => {
            let n = gc.graph.node(*owner);
            format!(
                "its ownerReference disagrees with the owner the GC knows ({} {}/{})",
                store.str(n.id.api_version),
                store.str(n.id.kind),
                store.str(n.id.name)
            )
        }
        VisitCause::OwnerInForeground { owner } => format!(
            "its owner {} is in foreground deletion",
            gc.snap.describe(*owner)
        ),
        VisitCause::InForeground => "it is in foreground deletion".into(),
        VisitCause::Orphaning => "it is terminating with the orphan finalizer".into(),
        VisitCause::BlockingDependent { owner } => format!(
            "it blocks the foreground deletion of {}",
            gc.snap.describe(*owner)
        ),
        VisitCause::VirtualOwner
        | VisitCause::OwnerRemoved { .. }
        | VisitCause::DependentChanged
        | VisitCause::Retry
        | VisitCause::SteadyState => {
            "a change earlier in the cascade makes the GC evaluate it".into()
        }
    }
}

/// Describes an end state for a finding.
pub fn end_state_text(gc: &GarbageCollector<'_>, s: &EndState) -> String {
    let store = &gc.snap.store;
    match s {
        EndState::Deleted => "deleted".into(),
        EndState::Terminating { finalizers } => format!(
            "terminating (held by {})",
            finalizers
                .iter()
                .map(|f| store.str(*f))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        EndState::Kept => "kept".into(),
    }
}

/// True when one of the object's references is dangling although its UID is a live object
/// (cross-namespace or wrong coordinates): deleting it is deleting something meant to live.
fn has_misdirected_ref(gc: &GarbageCollector<'_>, state: &State, id: ObjId) -> bool {
    gc.snap
        .store
        .owner_refs(id)
        .iter()
        .any(|r| gc.misdirected(state, id, r).is_some())
}

/// `check restart`'s findings, each told when the GC acts ([`super::timeline`]): the running
/// GC's plan is made beside the start's, and a restart's action the running GC does not wait
/// for says so.
pub fn timed_findings(gc: &GarbageCollector<'_>) -> Vec<Finding> {
    let (steady, start) = crate::util::fork::join(
        gc.fork,
        "plan",
        || Plan::steady_state(gc),
        || Plan::restart(gc),
    );
    let r = predict_from(gc, start);
    let mut out = findings(gc, &r);
    super::timeline::Timeline::new(gc, &steady, &r.plan, []).stamp_restart(&mut out);
    out
}

/// Findings for a restart prediction: GC015 for what the restarted GC does, GC016 for what it
/// may do depending on list order (< 1.20), GC020 for garbage it never evaluates.
pub fn findings(gc: &GarbageCollector<'_>, r: &Restart) -> Vec<Finding> {
    let store = &gc.snap.store;
    let initial = gc.initial_state();
    let mut out = Vec::new();
    let mut severity_of_deleted: BTreeMap<ObjId, Severity> = BTreeMap::new();
    // What the restart may delete: a victim's fix is looked for up through these.
    let deleted: BTreeSet<ObjId> = r
        .plan
        .actions
        .iter()
        .filter(|a| a.verb == Verb::Delete)
        .map(|a| a.target)
        .chain(r.order_dependent.iter().map(|o| o.object))
        .collect();
    let poisoned = if r.order_dependent.is_empty() {
        BTreeMap::new()
    } else {
        gc.misdirected_owner_uids(&initial)
    };
    let mut foreground_cascade: std::collections::BTreeSet<ObjId> = Default::default();
    for act in &r.plan.actions {
        let id = act.target;
        let why = match r.visits.get(&id) {
            Some(c) => visit_text(gc, c),
            _ => "a change earlier in the cascade makes the GC evaluate it".into(),
        };
        match act.verb {
            Verb::Delete => {
                let misdirected = has_misdirected_ref(gc, &initial, id);
                // A dependent of an owner the user is deleting in the foreground (or a
                // dependent of such a dependent) is deleted because the user asked for it:
                // the cascade a foreground deletion is, which the audit reports as GC014.
                let asked_for = !misdirected
                    && store.owner_refs(id).iter().any(|o| {
                        store.by_uid(o.uid).is_some_and(|owner| {
                            foreground_cascade.contains(&owner)
                                || (store.object(owner).being_deleted()
                                    && store
                                        .has_finalizer(owner, crate::model::finalizers::FOREGROUND))
                        })
                    });
                if asked_for {
                    foreground_cascade.insert(id);
                }
                let base = if misdirected {
                    Severity::Critical
                } else if asked_for {
                    Severity::Info
                } else {
                    Severity::Error
                };
                let inherited = store
                    .owner_refs(id)
                    .iter()
                    .filter_map(|o| store.by_uid(o.uid))
                    .filter_map(|o| severity_of_deleted.get(&o).copied())
                    .max();
                let sev = base.max(inherited.unwrap_or(Severity::Info));
                if !r.plan.end.exists(id) {
                    severity_of_deleted.insert(id, sev);
                }
                let remedies = carriers_remedies(gc, &initial, &deleted, id);
                out.push(
                    Finding::new(
                        Code::RestartAction,
                        sev,
                        id,
                        format!(
                            "when kube-controller-manager restarts (or its leader changes) the GC deletes this object (propagationPolicy={}, wave {})",
                            act.policy.map(|p| p.as_str()).unwrap_or("-"),
                            act.wave
                        ),
                        format!("{why}; {}", act.detail),
                    )
                    .with_remedies(remedies),
                );
            }
            Verb::RemoveOwnerReferences => out.push(Finding::new(
                Code::RestartAction,
                Severity::Warning,
                id,
                "when kube-controller-manager restarts the GC strips these ownerReferences".into(),
                format!("{why}; {}", act.detail),
            )),
            Verb::UnblockOwnerReferences | Verb::RemoveFinalizer => out.push(Finding::new(
                Code::RestartAction,
                Severity::Info,
                id,
                format!(
                    "when kube-controller-manager restarts the GC sends {}",
                    act.verb.as_str()
                ),
                format!("{why}; {}", act.detail),
            )),
        }
    }
    for o in &r.order_dependent {
        let outcome = r.plan.outcomes.iter().find(|x| x.target == o.object);
        let possible = outcome.map(|x| end_state_texts(gc, x)).unwrap_or_default();
        let which = match outcome
            .and_then(|x| x.alternatives.first())
            .map(|a| a.order)
        {
            Some(order @ crate::gc::OpenOrder::Requests) => order.what().to_owned(),
            _ => format!("{} when it starts", crate::gc::OpenOrder::Informers.what()),
        };
        let mut message = format!(
            "the outcome depends on {which}, which upstream does not fix; possible end states: {}",
            possible.join(" | ")
        );
        if let Some(&holder) = o.related.first() {
            message.push_str(&format!(
                "; its reference names {}, which exists at other coordinates",
                gc.snap.describe(holder)
            ));
            if !gc.rules.coordinate_keyed_absent_cache() {
                message.push_str(" (GC < 1.20 caches the owner UID as absent for every dependent, kubernetes#65200)");
            }
        }
        // The fix goes on the object whose reference is bad: this one, or (GC < 1.20) the one
        // whose bad reference poisons the cache for this one's valid reference.
        let mut remedies = carriers_remedies(gc, &initial, &deleted, o.object);
        if remedies.is_empty() {
            // The poisoned UID may be this object's owner's, or an owner's further up among
            // what the restart may delete.
            let mut up = vec![o.object];
            let mut i = 0;
            while i < up.len() && up.len() < 1_000 {
                for x in store.owner_refs(up[i]) {
                    if let Some(h) = store.by_uid(x.uid).filter(|h| deleted.contains(h))
                        && !up.contains(&h)
                    {
                        up.push(h);
                    }
                }
                i += 1;
            }
            let uids = o.related.iter().map(|&h| store.object(h).uid).chain(
                up.iter()
                    .flat_map(|&a| store.owner_refs(a).iter().map(|x| x.uid)),
            );
            let mut seen = BTreeSet::new();
            for uid in uids {
                if let Some(&carrier) = poisoned.get(&uid).filter(|&&c| c != o.object)
                    && seen.insert(uid)
                {
                    remedies.extend(super::audit::carrier_remedies(gc, &initial, carrier, uid));
                }
            }
        }
        out.push(
            Finding::new(
                Code::RestartOrderDependent,
                if o.deleted {
                    Severity::Critical
                } else {
                    Severity::Error
                },
                o.object,
                if o.states.iter().all(|s| *s != EndState::Kept) {
                    "after a restart this object ends deleted or terminating in every order; what is left of it (ownerReferences, finalizers) depends on an order upstream does not fix".into()
                } else if o.deleted {
                    "a restarted GC may delete this object, or not, depending on an order upstream does not fix".into()
                } else {
                    "what a restarted GC leaves of this object depends on an order upstream does not fix".into()
                },
                message,
            )
            .with_related(o.related.clone())
            .with_remedies(remedies),
        );
    }
    for st in &r.stranded {
        // Only garbage is worth reporting: the object would be collected if evaluated.
        if matches!(
            gc.attempt_to_delete_item(&initial, st.object),
            Verdict::Delete { .. } | Verdict::RemoveRefs { .. }
        ) {
            out.push(Finding::new(
                Code::StrandedDependent,
                Severity::Warning,
                st.object,
                if st.certain {
                    "a restarted GC never evaluates this object: the garbage stays".into()
                } else {
                    "a restarted GC may never evaluate this object (the garbage stays) or may collect it, depending on the order its informers deliver objects".into()
                },
                st.why.clone(),
            ));
        }
    }
    out
}

/// Every end state an order-dependent outcome can reach, the plan's first, described (GC016,
/// GC020, GC021).
pub(crate) fn end_state_texts(gc: &GarbageCollector<'_>, o: &Outcome) -> Vec<String> {
    std::iter::once(outcome_text(gc, o.target, &o.state, &o.owner_refs))
        .chain(
            o.alternatives
                .iter()
                .map(|a| outcome_text(gc, o.target, &a.state, &a.owner_refs)),
        )
        .collect()
}

/// Describes a possible end state of `id` with the ownerReferences it keeps (kept or
/// terminating: two orders can differ in those alone), each named by its owner's kind and name
/// as the object's reference spells it: a list of UIDs says nothing to a reader.
fn outcome_text(
    gc: &GarbageCollector<'_>,
    id: ObjId,
    s: &EndState,
    refs: &[crate::model::Sym],
) -> String {
    let base = end_state_text(gc, s);
    if *s == EndState::Deleted {
        return base;
    }
    let store = &gc.snap.store;
    let owners: Vec<String> = refs
        .iter()
        .map(|u| {
            store
                .owner_refs(id)
                .iter()
                .find(|r| r.uid == *u)
                .map_or_else(
                    || format!("the owner with uid {}", store.str(*u)),
                    |r| format!("{}/{}", store.str(r.kind), store.str(r.name)),
                )
        })
        .collect();
    match owners.as_slice() {
        [] => format!("{base} with no ownerReferences"),
        [one] => format!("{base} with its ownerReference to {one}"),
        [init @ .., last] => format!(
            "{base} with its ownerReferences to {} and {last}",
            init.join(", ")
        ),
    }
}

/// The catalogue's remedies for an object the restarted GC deletes, on the objects that carry
/// the broken references: its own, else those of its owners the restart deletes too, up the
/// cascade. A victim further down is never patched: orphaning it fixes nothing above it.
fn carriers_remedies(
    gc: &GarbageCollector<'_>,
    initial: &State,
    deleted: &BTreeSet<ObjId>,
    id: ObjId,
) -> Vec<remedy::Remedy> {
    let store = &gc.snap.store;
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let mut stack = vec![id];
    while let Some(x) = stack.pop() {
        if !seen.insert(x) || seen.len() > 1_000 {
            continue;
        }
        let refs = initial.owner_refs(store, x);
        let before = out.len();
        for r in refs {
            out.extend(remedy::for_reference(gc, initial, x, r));
        }
        if out.len() == before {
            stack.extend(
                refs.iter()
                    .filter_map(|r| store.by_uid(r.uid))
                    .filter(|o| *o != x && deleted.contains(o)),
            );
        }
    }
    out
}
