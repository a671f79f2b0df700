//! The in-cluster package (`deploy/`) and the GitHub Action (`action.yml`): every YAML parses,
//! the alerting rules and the dashboard query only metrics the code exports (a rename breaks
//! this test, not a dashboard in production) or the real GC's own (checked against the real
//! controller manager in tests/live/watch.rs), the PrometheusRule holds the rule file's groups,
//! the RBAC can only list and watch, and the webhook configuration is what `admit
//! --print-config` prints. `kubectl kustomize` builds every base with every component
//! (`kustomize` module). `promtool check rules` and `promtool test rules` run in `.ci/run`.

mod kustomize;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn yaml_docs(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let docs: Vec<Value> = serde_saphyr::from_str_multiple(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    docs.into_iter().filter(|d| !d.is_null()).collect()
}

/// Every YAML document under deploy/, with its file.
fn deploy_docs() -> Vec<(PathBuf, Value)> {
    let mut paths = Vec::new();
    files(&root().join("deploy"), &mut paths);
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            for d in yaml_docs(&p) {
                out.push((p.clone(), d));
            }
        }
    }
    out
}

/// The sample names the exporters of `watch` and `admit` write, from their `# TYPE` lines:
/// a counter's `_total`, a histogram's `_bucket`/`_sum`/`_count`, an info's `_info`.
/// A family with labels is written once it has a series: the watch's metrics are fed the
/// transitions of the incident snapshot's evaluation, the webhook's a request and a verdict.
fn exported() -> BTreeSet<String> {
    use kubectl_gc::watch::{Cause, Engine};
    let (snap, _) = kubectl_gc::snapshot::format::read_file_checked(
        &root().join("examples/redis-operator-incident.json"),
    )
    .unwrap();
    let mut engine = Engine::new(snap, None);
    let watch = kubectl_gc::watch::metrics::Metrics::new();
    let transitions = engine.evaluate_all(Cause::Initial);
    assert!(!transitions.is_empty());
    for t in &transitions {
        watch.transition(t, None);
    }
    watch.event("applied");
    let admit = kubectl_gc::admit::metrics::Metrics::new();
    admit.request("v1");
    admit.verdict("allowed", "");
    let text = format!("{}{}", watch.encode(), admit.encode());
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("# TYPE ") else {
            continue;
        };
        let (name, kind) = rest.split_once(' ').unwrap();
        match kind {
            "counter" => {
                out.insert(format!("{name}_total"));
            }
            "histogram" => {
                // The family's own name too, as prose (an annotation) calls it.
                out.insert(name.to_owned());
                for s in ["_bucket", "_sum", "_count"] {
                    out.insert(format!("{name}{s}"));
                }
            }
            "info" => {
                out.insert(format!("{name}_info"));
            }
            _ => {
                out.insert(name.to_owned());
            }
        }
    }
    out
}

/// The `kubectl_gc_…` metric names a PromQL expression (or a series selector) uses.
fn metric_names(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = expr;
    while let Some(i) = rest.find("kubectl_gc_") {
        let before = rest[..i].chars().last();
        let name: String = rest[i..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // Not a metric when it is part of a longer word or a quoted text (an annotation's
        // prose names metrics too, and is checked the same way).
        if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            out.push(name.clone());
        }
        rest = &rest[i + name.len()..];
    }
    out
}

const MONITORING: &str = "deploy/components/monitoring";

/// Metrics of Kubernetes itself the rules and the dashboard read: kube-controller-manager's
/// work-queue depth (the GC's queues are `garbage_collector_*`).
const UPSTREAM_METRICS: &[&str] = &["workqueue_depth"];

fn upstream_metric_names(expr: &str) -> Vec<&'static str> {
    UPSTREAM_METRICS
        .iter()
        .copied()
        .filter(|m| expr.contains(&format!("{m}{{")))
        .collect()
}

fn rule_file() -> Value {
    yaml_docs(&root().join(MONITORING).join("kubectl-gc.rules.yaml")).remove(0)
}

#[test]
fn every_yaml_under_deploy_parses_and_every_manifest_names_itself() {
    let docs = deploy_docs();
    assert!(docs.len() >= 20, "only {} documents", docs.len());
    for (path, d) in &docs {
        // The rule file, its tests, the workflow and the kustomizations are no Kubernetes
        // objects.
        let name = path.file_name().unwrap().to_string_lossy();
        if name.starts_with("kubectl-gc.rules")
            || name == "kustomization.yaml"
            || path.starts_with(root().join("deploy/ci"))
        {
            continue;
        }
        assert!(
            d["apiVersion"].is_string()
                && d["kind"].is_string()
                && d["metadata"]["name"].is_string(),
            "{}: {d}",
            path.display()
        );
    }
    let kinds: BTreeSet<&str> = docs
        .iter()
        .filter_map(|(_, d)| d["kind"].as_str())
        .collect();
    for k in [
        "Deployment",
        "Service",
        "ClusterRole",
        "ValidatingWebhookConfiguration",
        "Certificate",
        "ServiceMonitor",
        "PrometheusRule",
        "PodDisruptionBudget",
        "NetworkPolicy",
        "ResourceQuota",
    ] {
        assert!(kinds.contains(k), "no {k} under deploy/: {kinds:?}");
    }
}

