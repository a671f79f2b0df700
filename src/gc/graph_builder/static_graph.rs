//! The static graph of a snapshot once every initial list is in ([`Graph::build_for`]): one
//! node per monitored object, a virtual node per missing owner UID, the dependents of every
//! UID as a compressed table. Reports and the audit read it, and the event-driven builder
//! ([`super::GraphBuilder`]) takes its base from it; it needs no event processing, so it
//! lives apart from it.

use crate::catalog::{KubeVersion, gc_monitors_objects_of};
use crate::gc::graph::{Graph, Identity, Node, NodeId, flags};
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
        // one dependent, as in the GC's set). The edges come in dependent order, so counting
        // them per owner and placing them in that order (a counting sort) leaves each owner's
        // dependents in increasing order and a dependent's repeated references to one UID
        // side by side: what sorting the pairs did, in linear time (BENCHMARKS.md, "Figures behind the code").
        let mut dep_offsets = vec![0u32; nodes.len() + 1];
        for &(owner, _) in &edges {
            dep_offsets[owner as usize + 1] += 1;
        }
        for i in 1..dep_offsets.len() {
            dep_offsets[i] += dep_offsets[i - 1];
        }
        let mut next = dep_offsets.clone();
        let mut deps = vec![NodeId(0); edges.len()];
        for &(owner, d) in &edges {
            let at = &mut next[owner as usize];
            deps[*at as usize] = NodeId(d);
            *at += 1;
        }
        drop(edges);
        // Repeats out, each owner's run moved down over the room they took.
        let mut kept = 0u32;
        for owner in 0..nodes.len() {
            let (start, end) = (dep_offsets[owner], dep_offsets[owner + 1]);
            dep_offsets[owner] = kept;
            for i in start..end {
                let d = deps[i as usize];
                if i == start || d != deps[kept as usize - 1] {
                    deps[kept as usize] = d;
                    kept += 1;
                }
            }
        }
        dep_offsets[nodes.len()] = kept;
        deps.truncate(kept as usize);
        Graph {
            nodes,
            objects: n as u32,
            uid_to_node,
            dep_offsets,
            deps,
        }
    }
}
