//! `kubectl gc history --audit-log PATH…`: read the audit logs (`source::audit`), and the states
//! before (`--snapshot`/`-f`) and after (`--after`) when given, explain every GC and namespace-controller action
//! (`diagnose::history`), select, print (`render::history`).

use crate::cli::{GlobalArgs, HistoryActor, HistoryArgs, HistoryFormat};
use crate::diagnose::history::{History, Obj, Recorder, SnapIndex, States};
use crate::error::{Error, Result, exit};
use crate::model::selector::Selector;
use crate::render::sink::Sink;
use crate::render::{self, Styles};
use crate::snapshot::Snapshot;
use crate::source::audit::{self, AuditOptions};

/// `kubectl gc history`: the exit code, or the error main prints.
pub async fn run(g: &GlobalArgs, args: &HistoryArgs) -> Result<u8> {
    let now_us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
    let since = args
        .since
        .as_deref()
        .map(|s| parse_time(s, now_us))
        .transpose()?;
    let until = args
        .until
        .as_deref()
        .map(|s| parse_time(s, now_us))
        .transpose()?;
    let selector = g
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
    let mut sink = Sink::open(args.file.output_file.as_deref())?;
    let before = if g.snapshot.is_some() || !g.filename.is_empty() {
        Some(super::load_input(g, false).await?.snapshot)
    } else {
        None
    };
    let after = match args.after.as_deref() {
        None => None,
        Some(path) => Some(load_after(g, path).await?),
    };
    let states = States {
        before: before.as_ref(),
        after: after.as_ref(),
    };
    let (mut h, mut read) = if args.audit_log.is_empty() {
        (
            crate::diagnose::history_merge::empty(),
            render::history::Read::default(),
        )
    } else {
        audit_history(g, args, states)?
    };
    if !args.controller_manager_log.is_empty() {
        let near_us = window_middle(&h).or_else(|| {
            before
                .as_ref()
                .and_then(|s| crate::snapshot::parse_rfc3339(&s.provenance.captured_at))
                .map(|secs| secs * 1_000_000)
        });
        let (log, log_read) =
            super::history_sources::controller_manager_log(g, args, near_us, h.items.is_empty())?;
        read.controller_manager_log = Some(log_read);
        if args.audit_log.is_empty() && (before.is_some() || after.is_some()) {
            h = crate::diagnose::history_merge::from_log_with_states(&log, states);
        }
        crate::diagnose::history_merge::merge_log(&mut h, log);
    }
    let states = [before.as_ref(), after.as_ref()];
    let logged = h.items.len();
    select(&mut h, g, args, since, until, selector.as_ref(), &states)?;
    h.collapse();
    let w = sink.writer();
    let styles = Styles::for_stdout(g.color);
    match args.output {
        HistoryFormat::Table => render::history::table(w, &h, &read, logged, false, styles)?,
        HistoryFormat::Wide => render::history::table(w, &h, &read, logged, true, styles)?,
        HistoryFormat::Json => render::write_json(w, &render::history::document(&h, &read))?,
        HistoryFormat::Yaml => render::write_yaml(w, &render::history::document(&h, &read))?,
        HistoryFormat::Html => render::history::html(w, &h, &read)?,
    }
    sink.commit()?;
    Ok(exit::OK)
}

/// The audit logs' history, with the states around it; and what was read.
fn audit_history(
    g: &GlobalArgs,
    args: &HistoryArgs,
    states: States<'_>,
) -> Result<(History, render::history::Read)> {
    // The log is streamed: the recorder keeps only the events the history uses.
    let mut recorder = Recorder::default();
    let stats = audit::read(
        &AuditOptions {
            paths: args.audit_log.clone(),
            keep: Some(crate::diagnose::history::used_by_history),
            max_input_bytes: g.max_input_size,
        },
        &mut |e| recorder.push(e),
    )?;
    audit::require_events(&stats, &args.audit_log)?;
    recorder.read_all(&stats);
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
    let mut h = recorder.finish(states);
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
    Ok((h, read_counts(&stats)))
}

/// The middle of the history's window (µs): the instant the controller manager's yearless
/// times are read nearest to.
fn window_middle(h: &History) -> Option<i64> {
    let (first, last) = (h.items.first()?.time_us, h.items.last()?.time_us);
    Some(first + (last - first) / 2)
}

