//! The live source: a kube-rs connection, GC-style discovery and concurrent metadata-only lists.
//!
//! ```text
//! connect(&ConnectOptions)        kubeconfig like kubectl, GET /version  → Connection
//! snapshot(&conn, &LiveOptions,   discovery (§5.1) + paginated PartialObjectMetadata lists,
//!          &progress)             protobuf with JSON as the fallback    → Snapshot
//! invalid_namespace_events(..)    the GC's OwnerRefInvalidNamespace warnings (evidence)
//! read_gc_graph(..)               the real GC's graph from kube-controller-manager's debug
//!                                 endpoint (`graph --from-gc`)
//! ```
//!
//! Every resource-table row records how it was (or why it was not) listed, so the analysis can
//! tell "absent" from "not visible": forbidden and failed lists and failed discovery
//! group-versions are coverage gaps, never empty resources.
//!
//! Requests use kubectl-gc's own bounded retry policy (`request.rs`); kube's default retry layer
//! is disabled. Every request has a timeout ([`DEFAULT_REQUEST_TIMEOUT`] unless
//! `--request-timeout` says otherwise), so a server that accepts connections and never answers
//! ends the run with an error instead of hanging it. Every URL is built by `path.rs`, which
//! percent-encodes each segment. Errors that mean "cannot talk to this cluster" (kubeconfig, connection, TLS,
//! credentials) are [`Error::Cluster`] (exit code 4) with a one-line message and a hint.

pub mod access;
mod details;
mod discovery;
mod events;
mod gc_graph;
mod kubeconfig;
mod list;
pub mod path;
mod progress;
mod protobuf;
mod request;
#[cfg(test)]
mod testserver;
mod watch;

pub use events::{InvalidNamespaceEvent, OWNER_REF_INVALID_NAMESPACE, invalid_namespace_events};
pub use gc_graph::{GcGraphOptions, read_gc_graph};
pub use kubeconfig::{Overrides, connect, kubeconfig_names};
pub use progress::{Coverage, Phase, Progress, ProgressLine, summary_line};
pub use watch::{
    OwnedMeta, Update, WatchOptions, WatchTarget, discover_resources, to_owned_meta, watch_resource,
};

use crate::catalog::KubeVersion;
use crate::error::{Error, Result};
use crate::model::ResourceId;
use crate::snapshot::{
    ListOutcome, Provenance, Snapshot, SnapshotBuilder, SourceKind, now_rfc3339,
};
use futures::StreamExt;
use list::{ListContext, PageSink, Target};
use request::{Failure, Stats};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Per-request timeout when `--request-timeout` is not given (`Some(ZERO)` disables it): long
/// enough for a page of [`DEFAULT_PAGE_SIZE`] objects from a busy server, short enough that a
/// silent server ends the run within tens of seconds (the first request is not retried on a
/// timeout; later ones once).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The first page's `limit`: kubectl's `--chunk-size` default, a safe size whatever the
/// objects weigh.
pub const DEFAULT_PAGE_SIZE: u32 = 500;
/// How far pages grow while the server answers them quickly (see [`LiveOptions::max_page_size`]):
/// page count dominates the time of large resources — BENCHMARKS.md ("Live: page size").
pub const DEFAULT_MAX_PAGE_SIZE: u32 = 10_000;
/// Default number of resources listed at the same time.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// How list pages are asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WireFormat {
    /// Protobuf `PartialObjectMetadataList`, with JSON as the server's second choice (what
    /// client-go's metadata client asks for).
    #[default]
    Protobuf,
    /// JSON `PartialObjectMetadataList` only.
    Json,
}

