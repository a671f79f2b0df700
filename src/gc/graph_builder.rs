//! The graph builder: how the GC's graph comes to be and what reaches the GC's work queues.
//!
//! Upstream's `GraphBuilder` runs one monitor (informer) per deletable resource, turns every
//! add, update and delete event into graph changes (`processGraphChanges`) and puts the items
//! that need a decision on the `attemptToDelete` and `attemptToOrphan` queues. Here:
//!
//! * [`Graph::build_for`]: the graph a freshly started GC holds once its informers' initial lists
//!   are in (the resources it monitors per release: [`gc_ignored_by`], §5.2);
//! * [`GarbageCollector::start_queue`]: what those initial add events enqueue (§6.22);
//! * `process_*`: what later events enqueue, as the simulation ([`super::plan`]) applies the
//!   GC's own requests (§2.2, §2.7, §2.9).

pub use crate::catalog::gc_ignored_by;

use super::graph::{Graph, Identity, Node, NodeId, flags};
use super::rest_mapper::Mapping;
use super::{GarbageCollector, State};
use crate::catalog::KubeVersion;
use crate::model::{ObjId, OwnerRef, Sym};
use crate::snapshot::Snapshot;
use std::collections::BTreeMap;

impl Graph {
    /// Builds the graph of a snapshot as today's GC monitors resources.
    pub fn build(snap: &Snapshot) -> Graph {
        Graph::build_for(snap, KubeVersion::NEWEST)
    }

    /// Builds the graph of a snapshot as GC release `gc` would (which resources it ignores
    /// depends on the release, §5.2).
    pub fn build_for(snap: &Snapshot, gc: KubeVersion) -> Graph {
        let store = &snap.store;
        let n = store.len();
        let foreground = store.strings.get(crate::model::finalizers::FOREGROUND);
        let mut nodes = Vec::with_capacity(n + n / 16);
        let monitored_resource: Vec<bool> = snap
            .resources
            .iter()
            .map(|r| !gc_ignored_by(&r.group, &r.plural, gc))
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

/// Why a restarted GC evaluates an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VisitCause {
    /// Its owner UID is not in the graph; the GC verifies the virtual owner and finds it absent.
    MissingOwner {
        /// The owner UID.
        uid: Sym,
    },
    /// Its reference names another namespace than the owner's (event `OwnerRefInvalidNamespace`).
    NamespaceMismatch {
        /// The real owner.
        owner: ObjId,
    },
    /// Its reference's apiVersion/kind/name differ from the owner node's identity.
    CoordinateMismatch {
        /// The owner node.
        owner: NodeId,
    },
    /// Its owner is in foreground deletion.
    OwnerInForeground {
        /// The owner.
        owner: ObjId,
    },
    /// It is in foreground deletion itself.
    InForeground,
    /// It is terminating with the `orphan` finalizer.
    Orphaning,
}

/// A dependent of a missing owner that a restarted GC does not evaluate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stranded {
    /// The dependent.
    pub object: ObjId,
    /// False when it depends on informer order (the other order evaluates, and deletes, it).
    pub certain: bool,
    /// Why.
    pub why: String,
}

/// What a freshly (re)started GC enqueues from its informers' initial lists (§6.22).
///
/// On start every object arrives as an *add* event. The graph builder does not enqueue
/// dependents for evaluation; it enqueues:
/// * every virtual owner (a UID no monitored object has) — verified by GET with the identity
///   of the first dependent that referenced it; if absent, all its dependents are enqueued;
/// * (v1.20+, PR #92743) every dependent whose reference disagrees with the owner node already
///   in the graph: another namespace, other coordinates, or (v1.21+, PR #98068) a
///   namespace-less virtual owner created by a cluster-scoped dependent;
/// * objects already terminating with `foregroundDeletion` (and their dependents) or `orphan`.
///
/// Objects whose owners exist and agree are never looked at.
#[derive(Debug, Default)]
pub struct StartQueue {
    /// Objects the started GC evaluates first, and why.
    pub visits: BTreeMap<ObjId, VisitCause>,
    /// Dependents of missing owners it never evaluates.
    pub stranded: Vec<Stranded>,
    /// Virtual owners the snapshot cannot verify (their dependents' fate is unknown).
    pub unknown: Vec<(NodeId, String)>,
}

