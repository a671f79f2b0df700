//! Inputs: files, directories (walked recursively, in name order), shell-style globs the
//! shell did not expand (`*`, `?`, `[…]` in the last component), `-` for standard input, and
//! what is inside them: gzip, xz and zstd are decompressed on the fly (by their magic bytes, not
//! their names), tar and zip archives walked member by member, nested ones too (a must-gather
//! tarball of `*.log.gz`).
//!
//! Files met in a directory, archive or glob that are not audit logs by their content (a
//! must-gather's `*.audit_logs_listing`, YAML, another kind of JSON) are passed over and named
//! in [`super::super::ReadStats::skipped_inputs`]; an input the user named is always read.

use super::Ctx;
use crate::error::{Error, Result};
use crate::source::stream::{self, Kind, sniff};
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

/// Compressed streams and archives inside one another are followed this deep.
const MAX_NESTING: u8 = 4;

/// Reads every input of the options.
pub(in super::super) fn read_all(paths: &[PathBuf], ctx: &mut Ctx) -> Result<()> {
    let mut stdin_read = false;
    for path in paths {
        if path.as_os_str() == "-" {
            if !std::mem::replace(&mut stdin_read, true) {
                read_stdin(ctx)?;
            }
            continue;
        }
        match std::fs::metadata(path) {
            Ok(md) if md.is_dir() => read_dir(path, ctx)?,
            Ok(_) => read_file(path, true, ctx)?,
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
                        read_dir(&m, ctx)?;
                    } else {
                        read_file(&m, false, ctx)?;
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::input(
                    path,
                    "no such file or directory",
                    Some("pass audit log files (plain or gzipped), directories of them, or - for standard input".into()),
                ));
            }
            Err(e) => return Err(Error::input(path, format!("cannot read: {e}"), None)),
        }
    }
    Ok(())
}

fn read_stdin(ctx: &mut Ctx) -> Result<()> {
    use std::io::IsTerminal;
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Error::input(
            "<stdin>",
            "- reads standard input, which is a terminal",
            Some("pipe the audit log in: zcat audit.log.gz | kubectl gc … -".into()),
        ));
    }
    let mut lock = stdin.lock();
    read_stream(ctx, "<stdin>", &mut lock, false, 0);
    Ok(())
}

/// Opens and reads a file; `explicit` when the user named it (an error is then fatal, where a
/// walk records a problem and goes on).
fn read_file(path: &Path, explicit: bool, ctx: &mut Ctx) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let name = path.display().to_string();
    let opened = std::fs::metadata(path)
        .map_err(|e| format!("cannot read: {e}"))
        .and_then(|md| {
            let ft = md.file_type();
            if ft.is_char_device() || ft.is_block_device() {
                Err("a device, not a file: refused (it may never end)".to_string())
            } else if ft.is_socket() {
                Err("a socket, not a file: refused".to_string())
            } else {
                // Regular files, and FIFOs the user named (`<(zcat …)`).
                std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))
            }
        });
    match opened {
        Ok(mut f) => {
            read_stream(ctx, &name, &mut f, !explicit, 0);
            Ok(())
        }
        Err(e) if explicit => Err(Error::input(path, e, None)),
        Err(e) => {
            ctx.problem_in(&name, 0, || e);
            Ok(())
        }
    }
}

/// Reads a directory's regular files, recursively, in name order.
fn read_dir(dir: &Path, ctx: &mut Ctx) -> Result<()> {
    let mut files = Vec::new();
    walk(dir, true, &mut files, ctx)?;
    if files.is_empty() {
        return Err(Error::input(
            dir,
            "no file in this directory",
            Some("pass the directory that holds the audit logs (audit.log, audit-*.log.gz)".into()),
        ));
    }
    for f in files {
        read_file(&f, false, ctx)?;
    }
    Ok(())
}

