//! The scan: the table's anchors searched over the bytes at once (one Aho-Corasick automaton,
//! SIMD-accelerated), and only the lines they land on taken out of their envelope and matched
//! against the table. Lines are counted in between with `memchr`, so a line's number costs
//! nothing more than `wc -l`'s own count. Pretty-printed JSON documents (an array of Cloud
//! Logging entries, `aws logs filter-log-events`' `{"events":[…]}`) are streamed record by
//! record with serde; YAML streams (`gcloud logging read`) document by document.

use super::envelope::{self, Not, When};
use super::lines::{self, Message};
use super::time::{Clock, Year, YearFrom, created_at};
use super::{LogOptions, LogStats, MAX_LINE, Position, Record};
use aho_corasick::{AhoCorasick, Input};
use std::io::BufRead;

/// Chunks read from a stream.
const CHUNK: usize = 4 << 20;
/// Lines looked at to tell whether an input is a log at all.
const SNIFF_LINES: usize = 64;

/// The reader's state across inputs.
pub(super) struct Reader<'s> {
    sink: &'s mut dyn FnMut(Record),
    pub stats: LogStats,
    anchors: AhoCorasick,
    flag_year: Option<i64>,
    near_us: Option<i64>,
    /// The input being read.
    source: String,
    clock: Option<Clock>,
    year_from: Option<YearFrom>,
}

