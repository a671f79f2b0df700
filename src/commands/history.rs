//! `kubectl gc history --audit-log PATH…`: read the audit logs (`source::audit`), and the state
//! before when given (`--snapshot`/`-f`), explain every GC and namespace-controller action
//! (`diagnose::history`), select, print (`render::history`).

use crate::cli::{GlobalArgs, HistoryActor, HistoryArgs, HistoryFormat};
use crate::diagnose::history::{History, history};
use crate::error::{Error, Result, exit};
use crate::render::sink::Sink;
use crate::render::{self, Styles};
use crate::source::audit::{self, AuditEvent, AuditOptions};

pub async fn run(g: &GlobalArgs, args: &HistoryArgs) -> Result<u8> {
    let since = args.since.as_deref().map(parse_time).transpose()?;
    let until = args.until.as_deref().map(parse_time).transpose()?;
    let mut sink = Sink::open(args.file.output_file.as_deref())?;
    let before = if g.snapshot.is_some() || !g.filename.is_empty() {
        Some(super::load_input(g, false).await?.snapshot)
    } else {
        None
    };
    let mut events: Vec<AuditEvent> = Vec::new();
    let stats = audit::read(
        &AuditOptions {
            paths: args.audit_log.clone(),
        },
        &mut |e| events.push(e),
    )?;
    for p in stats.problems.iter().take(20) {
        eprintln!(
            "warning: {}:{}: {}",
            render::text::sanitized(&p.position.source),
            p.position.line,
            render::text::sanitized(&p.cause)
        );
    }
    let bad = stats.problems.len() as u64 + stats.more_problems;
    if bad > 20 {
        eprintln!("warning: … {} more unreadable record(s)", bad - 20);
    }
    let mut h = history(&events, before.as_ref());
    if bad > 0 {
        h.summary.notes.push(format!(
            "{bad} record(s) of the log could not be read (listed on stderr): actions in them \
             are missing"
        ));
    }
    if stats.out_of_order > 0 {
        h.summary.notes.push(format!(
            "{} event(s) out of time order in their input (merged logs of several API servers?): \
             sorted by time",
            stats.out_of_order
        ));
    }
    select(&mut h, g, args, since, until);
    let w = sink.writer();
    match args.output {
        HistoryFormat::Table => render::history::table(w, &h, false, Styles::for_stdout(g.color))?,
        HistoryFormat::Wide => render::history::table(w, &h, true, Styles::for_stdout(g.color))?,
        HistoryFormat::Json => render::write_json(w, &render::history::document(&h))?,
        HistoryFormat::Yaml => render::write_yaml(w, &render::history::document(&h))?,
        HistoryFormat::Html => render::history::html(w, &h)?,
    }
    sink.commit()?;
    Ok(exit::OK)
}

/// `--since`/`--until`: RFC 3339.
fn parse_time(s: &str) -> Result<i64> {
    crate::snapshot::parse_rfc3339(s)
        .map(|secs| secs * 1_000_000)
        .ok_or_else(|| {
            Error::usage(
                format!("{s:?} is not an RFC 3339 time"),
                "e.g. --since 2026-11-26T01:00:00Z",
            )
        })
}

/// -n, --kind (resource names), --actor, --since/--until: what is printed (causes were worked
/// out on everything).
fn select(
    h: &mut History,
    g: &GlobalArgs,
    args: &HistoryArgs,
    since: Option<i64>,
    until: Option<i64>,
) {
    let kinds: Vec<String> = g
        .kind
        .iter()
        .flat_map(|k| k.split(','))
        .map(|k| k.trim().to_ascii_lowercase())
        .filter(|k| !k.is_empty())
        .collect();
    h.items.retain(|it| {
        let o = &it.object;
        (g.all_namespaces || g.namespace.as_deref().is_none_or(|ns| o.namespace == ns))
            && (kinds.is_empty()
                || kinds.iter().any(|k| {
                    *k == o.resource
                        || o.resource.strip_suffix('s') == Some(k.as_str())
                        || format!("{}.{}", o.resource, o.group) == *k
                }))
            && since.is_none_or(|t| it.time_us >= t)
            && until.is_none_or(|t| it.time_us <= t)
            && match args.actor {
                HistoryActor::All => true,
                HistoryActor::Gc => it.actor.kind == "garbage-collector",
                HistoryActor::Namespace => it.actor.kind == "namespace-controller",
                HistoryActor::User => matches!(it.actor.kind, "user" | "controller"),
            }
    });
}
