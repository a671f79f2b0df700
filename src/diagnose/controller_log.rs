//! kube-controller-manager's log as history: each action of the garbage collector and the
//! namespace controller the log shows (a deletion with the policy it sent — including the
//! Foreground one that has no `Deleting object` line —, a finalizer removed, dependents
//! orphaned, a namespace's content deleted), its cause where the log's own lines prove one, and
//! every start of the GC (a new graph from fresh lists: what it deletes right after, it
//! deletes *at the restart*).
//!
//! Causes come only from lines that name the object: the graph builder's namespace mismatch
//! (the owner's UID is an object in another namespace, which the line names) and coordinate
//! mismatch, the owner lookups of `isDangling` (`--v=5`: the owner named by the reference is not
//! found, or has another UID), and a Foreground owner waiting for its dependents. A deletion
//! with none of these says what the log's `--v` cannot show, never a guess.

use super::history::{CauseKind, Policy};
use crate::source::controller_log::{Ident, Kind, LogStats, Position, Record};
use std::collections::HashMap;

/// What the log proves about why an action happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogCause {
    /// `cross-namespace-owner`, `owner-coordinates-mismatch`, `dangling-owner`,
    /// `owner-uid-mismatch`, `owner-deleted` (a Foreground owner), `foreground-finished`,
    /// `orphaned`, `namespace-deleted`, `unknown`.
    pub type_: CauseKind,
    /// The owner (or namespace) behind it: as the line names it.
    pub owner: Option<Ident>,
    /// The policy of the deletion behind it, where the log shows it.
    pub policy: Option<Policy>,
    /// In words, with the lines that prove it.
    pub detail: String,
}

/// One action of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogAction {
    /// µs since the epoch.
    pub time_us: i64,
    /// `delete`, `remove-finalizer`, `remove-owner-references`, `orphan-dependents`,
    /// `delete-collection`, `delete-namespace-content`.
    pub action: &'static str,
    /// `garbage-collector` or `namespace-controller`.
    pub actor: &'static str,
    /// The object (a collection: its resource's kind and namespace, no name).
    pub object: Ident,
    /// For a collection: the resource (`configmaps`), with its group.
    pub resource: Option<(String, String)>,
    /// The propagation policy the GC sent, for deletions.
    pub policy: Option<String>,
    /// Why.
    pub cause: LogCause,
    /// The GC start this action followed (µs), and how long after it.
    pub after_start_us: Option<i64>,
    /// Where the action's line was read.
    pub position: Position,
    /// Lines that prove the cause.
    pub evidence: Vec<Position>,
}

/// A start of the garbage collector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GcStart {
    /// µs since the epoch.
    pub time_us: i64,
    /// The release of the process that started it, when its `Version:` line was read.
    pub version: Option<String>,
    /// Where.
    pub position: Position,
}

/// The log's history.
#[derive(Clone, Debug, Default)]
pub struct LogHistory {
    /// In time order.
    pub actions: Vec<LogAction>,
    /// Every start of the GC, in time order.
    pub starts: Vec<GcStart>,
    /// What the log's verbosity cannot show, and other limits.
    pub notes: Vec<String>,
}

/// Reads records, in input order, into a [`LogHistory`].
#[derive(Default)]
pub struct Builder {
    actions: Vec<LogAction>,
    starts: Vec<GcStart>,
    version: Option<String>,
    /// Per dependent UID: what the graph builder and the owner lookups said of its owners.
    why: HashMap<String, Vec<(Record, Why)>>,
    /// Per dependent UID: the Foreground owner that queued it.
    queued_by: HashMap<String, (Ident, Position)>,
    /// Per namespace/name: the uid of an object of the GC's lines (1.20's `Deleting object`
    /// names the UID, the graph builder's lines the identity).
    foreground: HashMap<String, Position>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    NamespaceMismatch,
    CoordinateMismatch,
    Absent,
    UidMismatch,
    InvalidNamespaceEvent,
}

fn key(o: &Ident) -> String {
    if o.uid.is_empty() {
        format!("{}/{}/{}", o.kind, o.namespace, o.name)
    } else {
        o.uid.clone()
    }
}

