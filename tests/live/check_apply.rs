//! `kubectl gc check apply` against the real v1.20.2 GC: a source namespace exported with
//! `kubectl get -o json` (ownerReferences and their UIDs kept), deleted, then applied again to the
//! same cluster — every object created with a new UID. `check apply` predicts, object by
//! object, which of them the GC deletes; the real GC must delete exactly those. Restored the way
//! Velero does (references stripped), nothing is deleted; `relink --apply` then puts the links
//! back, and deleting an owner makes the real GC delete its relinked dependents.

use crate::harness::{Suite, Test};
use crate::testenv::TestEnv;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Ctx {
    env: TestEnv,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "check_apply",
    setup: || {
        let mut env = TestEnv::start(false)?;
        env.start_controllers(&["garbagecollector"])?;
        Ok(Ctx { env })
    },
    tests: &[
        Test {
            name: "an_export_reapplied_is_deleted_exactly_where_predicted",
            needs: &[],
            run: export_reapplied,
        },
        Test {
            name: "an_update_keeps_the_clusters_uid_and_takes_the_manifests_references",
            needs: &[],
            run: update_reapplied,
        },
        Test {
            name: "relink_restores_the_links_a_velero_restore_stripped",
            needs: &[],
            run: relink_after_restore,
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

fn names(env: &TestEnv, ns: &str) -> BTreeSet<String> {
    env.kubectl(&["get", "configmaps,secrets", "-n", ns, "-o", "name"])
        .unwrap()
        .lines()
        .filter(|l| !l.contains("kube-root-ca"))
        .map(str::to_owned)
        .collect()
}

fn export_reapplied(ctx: &Ctx) {
    let env = &ctx.env;
    env.kubectl(&["create", "namespace", "src"]).unwrap();
    env.kubectl(&["create", "configmap", "root", "-n", "src"])
        .unwrap();
    let root = env
        .kubectl(&[
            "get",
            "configmap",
            "root",
            "-n",
            "src",
            "-o",
            "jsonpath={.metadata.uid}",
        ])
        .unwrap();
    let owned = |kind: &str, name: &str| {
        json!({"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": "src",
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "root", "uid": root}]}})
    };
    for doc in [owned("ConfigMap", "child"), owned("Secret", "token")] {
        env.kubectl_stdin(&["apply", "-f", "-"], Some(&doc.to_string()))
            .unwrap();
    }
    env.kubectl(&["create", "configmap", "free", "-n", "src"])
        .unwrap();
    // The export, as people make it.
    let export = env
        .kubectl(&["get", "configmaps,secrets", "-n", "src", "-o", "json"])
        .unwrap();
    let mut doc: Value = serde_json::from_str(&export).unwrap();
    // Service-account tokens and the root CA are the cluster's own; leave them out, as a
    // careful exporter would.
    doc["items"].as_array_mut().unwrap().retain(|o| {
        let n = o["metadata"]["name"].as_str().unwrap_or("");
        !n.starts_with("default-token") && n != "kube-root-ca.crt"
    });
    let file = env.dir.join("export.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let file = file.to_string_lossy().into_owned();
    env.kubectl(&["delete", "namespace", "src", "--wait=false"])
        .unwrap();
    // No namespace controller here: remove the namespace's content by hand, then the namespace.
    env.kubectl(&["delete", "configmaps,secrets", "--all", "-n", "src"])
        .unwrap();
    env.kubectl_stdin(
        &["replace", "--raw", "/api/v1/namespaces/src/finalize", "-f", "-"],
        Some(&json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "src"}, "spec": {"finalizers": []}}).to_string()),
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while crate::probe::exists(env, &["namespace", "src"]) {
        assert!(Instant::now() < deadline, "namespace src not gone");
        std::thread::sleep(Duration::from_millis(300));
    }
    env.kubectl(&["create", "namespace", "src"]).unwrap();

    // Predict, against the live cluster.
    let (code, out, err) = kgc(env, &["check", "apply", "-f", &file, "-o", "json"]);
    assert!(code == 5 || code == 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let predicted: BTreeSet<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["consequence"]
                .as_str()
                .unwrap_or("")
                .contains("will delete")
        })
        .map(|f| {
            format!(
                "{}/{}",
                f["object"]["kind"].as_str().unwrap().to_ascii_lowercase(),
                f["object"]["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        predicted,
        ["configmap/child", "secret/token"].map(String::from).into(),
        "{report:#}"
    );
    // Velero's way: nothing is deleted.
    let (code, out, err) = kgc(
        env,
        &[
            "check",
            "apply",
            "-f",
            &file,
            "--restorer",
            "velero",
            "-o",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("will delete"), "{out}");

    // Apply it for real (creates: resourceVersion and uid must go, as kubectl create needs).
    for o in doc["items"].as_array_mut().unwrap() {
        let m = o["metadata"].as_object_mut().unwrap();
        for k in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "managedFields",
            "selfLink",
        ] {
            m.remove(k);
        }
    }
    env.kubectl_stdin(&["create", "-f", "-"], Some(&doc.to_string()))
        .unwrap();
    // The real GC deletes exactly what was predicted; the rest stays.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = names(env, "src");
        let deleted: BTreeSet<String> = [
            "configmap/child",
            "configmap/free",
            "configmap/root",
            "secret/token",
        ]
        .into_iter()
        .filter(|n| !left.contains(*n))
        .map(String::from)
        .collect();
        if deleted == predicted {
            // Stable for a few seconds: nothing else goes.
            std::thread::sleep(Duration::from_secs(3));
            assert_eq!(
                names(env, "src"),
                ["configmap/free", "configmap/root"]
                    .map(String::from)
                    .into()
            );
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the GC deleted {deleted:?}, predicted {predicted:?}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// Objects already in the cluster (applied with `kubectl apply`, so the next apply's three-way
/// merge replaces their references) whose manifests now carry other ownerReferences: `check
/// apply` treats them as updates — the cluster's UID kept, the manifest's references taken —
/// and its prediction must be what the real GC does once the manifests are applied.
///
/// * `kept`: no references in the cluster; the manifest adds one to `owner` with its current
///   UID — solid.
/// * `stale`: a solid reference in the cluster; the manifest replaces it with one to `prev`
///   under the UID `prev` had before it was recreated — deleted at once.
/// * `freed`: a solid reference in the cluster; the manifest has none — kept.
/// * `child-of-kept` (new): references `kept` by the cluster's UID, which the update keeps —
///   solid (it would be stale if the update were a create).
fn update_reapplied(ctx: &Ctx) {
    let env = &ctx.env;
    let ns = "upd";
    env.kubectl(&["create", "namespace", ns]).unwrap();
    let uid = |name: &str| {
        env.kubectl(&[
            "get",
            "configmap",
            name,
            "-n",
            ns,
            "-o",
            "jsonpath={.metadata.uid}",
        ])
        .unwrap()
    };
    let cm = |name: &str, owners: Value| {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": ns, "ownerReferences": owners}})
    };
    let to = |name: &str, uid: &str| json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid}]);
    let apply = |docs: &[Value]| {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": docs});
        env.kubectl_stdin(&["apply", "-f", "-"], Some(&list.to_string()))
            .unwrap();
    };
    env.kubectl(&["create", "configmap", "owner", "-n", ns])
        .unwrap();
    env.kubectl(&["create", "configmap", "prev", "-n", ns])
        .unwrap();
    let (owner, old_prev) = (uid("owner"), uid("prev"));
    env.kubectl(&["delete", "configmap", "prev", "-n", ns])
        .unwrap();
    env.kubectl(&["create", "configmap", "prev", "-n", ns])
        .unwrap();
    assert_ne!(uid("prev"), old_prev, "recreated");
    apply(&[
        cm("kept", json!([])),
        cm("stale", to("owner", &owner)),
        cm("freed", to("owner", &owner)),
    ]);
    let kept = uid("kept");
    let before: BTreeSet<String> = ["kept", "stale", "freed"]
        .iter()
        .map(|n| format!("{n}={}", uid(n)))
        .collect();

    // The manifests as they are now, without UIDs, as people write them.
    let manifests = [
        cm("kept", to("owner", &owner)),
        cm("stale", to("prev", &old_prev)),
        cm("freed", json!([])),
        cm("child-of-kept", to("kept", &kept)),
    ];
    let file = env.dir.join("update.json");
    std::fs::write(
        &file,
        json!({"apiVersion": "v1", "kind": "List", "items": manifests}).to_string(),
    )
    .unwrap();
    let (code, out, err) = kgc(
        env,
        &[
            "check",
            "apply",
            "-f",
            &file.to_string_lossy(),
            "-o",
            "json",
        ],
    );
    assert!(code == 5 || code == 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let predicted: BTreeSet<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["consequence"]
                .as_str()
                .unwrap_or("")
                .contains("will delete")
        })
        .map(|f| format!("configmap/{}", f["object"]["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        predicted,
        ["configmap/stale"].map(String::from).into(),
        "{report:#}"
    );
    // The updated objects are judged under the cluster's UIDs.
    for f in report["findings"].as_array().unwrap() {
        let name = f["object"]["name"].as_str().unwrap();
        let uid = f["object"]["uid"].as_str().unwrap();
        if name != "child-of-kept" {
            assert!(before.contains(&format!("{name}={uid}")), "{f:#}");
        }
    }

    // Apply them for real; the real GC deletes exactly what was predicted.
    apply(&manifests);
    assert_eq!(uid("kept"), kept, "an update keeps the UID");
    let all = [
        "configmap/child-of-kept",
        "configmap/freed",
        "configmap/kept",
        "configmap/owner",
        "configmap/prev",
        "configmap/stale",
    ];
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = names(env, ns);
        let deleted: BTreeSet<String> = all
            .into_iter()
            .filter(|n| !left.contains(*n))
            .map(String::from)
            .collect();
        if deleted == predicted {
            // Stable for a few seconds: nothing else goes.
            std::thread::sleep(Duration::from_secs(3));
            let left = names(env, ns);
            assert_eq!(
                all.into_iter()
                    .filter(|n| !left.contains(*n))
                    .map(String::from)
                    .collect::<BTreeSet<_>>(),
                predicted
            );
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the GC deleted {deleted:?}, predicted {predicted:?}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}

fn relink_after_restore(ctx: &Ctx) {
    let env = &ctx.env;
    env.kubectl(&["create", "namespace", "vel"]).unwrap();
    env.kubectl(&["create", "configmap", "parent", "-n", "vel"])
        .unwrap();
    let uid = |what: &str| {
        env.kubectl(&["get", what, "-n", "vel", "-o", "jsonpath={.metadata.uid}"])
            .unwrap()
    };
    let parent = uid("configmap/parent");
    let docs = [
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "child", "namespace": "vel",
            "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "parent", "uid": parent}]}}),
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "vel"},
            "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": {"metadata": {"labels": {"app": "x"}},
                "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}),
    ];
    for d in &docs {
        env.kubectl_stdin(&["apply", "-f", "-"], Some(&d.to_string()))
            .unwrap();
    }
    let rs = uid("replicaset/rs");
    env.kubectl_stdin(
        &["apply", "-f", "-"],
        Some(&json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "vel",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": rs, "controller": true}]},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "busybox"}]}}).to_string()),
    )
    .unwrap();
    // The backup: what the cluster held, references and UIDs included.
    let backup = env
        .kubectl(&[
            "get",
            "configmaps,replicasets,pods",
            "-n",
            "vel",
            "-o",
            "json",
        ])
        .unwrap();
    let file = env.dir.join("vel-backup.json");
    std::fs::write(&file, &backup).unwrap();
    let file = file.to_string_lossy().into_owned();
    // Restored the way Velero does: deleted, then created again without references.
    env.kubectl(&[
        "delete",
        "pods,configmaps,replicasets",
        "--all",
        "-n",
        "vel",
        "--grace-period=0",
        "--force",
    ])
    .unwrap();
    let mut doc: Value = serde_json::from_str(&backup).unwrap();
    for o in doc["items"].as_array_mut().unwrap() {
        let m = o["metadata"].as_object_mut().unwrap();
        for k in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "managedFields",
            "selfLink",
            "ownerReferences",
        ] {
            m.remove(k);
        }
        o.as_object_mut().unwrap().remove("status");
    }
    doc["items"]
        .as_array_mut()
        .unwrap()
        .retain(|o| o["metadata"]["name"] != "kube-root-ca.crt");
    env.kubectl_stdin(&["create", "-f", "-"], Some(&doc.to_string()))
        .unwrap();
    let new_parent = uid("configmap/parent");
    assert_ne!(new_parent, parent);

    // The plan: the child to its parent's new UID; the pod left to its ReplicaSet.
    let (code, out, err) = kgc(env, &["relink", "-f", &file, "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let plan: Value = serde_json::from_str(&out).unwrap();
    let links = plan["links"].as_array().unwrap();
    assert_eq!(links.len(), 1, "{plan:#}");
    assert_eq!(links[0]["name"], "child");
    assert_eq!(links[0]["add"][0]["uid"], new_parent.as_str());
    assert_eq!(links[0]["add"][0]["oldUid"], parent.as_str());
    assert!(
        plan["skipped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["object"].as_str().unwrap().starts_with("Pod/p")
                && s["reason"]
                    .as_str()
                    .unwrap()
                    .contains("adopts it by selector")),
        "{plan:#}"
    );
    // Without --yes and no terminal: refused, nothing patched.
    let (code, _, err) = kgc(env, &["relink", "-f", &file, "--apply"]);
    assert_eq!(code, 7, "{err}");
    let record = env.dir.join("relink-record.json");
    let (code, _, err) = kgc(
        env,
        &[
            "relink",
            "-f",
            &file,
            "--apply",
            "--yes",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let refs = env
        .kubectl(&[
            "get",
            "configmap",
            "child",
            "-n",
            "vel",
            "-o",
            "jsonpath={.metadata.ownerReferences[0].uid}",
        ])
        .unwrap();
    assert_eq!(refs, new_parent);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&record).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let rec = std::fs::read_to_string(&record).unwrap();
    assert!(rec.contains("\"outcome\":\"patched\""), "{rec}");
    // Run again: nothing left to do (the reference exists).
    let (_, out, _) = kgc(env, &["relink", "-f", &file, "-o", "json"]);
    let again: Value = serde_json::from_str(&out).unwrap();
    assert!(again["links"].as_array().unwrap().is_empty(), "{again:#}");
    // The links work: deleting the parent makes the real GC delete the child.
    env.kubectl(&["delete", "configmap", "parent", "-n", "vel"])
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while crate::probe::exists(env, &["configmap", "child", "-n", "vel"]) {
        assert!(
            Instant::now() < deadline,
            "the GC did not delete the relinked child"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}