/// How to reach the cluster: kubectl's global connection flags.
#[derive(Clone, Debug, Default)]
pub struct ConnectOptions {
    /// `--kubeconfig`: this file only (an error when it does not exist). `None`: `KUBECONFIG`
    /// (a path list; missing files are skipped, the rest merged, first wins), else
    /// `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// `--context` (default: the kubeconfig's current context).
    pub context: Option<String>,
    /// `--cluster` (default: the context's cluster).
    pub cluster: Option<String>,
    /// `--user` (default: the context's user).
    pub user: Option<String>,
    /// `-n/--namespace`: overrides the context's namespace as [`Connection::default_namespace`].
    pub namespace: Option<String>,
    /// `--request-timeout` for every request: `None` = [`DEFAULT_REQUEST_TIMEOUT`],
    /// `Some(Duration::ZERO)` = no timeout (kubectl's `0`).
    pub request_timeout: Option<Duration>,
    /// `--as`: impersonate this user.
    pub as_user: Option<String>,
    /// `--as-group` (repeatable): impersonate these groups.
    pub as_groups: Vec<String>,
    /// kubectl's connection flags over the kubeconfig (`--server`, `--token`, TLS, `--as-uid`).
    pub overrides: kubeconfig::Overrides,
}

/// An established connection (the server answered `GET /version`).
#[derive(Clone)]
pub struct Connection {
    /// The kube client (kube's own retry layer disabled).
    pub client: kube::Client,
    /// The kubeconfig context in use (`None` for in-cluster configuration).
    pub context: Option<String>,
    /// `-n`, else the context's namespace, else `default`.
    pub default_namespace: String,
    /// The API server URL.
    pub server_url: String,
    /// The server's `gitVersion` (`v1.20.2`), when `/version` said.
    pub server_version: Option<String>,
    /// The per-request timeout (`None`: none).
    pub request_timeout: Option<Duration>,
}

impl Connection {
    /// Where a snapshot read through this connection comes from, captured now (the snapshot's
    /// and `watch`'s world alike).
    pub fn provenance(&self) -> Provenance {
        Provenance {
            tool: format!("kubectl-gc {}", env!("CARGO_PKG_VERSION")),
            captured_at: now_rfc3339(),
            server_version: self.server_version.clone(),
            source: SourceKind::Live,
            context: self.context.clone(),
            inputs: vec![self.server_url.clone()],
        }
    }
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("context", &self.context)
            .field("default_namespace", &self.default_namespace)
            .field("server_url", &self.server_url)
            .field("server_version", &self.server_version)
            .field("request_timeout", &self.request_timeout)
            .finish_non_exhaustive()
    }
}

/// What to snapshot and how hard to push the server.
#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// `None`: all namespaces. `Some(ns)`: namespaced resources are listed in `ns` only and
    /// recorded as `Partial { namespaces: [ns] }`; cluster-scoped resources are still listed
    /// completely. (There is deliberately no label selector: a selector would hide owners.)
    pub namespace: Option<String>,
    /// `limit` of the first list page of each resource (of every page, without
    /// `max_page_size`).
    pub page_size: u32,
    /// `Some(max)`: pages grow from `page_size` up to `max` while the server answers them
    /// quickly (a full page within 0.5 s is followed by one twice as big, a page slower than
    /// 1 s by one half as big) — what `kubectl gc` does unless `--chunk-size` is given.
    /// `None`: every page asks for `page_size` (kubectl's `--chunk-size`).
    pub max_page_size: Option<u32>,
    /// Resources listed (and discovery documents fetched) concurrently.
    pub concurrency: usize,
    /// The encoding asked for.
    pub wire: WireFormat,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            namespace: None,
            page_size: DEFAULT_PAGE_SIZE,
            max_page_size: None,
            concurrency: DEFAULT_CONCURRENCY,
            wire: WireFormat::default(),
        }
    }
}

/// Shared counters of a running snapshot.
struct Counters {
    stats: Arc<Stats>,
    done: AtomicUsize,
    /// Grows as groups' documents arrive (lists start before discovery has finished).
    total: AtomicUsize,
    objects: AtomicU64,
    pages: AtomicU64,
    protobuf_pages: AtomicU64,
}

