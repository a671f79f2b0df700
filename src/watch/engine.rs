//! Incremental evaluation: changes in, transitions out.
//!
//! Every change marks *seeds*: the object, the owners it references (before and after), and
//! the objects whose references name it. At a flush the seeds' part of the GC's graph is
//! evaluated — their connected components ([`World::closure`]: the object, its owners and
//! their dependents, its dependents, the virtual nodes in between), plus the objects an owner
//! lookup by name can hit — never the whole graph. The evaluation is `kubectl gc audit` and
//! `kubectl gc check restart` themselves ([`crate::diagnose`]), run on a snapshot of just those
//! objects ([`World::mini`]); their findings replace what was held for the same objects, and
//! the differences are the transitions.
//!
//! The running GC's queues ([`super::queue`]) decide *now*: an object the changes put on
//! `attemptToDelete` (or `attemptToOrphan`) whose verdict is an action is acted on now; one the
//! running GC does not look at, but a restarted GC does, waits for the next restart.

use super::queue::{Enqueued, QueueRules, RunningGc};
use super::world::{Change, World};
use super::{Cause, GcAction, Reason, Transition, TransitionKind, WatchFinding, When};
use crate::catalog::KubeVersion;
use crate::diagnose::{Code, Finding};
use crate::gc::{GarbageCollector, ObjectRef, Verdict};
use crate::model::{MetaIn, ObjId, ResourceId, Sym};
use crate::snapshot::{ListOutcome, Resource, Snapshot};
use hashbrown::{HashMap, HashSet};
use std::time::{Instant, SystemTime};

/// A finding held, with what the GC does about it.
#[derive(Clone, Debug)]
pub struct Held {
    /// The finding.
    pub finding: WatchFinding,
    /// When the GC acts.
    pub when: Option<When>,
    /// Why then.
    pub reason: Option<Reason>,
    /// What it does.
    pub action: Option<GcAction>,
    /// What the GC's worker does instead if it read the object before the change that made
    /// `action` (see [`super::Transition::if_read_before`]).
    pub if_read_before: Option<GcAction>,
    /// Namespace of its object (`""`: cluster-scoped or none), for metrics.
    pub namespace: String,
    /// The subject (object UID).
    subject: String,
}

impl Held {
    /// A held finding (`subject`: the object UID).
    pub fn new(
        finding: WatchFinding,
        when: Option<When>,
        action: Option<GcAction>,
        subject: String,
    ) -> Held {
        let namespace = finding
            .object
            .as_ref()
            .map(|o| o.namespace.clone())
            .unwrap_or_default();
        Held {
            finding,
            when,
            reason: None,
            action,
            if_read_before: None,
            namespace,
            subject,
        }
    }

    /// The subject (object UID).
    pub fn subject(&self) -> &str {
        &self.subject
    }
}

/// How a new finding's *when* is decided once the running GC's queues are known. `static_`
/// is the timeline's answer where nothing was written just now ([`crate::diagnose::timeline`]).
#[derive(Clone, Copy, Debug)]
enum WhenRule {
    /// Whatever the queues hold.
    Fixed(Option<(When, Option<Reason>)>),
    /// `attemptToDeleteItem` acts: now if enqueued; else as the timeline says.
    Acts(Option<(When, Option<Reason>)>),
    /// `attemptToOrphan` acts: now if enqueued; else as the timeline says.
    Orphans(Option<(When, Option<Reason>)>),
}

struct Fresh {
    id: String,
    subject: String,
    subject_uid: Option<Sym>,
    finding: WatchFinding,
    action: Option<GcAction>,
    rule: WhenRule,
    namespace: String,
}

/// Counters for metrics and benchmarks.
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineStats {
    /// Changes applied (events, and changes synthesised by relists).
    pub changes: u64,
    /// Evaluations run.
    pub evaluations: u64,
    /// Objects evaluated, summed over evaluations.
    pub objects_evaluated: u64,
}

