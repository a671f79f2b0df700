//! `kubectl gc why` and the namespace controller against a real v1.20.2 control plane running
//! the garbage collector and the namespace controller, each under its own service account.
//!
//! Each scenario: what `collect --delete` and `why` predict before the deletion, what the
//! cluster then does, what `why` says while it is stuck, and that removing the blocker lets the
//! cluster finish — the way `why` said it would. Scenarios: an APIService pointing at a missing
//! Service (every terminating namespace held by the failed discovery), content held by a custom
//! finalizer, a foreground deletion blocked two levels down, a foreign `spec.finalizers` token,
//! a claim held by pvc-protection (a Pod bound to a node that does not exist: no kubelet here).

use crate::harness::{Suite, Test};
use crate::testenv::TestEnv;
use serde_json::{Value, json};
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Ctx {
    env: TestEnv,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "why",
    setup: || {
        let mut env = TestEnv::start(false)?;
        env.start_controllers(&["garbagecollector", "namespace", "pvc-protection"])?;
        Ok(Ctx { env })
    },
    tests: &[
        Test {
            name: "an_unavailable_apiservice_holds_a_deleted_namespace_until_it_is_fixed",
            needs: &[],
            run: discovery_failure,
        },
        Test {
            name: "content_held_by_a_finalizer_holds_the_namespace_until_released",
            needs: &[],
            run: content_held,
        },
        Test {
            name: "a_foreground_deletion_blocked_two_levels_down_names_the_bottom",
            needs: &[],
            run: foreground_two_levels,
        },
        Test {
            name: "a_foreign_spec_finalizer_holds_until_finalize",
            needs: &[],
            run: foreign_spec_token,
        },
        Test {
            name: "a_claim_in_use_is_held_by_pvc_protection_until_its_pod_goes",
            needs: &[],
            run: claim_in_use,
        },
        Test {
            name: "an_object_of_a_forbidden_kind_is_unknown_not_absent",
            needs: &[],
            run: forbidden_kind,
        },
    ],
};

fn kgc(env: &TestEnv, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(args)
        .arg("--kubeconfig")
        .arg(&env.kubeconfig)
        .env("NO_COLOR", "1")
        .output()
        .expect("run kubectl-gc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn why(env: &TestEnv, target: &str, ns: Option<&str>) -> Value {
    let mut args = vec!["why", target, "-o", "json"];
    if let Some(ns) = ns {
        args.extend(["-n", ns]);
    }
    let (code, out, err) = kgc(env, &args);
    assert_eq!(code, 0, "why {target}: {err}");
    let doc: Value = serde_json::from_str(&out).expect("why JSON");
    crate::support::schema::assert_valid("why.schema.json", &doc, "live why");
    doc
}

fn apply(env: &TestEnv, doc: &Value) {
    env.kubectl_stdin(&["apply", "-f", "-"], Some(&doc.to_string()))
        .expect("kubectl apply");
}

fn exists(env: &TestEnv, args: &[&str]) -> bool {
    !env.kubectl(&[&["get"], args, &["-o", "name", "--ignore-not-found"]].concat())
        .expect("kubectl get")
        .trim()
        .is_empty()
}

fn get_json(env: &TestEnv, args: &[&str]) -> Value {
    serde_json::from_str(
        &env.kubectl(&[&["get"], args, &["-o", "json"]].concat())
            .expect("kubectl get"),
    )
    .expect("kubectl JSON")
}

/// Polls `done` for up to `secs` seconds; panics with `what` when it never holds.
fn wait_for(secs: u64, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "timed out after {secs}s: {what}");
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn condition_true(ns: &Value, type_: &str) -> bool {
    ns.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == type_ && c["status"] == "True")
        })
}

