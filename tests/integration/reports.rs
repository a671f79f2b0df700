//! The CI report formats (SARIF, JUnit, Markdown, HTML), `--output-file`, the JSON Schemas of
//! `schemas/` against real outputs of every command, and the fleet's offline behaviour.
//!
//! Golden files are in `tests/golden/reports/` (the crate version is written as `VERSION`);
//! regenerate them after an intended change with
//! `KGC_UPDATE_GOLDEN=1 cargo test --test integration reports::` and review the diff.

use crate::support::run::kubectl_gc;
use crate::support::schema::{assert_valid, assert_valid_sarif, schemas};
use kubectl_gc::catalog::KubeVersion;
use kubectl_gc::diagnose::{Finding, Severity};
use kubectl_gc::gc::GarbageCollector;
use kubectl_gc::render::ci::{CiReport, ClusterError, ClusterOutcome, ClusterReport};
use kubectl_gc::render::{audit as view, html, junit, markdown, sarif};
use kubectl_gc::snapshot::Snapshot;
use kubectl_gc::testkit::Cluster;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/reports")
}

/// Compares `actual` (the crate version replaced by `VERSION`) with a golden file.
fn golden(name: &str, actual: &str) {
    let actual = actual.replace(env!("CARGO_PKG_VERSION"), "VERSION");
    let path = golden_dir().join(name);
    if std::env::var_os("KGC_UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (create it with KGC_UPDATE_GOLDEN=1)",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "{} differs from the output:\n--- expected\n{expected}\n--- actual\n{actual}",
        path.display()
    );
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON: {e}\n{text}"))
}

// ---------------------------------------------------------------------------------------------
// Golden files of every format, from the examples

const FORMATS: [(&str, &str); 4] = [
    ("sarif", "sarif"),
    ("junit", "junit.xml"),
    ("markdown", "md"),
    ("html", "html"),
];

