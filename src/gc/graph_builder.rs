//! The graph builder: how the GC's graph comes to be and what reaches the GC's work queues.
//!
//! Upstream's `GraphBuilder` runs one monitor (informer) per deletable resource, turns every
//! add, update and delete event into graph changes (`processGraphChanges`) and puts the items
//! that need a decision on the `attemptToDelete` and `attemptToOrphan` queues. Here:
//!
//! * [`Graph::build_for`]: the static graph of a snapshot once every initial list is in — one
//!   node per monitored object, a virtual node per missing owner UID, the dependents of every
//!   UID as a compressed table. Reports and the audit read it; it is also the *base* the
//!   event-driven builder takes its dependents from.
//! * [`GraphBuilder`]: the event-driven graph builder (`processGraphChanges`): a dynamic
//!   `uidToNode`, virtual nodes replaced by identity clones, one-way flags, the coordinate
//!   checks of PR #92743/#98068, virtual delete events with `partitionDependents` and
//!   `getAlternateOwnerIdentity`, and the enqueue rules of gc-model §2.10. Events are fed one
//!   at a time ([`GraphBuilder::add`], [`GraphBuilder::update`], [`GraphBuilder::delete`],
//!   [`GraphBuilder::virtual_delete`]); what they enqueue is collected in
//!   [`GraphBuilder::queued`]. The simulation ([`super::simulation`]) drives it with the
//!   initial lists and the GC's own writes; `kubectl gc watch` can drive it with live events.
//!
//! Dependents are not stored per node: the dependents of a UID are the objects that linked to
//! it and still list it — the base table filtered by "linked" and the current references, plus
//! the links made later outside the base table. That is upstream's dependents set as long as a
//! node is not dropped and re-created by another dependent (gc-model §6.12: upstream then loses
//! the earlier links; the only observable difference is which dependents a later removal
//! queues).

pub use crate::catalog::gc_ignored_by;

use super::graph::{Graph, Identity, Node, NodeId, flags};
use super::rest_mapper::Mapping;
use super::{GarbageCollector, State};
use crate::catalog::version::Change;
use crate::catalog::{KubeVersion, gc_monitors_objects_of};
use crate::model::{ObjId, OwnerRef, Sym};
use crate::snapshot::Snapshot;

impl Graph {
    /// Builds the graph of a snapshot as today's GC monitors resources.
    pub fn build(snap: &Snapshot) -> Graph {
        Graph::build_for(snap, KubeVersion::NEWEST)
    }

    /// Builds the graph of a snapshot as GC release `gc` would (which resources it monitors
    /// depends on the release, §5.2: core Events are nodes before v1.25, through
    /// `events.k8s.io`).
    pub fn build_for(snap: &Snapshot, gc: KubeVersion) -> Graph {
        let store = &snap.store;
        let n = store.len();
        let foreground = store.strings.get(crate::model::finalizers::FOREGROUND);
        let mut nodes = Vec::with_capacity(n + n / 16);
        let monitored_resource: Vec<bool> = snap
            .resources
            .iter()
            .map(|r| gc_monitors_objects_of(&r.group, &r.plural, gc))
            .collect();
        let mut uid_to_node = vec![u32::MAX; store.strings.len()];
        for id in store.ids() {
            let o = store.object(id);
            let (api_version, kind) = snap.type_syms(o);
            let mut f = 0;
            if o.being_deleted() {
                f |= flags::BEING_DELETED;
                if foreground.is_some_and(|fg| store.finalizers(id).contains(&fg)) {
                    f |= flags::DELETING_DEPENDENTS;
                }
            }
            if !monitored_resource[o.resource.index()] {
                f |= flags::NOT_MONITORED;
            } else {
                uid_to_node[o.uid.index()] = id.0;
            }
            nodes.push(Node {
                id: Identity {
                    api_version,
                    kind,
                    name: o.name,
                    uid: o.uid,
                    namespace: o.namespace,
                },
                flags: f,
            });
        }
        // Virtual owners, and the edge list (owner, dependent) in one pass.
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(store.owner_refs.len());
        for id in store.ids() {
            if !nodes[id.index()].in_graph() {
                continue;
            }
            let o = store.object(id);
            for r in store.owner_refs(id) {
                let slot = &mut uid_to_node[r.uid.index()];
                if *slot == u32::MAX {
                    *slot = nodes.len() as u32;
                    nodes.push(Node {
                        id: Identity {
                            api_version: r.api_version,
                            kind: r.kind,
                            name: r.name,
                            uid: r.uid,
                            namespace: o.namespace,
                        },
                        flags: flags::VIRTUAL,
                    });
                }
                edges.push((*slot, id.0));
            }
        }
        // CSR of dependents, deduplicated per owner (a dependent with two refs to one UID is
        // one dependent, as in the GC's set).
        edges.sort_unstable();
        edges.dedup();
        let mut dep_offsets = vec![0u32; nodes.len() + 1];
        for &(owner, _) in &edges {
            dep_offsets[owner as usize + 1] += 1;
        }
        for i in 1..dep_offsets.len() {
            dep_offsets[i] += dep_offsets[i - 1];
        }
        let deps = edges.into_iter().map(|(_, d)| NodeId(d)).collect();
        Graph {
            nodes,
            objects: n as u32,
            uid_to_node,
            dep_offsets,
            deps,
        }
    }
}

