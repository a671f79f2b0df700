//! The watch loop against a live cluster: discovery, one list-and-watch task per monitored
//! resource ([`crate::source::live::watch_resource`]), the [`Engine`], a discovery refresh
//! every resync period (30 s, like the GC's `Sync`: CRDs that appear or go away are picked up),
//! and the metrics server. Transitions go to a [`Sink`]; nothing is ever written to the
//! cluster.
//!
//! Until every resource's initial list is in (or known unreadable), events are held back; the
//! initial lists are then evaluated as a whole ([`Cause::Initial`]). After that, events are
//! applied as they come and evaluated in batches: whatever arrived while the previous batch was
//! being evaluated forms the next one (one event when the cluster is calm, thousands under
//! load), and a batch is cut short before an object changes twice, so that what its first
//! change enqueued is judged before its second (its deletion, say) is seen.
//!
//! What the loop keeps up to date is a [`Model`]: the [`Engine`] for `kubectl gc watch`, or
//! `kubectl gc admit`'s shared world, which evaluates nothing and is read by the webhook's
//! checks while the loop writes it. The loop also tells the model when a stream's watch is
//! lost and when it is current again ([`StreamHealth`]): admit judges nothing on a resource
//! whose events may be missing.

use super::engine::Engine;
use super::metrics::Metrics;
use super::{Cause, Transition, TransitionKind, When};
use crate::catalog::KubeVersion;
use crate::error::{Error, Result};
use crate::model::ResourceId;
use crate::snapshot::{ListOutcome, Resource, SnapshotBuilder};
use crate::source::live::{
    Connection, OwnedMeta, Update, WatchOptions, WatchTarget, discover_resources, watch_resource,
};
use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How to watch.
#[derive(Clone, Debug)]
pub struct Config {
    /// The GC release to emulate (default: the server's).
    pub gc_version: Option<KubeVersion>,
    /// Resources listed at the same time (initial lists, relists) and discovery documents
    /// fetched at the same time.
    pub concurrency: usize,
    /// `limit` of the first list page.
    pub page_size: u32,
    /// Pages grow up to this `limit` while the server answers quickly (`None`: fixed pages,
    /// as with `--chunk-size`).
    pub max_page_size: Option<u32>,
    /// Discovery refresh and time-based re-evaluation period (the GC's resync: 30 s).
    pub resync: Duration,
    /// Serve `/metrics`, `/healthz`, `/readyz` here.
    pub metrics_addr: Option<SocketAddr>,
    /// The server ends each watch after about this long; it is then resumed.
    pub watch_timeout: Duration,
    /// Keep the findings held here across runs (`--state-file`).
    pub state_file: Option<std::path::PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            gc_version: None,
            concurrency: 8,
            page_size: crate::source::live::DEFAULT_PAGE_SIZE,
            max_page_size: Some(crate::source::live::DEFAULT_MAX_PAGE_SIZE),
            resync: Duration::from_secs(30),
            metrics_addr: None,
            watch_timeout: Duration::from_secs(240),
            state_file: None,
        }
    }
}

/// Where the watch's output goes.
pub trait Sink {
    /// One transition. `Ok(false)` stops the watch (`--fail-on`).
    fn transition(&mut self, t: &Transition) -> std::io::Result<bool>;
    /// A note for people (stderr): a resource that cannot be read (said once), discovery
    /// changes.
    fn notice(&mut self, text: &str);
    /// Progress (stderr, shown on a terminal only).
    fn progress(&mut self, text: &str);
}

/// Why the watch ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The stop signal came.
    Stopped,
    /// The sink asked to stop.
    SinkStopped,
}

/// One monitored resource's stream.
struct StreamState {
    resource: ResourceId,
    task: tokio::task::JoinHandle<()>,
    /// The first list has arrived.
    listed: bool,
    /// Unreadable now (the outcome recorded on the resource).
    unreadable: bool,
}

/// Identity of a resource-table row across discovery refreshes.
fn row_key(r: &Resource) -> (String, String, String) {
    (r.group.clone(), r.version.clone(), r.plural.clone())
}

