//! GC forensics: what the garbage collector and the namespace controller did, from API-server
//! audit events, and for each of their actions the cause, chained back to the first action that
//! started it (`kubectl gc history`, and `why KIND/NAME --audit-log` for an object that is gone).
//!
//! The audit log says *who* did *what* and *when*; it rarely says *why*. The why comes from what
//! the GC does (docs/gc-model.md §3): it deletes a dependent once no owner is solid, removes a
//! reference to an owner that is gone while another remains, removes `foregroundDeletion` once
//! no blocking dependent is left, orphans dependents then removes `orphan`. So each GC action is
//! explained by the owners of its object — read from the request/response bodies where the
//! log has them, else from a snapshot of the state before (`--snapshot`/`-f`) — and by what
//! happened to those owners in the log: deleted (by whom, with which policy), recreated under the
//! same name (another UID), in another namespace, never there.
//!
//! Unknown is never guessed: an owner the inputs do not show, a deletion before the log's
//! window, a level without bodies — each is said so (cause `unknown`, with the reason). A GC
//! deletion whose owner the inputs show alive and not deleted in the window is `unexplained`:
//! the dangerous kind, listed first.
//!
//! The module follows those questions: [`read`] turns events into actions (what was done),
//! [`actor`] says who did it (from authentication), [`index`] looks objects up in the states
//! around the log, [`cause`] and [`absent`] explain each GC and namespace-controller action,
//! and [`answer`] assembles the history (rows, counts, notes).

mod absent;
mod actor;
mod answer;
mod cause;
mod collection;
mod index;
mod read;
mod rows;
#[cfg(test)]
mod tests;

pub use actor::{CONTROLLER_MANAGER_USER, GC_USER, NAMESPACE_CONTROLLER_USER, actor_of};
pub use index::SnapIndex;
pub use read::{Recorder, States, used_by_history};
#[cfg(test)]
pub use read::{history, history_between};

use crate::snapshot::format_rfc3339;
use serde::Serialize;

/// An object as the log names it.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub struct Obj {
    /// API group (`""` for core).
    pub group: String,
    /// Resource (plural).
    pub resource: String,
    /// Namespace (`""` when cluster-scoped or a collection across namespaces).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Name (`""` for a collection).
    pub name: String,
    /// UID, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
}

impl Obj {
    fn key(&self) -> (String, String, String, String) {
        (
            self.group.clone(),
            self.resource.clone(),
            self.namespace.clone(),
            self.name.clone(),
        )
    }

    /// `Kind/name -n ns`, for people ([`crate::model::spell_object`]): the log names a
    /// resource, whose kind comes from the built-in catalog; other resources (CRDs) keep
    /// kubectl's `plural.group`. A collection is `Kind (all) -n ns`.
    pub fn display(&self) -> String {
        if self.resource.is_empty() && self.name.is_empty() {
            return "-".to_owned();
        }
        let kind = crate::catalog::builtin::all()
            .iter()
            .find(|b| b.group == self.group && b.plural == self.resource)
            .map_or_else(
                || match self.group.as_str() {
                    "" => self.resource.clone(),
                    g => format!("{}.{g}", self.resource),
                },
                |b| b.kind.to_owned(),
            );
        if self.name.is_empty() {
            return match self.namespace.as_str() {
                "" => format!("{kind} (all)"),
                ns => format!("{kind} (all) -n {ns}"),
            };
        }
        crate::model::spell_object(&kind, &self.name, &self.namespace)
    }
}

/// Who acted.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Actor {
    /// `garbage-collector`, `namespace-controller`, `user` or `controller`: from the
    /// authenticated user (`user.username`, refined by `user.groups`: `actor.rs`), whom the
    /// request's credentials prove; the user agent, which any client may send, only tells the
    /// controllers of the controller manager's own identity apart.
    pub kind: &'static str,
    /// The identity the request acted as: `user.username`, or the impersonated user where
    /// the request impersonated one.
    pub user: String,
    /// The authenticated user who impersonated [`Actor::user`]; absent without
    /// impersonation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impersonated_by: Option<String>,
    /// `userAgent`.
    pub user_agent: String,
}

impl Actor {
    /// The identity for people: `bob (impersonated by admin)` when impersonated.
    pub fn display(&self) -> String {
        match &self.impersonated_by {
            Some(real) => format!("{} (impersonated by {real})", self.user),
            None => self.user.clone(),
        }
    }
}

/// The action at the start of a chain.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    /// When (RFC 3339).
    pub time: String,
    /// Who (the identity acted as).
    pub user: String,
    /// The authenticated user who impersonated [`Root::user`]; absent without impersonation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impersonated_by: Option<String>,
    /// What (`delete`, …).
    pub action: &'static str,
    /// On what.
    pub object: Obj,
}

impl Root {
    /// Item `it` as the start of a chain.
    pub fn of(it: &Item) -> Root {
        Root {
            time: it.time.clone(),
            user: it.actor.user.clone(),
            impersonated_by: it.actor.impersonated_by.clone(),
            action: it.action,
            object: it.object.clone(),
        }
    }

    /// Who, for people: `bob (impersonated by admin)` when impersonated.
    pub fn who(&self) -> String {
        match &self.impersonated_by {
            Some(real) => format!("{} (impersonated by {real})", self.user),
            None => self.user.clone(),
        }
    }
}

