//! What every reader shares about byte streams: what a stream's first bytes say it is,
//! whether a cut archive ran out of bytes, the cap on streams of unknown length, and the
//! wording of read errors.

use std::cell::Cell;
use std::io::{self, Read};

/// What a stream's first bytes say it is.
pub(crate) enum Kind {
    Gzip,
    Xz,
    Zstd,
    Bzip2,
    Zip,
    Tar,
    Text,
}

/// The kind of a stream from its first bytes (up to 512: a tar header's magic is at 257).
pub(crate) fn sniff(head: &[u8]) -> Kind {
    if head.starts_with(&[0x1f, 0x8b]) {
        Kind::Gzip
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Kind::Xz
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Kind::Zstd
    } else if head.starts_with(b"BZh") && head.get(3).is_some_and(u8::is_ascii_digit) {
        Kind::Bzip2
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Kind::Zip
    } else if head.len() >= 262 && &head[257..262] == b"ustar" {
        Kind::Tar
    } else {
        Kind::Text
    }
}

/// The start (up to `max` bytes) of the text a stream holds, decompressed as the walker reads
/// it (gzip, xz, zstd), from the stream's buffered `head` and without consuming anything: for a
/// reader deciding what one input is before it is read (`-f` given a single snapshot). Empty
/// when the head is an archive or does not decompress.
pub(crate) fn text_head(head: &[u8], max: usize) -> Vec<u8> {
    let mut d: Box<dyn Read + '_> = match sniff(head) {
        Kind::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(head)),
        Kind::Xz => Box::new(lzma_rust2::XzReader::new(head, true)),
        Kind::Zstd => match zstd::stream::read::Decoder::with_buffer(head) {
            Ok(d) => Box::new(d),
            Err(_) => return Vec::new(),
        },
        Kind::Text => return head[..head.len().min(max)].to_vec(),
        Kind::Bzip2 | Kind::Zip | Kind::Tar => return Vec::new(),
    };
    let mut out = vec![0; max];
    let mut n = 0;
    while n < max {
        match d.read(&mut out[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    out.truncate(n);
    out
}

/// A reader that notes when its input has run out (a read of a non-empty buffer gave 0 bytes).
/// tar words an archive cut between members as a plain error ("failed to read entire block"):
/// whether the bytes ran out tells a truncated archive from a damaged one.
pub(crate) struct RanOut<'a, R: ?Sized> {
    inner: &'a mut R,
    ran_out: &'a Cell<bool>,
}

impl<'a, R: ?Sized> RanOut<'a, R> {
    pub(crate) fn new(inner: &'a mut R, ran_out: &'a Cell<bool>) -> Self {
        RanOut { inner, ran_out }
    }
}

impl<R: Read + ?Sized> Read for RanOut<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.ran_out.set(true);
        }
        Ok(n)
    }
}

/// `e`, an archive reader's error, as a truncation when the input had run out before it.
pub(crate) fn truncation(e: io::Error, ran_out: &Cell<bool>) -> io::Error {
    match ran_out.get() {
        true if e.kind() != io::ErrorKind::UnexpectedEof => {
            io::Error::new(io::ErrorKind::UnexpectedEof, e.to_string())
        }
        _ => e,
    }
}

/// A read error in words: a stream cut short says so. Every decoder used on inputs (flate2,
/// xz, zstd, tar's member reader, zip) reports a cut stream as `UnexpectedEof`, each in its own
/// words ("failed to fill whole buffer" says nothing to a person holding a half-downloaded
/// must-gather).
pub fn read_error(e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        format!("truncated: the data ends early ({e}); an interrupted download or copy?")
    } else {
        format!("cannot read: {e}")
    }
}

/// A reader that fails once more than `cap` bytes came through.
pub(crate) struct Capped<R> {
    pub(crate) inner: R,
    pub(crate) left: u64,
    pub(crate) cap: u64,
}

/// The error [`Capped`] returns.
#[derive(Debug)]
pub struct CapExceeded(pub u64);

impl std::fmt::Display for CapExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "more than {} after decompression or from a pipe: stopped (raise the limit with --max-input-size)",
            human_bytes(self.0)
        )
    }
}

impl std::error::Error for CapExceeded {}

impl CapExceeded {
    /// The cap `e` reports, if it is [`Capped`]'s error.
    pub fn of(e: &io::Error) -> Option<&CapExceeded> {
        e.get_ref().and_then(|i| i.downcast_ref::<CapExceeded>())
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            // Allow a clean end exactly at the cap.
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(io::Error::other(CapExceeded(self.cap))),
            };
        }
        let want = buf.len().min(self.left.min(usize::MAX as u64) as usize);
        let n = self.inner.read(&mut buf[..want])?;
        self.left -= n as u64;
        Ok(n)
    }
}

/// A size in words: whole GiB, MiB, or bytes.
pub(crate) fn human_bytes(n: u64) -> String {
    const G: u64 = 1 << 30;
    const M: u64 = 1 << 20;
    if n >= G && n.is_multiple_of(G) {
        format!("{} GiB", n / G)
    } else if n >= M {
        format!("{} MiB", n / M)
    } else {
        format!("{n} bytes")
    }
}
