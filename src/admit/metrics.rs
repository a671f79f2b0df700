//! Prometheus metrics of `kubectl gc admit`, served on `/metrics` beside `/validate`.
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `kubectl_gc_admit_requests_total` | counter: reviews answered, and bodies refused | `version` |
//! | `kubectl_gc_admit_verdicts_total` | counter: what was answered | `verdict`, `reason` |
//! | `kubectl_gc_admit_latency_seconds` | histogram: body read → answer written | |
//! | `kubectl_gc_admit_graph_wait_seconds` | histogram: how long a check waited for a thread and the graph's read lock | |
//! | `kubectl_gc_admit_synced` | gauge: 1 once the graph has synced | |
//! | `kubectl_gc_admit_graph_lost_watch_seconds` | gauge: how long each resource's watch has been lost (present while it is) | `resource` |
//! | `kubectl_gc_admit_connections` | gauge: connections held | |
//! | `kubectl_gc_admit_connections_shed_total` | counter: connections closed to make room for a new one | `phase` (`handshake`, `idle`, `slow-body`) |
//! | `kubectl_gc_admit_connections_refused_total` | counter: new connections refused (every place busy answering) | |
//! | `kubectl_gc_admit_certificate_reloads_total` | counter: serving certificate files read again after a change | `result` (`loaded`, `failed`) |
//! | `kubectl_gc_admit_certificate_reload_failing` | gauge: 1 while the files on disk do not load (the previous pair is served) | |
//!
//! `verdict` is `allowed` (checked, nothing found), `warned`, `denied`, `skipped` (admitted
//! at once; `reason` says why), `not-synced`, `timeout` (admitted: not judged in time),
//! `overloaded` (admitted unchecked: no permit for this kind of work; `reason` `recheck` or
//! `large`), `unknown` (admitted: the graph cannot judge a reference; `reason` `lost-watch`
//! when a lost watch made it so) or `error` (a body that is not a review; `reason` `body`,
//! `body-timeout`, `unauthenticated`).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

/// Labels of the requests counter.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// `v1`, `v1beta1`, or `invalid`.
    pub version: String,
}

/// Labels of the verdicts counter.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct VerdictLabels {
    /// See the module documentation.
    pub verdict: String,
    /// Why a write was skipped (`""` otherwise).
    pub reason: String,
}

/// Labels of one resource.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResourceLabels {
    /// `plural.group` (`plural` for the core group).
    pub resource: String,
}

/// Labels of the shed connections counter.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PhaseLabels {
    /// Where the connection was.
    pub phase: String,
}

/// Labels of the certificate reloads counter.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResultLabels {
    /// `loaded` or `failed`.
    pub result: String,
}