/// Why the GC or the namespace controller acted.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Cause {
    /// `owner-deleted`, `dangling-owner`, `cross-namespace-owner`, `stale-owner-uid`,
    /// `foreground-finished`, `orphaned`, `namespace-deleted`, `unexplained`, `unknown`.
    #[serde(rename = "type")]
    pub type_: &'static str,
    /// The owner (or namespace) behind it, where there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<Obj>,
    /// The propagation policy of the deletion behind it: `Background`, `Foreground`,
    /// `Orphan` or `unknown`.
    pub policy: &'static str,
    /// The action at the start of the chain; absent when it is not in the inputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<Root>,
    /// In words, with the evidence and what is not known.
    pub detail: String,
}

/// One action of the log.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// When (the response time, RFC 3339 with microseconds).
    pub time: String,
    /// Microseconds since the epoch (for sorting; not in the JSON).
    #[serde(skip)]
    pub time_us: i64,
    /// `delete`, `remove-owner-references`, `remove-finalizer`, `delete-collection`,
    /// `other-patch`.
    pub action: &'static str,
    /// The object.
    pub object: Obj,
    /// Who.
    pub actor: Actor,
    /// Why (GC and namespace-controller actions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    /// The audit level of the event (`Metadata`, `Request`, `RequestResponse`, `unknown`).
    pub level: &'static str,
    /// Where the event was read (`file:line`).
    pub source: String,
    /// How many identical actions this row stands for (retries of one actor, action and
    /// target with the same cause, collapsed by [`History::collapse`]); 1 for one action.
    pub count: usize,
    /// With `count` > 1: when the last of them was (`time` is the first's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<String>,
    /// Microseconds of `last` (not in the JSON).
    #[serde(skip)]
    pub last_us: i64,
    /// A collection deletion, with a state before: the objects of that state it took.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub taken: Vec<Taken>,
    /// With a state after the log (`--after`): the object there — `gone`, `terminating`
    /// (still there, deletion pending on finalizers), `present`, `recreated` (the name is
    /// there with another UID), or `unknown` (the state after did not read it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<&'static str>,
    /// Each source that shows this action, and where (the audit log's event, the controller
    /// manager's line, an Event, the watch journal): one row for one action, however many
    /// sources saw it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    /// Within a minute after a start of the garbage collector (a restart: a new graph from
    /// fresh lists), how long after it, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_gc_start_ms: Option<i64>,
}

/// Where a source shows an action.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// `audit-log`, `controller-manager-log`, `events`, `journal`.
    pub source: &'static str,
    /// `file:line`.
    pub at: String,
    /// What it says, where that adds to the row (the cause's proof).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub says: Option<String>,
}

/// An object a collection deletion took: one of the state before in its namespace and
/// resource that nothing in the log removed earlier and no finalizer held.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Taken {
    /// The object (as the state before had it).
    pub object: Obj,
    /// How sure: `confirmed` (the state after no longer holds it), `likely` (no state after
    /// read it), `possible` (the request had a field selector, which is not evaluated).
    pub sure: &'static str,
}

/// An object of the state before that the state after no longer holds, with no deletion of its
/// own in the log.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unlogged {
    /// The object (as the state before had it).
    pub object: Obj,
    /// The collection deletion of the log that took it (its resource in its namespace), if
    /// any; absent: it went in a gap of the log or outside its window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collection: Option<Root>,
}

/// Counts and what the inputs could not tell.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Actions in the log, before any selection (-n, --kind, --actor, -l, --since,
    /// --until).
    pub logged: usize,
    /// Actions by actor kind.
    pub by_actor: std::collections::BTreeMap<&'static str, usize>,
    /// Items by cause type (GC and namespace-controller actions).
    pub by_cause: std::collections::BTreeMap<&'static str, usize>,
    /// GC deletions nothing in the inputs accounts for.
    pub unexplained: usize,
    /// The window the log covers (RFC 3339), when it has events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// End of the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Server-side dry runs (`dryRun=All` in the request URI) of writes the history would
    /// report: the server changed nothing, so they are not listed as actions.
    pub dry_run: usize,
    /// Whether any GC action was seen at all (a policy that drops the GC shows none).
    pub gc_seen: bool,
    /// What the inputs could not tell, and how that limits the answer.
    pub notes: Vec<String>,
}

impl Summary {
    /// Counts `items` by actor and cause (again after a selection: the counts describe what
    /// is shown).
    pub fn count(&mut self, items: &[Item]) {
        self.by_actor.clear();
        self.by_cause.clear();
        self.unexplained = 0;
        for it in items {
            *self.by_actor.entry(it.actor.kind).or_default() += it.count;
            if let Some(c) = &it.cause {
                *self.by_cause.entry(c.type_).or_default() += it.count;
                if c.type_ == "unexplained" {
                    self.unexplained += it.count;
                }
            }
        }
    }
}

/// The history.
#[derive(Clone, Debug, Serialize)]
pub struct History {
    /// The actions, in time order.
    pub items: Vec<Item>,
    /// With states before and after: objects gone without a deletion of their own in the log.
    pub unlogged: Vec<Unlogged>,
    /// Counts and notes.
    pub summary: Summary,
}

/// Formats microseconds since the epoch as RFC 3339 with microseconds.
pub fn format_us(us: i64) -> String {
    let secs = us.div_euclid(1_000_000);
    let micros = us.rem_euclid(1_000_000);
    let base = format_rfc3339(secs);
    match base.strip_suffix('Z') {
        Some(b) => format!("{b}.{micros:06}Z"),
        None => base,
    }
}

/// An object's coordinates: group, resource, namespace, name.
type Key = (String, String, String, String);
