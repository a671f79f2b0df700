//! `check restart` against the real garbage collector (kube-controller-manager v1.20.2).
//!
//! A cross-namespace ownerReference (and other garbage) is created while no GC runs;
//! `kubectl gc check restart` predicts what a freshly started GC deletes; then the GC is
//! started on the same cluster and must delete exactly that, and nothing else.
//!
//! One control plane, without the GC until `restart_prediction_matches_real_gc` starts it; the
//! other two tests build on what that one leaves (the GC running, a terminating dependent).

use crate::harness::{Suite, Test};
use crate::testenv::{self, TestEnv};
use serde_json::Value;
use std::cell::{Ref, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Ctx {
    env: RefCell<TestEnv>,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "check",
    setup: || {
        Ok(Ctx {
            env: RefCell::new(TestEnv::start(false)?),
        })
    },
    tests: &[
        Test {
            name: "restart_prediction_matches_real_gc",
            needs: &[],
            run: restart_prediction_matches_real_gc,
        },
        Test {
            name: "gc_strands_the_dependent_of_a_namespace_less_virtual_owner",
            needs: &["restart_prediction_matches_real_gc"],
            run: |ctx| {
                let env = plane(ctx);
                let gc_url = env.gc_url.clone().expect("the GC runs");
                stranded_by_cluster_scoped_sibling(&env, &gc_url);
            },
        },
        Test {
            name: "one_namespace_read_completely_passes_strict_coverage",
            needs: &["restart_prediction_matches_real_gc"],
            run: one_namespace_strict_coverage,
        },
        Test {
            name: "audit_events_shows_the_gcs_owner_ref_invalid_namespace_event",
            needs: &["restart_prediction_matches_real_gc"],
            run: audit_events_shows_the_gcs_event,
        },
        // Last: stops the GC (if an earlier test left it running) and starts it again.
        Test {
            name: "cycle_guard_with_mixed_dependents_matches_the_gc",
            needs: &[],
            run: cycle_guard_with_mixed_dependents,
        },
    ],
};

/// The control plane.
fn plane(ctx: &Ctx) -> Ref<'_, TestEnv> {
    ctx.env.borrow()
}

fn apply(env: &TestEnv, json: &Value) {
    env.kubectl_stdin(&["apply", "-f", "-"], Some(&json.to_string()))
        .expect("kubectl apply");
}

fn uid(env: &TestEnv, kind: &str, ns: &str, name: &str) -> String {
    env.kubectl(&[
        "get",
        kind,
        name,
        "-n",
        ns,
        "-o",
        "jsonpath={.metadata.uid}",
    ])
    .expect("kubectl get uid")
}

fn configmap(ns: &str, name: &str, owners: Value) -> Value {
    serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"namespace": ns, "name": name, "ownerReferences": owners}})
}

fn owner(kind: &str, name: &str, uid: &str) -> Value {
    serde_json::json!([{"apiVersion": if kind == "ReplicaSet" { "apps/v1" } else { "v1" }, "kind": kind, "name": name, "uid": uid}])
}

/// The scenario objects that exist now, as `ns/name`.
fn existing(env: &TestEnv, names: &[(&str, &str)]) -> BTreeSet<String> {
    names
        .iter()
        .filter(|(ns, n)| crate::probe::exists(env, &["configmap", n, "-n", ns]))
        .map(|(ns, n)| format!("{ns}/{n}"))
        .collect()
}

/// `metadata.deletionTimestamp` of a ConfigMap in `monitoring`, empty when unset or gone.
fn deletion_timestamp(env: &TestEnv, name: &str) -> String {
    env.kubectl(&[
        "get",
        "configmap",
        name,
        "-n",
        "monitoring",
        "--ignore-not-found",
        "-o",
        "jsonpath={.metadata.deletionTimestamp}",
    ])
    .unwrap_or_default()
}

