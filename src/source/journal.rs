//! The flight recorder `kubectl gc watch --journal FILE` writes, and `history --journal` reads:
//! one JSON object per line (`kubectl-gc.io/v1` `JournalEntry`), each a GC-relevant transition
//! the watch saw — an object with ownerReferences, or being deleted, or holding the GC's
//! finalizers, applied; an object deleted; a finding of the watch's shadow GC appearing,
//! changing or resolving, with its prediction (when the GC acts, what it does). A cluster with
//! neither audit nor controller-manager logs can then still be explained afterwards: what the
//! object looked like before it went, and what the shadow GC predicted for it.

use serde::{Deserialize, Serialize};
use std::io::BufRead;
use std::path::PathBuf;

/// The entries' `apiVersion` and `kind`.
pub const API_VERSION: &str = "kubectl-gc.io/v1";
/// The entries' `kind`.
pub const KIND: &str = "JournalEntry";

/// An object as the journal names it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct JournalObject {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// Namespace (empty: cluster-scoped).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Name.
    pub name: String,
    /// UID.
    pub uid: String,
}

/// An ownerReference as the object held it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct JournalRef {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `name`.
    pub name: String,
    /// `uid`.
    pub uid: String,
    /// `controller`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

/// A finding of the watch's shadow GC, as it appeared, changed or resolved.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct JournalFinding {
    /// `appeared`, `changed`, `resolved`.
    pub transition: String,
    /// `GC0NN`.
    pub code: String,
    /// Severity.
    pub severity: String,
    /// When the GC acts (`now`, `restart`, `never`; empty once resolved).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub when: String,
    /// What it does (`delete`, `remove-references`, …; empty: nothing).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub action: String,
    /// The finding's message.
    pub message: String,
}

/// One line of the journal.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct JournalEntry {
    /// [`API_VERSION`].
    pub api_version: String,
    /// [`KIND`].
    pub kind: String,
    /// When the watch saw it (RFC 3339, µs).
    pub time: String,
    /// `applied`, `deleted`, `finding`.
    pub event: String,
    /// The object.
    pub object: JournalObject,
    /// Its ownerReferences (applied, deleted).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_references: Vec<JournalRef>,
    /// Its `deletionTimestamp`, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<String>,
    /// Its finalizers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
    /// For `finding`: the shadow GC's finding and prediction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finding: Option<JournalFinding>,
}

/// A journal line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournalProblem {
    /// `file:line`.
    pub at: String,
    /// Why.
    pub cause: String,
}

/// Reads journal files (rotated ones too: give them oldest first, or all of them; entries are
/// put in time order). Hostile lines are problems, never panics; a file none of whose lines
/// is an entry is an input error.
pub fn read(paths: &[PathBuf]) -> crate::error::Result<(Vec<(String, JournalEntry)>, Vec<JournalProblem>)> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for p in paths {
        let f = std::fs::File::open(p).map_err(|e| {
            crate::error::Error::input(p, crate::input::read_error(&e), Some("give the file `watch --journal FILE` wrote".into()))
        })?;
        let before = out.len();
        let mut lines = 0u64;
        for (i, line) in std::io::BufReader::new(f).split(b'\n').enumerate() {
            let line = line.map_err(|e| crate::error::Error::input(p, crate::input::read_error(&e), None))?;
            lines += 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let at = format!("{}:{}", p.display(), i + 1);
            match serde_json::from_slice::<JournalEntry>(&line) {
                Ok(e) if e.kind == KIND && e.api_version == API_VERSION => out.push((at, e)),
                Ok(_) => problems.push(JournalProblem { at, cause: "not a kubectl-gc.io/v1 JournalEntry".into() }),
                Err(e) => problems.push(JournalProblem { at, cause: crate::error::one_line(&e.to_string()) }),
            }
        }
        if out.len() == before && lines > 0 {
            return Err(crate::error::Error::input(
                p,
                "no journal entry in it",
                Some("give the file `kubectl gc watch --journal FILE` wrote".into()),
            ));
        }
    }
    out.sort_by(|a, b| a.1.time.cmp(&b.1.time));
    Ok((out, problems))
}
