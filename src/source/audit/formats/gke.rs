//! GKE Cloud Logging entries: `protoPayload` (a `google.cloud.audit.AuditLog`) mapped back to
//! an audit Event.
//!
//! * `methodName` `io.k8s.core.v1.pods.delete`, `io.k8s.apps.v1.deployments.patch`,
//!   `io.k8s.core.v1.namespaces.finalize.update`: the verb is the last segment, the resource
//!   (and subresource) follow the version;
//! * `resourceName` `core/v1/namespaces/NS/pods/NAME`, `apps/v1/namespaces/NS/deployments/NAME`,
//!   `core/v1/namespaces/NAME` (cluster-scoped): group (`core` is the empty group), version,
//!   namespace and name;
//! * `authenticationInfo.principalEmail` is the user, `requestMetadata.callerSuppliedUserAgent`
//!   the user agent, `status.code` a gRPC code (mapped to HTTP), `operation.id` (else
//!   `insertId`) the audit ID, `timestamp` the time, `request`/`response` the bodies. There is
//!   no requestURI and no level (derived from which bodies are there).

use super::super::event::{AuditEvent, ObjectReference};
use super::records::{self, Built, Proto, Record, Str};

/// What a GKE entry is.
pub(super) enum Gke {
    /// Not a Kubernetes audit entry (another service's, or another payload type).
    Other,
    /// A Kubernetes audit entry.
    Built(Built),
}

/// gRPC status code → HTTP status code and Kubernetes reason.
pub(in crate::source::audit) fn http_code(grpc: i64) -> (u16, &'static str) {
    match grpc {
        0 => (200, ""),
        3 => (400, "BadRequest"),
        4 => (504, "Timeout"),
        5 => (404, "NotFound"),
        6 => (409, "AlreadyExists"),
        7 => (403, "Forbidden"),
        // FAILED_PRECONDITION and ABORTED: what the API server answers with Conflict.
        9 | 10 => (409, "Conflict"),
        13 => (500, "InternalError"),
        14 => (503, "ServiceUnavailable"),
        16 => (401, "Unauthorized"),
        _ => (500, "InternalError"),
    }
}

/// Builds the event of a GKE entry.
pub(super) fn event(rec: &Record, p: &Proto) -> Gke {
    let other_type = p
        .type_
        .as_ref()
        .is_some_and(|t| !t.as_str().ends_with("google.cloud.audit.AuditLog"));
    let other_service = p
        .service_name
        .as_ref()
        .is_some_and(|s| s.as_str() != "k8s.io");
    if other_type || other_service {
        return Gke::Other;
    }
    Gke::Built(build(rec, p))
}

fn build(rec: &Record, p: &Proto) -> Built {
    let Some(method) = p.method_name.as_ref().map(Str::as_str) else {
        return Built::Bad("a GKE audit entry without protoPayload.methodName".into());
    };
    let time_us = match rec.timestamp {
        Some(raw) => match records::raw_time_us(raw).filter(|_| raw.get().starts_with('"')) {
            Some(t) => t,
            None => {
                return Built::Bad(format!("bad timestamp {}", records::quote(raw.get())));
            }
        },
        None => return Built::Bad("a GKE audit entry without timestamp".into()),
    };
    let Some(id) = rec
        .operation
        .as_ref()
        .and_then(|o| o.id.as_ref())
        .or(rec.insert_id.as_ref())
    else {
        return Built::Bad("a GKE audit entry without operation.id or insertId".into());
    };
    let segs: Vec<&str> = method.split('.').collect();
    let verb = segs.last().copied().unwrap_or("");
    let (code, reason) = http_code(p.status.as_ref().and_then(|s| s.code).unwrap_or(0));
    let response = p.response.as_ref().and_then(|r| r.0.as_ref());
    let level = records::level_from_bodies(p.request.is_some(), response.is_some());
    let resource_name = p.resource_name.as_ref().map_or("", Str::as_str);
    if records::dropped(verb, code) {
        return Built::Dropped(records::Dropped {
            time_us,
            // No requestURI: the object named tells requests apart instead.
            key: records::request_key(id.as_str(), time_us, method, resource_name),
            level,
        });
    }
    let mut cut = false;
    let object = object_ref(&segs, resource_name, &mut cut);
    let event = AuditEvent {
        audit_id: records::owned(id.as_str(), &mut cut),
        level,
        time_us,
        verb: records::owned(verb, &mut cut),
        request_uri: String::new(),
        user: p
            .authentication_info
            .as_ref()
            .and_then(|a| a.principal_email.as_ref())
            .map_or_else(String::new, |u| records::owned(u.as_str(), &mut cut)),
        // `authenticationInfo` carries no groups (`google.cloud.audit.AuthenticationInfo`):
        // unknown, so attribution falls back on the username alone.
        groups: Vec::new(),
        impersonated_user: None,
        user_agent: p
            .request_metadata
            .as_ref()
            .and_then(|m| m.caller_supplied_user_agent.as_ref())
            .map_or_else(String::new, |u| records::owned(u.as_str(), &mut cut)),
        object,
        code,
        reason: reason.into(),
        deleted_uid: response
            .and_then(|r| r.details_uid())
            .map(|u| records::owned(u, &mut cut)),
        bodies: records::bodies(verb, "", p.request.as_ref(), response, &mut cut),
        truncated: false,
        position: Default::default(),
    };
    Built::Event(Box::new(event), records::cut_cause(cut))
}

