//! The GC's decisions simulated to a fixpoint (Appendix D.5): what it will do, step by step,
//! and the state every touched object ends in.
//!
//! [`super::simulation`] runs the GC's event flow and work queues in the order the GC takes
//! when nothing races. Upstream does not fix every order: the informers deliver their initial
//! lists concurrently (which dependent creates an owner's virtual node, whether a foreground
//! owner's dependents are linked before its add event, gc-model §1.4, §2.7), and two workers can
//! touch one object in the same round trip. One mechanism covers all of them: the simulation
//! is run again with each alternative order, on the part of the graph it can affect, and an
//! object whose end state differs between runs is **order-dependent**: its [`Outcome`] lists
//! every end state, and the plan's actions keep only the requests on it that every order
//! makes (no one step of a plan may act on something the GC may not do).

use super::attempt_to_delete::Policy;
use super::graph_builder::VisitCause;
use super::simulation::{self, Delays, Delivery, Race, Run, Start};
use super::{GarbageCollector, State};
use crate::model::{ObjId, Store, Sym};
use std::collections::{BTreeMap, HashSet};

/// A cap on simulated steps (API round trips).
pub const MAX_WAVES: u32 = simulation::MAX_STEPS;

/// What an action does (the `verb` of the JSON contract).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verb {
    /// DELETE with a propagation policy and a UID precondition.
    Delete,
    /// Strategic-merge patch removing ownerReferences by UID (§3.7 P1).
    RemoveOwnerReferences,
    /// Strategic-merge patch setting `blockOwnerDeletion=false` (§3.7 P2, the cycle guard of
    /// §3.2 row 9).
    UnblockOwnerReferences,
    /// JSON merge patch removing a finalizer (§3.7 P3).
    RemoveFinalizer,
}

impl Verb {
    /// The JSON contract's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Delete => "delete",
            Verb::RemoveOwnerReferences => "remove-owner-references",
            Verb::UnblockOwnerReferences => "unblock-owner-references",
            Verb::RemoveFinalizer => "remove-finalizer",
        }
    }
}

/// Why an action is taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The user's own delete being previewed.
    UserDelete,
    /// attemptToDeleteItem, §3.2 row 8: the object has a solid owner; these references are
    /// dangling or waiting, and are removed.
    StripDanglingAndWaiting,
    /// attemptToDeleteItem, §3.2 row 9: no solid owner, an owner waiting for its dependents'
    /// deletion, and the object has dependents of its own: it is deleted in the foreground.
    ForegroundForWaitingOwner,
    /// attemptToDeleteItem, §3.2 row 9's cycle guard: before that foreground delete, a
    /// dependent is itself deletingDependents, so the object's blocking references are
    /// unblocked first.
    CycleGuard,
    /// attemptToDeleteItem, §3.2 row 10: no solid owner left; deleted with its own policy.
    NoSolidOwner,
    /// processDeletingDependentsItem, §3.5: foreground deletion with no blocking dependent left.
    ForegroundDone,
    /// attemptToOrphan, §4: the owner is being deleted with Orphan propagation.
    Orphan {
        /// The owner being orphaned from.
        owner: ObjId,
    },
    /// attemptToOrphan, §4: all dependents were orphaned.
    OrphanDone,
}

impl Reason {
    /// The GC rule behind an action, as reports name it (the decision table's row numbers).
    pub fn rule(&self) -> &'static str {
        match self {
            Reason::UserDelete => "user request",
            Reason::StripDanglingAndWaiting => "attemptToDelete row 8",
            Reason::ForegroundForWaitingOwner => "attemptToDelete row 9",
            Reason::CycleGuard => "attemptToDelete row 9 (cycle guard)",
            Reason::NoSolidOwner => "attemptToDelete row 10",
            Reason::ForegroundDone => "processDeletingDependentsItem",
            Reason::Orphan { .. } | Reason::OrphanDone => "attemptToOrphan",
        }
    }
}

