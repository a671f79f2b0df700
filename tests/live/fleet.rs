//! Fleet: `audit|check --context a,b` and `--all-contexts` against two real control planes
//! (`east` and `west`) in one kubeconfig, plus `west-viewer` (read-only: coverage gaps) and
//! `dead` (nothing listens). Every report is checked against `schemas/` (and SARIF against
//! the 2.1.0 schema); the last test validates `collect --apply`'s `ApplyResult` and record
//! lines, which need a live cluster.

use crate::harness::{Suite, Test};
use crate::support::schema::{assert_valid, assert_valid_sarif};
use crate::testenv::TestEnv;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;

pub struct Ctx {
    east: TestEnv,
    west: TestEnv,
    /// The merged kubeconfig: contexts east, west, west-viewer, dead.
    kubeconfig: PathBuf,
    /// Scratch directory for output files.
    out: PathBuf,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "fleet",
    setup: || {
        let east = TestEnv::start(false)?;
        let west = TestEnv::start(false)?;
        let yaml = format!(
            "apiVersion: v1
kind: Config
clusters:
- name: east
  cluster: {{server: {east}, insecure-skip-tls-verify: true}}
- name: west
  cluster: {{server: {west}, insecure-skip-tls-verify: true}}
- name: dead
  cluster: {{server: 'https://127.0.0.1:1', insecure-skip-tls-verify: true}}
users:
- name: east-admin
  user: {{token: {east_token}}}
- name: west-admin
  user: {{token: {west_token}}}
- name: west-viewer
  user: {{token: {viewer_token}}}
contexts:
- name: east
  context: {{cluster: east, user: east-admin, namespace: default}}
- name: west
  context: {{cluster: west, user: west-admin, namespace: default}}
- name: west-viewer
  context: {{cluster: west, user: west-viewer, namespace: default}}
- name: dead
  context: {{cluster: dead, user: east-admin, namespace: default}}
current-context: east
",
            east = east.server,
            west = west.server,
            east_token = east.admin_token,
            west_token = west.admin_token,
            viewer_token = west.viewer_token,
        );
        let kubeconfig = east.write_kubeconfig("fleet-kubeconfig", &yaml);
        let out = east.dir.join("fleet-out");
        std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
        Ok(Ctx {
            east,
            west,
            kubeconfig,
            out,
        })
    },
    tests: &[
        Test {
            name: "fixtures",
            needs: &[],
            run: fixtures,
        },
        Test {
            name: "audit_two_clusters_into_one_report",
            needs: &["fixtures"],
            run: audit_two_clusters_into_one_report,
        },
        Test {
            name: "an_unreachable_cluster_never_hides_the_others",
            needs: &["fixtures"],
            run: an_unreachable_cluster_never_hides_the_others,
        },
        Test {
            name: "all_contexts_in_every_format",
            needs: &["fixtures"],
            run: all_contexts_in_every_format,
        },
        Test {
            name: "check_fleet_and_one_baseline",
            needs: &["fixtures"],
            run: check_fleet_and_one_baseline,
        },
        Test {
            name: "selection_and_list_forms_across_clusters",
            needs: &["fixtures"],
            run: selection_and_list_forms_across_clusters,
        },
        Test {
            name: "apply_result_and_record_match_their_schemas",
            needs: &["fixtures"],
            run: apply_result_and_record_match_their_schemas,
        },
    ],
};

fn apply(env: &TestEnv, doc: &Value) {
    env.kubectl_stdin(&["apply", "-f", "-"], Some(&doc.to_string()))
        .unwrap_or_else(|e| panic!("{e}"));
}

fn configmap(ns: &str, name: &str, owner_uid: Option<&str>) -> Value {
    let mut meta = json!({"name": name, "namespace": ns});
    if let Some(uid) = owner_uid {
        meta["ownerReferences"] = json!([{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-gone", "uid": uid,
        }]);
    }
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta})
}

/// east: a ConfigMap whose ReplicaSet is gone (GC001, an error). west: nothing wrong.
fn fixtures(ctx: &Ctx) {
    for env in [&ctx.east, &ctx.west] {
        apply(
            env,
            &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}),
        );
    }
    apply(
        &ctx.east,
        &configmap(
            "shop",
            "orphaned-settings",
            Some("9d2c1b6e-0000-4000-8000-00000000dead"),
        ),
    );
    apply(&ctx.west, &configmap("shop", "settings", None));
}

