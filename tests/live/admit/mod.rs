//! `kubectl gc admit` called by the real API server (v1.20.2) as a validating webhook on
//! loopback, with the GC and the namespace controller running under their own service
//! accounts, and kube-apiserver presenting a client certificate to webhooks (its admission
//! configuration).
//!
//! The suite makes a CA and a serving certificate for 127.0.0.1 (rcgen), starts the webhook,
//! applies what `--print-config` prints for the cluster's release, and then writes objects with
//! kubectl: each kind of broken ownerReference draws kubectl's `Warning:` line, a valid one
//! draws none; in deny mode the write is refused; the GC's own patches go through; and with
//! the webhook down writes still succeed (`failurePolicy: Ignore`). `faults` is the webhook
//! under faults and load: its watch cut, slow and idle connections, 20,000 references, a flood
//! of absent owners, client certificates, a garbage certificate, `--only-namespace` on v1.20.

use crate::harness::{Suite, Test};
use crate::testenv::TestEnv;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod faults;
mod permissions;

pub struct Ctx {
    env: TestEnv,
    ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
    /// The CA that signed the client certificate kube-apiserver presents to webhooks, and
    /// that certificate and its key.
    client_ca: PathBuf,
    client_cert: PathBuf,
    client_key: PathBuf,
    port: u16,
    webhook: RefCell<Option<Webhook>>,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "admit",
    setup,
    tests: &[
        Test {
            name: "the_api_server_calls_the_webhook_once_configured",
            needs: &[],
            run: configured,
        },
        Test {
            name: "kubectl_prints_a_warning_for_each_kind_of_break",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: warnings,
        },
        Test {
            name: "a_valid_reference_draws_no_warning",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: valid,
        },
        Test {
            name: "deny_mode_refuses_and_the_gcs_own_patches_go_through",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: deny,
        },
        Test {
            name: "a_rotated_certificate_is_served_without_a_restart",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: rotated,
        },
        Test {
            name: "writes_succeed_while_the_webhook_is_down",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: down,
        },
        Test {
            name: "a_cut_watch_admits_valid_writes_is_not_ready_and_recovers",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: faults::cut_watch,
        },
        Test {
            name: "slow_and_idle_connections_do_not_keep_the_api_server_out",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: faults::slowloris,
        },
        Test {
            name: "twenty_thousand_references_are_judged_while_small_writes_stay_fast",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: faults::twenty_thousand,
        },
        Test {
            name: "a_flood_of_absent_owners_leaves_other_writes_checked",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: faults::flood,
        },
        Test {
            name: "only_the_api_servers_client_certificate_is_answered",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: faults::client_certificates,
        },
        Test {
            name: "a_garbage_certificate_keeps_the_last_good_one_and_is_counted",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: faults::garbage_certificate,
        },
        Test {
            name: "check_permissions_warns_of_what_the_plugin_would_refuse",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: permissions::check_permissions,
        },
        Test {
            name: "only_namespace_works_on_v1_20",
            needs: &["the_api_server_calls_the_webhook_once_configured"],
            run: faults::only_namespace,
        },
    ],
};

struct Webhook {
    child: Child,
    stderr: PathBuf,
}

impl Drop for Webhook {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A CA and a serving certificate for 127.0.0.1 it signed, as PEM files `<prefix>ca.pem`,
/// `<prefix>tls.crt` and `<prefix>tls.key` in `dir`.
fn certificates(dir: &Path, prefix: &str) -> Result<(PathBuf, PathBuf, PathBuf), String> {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
    let e = |e: rcgen::Error| format!("certificate generation failed: {e}");
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(e)?;
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "kubectl-gc admit test CA");
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().map_err(e)?).map_err(e)?;
    let key = KeyPair::generate().map_err(e)?;
    let mut params = CertificateParams::new(vec!["127.0.0.1".to_owned()]).map_err(e)?;
    params
        .distinguished_name
        .push(DnType::CommonName, "kubectl-gc admit");
    let cert = params.signed_by(&key, &ca).map_err(e)?;
    let paths = (
        dir.join(format!("{prefix}ca.pem")),
        dir.join(format!("{prefix}tls.crt")),
        dir.join(format!("{prefix}tls.key")),
    );
    let w = |p: &Path, s: String| std::fs::write(p, s).map_err(|e| format!("{}: {e}", p.display()));
    w(&paths.0, ca.pem())?;
    w(&paths.1, cert.pem())?;
    w(&paths.2, key.serialize_pem())?;
    Ok(paths)
}

