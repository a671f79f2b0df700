//! JSON inputs, streamed: one value, a stream of values (`jq` output), an array, or a `List`
//! of any size.
//!
//! The input is read in chunks. Each chunk is checked for UTF-8 once, then values are parsed
//! from it with serde_json's borrowing parser into [`Doc`]s (which keep only what kubectl-gc
//! needs). A value cut by the end of a chunk is parsed again once the next chunk is in. A
//! top-level object larger than [`WHOLE_UP_TO`] — a big `List` — is walked key by key: its
//! `items` are parsed one at a time and handed on at once, so memory holds one item, not the
//! list.

use super::accounting::Loc;
use super::coverage::{Hole, ListFrame};
use super::doc::{Doc, DocKey, ElementSeed, FieldSeed, Items, TopValue};
use super::recognize::{ListCtx, Reader, is_list};
use serde::de::DeserializeSeed;
use std::io::Read;

/// Bytes read at a time.
const CHUNK: usize = 8 << 20;
/// A top-level object is parsed whole only if it ends within this many bytes; a larger one
/// (a big `List`) is streamed key by key. An attempt that finds no end is wasted work done
/// before the first object can go to the interning thread, which waits meanwhile, so the
/// window is small: 1 MiB holds any single Kubernetes object (etcd's limit is 1.5 MiB, and
/// a larger one reads the same key by key).
pub(super) const WHOLE_UP_TO: usize = 1 << 20;
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

struct Buf<'r> {
    r: &'r mut dyn Read,
    /// Input checked to be UTF-8 once, as it was read; values are parsed from it as text.
    text: String,
    /// Consumed prefix of `text`.
    pos: usize,
    /// Bytes read after `text`: a character cut by the end of a read, or bytes that are not
    /// UTF-8 (`invalid`).
    rest: Vec<u8>,
    invalid: bool,
    eof: bool,
    /// Offset of `text[0]` in the input.
    base: u64,
}

impl Buf<'_> {
    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Reads another chunk, keeping the unconsumed text. `false` at the end of the input.
    fn more(&mut self) -> std::io::Result<bool> {
        if self.eof || self.invalid {
            return Ok(false);
        }
        if self.pos > 0 {
            self.text.drain(..self.pos);
            self.base += self.pos as u64;
            self.pos = 0;
        }
        // Read straight into the text's own buffer, which keeps its capacity from chunk to
        // chunk: a fresh buffer per chunk, zeroed and then copied into the text, cost a page
        // fault per 4 KiB and two extra passes over every byte.
        let want = CHUNK.max(self.text.len());
        let mut buf = std::mem::take(&mut self.text).into_bytes();
        let valid = buf.len();
        buf.append(&mut self.rest);
        buf.reserve(want);
        let read = (&mut *self.r).take(want as u64).read_to_end(&mut buf);
        let n = match read {
            Ok(n) => n,
            Err(e) => {
                buf.truncate(valid);
                self.text = String::from_utf8(buf).unwrap_or_default();
                return Err(e);
            }
        };
        // `read_to_end` stops early only at the end of the input.
        self.eof = n < want;
        self.text = match String::from_utf8(buf) {
            Ok(t) => t,
            Err(e) => {
                let ok = e.utf8_error().valid_up_to();
                let bad = e.utf8_error().error_len().is_some();
                let mut buf = e.into_bytes();
                self.rest = buf.split_off(ok);
                // A character cut by the end of a read is completed by the next one.
                self.invalid = bad || self.eof;
                String::from_utf8(buf).unwrap_or_default()
            }
        };
        Ok(n > 0)
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

/// One list element at the start of `text`, parsed in place into `doc` (see
/// [`ElementSeed`]): whether it is an object, and its length.
fn element<'t>(text: &'t str, doc: &mut Doc<'t>) -> Result<(bool, usize), serde_json::Error> {
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
    let mut b = Buf {
        r,
        text: String::new(),
        pos: 0,
        rest: Vec::new(),
        invalid: false,
        eof: false,
        base: 0,
    };
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
            b'{' => top_object(&mut b, reader, &loc),
            b'[' => top_array(&mut b, reader, &loc),
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
            Ok(()) => {}
            Err(Stop::Io(e)) => return Err(e),
            Err(Stop::Recorded) => break,
            Err(Stop::Syntax) => {
                // The first value is not JSON: it may be flow-style YAML.
                if doc_no == 1
                    && b.base == 0
                    && reader.stats.objects == objects_before
                    && let Some(p) = reader.unrecord_last()
                {
                    let mut start = std::mem::take(&mut b.text).into_bytes();
                    start.append(&mut b.rest);
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
    let mut frame = ListFrame::default();
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
        let parsed = b.parse(|t| {
            let mut doc = Doc::default();
            let (object, n) = element(t, &mut doc)?;
            if object {
                reader.value_in_place(&item_loc, &mut doc, None, Some(&mut frame));
            } else {
                reader.not_kubernetes("not an object");
            }
            Ok(((), n))
        });
        if let Err(f) = parsed {
            let hole = reader.list_hole(&ListCtx::none(), &frame);
            return fail(reader, &item_loc, f, hole);
        }
        i += 1;
    }
}

/// A top-level object: parsed whole when small, key by key when large.
fn top_object(b: &mut Buf<'_>, reader: &mut Reader<'_>, loc: &Loc) -> Result<(), Stop> {
    // Whole, if the value ends within `WHOLE_UP_TO` bytes.
    loop {
        let text = b.text();
        let mut window = text.len().min(WHOLE_UP_TO);
        while !text.is_char_boundary(window) {
            window -= 1;
        }
        match one::<TopValue>(&text[..window]) {
            Ok((v, n)) => {
                reader.document(loc, v);
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
    let mut frame = ListFrame::default();
    let mut pending: Vec<(Loc, Doc<'static>)> = Vec::new();
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
                let parsed = b.parse(|t| {
                    let mut d = Doc::default();
                    let (object, n) = element(t, &mut d)?;
                    if !object {
                        reader.not_kubernetes("not an object");
                    } else if d.kind.is_none() && !is_list(&d) {
                        // Items without a kind wait for the list's (it often comes last).
                        pending.push((item_loc.clone(), d.into_owned()))
                    } else {
                        reader.value_in_place(&item_loc, &mut d, None, Some(&mut frame));
                    }
                    Ok(((), n))
                });
                if let Err(f) = parsed {
                    let hole = reader.list_hole(&ListCtx::of(&doc), &frame);
                    return fail(reader, &item_loc, f, hole);
                }
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
