//! The deploy/ package on the real API server (v1.20.2): every base, with every component,
//! passes `kubectl apply --dry-run=server -k`; the binary runs with exactly the watch base's
//! ClusterRole; and the real GC's queue metrics the backlog alert reads are what the
//! controller manager exports.
//!
//! v1.20 serves every kind of the bases but one: PodDisruptionBudget is `policy/v1` from 1.21,
//! and a base alone is refused for that object only (checked below), so the bases go on with
//! the component `kubernetes-1.20` (`policy/v1beta1`). The components' custom kinds
//! (cert-manager.io/v1 Certificate and Issuer, monitoring.coreos.com/v1 ServiceMonitor and
//! PrometheusRule) are served by stand-in CRDs that keep any field: the API server checks
//! their group, version, kind, scope and namespace, not their schema.

use super::{Ctx, Watcher, apply, cm, env, namespace, owner};
use crate::testenv::{self, TestEnv};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

/// A scratch overlay of deploy/`base` with `components`, where `deploy/` is the repository's
/// (a link: kustomize takes no absolute paths). The directory lives until `env` is dropped.
fn overlay(env: &TestEnv, base: &str, components: &[&str]) -> String {
    let name = format!("overlay-{base}-{}", components.join("-"));
    let dir = env.dir.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("deploy");
    if !link.exists() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy");
        std::os::unix::fs::symlink(repo, &link).unwrap();
    }
    let components: Vec<String> = components
        .iter()
        .map(|c| format!("deploy/components/{c}"))
        .collect();
    let text = format!(
        "resources: [deploy/{base}]\ncomponents: {}\n",
        serde_json::to_string(&components).unwrap()
    );
    std::fs::write(dir.join("kustomization.yaml"), text).unwrap();
    dir.to_string_lossy().into_owned()
}

/// `kind.group/name` of every object `kubectl kustomize DIR` builds, as `kubectl apply` names
/// them.
fn built(env: &TestEnv, dir: &str) -> BTreeSet<String> {
    let text = env.kubectl(&["kustomize", dir]).expect("kubectl kustomize");
    let docs: Vec<Value> = serde_saphyr::from_str_multiple(&text).unwrap();
    docs.iter()
        .filter(|d| !d.is_null())
        .map(|d| {
            let kind = d["kind"].as_str().unwrap().to_lowercase();
            let group = d["apiVersion"].as_str().unwrap().rsplit_once('/');
            let name = d["metadata"]["name"].as_str().unwrap();
            match group {
                Some((g, _)) => format!("{kind}.{g}/{name}"),
                None => format!("{kind}/{name}"),
            }
        })
        .collect()
}

const STAND_INS: &[(&str, &str, &str)] = &[
    ("cert-manager.io", "Certificate", "certificates"),
    ("cert-manager.io", "Issuer", "issuers"),
    ("monitoring.coreos.com", "ServiceMonitor", "servicemonitors"),
    ("monitoring.coreos.com", "PrometheusRule", "prometheusrules"),
];

fn install_stand_in_crds(env: &TestEnv) {
    for (group, kind, plural) in STAND_INS {
        let crd = serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{plural}.{group}")},
            "spec": {
                "group": group,
                "scope": "Namespaced",
                "names": {"kind": kind, "plural": plural, "singular": kind.to_lowercase(),
                          "listKind": format!("{kind}List")},
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {
                    "openAPIV3Schema": {"type": "object",
                                        "x-kubernetes-preserve-unknown-fields": true}}}],
            },
        });
        apply(env, &crd);
        env.kubectl(&[
            "wait",
            "--for=condition=Established",
            "--timeout=30s",
            &format!("crd/{plural}.{group}"),
        ])
        .expect("the stand-in CRD is established");
    }
}

pub(super) fn dry_run(ctx: &Ctx) {
    let env = env(ctx);
    install_stand_in_crds(&env);
    // Namespaced objects are validated against their namespace, which a dry run does not
    // create: make it first.
    namespace(&env, "kubectl-gc");
    for (base, components) in [
        ("watch", &["kubernetes-1.20"][..]),
        ("watch", &["kubernetes-1.20", "monitoring"]),
        ("admit", &["kubernetes-1.20"]),
        ("admit", &["kubernetes-1.20", "cert-manager", "monitoring"]),
    ] {
        let dir = overlay(&env, base, components);
        let out = env
            .kubectl(&["apply", "--dry-run=server", "-k", &dir])
            .unwrap_or_else(|e| panic!("server-side dry run of {base} + {components:?}: {e}"));
        for object in built(&env, &dir) {
            // The namespace exists already (made above): `configured`.
            assert!(
                ["created", "configured"]
                    .iter()
                    .any(|how| out.contains(&format!("{object} {how} (server dry run)"))),
                "{object} not in: {out}"
            );
        }
    }
    // A base alone: everything but its policy/v1 PodDisruptionBudget is served by 1.20.
    for base in ["watch", "admit"] {
        let dir = overlay(&env, base, &[]);
        let err = env
            .kubectl(&["apply", "--dry-run=server", "-k", &dir])
            .expect_err("1.20 serves no policy/v1");
        assert!(
            err.contains("PodDisruptionBudget") && err.contains("policy/v1"),
            "{err}"
        );
        assert_eq!(err.matches("no matches for kind").count(), 1, "{err}");
    }
    // And nothing was created.
    assert!(
        !crate::probe::exists(&env, &["clusterrole", "kubectl-gc-watch"]),
        "a dry run created the ClusterRole"
    );
}

