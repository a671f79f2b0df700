//! The kubectl-gc snapshot file format, version 1 (documented in README "Snapshot format").
//!
//! NDJSON, optionally gzip-compressed (detected by magic bytes, written when the file name ends
//! in `.gz`):
//!
//! * line 1, the header: `{"apiVersion":"kubectl-gc.io/v1","kind":"Snapshot","formatVersion":1,
//!   "provenance":{…},"resources":[…],"discoveryFailures":[…],"skipped":[…],`
//!   `"namespaceStatus":{…},"apiServices":[…],"objects":N}` (the last two only where they were read);
//! * one line per object: `{"resource":I,"metadata":{…}}` where `I` indexes `resources` (the
//!   object's apiVersion/kind) and `metadata` holds the Kubernetes field names `namespace`,
//!   `name`, `uid`, `resourceVersion`, `creationTimestamp`, `deletionTimestamp`, `finalizers`,
//!   `labels` and complete `ownerReferences`.
//!
//! * the last line, the trailer: `{"trailer":{"objects":N,"crc32":"xxxxxxxx"}}`, the number of
//!   object lines and the CRC-32 (IEEE) of every byte before the trailer line. A file cut short,
//!   with lines dropped, added or edited, fails to read. CRC-32 detects accidental damage and
//!   naive edits; it is not a signature (anyone can recompute it), and a cryptographic digest
//!   would not be one either without a key. Files written before the trailer existed are read
//!   and reported as unverified ([`Integrity::Unverified`]).
//!
//! One line per object keeps the file streamable, greppable and splittable on line boundaries;
//! grouping the type into the resource table keeps each line short.
//!
//! **Files.** This one reads the format; `writer.rs` writes it.

mod open;
mod writer;

pub use writer::{MetaOut, OwnerRefOut, write, write_file};

use super::line_scan;
use super::{
    ApiService, DiscoveryFailure, NamespaceStatus, Provenance, Resource, Skipped, Snapshot,
    SnapshotBuilder,
};
use crate::error::{Error, Result};
use crate::input::bytes::Behind;
use crate::input::feed::{Ahead, read_ahead};
use crate::model::meta::MetaLists;
use crate::model::{Batch, MetaIn, ResourceId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// `apiVersion` of the header line.
pub const API_VERSION: &str = "kubectl-gc.io/v1";
/// `kind` of the header line.
pub const KIND: &str = "Snapshot";
/// Current format version.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Header {
    api_version: String,
    kind: String,
    format_version: u32,
    provenance: Provenance,
    resources: Vec<Resource>,
    #[serde(default)]
    discovery_failures: Vec<DiscoveryFailure>,
    #[serde(default)]
    skipped: Vec<Skipped>,
    /// Namespaces read in full: `spec.finalizers` and status (absent in older files).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    namespace_status: BTreeMap<String, NamespaceStatus>,
    /// APIServices, when they were read (absent: not read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    api_services: Option<Vec<ApiService>>,
    objects: u64,
}

/// The last line.
#[derive(Serialize, Deserialize)]
struct TrailerLine {
    trailer: Trailer,
}

#[derive(Serialize, Deserialize)]
struct Trailer {
    objects: u64,
    crc32: String,
}

/// Whether a snapshot's content was checked against its trailer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Integrity {
    /// Object count and digest match the trailer.
    Verified,
    /// Written before snapshots had a trailer: truncation at a line boundary or edits cannot
    /// be detected.
    Unverified,
}

/// An object line, as serde reads it (the writer's own lines are read by
/// [`line_scan::line`]).
#[derive(Deserialize)]
pub(super) struct Line<'a> {
    pub(super) resource: u32,
    #[serde(borrow)]
    pub(super) metadata: MetaIn<'a>,
}

