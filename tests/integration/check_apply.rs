//! `kubectl gc check apply`: manifests, an export and a Velero backup tarball created in a new
//! cluster (`--target empty`) and in a target snapshot, with kubectl's and Velero's rules.

use crate::support::run::kubectl_gc;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};

fn meta(ns: &str, name: &str, uid: &str, owners: Value) -> Value {
    json!({"namespace": ns, "name": name, "uid": uid, "ownerReferences": owners})
}

/// An export of a source cluster: a Deployment and its ReplicaSet (controller reference), a
/// ConfigMap owned by a ConfigMap that is not exported, a Secret in another namespace owned
/// by the Deployment, and a plain ConfigMap.
pub(crate) fn export() -> Vec<Value> {
    let dep = "11111111-0000-4000-8000-000000000001";
    vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta("shop", "web", dep, json!([]))}),
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta("shop", "web-5d4f", "11111111-0000-4000-8000-000000000002",
            json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": dep, "controller": true, "blockOwnerDeletion": true}]))}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("shop", "settings", "11111111-0000-4000-8000-000000000003",
            json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "parent", "uid": "11111111-0000-4000-8000-000000000009"}]))}),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": meta("billing", "other-ns", "11111111-0000-4000-8000-000000000004",
            json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": dep}]))}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("shop", "plain", "11111111-0000-4000-8000-000000000005", json!([]))}),
    ]
}

fn findings(out: &str) -> Vec<(String, String)> {
    let doc: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
    crate::support::schema::assert_valid("audit-report.schema.json", &doc, "check apply");
    let mut v: Vec<(String, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["object"]["name"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    v.sort();
    v
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = v
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    v.sort();
    v
}

#[test]
fn an_export_applied_to_a_new_cluster_is_deleted_where_its_references_are_stale() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("export.json");
    std::fs::write(
        &file,
        json!({"apiVersion": "v1", "kind": "List", "items": export()}).to_string(),
    )
    .unwrap();
    let file = file.to_string_lossy().into_owned();
    let (code, out, err) = kubectl_gc(&[
        "check", "apply", "-f", &file, "--target", "empty", "-o", "json",
    ]);
    assert_eq!(code, 5, "{err}");
    assert_eq!(
        findings(&out),
        pairs(&[
            // The ReplicaSet's owner is re-created with a new UID: the reference is stale.
            ("GC002", "web-5d4f"),
            // The ConfigMap's owner is not in the input: it will not exist.
            ("GC001", "settings"),
            // The Secret's owner is in another namespace, where the GC never looks: its UID is
            // an input object's of another namespace, so the reference crosses namespaces
            // whatever UID the owner gets (NC10).
            ("GC004", "other-ns"),
            ("GC024", "web-5d4f"),
            ("GC024", "settings"),
            ("GC024", "other-ns"),
            // The ReplicaSet's blockOwnerDeletion points at a UID that will not exist.
            ("GC025", "web-5d4f"),
        ])
    );
}

#[test]
fn an_update_keeps_the_targets_uid_so_a_matching_reference_stays_solid() {
    let dir = tempfile::tempdir().unwrap();
    // The target already has the Deployment, with the UID the ReplicaSet names.
    let target = dir.path().join("target.yaml");
    std::fs::write(
        &target,
        json!({"apiVersion": "v1", "kind": "List", "items": [export()[0].clone()]}).to_string(),
    )
    .unwrap();
    let snap = dir
        .path()
        .join("target.ndjson")
        .to_string_lossy()
        .into_owned();
    let (code, _, err) = kubectl_gc(&[
        "snapshot",
        "-f",
        &target.to_string_lossy(),
        "--assume-complete",
        "-o",
        &snap,
    ]);
    assert_eq!(code, 0, "{err}");
    let input = dir.path().join("rs.json");
    std::fs::write(&input, export()[1].to_string()).unwrap();
    let (code, out, err) = kubectl_gc(&[
        "check",
        "apply",
        "-f",
        &input.to_string_lossy(),
        "--target",
        &snap,
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        findings(&out),
        pairs(&[("GC024", "web-5d4f")]),
        "solid: only the manifest warning"
    );
}

/// A Velero backup tarball, laid out as Velero writes it: `metadata/version`,
/// `resources/<resource>[.<group>]/namespaces/<ns>/<name>.json`, and the same object again under
/// `<version>-preferredversion/`.
fn velero_backup(dir: &Path) -> String {
    let root = dir.join("backup");
    let put = |rel: &str, v: &Value| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, v.to_string()).unwrap();
    };
    std::fs::create_dir_all(root.join("metadata")).unwrap();
    std::fs::write(root.join("metadata/version"), "1").unwrap();
    for o in export() {
        let kind = o["kind"].as_str().unwrap();
        let (res, group) = match kind {
            "Deployment" => ("deployments", ".apps"),
            "ReplicaSet" => ("replicasets", ".apps"),
            "ConfigMap" => ("configmaps", ""),
            _ => ("secrets", ""),
        };
        let ns = o["metadata"]["namespace"].as_str().unwrap();
        let name = o["metadata"]["name"].as_str().unwrap();
        put(
            &format!("resources/{res}{group}/namespaces/{ns}/{name}.json"),
            &o,
        );
        put(
            &format!("resources/{res}{group}/v1-preferredversion/namespaces/{ns}/{name}.json"),
            &o,
        );
    }
    let tarball = dir.join("backup.tar.gz");
    let status = Command::new("tar")
        .arg("-czf")
        .arg(&tarball)
        .arg("-C")
        .arg(&root)
        .arg(".")
        .status()
        .expect("tar");
    assert!(status.success());
    tarball.to_string_lossy().into_owned()
}

