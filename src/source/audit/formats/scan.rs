//! The input buffer: lines found with `memchr` (JSON lines, the fast path), and JSON values
//! found by their structure where a record spans lines (a pretty-printed export, an array).
//!
//! A raw line break inside a JSON string is invalid JSON, so a scan that meets one stops there:
//! a line cut short in a JSON-lines file never swallows the lines after it.

use std::io::{self, Read};

/// Longest record (and line) held in memory; longer ones are skipped with a problem.
pub(super) const MAX_RECORD: usize = 64 << 20;
/// The buffer's size, and the size of one read.
const CHUNK: usize = 1 << 20;

/// What a refill gave.
pub(super) enum Fill {
    More,
    Eof,
    /// The buffer holds [`MAX_RECORD`] bytes of one record.
    Full,
}

/// Where the current line ends.
pub(super) enum LineEnd {
    /// A newline at this offset.
    Newline(usize),
    /// The input ends at this offset without a newline.
    Eof(usize),
    /// No newline within [`MAX_RECORD`] bytes.
    Long,
}

/// Why a structural scan stopped.
pub(super) enum Stop {
    Io(io::Error),
    /// The input ended inside the value.
    Cut,
    /// The value is longer than [`MAX_RECORD`].
    TooBig,
    /// Not JSON here: why.
    Broken(&'static str),
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        Stop::Io(e)
    }
}

/// A buffered input; offsets are relative to the first unconsumed byte.
pub(super) struct Buf<'r> {
    r: &'r mut dyn Read,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// The 1-based line of the first unconsumed byte.
    pub line: u64,
    /// Bytes read from the input.
    pub bytes: u64,
    /// A read error met while taking blocks: the next read returns it, after the bytes read
    /// before it — where reading line by line meets it.
    failed: Option<io::Error>,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

impl<'r> Buf<'r> {
    pub fn new(r: &'r mut dyn Read) -> Self {
        Buf {
            r,
            buf: vec![0; CHUNK],
            pos: 0,
            end: 0,
            eof: false,
            line: 1,
            bytes: 0,
            failed: None,
        }
    }

