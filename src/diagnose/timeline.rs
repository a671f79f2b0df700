//! *When* the GC acts on an object: decided once, here, from the GC's event semantics, and
//! rendered by every view (`why`, `collect`, `audit`, `check restart`, `watch`, `admit`).
//!
//! The running GC looks at an object only when an event puts it on a work queue (gc-model
//! §2.10): the object or one of its owners is written or deleted, or a deletion in progress
//! makes a worker come back to it. A start replays every object as an add event and enqueues
//! what §6.22 lists. So the same broken reference is acted on at different moments depending
//! on how it came to be, and the input tells which:
//!
//! * a reference **written** broken (a manifest `check apply` judges, a review `admit` answers,
//!   a change `watch` sees enqueued) is acted on at once ([`Reason::Written`]);
//! * a **deletion in progress** (an owner being deleted in the foreground, an orphaning, a
//!   terminating object or namespace) is being worked through now ([`Reason::InFlight`]), and
//!   what it cascades to follows it;
//! * a break the running GC acts on when it is written (v1.20+: a reference to an owner in
//!   another namespace or at other coordinates, §1.5) that **sits** in a cluster or a snapshot
//!   has evidently not been seen that way — written before 1.20, edited in place (a changed
//!   reference is not re-checked, §2.8), or written while the GC was down: only the next start
//!   acts on it ([`Reason::Sitting`]; before 1.20 the running GC never checks it,
//!   [`Reason::NotRechecked`]);
//! * a reference whose owner's UID names nothing cannot tell: the owner may have been deleted
//!   moments ago (its delete event enqueued the dependent: the GC is working through it), or
//!   while nothing saw it (then a start acts). Both are said ([`When::NowOrRestart`],
//!   [`Reason::OwnerGone`]).
//!
//! A snapshot supplies "nothing was written just now" (an empty `written`); `watch` supplies
//! what the running GC's graph builder enqueued for the changes it saw, and `check apply` the
//! objects of the manifests. What the GC does (the end state) comes from the plans; this module
//! only says when.

use crate::gc::plan::{Alternative, EndState, Plan, Verb};
use crate::gc::{GarbageCollector, RefClass, State, Verdict};
use crate::model::ObjId;
use serde::{Deserialize, Serialize};
use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeSet, HashMap};

/// When the GC acts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum When {
    /// The running GC has it on a work queue (or is working through a deletion that reaches
    /// it) and acts on it at once.
    Now,
    /// Only a GC that starts on this state acts: the next kube-controller-manager restart or
    /// leader change.
    Restart,
    /// The input cannot tell: now if the running GC saw what broke it, else at the next
    /// restart.
    NowOrRestart,
    /// Now if the running GC saw what broke it; else never (a start does not reach it).
    NowOrNever,
    /// The GC never acts on it (stuck, or it never looks at it).
    Never,
    /// It cannot be told: something it depends on could not be read.
    Unknown,
}

impl When {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            When::Now => "now",
            When::Restart => "restart",
            When::NowOrRestart => "now-or-restart",
            When::NowOrNever => "now-or-never",
            When::Never => "never",
            When::Unknown => "unknown",
        }
    }

    /// The few words a table cell or a watch line uses.
    pub fn words(self) -> &'static str {
        match self {
            When::Now => "now",
            When::Restart => "at its next restart",
            When::NowOrRestart => "now, or at its next restart",
            When::NowOrNever => "now, or never",
            When::Never => "never",
            When::Unknown => "unknown",
        }
    }

    /// The word of a table cell: `now`, `restart`, `now or restart`, `now or never`, …
    pub fn short(self) -> &'static str {
        match self {
            When::NowOrRestart => "now or restart",
            When::NowOrNever => "now or never",
            w => w.as_str(),
        }
    }

    /// A restart is what makes the GC act (alone, or as one of the two cases).
    pub fn waits_for_restart(self) -> bool {
        matches!(self, When::Restart | When::NowOrRestart)
    }
}

/// Why the GC acts at that moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The write that made the reference broken (or deleted its owner) put the object on the
    /// running GC's queue.
    Written,
    /// A deletion in progress: the running GC is working through it.
    InFlight,
    /// Its owner's UID names nothing: deleted moments ago (the running GC works through it),
    /// or while the GC did not see it (then only a start acts).
    OwnerGone,
    /// A break the running GC acts on when it is written sits unacted on: written before
    /// 1.20, edited in place, or while the GC was down.
    Sitting,
    /// The reference was just changed in place (same UID): the running GC does not re-check a
    /// changed reference (`referencesDiffs`), a start does.
    EditedInPlace,
    /// Before 1.20 the running GC never checks a reference against its owner's namespace and
    /// coordinates; a start may act, depending on the order its informers deliver objects.
    NotRechecked,
    /// Only what a start enqueues reaches it (gc-model §6.22).
    StartOnly,
    /// Its decision table would act, but nothing puts it on a queue: the running GC does not
    /// check the reference again, and a start does not reach it either.
    Unreached,
}

