//! The owned [`AuditEvent`] built from a record that is kept: strings copied and cut at
//! [`MAX_FIELD`], bodies read into [`Bodies`].

use super::{
    LList, LObj, LStr, MAX_FIELD, MAX_LIST, PatchOp, Record, RefObj, ReqBody, RespObj, Str,
    parse_time_us,
};
use crate::source::audit::event::{AuditEvent, Bodies, Level, ObjectReference, OwnerRefSeen};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A value quoted for a message, cut to a sensible length.
pub(in crate::source::audit::formats) fn quote(s: &str) -> String {
    let cut = cut_at(s, 80);
    if cut.len() < s.len() {
        format!("{:?}…", cut)
    } else {
        format!("{cut:?}")
    }
}

/// `s` cut to at most `max` bytes, at a character boundary.
pub(in crate::source::audit::formats) fn cut_at(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut i = max;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    &s[..i]
}

/// Copies a string into an event, cut at [`MAX_FIELD`] (`cut` is set then).
fn own(s: &str, cut: &mut bool) -> String {
    let c = cut_at(s, MAX_FIELD);
    if c.len() < s.len() {
        *cut = true;
    }
    c.to_owned()
}

fn own_opt(s: Option<&Str>, cut: &mut bool) -> String {
    s.map_or_else(String::new, |s| own(s.as_str(), cut))
}

/// `user.groups`, copied: the strings of a list (anything else in it, or a value that is
/// not a list, is ignored: the groups are then unknown, never an error that loses the event).
fn groups(raw: Option<&RawValue>, cut: &mut bool) -> Vec<String> {
    match raw.map(|r| serde_json::from_str::<LList<LStr>>(r.get())) {
        Some(Ok(LList::Items(items))) => items
            .iter()
            .filter_map(LStr::get)
            .map(|g| own(g, cut))
            .collect(),
        _ => Vec::new(),
    }
}

/// What building an event from a record gave.
pub(in crate::source::audit::formats) enum Built {
    /// A stage other than ResponseComplete and Panic: not an event here.
    OtherStage,
    /// The event; `Some(cause)` when a field was cut (still passed on, with a problem).
    Event(Box<AuditEvent>, Option<String>),
    /// A read not answered 404: counted, never built.
    Dropped(Dropped),
    /// A broken record: why.
    Bad(String),
}

/// What the counts need of a read that is not built.
pub(in crate::source::audit::formats) struct Dropped {
    pub time_us: i64,
    /// [`request_key`].
    pub key: u64,
    pub level: Level,
}

/// What tells one request's final event from another's, for de-duplication across inputs (a
/// log and its `.gz`, overlapping exports, the logs of several API servers holding a copy).
/// `auditID` alone is not enough: kube-apiserver takes it from the client's `Audit-ID` header
/// when one is sent, so two requests can share one. The same event read twice has the same
/// time, verb and URI too. Only final stages (`ResponseComplete`, or `Panic` instead) are
/// events, so the stage adds nothing. A 64-bit hash: one word per event read.
pub(in crate::source::audit::formats) fn request_key(
    audit_id: &str,
    time_us: i64,
    verb: &str,
    uri: &str,
) -> u64 {
    use std::hash::{Hash, Hasher};
    // Fixed keys: the parsing threads and the calling thread must agree.
    let mut h = std::hash::DefaultHasher::new();
    (audit_id, time_us, verb, uri).hash(&mut h);
    h.finish()
}

/// Reads are passed on only when answered 404 (the GC's owner lookup that proves an owner
/// absent).
pub(in crate::source::audit::formats) fn dropped(verb: &str, code: u16) -> bool {
    matches!(verb, "get" | "list" | "watch") && code != 404
}

fn cut_problem(cut: bool) -> Option<String> {
    cut.then(|| format!("a field longer than {} KiB was cut", MAX_FIELD >> 10))
}