/// The `json_item` fuzz target's check for snapshot lines: where the one-pass line scanner
/// reads `text`, serde reads the same object from it (panics otherwise). Built only under
/// `cargo fuzz`.
#[cfg(fuzzing)]
pub fn line_scan_agrees(text: &str) {
    let Some((resource, fast)) = line_scan::line(text, &mut MetaLists::default()) else {
        return;
    };
    let slow: Line<'_> = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("the scanner read {text:?}; serde failed: {e}"));
    assert_eq!(resource, slow.resource, "{text:?}");
    assert_eq!(
        format!("{fast:?}"),
        format!("{:?}", slow.metadata),
        "{text:?}"
    );
}

/// Reads a snapshot file (plain or gzip), streaming: the file is never held in memory whole,
/// and parsing and interning run on two threads (see `parse_reader`).
pub fn read_file(path: &Path) -> Result<Snapshot> {
    read_file_checked(path).map(|(s, _)| s)
}

/// [`read_file`], also saying whether the content could be verified.
pub fn read_file_checked(path: &Path) -> Result<(Snapshot, Integrity)> {
    read_path(path, 0)
}

/// Reads the one snapshot at `path` as `--snapshot` names it: a file (plain, gzip, xz or
/// zstd, or the one file of an archive), `-` for standard input, or a glob that matches one
/// file; the input layer's walker finds it ([`open`]). `max_bytes` caps a stream of unknown
/// length (0: the default).
pub fn read_path(path: &Path, max_bytes: u64) -> Result<(Snapshot, Integrity)> {
    open::read_path(path, max_bytes)
}

/// Plain files at least this large are read through a memory map ([`open`]).
const MAP_FROM: u64 = 1 << 20;

/// Parses a mapped snapshot file (see [`open`]).
fn parse_mapped(
    path: &Path,
    map: &memmap2::Mmap,
    release_every: usize,
) -> Result<(Snapshot, Integrity)> {
    parse_lines(
        path,
        LineReader::mapped(map),
        map.len() as u64,
        release_every,
    )
}

/// A read error of a snapshot in words (a cut `.gz` says it is truncated).
fn cannot_read(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => crate::input::read_error(e),
        _ => format!("cannot read snapshot: {e}"),
    }
}

/// Reads a snapshot (plain or compressed) from a stream, e.g. standard input.
pub fn read_from<R: Read>(name: &str, mut reader: R) -> Result<(Snapshot, Integrity)> {
    open::read_stream(name, &mut reader, 0)
}

/// True when `bytes` start like a kubectl-gc snapshot header.
pub fn looks_like_snapshot(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(200)];
    let head = String::from_utf8_lossy(head);
    head.trim_start().starts_with('{') && head.contains(API_VERSION)
}

/// Parses snapshot bytes (already decompressed).
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Snapshot> {
    parse_reader(path, bytes, bytes.len() as u64).map(|(s, _)| s)
}

/// Bytes read from the input at a time.
const CHUNK: usize = 4 << 20;
/// Objects per batch handed from the parser thread to the interning thread.
const BATCH: usize = 8192;

/// Splits the input into lines, without holding more than the chunks in flight plus one line
/// in memory. A line cut by the end of a chunk is gathered in `spill`; every other line is a
/// slice of its chunk, or of the mapped file (no copy).
struct LineReader<'m> {
    feed: Feed<'m>,
    cur: Vec<u8>,
    /// Start of the unread part of `cur` (of the map, when mapped).
    pos: usize,
    spill: Vec<u8>,
    eof: bool,
    /// Number of lines returned so far.
    line_no: usize,
}

/// Where a [`LineReader`]'s bytes come from.
enum Feed<'m> {
    /// Chunks read ahead ([`parse_chunked`]); read ones go back to be filled again.
    Chunks(Ahead<Vec<u8>>),
    /// A plain file, mapped whole ([`read_file_checked`]). Its digest and the release of its
    /// pages are the interning thread's ([`MapDigest`]).
    Mapped(&'m memmap2::Mmap),
}

/// Bytes read through a map before the pages behind are handed back ([`Feed::Mapped`]).
const RELEASE_EVERY: usize = 8 << 20;

impl<'m> LineReader<'m> {
    fn new(ahead: Ahead<Vec<u8>>) -> Self {
        LineReader::with_feed(Feed::Chunks(ahead))
    }

