//! `kubectl gc history`: the actions of an audit log as a table for people (unexplained GC
//! deletions first, then everything in time order, each GC or namespace-controller action with
//! its cause and the action at the start of its chain), and the `History` JSON/YAML document.
//!
//! Every string came from an audit log anyone may have written: the table prints each through
//! [`sanitize`].

use super::Styles;
use super::text::sanitize;
use crate::build_info::REPORT_API_VERSION;
use crate::diagnose::history::{History, Item};
use owo_colors::OwoColorize;
use std::io::Write;

/// What was read of the log (`read` in the document, a line of the table's summary): so an
/// answer of "no action" can be told from a log that was not read.
#[derive(Clone, Debug, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Read {
    /// Events read: each request's final event (`ResponseComplete`, or `Panic`), once.
    pub events: u64,
    /// Records read that gave no event.
    pub skipped: u64,
    /// `skipped` by why: `duplicate` (an event read before, in this input or another),
    /// `unreadable` (a record that could not be read, each a warning), `other` (records of
    /// other services, categories or components in an export).
    pub skipped_by: std::collections::BTreeMap<&'static str, u64>,
    /// Events read by the audit level they were recorded at (all of them, not only those
    /// the history uses): `unknown` where the format drops the level.
    pub levels: std::collections::BTreeMap<&'static str, u64>,
    /// Lines of kube-controller-manager's log read (`--controller-manager-log`), and how many
    /// of them were the GC's or the namespace controller's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller_manager_log: Option<LogRead>,
}

/// What was read of kube-controller-manager's log.
#[derive(Clone, Debug, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogRead {
    /// Lines read.
    pub lines: u64,
    /// Lines of the GC and the namespace controller among them.
    pub controller_lines: u64,
    /// The highest `--v` of a line read (the log's verbosity is at least this).
    pub verbosity: u8,
}

/// The JSON document: `{"apiVersion", "kind": "History", "items": […], "unlogged": […],
/// "summary": {…}, "read": {…}}`, borrowed from the history and written as it is serialised
/// (no value tree of a busy log's actions in between).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Document<'h> {
    api_version: &'static str,
    kind: &'static str,
    items: &'h [Item],
    unlogged: &'h [crate::diagnose::history::Unlogged],
    summary: &'h crate::diagnose::history::Summary,
    read: &'h Read,
}

/// The [`Document`] of `h`, read from a log of which `read` says what was read.
pub fn document<'h>(h: &'h History, read: &'h Read) -> Document<'h> {
    Document {
        api_version: REPORT_API_VERSION,
        kind: "History",
        items: &h.items,
        unlogged: &h.unlogged,
        summary: &h.summary,
        read,
    }
}

/// `N event(s) read (M skipped: …)`.
fn read_line(read: &Read) -> String {
    let log = read.controller_manager_log.as_ref().map(|l| {
        format!(
            "{} controller-manager log line(s) read ({} of the GC and the namespace controller, \
             --v={} or more)",
            l.lines, l.controller_lines, l.verbosity
        )
    });
    match (log, read.events) {
        (Some(l), 0) => return l,
        (Some(l), _) => return format!("{}; {l}", audit_read_line(read)),
        (None, _) => {}
    }
    audit_read_line(read)
}

/// `N event(s) read (M skipped: …)`.
fn audit_read_line(read: &Read) -> String {
    let why: Vec<String> = read
        .skipped_by
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    format!(
        "{} event(s) read ({} skipped{})",
        read.events,
        read.skipped,
        if why.is_empty() {
            String::new()
        } else {
            format!(": {}", why.join(", "))
        }
    )
}

fn cause_text(it: &Item, wide: bool) -> String {
    if it.action == "gc-start" {
        // The row of a start: what it says (the release), and what a start means.
        return it
            .evidence
            .first()
            .and_then(|e| e.says.clone())
            .unwrap_or_else(|| "the garbage collector started".to_owned());
    }
    let Some(c) = &it.cause else {
        return "-".to_owned();
    };
    let mut s = c.type_.to_owned();
    if let Some(o) = &c.owner {
        s.push_str(&format!(" {}", o.display()));
    }
    if c.policy != "unknown" {
        s.push_str(&format!(" ({})", c.policy));
    }
    match &c.root {
        Some(r) => s.push_str(&format!(
            " ← {} {} by {}{}",
            r.action,
            r.object.display(),
            r.who(),
            if wide {
                format!(" at {}", r.time)
            } else {
                String::new()
            }
        )),
        None => s.push_str(" ← root not in the inputs"),
    }
    if let Some(ms) = it.after_gc_start_ms {
        s.push_str(&format!(
            " · {}.{:03}s after a GC start",
            ms / 1000,
            ms % 1000
        ));
    }
    if wide {
        s.push_str(&format!(" — {}", c.detail));
    }
    s
}

