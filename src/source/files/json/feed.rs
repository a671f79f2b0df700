//! The byte feed of the JSON reader: the input in chunks checked for UTF-8 once (read ahead
//! on the thread that owns the input), or a mapped file's pages; [`Buf`] joins them so that
//! a value cut by the end of a chunk is parsed again once the next chunk is in.

use super::{FIRST_CHUNK, FIRST_RESERVE, Fail, MAX_VALUE, byte_of, chunk_size, strip_position};
use std::borrow::Cow;
use std::io::Read;

/// One chunk of input: its text (after `headroom` spaces), checked to be UTF-8.
pub(super) struct Chunk {
    pub(super) text: String,
    /// Bytes after `text` that are not UTF-8 (then `invalid`), or a character cut by the end
    /// of the input.
    pub(super) rest: Vec<u8>,
    pub(super) invalid: bool,
    /// The last chunk: the input ends after it.
    pub(super) eof: bool,
}

/// Reads an input in chunks.
pub(super) struct Chunks<'r> {
    pub(super) r: &'r mut dyn Read,
    /// The start of a character cut by the end of the last read: it begins the next chunk.
    pub(super) carry: Vec<u8>,
}

impl Chunks<'_> {
    /// The next chunk: `size` bytes read after `headroom` spaces, in `spare`'s allocation if
    /// given (a fresh buffer per chunk, zeroed and then filled, costs a page fault per 4 KiB).
    pub(super) fn next(
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

/// Chunks read ahead by the thread that owns the input ([`crate::input::feed`]); the texts
/// parsed go back to it for the next chunks.
pub(super) type Ahead = crate::input::feed::Ahead<Chunk, String>;

pub(super) struct Buf<'m> {
    /// The chunks after `text`; `None` when `text` holds the whole input (or is `mapped`).
    pub(super) ahead: Option<Ahead>,
    /// The input, when it is a mapped file ([`read_mapped`]): `text` is then its prefix
    /// checked so far, and `base` stays 0.
    pub(super) mapped: Option<Mapped<'m>>,
    /// Spaces before the text of each chunk after the first.
    headroom: usize,
    /// Input checked to be UTF-8 once, as it was read; values are parsed from it as text.
    /// Borrowed only from a map.
    pub(super) text: Cow<'m, str>,
    /// Consumed prefix of `text`.
    pub(super) pos: usize,
    /// Bytes after `text`: not UTF-8 (`invalid`), or a character cut by the end of the input.
    pub(super) rest: Vec<u8>,
    pub(super) invalid: bool,
    pub(super) eof: bool,
    /// Offset of `text[0]` in the input.
    pub(super) base: u64,
    /// Count lines (manifests read directly: `check apply` names them): newlines are counted
    /// up to `nl_at` (an offset in the input, never before `base`), which is on line `nl_line`.
    pub(super) track: bool,
    nl_at: u64,
    nl_line: u32,
}

/// A mapped input, as [`Buf`] reads it.
pub(super) struct Mapped<'m> {
    map: &'m memmap2::Mmap,
    /// The map's text checked so far.
    checked: crate::input::bytes::Utf8Prefix<'m>,
    /// The pages before the parser's position, handed back.
    behind: crate::input::bytes::Behind,
}

impl<'m> Buf<'m> {
    /// A buffer holding the first chunk (read with no headroom).
    pub(super) fn new(first: Chunk, ahead: Option<Ahead>, headroom: usize) -> Buf<'m> {
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
    pub(super) fn mapped(map: &'m memmap2::Mmap) -> Buf<'m> {
        Buf {
            ahead: None,
            mapped: Some(Mapped {
                map,
                checked: crate::input::bytes::Utf8Prefix::new(&map[..]),
                behind: crate::input::bytes::Behind::new(chunk_size()),
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
        let from = m.checked.len();
        let mut end = (from + chunk_size()).min(bytes.len());
        // A character the step's end would cut is taken whole (a continuation byte is never
        // one to start from); bytes that are not UTF-8 are found by the check below.
        let mut extra = 0;
        while end < bytes.len() && bytes[end] & 0xc0 == 0x80 && extra < 3 {
            end += 1;
            extra += 1;
        }
        if let Err(ok) = m.checked.extend(end) {
            // As a stream reports it: the bytes after the text of this step, and whether the
            // input ends with them.
            self.rest = bytes[ok..end].to_vec();
            self.invalid = true;
        }
        self.eof = end == bytes.len();
        self.text = Cow::Borrowed(m.checked.text());
        true
    }

    /// The 1-based line of input offset `at` (at or after the last one asked; `None` when
    /// lines are not counted).
    pub(super) fn line_at(&mut self, at: u64) -> Option<u32> {
        if !self.track || at < self.nl_at || self.nl_at < self.base {
            return None;
        }
        let from = (self.nl_at - self.base) as usize;
        let to = ((at - self.base) as usize).min(self.text.len());
        self.nl_line += memchr::memchr_iter(b'\n', &self.text.as_bytes()[from..to]).count() as u32;
        self.nl_at = self.base + to as u64;
        Some(self.nl_line)
    }

    pub(super) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Joins the next chunk to the unconsumed text. `false` at the end of the input.
    pub(super) fn more(&mut self) -> std::io::Result<bool> {
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
        let mut c = match ahead.next() {
            Some(c) => c?,
            // The reading thread stops only after the last chunk or an error, both sent.
            None => return Err(std::io::Error::other("the input's reader stopped")),
        };
        let offset = self.offset();
        let tail = self.text.len() - self.pos;
        if tail <= self.headroom && offset > (self.headroom - tail) as u64 {
            // The unconsumed end goes before the new chunk's text, into its headroom.
            let at = self.headroom - tail;
            c.text
                .replace_range(at..self.headroom, &self.text[self.pos..]);
            let old = std::mem::replace(&mut self.text, Cow::Owned(c.text));
            ahead.give_back(old.into_owned());
            self.base = offset - at as u64;
            self.pos = at;
        } else {
            // A large value cut by the chunk's end: the new chunk goes after it.
            let text = self.text.to_mut();
            text.drain(..self.pos);
            self.base = offset;
            self.pos = 0;
            text.push_str(&c.text[self.headroom..]);
            ahead.give_back(c.text);
        }
        self.rest = c.rest;
        self.invalid = c.invalid;
        self.eof = c.eof;
        Ok(true)
    }

    pub(super) fn text(&self) -> &str {
        &self.text[self.pos..]
    }

    /// The next non-whitespace byte, reading more as needed.
    pub(super) fn peek(&mut self) -> std::io::Result<Option<u8>> {
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
    pub(super) fn parse<T>(
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