fn monitored(r: &Resource) -> bool {
    !matches!(r.list, ListOutcome::Ignored { .. })
}

const NOT_LISTED_YET: &str = "not listed yet";

/// A discovery result: the resource table, and the group-versions that could not be read.
type Discovered = (Vec<Resource>, Vec<(String, String)>);

struct Loop<'a> {
    conn: &'a Connection,
    cfg: &'a Config,
    tx: mpsc::Sender<Update>,
    streams: HashMap<usize, StreamState>,
    next_key: usize,
    list_permits: Arc<tokio::sync::Semaphore>,
}

impl Loop<'_> {
    fn spawn(&mut self, r: &Resource, resource: ResourceId) -> usize {
        let key = self.next_key;
        self.next_key += 1;
        let target = WatchTarget::new(key, &r.group, &r.version, &r.plural);
        let opts = WatchOptions {
            request_timeout: self.conn.request_timeout,
            page_size: self.cfg.page_size,
            max_page_size: self.cfg.max_page_size,
            watch_timeout: self.cfg.watch_timeout,
            list_permits: Some(self.list_permits.clone()),
        };
        let task = tokio::spawn(watch_resource(
            self.conn.client.clone(),
            target,
            opts,
            self.tx.clone(),
        ));
        self.streams.insert(
            key,
            StreamState {
                resource,
                task,
                listed: false,
                unreadable: false,
            },
        );
        key
    }
}

impl Drop for Loop<'_> {
    fn drop(&mut self) {
        for s in self.streams.values() {
            s.task.abort();
        }
    }
}

fn label(r: &Resource) -> String {
    r.plural_group()
}

