//! The GC's event flow and work queues, step by step (gc-model §0.1, §2.10, Appendix D.5).
//!
//! **Timing model.** Time advances in steps; one API round trip takes one step; the graph
//! builder is much faster than a round trip, so the events a step's writes cause are processed
//! at the end of that step, and what they enqueue starts at the next one. Every queued item is
//! taken by a worker at once (the GC's `--concurrent-gc-syncs` workers never run out): this is
//! the order the GC takes when nothing races. An `attemptToDelete` item sends its GET, one GET
//! per ownerReference it classifies, then its writes, one per step; an `attemptToOrphan` item
//! patches every dependent in its first step, then GETs and patches the owner's finalizer. The
//! worker-side rules (stale virtual pointers, rows 1–10, `processDeletingDependentsItem`, the
//! virtual-node poll) are upstream's `attemptToDeleteWorker`, `attemptToDeleteItem` and
//! `attemptToOrphanWorker`; the API server's side of every write (finalizers a DELETE adds,
//! Events that never get GC finalizers, namespaces that stay terminating while the namespace
//! controller empties them) is Appendix B.
//!
//! **Races.** Every item belongs to a causal chain: the item queued at the start that led,
//! request by request and event by event, to it. Within a chain the order is fixed; between
//! two chains nothing upstream fixes it — at a start the queues are full and the graph builder
//! may still be draining its backlog, and a write (committed by etcd) costs more than a GET.
//! A read of an object that another chain writes within [`RACE_HORIZON`] steps is a race. A
//! run records its races ([`Run::races`]); the caller re-runs the affected part with the
//! chain that came first held back until after the other ([`Delays`]): from its start, or, a
//! reader's owner GET, at that read only (its worker slow between two round trips, so it read
//! the item before another chain's write and the owner after one). The graph builder races
//! the workers too: a row-1 check soon after a DELETE made its object terminating may read the
//! graph from before (upstream's row 1 reads graph flags, which lag the API server). The
//! outcomes that differ are reported as order-dependent ([`super::plan`]).
//!
//! **Files.** This one holds the run's types, [`run`] and the step loop; `queues.rs` turns
//! what the graph builder queued into running items and finishes them; `workers.rs` is the
//! worker side of an item (GETs, classification, the decision); `api_server.rs` is the API
//! server's side of every request and the namespace controller; `races.rs` finds the races.

mod api_server;
mod queues;
mod races;
mod workers;

pub(crate) use api_server::removal_holds;

use super::classify::RefClass;
use super::graph::Identity;
use super::graph_builder::{Enqueued, GraphBuilder, NEW_CHAIN, Queue, VisitCause};
use super::plan::{Action, Reason, UserDelete, Verb};
use super::{GarbageCollector, State};
use crate::catalog::version::Change;
use crate::model::{BitSet, ObjId, OwnerRef, Store, Sym};
use hashbrown::{HashMap, HashSet};
use std::collections::BTreeMap;

/// A cap on simulated steps; a fixpoint is normally reached in a few dozen.
pub const MAX_STEPS: u32 = 100_000;

/// Two causally independent chains of requests (say, the orphaning of one owner and the
/// verification of another object's missing owner) race when one writes an object the other
/// reads within this many steps of each other: at a start the graph builder may still be
/// draining its backlog and the queues are full, so nothing upstream orders them (observed on
/// the real v1.20.2 GC: an orphan PATCH overtaken by a five-round-trip chain).
pub const RACE_HORIZON: u32 = 8;

/// What a run holds back, keyed by a chain's root item (attemptToOrphan?, node).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Delays {
    /// The chain starts this many steps late, and with it everything it leads to.
    pub chains: HashMap<(bool, u32), u32>,
    /// The chain's owner GET of this object (`isDangling`) is sent this many steps late: a
    /// worker whose requests are slow between two of its own round trips, while other chains
    /// go on.
    pub reads: HashMap<((bool, u32), ObjId), u32>,
    /// The chain's write to this object is sent this many steps late: two items of one chain
    /// (queued by the same event, say) run side by side, and nothing orders their requests.
    pub writes: HashMap<((bool, u32), ObjId), u32>,
    /// The chain's next row-1 check of this object reads a graph that has not seen the object
    /// become terminating yet: the watch event of a DELETE reaches the graph builder after the
    /// DELETE's response reached the worker, and at a start the graph builder has a backlog.
    pub stale: HashSet<((bool, u32), ObjId)>,
}

