//! The webhook's HTTPS server: `POST /validate`, `/healthz` (ready once the graph has synced),
//! `/livez`, `/metrics`.
//!
//! Every review is answered within its deadline, whatever the graph is doing: the fast paths
//! need no graph; a check waits for the watch loop at most until the deadline (the shorter of
//! `--timeout` and most of the `timeout` the API server puts in the URL), then the write is
//! admitted and counted. Bodies are bounded in size, connections in number, checks in flight
//! by a semaphore (a check beyond it is admitted unchecked, counted as `overloaded`). A verdict
//! that an owner is absent, or has another UID, is checked again 250 ms later (within the
//! deadline): a controller that creates an object and then its dependents writes the second
//! before the watch has delivered the first to the graph, and must not be warned, let alone
//! refused, for it.
//!
//! The certificate and key are read again when either file changes (checked at each TLS
//! handshake: a stat of two files), so a rotated certificate is served without a restart; a
//! pair that does not load leaves the previous one in service.

use super::decide::{self, Policy};
use super::metrics::Metrics;
use super::review::{self, Answer};
use crate::watch::run::Query;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::{Semaphore, mpsc, oneshot};

/// Bounds on what one request may cost.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest body read (an AdmissionReview holds the object twice on UPDATE).
    pub max_body: usize,
    /// The longest a review is answered in.
    pub timeout: Duration,
    /// Checks on the graph in flight at once.
    pub max_checks: usize,
    /// Connections served at once.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body: 8 << 20,
            timeout: Duration::from_secs(2),
            max_checks: 64,
            max_connections: 512,
        }
    }
}

