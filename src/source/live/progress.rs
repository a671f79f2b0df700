//! What a live snapshot tells people while it runs and when it ends: the progress reports,
//! the self-redrawing progress line, and the one-line summary of what was listed.

use crate::snapshot::{ListOutcome, Snapshot};
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Which step a snapshot is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Phase {
    /// Reading the discovery documents (the groups already read are being listed meanwhile,
    /// so `resources_total` still grows).
    #[default]
    Discovery,
    /// Listing resources (every discovery document is in).
    Listing,
    /// Finished.
    Done,
}

/// A progress report (sent after every discovery document, every page and every resource).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Current step.
    pub phase: Phase,
    /// Resources whose list has finished (any outcome).
    pub resources_done: usize,
    /// Resources to list.
    pub resources_total: usize,
    /// Objects added so far.
    pub objects: u64,
    /// List pages read so far.
    pub pages: u64,
    /// Of those, the pages the server answered in Kubernetes protobuf (the answer's
    /// Content-Type said so and its body began with the protobuf magic): what `--wire` asked
    /// for was what was spoken.
    pub protobuf_pages: u64,
    /// Requests retried so far (429, 5xx, timeouts).
    pub retries: u64,
}

/// Counts of list outcomes over the monitored rows of a snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Monitored resources (rows the GC watches).
    pub resources: usize,
    /// Of which listed completely (or completely in the requested namespace).
    pub listed: usize,
    /// Of which refused (403).
    pub forbidden: usize,
    /// Of which failed.
    pub failed: usize,
    /// Discovery group-versions that could not be read.
    pub discovery_failures: usize,
}

impl Coverage {
    /// Counts `snapshot`'s outcomes.
    pub fn of(snapshot: &Snapshot) -> Self {
        let mut c = Coverage {
            discovery_failures: snapshot.discovery_failures.len(),
            ..Coverage::default()
        };
        for r in snapshot.resources.iter().filter(|r| r.monitored()) {
            c.resources += 1;
            match r.list {
                ListOutcome::Complete | ListOutcome::Partial { .. } => c.listed += 1,
                ListOutcome::Forbidden { .. } => c.forbidden += 1,
                ListOutcome::Failed { .. } => c.failed += 1,
                ListOutcome::Ignored { .. } | ListOutcome::NotListed => {}
            }
        }
        c
    }
}

/// The one-line summary printed on stderr at the end of a live snapshot, e.g.
/// `listed 12034 objects from 48 resources in 2.4s (3 forbidden, 1 failed)`.
pub fn summary_line(snapshot: &Snapshot, elapsed: Duration) -> String {
    let c = Coverage::of(snapshot);
    let mut line = format!(
        "listed {} objects from {} resources in {}",
        snapshot.store.len(),
        c.listed,
        crate::util::human_duration(elapsed)
    );
    let mut gaps = Vec::new();
    if c.forbidden > 0 {
        gaps.push(format!("{} forbidden", c.forbidden));
    }
    if c.failed > 0 {
        gaps.push(format!("{} failed", c.failed));
    }
    if c.discovery_failures > 0 {
        gaps.push(format!(
            "{} discovery group-version{} unreadable",
            c.discovery_failures,
            if c.discovery_failures == 1 { "" } else { "s" }
        ));
    }
    if !gaps.is_empty() {
        line.push_str(&format!(" ({})", gaps.join(", ")));
    }
    line
}

/// A single self-redrawing progress line on stderr, drawn only when stderr is a terminal.
///
/// ```no_run
/// # async fn f(conn: &kubectl_gc::source::live::Connection) -> kubectl_gc::Result<()> {
/// use kubectl_gc::source::live::{LiveOptions, ProgressLine, snapshot, summary_line};
/// let line = ProgressLine::stderr();
/// let start = std::time::Instant::now();
/// let snap = snapshot(conn, &LiveOptions::default(), &|p| line.update(&p)).await?;
/// line.clear();
/// eprintln!("{}", summary_line(&snap, start.elapsed()));
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct ProgressLine {
    enabled: bool,
    state: Mutex<LineState>,
}

#[derive(Debug, Default)]
struct LineState {
    last_draw: Option<Instant>,
    last_phase: Option<Phase>,
    drawn: bool,
}

/// Minimum time between two redraws.
const REDRAW_EVERY: Duration = Duration::from_millis(80);

impl ProgressLine {
    /// A progress line on stderr, enabled when stderr is a terminal.
    pub fn stderr() -> Self {
        Self::new(std::io::stderr().is_terminal())
    }

    /// A progress line that draws only when `enabled`.
    pub fn new(enabled: bool) -> Self {
        ProgressLine {
            enabled,
            state: Mutex::new(LineState::default()),
        }
    }

    /// True when the line is drawn at all.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The text for a progress report.
    pub fn text(p: &Progress) -> String {
        match p.phase {
            Phase::Discovery => "discovering API resources…".to_owned(),
            Phase::Listing | Phase::Done => {
                let mut s = format!(
                    "listing: {}/{} resources, {} objects",
                    p.resources_done, p.resources_total, p.objects
                );
                if p.retries > 0 {
                    s.push_str(&format!(", {} retries", p.retries));
                }
                s
            }
        }
    }

    /// Redraws the line (at most every 80 ms, except on a phase change).
    pub fn update(&self, p: &Progress) {
        if !self.enabled {
            return;
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let due = st.last_phase != Some(p.phase)
            || p.resources_done == p.resources_total
            || st
                .last_draw
                .is_none_or(|t| now.duration_since(t) >= REDRAW_EVERY);
        if !due {
            return;
        }
        st.last_draw = Some(now);
        st.last_phase = Some(p.phase);
        st.drawn = true;
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{}", Self::text(p));
        let _ = err.flush();
    }

    /// Erases the line (call before printing anything else on stderr).
    pub fn clear(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if self.enabled && st.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            st.drawn = false;
        }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::{IgnoreReason, Provenance, Resource, SnapshotBuilder};

    fn row(plural: &str, list: ListOutcome) -> Resource {
        Resource {
            group: String::new(),
            version: "v1".into(),
            kind: plural.into(),
            plural: plural.into(),
            namespaced: true,
            verbs: vec![],
            preferred_version: "v1".into(),
            list,
        }
    }

    #[test]
    fn summary_counts_gaps_of_monitored_rows_only() {
        let mut b = SnapshotBuilder::new(Provenance::default());
        b.add_resource(row("pods", ListOutcome::Complete));
        b.add_resource(row(
            "secrets",
            ListOutcome::Forbidden {
                message: "no".into(),
            },
        ));
        b.add_resource(row(
            "events",
            ListOutcome::Ignored {
                reason: IgnoreReason::GcIgnoredResource,
            },
        ));
        b.discovery_failure("metrics.k8s.io/v1beta1", "503");
        let s = b.finish();
        assert_eq!(
            summary_line(&s, Duration::from_millis(1500)),
            "listed 0 objects from 1 resources in 1.5s (1 forbidden, 1 discovery group-version unreadable)"
        );
    }

    #[test]
    fn progress_text() {
        let p = Progress {
            phase: Phase::Listing,
            resources_done: 3,
            resources_total: 40,
            objects: 1200,
            pages: 5,
            protobuf_pages: 5,
            retries: 0,
        };
        assert_eq!(
            ProgressLine::text(&p),
            "listing: 3/40 resources, 1200 objects"
        );
        assert!(!ProgressLine::new(false).enabled());
    }
}
