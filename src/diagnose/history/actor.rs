//! Attribution: who did an action, from the request's authentication.

use super::Actor;
use crate::source::audit::AuditEvent;

/// The GC's username with service-account credentials.
pub const GC_USER: &str = "system:serviceaccount:kube-system:generic-garbage-collector";
/// The namespace controller's username with service-account credentials.
pub const NAMESPACE_CONTROLLER_USER: &str =
    "system:serviceaccount:kube-system:namespace-controller";

/// Who a request came from.
pub fn actor_of(e: &AuditEvent) -> Actor {
    Actor {
        kind: actor_kind(e),
        user: e
            .impersonated_user
            .clone()
            .unwrap_or_else(|| e.user.clone()),
        user_agent: e.user_agent.clone(),
    }
}

/// [`Actor::kind`] of a request (no string copied: every event of the log is asked).
pub(super) fn actor_kind(e: &AuditEvent) -> &'static str {
    let user = e.impersonated_user.as_deref().unwrap_or(&e.user);
    let ua = e.user_agent.as_str();
    if user == GC_USER || ua.ends_with("/generic-garbage-collector") {
        "garbage-collector"
    } else if user == NAMESPACE_CONTROLLER_USER || ua.ends_with("/namespace-controller") {
        "namespace-controller"
    } else if user.starts_with("system:") {
        "controller"
    } else {
        "user"
    }
}
