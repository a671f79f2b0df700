//! kube-controller-manager's own log, for GC forensics without an audit log (`history
//! --controller-manager-log`): every line the garbage collector and the namespace controller
//! write about what they do, in the wordings of every release ([`lines`]'s table), out of every
//! envelope people have ([`envelope`]: klog text at any `--v`, `kubectl logs` with or without
//! `--timestamps`, containerd's files, journald, the JSON logging format, Cloud Logging and
//! CloudWatch exports), through the one input layer (files, directories, rotated and `.gz`
//! files, must-gathers, `-`).
//!
//! Fast and bounded: one multi-substring search (Aho-Corasick, SIMD) runs over the bytes for
//! the table's anchors, and only the lines it lands on are taken apart; a large file is read
//! through its map, pages released behind the scan, anything else in chunks; a line longer
//! than [`MAX_LINE`] is counted and not read. Hostile bytes never panic: a line that is no
//! wording of the table is another line of the log.

mod envelope;
mod inputs;
mod lines;
mod scan;
#[cfg(test)]
mod tests;
mod text;
mod time;

pub use time::YearFrom;

use serde::Serialize;
use std::collections::BTreeMap;

/// A line longer than this is not read (counted in [`LogStats::long_lines`]).
pub const MAX_LINE: usize = 1 << 20;

/// An object as the GC's lines name it. `api_version` is empty where the wording has none
/// (1.20's `"Deleting object"` names the kind only); `namespace` is empty for a cluster-scoped
/// object and for an owner reference (whose namespace is its dependent's); `uid` is empty
/// where the line has none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ident {
    /// `v1`, `apps/v1`; empty where the line has none.
    pub api_version: String,
    /// `ConfigMap`.
    pub kind: String,
    /// Empty: cluster-scoped, or an owner reference's (its dependent's namespace).
    pub namespace: String,
    /// Name.
    pub name: String,
    /// UID; empty where the line has none.
    pub uid: String,
}

/// What a line of the table says happened (upstream's names in the doc comments).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// The process started (`Version: v1.20.2`).
    ProcessStart,
    /// The garbage collector started (`Starting garbage collector controller`): after every
    /// process start and leader change, with a graph built anew.
    Start,
    /// The namespace controller started.
    NamespaceStart,
    /// The GC's monitors synced: it starts collecting.
    Synced,
    /// `attemptToDeleteItem` began on an item (a virtual one is an owner never observed).
    Processing,
    /// The GC deleted an object, with the propagation policy it sent.
    Delete,
    /// The GC deleted an object with Foreground, because an owner waits for its dependents
    /// and the object has dependents of its own (no `Deleting object` line).
    DeleteForeground,
    /// The GC made an object's references non-blocking to break a cycle, before a
    /// Foreground delete.
    Unblock,
    /// The GC removed `foregroundDeletion` from an owner with no blocking dependent left.
    RemoveFinalizer,
    /// The GC removed references to owners that are gone or waiting for dependents.
    RemoveReferences,
    /// The graph builder saw a dependent whose owner's UID is an object in another namespace.
    NamespaceMismatch,
    /// The graph builder saw a reference whose name, kind or apiVersion does not match the
    /// object of its UID.
    CoordinateMismatch,
    /// `isDangling`: the owner named by the reference is not found (or the absent-owner cache
    /// says so).
    OwnerAbsent,
    /// `isDangling`: an object of the owner's name exists with another UID.
    OwnerUidMismatch,
    /// `attemptToDeleteItem`: the item is not found (a virtual owner that never existed, or
    /// an object already gone).
    VirtualDelete,
    /// The GC's `OwnerRefInvalidNamespace` Event, as the event broadcaster logs it.
    InvalidNamespaceEvent,
    /// `processDeletingDependentsItem`: a dependent queued because its owner (in `owners`)
    /// waits for its dependents to be deleted (Foreground).
    DependentQueued,
    /// The graph builder saw an owner start a Foreground deletion.
    ForegroundStart,
    /// The graph builder saw an owner start an Orphan deletion.
    OrphanStart,
    /// `orphanDependents` removed the owner from all its dependents' references.
    Orphaned,
    /// The namespace controller found a namespace gone (its deletion finished).
    NamespaceGone,
    /// The namespace controller began deleting a namespace's content.
    NamespaceContent,
    /// The namespace controller went through a namespace's content (`estimate: 0`: none left).
    NamespaceContentDone,
    /// The namespace controller deleted one resource's collection in a namespace.
    NamespaceCollection,
}

impl Kind {
    /// Lines of the controllers' work (the rest mark starts).
    pub fn is_work(self) -> bool {
        !matches!(
            self,
            Kind::ProcessStart | Kind::Start | Kind::NamespaceStart | Kind::Synced
        )
    }
}

/// Where a line was read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Position {
    /// File (and archive member) name.
    pub source: String,
    /// 1-based line (records of a JSON document or YAML stream: the record's number).
    pub line: u64,
}

