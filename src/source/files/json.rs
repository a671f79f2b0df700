//! JSON inputs, streamed: one value, a stream of values (`jq` output), an array, or a `List`
//! of any size.
//!
//! The input is read in chunks. Each chunk is checked for UTF-8 once, then values are parsed
//! from it with serde_json's borrowing parser into [`Doc`]s (which keep only what kubectl-gc
//! needs). A value cut by the end of a chunk is parsed again once the next chunk is in. An
//! input larger than one chunk is read ahead: the calling thread reads and checks the next
//! chunk while another thread parses this one. A top-level object larger than
//! [`WHOLE_UP_TO`] — a big `List` — is walked key by key: its `items` are parsed one at a
//! time and handed on at once, so memory holds one item, not the list. Items of the usual
//! shape skip serde altogether ([`super::item_scan`]): the parser reads only the others.

// One of the few places `unsafe` is allowed (Cargo.toml [lints]): each block says why it is
// sound in a SAFETY comment, which clippy requires.
#![allow(unsafe_code)]

use super::accounting::Loc;
use super::coverage::Hole;
use super::doc::{Doc, DocKey, ElementSeed, FieldSeed, Items, TopValue};
use super::item_scan::Spare;
use super::recognize::{ListCtx, Reader, is_list};
use serde::de::DeserializeSeed;
use std::borrow::Cow;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};

/// Bytes read at a time.
const CHUNK: usize = 8 << 20;
/// Bytes of the first read: enough for the whole-value attempt on a top-level object
/// ([`WHOLE_UP_TO`]) without waiting for the next read.
const FIRST_CHUNK: usize = WHOLE_UP_TO;
/// Room left before the text of every chunk but the first: the end of the chunk before it
/// (a value it cut) is copied there, so that chunks join without copying the new one. A
/// larger remainder is joined by copying the new chunk after it instead.
const HEADROOM: usize = 64 << 10;

#[cfg(test)]
thread_local! {
    /// Another chunk size, for tests of values cut at every possible place.
    pub(super) static TEST_CHUNK: std::cell::Cell<Option<usize>> =
        const { std::cell::Cell::new(None) };
}

fn chunk_size() -> usize {
    #[cfg(test)]
    if let Some(c) = TEST_CHUNK.get() {
        return c.max(1);
    }
    CHUNK
}

/// A top-level object is parsed whole only if it ends within this many bytes; a larger one
/// (a big `List`) is streamed key by key. An attempt that finds no end is wasted work done
/// before the first object can go to the interning thread, which waits meanwhile, so the
/// window is small: 1 MiB holds any single Kubernetes object (etcd's limit is 1.5 MiB, and
/// a larger one reads the same key by key).
pub(super) const WHOLE_UP_TO: usize = 1 << 20;
/// What a fresh chunk buffer reserves before its first read (below the allocator's mapping
/// threshold); reading grows it.
const FIRST_RESERVE: usize = 64 << 10;
/// The largest single value (list item, or top-level value that is not streamed) accepted.
pub(crate) const MAX_VALUE: usize = 512 << 20;

/// How a stream ended.
pub(crate) enum Outcome {
    /// Read to the end (problems, if any, are recorded).
    Done,
    /// The first value is not JSON at all; the bytes read so far (the start of the input)
    /// are returned so the input can be read as YAML (flow-style YAML also starts with `{`),
    /// with the JSON problem (reported if the input is not YAML either).
    NotJson(Vec<u8>, super::accounting::Problem),
}

/// Why parsing stopped.
enum Stop {
    /// Input error already recorded; stop reading this input.
    Recorded,
    /// A syntax error, recorded; the input may be YAML.
    Syntax,
    Io(std::io::Error),
}

/// Why a value could not be parsed.
enum Fail {
    Io(std::io::Error),
    /// The cause, for [`Reader::broken`].
    Broken(String),
    /// Not JSON syntax (as opposed to JSON cut off): the input may be YAML.
    Syntax(String),
}

/// One chunk of input: its text (after `headroom` spaces), checked to be UTF-8.
struct Chunk {
    text: String,
    /// Bytes after `text` that are not UTF-8 (then `invalid`), or a character cut by the end
    /// of the input.
    rest: Vec<u8>,
    invalid: bool,
    /// The last chunk: the input ends after it.
    eof: bool,
}

