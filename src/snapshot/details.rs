//! What the namespace controller's model and `kubectl gc why` need beyond object metadata, for
//! the few objects that have it: each namespace's `spec.finalizers` and status (its phase and the
//! namespace controller's conditions), and each APIService's availability and backing service.
//!
//! Metadata-only reads (the GC's own) carry none of this, so a source fills it in only where it
//! read the whole object: the live source lists namespaces and APIServices in full beside the
//! metadata lists, a file input records what its Namespace and APIService objects hold. What was
//! not read stays absent, and absent means *unknown*: a namespace without a [`NamespaceStatus`]
//! may or may not hold foreign `spec.finalizers` tokens; `api_services: None` says nothing about
//! aggregated APIs.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A status condition, as the API server returns it (`metav1.Condition` and the older
/// per-type condition structs share these fields).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// `type`.
    #[serde(rename = "type", default)]
    pub type_: String,
    /// `status`: `True`, `False` or `Unknown`.
    #[serde(default)]
    pub status: String,
    /// `reason` (machine-readable, varies by release: match on the type, not on this).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// `message`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// `lastTransitionTime`, RFC 3339.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub last_transition_time: String,
}

impl Condition {
    /// True when `status` is `True`.
    pub fn is_true(&self) -> bool {
        self.status == "True"
    }
}

/// A namespace's `spec.finalizers` and status.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceStatus {
    /// `spec.finalizers`: the namespace controller removes only its own `kubernetes` token;
    /// any other token stays until someone calls `/finalize`.
    #[serde(default)]
    pub spec_finalizers: Vec<String>,
    /// `status.phase` (`Active`, `Terminating`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub phase: String,
    /// `status.conditions`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

impl NamespaceStatus {
    /// The condition of this type, if the status has it.
    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }

    /// The `spec.finalizers` tokens other than the namespace controller's own.
    pub fn foreign_spec_finalizers(&self) -> impl Iterator<Item = &str> {
        self.spec_finalizers
            .iter()
            .map(String::as_str)
            .filter(|f| *f != NAMESPACE_FINALIZER)
    }
}

/// The namespace controller's token in `spec.finalizers`.
pub const NAMESPACE_FINALIZER: &str = "kubernetes";

/// An APIService: which group-version it serves, where, and whether it is available.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiService {
    /// `metadata.name` (`<version>.<group>`).
    pub name: String,
    /// `spec.group`.
    #[serde(default)]
    pub group: String,
    /// `spec.version`.
    #[serde(default)]
    pub version: String,
    /// `spec.service` as `namespace/name`; `None` for an API the API server serves itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    /// The `Available` condition; `None` when the status has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available: Option<Condition>,
}

impl ApiService {
    /// `group/version`, as discovery names it.
    pub fn group_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// True unless its `Available` condition says otherwise.
    pub fn is_available(&self) -> bool {
        self.available.as_ref().is_none_or(Condition::is_true)
    }
}

/// Details beyond metadata, where they were read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Details {
    /// By namespace name, for the namespaces read in full.
    pub namespaces: BTreeMap<String, NamespaceStatus>,
    /// Every APIService, when they were read in full; `None` when they were not.
    pub api_services: Option<Vec<ApiService>>,
}

impl Details {
    /// True when nothing was read.
    pub fn is_empty(&self) -> bool {
        self.namespaces.is_empty() && self.api_services.is_none()
    }
}

