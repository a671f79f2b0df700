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

mod details;
mod discovery;
mod events;
mod gc_graph;
mod kubeconfig;
mod list;
pub mod path;
mod protobuf;
mod request;
#[cfg(test)]
mod testserver;
mod watch;

pub use events::{InvalidNamespaceEvent, OWNER_REF_INVALID_NAMESPACE, invalid_namespace_events};
pub use gc_graph::{GcGraphOptions, read_gc_graph};
pub use kubeconfig::{Overrides, connect, kubeconfig_names};
pub use watch::{
    OwnedMeta, Update, WatchOptions, WatchTarget, discover_resources, to_owned_meta, watch_resource,
};

use crate::catalog::KubeVersion;
use crate::error::{Error, Result};
use crate::snapshot::{
    ListOutcome, Provenance, Snapshot, SnapshotBuilder, SourceKind, now_rfc3339,
};
use list::{ListContext, PageSink, Target};
use request::{Failure, Stats};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// Which step a snapshot is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Phase {
    /// Reading the discovery documents.
    #[default]
    Discovery,
    /// Listing resources.
    Listing,
    /// Finished.
    Done,
}

/// A progress report (sent after discovery, after every page and after every resource).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Current step.
    pub phase: Phase,
    /// Resources whose list has finished (any outcome).
    pub resources_done: usize,
    /// Resources to list.
    pub resources_total: usize,
    /// Objects added so far.
    pub objects: u64,
    /// List pages read so far.
    pub pages: u64,
    /// Requests retried so far (429, 5xx, timeouts).
    pub retries: u64,
}

/// Shared counters of a running snapshot.
struct Counters {
    stats: Arc<Stats>,
    done: AtomicUsize,
    total: usize,
    objects: AtomicU64,
    pages: AtomicU64,
}

