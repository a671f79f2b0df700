//! Object metadata prepared on one thread and added to a [`Store`] on another.
//!
//! Reading a large snapshot splits into parsing (JSON → fields) and interning (fields →
//! symbols, which must happen in input order on the thread that owns the store). A parser
//! thread fills a [`Batch`]: every string copied into one buffer. The store's thread hashes
//! them with the store's [`StrHasher`] a few objects ahead of interning them, so that the
//! table slots they will probe are fetched together ([`Store::add_batch`]). The parser's
//! thread hashes the namespaces (bookkeeping by namespace reads them back with their hash,
//! [`Batch::namespace`]), and a whole batch when the store's thread is behind
//! ([`Batch::hash_all`]): work it does instead of waiting. A pusher can tag each object
//! ([`Batch::push_tagged`]) to leave bookkeeping of its own to the store's thread.
//! Both paths go through the same code (`MetaView`), so a store built from batches equals one
//! built object by object, symbol for symbol.

use super::{Added, MetaIn, ResourceId, Store, StrHasher};

/// A string, with its [`StrHasher`] hash when that was computed ahead of time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HStr<'a> {
    pub text: &'a str,
    pub hash: Option<u32>,
}

/// One ownerReference as a [`MetaView`] yields it.
pub(crate) struct RefView<'a> {
    pub api_version: HStr<'a>,
    pub kind: HStr<'a>,
    pub name: HStr<'a>,
    pub uid: HStr<'a>,
    pub controller: Option<bool>,
    pub block_owner_deletion: Option<bool>,
}

/// The fields [`Store`] keeps, in the order it interns them.
pub(crate) trait MetaView {
    fn uid(&self) -> HStr<'_>;
    fn namespace(&self) -> HStr<'_>;
    fn name(&self) -> HStr<'_>;
    fn resource_version(&self) -> &str;
    fn creation_timestamp(&self) -> &str;
    fn deletion_timestamp(&self) -> Option<HStr<'_>>;
    fn finalizers(&self) -> impl ExactSizeIterator<Item = HStr<'_>>;
    fn labels(&self) -> impl ExactSizeIterator<Item = (HStr<'_>, HStr<'_>)>;
    fn owner_refs(&self) -> impl ExactSizeIterator<Item = RefView<'_>>;
    fn ignore(&self) -> Option<HStr<'_>>;
}

fn plain(s: &str) -> HStr<'_> {
    HStr {
        text: s,
        hash: None,
    }
}

impl MetaView for MetaIn<'_> {
    fn uid(&self) -> HStr<'_> {
        plain(&self.uid)
    }
    fn namespace(&self) -> HStr<'_> {
        plain(&self.namespace)
    }
    fn name(&self) -> HStr<'_> {
        plain(&self.name)
    }
    fn resource_version(&self) -> &str {
        &self.resource_version
    }
    fn creation_timestamp(&self) -> &str {
        &self.creation_timestamp
    }
    fn deletion_timestamp(&self) -> Option<HStr<'_>> {
        self.deletion_timestamp.as_deref().map(plain)
    }
    fn finalizers(&self) -> impl ExactSizeIterator<Item = HStr<'_>> {
        self.finalizers.iter().map(|f| plain(f))
    }
    fn labels(&self) -> impl ExactSizeIterator<Item = (HStr<'_>, HStr<'_>)> {
        self.labels.0.iter().map(|(k, v)| (plain(k), plain(v)))
    }
    fn owner_refs(&self) -> impl ExactSizeIterator<Item = RefView<'_>> {
        self.owner_references.iter().map(|r| RefView {
            api_version: plain(&r.api_version),
            kind: plain(&r.kind),
            name: plain(&r.name),
            uid: plain(&r.uid),
            controller: r.controller,
            block_owner_deletion: r.block_owner_deletion,
        })
    }
    fn ignore(&self) -> Option<HStr<'_>> {
        self.ignore.as_deref().map(plain)
    }
}

