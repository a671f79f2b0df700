//! `attemptToOrphan` (§4): an owner deleted with `propagationPolicy=Orphan` carries the
//! `orphan` finalizer; the GC strips the owner's UID from every dependent (`orphanDependents`),
//! then removes the finalizer, and the owner goes away. The simulation (`simulation/`) decides
//! when each request is sent; the requests themselves are built here.

use super::GarbageCollector;
use super::plan::{Action, Reason, Verb};
use crate::model::ObjId;

impl GarbageCollector<'_> {
    /// `orphanDependents`' patch of one dependent, sent at step `wave`: its references to
    /// `owner` (by UID) removed.
    pub fn orphan_patch(&self, owner: ObjId, dependent: ObjId, wave: u32) -> Action {
        Action {
            wave,
            verb: Verb::RemoveOwnerReferences,
            target: dependent,
            policy: None,
            owner_refs: vec![self.snap.store.object(owner).uid],
            finalizer: None,
            reason: Reason::Orphan { owner },
            detail: format!(
                "orphaning from {} (being deleted with propagationPolicy=Orphan)",
                self.snap.describe(owner)
            ),
        }
    }
}
