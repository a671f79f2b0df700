//! Exact accounting of what was read: every document is read, ignored as not a Kubernetes
//! object (counted, with the reason), or broken (reported with where and why).

use std::collections::BTreeMap;
use std::fmt;

/// Counters describing what was read (for `--verbose` output and tests).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileStats {
    /// Files, archive members and standard input read.
    pub files: usize,
    /// Files passed over in directory walks and archives because of their name (`.log`, …).
    pub files_ignored: usize,
    /// FIFOs, sockets and devices passed over in directory walks.
    pub special_files: usize,
    /// Archives read (`.tar`, `.tar.gz`, `.tar.xz`, `.zip`, …), nested ones included.
    pub archives: usize,
    /// Top-level documents parsed (YAML documents, JSON values).
    pub documents: usize,
    /// Objects with a UID found, including duplicates.
    pub objects: usize,
    /// Objects added to the store.
    pub added: usize,
    /// Objects whose UID had already been read (the first copy is kept).
    pub duplicates: usize,
    /// Documents or list items that are not Kubernetes objects and were ignored.
    pub not_kubernetes: usize,
    /// Why things were ignored (not Kubernetes objects, empty files, snapshots in a walk,
    /// objects that cannot be used), with counts.
    pub ignored: BTreeMap<String, usize>,
    /// Discovery documents (`APIResourceList`, `APIGroup`) used for the resource table.
    pub discovery: usize,
    /// Broken documents (see [`Problem`]).
    pub broken: usize,
    /// YAML documents read after quoting the `***HIDDEN***` redactions a support-bundle
    /// collector wrote unquoted (which YAML takes for aliases): none in a value kubectl-gc
    /// reads.
    pub redacted: usize,
}

impl FileStats {
    /// `read 8324 objects (311 duplicates) from 2305 files in 1.2s · ignored: …`: what was
    /// read, for stderr.
    pub fn summary_line(&self, elapsed: std::time::Duration) -> String {
        let mut line = format!(
            "read {} objects{} from {} file{}{} in {:.1}s",
            self.added,
            if self.duplicates > 0 {
                format!(" ({} duplicates)", self.duplicates)
            } else {
                String::new()
            },
            self.files,
            if self.files == 1 { "" } else { "s" },
            if self.archives > 0 {
                format!(
                    " ({} archive{})",
                    self.archives,
                    if self.archives == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            },
            elapsed.as_secs_f64()
        );
        if self.files_ignored + self.special_files > 0 {
            line.push_str(&format!(
                " · {} file{} passed over by name or type",
                self.files_ignored + self.special_files,
                if self.files_ignored + self.special_files == 1 {
                    ""
                } else {
                    "s"
                }
            ));
        }
        if !self.ignored.is_empty() {
            let parts: Vec<String> = self
                .ignored
                .iter()
                .map(|(reason, n)| format!("{n} {reason}"))
                .collect();
            line.push_str(&format!(" · ignored: {}", parts.join(", ")));
        }
        if self.redacted > 0 {
            line.push_str(&format!(" · {}", self.redacted_note()));
        }
        if self.broken > 0 {
            line.push_str(&format!(
                " · {} broken document{} skipped (what {} could hold is unknown)",
                self.broken,
                if self.broken == 1 { "" } else { "s" },
                if self.broken == 1 { "it" } else { "they" }
            ));
        }
        line
    }

    /// `3 documents read past unquoted ***HIDDEN*** redactions (…)`, when there are any.
    pub fn redacted_note(&self) -> String {
        format!(
            "{} document{} read past unquoted `***HIDDEN***` redactions (support-bundle values YAML takes for aliases), none in a field kubectl-gc reads",
            self.redacted,
            if self.redacted == 1 { "" } else { "s" }
        )
    }

    pub(crate) fn ignore(&mut self, reason: &str) {
        *self.ignored.entry(reason.to_owned()).or_insert(0) += 1;
    }
}

/// A broken input: which file, where in it, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The file (or archive member, or `<stdin>`).
    pub file: String,
    /// Where in it: document number, list item, byte offset or line (empty when the whole
    /// file is concerned).
    pub at: String,
    /// What is wrong, on one line.
    pub cause: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.at.is_empty() {
            write!(f, "{}: {}", self.file, self.cause)
        } else {
            write!(f, "{} ({}): {}", self.file, self.at, self.cause)
        }
    }
}

/// Where a document or list item is.
#[derive(Clone, Debug)]
pub(crate) struct Loc {
    /// The file (shared: every item of a list has a location).
    pub file: std::rc::Rc<str>,
    /// 1-based document number; 0 while the file is not split into documents yet.
    pub doc: usize,
    /// The file holds (or may hold) more than one document.
    pub many: bool,
    /// 0-based item in `items` or a top-level array.
    pub item: Option<usize>,
    /// Byte offset in the (decompressed) file (JSON).
    pub byte: Option<u64>,
    /// 1-based line (YAML).
    pub line: Option<usize>,
}

impl Default for Loc {
    fn default() -> Self {
        Loc {
            file: "".into(),
            doc: 0,
            many: false,
            item: None,
            byte: None,
            line: None,
        }
    }
}

impl Loc {
    /// The whole file.
    pub fn file(name: &str) -> Loc {
        Loc {
            file: name.into(),
            ..Loc::default()
        }
    }

    /// The location of item `i` of the document at `self`.
    pub fn item(&self, i: usize, byte: Option<u64>) -> Loc {
        Loc {
            item: Some(i),
            byte: byte.or(self.byte),
            ..self.clone()
        }
    }

    /// "document 2, item 17, byte 1234" (parts that are known).
    pub fn at(&self) -> String {
        let mut parts = Vec::new();
        if self.many && self.doc > 0 {
            parts.push(format!("document {}", self.doc));
        }
        if let Some(i) = self.item {
            parts.push(format!("item {i}"));
        }
        if let Some(b) = self.byte {
            parts.push(format!("byte {b}"));
        }
        if let Some(l) = self.line {
            parts.push(format!("line {l}"));
        }
        parts.join(", ")
    }

    /// `file (document 2, item 17)`: how skipped inputs name their source (no offsets, which
    /// say nothing to a reader of the report).
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        if self.many && self.doc > 0 {
            parts.push(format!("document {}", self.doc));
        }
        if let Some(i) = self.item {
            parts.push(format!("item {i}"));
        }
        if parts.is_empty() {
            self.file.to_string()
        } else {
            format!("{} ({})", self.file, parts.join(", "))
        }
    }

    /// A problem here.
    pub fn problem(&self, cause: impl Into<String>) -> Problem {
        Problem {
            file: self.file.to_string(),
            at: self.at(),
            cause: one_line(&cause.into()),
        }
    }
}

/// Collapses an error message to one line of bounded length.
pub(crate) fn one_line(s: &str) -> String {
    let first = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut out: String = first.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() > 240 {
        out = out.chars().take(237).collect::<String>() + "...";
    }
    out
}
