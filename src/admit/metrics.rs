//! Prometheus metrics of `kubectl gc admit`, served on `/metrics` beside `/validate`.
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `kubectl_gc_admit_requests_total` | counter: reviews answered, and bodies refused | `version` |
//! | `kubectl_gc_admit_verdicts_total` | counter: what was answered | `verdict`, `reason` |
//! | `kubectl_gc_admit_latency_seconds` | histogram: body read → answer written | |
//! | `kubectl_gc_admit_graph_wait_seconds` | histogram: how long a check waited for the watch loop (the graph's lag behind requests) | |
//! | `kubectl_gc_admit_synced` | gauge: 1 once the graph has synced | |
//!
//! `verdict` is `allowed` (checked, nothing found), `warned`, `denied`, `skipped` (admitted
//! at once; `reason` says why), `not-synced`, `timeout` (admitted: the graph did not answer in
//! time), `unknown` (admitted: the graph cannot judge a reference) or `error` (a body that is
//! not a review).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
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

/// The metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    verdicts: Family<VerdictLabels, Counter>,
    latency: Histogram,
    graph_wait: Histogram,
    synced: Gauge,
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
            "Time a check waited for the watch loop to read the graph",
            graph_wait.clone(),
        );
        registry.register("synced", "1 once the graph has synced", synced.clone());
        Metrics {
            registry: root,
            requests,
            verdicts,
            latency,
            graph_wait,
            synced,
        }
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