/// Is this segment an API version (`v1`, `v1beta1`, `v2alpha3`)?
fn is_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else {
        return false;
    };
    let major = rest.bytes().take_while(u8::is_ascii_digit).count();
    if major == 0 {
        return false;
    }
    let tail = &rest[major..];
    tail.is_empty()
        || ["alpha", "beta"].iter().any(|q| {
            tail.strip_prefix(q)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
        })
}

/// objectRef from `methodName` (resource, subresource, and group/version when
/// `resourceName` lacks them) and `resourceName` (group, version, namespace, name).
fn object_ref(method: &[&str], resource_name: &str, cut: &mut bool) -> Option<ObjectReference> {
    // methodName: <reversed group …>.<version>.<resource>[.<subresource>].<verb>
    let vi = method.iter().position(|s| is_version(s))?;
    if method.len() < vi + 3 {
        return None;
    }
    let resource = method[vi + 1];
    let subresource = method[vi + 2..method.len() - 1].join("/");
    let method_group = {
        let g = &method[..vi];
        match g {
            ["io", "k8s", "core"] => String::new(),
            ["io", "k8s", one] => (*one).to_owned(),
            ["io", "k8s", rest @ ..] => {
                let mut r: Vec<&str> = rest.to_vec();
                r.reverse();
                format!("{}.k8s.io", r.join("."))
            }
            _ => {
                let mut r: Vec<&str> = g.to_vec();
                r.reverse();
                r.join(".")
            }
        }
    };
    let mut o = ObjectReference {
        resource: records::owned(resource, cut),
        subresource: records::owned(&subresource, cut),
        api_group: method_group,
        api_version: records::owned(method[vi], cut),
        ..ObjectReference::default()
    };
    // resourceName: [<group|core>/<version>/]…
    let segs: Vec<&str> = resource_name.split('/').filter(|s| !s.is_empty()).collect();
    let rest: &[&str] = match segs.as_slice() {
        [g, v, rest @ ..] if is_version(v) => {
            o.api_group = if *g == "core" {
                String::new()
            } else {
                records::owned(g, cut)
            };
            o.api_version = records::owned(v, cut);
            rest
        }
        [v, rest @ ..] if is_version(v) => {
            o.api_group.clear();
            o.api_version = records::owned(v, cut);
            rest
        }
        all => all,
    };
    match rest {
        // The namespace itself (and its subresources: finalize, status).
        ["namespaces", name, ..] if resource == "namespaces" => o.name = records::owned(name, cut),
        // A namespaced object, or a collection in a namespace.
        ["namespaces", ns, _res, tail @ ..] => {
            o.namespace = records::owned(ns, cut);
            if let Some(name) = tail.first() {
                o.name = records::owned(name, cut);
            }
        }
        // A cluster-scoped object.
        [_res, name, ..] => o.name = records::owned(name, cut),
        _ => {}
    }
    Some(o)
}
