//! Attribution: who did an action, from the request's authentication.
//!
//! `user.username` is what the API server authenticated; `userAgent` is whatever the client
//! sent. So the actor's kind comes from the username alone, and the user agent only tells apart
//! the controllers that share the controller manager's own identity (run without their own
//! service accounts, `--use-service-account-credentials=false`: each adds its name to the
//! agent). An impersonated request acted as the impersonated user, but the authenticated user
//! made it: its kind is the authenticated user's, and both names are kept.

use super::Actor;
use crate::source::audit::AuditEvent;

/// The GC's username with service-account credentials.
pub const GC_USER: &str = "system:serviceaccount:kube-system:generic-garbage-collector";
/// The namespace controller's username with service-account credentials.
pub const NAMESPACE_CONTROLLER_USER: &str =
    "system:serviceaccount:kube-system:namespace-controller";
/// The controller manager's own username (controllers without their own service accounts).
pub const CONTROLLER_MANAGER_USER: &str = "system:kube-controller-manager";

/// Who a request came from.
pub fn actor_of(e: &AuditEvent) -> Actor {
    Actor {
        kind: actor_kind(e),
        user: e
            .impersonated_user
            .clone()
            .unwrap_or_else(|| e.user.clone()),
        impersonated_by: e.impersonated_user.as_ref().map(|_| e.user.clone()),
        user_agent: e.user_agent.clone(),
    }
}

/// [`Actor::kind`] of a request (no string copied: every event of the log is asked).
pub(super) fn actor_kind(e: &AuditEvent) -> &'static str {
    match e.user.as_str() {
        GC_USER => "garbage-collector",
        NAMESPACE_CONTROLLER_USER => "namespace-controller",
        CONTROLLER_MANAGER_USER => {
            let ua = e.user_agent.as_str();
            if ua.ends_with("/generic-garbage-collector") {
                "garbage-collector"
            } else if ua.ends_with("/namespace-controller") {
                "namespace-controller"
            } else {
                "controller"
            }
        }
        u if u.starts_with("system:") => "controller",
        _ => "user",
    }
}