/// One action of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    /// The time step (API round trip, from 1) at which the GC sends the request.
    pub wave: u32,
    /// What.
    pub verb: Verb,
    /// On which object.
    pub target: ObjId,
    /// For deletes.
    pub policy: Option<Policy>,
    /// For patches: the owner UIDs removed or unblocked.
    pub owner_refs: Vec<Sym>,
    /// For finalizer removal.
    pub finalizer: Option<Sym>,
    /// Why.
    pub reason: Reason,
    /// Human-readable explanation (which references and why).
    pub detail: String,
}

impl Action {
    /// The owner UIDs a patch action removes or unblocks (`None` for other verbs).
    pub fn patched_owner_uids(&self, store: &Store) -> Option<Vec<String>> {
        matches!(
            self.verb,
            Verb::RemoveOwnerReferences | Verb::UnblockOwnerReferences
        )
        .then(|| {
            self.owner_refs
                .iter()
                .map(|u| store.str(*u).to_owned())
                .collect()
        })
    }
}

/// Predicted end state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndState {
    /// Gone.
    Deleted,
    /// Deletion requested but held by these finalizers.
    Terminating {
        /// Remaining finalizers.
        finalizers: Vec<Sym>,
    },
    /// Still there.
    Kept,
}

/// The end state of one object the plan touches or leaves stuck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The object.
    pub target: ObjId,
    /// Its end state.
    pub state: EndState,
    /// UIDs of its remaining ownerReferences when kept.
    pub owner_refs: Vec<Sym>,
    /// Why it is stuck (terminating forever, never collected, unknown), if it is.
    pub why: Option<String>,
    /// Other end states it reaches when the GC takes another order upstream does not fix
    /// (empty: the outcome is certain).
    pub alternatives: Vec<Alternative>,
}

impl Outcome {
    /// True when the end state depends on an order upstream does not fix.
    pub fn order_dependent(&self) -> bool {
        !self.alternatives.is_empty()
    }
}

/// Which order upstream leaves open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenOrder {
    /// The order in which the informers deliver objects to the graph builder.
    Informers,
    /// Which of two concurrent requests on one object the API server serves first.
    Requests,
}

/// Another possible end state of an order-dependent object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    /// The end state.
    pub state: EndState,
    /// UIDs of its remaining ownerReferences (kept or terminating).
    pub owner_refs: Vec<Sym>,
    /// In that order the GC never evaluates the object.
    pub never_evaluated: bool,
    /// Which order leads there.
    pub order: OpenOrder,
}

/// A plan.
#[derive(Debug)]
pub struct Plan {
    /// Actions in wave order.
    pub actions: Vec<Action>,
    /// End states, sorted by target (at most one per object).
    pub outcomes: Vec<Outcome>,
    /// The state after the last wave.
    pub end: State,
    /// Number of waves that had actions.
    pub waves: u32,
    /// True when [`MAX_WAVES`] was hit before a fixpoint.
    pub truncated: bool,
    /// Objects evaluated because of the start (not as a consequence of the GC's own
    /// requests), and why: what a restarted GC visits (§6.22).
    pub visits: BTreeMap<ObjId, VisitCause>,
    /// Per object: an attemptToDelete worker evaluated it (in the order the plan follows).
    pub evaluated: Vec<bool>,
}

/// A delete the user asks to preview (`collect --delete`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserDelete {
    /// The object.
    pub target: ObjId,
    /// The policy sent; `None` = no explicit policy (the type's default, Appendix B).
    pub policy: Option<Policy>,
}

impl Plan {
    /// The GC's steady state: what it does to the whole snapshot once every object has been
    /// through attemptToDeleteItem, as a GC that was running when the state arose (Appendix
    /// D.6).
    pub fn steady_state(gc: &GarbageCollector<'_>) -> Plan {
        simulate(gc, Start::SteadyState)
    }

    /// What a GC that starts on the snapshot does (§6.22): only what its initial add events
    /// enqueue, and everything that follows.
    pub fn restart(gc: &GarbageCollector<'_>) -> Plan {
        simulate(gc, Start::Restart)
    }

    /// What a user's delete would remove: the delete itself, then only the GC work it
    /// triggers.
    pub fn preview_delete(gc: &GarbageCollector<'_>, delete: UserDelete) -> Plan {
        simulate(gc, Start::UserDelete(delete))
    }