impl Reason {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Written => "written",
            Reason::InFlight => "in-flight",
            Reason::OwnerGone => "owner-gone",
            Reason::Sitting => "sitting",
            Reason::EditedInPlace => "edited-in-place",
            Reason::NotRechecked => "not-rechecked",
            Reason::StartOnly => "start-only",
            Reason::Unreached => "unreached",
        }
    }

    /// One clause for people: why the GC acts when it does.
    pub fn words(self) -> &'static str {
        match self {
            Reason::Written => {
                "the write that broke the reference put the object on the running GC's work \
                 queue"
            }
            Reason::InFlight => {
                "a deletion is in progress, and the running GC is working through it"
            }
            Reason::OwnerGone => {
                "its owner is gone: if it was deleted moments ago, the running GC is working \
                 through its dependents now; if the GC did not see the deletion (it was down), \
                 only a start acts"
            }
            Reason::Sitting => {
                "the running GC checks such a reference only when it is written, so one that \
                 sits in the cluster (written before 1.20, edited in place, or while the GC was \
                 down) waits for the next start"
            }
            Reason::EditedInPlace => {
                "the reference was edited in place, and the running GC does not re-check a \
                 changed reference; only the next start does"
            }
            Reason::NotRechecked => {
                "before 1.20 the running GC never checks a reference against its owner's \
                 namespace and coordinates; only a start may act on it"
            }
            Reason::StartOnly => "only what a starting GC enqueues reaches it",
            Reason::Unreached => {
                "nothing puts it on the GC's queues: the running GC does not check the \
                 reference again, and a starting GC does not reach it"
            }
        }
    }
}

/// When the GC acts on one object, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// When.
    pub when: When,
    /// Why then (`None`: nothing to explain, e.g. never).
    pub reason: Option<Reason>,
    /// In a cascade: the owner whose deletion the GC's action follows (its timing is this
    /// one's).
    pub after: Option<ObjId>,
}

impl Timing {
    /// A timing with its reason.
    pub fn new(when: When, reason: Option<Reason>) -> Timing {
        Timing {
            when,
            reason,
            after: None,
        }
    }

    /// The GC never acts.
    pub fn never() -> Timing {
        Timing::new(When::Never, None)
    }

    /// See [`clause`].
    pub fn clause(&self) -> &'static str {
        clause(self.when, self.reason)
    }

    /// See [`because`].
    pub fn because(&self) -> String {
        because(self.when, self.reason)
    }
}

/// The clause that ends a sentence about what the GC does, with a leading space: ` at once`,
/// ` now`, ` at the next kube-controller-manager restart`, … (empty for unknown).
pub fn clause(when: When, reason: Option<Reason>) -> &'static str {
    match when {
        When::Now if reason == Some(Reason::Written) => " at once",
        When::Now => " now",
        When::Restart => " at the next kube-controller-manager restart",
        When::NowOrRestart => " now, or at the next restart if the GC missed the owner's deletion",
        When::NowOrNever => " now, or never if the GC missed the owner's deletion",
        When::Never => " never",
        When::Unknown => "",
    }
}

/// Why not sooner, where a restart is what acts: `; ` and the reason (else empty). The
/// reasons of the other timings are in their clause already.
pub fn because(when: When, reason: Option<Reason>) -> String {
    match (when, reason) {
        (
            When::Restart,
            Some(
                r @ (Reason::Sitting
                | Reason::EditedInPlace
                | Reason::NotRechecked
                | Reason::StartOnly),
            ),
        ) => format!("; {}", r.words()),
        (When::Never, Some(r @ Reason::Unreached)) => format!("; {}", r.words()),
        _ => String::new(),
    }
}

/// The timing of every object of a snapshot, computed on demand from the two plans.
pub struct Timeline<'p, 'g, 'a> {
    gc: &'g GarbageCollector<'a>,
    steady: &'p Plan,
    restart: &'p Plan,
    written: BTreeSet<ObjId>,
    /// Per object the steady plan acts on: the wave of its first request, and of its delete.
    steady_acts: HashMap<ObjId, (u32, Option<u32>)>,
    /// Objects a start sends a request about.
    restart_targets: BTreeSet<ObjId>,
    initial: OnceCell<State>,
    memo: RefCell<HashMap<ObjId, Timing>>,
}

