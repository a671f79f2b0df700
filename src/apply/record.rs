//! The apply record: NDJSON, one JSON document per line, written and flushed as the apply goes,
//! so that an interrupted or crashed apply still leaves every completed action on disk.
//!
//! ```text
//! {"kind":"ApplyRecord", …header: who, where, when, which plan…}
//! {"kind":"ApplyEntry","seq":1, …the action, the requests sent and their status, the metadata before…}
//! …
//! {"kind":"ApplySummary","complete":true|false, …counts, why it stopped, the actions not done…}
//! ```
//!
//! A record without the `ApplySummary` line comes from an apply that was killed; its entries
//! are still exact (each is written once its action has finished).
//!
//! **What a record holds.** Only what re-verification and an audit trail need: each object's
//! identity (resource, namespace, name), uid, resourceVersion, ownerReferences, finalizers and
//! deletionTimestamp as last read ([`LiveMeta`]), the requests sent (method, path, body — built
//! from those same fields) and the answers' status. Never labels, annotations
//! (`kubectl.kubernetes.io/last-applied-configuration` holds a Secret's data in clear) or data:
//! they are not even parsed. The file is created by `collect --apply` with `O_EXCL` and mode
//! 0600 (it names objects and owners of a cluster).

use super::ops::LiveMeta;
use crate::gc::ObjectRef;
use serde::Serialize;
use std::io::{self, Write};

/// Creates a record file: never an existing file (`O_EXCL`: not even one created between the
/// check and the open, nor a symlink planted there), readable by its owner only (0600): a
/// record names objects and owners of a cluster.
pub fn create_file(path: &std::path::Path) -> io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(path)
}

/// Schema version of the record.
pub const RECORD_VERSION: u32 = 2;

/// The first line.
#[derive(Serialize, Debug, Clone, Default)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    /// `kubectl-gc.io/v1`.
    pub api_version: &'static str,
    /// `ApplyRecord`.
    pub kind: &'static str,
    /// [`RECORD_VERSION`].
    pub record_version: u32,
    /// `kubectl-gc <version>`.
    pub tool: String,
    /// RFC 3339 UTC.
    pub started_at: String,
    /// kubeconfig context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// API server URL.
    pub server: String,
    /// Server gitVersion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_version: Option<String>,
    /// Emulated GC release (decides request shapes).
    pub gc_version: String,
    /// `collect` or `delete`.
    pub mode: &'static str,
    /// Namespace the actions were limited to (`None`: all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// When the snapshot the plan was made from was taken.
    pub snapshot_captured_at: String,
    /// Actions to perform.
    pub actions: usize,
}

/// What became of one action.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum EntryResult {
    /// The requests succeeded.
    Done,
    /// Not performed: re-reading the cluster showed the plan's verdict no longer holds.
    Skipped,
    /// The action failed: a request about this object was refused as malformed or could not be
    /// built (the apply goes on with the next action), or an error that stops the apply.
    Failed,
}

/// Why an action was skipped: whether the cluster had moved the way the plan leads, had
/// changed in a way nobody planned, or the action is one the GC itself would not perform.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SkipCause {
    /// What the action was for already happened, the way the plan itself leads there: an
    /// earlier action of this apply, a cascade the plan predicts, or the GC getting there
    /// first. The next round re-plans from the cluster as it is.
    Superseded,
    /// The cluster changed in a way the plan did not predict (an object recreated, an owner
    /// back, references edited): the object is left alone for the rest of the apply.
    Changed,
    /// The GC would not perform this action (it cannot request or resolve an owner): the plan
    /// predicted what the GC does not do; the object is left alone.
    GcWouldNot,
}

impl SkipCause {
    /// `superseded`, `changed`, `gc-would-not`.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipCause::Superseded => "superseded",
            SkipCause::Changed => "changed",
            SkipCause::GcWouldNot => "gc-would-not",
        }
    }
}

impl EntryResult {
    /// `done`, `skipped`, `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryResult::Done => "done",
            EntryResult::Skipped => "skipped",
            EntryResult::Failed => "failed",
        }
    }
}