#[test]
fn a_velero_backup_is_read_directly_and_restored_the_way_velero_does() {
    let dir = tempfile::tempdir().unwrap();
    let backup = velero_backup(dir.path());
    // As kubectl apply of the backup's objects would: the stale references delete them.
    let (code, out, err) = kubectl_gc(&[
        "check", "apply", "-f", &backup, "--target", "empty", "-o", "json",
    ]);
    assert_eq!(code, 5, "{err}");
    let f = findings(&out);
    assert!(f.contains(&("GC002".into(), "web-5d4f".into())), "{f:?}");
    assert_eq!(
        f.iter().filter(|(c, _)| c == "GC024").count(),
        3,
        "each object once, not per copy: {f:?}"
    );
    // As Velero restores: references stripped, nothing deleted, the children orphaned.
    let (code, out, err) = kubectl_gc(&[
        "check",
        "apply",
        "-f",
        &backup,
        "--target",
        "empty",
        "--restorer",
        "velero",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let f = findings(&out);
    assert_eq!(
        f,
        pairs(&[
            ("GC024", "web-5d4f"),
            ("GC024", "settings"),
            ("GC024", "other-ns")
        ]),
        "only the orphaned notices"
    );
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert!(
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["severity"] == "info"),
        "{doc:#}"
    );
}

#[test]
fn usage_errors() {
    let (code, _, err) = kubectl_gc(&["check", "apply", "--target", "empty"]);
    assert_eq!(code, 2, "no -f: {err}");
    let (code, _, err) = kubectl_gc(&["check", "restart", "--target", "empty"]);
    assert_eq!(code, 2, "--target outside check apply: {err}");
}

/// The 1-based line of the first line of `text` containing `needle` at or after line `from`.
fn line_of(text: &str, needle: &str, from: usize) -> i64 {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| l.contains(needle))
        .map(|(i, _)| i as i64 + 1)
        .unwrap_or_else(|| panic!("{needle} not in the text"))
}

/// SARIF (and JUnit) point each finding at the manifest's file and the line of the
/// ownerReference involved — in a multi-document YAML file as Helm writes it, in a kubectl
/// `List` export as JSON, and in a list item of a YAML export.
#[test]
fn sarif_names_the_manifest_file_and_the_line_of_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    std::fs::create_dir_all(repo.join("manifests")).unwrap();
    let yaml = "\
# Source: shop/templates/base.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: base
  namespace: shop
