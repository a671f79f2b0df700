//! `kubectl gc history` on real audit logs: a v1.20.2 API server writing its audit log at
//! Metadata level (one suite) and at Request level (another), kube-controller-manager running
//! the GC and the namespace controller under their own service accounts, as real clusters do.
//!
//! Scenarios with known causes, each in its own namespace: an owner deleted by a user in the
//! background, in the foreground and with orphan; an owner that never existed, a cross-namespace
//! owner, an owner recreated under its name, a reference whose name does not match its UID's
//! object (GC003), and a dependent created pointing at the UID of an owner deleted and created
//! again before it (found at a GC start: the dependents are made while the GC is stopped, a
//! snapshot records them, then the GC starts); a namespace deleted with content, another with
//! `--cascade=orphan`; a custom resource dependent. The newcomer report's N3, N4, N5 and NM2
//! reproduce here. `history` must name each cause and root, from the
//! log as written and from the same events converted to the EKS, GKE, AKS, webhook and
//! must-gather shapes.

use crate::harness::{Suite, Test};
use crate::testenv::TestEnv;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Ctx {
    env: RefCell<TestEnv>,
    /// The snapshot taken while the GC was stopped.
    snapshot: std::path::PathBuf,
    level: &'static str,
}

fn setup(level: &'static str) -> Result<Ctx, String> {
    let env = TestEnv::start_audited(level)?;
    let snapshot = env.dir.join("before.ndjson");
    let ctx = Ctx {
        env: RefCell::new(env),
        snapshot,
        level,
    };
    scenarios(&ctx);
    Ok(ctx)
}

pub const METADATA: Suite<Ctx> = Suite {
    name: "history_metadata",
    setup: || setup("Metadata"),
    tests: TESTS,
};

pub const REQUEST: Suite<Ctx> = Suite {
    name: "history_request",
    setup: || setup("Request"),
    tests: TESTS,
};

const TESTS: &[Test<Ctx>] = &[
    Test {
        name: "every_cause_and_root_from_the_log",
        needs: &[],
        run: |ctx| check_causes(ctx, &log_path(ctx)),
    },
    Test {
        name: "every_format_gives_the_same_history",
        needs: &["every_cause_and_root_from_the_log"],
        run: every_format,
    },
    Test {
        name: "after_cluster_says_what_became_of_each_object",
        needs: &["every_cause_and_root_from_the_log"],
        run: after_cluster,
    },
    Test {
        name: "why_explains_an_object_that_is_gone",
        needs: &["every_cause_and_root_from_the_log"],
        run: why_gone,
    },
];

const NAMESPACE_CONTROLLER: &str = "system:serviceaccount:kube-system:namespace-controller";

fn log_path(ctx: &Ctx) -> String {
    ctx.env
        .borrow()
        .audit_log
        .clone()
        .expect("an audited plane")
        .to_string_lossy()
        .into_owned()
}

fn kgc(env: &TestEnv, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", &env.kubeconfig)
        .output()
        .expect("run kubectl-gc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn apply(env: &TestEnv, doc: &Value) {
    env.kubectl_stdin(&["apply", "-f", "-"], Some(&doc.to_string()))
        .expect("kubectl apply");
}

fn uid(env: &TestEnv, what: &str, ns: &str) -> String {
    env.kubectl(&["get", what, "-n", ns, "-o", "jsonpath={.metadata.uid}"])
        .expect("uid")
}

fn cm(ns: &str, name: &str, owners: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"namespace": ns, "name": name, "ownerReferences": owners}})
}

fn owner(name: &str, uid: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid})
}

fn gone(env: &TestEnv, what: &str, ns: &str) -> bool {
    env.kubectl(&["get", what, "-n", ns, "-o", "name", "--ignore-not-found"])
        .expect("kubectl get")
        .trim()
        .is_empty()
}

