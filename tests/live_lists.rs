//! Live lists against the test control plane (`../shared/k8s-testenv`): protobuf pages read
//! exactly like JSON ones, hostile `-n` values stay one path segment, and a server that accepts
//! connections but never answers ends the run within the request timeout.
//!
//! A custom harness (`harness = false`): one control plane for the whole binary. Arguments
//! filter the cases by name. The silent-server cases need no control plane and run first; the
//! one with the default timeout waits for it (30 s).

#[path = "support/testenv.rs"]
mod testenv;

use kubectl_gc::snapshot::{ListOutcome, Snapshot, format};
use kubectl_gc::source::live::{
    self, ConnectOptions, Connection, DEFAULT_REQUEST_TIMEOUT, LiveOptions, WireFormat,
};
use std::io::Read;
use std::net::TcpListener;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output, Stdio};
use std::time::{Duration, Instant};
use testenv::TestEnv;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-gc");

type Offline = fn();
type Case = fn(&Ctx);

const OFFLINE: &[(&str, Offline)] = &[
    (
        "request_timeout_flag_is_bounded",
        request_timeout_flag_is_bounded,
    ),
    (
        "silent_server_with_request_timeout_flag",
        silent_server_with_request_timeout_flag,
    ),
    (
        "silent_server_with_default_timeout",
        silent_server_with_default_timeout,
    ),
];

const CASES: &[(&str, Case)] = &[
    (
        "protobuf_snapshot_equals_json_snapshot",
        protobuf_snapshot_equals_json_snapshot,
    ),
    (
        "hostile_namespace_stays_one_segment",
        hostile_namespace_stays_one_segment,
    ),
];

struct Ctx {
    env: TestEnv,
    rt: tokio::runtime::Runtime,
}

fn selected<T>(
    cases: &'static [(&'static str, T)],
    filters: &[&str],
) -> Vec<&'static (&'static str, T)> {
    cases
        .iter()
        .filter(|(name, _)| filters.is_empty() || filters.iter().any(|f| name.contains(f)))
        .collect()
}

fn run(name: &str, f: impl FnOnce(), passed: &mut u32, failed: &mut u32) {
    let t = Instant::now();
    let result = std::panic::catch_unwind(AssertUnwindSafe(f));
    let secs = t.elapsed().as_secs_f64();
    if result.is_ok() {
        *passed += 1;
        println!("test {name} ... ok ({secs:.1}s)");
    } else {
        *failed += 1;
        println!("test {name} ... FAILED ({secs:.1}s)");
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filters: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let (mut passed, mut failed) = (0, 0);
    for (name, case) in selected(OFFLINE, &filters) {
        run(name, case, &mut passed, &mut failed);
    }
    let cases = selected(CASES, &filters);
    if !cases.is_empty() {
        println!("starting k8s-testenv …");
        match TestEnv::start(false) {
            Err(e) => {
                println!("test k8s_testenv_start ... FAILED");
                eprintln!("cannot start the test control plane: {e}");
                failed += 1;
            }
            Ok(env) => {
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .expect("tokio runtime");
                let ctx = Ctx { env, rt };
                for (name, case) in cases {
                    run(name, || case(&ctx), &mut passed, &mut failed);
                }
                let Ctx { mut env, rt } = ctx;
                drop(rt);
                env.stop();
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

// ---------------------------------------------------------------------------------------------
// A server that accepts connections and never answers.

/// Listens on loopback, accepts every connection and reads (and ignores) what arrives; returns
/// the kubeconfig pointing at it. The thread lives until the process ends.
fn silent_server(dir: &Path) -> PathBuf {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while matches!(conn.read(&mut buf), Ok(n) if n > 0) {}
            });
        }
    });
    let path = dir.join("silent.kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: silent\n\
             clusters: [{{name: silent, cluster: {{server: \"https://127.0.0.1:{port}\", insecure-skip-tls-verify: true}}}}]\n\
             users: [{{name: u, user: {{token: t}}}}]\n\
             contexts: [{{name: silent, context: {{cluster: silent, user: u}}}}]\n"
        ),
    )
    .expect("write kubeconfig");
    path
}

fn run_bin(args: &[&str]) -> (Output, Duration) {
    let t = Instant::now();
    let out = Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run kubectl-gc");
    (out, t.elapsed())
}

fn assert_silent_server_error(out: &Output, elapsed: Duration, timeout: Duration) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(4),
        "exit code (cluster error): {stderr}"
    );
    assert!(
        elapsed >= timeout && elapsed < timeout + Duration::from_secs(5),
        "ended after one request timeout ({timeout:?}): {elapsed:?}"
    );
    assert!(
        stderr.contains("no answer from https://127.0.0.1:")
            && stderr.contains(&format!("timed out after {}", human(timeout))),
        "{stderr}"
    );
    assert!(stderr.contains("--request-timeout"), "hint: {stderr}");
    assert_eq!(
        stderr.lines().filter(|l| !l.trim().is_empty()).count(),
        2,
        "{stderr}"
    );
}

