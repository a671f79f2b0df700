//! The compact in-memory model of a cluster's object metadata.
//!
//! Nothing here knows about HTTP, files or the GC's rules: it is the columnar store that every
//! source fills and every analysis reads. Objects keep only the metadata the garbage collector
//! looks at (plus labels for `-l` filtering); all text is interned ([`Sym`]) and variable-length
//! fields live in flat side vectors addressed by [`Span`]s, so a million objects cost a few
//! hundred bytes each and no per-object heap allocation.

pub mod intern;
pub mod meta;
pub mod selector;

pub use intern::{Interner, Sym};
pub use meta::{MetaIn, OwnerRefIn};

use hashbrown::HashMap;

/// Index of an object in [`Store::objects`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ObjId(pub u32);

impl ObjId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a row in the snapshot's resource table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ResourceId(pub u32);

impl ResourceId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A `(start, len)` window into one of the store's flat side vectors.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Span {
    /// First element.
    pub start: u32,
    /// Number of elements.
    pub len: u32,
}

impl Span {
    /// The span as a `usize` range.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

/// One `metadata.ownerReferences` entry, kept complete: the GC compares all four coordinates
/// and reads `blockOwnerDeletion`; `controller` is kept for reporting and patches.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct OwnerRef {
    /// `apiVersion` exactly as written in the reference (may be non-preferred or unserved).
    pub api_version: Sym,
    /// `kind` exactly as written (may be lower-case: the REST mapper accepts that).
    pub kind: Sym,
    /// `name` of the owner.
    pub name: Sym,
    /// `uid` of the owner.
    pub uid: Sym,
    /// `controller`, with "unset" kept distinct from `false`.
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`, with "unset" kept distinct from `false` (the GC's diff treats nil
    /// and false as different, §2.8).
    pub block_owner_deletion: Option<bool>,
}

impl OwnerRef {
    /// True when `blockOwnerDeletion` is explicitly true (the only value that blocks, §1.2).
    pub fn blocks(&self) -> bool {
        self.block_owner_deletion == Some(true)
    }

    /// True when the four coordinates (uid, name, kind, apiVersion) are equal
    /// (`ownerReferenceMatchesCoordinates`, §1.1).
    pub fn same_coordinates(&self, other: &OwnerRef) -> bool {
        self.uid == other.uid
            && self.name == other.name
            && self.kind == other.kind
            && self.api_version == other.api_version
    }
}

/// The metadata of one object, as the GC sees it.
#[derive(Clone, Copy, Debug)]
pub struct Object {
    /// The resource-table row the object was listed under (its GC identity's apiVersion/kind).
    pub resource: ResourceId,
    /// Namespace; [`Sym::EMPTY`] for cluster-scoped objects.
    pub namespace: Sym,
    /// Name.
    pub name: Sym,
    /// UID.
    pub uid: Sym,
    /// resourceVersion (used as a precondition by `--apply`).
    pub resource_version: Sym,
    /// creationTimestamp, RFC 3339 text.
    pub creation_timestamp: Sym,
    /// deletionTimestamp, RFC 3339 text; [`Sym::EMPTY`] when the object is not terminating.
    pub deletion_timestamp: Sym,
    /// Window into [`Store::finalizers`].
    pub finalizers: Span,
    /// Window into [`Store::labels`].
    pub labels: Span,
    /// Window into [`Store::owner_refs`].
    pub owner_refs: Span,
    /// Value of the `kubectl-gc.io/ignore` annotation ([`Sym::EMPTY`] when absent).
    pub ignore: Sym,
}

impl Object {
    /// True when the object has a deletionTimestamp (the GC's `beingDeleted`).
    pub fn being_deleted(&self) -> bool {
        !self.deletion_timestamp.is_empty()
    }
}

/// Result of adding an object to the store.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Added {
    /// A new object.
    New(ObjId),
    /// An object with this UID was already present; the input was ignored (dedupe by UID).
    Duplicate(ObjId),
    /// The input had no UID and cannot be a graph node.
    NoUid,
}

/// Columnar store of object metadata with interned strings.
#[derive(Clone, Debug, Default)]
pub struct Store {
    /// All text.
    pub strings: Interner,
    /// Objects in insertion order (the order the GC would observe them when replaying).
    pub objects: Vec<Object>,
    /// Flat ownerReferences of all objects.
    pub owner_refs: Vec<OwnerRef>,
    /// Flat finalizers of all objects.
    pub finalizers: Vec<Sym>,
    /// Flat labels of all objects.
    pub labels: Vec<(Sym, Sym)>,
    by_uid: HashMap<Sym, ObjId>,
}

/// Well-known finalizer names used by the GC and the API server (Appendix B).
pub mod finalizers {
    /// Set on delete with `propagationPolicy=Orphan`; the GC orphans dependents, then removes it.
    pub const ORPHAN: &str = "orphan";
    /// Set on delete with `propagationPolicy=Foreground`; removed by the GC once no dependent
    /// with `blockOwnerDeletion=true` remains.
    pub const FOREGROUND: &str = "foregroundDeletion";
}

impl Store {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns a string.
    pub fn intern(&mut self, s: &str) -> Sym {
        self.strings.intern(s)
    }

    /// The text of a symbol.
    pub fn str(&self, s: Sym) -> &str {
        self.strings.resolve(s)
    }

    /// Adds an object's metadata, deduplicating by UID.
    pub fn add(&mut self, resource: ResourceId, meta: &MetaIn<'_>) -> Added {
        if meta.uid.is_empty() {
            return Added::NoUid;
        }
        let uid = self.strings.intern(&meta.uid);
        if let Some(&existing) = self.by_uid.get(&uid) {
            return Added::Duplicate(existing);
        }
        let id = ObjId(u32::try_from(self.objects.len()).expect("more than 4 billion objects"));
        let namespace = self.strings.intern(&meta.namespace);
        let name = self.strings.intern(&meta.name);
        let resource_version = self.strings.intern(&meta.resource_version);
        let creation_timestamp = self.strings.intern(&meta.creation_timestamp);
        let deletion_timestamp = match &meta.deletion_timestamp {
            Some(t) => self.strings.intern(t),
            None => Sym::EMPTY,
        };
        let finalizers = Span {
            start: self.finalizers.len() as u32,
            len: meta.finalizers.len() as u32,
        };
        for f in &meta.finalizers {
            let f = self.strings.intern(f);
            self.finalizers.push(f);
        }
        let labels = Span {
            start: self.labels.len() as u32,
            len: meta.labels.0.len() as u32,
        };
        for (k, v) in &meta.labels.0 {
            let kv = (self.strings.intern(k), self.strings.intern(v));
            self.labels.push(kv);
        }
        let owner_refs = Span {
            start: self.owner_refs.len() as u32,
            len: meta.owner_references.len() as u32,
        };
        for r in &meta.owner_references {
            let r = OwnerRef {
                api_version: self.strings.intern(&r.api_version),
                kind: self.strings.intern(&r.kind),
                name: self.strings.intern(&r.name),
                uid: self.strings.intern(&r.uid),
                controller: r.controller,
                block_owner_deletion: r.block_owner_deletion,
            };
            self.owner_refs.push(r);
        }
        let ignore = match &meta.ignore {
            Some(v) => self.strings.intern(v),
            None => Sym::EMPTY,
        };
        self.objects.push(Object {
            ignore,
            resource,
            namespace,
            name,
            uid,
            resource_version,
            creation_timestamp,
            deletion_timestamp,
            finalizers,
            labels,
            owner_refs,
        });
        self.by_uid.insert(uid, id);
        Added::New(id)
    }

    /// The object with this id.
    pub fn object(&self, id: ObjId) -> &Object {
        &self.objects[id.index()]
    }

    /// The object whose UID is `uid`, if listed.
    pub fn by_uid(&self, uid: Sym) -> Option<ObjId> {
        self.by_uid.get(&uid).copied()
    }

    /// The ownerReferences of an object.
    pub fn owner_refs(&self, id: ObjId) -> &[OwnerRef] {
        &self.owner_refs[self.objects[id.index()].owner_refs.range()]
    }

    /// The finalizers of an object.
    pub fn finalizers(&self, id: ObjId) -> &[Sym] {
        &self.finalizers[self.objects[id.index()].finalizers.range()]
    }

    /// The labels of an object.
    pub fn labels(&self, id: ObjId) -> &[(Sym, Sym)] {
        &self.labels[self.objects[id.index()].labels.range()]
    }

    /// True when the object carries finalizer `name`.
    pub fn has_finalizer(&self, id: ObjId, name: &str) -> bool {
        match self.strings.get(name) {
            Some(sym) => self.finalizers(id).contains(&sym),
            None => false,
        }
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// True when no object was added.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Iterates over all object ids.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = ObjId> + use<> {
        (0..self.objects.len() as u32).map(ObjId)
    }
}
