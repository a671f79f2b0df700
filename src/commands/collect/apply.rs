//! `collect --apply`: confirmation, the record file, Ctrl-C, progress and the summary around
//! [`crate::apply::run`].

use crate::apply::{self, Entry, EntryResult, Header, Record, Stopped, Summary, kube::KubeOps};
use crate::cli::{Cascade, CollectArgs, GlobalArgs, ReportFormat};
use crate::commands::Loaded;
use crate::error::{Error, Result, exit};
use crate::gc::GarbageCollector;
use crate::gc::plan::{Action, Plan, Reason};
use crate::render::plan::{self as view, PlanReport};
use crate::render::{self, ObjectRef, REPORT_API_VERSION, Styles};
use crate::snapshot::now_rfc3339;
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// `./kubectl-gc-apply-20261121T090000Z.json`.
fn default_record_path() -> PathBuf {
    let stamp: String = now_rfc3339()
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect();
    PathBuf::from(format!("kubectl-gc-apply-{stamp}.json"))
}

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
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    done: usize,
    skipped: usize,
    failed: usize,
    not_done: usize,
    entries: Vec<EntryJson>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EntryJson {
    seq: usize,
    wave: u32,
    verb: &'static str,
    target: ObjectRef,
    result: EntryResult,
    message: String,
}

fn result_json(summary: &Summary) -> ResultJson {
    ResultJson {
        complete: summary.complete(),
        stopped: summary.stopped.as_ref().map(|s| match s {
            Stopped::Error(_) => "error",
            Stopped::Interrupted => "interrupted",
        }),
        message: summary.stopped.as_ref().map(stop_message),
        done: summary.done(),
        skipped: summary.skipped(),
        failed: summary.failed(),
        not_done: summary.not_done.len(),
        entries: summary
            .attempted
            .iter()
            .map(|x| EntryJson {
                seq: x.entry.seq,
                wave: x.entry.wave,
                verb: x.entry.verb,
                target: x.entry.target.clone(),
                result: x.entry.result,
                message: x.entry.message.clone(),
            })
            .collect(),
    }
}

fn stop_message(s: &Stopped) -> String {
    match s {
        Stopped::Error(m) => m.clone(),
        Stopped::Interrupted => "interrupted (Ctrl-C)".to_owned(),
    }
}

fn describe_target(t: &ObjectRef) -> String {
    if t.namespace.is_empty() {
        format!("{}/{}", t.kind, t.name)
    } else {
        format!("{}/{} -n {}", t.kind, t.name, t.namespace)
    }
}

