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

use super::line_scan;
use super::{
    ApiService, DiscoveryFailure, NamespaceStatus, Provenance, Resource, Skipped, Snapshot,
    SnapshotBuilder,
};
use crate::error::{Error, Result};
use crate::model::meta::MetaLists;
use crate::model::{Batch, MetaIn, ObjId, ResourceId, Store, Sym};
use crate::util::mapped::Behind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufRead, BufWriter, Read, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, Sender, SyncSender};

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
    line_scan::agree(text, &mut MetaLists::default());
}

/// Reads a snapshot file (plain or gzip), streaming: the file is never held in memory whole,
/// and parsing and interning run on two threads (see `parse_reader`).
pub fn read_file(path: &Path) -> Result<Snapshot> {
    read_file_checked(path).map(|(s, _)| s)
}

/// [`read_file`], also saying whether the content could be verified.
pub fn read_file_checked(path: &Path) -> Result<(Snapshot, Integrity)> {
    let cannot = |e: std::io::Error| {
        Error::input(
            path,
            cannot_read(&e),
            Some("pass a file written by `kubectl gc snapshot -o FILE`".into()),
        )
    };
    let file = std::fs::File::open(path).map_err(cannot)?;
    let meta = file.metadata().ok();
    let size = meta.as_ref().map(|m| m.len()).unwrap_or(0);
    if meta.is_some_and(|m| m.is_file())
        && size >= MAP_FROM
        && let Some(map) = map_plain(&file)
    {
        return parse_mapped(path, &map, RELEASE_EVERY);
    }
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
    let gz = reader
        .fill_buf()
        .map_err(cannot)?
        .starts_with(&[0x1f, 0x8b]);
    if gz {
        let decoder = flate2::bufread::MultiGzDecoder::new(reader);
        parse_reader(path, decoder, size.saturating_mul(6))
    } else {
        parse_reader(path, reader, size)
    }
}

/// Plain files at least this large are read through a memory map ([`map_plain`]).
const MAP_FROM: u64 = 1 << 20;

/// A map of a plain (not gzip) regular file, or `None` to read it as a stream.
///
/// Read through the map, the parsing thread scans the page cache's own pages: no reading
/// thread beside it copying the file into chunks (on two cores it took CPU from the parsing
/// and interning threads, which set the read's pace). The cost of a map: a file that another
/// process truncates while it is read ends this one with SIGBUS instead of a read error, as
/// in every tool that maps its inputs (ripgrep among them); one that is rewritten in place
/// fails the trailer's CRC-32 (or, without a trailer, is read as unverified, as a stream
/// would be). `snapshot -o` writes a new file and renames it into place ([`write_file`]), so
/// neither happens to a snapshot kubectl-gc wrote.
fn map_plain(file: &std::fs::File) -> Option<memmap2::Mmap> {
    let map = crate::util::mapped::map(file)?;
    if map.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    Some(map)
}

/// Parses a mapped snapshot file (see [`map_plain`]).
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
        std::io::ErrorKind::UnexpectedEof => crate::util::read_error(e),
        _ => format!("cannot read snapshot: {e}"),
    }
}

/// Reads a snapshot (plain or gzip) from a stream, e.g. standard input.
pub fn read_from<R: Read + Send>(name: &str, reader: R) -> Result<(Snapshot, Integrity)> {
    let mut reader = std::io::BufReader::with_capacity(1 << 16, reader);
    let gz = reader
        .fill_buf()
        .map_err(|e| Error::input(name, cannot_read(&e), None))?
        .starts_with(&[0x1f, 0x8b]);
    if gz {
        parse_reader(
            Path::new(name),
            flate2::bufread::MultiGzDecoder::new(reader),
            0,
        )
    } else {
        parse_reader(Path::new(name), reader, 0)
    }
}