/// The watch's state: the world, the findings held, and what is pending evaluation.
pub struct Engine {
    world: World,
    gc_version: KubeVersion,
    running: Box<dyn RunningGc>,
    held: HashMap<String, Held>,
    by_subject: HashMap<String, Vec<String>>,
    seeds: HashSet<Sym>,
    touched: HashSet<Sym>,
    /// Objects changed since the last flush the way a GC worker's write changes them
    /// ([`super::world::Change::looks_like_a_worker_write`]): the action awaited on them was
    /// carried out.
    worker_wrote: HashSet<Sym>,
    enqueued: Enqueued,
    oldest: Option<Instant>,
    /// Objects the running GC retries with back-off (unmappable owner kinds).
    retrying: HashSet<String>,
    /// Counters.
    pub stats: EngineStats,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("objects", &self.world.len())
            .field("findings", &self.held.len())
            .field("gc_version", &self.gc_version)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// An engine on the initial lists, emulating GC release `gc_version` (default: the
    /// snapshot's server version, else the newest).
    pub fn new(snap: Snapshot, gc_version: Option<KubeVersion>) -> Engine {
        let gc_version = gc_version.unwrap_or_else(|| GarbageCollector::default_gc_version(&snap));
        Engine {
            world: World::new(snap),
            gc_version,
            running: Box::new(QueueRules::new(gc_version)),
            held: HashMap::new(),
            by_subject: HashMap::new(),
            seeds: HashSet::new(),
            touched: HashSet::new(),
            worker_wrote: HashSet::new(),
            enqueued: Enqueued::default(),
            oldest: None,
            retrying: HashSet::new(),
            stats: EngineStats::default(),
        }
    }

    /// The emulated GC release.
    pub fn gc_version(&self) -> KubeVersion {
        self.gc_version
    }

    /// The world.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The findings held now, by identity.
    pub fn held(&self) -> impl Iterator<Item = (&String, &Held)> {
        self.held.iter()
    }

    /// Takes over findings held by an earlier run (`--state-file`): the next evaluation reports
    /// only how the cluster differs from them.
    pub fn preload(&mut self, held: impl IntoIterator<Item = (String, Held)>) {
        for (id, h) in held {
            let ids = self.by_subject.entry(h.subject.clone()).or_default();
            if !ids.contains(&id) {
                ids.push(id.clone());
            }
            self.held.insert(id, h);
        }
    }

    /// True when changes wait for [`Engine::flush`].
    pub fn pending(&self) -> bool {
        !self.seeds.is_empty()
    }

    /// True when `uid` already changed since the last flush, or a pending change put it on
    /// one of the running GC's queues (its owner's deletion enqueues it): flush first, so that
    /// what the GC is about to do to it is evaluated — and predicted — before its next event
    /// (typically its deletion by the GC) is applied.
    pub fn must_flush_before(&self, uid: &str) -> bool {
        self.world.sym(uid).is_some_and(|u| {
            self.touched.contains(&u)
                || self.enqueued.attempt_to_delete.contains(&u)
                || self.enqueued.attempt_to_orphan.contains(&u)
        })
    }

    fn record(&mut self, change: Change, received: Option<Instant>) {
        self.stats.changes += 1;
        self.running
            .observe(&self.world, &change, &mut self.enqueued);
        let uid = change.uid();
        if change.looks_like_a_worker_write(&self.world) {
            self.worker_wrote.insert(uid);
        }
        self.touched.insert(uid);
        self.seeds.insert(uid);
        for e in change.old.iter().chain(change.new.iter()) {
            self.seeds.extend(e.owner_refs.iter().map(|r| r.uid));
            // References naming it by name: absent ↔ another UID.
            self.seeds
                .extend(self.world.referrers_by_name(e.name).iter().copied());
        }
        if let Some(t) = received {
            self.oldest = Some(self.oldest.map_or(t, |o| o.min(t)));
        }
    }

    /// An add or update event of an object listed under `resource`.
    pub fn apply(&mut self, resource: ResourceId, meta: &MetaIn<'_>, received: Option<Instant>) {
        if let Some(c) = self.world.apply(resource, meta) {
            self.record(c, received);
        }
    }

    /// A delete event.
    pub fn delete(&mut self, uid: &str, received: Option<Instant>) {
        if let Some(c) = self.world.delete(uid) {
            self.record(c, received);
        }
    }