/// The selection flags apply to every cluster, and kubectl's list forms (`-o name`,
/// `custom-columns=`, `jsonpath=`) read every cluster's findings, to stdout or a file alike.
fn selection_and_list_forms_across_clusters(ctx: &Ctx) {
    let (code, out, err) = kubectl_gc(
        ctx,
        &["audit", "--context", "east,west", "-A", "-o", "name"],
    );
    assert_eq!(code, 5, "{err}");
    assert_eq!(out, "configmap/orphaned-settings\n", "{err}");
    let columns = "custom-columns=CLUSTER:.cluster,CODE:.code,NAME:.object.name";
    let (code, out, err) = kubectl_gc(
        ctx,
        &[
            "audit",
            "--context",
            "east,west",
            "-n",
            "shop",
            "--kind",
            "cm",
            "-o",
            columns,
        ],
    );
    assert_eq!(code, 5, "{err}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        [
            vec!["CLUSTER", "CODE", "NAME"],
            vec!["east", "GC001", "orphaned-settings"]
        ],
        "{out}"
    );
    // Another namespace or kind selects nothing in either cluster: no finding, exit 0.
    for selection in [["-n", "default"], ["--kind", "deploy"]] {
        let mut args = vec!["audit", "--context", "east,west", "-o", "json"];
        args.extend(selection);
        let (code, out, err) = kubectl_gc(ctx, &args);
        assert_eq!(code, 0, "{selection:?}: {err}");
        let doc = parse(&out);
        assert_eq!(doc["summary"]["findings"], 0, "{selection:?}: {out}");
        assert_eq!(doc["summary"]["audited"], 2, "{selection:?}: {out}");
    }
    // jsonpath over the FleetReport, into a file.
    let file = ctx.out.join("fleet-contexts.txt");
    let (code, out, err) = kubectl_gc(
        ctx,
        &[
            "audit",
            "--context",
            "east,west",
            "-A",
            "-o",
            "jsonpath={.clusters[*].context}",
            "--output-file",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 5, "{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), "east west");
    // -L needs the objects' labels, gone once a cluster is analysed: refused, with the reason.
    let (code, _, err) = kubectl_gc(ctx, &["audit", "--context", "east,west", "-L", "app"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("-L and --show-labels"), "{err}");
}

fn kubectl_gc(ctx: &Ctx, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(args)
        .args(["--kubeconfig", ctx.kubeconfig.to_str().unwrap()])
        .args(["--request-timeout", "10s"])
        .env("NO_COLOR", "1")
        .output()
        .expect("run kubectl-gc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

fn cluster<'v>(doc: &'v Value, context: &str) -> &'v Value {
    doc["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .find(|c| c["context"] == context)
        .unwrap_or_else(|| panic!("no cluster {context} in {doc}"))
}

fn codes(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            format!(
                "{} {}",
                f["code"].as_str().unwrap(),
                f["object"]["name"].as_str().unwrap_or("-")
            )
        })
        .collect()
}

fn audit_two_clusters_into_one_report(ctx: &Ctx) {
    let (code, out, err) = kubectl_gc(
        ctx,
        &["audit", "--context", "east,west", "-A", "-o", "json"],
    );
    assert_eq!(code, 5, "the worst of east (5) and west (0)\n{err}");
    let doc = parse(&out);
    assert_valid(
        "fleet-report.schema.json",
        &doc,
        "audit --context east,west",
    );
    assert_eq!(doc["kind"], "FleetReport");
    assert_eq!(doc["exitCode"], 5);
    let east = cluster(&doc, "east");
    let west = cluster(&doc, "west");
    assert_eq!(east["exitCode"], 5);
    assert_eq!(west["exitCode"], 0);
    assert!(
        codes(&east["report"]).contains(&"GC001 orphaned-settings".to_owned()),
        "{east}"
    );
    assert!(
        !codes(&west["report"])
            .iter()
            .any(|c| c.starts_with("GC001")),
        "{west}"
    );
    // Per-cluster version and coverage, from each cluster.
    for c in [east, west] {
        let r = &c["report"];
        // The exact release the server reports (the testenv is v1.20.2).
        assert_eq!(r["gcVersion"], "1.20.2", "{c}");
        assert!(
            r["source"]["serverVersion"]
                .as_str()
                .unwrap()
                .starts_with("v1.20"),
            "{c}"
        );
        assert_eq!(r["summary"]["coverage"]["complete"], true, "{c}");
        assert_eq!(r["source"]["context"], c["context"]);
    }
    // Each cluster was read from its own server.
    assert_ne!(
        east["report"]["source"]["inputs"],
        west["report"]["source"]["inputs"]
    );
    // Not a terminal: no "listed N objects" lines; with -v, one per cluster, named.
    assert!(!err.contains("listed "), "{err}");
    let (code, _, err) = kubectl_gc(
        ctx,
        &[
            "audit",
            "--context",
            "east,west",
            "-A",
            "-o",
            "json",
            "-v",
            "1",
        ],
    );
    assert_eq!(code, 5, "{err}");
    assert!(
        err.contains("east: listed ") && err.contains("west: listed "),
        "{err}"
    );
    // The table carries the cluster.
    let (code, out, err) = kubectl_gc(ctx, &["audit", "--context", "east,west", "-A"]);
    assert_eq!(code, 5, "{err}");
    assert!(out.starts_with("CLUSTER"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("east ") && l.contains("ConfigMap/orphaned-settings")),
        "{out}"
    );
    assert!(
        out.contains("\neast: ") && out.contains("\nwest: "),
        "{out}"
    );
}

fn an_unreachable_cluster_never_hides_the_others(ctx: &Ctx) {
    let (code, out, err) = kubectl_gc(
        ctx,
        &["audit", "--context", "east,dead,west", "-A", "-o", "json"],
    );
    assert_eq!(code, 4, "an unreadable cluster is the worst outcome\n{err}");
    let doc = parse(&out);
    assert_valid("fleet-report.schema.json", &doc, "with a dead cluster");
    let dead = cluster(&doc, "dead");
    assert_eq!(dead["exitCode"], 4);
    assert!(dead["error"]["message"].is_string(), "{dead}");
    assert!(dead.get("report").is_none());
    assert!(
        codes(&cluster(&doc, "east")["report"]).contains(&"GC001 orphaned-settings".to_owned())
    );
    assert_eq!(doc["summary"]["failed"], 1);
    assert_eq!(doc["summary"]["audited"], 2);
    assert!(err.contains("dead: error:"), "{err}");
    // The order asked for is kept.
    let order: Vec<&str> = doc["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["context"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["east", "dead", "west"]);
}

fn all_contexts_in_every_format(ctx: &Ctx) {
    let contexts = ["dead", "east", "west", "west-viewer"];
    // SARIF: one run per cluster, valid 2.1.0; the dead cluster's run failed.
    let (code, out, err) = kubectl_gc(ctx, &["audit", "--all-contexts", "-A", "-o", "sarif"]);
    assert_eq!(code, 4, "{err}");
    let log = parse(&out);
    assert_valid_sarif(&log, "fleet SARIF");
    let runs = log["runs"].as_array().unwrap();
    let names: Vec<&str> = runs
        .iter()
        .map(|r| r["properties"]["cluster"].as_str().unwrap())
        .collect();
    assert_eq!(names, contexts);
    assert_eq!(runs[0]["invocations"][0]["executionSuccessful"], false);
    assert!(runs[1]["results"].as_array().unwrap().iter().any(|r| {
        r["ruleId"] == "GC001"
            && r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                == "east/shop/ConfigMap/orphaned-settings"
    }));
    // JUnit: one suite per cluster; the viewer's coverage case fails with --strict-coverage.
    let (_, out, _) = kubectl_gc(
        ctx,
        &[
            "audit",
            "--all-contexts",
            "-A",
            "-o",
            "junit",
            "--strict-coverage",
        ],
    );
    let doc = roxmltree::Document::parse(&out).expect("well-formed JUnit");
    let suites: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(suites, contexts);
    let viewer_coverage = doc
        .descendants()
        .find(|n| n.attribute("classname") == Some("west-viewer.coverage"))
        .expect("the viewer's coverage case");
    assert!(
        viewer_coverage
            .children()
            .any(|n| n.has_tag_name("failure")),
        "the read-only context cannot list everything"
    );
    // Markdown and HTML name every cluster.
    let (_, md, _) = kubectl_gc(ctx, &["audit", "--all-contexts", "-A", "-o", "markdown"]);
    for c in contexts {
        assert!(md.contains(&format!("| `{c}` |")), "{c} missing:\n{md}");
    }
    assert!(md.contains("could not be audited"), "{md}");
    let html_path = ctx.out.join("fleet.html");
    let (code, out, err) = kubectl_gc(
        ctx,
        &[
            "audit",
            "--all-contexts",
            "-A",
            "-o",
            "html",
            "--output-file",
            html_path.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 4, "{err}");
    assert!(out.is_empty());
    let page = std::fs::read_to_string(&html_path).unwrap();
    // Offline: nothing is loaded from anywhere (the dead cluster's error text names its URL,
    // as text).
    let doc = roxmltree::Document::parse_with_options(
        &page,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("well-formed HTML");
    for n in doc.descendants().filter(|n| n.is_element()) {
        assert!(
            !["script", "link", "img", "iframe", "object", "embed"].contains(&n.tag_name().name()),
            "<{}> in the report",
            n.tag_name().name()
        );
        for a in n.attributes() {
            assert!(!a.value().contains("://"), "{}={:?}", a.name(), a.value());
        }
    }
    // url() only for the pictures' own arrow markers.
    assert!(
        page.match_indices("url(")
            .all(|(i, _)| page[i..].starts_with("url(#")),
        "a url() that is not a fragment of the page"
    );
    for c in contexts {
        assert!(page.contains(&format!("Cluster <code>{c}</code>")), "{c}");
    }
    // YAML: the same FleetReport.
    let (_, out, _) = kubectl_gc(ctx, &["audit", "--all-contexts", "-A", "-o", "yaml"]);
    let doc: Value = serde_saphyr::from_str(&out).expect("YAML");
    assert_valid("fleet-report.schema.json", &doc, "fleet YAML");
}

fn check_fleet_and_one_baseline(ctx: &Ctx) {
    let (code, out, err) = kubectl_gc(
        ctx,
        &["check", "--context", "east,west", "-A", "-o", "json"],
    );
    assert!(code == 0 || code == 5, "{err}");
    let doc = parse(&out);
    assert_valid(
        "fleet-report.schema.json",
        &doc,
        "check --context east,west",
    );
    assert_eq!(doc["reportKind"], "CheckReport");
    assert_eq!(cluster(&doc, "east")["report"]["kind"], "CheckReport");
    // One baseline for both clusters: writing it succeeds, and it silences them both.
    let baseline = ctx.out.join("fleet-baseline.json");
    let b = baseline.to_str().unwrap();
    let (code, _, err) = kubectl_gc(
        ctx,
        &[
            "audit",
            "--context",
            "east,west",
            "-A",
            "--write-baseline",
            b,
            "-o",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let written = parse(&std::fs::read_to_string(&baseline).unwrap());
    assert_valid("baseline.schema.json", &written, "fleet baseline");
    assert!(err.contains("of 2 cluster(s)"), "{err}");
    let (code, out, err) = kubectl_gc(
        ctx,
        &[
            "audit",
            "--context",
            "east,west",
            "-A",
            "--baseline",
            b,
            "-o",
            "json",
            "--fail-on",
            "info",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let doc = parse(&out);
    assert!(
        cluster(&doc, "east")["report"]["summary"]["suppressed"]
            .as_u64()
            .unwrap()
            >= 1
    );
}

fn apply_result_and_record_match_their_schemas(ctx: &Ctx) {
    let record = ctx.out.join("apply-record.json");
    let (code, out, err) = kubectl_gc(
        ctx,
        &[
            "collect",
            "--context",
            "east",
            "-n",
            "shop",
            "--apply",
            "--yes",
            "-o",
            "json",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let doc = parse(&out);
    assert_valid("apply-result.schema.json", &doc, "collect --apply -o json");
    assert_eq!(doc["result"]["done"], 1, "{doc}");
    let text = std::fs::read_to_string(&record).unwrap();
    for (i, line) in text.lines().enumerate() {
        assert_valid(
            "apply-record.schema.json",
            &parse(line),
            &format!("record line {}", i + 1),
        );
    }
    // The orphaned ConfigMap is gone: east is clean now.
    let (code, _, err) = kubectl_gc(ctx, &["audit", "--context", "east,west", "-n", "shop"]);
    assert_eq!(code, 0, "{err}");
}
