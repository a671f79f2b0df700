//! Unit tests of the audit-log reader: one real-shaped log read in every format (converted by
//! `convert.rs`), bodies at Request and RequestResponse level, and broken input.

use super::convert::{
    gzip, to_aks, to_aks_records, to_eks, to_eks_filter_log_events, to_event_list, to_gke,
    to_json_array,
};
use super::formats::{Parallel, close_truncated, http_code, parse_time_us};
use super::*;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

const GC: &str = "system:serviceaccount:kube-system:generic-garbage-collector";
const GC_UA: &str = "kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/system:serviceaccount:kube-system:generic-garbage-collector";

/// The RequestReceived stage of the GC's delete (not an event here).
const RECEIVED: &str = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"6f1c2c9e-3b8a-4b0e-9a57-0d3c2f1e8a11","stage":"RequestReceived","requestURI":"/api/v1/namespaces/shop/configmaps/cart-config","verb":"delete","user":{"username":"system:serviceaccount:kube-system:generic-garbage-collector","uid":"3d1f8b7e-0c52-4d7a-9f0e-6a2b9c1d4e55","groups":["system:serviceaccounts","system:serviceaccounts:kube-system","system:authenticated"]},"sourceIPs":["10.0.0.12"],"userAgent":"kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/system:serviceaccount:kube-system:generic-garbage-collector","objectRef":{"resource":"configmaps","namespace":"shop","name":"cart-config","apiVersion":"v1"},"requestReceivedTimestamp":"2026-11-26T01:49:45.120001Z","stageTimestamp":"2026-11-26T01:49:45.120001Z"}"#;

/// The GC deletes a ConfigMap whose owner is gone; removed at once, so its UID is in
/// `responseStatus.details`.
const GC_DELETE: &str = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"6f1c2c9e-3b8a-4b0e-9a57-0d3c2f1e8a11","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/shop/configmaps/cart-config","verb":"delete","user":{"username":"system:serviceaccount:kube-system:generic-garbage-collector","uid":"3d1f8b7e-0c52-4d7a-9f0e-6a2b9c1d4e55","groups":["system:serviceaccounts","system:serviceaccounts:kube-system","system:authenticated"]},"sourceIPs":["10.0.0.12"],"userAgent":"kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/system:serviceaccount:kube-system:generic-garbage-collector","objectRef":{"resource":"configmaps","namespace":"shop","name":"cart-config","apiVersion":"v1"},"responseStatus":{"metadata":{},"status":"Success","details":{"name":"cart-config","kind":"configmaps","uid":"0b5e8f0a-7c2d-4e61-8d1a-2f9b3c4d5e6f"},"code":200},"requestReceivedTimestamp":"2026-11-26T01:49:45.120001Z","stageTimestamp":"2026-11-26T01:49:45.123456Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"RBAC: allowed by ClusterRoleBinding \"system:controller:generic-garbage-collector\" of ClusterRole \"system:controller:generic-garbage-collector\" to ServiceAccount \"generic-garbage-collector/kube-system\""}}"#;

/// The GC's owner lookup, answered 404 (kept: it proves the owner absent).
const OWNER_404: &str = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a0c4e2f1-5b6d-4c3e-8f7a-9b0c1d2e3f40","stage":"ResponseComplete","requestURI":"/apis/apps/v1/namespaces/shop/deployments/cart","verb":"get","user":{"username":"system:serviceaccount:kube-system:generic-garbage-collector","groups":["system:serviceaccounts","system:authenticated"]},"sourceIPs":["10.0.0.12"],"userAgent":"kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/system:serviceaccount:kube-system:generic-garbage-collector","objectRef":{"resource":"deployments","namespace":"shop","name":"cart","apiGroup":"apps","apiVersion":"v1"},"responseStatus":{"metadata":{},"status":"Failure","message":"deployments.apps \"cart\" not found","reason":"NotFound","details":{"name":"cart","group":"apps","kind":"deployments"},"code":404},"requestReceivedTimestamp":"2026-11-26T01:49:45.101000Z","stageTimestamp":"2026-11-26T01:49:45.102345Z"}"#;

/// A read answered 200: counted, not passed on.
const GET_200: &str = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"c7d8e9f0-1a2b-4c3d-9e4f-5a6b7c8d9e0f","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/shop/pods/cart-7d9f","verb":"get","user":{"username":"kubernetes-admin","groups":["kubeadm:cluster-admins","system:authenticated"]},"sourceIPs":["192.168.63.171"],"userAgent":"kubectl/v1.31.0 (linux/amd64) kubernetes/9edcffc","objectRef":{"resource":"pods","namespace":"shop","name":"cart-7d9f","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-11-26T01:49:46.000100Z","stageTimestamp":"2026-11-26T01:49:46.001200Z"}"#;

/// A kubelet's lease renewal.
const LEASE: &str = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b","stage":"ResponseComplete","requestURI":"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1?timeout=10s","verb":"update","user":{"username":"system:node:node-1","groups":["system:nodes","system:authenticated"]},"sourceIPs":["10.0.0.21"],"userAgent":"kubelet/v1.31.2 (linux/amd64) kubernetes/5864a46","objectRef":{"resource":"leases","namespace":"kube-node-lease","name":"node-1","uid":"5f6e7d8c-9b0a-4c1d-8e2f-3a4b5c6d7e8f","apiGroup":"coordination.k8s.io","apiVersion":"v1","resourceVersion":"41234"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-11-26T01:49:47.500000Z","stageTimestamp":"2026-11-26T01:49:47.503210Z"}"#;

fn log() -> String {
    [RECEIVED, GC_DELETE, OWNER_404, GET_200, LEASE].join("\n") + "\n"
}

fn us(s: &str) -> i64 {
    parse_time_us(s).unwrap()
}

fn expected_delete() -> AuditEvent {
    AuditEvent {
        audit_id: "6f1c2c9e-3b8a-4b0e-9a57-0d3c2f1e8a11".into(),
        level: Level::Metadata,
        time_us: 1_795_657_785_123_456,
        verb: "delete".into(),
        request_uri: "/api/v1/namespaces/shop/configmaps/cart-config".into(),
        user: GC.into(),
        groups: vec![
            "system:serviceaccounts".into(),
            "system:serviceaccounts:kube-system".into(),
            "system:authenticated".into(),
        ],
        impersonated_user: None,
        user_agent: GC_UA.into(),
        object: Some(ObjectReference {
            resource: "configmaps".into(),
            namespace: "shop".into(),
            name: "cart-config".into(),
            api_version: "v1".into(),
            ..ObjectReference::default()
        }),
        code: 200,
        reason: String::new(),
        deleted_uid: Some("0b5e8f0a-7c2d-4e61-8d1a-2f9b3c4d5e6f".into()),
        bodies: Bodies::default(),
        truncated: false,
        position: Position::default(),
    }
}

fn read_paths(paths: &[PathBuf]) -> crate::error::Result<(Vec<AuditEvent>, ReadStats)> {
    let mut events = Vec::new();
    let stats = read(
        &AuditOptions {
            paths: paths.to_vec(),
            keep: None,
            max_input_bytes: 0,
        },
        &mut |e| events.push(e),
    )?;
    Ok((events, stats))
}

fn read_in(dir: &Path, name: &str, bytes: &[u8]) -> (Vec<AuditEvent>, ReadStats) {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    read_paths(&[path]).unwrap()
}

fn read_bytes(name: &str, bytes: &[u8]) -> (Vec<AuditEvent>, ReadStats) {
    let dir = tempfile::tempdir().unwrap();
    read_in(dir.path(), name, bytes)
}

/// The events without their positions.
fn bare(events: &[AuditEvent]) -> Vec<AuditEvent> {
    events
        .iter()
        .cloned()
        .map(|mut e| {
            e.position = Position::default();
            e
        })
        .collect()
}

