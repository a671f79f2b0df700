//! Inputs: files, directories (walked like `kubectl -f DIR [-R]`), standard input, and
//! archives and compressed files read as streams without extracting them.
//!
//! What a stream is comes from its first bytes, not its name: gzip, xz and zstd are
//! decompressed on the fly; tar (plain or compressed) and zip archives are walked member by
//! member, nested ones too, as must-gathers and support bundles nest them; anything else is
//! text, JSON when it starts with `{` or `[`, YAML otherwise. In directories and archives only
//! names kubectl-gc reads are opened (`.json`, `.yaml`, `.yml`, optionally compressed, and
//! archives); FIFOs, sockets and devices met in a walk are passed over with a note.
//!
//! Nothing reads without limit: decompressed data and data from pipes and devices stop at
//! [`super::FileOptions::max_input_bytes`] with a clear error.

use super::accounting::Loc;
use super::coverage::Hole;
use super::recognize::Reader;
use super::{json, yaml};
use crate::error::{Error, Result};
use crate::snapshot::format::looks_like_snapshot;
use crate::source::stream::{self, Kind, sniff};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Archives inside archives are followed this deep.
const MAX_NESTING: u8 = 4;

const TEXT_EXTENSIONS: [&str; 3] = ["json", "yaml", "yml"];
const COMPRESSED: [&str; 3] = ["gz", "xz", "zst"];
const ARCHIVES: [&str; 8] = [
    ".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.zst", ".tzst", ".zip",
];

/// True for names kubectl-gc reads in a walk (`x.yaml`, `x.json.gz`, `bundle.tar.gz`, …).
pub(crate) fn is_candidate(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    if ARCHIVES.iter().any(|a| name.ends_with(a)) {
        return true;
    }
    let base = COMPRESSED
        .iter()
        .find_map(|c| name.strip_suffix(&format!(".{c}")))
        .unwrap_or(&name);
    let file = base.rsplit('/').next().unwrap_or(base);
    TEXT_EXTENSIONS
        .iter()
        .any(|ext| file.len() > ext.len() + 1 && file.ends_with(&format!(".{ext}")))
}

/// How a stream was opened.
#[derive(Clone, Copy)]
pub(crate) struct Source {
    /// Named by the user (an error is then fatal where a walk records it and goes on).
    pub explicit: bool,
    /// Archive nesting depth.
    pub depth: u8,
    /// Its length in bytes, when it is a regular file read as it is (not decompressed, not an
    /// archive member): a large JSON input estimates the store's size from it. `None`: of
    /// unknown length (a pipe, a device, an archive member, decompressed), bounded by the cap.
    pub size: Option<u64>,
}

impl Source {
    /// Of unknown length: read through the cap.
    fn unbounded(&self) -> bool {
        self.size.is_none()
    }
}

/// Reads one path given with `-f`.
pub(crate) fn read_path(path: &Path, reader: &mut Reader<'_>, stdin_read: &mut bool) -> Result<()> {
    if path.as_os_str() == "-" {
        if !std::mem::replace(stdin_read, true) {
            read_stdin(reader)?;
        }
        return Ok(());
    }
    let md = std::fs::metadata(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::input(
                path,
                "no such file or directory",
                Some("pass files or directories holding `kubectl get -o json|yaml` output, or - for standard input".into()),
            )
        } else {
            Error::input(path, format!("cannot read: {e}"), None)
        }
    })?;
    if md.is_dir() {
        let mut files = Vec::new();
        let mut has_subdirs = false;
        walk_dir(
            path,
            reader.opts.recursive,
            true,
            &mut files,
            &mut has_subdirs,
            reader,
        )?;
        if files.is_empty() {
            let hint = if !reader.opts.recursive && has_subdirs {
                "it has subdirectories: add -R (--recursive) to read them"
            } else {
                "kubectl-gc reads .json, .yaml and .yml files (optionally compressed: .gz, .xz, .zst) and archives (.tar, .tar.gz, .tgz, .tar.xz, .zip)"
            };
            return Err(Error::input(
                path,
                "no .json, .yaml or .yml file or archive in this directory",
                Some(hint.into()),
            ));
        }
        for f in files {
            read_file(&f, false, reader)?;
        }
        return Ok(());
    }
    read_file(path, true, reader)
}

