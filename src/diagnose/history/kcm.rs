//! The controller-manager-log source: what kube-controller-manager's own log shows the
//! garbage collector and the namespace controller doing (`diagnose::controller_log` reads its
//! lines into actions with the causes its own lines prove), turned into the history's actions
//! (`record.rs`) beside the audit log's.
//!
//! An action both sources show is one action: the log's line is matched to the audit event of
//! the same object, actor and action close in time (the GC logs a request just before it sends
//! it), and becomes that action's second proof, with the cause the GC's own words give. An
//! action only the log shows is an action of its own, proven by the log alone: who acted is the
//! controller the log names, not an authenticated user. Every start of the GC is an action
//! (`gc-start`): what the GC deletes right after one, it deletes at the restart.

use super::record::{Action, Evidence, LogNote, ObjKey, Origin, Recorder, Who};
use super::types::{ActorKind, Cause, CauseKind, ObjectRef, Policy, Proof, Verb};
use crate::diagnose::controller_log::{Builder, LogAction, LogCause, LogHistory, at};
use crate::error::{Error, Result};
use crate::model::Sym;
use crate::source::audit::Level;
use crate::source::controller_log::{self, Ident, LogOptions, Problem};
use std::collections::{HashMap, HashSet};

/// The user the log's own actions name: the log says which controller acted, not with which
/// credentials.
pub const LOG_USER: &str = "kube-controller-manager";

/// How far apart a log line and an audit event of the same action may be.
const SAME_ACTION_US: i64 = 5_000_000;
/// Actions this soon after a GC start are marked with it.
const AFTER_START_US: i64 = 60_000_000;

/// kube-controller-manager's logs to read (`--controller-manager-log`).
#[derive(Clone, Debug, Default)]
pub struct KcmLogs {
    /// Files, directories, globs, `-`.
    pub paths: Vec<std::path::PathBuf>,
    /// `--max-input-size` (0: the default).
    pub max_input_bytes: u64,
    /// `--year`: the year of klog's yearless times.
    pub year: Option<i64>,
}

/// What was read of kube-controller-manager's log (`read.controllerManagerLog`).
#[derive(Clone, Debug, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogRead {
    /// Lines read.
    pub lines: u64,
    /// Lines of the GC and the namespace controller among them.
    pub controller_lines: u64,
    /// The highest `--v` of a line read (the log's verbosity is at least this).
    pub verbosity: u8,
}

/// Reads the logs into the log's history. `near_us`: the instant klog's yearless times are
/// read nearest to (the other sources' window). `alone`: no other source holds an action, so a
/// log that cannot show the GC's work is an error (exit 3), not an empty answer.
pub(super) fn read(
    logs: &KcmLogs,
    near_us: Option<i64>,
    alone: bool,
) -> Result<(LogHistory, LogRead, Vec<Problem>)> {
    let mut builder = Builder::default();
    let stats = controller_log::read(
        &LogOptions {
            paths: logs.paths.clone(),
            max_input_bytes: logs.max_input_bytes,
            year: logs.year,
            near_us,
        },
        &mut |r| builder.push(r),
    )?;
    if stats.no_year > 0 {
        return Err(Error::usage(
            format!(
                "{} line(s) of the controller manager's log have klog times, which hold no year, \
                 and nothing gives one (standard input, no other source)",
                stats.no_year
            ),
            "give --year YYYY (the year of the log's first line), or the log as a file",
        ));
    }
    if alone {
        controller_log::require_work(&stats, &logs.paths)?;
    }
    let mut log = builder.finish(&stats);
    if stats.max_v < 2 && !alone {
        log.notes.push(
            "the controller-manager log holds no line of the GC's work: it was written below \
             --v=2, where the GC logs none of its deletions"
                .into(),
        );
    }
    if stats.long_lines > 0 {
        log.notes.push(format!(
            "{} line(s) of the controller-manager log longer than 1 MiB were not read",
            stats.long_lines
        ));
    }
    if stats.other_lines > 0 {
        log.notes.push(format!(
            "{} line(s) of other components in the controller-manager log inputs were passed over",
            stats.other_lines
        ));
    }
    let read = LogRead {
        lines: stats.lines,
        controller_lines: stats.by_kind.values().sum(),
        verbosity: stats.max_v,
    };
    Ok((log, read, stats.problems))
}