fn causes(stats: &ReadStats) -> Vec<(u64, &str)> {
    stats
        .problems
        .iter()
        .map(|p| (p.position.line, p.cause.as_str()))
        .collect()
}

#[test]
fn json_lines_gc_delete() {
    let (events, stats) = read_bytes("audit.log", log().as_bytes());
    assert_eq!(causes(&stats), vec![]);
    assert_eq!(events.len(), 3, "{events:#?}");
    let mut first = events[0].clone();
    assert_eq!(first.position.line, 2);
    assert!(first.position.source.ends_with("audit.log"));
    first.position = Position::default();
    assert_eq!(first, expected_delete());
    // The owner lookup that 404'd is kept; the 200 read is not; the lease update is.
    assert_eq!(events[1].verb, "get");
    assert_eq!(events[1].code, 404);
    assert_eq!(events[1].reason, "NotFound");
    assert_eq!(events[1].object.as_ref().unwrap().api_group, "apps");
    assert_eq!(events[1].position.line, 3);
    assert_eq!(events[2].verb, "update");
    assert_eq!(
        events[2].object.as_ref().unwrap().uid,
        "5f6e7d8c-9b0a-4c1d-8e2f-3a4b5c6d7e8f"
    );
    assert_eq!(events[2].position.line, 5);
    assert_eq!(
        (stats.inputs, stats.records, stats.events, stats.passed),
        (1, 5, 4, 3)
    );
    assert_eq!(stats.by_format.get("json-lines"), Some(&5));
    assert_eq!(stats.bytes, log().len() as u64);
    assert_eq!(stats.first_us, Some(us("2026-11-26T01:49:45.102345Z")));
    assert_eq!(stats.last_us, Some(us("2026-11-26T01:49:47.503210Z")));
    // The 404 (45.102) came after the delete (45.123).
    assert_eq!(stats.out_of_order, 1);
}

/// Reads `text` converted by `f` and checks the same events come out as from the JSON lines,
/// after `norm` blanks what the format does not carry.
fn same_events(name: &str, bytes: &[u8], format: &str, norm: impl Fn(&mut AuditEvent)) {
    let (want, _) = read_bytes("audit.log", log().as_bytes());
    let (got, stats) = read_bytes(name, bytes);
    assert_eq!(causes(&stats), vec![], "{name}");
    let mut want = bare(&want);
    want.iter_mut().for_each(&norm);
    assert_eq!(bare(&got), want, "{name}");
    // GKE has one entry per request: no RequestReceived.
    let records = if format == "gke" { 4 } else { 5 };
    assert_eq!(
        stats.by_format.get(format),
        Some(&records),
        "{name}: {:?}",
        stats.by_format
    );
    assert_eq!((stats.events, stats.passed), (4, 3), "{name}");
}

#[test]
fn event_list_shapes() {
    let log = log();
    // One EventList on one line (a webhook batch saved as is).
    same_events(
        "batch.json",
        to_event_list(&log).as_bytes(),
        "event-list",
        |_| {},
    );
    // JSON lines of EventLists.
    let two = format!(
        "{}{}",
        to_event_list(&[RECEIVED, GC_DELETE].join("\n")),
        to_event_list(&[OWNER_404, GET_200, LEASE].join("\n"))
    );
    same_events("batches.jsonl", two.as_bytes(), "event-list", |_| {});
    // Pretty-printed: streamed item by item.
    let v: serde_json::Value = serde_json::from_str(&to_event_list(&log)).unwrap();
    let pretty = serde_json::to_string_pretty(&v).unwrap();
    same_events("pretty.json", pretty.as_bytes(), "event-list", |_| {});
    // A JSON array of Events.
    same_events(
        "array.json",
        to_json_array(&log).as_bytes(),
        "event-list",
        |_| {},
    );
}

#[test]
fn event_list_positions_and_bad_items() {
    let text = to_event_list(&[GC_DELETE, LEASE].join("\n"));
    let text = text.replace(
        r#""stageTimestamp":"2026-11-26T01:49:47.503210Z""#,
        r#""stageTimestamp":"yesterday""#,
    );
    let (events, stats) = read_bytes("batch.json", format!("\n{text}").as_bytes());
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].position.line, 2);
    assert_eq!(
        causes(&stats),
        vec![(2, "item 2: bad stageTimestamp \"yesterday\"")]
    );
}

/// Decompressed audit logs stop at `--max-input-size`, as `-f` inputs do (one walker): the
/// events before the cap are read, and the rest is a problem that names the flag.
#[test]
fn a_decompressed_log_stops_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.log.gz");
    // Fifty copies of the log, each request with its own auditID (a request read twice is
    // read once).
    let text: String = (0..50)
        .map(|i| log().replace("\"auditID\":\"", &format!("\"auditID\":\"{i}-")))
        .collect();
    std::fs::write(&path, gzip(text.as_bytes())).unwrap();
    let cap = text.len() as u64 / 2;
    let mut events = Vec::new();
    let stats = read(
        &AuditOptions {
            paths: vec![path],
            keep: None,
            max_input_bytes: cap,
        },
        &mut |e| events.push(e),
    )
    .unwrap();
    let (all, _) = read_bytes("audit.log", text.as_bytes());
    assert!(
        !events.is_empty() && events.len() < all.len(),
        "{} of {}",
        events.len(),
        all.len()
    );
    assert!(
        stats.problems.iter().any(|p| p.cause.contains(
            "after decompression or from a pipe: stopped (raise the limit with --max-input-size)"
        )),
        "{:?}",
        stats.problems
    );
}

#[test]
fn gzip_shapes() {
    let log = log();
    same_events(
        "audit-2026-11-26T01-49-45.123.log.gz",
        &gzip(log.as_bytes()),
        "json-lines",
        |_| {},
    );
    same_events(
        "batch.json.gz",
        &gzip(to_event_list(&log).as_bytes()),
        "event-list",
        |_| {},
    );
    // Two gzip members in one file (concatenated rotations).
    let (a, b) = log.split_at(log.find('\n').unwrap() + 1);
    let mut two = gzip(a.as_bytes());
    two.extend(gzip(b.as_bytes()));
    same_events("audit.log.1", &two, "json-lines", |_| {});
    // Compressed twice.
    same_events(
        "audit.log.gz.gz",
        &gzip(&gzip(log.as_bytes())),
        "json-lines",
        |_| {},
    );
    // Cut short: what came before is read, and the loss is a problem.
    let gz = gzip(log.repeat(200).as_bytes());
    let (events, stats) = read_bytes("cut.log.gz", &gz[..gz.len() * 2 / 3]);
    assert!(!events.is_empty() && events.len() < 600);
    assert_eq!(stats.problems.len(), 1, "{:?}", stats.problems);
    assert!(
        stats.problems[0].cause.starts_with("truncated:"),
        "{:?}",
        stats.problems
    );
    // An archive cut between members (inside the next member's header): what came before is
    // read, and the cut is named as such (tar itself says "failed to read entire block").
    let mut tar = tar::Builder::new(Vec::new());
    for i in 0..3 {
        // Each member its own requests (the same ones again would be duplicates).
        let member = log.replace("\"auditID\":\"", &format!("\"auditID\":\"{i}"));
        let mut h = tar::Header::new_gnu();
        h.set_size(member.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, format!("audit-{i}.log"), member.as_bytes())
            .unwrap();
    }
    let tar = tar.into_inner().unwrap();
    let member = 512 + (log.len() + log.matches("\"auditID\"").count()).div_ceil(512) * 512;
    let (events, stats) = read_bytes("cut.tar", &tar[..member * 2 + 100]);
    assert_eq!(
        events.len(),
        2 * read_bytes("one.log", log.as_bytes()).0.len()
    );
    assert_eq!(stats.problems.len(), 1, "{:?}", stats.problems);
    assert!(
        stats.problems[0].cause.starts_with("truncated:"),
        "{:?}",
        stats.problems
    );
}

