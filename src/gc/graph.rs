//! The garbage collector's ownership graph: upstream's `uidToNode` map of `node`s (gc-model
//! §1–§2), as [`super::graph_builder`] builds it from a snapshot.
//!
//! * One node per UID of every object of a resource the GC monitors. Objects of resources it
//!   ignores (core and `events.k8s.io` events, §5.2) are not nodes: their ownerReferences are
//!   never acted on and they never block a foreground deletion.
//! * A *virtual* node for every owner UID that no monitored object has, with identity = the
//!   reference's apiVersion/kind/name/uid plus the namespace of the **first** dependent that
//!   referenced it (§1.4; "first" = snapshot order, which is the informers' list order).
//! * Node ids of real nodes equal the [`ObjId`] of their object, so per-object side tables can
//!   be indexed by either; virtual nodes follow.
//! * Dependents are stored as a compressed sparse row table (one offsets vector, one flat vector
//!   of node ids), each dependent once per owner as in the GC's dependents *set*.

use crate::model::{ObjId, Sym};

/// Index of a node.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A node's identity: the 5-tuple (apiVersion, kind, name, uid, namespace) of §1.1.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Identity {
    /// apiVersion (for real nodes: the monitored resource's group/version).
    pub api_version: Sym,
    /// kind.
    pub kind: Sym,
    /// name.
    pub name: Sym,
    /// uid.
    pub uid: Sym,
    /// namespace (virtual nodes: the first dependent's namespace).
    pub namespace: Sym,
}

/// Node flags.
pub mod flags {
    /// Fabricated from an ownerReference; no monitored object has this UID.
    pub const VIRTUAL: u8 = 1;
    /// The object has a deletionTimestamp.
    pub const BEING_DELETED: u8 = 2;
    /// Being deleted with the `foregroundDeletion` finalizer.
    pub const DELETING_DEPENDENTS: u8 = 4;
    /// The object's resource is not monitored by the GC: not part of the graph.
    pub const NOT_MONITORED: u8 = 8;
}

/// One node.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// Identity.
    pub id: Identity,
    /// `flags::*` bits.
    pub flags: u8,
}

impl Node {
    /// Virtual (not observed).
    pub fn is_virtual(&self) -> bool {
        self.flags & flags::VIRTUAL != 0
    }
    /// beingDeleted.
    pub fn being_deleted(&self) -> bool {
        self.flags & flags::BEING_DELETED != 0
    }
    /// deletingDependents.
    pub fn deleting_dependents(&self) -> bool {
        self.flags & flags::DELETING_DEPENDENTS != 0
    }
    /// Part of the GC's graph (monitored object or virtual owner).
    pub fn in_graph(&self) -> bool {
        self.flags & flags::NOT_MONITORED == 0
    }
}

/// The ownership graph.
#[derive(Clone, Debug)]
pub struct Graph {
    pub(super) nodes: Vec<Node>,
    pub(super) objects: u32,
    /// Upstream's `uidToNode`: the node of each UID, indexed by the UID's [`Sym`]; `u32::MAX` =
    /// none.
    pub(super) uid_to_node: Vec<u32>,
    pub(super) dep_offsets: Vec<u32>,
    pub(super) deps: Vec<NodeId>,
}

impl Graph {
    /// All nodes (real ones first, then virtual ones).
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// A node.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// Number of nodes, including virtual ones and unmonitored objects.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when there is no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node of a UID, if the UID is in the graph (upstream's `uidToNode.Read`).
    pub fn uid_to_node(&self, uid: Sym) -> Option<NodeId> {
        match self.uid_to_node.get(uid.index()) {
            Some(&i) if i != u32::MAX => Some(NodeId(i)),
            _ => None,
        }
    }

    /// The object behind a node (`None` for virtual nodes).
    pub fn object(&self, id: NodeId) -> Option<ObjId> {
        (id.0 < self.objects).then_some(ObjId(id.0))
    }

    /// True when the object is a node of the GC's graph (its resource is monitored).
    pub fn monitors(&self, id: ObjId) -> bool {
        self.nodes[id.index()].in_graph()
    }

    /// The node of an object.
    pub fn node_of_object(&self, id: ObjId) -> NodeId {
        NodeId(id.0)
    }

    /// The graph's dependents of a node (objects whose ownerReferences name its UID).
    pub fn dependents(&self, id: NodeId) -> &[NodeId] {
        let i = id.index();
        &self.deps[self.dep_offsets[i] as usize..self.dep_offsets[i + 1] as usize]
    }

    /// Ids of the virtual nodes.
    pub fn virtual_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        (self.objects..self.nodes.len() as u32).map(NodeId)
    }

    /// Number of virtual nodes.
    pub fn virtual_count(&self) -> usize {
        self.nodes.len() - self.objects as usize
    }
}

/// Which of `n` nodes can lie on a cycle of `edges` (node → node, no self-loops): repeatedly
/// removes nodes without incoming or without outgoing edges (among those left); the rest is
/// exactly the cycles and the paths between them.
pub fn nodes_on_cycles(n: usize, edges: &[(u32, u32)]) -> Vec<bool> {
    let mut indeg = vec![0u32; n];
    let mut outdeg = vec![0u32; n];
    for &(a, b) in edges {
        outdeg[a as usize] += 1;
        indeg[b as usize] += 1;
    }
    // Both directions as compressed rows.
    let csr = |forward: bool| {
        let key = |&(a, b): &(u32, u32)| if forward { (a, b) } else { (b, a) };
        let mut off = vec![0u32; n + 1];
        for e in edges {
            off[key(e).0 as usize + 1] += 1;
        }
        for i in 1..=n {
            off[i] += off[i - 1];
        }
        let mut fill = off.clone();
        let mut adj = vec![0u32; edges.len()];
        for e in edges {
            let (from, to) = key(e);
            adj[fill[from as usize] as usize] = to;
            fill[from as usize] += 1;
        }
        (off, adj)
    };
    let (out_off, out_adj) = csr(true);
    let (in_off, in_adj) = csr(false);
    let mut keep: Vec<bool> = (0..n).map(|v| indeg[v] > 0 && outdeg[v] > 0).collect();
    let mut stack: Vec<u32> = (0..n as u32)
        .filter(|&v| !keep[v as usize] && (indeg[v as usize] > 0 || outdeg[v as usize] > 0))
        .collect();
    while let Some(v) = stack.pop() {
        let v = v as usize;
        for &w in &out_adj[out_off[v] as usize..out_off[v + 1] as usize] {
            let w = w as usize;
            indeg[w] -= 1;
            if indeg[w] == 0 && keep[w] {
                keep[w] = false;
                stack.push(w as u32);
            }
        }
        for &u in &in_adj[in_off[v] as usize..in_off[v + 1] as usize] {
            let u = u as usize;
            outdeg[u] -= 1;
            if outdeg[u] == 0 && keep[u] {
                keep[u] = false;
                stack.push(u as u32);
            }
        }
    }
    keep
}
