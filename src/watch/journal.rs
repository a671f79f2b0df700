//! `watch --journal FILE`: the flight recorder. Each GC-relevant transition the watch sees is
//! appended as one JSON line ([`crate::source::journal::JournalEntry`]): an object with
//! ownerReferences, being deleted or holding the GC's finalizers, applied (and one whose last
//! reference went); an object deleted; a finding appearing, changing or resolving with the
//! shadow GC's prediction. Bounded: past `max_bytes` the file is rotated (`FILE.1`, …,
//! `FILE.<keep>`, the oldest dropped), so the journal never holds more than `(keep + 1) ×
//! max_bytes`. Each line is flushed as it is written: after a crash the journal holds
//! everything up to it. Only metadata is written (names, UIDs, references, finalizers), never
//! an object's data.

use super::{Transition, TransitionKind};
use crate::model::meta::MetaIn;
use crate::source::journal::{API_VERSION, JournalEntry, JournalFinding, JournalObject, JournalRef, KIND};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The GC's own finalizers.
const GC_FINALIZERS: [&str; 2] = ["foregroundDeletion", "orphan"];

/// The journal being written.
pub struct Journal {
    path: PathBuf,
    file: std::fs::File,
    written: u64,
    max_bytes: u64,
    keep: usize,
    /// Objects journaled with references: a later state without any is journaled too (the
    /// GC's orphaning patch, a reference removed).
    with_refs: HashSet<String>,
}

fn open_append(path: &Path) -> std::io::Result<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
}

fn rotated(path: &Path, n: usize) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(format!(".{n}"));
    PathBuf::from(s)
}

fn now_rfc3339() -> String {
    let us = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
    let base = crate::model::timestamp::format_rfc3339(us.div_euclid(1_000_000));
    format!("{}.{:06}Z", base.trim_end_matches('Z'), us.rem_euclid(1_000_000))
}

impl Journal {
    /// Opens (appends to) `path`; `max_bytes` per file, `keep` rotated files.
    pub fn open(path: &Path, max_bytes: u64, keep: usize) -> std::io::Result<Journal> {
        let file = open_append(path)?;
        let written = file.metadata()?.len();
        Ok(Journal {
            path: path.to_owned(),
            file,
            written,
            max_bytes: max_bytes.max(4096),
            keep,
            with_refs: HashSet::new(),
        })
    }

