//! `kubectl gc collect --apply`: perform a [`Plan`]'s actions against a live cluster with exactly
//! the GC's requests (§3.7–3.9), re-checking every verdict against the cluster first.
//!
//! ## Safety model
//!
//! - **Re-verification.** Before each action the target is re-read, and for deletes and
//!   owner-reference patches its owners are re-read too (by each reference's apiVersion/kind/name,
//!   in the dependent's namespace for namespaced kinds — the GC's `isDangling`, §3.3). The
//!   action is skipped, with the reason recorded, when the verdict no longer holds: the object
//!   is gone or was recreated (another UID), an owner exists again, the reference or finalizer
//!   is already gone, the object is now terminating, a dependent still blocks a foreground
//!   deletion, a dependent of an orphaning owner was not orphaned.
//! - **Preconditions.** Every write carries the GC's own guard: DELETE `preconditions.uid`
//!   (+ `resourceVersion` when emulating GC ≥ 1.34), the strategic merge patch's `metadata.uid`,
//!   the merge patches' `metadata.resourceVersion`. A 409 re-runs the action from the re-read
//!   (at most [`MAX_ATTEMPTS`] times), so a recreated object is skipped, never deleted.
//! - **Finalizer removal checks the UID** (deliberate deviation: the GC's `removeFinalizer`
//!   does not, §3.8). A recreated object's finalizers are not ours to remove.
//! - **Waves in order.** Actions run wave by wave; within a wave patches go first, then
//!   deletes, then finalizer removals (the GC decides a wave's actions on the state at its
//!   start; this order keeps that state valid for the later kinds). Later waves rely on
//!   earlier effects only through the re-reads, so "the GC got there first" is a skip.
//! - **Stop at the first unexpected error** (anything but a 404 for a gone object and the
//!   precondition outcomes above); the rest is reported as not done.
//! - **Bounded rate** ([`limiter::Limiter`]) and **Ctrl-C** (the `stop` flag): checked before
//!   every action; the action in flight completes and is recorded.
//!
//! What re-verification cannot see: objects created after the snapshot. A new dependent of an
//! owner we orphan keeps its reference (the GC's own race, kubernetes#26120), and a new blocking
//! dependent of a foreground-deleted owner does not hold its finalizer back.

pub mod fake;
pub mod kube;
pub mod limiter;
pub mod ops;
pub mod patch;
pub mod record;

pub use ops::{ApiError, ClusterOps, LiveMeta, LiveObject, LiveRef, ObjectKey, PatchType};
pub use record::{Entry, EntryResult, Header, Record, RequestRecord, SummaryLine};

use crate::gc::plan::{Action, Reason, Verb};
use crate::gc::{GarbageCollector, ObjectRef, Policy};
use crate::model::{ObjId, finalizers};
use crate::snapshot::{now_rfc3339, split_api_version};
use crate::util::Backoff;
use limiter::Limiter;
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Attempts per action when a write answers 409 Conflict (client-go's `DefaultBackoff` steps,
/// as the GC's `removeFinalizer`).
pub const MAX_ATTEMPTS: u32 = 4;

/// Default `--qps` (kube-controller-manager's default `--kube-api-qps`).
pub const DEFAULT_QPS: f64 = 20.0;

/// How to apply.
#[derive(Clone, Debug)]
pub struct Options {
    /// Requests per second.
    pub qps: f64,
    /// For the user's own delete (`collect --delete … --apply`): send the planned policy
    /// (`true`) or none at all (`--cascade=default`: the type's default applies).
    pub user_policy_explicit: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            qps: DEFAULT_QPS,
            user_policy_explicit: true,
        }
    }
}

/// Why an apply stopped early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// An unexpected error (the message says which request and what).
    Error(String),
    /// Ctrl-C (the stop flag was set).
    Interrupted,
}

/// What happened to one action that was attempted.
#[derive(Clone, Debug)]
pub struct Attempted {
    /// Index into the actions given to [`run`].
    pub action: usize,
    /// The record entry.
    pub entry: Entry,
}

/// The result of an apply.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Attempted actions, in execution order.
    pub attempted: Vec<Attempted>,
    /// Indices of the actions never attempted, in execution order.
    pub not_done: Vec<usize>,
    /// Why it stopped early, if it did.
    pub stopped: Option<Stopped>,
}

