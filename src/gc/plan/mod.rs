//! The GC's decisions simulated to a fixpoint (Appendix D.5): what it will do, step by step,
//! and the state every touched object ends in.
//!
//! [`super::simulation`] runs the GC's event flow and work queues in the order the GC takes
//! when nothing races. Upstream does not fix every order: the informers deliver their initial
//! lists concurrently (which dependent creates an owner's virtual node, whether a foreground
//! owner's dependents are linked before its add event, gc-model §1.4, §2.7), and two workers can
//! touch one object in the same round trip. One mechanism covers all of them: the simulation
//! is run again with each alternative order, on the part of the graph it can affect, and an
//! object whose end state differs between runs is **order-dependent**: its [`Outcome`] lists
//! every end state, and the plan's actions keep only the requests on it that every order
//! makes (no one step of a plan may act on something the GC may not do).
//!
//! **Files.** This one holds the report types ([`Plan`], [`Action`], [`Outcome`]) and the
//! entry points; `orders.rs` enumerates the open informer orders and the graph's components;
//! `driver.rs` runs the simulation in each order (`driver/flips.rs`: the re-runs that hold a
//! race's first chain back) and merges the runs (`driver/merge.rs`).

mod driver;
mod orders;

pub use driver::Pending;

use super::attempt_to_delete::Policy;
use super::graph_builder::VisitCause;
use super::simulation::{self, Start};
use super::{GarbageCollector, State};
use crate::model::{ObjId, Store, Sym};
use std::collections::BTreeMap;

/// A cap on simulated steps (API round trips).
pub const MAX_WAVES: u32 = simulation::MAX_STEPS;

/// What an action does (the `verb` of the JSON contract).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verb {
    /// DELETE with a propagation policy and a UID precondition.
    Delete,
    /// Strategic-merge patch removing ownerReferences by UID (§3.7 P1).
    RemoveOwnerReferences,
    /// Strategic-merge patch setting `blockOwnerDeletion=false` (§3.7 P2, the cycle guard of
    /// §3.2 row 9).
    UnblockOwnerReferences,
    /// JSON merge patch removing a finalizer (§3.7 P3).
    RemoveFinalizer,
}

impl Verb {
    /// The JSON contract's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Delete => "delete",
            Verb::RemoveOwnerReferences => "remove-owner-references",
            Verb::UnblockOwnerReferences => "unblock-owner-references",
            Verb::RemoveFinalizer => "remove-finalizer",
        }
    }
}

/// Why an action is taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The user's own delete being previewed.
    UserDelete,
    /// attemptToDeleteItem, §3.2 row 8: the object has a solid owner; these references are
    /// dangling or waiting, and are removed.
    StripDanglingAndWaiting,
    /// attemptToDeleteItem, §3.2 row 9: no solid owner, an owner waiting for its dependents'
    /// deletion, and the object has dependents of its own: it is deleted in the foreground.
    ForegroundForWaitingOwner,
    /// attemptToDeleteItem, §3.2 row 9's cycle guard: before that foreground delete, a
    /// dependent is itself deletingDependents, so the object's blocking references are
    /// unblocked first.
    CycleGuard,
    /// attemptToDeleteItem, §3.2 row 10: no solid owner left; deleted with its own policy.
    NoSolidOwner,
    /// processDeletingDependentsItem, §3.5: foreground deletion with no blocking dependent left.
    ForegroundDone,
    /// attemptToOrphan, §4: the owner is being deleted with Orphan propagation.
    Orphan {
        /// The owner being orphaned from.
        owner: ObjId,
    },
    /// attemptToOrphan, §4: all dependents were orphaned.
    OrphanDone,
}

impl Reason {
    /// The GC rule behind an action, as reports name it (the decision table's row numbers).
    pub fn rule(&self) -> &'static str {
        match self {
            Reason::UserDelete => "user request",
            Reason::StripDanglingAndWaiting => "attemptToDelete row 8",
            Reason::ForegroundForWaitingOwner => "attemptToDelete row 9",
            Reason::CycleGuard => "attemptToDelete row 9 (cycle guard)",
            Reason::NoSolidOwner => "attemptToDelete row 10",
            Reason::ForegroundDone => "processDeletingDependentsItem",
            Reason::Orphan { .. } | Reason::OrphanDone => "attemptToOrphan",
        }
    }
}

/// One action of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    /// The time step (API round trip, from 1) at which the GC sends the request.
    pub wave: u32,
    /// What.
    pub verb: Verb,
    /// On which object.
    pub target: ObjId,
    /// For deletes.
    pub policy: Option<Policy>,
    /// For patches: the owner UIDs removed or unblocked.
    pub owner_refs: Vec<Sym>,
    /// For finalizer removal.
    pub finalizer: Option<Sym>,
    /// Why.
    pub reason: Reason,
    /// Human-readable explanation (which references and why).
    pub detail: String,
}

impl Action {
    /// The owner UIDs a patch action removes or unblocks (`None` for other verbs).
    pub fn patched_owner_uids(&self, store: &Store) -> Option<Vec<String>> {
        matches!(
            self.verb,
            Verb::RemoveOwnerReferences | Verb::UnblockOwnerReferences
        )
        .then(|| {
            self.owner_refs
                .iter()
                .map(|u| store.str(*u).to_owned())
                .collect()
        })
    }
}

/// Predicted end state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndState {
    /// Gone.
    Deleted,
    /// Deletion requested but held by these finalizers.
    Terminating {
        /// Remaining finalizers.
        finalizers: Vec<Sym>,
    },
    /// Still there.
    Kept,
}