impl Counters {
    fn progress(&self, phase: Phase) -> Progress {
        Progress {
            phase,
            resources_done: self.done.load(Ordering::Relaxed),
            resources_total: self.total.load(Ordering::Relaxed),
            objects: self.objects.load(Ordering::Relaxed),
            pages: self.pages.load(Ordering::Relaxed),
            protobuf_pages: self.protobuf_pages.load(Ordering::Relaxed),
            retries: self.stats.retries.load(Ordering::Relaxed),
        }
    }
}

/// Messages from the list tasks to the driving future.
enum Event {
    Page,
    Done(crate::model::ResourceId, crate::snapshot::ListOutcome),
}

struct ChannelSink<'a> {
    counters: &'a Counters,
    tx: &'a tokio::sync::mpsc::UnboundedSender<Event>,
}

impl PageSink for ChannelSink<'_> {
    fn page(&self, _items: usize, added: usize, protobuf: bool) {
        self.counters.pages.fetch_add(1, Ordering::Relaxed);
        if protobuf {
            self.counters.protobuf_pages.fetch_add(1, Ordering::Relaxed);
        }
        self.counters
            .objects
            .fetch_add(added as u64, Ordering::Relaxed);
        let _ = self.tx.send(Event::Page);
    }
}

fn discovery_error(conn: &Connection, f: &Failure) -> Error {
    match f {
        Failure::Status { code: 401, .. } | Failure::Transport { .. } => {
            kubeconfig::connect_failure(
                f,
                &conn.server_url,
                conn.context.as_deref().unwrap_or("in-cluster"),
            )
        }
        _ => Error::Api {
            message: format!("API discovery failed: {}", f.describe()),
            hint: Some("the server's /api and /apis documents must be readable".into()),
        },
    }
}

/// Reads one object in full (JSON): `Ok(None)` when it is gone. For `why`, which keeps only
/// the object's managedFields and status conditions from it.
pub async fn get_object(
    conn: &Connection,
    group: &str,
    version: &str,
    namespace: Option<&str>,
    plural: &str,
    name: &str,
) -> std::result::Result<Option<serde_json::Value>, String> {
    let path = path::object(group, version, namespace, plural, name);
    details::object(&conn.client, conn.request_timeout, &Stats::default(), &path).await
}

/// Lists one resource in full (JSON, one request: for `why`'s look at a namespace's pods):
/// `Ok(None)` when the server says it is not there.
pub async fn list_full(
    conn: &Connection,
    group: &str,
    version: &str,
    namespace: Option<&str>,
    plural: &str,
) -> std::result::Result<Option<serde_json::Value>, String> {
    let path = path::collection(group, version, namespace, plural);
    details::object(&conn.client, conn.request_timeout, &Stats::default(), &path).await
}