/// Reads an input in chunks.
struct Chunks<'r> {
    r: &'r mut dyn Read,
    /// The start of a character cut by the end of the last read: it begins the next chunk.
    carry: Vec<u8>,
}

impl Chunks<'_> {
    /// The next chunk: `size` bytes read after `headroom` spaces, in `spare`'s allocation if
    /// given (a fresh buffer per chunk, zeroed and then filled, costs a page fault per 4 KiB).
    fn next(
        &mut self,
        spare: Option<String>,
        headroom: usize,
        size: usize,
    ) -> std::io::Result<Chunk> {
        let mut buf = spare.map(String::into_bytes).unwrap_or_default();
        buf.clear();
        buf.resize(headroom, b' ');
        buf.append(&mut self.carry);
        // The first read of an input starts small and grows as it fills: most inputs of an
        // archive (a Velero backup's members, a must-gather's files) are a few KiB, and a
        // 1 MiB allocation each — mapped and unmapped by the allocator every time — cost more
        // than reading them. The reads after it (large inputs only) reserve their whole size.
        if size <= FIRST_CHUNK {
            buf.reserve(size.min(buf.capacity().max(FIRST_RESERVE)));
        } else {
            buf.reserve(size);
        }
        let n = (&mut *self.r).take(size as u64).read_to_end(&mut buf)?;
        // `read_to_end` stops early only at the end of the input.
        let eof = n < size;
        if !eof {
            // A character cut by the end of this read is completed by the next one.
            let cut = cut_character(&buf[headroom..]);
            self.carry.extend_from_slice(&buf[buf.len() - cut..]);
            buf.truncate(buf.len() - cut);
        }
        Ok(match String::from_utf8(buf) {
            Ok(text) => Chunk {
                text,
                rest: Vec::new(),
                invalid: false,
                eof,
            },
            Err(e) => {
                let ok = e.utf8_error().valid_up_to();
                let mut buf = e.into_bytes();
                let rest = buf.split_off(ok);
                Chunk {
                    text: String::from_utf8(buf).unwrap_or_default(),
                    rest,
                    invalid: true,
                    eof,
                }
            }
        })
    }
}

/// The length of a character's start at the end of `b`, cut before its last byte (0 if
/// `b` ends on a character boundary, or with bytes that cannot start one).
fn cut_character(b: &[u8]) -> usize {
    for back in 1..=b.len().min(3) {
        let byte = b[b.len() - back];
        if byte & 0xc0 != 0x80 {
            let len = match byte {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => 1,
            };
            return if len > back { back } else { 0 };
        }
    }
    0
}

/// Chunks read ahead by the thread that owns the input.
struct Ahead {
    chunks: Receiver<std::io::Result<Chunk>>,
    /// Buffers parsed, back to the reading thread for the next chunks.
    spare: Sender<String>,
}

struct Buf<'m> {
    /// The chunks after `text`; `None` when `text` holds the whole input (or is `mapped`).
    ahead: Option<Ahead>,
    /// The input, when it is a mapped file ([`read_mapped`]): `text` is then its prefix
    /// checked so far, and `base` stays 0.
    mapped: Option<Mapped<'m>>,
    /// Spaces before the text of each chunk after the first.
    headroom: usize,
    /// Input checked to be UTF-8 once, as it was read; values are parsed from it as text.
    /// Borrowed only from a map.
    text: Cow<'m, str>,
    /// Consumed prefix of `text`.
    pos: usize,
    /// Bytes after `text`: not UTF-8 (`invalid`), or a character cut by the end of the input.
    rest: Vec<u8>,
    invalid: bool,
    eof: bool,
    /// Offset of `text[0]` in the input.
    base: u64,
    /// Count lines (manifests read directly: `check apply` names them): newlines are counted
    /// up to `nl_at` (an offset in the input, never before `base`), which is on line `nl_line`.
    track: bool,
    nl_at: u64,
    nl_line: u32,
}

/// A mapped input, as [`Buf`] reads it.
struct Mapped<'m> {
    map: &'m memmap2::Mmap,
    /// `map[..checked]` is UTF-8.
    checked: usize,
    /// The pages before the parser's position, handed back.
    behind: crate::util::mapped::Behind,
}