/// `collect --delete namespace/NAME -o json`: the predicted end state of each object by name.
fn predicted(env: &TestEnv, ns: &str) -> Vec<(String, String)> {
    let (code, out, err) = kgc(
        env,
        &[
            "collect",
            "--delete",
            &format!("namespace/{ns}"),
            "-A",
            "-o",
            "json",
        ],
    );
    assert_eq!(code, 0, "collect --delete: {err}");
    let plan: Value = serde_json::from_str(&out).expect("plan JSON");
    plan["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .map(|o| {
            (
                format!(
                    "{}/{}",
                    o["target"]["kind"].as_str().unwrap_or(""),
                    o["target"]["name"].as_str().unwrap_or("")
                ),
                o["state"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

fn state_of<'a>(p: &'a [(String, String)], object: &str) -> &'a str {
    p.iter()
        .find(|(o, _)| o == object)
        .map_or("untouched", |(_, s)| s.as_str())
}

fn blocker_types(doc: &Value) -> Vec<String> {
    doc["namespace"]["blockers"]
        .as_array()
        .expect("blockers")
        .iter()
        .map(|b| b["type"].as_str().unwrap().to_owned())
        .collect()
}

fn discovery_failure(ctx: &Ctx) {
    let env = &ctx.env;
    apply(
        env,
        &json!({"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
            "metadata": {"name": "v1beta1.metrics.k8s.io"},
            "spec": {"group": "metrics.k8s.io", "version": "v1beta1", "groupPriorityMinimum": 100,
                     "versionPriority": 100, "insecureSkipTLSVerify": true,
                     "service": {"namespace": "kube-system", "name": "metrics-server"}}}),
    );
    env.kubectl(&["create", "namespace", "doomed"]).unwrap();
    env.kubectl(&["create", "configmap", "x", "-n", "doomed"])
        .unwrap();
    // The aggregator marks the APIService unavailable within a few seconds.
    wait_for(30, "the APIService unavailable", || {
        let a = get_json(env, &["apiservice", "v1beta1.metrics.k8s.io"]);
        a.pointer("/status/conditions/0/status") == Some(&json!("False"))
    });

    // Before: the content goes, the namespace stays.
    let p = predicted(env, "doomed");
    assert_eq!(state_of(&p, "ConfigMap/x"), "deleted", "{p:?}");
    assert_eq!(state_of(&p, "Namespace/doomed"), "terminating", "{p:?}");
    let before = why(env, "namespace/doomed", None);
    assert_eq!(before["state"], "exists");
    assert_eq!(before["namespace"]["outlook"], "stuck");

    env.kubectl(&["delete", "namespace", "doomed", "--wait=false"])
        .unwrap();
    wait_for(
        60,
        "the namespace controller's discovery-failure condition",
        || {
            condition_true(
                &get_json(env, &["namespace", "doomed"]),
                "NamespaceDeletionDiscoveryFailure",
            )
        },
    );
    // As predicted: content deleted, the namespace kept.
    assert!(!exists(env, &["configmap", "x", "-n", "doomed"]));
    assert!(exists(env, &["namespace", "doomed"]));
    let stuck = why(env, "namespace/doomed", None);
    assert_eq!(stuck["state"], "terminating");
    assert_eq!(stuck["namespace"]["outlook"], "stuck", "{stuck:#}");
    let b = &stuck["namespace"]["blockers"][0];
    assert_eq!(b["type"], "discovery-failure");
    assert_eq!(b["apiServices"][0]["name"], "v1beta1.metrics.k8s.io");
    assert_eq!(b["apiServices"][0]["service"], "kube-system/metrics-server");
    assert_eq!(b["apiServices"][0]["available"]["status"], "False");
    assert_eq!(
        stuck["remedies"][0]["command"],
        "kubectl delete apiservice v1beta1.metrics.k8s.io"
    );
    let (_, audit, _) = kgc(env, &["audit", "-A", "-o", "json"]);
    let audit: Value = serde_json::from_str(&audit).unwrap();
    assert!(
        audit["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "GC023" && f["object"]["name"] == "doomed"),
        "{audit:#}"
    );

    // The remedy `why` gave: the namespace controller finishes on its next retry.
    env.kubectl(&["delete", "apiservice", "v1beta1.metrics.k8s.io"])
        .unwrap();
    wait_for(120, "the namespace gone once discovery works", || {
        !exists(env, &["namespace", "doomed"])
    });
    let (code, _, err) = kgc(env, &["why", "namespace/doomed"]);
    assert_eq!(code, 8, "{err}");
}

fn content_held(ctx: &Ctx) {
    let env = &ctx.env;
    env.kubectl(&["create", "namespace", "held"]).unwrap();
    apply(
        env,
        &json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "keep", "namespace": "held", "finalizers": ["example.com/hold"]}}),
    );
    env.kubectl(&["create", "configmap", "free", "-n", "held"])
        .unwrap();
    let p = predicted(env, "held");
    assert_eq!(state_of(&p, "ConfigMap/free"), "deleted", "{p:?}");
    assert_eq!(state_of(&p, "ConfigMap/keep"), "terminating", "{p:?}");
    assert_eq!(state_of(&p, "Namespace/held"), "terminating", "{p:?}");

    env.kubectl(&["delete", "namespace", "held", "--wait=false"])
        .unwrap();
    wait_for(60, "the held ConfigMap terminating", || {
        get_json(env, &["configmap", "keep", "-n", "held"])
            .pointer("/metadata/deletionTimestamp")
            .is_some()
    });
    assert!(!exists(env, &["configmap", "free", "-n", "held"]));
    let ns = why(env, "namespace/held", None);
    assert_eq!(ns["namespace"]["outlook"], "waiting", "{ns:#}");
    assert!(blocker_types(&ns).contains(&"content-held".to_owned()));
    // The held object: who set its finalizer, read from managedFields.
    let cm = why(env, "configmap/keep", Some("held"));
    let f = &cm["finalizers"][0];
    assert_eq!(f["name"], "example.com/hold");
    assert_eq!(f["ownerKind"], "unknown");
    assert!(
        f["setBy"].as_array().is_some_and(|m| !m.is_empty()),
        "the live read names the field manager: {f}"
    );
    assert!(cm.get("unknowns").is_none(), "{cm:#}");

    // Released: the namespace finishes.
    env.kubectl(&[
        "patch",
        "configmap",
        "keep",
        "-n",
        "held",
        "--type=json",
        "-p",
        r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
    ])
    .unwrap();
    wait_for(
        90,
        "the namespace gone once its content is released",
        || !exists(env, &["namespace", "held"]),
    );
}