    /// The unconsumed bytes in the buffer.
    pub fn data(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Reads more (keeping the unconsumed bytes, growing the buffer up to [`MAX_RECORD`]).
    pub fn fill(&mut self) -> io::Result<Fill> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        if self.eof {
            return Ok(Fill::Eof);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.end == self.buf.len() {
            if self.buf.len() >= MAX_RECORD {
                return Ok(Fill::Full);
            }
            let n = (self.buf.len() * 2).min(MAX_RECORD);
            self.buf.resize(n, 0);
        } else if self.end == 0 && self.buf.len() > CHUNK {
            // Back to the usual size after a long record.
            self.buf.truncate(CHUNK);
            self.buf.shrink_to_fit();
        }
        loop {
            match self.r.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(Fill::Eof);
                }
                Ok(n) => {
                    self.end += n;
                    self.bytes += n as u64;
                    return Ok(Fill::More);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// A buffer over one block of lines taken by [`Buf::take_block`] (no copy), starting at
    /// line `line`.
    pub fn from_block(r: &'r mut dyn Read, block: Vec<u8>, line: u64) -> Self {
        Buf {
            r,
            end: block.len(),
            bytes: block.len() as u64,
            buf: block,
            pos: 0,
            eof: true,
            line,
            failed: None,
        }
    }

    /// True when a read error waits behind the unconsumed bytes (see [`Buf::take_block`]):
    /// they are read line by line up to it.
    pub fn failing(&self) -> bool {
        self.failed.is_some()
    }

    /// True when the input has no more bytes to read (some may be left unconsumed).
    pub fn at_eof(&self) -> bool {
        self.eof
    }

    /// The buffer itself (a block given back once read).
    pub fn inner_mut(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Byte offset of the first unconsumed byte in what this buffer has read.
    pub fn offset(&self) -> usize {
        self.bytes as usize - (self.end - self.pos)
    }

    /// Takes the unconsumed bytes, after filling the buffer up to `limit` bytes, up to their
    /// last newline (to the end at the end of the input) as an owned block — the buffer
    /// itself, swapped for `spare` (a block given back) so nothing is copied but the part
    /// line after it — with the line it starts at. `None` at the end of the input, or when
    /// the bytes hold no newline (a line longer than `limit`: the caller reads it line by
    /// line).
    pub fn take_block(
        &mut self,
        limit: usize,
        spare: Option<Vec<u8>>,
    ) -> io::Result<Option<(Vec<u8>, u64)>> {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.failed.is_some() {
            return Ok(None);
        }
        let limit = limit.min(self.buf.len());
        while self.end < limit && !self.eof {
            match self.r.read(&mut self.buf[self.end..limit]) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.end += n;
                    self.bytes += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    // The whole lines before it are a block; the rest is read line by line,
                    // which meets the error where reading line by line meets it.
                    self.failed = Some(e);
                    break;
                }
            }
        }
        if self.end == 0 {
            return Ok(None);
        }
        let cut = if self.eof {
            self.end
        } else {
            match memchr::memrchr(b'\n', &self.buf[..self.end]) {
                Some(i) => i + 1,
                None => return Ok(None),
            }
        };
        let size = self.buf.len();
        let mut next = spare.unwrap_or_default();
        next.resize(size, 0);
        let rest = self.end - cut;
        next[..rest].copy_from_slice(&self.buf[cut..self.end]);
        let mut block = std::mem::replace(&mut self.buf, next);
        block.truncate(cut);
        let first = self.line;
        self.line += memchr::memchr_iter(b'\n', &block).count() as u64;
        self.end = rest;
        Ok(Some((block, first)))
    }

    /// Puts `bytes` back in front of the unconsumed ones, the first of them at line `line`
    /// (blocks taken but to be read line by line after all).
    pub fn unread(&mut self, bytes: &[u8], line: u64) {
        let mut v = Vec::with_capacity((bytes.len() + self.end - self.pos).max(CHUNK));
        v.extend_from_slice(bytes);
        v.extend_from_slice(&self.buf[self.pos..self.end]);
        self.end = v.len();
        v.resize(v.len().max(CHUNK), 0);
        self.buf = v;
        self.pos = 0;
        self.line = line;
    }

    /// Consumes `n` bytes, counting the lines they end.
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.end - self.pos);
        self.line += memchr::memchr_iter(b'\n', &self.buf[self.pos..self.pos + n]).count() as u64;
        self.pos += n;
    }

    /// Consumes a line of `len` bytes (no newline inside) and its newline, if any.
    pub fn consume_line(&mut self, len: usize) {
        self.pos = (self.pos + len).min(self.end);
        if self.pos < self.end && self.buf[self.pos] == b'\n' {
            self.pos += 1;
            self.line += 1;
        }
    }

    /// Consumes whitespace; the next byte, or `None` at the end of the input.
    pub fn skip_ws(&mut self) -> io::Result<Option<u8>> {
        loop {
            while self.pos < self.end {
                match self.buf[self.pos] {
                    b'\n' => self.line += 1,
                    b' ' | b'\t' | b'\r' => {}
                    b => return Ok(Some(b)),
                }
                self.pos += 1;
            }
            match self.fill()? {
                Fill::More => {}
                Fill::Eof | Fill::Full => return Ok(None),
            }
        }
    }

