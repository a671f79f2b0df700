//! The webhook's HTTP side: `POST /validate`, `/healthz` (ready once the graph has synced, and
//! while no watch has been lost for longer than a short grace), `/livez`, `/metrics`.
//!
//! Every review is answered within its deadline (the shorter of `--timeout` and most of the
//! `timeout` the API server puts in the URL), whatever the graph or the other reviews are
//! doing, and the deadline covers all of the work: reading the body, parsing it, copying out
//! what the check reads, judging it. Past the deadline the write is admitted (in warn mode with
//! a warning that says it was not judged) and counted.
//!
//! A check runs on a thread of its own (tokio's blocking pool), on a read of the shared
//! [`Graph`]: checks neither wait for the watch loop's batches nor for each other. Checks are
//! bounded by kind of work, each kind by its own permits, so that a flood of one kind leaves
//! the others their share:
//!
//! - **first looks** at small reviews (`--max-in-flight`): beyond them a write is admitted
//!   unchecked (`overloaded`), never refused;
//! - **second looks**: a verdict that an owner is absent, or has another UID, is checked again
//!   250 ms later (within the deadline), with no permit held while it waits: a controller that
//!   creates an object and then its dependents writes the second before the watch has brought
//!   the first, and must not be warned, let alone refused, for it. A second look that cannot
//!   run, or does not finish in time, admits the write: the first look alone never refuses;
//! - **large reviews** (bodies over 256 KiB): parsed and checked on their own few permits.
//!
//! Fast paths need no permit: a write that adds no reference, the control plane's writes, an
//! exempt namespace or label are admitted at once.

use super::decide::{self, Policy};
use super::graph::Graph;
use super::metrics::Metrics;
use super::permission;
use super::review::{self, Answer};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

/// Bounds on what requests and connections may cost.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest body read (an AdmissionReview holds the object twice on UPDATE).
    pub max_body: usize,
    /// Bodies larger than this are large reviews: parsed and checked under their own permits.
    pub large_body: usize,
    /// The longest a review is answered in.
    pub timeout: Duration,
    /// First looks at small reviews at once (`--max-in-flight`).
    pub max_checks: usize,
    /// Second looks (an absence checked again) at once.
    pub max_rechecks: usize,
    /// Large reviews at once.
    pub max_large: usize,
    /// Connections served at once; beyond them the oldest idle or slow one is shed.
    pub max_connections: usize,
    /// The longest a TLS handshake may take.
    pub handshake_timeout: Duration,
    /// The longest a connection may take to send a request's headers (or stay idle between
    /// requests).
    pub header_timeout: Duration,
    /// A request whose body has not arrived after this long is slow: shed first when the
    /// connections run out (its body must arrive within the review's deadline anyway).
    pub slow_body: Duration,
    /// How long a lost watch may last before `/healthz` says not ready.
    pub lost_watch_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body: 8 << 20,
            large_body: 256 << 10,
            timeout: Duration::from_secs(2),
            max_checks: 64,
            max_rechecks: 16,
            max_large: 2,
            max_connections: 512,
            handshake_timeout: Duration::from_secs(10),
            header_timeout: Duration::from_secs(30),
            slow_body: Duration::from_secs(1),
            lost_watch_grace: Duration::from_secs(10),
        }
    }
}

/// The permits of each kind of work.
#[derive(Debug)]
struct Permits {
    checks: Arc<Semaphore>,
    rechecks: Arc<Semaphore>,
    large: Arc<Semaphore>,
}

/// What the handlers share.
pub struct App {
    /// Which writes are judged, and how.
    pub policy: Policy,
    /// Metrics.
    pub metrics: Arc<Metrics>,
    /// The graph the checks read.
    pub graph: Arc<Graph>,
    /// Bounds.
    pub limits: Limits,
    /// `/validate` answers only connections that presented a client certificate the
    /// `--client-ca-file` CA signed.
    pub client_auth: bool,
    /// `--check-permissions`: asks whether OwnerReferencesPermissionEnforcement would refuse
    /// the write for its sender, and warns when it would.
    pub authorizer: Option<Arc<dyn permission::Authorizer>>,
    permits: Permits,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("policy", &self.policy)
            .field("limits", &self.limits)
            .field("client_auth", &self.client_auth)
            .finish_non_exhaustive()
    }
}

impl App {
    /// The shared state of a server.
    pub fn new(policy: Policy, metrics: Arc<Metrics>, graph: Arc<Graph>, limits: Limits) -> App {
        let permits = |n: usize| Arc::new(Semaphore::new(n.max(1)));
        App {
            policy,
            metrics,
            graph,
            client_auth: false,
            authorizer: None,
            permits: Permits {
                checks: permits(limits.max_checks),
                rechecks: permits(limits.max_rechecks),
                large: permits(limits.max_large),
            },
            limits,
        }
    }
}