/// The sources that show a row (`PROVEN BY`): the audit log, the controller manager's log, an
/// Event, the watch journal.
fn proven_by(it: &Item) -> String {
    let mut names: Vec<&str> = it
        .evidence
        .iter()
        .map(|e| match e.source {
            "controller-manager-log" => "kcm-log",
            other => other,
        })
        .collect();
    names.dedup();
    if names.is_empty() {
        "audit-log".to_owned()
    } else {
        names.join("+")
    }
}

/// Writes the table (`wide`: full causes, user agents and sources). `logged`: the actions in
/// the log before -n, --kind, --actor, -l, --since and --until chose those of `h`.
pub fn table(
    w: &mut dyn Write,
    h: &History,
    read: &Read,
    logged: usize,
    wide: bool,
    styles: Styles,
) -> std::io::Result<()> {
    let unexplained: Vec<&Item> = h
        .items
        .iter()
        .filter(|i| i.cause.as_ref().is_some_and(|c| c.type_ == "unexplained"))
        .collect();
    if !unexplained.is_empty() {
        let head = format!(
            "{} GC action(s) nothing in the inputs accounts for:",
            unexplained.len()
        );
        if styles.color {
            writeln!(w, "{}", head.red().bold())?;
        } else {
            writeln!(w, "{head}")?;
        }
        for it in &unexplained {
            writeln!(
                w,
                "  {} {} {} — {}",
                it.time,
                it.action,
                sanitize(&it.object.display()),
                sanitize(it.cause.as_ref().map_or("", |c| c.detail.as_str()))
            )?;
        }
        writeln!(w)?;
    }
    let mut t = super::table(styles);
    let mut header = vec!["TIME", "ACTOR", "ACTION", "OBJECT", "CAUSE"];
    // With a state after the log (--after): what became of each object.
    let after = h.items.iter().any(|it| it.after.is_some());
    if after {
        header.push("AFTER");
    }
    // Identical retries, collapsed: how many and until when.
    let repeated = h.items.iter().any(|it| it.count > 1);
    if repeated {
        header.push("REPEATED");
    }
    // Sources besides the audit log: which of them show each row.
    let proven = h
        .items
        .iter()
        .any(|it| it.evidence.iter().any(|e| e.source != "audit-log"));
    if proven {
        header.push("PROVEN BY");
    }
    if wide {
        header.extend(["USER", "SOURCE"]);
    }
    t.set_header(header);
    super::pad_columns(&mut t);
    for it in &h.items {
        let mut row = vec![
            it.time.clone(),
            it.actor.kind.to_owned(),
            it.action.to_owned(),
            sanitize(&it.object.display()).into_owned(),
            sanitize(&cause_text(it, wide)).into_owned(),
        ];
        if after {
            row.push(it.after.unwrap_or("-").to_owned());
        }
        if repeated {
            row.push(match &it.last {
                Some(last) if it.count > 1 => format!("×{} until {last}", it.count),
                _ => "-".to_owned(),
            });
        }
        if proven {
            row.push(proven_by(it));
        }
        if wide {
            row.push(sanitize(&it.actor.display()).into_owned());
            row.push(sanitize(&it.source).into_owned());
        }
        t.add_row(row);
    }
    if h.items.is_empty() && logged > 0 {
        writeln!(
            w,
            "None of the {logged} action(s) in the log matches the filters."
        )?;
    } else if h.items.is_empty() {
        writeln!(
            w,
            "No deletions, reference or finalizer removals in the log."
        )?;
    } else {
        super::write_table(w, &t)?;
    }
    taken(w, h, wide)?;
    unlogged(w, h, wide)?;
    writeln!(w)?;
    let s = &h.summary;
    let actors: Vec<String> = s
        .by_actor
        .iter()
        .map(|(k, n)| format!("{n} by {k}"))
        .collect();
    let window = match (&s.from, &s.to) {
        (Some(f), Some(t)) => format!(" · log window {f} – {t}"),
        _ => String::new(),
    };
    let actions: usize = h.items.iter().map(|it| it.count).sum();
    writeln!(
        w,
        "{actions} action(s){}{}{} · {} unexplained",
        if actions == h.items.len() {
            String::new()
        } else {
            format!(" in {} row(s)", h.items.len())
        },
        if actors.is_empty() {
            String::new()
        } else {
            format!(" ({})", actors.join(", "))
        },
        window,
        s.unexplained
    )?;
    writeln!(w, "{}", read_line(read))?;
    for n in &s.notes {
        writeln!(w, "note: {}", sanitize(n))?;
    }
    Ok(())
}

