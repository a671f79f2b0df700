//! Reading audit logs: every input recognised by its content, record by record.
//!
//! | format | recognised by |
//! |---|---|
//! | gzip, xz, zstd; tar, zip | magic bytes (`crate::input::walk`), then the content inside |
//! | JSON lines of Events (`--audit-log-path`) | `apiVersion: audit.k8s.io/…`, or no apiVersion and an `auditID`/`stage` |
//! | `EventList` (webhook batches) | `items` with `kind: EventList` or an `audit.k8s.io` apiVersion |
//! | EKS CloudWatch | `message`/`@message` (the Event as a string); `{"events":[…]}` of `aws logs filter-log-events` |
//! | GKE Cloud Logging | `protoPayload` (`gke.rs`) |
//! | AKS diagnostic logs | `category: kube-audit[-admin]` / `properties.log` (the Event as a string); `{"records":[…]}` |
//! | any of these as YAML documents (`gcloud logging read`) | a first line that is YAML, not JSON (`yaml.rs`) |
//!
//! Each line is a record (JSON lines; formats may be mixed line by line), parsed with serde
//! into borrowed structs ([`records`]). A line whose JSON does not end on it starts a
//! document that spans lines (a pretty-printed export): it is scanned by structure, and
//! arrays, `items`, `records` and `events` are streamed element by element, so memory stays
//! bounded by the largest record, never by the input (`document.rs`). Past the first records,
//! JSON lines are parsed in blocks on several threads and replayed in input order
//! (`parallel.rs`). An input whose first line is YAML is read as YAML documents, each turned
//! into JSON and read as a record (`yaml.rs`: `gcloud logging read`'s default output).

mod document;
mod gke;
pub(super) mod inputs;
mod parallel;
mod records;
mod scan;
mod yaml;

use super::{AuditEvent, Position, Problem, ReadStats};
use document::document;
use parallel::parallel_lines;
use records::{Built, Record, Shape, Str};
use scan::{Buf, LineEnd, MAX_RECORD};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::io::{self, Read};
#[cfg(test)]
pub(super) use {gke::http_code, records::parse_time_us, scan::close_truncated};

/// Problems kept in [`ReadStats::problems`]; the rest are counted.
const MAX_PROBLEMS: usize = 1000;
/// Names kept in [`ReadStats::skipped_inputs`].
const MAX_SKIPPED: usize = 1000;
/// An input none of whose first records is an audit record is not read further.
const GIVE_UP_AFTER: u64 = 1000;

/// How JSON lines are read on several threads (see [`parallel_lines`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Parallel {
    /// Threads that parse blocks (below 2: everything is read on the calling thread).
    pub workers: usize,
    /// Records an input is read line by line before it goes parallel.
    pub after: u64,
    /// Bytes per block.
    pub block: usize,
}

impl Default for Parallel {
    fn default() -> Self {
        // Asked once: on Linux the answer reads cgroup files, a cost per block otherwise.
        static WORKERS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        Parallel {
            workers: *WORKERS
                .get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4))),
            after: 256,
            block: 1 << 20,
        }
    }
}

/// An event read, as the counts need it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Seen {
    pub time_us: i64,
    /// [`records::request_key`]: the same key is the same request read again.
    pub key: u64,
    pub level: super::Level,
    /// Read with a problem (a field cut): the problem does not stand for a lost record.
    pub partial: bool,
    /// [`who_key`] of the event: the same request read again must have it too.
    pub who: u64,
    /// Where it was read in its input.
    pub line: u64,
}

/// Who made a request and how it was answered, hashed: two copies of one request that differ
/// in it contradict each other.
fn who_key(user: &str, code: u16) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    (user, code).hash(&mut h);
    h.finish()
}

/// Conflicting copies kept with where they were read.
const MAX_CONFLICTS: usize = 20;

