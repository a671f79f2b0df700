//! `attemptToDeleteItem` (the decision table of §3.2, rows 1–10) and
//! `processDeletingDependentsItem` (§3.5), as pure functions of a [`State`].

use super::GarbageCollector;
use super::classify::RefClass;
use super::state::State;
use crate::catalog::version::Change;
use crate::model::{ObjId, Sym};
use serde::Serialize;

/// The propagation policy of a DELETE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, PartialOrd, Ord, Hash)]
pub enum Policy {
    /// Dependents are orphaned (the `orphan` finalizer).
    Orphan,
    /// The object goes away now; the GC deletes dependents afterwards.
    Background,
    /// The object waits (`foregroundDeletion`) until blocking dependents are gone.
    Foreground,
}

impl Policy {
    /// The API's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Orphan => "Orphan",
            Policy::Background => "Background",
            Policy::Foreground => "Foreground",
        }
    }
}

/// What the GC does when it processes an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Not a node of the GC's graph (its resource is not monitored).
    NotMonitored,
    /// Row 1: terminating, not in foreground deletion: the GC waits for the final delete.
    Terminating,
    /// Row 6: no ownerReferences.
    NoOwners,
    /// Row 8 with nothing to remove: at least one solid owner. `unknown` lists references the
    /// snapshot could not check (the GC would strip them if they turn out dangling).
    Keep {
        /// UIDs of references whose status is unknown.
        unknown: Vec<Sym>,
    },
    /// Row 8: strip dangling and waiting references (UIDs: all dangling, then all waiting).
    RemoveRefs {
        /// UIDs to remove, in the GC's order.
        uids: Vec<Sym>,
        /// UIDs of references whose status is unknown.
        unknown: Vec<Sym>,
    },
    /// Rows 9/10: delete the object.
    Delete {
        /// The policy the GC sends.
        policy: Policy,
        /// The decision table's row: 9 (a waiting owner, and the object has dependents:
        /// foreground) or 10 (no solid owner left: the object's own policy).
        row: u8,
        /// Row 9's cycle guard: first set `blockOwnerDeletion=false` on the object's blocking
        /// references because a dependent is itself deletingDependents.
        unblock_first: bool,
    },
    /// §3.5: in foreground deletion and nothing blocks: remove `foregroundDeletion`.
    RemoveForegroundFinalizer,
    /// §3.5: in foreground deletion, waiting for these blocking dependents to go away.
    WaitForDependents {
        /// Dependents with `blockOwnerDeletion=true` references to the object.
        blocking: Vec<ObjId>,
    },
    /// Row 7 error: the GC cannot classify the references and never collects the object.
    NeverCollected {
        /// Why.
        reason: String,
        /// `true`: dropped from the queue (invalid scope); `false`: retried forever.
        dropped: bool,
    },
    /// The snapshot cannot tell what the GC would do.
    Unknown {
        /// Why.
        reason: String,
    },
}

impl Verdict {
    /// A short stable label.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::NotMonitored => "not-monitored",
            Verdict::Terminating => "terminating",
            Verdict::NoOwners => "no-owners",
            Verdict::Keep { .. } => "keep",
            Verdict::RemoveRefs { .. } => "remove-refs",
            Verdict::Delete { .. } => "delete",
            Verdict::RemoveForegroundFinalizer => "remove-foreground-finalizer",
            Verdict::WaitForDependents { .. } => "wait-for-dependents",
            Verdict::NeverCollected { .. } => "never-collected",
            Verdict::Unknown { .. } => "unknown",
        }
    }
}

