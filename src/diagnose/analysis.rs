//! The one analysis the object views read: the steady-state plan (`collect`, `audit`) and the
//! restart prediction (`check restart`) of the same snapshot and GC release. `why` answers
//! from it, so that what it says of an object is what `collect` and `check restart` say.
//!
//! Each object's end state and *when* it is reached ([`ObjectOutcome`]) are read off these
//! plans, never worked out again from the object alone: an object's fate depends on its
//! owners' (a cascade), on the order the GC takes (order-dependent outcomes) and on the release
//! (the pre-1.20 UID-keyed absent cache), which only the simulation sees.

use crate::gc::object_ref::by_group;
use crate::gc::plan::{Alternative, EndState, OpenOrder, Plan, Verb};
use crate::gc::{GarbageCollector, ObjectRef, Verdict};
use crate::model::ObjId;
use serde::Serialize;

/// The plans of one snapshot.
#[derive(Debug)]
pub struct Analysis {
    /// What the running GC does once every object has been through attemptToDeleteItem: the
    /// plan `collect` prints and `audit` checks.
    pub steady: Plan,
    /// What a GC that starts on the snapshot does: the plan of `check restart`.
    pub restart: Plan,
}

impl Analysis {
    /// Simulates both plans.
    pub fn new(gc: &GarbageCollector<'_>) -> Analysis {
        Analysis {
            steady: Plan::steady_state(gc),
            restart: Plan::restart(gc),
        }
    }

    /// The end state of object `id` and when it is reached.
    pub fn outcome(&self, gc: &GarbageCollector<'_>, id: ObjId) -> ObjectOutcome {
        outcome(gc, &self.steady, &self.restart, id)
    }
}

/// One possible end state.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct StateWhy {
    /// `deleted`, `terminating` or `kept`.
    pub state: &'static str,
    /// For `terminating`: the finalizers that hold it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
    /// For `kept`: the UIDs of the ownerReferences it ends with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_references: Option<Vec<String>>,
    /// For an alternative: which order upstream leaves open leads there (`informers`,
    /// `requests`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<&'static str>,
}

/// What becomes of the object, as `collect` predicts it, and when.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ObjectOutcome {
    /// `deleted`, `kept`, `terminating`, `order-dependent` or `unknown`.
    pub state: &'static str,
    /// `now` (as soon as the GC evaluates it), `after` (once [`Self::after`] is deleted),
    /// `restart` (only a GC that starts on this state acts: the next kube-controller-manager
    /// restart or leader change), `never`, or `unknown`.
    pub when: &'static str,
    /// For `when: after`: the owner whose deletion the GC's action follows.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "by_group::option"
    )]
    pub after: Option<ObjectRef>,
    /// The time step (API round trip, from 1) of the action that decides it, as `collect`
    /// numbers its waves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wave: Option<u32>,
    /// Who acts: `garbage-collector` or `namespace-controller`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<&'static str>,
    /// For a delete: the propagation policy the GC sends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub propagation_policy: Option<&'static str>,
    /// For `terminating`: the finalizers that hold it at the end.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
    /// For `order-dependent`: every end state it can reach, the order the plan follows first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<StateWhy>,
    /// For `when: restart`: what a restarted GC leaves of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_restart: Option<StateWhy>,
}

impl ObjectOutcome {
    /// An outcome nothing is known of (the object could not be read).
    pub fn unknown() -> ObjectOutcome {
        ObjectOutcome {
            state: "unknown",
            when: "unknown",
            after: None,
            wave: None,
            by: None,
            propagation_policy: None,
            finalizers: Vec::new(),
            alternatives: Vec::new(),
            at_restart: None,
        }
    }
}

fn state_label(s: &EndState) -> &'static str {
    match s {
        EndState::Deleted => "deleted",
        EndState::Terminating { .. } => "terminating",
        EndState::Kept => "kept",
    }
}

/// One end state as reports name it.
pub fn state_why(
    gc: &GarbageCollector<'_>,
    s: &EndState,
    owner_refs: &[crate::model::Sym],
    order: Option<OpenOrder>,
) -> StateWhy {
    let store = &gc.snap.store;
    StateWhy {
        state: state_label(s),
        finalizers: match s {
            EndState::Terminating { finalizers } => finalizers
                .iter()
                .map(|f| store.str(*f).to_owned())
                .collect(),
            _ => Vec::new(),
        },
        owner_references: (*s == EndState::Kept).then(|| {
            owner_refs
                .iter()
                .map(|u| store.str(*u).to_owned())
                .collect()
        }),
        order: order.map(|o| match o {
            OpenOrder::Informers => "informers",
            OpenOrder::Requests => "requests",
        }),
    }
}

