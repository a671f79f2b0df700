//! The binary as users run it: exit codes, error messages, output contracts. No cluster needed.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-gc");
const INCIDENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/redis-operator-incident.json"
);
const STUCK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/stuck-foreground-deletion.json"
);

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("NO_COLOR")
        .env("KUBECONFIG", "/nonexistent-kubeconfig")
        .output()
        .expect("run kubectl-gc")
}

fn run_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&o.stdout)
        )
    })
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn codes(report: &Value) -> Vec<(String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["object"]["name"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// A user-facing error: exit code, `error:` and `hint:` lines, no panic or Debug output.
fn assert_user_error(o: &Output, code: i32) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "stderr: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
    assert!(err.lines().count() <= 2, "one line plus a hint: {err}");
}

#[test]
fn incident_audit_reports_cross_namespace_owner_and_exits_5() {
    let o = run(&["audit", "--snapshot", INCIDENT, "-o", "json"]);
    assert_eq!(o.status.code(), Some(5));
    let r = json(&o);
    assert_eq!(r["apiVersion"], "kubectl-gc.io/v1");
    assert_eq!(r["kind"], "AuditReport");
    assert_eq!(
        codes(&r),
        [("GC004".to_owned(), "redis-cache-exporter".to_owned())]
    );
    let f = &r["findings"][0];
    assert_eq!(f["severity"], "critical");
    assert_eq!(f["ownerReference"]["kind"], "RedisFailover");
    assert_eq!(f["classification"], "dangling");
    assert!(f["consequence"].as_str().unwrap().contains("will delete"));
    assert_eq!(r["summary"]["coverage"]["complete"], true);
}

#[test]
fn incident_audit_as_gc_1_13_reports_collateral_valid_dependents() {
    let r = json(&run(&[
        "audit",
        "--snapshot",
        INCIDENT,
        "-o",
        "json",
        "--gc-version",
        "1.13",
    ]));
    assert_eq!(r["gcVersion"], "1.13");
    let collateral: Vec<String> = codes(&r)
        .into_iter()
        .filter(|(c, _)| c == "GC012")
        .map(|(_, n)| n)
        .collect();
    for name in ["rfr-redis-cache", "rfs-redis-cache"] {
        assert!(
            collateral.iter().filter(|n| *n == name).count() >= 1,
            "{name} in {collateral:?}"
        );
    }
}

#[test]
fn fail_on_and_never() {
    assert_eq!(
        run(&["audit", "--snapshot", INCIDENT, "--fail-on", "never"])
            .status
            .code(),
        Some(0)
    );
    // The stuck example has errors but nothing critical.
    assert_eq!(
        run(&["audit", "--snapshot", STUCK, "--fail-on", "critical"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(run(&["audit", "--snapshot", STUCK]).status.code(), Some(5));
}

#[test]
fn table_output_has_summary_line_and_no_color_when_piped() {
    let o = run(&["audit", "--snapshot", STUCK]);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.starts_with("SEVERITY"), "{out}");
    assert!(out.contains("GC008") && out.contains("to unblock"));
    assert!(
        out.lines()
            .last()
            .unwrap()
            .contains("5 findings (2 error, 1 warning, 2 info) in 4 objects · GC 1.28")
    );
    assert!(
        !out.contains('\u{1b}'),
        "no ANSI codes when stdout is not a terminal"
    );
    let colored =
        String::from_utf8(run(&["audit", "--snapshot", STUCK, "--color", "always"]).stdout)
            .unwrap();
    assert!(colored.contains('\u{1b}'));
}

#[test]
fn yaml_output_is_the_same_document() {
    let o = run(&["audit", "--snapshot", INCIDENT, "-o", "yaml"]);
    let text = String::from_utf8(o.stdout).unwrap();
    let v: Value = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(
        v,
        json(&run(&["audit", "--snapshot", INCIDENT, "-o", "json"]))
    );
}

#[test]
fn filters_namespace_kind_and_selector() {
    // A namespace the snapshot shows does not exist is an error, not "No findings".
    let o = run(&["audit", "--snapshot", STUCK, "-o", "json", "-n", "other"]);
    assert_user_error(&o, 2);
    assert!(
        stderr(&o).contains("namespace \"other\" not found"),
        "{}",
        stderr(&o)
    );
    let kind = json(&run(&[
        "audit",
        "--snapshot",
        STUCK,
        "-o",
        "json",
        "--kind",
        "pod",
    ]));
    assert!(!codes(&kind).is_empty(), "the stuck pods' findings");
    assert!(
        codes(&kind)
            .iter()
            .all(|(_, n)| n.starts_with("checkout-7d9f8c6b5-")),
        "{:?}",
        codes(&kind)
    );
    let sel = json(&run(&[
        "audit",
        "--snapshot",
        INCIDENT,
        "-o",
        "json",
        "-l",
        "app.kubernetes.io/component=exporter",
    ]));
    assert_eq!(sel["findings"].as_array().unwrap().len(), 1);
    let none = json(&run(&[
        "audit",
        "--snapshot",
        INCIDENT,
        "-o",
        "json",
        "-l",
        "app.kubernetes.io/component=redis",
    ]));
    assert_eq!(none["findings"].as_array().unwrap().len(), 0);
    assert_user_error(&run(&["audit", "--snapshot", INCIDENT, "-l", "a in b"]), 2);
}

#[test]
fn malformed_inputs_are_one_line_errors_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.ndjson");
    std::fs::write(&garbage, "this is not json\n").unwrap();
    assert_user_error(&run(&["audit", "--snapshot", garbage.to_str().unwrap()]), 3);
    let truncated = dir.path().join("truncated.ndjson");
    let text = std::fs::read_to_string(INCIDENT).unwrap();
    std::fs::write(
        &truncated,
        text.lines().take(3).collect::<Vec<_>>().join("\n"),
    )
    .unwrap();
    let o = run(&["audit", "--snapshot", truncated.to_str().unwrap()]);
    assert_user_error(&o, 3);
    assert!(stderr(&o).contains("truncated"));
    assert_user_error(&run(&["audit", "--snapshot", "/does/not/exist"]), 3);
    assert_user_error(&run(&["audit", "-f", "/does/not/exist"]), 3);
    // A kubectl List given to --snapshot gets a hint towards -f.
    let list = dir.path().join("list.json");
    std::fs::write(&list, r#"{"apiVersion":"v1","kind":"List","items":[]}"#).unwrap();
    let o = run(&["audit", "--snapshot", list.to_str().unwrap()]);
    assert_user_error(&o, 3);
    assert!(stderr(&o).contains("-f"));
}

#[test]
fn bad_flags_are_usage_errors() {
    let o = run(&["audit", "--no-such-flag"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--no-such-flag"));
    assert_eq!(
        run(&["audit", "--gc-version", "banana", "--snapshot", INCIDENT])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run(&["audit", "-o", "xml", "--snapshot", INCIDENT])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn missing_kubeconfig_is_a_cluster_error() {
    let o = run(&["audit", "--kubeconfig", "/nonexistent/kubeconfig"]);
    assert_user_error(&o, 4);
}

#[test]
fn kubectl_json_on_stdin() {
    let list = r#"{"apiVersion":"v1","kind":"List","items":[
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"a","uid":"p1",
        "ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"gone","uid":"cm1"}]}},
      {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other","namespace":"a","uid":"cm2"}}]}"#;
    let o = run_stdin(
        &["audit", "-f", "-", "-o", "json", "--fail-on", "never"],
        list,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = json(&o);
    // kubectl's own List proves nothing about the ConfigMaps it left out (`kubectl get
    // pod/p cm/other` prints the same): the owner is unknown.
    assert_eq!(codes(&r), [("GC007".to_owned(), "p".to_owned())]);
    assert_eq!(r["summary"]["coverage"]["source"], "files");
    // Declared complete, the missing ConfigMap is absent.
    let o = run_stdin(
        &[
            "audit",
            "-f",
            "-",
            "-o",
            "json",
            "--fail-on",
            "never",
            "--assume-complete",
        ],
        list,
    );
    assert_eq!(codes(&json(&o)), [("GC001".to_owned(), "p".to_owned())]);
}

#[test]
fn kubectl_json_owner_kind_not_in_input_is_unknown() {
    let list = r#"{"apiVersion":"v1","kind":"List","items":[
      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"a","uid":"p1",
        "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"rs1"}]}}]}"#;
    let r = json(&run_stdin(&["audit", "-f", "-", "-o", "json"], list));
    assert_eq!(codes(&r), [("GC007".to_owned(), "p".to_owned())]);
}

#[test]
fn collect_plan_json_contract_and_delete_preview() {
    let o = run(&["collect", "--snapshot", STUCK, "-o", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let r = json(&o);
    assert_eq!(
        (
            r["kind"].as_str(),
            r["mode"].as_str(),
            r["dryRun"].as_bool()
        ),
        (Some("CollectPlan"), Some("collect"), Some(true))
    );
    let outcomes = r["outcomes"].as_array().unwrap();
    let pod = outcomes
        .iter()
        .find(|x| x["target"]["kind"] == "Pod")
        .unwrap();
    assert_eq!(pod["state"], "terminating");
    assert_eq!(pod["finalizers"][0], "example.com/drain-protection");
    let preview = json(&run(&[
        "collect",
        "--snapshot",
        INCIDENT,
        "-o",
        "json",
        "--delete",
        "redisfailover/redis-cache",
        "-n",
        "kube-system",
        "--cascade",
        "background",
    ]));
    assert_eq!(preview["mode"], "delete-preview");
    let a0 = &preview["actions"][0];
    assert_eq!(
        (
            a0["wave"].as_u64(),
            a0["verb"].as_str(),
            a0["propagationPolicy"].as_str()
        ),
        (Some(1), Some("delete"), Some("Background"))
    );
    assert_eq!(
        a0["request"]["body"]["preconditions"]["uid"],
        "5b0c1d9e-8a41-4c7e-9f0e-2d6a1c3b7e10"
    );
    // The RedisFailover and its 5 dependents in kube-system, plus the exporter StatefulSet and
    // its pod: the exporter is a dependent of the RedisFailover's graph node (linked by UID), so
    // the owner's delete event enqueues it, and looked up in `monitoring` its owner is absent.
    let deleted = preview["summary"]["deleted"].as_u64().unwrap();
    assert_eq!(
        deleted,
        8,
        "{}",
        serde_json::to_string_pretty(&preview["summary"]).unwrap()
    );
    assert_user_error(
        &run(&["collect", "--snapshot", INCIDENT, "--delete", "nope/x"]),
        2,
    );
}

#[test]
fn check_exit_codes_baseline_and_strict_coverage() {
    let dir = tempfile::tempdir().unwrap();
    // Findings → 5.
    let o = run(&["check", "--snapshot", INCIDENT, "-o", "json"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(r["kind"], "CheckReport");
    assert!(codes(&r).contains(&("GC015".to_owned(), "redis-cache-exporter".to_owned())));
    // Baseline written, then accepted → 0.
    let b = dir.path().join("baseline.json");
    assert_eq!(
        run(&[
            "check",
            "--snapshot",
            INCIDENT,
            "--write-baseline",
            b.to_str().unwrap()
        ])
        .status
        .code(),
        Some(0),
        "writing a baseline is the adoption step: it succeeds"
    );
    let o = run(&[
        "check",
        "--snapshot",
        INCIDENT,
        "--baseline",
        b.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(json(&o)["summary"]["suppressed"].as_u64().unwrap() >= 2);
    // Incomplete coverage → 6 only with --strict-coverage.
    let text = std::fs::read_to_string(INCIDENT).unwrap().replacen(
        r#""plural":"configmaps","namespaced":true,"verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"preferredVersion":"v1","outcome":"complete""#,
        r#""plural":"configmaps","namespaced":true,"verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"preferredVersion":"v1","outcome":"forbidden","message":"nope""#,
        1,
    );
    // An edited snapshot no longer matches its trailer: drop the trailer (as in snapshots
    // written before trailers existed, which are read with a note).
    let text: String = text
        .lines()
        .filter(|l| !l.starts_with(r#"{"trailer""#))
        .map(|l| format!("{l}\n"))
        .collect();
    let gappy = dir.path().join("gappy.ndjson");
    std::fs::write(&gappy, text).unwrap();
    let args = ["check", "health", "--snapshot", gappy.to_str().unwrap()];
    assert_eq!(run(&args).status.code(), Some(0));
    assert_eq!(
        run(&[&args[..], &["--strict-coverage"]].concat())
            .status
            .code(),
        Some(6)
    );
    // Usage.
    assert_user_error(&run(&["check", "upgrade", "--snapshot", INCIDENT]), 2);
}

#[test]
fn check_upgrade_needs_a_known_newer_target_and_reports_changed_decisions() {
    // A target that is not newer than the input's release (1.21.4, recorded in the snapshot)
    // is a usage error, not an "upgrade" that reports nothing.
    assert_user_error(
        &run(&["check", "upgrade", "--to", "1.19", "--snapshot", INCIDENT]),
        2,
    );
    // A file input records no server version: the source release must be given.
    let shop = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/shop-kubectl-get.yaml"
    );
    assert_user_error(&run(&["check", "upgrade", "--to", "1.25", "-f", shop]), 2);
    // From 1.19 across 1.20: the cross-namespace dependent is now deleted for every list
    // order, and the valid ones in the owner's namespace are no longer at risk.
    let r = json(&run(&[
        "check",
        "upgrade",
        "--to",
        "1.21",
        "--gc-version",
        "1.19",
        "--snapshot",
        INCIDENT,
        "-o",
        "json",
        "--fail-on",
        "never",
    ]));
    let changed: Vec<(String, String)> = codes(&r)
        .into_iter()
        .filter(|(c, _)| c == "GC017")
        .collect();
    assert!(
        changed.iter().any(|(_, n)| n == "redis-cache-exporter"),
        "{changed:?}"
    );
    assert!(
        changed.iter().any(|(_, n)| n == "rfr-redis-cache"),
        "{changed:?}"
    );
}

#[test]
fn version_shows_build_info() {
    let o = run(&["--version"]);
    let v = String::from_utf8(o.stdout).unwrap();
    assert!(
        v.starts_with(concat!("kubectl-gc ", env!("CARGO_PKG_VERSION"), " (")),
        "{v}"
    );
}

#[test]
fn graph_with_nothing_selected_prints_no_table() {
    let o = run(&[
        "graph",
        "--snapshot",
        INCIDENT,
        "--uid",
        "00000000-0000-0000-0000-000000000000",
        "-o",
        "tree",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(stderr(&o).contains("nothing to show"), "{}", stderr(&o));
}

/// F14: a cluster-scoped kind named with `--kind` is listed whole whatever the namespace, as
/// `kubectl get clusterrolebindings -n NS` lists them all; and the summary counts exactly the
/// objects the list selects (it used to say "nothing to do" above "2 object(s) deleted").
#[test]
fn collect_of_a_cluster_scoped_kind_in_a_namespace_lists_what_its_summary_counts() {
    let dir = tempfile::tempdir().unwrap();
    // Owners that are gone, of kinds the input holds (so their absence is known).
    let gone = |api: &str, kind: &str, name: &str| {
        serde_json::json!([{"apiVersion": api, "kind": kind, "name": name,
            "uid": format!("gone-{name}")}])
    };
    let rbac = "rbac.authorization.k8s.io/v1";
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List",
        "metadata": {"resourceVersion": "1"}, "items": [
        {"apiVersion": rbac, "kind": "ClusterRole", "metadata": {"name": "kept", "uid": "u-cr"}},
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "kept", "namespace": "default", "uid": "u-dep"}},
        {"apiVersion": rbac, "kind": "ClusterRoleBinding", "metadata": {"name": "crb-1",
         "uid": "u-crb-1", "ownerReferences": gone(rbac, "ClusterRole", "op")}},
        {"apiVersion": rbac, "kind": "ClusterRoleBinding", "metadata": {"name": "crb-2",
         "uid": "u-crb-2", "ownerReferences": gone(rbac, "ClusterRole", "op")}},
        {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"name": "cm", "namespace": "default", "uid": "u-cm",
                      "ownerReferences": gone("apps/v1", "Deployment", "web")}},
    ]});
    let f = dir.path().join("f14.json");
    std::fs::write(&f, list.to_string()).unwrap();
    let f = f.to_str().unwrap();
    let text = |args: &[&str]| {
        let o = run(args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    };
    let base = ["collect", "-f", f, "--assume-complete", "-n", "default"];
    let crbs = text(&[&base[..], &["--kind", "clusterrolebindings"]].concat());
    assert!(!crbs.contains("nothing to do"), "{crbs}");
    assert!(crbs.contains("crb-1") && crbs.contains("crb-2"), "{crbs}");
    assert!(!crbs.contains(" cm "), "{crbs}");
    assert!(
        crbs.contains("2 object(s) deleted (2 ClusterRoleBinding)"),
        "{crbs}"
    );
    // The namespace alone selects its own objects, and the summary says only those.
    let ns = text(&base);
    assert!(ns.contains("cm"), "{ns}");
    assert!(!ns.contains("crb-1"), "{ns}");
    assert!(
        ns.contains("1 object(s) deleted (1 ConfigMap in default)"),
        "{ns}"
    );
    // The JSON agrees.
    let o = run(&[&base[..], &["--kind", "clusterrolebindings", "-o", "json"]].concat());
    let r = json(&o);
    let targets: Vec<&str> = r["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["target"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(targets, ["crb-1", "crb-2"]);
    assert!(
        r["outcomes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["target"]["kind"] == "ClusterRoleBinding"),
        "{r:#}"
    );
}
