//! Reading: audit events to actions (what was done to which object), kept as they stream in.

use super::actor::actor_kind;
use super::*;
use crate::snapshot::Snapshot;
use crate::source::audit::{AuditEvent, Level, OwnerRefSeen};
use std::collections::HashMap;

fn level_str(l: Level) -> &'static str {
    match l {
        Level::Unknown => "unknown",
        Level::Metadata => "Metadata",
        Level::Request => "Request",
        Level::RequestResponse => "RequestResponse",
    }
}

fn obj_of(e: &AuditEvent) -> Option<Obj> {
    let o = e.object.as_ref()?;
    let uid = [
        Some(o.uid.clone()).filter(|u| !u.is_empty()),
        e.deleted_uid.clone(),
        e.bodies.response_uid.clone(),
    ]
    .into_iter()
    .flatten()
    .next();
    // A Namespace's objectRef carries its own name as namespace: it is cluster-scoped.
    let namespace = if o.api_group.is_empty() && o.resource == "namespaces" {
        String::new()
    } else {
        o.namespace.clone()
    };
    Some(Obj {
        group: o.api_group.clone(),
        resource: o.resource.clone(),
        namespace,
        name: o.name.clone(),
        uid,
    })
}

/// What a write did, as far as the event tells. `None`: not an action the history reports.
fn action_of(e: &AuditEvent, actor_kind: &str) -> Option<&'static str> {
    if !(200..300).contains(&e.code) {
        return None;
    }
    let sub = e.object.as_ref().map_or("", |o| o.subresource.as_str());
    let b = &e.bodies;
    match e.verb.as_str() {
        "delete" => Some("delete"),
        "deletecollection" => Some("delete-collection"),
        "update" if sub == "finalize" => Some("remove-finalizer"),
        "patch" | "update" if sub.is_empty() => {
            // The GC writes references and finalizers only to remove them (its merge patch for
            // custom resources sets the list that remains); anyone else's body removes them
            // when it removes paths or sets the list to none.
            let gc = actor_kind == "garbage-collector";
            let refs_removed = b
                .removed_paths
                .iter()
                .any(|p| p.contains("ownerReferences"))
                || b.owner_references
                    .as_ref()
                    .is_some_and(|r| gc || r.is_empty());
            let fins_removed = b.removed_paths.iter().any(|p| p.contains("finalizers"))
                || b.finalizers.as_ref().is_some_and(|f| gc || f.is_empty());
            if refs_removed {
                Some("remove-owner-references")
            } else if fins_removed {
                Some("remove-finalizer")
            } else if matches!(actor_kind, "garbage-collector" | "namespace-controller") {
                // The GC patches only references and finalizers: which one, the caller infers.
                Some("other-patch")
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The states around the log, where the user has them: before its window (`--snapshot`/`-f`)
/// and after it (`--after`: a file, or the cluster now).
#[derive(Clone, Copy, Default)]
pub struct States<'a> {
    /// The state before the log's window.
    pub before: Option<&'a Snapshot>,
    /// The state after it.
    pub after: Option<&'a Snapshot>,
}

/// Reads a log event by event and keeps only what the history uses — the writes it reports,
/// the creates, the GC's owner reads that answered 404 — so memory
/// follows the objects the log touches, not the log (a busy cluster's log is mostly reads and
/// lease and status updates).
#[derive(Default)]
pub struct Recorder {
    pub(super) kept: Vec<AuditEvent>,
    pub(super) first_us: Option<i64>,
    pub(super) last_us: Option<i64>,
    pub(super) levels: std::collections::BTreeSet<Level>,
    pub(super) gc_seen: bool,
    pub(super) seen: u64,
    pub(super) dry_run: usize,
}

impl Recorder {
    /// Takes one event (any order).
    pub fn push(&mut self, e: AuditEvent) {
        self.seen += 1;
        self.first_us = Some(self.first_us.map_or(e.time_us, |t| t.min(e.time_us)));
        self.last_us = Some(self.last_us.map_or(e.time_us, |t| t.max(e.time_us)));
        self.levels.insert(e.level);
        let kind = actor_kind(&e);
        if kind == "garbage-collector" {
            self.gc_seen = true;
        }
        if !used(&e, kind) {
            return;
        }
        // A server-side dry run changed nothing: not an action, not a create that names a
        // UID, only counted.
        if dry_run(&e) {
            if action_of(&e, kind).is_some() {
                self.dry_run += 1;
            }
            return;
        }
        self.kept.push(e);
    }

    /// What the reader saw of the whole log, where it dropped events before they were pushed
    /// ([`used_by_history`] as its `keep`): the window and the count cover every event.
    pub fn read_all(&mut self, stats: &crate::source::audit::ReadStats) {
        self.seen = self.seen.max(stats.events);
        if let Some(t) = stats.first_us {
            self.first_us = Some(self.first_us.map_or(t, |f| f.min(t)));
        }
        if let Some(t) = stats.last_us {
            self.last_us = Some(self.last_us.map_or(t, |l| l.max(t)));
        }
        // Levels of every event read, not only of those kept: a note on the log's level is
        // about the log.
        self.levels.extend(stats.levels.keys().copied());
    }

    /// Events read, kept or not.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// Events kept for the history.
    pub fn kept(&self) -> usize {
        self.kept.len()
    }

    /// The history of what was pushed, with the states around it.
    pub fn finish(self, states: States<'_>) -> History {
        super::answer::build(self, states)
    }
}

/// True for a server-side dry run: `dryRun=All` in the request URI's query (the only value
/// the API server accepts; a request with another fails and is no action anyway), or in a
/// DELETE's body (DeleteOptions, as `kubectl delete --dry-run=server` sends it; Request level
/// and above).
pub(super) fn dry_run(e: &AuditEvent) -> bool {
    e.bodies.dry_run
        || e.request_uri.split_once('?').is_some_and(|(_, query)| {
            query
                .split('&')
                .filter_map(|kv| kv.split_once('='))
                .any(|(k, v)| k == "dryRun" && v == "All")
        })
}

/// True for the events the history reads (for [`crate::source::audit::AuditOptions::keep`]:
/// the reader drops the rest where it parses them).
pub fn used_by_history(e: &AuditEvent) -> bool {
    used(e, actor_kind(e))
}

/// True for the events the answer reads: reports, creates (but of Events, which own nothing
/// and are many), or the GC's owner read that answered 404.
fn used(e: &AuditEvent, kind: &str) -> bool {
    let Some(o) = &e.object else { return false };
    match e.verb.as_str() {
        "get" => e.code == 404 && kind == "garbage-collector",
        // Every create, UID or not: a create of a name after the state before was captured
        // means the state's object of that name may be another incarnation.
        "create" => (200..300).contains(&e.code) && o.resource != "events",
        _ => action_of(e, kind).is_some(),
    }
}

/// Builds the history of `events` (any order; sorted here), with the state before them when
/// given. (The commands stream through a [`Recorder`]; this copies every event.)
#[cfg(test)]
pub fn history(events: &[AuditEvent], before: Option<&Snapshot>) -> History {
    history_between(
        events,
        States {
            before,
            after: None,
        },
    )
}

/// [`history`] with the states before and after the log.
#[cfg(test)]
pub fn history_between(events: &[AuditEvent], states: States<'_>) -> History {
    let mut r = Recorder::default();
    for e in events {
        r.push(e.clone());
    }
    r.finish(states)
}

/// The actions of the kept events, in time order, with what the answer needs beside them.
pub(super) struct Actions<'r> {
    /// The actions, in time order.
    pub items: Vec<Item>,
    /// The event each item came from (for bodies and responses).
    pub sources: Vec<&'r AuditEvent>,
    /// Per object key: its items, in time order.
    pub by_key: HashMap<Key, Vec<usize>>,
    /// Per key: its successful creates, when, and the UID where the event names one.
    pub created: HashMap<Key, Vec<(i64, Option<String>)>>,
    /// Per key: the ownerReferences a create's body gave the object (Request level and up).
    pub created_refs: HashMap<Key, Vec<OwnerRefSeen>>,
    /// The GC's owner reads that answered 404, per key.
    pub gc_404: HashMap<Key, i64>,
}

/// Reads the kept events into actions (sorted by time here).
pub(super) fn actions(kept: &[AuditEvent]) -> Actions<'_> {
    let mut order: Vec<&AuditEvent> = kept.iter().collect();
    order.sort_by_key(|e| e.time_us);
    let mut items: Vec<Item> = Vec::new();
    // Index of the events each item came from (for bodies and responses).
    let mut sources: Vec<&AuditEvent> = Vec::new();
    // Per object key: its items, in time order.
    let mut by_key: HashMap<Key, Vec<usize>> = HashMap::new();
    // Per key: its creates, and the UIDs they name.
    let mut created: HashMap<Key, Vec<(i64, Option<String>)>> = HashMap::new();
    // Per key: the ownerReferences a create's body gave the object (Request level and up).
    let mut created_refs: HashMap<Key, Vec<OwnerRefSeen>> = HashMap::new();
    // The GC's owner reads that answered 404, per key.
    let mut gc_404: HashMap<Key, i64> = HashMap::new();
    for e in &order {
        let kind = actor_kind(e);
        let Some(o) = obj_of(e) else { continue };
        if e.verb == "get" && e.code == 404 && kind == "garbage-collector" {
            gc_404.insert(o.key(), e.time_us);
            continue;
        }
        if e.verb == "create" && (200..300).contains(&e.code) {
            created
                .entry(o.key())
                .or_default()
                .push((e.time_us, o.uid.clone()));
            if let Some(refs) = &e.bodies.owner_references {
                created_refs.insert(o.key(), refs.clone());
            }
            continue;
        }
        let Some(action) = action_of(e, kind) else {
            continue;
        };
        by_key.entry(o.key()).or_default().push(items.len());
        items.push(Item {
            time: format_us(e.time_us),
            time_us: e.time_us,
            action,
            object: o,
            actor: actor_of(e),
            cause: None,
            count: 1,
            last: None,
            last_us: e.time_us,
            taken: Vec::new(),
            level: level_str(e.level),
            source: format!("{}:{}", e.position.source, e.position.line),
            after: None,
            evidence: Vec::new(),
            after_gc_start_ms: None,
        });
        sources.push(e);
    }

    // GC patches at Metadata level: a patch of an object someone deleted before (and that
    // was not removed at once) removes a finalizer; any other removes references.
    for i in 0..items.len() {
        if items[i].action != "other-patch" || items[i].actor.kind != "garbage-collector" {
            continue;
        }
        let deleted_before = by_key[&items[i].object.key()].iter().any(|&j| {
            j != i && items[j].action == "delete" && items[j].time_us <= items[i].time_us
        });
        items[i].action = if deleted_before {
            "remove-finalizer"
        } else {
            "remove-owner-references"
        };
    }
    Actions {
        items,
        sources,
        by_key,
        created,
        created_refs,
        gc_404,
    }
}
