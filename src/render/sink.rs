//! Where a rendered report goes: stdout, or a file given with `--output-file`, written
//! atomically — into a temporary file in the target's own directory (so the final rename
//! never crosses a filesystem), flushed and synced, then renamed over the target. A reader
//! (a CI step uploading the SARIF, a browser refreshing the HTML) sees the previous file or
//! the complete new one, never a partial report; when the command fails before the end, the
//! temporary file is removed and an existing target is left untouched.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A report's destination.
pub enum Sink {
    /// Buffered stdout.
    Stdout(BufWriter<io::StdoutLock<'static>>),
    /// A temporary file, renamed to `path` by [`Sink::commit`].
    File {
        /// The temporary file, buffered.
        tmp: BufWriter<tempfile::NamedTempFile>,
        /// The target.
        path: PathBuf,
    },
}

fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

impl Sink {
    /// Stdout, or a temporary file beside `path`. Creating the temporary file first makes a
    /// missing directory or a read-only one fail at once, before any work is done. A target
    /// that cannot be a file (a directory, a missing directory) is the command line's fault
    /// (exit 2, with a hint); a directory that refuses the file is an I/O error naming the
    /// target, never the hidden temporary file.
    pub fn open(path: Option<&Path>) -> crate::error::Result<Sink> {
        let Some(path) = path else {
            return Ok(Sink::Stdout(BufWriter::with_capacity(
                64 * 1024,
                io::stdout().lock(),
            )));
        };
        // Printed through main's sanitiser, as every error line is.
        let shown = path.display();
        if path.as_os_str().is_empty() || path.file_name().is_none() {
            return Err(crate::error::Error::usage(
                format!("--output-file {shown:?} is not a file name"),
                "give the path of the file to write, e.g. --output-file report.json",
            ));
        }
        if path.is_dir() {
            return Err(crate::error::Error::usage(
                format!("--output-file {shown} is a directory"),
                "give the path of a file in it, e.g. --output-file DIR/report.json",
            ));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            let word = crate::diagnose::remedy::shell_word(&dir.to_string_lossy());
            return Err(crate::error::Error::usage(
                format!(
                    "--output-file {shown}: the directory {} does not exist",
                    dir.display()
                ),
                format!("create it first (mkdir -p {word}), or write the report elsewhere"),
            ));
        }
        let tmp = crate::util::temp_file_beside(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{shown}: {}", e.kind())))?;
        Ok(Sink::File {
            tmp: BufWriter::with_capacity(64 * 1024, tmp),
            path: path.to_owned(),
        })
    }

    /// True when the report goes to a file (no colour, no terminal).
    pub fn is_file(&self) -> bool {
        matches!(self, Sink::File { .. })
    }

    /// The writer renderers write to.
    pub fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::Stdout(w) => w,
            Sink::File { tmp, .. } => tmp,
        }
    }

    /// Finishes the report: flushes stdout, or syncs the temporary file and renames it over
    /// the target. Permissions: the file gets the umask's default for new files (the
    /// temporary file is created 0600), as a plain write would.
    pub fn commit(self) -> io::Result<()> {
        match self {
            Sink::Stdout(mut w) => w.flush(),
            Sink::File { tmp, path } => {
                let tmp = tmp
                    .into_inner()
                    .map_err(|e| with_path(&path, e.into_error()))?;
                tmp.as_file().sync_all().map_err(|e| with_path(&path, e))?;
                crate::util::as_plainly_created(tmp.as_file());
                tmp.persist(&path).map_err(|e| with_path(&path, e.error))?;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_appears_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("report.sarif");
        std::fs::write(&target, "old").unwrap();
        let mut sink = Sink::open(Some(&target)).unwrap();
        sink.writer().write_all(b"new report").unwrap();
        // Not yet: the old file is intact, the new text is in a temporary beside it.
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        sink.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new report");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_abandoned_report_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("r.html");
        let mut sink = Sink::open(Some(&target)).unwrap();
        sink.writer().write_all(b"partial").unwrap();
        drop(sink);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn bad_targets_fail_before_any_work() {
        let dir = tempfile::tempdir().unwrap();
        // A missing directory is named, with a hint and exit 2 — not the hidden temporary
        // file the first attempt would have created (newcomer NC12).
        let missing = dir.path().join("no/such/dir/r.json");
        let Err(e) = Sink::open(Some(&missing)) else {
            panic!("a missing directory opened")
        };
        assert_eq!(e.exit_code(), crate::error::exit::USAGE);
        let said = e.to_string();
        assert!(said.contains("no/such/dir does not exist"), "{said}");
        assert!(!said.contains(".r.json."), "{said}");
        assert!(e.hint().is_some_and(|h| h.contains("mkdir -p")), "{e:?}");
        let Err(e) = Sink::open(Some(dir.path())) else {
            panic!("a directory opened as a file")
        };
        assert!(e.to_string().contains("is a directory"), "{e}");
    }
}
