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
//! Otherwise a `system:` username is a `controller` and any other a `user`.
//!
//! A service account is proven by its groups, not its name: the API server gives a
//! service-account token the username `system:serviceaccount:<ns>:<name>` *and* the groups
//! `system:serviceaccounts` and `system:serviceaccounts:<ns>`. Any other authenticator (a
//! static token, OIDC, a client certificate) may carry a username of that spelling without
//! them, and RBAC even grants it the account's roles (service-account subjects match by
//! name) — but it is not the GC, the namespace controller or any controller: such a request
//! is a `user`'s (a node's, `system:nodes`, stays a controller's). Where no groups were
//! recorded at all (GKE's `authenticationInfo` has none), only the username speaks: a format
//! that drops groups never changes the kind.

use super::{Actor, ActorKind};
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
pub(super) fn actor_kind(e: &AuditEvent) -> ActorKind {
    actor_kind_of(&e.user, &e.user_agent, &e.groups)
}

/// [`actor_kind`] from the authenticated username, its user agent and its groups.
pub(super) fn actor_kind_of(user: &str, user_agent: &str, groups: &[String]) -> ActorKind {
    if let Some(account) = user.strip_prefix("system:serviceaccount:")
        && !groups.is_empty()
        && !service_account_groups(account, groups)
    {
        // A service account's name from another authenticator: not that account.
        return by_groups(user, groups).unwrap_or(ActorKind::User);
    }
    match user {
        GC_USER => ActorKind::GarbageCollector,
        NAMESPACE_CONTROLLER_USER => ActorKind::NamespaceController,
        CONTROLLER_MANAGER_USER => {
            if user_agent.ends_with("/generic-garbage-collector") {
                ActorKind::GarbageCollector
            } else if user_agent.ends_with("/namespace-controller") {
                ActorKind::NamespaceController
            } else {
                ActorKind::Controller
            }
        }
        u => by_groups(u, groups).unwrap_or(if u.starts_with("system:") {
            ActorKind::Controller
        } else {
            ActorKind::User
        }),
    }
}

/// True when `groups` are those the API server gives the token of service account
/// `account` (`<ns>:<name>`): `system:serviceaccounts` and `system:serviceaccounts:<ns>`.
fn service_account_groups(account: &str, groups: &[String]) -> bool {
    let Some((ns, _)) = account.split_once(':') else {
        return false;
    };
    let has = |g: &str| groups.iter().any(|x| x == g);
    has("system:serviceaccounts") && has(&format!("system:serviceaccounts:{ns}"))
}

/// The kind the groups give (the module's rules 1 to 3), if any.
fn by_groups(user: &str, groups: &[String]) -> Option<ActorKind> {
    let has = |g: &str| groups.iter().any(|x| x == g);
    if user == "system:anonymous" || has("system:unauthenticated") {
        return Some(ActorKind::User);
    }
    if has("system:nodes") {
        return Some(ActorKind::Controller);
    }
    let control_plane = user == "system:apiserver"
        || ["system:kube-", "system:node:", "system:serviceaccount:"]
            .iter()
            .any(|p| user.starts_with(p));
    if has("system:masters") && user.starts_with("system:") && !control_plane {
        return Some(ActorKind::User);
    }
    None
}
