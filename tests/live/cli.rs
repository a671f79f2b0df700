//! The command line against a real kube-apiserver v1.20.2 (no controllers): kubectl's
//! connection flags with kube-rs doing the work (`--server`, `--token`,
//! `--insecure-skip-tls-verify`, `--certificate-authority`, `--tls-server-name`, no kubeconfig
//! at all), `-v 6` request logs, a namespace the cluster does not have, and completion of
//! namespaces, kinds and names from the cluster.

use crate::harness::{Suite, Test};
use crate::testenv::TestEnv;
use std::process::{Command, Output};

pub const SUITE: Suite<TestEnv> = Suite {
    name: "cli",
    setup: || TestEnv::start(false),
    tests: &[
        Test {
            name: "connection_flags_without_a_kubeconfig",
            needs: &[],
            run: connection_flags_without_a_kubeconfig,
        },
        Test {
            name: "verbose_logs_every_request",
            needs: &[],
            run: verbose_logs_every_request,
        },
        Test {
            name: "unknown_namespace_is_an_error",
            needs: &[],
            run: unknown_namespace_is_an_error,
        },
        Test {
            name: "completion_from_the_cluster",
            needs: &[],
            run: completion_from_the_cluster,
        },
    ],
};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-gc");

/// kubectl-gc with no kubeconfig anywhere (HOME is empty, KUBECONFIG unset).
fn run(env: &TestEnv, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("KUBECONFIG")
        .env("HOME", env.dir.join("no-home"))
        .env_remove("KUBERNETES_SERVICE_HOST")
        .output()
        .expect("run kubectl-gc")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn connection_flags_without_a_kubeconfig(env: &TestEnv) {
    let server = env.server.as_str();
    let token = env.admin_token.as_str();
    let o = run(
        env,
        &[
            "audit",
            "-A",
            "-o",
            "json",
            "--server",
            server,
            "--token",
            token,
            "--insecure-skip-tls-verify",
        ],
    );
    assert!(
        matches!(o.status.code(), Some(0 | 5)),
        "{}",
        text(&o.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON report");
    assert_eq!(
        report["summary"]["coverage"]["complete"], true,
        "admin reads all"
    );
    // The server's own certificate as the CA, checked against the name it was issued for.
    let ca = env.dir.join("certs").join("apiserver.crt");
    let ca = ca.to_string_lossy().into_owned();
    let o = run(
        env,
        &[
            "audit",
            "-A",
            "-o",
            "name",
            "-s",
            server,
            "--token",
            token,
            "--certificate-authority",
            &ca,
            // The URL is an IP; checking the certificate for one of its DNS names proves the
            // override is used.
            "--tls-server-name",
            "kubernetes.default.svc",
        ],
    );
    assert!(
        matches!(o.status.code(), Some(0 | 5)),
        "--certificate-authority: {}",
        text(&o.stderr)
    );
    // A name the certificate does not have: refused.
    let o = run(
        env,
        &[
            "audit",
            "-A",
            "-s",
            server,
            "--token",
            token,
            "--certificate-authority",
            &ca,
            "--tls-server-name",
            "not-the-server.example",
        ],
    );
    assert_eq!(o.status.code(), Some(4), "{}", text(&o.stderr));
    // Without either, the self-signed certificate is refused: exit 4 with a TLS hint.
    let o = run(env, &["audit", "-A", "-s", server, "--token", token]);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("TLS"), "{}", text(&o.stderr));
    // A wrong token: 401, exit 4.
    let o = run(
        env,
        &[
            "audit",
            "-A",
            "-s",
            server,
            "--token",
            "wrong",
            "--insecure-skip-tls-verify",
        ],
    );
    assert_eq!(o.status.code(), Some(4), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("401"), "{}", text(&o.stderr));
    // The token overrides the kubeconfig user's credentials (viewer's token on the admin
    // context: Secrets become forbidden, so coverage is incomplete).
    let kubeconfig = env.kubeconfig.to_string_lossy().into_owned();
    let o = run(
        env,
        &[
            "audit",
            "-A",
            "-o",
            "json",
            "--kubeconfig",
            &kubeconfig,
            "--token",
            &env.viewer_token,
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON report");
    assert_eq!(
        report["summary"]["coverage"]["complete"],
        false,
        "viewer cannot list secrets: {}",
        text(&o.stderr)
    );
    // The flags and the certificate/insecure contradiction, as kubectl.
    let o = run(
        env,
        &[
            "audit",
            "-s",
            server,
            "--certificate-authority",
            &ca,
            "--insecure-skip-tls-verify",
        ],
    );
    assert_eq!(o.status.code(), Some(4), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("contradict"),
        "{}",
        text(&o.stderr)
    );
}

fn verbose_logs_every_request(env: &TestEnv) {
    let kubeconfig = env.kubeconfig.to_string_lossy().into_owned();
    let o = run(
        env,
        &[
            "audit",
            "-n",
            "default",
            "--kubeconfig",
            &kubeconfig,
            "-v",
            "6",
            "-o",
            "json",
        ],
    );
    let err = text(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 5)), "{err}");
    assert!(err.contains("/version"), "{err}");
    assert!(err.contains("/api/v1"), "{err}");
    assert!(err.contains("http.status_code=200"), "{err}");
    // Without -v: none of it.
    let o = run(
        env,
        &["audit", "-n", "default", "--kubeconfig", &kubeconfig],
    );
    assert!(!text(&o.stderr).contains("http.status_code"));
}

fn unknown_namespace_is_an_error(env: &TestEnv) {
    let kubeconfig = env.kubeconfig.to_string_lossy().into_owned();
    let o = run(env, &["audit", "-n", "typo", "--kubeconfig", &kubeconfig]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("namespace \"typo\" not found"));
}

fn completion_from_the_cluster(env: &TestEnv) {
    env.kubectl(&["create", "configmap", "cm-complete", "-n", "default"])
        .expect("create a configmap");
    let kubeconfig = env.kubeconfig.to_string_lossy().into_owned();
    let complete = |words: &[&str]| -> Vec<String> {
        let mut args = vec!["__complete", "--kubeconfig", &kubeconfig];
        args.extend_from_slice(words);
        let o = run(env, &args);
        text(&o.stdout)
            .lines()
            .filter(|l| !l.starts_with(':'))
            .map(|l| l.split('\t').next().unwrap_or("").to_owned())
            .collect()
    };
    let ns = complete(&["audit", "-n", ""]);
    assert!(
        ns.contains(&"default".to_owned()) && ns.contains(&"kube-system".to_owned()),
        "{ns:?}"
    );
    let kinds = complete(&["audit", "--kind", "config"]);
    assert_eq!(kinds, ["configmaps"]);
    let kinds = complete(&["graph", "deploy"]);
    assert_eq!(kinds, ["deployments.apps/"]);
    let names = complete(&["graph", "-n", "default", "configmaps/cm-"]);
    assert_eq!(names, ["configmaps/cm-complete"]);
    let names = complete(&["graph", "-n", "default", "cm", ""]);
    assert!(names.contains(&"cm-complete".to_owned()), "{names:?}");
    // An unreachable cluster answers nothing, within the time budget.
    let start = std::time::Instant::now();
    let o = run(
        env,
        &["__complete", "-s", "https://127.0.0.1:9", "audit", "-n", ""],
    );
    assert_eq!(text(&o.stdout), ":4\n");
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
}
