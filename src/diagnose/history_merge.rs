//! The other sources of `history`, merged into one history: kube-controller-manager's log
//! ([`super::controller_log`]), the GC's Events, and `watch --journal`. An action seen in two
//! sources is one row with the evidence of each (matched by object, action and time: the
//! controller manager logs a deletion just before its request reaches the API server); an
//! action only one source shows is a row of its own, saying which. Every start of the GC is a
//! row (`gc-start`), and each action within a minute after one says how long after.

use super::controller_log::{LogAction, LogCause, LogHistory, at};
use super::history::{Actor, Cause, Evidence, History, Item, Obj, format_us};
use crate::source::controller_log::Ident;

/// How far apart a log line and an audit event of the same action may be.
const SAME_ACTION_US: i64 = 5_000_000;
/// Actions this soon after a GC start are marked with it.
const AFTER_START_US: i64 = 60_000_000;

/// The user a row from the controller manager's log names: the log says which controller
/// acted, not with which credentials.
const LOG_USER: &str = "kube-controller-manager";

/// An object of the log as history names it: group and resource from the built-in catalog
/// (a kind it does not know gets kubectl's lower-case plural, which custom resources
/// nearly always use).
pub fn obj_of(o: &Ident, resource: Option<&(String, String)>) -> Obj {
    let builtin = crate::catalog::builtin::all();
    let group_of_version = |v: &str| {
        v.rsplit_once('/')
            .map_or(String::new(), |(g, _)| g.to_owned())
    };
    let (group, plural) = match resource {
        Some((g, r)) => (g.clone(), r.clone()),
        None => {
            let found = builtin.iter().find(|b| {
                b.kind == o.kind
                    && (o.api_version.is_empty() || b.group == group_of_version(&o.api_version))
            });
            match found {
                Some(b) => (b.group.to_owned(), b.plural.to_owned()),
                None => (
                    group_of_version(&o.api_version),
                    format!("{}s", o.kind.to_ascii_lowercase()),
                ),
            }
        }
    };
    Obj {
        group,
        resource: plural,
        namespace: o.namespace.clone(),
        name: o.name.clone(),
        uid: (!o.uid.is_empty()).then(|| o.uid.clone()),
    }
}

fn policy_str(p: Option<&str>) -> &'static str {
    match p {
        Some("Background") => "Background",
        Some("Foreground") => "Foreground",
        Some("Orphan") => "Orphan",
        _ => "unknown",
    }
}

fn cause_of(c: &LogCause) -> Cause {
    Cause {
        type_: c.type_,
        owner: c.owner.as_ref().map(|o| obj_of(o, None)),
        policy: policy_str(c.policy),
        root: None,
        detail: c.detail.clone(),
    }
}

/// The cause of a row two sources show: the controller manager's line where it names one (the
/// GC's own words about this object: the owner's real namespace, the Foreground owner), with
/// the root of the other's where that has one; else the other's.
fn merged_cause(other: Option<Cause>, log: &LogCause) -> Option<Cause> {
    if log.type_ == "unknown" {
        return other.or_else(|| Some(cause_of(log)));
    }
    match other {
        Some(c) if c.type_ == log.type_ && c.root.is_some() => Some(c),
        Some(c) => Some(Cause {
            root: c.root,
            ..cause_of(log)
        }),
        None => Some(cause_of(log)),
    }
}

