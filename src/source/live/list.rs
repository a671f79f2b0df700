//! Paginated metadata-only lists of one resource.
//!
//! Each page is requested as a `PartialObjectMetadataList`, in protobuf by default
//! ([`WireFormat::Protobuf`]: the `Accept` header client-go's metadata client sends, protobuf
//! first, then the same list in JSON, then any JSON), and decoded straight into borrowing
//! [`MetaIn`]s — from protobuf by [`super::protobuf`], from JSON by serde — which are interned
//! into the snapshot before the next page is fetched: no `ObjectMeta` is ever built and at most
//! one page per resource is held in memory. The decoder follows the answer's `Content-Type`, so a
//! server (or an aggregated API) that cannot produce protobuf and answers in JSON is read all
//! the same.
//!
//! Outcomes: every page read → `Complete` (or `Partial` for a namespace-scoped run);
//! 403 → `Forbidden`; anything else that survives the retries in [`super::request`] →
//! `Failed`. A `410 Expired` continue token restarts the list from the beginning (objects
//! already added are deduplicated by UID); a `406 Not Acceptable` (an aggregated API server
//! that can produce none of the media types asked for) switches that resource to full JSON
//! lists of which only `metadata` is decoded.

use super::WireFormat;
use super::protobuf;
use super::request::{self, Answer, Failure, Stats};
use crate::model::{Added, MetaIn, ResourceId};
use crate::snapshot::{ListOutcome, SnapshotBuilder};
use kube::api::ListParams;
use serde::Deserialize;
use std::borrow::{Borrow, Cow};
use std::sync::Mutex;
use std::time::Duration;

/// How often one resource's list is restarted after `410 Expired` before giving up.
const MAX_RESTARTS: u32 = 3;

/// Growing pages ([`ListContext::max_page_size`]): a full page answered within this time is
/// followed by one twice as big; one that took more than twice as long by one half as big.
///
/// Why time: the API server reads every object of a page whole from etcd and decodes it before
/// cutting it down to metadata, so its work and memory per request follow the objects' full
/// size, which a metadata-only client never sees; the time a page takes does. Small objects
/// (most ConfigMaps, Pods, ReplicaSets) get big pages — few round trips, and far less etcd
/// work, since etcd counts the rest of the range on every page — while big ones (Helm release
/// Secrets) stay at kubectl's page size.
pub(crate) const PAGE_TIME_TARGET: Duration = Duration::from_millis(500);

/// The `limit` of the next page of one resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PageSizer {
    /// The next page's `limit`.
    pub(crate) limit: u32,
    first: u32,
    max: u32,
}

impl PageSizer {
    /// Starts at `first`; grows up to `max` (`None`: every page asks for `first`).
    pub(crate) fn new(first: u32, max: Option<u32>) -> Self {
        let first = first.max(1);
        PageSizer {
            limit: first,
            first,
            max: max.unwrap_or(first).max(first),
        }
    }

    /// Adjusts the limit after a page that took `elapsed` and was `full` (more pages follow).
    pub(crate) fn after_page(&mut self, elapsed: Duration, full: bool) {
        if !full {
            return;
        }
        if elapsed <= PAGE_TIME_TARGET {
            self.limit = self.limit.saturating_mul(2).min(self.max);
        } else if elapsed > PAGE_TIME_TARGET * 2 {
            self.limit = (self.limit / 2).max(self.first);
        }
    }
}

/// `Accept` for [`WireFormat::Protobuf`]: protobuf, else JSON, of a `PartialObjectMetadataList`,
/// else any JSON (a full list, of which only `metadata` is read).
pub(crate) const ACCEPT_PROTOBUF: &str = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,\
application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
/// `Accept` for [`WireFormat::Json`].
pub(crate) const ACCEPT_JSON: &str =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
/// `Accept` after a 406: the full list, in JSON.
const ACCEPT_FULL: &str = "application/json";

/// A JSON list page, borrowing from the response body.
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
    /// API group (`""` for core).
    pub group: String,
    /// Version.
    pub version: String,
    /// Plural resource name.
    pub plural: String,
    /// Namespaced resource.
    pub namespaced: bool,
}