    /// Finds the end of the current line.
    pub fn line_end(&mut self) -> io::Result<LineEnd> {
        let mut searched = 0;
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.pos + searched..self.end]) {
                return Ok(LineEnd::Newline(searched + i));
            }
            searched = self.end - self.pos;
            match self.fill()? {
                Fill::More => {}
                Fill::Eof => return Ok(LineEnd::Eof(searched)),
                Fill::Full => return Ok(LineEnd::Long),
            }
        }
    }

    /// Drops everything up to and including the next newline; the bytes dropped.
    pub fn discard_line(&mut self) -> io::Result<u64> {
        let mut n = 0u64;
        loop {
            if let Some(i) = memchr::memchr(b'\n', self.data()) {
                n += i as u64 + 1;
                self.pos += i + 1;
                self.line += 1;
                return Ok(n);
            }
            n += (self.end - self.pos) as u64;
            self.pos = self.end;
            match self.fill()? {
                Fill::More => {}
                Fill::Eof | Fill::Full => return Ok(n),
            }
        }
    }

    fn more(&mut self) -> Result<(), Stop> {
        match self.fill()? {
            Fill::More => Ok(()),
            Fill::Eof => Err(Stop::Cut),
            Fill::Full => Err(Stop::TooBig),
        }
    }

    /// Skips whitespace from offset `off` without consuming it: the offset and byte after it.
    pub fn ws_at(&mut self, mut off: usize) -> Result<(usize, u8), Stop> {
        loop {
            let data = self.data();
            while off < data.len() {
                if !is_ws(data[off]) {
                    return Ok((off, data[off]));
                }
                off += 1;
            }
            self.more()?;
        }
    }

    /// The end (exclusive offset) of the JSON value that starts at offset `off`, found by its
    /// structure (strings, escapes, brackets), without validating it.
    pub fn scan_value(&mut self, off: usize) -> Result<usize, Stop> {
        let mut i = off;
        let mut depth: u32 = 0;
        let mut in_str = false;
        let first = loop {
            if let Some(&b) = self.data().get(off) {
                break b;
            }
            self.more()?;
        };
        if !matches!(first, b'{' | b'[' | b'"') {
            // A scalar: up to the next delimiter.
            loop {
                let data = self.data();
                while i < data.len() {
                    if is_ws(data[i]) || matches!(data[i], b',' | b']' | b'}') {
                        return Ok(i);
                    }
                    i += 1;
                }
                match self.fill()? {
                    Fill::More => {}
                    Fill::Eof => return Ok(i),
                    Fill::Full => return Err(Stop::TooBig),
                }
            }
        }
        loop {
            let data = self.data();
            while i < data.len() {
                if in_str {
                    match memchr::memchr3(b'"', b'\\', b'\n', &data[i..]) {
                        None => i = data.len(),
                        Some(k) => {
                            i += k;
                            match data[i] {
                                b'"' => {
                                    in_str = false;
                                    i += 1;
                                    if depth == 0 {
                                        return Ok(i);
                                    }
                                }
                                b'\\' => i += 2,
                                _ => return Err(Stop::Broken("a line break inside a string")),
                            }
                        }
                    }
                    continue;
                }
                match data[i] {
                    b'"' => in_str = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        if depth == 0 {
                            return Err(Stop::Broken("a closing bracket without an opening one"));
                        }
                        depth -= 1;
                        if depth == 0 {
                            return Ok(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            self.more()?;
        }
    }
}

/// A JSON object cut short (an AKS `properties.log` cut at 16 KiB), closed after its last
/// complete top-level member: `{"a":1,"b":{"c` → `{"a":1}`. `None` when no member is complete.
pub(in crate::source::audit) fn close_truncated(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let start = b.iter().position(|c| !is_ws(*c))?;
    if b[start] != b'{' {
        return None;
    }
    let mut depth = 0u32;
    let mut in_str = false;
    let mut escaped = false;
    let mut last = None;
    for (i, &c) in b.iter().enumerate().skip(start) {
        if in_str {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_str = false;
            }
            continue;
        }
        match c {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth <= 1 {
                    // Complete after all (or broken): nothing to close.
                    return None;
                }
                depth -= 1;
            }
            b',' if depth == 1 => last = Some(i),
            _ => {}
        }
    }
    let cut = last?;
    Some(format!("{}}}", &text[..cut]))
}