/// What the reader read, for the renderer (`read` of the History document).
pub fn read_counts(stats: &audit::ReadStats) -> render::history::Read {
    let skipped_by = stats.skipped();
    render::history::Read {
        controller_manager_log: None,
        events: stats.events,
        skipped: skipped_by.values().sum(),
        skipped_by,
        levels: stats.levels.iter().map(|(l, n)| (l.name(), *n)).collect(),
    }
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

/// `--since`/`--until`: RFC 3339, or a duration back from now (`1h`).
fn parse_time(s: &str, now_us: i64) -> Result<i64> {
    parse_time_or_ago(s, now_us).map_err(|e| {
        Error::usage(
            e,
            "e.g. --since 2026-11-26T01:00:00Z, or --since 1h (the last hour)",
        )
    })
}

/// `history --since`/`--until`: an RFC 3339 time, or a duration back from `now_us`
/// (microseconds since the epoch) as kubectl's `logs --since` takes one — `90s`, `15m`, `1h`,
/// `1h30m` — and `d` for days (`2d`), which Go's durations lack but incidents span. The time,
/// in microseconds since the epoch.
fn parse_time_or_ago(s: &str, now_us: i64) -> Result<i64, String> {
    let t = s.trim();
    if let Some(secs) = crate::snapshot::parse_rfc3339(t) {
        return secs
            .checked_mul(1_000_000)
            .ok_or_else(|| format!("{t:?} is out of range"));
    }
    let bad = || format!("{t:?} is neither an RFC 3339 time nor a duration (90s, 15m, 1h, 2d)");
    if t.is_empty() {
        return Err(bad());
    }
    let mut rest = t;
    let mut us: i64 = 0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err(bad());
        }
        let n: i64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let per: i64 = match &rest[..unit_len] {
            "ms" => 1_000,
            "s" => 1_000_000,
            "m" => 60_000_000,
            "h" => 3_600_000_000,
            "d" => 86_400_000_000,
            _ => return Err(bad()),
        };
        rest = &rest[unit_len..];
        us = n
            .checked_mul(per)
            .and_then(|d| us.checked_add(d))
            .ok_or_else(|| format!("duration {t:?} is too long"))?;
    }
    Ok(now_us.saturating_sub(us))
}

