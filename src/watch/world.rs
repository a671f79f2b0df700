//! The cluster as the watch holds it: the initial lists' [`Snapshot`] (the *base*) plus an
//! overlay of the objects that changed since, keyed by UID, and the indexes an incremental
//! evaluation needs (dependents of every UID, referrers of every owner name, objects by
//! namespace and name).
//!
//! Memory stays proportional to metadata: the base is the compact columnar store every other
//! command uses, the overlay holds only changed objects, and [`World::compact`] folds the
//! overlay into a fresh base (and drops the strings nothing uses any more) once it has grown.
//!
//! [`World::mini`] copies a set of objects into a small [`Snapshot`] of their own, with the
//! whole resource table and its list outcomes: the GC emulation and the findings then run on
//! just those objects, exactly as they would on the whole cluster as long as the set is closed
//! under ownership (see [`World::closure`]).

use crate::model::{MetaIn, OwnerRef, ResourceId, Sym};
use crate::snapshot::{ListOutcome, Resource, Snapshot, SnapshotBuilder};
use hashbrown::{HashMap, HashSet};

/// An object changed since the base was built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Resource-table row it is listed under.
    pub resource: ResourceId,
    /// Namespace ([`Sym::EMPTY`]: cluster-scoped).
    pub namespace: Sym,
    /// Name.
    pub name: Sym,
    /// UID.
    pub uid: Sym,
    /// resourceVersion.
    pub resource_version: Sym,
    /// creationTimestamp.
    pub creation_timestamp: crate::model::Timestamp,
    /// deletionTimestamp ([`Sym::EMPTY`]: none).
    pub deletion_timestamp: Sym,
    /// `kubectl-gc.io/ignore` ([`Sym::EMPTY`]: none).
    pub ignore: Sym,
    /// Finalizers.
    pub finalizers: Box<[Sym]>,
    /// ownerReferences.
    pub owner_refs: Box<[OwnerRef]>,
}

/// An object as the world holds it now (from the base or the overlay).
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    /// Resource-table row.
    pub resource: ResourceId,
    /// Namespace.
    pub namespace: Sym,
    /// Name.
    pub name: Sym,
    /// UID.
    pub uid: Sym,
    /// resourceVersion.
    pub resource_version: Sym,
    /// creationTimestamp.
    pub creation_timestamp: crate::model::Timestamp,
    /// deletionTimestamp.
    pub deletion_timestamp: Sym,
    /// `kubectl-gc.io/ignore`.
    pub ignore: Sym,
    /// Finalizers.
    pub finalizers: &'a [Sym],
    /// ownerReferences.
    pub owner_refs: &'a [OwnerRef],
}

impl View<'_> {
    /// An owned copy.
    pub fn to_entry(&self) -> Entry {
        Entry {
            resource: self.resource,
            namespace: self.namespace,
            name: self.name,
            uid: self.uid,
            resource_version: self.resource_version,
            creation_timestamp: self.creation_timestamp,
            deletion_timestamp: self.deletion_timestamp,
            ignore: self.ignore,
            finalizers: self.finalizers.into(),
            owner_refs: self.owner_refs.into(),
        }
    }

    /// Terminating.
    pub fn being_deleted(&self) -> bool {
        !self.deletion_timestamp.is_empty()
    }
}

impl Entry {
    /// The entry as a view.
    pub fn view(&self) -> View<'_> {
        View {
            resource: self.resource,
            namespace: self.namespace,
            name: self.name,
            uid: self.uid,
            resource_version: self.resource_version,
            creation_timestamp: self.creation_timestamp,
            deletion_timestamp: self.deletion_timestamp,
            ignore: self.ignore,
            finalizers: &self.finalizers,
            owner_refs: &self.owner_refs,
        }
    }

    /// Terminating.
    pub fn being_deleted(&self) -> bool {
        !self.deletion_timestamp.is_empty()
    }
}

/// What an add, update or delete changed.
#[derive(Clone, Debug)]
pub struct Change {
    /// The object before (`None`: it was new).
    pub old: Option<Entry>,
    /// The object after (`None`: deleted).
    pub new: Option<Entry>,
}

