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
//! - **One object's trouble is that action's failure.** A request about one object that is
//!   refused as malformed (400, 422), could not be built, or names a resource no longer served
//!   fails that action (recorded) and the apply goes on; every path segment is escaped
//!   ([`ops::segment`]), so no name can change or break another request. Errors that may hit
//!   every request (no answer, 401, 403, 429, 5xx) stop the apply; the rest is reported as
//!   not done.
//! - **Owners looked up where the GC looks.** The GC's metadata client joins an owner's name
//!   into the path unchecked ([`ops::ObjectUrl::gc_get_path`]): `..` reaches the namespace,
//!   `.` the collection, `a/b` another path, and a `%` is refused by the server. Apply sends
//!   the same GET and reads the answer as the GC does; a lookup that fails for the GC (a
//!   refusal, a list) is never taken for absent: the action is skipped, as the GC keeps the
//!   dependent.
//! - **Rounds, like the GC's queues** ([`converge()`]): after the plan's actions, the cluster is
//!   read again and re-planned, and what the GC would still do is applied, until nothing is
//!   left (at most [`MAX_ROUNDS`] rounds; only objects of the first read are touched). Each
//!   skip says why ([`SkipCause`]): the cluster had moved the way the plan leads (superseded:
//!   the next round takes it from there), changed in a way nobody planned, or the GC would not
//!   do it (both: that object is left alone, and the apply is reported incomplete).
//! - **Bounded rate** ([`limiter::Limiter`]) and **stop requests** ([`Stop`]: Ctrl-C, a closed
//!   stdout): checked before every action; the action in flight completes and is recorded.
//!
//! What re-verification cannot see: objects created after the snapshot. A new dependent of an
//! owner we orphan keeps its reference (the GC's own race, kubernetes#26120), and a new blocking
//! dependent of a foreground-deleted owner does not hold its finalizer back.

pub mod converge;
mod executor;
#[cfg(any(test, feature = "testkit"))]
pub mod fake;
pub mod kube;
pub mod limiter;
pub mod ops;
pub mod patch;
pub mod record;
pub mod relink;
mod verbs;
mod verify;

pub use converge::{MAX_ROUNDS, Relist, converge};
pub use ops::{ApiError, ClusterOps, LiveMeta, LiveObject, LiveRef, ObjectUrl, PatchType};
pub use record::{
    Entry, EntryResult, Header, NotDone, Record, RequestRecord, SkipCause, SummaryLine,
};

use crate::gc::plan::{Action, Verb};
use crate::gc::state::State;
use crate::gc::{GarbageCollector, ObjectRef, Policy};
use crate::snapshot::now_rfc3339;
use executor::{Executor, Fail, Step};
use limiter::Limiter;
use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};

/// Attempts per action when a write answers 409 Conflict (client-go's `DefaultBackoff` steps,
/// as the GC's `removeFinalizer`).
pub const MAX_ATTEMPTS: u32 = 4;

/// Default `--qps` (kube-controller-manager's default `--kube-api-qps`).
pub const DEFAULT_QPS: f64 = 20.0;

/// The `--qps` range: at least one request every 100 s, at most 10,000 per second.
pub const QPS_RANGE: std::ops::RangeInclusive<f64> = 0.01..=10_000.0;

/// How to apply.
#[derive(Clone, Debug)]
pub struct Options {
    /// Requests per second, within [`QPS_RANGE`].
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

impl Options {
    /// Checks the values (the CLI's parsers already bound them; a library caller may not
    /// have). Called before anything is written.
    pub fn check(&self) -> Result<(), String> {
        if !(self.qps.is_finite() && QPS_RANGE.contains(&self.qps)) {
            return Err(format!(
                "qps {} is out of range: {} ≤ qps ≤ {}",
                self.qps,
                QPS_RANGE.start(),
                QPS_RANGE.end()
            ));
        }
        Ok(())
    }
}

/// Why an apply stopped early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// An unexpected error (the message says which request and what).
    Error(String),
    /// Ctrl-C (SIGINT).
    Interrupted,
    /// SIGTERM (a Job's or CI runner's cancellation, `systemctl stop`, `kill`).
    Terminated,
    /// Standard output was closed (`… | head`): nobody reads the report any more.
    OutputClosed,
}

