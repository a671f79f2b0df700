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

/// Why a state's object of some name is not the object an action of the log was on.
pub(super) fn other_incarnation(
    index: &SnapIndex<'_>,
    id: crate::model::ObjId,
    o: &Obj,
    at_us: i64,
    created: &HashMap<Key, Vec<(i64, Option<String>)>>,
) -> Option<String> {
    let store = &index.snap.store;
    let uid = store.str(store.object(id).uid);
    if let Some(u) = o.uid.as_deref() {
        return (u != uid).then(|| {
            format!(
                "the state before holds {} with UID {uid}, but the log names UID {u}: another \
                 object of the same name, whose metadata says nothing of this one",
                o.display()
            )
        });
    }
    // No UID in the log: the name matches unless the log creates it again before the action,
    // after the state's object was created (times at the second: the state's are). Without a
    // creation time, after the state was captured (none either: the state is taken as older).
    let obj = store.object(id);
    let created_s = crate::snapshot::parse_rfc3339(&store.timestamp(obj.creation_timestamp));
    let captured = &index.snap.provenance.captured_at;
    let captured_s = crate::snapshot::parse_rfc3339(captured);
    let (t, _) = created.get(&o.key())?.iter().find(|(t, u)| {
        let t_s = t.div_euclid(1_000_000);
        *t <= at_us
            && u.as_deref().is_none_or(|u| u != uid)
            && match created_s {
                Some(c) => c < t_s,
                None => captured_s.is_none_or(|c| c < t_s),
            }
    })?;
    Some(format!(
        "the log shows {} created at {}, after the state before's object of that name ({}), \
         and names no UID: the object the GC acted on is not the one the state holds",
        o.display(),
        format_us(*t),
        match created_s {
            Some(c) => format!("created at {}", crate::snapshot::format_rfc3339(c)),
            None if captured.is_empty() => "capture time unknown".to_owned(),
            None => format!("captured at {captured}"),
        }
    ))
}

