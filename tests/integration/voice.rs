//! One voice across commands (issue 56 item 7): one spelling of an object in human output,
//! tables without a leading space, the `--assume-complete` hint in every human format, and
//! file coverage said as "not proven complete" where the files hold objects of that kind.

use crate::support::run::kubectl_gc;

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn history_and_relink_spell_objects_as_audit_does_without_a_leading_space() {
    let (code, out, err) = kubectl_gc(&[
        "history",
        "--audit-log",
        &example("audit-shop.log"),
        "--snapshot",
        &example("audit-shop-before.ndjson"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("TIME "), "{out}");
    assert!(
        out.contains("delete   ConfigMap/web-config -n shop ")
            && out.contains("owner-deleted ConfigMap/owner -n shop (Background, inferred)"),
        "{out}"
    );
    assert!(!out.contains("configmaps/"), "{out}");
    let (code, out, err) = kubectl_gc(&[
        "relink",
        "-f",
        &example("relink-backup.yaml"),
        "--target",
        &example("relink-restored.ndjson"),
    ]);
    assert_eq!(code, 0, "{err}");
    for line in out.lines() {
        assert!(!line.starts_with(' '), "{line:?} in:\n{out}");
    }
    assert!(out.contains("ReplicaSet/web-7d9f8c6b5 -n shop"), "{out}");
}

#[test]
fn why_of_a_gone_object_spells_it_as_every_command_does_not_as_typed() {
    let (code, out, err) = kubectl_gc(&[
        "why",
        "cm/web-config",
        "-n",
        "shop",
        "--audit-log",
        &example("audit-shop.log"),
        "-f",
        &example("shop-kubectl-get.yaml"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("ConfigMap/web-config -n shop is gone: deleted at "),
        "{out}"
    );
}

#[test]
fn file_coverage_says_not_proven_complete_where_the_files_hold_the_kind() {
    // The files hold ReplicaSets in shop, but not the one web-settings names (W16).
    let shop = example("shop-kubectl-get.yaml");
    let (code, out, err) = kubectl_gc(&["why", "-f", &shop, "cm/web-settings", "-n", "shop"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("replicasets.apps in namespace shop is not proven complete"),
        "{out}"
    );
    assert!(!out.contains("was not collected"), "{out}");
    let (_, out, _) = kubectl_gc(&["audit", "-f", &shop, "-o", "wide"]);
    assert!(
        out.contains("replicasets.apps in namespace shop is not proven complete"),
        "{out}"
    );
    // Where the files hold none of the kind in that namespace, it was not collected.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("two.yaml");
    std::fs::write(
        &file,
        r#"apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: rs, namespace: a, uid: 11111111-0000-4000-8000-000000000001}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm
    namespace: b
    uid: 11111111-0000-4000-8000-000000000002
    ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: gone, uid: 11111111-0000-4000-8000-000000000003}
"#,
    )
    .unwrap();
    let (code, out, err) = kubectl_gc(&["why", "-f", file.to_str().unwrap(), "cm/cm", "-n", "b"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("replicasets.apps in namespace b was not collected"),
        "{out}"
    );
    assert!(!out.contains("not proven complete"), "{out}");
}

#[test]
fn the_assume_complete_hint_reaches_every_human_format() {
    let shop = example("shop-kubectl-get.yaml");
    let hint = "--assume-complete if the input holds every object of those kinds";
    for args in [
        &["audit"][..],
        &["check"],
        &["check", "restart"],
        &["audit", "-o", "html"],
    ] {
        let mut a = args.to_vec();
        a.extend(["-f", &shop]);
        let (_, out, err) = kubectl_gc(&a);
        assert!(out.contains(hint), "{args:?}: {out}{err}");
        // Assumed complete: nothing left to hint at.
        a.push("--assume-complete");
        let (_, out, err) = kubectl_gc(&a);
        assert!(!out.contains("--assume-complete"), "{args:?}: {out}{err}");
    }
    for args in [&["audit"][..], &["check", "restart"]] {
        let mut a = args.to_vec();
        a.extend(["-f", &shop, "-o", "markdown"]);
        let (_, out, err) = kubectl_gc(&a);
        assert!(
            out.contains(
                "Owners of kinds the input does not hold completely are unknown: \
                 `--assume-complete` if the input holds every object of those kinds."
            ),
            "{args:?}: {out}{err}"
        );
    }
    // A complete input (a snapshot) never gets it.
    let (_, out, _) = kubectl_gc(&[
        "check",
        "restart",
        "--snapshot",
        &example("redis-operator-incident.json"),
    ]);
    assert!(!out.contains("--assume-complete"), "{out}");
}

/// The findings of `check apply -o json`, as (code, object name, consequence).
fn check_apply_rows(args: &[&str]) -> Vec<(String, String, String)> {
    let mut all = vec!["check", "apply", "-o", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = kubectl_gc(&all);
    assert!(code == 0 || code == 5, "rc {code}: {err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let s = |v: &serde_json::Value| v.as_str().unwrap_or("").to_owned();
            (s(&f["code"]), s(&f["object"]["name"]), s(&f["consequence"]))
        })
        .collect()
}

#[test]
fn block_owner_deletion_to_nothing_says_what_it_means_not_the_dangling_rows_consequence() {
    let rows = check_apply_rows(&["-f", &example("relink-backup.yaml"), "--target", "empty"]);
    let of = |code: &str| {
        rows.iter()
            .find(|(c, n, _)| c == code && n == "web-7d9f8c6b5")
            .unwrap_or_else(|| panic!("no {code} for the ReplicaSet: {rows:?}"))
            .2
            .clone()
    };
    let (gc002, gc025) = (of("GC002"), of("GC025"));
    assert_ne!(gc025, gc002, "GC025 copies GC002's consequence");
    assert!(
        gc025.contains("blockOwnerDeletion") && gc025.contains("foreground deletion"),
        "{gc025}"
    );
}

#[test]
fn a_reference_in_a_manifest_does_not_promise_a_deletion_the_gc_never_does() {
    // An owner of a kind no cluster serves: the GC cannot resolve it and never collects the
    // ConfigMap (GC006). GC024, beside it, must not say the GC deletes it.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("app.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: api-config\n  namespace: payments\n  \
         uid: 22222222-0000-4000-8000-000000000001\n  ownerReferences:\n  - apiVersion: example.com/v1\n    \
         kind: PaymentGateway\n    name: gw\n    uid: 22222222-0000-4000-8000-000000000009\n",
    )
    .unwrap();
    let rows = check_apply_rows(&["-f", file.to_str().unwrap(), "--target", "empty"]);
    let codes: Vec<&str> = rows.iter().map(|(c, _, _)| c.as_str()).collect();
    assert!(
        codes.contains(&"GC006") && codes.contains(&"GC024"),
        "{rows:?}"
    );
    let gc024 = &rows.iter().find(|(c, _, _)| c == "GC024").unwrap().2;
    assert!(!gc024.contains("delete"), "{gc024}");
}

#[test]
fn an_order_dependent_end_state_names_the_owners_it_keeps_not_their_uids() {
    let (code, out, err) = kubectl_gc(&[
        "audit",
        "--snapshot",
        &example("redis-operator-incident.json"),
        "--gc-version",
        "1.13",
    ]);
    assert_eq!(code, 5, "{err}");
    let row = out
        .lines()
        .find(|l| l.contains("GC021"))
        .unwrap_or_else(|| panic!("no GC021: {out}"));
    assert!(
        row.contains("kept with its ownerReference to StatefulSet/rfr-redis-cache, or deleted"),
        "{row}"
    );
    // The StatefulSet's UID, as the Pod's reference holds it.
    assert!(!row.contains("7c1f0e2a-"), "{row}");
}

#[test]
fn yaml_given_as_a_snapshot_is_named_as_such_without_parser_positions() {
    for args in [
        &[
            "relink",
            "-f",
            &example("relink-backup.yaml"),
            "--target",
            &example("shop-kubectl-get.yaml"),
        ][..],
        &["audit", "--snapshot", &example("shop-kubectl-get.yaml")],
    ] {
        let (code, _, err) = kubectl_gc(args);
        assert_eq!(code, 3, "{args:?}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 2, "{err}");
        assert!(
            lines[0].contains("not a snapshot") && lines[0].contains("YAML"),
            "{err}"
        );
        assert!(!err.contains("column"), "{err}");
        assert!(
            lines[1].starts_with("hint: ") && lines[1].contains("-f FILE"),
            "{err}"
        );
    }
}

#[test]
fn an_unknown_owner_in_file_input_is_said_of_the_files_not_a_snapshot() {
    let (code, out, err) = kubectl_gc(&["audit", "-f", &example("shop-kubectl-get.yaml")]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out.lines().filter(|l| l.contains("GC007")).collect();
    assert!(!rows.is_empty(), "{out}");
    for row in rows {
        assert!(
            row.ends_with(
                "unknown: the input files cannot tell whether the GC keeps or collects this object"
            ),
            "{row}"
        );
    }
}

#[test]
fn velero_notes_name_the_objects_they_are_about() {
    let (code, _, err) = kubectl_gc(&[
        "check",
        "apply",
        "-f",
        &example("relink-backup.yaml"),
        "--target",
        &example("relink-restored.ndjson"),
        "--restorer",
        "velero",
    ]);
    assert_eq!(code, 0, "{err}");
    let mut notes: Vec<&str> = err.lines().filter(|l| l.starts_with("note: ")).collect();
    notes.sort_unstable();
    let why = "is not restored: it already exists in the target, and Velero leaves existing objects as they are";
    assert_eq!(
        notes,
        [
            format!("note: ConfigMap/web-settings -n shop {why}"),
            format!("note: Deployment/web -n shop {why}"),
            format!("note: ReplicaSet/web-7d9f8c6b5 -n shop {why}"),
            format!("note: Secret/web-tls -n shop {why}"),
        ],
        "{err}"
    );
}

#[test]
fn markdown_reads_as_written_in_a_ci_log() {
    let (code, out, err) = kubectl_gc(&[
        "check",
        "apply",
        "-f",
        &example("export.yaml"),
        "--target",
        "empty",
        "-o",
        "markdown",
    ]);
    assert_eq!(code, 5, "{err}");
    assert!(out.contains("owner v1 ConfigMap/parent (uid "), "{out}");
    assert!(out.contains("came from: an owner"), "{out}");
    for escaped in ["\\/", "\\:", "\\."] {
        assert!(!out.contains(escaped), "{escaped} in:\n{out}");
    }
}

#[test]
fn check_apply_reports_are_titled_check_apply_with_their_own_sarif_category() {
    let run = |format: &str| {
        let (code, out, err) = kubectl_gc(&[
            "check",
            "apply",
            "-f",
            &example("export.yaml"),
            "--target",
            "empty",
            "-o",
            format,
        ]);
        assert_eq!(code, 5, "{err}");
        out
    };
    assert!(run("html").contains("<title>kubectl-gc check apply report</title>"));
    assert!(run("markdown").starts_with("### ❌ kubectl-gc check apply: 7 findings"));
    let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).unwrap();
    assert_eq!(
        sarif["runs"][0]["automationDetails"]["id"],
        "kubectl-gc-check-apply/files/"
    );
}