fn setup() -> Result<Ctx, String> {
    // The client certificate kube-apiserver presents to webhooks, from a CA of its own.
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (client_ca, client_cert, client_key) = certificates(dir.path(), "client-")?;
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| e.to_string());
    let mut env = TestEnv::start_with_webhook_client(&read(&client_cert)?, &read(&client_key)?)?;
    env.start_controllers(&["garbagecollector", "namespace"])?;
    let (ca, cert, key) = certificates(&env.dir, "")?;
    let moved = |p: &Path| -> Result<PathBuf, String> {
        let to = env.dir.join(p.file_name().unwrap_or_default());
        std::fs::copy(p, &to).map_err(|e| e.to_string())?;
        Ok(to)
    };
    Ok(Ctx {
        client_ca: moved(&client_ca)?,
        client_cert: moved(&client_cert)?,
        client_key: moved(&client_key)?,
        env,
        ca,
        cert,
        key,
        port: free_port(),
        webhook: RefCell::new(None),
    })
}

/// Starts the webhook (`mode`: warn or deny) and waits until its graph has synced.
fn start(ctx: &Ctx, mode: &str) {
    start_with(ctx, mode, &ctx.env.kubeconfig, &[]);
}

/// [`start`] reading the cluster through `kubeconfig`, with `extra` arguments.
fn start_with(ctx: &Ctx, mode: &str, kubeconfig: &Path, extra: &[&str]) {
    ctx.webhook.borrow_mut().take();
    let stderr = ctx.env.dir.join(format!("admit-{mode}.log"));
    let child = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["admit", "--mode", mode])
        .args(extra)
        .args(["--listen", &format!("127.0.0.1:{}", ctx.port)])
        .arg("--tls-cert-file")
        .arg(&ctx.cert)
        .arg("--tls-private-key-file")
        .arg(&ctx.key)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr).expect("stderr file"))
        .spawn()
        .expect("start kubectl gc admit");
    let hook = Webhook { child, stderr };
    let deadline = Instant::now() + Duration::from_secs(60);
    while !healthz(ctx) {
        let log = std::fs::read_to_string(&hook.stderr).unwrap_or_default();
        assert!(
            Instant::now() < deadline,
            "admit not ready within 60 s:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    *ctx.webhook.borrow_mut() = Some(hook);
}

/// The first 160 characters of `s`, for a log line.
fn clip_line(s: &str) -> String {
    s.chars().take(160).collect()
}

fn curl(ctx: &Ctx, path: &str) -> Option<String> {
    curl_with(ctx, &ctx.ca, path)
}

fn curl_with(ctx: &Ctx, ca: &Path, path: &str) -> Option<String> {
    let out = Command::new("curl")
        .args(["-sS", "--max-time", "5", "--cacert"])
        .arg(ca)
        .arg(format!("https://127.0.0.1:{}{path}", ctx.port))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn healthz(ctx: &Ctx) -> bool {
    curl(ctx, "/healthz").is_some_and(|s| s.trim() == "ok")
}

fn metric(ctx: &Ctx, needle: &str) -> f64 {
    curl(ctx, "/metrics")
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(needle))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// kubectl with `stdin`: (success, stdout, stderr).
fn kubectl(env: &TestEnv, args: &[&str], stdin: Option<&Value>) -> (bool, String, String) {
    use std::io::Write;
    let mut child = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(&env.kubeconfig)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kubectl");
    let mut pipe = child.stdin.take().expect("piped");
    if let Some(v) = stdin {
        pipe.write_all(v.to_string().as_bytes()).expect("write");
    }
    drop(pipe);
    let out = child.wait_with_output().expect("kubectl output");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn create(env: &TestEnv, v: &Value) -> (bool, String, String) {
    kubectl(
        env,
        &["create", "-f", "-", "-o", "jsonpath={.metadata.uid}"],
        Some(v),
    )
}

fn cm(ns: &str, name: &str, owners: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"namespace": ns, "name": name, "ownerReferences": owners}})
}