#[test]
fn eks_shapes() {
    let log = log();
    same_events("eks.jsonl", to_eks(&log).as_bytes(), "eks", |_| {});
    same_events(
        "eks.json",
        to_json_array(&to_eks(&log)).as_bytes(),
        "eks",
        |_| {},
    );
    same_events(
        "filter-log-events.json",
        to_eks_filter_log_events(&log).as_bytes(),
        "eks",
        |_| {},
    );
    // Another component's log lines in the same log group are not audit records.
    let mixed = format!(
        "{}{}\n",
        to_eks(&log),
        serde_json::json!({"@timestamp":"2026-11-26 01:49:48.000","@message":"I1126 01:49:48.000000 1 garbagecollector.go:501] \"Deleting item\"","@logStream":"kube-controller-manager-abc"})
    );
    let (events, stats) = read_bytes("eks-mixed.jsonl", mixed.as_bytes());
    assert_eq!(events.len(), 3);
    assert_eq!(stats.other_records, 1);
    assert_eq!(causes(&stats), vec![]);
}

fn gke_norm(e: &mut AuditEvent) {
    e.request_uri.clear();
    e.level = Level::Unknown;
    e.deleted_uid = None;
    e.impersonated_user = None;
    e.groups.clear();
    if let Some(o) = &mut e.object {
        o.uid.clear();
    }
}

#[test]
fn gke_shapes() {
    let log = log();
    same_events("gke.jsonl", to_gke(&log).as_bytes(), "gke", gke_norm);
    same_events(
        "gke.json",
        to_json_array(&to_gke(&log)).as_bytes(),
        "gke",
        gke_norm,
    );
    // Entries of other services are not audit records of Kubernetes.
    let other = r#"{"insertId":"x1","protoPayload":{"@type":"type.googleapis.com/google.cloud.audit.AuditLog","serviceName":"container.googleapis.com","methodName":"google.container.v1.ClusterManager.UpdateCluster"},"timestamp":"2026-11-26T01:49:48.000000001Z"}"#;
    let (events, stats) = read_bytes(
        "gke-other.jsonl",
        format!("{}{other}\n", to_gke(&log)).as_bytes(),
    );
    assert_eq!(events.len(), 3);
    assert_eq!(stats.other_records, 1);
}

/// verb, group, resource, subresource, namespace, name, code, level.
type GkeRow = (String, String, String, String, String, String, u16, Level);

#[test]
fn gke_mapping() {
    let entry = |method: &str, resource: &str, code: i64, extra: &str| {
        format!(
            r#"{{"insertId":"ins-1","operation":{{"id":"op-1","producer":"k8s.io"}},"protoPayload":{{"@type":"type.googleapis.com/google.cloud.audit.AuditLog","authenticationInfo":{{"principalEmail":"system:serviceaccount:kube-system:namespace-controller"}},"methodName":"{method}","resourceName":"{resource}","serviceName":"k8s.io","status":{{"code":{code}}}{extra}}},"timestamp":"2026-11-26T01:49:45.123456789Z"}}"#
        )
    };
    let text = [
        entry("io.k8s.core.v1.namespaces.finalize.update", "core/v1/namespaces/shop/finalize", 0, ""),
        entry("io.k8s.apps.v1.deployments.patch", "apps/v1/namespaces/shop/deployments/cart", 9, ""),
        entry("io.k8s.core.v1.namespaces.delete", "core/v1/namespaces/shop", 5, ""),
        entry(
            "io.k8s.authorization.rbac.v1.clusterroles.delete",
            "rbac.authorization.k8s.io/v1/clusterroles/viewer",
            7,
            r#","request":{"@type":"rbac.k8s.io/v1.DeleteOptions","propagationPolicy":"Foreground"}"#,
        ),
        entry("io.crossplane.gcp.compute.v1alpha2.gkeclusters.delete", "compute.gcp.crossplane.io/v1alpha2/gkeclusters/c1", 16, ""),
        entry("io.k8s.core.v1.pods.status.patch", "core/v1/namespaces/shop/pods/p1/status", 99, ""),
    ]
    .join("\n");
    let (events, stats) = read_bytes("gke.jsonl", text.as_bytes());
    assert_eq!(causes(&stats), vec![]);
    let got: Vec<GkeRow> = events
        .iter()
        .map(|e| {
            let o = e.object.clone().unwrap();
            (
                e.verb.clone(),
                o.api_group,
                o.resource,
                o.subresource,
                o.namespace,
                o.name,
                e.code,
                e.level,
            )
        })
        .collect();
    let s = |x: &str| x.to_owned();
    assert_eq!(
        got,
        vec![
            (
                s("update"),
                s(""),
                s("namespaces"),
                s("finalize"),
                s(""),
                s("shop"),
                200,
                Level::Unknown
            ),
            (
                s("patch"),
                s("apps"),
                s("deployments"),
                s(""),
                s("shop"),
                s("cart"),
                409,
                Level::Unknown
            ),
            (
                s("delete"),
                s(""),
                s("namespaces"),
                s(""),
                s(""),
                s("shop"),
                404,
                Level::Unknown
            ),
            (
                s("delete"),
                s("rbac.authorization.k8s.io"),
                s("clusterroles"),
                s(""),
                s(""),
                s("viewer"),
                403,
                Level::Request
            ),
            (
                s("delete"),
                s("compute.gcp.crossplane.io"),
                s("gkeclusters"),
                s(""),
                s(""),
                s("c1"),
                401,
                Level::Unknown
            ),
            (
                s("patch"),
                s(""),
                s("pods"),
                s("status"),
                s("shop"),
                s("p1"),
                500,
                Level::Unknown
            ),
        ]
    );
    let e = &events[0];
    assert_eq!(e.audit_id, "op-1");
    assert_eq!(
        e.user,
        "system:serviceaccount:kube-system:namespace-controller"
    );
    assert_eq!(e.time_us, 1_795_657_785_123_456);
    assert_eq!(e.request_uri, "");
    assert_eq!(
        events[3].bodies.propagation_policy.as_deref(),
        Some("Foreground")
    );
    assert_eq!(events[1].reason, "Conflict");
    for (grpc, http) in [
        (0, 200),
        (3, 400),
        (4, 504),
        (5, 404),
        (6, 409),
        (7, 403),
        (9, 409),
        (10, 409),
        (13, 500),
        (14, 503),
        (16, 401),
        (2, 500),
        (-1, 500),
    ] {
        assert_eq!(http_code(grpc).0, http, "gRPC {grpc}");
    }
    // insertId when there is no operation; a missing timestamp is a problem.
    let no_op = r#"{"insertId":"ins-9","protoPayload":{"methodName":"io.k8s.core.v1.pods.delete","resourceName":"core/v1/namespaces/a/pods/b"},"timestamp":"2026-11-26T01:49:45Z"}
{"insertId":"ins-10","protoPayload":{"methodName":"io.k8s.core.v1.pods.delete","resourceName":"core/v1/namespaces/a/pods/c"}}"#;
    let (events, stats) = read_bytes("gke2.jsonl", no_op.as_bytes());
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].audit_id, "ins-9");
    assert_eq!(
        causes(&stats),
        vec![(2, "a GKE audit entry without timestamp")]
    );
}