    fn mapped(map: &'m memmap2::Mmap) -> Self {
        LineReader::with_feed(Feed::Mapped(map))
    }

    /// The map the lines are slices of, when mapped.
    fn map(&self) -> Option<&'m memmap2::Mmap> {
        match self.feed {
            Feed::Mapped(map) => Some(map),
            Feed::Chunks(_) => None,
        }
    }

    fn with_feed(feed: Feed<'m>) -> Self {
        LineReader {
            feed,
            cur: Vec::new(),
            pos: 0,
            spill: Vec::new(),
            eof: false,
            line_no: 0,
        }
    }

    /// The next line (without its `\n`) and its 1-based number, or `None` at the end.
    fn next_line(&mut self) -> std::io::Result<Option<(usize, &[u8])>> {
        if let Feed::Mapped(map) = self.feed {
            return Ok(self.next_mapped(map));
        }
        self.spill.clear();
        let mut spilled = false;
        loop {
            if let Some(n) = memchr::memchr(b'\n', &self.cur[self.pos..]) {
                let start = self.pos;
                self.pos += n + 1;
                self.line_no += 1;
                if !spilled {
                    return Ok(Some((self.line_no, &self.cur[start..start + n])));
                }
                self.spill.extend_from_slice(&self.cur[start..start + n]);
                return Ok(Some((self.line_no, &self.spill)));
            }
            // The rest of this chunk starts (or continues) a line.
            self.spill.extend_from_slice(&self.cur[self.pos..]);
            self.pos = self.cur.len();
            spilled = true;
            if self.eof {
                if self.spill.is_empty() {
                    return Ok(None);
                }
                self.line_no += 1;
                return Ok(Some((self.line_no, &self.spill)));
            }
            let Feed::Chunks(ahead) = &self.feed else {
                unreachable!("a mapped feed returned above");
            };
            let next = match ahead.next() {
                Some(Ok(next)) => next,
                Some(Err(e)) => return Err(e),
                // The reading ends the input by hanging up.
                None => {
                    self.eof = true;
                    Vec::new()
                }
            };
            let done = std::mem::replace(&mut self.cur, next);
            ahead.give_back(done);
            self.pos = 0;
        }
    }

    /// [`LineReader::next_line`] of a mapped file: a slice of the map.
    fn next_mapped(&mut self, map: &'m memmap2::Mmap) -> Option<(usize, &'m [u8])> {
        let bytes: &'m [u8] = map;
        let start = self.pos;
        if start >= bytes.len() {
            return None;
        }
        let n = memchr::memchr(b'\n', &bytes[start..]).unwrap_or(bytes.len() - start);
        self.pos = (start + n + 1).min(bytes.len());
        self.line_no += 1;
        Some((self.line_no, &bytes[start..start + n]))
    }
}

/// The digest of a mapped snapshot, worked out on the interning thread behind the parser: the
/// parser was the read's long pole once the file was mapped, and the interning thread had time
/// to spare between batches. The digest covers every line before the trailer, each with its
/// newline: of a map, one range of its bytes (plus a newline the file's last line may lack).
/// The pages it has read go back to the kernel, so that the process holds what it parses, not
/// the file (the page cache keeps it either way).
struct MapDigest<'m> {
    map: &'m memmap2::Mmap,
    crc: crc32fast::Hasher,
    /// Digested up to here, in the map with a final newline added if it has none.
    done: usize,
    /// The pages digested, handed back.
    behind: Behind,
}

impl MapDigest<'_> {
    /// Digests up to `to` (exclusive; `map.len() + 1` includes the newline a last line lacks).
    fn advance(&mut self, to: usize) {
        let len = self.map.len();
        if to <= self.done {
            return;
        }
        let (from, end) = (self.done.min(len), to.min(len));
        self.crc.update(&self.map[from..end]);
        if to > len {
            self.crc.update(b"\n");
        }
        self.done = to;
        // Whole pages before `end`: the parser reads ahead of it, and batches own their
        // strings (copied out of the map).
        self.behind.advance(self.map, end);
    }
}