impl Delays {
    /// Holds back what `race` says. Two holds of the same thing keep the longer.
    pub fn hold(&mut self, race: &Race) {
        let d = match race.hold {
            Hold::Start => self.chains.entry(race.first).or_insert(0),
            Hold::Read => self.reads.entry((race.first, race.object)).or_insert(0),
            Hold::Write => self.writes.entry((race.first, race.object)).or_insert(0),
            Hold::StaleGraph => {
                self.stale.insert((race.first, race.object));
                return;
            }
        };
        *d = (*d).max(race.by);
    }
}

/// How a race is flipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hold {
    /// The chain that got there first starts later ([`Delays::chains`]).
    Start,
    /// A reader that got there first with an owner GET sends that GET later; its earlier
    /// requests keep their time ([`Delays::reads`]).
    Read,
    /// The write of an item that got there before another item of the same chain read the
    /// object is sent later ([`Delays::writes`]).
    Write,
    /// A row-1 check that saw the object terminating (a write of the run made it so) sees
    /// the graph from before ([`Delays::stale`]).
    StaleGraph,
}

/// Two causally independent chains touching one object close enough in time that either can
/// get there first (or, [`Hold::StaleGraph`], a worker and the graph builder).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Race {
    /// The object written by one chain and read by the other.
    pub object: ObjId,
    /// The chain to hold back: its root item (attemptToOrphan?, node).
    pub first: (bool, u32),
    /// How many steps it must be held back to get there second.
    pub by: u32,
    /// How.
    pub hold: Hold,
}

/// How the simulation starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// A GC starting on the snapshot: what the initial add events enqueue (§6.22).
    Restart,
    /// A GC that was running while the state arose: every object is evaluated now.
    SteadyState,
    /// A running GC, and the user's delete (`collect --delete`).
    UserDelete(UserDelete),
}

/// The informers' order in one run (see [`super::plan`]): these objects first, in this order,
/// then every other one in snapshot order.
#[derive(Clone, Debug, Default)]
pub struct Delivery {
    /// The objects whose order matters, in the order they are delivered.
    pub first: Vec<ObjId>,
    /// A steady state only: objects the running GC never queued when they were delivered,
    /// and that nothing queued since (GC 1.20.0–1.20.2, kubernetes#98040: a namespaced
    /// dependent of a namespace-less virtual owner). They are not evaluated at the start.
    pub unseeded: Vec<ObjId>,
}

/// What one run produced.
#[derive(Debug)]
pub struct Run {
    /// Effective requests, in step order.
    pub actions: Vec<Action>,
    /// The cluster at the end.
    pub state: State,
    /// Per object: a write changed it (the GC's or the namespace controller's).
    pub touched: Vec<bool>,
    /// Per object: an attemptToDelete worker found it with its GET (it was evaluated).
    pub evaluated: Vec<bool>,
    /// Races between causally independent chains.
    pub races: Vec<Race>,
    /// Per object: why it was first put on a queue.
    pub visits: BTreeMap<ObjId, VisitCause>,
    /// Per object: why the GC is stuck on it (retried forever, dropped, unknown).
    pub stuck: HashMap<ObjId, String>,
    /// Per object: removed by the namespace controller, not by the GC.
    pub by_namespace_controller: HashSet<ObjId>,
    /// Per namespace the run emptied: what keeps it from going (§10.2), in words.
    pub namespace_holds: HashMap<ObjId, String>,
    /// True when [`MAX_STEPS`] was reached.
    pub truncated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Delete,
    Orphan,
}

#[derive(Clone, Debug)]
enum Phase {
    /// The item's GET.
    Get,
    /// GET the owner of reference `next` of `refs`.
    Classify,
    /// Send `writes[0]` this step.
    Write,
    /// `removeFinalizer`: GET the object.
    FinalizerGet(Sym),
    /// `removeFinalizer`: the patch.
    FinalizerPatch(Sym),
    Done,
}

