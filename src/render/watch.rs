//! `kubectl gc watch` output: one line per transition for people, or one JSON object per
//! transition (NDJSON, `-o json`) whose `finding` has the schema of `kubectl gc audit -o json`'s
//! findings (README "JSON: watch").

use super::audit::FindingJson;
use super::{REPORT_API_VERSION, Styles};
use crate::diagnose::Severity;
use crate::watch::{Cause, GcAction, Reason, Transition, TransitionKind, WatchFinding, When};
use owo_colors::OwoColorize;
use serde::Serialize;
use std::io::Write;
use std::time::SystemTime;

/// One transition as JSON.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct TransitionJson {
    /// `kubectl-gc.io/v1`.
    pub api_version: &'static str,
    /// `FindingTransition`.
    pub kind: &'static str,
    /// When it was found (RFC 3339, UTC, milliseconds).
    pub time: String,
    /// appeared, changed, resolved.
    pub transition: TransitionKind,
    /// The finding's stable identity: `<code>/<object uid>/<owner uid>`.
    pub id: String,
    /// When the GC acts: now, restart, now-or-restart, now-or-never, never, unknown; `null`
    /// when it does nothing about it (and for resolved findings).
    pub when: Option<When>,
    /// Why then: written, in-flight, owner-gone, sitting, edited-in-place, not-rechecked,
    /// start-only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_reason: Option<Reason>,
    /// What the GC does: `{"verb": "delete", "propagationPolicy": …}`,
    /// `{"verb": "remove-owner-references"}`, `{"verb": "orphan"}`; `null`: nothing.
    pub action: Option<GcAction>,
    /// Present when the object changed while it waited on the running GC's queue for a
    /// worker predicted to do something else: what that worker does instead if it read the
    /// object before the change (then `action` waits, typically for a restart).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub if_read_before: Option<GcAction>,
    /// For `changed` and `resolved`: the severity, *when* and action before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<Previous>,
    /// For `resolved`: the object itself is gone.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub object_deleted: bool,
    /// What ran the evaluation: initial, event, relist, resync.
    pub cause: Cause,
    /// The finding (for `resolved`: as it last was).
    pub finding: FindingJson,
}

/// Severity and *when* before a change.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Previous {
    /// Severity.
    pub severity: Severity,
    /// When.
    pub when: Option<When>,
    /// Action (`null`: nothing).
    pub action: Option<GcAction>,
}

/// The audit schema's form of a finding.
pub fn finding_json(f: &WatchFinding) -> FindingJson {
    FindingJson {
        code: f.code.id(),
        name: f.code.name(),
        severity: f.severity,
        object: f.object.clone(),
        resource: f.resource.clone(),
        owner_reference: f.owner_reference.clone(),
        classification: f.classification,
        consequence: f.consequence.clone(),
        when: None,
        when_reason: None,
        message: f.message.clone(),
        related: f.related.clone(),
        remedies: f.remedies.clone(),
        fixes: Vec::new(),
        evidence: Vec::new(),
        source: None,
    }
}

/// The JSON form of a transition.
pub fn transition_json(t: &Transition) -> TransitionJson {
    TransitionJson {
        api_version: REPORT_API_VERSION,
        kind: "FindingTransition",
        time: rfc3339_millis(t.time),
        transition: t.kind,
        id: t.id.clone(),
        when: t.when,
        when_reason: t.reason,
        action: t.action,
        if_read_before: t.if_read_before,
        previous: t.previous.map(|(severity, when)| Previous {
            severity,
            when,
            action: t.previous_action,
        }),
        object_deleted: t.object_gone,
        cause: t.cause,
        finding: finding_json(&t.finding),
    }
}