    /// Number of actions per verb.
    pub fn count(&self, verb: Verb) -> usize {
        self.actions.iter().filter(|a| a.verb == verb).count()
    }

    /// Objects deleted, counted by (kind, namespace).
    pub fn deleted_by_kind_namespace(
        &self,
        gc: &GarbageCollector<'_>,
    ) -> BTreeMap<(String, String), usize> {
        let mut out = BTreeMap::new();
        for o in &self.outcomes {
            if o.state == EndState::Deleted {
                let obj = gc.snap.store.object(o.target);
                let key = (
                    gc.snap.resource_of(obj).kind.clone(),
                    gc.snap.store.str(obj.namespace).to_owned(),
                );
                *out.entry(key).or_insert(0) += 1;
            }
        }
        out
    }
}

/// At most this many alternative informer orders per UID are simulated.
const MAX_CHOICES: usize = 4;

/// One UID whose outcome depends on which of its events the graph builder sees first.
struct Choice {
    uid: Sym,
    owner: Option<ObjId>,
    /// The UID's dependents.
    dependents: Vec<ObjId>,
    /// `None`: the owner first; `Some(d)`: dependent `d` (the first with its reference's
    /// identity) first.
    candidates: Vec<Option<ObjId>>,
}

/// The UIDs where the informers' order can change what is queued (gc-model §1.4, §1.5, §2.7):
/// the dependents reference the UID with coordinates (or, for namespaced kinds, namespaces)
/// that differ from each other or from the owner's; the owner is in foreground deletion (which
/// dependents are linked before its add event decides which are queued, F3); or, before v1.20,
/// a dependent observed first makes the worker evaluate the owner itself.
fn informer_choices(gc: &GarbageCollector<'_>, state: &State) -> Vec<Choice> {
    use super::graph::Identity;
    use crate::catalog::version::Change;
    let store = &gc.snap.store;
    let coordinate_aware = gc.rules.version.has(Change::CoordinateAwareGraph);
    let mut out = Vec::new();
    for (i, node) in gc.graph.nodes().iter().enumerate() {
        let base = super::graph::NodeId(i as u32);
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
            super::graph_builder::kind_is_namespaced(gc, id.api_version, id.kind) == Some(false)
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
        let sensitive = match (owner, observed) {
            (Some(o), Some(obs)) => {
                several
                    || (first.api_version, first.kind, first.name)
                        != (obs.api_version, obs.kind, obs.name)
                    || (!obs.namespace.is_empty() && first.namespace != obs.namespace)
                    || state.deleting_dependents(store, o)
                    || (!coordinate_aware && !store.owner_refs(o).is_empty())
                    // A dependent observed first makes a virtual node that the owner's add
                    // event then marks observed in place; the queued pointer is no longer
                    // virtual, so the worker evaluates the owner itself (§3.1 step 2).
                    || (!store.owner_refs(o).is_empty()
                        && !matches!(
                            gc.attempt_to_delete_item(state, o),
                            super::Verdict::Keep { .. }
                                | super::Verdict::NoOwners
                                | super::Verdict::Terminating
                                | super::Verdict::NotMonitored
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
        let mut candidates: Vec<Option<ObjId>> = Vec::new();
        if owner.is_some() {
            candidates.push(None);
        }
        candidates.extend(reps.into_iter().map(|(_, d)| Some(d)));
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

/// Races of one run simulated one by one (beyond: all at once).
const MAX_RACE_RUNS: usize = 8;

/// At most this many informer orders are simulated (the combinations of the choices of one
/// component; beyond, every UID takes its `k`-th candidate in run `k`).
const MAX_ORDERS: usize = 64;

/// The informer orders to simulate: the choices grouped by connected component, so that the
/// choices of UIDs that can interact are combined in every way (up to [`MAX_ORDERS`]).
struct Orders {
    groups: Vec<Vec<usize>>,
    /// Per group: how many orders it has (its combinations, capped).
    group_runs: Vec<usize>,
    runs: usize,
}

impl Orders {
    fn new(gc: &GarbageCollector<'_>, choices: &[Choice], comps: &mut Components) -> Orders {
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
    fn delivery(&self, choices: &[Choice], k: usize) -> Delivery {
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
                let first = c.candidates[pick].or(c.owner);
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
/// namespace that may be deleted with everything in it.
struct Components {
    parent: Vec<u32>,
}

impl Components {
    fn new(gc: &GarbageCollector<'_>, target: Option<u32>) -> Self {
        let n = gc.graph.len();
        let mut c = Components {
            parent: (0..n as u32).collect(),
        };
        for i in 0..n {
            for &d in gc.graph.dependents(super::graph::NodeId(i as u32)) {
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
        c
    }

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

    /// Per object: in the same component as one of `seeds` (graph node ids).
    fn scope(
        &mut self,
        gc: &GarbageCollector<'_>,
        seeds: impl IntoIterator<Item = u32>,
    ) -> Vec<bool> {
        let roots: hashbrown::HashSet<u32> = seeds.into_iter().map(|s| self.find(s)).collect();
        (0..gc.snap.store.len() as u32)
            .map(|i| roots.contains(&self.find(i)))
            .collect()
    }
}

/// What an object ends as in one run.
fn fate(run: &Run, store: &Store, id: ObjId) -> (EndState, Vec<Sym>) {
    let s = &run.state;
    if !s.exists(id) {
        (EndState::Deleted, vec![])
    } else if s.being_deleted(id) {
        (
            EndState::Terminating {
                finalizers: s.finalizers(store, id).to_vec(),
            },
            s.owner_refs(store, id).iter().map(|r| r.uid).collect(),
        )
    } else {
        (
            EndState::Kept,
            s.owner_refs(store, id).iter().map(|r| r.uid).collect(),
        )
    }
}

/// Runs the simulation in the GC's race-free order, then in every order upstream leaves open
/// that can matter, and merges the outcomes.
fn simulate(gc: &GarbageCollector<'_>, start: Start) -> Plan {
    let clock = std::time::Instant::now();
    let store = &gc.snap.store;
    let initial = gc.initial_state();
    let choices = informer_choices(gc, &initial);
    let target = match start {
        Start::UserDelete(u) => Some(u.target.0),
        _ => None,
    };
    let mut comps: Option<Components> = None;
    let orders = if choices.is_empty() {
        Orders {
            groups: Vec::new(),
            group_runs: Vec::new(),
            runs: 1,
        }
    } else {
        Orders::new(
            gc,
            &choices,
            comps.get_or_insert_with(|| Components::new(gc, target)),
        )
    };
    let none = Delays::new();
    let t_choices = clock.elapsed();
    let primary = simulation::run(
        gc,
        start,
        &orders.delivery(&choices, 0),
        &none,
        None,
        &initial,
    );
    let t_primary = clock.elapsed();
    let mut others: Vec<(Run, Vec<bool>, OpenOrder)> = Vec::new();
    let mut raced: Vec<(usize, Vec<Race>)> = Vec::new();
    if !primary.races.is_empty() {
        raced.push((0, primary.races.clone()));
    }
    if orders.runs > 1 {
        let c = comps.get_or_insert_with(|| Components::new(gc, target));
        for k in 1..orders.runs {
            // Only the components that have a `k`-th order.
            let seeds: Vec<u32> = orders
                .groups
                .iter()
                .zip(&orders.group_runs)
                .filter(|&(_, &n)| n > k)
                .flat_map(|(g, _)| g.iter())
                .filter_map(|&i| gc.graph.uid_to_node(choices[i].uid).map(|n| n.0))
                .chain(target)
                .collect();
            let scope = c.scope(gc, seeds);
            let run = simulation::run(
                gc,
                start,
                &orders.delivery(&choices, k),
                &none,
                Some(&scope),
                &initial,
            );
            if !run.races.is_empty() {
                raced.push((k, run.races.clone()));
            }
            others.push((run, scope, OpenOrder::Informers));
        }
    }
    // Races: re-run with the chain that got there first held back. Races of different
    // components cannot interact, so round `r` takes the `r`-th race of every component (a
    // component with more races than rounds has them all held back at once).
    for (k, races) in raced {
        let c = comps.get_or_insert_with(|| Components::new(gc, target));
        let mut by_comp: BTreeMap<u32, Vec<Race>> = BTreeMap::new();
        for r in races {
            by_comp.entry(c.find(r.object.0)).or_default().push(r);
        }
        let rounds = by_comp
            .values()
            .map(|v| if v.len() > MAX_RACE_RUNS { 1 } else { v.len() })
            .max()
            .unwrap_or(0);
        for round in 0..rounds {
            let mut delays = Delays::new();
            let mut seeds = Vec::new();
            for (&root, v) in &by_comp {
                let batch: &[Race] = if v.len() > MAX_RACE_RUNS {
                    if round == 0 { v } else { &[] }
                } else {
                    v.get(round).map(std::slice::from_ref).unwrap_or(&[])
                };
                for r in batch {
                    let d = delays.entry(r.first).or_insert(0);
                    *d = (*d).max(r.by);
                }
                if !batch.is_empty() {
                    seeds.push(root);
                }
            }
            let scope = c.scope(gc, seeds.into_iter().chain(target));
            let run = simulation::run(
                gc,
                start,
                &orders.delivery(&choices, k),
                &delays,
                Some(&scope),
                &initial,
            );
            others.push((run, scope, OpenOrder::Requests));
        }
    }
    if std::env::var_os("KGC_SIM_STATS").is_some() {
        eprintln!(
            "simulate {start:?}: {} choices, {} informer orders, {} extra runs; choices {:?}, primary {:?}, all runs {:?}",
            choices.len(),
            orders.runs,
            others.len(),
            t_choices,
            t_primary - t_choices,
            clock.elapsed()
        );
    }
    // Merge.
    let mut alternatives: BTreeMap<ObjId, Vec<Alternative>> = BTreeMap::new();
    for (run, scope, order) in &others {
        for id in store.ids().filter(|id| scope[id.index()]) {
            let base = fate(&primary, store, id);
            let alt = fate(run, store, id);
            if alt != base {
                let list = alternatives.entry(id).or_default();
                if !list
                    .iter()
                    .any(|a| a.state == alt.0 && a.owner_refs == alt.1)
                {
                    list.push(Alternative {
                        state: alt.0,
                        owner_refs: alt.1,
                        never_evaluated: !run.evaluated[id.index()],
                        order: *order,
                    });
                }
            }
        }
    }
    // The requests on an order-dependent object that every order makes (an orphan patch that
    // lands before or after the race, say) stay in the plan: later requests (the orphan
    // finalizer's removal) rely on them. Only the ones some order does not make are left out.
    let mut certain: BTreeMap<ObjId, Vec<Signature>> = BTreeMap::new();
    for &id in alternatives.keys() {
        let mut common: Vec<Signature> = primary
            .actions
            .iter()
            .filter(|a| a.target == id)
            .map(signature)
            .collect();
        for (run, scope, _) in &others {
            if !scope[id.index()] {
                continue;
            }
            let made: Vec<Signature> = run
                .actions
                .iter()
                .filter(|a| a.target == id)
                .map(signature)
                .collect();
            common.retain(|s| made.contains(s));
        }
        certain.insert(id, common);
    }
    plan_from(gc, primary, alternatives, &certain)
}

/// What a request does, whichever step it is sent at.
type Signature = (Verb, Vec<Sym>, Option<Sym>, Option<Policy>);

fn signature(a: &Action) -> Signature {
    (a.verb, a.owner_refs.clone(), a.finalizer, a.policy)
}

fn plan_from(
    gc: &GarbageCollector<'_>,
    run: Run,
    mut alternatives: BTreeMap<ObjId, Vec<Alternative>>,
    certain: &BTreeMap<ObjId, Vec<Signature>>,
) -> Plan {
    let store = &gc.snap.store;
    let sure = |a: &Action| {
        certain
            .get(&a.target)
            .is_none_or(|c| c.contains(&signature(a)))
    };
    // A finalizer's removal follows what the GC did to the object's dependents first: the
    // orphan patches of attemptToOrphan, the deletions a foreground deletion waits for. When
    // one of those is left out as order-dependent, the removal is left out too; sent alone it
    // would run ahead of the GC (and `--apply`'s re-verification refuses it: the dependent
    // still references the owner).
    let waiting_owners: HashSet<Sym> = run
        .actions
        .iter()
        .filter(|a| !sure(a))
        .flat_map(|a| store.owner_refs(a.target).iter().map(|r| r.uid))
        .collect();
    let actions: Vec<Action> = run
        .actions
        .iter()
        .filter(|a| {
            sure(a)
                && !(a.verb == Verb::RemoveFinalizer
                    && waiting_owners.contains(&store.object(a.target).uid))
        })
        .cloned()
        .collect();
    let visits: BTreeMap<ObjId, VisitCause> = run
        .visits
        .iter()
        .filter(|(_, c)| {
            !matches!(
                c,
                VisitCause::OwnerRemoved { .. }
                    | VisitCause::DependentChanged
                    | VisitCause::Retry
                    | VisitCause::VirtualOwner
                    | VisitCause::BlockingDependent { .. }
            )
        })
        .map(|(o, c)| (*o, *c))
        .collect();
    let mut outcomes = Vec::new();
    for id in store.ids() {
        let touched = run.touched[id.index()];
        let terminating = run.state.exists(id) && run.state.being_deleted(id);
        let stuck = run.stuck.get(&id);
        let alts = alternatives.remove(&id).unwrap_or_default();
        if !touched && !terminating && stuck.is_none() && alts.is_empty() {
            continue;
        }
        // Untouched objects are reported only when stuck on something the GC would otherwise
        // act on (never collected, unknown), or when their fate is open.
        if !touched && !terminating && alts.is_empty() {
            let refs = run.state.owner_refs(store, id);
            if refs.is_empty() {
                continue;
            }
            let classes = gc.classify_references(&run.state, id);
            if classes
                .iter()
                .all(|c| matches!(c, super::RefClass::Solid { .. }))
            {
                continue;
            }
        }
        let (state, mut owner_refs) = fate(&run, store, id);
        if state != EndState::Kept {
            owner_refs.clear();
        }
        let why = match &state {
            EndState::Terminating { .. } => Some(why_terminating(gc, &run, id)),
            EndState::Deleted if run.by_namespace_controller.contains(&id) => Some(
                "deleted by the namespace controller (its namespace is being deleted)".to_owned(),
            ),
            EndState::Deleted => None,
            EndState::Kept => stuck.cloned(),
        };
        outcomes.push(Outcome {
            target: id,
            state,
            owner_refs,
            why,
            alternatives: alts,
        });
    }
    Plan {
        waves: actions.last().map_or(0, |a| a.wave),
        actions,
        outcomes,
        end: run.state,
        truncated: run.truncated,
        visits,
        evaluated: run.evaluated,
    }
}

fn why_terminating(gc: &GarbageCollector<'_>, run: &Run, id: ObjId) -> String {
    let store = &gc.snap.store;
    let state = &run.state;
    let fg = state.foreground_sym();
    let orphan = state.orphan_sym();
    let fins = state.finalizers(store, id);
    let mut parts = Vec::new();
    if fins.contains(&fg) {
        let blocking = gc.blocking_dependents(state, id);
        let mut names: Vec<String> = blocking.iter().map(|&d| gc.snap.describe(d)).collect();
        names.dedup();
        if names.is_empty() {
            parts.push(
                "foregroundDeletion: the GC removes it once it processes the object".to_owned(),
            );
        } else {
            parts.push(format!(
                "foregroundDeletion: blocked by dependents with blockOwnerDeletion=true: {}",
                names.join(", ")
            ));
        }
    }
    if fins.contains(&orphan) {
        parts.push("orphan: the GC removes it after orphaning the dependents".to_owned());
    }
    let others: Vec<&str> = fins
        .iter()
        .filter(|f| **f != fg && **f != orphan)
        .map(|f| store.str(*f))
        .collect();
    if !others.is_empty() {
        parts.push(format!(
            "held by finalizer(s) the GC does not manage: {}",
            others.join(", ")
        ));
    }
    if gc.snap.resource_of(store.object(id)).plural == "namespaces"
        && gc.snap.resource_of(store.object(id)).group.is_empty()
    {
        parts.push(
            "a namespace: the namespace controller removes it once everything in it is gone"
                .to_owned(),
        );
    }
    parts.join("; ")
}