impl Target {
    /// The collection URL, restricted to `namespace` for namespaced resources.
    pub fn url(&self, namespace: Option<&str>) -> String {
        let namespace = namespace.filter(|_| self.namespaced);
        super::path::collection(&self.group, &self.version, namespace, &self.plural)
    }
}

/// Per-page progress reported to the caller.
pub(crate) trait PageSink: Sync {
    /// A page was read: `items` objects, of which `added` were new; `protobuf` when the
    /// answer was Kubernetes protobuf on the wire (its Content-Type said so and its body
    /// began with the protobuf magic).
    fn page(&self, items: usize, added: usize, protobuf: bool);
}

/// Settings shared by every list of a run.
pub(crate) struct ListContext<'a> {
    pub client: &'a kube::Client,
    pub timeout: Option<Duration>,
    pub stats: &'a Stats,
    /// The first page's `limit` (every page's, without `max_page_size`).
    pub page_size: u32,
    /// Pages grow up to this `limit` while they are fast ([`PAGE_TIME_TARGET`]).
    pub max_page_size: Option<u32>,
    pub namespace: Option<&'a str>,
    pub wire: WireFormat,
    pub builder: &'a Mutex<SnapshotBuilder>,
}

/// One page, decoded: its item count, how many were new, the continue token.
struct PageRead {
    items: usize,
    added: usize,
    next: Option<String>,
    /// The answer's Content-Type named protobuf and its body began with the magic.
    protobuf: bool,
}

/// Decodes a page (protobuf or JSON, by Content-Type) and adds its objects to the snapshot.
fn read_page(cx: &ListContext<'_>, target: &Target, answer: Answer) -> Result<PageRead, String> {
    let said_protobuf = answer
        .content_type
        .as_deref()
        .is_some_and(protobuf::is_protobuf);
    let magic = protobuf::has_magic(&answer.body);
    if said_protobuf || magic {
        let page = protobuf::decode_page(answer.body)?;
        // Converted outside the builder's lock; only interning runs under it.
        let metas: Vec<MetaIn<'_>> = page.metas().collect();
        Ok(PageRead {
            items: metas.len(),
            added: add_objects(cx, target, &metas),
            next: page.continue_token(),
            protobuf: said_protobuf && magic,
        })
    } else {
        let page: Page = serde_json::from_slice(&answer.body).map_err(|e| e.to_string())?;
        let items = page.items.unwrap_or_default();
        let metas: Vec<&MetaIn<'_>> = items.iter().map(|i| &i.metadata).collect();
        Ok(PageRead {
            items: metas.len(),
            added: add_objects(cx, target, &metas),
            next: page
                .metadata
                .continue_
                .filter(|t| !t.is_empty())
                .map(Cow::into_owned),
            protobuf: false,
        })
    }
}

/// Adds a page's objects; returns how many were new.
fn add_objects<'a, M: Borrow<MetaIn<'a>>>(
    cx: &ListContext<'_>,
    target: &Target,
    metas: &[M],
) -> usize {
    let mut added = 0;
    let mut b = cx.builder.lock().unwrap_or_else(|e| e.into_inner());
    for meta in metas {
        let meta = meta.borrow();
        match b.add_object(target.id, meta) {
            Added::New(_) => added += 1,
            Added::Duplicate(_) => {}
            Added::NoUid => b.skip(
                format!("{} {}/{}", target.label, meta.namespace, meta.name),
                "object without metadata.uid",
            ),
        }
    }
    added
}