/// Runs `--apply` for a plan already made (and namespace-scoped) by `collect`.
pub async fn run(
    g: &GlobalArgs,
    args: &CollectArgs,
    loaded: &Loaded,
    a: &GarbageCollector<'_>,
    plan: &Plan,
    mut report: PlanReport,
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
    let mut out = super::super::stdout();
    if human {
        view::write_table_report(
            &mut out,
            a,
            plan,
            &report,
            args.output == ReportFormat::Wide,
            Styles::for_stdout(g.color),
        )?;
        out.flush()?;
    }
    if actions.is_empty() {
        if human {
            writeln!(out, "Nothing to apply.")?;
        } else {
            emit(&mut out, args.output, &report, None, &Summary::default())?;
        }
        out.flush()?;
        return Ok(exit::OK);
    }
    let record_path = args.record.clone().unwrap_or_else(default_record_path);
    if record_path.exists() {
        return Err(Error::usage(
            format!("the record file {} already exists", record_path.display()),
            "records are never overwritten: name another file with --record",
        ));
    }
    confirm(args, conn, &actions, a, plan, user_delete)?;

    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&record_path)
        .map_err(|e| Error::ApplyStopped {
            message: format!(
                "cannot create the record file {}: {e}; nothing was applied",
                record_path.display()
            ),
            hint: Some("name a writable file with --record".into()),
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
        message: format!(
            "cannot write the record file {}: {e}; nothing was applied",
            record_path.display()
        ),
        hint: None,
    })?;

    // Ctrl-C: finish the action in flight, record it, stop. A second Ctrl-C exits at once (the
    // record is already flushed up to the last finished action).
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let handler = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            flag.store(true, Ordering::SeqCst);
            eprintln!(
                "\ninterrupted: stopping after the action in flight (Ctrl-C again to exit now)"
            );
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(130);
            }
        }
    });

    let opts = apply::Options {
        qps: args.qps,
        user_policy_explicit: args.cascade != Cascade::Default,
    };
    let ops = KubeOps::new(conn);
    let width = actions.len().to_string().len();
    let mut progress = |seq: usize, total: usize, e: &Entry| {
        eprintln!(
            "[{seq:>width$}/{total}] wave {} {} {}: {} — {}",
            e.wave,
            e.verb,
            describe_target(&e.target),
            e.result.as_str(),
            e.message
        );
    };
    let summary = apply::run(&ops, a, &actions, &opts, &mut record, &stop, &mut progress).await;
    handler.abort();

    let record_shown = record_path.display().to_string();
    if human {
        write_summary(&mut out, &summary, &record_shown, plan, user_delete)?;
    } else {
        emit(
            &mut out,
            args.output,
            &report,
            Some(record_shown.clone()),
            &summary,
        )?;
    }
    out.flush()?;
    match &summary.stopped {
        None => Ok(exit::OK),
        Some(s) => Err(Error::ApplyStopped {
            message: format!(
                "apply stopped: {}; {} done, {} skipped, {} not done",
                stop_message(s),
                summary.done(),
                summary.skipped(),
                summary.not_done.len()
            ),
            hint: Some(format!(
                "the record {record_shown} lists every request sent; run `kubectl gc collect` again to see what is left"
            )),
        }),
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
        result: ResultJson {
            complete: summary.complete(),
            ..result_json(summary)
        },
    };
    match format {
        ReportFormat::Yaml => render::write_yaml(out, &doc)?,
        _ => render::write_json(out, &doc)?,
    }
    Ok(())
}

fn write_summary(
    out: &mut dyn Write,
    summary: &Summary,
    record: &str,
    plan: &Plan,
    user_delete: bool,
) -> Result<()> {
    writeln!(out)?;
    let skipped: Vec<&Entry> = summary
        .attempted
        .iter()
        .map(|x| &x.entry)
        .filter(|e| e.result != EntryResult::Done)
        .collect();
    if !skipped.is_empty() {
        writeln!(out, "Not performed:")?;
        for e in skipped {
            writeln!(
                out,
                "  {} {} {}: {}",
                e.result.as_str(),
                e.verb,
                describe_target(&e.target),
                e.message
            )?;
        }
    }
    writeln!(
        out,
        "applied: {} done, {} skipped, {} failed, {} not done · record: {}",
        summary.done(),
        summary.skipped(),
        summary.failed(),
        summary.not_done.len(),
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
    conn: &crate::source::live::Connection,
    actions: &[&Action],
    a: &GarbageCollector<'_>,
    plan: &Plan,
    user_delete: bool,
) -> Result<()> {
    if args.yes {
        return Ok(());
    }
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(Error::ApplyStopped {
            message:
                "--apply asks for confirmation, but stdin is not a terminal; nothing was applied"
                    .into(),
            hint: Some("review the dry run, then add --yes to apply without a prompt".into()),
        });
    }
    let cluster = match &conn.context {
        Some(c) => format!("context {c} ({})", conn.server_url),
        None => conn.server_url.clone(),
    };
    let what = if user_delete {
        let act = actions[0];
        format!(
            "Delete {}{}",
            a.snap.describe(act.target),
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
            "Apply {} action(s) in {} wave(s) ({} delete(s))",
            actions.len(),
            plan.waves,
            deletes
        )
    };
    let prompt = format!("{what} on {cluster}?");
    match dialoguer::Confirm::new()
        .with_prompt(prompt)
        .default(false)
        .interact()
    {
        Ok(true) => Ok(()),
        Ok(false) => Err(Error::ApplyStopped {
            message: "not confirmed; nothing was applied".into(),
            hint: None,
        }),
        Err(e) => Err(Error::ApplyStopped {
            message: format!("cannot ask for confirmation: {e}; nothing was applied"),
            hint: Some("add --yes to apply without a prompt".into()),
        }),
    }
}
