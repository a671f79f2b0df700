//! The orders upstream leaves open, enumerated: the UIDs whose informer order can change what
//! is queued ([`informer_choices`]), the informer orders to simulate, combined per connected
//! component ([`Orders`]), and the components themselves ([`Components`]), which bound the part
//! of the graph a re-run needs. The driver ([`super::driver`]) runs them.

use crate::gc::simulation::{Delivery, Scope, Start};
use crate::gc::{GarbageCollector, State};
use crate::model::{ObjId, Sym};
use std::collections::BTreeMap;

/// At most this many alternative informer orders per UID are simulated.
const MAX_CHOICES: usize = 4;

/// One UID whose outcome depends on which of its events the graph builder sees first.
pub(super) struct Choice {
    pub(super) uid: Sym,
    owner: Option<ObjId>,
    /// The UID's dependents.
    dependents: Vec<ObjId>,
    candidates: Vec<First>,
}

/// Which of a UID's objects the informers deliver first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum First {
    /// The owner, then its dependents.
    Owner,
    /// Dependent `d` (the first with its reference's identity), then the owner and the others.
    Dependent(ObjId),
    /// Every dependent (dependent `d` first), then the owner: an owner in foreground deletion
    /// then queues them all with its add event (F3), not only the ones with `d`'s identity;
    /// and when `d` names the owner with wrong coordinates, every other dependent is checked
    /// against `d`'s virtual node.
    AllDependents(ObjId),
}

