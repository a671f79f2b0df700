//! Every kind of remedy, tried on a real v1.20.2 control plane: each kind of broken reference
//! is created while kube-controller-manager is down, the command `why -o json` or
//! `audit -o json` prints for it is run as a user would paste it (`bash -c`), then the garbage
//! collector and the namespace controller start, and the cluster must do what the remedy said:
//! the object kept, or re-pointed and then collected with its real owner. A control copy of
//! each break, left alone, must be deleted — so each break was real.
//!
//! Breaks: an owner in another namespace, an absent owner, a stale UID (the owner recreated),
//! a reference with a kind the API does not serve, a cluster-scoped dependent of a namespaced
//! owner, an object already terminating, and a finalizer set by a client (`kubectl apply`).

use crate::harness::{Suite, Test};
use crate::testenv::TestEnv;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Ctx {
    env: RefCell<TestEnv>,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "remedy",
    setup: || {
        Ok(Ctx {
            env: RefCell::new(TestEnv::start(false)?),
        })
    },
    tests: &[
        Test {
            name: "each_break_gets_a_remedy_that_runs_on_the_object_carrying_it",
            needs: &[],
            run: remedies_run,
        },
        Test {
            name: "the_gc_then_does_what_each_remedy_said",
            needs: &["each_break_gets_a_remedy_that_runs_on_the_object_carrying_it"],
            run: gc_agrees,
        },
        Test {
            name: "a_finalizer_set_by_kubectl_is_a_clients_and_its_last_resort_works",
            needs: &["the_gc_then_does_what_each_remedy_said"],
            run: client_finalizer,
        },
    ],
};

/// The UID of a reference whose owner never existed here (or was recreated since).
const GONE_UID: &str = "0d3b8f0e-5a8c-4f7e-9b1a-4c1f00000001";

fn kgc(env: &TestEnv, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(args)
        .args(["-o", "json", "--kubeconfig"])
        .arg(&env.kubeconfig)
        .env("NO_COLOR", "1")
        .output()
        .expect("run kubectl-gc");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "kubectl-gc {args:?}: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The remedies `why` gives for `target` in namespace `ns`.
fn why_remedies(env: &TestEnv, target: &str, ns: &str) -> Vec<Value> {
    let doc = kgc(env, &["why", target, "-n", ns]);
    crate::support::schema::assert_valid("why.schema.json", &doc, "live why");
    doc["remedies"].as_array().cloned().unwrap_or_default()
}

/// The first command among `remedies`.
fn first_command(remedies: &[Value]) -> String {
    remedies
        .iter()
        .find_map(|r| r["command"].as_str())
        .unwrap_or_else(|| panic!("no command in {remedies:?}"))
        .to_owned()
}

/// Runs a printed remedy as a user pastes it into a shell.
fn run(env: &TestEnv, command: &str) {
    let out = Command::new("bash")
        .args(["-c", command])
        .env("KUBECONFIG", &env.kubeconfig)
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn apply(env: &TestEnv, doc: &Value) {
    env.kubectl_stdin(&["apply", "-f", "-"], Some(&doc.to_string()))
        .expect("kubectl apply");
}

fn get(env: &TestEnv, args: &[&str]) -> Option<Value> {
    let out = env
        .kubectl(&[&["get"], args, &["-o", "json", "--ignore-not-found"]].concat())
        .expect("kubectl get");
    (!out.trim().is_empty()).then(|| serde_json::from_str(&out).expect("kubectl JSON"))
}

fn secret(env: &TestEnv, name: &str) -> Option<Value> {
    get(env, &["secret", name, "-n", "rem-b"])
}

fn uid(env: &TestEnv, args: &[&str]) -> String {
    get(env, args).expect("object")["metadata"]["uid"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn wait_for(secs: u64, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "timed out after {secs}s: {what}");
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// A Secret in `rem-b` with one ownerReference.
fn dependent(env: &TestEnv, name: &str, kind: &str, owner: &str, uid: &str) {
    apply(
        env,
        &json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": name, "namespace": "rem-b",
                "ownerReferences": [{"apiVersion": "v1", "kind": kind, "name": owner, "uid": uid}]}}),
    );
}

/// The audit finding with `code` on the object named `name`.
fn finding<'a>(audit: &'a Value, code: &str, name: &str) -> &'a Value {
    audit["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == code && f["object"]["name"] == name)
        .unwrap_or_else(|| panic!("no {code} on {name}: {audit}"))
}

