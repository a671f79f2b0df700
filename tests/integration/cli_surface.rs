//! The command line as kubectl users expect it (issue 15): selections that cannot silently
//! miss, flags that are honoured or refused with a reason, kubectl's output conventions, help
//! like kubectl's, summaries that say what they leave out. Golden files in
//! `tests/golden/cli/` (`KGC_UPDATE_GOLDEN=1` rewrites them).

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-gc");
const INCIDENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/redis-operator-incident.json"
);
const STUCK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/stuck-foreground-deletion.json"
);

fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    c.args(args)
        .env_remove("NO_COLOR")
        .env_remove("COLUMNS")
        .env("KUBECONFIG", "/nonexistent-kubeconfig");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run kubectl-gc")
}

fn run(args: &[&str]) -> Output {
    run_env(args, &[])
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit code `code`, one `error:` line naming `needle`, a hint, nothing on stdout.
fn refused(o: &Output, code: i32, needle: &str) {
    let e = err(o);
    assert_eq!(o.status.code(), Some(code), "{e}");
    assert!(e.starts_with("error: "), "{e}");
    assert!(e.contains(needle), "{needle:?} not in: {e}");
    assert!(e.contains("\nhint: "), "no hint: {e}");
    assert!(o.stdout.is_empty(), "{}", out(o));
}

fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/cli")
        .join(name);
    if std::env::var_os("KGC_UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (KGC_UPDATE_GOLDEN=1 writes it)", path.display()));
    assert_eq!(
        actual,
        expected,
        "{} differs (KGC_UPDATE_GOLDEN=1 rewrites it)",
        path.display()
    );
}

/// A kubectl List: a ConfigMap owned by a ReplicaSet that is gone (GC001), 27 pods owned by
/// Jobs the input does not hold (GC007), a terminating pod held by a finalizer (GC013), and
/// dangling objects of 10 kinds×namespaces (collect's summary).
fn fixture(dir: &Path) -> PathBuf {
    let mut items = vec![
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-1", "namespace": "shop", "uid": "rs-1", "creationTimestamp": "2026-11-01T00:00:00Z"}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web-settings", "namespace": "shop", "uid": "cm-1",
            "creationTimestamp": "2026-11-01T00:00:00Z", "labels": {"app": "web", "app.kubernetes.io/part-of": "shop"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-0", "uid": "rs-0"}]}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "stuck", "namespace": "shop", "uid": "pod-stuck",
            "creationTimestamp": "2026-11-01T00:00:00Z", "deletionTimestamp": "2026-11-20T00:00:00Z",
            "finalizers": ["example.com/drain"]}}),
    ];
    for i in 0..27 {
        items.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": format!("report-{i:02}"), "namespace": "batch", "uid": format!("pod-r{i}"),
            "creationTimestamp": "2026-11-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": format!("report-{i:02}"), "uid": format!("job-{i}")}]}}));
    }
    for i in 0..10 {
        let ns = format!("team-{i}");
        items.push(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "keep", "namespace": ns, "uid": format!("rs-keep-{i}")}}));
        items.push(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "orphan", "namespace": ns, "uid": format!("cm-o{i}"),
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "gone", "uid": format!("rs-gone-{i}")}]}}));
    }
    // The files' capture time is when they are read; ages are measured then: pin it with a
    // Namespace-free list whose newest timestamp is fixed (see `snapshot` below).
    let path = dir.join("list.json");
    std::fs::write(
        &path,
        // A server list (`kubectl get --raw`): held completely where it holds its kinds.
        serde_json::to_vec(&json!({"apiVersion": "v1", "kind": "List",
            "metadata": {"resourceVersion": "4711"}, "items": items}))
        .unwrap(),
    )
    .unwrap();
    path
}

