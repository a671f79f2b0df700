//! The one walker: from the paths a user gave to the decompressed inputs a reader parses.
//!
//! A path is a file, a directory (walked in name order; recursively, or only its own files),
//! `-` for standard input (read once however often it is named), or a shell-style glob the
//! shell did not expand (`*`, `?`, `[…]` in the last component). What a stream is comes from
//! its first bytes, not its name: gzip, xz and zstd are decompressed on the fly; tar (plain or
//! compressed) and zip archives are walked member by member, nested ones too, as must-gathers,
//! support bundles and backups nest them. In directories, archives and globs only the names
//! the reader asks for ([`Visitor::candidate`]) are opened; FIFOs, sockets and devices met in a
//! walk are passed over (a FIFO could block forever, a device could be endless).
//!
//! Nothing reads without limit: decompressed data and data from pipes and devices stop at
//! [`Walk::max_bytes`] with a clear error, and streams nest at most [`MAX_NESTING`] deep.

use super::stream::{self, CapExceeded, Capped, Kind, sniff};
use crate::error::{Error, Result};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Archives and compressed streams inside one another are followed this deep: each archive
/// member and each decompression is one level (a must-gather's `x.tar.xz` holding
/// `y.tar.gz` holding `z.log.gz` is six).
pub const MAX_NESTING: u8 = 8;

/// Decompressed data (and data from pipes) is read up to this many bytes by default.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 8 << 30;

/// A reader's words for the walk's fatal errors (the hints name what that reader reads).
pub struct Words {
    /// The hint for a path that does not exist.
    pub not_found: &'static str,
    /// The cause and hint when `-` is a terminal.
    pub stdin_terminal: (&'static str, &'static str),
    /// The cause and hint for a directory with nothing the reader reads.
    pub empty_dir: (&'static str, &'static str),
}

/// How the walk goes.
pub struct Walk<'w> {
    /// Directories are walked into their subdirectories.
    pub recursive: bool,
    /// The most bytes read from a stream of unknown length (decompressed, an archive member,
    /// a pipe); 0: [`DEFAULT_MAX_INPUT_BYTES`].
    pub max_bytes: u64,
    /// The reader's words.
    pub words: &'w Words,
}

/// How a stream was opened.
#[derive(Clone, Copy, Debug)]
pub struct Source {
    /// Named by the user (an error is then fatal where a walk records it and goes on).
    pub explicit: bool,
    /// Nesting depth: archive members and decompressions above it.
    pub depth: u8,
    /// Inside an archive.
    pub member: bool,
    /// Its length in bytes, when it is a regular file read as it is (not decompressed, not an
    /// archive member). `None`: of unknown length, read through the cap.
    pub size: Option<u64>,
}

impl Source {
    /// A stream the user named, of unknown length unless `size` is given.
    pub fn named(size: Option<u64>) -> Source {
        Source {
            explicit: true,
            depth: 0,
            member: false,
            size,
        }
    }
}

/// One decompressed input, for the reader to parse.
pub struct Text<'a> {
    /// Its name: a path, `<stdin>`, or `archive/member`.
    pub name: &'a str,
    /// How it was opened.
    pub source: Source,
    /// Its first bytes (up to 512), not consumed from `r`.
    pub head: &'a [u8],
    /// The file's bytes, when the reader asked for a map ([`Visitor::map`]); `r` then reads
    /// the same bytes.
    pub map: Option<&'a memmap2::Mmap>,
    /// The text.
    pub r: &'a mut dyn BufRead,
}

/// What went wrong with (part of) an input the walker met.
#[derive(Debug)]
pub enum Problem {
    /// Reading failed: an I/O error, data cut short, a corrupt compressed stream, the cap.
    Read(std::io::Error),
    /// A tar archive that is damaged, not cut short.
    Tar(std::io::Error),
    /// A damaged zip archive.
    Zip(String),
    /// bzip2, which is not read.
    Bzip2,
    /// Archives or compressed streams nested deeper than [`MAX_NESTING`].
    Nested,
    /// A directory met in a walk that cannot be listed.
    Dir(std::io::Error),
    /// A symbolic link to nothing met in a walk.
    BrokenLink,
    /// A file met in a walk that cannot be opened (or is not a file).
    Open(String),
}