fn read_stdin(reader: &mut Reader<'_>) -> Result<()> {
    use std::io::IsTerminal;
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Error::input(
            "<stdin>",
            "-f - reads standard input, which is a terminal",
            Some(
                "pipe kubectl output in: kubectl get pods -A -o json | kubectl gc audit -f -"
                    .into(),
            ),
        ));
    }
    let mut lock = stdin.lock();
    let source = Source {
        explicit: true,
        depth: 0,
        size: None,
    };
    read_stream("<stdin>", &mut lock, source, reader)
}

fn walk_dir(
    dir: &Path,
    recursive: bool,
    top: bool,
    files: &mut Vec<PathBuf>,
    has_subdirs: &mut bool,
    reader: &mut Reader<'_>,
) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if top => {
            return Err(Error::input(
                dir,
                format!("cannot read directory: {e}"),
                None,
            ));
        }
        Err(e) => {
            reader.broken(
                &Loc::file(&dir.display().to_string()),
                format!("cannot read directory: {e}"),
                Hole::Everything,
            );
            return Ok(());
        }
    };
    let mut paths: Vec<(PathBuf, std::fs::FileType)> = Vec::new();
    for entry in entries {
        match entry.and_then(|e| e.file_type().map(|t| (e.path(), t))) {
            Ok(x) => paths.push(x),
            Err(e) => reader.broken(
                &Loc::file(&dir.display().to_string()),
                format!("cannot read directory: {e}"),
                Hole::Everything,
            ),
        }
    }
    paths.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, ft) in paths {
        if ft.is_dir() {
            *has_subdirs = true;
            if recursive {
                walk_dir(&path, recursive, false, files, has_subdirs, reader)?;
            }
            continue;
        }
        // Like kubectl's walk, symbolic links to directories are not followed; links to
        // files are.
        let target = if ft.is_symlink() {
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() => continue,
                Ok(m) => Some(m.file_type()),
                Err(_) => None,
            }
        } else {
            Some(ft)
        };
        let name = path.to_string_lossy();
        if !is_candidate(&name) {
            reader.stats.files_ignored += 1;
            continue;
        }
        match target {
            Some(t) if t.is_file() => files.push(path),
            Some(_) => {
                // A FIFO could block forever, a device could be endless.
                reader.stats.special_files += 1;
                reader
                    .stats
                    .ignore("not a regular file (FIFO, socket or device)");
            }
            None => reader.broken(
                &Loc::file(&name),
                "cannot read: a broken symbolic link",
                Hole::Everything,
            ),
        }
    }
    Ok(())
}

/// Regular files of JSON text at least this large are read through a memory map
/// ([`map_json`]); smaller ones fit the stream's first read.
#[cfg(not(test))]
const MAP_FROM: u64 = 1 << 20;
/// Every JSON file in tests, so that every test that reads one takes that path.
#[cfg(test)]
const MAP_FROM: u64 = 1;