/// [`records::request_key`] of an event built, with its object (GKE has no URI).
fn event_key(e: &AuditEvent) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    records::request_key(&e.audit_id, e.time_us, &e.verb, &e.request_uri).hash(&mut h);
    if let Some(o) = &e.object {
        (
            &o.api_group,
            &o.resource,
            &o.subresource,
            &o.namespace,
            &o.name,
        )
            .hash(&mut h);
    }
    h.finish()
}

/// The reader's state across inputs.
pub(super) struct Ctx<'s> {
    sink: &'s mut dyn FnMut(AuditEvent),
    pub stats: ReadStats,
    /// The input being read.
    source: String,
    /// The latest event time seen in this input.
    input_max_us: Option<i64>,
    /// How JSON lines are read on several threads.
    pub parallel: Parallel,
    /// In a block parsed on another thread: the events seen, in order (the calling thread
    /// replays them: the window, out-of-order and duplicate counts are the whole read's).
    journal: Option<Vec<Seen>>,
    /// [`Seen::key`] of every event read, with its [`Seen::who`]: a request read again is a
    /// duplicate, or a conflicting copy when who made or answered it differs.
    requests: hashbrown::HashMap<u64, u64>,
    /// [`event_key`] of every event passed on (blocks parsed on other threads pass their
    /// events on before the calling thread knows which are duplicates: see [`Ctx::deliver`]).
    delivered: hashbrown::HashSet<u64>,
    /// [`super::AuditOptions::keep`].
    pub keep: Option<fn(&AuditEvent) -> bool>,
}

impl<'s> Ctx<'s> {
    pub fn new(sink: &'s mut dyn FnMut(AuditEvent)) -> Self {
        Ctx {
            sink,
            stats: ReadStats::default(),
            source: String::new(),
            input_max_us: None,
            parallel: Parallel::default(),
            journal: None,
            requests: hashbrown::HashMap::new(),
            delivered: hashbrown::HashSet::new(),
            keep: None,
        }
    }

    /// Keeps a problem (within [`MAX_PROBLEMS`]) or counts it.
    fn keep_problem(&mut self, p: Problem) {
        if self.stats.problems.len() >= MAX_PROBLEMS {
            self.stats.more_problems += 1;
        } else {
            self.stats.problems.push(p);
        }
    }

    /// Records a problem of input `source` (the message is made only if it is kept).
    pub fn problem_in(&mut self, source: &str, line: u64, cause: impl FnOnce() -> String) {
        // A block's problems are all kept: the calling thread applies the limit in order.
        if self.stats.problems.len() >= MAX_PROBLEMS && self.journal.is_none() {
            self.stats.more_problems += 1;
            return;
        }
        let cause = cause();
        let cause = match records::cut_at(&cause, 600) {
            c if c.len() < cause.len() => format!("{c}…"),
            _ => cause,
        };
        self.stats.problems.push(Problem {
            position: Position {
                source: source.to_owned(),
                line,
            },
            cause,
        });
    }

    fn problem(&mut self, line: u64, cause: impl FnOnce() -> String) {
        let source = std::mem::take(&mut self.source);
        self.problem_in(&source, line, cause);
        self.source = source;
    }

    /// An input that is not an audit log (met in a directory, archive or glob).
    pub fn skip_input(&mut self, name: &str) {
        if self.stats.skipped_inputs.len() < MAX_SKIPPED {
            self.stats.skipped_inputs.push(name.to_owned());
        }
    }

    fn count(&mut self, format: &'static str) {
        *self.stats.by_format.entry(format).or_default() += 1;
    }

