//! `kubectl gc history --controller-manager-log` offline, on the captures of a real v1.20.2
//! controller manager (tests/data/controller-manager: `capture.sh`) and on a log in an older
//! release's wording.

use crate::support::run::kubectl_gc;
use serde_json::Value;
use std::path::Path;

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/controller-manager")
        .join(rel)
        .to_string_lossy()
        .into_owned()
}

fn history(args: &[&str]) -> Value {
    let mut all = vec!["history", "-o", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = kubectl_gc(&all);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    crate::support::schema::assert_valid("history.schema.json", &doc, "history");
    doc
}

/// `(action, namespace/name)` of every row, and the row itself.
fn rows(doc: &Value) -> Vec<(String, String, &Value)> {
    doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|it| {
            let o = &it["object"];
            let name = format!(
                "{}/{}",
                o["namespace"].as_str().unwrap_or(""),
                o["name"].as_str().unwrap_or("")
            );
            (it["action"].as_str().unwrap().to_owned(), name, it)
        })
        .collect()
}

fn row<'d>(doc: &'d Value, action: &str, name: &str) -> Vec<&'d Value> {
    rows(doc)
        .into_iter()
        .filter(|(a, n, _)| a == action && n == name)
        .map(|(_, _, it)| it)
        .collect()
}

