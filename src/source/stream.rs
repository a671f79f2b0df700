//! What the file readers ([`super::files`] and [`super::audit`]) share about byte streams:
//! what a stream's first bytes say it is, and whether a cut archive ran out of bytes (the
//! wording of read errors is [`crate::util::read_error`], which the snapshot reader shares).

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
