//! `kubectl gc why` as users run it, offline: the examples, a stuck namespace written as
//! `kubectl get -o yaml` output, hostile strings, errors and exit codes, and the JSON/YAML
//! against `schemas/why.schema.json`. The live scenarios (the namespace controller on a real
//! control plane) are in `tests/live/why.rs`.

use crate::support::run::kubectl_gc;
use crate::support::schema::assert_valid;
use serde_json::Value;
use std::path::Path;

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `why … -o json`, checked against the schema, and its YAML twin too.
fn why_json(args: &[&str]) -> Value {
    let mut a = vec!["why"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["-o", "json"]);
    let (code, out, err) = kubectl_gc(&a);
    assert_eq!(code, 0, "{a:?}: {err}");
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(doc["kind"], "Why");
    assert_valid("why.schema.json", &doc, &a.join(" "));
    let yaml_args: Vec<&str> = a
        .iter()
        .map(|x| if *x == "json" { "yaml" } else { x })
        .collect();
    let (code, out, err) = kubectl_gc(&yaml_args);
    assert_eq!(code, 0, "{yaml_args:?}: {err}");
    let y: Value = serde_saphyr::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(y, doc, "YAML and JSON say the same");
    doc
}

#[test]
fn a_foreground_deletion_is_followed_to_the_object_at_the_bottom_of_the_chain() {
    let stuck = example("stuck-foreground-deletion.json");
    let d = why_json(&["--snapshot", &stuck, "deployment/checkout", "-n", "shop"]);
    assert_eq!(d["state"], "terminating");
    assert_eq!(d["gc"]["verdict"], "wait-for-dependents");
    let fg = &d["finalizers"][0];
    assert_eq!(fg["name"], "foregroundDeletion");
    assert_eq!(fg["ownerKind"], "garbage-collector");
    assert_eq!(fg["holds"], "yes");
    assert_eq!(fg["waitingFor"][0]["kind"], "ReplicaSet");
    assert!(
        fg["detail"]
            .as_str()
            .unwrap()
            .contains("Pod/checkout-7d9f8c6b5-x2x9q"),
        "{fg}"
    );
    // The first remedy explains the root blocker, not the Deployment.
    assert_eq!(
        d["remedies"][0]["command"],
        "kubectl gc why pods/checkout-7d9f8c6b5-x2x9q -n shop"
    );
}

