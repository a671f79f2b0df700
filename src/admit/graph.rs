//! The graph the webhook's checks read: the world `kubectl gc watch` keeps
//! ([`crate::watch::world::World`]), written by the watch loop through [`Writer`] (a
//! [`Model`] that evaluates nothing) and read by any number of checks at once, each under a
//! read lock held only while it copies out what an owner lookup can reach
//! ([`super::decide::gather`]). No check waits for the loop to be between two batches of
//! events, and no check waits for another.
//!
//! Beside the world it keeps which resources' watches are lost ([`StreamHealth`]): until
//! such a watch resumes or its resource is listed again, what the world holds of that
//! resource may be stale, so references into it are judged unknown (and the write admitted),
//! never absent.

use crate::catalog::KubeVersion;
use crate::gc::GarbageCollector;
use crate::model::{MetaIn, ResourceId};
use crate::snapshot::{ListOutcome, Resource, Snapshot, SnapshotBuilder};
use crate::watch::run::{Model, StreamHealth};
use crate::watch::world::World;
use crate::watch::{Cause, Transition};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

/// A resource whose watch is lost.
#[derive(Clone, Debug)]
pub struct Lost {
    /// Since when.
    pub since: Instant,
    /// What the transport or the server said.
    pub message: String,
}

/// The world and the resources whose watch is lost, read and written together.
#[derive(Debug)]
pub struct State {
    /// The cluster as the watch holds it.
    pub world: World,
    /// Resource-table rows whose watch is lost.
    pub lost: HashMap<ResourceId, Lost>,
}

/// The graph the checks share.
#[derive(Debug)]
pub struct Graph {
    state: RwLock<State>,
    gc_version: OnceLock<KubeVersion>,
    synced: AtomicBool,
}

impl Default for Graph {
    fn default() -> Self {
        Graph {
            state: RwLock::new(State {
                world: World::new(SnapshotBuilder::new(Default::default()).finish()),
                lost: HashMap::new(),
            }),
            gc_version: OnceLock::new(),
            synced: AtomicBool::new(false),
        }
    }
}

/// How the graph stands, for `/healthz` and `/metrics`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Health {
    /// The initial lists are in.
    pub synced: bool,
    /// Each resource whose watch is lost (`plural.group`), and for how long.
    pub lost: Vec<(String, Duration)>,
}

impl Health {
    /// Ready to judge: synced, and no watch lost for longer than `grace` (a watch reopens
    /// within a second or two after a blip; longer is an outage).
    pub fn ready(&self, grace: Duration) -> bool {
        self.synced && self.lost.iter().all(|(_, d)| *d <= grace)
    }
}

impl Graph {
    /// A graph already synced on `snap` (tests and benchmarks; the command's graph is built by
    /// the watch loop through [`Writer`]).
    pub fn from_snapshot(snap: Snapshot, gc_version: Option<KubeVersion>) -> Graph {
        let g = Graph::default();
        let version = gc_version.unwrap_or_else(|| GarbageCollector::default_gc_version(&snap));
        g.write().world = World::new(snap);
        let _ = g.gc_version.set(version);
        g.synced.store(true, Ordering::Release);
        g
    }

    /// The GC release emulated (the newest until the graph has synced).
    pub fn gc_version(&self) -> KubeVersion {
        self.gc_version
            .get()
            .copied()
            .unwrap_or(KubeVersion::NEWEST)
    }

    /// True once the initial lists are in.
    pub fn is_synced(&self) -> bool {
        self.synced.load(Ordering::Acquire)
    }

    /// A read of the world, `None` until it has synced. Hold it only while copying out.
    pub fn read(&self) -> Option<RwLockReadGuard<'_, State>> {
        if !self.is_synced() {
            return None;
        }
        Some(self.state.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Holds the write lock until the guard is dropped: no check can read the graph meanwhile
    /// (tests of a graph that does not answer in time).
    #[cfg(test)]
    pub fn lock_out(&self) -> RwLockWriteGuard<'_, State> {
        self.write()
    }

    /// How the graph stands now.
    pub fn health(&self) -> Health {
        let synced = self.is_synced();
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        let rows = state.world.resources();
        let mut lost: Vec<(String, Duration)> = state
            .lost
            .iter()
            .map(|(r, l)| {
                let name = rows
                    .get(r.index())
                    .map_or_else(|| format!("row {}", r.index()), Resource::plural_group);
                (name, l.since.elapsed())
            })
            .collect();
        lost.sort_by(|a, b| a.0.cmp(&b.0));
        Health { synced, lost }
    }

