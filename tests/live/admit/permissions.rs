//! `admit --check-permissions` called by the real API server (v1.20.2, without
//! OwnerReferencesPermissionEnforcement, so the write reaches the webhook): a writer who may
//! not update the owner's finalizers is warned that a cluster with the plugin refuses the
//! write, and the write goes through; the admin and a writer granted that access are not. The
//! permission suite proves the rule itself against the plugin.

use super::{Ctx, create, kubectl, start, start_with, uid_of, warnings_of};
use serde_json::{Value, json};

const NS: &str = "perms";

fn child(name: &str, owner: &str, owner_uid: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"namespace": NS, "name": name, "ownerReferences": [
            {"apiVersion": "v1", "kind": "ConfigMap", "name": owner, "uid": owner_uid,
             "blockOwnerDeletion": true}]}})
}

/// `writer`: create on ConfigMaps in the namespace, nothing else.
fn setup_writer(ctx: &Ctx) {
    let env = &ctx.env;
    env.kubectl(&["create", "namespace", NS])
        .expect("namespace");
    for owner in ["owner", "granted"] {
        env.kubectl(&["-n", NS, "create", "configmap", owner])
            .expect("owner");
    }
    env.kubectl(&[
        "-n",
        NS,
        "create",
        "role",
        "writer",
        "--verb=create",
        "--resource=configmaps",
    ])
    .expect("role");
    env.kubectl(&[
        "-n",
        NS,
        "create",
        "rolebinding",
        "writer",
        "--role=writer",
        "--user=writer",
    ])
    .expect("rolebinding");
}

pub fn check_permissions(ctx: &Ctx) {
    let env = &ctx.env;
    setup_writer(ctx);
    start_with(ctx, "warn", &env.kubeconfig, &["--check-permissions"]);
    let owner = uid_of(env, &["configmap", "owner", "-n", NS]);
    let as_writer = |v: &Value| kubectl(env, &["--as", "writer", "create", "-f", "-"], Some(v));

    let (ok, _, err) = as_writer(&child("by-writer", "owner", &owner));
    assert!(ok, "a warning, never a refusal: {err}");
    let w = warnings_of(&err);
    assert_eq!(w.len(), 1, "{err}");
    assert!(
        w[0].starts_with(
            "where OwnerReferencesPermissionEnforcement is enabled the API server refuses this \
             write: user \"writer\" may not update configmaps/finalizers \"owner\" in namespace \
             \"perms\""
        ),
        "{}",
        w[0]
    );
    eprintln!("    kubectl --as writer: Warning: {}", w[0]);

    // The admin may do anything: nothing to say.
    let (ok, _, err) = create(env, &child("by-admin", "owner", &owner));
    assert!(ok && warnings_of(&err).is_empty(), "{err}");

    // Granted update on `granted`'s finalizers, the writer is not warned: the webhook asked.
    env.kubectl(&[
        "-n",
        NS,
        "create",
        "role",
        "finalizers",
        "--verb=update",
        "--resource=configmaps/finalizers",
        "--resource-name=granted",
    ])
    .expect("grant");
    env.kubectl(&[
        "-n",
        NS,
        "create",
        "rolebinding",
        "finalizers",
        "--role=finalizers",
        "--user=writer",
    ])
    .expect("grant binding");
    let granted = uid_of(env, &["configmap", "granted", "-n", NS]);
    let (ok, _, err) = as_writer(&child("granted-child", "granted", &granted));
    assert!(ok && warnings_of(&err).is_empty(), "{err}");
    start(ctx, "warn");
}
