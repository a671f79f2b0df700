//! OwnerReferencesPermissionEnforcement on the real API server (v1.20.2 started with
//! `--enable-admission-plugins=OwnerReferencesPermissionEnforcement`): what `check apply` and
//! `relink` predict for a writer (`--as writer`, a user with create/update/patch on ConfigMaps
//! and nothing else) is what the API server then does to that writer's apply, and the grant
//! the finding prints makes the same apply pass.

use crate::harness::{Suite, Test};
use crate::testenv::TestEnv;
use serde_json::{Value, json};
use std::process::Command;

pub struct Ctx {
    env: TestEnv,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "permission",
    setup: || {
        let env = TestEnv::start_admitting(&["OwnerReferencesPermissionEnforcement"])?;
        setup_writer(&env)?;
        Ok(Ctx { env })
    },
    tests: &[
        Test {
            name: "block_owner_deletion_refusal_predicted_then_real_then_granted",
            needs: &[],
            run: block_owner_deletion,
        },
        Test {
            name: "changing_an_existing_objects_references_needs_delete",
            needs: &[],
            run: update_needs_delete,
        },
        Test {
            name: "relink_predicts_the_refusal_of_its_patch",
            needs: &[],
            run: relink_patch,
        },
    ],
};

const NS: &str = "perm";

/// The namespace, an owner, and `writer`: reads everywhere (kubectl-gc reads the whole
/// target), create, update and patch on ConfigMaps in the namespace; no delete, no finalizers.
fn setup_writer(env: &TestEnv) -> Result<(), String> {
    env.kubectl(&["create", "namespace", NS])?;
    env.kubectl(&[
        "create",
        "clusterrole",
        "reader",
        "--verb=get,list,watch",
        "--resource=*.*",
    ])?;
    env.kubectl(&[
        "create",
        "clusterrolebinding",
        "reader",
        "--clusterrole=reader",
        "--user=writer",
    ])?;
    env.kubectl(&["-n", NS, "create", "configmap", "owner"])?;
    env.kubectl(&[
        "-n",
        NS,
        "create",
        "role",
        "writer",
        "--verb=create,update,patch",
        "--resource=configmaps",
    ])?;
    env.kubectl(&[
        "-n",
        NS,
        "create",
        "rolebinding",
        "writer",
        "--role=writer",
        "--user=writer",
    ])?;
    Ok(())
}

fn uid(env: &TestEnv, name: &str) -> String {
    env.kubectl(&[
        "-n",
        NS,
        "get",
        "cm",
        name,
        "-o",
        "jsonpath={.metadata.uid}",
    ])
    .expect("uid")
}

fn child(name: &str, owner_uid: &str, block: Option<bool>) -> Value {
    let mut r = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner_uid});
    if let Some(b) = block {
        r["blockOwnerDeletion"] = b.into();
    }
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": NS, "ownerReferences": [r]}})
}

/// `kubectl gc ARGS --as writer` (the admin's kubeconfig, impersonating), the JSON document.
fn kgc_as_writer(env: &TestEnv, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(args)
        .args(["--as", "writer", "-o", "json"])
        .env("KUBECONFIG", &env.kubeconfig)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)))
}

fn check_apply(env: &TestEnv, manifest: &Value) -> Vec<Value> {
    let file = env.dir.join(format!(
        "{}.json",
        manifest["metadata"]["name"].as_str().unwrap()
    ));
    std::fs::write(&file, manifest.to_string()).unwrap();
    let doc = kgc_as_writer(env, &["check", "apply", "-f", &file.to_string_lossy()]);
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "GC027")
        .cloned()
        .collect()
}

/// `kubectl apply --as writer` of `manifest`: Ok, or the API server's refusal.
fn apply_as_writer(env: &TestEnv, manifest: &Value) -> Result<String, String> {
    env.kubectl_stdin(
        &["apply", "--as", "writer", "-f", "-"],
        Some(&manifest.to_string()),
    )
}