impl Counters {
    fn progress(&self, phase: Phase) -> Progress {
        Progress {
            phase,
            resources_done: self.done.load(Ordering::Relaxed),
            resources_total: self.total,
            objects: self.objects.load(Ordering::Relaxed),
            pages: self.pages.load(Ordering::Relaxed),
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
    fn page(&self, _items: usize, added: usize) {
        self.counters.pages.fetch_add(1, Ordering::Relaxed);
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

/// Takes a snapshot: GC-style discovery, then every monitored resource listed (metadata only,
/// paginated, `opts.concurrency` resources at a time), reporting progress along the way.
///
/// Only a failure to read `/api` or `/apis` (or to connect at all) is an error; a failed
/// group-version or list is recorded in the snapshot's coverage instead.
pub async fn snapshot(
    conn: &Connection,
    opts: &LiveOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Snapshot> {
    let stats = Arc::new(Stats::default());
    let server = conn.server_version.as_deref().and_then(KubeVersion::parse);
    let mut builder = SnapshotBuilder::new(conn.provenance());
    progress(Progress::default());

    let concurrency = opts.concurrency.max(1);
    // The namespaces and APIServices in full (the namespace controller's model) are read
    // while discovery runs; both are small.
    let (discovered, details) = futures::join!(
        discovery::discover(
            &conn.client,
            conn.request_timeout,
            concurrency,
            server,
            &stats,
        ),
        details::read(
            &conn.client,
            conn.request_timeout,
            &stats,
            opts.namespace.as_deref()
        ),
    );
    let discovered = discovered.map_err(|f| discovery_error(conn, &f))?;
    for (gv, message) in discovered.failures {
        builder.discovery_failure(gv, message);
    }
    for (name, status) in details.namespaces {
        builder.namespace_status(name, status);
    }
    if let Some(api_services) = details.api_services {
        builder.api_services_read();
        api_services
            .into_iter()
            .for_each(|a| builder.api_service(a));
    }
    let mut targets = Vec::new();
    for row in discovered.rows {
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
            // Until its list finishes, a resource counts as failed (e.g. on cancellation).
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

    let counters = Arc::new(Counters {
        stats: stats.clone(),
        done: AtomicUsize::new(0),
        total: targets.len(),
        objects: AtomicU64::new(0),
        pages: AtomicU64::new(0),
    });
    progress(counters.progress(Phase::Listing));

    let builder = Arc::new(Mutex::new(builder));
    let permits = Arc::new(tokio::sync::Semaphore::new(concurrency));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let mut tasks = tokio::task::JoinSet::new();
    for target in targets {
        let (client, stats, builder, counters, permits, tx) = (
            conn.client.clone(),
            stats.clone(),
            builder.clone(),
            counters.clone(),
            permits.clone(),
            tx.clone(),
        );
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
    drop(tx);

    while let Some(event) = rx.recv().await {
        if let Event::Done(id, outcome) = event {
            builder
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .resource_mut(id)
                .list = outcome;
            counters.done.fetch_add(1, Ordering::Relaxed);
        }
        progress(counters.progress(Phase::Listing));
    }
    while let Some(joined) = tasks.join_next().await {
        if let Err(e) = joined
            && e.is_panic()
        {
            std::panic::resume_unwind(e.into_panic());
        }
    }
    progress(counters.progress(Phase::Done));

    let builder = Arc::try_unwrap(builder)
        .map_err(|_| ())
        .expect("all list tasks have finished")
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    let mut snapshot = builder.finish();
    snapshot.store.sort_objects();
    Ok(snapshot)
}

/// Counts of list outcomes over the monitored rows of a snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Monitored resources (rows the GC watches).
    pub resources: usize,
    /// Of which listed completely (or completely in the requested namespace).
    pub listed: usize,
    /// Of which refused (403).
    pub forbidden: usize,
    /// Of which failed.
    pub failed: usize,
    /// Discovery group-versions that could not be read.
    pub discovery_failures: usize,
}

impl Coverage {
    /// Counts `snapshot`'s outcomes.
    pub fn of(snapshot: &Snapshot) -> Self {
        let mut c = Coverage {
            discovery_failures: snapshot.discovery_failures.len(),
            ..Coverage::default()
        };
        for r in snapshot.resources.iter().filter(|r| r.monitored()) {
            c.resources += 1;
            match r.list {
                ListOutcome::Complete | ListOutcome::Partial { .. } => c.listed += 1,
                ListOutcome::Forbidden { .. } => c.forbidden += 1,
                ListOutcome::Failed { .. } => c.failed += 1,
                ListOutcome::Ignored { .. } | ListOutcome::NotListed => {}
            }
        }
        c
    }
}

/// The one-line summary printed on stderr at the end of a live snapshot, e.g.
/// `listed 12034 objects from 48 resources in 2.4s (3 forbidden, 1 failed)`.
pub fn summary_line(snapshot: &Snapshot, elapsed: Duration) -> String {
    let c = Coverage::of(snapshot);
    let mut line = format!(
        "listed {} objects from {} resources in {}",
        snapshot.store.len(),
        c.listed,
        crate::util::human_duration(elapsed)
    );
    let mut gaps = Vec::new();
    if c.forbidden > 0 {
        gaps.push(format!("{} forbidden", c.forbidden));
    }
    if c.failed > 0 {
        gaps.push(format!("{} failed", c.failed));
    }
    if c.discovery_failures > 0 {
        gaps.push(format!(
            "{} discovery group-version{} unreadable",
            c.discovery_failures,
            if c.discovery_failures == 1 { "" } else { "s" }
        ));
    }
    if !gaps.is_empty() {
        line.push_str(&format!(" ({})", gaps.join(", ")));
    }
    line
}

/// A single self-redrawing progress line on stderr, drawn only when stderr is a terminal.
///
/// ```no_run
/// # async fn f(conn: &kubectl_gc::source::live::Connection) -> kubectl_gc::Result<()> {
/// use kubectl_gc::source::live::{LiveOptions, ProgressLine, snapshot, summary_line};
/// let line = ProgressLine::stderr();
/// let start = std::time::Instant::now();
/// let snap = snapshot(conn, &LiveOptions::default(), &|p| line.update(&p)).await?;
/// line.clear();
/// eprintln!("{}", summary_line(&snap, start.elapsed()));
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct ProgressLine {
    enabled: bool,
    state: Mutex<LineState>,
}

#[derive(Debug, Default)]
struct LineState {
    last_draw: Option<Instant>,
    last_phase: Option<Phase>,
    drawn: bool,
}

/// Minimum time between two redraws.
const REDRAW_EVERY: Duration = Duration::from_millis(80);

impl ProgressLine {
    /// A progress line on stderr, enabled when stderr is a terminal.
    pub fn stderr() -> Self {
        Self::new(std::io::stderr().is_terminal())
    }

    /// A progress line that draws only when `enabled`.
    pub fn new(enabled: bool) -> Self {
        ProgressLine {
            enabled,
            state: Mutex::new(LineState::default()),
        }
    }

    /// True when the line is drawn at all.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The text for a progress report.
    pub fn text(p: &Progress) -> String {
        match p.phase {
            Phase::Discovery => "discovering API resources…".to_owned(),
            Phase::Listing | Phase::Done => {
                let mut s = format!(
                    "listing: {}/{} resources, {} objects",
                    p.resources_done, p.resources_total, p.objects
                );
                if p.retries > 0 {
                    s.push_str(&format!(", {} retries", p.retries));
                }
                s
            }
        }
    }

    /// Redraws the line (at most every 80 ms, except on a phase change).
    pub fn update(&self, p: &Progress) {
        if !self.enabled {
            return;
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let due = st.last_phase != Some(p.phase)
            || p.resources_done == p.resources_total
            || st
                .last_draw
                .is_none_or(|t| now.duration_since(t) >= REDRAW_EVERY);
        if !due {
            return;
        }
        st.last_draw = Some(now);
        st.last_phase = Some(p.phase);
        st.drawn = true;
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{}", Self::text(p));
        let _ = err.flush();
    }

    /// Erases the line (call before printing anything else on stderr).
    pub fn clear(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if self.enabled && st.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            st.drawn = false;
        }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::{IgnoreReason, Resource};

    fn row(plural: &str, list: ListOutcome) -> Resource {
        Resource {
            group: String::new(),
            version: "v1".into(),
            kind: plural.into(),
            plural: plural.into(),
            namespaced: true,
            verbs: vec![],
            preferred_version: "v1".into(),
            list,
        }
    }

    #[test]
    fn summary_counts_gaps_of_monitored_rows_only() {
        let mut b = SnapshotBuilder::new(Provenance::default());
        b.add_resource(row("pods", ListOutcome::Complete));
        b.add_resource(row(
            "secrets",
            ListOutcome::Forbidden {
                message: "no".into(),
            },
        ));
        b.add_resource(row(
            "events",
            ListOutcome::Ignored {
                reason: IgnoreReason::GcIgnoredResource,
            },
        ));
        b.discovery_failure("metrics.k8s.io/v1beta1", "503");
        let s = b.finish();
        assert_eq!(
            summary_line(&s, Duration::from_millis(1500)),
            "listed 0 objects from 1 resources in 1.5s (1 forbidden, 1 discovery group-version unreadable)"
        );
    }

    #[test]
    fn progress_text() {
        let p = Progress {
            phase: Phase::Listing,
            resources_done: 3,
            resources_total: 40,
            objects: 1200,
            pages: 5,
            retries: 0,
        };
        assert_eq!(
            ProgressLine::text(&p),
            "listing: 3/40 resources, 1200 objects"
        );
        assert!(!ProgressLine::new(false).enabled());
    }

    use testserver::{Reply, Script, Server};

    fn kubeconfig_for(dir: &tempfile::TempDir, server: &str) -> PathBuf {
        let path = dir.path().join("kubeconfig");
        std::fs::write(
            &path,
            format!(
                "apiVersion: v1\nkind: Config\ncurrent-context: c\n\
                 clusters: [{{name: k, cluster: {{server: \"{server}\"}}}}]\n\
                 users: [{{name: u, user: {{token: t}}}}]\n\
                 contexts: [{{name: c, context: {{cluster: k, user: u}}}}]\n"
            ),
        )
        .unwrap();
        path
    }

    #[tokio::test]
    async fn a_silent_server_ends_the_run_after_one_request_timeout() {
        let server = Server::start(Script::Silent).await;
        let dir = tempfile::tempdir().unwrap();
        let opts = ConnectOptions {
            kubeconfig: Some(kubeconfig_for(&dir, &server.url)),
            request_timeout: Some(Duration::from_millis(800)),
            ..ConnectOptions::default()
        };
        let t = Instant::now();
        let err = connect(&opts).await.expect_err("nobody answers");
        let elapsed = t.elapsed();
        assert!(
            elapsed >= Duration::from_millis(800) && elapsed < Duration::from_millis(2500),
            "one timeout, no retry: {elapsed:?}"
        );
        assert_eq!(
            server.requests().len(),
            1,
            "the first request is not retried"
        );
        assert_eq!(*server.connections.lock().unwrap(), 1);
        let Error::Cluster { message, hint } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(
            message,
            &format!(
                "no answer from {} (context \"c\"): timed out after 800ms",
                server.url
            )
        );
        assert!(hint.as_deref().unwrap().contains("--request-timeout"));
        assert_eq!(err.exit_code(), crate::error::exit::CLUSTER);
    }

    #[tokio::test]
    async fn the_request_timeout_defaults_to_tens_of_seconds() {
        let server = Server::start(Script::Answer(Box::new(|_, _| {
            Reply::ok("application/json", br#"{"gitVersion":"v1.20.2"}"#)
        })))
        .await;
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = Some(kubeconfig_for(&dir, &server.url));
        let conn = connect(&ConnectOptions {
            kubeconfig: kubeconfig.clone(),
            ..ConnectOptions::default()
        })
        .await
        .unwrap();
        assert_eq!(conn.request_timeout, Some(DEFAULT_REQUEST_TIMEOUT));
        assert!((10..=60).contains(&DEFAULT_REQUEST_TIMEOUT.as_secs()));
        assert_eq!(conn.server_version.as_deref(), Some("v1.20.2"));
        // kubectl's `--request-timeout 0`: no limit.
        let conn = connect(&ConnectOptions {
            kubeconfig,
            request_timeout: Some(Duration::ZERO),
            ..ConnectOptions::default()
        })
        .await
        .unwrap();
        assert_eq!(conn.request_timeout, None);
    }
}