impl Builder {
    /// One record of the log.
    pub fn push(&mut self, r: Record) {
        match r.kind {
            Kind::ProcessStart => self.version = r.version.clone(),
            Kind::Start => self.starts.push(GcStart {
                time_us: r.time_us,
                version: self.version.clone(),
                position: r.position.clone(),
            }),
            Kind::NamespaceMismatch => self.why_of(r, Why::NamespaceMismatch),
            Kind::CoordinateMismatch => self.why_of(r, Why::CoordinateMismatch),
            Kind::OwnerAbsent => self.why_of(r, Why::Absent),
            Kind::OwnerUidMismatch => self.why_of(r, Why::UidMismatch),
            Kind::InvalidNamespaceEvent => self.why_of(r, Why::InvalidNamespaceEvent),
            Kind::DependentQueued => {
                if let (Some(o), Some(owner)) = (&r.object, r.owners.first()) {
                    self.queued_by
                        .insert(key(o), (owner.clone(), r.position.clone()));
                }
            }
            Kind::ForegroundStart => {
                if let Some(o) = &r.object {
                    self.foreground.insert(key(o), r.position.clone());
                }
            }
            Kind::Delete | Kind::DeleteForeground => self.delete(r),
            Kind::RemoveFinalizer => self.gc_action(r, "remove-finalizer", None, |_| LogCause {
                type_: CauseKind::ForegroundFinished,
                owner: None,
                policy: Some(Policy::Foreground),
                detail: "no blocking dependent was left: the GC removed foregroundDeletion, and \
                         the object went"
                    .into(),
            }),
            Kind::RemoveReferences => {
                let owners = r.owners.clone();
                self.gc_action(r, "remove-owner-references", None, move |_| LogCause {
                    type_: CauseKind::DanglingOwner,
                    owner: owners.first().cloned(),
                    policy: None,
                    detail: format!(
                        "another owner is still there: the GC removed the reference(s) to {} \
                         (absent or waiting for their dependents)",
                        names(&owners)
                    ),
                });
            }
            Kind::Orphaned => {
                self.gc_action(r, "orphan-dependents", Some("Orphan"), |_| LogCause {
                    type_: CauseKind::Orphaned,
                    owner: None,
                    policy: Some(Policy::Orphan),
                    detail:
                        "an Orphan deletion: the GC removed this owner from all its dependents' \
                         references (then the orphan finalizer, which it does not log)"
                            .into(),
                })
            }
            Kind::NamespaceCollection => self.collection(r),
            Kind::NamespaceGone => self.namespace_gone(r),
            _ => {}
        }
    }

    fn why_of(&mut self, r: Record, why: Why) {
        let Some(o) = &r.object else { return };
        let k = key(o);
        // The Event names the dependent by namespace/name only: keyed so.
        let k = if why == Why::InvalidNamespaceEvent {
            format!("{}/{}/{}", o.kind, o.namespace, o.name)
        } else {
            k
        };
        self.why.entry(k).or_default().push((r, why));
    }

    fn since_start(&self, us: i64) -> Option<i64> {
        self.starts
            .iter()
            .rev()
            .find(|s| s.time_us <= us)
            .map(|s| us - s.time_us)
    }

    fn gc_action(
        &mut self,
        r: Record,
        action: &'static str,
        policy: Option<&str>,
        cause: impl FnOnce(&Record) -> LogCause,
    ) {
        let Some(object) = r.object.clone() else {
            return;
        };
        let cause = cause(&r);
        self.actions.push(LogAction {
            time_us: r.time_us,
            action,
            actor: "garbage-collector",
            object,
            resource: None,
            policy: policy.map(str::to_owned),
            cause,
            after_start_us: self.since_start(r.time_us),
            position: r.position,
            evidence: Vec::new(),
        });
    }

    /// A deletion: its cause from the lines about the object before it.
    fn delete(&mut self, r: Record) {
        let Some(object) = r.object.clone() else {
            return;
        };
        let policy = match r.kind {
            Kind::DeleteForeground => Some("Foreground".to_owned()),
            _ => r.policy.clone(),
        };
        let mut evidence = Vec::new();
        let cause = self.cause_of_delete(&object, &mut evidence);
        self.actions.push(LogAction {
            time_us: r.time_us,
            action: "delete",
            actor: "garbage-collector",
            object,
            resource: None,
            policy,
            cause,
            after_start_us: self.since_start(r.time_us),
            position: r.position,
            evidence,
        });
    }

