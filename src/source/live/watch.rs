//! List, then watch, one resource the garbage collector monitors, metadata only, for `kubectl
//! gc watch` — what the GC's informers (reflectors) do for its graph builder (gc-model §0.1,
//! §5.1).
//!
//! One task per resource ([`watch_resource`]) loops for ever:
//!
//! 1. **List** every object (`PartialObjectMetadataList` pages, `limit` per page), and note the
//!    list's `resourceVersion`. A continue token that expired (410) restarts the list. The
//!    whole list is sent as one [`Update::Listed`]: the first one is the resource's initial
//!    list; a later one (after a 410 on the watch) replaces what the caller held for the
//!    resource, which the caller reconciles (synthesises the adds, updates and deletes).
//! 2. **Watch** from that resourceVersion with bookmarks (`allowWatchBookmarks=true`):
//!    `ADDED`/`MODIFIED` → [`Update::Applied`], `DELETED` → [`Update::Deleted`], `BOOKMARK` →
//!    only the resourceVersion moves on. When the server ends the watch (`timeoutSeconds`) it
//!    is reopened from the last resourceVersion. `410 Gone` (as a status or an `ERROR` event:
//!    the resourceVersion was compacted away) goes back to 1.
//! 3. **Failures.** 429 and 5xx answers, timeouts and dropped connections are retried with an
//!    exponential backoff (429 honours `Retry-After`); 403 is sent once as
//!    [`Update::Unreadable`] with `forbidden: true` (the caller makes that resource's verdicts
//!    unknown), and retried every minute in case permissions change. Other failures are sent
//!    once too, and retried with backoff. [`Update::Readable`] says when it works again.
//!    A watch that fails, goes silent or is too old is [`Update::Interrupted`] until it is
//!    open again ([`Update::Resumed`]) or the resource is listed again.
//!
//! Objects are decoded straight from the response bytes into borrowing [`MetaIn`]s and handed
//! on as owned [`OwnedMeta`]: no `ObjectMeta` is built (no labels map, no managedFields).

use super::request::{self, Failure, Stats, TransportKind};
use crate::model::{MetaIn, OwnerRefIn, meta::Labels};
use crate::snapshot::Resource;
use crate::util::Backoff;
use http_body_util::BodyExt;
use serde::Deserialize;
use std::borrow::Cow;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

mod listing;

use listing::list_all;

/// The resource table as the GC's discovery sees it now (gc-model §5.1, the same rules as
/// `kubectl gc snapshot`): every served group/version/resource, those the GC monitors with
/// [`crate::snapshot::ListOutcome::NotListed`], the others `Ignored` with the reason; and the group-versions
/// whose discovery document could not be read. `Err` only when `/api` or `/apis` cannot be.
pub async fn discover_resources(
    conn: &super::Connection,
    concurrency: usize,
) -> crate::error::Result<(Vec<Resource>, Vec<(String, String)>)> {
    let stats = Stats::default();
    let server = conn
        .server_version
        .as_deref()
        .and_then(crate::catalog::KubeVersion::parse);
    let d = super::discovery::discover(
        &conn.client,
        conn.request_timeout,
        concurrency.max(1),
        server,
        &stats,
    )
    .await
    .map_err(|f| super::discovery_error(conn, &f))?;
    Ok((d.rows, d.failures))
}

/// Object metadata as the watch hands it on (every string owned).
pub type OwnedMeta = MetaIn<'static>;

/// One resource to list and watch.
#[derive(Clone, Debug)]
pub struct WatchTarget {
    /// The caller's key for the resource (echoed in every [`Update`]).
    pub key: usize,
    /// `group/version/plural`, for messages.
    pub label: String,
    /// The collection's path (`/api/v1/pods`), every segment escaped by [`super::path`].
    collection: String,
}

impl WatchTarget {
    /// The target of a resource-table row.
    pub fn new(key: usize, group: &str, version: &str, plural: &str) -> WatchTarget {
        let label = if group.is_empty() {
            format!("{version}/{plural}")
        } else {
            format!("{group}/{version}/{plural}")
        };
        WatchTarget {
            key,
            label,
            collection: super::path::collection(group, version, None, plural),
        }
    }

    fn url(&self) -> String {
        self.collection.clone()
    }
}