/// What the handlers share.
pub struct App {
    /// Which writes are judged, and how.
    pub policy: Policy,
    /// Metrics.
    pub metrics: Arc<Metrics>,
    /// Set once the graph has synced.
    pub synced: Arc<AtomicBool>,
    /// The watch loop's queries.
    pub queries: mpsc::Sender<Query>,
    /// Bounds.
    pub limits: Limits,
    checks: Semaphore,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("policy", &self.policy)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl App {
    /// The shared state of a server.
    pub fn new(
        policy: Policy,
        metrics: Arc<Metrics>,
        synced: Arc<AtomicBool>,
        queries: mpsc::Sender<Query>,
        limits: Limits,
    ) -> App {
        App {
            policy,
            metrics,
            synced,
            queries,
            checks: Semaphore::new(limits.max_checks.max(1)),
            limits,
        }
    }

    fn is_synced(&self) -> bool {
        self.synced.load(Ordering::Acquire)
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

/// Answers one HTTP request.
pub async fn handle(app: Arc<App>, req: http::Request<hyper::body::Incoming>) -> Response {
    let path = req.uri().path().to_owned();
    match (req.method(), path.as_str()) {
        (&http::Method::POST, "/validate") => {}
        (&http::Method::GET | &http::Method::HEAD, "/metrics") => {
            return respond(
                200,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
                app.metrics.encode(),
            );
        }
        (&http::Method::GET | &http::Method::HEAD, "/livez") => return text(200, "ok"),
        (&http::Method::GET | &http::Method::HEAD, "/healthz" | "/readyz") => {
            return if app.is_synced() {
                text(200, "ok")
            } else {
                text(503, "the graph has not synced yet")
            };
        }
        (_, "/validate" | "/metrics" | "/livez" | "/healthz" | "/readyz") => {
            return text(405, "method not allowed");
        }
        _ => return text(404, "not found"),
    }
    let started = Instant::now();
    let deadline = {
        let own = app.limits.timeout;
        // Leave the API server's client a tenth of its timeout to read the answer.
        url_timeout(req.uri()).map_or(own, |t| own.min(t.mul_f64(0.9)))
    };
    let body = match Limited::new(req.into_body(), app.limits.max_body)
        .collect()
        .await
    {
        Ok(b) => b.to_bytes(),
        Err(_) => {
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
    };
    let response = validate(&app, body, started + deadline).await;
    app.metrics.latency(started.elapsed());
    response
}

/// Answers one review body by `deadline`.
pub async fn validate(app: &App, body: Bytes, deadline: Instant) -> Response {
    let (version, uid, added) = {
        let review = match review::parse(&body) {
            Ok(r) => r,
            Err(why) => {
                app.metrics.request("invalid");
                app.metrics.verdict("error", "body");
                return text(400, &why);
            }
        };
        let version = review.api_version;
        app.metrics
            .request(version.rsplit('/').next().unwrap_or(version));
        let uid = review.request.uid.clone().into_owned();
        let added = match decide::triage(&review.request, &app.policy) {
            Ok(added) => added,
            Err(skip) => {
                app.metrics.verdict("skipped", skip.label());
                return ok(version, &uid, &Answer::allow());
            }
        };
        if !app.is_synced() {
            app.metrics.verdict("not-synced", "");
            return ok(version, &uid, &Answer::allow());
        }
        (version, uid, added)
    };
    let Ok(_permit) = app.checks.try_acquire() else {
        app.metrics.verdict("overloaded", "");
        return ok(version, &uid, &Answer::allow());
    };
    let mut checked = ask(app, &body, &added, deadline).await;
    if checked.as_ref().is_some_and(|c| c.absence) {
        // The watch delivers an owner's creation a moment after the API server answered it:
        // judge an absence again once events in flight have had time to arrive.
        let wait = RECHECK_AFTER.min(deadline.saturating_duration_since(Instant::now()) / 2);
        tokio::time::sleep(wait).await;
        // An absence not confirmed in time is no verdict: the write is admitted as on a
        // timeout, never warned or refused on the first look alone.
        checked = ask(app, &body, &added, deadline).await;
    }
    let Some(checked) = checked else {
        app.metrics.verdict("timeout", "");
        return ok(version, &uid, &Answer::allow());
    };
    if checked.not_monitored {
        app.metrics
            .verdict("skipped", decide::Skip::NotMonitored.label());
        return ok(version, &uid, &Answer::allow());
    }
    let verdict = match (checked.problems.is_empty(), app.policy.mode) {
        (true, _) if checked.unknown > 0 => "unknown",
        (true, _) => "allowed",
        (false, decide::Mode::Warn) => "warned",
        (false, decide::Mode::Deny) => "denied",
    };
    app.metrics.verdict(verdict, "");
    ok(
        version,
        &uid,
        &decide::answer(app.policy.mode, checked.problems),
    )
}

/// How long an absent owner is given to reach the graph before the write is judged again.
const RECHECK_AFTER: Duration = Duration::from_millis(250);

/// Runs the check on the watch loop's graph; `None` when it did not answer by `deadline`.
async fn ask(
    app: &App,
    body: &Bytes,
    added: &[usize],
    deadline: Instant,
) -> Option<decide::Checked> {
    let (tx, rx) = oneshot::channel();
    let queued = Instant::now();
    let metrics = app.metrics.clone();
    let (body, added) = (body.clone(), added.to_vec());
    // The watch loop owns the graph: the check runs there, on the body read again (a borrowed
    // parse cannot cross into the loop's task; a review parses in microseconds).
    let query: Query = Box::new(move |engine| {
        if tx.is_closed() {
            return; // answered already (timed out)
        }
        metrics.graph_wait(queued.elapsed());
        let checked = review::parse(&body)
            .ok()
            .map(|r| decide::check(engine, &r.request, &added));
        let _ = tx.send(checked);
    });
    tokio::time::timeout_at(deadline.into(), app.queries.send(query))
        .await
        .ok()?
        .ok()?;
    tokio::time::timeout_at(deadline.into(), rx)
        .await
        .ok()?
        .ok()?
}

fn ok(version: &str, uid: &str, answer: &Answer) -> Response {
    respond(
        200,
        "application/json",
        review::respond(version, uid, answer),
    )
}

/// The serving certificate, read again when its files change.
#[derive(Debug)]
pub struct ReloadingCert {
    cert: PathBuf,
    key: PathBuf,
    current: RwLock<(Option<SystemTime>, Option<SystemTime>, Arc<CertifiedKey>)>,
}

fn modified(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// Reads a PEM certificate chain and private key; one line of cause on failure.
pub fn load_pair(cert: &Path, key: &Path) -> Result<Arc<CertifiedKey>, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| format!("cannot read {}: {e}", cert.display()))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{} is not a PEM certificate chain: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!("{} holds no certificate", cert.display()));
    }
    let key_der = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("{} is not a PEM private key: {e}", key.display()))?;
    let signing = rustls::crypto::ring::sign::any_supported_type(&key_der)
        .map_err(|e| format!("{} is not a usable private key: {e}", key.display()))?;
    let pair = CertifiedKey::new(chain, signing);
    // A rotation caught between its two writes pairs the new key with the old certificate.
    match pair.keys_match() {
        Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch)) => {
            Err(format!(
                "the private key in {} does not belong to the certificate in {}",
                key.display(),
                cert.display()
            ))
        }
        _ => Ok(Arc::new(pair)),
    }
}