type Response = http::Response<Full<Bytes>>;

fn respond(status: u16, content_type: &str, body: impl Into<Bytes>) -> Response {
    http::Response::builder()
        .status(status)
        .header(http::header::CONTENT_TYPE, content_type)
        .body(Full::new(body.into()))
        .unwrap_or_else(|_| http::Response::new(Full::new(Bytes::new())))
}

fn text(status: u16, body: &str) -> Response {
    respond(status, "text/plain; charset=utf-8", format!("{body}\n"))
}

/// The `timeout` the API server adds to a webhook's URL (`?timeout=10s`).
fn url_timeout(uri: &http::Uri) -> Option<Duration> {
    uri.query()?
        .split('&')
        .find_map(|kv| kv.strip_prefix("timeout="))
        .and_then(|v| v.strip_suffix('s'))
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
}

/// Who is asking: whether the connection presented a verified client certificate.
#[derive(Clone, Copy, Debug, Default)]
pub struct Peer {
    /// A certificate the client CA signed was presented (always false without
    /// `--client-ca-file`).
    pub authenticated: bool,
}

/// Answers one HTTP request. `reading`: called once the body is read (the connection is no
/// longer slow, [`super::conns`]).
pub async fn handle(
    app: Arc<App>,
    peer: Peer,
    req: http::Request<hyper::body::Incoming>,
    reading: impl FnOnce(),
) -> Response {
    let path = req.uri().path().to_owned();
    match (req.method(), path.as_str()) {
        (&http::Method::POST, "/validate") => {}
        (&http::Method::GET | &http::Method::HEAD, "/metrics") => {
            app.metrics.graph_health(&app.graph.health());
            return respond(
                200,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
                app.metrics.encode(),
            );
        }
        (&http::Method::GET | &http::Method::HEAD, "/livez") => return text(200, "ok"),
        (&http::Method::GET | &http::Method::HEAD, "/healthz" | "/readyz") => {
            return readiness(&app);
        }
        (_, "/validate" | "/metrics" | "/livez" | "/healthz" | "/readyz") => {
            return text(405, "method not allowed");
        }
        _ => return text(404, "not found"),
    }
    if app.client_auth && !peer.authenticated {
        app.metrics.request("invalid");
        app.metrics.verdict("error", "unauthenticated");
        return text(
            403,
            "reviews are answered only over a connection that presents a client certificate \
             signed by the webhook's --client-ca-file",
        );
    }
    let started = Instant::now();
    let deadline = started + {
        let own = app.limits.timeout;
        // Leave the API server's client a tenth of its timeout to read the answer.
        url_timeout(req.uri()).map_or(own, |t| own.min(t.mul_f64(0.9)))
    };
    let body = Limited::new(req.into_body(), app.limits.max_body).collect();
    let body = match tokio::time::timeout_at(deadline.into(), body).await {
        Ok(Ok(b)) => b.to_bytes(),
        Ok(Err(_)) => {
            app.metrics.request("invalid");
            app.metrics.verdict("error", "body");
            return text(
                413,
                &format!(
                    "the body could not be read or is larger than {} bytes",
                    app.limits.max_body
                ),
            );
        }
        Err(_) => {
            app.metrics.request("invalid");
            app.metrics.verdict("error", "body-timeout");
            return text(408, "the body did not arrive within the review's deadline");
        }
    };
    reading();
    let response = validate(&app, body, deadline).await;
    app.metrics.latency(started.elapsed());
    response
}

fn readiness(app: &App) -> Response {
    let health = app.graph.health();
    if !health.synced {
        return text(503, "the graph has not synced yet");
    }
    if health.ready(app.limits.lost_watch_grace) {
        return text(200, "ok");
    }
    let lost: Vec<String> = health
        .lost
        .iter()
        .filter(|(_, d)| *d > app.limits.lost_watch_grace)
        .map(|(r, d)| format!("{} ({})", super::clip(r), crate::util::human_duration(*d)))
        .collect();
    text(
        503,
        &format!(
            "the watch of {} is lost: writes naming owners there are admitted unjudged until \
             it resumes",
            lost.join(", ")
        ),
    )
}

/// Why a write that adds references was admitted without a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unjudged {
    NotSynced,
    Overloaded,
    Timeout,
}

