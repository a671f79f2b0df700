//! The input layer's `unsafe`, all of it (with the interner's, the only `unsafe` in the
//! crate): large plain files read through a read-only memory map and their pages handed back
//! behind the reader; a mapped file's text checked for UTF-8 once, step by step
//! ([`Utf8Prefix`]); the SIMD run of a JSON string's plain bytes ([`string_run_simd`]). Each
//! is a safe function or type whose callers cannot break what its `unsafe` relies on.
//!
//! Read through a map, a parser scans the page cache's own pages: no thread beside it copies
//! the file into buffers (on two cores that copy took CPU from the threads that set the
//! read's pace), and no buffer of the file's size is faulted in. The cost: a file another
//! process truncates while it is mapped ends this one with SIGBUS instead of a read error, as
//! in every tool that maps its inputs (ripgrep among them). A file rewritten in place is read
//! as whatever bytes it holds, as a stream would be.

// One of the two places `unsafe` is allowed (Cargo.toml [lints]; the other is
// `model/intern.rs`): each block says why it is sound in a SAFETY comment, which clippy
// requires.
#![allow(unsafe_code)]

/// A read-only map of `file`, read front to back, or `None` where the system refuses one
/// (the caller then reads the file as a stream).
pub fn map(file: &std::fs::File) -> Option<memmap2::Mmap> {
    // SAFETY: the bytes are only read; a file changed under the map is the module's stated
    // cost (SIGBUS on truncation, the new bytes otherwise).
    let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    Some(map)
}

/// The system's page size (4 KiB where it cannot be asked).
pub fn page_size() -> usize {
    #[cfg(unix)]
    {
        // SAFETY: sysconf reads a constant of the system; no memory is involved.
        let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if n > 0 {
            return n as usize;
        }
    }
    4096
}

/// Hands the map's pages in `[offset, offset + len)` (page-aligned) back to the kernel, so
/// that the process holds what it parsed, not the file.
pub fn release(map: &memmap2::Mmap, offset: usize, len: usize) {
    #[cfg(unix)]
    {
        // SAFETY: the map is of a file, shared and read-only (`Mmap::map`): a page handed
        // back is read from the page cache again if touched, with the same bytes, so no
        // reference into the map sees its content change (a file changed under the map is
        // the module's stated cost). Only advice: a failure leaves the pages mapped.
        let _ =
            unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len) };
    }
    #[cfg(not(unix))]
    let _ = (map, offset, len);
}

/// Releases a map's pages behind a reader: [`Behind::advance`] hands back the whole pages
/// before the reader's position once at least `every` bytes have gathered.
#[derive(Debug)]
pub struct Behind {
    released: usize,
    every: usize,
}

impl Behind {
    /// Nothing released yet; pages go back `every` bytes at a time (at least one page).
    pub fn new(every: usize) -> Behind {
        Behind {
            released: 0,
            every: every.max(1),
        }
    }

    /// The reader no longer needs `map[..done]`.
    pub fn advance(&mut self, map: &memmap2::Mmap, done: usize) {
        if done.saturating_sub(self.released) < self.every {
            return;
        }
        let page = page_size();
        let upto = done.min(map.len()) / page * page;
        if upto > self.released {
            release(map, self.released, upto - self.released);
            self.released = upto;
        }
    }

    /// Bytes handed back so far (from the map's start).
    pub fn released(&self) -> usize {
        self.released
    }
}

/// A prefix of `bytes` known to be UTF-8, grown a step at a time: each step is checked once,
/// and the whole prefix is then text without checking it again.
#[derive(Debug)]
pub struct Utf8Prefix<'m> {
    bytes: &'m [u8],
    /// `bytes[..ok]` is UTF-8, and `ok` is a character boundary.
    ok: usize,
}

impl<'m> Utf8Prefix<'m> {
    /// Nothing of `bytes` checked yet.
    pub fn new(bytes: &'m [u8]) -> Self {
        Utf8Prefix { bytes, ok: 0 }
    }

    /// The length of the checked prefix.
    pub fn len(&self) -> usize {
        self.ok
    }

    /// Whether nothing is checked yet.
    pub fn is_empty(&self) -> bool {
        self.ok == 0
    }

