//! One item of a big list read in a single pass, without serde, when it has the usual shape.
//!
//! On the 1M-object List the parsing thread is the read's bottleneck, and less than half of it
//! was scanning bytes: the rest was serde's machinery around
//! [`ElementSeed`](super::doc::ElementSeed) — a key deserializer per key, a seed and a visitor
//! per value, every string through the generic `Reference` path. Almost every item of a dump
//! has one shape: an object of `apiVersion`, `kind` and `metadata` (plain strings, labels,
//! owner references) and values that are skipped unread (`spec`, `status`, `managedFields`,
//! other annotations). This scanner reads that shape straight into the [`Doc`].
//!
//! It never judges input. On anything else it gives up (returns `None`) and the item is parsed
//! again by `ElementSeed`, which decides, reads or reports it: a string with an escape (the
//! parser decodes it), a control character, a value of the wrong type or `null` where the
//! visitors record something, a key that carries hints (`items`, a CRD's `spec`, …), the
//! `kubectl-gc.io/ignore` annotation, a `remainingItemCount`, any syntax error, and the end of
//! the text (the caller reads more). Where it does answer, the answer is the one the serde
//! parse gives, field for field: skipped values are checked exactly as serde_json's
//! `IgnoredAny` checks them (its number grammar, its escapes, no depth limit of its own).
//! The tests and the `json_item` fuzz target hold the two parses against each other.

use super::doc::{Doc, DocKey, Meta, skips};
use super::meta::{MetaKey, RefKey};
use crate::model::OwnerRefIn;
use crate::model::meta::IGNORE_ANNOTATION;
use std::borrow::Cow;

/// Reads the object at the start of `text` into `doc` (a fresh one): the bytes it took, or
/// `None` when the item is not of the usual shape (then `doc` holds a partial read, to be
/// discarded).
pub(super) fn element<'t>(text: &'t str, doc: &mut Doc<'t>, spare: &mut Spare) -> Option<usize> {
    let mut s = Scan {
        s: text,
        b: text.as_bytes(),
        i: 0,
    };
    if s.peek()? != b'{' {
        return None;
    }
    let keys = s.fields(|s, k| {
        // The document visitor's own key table and rule for what it reads past unseen.
        match DocKey::of(k) {
            DocKey::ApiVersion => doc.api_version = s.str_or_null()?.map(Cow::Borrowed),
            DocKey::Kind => doc.kind = s.str_or_null()?.map(Cow::Borrowed),
            DocKey::Metadata => s.metadata(&mut doc.metadata, spare)?,
            key if skips(key, doc.kind.as_deref()) => s.skip_value()?,
            _ => return None,
        }
        Some(())
    })?;
    doc.keys = keys;
    Some(s.i)
}

/// The lists of the last item read, emptied, for the next item to fill: a fresh `Vec` per list
/// per item was a malloc and a free each on the parsing thread, the read's bottleneck.
#[derive(Default)]
pub(super) struct Spare {
    finalizers: Vec<Cow<'static, str>>,
    labels: Vec<(Cow<'static, str>, Cow<'static, str>)>,
    refs: Vec<OwnerRefIn<'static>>,
}

/// Lists longer than this are not kept: one odd item does not pin its memory for the rest.
const SPARE_UP_TO: usize = 64;

impl Spare {
    /// Takes back the lists of `doc` (which is done with), emptied.
    pub(super) fn keep(&mut self, doc: &mut Doc<'_>) {
        if let Some(m) = &mut doc.metadata {
            let meta = &mut m.meta;
            keep(&mut self.finalizers, &mut meta.finalizers);
            keep(&mut self.labels, &mut meta.labels.0);
            keep(&mut self.refs, &mut meta.owner_references);
        }
    }
}

/// Moves `from`'s allocation, emptied, into `to` when it is small enough and `to` has none.
fn keep<T, U>(to: &mut Vec<T>, from: &mut Vec<U>) {
    if to.capacity() == 0 && from.capacity() <= SPARE_UP_TO {
        *to = relife(std::mem::take(from));
    }
}

/// The allocation of `v`, emptied, as a vector of another type: the same type under another
/// lifetime here, whose layout is the same, so the standard library's in-place collection
/// keeps the allocation (for other layouts it would return a fresh, unallocated vector).
fn relife<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

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

/// A cursor over the text. Every method returns `None` to give up.
struct Scan<'t> {
    s: &'t str,
    b: &'t [u8],
    i: usize,
}

