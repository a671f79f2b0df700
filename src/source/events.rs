//! Events from a file, for forensics (`history --events FILE`): `kubectl get events -A -o
//! json|yaml` (a `v1` EventList, or `events.k8s.io/v1`), through the one walker. Kept: the
//! garbage collector's `OwnerRefInvalidNamespace` warnings (since 1.20 it records one on a
//! dependent whose owner reference's UID is an object of another namespace) and every Event the
//! GC or the namespace controller reported; the rest is counted.

use crate::error::{Error, Result};
use crate::input::walk::{Event as WalkEvent, Text, Visitor, Walk, Words};
use serde_json::Value;
use std::io::Read;
use std::path::PathBuf;

/// An Event file is read whole: more than this is no Event list.
const MAX_FILE: u64 = 256 << 20;

/// One Event kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRecord {
    /// `reason`.
    pub reason: String,
    /// `message` (`note` in events.k8s.io).
    pub message: String,
    /// `source.component` or `reportingController`.
    pub component: String,
    /// The object it is about: apiVersion, kind, namespace, name, uid.
    pub involved: [String; 5],
    /// How often it was recorded (at least 1).
    pub count: i64,
    /// The last time it was recorded (RFC 3339), when the Event has one.
    pub last: Option<String>,
    /// Where: the file and the Event's name.
    pub at: String,
}

/// What a [`read`] read.
#[derive(Clone, Debug, Default)]
pub struct EventStats {
    /// Events read.
    pub events: u64,
    /// Events kept.
    pub kept: u64,
}

const WORDS: Words = Words {
    not_found: "pass the output of `kubectl get events -A -o json` (or -o yaml)",
    stdin_terminal: (
        "- reads standard input, which is a terminal",
        "pipe the Events in: kubectl get events -A -o json | kubectl gc history --events - …",
    ),
    empty_dir: (
        "no file in this directory",
        "name the Event list file (kubectl get events -A -o json > events.json)",
    ),
};

/// The GC's reason for an owner reference across namespaces.
pub const OWNER_REF_INVALID_NAMESPACE: &str = "OwnerRefInvalidNamespace";

/// Whether an Event is evidence of the GC's or the namespace controller's work.
fn kept(reason: &str, component: &str) -> bool {
    reason == OWNER_REF_INVALID_NAMESPACE
        || matches!(
            component,
            "garbage-collector-controller" | "generic-garbage-collector" | "namespace-controller"
        )
}

struct Reader {
    out: Vec<EventRecord>,
    stats: EventStats,
    max: u64,
}

impl Visitor for Reader {
    fn candidate(&self, _name: &str) -> bool {
        true
    }

    fn text(&mut self, text: Text<'_>) -> Result<()> {
        let mut raw = Vec::new();
        let limit = self.max.min(MAX_FILE);
        text.r
            .take(limit + 1)
            .read_to_end(&mut raw)
            .map_err(|e| Error::input(text.name, crate::input::read_error(&e), None))?;
        if raw.len() as u64 > limit {
            return Err(Error::input(text.name, "larger than an Event list can be", None));
        }
        let s = String::from_utf8_lossy(&raw);
        let doc: Value = match serde_json::from_str(&s) {
            Ok(v) => v,
            Err(_) => serde_saphyr::from_str(&s).map_err(|_| {
                Error::input(
                    text.name,
                    "not an Event list (JSON or YAML)",
                    Some("give `kubectl get events -A -o json` output".into()),
                )
            })?,
        };
        let Some(items) = doc.get("items").and_then(Value::as_array) else {
            return Err(Error::input(
                text.name,
                "not an Event list: no items",
                Some("give `kubectl get events -A -o json` output".into()),
            ));
        };
        for e in items {
            self.stats.events += 1;
            if let Some(r) = record(e, text.name) {
                self.stats.kept += 1;
                self.out.push(r);
            }
        }
        Ok(())
    }

    fn event(&mut self, event: WalkEvent<'_>) -> Result<()> {
        match event {
            WalkEvent::Problem(name, p) => Err(Error::input(name, p.cause(), None)),
            _ => Ok(()),
        }
    }
}

fn record(e: &Value, file: &str) -> Option<EventRecord> {
    let s = |v: &Value, path: &[&str]| -> String {
        let mut cur = v;
        for p in path {
            cur = match cur.get(p) {
                Some(c) => c,
                None => return String::new(),
            };
        }
        cur.as_str().unwrap_or_default().to_owned()
    };
    let reason = s(e, &["reason"]);
    let mut component = s(e, &["source", "component"]);
    if component.is_empty() {
        component = s(e, &["reportingController"]);
    }
    if component.is_empty() {
        component = s(e, &["reportingComponent"]);
    }
    if !kept(&reason, &component) {
        return None;
    }
    // core/v1 `involvedObject`, events.k8s.io/v1 `regarding`.
    let obj = e.get("involvedObject").or_else(|| e.get("regarding"))?;
    let message = match s(e, &["message"]) {
        m if m.is_empty() => s(e, &["note"]),
        m => m,
    };
    let count = e
        .get("count")
        .and_then(Value::as_i64)
        .or_else(|| e.get("series").and_then(|x| x.get("count")).and_then(Value::as_i64))
        .unwrap_or(1)
        .max(1);
    let last = [
        s(e, &["lastTimestamp"]),
        s(e, &["series", "lastObservedTime"]),
        s(e, &["eventTime"]),
    ]
    .into_iter()
    .find(|t| !t.is_empty());
    Some(EventRecord {
        reason,
        message,
        component,
        involved: [
            s(obj, &["apiVersion"]),
            s(obj, &["kind"]),
            s(obj, &["namespace"]),
            s(obj, &["name"]),
            s(obj, &["uid"]),
        ],
        count,
        last,
        at: format!("{file}: Event {}", s(e, &["metadata", "name"])),
    })
}

/// Reads every Event file; `max_bytes` caps a stream of unknown length.
pub fn read(paths: &[PathBuf], max_bytes: u64) -> Result<(Vec<EventRecord>, EventStats)> {
    let mut r = Reader {
        out: Vec::new(),
        stats: EventStats::default(),
        max: if max_bytes == 0 { MAX_FILE } else { max_bytes },
    };
    Walk {
        recursive: true,
        max_bytes,
        words: &WORDS,
    }
    .read_paths(paths, &mut r)?;
    Ok((r.out, r.stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gcs_events_of_a_real_capture_are_kept() {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/controller-manager/v2/events.json");
        let (events, stats) = read(&[p], 0).unwrap();
        assert_eq!(stats.kept, 1);
        let e = &events[0];
        assert_eq!(e.reason, OWNER_REF_INVALID_NAMESPACE);
        assert_eq!(e.involved[1..4], ["ConfigMap".to_owned(), "cross".into(), "dep".into()]);
        assert!(e.message.contains("does not exist in namespace"), "{}", e.message);
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("x.json");
        std::fs::write(&bad, "{\"kind\":\"Pod\"}").unwrap();
        assert_eq!(read(&[bad], 0).unwrap_err().exit_code(), crate::error::exit::INPUT);
    }
}
