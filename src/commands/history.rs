//! `kubectl gc history --audit-log PATH… --controller-manager-log PATH…`: the states before (`--snapshot`/`-f`) and after
//! (`--after`) when given, one question to `diagnose::history::from_logs`, the answer printed
//! (`render::history`).

use crate::cli::{GlobalArgs, HistoryActor, HistoryArgs, HistoryFormat};
use crate::diagnose::history::{Actors, Caps, KcmLogs, Logs, Query, Select, from_logs};
use crate::error::{Error, Result, exit};
use crate::model::selector::Selector;
use crate::render::sink::Sink;
use crate::render::{self, Styles};
use crate::snapshot::Snapshot;

/// `kubectl gc history`: the exit code, or the error main prints.
pub async fn run(g: &GlobalArgs, args: &HistoryArgs) -> Result<u8> {
    let select = selection(g, args)?;
    let mut sink = Sink::open(args.file.output_file.as_deref())?;
    let mut before = if g.snapshot.is_some() || !g.filename.is_empty() {
        Some(super::load_input(g, false).await?)
    } else {
        None
    };
    let mut after = match args.after.as_deref() {
        None => None,
        Some(path) => Some(load_after(g, path).await?),
    };
    let gc_version = before
        .as_ref()
        .map(|l| l.gc_version(g))
        .or(g.gc_version)
        .unwrap_or(crate::catalog::KubeVersion::NEWEST);
    let answer = from_logs(Query {
        logs: Logs {
            paths: args.audit_log.clone(),
            max_input_bytes: g.max_input_size,
        },
        kcm: KcmLogs {
            paths: args.controller_manager_log.clone(),
            max_input_bytes: g.max_input_size,
            year: args.year,
        },
        before: before.as_mut().map(|l| &mut l.snapshot),
        after: after.as_mut(),
        gc_version,
        select,
        caps: Caps::default(),
    })?;
    render::history::warnings(&mut std::io::stderr(), &answer)?;
    let (h, read) = (&answer.history, &answer.read);
    let w = sink.writer();
    let styles = Styles::for_stdout(g.color);
    match args.output {
        HistoryFormat::Table => render::history::table(w, h, read, false, styles)?,
        HistoryFormat::Wide => render::history::table(w, h, read, true, styles)?,
        HistoryFormat::Json => render::write_json(w, &render::history::document(h, read))?,
        HistoryFormat::Yaml => render::write_yaml(w, &render::history::document(h, read))?,
        HistoryFormat::Html => render::history::html(w, h, read)?,
    }
    sink.commit()?;
    Ok(exit::OK)
}

/// What the flags select: -n, --kind, --actor, -l, --since/--until.
fn selection(g: &GlobalArgs, args: &HistoryArgs) -> Result<Select> {
    let now_us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
    let labels = g
        .selector
        .as_deref()
        .map(|s| {
            Selector::parse(s).map_err(|e| {
                Error::usage(
                    format!("invalid label selector {s:?}: {e}"),
                    "e.g. -l app=web,tier!=db",
                )
            })
        })
        .transpose()?;
    Ok(Select {
        namespace: g.namespace.clone().filter(|_| !g.all_namespaces),
        kinds: g
            .kind
            .iter()
            .flat_map(|k| k.split(','))
            .map(|k| k.trim().to_ascii_lowercase())
            .filter(|k| !k.is_empty())
            .collect(),
        actors: match args.actor {
            HistoryActor::All => Actors::All,
            HistoryActor::Gc => Actors::Gc,
            HistoryActor::Namespace => Actors::Namespace,
            HistoryActor::User => Actors::User,
        },
        labels,
        since_us: args.since.map(|t| t.at(now_us)),
        until_us: args.until.map(|t| t.at(now_us)),
    })
}

/// `--after PATH|cluster`: the state after the log, from a file or path as `-f` reads it (a
/// lone snapshot file is read as one), or from the cluster (every namespace: owners may be
/// anywhere).
async fn load_after(g: &GlobalArgs, path: &str) -> Result<Snapshot> {
    let mut ag = g.clone();
    ag.snapshot = None;
    ag.filename.clear();
    ag.all_namespaces = true;
    if path != "cluster" {
        ag.filename = vec![std::path::PathBuf::from(path)];
    }
    Ok(super::load_input(&ag, false).await?.snapshot)
}