    /// An event read (passed on or not): counted, its level and its time in the window,
    /// unless the same request was read before. False for such a duplicate (in a block
    /// parsed on another thread, where that is not known yet, always true: the calling
    /// thread drops the duplicates the block passes on, see [`Ctx::deliver`]).
    fn seen(&mut self, e: Seen) -> bool {
        if let Some(j) = &mut self.journal {
            j.push(e);
            return true;
        }
        let s = &mut self.stats;
        if e.partial {
            s.partial += 1;
        }
        match self.requests.entry(e.key) {
            hashbrown::hash_map::Entry::Occupied(first) => {
                if *first.get() == e.who {
                    s.duplicates += 1;
                } else {
                    s.conflicting += 1;
                    if s.conflicts.len() < MAX_CONFLICTS {
                        s.conflicts.push(Problem {
                            position: Position {
                                source: self.source.clone(),
                                line: e.line,
                            },
                            cause: "a copy of a request read before (the same auditID, time, \
                                    verb and URI) with another user or response status: skipped, \
                                    the first copy is kept"
                                .to_owned(),
                        });
                    }
                }
                return false;
            }
            hashbrown::hash_map::Entry::Vacant(v) => {
                v.insert(e.who);
            }
        }
        s.events += 1;
        *s.levels.entry(e.level).or_default() += 1;
        let t = e.time_us;
        s.first_us = Some(s.first_us.map_or(t, |f| f.min(t)));
        s.last_us = Some(s.last_us.map_or(t, |l| l.max(t)));
        match self.input_max_us {
            Some(m) if t < m => s.out_of_order += 1,
            _ => self.input_max_us = Some(t),
        }
        true
    }

    /// An event passed on.
    fn pass(&mut self, mut ev: AuditEvent, line: u64) {
        if self.keep.is_some_and(|keep| !keep(&ev)) {
            return;
        }
        ev.position = Position {
            source: self.source.clone(),
            line,
        };
        self.stats.passed += 1;
        self.deliver(ev);
    }

    /// Hands a passed event (counted in `passed`) to the sink, unless the same request was
    /// handed over before: then it is taken back from `passed`. On the calling thread only,
    /// in input order, so the first one read is the one kept, as line by line.
    pub fn deliver(&mut self, ev: AuditEvent) {
        if self.journal.is_some() || self.delivered.insert(event_key(&ev)) {
            (self.sink)(ev);
        } else {
            self.stats.passed = self.stats.passed.saturating_sub(1);
        }
    }
}

/// What reading one record gave.
enum Rec {
    /// An audit record (its events and problems are accounted for).
    Audit,
    /// A record of a known envelope that holds no audit event (counted in `other_records`).
    Other,
    /// Valid JSON, but not an audit record: why.
    NotAudit(String),
    /// A broken record: why.
    Bad(String),
    /// The JSON does not end where the record does.
    Incomplete,
}

/// Per input.
struct St {
    /// Met in a directory, archive or glob (not named by the user).
    walked: bool,
    /// Top-level records seen.
    records: u64,
    /// Records of a known format.
    known: u64,
    /// A record may span lines (until one such attempt fails).
    multi_ok: bool,
    /// Stop reading this input.
    stop: bool,
    /// Records read before the input may go parallel again.
    parallel_from: u64,
    /// A block on another thread: where a record that may span lines starts (the line and
    /// the byte offset in the block) — it stops there, and the caller reads on line by line.
    in_block: Option<Option<(u64, usize)>>,
}

/// Reads one decompressed input.
pub(super) fn read_text(ctx: &mut Ctx, name: &str, r: &mut dyn Read, walked: bool) {
    ctx.stats.inputs += 1;
    ctx.source = name.to_owned();
    ctx.input_max_us = None;
    let mut buf = Buf::new(r);
    let mut st = St {
        walked,
        records: 0,
        known: 0,
        multi_ok: true,
        stop: false,
        parallel_from: ctx.parallel.after,
        in_block: None,
    };
    let result = read_lines(ctx, &mut buf, &mut st);
    ctx.stats.bytes += buf.bytes;
    if let Err(e) = result {
        ctx.problem(buf.line, || {
            let cause = crate::input::read_error(&e);
            format!("{cause} (the rest of this input is lost)")
        });
    }
}

