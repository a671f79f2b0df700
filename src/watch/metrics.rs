//! Prometheus metrics of `kubectl gc watch`, and the small HTTP server that serves them with
//! `/healthz` and `/readyz` (`--metrics-addr`).
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `kubectl_gc_watch_findings` | gauge: findings held now | `code`, `severity`, `namespace`, `when` |
//! | `kubectl_gc_watch_transitions_total` | counter | `transition`, `code`, `severity`, `when` |
//! | `kubectl_gc_watch_events_total` | counter: watch events and relists | `event` |
//! | `kubectl_gc_watch_lag_seconds` | histogram: event received → its transitions evaluated | |
//! | `kubectl_gc_watch_resync_age_seconds` | gauge: since the last successful discovery refresh | |
//! | `kubectl_gc_watch_objects` | gauge: objects held | |
//! | `kubectl_gc_watch_unreadable_resources` | gauge: monitored resources that cannot be listed | |
//! | `kubectl_gc_watch_ready` | gauge: 1 once the initial lists are in | |
//! | `kubectl_gc_build_info` | info: always 1 | `version`, `commit`, `rustc` |

use super::{Transition, TransitionKind, When};
use bytes::Bytes;
use http_body_util::Full;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Labels of the findings gauge.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct FindingLabels {
    /// `GC0NN`.
    pub code: String,
    /// Severity.
    pub severity: String,
    /// The object's namespace (`""`: cluster-scoped).
    pub namespace: String,
    /// now, restart, never, unknown, or `""` (the GC does nothing about it).
    pub when: String,
}

/// Labels of the transitions counter.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TransitionLabels {
    /// appeared, changed, resolved.
    pub transition: String,
    /// `GC0NN`.
    pub code: String,
    /// Severity (for `resolved`: as it was).
    pub severity: String,
    /// When the GC acts (`""` for resolved findings and for findings it does nothing about).
    pub when: String,
}

/// Labels of the events counter.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct EventLabels {
    /// `applied`, `deleted`, `relist`, `bookmark`.
    pub event: String,
}

/// The metrics, shared by the watch loop and the HTTP server.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    findings: Family<FindingLabels, Gauge>,
    transitions: Family<TransitionLabels, Counter>,
    events: Family<EventLabels, Counter>,
    lag: Histogram,
    resync_age: Gauge<f64, AtomicU64>,
    objects: Gauge,
    unreadable: Gauge,
    ready_gauge: Gauge,
    ready: AtomicBool,
}

/// Registers `kubectl_gc_build_info` (version, commit, compiler) at the top of `root`: the one
/// name both `watch` and `admit` serve, so a dashboard can tell which build runs.
pub fn register_build_info(root: &mut Registry) {
    root.register(
        "kubectl_gc_build",
        "The kubectl-gc build: version, git commit (empty when unknown) and compiler",
        prometheus_client::metrics::info::Info::new(crate::build_info::metric_labels()),
    );
}

fn when_label(w: Option<When>) -> String {
    w.map(When::as_str).unwrap_or("").to_owned()
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Registers every metric.
    pub fn new() -> Metrics {
        let mut root = Registry::default();
        register_build_info(&mut root);
        let registry = root.sub_registry_with_prefix("kubectl_gc_watch");
        let findings = Family::<FindingLabels, Gauge>::default();
        let transitions = Family::<TransitionLabels, Counter>::default();
        let events = Family::<EventLabels, Counter>::default();
        // 1 ms … ~16 s.
        let lag = Histogram::new(exponential_buckets(0.001, 2.0, 15));
        let resync_age = Gauge::<f64, AtomicU64>::default();
        let (objects, unreadable, ready_gauge) =
            (Gauge::default(), Gauge::default(), Gauge::default());
        registry.register(
            "findings",
            "Findings held now, by code, severity, namespace and when the GC acts",
            findings.clone(),
        );
        registry.register(
            "transitions",
            "Findings that appeared, changed severity or when the GC acts, or resolved",
            transitions.clone(),
        );
        registry.register(
            "events",
            "Watch events applied, and relists after 410 Gone",
            events.clone(),
        );
        registry.register(
            "lag_seconds",
            "Time from a watch event's arrival to the evaluation of what it changed",
            lag.clone(),
        );
        registry.register(
            "resync_age_seconds",
            "Time since the last successful discovery refresh (the GC's resync)",
            resync_age.clone(),
        );
        registry.register("objects", "Objects held", objects.clone());
        registry.register(
            "unreadable_resources",
            "Monitored resources that cannot be listed or watched (their verdicts are unknown)",
            unreadable.clone(),
        );
        registry.register(
            "ready",
            "1 once the initial lists are in",
            ready_gauge.clone(),
        );
        Metrics {
            registry: root,
            findings,
            transitions,
            events,
            lag,
            resync_age,
            objects,
            unreadable,
            ready_gauge,
            ready: AtomicBool::new(false),
        }
    }

    /// Accounts for one transition.
    pub fn transition(&self, t: &Transition, previous_when: Option<When>) {
        let f = &t.finding;
        let ns = f
            .object
            .as_ref()
            .map(|o| o.namespace.clone())
            .unwrap_or_default();
        let labels = |severity: crate::diagnose::Severity, when: Option<When>| FindingLabels {
            code: f.code.id().to_owned(),
            severity: severity.as_str().to_owned(),
            namespace: ns.clone(),
            when: when_label(when),
        };
        match t.kind {
            TransitionKind::Appeared => {
                self.findings
                    .get_or_create(&labels(f.severity, t.when))
                    .inc();
            }
            TransitionKind::Changed => {
                if let Some((sev, when)) = t.previous {
                    self.findings.get_or_create(&labels(sev, when)).dec();
                }
                self.findings
                    .get_or_create(&labels(f.severity, t.when))
                    .inc();
            }
            TransitionKind::Resolved => {
                self.findings
                    .get_or_create(&labels(f.severity, previous_when))
                    .dec();
            }
        }
        self.transitions
            .get_or_create(&TransitionLabels {
                transition: match t.kind {
                    TransitionKind::Appeared => "appeared",
                    TransitionKind::Changed => "changed",
                    TransitionKind::Resolved => "resolved",
                }
                .to_owned(),
                code: f.code.id().to_owned(),
                severity: f.severity.as_str().to_owned(),
                when: when_label(t.when),
            })
            .inc();
        if let Some(r) = t.received {
            self.lag.observe(r.elapsed().as_secs_f64());
        }
    }

    /// Counts a watch event (`applied`, `deleted`, `relist`, `bookmark`).
    pub fn event(&self, kind: &str) {
        self.events
            .get_or_create(&EventLabels {
                event: kind.to_owned(),
            })
            .inc();
    }

    /// Sets the gauges that are sampled rather than counted.
    pub fn sample(&self, objects: usize, unreadable: usize, resync_age_secs: f64) {
        self.objects.set(objects as i64);
        self.unreadable.set(unreadable as i64);
        self.resync_age.set(resync_age_secs);
    }

    /// The initial lists are in.
    pub fn set_ready(&self) {
        self.ready.store(true, Ordering::Relaxed);
        self.ready_gauge.set(1);
    }

    /// True once the initial lists are in.
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Relaxed)
    }

    /// The text exposition format.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        if prometheus_client::encoding::text::encode(&mut out, &self.registry).is_err() {
            out.clear();
        }
        out
    }
}