/// One write request and its answer.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RequestRecord {
    /// DELETE or PATCH.
    pub method: &'static str,
    /// URL path.
    pub path: String,
    /// Content-Type of the body.
    pub content_type: &'static str,
    /// The body sent (parsed back from the exact bytes; keys in sorted order).
    pub body: serde_json::Value,
    /// HTTP status answered (0: no answer).
    pub status: u16,
    /// The error, for non-2xx answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One attempted action.
#[derive(Serialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// `ApplyEntry`.
    pub kind: &'static str,
    /// 1-based position in execution order, over all rounds.
    pub seq: usize,
    /// The round (1: the plan shown; 2…: re-planned from the cluster after the previous
    /// round).
    pub round: u32,
    /// The plan's wave.
    pub wave: u32,
    /// The plan's verb.
    pub verb: &'static str,
    /// The object, as planned.
    pub target: ObjectRef,
    /// The GC rule.
    pub rule: &'static str,
    /// The plan's reason.
    pub reason: String,
    /// Planned propagation policy (deletes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub propagation_policy: Option<&'static str>,
    /// Planned owner UIDs (patches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_references: Option<Vec<String>>,
    /// Planned finalizer (finalizer removal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finalizer: Option<String>,
    /// Outcome.
    pub result: EntryResult,
    /// Why it was skipped (skips only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<SkipCause>,
    /// Why it was skipped, what failed, or what was done.
    pub message: String,
    /// Deviations from the plan observed on the way (e.g. a policy recomputed from live data).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The object as last read before the change: uid, resourceVersion, deletionTimestamp,
    /// finalizers and ownerReferences (never labels, annotations or data).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<LiveMeta>,
    /// The write requests sent, in order.
    pub requests: Vec<RequestRecord>,
    /// GET requests made to verify the action.
    pub reads: u32,
    /// RFC 3339 UTC.
    pub started_at: String,
}

/// A not-performed action in the summary.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NotDone {
    /// The round it was planned in.
    pub round: u32,
    /// Wave.
    pub wave: u32,
    /// Verb.
    pub verb: &'static str,
    /// Object.
    pub target: ObjectRef,
}

/// The last line.
#[derive(Serialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct SummaryLine {
    /// `ApplySummary`.
    pub kind: &'static str,
    /// RFC 3339 UTC.
    pub finished_at: String,
    /// The cluster ended where the plan leads: every action of every round was done or
    /// superseded, and a re-plan found nothing left to do.
    pub complete: bool,
    /// Rounds run (each after a re-plan from the cluster).
    pub rounds: u32,
    /// A re-plan after the last round found nothing left to do.
    pub converged: bool,
    /// `error`, `interrupted` or `output-closed` when the apply stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<&'static str>,
    /// Why it stopped, or why it is incomplete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Actions done.
    pub done: usize,
    /// Actions skipped (all causes).
    pub skipped: usize,
    /// Skipped because the cluster changed in a way nobody planned.
    pub skipped_changed: usize,
    /// Skipped because the GC would not perform them.
    pub skipped_gc_would_not: usize,
    /// Actions failed.
    pub failed: usize,
    /// Actions never attempted because the apply stopped.
    pub not_done: Vec<NotDone>,
    /// Actions the last re-plan still predicts that were not performed (left alone after a
    /// skip or failure, or the round limit).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left: Vec<NotDone>,
}

/// The record writer.
#[derive(Debug)]
pub struct Record<W: Write> {
    w: W,
}

impl<W: Write> Record<W> {
    /// Starts a record: writes the header line.
    pub fn new(w: W, header: &Header) -> io::Result<Record<W>> {
        let mut r = Record { w };
        r.line(header)?;
        Ok(r)
    }

    /// Appends an entry.
    pub fn entry(&mut self, e: &Entry) -> io::Result<()> {
        self.line(e)
    }

    /// Appends the summary line.
    pub fn finish(&mut self, s: &SummaryLine) -> io::Result<()> {
        self.line(s)
    }

    /// The writer.
    pub fn get_ref(&self) -> &W {
        &self.w
    }

    /// The writer.
    pub fn into_inner(self) -> W {
        self.w
    }

    fn line<T: Serialize>(&mut self, v: &T) -> io::Result<()> {
        let mut buf = serde_json::to_vec(v).map_err(io::Error::other)?;
        buf.push(b'\n');
        self.w.write_all(&buf)?;
        self.w.flush()
    }
}