/// Writes a transition as one line of JSON.
pub fn write_json_line(w: &mut dyn Write, t: &Transition) -> std::io::Result<()> {
    serde_json::to_writer(&mut *w, &transition_json(t)).map_err(std::io::Error::other)?;
    w.write_all(b"\n")
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn rfc3339_millis(t: SystemTime) -> String {
    let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let s = crate::snapshot::format_rfc3339(d.as_secs() as i64);
    format!("{}.{:03}Z", s.trim_end_matches('Z'), d.subsec_millis())
}

/// Text from the cluster made safe for a terminal: control characters (escape sequences,
/// carriage returns, newlines) are shown as `\u{…}` instead of being interpreted.
pub fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    out
}

fn subject(f: &WatchFinding) -> String {
    match (&f.object, &f.resource) {
        (Some(o), _) => crate::model::spell_object(&o.kind, &o.name, &o.namespace),
        (None, Some(r)) => r.clone(),
        (None, None) => "-".into(),
    }
}

/// What the GC does and when, in a few words (the words of *when* are the timeline's).
pub fn gc_words(when: Option<When>, action: Option<GcAction>) -> String {
    let what = action.map(|a| a.describe());
    match (when, what) {
        (Some(When::Never), Some(a)) => format!("the GC would {a} but never gets to it"),
        (Some(When::Unknown), Some(a)) => format!("the GC may {a} (unknown)"),
        (Some(w), Some(a)) => format!("the GC will {a} {}", w.words()),
        (Some(When::Now), None) => "the GC acts now".into(),
        (Some(When::Restart), None) => "a restarted GC may act".into(),
        (Some(When::NowOrRestart), None) => "the GC acts now, or a restarted GC may".into(),
        (Some(When::NowOrNever), None) => "the GC acts now, or never".into(),
        (Some(When::Never), None) => "the GC never acts".into(),
        (Some(When::Unknown), None) => "unknown".into(),
        (None, _) => "the GC does nothing about it".into(),
    }
}

/// ` (why then)` for a line whose *when* a reason explains (a restart), else empty.
fn reason_words(t: &Transition) -> String {
    match (t.when, t.reason) {
        (Some(When::Restart), Some(r @ (Reason::EditedInPlace | Reason::Sitting))) => {
            format!(" ({})", r.as_str().replace('-', " "))
        }
        _ => String::new(),
    }
}

