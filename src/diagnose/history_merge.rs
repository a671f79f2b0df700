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
    audit_evidence(h);
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

/// The audit log's rows say that it shows them, before another source adds its evidence.
fn audit_evidence(h: &mut History) {
    for it in &mut h.items {
        if it.evidence.is_empty() {
            it.evidence.push(Evidence {
                source: "audit-log",
                at: it.source.clone(),
                says: None,
            });
        }
    }
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

/// Adds Events as evidence: each of the GC's `OwnerRefInvalidNamespace` warnings to the
/// deletion of the object it is about (whose cause it proves: an owner reference whose UID is
/// an object of another namespace), the namespace controller's to its rows of that namespace.
/// An Event with no action in the other sources is said in a note: the GC found that object's
/// owner absent, and deletes it unless another owner is there.
pub fn merge_events(h: &mut History, events: &[crate::source::events::EventRecord]) {
    use crate::source::events::OWNER_REF_INVALID_NAMESPACE;
    audit_evidence(h);
    let mut unmatched = Vec::new();
    for e in events {
        let [api_version, kind, namespace, name, uid] = e.involved.clone();
        let object = Ident { api_version, kind, namespace, name, uid };
        let o = obj_of(&object, None);
        let invalid = e.reason == OWNER_REF_INVALID_NAMESPACE;
        let mut matched = false;
        for it in &mut h.items {
            let same = match (&it.object.uid, &o.uid) {
                (Some(x), Some(y)) => x == y,
                _ => it.object.resource == o.resource && it.object.namespace == o.namespace && it.object.name == o.name,
            };
            let ns_row = !invalid && it.actor.kind == "namespace-controller" && it.object.namespace == o.namespace;
            if !(same && (!invalid || it.action == "delete") || ns_row) {
                continue;
            }
            matched = true;
            it.evidence.push(Evidence {
                source: "events",
                at: e.at.clone(),
                says: Some(format!("{} ({}, ×{}): {}", e.reason, e.component, e.count, e.message)),
            });
            if invalid && it.cause.as_ref().is_none_or(|c| matches!(c.type_, "unknown" | "dangling-owner")) {
                // The message names the reference as the GC looked for it (in the dependent's
                // namespace), not the namespace its UID is in: no owner is named.
                let named = owner_in_message(&e.message)
                    .map_or_else(String::new, |o| format!(" (its reference names {} {}, uid {})", o.kind, o.name, o.uid));
                it.cause = Some(Cause {
                    type_: "cross-namespace-owner",
                    owner: None,
                    policy: "unknown",
                    root: it.cause.as_ref().and_then(|c| c.root.clone()),
                    detail: format!(
                        "the GC recorded OwnerRefInvalidNamespace for it: its owner reference's UID \
                         is an object of another namespace, which the GC treats as absent{named} ({})",
                        e.at
                    ),
                });
            }
        }
        if !matched && invalid {
            unmatched.push(crate::model::spell_object(&object.kind, &object.name, &object.namespace));
        }
    }
    if !unmatched.is_empty() {
        h.summary.notes.push(format!(
            "{} OwnerRefInvalidNamespace Event(s) about objects with no deletion in the other \
             sources: the GC found their owner absent (its UID is in another namespace) and \
             deletes them unless another owner is there: {}",
            unmatched.len(),
            crate::lookup::join_some(&unmatched, 8)
        ));
    }
}

/// The owner an `OwnerRefInvalidNamespace` message names (`ownerRef [v1/ConfigMap, namespace:
/// ns, name: n, uid: u] does not exist in namespace "ns"`).
fn owner_in_message(m: &str) -> Option<Ident> {
    let at = m.find('[')?;
    let body = &m[at + 1..];
    let end = body.find(']')?;
    let inner = &body[..end];
    let (gvk, rest) = inner.split_once(", namespace: ")?;
    let (namespace, rest) = rest.split_once(", name: ")?;
    let (name, uid) = rest.split_once(", uid: ")?;
    let (api_version, kind) = gvk.rsplit_once('/')?;
    Some(Ident {
        api_version: api_version.into(),
        kind: kind.into(),
        namespace: namespace.into(),
        name: name.into(),
        uid: uid.into(),
    })
}

/// The cause a finding of the watch's shadow GC names, by its code.
fn cause_of_code(code: &str) -> Option<&'static str> {
    Some(match code {
        "GC001" => "dangling-owner",
        "GC002" => "stale-owner-uid",
        "GC003" => "owner-coordinates-mismatch",
        "GC004" => "cross-namespace-owner",
        _ => return None,
    })
}