impl Change {
    /// The UID.
    pub fn uid(&self) -> Sym {
        self.new
            .as_ref()
            .or(self.old.as_ref())
            .map(|e| e.uid)
            .unwrap_or(Sym::EMPTY)
    }

    /// True for an update of the shape a GC worker writes when it acts on an object: its
    /// deletion starting (a DELETE with a propagation policy), ownerReferences removed and
    /// none added or changed (the delete-owner-refs patch), or the `orphan` finalizer removed
    /// (the end of orphaning). A person can make the same edit; the engine only uses this to
    /// stop expecting a worker's action that the edit may be (§2.10: a worker writes nothing
    /// else).
    pub fn looks_like_a_worker_write(&self, world: &World) -> bool {
        let (Some(old), Some(new)) = (&self.old, &self.new) else {
            return false;
        };
        if new.being_deleted() && !old.being_deleted() {
            return true;
        }
        let orphan = world.sym(crate::model::finalizers::ORPHAN);
        if orphan.is_some_and(|f| old.finalizers.contains(&f) && !new.finalizers.contains(&f)) {
            return true;
        }
        new.owner_refs.len() < old.owner_refs.len()
            && new.owner_refs.iter().all(|r| old.owner_refs.contains(r))
    }
}

/// The cluster as held now.
#[derive(Debug)]
pub struct World {
    /// The base snapshot: the resource table, list outcomes, strings, and the objects as of
    /// the last compaction.
    pub snap: Snapshot,
    /// Objects changed since: `None` = deleted.
    overlay: HashMap<Sym, Option<Entry>>,
    /// Objects held now.
    live: usize,
    /// UID → objects whose ownerReferences name it (a set per UID).
    dependents: HashMap<Sym, Vec<Sym>>,
    /// Owner name → objects with an ownerReference of that name.
    ref_names: HashMap<Sym, Vec<Sym>>,
    /// (namespace, name) → objects.
    names: HashMap<(Sym, Sym), Vec<Sym>>,
    /// Strings interned since the last compaction (for deciding when to compact).
    interned_since: usize,
}

fn push_unique(v: &mut Vec<Sym>, s: Sym) {
    if !v.contains(&s) {
        v.push(s);
    }
}

fn remove_from(map: &mut HashMap<Sym, Vec<Sym>>, key: Sym, s: Sym) {
    if let Some(v) = map.get_mut(&key) {
        v.retain(|&x| x != s);
        if v.is_empty() {
            map.remove(&key);
        }
    }
}

impl World {
    /// The world of an initial snapshot.
    pub fn new(snap: Snapshot) -> World {
        let mut w = World {
            live: snap.store.len(),
            snap,
            overlay: HashMap::new(),
            dependents: HashMap::new(),
            ref_names: HashMap::new(),
            names: HashMap::new(),
            interned_since: 0,
        };
        w.reindex();
        w
    }

    fn reindex(&mut self) {
        let store = &self.snap.store;
        let mut dependents: HashMap<Sym, Vec<Sym>> = HashMap::with_capacity(store.len() / 2);
        let mut ref_names: HashMap<Sym, Vec<Sym>> = HashMap::with_capacity(store.len() / 2);
        let mut names: HashMap<(Sym, Sym), Vec<Sym>> = HashMap::with_capacity(store.len());
        for id in store.ids() {
            let o = store.object(id);
            for r in store.owner_refs(id) {
                push_unique(dependents.entry(r.uid).or_default(), o.uid);
                push_unique(ref_names.entry(r.name).or_default(), o.uid);
            }
            names.entry((o.namespace, o.name)).or_default().push(o.uid);
        }
        self.dependents = dependents;
        self.ref_names = ref_names;
        self.names = names;
    }

    /// Number of objects held.
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when no object is held.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Number of changed objects not yet folded into the base.
    pub fn overlay_len(&self) -> usize {
        self.overlay.len()
    }