impl<'m> Buf<'m> {
    /// A buffer holding the first chunk (read with no headroom).
    fn new(first: Chunk, ahead: Option<Ahead>, headroom: usize) -> Buf<'m> {
        Buf {
            ahead,
            mapped: None,
            headroom,
            text: Cow::Owned(first.text),
            pos: 0,
            rest: first.rest,
            invalid: first.invalid,
            eof: first.eof,
            base: 0,
            track: false,
            nl_at: 0,
            nl_line: 1,
        }
    }

    /// A buffer over a mapped input, nothing of it checked yet.
    fn mapped(map: &'m memmap2::Mmap) -> Buf<'m> {
        Buf {
            ahead: None,
            mapped: Some(Mapped {
                map,
                checked: 0,
                behind: crate::util::mapped::Behind::new(chunk_size()),
            }),
            headroom: 0,
            text: Cow::Borrowed(""),
            pos: 0,
            rest: Vec::new(),
            invalid: false,
            eof: map.is_empty(),
            base: 0,
            track: false,
            nl_at: 0,
            nl_line: 1,
        }
    }

    /// [`Buf::more`] of a mapped input: the next chunk's worth of the map checked and added
    /// to the text (no copy: the text is the map's checked prefix), and the pages the parser
    /// has passed handed back.
    fn more_mapped(&mut self) -> bool {
        // As in `more`: lines are counted up to the position before it moves on.
        let _ = self.line_at(self.pos as u64);
        let Some(m) = &mut self.mapped else {
            return false;
        };
        m.behind.advance(m.map, self.pos);
        let bytes: &'m [u8] = &m.map[..];
        let from = m.checked;
        let mut end = (from + chunk_size()).min(bytes.len());
        // A character the step's end would cut is taken whole (a continuation byte is never
        // one to start from); bytes that are not UTF-8 are found by the check below.
        let mut extra = 0;
        while end < bytes.len() && bytes[end] & 0xc0 == 0x80 && extra < 3 {
            end += 1;
            extra += 1;
        }
        let ok = match std::str::from_utf8(&bytes[from..end]) {
            Ok(_) => end,
            Err(e) => {
                let ok = from + e.valid_up_to();
                // As a stream reports it: the bytes after the text of this step, and
                // whether the input ends with them.
                self.rest = bytes[ok..end].to_vec();
                self.invalid = true;
                ok
            }
        };
        m.checked = ok;
        self.eof = end == bytes.len();
        // SAFETY: `bytes[..ok]` is UTF-8: checked step by step, each step ending on a
        // character boundary (`ok` is where a step's valid text ends).
        self.text = Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(&bytes[..ok]) });
        true
    }

    /// The 1-based line of input offset `at` (at or after the last one asked; `None` when
    /// lines are not counted).
    fn line_at(&mut self, at: u64) -> Option<u32> {
        if !self.track || at < self.nl_at || self.nl_at < self.base {
            return None;
        }
        let from = (self.nl_at - self.base) as usize;
        let to = ((at - self.base) as usize).min(self.text.len());
        self.nl_line += memchr::memchr_iter(b'\n', &self.text.as_bytes()[from..to]).count() as u32;
        self.nl_at = self.base + to as u64;
        Some(self.nl_line)
    }

    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Joins the next chunk to the unconsumed text. `false` at the end of the input.
    fn more(&mut self) -> std::io::Result<bool> {
        if self.eof || self.invalid {
            return Ok(false);
        }
        if self.mapped.is_some() {
            return Ok(self.more_mapped());
        }
        if self.ahead.is_none() {
            return Ok(false);
        }
        // The text before `pos` goes: count its lines first.
        let _ = self.line_at(self.offset());
        let Some(ahead) = &self.ahead else {
            return Ok(false);
        };
        let mut c = match ahead.chunks.recv() {
            Ok(c) => c?,
            // The reading thread stops only after the last chunk or an error, both sent.
            Err(_) => return Err(std::io::Error::other("the input's reader stopped")),
        };
        let offset = self.offset();
        let tail = self.text.len() - self.pos;
        if tail <= self.headroom && offset > (self.headroom - tail) as u64 {
            // The unconsumed end goes before the new chunk's text, into its headroom.
            let at = self.headroom - tail;
            c.text
                .replace_range(at..self.headroom, &self.text[self.pos..]);
            let old = std::mem::replace(&mut self.text, Cow::Owned(c.text));
            let _ = ahead.spare.send(old.into_owned());
            self.base = offset - at as u64;
            self.pos = at;
        } else {
            // A large value cut by the chunk's end: the new chunk goes after it.
            let text = self.text.to_mut();
            text.drain(..self.pos);
            self.base = offset;
            self.pos = 0;
            text.push_str(&c.text[self.headroom..]);
            let _ = ahead.spare.send(c.text);
        }
        self.rest = c.rest;
        self.invalid = c.invalid;
        self.eof = c.eof;
        Ok(true)
    }

    fn text(&self) -> &str {
        &self.text[self.pos..]
    }

    /// The next non-whitespace byte, reading more as needed.
    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        loop {
            if let Some(i) = self.text.as_bytes()[self.pos..]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
            {
                self.pos += i;
                return Ok(Some(self.text.as_bytes()[self.pos]));
            }
            self.pos = self.text.len();
            if !self.more()? {
                return Ok(self.rest.first().copied());
            }
        }
    }

    /// Parses one value: `f` gets the text from the current position and returns what it
    /// made of the value and the bytes the value took, or serde_json's error. Values cut by
    /// the end of the buffer are parsed again with more input.
    fn parse<T>(
        &mut self,
        mut f: impl FnMut(&str) -> Result<(T, usize), serde_json::Error>,
    ) -> Result<T, Fail> {
        loop {
            let start = self.offset();
            let text = &self.text[self.pos..];
            match f(text) {
                Ok((v, n)) => {
                    self.pos += n;
                    return Ok(v);
                }
                Err(e) if e.is_eof() && !self.eof && !self.invalid => {
                    if self.text.len() - self.pos > MAX_VALUE {
                        return Err(Fail::Broken(format!(
                            "a single JSON value is larger than {} MiB",
                            MAX_VALUE >> 20
                        )));
                    }
                    self.more().map_err(Fail::Io)?;
                }
                Err(e) => {
                    let cause = if !self.rest.is_empty() && e.is_eof() {
                        let at = self.base + self.text.len() as u64;
                        if self.invalid && !self.eof || self.rest.len() > 3 {
                            format!("not UTF-8 text at byte {at}")
                        } else {
                            format!(
                                "not UTF-8 text: the input ends inside a character at byte {at}"
                            )
                        }
                    } else if e.is_eof() {
                        "the input ends in the middle of a JSON value (cut off?)".to_owned()
                    } else {
                        let at = start + byte_of(text, e.line(), e.column());
                        let cause = format!("invalid JSON at byte {at}: {}", strip_position(&e));
                        return Err(Fail::Syntax(cause));
                    };
                    return Err(Fail::Broken(cause));
                }
            }
        }
    }
}