impl std::fmt::Debug for Timeline<'_, '_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Timeline")
            .field("written", &self.written.len())
            .finish_non_exhaustive()
    }
}

impl<'p, 'g, 'a> Timeline<'p, 'g, 'a> {
    /// The timeline of the running GC's steady state (`steady`) and of a start (`restart`),
    /// where the running GC was just handed `written` (empty for a snapshot: nothing was
    /// written just now).
    pub fn new(
        gc: &'g GarbageCollector<'a>,
        steady: &'p Plan,
        restart: &'p Plan,
        written: impl IntoIterator<Item = ObjId>,
    ) -> Self {
        let mut steady_acts: HashMap<ObjId, (u32, Option<u32>)> = HashMap::new();
        for a in &steady.actions {
            let e = steady_acts.entry(a.target).or_insert((a.wave, None));
            if a.verb == Verb::Delete && e.1.is_none() {
                e.1 = Some(a.wave);
            }
        }
        Timeline {
            gc,
            steady,
            restart,
            written: written.into_iter().collect(),
            steady_acts,
            restart_targets: restart.actions.iter().map(|a| a.target).collect(),
            initial: OnceCell::new(),
            memo: RefCell::new(HashMap::new()),
        }
    }

    /// The state as captured (made once, when a reference first needs classifying).
    fn initial(&self) -> &State {
        self.initial.get_or_init(|| self.gc.initial_state())
    }

    /// When the GC acts on `id` (its own end state is the steady plan's).
    pub fn timing(&self, id: ObjId) -> Timing {
        if let Some(t) = self.memo.borrow().get(&id) {
            return *t;
        }
        let t = self.compute(id);
        self.memo.borrow_mut().insert(id, t);
        t
    }

    fn compute(&self, id: ObjId) -> Timing {
        let (state, _, alternatives) = end_state(self.gc, self.steady, id);
        let (first, delete) = match self.steady_acts.get(&id) {
            Some(&(first, delete)) => (Some(first), delete),
            None => (None, None),
        };
        let gone_or_going = state != EndState::Kept
            || alternatives.iter().any(|a| a.state != EndState::Kept)
            || delete.is_some();
        if let Some(wave) = delete.or(first.filter(|_| gone_or_going)) {
            return self.acted(id, wave);
        }
        if state == EndState::Deleted {
            // No request of the GC's: its namespace's deletion, in progress, takes it.
            return Timing::new(When::Now, Some(Reason::InFlight));
        }
        if !alternatives.is_empty() {
            return if gone_or_going {
                self.trigger(id)
            } else {
                Timing::never()
            };
        }
        if matches!(
            self.gc.attempt_to_delete_item(&self.steady.end, id),
            Verdict::Unknown { .. }
        ) {
            return Timing::new(When::Unknown, None);
        }
        if self.restart_acts(id) {
            // The running GC keeps it; a start does not.
            let reason = match self.trigger(id).reason {
                Some(r @ (Reason::Sitting | Reason::NotRechecked)) => r,
                _ => Reason::StartOnly,
            };
            return Timing::new(When::Restart, Some(reason));
        }
        Timing::never()
    }

    /// An object the steady plan acts on in `wave`.
    fn acted(&self, id: ObjId, wave: u32) -> Timing {
        if self.written.contains(&id) {
            return self.trigger(id);
        }
        if let Some(owner) = self.cause_before(id, wave) {
            let t = self.timing(owner);
            return Timing {
                after: Some(owner),
                ..t
            };
        }
        // An owner just deleted by the writer (a delete preview's target).
        let store = &self.gc.snap.store;
        if let Some(owner) = store
            .owner_refs(id)
            .iter()
            .filter_map(|r| store.by_uid(r.uid))
            .find(|o| *o != id && self.written.contains(o))
        {
            return Timing {
                after: Some(owner),
                ..Timing::new(When::Now, Some(Reason::Written))
            };
        }
        self.trigger(id)
    }