/// Why an object reached a GC work queue (gc-model §2.10), as reports explain it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VisitCause {
    /// Its owner UID had no node; the GC verified the virtual owner, found it absent, and the
    /// virtual delete event queued the dependents (§1.4, §2.2 B4).
    MissingOwner {
        /// The owner UID.
        uid: Sym,
    },
    /// Its reference names another namespace than the owner node's (§1.5; event
    /// `OwnerRefInvalidNamespace`).
    NamespaceMismatch {
        /// The owner.
        owner: ObjId,
    },
    /// Its reference's coordinates differ from the owner node's identity (§1.5).
    CoordinateMismatch {
        /// The owner's node in the static graph.
        owner: NodeId,
    },
    /// Its owner's foreground deletion started (§2.7).
    OwnerInForeground {
        /// The owner.
        owner: ObjId,
    },
    /// Its own foreground deletion started (§2.7).
    InForeground,
    /// Its deletion started with the `orphan` finalizer (§2.7; attemptToOrphan).
    Orphaning,
    /// It is a virtual node: an owner UID no informer has shown (§1.4).
    VirtualOwner,
    /// Its owner was removed from the graph (§2.2 B4).
    OwnerRemoved {
        /// The owner UID.
        uid: Sym,
    },
    /// It is in foreground deletion and a dependent went away or stopped blocking (§2.2 B4,
    /// §2.9).
    DependentChanged,
    /// It blocks an owner in foreground deletion (§3.5).
    BlockingDependent {
        /// The owner.
        owner: ObjId,
    },
    /// A worker put it back (rate-limited): still virtual, or a re-identified node (§3.1).
    Retry,
    /// `collect`: every object is evaluated (a GC that was running when the state arose).
    SteadyState,
}

/// The GC's work queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queue {
    /// `attemptToDelete`, `Add`.
    AttemptToDelete,
    /// `attemptToDelete`, `AddRateLimited` (after a back-off).
    AttemptToDeleteRateLimited,
    /// `attemptToOrphan`.
    AttemptToOrphan,
}

/// One item put on a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enqueued {
    /// Which queue.
    pub queue: Queue,
    /// The node (a pointer: a superseded clone stays distinct from its replacement).
    pub node: NodeId,
    /// Why.
    pub cause: VisitCause,
    /// The causal chain it belongs to: the item whose request led to the event that queued
    /// it ([`GraphBuilder::chain`] when the event was processed).
    pub chain: u32,
}

/// [`Enqueued::chain`] of items no request led to (the informers' initial lists): each
/// starts a chain of its own.
pub const NEW_CHAIN: u32 = u32::MAX;

