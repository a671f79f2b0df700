//! OwnerReferencesPermissionEnforcement as a judgement the webhook reports: for a write that
//! sets `blockOwnerDeletion: true` (or changes an existing object's references), whether the
//! plugin would refuse it for the user who sent it, asked of the API server's authorizer with
//! a SubjectAccessReview for the review's `userInfo`.
//!
//! Where the plugin is enabled the API server refuses such a write before any validating
//! webhook is called, so a write that reaches the webhook and fails this judgement is one the
//! cluster admits today and a cluster with the plugin (OpenShift, hardened distributions)
//! would refuse: a warning, never a refusal, in every mode. The rule is
//! [`crate::diagnose::permission`], the same `check apply` and `relink` use.
//!
//! The server calls [`judge`] with an [`Authorizer`] the command wires to the API server
//! (`source::live::access::review` with `Subject::User`; the webhook's ServiceAccount then
//! needs `create` on `subjectaccessreviews`), within the review's deadline: an answer that
//! does not come in time leaves the write unjudged here, and nothing is said.

use super::review::Request;
use crate::diagnose::permission::{
    Check, Decision, OwnerMapping, PLUGIN, RefIn, ResourceAttributes, Verdict, Why, Write,
    describe, judge as verdict, required,
};
use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

/// The user a review names, as a SubjectAccessReview takes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct User {
    /// `userInfo.username`.
    pub username: String,
    /// `userInfo.groups`.
    pub groups: Vec<String>,
}

/// The authorizer's answer, in the future the [`Authorizer`] returns.
pub type Answer<'a> = Pin<Box<dyn Future<Output = Result<Decision, String>> + Send + 'a>>;

/// Asks the API server whether `user` may do `attrs` (SubjectAccessReview).
pub trait Authorizer: Send + Sync {
    /// The authorizer's decision, or why it could not be had.
    fn review<'a>(&'a self, user: &'a User, attrs: &'a ResourceAttributes) -> Answer<'a>;
}

/// An [`Authorizer`] that keeps each answer for [`Cached::TTL`], as the API server's own
/// webhook authorizer caches: a controller writing many objects asks once, and a flood of
/// writes from one user costs one review per kind of access, not one per write. Failures are
/// not kept.
pub struct Cached<A> {
    inner: A,
    kept: std::sync::Mutex<
        std::collections::HashMap<(User, ResourceAttributes), (Instant, Decision)>,
    >,
}

impl<A> Cached<A> {
    /// How long an answer is kept (the API server's default for an allowed answer is 5 min;
    /// shorter here, so a granted or revoked role shows within seconds).
    pub const TTL: std::time::Duration = std::time::Duration::from_secs(10);
    /// At most this many answers are kept; past it the oldest half is forgotten.
    pub const MAX: usize = 4096;

    /// Caches `inner`'s answers.
    pub fn new(inner: A) -> Self {
        Cached {
            inner,
            kept: Default::default(),
        }
    }

    fn get(&self, key: &(User, ResourceAttributes)) -> Option<Decision> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.get(key)
            .filter(|(at, _)| at.elapsed() < Self::TTL)
            .map(|(_, d)| d.clone())
    }

    fn keep(&self, key: (User, ResourceAttributes), d: Decision) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= Self::MAX {
            let mut ages: Vec<Instant> = kept.values().map(|(at, _)| *at).collect();
            ages.sort_unstable();
            let cut = ages[ages.len() / 2];
            kept.retain(|_, (at, _)| *at > cut);
        }
        kept.insert(key, (Instant::now(), d));
    }
}

impl<A: Authorizer> Authorizer for Cached<A> {
    fn review<'a>(&'a self, user: &'a User, attrs: &'a ResourceAttributes) -> Answer<'a> {
        Box::pin(async move {
            let key = (user.clone(), attrs.clone());
            if let Some(d) = self.get(&key) {
                return Ok(d);
            }
            let d = self.inner.review(user, attrs).await?;
            self.keep(key, d.clone());
            Ok(d)
        })
    }
}

