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

use crate::snapshot::{Snapshot, format_rfc3339};
use crate::source::audit::{AuditEvent, Level, OwnerRefSeen};
use serde::Serialize;
use std::collections::HashMap;

/// The GC's username with service-account credentials.
pub const GC_USER: &str = "system:serviceaccount:kube-system:generic-garbage-collector";
/// The namespace controller's username with service-account credentials.
pub const NAMESPACE_CONTROLLER_USER: &str =
    "system:serviceaccount:kube-system:namespace-controller";

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
    /// `garbage-collector`, `namespace-controller`, `user` or `controller`.
    pub kind: &'static str,
    /// `user.username` (the impersonated user where the request impersonated one).
    pub user: String,
    /// `userAgent`.
    pub user_agent: String,
}

/// The action at the start of a chain.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    /// When (RFC 3339).
    pub time: String,
    /// Who.
    pub user: String,
    /// What (`delete`, …).
    pub action: &'static str,
    /// On what.
    pub object: Obj,
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
    /// With a state after the log (`--after`): the object there — `gone`, `terminating`
    /// (still there, deletion pending on finalizers), `present`, `recreated` (the name is
    /// there with another UID), or `unknown` (the state after did not read it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<&'static str>,
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
    /// Items by actor kind.
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
            *self.by_actor.entry(it.actor.kind).or_default() += 1;
            if let Some(c) = &it.cause {
                *self.by_cause.entry(c.type_).or_default() += 1;
                if c.type_ == "unexplained" {
                    self.unexplained += 1;
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

/// Who a request came from.
pub fn actor_of(e: &AuditEvent) -> Actor {
    Actor {
        kind: actor_kind(e),
        user: e
            .impersonated_user
            .clone()
            .unwrap_or_else(|| e.user.clone()),
        user_agent: e.user_agent.clone(),
    }
}

/// [`Actor::kind`] of a request (no string copied: every event of the log is asked).
fn actor_kind(e: &AuditEvent) -> &'static str {
    let user = e.impersonated_user.as_deref().unwrap_or(&e.user);
    let ua = e.user_agent.as_str();
    if user == GC_USER || ua.ends_with("/generic-garbage-collector") {
        "garbage-collector"
    } else if user == NAMESPACE_CONTROLLER_USER || ua.ends_with("/namespace-controller") {
        "namespace-controller"
    } else if user.starts_with("system:") {
        "controller"
    } else {
        "user"
    }
}

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

/// An owner reference resolved to the object the GC would look up.
struct OwnerKey {
    obj: Obj,
    uid: String,
}

/// Maps an ownerReference's apiVersion/kind to the resource the GC looks it up as.
fn owner_key(snap: Option<&Snapshot>, r: &OwnerRefSeen, dependent_ns: &str) -> Option<OwnerKey> {
    let (group, version) = match r.api_version.split_once('/') {
        Some((g, v)) => (g.to_owned(), v.to_owned()),
        None => (String::new(), r.api_version.clone()),
    };
    let _ = version;
    let from_snapshot = snap.and_then(|s| {
        s.resources
            .iter()
            .find(|res| res.group == group && res.kind.eq_ignore_ascii_case(&r.kind))
            .map(|res| (res.plural.clone(), res.namespaced))
    });
    let (plural, namespaced) = from_snapshot.or_else(|| {
        crate::catalog::builtin::all()
            .iter()
            .find(|b| b.group == group && b.kind.eq_ignore_ascii_case(&r.kind))
            .map(|b| (b.plural.to_owned(), b.namespaced))
    })?;
    Some(OwnerKey {
        obj: Obj {
            group,
            resource: plural,
            namespace: if namespaced {
                dependent_ns.to_owned()
            } else {
                String::new()
            },
            name: r.name.clone(),
            uid: Some(r.uid.clone()),
        },
        uid: r.uid.clone(),
    })
}

/// The snapshot's objects by coordinates: one pass over the store, keyed by interned symbols
/// (no string is copied), so each lookup of the history is a hash probe.
pub struct SnapIndex<'s> {
    snap: &'s Snapshot,
    by_resource: HashMap<(&'s str, &'s str), Vec<crate::model::ResourceId>>,
    objects: HashMap<
        (
            crate::model::ResourceId,
            crate::model::Sym,
            crate::model::Sym,
        ),
        crate::model::ObjId,
    >,
}

impl<'s> SnapIndex<'s> {
    /// Indexes `snap` (one pass over its store).
    pub fn new(snap: &'s Snapshot) -> Self {
        let mut by_resource: HashMap<(&str, &str), Vec<crate::model::ResourceId>> = HashMap::new();
        for (i, r) in snap.resources.iter().enumerate() {
            by_resource
                .entry((r.group.as_str(), r.plural.as_str()))
                .or_default()
                .push(crate::model::ResourceId(i as u32));
        }
        let store = &snap.store;
        let objects = store
            .ids()
            .map(|id| {
                let o = store.object(id);
                ((o.resource, o.namespace, o.name), id)
            })
            .collect();
        SnapIndex {
            snap,
            by_resource,
            objects,
        }
    }

    /// True when the snapshot read every object of `o`'s resource in `o`'s namespace: only
    /// then is an object it does not hold absent rather than unknown.
    fn covers(&self, o: &Obj) -> bool {
        self.covers_at(&o.group, &o.resource, &o.namespace)
    }

    fn covers_at(&self, group: &str, resource: &str, namespace: &str) -> bool {
        self.by_resource.get(&(group, resource)).is_some_and(|rs| {
            rs.iter()
                .any(|r| self.snap.resources[r.0 as usize].list.covers(namespace))
        })
    }

    /// What became of `o`, acted on at `at_us`, in this (later) state: `gone`,
    /// `terminating`, `present`, `recreated` (another UID at its coordinates — or, where the
    /// log names no UID, an object created after the action) or `unknown` (not read).
    fn fate(&self, o: &Obj, at_us: i64) -> &'static str {
        let store = &self.snap.store;
        match self.find(o) {
            Some(id) => {
                let obj = store.object(id);
                let recreated = match o.uid.as_deref() {
                    Some(u) => u != store.str(obj.uid),
                    None => {
                        crate::snapshot::parse_rfc3339(&store.timestamp(obj.creation_timestamp))
                            .is_some_and(|created| created * 1_000_000 > at_us)
                    }
                };
                if recreated {
                    "recreated"
                } else if obj.being_deleted() {
                    "terminating"
                } else {
                    "present"
                }
            }
            None if self.covers(o) => "gone",
            None => "unknown",
        }
    }

    /// The object with this UID, anywhere in the snapshot.
    fn by_uid(&self, uid: &str) -> Option<crate::model::ObjId> {
        self.snap.store.by_uid_text(uid)
    }

    /// The snapshot object at these coordinates.
    pub fn find(&self, o: &Obj) -> Option<crate::model::ObjId> {
        self.find_at(&o.group, &o.resource, &o.namespace, &o.name)
    }

    fn find_at(
        &self,
        group: &str,
        resource: &str,
        namespace: &str,
        name: &str,
    ) -> Option<crate::model::ObjId> {
        let strings = &self.snap.store.strings;
        let ns = if namespace.is_empty() {
            crate::model::Sym::EMPTY
        } else {
            strings.get(namespace)?
        };
        let name = strings.get(name)?;
        self.by_resource
            .get(&(group, resource))?
            .iter()
            .find_map(|&r| self.objects.get(&(r, ns, name)).copied())
    }
}