impl Summary {
    fn count(&self, r: EntryResult) -> usize {
        self.attempted
            .iter()
            .filter(|a| a.entry.result == r)
            .count()
    }

    /// Actions done.
    pub fn done(&self) -> usize {
        self.count(EntryResult::Done)
    }

    /// Actions skipped.
    pub fn skipped(&self) -> usize {
        self.count(EntryResult::Skipped)
    }

    /// Actions failed.
    pub fn failed(&self) -> usize {
        self.count(EntryResult::Failed)
    }

    /// Every action was attempted and none failed.
    pub fn complete(&self) -> bool {
        self.stopped.is_none()
    }
}

/// The order actions run in: by wave; within a wave owner-reference patches, then deletes, then
/// finalizer removals (stable otherwise, so orphan patches precede their finalizer removal and
/// an unblock precedes its delete).
pub fn execution_order(actions: &[&Action]) -> Vec<usize> {
    let class = |v: Verb| match v {
        Verb::RemoveOwnerReferences | Verb::UnblockOwnerReferences => 0,
        Verb::Delete => 1,
        Verb::RemoveFinalizer => 2,
    };
    let mut idx: Vec<usize> = (0..actions.len()).collect();
    idx.sort_by_key(|&i| (actions[i].wave, class(actions[i].verb)));
    idx
}

/// Runs `actions` (a plan's, possibly filtered) against `ops`, writing one record entry per
/// attempted action and the summary line. `progress` sees every entry once it is recorded.
/// Record write failures stop the apply (the record must stay exact).
pub async fn run<C: ClusterOps, W: Write>(
    ops: &C,
    a: &GarbageCollector<'_>,
    actions: &[&Action],
    opts: &Options,
    record: &mut Record<W>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(usize, usize, &Entry),
) -> Summary {
    let order = execution_order(actions);
    let total = order.len();
    let mut exec = Executor {
        ops,
        a,
        opts,
        limiter: Limiter::new(opts.qps),
    };
    let mut summary = Summary::default();
    for (pos, &i) in order.iter().enumerate() {
        if stop.load(Ordering::SeqCst) {
            summary.stopped = Some(Stopped::Interrupted);
            summary.not_done.extend_from_slice(&order[pos..]);
            break;
        }
        let act = actions[i];
        let mut entry = new_entry(a, act, pos + 1);
        let outcome = exec.perform(act, &mut entry).await;
        let failed = match outcome {
            Ok(Step::Done(msg)) => {
                entry.result = EntryResult::Done;
                entry.message = msg;
                None
            }
            Ok(Step::Skip(msg)) => {
                entry.result = EntryResult::Skipped;
                entry.message = msg;
                None
            }
            Ok(Step::Conflict(msg)) => {
                let msg = format!("still conflicting after {MAX_ATTEMPTS} attempts: {msg}");
                entry.result = EntryResult::Failed;
                entry.message = msg.clone();
                Some(msg)
            }
            Err(Fail(msg)) => {
                entry.result = EntryResult::Failed;
                entry.message = msg.clone();
                Some(msg)
            }
        };
        let written = record.entry(&entry);
        progress(pos + 1, total, &entry);
        summary.attempted.push(Attempted { action: i, entry });
        let stop_msg = match (failed, written) {
            (Some(msg), _) => Some(format!("{}: {msg}", act_label(a, act))),
            (None, Err(e)) => Some(format!("writing the record: {e}")),
            (None, Ok(())) => None,
        };
        if let Some(msg) = stop_msg {
            summary.stopped = Some(Stopped::Error(msg));
            summary.not_done.extend_from_slice(&order[pos + 1..]);
            break;
        }
    }
    let line = SummaryLine {
        kind: "ApplySummary",
        finished_at: now_rfc3339(),
        complete: summary.complete(),
        stopped: summary.stopped.as_ref().map(|s| match s {
            Stopped::Error(_) => "error",
            Stopped::Interrupted => "interrupted",
        }),
        message: summary.stopped.as_ref().map(|s| match s {
            Stopped::Error(m) => m.clone(),
            Stopped::Interrupted => "interrupted (Ctrl-C) before the next action".to_owned(),
        }),
        done: summary.done(),
        skipped: summary.skipped(),
        failed: summary.failed(),
        not_done: summary
            .not_done
            .iter()
            .map(|&i| record::NotDone {
                wave: actions[i].wave,
                verb: actions[i].verb.as_str(),
                target: ObjectRef::of(a.snap, actions[i].target),
            })
            .collect(),
    };
    if let Err(e) = record.finish(&line)
        && summary.stopped.is_none()
    {
        summary.stopped = Some(Stopped::Error(format!("writing the record: {e}")));
    }
    summary
}