fn walk(dir: &Path, top: bool, files: &mut Vec<PathBuf>, ctx: &mut Ctx) -> Result<()> {
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
            ctx.problem_in(&name, 0, || format!("cannot read directory: {e}"));
            return Ok(());
        }
    };
    let mut paths = Vec::new();
    for entry in entries {
        match entry.and_then(|e| e.file_type().map(|t| (e.path(), t))) {
            Ok(x) => paths.push(x),
            Err(e) => ctx.problem_in(&name, 0, || format!("cannot read directory: {e}")),
        }
    }
    paths.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, ft) in paths {
        if ft.is_dir() {
            walk(&path, false, files, ctx)?;
        } else if ft.is_file() {
            files.push(path);
        } else if ft.is_symlink() {
            // Links to files are followed; links to directories are not (no cycles).
            match std::fs::metadata(&path) {
                Ok(m) if m.is_file() => files.push(path),
                Ok(_) => {}
                Err(e) => {
                    let n = path.display().to_string();
                    ctx.problem_in(&n, 0, || format!("cannot read: {e}"));
                }
            }
        }
        // FIFOs, sockets and devices met in a walk are passed over: they could block or never end.
    }
    Ok(())
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
pub(in crate::source::audit) fn glob_match(pattern: &str, name: &str) -> bool {
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

/// Reads a stream: decompresses, walks archives, reads text. `walked`: not named by the user.
pub(super) fn read_stream(ctx: &mut Ctx, name: &str, r: &mut dyn Read, walked: bool, depth: u8) {
    let mut head = [0u8; 512];
    let mut n = 0;
    while n < head.len() {
        match r.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                ctx.problem_in(name, 0, || crate::util::read_error(&e));
                return;
            }
        }
    }
    let mut stream = Cursor::new(&head[..n]).chain(r);
    let kind = sniff(&head[..n]);
    if !matches!(kind, Kind::Text) && depth >= MAX_NESTING {
        ctx.problem_in(name, 0, || {
            "compressed or archived too many times over: not read".into()
        });
        return;
    }
    match kind {
        Kind::Gzip => {
            let mut d = flate2::read::MultiGzDecoder::new(stream);
            read_stream(ctx, name, &mut d, walked, depth + 1);
        }
        Kind::Xz => {
            let mut d = lzma_rust2::XzReader::new(stream, true);
            read_stream(ctx, name, &mut d, walked, depth + 1);
        }
        Kind::Zstd => match zstd::stream::read::Decoder::new(stream) {
            Ok(mut d) => read_stream(ctx, name, &mut d, walked, depth + 1),
            Err(e) => ctx.problem_in(name, 0, || format!("cannot read zstd: {e}")),
        },
        Kind::Bzip2 => ctx.problem_in(name, 0, || {
            "bzip2-compressed: not supported (decompress it, or use gzip, xz or zstd)".into()
        }),
        Kind::Tar => read_tar(ctx, name, &mut stream, depth),
        Kind::Zip => read_zip(ctx, name, &mut stream, depth),
        Kind::Text => super::read_text(ctx, name, &mut stream, walked),
    }
}

fn read_tar(ctx: &mut Ctx, name: &str, r: &mut dyn Read, depth: u8) {
    let ran_out = std::cell::Cell::new(false);
    let broken = |e| match stream::truncation(e, &ran_out) {
        e if e.kind() == std::io::ErrorKind::UnexpectedEof => crate::util::read_error(&e),
        e => format!("corrupt tar archive: {e}"),
    };
    let mut archive = tar::Archive::new(stream::RanOut::new(r, &ran_out));
    let entries = match archive.entries() {
        Ok(e) => e,
        Err(e) => return ctx.problem_in(name, 0, || broken(e)),
    };
    for entry in entries {
        let mut entry = match entry {
            Ok(e) => e,
            Err(e) => return ctx.problem_in(name, 0, || broken(e)),
        };
        let t = entry.header().entry_type();
        if !(t.is_file() || t == tar::EntryType::Continuous) {
            continue;
        }
        let member = match entry.path() {
            Ok(p) => format!("{name}/{}", p.display()),
            Err(_) => format!("{name}/?"),
        };
        read_stream(ctx, &member, &mut entry, true, depth + 1);
    }
}

fn read_zip(ctx: &mut Ctx, name: &str, r: &mut dyn Read, depth: u8) {
    let mut r = r;
    loop {
        let mut file = match zip::read::read_zipfile_from_stream(&mut r) {
            Ok(Some(f)) => f,
            Ok(None) => return,
            Err(zip::result::ZipError::Io(e)) => {
                return ctx.problem_in(name, 0, || crate::util::read_error(&e));
            }
            Err(e) => return ctx.problem_in(name, 0, || format!("corrupt zip archive: {e}")),
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
        read_stream(ctx, &member, &mut file, true, depth + 1);
    }
}
