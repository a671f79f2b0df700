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
//!
//! **Files.** This one parses values; `feed.rs` holds the byte feed (chunks, read-ahead,
//! mapped pages) they are parsed from.

mod feed;

use super::accounting::Loc;
use super::coverage::Hole;
use super::doc::{Doc, DocKey, ElementSeed, FieldSeed, Items, TopValue};
use super::item_scan::Spare;
use super::recognize::{ListCtx, Reader, is_list};
use feed::{Ahead, Buf, Chunks};
use serde::de::DeserializeSeed;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};

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
    // More than one chunk: this thread reads ahead while another parses (the input stays
    // here, so it need not be `Send`: archive members are not).
    let stop = AtomicBool::new(false);
    let mut fill = |spare: Option<String>| {
        let c = chunks.next(spare, headroom, chunk)?;
        let last = c.eof || c.invalid;
        Ok(Some((c, last)))
    };
    let parse = |ahead: Ahead| {
        let mut b = Buf::new(first, Some(ahead), headroom);
        b.track = reader.track_lines;
        let mut out = read_values(name, &mut b, reader);
        if let Ok(Outcome::NotJson(start, _)) = &mut out {
            // The input goes to the YAML reader whole: what was read ahead follows the
            // start, in order, until the reading thread sees `stop` and hangs up.
            stop.store(true, Ordering::Release);
            if let Some(ahead) = b.ahead.take() {
                for c in ahead.rest() {
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
    };
    // One chunk waits while the next is read. No thread to be had: the input is not read
    // (the chunk read so far is dropped).
    let mut out = crate::input::feed::read_ahead("json-parse", 1, Some(&stop), &mut fill, parse)
        .map_err(|e| crate::util::ThreadRefused(e).into_io())?;
    if let Ok(Outcome::NotJson(start, _)) = &mut out {
        start.append(&mut chunks.carry);
    }
    out
}

/// Reads a JSON input that is a mapped file ([`crate::input::bytes`]): as [`read`] does,
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
