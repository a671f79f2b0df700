//! The one entry point: [`from_logs`] reads the logs (the audit log's, then the controller
//! manager's, matched to the audit log's actions: `kcm.rs`), keeps what the history uses,
//! explains it on the states around the log, says what the inputs could not tell, selects what was
//! asked for and collapses the rows. `history` and `why --audit-log` both ask it.

use super::kcm::{KcmLogs, LogRead};
use super::record::{Caps, Recorder};
use super::select::Select;
use super::types::History;
use crate::catalog::KubeVersion;
use crate::error::{Error, Result};
use crate::snapshot::Snapshot;
use crate::source::audit::{self, AuditOptions, Problem, ReadStats};

/// The logs to read.
#[derive(Clone, Debug, Default)]
pub struct Logs {
    /// Files, directories, globs, `-` (as `--audit-log` takes them).
    pub paths: Vec<std::path::PathBuf>,
    /// `--max-input-size` (0: the default).
    pub max_input_bytes: u64,
}

/// What to explain, on which states, and what to show.
pub struct Query<'a> {
    /// The audit logs (none: the controller manager's log alone).
    pub logs: Logs,
    /// kube-controller-manager's logs (none: the audit log alone).
    pub kcm: KcmLogs,
    /// The state before the log's window (`--snapshot`/`-f`). Text the log's bodies name is
    /// interned into its store (no object of it changes) so the GC model can be asked about it.
    pub before: Option<&'a mut Snapshot>,
    /// The state after it (`--after`).
    pub after: Option<&'a mut Snapshot>,
    /// The GC release whose model explains the actions.
    pub gc_version: KubeVersion,
    /// What to show.
    pub select: Select,
    /// What is kept at most.
    pub caps: Caps,
}

/// What was read of the logs (`read` in the document, a line of the table's summary): so an
/// answer of "no action" can be told from a log that was not read.
#[derive(Clone, Debug, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Read {
    /// Records read: lines, and items of arrays and lists.
    pub records: u64,
    /// Events read: each request's final event (`ResponseComplete`, or `Panic`), once.
    pub events: u64,
    /// Records read that gave no event.
    pub skipped: u64,
    /// `skipped` by why (`source::audit::ReadStats::skipped`).
    pub skipped_by: std::collections::BTreeMap<&'static str, u64>,
    /// Events read by the audit level they were recorded at (all of them, not only those
    /// the history uses): `unknown` where the format drops the level.
    pub levels: std::collections::BTreeMap<&'static str, u64>,
    /// What was read of kube-controller-manager's log (`--controller-manager-log`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller_manager_log: Option<LogRead>,
}

impl Read {
    /// What `stats` says was read.
    pub fn of(stats: &ReadStats) -> Read {
        let skipped_by = stats.skipped();
        Read {
            records: stats.records,
            events: stats.events,
            skipped: skipped_by.values().sum(),
            skipped_by,
            levels: stats.levels.iter().map(|(l, n)| (l.name(), *n)).collect(),
            controller_manager_log: None,
        }
    }
}

/// The answer, with what the read met on the way.
pub struct Answer {
    /// The history, selected and collapsed.
    pub history: History,
    /// What was read.
    pub read: Read,
    /// Records that could not be read (the first ones, with where), for warnings.
    pub problems: Vec<Problem>,
    /// How many records could not be read in all.
    pub unreadable: u64,
    /// The first copies of requests that contradict an earlier copy (skipped), for warnings.
    pub conflicts: Vec<Problem>,
    /// Lines of the controller manager's log that could not be read, for warnings.
    pub log_problems: Vec<crate::source::controller_log::Problem>,
}