/// Positions of an object's fixed strings from [`Rec::first`], in the order [`Batch::push`]
/// writes them; the optional and repeated ones follow.
const UID: u32 = 0;
const NAMESPACE: u32 = 1;
const NAME: u32 = 2;
const RESOURCE_VERSION: u32 = 3;
const CREATION_TIMESTAMP: u32 = 4;
const FIXED: u32 = 5;

/// One object of a batch: where its strings are.
#[derive(Clone, Copy, Debug)]
struct Rec {
    resource: ResourceId,
    /// First string (uid, namespace, name, resourceVersion, creationTimestamp, then the
    /// optional and repeated ones in [`MetaView`] order).
    first: u32,
    finalizers: u32,
    labels: u32,
    refs: u32,
    /// First entry in [`Batch::flags`].
    first_ref: u32,
    deletion: bool,
    ignore: bool,
    /// The pusher's own word about the object ([`Batch::push_tagged`]).
    tag: u64,
}

/// Object metadata parsed and hashed, waiting to be added to a [`Store`].
#[derive(Clone, Debug)]
pub struct Batch {
    hasher: StrHasher,
    text: String,
    /// `(offset, len, hash)` into `text`.
    strs: Vec<(u32, u32, u32)>,
    recs: Vec<Rec>,
    /// Per ownerReference: `controller` and `blockOwnerDeletion`.
    flags: Vec<(Option<bool>, Option<bool>)>,
    /// The objects `..hashed` have every string hashed.
    hashed: usize,
    /// The pusher's estimate of the objects still to come after this batch (0: none given):
    /// the store makes room for them before adding it ([`Store::reserve_more`]).
    more: usize,
}

impl Batch {
    /// An empty batch for a store whose interner hashes with `hasher`
    /// ([`crate::model::Interner::hasher`]).
    pub fn new(hasher: StrHasher) -> Batch {
        Batch {
            hasher,
            text: String::new(),
            strs: Vec::new(),
            recs: Vec::new(),
            flags: Vec::new(),
            hashed: 0,
            more: 0,
        }
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.recs.len()
    }