    fn write(&mut self, e: &JournalEntry) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(e).map_err(std::io::Error::other)?;
        line.push(b'\n');
        if self.written > 0 && self.written + line.len() as u64 > self.max_bytes {
            self.rotate()?;
        }
        self.file.write_all(&line)?;
        self.file.flush()?;
        self.written += line.len() as u64;
        Ok(())
    }

    fn rotate(&mut self) -> std::io::Result<()> {
        if self.keep == 0 {
            std::fs::remove_file(&self.path)?;
        } else {
            for n in (1..self.keep).rev() {
                let from = rotated(&self.path, n);
                if from.exists() {
                    std::fs::rename(&from, rotated(&self.path, n + 1))?;
                }
            }
            std::fs::rename(&self.path, rotated(&self.path, 1))?;
        }
        self.file = open_append(&self.path)?;
        self.written = 0;
        Ok(())
    }

    /// An object applied (or `deleted`) by one of the watch's streams, of `api_version` and
    /// `kind`: journaled when the GC has something to do with it.
    pub fn object(&mut self, api_version: &str, kind: &str, meta: &MetaIn<'_>, deleted: bool) -> std::io::Result<()> {
        let uid = meta.uid.as_ref();
        let has_refs = !meta.owner_references.is_empty();
        let relevant = deleted
            || has_refs
            || meta.deletion_timestamp.is_some()
            || meta.finalizers.iter().any(|f| GC_FINALIZERS.contains(&f.as_ref()))
            || self.with_refs.contains(uid);
        if !relevant {
            return Ok(());
        }
        if has_refs && !deleted {
            self.with_refs.insert(uid.to_owned());
        } else {
            self.with_refs.remove(uid);
        }
        self.write(&JournalEntry {
            api_version: API_VERSION.into(),
            kind: KIND.into(),
            time: now_rfc3339(),
            event: if deleted { "deleted" } else { "applied" }.into(),
            object: JournalObject {
                api_version: api_version.into(),
                kind: kind.into(),
                namespace: meta.namespace.to_string(),
                name: meta.name.to_string(),
                uid: uid.to_owned(),
            },
            owner_references: meta
                .owner_references
                .iter()
                .map(|r| JournalRef {
                    api_version: r.api_version.to_string(),
                    kind: r.kind.to_string(),
                    name: r.name.to_string(),
                    uid: r.uid.to_string(),
                    controller: r.controller,
                    block_owner_deletion: r.block_owner_deletion,
                })
                .collect(),
            deletion_timestamp: meta.deletion_timestamp.as_ref().map(|t| t.to_string()),
            finalizers: meta.finalizers.iter().map(|f| f.to_string()).collect(),
            finding: None,
        })
    }

    /// A finding's transition, with the shadow GC's prediction.
    pub fn finding(&mut self, t: &Transition) -> std::io::Result<()> {
        let Some(o) = &t.finding.object else { return Ok(()) };
        let value = |v: serde_json::Value| v.as_str().map(str::to_owned).unwrap_or_default();
        self.write(&JournalEntry {
            api_version: API_VERSION.into(),
            kind: KIND.into(),
            time: now_rfc3339(),
            event: "finding".into(),
            object: JournalObject {
                api_version: o.api_version.clone(),
                kind: o.kind.clone(),
                namespace: o.namespace.clone(),
                name: o.name.clone(),
                uid: o.uid.clone(),
            },
            finding: Some(JournalFinding {
                transition: match t.kind {
                    TransitionKind::Appeared => "appeared",
                    TransitionKind::Changed => "changed",
                    TransitionKind::Resolved => "resolved",
                }
                .into(),
                code: t.finding.code.id().to_owned(),
                severity: value(serde_json::to_value(t.finding.severity).unwrap_or_default()),
                when: t.when.map(|w| value(serde_json::to_value(w).unwrap_or_default())).unwrap_or_default(),
                action: t
                    .action
                    .and_then(|a| serde_json::to_value(a).ok())
                    .and_then(|v| v.get("verb").cloned())
                    .map(value)
                    .unwrap_or_default(),
                message: t.finding.message.clone(),
            }),
            ..JournalEntry::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn meta(name: &str, refs: bool) -> MetaIn<'static> {
        MetaIn {
            namespace: Cow::Borrowed("ns"),
            name: Cow::Owned(name.to_owned()),
            uid: Cow::Owned(format!("uid-{name}")),
            owner_references: if refs {
                vec![crate::model::meta::OwnerRefIn {
                    api_version: Cow::Borrowed("v1"),
                    kind: Cow::Borrowed("ConfigMap"),
                    name: Cow::Borrowed("owner"),
                    uid: Cow::Borrowed("uid-owner"),
                    ..Default::default()
                }]
            } else {
                Vec::new()
            },
            ..Default::default()
        }
    }

    #[test]
    fn the_journal_records_what_the_gc_acts_on_rotates_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.ndjson");
        let mut j = Journal::open(&path, 4096, 2).unwrap();
        // Not GC-relevant: no references, not deleted, no GC finalizer.
        j.object("v1", "ConfigMap", &meta("plain", false), false).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
        j.object("v1", "ConfigMap", &meta("dep", true), false).unwrap();
        // Its last reference removed: journaled, though it now has none.
        j.object("v1", "ConfigMap", &meta("dep", false), false).unwrap();
        j.object("v1", "ConfigMap", &meta("owner", false), true).unwrap();
        let (entries, problems) = crate::source::journal::read(&[path.clone()]).unwrap();
        assert!(problems.is_empty());
        let got: Vec<(&str, &str, usize)> = entries
            .iter()
            .map(|(_, e)| (e.event.as_str(), e.object.name.as_str(), e.owner_references.len()))
            .collect();
        assert_eq!(got, [("applied", "dep", 1), ("applied", "dep", 0), ("deleted", "owner", 0)]);
        // Bounded: past 4 KiB the file rotates, two rotated files kept, the oldest dropped.
        for i in 0..200 {
            j.object("v1", "ConfigMap", &meta(&format!("d{i}"), true), true).unwrap();
        }
        let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
        assert!(size(&path) <= 4096);
        assert!(size(&rotated(&path, 1)) <= 4096 && size(&rotated(&path, 2)) > 0);
        assert!(!rotated(&path, 3).exists());
        // A damaged line is a problem, not a panic; a file of no entries an input error.
        std::fs::write(&path, "{\"apiVersion\":\"kubectl-gc.io/v1\",\"kind\":\"JournalEntry\",\"time\":\"2026-01-01T00:00:00.000000Z\",\"event\":\"deleted\",\"object\":{\"name\":\"x\"}}\n{broken\n").unwrap();
        let (entries, problems) = crate::source::journal::read(&[path.clone()]).unwrap();
        assert_eq!((entries.len(), problems.len()), (1, 1));
        std::fs::write(&path, "not a journal\n").unwrap();
        assert!(crate::source::journal::read(&[path]).is_err());
    }
}
