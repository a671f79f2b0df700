//! Access reviews: whether an identity may do something, asked of the API server's own
//! authorizer. `SelfSubjectAccessReview` for whoever this connection is (any authenticated
//! user may ask it; `--as` asks it for the impersonated user), `SubjectAccessReview` for a
//! given user (the admission webhook asks it for a review's `userInfo`; it needs `create` on
//! `subjectaccessreviews`).
//!
//! The review carries exactly the attributes the API server's admission would authorize, so
//! the answer is the authorizer's (RBAC, webhook authorizers, anything chained), not a guess
//! from reading roles.

use super::request::{self, Stats};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// `resourceAttributes` of an access review (authorization.k8s.io/v1): one request the
/// authorizer is asked about.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ResourceAttributes {
    /// `get`, `update`, `delete`, …
    pub verb: String,
    /// API group (`""`: core).
    pub group: String,
    /// API version (authorizers such as RBAC ignore it; the API server sends it).
    pub version: String,
    /// Plural resource name.
    pub resource: String,
    /// Subresource (`finalizers`), or `""`.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub subresource: String,
    /// Namespace, or `""` for a cluster-scoped resource (or every namespace).
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub namespace: String,
    /// The object's name, or `""`.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub name: String,
}

/// Who is asked about.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Subject {
    /// The connection's own identity (`SelfSubjectAccessReview`).
    Myself,
    /// A user as an admission review names them (`SubjectAccessReview`).
    User {
        /// `userInfo.username`.
        username: String,
        /// `userInfo.uid`.
        uid: String,
        /// `userInfo.groups`.
        groups: Vec<String>,
        /// `userInfo.extra`.
        extra: std::collections::BTreeMap<String, Vec<String>>,
    },
}

/// The authorizer's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// `status.allowed`.
    pub allowed: bool,
    /// `status.reason` (what allowed or denied it, when the authorizer says).
    pub reason: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ReviewOut {
    status: StatusOut,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct StatusOut {
    allowed: bool,
    denied: bool,
    reason: String,
    #[serde(rename = "evaluationError")]
    evaluation_error: String,
}

/// The review's body for `attrs` about `who`.
fn body(who: &Subject, attrs: &ResourceAttributes) -> serde_json::Value {
    let mut spec = serde_json::json!({ "resourceAttributes": attrs });
    let kind = match who {
        Subject::Myself => "SelfSubjectAccessReview",
        Subject::User {
            username,
            uid,
            groups,
            extra,
        } => {
            spec["user"] = username.as_str().into();
            if !uid.is_empty() {
                spec["uid"] = uid.as_str().into();
            }
            spec["groups"] = serde_json::json!(groups);
            if !extra.is_empty() {
                spec["extra"] = serde_json::json!(extra);
            }
            "SubjectAccessReview"
        }
    };
    serde_json::json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": kind,
        "spec": spec,
    })
}

/// Asks whether `who` may do `attrs`. An error is the review's own failure (its request
/// refused, the server unreachable, an evaluation error without a decision): the caller
/// cannot tell, and must say so.
pub async fn review(
    client: &kube::Client,
    timeout: Option<Duration>,
    who: &Subject,
    attrs: &ResourceAttributes,
) -> Result<Decision, String> {
    let path = match who {
        Subject::Myself => "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        Subject::User { .. } => "/apis/authorization.k8s.io/v1/subjectaccessreviews",
    };
    let payload = serde_json::to_vec(&body(who, attrs)).map_err(|e| e.to_string())?;
    let build = || {
        http::Request::post(path)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::ACCEPT, "application/json")
            .body(payload.clone())
            .map_err(|e| e.to_string())
    };
    // A review creates nothing: it is safe to send again, as reads are.
    let answer = request::get(client, timeout, &Stats::default(), &build)
        .await
        .map_err(|f| format!("{path}: {}", f.describe()))?;
    let out: ReviewOut = serde_json::from_slice(&answer.body)
        .map_err(|e| format!("cannot decode the access review: {e}"))?;
    let s = out.status;
    if !s.allowed && !s.denied && !s.evaluation_error.is_empty() {
        return Err(format!(
            "the authorizer could not decide: {}",
            s.evaluation_error
        ));
    }
    Ok(Decision {
        allowed: s.allowed,
        reason: s.reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs() -> ResourceAttributes {
        ResourceAttributes {
            verb: "update".into(),
            group: "apps".into(),
            version: "v1".into(),
            resource: "deployments".into(),
            subresource: "finalizers".into(),
            namespace: "shop".into(),
            name: "web".into(),
        }
    }

    #[test]
    fn self_review_carries_only_the_attributes() {
        let b = body(&Subject::Myself, &attrs());
        assert_eq!(b["kind"], "SelfSubjectAccessReview");
        assert_eq!(
            b["spec"],
            serde_json::json!({"resourceAttributes": {
                "verb": "update", "group": "apps", "version": "v1", "resource": "deployments",
                "subresource": "finalizers", "namespace": "shop", "name": "web"}})
        );
    }

    #[test]
    fn subject_review_names_the_user_and_drops_empty_fields() {
        let who = Subject::User {
            username: "system:serviceaccount:ops:restorer".into(),
            uid: String::new(),
            groups: vec!["system:serviceaccounts".into()],
            extra: Default::default(),
        };
        let mut a = attrs();
        a.namespace.clear();
        a.subresource.clear();
        let b = body(&who, &a);
        assert_eq!(b["kind"], "SubjectAccessReview");
        assert_eq!(b["spec"]["user"], "system:serviceaccount:ops:restorer");
        assert_eq!(b["spec"]["groups"][0], "system:serviceaccounts");
        assert!(b["spec"].get("uid").is_none() && b["spec"].get("extra").is_none());
        let ra = &b["spec"]["resourceAttributes"];
        assert!(ra.get("namespace").is_none() && ra.get("subresource").is_none());
    }
}
