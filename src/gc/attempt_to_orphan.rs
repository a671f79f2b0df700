//! `attemptToOrphan` (§4): an owner deleted with `propagationPolicy=Orphan` carries the
//! `orphan` finalizer; the GC strips the owner's UID from every dependent (`orphanDependents`),
//! then removes the finalizer, and the owner goes away.

use super::GarbageCollector;
use super::plan::{Action, Reason, Verb};
use super::state::State;
use crate::model::ObjId;

impl GarbageCollector<'_> {
    /// The requests attemptToOrphan sends for `owner` (terminating with `orphan`) in `wave`:
    /// one ownerReference removal per current dependent, then the finalizer removal.
    pub fn attempt_to_orphan(&self, state: &State, owner: ObjId, wave: u32) -> Vec<Action> {
        let store = &self.snap.store;
        let uid = store.object(owner).uid;
        let mut out: Vec<Action> = self
            .current_dependents(state, owner)
            .into_iter()
            .map(|d| Action {
                wave,
                verb: Verb::RemoveOwnerReferences,
                target: d,
                policy: None,
                owner_refs: vec![uid],
                finalizer: None,
                reason: Reason::Orphan { owner },
                detail: format!(
                    "orphaning from {} (being deleted with propagationPolicy=Orphan)",
                    self.snap.describe(owner)
                ),
            })
            .collect();
        out.push(Action {
            wave,
            verb: Verb::RemoveFinalizer,
            target: owner,
            policy: None,
            owner_refs: vec![],
            finalizer: Some(state.orphan_sym()),
            reason: Reason::OrphanDone,
            detail: "all dependents orphaned".into(),
        });
        out
    }
}