fn respond(status: u16, content_type: &str, body: String) -> http::Response<Full<Bytes>> {
    http::Response::builder()
        .status(status)
        .header(http::header::CONTENT_TYPE, content_type)
        .body(Full::new(Bytes::from(body)))
        .unwrap_or_else(|_| http::Response::new(Full::new(Bytes::new())))
}

/// Answers one request: `/metrics`, `/healthz` (the process is alive), `/readyz` (the initial
/// lists are in).
pub fn answer(metrics: &Metrics, method: &http::Method, path: &str) -> http::Response<Full<Bytes>> {
    if method != http::Method::GET && method != http::Method::HEAD {
        return respond(
            405,
            "text/plain; charset=utf-8",
            "method not allowed\n".into(),
        );
    }
    match path {
        "/metrics" => respond(
            200,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
            metrics.encode(),
        ),
        "/healthz" | "/livez" => respond(200, "text/plain; charset=utf-8", "ok\n".into()),
        "/readyz" if metrics.is_ready() => respond(200, "text/plain; charset=utf-8", "ok\n".into()),
        "/readyz" => respond(
            503,
            "text/plain; charset=utf-8",
            "initial lists not complete\n".into(),
        ),
        _ => respond(404, "text/plain; charset=utf-8", "not found\n".into()),
    }
}

/// Binds `addr` (so that a port in use is an error at start, not later) and serves the
/// metrics on it until the task is aborted.
pub async fn serve(
    addr: SocketAddr,
    metrics: Arc<Metrics>,
) -> std::io::Result<tokio::task::JoinHandle<()>> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    Ok(tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let metrics = metrics.clone();
            tokio::spawn(async move {
                let service =
                    hyper::service::service_fn(move |req: http::Request<hyper::body::Incoming>| {
                        let metrics = metrics.clone();
                        async move {
                            Ok::<_, std::convert::Infallible>(answer(
                                &metrics,
                                req.method(),
                                req.uri().path(),
                            ))
                        }
                    });
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(io, service)
                    .await;
            });
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_and_exposition() {
        let m = Metrics::new();
        let get = http::Method::GET;
        assert_eq!(answer(&m, &get, "/readyz").status(), 503);
        assert_eq!(answer(&m, &get, "/healthz").status(), 200);
        m.set_ready();
        assert_eq!(answer(&m, &get, "/readyz").status(), 200);
        assert_eq!(answer(&m, &get, "/nope").status(), 404);
        assert_eq!(answer(&m, &http::Method::POST, "/metrics").status(), 405);
        m.event("applied");
        m.sample(12, 1, 3.5);
        let text = m.encode();
        assert!(
            text.contains("kubectl_gc_watch_events_total{event=\"applied\"} 1"),
            "{text}"
        );
        assert!(text.contains("kubectl_gc_watch_objects 12"), "{text}");
        assert!(text.contains("kubectl_gc_watch_ready 1"), "{text}");
        let version = format!("version=\"{}\"", env!("CARGO_PKG_VERSION"));
        let info = text
            .lines()
            .find(|l| l.starts_with("kubectl_gc_build_info{"))
            .unwrap_or_else(|| panic!("no build info in {text}"));
        assert!(
            info.contains(&version) && info.contains("rustc=\"rustc ") && info.ends_with("} 1"),
            "{info}"
        );
        assert!(
            text.contains("kubectl_gc_watch_resync_age_seconds 3.5"),
            "{text}"
        );
    }
}