fn restart_prediction_matches_real_gc(ctx: &Ctx) {
    let guard = plane(ctx);
    let env = &*guard;
    env.kubectl(&["create", "namespace", "monitoring"])
        .expect("namespace");
    apply(env, &configmap("kube-system", "owner", Value::Null));
    let owner_uid = uid(env, "configmap", "kube-system", "owner");
    apply(
        env,
        &configmap(
            "kube-system",
            "valid",
            owner("ConfigMap", "owner", &owner_uid),
        ),
    );
    // The incident: a dependent in another namespace than its owner.
    apply(
        env,
        &configmap("monitoring", "bad", owner("ConfigMap", "owner", &owner_uid)),
    );
    let bad_uid = uid(env, "configmap", "monitoring", "bad");
    // Another cross-namespace dependent that holds its own finalizer: the GC's delete leaves it
    // terminating, so its OwnerRefInvalidNamespace event can be read afterwards.
    let mut held = configmap(
        "monitoring",
        "bad-held",
        owner("ConfigMap", "owner", &owner_uid),
    );
    held["metadata"]["finalizers"] = serde_json::json!(["example.com/hold"]);
    apply(env, &held);
    apply(
        env,
        &configmap(
            "monitoring",
            "bad-child",
            owner("ConfigMap", "bad", &bad_uid),
        ),
    );
    // Ordinary garbage: an owner that never existed.
    apply(
        env,
        &configmap(
            "default",
            "orphaned",
            owner("ReplicaSet", "gone", "00000000-0000-4000-8000-00000000dead"),
        ),
    );
    apply(env, &configmap("default", "healthy-owner", Value::Null));
    let healthy_uid = uid(env, "configmap", "default", "healthy-owner");
    apply(
        env,
        &configmap(
            "default",
            "healthy-dep",
            owner("ConfigMap", "healthy-owner", &healthy_uid),
        ),
    );
    let all = [
        ("kube-system", "owner"),
        ("kube-system", "valid"),
        ("monitoring", "bad"),
        ("monitoring", "bad-child"),
        ("monitoring", "bad-held"),
        ("default", "orphaned"),
        ("default", "healthy-owner"),
        ("default", "healthy-dep"),
    ];

    // Predict.
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args([
            "check",
            "restart",
            "-A",
            "-o",
            "json",
            "--kubeconfig",
            env.kubeconfig.to_str().unwrap(),
        ])
        .output()
        .expect("run kubectl-gc");
    assert_eq!(
        out.status.code(),
        Some(5),
        "critical findings exit 5; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(report["kind"], "CheckReport");
    assert_eq!(report["gcVersion"], "1.20.2");
    let predicted: BTreeSet<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["code"] == "GC015"
                && f["consequence"]
                    .as_str()
                    .unwrap_or("")
                    .contains("deletes this object")
        })
        .map(|f| {
            format!(
                "{}/{}",
                f["object"]["namespace"].as_str().unwrap_or(""),
                f["object"]["name"].as_str().unwrap()
            )
        })
        .collect();
    let expected: BTreeSet<String> = [
        "monitoring/bad",
        "monitoring/bad-child",
        "monitoring/bad-held",
        "default/orphaned",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(predicted, expected, "prediction");
    let critical: BTreeSet<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "critical")
        .map(|f| f["object"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        critical,
        BTreeSet::from([
            "bad".to_owned(),
            "bad-child".to_owned(),
            "bad-held".to_owned()
        ])
    );

    // The bundled incident's shape: a cross-namespace reference sitting in the cluster waits
    // for the next start, in every view; a missing owner cannot tell whether the running GC
    // saw it go.
    crate::timeline::all_say(env, "monitoring", "bad", "GC004", "restart sitting");
    crate::timeline::all_say(
        env,
        "default",
        "orphaned",
        "GC001",
        "now-or-restart owner-gone",
    );
    // Nothing happens while no GC runs.
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(existing(env, &all).len(), all.len());

    // Start the real GC and watch it do exactly that (it runs until the suite ends, or until
    // audit_events_shows_the_gcs_event stops it).
    drop(guard);
    ctx.env
        .borrow_mut()
        .start_gc()
        .unwrap_or_else(|e| panic!("cannot start the GC: {e}"));
    let guard = plane(ctx);
    let env = &*guard;
    let start = Instant::now();
    let survivors_expected: BTreeSet<String> = all
        .iter()
        .map(|(ns, n)| format!("{ns}/{n}"))
        // bad-held is deleted too, but stays (terminating) until its finalizer goes.
        .filter(|k| !expected.contains(k) || k == "monitoring/bad-held")
        .collect();
    loop {
        let now = existing(env, &all);
        if now == survivors_expected {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            panic!("after 120 s the cluster holds {now:?}, expected {survivors_expected:?}");
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    // Give the GC time to do anything else it would do; nothing else may disappear.
    std::thread::sleep(Duration::from_secs(8));
    let final_state = existing(env, &all);
    if final_state != survivors_expected {
        panic!(
            "the real GC deleted more than predicted: {final_state:?}, expected {survivors_expected:?}"
        );
    }
    let terminating = deletion_timestamp(env, "bad-held");
    assert!(
        !terminating.trim().is_empty(),
        "the GC deleted bad-held; its finalizer holds it"
    );

    // The GC's OwnerRefInvalidNamespace event. v1.20 emits it only when it sees the owner
    // node observed while linking a cross-namespace dependent (or when a virtual owner is
    // replaced by the observed one); whether that happens for objects that existed before
    // the GC started depends on informer order (a virtual owner resolved to 404 first is
    // removed silently). A dependent created against an owner the running GC has already
    // observed is reported every time, so that is what this part asserts.
    let mut late = configmap(
        "monitoring",
        "late-held",
        owner("ConfigMap", "owner", &owner_uid),
    );
    late["metadata"]["finalizers"] = serde_json::json!(["example.com/hold"]);
    apply(env, &late);
    let late_start = Instant::now();
    loop {
        let reported = env
            .kubectl(&[
                "get",
                "events",
                "-n",
                "monitoring",
                "--field-selector",
                "involvedObject.name=late-held,reason=OwnerRefInvalidNamespace",
                "-o",
                "name",
            ])
            .unwrap_or_default();
        let deleted = !deletion_timestamp(env, "late-held").trim().is_empty();
        if !reported.trim().is_empty() && deleted {
            break;
        }
        if late_start.elapsed() > Duration::from_secs(60) {
            panic!(
                "within 60 s the GC neither reported (event: {}) and deleted (deleted: {deleted}) \
                 a cross-namespace dependent of an owner it had observed",
                !reported.trim().is_empty()
            );
        }
        std::thread::sleep(Duration::from_millis(500));
    }

    eprintln!("real GC converged in {:.1}s", start.elapsed().as_secs_f64());
}

/// Newcomer N6: `-n NS` lists the namespaced resources in NS only, which is the selection,
/// not a gap: on a cluster the admin reads completely, `--strict-coverage` passes (it exited 6),
/// and the coverage says what was read.
fn one_namespace_strict_coverage(ctx: &Ctx) {
    let env = &*plane(ctx);
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args([
            "audit",
            "-n",
            "default",
            "--strict-coverage",
            "--fail-on",
            "never",
        ])
        .args([
            "-o",
            "json",
            "--kubeconfig",
            env.kubeconfig.to_str().unwrap(),
        ])
        .output()
        .expect("run kubectl-gc audit");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let coverage = &report["summary"]["coverage"];
    assert_eq!(coverage["complete"], true, "{coverage:#}");
    assert_eq!(
        coverage["namespaces"],
        serde_json::json!(["default"]),
        "{coverage:#}"
    );
    assert_eq!(coverage["gaps"], serde_json::json!([]), "{coverage:#}");
}

/// `audit --events` attaches the GC's OwnerRefInvalidNamespace event (from
/// `restart_prediction_matches_real_gc`) to the cross-namespace finding.
fn audit_events_shows_the_gcs_event(ctx: &Ctx) {
    ctx.env.borrow_mut().stop_gc();
    let env = &*plane(ctx);
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args([
            "audit",
            "-A",
            "--events",
            "-o",
            "json",
            "--fail-on",
            "never",
        ])
        .args(["--kubeconfig", env.kubeconfig.to_str().unwrap()])
        .output()
        .expect("run kubectl-gc audit --events");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let held = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "GC004" && f["object"]["name"] == "late-held")
        .unwrap_or_else(|| panic!("GC004 on late-held: {report:#}"));
    let evidence = held["evidence"][0].as_str().unwrap_or_default();
    assert!(evidence.starts_with("OwnerRefInvalidNamespace"), "{held:#}");
    assert!(
        evidence.contains("does not exist in namespace \"monitoring\""),
        "{evidence}"
    );
    for held in ["bad-held", "late-held"] {
        let _ = env.kubectl(&[
            "patch",
            "configmap",
            held,
            "-n",
            "monitoring",
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":null}}"#,
        ]);
    }
}

/// kubernetes#98040 on the real v1.20.2 GC: a cluster-scoped dependent observed first gives the
/// missing owner a namespace-less virtual node, and the namespaced dependent of the same missing
/// owner is never collected; a control object without such a sibling is.
///
/// The #98040 case with the GC running: returns once the control object is collected and the
/// stranded one has outlived it; `check restart` flags the stranded one as order-dependent.
fn stranded_by_cluster_scoped_sibling(env: &TestEnv, gc_url: &str) {
    const MISSING: &str = "00000000-0000-4000-8000-000000098040";
    let missing_owner = owner("ConfigMap", "parent", MISSING);
    apply(
        env,
        &serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "kgc-98040-bad", "ownerReferences": missing_owner}}),
    );
    // Wait until the GC holds the owner's virtual node, without a namespace.
    let t = Instant::now();
    loop {
        // Not answering yet reads as an empty graph: the loop polls.
        let dot = testenv::http_get(&format!(
            "{gc_url}/debug/controllers/garbagecollector/graph?uid={MISSING}"
        ))
        .unwrap_or_default();
        if dot.contains("kgc-98040-bad") {
            let owner_node = dot
                .split("];")
                .find(|block| block.contains(&format!("uid=\"{MISSING}\"")))
                .unwrap_or_else(|| panic!("no node for the missing owner: {dot}"));
            assert!(
                owner_node.contains("namespace=\"\"") && owner_node.contains("virtual=\"true\""),
                "the owner's virtual node has no namespace: {owner_node}"
            );
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the GC never linked the cluster-scoped dependent: {dot}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    apply(env, &configmap("default", "kgc-98040-good", missing_owner));
    apply(
        env,
        &configmap(
            "default",
            "kgc-98040-control",
            owner(
                "ConfigMap",
                "other-parent",
                "00000000-0000-4000-8000-0000000c0de0",
            ),
        ),
    );
    let names = [
        ("default", "kgc-98040-good"),
        ("default", "kgc-98040-control"),
    ];
    let t = Instant::now();
    while existing(env, &names).contains("default/kgc-98040-control") {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the GC did not collect the control object within 60 s"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(
        existing(env, &names),
        BTreeSet::from(["default/kgc-98040-good".to_owned()]),
        "the namespaced dependent of the namespace-less virtual owner is stranded"
    );

    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(["check", "restart", "-A", "-o", "json", "--fail-on", "never"])
        .args(["--kubeconfig", env.kubeconfig.to_str().unwrap()])
        .output()
        .expect("run kubectl-gc check restart");
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let finding = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["object"]["name"] == "kgc-98040-good")
        .unwrap_or_else(|| panic!("no finding on kgc-98040-good: {report:#}"));
    assert_eq!(finding["code"], "GC020", "{finding:#}");
    assert!(
        finding["consequence"]
            .as_str()
            .unwrap_or_default()
            .contains("depending on the order"),
        "{finding:#}"
    );
}

