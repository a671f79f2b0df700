//! Field managers that are clients, not controllers. A finalizer written by a client (a person
//! running `kubectl`, a pipeline running `helm install`) has no loop behind it that will ever
//! remove it: "check that its controller runs" is wrong advice for it. GitOps controllers
//! (Argo CD, Flux) do run a loop, and their managers are not listed here.
//!
//! The names are the `manager` of `metadata.managedFields`: kubectl sets `kubectl-<verb>`
//! (`kubectl-client-side-apply`, `kubectl-create`, `kubectl-edit`, …) for client-side writes and
//! `kubectl` for server-side apply; Helm 3 writes as `helm`.

/// Managers that are clients whatever their version suffix (`helm` and `kubectl` write no
/// suffix; generic HTTP clients write their library's user agent).
const CLIENTS: &[&str] = &[
    "kubectl",
    "helm",
    "k9s",
    "curl",
    "Go-http-client",
    "python-requests",
    "OpenAPI-Generator",
    "Mozilla",
    "kubernetes-dashboard",
    "Lens",
];

/// Managers that look like a client's but are controllers: they reconcile in a loop and take
/// back what they wrote once their source says so.
const CONTROLLERS: &[&str] = &[
    "argocd-controller",
    "argocd-application-controller",
    "kustomize-controller",
    "helm-controller",
];

/// Whether field manager `manager` is a client (a person or a pipeline), not a controller.
pub fn is_client(manager: &str) -> bool {
    if CONTROLLERS.contains(&manager) {
        return false;
    }
    // `kubectl-client-side-apply`, `kubectl-edit`, …; a user agent may carry `/version`.
    let base = manager.split('/').next().unwrap_or(manager);
    CLIENTS.contains(&base)
        || base
            .strip_prefix("kubectl-")
            .is_some_and(|verb| !verb.is_empty())
}

#[cfg(test)]
mod tests {
    use super::is_client;

    #[test]
    fn kubectl_helm_and_http_clients_are_clients_gitops_controllers_are_not() {
        for m in [
            "kubectl-client-side-apply",
            "kubectl-create",
            "kubectl-edit",
            "kubectl-patch",
            "kubectl",
            "helm",
            "Go-http-client/2.0",
        ] {
            assert!(is_client(m), "{m}");
        }
        for m in [
            "argocd-controller",
            "argocd-application-controller",
            "kustomize-controller",
            "helm-controller",
            "kube-controller-manager",
            "cert-manager-certificates-issuing",
            "kubectl-",
            "kubectlx",
            "",
        ] {
            assert!(!is_client(m), "{m}");
        }
    }
}