#[test]
fn rules_tests_and_dashboard_use_only_exported_metrics() {
    let exported = exported();
    assert!(exported.contains("kubectl_gc_build_info"), "{exported:?}");
    assert!(exported.contains("kubectl_gc_admit_latency_seconds_bucket"));
    let mut used = Vec::new();
    for group in rule_file()["groups"].as_array().unwrap() {
        for rule in group["rules"].as_array().unwrap() {
            let expr = rule["expr"].as_str().unwrap();
            let names = metric_names(expr);
            assert!(
                !names.is_empty() || !upstream_metric_names(expr).is_empty(),
                "{expr} reads no kubectl-gc metric, nor one of {UPSTREAM_METRICS:?}"
            );
            used.extend(names);
            for a in rule["annotations"].as_object().into_iter().flatten() {
                used.extend(metric_names(a.1.as_str().unwrap()));
            }
        }
    }
    let tests = yaml_docs(&root().join(MONITORING).join("kubectl-gc.rules.test.yaml")).remove(0);
    for t in tests["tests"].as_array().unwrap() {
        for s in t["input_series"].as_array().unwrap() {
            used.extend(metric_names(s["series"].as_str().unwrap()));
        }
    }
    let dashboard: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join(MONITORING).join("dashboard.json")).unwrap(),
    )
    .unwrap();
    let panels = dashboard["panels"].as_array().unwrap();
    assert!(panels.len() >= 8);
    for p in panels {
        for t in p["targets"].as_array().unwrap() {
            let expr = t["expr"].as_str().unwrap();
            let names = metric_names(expr);
            assert!(
                !names.is_empty() || !upstream_metric_names(expr).is_empty(),
                "{}: {expr}",
                p["title"]
            );
            used.extend(names);
        }
    }
    let unknown: BTreeSet<&String> = used.iter().filter(|n| !exported.contains(*n)).collect();
    assert!(
        unknown.is_empty(),
        "not exported by watch or admit: {unknown:?}\nexported: {exported:?}"
    );
    // And the dashboard shows every family at least once.
    let shown: BTreeSet<String> = panels
        .iter()
        .flat_map(|p| p["targets"].as_array().unwrap())
        .flat_map(|t| metric_names(t["expr"].as_str().unwrap()))
        .collect();
    for family in [
        "kubectl_gc_watch_findings",
        "kubectl_gc_watch_ready",
        "kubectl_gc_admit_synced",
        "kubectl_gc_admit_verdicts_total",
        "kubectl_gc_build_info",
    ] {
        assert!(
            shown.contains(family),
            "the dashboard does not show {family}"
        );
    }
    assert!(
        panels.iter().any(|p| p["targets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["expr"].as_str().unwrap().contains("garbage_collector_"))),
        "the dashboard does not show the real GC's queues"
    );
    // Two watch replicas export the same findings: what the findings panels and alerts show is
    // one replica's count, never the sum of both.
    let rules = rule_file();
    let findings = panels
        .iter()
        .flat_map(|p| p["targets"].as_array().unwrap())
        .map(|t| t["expr"].as_str().unwrap())
        .chain(
            rules["groups"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|g| g["rules"].as_array().unwrap())
                .map(|r| r["expr"].as_str().unwrap()),
        )
        .filter(|e| e.contains("kubectl_gc_watch_findings"));
    for expr in findings {
        assert!(
            expr.starts_with("max by (") && expr.contains(", instance) (kubectl_gc_watch_findings"),
            "counts both replicas: {expr}"
        );
    }
}

#[test]
fn the_prometheus_rule_holds_the_rule_files_groups() {
    let rule = deploy_docs()
        .into_iter()
        .find(|(_, d)| d["kind"] == "PrometheusRule")
        .unwrap()
        .1;
    assert_eq!(rule["spec"]["groups"], rule_file()["groups"]);
    let alerts: BTreeSet<&str> = rule["spec"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_array().unwrap())
        .filter_map(|r| r["alert"].as_str())
        .collect();
    for a in [
        "KubectlGcDeletionNow",
        "KubectlGcWatchNotSynced",
        "KubectlGcAdmitNotSynced",
        "KubectlGcAdmitErrors",
        "KubectlGcAdmitSlow",
        "KubectlGcGarbageCollectorBacklog",
    ] {
        assert!(alerts.contains(a), "{a} missing: {alerts:?}");
    }
    // kube-prometheus-stack's Prometheus selects rules and monitors by `release`.
    for (path, d) in deploy_docs() {
        if d["kind"] == "PrometheusRule" || d["kind"] == "ServiceMonitor" {
            assert_eq!(
                d["metadata"]["labels"]["release"],
                "kube-prometheus-stack",
                "{}: {}",
                path.display(),
                d["metadata"]["name"]
            );
        }
    }
}

#[test]
fn rbac_lists_and_watches_only_or_asks_access_reviews_and_service_monitors_honour_labels() {
    for (path, d) in deploy_docs() {
        if d["kind"] == "ClusterRole" || d["kind"] == "Role" {
            for rule in d["rules"].as_array().unwrap() {
                let verbs: BTreeSet<&str> = rule["verbs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                // The one exception: a SubjectAccessReview (`admit --check-permissions`, the
                // permissions component) is a question, stored nowhere.
                let asks = rule["resources"] == serde_json::json!(["subjectaccessreviews"])
                    && rule["apiGroups"] == serde_json::json!(["authorization.k8s.io"]);
                let allowed = if asks {
                    BTreeSet::from(["create"])
                } else {
                    BTreeSet::from(["list", "watch"])
                };
                assert_eq!(verbs, allowed, "{}: {rule}", path.display());
            }
        }
        if d["kind"] == "ServiceMonitor" {
            for e in d["spec"]["endpoints"].as_array().unwrap() {
                // kubectl_gc_watch_findings' own `namespace` label survives the scrape.
                assert_eq!(e["honorLabels"], true, "{}: {e}", path.display());
            }
        }
    }
}

#[test]
fn the_webhook_configuration_is_what_admit_prints() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args([
            "admit",
            "--print-config",
            "--url",
            "https://x.example:8443/validate",
            "--release",
            "1.20",
            "--ca-file",
        ])
        .arg(root().join("examples/webhook-ca.pem"))
        .env("KUBECONFIG", "/nonexistent")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_saphyr::from_str(&String::from_utf8(out.stdout).unwrap()).unwrap();
    let built = kustomize::build_dir(&root().join("deploy/admit"));
    let deployed = kustomize::one(&built, "ValidatingWebhookConfiguration", "kubectl-gc-admit");
    let (printed, deployed) = (
        printed["webhooks"].as_array().unwrap(),
        deployed["webhooks"].as_array().unwrap(),
    );
    assert_eq!(printed.len(), deployed.len());
    // Every field but where the API server finds the webhook: the package has the Service and
    // no CA (cert-manager or the overlay puts it in).
    for (p, d) in printed.iter().zip(deployed) {
        let strip = |w: &Value| {
            let mut w = w.clone();
            w.as_object_mut().unwrap().remove("clientConfig");
            w
        };
        assert_eq!(
            strip(p),
            strip(d),
            "deploy/admit/webhook.yaml differs from `admit --print-config`: copy the printed \
             webhook's fields into it"
        );
        assert_eq!(
            d["clientConfig"],
            serde_json::json!({"service": {
                "namespace": "kubectl-gc", "name": "kubectl-gc-admit",
                "path": "/validate", "port": 443,
            }})
        );
    }
}

#[test]
fn the_action_downloads_this_release() {
    let action = yaml_docs(&root().join("action.yml")).remove(0);
    assert_eq!(action["runs"]["using"], "composite");
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(action["inputs"]["version"]["default"], version);
    let workflow = yaml_docs(&root().join("deploy/ci/check-apply.yml")).remove(0);
    let uses: Vec<&str> = workflow["jobs"]["gc-check-apply"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["uses"].as_str())
        .collect();
    assert!(
        uses.contains(&format!("kubectl-gc/kubectl-gc@v{version}").as_str()),
        "{uses:?}"
    );
    // actions/checkout's current major (v7, 2026-06).
    assert!(uses.contains(&"actions/checkout@v7"), "{uses:?}");
    // The archive name the action builds is one the release script writes (krew's too).
    let krew = std::fs::read_to_string(root().join("krew-manifest.yaml")).unwrap();
    assert!(krew.contains(&format!(
        "kubectl-gc_v{version}_x86_64-unknown-linux-musl.tar.gz"
    )));
    let download = action["runs"]["steps"][0]["run"].as_str().unwrap();
    assert!(download.contains("archive=\"kubectl-gc_v${KGC_VERSION}_${target}.tar.gz\""));
    assert!(download.contains("SHA256SUMS"));
}