impl<'s> Reader<'s> {
    pub fn new(opts: &LogOptions, sink: &'s mut dyn FnMut(Record)) -> Reader<'s> {
        // Leftmost-first: the scan needs only where some anchor starts, and only the leftmost
        // match kinds get the SIMD (Teddy) prefilter; the standard kind runs the automaton
        // over every byte (BENCHMARKS.md, "history --controller-manager-log").
        let anchors = AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(lines::anchors())
            .expect("the table's anchors build an automaton");
        Reader {
            sink,
            stats: LogStats::default(),
            anchors,
            flag_year: opts.year,
            near_us: opts.near_us,
            source: String::new(),
            clock: None,
            year_from: None,
        }
    }

    /// Starts input `name`: its clock for yearless times (`modified`: the file's mtime, µs).
    fn begin(&mut self, name: &str, head: &[u8], modified: Option<i64>) {
        self.stats.inputs += 1;
        self.source = name.to_owned();
        let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
        let created = std::str::from_utf8(first).ok().and_then(created_at);
        let (clock, from) = match (self.flag_year, created, self.near_us, modified) {
            (Some(y), ..) => (Some(Clock::new(Year::Starting(y))), Some(YearFrom::Flag)),
            (None, Some(c), ..) => (Some(Clock::new(Year::Near(c))), Some(YearFrom::File)),
            (None, None, Some(n), _) => (
                Some(Clock::new(Year::Near(n))),
                Some(YearFrom::OtherSources),
            ),
            (None, None, None, Some(m)) => {
                (Some(Clock::new(Year::Near(m))), Some(YearFrom::Modified))
            }
            _ => (None, None),
        };
        self.clock = clock;
        self.year_from = from;
    }

    /// Whether the first lines of `head` look like a log: some line has an envelope this
    /// reader knows (or is another component's in one).
    fn looks_like_log(head: &[u8]) -> bool {
        if head.contains(&0) {
            return false;
        }
        let text = String::from_utf8_lossy(head);
        let mut lines = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(SNIFF_LINES)
            .peekable();
        if lines.peek().is_none() {
            return true; // empty: nothing to say against it
        }
        let cut = !head.ends_with(b"\n");
        let all: Vec<&str> = lines.collect();
        let n = all.len();
        all.iter().enumerate().any(|(i, l)| {
            // The last line of a head that was cut is incomplete.
            (i + 1 < n || !cut) && envelope::log_shaped(l) || created_at(l).is_some()
        })
    }

    /// Reads one input in lines mode from `bytes`, a whole file (or a chunk of complete
    /// lines), the first line being `first_line`. Returns the lines counted.
    pub(super) fn scan(&mut self, bytes: &[u8], first_line: u64) -> u64 {
        let mut pos = 0;
        let mut line = first_line;
        while pos < bytes.len() {
            let Some(m) = self.anchors.find(Input::new(bytes).span(pos..bytes.len())) else {
                break;
            };
            let start = memchr::memrchr(b'\n', &bytes[pos..m.start()]).map_or(pos, |i| pos + i + 1);
            line += memchr::memchr_iter(b'\n', &bytes[pos..start]).count() as u64;
            let end =
                memchr::memchr(b'\n', &bytes[m.start()..]).map_or(bytes.len(), |i| m.start() + i);
            self.line(&bytes[start..end], line);
            pos = end + 1;
            line += 1;
        }
        if pos < bytes.len() {
            line += memchr::memchr_iter(b'\n', &bytes[pos..]).count() as u64;
            if !bytes.ends_with(b"\n") {
                line += 1;
            }
        }
        line - first_line
    }

    /// One line an anchor landed on.
    fn line(&mut self, raw: &[u8], number: u64) {
        if raw.len() > MAX_LINE {
            self.stats.long_lines += 1;
            return;
        }
        let text = String::from_utf8_lossy(raw);
        match envelope::unwrap(&text) {
            Ok(u) => self.message(u.when, u.pid, &u.message, u.format, number),
            Err(Not::Other) => self.stats.other_lines += 1,
            Err(Not::Shape) => {}
        }
    }

    /// A message out of its envelope: matched against the table, and passed on.
    fn message(
        &mut self,
        when: Option<When>,
        pid: Option<u32>,
        msg: &Message<'_>,
        format: &'static str,
        number: u64,
    ) {
        let Some((kind, v, said)) = lines::recognise(msg) else {
            return;
        };
        *self.stats.by_format.entry(format).or_default() += 1;
        let time_us = match when {
            Some(When::Whole(us)) => us,
            Some(When::NoYear(t)) => match self.clock.as_mut() {
                Some(c) => {
                    self.stats.local_times += 1;
                    if let Some(f) = self.year_from {
                        self.stats.year_from.insert(f);
                    }
                    c.at(t)
                }
                None => {
                    self.stats.no_year += 1;
                    return;
                }
            },
            None => {
                let source = self.source.clone();
                self.stats
                    .problem(&source, number, "a line of the GC without a time: not read");
                return;
            }
        };
        *self.stats.by_kind.entry(kind).or_default() += 1;
        if kind.is_work() {
            self.stats.max_v = self.stats.max_v.max(v);
        }
        self.stats.first_us = Some(self.stats.first_us.map_or(time_us, |f| f.min(time_us)));
        self.stats.last_us = Some(self.stats.last_us.map_or(time_us, |l| l.max(time_us)));
        (self.sink)(Record {
            time_us,
            kind,
            v,
            position: Position {
                source: self.source.clone(),
                line: number,
            },
            pid,
            object: said.object,
            owners: said.owners,
            policy: said.policy,
            namespace: said.namespace,
            resource: said.resource,
            version: said.version,
            virtual_item: said.virtual_,
        });
    }

    /// Reads one input: lines mode, a JSON document, or YAML documents, by its first bytes.
    /// `Err` (a message) when it is no log.
    pub fn read(
        &mut self,
        name: &str,
        head: &[u8],
        map: Option<&memmap2::Mmap>,
        r: &mut dyn BufRead,
        modified: Option<i64>,
    ) -> Result<(), String> {
        self.begin(name, head, modified);
        let trimmed = head.trim_ascii_start();
        let first_line = trimmed.split(|&b| b == b'\n').next().unwrap_or_default();
        if trimmed.starts_with(b"[")
            || (trimmed.starts_with(b"{")
                && serde_json::from_slice::<serde::de::IgnoredAny>(first_line).is_err())
        {
            return self.document(r);
        }
        if trimmed.starts_with(b"---") || yaml_key(first_line) {
            return self.yaml(r);
        }
        if !Self::looks_like_log(head) {
            return Err("no line of a log format this reader knows (klog, JSON, journald, Cloud Logging, CloudWatch) in its first lines".into());
        }
        match map {
            Some(m) => {
                self.stats.bytes += m.len() as u64;
                let mut behind = crate::input::bytes::Behind::new(64 << 20);
                let mut line = 1;
                // Scan in slices ending at a line break, releasing pages behind.
                let mut at = 0;
                while at < m.len() {
                    let end = (at + CHUNK).min(m.len());
                    let end = if end == m.len() {
                        end
                    } else {
                        memchr::memchr(b'\n', &m[end..]).map_or(m.len(), |i| end + i + 1)
                    };
                    line += self.scan(&m[at..end], line);
                    behind.advance(m, end);
                    at = end;
                }
                self.stats.lines += line - 1;
                Ok(())
            }
            None => self.stream(r),
        }
    }

    /// Lines mode from a stream, in chunks of whole lines.
    fn stream(&mut self, r: &mut dyn BufRead) -> Result<(), String> {
        let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + 4096);
        let mut line = 1u64;
        let mut skipping = false;
        loop {
            let filled = buf.len();
            buf.resize(filled + CHUNK, 0);
            let n = match read_some(r, &mut buf[filled..]) {
                Ok(n) => n,
                Err(e) => {
                    buf.truncate(filled);
                    let source = self.source.clone();
                    self.stats
                        .problem(&source, line, crate::input::read_error(&e));
                    break;
                }
            };
            buf.truncate(filled + n);
            self.stats.bytes += n as u64;
            if n == 0 {
                break;
            }
            let Some(last_nl) = memchr::memrchr(b'\n', &buf) else {
                if buf.len() > MAX_LINE {
                    // One line longer than any log line: dropped until its end.
                    self.stats.long_lines += u64::from(!skipping);
                    skipping = true;
                    buf.clear();
                }
                continue;
            };
            let mut from = 0;
            if skipping {
                from = memchr::memchr(b'\n', &buf).map_or(buf.len(), |i| i + 1);
                line += 1;
                skipping = false;
            }
            if from <= last_nl {
                line += self.scan(&buf[from..=last_nl], line);
            }
            buf.drain(..=last_nl);
        }
        if !buf.is_empty() && !skipping {
            line += self.scan(&buf, line);
        }
        self.stats.lines += line - 1;
        Ok(())
    }