    /// A complete list of `resource` (after `410 Gone`): what it changes is applied as events.
    pub fn reconcile(&mut self, resource: ResourceId, listed: &[MetaIn<'_>]) {
        for c in self.world.reconcile(resource, listed) {
            self.record(c, None);
        }
    }

    /// Evaluates what changed since the last flush.
    pub fn flush(&mut self, cause: Cause) -> Vec<Transition> {
        if self.seeds.is_empty() {
            return Vec::new();
        }
        let seeds = std::mem::take(&mut self.seeds);
        self.worker_chain();
        let out = self.evaluate_part(seeds, cause);
        self.changes_evaluated();
        if self.world.wants_compaction() {
            self.world.compact(None);
        }
        out
    }

    /// Re-evaluates what can change with time alone: terminating objects (the ages behind
    /// "stalled" findings).
    pub fn tick(&mut self) -> Vec<Transition> {
        let terminating: Vec<Sym> = self
            .world
            .uids()
            .into_iter()
            .filter(|&u| self.world.get(u).is_some_and(|v| v.being_deleted()))
            .collect();
        self.seeds.extend(terminating);
        self.flush(Cause::Resync)
    }

    /// Evaluates everything (the initial lists, or after the resource table or a resource's
    /// readability changed).
    pub fn evaluate_all(&mut self, cause: Cause) -> Vec<Transition> {
        self.seeds.clear();
        if self.world.overlay_len() > 0 {
            self.world.compact(None);
        }
        // Ages ("terminating for 17s") are measured up to the snapshot's capture time: for the
        // world that is now, not when the first lists were read (a namespace deleted after
        // them would otherwise be terminating for 0s).
        self.world.snap.provenance.captured_at = crate::snapshot::now_rfc3339();
        let snap = &self.world.snap;
        let ids: Vec<Sym> = snap.store.ids().map(|i| snap.store.object(i).uid).collect();
        let fresh = diagnose(snap, &ids, None, self.gc_version);
        let subjects: HashSet<String> = self.by_subject.keys().cloned().collect();
        let mut out = self.diff(fresh, subjects, cause);
        self.stats.evaluations += 1;
        self.stats.objects_evaluated += ids.len() as u64;
        self.changes_evaluated();
        for t in &mut out {
            t.received = None;
        }
        out
    }

    /// Records a resource's list outcome (403, failure, complete again). Call
    /// [`Engine::evaluate_all`] afterwards: every reference into the resource may change
    /// between *unknown* and known.
    pub fn set_outcome(&mut self, resource: ResourceId, outcome: ListOutcome) {
        self.world.set_outcome(resource, outcome);
    }

    /// A new resource table (discovery changed: a CRD appeared or went away): `remap` gives
    /// each old row's new row. Call [`Engine::evaluate_all`] afterwards.
    pub fn retable(
        &mut self,
        resources: Vec<Resource>,
        remap: Vec<Option<ResourceId>>,
        failures: &[(String, String)],
    ) {
        self.seeds.clear();
        self.touched.clear();
        self.worker_wrote.clear();
        self.enqueued.clear();
        self.world.set_discovery_failures(failures);
        self.world.compact(Some((resources, remap)));
    }

    /// What the workers themselves enqueue (§3.5, §2.10): an owner in foreground deletion
    /// taken off the queue puts each dependent that still blocks it (and is not in foreground
    /// deletion itself) on the queue.
    fn worker_chain(&mut self) {
        let Some(fg) = self.world.sym(crate::model::finalizers::FOREGROUND) else {
            return;
        };
        let in_foreground = |w: &World, u: Sym| {
            w.get(u)
                .is_some_and(|v| v.being_deleted() && v.finalizers.contains(&fg))
        };
        let mut extra = Vec::new();
        for &owner in &self.enqueued.attempt_to_delete {
            if !in_foreground(&self.world, owner) {
                continue;
            }
            for &d in self.world.dependents(owner) {
                let blocks = self
                    .world
                    .get(d)
                    .is_some_and(|v| v.owner_refs.iter().any(|r| r.uid == owner && r.blocks()));
                if blocks && !in_foreground(&self.world, d) {
                    extra.push(d);
                }
            }
        }
        self.enqueued.attempt_to_delete.extend(extra);
    }

    fn evaluate_part(&mut self, seeds: HashSet<Sym>, cause: Cause) -> Vec<Transition> {
        let (objects, visited) = self.world.closure(seeds);
        let mut context: HashSet<Sym> = objects.iter().copied().collect();
        self.world.lookup_candidates(&objects, &mut context);
        let context: Vec<Sym> = context.into_iter().collect();
        let (mini, to_world) = self.world.mini(&context);
        let fresh = diagnose(&mini, &to_world, Some(&visited), self.gc_version);
        self.stats.evaluations += 1;
        self.stats.objects_evaluated += context.len() as u64;
        let subjects: HashSet<String> = visited
            .iter()
            .map(|&u| self.world.str(u).to_owned())
            .collect();
        let received = self.oldest;
        let mut out = self.diff(fresh, subjects, cause);
        for t in &mut out {
            t.received = received;
        }
        out
    }

    /// Replaces what was held for `subjects` with `fresh`; returns the differences.
    fn diff(
        &mut self,
        fresh: Vec<Fresh>,
        mut subjects: HashSet<String>,
        cause: Cause,
    ) -> Vec<Transition> {
        let now = SystemTime::now();
        let mut out = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut codes: HashMap<String, Vec<Code>> = HashMap::new();
        let awaited = self.awaited(&fresh);
        for f in fresh {
            if !seen.insert(f.id.clone()) {
                continue; // two references to one owner UID: one finding per identity
            }
            subjects.insert(f.subject.clone());
            codes
                .entry(f.subject.clone())
                .or_default()
                .push(f.finding.code);
            let previous = self.held.get(&f.id);
            let mut if_read_before = None;
            let (when, reason) = match f.rule {
                WhenRule::Fixed(w) => (w.map(|w| w.0), w.and_then(|w| w.1)),
                WhenRule::Acts(timeline) | WhenRule::Orphans(timeline) => {
                    let orphaning = matches!(f.rule, WhenRule::Orphans(_));
                    let queued = f.subject_uid.is_some_and(|u| {
                        if orphaning {
                            self.enqueued.attempt_to_orphan.contains(&u)
                        } else {
                            self.enqueued.attempt_to_delete.contains(&u)
                        }
                    }) || (!orphaning && self.retrying.contains(&f.subject));
                    // Still on the queue from an earlier change, its worker not seen acting:
                    // the worker acts on whichever version of the object it reads.
                    let waiting = awaited
                        .get(&f.subject)
                        .and_then(|a| if orphaning { a.orphan } else { a.delete });
                    let edited = f
                        .subject_uid
                        .is_some_and(|u| self.enqueued.edited_in_place.contains(&u));
                    if queued {
                        (Some(When::Now), Some(Reason::Written))
                    } else if let Some(w) = waiting {
                        if_read_before = if Some(w.action) == f.action {
                            w.if_read_before
                        } else {
                            Some(w.action)
                        };
                        (Some(When::Now), previous.and_then(|p| p.reason))
                    } else {
                        match timeline {
                            // The change this evaluation follows edited the reference in
                            // place: that is why only a start acts.
                            Some((When::Restart, Some(Reason::Sitting))) if edited => {
                                (Some(When::Restart), Some(Reason::EditedInPlace))
                            }
                            // Said of this finding before, for the edit that made it.
                            Some((When::Restart, Some(Reason::Sitting)))
                                if previous.is_some_and(|p| {
                                    p.when == Some(When::Restart)
                                        && p.reason == Some(Reason::EditedInPlace)
                                }) =>
                            {
                                (Some(When::Restart), Some(Reason::EditedInPlace))
                            }
                            Some((w, r)) => (Some(w), r),
                            None => (Some(When::Never), None),
                        }
                    }
                }
            };
            // The audit ended the consequence with the timeline's static *when*: the queues'
            // answer replaces it.
            let mut f = f;
            if let WhenRule::Acts(Some((w, r))) | WhenRule::Orphans(Some((w, r))) = f.rule
                && let Some(when) = when
                && let Some(base) = f
                    .finding
                    .consequence
                    .strip_suffix(crate::diagnose::timeline::clause(w, r))
            {
                f.finding.consequence =
                    format!("{base}{}", crate::diagnose::timeline::clause(when, reason));
            }
            let transition = match previous {
                None => Some((TransitionKind::Appeared, None)),
                Some(p)
                    if p.finding.severity != f.finding.severity
                        || p.when != when
                        || p.action != f.action
                        || p.if_read_before != if_read_before =>
                {
                    Some((
                        TransitionKind::Changed,
                        Some((p.finding.severity, p.when, p.action)),
                    ))
                }
                Some(_) => None,
            };
            if let Some((kind, previous)) = transition {
                out.push(Transition {
                    kind,
                    id: f.id.clone(),
                    finding: f.finding.clone(),
                    when,
                    reason,
                    action: f.action,
                    if_read_before,
                    previous: previous.map(|(s, w, _)| (s, w)),
                    previous_action: previous.and_then(|(_, _, a)| a),
                    object_gone: false,
                    cause,
                    time: now,
                    received: None,
                });
            }
            let ids = self.by_subject.entry(f.subject.clone()).or_default();
            if !ids.contains(&f.id) {
                ids.push(f.id.clone());
            }
            self.held.insert(
                f.id,
                Held {
                    finding: f.finding,
                    when,
                    reason,
                    action: f.action,
                    if_read_before,
                    namespace: f.namespace,
                    subject: f.subject,
                },
            );
        }
        // Objects the running GC keeps retrying with back-off (a REST mapping that fails:
        // §3.1, §6.8) are evaluated again without any event: once they become actionable (the
        // kind got served) it acts. Remembered while the reference stays unmappable or unknown.
        for subject in &subjects {
            let c = codes.get(subject).map_or(&[][..], Vec::as_slice);
            if c.contains(&Code::UnresolvableOwnerKind) {
                self.retrying.insert(subject.clone());
            } else if !c.contains(&Code::UnknownOwner) {
                self.retrying.remove(subject);
            }
        }
        // Whatever was held for these subjects and is not found any more has resolved.
        let mut subjects: Vec<String> = subjects.into_iter().collect();
        subjects.sort();
        for s in subjects {
            let Some(ids) = self.by_subject.get_mut(&s) else {
                continue;
            };
            let (keep, gone): (Vec<String>, Vec<String>) =
                ids.drain(..).partition(|id| seen.contains(id));
            *ids = keep;
            if ids.is_empty() {
                self.by_subject.remove(&s);
            }
            for id in gone {
                if let Some(h) = self.held.remove(&id) {
                    let object_gone = self
                        .world
                        .sym(&h.subject)
                        .is_none_or(|u| self.world.get(u).is_none());
                    let previous = Some((h.finding.severity, h.when));
                    out.push(Transition {
                        kind: TransitionKind::Resolved,
                        id,
                        finding: h.finding,
                        when: None,
                        reason: None,
                        action: None,
                        if_read_before: None,
                        previous,
                        previous_action: h.action,
                        object_gone,
                        cause,
                        time: now,
                        received: None,
                    });
                }
            }
        }
        out
    }
}

impl Engine {
    /// Forgets what the changes since the last evaluation did (touched objects, workers'
    /// writes, queued items, the oldest change's time): an evaluation has taken them in.
    fn changes_evaluated(&mut self) {
        self.touched.clear();
        self.worker_wrote.clear();
        self.enqueued.clear();
        self.oldest = None;
    }
}

/// An action the running GC's worker was last predicted to carry out now, on an object whose
/// change since then is not that worker's write.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    action: GcAction,
    /// What the worker does instead if it read the object before an earlier change.
    if_read_before: Option<GcAction>,
}