    /// True when the batch holds no object.
    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }

    /// Bytes of text held.
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    /// Empties the batch, keeping its allocations.
    pub fn clear(&mut self) {
        self.text.clear();
        self.strs.clear();
        self.recs.clear();
        self.flags.clear();
        self.hashed = 0;
        self.more = 0;
    }

    /// Says that about `objects` more objects will follow this batch: the store makes room
    /// for them at once ([`Store::reserve_more`]) rather than growing step by step.
    pub fn expect_more(&mut self, objects: usize) {
        self.more = objects;
    }

    /// Hashes every string, here rather than on the store's thread: for a parser that would
    /// otherwise wait for that thread.
    pub fn hash_all(&mut self) {
        self.hash_objects(self.recs.len());
    }

    /// The hash function of the strings' hashes.
    pub fn hasher(&self) -> &StrHasher {
        &self.hasher
    }

    /// Copies a string in, with its hash when known (else [`Batch::hash_objects`] fills it in).
    fn push_str(&mut self, s: &str, hash: u32) {
        let off = self.text.len() as u32;
        self.text.push_str(s);
        self.strs.push((off, s.len() as u32, hash));
    }

    /// Hashes the interned strings of the objects before `to` not hashed yet, those that
    /// [`Batch::push`] did not: all but the namespace, and the resourceVersion and
    /// creationTimestamp, which are stored unindexed.
    fn hash_objects(&mut self, to: usize) {
        let to = to.min(self.recs.len());
        let from = self.hashed;
        self.hashed = self.hashed.max(to);
        for i in from..to {
            let first = self.recs[i].first as usize;
            let end = self
                .recs
                .get(i + 1)
                .map_or(self.strs.len(), |r| r.first as usize);
            for k in first..end {
                let at = (k - first) as u32;
                if matches!(at, NAMESPACE | RESOURCE_VERSION | CREATION_TIMESTAMP) {
                    continue;
                }
                let (off, len, _) = self.strs[k];
                let h = self
                    .hasher
                    .hash(&self.text[off as usize..(off + len) as usize]);
                self.strs[k].2 = h;
            }
        }
    }

    /// Adds an object (objects without a UID are dropped, as [`Store::add`] drops them).
    pub fn push(&mut self, resource: ResourceId, meta: &MetaIn<'_>) {
        self.push_tagged(resource, meta, 0)
    }

    /// [`Batch::push`], with a word the store ignores and the batch's consumer reads back
    /// ([`Batch::tag`]): bookkeeping the pusher leaves to the store's thread.
    pub fn push_tagged(&mut self, resource: ResourceId, meta: &MetaIn<'_>, tag: u64) {
        if meta.uid.is_empty() {
            return;
        }
        let first = self.strs.len() as u32;
        let ns_hash = self.hasher.hash(&meta.namespace);
        self.push_str(&meta.uid, 0);
        self.push_str(&meta.namespace, ns_hash);
        self.push_str(&meta.name, 0);
        self.push_str(&meta.resource_version, 0);
        self.push_str(&meta.creation_timestamp, 0);
        if let Some(t) = &meta.deletion_timestamp {
            self.push_str(t, 0);
        }
        for f in &meta.finalizers {
            self.push_str(f, 0);
        }
        for (k, v) in &meta.labels.0 {
            self.push_str(k, 0);
            self.push_str(v, 0);
        }
        let first_ref = self.flags.len() as u32;
        for r in &meta.owner_references {
            self.push_str(&r.api_version, 0);
            self.push_str(&r.kind, 0);
            self.push_str(&r.name, 0);
            self.push_str(&r.uid, 0);
            self.flags.push((r.controller, r.block_owner_deletion));
        }
        if let Some(i) = &meta.ignore {
            self.push_str(i, 0);
        }
        self.recs.push(Rec {
            resource,
            first,
            finalizers: meta.finalizers.len() as u32,
            labels: meta.labels.0.len() as u32,
            refs: meta.owner_references.len() as u32,
            first_ref,
            deletion: meta.deletion_timestamp.is_some(),
            ignore: meta.ignore.is_some(),
            tag,
        });
    }

    /// Object `i`'s tag ([`Batch::push_tagged`]).
    pub fn tag(&self, i: usize) -> u64 {
        self.recs[i].tag
    }

    /// Object `i`'s namespace, and its hash by the store's hasher ([`Batch::push`] hashed it).
    pub fn namespace(&self, i: usize) -> (&str, u32) {
        let (off, len, hash) = self.strs[(self.recs[i].first + NAMESPACE) as usize];
        (&self.text[off as usize..(off + len) as usize], hash)
    }

    /// The hashes of the strings of objects `from..to` (as far as there are objects), as
    /// [`Batch::hash_objects`] left them.
    fn hashes(&self, from: usize, to: usize) -> impl Iterator<Item = u32> + '_ {
        let first = |i: usize| {
            self.recs
                .get(i)
                .map_or(self.strs.len(), |r| r.first as usize)
        };
        let (a, b) = (first(from), first(to));
        self.strs[a.min(b)..b].iter().map(|&(_, _, h)| h)
    }

    fn str_at(&self, i: u32) -> HStr<'_> {
        let (off, len, h) = self.strs[i as usize];
        HStr {
            text: &self.text[off as usize..(off + len) as usize],
            hash: Some(h),
        }
    }
}

/// Objects whose strings [`Store::add_batch`] prefetches at a time: about a hundred strings,
/// more misses than a core keeps in flight. Three groups are in flight at once, a few hundred
/// cache lines, well inside L2.
const PREFETCH_GROUP: usize = 16;

/// A [`Rec`] of a [`Batch`], read as [`MetaView`].
struct RecView<'a> {
    batch: &'a Batch,
    rec: Rec,
}