/// `delete ConfigMap/x -n ns`.
pub fn act_label(a: &GarbageCollector<'_>, act: &Action) -> String {
    format!("{} {}", act.verb.as_str(), a.snap.describe(act.target))
}

fn new_entry(a: &GarbageCollector<'_>, act: &Action, seq: usize) -> Entry {
    let store = &a.snap.store;
    Entry {
        kind: "ApplyEntry",
        seq,
        wave: act.wave,
        verb: act.verb.as_str(),
        target: ObjectRef::of(a.snap, act.target),
        rule: act.reason.rule(),
        reason: act.detail.clone(),
        propagation_policy: act.policy.map(Policy::as_str),
        owner_references: act.patched_owner_uids(store),
        finalizer: act.finalizer.map(|f| store.str(f).to_owned()),
        result: EntryResult::Skipped,
        message: String::new(),
        notes: Vec::new(),
        before: None,
        requests: Vec::new(),
        reads: 0,
        started_at: now_rfc3339(),
    }
}

/// The outcome of one attempt.
#[derive(Debug)]
enum Step {
    Done(String),
    Skip(String),
    /// A 409: re-run the action from the re-read.
    Conflict(String),
}

/// An unexpected error: stop.
#[derive(Debug)]
struct Fail(String);

type Res<T> = Result<T, Fail>;

/// How the GC would see one reference now.
#[derive(Debug)]
enum LiveClass {
    Solid,
    Waiting,
    Dangling(String),
    /// Cannot be re-checked (kind not served, invalid scope): never act.
    Unverifiable(String),
}

/// What [`Executor::no_solid_owner`] verified: no owner is solid, whether one is in
/// foreground deletion, and each owner's state (for the record).
struct NoSolidOwner {
    waiting: bool,
    why: Vec<String>,
}

struct Executor<'x, 'b, C> {
    ops: &'x C,
    a: &'x GarbageCollector<'b>,
    opts: &'x Options,
    limiter: Limiter,
}

/// The wait before re-running an action after a 409 (client-go's `DefaultBackoff`: 10 ms, ×5).
const CONFLICT_BACKOFF: Backoff = Backoff {
    base: Duration::from_millis(10),
    factor: 5,
    max_exponent: 4,
    jitter: 0.0,
};

impl<C: ClusterOps> Executor<'_, '_, C> {
    async fn perform(&mut self, act: &Action, entry: &mut Entry) -> Res<Step> {
        let mut attempt = 0;
        loop {
            let step = match act.verb {
                Verb::Delete => self.delete(act, entry).await?,
                Verb::RemoveOwnerReferences => self.remove_refs(act, entry).await?,
                Verb::UnblockOwnerReferences => self.unblock(act, entry).await?,
                Verb::RemoveFinalizer => self.remove_finalizer(act, entry).await?,
            };
            match step {
                Step::Conflict(msg) if attempt + 1 < MAX_ATTEMPTS => {
                    entry
                        .notes
                        .push(format!("attempt {}: {msg}; re-reading", attempt + 1));
                    tokio::time::sleep(CONFLICT_BACKOFF.delay(attempt)).await;
                    attempt += 1;
                }
                other => return Ok(other),
            }
        }
    }

    // -- requests --------------------------------------------------------------------------

    async fn get(&mut self, key: &ObjectKey, entry: &mut Entry) -> Res<Option<LiveObject>> {
        self.limiter.acquire().await;
        entry.reads += 1;
        self.ops
            .get(key)
            .await
            .map_err(|e| Fail(format!("GET {}: {}", key.path(), e.describe())))
    }

    /// Re-reads the target; `Err(skip)` when it is gone or was recreated.
    async fn read_target(
        &mut self,
        key: &ObjectKey,
        uid: &str,
        entry: &mut Entry,
    ) -> Res<Result<LiveObject, Step>> {
        let Some(obj) = self.get(key, entry).await? else {
            return Ok(Err(Step::Skip(format!(
                "gone: {} no longer exists",
                key.describe()
            ))));
        };
        entry.before = Some(obj.raw.clone());
        if obj.meta.uid != uid {
            return Ok(Err(Step::Skip(format!(
                "recreated: {} now has uid {}, the plan was for uid {uid}",
                key.describe(),
                obj.meta.uid
            ))));
        }
        Ok(Ok(obj))
    }

