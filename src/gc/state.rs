//! The mutable view of the cluster that the GC's decisions read: which objects exist, which are
//! terminating, their current finalizers and ownerReferences. The audit reads it as captured;
//! the plan mutates it to simulate the GC's consequences wave after wave (Appendix D.5).
//! Only changed objects carry overrides, so the initial state costs two bytes per object.

use crate::model::{ObjId, OwnerRef, Store, Sym, finalizers};
use hashbrown::HashMap;

const EXISTS: u8 = 1;
const BEING_DELETED: u8 = 2;
/// The graph's `deletingDependents` flag: set once the object is seen terminating with
/// `foregroundDeletion`, never cleared (§1.2), even after the finalizer is removed.
const DELETING_DEPENDENTS: u8 = 4;

/// Current state of every object.
#[derive(Clone, Debug)]
pub struct State {
    flags: Vec<u8>,
    finalizers: HashMap<ObjId, Vec<Sym>>,
    refs: HashMap<ObjId, Vec<OwnerRef>>,
    /// Upstream's `absentOwnerCache`: owner UIDs the GC has recorded as absent. Only consulted
    /// before v1.20, where the cache is keyed by UID alone and a hit makes *every* reference to
    /// the UID dangling (§1.3); since v1.20 it is keyed by full coordinates and only saves a GET.
    absent_owner_cache: hashbrown::HashSet<Sym>,
    foreground: Sym,
    orphan: Sym,
}

impl State {
    /// The state as captured. (The GC finalizer names are interned by `Snapshot::reindex`.)
    pub fn new(store: &Store) -> State {
        let sym = |name| {
            store
                .strings
                .get(name)
                .expect("Snapshot::reindex interns GC finalizers")
        };
        let foreground = sym(finalizers::FOREGROUND);
        let orphan = sym(finalizers::ORPHAN);
        let flags = store
            .ids()
            .map(|id| {
                if !store.object(id).being_deleted() {
                    EXISTS
                } else if store.finalizers(id).contains(&foreground) {
                    EXISTS | BEING_DELETED | DELETING_DEPENDENTS
                } else {
                    EXISTS | BEING_DELETED
                }
            })
            .collect();
        State {
            flags,
            finalizers: HashMap::new(),
            refs: HashMap::new(),
            absent_owner_cache: hashbrown::HashSet::new(),
            foreground,
            orphan,
        }
    }

    /// The object still exists.
    pub fn exists(&self, id: ObjId) -> bool {
        self.flags[id.index()] & EXISTS != 0
    }

    /// The object has a deletionTimestamp.
    pub fn being_deleted(&self, id: ObjId) -> bool {
        self.flags[id.index()] & BEING_DELETED != 0
    }

    /// Current finalizers.
    pub fn finalizers<'a>(&'a self, store: &'a Store, id: ObjId) -> &'a [Sym] {
        match self.finalizers.get(&id) {
            Some(f) => f,
            None => store.finalizers(id),
        }
    }

    /// Current ownerReferences.
    pub fn owner_refs<'a>(&'a self, store: &'a Store, id: ObjId) -> &'a [OwnerRef] {
        match self.refs.get(&id) {
            Some(r) => r,
            None => store.owner_refs(id),
        }
    }

    /// Has finalizer `f`.
    pub fn has_finalizer(&self, store: &Store, id: ObjId, f: Sym) -> bool {
        self.finalizers(store, id).contains(&f)
    }

    /// Terminating with `foregroundDeletion` (the GC's `deletingDependents`; also what makes
    /// a reference to it "waiting", §3.4).
    pub fn deleting_dependents(&self, store: &Store, id: ObjId) -> bool {
        self.being_deleted(id) && self.has_finalizer(store, id, self.foreground)
    }

    /// The GC graph's `deletingDependents` flag (§1.2): the object has been seen terminating with
    /// `foregroundDeletion`, whether or not the finalizer is still there. One-way, as upstream;
    /// the cycle guard of attemptToDeleteItem (§3.2 row 9) reads this, while reference
    /// classification (§3.4) reads the live finalizers ([`State::deleting_dependents`]).
    pub fn graph_deleting_dependents(&self, id: ObjId) -> bool {
        self.flags[id.index()] & DELETING_DEPENDENTS != 0
    }

    /// Terminating with `orphan` (the GC's attemptToOrphan work).
    pub fn orphaning(&self, store: &Store, id: ObjId) -> bool {
        self.being_deleted(id) && self.has_finalizer(store, id, self.orphan)
    }

    /// The `foregroundDeletion` symbol.
    pub fn foreground_sym(&self) -> Sym {
        self.foreground
    }

    /// The `orphan` symbol.
    pub fn orphan_sym(&self) -> Sym {
        self.orphan
    }

    /// Marks the object gone.
    pub fn remove(&mut self, id: ObjId) {
        self.flags[id.index()] &= !EXISTS;
    }

    /// Marks the object terminating with these finalizers.
    pub fn start_deletion(&mut self, id: ObjId, finalizers: Vec<Sym>) {
        self.flags[id.index()] |= BEING_DELETED;
        if finalizers.contains(&self.foreground) {
            self.flags[id.index()] |= DELETING_DEPENDENTS;
        }
        self.finalizers.insert(id, finalizers);
    }

    /// Replaces the finalizers.
    pub fn set_finalizers(&mut self, id: ObjId, finalizers: Vec<Sym>) {
        self.finalizers.insert(id, finalizers);
    }

    /// Replaces the ownerReferences.
    pub fn set_owner_refs(&mut self, id: ObjId, refs: Vec<OwnerRef>) {
        self.refs.insert(id, refs);
    }

    /// `absentOwnerCache.Add`, keyed by UID as before v1.20.
    pub fn add_absent_owner(&mut self, uid: Sym) {
        self.absent_owner_cache.insert(uid);
    }

    /// `absentOwnerCache.Has`, keyed by UID as before v1.20.
    pub fn absent_owner_cached(&self, uid: Sym) -> bool {
        self.absent_owner_cache.contains(&uid)
    }
}