/// Adds `watch --journal`'s entries: an object deleted, a GC finalizer removed, references
/// removed — each matched to the other sources' row of it (one row, the journal's evidence
/// added), or a row of its own. The journal sees what happened, not who did it (the actor is
/// `unknown`); the cause comes from the shadow GC's finding open on the object at the time
/// (its prediction, said as such), or from an owner the journal saw deleted before.
pub fn merge_journal(h: &mut History, entries: &[(String, crate::source::journal::JournalEntry)]) {
    use crate::source::journal::JournalEntry;
    audit_evidence(h);
    let mut last: std::collections::HashMap<String, &JournalEntry> = std::collections::HashMap::new();
    let mut finding: std::collections::HashMap<String, (&str, &crate::source::journal::JournalFinding)> =
        std::collections::HashMap::new();
    let mut deleted: std::collections::HashMap<String, (&str, i64)> = std::collections::HashMap::new();
    let mut added = Vec::new();
    let mut taken = vec![false; h.items.len()];
    for (at, e) in entries {
        let Some(us) = crate::snapshot::parse_rfc3339(&e.time).map(|s| s * 1_000_000 + micros(&e.time)) else {
            continue;
        };
        let uid = e.object.uid.clone();
        let action = match e.event.as_str() {
            "finding" => {
                if let Some(f) = &e.finding {
                    if f.transition == "resolved" {
                        finding.remove(&uid);
                    } else {
                        finding.insert(uid.clone(), (at.as_str(), f));
                    }
                }
                continue;
            }
            "deleted" => {
                deleted.insert(uid.clone(), (at.as_str(), us));
                Some("delete")
            }
            _ => {
                let prev = last.get(&uid);
                let lost = |f: &str| prev.is_some_and(|p| p.finalizers.iter().any(|x| x == f)) && !e.finalizers.iter().any(|x| x == f);
                if lost("foregroundDeletion") || lost("orphan") {
                    Some("remove-finalizer")
                } else if prev.is_some_and(|p| p.owner_references.len() > e.owner_references.len()) {
                    Some("remove-owner-references")
                } else {
                    None
                }
            }
        };
        let prev = last.insert(uid.clone(), e);
        let Some(action) = action else { continue };
        let object = Ident {
            api_version: e.object.api_version.clone(),
            kind: e.object.kind.clone(),
            namespace: e.object.namespace.clone(),
            name: e.object.name.clone(),
            uid: uid.clone(),
        };
        let o = obj_of(&object, None);
        let refs = prev.map_or(&e.owner_references, |p| &p.owner_references);
        let cause = journal_cause(action, prev, refs, finding.get(&uid).copied(), &deleted, us);
        let evidence = Evidence {
            source: "journal",
            at: at.clone(),
            says: Some(cause.detail.clone()),
        };
        let matched = h.items.iter().enumerate().position(|(i, it)| {
            !taken[i]
                && it.action == action
                && match (&it.object.uid, &o.uid) {
                    (Some(x), Some(y)) => x == y,
                    _ => it.object.resource == o.resource && it.object.namespace == o.namespace && it.object.name == o.name,
                }
                && (0..=10 * SAME_ACTION_US).contains(&(us - it.time_us))
        });
        match matched {
            Some(i) => {
                taken[i] = true;
                let it = &mut h.items[i];
                it.evidence.push(evidence);
                if it.cause.as_ref().is_none_or(|c| c.type_ == "unknown") && cause.type_ != "unknown" {
                    it.cause = Some(cause);
                }
            }
            None => added.push(Item {
                time: format_us(us),
                time_us: us,
                action,
                object: o,
                actor: Actor {
                    kind: "unknown",
                    user: "(not in the journal: it records what changed, not who changed it)".into(),
                    impersonated_by: None,
                    user_agent: String::new(),
                },
                cause: Some(cause),
                level: "journal",
                source: at.clone(),
                count: 1,
                last: None,
                last_us: us,
                taken: Vec::new(),
                after: None,
                evidence: vec![evidence],
                after_gc_start_ms: None,
            }),
        }
    }
    h.items.extend(added);
    h.items.sort_by_key(|it| it.time_us);
    h.summary.logged = h.items.len();
    let items = std::mem::take(&mut h.items);
    h.summary.count(&items);
    h.items = items;
    if let (Some(f), Some(l)) = (h.items.first(), h.items.last()) {
        h.summary.from = Some(f.time.clone());
        h.summary.to = Some(l.time.clone());
    }
}