impl Problem {
    /// The problem in one line.
    pub fn cause(&self) -> String {
        match self {
            Problem::Read(e) => match CapExceeded::of(e) {
                Some(c) => c.to_string(),
                None => stream::read_error(e),
            },
            Problem::Tar(e) => format!("corrupt tar archive: {e}"),
            Problem::Zip(e) => format!("corrupt zip archive: {e}"),
            Problem::Bzip2 => {
                "bzip2-compressed: not supported (decompress it, or use gzip, xz or zstd)".into()
            }
            Problem::Nested => "archives or compressed streams nested too deeply: not read".into(),
            Problem::Dir(e) => format!("cannot read directory: {e}"),
            Problem::BrokenLink => "cannot read: a broken symbolic link".into(),
            Problem::Open(e) => e.clone(),
        }
    }
}

/// What the walker tells a reader besides the text.
pub enum Event<'a> {
    /// `name` (or part of it) could not be read; what was in it is unknown.
    Problem(&'a str, Problem),
    /// A file of a walk, an archive or a glob passed over: not a name the reader reads.
    Ignored(&'a str),
    /// A FIFO, socket or device met in a walk, passed over.
    Special(&'a str),
    /// An archive about to be walked.
    Archive(&'a str),
}

/// A reader of the walk's inputs: which names it reads, and what it does with each text.
pub trait Visitor {
    /// Whether a file met in a directory, archive or glob (by its name) is read.
    fn candidate(&self, name: &str) -> bool;
    /// Regular files at least this large may be read through a memory map (`None`: none is).
    fn map_from(&self) -> Option<u64> {
        None
    }
    /// Whether a regular file (of at least [`Visitor::map_from`] bytes) whose text starts with
    /// `head` is read through its map: neither compressed nor an archive, which the walker
    /// has checked.
    fn map(&self, _head: &[u8]) -> bool {
        false
    }
    /// Parses one input. An error stops the whole read.
    fn text(&mut self, text: Text<'_>) -> Result<()>;
    /// Hears of everything else the walk met; an error stops the whole read.
    fn event(&mut self, event: Event<'_>) -> Result<()>;
}

impl Walk<'_> {
    fn cap(&self) -> u64 {
        match self.max_bytes {
            0 => DEFAULT_MAX_INPUT_BYTES,
            n => n,
        }
    }

    /// Reads every path, standard input at most once.
    pub fn read_paths(&self, paths: &[PathBuf], v: &mut dyn Visitor) -> Result<()> {
        let mut stdin_read = false;
        for path in paths {
            self.read_path(path, v, &mut stdin_read)?;
        }
        Ok(())
    }

    /// Reads one path; `-` is standard input, read unless `stdin_read`.
    pub fn read_path(&self, path: &Path, v: &mut dyn Visitor, stdin_read: &mut bool) -> Result<()> {
        if path.as_os_str() == "-" {
            if !std::mem::replace(stdin_read, true) {
                self.read_stdin(v)?;
            }
            return Ok(());
        }
        match std::fs::metadata(path) {
            Ok(md) if md.is_dir() => self.read_dir(path, v),
            Ok(_) => self.read_file(path, true, v),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && is_glob(path) => {
                let matches = expand_glob(path)?;
                if matches.is_empty() {
                    return Err(Error::input(
                        path,
                        "no file matches this pattern",
                        Some("check the directory and the pattern (`*`, `?`, `[…]` in the last component)".into()),
                    ));
                }
                for m in matches {
                    if m.is_dir() {
                        self.read_dir(&m, v)?;
                    } else if self.walked_file(&m, None, v)? {
                        self.read_listed(&m, v)?;
                    }
                }
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::input(
                path,
                "no such file or directory",
                Some(self.words.not_found.into()),
            )),
            Err(e) => Err(Error::input(path, format!("cannot read: {e}"), None)),
        }
    }

    fn read_stdin(&self, v: &mut dyn Visitor) -> Result<()> {
        use std::io::IsTerminal;
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            let (cause, hint) = self.words.stdin_terminal;
            return Err(Error::input("<stdin>", cause, Some(hint.into())));
        }
        let mut lock = stdin.lock();
        self.read_stream("<stdin>", &mut lock, Source::named(None), v)
    }

    /// Reads a directory's files, in name order.
    fn read_dir(&self, dir: &Path, v: &mut dyn Visitor) -> Result<()> {
        let mut files = Vec::new();
        let mut has_subdirs = false;
        self.walk_dir(dir, true, &mut files, &mut has_subdirs, v)?;
        if files.is_empty() {
            let (cause, hint) = self.words.empty_dir;
            let hint = if !self.recursive && has_subdirs {
                "it has subdirectories: add -R (--recursive) to read them"
            } else {
                hint
            };
            return Err(Error::input(dir, cause, Some(hint.into())));
        }
        for f in files {
            self.read_listed(&f, v)?;
        }
        Ok(())
    }

    fn walk_dir(
        &self,
        dir: &Path,
        top: bool,
        files: &mut Vec<PathBuf>,
        has_subdirs: &mut bool,
        v: &mut dyn Visitor,
    ) -> Result<()> {
        let name = dir.display().to_string();
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
                v.event(Event::Problem(&name, Problem::Dir(e)))?;
                return Ok(());
            }
        };
        let mut paths: Vec<(PathBuf, std::fs::FileType)> = Vec::new();
        for entry in entries {
            match entry.and_then(|e| e.file_type().map(|t| (e.path(), t))) {
                Ok(x) => paths.push(x),
                Err(e) => v.event(Event::Problem(&name, Problem::Dir(e)))?,
            }
        }
        paths.sort_by(|a, b| a.0.cmp(&b.0));
        for (path, ft) in paths {
            if ft.is_dir() {
                *has_subdirs = true;
                if self.recursive {
                    self.walk_dir(&path, false, files, has_subdirs, v)?;
                }
                continue;
            }
            if self.walked_file(&path, Some(ft), v)? {
                files.push(path);
            }
        }
        Ok(())
    }

    /// Whether a file met in a walk or a glob is to be read; tells the reader why not.
    /// `ft`: its type as the directory listed it (`None`: look it up).
    fn walked_file(
        &self,
        path: &Path,
        ft: Option<std::fs::FileType>,
        v: &mut dyn Visitor,
    ) -> Result<bool> {
        // What cannot be looked up is a problem with its own cause; only a link whose target
        // is not found is a broken link.
        let unreadable = |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::NotFound => Problem::BrokenLink,
            _ => Problem::Open(format!("cannot read: {e}")),
        };
        let ft = match ft {
            Some(ft) => Ok(ft),
            None => std::fs::symlink_metadata(path)
                .map(|m| m.file_type())
                .map_err(unreadable),
        };
        // Like kubectl's walk, symbolic links to directories are not followed (no cycles);
        // links to files are.
        let target = match ft {
            Ok(ft) if ft.is_symlink() => match std::fs::metadata(path) {
                Ok(m) if m.is_dir() => return Ok(false),
                Ok(m) => Ok(m.file_type()),
                Err(e) => Err(unreadable(e)),
            },
            other => other,
        };
        let name = path.to_string_lossy();
        if !v.candidate(&name) {
            v.event(Event::Ignored(&name))?;
            return Ok(false);
        }
        match target {
            Ok(t) if t.is_file() => Ok(true),
            Ok(_) => {
                v.event(Event::Special(&name))?;
                Ok(false)
            }
            Err(problem) => {
                v.event(Event::Problem(&name, problem))?;
                Ok(false)
            }
        }
    }

    /// Reads a file a walk or a glob listed.
    fn read_listed(&self, path: &Path, v: &mut dyn Visitor) -> Result<()> {
        self.read_file(path, false, v)
    }

    /// Opens and reads one file; `explicit` when the user named it.
    fn read_file(&self, path: &Path, explicit: bool, v: &mut dyn Visitor) -> Result<()> {
        let name = path.display().to_string();
        if let Some(map) = self.map(path, v) {
            let source = Source {
                explicit,
                depth: 0,
                member: false,
                size: Some(map.len() as u64),
            };
            let head = &map[..map.len().min(512)];
            return v.text(Text {
                name: &name,
                source,
                head,
                map: Some(&map),
                r: &mut &map[..],
            });
        }
        let (mut file, size) = match open(path) {
            Ok(f) => f,
            Err(e) if explicit => return Err(Error::input(path, e, None)),
            Err(e) => {
                v.event(Event::Problem(&name, Problem::Open(e)))?;
                return Ok(());
            }
        };
        let source = Source {
            explicit,
            depth: 0,
            member: false,
            size,
        };
        self.read_stream(&name, &mut file, source, v)
    }

    /// A map of `path` when it is a regular file of plain text the reader wants mapped.
    fn map(&self, path: &Path, v: &dyn Visitor) -> Option<memmap2::Mmap> {
        let md = std::fs::metadata(path).ok()?;
        if !md.is_file() || md.len() < v.map_from()? {
            return None;
        }
        let file = std::fs::File::open(path).ok()?;
        let map = super::bytes::map(&file)?;
        let head = &map[..map.len().min(512)];
        (matches!(sniff(head), Kind::Text) && v.map(head)).then_some(map)
    }

    /// Reads a stream: decompresses, walks archives, hands text to the reader.
    pub fn read_stream(
        &self,
        name: &str,
        r: &mut dyn Read,
        source: Source,
        v: &mut dyn Visitor,
    ) -> Result<()> {
        let mut buffered = BufReader::with_capacity(1 << 16, r);
        self.read_buffered(name, &mut buffered, source, false, v)
    }

    /// [`Walk::read_stream`] of a buffered stream; `capped`: it is read through the cap.
    fn read_buffered(
        &self,
        name: &str,
        r: &mut dyn BufRead,
        source: Source,
        capped: bool,
        v: &mut dyn Visitor,
    ) -> Result<()> {
        let head = match peek(r, 512) {
            Ok(h) => h,
            Err(e) => {
                v.event(Event::Problem(name, Problem::Read(e)))?;
                return Ok(());
            }
        };
        let kind = sniff(&head);
        if !matches!(kind, Kind::Text) && source.depth >= MAX_NESTING {
            v.event(Event::Problem(name, Problem::Nested))?;
            return Ok(());
        }
        let inner = Source {
            depth: source.depth + 1,
            size: None,
            ..source
        };
        match kind {
            Kind::Gzip => {
                let d = flate2::bufread::MultiGzDecoder::new(r);
                self.read_capped(name, d, inner, v)
            }
            Kind::Xz => {
                let d = lzma_rust2::XzReader::new(r, true);
                self.read_capped(name, d, inner, v)
            }
            Kind::Zstd => match zstd::stream::read::Decoder::with_buffer(r) {
                Ok(d) => self.read_capped(name, d, inner, v),
                Err(e) => {
                    v.event(Event::Problem(name, Problem::Read(e)))?;
                    Ok(())
                }
            },
            Kind::Bzip2 => {
                v.event(Event::Problem(name, Problem::Bzip2))?;
                Ok(())
            }
            Kind::Tar => self.read_tar(name, r, inner, v),
            Kind::Zip => self.read_zip(name, r, inner, v),
            // Of unknown length (a pipe, a device): through the cap.
            Kind::Text if source.size.is_none() && !capped => self.read_capped(name, r, source, v),
            Kind::Text => v.text(Text {
                name,
                source,
                head: &head,
                map: None,
                r,
            }),
        }
    }

    /// Reads a stream of unknown length through the cap.
    fn read_capped<R: Read>(
        &self,
        name: &str,
        inner: R,
        source: Source,
        v: &mut dyn Visitor,
    ) -> Result<()> {
        let cap = self.cap();
        let mut capped = Capped {
            inner,
            left: cap,
            cap,
        };
        let mut r = BufReader::with_capacity(1 << 16, &mut capped);
        self.read_buffered(name, &mut r, source, true, v)
    }

    fn read_tar(
        &self,
        name: &str,
        r: &mut dyn BufRead,
        inner: Source,
        v: &mut dyn Visitor,
    ) -> Result<()> {
        v.event(Event::Archive(name))?;
        let ran_out = std::cell::Cell::new(false);
        let broken = |e| match stream::truncation(e, &ran_out) {
            e if e.kind() == std::io::ErrorKind::UnexpectedEof => Problem::Read(e),
            e => Problem::Tar(e),
        };
        let mut archive = tar::Archive::new(stream::RanOut::new(r, &ran_out));
        let entries = match archive.entries() {
            Ok(e) => e,
            Err(e) => {
                v.event(Event::Problem(name, broken(e)))?;
                return Ok(());
            }
        };
        for entry in entries {
            let mut entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    v.event(Event::Problem(name, broken(e)))?;
                    return Ok(());
                }
            };
            let t = entry.header().entry_type();
            if !(t.is_file() || t == tar::EntryType::Continuous) {
                continue;
            }
            let member = match entry.path() {
                Ok(p) => format!("{name}/{}", p.display()),
                Err(_) => format!("{name}/?"),
            };
            if !v.candidate(&member) {
                v.event(Event::Ignored(&member))?;
                continue;
            }
            self.read_member(&member, &mut entry, inner, v)?;
        }
        Ok(())
    }

    fn read_zip(
        &self,
        name: &str,
        r: &mut dyn BufRead,
        inner: Source,
        v: &mut dyn Visitor,
    ) -> Result<()> {
        v.event(Event::Archive(name))?;
        let mut r = r;
        loop {
            let mut file = match zip::read::read_zipfile_from_stream(&mut r) {
                Ok(Some(f)) => f,
                Ok(None) => return Ok(()),
                Err(zip::result::ZipError::Io(e)) => {
                    v.event(Event::Problem(name, Problem::Read(e)))?;
                    return Ok(());
                }
                Err(e) => {
                    v.event(Event::Problem(name, Problem::Zip(e.to_string())))?;
                    return Ok(());
                }
            };
            if !file.is_file() {
                continue;
            }
            let member = format!(
                "{name}/{}",
                file.name()
                    .map(|n| n.into_owned())
                    .unwrap_or_else(|_| "?".into())
            );
            if !v.candidate(&member) {
                v.event(Event::Ignored(&member))?;
                continue;
            }
            self.read_member(&member, &mut file, inner, v)?;
        }
    }

    fn read_member(
        &self,
        member: &str,
        r: &mut dyn Read,
        inner: Source,
        v: &mut dyn Visitor,
    ) -> Result<()> {
        let source = Source {
            explicit: false,
            member: true,
            size: None,
            ..inner
        };
        self.read_stream(member, r, source, v)
    }
}

