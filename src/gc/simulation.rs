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
//! chain that came first held back until after the other ([`Delays`]), and reports the
//! outcomes that differ as order-dependent ([`super::plan`]).

use super::attempt_to_delete::Policy;
use super::classify::RefClass;
use super::graph::Identity;
use super::graph_builder::{Enqueued, GraphBuilder, NEW_CHAIN, OldMeta, Queue, VisitCause};
use super::plan::{Action, Reason, UserDelete, Verb};
use super::rest_mapper::Mapping;
use super::{GarbageCollector, State};
use crate::catalog::version::Change;
use crate::model::{ObjId, OwnerRef, Sym};
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

/// Chains held back in a run: the item queued at the start on (attemptToOrphan?, node) starts
/// this many steps late, and with it everything it leads to.
pub type Delays = HashMap<(bool, u32), u32>;

/// Two causally independent chains touching one object close enough in time that either can
/// get there first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Race {
    /// The object written by one chain and read by the other.
    pub object: ObjId,
    /// The chain that got there first in this run: its root item (attemptToOrphan?, node).
    pub first: (bool, u32),
    /// How many steps it must be held back to get there second.
    pub by: u32,
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
}

struct Sim<'a, 'b> {
    gc: &'a GarbageCollector<'b>,
    scope: Option<&'a [bool]>,
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
    /// Namespaces the namespace controller is emptying.
    terminating_namespaces: Vec<ObjId>,
    ns_index: Option<HashMap<Sym, Vec<ObjId>>>,
    polls: HashMap<u32, u32>,
    /// Per UID: the identities its virtual node was verified with since the world last
    /// changed (at that count of writes).
    tried: HashMap<Sym, (u32, Vec<Identity>)>,
    /// `KGC_SIM_TRACE`: print every step's items and requests on stderr (debugging).
    trace: bool,
    built: std::time::Duration,
    /// Only a restart's visits are reported (a steady state visits everything).
    record_visits: bool,
    next_chain: u32,
    /// Root item of each chain: (attemptToOrphan?, node).
    roots: HashMap<u32, (bool, u32)>,
    /// Reads and effective writes, by object: (object, chain, step), for race detection.
    read_log: Vec<(ObjId, u32, u32)>,
    write_log: Vec<(ObjId, u32, u32)>,
    /// The chain of the request being applied.
    chain: u32,
}