    fn cause_of_delete(&self, object: &Ident, evidence: &mut Vec<Position>) -> LogCause {
        let lines: Vec<&(Record, Why)> = [
            key(object),
            format!("{}/{}/{}", object.kind, object.namespace, object.name),
        ]
        .iter()
        .filter_map(|k| self.why.get(k))
        .flatten()
        .collect();
        let find = |w: Why| {
            lines
                .iter()
                .rev()
                .find(|(_, why)| *why == w)
                .map(|(r, _)| r)
        };
        if let Some(r) = find(Why::NamespaceMismatch) {
            evidence.push(r.position.clone());
            let owner = r.owners.first().cloned();
            return LogCause {
                type_: CauseKind::CrossNamespaceOwner,
                detail: format!(
                    "its owner reference's UID is {}: an object in another namespace; the GC \
                     looks a namespaced owner up in the dependent's namespace ({}), finds \
                     nothing, and deletes it (graph builder, {})",
                    owner.as_ref().map_or_else(|| "an object".into(), spell),
                    object.namespace,
                    at(&r.position)
                ),
                owner,
                policy: None,
            };
        }
        if let Some(r) = find(Why::CoordinateMismatch) {
            evidence.push(r.position.clone());
            let absent = find(Why::Absent);
            if let Some(a) = absent {
                evidence.push(a.position.clone());
            }
            let owner = r.owners.first().cloned();
            return LogCause {
                type_: CauseKind::OwnerCoordinatesMismatch,
                detail: format!(
                    "its owner reference's UID is {}, but the reference names {}: the GC looks \
                     the owner up by the reference's name and kind, finds nothing, and deletes \
                     it ({})",
                    owner.as_ref().map_or_else(|| "an object".into(), spell),
                    absent.and_then(|a| a.owners.first()).map_or_else(
                        || "another object".into(),
                        |o| format!("{} {}", o.kind, o.name)
                    ),
                    at(&r.position)
                ),
                owner,
                policy: None,
            };
        }
        for (w, type_, what) in [
            (
                Why::UidMismatch,
                CauseKind::OwnerUidMismatch,
                "exists with another UID (recreated)",
            ),
            (Why::Absent, CauseKind::DanglingOwner, "is not found"),
        ] {
            if let Some(r) = find(w) {
                evidence.push(r.position.clone());
                let mut owner = r.owners.first().cloned();
                if let Some(o) = owner.as_mut() {
                    o.namespace = r
                        .namespace
                        .clone()
                        .unwrap_or_else(|| object.namespace.clone());
                }
                return LogCause {
                    type_,
                    detail: format!(
                        "the owner its reference names, {}, {what} where the GC looks for it \
                         ({})",
                        owner.as_ref().map_or_else(|| "the owner".into(), spell),
                        at(&r.position)
                    ),
                    owner,
                    policy: None,
                };
            }
        }
        if let Some(r) = find(Why::InvalidNamespaceEvent) {
            evidence.push(r.position.clone());
            return LogCause {
                type_: CauseKind::CrossNamespaceOwner,
                owner: None,
                policy: None,
                detail: format!(
                    "the GC recorded OwnerRefInvalidNamespace for it: its owner reference \
                     names an object of another namespace ({})",
                    at(&r.position)
                ),
            };
        }
        if let Some((owner, p)) = self.queued_by.get(&key(object)) {
            evidence.push(p.clone());
            if let Some(f) = self.foreground.get(&key(owner)) {
                evidence.push(f.clone());
            }
            return LogCause {
                type_: CauseKind::OwnerDeleted,
                owner: Some(owner.clone()),
                policy: Some(Policy::Foreground),
                detail: format!(
                    "its owner {} is being deleted in the foreground and waits for its \
                     dependents ({})",
                    spell(owner),
                    at(p)
                ),
            };
        }
        LogCause {
            type_: CauseKind::Unknown,
            owner: None,
            policy: None,
            detail: "the log does not say why: the GC logs its owner lookups from --v=5 (a \
                     state before, --snapshot, or the audit log names the owners)"
                .into(),
        }
    }