fn wait_for(secs: u64, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "timed out after {secs}s: {what}");
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// Runs every scenario against the cluster; the tests then read the log. Everything is made
/// while no GC runs and recorded in a snapshot (the state before); then the GC starts (and
/// deletes what it finds dangling) and a user deletes the owners and a namespace.
fn scenarios(ctx: &Ctx) {
    let mut env = ctx.env.borrow_mut();
    for ns in ["bg", "fg", "or", "start", "other", "doomed", "crd", "orph"] {
        env.kubectl(&["create", "namespace", ns]).unwrap();
    }
    env.kubectl(&["create", "configmap", "far", "-n", "other"])
        .unwrap();
    let far = uid(&env, "configmap/far", "other");
    env.kubectl(&["create", "configmap", "renamed", "-n", "start"])
        .unwrap();
    apply(
        &env,
        &cm(
            "start",
            "dangling",
            json!([owner("ghost", "00000000-0000-4000-8000-00000000dead")]),
        ),
    );
    apply(&env, &cm("start", "crossns", json!([owner("far", &far)])));
    apply(
        &env,
        &cm(
            "start",
            "stale",
            json!([owner("renamed", "00000000-0000-4000-8000-0000000001d0")]),
        ),
    );
    // GC003: the reference names `localowner-old` with `localowner`'s UID, in one namespace.
    env.kubectl(&["create", "configmap", "localowner", "-n", "start"])
        .unwrap();
    let local = uid(&env, "configmap/localowner", "start");
    apply(
        &env,
        &cm("start", "inplace", json!([owner("localowner-old", &local)])),
    );
    // N5: `parent` deleted and created again, then `child-stale` made with the old UID.
    env.kubectl(&["create", "configmap", "parent", "-n", "start"])
        .unwrap();
    let old = uid(&env, "configmap/parent", "start");
    env.kubectl(&["delete", "configmap", "parent", "-n", "start"])
        .unwrap();
    env.kubectl(&["create", "configmap", "parent", "-n", "start"])
        .unwrap();
    apply(
        &env,
        &cm("start", "child-stale", json!([owner("parent", &old)])),
    );
    for ns in ["bg", "fg", "or"] {
        env.kubectl(&["create", "configmap", "owner", "-n", ns])
            .unwrap();
        let u = uid(&env, "configmap/owner", ns);
        apply(&env, &cm(ns, "dep", json!([owner("owner", &u)])));
    }
    apply(
        &env,
        &json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}}),
    );
    wait_for(30, "the Widget CRD served", || {
        env.kubectl(&["get", "widgets", "-n", "crd"]).is_ok()
    });
    env.kubectl(&["create", "configmap", "owner", "-n", "crd"])
        .unwrap();
    let u = uid(&env, "configmap/owner", "crd");
    apply(
        &env,
        &json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"namespace": "crd", "name": "w", "ownerReferences": [owner("owner", &u)]}}),
    );
    env.kubectl(&["create", "configmap", "c", "-n", "doomed"])
        .unwrap();
    env.kubectl(&["create", "configmap", "c1", "-n", "orph"])
        .unwrap();
    let (code, _, err) = kgc(
        &env,
        &["snapshot", "-A", "-o", ctx.snapshot.to_str().unwrap()],
    );
    assert_eq!(code, 0, "snapshot: {err}");

    // The GC starts: it deletes what it finds dangling.
    env.start_controllers(&["garbagecollector", "namespace"])
        .expect("start the GC");
    for d in ["dangling", "crossns", "stale", "inplace", "child-stale"] {
        wait_for(60, &format!("the GC deletes start/{d}"), || {
            gone(&env, &format!("configmap/{d}"), "start")
        });
    }
    // A user deletes the owners, with each policy, and a namespace with content.
    for (ns, cascade) in [("bg", "background"), ("fg", "foreground"), ("or", "orphan")] {
        env.kubectl(&[
            "delete",
            "configmap",
            "owner",
            "-n",
            ns,
            &format!("--cascade={cascade}"),
        ])
        .unwrap();
    }
    env.kubectl(&["delete", "configmap", "owner", "-n", "crd"])
        .unwrap();
    env.kubectl(&["delete", "namespace", "doomed"]).unwrap();
    // N3: a namespace deleted with orphan.
    env.kubectl(&["delete", "namespace", "orph", "--cascade=orphan"])
        .unwrap();
    wait_for(60, "bg/dep deleted", || gone(&env, "configmap/dep", "bg"));
    wait_for(60, "fg/dep deleted", || gone(&env, "configmap/dep", "fg"));
    wait_for(60, "or/owner deleted", || {
        gone(&env, "configmap/owner", "or")
    });
    wait_for(60, "the Widget deleted", || gone(&env, "widget/w", "crd"));
    wait_for(60, "namespace orph gone", || {
        gone(&env, "namespace/orph", "")
    });
    // The log is written asynchronously (batched): give it a moment.
    std::thread::sleep(Duration::from_secs(2));
}

