//! `kubectl gc collect --apply`: perform a [`crate::gc::Plan`]'s actions against a live cluster with exactly
//! the GC's requests (§3.7–3.9), re-checking every verdict against the cluster first.
//!
//! ## Safety model
//!
//! - **Re-verification.** Before each action the target is re-read, and for deletes and
//!   owner-reference patches its owners are re-read too (by each reference's apiVersion/kind/name,
//!   in the dependent's namespace for namespaced kinds — the GC's `isDangling`, §3.3). The
//!   action is skipped, with the reason recorded, when the verdict no longer holds: the object
//!   is gone or was recreated (another UID), an owner exists again, the reference or finalizer
//!   is already gone, the object is now terminating, a dependent still blocks a foreground
//!   deletion, a dependent of an orphaning owner was not orphaned.
//! - **Preconditions.** Every write carries the GC's own guard: DELETE `preconditions.uid`
//!   (+ `resourceVersion` when emulating GC ≥ 1.34), the strategic merge patch's `metadata.uid`,
//!   the merge patches' `metadata.resourceVersion`. A 409 re-runs the action from the re-read
//!   (at most [`MAX_ATTEMPTS`] times), so a recreated object is skipped, never deleted.
//! - **Finalizer removal checks the UID** (deliberate deviation: the GC's `removeFinalizer`
//!   does not, §3.8). A recreated object's finalizers are not ours to remove.
//! - **Waves in order.** Actions run wave by wave; within a wave patches go first, then
//!   deletes, then finalizer removals (the GC decides a wave's actions on the state at its
//!   start; this order keeps that state valid for the later kinds). Later waves rely on
//!   earlier effects only through the re-reads, so "the GC got there first" is a skip.
//! - **Stop at the first unexpected error** (anything but a 404 for a gone object and the
//!   precondition outcomes above); the rest is reported as not done.
//! - **Bounded rate** ([`limiter::Limiter`]) and **Ctrl-C** (the `stop` flag): checked before
//!   every action; the action in flight completes and is recorded.
//!
//! What re-verification cannot see: objects created after the snapshot. A new dependent of an
//! owner we orphan keeps its reference (the GC's own race, kubernetes#26120), and a new blocking
//! dependent of a foreground-deleted owner does not hold its finalizer back.

mod executor;
#[cfg(any(test, feature = "testkit"))]
pub mod fake;
pub mod kube;
pub mod limiter;
pub mod ops;
pub mod patch;
pub mod record;
mod verbs;
mod verify;

pub use ops::{ApiError, ClusterOps, LiveMeta, LiveObject, LiveRef, ObjectKey, PatchType};
pub use record::{Entry, EntryResult, Header, Record, RequestRecord, SummaryLine};

use crate::gc::plan::{Action, Verb};
use crate::gc::{GarbageCollector, ObjectRef, Policy};
use crate::snapshot::now_rfc3339;
use executor::{Executor, Fail, Step};
use limiter::Limiter;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Attempts per action when a write answers 409 Conflict (client-go's `DefaultBackoff` steps,
/// as the GC's `removeFinalizer`).
pub const MAX_ATTEMPTS: u32 = 4;

/// Default `--qps` (kube-controller-manager's default `--kube-api-qps`).
pub const DEFAULT_QPS: f64 = 20.0;

/// How to apply.
#[derive(Clone, Debug)]
pub struct Options {
    /// Requests per second.
    pub qps: f64,
    /// For the user's own delete (`collect --delete … --apply`): send the planned policy
    /// (`true`) or none at all (`--cascade=default`: the type's default applies).
    pub user_policy_explicit: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            qps: DEFAULT_QPS,
            user_policy_explicit: true,
        }
    }
}

/// Why an apply stopped early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// An unexpected error (the message says which request and what).
    Error(String),
    /// Ctrl-C (the stop flag was set).
    Interrupted,
}

/// What happened to one action that was attempted.
#[derive(Clone, Debug)]
pub struct Attempted {
    /// Index into the actions given to [`run`].
    pub action: usize,
    /// The record entry.
    pub entry: Entry,
}

/// The result of an apply.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Attempted actions, in execution order.
    pub attempted: Vec<Attempted>,
    /// Indices of the actions never attempted, in execution order.
    pub not_done: Vec<usize>,
    /// Why it stopped early, if it did.
    pub stopped: Option<Stopped>,
}

impl Summary {
    fn count(&self, r: EntryResult) -> usize {
        self.attempted
            .iter()
            .filter(|a| a.entry.result == r)
            .count()
    }

    /// Actions done.
    pub fn done(&self) -> usize {
        self.count(EntryResult::Done)
    }

    /// Actions skipped.
    pub fn skipped(&self) -> usize {
        self.count(EntryResult::Skipped)
    }

    /// Actions failed.
    pub fn failed(&self) -> usize {
        self.count(EntryResult::Failed)
    }

    /// Every action was attempted and none failed.
    pub fn complete(&self) -> bool {
        self.stopped.is_none()
    }
}