#[test]
fn aks_shapes() {
    let log = log();
    same_events("aks.jsonl", to_aks(&log).as_bytes(), "aks", |_| {});
    same_events(
        "aks-hub.json",
        to_aks_records(&log).as_bytes(),
        "aks",
        |_| {},
    );
    let v: serde_json::Value = serde_json::from_str(&to_aks_records(&log)).unwrap();
    same_events(
        "aks-pretty.json",
        serde_json::to_string_pretty(&v).unwrap().as_bytes(),
        "aks",
        |_| {},
    );
    // `properties.log` as an object (it happens), and a record of another category.
    let obj = format!(
        r#"{{"category":"kube-audit-admin","properties":{{"log":{GC_DELETE}}},"time":"2026-11-26T01:49:45.123456Z"}}
{{"category":"kube-apiserver","properties":{{"log":"I1126 01:49:45 1 controller.go:1] started"}},"time":"2026-11-26T01:49:45Z"}}"#
    );
    let (events, stats) = read_bytes("aks2.jsonl", obj.as_bytes());
    assert_eq!(bare(&events), vec![expected_delete()]);
    assert_eq!(stats.other_records, 1);
    assert_eq!(causes(&stats), vec![]);
}

/// A RequestResponse event whose `log` string AKS cut at 16 KiB: a problem, and the event
/// from the fields before the cut, marked truncated, timed by the record.
#[test]
fn aks_cut_at_16_kib() {
    let big = format!(
        r#"{{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/shop/configmaps/big","verb":"update","user":{{"username":"kubernetes-admin"}},"userAgent":"kubectl/v1.31.0","objectRef":{{"resource":"configmaps","namespace":"shop","name":"big","apiVersion":"v1"}},"responseStatus":{{"metadata":{{}},"code":200}},"requestObject":{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"big","namespace":"shop"}},"data":{{"blob":"{}"}}}},"responseObject":{{}},"requestReceivedTimestamp":"2026-11-26T01:50:00.000001Z","stageTimestamp":"2026-11-26T01:50:00.000002Z"}}"#,
        "x".repeat(40_000)
    );
    let line = to_aks(&format!("{big}\n{GC_DELETE}\n"));
    let mut recs: Vec<serde_json::Value> = line
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let log = recs[0]["properties"]["log"].as_str().unwrap().to_owned();
    recs[0]["properties"]["log"] = serde_json::Value::String(log[..16_384].to_owned());
    recs[0]["time"] = serde_json::json!("2026-11-26T01:50:00.0000027Z");
    let text: String = recs.iter().map(|r| format!("{r}\n")).collect();
    let (events, stats) = read_bytes("aks.jsonl", text.as_bytes());
    assert_eq!(causes(&stats), vec![(1, "event cut at 16 KiB (AKS)")]);
    assert_eq!(events.len(), 2);
    let cut = &events[0];
    assert!(cut.truncated);
    assert_eq!(
        (cut.verb.as_str(), cut.user.as_str(), cut.code),
        ("update", "kubernetes-admin", 200)
    );
    assert_eq!(cut.object.as_ref().unwrap().name, "big");
    assert_eq!(cut.level, Level::RequestResponse);
    assert_eq!(cut.time_us, us("2026-11-26T01:50:00.000002Z"));
    assert_eq!(bare(&events[1..]), vec![expected_delete()]);
    assert_eq!(stats.events, 2);
    // Cut inside the metadata: nothing to recover, still one problem.
    recs[0]["properties"]["log"] = serde_json::Value::String(log[..30].to_owned());
    let text: String = recs.iter().map(|r| format!("{r}\n")).collect();
    let (events, stats) = read_bytes("aks.jsonl", text.as_bytes());
    assert_eq!(events.len(), 1);
    assert_eq!(
        causes(&stats),
        vec![(1, "event cut short at 30 bytes (AKS)")]
    );
}

#[test]
fn mixed_formats_line_by_line() {
    let text = format!(
        "{GC_DELETE}\n{}{}{}{}",
        to_eks(OWNER_404),
        to_gke(LEASE),
        to_aks(GET_200),
        to_event_list(LEASE)
    );
    let (events, stats) = read_bytes("mixed.log", text.as_bytes());
    assert_eq!(causes(&stats), vec![]);
    assert_eq!(
        events
            .iter()
            .map(|e| (e.verb.as_str(), e.position.line))
            .collect::<Vec<_>>(),
        vec![("delete", 1), ("get", 2), ("update", 3), ("update", 5)]
    );
    let formats: Vec<(&str, u64)> = stats.by_format.iter().map(|(k, v)| (*k, *v)).collect();
    assert_eq!(
        formats,
        vec![
            ("aks", 1),
            ("eks", 1),
            ("event-list", 1),
            ("gke", 1),
            ("json-lines", 1)
        ]
    );
}

/// An event at Request (or RequestResponse) level with this verb, URI and bodies.
fn with_bodies(verb: &str, uri: &str, level: &str, bodies: &str) -> String {
    format!(
        r#"{{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"{level}","auditID":"b-{verb}","stage":"ResponseComplete","requestURI":"{uri}","verb":"{verb}","user":{{"username":"{GC}"}},"objectRef":{{"resource":"replicasets","namespace":"shop","name":"cart-5d8f","apiGroup":"apps","apiVersion":"v1"}},"responseStatus":{{"metadata":{{}},"code":200}}{bodies},"requestReceivedTimestamp":"2026-11-26T01:49:45.000001Z","stageTimestamp":"2026-11-26T01:49:45.000002Z"}}"#
    )
}

fn bodies_of(line: &str) -> (Bodies, AuditEvent) {
    let (events, stats) = read_bytes("b.log", format!("{line}\n").as_bytes());
    assert_eq!(causes(&stats), vec![]);
    assert_eq!(events.len(), 1);
    (events[0].bodies.clone(), events[0].clone())
}

#[test]
fn bodies_dry_run_in_delete_options() {
    // `kubectl delete --dry-run=server` sends DeleteOptions with `dryRun: ["All"]` in the
    // body; the request URI carries no query.
    let uri = "/api/v1/namespaces/shop/configmaps/owner";
    let (b, _) = bodies_of(&with_bodies(
        "delete",
        uri,
        "Request",
        r#","requestObject":{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/__internal","dryRun":["All"],"propagationPolicy":"Background"}"#,
    ));
    assert!(b.dry_run);
    assert_eq!(b.propagation_policy.as_deref(), Some("Background"));
    for body in [
        r#","requestObject":{"kind":"DeleteOptions","propagationPolicy":"Background"}"#,
        r#","requestObject":{"kind":"DeleteOptions","dryRun":[]}"#,
        r#","requestObject":{"kind":"DeleteOptions","dryRun":"All"}"#,
    ] {
        let (b, _) = bodies_of(&with_bodies("delete", uri, "Request", body));
        assert!(!b.dry_run, "{body}");
    }
}

#[test]
fn bodies_delete_options() {
    let uri = "/apis/apps/v1/namespaces/shop/replicasets/cart-5d8f";
    let (b, e) = bodies_of(&with_bodies(
        "delete",
        uri,
        "Request",
        r#","requestObject":{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/__internal","preconditions":{"uid":"4c2a1f3e-aaaa-bbbb-cccc-000000000001"},"propagationPolicy":"Background"}"#,
    ));
    assert_eq!(e.level, Level::Request);
    assert_eq!(b.propagation_policy.as_deref(), Some("Background"));
    assert_eq!(
        b.precondition_uid.as_deref(),
        Some("4c2a1f3e-aaaa-bbbb-cccc-000000000001")
    );
    assert_eq!(b.orphan_dependents, None);
    // The older form.
    let (b, _) = bodies_of(&with_bodies(
        "delete",
        uri,
        "Request",
        r#","requestObject":{"kind":"DeleteOptions","orphanDependents":true}"#,
    ));
    assert_eq!(
        (b.orphan_dependents, b.propagation_policy),
        (Some(true), None)
    );
    // No body: the query string (as the API server reads it then).
    let (b, _) = bodies_of(&with_bodies(
        "delete",
        &format!("{uri}?dryRun=All\\u0026propagationPolicy=Foreground"),
        "Metadata",
        "",
    ));
    assert_eq!(b.propagation_policy.as_deref(), Some("Foreground"));
    let (b, _) = bodies_of(&with_bodies(
        "delete",
        &format!("{uri}?orphanDependents=false"),
        "Metadata",
        "",
    ));
    assert_eq!(b.orphan_dependents, Some(false));
    // The body wins over the query.
    let (b, _) = bodies_of(&with_bodies(
        "delete",
        &format!("{uri}?propagationPolicy=Orphan"),
        "Request",
        r#","requestObject":{"propagationPolicy":"Foreground"}"#,
    ));
    assert_eq!(b.propagation_policy.as_deref(), Some("Foreground"));
}