/// The owner references of `o` as the inputs show them before `at_us`: the response body of
/// the event itself, else the state before — when its object is the one the log names.
/// `Err(None)`: no input shows them; `Err(Some(why))`: the state's object is another.
fn owner_refs_of(
    e: &AuditEvent,
    o: &Obj,
    at_us: i64,
    index: Option<&SnapIndex<'_>>,
    created: &HashMap<Key, Vec<(i64, Option<String>)>>,
) -> Result<(Vec<OwnerRefSeen>, &'static str), Option<String>> {
    if let Some(refs) = &e.bodies.response_owner_references {
        return Ok((refs.clone(), "the response body"));
    }
    let index = index.ok_or(None)?;
    let id = index.find(o).ok_or(None)?;
    if let Some(why) = other_incarnation(index, id, o, at_us, created) {
        return Err(Some(why));
    }
    let store = &index.snap.store;
    Ok((
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

/// A deletion's propagation policy, and the evidence in words (`None`: read from the request).
pub(super) type Policy = (&'static str, Option<&'static str>);

pub(super) struct Cx<'a> {
    pub(super) items: &'a [Item],
    pub(super) sources: &'a [&'a AuditEvent],
    pub(super) by_key: &'a HashMap<Key, Vec<usize>>,
    pub(super) created: &'a HashMap<Key, Vec<(i64, Option<String>)>>,
    pub(super) created_refs: &'a HashMap<Key, Vec<OwnerRefSeen>>,
    pub(super) gc_404: &'a HashMap<Key, i64>,
    pub(super) before: Option<&'a Snapshot>,
    pub(super) index: Option<&'a SnapIndex<'a>>,
    pub(super) after_index: Option<&'a SnapIndex<'a>>,
    /// Causes computed so far (a chain's items are asked for again by every later link).
    pub(super) memo: std::cell::RefCell<HashMap<usize, Option<Cause>>>,
    /// Policies found so far, per deletion (every dependent of an owner asks).
    pub(super) policies: std::cell::RefCell<HashMap<usize, Policy>>,
    /// The GC's Foreground deletions, in time order (found at the first need).
    pub(super) gc_foreground: std::cell::OnceCell<Vec<usize>>,
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

    /// The policy of deletion item `d` and what shows it: `None` when read from the request
    /// (or the namespace controller's, which is always Background), else the evidence in
    /// words. Evidence first: the bodies, the response, the GC's own requests, the state after;
    /// only then the absence of a later finalizer removal.
    fn policy_of(&self, d: usize) -> Policy {
        if let Some(p) = self.policies.borrow().get(&d) {
            return *p;
        }
        let p = self.find_policy(d);
        self.policies.borrow_mut().insert(d, p);
        p
    }

    fn find_policy(&self, d: usize) -> Policy {
        let e = self.sources[d];
        if let Some(p) = &e.bodies.propagation_policy {
            return (
                match p.as_str() {
                    "Foreground" => "Foreground",
                    "Orphan" => "Orphan",
                    "Background" => "Background",
                    _ => "unknown",
                },
                None,
            );
        }
        if e.bodies.orphan_dependents == Some(true) {
            return ("Orphan", None);
        }
        if e.deleted_uid.is_some() {
            // Removed at once: no finalizer was added, so not Foreground or Orphan.
            return (
                "Background",
                Some("the deletion removed it at once (its response names the UID)"),
            );
        }
        let owner = &self.items[d];
        if owner.actor.kind == "namespace-controller" {
            // The namespace controller always deletes with Background (§10.2).
            return ("Background", None);
        }
        let key = owner.object.key();
        if self.gc_404.get(&key).is_some_and(|t| *t >= owner.time_us) {
            // Foreground and Orphan keep the object until the GC removes their finalizer.
            return (
                "Background",
                Some("the GC's GET of it answered 404 after the deletion: it was removed at once"),
            );
        }
        // Foreground and Orphan add a finalizer the GC removes once done.
        let removal = self.by_key.get(&key).and_then(|v| {
            v.iter().copied().find(|&j| {
                self.items[j].actor.kind == "garbage-collector"
                    && self.items[j].action == "remove-finalizer"
                    && self.items[j].time_us >= owner.time_us
            })
        });
        if let Some(f) = removal {
            return (
                self.orphan_or_foreground(d, f),
                Some("inferred from what the GC did next, not read from the request"),
            );
        }
        if self.gc_foreground_dependent(d) {
            return (
                "Foreground",
                Some(
                    "the GC deleted a dependent of it with Foreground, which it does only while \
                     an owner waits for its dependents' deletion",
                ),
            );
        }
        if let Some(p) = self.after_finalizer(d) {
            return p;
        }
        (
            "Background",
            Some(
                "inferred, not read from the request: the GC removed no finalizer of it later in \
                 the log",
            ),
        )
    }

    /// Between deletion `d` and the GC's finalizer removal `f` on the same object: Orphan
    /// when the GC only removed dependents' references, else Foreground.
    fn orphan_or_foreground(&self, d: usize, f: usize) -> &'static str {
        let owner = &self.items[d];
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
            (false, true) => "Orphan",
            _ => "Foreground",
        }
    }

    /// True when, after deletion `d`, the GC deleted a dependent of its object with
    /// Foreground (the body says so, or the GC removed that dependent's finalizer after it
    /// without the deletion removing it at once): upstream's GC does that for a dependent
    /// with dependents of its own whose owner waits for its dependents' deletion.
    fn gc_foreground_dependent(&self, d: usize) -> bool {
        let owner = &self.items[d];
        // The GC's Foreground deletions, found once (few: only cascades under a Foreground
        // owner); items are in time order, so are they.
        let foreground = self.gc_foreground.get_or_init(|| {
            (0..self.items.len())
                .filter(|&j| {
                    self.items[j].actor.kind == "garbage-collector"
                        && self.items[j].action == "delete"
                        && self.foreground_delete(j)
                })
                .collect()
        });
        let lo = foreground.partition_point(|&j| self.items[j].time_us < owner.time_us);
        foreground[lo..].iter().any(|&j| {
            let x = &self.items[j];
            (owner.object.namespace.is_empty() || x.object.namespace == owner.object.namespace)
                && self.names_owner(j, owner)
        })
    }

    /// Deletion `j` was Foreground, by its body or by the GC removing its finalizer after it.
    fn foreground_delete(&self, j: usize) -> bool {
        let e = self.sources[j];
        if let Some(p) = &e.bodies.propagation_policy {
            return p == "Foreground";
        }
        if e.deleted_uid.is_some() {
            return false;
        }
        let x = &self.items[j];
        self.by_key.get(&x.object.key()).is_some_and(|v| {
            v.iter().any(|&f| {
                self.items[f].actor.kind == "garbage-collector"
                    && self.items[f].action == "remove-finalizer"
                    && self.items[f].time_us >= x.time_us
            })
        })
    }

    /// True when the object of item `j` has a reference to `owner`'s object (by UID where the
    /// log names one, else by name and resource), as the inputs show its references.
    fn names_owner(&self, j: usize, owner: &Item) -> bool {
        let x = &self.items[j];
        let refs = match self.created_refs.get(&x.object.key()) {
            Some(r) => r.clone(),
            None => {
                match owner_refs_of(
                    self.sources[j],
                    &x.object,
                    x.time_us,
                    self.index,
                    self.created,
                ) {
                    Ok((r, _)) => r,
                    Err(_) => return false,
                }
            }
        };
        let table = self.before.or(self.after_index.map(|a| a.snap));
        refs.iter().any(|r| {
            owner_key(table, r, &x.object.namespace).is_some_and(|k| {
                k.obj.key() == owner.object.key()
                    && owner.object.uid.as_deref().is_none_or(|u| u == k.uid)
            })
        })
    }

    /// What the state after shows of the object of deletion `d`, when it is still there (the
    /// same object: its UID, or created before the deletion) held by `foregroundDeletion` or
    /// `orphan`.
    fn after_finalizer(&self, d: usize) -> Option<Policy> {
        let index = self.after_index?;
        let owner = &self.items[d];
        if index.fate(&owner.object, owner.time_us) != "terminating" {
            return None;
        }
        let id = index.find(&owner.object)?;
        let store = &index.snap.store;
        let fins: Vec<&str> = store.finalizers(id).iter().map(|f| store.str(*f)).collect();
        if fins.contains(&"foregroundDeletion") {
            Some((
                "Foreground",
                Some("the state after shows it still held by the foregroundDeletion finalizer"),
            ))
        } else if fins.contains(&"orphan") {
            Some((
                "Orphan",
                Some("the state after shows it still held by the orphan finalizer"),
            ))
        } else {
            None
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
        let found = match from_create {
            Some(found) => Ok(found),
            None => owner_refs_of(e, &it.object, it.time_us, self.index, self.created),
        };
        let (refs, from) = match found {
            Ok(found) => found,
            Err(Some(why)) => return unknown(format!("{why}: its owners are unknown")),
            Err(None) => {
                return unknown(
                    "its owners are not in the inputs: the log's bodies do not show them and \
                     no snapshot of the state before holds the object (--snapshot/-f)"
                        .to_owned(),
                );
            }
        };
        let any = !refs.is_empty();
        let refs: Vec<OwnerRefSeen> = match &removed_uid {
            Some(u) => refs.into_iter().filter(|r| &r.uid == u).collect(),
            None => refs,
        };
        if refs.is_empty() {
            return unknown(match (&removed_uid, any) {
                (Some(u), true) => {
                    format!("{from} shows no ownerReference with UID {u}: its owner is unknown")
                }
                _ if from == "the snapshot" => format!(
                    "{from} shows no ownerReference on it: the GC acted on references added \
                     after the snapshot"
                ),
                _ => format!("{from} shows no ownerReference on it: its owners are unknown"),
            });
        }
        // Each owner's fate; the cause is the latest deletion among them, else the most telling
        // of the others, whatever their order. The GC deletes an object only when no owner is
        // solid, so for a delete an owner found present (`unexplained`) outweighs the rest; it
        // removes a reference when its owner is gone and another remains, so there an owner
        // proven absent (or elsewhere) outweighs an unknown one, and both a present one.
        let deleting = it.action == "delete";
        let rank = |c: &Cause| match (c.type_, deleting) {
            ("unexplained", true) => 3,
            ("unexplained", false) => 0,
            ("unknown", _) => 1,
            _ => 2,
        };
        let mut best: Option<(i64, Cause)> = None;
        let mut notes: Vec<String> = Vec::new();
        // The resource a kind maps to: either state's table knows the cluster's own kinds
        // (custom resources included), the built-in catalogue the rest.
        let table = self.before.or(self.after_index.map(|a| a.snap));
        for r in &refs {
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
                let (policy, evidence) = self.policy_of(d);
                let how = evidence.map(|e| format!(" — {e}")).unwrap_or_default();
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
            if best.as_ref().is_some_and(|(t, _)| *t > i64::MIN) {
                continue;
            }
            let c = self.absent_owner_cause(&k, it);
            if best.as_ref().is_none_or(|(_, b)| rank(&c) > rank(b)) {
                best = Some((i64::MIN, c));
            }
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
