//! The GC's reasoning over a snapshot: reference classification, per-object decisions and the
//! findings built on them.

pub mod attempt_to_delete;
pub mod classify;
pub mod graph;
pub mod plan;
pub mod rest_mapper;
pub mod rules;
pub mod state;

pub use attempt_to_delete::{Policy, Verdict};
pub use classify::{Dangling, RefClass};
pub use rules::Rules;
pub use state::State;

use crate::catalog::KubeVersion;
use crate::snapshot::Snapshot;
use graph::Graph;
use rest_mapper::Mapper;

/// Everything the decisions read that does not change during a simulation.
#[derive(Debug)]
pub struct Analysis<'a> {
    /// The snapshot.
    pub snap: &'a Snapshot,
    /// Its GC graph.
    pub graph: Graph,
    /// Its REST mapper and owner index.
    pub mapper: Mapper,
    /// The emulated GC release.
    pub rules: Rules,
}

impl<'a> Analysis<'a> {
    /// Prepares the analysis of `snap` as GC release `gc_version` would see it. Served API
    /// versions are judged against the snapshot's server version when known, else against
    /// `gc_version` for live snapshots (files: unknown).
    pub fn new(snap: &'a Snapshot, gc_version: KubeVersion) -> Self {
        let server = snap
            .provenance
            .server_version
            .as_deref()
            .and_then(KubeVersion::parse);
        let graph = Graph::build_for(snap, gc_version);
        let mapper = Mapper::new(snap, server);
        Analysis {
            snap,
            graph,
            mapper,
            rules: Rules::new(gc_version),
        }
    }

    /// The GC release to emulate by default: the snapshot's server version, else the newest.
    pub fn default_gc_version(snap: &Snapshot) -> KubeVersion {
        snap.provenance
            .server_version
            .as_deref()
            .and_then(KubeVersion::parse)
            .unwrap_or(KubeVersion::NEWEST)
    }

    /// The state as captured.
    pub fn initial_state(&self) -> State {
        State::new(&self.snap.store)
    }
}

#[cfg(test)]
mod tests;
