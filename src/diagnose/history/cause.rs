//! The answer's causes: why the GC or the namespace controller did each action, chained back
//! to the action that started it.

use super::*;
use crate::snapshot::Snapshot;
use crate::source::audit::{AuditEvent, OwnerRefSeen};
use std::collections::HashMap;

/// An owner reference resolved to the object the GC would look up.
pub(super) struct OwnerKey {
    pub(super) obj: Obj,
    pub(super) uid: String,
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

pub(super) struct Cx<'a> {
    pub(super) items: &'a [Item],
    pub(super) sources: &'a [&'a AuditEvent],
    pub(super) by_key: &'a HashMap<Key, Vec<usize>>,
    pub(super) created: &'a HashMap<Key, Vec<(i64, String)>>,
    pub(super) created_refs: &'a HashMap<Key, Vec<OwnerRefSeen>>,
    pub(super) gc_404: &'a HashMap<Key, i64>,
    pub(super) before: Option<&'a Snapshot>,
    pub(super) index: Option<&'a SnapIndex<'a>>,
    pub(super) after_index: Option<&'a SnapIndex<'a>>,
    /// Causes computed so far (a chain's items are asked for again by every later link).
    pub(super) memo: std::cell::RefCell<HashMap<usize, Option<Cause>>>,
}

pub(super) const MAX_DEPTH: usize = 64;

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
            return Some(Root::of(it));
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

    pub(super) fn cause(&self, i: usize, depth: usize) -> Option<Cause> {
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
                    self.items[d].time,
                    self.items[d].actor.display()
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
                    self.items[d].time,
                    self.items[d].actor.display()
                ),
                (Some(d), _) => format!(
                    "deleted at {} by {}{}: the GC removed `foregroundDeletion` once no blocking \
                     dependent was left",
                    self.items[d].time,
                    self.items[d].actor.display(),
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
                            self.items[d].actor.display()
                        )
                    } else {
                        format!(
                            "its owner {} was deleted at {} by {} (propagationPolicy {policy}{how})",
                            k.obj.display(),
                            self.items[d].time,
                            self.items[d].actor.display()
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
}