---
# Source: shop/templates/child.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: child
  namespace: shop
  ownerReferences:
  - apiVersion: v1
    kind: ConfigMap
    name: base
    uid: 11111111-0000-4000-8000-00000000000a
  - apiVersion: v1
    kind: ConfigMap
    name: missing-owner
    uid: 11111111-0000-4000-8000-00000000000b
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: listed
    namespace: shop
    ownerReferences:
    - {apiVersion: v1, kind: ConfigMap, name: list-owner, uid: 11111111-0000-4000-8000-00000000000c}
";
    std::fs::write(repo.join("manifests/chart.yaml"), yaml).unwrap();
    let json_text =
        serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": "List", "items": [
            export()[4].clone(),
            export()[2].clone(),
        ]}))
        .unwrap();
    std::fs::write(repo.join("manifests/export.json"), &json_text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args([
            "check",
            "apply",
            "-f",
            "manifests",
            "--target",
            "empty",
            "-o",
            "sarif",
        ])
        .current_dir(repo)
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut got: Vec<(String, String, String, i64)> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let loc = &r["locations"][0]["physicalLocation"];
            assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%", "{r:#}");
            (
                r["ruleId"].as_str().unwrap().to_owned(),
                r["properties"]["object"]["name"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
                loc["artifactLocation"]["uri"].as_str().unwrap().to_owned(),
                loc["region"]["startLine"].as_i64().unwrap(),
            )
        })
        .collect();
    got.sort();
    let child_refs = line_of(yaml, "ownerReferences:", 1) + 1;
    // (The first item has an empty `ownerReferences`: the second's are after its name.)
    let json_ref = line_of(
        &json_text,
        "\"ownerReferences\"",
        line_of(&json_text, "\"settings\"", 1) as usize,
    ) + 1;
    let y = "manifests/chart.yaml".to_owned();
    let j = "manifests/export.json".to_owned();
    let mut want = vec![
        // Each reference at its own line: the solid-looking one (a new UID: GC002) and the
        // missing owner (GC001) of the second document.
        ("GC002".into(), "child".into(), y.clone(), child_refs),
        (
            "GC001".into(),
            "child".into(),
            y.clone(),
            line_of(yaml, "missing-owner", 1) - 2,
        ),
        ("GC024".into(), "child".into(), y.clone(), child_refs),
        // A list item of the third document: its reference, written in flow style.
        (
            "GC001".into(),
            "listed".into(),
            y.clone(),
            line_of(yaml, "list-owner", 1),
        ),
        (
            "GC024".into(),
            "listed".into(),
            y.clone(),
            line_of(yaml, "list-owner", 1),
        ),
        // The JSON export's second item.
        ("GC001".into(), "settings".into(), j.clone(), json_ref),
        ("GC024".into(), "settings".into(), j.clone(), json_ref),
    ];
    want.sort();
    assert_eq!(got, want);
    crate::support::schema::assert_valid_sarif(&sarif, "check apply -o sarif");
    // JUnit: the same file and line as attributes of each case.
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args([
            "check",
            "apply",
            "-f",
            "manifests",
            "--target",
            "empty",
            "-o",
            "junit",
        ])
        .current_dir(repo)
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let junit = String::from_utf8_lossy(&out.stdout);
    assert!(
        junit.contains(&format!(
            "name=\"ConfigMap/listed -n shop (owner ConfigMap/list-owner)\" file=\"manifests/chart.yaml\" line=\"{}\"",
            line_of(yaml, "list-owner", 1)
        )),
        "{junit}"
    );
}