/// An object of the log as the history names it: group and resource from the built-in catalog
/// (a kind it does not know gets kubectl's lower-case plural, which custom resources nearly
/// always use).
pub(super) fn obj_of(o: &Ident, resource: Option<&(String, String)>) -> ObjectRef {
    let builtin = crate::catalog::builtin::all();
    let (group_of_version, version) = match o.api_version.rsplit_once('/') {
        Some((g, v)) => (g.to_owned(), v.to_owned()),
        None => (String::new(), o.api_version.clone()),
    };
    let (group, plural, kind) = match resource {
        Some((g, r)) => {
            let kind = builtin
                .iter()
                .find(|b| b.group == *g && b.plural == *r)
                .map_or_else(|| o.kind.clone(), |b| b.kind.to_owned());
            (g.clone(), r.clone(), kind)
        }
        None => {
            let found = builtin.iter().find(|b| {
                b.kind == o.kind && (o.api_version.is_empty() || b.group == group_of_version)
            });
            match found {
                Some(b) => (b.group.to_owned(), b.plural.to_owned(), o.kind.clone()),
                None => (
                    group_of_version,
                    format!("{}s", o.kind.to_ascii_lowercase()),
                    o.kind.clone(),
                ),
            }
        }
    };
    ObjectRef {
        group,
        version,
        kind,
        resource: plural,
        namespace: o.namespace.clone(),
        name: o.name.clone(),
        uid: o.uid.clone(),
    }
}

/// The history's cause of what the log's lines prove.
fn cause_of(c: &LogCause) -> Cause {
    let mut cause = Cause::new(
        c.type_,
        c.owner.as_ref().map(|o| obj_of(o, None)),
        c.detail.clone(),
    );
    cause.policy = c.policy.unwrap_or(Policy::Unknown);
    cause
}

/// The log's line of an action, and what it says that adds to the row.
fn proof_of(a: &LogAction) -> Proof {
    let mut says = Vec::new();
    if let Some(p) = &a.policy {
        says.push(format!("propagationPolicy={p}"));
    }
    if a.cause.type_ != CauseKind::Unknown {
        says.push(a.cause.detail.clone());
    }
    for e in &a.evidence {
        says.push(format!("see {}", at(e)));
    }
    Proof {
        source: "controller-manager-log",
        at: at(&a.position),
        says: (!says.is_empty()).then(|| says.join("; ")),
    }
}

/// The history's verb of a log action.
fn verb_of(action: &str) -> Verb {
    match action {
        "remove-finalizer" => Verb::RemoveFinalizer,
        "remove-owner-references" => Verb::RemoveOwnerReferences,
        "orphan-dependents" => Verb::OrphanDependents,
        "delete-collection" => Verb::DeleteCollection,
        "delete-namespace-content" => Verb::DeleteNamespaceContent,
        _ => Verb::Delete,
    }
}

/// The audit log's verbs a log action can be (the namespace controller logs a namespace gone
/// once its `finalize` went through; an Orphan deletion ends with the GC removing `orphan`).
fn audit_verbs(action: &str) -> &'static [Verb] {
    match action {
        "delete" => &[Verb::Delete],
        "remove-finalizer" | "orphan-dependents" => &[Verb::RemoveFinalizer, Verb::OtherPatch],
        "remove-owner-references" => &[Verb::RemoveOwnerReferences, Verb::OtherPatch],
        "delete-collection" => &[Verb::DeleteCollection],
        "delete-namespace-content" => &[Verb::RemoveFinalizer, Verb::Delete],
        _ => &[],
    }
}

fn actor_kind(actor: &str) -> ActorKind {
    match actor {
        "namespace-controller" => ActorKind::NamespaceController,
        _ => ActorKind::GarbageCollector,
    }
}

