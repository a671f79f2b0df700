//! What a freshly (re)started GC does (§6.22), and the findings that come of it.
//!
//! The start enqueues only what [`GarbageCollector::start_queue`] lists: objects whose owners
//! exist and agree are never looked at. So a restart turns some pending garbage into deletions
//! now, and leaves other garbage alone. Before v1.20 the outcome also depends on the order the
//! informers deliver objects: a bad reference observed before its real owner gets the owner's
//! UID cached as absent, condemning the owner's valid dependents.

use super::code::{Code, Severity};
use super::finding::Finding;
use super::remedy;
use crate::gc::graph::NodeId;
use crate::gc::graph_builder::{Stranded, VisitCause};
use crate::gc::{GarbageCollector, Plan, State, Verb, Verdict};
use crate::model::{ObjId, Sym};
use std::collections::{BTreeMap, BTreeSet};

/// A pre-1.20 outcome that depends on list order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderDependent {
    /// The object that may be deleted (or stripped).
    pub object: ObjId,
    /// The owner UID that may be cached as absent.
    pub owner_uid: Sym,
    /// The dependent whose bad reference would poison the cache.
    pub bad_dependent: ObjId,
    /// True when the object would be deleted; false when only its reference is stripped.
    pub deleted: bool,
}

/// The prediction.
#[derive(Debug)]
pub struct Restart {
    /// Objects the restarted GC evaluates first, and why.
    pub visits: BTreeMap<ObjId, VisitCause>,
    /// What it then does (deterministic part).
    pub plan: Plan,
    /// Pre-1.20: further deletions that happen for some informer orders.
    pub order_dependent: Vec<OrderDependent>,
    /// Dependents of missing owners the restarted GC never evaluates (GC v1.20 without
    /// PR #98068: stranded by a namespace-less virtual owner; or a virtual owner whose kind
    /// cannot be mapped).
    pub stranded: Vec<Stranded>,
    /// Virtual owners the snapshot cannot verify (their dependents' fate is unknown).
    pub unknown: Vec<(NodeId, String)>,
}

/// Predicts a GC restart on this snapshot: what the start enqueues, then everything that
/// follows from it.
pub fn predict(gc: &GarbageCollector<'_>) -> Restart {
    let state = gc.initial_state();
    let start = gc.start_queue(&state);
    let plan = Plan::from_worklist(gc, state.clone(), start.visits.keys().copied().collect());
    let order_dependent = if gc.rules.coordinate_keyed_absent_cache() {
        Vec::new()
    } else {
        order_dependent(gc, &state, &plan)
    };
    Restart {
        visits: start.visits,
        plan,
        order_dependent,
        stranded: start.stranded,
        unknown: start.unknown,
    }
}

/// Pre-1.20 worst case: a bad reference to a live owner, observed before the owner, gets
/// the owner's UID cached as absent; every dependent of that UID is then evaluated against
/// the cache (issue #65200).
fn order_dependent(
    gc: &GarbageCollector<'_>,
    state: &State,
    certain: &Plan,
) -> Vec<OrderDependent> {
    let store = &gc.snap.store;
    let poisoned = gc.misdirected_owner_uids(state);
    if poisoned.is_empty() {
        return Vec::new();
    }
    let mut worst_state = state.clone();
    let mut worklist = BTreeSet::new();
    for &uid in poisoned.keys() {
        worst_state.add_absent_owner(uid);
        if let Some(n) = gc.graph.uid_to_node(uid) {
            worklist.extend(
                gc.graph
                    .dependents(n)
                    .iter()
                    .filter_map(|&d| gc.graph.object(d)),
            );
        }
    }
    let worst = Plan::from_worklist(gc, worst_state, worklist);
    let mut out = Vec::new();
    for act in &worst.actions {
        let id = act.target;
        let deleted = !worst.end.exists(id);
        let already = !certain.end.exists(id);
        if already {
            continue;
        }
        let stripped = act.verb == Verb::RemoveOwnerReferences;
        if !(deleted || stripped) || out.iter().any(|o: &OrderDependent| o.object == id) {
            continue;
        }
        // Attribute to the poisoned UID it referenced (directly or through a deleted owner).
        let (owner_uid, bad) = store
            .owner_refs(id)
            .iter()
            .find_map(|r| poisoned.get(&r.uid).map(|b| (r.uid, *b)))
            .or_else(|| poisoned.iter().next().map(|(u, b)| (*u, *b)))
            .expect("poisoned is not empty");
        out.push(OrderDependent {
            object: id,
            owner_uid,
            bad_dependent: bad,
            deleted,
        });
    }
    out
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

/// Findings for a restart prediction: GC015 for what the restarted GC does, GC016 for what it
/// may do depending on list order (< 1.20), GC020 for garbage it never evaluates.
pub fn findings(gc: &GarbageCollector<'_>, r: &Restart) -> Vec<Finding> {
    let store = &gc.snap.store;
    let initial = gc.initial_state();
    let mut out = Vec::new();
    let mut severity_of_deleted: BTreeMap<ObjId, Severity> = BTreeMap::new();
    for act in &r.plan.actions {
        let id = act.target;
        let why = match r.visits.get(&id) {
            Some(c) if act.wave == 1 => visit_text(gc, c),
            _ => "a change earlier in the cascade makes the GC evaluate it".into(),
        };
        match act.verb {
            Verb::Delete => {
                let base = if has_misdirected_ref(gc, &initial, id) {
                    Severity::Critical
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
                let remedies = store
                    .owner_refs(id)
                    .iter()
                    .filter(|o| store.by_uid(o.uid).is_some_and(|h| h != id))
                    .map(|o| remedy::remove_ref(gc.snap, &r.plan.end, id, o.uid))
                    .collect();
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
        out.push(
            Finding::new(
                Code::RestartOrderDependent,
                if o.deleted {
                    Severity::Critical
                } else {
                    Severity::Error
                },
                o.object,
                if o.deleted {
                    "a restarted GC (< 1.20) may delete this object although its owner exists, depending on the order the informers list objects".into()
                } else {
                    "a restarted GC (< 1.20) may strip this valid ownerReference, depending on list order".into()
                },
                format!(
                    "{} has a bad reference to owner uid {}; if it is listed before the owner, the UID is cached as absent for every dependent (kubernetes#65200)",
                    gc.snap.describe(o.bad_dependent),
                    store.str(o.owner_uid)
                ),
            )
            .with_related(vec![o.bad_dependent])
            .with_remedies(vec![remedy::remove_ref(
                gc.snap,
                &initial,
                o.bad_dependent,
                o.owner_uid,
            )]),
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
                    "a restarted GC may never evaluate this object (the garbage stays) or may delete it, depending on the order its informers deliver objects".into()
                },
                st.why.clone(),
            ));
        }
    }
    out
}