/// Decompresses gzip input (detected by its magic bytes); returns other input unchanged.
pub fn maybe_gunzip(path: &Path, raw: Vec<u8>) -> Result<Vec<u8>> {
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::with_capacity(raw.len() * 6);
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .map_err(|e| Error::input(path, format!("corrupt gzip data: {e}"), None))?;
        Ok(out)
    } else {
        Ok(raw)
    }
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
    /// Chunks a reader thread ([`read_chunks`]) hands over.
    Chunks {
        chunks: Receiver<std::io::Result<Vec<u8>>>,
        /// Read chunks go back to the reader thread to be filled again.
        recycle: Sender<Vec<u8>>,
    },
    /// A plain file, mapped whole ([`read_file_checked`]). Its digest and the release of its
    /// pages are the interning thread's ([`MapDigest`]).
    Mapped(&'m memmap2::Mmap),
}

/// Bytes read through a map before the pages behind are handed back ([`Feed::Mapped`]).
const RELEASE_EVERY: usize = 8 << 20;

impl<'m> LineReader<'m> {
    fn new(chunks: Receiver<std::io::Result<Vec<u8>>>, recycle: Sender<Vec<u8>>) -> Self {
        LineReader::with_feed(Feed::Chunks { chunks, recycle })
    }

    fn mapped(map: &'m memmap2::Mmap) -> Self {
        LineReader::with_feed(Feed::Mapped(map))
    }

    /// The map the lines are slices of, when mapped.
    fn map(&self) -> Option<&'m memmap2::Mmap> {
        match self.feed {
            Feed::Mapped(map) => Some(map),
            Feed::Chunks { .. } => None,
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
            let Feed::Chunks { chunks, recycle } = &self.feed else {
                unreachable!("a mapped feed returned above");
            };
            let next = match chunks.recv() {
                Ok(Ok(next)) => next,
                Ok(Err(e)) => return Err(e),
                // The reader thread ends the input by hanging up.
                Err(_) => {
                    self.eof = true;
                    Vec::new()
                }
            };
            let done = std::mem::replace(&mut self.cur, next);
            let _ = recycle.send(done);
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

/// The reader thread: fills chunks of `chunk` bytes from `r` (decompressing, if `r` does) while
/// the parser thread splits and parses the previous ones — reading, the kernel's copy and
/// inflating were a tenth of the parser's time. The end of the input is the channel closing.
fn read_chunks<R: Read>(
    mut r: R,
    chunk: usize,
    tx: SyncSender<std::io::Result<Vec<u8>>>,
    recycle: Receiver<Vec<u8>>,
) {
    loop {
        let mut buf = recycle.try_recv().unwrap_or_default();
        buf.clear();
        buf.reserve(chunk);
        match (&mut r).take(chunk as u64).read_to_end(&mut buf) {
            Ok(0) => return,
            Ok(_) => {
                if tx.send(Ok(buf)).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        }
    }
}

fn blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Parses a snapshot from a reader.
///
/// A thread reads the input in chunks ([`read_chunks`]); the header is parsed first; then one
/// thread splits and parses the object lines into [`Batch`]es (strings copied and hashed)
/// while this thread adds them to the store, in order. Interning has to stay on one thread
/// (symbols are numbered in input order), but parsing the JSON, about half of the work, runs
/// beside it.
fn parse_reader<R: Read + Send>(
    path: &Path,
    reader: R,
    size_hint: u64,
) -> Result<(Snapshot, Integrity)> {
    parse_chunked(path, reader, size_hint, CHUNK)
}

/// [`parse_reader`] with the reader thread's chunk size (tests cut lines at every byte).
fn parse_chunked<R: Read + Send>(
    path: &Path,
    reader: R,
    size_hint: u64,
    chunk: usize,
) -> Result<(Snapshot, Integrity)> {
    // Two chunks in flight: the reader fills one while the parser splits the other.
    let (chunk_tx, chunk_rx) = std::sync::mpsc::sync_channel(2);
    let (recycle_chunk, recycled_chunks) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        let reading = crate::util::spawn_scoped(scope, "snapshot-read", move || {
            read_chunks(reader, chunk, chunk_tx, recycled_chunks)
        })
        .map_err(|e| Error::thread_refused(path, format!("not read: {e}")))?;
        // Returning early drops the line reader, whose hang-up ends the reader thread.
        let parsed = parse_lines(
            path,
            LineReader::new(chunk_rx, recycle_chunk),
            size_hint,
            usize::MAX,
        );
        crate::util::join(reading);
        parsed
    })
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

/// Writes a snapshot; gzip-compressed when `path` ends in `.gz`.
pub fn write_file(snapshot: &Snapshot, path: &Path) -> Result<()> {
    // Into a temporary file beside the target, renamed over it when complete: a reader sees
    // the previous snapshot or the whole new one, never a part, and a file being read through
    // a map ([`map_plain`]) is never truncated under it. (Not synced to the disk: this is for
    // readers, not for a crash, as the plain write before it.)
    let cannot = |what: &str, e: std::io::Error| {
        Error::input(path, format!("cannot {what} snapshot file: {e}"), None)
    };
    let in_place = || {
        let file = std::fs::File::create(path).map_err(|e| cannot("create", e))?;
        write_to(snapshot, path, &file)
    };
    // Written in place where a rename would replace something else than a file's content: a
    // device or a FIFO (`-o /dev/stdout`), or a symbolic link.
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) {
        return in_place();
    }
    let Ok(tmp) = crate::util::temp_file_beside(path) else {
        // No file can be made beside it (a directory one may not write to, where the file
        // itself may be written): in place, as before, or the error of that.
        return in_place();
    };
    write_to(snapshot, path, tmp.as_file())?;
    crate::util::as_plainly_created(tmp.as_file());
    tmp.persist(path).map_err(|e| cannot("replace", e.error))?;
    Ok(())
}

/// Writes a snapshot to `file` (gzip when `path` ends in `.gz`).
fn write_to(snapshot: &Snapshot, path: &Path, file: &std::fs::File) -> Result<()> {
    let gz = path.extension().is_some_and(|e| e == "gz");
    let result = if gz {
        let mut enc =
            flate2::write::GzEncoder::new(BufWriter::new(file), flate2::Compression::fast());
        write(snapshot, &mut enc).and_then(|_| enc.finish()?.flush())
    } else {
        let mut w = BufWriter::new(file);
        write(snapshot, &mut w).and_then(|_| w.flush())
    };
    result.map_err(|e| Error::input(path, format!("cannot write snapshot: {e}"), None))
}

/// A writer that computes the CRC-32 of what goes through it.
struct Crc<'w> {
    w: &'w mut dyn Write,
    crc: crc32fast::Hasher,
}