/// Emits transitions; `Ok(false)` when the sink asked to stop.
fn emit(
    sink: &mut dyn Sink,
    metrics: &Metrics,
    held_when: &mut HashMap<String, Option<When>>,
    ts: &[Transition],
) -> Result<bool> {
    for t in ts {
        let previous_when = match t.kind {
            TransitionKind::Resolved => held_when.remove(&t.id).flatten(),
            _ => {
                held_when.insert(t.id.clone(), t.when);
                None
            }
        };
        metrics.transition(t, previous_when);
        if !sink.transition(t)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Watches until `stop` completes or the sink asks to stop.
pub async fn run(
    conn: &Connection,
    cfg: &Config,
    sink: &mut dyn Sink,
    stop: impl Future<Output = ()>,
) -> Result<Exit> {
    run_model(conn, cfg, sink, stop, Engine::new).await
}

/// [`run`], keeping the [`Model`] `make` builds on the initial lists (with `cfg.gc_version`)
/// up to date: `kubectl gc admit` keeps a world its checks read while the loop writes it.
pub async fn run_model<M: Model>(
    conn: &Connection,
    cfg: &Config,
    sink: &mut dyn Sink,
    stop: impl Future<Output = ()>,
    make: impl FnOnce(crate::snapshot::Snapshot, Option<KubeVersion>) -> M,
) -> Result<Exit> {
    let metrics = Arc::new(Metrics::new());
    let _server =
        match cfg.metrics_addr {
            Some(addr) => Some(super::metrics::serve(addr, metrics.clone()).await.map_err(
                |e| Error::Usage {
                    message: format!("cannot serve metrics on {addr}: {e}"),
                    hint: Some("choose another --metrics-addr (host:port)".into()),
                },
            )?),
            None => None,
        };
    let server_aborter = AbortOnDrop(_server);
    let (rows, failures) = discover_resources(conn, cfg.concurrency).await?;
    let server_version = conn.server_version.as_deref().and_then(KubeVersion::parse);
    let (tx, mut rx) = mpsc::channel::<Update>(4096);
    let mut lp = Loop {
        conn,
        cfg,
        tx,
        streams: HashMap::new(),
        next_key: 0,
        list_permits: Arc::new(tokio::sync::Semaphore::new(cfg.concurrency.max(1))),
    };
    let mut builder = SnapshotBuilder::new(conn.provenance());
    for (gv, m) in &failures {
        builder.discovery_failure(gv.clone(), m.clone());
    }
    for row in rows {
        let watch = row.list == ListOutcome::NotListed;
        let before = builder.resources().len();
        let id = builder.add_resource(row);
        if builder.resources().len() == before || !watch {
            continue;
        }
        builder.resource_mut(id).list = ListOutcome::Failed {
            message: NOT_LISTED_YET.into(),
        };
        let r = builder.resources()[id.index()].clone();
        lp.spawn(&r, id);
    }
    let total = lp.streams.len();
    sink.progress(&format!(
        "watching {total} resources the GC monitors (GC {}), listing…",
        cfg.gc_version
            .or(server_version)
            .map(|v| v.to_string())
            .unwrap_or_else(|| "newest".into())
    ));
    let started = Instant::now();

    // Initial lists; events that arrive meanwhile are held back.
    let mut held_back: Vec<Update> = Vec::new();
    let mut done = 0;
    tokio::pin!(stop);
    while done < total {
        let update = tokio::select! {
            u = rx.recv() => u,
            () = &mut stop => return Ok(Exit::Stopped),
        };
        let Some(update) = update else { break };
        match update {
            // A relist (410 during the initial phase) of a resource already in: reconciled
            // with the rest once the engine exists.
            u @ Update::Listed { relist: true, .. } => held_back.push(u),
            Update::Listed { key, objects, .. } => {
                let Some(s) = lp.streams.get_mut(&key) else {
                    continue;
                };
                if !s.listed && !s.unreadable {
                    done += 1;
                }
                s.listed = true;
                s.unreadable = false;
                let rid = s.resource;
                for m in &objects {
                    builder.add_object(rid, m);
                }
                builder.resource_mut(rid).list = ListOutcome::Complete;
            }
            Update::Unreadable {
                key,
                forbidden,
                message,
            } => {
                let Some(s) = lp.streams.get_mut(&key) else {
                    continue;
                };
                if !s.listed && !s.unreadable {
                    done += 1;
                }
                s.unreadable = true;
                let rid = s.resource;
                let r = builder.resource_mut(rid);
                sink.notice(&unreadable_notice(r, forbidden, &message));
                r.list = if forbidden {
                    ListOutcome::Forbidden { message }
                } else {
                    ListOutcome::Failed { message }
                };
            }
            other => held_back.push(other),
        }
    }
    let mut snap = builder.finish();
    snap.store.sort_objects();
    let objects = snap.store.len();
    let mut engine = make(snap, cfg.gc_version);
    let mut held_when: HashMap<String, Option<When>> = HashMap::new();
    let mut state = StateSaver::new(cfg.state_file.clone());
    if let Some(path) = &cfg.state_file {
        let entries = super::state::load(path)?;
        let held: Vec<(String, super::engine::Held)> = entries
            .iter()
            .filter_map(|e| Some((e.id.clone(), e.held()?)))
            .collect();
        for (id, h) in &held {
            held_when.insert(id.clone(), h.when);
            let t = Transition {
                kind: TransitionKind::Appeared,
                id: id.clone(),
                finding: h.finding.clone(),
                when: h.when,
                reason: h.reason,
                action: h.action,
                if_read_before: None,
                previous: None,
                previous_action: None,
                object_gone: false,
                cause: Cause::Initial,
                time: std::time::SystemTime::now(),
                received: None,
            };
            // The gauges start from what was held; the transitions below move them.
            metrics.transition(&t, None);
        }
        engine.preload(held);
    }
    for u in held_back {
        handle(
            &mut engine,
            &mut lp,
            sink,
            &metrics,
            &mut held_when,
            u,
            false,
        )?;
    }
    let initial = engine.evaluate_all(Cause::Initial);
    sink.progress(&format!(
        "initial lists: {objects} objects in {}; {} findings; watching for changes",
        crate::util::human_duration(started.elapsed()),
        engine.held_count()
    ));
    metrics.set_ready();
    engine.synced();
    if !emit(sink, &metrics, &mut held_when, &initial)? {
        state.save(&engine, sink, true);
        return Ok(Exit::SinkStopped);
    }
    state.save(&engine, sink, true);

    let mut resync = tokio::time::interval_at(tokio::time::Instant::now() + cfg.resync, cfg.resync);
    let mut sample = tokio::time::interval(Duration::from_secs(1));
    let mut last_resync = Instant::now();
    let mut refresh: Option<tokio::task::JoinHandle<Result<Discovered>>> = None;
    loop {
        tokio::select! {
            u = rx.recv() => {
                let Some(u) = u else { break };
                if !handle(&mut engine, &mut lp, sink, &metrics, &mut held_when, u, true)? {
                    return Ok(Exit::SinkStopped);
                }
                // Everything that is already waiting joins the batch.
                let mut n = 0;
                while n < 10_000 {
                    let Ok(u) = rx.try_recv() else { break };
                    n += 1;
                    if !handle(&mut engine, &mut lp, sink, &metrics, &mut held_when, u, true)? {
                        return Ok(Exit::SinkStopped);
                    }
                }
                let ts = engine.flush(Cause::Event);
                let go_on = emit(sink, &metrics, &mut held_when, &ts)?;
                state.changed(!ts.is_empty());
                if !go_on {
                    state.save(&engine, sink, true);
                    return Ok(Exit::SinkStopped);
                }
            }
            _ = resync.tick() => {
                if refresh.is_none() {
                    let conn = conn.clone();
                    let conc = cfg.concurrency;
                    refresh = Some(tokio::spawn(async move { discover_resources(&conn, conc).await }));
                }
                let ts = engine.tick();
                if !emit(sink, &metrics, &mut held_when, &ts)? {
                    return Ok(Exit::SinkStopped);
                }
            }
            res = async { refresh.as_mut().expect("guarded").await }, if refresh.is_some() => {
                refresh = None;
                match res {
                    Ok(Ok((rows, failures))) => {
                        last_resync = Instant::now();
                        let ts = rediscover(&mut engine, &mut lp, sink, rows, &failures);
                        if !emit(sink, &metrics, &mut held_when, &ts)? {
                            return Ok(Exit::SinkStopped);
                        }
                    }
                    Ok(Err(e)) => sink.notice(&format!("discovery refresh failed (retrying at the next resync): {e}")),
                    Err(_) => {}
                }
            }
            _ = sample.tick() => {
                state.save(&engine, sink, false);
                let unreadable = lp.streams.values().filter(|s| s.unreadable).count();
                metrics.sample(engine.world().len(), unreadable, last_resync.elapsed().as_secs_f64());
            }
            () = &mut stop => break,
        }
    }
    state.changed(true);
    state.save(&engine, sink, true);
    drop(server_aborter);
    Ok(Exit::Stopped)
}

/// Writes `--state-file` when findings changed, at most once a second (and at exit).
struct StateSaver {
    path: Option<std::path::PathBuf>,
    dirty: bool,
    failed: bool,
}

impl StateSaver {
    fn new(path: Option<std::path::PathBuf>) -> StateSaver {
        StateSaver {
            path,
            dirty: true,
            failed: false,
        }
    }

    fn changed(&mut self, changed: bool) {
        self.dirty |= changed;
    }

    /// Saves if something changed (`force`: even if it did not).
    fn save(&mut self, engine: &impl Model, sink: &mut dyn Sink, force: bool) {
        let Some(path) = &self.path else { return };
        if !self.dirty && !force {
            return;
        }
        let entries = engine.state_entries();
        match super::state::save(path, entries) {
            Ok(()) => {
                self.dirty = false;
                self.failed = false;
            }
            Err(e) if !self.failed => {
                self.failed = true;
                sink.notice(&format!("cannot write {}: {e}", path.display()));
            }
            Err(_) => {}
        }
    }
}

struct AbortOnDrop(Option<tokio::task::JoinHandle<()>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(h) = &self.0 {
            h.abort();
        }
    }
}

mod model;
mod updates;
pub use model::{Model, StreamHealth};
use updates::{handle, rediscover, unreadable_notice};