    async fn write(
        &mut self,
        key: &ObjectKey,
        patch: Option<PatchType>,
        body: Vec<u8>,
        entry: &mut Entry,
    ) -> Result<u16, ApiError> {
        self.limiter.acquire().await;
        let result = match patch {
            None => self.ops.delete(key, &body).await,
            Some(p) => self.ops.patch(key, p, &body).await,
        };
        entry.requests.push(RequestRecord {
            method: if patch.is_some() { "PATCH" } else { "DELETE" },
            path: key.path(),
            content_type: patch.map_or("application/json", PatchType::content_type),
            body: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
            status: match &result {
                Ok(s) => *s,
                Err(e) => e.code,
            },
            error: result.as_ref().err().map(ApiError::describe),
        });
        result
    }

    fn unexpected(&self, method: &str, key: &ObjectKey, e: &ApiError) -> Fail {
        Fail(format!("{method} {}: {}", key.path(), e.describe()))
    }

    /// A 422 may be the SMP's `uid` check against a recreated object: re-read to tell.
    async fn after_invalid(
        &mut self,
        key: &ObjectKey,
        uid: &str,
        e: &ApiError,
        entry: &mut Entry,
    ) -> Res<Step> {
        match self.read_target(key, uid, entry).await? {
            Err(skip) => Ok(skip),
            Ok(_) => Err(self.unexpected("PATCH", key, e)),
        }
    }

    // -- coordinates -----------------------------------------------------------------------

    fn target(&self, id: ObjId) -> (ObjectKey, String) {
        let key = ObjectKey::of(self.a.snap, id);
        let uid = self
            .a
            .snap
            .store
            .str(self.a.snap.store.object(id).uid)
            .to_owned();
        (key, uid)
    }

    /// Where the GC looks an owner up (§3.3 step 6): the reference's group/version/kind
    /// (exact kind, or the kind in lower case), in the dependent's namespace for namespaced
    /// kinds.
    fn owner_key(&self, r: &LiveRef, dependent_ns: &str) -> Result<ObjectKey, String> {
        let (group, version) = split_api_version(&r.api_version)
            .ok_or_else(|| format!("apiVersion {:?} does not parse", r.api_version))?;
        let row = self
            .a
            .snap
            .resources
            .iter()
            .find(|x| {
                x.group == group
                    && x.version == version
                    && (x.kind == r.kind || x.kind.to_ascii_lowercase() == r.kind)
            })
            .ok_or_else(|| {
                format!(
                    "{} {} is not served (as of the snapshot)",
                    r.api_version, r.kind
                )
            })?;
        if row.namespaced && dependent_ns.is_empty() {
            return Err("cluster-scoped objects cannot refer to namespaced owners".into());
        }
        Ok(ObjectKey {
            group: row.group.clone(),
            version: row.version.clone(),
            plural: row.plural.clone(),
            kind: row.kind.clone(),
            namespace: if row.namespaced {
                dependent_ns.to_owned()
            } else {
                String::new()
            },
            name: r.name.clone(),
        })
    }

    /// `classifyReferences` (§3.4) against live GETs of the owners.
    async fn classify(
        &mut self,
        meta: &LiveMeta,
        namespace: &str,
        entry: &mut Entry,
    ) -> Res<Vec<LiveClass>> {
        let mut cache: HashMap<String, Option<LiveObject>> = HashMap::new();
        let mut out = Vec::with_capacity(meta.owner_references.len());
        for r in &meta.owner_references {
            let key = match self.owner_key(r, namespace) {
                Ok(k) => k,
                Err(why) => {
                    out.push(LiveClass::Unverifiable(why));
                    continue;
                }
            };
            let path = key.path();
            let owner = match cache.get(&path) {
                Some(o) => o.clone(),
                None => {
                    let o = self.get(&key, entry).await?;
                    cache.insert(path, o.clone());
                    o
                }
            };
            out.push(match owner {
                None => LiveClass::Dangling(format!("{} does not exist", key.describe())),
                Some(o) if o.meta.uid != r.uid => LiveClass::Dangling(format!(
                    "{} has uid {}, not {}",
                    key.describe(),
                    o.meta.uid,
                    r.uid
                )),
                Some(o) if o.meta.terminating() && o.meta.has_finalizer(finalizers::FOREGROUND) => {
                    LiveClass::Waiting
                }
                Some(_) => LiveClass::Solid,
            });
        }
        Ok(out)
    }

