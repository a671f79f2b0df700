//! `kubectl gc history` end to end on audit logs nobody here wrote (tests/data/realdata/audit,
//! each folder with its SOURCE.md and licence): Falco's 2018 minikube events, audit2rbac's 2017
//! log (one `timestamp` per event), KHI's GKE entries and Event as YAML, and Sysdig's AKS
//! diagnostic records (an Event Hubs batch, a record and an Event behind BOMs). The counts were
//! made without kubectl-gc, with python's json and yaml modules: records, events of the final
//! stages (`ResponseComplete`, `Panic`) and their levels, requests told apart by auditID, time,
//! verb, URI and objectRef.

use crate::support::run::kubectl_gc;
use serde_json::{Value, json};
use std::path::PathBuf;

fn audit_dir(source: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/realdata/audit")
        .join(source)
}

/// `history -o json` of these inputs: the document (schema-checked) and stderr.
fn history(inputs: &[PathBuf]) -> (Value, String) {
    let inputs: Vec<String> = inputs
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let mut args = vec!["history", "-o", "json"];
    for i in &inputs {
        args.extend(["--audit-log", i.as_str()]);
    }
    let (code, out, err) = kubectl_gc(&args);
    assert_eq!(code, 0, "{args:?}: {err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    crate::support::schema::assert_valid("history.schema.json", &doc, "real audit log");
    (doc, err)
}

#[test]
fn falco_k8s_audit_traces() {
    let (doc, err) = history(&[audit_dir("falco").join("*.json")]);
    // 52 JSON lines in 47 files: 49 ResponseComplete events, 2 ResponseStarted (skipped: a
    // request's earlier stage), and `{"kind": 0}`. Two pairs of ResponseComplete events share
    // auditID, time, verb and URI: one pair is one request read twice (the same user and
    // status), the other two copies that disagree on the user (`system:anonymous` and
    // `some-user` creating namespace foo: Falco's fixtures edited one copy), a conflicting
    // copy, counted and warned. 47 requests — 30 RequestResponse, 13 Request, 4 Metadata.
    assert_eq!(
        doc["read"],
        json!({
            "records": 52,
            "events": 47,
            "skipped": 5,
            "skippedBy": {"duplicate": 1, "conflicting": 1, "earlier-stage": 2, "unreadable": 1},
            "levels": {"Metadata": 4, "Request": 13, "RequestResponse": 30},
        })
    );
    assert!(err.contains("fal_01_003.json:1: malformed"), "{err}");
    assert!(
        err.contains("some-user_creates_namespace_foo.json:1: a copy of a request read before"),
        "{err}"
    );
    // The 9 deletions (each answered 200), all by people.
    let items = doc["items"].as_array().unwrap();
    let deletions: Vec<&Value> = items.iter().filter(|i| i["action"] == "delete").collect();
    assert_eq!(deletions.len(), 9, "{items:#?}");
    assert!(deletions.iter().all(|i| i["actor"]["kind"] == "user"));
    assert!(
        deletions
            .iter()
            .any(|i| i["object"]["name"] == "my-config" && i["object"]["namespace"] == "default"),
        "{deletions:#?}"
    );
}

#[test]
fn audit2rbac_demo_log_of_2017() {
    let (doc, _) = history(&[audit_dir("audit2rbac").join("demo.log")]);
    // 37 lines, each a ResponseComplete event at Metadata level with only `timestamp`, each
    // its own auditID; gets and lists only.
    assert_eq!(
        doc["read"],
        json!({"records": 37, "events": 37, "skipped": 0, "skippedBy": {}, "levels": {"Metadata": 37}})
    );
    assert_eq!(doc["items"], json!([]));
    // The log's window starts at its first `timestamp` (printed with microseconds).
    assert_eq!(doc["summary"]["from"], "2017-09-11T19:55:05.000000Z");
}

#[test]
fn khi_gke_entries_and_event_as_yaml() {
    let dir = audit_dir("khi");
    let (doc, err) = history(&[
        dir.join("container_recorder_test_1_1.yaml"),
        dir.join("container_recorder_test_1_2.yaml"),
        dir.join("container_recorder_test_1_3.yaml"),
        dir.join("test-log.yaml"),
    ]);
    // Four YAML documents behind licence headers: a GKE pods.create with request and response
    // (RequestResponse, as GKE drops `level`), two GKE pods.status.patch with a request body
    // only (Request), and a RequestResponse Lease update.
    assert_eq!(
        doc["read"],
        json!({
            "records": 4,
            "events": 4,
            "skipped": 0,
            "skippedBy": {},
            "levels": {"Request": 2, "RequestResponse": 2},
        }),
        "{err}"
    );
    assert_eq!(doc["items"], json!([]));
}

#[test]
fn aks_diagnostic_records_and_event_hubs_batch() {
    let dir = audit_dir("aks");
    // The Event Hubs batch: 22 `kube-audit` records, each with its Event as a string in
    // `properties.log`: 20 ResponseComplete (11 Metadata, 9 Request), 2 ResponseStarted —
    // counted as skipped, a request's earlier stage (issue 65's leftover: they were dropped
    // without a word) — 22 auditIDs; 23 records with the envelope.
    let (doc, err) = history(&[dir.join("event.json")]);
    assert_eq!(
        doc["read"],
        json!({
            "records": 23,
            "events": 20,
            "skipped": 2,
            "skippedBy": {"earlier-stage": 2},
            "levels": {"Metadata": 11, "Request": 9},
        }),
        "{err}"
    );
    // With the lone diagnostic record (the GC's discovery read, Metadata) and the lone Event (a
    // RequestResponse update), each pretty-printed behind a UTF-8 byte-order mark, each its own
    // request.
    let (doc, err) = history(&[dir.join("*.json")]);
    assert_eq!(
        doc["read"],
        json!({
            "records": 25,
            "events": 22,
            "skipped": 2,
            "skippedBy": {"earlier-stage": 2},
            "levels": {"Metadata": 12, "Request": 9, "RequestResponse": 1},
        }),
        "{err}"
    );
    // Reads, watches, a create answered 409 and an update that keeps the ControllerRevision's
    // one ownerReference (request and response bodies name the same DaemonSet): no action.
    assert_eq!(doc["items"], json!([]));
}