/// The byte offset of serde_json's 1-based line/column in `text`.
fn byte_of(text: &str, line: usize, column: usize) -> u64 {
    let mut off = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return (off + column.saturating_sub(1).min(l.len())) as u64;
        }
        off += l.len();
    }
    off as u64
}

fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

/// One value of type `T` at the start of `text`, and its length.
fn one<'t, T: serde::Deserialize<'t>>(text: &'t str) -> Result<(T, usize), serde_json::Error> {
    let mut it = serde_json::Deserializer::from_str(text).into_iter::<T>();
    match it.next() {
        Some(Ok(v)) => Ok((v, it.byte_offset())),
        Some(Err(e)) => Err(e),
        None => Err(serde_json::from_str::<serde::de::IgnoredAny>("").unwrap_err()),
    }
}

/// One list element at the start of `text`, read in place into `doc` (a fresh one): whether
/// it is an object, and its length. Items of the usual shape are read by the one-pass scanner
/// ([`super::item_scan`]), into the lists `spare` keeps from the item before; the others by
/// the parser.
fn element<'t>(
    text: &'t str,
    doc: &mut Doc<'t>,
    spare: &mut Spare,
) -> Result<(bool, usize), serde_json::Error> {
    if let Some(n) = super::item_scan::element(text, doc, spare) {
        return Ok((true, n));
    }
    spare.keep(doc);
    *doc = Doc::default();
    parse_element(text, doc)
}

