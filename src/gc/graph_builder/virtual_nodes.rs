//! Virtual nodes (gc-model §1.4, §2.3–§2.5): owners no informer has shown, created by the
//! first dependent that names them, and the virtual delete events a worker queues when its
//! GET finds nothing (or another UID) there, with `partitionDependents` and
//! `getAlternateOwnerIdentity` deciding which dependents are queued and which identity is
//! verified next. Kept apart from the informer events ([`super::events`]) because this is
//! where the coordinate-aware releases (PR #92743, #98068) differ most.

use super::{DynNode, GraphBuilder, Queue, VisitCause, dflags};
use crate::gc::graph::{Identity, NodeId};
use crate::gc::{GarbageCollector, State};
use crate::model::{ObjId, Sym};

impl GraphBuilder<'_> {
    pub(super) fn new_virtual(&mut self, gc: &GarbageCollector<'_>, identity: Identity) -> NodeId {
        let base = gc.graph.uid_to_node(identity.uid);
        let n = DynNode {
            id: identity,
            flags: dflags::VIRTUAL,
        };
        let id = match base {
            Some(b) if self.slot_free(b) => {
                self.set_node(b, n);
                b
            }
            _ => self.push_node(n),
        };
        self.used_slot(id);
        self.insert(id);
        id
    }

    /// A virtual delete event, queued by a worker whose GET found nothing (or another UID) at
    /// `deleted` (§2.2 B4). `deleted` is rebuilt the way `enqueueVirtualDeleteEvent` and
    /// `identityFromEvent` rebuild it: the apiVersion goes through `ParseGroupVersion`, so
    /// `"/v1"` comes back as `"v1"` (§2.3), `processGraphChanges` then finds the identities
    /// differ and `partitionDependents` matches no dependent (issue 14 case 5: stranded).
    pub fn virtual_delete(&mut self, gc: &GarbageCollector<'_>, state: &State, deleted: Identity) {
        let store = &gc.snap.store;
        let mut deleted = deleted;
        if store.str(deleted.api_version) == "/v1" {
            deleted.api_version = self.core_v1.unwrap_or(Sym(u32::MAX));
        }
        let Some(existing) = self.uid_to_node(deleted.uid) else {
            return;
        };
        if !self.coordinate_aware {
            // Before v1.20: the node goes, the UID is cached as absent, every dependent is
            // queued.
            let obj = self.object(gc, existing);
            self.remove_node(gc, state, existing, obj);
            self.absent_uids.push(deleted.uid);
            return;
        }
        let node = self.node(existing);
        if node.is_virtual() {
            let (matching, non_matching) = self.partition_dependents(gc, state, existing, &deleted);
            if !non_matching.is_empty() {
                if !matching.is_empty() {
                    self.absent_uids.push(deleted.uid);
                    self.enqueue_objects(gc, matching, |_| VisitCause::MissingOwner {
                        uid: deleted.uid,
                    });
                }
                if node.id == deleted
                    && let Some(alt) =
                        self.alternate_owner_identity(gc, state, &non_matching, &deleted)
                {
                    let clone = self.clone_node(existing, alt);
                    self.push(Queue::AttemptToDeleteRateLimited, clone, VisitCause::Retry);
                }
                return;
            }
            // Every dependent agrees with the identity found absent: the node goes.
            let deps = matching;
            self.remove_uid(deleted.uid);
            if !deps.is_empty() {
                self.absent_uids.push(deleted.uid);
            }
            self.enqueue_objects(gc, deps, |_| VisitCause::MissingOwner { uid: deleted.uid });
            return;
        }
        if node.id != deleted {
            let (matching, _) = self.partition_dependents(gc, state, existing, &deleted);
            if !matching.is_empty() {
                self.absent_uids.push(deleted.uid);
                self.enqueue_objects(gc, matching, |_| VisitCause::MissingOwner {
                    uid: deleted.uid,
                });
            }
            return;
        }
        // Observed with the same identity: a worker saw it gone before its informer did.
        let obj = self.object(gc, existing);
        self.remove_node(gc, state, existing, obj);
    }

    /// `partitionDependents` (§2.4): dependents whose references to the UID match `id`'s
    /// coordinates, and those that do not (a dependent can be in both).
    pub(super) fn partition_dependents(
        &self,
        gc: &GarbageCollector<'_>,
        state: &State,
        node: NodeId,
        id: &Identity,
    ) -> (Vec<ObjId>, Vec<ObjId>) {
        let store = &gc.snap.store;
        let (mut matching, mut non_matching) = (Vec::new(), Vec::new());
        for d in self.dependents(gc, state, node) {
            if !id.namespace.is_empty() && store.object(d).namespace != id.namespace {
                non_matching.push(d);
                continue;
            }
            let (mut m, mut nm) = (false, false);
            for r in state
                .owner_refs(store, d)
                .iter()
                .filter(|r| r.uid == id.uid)
            {
                if r.api_version == id.api_version && r.kind == id.kind && r.name == id.name {
                    m = true;
                } else {
                    nm = true;
                }
            }
            if m {
                matching.push(d);
            }
            if nm {
                non_matching.push(d);
            }
        }
        (matching, non_matching)
    }

    /// `getAlternateOwnerIdentity` (§2.5): the next identity to verify after `absent`, among
    /// the non-matching dependents' references, in (kind, apiVersion, namespace, name, uid)
    /// byte order, wrapping around.
    fn alternate_owner_identity(
        &self,
        gc: &GarbageCollector<'_>,
        state: &State,
        deps: &[ObjId],
        absent: &Identity,
    ) -> Option<Identity> {
        let store = &gc.snap.store;
        let key = |i: &Identity| {
            (
                store.str(i.kind),
                store.str(i.api_version),
                store.str(i.namespace),
                store.str(i.name),
                store.str(i.uid),
            )
        };
        let mut candidates: Vec<Identity> = Vec::new();
        for &d in deps {
            let dns = store.object(d).namespace;
            for r in state
                .owner_refs(store, d)
                .iter()
                .filter(|r| r.uid == absent.uid)
            {
                let same = r.api_version == absent.api_version
                    && r.kind == absent.kind
                    && r.name == absent.name;
                if same && (absent.namespace.is_empty() || dns == absent.namespace) {
                    continue;
                }
                let mut c = Identity {
                    api_version: r.api_version,
                    kind: r.kind,
                    name: r.name,
                    uid: r.uid,
                    namespace: dns,
                };
                if absent.namespace.is_empty()
                    && c.api_version == absent.api_version
                    && c.kind == absent.kind
                {
                    c.namespace = Sym::EMPTY;
                }
                if c != *absent && !candidates.contains(&c) {
                    candidates.push(c);
                }
            }
        }
        candidates.sort_by(|a, b| key(a).cmp(&key(b)));
        let k = key(absent);
        candidates
            .iter()
            .find(|c| key(c) > k)
            .or_else(|| candidates.first())
            .copied()
    }
}
