//! The requests `--apply` sends, as a trait: a kube-rs implementation ([`super::kube::KubeOps`])
//! talks to the API server; an in-memory one (`apply::fake`, built with the `testkit` feature)
//! backs the tests.
//!
//! Writes take the request body as exact bytes (built by [`super::patch`]), so what the tests
//! check is byte for byte what is sent.

use crate::gc::ObjectRef;
use crate::source::live::path::{self, segment};
use serde::{Deserialize, Deserializer, Serialize};
use std::borrow::Cow;
use std::future::Future;

/// The URL parts of an object ([`ObjectRef`]: group, version, resource, namespace, name), as
/// `--apply` requests it.
pub trait ObjectUrl {
    /// The object's URL path (`/api/v1/namespaces/ns/configmaps/name`), every segment escaped
    /// by [`segment`]: no name, namespace or discovery string can add a segment, a query or a
    /// fragment, or make the request fail to build.
    fn path(&self) -> String;

    /// The path the GC's metadata client GETs to look this object up as an owner (`isDangling`,
    /// §3.3): client-go's metadata client joins the URL segments and the name with Go's
    /// `path.Join` and checks nothing, so a name containing `/` spans several segments and
    /// `.`/`..` segments are resolved — `..` reaches the namespace (or the group-version
    /// document), `.` the collection, `a/b` a subresource path. Each remaining segment is
    /// escaped by [`segment`] (the server decodes it to the same bytes as Go's escaping), so
    /// `%` arrives as `%` (and the server refuses the name), `?` and `#` stay in the name.
    /// For a name that is a valid path segment (every stored object's) this is [`Self::path`].
    fn gc_get_path(&self) -> String;

    /// Why this is not the address of an object the API server can store, if it is not: a name
    /// or namespace that is not a valid path segment ([`path_segment_problem`]). Never the case
    /// for a listed object; apply never writes to such an address.
    fn not_storable(&self) -> Option<String>;
}

impl ObjectUrl for ObjectRef {
    fn path(&self) -> String {
        path::object(
            &self.group,
            &self.version,
            Some(&self.namespace),
            &self.resource,
            &self.name,
        )
    }

    fn gc_get_path(&self) -> String {
        let mut raw: Vec<&str> = Vec::with_capacity(7);
        if self.group.is_empty() {
            raw.push("api");
        } else {
            raw.extend(["apis", &self.group]);
        }
        raw.push(&self.version);
        if !self.namespace.is_empty() {
            raw.extend(["namespaces", &self.namespace]);
        }
        raw.push(&self.resource);
        if !self.name.is_empty() {
            raw.push(&self.name);
        }
        let joined = raw.join("/");
        let mut clean: Vec<&str> = Vec::new();
        for seg in joined.split('/') {
            match seg {
                "" | "." => {}
                ".." => {
                    clean.pop();
                }
                s => clean.push(s),
            }
        }
        let escaped: Vec<Cow<'_, str>> = clean.into_iter().map(segment).collect();
        format!("/{}", escaped.join("/"))
    }

    fn not_storable(&self) -> Option<String> {
        if let Some(p) = path_segment_problem(&self.name) {
            return Some(format!("name {:?} {p}", self.name));
        }
        if !self.namespace.is_empty()
            && let Some(p) = path_segment_problem(&self.namespace)
        {
            return Some(format!("namespace {:?} {p}", self.namespace));
        }
        None
    }
}

/// Why a name is not a valid path segment, if it is not (apimachinery's
/// `IsValidPathSegmentName`): `.`, `..`, or containing `/` or `%`. The API server stores no
/// object under such a name. (The GC's owner lookups do not check it: see
/// [`ObjectUrl::gc_get_path`].)
pub fn path_segment_problem(name: &str) -> Option<&'static str> {
    match name {
        "." => Some("may not be '.'"),
        ".." => Some("may not be '..'"),
        _ if name.contains('/') => Some("may not contain '/'"),
        _ if name.contains('%') => Some("may not contain '%'"),
        _ => None,
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

/// An object as read back: only the metadata fields decided on. The rest of the object —
/// labels, annotations (`last-applied-configuration` holds a Secret's data), data, spec —
/// is never kept, so it can never reach the record or any output.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveObject {
    /// Parsed fields.
    pub meta: LiveMeta,
}