/// The references of a review's object (`object`, or `oldObject` with `old`).
fn refs<'r>(request: &'r Request<'_>, old: bool) -> Option<Vec<RefIn<'r>>> {
    let o = if old {
        request.old_object.as_ref()
    } else {
        request.object.as_ref()
    }?;
    Some(
        o.metadata
            .owner_references
            .iter()
            .map(|r| RefIn {
                api_version: &r.api_version,
                kind: &r.kind,
                name: &r.name,
                uid: &r.uid,
                controller: r.controller,
                block_owner_deletion: r.block_owner_deletion,
            })
            .collect(),
    )
}

/// The plugin's checks on the review's write (CREATE and UPDATE; nothing for the others).
/// `map` REST-maps an owner's apiVersion/kind as the API server does (the webhook's graph
/// knows what is served).
pub fn checks(request: &Request<'_>, map: &dyn Fn(&RefIn<'_>) -> OwnerMapping) -> Vec<Check> {
    let old = match request.operation.as_ref() {
        "CREATE" => None,
        "UPDATE" => Some(refs(request, true).unwrap_or_default()),
        _ => return Vec::new(),
    };
    let Some(new) = refs(request, false) else {
        return Vec::new();
    };
    let w = Write {
        group: &request.resource.group,
        version: &request.resource.version,
        resource: &request.resource.resource,
        subresource: &request.sub_resource,
        namespace: &request.namespace,
        name: &request.name,
        old: old.as_deref(),
        new: &new,
    };
    required(&w, map)
}