impl Unjudged {
    fn verdict(self) -> &'static str {
        match self {
            Unjudged::NotSynced => "not-synced",
            Unjudged::Overloaded => "overloaded",
            Unjudged::Timeout => "timeout",
        }
    }

    /// The warning of warn mode.
    fn warning(self, app: &App) -> String {
        let why = match self {
            Unjudged::NotSynced => "its graph of the cluster has not synced yet".to_owned(),
            Unjudged::Overloaded => "it is checking as many writes as it may at once".to_owned(),
            Unjudged::Timeout => format!(
                "it could not judge them within its deadline ({})",
                crate::util::human_duration(app.limits.timeout)
            ),
        };
        not_judged(&why)
    }
}

fn not_judged(why: &str) -> String {
    format!(
        "kubectl-gc admit did not judge the ownerReferences this write adds: {why}; the write \
         is admitted unchecked."
    )
}

/// A review that was read: what the answer needs, and the references to judge.
struct Read {
    version: &'static str,
    uid: String,
    added: Arc<[usize]>,
}

/// Parses and triages a review; `Err` with the answer when no check is needed.
fn read(app: &App, body: &[u8]) -> Result<Read, Box<Response>> {
    let review = match review::parse(body) {
        Ok(r) => r,
        Err(why) => {
            app.metrics.request("invalid");
            app.metrics.verdict("error", "body");
            return Err(Box::new(text(400, &why)));
        }
    };
    let version = review.api_version;
    app.metrics
        .request(version.rsplit('/').next().unwrap_or(version));
    let uid = review.request.uid.clone().into_owned();
    match decide::triage(&review.request, &app.policy) {
        Ok(added) => Ok(Read {
            version,
            uid,
            added: added.into(),
        }),
        Err(skip) => {
            app.metrics.verdict("skipped", skip.label());
            Err(Box::new(ok(version, &uid, &Answer::allow())))
        }
    }
}

/// Answers one review body by `deadline`.
pub async fn validate(app: &Arc<App>, body: Bytes, deadline: Instant) -> Response {
    if body.len() > app.limits.large_body {
        return validate_large(app, body, deadline).await;
    }
    let read = match read(app, &body) {
        Ok(r) => r,
        Err(answer) => return *answer,
    };
    if !app.graph.is_synced() {
        return unjudged(app, &read, Unjudged::NotSynced, "");
    }
    let Ok(permit) = app.permits.checks.clone().try_acquire_owned() else {
        return unjudged(app, &read, Unjudged::Overloaded, "");
    };
    let checked = look(app, &body, &read.added, permit, deadline).await;
    conclude(app, read, body, checked, deadline).await
}

/// A large review: parsed, triaged and given its first look on a thread, under a large
/// permit (waited for until the deadline: the few large reviews queue among themselves).
async fn validate_large(app: &Arc<App>, body: Bytes, deadline: Instant) -> Response {
    let permit =
        tokio::time::timeout_at(deadline.into(), app.permits.large.clone().acquire_owned()).await;
    let Ok(Ok(permit)) = permit else {
        // Not even read: no uid to answer with. An error fails open (failurePolicy Ignore).
        app.metrics.verdict("overloaded", "large");
        return text(503, "too many large reviews at once; try again");
    };
    let (read_tx, read_rx) = oneshot::channel::<Result<Read, Box<Response>>>();
    let (tx, rx) = oneshot::channel();
    let (a, b, queued) = (app.clone(), body.clone(), Instant::now());
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let read = match read(&a, &b) {
            Ok(r) => r,
            Err(answer) => {
                let _ = read_tx.send(Err(answer));
                return;
            }
        };
        let added = read.added.clone();
        if read_tx.send(Ok(read)).is_err() || !a.graph.is_synced() {
            return;
        }
        let _ = tx.send(check_body(&a, &b, &added, queued, deadline));
    });
    let read = match tokio::time::timeout_at(deadline.into(), read_rx).await {
        Ok(Ok(Ok(read))) => read,
        Ok(Ok(Err(answer))) => return *answer,
        _ => {
            app.metrics.verdict("timeout", "large");
            return text(503, "the review could not be read within its deadline");
        }
    };
    if !app.graph.is_synced() {
        return unjudged(app, &read, Unjudged::NotSynced, "");
    }
    let checked = match tokio::time::timeout_at(deadline.into(), rx).await {
        Ok(Ok(c)) => c,
        _ => None,
    };
    conclude(app, read, body, checked, deadline).await
}

/// The check of a review body on the graph, asked for at `queued`; `None` past `deadline`.
fn check_body(
    app: &App,
    body: &[u8],
    added: &[usize],
    queued: Instant,
    deadline: Instant,
) -> Option<decide::Checked> {
    let review = review::parse(body).ok()?;
    decide::check(&app.graph, &review.request, added, Some(deadline), |read| {
        app.metrics
            .graph_wait(read.saturating_duration_since(queued))
    })
}