/// Node flags of the event-driven graph (one-way, as upstream's).
mod dflags {
    pub const VIRTUAL: u8 = 1;
    pub const BEING_DELETED: u8 = 2;
    pub const DELETING_DEPENDENTS: u8 = 4;
    /// A base slot taken by a node already.
    pub const USED: u8 = 8;
}

/// One node of the event-driven graph.
#[derive(Clone, Copy, Debug)]
pub struct DynNode {
    /// Identity (§1.1); replaced only by swapping in a clone.
    pub id: Identity,
    flags: u8,
}

impl DynNode {
    /// Not yet observed by an informer.
    pub fn is_virtual(&self) -> bool {
        self.flags & dflags::VIRTUAL != 0
    }
    /// Seen with a deletionTimestamp (never cleared).
    pub fn being_deleted(&self) -> bool {
        self.flags & dflags::BEING_DELETED != 0
    }
    /// Seen terminating with `foregroundDeletion` (never cleared).
    pub fn deleting_dependents(&self) -> bool {
        self.flags & dflags::DELETING_DEPENDENTS != 0
    }
}

/// What the graph remembers of an object before an update (upstream: the event's old object).
#[derive(Clone, Debug, Default)]
pub struct OldMeta {
    /// ownerReferences.
    pub refs: Vec<OwnerRef>,
    /// It had a deletionTimestamp.
    pub being_deleted: bool,
    /// Finalizers.
    pub finalizers: Vec<Sym>,
}

/// The event-driven graph builder (upstream's `GraphBuilder.processGraphChanges`).
///
/// Node ids start with the static graph's (one slot per object and per missing owner UID);
/// a slot keeps only flags unless its node's identity differs from the static one, so a
/// builder costs a byte per node until events change it. Clones and nodes re-created after a
/// removal get ids past the static ones.
#[derive(Clone, Debug)]
pub struct GraphBuilder<'g> {
    base: &'g Graph,
    flags: Vec<u8>,
    /// Identities that differ from the static graph's, and every node past it.
    ids: hashbrown::HashMap<u32, Identity>,
    /// `uidToNode`, as node id + 1 (0: none).
    uid_to_node: Vec<u32>,
    /// Per object: its add event has been processed and it has not been deleted since.
    linked: Vec<bool>,
    /// Links to UIDs the base table does not hold (objects that gained references later).
    extra: hashbrown::HashMap<Sym, Vec<ObjId>>,
    /// What the events processed so far enqueued, in order; the caller drains it.
    pub queued: Vec<Enqueued>,
    /// Owner UIDs recorded as absent (§1.3): the virtual deletes and removals that record
    /// them. Before v1.20 the cache is keyed by UID and read by `isDangling`
    /// ([`State::add_absent_owner`]); from v1.20 it never changes a verdict and is not kept.
    pub absent_uids: Vec<Sym>,
    /// v1.20+ (PR #92743): coordinate checks, identity swaps, contested virtual deletes.
    coordinate_aware: bool,
    /// v1.20.3+ and v1.21+ (PR #98068): the third coordinate check.
    third_check: bool,
    /// The symbol of `"v1"` (what a virtual delete rebuilds `"/v1"` into, §2.3), if interned.
    core_v1: Option<Sym>,
    /// The causal chain the events being processed belong to ([`Enqueued::chain`]).
    pub chain: u32,
}

impl<'g> GraphBuilder<'g> {
    /// An empty graph for the GC of `gc` (no event processed yet).
    pub fn new(gc: &'g GarbageCollector<'_>) -> Self {
        let store = &gc.snap.store;
        GraphBuilder {
            base: &gc.graph,
            flags: vec![0; gc.graph.len()],
            ids: hashbrown::HashMap::new(),
            uid_to_node: vec![0; store.strings.len()],
            linked: vec![false; store.len()],
            extra: hashbrown::HashMap::new(),
            queued: Vec::new(),
            absent_uids: Vec::new(),
            coordinate_aware: gc.rules.version.has(Change::CoordinateAwareGraph),
            third_check: gc.rules.version.has(Change::ThirdCoordinateCheck),
            core_v1: store.strings.get("v1"),
            chain: NEW_CHAIN,
        }
    }

