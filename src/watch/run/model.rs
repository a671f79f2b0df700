//! What the watch loop keeps up to date from its streams ([`Model`]): the [`Engine`] of
//! `kubectl gc watch` (the world, its findings and their transitions), or a world alone that
//! other tasks read while the loop writes it (`kubectl gc admit`'s graph, which evaluates
//! nothing: its checks judge one write at a time).

use super::super::engine::{Engine, Held};
use super::super::state::Entry;
use super::super::world::World;
use super::super::{Cause, Transition};
use crate::model::{MetaIn, ResourceId};
use crate::snapshot::{ListOutcome, Resource};
use std::time::Instant;

/// How a resource's stream stands, beyond what its list outcome says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamHealth {
    /// Its events arrive: the watch is open (or reopened from the last resourceVersion, so
    /// nothing was missed), or a list has just replaced what was held.
    Current,
    /// Its watch was lost (the connection failed, the stream went silent, or the
    /// resourceVersion is too old): events may be missing until it resumes or is listed again.
    Interrupted {
        /// Since when.
        since: Instant,
        /// What the transport or the server said.
        message: String,
    },
}

/// The world the watch loop keeps, and what it evaluates on it.
pub trait Model {
    /// A read of the world (a plain borrow, or a lock's read guard).
    type World<'a>: std::ops::Deref<Target = World>
    where
        Self: 'a;

    /// The world now.
    fn world(&self) -> Self::World<'_>;
    /// An add or update event of an object listed under `resource`.
    fn apply(&mut self, resource: ResourceId, meta: &MetaIn<'_>, received: Option<Instant>);
    /// A delete event.
    fn delete(&mut self, uid: &str, received: Option<Instant>);
    /// A complete list of `resource`: what it changes, as events.
    fn reconcile(&mut self, resource: ResourceId, listed: &[MetaIn<'_>]);
    /// A resource's list outcome (403, failure, complete again).
    fn set_outcome(&mut self, resource: ResourceId, outcome: ListOutcome);
    /// A new resource table (discovery changed): `remap` gives each old row's new row.
    fn retable(
        &mut self,
        resources: Vec<Resource>,
        remap: Vec<Option<ResourceId>>,
        failures: &[(String, String)],
    );
    /// True when changes wait for [`Model::flush`].
    fn pending(&self) -> bool;
    /// True when what is pending must be evaluated before `uid`'s next event is applied.
    fn must_flush_before(&self, uid: &str) -> bool;
    /// Evaluates what changed since the last flush.
    fn flush(&mut self, cause: Cause) -> Vec<Transition>;
    /// Re-evaluates what can change with time alone.
    fn tick(&mut self) -> Vec<Transition>;
    /// Evaluates everything.
    fn evaluate_all(&mut self, cause: Cause) -> Vec<Transition>;
    /// How many findings are held.
    fn held_count(&self) -> usize {
        0
    }
    /// The findings held, as `--state-file` keeps them.
    fn state_entries(&self) -> Vec<Entry> {
        Vec::new()
    }
    /// Findings held by an earlier run (`--state-file`).
    fn preload(&mut self, held: Vec<(String, Held)>) {
        let _ = held;
    }
    /// A resource's stream changed health.
    fn stream_health(&mut self, resource: ResourceId, health: StreamHealth) {
        let _ = (resource, health);
    }
    /// The initial lists are in and evaluated: the world can be read as the cluster's.
    fn synced(&mut self) {}
}

impl Model for Engine {
    type World<'a> = &'a World;

    fn world(&self) -> &World {
        Engine::world(self)
    }
    fn apply(&mut self, resource: ResourceId, meta: &MetaIn<'_>, received: Option<Instant>) {
        Engine::apply(self, resource, meta, received);
    }
    fn delete(&mut self, uid: &str, received: Option<Instant>) {
        Engine::delete(self, uid, received);
    }
    fn reconcile(&mut self, resource: ResourceId, listed: &[MetaIn<'_>]) {
        Engine::reconcile(self, resource, listed);
    }
    fn set_outcome(&mut self, resource: ResourceId, outcome: ListOutcome) {
        Engine::set_outcome(self, resource, outcome);
    }
    fn retable(
        &mut self,
        resources: Vec<Resource>,
        remap: Vec<Option<ResourceId>>,
        failures: &[(String, String)],
    ) {
        Engine::retable(self, resources, remap, failures);
    }
    fn pending(&self) -> bool {
        Engine::pending(self)
    }
    fn must_flush_before(&self, uid: &str) -> bool {
        Engine::must_flush_before(self, uid)
    }
    fn flush(&mut self, cause: Cause) -> Vec<Transition> {
        Engine::flush(self, cause)
    }
    fn tick(&mut self) -> Vec<Transition> {
        Engine::tick(self)
    }
    fn evaluate_all(&mut self, cause: Cause) -> Vec<Transition> {
        Engine::evaluate_all(self, cause)
    }
    fn held_count(&self) -> usize {
        self.held().count()
    }
    fn state_entries(&self) -> Vec<Entry> {
        self.held().map(|(id, h)| Entry::of(id, h)).collect()
    }
    fn preload(&mut self, held: Vec<(String, Held)>) {
        Engine::preload(self, held);
    }
}