/// Copies of one object that disagree are reported with both sources (GC026); copies that
/// agree — Velero's preferred-version copies, the same manifest twice — are one object.
#[test]
fn duplicates_that_disagree_are_reported_with_both_sources() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("backup");
    let put = |rel: &str, v: &Value| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, v.to_string()).unwrap();
    };
    std::fs::create_dir_all(root.join("metadata")).unwrap();
    std::fs::write(root.join("metadata/version"), "1").unwrap();
    let settings = export()[2].clone();
    put(
        "resources/configmaps/namespaces/shop/settings.json",
        &settings,
    );
    // The preferred-version copy names another owner: same UID, different references.
    let mut edited = settings.clone();
    edited["metadata"]["ownerReferences"][0]["name"] = json!("other-parent");
    put(
        "resources/configmaps/v1-preferredversion/namespaces/shop/settings.json",
        &edited,
    );
    // An identical copy of another object: silently one.
    let plain = export()[4].clone();
    put("resources/configmaps/namespaces/shop/plain.json", &plain);
    put(
        "resources/configmaps/v1-preferredversion/namespaces/shop/plain.json",
        &plain,
    );
    let tarball = dir.path().join("backup.tar");
    assert!(
        Command::new("tar")
            .arg("-cf")
            .arg(&tarball)
            .arg("-C")
            .arg(&root)
            .arg(".")
            .status()
            .unwrap()
            .success()
    );
    // And two manifests at the same coordinates, without UIDs, one with a label.
    let manifests = dir.path().join("m.yaml");
    std::fs::write(
        &manifests,
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: shop}\n---\n\
         apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: shop, labels: {a: b}}\n---\n\
         apiVersion: v1\nkind: Secret\nmetadata: {name: t, namespace: shop}\n---\n\
         apiVersion: v1\nkind: Secret\nmetadata: {name: t, namespace: shop}\n",
    )
    .unwrap();
    let (code, out, err) = kubectl_gc(&[
        "check",
        "apply",
        "-f",
        &tarball.to_string_lossy(),
        "-f",
        &manifests.to_string_lossy(),
        "--target",
        "empty",
        "-o",
        "json",
    ]);
    assert_eq!(code, 5, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let dups: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "GC026")
        .collect();
    assert_eq!(dups.len(), 2, "{doc:#}");
    let settings = dups
        .iter()
        .find(|f| f["object"]["name"] == "settings")
        .expect("the backup's copies");
    assert_eq!(settings["severity"], "error", "they disagree on references");
    let msg = settings["message"].as_str().unwrap();
    assert!(msg.contains("ownerReferences"), "{msg}");
    assert!(
        msg.contains("resources/configmaps/namespaces/shop/settings.json")
            && msg
                .contains("resources/configmaps/v1-preferredversion/namespaces/shop/settings.json"),
        "both sources: {msg}"
    );
    let secret = dups
        .iter()
        .find(|f| f["object"]["name"] == "s")
        .expect("the manifests' copies");
    assert_eq!(secret["severity"], "warning", "only labels differ");
    let msg = secret["message"].as_str().unwrap();
    let m = manifests.to_string_lossy();
    assert!(
        msg.contains(&format!("{m}:1")) && msg.contains(&format!("{m}:5")),
        "both lines: {msg}"
    );
}

fn tar_of(dir: &Path, root: &Path, name: &str) -> String {
    let tarball = dir.join(name);
    assert!(
        Command::new("tar")
            .arg("-czf")
            .arg(&tarball)
            .arg("-C")
            .arg(root)
            .arg(".")
            .status()
            .unwrap()
            .success()
    );
    tarball.to_string_lossy().into_owned()
}

/// A tarball holding no Kubernetes object (not a Velero backup, not a dump): one error line
/// that says so and a hint naming what check apply reads, exit 3.
#[test]
fn a_tarball_that_is_not_a_backup_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("t");
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/config.json"), r#"{"hello": "world"}"#).unwrap();
    std::fs::write(root.join("docs/notes.yaml"), "just: text\n").unwrap();
    std::fs::write(root.join("README.txt"), "not read").unwrap();
    let tarball = tar_of(dir.path(), &root, "photos.tar.gz");
    let (code, out, err) = kubectl_gc(&["check", "apply", "-f", &tarball, "--target", "empty"]);
    assert_eq!(code, 3, "{err}");
    assert!(out.is_empty(), "{out}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with("error: ") && lines[0].contains("no Kubernetes object in the input"),
        "{err}"
    );
    assert!(
        lines.len() == 2 && lines[1].starts_with("hint: ") && lines[1].contains("Velero backup"),
        "{err}"
    );
}

