//! What the answer reads: the recorded actions in time order (each with the row it becomes),
//! looked up by object; the creates and the GC's 404 reads; and the states around the log,
//! each indexed and with the GC model on it.

use super::cause::PolicyFound;
use super::index::SnapIndex;
use super::model::{Judged, Model, RefText};
use super::record::{Action, Create, ObjKey, Origin, Recorder};
use super::types::{
    Actor, ActorKind, Fate, Item, ObjectRef, Policy, Proof, Spelt, Verb, format_us,
};
use crate::catalog::KubeVersion;
use crate::model::{ObjId, Sym};
use crate::snapshot::Snapshot;
use std::collections::HashMap;

/// A state around the log: indexed, and the GC model on it.
pub(super) struct View<'a> {
    pub index: SnapIndex<'a>,
    pub model: Model<'a>,
    /// Which state, in words: `in the snapshot before`, `in the state after`.
    pub place: &'static str,
}

impl<'a> View<'a> {
    fn new(snap: &'a Snapshot, version: KubeVersion, after: bool) -> Self {
        View {
            index: SnapIndex::new(snap),
            model: Model::new(snap, version, after),
            place: if after {
                "in the state after"
            } else {
                "in the snapshot before"
            },
        }
    }
}

/// An object's references as an input shows them before an action.
pub(super) struct Shown<'a> {
    pub refs: Vec<RefText<'a>>,
    /// Which input: `the response body`, `the body of its create request`, `the snapshot`.
    pub from: &'static str,
    /// The object in the state before, when that is where they come from.
    pub dependent: Option<ObjId>,
    /// When the object was created, where an input shows it (µs).
    pub created_us: Option<i64>,
}

pub(super) struct Facts<'a> {
    pub rec: &'a Recorder,
    /// The actions in time order.
    pub acts: Vec<&'a Action>,
    /// The row of each.
    pub items: Vec<Item>,
    /// Per object: its actions, in time order.
    pub by_key: HashMap<ObjKey, Vec<usize>>,
    /// Per object: its creates, in time order.
    created: HashMap<ObjKey, Vec<&'a Create>>,
    /// Per object: the GC's reads of it that answered 404, in time order.
    absent: HashMap<ObjKey, Vec<i64>>,
    pub before: Option<View<'a>>,
    pub after: Option<View<'a>>,
}

impl<'a> Facts<'a> {
    /// The facts of `rec`, with the states around the log (prepared for the model:
    /// `model::prepare`) and the GC release to model.
    pub fn new(
        rec: &'a Recorder,
        before: Option<&'a Snapshot>,
        after: Option<&'a Snapshot>,
        version: KubeVersion,
    ) -> Self {
        let mut acts: Vec<&Action> = rec.actions.iter().collect();
        acts.sort_by_key(|a| a.time_us);
        let mut by_key: HashMap<ObjKey, Vec<usize>> = HashMap::new();
        for (i, a) in acts.iter().enumerate() {
            by_key.entry(a.key).or_default().push(i);
        }
        let mut created: HashMap<ObjKey, Vec<&Create>> = HashMap::new();
        for c in &rec.creates {
            created.entry(c.key).or_default().push(c);
        }
        for v in created.values_mut() {
            v.sort_by_key(|c| c.time_us);
        }
        let mut absent: HashMap<ObjKey, Vec<i64>> = HashMap::new();
        for (k, t) in &rec.absent {
            absent.entry(*k).or_default().push(*t);
        }
        for v in absent.values_mut() {
            v.sort_unstable();
        }
        let mut f = Facts {
            rec,
            items: acts.iter().map(|a| item_of(rec, a)).collect(),
            acts,
            by_key,
            created,
            absent,
            before: before.map(|s| View::new(s, version, false)),
            after: after.map(|s| View::new(s, version, true)),
        };
        f.resolve_other_patches();
        f
    }

