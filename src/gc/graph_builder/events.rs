//! Informer events, as upstream's `processGraphChanges` handles them (gc-model §2.2): add and
//! update events (step A's first sighting of a virtual node, B1 new nodes, B2 changed
//! references), `addDependentToOwners` (§2.6), `processTransitions` (§2.7),
//! `addUnblockedOwnersToDeleteQueue` (§2.9), `referencesDiffs` (§2.8), and real delete events
//! with `removeNode`. The virtual-node side (virtual delete events, identity checks) is in
//! [`super::virtual_nodes`].

use super::{DynNode, GraphBuilder, OldMeta, Queue, VisitCause, dflags};
use crate::gc::graph::{Identity, NodeId};
use crate::gc::{GarbageCollector, State};
use crate::model::{ObjId, OwnerRef, Sym};

impl GraphBuilder<'_> {
    /// An add event (an informer's initial list, or a created object).
    pub fn add(&mut self, gc: &GarbageCollector<'_>, state: &State, obj: ObjId) {
        self.observe(gc, state, obj, None, false);
    }

    /// The add events of `objs` delivered so that every owner comes before its dependents:
    /// first every node is observed (and its deletion's start processed, §2.7: no dependent
    /// is linked yet), then every object is linked to its owners (§2.6). Only owners no object
    /// stands for get virtual nodes. This is the cheapest of the informers' possible orders,
    /// and the one a GC that observes owners first would take.
    pub fn add_owners_first(&mut self, gc: &GarbageCollector<'_>, state: &State, objs: &[ObjId]) {
        for &o in objs {
            self.observe(gc, state, o, None, true);
        }
        let store = &gc.snap.store;
        for &o in objs {
            if let Some(n) = self.uid_to_node(store.object(o).uid) {
                self.linked[o.index()] = true;
                self.add_dependent_to_owners(gc, state, o, n, state.owner_refs(store, o));
            }
        }
    }

    /// An update event; `old` is the object as it was.
    pub fn update(&mut self, gc: &GarbageCollector<'_>, state: &State, obj: ObjId, old: &OldMeta) {
        self.observe(gc, state, obj, Some(old), false);
    }

    /// Add and update events (`processGraphChanges`, §2.2 step A, B1 and B2).
    fn observe(
        &mut self,
        gc: &GarbageCollector<'_>,
        state: &State,
        obj: ObjId,
        old: Option<&OldMeta>,
        defer_links: bool,
    ) {
        let store = &gc.snap.store;
        let o = store.object(obj);
        let observed = Self::observed_identity(gc, obj);
        let mut existing = self.uid_to_node(o.uid);
        // Step A: the first sighting of a virtual node.
        if let Some(n) = existing
            && self.node(n).is_virtual()
        {
            let mut n = n;
            if self.coordinate_aware && self.node(n).id != observed {
                let (_, non_matching) = self.partition_dependents(gc, state, n, &observed);
                let owner = obj;
                let ns_owner = !observed.namespace.is_empty();
                for d in non_matching {
                    let cause = if ns_owner && store.object(d).namespace != observed.namespace {
                        VisitCause::NamespaceMismatch { owner }
                    } else {
                        VisitCause::CoordinateMismatch {
                            owner: gc.graph.node_of_object(obj),
                        }
                    };
                    if let Some(dn) = self.node_for_linked(gc, d) {
                        self.push(Queue::AttemptToDelete, dn, cause);
                    }
                }
                n = self.clone_node(n, observed);
            }
            self.clear_flag(n, dflags::VIRTUAL);
            existing = Some(n);
        }
        let refs = state.owner_refs(store, obj);
        let being_deleted = state.being_deleted(obj);
        let node = match existing {
            None => {
                // B1: a new node, linked to its owners.
                let id = self.fresh_node(gc, obj, observed);
                if being_deleted {
                    self.set_flag(id, dflags::BEING_DELETED);
                }
                if !defer_links {
                    self.linked[obj.index()] = true;
                    self.add_dependent_to_owners(gc, state, obj, id, refs);
                }
                id
            }
            Some(n) => {
                // B2: refs changed? (A virtual node that was just observed has no owners yet:
                // every reference is added.)
                let old_refs: &[OwnerRef] = match old {
                    Some(old) if self.linked[obj.index()] => &old.refs,
                    _ => &[],
                };
                let was_linked = self.linked[obj.index()];
                if !defer_links {
                    self.linked[obj.index()] = true;
                }
                let (added, removed, changed) = references_diffs(old_refs, refs);
                if defer_links && !was_linked {
                    // Linked in the second pass.
                } else if !was_linked
                    || !added.is_empty()
                    || !removed.is_empty()
                    || !changed.is_empty()
                {
                    self.add_unblocked_owners_to_delete_queue(&removed, &changed);
                    self.add_dependent_to_owners(gc, state, obj, n, &added);
                }
                if being_deleted {
                    self.set_flag(n, dflags::BEING_DELETED);
                }
                n
            }
        };
        self.process_transitions(gc, state, obj, node, old);
    }

    fn fresh_node(&mut self, gc: &GarbageCollector<'_>, obj: ObjId, identity: Identity) -> NodeId {
        // The base slot of the object, unless a superseded node already uses it.
        let base = gc.graph.node_of_object(obj);
        let n = DynNode {
            id: identity,
            flags: 0,
        };
        let id = if self.slot_free(base) {
            self.set_node(base, n);
            base
        } else {
            self.push_node(n)
        };
        self.used_slot(id);
        self.insert(id);
        id
    }

    /// `addDependentToOwners` (§2.6, §1.5 path 1).
    fn add_dependent_to_owners(
        &mut self,
        gc: &GarbageCollector<'_>,
        state: &State,
        obj: ObjId,
        node: NodeId,
        refs: &[OwnerRef],
    ) {
        let dep_ns = gc.snap.store.object(obj).namespace;
        let mut problem: Option<VisitCause> = None;
        for r in refs {
            self.link(gc, r.uid, obj);
            match self.uid_to_node(r.uid) {
                None => {
                    // A virtual node for an owner no informer has shown (§1.4).
                    let identity = Identity {
                        api_version: r.api_version,
                        kind: r.kind,
                        name: r.name,
                        uid: r.uid,
                        namespace: dep_ns,
                    };
                    let id = self.new_virtual(gc, identity);
                    self.push(Queue::AttemptToDelete, id, VisitCause::VirtualOwner);
                }
                Some(owner) if self.coordinate_aware && problem.is_none() => {
                    let o = self.node(owner);
                    let owner_ns = o.id.namespace;
                    if !owner_ns.is_empty() && owner_ns != dep_ns {
                        problem = Some(match gc.snap.store.by_uid(r.uid) {
                            Some(real) if !o.is_virtual() => {
                                VisitCause::NamespaceMismatch { owner: real }
                            }
                            _ => VisitCause::CoordinateMismatch {
                                owner: gc.graph.uid_to_node(r.uid).unwrap_or(owner),
                            },
                        });
                    } else if !(o.id.api_version == r.api_version
                        && o.id.kind == r.kind
                        && o.id.name == r.name)
                    {
                        problem = Some(VisitCause::CoordinateMismatch {
                            owner: gc.graph.uid_to_node(r.uid).unwrap_or(owner),
                        });
                    } else if self.third_check
                        && owner_ns.is_empty()
                        && !dep_ns.is_empty()
                        && o.is_virtual()
                    {
                        // PR #98068: a namespace-less virtual owner (created by a cluster-scoped
                        // dependent) must not hide a missing namespaced owner.
                        problem = Some(VisitCause::MissingOwner { uid: r.uid });
                    }
                }
                Some(_) => {}
            }
        }
        if let Some(cause) = problem {
            self.push(Queue::AttemptToDelete, node, cause);
        }
        let _ = state;
    }

    /// `processTransitions` (§2.7).
    fn process_transitions(
        &mut self,
        gc: &GarbageCollector<'_>,
        state: &State,
        obj: ObjId,
        node: NodeId,
        old: Option<&OldMeta>,
    ) {
        let store = &gc.snap.store;
        let starts = |f: Sym| {
            state.being_deleted(obj)
                && state.has_finalizer(store, obj, f)
                && match old {
                    None => true,
                    Some(o) => !o.being_deleted || !o.finalizers.contains(&f),
                }
        };
        if starts(state.orphan_sym()) {
            self.push(Queue::AttemptToOrphan, node, VisitCause::Orphaning);
            return;
        }
        if starts(state.foreground_sym()) {
            self.set_flag(node, dflags::DELETING_DEPENDENTS);
            let deps = self.dependents(gc, state, node);
            self.enqueue_objects(gc, deps, |_| VisitCause::OwnerInForeground { owner: obj });
            self.push(Queue::AttemptToDelete, node, VisitCause::InForeground);
        }
    }

    /// `addUnblockedOwnersToDeleteQueue` (§2.9).
    fn add_unblocked_owners_to_delete_queue(
        &mut self,
        removed: &[OwnerRef],
        changed: &[(OwnerRef, OwnerRef)],
    ) {
        for r in removed {
            if r.blocks()
                && let Some(n) = self.uid_to_node(r.uid)
            {
                self.push(Queue::AttemptToDelete, n, VisitCause::DependentChanged);
            }
        }
        for (old, new) in changed {
            if old.blocks()
                && !new.blocks()
                && let Some(n) = self.uid_to_node(new.uid)
            {
                self.push(Queue::AttemptToDelete, n, VisitCause::DependentChanged);
            }
        }
    }

    /// A real delete event: the object is gone (§2.2 B4, `removeNode`).
    pub fn delete(&mut self, gc: &GarbageCollector<'_>, state: &State, obj: ObjId) {
        let uid = gc.snap.store.object(obj).uid;
        let Some(node) = self.uid_to_node(uid) else {
            return;
        };
        if self.node(node).is_virtual() {
            // Step A applies to deletes too: observed (and at once removed).
            self.clear_flag(node, dflags::VIRTUAL);
        }
        self.remove_node(gc, state, node, Some(obj));
    }

    /// `removeNode` plus its consequences: dependents queued, owners in foreground deletion
    /// re-checked.
    pub(super) fn remove_node(
        &mut self,
        gc: &GarbageCollector<'_>,
        state: &State,
        node: NodeId,
        obj: Option<ObjId>,
    ) {
        let store = &gc.snap.store;
        let uid = self.node(node).id.uid;
        let deps = self.dependents_of_uid(gc, state, uid);
        self.remove_uid(uid);
        if let Some(o) = obj {
            self.linked[o.index()] = false;
        }
        if !deps.is_empty() {
            self.absent_uids.push(uid);
        }
        self.enqueue_objects(gc, deps, |_| VisitCause::OwnerRemoved { uid });
        if let Some(o) = obj {
            for r in state.owner_refs(store, o) {
                if let Some(owner) = self.uid_to_node(r.uid)
                    && self.node(owner).deleting_dependents()
                {
                    self.push(Queue::AttemptToDelete, owner, VisitCause::DependentChanged);
                }
            }
        }
    }
}

/// `referencesDiffs` (§2.8): added, removed, and changed (old, new) references by UID.
pub fn references_diffs(
    old: &[OwnerRef],
    new: &[OwnerRef],
) -> (Vec<OwnerRef>, Vec<OwnerRef>, Vec<(OwnerRef, OwnerRef)>) {
    let mut old_by_uid: Vec<OwnerRef> = Vec::with_capacity(old.len());
    for r in old {
        // A UID listed twice: the last one wins.
        if let Some(slot) = old_by_uid.iter_mut().find(|x| x.uid == r.uid) {
            *slot = *r;
        } else {
            old_by_uid.push(*r);
        }
    }
    let (mut added, mut changed) = (Vec::new(), Vec::new());
    for r in new {
        match old_by_uid.iter().position(|x| x.uid == r.uid) {
            Some(i) => {
                let o = old_by_uid.swap_remove(i);
                if o != *r {
                    changed.push((o, *r));
                }
            }
            None => added.push(*r),
        }
    }
    (added, old_by_uid, changed)
}