    /// Re-checks every owner of the object live: it is still garbage only if none is solid and
    /// each could be checked (rows 9 and 10). Otherwise the skip to report.
    async fn no_solid_owner(
        &mut self,
        meta: &LiveMeta,
        namespace: &str,
        entry: &mut Entry,
    ) -> Res<Result<NoSolidOwner, Step>> {
        let classes = self.classify(meta, namespace, entry).await?;
        let mut verified = NoSolidOwner {
            waiting: false,
            why: Vec::new(),
        };
        for (r, c) in meta.owner_references.iter().zip(&classes) {
            match c {
                LiveClass::Unverifiable(why) => {
                    return Ok(Err(Step::Skip(format!(
                        "cannot re-check owner {}: {why}",
                        Self::describe_ref(r)
                    ))));
                }
                LiveClass::Solid => {
                    return Ok(Err(Step::Skip(format!(
                        "owner {} exists: the object is not garbage",
                        Self::describe_ref(r)
                    ))));
                }
                LiveClass::Waiting => {
                    verified.waiting = true;
                    verified.why.push(format!(
                        "{} is in foreground deletion",
                        Self::describe_ref(r)
                    ));
                }
                LiveClass::Dangling(d) => verified.why.push(format!("dangling: {d}")),
            }
        }
        Ok(Ok(verified))
    }

    /// Row 1 / row 5: the GC does nothing to a terminating object here.
    fn terminating_skip(meta: &LiveMeta) -> Option<Step> {
        if !meta.terminating() {
            return None;
        }
        Some(Step::Skip(if meta.has_finalizer(finalizers::FOREGROUND) {
            "now in foreground deletion: the GC waits for its dependents instead".into()
        } else {
            "already being deleted".into()
        }))
    }

    fn describe_ref(r: &LiveRef) -> String {
        format!("{}/{} ({})", r.kind, r.name, r.uid)
    }

    // -- verbs -----------------------------------------------------------------------------

    async fn delete(&mut self, act: &Action, entry: &mut Entry) -> Res<Step> {
        let (key, uid) = self.target(act.target);
        let obj = match self.read_target(&key, &uid, entry).await? {
            Ok(o) => o,
            Err(skip) => return Ok(skip),
        };
        let policy = if act.reason == Reason::UserDelete {
            if self.opts.user_policy_explicit {
                act.policy
            } else {
                None
            }
        } else {
            if let Some(skip) = Self::terminating_skip(&obj.meta) {
                return Ok(skip);
            }
            if obj.meta.owner_references.is_empty() {
                return Ok(Step::Skip("has no ownerReferences any more".into()));
            }
            let NoSolidOwner { waiting, why } = match self
                .no_solid_owner(&obj.meta, &key.namespace, entry)
                .await?
            {
                Ok(v) => v,
                Err(skip) => return Ok(skip),
            };
            entry.notes.push(format!("verified: {}", why.join("; ")));
            // Row 9 (waiting owner, has dependents) or row 10 (the object's own finalizers).
            let p = if act.reason == Reason::ForegroundForWaitingOwner && waiting {
                Policy::Foreground
            } else if obj.meta.has_finalizer(finalizers::ORPHAN) {
                Policy::Orphan
            } else if obj.meta.has_finalizer(finalizers::FOREGROUND) {
                Policy::Foreground
            } else {
                Policy::Background
            };
            if Some(p) != act.policy {
                entry.notes.push(format!(
                    "propagationPolicy={} from the live object (planned {})",
                    p.as_str(),
                    act.policy.map_or("none", Policy::as_str)
                ));
            }
            Some(p)
        };
        let with_rv =
            act.reason != Reason::UserDelete && self.a.rules.delete_with_resource_version();
        let rv = with_rv.then(|| obj.meta.resource_version.clone());
        let body = patch::delete(&uid, rv.as_deref(), policy);
        let done = |status: u16| {
            Step::Done(format!(
                "deleted (propagationPolicy={}, HTTP {status})",
                policy.map_or("default", Policy::as_str)
            ))
        };
        match self.write(&key, None, body, entry).await {
            Ok(s) => Ok(done(s)),
            Err(e) if e.code == 404 => Ok(Step::Skip("gone before the DELETE (404)".into())),
            Err(e) if e.code == 409 && rv.is_some() => {
                // §3.2 notes (v1.34+): same UID, other resourceVersion, same ownerReferences →
                // retry with the UID precondition only; otherwise re-verify.
                let Some(latest) = self.get(&key, entry).await? else {
                    return Ok(Step::Skip("gone before the DELETE (409, then 404)".into()));
                };
                if latest.meta.uid == uid
                    && latest.meta.resource_version != obj.meta.resource_version
                    && latest.meta.owner_references == obj.meta.owner_references
                {
                    entry.before = Some(latest.raw.clone());
                    let body = patch::delete(&uid, None, policy);
                    match self.write(&key, None, body, entry).await {
                        Ok(s) => Ok(done(s)),
                        Err(e) if e.code == 404 => {
                            Ok(Step::Skip("gone before the DELETE (404)".into()))
                        }
                        Err(e) if e.code == 409 => Ok(Step::Conflict(e.describe())),
                        Err(e) => Err(self.unexpected("DELETE", &key, &e)),
                    }
                } else {
                    Ok(Step::Conflict(e.describe()))
                }
            }
            Err(e) if e.code == 409 => Ok(Step::Conflict(e.describe())),
            Err(e) => Err(self.unexpected("DELETE", &key, &e)),
        }
    }