    /// The GC's patches whose body the log does not show (Metadata level): a patch of an
    /// object someone deleted before removes a finalizer; any other removes references.
    fn resolve_other_patches(&mut self) {
        for i in 0..self.items.len() {
            let it = &self.items[i];
            if it.action != Verb::OtherPatch || it.actor.kind != ActorKind::GarbageCollector {
                continue;
            }
            let deleted_before = self.by_key[&self.acts[i].key].iter().any(|&j| {
                j != i
                    && self.items[j].action == Verb::Delete
                    && self.items[j].time_us <= it.time_us
            });
            self.items[i].action = if deleted_before {
                Verb::RemoveFinalizer
            } else {
                Verb::RemoveOwnerReferences
            };
        }
    }

    /// The recorder's key of an object the answer names (`None`: the log names nothing there).
    pub fn key(&self, o: &ObjectRef) -> Option<ObjKey> {
        let s = &self.rec.strings;
        let sym = |t: &str| {
            if t.is_empty() {
                Some(Sym::EMPTY)
            } else {
                s.get(t)
            }
        };
        Some(ObjKey {
            group: sym(&o.group)?,
            resource: sym(&o.resource)?,
            namespace: sym(&o.namespace)?,
            name: sym(&o.name)?,
        })
    }

    /// The last deletion of `o` at or before `t` (not item `not`).
    pub fn deletion_before(&self, o: &ObjectRef, t: i64, not: usize) -> Option<usize> {
        let key = self.key(o)?;
        self.by_key
            .get(&key)?
            .iter()
            .copied()
            .rfind(|&j| j != not && self.items[j].action.deletes() && self.items[j].time_us <= t)
    }

    /// The GC's first finalizer removal of the object of deletion `d`, at or after it.
    pub fn gc_finalizer_removal(&self, d: usize) -> Option<usize> {
        let owner = &self.items[d];
        self.by_key
            .get(&self.acts[d].key)?
            .iter()
            .copied()
            .find(|&j| {
                self.items[j].actor.kind == ActorKind::GarbageCollector
                    && self.items[j].action == Verb::RemoveFinalizer
                    && self.items[j].time_us >= owner.time_us
            })
    }

    /// True when the GC read `key` and got 404 at or after `t`.
    pub fn absent_after(&self, key: &ObjKey, t: i64) -> bool {
        self.absent
            .get(key)
            .is_some_and(|v| v.last().is_some_and(|l| *l >= t))
    }

    /// The GC's last 404 read of `o` at or before `t`.
    pub fn absent_before(&self, o: &ObjectRef, t: i64) -> Option<i64> {
        let v = self.absent.get(&self.key(o)?)?;
        v.iter().copied().rfind(|x| *x <= t)
    }

    /// A create of `o`'s coordinates at or before `t` naming another UID than `uid`: when,
    /// and that UID.
    pub fn recreated(&self, o: &ObjectRef, uid: &str, t: i64) -> Option<(i64, &'a str)> {
        let v = self.created.get(&self.key(o)?)?;
        v.iter().find_map(|c| {
            let u = self.rec.str(c.uid);
            (c.time_us <= t && !u.is_empty() && u != uid).then_some((c.time_us, u))
        })
    }

    /// What the state after shows of the object of deletion item `owner`, when it is still
    /// there held by `foregroundDeletion` or `orphan`.
    pub fn after_finalizer(&self, owner: &Item) -> Option<PolicyFound> {
        let index = &self.after.as_ref()?.index;
        if index.fate(&owner.object, owner.time_us) != Fate::Terminating {
            return None;
        }
        let id = index.find(&owner.object)?;
        let store = &index.snap.store;
        let has = |f: &str| store.finalizers(id).iter().any(|x| store.str(*x) == f);
        let (policy, evidence) = if has("foregroundDeletion") {
            (
                Policy::Foreground,
                "inferred: the state after shows it still held by the foregroundDeletion \
                 finalizer",
            )
        } else if has("orphan") {
            (
                Policy::Orphan,
                "inferred: the state after shows it still held by the orphan finalizer",
            )
        } else {
            return None;
        };
        Some(PolicyFound {
            policy,
            inferred: true,
            evidence: Some(evidence),
        })
    }