impl Write for Crc<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.w.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

/// Writes a snapshot to any writer.
pub fn write(snapshot: &Snapshot, w: &mut dyn Write) -> std::io::Result<()> {
    let mut cw = Crc {
        w,
        crc: crc32fast::Hasher::new(),
    };
    // serde_json writes token by token (a quote, a key, a comma): through `&mut dyn Write`
    // each token was a virtual call, a CRC update of a few bytes and another virtual call into
    // the caller's writer — 0.1 s for a 50k-object snapshot, after the last list. A typed
    // buffer of our own in front makes those plain copies; the CRC and the caller's writer see
    // blocks of 256 KiB.
    {
        let mut buffered = std::io::BufWriter::with_capacity(256 * 1024, &mut cw);
        write_body(snapshot, &mut buffered)?;
        buffered.flush()?;
    }
    let trailer = TrailerLine {
        trailer: Trailer {
            objects: snapshot.store.len() as u64,
            crc32: format!("{:08x}", cw.crc.clone().finalize()),
        },
    };
    serde_json::to_writer(&mut *cw.w, &trailer)?;
    cw.w.write_all(b"\n")
}

fn write_body<W: Write>(snapshot: &Snapshot, w: &mut W) -> std::io::Result<()> {
    let header = Header {
        api_version: API_VERSION.into(),
        kind: KIND.into(),
        format_version: FORMAT_VERSION,
        provenance: snapshot.provenance.clone(),
        resources: snapshot.resources.clone(),
        discovery_failures: snapshot.discovery_failures.clone(),
        skipped: snapshot.skipped.clone(),
        namespace_status: snapshot.details.namespaces.clone(),
        api_services: snapshot.details.api_services.clone(),
        objects: snapshot.store.len() as u64,
    };
    serde_json::to_writer(&mut *w, &header)?;
    w.write_all(b"\n")?;
    for id in snapshot.store.ids() {
        let line = LineOut {
            resource: snapshot.store.object(id).resource.0,
            metadata: MetaOut {
                store: &snapshot.store,
                id,
            },
        };
        serde_json::to_writer(&mut *w, &line)?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

#[derive(Serialize)]
struct LineOut<'a> {
    resource: u32,
    metadata: MetaOut<'a>,
}

/// Serialises one object's metadata straight from the store (no intermediate `ObjectMeta`).
pub struct MetaOut<'a> {
    /// The store.
    pub store: &'a Store,
    /// The object.
    pub id: ObjId,
}