/// What a resource's task reports.
#[derive(Debug)]
pub enum Update {
    /// A complete list: every object of the resource now (`relist`: not the first one; the
    /// caller reconciles what it held with it).
    Listed {
        /// [`WatchTarget::key`].
        key: usize,
        /// The objects.
        objects: Vec<OwnedMeta>,
        /// The list's resourceVersion (the watch starts there).
        resource_version: String,
        /// True for a list after the first (after `410 Gone`).
        relist: bool,
    },
    /// An object was added or modified.
    Applied {
        /// [`WatchTarget::key`].
        key: usize,
        /// Its metadata now.
        meta: OwnedMeta,
        /// When the event arrived.
        received: Instant,
    },
    /// An object was deleted.
    Deleted {
        /// [`WatchTarget::key`].
        key: usize,
        /// Its last metadata.
        meta: OwnedMeta,
        /// When the event arrived.
        received: Instant,
    },
    /// A bookmark (or any event) moved the resourceVersion on: the stream is alive.
    Progress {
        /// [`WatchTarget::key`].
        key: usize,
    },
    /// The resource cannot be read (sent once per outage).
    Unreadable {
        /// [`WatchTarget::key`].
        key: usize,
        /// 403.
        forbidden: bool,
        /// What the server or the transport said.
        message: String,
    },
    /// The resource can be read again after [`Update::Unreadable`].
    Readable {
        /// [`WatchTarget::key`].
        key: usize,
    },
    /// The watch was lost (its request failed, the stream went silent, or its resourceVersion
    /// is too old): events may be missing until [`Update::Resumed`] or the next
    /// [`Update::Listed`]. Sent once per loss.
    Interrupted {
        /// [`WatchTarget::key`].
        key: usize,
        /// What the transport or the server said.
        message: String,
    },
    /// The watch is open again from the last resourceVersion after [`Update::Interrupted`]:
    /// the server sends what was missed before anything newer.
    Resumed {
        /// [`WatchTarget::key`].
        key: usize,
    },
}

/// How to list and watch.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// Per-request timeout of lists (`None`: none).
    pub request_timeout: Option<Duration>,
    /// `limit` of the first list page.
    pub page_size: u32,
    /// Pages grow up to this `limit` while the server answers them quickly, as the snapshot's
    /// lists do (`None`: every page asks for `page_size`, as with `--chunk-size`).
    pub max_page_size: Option<u32>,
    /// The server ends each watch after about this long (randomised by up to a quarter so
    /// that the resources do not all reconnect at once); it is then reopened.
    pub watch_timeout: Duration,
    /// Lists run only while holding one of these (the initial lists of every resource start
    /// at once; this bounds how many read at the same time, like `--concurrency`).
    pub list_permits: Option<std::sync::Arc<tokio::sync::Semaphore>>,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            request_timeout: Some(super::DEFAULT_REQUEST_TIMEOUT),
            page_size: super::DEFAULT_PAGE_SIZE,
            max_page_size: Some(super::DEFAULT_MAX_PAGE_SIZE),
            watch_timeout: Duration::from_secs(240),
            list_permits: None,
        }
    }
}

/// One line of a watch response: `{"type": …, "object": …}`.
#[derive(Deserialize)]
struct EventIn<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    object: EventObjectIn<'a>,
}

/// The event's object: an object's metadata, or a `Status` for `ERROR` events.
#[derive(Deserialize, Default)]
struct EventObjectIn<'a> {
    #[serde(borrow, default)]
    metadata: MetaIn<'a>,
    #[serde(default)]
    code: Option<u16>,
    #[serde(borrow, default)]
    reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
}

fn owned(s: &str) -> Cow<'static, str> {
    Cow::Owned(s.to_owned())
}

/// A borrowed [`MetaIn`] as an owned one.
pub fn to_owned_meta(m: &MetaIn<'_>) -> OwnedMeta {
    MetaIn {
        namespace: owned(&m.namespace),
        name: owned(&m.name),
        uid: owned(&m.uid),
        resource_version: owned(&m.resource_version),
        creation_timestamp: owned(&m.creation_timestamp),
        deletion_timestamp: m.deletion_timestamp.as_deref().map(owned),
        finalizers: m.finalizers.iter().map(|f| owned(f)).collect(),
        // Labels are not part of the GC's view; `watch` does not filter by them.
        labels: Labels::default(),
        owner_references: m
            .owner_references
            .iter()
            .map(|r| OwnerRefIn {
                api_version: owned(&r.api_version),
                kind: owned(&r.kind),
                name: owned(&r.name),
                uid: owned(&r.uid),
                controller: r.controller,
                block_owner_deletion: r.block_owner_deletion,
            })
            .collect(),
        ignore: m.ignore.as_deref().map(owned),
    }
}