impl RecView<'_> {
    fn at(&self, k: u32) -> HStr<'_> {
        self.batch.str_at(self.rec.first + k)
    }
    /// Index of the first finalizer.
    fn fin0(&self) -> u32 {
        FIXED + self.rec.deletion as u32
    }
    fn label0(&self) -> u32 {
        self.fin0() + self.rec.finalizers
    }
    fn ref0(&self) -> u32 {
        self.label0() + 2 * self.rec.labels
    }
}

impl MetaView for RecView<'_> {
    fn uid(&self) -> HStr<'_> {
        self.at(UID)
    }
    fn namespace(&self) -> HStr<'_> {
        self.at(NAMESPACE)
    }
    fn name(&self) -> HStr<'_> {
        self.at(NAME)
    }
    fn resource_version(&self) -> &str {
        self.at(RESOURCE_VERSION).text
    }
    fn creation_timestamp(&self) -> &str {
        self.at(CREATION_TIMESTAMP).text
    }
    fn deletion_timestamp(&self) -> Option<HStr<'_>> {
        self.rec.deletion.then(|| self.at(FIXED))
    }
    fn finalizers(&self) -> impl ExactSizeIterator<Item = HStr<'_>> {
        let f0 = self.fin0();
        (0..self.rec.finalizers).map(move |i| self.at(f0 + i))
    }
    fn labels(&self) -> impl ExactSizeIterator<Item = (HStr<'_>, HStr<'_>)> {
        let l0 = self.label0();
        (0..self.rec.labels).map(move |i| (self.at(l0 + 2 * i), self.at(l0 + 2 * i + 1)))
    }
    fn owner_refs(&self) -> impl ExactSizeIterator<Item = RefView<'_>> {
        let r0 = self.ref0();
        (0..self.rec.refs).map(move |i| {
            let k = r0 + 4 * i;
            let (controller, block_owner_deletion) =
                self.batch.flags[(self.rec.first_ref + i) as usize];
            RefView {
                api_version: self.at(k),
                kind: self.at(k + 1),
                name: self.at(k + 2),
                uid: self.at(k + 3),
                controller,
                block_owner_deletion,
            }
        })
    }
    fn ignore(&self) -> Option<HStr<'_>> {
        self.rec
            .ignore
            .then(|| self.at(self.ref0() + 4 * self.rec.refs))
    }
}

impl Batch {
    /// Object `i` of the batch, as [`MetaIn`] borrowing the batch's text.
    pub fn meta_in(&self, i: usize) -> MetaIn<'_> {
        use std::borrow::Cow;
        let v = RecView {
            batch: self,
            rec: self.recs[i],
        };
        let c = |k: u32| Cow::Borrowed(self.str_at(v.rec.first + k).text);
        MetaIn {
            namespace: c(NAMESPACE),
            name: c(NAME),
            uid: c(UID),
            resource_version: c(RESOURCE_VERSION),
            creation_timestamp: c(CREATION_TIMESTAMP),
            deletion_timestamp: v.rec.deletion.then(|| c(FIXED)),
            finalizers: (0..v.rec.finalizers).map(|k| c(v.fin0() + k)).collect(),
            labels: super::meta::Labels(
                (0..v.rec.labels)
                    .map(|k| (c(v.label0() + 2 * k), c(v.label0() + 2 * k + 1)))
                    .collect(),
            ),
            owner_references: (0..v.rec.refs)
                .map(|k| {
                    let at = v.ref0() + 4 * k;
                    let (controller, block_owner_deletion) =
                        self.flags[(v.rec.first_ref + k) as usize];
                    super::OwnerRefIn {
                        api_version: c(at),
                        kind: c(at + 1),
                        name: c(at + 2),
                        uid: c(at + 3),
                        controller,
                        block_owner_deletion,
                    }
                })
                .collect(),
            ignore: v.rec.ignore.then(|| c(v.ref0() + 4 * v.rec.refs)),
        }
    }
}