fn human(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{}ms", d.as_millis())
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

fn silent_server_with_request_timeout_flag() {
    let dir = tempfile::tempdir().unwrap();
    let kc = silent_server(dir.path());
    let out_file = dir.path().join("s.ndjson");
    let (out, elapsed) = run_bin(&[
        "snapshot",
        "-o",
        out_file.to_str().unwrap(),
        "--kubeconfig",
        kc.to_str().unwrap(),
        "--request-timeout",
        "2s",
    ]);
    assert_silent_server_error(&out, elapsed, Duration::from_secs(2));
    assert!(!out_file.exists(), "no snapshot written");
}

fn silent_server_with_default_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let kc = silent_server(dir.path());
    let (out, elapsed) = run_bin(&["audit", "-A", "--kubeconfig", kc.to_str().unwrap()]);
    assert_silent_server_error(&out, elapsed, DEFAULT_REQUEST_TIMEOUT);
}

fn request_timeout_flag_is_bounded() {
    for (value, ok) in [
        ("99999999999999999999s", false),
        ("1e400s", false),
        ("25h", false),
        ("0.0000001s", false),
        ("-1s", false),
        ("24h", true),
        ("0", true),
    ] {
        let flag = format!("--request-timeout={value}");
        let (out, _) = run_bin(&["audit", &flag, "--help"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        if ok {
            assert_eq!(code, Some(0), "{value}: {stderr}");
        } else {
            assert_eq!(code, Some(2), "{value}: usage error, not a panic: {stderr}");
            assert!(
                stderr.contains("--request-timeout") && !stderr.contains("panicked"),
                "{value}: {stderr}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Against the control plane

fn kubectl(ctx: &Ctx, args: &[&str]) -> String {
    ctx.env.kubectl(args).unwrap_or_else(|e| panic!("{e}"))
}

fn apply(ctx: &Ctx, yaml: &str) {
    // Right after a CRD is established kubectl's discovery may not know the kind yet.
    let mut last = String::new();
    for _ in 0..20 {
        match ctx.env.kubectl_stdin(&["apply", "-f", "-"], Some(yaml)) {
            Ok(_) => return,
            Err(e) => last = e,
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    panic!("{last}");
}

fn connect(ctx: &Ctx) -> Connection {
    let opts = ConnectOptions {
        kubeconfig: Some(ctx.env.kubeconfig.clone()),
        ..ConnectOptions::default()
    };
    ctx.rt.block_on(live::connect(&opts)).expect("connect")
}

fn take(ctx: &Ctx, conn: &Connection, opts: &LiveOptions) -> Snapshot {
    ctx.rt
        .block_on(live::snapshot(conn, opts, &|_| {}))
        .unwrap_or_else(|e| panic!("snapshot: {e}"))
}

/// The snapshot as written to a file, minus the capture time: every object line and the
/// resource table, byte for byte.
fn written(snap: &Snapshot) -> (serde_json::Value, Vec<String>) {
    let mut buf = Vec::new();
    format::write(snap, &mut buf).expect("write");
    let text = String::from_utf8(buf).expect("utf-8");
    let mut lines = text.lines();
    let mut header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    header["provenance"]["capturedAt"] = serde_json::Value::Null;
    (header, lines.map(str::to_owned).collect())
}

const OBJECTS: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: sprockets.lists.kgc.example.com}
spec:
  group: lists.kgc.example.com
  names: {kind: Sprocket, plural: sprockets, singular: sprocket, listKind: SprocketList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: v1
kind: Namespace
metadata: {name: lists-a}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: owner
  namespace: lists-a
  labels: {app: web, "example.com/tier": "1", empty: ""}
  annotations:
    kubectl-gc.io/ignore: "GC004"
    note: "ünïcode ✓ \u001b[31m"
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: lists-role
  labels: {a: b}
  finalizers: [example.com/keep]
rules: []
"#;

fn protobuf_snapshot_equals_json_snapshot(ctx: &Ctx) {
    apply(ctx, OBJECTS);
    kubectl(
        ctx,
        &[
            "wait",
            "--for",
            "condition=established",
            "--timeout=60s",
            "crd/sprockets.lists.kgc.example.com",
        ],
    );
    let owner = kubectl(
        ctx,
        &[
            "get",
            "cm",
            "owner",
            "-n",
            "lists-a",
            "-o",
            "jsonpath={.metadata.uid}",
        ],
    );
    let role = kubectl(
        ctx,
        &[
            "get",
            "clusterrole",
            "lists-role",
            "-o",
            "jsonpath={.metadata.uid}",
        ],
    );
    // Dependents with every shape of ownerReference, finalizers, and (after the delete) a
    // deletionTimestamp; a custom resource (served in protobuf too since 1.20's metadata
    // support); 30 ConfigMaps so that small pages paginate.
    let mut yaml = format!(
        r#"
apiVersion: v1
kind: ConfigMap
metadata:
  name: dependent
  namespace: lists-a
  finalizers: [example.com/hold]
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: owner, uid: {owner}, controller: true, blockOwnerDeletion: true}}
  - {{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: lists-role, uid: {role}, controller: false}}
  - {{apiVersion: apps/v1, kind: ReplicaSet, name: gone, uid: 00000000-0000-0000-0000-000000000001, blockOwnerDeletion: false}}
---
apiVersion: lists.kgc.example.com/v1
kind: Sprocket
metadata:
  name: s1
  namespace: lists-a
  labels: {{x: "why"}}
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: owner, uid: {owner}}}
spec: {{size: 3}}
"#
    );
    for i in 0..30 {
        yaml.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: page-{i:02}, namespace: lists-a, labels: {{i: \"{i}\"}}}}\n"
        ));
    }
    apply(ctx, &yaml);
    kubectl(
        ctx,
        &["delete", "cm", "dependent", "-n", "lists-a", "--wait=false"],
    );

    let conn = connect(ctx);
    for page_size in [7, 500] {
        let pb = take(
            ctx,
            &conn,
            &LiveOptions {
                page_size,
                wire: WireFormat::Protobuf,
                ..LiveOptions::default()
            },
        );
        let json = take(
            ctx,
            &conn,
            &LiveOptions {
                page_size,
                wire: WireFormat::Json,
                ..LiveOptions::default()
            },
        );
        assert!(pb.skipped.is_empty(), "{:?}", pb.skipped);
        assert!(
            pb.resources
                .iter()
                .filter(|r| r.monitored())
                .all(|r| r.list == ListOutcome::Complete),
            "every list complete"
        );
        let (pb_header, pb_objects) = written(&pb);
        let (json_header, json_objects) = written(&json);
        assert_eq!(pb_header, json_header, "page size {page_size}");
        assert_eq!(
            pb_objects.len(),
            json_objects.len(),
            "page size {page_size}"
        );
        for (a, b) in pb_objects.iter().zip(&json_objects) {
            assert_eq!(a, b, "page size {page_size}");
        }
        // The interesting objects are there, with what they carry.
        let line = |name: &str| {
            pb_objects
                .iter()
                .find(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    v["metadata"]["name"] == name
                })
                .unwrap_or_else(|| panic!("{name} missing"))
                .clone()
        };
        let dependent = line("dependent");
        for needle in [
            "\"deletionTimestamp\":\"",
            "\"finalizers\":[\"example.com/hold\"]",
            "\"controller\":true,\"blockOwnerDeletion\":true",
            "\"controller\":false}",
            "\"blockOwnerDeletion\":false}",
        ] {
            assert!(dependent.contains(needle), "{needle} in {dependent}");
        }
        assert!(line("s1").contains(&owner));
        assert!(line("lists-role").contains("example.com/keep"));
        assert!(line("owner").contains("\"example.com/tier\":\"1\""));
        assert!(pb_objects.iter().filter(|l| l.contains("\"page-")).count() == 30);
    }
}

fn hostile_namespace_stays_one_segment(ctx: &Ctx) {
    // `a/../kube-system` unescaped would list kube-system; as one segment it is a namespace that
    // cannot exist, and the server refuses the path: every namespaced list fails (a coverage
    // gap), and nothing from kube-system or default is read.
    let conn = connect(ctx);
    let snap = take(
        ctx,
        &conn,
        &LiveOptions {
            namespace: Some("a/../kube-system".into()),
            ..LiveOptions::default()
        },
    );
    let s = &snap.store;
    for id in s.ids() {
        let o = s.object(id);
        assert_eq!(
            s.str(o.namespace),
            "",
            "only cluster-scoped objects: {}",
            snap.describe(id)
        );
    }
    let namespaced: Vec<_> = snap
        .resources
        .iter()
        .filter(|r| r.monitored() && r.namespaced)
        .collect();
    assert!(!namespaced.is_empty());
    for r in namespaced {
        assert!(
            matches!(&r.list, ListOutcome::Failed { message } if message.contains("404")),
            "{}: {:?}",
            r.plural,
            r.list
        );
    }
}