#[derive(Clone, Debug)]
struct Item {
    kind: Kind,
    /// Causal chain ([`Enqueued::chain`]).
    chain: u32,
    node: super::graph::NodeId,
    /// The node's identity when the item started.
    identity: Identity,
    cause: VisitCause,
    phase: Phase,
    /// The object the GET found.
    target: Option<ObjId>,
    /// Its references and finalizers as read.
    refs: Vec<OwnerRef>,
    finalizers: Vec<Sym>,
    next: usize,
    classes: Vec<RefClass>,
    writes: Vec<Action>,
    /// A virtual node (an owner no informer shows).
    virtual_item: bool,
    /// It changed something.
    wrote: bool,
    /// Steps its next owner GET or write still waits ([`Delays::reads`], [`Delays::writes`]).
    stall: u32,
    /// This item (one start of it), and the step it started: an item of the same chain that
    /// started before another's write cannot have been caused by it.
    id: u32,
    started: u32,
}

/// One read, for race detection.
#[derive(Clone, Copy, Debug)]
struct Read {
    object: ObjId,
    chain: u32,
    step: u32,
    /// An owner GET of `isDangling` (which [`Delays::reads`] can hold back).
    owner_get: bool,
    item: u32,
    /// When the reading item started.
    started: u32,
}

struct Sim<'a, 'b> {
    gc: &'a GarbageCollector<'b>,
    scope: Option<&'a Scope>,
    delays: Delays,
    state: State,
    graph: GraphBuilder<'a>,
    step: u32,
    running: Vec<Item>,
    /// (queue kind, node) → 1 processing, 2 processing and re-added.
    busy: HashMap<(Kind, u32), u8>,
    delayed: Vec<(u32, Enqueued)>,
    dormant: Vec<(u32, Enqueued)>,
    writes_total: u32,
    actions: Vec<Action>,
    touched: Vec<bool>,
    evaluated: Vec<bool>,
    visits: BTreeMap<ObjId, VisitCause>,
    stuck: HashMap<ObjId, String>,
    by_namespace_controller: HashSet<ObjId>,
    namespace_holds: HashMap<ObjId, String>,
    /// Namespaces the namespace controller is emptying.
    terminating_namespaces: Vec<ObjId>,
    /// Namespaces whose `kubernetes` token the namespace controller has removed: they go once
    /// their `metadata.finalizers` are empty too.
    finalized_namespaces: HashSet<ObjId>,
    ns_index: Option<HashMap<Sym, Vec<ObjId>>>,
    polls: HashMap<u32, u32>,
    /// Per UID: the identities its virtual node was verified with since the world last
    /// changed (at that count of writes).
    tried: HashMap<Sym, (u32, Vec<Identity>)>,
    /// Whether trace events are wanted (`-v 8`): every step's items and requests, each run's
    /// informer order, races and end states (debugging). Asked once per run, not per step.
    trace: bool,
    built: std::time::Duration,
    /// Only a restart's visits are reported (a steady state visits everything).
    record_visits: bool,
    next_chain: u32,
    /// Root item of each chain: (attemptToOrphan?, node).
    roots: HashMap<u32, (bool, u32)>,
    /// Reads, and effective writes as (object, chain, step, item), for race detection.
    read_log: Vec<Read>,
    /// Row-1 checks that found the object terminating: (object, chain, step); and the step a
    /// write of the run made an object terminating.
    row1_log: Vec<(ObjId, u32, u32)>,
    terminating_log: Vec<(ObjId, u32)>,
    write_log: Vec<(ObjId, u32, u32, u32)>,
    /// The chain and item of the request being applied (item 0: not a worker's).
    chain: u32,
    item: u32,
    next_item: u32,
}

/// The part of the snapshot a run simulates: whole components of the ownership graph, since
/// nothing outside a component changes what happens inside it. Its members are kept in store
/// order (a scoped run visits them in the order an unscoped one does) and as a mask (one
/// lookup per check): a scope is usually a few hundred objects of a million, and a run that
/// walked every object to find them spent most of its time there.
pub struct Scope {
    mask: Vec<bool>,
    members: Vec<ObjId>,
}

impl Scope {
    /// The scope of `members` in a store of `len` objects.
    pub fn new(len: usize, mut members: Vec<ObjId>) -> Scope {
        members.sort_unstable();
        members.dedup();
        let mut mask = vec![false; len];
        for m in &members {
            mask[m.index()] = true;
        }
        Scope { mask, members }
    }