    /// What puts the object on the running GC's queue, read off the object as it sits (and
    /// whether it was just written: a write enqueues what §2.10 says it does).
    fn trigger(&self, id: ObjId) -> Timing {
        let gc = self.gc;
        let store = &gc.snap.store;
        let written = self.written.contains(&id);
        let now = |r| Timing::new(When::Now, Some(if written { Reason::Written } else { r }));
        if store.object(id).being_deleted() {
            return now(Reason::InFlight);
        }
        let initial = self.initial();
        let classes = gc.classify_references(initial, id);
        let refs = initial.owner_refs(store, id);
        let (mut absent, mut misdirected, mut unknown) = (false, false, false);
        for (r, c) in refs.iter().zip(&classes) {
            match c {
                RefClass::Waiting { .. } => return now(Reason::InFlight),
                RefClass::Dangling(_) if gc.misdirected(initial, id, r).is_some() => {
                    misdirected = true;
                }
                RefClass::Dangling(_) => absent = true,
                RefClass::Unknown { .. } => unknown = true,
                _ => {}
            }
        }
        let checks_coordinates = gc.rules.emits_invalid_namespace_events();
        if written && !unknown {
            let t = of_write(gc, absent || !misdirected);
            if t.when == When::Now {
                return t;
            }
        }
        let at_start = self.restart_acts(id);
        if absent {
            let when = if at_start {
                When::NowOrRestart
            } else {
                When::NowOrNever
            };
            return Timing::new(when, Some(Reason::OwnerGone));
        }
        let not_checked = if checks_coordinates {
            Reason::Sitting
        } else {
            Reason::NotRechecked
        };
        if misdirected {
            return if at_start {
                Timing::new(When::Restart, Some(not_checked))
            } else {
                Timing::new(When::Never, Some(Reason::Unreached))
            };
        }
        if unknown {
            return Timing::new(When::Unknown, None);
        }
        // Sound references, yet an order can delete it: before 1.20 another object's
        // misdirected reference poisons the UID-keyed absent cache (kubernetes#65200), which
        // only a start's evaluation of that reference does.
        if !checks_coordinates && at_start {
            return Timing::new(When::Restart, Some(Reason::NotRechecked));
        }
        Timing::new(When::Now, None)
    }

    /// A start acts on `id`: a request of its own, or one in some order upstream leaves open
    /// (an end state that is not the same in every order). An end state alone is no act: an
    /// object already terminating ends terminating whoever starts.
    pub fn restart_acts(&self, id: ObjId) -> bool {
        self.restart_targets.contains(&id) || {
            let (_, _, alternatives) = end_state(self.gc, self.restart, id);
            !alternatives.is_empty()
        }
    }

    /// The owner whose deletion (or start of a foreground deletion) the steady plan sends
    /// before `wave`, the latest such: what an action on `id` in a cascade follows.
    fn cause_before(&self, id: ObjId, wave: u32) -> Option<ObjId> {
        let store = &self.gc.snap.store;
        store
            .owner_refs(id)
            .iter()
            .filter_map(|r| store.by_uid(r.uid))
            .filter(|&o| o != id)
            .filter_map(|o| {
                let deleted = self.steady_acts.get(&o)?.1?;
                (deleted < wave).then_some((deleted, o))
            })
            .max_by_key(|&(w, o)| (w, std::cmp::Reverse(o)))
            .map(|(_, o)| o)
    }

    /// When the GC acts on what a finding of `code` on `id` is about: the object's timing
    /// where the finding is about the GC acting on it, a fixed answer where the finding says
    /// the GC is stuck or cannot tell, `None` where the GC does nothing about it.
    pub fn of_finding(&self, code: crate::diagnose::Code, id: ObjId) -> Option<Timing> {
        use crate::diagnose::Code as C;
        match code {
            C::UnknownOwner => Some(Timing::new(When::Unknown, None)),
            C::ClusterScopedDependentOfNamespacedOwner
            | C::UnresolvableOwnerKind
            | C::OwnerNameNotRequestable
            | C::BlockedForegroundDeletion
            | C::OwnershipCycle
            | C::TerminatingHeldByFinalizer
            | C::StrandedDependent
            | C::StuckNamespace
            | C::GcSyncBlocker => Some(Timing::never()),
            C::CollateralAtRisk | C::RestartOrderDependent => {
                let reason = if self.gc.rules.coordinate_keyed_absent_cache() {
                    Reason::StartOnly
                } else {
                    Reason::NotRechecked
                };
                Some(Timing::new(When::Restart, Some(reason)))
            }
            C::OrphanFinalizer if !self.gc.graph.monitors(id) => Some(Timing::never()),
            _ => {
                let t = self.timing(id);
                (t.when != When::Never || self.acts_on(id)).then_some(t)
            }
        }
    }