/// What each collection deletion took of the state before, with how sure. The table shows
/// the first 20 of each unless `wide`.
fn taken(w: &mut dyn Write, h: &History, wide: bool) -> std::io::Result<()> {
    let limit = if wide { usize::MAX } else { 20 };
    for it in h.items.iter().filter(|it| !it.taken.is_empty()) {
        writeln!(
            w,
            "\n{} {} by {} at {} took {} object(s) of the state before:",
            it.action,
            sanitize(&it.object.display()),
            sanitize(&it.actor.display()),
            it.time,
            it.taken.len()
        )?;
        for t in it.taken.iter().take(limit) {
            writeln!(w, "  {} ({})", sanitize(&t.object.display()), t.sure)?;
        }
        if it.taken.len() > limit {
            writeln!(
                w,
                "  … {} more (-o wide or -o json lists all)",
                it.taken.len() - limit
            )?;
        }
    }
    Ok(())
}

/// Objects gone between the states before and after without a deletion of their own in the
/// log: by collection (how a namespace's content goes), else unaccounted for. The table shows
/// the first 20 of each unless `wide`.
fn unlogged(w: &mut dyn Write, h: &History, wide: bool) -> std::io::Result<()> {
    if h.unlogged.is_empty() {
        return Ok(());
    }
    let (by_collection, other): (Vec<_>, Vec<_>) =
        h.unlogged.iter().partition(|u| u.collection.is_some());
    let limit = if wide { usize::MAX } else { 20 };
    if !other.is_empty() {
        writeln!(
            w,
            "\n{} object(s) gone with no deletion in the log (a gap in it, or outside its window):",
            other.len()
        )?;
        for u in other.iter().take(limit) {
            writeln!(w, "  {}", sanitize(&u.object.display()))?;
        }
        if other.len() > limit {
            writeln!(
                w,
                "  … {} more (-o wide or -o json lists all)",
                other.len() - limit
            )?;
        }
    }
    if !by_collection.is_empty() {
        writeln!(
            w,
            "\n{} object(s) deleted with their collection (deletecollection names none; the \
             states before and after do):",
            by_collection.len()
        )?;
        for u in by_collection.iter().take(limit) {
            let c = u.collection.as_ref().expect("partitioned on collection");
            writeln!(
                w,
                "  {} — {} {} by {} at {}",
                sanitize(&u.object.display()),
                c.action,
                sanitize(&c.object.display()),
                sanitize(&c.who()),
                c.time
            )?;
        }
        if by_collection.len() > limit {
            writeln!(
                w,
                "  … {} more (-o wide or -o json lists all)",
                by_collection.len() - limit
            )?;
        }
    }
    Ok(())
}

/// `why KIND/NAME --audit-log` for an object that is gone: what the log says happened to it,
/// last action first, each with its cause and chain.
pub fn gone(w: &mut dyn Write, items: &[&Item], styles: Styles) -> std::io::Result<()> {
    let Some(last) = items.last() else {
        return Ok(());
    };
    let who = match last.actor.kind {
        "garbage-collector" => "by the garbage collector".to_owned(),
        "namespace-controller" => "by the namespace controller".to_owned(),
        _ => format!("by {}", last.actor.display()),
    };
    // The object as every command spells it, not as it was typed (`cm/x`).
    let head = format!(
        "{} is gone: {} at {} {who}",
        last.object.display(),
        match last.action {
            "delete" => "deleted",
            "delete-collection" => "deleted with its collection",
            other => other,
        },
        last.time
    );
    if styles.color {
        writeln!(w, "{}", sanitize(&head).bold())?;
    } else {
        writeln!(w, "{}", sanitize(&head))?;
    }
    writeln!(w)?;
    for it in items.iter().rev() {
        writeln!(
            w,
            "- {} {} {} by {} ({})",
            it.time,
            it.action,
            sanitize(&it.object.display()),
            sanitize(&it.actor.display()),
            it.actor.kind
        )?;
        if let Some(c) = &it.cause {
            writeln!(w, "  - cause: {} — {}", c.type_, sanitize(&c.detail))?;
            match &c.root {
                Some(r) => writeln!(
                    w,
                    "  - chain started by: {} {} by {} at {}",
                    r.action,
                    sanitize(&r.object.display()),
                    sanitize(&r.who()),
                    r.time
                )?,
                None => writeln!(w, "  - chain started by: not in the inputs")?,
            }
        }
        writeln!(w, "  - read from {}", sanitize(&it.source))?;
    }
    Ok(())
}

