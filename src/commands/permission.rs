//! OwnerReferencesPermissionEnforcement's checks on the writes `check apply` and `relink`
//! predict (`diagnose::permission`), asked of the API server for the identity that will write:
//! this connection's (SelfSubjectAccessReview; `--as` makes it the impersonated user's).

use crate::admit::permission::{Answer, Authorizer, Cached, User};
use crate::cli::GlobalArgs;
use crate::diagnose::permission::{Check, Decision, ResourceAttributes, Verdict, judge};
use crate::source::live::Connection;
use crate::source::live::access::{Subject, review};
use futures::StreamExt;
use std::collections::{BTreeSet, HashMap};

/// At most this many distinct access reviews for one command; the checks past it are unknown.
const MAX_REVIEWS: usize = 2000;
/// Reviews in flight at once.
const CONCURRENCY: usize = 8;

/// Who writes, in prose, and their username when it is known (`--as`).
pub fn writer(g: &GlobalArgs, conn: &Connection) -> (String, Option<String>) {
    match &g.as_user {
        Some(user) => (format!("user {user:?}"), Some(user.clone())),
        None => (
            match &conn.context {
                Some(c) => format!("you (kubeconfig context {c:?})"),
                None => "you (this pod's service account)".to_owned(),
            },
            None,
        ),
    }
}

/// The authorizer's answer to every distinct authorization `checks` need, asked of the API
/// server for this connection's identity.
pub async fn ask<'c>(
    conn: &Connection,
    checks: impl Iterator<Item = &'c Check>,
) -> HashMap<ResourceAttributes, Result<Decision, String>> {
    let wanted: BTreeSet<&ResourceAttributes> = checks
        .filter_map(|c| match c {
            Check::Access { attrs, .. } => Some(attrs),
            _ => None,
        })
        .collect();
    let mut wanted = wanted.into_iter();
    let asked: Vec<&ResourceAttributes> = wanted.by_ref().take(MAX_REVIEWS).collect();
    let mut answers: HashMap<ResourceAttributes, Result<Decision, String>> =
        futures::stream::iter(asked.into_iter().map(|a| async move {
            let answer = review(&conn.client, conn.request_timeout, &Subject::Myself, a).await;
            (a.clone(), answer)
        }))
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    for a in wanted {
        answers.insert(
            a.clone(),
            Err(format!("not asked: more than {MAX_REVIEWS} access reviews")),
        );
    }
    answers
}

/// The verdict on `checks` of a write whose new references are `new`, from `answers`.
pub fn verdict(
    checks: &[Check],
    answers: &HashMap<ResourceAttributes, Result<Decision, String>>,
    new: &[crate::diagnose::permission::RefIn<'_>],
    writer: &str,
) -> Verdict {
    let got: Vec<Result<Decision, String>> = checks
        .iter()
        .filter_map(|c| match c {
            Check::Access { attrs, .. } => Some(
                answers
                    .get(attrs)
                    .cloned()
                    .unwrap_or_else(|| Err("not asked".into())),
            ),
            _ => None,
        })
        .collect();
    judge(checks, &got, new, writer)
}

/// The webhook's authorizer (`admit --check-permissions`): a SubjectAccessReview for the
/// review's sender on this connection, each answer kept a few seconds.
pub fn webhook_authorizer(conn: &Connection) -> std::sync::Arc<dyn Authorizer> {
    std::sync::Arc::new(Cached::new(SubjectReviews {
        client: conn.client.clone(),
        timeout: conn.request_timeout,
    }))
}

/// Asks the API server for the review's user.
struct SubjectReviews {
    client: kube::Client,
    timeout: Option<std::time::Duration>,
}

impl Authorizer for SubjectReviews {
    fn review<'a>(&'a self, user: &'a User, attrs: &'a ResourceAttributes) -> Answer<'a> {
        Box::pin(async move {
            let who = Subject::User {
                username: user.username.clone(),
                uid: String::new(),
                groups: user.groups.clone(),
                extra: Default::default(),
            };
            review(&self.client, self.timeout, &who, attrs).await
        })
    }
}
