//! API-server audit logs, for GC forensics (`kubectl gc history`, `why --audit-log`): every
//! format people have, recognised by content, streamed into [`AuditEvent`]s.
//!
//! Formats (`formats.rs`): JSON lines of `audit.k8s.io/v1` (and `v1beta1`) Events, as
//! `--audit-log-path` writes them (rotated, often gzipped); webhook `EventList` batches; OpenShift
//! must-gathers (`audit_logs/kube-apiserver/*.log.gz`); EKS CloudWatch exports (one event per
//! record, the event as a JSON string in `message`/`@message`); GKE Cloud Logging exports
//! (`protoPayload`: `methodName` like `io.k8s.core.v1.pods.delete`, `resourceName`, gRPC status
//! codes, no requestURI); AKS diagnostic logs (`category: kube-audit`, the event as a string in
//! `properties.log`, cut at 16 KiB).
//!
//! Only `ResponseComplete` (and `Panic`) events are passed on, and of the reads (`get`, `list`,
//! `watch`) only those answered 404 — the GC's owner lookup that proves an owner absent.
//! Memory stays proportional to what the caller keeps, not to the log.

#[cfg(any(test, feature = "testkit"))]
pub mod convert;
pub mod event;
mod formats;
#[cfg(test)]
mod tests;

pub use event::{AuditEvent, Bodies, Level, ObjectReference, OwnerRefSeen, Position};

/// What to read.
#[derive(Clone, Debug, Default)]
pub struct AuditOptions {
    /// Files, directories (read recursively), shell-style globs the shell did not expand (`*`,
    /// `?`, `[…]` in the last component), and `-` for standard input.
    pub paths: Vec<std::path::PathBuf>,
    /// Only events this keeps reach the sink (and count as passed). It runs where the event
    /// was parsed — on a parsing thread for JSON lines — so what the caller does not want is
    /// dropped there and never crosses threads.
    pub keep: Option<fn(&AuditEvent) -> bool>,
    /// The most bytes read from one decompressed file, archive member or pipe (`--max-input-size`);
    /// 0: [`crate::input::walk::DEFAULT_MAX_INPUT_BYTES`].
    pub max_input_bytes: u64,
}

/// A record that could not be read, or was read only in part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where (line 0: the input as a whole).
    pub position: Position,
    /// Why, in one line.
    pub cause: String,
}

/// What a [`read`] read.
#[derive(Clone, Debug, Default)]
pub struct ReadStats {
    /// Inputs read: files, archive members, standard input.
    pub inputs: u64,
    /// Bytes read, after decompression.
    pub bytes: u64,
    /// Records seen: lines, and items of arrays and lists (`items`, `records`, `events`).
    pub records: u64,
    /// `ResponseComplete` (and `Panic`) events parsed, with a valid time, each request once
    /// (the same event met again, in another input or the same one, is a duplicate).
    pub events: u64,
    /// The levels of the events read (all of them, passed on or not).
    pub levels: std::collections::BTreeMap<Level, u64>,
    /// Events read again: the same request's final event in an input already read (a log and
    /// its `.gz`, overlapping exports), not counted in `events`, not passed on.
    pub duplicates: u64,
    /// Events read again with the same auditID, time, verb and URI as one read before but
    /// another user or response status: a log that contradicts itself (no healthy API server
    /// writes that). Not counted in `events`, not passed on (the first copy read is kept);
    /// the first ones are in `conflicts`.
    pub conflicting: u64,
    /// Where the first conflicting copies were read (at most 20), and what they contradict.
    pub conflicts: Vec<Problem>,
    /// Records of a request's earlier stage (`RequestReceived`, `ResponseStarted`): the
    /// request's final event is the one read.
    pub other_stages: u64,
    /// Events read with a problem (a field cut, an AKS record cut at 16 KiB): each is in
    /// `problems` but is no lost record.
    pub partial: u64,
    /// Events handed to the sink (all but the reads not answered 404, and those
    /// [`AuditOptions::keep`] drops).
    pub passed: u64,
    /// Audit records recognised, by format: `json-lines`, `event-list` (events in an
    /// `EventList` or a JSON array), `eks`, `gke`, `aks`.
    pub by_format: std::collections::BTreeMap<&'static str, u64>,
    /// Every bad record, with its position (the first 1000; the rest are counted in
    /// `more_problems`).
    pub problems: Vec<Problem>,
    /// Problems beyond the 1000 kept.
    pub more_problems: u64,
    /// The earliest event time seen (µs since the epoch): the window the log covers.
    pub first_us: Option<i64>,
    /// The latest event time seen.
    pub last_us: Option<i64>,
    /// Events older than one already seen in the same input.
    pub out_of_order: u64,
    /// Records of a known envelope that hold no audit event: AKS categories other than
    /// `kube-audit[-admin]`, other components' lines in a CloudWatch export, GKE entries of
    /// other services.
    pub other_records: u64,
    /// Files met in a directory, archive or glob that are not audit logs by their content
    /// (the first 1000), e.g. a must-gather's `*.audit_logs_listing`.
    pub skipped_inputs: Vec<String>,
}