/// -n, --kind (resource names), -l (labels in a state before or after), --actor,
/// --since/--until: what is printed (causes were worked out on everything). A namespace or kind
/// that none of the log's actions names is a usage error (exit 2), as `audit -n` of a namespace
/// the input does not hold: "no action" would claim the log shows none, when the filter
/// removed them all.
fn select(
    h: &mut History,
    g: &GlobalArgs,
    args: &HistoryArgs,
    since: Option<i64>,
    until: Option<i64>,
    selector: Option<&Selector>,
    states: &[Option<&Snapshot>],
) -> Result<()> {
    let kinds: Vec<String> = g
        .kind
        .iter()
        .flat_map(|k| k.split(','))
        .map(|k| k.trim().to_ascii_lowercase())
        .filter(|k| !k.is_empty())
        .collect();
    let kind_ok = |o: &Obj| {
        kinds.is_empty()
            || kinds.iter().any(|k| {
                *k == o.resource
                    || o.resource.strip_suffix('s') == Some(k.as_str())
                    || format!("{}.{}", o.resource, o.group) == *k
                    || crate::catalog::builtin::all().iter().any(|b| {
                        b.group == o.group
                            && b.plural == o.resource
                            && crate::lookup::names_of(b.kind, b.plural).contains(k)
                    })
            })
    };
    let ns_ok =
        |o: &Obj| g.all_namespaces || g.namespace.as_deref().is_none_or(|ns| o.namespace == ns);
    let named = |o: &Obj| ns_ok(o) && kind_ok(o);
    if !h.items.is_empty()
        && !h.items.iter().any(|it| named(&it.object))
        && !h.unlogged.iter().any(|u| named(&u.object))
    {
        let mut said = Vec::new();
        if let Some(ns) = g.namespace.as_deref().filter(|_| !g.all_namespaces) {
            said.push(format!("-n {ns}"));
        }
        if !kinds.is_empty() {
            said.push(format!("--kind {}", kinds.join(",")));
        }
        let mut namespaces: Vec<String> = h
            .items
            .iter()
            .map(|it| it.object.namespace.clone())
            .filter(|ns| !ns.is_empty())
            .collect();
        namespaces.sort();
        namespaces.dedup();
        let mut resources: Vec<String> = h
            .items
            .iter()
            .map(|it| it.object.resource.clone())
            .collect();
        resources.sort();
        resources.dedup();
        return Err(Error::usage(
            format!(
                "{} matched none of the {} action(s) in the log",
                said.join(" "),
                h.items.len()
            ),
            format!(
                "the log's actions are on {}, {}",
                crate::lookup::join_some(&resources, 8),
                if namespaces.is_empty() {
                    "all cluster-scoped".to_owned()
                } else {
                    format!("in namespaces {}", crate::lookup::join_some(&namespaces, 8))
                }
            ),
        ));
    }
    // -l: the labels of the object in the first state that holds it; an object no state
    // holds has unknown labels and is not shown (counted in a note).
    let indexes: Vec<(&Snapshot, SnapIndex<'_>)> = match selector {
        Some(_) => states
            .iter()
            .flatten()
            .map(|s| (*s, SnapIndex::new(s)))
            .collect(),
        None => Vec::new(),
    };
    let mut unlabelled = 0usize;
    let mut labels_ok = |o: &Obj| {
        let Some(sel) = selector else { return true };
        match indexes
            .iter()
            .find_map(|(s, ix)| ix.find(o).map(|id| (s, id)))
        {
            Some((s, id)) => sel.matches(&s.store, id),
            None => {
                unlabelled += 1;
                false
            }
        }
    };
    h.items.retain(|it| {
        let o = &it.object;
        ns_ok(o)
            && kind_ok(o)
            && since.is_none_or(|t| it.time_us >= t)
            && until.is_none_or(|t| it.time_us <= t)
            && match args.actor {
                HistoryActor::All => true,
                HistoryActor::Gc => it.actor.kind == "garbage-collector",
                HistoryActor::Namespace => it.actor.kind == "namespace-controller",
                HistoryActor::User => matches!(it.actor.kind, "user" | "controller"),
            }
            && labels_ok(o)
    });
    h.unlogged
        .retain(|u| ns_ok(&u.object) && kind_ok(&u.object) && labels_ok(&u.object));
    h.summary.count(&h.items);
    if unlabelled > 0 {
        h.summary.notes.push(format!(
            "{unlabelled} action(s) on objects neither state holds are not shown: -l cannot \
             read their labels"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_time_or_ago;

    /// 2026-11-26T02:32:35Z.
    const NOW: i64 = 1_795_660_355_000_000;

    #[test]
    fn since_takes_durations_back_from_now_and_rfc3339() {
        let s = 1_000_000;
        assert_eq!(parse_time_or_ago("90s", NOW), Ok(NOW - 90 * s));
        assert_eq!(parse_time_or_ago("15m", NOW), Ok(NOW - 900 * s));
        assert_eq!(parse_time_or_ago("1h", NOW), Ok(NOW - 3600 * s));
        assert_eq!(parse_time_or_ago("1h30m", NOW), Ok(NOW - 5400 * s));
        assert_eq!(parse_time_or_ago("2d", NOW), Ok(NOW - 172_800 * s));
        assert_eq!(parse_time_or_ago("500ms", NOW), Ok(NOW - 500_000));
        // 2026-11-26T01:00:00Z: 20783 days and 3600 s after the epoch.
        assert_eq!(
            parse_time_or_ago("2026-11-26T01:00:00Z", NOW),
            Ok((20_783 * 86_400 + 3_600) * s)
        );
        for bad in [
            "",
            "1",
            "h",
            "1y",
            "-1h",
            "1.5h",
            "1h 30m",
            "99999999999999999999d",
        ] {
            let e = parse_time_or_ago(bad, NOW).unwrap_err();
            assert!(!e.contains('\n'), "{e}");
        }
        assert!(
            parse_time_or_ago("99999999999d", NOW)
                .unwrap_err()
                .contains("too long")
        );
    }
}