/// µs after the second of an RFC 3339 time (`…:05.123456Z`).
fn micros(t: &str) -> i64 {
    let Some(frac) = t.split_once('.').map(|(_, f)| f) else { return 0 };
    let digits: String = frac.chars().take_while(char::is_ascii_digit).take(6).collect();
    format!("{digits:0<6}").parse().unwrap_or(0)
}

fn journal_cause(
    action: &str,
    prev: Option<&crate::source::journal::JournalEntry>,
    refs: &[crate::source::journal::JournalRef],
    finding: Option<(&str, &crate::source::journal::JournalFinding)>,
    deleted: &std::collections::HashMap<String, (&str, i64)>,
    us: i64,
) -> Cause {
    let policy = |p: Option<&crate::source::journal::JournalEntry>| -> &'static str {
        match p {
            Some(e) if e.finalizers.iter().any(|f| f == "foregroundDeletion") => "Foreground",
            Some(e) if e.finalizers.iter().any(|f| f == "orphan") => "Orphan",
            _ => "unknown",
        }
    };
    if action == "remove-finalizer" {
        let orphan = prev.is_some_and(|p| p.finalizers.iter().any(|f| f == "orphan"));
        return Cause {
            type_: if orphan { "orphaned" } else { "foreground-finished" },
            owner: None,
            policy: if orphan { "Orphan" } else { "Foreground" },
            root: None,
            detail: "the watch saw the GC's finalizer go from the object being deleted".into(),
        };
    }
    if let Some((at, f)) = finding
        && let Some(type_) = cause_of_code(&f.code)
    {
        return Cause {
            type_,
            owner: None,
            policy: "unknown",
            root: None,
            detail: format!(
                "the watch's shadow GC predicted it ({} {}, when {}: {}; {at}): the journal shows \
                 the object gone, not who removed it",
                f.code,
                f.severity,
                if f.when.is_empty() { "-" } else { &f.when },
                f.message
            ),
        };
    }
    if let Some((r, (at, t))) = refs.iter().find_map(|r| deleted.get(&r.uid).map(|d| (r, d)))
        && *t <= us
    {
        return Cause {
            type_: "owner-deleted",
            owner: Some(obj_of(
                &Ident {
                    api_version: r.api_version.clone(),
                    kind: r.kind.clone(),
                    namespace: prev.map(|p| p.object.namespace.clone()).unwrap_or_default(),
                    name: r.name.clone(),
                    uid: r.uid.clone(),
                },
                None,
            )),
            policy: policy(prev),
            root: None,
            detail: format!("the watch saw its owner {} {} deleted before ({at})", r.kind, r.name),
        };
    }
    Cause {
        type_: "unknown",
        owner: None,
        policy: "unknown",
        root: None,
        detail: "the journal shows the change, and no finding or owner deletion before it".into(),
    }
}