/// The order actions run in: by wave; within a wave owner-reference patches, then deletes, then
/// finalizer removals (stable otherwise, so orphan patches precede their finalizer removal and
/// an unblock precedes its delete).
pub fn execution_order(actions: &[&Action]) -> Vec<usize> {
    let class = |v: Verb| match v {
        Verb::RemoveOwnerReferences | Verb::UnblockOwnerReferences => 0,
        Verb::Delete => 1,
        Verb::RemoveFinalizer => 2,
    };
    let mut idx: Vec<usize> = (0..actions.len()).collect();
    idx.sort_by_key(|&i| (actions[i].wave, class(actions[i].verb)));
    idx
}

/// Runs `actions` (a plan's, possibly filtered) against `ops`, writing one record entry per
/// attempted action and the summary line. `progress` sees every entry once it is recorded.
/// Record write failures stop the apply (the record must stay exact).
pub async fn run<C: ClusterOps, W: Write>(
    ops: &C,
    a: &GarbageCollector<'_>,
    actions: &[&Action],
    opts: &Options,
    record: &mut Record<W>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(usize, usize, &Entry),
) -> Summary {
    let order = execution_order(actions);
    let total = order.len();
    let mut exec = Executor {
        ops,
        a,
        opts,
        limiter: Limiter::new(opts.qps),
    };
    let mut summary = Summary::default();
    for (pos, &i) in order.iter().enumerate() {
        if stop.load(Ordering::SeqCst) {
            summary.stopped = Some(Stopped::Interrupted);
            summary.not_done.extend_from_slice(&order[pos..]);
            break;
        }
        let act = actions[i];
        let mut entry = new_entry(a, act, pos + 1);
        let outcome = exec.perform(act, &mut entry).await;
        let failed = match outcome {
            Ok(Step::Done(msg)) => {
                entry.result = EntryResult::Done;
                entry.message = msg;
                None
            }
            Ok(Step::Skip(msg)) => {
                entry.result = EntryResult::Skipped;
                entry.message = msg;
                None
            }
            Ok(Step::Conflict(msg)) => {
                let msg = format!("still conflicting after {MAX_ATTEMPTS} attempts: {msg}");
                entry.result = EntryResult::Failed;
                entry.message = msg.clone();
                Some(msg)
            }
            Err(Fail(msg)) => {
                entry.result = EntryResult::Failed;
                entry.message = msg.clone();
                Some(msg)
            }
        };
        let written = record.entry(&entry);
        progress(pos + 1, total, &entry);
        summary.attempted.push(Attempted { action: i, entry });
        let stop_msg = match (failed, written) {
            (Some(msg), _) => Some(format!("{}: {msg}", act_label(a, act))),
            (None, Err(e)) => Some(format!("writing the record: {e}")),
            (None, Ok(())) => None,
        };
        if let Some(msg) = stop_msg {
            summary.stopped = Some(Stopped::Error(msg));
            summary.not_done.extend_from_slice(&order[pos + 1..]);
            break;
        }
    }
    let line = SummaryLine {
        kind: "ApplySummary",
        finished_at: now_rfc3339(),
        complete: summary.complete(),
        stopped: summary.stopped.as_ref().map(|s| match s {
            Stopped::Error(_) => "error",
            Stopped::Interrupted => "interrupted",
        }),
        message: summary.stopped.as_ref().map(|s| match s {
            Stopped::Error(m) => m.clone(),
            Stopped::Interrupted => "interrupted (Ctrl-C) before the next action".to_owned(),
        }),
        done: summary.done(),
        skipped: summary.skipped(),
        failed: summary.failed(),
        not_done: summary
            .not_done
            .iter()
            .map(|&i| record::NotDone {
                wave: actions[i].wave,
                verb: actions[i].verb.as_str(),
                target: ObjectRef::of(a.snap, actions[i].target),
            })
            .collect(),
    };
    if let Err(e) = record.finish(&line)
        && summary.stopped.is_none()
    {
        summary.stopped = Some(Stopped::Error(format!("writing the record: {e}")));
    }
    summary
}

/// `delete ConfigMap/x -n ns`.
pub fn act_label(a: &GarbageCollector<'_>, act: &Action) -> String {
    format!("{} {}", act.verb.as_str(), a.snap.describe(act.target))
}

fn new_entry(a: &GarbageCollector<'_>, act: &Action, seq: usize) -> Entry {
    let store = &a.snap.store;
    Entry {
        kind: "ApplyEntry",
        seq,
        wave: act.wave,
        verb: act.verb.as_str(),
        target: ObjectRef::of(a.snap, act.target),
        rule: act.reason.rule(),
        reason: act.detail.clone(),
        propagation_policy: act.policy.map(Policy::as_str),
        owner_references: act.patched_owner_uids(store),
        finalizer: act.finalizer.map(|f| store.str(f).to_owned()),
        result: EntryResult::Skipped,
        message: String::new(),
        notes: Vec::new(),
        before: None,
        requests: Vec::new(),
        reads: 0,
        started_at: now_rfc3339(),
    }
}

#[cfg(test)]
mod tests;