impl Serialize for MetaOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let st = self.store;
        let o = st.object(self.id);
        let text = |sym: Sym| st.str(sym);
        let mut m = s.serialize_map(None)?;
        if !o.namespace.is_empty() {
            m.serialize_entry("namespace", text(o.namespace))?;
        }
        m.serialize_entry("name", text(o.name))?;
        m.serialize_entry("uid", text(o.uid))?;
        if !o.resource_version.is_empty() {
            m.serialize_entry("resourceVersion", text(o.resource_version))?;
        }
        if !o.creation_timestamp.is_empty() {
            m.serialize_entry("creationTimestamp", &*st.timestamp(o.creation_timestamp))?;
        }
        if !o.deletion_timestamp.is_empty() {
            m.serialize_entry("deletionTimestamp", text(o.deletion_timestamp))?;
        }
        let fins = st.finalizers(self.id);
        if !fins.is_empty() {
            let v: Vec<&str> = fins.iter().map(|f| text(*f)).collect();
            m.serialize_entry("finalizers", &v)?;
        }
        let labels = st.labels(self.id);
        if !labels.is_empty() {
            m.serialize_entry("labels", &LabelsOut(st, labels))?;
        }
        if !o.ignore.is_empty() {
            let mut ann = std::collections::BTreeMap::new();
            ann.insert(crate::model::meta::IGNORE_ANNOTATION, text(o.ignore));
            m.serialize_entry("annotations", &ann)?;
        }
        let refs = st.owner_refs(self.id);
        if !refs.is_empty() {
            let v: Vec<OwnerRefOut> = refs.iter().map(|r| OwnerRefOut::new(st, r)).collect();
            m.serialize_entry("ownerReferences", &v)?;
        }
        m.end()
    }
}

struct LabelsOut<'a>(&'a Store, &'a [(Sym, Sym)]);

impl Serialize for LabelsOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.1.len()))?;
        for (k, v) in self.1 {
            m.serialize_entry(self.0.str(*k), self.0.str(*v))?;
        }
        m.end()
    }
}

/// An ownerReference in Kubernetes' own JSON shape.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct OwnerRefOut<'a> {
    /// apiVersion.
    pub api_version: &'a str,
    /// kind.
    pub kind: &'a str,
    /// name.
    pub name: &'a str,
    /// uid.
    pub uid: &'a str,
    /// controller (omitted when unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// blockOwnerDeletion (omitted when unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

