//! Paginated metadata-only lists of one resource.
//!
//! Each page is requested with `Accept: application/json;as=PartialObjectMetadataList;
//! g=meta.k8s.io;v=v1` (kube's `Request::list_metadata`) and decoded straight into borrowing
//! [`MetaIn`]s, which are interned into the snapshot before the next page is fetched: no
//! `ObjectMeta` is ever built and at most one page per resource is held in memory.
//!
//! Outcomes: every page read → `Complete` (or `Partial` for a namespace-scoped run);
//! 403 → `Forbidden`; anything else that survives the retries in [`super::request`] →
//! `Failed`. A `410 Expired` continue token restarts the list from the beginning (objects
//! already added are deduplicated by UID); a `406 Not Acceptable` (an aggregated API server
//! without PartialObjectMetadata support) switches that resource to full lists of which only
//! `metadata` is decoded.

use super::request::{self, Failure, Stats};
use crate::model::{Added, MetaIn, ResourceId};
use crate::snapshot::{ListOutcome, SnapshotBuilder};
use kube::api::ListParams;
use serde::Deserialize;
use std::borrow::Cow;
use std::sync::Mutex;
use std::time::Duration;

/// How often one resource's list is restarted after `410 Expired` before giving up.
const MAX_RESTARTS: u32 = 3;

/// A list page, borrowing from the response body.
#[derive(Deserialize)]
pub(crate) struct Page<'a> {
    #[serde(borrow, default)]
    pub metadata: ListMetaIn<'a>,
    #[serde(borrow, default)]
    pub items: Option<Vec<Item<'a>>>,
}

/// `ListMeta`, the part we read.
#[derive(Deserialize, Default)]
pub(crate) struct ListMetaIn<'a> {
    #[serde(borrow, default, rename = "continue")]
    pub continue_: Option<Cow<'a, str>>,
}

/// One item: only `metadata` is decoded, everything else (a full object's spec and status on
/// the 406 fallback) is skipped.
#[derive(Deserialize)]
pub(crate) struct Item<'a> {
    #[serde(borrow, default)]
    pub metadata: MetaIn<'a>,
}

/// What to list.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// The resource-table row.
    pub id: ResourceId,
    /// `group/version/plural` for messages.
    pub label: String,
    /// `/api/v1` or `/apis/<group>/<version>`.
    pub base: String,
    /// Plural resource name.
    pub plural: String,
    /// Namespaced resource.
    pub namespaced: bool,
}

impl Target {
    /// The collection URL, restricted to `namespace` for namespaced resources.
    pub fn url(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) if self.namespaced => format!("{}/namespaces/{ns}/{}", self.base, self.plural),
            _ => format!("{}/{}", self.base, self.plural),
        }
    }
}

/// Per-page progress reported to the caller.
pub(crate) trait PageSink: Sync {
    /// A page was read: `items` objects, of which `added` were new.
    fn page(&self, items: usize, added: usize);
}

/// Settings shared by every list of a run.
pub(crate) struct ListContext<'a> {
    pub client: &'a kube::Client,
    pub timeout: Option<Duration>,
    pub stats: &'a Stats,
    pub page_size: u32,
    pub namespace: Option<&'a str>,
    pub builder: &'a Mutex<SnapshotBuilder>,
}

