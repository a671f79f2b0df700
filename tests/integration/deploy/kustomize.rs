//! `kubectl kustomize` of every base and component of `deploy/`, alone and in the overlays the
//! README shows: what each build holds is what the package promises (two spread replicas, a
//! PodDisruptionBudget, the priority class, readiness, the selectors that find the pods, the
//! certificate the Deployment mounts, the labels kube-prometheus-stack and Grafana select on,
//! what Kubernetes 1.20 serves). kubectl must be on PATH (as for the live tests).

use super::root;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

/// The objects `kubectl kustomize DIR` prints.
pub fn build_dir(dir: &Path) -> Vec<Value> {
    let out = Command::new("kubectl")
        .arg("kustomize")
        .arg(dir)
        .output()
        .unwrap_or_else(|e| panic!("kubectl kustomize (kubectl must be on PATH): {e}"));
    assert!(
        out.status.success(),
        "kubectl kustomize {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let docs: Vec<Value> =
        serde_saphyr::from_str_multiple(&String::from_utf8(out.stdout).unwrap()).unwrap();
    docs.into_iter().filter(|d| !d.is_null()).collect()
}

/// An overlay in a scratch directory, where `deploy/` is the repository's (a link: kustomize
/// takes no absolute paths), with `kustomization` as its kustomization.yaml and `files` beside
/// it; built.
pub fn build_overlay(kustomization: &str, files: &[(&str, &str)]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root().join("deploy"), dir.path().join("deploy")).unwrap();
    std::fs::write(dir.path().join("kustomization.yaml"), kustomization).unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    build_dir(dir.path())
}

/// `resources: [deploy/BASE]` with `components`.
fn base_with(base: &str, components: &[&str]) -> Vec<Value> {
    let components: Vec<String> = components
        .iter()
        .map(|c| format!("deploy/components/{c}"))
        .collect();
    build_overlay(
        &format!(
            "resources: [deploy/{base}]\ncomponents: {}\n",
            serde_json::to_string(&components).unwrap()
        ),
        &[],
    )
}

pub fn one<'a>(docs: &'a [Value], kind: &str, name: &str) -> &'a Value {
    let found: Vec<&Value> = docs
        .iter()
        .filter(|d| d["kind"] == kind && d["metadata"]["name"] == name)
        .collect();
    assert_eq!(found.len(), 1, "{kind}/{name} in {docs:#?}");
    found[0]
}

fn all<'a>(docs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    docs.iter().filter(|d| d["kind"] == kind).collect()
}

/// `selector` (matchLabels) selects objects with `labels`.
fn selects(selector: &Value, labels: &Value) -> bool {
    let selector = selector.get("matchLabels").unwrap_or(selector);
    let selector = selector.as_object().unwrap();
    !selector.is_empty() && selector.iter().all(|(k, v)| &labels[k] == v)
}