fn read_lines(ctx: &mut Ctx, buf: &mut Buf, st: &mut St) -> io::Result<()> {
    buf.fill()?;
    if buf.data().starts_with(b"\xEF\xBB\xBF") {
        buf.consume(3);
    }
    while !st.stop {
        if st.in_block.is_none()
            && !buf.failing()
            && ctx.parallel.workers > 1
            && st.known > 0
            && st.records >= st.parallel_from
        {
            if parallel_lines(ctx, buf, st)? {
                break;
            }
            // Back to line by line for at least one record.
            st.parallel_from = st.records + 1;
            continue;
        }
        if buf.skip_ws()?.is_none() {
            break;
        }
        let line = buf.line;
        match buf.line_end()? {
            LineEnd::Long => {
                if matches!(buf.data()[0], b'{' | b'[') && st.multi_ok {
                    if let Some(at) = &mut st.in_block {
                        *at = Some((line, buf.offset()));
                        break;
                    }
                    document(ctx, buf, st)?;
                } else {
                    let n = buf.discard_line()?;
                    st.records += 1;
                    ctx.stats.records += 1;
                    ctx.problem(line, || {
                        format!(
                            "a line of {n} bytes, longer than {} MiB: skipped",
                            MAX_RECORD >> 20
                        )
                    });
                }
            }
            LineEnd::Newline(len) | LineEnd::Eof(len) => {
                let text = &buf.data()[..len];
                if st.records == 0 && !matches!(text[0], b'{' | b'[') && yaml::looks_like_yaml(text)
                {
                    // In a directory or archive, only a YAML file that names audit fields
                    // early is read as one (a must-gather holds many other YAML files).
                    let audit_words: [&[u8]; 3] = [b"auditID", b"protoPayload", b"EventList"];
                    let data = buf.data();
                    if !st.walked
                        || audit_words
                            .iter()
                            .any(|w| memchr::memmem::find(data, w).is_some())
                    {
                        yaml::documents(ctx, buf, st)?;
                        break;
                    }
                }
                match one_line(ctx, st, text, line) {
                    Some(Rec::Incomplete) if st.multi_ok => {
                        if let Some(at) = &mut st.in_block {
                            *at = Some((line, buf.offset()));
                            break;
                        }
                        document(ctx, buf, st)?
                    }
                    Some(rec) => {
                        outcome(ctx, st, rec, line, None, true);
                        buf.consume_line(len);
                    }
                    None => buf.consume_line(len),
                }
            }
        }
    }
    Ok(())
}

/// One line of JSON lines; `None` when it was fully handled.
fn one_line(ctx: &mut Ctx, st: &mut St, text: &[u8], line: u64) -> Option<Rec> {
    let first = text[0];
    if !matches!(first, b'{' | b'[') {
        st.records += 1;
        ctx.stats.records += 1;
        if st.records == 1 {
            // The first record is not JSON: not an audit log at all.
            st.stop = true;
            if st.walked {
                let name = ctx.source.clone();
                ctx.skip_input(&name);
            } else {
                let legacy = memchr::memmem::find(text, b" AUDIT: id=").is_some();
                ctx.problem(line, || {
                    if legacy {
                        "the legacy text format (--audit-log-format=legacy): not read; ask for --audit-log-format=json".into()
                    } else {
                        format!(
                            "not an audit log: the first line is not JSON ({})",
                            records::quote(&String::from_utf8_lossy(&text[..text.len().min(40)]))
                        )
                    }
                });
            }
            return None;
        }
        return Some(Rec::Bad("not JSON".into()));
    }
    let rec = record(ctx, st, text, line, None, None);
    if !matches!(rec, Rec::Incomplete) || !st.multi_ok {
        st.records += 1;
        ctx.stats.records += 1;
    }
    Some(rec)
}