fn blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Parses a snapshot from a reader.
///
/// This thread reads the input in chunks ([`read_ahead`]) while another parses: the header
/// first; then one thread splits and parses the object lines into [`Batch`]es (strings copied
/// and hashed) while the other adds them to the store, in order. Interning has to stay on one
/// thread (symbols are numbered in input order), but parsing the JSON runs beside it. (The input stays on this thread, so it need not be `Send`: archive members
/// and the walker's decompressors are not.)
fn parse_reader<R: Read>(path: &Path, reader: R, size_hint: u64) -> Result<(Snapshot, Integrity)> {
    parse_chunked(path, reader, size_hint, CHUNK)
}

/// [`parse_reader`] with the reading chunk size (tests cut lines at every byte).
fn parse_chunked<R: Read>(
    path: &Path,
    mut reader: R,
    size_hint: u64,
    chunk: usize,
) -> Result<(Snapshot, Integrity)> {
    // Reading, the kernel's copy and inflating run here, beside the parser.
    let mut fill = |spare: Option<Vec<u8>>| -> std::io::Result<Option<(Vec<u8>, bool)>> {
        let mut buf = spare.unwrap_or_default();
        buf.clear();
        buf.reserve(chunk);
        match (&mut reader).take(chunk as u64).read_to_end(&mut buf)? {
            0 => Ok(None),
            _ => Ok(Some((buf, false))),
        }
    };
    // Two chunks in flight: this thread fills one while the parser splits the other.
    // Returning early drops the line reader, whose hang-up ends the reading here.
    read_ahead("snapshot-parse", 2, None, &mut fill, |ahead| {
        parse_lines(path, LineReader::new(ahead), size_hint, usize::MAX)
    })
    .map_err(|e| {
        let refused = crate::util::ThreadRefused(e);
        Error::thread_refused(path, format!("not read: {refused}"))
    })?
}