fn history(env: &TestEnv, log: &str, extra: &[&str]) -> Value {
    let mut args = vec!["history", "--audit-log", log, "-o", "json"];
    args.extend_from_slice(extra);
    let (code, out, err) = kgc(env, &args);
    assert_eq!(code, 0, "history {args:?}: {err}");
    let doc: Value = serde_json::from_str(&out).expect("history JSON");
    crate::support::schema::assert_valid("history.schema.json", &doc, "live history");
    doc
}

/// The item of `action` on `resource/name` in `ns` by the GC or the namespace controller.
fn find<'v>(h: &'v Value, action: &str, resource: &str, ns: &str, name: &str) -> &'v Value {
    h["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| {
            i["action"] == action
                // A namespace's content is one row naming its resources.
                && (i["object"]["resource"] == resource
                    || i["resources"]
                        .as_array()
                        .is_some_and(|r| r.iter().any(|x| x == resource)))
                && i["object"]["namespace"].as_str().unwrap_or("") == ns
                && i["object"]["name"] == name
                && matches!(
                    i["actor"]["kind"].as_str(),
                    Some("garbage-collector" | "namespace-controller")
                )
        })
        .unwrap_or_else(|| panic!("no {action} of {resource}/{name} -n {ns} in {h:#}"))
}