    async fn remove_refs(&mut self, act: &Action, entry: &mut Entry) -> Res<Step> {
        let a = self.a;
        let store = &a.snap.store;
        let planned: Vec<String> = act
            .owner_refs
            .iter()
            .map(|u| store.str(*u).to_owned())
            .collect();
        if let Reason::Orphan { owner } = act.reason {
            // attemptToOrphan (§4): only while the owner is terminating with `orphan`.
            let (okey, ouid) = self.target(owner);
            match self.get(&okey, entry).await? {
                None => return Ok(Step::Skip(format!("owner {} is gone", okey.describe()))),
                Some(o) if o.meta.uid != ouid => {
                    return Ok(Step::Skip(format!(
                        "owner {} was recreated (uid {})",
                        okey.describe(),
                        o.meta.uid
                    )));
                }
                Some(o) if !(o.meta.terminating() && o.meta.has_finalizer(finalizers::ORPHAN)) => {
                    return Ok(Step::Skip(format!(
                        "owner {} is no longer being deleted with the orphan finalizer",
                        okey.describe()
                    )));
                }
                Some(_) => {}
            }
        }
        let (key, uid) = self.target(act.target);
        let obj = match self.read_target(&key, &uid, entry).await? {
            Ok(o) => o,
            Err(skip) => return Ok(skip),
        };
        let present: Vec<String> = planned
            .iter()
            .filter(|u| obj.meta.owner_references.iter().any(|r| &r.uid == *u))
            .cloned()
            .collect();
        if present.is_empty() {
            return Ok(Step::Skip("the references are already gone".into()));
        }
        if act.reason == Reason::StripDanglingAndWaiting {
            if let Some(skip) = Self::terminating_skip(&obj.meta) {
                return Ok(skip);
            }
            let classes = self.classify(&obj.meta, &key.namespace, entry).await?;
            let mut solid = false;
            for (r, c) in obj.meta.owner_references.iter().zip(&classes) {
                match c {
                    LiveClass::Unverifiable(why) => {
                        return Ok(Step::Skip(format!(
                            "cannot re-check owner {}: {why}",
                            Self::describe_ref(r)
                        )));
                    }
                    LiveClass::Solid if present.contains(&r.uid) => {
                        return Ok(Step::Skip(format!(
                            "owner {} exists again",
                            Self::describe_ref(r)
                        )));
                    }
                    LiveClass::Solid => solid = true,
                    LiveClass::Waiting | LiveClass::Dangling(_) => {}
                }
            }
            if !solid {
                return Ok(Step::Skip(
                    "no solid owner left: the GC would now delete the object instead (re-run collect)"
                        .into(),
                ));
            }
        }
        if present.len() < planned.len() {
            entry.notes.push(format!(
                "{} of the planned references were already gone",
                planned.len() - present.len()
            ));
        }
        let refs: Vec<&str> = present.iter().map(String::as_str).collect();
        let smp = patch::remove_refs_smp(&uid, &refs, self.a.rules.uid_first_patch_order());
        let done =
            |n: usize, how: &str| Step::Done(format!("removed {n} ownerReference(s) ({how})"));
        match self
            .write(&key, Some(PatchType::Strategic), smp, entry)
            .await
        {
            Ok(_) => Ok(done(present.len(), "strategic merge patch")),
            Err(e) if e.code == 404 => Ok(Step::Skip("gone before the PATCH (404)".into())),
            Err(e) if e.code == 409 => Ok(Step::Conflict(e.describe())),
            Err(e) if e.code == 422 => self.after_invalid(&key, &uid, &e, entry).await,
            Err(e) if e.code == 415 => {
                // §3.7: JSON merge patch from a fresh read, guarded by its resourceVersion.
                let fresh = match self.read_target(&key, &uid, entry).await? {
                    Ok(o) => o,
                    Err(skip) => return Ok(skip),
                };
                let remaining: Vec<LiveRef> = fresh
                    .meta
                    .owner_references
                    .iter()
                    .filter(|r| !present.contains(&r.uid))
                    .cloned()
                    .collect();
                let removed = fresh.meta.owner_references.len() - remaining.len();
                if removed == 0 {
                    return Ok(Step::Skip("the references are already gone".into()));
                }
                let jmp = patch::refs_jmp(&fresh.meta.resource_version, &remaining);
                match self.write(&key, Some(PatchType::Merge), jmp, entry).await {
                    Ok(_) => Ok(done(removed, "JSON merge patch after 415")),
                    Err(e) if e.code == 404 => Ok(Step::Skip("gone before the PATCH (404)".into())),
                    Err(e) if e.code == 409 => Ok(Step::Conflict(e.describe())),
                    Err(e) => Err(self.unexpected("PATCH", &key, &e)),
                }
            }
            Err(e) => Err(self.unexpected("PATCH", &key, &e)),
        }
    }