/// Runs the GC from `start` on the snapshot (objects outside `scope` left out) with informer
/// order `delivery`, the chains in `delays` held back, from the cluster as `initial` says.
pub fn run(
    gc: &GarbageCollector<'_>,
    start: Start,
    delivery: &Delivery,
    delays: &Delays,
    scope: Option<&[bool]>,
    initial: &State,
) -> Run {
    let store = &gc.snap.store;
    let state = initial.clone();
    let mut graph = GraphBuilder::new(gc);
    let in_scope = |id: ObjId| scope.is_none_or(|s| s[id.index()]);
    // The informers' initial lists: the objects whose order matters in the order this run
    // takes, then the others with every owner before its dependents.
    let monitored = |id: &ObjId| gc.graph.monitors(*id) && in_scope(*id);
    let first: HashSet<ObjId> = delivery.first.iter().copied().collect();
    let clock = std::time::Instant::now();
    for &id in delivery.first.iter().filter(|id| monitored(id)) {
        graph.add(gc, &state, id);
    }
    let rest: Vec<ObjId> = store
        .ids()
        .filter(|id| monitored(id) && !first.contains(id))
        .collect();
    graph.add_owners_first(gc, &state, &rest);
    let built = clock.elapsed();
    if std::env::var_os("KGC_SIM_TRACE").is_some() {
        eprintln!("run {start:?} delays={delays:?} scoped={}", scope.is_some());
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
        terminating_namespaces: Vec::new(),
        ns_index: None,
        polls: HashMap::new(),
        tried: HashMap::new(),
        trace: std::env::var_os("KGC_SIM_TRACE").is_some(),
        built,
        record_visits: start == Start::Restart,
        next_chain: 0,
        roots: HashMap::new(),
        read_log: Vec::new(),
        write_log: Vec::new(),
        chain: 0,
    };
    sim.sync_absent_cache();
    match start {
        Start::Restart => {}
        Start::SteadyState => {
            // Every object is evaluated; one whose every reference is solid (or that has
            // none, or waits for its own deletion) is left as it is in every order, so only
            // the others need a worker.
            let mut extra = Vec::new();
            for id in store
                .ids()
                .filter(|&id| gc.graph.monitors(id) && in_scope(id))
                .filter(|&id| !quiet(gc, &sim.state, id))
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
    sim.run_steps()
}

impl<'a, 'b> Sim<'a, 'b> {
    fn store(&self) -> &'a crate::model::Store {
        &self.gc.snap.store
    }

    fn in_scope(&self, id: ObjId) -> bool {
        self.scope.is_none_or(|s| s[id.index()])
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
        if std::env::var_os("KGC_SIM_STATS").is_some() {
            eprintln!(
                "  run: graph built in {:?}; {} steps, {} chains, {} reads, {} writes, truncated {truncated}",
                self.built,
                self.step,
                self.next_chain,
                self.read_log.len(),
                self.write_log.len()
            );
        }
        Run {
            actions: self.actions,
            state: self.state,
            touched: self.touched,
            evaluated: self.evaluated,
            races,
            visits: self.visits,
            stuck: self.stuck,
            by_namespace_controller: self.by_namespace_controller,
            truncated,
        }
    }

    /// Turns what was queued by the end of the previous step into running items (a queue
    /// holds each item once; one being processed is processed again afterwards).
    fn start_queued(&mut self) {
        let mut due: Vec<Enqueued> = std::mem::take(&mut self.graph.queued);
        let now = self.step;
        let mut later = Vec::new();
        for (at, e) in std::mem::take(&mut self.delayed) {
            if at <= now {
                due.push(e);
            } else {
                later.push((at, e));
            }
        }
        self.delayed = later;
        let mut started: HashSet<(Kind, u32)> = HashSet::new();
        for e in due {
            let kind = match e.queue {
                Queue::AttemptToOrphan => Kind::Orphan,
                _ => Kind::Delete,
            };
            if e.queue == Queue::AttemptToDeleteRateLimited && e.cause == VisitCause::Retry {
                // A re-identified virtual node walks its alternative identities in a cycle
                // (§2.5), polled for ever with back-off: each identity is worth one GET per
                // state of the world; the others wait until something changes.
                let id = self.graph.node(e.node).id;
                let entry = self
                    .tried
                    .entry(id.uid)
                    .or_insert((self.writes_total, Vec::new()));
                if entry.0 != self.writes_total {
                    *entry = (self.writes_total, Vec::new());
                }
                if entry.1.contains(&id) {
                    self.dormant.push((
                        self.writes_total,
                        Enqueued {
                            chain: NEW_CHAIN,
                            ..e
                        },
                    ));
                    continue;
                }
                entry.1.push(id);
            }
            let key = (kind, e.node.0);
            if let Some(b) = self.busy.get_mut(&key) {
                *b = 2;
                continue;
            }
            if !started.insert(key) {
                continue;
            }
            self.busy.insert(key, 1);
            let n = self.graph.node(e.node);
            let root_key = (kind == Kind::Orphan, e.node.0);
            if e.chain == NEW_CHAIN
                && let Some(d) = self.delays.remove(&root_key)
            {
                // Held back: this chain comes after the one it raced.
                started.remove(&key);
                self.busy.remove(&key);
                self.delayed.push((now + d, e));
                continue;
            }
            let chain = if e.chain == NEW_CHAIN {
                self.next_chain += 1;
                self.roots.insert(self.next_chain, root_key);
                self.next_chain
            } else {
                e.chain
            };
            self.running.push(Item {
                kind,
                chain,
                node: e.node,
                identity: n.id,
                cause: e.cause,
                phase: Phase::Get,
                target: None,
                refs: Vec::new(),
                finalizers: Vec::new(),
                next: 0,
                classes: Vec::new(),
                writes: Vec::new(),
                virtual_item: n.is_virtual(),
                wrote: false,
            });
        }
    }

    fn run_step(&mut self) {
        let mut items = std::mem::take(&mut self.running);
        if self.trace {
            let store = self.store();
            for it in &items {
                eprintln!(
                    "step {} {:?} {} {:?} ({:?})",
                    self.step,
                    it.kind,
                    store.str(it.identity.name),
                    it.phase,
                    it.cause
                );
            }
        }
        // Items whose first request needs no round trip settle now.
        for it in items.iter_mut() {
            if matches!(it.phase, Phase::Get) && it.target.is_none() && it.refs.is_empty() {
                self.precheck(it);
            }
        }
        // This step's writes are known before it starts.
        let mut writes: Vec<(usize, Action)> = Vec::new();
        let mut sent: Vec<usize> = Vec::new();
        for (i, it) in items.iter_mut().enumerate() {
            match it.phase {
                Phase::Write => {
                    if !it.writes.is_empty() {
                        let a = it.writes.remove(0);
                        writes.push((i, a));
                    }
                    sent.push(i);
                }
                Phase::FinalizerPatch(f) => {
                    if let Some(t) = it.target {
                        let orphan = f == self.state.orphan_sym();
                        writes.push((
                            i,
                            Action {
                                wave: self.step,
                                verb: Verb::RemoveFinalizer,
                                target: t,
                                policy: None,
                                owner_refs: vec![],
                                finalizer: Some(f),
                                reason: if orphan {
                                    Reason::OrphanDone
                                } else {
                                    Reason::ForegroundDone
                                },
                                detail: if orphan {
                                    "all dependents orphaned".into()
                                } else {
                                    "no dependent with blockOwnerDeletion=true remains".into()
                                },
                            },
                        ));
                    }
                    sent.push(i);
                }
                Phase::Get if it.kind == Kind::Orphan => {
                    // attemptToOrphan: every dependent of the graph's set, concurrently.
                    for a in self.orphan_patches(it) {
                        writes.push((i, a));
                    }
                    sent.push(i);
                }
                _ => {}
            }
        }
        self.apply_writes(&mut items, writes);
        self.reads(&mut items);
        // The items that sent a write this step move on.
        for i in sent {
            let it = &mut items[i];
            match it.phase {
                Phase::Write if it.writes.is_empty() => it.phase = Phase::Done,
                Phase::FinalizerPatch(_) => it.phase = Phase::Done,
                Phase::Get if it.kind == Kind::Orphan => {
                    it.phase = Phase::FinalizerGet(self.state.orphan_sym());
                }
                _ => {}
            }
        }
        self.sync_absent_cache();
        // Finished items leave; re-added ones go back on their queue.
        let mut keep = Vec::with_capacity(items.len());
        for it in items {
            if matches!(it.phase, Phase::Done) {
                self.finish(it);
            } else {
                keep.push(it);
            }
        }
        self.running.extend(keep);
    }

    fn finish(&mut self, it: Item) {
        let key = (it.kind, it.node.0);
        let again = self.busy.remove(&key) == Some(2);
        let e = Enqueued {
            queue: if it.kind == Kind::Orphan {
                Queue::AttemptToOrphan
            } else {
                Queue::AttemptToDelete
            },
            node: it.node,
            cause: it.cause,
            chain: it.chain,
        };
        // A virtual node found existing (an owner no informer shows) is polled again:
        // `attemptToDeleteWorker` requeues a virtual item that `attemptToDeleteItem` found,
        // and every poll is the full attemptToDeleteItem (issue 14 case 2: an unmonitored
        // owner with no solid owner of its own is deleted). Soon after it changed something,
        // otherwise once the rest has settled (§1.4).
        let poll_again = it.kind == Kind::Delete
            && it.virtual_item
            && it.target.is_some()
            && self.graph.node(it.node).is_virtual()
            && self.graph.uid_to_node(it.identity.uid) == Some(it.node);
        if poll_again {
            let polls = self.polls.entry(it.node.0).or_insert(0);
            *polls += 1;
            if *polls > 64 {
                return;
            }
            let retry = Enqueued {
                queue: Queue::AttemptToDeleteRateLimited,
                cause: VisitCause::Retry,
                ..e
            };
            if it.wrote {
                self.delayed.push((self.step + 1, retry));
            } else {
                // Woken by whatever changes later: a chain of its own.
                let retry = Enqueued {
                    chain: NEW_CHAIN,
                    ..retry
                };
                self.dormant.push((self.writes_total, retry));
            }
            return;
        }
        if again {
            self.graph.queued.push(e);
        }
    }

    /// The checks an item makes before any request (§3.1 step 2, §3.2 row 1, the
    /// namespace-less short-circuit of row 2).
    fn precheck(&mut self, it: &mut Item) {
        if it.kind == Kind::Orphan {
            return;
        }
        let gc = self.gc;
        let node = self.graph.node(it.node);
        if node.is_virtual() && gc.rules.version.has(Change::CoordinateAwareGraph) {
            // A stale virtual pointer: forgotten when its UID is gone or observed.
            match self.graph.uid_to_node(node.id.uid) {
                None => {
                    it.phase = Phase::Done;
                    return;
                }
                Some(cur) if !self.graph.node(cur).is_virtual() => {
                    it.phase = Phase::Done;
                    return;
                }
                _ => {}
            }
        }
        // Row 1: terminating and not in foreground deletion: wait for the delete event.
        if node.being_deleted() && !node.deleting_dependents() {
            it.phase = Phase::Done;
            return;
        }
        if let Some(ns) = self.identity_namespaced(&it.identity)
            && ns
            && it.identity.namespace.is_empty()
            && gc.rules.version.has(Change::CoordinateAwareGraph)
        {
            // "cluster-scoped objects cannot refer to namespaced owners": dropped.
            it.phase = Phase::Done;
        }
    }

    fn identity_namespaced(&self, id: &Identity) -> Option<bool> {
        super::graph_builder::kind_is_namespaced(self.gc, id.api_version, id.kind)
    }

    fn mark_read(&mut self, obj: ObjId, chain: u32) {
        self.read_log.push((obj, chain, self.step));
    }

    /// Reads of an object written by another chain within [`RACE_HORIZON`] steps.
    fn races(&self) -> Vec<Race> {
        if self.write_log.is_empty() {
            return Vec::new();
        }
        let mut writes: HashMap<ObjId, Vec<(u32, u32)>> = HashMap::new();
        for &(o, c, t) in &self.write_log {
            writes.entry(o).or_default().push((c, t));
        }
        let mut out: HashSet<Race> = HashSet::new();
        for &(o, rc, rt) in &self.read_log {
            let Some(ws) = writes.get(&o) else { continue };
            for &(wc, wt) in ws {
                if wc == rc || rt.abs_diff(wt) > RACE_HORIZON {
                    continue;
                }
                // Hold back whichever chain got there first.
                let (first, by) = if wt <= rt {
                    (wc, rt - wt + 1)
                } else {
                    (rc, wt - rt + 1)
                };
                if let Some(&root) = self.roots.get(&first) {
                    out.insert(Race {
                        object: o,
                        first: root,
                        by,
                    });
                }
            }
        }
        let mut out: Vec<Race> = out.into_iter().collect();
        out.sort_by_key(|r| (r.object, r.first, r.by));
        out
    }

    /// One read per item in a read phase.
    fn reads(&mut self, items: &mut [Item]) {
        for it in items.iter_mut() {
            match it.phase.clone() {
                Phase::Get if it.kind == Kind::Delete => self.get_item(it),
                Phase::Classify => self.classify_next(it),
                Phase::FinalizerGet(f) => {
                    // removeFinalizer: GET by identity, no UID comparison [quirk].
                    let found = it.target.filter(|&t| self.state.exists(t));
                    match found {
                        Some(t) => {
                            self.mark_read(t, it.chain);
                            if self.state.has_finalizer(self.store(), t, f) {
                                it.phase = Phase::FinalizerPatch(f);
                            } else {
                                it.phase = Phase::Done;
                            }
                        }
                        None => it.phase = Phase::Done,
                    }
                }
                _ => {}
            }
        }
    }

    /// attemptToDeleteItem's GET of the item (rows 2–4), then what the object says (rows 5, 6).
    fn get_item(&mut self, it: &mut Item) {
        let gc = self.gc;
        let store = self.store();
        let found = self.lookup_identity(&it.identity);
        let target = match found {
            Lookup::Found(t) => t,
            Lookup::Absent => {
                // Rows 3/4: queue a virtual delete event.
                self.graph.chain = it.chain;
                self.graph.virtual_delete(gc, &self.state, it.identity);
                it.phase = Phase::Done;
                return;
            }
            Lookup::Stuck(why) => {
                if let Some(o) = store.by_uid(it.identity.uid) {
                    self.stuck.entry(o).or_insert(why);
                }
                it.phase = Phase::Done;
                return;
            }
        };
        self.mark_read(target, it.chain);
        it.target = Some(target);
        self.evaluated[target.index()] = true;
        if self.record_visits {
            self.visits.entry(target).or_insert(it.cause);
        }
        let node = self.graph.node(it.node);
        // Row 5: processDeletingDependentsItem (§3.5), from the graph.
        if node.deleting_dependents() && !it.virtual_item {
            let blocking = self.graph.blocking_dependents(gc, &self.state, it.node);
            if blocking.is_empty() {
                it.phase = Phase::FinalizerGet(self.state.foreground_sym());
            } else {
                let mut seen = HashSet::new();
                for d in blocking {
                    if !seen.insert(d) {
                        continue;
                    }
                    if let Some(dn) = self.graph.uid_to_node(store.object(d).uid)
                        && !self.graph.node(dn).deleting_dependents()
                    {
                        self.graph.queued.push(Enqueued {
                            queue: Queue::AttemptToDelete,
                            node: dn,
                            cause: VisitCause::BlockingDependent { owner: target },
                            chain: it.chain,
                        });
                    }
                }
                it.phase = Phase::Done;
            }
            return;
        }
        it.refs = self.state.owner_refs(store, target).to_vec();
        it.finalizers = self.state.finalizers(store, target).to_vec();
        // Row 6.
        if it.refs.is_empty() {
            it.phase = Phase::Done;
            return;
        }
        it.phase = Phase::Classify;
        it.next = 0;
        // References that need no request are classified at once (absent-cache hits,
        // mapping errors): the next GET, if any, is the next step's.
        self.classify_free(it);
    }

    /// Classifies the item's references that need no round trip, stopping at the first one
    /// that does (or at an error).
    fn classify_free(&mut self, it: &mut Item) {
        while it.next < it.refs.len() {
            let r = it.refs[it.next];
            let target = it.target.expect("classifying a found item");
            if !self.needs_request(target, &r) {
                let class = self.gc.classify_reference(&self.state, target, &r);
                if self.record_class(it, class) {
                    return;
                }
                continue;
            }
            return;
        }
        self.decide(it);
    }

    /// Whether `isDangling` sends a GET for this reference (not for absent-cache hits before
    /// v1.20, REST-mapping failures, or a cluster-scoped dependent of a namespaced kind).
    fn needs_request(&self, dependent: ObjId, r: &OwnerRef) -> bool {
        let gc = self.gc;
        if !gc.rules.version.has(Change::CoordinateAwareGraph)
            && self.state.absent_owner_cached(r.uid)
        {
            return false;
        }
        match gc.rest_mapper.map(gc.snap, r.api_version, r.kind) {
            Mapping::Unresolvable(_) | Mapping::Unknown(_) => false,
            Mapping::Resolved(gr) => {
                !(gc.rest_mapper.gr(gr).namespaced
                    && self.store().object(dependent).namespace.is_empty()
                    && gc.rules.version.has(Change::CoordinateAwareGraph))
            }
            Mapping::Unlisted { namespaced, .. } | Mapping::Phantom { namespaced } => {
                !(namespaced
                    && self.store().object(dependent).namespace.is_empty()
                    && gc.rules.version.has(Change::CoordinateAwareGraph))
            }
        }
    }

    /// Records one class; true when classification stopped (an error, or the item is done).
    fn record_class(&mut self, it: &mut Item, class: RefClass) -> bool {
        let r = it.refs[it.next];
        if matches!(class, RefClass::Dangling(_))
            && !self.gc.rules.version.has(Change::CoordinateAwareGraph)
        {
            self.state.add_absent_owner(r.uid);
        }
        if class.is_error() {
            let target = it.target.expect("found");
            let why = match &class {
                RefClass::InvalidScope => {
                    "cluster-scoped objects cannot refer to namespaced owners (dropped by the GC, never collected)".to_owned()
                }
                RefClass::Unresolvable { reason } => format!(
                    "unable to get REST mapping: {reason} (retried by the GC forever, never collected)"
                ),
                RefClass::Unrequestable { reason } => {
                    format!("{reason} (retried by the GC forever, never collected)")
                }
                _ => String::new(),
            };
            self.stuck.entry(target).or_insert(why);
            it.phase = Phase::Done;
            return true;
        }
        it.classes.push(class);
        it.next += 1;
        false
    }

    fn classify_next(&mut self, it: &mut Item) {
        let target = it.target.expect("found");
        let r = it.refs[it.next];
        // The GET of the owner this step.
        if let Some(owner) = self.owner_read(target, &r) {
            self.mark_read(owner, it.chain);
        }
        let class = self.gc.classify_reference(&self.state, target, &r);
        if self.record_class(it, class) {
            return;
        }
        self.classify_free(it);
    }

    /// The object the owner GET of `r` reads, for race detection.
    fn owner_read(&self, dependent: ObjId, r: &OwnerRef) -> Option<ObjId> {
        let _ = dependent;
        self.store().by_uid(r.uid)
    }

    /// Rows 8–10 from the references as classified (§3.2).
    fn decide(&mut self, it: &mut Item) {
        let gc = self.gc;
        let store = self.store();
        let target = it.target.expect("found");
        let (mut solid, mut dangling, mut waiting, mut unknown) =
            (0usize, Vec::new(), Vec::new(), None::<String>);
        for (r, c) in it.refs.iter().zip(&it.classes) {
            match c {
                RefClass::Solid { .. } => solid += 1,
                RefClass::Dangling(_) => dangling.push(r.uid),
                RefClass::Waiting { .. } => waiting.push(r.uid),
                RefClass::Unknown { reason } => {
                    unknown.get_or_insert_with(|| reason.clone());
                }
                _ => {}
            }
        }
        it.writes.clear();
        if solid > 0 {
            if dangling.is_empty() && waiting.is_empty() {
                it.phase = Phase::Done;
                return;
            }
            let mut uids = dangling;
            uids.extend(waiting);
            let detail = format!(
                "has a solid owner; removing dangling/waiting references {}",
                describe_refs(gc, &it.refs, &uids)
            );
            it.writes.push(Action {
                wave: 0,
                verb: Verb::RemoveOwnerReferences,
                target,
                policy: None,
                owner_refs: uids,
                finalizer: None,
                reason: Reason::StripDanglingAndWaiting,
                detail,
            });
            it.phase = Phase::Write;
            return;
        }
        if let Some(reason) = unknown {
            self.stuck
                .entry(target)
                .or_insert_with(|| format!("unknown: {reason}"));
            it.phase = Phase::Done;
            return;
        }
        let all: Vec<Sym> = it.refs.iter().map(|r| r.uid).collect();
        // Row 9: a waiting owner and dependents of its own: foreground, maybe unblocking first.
        if !waiting.is_empty() && self.graph.has_dependents(gc, &self.state, it.node) {
            let deps = self.graph.dependents(gc, &self.state, it.node);
            let cycle = deps.iter().any(|&d| {
                self.graph
                    .uid_to_node(store.object(d).uid)
                    .is_some_and(|n| self.graph.node(n).deleting_dependents())
            });
            let blocking: Vec<Sym> = it
                .refs
                .iter()
                .filter(|r| r.blocks())
                .map(|r| r.uid)
                .collect();
            if cycle && !blocking.is_empty() {
                it.writes.push(Action {
                    wave: 0,
                    verb: Verb::UnblockOwnerReferences,
                    target,
                    policy: None,
                    owner_refs: blocking,
                    finalizer: None,
                    reason: Reason::CycleGuard,
                    detail: "a dependent is itself deleting dependents (ownership cycle guard)"
                        .into(),
                });
            }
            it.writes.push(Action {
                wave: 0,
                verb: Verb::Delete,
                target,
                policy: Some(Policy::Foreground),
                owner_refs: vec![],
                finalizer: None,
                reason: Reason::ForegroundForWaitingOwner,
                detail: format!(
                    "no solid owner; owner in foreground deletion and it has dependents: {}",
                    describe_refs(gc, &it.refs, &all)
                ),
            });
            it.phase = Phase::Write;
            return;
        }
        // Row 10: the item's own finalizers choose the policy.
        let policy = if it.finalizers.contains(&self.state.orphan_sym()) {
            Policy::Orphan
        } else if it.finalizers.contains(&self.state.foreground_sym()) {
            Policy::Foreground
        } else {
            Policy::Background
        };
        it.writes.push(Action {
            wave: 0,
            verb: Verb::Delete,
            target,
            policy: Some(policy),
            owner_refs: vec![],
            finalizer: None,
            reason: Reason::NoSolidOwner,
            detail: format!("no solid owner left: {}", describe_refs(gc, &it.refs, &all)),
        });
        it.phase = Phase::Write;
    }

    /// attemptToOrphan's patches: one per dependent in the graph's set (§4).
    fn orphan_patches(&mut self, it: &mut Item) -> Vec<Action> {
        let gc = self.gc;
        let Some(owner) = self.graph.object(gc, it.node) else {
            it.phase = Phase::Done;
            return Vec::new();
        };
        it.target = Some(owner);
        if self.record_visits {
            self.visits.entry(owner).or_insert(it.cause);
        }
        let uid = self.store().object(owner).uid;
        self.graph
            .dependents(gc, &self.state, it.node)
            .into_iter()
            .map(|d| Action {
                wave: self.step,
                verb: Verb::RemoveOwnerReferences,
                target: d,
                policy: None,
                owner_refs: vec![uid],
                finalizer: None,
                reason: Reason::Orphan { owner },
                detail: format!(
                    "orphaning from {} (being deleted with propagationPolicy=Orphan)",
                    gc.snap.describe(owner)
                ),
            })
            .collect()
    }

    fn apply_writes(&mut self, items: &mut [Item], writes: Vec<(usize, Action)>) {
        for (i, mut a) in writes {
            a.wave = self.step;
            self.chain = items[i].chain;
            if self.apply(a) {
                items[i].wrote = true;
            }
        }
    }

    /// The API server's side of one request (Appendix B); events for the graph builder.
    /// Returns whether it changed anything.
    fn apply(&mut self, act: Action) -> bool {
        let store = self.store();
        let id = act.target;
        if !self.state.exists(id) {
            return false; // 404
        }
        let old = OldMeta {
            refs: self.state.owner_refs(store, id).to_vec(),
            being_deleted: self.state.being_deleted(id),
            finalizers: self.state.finalizers(store, id).to_vec(),
        };
        let changed = match act.verb {
            Verb::Delete => self.api_delete(id, act.policy),
            Verb::RemoveOwnerReferences | Verb::UnblockOwnerReferences => {
                let mut new_refs = Vec::with_capacity(old.refs.len());
                let mut changed = false;
                for r in &old.refs {
                    if act.owner_refs.contains(&r.uid) {
                        if act.verb == Verb::UnblockOwnerReferences {
                            let mut r = *r;
                            changed |= r.block_owner_deletion != Some(false);
                            r.block_owner_deletion = Some(false);
                            new_refs.push(r);
                        } else {
                            changed = true;
                        }
                    } else {
                        new_refs.push(*r);
                    }
                }
                if changed {
                    self.state.set_owner_refs(id, new_refs);
                }
                changed
            }
            Verb::RemoveFinalizer => {
                let f = act.finalizer.expect("finalizer action names its finalizer");
                let fins: Vec<Sym> = old.finalizers.iter().copied().filter(|x| *x != f).collect();
                let changed = fins.len() != old.finalizers.len();
                if changed {
                    if fins.is_empty() && self.state.being_deleted(id) {
                        self.state.set_finalizers(id, fins);
                        self.state.remove(id);
                    } else {
                        self.state.set_finalizers(id, fins);
                    }
                }
                changed
            }
        };
        if !changed {
            return false;
        }
        self.writes_total += 1;
        self.touched[id.index()] = true;
        self.write_log.push((id, self.chain, self.step));
        if self.trace {
            eprintln!(
                "step {} applied {:?} on {}",
                self.step,
                act.verb,
                store.str(store.object(id).name)
            );
        }
        self.actions.push(act);
        self.event(id, &old);
        true
    }

    /// The informer event a change causes (monitored objects only).
    fn event(&mut self, id: ObjId, old: &OldMeta) {
        let gc = self.gc;
        if self.is_namespace(id)
            && self.state.exists(id)
            && self.state.being_deleted(id)
            && !self.terminating_namespaces.contains(&id)
        {
            self.terminating_namespaces.push(id);
        }
        if !gc.graph.monitors(id) || !self.in_scope(id) {
            return;
        }
        self.graph.chain = self.chain;
        if self.state.exists(id) {
            self.graph.update(gc, &self.state, id, old);
        } else {
            self.graph.delete(gc, &self.state, id);
        }
    }

    /// DELETE with a propagation policy: which finalizers the object ends with (Appendix B).
    fn api_delete(&mut self, id: ObjId, policy: Option<Policy>) -> bool {
        let store = self.store();
        let (fg, orphan) = (self.state.foreground_sym(), self.state.orphan_sym());
        let current = self.state.finalizers(store, id).to_vec();
        let mut fins: Vec<Sym> = current
            .iter()
            .copied()
            .filter(|f| *f != fg && *f != orphan)
            .collect();
        let r = self.gc.snap.resource_of(store.object(id));
        let is_event = r.plural == "events" && (r.group.is_empty() || r.group == "events.k8s.io");
        if self.is_namespace(id) {
            // The namespace registry's `Delete` (pkg/registry/core/namespace/storage): never
            // removed at once while `spec.finalizers` holds `kubernetes`; the namespace
            // controller (`namespacedResourcesDeleter`) empties it first (issue 14 case 7).
            match policy {
                Some(Policy::Orphan) => fins.push(orphan),
                Some(Policy::Foreground) => fins.push(fg),
                Some(Policy::Background) => {}
                None => fins = current.clone(),
            }
            let was = self.state.being_deleted(id);
            if was && fins == current {
                return false;
            }
            self.state.start_deletion(id, fins);
            return true;
        }
        if !is_event {
            // Events' delete strategy is `rest.Unsupported` (`BeforeDelete` in the generic
            // registry then adds no GC finalizer whatever the policy, issue 14 case 6).
            match policy {
                Some(Policy::Orphan) => fins.push(orphan),
                Some(Policy::Foreground) => fins.push(fg),
                _ => {}
            }
        }
        if fins.is_empty() {
            self.state.set_finalizers(id, fins);
            self.state.remove(id);
            return true;
        }
        if self.state.being_deleted(id) && fins == current {
            return false;
        }
        self.state.start_deletion(id, fins);
        true
    }

    fn is_namespace(&self, id: ObjId) -> bool {
        let r = self.gc.snap.resource_of(self.store().object(id));
        r.group.is_empty() && r.plural == "namespaces"
    }

    /// The namespace controller (Appendix B): deletes everything in a terminating namespace,
    /// then lets the namespace go. Returns whether it changed anything.
    fn namespace_controller(&mut self) -> bool {
        if self.terminating_namespaces.is_empty() {
            return false;
        }
        let store = self.store();
        if self.ns_index.is_none() {
            let mut idx: HashMap<Sym, Vec<ObjId>> = HashMap::new();
            for id in store.ids() {
                let ns = store.object(id).namespace;
                if !ns.is_empty() {
                    idx.entry(ns).or_default().push(id);
                }
            }
            self.ns_index = Some(idx);
        }
        let mut changed = false;
        let namespaces = self.terminating_namespaces.clone();
        for ns_obj in namespaces {
            if !self.state.exists(ns_obj) {
                self.terminating_namespaces.retain(|&n| n != ns_obj);
                continue;
            }
            let name = store.object(ns_obj).name;
            let content: Vec<ObjId> = self
                .ns_index
                .as_ref()
                .and_then(|i| i.get(&name))
                .map(|v| {
                    v.iter()
                        .copied()
                        .filter(|&o| self.state.exists(o))
                        .collect()
                })
                .unwrap_or_default();
            for o in &content {
                let old = OldMeta {
                    refs: self.state.owner_refs(store, *o).to_vec(),
                    being_deleted: self.state.being_deleted(*o),
                    finalizers: self.state.finalizers(store, *o).to_vec(),
                };
                if self.state.being_deleted(*o) {
                    continue;
                }
                if self.api_delete(*o, Some(Policy::Background)) {
                    changed = true;
                    self.writes_total += 1;
                    self.touched[o.index()] = true;
                    self.by_namespace_controller.insert(*o);
                    self.event(*o, &old);
                }
            }
            if content.is_empty() {
                // Emptied: the `kubernetes` finalizer goes; the GC's finalizers may remain.
                let old = OldMeta {
                    refs: self.state.owner_refs(store, ns_obj).to_vec(),
                    being_deleted: true,
                    finalizers: self.state.finalizers(store, ns_obj).to_vec(),
                };
                if self.state.finalizers(store, ns_obj).is_empty() {
                    self.state.remove(ns_obj);
                    self.writes_total += 1;
                    self.touched[ns_obj.index()] = true;
                    self.event(ns_obj, &old);
                    changed = true;
                }
                self.terminating_namespaces.retain(|&n| n != ns_obj);
            }
        }
        changed
    }

    /// Looks an identity up the way the item's GET does.
    fn lookup_identity(&self, id: &Identity) -> Lookup {
        let gc = self.gc;
        let store = self.store();
        // An observed node: its object.
        if let Some(o) = store.by_uid(id.uid)
            && gc.graph.monitors(o)
            && gc.graph.node(gc.graph.node_of_object(o)).id == *id
        {
            return if self.state.exists(o) {
                Lookup::Found(o)
            } else {
                Lookup::Absent
            };
        }
        match gc.get_by_identity(&self.state, id) {
            super::classify::GetResult::Found(o) => Lookup::Found(o),
            super::classify::GetResult::NotFound(_) => Lookup::Absent,
            super::classify::GetResult::Error(why) => {
                Lookup::Stuck(format!("{why} (retried by the GC forever)"))
            }
            super::classify::GetResult::Unknown(why) => Lookup::Stuck(format!("unknown: {why}")),
        }
    }

    fn user_policy(&self, u: UserDelete) -> (Policy, String) {
        match u.policy {
            Some(p) => (
                p,
                format!("requested: delete with propagationPolicy={}", p.as_str()),
            ),
            None => {
                let (p, source) = self.implicit_policy(u.target);
                (
                    p,
                    format!(
                        "requested: delete without a propagation policy ({source}: {})",
                        p.as_str()
                    ),
                )
            }
        }
    }

    /// The policy the API server applies to a delete without options (Appendix B,
    /// `shouldOrphanDependents`/`shouldDeleteDependents`): an `orphan` or `foregroundDeletion`
    /// finalizer already on the object decides (the first of the two in list order); else the
    /// type default — RC, Job, CronJob (and old workload versions) orphan, the rest background.
    fn implicit_policy(&self, id: ObjId) -> (Policy, &'static str) {
        let (fg, orphan) = (self.state.foreground_sym(), self.state.orphan_sym());
        let store = self.store();
        for &f in self.state.finalizers(store, id) {
            if f == orphan {
                return (Policy::Orphan, "the object's orphan finalizer");
            }
            if f == fg {
                return (
                    Policy::Foreground,
                    "the object's foregroundDeletion finalizer",
                );
            }
        }
        let r = self.gc.snap.resource_of(store.object(id));
        if crate::catalog::builtin::default_orphans(&r.group, &r.version, &r.kind) {
            (Policy::Orphan, "type default")
        } else {
            (Policy::Background, "type default")
        }
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

enum Lookup {
    Found(ObjId),
    Absent,
    Stuck(String),
}

fn describe_refs(gc: &GarbageCollector<'_>, refs: &[OwnerRef], uids: &[Sym]) -> String {
    let store = &gc.snap.store;
    uids.iter()
        .filter_map(|u| refs.iter().find(|r| r.uid == *u))
        .map(|r| {
            format!(
                "{}/{} ({})",
                store.str(r.kind),
                store.str(r.name),
                store.str(r.uid)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}
