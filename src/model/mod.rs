//! The compact in-memory model of a cluster's object metadata.
//!
//! Nothing here knows about HTTP, files or the GC's rules: it is the columnar store that every
//! source fills and every analysis reads. Objects keep only the metadata the garbage collector
//! looks at (plus labels for `-l` filtering); all text is interned ([`Sym`]) and variable-length
//! fields live in flat side vectors addressed by [`Span`]s, so a million objects cost a few
//! hundred bytes each and no per-object heap allocation.

pub mod batch;
pub mod bits;
pub mod intern;
pub mod meta;
pub mod selector;
pub mod timestamp;

pub use batch::Batch;
pub use bits::BitSet;
pub use intern::{Interner, StrHasher, Sym};
pub use meta::{MetaIn, OwnerRefIn};
pub use timestamp::{Timestamp, TimestampText};

/// How human output spells an object, in every command: `Kind/name -n namespace`, or
/// `Kind/name` when cluster-scoped (kubectl's `-n` flag, so the words paste into a kubectl
/// command line). `kind` is `Kind`, or `Kind.group` where the input holds two kinds of that name
/// in different groups, or a resource's `plural.group` where no kind is known (an audit log
/// names resources, not kinds): kubectl accepts each form. Machine formats keep their fields.
pub fn spell_object(kind: &str, name: &str, namespace: &str) -> String {
    if namespace.is_empty() {
        format!("{kind}/{name}")
    } else {
        format!("{kind}/{name} -n {namespace}")
    }
}

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
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
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
    /// creationTimestamp.
    pub creation_timestamp: Timestamp,
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

/// An object's metadata held as symbols: a [`Store`]'s object with its side vectors, or
/// another holder's view of one (watch's world). [`SymMeta::to_meta_in`] is the one way back
/// to [`MetaIn`], so every holder re-adds an object the same way.
#[derive(Clone, Copy, Debug)]
pub struct SymMeta<'s> {
    /// Namespace; [`Sym::EMPTY`] when cluster-scoped.
    pub namespace: Sym,
    /// Name.
    pub name: Sym,
    /// UID.
    pub uid: Sym,
    /// resourceVersion.
    pub resource_version: Sym,
    /// creationTimestamp.
    pub creation_timestamp: Timestamp,
    /// [`Sym::EMPTY`] when the object is not terminating.
    pub deletion_timestamp: Sym,
    /// [`Sym::EMPTY`] when there is no `kubectl-gc.io/ignore` annotation.
    pub ignore: Sym,
    /// Finalizers.
    pub finalizers: &'s [Sym],
    /// Labels (empty where the holder keeps none).
    pub labels: &'s [(Sym, Sym)],
    /// ownerReferences.
    pub owner_refs: &'s [OwnerRef],
}