/// The warning for the review, when the plugin would refuse its write; `None` when it would
/// admit it, or when that cannot be told before `deadline` (a review that fails or comes late
/// says nothing: the webhook never warns on what it does not know).
pub async fn judge(
    request: &Request<'_>,
    map: &dyn Fn(&RefIn<'_>) -> OwnerMapping,
    authorizer: &dyn Authorizer,
    deadline: Instant,
) -> Option<String> {
    warning(&checks(request, map), request, authorizer, deadline).await
}

/// [`judge`] of the checks already worked out for the review (the server's, on the graph's
/// REST mapper: [`super::decide::Checked::permission`]).
pub async fn warning(
    checks: &[Check],
    request: &Request<'_>,
    authorizer: &dyn Authorizer,
    deadline: Instant,
) -> Option<String> {
    if checks.is_empty() {
        return None;
    }
    let user = User {
        username: request.user_info.username.to_string(),
        groups: request
            .user_info
            .groups
            .iter()
            .map(|g| g.to_string())
            .collect(),
    };
    let asks = checks.iter().filter_map(|c| match c {
        Check::Access { attrs, .. } => Some(authorizer.review(&user, attrs)),
        _ => None,
    });
    let within = deadline.saturating_duration_since(Instant::now());
    let answers = tokio::time::timeout(within, futures::future::join_all(asks))
        .await
        .ok()?;
    let new = refs(request, false).unwrap_or_default();
    let writer = format!("user {:?}", super::clip(&user.username));
    match verdict(checks, &answers, &new, &writer) {
        Verdict::Refused(denials) => {
            // Short: the API server cuts a warning past 256 characters.
            let d = &denials[0];
            let what = match (&d.attrs, d.why) {
                (Some(a), Why::Blocks(i)) => format!(
                    "{writer} may not {} (blockOwnerDeletion=true on the reference to {})",
                    describe(a),
                    new.get(i)
                        .map_or_else(String::new, |r| format!("{}/{}", r.kind, r.name))
                ),
                (Some(a), Why::ChangesReferences) => format!(
                    "{writer} may not {} (changing an existing object's ownerReferences)",
                    describe(a)
                ),
                (None, _) => d.message.clone(),
            };
            Some(super::clip_to(
                &format!("where {PLUGIN} is enabled the API server refuses this write: {what}"),
                250,
            ))
        }
        Verdict::Admitted | Verdict::Unknown(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Allows what `allowed` lists, for anyone; counts what it is asked.
    struct Fake {
        allowed: Vec<(&'static str, &'static str)>,
        asked: std::sync::Mutex<Vec<String>>,
        delay: Duration,
    }

    impl Authorizer for Fake {
        fn review<'a>(&'a self, user: &'a User, attrs: &'a ResourceAttributes) -> Answer<'a> {
            Box::pin(async move {
                tokio::time::sleep(self.delay).await;
                self.asked
                    .lock()
                    .unwrap()
                    .push(format!("{} {}", user.username, attrs.verb));
                let allowed = self
                    .allowed
                    .iter()
                    .any(|(v, s)| *v == attrs.verb && *s == attrs.subresource);
                Ok(Decision {
                    allowed,
                    reason: String::new(),
                })
            })
        }
    }

    fn fake(allowed: Vec<(&'static str, &'static str)>, delay: Duration) -> Fake {
        Fake {
            allowed,
            asked: Default::default(),
            delay,
        }
    }

    fn review(operation: &str, block: bool, old: bool) -> String {
        let object = serde_json::json!({"metadata": {"name": "child", "namespace": "shop",
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
                                 "uid": "u1", "blockOwnerDeletion": block}]}});
        let mut request = serde_json::json!({
            "uid": "r1", "operation": operation, "name": "child", "namespace": "shop",
            "resource": {"group": "", "version": "v1", "resource": "configmaps"},
            "userInfo": {"username": "alice", "groups": ["dev"]},
            "object": object,
        });
        if old {
            request["oldObject"] = serde_json::json!({"metadata": {"name": "child"}});
        }
        serde_json::json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                           "request": request})
        .to_string()
    }

    fn configmaps(_: &RefIn<'_>) -> OwnerMapping {
        OwnerMapping::Mapped(vec![(String::new(), "configmaps".into(), true)])
    }

    async fn warn(body: &str, authorizer: &Fake, budget: Duration) -> Option<String> {
        let r = super::super::review::parse(body.as_bytes()).unwrap();
        judge(&r.request, &configmaps, authorizer, Instant::now() + budget).await
    }

    #[tokio::test]
    async fn a_blocking_reference_without_finalizers_update_is_warned_about() {
        let a = fake(vec![], Duration::ZERO);
        let w = warn(&review("CREATE", true, false), &a, Duration::from_secs(1))
            .await
            .expect("a warning");
        assert!(
            w.starts_with("where OwnerReferencesPermissionEnforcement is enabled"),
            "{w}"
        );
        assert!(
            w.contains("user \"alice\" may not update configmaps/finalizers \"owner\""),
            "{w}"
        );
        assert_eq!(*a.asked.lock().unwrap(), ["alice update"]);
        // Granted: nothing said.
        let a = fake(vec![("update", "finalizers")], Duration::ZERO);
        assert_eq!(
            warn(&review("CREATE", true, false), &a, Duration::from_secs(1)).await,
            None
        );
    }

    #[tokio::test]
    async fn an_update_that_adds_a_reference_needs_delete_and_a_create_without_blocking_nothing() {
        let a = fake(vec![("update", "finalizers")], Duration::ZERO);
        let w = warn(&review("UPDATE", true, true), &a, Duration::from_secs(1)).await;
        let w = w.unwrap();
        assert!(w.contains("may not delete configmaps \"child\""), "{w}");
        assert!(
            w.contains("changing an existing object's ownerReferences"),
            "{w}"
        );
        let a = fake(vec![], Duration::ZERO);
        assert_eq!(
            warn(&review("CREATE", false, false), &a, Duration::from_secs(1)).await,
            None
        );
        assert!(a.asked.lock().unwrap().is_empty(), "nothing to ask");
    }

    #[tokio::test]
    async fn an_answer_past_the_deadline_says_nothing() {
        let a = fake(vec![], Duration::from_millis(200));
        assert_eq!(
            warn(
                &review("CREATE", true, false),
                &a,
                Duration::from_millis(20)
            )
            .await,
            None
        );
    }
}