fn oref(av: &str, kind: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": av, "kind": kind, "name": name, "uid": uid})
}

fn uid_of(env: &TestEnv, args: &[&str]) -> String {
    let mut a = vec!["get"];
    a.extend_from_slice(args);
    a.extend(["-o", "jsonpath={.metadata.uid}"]);
    env.kubectl(&a).expect("get uid").trim().to_owned()
}

fn warnings_of(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("Warning: "))
        .map(str::to_owned)
        .collect()
}

/// What `admit --print-config` prints for the suite's webhook and cluster, with `extra`.
fn print_config(ctx: &Ctx, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .arg("--kubeconfig")
        .arg(&ctx.env.kubeconfig)
        .args(["admit", "--print-config"])
        .args(["--url", &format!("https://127.0.0.1:{}/validate", ctx.port)])
        .arg("--ca-file")
        .arg(&ctx.ca)
        .args(extra)
        .output()
        .expect("print-config");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "print-config failed: {err}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn configured(ctx: &Ctx) {
    let env = &ctx.env;
    start(ctx, "warn");
    // For the cluster it reads: v1.20.2, which has neither the namespace name label nor
    // matchConditions.
    let config = print_config(ctx, &[]);
    assert!(config.contains("failurePolicy: Ignore"), "{config}");
    assert!(
        config.starts_with("# kubectl gc admit's webhook configuration for Kubernetes 1.20."),
        "{config}"
    );
    let has_key = |key: &str| config.lines().any(|l| l.trim_start().starts_with(key));
    assert!(!has_key("matchConditions:"), "{config}");
    assert!(!has_key("namespaceSelector:"), "{config}");
    env.kubectl_stdin(&["apply", "-f", "-"], Some(&config))
        .expect("the API server takes the configuration");
    env.kubectl(&["create", "namespace", "monitoring"])
        .expect("ns");
    // The API server picks the configuration up asynchronously: probe until a broken
    // reference draws the webhook's warning.
    let deadline = Instant::now() + Duration::from_secs(30);
    for n in 0.. {
        let (ok, _, err) = create(
            env,
            &cm(
                "monitoring",
                &format!("probe-{n}"),
                json!([oref(
                    "v1",
                    "ConfigMap",
                    "ghost",
                    "0d3c9e8e-0000-4000-8000-000000000000"
                )]),
            ),
        );
        assert!(ok, "{err}");
        if !warnings_of(&err).is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no webhook warning within 30 s: {err}"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    assert!(metric(ctx, "kubectl_gc_admit_requests_total{version=\"v1\"}") >= 1.0);
}

fn one_warning(ctx: &Ctx, v: &Value) -> String {
    let (ok, _, err) = create(&ctx.env, v);
    assert!(ok, "warn mode admits: {err}");
    let w = warnings_of(&err);
    assert_eq!(w.len(), 1, "one warning expected: {err}");
    eprintln!("    kubectl: Warning: {}", w[0]);
    w[0].clone()
}