/// Reads a namespace's details from its JSON (`spec` and `status` objects of a Namespace).
/// Fields that are not the expected type are left empty: this is read from hostile input.
pub fn namespace_status_from_json(
    spec: Option<&serde_json::Value>,
    status: Option<&serde_json::Value>,
) -> NamespaceStatus {
    let strings = |v: Option<&serde_json::Value>| -> Vec<String> {
        v.and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    NamespaceStatus {
        spec_finalizers: strings(spec.and_then(|s| s.get("finalizers"))),
        phase: status
            .and_then(|s| s.get("phase"))
            .and_then(|p| p.as_str())
            .unwrap_or_default()
            .to_owned(),
        conditions: conditions_from_json(status),
    }
}

/// The `conditions` of a status object; entries that are not objects are skipped.
pub fn conditions_from_json(status: Option<&serde_json::Value>) -> Vec<Condition> {
    status
        .and_then(|s| s.get("conditions"))
        .and_then(|c| c.as_array())
        .map(|a| {
            a.iter()
                .filter(|c| c.is_object())
                .map(|c| {
                    let field = |k: &str| {
                        c.get(k)
                            .and_then(|v| v.as_str())
                            .unwrap_or_default()
                            .to_owned()
                    };
                    Condition {
                        type_: field("type"),
                        status: field("status"),
                        reason: field("reason"),
                        message: field("message"),
                        last_transition_time: field("lastTransitionTime"),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Reads an APIService from its JSON (a whole object).
pub fn api_service_from_json(object: &serde_json::Value) -> Option<ApiService> {
    let name = object.pointer("/metadata/name")?.as_str()?.to_owned();
    let spec = object.get("spec");
    let text = |v: Option<&serde_json::Value>, k: &str| {
        v.and_then(|v| v.get(k))
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    let service = spec.and_then(|s| s.get("service")).and_then(|svc| {
        let name = svc.get("name")?.as_str()?;
        let ns = svc.get("namespace").and_then(|n| n.as_str()).unwrap_or("");
        Some(format!("{ns}/{name}"))
    });
    let available = conditions_from_json(object.get("status"))
        .into_iter()
        .find(|c| c.type_ == "Available");
    Some(ApiService {
        name,
        group: text(spec, "group"),
        version: text(spec, "version"),
        service,
        available,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn namespace_status_reads_tokens_and_conditions() {
        let ns = json!({
            "spec": {"finalizers": ["kubernetes", "openshift.io/origin", 7]},
            "status": {"phase": "Terminating", "conditions": [
                {"type": "NamespaceDeletionDiscoveryFailure", "status": "True",
                 "reason": "DiscoveryFailed", "message": "Discovery failed for some groups"},
                "not an object"
            ]}
        });
        let s = namespace_status_from_json(ns.get("spec"), ns.get("status"));
        assert_eq!(s.spec_finalizers, ["kubernetes", "openshift.io/origin"]);
        assert_eq!(
            s.foreign_spec_finalizers().collect::<Vec<_>>(),
            ["openshift.io/origin"]
        );
        assert_eq!(s.phase, "Terminating");
        assert_eq!(s.conditions.len(), 1);
        assert!(
            s.condition("NamespaceDeletionDiscoveryFailure")
                .unwrap()
                .is_true()
        );
        assert!(s.condition("NamespaceContentRemaining").is_none());
    }

    #[test]
    fn api_service_reads_service_and_availability() {
        let a = api_service_from_json(&json!({
            "metadata": {"name": "v1beta1.metrics.k8s.io"},
            "spec": {"group": "metrics.k8s.io", "version": "v1beta1",
                     "service": {"namespace": "kube-system", "name": "metrics-server"}},
            "status": {"conditions": [{"type": "Available", "status": "False",
                "reason": "ServiceNotFound", "message": "service/metrics-server in \"kube-system\" is not present"}]}
        }))
        .unwrap();
        assert_eq!(a.group_version(), "metrics.k8s.io/v1beta1");
        assert_eq!(a.service.as_deref(), Some("kube-system/metrics-server"));
        assert!(!a.is_available());
        let local = api_service_from_json(&json!({
            "metadata": {"name": "v1.apps"}, "spec": {"group": "apps", "version": "v1"},
            "status": {"conditions": [{"type": "Available", "status": "True"}]}
        }))
        .unwrap();
        assert!(local.is_available() && local.service.is_none());
        assert!(api_service_from_json(&json!({"spec": {}})).is_none());
    }
}