impl LiveObject {
    /// Parses a `metadata` object, keeping only the fields of [`LiveMeta`].
    pub fn from_metadata(raw: serde_json::Value) -> Result<LiveObject, String> {
        let meta: LiveMeta =
            serde_json::from_value(raw).map_err(|e| format!("bad metadata: {e}"))?;
        Ok(LiveObject { meta })
    }
}

/// The content type of a PATCH.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchType {
    /// `application/strategic-merge-patch+json` (built-in types only; 415 for custom resources).
    Strategic,
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
    /// `application/json-patch+json` (RFC 6902): `relink`'s guarded additions.
    Json,
}

impl PatchType {
    /// The Content-Type header.
    pub fn content_type(self) -> &'static str {
        match self {
            PatchType::Strategic => "application/strategic-merge-patch+json",
            PatchType::Merge => "application/merge-patch+json",
            PatchType::Json => "application/json-patch+json",
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

    /// The reason given to a request that was never sent (it could not be built).
    pub const NOT_SENT: &'static str = "NotSent";

    /// A request that could not be built: nothing was sent.
    pub fn not_sent(message: impl Into<String>) -> ApiError {
        ApiError::status(0, Self::NOT_SENT, message)
    }

    /// The reason given to an answer that is not one object's metadata (a list, a discovery
    /// document): what client-go's metadata client refuses ("unexpected object").
    pub const NOT_AN_OBJECT: &'static str = "NotAnObject";

    /// An answer that is not one object's metadata.
    pub fn not_an_object(message: impl Into<String>) -> ApiError {
        ApiError::status(0, Self::NOT_AN_OBJECT, message)
    }

    /// True when the error concerns this one object or request only — the request could not be
    /// built, the server refused it as malformed (400, 422) or too long (431), the resource is no longer served
    /// (a 404 without a `NotFound` status) or does not take the verb (405), the path is not
    /// one object's (a list answered 406 to a metadata GET, or answered at all) — so the apply
    /// fails this action and goes on. Anything else (no answer, 401, 403, 429, 5xx) may hit every
    /// later request too: the apply stops.
    pub fn concerns_one_object(&self) -> bool {
        (self.code == 0 && (self.reason == Self::NOT_SENT || self.reason == Self::NOT_AN_OBJECT))
            || matches!(self.code, 400 | 405 | 406 | 422 | 431)
            || (self.code == 404 && !self.is_object_not_found())
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
            (0, _) if self.reason == Self::NOT_SENT => {
                format!("request not sent: {}", self.message)
            }
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
        key: &ObjectRef,
    ) -> impl Future<Output = Result<Option<LiveObject>, ApiError>> + Send;

    /// GET an owner's metadata the way the GC looks it up: at [`ObjectUrl::gc_get_path`], and
    /// an answer that is not one object's metadata is an error ([`ApiError::not_an_object`]).
    fn get_owner(
        &self,
        key: &ObjectRef,
    ) -> impl Future<Output = Result<Option<LiveObject>, ApiError>> + Send;

    /// DELETE with a `DeleteOptions` body.
    fn delete(
        &self,
        key: &ObjectRef,
        body: &[u8],
    ) -> impl Future<Output = Result<u16, ApiError>> + Send;

    /// PATCH with a body of the given type.
    fn patch(
        &self,
        key: &ObjectRef,
        patch: PatchType,
        body: &[u8],
    ) -> impl Future<Output = Result<u16, ApiError>> + Send;
}

#[cfg(test)]
mod tests {
    use super::{ApiError, ObjectRef, ObjectUrl, path_segment_problem, segment};
    use std::borrow::Cow;