    /// Whether `id` is one of its objects.
    pub fn contains(&self, id: ObjId) -> bool {
        self.mask[id.index()]
    }

    /// Its objects, in store order.
    pub fn members(&self) -> &[ObjId] {
        &self.members
    }

    /// The objects of `store` in `scope` (all of them without one), in store order.
    pub fn ids<'s>(scope: Option<&'s Scope>, store: &'s Store) -> impl Iterator<Item = ObjId> + 's {
        let (all, some) = match scope {
            None => (Some(store.ids()), None),
            Some(s) => (None, Some(s.members.iter().copied())),
        };
        all.into_iter().flatten().chain(some.into_iter().flatten())
    }
}

/// Runs the GC from `start` on the snapshot (objects outside `scope` left out) with informer
/// order `delivery`, the chains in `delays` held back, from the cluster as `initial` says.
pub fn run(
    gc: &GarbageCollector<'_>,
    start: Start,
    delivery: &Delivery,
    delays: &Delays,
    scope: Option<&Scope>,
    initial: &State,
) -> Run {
    let store = &gc.snap.store;
    let state = initial.clone();
    let mut graph = GraphBuilder::new(gc, scope.is_none());
    // The informers' initial lists: the objects whose order matters in the order this run
    // takes, then the others with every owner before its dependents.
    let monitored = |id: &ObjId| gc.graph.monitors(*id) && scope.is_none_or(|s| s.contains(*id));
    let first: HashSet<ObjId> = delivery.first.iter().copied().collect();
    let clock = std::time::Instant::now();
    for &id in delivery.first.iter().filter(|id| monitored(id)) {
        graph.add(gc, &state, id);
    }
    let rest: Vec<ObjId> = Scope::ids(scope, store)
        .filter(|id| gc.graph.monitors(*id) && !first.contains(id))
        .collect();
    graph.add_owners_first(gc, &state, &rest);
    let built = clock.elapsed();
    if tracing::enabled!(tracing::Level::TRACE) {
        tracing::trace!(
            "run {start:?} delays={delays:?} scoped={} first={:?}",
            scope.is_some(),
            delivery
                .first
                .iter()
                .map(|&o| store.str(store.object(o).name))
                .collect::<Vec<_>>()
        );
    }
    let mut sim = Sim {
        gc,
        scope,
        delays: delays.clone(),
        state,
        graph,
        step: 0,
        running: Vec::new(),
        busy: HashMap::new(),
        delayed: Vec::new(),
        dormant: Vec::new(),
        writes_total: 0,
        actions: Vec::new(),
        touched: vec![false; store.len()],
        evaluated: vec![false; store.len()],
        visits: BTreeMap::new(),
        stuck: HashMap::new(),
        by_namespace_controller: HashSet::new(),
        namespace_holds: HashMap::new(),
        terminating_namespaces: Vec::new(),
        finalized_namespaces: HashSet::new(),
        ns_index: None,
        polls: HashMap::new(),
        tried: HashMap::new(),
        trace: tracing::enabled!(tracing::Level::TRACE),
        built,
        record_visits: start == Start::Restart,
        next_chain: 0,
        roots: HashMap::new(),
        read_log: Vec::new(),
        row1_log: Vec::new(),
        terminating_log: Vec::new(),
        write_log: Vec::new(),
        chain: 0,
        item: 0,
        next_item: 0,
    };
    sim.sync_absent_cache();
    match start {
        Start::Restart => {}
        Start::SteadyState => {
            // Every object is evaluated; one whose every reference is solid (or that has
            // none, or waits for its own deletion) is left as it is in every order, so only
            // the others need a worker.
            let mut extra = Vec::new();
            for id in Scope::ids(scope, store)
                .filter(|&id| gc.graph.monitors(id))
                .filter(|&id| !quiet(gc, &sim.state, id))
                .filter(|id| !delivery.unseeded.contains(id))
            {
                if let Some(n) = sim.graph.uid_to_node(store.object(id).uid) {
                    extra.push(Enqueued {
                        queue: Queue::AttemptToDelete,
                        node: n,
                        cause: VisitCause::SteadyState,
                        chain: NEW_CHAIN,
                    });
                }
            }
            sim.graph.queued.extend(extra);
        }
        Start::UserDelete(u) => {
            // A running GC has long processed its start; only the user's request and what it
            // causes remain.
            sim.graph.queued.clear();
            sim.step = 1;
            let (policy, detail) = sim.user_policy(u);
            let act = Action {
                wave: 1,
                verb: Verb::Delete,
                target: u.target,
                policy: Some(policy),
                owner_refs: vec![],
                finalizer: None,
                reason: Reason::UserDelete,
                detail,
            };
            sim.apply(act);
        }
    }
    let out = sim.run_steps();
    tracing::debug!(
        objects_in_scope = scope.map_or(store.len(), |s| s.members().len()),
        elapsed = ?clock.elapsed(),
        "simulation run ended"
    );
    out
}