/// A backup that stores one HorizontalPodAutoscaler at two API versions (Velero writes the
/// preferred one under `<version>-preferredversion/`): one object, no conflict; the
/// dependents of both versions' owners are judged as usual.
#[test]
fn objects_stored_at_several_api_versions_are_one_object() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("backup");
    let put = |rel: &str, v: &Value| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, v.to_string()).unwrap();
    };
    std::fs::create_dir_all(root.join("metadata")).unwrap();
    std::fs::write(root.join("metadata/version"), "1").unwrap();
    let hpa = |api: &str| {
        json!({"apiVersion": api, "kind": "HorizontalPodAutoscaler",
            "metadata": meta("shop", "web", "22222222-0000-4000-8000-000000000001", json!([])),
            "spec": {"maxReplicas": 3}})
    };
    put(
        "resources/horizontalpodautoscalers.autoscaling/namespaces/shop/web.json",
        &hpa("autoscaling/v1"),
    );
    put(
        "resources/horizontalpodautoscalers.autoscaling/v2-preferredversion/namespaces/shop/web.json",
        &hpa("autoscaling/v2"),
    );
    // A ConfigMap owned by the HPA, restored with it.
    put(
        "resources/configmaps/namespaces/shop/hpa-child.json",
        &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta("shop", "hpa-child", "22222222-0000-4000-8000-000000000002",
            json!([{"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "name": "web", "uid": "22222222-0000-4000-8000-000000000001"}]))}),
    );
    let tarball = tar_of(dir.path(), &root, "backup.tar.gz");
    let (code, out, err) = kubectl_gc(&[
        "check", "apply", "-f", &tarball, "--target", "empty", "-o", "json",
    ]);
    assert_eq!(code, 5, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["summary"]["objects"], 2, "{doc:#}");
    // The HPA is re-created with a new UID: the child's reference is stale (GC002), through
    // either version of the kind.
    assert_eq!(
        findings(&out),
        pairs(&[("GC002", "hpa-child"), ("GC024", "hpa-child")]),
        "no GC026: the two copies agree"
    );
}

/// Objects without a name are refused by the API server: an error naming the document,
/// exit 3; with --skip-broken-input the rest is judged, and an object with `generateName`
/// is created under a name of its own.
#[test]
fn objects_without_names_are_errors_unless_generate_name_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: shop\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: job-\n  namespace: shop\n  \
         ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: p, uid: q}]\n",
    )
    .unwrap();
    let file = file.to_string_lossy().into_owned();
    let (code, _, err) = kubectl_gc(&["check", "apply", "-f", &file, "--target", "empty"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("(document 1): no metadata.name (nor generateName)"),
        "{err}"
    );
    assert!(!err.contains("document 2"), "generateName names it: {err}");
    let (code, out, err) = kubectl_gc(&[
        "check",
        "apply",
        "-f",
        &file,
        "--target",
        "empty",
        "--skip-broken-input",
        "-o",
        "json",
    ]);
    assert_eq!(code, 5, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["object"]["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.is_empty() && names.iter().all(|n| n.starts_with("job-kgc-generated-")),
        "{names:?}"
    );
}

/// Hostile names, namespaces, kinds, UIDs and file names (terminal escapes, shell
/// metacharacters): findings as usual, nothing run, no escape sequence reaches the terminal,
/// and the machine formats keep the text as it was.
#[test]
fn hostile_names_and_uids_are_judged_and_shown_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let esc = "\u{1b}[31mred\u{1b}]0;title\u{7}";
    let marker = dir.path().join("pwned");
    let m = marker.display();
    let docs = [
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": format!("a{esc}"), "namespace": format!("shop{esc}"),
            "uid": format!("$(touch {m}){esc}"),
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": format!("o;touch {m}{esc}"),
                "uid": format!("`touch {m}`{esc}"), "blockOwnerDeletion": true}]}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": format!("a{esc}"), "namespace": format!("shop{esc}"), "uid": format!("other{esc}"),
            "labels": {"k": "v"}}}),
    ];
    let sub = dir.path().join("in");
    std::fs::create_dir_all(&sub).unwrap();
    let file = sub.join(format!("evil{esc}.json"));
    std::fs::write(
        &file,
        docs.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let input = sub.to_string_lossy().into_owned();
    for format in ["table", "wide", "markdown", "junit", "sarif", "json"] {
        let (code, out, err) = kubectl_gc(&[
            "check", "apply", "-f", &input, "--target", "empty", "-o", format,
        ]);
        assert_eq!(code, 5, "{format}: {err}");
        assert!(
            !out.contains('\u{1b}') && !err.contains('\u{1b}'),
            "{format}: an escape sequence got through: {out:?} {err:?}"
        );
        assert!(!out.contains('\u{7}'), "{format}: BEL: {out:?}");
        if format == "json" {
            let doc: Value = serde_json::from_str(&out).unwrap();
            let codes: Vec<&str> = doc["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["code"].as_str().unwrap())
                .collect();
            // The two copies disagree (UIDs, labels, references), and the rest is judged.
            assert!(
                codes.contains(&"GC026") && codes.contains(&"GC024"),
                "{codes:?}"
            );
            let f = &doc["findings"][0];
            assert_eq!(
                f["object"]["name"],
                format!("a{esc}"),
                "JSON keeps the text"
            );
        }
    }
    assert!(!marker.exists(), "a name was run as a command");
}

/// A finding's SARIF fingerprint does not change when other manifests are added: code
/// scanning keeps tracking the same alert.
#[test]
fn fingerprints_stay_when_other_manifests_are_added() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::write(m.join("settings.json"), export()[2].to_string()).unwrap();
    let prints = || {
        let (code, out, err) = kubectl_gc(&[
            "check",
            "apply",
            "-f",
            &m.to_string_lossy(),
            "--target",
            "empty",
            "-o",
            "sarif",
        ]);
        assert_eq!(code, 5, "{err}");
        let sarif: Value = serde_json::from_str(&out).unwrap();
        let mut v: Vec<String> = sarif["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["properties"]["object"]["name"] == "settings")
            .map(|r| {
                r["partialFingerprints"]["kubectlGc/v1"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        v.sort();
        v
    };
    let before = prints();
    assert_eq!(before.len(), 2, "GC001 and GC024");
    // Read before it: created first.
    let other = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "aaa", "namespace": "shop"}});
    std::fs::write(m.join("aaa.json"), other.to_string()).unwrap();
    assert_eq!(prints(), before);
}

#[test]
fn a_new_cluster_holds_no_owner_outside_the_input_and_serves_only_its_release_and_the_inputs_crds()
{
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.yaml");
    let owned = |name: &str, api_version: &str, kind: &str, owner: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: shop\n  name: {name}\n  \
             ownerReferences: [{{apiVersion: {api_version}, kind: {kind}, name: {owner}, uid: u-{owner}}}]\n---\n"
        )
    };
    let yaml = [
        owned("a", "apps/v1", "Deployment", "web"),
        owned("b", "example.com/v1", "Widget", "w"),
        owned("c", "stable.example.com/v1", "CronTab", "ct"),
        owned("d", "extensions/v1beta1", "Deployment", "old"),
        owned("e", "example.com/v1", "Gadget", "g"),
        "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {namespace: shop, name: other}\n---\n"
            .into(),
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
         metadata: {name: crontabs.stable.example.com}\nspec:\n  group: stable.example.com\n  \
         scope: Namespaced\n  names: {kind: CronTab, plural: crontabs}\n  \
         versions: [{name: v1, served: true, storage: true}]\n"
            .into(),
    ]
    .concat();
    std::fs::write(&file, yaml).unwrap();
    let file = file.to_string_lossy().into_owned();
    let args = [
        "check",
        "apply",
        "-f",
        &file,
        "--target",
        "empty",
        "--gc-version",
        "1.20",
    ];
    let (code, out, err) = kubectl_gc(&[&args[..], &["-o", "json"]].concat());
    assert_eq!(code, 5, "{err}");
    let mut want = vec![
        // Not in the input: a new cluster has no Deployment web.
        ("GC001", "a"),
        // No CRD serves example.com Widget (nor Gadget, whose objects alone do not serve it).
        ("GC006", "b"),
        // The input's CRD serves CronTab, and ct is not in the input.
        ("GC001", "c"),
        // 1.20 no longer serves extensions/v1beta1 Deployment.
        ("GC006", "d"),
        ("GC006", "e"),
    ];
    for n in ["a", "b", "c", "d", "e"] {
        want.push(("GC024", n));
    }
    assert_eq!(
        findings(&out),
        pairs(&want),
        "nothing unknown in a new cluster"
    );
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["summary"]["coverage"]["complete"], true);
    let a = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "GC001" && f["object"]["name"] == "a")
        .unwrap();
    assert!(
        a["message"].as_str().unwrap().contains(
            "Deployment/web (uid u-web) does not exist in namespace \"shop\"; it is not in the \
             input, and a new cluster holds nothing else"
        ),
        "{a}"
    );
    let (_, table, _) = kubectl_gc(&args);
    assert!(
        table.contains("a new cluster: the release's built-in kinds and the input's CRDs"),
        "{table}"
    );
}

