//! The ownership graph as people and tools look at it: a subgraph of the GC's graph
//! ([`crate::gc::graph::Graph`]) selected the way the GC's debug endpoint selects it
//! (gc-model §8.2), and its renderings.
//!
//! * [`Subgraph::select`] — which nodes. With roots: everything reachable from them following
//!   owners and dependents (the weakly connected component(s), exactly as the endpoint's
//!   `?uid=`), optionally only owners ([`Direction::Up`]) or only dependents
//!   ([`Direction::Down`]) and at most [`Selection::depth`] hops away. Without roots: every node
//!   that has an owner or a dependent. In both cases a node with neither is left out (§8.2).
//! * [`tree`] (kubectl-tree-like, for people), [`dot`] (byte-for-byte the GC endpoint's
//!   format, and its pre-1.26 gonum variant; plus a parser for both), [`mermaid`] (renders on
//!   GitHub) and [`json`].
//! * [`gcdiff`] — the difference between the GC's own graph (its DOT) and ours.
//!
//! The selection walks [`crate::gc::graph::Graph`] directly (owners = the object's ownerReferences
//! resolved by UID, dependents = the graph's dependents), so selecting one component of a
//! million-object graph costs only that component; only the selected part becomes a petgraph.

pub mod dot;
pub mod gcdiff;
pub mod json;
pub mod mermaid;
pub mod style;
pub mod svg;
pub mod tree;

use crate::gc::classify::RefClassLabel;
use crate::gc::graph::NodeId;
use crate::gc::{GarbageCollector, RefClass};
use crate::model::{ObjId, Sym};
use hashbrown::{HashMap, HashSet};
use petgraph::Direction as PgDirection;
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use std::collections::VecDeque;

/// Which way the selection walks from its roots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Direction {
    /// Owners only (and their owners …).
    Up,
    /// Dependents only (and their dependents …).
    Down,
    /// Both: the weakly connected component (the GC endpoint's `?uid=`).
    #[default]
    Both,
}

/// What to select.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Start nodes; empty = every node with an owner or a dependent (a caller whose requested
    /// start objects are all unknown selects nothing instead).
    pub roots: Vec<NodeId>,
    /// Which way to walk from the roots.
    pub direction: Direction,
    /// At most this many hops from a root (`None`: no limit).
    pub depth: Option<u32>,
    /// Without roots only: keep the nodes of this namespace and the nodes they are directly
    /// related to (cluster-scoped owners, owners in other namespaces).
    pub namespace: Option<String>,
}

/// One vertex: a node of the GC's graph, or a synthesised "missing" owner (§8.3).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Vertex<'a> {
    /// UID.
    pub uid: &'a str,
    /// apiVersion of the node's identity (for real nodes: the monitored resource's).
    pub api_version: &'a str,
    /// Kind.
    pub kind: &'a str,
    /// Name.
    pub name: &'a str,
    /// Namespace (virtual nodes: the first dependent's; missing vertices: empty).
    pub namespace: &'a str,
    /// Synthesised from an ownerReference whose UID has no node at all (`missingFromGraph`).
    pub missing: bool,
    /// The object has a deletionTimestamp.
    pub being_deleted: bool,
    /// Being deleted with the `foregroundDeletion` finalizer.
    pub deleting_dependents: bool,
    /// A virtual node: an owner no monitored object has (yet).
    pub is_virtual: bool,
    /// One of the selection's roots.
    pub root: bool,
    /// The object's finalizers.
    pub finalizers: Vec<&'a str>,
    /// The object (`None` for virtual and missing vertices).
    pub object: Option<ObjId>,
}