/// After [`gone`] for an object the state given still holds: what follows is the answer of
/// that state, from before the deletion.
pub fn before_deletion(w: &mut dyn Write, captured_at: &str) -> std::io::Result<()> {
    writeln!(w)?;
    if captured_at.is_empty() {
        writeln!(w, "In the state given, before that deletion:")
    } else {
        writeln!(
            w,
            "In the state given (captured at {}), before that deletion:",
            sanitize(captured_at)
        )
    }?;
    writeln!(w)
}

/// After the answer for an object the state given holds: the log deletes an object of its name
/// at `time`, and nothing tells whether that came before or after the state.
pub fn unplaced_deletion(w: &mut dyn Write, time: &str) -> std::io::Result<()> {
    writeln!(
        w,
        "\nnote: the audit log shows an object of this name deleted at {}; the log names no UID \
         and the state given no exact capture time, so whether that was this object, after this \
         state, cannot be told",
        sanitize(time)
    )
}

/// A time axis label: `offset_us` microseconds after the window's first action, in the
/// largest unit that keeps it short (`+0s`, `+6.2s`, `+4m`, `+3h`).
fn offset_label(offset_us: i64) -> String {
    let s = offset_us as f64 / 1e6;
    if s < 10.0 {
        format!("+{}s", (s * 10.0).round() / 10.0)
    } else if s < 120.0 {
        format!("+{}s", s.round())
    } else if s < 7200.0 {
        format!("+{}m", (s / 60.0).round())
    } else if s < 172_800.0 {
        format!("+{}h", (s / 3600.0).round())
    } else {
        format!("+{}d", (s / 86400.0).round())
    }
}