/// The fixture as a snapshot (fixed capture time, so AGE is stable).
fn fixture_snapshot(dir: &Path) -> String {
    let list = fixture(dir);
    let snap = dir.join("fixture.ndjson");
    let o = run(&[
        "snapshot",
        "-f",
        list.to_str().unwrap(),
        "-o",
        snap.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    snap.to_string_lossy().into_owned()
}

#[test]
fn kinds_are_resolved_like_kubectl_and_unknown_ones_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let list = fixture(dir.path());
    let f = list.to_str().unwrap();
    // `cm` is kubectl's short name: the GC001 ConfigMap is found (it used to print
    // "No findings" and exit 0).
    for kind in ["cm", "configmap", "configmaps", "ConfigMap", "configmaps."] {
        let kind = kind.trim_end_matches('.');
        let o = run(&["audit", "-f", f, "--kind", kind, "-o", "name"]);
        assert_eq!(o.status.code(), Some(5), "--kind {kind}: {}", err(&o));
        assert!(out(&o).contains("configmap/web-settings"), "{}", out(&o));
        assert!(!out(&o).contains("pod/"), "{}", out(&o));
    }
    refused(
        &run(&["audit", "-f", f, "--kind", "nonsense"]),
        2,
        "--kind nonsense",
    );
    refused(
        &run(&["audit", "--snapshot", INCIDENT, "--kind", "nonsense"]),
        2,
        "no such kind",
    );
    // A kind Kubernetes has, but a live snapshot's cluster does not serve: an error.
    refused(
        &run(&["audit", "--snapshot", INCIDENT, "--kind", "cronjob"]),
        2,
        "no CronJob resource",
    );
    // Files cannot tell: a warning, and nothing shown.
    let o = run(&["audit", "-f", f, "--kind", "cronjob", "-o", "name"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).contains("warning: --kind cronjob"), "{}", err(&o));
    // Every command that reads a cluster takes the selection flags.
    for cmd in ["audit", "check", "collect", "graph"] {
        refused(
            &run(&[cmd, "--snapshot", INCIDENT, "--kind", "nonsense"]),
            2,
            "nonsense",
        );
        refused(
            &run(&[cmd, "--snapshot", INCIDENT, "-n", "typo"]),
            2,
            "\"typo\" not found",
        );
        refused(
            &run(&[
                cmd,
                "--snapshot",
                INCIDENT,
                "--field-selector",
                "status.phase=Running",
            ]),
            2,
            "cannot be honoured",
        );
    }
}

#[test]
fn field_and_label_selectors_select() {
    let o = run(&[
        "audit",
        "--snapshot",
        INCIDENT,
        "-A",
        "--field-selector",
        "metadata.namespace=monitoring",
        "-o",
        "name",
    ]);
    assert_eq!(out(&o), "statefulset.apps/redis-cache-exporter\n");
    let o = run(&[
        "audit",
        "--snapshot",
        INCIDENT,
        "--field-selector",
        "metadata.name!=redis-cache-exporter",
        "-o",
        "name",
    ]);
    assert_eq!(out(&o), "");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn flags_that_cannot_be_honoured_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let list = fixture(dir.path());
    let f = list.to_str().unwrap();
    // `snapshot -o json` used to write a file named `json`.
    let o = run_env(&["snapshot", "-f", f, "-o", "json"], &[]);
    refused(&o, 2, "looks like an output format");
    assert!(!Path::new("json").exists());
    // `check restart --to 1.25` used to be accepted and ignored.
    refused(
        &run(&["check", "restart", "--snapshot", INCIDENT, "--to", "1.25"]),
        2,
        "--to is for the upgrade check",
    );
    // Cluster flags with file input.
    for flag in [
        &["--context", "prod"][..],
        &["--token", "t"],
        &["-s", "https://x"],
        &["--insecure-skip-tls-verify"],
        &["--as-uid", "u"],
        &["--request-timeout", "5s"],
        &["--concurrency", "3"],
    ] {
        let args = [&["audit", "-f", f][..], flag].concat();
        refused(&run(&args), 2, "nothing is read from a cluster");
    }
    refused(&run(&["audit", "-R"]), 2, "-R walks the directories");
    for sel in [
        &["--kind", "pod"][..],
        &["-l", "a=b"],
        &["--field-selector", "metadata.name=x"],
    ] {
        let args = [&["snapshot", "-f", f, "-o", "x.ndjson"][..], sel].concat();
        refused(&run(&args), 2, "would leave objects out of the snapshot");
    }
    refused(
        &run(&["completion", "bash", "-n", "x"]),
        2,
        "reads no input",
    );
    refused(
        &run(&[
            "audit",
            "--snapshot",
            INCIDENT,
            "-o",
            "json",
            "--no-headers",
        ]),
        2,
        "--no-headers applies to",
    );
    refused(
        &run(&["audit", "--snapshot", INCIDENT, "-o", "json", "-L", "app"]),
        2,
        "-L and --show-labels",
    );
    refused(
        &run(&[
            "collect",
            "--snapshot",
            INCIDENT,
            "--delete",
            "x/y",
            "--kind",
            "pod",
        ]),
        2,
        "--kind with --delete",
    );
    refused(
        &run(&["audit", "--snapshot", INCIDENT, "--events"]),
        2,
        "--events",
    );
}

#[test]
fn kubectl_spellings_parse() {
    // -A=true / -A=false, --insecure-skip-tls-verify=false, -v N, version.
    let o = run(&["audit", "--snapshot", INCIDENT, "-A=true", "-o", "name"]);
    assert_eq!(o.status.code(), Some(5), "{}", err(&o));
    let o = run(&["audit", "--snapshot", INCIDENT, "-A=false", "-o", "name"]);
    assert_eq!(o.status.code(), Some(5), "{}", err(&o));
    let o = run(&["audit", "--snapshot", INCIDENT, "-v", "4", "-o", "name"]);
    assert!(err(&o).contains("reading snapshot"), "{}", err(&o));
    let o = run(&["version"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out(&o).starts_with(concat!("kubectl-gc ", env!("CARGO_PKG_VERSION"))));
    let v: Value = serde_json::from_slice(&run(&["version", "-o", "json"]).stdout).unwrap();
    assert_eq!(v["kind"], "Version");
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    // The releases --gc-version and --to accept, as their errors state them.
    let range = v["gcReleases"].as_str().unwrap().to_owned();
    assert!(out(&o).contains(&range), "{}", out(&o));
    let e = err(&run(&[
        "audit",
        "--snapshot",
        INCIDENT,
        "--gc-version",
        "1.99",
    ]));
    assert!(e.contains(&range), "{e}");
}

#[test]
fn help_lists_global_flags_once_in_options() {
    let options = out(&run(&["options"]));
    for flag in [
        "--kubeconfig",
        "--context",
        "--token",
        "-s, --server",
        "--insecure-skip-tls-verify",
        "--certificate-authority",
        "--client-certificate",
        "--client-key",
        "--tls-server-name",
        "--as-uid",
        "-A, --all-namespaces",
        "-l, --selector",
        "--kind",
        "--field-selector",
        "-v, --v",
        "--snapshot",
        "-f, --filename",
    ] {
        assert!(
            options.contains(flag),
            "{flag} missing from options:\n{options}"
        );
    }
    for cmd in [
        &["audit"][..],
        &["collect"],
        &["check"],
        &["check", "restart"],
        &["check", "upgrade"],
        &["check", "health"],
        &["graph"],
        &["snapshot"],
    ] {
        let help = out(&run(&[cmd, &["--help"]].concat()));
        assert!(!help.contains("--kubeconfig"), "{cmd:?}:\n{help}");
        assert!(help.contains("\nExamples:\n"), "{cmd:?}");
        assert!(help.contains("\nExit codes:\n"), "{cmd:?}");
        assert!(help.contains("kubectl gc options"), "{cmd:?}");
        assert!(
            help.lines().count() < 120,
            "{cmd:?}: {} lines",
            help.lines().count()
        );
    }
    // Global flags still complete.
    let c = out(&run(&["__complete", "audit", "--kube"]));
    assert!(c.starts_with("--kubeconfig"), "{c}");
}

#[test]
fn kubectl_output_formats_golden() {
    let dir = tempfile::tempdir().unwrap();
    let snap = fixture_snapshot(dir.path());
    let s = snap.as_str();
    let cases: &[(&str, &[&str])] = &[
        ("audit.table.txt", &["audit", "--snapshot", s]),
        ("audit.wide.txt", &["audit", "--snapshot", s, "-o", "wide"]),
        ("audit.name.txt", &["audit", "--snapshot", s, "-o", "name"]),
        (
            "audit.jsonpath.txt",
            &[
                "audit",
                "--snapshot",
                s,
                "-o",
                "jsonpath={range .findings[*]}{.code}{\"\\t\"}{.object.namespace}/{.object.name}{\"\\n\"}{end}",
            ],
        ),
        (
            "audit.custom-columns.txt",
            &[
                "audit",
                "--snapshot",
                s,
                "-o",
                "custom-columns=CODE:.code,NAMESPACE:.object.namespace,NAME:.object.name",
                "--sort-by",
                ".object.name",
            ],
        ),
        (
            "audit.labels.txt",
            &[
                "audit",
                "--snapshot",
                s,
                "--kind",
                "cm",
                "-n",
                "shop",
                "-L",
                "app,app.kubernetes.io/part-of",
                "--show-labels",
            ],
        ),
        (
            "audit.no-headers.txt",
            &["audit", "--snapshot", s, "--no-headers", "--kind", "cm"],
        ),
        (
            "audit.yaml.txt",
            &["audit", "--snapshot", INCIDENT, "-o", "yaml"],
        ),
        ("collect.table.txt", &["collect", "--snapshot", s]),
        ("graph.tree.txt", &["graph", "--snapshot", STUCK, "-A"]),
        (
            "graph.yaml.txt",
            &["graph", "--snapshot", STUCK, "-A", "-o", "yaml"],
        ),
        (
            "graph.name.txt",
            &["graph", "--snapshot", STUCK, "-A", "-o", "name"],
        ),
    ];
    for (name, args) in cases {
        let o = run(args);
        assert!(
            matches!(o.status.code(), Some(0 | 5)),
            "{args:?}: {}",
            err(&o)
        );
        golden(name, &out(&o));
    }
}

#[test]
fn yaml_keeps_the_json_field_order() {
    let yaml = out(&run(&["audit", "--snapshot", INCIDENT, "-o", "yaml"]));
    let mut lines = yaml.lines();
    assert_eq!(lines.next(), Some("apiVersion: kubectl-gc.io/v1"));
    assert_eq!(lines.next(), Some("kind: AuditReport"));
    let json: Value =
        serde_json::from_slice(&run(&["audit", "--snapshot", INCIDENT, "-o", "json"]).stdout)
            .unwrap();
    let from_yaml: Value = serde_saphyr::from_str(&yaml).unwrap();
    assert_eq!(from_yaml, json);
    // graph -o yaml is the JSON document.
    let g: Value = serde_saphyr::from_str(&out(&run(&[
        "graph",
        "--snapshot",
        STUCK,
        "-A",
        "-o",
        "yaml",
    ])))
    .unwrap();
    assert_eq!(g["kind"], "OwnershipGraph");
}

#[test]
fn summaries_say_what_they_leave_out() {
    let dir = tempfile::tempdir().unwrap();
    let snap = fixture_snapshot(dir.path());
    // 27 near-identical GC007 rows are one row in -o table, each in -o wide.
    let table = out(&run(&["audit", "--snapshot", &snap, "--fail-on", "never"]));
    let gc007: Vec<&str> = table.lines().filter(|l| l.contains("GC007")).collect();
    assert_eq!(gc007.len(), 1, "{table}");
    assert!(gc007[0].contains("Pod/report-00 (+26 more)"), "{table}");
    assert!(gc007[0].contains("Job/report-00 (+26 more)"), "{table}");
    assert!(
        table.contains("26 similar row(s) grouped (-o wide lists each)"),
        "{table}"
    );
    let wide = out(&run(&["audit", "--snapshot", &snap, "-o", "wide"]));
    assert_eq!(wide.lines().filter(|l| l.contains("GC007")).count(), 27);
    // GC013's OWNER names no owner (C9); its message says what holds it, and for how long.
    let gc013 = table.lines().find(|l| l.contains("GC013")).expect(&table);
    assert!(!gc013.contains("held by"), "{gc013}");
    let gc013 = wide.lines().find(|l| l.contains("GC013")).expect(&wide);
    assert!(
        gc013.contains("terminating for")
            && gc013.contains("held by finalizer(s) example.com/drain"),
        "{gc013}"
    );
    // collect: "… and N more".
    let collect = out(&run(&["collect", "--snapshot", &snap]));
    let last = collect.lines().last().unwrap();
    assert!(
        last.contains("… and 3 more in 3 more kind/namespace pair(s)"),
        "{last}"
    );
    // The suppressed count is in the table's summary line.
    let baseline = dir.path().join("b.json");
    run(&[
        "audit",
        "--snapshot",
        &snap,
        "--write-baseline",
        baseline.to_str().unwrap(),
    ]);
    let t = out(&run(&[
        "audit",
        "--snapshot",
        &snap,
        "--baseline",
        baseline.to_str().unwrap(),
    ]));
    assert!(
        t.lines()
            .last()
            .unwrap()
            .contains("suppressed (kubectl-gc.io/ignore or --baseline)"),
        "{t}"
    );
}

#[test]
fn tables_fit_columns_and_wide_never_truncates() {
    let dir = tempfile::tempdir().unwrap();
    let snap = fixture_snapshot(dir.path());
    for cmd in ["audit", "collect", "check"] {
        let o = run_env(
            &[cmd, "--snapshot", &snap, "--no-headers"],
            &[("COLUMNS", "80")],
        );
        let text = out(&o);
        assert!(!text.is_empty(), "{cmd}");
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{cmd}: {line}");
        }
        // Without a terminal and without COLUMNS: never truncated.
        let full = out(&run(&[cmd, "--snapshot", &snap, "--no-headers"]));
        assert!(!full.contains('…'), "{cmd}: {full}");
        let wide = out(&run_env(
            &[cmd, "--snapshot", &snap, "-o", "wide", "--no-headers"],
            &[("COLUMNS", "80")],
        ));
        assert!(!wide.contains('…'), "{cmd}: {wide}");
    }
}

#[test]
fn graph_reads_kind_name_like_kubectl_and_says_where_with_all_namespaces() {
    let o = run(&[
        "graph",
        "--snapshot",
        STUCK,
        "-n",
        "shop",
        "deployment",
        "checkout",
    ]);
    let o2 = run(&[
        "graph",
        "--snapshot",
        STUCK,
        "-n",
        "shop",
        "deploy/checkout",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(out(&o), out(&o2));
    assert!(
        out(&o).starts_with("NAMESPACE"),
        "the default is the tree: {}",
        out(&o)
    );
    // -A: looked up everywhere, and said where.
    let o = run(&[
        "graph",
        "--snapshot",
        STUCK,
        "-A",
        "deployment/checkout",
        "-o",
        "dot",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(
        err(&o).contains("deployment/checkout: Deployment/checkout -n shop"),
        "{}",
        err(&o)
    );
    // Without -A, in the default namespace: not found (8, as in why), with the hint.
    refused(
        &run(&["graph", "--snapshot", STUCK, "deployment/checkout"]),
        8,
        "not found in namespace \"default\"",
    );
    // A lone KIND: every object of it.
    let o = run(&[
        "graph",
        "--snapshot",
        STUCK,
        "-n",
        "shop",
        "pods",
        "-o",
        "name",
    ]);
    assert!(
        out(&o).contains("pod/checkout-7d9f8c6b5-x2x9q"),
        "{}",
        out(&o)
    );
    refused(
        &run(&["graph", "--snapshot", STUCK, "deployment", "a/b"]),
        2,
        "give names only",
    );
}

#[test]
fn server_and_token_work_without_a_kubeconfig() {
    // No kubeconfig anywhere, --server given: a connection is attempted (and fails here, with
    // the cluster error and its exit code), instead of "no kubeconfig found".
    let o = run_env(
        &[
            "audit",
            "-s",
            "https://127.0.0.1:9",
            "--token",
            "t0ken",
            "--request-timeout",
            "2s",
        ],
        &[("HOME", "/nonexistent-home")],
    );
    let e = err(&o);
    assert_eq!(o.status.code(), Some(4), "{e}");
    assert!(e.contains("https://127.0.0.1:9"), "{e}");
    assert!(!e.contains("t0ken"), "the token is never printed: {e}");
    refused(
        &run_env(
            &[
                "audit",
                "-s",
                "https://127.0.0.1:9",
                "--certificate-authority",
                "/x",
                "--insecure-skip-tls-verify",
            ],
            &[("HOME", "/nonexistent-home")],
        ),
        4,
        "contradict",
    );
}

/// Each check's help lists its own flags only: `check apply --help` used to show upgrade's
/// `--to` and `--crd`, and `check restart --help` apply's `--target`.
#[test]
fn each_checks_help_shows_only_its_own_flags() {
    let flags = |sub: &str| {
        let o = run(&["check", sub, "--help"]);
        assert_eq!(o.status.code(), Some(0));
        let help = String::from_utf8_lossy(&o.stdout).into_owned();
        ["--to ", "--crd ", "--target ", "--restorer "]
            .into_iter()
            .filter(|f| help.lines().any(|l| l.trim_start().starts_with(f)))
            .collect::<Vec<_>>()
    };
    assert_eq!(flags("apply"), ["--target ", "--restorer "]);
    assert_eq!(flags("upgrade"), ["--to ", "--crd "]);
    assert!(flags("restart").is_empty());
    assert!(flags("health").is_empty());
    // `check --to` still adds the upgrade check (crossing 1.20: GC017) to restart and health.
    let o = run(&[
        "check",
        "--to",
        "1.25",
        "--gc-version",
        "1.19",
        "--snapshot",
        INCIDENT,
        "-o",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"GC017\""));
}