/// The metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    verdicts: Family<VerdictLabels, Counter>,
    latency: Histogram,
    graph_wait: Histogram,
    synced: Gauge,
    lost_watch: Family<ResourceLabels, Gauge<f64, AtomicU64>>,
    connections: Gauge,
    shed: Family<PhaseLabels, Counter>,
    refused: Counter,
    reloads: Family<ResultLabels, Counter>,
    reload_failing: Gauge,
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
        crate::watch::metrics::register_build_info(&mut root);
        let registry = root.sub_registry_with_prefix("kubectl_gc_admit");
        let requests = Family::<RequestLabels, Counter>::default();
        let verdicts = Family::<VerdictLabels, Counter>::default();
        // 50 µs … ~1.6 s: an answer is due within the webhook's timeout (seconds).
        let latency = Histogram::new(exponential_buckets(0.00005, 2.0, 16));
        let graph_wait = Histogram::new(exponential_buckets(0.00005, 2.0, 16));
        let synced = Gauge::default();
        registry.register(
            "requests",
            "AdmissionReview requests, by review version",
            requests.clone(),
        );
        registry.register(
            "verdicts",
            "Answers, by verdict and the reason a write was admitted at once",
            verdicts.clone(),
        );
        registry.register(
            "latency_seconds",
            "Time from a review's body read to its answer",
            latency.clone(),
        );
        registry.register(
            "graph_wait_seconds",
            "Time a check waited for a thread and the graph's read lock",
            graph_wait.clone(),
        );
        registry.register("synced", "1 once the graph has synced", synced.clone());
        let lost_watch = Family::<ResourceLabels, Gauge<f64, AtomicU64>>::default();
        registry.register(
            "graph_lost_watch_seconds",
            "How long each resource's watch has been lost; writes naming owners there are \
             admitted unjudged meanwhile",
            lost_watch.clone(),
        );
        let connections = Gauge::default();
        registry.register("connections", "Connections held", connections.clone());
        let shed = Family::<PhaseLabels, Counter>::default();
        registry.register(
            "connections_shed",
            "Connections closed to make room for a new one, by where they were",
            shed.clone(),
        );
        let refused = Counter::default();
        registry.register(
            "connections_refused",
            "New connections refused: every connection was busy answering",
            refused.clone(),
        );
        let reloads = Family::<ResultLabels, Counter>::default();
        registry.register(
            "certificate_reloads",
            "Serving certificate files read again after a change, by result",
            reloads.clone(),
        );
        let reload_failing = Gauge::default();
        registry.register(
            "certificate_reload_failing",
            "1 while the certificate files on disk do not load (the previous pair is served)",
            reload_failing.clone(),
        );
        Metrics {
            registry: root,
            requests,
            verdicts,
            latency,
            graph_wait,
            synced,
            lost_watch,
            connections,
            shed,
            refused,
            reloads,
            reload_failing,
        }
    }

    /// The graph's health now: which watches are lost, for how long.
    pub fn graph_health(&self, health: &super::graph::Health) {
        self.lost_watch.clear();
        for (resource, d) in &health.lost {
            self.lost_watch
                .get_or_create(&ResourceLabels {
                    resource: resource.clone(),
                })
                .set(d.as_secs_f64());
        }
    }

    /// Connections held now.
    pub fn connections(&self, n: usize) {
        self.connections.set(n as i64);
    }

    /// A connection was shed from `phase` to make room.
    pub fn connection_shed(&self, phase: &str) {
        self.shed
            .get_or_create(&PhaseLabels {
                phase: phase.to_owned(),
            })
            .inc();
    }

    /// A new connection was refused.
    pub fn connection_refused(&self) {
        self.refused.inc();
    }

    /// The certificate files were read again: `loaded`, or they did not load.
    pub fn certificate_reload(&self, loaded: bool) {
        let result = if loaded { "loaded" } else { "failed" };
        self.reloads
            .get_or_create(&ResultLabels {
                result: result.to_owned(),
            })
            .inc();
        self.certificate_failing(!loaded);
    }

    /// Whether the certificate files on disk fail to load.
    pub fn certificate_failing(&self, failing: bool) {
        self.reload_failing.set(i64::from(failing));
    }

    /// Counts a request of review `version`.
    pub fn request(&self, version: &str) {
        self.requests
            .get_or_create(&RequestLabels {
                version: version.to_owned(),
            })
            .inc();
    }

    /// Counts a verdict.
    pub fn verdict(&self, verdict: &str, reason: &str) {
        self.verdicts
            .get_or_create(&VerdictLabels {
                verdict: verdict.to_owned(),
                reason: reason.to_owned(),
            })
            .inc();
    }

    /// Records one answer's latency.
    pub fn latency(&self, d: Duration) {
        self.latency.observe(d.as_secs_f64());
    }

    /// Records how long a check waited for the graph.
    pub fn graph_wait(&self, d: Duration) {
        self.graph_wait.observe(d.as_secs_f64());
    }

    /// The graph has synced.
    pub fn set_synced(&self) {
        self.synced.set(1);
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