/// Accounts for what a record gave: problems, and the rules that stop an input early.
fn outcome(ctx: &mut Ctx, st: &mut St, rec: Rec, line: u64, item: Option<u64>, top: bool) {
    match rec {
        Rec::Audit | Rec::Other => st.known += 1,
        Rec::NotAudit(_) if top && st.walked && st.known == 0 && st.records <= 1 => {
            // A file in a directory or archive that holds something else.
            st.stop = true;
            let name = ctx.source.clone();
            ctx.skip_input(&name);
            return;
        }
        Rec::NotAudit(why) => ctx.problem(line, || {
            with_item(item, format!("not an audit record: {why}"))
        }),
        Rec::Bad(why) => ctx.problem(line, || with_item(item, why)),
        Rec::Incomplete => ctx.problem(line, || {
            with_item(
                item,
                "cut short: the record ends before its JSON does".into(),
            )
        }),
    }
    if top && st.known == 0 && st.records >= GIVE_UP_AFTER {
        st.stop = true;
        ctx.problem(line, || {
            format!("no audit record in the first {GIVE_UP_AFTER} records: not an audit log; the rest is not read")
        });
    }
}

fn with_item(item: Option<u64>, why: String) -> String {
    match item {
        Some(i) => format!("item {i}: {why}"),
        None => why,
    }
}

/// A serde_json error, without its position inside the record (the problem has the line).
fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let msg = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(m, _)| m);
    match e.classify() {
        serde_json::error::Category::Syntax => {
            format!("not valid JSON: {msg} (column {})", e.column())
        }
        serde_json::error::Category::Data => format!("malformed: {msg} (column {})", e.column()),
        _ => format!("{msg} (column {})", e.column()),
    }
}

/// Reads one record (a JSON value), recognising its format. `hint`: the format of the
/// container it came from (events in an `EventList` count as `event-list`).
fn record(
    ctx: &mut Ctx,
    st: &mut St,
    bytes: &[u8],
    line: u64,
    item: Option<u64>,
    hint: Option<&'static str>,
) -> Rec {
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    if first == Some(b'[') {
        if hint.is_some() {
            return Rec::Bad("an array inside a list".into());
        }
        return match records::parse::<Vec<&RawValue>>(bytes) {
            Ok(items) => container(ctx, st, &items, line, "event-list"),
            Err(e) if e.is_eof() => Rec::Incomplete,
            Err(e) => Rec::Bad(json_error(&e)),
        };
    }
    if first != Some(b'{') {
        return Rec::Bad("not a JSON object".into());
    }
    let rec: Record = match records::parse(bytes) {
        Ok(r) => r,
        Err(e) if e.is_eof() => return Rec::Incomplete,
        Err(e) => return Rec::Bad(json_error(&e)),
    };
    match rec.shape() {
        Shape::Event => event(
            ctx,
            &rec,
            hint.unwrap_or("json-lines"),
            line,
            item,
            false,
            None,
        ),
        Shape::Container(items, format) => container(ctx, st, items, line, format),
        Shape::Gke(p) => match gke::event(&rec, p) {
            gke::Gke::Other => {
                ctx.stats.other_records += 1;
                Rec::Other
            }
            gke::Gke::Built(b) => {
                ctx.count("gke");
                built(ctx, b, line, item, false);
                Rec::Audit
            }
        },
        Shape::Aks(log) => match log {
            Some(raw) => inner(ctx, &rec, raw, "aks", line, item),
            None => Rec::Bad("an AKS kube-audit record without properties.log".into()),
        },
        Shape::Eks(raw) => inner(ctx, &rec, raw, "eks", line, item),
        Shape::Other => {
            ctx.stats.other_records += 1;
            Rec::Other
        }
        Shape::NotAudit(why) => Rec::NotAudit(why),
    }
}

/// The elements of a list, each a record.
fn container(
    ctx: &mut Ctx,
    st: &mut St,
    items: &[&RawValue],
    line: u64,
    format: &'static str,
) -> Rec {
    for (i, raw) in items.iter().enumerate() {
        ctx.stats.records += 1;
        let item = Some(i as u64 + 1);
        let r = record(ctx, st, raw.get().as_bytes(), line, item, Some(format));
        outcome(ctx, st, r, line, item, false);
    }
    Rec::Audit
}