#[test]
fn bodies_patches() {
    let uri = "/apis/apps/v1/namespaces/shop/replicasets/cart-5d8f";
    // The GC's strategic-merge removal of one ownerReference.
    let (b, _) = bodies_of(&with_bodies(
        "patch",
        uri,
        "Request",
        r#","requestObject":{"metadata":{"ownerReferences":[{"$patch":"delete","uid":"d1e2f3a4-0000-4000-8000-00000000beef"}],"uid":"4c2a1f3e-aaaa-bbbb-cccc-000000000001"}}"#,
    ));
    assert_eq!(
        b.removed_paths,
        vec!["/metadata/ownerReferences/uid=d1e2f3a4-0000-4000-8000-00000000beef"]
    );
    assert_eq!(b.owner_references, None);
    // The GC dropping the owner's finalizers: a merge patch to null.
    let (b, _) = bodies_of(&with_bodies(
        "patch",
        uri,
        "Request",
        r#","requestObject":{"metadata":{"finalizers":null,"resourceVersion":"41234"}}"#,
    ));
    assert_eq!(b.finalizers, Some(vec![]));
    let (b, _) = bodies_of(&with_bodies(
        "patch",
        uri,
        "Request",
        r#","requestObject":{"metadata":{"finalizers":["orphan"]}}"#,
    ));
    assert_eq!(b.finalizers, Some(vec!["orphan".to_owned()]));
    // A JSON patch.
    let (b, _) = bodies_of(&with_bodies(
        "patch",
        uri,
        "Request",
        r#","requestObject":[{"op":"test","path":"/metadata/finalizers/0","value":"foregroundDeletion"},{"op":"remove","path":"/metadata/finalizers/0"},{"op":"replace","path":"/spec/replicas","value":0},{"op":"replace","path":"/metadata/ownerReferences","value":[]}]"#,
    ));
    assert_eq!(
        b.removed_paths,
        vec!["/metadata/finalizers/0", "/metadata/ownerReferences"]
    );
    assert_eq!(b.owner_references, Some(vec![]));
    assert_eq!(b.finalizers, None);
    // kubectl's strategic-merge removal of a finalizer.
    let (b, _) = bodies_of(&with_bodies(
        "patch",
        uri,
        "Request",
        r#","requestObject":{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/hold"]}}"#,
    ));
    assert_eq!(
        b.removed_paths,
        vec!["/metadata/finalizers/value=example.com/hold"]
    );
    // A rejected patch holds anything: what has the wrong type is ignored, the event is kept.
    let (b, e) = bodies_of(&with_bodies(
        "patch",
        uri,
        "Request",
        r#","requestObject":{"metadata":{"finalizers":"oops","ownerReferences":{"a":1},"uid":7},"propagationPolicy":[1]}"#,
    ));
    assert_eq!((b.finalizers, b.owner_references), (None, None));
    assert_eq!(e.verb, "patch");
}

#[test]
fn bodies_update_and_response() {
    let uri = "/apis/apps/v1/namespaces/shop/replicasets/cart-5d8f";
    let (b, _) = bodies_of(&with_bodies(
        "update",
        uri,
        "RequestResponse",
        r#","requestObject":{"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"cart-5d8f","namespace":"shop","uid":"4c2a1f3e-aaaa-bbbb-cccc-000000000001","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"cart","uid":"d1e2f3a4-0000-4000-8000-00000000beef","controller":true,"blockOwnerDeletion":true}],"finalizers":["foregroundDeletion"]},"spec":{"replicas":2}},"responseObject":{"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"cart-5d8f","namespace":"shop","uid":"4c2a1f3e-aaaa-bbbb-cccc-000000000001","deletionTimestamp":"2026-11-26T01:49:45Z","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"cart","uid":"d1e2f3a4-0000-4000-8000-00000000beef"}],"finalizers":["foregroundDeletion"]}}"#,
    ));
    let owner = OwnerRefSeen {
        api_version: "apps/v1".into(),
        kind: "Deployment".into(),
        name: "cart".into(),
        uid: "d1e2f3a4-0000-4000-8000-00000000beef".into(),
    };
    assert_eq!(b.owner_references, Some(vec![owner.clone()]));
    assert_eq!(b.finalizers, Some(vec!["foregroundDeletion".to_owned()]));
    assert_eq!(
        b.response_uid.as_deref(),
        Some("4c2a1f3e-aaaa-bbbb-cccc-000000000001")
    );
    assert_eq!(b.response_owner_references, Some(vec![owner]));
    assert_eq!(
        b.response_finalizers,
        Some(vec!["foregroundDeletion".to_owned()])
    );
    assert!(b.response_deleting);
    // An object without those fields says nothing about them.
    let (b, _) = bodies_of(&with_bodies(
        "update",
        uri,
        "RequestResponse",
        r#","requestObject":{"metadata":{"name":"x"}},"responseObject":{"metadata":{"name":"x","deletionTimestamp":null}}"#,
    ));
    assert_eq!(b, Bodies::default());
    // DeleteOptions fields mean nothing outside a delete.
    let (b, _) = bodies_of(&with_bodies(
        "update",
        uri,
        "Request",
        r#","requestObject":{"propagationPolicy":"Orphan"}"#,
    ));
    assert_eq!(b.propagation_policy, None);
}

#[test]
fn truncated_annotation() {
    let line = GC_DELETE.replace(
        r#""annotations":{"#,
        r#""annotations":{"audit.k8s.io/truncated":"true","#,
    );
    let (_, e) = bodies_of(&line);
    assert!(e.truncated);
}