impl SymMeta<'_> {
    /// The metadata, borrowing each symbol's text from `text`.
    pub fn to_meta_in<'t>(&self, text: impl Fn(Sym) -> &'t str) -> MetaIn<'t> {
        use std::borrow::Cow;
        let s = |sym: Sym| Cow::Borrowed(text(sym));
        MetaIn {
            namespace: s(self.namespace),
            name: s(self.name),
            uid: s(self.uid),
            resource_version: s(self.resource_version),
            creation_timestamp: match self.creation_timestamp.text(&text) {
                TimestampText::Text(t) => Cow::Borrowed(t),
                packed => Cow::Owned(packed.to_string()),
            },
            deletion_timestamp: (!self.deletion_timestamp.is_empty())
                .then(|| s(self.deletion_timestamp)),
            finalizers: self.finalizers.iter().map(|&f| s(f)).collect(),
            labels: meta::Labels(self.labels.iter().map(|&(k, v)| (s(k), s(v))).collect()),
            owner_references: self
                .owner_refs
                .iter()
                .map(|r| OwnerRefIn {
                    api_version: s(r.api_version),
                    kind: s(r.kind),
                    name: s(r.name),
                    uid: s(r.uid),
                    controller: r.controller,
                    block_owner_deletion: r.block_owner_deletion,
                })
                .collect(),
            ignore: (!self.ignore.is_empty()).then(|| s(self.ignore)),
        }
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
    /// Object of each UID, indexed by the UID's symbol (`u32::MAX`: none). A dense vector:
    /// a new object's UID is a recently created symbol, so the slot is usually in cache.
    by_uid: Vec<u32>,
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

    /// Makes room for about `objects` more objects read from `bytes` bytes of input (one
    /// allocation up front instead of repeated doubling, which copies everything each time).
    pub fn reserve(&mut self, objects: usize, bytes: usize) {
        self.objects.reserve(objects);
        self.owner_refs.reserve(objects);
        self.labels.reserve(objects * 2);
        self.by_uid.reserve(objects * 5);
        // Per object, about five strings (uid, name, resourceVersion, creation timestamp, a
        // label value) holding roughly a third of the input's bytes. About two of them are
        // distinct and indexed: the resourceVersion and timestamp are not indexed, and label
        // values and owners' names repeat (BENCHMARKS.md, "Figures behind the code"). Where there are more,
        // the table grows once.
        self.strings.reserve(objects * 5, objects * 2, bytes / 3);
    }

    /// Makes room for about `more` objects like those held so far (as many strings, bytes of
    /// text, references, labels and finalizers per object): the rest of an input whose size
    /// is known, once its first part is in ([`Batch::expect_more`]).
    ///
    /// Growing the string table step by step re-inserts every string at each doubling and
    /// maps a fresh table each time, on the interning thread, the read's long pole. The table
    /// gets two entries per object to come: the UID and the name, which every object adds
    /// anew. Most of its other strings repeat, and the first objects bring most of those in:
    /// sized by the first part's ratio, the table was twice too large (BENCHMARKS.md, "Figures behind the code"). Only the table's pages cost memory up front (its slots are
    /// written at random), and they are mapped on another thread while interning goes on
    /// ([`Interner::reserve_ahead`]); the vectors' unused room is address space the kernel
    /// maps as they fill.
    pub fn reserve_more(&mut self, more: usize) {
        let held = self.objects.len();
        if held == 0 || more == 0 {
            return;
        }
        // An estimate, bounded: never room for more than sixteen times what is held.
        let more = more.min(held.saturating_mul(16));
        let like = |n: usize| (n as u128 * more as u128 / held as u128) as usize;
        self.objects.reserve(more);
        self.owner_refs.reserve(like(self.owner_refs.len()));
        self.finalizers.reserve(like(self.finalizers.len()));
        self.labels.reserve(like(self.labels.len()));
        self.by_uid.reserve(like(self.by_uid.len()));
        let (strings, text) = (self.strings.len(), self.strings.text_len());
        self.strings
            .reserve_ahead(like(strings), more.saturating_mul(2), like(text));
    }

    /// Interns a string.
    pub fn intern(&mut self, s: &str) -> Sym {
        self.strings.intern(s)
    }

    /// The text of a timestamp, as read.
    pub fn timestamp(&self, t: Timestamp) -> TimestampText<'_> {
        t.text(|s| self.str(s))
    }

    /// The text of a symbol.
    pub fn str(&self, s: Sym) -> &str {
        self.strings.resolve(s)
    }

    /// Adds an object's metadata, deduplicating by UID.
    pub fn add(&mut self, resource: ResourceId, meta: &MetaIn<'_>) -> Added {
        self.add_view(resource, meta)
    }

    /// Interns a string, with its hash when it was computed ahead of time.
    #[inline]
    fn intern_h(&mut self, s: batch::HStr<'_>) -> Sym {
        match s.hash {
            Some(h) => self.strings.intern_hashed(s.text, h),
            None => self.strings.intern(s.text),
        }
    }

    /// [`Store::add`] for any metadata representation (one code path, so parsed and
    /// prepared inputs produce identical stores, symbol for symbol).
    fn add_view<V: batch::MetaView>(&mut self, resource: ResourceId, meta: &V) -> Added {
        let uid = meta.uid();
        if uid.text.is_empty() {
            return Added::NoUid;
        }
        let uid = self.intern_h(uid);
        if let Some(existing) = self.by_uid(uid) {
            return Added::Duplicate(existing);
        }
        let id = ObjId(u32::try_from(self.objects.len()).expect("more than 4 billion objects"));
        let namespace = self.intern_h(meta.namespace());
        let name = self.intern_h(meta.name());
        // Only ever displayed, never compared: stored without indexing (see
        // `Interner::add_unindexed`), which halves the cost of interning an object; the
        // creation timestamp as the seconds it names where it can be (see `Timestamp`).
        let resource_version = self.strings.add_unindexed(meta.resource_version());
        let creation_timestamp = Timestamp::hold(meta.creation_timestamp(), &mut self.strings);
        let deletion_timestamp = match meta.deletion_timestamp() {
            Some(t) => self.intern_h(t),
            None => Sym::EMPTY,
        };
        let fins = meta.finalizers();
        let finalizers = Span {
            start: self.finalizers.len() as u32,
            len: fins.len() as u32,
        };
        for f in fins {
            let f = self.intern_h(f);
            self.finalizers.push(f);
        }
        let labels_in = meta.labels();
        let labels = Span {
            start: self.labels.len() as u32,
            len: labels_in.len() as u32,
        };
        for (k, v) in labels_in {
            let kv = (self.intern_h(k), self.intern_h(v));
            self.labels.push(kv);
        }
        let refs = meta.owner_refs();
        let owner_refs = Span {
            start: self.owner_refs.len() as u32,
            len: refs.len() as u32,
        };
        for r in refs {
            let r = OwnerRef {
                api_version: self.intern_h(r.api_version),
                kind: self.intern_h(r.kind),
                name: self.intern_h(r.name),
                uid: self.intern_h(r.uid),
                controller: r.controller,
                block_owner_deletion: r.block_owner_deletion,
            };
            self.owner_refs.push(r);
        }
        let ignore = match meta.ignore() {
            Some(v) => self.intern_h(v),
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
        if self.by_uid.len() <= uid.index() {
            self.by_uid
                .resize(self.strings.len().max(uid.index() + 1), u32::MAX);
        }
        self.by_uid[uid.index()] = id.0;
        Added::New(id)
    }

    /// The symbols of an object's metadata.
    pub fn sym_meta(&self, id: ObjId) -> SymMeta<'_> {
        let o = self.object(id);
        SymMeta {
            namespace: o.namespace,
            name: o.name,
            uid: o.uid,
            resource_version: o.resource_version,
            creation_timestamp: o.creation_timestamp,
            deletion_timestamp: o.deletion_timestamp,
            ignore: o.ignore,
            finalizers: self.finalizers(id),
            labels: self.labels(id),
            owner_refs: self.owner_refs(id),
        }
    }

    /// An object's metadata, borrowing the store's strings (to add it to another store).
    pub fn meta_of(&self, id: ObjId) -> MetaIn<'_> {
        self.sym_meta(id).to_meta_in(|s| self.str(s))
    }

    /// The object with this id.
    pub fn object(&self, id: ObjId) -> &Object {
        &self.objects[id.index()]
    }

    /// The object whose UID is `uid`, if listed.
    pub fn by_uid(&self, uid: Sym) -> Option<ObjId> {
        match self.by_uid.get(uid.index()) {
            Some(&i) if i != u32::MAX => Some(ObjId(i)),
            _ => None,
        }
    }

    /// The object whose UID is the text `uid` (from a cluster, a log, a record), if listed.
    pub fn by_uid_text(&self, uid: &str) -> Option<ObjId> {
        self.by_uid(self.strings.get(uid)?)
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

fn move_span<T: Copy>(span: Span, from: &[T], to: &mut Vec<T>) -> Span {
    let start = to.len() as u32;
    to.extend_from_slice(&from[span.range()]);
    Span {
        start,
        len: span.len,
    }
}

impl Store {
    /// Reorders objects by (resource, namespace, name). Live lists run concurrently, so their
    /// arrival order varies between runs; sorting makes a live snapshot (and everything derived
    /// from object order, such as a virtual owner's namespace) reproducible.
    pub fn sort_objects(&mut self) {
        let mut order: Vec<u32> = (0..self.objects.len() as u32).collect();
        let key = |i: &u32| {
            let o = &self.objects[*i as usize];
            (
                o.resource,
                self.strings.resolve(o.namespace),
                self.strings.resolve(o.name),
            )
        };
        order.sort_by(|a, b| key(a).cmp(&key(b)));
        if order.iter().enumerate().all(|(i, &o)| i as u32 == o) {
            return;
        }
        let mut objects = Vec::with_capacity(self.objects.len());
        let mut owner_refs = Vec::with_capacity(self.owner_refs.len());
        let mut finalizers = Vec::with_capacity(self.finalizers.len());
        let mut labels = Vec::with_capacity(self.labels.len());
        for &i in &order {
            let mut o = self.objects[i as usize];
            o.owner_refs = move_span(o.owner_refs, &self.owner_refs, &mut owner_refs);
            o.finalizers = move_span(o.finalizers, &self.finalizers, &mut finalizers);
            o.labels = move_span(o.labels, &self.labels, &mut labels);
            self.by_uid[o.uid.index()] = objects.len() as u32;
            objects.push(o);
        }
        self.objects = objects;
        self.owner_refs = owner_refs;
        self.finalizers = finalizers;
        self.labels = labels;
    }
}

#[cfg(test)]
mod sort_tests {
    use crate::testkit::Cluster;

    #[test]
    fn sorting_objects_keeps_their_data_and_uid_index() {
        let mut c = Cluster::new();
        c.obj("v1", "Pod", "b", "z", "u1")
            .owner("v1", "ConfigMap", "o", "o1")
            .finalizers(&["f1"])
            .label("k", "v");
        c.obj("v1", "Pod", "a", "y", "u2").finalizers(&["f2", "f3"]);
        c.obj("v1", "ConfigMap", "a", "x", "u3")
            .owner("v1", "Pod", "y", "u2");
        let mut s = c.build();
        s.store.sort_objects();
        let st = &s.store;
        let names: Vec<&str> = st.ids().map(|i| st.str(st.object(i).name)).collect();
        // Resource rows in registration order: Pod before ConfigMap; then namespace, name.
        assert_eq!(names, ["y", "z", "x"]);
        for id in st.ids() {
            let o = st.object(id);
            assert_eq!(st.by_uid(o.uid), Some(id));
            let fins: Vec<&str> = st.finalizers(id).iter().map(|f| st.str(*f)).collect();
            let refs: Vec<&str> = st.owner_refs(id).iter().map(|r| st.str(r.uid)).collect();
            match st.str(o.name) {
                "y" => assert_eq!((fins, refs), (vec!["f2", "f3"], vec![])),
                "z" => {
                    assert_eq!((fins, refs), (vec!["f1"], vec!["o1"]));
                    assert_eq!(st.labels(id).len(), 1);
                }
                "x" => assert_eq!((fins, refs), (vec![], vec!["u2"])),
                _ => unreachable!(),
            }
        }
    }
}
