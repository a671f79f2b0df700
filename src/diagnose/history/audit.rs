//! The audit-log source: API-server audit events to the history's observations
//! (`record.rs`). What a write did is read from the event (its verb, subresource and bodies);
//! who did it from its authentication (`actor.rs`).

use super::actor::actor_kind;
use super::record::{Action, Create, Evidence, ObjKey, Origin, Recorder, RefSeen, Who};
use super::types::{ActorKind, Policy, Verb};
use crate::model::Sym;
use crate::source::audit::{AuditEvent, OwnerRefSeen};

/// What a write did, as far as the event tells. `None`: not an action the history reports.
fn verb_of(e: &AuditEvent, actor: ActorKind) -> Option<Verb> {
    if !(200..300).contains(&e.code) {
        return None;
    }
    let sub = e.object.as_ref().map_or("", |o| o.subresource.as_str());
    let b = &e.bodies;
    match e.verb.as_str() {
        "delete" => Some(Verb::Delete),
        "deletecollection" => Some(Verb::DeleteCollection),
        "update" if sub == "finalize" => Some(Verb::RemoveFinalizer),
        "patch" | "update" if sub.is_empty() => {
            // The GC writes references and finalizers only to remove them (its merge patch for
            // custom resources sets the list that remains); anyone else's body removes them
            // when it removes paths or sets the list to none.
            let gc = actor == ActorKind::GarbageCollector;
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
                Some(Verb::RemoveOwnerReferences)
            } else if fins_removed {
                Some(Verb::RemoveFinalizer)
            } else if matches!(
                actor,
                ActorKind::GarbageCollector | ActorKind::NamespaceController
            ) {
                // The GC patches only references and finalizers: which one, the answer infers.
                Some(Verb::OtherPatch)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// True for a server-side dry run: `dryRun=All` in the request URI's query (the only value
/// the API server accepts; a request with another fails and is no action anyway), or in a
/// DELETE's body (DeleteOptions, as `kubectl delete --dry-run=server` sends it; Request level
/// and above).
fn dry_run(e: &AuditEvent) -> bool {
    e.bodies.dry_run || query_param(&e.request_uri, "dryRun").is_some_and(|v| v == "All")
}

/// The raw value of `key` in a request URI's query.
fn query_param<'u>(uri: &'u str, key: &str) -> Option<&'u str> {
    let (_, query) = uri.split_once('?')?;
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// True for the events the history reads (for [`crate::source::audit::AuditOptions::keep`]:
/// the reader drops the rest where it parses them).
pub fn used_by_history(e: &AuditEvent) -> bool {
    used(e, actor_kind(e))
}

/// True for the events the answer reads: reports, creates (but of Events, which own nothing
/// and are many), or the GC's owner read that answered 404.
fn used(e: &AuditEvent, actor: ActorKind) -> bool {
    let Some(o) = &e.object else { return false };
    match e.verb.as_str() {
        "get" => e.code == 404 && actor == ActorKind::GarbageCollector,
        // Every create, UID or not: a create of a name after the state before was captured
        // means the state's object of that name may be another incarnation.
        "create" => (200..300).contains(&e.code) && o.resource != "events",
        _ => verb_of(e, actor).is_some(),
    }
}

impl Recorder {
    /// Takes one audit event (any order).
    pub fn push(&mut self, e: AuditEvent) {
        self.saw(e.time_us, e.level);
        let actor = actor_kind(&e);
        if actor == ActorKind::GarbageCollector {
            self.gc_seen = true;
        }
        if !used(&e, actor) {
            return;
        }
        // A server-side dry run changed nothing: not an action, not a create that names a
        // UID, only counted.
        if dry_run(&e) {
            if verb_of(&e, actor).is_some() {
                self.dry_run();
            }
            return;
        }
        let Some(key) = self.key_of(&e) else { return };
        let uid = self.uid_of(&e);
        if e.verb == "get" {
            self.owner_absent(key, e.time_us);
            return;
        }
        if e.verb == "create" {
            let refs = e
                .bodies
                .owner_references
                .as_deref()
                .and_then(|r| self.seen_refs(r));
            self.create(Create {
                time_us: e.time_us,
                key,
                uid,
                refs,
            });
            return;
        }
        let Some(verb) = verb_of(&e, actor) else {
            return;
        };
        let b = &e.bodies;
        let policy = match (&b.propagation_policy, b.orphan_dependents) {
            (Some(p), _) => Some(Policy::parse(p)),
            (None, Some(true)) => Some(Policy::Orphan),
            _ => None,
        };
        let removed_ref = b
            .removed_paths
            .iter()
            .find_map(|p| p.strip_prefix("/metadata/ownerReferences/uid="))
            .map_or(Sym::EMPTY, |u| self.intern(u));
        let refs = b
            .response_owner_references
            .as_deref()
            .and_then(|r| self.seen_refs(r));
        let labels = query_param(&e.request_uri, "labelSelector")
            .map_or(Sym::EMPTY, |s| self.intern(&percent_decoded(s)));
        let fields = query_param(&e.request_uri, "fieldSelector").is_some_and(|s| !s.is_empty());
        let who = self.who_of(&e, actor);
        let source = self.intern(&e.position.source);
        let version = e
            .object
            .as_ref()
            .map_or(Sym::EMPTY, |o| self.intern(&o.api_version));
        self.action(Action {
            time_us: e.time_us,
            verb,
            key,
            version,
            uid,
            who,
            evidence: Evidence {
                origin: Origin::AuditLog,
                source,
                line: e.position.line,
                level: e.level,
            },
            policy,
            removed_at_once: e.deleted_uid.is_some(),
            removed_ref,
            refs,
            labels,
            fields,
            log: None,
        });
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

    fn key_of(&mut self, e: &AuditEvent) -> Option<ObjKey> {
        let o = e.object.as_ref()?;
        // A Namespace's objectRef carries its own name as namespace: it is cluster-scoped.
        let namespace = if o.api_group.is_empty() && o.resource == "namespaces" {
            Sym::EMPTY
        } else {
            self.intern(&o.namespace)
        };
        Some(ObjKey {
            group: self.intern(&o.api_group),
            resource: self.intern(&o.resource),
            namespace,
            name: self.intern(&o.name),
        })
    }

    /// The UID the event names: its objectRef's, the one a DELETE's response removed, or the
    /// response body's.
    fn uid_of(&mut self, e: &AuditEvent) -> Sym {
        let o = e.object.as_ref();
        let uid = [
            o.map(|o| o.uid.as_str()).filter(|u| !u.is_empty()),
            e.deleted_uid.as_deref(),
            e.bodies.response_uid.as_deref(),
        ]
        .into_iter()
        .flatten()
        .next();
        uid.map_or(Sym::EMPTY, |u| self.intern(u))
    }

    fn who_of(&mut self, e: &AuditEvent, kind: ActorKind) -> u32 {
        let (user, by) = match &e.impersonated_user {
            Some(as_user) => (as_user.as_str(), e.user.as_str()),
            None => (e.user.as_str(), ""),
        };
        let who = Who {
            kind,
            user: self.intern(user),
            impersonated_by: self.intern(by),
            user_agent: self.intern(&e.user_agent),
        };
        self.actor(who)
    }

    fn seen_refs(&mut self, refs: &[OwnerRefSeen]) -> Option<super::record::RefSpan> {
        let interned: Vec<RefSeen> = refs
            .iter()
            .map(|r| RefSeen {
                api_version: self.intern(&r.api_version),
                kind: self.intern(&r.kind),
                name: self.intern(&r.name),
                uid: self.intern(&r.uid),
            })
            .collect();
        self.refs(interned.into_iter())
    }
}

/// The percent-decoded value of a query parameter.
fn percent_decoded(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
