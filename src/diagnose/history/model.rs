//! The GC model of a state around the log: what the garbage collector of that release makes
//! of a reference there (`gc::classify`: its REST mapping, its lookup in the dependent's
//! namespace, its UID comparison), so the history holds no classification of its own. The kind
//! of break is the finding code's, as `audit` names it: the UID nowhere and nothing of that
//! name (GC001), the name there under another UID (GC002), the UID an object's of another
//! kind or name (GC003), the UID a namespaced object's in another namespace (GC004).
//!
//! A dependent the log acted on need not be in the state: the GC's lookup reads only the
//! dependent's namespace, and a reference the log's bodies show is interned into the state's
//! store before the model is built ([`prepare`]), so every reference is asked the same way.

use super::record::{Recorder, RefSeen};
use super::types::{CauseKind, ObjectRef, Spelt};
use crate::catalog::KubeVersion;
use crate::diagnose::judge::place::{self, Break};
use crate::gc::rest_mapper::Mapping;
use crate::gc::{GarbageCollector, RefClass, State};
use crate::model::{ObjId, OwnerRef, Sym};
use crate::snapshot::Snapshot;

/// An ownerReference as text (from a state's store, or a record's).
#[derive(Clone, Copy, Debug)]
pub(super) struct RefText<'a> {
    pub api_version: &'a str,
    pub kind: &'a str,
    pub name: &'a str,
    pub uid: &'a str,
}

impl<'a> RefText<'a> {
    /// A record's reference, its text in `rec`.
    pub fn of_seen(rec: &'a Recorder, r: &RefSeen) -> Self {
        RefText {
            api_version: rec.str(r.api_version),
            kind: rec.str(r.kind),
            name: rec.str(r.name),
            uid: rec.str(r.uid),
        }
    }

    /// A state's reference, its text in `snap`.
    pub fn of_state(snap: &'a Snapshot, r: &OwnerRef) -> Self {
        let s = &snap.store;
        RefText {
            api_version: s.str(r.api_version),
            kind: s.str(r.kind),
            name: s.str(r.name),
            uid: s.str(r.uid),
        }
    }
}

/// Interns into `snap`'s store the text the model will be asked about: every reference the
/// records show and every namespace an action is in (a string the store lacks names no
/// object of it, and the GC's lookup needs its symbol all the same).
pub(super) fn prepare(snap: &mut Snapshot, rec: &Recorder) {
    let store = &mut snap.store;
    for r in &rec.refs {
        for s in [r.api_version, r.kind, r.name, r.uid] {
            store.intern(rec.str(s));
        }
    }
    for a in &rec.actions {
        store.intern(rec.str(a.key.namespace));
    }
    for c in &rec.creates {
        store.intern(rec.str(c.key.namespace));
    }
    // A state built by hand (`why` with no state at all: an empty one) may not have the GC's
    // own names and per-resource symbols yet; the model needs them.
    snap.reindex();
}

/// What the GC makes of a reference in a state.
#[derive(Clone, Debug)]
pub(super) enum Judged {
    /// The owner is there with this UID (`being_deleted`: it has a deletionTimestamp).
    Solid { owner: ObjId },
    /// A broken reference: its kind (GC001–GC004), the owner to name (for GC003 and GC004
    /// the object its UID is, in its own namespace), and the evidence in words.
    Broken {
        kind: CauseKind,
        owner: ObjectRef,
        detail: String,
    },
    /// The GC never acts on this reference (its kind is not served, its scope invalid, its
    /// GET fails): why.
    NoAction(String),
    /// The state cannot tell: why.
    Unknown(String),
}

/// The GC of one release on one state.
pub(super) struct Model<'s> {
    gc: GarbageCollector<'s>,
    state: State,
    /// The state after the log: an owner it lacks may have gone before the GC acted, so absence
    /// there proves nothing.
    after: bool,
}

impl<'s> Model<'s> {
    /// The GC of `version` on `snap` (prepared: [`prepare`]); `after` for the state after.
    pub fn new(snap: &'s Snapshot, version: KubeVersion, after: bool) -> Self {
        let gc = GarbageCollector::new(snap, version);
        let state = gc.initial_state();
        Model { gc, state, after }
    }