#[test]
fn fixes_for_objects_not_created_yet_are_manifest_edits_at_their_line_with_no_placeholder() {
    // W12: an object that does not exist yet cannot be patched; W13: the UID the model gives it
    // and an age are not facts about it. Every format of the bundled export says so.
    let input = "examples/shop-kubectl-get.yaml";
    let text = std::fs::read_to_string(input).unwrap();
    for format in [
        "json", "wide", "table", "yaml", "sarif", "junit", "markdown",
    ] {
        let (code, out, err) = kubectl_gc(&[
            "check", "apply", "-f", input, "--target", "empty", "-o", format,
        ]);
        assert_eq!(code, 5, "{format}: {err}");
        assert!(!out.contains("kgc-created"), "{format}: {out}");
        assert!(!out.contains("kubectl patch"), "{format}: {out}");
    }
    let (_, out, _) = kubectl_gc(&[
        "check", "apply", "-f", input, "--target", "empty", "-o", "json",
    ]);
    let doc: Value = serde_json::from_str(&out).unwrap();
    crate::support::schema::assert_valid("audit-report.schema.json", &doc, "check apply");
    let f = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "GC001" && f["object"]["name"] == "web-settings")
        .expect("GC001 on web-settings");
    let line = f["source"]["line"].as_u64().unwrap() as usize;
    // The line named is where the ownerReferences entry naming the missing owner starts.
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[line - 1].contains("- apiVersion: apps/v1"),
        "{}",
        lines[line - 1]
    );
    assert!(
        lines[line..line + 4]
            .iter()
            .any(|l| l.contains("name: web-58b6c4f9d7"))
    );
    let note = f["fixes"][0]["note"].as_str().unwrap();
    assert_eq!(
        note,
        format!(
            "in {input}:{line}: delete the ownerReferences entry that names ReplicaSet/web-58b6c4f9d7"
        )
    );
    assert!(f["fixes"][0].get("command").is_none());
    assert_eq!(f["object"]["uid"], "");
    // The human report prints the fix under the table.
    let (_, out, _) = kubectl_gc(&["check", "apply", "-f", input, "--target", "empty"]);
    assert!(out.contains(&format!("    1. {note}")), "{out}");
}