    /// The owner a reference of a dependent in `namespace` names, as the GC maps its kind (the
    /// states' tables know the cluster's own kinds, custom resources included; the built-in
    /// catalogue the rest).
    pub fn owner_obj(&self, namespace: &str, r: RefText<'_>) -> Option<ObjectRef> {
        for v in [&self.before, &self.after].into_iter().flatten() {
            if let Some(o) = v.model.owner_at(namespace, r) {
                return Some(o);
            }
        }
        let (group, _) =
            crate::snapshot::split_api_version(r.api_version).unwrap_or(("", r.api_version));
        let b = crate::catalog::builtin::all()
            .iter()
            .find(|b| b.group == group && b.kind.eq_ignore_ascii_case(r.kind))?;
        let (_, version) = crate::snapshot::split_api_version(r.api_version).unwrap_or(("", ""));
        Some(ObjectRef {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: b.kind.to_owned(),
            resource: b.plural.to_owned(),
            namespace: if b.namespaced {
                namespace.to_owned()
            } else {
                String::new()
            },
            name: r.name.to_owned(),
            uid: r.uid.to_owned(),
        })
    }

    /// What the GC model makes of reference `r` of a dependent in `namespace`: on the state
    /// before, and where that cannot tell, on the state after. `None`: no state was given.
    pub fn judge(
        &self,
        namespace: &str,
        dependent: Option<ObjId>,
        r: RefText<'_>,
    ) -> Option<(Judged, &View<'a>)> {
        let before = self
            .before
            .as_ref()
            .map(|v| (v.model.judge(namespace, dependent, r), v));
        match (before, &self.after) {
            (Some((Judged::Unknown(why), _)), Some(a)) => match a.model.judge(namespace, None, r) {
                Judged::Unknown(_) => Some((Judged::Unknown(why), a)),
                j => Some((j, a)),
            },
            (Some(b), _) => Some(b),
            (None, Some(a)) => Some((a.model.judge(namespace, None, r), a)),
            (None, None) => None,
        }
    }