/// The end state of one object the plan touches or leaves stuck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The object.
    pub target: ObjId,
    /// Its end state.
    pub state: EndState,
    /// UIDs of its remaining ownerReferences (kept or terminating).
    pub owner_refs: Vec<Sym>,
    /// Why it is stuck (terminating forever, never collected, unknown), if it is.
    pub why: Option<String>,
    /// Other end states it reaches when the GC takes another order upstream does not fix
    /// (empty: the outcome is certain).
    pub alternatives: Vec<Alternative>,
}

impl Outcome {
    /// True when the end state depends on an order upstream does not fix.
    pub fn order_dependent(&self) -> bool {
        !self.alternatives.is_empty()
    }
}

/// Which order upstream leaves open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenOrder {
    /// The order in which the informers deliver objects to the graph builder.
    Informers,
    /// The timing of concurrent requests: which the API server serves first, and whether the
    /// GC's graph has caught up with them.
    Requests,
}

impl OpenOrder {
    /// What the end state depends on, for a finding's explanation.
    pub fn what(self) -> &'static str {
        match self {
            OpenOrder::Informers => "the order in which the GC's informers deliver objects",
            OpenOrder::Requests => {
                "the timing of concurrent GC requests on it (which the API server serves first, and whether the GC's graph has caught up with them)"
            }
        }
    }
}

/// Another possible end state of an order-dependent object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    /// The end state.
    pub state: EndState,
    /// UIDs of its remaining ownerReferences (kept or terminating).
    pub owner_refs: Vec<Sym>,
    /// In that order the GC never evaluates the object.
    pub never_evaluated: bool,
    /// Which order leads there.
    pub order: OpenOrder,
}

/// A plan.
#[derive(Debug)]
pub struct Plan {
    /// Actions in wave order.
    pub actions: Vec<Action>,
    /// Requests every order makes that the plan leaves out of `actions` because they wait for
    /// an order-dependent one (a foreground deletion's finalizer removal after a blocking
    /// dependent whose deletion is order-dependent): what `--apply` reports as left, never
    /// performs.
    pub withheld: Vec<Action>,
    /// End states, sorted by target (at most one per object).
    pub outcomes: Vec<Outcome>,
    /// The state after the last wave.
    pub end: State,
    /// Number of waves that had actions.
    pub waves: u32,
    /// True when [`MAX_WAVES`] was hit before a fixpoint.
    pub truncated: bool,
    /// Objects evaluated because of the start (not as a consequence of the GC's own
    /// requests), and why: what a restarted GC visits (§6.22).
    pub visits: BTreeMap<ObjId, VisitCause>,
    /// Per object: an attemptToDelete worker evaluated it (in the order the plan follows).
    pub evaluated: Vec<bool>,
    /// Per object: the start reached it, in the order the plan follows: the user's delete
    /// names it, a write changed it (the user's, the GC's or the namespace controller's), or
    /// an attemptToDelete worker evaluated it. In a delete preview, what the delete affects;
    /// an object it leaves false was already as it ends before the delete.
    pub reached: Vec<bool>,
}

/// A delete the user asks to preview (`collect --delete`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserDelete {
    /// The object.
    pub target: ObjId,
    /// The policy sent; `None` = no explicit policy (the type's default, Appendix B).
    pub policy: Option<Policy>,
}

impl Plan {
    /// The GC's steady state: what it does to the whole snapshot once every object has been
    /// through attemptToDeleteItem, as a GC that was running when the state arose (Appendix
    /// D.6).
    pub fn steady_state(gc: &GarbageCollector<'_>) -> Plan {
        driver::simulate(gc, Start::SteadyState)
    }

    /// [`Plan::steady_state`] up to where it needs to know which objects are not quiet
    /// ([`crate::gc::simulation::Unquiet`]); [`Pending::finish`] takes that set. For a caller
    /// that classifies every reference anyway (the audit): the plan does not classify them a
    /// second time, and its other work can run beside that classification.
    pub fn steady_state_pending<'g, 'a>(gc: &'g GarbageCollector<'a>) -> Pending<'g, 'a> {
        driver::begin_steady_state(gc)
    }

    /// What a GC that starts on the snapshot does (§6.22): only what its initial add events
    /// enqueue, and everything that follows.
    pub fn restart(gc: &GarbageCollector<'_>) -> Plan {
        driver::simulate(gc, Start::Restart)
    }

    /// What a user's delete would remove: the delete itself, then only the GC work it
    /// triggers.
    pub fn preview_delete(gc: &GarbageCollector<'_>, delete: UserDelete) -> Plan {
        driver::simulate(gc, Start::UserDelete(delete))
    }

    /// Number of actions per verb.
    pub fn count(&self, verb: Verb) -> usize {
        self.actions.iter().filter(|a| a.verb == verb).count()
    }

    /// Objects deleted, counted by (kind, namespace).
    pub fn deleted_by_kind_namespace(
        &self,
        gc: &GarbageCollector<'_>,
    ) -> BTreeMap<(String, String), usize> {
        let mut out = BTreeMap::new();
        for o in &self.outcomes {
            if o.state == EndState::Deleted {
                let obj = gc.snap.store.object(o.target);
                let key = (
                    gc.snap.resource_of(obj).kind.clone(),
                    gc.snap.store.str(obj.namespace).to_owned(),
                );
                *out.entry(key).or_insert(0) += 1;
            }
        }
        out
    }
}
