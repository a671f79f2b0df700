//! The `ValidatingWebhookConfiguration` that points the API server at the webhook
//! (`kubectl gc admit --print-config`), for the release it will run on.
//!
//! It is built never to stand in the cluster's way: `failurePolicy: Ignore` (a webhook that
//! is down, slow or unreachable admits everything), a short `timeoutSeconds`, `sideEffects:
//! None` (so dry runs are judged too), both review versions. The rules cover CREATE and UPDATE
//! of every resource (not subresources): an ownerReference can be written on any object. What
//! the webhook would admit at once is kept off the wire where the release can say so, so the
//! API server does not even call (the webhook checks it all again itself):
//!
//! - the skip label, as an `objectSelector` (every release);
//! - from 1.21, the namespaces opted in or out (kube-system always out, unless opted in by
//!   name), as a `namespaceSelector` on `kubernetes.io/metadata.name`, the label every
//!   namespace carries with its own name from that release on. Before it the label does not
//!   exist: a selector on it would match no namespace (`In`) or every one (`NotIn`), so none
//!   is written and the webhook, called for every namespace, skips them itself;
//! - from 1.28 (beta, on by default; GA in 1.30), `matchConditions`: a write that leaves the
//!   object's ownerReferences as they were, or has none, and the GC's, the namespace
//!   controller's and kube-controller-manager's writes. The expressions are linear in the
//!   references (a comparison, a size), so their CEL cost stays small on any object.

use super::decide::{CONTROL_PLANE_USERS, Policy, SKIP_LABEL};
use crate::catalog::KubeVersion;
use serde_json::{Value, json};

/// The webhook's name in the configuration.
pub const WEBHOOK_NAME: &str = "owner-references.kubectl-gc.io";

/// The label every namespace carries with its own name (Kubernetes 1.21+).
const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// The first release whose namespaces carry [`NAMESPACE_NAME_LABEL`].
pub const NAMESPACE_LABEL_SINCE: KubeVersion = KubeVersion::v1(21);

/// The first release that honours a webhook's `matchConditions` by default.
pub const MATCH_CONDITIONS_SINCE: KubeVersion = KubeVersion::v1(28);

/// The configuration for the webhook at `url` (`https://…/validate`), trusted through the CA
/// certificate(s) `ca_pem`, answering within `timeout_seconds`, for API servers of `release`.
pub fn webhook_configuration(
    url: &str,
    ca_pem: &[u8],
    policy: &Policy,
    timeout_seconds: u32,
    release: KubeVersion,
) -> Value {
    let mut ns_exprs = Vec::new();
    if release >= NAMESPACE_LABEL_SINCE {
        if !policy.namespaces.is_empty() {
            ns_exprs.push(json!({
                "key": NAMESPACE_NAME_LABEL, "operator": "In", "values": policy.namespaces,
            }));
        }
        if !policy.exclude_namespaces.is_empty() {
            ns_exprs.push(json!({
                "key": NAMESPACE_NAME_LABEL, "operator": "NotIn", "values": policy.exclude_namespaces,
            }));
        }
    }
    let mut webhook = json!({
        "name": WEBHOOK_NAME,
        "admissionReviewVersions": super::review::REVIEW_VERSIONS
            .iter()
            .map(|v| v.trim_start_matches("admission.k8s.io/"))
            .collect::<Vec<_>>(),
        "clientConfig": { "url": url, "caBundle": base64(ca_pem) },
        "failurePolicy": "Ignore",
        "matchPolicy": "Equivalent",
        "sideEffects": "None",
        "timeoutSeconds": timeout_seconds,
        "rules": [{
            "apiGroups": ["*"],
            "apiVersions": ["*"],
            "operations": ["CREATE", "UPDATE"],
            "resources": ["*"],
            "scope": "*",
        }],
        "objectSelector": { "matchExpressions": [{
            "key": SKIP_LABEL.0, "operator": "NotIn", "values": [SKIP_LABEL.1],
        }]},
    });
    if !ns_exprs.is_empty() {
        webhook["namespaceSelector"] = json!({ "matchExpressions": ns_exprs });
    }
    if release >= MATCH_CONDITIONS_SINCE {
        webhook["matchConditions"] = match_conditions();
    }
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": { "name": "kubectl-gc-admit" },
        "webhooks": [webhook],
    })
}

/// What the API server need not send: a write that adds no ownerReference, and the control
/// plane's. Each expression errs on the side of sending (an UPDATE that only reorders or
/// re-flags references is sent, and skipped by the webhook).
fn match_conditions() -> Value {
    let users: Vec<String> = CONTROL_PLANE_USERS
        .iter()
        .map(|u| format!("'{u}'"))
        .collect();
    json!([
        {
            "name": "has-owner-references",
            "expression": "has(object.metadata.ownerReferences) && size(object.metadata.ownerReferences) > 0",
        },
        {
            "name": "changes-owner-references",
            "expression": "oldObject == null || !has(oldObject.metadata.ownerReferences) || object.metadata.ownerReferences != oldObject.metadata.ownerReferences",
        },
        {
            "name": "not-the-control-plane",
            "expression": format!("!(request.userInfo.username in [{}])", users.join(", ")),
        },
    ])
}

/// The lines of `# ` comments printed above the configuration: the release it is for, and
/// what that release cannot keep off the wire.
pub fn header(release: KubeVersion, policy: &Policy) -> String {
    let mut out = format!(
        "# kubectl gc admit's webhook configuration for Kubernetes {}.{}.\n",
        release.major, release.minor
    );
    if release < NAMESPACE_LABEL_SINCE
        && (!policy.namespaces.is_empty() || !policy.exclude_namespaces.is_empty())
    {
        out.push_str(
            "# Namespaces do not carry kubernetes.io/metadata.name before 1.21: the API server\n\
             # calls the webhook for every namespace, and it skips the namespaces\n\
             # --only-namespace and --skip-namespace leave out itself.\n",
        );
    }
    if release < MATCH_CONDITIONS_SINCE {
        out.push_str(
            "# No matchConditions before 1.28: writes that add no ownerReference, and the\n\
             # control plane's, are sent too, and admitted at once by the webhook.\n",
        );
    }
    out
}

/// Standard base64 with padding (RFC 4648 §4), as `caBundle` is written.
pub fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