    /// Tells each finding about an object when the GC acts on it ([`Timeline::of_finding`]);
    /// a consequence that says the GC acts on the reference or the object (its decision
    /// table acts on the object as it is) is ended with *when*.
    pub fn stamp(&self, findings: &mut [crate::diagnose::Finding]) {
        use crate::diagnose::Code as C;
        for f in findings {
            let Some(id) = f.object else { continue };
            f.when = self.of_finding(f.code, id);
            let Some(t) = f.when else { continue };
            let says_what_the_gc_does = matches!(
                f.code,
                C::DanglingOwner
                    | C::OwnerUidMismatch
                    | C::OwnerCoordinatesMismatch
                    | C::CrossNamespaceOwner
                    | C::WaitingOwner
            );
            if says_what_the_gc_does
                && !matches!(t.when, When::Never | When::Unknown)
                && matches!(
                    self.gc.attempt_to_delete_item(self.initial(), id),
                    Verdict::Delete { .. } | Verdict::RemoveRefs { .. }
                )
            {
                f.consequence.push_str(t.clause());
            }
        }
    }

    /// Tells `check restart`'s findings when the GC acts: a start is when GC015 says the GC
    /// acts, and where the running GC does not wait for one (a deletion in progress, an owner
    /// it may have seen go) its consequence says so.
    pub fn stamp_restart(&self, findings: &mut [crate::diagnose::Finding]) {
        for f in findings {
            let Some(id) = f.object else { continue };
            if f.code != crate::diagnose::Code::RestartAction {
                f.when = self.of_finding(f.code, id);
                continue;
            }
            let t = self.timing(id);
            f.when = Some(t);
            match t.when {
                When::Now => f.consequence.push_str(&format!(
                    "; the running GC does not wait for a restart: it acts{}{}",
                    t.clause(),
                    t.reason
                        .map(|r| format!(" ({})", r.words()))
                        .unwrap_or_default()
                )),
                When::NowOrRestart | When::NowOrNever => f.consequence.push_str(
                    "; if the running GC saw the owner go, it does not wait for a restart: it \
                     is acting on it now",
                ),
                _ => {}
            }
        }
    }

    /// The timing of every object the steady plan sends a request about.
    pub fn of_actions(&self) -> HashMap<ObjId, Timing> {
        let ids: Vec<ObjId> = self.steady_acts.keys().copied().collect();
        ids.into_iter().map(|id| (id, self.timing(id))).collect()
    }

    /// The steady plan or a start sends a request about `id`.
    fn acts_on(&self, id: ObjId) -> bool {
        self.steady_acts.contains_key(&id) || self.restart_acts(id)
    }
}

/// When the GC acts on a reference it is handed in a write (`admit`, `check apply`, a watch
/// event): the graph builder links every reference (§2.6), and an owner UID with no node
/// (`absent`) makes a virtual node, verified at once; an owner at other coordinates (another
/// namespace, another name or kind) flags the dependent from 1.20 (§1.5), and before that is
/// never checked.
pub fn of_write(gc: &GarbageCollector<'_>, absent: bool) -> Timing {
    if absent || gc.rules.emits_invalid_namespace_events() {
        Timing::new(When::Now, Some(Reason::Written))
    } else {
        Timing::new(When::Restart, Some(Reason::NotRechecked))
    }
}

/// The end state `plan` gives `id`: its outcome where the plan lists one, else what the
/// plan's end state holds (objects the plan neither touches nor leaves stuck are as they
/// were).
pub fn end_state(
    gc: &GarbageCollector<'_>,
    plan: &Plan,
    id: ObjId,
) -> (EndState, Vec<crate::model::Sym>, Vec<Alternative>) {
    if let Ok(i) = plan.outcomes.binary_search_by_key(&id, |o| o.target) {
        let o = &plan.outcomes[i];
        return (
            o.state.clone(),
            o.owner_refs.clone(),
            o.alternatives.clone(),
        );
    }
    let store = &gc.snap.store;
    let end = &plan.end;
    let refs = || end.owner_refs(store, id).iter().map(|r| r.uid).collect();
    if !end.exists(id) {
        (EndState::Deleted, Vec::new(), Vec::new())
    } else if end.being_deleted(id) {
        let finalizers = end.finalizers(store, id).to_vec();
        (EndState::Terminating { finalizers }, refs(), Vec::new())
    } else {
        (EndState::Kept, refs(), Vec::new())
    }
}

#[cfg(test)]
mod tests;
