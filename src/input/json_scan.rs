//! A cursor for reading JSON in one pass without serde, where the text has a known, simple
//! shape: the list items of a dump (`source::files::item_scan`) and the object lines of a
//! snapshot (`snapshot::line_scan`). serde's machinery around each key and value (a seed and a
//! visitor each, every string through the generic path) cost more than the bytes it reads.
//!
//! Every method returns `None` to give up, and it never judges input: the caller then parses
//! the same text with serde, which decides, decodes or reports it. So the cursor reads only
//! strings without escapes (borrowed from the text), `true`/`false`/`null`, and skips values
//! exactly as serde_json's `IgnoredAny` checks them.

use std::borrow::Cow;

/// Bytes that end the fast scan of a string: the closing quote, an escape, a control character.
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// [`Scan::run`] eight bytes at a time, in a word: `(w - 0x0101…01 * k) & !w & 0x8080…80` sets
/// the high bit of a byte below `k` (and of a zero byte when `w` is xored with a byte value
/// first); a borrow can only flag bytes above the first true one, so the lowest flag is exact.
#[inline]
fn swar_run(rest: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    let mut words = rest.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().ok()?);
        let control = w.wrapping_sub(ONES * 0x20) & !w;
        let q = w ^ (ONES * u64::from(b'"'));
        let quote = q.wrapping_sub(ONES) & !q;
        let e = w ^ (ONES * u64::from(b'\\'));
        let escape = e.wrapping_sub(ONES) & !e;
        let hit = (control | quote | escape) & HIGH;
        if hit != 0 {
            return Some(at + (hit.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let tail = words.remainder().iter().position(|&c| STOP[c as usize])?;
    Some(at + tail)
}

/// A cursor over the text. Every method returns `None` to give up.
pub(crate) struct Scan<'t> {
    s: &'t str,
    b: &'t [u8],
    i: usize,
}

impl<'t> Scan<'t> {
    /// A cursor at the start of `text`.
    #[inline]
    pub(crate) fn new(text: &'t str) -> Self {
        Scan {
            s: text,
            b: text.as_bytes(),
            i: 0,
        }
    }

    /// How far the cursor has read.
    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.i
    }

    /// The run of ASCII digits at the cursor (maybe empty), read.
    pub(crate) fn digit_run(&mut self) -> &'t str {
        let start = self.i;
        let n = self.digits();
        // ASCII digits: character boundaries.
        self.s.get(start..start + n).unwrap_or_default()
    }

    /// The byte at the cursor, whitespace included.
    #[inline]
    pub(crate) fn next_byte(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// Whether only whitespace is left (what a parser accepts after the last value).
    #[inline]
    pub(crate) fn at_end(&mut self) -> bool {
        self.ws();
        self.i == self.b.len()
    }

    /// Skips JSON whitespace (only these four bytes, as the parser).
    #[inline]
    pub(crate) fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    /// The next byte after whitespace.
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    #[inline]
    pub(crate) fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// The bytes up to the next quote, escape or control character, from the cursor.
    ///
    /// Sixteen bytes at a time where the processor compares sixteen at once
    /// ([`super::bytes::string_run_simd`]), then eight in a word ([`swar_run`]): this run is
    /// most of what the scanners spend per string (BENCHMARKS.md).
    #[inline]
    fn run(&self) -> Option<usize> {
        let rest = &self.b[self.i..];
        match super::bytes::string_run_simd(rest) {
            Ok(at) => Some(at),
            Err(at) => swar_run(&rest[at..]).map(|n| at + n),
        }
    }

    /// A string without escapes, borrowed from the text (one with escapes is the parser's to
    /// decode).
    #[inline]
    pub(crate) fn plain(&mut self) -> Option<&'t str> {
        self.eat(b'"')?;
        let start = self.i;
        let n = self.run()?;
        if self.b[start + n] != b'"' {
            return None;
        }
        self.i = start + n + 1;
        // Both ends are at ASCII bytes of a `str`: character boundaries.
        self.s.get(start..start + n)
    }

    /// The rest of a skipped string (after its opening quote), checked as the parser skips
    /// one: escapes are one of `"\/bfnrt` or `u` and four hex digits; no control characters.
    fn skip_str(&mut self) -> Option<()> {
        loop {
            self.i += self.run()?;
            match self.b[self.i] {
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                b'\\' => match *self.b.get(self.i + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                    b'u' => {
                        let hex = self.b.get(self.i + 2..self.i + 6)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        self.i += 6;
                    }
                    _ => return None,
                },
                _ => return None,
            }
        }
    }

    pub(crate) fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.b[self.i..]
            .starts_with(word)
            .then(|| self.i += word.len())
    }

    fn digits(&mut self) -> usize {
        let n = self.b[self.i..]
            .iter()
            .position(|c| !c.is_ascii_digit())
            .unwrap_or(self.b.len() - self.i);
        self.i += n;
        n
    }

    /// A skipped number, in the parser's grammar: no leading zeros, digits after `.` and
    /// after the exponent.
    fn number(&mut self) -> Option<()> {
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        match *self.b.get(self.i)? {
            b'0' => {
                self.i += 1;
                if self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
                    return None;
                }
            }
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.b.get(self.i) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some(())
    }

    /// A key of a skipped object and its colon.
    fn skipped_key(&mut self) -> Option<()> {
        self.eat(b'"')?;
        self.skip_str()?;
        self.eat(b':')
    }

    /// Skips one value, checked as `IgnoredAny` checks it. Containers are tracked in a bit
    /// stack (1: object); one deeper than it holds gives up (the parser has no limit here,
    /// so it decides).
    pub(crate) fn skip_value(&mut self) -> Option<()> {
        let mut stack: u128 = 0;
        let mut depth = 0u32;
        loop {
            match self.peek()? {
                b'"' => {
                    self.i += 1;
                    self.skip_str()?;
                }
                open @ (b'{' | b'[') => {
                    self.i += 1;
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.peek()? == close {
                        self.i += 1;
                    } else {
                        if depth == u128::BITS {
                            return None;
                        }
                        stack = stack << 1 | u128::from(open == b'{');
                        depth += 1;
                        if open == b'{' {
                            self.skipped_key()?;
                        }
                        continue;
                    }
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return None,
            }
            // A value ended: close the containers it ends, or go on to the next value.
            loop {
                if depth == 0 {
                    return Some(());
                }
                let object = stack & 1 == 1;
                match self.peek()? {
                    b',' => {
                        self.i += 1;
                        if object {
                            self.skipped_key()?;
                        }
                        break;
                    }
                    b'}' if object => {}
                    b']' if !object => {}
                    _ => return None,
                }
                self.i += 1;
                stack >>= 1;
                depth -= 1;
            }
        }
    }

    /// An object whose keys are plain strings: `f` reads each key's value. The number of keys.
    pub(crate) fn fields(
        &mut self,
        mut f: impl FnMut(&mut Self, &'t str) -> Option<()>,
    ) -> Option<u32> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(0);
        }
        let mut n = 0;
        loop {
            let k = self.plain()?;
            self.eat(b':')?;
            f(self, k)?;
            n += 1;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(n);
                }
                _ => return None,
            }
        }
    }

    /// An array: `f` reads each element.
    pub(crate) fn elements(&mut self, mut f: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        if self.peek()? == b']' {
            self.i += 1;
            return Some(());
        }
        loop {
            f(self)?;
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A list field, into `v` (empty): empty for `null`; `f` reads each element (`None`
    /// inside: dropped).
    pub(crate) fn list<T>(
        &mut self,
        mut v: Vec<T>,
        mut f: impl FnMut(&mut Self) -> Option<Option<T>>,
    ) -> Option<Vec<T>> {
        if !self.null()? {
            self.elements(|s| {
                v.extend(f(s)?);
                Some(())
            })?;
        }
        Some(v)
    }

    /// `null`: then `Some(true)`; anything else is left for the caller.
    pub(crate) fn null(&mut self) -> Option<bool> {
        if self.peek()? == b'n' {
            self.literal(b"null")?;
            return Some(true);
        }
        Some(false)
    }

    /// A string field: `Some(None)` for `null`.
    pub(crate) fn str_or_null(&mut self) -> Option<Option<&'t str>> {
        if self.null()? {
            return Some(None);
        }
        self.plain().map(Some)
    }

    /// A string field whose `null` is empty.
    pub(crate) fn text(&mut self) -> Option<Cow<'t, str>> {
        Some(self.str_or_null()?.map(Cow::Borrowed).unwrap_or_default())
    }

    /// An object of strings, or `null` (no pairs): its keys and values, in order, pushed onto
    /// `out`; a `null` value is the empty string (as a label value is to the parser).
    pub(crate) fn string_map(&mut self, out: &mut Vec<(Cow<'t, str>, Cow<'t, str>)>) -> Option<()> {
        if self.null()? {
            return Some(());
        }
        self.fields(|s, k| {
            let value = s.str_or_null()?.unwrap_or("");
            out.push((Cow::Borrowed(k), Cow::Borrowed(value)));
            Some(())
        })?;
        Some(())
    }

    pub(crate) fn bool_or_null(&mut self) -> Option<Option<bool>> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|()| Some(true)),
            b'f' => self.literal(b"false").map(|()| Some(false)),
            b'n' => self.literal(b"null").map(|()| None),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_ends_at_the_first_quote_escape_or_control_byte_wherever_it_lies() {
        // Every position within and around several 16-byte blocks and 8-byte words, after
        // every kind of byte before it (bytes near the stop values, bytes of UTF-8 above 0x7f,
        // which a signed comparison would take for control characters), from several starting
        // offsets.
        for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for filler in [
                b'a', b'!', b'#', b'[', b']', b' ', 0x20, 0x7f, 0x80, 0x9f, 0xe4, 0xff,
            ] {
                for start in 0..3 {
                    for at in start..44 {
                        let mut b = vec![filler; 48];
                        b[at] = stop;
                        let s = Scan {
                            s: "",
                            b: &b,
                            i: start,
                        };
                        assert_eq!(
                            s.run(),
                            Some(at - start),
                            "stop {stop:#x} after {filler:#x} at {at} from {start}"
                        );
                        // The word loop alone, as other processors run it.
                        assert_eq!(swar_run(&b[start..]), Some(at - start));
                    }
                }
                for len in 0..41 {
                    let b = vec![filler; len];
                    assert_eq!(
                        Scan { s: "", b: &b, i: 0 }.run(),
                        None,
                        "{len} × {filler:#x}"
                    );
                    assert_eq!(swar_run(&b), None);
                }
            }
        }
        let text = "ä名\u{7f}\u{80}x\"";
        let s = Scan {
            s: text,
            b: text.as_bytes(),
            i: 0,
        };
        assert_eq!(s.run(), Some(text.len() - 1));
    }
}
