//! `kubectl gc history`: the actions of an audit log as a table for people (unexplained GC
//! deletions first, then everything in time order, each GC or namespace-controller action with
//! its cause and the action at the start of its chain), and the `History` JSON/YAML document.
//!
//! Every string came from an audit log anyone may have written: the table prints each through
//! [`sanitize`].

use super::Styles;
use super::text::sanitize;
use crate::build_info::REPORT_API_VERSION;
use crate::diagnose::history::{
    ActorKind, Answer, History, Item, Read, Spelt, Summary, Unlogged, Verb,
};
use owo_colors::OwoColorize;
use std::io::Write;

mod sources;

/// The first records that could not be read, as warnings (`warning: file:line: cause`), and
/// how many more.
pub fn warnings(w: &mut dyn Write, a: &Answer) -> std::io::Result<()> {
    for p in a.problems.iter().take(crate::error::SHOWN_PROBLEMS) {
        writeln!(
            w,
            "warning: {}:{}: {}",
            sanitize(&p.position.source),
            p.position.line,
            sanitize(&p.cause)
        )?;
    }
    for p in &a.conflicts {
        writeln!(
            w,
            "warning: {}:{}: {}",
            sanitize(&p.position.source),
            p.position.line,
            sanitize(&p.cause)
        )?;
    }
    let shown = a.problems.len().min(crate::error::SHOWN_PROBLEMS) as u64;
    if a.unreadable > shown {
        writeln!(
            w,
            "warning: … {} more unreadable record(s)",
            a.unreadable - shown
        )?;
    }
    sources::warnings(w, a)
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
    unlogged: &'h [Unlogged],
    summary: &'h Summary,
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

/// `why --audit-log`'s document of an object the log shows deleted: `{"apiVersion", "kind":
/// "History", "items": […], "summary": {…}}` (the actions on that object, the whole history's
/// summary).
#[derive(serde::Serialize)]
pub struct Story<'h> {
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    kind: &'static str,
    items: &'h [Item],
    summary: &'h Summary,
}

/// The [`Story`] of `items`.
pub fn story<'h>(items: &'h [Item], summary: &'h Summary) -> Story<'h> {
    Story {
        api_version: REPORT_API_VERSION,
        kind: "History",
        items,
        summary,
    }
}

/// What was read: of the audit log (`N event(s) from M record(s) (K skipped: …)`: what of
/// it gave no event), of the controller manager's log.
fn read_line(read: &Read) -> String {
    match (sources::log_line(read), read.records) {
        (Some(l), 0) => l,
        (Some(l), _) => format!("{}; {l}", audit_read_line(read)),
        (None, _) => audit_read_line(read),
    }
}

fn audit_read_line(read: &Read) -> String {
    let why: Vec<String> = read
        .skipped_by
        .iter()
        .map(|(k, n)| format!("{n} {}", k.replace('-', " ")))
        .collect();
    format!(
        "{} event(s) from {} record(s) ({} skipped{})",
        read.events,
        read.records,
        read.skipped,
        if why.is_empty() {
            String::new()
        } else {
            format!(": {}", why.join(", "))
        }
    )
}

/// The object of a row: a namespace's content names the resources it stands for.
fn object_text(it: &Item) -> String {
    if it.action == Verb::GcStart {
        return "-".to_owned();
    }
    match it.resources.len() {
        0 => it.object.display(),
        n => format!("{} ({n} resources)", it.object.display()),
    }
}

fn cause_text(it: &Item, wide: bool) -> String {
    if let Some(s) = sources::start_text(it) {
        return s;
    }
    let Some(c) = &it.cause else {
        return "-".to_owned();
    };
    let mut s = c.type_.as_str().to_owned();
    if let Some(o) = &c.owner {
        s.push_str(&format!(" {}", o.display()));
    }
    match (c.policy.as_str(), c.policy_inferred) {
        ("unknown", _) => {}
        (p, true) => s.push_str(&format!(" ({p}, inferred)")),
        (p, false) => s.push_str(&format!(" ({p})")),
    }
    match &c.root {
        Some(r) => s.push_str(&format!(
            " ← {} {} by {}{}",
            r.action.as_str(),
            r.object.display(),
            r.who(),
            if wide {
                format!(" at {}", r.time)
            } else {
                String::new()
            }
        )),
        // A reference that could never reach its owner: no action of anyone started it.
        None if c.rootless() => s.push_str(" ← no action: the reference was broken"),
        None => s.push_str(" ← root not in the inputs"),
    }
    s.push_str(&sources::after_start(it));
    if wide {
        s.push_str(&format!(" — {}", c.detail));
    }
    s
}

/// The GC actions nothing accounts for, above the table.
fn unexplained_first(w: &mut dyn Write, h: &History, styles: Styles) -> std::io::Result<()> {
    let unexplained: Vec<&Item> = h.items.iter().filter(|i| i.unexplained()).collect();
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
                it.action.as_str(),
                sanitize(&object_text(it)),
                sanitize(it.cause.as_ref().map_or("", |c| c.detail.as_str()))
            )?;
        }
        writeln!(w)?;
    }
    Ok(())
}