impl Stopped {
    /// `error`, `interrupted`, `terminated`, `output-closed` (the record's `stopped`).
    pub fn as_str(&self) -> &'static str {
        match self {
            Stopped::Error(_) => "error",
            Stopped::Interrupted => "interrupted",
            Stopped::Terminated => "terminated",
            Stopped::OutputClosed => "output-closed",
        }
    }

    /// One line for people.
    pub fn message(&self) -> String {
        match self {
            Stopped::Error(m) => m.clone(),
            Stopped::Interrupted => "interrupted (Ctrl-C) before the next action".to_owned(),
            Stopped::Terminated => "terminated (SIGTERM) before the next action".to_owned(),
            Stopped::OutputClosed => {
                "standard output was closed (nobody reads the report) before the next action"
                    .to_owned()
            }
        }
    }
}

/// A request to stop before the next action, settable from a signal handler or a watcher.
#[derive(Debug, Default)]
pub struct Stop(AtomicU8);

impl Stop {
    const NONE: u8 = 0;
    const INTERRUPTED: u8 = 1;
    const OUTPUT_CLOSED: u8 = 2;
    const TERMINATED: u8 = 3;

    /// No stop requested.
    pub const fn new() -> Stop {
        Stop(AtomicU8::new(Self::NONE))
    }

