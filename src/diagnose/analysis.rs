//! The one analysis the object views read: the steady-state plan (`collect`, `audit`) and the
//! restart prediction (`check restart`) of the same snapshot and GC release. `why` answers
//! from it, so that what it says of an object is what `collect` and `check restart` say.
//!
//! Each object's end state and *when* it is reached ([`ObjectOutcome`]) are read off these
//! plans, never worked out again from the object alone: an object's fate depends on its
//! owners' (a cascade), on the order the GC takes (order-dependent outcomes) and on the release
//! (the pre-1.20 UID-keyed absent cache), which only the simulation sees.

use super::timeline::{Reason, Timeline, When};
use crate::gc::object_ref::by_group;
use crate::gc::plan::{EndState, OpenOrder, Plan, Verb};
use crate::gc::{GarbageCollector, ObjectRef, Verdict};
use crate::model::ObjId;
use serde::Serialize;

pub use super::timeline::end_state;

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

    /// When the GC acts on each object of the snapshot (nothing was written just now).
    pub fn timeline<'p, 'g, 'a>(&'p self, gc: &'g GarbageCollector<'a>) -> Timeline<'p, 'g, 'a> {
        Timeline::new(gc, &self.steady, &self.restart, [])
    }

    /// The end state of object `id` and when it is reached.
    pub fn outcome(&self, gc: &GarbageCollector<'_>, id: ObjId) -> ObjectOutcome {
        outcome(gc, &self.steady, &self.restart, &self.timeline(gc), id)
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
    /// When the GC acts ([`super::timeline`]): `now`, `restart` (only a GC that starts on
    /// this state acts: the next kube-controller-manager restart or leader change),
    /// `now-or-restart` / `now-or-never` (the input cannot tell whether the running GC saw
    /// what broke it), `never`, or `unknown`.
    pub when: When,
    /// Why then: `written`, `in-flight`, `owner-gone`, `sitting`, `not-rechecked`, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_reason: Option<Reason>,
    /// In a cascade: the owner whose deletion the GC's action follows (its *when* is this
    /// one's).
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
            when: When::Unknown,
            when_reason: None,
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

fn outcome(
    gc: &GarbageCollector<'_>,
    steady: &Plan,
    restart: &Plan,
    timeline: &Timeline<'_, '_, '_>,
    id: ObjId,
) -> ObjectOutcome {
    let snap = gc.snap;
    let store = &snap.store;
    let (state, refs, alternatives) = end_state(gc, steady, id);
    let first_action = steady.actions.iter().find(|a| a.target == id);
    let delete = steady
        .actions
        .iter()
        .find(|a| a.target == id && a.verb == Verb::Delete);
    let timing = timeline.timing(id);
    let mut out = ObjectOutcome {
        state: state_label(&state),
        when: timing.when,
        when_reason: timing.reason,
        after: timing.after.map(|o| ObjectRef::of(snap, o)),
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
        return out;
    }
    if state == EndState::Deleted {
        // Deleted with no request of the GC's on it: its namespace's deletion takes it.
        out.by = Some("namespace-controller");
        return out;
    }
    if !alternatives.is_empty() {
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
    if out.when == When::Restart {
        let (at_restart, restart_refs, _) = end_state(gc, restart, id);
        let acts = restart
            .actions
            .iter()
            .find(|a| a.target == id && a.verb == Verb::Delete);
        out.wave = acts.map(|a| a.wave);
        out.by = Some("garbage-collector");
        out.propagation_policy = acts.and_then(|a| a.policy).map(|p| p.as_str());
        out.at_restart = Some(state_why(gc, &at_restart, &restart_refs, None));
    }
    out
}