#[test]
fn every_format_of_the_examples_matches_its_golden_file() {
    for (example_file, stem, args) in [
        (
            "stuck-foreground-deletion.json",
            "stuck-foreground",
            &["audit", "-A"][..],
        ),
        (
            "redis-operator-incident.json",
            "redis",
            &["audit", "-A"][..],
        ),
        (
            "redis-operator-incident.json",
            "redis-check",
            &["check", "-A", "--fail-on", "critical"][..],
        ),
    ] {
        let snap = example(example_file);
        for (format, ext) in FORMATS {
            let mut a: Vec<&str> = args.to_vec();
            a.extend(["--snapshot", &snap, "-o", format]);
            let (code, out, err) = kubectl_gc(&a);
            assert!(code == 0 || code == 5, "{a:?}: {code} {err}");
            golden(&format!("{stem}.{ext}"), &out);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// SARIF

#[test]
fn sarif_is_valid_2_1_0_with_rules_and_fingerprints() {
    let (code, out, err) = kubectl_gc(&[
        "audit",
        "--snapshot",
        &example("redis-operator-incident.json"),
        "-A",
        "-o",
        "sarif",
    ]);
    assert_eq!(code, 5, "{err}");
    let doc = json(&out);
    assert_valid_sarif(&doc, "audit -o sarif");
    let run = &doc["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(
        rules.len(),
        kubectl_gc::diagnose::Code::ALL.len(),
        "one rule per finding code"
    );
    assert_eq!(rules[3]["id"], "GC004");
    assert!(
        rules[3]["help"]["text"]
            .as_str()
            .unwrap()
            .contains("another namespace")
    );
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    let r = &results[0];
    assert_eq!(r["ruleId"], "GC004");
    assert_eq!(r["ruleIndex"], 3);
    assert_eq!(r["level"], "error");
    assert_eq!(r["properties"]["severity"], "critical");
    let fp = r["partialFingerprints"]["kubectlGc/v1"].as_str().unwrap();
    assert!(fp.starts_with("GC004/"), "{fp}");
    // The fingerprint is the finding's identity: stable across runs, unlike messages.
    let (_, again, _) = kubectl_gc(&[
        "audit",
        "--snapshot",
        &example("redis-operator-incident.json"),
        "-A",
        "-o",
        "sarif",
    ]);
    assert_eq!(
        json(&again)["runs"][0]["results"][0]["partialFingerprints"],
        r["partialFingerprints"]
    );
    assert_eq!(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "prod-eu1/monitoring/StatefulSet/redis-cache-exporter"
    );
    assert_eq!(run["automationDetails"]["id"], "kubectl-gc-audit/prod-eu1/");
}

// ---------------------------------------------------------------------------------------------
// JUnit

#[test]
fn junit_parses_back_with_one_case_per_finding() {
    let (code, out, err) = kubectl_gc(&[
        "audit",
        "--snapshot",
        &example("stuck-foreground-deletion.json"),
        "-A",
        "-o",
        "junit",
    ]);
    assert_eq!(code, 5, "{err}");
    let doc = roxmltree::Document::parse(&out).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let cases: Vec<_> = root
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    // 5 findings + the coverage case.
    assert_eq!(cases.len(), 6);
    assert_eq!(root.attribute("tests"), Some("6"));
    let failures = cases
        .iter()
        .filter(|c| c.children().any(|n| n.has_tag_name("failure")))
        .count();
    // GC008 ×2 are errors (≥ --fail-on error); the warning and the infos are skipped.
    assert_eq!(failures, 2);
    assert_eq!(root.attribute("failures"), Some("2"));
    assert_eq!(root.attribute("skipped"), Some("3"));
    assert!(cases.iter().any(|c| c.attribute("classname")
        == Some("prod-eu1.GC008 blocked-foreground-deletion")
        && c.attribute("name") == Some("Deployment/checkout -n shop")));
    // --fail-on never: nothing fails.
    let (_, out, _) = kubectl_gc(&[
        "audit",
        "--snapshot",
        &example("stuck-foreground-deletion.json"),
        "-A",
        "-o",
        "junit",
        "--fail-on",
        "never",
    ]);
    let doc = roxmltree::Document::parse(&out).unwrap();
    assert_eq!(doc.root_element().attribute("failures"), Some("0"));
}

// ---------------------------------------------------------------------------------------------
// HTML

#[test]
fn html_is_offline_and_well_formed_with_pictures() {
    let (code, out, err) = kubectl_gc(&[
        "audit",
        "--snapshot",
        &example("redis-operator-incident.json"),
        "-A",
        "-o",
        "html",
    ]);
    assert_eq!(code, 5, "{err}");
    assert!(!out.contains("http"), "an http URL in the offline report");
    assert!(!out.contains("<script"), "no script is needed");
    let doc = roxmltree::Document::parse_with_options(
        &out,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("well-formed");
    let svgs = doc.descendants().filter(|n| n.has_tag_name("svg")).count();
    assert_eq!(svgs, 1, "one affected component, one picture");
    // The dangling cross-namespace reference is drawn dashed red.
    assert!(doc.descendants().any(|n| n.has_tag_name("path")
        && n.attribute("class") == Some("ref dangling")
        && n.attribute("stroke-dasharray").is_some()),);
    // Every object of the component is drawn.
    let boxes = doc
        .descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("obj"))
        .count();
    assert_eq!(boxes, 8);
}

// ---------------------------------------------------------------------------------------------
// Hostile names

/// Objects whose names try to inject markup into each format.
fn hostile() -> Snapshot {
    let mut c = Cluster::new();
    c.obj(
        "v1",
        "ConfigMap",
        "shop",
        "</td><script>alert(1)</script>",
        "u-1",
    )
    .owner("apps/v1", "ReplicaSet", "a|b`c`@org/team", "u-gone");
    c.obj("v1", "ConfigMap", "shop", "x]]>&amp;\u{1}\n# h", "u-2")
        .owner(
            "apps/v1",
            "ReplicaSet",
            "<img src=x onerror=alert(1)>",
            "u-gone-2",
        );
    c.obj(
        "v1",
        "ConfigMap",
        "shop",
        "[link](javascript:alert(1))",
        "u-3",
    )
    .owner("v1", "ConfigMap", "**bold** $x$ \\ ~~s~~", "u-gone-3");
    c.build()
}

fn ci_of(snap: &Snapshot) -> CiReport {
    let gc = GarbageCollector::new(snap, KubeVersion::NEWEST);
    let audit = kubectl_gc::diagnose::audit(&gc);
    let findings: Vec<&Finding> = audit.findings.iter().collect();
    let report = view::report(&gc, &audit, &findings);
    let components = html::components(&gc, &findings, Some(&audit.plan));
    CiReport {
        command: "audit",
        fail_on: Some(Severity::Error),
        strict_coverage: false,
        clusters: vec![
            ClusterReport {
                name: "<b>prod</b>|`x`".into(),
                exit_code: 5,
                outcome: ClusterOutcome::Report {
                    report: Box::new(report),
                    components,
                },
            },
            ClusterReport {
                name: "edge\"><svg onload=alert(1)>".into(),
                exit_code: 4,
                outcome: ClusterOutcome::Failed(ClusterError {
                    message: "cannot connect to <https://x>: `refused` | **now**".into(),
                    hint: Some("check </details> the VPN".into()),
                }),
            },
        ],
    }
}

fn render(
    f: fn(&mut dyn std::io::Write, &CiReport) -> std::io::Result<()>,
    r: &CiReport,
) -> String {
    let mut out = Vec::new();
    f(&mut out, r).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn hostile_names_stay_text_in_every_format() {
    let snap = hostile();
    let r = ci_of(&snap);
    assert!(r.clusters[0].report().unwrap().findings.len() >= 3);

    // HTML and JUnit: well-formed, no element or attribute from the names.
    let page = render(html::write, &r);
    let doc = roxmltree::Document::parse_with_options(
        &page,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("HTML with hostile names is well-formed");
    for bad in ["script", "img", "b"] {
        assert!(
            !doc.descendants().any(|n| n.has_tag_name(bad)),
            "<{bad}> injected"
        );
    }
    assert!(!doc.descendants().any(|n| n.attribute("onload").is_some()));
    assert_eq!(
        doc.descendants().filter(|n| n.has_tag_name("svg")).count(),
        3
    );
    assert!(page.contains("&lt;/td&gt;&lt;script&gt;"));
    assert!(!page.contains('\u{1}'));

    let xml = render(junit::write, &r);
    let doc = roxmltree::Document::parse(&xml).expect("JUnit with hostile names is well-formed");
    let names: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert!(
        names.contains(
            &"ConfigMap/</td><script>alert(1)</script> -n shop (owner ReplicaSet/a|b`c`@org/team)"
        ),
        "{names:?}"
    );
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("error"))
            .count(),
        1,
        "the unreachable cluster is an error case"
    );

    // SARIF: valid, the names intact in the JSON strings, URIs percent-encoded.
    let log: Value = serde_json::from_str(&render(sarif::write, &r)).unwrap();
    assert_valid_sarif(&log, "SARIF with hostile names");
    assert_eq!(
        log["runs"][1]["invocations"][0]["executionSuccessful"],
        false
    );

    // Markdown: no raw HTML from names outside code spans (inside, it is literal text), every
    // table row keeps its columns.
    let md = markdown::render(&r, markdown::MAX_CHARS);
    let text = outside_code_spans(&md);
    assert!(!text.contains("<script"), "{text}");
    assert!(!text.contains("<img"), "{text}");
    assert!(!text.contains("<svg"), "{text}");
    assert!(!text.contains("<b>"), "{text}");
    assert!(!text.contains("](javascript"), "{text}");
    assert!(!text.contains("@org"), "mention not neutralised: {text}");
    assert!(!md.contains('\u{1}'));
    for line in md.lines().filter(|l| l.starts_with("| ")) {
        // Cells are separated by unescaped pipes only: 7 in a finding row (with the cluster
        // column), 6 in a cluster row, 4 in a legend row.
        let unescaped = line
            .char_indices()
            .filter(|&(i, c)| c == '|' && (i == 0 || line.as_bytes()[i - 1] != b'\\'))
            .count();
        let expected = if ["| 🔴", "| 🟠", "| 🟡", "| 🔵", "| severity"]
            .iter()
            .any(|p| line.starts_with(p))
        {
            7
        } else if line.starts_with("| `") || line.starts_with("| cluster") {
            6
        } else {
            4
        };
        assert_eq!(unescaped, expected, "{line}");
    }
    // The only <details> closers are ours.
    assert_eq!(
        md.matches("</details>").count(),
        md.matches("<details>").count()
    );
}

/// The text of a Markdown document with its code spans removed (a run of N backticks up to
/// the next run of exactly N), as CommonMark reads them.
fn outside_code_spans(md: &str) -> String {
    let b: Vec<char> = md.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let run = |i: usize| b[i..].iter().take_while(|&&c| c == '`').count();
    while i < b.len() {
        if b[i] == '\\' && i + 1 < b.len() {
            out.push(b[i]);
            out.push(b[i + 1]);
            i += 2;
            continue;
        }
        if b[i] != '`' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let n = run(i);
        let mut j = i + n;
        let mut closed = None;
        while j < b.len() {
            if b[j] == '`' {
                let m = run(j);
                if m == n {
                    closed = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match closed {
            Some(end) => {
                out.push_str("CODE");
                i = end;
            }
            None => {
                out.extend(&b[i..i + n]);
                i += n;
            }
        }
    }
    out
}

#[test]
fn markdown_fits_githubs_comment_limit_with_a_note() {
    // Many findings: a namespace full of ConfigMaps with absent owners.
    let mut c = Cluster::new();
    for i in 0..3000 {
        c.obj(
            "v1",
            "ConfigMap",
            "shop",
            &format!("settings-with-a-long-name-{i:05}"),
            &format!("u-{i}"),
        )
        .owner(
            "apps/v1",
            "ReplicaSet",
            &format!("gone-{i}"),
            &format!("o-{i}"),
        );
    }
    let snap = c.build();
    let r = ci_of(&snap);
    let md = markdown::render(&r, markdown::MAX_CHARS);
    assert!(md.len() <= markdown::MAX_CHARS, "{} bytes", md.len());
    assert!(
        md.contains("more findings not shown"),
        "no …and N more note"
    );
    let n: usize = md
        .split("…and ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("a count");
    let rows = md
        .lines()
        .filter(|l| {
            l.starts_with("| 🟠")
                || l.starts_with("| 🔴")
                || l.starts_with("| 🟡")
                || l.starts_with("| 🔵")
        })
        .count();
    assert_eq!(rows + n, 3000, "shown rows and the note add up");
}

// ---------------------------------------------------------------------------------------------
// --output-file

#[test]
fn output_file_is_written_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("report.sarif");
    let t = target.to_string_lossy().into_owned();
    let (code, out, err) = kubectl_gc(&[
        "audit",
        "--snapshot",
        &example("redis-operator-incident.json"),
        "-A",
        "-o",
        "sarif",
        "--output-file",
        &t,
    ]);
    assert_eq!(code, 5, "{err}");
    assert!(out.is_empty(), "the report went to stdout: {out}");
    assert_valid_sarif(
        &json(&std::fs::read_to_string(&target).unwrap()),
        "the file",
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "a temporary file was left"
    );
    // A failing run (bad input) leaves the previous report in place and no temporary file.
    let (code, _, err) = kubectl_gc(&[
        "audit",
        "--snapshot",
        "/nonexistent.ndjson",
        "-o",
        "sarif",
        "--output-file",
        &t,
    ]);
    assert_eq!(code, 3, "{err}");
    assert_valid_sarif(
        &json(&std::fs::read_to_string(&target).unwrap()),
        "the old file",
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    // A directory that does not exist fails before any work, with the path.
    let bad = dir.path().join("no/such/report.json");
    let (code, _, err) = kubectl_gc(&[
        "collect",
        "--snapshot",
        &example("redis-operator-incident.json"),
        "-o",
        "json",
        "--output-file",
        &bad.to_string_lossy(),
    ]);
    // A usage error (2, docs/exit-codes.md): the path given is wrong, nothing failed.
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no/such/report.json"), "{err}");
    // Graph and collect write to it too; tables without colour.
    let g = dir.path().join("graph.gv");
    let (code, out, err) = kubectl_gc(&[
        "graph",
        "--snapshot",
        &example("redis-operator-incident.json"),
        "-A",
        "-o",
        "dot",
        "--color",
        "always",
        "--output-file",
        &g.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.is_empty());
    assert!(
        std::fs::read_to_string(&g)
            .unwrap()
            .contains("digraph ownership")
    );
    let tbl = dir.path().join("plan.txt");
    let (code, _, err) = kubectl_gc(&[
        "collect",
        "--snapshot",
        &example("redis-operator-incident.json"),
        "--color",
        "always",
        "--output-file",
        &tbl.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&tbl).unwrap();
    assert!(
        text.starts_with("WAVE") && !text.contains('\u{1b}'),
        "{text}"
    );
}

/// `--output-file` takes every `-o` form, kubectl's list forms included, and writes what stdout
/// would show (stdout here is a pipe: no colour, no width limit either way).
#[test]
fn output_file_takes_every_output_form() {
    let dir = tempfile::tempdir().unwrap();
    let stuck = example("stuck-foreground-deletion.json");
    let redis = example("redis-operator-incident.json");
    let forms: [(&str, &[&str]); 5] = [
        ("audit", &["-o", "name"]),
        ("audit", &["-o", "jsonpath={.findings[*].code}"]),
        (
            "check",
            &[
                "-o",
                "custom-columns=CODE:.code,NAME:.object.name",
                "--sort-by",
                ".code",
            ],
        ),
        (
            "collect",
            &["-o", "custom-columns=VERB:.verb", "--no-headers"],
        ),
        ("graph", &["-o", "name"]),
    ];
    for (i, (command, form)) in forms.iter().enumerate() {
        // The stuck deletion has findings; the redis incident has actions to collect.
        let snap = if *command == "collect" {
            &redis
        } else {
            &stuck
        };
        let mut args = vec![*command, "--snapshot", snap, "-A"];
        args.extend_from_slice(form);
        let (code, stdout, err) = kubectl_gc(&args);
        assert!(!stdout.is_empty(), "{command} {form:?}: {err}");
        let file = dir.path().join(format!("out-{i}"));
        let f = file.to_string_lossy().into_owned();
        args.extend(["--output-file", &f]);
        let (file_code, out, err) = kubectl_gc(&args);
        assert_eq!(file_code, code, "{command} {form:?}: {err}");
        assert!(out.is_empty(), "{command} {form:?} wrote to stdout: {out}");
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            stdout,
            "{command} {form:?}"
        );
    }
}

#[test]
fn ci_formats_are_refused_where_there_are_no_findings() {
    let (code, _, err) = kubectl_gc(&[
        "collect",
        "--snapshot",
        &example("redis-operator-incident.json"),
        "-o",
        "sarif",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("audit or check"), "{err}");
    // graph has no CI formats: its -o lists what it has.
    let (code, _, err) = kubectl_gc(&[
        "graph",
        "--snapshot",
        &example("redis-operator-incident.json"),
        "-o",
        "junit",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("possible values: tree, dot"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// JSON Schemas against real outputs of every command

#[test]
fn every_schema_compiles_and_is_documented() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let all = schemas();
    assert!(all.len() >= 9, "{}", all.len());
    for (name, schema) in &all {
        assert!(
            jsonschema::meta::is_valid(schema),
            "schemas/{name} is not a valid JSON Schema"
        );
        assert!(
            readme.contains(&format!("schemas/{name}")),
            "schemas/{name} is not in the README"
        );
    }
}

fn yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("not YAML: {e}\n{text}"))
}

#[test]
fn real_outputs_match_their_schemas() {
    let stuck = example("stuck-foreground-deletion.json");
    let redis = example("redis-operator-incident.json");
    let shop = example("shop-kubectl-get.yaml");
    // audit: JSON and YAML, snapshots and files, narrowed and not.
    for args in [
        vec!["audit", "--snapshot", &stuck, "-A", "-o", "json"],
        vec![
            "audit",
            "--snapshot",
            &redis,
            "-A",
            "-o",
            "json",
            "--gc-version",
            "1.13",
        ],
        vec!["audit", "-f", &shop, "-o", "json"],
        vec![
            "audit",
            "-f",
            &shop,
            "-o",
            "json",
            "--kind",
            "ConfigMap",
            "-l",
            "app=web",
        ],
    ] {
        let (code, out, err) = kubectl_gc(&args);
        assert!(code == 0 || code == 5, "{args:?}: {err}");
        let doc = json(&out);
        assert_eq!(doc["kind"], "AuditReport");
        assert_valid("audit-report.schema.json", &doc, &args.join(" "));
    }
    let (_, out, _) = kubectl_gc(&["audit", "--snapshot", &stuck, "-A", "-o", "yaml"]);
    assert_valid("audit-report.schema.json", &yaml(&out), "audit -o yaml");
    // check: every sub-check.
    for args in [
        vec!["check", "--snapshot", &redis, "-A", "-o", "json"],
        vec![
            "check",
            "restart",
            "--snapshot",
            &redis,
            "-A",
            "-o",
            "json",
            "--gc-version",
            "1.19",
        ],
        vec![
            "check",
            "upgrade",
            "--to",
            "1.25",
            "--snapshot",
            &redis,
            "-A",
            "-o",
            "json",
        ],
        vec!["check", "health", "--snapshot", &stuck, "-A", "-o", "json"],
    ] {
        let (code, out, err) = kubectl_gc(&args);
        assert!(code == 0 || code == 5, "{args:?}: {err}");
        let doc = json(&out);
        assert_eq!(doc["kind"], "CheckReport");
        assert_valid("audit-report.schema.json", &doc, &args.join(" "));
    }
    // collect: the plan and a delete's cascade.
    for args in [
        vec!["collect", "--snapshot", &redis, "-o", "json"],
        vec![
            "collect",
            "--snapshot",
            &stuck,
            "-n",
            "shop",
            "--delete",
            "deployment/checkout",
            "--cascade",
            "orphan",
            "-o",
            "json",
        ],
        vec![
            "collect",
            "--snapshot",
            &stuck,
            "-n",
            "shop",
            "--delete",
            "deployment/checkout",
            "--cascade",
            "foreground",
            "-o",
            "yaml",
        ],
    ] {
        let (code, out, err) = kubectl_gc(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        let doc = if args.contains(&"yaml") {
            yaml(&out)
        } else {
            json(&out)
        };
        assert_valid("collect-plan.schema.json", &doc, &args.join(" "));
    }
    // graph: the ownership graph and the comparison with the GC's.
    let (code, out, err) = kubectl_gc(&["graph", "--snapshot", &stuck, "-A", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_valid("ownership-graph.schema.json", &json(&out), "graph -o json");
    let (code, out, err) = kubectl_gc(&[
        "graph",
        "--snapshot",
        &example("gc-lag-snapshot.json"),
        "-n",
        "shop",
        "--from-gc",
        &example("gc-lag-graph.dot"),
        "-o",
        "json",
    ]);
    assert_eq!(code, 5, "{err}");
    assert_valid(
        "graph-diff.schema.json",
        &json(&out),
        "graph --from-gc -o json",
    );
    // Baselines.
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("baseline.json");
    let (code, _, err) = kubectl_gc(&[
        "check",
        "--snapshot",
        &redis,
        "-A",
        "--write-baseline",
        &b.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{err}");
    let baseline = json(&std::fs::read_to_string(&b).unwrap());
    assert!(!baseline["entries"].as_array().unwrap().is_empty());
    assert_valid("baseline.schema.json", &baseline, "--write-baseline");
}

/// The apply record, as `collect --apply` writes it, against the in-memory API server.
#[tokio::test]
async fn apply_record_lines_match_their_schema() {
    use kubectl_gc::apply::fake::FakeCluster;
    use kubectl_gc::apply::record::{Header, Record};
    use kubectl_gc::gc::plan::Plan;
    let snap = kubectl_gc::snapshot::format::read_file(Path::new(&example(
        "redis-operator-incident.json",
    )))
    .unwrap();
    let gc = GarbageCollector::new(&snap, KubeVersion::NEWEST);
    let plan = Plan::steady_state(&gc);
    assert!(!plan.actions.is_empty());
    let fake = FakeCluster::from_snapshot(&snap);
    let header = Header {
        api_version: "kubectl-gc.io/v1",
        kind: "ApplyRecord",
        record_version: kubectl_gc::apply::record::RECORD_VERSION,
        tool: "kubectl-gc test".into(),
        started_at: "2026-11-21T00:00:00Z".into(),
        context: Some("test".into()),
        server: "https://127.0.0.1:6443".into(),
        server_version: Some("v1.28.3".into()),
        gc_version: "1.28".into(),
        mode: "collect",
        namespace: None,
        snapshot_captured_at: snap.provenance.captured_at.clone(),
        actions: plan.actions.len(),
    };
    let mut rec = Record::new(Vec::new(), &header).unwrap();
    let actions: Vec<_> = plan.actions.iter().collect();
    let opts = kubectl_gc::apply::Options {
        qps: 10_000.0,
        ..Default::default()
    };
    let stop = kubectl_gc::apply::Stop::new();
    let summary = kubectl_gc::apply::run(
        &fake,
        &gc,
        &plan.end,
        &actions,
        &opts,
        &mut rec,
        &stop,
        &mut |_, _, _| {},
    )
    .await;
    assert!(summary.complete());
    let text = String::from_utf8(rec.into_inner()).unwrap();
    let lines: Vec<Value> = text.lines().map(json).collect();
    assert!(lines.len() >= 3, "{text}");
    for (i, line) in lines.iter().enumerate() {
        assert_valid(
            "apply-record.schema.json",
            line,
            &format!("record line {}", i + 1),
        );
    }
    assert_eq!(lines.last().unwrap()["kind"], "ApplySummary");
}

// ---------------------------------------------------------------------------------------------
// Fleet, offline: selection errors and unreachable clusters

/// A kubeconfig with contexts whose servers refuse connections.
fn dead_kubeconfig(dir: &Path, contexts: &[&str]) -> PathBuf {
    let mut text = String::from("apiVersion: v1\nkind: Config\nclusters:\n");
    for (i, c) in contexts.iter().enumerate() {
        text.push_str(&format!(
            "- name: c{i}\n  cluster:\n    server: https://127.0.0.1:1\n"
        ));
        let _ = c;
    }
    text.push_str("users:\n- name: u\n  user:\n    token: t\ncontexts:\n");
    for (i, c) in contexts.iter().enumerate() {
        text.push_str(&format!(
            "- name: {c}\n  context:\n    cluster: c{i}\n    user: u\n"
        ));
    }
    text.push_str(&format!("current-context: {}\n", contexts[0]));
    let path = dir.join("kubeconfig");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn fleet_errors_are_per_cluster_and_the_exit_code_is_the_worst() {
    let dir = tempfile::tempdir().unwrap();
    let kc = dead_kubeconfig(dir.path(), &["east", "west"]);
    let kc = kc.to_string_lossy().into_owned();
    let (code, out, err) = kubectl_gc(&[
        "audit",
        "--kubeconfig",
        &kc,
        "--context",
        "east,nowhere,west",
        "-A",
        "-o",
        "json",
        "--request-timeout",
        "5s",
    ]);
    assert_eq!(code, 4, "{err}");
    let doc = json(&out);
    assert_valid("fleet-report.schema.json", &doc, "fleet JSON");
    let clusters = doc["clusters"].as_array().unwrap();
    assert_eq!(clusters.len(), 3);
    assert_eq!(clusters[1]["context"], "nowhere");
    for c in clusters {
        assert!(c["error"]["message"].is_string(), "{c}");
        assert_eq!(c["exitCode"], 4, "{c}");
    }
    assert!(err.contains("nowhere: error:"), "{err}");
    // Every format carries the clusters.
    let (_, out, _) = kubectl_gc(&[
        "check",
        "--kubeconfig",
        &kc,
        "--all-contexts",
        "-o",
        "junit",
        "--request-timeout",
        "5s",
    ]);
    let doc = roxmltree::Document::parse(&out).unwrap();
    let suites: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(suites, ["east", "west"]);
    let (_, out, _) = kubectl_gc(&[
        "audit",
        "--kubeconfig",
        &kc,
        "--all-contexts",
        "-o",
        "sarif",
        "--request-timeout",
        "5s",
    ]);
    let log = json(&out);
    assert_valid_sarif(&log, "fleet SARIF");
    assert_eq!(log["runs"].as_array().unwrap().len(), 2);
    let (_, out, _) = kubectl_gc(&[
        "audit",
        "--kubeconfig",
        &kc,
        "--context",
        "east,west",
        "--request-timeout",
        "5s",
    ]);
    assert!(
        out.contains("east: not audited:") && out.contains("west: not audited:"),
        "{out}"
    );
}

#[test]
fn fleet_selection_mistakes_are_refused() {
    let (code, _, err) = kubectl_gc(&[
        "audit",
        "--context",
        "a,b",
        "--snapshot",
        &example("redis-operator-incident.json"),
    ]);
    assert_eq!(code, 2, "{err}");
    // The rule every command follows: connection flags are refused with a file input.
    assert!(
        err.contains("--context applies to a cluster, but the input is --snapshot"),
        "{err}"
    );
    let (code, _, err) = kubectl_gc(&["audit", "--all-contexts", "--context", "a"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = kubectl_gc(&["audit", "--all-contexts"]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("no contexts"), "{err}");
}

/// A finding about resource `r` at `severity` (only what SARIF reads).
fn bare_finding(i: usize, severity: Severity) -> view::FindingJson {
    view::FindingJson {
        code: "GC007",
        name: "unknown-owner",
        severity,
        object: None,
        resource: Some(format!("r{i}.example.com")),
        owner_reference: None,
        classification: None,
        consequence: "c".into(),
        when: None,
        when_reason: None,
        message: format!("m{i}"),
        related: Vec::new(),
        remedies: Vec::new(),
        fixes: Vec::new(),
        evidence: Vec::new(),
        source: None,
    }
}

#[test]
fn sarif_stops_at_code_scannings_limit_keeping_the_most_severe_and_says_so() {
    let limit = sarif::MAX_RESULTS_PER_RUN;
    let snap = hostile();
    let mut r = ci_of(&snap);
    // The report's order puts the least severe first: 10 infos, `limit` warnings, 5 errors.
    let n = 10 + limit + 5;
    if let ClusterOutcome::Report { report, .. } = &mut r.clusters[0].outcome {
        report.findings = (0..n)
            .map(|i| {
                let sev = match i {
                    i if i < 10 => Severity::Info,
                    i if i < 10 + limit => Severity::Warning,
                    _ => Severity::Error,
                };
                bare_finding(i, sev)
            })
            .collect();
    }
    let log: Value = serde_json::from_str(&render(sarif::write, &r)).unwrap();
    assert_valid_sarif(&log, "capped SARIF");
    let run = &log["runs"][0];
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), limit, "exactly the limit");
    let levels: Vec<&str> = results
        .iter()
        .map(|x| x["level"].as_str().unwrap())
        .collect();
    assert!(levels[..5].iter().all(|l| *l == "error"), "errors first");
    assert!(levels[5..].iter().all(|l| *l == "warning"), "then warnings");
    // Within a severity, the report's order: the first warnings of the report are kept.
    assert!(
        results[5]["message"]["text"]
            .as_str()
            .unwrap()
            .contains("m10.")
    );
    assert_eq!(run["properties"]["omittedResults"], 15);
    let note = &run["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(note["level"], "warning");
    let text = note["message"]["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("15 of {n} results left out")) && text.contains("-o json"),
        "{text}"
    );
    // The other run (a failed cluster) is as it was.
    assert_eq!(log["runs"][1]["results"].as_array().unwrap().len(), 0);

    // At the limit: every result, in the report's order, and no note.
    if let ClusterOutcome::Report { report, .. } = &mut r.clusters[0].outcome {
        report.findings.truncate(limit);
    }
    let log: Value = serde_json::from_str(&render(sarif::write, &r)).unwrap();
    let run = &log["runs"][0];
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), limit);
    assert_eq!(results[0]["level"], "note", "the report's order");
    assert!(run["properties"].get("omittedResults").is_none());
    assert!(
        run["invocations"][0]
            .get("toolExecutionNotifications")
            .is_none()
    );
}