/// [`element`] by the parser (see [`ElementSeed`]).
pub(super) fn parse_element<'t>(
    text: &'t str,
    doc: &mut Doc<'t>,
) -> Result<(bool, usize), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let object = ElementSeed(doc).deserialize(&mut de)?;
    // A stream starts counting where the parser stands: the end of the element.
    let n = de.into_iter::<serde::de::IgnoredAny>().byte_offset();
    if n == 0 {
        // An element takes at least one byte: should the parser not say where it ended, the
        // read stops with an error rather than parse the same bytes again forever.
        return Err(serde::de::Error::custom(
            "cannot tell where a list item ends",
        ));
    }
    Ok((object, n))
}

/// Reads a JSON input.
pub(crate) fn read(
    name: &str,
    r: &mut dyn Read,
    reader: &mut Reader<'_>,
) -> std::io::Result<Outcome> {
    let chunk = chunk_size();
    let headroom = (chunk / 8).min(HEADROOM);
    let mut chunks = Chunks {
        r,
        carry: Vec::new(),
    };
    // The first read is small, so that parsing (and, behind it, interning) starts at once;
    // the reads after it go on while they work.
    let first = chunks.next(None, 0, chunk.min(FIRST_CHUNK))?;
    if first.eof || first.invalid {
        let mut b = Buf::new(first, None, headroom);
        b.track = reader.track_lines;
        return read_values(name, &mut b, reader);
    }
    // More than one chunk: this thread reads ahead while another parses. (The reader stays
    // here, so it need not be `Send`: archive members are not.)
    let stop = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let (spare_tx, spare_rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        let stop = &stop;
        let parser = crate::util::spawn_scoped(scope, "json-parse", move || {
            let ahead = Ahead {
                chunks: rx,
                spare: spare_tx,
            };
            let mut b = Buf::new(first, Some(ahead), headroom);
            b.track = reader.track_lines;
            let mut out = read_values(name, &mut b, reader);
            if let Ok(Outcome::NotJson(start, _)) = &mut out {
                // The input goes to the YAML reader whole: what was read ahead follows the
                // start, in order, until the reading thread sees `stop` and hangs up.
                stop.store(true, Ordering::Release);
                if let Some(ahead) = b.ahead.take() {
                    for c in ahead.chunks.iter() {
                        match c {
                            Ok(c) => {
                                start.extend_from_slice(&c.text.as_bytes()[headroom..]);
                                start.extend_from_slice(&c.rest);
                            }
                            // A failed read fails the input, as it does when not read ahead.
                            Err(e) => return Err(e),
                        }
                    }
                }
            }
            out
        });
        // No thread to be had: the input is not read (the chunk read so far is dropped).
        let parser = parser.map_err(crate::util::ThreadRefused::into_io)?;
        while !stop.load(Ordering::Acquire) {
            let c = chunks.next(spare_rx.try_recv().ok(), headroom, chunk);
            let last = c.as_ref().map_or(true, |c| c.eof || c.invalid);
            // A send fails when the parser is done (it stops at the first broken value).
            if tx.send(c).is_err() || last {
                break;
            }
        }
        drop(tx);
        let mut out = crate::util::join(parser);
        if let Ok(Outcome::NotJson(start, _)) = &mut out {
            start.append(&mut chunks.carry);
        }
        out
    })
}

/// Reads a JSON input that is a mapped file ([`crate::util::mapped`]): as [`read`] does,
/// with the map's pages as the text. The parsing is on this thread, with nothing beside it:
/// there is no copy for another thread to make.
pub(crate) fn read_mapped(
    name: &str,
    map: &memmap2::Mmap,
    reader: &mut Reader<'_>,
) -> std::io::Result<Outcome> {
    let mut b = Buf::mapped(map);
    b.track = reader.track_lines;
    read_values(name, &mut b, reader)
}

