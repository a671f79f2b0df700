//! The `ValidatingWebhookConfiguration` that points the API server at the webhook
//! (`kubectl gc admit --print-config`).
//!
//! It is built never to stand in the cluster's way: `failurePolicy: Ignore` (a webhook that
//! is down, slow or unreachable admits everything), a short `timeoutSeconds`, `sideEffects:
//! None` (so dry runs are judged too), both review versions. The rules cover CREATE and UPDATE
//! of every resource (not subresources): an ownerReference can be written on any object. The
//! namespace opt-in/out and the skip label go into the selectors too, so the API server does
//! not even call for those writes (the webhook checks them again itself).

use super::decide::{Policy, SKIP_LABEL};
use serde_json::{Value, json};

/// The webhook's name in the configuration.
pub const WEBHOOK_NAME: &str = "owner-references.kubectl-gc.io";

/// The label every namespace carries with its own name (Kubernetes 1.21+).
const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// The configuration for the webhook at `url` (`https://…/validate`), trusted through the CA
/// certificate(s) `ca_pem`, answering within `timeout_seconds`.
pub fn webhook_configuration(
    url: &str,
    ca_pem: &[u8],
    policy: &Policy,
    timeout_seconds: u32,
) -> Value {
    let mut ns_exprs = Vec::new();
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
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": { "name": "kubectl-gc-admit" },
        "webhooks": [webhook],
    })
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