    /// A JSON document: an array of records, or an object whose `events`/`entries`/`items`/
    /// `records` are, each read as a line's JSON.
    fn document(&mut self, r: &mut dyn BufRead) -> Result<(), String> {
        let mut n = 0u64;
        let mut de = serde_json::Deserializer::from_reader(r);
        let result = serde::Deserializer::deserialize_any(
            &mut de,
            Records {
                reader: self,
                n: &mut n,
            },
        );
        self.stats.lines += n;
        result.map_err(|e| format!("not a JSON document of log records: {e}"))
    }

    /// One record of a document or a YAML stream.
    fn record(&mut self, v: serde_json::Value, number: u64) {
        let text = v.to_string();
        if text.len() > MAX_LINE {
            self.stats.long_lines += 1;
            return;
        }
        if self.anchors.find(text.as_bytes()).is_none() {
            return;
        }
        self.line(text.as_bytes(), number);
    }

    /// YAML documents separated by `---` (`gcloud logging read`), each a record.
    fn yaml(&mut self, r: &mut dyn BufRead) -> Result<(), String> {
        let mut doc = String::new();
        let mut n = 0u64;
        let mut raw = Vec::new();
        loop {
            raw.clear();
            let got = r
                .read_until(b'\n', &mut raw)
                .map_err(|e| crate::input::read_error(&e))?;
            self.stats.bytes += got as u64;
            let line = String::from_utf8_lossy(&raw);
            let end = got == 0 || line.trim_end() == "---";
            if !end {
                if doc.len() + line.len() > MAX_LINE {
                    self.stats.long_lines += 1;
                    doc.clear();
                } else {
                    doc.push_str(&line);
                }
                continue;
            }
            if !doc.trim().is_empty() {
                n += 1;
                match serde_saphyr::from_str::<serde_json::Value>(&doc) {
                    Ok(v) => self.record(v, n),
                    Err(e) => {
                        let source = self.source.clone();
                        let cause = format!(
                            "not a YAML log record: {}",
                            crate::error::one_line(&e.to_string())
                        );
                        self.stats.problem(&source, n, cause);
                    }
                }
            }
            doc.clear();
            if got == 0 {
                break;
            }
        }
        self.stats.lines += n;
        Ok(())
    }
}

/// `key: value` or `key:` at the start of a line (a YAML mapping), and no log envelope.
fn yaml_key(line: &[u8]) -> bool {
    let Ok(l) = std::str::from_utf8(line) else {
        return false;
    };
    let Some((key, rest)) = l.split_once(':') else {
        return false;
    };
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'@')
        && (rest.is_empty() || rest.starts_with(' '))
        && envelope::unwrap(l).is_err()
}

/// Fills `buf` as far as the reader gives without waiting for more than one read past the
/// first (a pipe answers in small pieces).
fn read_some(r: &mut dyn BufRead, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        if n >= buf.len() / 2 {
            break;
        }
    }
    Ok(n)
}

/// The records of a JSON document, streamed to the reader one by one.
struct Records<'r, 's> {
    reader: &'r mut Reader<'s>,
    n: &'r mut u64,
}

impl<'de> serde::de::Visitor<'de> for Records<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of log records, or an object holding one")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(v) = seq.next_element::<serde_json::Value>()? {
            *self.n += 1;
            self.reader.record(v, *self.n);
        }
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        // One record (a single entry), or a wrapper of a list of them.
        let mut single = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if matches!(key.as_str(), "events" | "entries" | "items" | "records") {
                map.next_value_seed(Seq(Records {
                    reader: self.reader,
                    n: self.n,
                }))?;
            } else {
                single.insert(key, map.next_value()?);
            }
        }
        if !single.is_empty()
            && single.keys().any(|k| {
                k != "nextToken"
                    && k != "searchedLogStreams"
                    && k != "nextForwardToken"
                    && k != "nextBackwardToken"
            })
        {
            *self.n += 1;
            self.reader
                .record(serde_json::Value::Object(single), *self.n);
        }
        Ok(())
    }
}

/// A seed that streams a sequence through [`Records`].
struct Seq<'r, 's>(Records<'r, 's>);

impl<'de> serde::de::DeserializeSeed<'de> for Seq<'_, '_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self.0)
    }
}
