//! GC fidelity, issue 25: what a file input's served API versions are when it does not record
//! its server's version — those of the release the GC emulates (`--gc-version`, else the
//! default): the GC works within a skew of its API server.

use serde_json::Value;
use std::process::{Command, Stdio};

fn audit(file: &str, extra: &[&str]) -> Vec<(String, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(["audit", "-f", file, "--assume-complete", "-A", "-o", "json"])
        .args(extra)
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["object"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// A Role (read as rbac v1) and two ConfigMaps whose references name it, and a missing Role,
/// in `rbac.authorization.k8s.io/v1beta1` — served up to 1.21, removed in 1.22.
const INPUT: &str = r#"apiVersion: v1
kind: List
items:
- apiVersion: rbac.authorization.k8s.io/v1
  kind: Role
  metadata: {name: r, namespace: a, uid: 22222222-0000-4000-8000-000000000001}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: c
    namespace: a
    uid: 22222222-0000-4000-8000-000000000002
    ownerReferences: [{apiVersion: rbac.authorization.k8s.io/v1beta1, kind: Role, name: r, uid: 22222222-0000-4000-8000-000000000001}]
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: d
    namespace: a
    uid: 22222222-0000-4000-8000-000000000003
    ownerReferences: [{apiVersion: rbac.authorization.k8s.io/v1beta1, kind: Role, name: gone, uid: 22222222-0000-4000-8000-000000000009}]
"#;

#[test]
fn served_versions_follow_the_emulated_release_for_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.yaml");
    std::fs::write(&file, INPUT).unwrap();
    let file = file.to_string_lossy().into_owned();
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    // 1.20 serves v1beta1: the first reference is solid, the second dangling (deleted).
    assert_eq!(
        audit(&file, &["--gc-version", "1.20.2"]),
        pairs(&[("GC001", "d")])
    );
    // 1.22 no longer does: the GC never resolves either (retried forever).
    assert_eq!(
        audit(&file, &["--gc-version", "1.22"]),
        pairs(&[("GC006", "c"), ("GC006", "d")])
    );
    // Nothing names the release: the GC emulated is the default (the newest), and its tables
    // decide (issue 25 defect 3): it no longer serves v1beta1, so both are retried forever.
    assert_eq!(audit(&file, &[]), pairs(&[("GC006", "c"), ("GC006", "d")]));
}