impl ReadStats {
    /// What was read but gives no event, by why: `duplicate` (events read again),
    /// `conflicting` (read again with another user or status), `earlier-stage` (a request's
    /// `RequestReceived` or `ResponseStarted` record), `unreadable` (records that could not be
    /// read, each a problem), `other` (records of a known envelope that hold no audit event:
    /// other services, categories or components). Only the reasons that occurred.
    pub fn skipped(&self) -> std::collections::BTreeMap<&'static str, u64> {
        let unreadable =
            (self.problems.len() as u64 + self.more_problems).saturating_sub(self.partial);
        [
            ("duplicate", self.duplicates),
            ("conflicting", self.conflicting),
            ("earlier-stage", self.other_stages),
            ("unreadable", unreadable),
            ("other", self.other_records),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect()
    }
}

/// Streams every kept event of every input to `sink`, in input order. A record that cannot be
/// read is a Problem, never a panic and never silent; Err only when an input cannot be opened.
///
/// JSON lines are parsed on several threads once an input has shown it is one (see
/// `formats::parallel_lines`); the sink sees the same events, in the same order, either way.
pub fn read(
    opts: &AuditOptions,
    sink: &mut dyn FnMut(AuditEvent),
) -> crate::error::Result<ReadStats> {
    read_with(opts, formats::Parallel::default(), sink)
}

/// An error when `stats` holds no audit event at all: a file that is not an audit log, an
/// empty one, or records of a known envelope with no event in them must not read as "nothing
/// was deleted". The first problem met says why (main sanitises the message for the terminal).
pub fn require_events(stats: &ReadStats, paths: &[std::path::PathBuf]) -> crate::error::Result<()> {
    if stats.events > 0 {
        return Ok(());
    }
    let named = match paths {
        [one] => one.clone(),
        _ => std::path::PathBuf::from(format!("{} inputs", paths.len())),
    };
    let within = |source: &str| {
        if *source == *named.to_string_lossy() {
            String::new()
        } else {
            format!("{source}, ")
        }
    };
    let why = match stats.problems.first() {
        Some(p) if p.position.line > 0 => format!(
            "no audit event in it ({}line {}: {})",
            within(&p.position.source),
            p.position.line,
            p.cause
        ),
        Some(p) => format!(
            "no audit event in it ({}{})",
            within(&p.position.source),
            p.cause
        ),
        None if stats.bytes == 0 => "it is empty: no audit event in it".to_owned(),
        None if stats.other_records > 0 => format!(
            "no audit event in it: {} record(s) of other services or categories",
            stats.other_records
        ),
        None => format!(
            "no audit event in it ({} record(s) read, none a ResponseComplete event)",
            stats.records
        ),
    };
    Err(crate::error::Error::input(
        named,
        why,
        Some(
            "give the API server's audit log (--audit-log-path), or an export of it from GKE, EKS \
             or AKS"
                .to_owned(),
        ),
    ))
}

/// [`read`] with the threading chosen (tests compare line by line with every split).
fn read_with(
    opts: &AuditOptions,
    parallel: formats::Parallel,
    sink: &mut dyn FnMut(AuditEvent),
) -> crate::error::Result<ReadStats> {
    let mut ctx = formats::Ctx::new(sink);
    ctx.parallel = parallel;
    ctx.keep = opts.keep;
    formats::inputs::read_all(&opts.paths, opts.max_input_bytes, &mut ctx)?;
    Ok(ctx.stats)
}