    /// The node of a UID (`uidToNode.Read`).
    pub fn uid_to_node(&self, uid: Sym) -> Option<NodeId> {
        match self.uid_to_node.get(uid.index()) {
            Some(&i) if i != 0 => Some(NodeId(i - 1)),
            _ => None,
        }
    }

    /// A node (also a superseded one: queues keep pointers).
    pub fn node(&self, id: NodeId) -> DynNode {
        let id_ = match self.ids.get(&id.0) {
            Some(i) => *i,
            None => self.base.node(id).id,
        };
        DynNode {
            id: id_,
            flags: self.flags[id.index()] & !dflags::USED,
        }
    }

    fn set_node(&mut self, id: NodeId, n: DynNode) {
        let used = self.flags[id.index()] & dflags::USED;
        self.flags[id.index()] = n.flags | used;
        if id.index() >= self.base.len() || self.base.node(id).id != n.id {
            self.ids.insert(id.0, n.id);
        } else {
            self.ids.remove(&id.0);
        }
    }

    fn push_node(&mut self, n: DynNode) -> NodeId {
        let id = NodeId(self.flags.len() as u32);
        self.flags.push(n.flags);
        self.ids.insert(id.0, n.id);
        id
    }

    fn set_flag(&mut self, id: NodeId, f: u8) {
        self.flags[id.index()] |= f;
    }

    fn clear_flag(&mut self, id: NodeId, f: u8) {
        self.flags[id.index()] &= !f;
    }

    /// True when the object's add event has been processed and it was not deleted since.
    pub fn is_linked(&self, id: ObjId) -> bool {
        self.linked[id.index()]
    }

    /// The object an observed node stands for (`None` for virtual nodes).
    pub fn object(&self, gc: &GarbageCollector<'_>, id: NodeId) -> Option<ObjId> {
        let n = self.node(id);
        if n.is_virtual() {
            return None;
        }
        gc.snap
            .store
            .by_uid(n.id.uid)
            .filter(|&o| gc.graph.monitors(o))
    }

    /// The node's dependents set: objects linked to its UID that still list it.
    pub fn dependents(&self, gc: &GarbageCollector<'_>, state: &State, id: NodeId) -> Vec<ObjId> {
        self.dependents_of_uid(gc, state, self.node(id).id.uid)
    }

    /// The dependents of whatever node holds `uid`.
    pub fn dependents_of_uid(
        &self,
        gc: &GarbageCollector<'_>,
        state: &State,
        uid: Sym,
    ) -> Vec<ObjId> {
        let store = &gc.snap.store;
        let mut out = Vec::new();
        let lists = |d: ObjId| state.owner_refs(store, d).iter().any(|r| r.uid == uid);
        if let Some(base) = gc.graph.uid_to_node(uid) {
            for &d in gc.graph.dependents(base) {
                if let Some(d) = gc.graph.object(d)
                    && self.linked[d.index()]
                    && lists(d)
                {
                    out.push(d);
                }
            }
        }
        if let Some(more) = self.extra.get(&uid) {
            for &d in more {
                if self.linked[d.index()] && lists(d) && !out.contains(&d) {
                    out.push(d);
                }
            }
        }
        out
    }

    /// True when the node has at least one dependent (row 9's condition).
    pub fn has_dependents(&self, gc: &GarbageCollector<'_>, state: &State, id: NodeId) -> bool {
        !self.dependents(gc, state, id).is_empty()
    }

    /// `blockingDependents` (§1.2): one entry per `blockOwnerDeletion: true` reference of each
    /// dependent to the node's UID.
    pub fn blocking_dependents(
        &self,
        gc: &GarbageCollector<'_>,
        state: &State,
        id: NodeId,
    ) -> Vec<ObjId> {
        let uid = self.node(id).id.uid;
        let store = &gc.snap.store;
        let mut out = Vec::new();
        for d in self.dependents(gc, state, id) {
            for r in state.owner_refs(store, d) {
                if r.uid == uid && r.blocks() {
                    out.push(d);
                }
            }
        }
        out
    }