/// The audit log's action a log action is, if any: same object, a matching action, close in
/// time, not matched before.
fn matching(items: &[Item], taken: &[bool], a: &LogAction, o: &Obj) -> Option<usize> {
    let actions: &[&str] = match a.action {
        "orphan-dependents" => &["remove-finalizer"],
        "delete-namespace-content" => &["remove-finalizer", "delete"],
        other => &[other],
    };
    let same_object = |it: &Item| match (&it.object.uid, &o.uid) {
        (Some(x), Some(y)) => x == y,
        _ => {
            it.object.group == o.group
                && it.object.resource == o.resource
                && it.object.namespace == o.namespace
                && it.object.name == o.name
        }
    };
    items
        .iter()
        .enumerate()
        .filter(|(i, it)| {
            !taken[*i]
                && it.actor.kind == a.actor
                && actions.contains(&it.action)
                && same_object(it)
                && close_in_time(a, it.time_us)
        })
        .min_by_key(|(_, it)| (it.time_us - a.time_us).abs())
        .map(|(i, _)| i)
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

fn log_evidence(a: &LogAction) -> Evidence {
    let mut says = Vec::new();
    if let Some(p) = &a.policy {
        says.push(format!("propagationPolicy={p}"));
    }
    if a.cause.type_ != "unknown" {
        says.push(a.cause.detail.clone());
    }
    for e in &a.evidence {
        says.push(format!("see {}", at(e)));
    }
    Evidence {
        source: "controller-manager-log",
        at: at(&a.position),
        says: (!says.is_empty()).then(|| says.join("; ")),
    }
}

fn item_of(a: &LogAction) -> Item {
    let o = obj_of(&a.object, a.resource.as_ref());
    Item {
        time: format_us(a.time_us),
        time_us: a.time_us,
        action: a.action,
        object: o,
        actor: Actor {
            kind: a.actor,
            user: LOG_USER.to_owned(),
            impersonated_by: None,
            user_agent: String::new(),
        },
        cause: Some(cause_of(&a.cause)),
        level: "log",
        source: at(&a.position),
        count: 1,
        last: None,
        last_us: a.time_us,
        taken: Vec::new(),
        after: None,
        evidence: vec![log_evidence(a)],
        after_gc_start_ms: None,
    }
}

/// Adds the controller manager's log to `h`: its actions (one row with the audit log's where
/// both show one), its GC starts, its notes.
pub fn merge_log(h: &mut History, log: LogHistory) {
    for it in &mut h.items {
        if it.evidence.is_empty() {
            it.evidence.push(Evidence {
                source: "audit-log",
                at: it.source.clone(),
                says: None,
            });
        }
    }
    let mut taken = vec![false; h.items.len()];
    let mut added = Vec::new();
    for a in &log.actions {
        let o = obj_of(&a.object, a.resource.as_ref());
        match matching(&h.items, &taken, a, &o) {
            Some(i) => {
                taken[i] = true;
                let it = &mut h.items[i];
                it.evidence.push(log_evidence(a));
                it.cause = merged_cause(it.cause.take(), &a.cause);
            }
            None => added.push(item_of(a)),
        }
    }
    for s in &log.starts {
        added.push(Item {
            time: format_us(s.time_us),
            time_us: s.time_us,
            action: "gc-start",
            object: Obj::default(),
            actor: Actor {
                kind: "garbage-collector",
                user: LOG_USER.to_owned(),
                impersonated_by: None,
                user_agent: String::new(),
            },
            cause: None,
            level: "log",
            source: at(&s.position),
            count: 1,
            last: None,
            last_us: s.time_us,
            taken: Vec::new(),
            after: None,
            evidence: vec![Evidence {
                source: "controller-manager-log",
                at: at(&s.position),
                says: Some(format!(
                    "the garbage collector started{}: it builds its graph anew from fresh lists \
                     and acts on what it finds there",
                    s.version
                        .as_ref()
                        .map_or(String::new(), |v| format!(" (kube-controller-manager {v})"))
                )),
            }],
            after_gc_start_ms: None,
        });
    }
    h.items.extend(added);
    h.items.sort_by_key(|it| it.time_us);
    let starts: Vec<i64> = log.starts.iter().map(|s| s.time_us).collect();
    for it in &mut h.items {
        if it.action == "gc-start" {
            continue;
        }
        let last = starts.iter().rev().find(|&&s| s <= it.time_us);
        it.after_gc_start_ms = last
            .filter(|&&s| it.time_us - s <= AFTER_START_US)
            .map(|&s| (it.time_us - s) / 1000);
    }
    let gc = h
        .items
        .iter()
        .any(|it| it.actor.kind == "garbage-collector" && it.action != "gc-start");
    h.summary.gc_seen |= gc;
    let first = h.items.first().map(|it| it.time_us);
    let last = h.items.last().map(|it| it.time_us);
    if let (Some(f), Some(l)) = (first, last) {
        h.summary.from = Some(format_us(f));
        h.summary.to = Some(format_us(l));
    }
    h.summary
        .notes
        .retain(|n| !(gc && n.starts_with("no write of the garbage collector")));
    h.summary.notes.extend(log.notes);
    h.summary.logged = h.items.len();
    let items = std::mem::take(&mut h.items);
    h.summary.count(&items);
    h.items = items;
}

/// A history with no action yet (when the audit log is not among the sources).
pub fn empty() -> History {
    History {
        items: Vec::new(),
        unlogged: Vec::new(),
        summary: super::history::Summary::default(),
    }
}

/// The log's deletions as the requests the GC sent — the log names the object, its UID and the
/// propagation policy the GC sent, as a request body does —, read into a history with the
/// states around the log: a state before explains each deletion with the same causes as the
/// audit log's (whose owner is gone, in another namespace, recreated). The rows are then the
/// log's: who acted is the controller named by the log, not an authenticated user.
pub fn from_log_with_states(log: &LogHistory, states: super::history::States<'_>) -> History {
    use crate::source::audit::{AuditEvent, Bodies, Level, ObjectReference};
    let mut recorder = super::history::Recorder::default();
    for a in log.actions.iter().filter(|a| a.action == "delete") {
        let o = obj_of(&a.object, None);
        let version = a
            .object
            .api_version
            .rsplit('/')
            .next()
            .unwrap_or("v1")
            .to_owned();
        let version = if version.is_empty() {
            "v1".to_owned()
        } else {
            version
        };
        let prefix = if o.group.is_empty() {
            format!("/api/{version}")
        } else {
            format!("/apis/{}/{version}", o.group)
        };
        let ns = if o.namespace.is_empty() {
            String::new()
        } else {
            format!("/namespaces/{}", o.namespace)
        };
        recorder.push(AuditEvent {
            audit_id: format!("controller-manager-log:{}", at(&a.position)),
            level: Level::Request,
            time_us: a.time_us,
            verb: "delete".into(),
            request_uri: format!("{prefix}{ns}/{}/{}", o.resource, o.name),
            user: super::history::GC_USER.into(),
            groups: vec![
                "system:serviceaccounts".into(),
                "system:serviceaccounts:kube-system".into(),
            ],
            user_agent: "kube-controller-manager/generic-garbage-collector".into(),
            object: Some(ObjectReference {
                resource: o.resource.clone(),
                namespace: o.namespace.clone(),
                name: o.name.clone(),
                api_group: o.group.clone(),
                api_version: version,
                ..ObjectReference::default()
            }),
            code: 200,
            bodies: Bodies {
                propagation_policy: a.policy.clone(),
                precondition_uid: o.uid.clone(),
                ..Bodies::default()
            },
            position: crate::source::audit::Position {
                source: a.position.source.clone(),
                line: a.position.line,
            },
            ..AuditEvent::default()
        });
    }
    let mut h = recorder.finish(states);
    for it in &mut h.items {
        it.actor.user = LOG_USER.into();
        it.actor.user_agent.clear();
        it.level = "log";
    }
    // The recorder's notes on the audit log's level and policy are not about this log.
    h.summary.notes.retain(|n| {
        !n.contains("level")
            && !n.contains("audit policy")
            && !n.contains("no write of the garbage collector")
    });
    h
}