    /// The references of item `i`'s object as the inputs show them before it: the response
    /// body of the action itself, else the body of its create, else the state before — when
    /// its object is the one the log names. `Err(None)`: no input shows them;
    /// `Err(Some(why))`: the state's object is another.
    pub fn owner_refs_of(&self, i: usize) -> Result<Shown<'a>, Option<String>> {
        let (it, a) = (&self.items[i], self.acts[i]);
        let create = self.create_of(a);
        let created_us = create.map(|c| c.time_us);
        let from_rec = |span, from| Shown {
            refs: self
                .rec
                .refs_of(span)
                .iter()
                .map(|r| RefText::of_seen(self.rec, r))
                .collect(),
            from,
            dependent: None,
            created_us,
        };
        if let Some(span) = a.refs {
            return Ok(from_rec(span, "the response body"));
        }
        if let Some(span) = create.and_then(|c| c.refs) {
            return Ok(from_rec(span, "the body of its create request"));
        }
        let view = self.before.as_ref().ok_or(None)?;
        let id = view.index.find(&it.object).ok_or(None)?;
        if let Some(why) = self.other_incarnation(&view.index, id, &it.object, it.time_us) {
            return Err(Some(why));
        }
        let snap = view.index.snap;
        let store = &snap.store;
        let created_s =
            crate::snapshot::parse_rfc3339(&store.timestamp(store.object(id).creation_timestamp));
        Ok(Shown {
            refs: store
                .owner_refs(id)
                .iter()
                .map(|r| RefText::of_state(snap, r))
                .collect(),
            from: "the snapshot",
            dependent: Some(id),
            created_us: created_us.or(created_s.map(|s| s * 1_000_000)),
        })
    }

    /// The create of action `a`'s object it followed: the last at or before it (of its UID,
    /// where both name one).
    fn create_of(&self, a: &Action) -> Option<&'a Create> {
        let uid = self.rec.str(a.uid);
        self.created.get(&a.key)?.iter().copied().rfind(|c| {
            let cu = self.rec.str(c.uid);
            c.time_us <= a.time_us && (uid.is_empty() || cu.is_empty() || cu == uid)
        })
    }

    /// Why a state's object of some name is not the object an action of the log was on.
    pub fn other_incarnation(
        &self,
        index: &SnapIndex<'_>,
        id: ObjId,
        o: &ObjectRef,
        at_us: i64,
    ) -> Option<String> {
        let store = &index.snap.store;
        let uid = store.str(store.object(id).uid);
        if !o.uid.is_empty() {
            let u = &o.uid;
            return (u != uid).then(|| {
                format!(
                    "the state before holds {} with UID {uid}, but the log names UID {u}: \
                     another object of the same name, whose metadata says nothing of this one",
                    o.display()
                )
            });
        }
        // No UID in the log: the name matches unless the log creates it again before the
        // action, after the state's object was created (times at the second: the state's
        // are). Without a creation time, after the state was captured (none either: the
        // state is taken as older).
        let obj = store.object(id);
        let created_s = crate::snapshot::parse_rfc3339(&store.timestamp(obj.creation_timestamp));
        let captured = &index.snap.provenance.captured_at;
        let captured_s = crate::snapshot::parse_rfc3339(captured);
        let c = self.created.get(&self.key(o)?)?.iter().find(|c| {
            let t_s = c.time_us.div_euclid(1_000_000);
            let cu = self.rec.str(c.uid);
            c.time_us <= at_us
                && (cu.is_empty() || cu != uid)
                && match created_s {
                    Some(c) => c < t_s,
                    None => captured_s.is_none_or(|c| c < t_s),
                }
        })?;
        Some(format!(
            "the log shows {} created at {}, after the state before's object of that name \
             ({}), and names no UID: the object the GC acted on is not the one the state holds",
            o.display(),
            format_us(c.time_us),
            match created_s {
                Some(c) => format!("created at {}", crate::snapshot::format_rfc3339(c)),
                None if captured.is_empty() => "capture time unknown".to_owned(),
                None => format!("captured at {captured}"),
            }
        ))
    }
}

/// The row of an action.
fn item_of(rec: &Recorder, a: &Action) -> Item {
    let who = rec.actors[a.who as usize];
    let text = |s: Sym| rec.str(s).to_owned();
    Item {
        time: format_us(a.time_us),
        time_us: a.time_us,
        action: a.verb,
        object: super::types::named(
            rec.str(a.key.group),
            rec.str(a.version),
            rec.str(a.key.resource),
            rec.str(a.key.namespace),
            rec.str(a.key.name),
            rec.str(a.uid),
        ),
        resources: Vec::new(),
        actor: Actor {
            kind: who.kind,
            user: text(who.user),
            impersonated_by: (!who.impersonated_by.is_empty()).then(|| text(who.impersonated_by)),
            user_agent: text(who.user_agent),
        },
        cause: None,
        level: match a.evidence.origin {
            Origin::AuditLog => a.evidence.level.name(),
            Origin::ControllerManagerLog => "log",
        },
        source: format!("{}:{}", rec.str(a.evidence.source), a.evidence.line),
        count: 1,
        last: None,
        last_us: a.time_us,
        taken: Vec::new(),
        after: None,
        evidence: proofs(rec, a),
        after_gc_start_ms: (a.verb != Verb::GcStart)
            .then(|| rec.after_gc_start_ms(a.time_us))
            .flatten(),
    }
}

/// The sources that show action `a`, where the controller manager's log is among the inputs
/// (with the audit log alone, `source` says it).
fn proofs(rec: &Recorder, a: &Action) -> Vec<Proof> {
    if rec.log_notes.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    if a.evidence.origin == Origin::AuditLog {
        out.push(Proof {
            source: "audit-log",
            at: format!("{}:{}", rec.str(a.evidence.source), a.evidence.line),
            says: None,
        });
    }
    if let Some(n) = a.log {
        out.push(rec.log_notes[n as usize].proof.clone());
    }
    out
}
