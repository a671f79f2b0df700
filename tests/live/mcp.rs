//! `kubectl gc mcp --allow-apply` against a real kube-apiserver v1.20.2, driven by rmcp's
//! client over stdio: a planId the server never issued is refused; a planId whose plan rests on
//! an object changed since is refused, deletes nothing and is spent; an accepted delete_preview
//! sends the user's delete only, and an accepted plan deletes exactly its actions' targets —
//! nothing in another namespace, nothing the plan kept. No GC runs in this plane: every
//! deletion is the apply's. Gone is read from the API server's NotFound only (`probe.rs`).

use crate::harness::{Suite, Test};
use crate::probe::exists;
use crate::testenv::TestEnv;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};

const NS: &str = "mcp-a";
const OTHER: &str = "mcp-b";
const GONE_UID: &str = "0d6c2a4e-1111-4222-8333-944455556666";

pub struct Ctx {
    env: TestEnv,
    rt: tokio::runtime::Runtime,
    root: tempfile::TempDir,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "mcp",
    setup: || {
        Ok(Ctx {
            env: TestEnv::start(false)?,
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?,
            root: tempfile::tempdir().map_err(|e| e.to_string())?,
        })
    },
    tests: &[Test {
        name: "apply_plan_refuses_unknown_and_stale_ids_and_applies_exactly_the_preview",
        needs: &[],
        run: |ctx| ctx.rt.block_on(scenario(ctx)),
    }],
};

type Client = RunningService<RoleClient, ()>;

fn cm(env: &TestEnv, ns: &str, name: &str, owner: Option<(&str, &str)>) {
    let refs = match owner {
        Some((oname, uid)) => {
            json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": oname, "uid": uid}])
        }
        None => json!([]),
    };
    let obj = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": ns, "ownerReferences": refs}});
    env.kubectl_stdin(&["apply", "-f", "-"], Some(&obj.to_string()))
        .unwrap();
}

fn uid(env: &TestEnv, ns: &str, name: &str) -> String {
    env.kubectl(&[
        "get",
        "cm",
        name,
        "-n",
        ns,
        "-o",
        "jsonpath={.metadata.uid}",
    ])
    .unwrap()
}

fn there(env: &TestEnv, ns: &str, name: &str) -> bool {
    exists(env, &["configmap", name, "-n", ns])
}

async fn call(c: &Client, tool: &str, a: Value) -> CallToolResult {
    let Value::Object(a) = a else { unreachable!() };
    c.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(a))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn doc(r: &CallToolResult) -> Map<String, Value> {
    assert_ne!(r.is_error, Some(true), "{}", text(r));
    match r.structured_content.clone() {
        Some(Value::Object(m)) => m,
        other => panic!("no document: {other:?}"),
    }
}

/// (verb, name) of each action of a plan document.
fn actions(d: &Map<String, Value>) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = d["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["verb"].as_str().unwrap().to_owned(),
                a["target"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    v.sort();
    v
}

async fn scenario(ctx: &Ctx) {
    let env = &ctx.env;
    for ns in [NS, OTHER] {
        env.kubectl(&["create", "namespace", ns]).unwrap();
    }
    cm(env, NS, "owner", None);
    let owner = uid(env, NS, "owner");
    cm(env, NS, "child", Some(("owner", &owner)));
    cm(env, NS, "dangling", Some(("was-here", GONE_UID)));
    cm(env, NS, "bystander", None);
    cm(
        env,
        OTHER,
        "dangling-elsewhere",
        Some(("was-here", GONE_UID)),
    );
    let all = [
        (NS, "owner"),
        (NS, "child"),
        (NS, "dangling"),
        (NS, "bystander"),
        (OTHER, "dangling-elsewhere"),
    ];

    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-gc"));
    cmd.args(["mcp", "--allow-apply", "--root"])
        .arg(ctx.root.path())
        .arg("--kubeconfig")
        .arg(&env.kubeconfig)
        .args(["--context", "admin"]);
    let transport = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    let c: Client = ().serve(transport).await.expect("handshake");

    // 1. An id the server never issued: a tool error, nothing deleted.
    let r = call(
        &c,
        "apply_plan",
        json!({"plan_id": format!("plan-{}", "0".repeat(32))}),
    )
    .await;
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("unknown planId"), "{}", text(&r));
    assert!(all.iter().all(|(ns, n)| there(env, ns, n)));

    // 2. A preview, then the owner changes: refused, nothing deleted, the id spent.
    let p = doc(&call(
        &c,
        "delete_preview",
        json!({"object": "configmap/owner", "namespace": NS}),
    )
    .await);
    assert_eq!(
        actions(&p),
        [
            ("delete".into(), "child".into()),
            ("delete".into(), "owner".into())
        ]
    );
    let stale = p["planId"].as_str().expect("a planId").to_owned();
    env.kubectl(&["label", "cm", "owner", "-n", NS, "changed=yes"])
        .unwrap();
    let r = call(&c, "apply_plan", json!({"plan_id": stale})).await;
    assert_eq!(r.is_error, Some(true), "{}", text(&r));
    assert!(
        text(&r).contains("changed since the preview"),
        "{}",
        text(&r)
    );
    assert!(text(&r).contains("ConfigMap/owner"), "{}", text(&r));
    assert!(all.iter().all(|(ns, n)| there(env, ns, n)));
    let r = call(&c, "apply_plan", json!({"plan_id": stale})).await;
    assert!(text(&r).contains("unknown planId"), "{}", text(&r));

    // 3. Preview again and apply: the user's delete, sent with the preview's preconditions.
    let p = doc(&call(
        &c,
        "delete_preview",
        json!({"object": "configmap/owner", "namespace": NS}),
    )
    .await);
    let id = p["planId"].as_str().unwrap().to_owned();
    let done = doc(&call(&c, "apply_plan", json!({"plan_id": id})).await);
    assert_eq!(done["result"]["done"], 1, "{done:?}");
    assert_eq!(done["result"]["complete"], true, "{done:?}");
    let sent = done["requests"].as_array().unwrap();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["method"], "DELETE");
    assert_eq!(sent[0]["body"]["preconditions"]["uid"], owner.as_str());
    assert!(!there(env, NS, "owner"));
    // No GC runs here: the cascade it previewed is the GC's, not the apply's.
    assert!(there(env, NS, "child") && there(env, NS, "dangling") && there(env, NS, "bystander"));

    // 4. The GC's plan for the namespace: exactly its two deletes, nothing elsewhere.
    let p = doc(&call(&c, "plan", json!({"namespace": NS})).await);
    assert_eq!(
        actions(&p),
        [
            ("delete".into(), "child".into()),
            ("delete".into(), "dangling".into())
        ]
    );
    let id = p["planId"].as_str().unwrap().to_owned();
    let done = doc(&call(&c, "apply_plan", json!({"plan_id": id.clone()})).await);
    assert_eq!(done["result"]["done"], 2, "{done:?}");
    assert!(!there(env, NS, "child") && !there(env, NS, "dangling"));
    assert!(there(env, NS, "bystander"), "a kept object was deleted");
    assert!(
        there(env, OTHER, "dangling-elsewhere"),
        "an object outside the plan was deleted"
    );
    // Spent once used.
    let r = call(&c, "apply_plan", json!({"plan_id": id})).await;
    assert!(text(&r).contains("unknown planId"), "{}", text(&r));
    c.cancel().await.unwrap();
}