impl<'a> OwnerRefOut<'a> {
    /// Resolves an interned reference.
    pub fn new(store: &'a Store, r: &crate::model::OwnerRef) -> Self {
        OwnerRefOut {
            api_version: store.str(r.api_version),
            kind: store.str(r.kind),
            name: store.str(r.name),
            uid: store.str(r.uid),
            controller: r.controller,
            block_owner_deletion: r.block_owner_deletion,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::{ListOutcome, SourceKind};

    fn sample() -> Snapshot {
        let mut b = SnapshotBuilder::new(Provenance {
            tool: "kubectl-gc test".into(),
            captured_at: "2026-01-01T00:00:00Z".into(),
            server_version: Some("v1.20.2".into()),
            source: SourceKind::Live,
            ..Default::default()
        });
        let rs = b.add_resource(Resource {
            group: "apps".into(),
            version: "v1".into(),
            kind: "ReplicaSet".into(),
            plural: "replicasets".into(),
            namespaced: true,
            verbs: vec!["delete".into(), "list".into(), "watch".into()],
            preferred_version: "v1".into(),
            list: ListOutcome::Complete,
        });
        let meta: MetaIn = serde_json::from_str(
            r#"{"namespace":"ns","name":"rs1","uid":"u-rs","resourceVersion":"7",
            "finalizers":["x/y"],"labels":{"app":"a"},
            "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"u-d","controller":true}]}"#,
        )
        .unwrap();
        b.add_object(rs, &meta);
        b.finish()
    }

    #[test]
    fn round_trips_plain_and_gzip() {
        let snap = sample();
        let dir = tempfile::tempdir().unwrap();
        for name in ["s.ndjson", "s.ndjson.gz"] {
            let p = dir.path().join(name);
            write_file(&snap, &p).unwrap();
            let back = read_file(&p).unwrap();
            assert_eq!(back.provenance, snap.provenance);
            assert_eq!(back.resources, snap.resources);
            assert_eq!(back.store.len(), 1);
            let id = ObjId(0);
            let r = back.store.owner_refs(id)[0];
            assert_eq!(back.store.str(r.uid), "u-d");
            assert_eq!(r.controller, Some(true));
            assert_eq!(r.block_owner_deletion, None);
            assert_eq!(back.store.str(back.store.finalizers(id)[0]), "x/y");
        }
    }

    #[test]
    fn truncated_file_is_an_input_error() {
        let snap = sample();
        let mut buf = Vec::new();
        write(&snap, &mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let header_only = text.lines().next().unwrap();
        let err = parse(Path::new("x"), header_only.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("truncated"), "{err}");
        assert_eq!(err.exit_code(), crate::error::exit::INPUT);
    }

    #[test]
    fn a_cut_gzip_snapshot_says_truncated() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.ndjson.gz");
        write_file(&sample(), &p).unwrap();
        let gz = std::fs::read(&p).unwrap();
        std::fs::write(&p, &gz[..gz.len() / 2]).unwrap();
        let err = read_file(&p).unwrap_err();
        assert!(
            err.to_string().contains("truncated: the data ends early"),
            "{err}"
        );
        assert_eq!(err.exit_code(), crate::error::exit::INPUT);
    }

    fn written(snap: &Snapshot) -> String {
        let mut buf = Vec::new();
        write(snap, &mut buf).unwrap();
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn trailer_detects_dropped_edited_and_appended_lines() {
        let mut snap = sample();
        let meta: MetaIn =
            serde_json::from_str(r#"{"namespace":"ns","name":"rs2","uid":"u-2"}"#).unwrap();
        let mut b = SnapshotBuilder::new(snap.provenance.clone());
        for r in &snap.resources {
            b.add_resource(r.clone());
        }
        b.add_object(
            ResourceId(0),
            &MetaIn {
                ..serde_json::from_str(r#"{"namespace":"ns","name":"rs1","uid":"u-rs"}"#).unwrap()
            },
        );
        b.add_object(ResourceId(0), &meta);
        snap = b.finish();
        let text = written(&snap);
        let (_, integrity) = parse_reader(Path::new("x"), text.as_bytes(), 0).unwrap();
        assert_eq!(integrity, Integrity::Verified);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[3].starts_with(r#"{"trailer":{"objects":2,"crc32":""#));
        // A line dropped, and the header's count edited to match: the trailer still catches it.
        let dropped = [
            lines[0]
                .replace(r#""objects":2"#, r#""objects":1"#)
                .as_str(),
            lines[2],
            lines[3],
        ]
        .join("\n");
        let err = parse(Path::new("x"), dropped.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("trailer counts 2"), "{err}");
        // A value edited.
        let edited = text.replace("rs2", "rs3");
        let err = parse(Path::new("x"), edited.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("CRC-32"), "{err}");
        // Data after the trailer.
        let appended = format!("{text}{}\n", lines[2]);
        let err = parse(Path::new("x"), appended.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("after the trailer"), "{err}");
        // Written before trailers existed: read, but unverified.
        let old = lines[..3].join("\n");
        let (_, integrity) = parse_reader(Path::new("x"), old.as_bytes(), 0).unwrap();
        assert_eq!(integrity, Integrity::Unverified);
    }

    /// The written snapshot of `sample`'s resources and `n` objects of resource 0, the metadata
    /// of object `i` being `meta_json(i)`.
    fn written_with(n: usize, meta_json: impl Fn(usize) -> String) -> String {
        let base = sample();
        let mut b = SnapshotBuilder::new(base.provenance.clone());
        for r in &base.resources {
            b.add_resource(r.clone());
        }
        for i in 0..n {
            let json = meta_json(i);
            let meta: MetaIn = serde_json::from_str(&json).unwrap();
            b.add_object(ResourceId(0), &meta);
        }
        written(&b.finish())
    }

    /// A written snapshot and five ways to spoil it: an edited value, blank lines (both change
    /// the digest), no final newline, a truncated line, data after the trailer.
    fn variants(text: &str) -> [String; 6] {
        [
            text.to_string(),
            text.replace("rs3", "rs9"),
            text.replacen('\n', "\n\n", 2),
            text.trim_end().to_string(),
            text[..text.len() / 2].to_string(),
            format!("{text}{}\n", text.lines().nth(1).unwrap()),
        ]
    }

    /// Lines cut by the reader thread's chunk boundaries at every possible place read the
    /// same as whole: the same objects, the same verdict on the trailer, the same errors.
    #[test]
    fn lines_split_across_chunks_read_as_whole() {
        let text = written_with(5, |i| {
            format!(
                r#"{{"namespace":"ns","name":"rs{i}","uid":"u-{i}","finalizers":["f/{i}"],
                "ownerReferences":[{{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"u-d"}}]}}"#
            )
        });
        let outcome = |input: &str, chunk: usize| {
            parse_chunked(Path::new("x"), input.as_bytes(), 0, chunk)
                .map(|(snap, integrity)| (written(&snap), integrity))
                .map_err(|e| e.to_string())
        };
        let variants = variants(&text);
        assert_eq!(
            outcome(&text, CHUNK),
            Ok((text.clone(), Integrity::Verified))
        );
        for input in &variants {
            let whole = outcome(input, CHUNK);
            for chunk in [1, 2, 3, 5, 7, 16, 61, 100, 256, 1000] {
                assert_eq!(outcome(input, chunk), whole, "chunk {chunk}");
            }
        }
        assert!(outcome(&variants[1], CHUNK).unwrap_err().contains("CRC-32"));
        assert!(
            outcome(&variants[5], CHUNK)
                .unwrap_err()
                .contains("after the trailer")
        );
    }

    /// A snapshot file is replaced whole (a new file renamed over the old one, with the
    /// permissions a plain create gives), and written through a symbolic link in place.
    #[test]
    fn snapshot_files_are_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.ndjson");
        std::fs::write(&file, "old").unwrap();
        let held = std::fs::File::open(&file).unwrap();
        let snap = sample();
        write_file(&snap, &file).unwrap();
        // A reader of the old file keeps reading the old file.
        let mut old = String::new();
        std::io::Read::read_to_string(&mut &held, &mut old).unwrap();
        assert_eq!(old, "old");
        assert_eq!(written(&read_file(&file).unwrap()), written(&snap));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["s.ndjson"], "no temporary file left behind");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o666 & !crate::util::umask());
            let link = dir.path().join("link.ndjson");
            std::os::unix::fs::symlink(&file, &link).unwrap();
            write_file(&snap, &link).unwrap();
            assert!(
                std::fs::symlink_metadata(&link)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert_eq!(written(&read_file(&link).unwrap()), written(&snap));
        }
        let err = write_file(&snap, &dir.path().join("no/such/s.ndjson")).unwrap_err();
        assert!(
            err.to_string().contains("cannot create snapshot file"),
            "{err}"
        );
    }

    /// A mapped file reads as the chunked stream does, its pages handed back behind the cursor
    /// as often as can be (every line), through the variants above and at every size.
    #[test]
    fn mapped_files_read_as_streamed() {
        // Enough objects for the file to span many pages.
        let text = written_with(3000, |i| {
            format!(
                r#"{{"namespace":"ns-{}","name":"rs{i}","uid":"u-{i}","labels":{{"app":"a{i}"}},
                "ownerReferences":[{{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"u-d{}"}}]}}"#,
                i % 7,
                i % 13
            )
        });
        assert!(
            text.len() > 64 * crate::util::mapped::page_size(),
            "{} bytes",
            text.len()
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.ndjson");
        let mut variants = variants(&text).to_vec();
        variants.extend([String::new(), "\n".to_string()]);
        for (i, input) in variants.iter().enumerate() {
            std::fs::write(&file, input).unwrap();
            let streamed = parse_chunked(Path::new("x"), input.as_bytes(), 0, CHUNK)
                .map(|(snap, integrity)| (written(&snap), integrity))
                .map_err(|e| e.to_string());
            let f = std::fs::File::open(&file).unwrap();
            let map = crate::util::mapped::map(&f).expect("a map of the test's own file");
            for every in [1, 4096, RELEASE_EVERY] {
                let mapped = parse_mapped(Path::new("x"), &map, every)
                    .map(|(snap, integrity)| (written(&snap), integrity))
                    .map_err(|e| e.to_string());
                assert_eq!(mapped, streamed, "variant {i}, release every {every}");
            }
        }
        // And through the file reader, which maps files from `MAP_FROM` bytes (blank lines
        // after the trailer are allowed).
        let mut big = text.clone();
        while (big.len() as u64) < MAP_FROM {
            big.push_str(&" ".repeat(64 << 10));
            big.push('\n');
        }
        std::fs::write(&file, &big).unwrap();
        let (snap, integrity) = read_file_checked(&file).unwrap();
        assert_eq!((written(&snap), integrity), (text, Integrity::Verified));
    }

    #[test]
    fn duplicate_resource_rows_are_rejected() {
        let text = written(&sample());
        let header = text.lines().next().unwrap();
        let start = header.find(r#""resources":["#).unwrap() + r#""resources":["#.len();
        let end = header[start..].find("}]").unwrap() + start + 1;
        let row = &header[start..end];
        let doubled = text.replacen(row, &format!("{row},{row}"), 1);
        let err = parse(Path::new("x"), doubled.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("resource rows 0 and 1"), "{err}");
        assert_eq!(err.exit_code(), crate::error::exit::INPUT);
    }

    #[test]
    fn kubectl_json_is_rejected_with_a_hint() {
        let err = parse(
            Path::new("x"),
            br#"{"apiVersion":"v1","kind":"List","items":[]}"#,
        )
        .unwrap_err();
        assert!(err.hint().unwrap().contains("-f"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

        /// Any edit of a valid snapshot: read or refused, never a panic. A snapshot cut short is
        /// refused, except when exactly the trailer is gone: then every object is there, and the
        /// snapshot is read as unverified (like one written before trailers existed).
        #[test]
        fn edited_or_cut_snapshots_never_panic(pos in 0usize..4096, byte in 0u8..=255, cut in 0usize..4096) {
            let text = written(&sample()).into_bytes();
            let mut edited = text.clone();
            let p = pos % edited.len();
            edited[p] = byte;
            let _ = parse(Path::new("x"), &edited);
            let cut = cut % (text.len() - 1);
            match parse_reader(Path::new("x"), &text[..cut], 0) {
                Err(_) => {}
                Ok((s, integrity)) => {
                    proptest::prop_assert_eq!(integrity, Integrity::Unverified);
                    proptest::prop_assert_eq!(s.store.len(), 1, "cut at {}", cut);
                }
            }
        }
    }
}