fn block_owner_deletion(ctx: &Ctx) {
    let env = &ctx.env;
    let owner = uid(env, "owner");
    // No blockOwnerDeletion: nothing to ask, and the API server agrees.
    let plain = child("plain", &owner, None);
    assert!(check_apply(env, &plain).is_empty());
    apply_as_writer(env, &plain).expect("a reference without blockOwnerDeletion is admitted");

    let blocking = child("blocking", &owner, Some(true));
    let found = check_apply(env, &blocking);
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = &found[0];
    assert_eq!(f["severity"], "warning");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains(
            "user \"writer\" may not update configmaps/finalizers \"owner\" in namespace \"perm\""
        ),
        "{message}"
    );
    let real = apply_as_writer(env, &blocking).expect_err("the API server refuses it");
    assert!(
        real.contains("cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on"),
        "{real}"
    );
    // The printed grant works: run it (as the admin), and the same apply passes, predicted so.
    let grant = f["remedies"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|c| c.starts_with("kubectl create role"))
        .expect("a grant command")
        .to_owned();
    let status = Command::new("bash")
        .arg("-c")
        .arg(&grant)
        .env("KUBECONFIG", &env.kubeconfig)
        .status()
        .unwrap();
    assert!(status.success(), "{grant}");
    assert!(
        check_apply(env, &blocking).is_empty(),
        "still predicted refused after {grant}"
    );
    apply_as_writer(env, &blocking).expect("admitted once granted");
}

fn update_needs_delete(ctx: &Ctx) {
    let env = &ctx.env;
    let owner = uid(env, "owner");
    env.kubectl(&["-n", NS, "create", "configmap", "existing"])
        .unwrap();
    let with_ref = child("existing", &owner, None);
    let found = check_apply(env, &with_ref);
    assert_eq!(found.len(), 1, "{found:#?}");
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("cannot set an ownerRef on a resource you can't delete: user \"writer\" may not delete configmaps \"existing\""),
        "{message}"
    );
    let real = apply_as_writer(env, &with_ref).expect_err("the API server refuses it");
    assert!(
        real.contains("cannot set an ownerRef on a resource you can't delete"),
        "{real}"
    );
}

fn relink_patch(ctx: &Ctx) {
    let env = &ctx.env;
    // The backup's copy had a blocking reference to the owner's old UID; the restored copy
    // has none (Velero strips them).
    env.kubectl(&["-n", NS, "create", "configmap", "restored"])
        .unwrap();
    let backup = child(
        "restored",
        "00000000-0000-4000-8000-000000000001",
        Some(true),
    );
    let file = env.dir.join("backup.json");
    std::fs::write(&file, backup.to_string()).unwrap();
    let doc = kgc_as_writer(env, &["relink", "-f", &file.to_string_lossy()]);
    let links = doc["links"].as_array().unwrap();
    assert_eq!(links.len(), 1, "{doc:#}");
    let note = links[0]["permission"].as_str().unwrap_or_default();
    // The patch changes an existing object's references (delete on it) and adds a blocking
    // one (the owner's finalizers, granted by the first test or not: delete alone refuses it).
    assert!(
        note.contains("cannot set an ownerRef on a resource you can't delete"),
        "{note}"
    );
    // The real patch, as relink sends it, is refused the same way.
    let patch = json!([{"op": "add", "path": "/metadata/ownerReferences", "value": [{
        "apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": uid(env, "owner"),
        "blockOwnerDeletion": true}]}]);
    let real = env
        .kubectl(&[
            "-n",
            NS,
            "patch",
            "cm",
            "restored",
            "--as",
            "writer",
            "--type=json",
            "-p",
            &patch.to_string(),
        ])
        .expect_err("the API server refuses the patch");
    assert!(
        real.contains("cannot set an ownerRef on a resource you can't delete"),
        "{real}"
    );
}