impl<'a, 'b> Sim<'a, 'b> {
    fn store(&self) -> &'a crate::model::Store {
        &self.gc.snap.store
    }

    fn in_scope(&self, id: ObjId) -> bool {
        self.scope.is_none_or(|s| s.contains(id))
    }

    /// Before v1.20 the absent-owner cache is keyed by UID and consulted by `isDangling`.
    fn sync_absent_cache(&mut self) {
        let uids = std::mem::take(&mut self.graph.absent_uids);
        if !self.gc.rules.version.has(Change::CoordinateAwareGraph) {
            for u in uids {
                self.state.add_absent_owner(u);
            }
        }
    }

    fn run_steps(mut self) -> Run {
        let mut truncated = false;
        loop {
            self.step += 1;
            if self.step > MAX_STEPS {
                truncated = true;
                break;
            }
            self.start_queued();
            if self.running.is_empty() {
                // Quiet: re-poll virtual nodes if anything changed since they were polled
                // (their back-off ends long after everything else settled).
                if let Some(next) = self.delayed.iter().map(|d| d.0).min() {
                    self.step = next.max(self.step) - 1;
                    continue;
                }
                let woken: Vec<Enqueued> = std::mem::take(&mut self.dormant)
                    .into_iter()
                    .filter_map(|(seen, e)| (seen < self.writes_total).then_some(e))
                    .collect();
                if woken.is_empty() && self.terminating_namespaces.is_empty() {
                    break;
                }
                if woken.is_empty() {
                    // Only namespaces left that wait on content held by other finalizers.
                    if !self.namespace_controller() {
                        break;
                    }
                    continue;
                }
                self.graph.queued.extend(woken);
                self.step -= 1;
                continue;
            }
            self.run_step();
            self.namespace_controller();
        }
        let races = self.races();
        if self.trace {
            tracing::trace!("races {races:?}");
            let store = self.store();
            for id in Scope::ids(self.scope, store) {
                tracing::trace!(
                    "end {:?}: exists {} deleting {} finalizers {} refs {}",
                    store.str(store.object(id).name),
                    self.state.exists(id),
                    self.state.exists(id) && self.state.being_deleted(id),
                    self.state.finalizers(store, id).len(),
                    self.state.owner_refs(store, id).len()
                );
            }
        }
        tracing::debug!(
            graph_built_in = ?self.built,
            steps = self.step,
            chains = self.next_chain,
            reads = self.read_log.len(),
            writes = self.write_log.len(),
            truncated,
            "simulation steps ended"
        );
        Run {
            actions: self.actions,
            state: self.state,
            touched: self.touched,
            evaluated: self.evaluated,
            races,
            visits: self.visits,
            stuck: self.stuck,
            by_namespace_controller: self.by_namespace_controller,
            namespace_holds: self.namespace_holds,
            truncated,
        }
    }
}

/// Whether anything can happen to `id`, or because of it, in a steady state (as `initial`
/// says): it is terminating (the graph builder processes its deletion, the namespace controller
/// empties a namespace), a worker is given it ([`quiet`] says no), or one of its references is
/// linked to a node no monitored object stands for (the graph builder makes it virtual and
/// polls it, even when the owner exists). A component of the graph in which this is false of
/// every object ends as it started in every run and order, so the primary run can leave it out.
///
/// `unquiet`, when given, answers [`quiet`] for the objects it covers (monitored, not
/// terminating) instead of classifying their references again.
pub fn may_act(
    gc: &GarbageCollector<'_>,
    initial: &State,
    unquiet: Option<&Unquiet>,
    id: ObjId,
) -> bool {
    if initial.being_deleted(id) {
        return true;
    }
    if !gc.graph.monitors(id) {
        return false;
    }
    let settled = match unquiet {
        Some(u) => !u.contains(id),
        None => quiet(gc, initial, id),
    };
    if !settled {
        return true;
    }
    has_unmonitored_owner(gc, initial, id)
}