// ---------------------------------------------------------------------------------------------
// Row 9's cycle guard with mixed dependents (issue 65, mutation M1)

const CYCLE_NS: &str = "kgc-cycle";

/// A ConfigMap of the cycle-guard scenario, as the cluster has it now: `None` when gone, else
/// (terminating, finalizers, each reference as (owner name, blockOwnerDeletion)).
type CmState = Option<(bool, Vec<String>, Vec<(String, Option<bool>)>)>;

fn cycle_states(env: &TestEnv) -> BTreeMap<String, CmState> {
    let text = env
        .kubectl(&["get", "configmaps", "-n", CYCLE_NS, "-o", "json"])
        .expect("kubectl get configmaps");
    let v: Value = serde_json::from_str(&text).expect("a JSON list");
    let mut out: BTreeMap<String, CmState> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|n| (n.to_string(), None))
        .collect();
    for item in v["items"].as_array().into_iter().flatten() {
        let m = &item["metadata"];
        let name = m["name"].as_str().unwrap_or_default().to_owned();
        if !out.contains_key(&name) {
            continue;
        }
        let fins = m["finalizers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f.as_str().map(str::to_owned))
            .collect();
        let refs = m["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                (
                    r["name"].as_str().unwrap_or_default().to_owned(),
                    r["blockOwnerDeletion"].as_bool(),
                )
            })
            .collect();
        out.insert(
            name,
            Some((
                m.get("deletionTimestamp").is_some_and(|d| !d.is_null()),
                fins,
                refs,
            )),
        );
    }
    out
}

