//! `--snapshot`'s input, found by the input layer's walker: the one snapshot at a path.
//!
//! A plain regular file of at least [`super::MAP_FROM`] bytes is read through a memory map:
//! the parsing thread scans the page cache's own pages, with no thread beside it copying the
//! file into chunks (on two cores that copy took CPU from the parsing and interning threads,
//! which set the read's pace). The cost of a map: a file that another process truncates while
//! it is read ends this one with SIGBUS instead of a read error, as in every tool that maps
//! its inputs; one that is rewritten in place fails the trailer's CRC-32 (or, without a
//! trailer, is read as unverified, as a stream would be). `snapshot -o` writes a new file and
//! renames it into place ([`super::write_file`]), so neither happens to a snapshot kubectl-gc
//! wrote. Anything else (compressed, an archive's member, standard input) is read as a
//! stream.

use super::{Integrity, MAP_FROM, RELEASE_EVERY, parse_mapped, parse_reader};
use crate::error::{Error, Result};
use crate::input::walk::{Event, Source, Text, Visitor, Walk, Words};
use crate::snapshot::Snapshot;
use std::io::Read;
use std::path::Path;

/// The hint of every error about where a snapshot comes from.
const HINT: &str = "pass a file written by `kubectl gc snapshot -o FILE`";

const WORDS: Words = Words {
    not_found: HINT,
    stdin_terminal: (
        "--snapshot - reads standard input, which is a terminal",
        "pipe a snapshot in: kubectl gc snapshot -o - | kubectl gc audit --snapshot -",
    ),
    empty_dir: ("no file in this directory", HINT),
};

/// The walk's one snapshot.
struct One {
    /// The length of the file named, when it is one: a compressed file's size estimates the
    /// store's.
    file_size: u64,
    read: Option<(Snapshot, Integrity)>,
}

impl Visitor for One {
    fn candidate(&self, _name: &str) -> bool {
        true
    }

    fn map_from(&self) -> Option<u64> {
        Some(MAP_FROM)
    }

    fn map(&self, _head: &[u8]) -> bool {
        true
    }

    fn text(&mut self, text: Text<'_>) -> Result<()> {
        let path = Path::new(text.name);
        if self.read.is_some() {
            return Err(Error::input(
                path,
                "a second input where one snapshot was expected",
                Some("pass one snapshot file".into()),
            ));
        }
        let read = match text.map {
            Some(map) => parse_mapped(path, map, RELEASE_EVERY)?,
            None => {
                let hint = match text.source.size {
                    Some(n) => n,
                    // Decompressed: about six times the compressed size.
                    None => self.file_size.saturating_mul(6),
                };
                parse_reader(path, text.r, hint)?
            }
        };
        self.read = Some(read);
        Ok(())
    }

    fn event(&mut self, event: Event<'_>) -> Result<()> {
        match event {
            // A snapshot read in part is no snapshot.
            Event::Problem(name, problem) => {
                Err(Error::input(name, problem.cause(), Some(HINT.into())))
            }
            Event::Ignored(_) | Event::Special(_) | Event::Archive(_) => Ok(()),
        }
    }
}

fn walk(max_bytes: u64) -> Walk<'static> {
    Walk {
        recursive: false,
        max_bytes,
        words: &WORDS,
    }
}

fn finish(name: &Path, one: One) -> Result<(Snapshot, Integrity)> {
    one.read
        .ok_or_else(|| Error::input(name, "no snapshot here", Some(HINT.into())))
}

/// Reads the one snapshot at `path`.
pub(super) fn read_path(path: &Path, max_bytes: u64) -> Result<(Snapshot, Integrity)> {
    let file_size = std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map_or(0, |m| m.len());
    let mut one = One {
        file_size,
        read: None,
    };
    walk(max_bytes).read_paths(&[path.to_owned()], &mut one)?;
    finish(path, one)
}

/// Reads the one snapshot of a stream.
pub(super) fn read_stream(
    name: &str,
    r: &mut dyn Read,
    max_bytes: u64,
) -> Result<(Snapshot, Integrity)> {
    let mut one = One {
        file_size: 0,
        read: None,
    };
    walk(max_bytes).read_stream(name, r, Source::named(None), &mut one)?;
    finish(Path::new(name), one)
}