/// One edge: an ownerReference, from the dependent to the owner.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Reference<'a> {
    /// apiVersion as written in the reference.
    pub api_version: &'a str,
    /// kind as written.
    pub kind: &'a str,
    /// name as written.
    pub name: &'a str,
    /// uid as written.
    pub uid: &'a str,
    /// `controller`.
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`.
    pub block_owner_deletion: Option<bool>,
    /// How the GC classifies the reference as captured (`None`: not classified).
    pub class: Option<RefClassLabel>,
}

/// The selected part of the graph. Edges point from the dependent to the owner, as in the
/// GC's DOT.
#[derive(Clone, Debug, Default)]
pub struct Subgraph<'a> {
    /// The vertices and edges.
    pub graph: DiGraph<Vertex<'a>, Reference<'a>>,
}

/// The label of a classification.
pub fn class_label(c: &RefClass) -> RefClassLabel {
    match c {
        RefClass::Solid { .. } => RefClassLabel::Solid,
        RefClass::Waiting { .. } => RefClassLabel::Waiting,
        RefClass::Dangling(_) => RefClassLabel::Dangling,
        RefClass::Unresolvable { .. } => RefClassLabel::Unresolvable,
        RefClass::InvalidScope => RefClassLabel::InvalidScope,
        RefClass::Unrequestable { .. } => RefClassLabel::Unrequestable,
        RefClass::Unknown { .. } => RefClassLabel::Unknown,
    }
}

/// The text of a classification label (`solid`, `invalid-scope`, …).
pub fn class_text(c: RefClassLabel) -> &'static str {
    match c {
        RefClassLabel::Solid => "solid",
        RefClassLabel::Waiting => "waiting",
        RefClassLabel::Dangling => "dangling",
        RefClassLabel::Unresolvable => "unresolvable",
        RefClassLabel::InvalidScope => "invalid-scope",
        RefClassLabel::Unrequestable => "unrequestable",
        RefClassLabel::Unknown => "unknown",
    }
}

impl<'a> Subgraph<'a> {
    /// An empty subgraph (for building one by hand).
    pub fn new() -> Self {
        Subgraph::default()
    }

    /// Adds a vertex.
    pub fn add_vertex(&mut self, v: Vertex<'a>) -> NodeIndex {
        self.graph.add_node(v)
    }

    /// Adds an edge from `dependent` to `owner`.
    pub fn add_edge(&mut self, dependent: NodeIndex, owner: NodeIndex, r: Reference<'a>) {
        self.graph.add_edge(dependent, owner, r);
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// True when nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.graph.node_count() == 0
    }

    /// Vertices sorted by UID (byte order, as the GC sorts them).
    pub fn sorted_vertices(&self) -> Vec<NodeIndex> {
        let mut v: Vec<NodeIndex> = self.graph.node_indices().collect();
        v.sort_by(|a, b| self.graph[*a].uid.cmp(self.graph[*b].uid).then(a.cmp(b)));
        v
    }

    /// Edges sorted by (dependent UID, owner UID), stable for duplicates (as the GC sorts them).
    pub fn sorted_edges(&self) -> Vec<EdgeIndex> {
        let mut e: Vec<EdgeIndex> = self.graph.edge_indices().collect();
        let key = |i: EdgeIndex| {
            let (f, t) = self.graph.edge_endpoints(i).expect("edge exists");
            (self.graph[f].uid, self.graph[t].uid)
        };
        e.sort_by(|a, b| key(*a).cmp(&key(*b)).then(a.cmp(b)));
        e
    }

    /// The owners of a vertex within the selection (edge targets), with the references.
    pub fn owners(&self, v: NodeIndex) -> impl Iterator<Item = (NodeIndex, &Reference<'a>)> + '_ {
        self.graph
            .edges_directed(v, PgDirection::Outgoing)
            .map(|e| (e.target(), e.weight()))
    }

    /// The dependents of a vertex within the selection (edge sources), with the references.
    pub fn dependents(
        &self,
        v: NodeIndex,
    ) -> impl Iterator<Item = (NodeIndex, &Reference<'a>)> + '_ {
        self.graph
            .edges_directed(v, PgDirection::Incoming)
            .map(|e| (e.source(), e.weight()))
    }

    /// Selects part of an analysis' graph.
    pub fn select(a: &GarbageCollector<'a>, sel: &Selection) -> Subgraph<'a> {
        let snap = a.snap;
        let store = &snap.store;
        let g = &a.graph;
        let owner_refs = |n: NodeId| g.object(n).map_or(&[][..], |o| store.owner_refs(o));
        let owners = |n: NodeId| owner_refs(n).iter().filter_map(|r| g.uid_to_node(r.uid));
        let has_relations = |n: NodeId| !owner_refs(n).is_empty() || !g.dependents(n).is_empty();

        // 1. The node set, in first-reached order.
        let mut chosen: Vec<NodeId> = Vec::new();
        let roots: HashSet<NodeId> = sel
            .roots
            .iter()
            .copied()
            .filter(|&n| n.index() < g.len() && g.node(n).in_graph())
            .collect();
        if sel.roots.is_empty() {
            let in_scope = |n: NodeId| {
                sel.namespace
                    .as_deref()
                    .is_none_or(|ns| store.str(g.node(n).id.namespace) == ns)
            };
            let mut seen = vec![false; g.len()];
            for (i, node) in g.nodes().iter().enumerate() {
                let n = NodeId(i as u32);
                if !node.in_graph() || !has_relations(n) || !in_scope(n) {
                    continue;
                }
                if !seen[i] {
                    seen[i] = true;
                    chosen.push(n);
                }
                if sel.namespace.is_some() {
                    // Keep the other end of every relation of an in-scope node.
                    for m in owners(n).chain(g.dependents(n).iter().copied()) {
                        if !seen[m.index()] {
                            seen[m.index()] = true;
                            chosen.push(m);
                        }
                    }
                }
            }
        } else {
            let mut hops: HashMap<NodeId, u32> = HashMap::new();
            let mut queue = VecDeque::new();
            for &r in &sel.roots {
                if roots.contains(&r) && !hops.contains_key(&r) {
                    hops.insert(r, 0);
                    chosen.push(r);
                    queue.push_back(r);
                }
            }
            while let Some(n) = queue.pop_front() {
                let d = hops[&n];
                if sel.depth.is_some_and(|max| d >= max) {
                    continue;
                }
                let up = sel.direction != Direction::Down;
                let down = sel.direction != Direction::Up;
                let next = owners(n)
                    .filter(|_| up)
                    .chain(g.dependents(n).iter().copied().filter(|_| down));
                for m in next.collect::<Vec<_>>() {
                    if let hashbrown::hash_map::Entry::Vacant(e) = hops.entry(m) {
                        e.insert(d + 1);
                        chosen.push(m);
                        queue.push_back(m);
                    }
                }
            }
        }
        // 2. Nodes without owners and dependents are not drawn (§8.2).
        chosen.retain(|&n| has_relations(n));
        let uid_of = |n: NodeId| store.str(g.node(n).id.uid);
        chosen.sort_by(|x, y| uid_of(*x).cmp(uid_of(*y)));

        // 3. Vertices.
        let mut sub = Subgraph::new();
        let mut index: HashMap<NodeId, NodeIndex> = HashMap::with_capacity(chosen.len());
        for &n in &chosen {
            let node = g.node(n);
            let object = g.object(n);
            let finalizers = object
                .map(|o| store.finalizers(o).iter().map(|&f| store.str(f)).collect())
                .unwrap_or_default();
            let v = Vertex {
                uid: store.str(node.id.uid),
                api_version: store.str(node.id.api_version),
                kind: store.str(node.id.kind),
                name: store.str(node.id.name),
                namespace: store.str(node.id.namespace),
                missing: false,
                being_deleted: node.being_deleted(),
                deleting_dependents: node.deleting_dependents(),
                is_virtual: node.is_virtual(),
                root: roots.contains(&n),
                finalizers,
                object: if node.is_virtual() { None } else { object },
            };
            index.insert(n, sub.add_vertex(v));
        }

        // 4. Edges: one per ownerReference of a selected object whose owner is selected. An
        // owner UID with no node at all becomes one "missing" vertex, keyed by the owner's UID
        // (the GC keys it by the dependent's UID: the quirk of §8.5 that we fix).
        let state = a.initial_state();
        let mut missing: HashMap<Sym, NodeIndex> = HashMap::new();
        for &n in &chosen {
            let Some(obj) = g.object(n).filter(|_| !g.node(n).is_virtual()) else {
                continue;
            };
            let from = index[&n];
            for r in store.owner_refs(obj) {
                let to = match g.uid_to_node(r.uid) {
                    Some(o) => match index.get(&o) {
                        Some(&to) => to,
                        None => continue, // outside a narrowed selection
                    },
                    None => *missing.entry(r.uid).or_insert_with(|| {
                        sub.graph.add_node(Vertex {
                            uid: store.str(r.uid),
                            api_version: store.str(r.api_version),
                            kind: store.str(r.kind),
                            name: store.str(r.name),
                            missing: true,
                            ..Vertex::default()
                        })
                    }),
                };
                let class = class_label(&a.classify_reference(&state, obj, r));
                sub.add_edge(
                    from,
                    to,
                    Reference {
                        api_version: store.str(r.api_version),
                        kind: store.str(r.kind),
                        name: store.str(r.name),
                        uid: store.str(r.uid),
                        controller: r.controller,
                        block_owner_deletion: r.block_owner_deletion,
                        class: Some(class),
                    },
                );
            }
        }
        sub
    }
}

/// `Kind/name` for display (`?` for an empty kind).
pub fn kind_name(v: &Vertex<'_>) -> String {
    let kind = if v.kind.is_empty() { "?" } else { v.kind };
    format!("{kind}/{}", v.name)
}

#[cfg(test)]
mod tests;