/// The UIDs where the informers' order can change what is queued (gc-model §1.4, §1.5, §2.7):
/// the dependents reference the UID with coordinates (or, for namespaced kinds, namespaces)
/// that differ from each other or from the owner's; the owner is in foreground deletion (which
/// dependents are linked before its add event decides which are queued, F3); or, before v1.20,
/// a dependent observed first makes the worker evaluate the owner itself.
///
/// At a restart (`start`), an owner whose own owner is being orphaned is one too: see the
/// comment where it is tested.
pub(super) fn informer_choices(
    gc: &GarbageCollector<'_>,
    state: &State,
    start: Start,
) -> Vec<Choice> {
    use crate::catalog::version::Change;
    use crate::gc::graph::Identity;
    let store = &gc.snap.store;
    let coordinate_aware = gc.rules.version.has(Change::CoordinateAwareGraph);
    let mut out = Vec::new();
    for (i, node) in gc.graph.nodes().iter().enumerate() {
        let base = crate::gc::graph::NodeId(i as u32);
        if !node.in_graph() {
            continue;
        }
        let deps = gc.graph.dependents(base);
        if deps.is_empty() {
            continue;
        }
        let uid = node.id.uid;
        let owner = gc.graph.object(base);
        let observed = owner.map(|_| node.id);
        // Which identities a dependent observed first can give the UID's virtual node. For
        // a missing owner of a cluster-scoped kind the namespace does not change what is
        // verified (the GET ignores it; the virtual delete walks every namespace, §6.20); for
        // an existing owner it decides which other dependents the coordinate checks flag.
        let cluster_scoped = |id: &Identity| {
            crate::gc::graph_builder::kind_is_namespaced(gc, id.api_version, id.kind) == Some(false)
        };
        let key = |id: &Identity| {
            let ns = if owner.is_none() && cluster_scoped(id) {
                Sym::EMPTY
            } else {
                id.namespace
            };
            (id.api_version, id.kind, id.name, ns)
        };
        // The identity each reference to the UID gives, dependent by dependent (no allocation:
        // most UIDs are not sensitive).
        let identities = || {
            deps.iter()
                .filter_map(|&d| gc.graph.object(d))
                .flat_map(move |d| {
                    let dns = store.object(d).namespace;
                    store
                        .owner_refs(d)
                        .iter()
                        .filter(move |r| r.uid == uid)
                        .map(move |r| {
                            (
                                Identity {
                                    api_version: r.api_version,
                                    kind: r.kind,
                                    name: r.name,
                                    uid,
                                    namespace: dns,
                                },
                                d,
                            )
                        })
                })
        };
        let mut ids = identities();
        let Some((first, _)) = ids.next() else {
            continue;
        };
        let several = ids.any(|(i, _)| key(&i) != key(&first));
        // A reference that names the owner with other coordinates than the owner's own (or,
        // for a namespaced owner, from another namespace).
        let wrong = |id: &Identity, obs: &Identity| {
            (id.api_version, id.kind, id.name) != (obs.api_version, obs.kind, obs.name)
                || (!obs.namespace.is_empty() && id.namespace != obs.namespace)
        };
        let sensitive = match (owner, observed) {
            (Some(o), Some(obs)) => {
                several
                    || wrong(&first, &obs)
                    || state.deleting_dependents(store, o)
                    || (!coordinate_aware && !store.owner_refs(o).is_empty())
                    // A dependent observed first makes a virtual node that the owner's add
                    // event then marks observed in place; the queued pointer is no longer
                    // virtual, so the worker evaluates the owner itself (§3.1 step 2).
                    // At a restart the same early evaluation races the orphaning of one of the
                    // owner's own owners: its GET can precede the orphan PATCH that removes its
                    // reference, and its GET of that owner follow the finalizer's removal
                    // (dangling). Not in a running GC: the owner's deletion began after its
                    // informers' first lists were processed, and `processTransitions` queues
                    // only the orphaning owner (attemptToOrphan), never its dependents, so no
                    // evaluation of them is under way when the orphan worker patches them
                    // (upstream e2e "should orphan RS created by deployment when
                    // deleteOptions.PropagationPolicy is Orphan").
                    || (start == Start::Restart && store.owner_refs(o).iter().any(|r| {
                        gc.graph
                            .uid_to_node(r.uid)
                            .and_then(|n| gc.graph.object(n))
                            .is_some_and(|p| state.orphaning(store, p))
                    }))
                    || (!store.owner_refs(o).is_empty()
                        && !matches!(
                            gc.attempt_to_delete_item(state, o),
                            crate::gc::Verdict::Keep { .. }
                                | crate::gc::Verdict::NoOwners
                                | crate::gc::Verdict::Terminating
                                | crate::gc::Verdict::NotMonitored
                        ))
            }
            _ => several,
        };
        if !sensitive {
            continue;
        }
        let mut reps: Vec<(Identity, ObjId)> = Vec::new();
        for (id, d) in identities() {
            if !reps.iter().any(|(x, _)| key(x) == key(&id)) {
                reps.push((id, d));
            }
        }
        let dependents: Vec<ObjId> = deps.iter().filter_map(|&d| gc.graph.object(d)).collect();
        let mut candidates: Vec<First> = Vec::new();
        if let Some(o) = owner {
            candidates.push(First::Owner);
            if dependents.len() > 1
                && state.deleting_dependents(store, o)
                && let Some(&(_, d)) = reps.first()
            {
                candidates.push(First::AllDependents(d));
            }
            // A dependent that names the owner with other coordinates than the owner's own
            // makes a virtual node with those; every dependent observed before the owner is
            // then checked against them (`addDependentToOwners`), so one whose reference is
            // right is queued too. After the owner only the wrong ones are.
            if reps.len() > 1
                && let Some(obs) = observed
                && let Some(&(_, d)) = reps.iter().find(|(id, _)| wrong(id, &obs))
                && !candidates.contains(&First::AllDependents(d))
            {
                candidates.push(First::AllDependents(d));
            }
        }
        candidates.extend(reps.into_iter().map(|(_, d)| First::Dependent(d)));
        candidates.truncate(MAX_CHOICES);
        out.push(Choice {
            uid,
            owner,
            dependents,
            candidates,
        });
    }
    out
}

/// At most this many informer orders are simulated (the combinations of the choices of one
/// component; beyond, every UID takes its `k`-th candidate in run `k`).
const MAX_ORDERS: usize = 64;