fn warnings(ctx: &Ctx) {
    let env = &ctx.env;
    env.kubectl(&["create", "configmap", "owner", "-n", "kube-system"])
        .expect("owner");
    let ks = uid_of(env, &["configmap", "owner", "-n", "kube-system"]);
    env.kubectl(&["create", "configmap", "cfg", "-n", "monitoring"])
        .expect("cfg");
    let cfg = uid_of(env, &["configmap", "cfg", "-n", "monitoring"]);

    // The incident: a monitoring object owned by a kube-system object.
    let w = one_warning(
        ctx,
        &cm(
            "monitoring",
            "cross",
            json!([oref("v1", "ConfigMap", "owner", &ks)]),
        ),
    );
    assert!(
        w.contains("ConfigMap/owner -n kube-system")
            && w.contains("the GC will delete this object"),
        "{w}"
    );
    assert!(
        w.contains("or write this object into namespace kube-system beside its owner"),
        "{w}"
    );
    // No such owner.
    let w = one_warning(
        ctx,
        &cm(
            "monitoring",
            "absent",
            json!([oref(
                "v1",
                "ConfigMap",
                "nobody",
                "6f1e2b9c-0000-4000-8000-000000000001"
            )]),
        ),
    );
    assert!(
        w.contains("does not exist in namespace \"monitoring\""),
        "{w}"
    );
    // The owner, under another uid.
    let w = one_warning(
        ctx,
        &cm(
            "monitoring",
            "stale",
            json!([oref(
                "v1",
                "ConfigMap",
                "cfg",
                "6f1e2b9c-0000-4000-8000-000000000002"
            )]),
        ),
    );
    assert!(
        w.contains(&format!(
            "was recreated: ConfigMap/cfg -n monitoring exists with uid {cfg}"
        )),
        "{w}"
    );
    // A kind the cluster does not serve (kubernetes#137008).
    let w = one_warning(
        ctx,
        &cm(
            "monitoring",
            "unserved",
            json!([oref("core/v1", "ConfigMap", "cfg", &cfg)]),
        ),
    );
    assert!(
        w.contains(&format!("owner core/v1 ConfigMap/cfg (uid {cfg}): ")),
        "{w}"
    );
    // A cluster-scoped object naming a namespaced kind.
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "scoped", "ownerReferences": [oref("v1", "ConfigMap", "cfg", &cfg)]}});
    let w = one_warning(ctx, &role);
    assert!(
        w.contains("cluster-scoped object names a namespaced owner v1 ConfigMap/cfg"),
        "{w}"
    );
    // Two references to one uid, one of them with a wrong name.
    let (ok, _, err) = create(
        env,
        &cm(
            "monitoring",
            "dup",
            json!([
                oref("v1", "ConfigMap", "cfg", &cfg),
                oref("v1", "ConfigMap", "cfg-typo", &cfg)
            ]),
        ),
    );
    assert!(ok, "{err}");
    let w = warnings_of(&err);
    assert!(
        w.iter()
            .any(|m| m.starts_with(&format!("Two ownerReferences name uid {cfg}"))),
        "{err}"
    );
    assert!(metric(ctx, "kubectl_gc_admit_verdicts_total{verdict=\"warned\"") >= 6.0);
}

fn valid(ctx: &Ctx) {
    let env = &ctx.env;
    env.kubectl(&["create", "configmap", "parent", "-n", "monitoring"])
        .expect("parent");
    let parent = uid_of(env, &["configmap", "parent", "-n", "monitoring"]);
    let (ok, _, err) = create(
        env,
        &cm(
            "monitoring",
            "child",
            json!([oref("v1", "ConfigMap", "parent", &parent)]),
        ),
    );
    assert!(ok, "{err}");
    assert!(
        warnings_of(&err).is_empty(),
        "a valid reference drew: {err}"
    );
    // An update that changes nothing about references is not judged.
    let before = metric(
        ctx,
        "kubectl_gc_admit_verdicts_total{verdict=\"skipped\",reason=\"no-new-references\"}",
    );
    let (ok, _, err) = kubectl(
        env,
        &["label", "configmap", "child", "-n", "monitoring", "x=y"],
        None,
    );
    assert!(ok && warnings_of(&err).is_empty(), "{err}");
    let after = metric(
        ctx,
        "kubectl_gc_admit_verdicts_total{verdict=\"skipped\",reason=\"no-new-references\"}",
    );
    assert!(after > before, "{before} -> {after}");
}