/// Reads the values of a JSON input.
fn read_values(name: &str, b: &mut Buf<'_>, reader: &mut Reader<'_>) -> std::io::Result<Outcome> {
    let mut doc_no = 0;
    let objects_before = reader.stats.objects;
    while let Some(c) = b.peek()? {
        doc_no += 1;
        let loc = Loc {
            file: name.into(),
            doc: doc_no,
            many: true,
            byte: Some(b.offset()),
            ..Loc::default()
        };
        let result = match c {
            b'{' => top_object(b, reader, &loc),
            b'[' => top_array(b, reader, &loc),
            _ => match b.parse(|t| {
                let (v, n) = one::<TopValue>(t)?;
                reader.document(&loc, v);
                Ok(((), n))
            }) {
                Ok(()) => Ok(()),
                Err(f) => fail(reader, &loc, f, Hole::Everything),
            },
        };
        match result {
            Ok(()) => reader.progress(b.offset()),
            Err(Stop::Io(e)) => return Err(e),
            Err(Stop::Recorded) => break,
            Err(Stop::Syntax) => {
                // The first value is not JSON: it may be flow-style YAML.
                if doc_no == 1
                    && b.base == 0
                    && reader.stats.objects == objects_before
                    && let Some(p) = reader.unrecord_last()
                {
                    // A mapped input is read again from its start: nothing was taken from it.
                    let mut start = Vec::new();
                    if b.mapped.is_none() {
                        start = std::mem::take(&mut b.text).into_owned().into_bytes();
                        start.append(&mut b.rest);
                    }
                    return Ok(Outcome::NotJson(start, p));
                }
                break;
            }
        }
    }
    Ok(Outcome::Done)
}

fn fail(reader: &mut Reader<'_>, loc: &Loc, f: Fail, hole: Hole) -> Result<(), Stop> {
    match f {
        Fail::Io(e) => Err(Stop::Io(e)),
        Fail::Broken(cause) => {
            reader.broken(loc, cause, hole);
            Err(Stop::Recorded)
        }
        Fail::Syntax(cause) => {
            reader.broken(loc, cause, hole);
            Err(Stop::Syntax)
        }
    }
}

/// A top-level array: its elements one by one (an array is not a server list).
fn top_array(b: &mut Buf<'_>, reader: &mut Reader<'_>, loc: &Loc) -> Result<(), Stop> {
    reader.stats.documents += 1;
    b.pos += 1; // '['
    let mut frame = reader.frame();
    let mut spare = Spare::default();
    let mut i = 0;
    loop {
        match b.peek().map_err(Stop::Io)? {
            None => {
                let f = Fail::Broken("the input ends inside a JSON array (cut off?)".into());
                let hole = reader.list_hole(&ListCtx::none(), &frame);
                return fail(reader, &loc.item(i, Some(b.offset())), f, hole);
            }
            Some(b']') => {
                b.pos += 1;
                return Ok(());
            }
            Some(b',') if i > 0 => {
                b.pos += 1;
                continue;
            }
            _ => {}
        }
        let item_loc = loc.item(i, Some(b.offset()));
        let line = b.line_at(b.offset());
        let parsed = b.parse(|t| {
            let mut doc = Doc::default();
            let (object, n) = element(t, &mut doc, &mut spare)?;
            if object {
                if let Some(line) = line {
                    reader.lines = super::origin::json_lines(&t[..n], line, Some(i));
                }
                reader.value_in_place(&item_loc, &mut doc, None, Some(&mut frame));
                reader.lines = None;
                spare.keep(&mut doc);
            } else {
                reader.not_kubernetes("not an object");
            }
            Ok(((), n))
        });
        if let Err(f) = parsed {
            let hole = reader.list_hole(&ListCtx::none(), &frame);
            return fail(reader, &item_loc, f, hole);
        }
        reader.progress(b.offset());
        i += 1;
    }
}