fn check_causes(ctx: &Ctx, log: &str) {
    let env = ctx.env.borrow();
    let snap = ctx.snapshot.to_str().unwrap();
    let h = history(&env, log, &["--snapshot", snap]);
    let cause = |action, resource, ns, name| find(&h, action, resource, ns, name)["cause"].clone();
    let root_is_user_delete_of = |c: &Value, ns: &str, name: &str| {
        assert_eq!(c["root"]["user"], "admin", "{c:#}");
        assert_eq!(c["root"]["action"], "delete", "{c:#}");
        assert_eq!(c["root"]["object"]["namespace"], ns, "{c:#}");
        assert_eq!(c["root"]["object"]["name"], name, "{c:#}");
    };
    // Background.
    let c = cause("delete", "configmaps", "bg", "dep");
    assert_eq!(c["type"], "owner-deleted", "{c:#}");
    assert_eq!(c["policy"], "Background", "{c:#}");
    root_is_user_delete_of(&c, "bg", "owner");
    // Foreground: the dependent, then the owner's finalizer, or (the dependent does not block
    // the owner's deletion) the finalizer first and then the dependent, still linked. Where
    // the log holds no request bodies (Metadata level) the policy is inferred from what the GC
    // did; either order proves Foreground. The Request level reads it.
    let c = cause("delete", "configmaps", "fg", "dep");
    assert_eq!(
        (c["type"].as_str(), c["policy"].as_str()),
        (Some("owner-deleted"), Some("Foreground")),
        "{c:#}"
    );
    let c = cause("remove-finalizer", "configmaps", "fg", "owner");
    assert_eq!(
        (c["type"].as_str(), c["policy"].as_str()),
        (Some("foreground-finished"), Some("Foreground")),
        "{c:#}"
    );
    root_is_user_delete_of(&c, "fg", "owner");
    // Orphan: the dependent's reference, then the owner's finalizer.
    let c = cause("remove-owner-references", "configmaps", "or", "dep");
    assert_eq!(
        (c["type"].as_str(), c["policy"].as_str()),
        (Some("orphaned"), Some("Orphan")),
        "{c:#}"
    );
    root_is_user_delete_of(&c, "or", "owner");
    let c = cause("remove-finalizer", "configmaps", "or", "owner");
    assert_eq!(c["type"], "orphaned", "{c:#}");
    // Found at a GC start, explained by the snapshot before.
    assert_eq!(
        cause("delete", "configmaps", "start", "dangling")["type"],
        "dangling-owner"
    );
    // N4: the cross-namespace owner is named where it lives.
    let c = cause("delete", "configmaps", "start", "crossns");
    assert_eq!(
        (c["type"].as_str(), c["code"].as_str()),
        (Some("cross-namespace-owner"), Some("GC004")),
        "{c:#}"
    );
    assert_eq!(
        (
            c["owner"]["namespace"].as_str(),
            c["owner"]["name"].as_str()
        ),
        (Some("other"), Some("far")),
        "{c:#}"
    );
    assert_eq!(
        cause("delete", "configmaps", "start", "stale")["type"],
        "owner-uid-mismatch"
    );
    // NM2: a name that does not match its UID's object, in one namespace, is GC003.
    let c = cause("delete", "configmaps", "start", "inplace");
    assert_eq!(
        (c["type"].as_str(), c["code"].as_str()),
        (Some("owner-coordinates-mismatch"), Some("GC003")),
        "{c:#}"
    );
    assert_eq!(c["owner"]["name"], "localowner", "{c:#}");
    // N5: the deletion of `parent` came before `child-stale` existed: a stale UID, no root.
    let c = cause("delete", "configmaps", "start", "child-stale");
    assert_eq!(c["type"], "owner-uid-mismatch", "{c:#}");
    assert!(c.get("root").is_none(), "{c:#}");
    // N3: the namespace deleted with orphan is never Foreground; at Request level the
    // request's policy is read.
    let c = cause("remove-finalizer", "namespaces", "", "orph");
    assert_ne!(c["policy"], "Foreground", "{c:#}");
    if ctx.level == "Metadata" {
        assert_eq!(
            (c["type"].as_str(), c["policy"].as_str()),
            (Some("deletion-finished"), Some("unknown")),
            "{c:#}"
        );
    } else {
        assert_eq!(
            (
                c["type"].as_str(),
                c["policy"].as_str(),
                c["policyInferred"].as_bool()
            ),
            (Some("orphaned"), Some("Orphan"), Some(false)),
            "{c:#}"
        );
    }
    assert_eq!(
        (
            c["root"]["user"].as_str(),
            c["root"]["object"]["name"].as_str()
        ),
        (Some("admin"), Some("orph")),
        "{c:#}"
    );
    for it in h["items"].as_array().unwrap().iter().filter(|i| {
        i["actor"]["kind"] == "namespace-controller" && i["object"]["namespace"] == "orph"
    }) {
        assert_ne!(it["cause"]["policy"], "Foreground", "{it:#}");
    }
    // A custom resource dependent.
    let c = cause("delete", "widgets", "crd", "w");
    assert_eq!(c["type"], "owner-deleted", "{c:#}");
    root_is_user_delete_of(&c, "crd", "owner");
    // The namespace controller, from the user's namespace deletion.
    let c = cause("delete-collection", "configmaps", "doomed", "");
    assert_eq!(c["type"], "namespace-deleted", "{c:#}");
    assert_eq!(c["root"]["object"]["name"], "doomed");
    assert_eq!(c["root"]["user"], "admin");
    assert_eq!(h["summary"]["unexplained"], 0, "{:#}", h["summary"]);
    assert_eq!(h["summary"]["gcSeen"], true);
    // --actor gc keeps the GC's only.
    let gc = history(&env, log, &["--snapshot", snap, "--actor", "gc"]);
    assert!(
        gc["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["actor"]["kind"] == "garbage-collector")
    );
}

fn every_format(ctx: &Ctx) {
    use kubectl_gc::source::audit::convert;
    let env = ctx.env.borrow();
    let log = std::fs::read_to_string(log_path(ctx)).expect("read the audit log");
    let dir = env.dir.join("formats");
    std::fs::create_dir_all(dir.join("must-gather/audit_logs/kube-apiserver")).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_string_lossy().into_owned()
    };
    let plain = history(
        &env,
        &log_path(ctx),
        &["--snapshot", ctx.snapshot.to_str().unwrap()],
    );
    let shapes = [
        write("eks.json", convert::to_eks(&log).as_bytes()),
        write("gke.json", convert::to_gke(&log).as_bytes()),
        write("aks.json", convert::to_aks(&log).as_bytes()),
        write("webhook.json", convert::to_event_list(&log).as_bytes()),
        write(
            "must-gather/audit_logs/kube-apiserver/node-1-audit.log.gz",
            &convert::gzip(log.as_bytes()),
        ),
    ];
    for (i, path) in shapes.iter().enumerate() {
        let target = if i == 4 {
            dir.join("must-gather").to_string_lossy().into_owned()
        } else {
            path.clone()
        };
        let h = history(
            &env,
            &target,
            &["--snapshot", ctx.snapshot.to_str().unwrap()],
        );
        let key = |h: &Value| -> Vec<(String, String, String, String)> {
            h["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| {
                    (
                        i["action"].as_str().unwrap_or("").to_owned(),
                        i["object"]["name"].as_str().unwrap_or("").to_owned(),
                        i["actor"]["kind"].as_str().unwrap_or("").to_owned(),
                        i["cause"]["type"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        };
        assert_eq!(key(&h), key(&plain), "{target}: same actions and causes");
    }
}

fn why_gone(ctx: &Ctx) {
    let env = ctx.env.borrow();
    // The live cluster no longer has bg/dep: the log answers who deleted it and when.
    let (code, out, err) = kgc(
        &env,
        &[
            "why",
            "configmap/dep",
            "-n",
            "bg",
            "--audit-log",
            &log_path(ctx),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("deleted at"), "{out}");
    assert!(out.contains("by the garbage collector"), "{out}");
    // At Metadata level nothing shows its owners; at Request level its create request's body
    // does.
    if ctx.level == "Metadata" {
        assert!(out.contains("cause: unknown"), "{out}");
    } else {
        assert!(out.contains("cause: owner-deleted"), "{out}");
        assert!(
            out.contains("chain started by: delete ConfigMap/owner -n bg by admin"),
            "{out}"
        );
    }
    // An object the log never deleted: not found, exit 8, and the log is said to be silent.
    let (code, _, err) = kgc(
        &env,
        &[
            "why",
            "configmap/never",
            "-n",
            "bg",
            "--audit-log",
            &log_path(ctx),
        ],
    );
    assert_eq!(code, 8, "{err}");
    assert!(err.contains("no deletion of it either"), "{err}");
}

/// `--after cluster`: the cluster now as the state after the log. What became of each object;
/// and, with the snapshot before, what went without a deletion of its own in the log — the
/// content of namespace `doomed`, which the namespace controller's `deletecollection` removed
/// without naming it.
fn after_cluster(ctx: &Ctx) {
    let env = ctx.env.borrow();
    wait_for(60, "namespace doomed gone", || {
        gone(&env, "namespace/doomed", "")
    });
    std::thread::sleep(Duration::from_secs(2));
    let snap = ctx.snapshot.to_str().unwrap();
    let h = history(
        &env,
        &log_path(ctx),
        &["--snapshot", snap, "--after", "cluster"],
    );
    let fate = |action, ns, name| find(&h, action, "configmaps", ns, name)["after"].clone();
    assert_eq!(fate("delete", "bg", "dep"), "gone");
    assert_eq!(fate("delete", "start", "crossns"), "gone");
    // Orphaned: the GC removed its reference, and it is still there.
    assert_eq!(fate("remove-owner-references", "or", "dep"), "present");
    let unlogged = h["unlogged"].as_array().unwrap();
    let c = unlogged
        .iter()
        .find(|u| u["object"]["namespace"] == "doomed" && u["object"]["name"] == "c")
        .unwrap_or_else(|| panic!("doomed/c not listed as unlogged: {unlogged:#?}"));
    assert_eq!(c["collection"]["action"], "delete-collection", "{c:#}");
    assert_eq!(c["collection"]["user"], NAMESPACE_CONTROLLER, "{c:#}");
    // The collection deletion itself lists what it took of the state before, confirmed by
    // the state after.
    let coll = find(&h, "delete-collection", "configmaps", "doomed", "");
    let taken: Vec<(&str, &str)> = coll["taken"]
        .as_array()
        .unwrap_or_else(|| panic!("no taken: {coll:#}"))
        .iter()
        .map(|t| {
            (
                t["object"]["name"].as_str().unwrap_or(""),
                t["sure"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(taken.contains(&("c", "confirmed")), "{coll:#}");
    // Every object listed went with a collection of the log: none in a gap.
    assert!(
        unlogged.iter().all(|u| u.get("collection").is_some()),
        "{unlogged:#?}"
    );
    assert_eq!(h["summary"]["unexplained"], 0, "{:#}", h["summary"]);
}