impl Store {
    /// Adds every object of a batch, in order (as [`Store::add`] would one by one). The batch
    /// must have been made with this store's hasher ([`crate::model::Interner::hasher`]).
    pub fn add_batch(&mut self, batch: &mut Batch) -> Vec<Added> {
        // Room for what the batch says follows it, made once its own objects are in: they
        // count in the per-object ratios.
        let more = std::mem::take(&mut batch.more);
        let mut out = Vec::with_capacity(batch.recs.len());
        for i in 0..batch.recs.len() {
            let rec = batch.recs[i];
            if i % PREFETCH_GROUP == 0 {
                // Cache misses on the table set the pace here, so they are started early
                // enough to overlap: the slots of the objects two groups ahead, then the texts
                // (of slots whose hash matches) of the next group, whose slots came in by now.
                // The first group starts the pipeline with all three.
                let (slots_from, texts_from) = if i == 0 {
                    (0, 0)
                } else {
                    (i + 2 * PREFETCH_GROUP, i + PREFETCH_GROUP)
                };
                batch.hash_objects(i + 3 * PREFETCH_GROUP);
                self.strings
                    .prefetch_slots(batch.hashes(slots_from, i + 3 * PREFETCH_GROUP));
                self.strings
                    .prefetch_texts(batch.hashes(texts_from, i + 2 * PREFETCH_GROUP));
            }
            out.push(self.add_view(
                rec.resource,
                &RecView {
                    batch: &*batch,
                    rec,
                },
            ));
        }
        self.reserve_more(more);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ObjId, Sym};