fn foreground_two_levels(ctx: &Ctx) {
    let env = &ctx.env;
    env.kubectl(&["create", "namespace", "fg"]).unwrap();
    env.kubectl(&["create", "configmap", "top", "-n", "fg"])
        .unwrap();
    let uid = |name: &str| {
        env.kubectl(&[
            "get",
            "configmap",
            name,
            "-n",
            "fg",
            "-o",
            "jsonpath={.metadata.uid}",
        ])
        .unwrap()
    };
    let child = |name: &str, owner: &str, finalizers: Value| {
        apply(
            env,
            &json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": "fg", "finalizers": finalizers,
                    "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": owner,
                        "uid": uid(owner), "blockOwnerDeletion": true}]}}),
        );
    };
    child("middle", "top", json!([]));
    child("bottom", "middle", json!(["example.com/hold"]));
    env.kubectl(&[
        "delete",
        "configmap",
        "top",
        "-n",
        "fg",
        "--cascade=foreground",
        "--wait=false",
    ])
    .unwrap();
    wait_for(60, "the bottom ConfigMap terminating", || {
        get_json(env, &["configmap", "bottom", "-n", "fg"])
            .pointer("/metadata/deletionTimestamp")
            .is_some()
    });
    let top = why(env, "configmap/top", Some("fg"));
    let fg = &top["finalizers"][0];
    assert_eq!(fg["name"], "foregroundDeletion");
    assert_eq!(fg["holds"], "yes");
    assert_eq!(fg["waitingFor"][0]["name"], "middle");
    assert!(
        fg["detail"]
            .as_str()
            .unwrap()
            .contains("ConfigMap/bottom -n fg"),
        "{fg}"
    );
    assert_eq!(
        top["remedies"][0]["command"],
        "kubectl gc why configmaps/bottom -n fg"
    );
    let bottom = why(env, "configmap/bottom", Some("fg"));
    assert_eq!(bottom["gc"]["blocks"][0]["name"], "middle");

    env.kubectl(&[
        "patch",
        "configmap",
        "bottom",
        "-n",
        "fg",
        "--type=json",
        "-p",
        r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
    ])
    .unwrap();
    wait_for(
        60,
        "the whole chain gone once the bottom is released",
        || {
            !exists(env, &["configmap", "top", "-n", "fg"])
                && !exists(env, &["configmap", "middle", "-n", "fg"])
        },
    );
}

