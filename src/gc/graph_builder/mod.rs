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
//!
//! **Files.** This one holds the queue items, [`GraphBuilder`]'s state and its dependents
//! sets; `static_graph.rs` builds [`Graph`]; `events.rs` processes informer events
//! (`processGraphChanges` for add, update and delete); `virtual_nodes.rs` holds virtual nodes and
//! virtual delete events.

mod events;
mod static_graph;
mod virtual_nodes;

pub use crate::catalog::gc_ignored_by;
pub use events::references_diffs;

use super::graph::{Graph, Identity, NodeId};
use super::rest_mapper::Mapping;
use super::{GarbageCollector, State};
use crate::catalog::version::Change;
use crate::model::{ObjId, OwnerRef, Sym};

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
    /// `uidToNode`.
    uid_to_node: UidToNode,
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

/// `uidToNode`: by UID symbol (node id + 1, 0 for none) when a run covers the whole graph;
/// a hash map when it covers a few of its components, where zeroing a slot for every string
/// of the snapshot cost more than the run itself.
#[derive(Clone, Debug)]
enum UidToNode {
    Dense(Vec<u32>),
    Sparse(hashbrown::HashMap<Sym, NodeId>),
}

impl UidToNode {
    fn get(&self, uid: Sym) -> Option<NodeId> {
        match self {
            UidToNode::Dense(v) => match v.get(uid.index()) {
                Some(&i) if i != 0 => Some(NodeId(i - 1)),
                _ => None,
            },
            UidToNode::Sparse(m) => m.get(&uid).copied(),
        }
    }

    fn insert(&mut self, uid: Sym, id: NodeId) {
        match self {
            UidToNode::Dense(v) => {
                if uid.index() >= v.len() {
                    v.resize(uid.index() + 1, 0);
                }
                v[uid.index()] = id.0 + 1;
            }
            UidToNode::Sparse(m) => {
                m.insert(uid, id);
            }
        }
    }

    fn remove(&mut self, uid: Sym) {
        match self {
            UidToNode::Dense(v) => {
                if let Some(slot) = v.get_mut(uid.index()) {
                    *slot = 0;
                }
            }
            UidToNode::Sparse(m) => {
                m.remove(&uid);
            }
        }
    }
}

impl<'g> GraphBuilder<'g> {
    /// An empty graph for the GC of `gc` (no event processed yet), for a run over the whole
    /// graph or (`whole` false) over a few of its components.
    pub fn new(gc: &'g GarbageCollector<'_>, whole: bool) -> Self {
        let store = &gc.snap.store;
        GraphBuilder {
            base: &gc.graph,
            flags: vec![0; gc.graph.len()],
            ids: hashbrown::HashMap::new(),
            uid_to_node: if whole {
                UidToNode::Dense(vec![0; store.strings.len()])
            } else {
                UidToNode::Sparse(hashbrown::HashMap::new())
            },
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
        self.uid_to_node.get(uid)
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
        self.uid_to_node.insert(uid, id);
    }

    fn remove_uid(&mut self, uid: Sym) {
        self.uid_to_node.remove(uid);
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