/// Whether an audit event at `us` can be the request of log action `a`: the GC logs a request
/// just before sending it; the namespace controller logs a namespace gone only once it looks
/// again, 5 s (its grace period) or more after the last request.
fn close_in_time(a: &LogAction, us: i64) -> bool {
    match a.action {
        "delete-namespace-content" => (0..=3 * SAME_ACTION_US).contains(&(a.time_us - us)),
        _ => (us - a.time_us).abs() <= SAME_ACTION_US,
    }
}

impl Recorder {
    /// Takes the controller manager's log, after the audit log (whose actions it matches):
    /// each of its actions is the audit log's action it proves again, or one of its own; each
    /// GC start an action; its notes on what its verbosity cannot show.
    pub(super) fn push_log(&mut self, log: LogHistory) {
        let mut by_key: HashMap<ObjKey, Vec<usize>> = HashMap::new();
        for (i, a) in self.actions.iter().enumerate() {
            if a.evidence.origin == Origin::AuditLog {
                by_key.entry(a.key).or_default().push(i);
            }
        }
        let mut taken = vec![false; self.actions.len()];
        // A line read twice (a rotated file and its `.gz` copy, overlapping exports) is one
        // action: the same time to the microsecond, action and object.
        let mut seen: HashSet<(i64, &str, ObjKey)> = HashSet::new();
        let mut twice = 0usize;
        for a in &log.actions {
            let o = obj_of(&a.object, a.resource.as_ref());
            let key = self.key_of_obj(&o);
            if !seen.insert((a.time_us, a.action, key)) {
                twice += 1;
                continue;
            }
            let uid = self.intern(&o.uid);
            let note = self.note(LogNote {
                proof: proof_of(a),
                cause: cause_of(&a.cause),
            });
            let policy = a.policy.as_deref().map(Policy::parse);
            self.widen(a.time_us);
            match self.matching(&by_key, &taken, a, &key, uid) {
                Some(i) => {
                    taken[i] = true;
                    let x = &mut self.actions[i];
                    x.log = Some(note);
                    // The log states the policy the GC sent, as a request body does.
                    x.policy = x.policy.or(policy);
                    if x.uid.is_empty() {
                        x.uid = uid;
                    }
                }
                None => {
                    let who = self.log_actor(actor_kind(a.actor));
                    let evidence = self.log_evidence(&a.position);
                    let version = self.intern(&o.version);
                    self.action(log_action(
                        a.time_us,
                        verb_of(a.action),
                        (key, version, uid, who),
                        evidence,
                        policy,
                        note,
                    ));
                }
            }
        }
        for s in &log.starts {
            if !seen.insert((s.time_us, "gc-start", ObjKey::default())) {
                twice += 1;
                continue;
            }
            let says = format!(
                "the garbage collector started{}: it builds its graph anew from fresh lists and \
                 acts on what it finds there",
                s.version
                    .as_ref()
                    .map_or(String::new(), |v| format!(" (kube-controller-manager {v})"))
            );
            let note = self.note(LogNote {
                proof: Proof {
                    source: "controller-manager-log",
                    at: at(&s.position),
                    says: Some(says.clone()),
                },
                cause: Cause::unknown(says),
            });
            let who = self.log_actor(ActorKind::GarbageCollector);
            let evidence = self.log_evidence(&s.position);
            self.widen(s.time_us);
            let none = (ObjKey::default(), Sym::EMPTY, Sym::EMPTY, who);
            self.action(log_action(
                s.time_us,
                Verb::GcStart,
                none,
                evidence,
                None,
                note,
            ));
            self.gc_starts.push(s.time_us);
        }
        self.gc_starts.sort_unstable();
        if twice > 0 {
            self.log_limits.push(format!(
                "{twice} line(s) of the controller-manager log were read twice (overlapping \
                 inputs: a rotated file and its .gz copy?): each action is shown once"
            ));
        }
        self.log_limits.extend(log.notes);
    }