impl<'t> Scan<'t> {
    /// Skips JSON whitespace (only these four bytes, as the parser).
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    /// The next byte after whitespace.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    #[inline]
    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// The bytes up to the next quote, escape or control character, from the cursor.
    ///
    /// Eight bytes at a time: a byte-at-a-time loop was a fifth of the parsing thread. In a
    /// word, `(w - 0x0101…01 * k) & !w & 0x8080…80` sets the high bit of a byte below `k` (and
    /// of a zero byte when `w` is xored with a byte value first); a borrow can only flag bytes
    /// above the first true one, so the lowest flag is exact.
    #[inline]
    fn run(&self) -> Option<usize> {
        const ONES: u64 = u64::MAX / 255;
        const HIGH: u64 = ONES << 7;
        let rest = &self.b[self.i..];
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

    /// A string without escapes, borrowed from the text (one with escapes is the parser's to
    /// decode).
    #[inline]
    fn plain(&mut self) -> Option<&'t str> {
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

    fn literal(&mut self, word: &[u8]) -> Option<()> {
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
    fn skip_value(&mut self) -> Option<()> {
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
    fn fields(&mut self, mut f: impl FnMut(&mut Self, &'t str) -> Option<()>) -> Option<u32> {
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
    fn elements(&mut self, mut f: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
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
    fn list<T>(
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
    fn null(&mut self) -> Option<bool> {
        if self.peek()? == b'n' {
            self.literal(b"null")?;
            return Some(true);
        }
        Some(false)
    }

    /// A string field: `Some(None)` for `null`.
    fn str_or_null(&mut self) -> Option<Option<&'t str>> {
        if self.null()? {
            return Some(None);
        }
        self.plain().map(Some)
    }

    /// A string field whose `null` is empty.
    fn text(&mut self) -> Option<Cow<'t, str>> {
        Some(self.str_or_null()?.map(Cow::Borrowed).unwrap_or_default())
    }

    fn bool_or_null(&mut self) -> Option<Option<bool>> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|()| Some(true)),
            b'f' => self.literal(b"false").map(|()| Some(false)),
            b'n' => self.literal(b"null").map(|()| None),
            _ => None,
        }
    }

    /// `metadata`, as `MetaSeed` reads it (a later `metadata` key replaces an earlier one).
    fn metadata(&mut self, out: &mut Option<Meta<'t>>, spare: &mut Spare) -> Option<()> {
        if self.peek()? != b'{' {
            return None;
        }
        let m = out.insert(Meta::default());
        self.fields(|s, k| {
            let meta = &mut m.meta;
            match MetaKey::of(k) {
                MetaKey::Namespace => meta.namespace = s.text()?,
                MetaKey::Name => meta.name = s.text()?,
                MetaKey::Uid => meta.uid = s.text()?,
                MetaKey::ResourceVersion => meta.resource_version = s.text()?,
                MetaKey::CreationTimestamp => meta.creation_timestamp = s.text()?,
                MetaKey::DeletionTimestamp => {
                    meta.deletion_timestamp = s.str_or_null()?.map(Cow::Borrowed)
                }
                MetaKey::SelfLink => m.self_link = s.str_or_null()?.map(Cow::Borrowed),
                MetaKey::GenerateName => m.generate_name = s.str_or_null()?.map(Cow::Borrowed),
                MetaKey::Continue => m.continue_token = s.str_or_null()?.map(Cow::Borrowed),
                MetaKey::RemainingItemCount => return None,
                // `null` entries are dropped, as the visitor drops them.
                MetaKey::Finalizers => {
                    let v = relife(std::mem::take(&mut spare.finalizers));
                    meta.finalizers = s.list(v, |s| Some(s.str_or_null()?.map(Cow::Borrowed)))?
                }
                MetaKey::Labels => {
                    let mut v = relife(std::mem::take(&mut spare.labels));
                    if !s.null()? {
                        s.fields(|s, k| {
                            let value = s.str_or_null()?.unwrap_or("");
                            v.push((Cow::Borrowed(k), Cow::Borrowed(value)));
                            Some(())
                        })?;
                    }
                    meta.labels.0 = v;
                }
                MetaKey::Annotations => {
                    if !s.null()? {
                        s.fields(|s, k| {
                            if k == IGNORE_ANNOTATION {
                                return None;
                            }
                            s.skip_value()
                        })?;
                    }
                    meta.ignore = None;
                }
                MetaKey::OwnerReferences => {
                    let v = relife(std::mem::take(&mut spare.refs));
                    meta.owner_references = s.list(v, |s| s.owner_ref().map(Some))?
                }
                MetaKey::Other => s.skip_value()?,
            }
            Some(())
        })?;
        Some(())
    }

    /// One `ownerReferences` entry, as `RefSeed` reads it.
    fn owner_ref(&mut self) -> Option<OwnerRefIn<'t>> {
        if self.peek()? != b'{' {
            return None;
        }
        let mut r = OwnerRefIn::default();
        self.fields(|s, k| {
            match RefKey::of(k) {
                RefKey::ApiVersion => r.api_version = s.text()?,
                RefKey::Kind => r.kind = s.text()?,
                RefKey::Name => r.name = s.text()?,
                RefKey::Uid => r.uid = s.text()?,
                RefKey::Controller => r.controller = s.bool_or_null()?,
                RefKey::BlockOwnerDeletion => r.block_owner_deletion = s.bool_or_null()?,
                RefKey::Other => s.skip_value()?,
            }
            Some(())
        })?;
        Some(r)
    }
}

/// Reads `text` both ways and panics where the scanner answers and the parser does not give
/// the same `Doc` and length; whether the scanner answered. For the tests and the `json_item`
/// fuzz target only.
#[cfg(any(test, fuzzing))]
pub(super) fn agree(text: &str) -> bool {
    agree_reusing(text, &mut Spare::default())
}

/// [`agree`], the scanner reading into the lists `spare` kept from the items before (and
/// keeping this one's, as the reader does).
#[cfg(any(test, fuzzing))]
pub(super) fn agree_reusing(text: &str, spare: &mut Spare) -> bool {
    let mut fast = Doc::default();
    let answer = element(text, &mut fast, spare);
    let mut slow = Doc::default();
    let parsed = super::json::parse_element(text, &mut slow);
    if let Some(n) = answer {
        let (object, m) =
            parsed.unwrap_or_else(|e| panic!("the scanner read {text:?}; the parser failed: {e}"));
        assert!(object, "{text:?}");
        assert_eq!(n, m, "length of {text:?}");
        assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{text:?}");
    }
    spare.keep(&mut fast);
    answer.is_some()
}

#[cfg(test)]
mod tests;
