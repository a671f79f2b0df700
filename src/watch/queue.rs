//! What the *running* GC puts on its work queues when an event arrives: the difference
//! between "the GC acts on this now" and "only a restarted GC will" (the incident's case: a
//! reference the running GC never re-checks).
//!
//! The GC looks at an object only when an event (or a worker) puts it on a queue (gc-model
//! §2.10); a finding whose object nobody enqueues waits for the next start, when the initial
//! lists enqueue what §6.22 lists. [`RunningGc`] answers, for one change seen by the watch,
//! which objects the running GC's graph builder enqueues for `attemptToDelete` and
//! `attemptToOrphan`. The engine then evaluates them with the GC's own decision table
//! ([`crate::gc`]): an object enqueued whose verdict is an action is acted on *now*.
//!
//! [`QueueRules`] is the rule table of §2.10 applied to the watch's world (UIDs, not the GC's
//! node pointers): it is the interface an event-driven graph builder in `gc` can take over
//! (virtual-node identities, the absent-owner cache, clones), without the engine changing.

use super::world::{Change, Entry, World};
use crate::catalog::KubeVersion;
use crate::gc::Rules;
use crate::model::Sym;
use hashbrown::HashSet;

/// What the running GC's graph builder enqueued.
#[derive(Debug, Default, Clone)]
pub struct Enqueued {
    /// Objects put on `attemptToDelete` (UIDs).
    pub attempt_to_delete: HashSet<Sym>,
    /// Objects put on `attemptToOrphan` (UIDs).
    pub attempt_to_orphan: HashSet<Sym>,
    /// Objects whose update changed a reference's coordinates in place (same UID), which the
    /// graph builder does not link again (§2.8): nothing is enqueued for it (UIDs).
    pub edited_in_place: HashSet<Sym>,
}

impl Enqueued {
    /// True when nothing was enqueued.
    pub fn is_empty(&self) -> bool {
        self.attempt_to_delete.is_empty() && self.attempt_to_orphan.is_empty()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.attempt_to_delete.clear();
        self.attempt_to_orphan.clear();
        self.edited_in_place.clear();
    }
}

/// The running GC's reaction to the changes the watch sees.
pub trait RunningGc: Send {
    /// One change (`world` is already updated): adds what it enqueues to `out`.
    fn observe(&mut self, world: &World, change: &Change, out: &mut Enqueued);
}

/// §2.10's enqueue rules for GC release `version`, on the watch's world.
#[derive(Debug, Clone, Copy)]
pub struct QueueRules {
    rules: Rules,
}

impl QueueRules {
    /// The rules of a GC release.
    pub fn new(version: KubeVersion) -> Self {
        QueueRules {
            rules: Rules::new(version),
        }
    }

    /// `addDependentToOwners` (§2.6, §1.5 path 1) for `refs` of `dep`: a reference to a UID no
    /// object holds makes a virtual owner, which a worker verifies at once — when it is absent,
    /// the dependent is enqueued; a reference that disagrees with the owner the graph holds
    /// (another namespace, other coordinates; v1.20+) enqueues the dependent directly.
    fn link(
        &self,
        world: &World,
        dep: &Entry,
        refs: &[crate::model::OwnerRef],
        out: &mut Enqueued,
    ) {
        for r in refs {
            match world.get(r.uid) {
                None => {
                    // A virtual owner: verified by GET with this reference's coordinates.
                    out.attempt_to_delete.insert(dep.uid);
                }
                Some(owner) if self.rules.emits_invalid_namespace_events() => {
                    let owner_ns = owner.namespace;
                    let res = &world.resources()[owner.resource.index()];
                    let coordinates_differ = world.str(r.api_version) != res.api_version()
                        || world.str(r.kind) != res.kind
                        || r.name != owner.name;
                    if (!owner_ns.is_empty() && owner_ns != dep.namespace) || coordinates_differ {
                        out.attempt_to_delete.insert(dep.uid);
                        // One problem per dependent is enough (later refs are not checked).
                        return;
                    }
                }
                Some(_) => {}
            }
        }
    }

    /// `processTransitions` (§2.7): a deletion starting with `orphan` or `foregroundDeletion`.
    fn transitions(&self, world: &World, old: Option<&Entry>, new: &Entry, out: &mut Enqueued) {
        if !new.being_deleted() {
            return;
        }
        let starts = |f: Option<Sym>| {
            let Some(f) = f else { return false };
            new.finalizers.contains(&f)
                && old.is_none_or(|o| !o.being_deleted() || !o.finalizers.contains(&f))
        };
        if starts(world.sym(crate::model::finalizers::ORPHAN)) {
            out.attempt_to_orphan.insert(new.uid);
            return;
        }
        if starts(world.sym(crate::model::finalizers::FOREGROUND)) {
            out.attempt_to_delete.insert(new.uid);
            out.attempt_to_delete
                .extend(world.dependents(new.uid).iter().copied());
        }
    }
}

impl RunningGc for QueueRules {
    fn observe(&mut self, world: &World, change: &Change, out: &mut Enqueued) {
        match (&change.old, &change.new) {
            // Add (B1): link every reference, then the transitions.
            (None, Some(new)) => {
                self.link(world, new, &new.owner_refs, out);
                self.transitions(world, None, new, out);
            }
            // Update (B2): added references are linked; removed or unblocked blocking ones
            // re-queue their owner (§2.9); then the transitions.
            (Some(old), Some(new)) => {
                let (added, removed, changed) = references_diffs(&old.owner_refs, &new.owner_refs);
                self.link(world, new, &added, out);
                for r in &removed {
                    if r.blocks() && world.get(r.uid).is_some() {
                        out.attempt_to_delete.insert(r.uid);
                    }
                }
                for (o, n) in &changed {
                    if o.blocks() && !n.blocks() && world.get(n.uid).is_some() {
                        out.attempt_to_delete.insert(n.uid);
                    }
                    if (o.api_version, o.kind, o.name) != (n.api_version, n.kind, n.name) {
                        out.edited_in_place.insert(new.uid);
                    }
                }
                self.transitions(world, Some(old), new, out);
            }
            // Delete (B4): every dependent, and owners in foreground deletion.
            (Some(old), None) => {
                out.attempt_to_delete
                    .extend(world.dependents(old.uid).iter().copied());
                let fg = world.sym(crate::model::finalizers::FOREGROUND);
                for r in old.owner_refs.iter() {
                    if let Some(owner) = world.get(r.uid)
                        && owner.being_deleted()
                        && fg.is_some_and(|f| owner.finalizers.contains(&f))
                    {
                        out.attempt_to_delete.insert(r.uid);
                    }
                }
            }
            (None, None) => {}
        }
    }
}

/// `referencesDiffs` (§2.8), the graph builder's own: what an update event changed.
pub use crate::gc::graph_builder::references_diffs;