/// What a subject waits for on each of the running GC's queues.
#[derive(Clone, Copy, Debug, Default)]
struct Awaited {
    /// `attemptToDelete`: a delete or the delete-owner-refs patch.
    delete: Option<Waiting>,
    /// `attemptToOrphan`.
    orphan: Option<Waiting>,
}

impl Engine {
    /// For the subjects of `fresh`: what their held findings predicted a worker does *now*,
    /// unless a change since looks like that worker's write (then it was done, or a person
    /// did it; either way nothing more is awaited).
    ///
    /// The GC's queues hold objects, not versions: a worker reads the object when it takes it
    /// off the queue (`attemptToDeleteItem` GETs it live). An object edited while it waits is
    /// acted on as edited — unless the worker read it before the edit, when it does what was
    /// predicted before (its write arrives after the edit) and the edited object waits for
    /// whatever next puts it on a queue. The watch cannot see which: both are reported.
    fn awaited(&self, fresh: &[Fresh]) -> HashMap<String, Awaited> {
        let mut out: HashMap<String, Awaited> = HashMap::new();
        for f in fresh {
            if out.contains_key(&f.subject)
                || f.subject_uid
                    .is_some_and(|u| self.worker_wrote.contains(&u))
            {
                continue;
            }
            let mut a = Awaited::default();
            for id in self.by_subject.get(&f.subject).into_iter().flatten() {
                let Some(h) = self.held.get(id) else { continue };
                let (Some(When::Now), Some(action)) = (h.when, h.action) else {
                    continue;
                };
                let w = Some(Waiting {
                    action,
                    if_read_before: h.if_read_before,
                });
                match action {
                    GcAction::Orphan => a.orphan = w,
                    _ => a.delete = w,
                }
            }
            out.insert(f.subject.clone(), a);
        }
        out
    }
}