/// Takes a snapshot: GC-style discovery and every monitored resource listed (metadata only,
/// paginated), reporting progress along the way.
///
/// Discovery and listing overlap: a group's resources are listed as soon as that group's
/// version documents are in, while the other groups' documents are still being fetched (the
/// core group, which holds most objects, is usually first). Document fetches and lists share
/// one limit of `opts.concurrency` requests. The resource table is put back in the server's
/// order at the end, so the snapshot does not depend on which answer came first.
///
/// Only a failure to read `/api` or `/apis` (or to connect at all) is an error; a failed
/// group-version or list is recorded in the snapshot's coverage instead.
pub async fn snapshot(
    conn: &Connection,
    opts: &LiveOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Snapshot> {
    let stats = Arc::new(Stats::default());
    let builder = SnapshotBuilder::new(conn.provenance());
    progress(Progress::default());

    // The namespaces and APIServices in full (the namespace controller's model) are read
    // while discovery and the lists run; both are small.
    let (listed, details) = futures::join!(
        discover_and_list(conn, opts, builder, &stats, progress),
        details::read(
            &conn.client,
            conn.request_timeout,
            &stats,
            opts.namespace.as_deref()
        ),
    );
    let mut builder = listed?;
    for (name, status) in details.namespaces {
        builder.namespace_status(name, status);
    }
    if let Some(api_services) = details.api_services {
        builder.api_services_read();
        api_services
            .into_iter()
            .for_each(|a| builder.api_service(a));
    }
    let mut snapshot = builder.finish();
    snapshot.store.sort_objects();
    Ok(snapshot)
}

/// Adds one group's discovery outcome to the resource table and returns the rows to list.
/// Until its list finishes, a listed row counts as failed (e.g. on cancellation).
fn add_group(builder: &mut SnapshotBuilder, rows: Vec<crate::snapshot::Resource>) -> Vec<Target> {
    let mut targets = Vec::new();
    for row in rows {
        let to_list = row.list == ListOutcome::NotListed;
        let (group, version, plural, namespaced) = (
            row.group.clone(),
            row.version.clone(),
            row.plural.clone(),
            row.namespaced,
        );
        let before = builder.resources().len();
        let id = builder.add_resource(row);
        if builder.resources().len() == before {
            // Two resources with one group/version/kind (not seen in practice): the first
            // row stands for the kind, as in the REST mapper.
            continue;
        }
        if to_list {
            builder.resource_mut(id).list = ListOutcome::Failed {
                message: "list did not finish".into(),
            };
            targets.push(Target {
                id,
                label: if group.is_empty() {
                    format!("{version}/{plural}")
                } else {
                    format!("{group}/{version}/{plural}")
                },
                group,
                version,
                plural,
                namespaced,
            });
        }
    }
    targets
}

/// Discovery and the lists, pipelined (see [`snapshot`]); returns the builder with every row
/// and object, the rows in the server's order.
async fn discover_and_list(
    conn: &Connection,
    opts: &LiveOptions,
    builder: SnapshotBuilder,
    stats: &Arc<Stats>,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<SnapshotBuilder> {
    let server = conn.server_version.as_deref().and_then(KubeVersion::parse);
    let concurrency = opts.concurrency.max(1);
    let groups = discovery::groups(&conn.client, conn.request_timeout, stats)
        .await
        .map_err(|f| discovery_error(conn, &f))?;

    let builder = Arc::new(Mutex::new(builder));
    let counters = Arc::new(Counters {
        stats: stats.clone(),
        done: AtomicUsize::new(0),
        total: AtomicUsize::new(0),
        objects: AtomicU64::new(0),
        pages: AtomicU64::new(0),
        protobuf_pages: AtomicU64::new(0),
    });
    // One limit for document fetches and lists alike. The semaphore is fair: the documents,
    // all asked for first, go before any list.
    let permits = Arc::new(tokio::sync::Semaphore::new(concurrency));

    // Every group version's document, fetched in the driving future (they borrow the client).
    let mut docs = futures::stream::FuturesUnordered::new();
    for (gi, g) in groups.iter().enumerate() {
        for (vi, v) in g.versions.iter().enumerate() {
            let (permits, client) = (&permits, &conn.client);
            docs.push(async move {
                // The semaphore is never closed; without a permit the fetch would still be right.
                let _permit = permits.acquire().await.ok();
                let doc =
                    discovery::group_version_doc(client, conn.request_timeout, stats, &g.name, v)
                        .await;
                (gi, vi, doc)
            });
        }
    }
    // Per group: its documents so far, and how many are still out.
    let mut group_docs: Vec<Vec<Option<discovery::GroupVersionDoc>>> = groups
        .iter()
        .map(|g| vec![None; g.versions.len()])
        .collect();
    let mut outstanding: Vec<usize> = groups.iter().map(|g| g.versions.len()).collect();
    let mut failures: Vec<Vec<(String, String)>> = vec![Vec::new(); groups.len()];
    // The rows each group added, `(group, first row, end)`, in the order they were added.
    let mut blocks: Vec<(usize, u32, u32)> = Vec::new();

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
    // Kept while documents are out (their groups' lists are yet to be spawned); once dropped,
    // the channel closes when the last list task ends.
    let mut tx = (!docs.is_empty()).then_some(tx);
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        let phase = if docs.is_empty() {
            Phase::Listing
        } else {
            Phase::Discovery
        };
        tokio::select! {
            Some((gi, vi, doc)) = docs.next(), if !docs.is_empty() => {
                if let Some(slot) = group_docs.get_mut(gi).and_then(|d| d.get_mut(vi)) {
                    *slot = Some(doc);
                }
                let left = outstanding.get_mut(gi);
                let complete = match left {
                    Some(left) => {
                        *left = left.saturating_sub(1);
                        *left == 0
                    }
                    None => false,
                };
                if complete && let (Some(g), Some(docs)) = (groups.get(gi), group_docs.get_mut(gi)) {
                    let (rows, group_failures) =
                        discovery::group_outcome(g, std::mem::take(docs), server);
                    failures[gi] = group_failures;
                    let targets = {
                        let mut b = builder.lock().unwrap_or_else(|e| e.into_inner());
                        let first = b.resources().len() as u32;
                        let targets = add_group(&mut b, rows);
                        blocks.push((gi, first, b.resources().len() as u32));
                        targets
                    };
                    counters.total.fetch_add(targets.len(), Ordering::Relaxed);
                    if let Some(tx) = &tx {
                        for target in targets {
                            spawn_list(&mut tasks, conn, opts, &builder, &counters, &permits, tx, target);
                        }
                    }
                }
                if docs.is_empty() {
                    tx = None;
                }
                progress(counters.progress(phase));
            }
            event = rx.recv() => {
                let Some(event) = event else { break };
                if let Event::Done(id, outcome) = event {
                    builder
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .resource_mut(id)
                        .list = outcome;
                    counters.done.fetch_add(1, Ordering::Relaxed);
                }
                progress(counters.progress(phase));
            }
        }
    }
    while let Some(joined) = tasks.join_next().await {
        if let Err(e) = joined
            && e.is_panic()
        {
            std::panic::resume_unwind(e.into_panic());
        }
    }
    progress(counters.progress(Phase::Done));

    let mut builder = Arc::try_unwrap(builder)
        .map_err(|_| ())
        .expect("all list tasks have finished")
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    // The server's order: groups as `/api` and `/apis` list them, whatever order their
    // documents arrived in.
    blocks.sort_unstable_by_key(|&(gi, _, _)| gi);
    let order: Vec<ResourceId> = blocks
        .iter()
        .flat_map(|&(_, first, end)| (first..end).map(ResourceId))
        .collect();
    builder.reorder_resources(&order);
    for (gv, message) in failures.into_iter().flatten() {
        builder.discovery_failure(gv, message);
    }
    Ok(builder)
}

/// Spawns the list of one resource; it waits for a permit, then reports on `tx`.
#[allow(clippy::too_many_arguments)]
fn spawn_list(
    tasks: &mut tokio::task::JoinSet<()>,
    conn: &Connection,
    opts: &LiveOptions,
    builder: &Arc<Mutex<SnapshotBuilder>>,
    counters: &Arc<Counters>,
    permits: &Arc<tokio::sync::Semaphore>,
    tx: &tokio::sync::mpsc::UnboundedSender<Event>,
    target: Target,
) {
    let (client, builder, counters, permits, tx) = (
        conn.client.clone(),
        builder.clone(),
        counters.clone(),
        permits.clone(),
        tx.clone(),
    );
    let stats = counters.stats.clone();
    let timeout = conn.request_timeout;
    let page_size = opts.page_size;
    let max_page_size = opts.max_page_size;
    let wire = opts.wire;
    let namespace = opts.namespace.clone();
    tasks.spawn(async move {
        let Ok(_permit) = permits.acquire_owned().await else {
            return;
        };
        let cx = ListContext {
            client: &client,
            timeout,
            stats: &stats,
            page_size,
            max_page_size,
            namespace: namespace.as_deref(),
            wire,
            builder: &builder,
        };
        let sink = ChannelSink {
            counters: &counters,
            tx: &tx,
        };
        let outcome = list::list_resource(&cx, &target, &sink).await;
        let _ = tx.send(Event::Done(target.id, outcome));
    });
}

#[cfg(test)]
mod tests;