    async fn unblock(&mut self, act: &Action, entry: &mut Entry) -> Res<Step> {
        let a = self.a;
        let store = &a.snap.store;
        let planned: Vec<String> = act
            .owner_refs
            .iter()
            .map(|u| store.str(*u).to_owned())
            .collect();
        let (key, uid) = self.target(act.target);
        let obj = match self.read_target(&key, &uid, entry).await? {
            Ok(o) => o,
            Err(skip) => return Ok(skip),
        };
        if let Some(skip) = Self::terminating_skip(&obj.meta) {
            return Ok(skip);
        }
        let waiting = match self
            .no_solid_owner(&obj.meta, &key.namespace, entry)
            .await?
        {
            Ok(v) => v.waiting,
            Err(skip) => return Ok(skip),
        };
        if !waiting {
            return Ok(Step::Skip(
                "no owner is in foreground deletion any more".into(),
            ));
        }
        let blocking: Vec<LiveRef> = obj
            .meta
            .owner_references
            .iter()
            .filter(|r| r.blocks() && planned.contains(&r.uid))
            .cloned()
            .collect();
        if blocking.is_empty() {
            return Ok(Step::Skip("the references no longer block".into()));
        }
        let smp = patch::unblock_smp(&uid, &blocking);
        let done = |how: &str| {
            Step::Done(format!(
                "set blockOwnerDeletion=false on {} reference(s) ({how})",
                blocking.len()
            ))
        };
        match self
            .write(&key, Some(PatchType::Strategic), smp, entry)
            .await
        {
            Ok(_) => Ok(done("strategic merge patch")),
            Err(e) if e.code == 404 => Ok(Step::Skip("gone before the PATCH (404)".into())),
            Err(e) if e.code == 409 => Ok(Step::Conflict(e.describe())),
            Err(e) if e.code == 422 => self.after_invalid(&key, &uid, &e, entry).await,
            Err(e) if e.code == 415 => {
                let fresh = match self.read_target(&key, &uid, entry).await? {
                    Ok(o) => o,
                    Err(skip) => return Ok(skip),
                };
                let jmp =
                    patch::unblock_jmp(&fresh.meta.resource_version, &fresh.meta.owner_references);
                match self.write(&key, Some(PatchType::Merge), jmp, entry).await {
                    Ok(_) => Ok(done("JSON merge patch after 415")),
                    Err(e) if e.code == 404 => Ok(Step::Skip("gone before the PATCH (404)".into())),
                    Err(e) if e.code == 409 => Ok(Step::Conflict(e.describe())),
                    Err(e) => Err(self.unexpected("PATCH", &key, &e)),
                }
            }
            Err(e) => Err(self.unexpected("PATCH", &key, &e)),
        }
    }