/// What the real GC and kubectl-gc must both end with (src/diagnose/tests/fidelity.rs,
/// `cycle_guard_mixed_dependents`): row 9 on `b` unblocks its reference to `a` first, because
/// one of its dependents (`c`) is deletingDependents, so `a` goes; `b` waits for `c`, which
/// waits for `e`, held by its finalizer; `d` is deleted.
fn cycle_expected() -> BTreeMap<String, CmState> {
    let fg = || vec!["foregroundDeletion".to_owned()];
    BTreeMap::from([
        ("a".to_owned(), None),
        (
            "b".to_owned(),
            Some((true, fg(), vec![("a".to_owned(), Some(false))])),
        ),
        (
            "c".to_owned(),
            Some((true, fg(), vec![("b".to_owned(), Some(true))])),
        ),
        ("d".to_owned(), None),
        (
            "e".to_owned(),
            Some((
                true,
                vec!["example.com/hold".to_owned()],
                vec![("c".to_owned(), Some(true))],
            )),
        ),
    ])
}

/// kubectl-gc's restart prediction for the scenario, in the same terms.
fn cycle_predicted(env: &TestEnv) -> BTreeMap<String, CmState> {
    let path = env.dir.join("cycle-guard.ndjson");
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(["snapshot", "-A", "-o"])
        .arg(&path)
        .arg("--kubeconfig")
        .arg(&env.kubeconfig)
        .output()
        .expect("run kubectl-gc snapshot");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let snap = kubectl_gc::snapshot::format::read_file(&path).expect("read the snapshot");
    let gc = kubectl_gc::gc::GarbageCollector::new(
        &snap,
        kubectl_gc::gc::GarbageCollector::default_gc_version(&snap),
    );
    let plan = kubectl_gc::diagnose::restart::predict(&gc).plan;
    let store = &snap.store;
    let mut out = BTreeMap::new();
    for id in store.ids() {
        if store.str(store.object(id).namespace) != CYCLE_NS {
            continue;
        }
        let name = store.str(store.object(id).name).to_owned();
        assert!(
            plan.outcomes
                .iter()
                .all(|o| o.target != id || o.alternatives.is_empty()),
            "{name}: one end state, not order-dependent"
        );
        let state = plan.end.exists(id).then(|| {
            (
                plan.end.being_deleted(id),
                plan.end
                    .finalizers(store, id)
                    .iter()
                    .map(|f| store.str(*f).to_owned())
                    .collect(),
                plan.end
                    .owner_refs(store, id)
                    .iter()
                    .map(|r| (store.str(r.name).to_owned(), r.block_owner_deletion))
                    .collect(),
            )
        });
        out.insert(name, state);
    }
    out
}