/// The header and the object lines of a snapshot, from the reader thread's chunks or a map.
fn parse_lines(
    path: &Path,
    mut lines: LineReader<'_>,
    size_hint: u64,
    release_every: usize,
) -> Result<(Snapshot, Integrity)> {
    let io_err = |e: std::io::Error| Error::input(path, cannot_read(&e), None);
    let map = lines.map();
    let mut crc = crc32fast::Hasher::new();
    let first = loop {
        match lines.next_line().map_err(io_err)? {
            Some((_, l)) if blank(l) => {
                crc.update(l);
                crc.update(b"\n");
                continue;
            }
            Some((_, l)) => break l,
            None => return Err(Error::input(path, "snapshot is empty", None)),
        }
    };
    crc.update(first);
    crc.update(b"\n");
    // Of a map: where a line starts in it; the digest is the interning thread's from the
    // header's end.
    let offset = move |line: &[u8]| map.map_or(0, |m| line.as_ptr() as usize - m.as_ptr() as usize);
    let header_end = offset(first) + first.len() + 1;
    let mut digest = map.map(|map| MapDigest {
        map,
        crc: crc.clone(),
        done: header_end,
        behind: Behind::new(release_every),
    });
    let header: Header = serde_json::from_slice(first).map_err(|e| {
        let text = String::from_utf8_lossy(&first[..first.len().min(4096)]);
        if !text.trim_start().starts_with('{') {
            // Not JSON at all (most often `kubectl get -o yaml` output): the parser's
            // position says nothing to someone who gave the wrong kind of file.
            return Error::input(
                path,
                "not a snapshot: a snapshot starts with the JSON header `kubectl gc snapshot` \
                 writes, and this file does not (YAML or text)",
                Some(
                    "kubectl get output and manifests are read with -f FILE; check apply and \
                     relink take what is applied with -f, and a snapshot of the cluster it goes \
                     into with --target"
                        .into(),
                ),
            );
        }
        let hint = if text.trim_start().starts_with('{') && !text.contains(API_VERSION) {
            "this looks like JSON but not a kubectl-gc snapshot; to audit `kubectl get -o json` output use `-f FILE`"
        } else {
            "pass a file written by `kubectl gc snapshot -o FILE`"
        };
        Error::input(path, format!("line 1: not a snapshot header: {e}"), Some(hint.into()))
    })?;
    if header.api_version != API_VERSION || header.kind != KIND {
        return Err(Error::input(
            path,
            format!("unexpected header {}/{}", header.api_version, header.kind),
            None,
        ));
    }
    if header.format_version != FORMAT_VERSION {
        return Err(Error::input(
            path,
            format!(
                "snapshot format version {} is not supported (this kubectl-gc reads version {FORMAT_VERSION})",
                header.format_version
            ),
            Some("upgrade kubectl-gc, or take the snapshot again with this version".into()),
        ));
    }
    let mut builder = SnapshotBuilder::new(header.provenance);
    for (i, r) in header.resources.into_iter().enumerate() {
        if let Some(first) = builder.find_resource(&r.group, &r.version, &r.kind) {
            // Object lines index the table: a repeated row would shift every later index.
            return Err(Error::input(
                path,
                format!(
                    "line 1: resource rows {} and {i} are both {} {}: the snapshot is corrupt",
                    first.0,
                    r.api_version(),
                    r.kind
                ),
                Some("take the snapshot again".into()),
            ));
        }
        builder.add_resource(r);
    }
    let n_resources = builder.resources().len() as u32;
    for f in header.discovery_failures {
        builder.discovery_failure(f.group_version, f.message);
    }
    for s in header.skipped {
        builder.skip(s.source, s.reason);
    }
    for (name, status) in header.namespace_status {
        builder.namespace_status(name, status);
    }
    if let Some(api_services) = header.api_services {
        builder.api_services_read();
        api_services
            .into_iter()
            .for_each(|a| builder.api_service(a));
    }
    // The header announces the object count: size the store once.
    let announced = usize::try_from(header.objects).unwrap_or(usize::MAX);
    let store = builder.store_mut();
    store.reserve(announced.min(size_hint as usize / 64), size_hint as usize);
    let hasher = store.strings.hasher();
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Msg>>(4);
    let (recycle_tx, recycle_rx) = std::sync::mpsc::channel::<Batch>();
    let end = std::thread::scope(|scope| {
        let parsing = crate::util::spawn_scoped(scope, "snapshot-parse", move || {
            // Parser thread: lines → batches. Stops at the first error, or when the
            // interning side hangs up.
            let mut batch = Batch::new(hasher.clone());
            // The last line's lists, for the next line's metadata to fill.
            let mut lists = MetaLists::default();
            let mut trailer: Option<(usize, TrailerLine)> = None;
            // Of a map: the end of the last line to digest (see `MapDigest`).
            let mut digest_to = header_end;
            loop {
                let (n, line) = match lines.next_line() {
                    Ok(Some(l)) => l,
                    Ok(None) => break,
                    Err(e) => {
                        let _ = tx.send(Err(io_err(e)));
                        return;
                    }
                };
                if let Some((t, _)) = &trailer {
                    if blank(line) {
                        continue;
                    }
                    let msg = format!("line {n}: data after the trailer (line {t})");
                    let _ = tx.send(Err(Error::input(path, msg, None)));
                    return;
                }
                if line.starts_with(b"{\"trailer\"") {
                    match serde_json::from_slice::<TrailerLine>(line) {
                        Ok(t) => {
                            trailer = Some((n, t));
                            continue;
                        }
                        Err(e) => {
                            let msg = format!("line {n}: not a snapshot trailer: {e}");
                            let _ = tx.send(Err(Error::input(path, msg, None)));
                            return;
                        }
                    }
                }
                if map.is_some() {
                    digest_to = offset(line) + line.len() + 1;
                } else {
                    crc.update(line);
                    crc.update(b"\n");
                }
                if blank(line) {
                    continue;
                }
                // Validating the whole line at once is much cheaper than serde_json's check of
                // every string (`from_slice`); `from_str` then trusts it. A line of the
                // writer's own shape is read by the one-pass scanner; serde reads the rest.
                let parsed = std::str::from_utf8(line)
                    .map_err(|e| format!("not UTF-8 text: {e}"))
                    .and_then(|l| match line_scan::line(l, &mut lists) {
                        Some(read) => Ok(read),
                        None => serde_json::from_str::<Line>(l)
                            .map(|p| (p.resource, p.metadata))
                            .map_err(|e| e.to_string()),
                    });
                let (resource, mut metadata) = match parsed {
                    Ok(p) => p,
                    Err(e) => {
                        let _ = tx.send(Err(Error::input(path, format!("line {n}: {e}"), None)));
                        return;
                    }
                };
                if resource >= n_resources {
                    let msg = format!("line {n}: resource index {resource} out of range");
                    let _ = tx.send(Err(Error::input(path, msg, None)));
                    return;
                }
                batch.push(ResourceId(resource), &metadata);
                lists.keep(&mut metadata);
                if batch.len() >= BATCH {
                    let next = recycle_rx
                        .try_recv()
                        .unwrap_or_else(|_| Batch::new(hasher.clone()));
                    let full = std::mem::replace(&mut batch, next);
                    if tx.send(Ok(Msg::Batch(full, digest_to))).is_err() {
                        return;
                    }
                }
            }
            if !batch.is_empty() && tx.send(Ok(Msg::Batch(batch, digest_to))).is_err() {
                return;
            }
            let _ = tx.send(Ok(Msg::End {
                crc: crc.finalize(),
                digest_to,
                trailer: trailer.map(|(_, t)| t.trailer),
            }));
        })
        .map_err(|e| Error::thread_refused(path, format!("not read: {e}")))?;
        let mut end = Ok(None);
        for msg in rx.iter() {
            match msg {
                Ok(Msg::Batch(mut batch, digest_to)) => {
                    builder.store_mut().add_batch(&mut batch);
                    batch.clear();
                    let _ = recycle_tx.send(batch);
                    if let Some(d) = &mut digest {
                        d.advance(digest_to);
                    }
                }
                Ok(Msg::End {
                    crc,
                    digest_to,
                    trailer,
                }) => {
                    let crc = match digest.take() {
                        Some(mut d) => {
                            d.advance(digest_to);
                            d.crc.finalize()
                        }
                        None => crc,
                    };
                    end = Ok(Some((crc, trailer)));
                }
                Err(e) => {
                    end = Err(e);
                    break;
                }
            }
        }
        // Hang up first: a parser stopped short is blocked on sending its next batch.
        drop(rx);
        crate::util::join(parsing);
        end
    })?;
    let snap = builder.finish();
    let held = snap.store.len() as u64;
    if held != header.objects {
        return Err(Error::input(
            path,
            format!(
                "truncated snapshot: header announces {} objects, file holds {held}",
                header.objects,
            ),
            None,
        ));
    }
    let (crc, trailer) = end.expect("the parser thread always ends with Msg::End or an error");
    let Some(trailer) = trailer else {
        return Ok((snap, Integrity::Unverified));
    };
    if trailer.objects != held {
        return Err(Error::input(
            path,
            format!(
                "truncated or edited snapshot: its trailer counts {} objects, the file holds {held}",
                trailer.objects
            ),
            Some("take the snapshot again".into()),
        ));
    }
    if trailer.crc32 != format!("{crc:08x}") {
        return Err(Error::input(
            path,
            format!(
                "the snapshot was changed after it was written: its content does not match the trailer's CRC-32 ({} expected, {crc:08x} found)",
                trailer.crc32
            ),
            Some("take the snapshot again".into()),
        ));
    }
    Ok((snap, Integrity::Verified))
}

/// What the parser thread hands the interning side.
enum Msg {
    /// Parsed objects, and (of a map) the end of the lines to digest so far.
    Batch(Batch, usize),
    /// The end: the digest of everything before the trailer (of a map: where those lines
    /// end), and the trailer if any.
    End {
        crc: u32,
        digest_to: usize,
        trailer: Option<Trailer>,
    },
}

#[cfg(test)]
mod tests;