#[test]
fn an_unknown_finalizer_says_so_and_is_stripped_last_with_a_guard() {
    let stuck = example("stuck-foreground-deletion.json");
    let d = why_json(&[
        "--snapshot",
        &stuck,
        "pod",
        "checkout-7d9f8c6b5-x2x9q",
        "-n",
        "shop",
    ]);
    let f = &d["finalizers"][0];
    assert_eq!(f["name"], "example.com/drain-protection");
    assert_eq!(f["ownerKind"], "unknown");
    assert_eq!(f["holds"], "unknown");
    assert_eq!(d["gc"]["blocks"][0]["name"], "checkout-7d9f8c6b5");
    let remedies = d["remedies"].as_array().unwrap();
    let last = remedies.last().unwrap();
    assert!(last["note"].as_str().unwrap().starts_with("last resort"));
    assert!(
        last["command"]
            .as_str()
            .unwrap()
            .contains(r#"{"op":"test","path":"/metadata/finalizers/0","value":"example.com/drain-protection"}"#),
        "{last}"
    );
    // A snapshot holds metadata only: who set it is unknown, and said so.
    assert!(d["unknowns"][0].as_str().unwrap().contains("managedFields"));
}

#[test]
fn a_cross_namespace_owner_is_named_where_it_is() {
    let redis = example("redis-operator-incident.json");
    let d = why_json(&[
        "--snapshot",
        &redis,
        "statefulset/redis-cache-exporter",
        "-n",
        "monitoring",
    ]);
    assert_eq!(d["gc"]["verdict"], "delete");
    assert_eq!(d["gc"]["row"], 10);
    let r = &d["gc"]["ownerReferences"][0];
    assert_eq!(r["class"], "dangling");
    assert_eq!(r["owner"]["namespace"], "kube-system");
    assert_eq!(d["outcome"]["state"], "deleted");
    // It sits in the cluster: the running GC checks such a reference only when it is written,
    // so the next start deletes it (newcomer N1).
    assert_eq!(d["outcome"]["when"], "restart");
    assert_eq!(d["outcome"]["whenReason"], "sitting");
    let verdict = d["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with("The GC will delete StatefulSet/redis-cache-exporter -n monitoring")
            && verdict.contains("is in namespace kube-system")
            && verdict.contains("at the next kube-controller-manager restart, not before"),
        "{verdict}"
    );
}

/// Issue 56 (W2): a healthy Pod whose StatefulSet the GC deletes goes in the cascade — `why`
/// says so, with the wave and the owner it follows, as `collect` plans it.
#[test]
fn a_cascade_victim_is_deleted_after_its_owner_as_collect_plans_it() {
    let redis = example("redis-operator-incident.json");
    let args = [
        "--snapshot",
        &redis,
        "pod/redis-cache-exporter-0",
        "-n",
        "monitoring",
    ];
    let d = why_json(&args);
    let o = &d["outcome"];
    assert_eq!(o["state"], "deleted", "{d}");
    // After its owner, at its owner's moment: the next start.
    assert_eq!(o["when"], "restart");
    assert_eq!(o["after"]["kind"], "StatefulSet");
    assert_eq!(o["after"]["name"], "redis-cache-exporter");
    assert_eq!(o["by"], "garbage-collector");
    // The same wave as collect's delete of the Pod.
    let (code, out, err) = kubectl_gc(&["collect", "--snapshot", &redis, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let plan: Value = serde_json::from_str(&out).unwrap();
    let wave = plan["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["target"]["name"] == "redis-cache-exporter-0")
        .map(|a| a["wave"].clone())
        .expect("collect deletes the Pod");
    assert_eq!(o["wave"], wave);
    assert!(
        d["verdict"]
            .as_str()
            .unwrap()
            .contains("after it deletes its owner StatefulSet/redis-cache-exporter -n monitoring"),
        "{}",
        d["verdict"]
    );
}

/// Issue 56 (W3): before 1.20, a valid dependent of the owner the bad reference names may be
/// deleted too (audit's GC012): `why` says the fate is open, never "will not delete".
#[test]
fn pre_1_20_collateral_is_an_open_fate_not_a_keep() {
    let redis = example("redis-operator-incident.json");
    let d = why_json(&[
        "--snapshot",
        &redis,
        "sts/rfr-redis-cache",
        "-n",
        "kube-system",
        "--gc-version",
        "1.13",
    ]);
    let o = &d["outcome"];
    assert_eq!(o["state"], "order-dependent", "{d}");
    let states: Vec<&str> = o["alternatives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["kept", "deleted"]);
    let verdict = d["verdict"].as_str().unwrap();
    assert!(verdict.contains("kubernetes#65200"), "{verdict}");
    // From 1.20 the absent-owner cache is keyed by coordinates: the valid dependent is kept.
    let d = why_json(&[
        "--snapshot",
        &redis,
        "sts/rfr-redis-cache",
        "-n",
        "kube-system",
    ]);
    assert_eq!(d["outcome"]["state"], "kept");
    assert_eq!(d["outcome"]["when"], "never");
}

/// Issue 56 (W4, item 5): an object the input does not hold, where the input does not prove
/// it absent (a kind a file holds no objects of; a kind not proven complete in the namespace),
/// is unknown — exit 0 with the reason — never "not found".
#[test]
fn an_object_the_input_cannot_rule_out_is_unknown_not_absent() {
    let shop = example("shop-kubectl-get.yaml");
    for target in ["job/nightly", "rs/web-0000000000"] {
        let d = why_json(&["-f", &shop, target, "-n", "shop"]);
        assert_eq!(d["state"], "unknown", "{target}: {d}");
        assert_eq!(d["outcome"]["state"], "unknown");
        assert!(
            d["verdict"].as_str().unwrap().contains("--assume-complete"),
            "{target}: {}",
            d["verdict"]
        );
    }
    // The other commands that name an object say the same of it: not in the input, and not
    // proven absent (still exit 8: the object named is not in the input).
    for cmd in ["graph", "collect"] {
        let mut args = vec![cmd, "-f", &shop];
        if cmd == "collect" {
            args.push("--delete");
        }
        args.extend(["rs/web-0000000000", "-n", "shop"]);
        let (code, _, err) = kubectl_gc(&args);
        assert_eq!(code, 8, "{args:?}: {err}");
        assert!(err.contains("does not prove it absent"), "{args:?}: {err}");
    }
    // With --assume-complete the input proves it absent: exit 8.
    let (code, _, err) = kubectl_gc(&[
        "why",
        "-f",
        &shop,
        "rs/web-0000000000",
        "-n",
        "shop",
        "--assume-complete",
    ]);
    assert_eq!(code, 8, "{err}");
}

/// Issue 56 (M4): a missing owner is explained by what still points at it.
#[test]
fn a_missing_owner_names_its_dependents() {
    let lag = example("gc-lag-snapshot.json");
    let (code, _, err) = kubectl_gc(&["why", "--snapshot", &lag, "rs/web-5d4f8b7c9", "-n", "shop"]);
    assert_eq!(code, 8, "{err}");
    assert!(
        err.contains("named as an owner by ConfigMap/session-cache -n shop")
            && err.contains("--audit-log"),
        "{err}"
    );
}

/// A namespace stuck three ways, as `kubectl get -o yaml` prints it: the namespace controller's
/// discovery failure, a foreign spec.finalizers token, content held by a finalizer; the
/// APIService behind the failure.
const STUCK_NAMESPACE: &str = r#"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata:
    name: doomed
    uid: 6a1b0000-0000-4000-8000-000000000001
    creationTimestamp: "2026-11-01T10:00:00Z"
    deletionTimestamp: "2026-11-20T10:00:00Z"
  spec:
    finalizers: [kubernetes, example.com/tenant]
  status:
    phase: Terminating
    conditions:
    - type: NamespaceDeletionDiscoveryFailure
      status: "True"
      reason: DiscoveryFailed
      message: "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request"
    - type: NamespaceContentRemaining
      status: "True"
      reason: SomeResourcesRemain
      message: "Some resources are remaining: configmaps. has 1 resource instances"
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: held
    namespace: doomed
    uid: 6a1b0000-0000-4000-8000-000000000002
    creationTimestamp: "2026-11-01T10:00:00Z"
    deletionTimestamp: "2026-11-20T10:00:05Z"
    finalizers: [example.com/hold]
- apiVersion: apiregistration.k8s.io/v1
  kind: APIService
  metadata:
    name: v1beta1.metrics.k8s.io
    uid: 6a1b0000-0000-4000-8000-000000000003
    creationTimestamp: "2026-11-01T10:00:00Z"
  spec:
    group: metrics.k8s.io
    version: v1beta1
    service: {namespace: kube-system, name: metrics-server}
  status:
    conditions:
    - {type: Available, status: "False", reason: ServiceNotFound, message: "service/metrics-server in \"kube-system\" is not present"}
"#;

#[test]
fn a_stuck_namespace_from_files_names_every_blocker_and_never_finalizes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ns.yaml");
    std::fs::write(&file, STUCK_NAMESPACE).unwrap();
    let file = file.to_string_lossy().into_owned();
    let d = why_json(&["-f", &file, "namespace/doomed"]);
    let ns = &d["namespace"];
    assert_eq!(ns["outlook"], "stuck");
    let types: Vec<&str> = ns["blockers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    for t in [
        "discovery-failure",
        "foreign-spec-finalizers",
        "content-held",
    ] {
        assert!(types.contains(&t), "{t} in {types:?}");
    }
    let discovery = ns["blockers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "discovery-failure")
        .unwrap();
    assert_eq!(
        discovery["apiServices"][0]["name"],
        "v1beta1.metrics.k8s.io"
    );
    assert_eq!(
        discovery["apiServices"][0]["service"],
        "kube-system/metrics-server"
    );
    let held = ns["blockers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "content-held")
        .unwrap();
    assert_eq!(held["objects"][0]["name"], "held");
    assert_eq!(ns["specFinalizers"][1], "example.com/tenant");
    let failing: Vec<&str> = ns["failingConditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        failing,
        [
            "NamespaceDeletionDiscoveryFailure",
            "NamespaceContentRemaining"
        ]
    );
    // The foreign token shows as a spec finalizer that holds.
    let tenant = d["finalizers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "example.com/tenant")
        .unwrap();
    assert_eq!(tenant["field"], "spec.finalizers");
    assert_eq!(tenant["holds"], "yes");
    // Remedies: the APIService first; never /finalize.
    let remedies = d["remedies"].as_array().unwrap();
    assert_eq!(
        remedies[0]["command"],
        "kubectl delete apiservice v1beta1.metrics.k8s.io"
    );
    assert!(
        remedies
            .iter()
            .all(|r| !r["command"].as_str().unwrap_or("").contains("finalize")),
        "{remedies:?}"
    );

    // audit: one GC023 error for the namespace, with why as its remedy.
    let (code, out, err) = kubectl_gc(&["audit", "-f", &file, "-A", "-o", "json"]);
    assert!(code == 5 || code == 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let gc023: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "GC023")
        .collect();
    assert_eq!(gc023.len(), 1, "{out}");
    assert_eq!(gc023[0]["severity"], "error");
    assert!(
        gc023[0]["remedies"][0]
            .as_str()
            .unwrap()
            .starts_with("kubectl gc why namespace/doomed"),
        "{}",
        gc023[0]
    );

    // Converted to a snapshot and read back, the namespace's details survive.
    let snap = dir.path().join("s.ndjson").to_string_lossy().into_owned();
    let (code, _, err) = kubectl_gc(&["snapshot", "-f", &file, "-o", &snap]);
    assert_eq!(code, 0, "{err}");
    let again = why_json(&["--snapshot", &snap, "namespace/doomed"]);
    assert_eq!(again["namespace"], d["namespace"]);
}

#[test]
fn an_active_namespace_says_what_a_delete_would_meet() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ns.yaml");
    // The same namespace, not yet deleted: its last conditions and the held ConfigMap would
    // hold it.
    let active = STUCK_NAMESPACE
        .replace("    deletionTimestamp: \"2026-11-20T10:00:00Z\"\n", "")
        .replace(
            "finalizers: [kubernetes, example.com/tenant]",
            "finalizers: [kubernetes]",
        );
    std::fs::write(&file, active).unwrap();
    let file = file.to_string_lossy().into_owned();
    let d = why_json(&["-f", &file, "ns", "doomed", "--assume-complete"]);
    assert_eq!(d["state"], "exists");
    assert!(
        d["verdict"]
            .as_str()
            .unwrap()
            .contains("if it were deleted now, it would stay stuck Terminating"),
        "{}",
        d["verdict"]
    );
}

#[test]
fn hostile_names_are_escaped_in_text_and_quoted_in_remedies() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("h.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"x$(touch pwned)\"\n  namespace: \"ns\\e[2J\"\n  uid: 7a1b0000-0000-4000-8000-000000000001\n  deletionTimestamp: \"2026-11-20T10:00:00Z\"\n  finalizers: [\"evil\\e]0;title\\a/fin\"]\n",
    )
    .unwrap();
    let file = file.to_string_lossy().into_owned();
    let (code, out, err) = kubectl_gc(&[
        "why",
        "-f",
        &file,
        "cm/x$(touch pwned)",
        "-n",
        "ns\u{1b}[2J",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(out.contains("^[]0;title"), "{out}");
    // The strip command quotes every value: pasted into bash it runs nothing.
    let cmd = out
        .lines()
        .find(|l| l.trim_start().starts_with("kubectl patch"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(cmd.contains("'configmaps/x$(touch pwned)'"), "{cmd}");
}

#[test]
fn a_missing_object_names_the_nearest_and_exits_8() {
    let stuck = example("stuck-foreground-deletion.json");
    let (code, out, err) =
        kubectl_gc(&["why", "--snapshot", &stuck, "deploy/checkuot", "-n", "shop"]);
    assert_eq!(code, 8, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("not found"), "{err}");
    assert!(err.contains("hint: nearest: checkout -n shop"), "{err}");
}

#[test]
fn selection_flags_and_bad_targets_are_usage_errors() {
    let stuck = example("stuck-foreground-deletion.json");
    for args in [
        vec![
            "why",
            "--snapshot",
            &stuck,
            "deploy/checkout",
            "-l",
            "app=x",
        ],
        vec![
            "why",
            "--snapshot",
            &stuck,
            "deploy/checkout",
            "--kind",
            "pod",
        ],
        vec!["why", "--snapshot", &stuck, "deploy"],
        vec!["why", "--snapshot", &stuck, "deploy/a", "b"],
        vec!["why", "--snapshot", &stuck],
    ] {
        let (code, _, err) = kubectl_gc(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
}

/// A PersistentVolume of a real support bundle held by two finalizers: each last-resort patch
/// guards its finalizer's place as read, so the notes say to take them one at a time (the
/// second patch, run after the first, would be refused by its guard).
#[test]
fn two_last_resort_patches_say_they_go_one_at_a_time() {
    let bundle = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/realdata/harvester-support-bundle")
        .to_string_lossy()
        .into_owned();
    let d = why_json(&[
        "-f",
        &bundle,
        "-R",
        "pv/pvc-232180f3-6740-4682-ba5c-f4b57a75512b",
    ]);
    let last: Vec<&Value> = d["remedies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["note"].as_str().unwrap().starts_with("last resort"))
        .collect();
    assert_eq!(last.len(), 2, "{d}");
    for (i, r) in last.iter().enumerate() {
        assert!(r["note"].as_str().unwrap().contains("one at a time"), "{r}");
        let place = format!(r#""path":"/metadata/finalizers/{i}""#);
        assert!(r["command"].as_str().unwrap().contains(&place), "{r}");
    }
}

/// Issue 58: `why KIND/NAME --audit-log LOG` of an object the log shows deleted answers with
/// that deletion, exit 0, whatever else is given: the state before it (`--snapshot`: the
/// deletion after that state first, with the cause `history` gives, then the state's
/// answer), a state without the object or its namespace (`-f`), or nothing (no cluster).
#[test]
fn why_of_an_object_the_log_shows_deleted_is_answered_offline_whatever_the_state() {
    let log = example("audit-shop.log");
    let before = example("audit-shop-before.ndjson");
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("elsewhere.yaml");
    std::fs::write(
        &elsewhere,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: other, uid: u-1}\n",
    )
    .unwrap();
    let elsewhere = elsewhere.to_string_lossy().into_owned();
    let story = "ConfigMap/web-config -n shop is gone: deleted at 2026-11-26T02:32:35.514785Z by \
                 the garbage collector\n";
    let base = ["why", "cm/web-config", "-n", "shop", "--audit-log", &log];
    for extra in [
        vec!["--snapshot", before.as_str()],
        vec!["-f", elsewhere.as_str()],
        vec![],
    ] {
        let args: Vec<&str> = base.iter().copied().chain(extra.iter().copied()).collect();
        let (code, out, err) = kubectl_gc(&args);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
        assert!(out.starts_with(story), "{args:?}: {out}");
    }
    // With the state before, the cause is the one `history --snapshot` gives, and the state's
    // answer follows under its own heading.
    let (_, out, _) = kubectl_gc(&[&base[..], &["--snapshot", &before]].concat());
    assert!(
        out.contains("cause: owner-deleted — its owner ConfigMap/owner -n shop was deleted"),
        "{out}"
    );
    let (_, table, _) = kubectl_gc(&["history", "--audit-log", &log, "--snapshot", &before]);
    assert!(
        table.contains(
            "ConfigMap/web-config -n shop      owner-deleted ConfigMap/owner -n shop (Background, inferred)"
        ),
        "{table}"
    );
    let heading =
        "\nIn the state given (captured at 2026-11-26T02:32:23Z), before that deletion:\n";
    let (story_part, state_part) = out.split_once(heading).expect(&out);
    assert!(story_part.starts_with(story));
    assert!(
        state_part.contains("The GC keeps ConfigMap/web-config -n shop"),
        "{out}"
    );
    // An object the log does not show deleted, with no state and no cluster: the cluster error
    // (4), saying the log has no deletion of it.
    let (code, _, err) = kubectl_gc(&["why", "cm/nothere", "-n", "shop", "--audit-log", &log]);
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains("the audit log (7 event(s)) has no deletion of it"),
        "{err}"
    );
}