    fn meta(json: &str) -> MetaIn<'_> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn batch_and_direct_adds_build_identical_stores() {
        let inputs = [
            r#"{"namespace":"a","name":"rs","uid":"u1","resourceVersion":"1","creationTimestamp":"t1",
                "labels":{"app":"web","tier":"x"},
                "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"u0","controller":true}]}"#,
            r#"{"namespace":"a","name":"p","uid":"u2","resourceVersion":"2","creationTimestamp":"t1",
                "deletionTimestamp":"t9","finalizers":["foregroundDeletion","x/y"],
                "annotations":{"kubectl-gc.io/ignore":"GC001"},
                "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u1","blockOwnerDeletion":false},
                                   {"apiVersion":"v1","kind":"Node","name":"n","uid":"u9"}]}"#,
            r#"{"namespace":"a","name":"dup","uid":"u1"}"#,
            r#"{"name":"no-uid"}"#,
        ];
        // Hashed on the store's thread, or beforehand by the parser (`hash_all`).
        for hashed_ahead in [false, true] {
            let via = batches_build_the_store_objects_build(&inputs, hashed_ahead);
            // The batch drops objects without a UID up front, and the duplicate is refused.
            assert_eq!(via.len(), 2);
            assert_eq!(via.by_uid(via.strings.get("u1").unwrap()), Some(ObjId(0)));
            assert_eq!(via.by_uid(via.strings.get("u0").unwrap()), None);
        }
    }

    /// Adds `inputs` one by one to one store and as one batch to another, checks the two
    /// stores are equal symbol for symbol and object for object, and returns the second.
    fn batches_build_the_store_objects_build(inputs: &[&str], hashed_ahead: bool) -> Store {
        let mut direct = Store::new();
        let mut via = Store::new();
        let mut batch = Batch::new(via.strings.hasher());
        let mut expected = Vec::new();
        for (i, j) in inputs.iter().enumerate() {
            let m = meta(j);
            expected.push(direct.add(ResourceId(i as u32), &m));
            batch.push(ResourceId(i as u32), &m);
        }
        if hashed_ahead {
            batch.hash_all();
            assert_eq!(batch.hashed, batch.len());
        }
        let added = via.add_batch(&mut batch);
        // The batch drops objects without a UID up front; the rest match one for one.
        expected.retain(|a| *a != Added::NoUid);
        assert_eq!(added, expected);
        assert_eq!(via.strings.len(), direct.strings.len());
        for s in 0..direct.strings.len() as u32 {
            assert_eq!(via.str(Sym(s)), direct.str(Sym(s)));
        }
        for id in direct.ids() {
            let (a, b) = (direct.object(id), via.object(id));
            assert_eq!(
                (
                    a.resource,
                    a.namespace,
                    a.name,
                    a.uid,
                    a.deletion_timestamp,
                    a.ignore
                ),
                (
                    b.resource,
                    b.namespace,
                    b.name,
                    b.uid,
                    b.deletion_timestamp,
                    b.ignore
                )
            );
            assert_eq!(direct.str(a.resource_version), via.str(b.resource_version));
            assert_eq!(direct.owner_refs(id), via.owner_refs(id));
            assert_eq!(direct.finalizers(id), via.finalizers(id));
            assert_eq!(direct.labels(id), via.labels(id));
        }
        via
    }

    /// A batch far longer than the groups its strings are prefetched in, whose table grows
    /// (slots move) while it is added, with owners named before and after their dependents
    /// and a duplicate UID: the store is the one objects added one by one build.
    #[test]
    fn a_long_batch_through_table_growth_builds_the_store_objects_build() {
        let objects: Vec<String> = (0..700)
            .map(|i| {
                let owner = (i * 7 + 3) % 700;
                format!(
                    r#"{{"namespace":"n{}","name":"o{}","uid":"u{}","labels":{{"app":"a{}"}},
                        "ownerReferences":[{{"apiVersion":"v1","kind":"ConfigMap","name":"o{owner}","uid":"u{owner}"}}]}}"#,
                    i % 5,
                    i % 300,
                    if i == 650 { 10 } else { i },
                    i % 40
                )
            })
            .collect();
        let inputs: Vec<&str> = objects.iter().map(String::as_str).collect();
        for hashed_ahead in [false, true] {
            let via = batches_build_the_store_objects_build(&inputs, hashed_ahead);
            assert_eq!(via.len(), 699);
            // Every object's owner reference names the owner's UID symbol, interned once.
            let owner = via.owner_refs(ObjId(0))[0].uid;
            assert_eq!(via.by_uid(owner), Some(ObjId(3)));
        }
    }

    /// A batch that says how many objects follow has the store make room for them once its
    /// own are in; the objects and symbols are those of a store that grew step by step.
    #[test]
    fn a_batch_expecting_more_makes_room_without_changing_the_store() {
        let objects: Vec<String> = (0..40)
            .map(|i| {
                format!(
                    r#"{{"namespace":"n{}","name":"o{i}","uid":"u{i}","labels":{{"app":"a"}},
                        "ownerReferences":[{{"apiVersion":"v1","kind":"ConfigMap","name":"o0","uid":"u0"}}]}}"#,
                    i % 3
                )
            })
            .collect();
        let build = |more: Option<usize>| {
            let mut store = Store::new();
            let mut batch = Batch::new(store.strings.hasher());
            for (i, j) in objects.iter().enumerate() {
                batch.push(ResourceId(0), &meta(j));
                if i == 19 {
                    if let Some(more) = more {
                        batch.expect_more(more);
                    }
                    store.add_batch(&mut batch);
                    batch.clear();
                }
            }
            store.add_batch(&mut batch);
            store
        };
        let grown = build(None);
        let reserved = build(Some(300));
        assert!(
            reserved.objects.capacity() >= 320,
            "{}",
            reserved.objects.capacity()
        );
        assert!(grown.objects.capacity() < 100);
        assert_eq!(reserved.len(), grown.len());
        assert_eq!(reserved.strings.len(), grown.strings.len());
        for s in 0..grown.strings.len() as u32 {
            assert_eq!(reserved.str(Sym(s)), grown.str(Sym(s)));
        }
        assert_eq!(reserved.owner_refs, grown.owner_refs);
        assert_eq!(reserved.labels, grown.labels);
        // An estimate is bounded by what is held (sixteen times): no absurd reservation.
        let huge = build(Some(usize::MAX));
        assert!(
            huge.objects.capacity() <= 20 * 17,
            "{}",
            huge.objects.capacity()
        );
        assert_eq!(huge.len(), grown.len());
    }
}