    /// The snapshot.
    pub fn snap(&self) -> &'s Snapshot {
        self.gc.snap
    }

    /// `id` as the history names objects.
    pub fn obj(&self, id: ObjId) -> ObjectRef {
        ObjectRef::of(self.gc.snap, id)
    }

    /// Where the GC looks reference `r` of a dependent in `namespace` up: the owner's group,
    /// resource and namespace as it maps them (`None`: it cannot map the kind).
    pub fn owner_at(&self, namespace: &str, r: RefText<'_>) -> Option<ObjectRef> {
        let store = &self.gc.snap.store;
        let (av, kind) = (
            store.strings.get(r.api_version)?,
            store.strings.get(r.kind)?,
        );
        let (group, plural, kind, namespaced) =
            match self.gc.rest_mapper.map(self.gc.snap, av, kind) {
                Mapping::Resolved(gr) => {
                    let g = self.gc.rest_mapper.gr(gr);
                    (
                        g.group.clone(),
                        g.plural.clone(),
                        g.kind.clone(),
                        g.namespaced,
                    )
                }
                _ => {
                    let (group, _) = crate::snapshot::split_api_version(r.api_version)
                        .unwrap_or(("", r.api_version));
                    let b = crate::catalog::builtin::all()
                        .iter()
                        .find(|b| b.group == group && b.kind.eq_ignore_ascii_case(r.kind))?;
                    (
                        group.to_owned(),
                        b.plural.to_owned(),
                        b.kind.to_owned(),
                        b.namespaced,
                    )
                }
            };
        let (_, version) = crate::snapshot::split_api_version(r.api_version).unwrap_or(("", ""));
        Some(ObjectRef {
            group,
            version: version.to_owned(),
            kind,
            resource: plural,
            namespace: if namespaced {
                namespace.to_owned()
            } else {
                String::new()
            },
            name: r.name.to_owned(),
            uid: r.uid.to_owned(),
        })
    }

    /// What the GC makes of reference `r` of a dependent in `namespace` (`dependent`: the
    /// dependent itself where the state holds it, so that a UID of its own is no holder).
    pub fn judge(&self, namespace: &str, dependent: Option<ObjId>, r: RefText<'_>) -> Judged {
        let store = &self.gc.snap.store;
        let sym = |s: &str| store.strings.get(s);
        let (Some(av), Some(kind), Some(name), Some(uid), Some(ns)) = (
            sym(r.api_version),
            sym(r.kind),
            sym(r.name),
            sym(r.uid),
            if namespace.is_empty() {
                Some(Sym::EMPTY)
            } else {
                sym(namespace)
            },
        ) else {
            return Judged::Unknown("the reference was not prepared for the GC model".into());
        };
        let owner_ref = OwnerRef {
            api_version: av,
            kind,
            name,
            uid,
            controller: None,
            block_owner_deletion: None,
        };
        let where_ = if self.after {
            "in the state after"
        } else {
            "in the snapshot before"
        };
        let class = self.gc.is_dangling_in(&self.state, ns, &owner_ref);
        if let RefClass::Solid { owner } = class {
            return Judged::Solid { owner };
        }
        match place::break_in(&self.gc, ns, dependent, &owner_ref, &class, None) {
            None => Judged::Unknown("the GC model judged the reference solid and not".into()),
            Some(Break::Waiting { owner }) => Judged::Solid { owner },
            Some(Break::Unknown { reason }) => Judged::Unknown(reason),
            Some(Break::Unresolvable { reason } | Break::Unrequestable { reason }) => {
                Judged::NoAction(reason)
            }
            Some(Break::InvalidScope) => Judged::NoAction(
                "a cluster-scoped object's reference to a namespaced kind, which the GC drops"
                    .into(),
            ),
            Some(brk) => self.broken(namespace, r, &brk, where_),
        }
    }

    /// A dangling reference's break (the judgement's: [`place::break_in`]) in the history's
    /// words: the owner to name and the evidence in the state.
    fn broken(&self, namespace: &str, r: RefText<'_>, brk: &Break, where_: &str) -> Judged {
        let snap = self.gc.snap;
        let store = &snap.store;
        let named = || {
            self.owner_at(namespace, r).unwrap_or_else(|| ObjectRef {
                kind: r.kind.to_owned(),
                name: r.name.to_owned(),
                uid: r.uid.to_owned(),
                ..ObjectRef::default()
            })
        };
        let kind = CauseKind::of_code(brk.code());
        let (owner, detail) = match *brk {
            Break::OtherNamespace { holder, .. } => (
                self.obj(holder),
                format!(
                    "the owner with UID {} is {where_} in namespace {}: the GC looks a \
                     namespaced owner up only in the dependent's namespace {namespace}, finds \
                     nothing and treats it as absent",
                    r.uid,
                    store.str(store.object(holder).namespace)
                ),
            ),
            Break::Misnamed { holder } => (
                self.obj(holder),
                format!(
                    "the reference's UID {} is {} {where_}, but the reference names {}/{}: \
                     looked up by kind and name, the owner is absent",
                    r.uid,
                    snap.describe(holder),
                    r.kind,
                    r.name
                ),
            ),
            Break::Recreated { found } => (
                named(),
                format!(
                    "{} exists {where_} with UID {}, not the UID {} the reference names: the \
                     owner was recreated under the same name",
                    snap.describe(found),
                    store.str(store.object(found).uid),
                    r.uid
                ),
            ),
            _ if self.after => {
                return Judged::Unknown(format!(
                    "its owner {} is not in the state after, which proves nothing of when the \
                     GC acted: it was gone before the window, or never existed — a snapshot of \
                     the state before tells which",
                    named().display()
                ));
            }
            _ => {
                let owner = named();
                let detail = format!(
                    "its owner {} (UID {}) is not in the state before, and its UID is no \
                     object's there: the reference pointed at nothing the state holds",
                    owner.display(),
                    r.uid
                );
                (owner, detail)
            }
        };
        match kind {
            Some(kind) => Judged::Broken {
                kind,
                owner,
                detail,
            },
            None => Judged::Unknown(detail),
        }
    }
}