/// M1: the row-9 cycle guard fires when *any* dependent is deletingDependents. The scenario is
/// built while no GC runs (`c` deleted in the foreground and held there by `e`, then `a`
/// deleted in the foreground); kubectl-gc's restart prediction and the real v1.20.2 GC started
/// on it must both end in [`cycle_expected`]. Releasing `e` then lets the GC finish the chain.
fn cycle_guard_with_mixed_dependents(ctx: &Ctx) {
    ctx.env.borrow_mut().stop_gc();
    let guard = plane(ctx);
    let env = &*guard;
    env.kubectl(&["create", "namespace", CYCLE_NS])
        .expect("namespace");
    let cm = |name: &str, owner: Option<(&str, &str)>, finalizers: &[&str]| {
        let mut v = configmap(CYCLE_NS, name, Value::Null);
        if let Some((o, uid)) = owner {
            v["metadata"]["ownerReferences"] = serde_json::json!([{"apiVersion": "v1",
                "kind": "ConfigMap", "name": o, "uid": uid, "blockOwnerDeletion": true}]);
        }
        if !finalizers.is_empty() {
            v["metadata"]["finalizers"] = serde_json::json!(finalizers);
        }
        apply(env, &v);
        uid(env, "configmap", CYCLE_NS, name)
    };
    let a = cm("a", None, &[]);
    let b = cm("b", Some(("a", &a)), &[]);
    let c = cm("c", Some(("b", &b)), &[]);
    cm("d", Some(("b", &b)), &[]);
    cm("e", Some(("c", &c)), &["example.com/hold"]);
    for name in ["c", "a"] {
        env.kubectl(&[
            "delete",
            "configmap",
            name,
            "-n",
            CYCLE_NS,
            "--cascade=foreground",
            "--wait=false",
        ])
        .expect("kubectl delete --cascade=foreground");
    }
    let predicted = cycle_predicted(env);
    assert_eq!(
        predicted,
        cycle_expected(),
        "kubectl-gc's restart prediction"
    );

    drop(guard);
    let t = Instant::now();
    ctx.env
        .borrow_mut()
        .start_gc()
        .unwrap_or_else(|e| panic!("cannot start the GC: {e}"));
    let guard = plane(ctx);
    let env = &*guard;
    let want = cycle_expected();
    loop {
        let now = cycle_states(env);
        if now == want {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "after 60 s the real GC left {now:#?}, expected {want:#?}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    // Nothing else happens.
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(cycle_states(env), want, "the real GC's end state");
    eprintln!(
        "the real GC ended the cycle-guard scenario as predicted in {:.1}s",
        t.elapsed().as_secs_f64()
    );
    // Released, the chain finishes: e, then c, then b.
    env.kubectl(&[
        "patch",
        "configmap",
        "e",
        "-n",
        CYCLE_NS,
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ])
    .expect("release e");
    let t = Instant::now();
    loop {
        let now = cycle_states(env);
        if now.values().all(Option::is_none) {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "after e was released the GC left {now:#?}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}