/// Lists one resource completely and returns its outcome.
pub(crate) async fn list_resource(
    cx: &ListContext<'_>,
    target: &Target,
    sink: &dyn PageSink,
) -> ListOutcome {
    let url = target.url(cx.namespace);
    let mut token: Option<String> = None;
    let mut metadata_only = true;
    let mut restarts = 0;
    loop {
        let mut lp = ListParams::default().limit(cx.page_size.max(1));
        if let Some(t) = &token {
            lp = lp.continue_token(t);
        }
        let build = || {
            let r = kube::api::Request::new(url.as_str());
            let req = if metadata_only {
                r.list_metadata(&lp)
            } else {
                r.list(&lp)
            };
            req.map_err(|e| e.to_string())
        };
        let body = match request::get(cx.client, cx.timeout, cx.stats, &build).await {
            Ok(body) => body,
            Err(Failure::Status { code: 410, .. })
                if token.is_some() && restarts < MAX_RESTARTS =>
            {
                // The continue token expired (etcd compacted past it): start over with a fresh,
                // consistent list. Objects already added are deduplicated by UID.
                restarts += 1;
                token = None;
                continue;
            }
            Err(Failure::Status { code: 406, .. }) if metadata_only => {
                metadata_only = false;
                continue;
            }
            Err(Failure::Status {
                code: 403, message, ..
            }) => {
                return ListOutcome::Forbidden {
                    message: request::one_line(&message),
                };
            }
            Err(f) => {
                let mut message = f.describe();
                if f.code() == Some(410) {
                    message.push_str(&format!(" (after {restarts} restarts)"));
                }
                return ListOutcome::Failed { message };
            }
        };
        let page: Page = match serde_json::from_slice(&body) {
            Ok(p) => p,
            Err(e) => {
                return ListOutcome::Failed {
                    message: format!("cannot decode a list page of {}: {e}", target.label),
                };
            }
        };
        let items = page.items.unwrap_or_default();
        let mut added = 0;
        {
            let mut b = cx.builder.lock().unwrap_or_else(|e| e.into_inner());
            for item in &items {
                match b.add_object(target.id, &item.metadata) {
                    Added::New(_) => added += 1,
                    Added::Duplicate(_) => {}
                    Added::NoUid => b.skip(
                        format!(
                            "{} {}/{}",
                            target.label, item.metadata.namespace, item.metadata.name
                        ),
                        "object without metadata.uid",
                    ),
                }
            }
        }
        sink.page(items.len(), added);
        match page.metadata.continue_.filter(|t| !t.is_empty()) {
            Some(t) => token = Some(t.into_owned()),
            None => break,
        }
    }
    match cx.namespace {
        Some(ns) if target.namespaced => ListOutcome::Partial {
            namespaces: vec![ns.to_owned()],
        },
        _ => ListOutcome::Complete,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_pages_decode() {
        let body = br#"{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1",
            "metadata":{"resourceVersion":"9","continue":"tok"},
            "items":[{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",
              "metadata":{"name":"a","namespace":"n","uid":"u1","managedFields":[{"manager":"x"}]}}]}"#;
        let page: Page = serde_json::from_slice(body).unwrap();
        assert_eq!(page.metadata.continue_.as_deref(), Some("tok"));
        let items = page.items.unwrap();
        assert_eq!(items[0].metadata.uid, "u1");
        assert_eq!(items[0].metadata.namespace, "n");
    }

    #[test]
    fn full_pages_and_null_items_decode() {
        let body = br#"{"kind":"ConfigMapList","metadata":{"continue":""},
            "items":[{"metadata":{"name":"a","uid":"u"},"data":{"k":"v"},"spec":{"x":[1,2]}}]}"#;
        let page: Page = serde_json::from_slice(body).unwrap();
        assert_eq!(page.items.unwrap().len(), 1);
        let page: Page = serde_json::from_slice(br#"{"metadata":{},"items":null}"#).unwrap();
        assert!(page.items.is_none() && page.metadata.continue_.is_none());
    }

    #[test]
    fn urls_are_scoped_for_namespaced_resources_only() {
        let t = Target {
            id: ResourceId(0),
            label: "apps/v1/deployments".into(),
            base: "/apis/apps/v1".into(),
            plural: "deployments".into(),
            namespaced: true,
        };
        assert_eq!(t.url(None), "/apis/apps/v1/deployments");
        assert_eq!(t.url(Some("ns")), "/apis/apps/v1/namespaces/ns/deployments");
        let c = Target {
            namespaced: false,
            plural: "namespaces".into(),
            base: "/api/v1".into(),
            ..t
        };
        assert_eq!(c.url(Some("ns")), "/api/v1/namespaces");
    }
}