impl ReloadingCert {
    /// The pair at these paths, read now.
    pub fn new(cert: PathBuf, key: PathBuf) -> Result<ReloadingCert, String> {
        let pair = load_pair(&cert, &key)?;
        let stamps = (modified(&cert), modified(&key));
        Ok(ReloadingCert {
            current: RwLock::new((stamps.0, stamps.1, pair)),
            cert,
            key,
        })
    }

    /// The pair to serve: read again if either file changed since it was read.
    pub fn get(&self) -> Option<Arc<CertifiedKey>> {
        let stamps = (modified(&self.cert), modified(&self.key));
        {
            let cur = self.current.read().ok()?;
            if (cur.0, cur.1) == stamps {
                return Some(cur.2.clone());
            }
        }
        let mut cur = self.current.write().ok()?;
        if let Ok(pair) = load_pair(&self.cert, &self.key) {
            *cur = (stamps.0, stamps.1, pair);
        }
        // A pair that does not load (caught half-written) leaves the previous one in service;
        // the next handshake tries again.
        Some(cur.2.clone())
    }
}

impl ResolvesServerCert for ReloadingCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        self.get()
    }
}

/// The TLS configuration serving `cert`.
pub fn tls_config(cert: Arc<ReloadingCert>) -> Result<Arc<rustls::ServerConfig>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let cfg = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup failed: {e}"))?
        .with_no_client_auth()
        .with_cert_resolver(cert);
    Ok(Arc::new(cfg))
}

/// Serves on `listener` until the task is aborted: HTTPS when `tls` is given, else plain
/// HTTP (benchmarks and tests on loopback only; the command always serves HTTPS).
pub async fn serve(
    listener: tokio::net::TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    app: Arc<App>,
) {
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    let connections = Arc::new(Semaphore::new(app.limits.max_connections.max(1)));
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of file descriptors and the like: back off rather than spin.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            continue; // dropped: the API server retries on another connection or ignores
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let acceptor = acceptor.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let service = hyper::service::service_fn(move |req| {
                let app = app.clone();
                async move { Ok::<_, std::convert::Infallible>(handle(app, req).await) }
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            // A client that never finishes its headers does not hold a connection for long.
            builder
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10));
            match acceptor {
                Some(acceptor) => {
                    let handshake =
                        tokio::time::timeout(Duration::from_secs(10), acceptor.accept(stream));
                    if let Ok(Ok(tls)) = handshake.await {
                        let io = hyper_util::rt::TokioIo::new(tls);
                        let _ = builder.serve_connection(io, service).await;
                    }
                }
                None => {
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let _ = builder.serve_connection(io, service).await;
                }
            }
        });
    }
}