    /// Dependents (from the snapshot's graph) that may still hold the target: for foreground
    /// deletion those with a blocking reference, for orphaning those with any reference.
    fn snapshot_dependents(&self, id: ObjId, blocking_only: bool) -> Vec<ObjId> {
        let a = self.a;
        let store = &a.snap.store;
        let uid = store.object(id).uid;
        let mut out: Vec<ObjId> = a
            .graph
            .dependents(a.graph.node_of_object(id))
            .iter()
            .filter_map(|&n| a.graph.object(n))
            .filter(|&d| {
                store
                    .owner_refs(d)
                    .iter()
                    .any(|r| r.uid == uid && (!blocking_only || r.blocks()))
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    async fn remove_finalizer(&mut self, act: &Action, entry: &mut Entry) -> Res<Step> {
        let a = self.a;
        let store = &a.snap.store;
        let fin = act
            .finalizer
            .map(|f| store.str(f).to_owned())
            .unwrap_or_default();
        let (key, uid) = self.target(act.target);
        let mut obj = match self.read_target(&key, &uid, entry).await? {
            Ok(o) => o,
            Err(skip) => return Ok(skip),
        };
        if !obj.meta.terminating() {
            return Ok(Step::Skip("not being deleted".into()));
        }
        if !obj.meta.has_finalizer(&fin) {
            return Ok(Step::Skip(format!("finalizer {fin} already removed")));
        }
        // The verdict: nothing blocks a foreground deletion; every dependent was orphaned.
        let foreground = matches!(act.reason, Reason::ForegroundDone);
        for d in self.snapshot_dependents(act.target, foreground) {
            let (dkey, duid) = self.target(d);
            let Some(dep) = self.get(&dkey, entry).await? else {
                continue;
            };
            if dep.meta.uid != duid {
                continue;
            }
            let holds = dep
                .meta
                .owner_references
                .iter()
                .any(|r| r.uid == uid && (!foreground || r.blocks()));
            if holds {
                return Ok(Step::Skip(if foreground {
                    format!(
                        "dependent {} still blocks the deletion (blockOwnerDeletion=true)",
                        dkey.describe()
                    )
                } else {
                    format!(
                        "dependent {} still references the owner: it was not orphaned",
                        dkey.describe()
                    )
                }));
            }
        }
        // removeFinalizer (§3.8): JSON merge patch with the resourceVersion, retried on 409 with
        // a fresh read (and, unlike the GC, a UID check on every read).
        for attempt in 0..MAX_ATTEMPTS {
            if attempt > 0 {
                tokio::time::sleep(CONFLICT_BACKOFF.delay(attempt - 1)).await;
                obj = match self.read_target(&key, &uid, entry).await? {
                    Ok(o) => o,
                    Err(skip) => return Ok(skip),
                };
                if !obj.meta.has_finalizer(&fin) {
                    return Ok(Step::Skip(format!("finalizer {fin} already removed")));
                }
            }
            let rest: Vec<String> = obj
                .meta
                .finalizers
                .iter()
                .filter(|f| **f != fin)
                .cloned()
                .collect();
            let body = patch::finalizers_jmp(&obj.meta.resource_version, &rest);
            match self.write(&key, Some(PatchType::Merge), body, entry).await {
                Ok(_) => {
                    return Ok(Step::Done(if rest.is_empty() {
                        format!("removed finalizer {fin}; no finalizer left, the object is gone")
                    } else {
                        format!("removed finalizer {fin}; still held by {}", rest.join(", "))
                    }));
                }
                Err(e) if e.code == 404 => {
                    return Ok(Step::Skip("gone before the PATCH (404)".into()));
                }
                Err(e) if e.code == 409 => {
                    entry
                        .notes
                        .push(format!("attempt {}: {}", attempt + 1, e.describe()));
                }
                Err(e) => return Err(self.unexpected("PATCH", &key, &e)),
            }
        }
        Err(Fail(format!(
            "removing finalizer {fin}: 409 Conflict {MAX_ATTEMPTS} times (the GC's updateMaxRetries)"
        )))
    }
}

#[cfg(test)]
mod tests;
