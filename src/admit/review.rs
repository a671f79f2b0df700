//! `AdmissionReview` in and out, `admission.k8s.io/v1` and `v1beta1` (the two carry the same
//! fields for what is read here; the answer goes back in the version that asked).
//!
//! Only what the decision reads is parsed: the request's identity, operation, resource, user,
//! and the metadata of `object` and `oldObject` (the rest of the objects is skipped unread).
//! Every field the API server always sends is still optional here: a body that lacks one is
//! answered, never a panic.

use crate::model::MetaIn;
use serde::Deserialize;
use std::borrow::Cow;

/// The review versions answered.
pub const REVIEW_VERSIONS: [&str; 2] = ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"];

/// Group, version and resource of the request.
#[derive(Deserialize, Debug, Default, Clone)]
pub struct Resource<'a> {
    /// API group (`""`: core).
    #[serde(borrow, default)]
    pub group: Cow<'a, str>,
    /// Version.
    #[serde(borrow, default)]
    pub version: Cow<'a, str>,
    /// Plural resource name.
    #[serde(borrow, default)]
    pub resource: Cow<'a, str>,
}

/// Who sent the write.
#[derive(Deserialize, Debug, Default, Clone)]
pub struct UserInfo<'a> {
    /// The user name (`system:serviceaccount:NS:NAME` for service accounts).
    #[serde(borrow, default)]
    pub username: Cow<'a, str>,
    /// Its groups.
    #[serde(borrow, default)]
    pub groups: Vec<Cow<'a, str>>,
}

/// The part of an object that is read: its metadata.
#[derive(Deserialize, Debug, Default, Clone)]
pub struct ObjectIn<'a> {
    /// `metadata`.
    #[serde(borrow, default)]
    pub metadata: MetaIn<'a>,
}

/// `request`.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Request<'a> {
    /// Echoed in the response.
    #[serde(borrow, default)]
    pub uid: Cow<'a, str>,
    /// The resource written.
    #[serde(borrow, default)]
    pub resource: Resource<'a>,
    /// `status`, `scale`, …, or empty.
    #[serde(borrow, default)]
    pub sub_resource: Cow<'a, str>,
    /// The object's name (may be empty on CREATE with generateName).
    #[serde(borrow, default)]
    pub name: Cow<'a, str>,
    /// The object's namespace (empty: cluster-scoped).
    #[serde(borrow, default)]
    pub namespace: Cow<'a, str>,
    /// `CREATE`, `UPDATE`, `DELETE`, `CONNECT`.
    #[serde(borrow, default)]
    pub operation: Cow<'a, str>,
    /// Who.
    #[serde(borrow, default)]
    pub user_info: UserInfo<'a>,
    /// The object as it will be written.
    #[serde(borrow, default)]
    pub object: Option<ObjectIn<'a>>,
    /// The object as it was (UPDATE).
    #[serde(borrow, default)]
    pub old_object: Option<ObjectIn<'a>>,
}

/// An `AdmissionReview` as received.
#[derive(Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
struct ReviewIn<'a> {
    #[serde(borrow, default)]
    api_version: Cow<'a, str>,
    #[serde(borrow, default)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    request: Option<Request<'a>>,
}

/// A review that was read: its version and the request.
#[derive(Debug)]
pub struct Review<'a> {
    /// `admission.k8s.io/v1` or `admission.k8s.io/v1beta1`.
    pub api_version: &'static str,
    /// The request.
    pub request: Request<'a>,
}

/// Reads a review; `Err` with one line saying why it is not one this webhook answers.
pub fn parse(body: &[u8]) -> Result<Review<'_>, String> {
    let text = std::str::from_utf8(body).map_err(|_| "the body is not UTF-8".to_owned())?;
    let r: ReviewIn<'_> =
        serde_json::from_str(text).map_err(|e| format!("not an AdmissionReview: {e}"))?;
    if r.kind != "AdmissionReview" {
        return Err("not an AdmissionReview: kind is not AdmissionReview".into());
    }
    let Some(api_version) = REVIEW_VERSIONS.into_iter().find(|v| *v == r.api_version) else {
        return Err(format!(
            "AdmissionReview version {:?} is not served (use {})",
            super::clip(&r.api_version),
            REVIEW_VERSIONS.join(" or ")
        ));
    };
    let request = r
        .request
        .ok_or_else(|| "the AdmissionReview has no request".to_owned())?;
    if request.uid.is_empty() {
        return Err("the AdmissionReview request has no uid".into());
    }
    Ok(Review {
        api_version,
        request,
    })
}

/// The answer to a review: allowed (with warnings) or refused with a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Admitted.
    pub allowed: bool,
    /// Warnings (kubectl prints each as `Warning: …`).
    pub warnings: Vec<String>,
    /// Why it was refused.
    pub message: Option<String>,
}

impl Answer {
    /// Allowed, nothing said.
    pub fn allow() -> Answer {
        Answer {
            allowed: true,
            warnings: Vec::new(),
            message: None,
        }
    }
}

/// The response body: an `AdmissionReview` of `api_version` answering request `uid`.
pub fn respond(api_version: &str, uid: &str, answer: &Answer) -> Vec<u8> {
    let mut response = serde_json::json!({
        "uid": uid,
        "allowed": answer.allowed,
    });
    if !answer.warnings.is_empty() {
        response["warnings"] = serde_json::json!(answer.warnings);
    }
    if !answer.allowed {
        response["status"] = serde_json::json!({
            "code": 403,
            "reason": "Forbidden",
            "message": answer.message.as_deref().unwrap_or("refused"),
        });
    }
    serde_json::to_vec(&serde_json::json!({
        "apiVersion": api_version,
        "kind": "AdmissionReview",
        "response": response,
    }))
    .unwrap_or_default()
}