/// One look at the graph, on a thread, holding `permit` until it is done (even past the
/// deadline, so work in progress is always counted); `None` when it did not answer by
/// `deadline`.
async fn look(
    app: &Arc<App>,
    body: &Bytes,
    added: &Arc<[usize]>,
    permit: OwnedSemaphorePermit,
    deadline: Instant,
) -> Option<decide::Checked> {
    let (tx, rx) = oneshot::channel();
    let (a, b, added, queued) = (app.clone(), body.clone(), added.clone(), Instant::now());
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        if tx.is_closed() {
            return; // answered already (timed out)
        }
        let _ = tx.send(check_body(&a, &b, &added, queued, deadline));
    });
    tokio::time::timeout_at(deadline.into(), rx)
        .await
        .ok()?
        .ok()?
}

/// How long an absent owner is given to reach the graph before the write is judged again.
const RECHECK_AFTER: Duration = Duration::from_millis(250);

/// The answer after the first look: a second look when it found an absence, then the verdict.
async fn conclude(
    app: &Arc<App>,
    read: Read,
    body: Bytes,
    mut checked: Option<decide::Checked>,
    deadline: Instant,
) -> Response {
    if checked.as_ref().is_some_and(|c| c.absence) {
        // The watch delivers an owner's creation a moment after the API server answered it:
        // judge an absence again once events in flight have had time to arrive. No permit is
        // held while waiting.
        let wait = RECHECK_AFTER.min(deadline.saturating_duration_since(Instant::now()) / 2);
        tokio::time::sleep(wait).await;
        // An absence not confirmed (no permit, or not in time) is no verdict: the write is
        // admitted, never warned or refused on the first look alone.
        let Ok(permit) = app.permits.rechecks.clone().try_acquire_owned() else {
            return unjudged(app, &read, Unjudged::Overloaded, "recheck");
        };
        checked = look(app, &body, &read.added, permit, deadline).await;
    }
    let Some(checked) = checked else {
        return unjudged(app, &read, Unjudged::Timeout, "");
    };
    if checked.not_monitored {
        app.metrics
            .verdict("skipped", decide::Skip::NotMonitored.label());
        return ok(read.version, &read.uid, &Answer::allow());
    }
    let verdict = match (checked.problems.is_empty(), app.policy.mode) {
        (true, _) if !checked.lost.is_empty() => "unknown",
        (true, _) if checked.unknown > 0 => "unknown",
        (true, _) => "allowed",
        (false, decide::Mode::Warn) => "warned",
        (false, decide::Mode::Deny) => "denied",
    };
    let reason = if checked.lost.is_empty() {
        ""
    } else {
        "lost-watch"
    };
    app.metrics.verdict(verdict, reason);
    let permission = match &app.authorizer {
        Some(a) if !checked.permission.is_empty() => {
            permission_warning(&body, &checked.permission, a.as_ref(), deadline).await
        }
        _ => None,
    };
    let mut answer = decide::answer(app.policy.mode, checked.problems);
    answer.warnings.extend(permission);
    if answer.allowed && app.policy.mode == decide::Mode::Warn && !checked.lost.is_empty() {
        let lost: Vec<String> = checked.lost.iter().map(|r| super::clip(r)).collect();
        answer.warnings.push(not_judged(&format!(
            "its watch of {} is lost, so what it holds of them may be stale",
            lost.join(", ")
        )));
    }
    ok(read.version, &read.uid, &answer)
}

/// The warning OwnerReferencesPermissionEnforcement's refusal draws (any mode: the plugin, not
/// this webhook, would refuse), within `deadline`; nothing when it cannot be told in time.
async fn permission_warning(
    body: &[u8],
    checks: &[crate::diagnose::permission::Check],
    authorizer: &dyn permission::Authorizer,
    deadline: Instant,
) -> Option<String> {
    let review = review::parse(body).ok()?;
    permission::warning(checks, &review.request, authorizer, deadline).await
}

/// Admitted without a verdict, counted; in warn mode with a warning that says so.
fn unjudged(app: &App, read: &Read, why: Unjudged, reason: &str) -> Response {
    app.metrics.verdict(why.verdict(), reason);
    let mut answer = Answer::allow();
    if app.policy.mode == decide::Mode::Warn {
        answer.warnings.push(why.warning(app));
    }
    ok(read.version, &read.uid, &answer)
}

fn ok(version: &str, uid: &str, answer: &Answer) -> Response {
    respond(
        200,
        "application/json",
        review::respond(version, uid, answer),
    )
}