    /// `deleteCollection` of one resource in a namespace.
    fn collection(&mut self, r: Record) {
        let (Some(ns), Some(gvr)) = (r.namespace.clone(), r.resource.clone()) else {
            return;
        };
        // Go prints a GroupVersionResource as `group/version, Resource=plural`.
        let (gv, plural) = gvr.split_once(", Resource=").unwrap_or(("", gvr.as_str()));
        let group = gv.rsplit_once('/').map_or("", |(g, _)| g).to_owned();
        let kind = crate::catalog::builtin::all()
            .iter()
            .find(|b| b.group == group && b.plural == plural)
            .map_or_else(|| plural.to_owned(), |b| b.kind.to_owned());
        self.actions.push(LogAction {
            time_us: r.time_us,
            action: "delete-collection",
            actor: "namespace-controller",
            object: Ident {
                kind,
                namespace: ns.clone(),
                ..Ident::default()
            },
            resource: Some((group, plural.to_owned())),
            policy: None,
            cause: namespace_cause(&ns),
            after_start_us: self.since_start(r.time_us),
            position: r.position,
            evidence: Vec::new(),
        });
    }

    fn namespace_gone(&mut self, r: Record) {
        let Some(ns) = r.namespace.clone() else {
            return;
        };
        self.actions.push(LogAction {
            time_us: r.time_us,
            action: "delete-namespace-content",
            actor: "namespace-controller",
            object: Ident {
                api_version: "v1".into(),
                kind: "Namespace".into(),
                name: ns.clone(),
                ..Ident::default()
            },
            resource: Some((String::new(), "namespaces".into())),
            policy: None,
            cause: LogCause {
                detail: format!(
                    "the namespace controller emptied namespace {ns} and it is gone (the objects \
                     it deleted are named from --v=5, by resource only)"
                ),
                ..namespace_cause(&ns)
            },
            after_start_us: self.since_start(r.time_us),
            position: r.position,
            evidence: Vec::new(),
        });
    }

    /// The history, with what the log's verbosity cannot show.
    pub fn finish(mut self, stats: &LogStats) -> LogHistory {
        self.actions.sort_by_key(|a| a.time_us);
        let mut notes = Vec::new();
        let count = |k: Kind| stats.by_kind.get(&k).copied().unwrap_or(0);
        if stats.max_v < 5 {
            notes.push(format!(
                "the controller-manager log was written at --v={}{}: the GC logs its owner \
                 lookups and orphaning only from --v=5, so orphaned dependents are not shown and \
                 a deletion's cause is named only where the graph builder logged it",
                stats.max_v,
                if stats.max_v < 2 { " or lower" } else { "" },
            ));
        }
        if count(Kind::Orphaned) > 0 {
            notes.push(
                "an Orphan deletion is shown on the owner (orphan-dependents): the log does \
                 not name each dependent it updated"
                    .into(),
            );
        }
        if !stats.year_from.is_empty() {
            let from: Vec<&str> = stats.year_from.iter().map(|f| f.describe()).collect();
            notes.push(format!(
                "klog's times have no year and no zone: the year is taken from {}, the time \
                 read as UTC",
                from.join(", ")
            ));
        }
        LogHistory {
            actions: self.actions,
            starts: self.starts,
            notes,
        }
    }
}

fn namespace_cause(ns: &str) -> LogCause {
    LogCause {
        type_: CauseKind::NamespaceDeleted,
        owner: Some(Ident {
            api_version: "v1".into(),
            kind: "Namespace".into(),
            name: ns.to_owned(),
            ..Ident::default()
        }),
        policy: None,
        detail: format!("the namespace controller deleting namespace {ns}'s content"),
    }
}

/// `Kind/name -n ns`.
pub fn spell(o: &Ident) -> String {
    crate::model::spell_object(&o.kind, &o.name, &o.namespace)
}

fn names(owners: &[Ident]) -> String {
    if owners.is_empty() {
        return "owners the line does not name".into();
    }
    owners
        .iter()
        .map(|o| format!("{} {}", o.kind, o.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `file:line`.
pub fn at(p: &Position) -> String {
    format!("{}:{}", p.source, p.line)
}