/// A native Event record (top-level, in a list, or inside an EKS/AKS envelope).
fn event(
    ctx: &mut Ctx,
    rec: &Record,
    format: &'static str,
    line: u64,
    item: Option<u64>,
    truncated: bool,
    fallback_us: Option<i64>,
) -> Rec {
    ctx.count(format);
    built(
        ctx,
        records::native(rec, truncated, fallback_us),
        line,
        item,
        false,
    );
    Rec::Audit
}

/// Accounts for what building an event gave; `partial`: the record was already reported
/// as read only in part.
fn built(ctx: &mut Ctx, b: Built, line: u64, item: Option<u64>, partial: bool) {
    match b {
        Built::OtherStage => ctx.stats.other_stages += 1,
        Built::Dropped(d) => {
            ctx.seen(Seen {
                time_us: d.time_us,
                key: d.key,
                level: d.level,
                partial,
                who: 0,
                line,
            });
        }
        Built::Event(ev, cut) => {
            let partial = partial || cut.is_some();
            if let Some(cause) = cut {
                ctx.problem(line, || with_item(item, cause));
            }
            let fresh = ctx.seen(Seen {
                time_us: ev.time_us,
                key: event_key(&ev),
                level: ev.level,
                partial,
                who: who_key(&ev.user, ev.code),
                line,
            });
            if fresh {
                ctx.pass(*ev, line);
            }
        }
        Built::Bad(why) => ctx.problem(line, || with_item(item, why)),
    }
}

/// EKS and AKS: the Event is a string (or, sometimes, an object) inside the record.
fn inner(
    ctx: &mut Ctx,
    rec: &Record,
    raw: &RawValue,
    format: &'static str,
    line: u64,
    item: Option<u64>,
) -> Rec {
    let name = if format == "aks" { "AKS" } else { "EKS" };
    let s = raw.get();
    let text: Cow<str> = if s.starts_with('"') {
        match serde_json::from_str::<Str>(s) {
            Ok(t) => t.0,
            Err(e) => return Rec::Bad(json_error(&e)),
        }
    } else {
        Cow::Borrowed(s)
    };
    if !text.trim_start().starts_with('{') {
        // Another component's log line (CloudWatch log groups hold several).
        ctx.stats.other_records += 1;
        return Rec::Other;
    }
    match serde_json::from_str::<Record>(&text) {
        Ok(ev) => match ev.shape() {
            Shape::Event => event(ctx, &ev, format, line, item, false, None),
            _ => {
                ctx.stats.other_records += 1;
                Rec::Other
            }
        },
        Err(e) if e.is_eof() => {
            let n = text.len();
            ctx.problem(line, || {
                with_item(
                    item,
                    if format == "aks" && n >= 16_000 {
                        "event cut at 16 KiB (AKS)".into()
                    } else {
                        format!("event cut short at {n} bytes ({name})")
                    },
                )
            });
            // What came before the cut: the metadata fields come first.
            let fixed = scan::close_truncated(&text);
            if let Some(ev) = fixed
                .as_deref()
                .and_then(|f| serde_json::from_str::<Record>(f).ok())
                && matches!(ev.shape(), Shape::Event)
            {
                ctx.count(format);
                match records::native(&ev, true, rec.envelope_time_us()) {
                    // One problem for the record: the cut.
                    Built::Event(e, _) => built(ctx, Built::Event(e, None), line, item, true),
                    b @ Built::Dropped(_) => built(ctx, b, line, item, true),
                    Built::OtherStage | Built::Bad(_) => {}
                }
            }
            Rec::Audit
        }
        Err(e) => Rec::Bad(format!(
            "the event in this {name} record: {}",
            json_error(&e)
        )),
    }
}