/// Writes a transition as one human line:
/// `TIME  APPEARED  SEVERITY  CODE  OBJECT  what the GC does and when: message`.
pub fn write_line(w: &mut dyn Write, t: &Transition, styles: Styles) -> std::io::Result<()> {
    let f = &t.finding;
    let time = rfc3339_millis(t.time);
    let kind = match t.kind {
        TransitionKind::Appeared => "APPEARED",
        TransitionKind::Changed => "CHANGED ",
        TransitionKind::Resolved => "RESOLVED",
    };
    let severity = match (t.kind, t.previous) {
        (TransitionKind::Changed, Some((before, _))) if before != f.severity => {
            format!("{}→{}", before.as_str(), f.severity.as_str())
        }
        _ => f.severity.as_str().to_owned(),
    };
    let severity = if styles.color {
        match f.severity {
            Severity::Critical => severity.red().bold().to_string(),
            Severity::Error => severity.red().to_string(),
            Severity::Warning => severity.yellow().to_string(),
            Severity::Info => severity.to_string(),
        }
    } else {
        severity
    };
    let gc = match t.kind {
        TransitionKind::Resolved if t.object_gone => "the object is gone".to_owned(),
        TransitionKind::Resolved => "no longer found".to_owned(),
        TransitionKind::Changed => match t.previous {
            Some((_, before)) if before != t.when => format!(
                "{} (was: {})",
                gc_words(t.when, t.action),
                before.map(When::as_str).unwrap_or("nothing")
            ),
            _ if t.previous_action != t.action => format!(
                "{} (was: {})",
                gc_words(t.when, t.action),
                t.previous_action
                    .map_or_else(|| "nothing".to_owned(), |a| a.describe())
            ),
            _ => gc_words(t.when, t.action),
        },
        TransitionKind::Appeared => gc_words(t.when, t.action),
    };
    let gc = match t.kind {
        TransitionKind::Resolved => gc,
        _ => format!("{gc}{}", reason_words(t)),
    };
    // The object changed while a worker was on its way: which version it reads decides.
    let gc = match (t.kind, t.if_read_before) {
        (TransitionKind::Resolved, _) | (_, None) => gc,
        (_, Some(a)) => format!(
            "{gc} — or, if its worker read the object before this change, {} instead",
            a.describe()
        ),
    };
    writeln!(
        w,
        "{time}  {kind}  {severity}  {} {}  {}  {gc}: {}",
        f.code.id(),
        f.code.name(),
        sanitize(&subject(f)),
        sanitize(&f.message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::Code;
    use crate::gc::{ObjectRef, Policy};

    fn transition() -> Transition {
        Transition {
            kind: TransitionKind::Appeared,
            id: "GC004/u1/u0".into(),
            finding: WatchFinding {
                code: Code::CrossNamespaceOwner,
                severity: Severity::Critical,
                object: Some(ObjectRef {
                    version: "v1".into(),
                    kind: "ConfigMap".into(),
                    namespace: "monitoring".into(),
                    name: "bad\u{1b}[2J".into(),
                    uid: "u1".into(),
                    ..Default::default()
                }),
                resource: None,
                owner_reference: None,
                classification: Some("dangling"),
                consequence: "the GC will delete this object (propagationPolicy=Background)".into(),
                message: "owner lives elsewhere".into(),
                related: vec![],
                remedies: vec![],
            },
            when: Some(When::Restart),
            reason: None,
            action: Some(GcAction::Delete {
                policy: Policy::Background,
            }),
            if_read_before: None,
            previous: None,
            previous_action: None,
            object_gone: false,
            cause: Cause::Event,
            time: SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(1_700_000_000_123),
            received: None,
        }
    }

    #[test]
    fn human_lines_are_one_line_and_sanitised() {
        let mut out = Vec::new();
        write_line(&mut out, &transition(), Styles::plain()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "2023-11-14T22:13:20.123Z  APPEARED  critical  GC004 cross-namespace-owner  ConfigMap/bad\\u{1b}[2J -n monitoring  the GC will delete (Background) at its next restart: owner lives elsewhere\n"
        );
    }

    #[test]
    fn json_lines_carry_the_audit_finding_schema() {
        let mut out = Vec::new();
        write_json_line(&mut out, &transition()).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["kind"], "FindingTransition");
        assert_eq!(v["transition"], "appeared");
        assert_eq!(v["when"], "restart");
        assert_eq!(v["action"]["verb"], "delete");
        assert_eq!(v["action"]["propagationPolicy"], "Background");
        assert_eq!(v["finding"]["code"], "GC004");
        assert_eq!(v["finding"]["object"]["namespace"], "monitoring");
        assert_eq!(v["time"], "2023-11-14T22:13:20.123Z");
        assert!(out.ends_with(b"\n") && out.iter().filter(|&&b| b == b'\n').count() == 1);
        assert!(v.get("ifReadBefore").is_none() && v.get("previous").is_none());
    }

    /// An object edited while a worker was on its way: both outcomes, in both forms.
    #[test]
    fn an_order_dependent_change_says_what_the_worker_does_either_way() {
        let mut t = transition();
        t.kind = TransitionKind::Changed;
        t.when = Some(When::Now);
        t.if_read_before = Some(GcAction::RemoveOwnerReferences);
        t.previous = Some((Severity::Critical, Some(When::Now)));
        t.previous_action = Some(GcAction::RemoveOwnerReferences);
        let mut out = Vec::new();
        write_line(&mut out, &t, Styles::plain()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(
                "the GC will delete (Background) now (was: strip ownerReferences) — or, if its \
                 worker read the object before this change, strip ownerReferences instead: "
            ),
            "{text}"
        );
        let mut out = Vec::new();
        write_json_line(&mut out, &t).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["ifReadBefore"]["verb"], "remove-owner-references");
        assert_eq!(v["previous"]["when"], "now");
        assert_eq!(v["previous"]["action"]["verb"], "remove-owner-references");
    }
}
