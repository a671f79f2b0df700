//! The worker side of one item: `attemptToDeleteItem`'s GET of the item (rows 2–6), the owner
//! GETs of `isDangling` one reference at a time, the decision of rows 8–10 (§3.2), and
//! attemptToOrphan's patches (§4). What a decision sends is applied by [`super::api_server`].

use super::{Item, Kind, Phase, Sim};
use crate::catalog::version::Change;
use crate::gc::GarbageCollector;
use crate::gc::attempt_to_delete::Policy;
use crate::gc::classify::RefClass;
use crate::gc::graph::Identity;
use crate::gc::graph_builder::{Enqueued, Queue, VisitCause};
use crate::gc::plan::{Action, Reason, Verb};
use crate::gc::rest_mapper::Mapping;
use crate::model::{ObjId, OwnerRef, Sym};
use hashbrown::HashSet;

impl Sim<'_, '_> {
    /// One read per item in a read phase.
    pub(super) fn reads(&mut self, items: &mut [Item]) {
        for it in items.iter_mut() {
            match it.phase.clone() {
                Phase::Get if it.kind == Kind::Delete => self.get_item(it),
                Phase::Classify => self.classify_next(it),
                Phase::FinalizerGet(f) => {
                    // removeFinalizer: GET by identity, no UID comparison [quirk].
                    let found = it.target.filter(|&t| self.state.exists(t));
                    match found {
                        Some(t) => {
                            self.mark_read(t, it);
                            if self.state.has_finalizer(self.store(), t, f) {
                                it.phase = Phase::FinalizerPatch(f);
                            } else {
                                it.phase = Phase::Done;
                            }
                        }
                        None => it.phase = Phase::Done,
                    }
                }
                _ => {}
            }
        }
    }

    /// attemptToDeleteItem's GET of the item (rows 2–4), then what the object says (rows 5, 6).
    fn get_item(&mut self, it: &mut Item) {
        let gc = self.gc;
        let store = self.store();
        let found = self.lookup_identity(&it.identity);
        let target = match found {
            Lookup::Found(t) => t,
            Lookup::Absent => {
                // Rows 3/4: queue a virtual delete event.
                self.graph.chain = it.chain;
                self.graph.virtual_delete(gc, &self.state, it.identity);
                it.phase = Phase::Done;
                return;
            }
            Lookup::Stuck(why) => {
                if let Some(o) = store.by_uid(it.identity.uid) {
                    self.stuck.entry(o).or_insert(why);
                }
                it.phase = Phase::Done;
                return;
            }
        };
        self.mark_read(target, it);
        it.target = Some(target);
        self.evaluated[target.index()] = true;
        if self.record_visits {
            self.visits.entry(target).or_insert(it.cause);
        }
        let node = self.graph.node(it.node);
        // Row 5: processDeletingDependentsItem (§3.5), from the graph.
        if node.deleting_dependents() && !it.virtual_item {
            let blocking = self.graph.blocking_dependents(gc, &self.state, it.node);
            if blocking.is_empty() {
                it.phase = Phase::FinalizerGet(self.state.foreground_sym());
            } else {
                let mut seen = HashSet::new();
                for d in blocking {
                    if !seen.insert(d) {
                        continue;
                    }
                    if let Some(dn) = self.graph.uid_to_node(store.object(d).uid)
                        && !self.graph.node(dn).deleting_dependents()
                    {
                        self.graph.queued.push(Enqueued {
                            queue: Queue::AttemptToDelete,
                            node: dn,
                            cause: VisitCause::BlockingDependent { owner: target },
                            chain: it.chain,
                        });
                    }
                }
                it.phase = Phase::Done;
            }
            return;
        }
        it.refs = self.state.owner_refs(store, target).to_vec();
        it.finalizers = self.state.finalizers(store, target).to_vec();
        // Row 6.
        if it.refs.is_empty() {
            it.phase = Phase::Done;
            return;
        }
        it.phase = Phase::Classify;
        it.next = 0;
        // References that need no request are classified at once (absent-cache hits,
        // mapping errors): the next GET, if any, is the next step's.
        self.classify_free(it);
    }

    /// Classifies the item's references that need no round trip, stopping at the first one
    /// that does (or at an error).
    fn classify_free(&mut self, it: &mut Item) {
        while it.next < it.refs.len() {
            let r = it.refs[it.next];
            let target = it.target.expect("classifying a found item");
            if !self.needs_request(target, &r) {
                let class = self.gc.classify_reference(&self.state, target, &r);
                if self.record_class(it, class) {
                    return;
                }
                continue;
            }
            return;
        }
        self.decide(it);
    }