    /// Checks `bytes[len()..end]` and grows the prefix by its valid text: `Err(at)` where
    /// bytes that are not UTF-8 (or a character cut by `end`) start, the prefix then ending
    /// there.
    pub fn extend(&mut self, end: usize) -> Result<(), usize> {
        let end = end.clamp(self.ok, self.bytes.len());
        match std::str::from_utf8(&self.bytes[self.ok..end]) {
            Ok(_) => {
                self.ok = end;
                Ok(())
            }
            Err(e) => {
                self.ok += e.valid_up_to();
                Err(self.ok)
            }
        }
    }

    /// The checked prefix as text.
    pub fn text(&self) -> &'m str {
        // SAFETY: `bytes[..ok]` is UTF-8: every step `extend` added began at the previous
        // `ok`, a character boundary, and was checked whole or up to `valid_up_to`, itself a
        // boundary; text joined at boundaries is UTF-8.
        unsafe { std::str::from_utf8_unchecked(&self.bytes[..self.ok]) }
    }
}

/// The bytes of `rest` that end the fast scan of a JSON string (the closing quote, an escape,
/// a control character), sixteen at a time: `Ok(at)`, where the first one is, or `Err(at)`,
/// where the blocks of sixteen ended without one (the rest is the caller's to scan).
#[inline]
pub fn string_run_simd(rest: &[u8]) -> Result<usize, usize> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of every x86_64 processor (the target enables it).
        unsafe { sse2_run(rest) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    Err(0)
}

/// [`string_run_simd`] on x86_64.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn sse2_run(rest: &[u8]) -> Result<usize, usize> {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    let quote = _mm_set1_epi8(b'"' as i8);
    let escape = _mm_set1_epi8(b'\\' as i8);
    let below_space = _mm_set1_epi8(0x1f);
    let mut at = 0;
    while let Some(block) = rest.get(at..at + 16) {
        // SAFETY: `block` is 16 readable bytes; the load needs no alignment.
        let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
        // A control character is a byte whose minimum with 0x1f is itself.
        let stop = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, escape)),
            _mm_cmpeq_epi8(_mm_min_epu8(v, below_space), v),
        );
        let hits = _mm_movemask_epi8(stop) as u32;
        if hits != 0 {
            return Ok(at + hits.trailing_zeros() as usize);
        }
        at += 16;
    }
    Err(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages go back whole, from the start, once `every` bytes have gathered behind the
    /// reader, never past it; what is handed back reads the same when touched again.
    #[test]
    fn pages_behind_the_reader_go_back_whole_and_read_the_same() {
        let page = page_size();
        let bytes: Vec<u8> = (0..64 * page).map(|i| (i % 251) as u8).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, &bytes).unwrap();
        let map = map(&std::fs::File::open(&path).unwrap()).unwrap();
        let mut behind = Behind::new(4 * page);
        behind.advance(&map, 3 * page);
        assert_eq!(behind.released(), 0, "less than `every` behind");
        behind.advance(&map, 10 * page + 5);
        assert_eq!(behind.released(), 10 * page, "whole pages only");
        behind.advance(&map, 13 * page);
        assert_eq!(behind.released(), 10 * page);
        behind.advance(&map, usize::MAX);
        assert_eq!(behind.released(), 64 * page, "never past the map");
        assert_eq!(&map[..], &bytes[..]);
    }

    /// The prefix grows by whole characters only: a step's end that cuts one, or bytes that
    /// are not UTF-8, end it where its valid text ends, and it goes on from there.
    #[test]
    fn the_checked_prefix_is_text_at_every_step() {
        let bytes = "aé€x".as_bytes(); // 1 + 2 + 3 + 1 bytes
        let mut p = Utf8Prefix::new(bytes);
        assert!(p.is_empty());
        assert_eq!(p.extend(2), Err(1), "é cut after its first byte");
        assert_eq!(p.text(), "a");
        assert_eq!(p.extend(3), Ok(()));
        assert_eq!(p.text(), "aé");
        assert_eq!(p.extend(100), Ok(()), "an end past the bytes is their end");
        assert_eq!(p.text(), "aé€x");
        let broken = b"ok\xffno";
        let mut p = Utf8Prefix::new(broken);
        assert_eq!(p.extend(broken.len()), Err(2));
        assert_eq!((p.text(), p.len()), ("ok", 2));
    }
}