/// Reads the logs of `q` and answers: every action, its cause on the GC model of the states
/// given, the notes, the selection, the rows collapsed. An error for input that is not an
/// audit log, a selection that names nothing the log has, or a log past the caps.
pub fn from_logs(q: Query<'_>) -> Result<Answer> {
    let Query {
        logs,
        kcm,
        mut before,
        mut after,
        gc_version,
        select,
        caps,
    } = q;
    let (mut recorder, stats) = record(&logs, caps)?;
    let mut log_read = None;
    let mut log_problems = Vec::new();
    if !kcm.paths.is_empty() {
        // klog's times have no year: read nearest to the audit log's window, else to when the
        // state before was captured.
        let near_us = match (recorder.first_us, recorder.last_us) {
            (Some(f), Some(l)) => Some(f + (l - f) / 2),
            _ => before
                .as_ref()
                .and_then(|s| crate::snapshot::parse_rfc3339(&s.provenance.captured_at))
                .map(|secs| secs * 1_000_000),
        };
        let (log, read, problems) = super::kcm::read(&kcm, near_us, recorder.kept() == 0)?;
        recorder.push_log(log);
        over_caps(&recorder, &kcm.paths)?;
        (log_read, log_problems) = (Some(read), problems);
    }
    for s in [before.as_deref_mut(), after.as_deref_mut()]
        .into_iter()
        .flatten()
    {
        super::model::prepare(s, &recorder);
    }
    let (before, after) = (before.as_deref(), after.as_deref());
    let mut h = super::answer::build(&recorder, before, after, gc_version);
    drop(recorder);
    let unreadable = stats.problems.len() as u64 + stats.more_problems;
    if unreadable > 0 {
        h.summary.notes.push(format!(
            "{unreadable} record(s) of the log could not be read (listed on stderr): actions \
             in them are missing"
        ));
    }
    let mut read = Read::of(&stats);
    read.controller_manager_log = log_read;
    if stats.conflicting > 0 {
        h.summary.notes.push(format!(
            "{} event(s) were read again with another user or response status than their \
             first copy (the same auditID, time, verb and URI): a log that contradicts itself; \
             the first copy read is kept (listed on stderr)",
            stats.conflicting
        ));
    }
    if stats.out_of_order > 0 {
        h.summary.notes.push(format!(
            "{} event(s) out of time order in their input (merged logs of several API \
             servers?): sorted by time",
            stats.out_of_order
        ));
    }
    select.apply(&mut h, [before, after])?;
    h.collapse();
    Ok(Answer {
        history: h,
        read,
        problems: stats.problems,
        unreadable,
        conflicts: stats.conflicts,
        log_problems,
    })
}

/// Reads the logs into a recorder: an error when they hold no audit event, or more than the
/// caps let it keep.
fn record(logs: &Logs, caps: Caps) -> Result<(Recorder, ReadStats)> {
    // The log is streamed: the recorder keeps only what the history uses, and the reader
    // drops the rest where it parses it.
    let mut recorder = Recorder::with_caps(caps);
    if logs.paths.is_empty() {
        // The controller manager's log alone.
        return Ok((recorder, ReadStats::default()));
    }
    let stats = audit::read(
        &AuditOptions {
            paths: logs.paths.clone(),
            keep: Some(super::audit::used_by_history),
            max_input_bytes: logs.max_input_bytes,
        },
        &mut |e| recorder.push(e),
    )?;
    audit::require_events(&stats, &logs.paths)?;
    recorder.read_all(&stats);
    over_caps(&recorder, &logs.paths)?;
    Ok((recorder, stats))
}

/// An error when the recorder reached a cap reading `paths`.
fn over_caps(recorder: &Recorder, paths: &[std::path::PathBuf]) -> Result<()> {
    if let Some(hit) = recorder.over {
        let named = match paths {
            [one] => one.clone(),
            more => std::path::PathBuf::from(format!("{} inputs", more.len())),
        };
        return Err(Error::input(
            named,
            format!("the log holds {}", hit.describe()),
            Some(
                "history keeps what it explains in memory, within these caps: read fewer of the \
                 log's files at once (the rotated files of the incident's hours), or a shorter \
                 export"
                    .to_owned(),
            ),
        ));
    }
    Ok(())
}