    /// Whether `isDangling` sends a GET for this reference (not for absent-cache hits before
    /// v1.20, REST-mapping failures, or a cluster-scoped dependent of a namespaced kind).
    fn needs_request(&self, dependent: ObjId, r: &OwnerRef) -> bool {
        let gc = self.gc;
        if !gc.rules.version.has(Change::CoordinateAwareGraph)
            && self.state.absent_owner_cached(r.uid)
        {
            return false;
        }
        match gc.rest_mapper.map(gc.snap, r.api_version, r.kind) {
            Mapping::Unresolvable(_) | Mapping::Unknown(_) => false,
            Mapping::Resolved(gr) => {
                !(gc.rest_mapper.gr(gr).namespaced
                    && self.store().object(dependent).namespace.is_empty()
                    && gc.rules.version.has(Change::CoordinateAwareGraph))
            }
            Mapping::Unlisted { namespaced, .. } | Mapping::Phantom { namespaced } => {
                !(namespaced
                    && self.store().object(dependent).namespace.is_empty()
                    && gc.rules.version.has(Change::CoordinateAwareGraph))
            }
        }
    }

    /// Records one class; true when classification stopped (an error, or the item is done).
    fn record_class(&mut self, it: &mut Item, class: RefClass) -> bool {
        let r = it.refs[it.next];
        if matches!(class, RefClass::Dangling(_))
            && !self.gc.rules.version.has(Change::CoordinateAwareGraph)
        {
            self.state.add_absent_owner(r.uid);
        }
        if class.is_error() {
            let target = it.target.expect("found");
            let why = match &class {
                RefClass::InvalidScope => {
                    "cluster-scoped objects cannot refer to namespaced owners (dropped by the GC, never collected)".to_owned()
                }
                RefClass::Unresolvable { reason } => format!(
                    "unable to get REST mapping: {reason} (retried by the GC forever, never collected)"
                ),
                RefClass::Unrequestable { reason } => {
                    format!("{reason} (retried by the GC forever, never collected)")
                }
                _ => String::new(),
            };
            self.stuck.entry(target).or_insert(why);
            it.phase = Phase::Done;
            return true;
        }
        it.classes.push(class);
        it.next += 1;
        false
    }

    fn classify_next(&mut self, it: &mut Item) {
        let target = it.target.expect("found");
        let r = it.refs[it.next];
        let owner = self.owner_read(target, &r);
        if self.stalls(it, owner, false) {
            return;
        }
        // The GET of the owner this step.
        if let Some(owner) = owner {
            self.mark_owner_get(owner, it);
        }
        let class = self.gc.classify_reference(&self.state, target, &r);
        if self.record_class(it, class) {
            return;
        }
        self.classify_free(it);
    }

    /// The object the owner GET of `r` reads, for race detection.
    fn owner_read(&self, dependent: ObjId, r: &OwnerRef) -> Option<ObjId> {
        let _ = dependent;
        self.store().by_uid(r.uid)
    }

