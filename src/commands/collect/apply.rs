//! `collect --apply`: confirmation, the record file, stop requests (Ctrl-C, SIGTERM, a closed
//! stdout), progress, the rounds and the summary around [`crate::apply::converge`].
//!
//! Exit codes (README "Exit codes"): 0 when the cluster ended where the plan leads (every
//! action done, or superseded by the way the cluster moved, and a re-plan found nothing left);
//! 7 when the apply refused to start, stopped early (an error, Ctrl-C or SIGTERM, standard
//! output closed) or is incomplete (an action failed, was skipped because the cluster changed
//! in a way nobody planned or because the GC would not perform it, or the last re-plan still
//! predicts actions); 130 or 143 when a second Ctrl-C or SIGTERM ended it at once
//! (`commands::signals`). A closed stdout never hides the outcome: the apply stops at the next
//! action boundary, the record says so, stderr says so, and the exit code is 7.

use crate::apply::converge::Planner;
use crate::apply::{
    self, Applier, Entry, EntryResult, Header, Record, Relist, SkipCause, Stop, Stopped, Summary,
    kube::KubeOps,
};
use crate::cli::{Cascade, CollectArgs, GlobalArgs, ReportFormat};
use crate::commands::{Loaded, signals};
use crate::error::{Error, Result, exit};
use crate::gc::GarbageCollector;
use crate::gc::plan::{Action, Plan, Reason};
use crate::render::plan::{self as view, PlanReport};
use crate::render::{self, ObjectRef, REPORT_API_VERSION, Styles};
use crate::snapshot::{Snapshot, now_rfc3339};
use crate::source::live::{self, Connection, LiveOptions};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// `--apply` needs the cluster itself: a plan made from a file may be stale or from another
/// cluster, and the actions are re-verified against live objects anyway.
pub fn check_input(g: &GlobalArgs) -> Result<()> {
    if g.snapshot.is_some() || !g.filename.is_empty() {
        return Err(Error::usage(
            "--apply needs a live cluster: it cannot apply a plan made from --snapshot or -f input",
            "drop --snapshot/-f; kubectl gc collect --apply plans from a fresh read of the cluster \
             given by --kubeconfig/--context",
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Human-facing text: every string from the cluster shown on stdout or stderr by this module
// goes through `shown` (the renderers' one sanitiser).

fn shown(s: &str) -> String {
    render::text::sanitized(s)
}

fn describe_target(t: &ObjectRef) -> String {
    shown(&t.to_string())
}

fn result_label(e: &Entry) -> String {
    match (e.result, e.cause) {
        (EntryResult::Skipped, Some(c)) => format!("skipped ({})", c.as_str()),
        (r, _) => r.as_str().to_owned(),
    }
}

// ---------------------------------------------------------------------------------------------
// Standard output that may be closed

/// Buffered stdout that remembers a closed pipe instead of failing: the apply's outcome, not
/// a reader that went away, decides the exit code.
struct Out {
    w: std::io::BufWriter<std::io::StdoutLock<'static>>,
    closed: bool,
}

impl Out {
    fn new() -> Out {
        Out {
            w: super::super::stdout(),
            closed: false,
        }
    }

    /// Writes and flushes; a broken pipe marks stdout closed (and is not an error).
    fn put(&mut self, f: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        let r = f(&mut self.w).and_then(|()| self.w.flush().map_err(Error::from));
        match r {
            Err(e) if e.is_broken_pipe() => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }
}

/// True when standard output is a pipe or socket whose reading end was closed (`… | head`
/// after it exited, `… | true`): `poll(2)` reports `POLLERR`/`POLLHUP` on it without writing.
#[cfg(unix)]
fn stdout_closed() -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let stdout = std::io::stdout();
    let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
    let zero = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    match poll(&mut fds, Some(&zero)) {
        Ok(n) if n > 0 => fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP),
        _ => false,
    }
}

#[cfg(not(unix))]
fn stdout_closed() -> bool {
    false
}

// ---------------------------------------------------------------------------------------------
// The record file

/// `./kubectl-gc-apply-20261121T090000Z.json`.
fn default_record_path() -> PathBuf {
    let stamp: String = now_rfc3339()
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect();
    PathBuf::from(format!("kubectl-gc-apply-{stamp}.json"))
}

// ---------------------------------------------------------------------------------------------
// Machine output

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ApplyResultJson<'a> {
    api_version: &'static str,
    kind: &'static str,
    plan: &'a PlanReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<String>,
    result: ResultJson,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct ResultJson {
    complete: bool,
    rounds: u32,
    converged: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    done: usize,
    skipped: usize,
    skipped_changed: usize,
    skipped_gc_would_not: usize,
    failed: usize,
    not_done: usize,
    left: usize,
    entries: Vec<EntryJson>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EntryJson {
    seq: usize,
    round: u32,
    wave: u32,
    verb: &'static str,
    target: ObjectRef,
    result: EntryResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<SkipCause>,
    message: String,
}

fn result_json(summary: &Summary) -> ResultJson {
    ResultJson {
        complete: summary.complete(),
        rounds: summary.rounds,
        converged: summary.converged,
        stopped: summary.stopped.as_ref().map(Stopped::as_str),
        message: summary.incomplete_reason(),
        done: summary.done(),
        skipped: summary.skipped(),
        skipped_changed: summary.skipped_for(SkipCause::Changed),
        skipped_gc_would_not: summary.skipped_for(SkipCause::GcWouldNot),
        failed: summary.failed(),
        not_done: summary.not_done.len(),
        left: summary.left.len(),
        entries: summary
            .attempted
            .iter()
            .map(|x| EntryJson {
                seq: x.entry.seq,
                round: x.entry.round,
                wave: x.entry.wave,
                verb: x.entry.verb,
                target: x.entry.target.clone(),
                result: x.entry.result,
                cause: x.entry.cause,
                message: x.entry.message.clone(),
            })
            .collect(),
    }
}

fn emit(
    out: &mut dyn Write,
    format: ReportFormat,
    report: &PlanReport,
    record: Option<String>,
    summary: &Summary,
) -> Result<()> {
    let doc = ApplyResultJson {
        api_version: REPORT_API_VERSION,
        kind: "ApplyResult",
        plan: report,
        record,
        result: result_json(summary),
    };
    match format {
        ReportFormat::Yaml => render::write_yaml(out, &doc)?,
        _ => render::write_json(out, &doc)?,
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Rounds after the first: the cluster read again, in the same scope

struct LiveRelist<'c> {
    conn: &'c Connection,
    opts: LiveOptions,
    round: u32,
}

impl Relist for LiveRelist<'_> {
    async fn relist(&mut self) -> std::result::Result<Snapshot, String> {
        let start = std::time::Instant::now();
        let snap = live::snapshot(self.conn, &self.opts, &|_| {})
            .await
            .map_err(|e| e.to_string())?;
        self.round += 1;
        eprintln!(
            "after round {}: re-read the cluster to re-plan ({})",
            self.round,
            live::summary_line(&snap, start.elapsed())
        );
        Ok(snap)
    }
}

// ---------------------------------------------------------------------------------------------
// The command

/// Runs `--apply` for a plan already made (and namespace-scoped) by `collect`; `planner`
/// makes the plans of later rounds exactly as that one was made.
pub async fn run(
    g: &GlobalArgs,
    args: &CollectArgs,
    loaded: &Loaded,
    a: &GarbageCollector<'_>,
    plan: &Plan,
    mut report: PlanReport,
    planner: &Planner<'_>,
) -> Result<u8> {
    let Some(conn) = loaded.connection.as_ref() else {
        return Err(Error::usage(
            "--apply needs a live cluster",
            "drop --snapshot/-f",
        ));
    };
    let user_delete = args.delete.is_some();
    // With --delete: the user's delete only; the cascade is the GC's job (it runs it as soon as
    // the delete lands, and doing it ourselves would race it). `collect --apply` performs the
    // GC's part where the GC does not run.
    let actions: Vec<&Action> = plan
        .actions
        .iter()
        .filter(|x| !user_delete || x.reason == Reason::UserDelete)
        .collect();
    report.dry_run = false;
    let human = matches!(args.output, ReportFormat::Table | ReportFormat::Wide);
    let mut out = Out::new();
    if human {
        out.put(|w| {
            view::write_table_report(
                w,
                a,
                plan,
                &report,
                args.output == ReportFormat::Wide,
                Styles::for_stdout(g.color),
            )
            .map_err(Error::from)
        })?;
    }
    if actions.is_empty() {
        out.put(|w| {
            if human {
                writeln!(w, "Nothing to apply.")?;
                Ok(())
            } else {
                emit(w, args.output, &report, None, &Summary::default())
            }
        })?;
        return Ok(exit::OK);
    }
    // Every value is checked before anything is written or asked.
    let opts = apply::Options {
        qps: args.qps,
        user_policy_explicit: args.cascade != Cascade::Default,
    };
    opts.check()
        .map_err(|e| Error::usage(format!("--qps: {e}"), "e.g. --qps 20"))?;
    let record_path = args.record.clone().unwrap_or_else(default_record_path);
    if record_path.exists() {
        return Err(Error::usage(
            format!(
                "the record file {} already exists",
                shown(&record_path.display().to_string())
            ),
            "records are never overwritten: name another file with --record",
        ));
    }
    confirm(args, conn, &actions, a, plan, user_delete)?;

    let record_shown = shown(&record_path.display().to_string());
    let file =
        crate::apply::record::create_file(&record_path).map_err(|e| Error::ApplyStopped {
            message: format!(
                "cannot create the record file {record_shown}: {e}; nothing was applied"
            ),
            hint: Some("name a new, writable file with --record".into()),
        })?;
    let header = Header {
        api_version: REPORT_API_VERSION,
        kind: "ApplyRecord",
        record_version: apply::record::RECORD_VERSION,
        tool: format!("kubectl-gc {}", env!("CARGO_PKG_VERSION")),
        started_at: now_rfc3339(),
        context: conn.context.clone(),
        server: conn.server_url.clone(),
        server_version: conn.server_version.clone(),
        gc_version: a.rules.version.to_string(),
        mode: if user_delete { "delete" } else { "collect" },
        namespace: if user_delete {
            None
        } else {
            loaded.namespace.clone()
        },
        snapshot_captured_at: a.snap.provenance.captured_at.clone(),
        actions: actions.len(),
    };
    let mut record = Record::new(file, &header).map_err(|e| Error::ApplyStopped {
        message: format!("cannot write the record file {record_shown}: {e}; nothing was applied"),
        hint: None,
    })?;

    // Stop requests, honoured before the next action: Ctrl-C or SIGTERM (a second one exits at
    // once, 130 or 143, saying what was done; the record holds every finished action), and
    // standard output closed.
    let stop = Arc::new(Stop::new());
    if out.closed || stdout_closed() {
        stop.output_closed();
    }
    let tally = Arc::new(signals::Tally::default());
    let signals = signals::listen(stop.clone(), tally.clone(), "action", record_shown.clone());
    let flag = stop.clone();
    let watch_stdout = tokio::spawn(async move {
        loop {
            if stdout_closed() {
                flag.output_closed();
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });

    let ops = KubeOps::new(conn);
    let applier = Applier::new(&ops, opts).map_err(|e| Error::usage(e, "e.g. --qps 20"))?;
    let mut progress = |seq: usize, total: usize, e: &Entry| {
        tally.finished(e.result == EntryResult::Done);
        eprintln!(
            "{}",
            view::apply_progress_line(
                view::ApplyStep {
                    round: e.round,
                    seq,
                    total,
                    wave: e.wave,
                },
                e.verb,
                &e.target,
                &result_label(e),
                &e.message
            )
        );
    };
    let summary = if user_delete {
        let mut applier = applier;
        applier
            .round(a, &plan.end, &actions, &mut record, &stop, &mut progress)
            .await;
        applier.settle(Vec::new(), true);
        applier.finish(&mut record)
    } else {
        let mut relist = LiveRelist {
            conn,
            opts: crate::commands::input::live_options(g, loaded.namespace.clone()),
            round: 0,
        };
        apply::converge(
            applier,
            a,
            plan,
            &actions,
            a.rules.version,
            planner,
            &mut relist,
            &mut record,
            &stop,
            &mut progress,
        )
        .await
    };
    signals.abort();
    watch_stdout.abort();

    out.put(|w| {
        if human {
            write_summary(w, &summary, &record_shown, plan, user_delete)
        } else {
            emit(
                w,
                args.output,
                &report,
                Some(record_path.display().to_string()),
                &summary,
            )
        }
    })?;
    if out.closed && summary.stopped != Some(Stopped::OutputClosed) {
        eprintln!(
            "note: standard output was closed; the full result is in the record {record_shown}"
        );
    }
    match summary.incomplete_reason() {
        None => Ok(exit::OK),
        Some(reason) => Err(Error::ApplyStopped {
            message: format!(
                "{}; {} done, {} skipped, {} failed, {} not done",
                shown(&reason),
                summary.done(),
                summary.skipped(),
                summary.failed(),
                summary.not_done.len()
            ),
            hint: Some(format!(
                "the record {record_shown} lists every request sent and why each action was skipped; \
                 run `kubectl gc collect` again to see what is left"
            )),
        }),
    }
}

fn write_summary(
    out: &mut dyn Write,
    summary: &Summary,
    record: &str,
    plan: &Plan,
    user_delete: bool,
) -> Result<()> {
    writeln!(out)?;
    let not_performed: Vec<&Entry> = summary
        .attempted
        .iter()
        .map(|x| &x.entry)
        .filter(|e| e.result != EntryResult::Done)
        .collect();
    if !not_performed.is_empty() {
        writeln!(out, "Not performed:")?;
        for e in not_performed {
            view::write_apply_not_performed(out, &result_label(e), e.verb, &e.target, &e.message)?;
        }
    }
    if !summary.left.is_empty() {
        writeln!(out, "Still predicted by the last re-plan, not performed:")?;
        for x in &summary.left {
            writeln!(out, "  {} {}", x.verb, describe_target(&x.target))?;
        }
    }
    let superseded = summary.skipped_for(SkipCause::Superseded);
    let changed = summary.skipped_for(SkipCause::Changed);
    let refused = summary.skipped_for(SkipCause::GcWouldNot);
    writeln!(
        out,
        "applied: {} done, {} skipped ({superseded} superseded, {changed} changed, {refused} the GC would not), {} failed, {} not done · {} round(s){} · record: {}",
        summary.done(),
        summary.skipped(),
        summary.failed(),
        summary.not_done.len(),
        summary.rounds,
        if summary.converged && summary.left.is_empty() {
            ", nothing left to do"
        } else {
            ""
        },
        record
    )?;
    if user_delete && summary.done() > 0 {
        let cascade = plan
            .actions
            .iter()
            .filter(|x| x.reason != Reason::UserDelete)
            .count();
        if cascade > 0 {
            writeln!(
                out,
                "The GC carries out the rest of the cascade ({cascade} action(s) in the preview); \
                 where the GC does not run, `kubectl gc collect --apply` performs it."
            )?;
        }
    }
    Ok(())
}

/// On a terminal: show what is about to happen and ask (default no). Otherwise `--yes` is
/// required.
fn confirm(
    args: &CollectArgs,
    conn: &Connection,
    actions: &[&Action],
    a: &GarbageCollector<'_>,
    plan: &Plan,
    user_delete: bool,
) -> Result<()> {
    if args.yes {
        return Ok(());
    }
    let cluster = match &conn.context {
        Some(c) => format!("context {} ({})", shown(c), shown(&conn.server_url)),
        None => shown(&conn.server_url),
    };
    let what = if user_delete {
        let act = actions[0];
        format!(
            "Delete {}{}",
            shown(&a.snap.describe(act.target)),
            match (args.cascade, act.policy) {
                (Cascade::Default, _) => " (no propagationPolicy: the type's default)".to_owned(),
                (_, Some(p)) => format!(" (propagationPolicy={})", p.as_str()),
                (_, None) => String::new(),
            }
        )
    } else {
        let deletes = actions
            .iter()
            .filter(|x| x.policy.is_some() && x.verb == crate::gc::plan::Verb::Delete)
            .count();
        format!(
            "Apply {} action(s) in {} wave(s) ({} delete(s)), then re-plan and apply what the GC would still do (at most {} rounds)",
            actions.len(),
            plan.waves,
            deletes,
            apply::MAX_ROUNDS
        )
    };
    crate::commands::confirm(false, &format!("{what} on {cluster}?"), "applied")
}