/// What each base holds, whatever is added to it.
fn check_base(base: &str, docs: &[Value]) {
    let app = format!("kubectl-gc-{base}");
    assert_eq!(one(docs, "Namespace", "kubectl-gc")["apiVersion"], "v1");
    for d in docs {
        let cluster_scoped = ["Namespace", "ClusterRole", "ClusterRoleBinding"]
            .contains(&d["kind"].as_str().unwrap())
            || d["kind"] == "ValidatingWebhookConfiguration";
        assert_eq!(
            d["metadata"]["namespace"].as_str(),
            (!cluster_scoped).then_some("kubectl-gc"),
            "{d}"
        );
    }
    let deployment = one(docs, "Deployment", &app);
    let spec = &deployment["spec"]["template"]["spec"];
    let pod_labels = &deployment["spec"]["template"]["metadata"]["labels"];
    assert_eq!(deployment["spec"]["replicas"], 2);
    assert!(selects(&deployment["spec"]["selector"], pod_labels));
    assert_eq!(spec["priorityClassName"], "system-cluster-critical");
    let spread: Vec<&Value> = spec["topologySpreadConstraints"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    for key in ["kubernetes.io/hostname", "topology.kubernetes.io/zone"] {
        let c = spread
            .iter()
            .find(|c| c["topologyKey"] == key)
            .unwrap_or_else(|| panic!("no spread over {key}"));
        assert!(selects(&c["labelSelector"], pod_labels));
    }
    let container = &spec["containers"][0];
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(container["image"], format!("kubectl-gc:{version}"));
    // admit's /healthz is 200 once its graph has synced; watch's readiness is /readyz (its
    // /healthz is liveness).
    let ready = if base == "admit" {
        "/healthz"
    } else {
        "/readyz"
    };
    assert_eq!(container["readinessProbe"]["httpGet"]["path"], ready);
    let pdb = one(docs, "PodDisruptionBudget", &app);
    assert_eq!(pdb["spec"]["minAvailable"], 1);
    assert!(selects(&pdb["spec"]["selector"], pod_labels));
    let service = one(docs, "Service", &app);
    assert!(selects(&service["spec"]["selector"], pod_labels));
    // The quota that lets system-cluster-critical pods run here holds both bases' replicas
    // and a surge of each.
    let quota = one(docs, "ResourceQuota", "kubectl-gc-critical-pods");
    assert_eq!(quota["spec"]["hard"]["pods"], "6");
}

#[test]
fn each_base_builds_alone_with_what_it_promises() {
    for base in ["watch", "admit"] {
        let docs = build_dir(&root().join("deploy").join(base));
        check_base(base, &docs);
        assert!(
            docs.iter().all(|d| d["apiVersion"] != "policy/v1beta1"),
            "the base is for current releases"
        );
    }
    let admit = build_dir(&root().join("deploy/admit"));
    let deployment = one(&admit, "Deployment", "kubectl-gc-admit");
    let pod = &deployment["spec"]["template"];
    // The webhook's own pods are never judged by it.
    assert_eq!(pod["metadata"]["labels"]["kubectl-gc.io/admit"], "skip");
    assert_eq!(
        pod["spec"]["volumes"][0]["secret"]["secretName"],
        "kubectl-gc-admit-tls"
    );
    // The NetworkPolicy covers the webhook's pods and opens only its port.
    let policy = one(&admit, "NetworkPolicy", "kubectl-gc-admit");
    assert!(selects(
        &policy["spec"]["podSelector"],
        &pod["metadata"]["labels"]
    ));
    assert_eq!(policy["spec"]["policyTypes"], json!(["Ingress"]));
    let ingress = policy["spec"]["ingress"].as_array().unwrap();
    assert_eq!(ingress.len(), 1);
    assert_eq!(
        ingress[0]["ports"],
        json!([{"port": "https", "protocol": "TCP"}])
    );
    let hook = one(&admit, "ValidatingWebhookConfiguration", "kubectl-gc-admit");
    let svc = &hook["webhooks"][0]["clientConfig"]["service"];
    let service = one(&admit, "Service", svc["name"].as_str().unwrap());
    assert_eq!(service["metadata"]["namespace"], svc["namespace"]);
    assert_eq!(service["spec"]["ports"][0]["port"], svc["port"]);
}

#[test]
fn the_namespace_is_the_same_in_both_bases() {
    let read =
        |b: &str| std::fs::read_to_string(root().join("deploy").join(b).join("namespace.yaml"));
    assert_eq!(read("watch").unwrap(), read("admit").unwrap());
}

#[test]
fn every_component_builds_on_the_bases() {
    for (base, components) in [
        ("watch", &["monitoring"][..]),
        ("watch", &["kubernetes-1.20"]),
        ("watch", &["monitoring", "kubernetes-1.20"]),
        ("admit", &["cert-manager"]),
        ("admit", &["monitoring"]),
        ("admit", &["cert-manager", "monitoring", "kubernetes-1.20"]),
        ("admit", &["permissions"]),
        ("admit", &["cert-manager", "permissions", "kubernetes-1.20"]),
    ] {
        let docs = base_with(base, components);
        check_base(base, &docs);
        for c in components {
            match *c {
                "monitoring" => check_monitoring(&docs),
                "cert-manager" => check_cert_manager(&docs),
                "permissions" => check_permissions(&docs),
                _ => check_release_1_20(&docs),
            }
        }
    }
}

fn check_monitoring(docs: &[Value]) {
    let dashboard = one(docs, "ConfigMap", "kubectl-gc-dashboard");
    assert_eq!(dashboard["metadata"]["labels"]["grafana_dashboard"], "1");
    let file = std::fs::read_to_string(root().join(super::MONITORING).join("dashboard.json"));
    assert_eq!(dashboard["data"]["kubectl-gc.json"], file.unwrap());
    // Each ServiceMonitor finds its Service by label and scrapes a port it has (where its
    // base is in the build).
    for monitor in all(docs, "ServiceMonitor") {
        let selector = &monitor["spec"]["selector"];
        for service in all(docs, "Service") {
            if selects(selector, &service["metadata"]["labels"]) {
                let port = &monitor["spec"]["endpoints"][0]["port"];
                let ports = service["spec"]["ports"].as_array().unwrap();
                assert!(ports.iter().any(|p| &p["name"] == port), "{port}");
            }
        }
    }
    assert_eq!(all(docs, "PrometheusRule").len(), 1);
}

/// The webhook runs with --check-permissions, and its service account (and only it) may
/// create SubjectAccessReviews, which that flag needs.
fn check_permissions(docs: &[Value]) {
    let deployment = one(docs, "Deployment", "kubectl-gc-admit");
    let args = &deployment["spec"]["template"]["spec"]["containers"][0]["args"];
    assert!(
        args.as_array()
            .unwrap()
            .contains(&json!("--check-permissions")),
        "{args}"
    );
    let role = one(docs, "ClusterRole", "kubectl-gc-admit-permissions");
    assert_eq!(
        role["rules"],
        json!([{"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"],
                "verbs": ["create"]}])
    );
    let binding = one(docs, "ClusterRoleBinding", "kubectl-gc-admit-permissions");
    let sa = &deployment["spec"]["template"]["spec"]["serviceAccountName"];
    assert_eq!(binding["subjects"][0]["name"], *sa);
    assert_eq!(
        binding["subjects"][0]["namespace"],
        deployment["metadata"]["namespace"]
    );
}