/// The stable identity of a finding: code, subject (object UID), owner UID of the reference
/// (the baseline file's key).
fn identity(code: Code, subject: &str, owner_uid: &str) -> String {
    format!("{}/{subject}/{owner_uid}", code.id())
}

/// The audit's and the restart check's findings for the objects of `snap` (whose object `i`
/// is world UID `to_world[i]`) in `scope` (`None`: all).
fn diagnose(
    snap: &Snapshot,
    to_world: &[Sym],
    scope: Option<&HashSet<Sym>>,
    version: KubeVersion,
) -> Vec<Fresh> {
    let gc = crate::run::garbage_collector(snap, version);
    // Nothing counts as written here: the timeline's answer is the static one, which the
    // running GC's queues then overrule (`WhenRule`).
    let audit = crate::diagnose::audit(&gc);
    let state = gc.initial_state();
    let store = &snap.store;
    let mut verdicts: HashMap<ObjId, Verdict> = HashMap::new();
    let mut out = Vec::new();
    for f in audit.findings {
        let f = canonical(snap, f);
        let Some(id) = f.object else { continue };
        let world_uid = to_world[id.index()];
        if scope.is_some_and(|s| !s.contains(&world_uid)) {
            continue;
        }
        if crate::diagnose::suppress::ignored_by_annotation(snap, &f) {
            continue;
        }
        let verdict = verdicts
            .entry(id)
            .or_insert_with(|| gc.attempt_to_delete_item(&state, id));
        let timeline = f.when.map(|t| (t.when, t.reason));
        let (action, rule) = match f.code {
            Code::OrphanFinalizer if gc.graph.monitors(id) => {
                (Some(GcAction::Orphan), WhenRule::Orphans(timeline))
            }
            Code::UnknownOwner
            | Code::ClusterScopedDependentOfNamespacedOwner
            | Code::UnresolvableOwnerKind
            | Code::BlockedForegroundDeletion
            | Code::OwnershipCycle
            | Code::TerminatingHeldByFinalizer
            | Code::StrandedDependent
            | Code::OrphanFinalizer
            | Code::CollateralAtRisk
            | Code::RestartOrderDependent => (None, WhenRule::Fixed(timeline)),
            _ => match verdict {
                Verdict::Delete { policy, .. } => (
                    Some(GcAction::Delete { policy: *policy }),
                    WhenRule::Acts(timeline),
                ),
                Verdict::RemoveRefs { .. } => (
                    Some(GcAction::RemoveOwnerReferences),
                    WhenRule::Acts(timeline),
                ),
                Verdict::Unknown { .. } => (None, WhenRule::Fixed(Some((When::Unknown, None)))),
                Verdict::NeverCollected { .. } => {
                    (None, WhenRule::Fixed(Some((When::Never, None))))
                }
                _ => (None, WhenRule::Fixed(timeline)),
            },
        };
        let subject = store.str(store.object(id).uid).to_owned();
        let owner_uid = f.owner_ref.map(|r| store.str(r.uid)).unwrap_or("");
        out.push(Fresh {
            id: identity(f.code, &subject, owner_uid),
            namespace: store.str(store.object(id).namespace).to_owned(),
            subject,
            subject_uid: Some(world_uid),
            finding: owned(snap, &f),
            action,
            rule,
        });
    }
    out
}

