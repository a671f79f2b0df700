//! Large plain files read through a read-only memory map, and their pages handed back behind
//! the reader.
//!
//! Read through a map, a parser scans the page cache's own pages: no thread beside it copies
//! the file into buffers (on two cores that copy took CPU from the threads that set the
//! read's pace), and no buffer of the file's size is faulted in. The cost: a file another
//! process truncates while it is mapped ends this one with SIGBUS instead of a read error, as
//! in every tool that maps its inputs (ripgrep among them). A file rewritten in place is read
//! as whatever bytes it holds, as a stream would be.

// One of the few places `unsafe` is allowed (Cargo.toml [lints]): each block says why it is
// sound in a SAFETY comment, which clippy requires.
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
}