#[test]
fn bad_lines_are_problems_with_positions() {
    let late = LEASE.replace("01:49:47.503210Z", "01:40:00.000000Z");
    let bad_time = GC_DELETE.replace("2026-11-26T01:49:45.123456Z", "2026-13-26T01:49:45.123456Z");
    let no_time = GC_DELETE
        .replace(r#""stageTimestamp":"2026-11-26T01:49:45.123456Z","#, "")
        .replace(
            r#""requestReceivedTimestamp":"2026-11-26T01:49:45.120001Z","#,
            "",
        );
    let core_event =
        r#"{"kind":"Event","apiVersion":"v1","metadata":{"name":"x.1"},"message":"Deleted"}"#;
    let text = [
        GC_DELETE,
        "this is not JSON {",
        OWNER_404,
        &bad_time,
        &no_time,
        "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",",
        LEASE,
        &late,
        core_event,
        r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":5}"#,
        &GC_DELETE[..300],
    ]
    .join("\n");
    let (events, stats) = read_bytes("audit.log", text.as_bytes());
    let lines: Vec<u64> = events.iter().map(|e| e.position.line).collect();
    assert_eq!(lines, vec![1, 3, 7, 8]);
    let got: Vec<(u64, String)> = stats
        .problems
        .iter()
        .map(|p| {
            (
                p.position.line,
                p.cause.split(':').next().unwrap().to_owned(),
            )
        })
        .collect();
    let want: Vec<(u64, &str)> = vec![
        (2, "not JSON"),
        (4, "bad stageTimestamp \"2026-13-26T01"),
        (
            5,
            "an audit event without stageTimestamp, requestReceivedTimestamp or timestamp",
        ),
        (6, "cut short"),
        (9, "not an audit record"),
        (10, "malformed"),
        (11, "cut short"),
    ];
    assert_eq!(
        got,
        want.iter()
            .map(|(l, c)| (*l, c.to_string()))
            .collect::<Vec<_>>(),
        "{:#?}",
        stats.problems
    );
    assert_eq!(stats.out_of_order, 2, "the 404 and the late lease");
    assert_eq!(stats.records, 11);
}

#[test]
fn a_line_cut_inside_a_string_does_not_swallow_the_next() {
    let text = format!("{}\n{GC_DELETE}\n{LEASE}\n", &GC_DELETE[..200]);
    let (events, stats) = read_bytes("audit.log", text.as_bytes());
    assert_eq!(events.len(), 2);
    assert_eq!(stats.problems.len(), 1);
    assert_eq!(stats.problems[0].position.line, 1);
    // Cut between members, then a member whose value is the next line.
    let text = format!("{{\"kind\":\"Event\",\"x\":\n{GC_DELETE}\n{LEASE}\n{OWNER_404}\n");
    let (events, stats) = read_bytes("audit.log", text.as_bytes());
    assert_eq!(events.len(), 3, "{:?}", stats.problems);
    assert_eq!(causes(&stats).len(), 1);
    // An array opened and never closed: one problem, the lines after it still read.
    let text = format!("{{\"kind\":\"Event\",\"x\":[\n{GC_DELETE}\n{LEASE}\n");
    let (events, stats) = read_bytes("audit.log", text.as_bytes());
    assert_eq!(
        (events.len(), stats.problems.len()),
        (2, 1),
        "{:?}",
        stats.problems
    );
}

#[test]
fn hostile_strings() {
    let control = GC_DELETE.replace(
        "kube-system:generic-garbage-collector\",\"uid",
        "kube-system:generic\\u001b[31m-garbage\\u0000-collector\",\"uid",
    );
    // Each its own request (the same request read twice is one event).
    let huge_ua = GC_DELETE
        .replace(GC_UA, &"A".repeat(100_000))
        .replace("6f1c2c9e", "11111111");
    let huge_code = GC_DELETE
        .replace(r#""code":200"#, r#""code":70000"#)
        .replace("6f1c2c9e", "22222222");
    let deep = format!(
        r#"{{"kind":"Event","apiVersion":"audit.k8s.io/v1","auditID":"d","stage":"ResponseComplete","verb":"delete","requestObject":{}1{},"user":{}"x"{},"stageTimestamp":"2026-11-26T01:49:45Z"}}"#,
        "[".repeat(5000),
        "]".repeat(5000),
        "[".repeat(200),
        "]".repeat(200),
    );
    let mut text = Vec::new();
    for l in [control.as_str(), &huge_ua, &huge_code, &deep] {
        text.extend_from_slice(l.as_bytes());
        text.push(b'\n');
    }
    text.extend_from_slice(b"{\"kind\":\"Event\",\"auditID\":\"\xff\xfe\"}\n\0\0\0\n");
    text.extend_from_slice(LEASE.as_bytes());
    let (events, stats) = read_bytes("audit.log", &text);
    assert_eq!(events.len(), 3, "{:#?}", stats.problems);
    assert_eq!(
        events[0].user,
        "system:serviceaccount:kube-system:generic\u{1b}[31m-garbage\0-collector"
    );
    assert_eq!(events[1].user_agent.len(), 16 << 10);
    let got: Vec<(u64, String)> = stats
        .problems
        .iter()
        .map(|p| (p.position.line, p.cause.chars().take(24).collect()))
        .collect();
    assert_eq!(
        got,
        vec![
            (2, "a field longer than 16 K".to_owned()),
            (3, "malformed: invalid value".to_owned()),
            (4, "malformed: invalid type:".to_owned()),
            (5, "not valid JSON: invalid ".to_owned()),
            (6, "not JSON".to_owned()),
        ],
        "{:#?}",
        stats.problems
    );
    assert!(stats.problems.iter().all(|p| p.cause.len() < 700));
}

#[test]
fn not_an_audit_log() {
    // Named by the user: one problem, nothing else read.
    let (events, stats) = read_bytes("notes.txt", b"hello\nworld\n{}\n");
    assert!(events.is_empty());
    assert_eq!(
        causes(&stats),
        vec![(
            1,
            "not an audit log: the first line is not JSON (\"hello\")"
        )]
    );
    let (_, stats) = read_bytes("legacy.log", b"2026-11-26T01:49:45.123456Z AUDIT: id=\"x\" stage=\"ResponseComplete\" ip=\"10.0.0.5\" method=\"delete\"\n");
    assert!(
        stats.problems[0]
            .cause
            .starts_with("the legacy text format")
    );
    // JSON that is no audit log, long: given up on after 1000 records.
    let list: String = (0..3000).map(|i| format!("{{\"n\":{i}}}\n")).collect();
    let (_, stats) = read_bytes("numbers.jsonl", list.as_bytes());
    assert_eq!(stats.problems.len(), 1000);
    assert_eq!(stats.more_problems, 1);
    assert_eq!(stats.records, 1000);
    // Empty input: nothing, no problem.
    let (events, stats) = read_bytes("empty.log", b"");
    assert!(events.is_empty() && stats.problems.is_empty());
    assert_eq!(stats.inputs, 1);
}

#[test]
fn directories_globs_and_archives() {
    let dir = tempfile::tempdir().unwrap();
    let mg = dir.path().join("must-gather/quay-io-openshift/audit_logs");
    let kas = mg.join("kube-apiserver");
    std::fs::create_dir_all(&kas).unwrap();
    std::fs::write(
        kas.join("node-1-audit-2026-11-25T10-00-00.000.log.gz"),
        gzip(format!("{GC_DELETE}\n").as_bytes()),
    )
    .unwrap();
    std::fs::write(
        kas.join("node-1-audit.log.gz"),
        gzip(format!("{OWNER_404}\n").as_bytes()),
    )
    .unwrap();
    std::fs::write(
        kas.join("node-2-audit.log.gz"),
        gzip(format!("{LEASE}\n").as_bytes()),
    )
    .unwrap();
    std::fs::write(
        mg.join("kube-apiserver.audit_logs_listing"),
        "node-1-audit.log.gz 12345\n",
    )
    .unwrap();
    std::fs::write(mg.join("version.yaml"), "kind: Version\n").unwrap();
    std::fs::write(
        mg.join("list.json"),
        r#"{"kind":"List","apiVersion":"v1","items":[]}"#,
    )
    .unwrap();
    let (events, stats) = read_paths(&[dir.path().to_path_buf()]).unwrap();
    assert_eq!(
        events.iter().map(|e| e.verb.as_str()).collect::<Vec<_>>(),
        vec!["delete", "get", "update"]
    );
    assert_eq!(causes(&stats), vec![]);
    assert_eq!(stats.inputs, 6);
    assert_eq!(stats.skipped_inputs.len(), 3, "{:?}", stats.skipped_inputs);
    assert!(
        events[0]
            .position
            .source
            .ends_with("node-1-audit-2026-11-25T10-00-00.000.log.gz")
    );
    // A glob the shell did not expand.
    let (events, _) = read_paths(&[kas.join("node-1-*.log.gz")]).unwrap();
    assert_eq!(events.len(), 2);
    let (events, _) = read_paths(&[kas.join("node-[2-9]-audit.log.gz")]).unwrap();
    assert_eq!(events.len(), 1);
    // The must-gather as a tarball.
    let mut tar = tar::Builder::new(Vec::new());
    tar.append_dir_all("must-gather", dir.path().join("must-gather"))
        .unwrap();
    let tgz = gzip(&tar.into_inner().unwrap());
    let (events, stats) = read_bytes("must-gather.tar.gz", &tgz);
    assert_eq!(events.len(), 3);
    assert!(
        events[0]
            .position
            .source
            .contains("must-gather.tar.gz/must-gather/"),
        "{:?}",
        events[0].position
    );
    assert_eq!(causes(&stats), vec![]);
    // Errors: only for inputs that cannot be opened.
    let missing = dir.path().join("nope.log");
    let e = read_paths(&[missing]).unwrap_err();
    assert!(e.to_string().contains("no such file or directory"), "{e}");
    let e = read_paths(&[kas.join("node-9*")]).unwrap_err();
    assert!(e.to_string().contains("no file matches"), "{e}");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert!(read_paths(&[empty]).is_err());
}

#[test]
fn long_lines() {
    // A one-line JSON array longer than any buffer limit would be streamed; here, a few MB
    // (3000 copies of the log, each with auditIDs of its own: requests of their own).
    let many: String = (0..3000)
        .map(|i| log().replace("\"auditID\":\"", &format!("\"auditID\":\"{i}-")))
        .collect();
    let array = format!(
        "{}\n",
        serde_json::to_string(
            &serde_json::from_str::<serde_json::Value>(&to_json_array(&many)).unwrap()
        )
        .unwrap()
    );
    let (events, stats) = read_bytes("one-line.json", array.as_bytes());
    assert_eq!(events.len(), 9000);
    assert_eq!(causes(&stats), vec![]);
}

#[test]
fn timestamps() {
    assert_eq!(parse_time_us("1970-01-01T00:00:00.000001Z"), Some(1));
    assert_eq!(
        parse_time_us("2026-11-26T01:49:45.123456Z"),
        Some(1_795_657_785_123_456)
    );
    assert_eq!(
        parse_time_us("2026-11-26T01:49:45.123456789Z"),
        Some(1_795_657_785_123_456)
    );
    assert_eq!(
        parse_time_us("2026-11-26T01:49:45Z"),
        Some(1_795_657_785_000_000)
    );
    assert_eq!(
        parse_time_us("2026-11-26T01:49:45.5Z"),
        Some(1_795_657_785_500_000)
    );
    assert_eq!(
        parse_time_us("2026-11-26T02:49:45.000001+01:00"),
        Some(1_795_657_785_000_001)
    );
    assert_eq!(
        parse_time_us("2024-02-29T23:59:59Z"),
        Some(1_709_251_199_000_000)
    );
    for bad in [
        "",
        "yesterday",
        "2026-13-01T00:00:00Z",
        "2025-02-29T00:00:00Z",
        "2026-11-26T24:00:00Z",
        "2026-11-26T01:60:00Z",
        "2026-11-26T01:49:45.Z",
        "2026-11-26T01:49:45",
        "+026-11-26T01:49:45Z",
        "2026-11-26 01:49:45Z",
        "2026-11-26T01:49:45.123456Zjunk",
        "2026-11-26T01:49:45+1:00",
        "２026-11-26T01:49:45Z",
    ] {
        assert_eq!(parse_time_us(bad), None, "{bad}");
    }
}

#[test]
fn closing_a_cut_object() {
    assert_eq!(
        close_truncated(r#"{"a":1,"b":{"c":"x,y"#).as_deref(),
        Some(r#"{"a":1}"#)
    );
    assert_eq!(
        close_truncated(r#"{"a":"q\",","b":[1,2"#).as_deref(),
        Some(r#"{"a":"q\","}"#)
    );
    assert_eq!(close_truncated(r#"{"a":1"#), None);
    assert_eq!(close_truncated(r#"{"a":1}"#), None);
    assert_eq!(close_truncated("[1,2"), None);
}

fn read_any(bytes: &[u8]) -> (Vec<AuditEvent>, ReadStats) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in");
    std::fs::write(&path, bytes).unwrap();
    let mut events = Vec::new();
    let stats = read(
        &AuditOptions {
            paths: vec![path],
            keep: None,
            max_input_bytes: 0,
        },
        &mut |e| events.push(e),
    )
    .unwrap();
    (events, stats)
}

fn consistent(events: &[AuditEvent], stats: &ReadStats) -> Result<(), TestCaseError> {
    prop_assert_eq!(events.len() as u64, stats.passed);
    prop_assert!(stats.passed <= stats.events);
    prop_assert!(stats.problems.len() <= 1000);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any bytes: events and problems, never a panic.
    #[test]
    fn any_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let (events, stats) = read_any(&bytes);
        consistent(&events, &stats)?;
    }

    /// Bytes that look like JSON (brackets, quotes, escapes, line breaks): never a panic.
    #[test]
    fn json_like_bytes_never_panic(s in "[\\[\\]{}\",:\\\\ \na-z0-9]{0,300}") {
        let (events, stats) = read_any(s.as_bytes());
        consistent(&events, &stats)?;
        let (events, stats) = read_any(&gzip(s.as_bytes()));
        consistent(&events, &stats)?;
    }

    /// A valid log (of any format) cut anywhere: what is whole is read, and the cut is a
    /// problem unless it fell between records.
    #[test]
    fn a_cut_log_is_never_silent(cut in 0usize..4000, format in 0usize..5) {
        let log = log();
        let text = match format {
            0 => log,
            1 => to_eks(&log),
            2 => to_gke(&log),
            3 => to_aks(&log),
            _ => to_json_array(&to_gke(&log)),
        };
        let cut = cut.min(text.len());
        let (events, stats) = read_any(&text.as_bytes()[..cut]);
        consistent(&events, &stats)?;
        let (all, _) = read_any(text.as_bytes());
        prop_assert!(events.len() <= all.len());
        let head = text[..cut].trim_end();
        let whole = head.is_empty() || head.ends_with('}') && format != 4 || head == text.trim_end();
        if !whole {
            prop_assert!(!stats.problems.is_empty(), "cut at {}: no problem", cut);
        }
    }

    /// One byte of a valid log changed: never a panic.
    #[test]
    fn an_edited_log_never_panics(at in 0usize..4000, byte in any::<u8>(), format in 0usize..4) {
        let log = log();
        let text = match format {
            0 => log,
            1 => to_eks(&log),
            2 => to_event_list(&log),
            _ => to_aks_records(&log),
        };
        let mut bytes = text.into_bytes();
        let at = at % bytes.len();
        bytes[at] = byte;
        let (events, stats) = read_any(&bytes);
        consistent(&events, &stats)?;
        prop_assert!(events.len() <= 4);
    }
}

/// Bodies of records that are left out (another stage, a read answered 200) are skipped, not
/// read: whatever they hold, nothing comes of them.
#[test]
fn bodies_of_left_out_records() {
    let received = RECEIVED.replace(
        r#""requestReceivedTimestamp""#,
        r#""requestObject":{"metadata":{"finalizers":"x","ownerReferences":[[[[1]]]]}},"requestReceivedTimestamp""#,
    );
    let get = GET_200.replace(
        r#""requestReceivedTimestamp""#,
        r#""responseObject":{"kind":"Pod","metadata":{"uid":"u","ownerReferences":[{"uid":"o"}]}},"requestReceivedTimestamp""#,
    );
    let (events, stats) = read_bytes(
        "audit.log",
        format!("{received}\n{get}\n{GC_DELETE}\n").as_bytes(),
    );
    assert_eq!(causes(&stats), vec![]);
    assert_eq!((stats.events, stats.passed), (2, 1));
    assert_eq!(bare(&events), vec![expected_delete()]);
}

/// Reads the file at `path` with this threading.
fn read_parallel(path: &Path, parallel: Parallel) -> (Vec<AuditEvent>, ReadStats) {
    let mut events = Vec::new();
    let stats = read_with(
        &AuditOptions {
            paths: vec![path.to_owned()],
            keep: None,
            max_input_bytes: 0,
        },
        parallel,
        &mut |e| events.push(e),
    )
    .unwrap();
    (events, stats)
}

/// A log of `n` records with everything the line-by-line reader handles: events of every
/// kind, bad lines, a line cut short, blank lines, an event out of order, an EventList on one
/// line, a record pretty-printed over several lines, and a line longer than small blocks.
fn mixed_log(n: usize, cut_every: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        let ev = [GC_DELETE, OWNER_404, GET_200, LEASE, RECEIVED][i % 5]
            .replace("shop", &format!("ns-{i}"));
        match i % cut_every {
            0 if i > 0 => out.push_str(&ev[..ev.len() / 2]),
            7 => out.push_str("not json at all"),
            11 => out.push_str(&format!("[{ev},{ev}]")),
            13 => out.push_str(
                &serde_json::to_string_pretty(
                    &serde_json::from_str::<serde_json::Value>(&ev).unwrap(),
                )
                .unwrap(),
            ),
            17 => out.push_str(&ev.replace("2026-11-26T01:49:45.123456Z", "2026-11-26T01:40:00Z")),
            19 => out.push_str("\n\n   "),
            23 => out.push_str(&ev.replace("cart-config", &"x".repeat(3000))),
            _ => out.push_str(&ev),
        }
        out.push('\n');
    }
    out
}

/// JSON lines parsed on several threads, in blocks of any size, give exactly what line by
/// line gives: the same events in the same order with the same positions, the same problems
/// and the same counts — including where a block ends inside a record that spans lines, or
/// a line is longer than a block.
#[test]
fn parallel_blocks_read_exactly_as_line_by_line() {
    let sequential = Parallel {
        workers: 1,
        ..Parallel::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let (plain, gz) = (dir.path().join("in.log"), dir.path().join("in.log.gz"));
    // Events compared by what they say and where (a mismatch prints a line each).
    let brief = |events: &[AuditEvent]| -> Vec<String> {
        events
            .iter()
            .map(|e| {
                format!(
                    "{}:{} {} {}",
                    e.position.line, e.audit_id, e.verb, e.request_uri
                )
            })
            .collect()
    };
    for (n, cut_every) in [(600, 29), (900, 41), (400, 1000)] {
        let log = mixed_log(n, cut_every);
        std::fs::write(&plain, log.as_bytes()).unwrap();
        std::fs::write(&gz, gzip(log.as_bytes())).unwrap();
        let (want_events, want) = read_parallel(&plain, sequential);
        assert!(
            want.problems.len() > 5 || cut_every == 1000,
            "{:?}",
            want.problems
        );
        for workers in [2, 3] {
            for block in [64, 700, 4096, 1 << 16] {
                for after in [0, 5, 256] {
                    let p = Parallel {
                        workers,
                        after,
                        block,
                    };
                    let (events, got) = read_parallel(&plain, p);
                    let what = format!("{p:?} on {n} records");
                    assert_eq!(brief(&events), brief(&want_events), "{what}");
                    assert_eq!(events, want_events, "{what}");
                    assert_eq!(got.problems, want.problems, "{what}");
                    assert_eq!(
                        (
                            got.records,
                            got.events,
                            got.passed,
                            got.out_of_order,
                            got.bytes
                        ),
                        (
                            want.records,
                            want.events,
                            want.passed,
                            want.out_of_order,
                            want.bytes
                        ),
                        "{what}"
                    );
                    assert_eq!(
                        (&got.by_format, got.first_us, got.last_us, got.more_problems),
                        (
                            &want.by_format,
                            want.first_us,
                            want.last_us,
                            want.more_problems
                        ),
                        "{what}"
                    );
                    // A keep filter runs on the parsing threads: the same kept events.
                    if block == 700 {
                        let only_deletes: fn(&AuditEvent) -> bool = |e| e.verb == "delete";
                        let filtered = |p: Parallel| {
                            let mut events = Vec::new();
                            let stats = read_with(
                                &AuditOptions {
                                    paths: vec![plain.clone()],
                                    keep: Some(only_deletes),
                                    max_input_bytes: 0,
                                },
                                p,
                                &mut |e| events.push(e),
                            )
                            .unwrap();
                            (events, stats.passed)
                        };
                        let (kept, passed) = filtered(p);
                        assert_eq!(
                            (&kept, passed),
                            (&filtered(sequential).0, kept.len() as u64)
                        );
                        assert!(!kept.is_empty() && kept.iter().all(|e| e.verb == "delete"));
                    }
                    // gzip: the same through the decoder.
                    if block == 700 && after == 5 {
                        let (events, got) = read_parallel(&gz, p);
                        let (want_events, want) = read_parallel(&gz, sequential);
                        assert_eq!(events, want_events, "gzip {what}");
                        assert_eq!(got.problems, want.problems, "gzip {what}");
                    }
                }
            }
        }
    }
}

/// Bytes, then a read error.
struct FailingAfter<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl std::io::Read for FailingAfter<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at >= self.bytes.len() {
            return Err(std::io::Error::other("disk gone"));
        }
        let n = out.len().min(self.bytes.len() - self.at).min(4096);
        out[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A read error part-way: the events before it and the problem at its line are the same with
/// blocks read ahead on other threads as line by line — also when a block is put back (a record
/// that spans lines) with the error already met behind it.
#[test]
fn a_read_error_part_way_is_met_where_line_by_line_meets_it() {
    let log = mixed_log(600, 29);
    for cut in [log.len() / 3, log.len() / 2 + 17, log.len() - 5] {
        let bytes = &log.as_bytes()[..cut];
        let read = |p: Parallel| {
            let mut events = Vec::new();
            let mut sink = |e: AuditEvent| events.push(e);
            let mut ctx = formats::Ctx::new(&mut sink);
            ctx.parallel = p;
            formats::read_text(
                &mut ctx,
                "in.log",
                &mut FailingAfter { bytes, at: 0 },
                false,
            );
            let stats = std::mem::take(&mut ctx.stats);
            drop(ctx);
            (events, stats)
        };
        let (want_events, want) = read(Parallel {
            workers: 1,
            ..Parallel::default()
        });
        assert!(
            want.problems.iter().any(|p| p.cause.contains("disk gone")),
            "{:?}",
            want.problems
        );
        for block in [64, 700, 4096] {
            let p = Parallel {
                workers: 2,
                after: 5,
                block,
            };
            let (events, got) = read(p);
            assert_eq!(events, want_events, "{p:?} cut at {cut}");
            assert_eq!(got.problems, want.problems, "{p:?} cut at {cut}");
        }
    }
}

/// Found by `an_edited_log_never_panics`: a line break put into a `kind: EventList` makes
/// the record before it end early, so the array's next element starts with a `}`, which
/// scanned as an empty value: the reader looped on it forever. It is broken JSON, read on
/// line by line like any other.
#[test]
fn a_brace_where_an_array_element_starts_is_broken_not_endless() {
    let mut bytes = to_event_list(&log()).into_bytes();
    let at = 1541 % bytes.len();
    bytes[at] = b'\n';
    let (events, stats) = read_any(&bytes);
    assert!(events.len() <= 4);
    assert!(!stats.problems.is_empty(), "the edit is reported");
    // An extra `}` after an element: reported, and the read ends.
    let text = to_event_list(&log());
    let cut = text.find("},{").expect("two elements") + 1;
    let broken = format!("{}}}{}", &text[..cut], &text[cut..]);
    let (_, stats) = read_any(broken.as_bytes());
    assert!(!stats.problems.is_empty(), "the extra brace is reported");
}

mod reading;