/// Builds the event of a native Event record. `fallback_us`: the envelope's time, used when
/// the event's own timestamps are missing and `truncated` (an AKS record cut short).
pub(in crate::source::audit::formats) fn native(
    rec: &Record,
    truncated: bool,
    fallback_us: Option<i64>,
) -> Built {
    if let Some(stage) = &rec.stage
        && !matches!(stage.as_str(), "ResponseComplete" | "Panic")
    {
        return Built::OtherStage;
    }
    let Some(verb) = &rec.verb else {
        return Built::Bad("an audit event without verb".into());
    };
    // Events of kube-apiserver before 1.9 (audit.k8s.io/v1alpha1, v1beta1 until 1.10) have
    // one `timestamp` instead of `requestReceivedTimestamp` and `stageTimestamp`.
    let stamp = [
        ("stageTimestamp", rec.stage_timestamp.as_ref()),
        (
            "requestReceivedTimestamp",
            rec.request_received_timestamp.as_ref(),
        ),
    ]
    .into_iter()
    .find_map(|(name, s)| s.map(|s| (name, Cow::Borrowed(s.as_str()))))
    .or_else(|| {
        let raw = rec.timestamp?;
        let text = serde_json::from_str::<Str>(raw.get())
            .map_or_else(|_| Cow::Owned(raw.get().to_owned()), |s| s.0);
        Some(("timestamp", text))
    });
    let time_us = match stamp {
        Some((name, s)) => match parse_time_us(&s) {
            Some(t) => t,
            None => return Built::Bad(format!("bad {name} {}", quote(&s))),
        },
        None => match fallback_us.filter(|_| truncated) {
            Some(t) => t,
            None => {
                return Built::Bad(
                    "an audit event without stageTimestamp, requestReceivedTimestamp or \
                     timestamp"
                        .into(),
                );
            }
        },
    };
    let Some(audit_id) = &rec.audit_id else {
        return Built::Bad("an audit event without auditID".into());
    };
    let status = rec.response_status.as_ref();
    let code = status.and_then(|s| s.code).unwrap_or(0);
    let level = match rec.level.as_ref().map(Str::as_str) {
        Some("Metadata") => Level::Metadata,
        Some("Request") => Level::Request,
        Some("RequestResponse") => Level::RequestResponse,
        _ => Level::Unknown,
    };
    let uri = rec.request_uri.as_ref().map_or("", Str::as_str);
    if dropped(verb.as_str(), code) {
        return Built::Dropped(Dropped {
            time_us,
            key: request_key(audit_id.as_str(), time_us, verb.as_str(), uri),
            level,
        });
    }
    let mut cut = false;
    let object = rec.object_ref.as_ref().map(|o| ObjectReference {
        resource: own_opt(o.resource.as_ref(), &mut cut),
        subresource: own_opt(o.subresource.as_ref(), &mut cut),
        namespace: own_opt(o.namespace.as_ref(), &mut cut),
        name: own_opt(o.name.as_ref(), &mut cut),
        api_group: own_opt(o.api_group.as_ref(), &mut cut),
        api_version: own_opt(o.api_version.as_ref(), &mut cut),
        uid: own_opt(o.uid.as_ref(), &mut cut),
    });
    let response = rec.response_object.as_ref().and_then(|r| r.0.as_ref());
    let truncated = truncated
        || rec
            .annotations
            .as_ref()
            .and_then(|a| a.truncated.as_ref())
            .and_then(LStr::get)
            == Some("true");
    let event = AuditEvent {
        audit_id: own(audit_id.as_str(), &mut cut),
        level,
        time_us,
        verb: own(verb.as_str(), &mut cut),
        request_uri: own(uri, &mut cut),
        user: own_opt(
            rec.user.as_ref().and_then(|u| u.username.as_ref()),
            &mut cut,
        ),
        groups: groups(rec.user.as_ref().and_then(|u| u.groups), &mut cut),
        impersonated_user: rec
            .impersonated_user
            .as_ref()
            .and_then(|u| u.username.as_ref())
            .map(|u| own(u.as_str(), &mut cut)),
        user_agent: own_opt(rec.user_agent.as_ref(), &mut cut),
        object,
        code,
        reason: own_opt(status.and_then(|s| s.reason.as_ref()), &mut cut),
        deleted_uid: status
            .and_then(|s| s.details.as_ref())
            .and_then(|d| d.0.as_ref())
            .and_then(|d| d.uid.as_ref())
            .and_then(LStr::get)
            .map(|u| own(u, &mut cut)),
        bodies: bodies(
            verb.as_str(),
            uri,
            rec.request_object.as_ref(),
            response,
            &mut cut,
        ),
        truncated,
        position: Default::default(),
    };
    Built::Event(Box::new(event), cut_problem(cut))
}

