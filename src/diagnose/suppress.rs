//! Suppressing known findings so a team can adopt a CI gate on a cluster that already has
//! findings: per object with the `kubectl-gc.io/ignore` annotation (codes or `all`), or with a
//! baseline file written by a previous run (`--write-baseline`, `--baseline`).

use super::finding::Finding;
use crate::error::{Error, Result};
use crate::snapshot::Snapshot;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::Path;

/// True when the finding's object carries `kubectl-gc.io/ignore` naming its code (by id or
/// name) or `all`.
pub fn ignored_by_annotation(snap: &Snapshot, f: &Finding) -> bool {
    let Some(id) = f.object else { return false };
    let ignore = snap.store.object(id).ignore;
    if ignore.is_empty() {
        return false;
    }
    snap.store.str(ignore).split(',').map(str::trim).any(|c| {
        c.eq_ignore_ascii_case("all") || c.eq_ignore_ascii_case(f.code.id()) || c == f.code.name()
    })
}

/// One baseline entry: a finding's code, subject and reference, by UID (stable across renames
/// of nothing, and distinct for recreated objects).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BaselineEntry {
    /// `GC0NN`.
    pub code: String,
    /// Object UID, or the resource for resource-level findings.
    pub subject: String,
    /// Owner UID of the reference involved (empty when none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub owner_uid: String,
    /// `kind/name -n ns`, for people reading the file.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
}

/// A baseline file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Baseline {
    /// `kubectl-gc.io/v1`.
    pub api_version: String,
    /// `Baseline`.
    pub kind: String,
    /// Accepted findings.
    pub entries: BTreeSet<BaselineEntry>,
}

fn entry(snap: &Snapshot, f: &Finding) -> BaselineEntry {
    BaselineEntry {
        code: f.code.id().to_owned(),
        subject: match f.object {
            Some(o) => snap.store.str(snap.store.object(o).uid).to_owned(),
            None => f.resource.clone().unwrap_or_default(),
        },
        owner_uid: f
            .owner_ref
            .map(|r| snap.store.str(r.uid).to_owned())
            .unwrap_or_default(),
        description: f.object.map(|o| snap.describe(o)).unwrap_or_default(),
    }
}

impl Baseline {
    /// A baseline accepting these findings.
    pub fn of(snap: &Snapshot, findings: &[&Finding]) -> Baseline {
        Baseline {
            api_version: crate::build_info::REPORT_API_VERSION.into(),
            kind: "Baseline".into(),
            entries: findings.iter().map(|f| entry(snap, f)).collect(),
        }
    }

    /// Reads a baseline file.
    pub fn read(path: &Path) -> Result<Baseline> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::input(path, format!("cannot read baseline: {e}"), None))?;
        let b: Baseline = serde_json::from_str(&text).map_err(|e| {
            Error::input(
                path,
                format!("not a baseline file: {e}"),
                Some("write one with --write-baseline FILE".into()),
            )
        })?;
        if b.kind != "Baseline" {
            return Err(Error::input(
                path,
                format!("kind is {:?}, expected Baseline", b.kind),
                None,
            ));
        }
        Ok(b)
    }

    /// Writes the baseline as pretty JSON.
    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(path, text + "\n")
            .map_err(|e| Error::input(path, format!("cannot write baseline: {e}"), None))
    }

    /// True when the finding was accepted.
    pub fn contains(&self, snap: &Snapshot, f: &Finding) -> bool {
        let mut e = entry(snap, f);
        e.description.clear();
        self.entries
            .iter()
            .any(|x| x.code == e.code && x.subject == e.subject && x.owner_uid == e.owner_uid)
    }
}

/// Splits findings into (kept, number suppressed) by annotation and optional baseline.
pub fn apply<'f>(
    snap: &Snapshot,
    findings: Vec<&'f Finding>,
    baseline: Option<&Baseline>,
) -> (Vec<&'f Finding>, usize) {
    let before = findings.len();
    let kept: Vec<&Finding> = findings
        .into_iter()
        .filter(|f| {
            !ignored_by_annotation(snap, f) && !baseline.is_some_and(|b| b.contains(snap, f))
        })
        .collect();
    let suppressed = before - kept.len();
    (kept, suppressed)
}