/// One of `id`'s references is linked to a node no monitored object stands for.
fn has_unmonitored_owner(gc: &GarbageCollector<'_>, initial: &State, id: ObjId) -> bool {
    let graph = &gc.graph;
    initial.owner_refs(&gc.snap.store, id).iter().any(|r| {
        graph
            .uid_to_node(r.uid)
            .and_then(|n| graph.object(n))
            .is_none_or(|o| !graph.monitors(o))
    })
}

/// The objects [`may_act`] says yes to whatever the [`Unquiet`] set holds: the terminating
/// ones, and the monitored ones with a reference to a node no monitored object stands for.
/// A steady-state plan that waits for the audit's unquiet set works this out meanwhile (a
/// pass over every reference, otherwise spent after the set arrives: BENCHMARKS.md, "Figures behind the code"); with the set, [`MayAct::with`] gives what `may_act` gives
/// object by object.
#[derive(Debug)]
pub struct MayAct(BitSet);

impl MayAct {
    /// The objects that may act whatever the unquiet set holds.
    pub fn regardless_of_quiet(gc: &GarbageCollector<'_>, initial: &State) -> MayAct {
        let store = &gc.snap.store;
        let mut acts = BitSet::new(store.len());
        for id in store.ids() {
            if initial.being_deleted(id)
                || (gc.graph.monitors(id) && has_unmonitored_owner(gc, initial, id))
            {
                acts.insert(id.index());
            }
        }
        MayAct(acts)
    }

    /// The objects `may_act(gc, initial, Some(unquiet), id)` says yes to, in increasing
    /// order: these and the unquiet ones (which are monitored and not terminating, so for
    /// them `may_act` answers from the set alone).
    pub fn with(&self, unquiet: &Unquiet) -> BitSet {
        self.0.union(&unquiet.0)
    }
}

/// The monitored objects, not terminating in the initial state, that have a reference that
/// is not solid there: where [`quiet`] says no. The audit classifies every reference for its
/// own findings; handing the plan this set spares the plan a second classification of the
/// whole snapshot (BENCHMARKS.md, "Figures behind the code").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unquiet(BitSet);

impl Unquiet {
    /// An empty set for a store of `len` objects.
    pub fn new(len: usize) -> Unquiet {
        Unquiet(BitSet::new(len))
    }

    /// Adds `id` if it belongs: `classes` is the classification of its current references in
    /// `initial` (as `attemptToDeleteItem` makes it), for a monitored object.
    pub fn note(&mut self, initial: &State, id: ObjId, classes: &[RefClass]) {
        if !initial.being_deleted(id)
            && !classes.iter().all(|c| matches!(c, RefClass::Solid { .. }))
        {
            self.0.insert(id.index());
        }
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: ObjId) -> bool {
        self.0.contains(id.index())
    }

    /// The set as [`quiet`] defines it, computed from scratch.
    pub fn of(gc: &GarbageCollector<'_>, initial: &State) -> Unquiet {
        let store = &gc.snap.store;
        let mut u = Unquiet::new(store.len());
        for id in store.ids() {
            if gc.graph.monitors(id) && !initial.being_deleted(id) && !quiet(gc, initial, id) {
                u.0.insert(id.index());
            }
        }
        u
    }
}

/// An object attemptToDeleteItem leaves as it is: no references, every reference solid (a
/// solid owner that is terminating without `foregroundDeletion` included), or terminating
/// itself outside a foreground deletion (row 1).
fn quiet(gc: &GarbageCollector<'_>, state: &State, id: ObjId) -> bool {
    let store = &gc.snap.store;
    if state.being_deleted(id) {
        return !state.deleting_dependents(store, id);
    }
    state
        .owner_refs(store, id)
        .iter()
        .all(|r| matches!(gc.classify_reference(state, id, r), RefClass::Solid { .. }))
}