    /// The audit log's action log action `a` is, if any: same object, actor and a matching
    /// verb, close in time, not matched before (the closest).
    fn matching(
        &self,
        by_key: &HashMap<ObjKey, Vec<usize>>,
        taken: &[bool],
        a: &LogAction,
        key: &ObjKey,
        uid: Sym,
    ) -> Option<usize> {
        let verbs = audit_verbs(a.action);
        let kind = actor_kind(a.actor);
        by_key
            .get(key)?
            .iter()
            .copied()
            .filter(|&i| {
                let x = &self.actions[i];
                !taken[i]
                    && self.actors[x.who as usize].kind == kind
                    && verbs.contains(&x.verb)
                    && (uid.is_empty() || x.uid.is_empty() || x.uid == uid)
                    && close_in_time(a, x.time_us)
            })
            .min_by_key(|&i| (self.actions[i].time_us - a.time_us).abs())
    }

    fn key_of_obj(&mut self, o: &ObjectRef) -> ObjKey {
        ObjKey {
            group: self.intern(&o.group),
            resource: self.intern(&o.resource),
            namespace: self.intern(&o.namespace),
            name: self.intern(&o.name),
        }
    }

    fn note(&mut self, n: LogNote) -> u32 {
        self.log_notes.push(n);
        (self.log_notes.len() - 1) as u32
    }

    /// The controller the log names as the actor.
    fn log_actor(&mut self, kind: ActorKind) -> u32 {
        let who = Who {
            kind,
            user: self.intern(LOG_USER),
            impersonated_by: Sym::EMPTY,
            user_agent: Sym::EMPTY,
        };
        self.actor(who)
    }

    fn log_evidence(&mut self, p: &controller_log::Position) -> Evidence {
        Evidence {
            origin: Origin::ControllerManagerLog,
            source: self.intern(&p.source),
            line: p.line,
            level: Level::Unknown,
        }
    }

    /// The window covers the log's actions too.
    fn widen(&mut self, us: i64) {
        self.first_us = Some(self.first_us.map_or(us, |t| t.min(us)));
        self.last_us = Some(self.last_us.map_or(us, |t| t.max(us)));
    }

    /// How long after the last GC start `us` is, within a minute of it (ms).
    pub(super) fn after_gc_start_ms(&self, us: i64) -> Option<i64> {
        let i = self.gc_starts.partition_point(|&s| s <= us);
        let last = *self.gc_starts.get(i.checked_sub(1)?)?;
        (us - last <= AFTER_START_US).then(|| (us - last) / 1000)
    }
}

/// An action only the log shows: `what` is its key, version, UID and actor.
fn log_action(
    time_us: i64,
    verb: Verb,
    what: (ObjKey, Sym, Sym, u32),
    evidence: Evidence,
    policy: Option<Policy>,
    note: u32,
) -> Action {
    let (key, version, uid, who) = what;
    Action {
        time_us,
        verb,
        key,
        version,
        uid,
        who,
        evidence,
        policy,
        removed_at_once: false,
        removed_ref: Sym::EMPTY,
        refs: None,
        labels: Sym::EMPTY,
        fields: false,
        log: Some(note),
    }
}

/// The cause of an action the log shows: the log's where its lines prove one (the GC's own
/// words about this object: the owner's real namespace, the Foreground owner), with the chain's
/// root and the policy of the answer's where that has them; else the answer's (`more`: the
/// audit log shows the action too, or a state around the log was read, so the answer's rests
/// on more than the log's silence).
pub(super) fn merged_cause(answer: Option<Cause>, log: &Cause, more: bool) -> Option<Cause> {
    if log.type_ == CauseKind::Unknown {
        return match answer {
            Some(c) if more || c.type_ != CauseKind::Unknown => Some(c),
            _ => Some(log.clone()),
        };
    }
    match answer {
        Some(c) if c.type_ == log.type_ && c.root.is_some() => Some(c),
        Some(c) => {
            let mut m = log.clone();
            m.root = c.root;
            if m.policy == Policy::Unknown {
                (m.policy, m.policy_inferred) = (c.policy, c.policy_inferred);
            }
            Some(m)
        }
        None => Some(log.clone()),
    }
}