/// The owner references of `o` as the inputs show them before `t`: the response body of the
/// event itself, else the snapshot of the state before.
fn owner_refs_of(
    e: &AuditEvent,
    o: &Obj,
    index: Option<&SnapIndex<'_>>,
) -> Option<(Vec<OwnerRefSeen>, &'static str)> {
    if let Some(refs) = &e.bodies.response_owner_references {
        return Some((refs.clone(), "the response body"));
    }
    let index = index?;
    let id = index.find(o)?;
    let store = &index.snap.store;
    Some((
        store
            .owner_refs(id)
            .iter()
            .map(|r| OwnerRefSeen {
                api_version: store.str(r.api_version).to_owned(),
                kind: store.str(r.kind).to_owned(),
                name: store.str(r.name).to_owned(),
                uid: store.str(r.uid).to_owned(),
            })
            .collect(),
        "the snapshot",
    ))
}

type Key = (String, String, String, String);

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
/// the creates that name UIDs or owners, the GC's owner reads that answered 404 — so memory
/// follows the objects the log touches, not the log (a busy cluster's log is mostly reads and
/// lease and status updates).
#[derive(Default)]
pub struct Recorder {
    kept: Vec<AuditEvent>,
    first_us: Option<i64>,
    last_us: Option<i64>,
    levels: std::collections::BTreeSet<Level>,
    gc_seen: bool,
    seen: u64,
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
        if used(&e, kind) {
            self.kept.push(e);
        }
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
        build(self, states)
    }
}

/// True for the events the history reads (for [`crate::source::audit::AuditOptions::keep`]:
/// the reader drops the rest where it parses them).
pub fn used_by_history(e: &AuditEvent) -> bool {
    used(e, actor_kind(e))
}

/// True for the events [`build`] reads: reports, a create that names a UID or owners, or the
/// GC's owner read that answered 404.
fn used(e: &AuditEvent, kind: &str) -> bool {
    let Some(o) = &e.object else { return false };
    match e.verb.as_str() {
        "get" => e.code == 404 && kind == "garbage-collector",
        "create" => {
            (200..300).contains(&e.code)
                && (!o.uid.is_empty()
                    || e.deleted_uid.is_some()
                    || e.bodies.response_uid.is_some()
                    || e.bodies.owner_references.is_some())
        }
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

fn build(rec: Recorder, states: States<'_>) -> History {
    let States { before, after } = states;
    let mut order: Vec<&AuditEvent> = rec.kept.iter().collect();
    order.sort_by_key(|e| e.time_us);
    let mut items: Vec<Item> = Vec::new();
    // Index of the events each item came from (for bodies and responses).
    let mut sources: Vec<&AuditEvent> = Vec::new();
    // Per object key: its items, in time order.
    let mut by_key: HashMap<Key, Vec<usize>> = HashMap::new();
    // Per key: UIDs seen created (create events with a uid) and when.
    let mut created: HashMap<Key, Vec<(i64, String)>> = HashMap::new();
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
            if let Some(uid) = o.uid.clone() {
                created.entry(o.key()).or_default().push((e.time_us, uid));
            }
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
            level: level_str(e.level),
            source: format!("{}:{}", e.position.source, e.position.line),
            after: None,
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

    let index = before.map(SnapIndex::new);
    let after_index = after.map(SnapIndex::new);
    let cx = Cx {
        items: &items,
        sources: &sources,
        by_key: &by_key,
        created: &created,
        created_refs: &created_refs,
        gc_404: &gc_404,
        before,
        index: index.as_ref(),
        after_index: after_index.as_ref(),
        memo: std::cell::RefCell::new(HashMap::new()),
    };
    let causes: Vec<Option<Cause>> = (0..items.len()).map(|i| cx.cause(i, 0)).collect();
    let fates: Vec<Option<&'static str>> = items
        .iter()
        .map(|it| {
            // A collection names no object: its fate is the unlogged list's.
            after_index
                .as_ref()
                .filter(|_| !it.object.name.is_empty())
                .map(|a| a.fate(&it.object, it.time_us))
        })
        .collect();
    let unlogged = match (&index, &after_index) {
        (Some(b), Some(a)) => unlogged(b, a, &items, &by_key),
        _ => Vec::new(),
    };
    for ((item, cause), fate) in items.iter_mut().zip(causes).zip(fates) {
        item.cause = cause;
        item.after = fate;
    }

    let mut summary = Summary {
        gc_seen: rec.gc_seen,
        from: rec.first_us.map(format_us),
        to: rec.last_us.map(format_us),
        ..Summary::default()
    };
    summary.count(&items);
    let any = rec.seen > 0;
    if any && !rec.gc_seen {
        summary.notes.push(
            "no request of the garbage collector is in the log: either it did nothing in this \
             window, or the audit policy drops it (a rule on system:serviceaccounts:kube-system \
             or system:kube-controller-manager)"
                .to_owned(),
        );
    }
    if any && rec.levels.iter().all(|l| *l <= Level::Metadata) {
        summary.notes.push(
            "Metadata level only: no request bodies, so propagation policies are inferred from \
             what the GC did next, and owners come only from --snapshot/-f"
                .to_owned(),
        );
    }
    if before.is_none() {
        summary.notes.push(
            "no snapshot of the state before (--snapshot FILE or -f PATH): owners the bodies do \
             not show are unknown"
                .to_owned(),
        );
    }
    if let (Some(a), Some(to)) = (after, rec.last_us)
        && let Some(at) = crate::snapshot::parse_rfc3339(&a.provenance.captured_at)
        && at * 1_000_000 < to
    {
        summary.notes.push(format!(
            "the state after (--after) was captured at {}, before the log ends: what happened \
             later is not in it",
            a.provenance.captured_at
        ));
    }
    if !unlogged.is_empty() {
        summary.notes.push(format!(
            "{} object(s) of the state before are gone from the state after without a deletion \
             of their own in the log (listed; `unlogged` in -o json)",
            unlogged.len()
        ));
    }
    History {
        items,
        unlogged,
        summary,
    }
}

/// Objects of the state before that the state after (which covers them) no longer holds (or
/// holds under another UID), with no deletion of their own in the log: removed with a collection (a namespace's content goes
/// through `deletecollection`, which names no object — only the two states tell what went), or
/// gone in a gap of the log or outside its window.
fn unlogged(
    before: &SnapIndex<'_>,
    after: &SnapIndex<'_>,
    items: &[Item],
    by_key: &HashMap<Key, Vec<usize>>,
) -> Vec<Unlogged> {
    // The first collection deletion per (group, resource, namespace, "").
    let mut collections: HashMap<Key, usize> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        if it.action == "delete-collection" {
            collections.entry(it.object.key()).or_insert(i);
        }
    }
    let store = &before.snap.store;
    let mut out = Vec::new();
    for id in store.ids() {
        let o = store.object(id);
        let res = &before.snap.resources[o.resource.0 as usize];
        let (ns, name) = (store.str(o.namespace), store.str(o.name));
        // Most objects are still there: asked by borrowed coordinates, nothing is copied. One
        // whose name is there under another UID is gone too (recreated).
        // Not read in the state after: unknown, never gone.
        let kept_or_unknown = match after.find_at(&res.group, &res.plural, ns, name) {
            Some(a) => {
                let a_store = &after.snap.store;
                a_store.str(a_store.object(a).uid) == store.str(o.uid)
            }
            None => !after.covers_at(&res.group, &res.plural, ns),
        };
        if kept_or_unknown {
            continue;
        }
        let obj = Obj {
            group: res.group.clone(),
            resource: res.plural.clone(),
            namespace: store.str(o.namespace).to_owned(),
            name: store.str(o.name).to_owned(),
            uid: Some(store.str(o.uid).to_owned()),
        };
        let deleted = by_key
            .get(&obj.key())
            .is_some_and(|v| v.iter().any(|&j| items[j].action == "delete"));
        if deleted {
            continue;
        }
        // A collection of its resource in its namespace, else across all, that the log has.
        let mut coll = obj.key();
        coll.3 = String::new();
        let collection = collections.get(&coll).or_else(|| {
            coll.2 = String::new();
            collections.get(&coll)
        });
        let collection = collection.copied();
        out.push(Unlogged {
            object: obj,
            collection: collection.map(|c| Root {
                time: items[c].time.clone(),
                user: items[c].actor.user.clone(),
                action: items[c].action,
                object: items[c].object.clone(),
            }),
        });
    }
    out.sort_by(|a, b| a.object.cmp(&b.object));
    out
}

struct Cx<'a> {
    items: &'a [Item],
    sources: &'a [&'a AuditEvent],
    by_key: &'a HashMap<Key, Vec<usize>>,
    created: &'a HashMap<Key, Vec<(i64, String)>>,
    created_refs: &'a HashMap<Key, Vec<OwnerRefSeen>>,
    gc_404: &'a HashMap<Key, i64>,
    before: Option<&'a Snapshot>,
    index: Option<&'a SnapIndex<'a>>,
    after_index: Option<&'a SnapIndex<'a>>,
    /// Causes computed so far (a chain's items are asked for again by every later link).
    memo: std::cell::RefCell<HashMap<usize, Option<Cause>>>,
}