/// Peeks at up to `n` bytes without consuming them.
fn peek(r: &mut dyn BufRead, n: usize) -> std::io::Result<Vec<u8>> {
    let buf = loop {
        match r.fill_buf() {
            Ok(b) => break b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    };
    Ok(buf[..buf.len().min(n)].to_vec())
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

/// True when the last component has a glob character.
fn is_glob(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.contains(['*', '?', '[']))
}

/// The entries of the pattern's directory whose names match its last component, sorted.
fn expand_glob(path: &Path) -> Result<Vec<PathBuf>> {
    let pattern = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Error::input(
            path,
            format!("cannot read directory {}: {e}", dir.display()),
            None,
        )
    })?;
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| glob_match(pattern, n))
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    Ok(out)
}

/// Shell pattern matching of one path component: `*`, `?`, `[abc]`, `[a-z]`, `[!x]`/`[^x]`;
/// a leading `.` is matched only by a leading `.` in the pattern.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
                continue;
            }
            Some('?') => Some(1),
            Some('[') => class(&p[pi..], n[ni]),
            Some(c) if *c == n[ni] => Some(1),
            _ => None,
        };
        match step {
            Some(len) => {
                pi += len;
                ni += 1;
            }
            None => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// A `[…]` class at the start of `p`: its length when `c` matches it. An unclosed `[` is a
/// literal `[`.
fn class(p: &[char], c: char) -> Option<usize> {
    let mut i = 1;
    let negate = matches!(p.get(1), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while let Some(&x) = p.get(i) {
        if x == ']' && !first {
            return (matched != negate).then_some(i + 1);
        }
        first = false;
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|e| *e != ']') {
            if (x..=p[i + 2]).contains(&c) {
                matched = true;
            }
            i += 3;
        } else {
            if x == c {
                matched = true;
            }
            i += 1;
        }
    }
    (c == '[').then_some(1)
}

#[cfg(test)]
mod tests;