/// Why a watch ended.
#[derive(Debug)]
enum WatchEnd {
    /// The server closed it (timeout): reopen from the last resourceVersion.
    Closed,
    /// `410 Gone`: relist.
    Gone,
    /// The receiver is gone: stop.
    Stopped,
    /// Anything else: back off, then reopen (or relist when `relist`).
    Failed(Failure, Option<Duration>),
}

/// The backoff between failed attempts: 0.5 s doubling up to 32 s, with jitter.
const RETRY: Backoff = Backoff {
    base: Duration::from_millis(500),
    factor: 2,
    max_exponent: 6,
    jitter: 0.25,
};

/// How long to wait before trying a forbidden resource again.
const FORBIDDEN_RETRY: Duration = Duration::from_secs(60);

/// Lists, then watches, one resource until the receiver is dropped (or the task is aborted).
pub async fn watch_resource(
    client: kube::Client,
    target: WatchTarget,
    opts: WatchOptions,
    tx: mpsc::Sender<Update>,
) {
    let stats = Stats::default();
    let mut listed_once = false;
    // The outage being reported (`Some`: `Unreadable` was sent and not yet cleared).
    let mut outage: Option<bool> = None;
    let mut failures: u32 = 0;
    loop {
        // 1. List.
        let permit = match &opts.list_permits {
            Some(p) => p.clone().acquire_owned().await.ok(),
            None => None,
        };
        let listed = list_all(&client, &target, &opts, &stats).await;
        drop(permit);
        let (objects, rv) = match listed {
            Ok(listed) => listed,
            Err(f) => {
                let forbidden = f.code() == Some(403);
                if outage != Some(forbidden) {
                    outage = Some(forbidden);
                    let message = f.describe();
                    if tx
                        .send(Update::Unreadable {
                            key: target.key,
                            forbidden,
                            message,
                        })
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
                let wait = if forbidden {
                    FORBIDDEN_RETRY
                } else {
                    failures += 1;
                    RETRY.delay(failures - 1)
                };
                tokio::time::sleep(wait).await;
                continue;
            }
        };
        failures = 0;
        if outage.take().is_some() && tx.send(Update::Readable { key: target.key }).await.is_err() {
            return;
        }
        let relist = std::mem::replace(&mut listed_once, true);
        if tx
            .send(Update::Listed {
                key: target.key,
                objects,
                resource_version: rv.clone(),
                relist,
            })
            .await
            .is_err()
        {
            return;
        }
        // 2. Watch from there, reopening on timeouts and transient failures.
        let mut rv = rv;
        let mut watch_failures: u32 = 0;
        let mut lost = false;
        loop {
            let end = watch_once(&client, &target, &opts, &mut rv, &tx, &mut lost).await;
            if let Some(message) = lost_watch(&end)
                && !std::mem::replace(&mut lost, true)
                && tx
                    .send(Update::Interrupted {
                        key: target.key,
                        message,
                    })
                    .await
                    .is_err()
            {
                return;
            }
            match end {
                WatchEnd::Closed => watch_failures = 0,
                WatchEnd::Stopped => return,
                WatchEnd::Gone => break,
                WatchEnd::Failed(f, retry_after) => {
                    if f.code() == Some(403) {
                        // Permissions changed under us: say so, then start over with a list.
                        if outage != Some(true) {
                            outage = Some(true);
                            if tx
                                .send(Update::Unreadable {
                                    key: target.key,
                                    forbidden: true,
                                    message: f.describe(),
                                })
                                .await
                                .is_err()
                            {
                                return;
                            }
                        }
                        tokio::time::sleep(FORBIDDEN_RETRY).await;
                        break;
                    }
                    watch_failures += 1;
                    let wait = retry_after
                        .unwrap_or_else(|| RETRY.delay(watch_failures - 1))
                        .min(Duration::from_secs(60));
                    tokio::time::sleep(wait).await;
                    if watch_failures > 8 {
                        // Something is persistently wrong with this watch: a fresh list.
                        break;
                    }
                }
            }
        }
    }
}

/// What a watch that ended this way lost (`None`: nothing; the server closed it on time, or
/// the receiver is gone).
fn lost_watch(end: &WatchEnd) -> Option<String> {
    match end {
        WatchEnd::Closed | WatchEnd::Stopped => None,
        WatchEnd::Gone => Some("the watch's resourceVersion is too old (410); relisting".into()),
        WatchEnd::Failed(f, _) => Some(f.describe()),
    }
}

/// The watch URL: from `rv`, with bookmarks, ended by the server after `timeout`.
fn watch_url(target: &WatchTarget, rv: &str, timeout: Duration) -> String {
    let q = super::path::query(&[
        ("allowWatchBookmarks", "true"),
        ("resourceVersion", rv),
        ("timeoutSeconds", &timeout.as_secs().max(1).to_string()),
        ("watch", "1"),
    ]);
    format!("{}?{q}", target.url())
}

/// A watch's timeout: the configured one minus up to a quarter, varied per resource and call.
fn jittered(base: Duration, key: usize) -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0) as u64;
    let spread = base.as_secs() / 4;
    if spread == 0 {
        return base;
    }
    base - Duration::from_secs((nanos ^ (key as u64).wrapping_mul(0x9E37_79B9)) % spread)
}