    fn push(&mut self, queue: Queue, node: NodeId, cause: VisitCause) {
        self.queued.push(Enqueued {
            queue,
            node,
            cause,
            chain: self.chain,
        });
    }

    fn enqueue_objects(
        &mut self,
        gc: &GarbageCollector<'_>,
        objs: impl IntoIterator<Item = ObjId>,
        cause: impl Fn(ObjId) -> VisitCause,
    ) {
        for d in objs {
            if let Some(n) = self.node_for_linked(gc, d) {
                self.push(Queue::AttemptToDelete, n, cause(d));
            }
        }
    }

    /// The node of a linked object (its UID's node, possibly a clone).
    fn node_for_linked(&self, gc: &GarbageCollector<'_>, d: ObjId) -> Option<NodeId> {
        if !self.linked[d.index()] {
            return None;
        }
        self.uid_to_node(gc.snap.store.object(d).uid)
    }

    /// A base slot (the static graph's node id for an object or a missing UID) is used by the
    /// first node of its UID; later nodes of the UID (after a removal) get fresh ids, so that
    /// queued pointers to the old one stay distinct.
    fn slot_free(&self, id: NodeId) -> bool {
        id.index() < self.base.len() && self.flags[id.index()] & dflags::USED == 0
    }

    fn used_slot(&mut self, id: NodeId) {
        self.set_flag(id, dflags::USED);
    }

    fn insert(&mut self, id: NodeId) {
        let uid = self.node(id).id.uid;
        if uid.index() >= self.uid_to_node.len() {
            self.uid_to_node.resize(uid.index() + 1, 0);
        }
        self.uid_to_node[uid.index()] = id.0 + 1;
    }

    fn remove_uid(&mut self, uid: Sym) {
        if let Some(slot) = self.uid_to_node.get_mut(uid.index()) {
            *slot = 0;
        }
    }

    fn clone_node(&mut self, id: NodeId, identity: Identity) -> NodeId {
        let mut n = self.node(id);
        n.id = identity;
        let new = self.push_node(n);
        self.insert(new);
        new
    }

    fn link(&mut self, gc: &GarbageCollector<'_>, uid: Sym, d: ObjId) {
        // Links outside the base table (a reference added after the snapshot) are kept aside.
        // The base table lists each owner's dependents in ascending order.
        let in_base = gc.graph.uid_to_node(uid).is_some_and(|b| {
            gc.graph
                .dependents(b)
                .binary_search(&gc.graph.node_of_object(d))
                .is_ok()
        });
        if !in_base {
            let v = self.extra.entry(uid).or_default();
            if !v.contains(&d) {
                v.push(d);
            }
        }
    }

    /// `identityFromEvent` for an informer event: the monitored resource's apiVersion/kind and
    /// the object's name, UID and namespace (§2.3).
    fn observed_identity(gc: &GarbageCollector<'_>, obj: ObjId) -> Identity {
        gc.graph.node(gc.graph.node_of_object(obj)).id
    }

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

    fn new_virtual(&mut self, gc: &GarbageCollector<'_>, identity: Identity) -> NodeId {
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
    fn remove_node(
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
    fn partition_dependents(
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

/// Whether a (mapped) kind is namespaced, for grouping virtual identities by what their GET
/// reaches: `None` when the kind does not map.
pub fn kind_is_namespaced(gc: &GarbageCollector<'_>, api_version: Sym, kind: Sym) -> Option<bool> {
    match gc.rest_mapper.map(gc.snap, api_version, kind) {
        Mapping::Resolved(gr) => Some(gc.rest_mapper.gr(gr).namespaced),
        Mapping::Unlisted { namespaced, .. } | Mapping::Phantom { namespaced } => Some(namespaced),
        Mapping::Unresolvable(_) | Mapping::Unknown(_) => None,
    }
}