pub(super) fn service_account_watch(ctx: &Ctx) {
    let env = env(ctx);
    let dir = overlay(&env, "watch", &["kubernetes-1.20"]);
    env.kubectl(&["apply", "-k", &dir])
        .expect("apply the package");
    let sa = "system:serviceaccount:kubectl-gc:kubectl-gc-watch";
    // Read-only: no write verb anywhere, and no GET of a Secret.
    for verb in ["create", "update", "patch", "delete", "deletecollection"] {
        assert!(
            !crate::probe::can_i(&env, &[verb, "configmaps", "-A", "--as", sa]),
            "the ServiceAccount can {verb} configmaps"
        );
    }
    assert!(
        !crate::probe::can_i(&env, &["get", "secrets", "-A", "--as", sa]),
        "the ServiceAccount can GET secrets"
    );
    // The oracle can say yes: it lists what it watches.
    assert!(crate::probe::can_i(
        &env,
        &["list", "configmaps", "-A", "--as", sa]
    ));
    // A token for it (TokenRequest, served by v1.20), and a kubeconfig with only that token.
    let token = env
        .kubectl(&["create", "token", "kubectl-gc-watch", "-n", "kubectl-gc"])
        .expect("a token for the ServiceAccount");
    let kubeconfig = env.write_kubeconfig(
        "sa.kubeconfig",
        &format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: t\n  cluster:\n    server: {}\n    insecure-skip-tls-verify: true\nusers:\n- name: sa\n  user:\n    token: {}\ncontexts:\n- name: sa\n  context: {{cluster: t, user: sa}}\ncurrent-context: sa\n",
            env.server,
            token.trim()
        ),
    );
    let w = Watcher::start(&kubeconfig, env.dir.join("watch-sa.stderr"));
    let deadline = Instant::now() + Duration::from_secs(60);
    while testenv::http_get(&format!("{}/readyz", w.metrics)).is_err() {
        assert!(
            Instant::now() < deadline,
            "watch with the ServiceAccount not ready in 60 s:\n{}",
            w.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // A change is seen through the ServiceAccount's watches too.
    namespace(&env, "wa");
    apply(
        &env,
        &cm(
            "wa",
            "sa-sees-this",
            serde_json::json!([owner("ghost", "00000000-0000-4000-8000-00000000abcd")]),
        ),
    );
    w.wait_for(
        Instant::now() - Duration::from_secs(2),
        Duration::from_secs(10),
        "GC001 via the SA",
        |l| l.name() == "sa-sees-this",
    );
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(w.metric("kubectl_gc_watch_unreadable_resources"), 0.0);
    let stderr = w.stderr();
    assert!(
        !stderr.contains("forbidden") && !stderr.contains("cannot list"),
        "forbidden resources with the package's ClusterRole:\n{stderr}"
    );
}

/// KubectlGcGarbageCollectorBacklog reads `workqueue_depth{name=~"garbage_collector_.*"}`: the
/// real controller manager exports the depth of each of the GC's three queues under that name.
pub(super) fn gc_queue_metrics(ctx: &Ctx) {
    let env = env(ctx);
    let url = env.gc_url.clone().expect("the suite runs the GC");
    let rules = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("deploy/components/monitoring/kubectl-gc.rules.yaml"),
    )
    .unwrap();
    assert!(rules.contains(r#"workqueue_depth{name=~"garbage_collector_.*"}"#));
    let metrics = testenv::http_get(&format!("{url}/metrics")).expect("GET /metrics");
    for queue in [
        "garbage_collector_attempt_to_delete",
        "garbage_collector_attempt_to_orphan",
        "garbage_collector_graph_changes",
    ] {
        let series = format!("workqueue_depth{{name=\"{queue}\"}} ");
        assert!(
            metrics.lines().any(|l| l.starts_with(&series)),
            "the controller manager exports no {series}"
        );
    }
}