/// A cycle is reported on its member with the smallest UID (the audit picks the first in
/// snapshot order, which differs between the whole cluster and a part of it).
fn canonical(snap: &Snapshot, mut f: Finding) -> Finding {
    if f.code != Code::OwnershipCycle || f.related.is_empty() {
        return f;
    }
    let Some(first) = f.object else { return f };
    let uid = |id: ObjId| snap.store.str(snap.store.object(id).uid);
    let mut members = f.related.clone();
    members.push(first);
    members.sort_by(|a, b| uid(*a).cmp(uid(*b)));
    f.object = Some(members[0]);
    f.related = members[1..].to_vec();
    f
}

/// The finding with its objects resolved.
fn owned(snap: &Snapshot, f: &Finding) -> WatchFinding {
    WatchFinding {
        code: f.code,
        severity: f.severity,
        object: f.object.map(|o| ObjectRef::of(snap, o)),
        resource: f.resource.clone(),
        owner_reference: f.owner_ref.as_ref().map(|r| {
            serde_json::to_value(crate::snapshot::format::OwnerRefOut::new(&snap.store, r))
                .unwrap_or_default()
        }),
        classification: f.classification,
        consequence: f.consequence.clone(),
        message: f.message.clone(),
        related: f.related.iter().map(|&r| ObjectRef::of(snap, r)).collect(),
        remedies: f.commands(),
    }
}