/// Lists one resource completely and returns its outcome.
pub(crate) async fn list_resource(
    cx: &ListContext<'_>,
    target: &Target,
    sink: &dyn PageSink,
) -> ListOutcome {
    let url = target.url(cx.namespace);
    let mut token: Option<String> = None;
    let mut full_list = false;
    let mut restarts = 0;
    let mut sizer = PageSizer::new(cx.page_size, cx.max_page_size);
    loop {
        let mut lp = ListParams::default().limit(sizer.limit);
        if let Some(t) = &token {
            lp = lp.continue_token(t);
        }
        let accept = match (full_list, cx.wire) {
            (true, _) => ACCEPT_FULL,
            (false, WireFormat::Protobuf) => ACCEPT_PROTOBUF,
            (false, WireFormat::Json) => ACCEPT_JSON,
        };
        let build = || {
            let mut req = kube::api::Request::new(url.as_str())
                .list(&lp)
                .map_err(|e| e.to_string())?;
            req.headers_mut()
                .insert(http::header::ACCEPT, http::HeaderValue::from_static(accept));
            Ok(req)
        };
        let started = std::time::Instant::now();
        let answer = match request::get(cx.client, cx.timeout, cx.stats, &build).await {
            Ok(answer) => answer,
            Err(Failure::Status { code: 410, .. })
                if token.is_some() && restarts < MAX_RESTARTS =>
            {
                // The continue token expired (etcd compacted past it): start over with a fresh,
                // consistent list. Objects already added are deduplicated by UID.
                restarts += 1;
                token = None;
                continue;
            }
            Err(Failure::Status { code: 406, .. }) if !full_list => {
                full_list = true;
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
        let page = match read_page(cx, target, answer) {
            Ok(page) => page,
            Err(e) => {
                return ListOutcome::Failed {
                    message: format!("cannot decode a list page of {}: {e}", target.label),
                };
            }
        };
        sink.page(page.items, page.added, page.protobuf);
        sizer.after_page(started.elapsed(), page.next.is_some());
        match page.next {
            Some(t) => token = Some(t),
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
            group: "apps".into(),
            version: "v1".into(),
            plural: "deployments".into(),
            namespaced: true,
        };
        assert_eq!(t.url(None), "/apis/apps/v1/deployments");
        assert_eq!(t.url(Some("ns")), "/apis/apps/v1/namespaces/ns/deployments");
        let c = Target {
            namespaced: false,
            plural: "namespaces".into(),
            group: String::new(),
            ..t
        };
        assert_eq!(c.url(Some("ns")), "/api/v1/namespaces");
    }

    use crate::snapshot::{Provenance, Resource};
    use crate::source::live::testserver::{Reply, Script, Server};

    const PB: &str = "application/vnd.kubernetes.protobuf";
    const JSON: &str = "application/json";
    const SECRETS_PB: &[u8] = include_bytes!("testdata/secrets-page1.pb");
    const SECRETS_JSON: &[u8] = include_bytes!("testdata/secrets-page1.json");
    const EMPTY_PB: &[u8] = include_bytes!("testdata/empty.pb");
    const EMPTY_JSON: &[u8] = include_bytes!("testdata/empty.json");

    struct NoSink;
    impl PageSink for NoSink {
        fn page(&self, _items: usize, _added: usize, _protobuf: bool) {}
    }

    /// Counts pages, and the pages read as protobuf on the wire.
    #[derive(Default)]
    struct Pages {
        all: std::sync::atomic::AtomicUsize,
        protobuf: std::sync::atomic::AtomicUsize,
    }
    impl PageSink for Pages {
        fn page(&self, _items: usize, _added: usize, protobuf: bool) {
            use std::sync::atomic::Ordering::Relaxed;
            self.all.fetch_add(1, Relaxed);
            self.protobuf.fetch_add(usize::from(protobuf), Relaxed);
        }
    }
    impl Pages {
        /// (pages, protobuf pages).
        fn counts(&self) -> (usize, usize) {
            use std::sync::atomic::Ordering::Relaxed;
            (self.all.load(Relaxed), self.protobuf.load(Relaxed))
        }
    }

    /// Lists `secrets` (in `namespace`) from `server`; returns the outcome and the object count.
    async fn list_secrets(
        server: &Server,
        wire: WireFormat,
        namespace: Option<&str>,
    ) -> (ListOutcome, usize) {
        list_secrets_into(server, wire, namespace, &NoSink).await
    }

    /// `list_secrets`, reporting pages to `sink`.
    async fn list_secrets_into(
        server: &Server,
        wire: WireFormat,
        namespace: Option<&str>,
        sink: &dyn PageSink,
    ) -> (ListOutcome, usize) {
        let mut b = SnapshotBuilder::new(Provenance::default());
        let id = b.add_resource(Resource {
            group: String::new(),
            version: "v1".into(),
            kind: "Secret".into(),
            plural: "secrets".into(),
            namespaced: true,
            verbs: vec![],
            preferred_version: "v1".into(),
            list: ListOutcome::NotListed,
        });
        let builder = Mutex::new(b);
        let client = server.client();
        let stats = Stats::default();
        let cx = ListContext {
            client: &client,
            timeout: Some(Duration::from_secs(10)),
            stats: &stats,
            page_size: 2,
            max_page_size: None,
            namespace,
            wire,
            builder: &builder,
        };
        let target = Target {
            id,
            label: "v1/secrets".into(),
            group: String::new(),
            version: "v1".into(),
            plural: "secrets".into(),
            namespaced: true,
        };
        let outcome = list_resource(&cx, &target, sink).await;
        let objects = builder.into_inner().unwrap().finish().store.len();
        (outcome, objects)
    }

    #[tokio::test]
    async fn protobuf_is_asked_for_and_pages_are_followed() {
        let server = Server::start(Script::Answer(Box::new(|_, n| {
            Reply::ok(PB, if n == 0 { SECRETS_PB } else { EMPTY_PB })
        })))
        .await;
        let pages = Pages::default();
        let (outcome, objects) =
            list_secrets_into(&server, WireFormat::Protobuf, None, &pages).await;
        assert_eq!((outcome, objects), (ListOutcome::Complete, 2));
        // Both pages were protobuf on the wire, and counted so.
        assert_eq!(pages.counts(), (2, 2));
        let seen = server.requests();
        assert_eq!(seen.len(), 2);
        // What client-go's metadata client asks for (k8s.io/client-go/metadata:
        // protobuf, then JSON, of a PartialObjectMetadataList), then any JSON.
        for r in &seen {
            let ranges: Vec<&str> = r.accept.split(',').map(str::trim).collect();
            assert_eq!(
                ranges,
                [
                    "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
                    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
                    "application/json",
                ],
                "{seen:?}"
            );
        }
        assert_eq!(seen[0].line, "GET /api/v1/secrets?&limit=2");
        assert!(
            seen[1].line.contains("&continue=eyJ2Ijoi"),
            "{}",
            seen[1].line
        );
    }

    #[tokio::test]
    async fn json_answers_to_a_protobuf_request_are_read() {
        // A server (or an aggregated API) that cannot produce protobuf picks the JSON choice.
        let server = Server::start(Script::Answer(Box::new(|_, n| {
            Reply::ok(JSON, if n == 0 { SECRETS_JSON } else { EMPTY_JSON })
        })))
        .await;
        let pages = Pages::default();
        let (outcome, objects) =
            list_secrets_into(&server, WireFormat::Protobuf, None, &pages).await;
        assert_eq!((outcome, objects), (ListOutcome::Complete, 2));
        assert_eq!(server.requests().len(), 2);
        // Read, and not counted as protobuf: the fallback is visible.
        assert_eq!(pages.counts(), (2, 0));
    }

    #[tokio::test]
    async fn not_acceptable_falls_back_to_full_json_lists() {
        let full = br#"{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"9"},
            "items":[{"metadata":{"name":"s","namespace":"n","uid":"u-1"},"data":{"k":"djE="},
            "type":"Opaque"}]}"#;
        let server = Server::start(Script::Answer(Box::new(|req, _| {
            if req.accept.contains("as=PartialObjectMetadataList") {
                Reply::status(406, "NotAcceptable")
            } else {
                Reply::ok(JSON, full)
            }
        })))
        .await;
        let (outcome, objects) = list_secrets(&server, WireFormat::Protobuf, None).await;
        assert_eq!((outcome, objects), (ListOutcome::Complete, 1));
        let accepts: Vec<String> = server.requests().into_iter().map(|r| r.accept).collect();
        assert_eq!(accepts, [ACCEPT_PROTOBUF, ACCEPT_FULL]);
    }

    #[tokio::test]
    async fn json_wire_format_asks_for_json_only() {
        let server = Server::start(Script::Answer(Box::new(|_, n| {
            Reply::ok(JSON, if n == 0 { SECRETS_JSON } else { EMPTY_JSON })
        })))
        .await;
        let (outcome, objects) = list_secrets(&server, WireFormat::Json, Some("fx")).await;
        assert_eq!(
            (outcome, objects),
            (
                ListOutcome::Partial {
                    namespaces: vec!["fx".into()]
                },
                2
            )
        );
        let accepts: Vec<String> = server.requests().into_iter().map(|r| r.accept).collect();
        assert!(!accepts.is_empty());
        for a in accepts {
            assert_eq!(
                a,
                "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
            );
        }
    }

    #[tokio::test]
    async fn undecodable_pages_fail_the_list() {
        let server = Server::start(Script::Answer(Box::new(|_, _| {
            Reply::ok(PB, b"k8s\0\x0a\xff\xff")
        })))
        .await;
        let (outcome, _) = list_secrets(&server, WireFormat::Protobuf, None).await;
        match outcome {
            ListOutcome::Failed { message } => assert!(
                message.starts_with("cannot decode a list page of v1/secrets: bad protobuf"),
                "{message}"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn pages_grow_while_fast_and_shrink_when_slow() {
        let fast = PAGE_TIME_TARGET / 10;
        let slow = PAGE_TIME_TARGET * 3;
        let mut s = PageSizer::new(500, Some(10_000));
        let mut limits = vec![s.limit];
        for _ in 0..6 {
            s.after_page(fast, true);
            limits.push(s.limit);
        }
        assert_eq!(limits, [500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
        s.after_page(PAGE_TIME_TARGET * 2, true);
        assert_eq!(
            s.limit, 10_000,
            "between the target and twice it: unchanged"
        );
        s.after_page(slow, true);
        assert_eq!(s.limit, 5000);
        for _ in 0..5 {
            s.after_page(slow, true);
        }
        assert_eq!(s.limit, 500, "never below the first page");
        s.after_page(fast, false);
        assert_eq!(s.limit, 500, "the last page says nothing");
        // Without a maximum (an explicit --chunk-size): fixed.
        let mut fixed = PageSizer::new(250, None);
        fixed.after_page(fast, true);
        assert_eq!(fixed.limit, 250);
        assert_eq!(PageSizer::new(0, Some(0)).limit, 1);
    }

    #[tokio::test]
    async fn page_limits_grow_on_a_fast_server() {
        let server = Server::start(Script::Answer(Box::new(|_, n| {
            Reply::ok(PB, if n < 4 { SECRETS_PB } else { EMPTY_PB })
        })))
        .await;
        let mut b = SnapshotBuilder::new(Provenance::default());
        let id = b.add_resource(Resource {
            group: String::new(),
            version: "v1".into(),
            kind: "Secret".into(),
            plural: "secrets".into(),
            namespaced: true,
            verbs: vec![],
            preferred_version: "v1".into(),
            list: ListOutcome::NotListed,
        });
        let builder = Mutex::new(b);
        let client = server.client();
        let stats = Stats::default();
        let cx = ListContext {
            client: &client,
            timeout: Some(Duration::from_secs(10)),
            stats: &stats,
            page_size: 100,
            max_page_size: Some(500),
            namespace: None,
            wire: WireFormat::Protobuf,
            builder: &builder,
        };
        let target = Target {
            id,
            label: "v1/secrets".into(),
            group: String::new(),
            version: "v1".into(),
            plural: "secrets".into(),
            namespaced: true,
        };
        assert_eq!(
            list_resource(&cx, &target, &NoSink).await,
            ListOutcome::Complete
        );
        let limits: Vec<String> = server
            .requests()
            .iter()
            .map(|r| {
                let q = r.line.split_once('?').unwrap().1;
                q.split('&')
                    .find_map(|kv| kv.strip_prefix("limit="))
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(limits, ["100", "200", "400", "500", "500"]);
    }

    #[tokio::test]
    async fn hostile_namespaces_stay_one_path_segment() {
        let server = Server::start(Script::Answer(Box::new(|_, _| Reply::ok(PB, EMPTY_PB)))).await;
        let (outcome, _) =
            list_secrets(&server, WireFormat::Protobuf, Some("a/../b?watch=1#x")).await;
        assert!(matches!(outcome, ListOutcome::Partial { .. }));
        assert_eq!(
            server.requests()[0].line,
            "GET /api/v1/namespaces/a%2F..%2Fb%3Fwatch%3D1%23x/secrets?&limit=2"
        );
    }
}