/// A top-level object: parsed whole when small, key by key when large.
fn top_object(b: &mut Buf<'_>, reader: &mut Reader<'_>, loc: &Loc) -> Result<(), Stop> {
    // Whole, if the value ends within `WHOLE_UP_TO` bytes.
    let line = b.line_at(b.offset());
    loop {
        let text = b.text();
        let mut window = text.len().min(WHOLE_UP_TO);
        while !text.is_char_boundary(window) {
            window -= 1;
        }
        match one::<TopValue>(&text[..window]) {
            Ok((v, n)) => {
                if let Some(line) = line {
                    reader.lines = super::origin::json_lines(&text[..n], line, None);
                }
                reader.document(loc, v);
                reader.lines = None;
                b.pos += n;
                return Ok(());
            }
            Err(e) if e.is_eof() && text.len() < WHOLE_UP_TO && !b.eof && !b.invalid => {
                b.more().map_err(Stop::Io)?;
            }
            // Larger than the window, or broken: the key-by-key reader streams it, or finds
            // and reports the problem where it is.
            Err(_) => break,
        }
    }
    reader.stats.documents += 1;
    b.pos += 1; // '{'
    let mut doc: Doc<'static> = Doc::default();
    let mut frame = reader.frame();
    let mut pending: Vec<(Loc, Doc<'static>)> = Vec::new();
    let mut spare = Spare::default();
    let mut streamed = false;
    let mut first = true;
    loop {
        let c = b.peek().map_err(Stop::Io)?;
        match c {
            None => {
                let hole = reader.list_hole(&ListCtx::of(&doc), &frame);
                let f = Fail::Broken("the input ends inside a JSON object (cut off?)".into());
                return fail(reader, loc, f, hole);
            }
            Some(b'}') => {
                b.pos += 1;
                break;
            }
            Some(b',') if !first => {
                b.pos += 1;
                continue;
            }
            _ => {}
        }
        first = false;
        let key = match b.parse(|t| {
            let (k, n) = one::<std::borrow::Cow<str>>(t)?;
            Ok((k.into_owned(), n))
        }) {
            Ok(k) => k,
            Err(f) => {
                let hole = reader.list_hole(&ListCtx::of(&doc), &frame);
                return fail(reader, loc, f, hole);
            }
        };
        if b.peek().map_err(Stop::Io)? != Some(b':') {
            let hole = reader.list_hole(&ListCtx::of(&doc), &frame);
            let f = Fail::Broken(format!("invalid JSON at byte {}: expected `:`", b.offset()));
            return fail(reader, loc, f, hole);
        }
        b.pos += 1;
        let k = DocKey::of(&key);
        if k == DocKey::Items && b.peek().map_err(Stop::Io)? == Some(b'[') {
            b.pos += 1;
            streamed = true;
            let mut i = 0;
            loop {
                match b.peek().map_err(Stop::Io)? {
                    None => {
                        let hole = reader.list_hole(&ListCtx::of(&doc), &frame);
                        let f = Fail::Broken("the input ends inside a list (cut off?)".into());
                        return fail(reader, &loc.item(i, Some(b.offset())), f, hole);
                    }
                    Some(b']') => {
                        b.pos += 1;
                        break;
                    }
                    Some(b',') if i > 0 => {
                        b.pos += 1;
                        continue;
                    }
                    _ => {}
                }
                let item_loc = loc.item(i, Some(b.offset()));
                let line = b.line_at(b.offset());
                let parsed = b.parse(|t| {
                    let mut d = Doc::default();
                    let (object, n) = element(t, &mut d, &mut spare)?;
                    if !object {
                        reader.not_kubernetes("not an object");
                    } else if d.kind.is_none() && !is_list(&d) {
                        // Items without a kind wait for the list's (it often comes last).
                        pending.push((item_loc.clone(), d.into_owned()))
                    } else {
                        if let Some(line) = line {
                            reader.lines = super::origin::json_lines(&t[..n], line, Some(i));
                        }
                        reader.value_in_place(&item_loc, &mut d, None, Some(&mut frame));
                        reader.lines = None;
                        spare.keep(&mut d);
                    }
                    Ok(((), n))
                });
                if let Err(f) = parsed {
                    let hole = reader.list_hole(&ListCtx::of(&doc), &frame);
                    return fail(reader, &item_loc, f, hole);
                }
                reader.progress(b.offset());
                i += 1;
            }
        } else {
            let parsed = b.parse(|t| {
                let (raw, n) = one::<&serde_json::value::RawValue>(t)?;
                let mut d = Doc::default();
                let mut de = serde_json::Deserializer::from_str(raw.get());
                FieldSeed {
                    doc: &mut d,
                    key: k,
                }
                .deserialize(&mut de)?;
                Ok((d.into_owned(), n))
            });
            match parsed {
                Ok(field) => doc.absorb(field),
                Err(f) => {
                    let hole = reader.list_hole(&ListCtx::of(&doc), &frame);
                    return fail(reader, loc, f, hole);
                }
            }
        }
    }
    if streamed {
        doc.items = Items::List(Vec::new());
    }
    if streamed && is_list(&doc) {
        let ctx = ListCtx::of(&doc);
        for (l, d) in pending {
            reader.object(&l, &d, Some(&ctx), Some(&mut frame));
        }
        reader.end_list(loc, &doc, &frame);
    } else {
        // An object whose `items` key is not a list of objects.
        for _ in pending {
            reader.not_kubernetes("item of an object that is not a list");
        }
        doc.items = Items::Absent;
        reader.value(loc, doc, None, None);
    }
    Ok(())
}