fn says(it: &Value) -> String {
    it["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["says"].as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_gc_deletion_of_a_v2_log_is_a_row_with_its_uid_and_policy() {
    let log = data("v2/kube-controller-manager.log");
    let doc = history(&["--controller-manager-log", &log, "--year", "2026"]);
    for (name, policy) in [
        ("cross/dep", "Background"),
        ("dangling/dep", "Background"),
        ("edit/dep", "Background"),
        ("fg/leaf", "Background"),
        // No "Deleting object" line: the Foreground delete of a dependent that has its own.
        ("fg/mid", "Foreground"),
    ] {
        let r = row(&doc, "delete", name);
        assert_eq!(r.len(), 1, "{name}");
        assert!(
            r[0]["object"]["uid"]
                .as_str()
                .is_some_and(|u| !u.is_empty()),
            "{name}"
        );
        assert!(
            says(r[0]).contains(&format!("propagationPolicy={policy}")),
            "{name}: {}",
            says(r[0])
        );
        assert_eq!(r[0]["evidence"][0]["source"], "controller-manager-log");
        assert_eq!(r[0]["actor"]["kind"], "garbage-collector");
    }
    // The cross-namespace owner is named in its own namespace, from the graph builder's line.
    let cross = row(&doc, "delete", "cross/dep")[0];
    assert_eq!(cross["cause"]["type"], "cross-namespace-owner");
    assert_eq!(cross["cause"]["owner"]["namespace"], "ops");
    // The restart is a row, and the deletions it made say how soon after it they came.
    assert_eq!(row(&doc, "gc-start", "/").len(), 2);
    assert!(
        cross["afterGcStartMs"]
            .as_i64()
            .is_some_and(|ms| ms < 5_000)
    );
    for name in ["fg/mid", "fg/top"] {
        assert_eq!(row(&doc, "remove-finalizer", name).len(), 1, "{name}");
    }
    assert_eq!(row(&doc, "delete-namespace-content", "/doomed").len(), 1);
    assert_eq!(doc["read"]["controllerManagerLog"]["verbosity"], 2);
    let notes = doc["summary"]["notes"].to_string();
    assert!(
        notes.contains("orphan"),
        "at --v=2 orphaning is invisible, and said so: {notes}"
    );
}

#[test]
fn a_v5_log_shows_orphaning_owner_lookups_and_the_namespace_content() {
    let log = data("v5/kube-controller-manager.log");
    let doc = history(&["--controller-manager-log", &log, "--year", "2026"]);
    let orphan = row(&doc, "orphan-dependents", "orph/owner");
    assert_eq!(orphan.len(), 1);
    assert_eq!(orphan[0]["cause"]["type"], "orphaned");
    let dangling = row(&doc, "delete", "dangling/dep")[0];
    assert_eq!(dangling["cause"]["type"], "dangling-owner");
    assert_eq!(dangling["cause"]["owner"]["name"], "ghost");
    // The namespace controller's collection deletions of one namespace are one row that
    // names their resources (the content of Namespace/doomed).
    let content = row(&doc, "delete-collection", "doomed/");
    assert_eq!(content.len(), 1, "one row for the namespace's content");
    let resources: Vec<&str> = content[0]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(resources.contains(&"configmaps"), "{resources:?}");
    assert!(resources.len() > 10, "{resources:?}");
    assert_eq!(content[0]["cause"]["type"], "namespace-deleted");
    assert_eq!(row(&doc, "delete-namespace-content", "/doomed").len(), 1);
}

#[test]
fn merged_with_the_audit_log_of_the_same_run_each_action_is_one_row() {
    let doc = history(&[
        "--controller-manager-log",
        &data("v2/kube-controller-manager.log"),
        "--audit-log",
        &data("v2/audit.log"),
    ]);
    for (action, name) in [
        ("delete", "cross/dep"),
        ("delete", "dangling/dep"),
        ("delete", "edit/dep"),
        ("delete", "fg/mid"),
        ("delete", "fg/leaf"),
        ("remove-finalizer", "fg/mid"),
        ("remove-finalizer", "fg/top"),
    ] {
        let r = row(&doc, action, name);
        assert_eq!(r.len(), 1, "{action} {name}: one row");
        let sources: Vec<&str> = r[0]["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["source"].as_str().unwrap())
            .collect();
        assert_eq!(
            sources,
            ["audit-log", "controller-manager-log"],
            "{action} {name}"
        );
    }
    // The user's deletions are the audit log's alone.
    let top = row(&doc, "delete", "fg/top");
    assert_eq!(top.len(), 1);
    assert_eq!(top[0]["actor"]["kind"], "user");
    // The year of klog's times came from the audit log's window, and the note says so.
    assert!(
        doc["summary"]["notes"]
            .to_string()
            .contains("window of the other sources")
    );
}

#[test]
fn a_v0_log_alone_is_an_input_error_with_the_verbosity_hint() {
    let log = data("v0/kube-controller-manager.log");
    let (code, _, err) = kubectl_gc(&[
        "history",
        "--controller-manager-log",
        &log,
        "--year",
        "2026",
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("--v=0 or 1"), "{err}");
    assert!(
        err.contains("hint: the GC logs each deletion from --v=2"),
        "{err}"
    );
}

#[test]
fn history_reads_an_older_releases_wording() {
    // 1.13–1.19: `delete object %s with propagation policy %s`, `processing item %s`, …; the
    // klog file header gives the year.
    let doc = history(&[
        "--controller-manager-log",
        &data("v1.15-golden/kube-controller-manager.log"),
    ]);
    let got: Vec<(String, String, String)> = rows(&doc)
        .into_iter()
        .map(|(a, n, it)| (a, n, it["cause"]["type"].as_str().unwrap_or("-").to_owned()))
        .collect();
    let want: Vec<(String, String, String)> = [
        ("gc-start", "/", "-"),
        ("delete", "shop/web-58b6c4f9d7", "dangling-owner"),
        ("delete", "shop/web-58b6c4f9d7-x2x9q", "dangling-owner"),
        ("orphan-dependents", "ops/backup-1566291600", "orphaned"),
        ("delete", "fg/mid", "unknown"),
        ("remove-finalizer", "fg/mid", "foreground-finished"),
        ("delete-collection", "doomed/", "namespace-deleted"),
        ("delete-namespace-content", "/doomed", "namespace-deleted"),
    ]
    .iter()
    .map(|(a, n, c)| ((*a).to_owned(), (*n).to_owned(), (*c).to_owned()))
    .collect();
    assert_eq!(got, want);
    assert!(
        doc["items"][1]["time"]
            .as_str()
            .unwrap()
            .starts_with("2019-08-20T09:00:03.621877")
    );
    let rs = &doc["items"][1];
    assert_eq!(rs["object"]["resource"], "replicasets");
    assert_eq!(rs["object"]["group"], "apps");
    assert_eq!(rs["cause"]["owner"]["name"], "web");
    assert!(
        doc["summary"]["notes"]
            .to_string()
            .contains("log's own header")
    );
}

#[test]
fn the_table_says_which_source_proves_each_row() {
    let (code, out, err) = kubectl_gc(&[
        "history",
        "--controller-manager-log",
        &data("v2/kube-controller-manager.log"),
        "--audit-log",
        &data("v2/audit.log"),
        "--kind",
        "configmaps",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().next().unwrap().contains("PROVEN BY"), "{out}");
    let cross = out
        .lines()
        .find(|l| l.contains("ConfigMap/dep -n cross"))
        .unwrap();
    assert!(cross.contains("audit-log+kcm-log"), "{cross}");
    assert!(
        cross.contains("cross-namespace-owner ConfigMap/owner -n ops"),
        "{cross}"
    );
}

#[test]
fn a_state_before_explains_the_logs_deletions_on_the_gc_model() {
    // The log alone names no owner of edit/dep or dangling/dep at --v=2; the state before does,
    // and the GC model of it says what the GC found (as for the audit log's deletions).
    let doc = history(&[
        "--controller-manager-log",
        &data("v2/kube-controller-manager.log"),
        "--year",
        "2026",
        "-f",
        &data("v2/before.json"),
        "--assume-complete",
    ]);
    for (name, cause) in [
        ("edit/dep", "owner-coordinates-mismatch"),
        ("dangling/dep", "dangling-owner"),
        // The log's own lines win where they prove a cause.
        ("cross/dep", "cross-namespace-owner"),
        ("fg/mid", "owner-deleted"),
    ] {
        let r = row(&doc, "delete", name);
        assert_eq!(r.len(), 1, "{name}");
        assert_eq!(r[0]["cause"]["type"], cause, "{name}: {}", r[0]["cause"]);
        assert_eq!(r[0]["level"], "log", "{name}");
    }
    assert_eq!(
        row(&doc, "delete", "cross/dep")[0]["cause"]["owner"]["namespace"],
        "ops"
    );
}

#[test]
fn a_line_read_twice_is_one_action() {
    // A rotated file beside its .gz copy: the directory holds the same lines twice.
    let dir = tempfile::tempdir().unwrap();
    let log = std::fs::read(data("v2/kube-controller-manager.log")).unwrap();
    std::fs::write(dir.path().join("kube-controller-manager.log"), &log).unwrap();
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(dir.path().join("kube-controller-manager.log.1.gz")).unwrap(),
        flate2::Compression::fast(),
    );
    std::io::Write::write_all(&mut gz, &log).unwrap();
    gz.finish().unwrap();
    let once = history(&[
        "--controller-manager-log",
        &data("v2/kube-controller-manager.log"),
        "--year",
        "2026",
    ]);
    let twice = history(&[
        "--controller-manager-log",
        dir.path().to_str().unwrap(),
        "--year",
        "2026",
    ]);
    assert_eq!(rows(&twice).len(), rows(&once).len());
    assert!(
        twice["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|it| it["count"] == 1)
    );
    assert!(twice["summary"]["notes"].to_string().contains("read twice"));
}