/// The informer orders to simulate: the choices grouped by connected component, so that the
/// choices of UIDs that can interact are combined in every way (up to [`MAX_ORDERS`]).
pub(super) struct Orders {
    pub(super) groups: Vec<Vec<usize>>,
    /// Per group: how many orders it has (its combinations, capped).
    pub(super) group_runs: Vec<usize>,
    pub(super) runs: usize,
}

impl Orders {
    pub(super) fn new(gc: &GarbageCollector<'_>, choices: &[Choice], comps: &Components) -> Orders {
        let mut by_root: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, c) in choices.iter().enumerate() {
            if let Some(n) = gc.graph.uid_to_node(c.uid) {
                by_root.entry(comps.find(n.0)).or_default().push(i);
            }
        }
        let groups: Vec<Vec<usize>> = by_root.into_values().collect();
        let group_runs: Vec<usize> = groups
            .iter()
            .map(|g| {
                g.iter()
                    .map(|&i| choices[i].candidates.len())
                    .try_fold(1usize, |acc, n| acc.checked_mul(n))
                    .unwrap_or(usize::MAX)
                    .min(MAX_ORDERS)
                    .max(
                        g.iter()
                            .map(|&i| choices[i].candidates.len())
                            .max()
                            .unwrap_or(1),
                    )
            })
            .collect();
        let runs = group_runs.iter().copied().max().unwrap_or(1);
        Orders {
            groups,
            group_runs,
            runs,
        }
    }

    /// The informer order of run `k` (run 0: every owner observed before its dependents, every
    /// missing owner's virtual node made by its first dependent in snapshot order).
    pub(super) fn delivery(&self, choices: &[Choice], k: usize) -> Delivery {
        // Each UID's pick is an ordering constraint: the owner before its dependents, or one
        // dependent before the owner and the other dependents.
        let mut edges: Vec<(ObjId, ObjId)> = Vec::new();
        for g in &self.groups {
            let product = g
                .iter()
                .map(|&i| choices[i].candidates.len())
                .try_fold(1usize, |acc, n| acc.checked_mul(n));
            let mut digits = k;
            for &i in g {
                let c = &choices[i];
                let n = c.candidates.len();
                let pick = match product {
                    Some(p) if p <= MAX_ORDERS => {
                        let pick = digits % n;
                        digits /= n;
                        pick
                    }
                    _ => k % n,
                };
                let first = match c.candidates[pick] {
                    First::Owner => c.owner,
                    First::Dependent(d) => Some(d),
                    First::AllDependents(d) => {
                        if let Some(o) = c.owner {
                            edges.extend(c.dependents.iter().map(|&x| (x, o)));
                        }
                        Some(d)
                    }
                };
                let Some(first) = first else { continue };
                for &d in c.dependents.iter().chain(c.owner.iter()) {
                    if d != first {
                        edges.push((first, d));
                    }
                }
            }
        }
        Delivery {
            first: constrained_order(edges),
            unseeded: Vec::new(),
        }
    }
}

/// The objects of `edges` in an order that satisfies as many `before → after` edges as it
/// can (Kahn's algorithm, smallest object first; a conflict is broken at the smallest
/// remaining object).
fn constrained_order(mut edges: Vec<(ObjId, ObjId)>) -> Vec<ObjId> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    edges.sort_unstable();
    edges.dedup();
    let mut nodes: Vec<ObjId> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let index = |o: ObjId| nodes.binary_search(&o).expect("node");
    let mut indeg = vec![0usize; nodes.len()];
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for &(a, b) in &edges {
        out_edges[index(a)].push(index(b));
        indeg[index(b)] += 1;
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..nodes.len())
        .filter(|&i| indeg[i] == 0)
        .map(Reverse)
        .collect();
    let mut done = vec![false; nodes.len()];
    let mut out = Vec::with_capacity(nodes.len());
    while out.len() < nodes.len() {
        let i = match ready.pop() {
            Some(Reverse(i)) if !done[i] => i,
            Some(_) => continue,
            None => (0..nodes.len()).find(|&i| !done[i]).expect("remaining"),
        };
        done[i] = true;
        out.push(nodes[i]);
        for &j in &out_edges[i] {
            indeg[j] = indeg[j].saturating_sub(1);
            if indeg[j] == 0 && !done[j] {
                ready.push(Reverse(j));
            }
        }
    }
    out
}

