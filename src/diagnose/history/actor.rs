//! Attribution: who did an action, from the request's authentication.
//!
//! `user.username` is what the API server authenticated; `userAgent` is whatever the client
//! sent. So the actor's kind comes from the username alone, and the user agent only tells apart
//! the controllers that share the controller manager's own identity (run without their own
//! service accounts, `--use-service-account-credentials=false`: each adds its name to the
//! agent). An impersonated request acted as the impersonated user, but the authenticated user
//! made it: its kind is the authenticated user's, and both names are kept.
//!
//! `user.groups` come from the same authenticator as the username, so they may refine the
//! kind where the username alone cannot (upstream's well-known names, k8s.io/apiserver's
//! `authentication/user`), in this order, after the GC's, the namespace controller's and the
//! controller manager's own identities:
//!
//! 1. **Anonymous** (`system:anonymous`, group `system:unauthenticated`): `user`. A request
//!    that proved no identity is no component of the cluster, whatever its `system:` name.
//! 2. **A node** (group `system:nodes`): `controller`, whatever the username. Kubelets
//!    authenticated as `kubelet` (client certificates with O=system:nodes) before the Node
//!    authorizer required `system:node:<name>`; AKS's as `nodeclient` (the AKS sample of
//!    tests/data/realdata/audit/aks).
//! 3. **The superuser group** (`system:masters`) with a `system:` username that is none of the
//!    control plane's own identities (`system:apiserver`, the API server's loopback client;
//!    `system:kube-…`; nodes; service accounts): `user`. Such a name is an administrator's
//!    credential (`system:admin` of k3s and OpenShift), not a controller.
//!
//! Otherwise a `system:` username is a `controller` and any other a `user`. Service accounts
//! need no group rule: their token always carries both the `system:serviceaccount:` username
//! and the `system:serviceaccounts` groups. Where no groups were recorded (GKE), only the
//! username speaks: a missing group never changes the kind.

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
        u => by_groups(u, &e.groups).unwrap_or(if u.starts_with("system:") {
            "controller"
        } else {
            "user"
        }),
    }
}

/// The kind the groups give (the module's rules 1 to 3), if any.
fn by_groups(user: &str, groups: &[String]) -> Option<&'static str> {
    let has = |g: &str| groups.iter().any(|x| x == g);
    if user == "system:anonymous" || has("system:unauthenticated") {
        return Some("user");
    }
    if has("system:nodes") {
        return Some("controller");
    }
    let control_plane = user == "system:apiserver"
        || ["system:kube-", "system:node:", "system:serviceaccount:"]
            .iter()
            .any(|p| user.starts_with(p));
    if has("system:masters") && user.starts_with("system:") && !control_plane {
        return Some("user");
    }
    None
}