impl GarbageCollector<'_> {
    /// What the GC enqueues when it starts on this snapshot (`state`: as captured).
    pub fn start_queue(&self, state: &State) -> StartQueue {
        let mut q = StartQueue::default();
        self.transition_visits(state, &mut q.visits);
        self.virtual_owner_visits(&mut q.visits, &mut q.stranded, &mut q.unknown);
        if self.rules.emits_invalid_namespace_events() {
            self.coordinate_check_visits(&mut q.visits);
        }
        q
    }

    /// §2.7 on the initial add events: foreground and orphan deletions in progress.
    fn transition_visits(&self, state: &State, visits: &mut BTreeMap<ObjId, VisitCause>) {
        let store = &self.snap.store;
        for id in store.ids() {
            if !state.being_deleted(id) || !self.graph.monitors(id) {
                continue;
            }
            if state.orphaning(store, id) {
                visits.insert(id, VisitCause::Orphaning);
            } else if state.deleting_dependents(store, id) {
                visits.insert(id, VisitCause::InForeground);
                for d in self.current_dependents(state, id) {
                    visits
                        .entry(d)
                        .or_insert(VisitCause::OwnerInForeground { owner: id });
                }
            }
        }
    }

    /// Virtual owners are verified by GET with the first dependent's coordinates (§1.4).
    fn virtual_owner_visits(
        &self,
        visits: &mut BTreeMap<ObjId, VisitCause>,
        stranded: &mut Vec<Stranded>,
        unknown: &mut Vec<(NodeId, String)>,
    ) {
        let store = &self.snap.store;
        for v in self.graph.virtual_nodes() {
            let node = self.graph.node(v);
            let deps: Vec<ObjId> = self
                .graph
                .dependents(v)
                .iter()
                .filter_map(|&d| self.graph.object(d))
                .collect();
            let visit_all = |visits: &mut BTreeMap<ObjId, VisitCause>| {
                for &d in &deps {
                    visits
                        .entry(d)
                        .or_insert(VisitCause::MissingOwner { uid: node.id.uid });
                }
            };
            match self
                .rest_mapper
                .map(self.snap, node.id.api_version, node.id.kind)
            {
                Mapping::Unresolvable(reason) => {
                    // Retried forever; only dependents that disagree with its coordinates are
                    // enqueued by the coordinate checks (handled there, v1.20+).
                    for &d in &deps {
                        stranded.push(Stranded {
                            object: d,
                            certain: true,
                            why: format!("its owner's kind cannot be mapped: {reason}"),
                        });
                    }
                }
                Mapping::Unknown(why) | Mapping::Unlisted { why, .. } => unknown.push((v, why)),
                mapped @ (Mapping::Resolved(_) | Mapping::Phantom { .. }) => {
                    let (namespaced, gr) = match mapped {
                        Mapping::Resolved(gr) => (self.rest_mapper.gr(gr).namespaced, Some(gr)),
                        Mapping::Phantom { namespaced } => (namespaced, None),
                        _ => unreachable!("matched above"),
                    };
                    // GC 1.20 (PR #92743 without #98068): whether a cluster-scoped or a
                    // namespaced dependent is observed first decides the virtual owner's
                    // namespace, and with it whether the namespaced dependents are ever
                    // evaluated. Informer order is not in a snapshot: report both outcomes.
                    if namespaced
                        && self.rules.namespace_less_virtual_owner_strands()
                        && deps.iter().any(|&d| store.object(d).namespace.is_empty())
                    {
                        for &d in &deps {
                            if !store.object(d).namespace.is_empty() {
                                stranded.push(Stranded {
                                    object: d,
                                    certain: false,
                                    why: "a cluster-scoped dependent references the same missing owner; if the restarted GC observes it first, the owner's virtual node has no namespace and GC 1.20 never verifies it for namespaced dependents (fixed in 1.21, PR #98068); if this object is observed first, the owner is verified absent and this object deleted".into(),
                                });
                            }
                        }
                        continue;
                    }
                    if namespaced && node.id.namespace.is_empty() {
                        if !self.rules.cluster_scoped_to_namespaced_is_unresolvable() {
                            // Pre-1.20: GET at cluster scope 404s; every dependent is enqueued.
                            visit_all(visits);
                        } else if self.rules.third_coordinate_check() {
                            for &d in &deps {
                                if !store.object(d).namespace.is_empty() {
                                    visits
                                        .entry(d)
                                        .or_insert(VisitCause::MissingOwner { uid: node.id.uid });
                                }
                            }
                        }
                        continue;
                    }
                    // A `<Kind>List`/`List` pseudo-kind: the GET 404s (§3.3 quirk).
                    let Some(gr) = gr else {
                        visit_all(visits);
                        continue;
                    };
                    let g = self.rest_mapper.gr(gr);
                    let ns = if g.namespaced {
                        node.id.namespace
                    } else {
                        Sym::EMPTY
                    };
                    match self.rest_mapper.find(gr, ns, node.id.name) {
                        // The owner exists (its resource is not monitored): polled, nothing else.
                        Some(o) if store.object(o).uid == node.id.uid => {}
                        Some(_) => visit_all(visits),
                        None if g.coverage.covers(store.str(ns)) => visit_all(visits),
                        None => unknown.push((
                            v,
                            format!(
                                "{} {} was not fully listed",
                                g.kind,
                                store.str(node.id.name)
                            ),
                        )),
                    }
                }
            }
        }
    }

    /// §1.5(1): dependents whose reference disagrees with an existing owner node.
    fn coordinate_check_visits(&self, visits: &mut BTreeMap<ObjId, VisitCause>) {
        let store = &self.snap.store;
        for (i, node) in self.graph.nodes().iter().enumerate() {
            let owner = NodeId(i as u32);
            if !node.in_graph() {
                continue;
            }
            for &d in self.graph.dependents(owner) {
                let Some(dep) = self.graph.object(d) else {
                    continue;
                };
                let dns = store.object(dep).namespace;
                for r in store
                    .owner_refs(dep)
                    .iter()
                    .filter(|r| r.uid == node.id.uid)
                {
                    let cause = if !node.id.namespace.is_empty() && node.id.namespace != dns {
                        match self.graph.object(owner) {
                            Some(o) => Some(VisitCause::NamespaceMismatch { owner: o }),
                            None => Some(VisitCause::CoordinateMismatch { owner }),
                        }
                    } else if r.api_version != node.id.api_version
                        || r.kind != node.id.kind
                        || r.name != node.id.name
                    {
                        Some(VisitCause::CoordinateMismatch { owner })
                    } else {
                        None
                    };
                    if let Some(c) = cause {
                        visits.entry(dep).or_insert(c);
                        break;
                    }
                }
            }
        }
    }

    /// §2.7 (`processTransitions`): an update event on an object whose deletion just started.
    /// Foreground deletion starting enqueues the object and its dependents; an `orphan`
    /// finalizer enqueues the object for attemptToOrphan. `was_deleting_dependents`: the
    /// object's state before the update.
    pub fn process_deletion_start(
        &self,
        state: &State,
        id: ObjId,
        was_deleting_dependents: bool,
        queue: &mut Vec<ObjId>,
    ) {
        let store = &self.snap.store;
        if state.deleting_dependents(store, id) && !was_deleting_dependents {
            queue.push(id);
            queue.extend(self.current_dependents(state, id));
        }
        if state.orphaning(store, id) {
            queue.push(id);
        }
    }

    /// §2.9: an update event that removed reference `r` or set its `blockOwnerDeletion` to
    /// false. A blocking reference going away re-enqueues its owner (it may be waiting for its
    /// dependents).
    pub fn process_reference_unblocked(&self, r: &OwnerRef, queue: &mut Vec<ObjId>) {
        if r.blocks()
            && let Some(owner) = self
                .graph
                .uid_to_node(r.uid)
                .and_then(|n| self.graph.object(n))
        {
            queue.push(owner);
        }
    }

    /// §2.2 B4: the delete event of `id` (its last finalizer is gone). Its dependents are
    /// enqueued, and its owners that are deletingDependents re-check whether they are unblocked.
    /// Marks the object gone in `state`.
    pub fn process_delete_event(&self, state: &mut State, id: ObjId, queue: &mut Vec<ObjId>) {
        let store = &self.snap.store;
        queue.extend(self.current_dependents(state, id));
        state.remove(id);
        for r in state.owner_refs(store, id) {
            if let Some(owner) = self
                .graph
                .uid_to_node(r.uid)
                .and_then(|n| self.graph.object(n))
                && state.exists(owner)
                && state.deleting_dependents(store, owner)
            {
                queue.push(owner);
            }
        }
    }
}
