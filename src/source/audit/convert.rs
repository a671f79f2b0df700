//! Test support: JSON-lines audit events converted into the other shapes the reader accepts
//! (EKS CloudWatch, GKE Cloud Logging, AKS diagnostic logs, a webhook `EventList`, gzip), so
//! one real-shaped event can be checked in every format (unit tests here, live tests under
//! `tests/live`). Only in test builds (`testkit`).
//!
//! Each converter takes JSON-lines text; lines that are not JSON objects are passed through
//! unchanged (to test broken input inside a converted file).

use serde_json::{Map, Value, json};
use std::io::Write;

/// The JSON objects of a JSON-lines text, or the line itself when it is not one.
fn lines(jsonl: &str) -> impl Iterator<Item = Result<Map<String, Value>, &str>> {
    jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match serde_json::from_str::<Value>(l) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(l),
        })
}

fn str_at<'a>(v: &'a Map<String, Value>, path: &[&str]) -> &'a str {
    let mut cur = v.get(path[0]);
    for p in &path[1..] {
        cur = cur.and_then(|c| c.get(p));
    }
    cur.and_then(Value::as_str).unwrap_or("")
}

fn convert(jsonl: &str, f: impl Fn(&Map<String, Value>, &str) -> Value) -> String {
    let mut out = String::new();
    for (m, line) in lines(jsonl).zip(jsonl.lines().filter(|l| !l.trim().is_empty())) {
        match m {
            Ok(m) => out.push_str(&f(&m, line.trim()).to_string()),
            Err(l) => out.push_str(l),
        }
        out.push('\n');
    }
    out
}

/// EKS: CloudWatch Logs Insights records, one per line: `@timestamp` (CloudWatch's
/// `2026-11-26 01:49:45.123`), `@message` (the event as a JSON string), `@logStream`.
pub fn to_eks(jsonl: &str) -> String {
    convert(jsonl, |m, line| {
        let ts = str_at(m, &["stageTimestamp"]);
        let cw = if ts.len() >= 23 {
            format!("{} {}", &ts[..10], &ts[11..23])
        } else {
            ts.to_owned()
        };
        json!({
            "@timestamp": cw,
            "@message": line,
            "@logStream": "kube-apiserver-audit-71976ca11bea5d3083393f7d32dab75b",
            "@log": "123456789012:/aws/eks/demo/cluster",
        })
    })
}