fn deny(ctx: &Ctx) {
    let env = &ctx.env;
    start(ctx, "deny");
    let (ok, _, err) = create(
        env,
        &cm(
            "monitoring",
            "refused",
            json!([oref(
                "v1",
                "ConfigMap",
                "nobody",
                "6f1e2b9c-0000-4000-8000-000000000003"
            )]),
        ),
    );
    assert!(!ok, "deny mode admitted a dangling reference");
    eprintln!("    kubectl: {}", err.trim());
    assert!(
        err.contains("denied the request: ownerReference to ConfigMap \"nobody\""),
        "{err}"
    );
    assert!(
        !crate::probe::exists(env, &["configmap", "refused", "-n", "monitoring"]),
        "the refused object was created"
    );
    // The GC's own patch: an object with two valid owners, one of which is then deleted in
    // the background; the GC (as its service account) strips the dangling reference.
    for name in ["keep", "gone"] {
        env.kubectl(&["create", "configmap", name, "-n", "monitoring"])
            .expect("owner");
    }
    let keep = uid_of(env, &["configmap", "keep", "-n", "monitoring"]);
    let gone = uid_of(env, &["configmap", "gone", "-n", "monitoring"]);
    let (ok, _, err) = create(
        env,
        &cm(
            "monitoring",
            "two-owners",
            json!([
                oref("v1", "ConfigMap", "keep", &keep),
                oref("v1", "ConfigMap", "gone", &gone)
            ]),
        ),
    );
    assert!(ok, "two valid owners refused: {err}");
    let before = metric(
        ctx,
        "kubectl_gc_admit_verdicts_total{verdict=\"skipped\",reason=\"control-plane\"}",
    );
    env.kubectl(&[
        "delete",
        "configmap",
        "gone",
        "-n",
        "monitoring",
        "--wait=false",
    ])
    .expect("delete");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let refs = env
            .kubectl(&[
                "get",
                "configmap",
                "two-owners",
                "-n",
                "monitoring",
                "-o",
                "jsonpath={.metadata.ownerReferences[*].name}",
            ])
            .expect("get");
        if refs.trim() == "keep" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the GC did not strip the dangling reference: {refs}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let after = metric(
        ctx,
        "kubectl_gc_admit_verdicts_total{verdict=\"skipped\",reason=\"control-plane\"}",
    );
    assert!(
        after > before,
        "the GC's patch was not seen as the control plane's: {before} -> {after}"
    );
}

fn rotated(ctx: &Ctx) {
    start(ctx, "warn");
    let (new_ca, new_cert, new_key) = certificates(&ctx.env.dir, "new-").expect("certificates");
    assert!(
        curl_with(ctx, &new_ca, "/livez").is_none(),
        "served by the new CA before the rotation"
    );
    let original = (
        std::fs::read(&ctx.cert).expect("cert"),
        std::fs::read(&ctx.key).expect("key"),
    );
    // As a Secret volume rotates: both files replaced in place.
    std::fs::copy(&new_key, &ctx.key).expect("key");
    std::fs::copy(&new_cert, &ctx.cert).expect("cert");
    assert_eq!(curl_with(ctx, &new_ca, "/livez").as_deref(), Some("ok\n"));
    assert!(
        curl(ctx, "/livez").is_none(),
        "the old certificate is still served"
    );
    // The original pair back (the configuration's caBundle trusts its CA): served again.
    std::fs::write(&ctx.key, original.1).expect("key");
    std::fs::write(&ctx.cert, original.0).expect("cert");
    assert_eq!(curl(ctx, "/livez").as_deref(), Some("ok\n"));
}

fn down(ctx: &Ctx) {
    let env = &ctx.env;
    ctx.webhook.borrow_mut().take();
    assert!(!healthz(ctx));
    let started = Instant::now();
    let (ok, _, err) = create(
        env,
        &cm(
            "monitoring",
            "while-down",
            json!([oref(
                "v1",
                "ConfigMap",
                "nobody",
                "6f1e2b9c-0000-4000-8000-000000000004"
            )]),
        ),
    );
    assert!(ok, "a write failed while the webhook was down: {err}");
    assert!(warnings_of(&err).is_empty(), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}