/// Connected components of the ownership graph (owners and dependents by UID), plus each
/// namespace that may be deleted with everything in it. Fixed once made: the runs on other
/// threads read the same components (each had its own copy, and grouped the objects again,
/// on the plan's longest thread: BENCHMARKS.md, "Figures behind the code").
pub(super) struct Components {
    /// Per graph node: its component's root.
    root: Vec<u32>,
    /// The objects grouped by component, made by the first [`Components::scope`].
    grouped: std::sync::OnceLock<Grouped>,
}

/// `at[root]..at[root + 1]` spans the root's objects in `members`, in store order.
struct Grouped {
    at: Vec<u32>,
    members: Vec<ObjId>,
}

/// Union-find over graph nodes, while the components are made.
struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = p;
            x = p;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra as usize] = rb;
        }
    }
}

impl Components {
    pub(super) fn new(gc: &GarbageCollector<'_>, target: Option<u32>) -> Self {
        let n = gc.graph.len();
        let mut c = UnionFind {
            parent: (0..n as u32).collect(),
        };
        for i in 0..n {
            for &d in gc.graph.dependents(crate::gc::graph::NodeId(i as u32)) {
                c.union(i as u32, d.0);
            }
        }
        // A namespace that has owners, is terminating or is the user's target can take its
        // content with it (the namespace controller deletes everything in it).
        let store = &gc.snap.store;
        let mut ns_obj: hashbrown::HashMap<Sym, ObjId> = hashbrown::HashMap::new();
        for id in store.ids() {
            let o = store.object(id);
            let r = gc.snap.resource_of(o);
            if r.group.is_empty()
                && r.plural == "namespaces"
                && (!store.owner_refs(id).is_empty() || o.being_deleted() || target == Some(id.0))
            {
                ns_obj.insert(o.name, id);
            }
        }
        if !ns_obj.is_empty() {
            for id in store.ids() {
                let o = store.object(id);
                if let Some(&ns) = ns_obj.get(&o.namespace) {
                    c.union(ns.0, id.0);
                }
            }
        }
        Components {
            root: (0..n as u32).map(|i| c.find(i)).collect(),
            grouped: std::sync::OnceLock::new(),
        }
    }

    /// The component (its root) of graph node `x`.
    pub(super) fn find(&self, x: u32) -> u32 {
        self.root[x as usize]
    }

    /// The objects in the same component as one of `seeds` (graph node ids).
    pub(super) fn scope(
        &self,
        gc: &GarbageCollector<'_>,
        seeds: impl IntoIterator<Item = u32>,
    ) -> Scope {
        let len = gc.snap.store.len();
        let mut roots: Vec<u32> = seeds.into_iter().map(|s| self.find(s)).collect();
        roots.sort_unstable();
        roots.dedup();
        let g = self.grouped.get_or_init(|| self.group(len));
        let members = roots
            .iter()
            .flat_map(|&r| &g.members[g.at[r as usize] as usize..g.at[r as usize + 1] as usize])
            .copied()
            .collect();
        Scope::new(len, members)
    }

    /// Every object of a store of `len` by its component's root (a counting sort).
    fn group(&self, len: usize) -> Grouped {
        let roots = &self.root[..len];
        let mut at = vec![0u32; self.root.len() + 1];
        for &r in roots {
            at[r as usize + 1] += 1;
        }
        for i in 1..at.len() {
            at[i] += at[i - 1];
        }
        let mut next = at.clone();
        let mut members = vec![ObjId(0); len];
        for (i, &r) in roots.iter().enumerate() {
            members[next[r as usize] as usize] = ObjId(i as u32);
            next[r as usize] += 1;
        }
        Grouped { at, members }
    }
}