/// EKS: the output of `aws logs filter-log-events` (`{"events":[{"timestamp": ms, "message":
/// "<event>", …}]}`), pretty-printed as the AWS CLI prints it.
pub fn to_eks_filter_log_events(jsonl: &str) -> String {
    let events: Vec<Value> = lines(jsonl)
        .zip(jsonl.lines().filter(|l| !l.trim().is_empty()))
        .enumerate()
        .map(|(i, (m, line))| {
            let ms = m
                .ok()
                .and_then(|m| crate::snapshot::parse_rfc3339(str_at(&m, &["stageTimestamp"])))
                .unwrap_or(0)
                * 1000;
            json!({
                "logStreamName": "kube-apiserver-audit-71976ca11bea5d3083393f7d32dab75b",
                "timestamp": ms,
                "message": line.trim(),
                "ingestionTime": ms + 900,
                "eventId": format!("{:056}", i),
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({ "events": events, "searchedLogStreams": [] }))
        .expect("JSON")
}

/// The `io.k8s.…` group part of a GKE methodName.
fn method_group(group: &str) -> String {
    if group.is_empty() {
        "io.k8s.core".into()
    } else if let Some(g) = group.strip_suffix(".k8s.io") {
        let mut s: Vec<&str> = g.split('.').collect();
        s.reverse();
        format!("io.k8s.{}", s.join("."))
    } else if !group.contains('.') {
        format!("io.k8s.{group}")
    } else {
        let mut s: Vec<&str> = group.split('.').collect();
        s.reverse();
        s.join(".")
    }
}

/// HTTP status → gRPC code, as GKE records it.
fn grpc(code: u64) -> u64 {
    match code {
        200..=299 => 0,
        400 | 422 => 3,
        401 => 16,
        403 => 7,
        404 => 5,
        409 => 10,
        503 => 14,
        504 => 4,
        _ => 13,
    }
}

/// GKE: Cloud Logging `LogEntry`s with a `protoPayload` (`google.cloud.audit.AuditLog`), one
/// per line. GKE keeps one entry per request (events of other stages are left out) and drops
/// `level`, `requestURI`, `impersonatedUser`, `objectRef.uid` and `responseStatus` (but its
/// gRPC code); the time has nanoseconds.
pub fn to_gke(jsonl: &str) -> String {
    convert(&complete_stages(jsonl), |m, _| {
        let o = m.get("objectRef").cloned().unwrap_or(Value::Null);
        let s = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let r = GkeRef {
            group: s("apiGroup"),
            version: s("apiVersion"),
            resource: s("resource"),
            sub: s("subresource"),
            ns: s("namespace"),
            name: s("name"),
        };
        let ts = str_at(m, &["stageTimestamp"]);
        let nanos = ts
            .strip_suffix('Z')
            .map_or_else(|| ts.to_owned(), |t| format!("{t}000Z"));
        let id = str_at(m, &["auditID"]);
        json!({
            "insertId": format!("{}-ins", &id[..id.len().min(8)]),
            "logName": "projects/demo-project/logs/cloudaudit.googleapis.com%2Factivity",
            "operation": { "first": true, "id": id, "last": true, "producer": "k8s.io" },
            "protoPayload": gke_proto(m, &r),
            "receiveTimestamp": nanos,
            "resource": {
                "labels": { "cluster_name": "demo", "location": "europe-west1", "project_id": "demo-project" },
                "type": "k8s_cluster",
            },
            "severity": "NOTICE",
            "timestamp": nanos,
        })
    })
}

/// The lines GKE keeps: one per request, so events of a stage other than the last are dropped
/// (a line that does not parse is kept: `convert` passes it on as it is).
fn complete_stages(jsonl: &str) -> String {
    let complete: Vec<&str> = jsonl
        .lines()
        .filter(|l| {
            !matches!(
                serde_json::from_str::<Value>(l).ok().as_ref().and_then(|v| v.get("stage")).and_then(Value::as_str),
                Some(s) if s != "ResponseComplete" && s != "Panic"
            )
        })
        .collect();
    complete.join("\n")
}

/// An event's `objectRef`, each field `""` when absent.
struct GkeRef {
    group: String,
    version: String,
    resource: String,
    sub: String,
    ns: String,
    name: String,
}

impl GkeRef {
    /// The group as GKE names it in a resource name: the core group is `core`.
    fn group_name(&self) -> String {
        if self.group.is_empty() {
            "core".to_owned()
        } else {
            self.group.clone()
        }
    }

    /// `io.k8s.<group>.<version>.<resource>[.<sub>].<verb>`.
    fn method(&self, verb: &str) -> String {
        let mut method = format!(
            "{}.{}.{}",
            method_group(&self.group),
            self.version,
            self.resource
        );
        if !self.sub.is_empty() {
            method.push('.');
            method.push_str(&self.sub);
        }
        method.push('.');
        method.push_str(verb);
        method
    }

    /// `<group>/<version>[/namespaces/<ns>]/<resource>[/<name>][/<sub>]`.
    fn resource_name(&self) -> String {
        let mut rn = format!("{}/{}", self.group_name(), self.version);
        if !self.ns.is_empty() {
            rn.push_str(&format!("/namespaces/{}", self.ns));
        }
        rn.push_str(&format!("/{}", self.resource));
        if !self.name.is_empty() {
            rn.push_str(&format!("/{}", self.name));
        }
        if !self.sub.is_empty() {
            rn.push_str(&format!("/{}", self.sub));
        }
        rn
    }
}

/// The `protoPayload` (`google.cloud.audit.AuditLog`) of one event.
fn gke_proto(m: &Map<String, Value>, r: &GkeRef) -> Value {
    let method = r.method(str_at(m, &["verb"]));
    let rn = r.resource_name();
    let code = m
        .get("responseStatus")
        .and_then(|r| r.get("code"))
        .and_then(Value::as_u64)
        .unwrap_or(200);
    let status = match grpc(code) {
        0 => json!({}),
        c => json!({ "code": c }),
    };
    let mut proto = json!({
        "@type": "type.googleapis.com/google.cloud.audit.AuditLog",
        "authenticationInfo": { "principalEmail": str_at(m, &["user", "username"]) },
        "authorizationInfo": [{ "granted": true, "permission": method, "resource": rn }],
        "methodName": method,
        "requestMetadata": {
            "callerIp": m.get("sourceIPs").and_then(|s| s.get(0)).cloned().unwrap_or(Value::Null),
            "callerSuppliedUserAgent": str_at(m, &["userAgent"]),
        },
        "resourceName": rn,
        "serviceName": "k8s.io",
        "status": status,
    });
    let g = r.group_name();
    for (from, to) in [("requestObject", "request"), ("responseObject", "response")] {
        if let Some(mut body) = m.get(from).cloned() {
            if let Value::Object(b) = &mut body {
                let kind = b
                    .get("kind")
                    .and_then(Value::as_str)
                    .unwrap_or("Object")
                    .to_owned();
                b.insert(
                    "@type".into(),
                    json!(format!("{g}.k8s.io/{}.{kind}", r.version)),
                );
            }
            proto[to] = body;
        }
    }
    proto
}

/// AKS: diagnostic-log records (`category: kube-audit`, the event as a string in
/// `properties.log`), one per line, as a storage account holds them.
pub fn to_aks(jsonl: &str) -> String {
    convert(jsonl, |m, line| {
        json!({
            "category": "kube-audit",
            "operationName": "Microsoft.ContainerService/managedClusters/diagnosticLogs/Read",
            "properties": {
                "log": line,
                "pod": "kube-apiserver-6d8f9b7c4-x2x7k",
                "stream": "stdout",
            },
            "resourceId": "/SUBSCRIPTIONS/00000000-0000-0000-0000-000000000000/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.CONTAINERSERVICE/MANAGEDCLUSTERS/DEMO",
            "time": str_at(m, &["stageTimestamp"]),
        })
    })
}

/// AKS: the records of [`to_aks`] in one `{"records":[…]}` object (Event Hubs).
pub fn to_aks_records(jsonl: &str) -> String {
    let records: Vec<Value> = to_aks(jsonl)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| Value::String(l.to_owned())))
        .collect();
    json!({ "records": records }).to_string()
}

/// A webhook batch: one `EventList` holding every event, on one line.
pub fn to_event_list(jsonl: &str) -> String {
    let items: Vec<Value> = lines(jsonl)
        .filter_map(Result::ok)
        .map(Value::Object)
        .collect();
    let mut s = json!({
        "kind": "EventList",
        "apiVersion": "audit.k8s.io/v1",
        "metadata": {},
        "items": items,
    })
    .to_string();
    s.push('\n');
    s
}

/// The records of a one-per-line text as one pretty-printed JSON array (`gcloud logging read
/// --format=json`, a CloudWatch export saved as JSON).
pub fn to_json_array(lines_text: &str) -> String {
    let items: Vec<Value> = lines(lines_text)
        .filter_map(Result::ok)
        .map(Value::Object)
        .collect();
    serde_json::to_string_pretty(&items).expect("JSON")
}

/// Gzip, as logrotate and kube-apiserver's rotation write it.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).expect("gzip");
    e.finish().expect("gzip")
}