impl GarbageCollector<'_> {
    /// Dependents of `owner` in the current state: existing objects that still reference its
    /// UID (the graph's dependents set as the GC would hold it).
    pub fn current_dependents(&self, state: &State, owner: ObjId) -> Vec<ObjId> {
        let uid = self.snap.store.object(owner).uid;
        let node = self.graph.node_of_object(owner);
        self.graph
            .dependents(node)
            .iter()
            .filter_map(|&d| self.graph.object(d))
            .filter(|&d| {
                state.exists(d)
                    && state
                        .owner_refs(&self.snap.store, d)
                        .iter()
                        .any(|r| r.uid == uid)
            })
            .collect()
    }

    /// `blockingDependents` (§1.2): dependents holding a `blockOwnerDeletion=true` reference
    /// to `owner` (once per such reference, as upstream).
    pub fn blocking_dependents(&self, state: &State, owner: ObjId) -> Vec<ObjId> {
        let uid = self.snap.store.object(owner).uid;
        let mut out = Vec::new();
        for d in self.current_dependents(state, owner) {
            for r in state.owner_refs(&self.snap.store, d) {
                if r.uid == uid && r.blocks() {
                    out.push(d);
                }
            }
        }
        out
    }

    /// `attemptToDeleteItem`: what the GC does when it takes an existing object off the
    /// `attemptToDelete` queue.
    pub fn attempt_to_delete_item(&self, state: &State, id: ObjId) -> Verdict {
        self.attempt_with(state, id, None)
    }

    /// [`Self::attempt_to_delete_item`] plus the classification of every current reference
    /// (what [`Self::classify_references`] returns), computed once for both, into a buffer
    /// the caller keeps: a pass over every object then allocates no classification per object.
    pub fn attempt_to_delete_item_classified_into(
        &self,
        state: &State,
        id: ObjId,
        classes: &mut Vec<RefClass>,
    ) -> Verdict {
        self.classify_references_into(state, id, classes);
        self.attempt_with(state, id, Some(classes))
    }

    /// `processDeletingDependentsItem` (§3.5): an object in foreground deletion loses its
    /// `foregroundDeletion` finalizer once no dependent blocks it.
    pub fn process_deleting_dependents_item(&self, state: &State, id: ObjId) -> Verdict {
        let blocking = self.blocking_dependents(state, id);
        if blocking.is_empty() {
            Verdict::RemoveForegroundFinalizer
        } else {
            Verdict::WaitForDependents { blocking }
        }
    }

    /// For an object outside the graph whose resource this release may monitor after all
    /// (an unverified release boundary, [`crate::catalog::gc::gc_monitoring_unsettled`]), and
    /// which holds a reference that is not solid: why its fate is unknown. A GC that watches it
    /// would act on that reference (delete it, or strip the reference); one that ignores it
    /// leaves it. With only solid references both keep it, and nothing is unknown. An object
    /// already being deleted is left out: either GC leaves it to its finalizers (a
    /// foreground-deleted Event is the exception no model here follows).
    pub fn monitoring_unsettled(&self, state: &State, id: ObjId) -> Option<String> {
        if !self.may_be_watched(state, id) {
            return None;
        }
        self.monitoring_unsettled_with(state, id, &self.classify_references(state, id))
    }

    /// [`Self::monitoring_unsettled`] with `id`'s references already classified.
    fn monitoring_unsettled_with(
        &self,
        state: &State,
        id: ObjId,
        classes: &[RefClass],
    ) -> Option<String> {
        if !self.may_be_watched(state, id)
            || classes.iter().all(|c| matches!(c, RefClass::Solid { .. }))
        {
            return None;
        }
        let resource = &self.snap.resources[self.snap.store.object(id).resource.index()];
        crate::catalog::gc::gc_monitoring_unsettled(
            &resource.group,
            &resource.plural,
            self.rules.version,
        )
    }

    /// Cheap test before any classification: `id` is outside the graph, not being deleted,
    /// and of a resource whose monitoring this release leaves unsettled.
    fn may_be_watched(&self, state: &State, id: ObjId) -> bool {
        if state.being_deleted(id) || !self.rules.version.unsettled(Change::EventsK8sIoIgnored) {
            return false;
        }
        let resource = &self.snap.resources[self.snap.store.object(id).resource.index()];
        crate::catalog::gc::gc_monitoring_unsettled_resource(&resource.group, &resource.plural)
    }

    /// `attempt_to_delete_item`, reusing `classes` (= `self.classify_references(state, id)`)
    /// when given.
    fn attempt_with(&self, state: &State, id: ObjId, classes: Option<&[RefClass]>) -> Verdict {
        let store = &self.snap.store;
        if !self.graph.monitors(id) {
            let unsettled = match classes {
                Some(classes) => self.monitoring_unsettled_with(state, id, classes),
                None => self.monitoring_unsettled(state, id),
            };
            return match unsettled {
                Some(reason) => Verdict::Unknown { reason },
                None => Verdict::NotMonitored,
            };
        }
        let deleting_dependents = state.deleting_dependents(store, id);
        // Row 1.
        if state.being_deleted(id) && !deleting_dependents {
            return Verdict::Terminating;
        }
        // Rows 2–4 (GET the item) are satisfied: the object exists in this state.
        // Row 5.
        if deleting_dependents {
            return self.process_deleting_dependents_item(state, id);
        }
        let refs = state.owner_refs(store, id);
        // Row 6.
        if refs.is_empty() {
            return Verdict::NoOwners;
        }
        // Row 7: classify; an error anywhere aborts (the first one decides how).
        let owned;
        let classes = match classes {
            Some(c) => c,
            None => {
                owned = self.classify_references(state, id);
                &owned
            }
        };
        if let Some(err) = classes.iter().find(|c| c.is_error()) {
            return match err {
                RefClass::InvalidScope => Verdict::NeverCollected {
                    reason: "cluster-scoped objects cannot refer to namespaced owners".into(),
                    dropped: true,
                },
                RefClass::Unresolvable { reason } => Verdict::NeverCollected {
                    reason: format!("unable to get REST mapping: {reason}"),
                    dropped: false,
                },
                RefClass::Unrequestable { reason } => Verdict::NeverCollected {
                    reason: reason.clone(),
                    dropped: false,
                },
                _ => unreachable!("is_error"),
            };
        }
        let mut solid = 0;
        let (mut dangling, mut waiting, mut unknown) = (Vec::new(), Vec::new(), Vec::new());
        for (r, c) in refs.iter().zip(classes) {
            match c {
                RefClass::Solid { .. } => solid += 1,
                RefClass::Dangling(_) => dangling.push(r.uid),
                RefClass::Waiting { .. } => waiting.push(r.uid),
                RefClass::Unknown { .. } => unknown.push(r.uid),
                RefClass::Unresolvable { .. }
                | RefClass::InvalidScope
                | RefClass::Unrequestable { .. } => unreachable!(),
            }
        }
        // Row 8.
        if solid > 0 {
            if dangling.is_empty() && waiting.is_empty() {
                return Verdict::Keep { unknown };
            }
            let mut uids = dangling;
            uids.extend(waiting);
            return Verdict::RemoveRefs { uids, unknown };
        }
        if let Some(RefClass::Unknown { reason }) = classes
            .iter()
            .find(|c| matches!(c, RefClass::Unknown { .. }))
        {
            return Verdict::Unknown {
                reason: reason.clone(),
            };
        }
        // Row 9.
        if !waiting.is_empty() {
            let dependents = self.current_dependents(state, id);
            if !dependents.is_empty() {
                // The graph's one-way flag, not the live finalizers (§1.2).
                let unblock_first = dependents
                    .iter()
                    .any(|&d| state.graph_deleting_dependents(d))
                    && refs.iter().any(|r| r.blocks());
                return Verdict::Delete {
                    policy: Policy::Foreground,
                    row: 9,
                    unblock_first,
                };
            }
        }
        // Row 10: the policy follows the object's own finalizers.
        let policy = if state.has_finalizer(store, id, state.orphan_sym()) {
            Policy::Orphan
        } else if state.has_finalizer(store, id, state.foreground_sym()) {
            Policy::Foreground
        } else {
            Policy::Background
        };
        Verdict::Delete {
            policy,
            row: 10,
            unblock_first: false,
        }
    }
}