    /// Rows 8–10 from the references as classified (§3.2).
    fn decide(&mut self, it: &mut Item) {
        let gc = self.gc;
        let store = self.store();
        let target = it.target.expect("found");
        let (mut solid, mut dangling, mut waiting, mut unknown) =
            (0usize, Vec::new(), Vec::new(), None::<String>);
        for (r, c) in it.refs.iter().zip(&it.classes) {
            match c {
                RefClass::Solid { .. } => solid += 1,
                RefClass::Dangling(_) => dangling.push(r.uid),
                RefClass::Waiting { .. } => waiting.push(r.uid),
                RefClass::Unknown { reason } => {
                    unknown.get_or_insert_with(|| reason.clone());
                }
                _ => {}
            }
        }
        it.writes.clear();
        if solid > 0 {
            if dangling.is_empty() && waiting.is_empty() {
                it.phase = Phase::Done;
                return;
            }
            let mut uids = dangling;
            uids.extend(waiting);
            let detail = format!(
                "has a solid owner; removing dangling/waiting references {}",
                describe_refs(gc, &it.refs, &uids)
            );
            it.writes.push(Action {
                wave: 0,
                verb: Verb::RemoveOwnerReferences,
                target,
                policy: None,
                owner_refs: uids,
                finalizer: None,
                reason: Reason::StripDanglingAndWaiting,
                detail,
            });
            it.phase = Phase::Write;
            return;
        }
        if let Some(reason) = unknown {
            self.stuck
                .entry(target)
                .or_insert_with(|| format!("unknown: {reason}"));
            it.phase = Phase::Done;
            return;
        }
        let all: Vec<Sym> = it.refs.iter().map(|r| r.uid).collect();
        // Row 9: a waiting owner and dependents of its own: foreground, maybe unblocking first.
        if !waiting.is_empty() && self.graph.has_dependents(gc, &self.state, it.node) {
            let deps = self.graph.dependents(gc, &self.state, it.node);
            let cycle = deps.iter().any(|&d| {
                self.graph
                    .uid_to_node(store.object(d).uid)
                    .is_some_and(|n| self.graph.node(n).deleting_dependents())
            });
            let blocking: Vec<Sym> = it
                .refs
                .iter()
                .filter(|r| r.blocks())
                .map(|r| r.uid)
                .collect();
            if cycle && !blocking.is_empty() {
                it.writes.push(Action {
                    wave: 0,
                    verb: Verb::UnblockOwnerReferences,
                    target,
                    policy: None,
                    owner_refs: blocking,
                    finalizer: None,
                    reason: Reason::CycleGuard,
                    detail: "a dependent is itself deleting dependents (ownership cycle guard)"
                        .into(),
                });
            }
            it.writes.push(Action {
                wave: 0,
                verb: Verb::Delete,
                target,
                policy: Some(Policy::Foreground),
                owner_refs: vec![],
                finalizer: None,
                reason: Reason::ForegroundForWaitingOwner,
                detail: format!(
                    "no solid owner; owner in foreground deletion and it has dependents: {}",
                    describe_refs(gc, &it.refs, &all)
                ),
            });
            it.phase = Phase::Write;
            return;
        }
        // Row 10: the item's own finalizers choose the policy.
        let policy = if it.finalizers.contains(&self.state.orphan_sym()) {
            Policy::Orphan
        } else if it.finalizers.contains(&self.state.foreground_sym()) {
            Policy::Foreground
        } else {
            Policy::Background
        };
        it.writes.push(Action {
            wave: 0,
            verb: Verb::Delete,
            target,
            policy: Some(policy),
            owner_refs: vec![],
            finalizer: None,
            reason: Reason::NoSolidOwner,
            detail: format!("no solid owner left: {}", describe_refs(gc, &it.refs, &all)),
        });
        it.phase = Phase::Write;
    }

    /// attemptToOrphan's patches: one per dependent in the graph's set (§4).
    pub(super) fn orphan_patches(&mut self, it: &mut Item) -> Vec<Action> {
        let gc = self.gc;
        let Some(owner) = self.graph.object(gc, it.node) else {
            it.phase = Phase::Done;
            return Vec::new();
        };
        it.target = Some(owner);
        if self.record_visits {
            self.visits.entry(owner).or_insert(it.cause);
        }
        let step = self.step;
        self.graph
            .dependents(gc, &self.state, it.node)
            .into_iter()
            .map(|d| gc.orphan_patch(owner, d, step))
            .collect()
    }

    /// Looks an identity up the way the item's GET does.
    fn lookup_identity(&self, id: &Identity) -> Lookup {
        let gc = self.gc;
        let store = self.store();
        // An observed node: its object.
        if let Some(o) = store.by_uid(id.uid)
            && gc.graph.monitors(o)
            && gc.graph.node(gc.graph.node_of_object(o)).id == *id
        {
            return if self.state.exists(o) {
                Lookup::Found(o)
            } else {
                Lookup::Absent
            };
        }
        match gc.get_by_identity(&self.state, id) {
            crate::gc::classify::GetResult::Found(o) => Lookup::Found(o),
            crate::gc::classify::GetResult::NotFound(_) => Lookup::Absent,
            crate::gc::classify::GetResult::Error(why) => {
                Lookup::Stuck(format!("{why} (retried by the GC forever)"))
            }
            crate::gc::classify::GetResult::Unknown(why) => {
                Lookup::Stuck(format!("unknown: {why}"))
            }
        }
    }
}

enum Lookup {
    Found(ObjId),
    Absent,
    Stuck(String),
}

fn describe_refs(gc: &GarbageCollector<'_>, refs: &[OwnerRef], uids: &[Sym]) -> String {
    let store = &gc.snap.store;
    uids.iter()
        .filter_map(|u| refs.iter().find(|r| r.uid == *u))
        .map(|r| {
            format!(
                "{}/{} ({})",
                store.str(r.kind),
                store.str(r.name),
                store.str(r.uid)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}
