//! `kubectl gc history` offline, on the bundled real audit log (examples/audit-shop.log: a
//! Metadata-level log of a v1.20.2 API server) and on a crafted hostile one.

use crate::support::run::kubectl_gc;
use serde_json::{Value, json};
use std::path::Path;

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn history(extra: &[&str]) -> Value {
    let log = example("audit-shop.log");
    let before = example("audit-shop-before.ndjson");
    let mut args = vec![
        "history",
        "--audit-log",
        &log,
        "--snapshot",
        &before,
        "-o",
        "json",
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = kubectl_gc(&args);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    crate::support::schema::assert_valid("history.schema.json", &doc, "history");
    doc
}

#[test]
fn the_example_log_names_each_cause_and_root() {
    let h = history(&[]);
    let items = h["items"].as_array().unwrap();
    let gc: Vec<(&str, &str)> = items
        .iter()
        .filter(|i| i["actor"]["kind"] == "garbage-collector")
        .map(|i| {
            (
                i["object"]["name"].as_str().unwrap(),
                i["cause"]["type"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        gc,
        [
            ("orphan-config", "dangling-owner"),
            ("web-config", "owner-deleted")
        ]
    );
    let web = items
        .iter()
        .find(|i| i["object"]["name"] == "web-config")
        .unwrap();
    assert_eq!(web["cause"]["policy"], "Background");
    // Metadata level: no request body, so the policy is inferred (and said so).
    assert_eq!(web["cause"]["policyInferred"], true);
    assert_eq!(web["cause"]["root"]["user"], "admin");
    assert_eq!(web["cause"]["root"]["object"]["name"], "owner");
    // Selection: only people's actions; a window that ends before the GC's second deletion.
    let users = history(&["--actor", "user"]);
    assert_eq!(users["items"].as_array().unwrap().len(), 1);
    let early = history(&["--until", "2026-11-26T02:32:30Z"]);
    assert_eq!(early["items"].as_array().unwrap().len(), 1);
}

#[test]
fn html_is_one_well_formed_page_with_the_timeline() {
    let log = example("audit-shop.log");
    let before = example("audit-shop-before.ndjson");
    let (code, out, err) = kubectl_gc(&[
        "history",
        "--audit-log",
        &log,
        "--snapshot",
        &before,
        "-o",
        "html",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("<script") && !out.contains("src=\"http"));
    let doc = roxmltree::Document::parse_with_options(
        &out,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("well-formed");
    let circles = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .count();
    assert_eq!(circles, 3, "one mark per action");
    assert!(
        doc.descendants()
            .any(|n| n.has_tag_name("line") && n.attribute("class") == Some("cause")),
        "the GC's deletion is linked to the user's"
    );
    // The audit report's look, and a timeline that can be read without hovering: a time axis
    // with labelled ticks from the first action, and each mark named.
    assert!(
        out.contains("font-family: system-ui"),
        "the report's stylesheet"
    );
    let texts = |class: &str| -> Vec<String> {
        doc.descendants()
            .filter(|n| n.has_tag_name("text") && n.attribute("class") == Some(class))
            .filter_map(|n| n.text().map(str::to_owned))
            .collect()
    };
    let ticks = texts("tick");
    assert_eq!(ticks.first().map(String::as_str), Some("+0s"), "{ticks:?}");
    assert!(
        ticks.iter().filter(|t| t.starts_with('+')).count() == 5,
        "{ticks:?}"
    );
    assert!(
        ticks
            .iter()
            .any(|t| t.starts_with("time since 2026-11-26T")),
        "{ticks:?}"
    );
    let marks = texts("mark");
    assert!(
        marks.contains(&"ConfigMap/web-config -n shop".to_owned()),
        "{marks:?}"
    );
    assert!(
        out.contains("<td class=\"time mono\">2026-11-26T"),
        "times do not wrap"
    );
}

#[test]
fn hostile_strings_are_escaped_and_bad_records_reported() {
    let dir = tempfile::tempdir().unwrap();
    let event = |name: &str, user: &str, t: &str| {
        json!({"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata",
            "auditID": format!("id-{t}"), "stage": "ResponseComplete", "verb": "delete",
            "requestURI": "/api/v1/namespaces/x/configmaps/n",
            "user": {"username": user}, "userAgent": "ua\u{1b}[2J",
            "objectRef": {"resource": "configmaps", "namespace": "x", "name": name, "apiVersion": "v1"},
            "responseStatus": {"code": 200},
            "requestReceivedTimestamp": t, "stageTimestamp": t})
        .to_string()
    };
    let log = dir.path().join("audit.log");
    std::fs::write(
        &log,
        [
            event(
                "evil\u{1b}]0;title\u{7}<b>",
                "alice\u{202e}",
                "2026-11-26T01:00:00.000001Z",
            ),
            "{not json".to_owned(),
            event("ok", "bob", "2026-11-26T01:00:01.000001Z"),
        ]
        .join("\n"),
    )
    .unwrap();
    let log = log.to_string_lossy().into_owned();
    let (code, out, err) = kubectl_gc(&["history", "--audit-log", &log]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{7}') && !out.contains('\u{202e}'),
        "{out:?}"
    );
    assert!(out.contains("^[]0;title"), "{out}");
    assert!(
        err.contains(":2:"),
        "the bad record is reported with its line: {err}"
    );
    assert!(
        out.contains("could not be read"),
        "and counted in the summary: {out}"
    );
    let (code, out, _) = kubectl_gc(&["history", "--audit-log", &log, "-o", "html"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("evil") && !out.contains("<b>") && out.contains("&lt;b&gt;"),
        "{out}"
    );
}

/// The state after, as a snapshot file: the state before without the objects named in `gone`
/// (no integrity trailer: an edited file, read as unverified).
fn after_without(dir: &Path, gone: &[&str]) -> String {
    let before = std::fs::read_to_string(example("audit-shop-before.ndjson")).unwrap();
    let mut lines: Vec<String> = before
        .lines()
        .filter(|l| !l.starts_with("{\"trailer\""))
        .filter(|l| {
            !gone
                .iter()
                .any(|n| l.contains(&format!("\"name\":\"{n}\"")))
        })
        .map(str::to_owned)
        .collect();
    let objects = lines.len() - 1;
    lines[0] = lines[0].replace("\"objects\":165", &format!("\"objects\":{objects}"));
    let path = dir.join("after.ndjson");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn after_says_what_became_of_each_object_and_what_went_unlogged() {
    let dir = tempfile::tempdir().unwrap();
    // After the log: the three ConfigMaps it deletes are gone, and so is a PriorityClass no
    // request of the log deleted.
    let after = after_without(
        dir.path(),
        &["orphan-config", "owner", "web-config", "workload-low"],
    );
    let doc = history(&["--after", &after]);
    let fates: Vec<(&str, &str)> = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["object"]["name"].as_str().unwrap(),
                i["after"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        fates,
        [
            ("orphan-config", "gone"),
            ("owner", "gone"),
            ("web-config", "gone")
        ]
    );
    let unlogged: Vec<(&str, bool)> = doc["unlogged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["object"]["name"].as_str().unwrap(),
                u.get("collection").is_some(),
            )
        })
        .collect();
    assert_eq!(unlogged, [("workload-low", false)]);
    // Without the state after nothing is said of it.
    let doc = history(&[]);
    assert!(doc["items"][0].get("after").is_none());
    assert_eq!(doc["unlogged"], json!([]));
}

#[test]
fn after_cluster_is_the_only_way_history_reads_a_cluster() {
    let log = example("audit-shop.log");
    // --context without --after cluster: refused, with the way to read the cluster.
    let (code, _, err) = kubectl_gc(&["history", "--audit-log", &log, "--context", "x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--after cluster"), "{err}");
    // -l needs a state whose labels it reads.
    let (code, _, err) = kubectl_gc(&["history", "--audit-log", &log, "-l", "app=web"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--after"), "{err}");
    // --after cluster reads the kubeconfig (none here): a connection error, not a usage one.
    let (code, _, err) = kubectl_gc(&["history", "--audit-log", &log, "--after", "cluster"]);
    assert_ne!(code, 2, "{err}");
    assert_ne!(code, 0, "{err}");
}

#[test]
fn label_selection_reads_the_labels_of_a_state() {
    let before = example("audit-shop-before.ndjson");
    let log = example("audit-shop.log");
    // No object of the log has this label in the state before: nothing is shown, and the
    // note counts nothing unlabelled (every object is in the state).
    let (code, out, err) = kubectl_gc(&[
        "history",
        "--audit-log",
        &log,
        "--snapshot",
        &before,
        "-l",
        "app=none",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["items"], json!([]));
    let (code, out, err) = kubectl_gc(&[
        "history",
        "--audit-log",
        &log,
        "--snapshot",
        &before,
        "-l",
        "!app",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["items"].as_array().unwrap().len(), 3);
}

/// Issue 56/58 (W9): the causes' details are sentences — no run of spaces left by a string
/// broken across source lines — with and without the state before.
#[test]
fn details_have_no_runs_of_spaces() {
    fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
        match v {
            Value::String(s) => out.push(s),
            Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            Value::Object(m) => m.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let log = example("audit-shop.log");
    let (code, out, err) = kubectl_gc(&["history", "--audit-log", &log, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let without: Value = serde_json::from_str(&out).unwrap();
    for doc in [history(&[]), without] {
        let mut all = Vec::new();
        strings(&doc, &mut all);
        let details: Vec<&&str> = all.iter().filter(|s| s.contains(' ')).collect();
        assert!(details.len() > 3, "the report has sentences: {doc}");
        for s in details {
            assert!(!s.contains("  "), "a run of spaces in {s:?}");
        }
    }
}

/// Issue 58 (W7): input that holds no audit event at all — random bytes, JSON that is not an
/// audit record, an empty file — is an error (exit 3) that says why, never "No deletions" with
/// exit 0.
#[test]
fn input_without_audit_events_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.yaml");
    std::fs::write(
        &state,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop, uid: u-1}\n",
    )
    .unwrap();
    let state = state.to_string_lossy().into_owned();
    let noise: Vec<u8> = (0..3000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let cases: [(&str, &[u8], &str); 5] = [
        ("noise.log", &noise, "not JSON"),
        ("other.json", b"{\"foo\":1}\n", "not an audit record"),
        ("empty.log", b"", "empty"),
        // `kubectl get cm -o yaml`: YAML, but a List of ConfigMaps.
        (
            "dump.yaml",
            b"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c1\nmetadata:\n  resourceVersion: \"\"\n",
            "a list of",
        ),
        // A log of `key: value` lines that is not a YAML document it can read.
        (
            "app.log",
            b"level: info\nmsg: started\nlevel: info msg: [unclosed\n",
            "not valid YAML",
        ),
    ];
    for (name, bytes, why) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let path = path.to_string_lossy().into_owned();
        for args in [
            vec!["history", "--audit-log", &path],
            vec![
                "why",
                "cm/x",
                "-n",
                "shop",
                "-f",
                &state,
                "--audit-log",
                &path,
            ],
        ] {
            let (code, out, err) = kubectl_gc(&args);
            assert_eq!(code, 3, "{args:?}: {out}{err}");
            assert!(out.is_empty(), "{args:?}: {out}");
            assert!(
                err.contains("no audit event") && err.contains(why),
                "{args:?}: {err}"
            );
        }
    }
}

/// Runs `history --audit-log LOG… -o FORMAT` on the example's state before.
fn history_of(logs: &[&str], format: &str) -> (String, String) {
    let before = example("audit-shop-before.ndjson");
    let mut args = vec!["history", "--snapshot", &before, "-o", format];
    for l in logs {
        args.extend(["--audit-log", l]);
    }
    let (code, out, err) = kubectl_gc(&args);
    assert_eq!(code, 0, "{err}");
    (out, err)
}

/// Issue 58: `read` says what was read of the log; the same events in two inputs (a log and
/// its gzip copy) are read once, and the actions are those of one copy.
#[test]
fn read_counts_each_event_once_with_its_level() {
    // NC8: 14 records read, 7 events. examples/audit-shop.log: 7 lines, each a ResponseComplete event at Metadata level with
    // its own auditID (counted with python's json module: stage, level, set of auditIDs).
    let doc = history(&[]);
    assert_eq!(
        doc["read"],
        json!({"records": 7, "events": 7, "skipped": 0, "skippedBy": {}, "levels": {"Metadata": 7}})
    );
    let dir = tempfile::tempdir().unwrap();
    let log = example("audit-shop.log");
    let gz = dir.path().join("audit-shop.log.1.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, &std::fs::read(&log).unwrap()).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let gz = gz.to_string_lossy().into_owned();
    let (out, _) = history_of(&[&log, &gz], "json");
    let twice: Value = serde_json::from_str(&out).unwrap();
    crate::support::schema::assert_valid("history.schema.json", &twice, "history twice");
    assert_eq!(
        twice["read"],
        json!({"records": 14, "events": 7, "skipped": 7, "skippedBy": {"duplicate": 7}, "levels": {"Metadata": 7}})
    );
    assert_eq!(twice["items"], doc["items"]);
    let (table, _) = history_of(&[&log, &gz], "table");
    assert!(
        table.contains("\n7 event(s) from 14 record(s) (7 skipped: 7 duplicate)\n"),
        "{table}"
    );
}

/// Issue 58: "Metadata level only" is judged on every event read: a log whose only
/// RequestResponse event is one the history does not use (a read answered 200) has bodies.
#[test]
fn the_metadata_only_note_is_judged_on_every_event_read() {
    let dir = tempfile::tempdir().unwrap();
    let log = example("audit-shop.log");
    let note = "note: Metadata level only";
    let (table, _) = history_of(&[&log], "table");
    assert!(table.contains(note), "{table}");
    let read = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"5b0c3a51-8f0e-4c59-9a7e-1f2d3c4b5a69","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/shop/configmaps/web-config","verb":"get","user":{"username":"kubernetes-admin","groups":["system:masters","system:authenticated"]},"objectRef":{"resource":"configmaps","namespace":"shop","name":"web-config","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"responseObject":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"web-config","namespace":"shop"}},"requestReceivedTimestamp":"2026-11-26T02:30:00.000100Z","stageTimestamp":"2026-11-26T02:30:00.001200Z"}"#;
    let with_rr = dir.path().join("with-rr.log");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str(read);
    text.push('\n');
    std::fs::write(&with_rr, text).unwrap();
    let with_rr = with_rr.to_string_lossy().into_owned();
    let (table, _) = history_of(&[&with_rr], "table");
    assert!(!table.contains(note), "{table}");
    assert!(
        table.contains("\n8 event(s) from 8 record(s) (0 skipped)\n"),
        "{table}"
    );
    let (out, _) = history_of(&[&with_rr], "json");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        doc["read"]["levels"],
        json!({"Metadata": 7, "RequestResponse": 1})
    );
}

/// Issue 58: `--since`/`--until` take durations back from now, as kubectl logs --since does.
/// The example log is of 2026-11-26: all of it lies within the last 3650 days, none of it
/// within the last hour.
#[test]
fn since_and_until_take_durations() {
    let all = history(&["--since", "3650d"]);
    assert_eq!(all["items"].as_array().unwrap().len(), 3);
    let none = history(&["--since", "1h"]);
    assert_eq!(none["items"], json!([]));
    let before = history(&["--until", "1h30m"]);
    assert_eq!(before["items"].as_array().unwrap().len(), 3);
    let log = example("audit-shop.log");
    let (code, _, err) = kubectl_gc(&["history", "--audit-log", &log, "--since", "1y"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("neither an RFC 3339 time nor a duration"),
        "{err}"
    );
}

/// A crafted Metadata log: a namespace stuck Terminating (the namespace controller retries
/// its collection deletion), an admin impersonating the GC, a dry run.
#[test]
fn retries_collapse_impersonation_names_both_and_dry_runs_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let event = |verb: &str, user: &str, uri: &str, object: Value, t: &str| {
        json!({"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata",
            "auditID": format!("id-{t}"), "stage": "ResponseComplete", "verb": verb,
            "requestURI": uri, "user": {"username": user}, "userAgent": "test",
            "objectRef": object, "responseStatus": {"code": 200},
            "requestReceivedTimestamp": t, "stageTimestamp": t})
        .to_string()
    };
    let ns = json!({"resource": "namespaces", "namespace": "f7", "name": "f7", "apiVersion": "v1"});
    let cms = json!({"resource": "configmaps", "namespace": "f7", "apiVersion": "v1"});
    let cm = json!({"resource": "configmaps", "namespace": "f7", "name": "c", "apiVersion": "v1"});
    let mut lines = vec![event(
        "delete",
        "admin",
        "/api/v1/namespaces/f7",
        ns,
        "2026-11-26T01:00:00.000001Z",
    )];
    for s in 1..=5 {
        lines.push(event(
            "deletecollection",
            "system:serviceaccount:kube-system:namespace-controller",
            "/api/v1/namespaces/f7/configmaps",
            cms.clone(),
            &format!("2026-11-26T01:00:0{s}.000001Z"),
        ));
    }
    let mut imp: Value = serde_json::from_str(&event(
        "delete",
        "admin",
        "/api/v1/namespaces/f7/configmaps/c",
        cm.clone(),
        "2026-11-26T01:00:06.000001Z",
    ))
    .unwrap();
    imp["impersonatedUser"] =
        json!({"username": "system:serviceaccount:kube-system:generic-garbage-collector"});
    lines.push(imp.to_string());
    lines.push(event(
        "delete",
        "admin",
        "/api/v1/namespaces/f7/configmaps/c?dryRun=All",
        cm,
        "2026-11-26T01:00:07.000001Z",
    ));
    let log = dir.path().join("audit.log");
    std::fs::write(&log, lines.join("\n")).unwrap();
    let log = log.to_string_lossy().into_owned();
    let (code, out, err) = kubectl_gc(&["history", "--audit-log", &log, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let h: Value = serde_json::from_str(&out).unwrap();
    crate::support::schema::assert_valid("history.schema.json", &h, "history");
    let items = h["items"].as_array().unwrap();
    assert_eq!(items.len(), 3, "{h:#}");
    assert_eq!(items[1]["count"], 5);
    assert_eq!(items[1]["last"], "2026-11-26T01:00:05.000001Z");
    assert_eq!(items[2]["actor"]["kind"], "user");
    assert_eq!(items[2]["actor"]["impersonatedBy"], "admin");
    assert_eq!(h["summary"]["dryRun"], 1);
    assert_eq!(h["summary"]["logged"], 7);
    assert_eq!(h["summary"]["byActor"]["namespace-controller"], 5);
    let (code, out, err) = kubectl_gc(&["history", "--audit-log", &log, "-o", "wide"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("×5 until 2026-11-26T01:00:05.000001Z"),
        "{out}"
    );
    assert!(
        out.contains("generic-garbage-collector (impersonated by admin)"),
        "{out}"
    );
    assert!(out.contains("7 action(s) in 3 row(s)"), "{out}");
    // A window after every action: none listed, and the count the log holds is said.
    let (code, out, err) = kubectl_gc(&[
        "history",
        "--audit-log",
        &log,
        "--since",
        "2026-11-27T00:00:00Z",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let h: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(h["items"], json!([]));
    assert_eq!(h["summary"]["logged"], 7);
}

/// F9: two copies of one request (the same auditID, time, verb and URI) that disagree on the
/// user or the response status are no duplicate: the second is a counted, warned skip, and
/// the first read is kept — here a 403 copy read first hides nothing silently.
#[test]
fn conflicting_copies_of_a_request_are_counted_and_warned() {
    let dir = tempfile::tempdir().unwrap();
    let event = |user: &str, code: u16| {
        json!({"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata",
            "auditID": "dup-1", "stage": "ResponseComplete", "verb": "delete",
            "requestURI": "/api/v1/namespaces/shop/configmaps/web",
            "user": {"username": user}, "userAgent": "test",
            "objectRef": {"resource": "configmaps", "namespace": "shop", "name": "web",
                "apiVersion": "v1"},
            "responseStatus": {"metadata": {}, "code": code},
            "requestReceivedTimestamp": "2026-11-26T01:00:00.000001Z",
            "stageTimestamp": "2026-11-26T01:00:00.000001Z"})
        .to_string()
    };
    let log = dir.path().join("audit.log");
    std::fs::write(
        &log,
        [
            event("admin", 200),
            event("admin", 200),
            event("mallory", 200),
            event("admin", 403),
        ]
        .join("\n"),
    )
    .unwrap();
    let log = log.to_string_lossy().into_owned();
    let (code, out, err) = kubectl_gc(&["history", "--audit-log", &log, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let h: Value = serde_json::from_str(&out).unwrap();
    crate::support::schema::assert_valid("history.schema.json", &h, "conflicting copies");
    assert_eq!(
        h["read"]["skippedBy"],
        json!({"duplicate": 1, "conflicting": 2})
    );
    assert_eq!(h["items"].as_array().unwrap().len(), 1, "{h:#}");
    assert_eq!(h["items"][0]["actor"]["user"], "admin");
    assert!(
        err.contains("audit.log:3: a copy of a request read before"),
        "{err}"
    );
    assert!(err.contains("audit.log:4:"), "{err}");
    assert!(
        h["summary"]["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("2 event(s) were read again with another user")),
        "{h:#}"
    );
}