/// Builds an event's [`Bodies`].
pub(in crate::source::audit::formats) fn bodies(
    verb: &str,
    uri: &str,
    request: Option<&ReqBody>,
    response: Option<&RespObj>,
    cut: &mut bool,
) -> Bodies {
    let mut b = Bodies::default();
    let deleting = matches!(verb, "delete" | "deletecollection");
    match request {
        Some(ReqBody::Obj(o)) if deleting => {
            b.propagation_policy = o
                .propagation_policy
                .as_ref()
                .and_then(LStr::get)
                .map(|p| own(p, cut));
            b.orphan_dependents = o.orphan_dependents.as_ref().and_then(|x| x.0);
            b.precondition_uid = o
                .preconditions
                .as_ref()
                .and_then(|p| p.0.as_ref())
                .and_then(|p| p.uid.as_ref())
                .and_then(LStr::get)
                .map(|u| own(u, cut));
            // `kubectl delete --dry-run=server` sends DeleteOptions' `dryRun: ["All"]` in
            // the body, not in the query string.
            b.dry_run = matches!(&o.dry_run, Some(LList::Items(v))
                if v.iter().filter_map(LStr::get).any(|x| x == "All"));
        }
        Some(ReqBody::Obj(o)) => {
            if let Some(m) = o.metadata.as_ref().and_then(|m| m.0.as_ref()) {
                b.owner_references = m.owner_references.as_ref().and_then(|l| owner_refs(l, cut));
                b.finalizers = m.finalizers.as_ref().and_then(|l| strings(l, cut));
                // Strategic merge patch directives.
                if let Some(LList::Items(refs)) = &m.owner_references {
                    for r in refs.iter().filter_map(|r| r.0.as_ref()) {
                        if r.patch.as_ref().and_then(LStr::get) == Some("delete") {
                            let uid = r.uid.as_ref().and_then(LStr::get).unwrap_or("");
                            b.removed_paths.push(format!(
                                "/metadata/ownerReferences/uid={}",
                                cut_at(uid, 256)
                            ));
                        }
                    }
                }
                if let Some(LList::Items(names)) = &m.delete_finalizers {
                    for n in names.iter().filter_map(LStr::get) {
                        b.removed_paths
                            .push(format!("/metadata/finalizers/value={}", cut_at(n, 256)));
                    }
                }
            }
        }
        Some(ReqBody::Patch(ops)) => json_patch(ops, &mut b, cut),
        _ => {}
    }
    if deleting && b.propagation_policy.is_none() && b.orphan_dependents.is_none() {
        query_options(uri, &mut b, cut);
    }
    if let Some(m) = response
        .and_then(|r| r.metadata.as_ref())
        .and_then(|m| m.0.as_ref())
    {
        b.response_uid = m.uid.as_ref().and_then(LStr::get).map(|u| own(u, cut));
        b.response_owner_references = m.owner_references.as_ref().and_then(|l| owner_refs(l, cut));
        b.response_finalizers = m.finalizers.as_ref().and_then(|l| strings(l, cut));
        b.response_deleting = m.deletion_timestamp.as_ref().and_then(LStr::get).is_some();
    }
    b
}