fn check_cert_manager(docs: &[Value]) {
    let hook = one(docs, "ValidatingWebhookConfiguration", "kubectl-gc-admit");
    let inject = hook["metadata"]["annotations"]["cert-manager.io/inject-ca-from"].as_str();
    let (ns, name) = inject.unwrap().split_once('/').unwrap();
    let cert = one(docs, "Certificate", name);
    assert_eq!(cert["metadata"]["namespace"], ns);
    // The certificate is for the name the API server calls, in the Secret the pods mount.
    let svc = &hook["webhooks"][0]["clientConfig"]["service"];
    let dns = format!(
        "{}.{}.svc",
        svc["name"].as_str().unwrap(),
        svc["namespace"].as_str().unwrap()
    );
    assert!(
        cert["spec"]["dnsNames"]
            .as_array()
            .unwrap()
            .contains(&json!(dns))
    );
    let deployment = one(docs, "Deployment", "kubectl-gc-admit");
    let secret = &deployment["spec"]["template"]["spec"]["volumes"][0]["secret"]["secretName"];
    assert_eq!(&cert["spec"]["secretName"], secret);
    // Its issuer chain is in the build.
    let issuer = cert["spec"]["issuerRef"]["name"].as_str().unwrap();
    one(docs, "Issuer", issuer);
}

fn check_release_1_20(docs: &[Value]) {
    for d in docs {
        assert_ne!(
            d["apiVersion"], "policy/v1",
            "1.20 serves no policy/v1: {d}"
        );
    }
    for pdb in all(docs, "PodDisruptionBudget") {
        assert_eq!(pdb["apiVersion"], "policy/v1beta1");
    }
    // No namespace has the kubernetes.io/metadata.name label on 1.20.
    let text = serde_json::to_string(docs).unwrap();
    assert!(!text.contains("kubernetes.io/metadata.name"), "{text}");
}

/// The README's overlay for a certificate of your own: the Secret from your files, and its
/// CA in the webhook configuration.
#[test]
fn an_overlay_with_its_own_certificate_puts_its_ca_in_the_configuration() {
    let ca = std::fs::read_to_string(root().join("examples/webhook-ca.pem")).unwrap();
    let docs = build_overlay(
        r"resources:
- deploy/admit
secretGenerator:
- name: kubectl-gc-admit-tls
  namespace: kubectl-gc
  type: kubernetes.io/tls
  files: [tls.crt, tls.key, ca.crt]
  options: {disableNameSuffixHash: true}
replacements:
- source: {kind: Secret, name: kubectl-gc-admit-tls, fieldPath: data.ca\.crt}
  targets:
  - select: {kind: ValidatingWebhookConfiguration, name: kubectl-gc-admit}
    fieldPaths: [webhooks.*.clientConfig.caBundle]
    options: {create: true}
",
        &[
            ("ca.crt", &ca),
            ("tls.crt", &ca),
            ("tls.key", "not a key\n"),
        ],
    );
    check_base("admit", &docs);
    let hook = one(&docs, "ValidatingWebhookConfiguration", "kubectl-gc-admit");
    let bundle: String = hook["webhooks"][0]["clientConfig"]["caBundle"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(bundle, kubectl_gc::admit::config::base64(ca.as_bytes()));
    assert_eq!(
        hook["webhooks"][0]["clientConfig"]["service"]["name"],
        "kubectl-gc-admit"
    );
}

/// The README's patch that narrows the NetworkPolicy to the control plane's CIDR.
#[test]
fn the_readme_patch_narrows_the_network_policy_to_the_control_plane() {
    let docs = build_overlay(
        "resources: [deploy/admit]
patches:
- target: {kind: NetworkPolicy, name: kubectl-gc-admit}
  patch: |
    - {op: replace, path: /spec/ingress/0/from/1, value: {ipBlock: {cidr: 10.0.0.0/24}}}
    - {op: remove, path: /spec/ingress/0/from/2}
",
        &[],
    );
    let policy = one(&docs, "NetworkPolicy", "kubectl-gc-admit");
    let from = policy["spec"]["ingress"][0]["from"].as_array().unwrap();
    assert_eq!(from.len(), 2, "{from:?}");
    assert_eq!(
        from[0]["podSelector"]["matchLabels"]["k8s-app"],
        "konnectivity-agent"
    );
    assert_eq!(from[1], json!({"ipBlock": {"cidr": "10.0.0.0/24"}}));
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains(
        "    - {op: replace, path: /spec/ingress/0/from/1, value: {ipBlock: {cidr: 10.0.0.0/24}}}\n    - {op: remove, path: /spec/ingress/0/from/2}"
    ));
}