    #[test]
    fn segments_are_escaped_and_plain_ones_borrowed() {
        for s in ["configmaps", "v1beta1", "kube-system", "a.b_c~d", "ABC123"] {
            assert!(matches!(segment(s), Cow::Borrowed(b) if b == s), "{s}");
        }
        for (raw, want) in [
            ("a/b", "a%2Fb"),
            ("a%2Fb", "a%252Fb"),
            ("a?x=1", "a%3Fx%3D1"),
            ("a#frag", "a%23frag"),
            (".", "%2E"),
            ("..", "%2E%2E"),
            ("...", "..."),
            ("a b", "a%20b"),
            ("new\nline\r", "new%0Aline%0D"),
            ("esc\u{1b}[2J", "esc%1B%5B2J"),
            ("nul\0", "nul%00"),
            ("é✓", "%C3%A9%E2%9C%93"),
            ("a;b,c:d@e", "a%3Bb%2Cc%3Ad%40e"),
        ] {
            assert_eq!(segment(raw), want, "{raw:?}");
            let key = ObjectRef {
                group: raw.into(),
                version: raw.into(),
                resource: raw.into(),
                kind: "K".into(),
                namespace: raw.into(),
                name: raw.into(),
                uid: String::new(),
            };
            let path = key.path();
            assert!(http::Uri::try_from(path.as_str()).is_ok(), "{path}");
            assert_eq!(path.matches('/').count(), 7, "{path}");
        }
    }

    #[test]
    fn names_the_api_server_cannot_store() {
        for bad in [".", "..", "a/b", "a%2Fb", "%", "/"] {
            assert!(path_segment_problem(bad).is_some(), "{bad}");
        }
        for ok in ["a", "...", "a..b", "a?x=1", "a#b", "é", "a\u{1}b", ""] {
            assert!(path_segment_problem(ok).is_none(), "{ok:?}");
        }
    }

    #[test]
    fn the_gcs_owner_lookup_path_is_joined_and_cleaned_like_client_gos() {
        let key = |ns: &str, name: &str| ObjectRef {
            group: String::new(),
            version: "v1".into(),
            resource: "configmaps".into(),
            kind: "ConfigMap".into(),
            namespace: ns.into(),
            name: name.into(),
            uid: String::new(),
        };
        let cases = [
            ("plain", "/api/v1/namespaces/ns/configmaps/plain"),
            ("a?x=1", "/api/v1/namespaces/ns/configmaps/a%3Fx%3D1"),
            ("a#b", "/api/v1/namespaces/ns/configmaps/a%23b"),
            ("a%2Fb", "/api/v1/namespaces/ns/configmaps/a%252Fb"),
            (".", "/api/v1/namespaces/ns/configmaps"),
            ("..", "/api/v1/namespaces/ns"),
            ("a/b", "/api/v1/namespaces/ns/configmaps/a/b"),
            ("../secrets/s", "/api/v1/namespaces/ns/secrets/s"),
            ("x/..", "/api/v1/namespaces/ns/configmaps"),
            ("a//b/./c", "/api/v1/namespaces/ns/configmaps/a/b/c"),
            ("../../../../../../..", "/"),
        ];
        for (name, want) in cases {
            assert_eq!(key("ns", name).gc_get_path(), want, "{name:?}");
        }
        // Valid path segments: the same path as every other request.
        for name in ["plain", "a?x=1", "é", "c\u{1}d", "..."] {
            assert_eq!(key("ns", name).gc_get_path(), key("ns", name).path());
        }
        let cluster = ObjectRef {
            group: "rbac.authorization.k8s.io".into(),
            resource: "clusterroles".into(),
            ..key("", "..")
        };
        assert_eq!(cluster.gc_get_path(), "/apis/rbac.authorization.k8s.io/v1");
    }

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
