//! The requests `--apply` sends, as a trait: a kube-rs implementation ([`super::kube::KubeOps`])
//! talks to the API server; an in-memory one ([`super::fake::FakeCluster`]) backs the tests.
//!
//! Writes take the request body as exact bytes (built by [`super::patch`]), so what the tests
//! check is byte for byte what is sent.

use crate::model::ObjId;
use crate::snapshot::Snapshot;
use serde::{Deserialize, Deserializer, Serialize};
use std::future::Future;

/// Where an object lives: its resource (group/version/plural, as the API server serves it),
/// namespace (`""` for cluster-scoped objects) and name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectKey {
    /// API group (`""` for core).
    pub group: String,
    /// Version used in the URL.
    pub version: String,
    /// Plural resource name.
    pub plural: String,
    /// Kind (for messages).
    pub kind: String,
    /// Namespace, `""` for cluster-scoped objects.
    pub namespace: String,
    /// Name.
    pub name: String,
}

impl ObjectKey {
    /// The key of a snapshot object (at the version it was listed with).
    pub fn of(snap: &Snapshot, id: ObjId) -> ObjectKey {
        let o = snap.store.object(id);
        let r = snap.resource_of(o);
        ObjectKey {
            group: r.group.clone(),
            version: r.version.clone(),
            plural: r.plural.clone(),
            kind: r.kind.clone(),
            namespace: snap.store.str(o.namespace).to_owned(),
            name: snap.store.str(o.name).to_owned(),
        }
    }

    /// The object's URL path (`/api/v1/namespaces/ns/configmaps/name`).
    pub fn path(&self) -> String {
        let base = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        if self.namespace.is_empty() {
            format!("{base}/{}/{}", self.plural, self.name)
        } else {
            format!(
                "{base}/namespaces/{}/{}/{}",
                self.namespace, self.plural, self.name
            )
        }
    }

    /// `Kind/name -n ns` (or `Kind/name`).
    pub fn describe(&self) -> String {
        if self.namespace.is_empty() {
            format!("{}/{}", self.kind, self.name)
        } else {
            format!("{}/{} -n {}", self.kind, self.name, self.namespace)
        }
    }
}

/// An ownerReference as the API server returns it; serialises with Kubernetes' own field order
/// (apiVersion, kind, name, uid, controller, blockOwnerDeletion), as the GC's patches do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct LiveRef {
    /// apiVersion of the owner.
    #[serde(default)]
    pub api_version: String,
    /// Kind of the owner.
    #[serde(default)]
    pub kind: String,
    /// Name of the owner.
    #[serde(default)]
    pub name: String,
    /// UID of the owner.
    #[serde(default)]
    pub uid: String,
    /// `controller`, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

impl LiveRef {
    /// `blockOwnerDeletion: true`.
    pub fn blocks(&self) -> bool {
        self.block_owner_deletion == Some(true)
    }
}

/// The metadata fields `--apply` decides on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct LiveMeta {
    /// Name.
    #[serde(default)]
    pub name: String,
    /// Namespace (empty for cluster-scoped objects).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// UID.
    #[serde(default)]
    pub uid: String,
    /// resourceVersion.
    #[serde(default)]
    pub resource_version: String,
    /// deletionTimestamp, when terminating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<String>,
    /// Finalizers.
    #[serde(
        default,
        deserialize_with = "null_as_empty",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub finalizers: Vec<String>,
    /// ownerReferences.
    #[serde(
        default,
        deserialize_with = "null_as_empty",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub owner_references: Vec<LiveRef>,
}

fn null_as_empty<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

impl LiveMeta {
    /// Terminating (has a deletionTimestamp).
    pub fn terminating(&self) -> bool {
        self.deletion_timestamp.is_some()
    }

    /// Has finalizer `f`.
    pub fn has_finalizer(&self, f: &str) -> bool {
        self.finalizers.iter().any(|x| x == f)
    }
}

/// An object as read back: the fields decided on, plus its whole metadata (without
/// `managedFields`) for the record.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveObject {
    /// Parsed fields.
    pub meta: LiveMeta,
    /// `metadata` as the server returned it, minus `managedFields`.
    pub raw: serde_json::Value,
}

impl LiveObject {
    /// Parses a `metadata` object (dropping `managedFields`).
    pub fn from_metadata(mut raw: serde_json::Value) -> Result<LiveObject, String> {
        if let Some(m) = raw.as_object_mut() {
            m.remove("managedFields");
        }
        let meta: LiveMeta =
            serde_json::from_value(raw.clone()).map_err(|e| format!("bad metadata: {e}"))?;
        Ok(LiveObject { meta, raw })
    }
}

/// The content type of a PATCH.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchType {
    /// `application/strategic-merge-patch+json` (built-in types only; 415 for custom resources).
    Strategic,
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
}

impl PatchType {
    /// The Content-Type header.
    pub fn content_type(self) -> &'static str {
        match self {
            PatchType::Strategic => "application/strategic-merge-patch+json",
            PatchType::Merge => "application/merge-patch+json",
        }
    }
}

/// A failed request: the server's status, or no answer at all (`code` 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status code; 0 when the server did not answer (connection, timeout, TLS).
    pub code: u16,
    /// `Status.reason` (`NotFound`, `Conflict`, …), when given.
    pub reason: String,
    /// `Status.message`, or what went wrong.
    pub message: String,
}

impl ApiError {
    /// A status error.
    pub fn status(code: u16, reason: &str, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            reason: reason.to_owned(),
            message: message.into(),
        }
    }

    /// True when the *object* does not exist: a 404 whose Status says `NotFound`. A bare 404
    /// (e.g. "404 page not found" for a resource whose CRD was removed) means the kind is no
    /// longer served — for the GC a REST-mapping failure, never an absent owner.
    pub fn is_object_not_found(&self) -> bool {
        self.code == 404 && self.reason == "NotFound"
    }

    /// One line.
    pub fn describe(&self) -> String {
        match (self.code, self.reason.is_empty()) {
            (0, _) => self.message.clone(),
            (c, true) => format!("HTTP {c}: {}", self.message),
            (c, false) => format!("{c} {}: {}", self.reason, self.message),
        }
    }
}

/// The API requests `--apply` makes. GET answers `None` for 404; writes answer the HTTP status
/// of a 2xx response, or the error.
pub trait ClusterOps {
    /// GET the object's metadata.
    fn get(
        &self,
        key: &ObjectKey,
    ) -> impl Future<Output = Result<Option<LiveObject>, ApiError>> + Send;

    /// DELETE with a `DeleteOptions` body.
    fn delete(
        &self,
        key: &ObjectKey,
        body: &[u8],
    ) -> impl Future<Output = Result<u16, ApiError>> + Send;

    /// PATCH with a body of the given type.
    fn patch(
        &self,
        key: &ObjectKey,
        patch: PatchType,
        body: &[u8],
    ) -> impl Future<Output = Result<u16, ApiError>> + Send;
}

#[cfg(test)]
mod tests {
    use super::ApiError;

    #[test]
    fn only_a_not_found_status_means_the_object_is_absent() {
        assert!(
            ApiError::status(404, "NotFound", "configmaps \"x\" not found").is_object_not_found()
        );
        // The resource itself is gone (CRD deleted): not "the owner does not exist".
        assert!(!ApiError::status(404, "", "404 page not found").is_object_not_found());
        assert!(!ApiError::status(403, "Forbidden", "no").is_object_not_found());
        assert!(!ApiError::status(0, "", "timeout").is_object_not_found());
    }
}