/// `-o html`: one self-contained page (no script, no external resource) with the timeline as a
/// picture — a lane per actor, a mark per action (unexplained GC actions red), a line from each
/// GC or namespace-controller action back to the root of its chain — then every action as a
/// table. Every string is XML-escaped.
pub fn html(w: &mut dyn Write, h: &History, read: &Read) -> std::io::Result<()> {
    use super::escape::xml;
    const LANES: [&str; 4] = [
        "user",
        "controller",
        "garbage-collector",
        "namespace-controller",
    ];
    const LEFT: f64 = 170.0;
    const WIDTH: f64 = 900.0;
    const LANE: f64 = 40.0;
    let (from, to) = match (h.items.first(), h.items.last()) {
        (Some(a), Some(b)) => (a.time_us, b.time_us.max(a.time_us + 1)),
        _ => (0, 1),
    };
    let x = |t: i64| LEFT + (t - from) as f64 / (to - from) as f64 * (WIDTH - LEFT - 20.0);
    let y = |kind: &str| 30.0 + LANE * LANES.iter().position(|k| *k == kind).unwrap_or(0) as f64;
    // The audit report's look, so the two pages read as one product.
    write!(
        w,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <title>kubectl-gc history</title>\n<style>{}\
         .unexplained {{ color: #b42318; font-weight: 600; }}\n\
         td.time {{ white-space: nowrap; }}\n\
         svg.timeline {{ max-width: 100%; height: auto; font-size: 12px; }}\n\
         svg.timeline text.tick, svg.timeline text.mark {{ fill: #59636e; }}\n\
         </style>\n</head>\n<body>\n<h1>GC history</h1>\n",
        super::html::CSS
    )?;
    let s = &h.summary;
    writeln!(
        w,
        "<p>{} action(s), {} unexplained{}.</p>",
        h.items.iter().map(|it| it.count).sum::<usize>(),
        s.unexplained,
        match (&s.from, &s.to) {
            (Some(f), Some(t)) => format!(" · log window {} – {}", xml(f), xml(t)),
            _ => String::new(),
        }
    )?;
    writeln!(w, "<p>{}.</p>", xml(&read_line(read)))?;
    for n in &s.notes {
        writeln!(w, "<p>note: {}</p>", xml(n))?;
    }
    let axis = 10.0 + LANE * LANES.len() as f64;
    let height = axis + 36.0;
    writeln!(
        w,
        "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" \
         height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"timeline\">"
    )?;
    // The time axis: ticks at even fractions of the window, labelled with the time since its
    // first action (named under the axis), so a reader can tell when each mark happened.
    writeln!(
        w,
        "<line class=\"axis\" x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{axis:.1}\" y2=\"{axis:.1}\" stroke=\"#59636e\"/>",
        x(to)
    )?;
    for i in 0..=4 {
        let t = from + (to - from) * i / 4;
        writeln!(
            w,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{axis:.1}\" y2=\"{1:.1}\" stroke=\"#59636e\"/>\
             <text class=\"tick\" x=\"{0:.1}\" y=\"{2:.1}\" text-anchor=\"middle\">{3}</text>",
            x(t),
            axis + 4.0,
            axis + 16.0,
            offset_label(t - from)
        )?;
    }
    if let Some(first) = h.items.first() {
        writeln!(
            w,
            "<text class=\"tick\" x=\"{LEFT}\" y=\"{:.1}\">time since {}</text>",
            axis + 32.0,
            xml(&first.time)
        )?;
    }
    for lane in LANES {
        writeln!(
            w,
            "<text x=\"4\" y=\"{:.1}\" font-size=\"12\">{lane}</text>\
             <line class=\"lane\" x1=\"{LEFT}\" x2=\"{WIDTH}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>",
            y(lane) + 4.0,
            y(lane),
            y(lane)
        )?;
    }
    // Causal lines first, under the marks: each GC/namespace-controller action to its root.
    for it in &h.items {
        let Some(root) = it.cause.as_ref().and_then(|c| c.root.as_ref()) else {
            continue;
        };
        let Some(r) = h
            .items
            .iter()
            .find(|r| r.time == root.time && r.object == root.object && r.action == root.action)
        else {
            continue;
        };
        writeln!(
            w,
            "<line class=\"cause\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" \
             stroke=\"#999\" stroke-dasharray=\"3,3\"/>",
            x(r.time_us),
            y(r.actor.kind),
            x(it.time_us),
            y(it.actor.kind)
        )?;
    }
    for it in &h.items {
        let unexplained = it.cause.as_ref().is_some_and(|c| c.type_ == "unexplained");
        writeln!(
            w,
            "<circle class=\"action{}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"{}\">\
             <title>{} {} {} — {}</title></circle>",
            if unexplained { " unexplained" } else { "" },
            x(it.time_us),
            y(it.actor.kind),
            if unexplained {
                "#b00"
            } else if it.actor.kind == "garbage-collector" {
                "#36c"
            } else {
                "#555"
            },
            xml(&it.time),
            it.action,
            xml(&it.object.display()),
            xml(&cause_text(it, true))
        )?;
    }
    // Few marks: each labelled with its object, beside the mark (many would overlap; their
    // titles and the table below name them all).
    if h.items.len() <= 12 {
        for it in &h.items {
            writeln!(
                w,
                "<text class=\"mark\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{}\">{}</text>",
                x(it.time_us),
                y(it.actor.kind) - 9.0,
                if x(it.time_us) > WIDTH / 2.0 {
                    "end"
                } else {
                    "start"
                },
                xml(&it.object.display())
            )?;
        }
    }
    writeln!(w, "</svg>")?;
    writeln!(
        w,
        "<table>\n<tr><th>time</th><th>actor</th><th>action</th><th>object</th><th>cause</th><th>user</th></tr>"
    )?;
    for it in &h.items {
        let unexplained = it.cause.as_ref().is_some_and(|c| c.type_ == "unexplained");
        writeln!(
            w,
            "<tr{}><td class=\"time mono\">{}</td><td>{}</td><td>{}</td><td class=\"mono\">{}</td><td>{}</td><td>{}</td></tr>",
            if unexplained {
                " class=\"unexplained\""
            } else {
                ""
            },
            xml(&it.time),
            it.actor.kind,
            match &it.last {
                Some(last) if it.count > 1 =>
                    format!("{} ×{} until {}", it.action, it.count, xml(last)),
                _ => it.action.to_owned(),
            },
            xml(&it.object.display()),
            xml(&cause_text(it, true)),
            xml(&it.actor.display())
        )?;
    }
    writeln!(w, "</table>")?;
    if !h.unlogged.is_empty() {
        writeln!(
            w,
            "<h2>Gone without a deletion of their own in the log</h2>\n<ul>"
        )?;
        for u in &h.unlogged {
            match &u.collection {
                Some(c) => writeln!(
                    w,
                    "<li>{} — {} {} by {} at {}</li>",
                    xml(&u.object.display()),
                    c.action,
                    xml(&c.object.display()),
                    xml(&c.who()),
                    xml(&c.time)
                )?,
                None => writeln!(
                    w,
                    "<li>{} — no deletion in the log</li>",
                    xml(&u.object.display())
                )?,
            }
        }
        writeln!(w, "</ul>")?;
    }
    writeln!(w, "</body>\n</html>")
}