/// The counts, the read line and the notes under the table.
fn summary_lines(w: &mut dyn Write, h: &History, read: &Read) -> std::io::Result<()> {
    let s = &h.summary;
    let actors: Vec<String> = s
        .by_actor
        .iter()
        .map(|(k, n)| format!("{n} by {}", k.as_str()))
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

/// Writes the table (`wide`: full causes, user agents and sources).
pub fn table(
    w: &mut dyn Write,
    h: &History,
    read: &Read,
    wide: bool,
    styles: Styles,
) -> std::io::Result<()> {
    let logged = h.summary.logged;
    unexplained_first(w, h, styles)?;
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
    let proven = sources::other_sources(&h.items);
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
            it.actor.kind.as_str().to_owned(),
            it.action.as_str().to_owned(),
            sanitize(&object_text(it)).into_owned(),
            sanitize(&cause_text(it, wide)).into_owned(),
        ];
        if after {
            row.push(it.after.map_or("-", |f| f.as_str()).to_owned());
        }
        if repeated {
            row.push(match &it.last {
                Some(last) if it.count > 1 => format!("×{} until {last}", it.count),
                _ => "-".to_owned(),
            });
        }
        if proven {
            row.push(sources::proven_by(it));
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
    summary_lines(w, h, read)
}

/// What each collection deletion took of the state before, with how sure. The table shows
/// the first 20 of each unless `wide`.
fn taken(w: &mut dyn Write, h: &History, wide: bool) -> std::io::Result<()> {
    let limit = if wide { usize::MAX } else { 20 };
    for it in h.items.iter().filter(|it| !it.taken.is_empty()) {
        writeln!(
            w,
            "\n{} {} by {} at {} took {} object(s) of the state before:",
            it.action.as_str(),
            sanitize(&object_text(it)),
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
                c.action.as_str(),
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
pub fn gone(w: &mut dyn Write, items: &[Item], styles: Styles) -> std::io::Result<()> {
    let Some(last) = items.last() else {
        return Ok(());
    };
    let who = match last.actor.kind {
        ActorKind::GarbageCollector => "by the garbage collector".to_owned(),
        ActorKind::NamespaceController => "by the namespace controller".to_owned(),
        _ => format!("by {}", last.actor.display()),
    };
    // The object as every command spells it, not as it was typed (`cm/x`).
    let head = format!(
        "{} is gone: {} at {} {who}",
        last.object.display(),
        match last.action {
            Verb::Delete => "deleted",
            Verb::DeleteCollection => "deleted with its collection",
            other => other.as_str(),
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
            it.action.as_str(),
            sanitize(&it.object.display()),
            sanitize(&it.actor.display()),
            it.actor.kind.as_str()
        )?;
        if let Some(c) = &it.cause {
            writeln!(
                w,
                "  - cause: {} — {}",
                c.type_.as_str(),
                sanitize(&c.detail)
            )?;
            match &c.root {
                Some(r) => writeln!(
                    w,
                    "  - chain started by: {} {} by {} at {}",
                    r.action.as_str(),
                    sanitize(&r.object.display()),
                    sanitize(&r.who()),
                    r.time
                )?,
                None if c.rootless() => writeln!(
                    w,
                    "  - chain started by: no action (the reference was broken)"
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

/// The timeline's lanes, one per actor kind, top to bottom.
const LANES: [ActorKind; 4] = [
    ActorKind::User,
    ActorKind::Controller,
    ActorKind::GarbageCollector,
    ActorKind::NamespaceController,
];
const LEFT: f64 = 170.0;
const WIDTH: f64 = 900.0;
const LANE: f64 = 40.0;

/// Where the timeline puts a time and an actor.
struct Axes {
    from: i64,
    to: i64,
}

impl Axes {
    fn of(h: &History) -> Axes {
        match (h.items.first(), h.items.last()) {
            (Some(a), Some(b)) => Axes {
                from: a.time_us,
                to: b.time_us.max(a.time_us + 1),
            },
            _ => Axes { from: 0, to: 1 },
        }
    }

    fn x(&self, t: i64) -> f64 {
        LEFT + (t - self.from) as f64 / (self.to - self.from) as f64 * (WIDTH - LEFT - 20.0)
    }

    fn y(&self, kind: ActorKind) -> f64 {
        30.0 + LANE * LANES.iter().position(|k| *k == kind).unwrap_or(0) as f64
    }
}

/// `-o html`: one self-contained page (no script, no external resource) with the timeline as a
/// picture — a lane per actor, a mark per action (unexplained GC actions red), a line from each
/// GC or namespace-controller action back to the root of its chain — then every action as a
/// table. Every string is XML-escaped.
pub fn html(w: &mut dyn Write, h: &History, read: &Read) -> std::io::Result<()> {
    html_head(w, h, read)?;
    timeline(w, h)?;
    html_rows(w, h)?;
    html_unlogged(w, h)?;
    writeln!(w, "</body>\n</html>")
}

/// The page's head, title, counts and notes.
fn html_head(w: &mut dyn Write, h: &History, read: &Read) -> std::io::Result<()> {
    use super::escape::xml;
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
    Ok(())
}

/// The timeline picture: axis, lanes, causal lines, marks.
fn timeline(w: &mut dyn Write, h: &History) -> std::io::Result<()> {
    let ax = Axes::of(h);
    let axis = 10.0 + LANE * LANES.len() as f64;
    let height = axis + 36.0;
    writeln!(
        w,
        "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" \
         height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"timeline\">"
    )?;
    time_axis(w, h, &ax, axis)?;
    for lane in LANES {
        writeln!(
            w,
            "<text x=\"4\" y=\"{:.1}\" font-size=\"12\">{}</text>\
             <line class=\"lane\" x1=\"{LEFT}\" x2=\"{WIDTH}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>",
            ax.y(lane) + 4.0,
            lane.as_str(),
            ax.y(lane),
            ax.y(lane)
        )?;
    }
    causal_lines(w, h, &ax)?;
    marks(w, h, &ax)?;
    writeln!(w, "</svg>")
}

/// The time axis: ticks at even fractions of the window, labelled with the time since its
/// first action (named under the axis), so a reader can tell when each mark happened.
fn time_axis(w: &mut dyn Write, h: &History, ax: &Axes, axis: f64) -> std::io::Result<()> {
    use super::escape::xml;
    writeln!(
        w,
        "<line class=\"axis\" x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{axis:.1}\" y2=\"{axis:.1}\" stroke=\"#59636e\"/>",
        ax.x(ax.to)
    )?;
    for i in 0..=4 {
        let t = ax.from + (ax.to - ax.from) * i / 4;
        writeln!(
            w,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{axis:.1}\" y2=\"{1:.1}\" stroke=\"#59636e\"/>\
             <text class=\"tick\" x=\"{0:.1}\" y=\"{2:.1}\" text-anchor=\"middle\">{3}</text>",
            ax.x(t),
            axis + 4.0,
            axis + 16.0,
            offset_label(t - ax.from)
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
    Ok(())
}

/// Causal lines, under the marks: each GC/namespace-controller action to its root.
fn causal_lines(w: &mut dyn Write, h: &History, ax: &Axes) -> std::io::Result<()> {
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
            ax.x(r.time_us),
            ax.y(r.actor.kind),
            ax.x(it.time_us),
            ax.y(it.actor.kind)
        )?;
    }
    Ok(())
}

/// A mark per action; with few marks, each labelled with its object beside it (many would
/// overlap; their titles and the table below name them all).
fn marks(w: &mut dyn Write, h: &History, ax: &Axes) -> std::io::Result<()> {
    use super::escape::xml;
    for it in &h.items {
        let unexplained = it.unexplained();
        writeln!(
            w,
            "<circle class=\"action{}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"{}\">\
             <title>{} {} {} — {}</title></circle>",
            if unexplained { " unexplained" } else { "" },
            ax.x(it.time_us),
            ax.y(it.actor.kind),
            if unexplained {
                "#b00"
            } else if it.actor.kind == ActorKind::GarbageCollector {
                "#36c"
            } else {
                "#555"
            },
            xml(&it.time),
            it.action.as_str(),
            xml(&object_text(it)),
            xml(&cause_text(it, true))
        )?;
    }
    if h.items.len() > 12 {
        return Ok(());
    }
    for it in &h.items {
        let x = ax.x(it.time_us);
        writeln!(
            w,
            "<text class=\"mark\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"{}\">{}</text>",
            ax.y(it.actor.kind) - 9.0,
            if x > WIDTH / 2.0 { "end" } else { "start" },
            xml(&object_text(it))
        )?;
    }
    Ok(())
}

/// Every action as a table row.
fn html_rows(w: &mut dyn Write, h: &History) -> std::io::Result<()> {
    use super::escape::xml;
    writeln!(
        w,
        "<table>\n<tr><th>time</th><th>actor</th><th>action</th><th>object</th><th>cause</th><th>user</th></tr>"
    )?;
    for it in &h.items {
        writeln!(
            w,
            "<tr{}><td class=\"time mono\">{}</td><td>{}</td><td>{}</td><td class=\"mono\">{}</td><td>{}</td><td>{}</td></tr>",
            if it.unexplained() {
                " class=\"unexplained\""
            } else {
                ""
            },
            xml(&it.time),
            it.actor.kind.as_str(),
            match &it.last {
                Some(last) if it.count > 1 =>
                    format!("{} ×{} until {}", it.action.as_str(), it.count, xml(last)),
                _ => it.action.as_str().to_owned(),
            },
            xml(&object_text(it)),
            xml(&cause_text(it, true)),
            xml(&it.actor.display())
        )?;
    }
    writeln!(w, "</table>")
}

/// Objects gone without a deletion of their own in the log.
fn html_unlogged(w: &mut dyn Write, h: &History) -> std::io::Result<()> {
    use super::escape::xml;
    if h.unlogged.is_empty() {
        return Ok(());
    }
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
                c.action.as_str(),
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
    writeln!(w, "</ul>")
}