fn foreign_spec_token(ctx: &Ctx) {
    let env = &ctx.env;
    apply(
        env,
        &json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "tenant"}, "spec": {"finalizers": ["kubernetes", "example.com/tenant"]}}),
    );
    env.kubectl(&["create", "configmap", "c", "-n", "tenant"])
        .unwrap();
    let p = predicted(env, "tenant");
    assert_eq!(state_of(&p, "ConfigMap/c"), "deleted", "{p:?}");
    assert_eq!(state_of(&p, "Namespace/tenant"), "terminating", "{p:?}");

    env.kubectl(&["delete", "namespace", "tenant", "--wait=false"])
        .unwrap();
    // The controller removes its own token and nothing else.
    wait_for(60, "the kubernetes token removed", || {
        get_json(env, &["namespace", "tenant"])
            .pointer("/spec/finalizers")
            .and_then(Value::as_array)
            .is_some_and(|f| f.len() == 1)
    });
    assert!(!exists(env, &["configmap", "c", "-n", "tenant"]));
    let d = why(env, "namespace/tenant", None);
    assert_eq!(d["namespace"]["outlook"], "stuck", "{d:#}");
    assert_eq!(blocker_types(&d)[0], "foreign-spec-finalizers");
    assert!(
        d["remedies"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| !r["command"].as_str().unwrap_or("").contains("/finalize")),
        "why never finalizes: {d:#}"
    );

    // Whoever owns the token finishes with /finalize; then the namespace goes.
    let mut ns = get_json(env, &["namespace", "tenant"]);
    ns["spec"]["finalizers"] = json!([]);
    env.kubectl_stdin(
        &[
            "replace",
            "--raw",
            "/api/v1/namespaces/tenant/finalize",
            "-f",
            "-",
        ],
        Some(&ns.to_string()),
    )
    .unwrap();
    wait_for(30, "the namespace gone after /finalize", || {
        !exists(env, &["namespace", "tenant"])
    });
}

fn claim_in_use(ctx: &Ctx) {
    let env = &ctx.env;
    env.kubectl(&["create", "namespace", "vol"]).unwrap();
    apply(
        env,
        &json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", "namespace": "vol"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
    );
    apply(
        env,
        &json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user", "namespace": "vol"},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "busybox"}],
                     "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}),
    );
    env.kubectl(&["delete", "pvc", "data", "-n", "vol", "--wait=false"])
        .unwrap();
    let d = why(env, "pvc/data", Some("vol"));
    let f = &d["finalizers"][0];
    assert_eq!(f["name"], "kubernetes.io/pvc-protection");
    assert_eq!(f["holds"], "yes", "{f}");
    assert!(f["detail"].as_str().unwrap().contains("user"), "{f}");
    // The pod goes (forced: no kubelet), the controller releases the claim, as why said.
    env.kubectl(&[
        "delete",
        "pod",
        "user",
        "-n",
        "vol",
        "--grace-period=0",
        "--force",
    ])
    .unwrap();
    wait_for(60, "the claim gone once no pod uses it", || {
        !exists(env, &["pvc", "data", "-n", "vol"])
    });
}

/// Issue 56 (W4): with a context that cannot list Secrets, an existing Secret is answered
/// unknown, with the refusal as the reason (exit 0) — never "not found" (exit 8), which the
/// same context still says of a ConfigMap it can list and that does not exist.
fn forbidden_kind(ctx: &Ctx) {
    let env = &ctx.env;
    env.kubectl(&["create", "namespace", "vault"]).unwrap();
    env.kubectl(&[
        "create",
        "secret",
        "generic",
        "api-token",
        "-n",
        "vault",
        "--from-literal=k=v",
    ])
    .unwrap();
    let (code, out, err) = kgc(
        env,
        &[
            "why",
            "secret/api-token",
            "-n",
            "vault",
            "--context",
            "viewer",
            "-o",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let d: Value = serde_json::from_str(&out).expect("why JSON");
    crate::support::schema::assert_valid("why.schema.json", &d, "why of a forbidden kind");
    assert_eq!(d["state"], "unknown", "{d}");
    assert_eq!(d["outcome"]["state"], "unknown");
    assert!(
        d["verdict"].as_str().unwrap().contains("forbidden"),
        "{}",
        d["verdict"]
    );
    let (code, _, err) = kgc(
        env,
        &[
            "why",
            "configmap/no-such-thing",
            "-n",
            "vault",
            "--context",
            "viewer",
        ],
    );
    assert_eq!(code, 8, "a kind it can list proves absence: {err}");
    // The admin context reads the Secret.
    let d = why(env, "secret/api-token", Some("vault"));
    assert_eq!(d["state"], "exists");
}