    /// The text of a symbol.
    pub fn str(&self, s: Sym) -> &str {
        self.snap.store.str(s)
    }

    /// The symbol of a text, if interned.
    pub fn sym(&self, s: &str) -> Option<Sym> {
        self.snap.store.strings.get(s)
    }

    /// The object with this UID.
    pub fn get(&self, uid: Sym) -> Option<View<'_>> {
        if let Some(e) = self.overlay.get(&uid) {
            return e.as_ref().map(Entry::view);
        }
        let store = &self.snap.store;
        let id = store.by_uid(uid)?;
        let o = store.object(id);
        Some(View {
            resource: o.resource,
            namespace: o.namespace,
            name: o.name,
            uid: o.uid,
            resource_version: o.resource_version,
            creation_timestamp: o.creation_timestamp,
            deletion_timestamp: o.deletion_timestamp,
            ignore: o.ignore,
            finalizers: store.finalizers(id),
            owner_refs: store.owner_refs(id),
        })
    }

    /// Every object held, in no particular order.
    pub fn uids(&self) -> Vec<Sym> {
        let store = &self.snap.store;
        let mut out: Vec<Sym> = store
            .ids()
            .map(|id| store.object(id).uid)
            .filter(|u| !self.overlay.contains_key(u))
            .collect();
        out.extend(
            self.overlay
                .iter()
                .filter(|(_, e)| e.is_some())
                .map(|(u, _)| *u),
        );
        out
    }

    /// Objects whose ownerReferences name `uid`.
    pub fn dependents(&self, uid: Sym) -> &[Sym] {
        self.dependents.get(&uid).map_or(&[], Vec::as_slice)
    }

    /// Objects with an ownerReference naming an owner called `name`.
    pub fn referrers_by_name(&self, name: Sym) -> &[Sym] {
        self.ref_names.get(&name).map_or(&[], Vec::as_slice)
    }

    /// Objects called `name` in `namespace`.
    pub fn named(&self, namespace: Sym, name: Sym) -> &[Sym] {
        self.names
            .get(&(namespace, name))
            .map_or(&[], Vec::as_slice)
    }

    /// The resource table.
    pub fn resources(&self) -> &[Resource] {
        &self.snap.resources
    }

    /// Records a resource's list outcome (forbidden, failed, complete).
    pub fn set_outcome(&mut self, resource: ResourceId, outcome: ListOutcome) {
        if let Some(r) = self.snap.resources.get_mut(resource.index()) {
            r.list = outcome;
        }
    }

    fn intern(&mut self, s: &str) -> Sym {
        let before = self.snap.store.strings.len();
        let sym = self.snap.store.intern(s);
        self.interned_since += self.snap.store.strings.len() - before;
        sym
    }

    /// The entry for `meta` listed under `resource`.
    fn entry(&mut self, resource: ResourceId, meta: &MetaIn<'_>) -> Entry {
        let uid = self.intern(&meta.uid);
        let namespace = self.intern(&meta.namespace);
        let name = self.intern(&meta.name);
        // Displayed only: appended without an index entry, as the base store does.
        let resource_version = self
            .snap
            .store
            .strings
            .add_unindexed(&meta.resource_version);
        self.interned_since += 1;
        let before = self.snap.store.strings.len();
        let creation_timestamp =
            crate::model::Timestamp::hold(&meta.creation_timestamp, &mut self.snap.store.strings);
        self.interned_since += self.snap.store.strings.len() - before;
        let deletion_timestamp = match &meta.deletion_timestamp {
            Some(t) => self.intern(t),
            None => Sym::EMPTY,
        };
        let ignore = match &meta.ignore {
            Some(v) => self.intern(v),
            None => Sym::EMPTY,
        };
        let finalizers: Box<[Sym]> = meta.finalizers.iter().map(|f| self.intern(f)).collect();
        let owner_refs: Box<[OwnerRef]> = meta
            .owner_references
            .iter()
            .map(|r| OwnerRef {
                api_version: self.intern(&r.api_version),
                kind: self.intern(&r.kind),
                name: self.intern(&r.name),
                uid: self.intern(&r.uid),
                controller: r.controller,
                block_owner_deletion: r.block_owner_deletion,
            })
            .collect();
        Entry {
            resource,
            namespace,
            name,
            uid,
            resource_version,
            creation_timestamp,
            deletion_timestamp,
            ignore,
            finalizers,
            owner_refs,
        }
    }

    fn unindex(&mut self, e: &Entry) {
        for r in e.owner_refs.iter() {
            remove_from(&mut self.dependents, r.uid, e.uid);
            remove_from(&mut self.ref_names, r.name, e.uid);
        }
        if let Some(v) = self.names.get_mut(&(e.namespace, e.name)) {
            v.retain(|&x| x != e.uid);
            if v.is_empty() {
                self.names.remove(&(e.namespace, e.name));
            }
        }
    }

    fn index(&mut self, e: &Entry) {
        for r in e.owner_refs.iter() {
            push_unique(self.dependents.entry(r.uid).or_default(), e.uid);
            push_unique(self.ref_names.entry(r.name).or_default(), e.uid);
        }
        push_unique(self.names.entry((e.namespace, e.name)).or_default(), e.uid);
    }

    /// An add or update event (`ADDED`, `MODIFIED`, or an object of a relist). An object
    /// already held under another resource (one object served by two groups) keeps its
    /// first resource, as the GC's node keeps the identity of the first event (§5.1).
    /// `None` when nothing the GC looks at changed.
    pub fn apply(&mut self, resource: ResourceId, meta: &MetaIn<'_>) -> Option<Change> {
        if meta.uid.is_empty() {
            return None;
        }
        let mut new = self.entry(resource, meta);
        let old = self.get(new.uid).map(|v| v.to_entry());
        if let Some(o) = &old {
            new.resource = o.resource;
            if same_for_the_gc(o, &new) {
                return None;
            }
            self.unindex(o);
        } else {
            self.live += 1;
        }
        self.index(&new);
        self.overlay.insert(new.uid, Some(new.clone()));
        Some(Change {
            old,
            new: Some(new),
        })
    }

    /// A delete event. `None` when the object was not held (upstream ignores those too, §2.2
    /// B3).
    pub fn delete(&mut self, uid: &str) -> Option<Change> {
        let uid = self.sym(uid)?;
        let old = self.get(uid)?.to_entry();
        self.unindex(&old);
        self.overlay.insert(uid, None);
        self.live -= 1;
        Some(Change {
            old: Some(old),
            new: None,
        })
    }

    /// A complete list of one resource (after `410 Gone`): the changes that turn what was held
    /// for it into what was listed — adds, updates and deletes, as if their events had come.
    pub fn reconcile(&mut self, resource: ResourceId, listed: &[MetaIn<'_>]) -> Vec<Change> {
        let mut seen: HashSet<Sym> = HashSet::with_capacity(listed.len());
        let mut out = Vec::new();
        for meta in listed {
            if let Some(uid) = self.sym(&meta.uid) {
                seen.insert(uid);
            }
            if let Some(c) = self.apply(resource, meta) {
                seen.insert(c.uid());
                out.push(c);
            }
        }
        let gone: Vec<Sym> = self
            .uids()
            .into_iter()
            .filter(|u| !seen.contains(u))
            .filter(|&u| self.get(u).is_some_and(|v| v.resource == resource))
            .collect();
        for uid in gone {
            let text = self.str(uid).to_owned();
            if let Some(c) = self.delete(&text) {
                out.push(c);
            }
        }
        out
    }

    /// True when the overlay (or the strings it left behind) has grown enough that folding it
    /// into a fresh base pays off.
    pub fn wants_compaction(&self) -> bool {
        let base = self.snap.store.len().max(1);
        self.overlay.len() > 4096.max(base / 2) || self.interned_since > 16_384.max(base * 4)
    }

    /// Folds the overlay into a fresh base (with a fresh string table). `retable`: a new
    /// resource table, and for each old row its new row (`None`: no longer served or monitored;
    /// its objects are dropped). Every [`Sym`] changes: callers keep none across this call.
    pub fn compact(&mut self, retable: Option<(Vec<Resource>, Vec<Option<ResourceId>>)>) {
        *self = self.compacted(retable);
    }

    /// [`World::compact`] into a new world, leaving this one as it is: `kubectl gc admit`
    /// builds it while its checks go on reading this one, then swaps the two.
    pub fn compacted(&self, retable: Option<(Vec<Resource>, Vec<Option<ResourceId>>)>) -> World {
        let old = &self.snap;
        let mut b = SnapshotBuilder::new(old.provenance.clone());
        let (table, remap) = match retable {
            Some((t, m)) => (t, Some(m)),
            None => (old.resources.clone(), None),
        };
        for r in table {
            b.add_resource(r);
        }
        for f in &old.discovery_failures {
            b.discovery_failure(f.group_version.clone(), f.message.clone());
        }
        let uids = self.uids();
        b.store_mut().reserve(uids.len(), 0);
        for uid in uids {
            let Some(v) = self.get(uid) else { continue };
            let resource = match &remap {
                None => v.resource,
                Some(m) => match m.get(v.resource.index()).copied().flatten() {
                    Some(r) => r,
                    None => continue,
                },
            };
            b.add_object(resource, &self.meta_of(&v));
        }
        let mut snap = b.finish();
        snap.store.sort_objects();
        World::new(snap)
    }

    /// Replaces the discovery failures (a discovery refresh).
    pub fn set_discovery_failures(&mut self, failures: &[(String, String)]) {
        self.snap.discovery_failures = failures
            .iter()
            .map(|(gv, m)| crate::snapshot::DiscoveryFailure {
                group_version: gv.clone(),
                message: m.clone(),
            })
            .collect();
    }

    /// The metadata of a held object, borrowing the world's strings.
    pub fn meta_of<'a>(&'a self, v: &View<'a>) -> MetaIn<'a> {
        // The world holds no labels.
        crate::model::SymMeta {
            namespace: v.namespace,
            name: v.name,
            uid: v.uid,
            resource_version: v.resource_version,
            creation_timestamp: v.creation_timestamp,
            deletion_timestamp: v.deletion_timestamp,
            ignore: v.ignore,
            finalizers: v.finalizers,
            labels: &[],
            owner_refs: v.owner_refs,
        }
        .to_meta_in(|s| self.str(s))
    }

    /// The objects whose findings `seeds` can affect, and the objects their evaluation reads:
    /// every object connected to a seed through ownerReferences, in either direction and
    /// through UIDs no object holds (the GC's virtual nodes) — the seeds' connected components
    /// of the GC's graph. Evaluating a component reads nothing outside it except the owner
    /// lookups by name ([`World::lookup_candidates`]).
    pub fn closure(&self, seeds: impl IntoIterator<Item = Sym>) -> (Vec<Sym>, HashSet<Sym>) {
        let mut seen: HashSet<Sym> = HashSet::new();
        let mut stack: Vec<Sym> = Vec::new();
        for s in seeds {
            if seen.insert(s) {
                stack.push(s);
            }
        }
        let mut objects = Vec::new();
        while let Some(u) = stack.pop() {
            if let Some(v) = self.get(u) {
                objects.push(u);
                for r in v.owner_refs {
                    if seen.insert(r.uid) {
                        stack.push(r.uid);
                    }
                }
            }
            for &d in self.dependents(u) {
                if seen.insert(d) {
                    stack.push(d);
                }
            }
        }
        (objects, seen)
    }

    /// Objects an owner lookup of `objects`' references can find by name: the GC GETs an owner
    /// by kind, namespace and name (§3.3), so an object of that name decides between
    /// "absent" and "another UID".
    pub fn lookup_candidates(&self, objects: &[Sym], out: &mut HashSet<Sym>) {
        for &u in objects {
            let Some(v) = self.get(u) else { continue };
            for r in v.owner_refs {
                for ns in [v.namespace, Sym::EMPTY] {
                    out.extend(self.named(ns, r.name).iter().copied());
                }
            }
        }
    }

    /// A snapshot of just `uids` (which must be held), captured now, with the rows of the
    /// resource table (and their list outcomes) that its objects and their references can
    /// reach: every row of every API group an object is listed in or a reference names. That
    /// is all the GC's REST mapper consults for them (a kind is looked up in its group; an
    /// unknown group is "not served"), and it keeps a small evaluation from copying a
    /// hundred-row table. Returns it and, per object of it (by index), the world UID.
    pub fn mini(&self, uids: &[Sym]) -> (Snapshot, Vec<Sym>) {
        self.mini_with(uids, None)
    }

    /// [`World::mini`] plus one object the world does not hold (`kubectl gc admit`'s object
    /// as a write request would leave it), added last under resource row `extra.0`; its
    /// resource's and references' groups count as reached. It has no world UID: the returned
    /// list covers the held objects only.
    pub fn mini_with(
        &self,
        uids: &[Sym],
        extra: Option<(ResourceId, &MetaIn<'_>)>,
    ) -> (Snapshot, Vec<Sym>) {
        let mut views: Vec<View<'_>> = uids.iter().filter_map(|&u| self.get(u)).collect();
        // The order a full snapshot has (resource, namespace, name): which dependent is "first"
        // for a virtual owner depends on it.
        views.sort_by(|a, b| {
            (a.resource, self.str(a.namespace), self.str(a.name)).cmp(&(
                b.resource,
                self.str(b.namespace),
                self.str(b.name),
            ))
        });
        let rows = &self.snap.resources;
        let mut groups: HashSet<&str> = HashSet::new();
        for v in &views {
            if let Some(r) = rows.get(v.resource.index()) {
                groups.insert(r.group.as_str());
            }
            for r in v.owner_refs {
                if let Some((g, _)) = crate::snapshot::split_api_version(self.str(r.api_version)) {
                    groups.insert(g);
                }
            }
        }
        if let Some((resource, meta)) = extra {
            if let Some(r) = rows.get(resource.index()) {
                groups.insert(r.group.as_str());
            }
            for r in &meta.owner_references {
                if let Some((g, _)) = crate::snapshot::split_api_version(&r.api_version) {
                    groups.insert(g);
                }
            }
        }
        let mut b = SnapshotBuilder::new(crate::snapshot::Provenance {
            captured_at: crate::snapshot::now_rfc3339(),
            ..self.snap.provenance.clone()
        });
        let mut remap: Vec<Option<ResourceId>> = vec![None; rows.len()];
        for (i, r) in rows.iter().enumerate() {
            if groups.contains(r.group.as_str()) {
                remap[i] = Some(b.add_resource(Resource {
                    // Only discovery reads the verbs.
                    verbs: Vec::new(),
                    ..r.clone()
                }));
            }
        }
        for f in &self.snap.discovery_failures {
            b.discovery_failure(f.group_version.clone(), f.message.clone());
        }
        let mut to_world = Vec::with_capacity(views.len());
        for v in &views {
            let Some(resource) = remap.get(v.resource.index()).copied().flatten() else {
                continue;
            };
            b.add_object(resource, &self.meta_of(v));
            // Objects are added in this order and UIDs are unique: object i is this one.
            to_world.push(v.uid);
        }
        if let Some((resource, meta)) = extra
            && let Some(resource) = remap.get(resource.index()).copied().flatten()
        {
            b.add_object(resource, meta);
        }
        (b.finish(), to_world)
    }
}

/// True when nothing the GC (or a finding) reads differs: the resourceVersion alone, or
/// labels and other fields the watch does not keep, changed.
fn same_for_the_gc(a: &Entry, b: &Entry) -> bool {
    a.namespace == b.namespace
        && a.name == b.name
        && a.deletion_timestamp == b.deletion_timestamp
        && a.ignore == b.ignore
        && a.finalizers == b.finalizers
        && a.owner_refs == b.owner_refs
}