const MAX_DEPTH: usize = 64;

impl Cx<'_> {
    /// The last deletion of `key` at or before `t` (not item `not`).
    fn deletion_before(&self, key: &Key, t: i64, not: usize) -> Option<usize> {
        self.by_key.get(key)?.iter().copied().rfind(|&j| {
            j != not
                && matches!(self.items[j].action, "delete" | "delete-collection")
                && self.items[j].time_us <= t
        })
    }

    /// The root of the chain that item `i` is part of.
    fn root(&self, i: usize, depth: usize) -> Option<Root> {
        let it = &self.items[i];
        if matches!(it.actor.kind, "user" | "controller") || depth > MAX_DEPTH {
            return Some(Root {
                time: it.time.clone(),
                user: it.actor.user.clone(),
                action: it.action,
                object: it.object.clone(),
            });
        }
        self.cause(i, depth + 1)?.root
    }

    /// The policy of deletion item `d`: the body's, else inferred from what the GC did next
    /// (the second value: true when inferred).
    fn policy_of(&self, d: usize) -> (&'static str, bool) {
        let e = self.sources[d];
        if let Some(p) = &e.bodies.propagation_policy {
            return (
                match p.as_str() {
                    "Foreground" => "Foreground",
                    "Orphan" => "Orphan",
                    "Background" => "Background",
                    _ => "unknown",
                },
                false,
            );
        }
        if e.bodies.orphan_dependents == Some(true) {
            return ("Orphan", false);
        }
        if e.deleted_uid.is_some() {
            // Removed at once: no finalizer was added, so not Foreground or Orphan.
            return ("Background", true);
        }
        let owner = &self.items[d];
        if owner.actor.kind == "namespace-controller" {
            // The namespace controller always deletes with Background (§10.2).
            return ("Background", false);
        }
        // Foreground and Orphan add a finalizer the GC removes once done: without a later GC
        // finalizer removal on the object, the deletion was Background.
        let key = owner.object.key();
        let Some(f) = self.by_key.get(&key).and_then(|v| {
            v.iter().copied().find(|&j| {
                self.items[j].actor.kind == "garbage-collector"
                    && self.items[j].action == "remove-finalizer"
                    && self.items[j].time_us >= owner.time_us
            })
        }) else {
            return ("Background", true);
        };
        // Orphan: the GC removes the dependents' references, then `orphan` (in that order,
        // always); Foreground: it removes `foregroundDeletion` once no *blocking* dependent is
        // left, so non-blocking dependents may go before or after.
        let (from, to) = (owner.time_us, self.items[f].time_us);
        let near = |x: &Item| {
            x.actor.kind == "garbage-collector"
                && x.time_us >= from
                && x.time_us <= to
                && (owner.object.namespace.is_empty()
                    || x.object.namespace == owner.object.namespace)
        };
        // Items are in time order: only those between the deletion and the removal are read
        // (a scan of every item per deletion is quadratic on a busy log).
        let lo = self.items.partition_point(|x| x.time_us < from);
        let hi = self.items.partition_point(|x| x.time_us <= to);
        let window = &self.items[lo..hi.max(lo)];
        let deleted = window.iter().any(|x| near(x) && x.action == "delete");
        let unlinked = window
            .iter()
            .any(|x| near(x) && x.action == "remove-owner-references");
        match (deleted, unlinked) {
            (false, true) => ("Orphan", true),
            _ => ("Foreground", true),
        }
    }

    fn policy(&self, d: usize) -> &'static str {
        self.policy_of(d).0
    }

    fn cause(&self, i: usize, depth: usize) -> Option<Cause> {
        if let Some(c) = self.memo.borrow().get(&i) {
            return c.clone();
        }
        if depth > MAX_DEPTH {
            return None;
        }
        let c = self.compute_cause(i, depth);
        self.memo.borrow_mut().insert(i, c.clone());
        c
    }

    fn compute_cause(&self, i: usize, depth: usize) -> Option<Cause> {
        let it = &self.items[i];
        match it.actor.kind {
            "namespace-controller" => Some(self.namespace_cause(i, depth)),
            "garbage-collector" => Some(match it.action {
                "remove-finalizer" => self.finalizer_cause(i, depth),
                _ => self.owner_cause(i, depth),
            }),
            _ => None,
        }
    }

    fn namespace_cause(&self, i: usize, depth: usize) -> Cause {
        let it = &self.items[i];
        let ns_name = if it.object.resource == "namespaces" && it.object.group.is_empty() {
            it.object.name.clone()
        } else {
            it.object.namespace.clone()
        };
        let ns = Obj {
            group: String::new(),
            resource: "namespaces".into(),
            namespace: String::new(),
            name: ns_name.clone(),
            uid: None,
        };
        let d = self.deletion_before(&ns.key(), it.time_us, i);
        Cause {
            type_: "namespace-deleted",
            owner: Some(ns),
            policy: d.map_or("unknown", |d| self.policy(d)),
            root: d.and_then(|d| self.root(d, depth)),
            detail: match d {
                Some(d) => format!(
                    "namespace {ns_name} was deleted at {} by {}: the namespace controller \
                     deletes everything in it",
                    self.items[d].time, self.items[d].actor.user
                ),
                None => format!(
                    "namespace {ns_name} is being deleted; its deletion is not in the log \
                     (before its window?)"
                ),
            },
        }
    }

    /// The GC removed a finalizer of `it`: its foreground deletion or orphaning finished.
    fn finalizer_cause(&self, i: usize, depth: usize) -> Cause {
        let it = &self.items[i];
        let d = self.deletion_before(&it.object.key(), it.time_us, i);
        let policy = d.map_or("unknown", |d| self.policy_of(d).0);
        let type_ = if policy == "Orphan" {
            "orphaned"
        } else {
            "foreground-finished"
        };
        Cause {
            type_,
            owner: None,
            policy,
            root: d.and_then(|d| self.root(d, depth)),
            detail: match (d, policy) {
                (Some(d), "Orphan") => format!(
                    "deleted at {} by {} with propagationPolicy=Orphan: the GC removed `orphan` \
                     after removing the dependents' references",
                    self.items[d].time, self.items[d].actor.user
                ),
                (Some(d), _) => format!(
                    "deleted at {} by {}{}: the GC removed `foregroundDeletion` once no blocking \
                     dependent was left",
                    self.items[d].time,
                    self.items[d].actor.user,
                    if policy == "Foreground" {
                        " with propagationPolicy=Foreground"
                    } else {
                        ""
                    }
                ),
                (None, _) => "the GC removed a finalizer of an object whose deletion is not in \
                              the log (before its window?)"
                    .to_owned(),
            },
        }
    }

    /// A GC deletion or reference removal: explained by the object's owners.
    fn owner_cause(&self, i: usize, depth: usize) -> Cause {
        let it = &self.items[i];
        let e = self.sources[i];
        let unknown = |detail: String| Cause {
            type_: "unknown",
            owner: None,
            policy: "unknown",
            root: None,
            detail,
        };
        // The reference the GC removed, when the body names it.
        let removed_uid = e
            .bodies
            .removed_paths
            .iter()
            .find_map(|p| p.strip_prefix("/metadata/ownerReferences/uid="))
            .map(str::to_owned);
        let from_create = self
            .created_refs
            .get(&it.object.key())
            .filter(|_| e.bodies.response_owner_references.is_none())
            .map(|r| (r.clone(), "the body of its create request"));
        let Some((refs, from)) = from_create.or_else(|| owner_refs_of(e, &it.object, self.index))
        else {
            return unknown(
                "its owners are not in the inputs: the log's bodies do not show them and no \
                 snapshot of the state before holds the object (--snapshot/-f)"
                    .to_owned(),
            );
        };
        let refs: Vec<OwnerRefSeen> = match &removed_uid {
            Some(u) => refs.into_iter().filter(|r| &r.uid == u).collect(),
            None => refs,
        };
        if refs.is_empty() {
            return unknown(format!(
                "{from} shows no ownerReference on it: the GC acted on references added after \
                 the snapshot"
            ));
        }
        // Each owner's fate; the cause is the latest deletion among them, else the worst
        // reference found.
        let mut best: Option<(i64, Cause)> = None;
        let mut notes: Vec<String> = Vec::new();
        for r in &refs {
            // The resource a kind maps to: either state's table knows the cluster's own kinds
            // (custom resources included), the built-in catalogue the rest.
            let table = self.before.or(self.after_index.map(|a| a.snap));
            let Some(k) = owner_key(table, r, &it.object.namespace) else {
                notes.push(format!(
                    "{}/{} ({}): a kind kubectl-gc cannot map to a resource",
                    r.kind, r.name, r.api_version
                ));
                continue;
            };
            let key = k.obj.key();
            if let Some(d) = self.deletion_before(&key, it.time_us, i) {
                let deleted_uid = self.items[d].object.uid.clone();
                let stale = deleted_uid.as_deref().is_some_and(|u| u != k.uid);
                let (policy, inferred) = self.policy_of(d);
                let how = if inferred {
                    " — inferred from what the GC did next, not read from the request"
                } else {
                    ""
                };
                let orphaned = it.action == "remove-owner-references" && policy == "Orphan";
                let cause = Cause {
                    type_: if stale {
                        "stale-owner-uid"
                    } else if orphaned {
                        "orphaned"
                    } else {
                        "owner-deleted"
                    },
                    owner: Some(k.obj.clone()),
                    policy,
                    root: self.root(d, depth),
                    detail: if stale {
                        format!(
                            "the reference names UID {} but the {} deleted at {} had UID {}",
                            k.uid,
                            k.obj.display(),
                            self.items[d].time,
                            deleted_uid.unwrap_or_default()
                        )
                    } else if orphaned {
                        format!(
                            "its owner {} was deleted at {} by {} with propagationPolicy=Orphan: \
                             the GC removed the reference instead of deleting it",
                            k.obj.display(),
                            self.items[d].time,
                            self.items[d].actor.user
                        )
                    } else {
                        format!(
                            "its owner {} was deleted at {} by {} (propagationPolicy {policy}{how})",
                            k.obj.display(),
                            self.items[d].time,
                            self.items[d].actor.user
                        )
                    },
                };
                let t = self.items[d].time_us;
                if best.as_ref().is_none_or(|(bt, _)| t > *bt) {
                    best = Some((t, cause));
                }
                continue;
            }
            if best.is_some() {
                continue;
            }
            best = Some((i64::MIN, self.absent_owner_cause(&k, it)));
        }
        match best {
            Some((_, mut c)) => {
                if !notes.is_empty() {
                    c.detail.push_str(&format!("; {}", notes.join("; ")));
                }
                c
            }
            None => unknown(notes.join("; ")),
        }
    }

    /// An owner not deleted in the window: why the GC found it absent. The state before
    /// proves most (what existed then); the state after proves what still exists — an owner
    /// with the reference's UID that exists after the GC's action existed during it.
    fn absent_owner_cause(&self, k: &OwnerKey, it: &Item) -> Cause {
        let key = k.obj.key();
        let evidence = self
            .gc_404
            .get(&key)
            .filter(|t| **t <= it.time_us)
            .map(|t| format!("; the GC's GET of it answered 404 at {}", format_us(*t)))
            .unwrap_or_default();
        let with = |type_, policy, detail: String| Cause {
            type_,
            owner: Some(k.obj.clone()),
            policy,
            root: None,
            detail: format!("{detail}{evidence}"),
        };
        let recreated = self
            .created
            .get(&key)
            .and_then(|v| v.iter().find(|(_, u)| *u != k.uid).cloned());
        if let Some((t, uid)) = recreated {
            return with(
                "stale-owner-uid",
                "unknown",
                format!(
                    "{} was created at {} with UID {uid}, not the UID {} the reference names",
                    k.obj.display(),
                    format_us(t),
                    k.uid
                ),
            );
        }
        let mut unread = None;
        if let (Some(_), Some(index)) = (self.before, self.index) {
            if let Some(c) = self.owner_in(index, k, it, "in the snapshot before", &with) {
                return c;
            }
            if index.covers(&k.obj) {
                return with(
                    "dangling-owner",
                    "unknown",
                    format!(
                        "its owner {} (UID {}) is neither in the snapshot of the state before \
                         nor created in the log: the reference never pointed at anything there",
                        k.obj.display(),
                        k.uid
                    ),
                );
            }
            unread = Some(format!(
                "the snapshot before did not read {} in {}",
                k.obj.resource,
                if k.obj.namespace.is_empty() {
                    "the cluster scope"
                } else {
                    k.obj.namespace.as_str()
                }
            ));
        }
        if let Some(index) = self.after_index {
            if let Some(c) = self.owner_in(index, k, it, "in the state after", &with) {
                return c;
            }
            if index.covers(&k.obj) && unread.is_none() {
                return with(
                    "unknown",
                    "unknown",
                    format!(
                        "its owner {} (UID {}) was not deleted in the log's window and is not in the state after either: it was gone before the window, or never existed — a snapshot of the state before tells which",
                        k.obj.display(),
                        k.uid
                    ),
                );
            }
        }
        with(
            "unknown",
            "unknown",
            match unread {
                Some(why) => format!(
                    "its owner {} was not deleted in the log's window, and {why}: whether it existed is unknown",
                    k.obj.display()
                ),
                None => format!(
                    "its owner {} was not deleted in the log's window: it was gone before the window, or never existed — a snapshot of the state before tells which",
                    k.obj.display()
                ),
            },
        )
    }

    /// What a state (`when`: before or after the log) says of owner `k`: there under another
    /// UID (stale), there with this UID (so the GC's action is unexplained — unless it was
    /// already being deleted), or in another namespace (cross-namespace). `None`: not there.
    fn owner_in(
        &self,
        index: &SnapIndex<'_>,
        k: &OwnerKey,
        it: &Item,
        when: &str,
        with: &dyn Fn(&'static str, &'static str, String) -> Cause,
    ) -> Option<Cause> {
        let store = &index.snap.store;
        if let Some(found) = index.find(&k.obj) {
            let o = store.object(found);
            let uid = store.str(o.uid);
            if uid != k.uid {
                return Some(with(
                    "stale-owner-uid",
                    "unknown",
                    format!(
                        "{} exists {when} with UID {uid}, not the UID {} the reference names: the owner was recreated under the same name",
                        k.obj.display(),
                        k.uid
                    ),
                ));
            }
            if o.being_deleted() {
                // Its deletion is not in the log: before the window, or in a gap of it.
                let fins: Vec<&str> = store
                    .finalizers(found)
                    .iter()
                    .map(|f| store.str(*f))
                    .collect();
                let policy = if fins.contains(&"foregroundDeletion") {
                    "Foreground"
                } else if fins.contains(&"orphan") {
                    "Orphan"
                } else {
                    "unknown"
                };
                let type_ = if policy == "Orphan" && it.action == "remove-owner-references" {
                    "orphaned"
                } else {
                    "owner-deleted"
                };
                return Some(with(
                    type_,
                    policy,
                    format!(
                        "its owner {} is being deleted {when} (deletionTimestamp {}), but the deletion is not in the log (before its window, or in a gap)",
                        k.obj.display(),
                        store.str(o.deletion_timestamp)
                    ),
                ));
            }
            return Some(with(
                "unexplained",
                "unknown",
                format!(
                    "its owner {} exists {when} with this UID and no deletion of it is in the \
                     log: nothing in the inputs accounts for this GC action (a gap in the log, \
                     or a GC whose view was wrong)",
                    k.obj.display()
                ),
            ));
        }
        let elsewhere = index.by_uid(&k.uid)?;
        let ns = store.str(store.object(elsewhere).namespace);
        Some(with(
            "cross-namespace-owner",
            "unknown",
            format!(
                "the owner with UID {} is {when} in {}, but the GC looks only in the dependent's namespace {}: ownerReferences cannot cross namespaces",
                k.uid,
                if ns.is_empty() {
                    "the cluster scope".to_owned()
                } else {
                    format!("namespace {ns}")
                },
                it.object.namespace
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::audit::{ObjectRef, Position};
    use crate::testkit::Cluster;

    const USER: &str = "alice";
    const T0: i64 = 1_790_000_000_000_000;

    /// An event: `who` did `verb` on `resource/name` in `ns` at T0 + `ms` milliseconds.
    fn ev(ms: i64, who: &str, verb: &str, resource: &str, ns: &str, name: &str) -> AuditEvent {
        let (group, resource) = match resource.split_once('.') {
            Some((r, g)) => (g.to_owned(), r.to_owned()),
            None => (String::new(), resource.to_owned()),
        };
        AuditEvent {
            audit_id: format!("id-{ms}"),
            level: Level::Metadata,
            time_us: T0 + ms * 1000,
            verb: verb.into(),
            user: who.into(),
            user_agent: "test".into(),
            object: Some(ObjectRef {
                resource,
                namespace: ns.into(),
                name: name.into(),
                api_group: group,
                api_version: "v1".into(),
                ..ObjectRef::default()
            }),
            code: 200,
            position: Position {
                source: "audit.log".into(),
                line: ms as u64,
            },
            ..AuditEvent::default()
        }
    }

    fn item<'h>(h: &'h History, action: &str, name: &str) -> &'h Item {
        h.items
            .iter()
            .find(|i| i.action == action && i.object.name == name)
            .unwrap_or_else(|| panic!("no {action} of {name}: {:#?}", h.items))
    }

    fn cause<'h>(h: &'h History, action: &str, name: &str) -> &'h Cause {
        item(h, action, name).cause.as_ref().expect("a cause")
    }

    /// `dep` in `shop` owned by ConfigMap `owner` (uid u-owner) in the snapshot before.
    fn before() -> Snapshot {
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "shop", "owner", "u-owner");
        c.obj("v1", "ConfigMap", "shop", "dep", "u-dep").owner(
            "v1",
            "ConfigMap",
            "owner",
            "u-owner",
        );
        c.build()
    }

    #[test]
    fn a_background_cascade_is_traced_to_the_users_delete() {
        let events = [
            ev(0, USER, "delete", "configmaps", "shop", "owner"),
            ev(5, GC_USER, "delete", "configmaps", "shop", "dep"),
        ];
        let h = history(&events, Some(&before()));
        assert!(
            item(&h, "delete", "owner").cause.is_none(),
            "a user's action has no cause"
        );
        let c = cause(&h, "delete", "dep");
        assert_eq!(c.type_, "owner-deleted");
        assert_eq!(c.policy, "Background");
        assert_eq!(c.owner.as_ref().unwrap().name, "owner");
        let root = c.root.as_ref().unwrap();
        assert_eq!((root.user.as_str(), root.action), (USER, "delete"));
        assert_eq!(root.object.name, "owner");
        assert_eq!(h.summary.unexplained, 0);
        assert!(h.summary.gc_seen);
    }

    #[test]
    fn a_chain_of_cascades_has_the_first_action_as_its_root() {
        let mut c = Cluster::new();
        c.obj("apps/v1", "Deployment", "shop", "web", "u-d");
        c.obj("apps/v1", "ReplicaSet", "shop", "web-1", "u-rs")
            .owner("apps/v1", "Deployment", "web", "u-d");
        c.obj("v1", "Pod", "shop", "web-1-a", "u-p").owner(
            "apps/v1",
            "ReplicaSet",
            "web-1",
            "u-rs",
        );
        let events = [
            ev(0, USER, "delete", "deployments.apps", "shop", "web"),
            ev(4, GC_USER, "delete", "replicasets.apps", "shop", "web-1"),
            ev(9, GC_USER, "delete", "pods", "shop", "web-1-a"),
        ];
        let h = history(&events, Some(&c.build()));
        let pod = cause(&h, "delete", "web-1-a");
        assert_eq!(pod.type_, "owner-deleted");
        assert_eq!(pod.owner.as_ref().unwrap().resource, "replicasets");
        assert_eq!(pod.root.as_ref().unwrap().object.name, "web");
        assert_eq!(pod.root.as_ref().unwrap().user, USER);
    }

    #[test]
    fn foreground_and_orphan_are_inferred_from_what_the_gc_did_next() {
        // Foreground: the GC deletes the dependent, then removes the owner's finalizer.
        let events = [
            ev(0, USER, "delete", "configmaps", "shop", "owner"),
            ev(5, GC_USER, "delete", "configmaps", "shop", "dep"),
            ev(9, GC_USER, "patch", "configmaps", "shop", "owner"),
        ];
        let h = history(&events, Some(&before()));
        assert_eq!(cause(&h, "delete", "dep").policy, "Foreground");
        let fin = cause(&h, "remove-finalizer", "owner");
        assert_eq!(
            (fin.type_, fin.policy),
            ("foreground-finished", "Foreground")
        );
        assert_eq!(fin.root.as_ref().unwrap().user, USER);
        // Orphan: the GC removes the dependent's reference, then the owner's finalizer.
        let events = [
            ev(0, USER, "delete", "configmaps", "shop", "owner"),
            ev(5, GC_USER, "patch", "configmaps", "shop", "dep"),
            ev(9, GC_USER, "patch", "configmaps", "shop", "owner"),
        ];
        let h = history(&events, Some(&before()));
        let dep = cause(&h, "remove-owner-references", "dep");
        assert_eq!((dep.type_, dep.policy), ("orphaned", "Orphan"));
        let fin = cause(&h, "remove-finalizer", "owner");
        assert_eq!((fin.type_, fin.policy), ("orphaned", "Orphan"));
    }

    #[test]
    fn the_request_bodys_policy_wins_over_inference() {
        let mut del = ev(0, USER, "delete", "configmaps", "shop", "owner");
        del.level = Level::Request;
        del.bodies.propagation_policy = Some("Foreground".into());
        let events = [del, ev(5, GC_USER, "delete", "configmaps", "shop", "dep")];
        let h = history(&events, Some(&before()));
        assert_eq!(cause(&h, "delete", "dep").policy, "Foreground");
        assert_eq!(item(&h, "delete", "dep").level, "Metadata");
    }

    #[test]
    fn namespace_controller_actions_are_traced_to_the_namespace_deletion() {
        let mut fin = ev(
            20,
            NAMESPACE_CONTROLLER_USER,
            "update",
            "namespaces",
            "",
            "shop",
        );
        fin.object.as_mut().unwrap().subresource = "finalize".into();
        let events = [
            ev(0, USER, "delete", "namespaces", "", "shop"),
            ev(
                10,
                NAMESPACE_CONTROLLER_USER,
                "deletecollection",
                "configmaps",
                "shop",
                "",
            ),
            fin,
        ];
        let h = history(&events, None);
        let dc = cause(&h, "delete-collection", "");
        assert_eq!(dc.type_, "namespace-deleted");
        assert_eq!(dc.policy, "Background");
        assert_eq!(dc.root.as_ref().unwrap().object.name, "shop");
        assert_eq!(
            item(&h, "delete-collection", "").actor.kind,
            "namespace-controller"
        );
        assert_eq!(
            cause(&h, "remove-finalizer", "shop").type_,
            "namespace-deleted"
        );
    }

    #[test]
    fn an_absent_owner_is_dangling_cross_namespace_stale_or_unexplained_by_the_snapshot() {
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "other", "far", "u-far");
        c.obj("v1", "ConfigMap", "shop", "recreated", "u-new");
        c.obj("v1", "ConfigMap", "shop", "alive", "u-alive");
        c.obj("v1", "ConfigMap", "shop", "d1", "u-1")
            .owner("v1", "ConfigMap", "ghost", "u-ghost");
        c.obj("v1", "ConfigMap", "shop", "d2", "u-2")
            .owner("v1", "ConfigMap", "far", "u-far");
        c.obj("v1", "ConfigMap", "shop", "d3", "u-3").owner(
            "v1",
            "ConfigMap",
            "recreated",
            "u-old",
        );
        c.obj("v1", "ConfigMap", "shop", "d4", "u-4")
            .owner("v1", "ConfigMap", "alive", "u-alive");
        let s = c.build();
        let events = [
            ev(1, GC_USER, "delete", "configmaps", "shop", "d1"),
            ev(2, GC_USER, "delete", "configmaps", "shop", "d2"),
            ev(3, GC_USER, "delete", "configmaps", "shop", "d3"),
            ev(4, GC_USER, "delete", "configmaps", "shop", "d4"),
        ];
        let h = history(&events, Some(&s));
        assert_eq!(cause(&h, "delete", "d1").type_, "dangling-owner");
        assert_eq!(cause(&h, "delete", "d2").type_, "cross-namespace-owner");
        assert_eq!(cause(&h, "delete", "d3").type_, "stale-owner-uid");
        let d4 = cause(&h, "delete", "d4");
        assert_eq!(d4.type_, "unexplained");
        assert!(d4.root.is_none());
        assert_eq!(h.summary.unexplained, 1);
        // Without the snapshot nothing is guessed.
        let h = history(&events, None);
        assert_eq!(h.items.len(), 4);
        assert!(
            h.items
                .iter()
                .all(|i| i.cause.as_ref().unwrap().type_ == "unknown")
        );
        assert!(h.summary.notes.iter().any(|n| n.contains("no snapshot")));
    }

    #[test]
    fn an_owner_the_snapshot_before_did_not_read_is_unknown_not_dangling() {
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "shop", "d1", "u-1")
            .owner("v1", "Secret", "ghost", "u-ghost");
        c.forbid("", "secrets");
        let events = [ev(1, GC_USER, "delete", "configmaps", "shop", "d1")];
        let h = history(&events, Some(&c.build()));
        let d1 = cause(&h, "delete", "d1");
        assert_eq!(d1.type_, "unknown", "{d1:?}");
        assert!(d1.detail.contains("did not read secrets in shop"), "{d1:?}");
    }

    #[test]
    fn the_state_after_proves_what_exists_never_what_did_not() {
        // Only the state after: the dependents are gone, their owners' fates differ.
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "other", "far", "u-far");
        c.obj("v1", "ConfigMap", "shop", "recreated", "u-new");
        c.obj("v1", "ConfigMap", "shop", "alive", "u-alive");
        c.obj("v1", "ConfigMap", "shop", "leaving", "u-leaving")
            .finalizers(&["foregroundDeletion"])
            .deleting();
        c.obj("v1", "ConfigMap", "shop", "held", "u-held")
            .finalizers(&["example.com/keep"])
            .deleting();
        let after = c.build();
        // The dependents' owners come from create bodies (Request level).
        let mut events = Vec::new();
        for (i, (name, owner, uid)) in [
            ("d1", "ghost", "u-ghost"),
            ("d2", "far", "u-far"),
            ("d3", "recreated", "u-old"),
            ("d4", "alive", "u-alive"),
            ("d5", "leaving", "u-leaving"),
        ]
        .into_iter()
        .enumerate()
        {
            let mut create = ev(i as i64, USER, "create", "configmaps", "shop", name);
            create.level = Level::Request;
            create.bodies.owner_references = Some(vec![OwnerRefSeen {
                api_version: "v1".into(),
                kind: "ConfigMap".into(),
                name: owner.into(),
                uid: uid.into(),
            }]);
            events.push(create);
            events.push(ev(
                10 + i as i64,
                GC_USER,
                "delete",
                "configmaps",
                "shop",
                name,
            ));
        }
        events.push(ev(20, USER, "delete", "configmaps", "shop", "held"));
        let h = history_between(
            &events,
            States {
                before: None,
                after: Some(&after),
            },
        );
        let d1 = cause(&h, "delete", "d1");
        assert_eq!(
            d1.type_, "unknown",
            "absent after is not never-existed: {d1:?}"
        );
        assert_eq!(cause(&h, "delete", "d2").type_, "cross-namespace-owner");
        assert_eq!(cause(&h, "delete", "d3").type_, "stale-owner-uid");
        assert_eq!(cause(&h, "delete", "d4").type_, "unexplained");
        let d5 = cause(&h, "delete", "d5");
        assert_eq!((d5.type_, d5.policy), ("owner-deleted", "Foreground"));
        // What became of each object.
        assert_eq!(item(&h, "delete", "d1").after, Some("gone"));
        assert_eq!(item(&h, "delete", "held").after, Some("terminating"));
        // Without the state after, nothing is said of it.
        let h = history(&events, None);
        assert!(!h.items.is_empty());
        assert!(h.items.iter().all(|i| i.after.is_none()));
    }

    #[test]
    fn the_states_before_and_after_list_what_went_without_a_deletion_of_its_own() {
        let mut c = Cluster::new();
        c.obj("v1", "Namespace", "", "shop", "u-ns");
        c.obj("v1", "ConfigMap", "shop", "a", "u-a");
        c.obj("v1", "Secret", "shop", "b", "u-b");
        c.obj("v1", "ConfigMap", "shop", "kept", "u-kept");
        c.obj("v1", "ConfigMap", "shop", "logged", "u-logged");
        let before = c.build();
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "shop", "kept", "u-kept");
        let after = c.build();
        let events = [
            ev(0, USER, "delete", "namespaces", "shop", "shop"),
            ev(1, USER, "delete", "configmaps", "shop", "logged"),
            ev(
                5,
                NAMESPACE_CONTROLLER_USER,
                "deletecollection",
                "configmaps",
                "shop",
                "",
            ),
            ev(
                9,
                NAMESPACE_CONTROLLER_USER,
                "delete",
                "namespaces",
                "shop",
                "shop",
            ),
        ];
        let h = history_between(
            &events,
            States {
                before: Some(&before),
                after: Some(&after),
            },
        );
        let gone: Vec<(&str, bool)> = h
            .unlogged
            .iter()
            .map(|u| (u.object.name.as_str(), u.collection.is_some()))
            .collect();
        assert_eq!(gone, [("a", true), ("b", false)], "{:#?}", h.unlogged);
        let a = h.unlogged[0].collection.as_ref().unwrap();
        assert_eq!(a.user, NAMESPACE_CONTROLLER_USER);
        assert!(h.summary.notes.iter().any(|n| n.contains("2 object(s)")));
    }

    #[test]
    fn an_object_recreated_after_the_log_is_recreated_not_present_and_went_unlogged() {
        // The log names no UIDs (Metadata level): the state after's creation time tells an
        // object made again after the deletion from one the deletion did not remove.
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "shop", "again", "u-old");
        c.obj("v1", "ConfigMap", "shop", "renewed", "u-r1");
        let before = c.build();
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "shop", "again", "u-new")
            .created_at("2027-01-01T00:00:00Z");
        c.obj("v1", "ConfigMap", "shop", "renewed", "u-r2");
        let after = c.build();
        let events = [ev(1, USER, "delete", "configmaps", "shop", "again")];
        let h = history_between(
            &events,
            States {
                before: Some(&before),
                after: Some(&after),
            },
        );
        assert_eq!(item(&h, "delete", "again").after, Some("recreated"));
        // `renewed` is there under another UID with no deletion in the log: the object of
        // the state before went unlogged.
        let gone: Vec<&str> = h.unlogged.iter().map(|u| u.object.name.as_str()).collect();
        assert_eq!(gone, ["renewed"]);
    }

    #[test]
    fn a_custom_resource_owner_is_mapped_by_the_state_after_alone() {
        let mut c = Cluster::new();
        c.resource("example.com", "v1", "Widget", "widgets", true);
        c.obj("example.com/v1", "Widget", "shop", "w", "u-w");
        let after = c.build();
        let mut create = ev(0, USER, "create", "configmaps", "shop", "dep");
        create.level = Level::Request;
        create.bodies.owner_references = Some(vec![OwnerRefSeen {
            api_version: "example.com/v1".into(),
            kind: "Widget".into(),
            name: "w".into(),
            uid: "u-w".into(),
        }]);
        let events = [
            create,
            ev(5, GC_USER, "delete", "configmaps", "shop", "dep"),
        ];
        let h = history_between(
            &events,
            States {
                before: None,
                after: Some(&after),
            },
        );
        // The owner exists after the log with the reference's UID: the GC's deletion is
        // unexplained (before, the kind could not be mapped without a state before).
        assert_eq!(cause(&h, "delete", "dep").type_, "unexplained");
    }

    #[test]
    fn the_recorder_keeps_only_what_the_history_uses_and_the_whole_window() {
        let mut r = Recorder::default();
        r.push(ev(0, USER, "get", "configmaps", "shop", "x"));
        r.push(ev(
            1,
            "system:node:n1",
            "update",
            "leases",
            "kube-node-lease",
            "n1",
        ));
        r.push(ev(2, USER, "list", "pods", "shop", ""));
        let mut miss = ev(3, GC_USER, "get", "configmaps", "shop", "owner");
        miss.code = 404;
        r.push(miss);
        r.push(ev(4, GC_USER, "delete", "configmaps", "shop", "dep"));
        r.push(ev(9, USER, "get", "configmaps", "shop", "y"));
        assert_eq!((r.seen(), r.kept()), (6, 2));
        let h = r.finish(States {
            before: Some(&before()),
            after: None,
        });
        assert_eq!(h.items.len(), 1);
        assert_eq!(h.summary.from.as_deref(), Some(format_us(T0).as_str()));
        assert_eq!(h.summary.to.as_deref(), Some(format_us(T0 + 9000).as_str()));
        assert!(cause(&h, "delete", "dep").detail.contains("answered 404"));
    }

    #[test]
    fn owners_come_from_the_response_body_when_the_log_has_it() {
        let mut d = ev(5, GC_USER, "delete", "pods", "shop", "p");
        d.level = Level::RequestResponse;
        d.bodies.response_owner_references = Some(vec![OwnerRefSeen {
            api_version: "apps/v1".into(),
            kind: "ReplicaSet".into(),
            name: "rs".into(),
            uid: "u-rs".into(),
        }]);
        let events = [ev(0, USER, "delete", "replicasets.apps", "shop", "rs"), d];
        let h = history(&events, None);
        let c = cause(&h, "delete", "p");
        assert_eq!(c.type_, "owner-deleted");
        assert_eq!(c.owner.as_ref().unwrap().resource, "replicasets");
        assert_eq!(c.root.as_ref().unwrap().user, USER);
    }

    #[test]
    fn a_request_level_create_body_names_the_owners_without_a_snapshot() {
        let mut create = ev(0, USER, "create", "configmaps", "shop", "dep");
        create.level = Level::Request;
        create.bodies.owner_references = Some(vec![OwnerRefSeen {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            name: "owner".into(),
            uid: "u-owner".into(),
        }]);
        let events = [
            create,
            ev(10, USER, "delete", "configmaps", "shop", "owner"),
            ev(15, GC_USER, "delete", "configmaps", "shop", "dep"),
        ];
        let h = history(&events, None);
        let c = cause(&h, "delete", "dep");
        assert_eq!(c.type_, "owner-deleted");
        assert_eq!(c.root.as_ref().unwrap().object.name, "owner");
        // A user's patch that sets references is not a removal; the GC's is.
        let mut p = ev(20, USER, "patch", "configmaps", "shop", "x");
        p.bodies.owner_references = Some(vec![OwnerRefSeen::default()]);
        let mut g = ev(21, GC_USER, "patch", "configmaps", "shop", "y");
        g.bodies.owner_references = Some(vec![OwnerRefSeen::default()]);
        let h = history(&[p, g], None);
        assert_eq!(h.items.len(), 1);
        assert_eq!(h.items[0].action, "remove-owner-references");
    }

    #[test]
    fn actors_by_user_and_user_agent_and_impersonation() {
        let mut e = ev(
            0,
            "system:kube-controller-manager",
            "delete",
            "pods",
            "a",
            "p",
        );
        e.user_agent = "kube-controller-manager/v1.20.2 (linux/amd64) kubernetes/faecb19/generic-garbage-collector".into();
        assert_eq!(actor_of(&e).kind, "garbage-collector");
        e.user_agent = "kube-controller-manager/v1.20.2 (linux/amd64) kubernetes/faecb19/replicaset-controller".into();
        assert_eq!(actor_of(&e).kind, "controller");
        let mut e = ev(0, "admin", "delete", "pods", "a", "p");
        e.impersonated_user = Some("bob".into());
        let a = actor_of(&e);
        assert_eq!((a.kind, a.user.as_str()), ("user", "bob"));
        // Failed requests and reads are not actions; a log without the GC says so.
        let mut failed = ev(1, GC_USER, "delete", "pods", "a", "p");
        failed.code = 404;
        let h = history(&[failed, ev(2, USER, "get", "pods", "a", "p")], None);
        assert!(h.items.is_empty());
        let h = history(&[ev(2, USER, "delete", "pods", "a", "p")], None);
        assert!(!h.summary.gc_seen);
        assert!(h.summary.notes[0].contains("no request of the garbage collector"));
    }

    #[test]
    fn times_keep_microseconds() {
        assert_eq!(format_us(T0 + 123_456), "2026-09-21T14:13:20.123456Z");
        assert_eq!(format_us(7), "1970-01-01T00:00:00.000007Z");
    }
}