/// One watch request, read to its end. `lost`: an earlier watch was lost; once this one is
/// open, [`Update::Resumed`] says so (and `lost` is cleared).
async fn watch_once(
    client: &kube::Client,
    target: &WatchTarget,
    opts: &WatchOptions,
    rv: &mut String,
    tx: &mpsc::Sender<Update>,
    lost: &mut bool,
) -> WatchEnd {
    let timeout = jittered(opts.watch_timeout, target.key);
    let url = watch_url(target, rv, timeout);
    let req = match http::Request::get(url.as_str())
        .header(
            http::header::ACCEPT,
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
        )
        .body(kube::client::Body::empty())
    {
        Ok(r) => r,
        Err(e) => {
            return WatchEnd::Failed(
                Failure::Transport {
                    kind: TransportKind::Other,
                    message: e.to_string(),
                },
                None,
            );
        }
    };
    // The response head must come within the request timeout; the body then streams for up
    // to `timeout`, and a connection silent for longer than that (plus a margin: the server
    // sends bookmarks) is taken for dead.
    let head_timeout = opts.request_timeout.unwrap_or(Duration::from_secs(60));
    let response = match tokio::time::timeout(head_timeout, client.send(req)).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return WatchEnd::Failed(request::transport_failure(&e), None),
        Err(_) => {
            return WatchEnd::Failed(
                Failure::Transport {
                    kind: TransportKind::Timeout,
                    message: format!("no answer to the watch of {} in time", target.label),
                },
                None,
            );
        }
    };
    let status = response.status();
    let retry_after = response
        .headers()
        .get(http::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(request::parse_retry_after);
    let mut body = response.into_body();
    if !status.is_success() {
        let bytes = body.collect_bytes().await.unwrap_or_default();
        let f = request::status_failure(status.as_u16(), &bytes);
        if f.code() == Some(410) {
            return WatchEnd::Gone;
        }
        return WatchEnd::Failed(f, retry_after);
    }
    if std::mem::take(lost) && tx.send(Update::Resumed { key: target.key }).await.is_err() {
        return WatchEnd::Stopped;
    }
    let idle = timeout + Duration::from_secs(30);
    let mut buf: Vec<u8> = Vec::with_capacity(16 * 1024);
    loop {
        let frame = match tokio::time::timeout(idle, body.frame()).await {
            Err(_) => {
                return WatchEnd::Failed(
                    Failure::Transport {
                        kind: TransportKind::Timeout,
                        message: format!("the watch of {} went silent", target.label),
                    },
                    None,
                );
            }
            Ok(None) => return WatchEnd::Closed,
            Ok(Some(Err(e))) => return WatchEnd::Failed(request::transport_failure(&e), None),
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        buf.extend_from_slice(&data);
        // Every complete line is one event.
        let mut start = 0;
        while let Some(nl) = buf[start..].iter().position(|&b| b == b'\n') {
            let line = &buf[start..start + nl];
            start += nl + 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match handle_line(line, target, rv, tx).await {
                Ok(()) => {}
                Err(end) => return end,
            }
        }
        buf.drain(..start);
    }
}

/// Decodes one watch event and sends what it means.
async fn handle_line(
    line: &[u8],
    target: &WatchTarget,
    rv: &mut String,
    tx: &mpsc::Sender<Update>,
) -> Result<(), WatchEnd> {
    let received = Instant::now();
    let ev: EventIn = serde_json::from_slice(line).map_err(|e| {
        WatchEnd::Failed(
            Failure::Transport {
                kind: TransportKind::Other,
                message: format!("cannot decode a watch event of {}: {e}", target.label),
            },
            None,
        )
    })?;
    let meta = &ev.object.metadata;
    let update = match ev.kind.as_ref() {
        "ADDED" | "MODIFIED" | "DELETED" => {
            if !meta.resource_version.is_empty() {
                *rv = meta.resource_version.to_string();
            }
            if meta.uid.is_empty() {
                return Ok(());
            }
            let meta = to_owned_meta(meta);
            if ev.kind == "DELETED" {
                Update::Deleted {
                    key: target.key,
                    meta,
                    received,
                }
            } else {
                Update::Applied {
                    key: target.key,
                    meta,
                    received,
                }
            }
        }
        "BOOKMARK" => {
            if !meta.resource_version.is_empty() {
                *rv = meta.resource_version.to_string();
            }
            Update::Progress { key: target.key }
        }
        "ERROR" => {
            let code = ev.object.code.unwrap_or(0);
            if code == 410 {
                return Err(WatchEnd::Gone);
            }
            return Err(WatchEnd::Failed(
                Failure::Status {
                    code,
                    reason: ev.object.reason.map(Cow::into_owned).unwrap_or_default(),
                    message: ev.object.message.map(Cow::into_owned).unwrap_or_default(),
                },
                None,
            ));
        }
        _ => return Ok(()),
    };
    tx.send(update).await.map_err(|_| WatchEnd::Stopped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_events_decode_without_building_object_meta() {
        let line = br#"{"type":"MODIFIED","object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a","namespace":"n","uid":"u1","resourceVersion":"42","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u0","blockOwnerDeletion":true}],"managedFields":[{"manager":"x"}]}}}"#;
        let ev: EventIn = serde_json::from_slice(line).unwrap();
        assert_eq!(ev.kind, "MODIFIED");
        let m = to_owned_meta(&ev.object.metadata);
        assert_eq!((m.uid.as_ref(), m.resource_version.as_ref()), ("u1", "42"));
        assert_eq!(m.owner_references[0].block_owner_deletion, Some(true));

        let gone = br#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (20)","reason":"Expired","code":410}}"#;
        let ev: EventIn = serde_json::from_slice(gone).unwrap();
        assert_eq!((ev.kind.as_ref(), ev.object.code), ("ERROR", Some(410)));
    }

    /// A watch that fails is reported lost at once, and current again once it is reopened
    /// from its resourceVersion (before the events the server then sends).
    #[tokio::test]
    async fn a_lost_watch_is_said_and_so_is_its_resumption() {
        use crate::source::live::testserver::{Reply, Script, Server};
        let list = br#"{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"5"},"items":[]}"#;
        let event = b"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"namespace\":\"n\",\"uid\":\"u1\",\"resourceVersion\":\"6\"}}}\n";
        let server = Server::start(Script::Answer(Box::new(move |_, n| match n {
            0 => Reply::ok("application/json", list),
            1 => Reply::status(503, "ServiceUnavailable"),
            2 => Reply::ok("application/json", event),
            _ => Reply::ok("application/json", b"").after(Duration::from_secs(30)),
        })))
        .await;
        let (tx, mut rx) = mpsc::channel(16);
        let target = WatchTarget::new(7, "", "v1", "configmaps");
        let task = tokio::spawn(watch_resource(
            server.client(),
            target,
            WatchOptions::default(),
            tx,
        ));
        let mut seen = Vec::new();
        while seen.len() < 4 {
            let u = tokio::time::timeout(Duration::from_secs(10), rx.recv())
                .await
                .expect("an update in time")
                .expect("the stream goes on");
            seen.push(match u {
                Update::Listed { .. } => "listed".to_owned(),
                Update::Interrupted { key, message } => {
                    assert_eq!(key, 7);
                    assert!(message.contains("503"), "{message}");
                    "interrupted".to_owned()
                }
                Update::Resumed { .. } => "resumed".to_owned(),
                Update::Applied { meta, .. } => format!("applied {}", meta.uid),
                other => format!("{other:?}"),
            });
        }
        task.abort();
        assert_eq!(seen, ["listed", "interrupted", "resumed", "applied u1"]);
        // Resumed from the list's resourceVersion: nothing was missed.
        let watches: Vec<String> = server
            .requests()
            .iter()
            .filter(|r| r.line.contains("watch=1"))
            .take(2)
            .map(|r| r.line.clone())
            .collect();
        assert!(
            watches.iter().all(|w| w.contains("resourceVersion=5")),
            "{watches:?}"
        );
    }

    #[test]
    fn watch_urls_resume_with_bookmarks() {
        let t = WatchTarget::new(3, "apps", "v1", "deployments");
        assert_eq!(t.label, "apps/v1/deployments");
        assert_eq!(
            watch_url(&t, "12 3", Duration::from_secs(240)),
            "/apis/apps/v1/deployments?allowWatchBookmarks=true&resourceVersion=12%203&timeoutSeconds=240&watch=1"
        );
        let j = jittered(Duration::from_secs(240), 7);
        assert!(j <= Duration::from_secs(240) && j > Duration::from_secs(179));
    }
}