/// The end state `plan` gives `id`: its outcome where the plan lists one, else what the
/// plan's end state holds (objects the plan neither touches nor leaves stuck are as they
/// were).
pub fn end_state(
    gc: &GarbageCollector<'_>,
    plan: &Plan,
    id: ObjId,
) -> (EndState, Vec<crate::model::Sym>, Vec<Alternative>) {
    if let Ok(i) = plan.outcomes.binary_search_by_key(&id, |o| o.target) {
        let o = &plan.outcomes[i];
        return (
            o.state.clone(),
            o.owner_refs.clone(),
            o.alternatives.clone(),
        );
    }
    let store = &gc.snap.store;
    let end = &plan.end;
    let refs = || end.owner_refs(store, id).iter().map(|r| r.uid).collect();
    if !end.exists(id) {
        (EndState::Deleted, Vec::new(), Vec::new())
    } else if end.being_deleted(id) {
        let finalizers = end.finalizers(store, id).to_vec();
        (EndState::Terminating { finalizers }, refs(), Vec::new())
    } else {
        (EndState::Kept, refs(), Vec::new())
    }
}

fn outcome(gc: &GarbageCollector<'_>, steady: &Plan, restart: &Plan, id: ObjId) -> ObjectOutcome {
    let snap = gc.snap;
    let store = &snap.store;
    let (state, refs, alternatives) = end_state(gc, steady, id);
    let first_action = steady.actions.iter().find(|a| a.target == id);
    let delete = steady
        .actions
        .iter()
        .find(|a| a.target == id && a.verb == Verb::Delete);
    let mut out = ObjectOutcome {
        state: state_label(&state),
        when: "never",
        after: None,
        wave: None,
        by: None,
        propagation_policy: delete.and_then(|a| a.policy).map(|p| p.as_str()),
        finalizers: match &state {
            EndState::Terminating { finalizers } => finalizers
                .iter()
                .map(|f| store.str(*f).to_owned())
                .collect(),
            _ => Vec::new(),
        },
        alternatives: Vec::new(),
        at_restart: None,
    };
    if !alternatives.is_empty() {
        out.state = "order-dependent";
        out.alternatives.push(state_why(gc, &state, &refs, None));
        out.alternatives.extend(
            alternatives
                .iter()
                .map(|a| state_why(gc, &a.state, &a.owner_refs, Some(a.order))),
        );
    }
    let gone_or_going = state != EndState::Kept
        || alternatives.iter().any(|a| a.state != EndState::Kept)
        || delete.is_some();
    // The GC's own request decides it: when it is sent, and what it follows.
    if let Some(act) = delete.or(first_action.filter(|_| gone_or_going)) {
        out.wave = Some(act.wave);
        out.by = Some("garbage-collector");
        out.when = "now";
        if let Some(owner) = cause_before(gc, steady, id, act.wave) {
            out.when = "after";
            out.after = Some(ObjectRef::of(snap, owner));
        }
        return out;
    }
    if state == EndState::Deleted {
        // Deleted with no request of the GC's on it: its namespace's deletion takes it.
        out.when = "now";
        out.by = Some("namespace-controller");
        return out;
    }
    if !alternatives.is_empty() {
        // No request every order makes: the fate is decided when the GC evaluates it.
        out.when = if gone_or_going { "now" } else { "never" };
        return out;
    }
    if state == EndState::Kept
        && matches!(
            gc.attempt_to_delete_item(&steady.end, id),
            Verdict::Unknown { .. }
        )
    {
        return ObjectOutcome::unknown();
    }
    if state == EndState::Kept {
        let (at_restart, restart_refs, restart_alts) = end_state(gc, restart, id);
        let acts = restart
            .actions
            .iter()
            .find(|a| a.target == id && a.verb == Verb::Delete);
        if at_restart != EndState::Kept
            || restart_alts.iter().any(|a| a.state != EndState::Kept)
            || acts.is_some()
        {
            out.when = "restart";
            out.wave = acts.map(|a| a.wave);
            out.by = Some("garbage-collector");
            out.propagation_policy = acts.and_then(|a| a.policy).map(|p| p.as_str());
            out.at_restart = Some(state_why(gc, &at_restart, &restart_refs, None));
        }
    }
    out
}

/// The owner whose deletion (or start of a foreground deletion) the plan sends before
/// `wave`, the latest such: what an action on `id` in a cascade follows.
fn cause_before(gc: &GarbageCollector<'_>, plan: &Plan, id: ObjId, wave: u32) -> Option<ObjId> {
    let store = &gc.snap.store;
    let owners: Vec<ObjId> = store
        .owner_refs(id)
        .iter()
        .filter_map(|r| store.by_uid(r.uid))
        .filter(|&o| o != id)
        .collect();
    plan.actions
        .iter()
        .filter(|a| a.wave < wave && a.verb == Verb::Delete && owners.contains(&a.target))
        .max_by_key(|a| a.wave)
        .map(|a| a.target)
}
