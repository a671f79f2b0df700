//! `kubectl gc watch`: a shadow garbage collector. It lists, then watches, every resource the
//! GC monitors (metadata only, the GC's own discovery rules), keeps the cluster as the GC's
//! informers would ([`world`]), and after every change re-evaluates only what the change can
//! affect ([`engine`]): the findings of `kubectl gc audit` for the objects of the changed
//! object's part of the GC's graph, each with what the GC will do about it and *when*:
//!
//! * **now** — the running GC has it on a work queue (the change enqueued it, [`queue`]) and
//!   its decision table acts;
//! * **restart** — the running GC will not look at it, but a freshly started one does (the
//!   redis-operator incident: a reference only a restart re-checks);
//! * **now-or-restart** — present from before the watch started (or since an evaluation that
//!   saw no event for it), with an owner that is gone: the running GC works through it now if
//!   it saw the owner go, else a restart does;
//! * **never** — the GC is stuck on it (unresolvable owner kind, a blocked foreground
//!   deletion, a finalizer nobody removes);
//! * **unknown** — what decides it could not be read (forbidden or failed resources).
//!
//! Findings are compared with what was held before; what appears, changes severity or *when*,
//! or resolves becomes a [`Transition`], keyed by a stable identity (code, object UID, owner
//! UID: the baseline's key), so relists and reconnects neither repeat nor lose one.
//!
//! [`run`] drives it against a live cluster (and serves [`metrics`]); the renderers are in
//! `render::watch`. This module comes after `diagnose` in the pipeline: it imports `gc`,
//! `diagnose` and `source`, and nothing that renders.

pub mod engine;
pub mod metrics;
pub mod queue;
pub mod run;
pub mod state;
pub mod world;

#[cfg(test)]
mod tests;

pub use engine::Engine;

use crate::diagnose::{Code, Severity};
use crate::gc::ObjectRef;
use crate::gc::Policy;
use serde::Serialize;

/// When the GC acts on a finding: the one timeline of [`crate::diagnose::timeline`], told
/// by the running GC's queues where the watch saw what it enqueued.
pub use crate::diagnose::timeline::{Reason, When};

/// What the GC does about a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case", tag = "verb")]
pub enum GcAction {
    /// DELETE the object.
    Delete {
        /// The propagation policy the GC sends.
        #[serde(rename = "propagationPolicy")]
        policy: Policy,
    },
    /// Strip dangling and waiting ownerReferences.
    RemoveOwnerReferences,
    /// Strip the object's UID from its dependents and remove the `orphan` finalizer.
    Orphan,
}

impl GcAction {
    /// A few words for people.
    pub fn describe(&self) -> String {
        match self {
            GcAction::Delete { policy } => format!("delete ({})", policy.as_str()),
            GcAction::RemoveOwnerReferences => "strip ownerReferences".into(),
            GcAction::Orphan => "orphan its dependents".into(),
        }
    }
}

/// A finding, owned (it outlives the snapshot it was computed on): `kubectl gc audit`'s
/// finding with its objects resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchFinding {
    /// Code.
    pub code: Code,
    /// Severity.
    pub severity: Severity,
    /// The object (absent for resource-level findings).
    pub object: Option<ObjectRef>,
    /// The resource of resource-level findings.
    pub resource: Option<String>,
    /// The ownerReference involved.
    pub owner_reference: Option<serde_json::Value>,
    /// Its classification.
    pub classification: Option<&'static str>,
    /// What the GC does about it.
    pub consequence: String,
    /// What is wrong.
    pub message: String,
    /// Other objects involved.
    pub related: Vec<ObjectRef>,
    /// Commands that fix or unblock it.
    pub remedies: Vec<String>,
}

/// What happened to a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TransitionKind {
    /// It was not there before.
    Appeared,
    /// Its severity or when the GC acts changed.
    Changed,
    /// It is gone.
    Resolved,
}

/// Why the evaluation ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cause {
    /// The initial lists (the running GC's history is not known: nothing counts as queued).
    Initial,
    /// Watch events.
    Event,
    /// A relist after `410 Gone`, or a resource whose list became readable.
    Relist,
    /// The periodic re-evaluation (ages, discovery changes).
    Resync,
}

/// One transition.
#[derive(Clone, Debug)]
pub struct Transition {
    /// What happened.
    pub kind: TransitionKind,
    /// The finding's stable identity.
    pub id: String,
    /// The finding (for `Resolved`: as it last was).
    pub finding: WatchFinding,
    /// When the GC acts (for `Resolved`: `None`).
    pub when: Option<When>,
    /// Why then.
    pub reason: Option<Reason>,
    /// What it does (`None`: nothing).
    pub action: Option<GcAction>,
    /// The object changed while it waited on the running GC's queue for a worker that was
    /// predicted to do this: if the worker read the object before the change, it does this
    /// instead, and `action` waits for whatever next puts the object on a queue (a restart,
    /// typically). `None`: no such change.
    pub if_read_before: Option<GcAction>,
    /// For `Changed` and `Resolved`: the severity and when before.
    pub previous: Option<(Severity, Option<When>)>,
    /// For `Changed` and `Resolved`: what the GC was to do before (`None`: nothing).
    pub previous_action: Option<GcAction>,
    /// For `Resolved`: `true` when the object itself is gone.
    pub object_gone: bool,
    /// Why the evaluation ran.
    pub cause: Cause,
    /// When the transition was found.
    pub time: std::time::SystemTime,
    /// When the oldest event behind it arrived (for the alert-latency metric).
    pub received: Option<std::time::Instant>,
}
