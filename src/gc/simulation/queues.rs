//! The work queues: what the graph builder queued becomes running items (a queue holds an
//! item once; one being processed is processed again afterwards), each step's requests are
//! collected and sent, and finished items leave or, for virtual nodes, are polled again
//! (upstream's `attemptToDeleteWorker` and `attemptToOrphanWorker` loops around the items).
//! Split from the simulation's driver ([`super`]) so the scheduling reads on its own.

use super::{Item, Kind, Phase, Sim};
use crate::catalog::version::Change;
use crate::gc::graph::Identity;
use crate::gc::graph_builder::{Enqueued, NEW_CHAIN, Queue, VisitCause};
use crate::gc::plan::{Action, Reason, Verb};
use crate::model::ObjId;
use hashbrown::HashSet;

impl Sim<'_, '_> {
    /// Turns what was queued by the end of the previous step into running items (a queue
    /// holds each item once; one being processed is processed again afterwards).
    pub(super) fn start_queued(&mut self) {
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
                && let Some(d) = self.delays.chains.remove(&root_key)
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
                stall: 0,
                id: {
                    self.next_item += 1;
                    self.next_item
                },
                started: now,
            });
        }
    }

    pub(super) fn run_step(&mut self) {
        let mut items = std::mem::take(&mut self.running);
        if self.trace {
            let store = self.store();
            for it in &items {
                tracing::trace!(
                    "step {} {:?} {:?} {:?} ({:?})",
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
            if matches!(it.phase, Phase::Write | Phase::FinalizerPatch(_)) && self.write_stalls(it)
            {
                continue;
            }
            match it.phase {
                Phase::Write if self.delete_conflicts(it) => {
                    // 409: nothing written; the item is retried after a back-off, and the retry
                    // reads the object again.
                    it.writes.clear();
                    it.phase = Phase::Done;
                    self.delayed.push((
                        self.step + 1,
                        Enqueued {
                            queue: Queue::AttemptToDeleteRateLimited,
                            node: it.node,
                            cause: it.cause,
                            chain: it.chain,
                        },
                    ));
                }
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

    /// Whether the item's next write is a DELETE that the API server refuses with 409 Conflict
    /// (v1.34+, row A14): `deleteObject` sends the resourceVersion of the object as the item's
    /// GET read it, and on a conflict reads the object again and sends the DELETE once more
    /// (UID precondition only) only if its ownerReferences are still those classified. So the
    /// DELETE goes through exactly when the live ownerReferences equal the ones read; otherwise
    /// the error requeues the item, whose next attempt classifies the object as it is then
    /// (an orphan PATCH that removed a reference after the GET, say, keeps it).
    fn delete_conflicts(&mut self, it: &Item) -> bool {
        let Some(a) = it.writes.first() else {
            return false;
        };
        if a.verb != Verb::Delete
            || a.reason == Reason::UserDelete
            || !self.gc.rules.delete_with_resource_version()
            || !self.state.exists(a.target)
        {
            return false;
        }
        let conflict = self.state.owner_refs(self.store(), a.target) != it.refs.as_slice();
        if conflict {
            // The re-read after the 409.
            self.mark_read(a.target, it);
        }
        conflict
    }

    /// Whether the item's write waits this step ([`super::Delays::writes`]).
    fn write_stalls(&mut self, it: &mut Item) -> bool {
        let target = match it.phase {
            Phase::Write => it.writes.first().map(|a| a.target),
            _ => it.target,
        };
        self.stalls(it, target, true)
    }

    /// Whether the item's next request on `object`, a write or an owner GET, waits this step:
    /// a hold for the item's chain and `object` ([`super::Delays::writes`],
    /// [`super::Delays::reads`]) starts the wait.
    pub(super) fn stalls(&mut self, it: &mut Item, object: Option<ObjId>, write: bool) -> bool {
        if let Some(o) = object
            && let Some(&root) = self.roots.get(&it.chain)
        {
            let held = if write {
                &mut self.delays.writes
            } else {
                &mut self.delays.reads
            };
            if let Some(d) = held.remove(&(root, o)) {
                it.stall = d;
            }
        }
        if it.stall > 0 {
            it.stall -= 1;
            return true;
        }
        false
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
        // Row 1: terminating and not in foreground deletion: wait for the delete event. Unless
        // this run has the graph lag behind a DELETE of the run (see `Delays::stale`).
        if node.being_deleted() && !node.deleting_dependents() {
            let obj = self.store().by_uid(node.id.uid);
            let root = self.roots.get(&it.chain).copied();
            let lagging = match (root, obj) {
                (Some(root), Some(o)) => self.delays.stale.remove(&(root, o)),
                _ => false,
            };
            if !lagging {
                if let Some(o) = obj {
                    self.row1_log.push((o, it.chain, self.step));
                }
                it.phase = Phase::Done;
                return;
            }
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
        crate::gc::graph_builder::kind_is_namespaced(self.gc, id.api_version, id.kind)
    }
}