fn remedies_run(ctx: &Ctx) {
    let env = &*ctx.env.borrow();
    for ns in ["rem-a", "rem-b"] {
        env.kubectl(&["create", "namespace", ns]).unwrap();
    }
    env.kubectl(&["create", "configmap", "owner", "-n", "rem-a"])
        .unwrap();
    env.kubectl(&["create", "configmap", "web", "-n", "rem-b"])
        .unwrap();
    let owner_uid = uid(env, &["configmap", "owner", "-n", "rem-a"]);
    let web_uid = uid(env, &["configmap", "web", "-n", "rem-b"]);
    for suffix in ["", "-control"] {
        dependent(
            env,
            &format!("xns{suffix}"),
            "ConfigMap",
            "owner",
            &owner_uid,
        );
        dependent(
            env,
            &format!("absent{suffix}"),
            "ConfigMap",
            "gone",
            GONE_UID,
        );
        dependent(env, &format!("stale{suffix}"), "ConfigMap", "web", GONE_UID);
    }
    dependent(env, "wrongkind", "ConfigMapp", "web", &web_uid);
    apply(
        env,
        &json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "rem-scope", "ownerReferences": [
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "web", "uid": web_uid}]}}),
    );
    apply(
        env,
        &json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "held", "namespace": "rem-b", "finalizers": ["example.com/hold"],
                "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "gone",
                    "uid": GONE_UID}]}}),
    );
    env.kubectl(&["delete", "secret", "held", "-n", "rem-b", "--wait=false"])
        .unwrap();

    let audit = kgc(env, &["audit", "-A"]);
    // Cross-namespace owner: audit and why agree, and the fix is on the Secret, never a UID.
    let xns = finding(&audit, "GC004", "xns");
    let cmd = xns["fixes"][0]["command"].as_str().unwrap().to_owned();
    assert_eq!(xns["remedies"][0], cmd);
    assert!(
        cmd.starts_with("kubectl patch secrets/xns -n rem-b "),
        "{cmd}"
    );
    assert!(!cmd.contains(r#""path":"/metadata/ownerReferences/0/uid","value":"0d3b"#));
    let why_xns = why_remedies(env, "secret/xns", "rem-b");
    assert_eq!(first_command(&why_xns), cmd);
    assert!(
        why_xns
            .iter()
            .all(|r| !r["note"].as_str().unwrap().contains("current owner's UID")),
        "{why_xns:?}"
    );
    run(env, &cmd);
    // Absent owner: remove the reference (recreating needs the owner first).
    let absent = why_remedies(env, "secret/absent", "rem-b");
    let cmd = first_command(&absent);
    assert!(cmd.contains(r#"{"op":"remove","path":"/metadata/ownerReferences/0"}"#));
    assert!(
        absent
            .iter()
            .any(|r| r["note"].as_str().unwrap().contains("relink"))
    );
    run(env, &cmd);
    // Stale UID: re-point at the current owner's UID, guarded by the old one.
    let cmd = first_command(&why_remedies(env, "secret/stale", "rem-b"));
    assert!(cmd.contains(&format!(
        r#""op":"test","path":"/metadata/ownerReferences/0/uid","value":"{GONE_UID}""#
    )));
    assert!(cmd.contains(&format!(
        r#""op":"replace","path":"/metadata/ownerReferences/0/uid","value":"{web_uid}""#
    )));
    run(env, &cmd);
    // Wrong kind: the reference fixed to name the object whose UID it holds.
    let cmd = finding(&audit, "GC006", "wrongkind")["fixes"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(cmd.contains(r#""path":"/metadata/ownerReferences/0/kind","value":"ConfigMap""#));
    run(env, &cmd);
    // Cluster-scoped dependent of a namespaced owner: remove.
    let cmd = finding(&audit, "GC005", "rem-scope")["fixes"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(cmd.starts_with("kubectl patch clusterroles.rbac.authorization.k8s.io/rem-scope "));
    run(env, &cmd);
    // Already terminating: no reference surgery; the finalizer's removal comes last, once.
    let held = why_remedies(env, "secret/held", "rem-b");
    let commands: Vec<&str> = held.iter().filter_map(|r| r["command"].as_str()).collect();
    assert!(
        commands.iter().all(|c| !c.contains("ownerReferences")),
        "{held:?}"
    );
    assert!(held.iter().any(|r| {
        r["note"]
            .as_str()
            .unwrap()
            .contains("already being deleted")
    }));
    assert_eq!(
        commands
            .iter()
            .filter(|c| c.contains("/metadata/finalizers"))
            .count(),
        1
    );
    let last = held.last().unwrap()["command"].as_str().unwrap();
    assert!(last.contains("example.com/hold"), "{held:?}");
    run(env, last);
    assert!(
        secret(env, "held").is_none(),
        "the finalizer's removal finishes it"
    );
}

fn gc_agrees(ctx: &Ctx) {
    ctx.env
        .borrow_mut()
        .start_controllers(&["garbagecollector", "namespace"])
        .expect("kube-controller-manager");
    let env = &*ctx.env.borrow();
    wait_for(90, "the GC deletes the untreated control copies", || {
        ["xns-control", "absent-control", "stale-control"]
            .iter()
            .all(|n| secret(env, n).is_none())
    });
    let refs = |o: &Value| o["metadata"]["ownerReferences"].clone();
    for name in ["xns", "absent"] {
        let s = secret(env, name).unwrap_or_else(|| panic!("{name} deleted despite its remedy"));
        assert_eq!(refs(&s), Value::Null, "{name}");
    }
    let web_uid = uid(env, &["configmap", "web", "-n", "rem-b"]);
    assert_eq!(
        secret(env, "stale").expect("stale kept")["metadata"]["ownerReferences"][0]["uid"],
        web_uid
    );
    assert_eq!(
        secret(env, "wrongkind").expect("wrongkind kept")["metadata"]["ownerReferences"][0]["kind"],
        "ConfigMap"
    );
    let role = get(env, &["clusterrole", "rem-scope"]).expect("rem-scope kept");
    assert_eq!(refs(&role), Value::Null);
    // Re-pointed references are real now: the GC collects them with their owner.
    env.kubectl(&["delete", "configmap", "web", "-n", "rem-b"])
        .unwrap();
    wait_for(60, "the re-pointed dependents collected with web", || {
        secret(env, "stale").is_none() && secret(env, "wrongkind").is_none()
    });
    assert!(secret(env, "xns").is_some() && secret(env, "absent").is_some());
}

fn client_finalizer(ctx: &Ctx) {
    let env = &*ctx.env.borrow();
    // Client-side apply: the finalizer's field manager is kubectl-client-side-apply.
    apply(
        env,
        &json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "locked", "namespace": "rem-b",
                "finalizers": ["example.com/protect"]}}),
    );
    env.kubectl(&[
        "delete",
        "configmap",
        "locked",
        "-n",
        "rem-b",
        "--wait=false",
    ])
    .unwrap();
    let doc = kgc(env, &["why", "configmap/locked", "-n", "rem-b"]);
    let f = &doc["finalizers"][0];
    assert_eq!(f["name"], "example.com/protect");
    assert!(
        f["setBy"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == "kubectl-client-side-apply"),
        "{f}"
    );
    assert!(
        f["detail"].as_str().unwrap().contains("set by a client"),
        "{f}"
    );
    let remedies = doc["remedies"].as_array().unwrap();
    let notes: Vec<&str> = remedies
        .iter()
        .map(|r| r["note"].as_str().unwrap())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("nothing removes it unless a person or a pipeline does")),
        "{notes:?}"
    );
    assert!(
        notes.iter().all(|n| !n.contains("check that it runs")),
        "{notes:?}"
    );
    run(env, &first_command(&remedies[remedies.len() - 1..]));
    wait_for(
        30,
        "the ConfigMap gone once its finalizer is removed",
        || get(env, &["configmap", "locked", "-n", "rem-b"]).is_none(),
    );
}