/// The ownerReferences of a body; directives (`$patch`) are not references.
fn owner_refs(l: &LList<LObj<RefObj>>, cut: &mut bool) -> Option<Vec<OwnerRefSeen>> {
    match l {
        LList::Null => Some(Vec::new()),
        LList::Invalid => None,
        LList::Items(items) => {
            let refs: Vec<OwnerRefSeen> = items
                .iter()
                .filter_map(|r| r.0.as_ref())
                .filter(|r| r.patch.is_none())
                .map(|r| {
                    let s = |x: &Option<LStr>, cut: &mut bool| {
                        x.as_ref()
                            .and_then(LStr::get)
                            .map_or_else(String::new, |v| own(v, cut))
                    };
                    OwnerRefSeen {
                        api_version: s(&r.api_version, cut),
                        kind: s(&r.kind, cut),
                        name: s(&r.name, cut),
                        uid: s(&r.uid, cut),
                    }
                })
                .collect();
            // A list of directives only (the GC's removal patch) sets nothing.
            (!refs.is_empty() || items.is_empty()).then_some(refs)
        }
    }
}

fn strings(l: &LList<LStr>, cut: &mut bool) -> Option<Vec<String>> {
    match l {
        LList::Null => Some(Vec::new()),
        LList::Invalid => None,
        LList::Items(items) => Some(
            items
                .iter()
                .filter_map(LStr::get)
                .map(|s| own(s, cut))
                .collect(),
        ),
    }
}

/// A JSON patch: removed/replaced paths under ownerReferences and finalizers, and whole lists
/// set by `add`/`replace`.
fn json_patch(ops: &[LObj<PatchOp>], b: &mut Bodies, cut: &mut bool) {
    for op in ops.iter().filter_map(|o| o.0.as_ref()) {
        let (Some(kind), Some(path)) = (
            op.op.as_ref().and_then(LStr::get),
            op.path.as_ref().and_then(LStr::get),
        ) else {
            continue;
        };
        let under = |p: &str, base: &str| {
            p == base || p.strip_prefix(base).is_some_and(|r| r.starts_with('/'))
        };
        let refs = under(path, "/metadata/ownerReferences");
        let fins = under(path, "/metadata/finalizers");
        if !(refs || fins) {
            continue;
        }
        if matches!(kind, "remove" | "replace") && b.removed_paths.len() < MAX_LIST {
            b.removed_paths.push(own(cut_at(path, 1024), cut));
        }
        if matches!(kind, "add" | "replace") {
            let value = op.value.map_or("null", RawValue::get);
            if path == "/metadata/finalizers" {
                if let Ok(l) = serde_json::from_str::<LList<LStr>>(value) {
                    b.finalizers = strings(&l, cut);
                }
            } else if path == "/metadata/ownerReferences"
                && let Ok(l) = serde_json::from_str::<LList<LObj<RefObj>>>(value)
            {
                b.owner_references = owner_refs(&l, cut);
            }
        }
    }
}

/// DeleteOptions in the query string (`?propagationPolicy=Foreground`), which the API server
/// reads when the body has none.
fn query_options(uri: &str, b: &mut Bodies, cut: &mut bool) {
    let Some((_, query)) = uri.split_once('?') else {
        return;
    };
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = v.replace('+', " ");
        let v = percent_encoding::percent_decode_str(&v).decode_utf8_lossy();
        match k {
            "propagationPolicy" if b.propagation_policy.is_none() => {
                b.propagation_policy = Some(own(&v, cut));
            }
            "orphanDependents" if b.orphan_dependents.is_none() => {
                b.orphan_dependents = match v.as_ref() {
                    "true" | "1" => Some(true),
                    "false" | "0" => Some(false),
                    _ => None,
                };
            }
            _ => {}
        }
    }
}

/// The level a GKE entry's bodies show (GKE drops `level`).
pub(in crate::source::audit::formats) fn level_from_bodies(request: bool, response: bool) -> Level {
    match (request, response) {
        (_, true) => Level::RequestResponse,
        (true, false) => Level::Request,
        _ => Level::Unknown,
    }
}

/// Copies a string into an event (for the other format modules).
pub(in crate::source::audit::formats) fn owned(s: &str, cut: &mut bool) -> String {
    own(s, cut)
}

pub(in crate::source::audit::formats) fn cut_cause(cut: bool) -> Option<String> {
    cut_problem(cut)
}