/// A map of `path` when it is a regular file of at least [`MAP_FROM`] bytes whose text starts
/// as JSON does, or `None` to read it as a stream (smaller, compressed, an archive, YAML, or
/// a map refused). Only JSON: its reader hands the pages it has parsed back to the kernel as
/// it goes ([`json::read_mapped`]), so that the process holds the objects' metadata, not the
/// file; the other readers would keep every page they touched. (Compressed data and archives
/// never start as JSON; a snapshot does, and [`read_text`] tells it apart as for a stream.)
fn map_json(path: &Path) -> Option<memmap2::Mmap> {
    let md = std::fs::metadata(path).ok()?;
    if !md.is_file() || md.len() < MAP_FROM {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let map = crate::util::mapped::map(&file)?;
    starts_as_json(&map[..map.len().min(512)]).then_some(map)
}

/// Whether text starting with `head` is read as JSON: its first byte after a byte-order mark
/// and whitespace opens an object or an array.
fn starts_as_json(head: &[u8]) -> bool {
    let start = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
    matches!(
        start.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{') | Some(b'[')
    )
}

/// Opens and reads one file; `explicit` when the user named it.
fn read_file(path: &Path, explicit: bool, reader: &mut Reader<'_>) -> Result<()> {
    let name = path.display().to_string();
    if let Some(map) = map_json(path) {
        let source = Source {
            explicit,
            depth: 0,
            size: Some(map.len() as u64),
        };
        return read_text(&name, &mut &map[..], source, Some(&map), reader);
    }
    let file = match open(path) {
        Ok(f) => f,
        Err(e) if explicit => return Err(Error::input(path, e, None)),
        Err(e) => {
            reader.broken(&Loc::file(&name), e, Hole::Everything);
            return Ok(());
        }
    };
    let (mut file, size) = file;
    let source = Source {
        explicit,
        depth: 0,
        size,
    };
    read_stream(&name, &mut file, source, reader)
}

/// Opens a file without ever blocking: a FIFO nobody writes to is an empty input, not a hang;
/// devices and sockets are refused. With the file's length when it is a regular file.
fn open(path: &Path) -> std::result::Result<(Box<dyn Read>, Option<u64>), String> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let md = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    let ft = md.file_type();
    if ft.is_file() {
        let f = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
        return Ok((Box::new(f), Some(md.len())));
    }
    if ft.is_fifo() {
        // Opening a FIFO for reading blocks until a writer opens it; with O_NONBLOCK it
        // returns at once. A first read of 0 bytes then means nobody is writing.
        let nb = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| format!("cannot read: {e}"))?;
        let mut probe = [0u8; 1];
        let mut first = Vec::new();
        match (&nb).read(&mut probe) {
            Ok(0) => return Ok((Box::new(std::io::empty()), None)),
            Ok(_) => first.push(probe[0]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(format!("cannot read: {e}")),
        }
        // A writer is there: read on in blocking mode (a second descriptor; the first keeps
        // the pipe open meanwhile).
        let f = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
        drop(nb);
        return Ok((Box::new(std::io::Cursor::new(first).chain(f)), None));
    }
    Err(if ft.is_char_device() || ft.is_block_device() {
        "a device, not a file: refused (it may never end)".into()
    } else if ft.is_socket() {
        "a socket, not a file: refused".into()
    } else {
        "not a regular file".into()
    })
}

/// A reader that fails once more than `cap` bytes came through.
struct Capped<R> {
    inner: R,
    left: u64,
    cap: u64,
}

/// The error [`Capped`] returns.
#[derive(Debug)]
struct CapExceeded(u64);

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

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            // Allow a clean end exactly at the cap.
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(std::io::Error::other(CapExceeded(self.cap))),
            };
        }
        let want = buf.len().min(self.left.min(usize::MAX as u64) as usize);
        let n = self.inner.read(&mut buf[..want])?;
        self.left -= n as u64;
        Ok(n)
    }
}

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