/// One line of the table, read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// µs since the epoch.
    pub time_us: i64,
    /// What the line says happened.
    pub kind: Kind,
    /// The wording's `--v` (the line's own where the format records it).
    pub v: u8,
    /// Where it was read.
    pub position: Position,
    /// klog's process id, where the header has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// The object the line is about (the dependent, the item, the owner being orphaned).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<Ident>,
    /// Owners the line names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owners: Vec<Ident>,
    /// The propagation policy sent (`Background`, `Foreground`, `Orphan`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// The namespace of a namespace-controller line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The resource of a collection deletion, as Go prints a GroupVersionResource.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The release of a process start (`v1.20.2`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// A `Processing` line's item is virtual (never observed).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub virtual_item: bool,
}

/// What to read.
#[derive(Clone, Debug, Default)]
pub struct LogOptions {
    /// Files, directories (read recursively; only names that name the controller manager),
    /// globs, `-`.
    pub paths: Vec<std::path::PathBuf>,
    /// `--max-input-size`; 0: the walker's default.
    pub max_input_bytes: u64,
    /// `--year`: the year of the first yearless klog time of each input.
    pub year: Option<i64>,
    /// The middle of the other sources' window (µs), for klog times without a year.
    pub near_us: Option<i64>,
}

/// A line or input that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where (line 0: the input as a whole).
    pub position: Position,
    /// Why, in one line.
    pub cause: String,
}

/// What a [`read`] read.
#[derive(Clone, Debug, Default)]
pub struct LogStats {
    /// Inputs read.
    pub inputs: u64,
    /// Bytes read, after decompression.
    pub bytes: u64,
    /// Lines (and records of documents) read.
    pub lines: u64,
    /// Lines of the table read, by kind.
    pub by_kind: BTreeMap<Kind, u64>,
    /// The highest `--v` of a line read: the log's verbosity is at least this.
    pub max_v: u8,
    /// Lines by envelope (`klog`, `timestamped`, `journald`, `json`, `cloud-logging`, …).
    pub by_format: BTreeMap<&'static str, u64>,
    /// Lines of other components (by their envelope), not read.
    pub other_lines: u64,
    /// Lines longer than [`MAX_LINE`], not read.
    pub long_lines: u64,
    /// Lines of the table whose klog time has no year and nothing to take one from.
    pub no_year: u64,
    /// Where the years of yearless klog times came from.
    pub year_from: std::collections::BTreeSet<YearFrom>,
    /// klog times (no zone) read as UTC.
    pub local_times: u64,
    /// The earliest and latest line time (µs).
    pub first_us: Option<i64>,
    /// The latest.
    pub last_us: Option<i64>,
    /// Problems (the first 1000).
    pub problems: Vec<Problem>,
    /// Problems beyond the 1000 kept.
    pub more_problems: u64,
    /// Files of a walk that are no controller-manager log by their content.
    pub skipped_inputs: Vec<String>,
    /// Files of a walk passed over by their name.
    pub ignored_inputs: u64,
}

impl LogStats {
    /// Lines of the controllers' work read.
    pub fn work_lines(&self) -> u64 {
        self.by_kind
            .iter()
            .filter(|(k, _)| k.is_work())
            .map(|(_, n)| n)
            .sum()
    }

    fn problem(&mut self, source: &str, line: u64, cause: impl Into<String>) {
        if self.problems.len() < 1000 {
            self.problems.push(Problem {
                position: Position {
                    source: source.to_owned(),
                    line,
                },
                cause: cause.into(),
            });
        } else {
            self.more_problems += 1;
        }
    }
}

/// Streams every line of the table of every input to `sink`, in input order. `Err` when an
/// input cannot be opened, or an input the user named is no log at all.
pub fn read(opts: &LogOptions, sink: &mut dyn FnMut(Record)) -> crate::error::Result<LogStats> {
    let mut reader = scan::Reader::new(opts, sink);
    inputs::read_all(&opts.paths, opts.max_input_bytes, &mut reader)?;
    Ok(reader.stats)
}

/// An error when `stats` holds no line of the GC's work at `--v=2` or above: a lower `--v`
/// logs none of the GC's deletions (only starts, and namespaces gone), which must not read as
/// "nothing was deleted".
pub fn require_work(stats: &LogStats, paths: &[std::path::PathBuf]) -> crate::error::Result<()> {
    if stats.max_v >= 2 {
        return Ok(());
    }
    let named = match paths {
        [one] => one.clone(),
        _ => std::path::PathBuf::from(format!("{} inputs", paths.len())),
    };
    let count = |k: Kind| stats.by_kind.get(&k).copied().unwrap_or(0);
    let why = if stats.lines == 0 {
        "it is empty: no line of kube-controller-manager in it".to_owned()
    } else if count(Kind::Start) + count(Kind::ProcessStart) > 0 {
        let gone = count(Kind::NamespaceGone);
        format!(
            "no line of the garbage collector's work in it ({} line(s) read: {} start(s) of the \
             GC{}): it was written at --v=0 or 1",
            stats.lines,
            count(Kind::Start),
            if gone > 0 {
                format!(", {gone} namespace(s) gone")
            } else {
                String::new()
            }
        )
    } else {
        format!(
            "no line of the garbage collector or the namespace controller in it ({} line(s) read)",
            stats.lines
        )
    };
    Err(crate::error::Error::input(
        named,
        why,
        Some(
            "the GC logs each deletion from --v=2 and each step from --v=4 (upstream's default \
             is 0): run kube-controller-manager with --v=2, or give --audit-log"
                .to_owned(),
        ),
    ))
}