    /// Marks a resource's watch lost (`Some`) or current again (`None`); tests stand in for
    /// the watch loop with it.
    pub fn set_lost(&self, resource: ResourceId, lost: Option<Lost>) {
        let mut state = self.write();
        match lost {
            Some(l) => {
                // The first loss counts: a watch that keeps failing is lost since then.
                state.lost.entry(resource).or_insert(l);
            }
            None => {
                state.lost.remove(&resource);
            }
        }
    }
}

/// The watch loop's side of a [`Graph`].
#[derive(Debug)]
pub struct Writer(pub Arc<Graph>);

impl Writer {
    /// The writer of `graph`, filled with the initial lists `snap` (the loop's `make`).
    pub fn new(graph: Arc<Graph>, snap: Snapshot, gc_version: Option<KubeVersion>) -> Writer {
        let version = gc_version.unwrap_or_else(|| GarbageCollector::default_gc_version(&snap));
        let _ = graph.gc_version.set(version);
        graph.write().world = World::new(snap);
        Writer(graph)
    }

    /// Folds the world's overlay into a fresh base when it has grown: built under a read lock
    /// (checks go on meanwhile; nothing else writes, the loop is here), swapped in under the
    /// write lock.
    fn compact(&self, retable: Option<(Vec<Resource>, Vec<Option<ResourceId>>)>) {
        let fresh = {
            let state = self.0.state.read().unwrap_or_else(PoisonError::into_inner);
            if retable.is_none() && !state.world.wants_compaction() {
                return;
            }
            state.world.compacted(retable.clone())
        };
        let mut state = self.0.write();
        state.world = fresh;
        if let Some((_, remap)) = retable {
            let lost = std::mem::take(&mut state.lost);
            state.lost = lost
                .into_iter()
                .filter_map(|(r, l)| Some((remap.get(r.index()).copied().flatten()?, l)))
                .collect();
        }
    }
}

/// The world as [`Model::world`] reads it.
pub struct WorldRead<'a>(RwLockReadGuard<'a, State>);

impl std::ops::Deref for WorldRead<'_> {
    type Target = World;
    fn deref(&self) -> &World {
        &self.0.world
    }
}

impl Model for Writer {
    type World<'a> = WorldRead<'a>;

    fn world(&self) -> WorldRead<'_> {
        WorldRead(self.0.state.read().unwrap_or_else(PoisonError::into_inner))
    }
    fn apply(&mut self, resource: ResourceId, meta: &MetaIn<'_>, _: Option<Instant>) {
        self.0.write().world.apply(resource, meta);
    }
    fn delete(&mut self, uid: &str, _: Option<Instant>) {
        self.0.write().world.delete(uid);
    }
    fn reconcile(&mut self, resource: ResourceId, listed: &[MetaIn<'_>]) {
        self.0.write().world.reconcile(resource, listed);
    }
    fn set_outcome(&mut self, resource: ResourceId, outcome: ListOutcome) {
        self.0.write().world.set_outcome(resource, outcome);
    }
    fn retable(
        &mut self,
        resources: Vec<Resource>,
        remap: Vec<Option<ResourceId>>,
        failures: &[(String, String)],
    ) {
        self.0.write().world.set_discovery_failures(failures);
        self.compact(Some((resources, remap)));
    }
    fn pending(&self) -> bool {
        false
    }
    fn must_flush_before(&self, _: &str) -> bool {
        false
    }
    fn flush(&mut self, _: Cause) -> Vec<Transition> {
        self.compact(None);
        Vec::new()
    }
    fn tick(&mut self) -> Vec<Transition> {
        Vec::new()
    }
    fn evaluate_all(&mut self, _: Cause) -> Vec<Transition> {
        self.compact(None);
        Vec::new()
    }
    fn stream_health(&mut self, resource: ResourceId, health: StreamHealth) {
        let lost = match health {
            StreamHealth::Current => None,
            StreamHealth::Interrupted { since, message } => Some(Lost { since, message }),
        };
        self.0.set_lost(resource, lost);
    }
    fn synced(&mut self) {
        self.0.synced.store(true, Ordering::Release);
    }
}