/// Peeks at up to `n` bytes without consuming them.
fn peek(r: &mut dyn BufRead, n: usize) -> std::io::Result<Vec<u8>> {
    // BufReader's buffer holds at least 8 KiB; one fill is enough for magic numbers unless
    // the source returns short reads, so keep filling a private copy.
    let buf = loop {
        match r.fill_buf() {
            Ok(b) => break b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    };
    Ok(buf[..buf.len().min(n)].to_vec())
}

/// Reads a stream: decompresses, walks archives, parses text.
pub(crate) fn read_stream(
    name: &str,
    r: &mut dyn Read,
    source: Source,
    reader: &mut Reader<'_>,
) -> Result<()> {
    let cap = reader.opts.max_input_bytes;
    let mut buffered = BufReader::with_capacity(1 << 16, r);
    let head = match peek(&mut buffered, 512) {
        Ok(h) => h,
        Err(e) => return io_problem(name, source, e, reader),
    };
    let inner = Source {
        size: None,
        ..source
    };
    match sniff(&head) {
        Kind::Gzip => {
            let d = flate2::bufread::MultiGzDecoder::new(buffered);
            read_capped(name, d, inner, cap, reader)
        }
        Kind::Xz => {
            let d = lzma_rust2::XzReader::new(buffered, true);
            read_capped(name, d, inner, cap, reader)
        }
        Kind::Zstd => match zstd::stream::read::Decoder::with_buffer(buffered) {
            Ok(d) => read_capped(name, d, inner, cap, reader),
            Err(e) => io_problem(name, source, e, reader),
        },
        Kind::Bzip2 => {
            reader.broken(
                &Loc::file(name),
                "bzip2-compressed: not supported (decompress it, or use gzip, xz or zstd)",
                Hole::Everything,
            );
            Ok(())
        }
        _ if source.unbounded() => read_capped(name, buffered, source, cap, reader),
        _ => read_decoded(name, &mut buffered, source, reader),
    }
}

fn read_capped<R: Read>(
    name: &str,
    inner: R,
    source: Source,
    cap: u64,
    reader: &mut Reader<'_>,
) -> Result<()> {
    let mut capped = Capped {
        inner,
        left: cap,
        cap,
    };
    read_decoded(
        name,
        &mut BufReader::with_capacity(1 << 16, &mut capped),
        source,
        reader,
    )
}

/// Reads a decompressed stream: an archive or text.
fn read_decoded(
    name: &str,
    r: &mut dyn BufRead,
    source: Source,
    reader: &mut Reader<'_>,
) -> Result<()> {
    read_text(name, r, source, None, reader)
}

/// [`read_decoded`], where `r` may be the bytes of `map` (a file [`map_json`] mapped): its
/// JSON is then parsed in place.
fn read_text(
    name: &str,
    r: &mut dyn BufRead,
    source: Source,
    map: Option<&memmap2::Mmap>,
    reader: &mut Reader<'_>,
) -> Result<()> {
    let head = match peek(r, 512) {
        Ok(h) => h,
        Err(e) => return io_problem(name, source, e, reader),
    };
    match sniff(&head) {
        Kind::Tar => return read_tar(name, r, source, reader),
        Kind::Zip => return read_zip(name, r, source, reader),
        Kind::Gzip | Kind::Xz | Kind::Zstd if source.depth < MAX_NESTING => {
            // Compressed twice (`x.json.gz.gz`): once more.
            let inner = Source {
                depth: source.depth + 1,
                ..source
            };
            return read_stream(name, r, inner, reader);
        }
        _ => {}
    }
    if head.is_empty() {
        if source.explicit {
            reader.broken(
                &Loc::file(name),
                if name == "<stdin>" {
                    "empty input (standard input is empty or closed)"
                } else {
                    "empty input"
                },
                Hole::Everything,
            );
        } else {
            reader.stats.ignore("empty file");
        }
        return Ok(());
    }
    if looks_like_snapshot(&head) {
        if source.explicit {
            return Err(Error::input(
                name,
                "this is a kubectl-gc snapshot, not kubectl output; it cannot be combined with other inputs",
                Some("read it alone: --snapshot FILE, or -f FILE with no other -f".into()),
            ));
        }
        reader
            .stats
            .ignore("a kubectl-gc snapshot (read it with --snapshot FILE)");
        reader.skipped.push(crate::snapshot::Skipped {
            source: name.to_owned(),
            reason: "a kubectl-gc snapshot (read it with --snapshot FILE)".into(),
        });
        return Ok(());
    }
    reader.stats.files += 1;
    // Lines of manifests name a file of the repository only outside archives.
    reader.track_lines = reader.opts.manifests && source.depth == 0;
    let result = if starts_as_json(&head) {
        reader.input_size(source.size);
        let read = match map {
            Some(map) => json::read_mapped(name, map, reader),
            None => json::read(name, r, reader),
        };
        reader.input_size(None);
        match read {
            Ok(json::Outcome::Done) => Ok(()),
            Ok(json::Outcome::NotJson(start, json_problem)) => {
                let (objects, problems) = (reader.stats.objects, reader.problems.len());
                let mut chained = BufReader::new(std::io::Cursor::new(start).chain(r));
                let r = yaml::read(name, &mut chained, reader);
                // Not YAML either: the JSON parser's message is the one that helps.
                if reader.stats.objects == objects && reader.problems.len() > problems {
                    while reader.problems.len() > problems {
                        reader.unrecord_last();
                    }
                    reader.rerecord(json_problem, Hole::Everything);
                }
                r
            }
            Err(e) => Err(e),
        }
    } else {
        yaml::read(name, r, reader)
    };
    match result {
        Ok(()) => Ok(()),
        Err(e) => io_problem(name, source, e, reader),
    }
}

/// An I/O error while reading a stream (a corrupt compressed file, a cap exceeded, a
/// vanished file): broken input; everything is unknown (what was lost cannot be told).
fn io_problem(
    name: &str,
    _source: Source,
    e: std::io::Error,
    reader: &mut Reader<'_>,
) -> Result<()> {
    if let Some(refused) = crate::util::ThreadRefused::of(&e) {
        // Not a fault of this input, and no input after it can be read either: the run stops.
        return Err(Error::thread_refused(name, format!("not read: {refused}")));
    }
    let cause = match e.get_ref().and_then(|i| i.downcast_ref::<CapExceeded>()) {
        Some(c) => c.to_string(),
        None => crate::util::read_error(&e),
    };
    reader.broken(&Loc::file(name), cause, Hole::Everything);
    Ok(())
}

fn read_tar(
    name: &str,
    r: &mut dyn BufRead,
    source: Source,
    reader: &mut Reader<'_>,
) -> Result<()> {
    if source.depth >= MAX_NESTING {
        reader.broken(
            &Loc::file(name),
            "archives nested too deeply",
            Hole::Everything,
        );
        return Ok(());
    }
    reader.stats.archives += 1;
    let ran_out = std::cell::Cell::new(false);
    let truncation = |e| stream::truncation(e, &ran_out);
    let mut archive = tar::Archive::new(stream::RanOut::new(r, &ran_out));
    let entries = match archive.entries() {
        Ok(e) => e,
        Err(e) => return io_problem(name, source, truncation(e), reader),
    };
    for entry in entries {
        let mut entry = match entry {
            Ok(e) => e,
            Err(e) => return io_problem(name, source, truncation(e), reader),
        };
        let member = match entry.path() {
            Ok(p) => format!("{name}/{}", p.display()),
            Err(_) => format!("{name}/?"),
        };
        let t = entry.header().entry_type();
        if !(t.is_file() || t == tar::EntryType::Continuous) {
            continue;
        }
        if !is_candidate(&member) {
            reader.stats.files_ignored += 1;
            continue;
        }
        let inner = Source {
            explicit: false,
            depth: source.depth + 1,
            size: None,
        };
        read_stream(&member, &mut entry, inner, reader)?;
    }
    Ok(())
}

fn read_zip(
    name: &str,
    r: &mut dyn BufRead,
    source: Source,
    reader: &mut Reader<'_>,
) -> Result<()> {
    if source.depth >= MAX_NESTING {
        reader.broken(
            &Loc::file(name),
            "archives nested too deeply",
            Hole::Everything,
        );
        return Ok(());
    }
    reader.stats.archives += 1;
    let mut r = r;
    loop {
        let mut file = match zip::read::read_zipfile_from_stream(&mut r) {
            Ok(Some(f)) => f,
            Ok(None) => return Ok(()),
            Err(zip::result::ZipError::Io(e)) => return io_problem(name, source, e, reader),
            Err(e) => {
                reader.broken(
                    &Loc::file(name),
                    format!("corrupt zip archive: {e}"),
                    Hole::Everything,
                );
                return Ok(());
            }
        };
        let member = format!(
            "{name}/{}",
            file.name()
                .map(|n| n.into_owned())
                .unwrap_or_else(|_| "?".into())
        );
        if !file.is_file() {
            continue;
        }
        if !is_candidate(&member) {
            reader.stats.files_ignored += 1;
            continue;
        }
        let inner = Source {
            explicit: false,
            depth: source.depth + 1,
            size: None,
        };
        read_stream(&member, &mut file, inner, reader)?;
    }
}