    /// Ctrl-C.
    pub fn interrupt(&self) {
        let _ = self.0.compare_exchange(
            Self::NONE,
            Self::INTERRUPTED,
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
    }

    /// SIGTERM.
    pub fn terminate(&self) {
        let _ = self.0.compare_exchange(
            Self::NONE,
            Self::TERMINATED,
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
    }

    /// Standard output was closed.
    pub fn output_closed(&self) {
        let _ = self.0.compare_exchange(
            Self::NONE,
            Self::OUTPUT_CLOSED,
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
    }

    /// The first stop requested, if any.
    pub fn requested(&self) -> Option<Stopped> {
        match self.0.load(Ordering::SeqCst) {
            Self::INTERRUPTED => Some(Stopped::Interrupted),
            Self::TERMINATED => Some(Stopped::Terminated),
            Self::OUTPUT_CLOSED => Some(Stopped::OutputClosed),
            _ => None,
        }
    }
}

/// What happened to one action that was attempted.
#[derive(Clone, Debug)]
pub struct Attempted {
    /// The round.
    pub round: u32,
    /// Index into the actions of that round.
    pub action: usize,
    /// The record entry.
    pub entry: Entry,
}

/// The result of an apply.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Attempted actions, in execution order.
    pub attempted: Vec<Attempted>,
    /// Actions never attempted because the apply stopped, in execution order.
    pub not_done: Vec<NotDone>,
    /// Actions the last re-plan still predicts that were not performed.
    pub left: Vec<NotDone>,
    /// Why it stopped early, if it did.
    pub stopped: Option<Stopped>,
    /// Rounds run.
    pub rounds: u32,
    /// A re-plan after the last round found nothing left to do.
    pub converged: bool,
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

    /// Actions skipped for this cause.
    pub fn skipped_for(&self, cause: SkipCause) -> usize {
        self.attempted
            .iter()
            .filter(|a| a.entry.cause == Some(cause))
            .count()
    }

    /// Actions failed.
    pub fn failed(&self) -> usize {
        self.count(EntryResult::Failed)
    }

    /// Writes sent that succeeded.
    fn writes_done(&self, round: u32) -> usize {
        self.attempted
            .iter()
            .filter(|a| a.round == round && a.entry.result == EntryResult::Done)
            .count()
    }

    /// The cluster is where the plan leads: nothing stopped the apply, every action was done
    /// or superseded, and nothing the plan still predicts was left undone.
    pub fn complete(&self) -> bool {
        self.stopped.is_none()
            && self.failed() == 0
            && self.skipped_for(SkipCause::Changed) == 0
            && self.skipped_for(SkipCause::GcWouldNot) == 0
            && self.left.is_empty()
    }

    /// Why the apply is not complete, in one line (`None` when it is).
    pub fn incomplete_reason(&self) -> Option<String> {
        if let Some(s) = &self.stopped {
            return Some(format!("apply stopped: {}", s.message()));
        }
        let mut why = Vec::new();
        let failed = self.failed();
        if failed > 0 {
            why.push(format!("{failed} action(s) failed"));
        }
        let changed = self.skipped_for(SkipCause::Changed);
        if changed > 0 {
            why.push(format!(
                "{changed} action(s) skipped because the cluster changed in a way the plan did not predict"
            ));
        }
        let refused = self.skipped_for(SkipCause::GcWouldNot);
        if refused > 0 {
            why.push(format!(
                "{refused} action(s) skipped because the GC would not perform them"
            ));
        }
        if !self.left.is_empty() {
            why.push(format!(
                "{} action(s) the last re-plan still predicts were not performed{}",
                self.left.len(),
                if self.converged { "" } else { " (round limit)" }
            ));
        }
        (!why.is_empty()).then(|| format!("apply incomplete: {}", why.join("; ")))
    }

    /// The record's last line.
    pub fn line(&self) -> SummaryLine {
        SummaryLine {
            kind: "ApplySummary",
            finished_at: now_rfc3339(),
            complete: self.complete(),
            rounds: self.rounds,
            converged: self.converged,
            stopped: self.stopped.as_ref().map(Stopped::as_str),
            message: self.incomplete_reason(),
            done: self.done(),
            skipped: self.skipped(),
            skipped_changed: self.skipped_for(SkipCause::Changed),
            skipped_gc_would_not: self.skipped_for(SkipCause::GcWouldNot),
            failed: self.failed(),
            not_done: self.not_done.clone(),
            left: self.left.clone(),
        }
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

/// Sees every entry once it is recorded: (position in the round, actions in the round, entry).
pub type Progress<'p> = dyn FnMut(usize, usize, &Entry) + 'p;

/// Performs actions round after round against one cluster, writing one record entry per
/// attempted action; keeps the rate limit and the running summary across rounds.
#[derive(Debug)]
pub struct Applier<'o, C> {
    ops: &'o C,
    opts: Options,
    limiter: Limiter,
    summary: Summary,
}

impl<'o, C: ClusterOps> Applier<'o, C> {
    /// An applier; refuses options out of range ([`Options::check`]).
    pub fn new(ops: &'o C, opts: Options) -> Result<Applier<'o, C>, String> {
        opts.check()?;
        Ok(Applier {
            ops,
            limiter: Limiter::new(opts.qps),
            opts,
            summary: Summary::default(),
        })
    }

    /// The summary so far.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Whether the apply has stopped (no further round may run).
    pub fn stopped(&self) -> bool {
        self.summary.stopped.is_some()
    }

    /// Runs one round: `actions` (a plan's, possibly filtered) in [`execution_order`]; `end` is
    /// the end state that plan predicts (it tells superseded skips from changes). Returns the
    /// number of actions done. Record write failures stop the apply (the record must stay
    /// exact).
    pub async fn round<W: Write>(
        &mut self,
        a: &GarbageCollector<'_>,
        end: &State,
        actions: &[&Action],
        record: &mut Record<W>,
        stop: &Stop,
        progress: &mut Progress<'_>,
    ) -> usize {
        if self.stopped() {
            return 0;
        }
        self.summary.rounds += 1;
        let round = self.summary.rounds;
        let order = execution_order(actions);
        let total = order.len();
        let mut exec = Executor {
            ops: self.ops,
            a,
            end,
            opts: &self.opts,
            limiter: &mut self.limiter,
        };
        let seq0 = self.summary.attempted.len();
        let not_done = |rest: &[usize]| -> Vec<NotDone> {
            rest.iter()
                .map(|&i| NotDone {
                    round,
                    wave: actions[i].wave,
                    verb: actions[i].verb.as_str(),
                    target: ObjectRef::of(a.snap, actions[i].target),
                })
                .collect()
        };
        for (pos, &i) in order.iter().enumerate() {
            if let Some(why) = stop.requested() {
                self.summary.stopped = Some(why);
                self.summary.not_done.extend(not_done(&order[pos..]));
                break;
            }
            let act = actions[i];
            let mut entry = new_entry(a, act, seq0 + pos + 1, round);
            let outcome = exec.perform(act, &mut entry).await;
            let stop_msg = match outcome {
                Ok(Step::Done(msg)) => {
                    entry.result = EntryResult::Done;
                    entry.message = msg;
                    None
                }
                Ok(Step::Skip(msg, cause)) => {
                    entry.result = EntryResult::Skipped;
                    entry.cause = Some(cause);
                    entry.message = msg;
                    None
                }
                Ok(Step::Failed(msg)) => {
                    // This object only: recorded, and on to the next action.
                    entry.result = EntryResult::Failed;
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
            self.summary.attempted.push(Attempted {
                round,
                action: i,
                entry,
            });
            let stop_msg = match (stop_msg, written) {
                (Some(msg), _) => Some(format!("{}: {msg}", act_label(a, act))),
                (None, Err(e)) => Some(format!("writing the record: {e}")),
                (None, Ok(())) => None,
            };
            if let Some(msg) = stop_msg {
                self.summary.stopped = Some(Stopped::Error(msg));
                self.summary.not_done.extend(not_done(&order[pos + 1..]));
                break;
            }
        }
        self.summary.writes_done(round)
    }

    /// Notes what the last re-plan still predicts (`left`) and whether it found nothing left
    /// to do (`converged`).
    pub fn settle(&mut self, left: Vec<NotDone>, converged: bool) {
        self.summary.left = left;
        self.summary.converged = converged;
    }

    /// Records that the apply stopped for `why` (before or between rounds).
    pub fn stop(&mut self, why: Stopped) {
        if self.summary.stopped.is_none() {
            self.summary.stopped = Some(why);
        }
    }

    /// Writes the summary line; returns the summary.
    pub fn finish<W: Write>(mut self, record: &mut Record<W>) -> Summary {
        if let Err(e) = record.finish(&self.summary.line())
            && self.summary.stopped.is_none()
        {
            self.summary.stopped = Some(Stopped::Error(format!("writing the record: {e}")));
        }
        self.summary
    }
}

/// Runs `actions` (a plan's, possibly filtered; `end` the end state that plan predicts) as one
/// round against `ops` and writes the summary line — [`converge()`] without re-planning.
/// Options out of range stop it before any request.
#[allow(clippy::too_many_arguments)]
pub async fn run<C: ClusterOps, W: Write>(
    ops: &C,
    a: &GarbageCollector<'_>,
    end: &State,
    actions: &[&Action],
    opts: &Options,
    record: &mut Record<W>,
    stop: &Stop,
    progress: &mut Progress<'_>,
) -> Summary {
    match Applier::new(ops, opts.clone()) {
        Ok(mut applier) => {
            applier.round(a, end, actions, record, stop, progress).await;
            applier.finish(record)
        }
        Err(e) => {
            let summary = Summary {
                stopped: Some(Stopped::Error(e)),
                ..Summary::default()
            };
            let _ = record.finish(&summary.line());
            summary
        }
    }
}

/// `delete ConfigMap/x -n ns`.
pub fn act_label(a: &GarbageCollector<'_>, act: &Action) -> String {
    format!("{} {}", act.verb.as_str(), a.snap.describe(act.target))
}

fn new_entry(a: &GarbageCollector<'_>, act: &Action, seq: usize, round: u32) -> Entry {
    let store = &a.snap.store;
    Entry {
        kind: "ApplyEntry",
        seq,
        round,
        wave: act.wave,
        verb: act.verb.as_str(),
        target: ObjectRef::of(a.snap, act.target),
        rule: act.reason.rule(),
        reason: act.detail.clone(),
        propagation_policy: act.policy.map(Policy::as_str),
        owner_references: act.patched_owner_uids(store),
        finalizer: act.finalizer.map(|f| store.str(f).to_owned()),
        result: EntryResult::Skipped,
        cause: None,
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
