//! One timeline, live: what `why`, `collect`, `audit` and `check restart` say of *when* the GC
//! acts on one object of a real cluster, each read from its own JSON. Not a suite: the `watch`
//! suite (a reference edited in place under the running GC) and the `check` suite (the
//! incident's cross-namespace reference sitting in a cluster whose GC is down) ask it before
//! they let the real GC prove the answer.

use crate::testenv::TestEnv;
use serde_json::Value;
use std::process::Command;

fn json(env: &TestEnv, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(args)
        .args([
            "-o",
            "json",
            "--kubeconfig",
            env.kubeconfig.to_str().unwrap(),
        ])
        .output()
        .expect("run kubectl-gc");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "kubectl gc {args:?}: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// (when, whenReason) as each view says it of ConfigMap `ns/name`: why, collect (its
/// request), audit (`code`'s finding), check restart (its GC015).
pub fn views(env: &TestEnv, ns: &str, name: &str, code: &str) -> Vec<(&'static str, String)> {
    let of = |v: &Value| {
        format!(
            "{} {}",
            v["when"].as_str().unwrap_or("-"),
            v["whenReason"].as_str().unwrap_or("-")
        )
    };
    let named = |v: &Value| v["name"] == name && v["namespace"] == ns;
    let why = json(env, &["why", &format!("configmap/{name}"), "-n", ns]);
    // The whole cluster, as `why` reads what it needs of it: a cross-namespace owner is only
    // seen (GC004, not GC001) by a read that reaches its namespace.
    let collect = json(env, &["collect", "-A"]);
    let audit = json(env, &["audit", "-A", "--fail-on", "never"]);
    let restart = json(env, &["check", "restart", "-A", "--fail-on", "never"]);
    let pick = |doc: &Value, key: &str, what: &dyn Fn(&Value) -> bool| {
        doc[key]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| what(x))
            .map_or_else(|| format!("nothing in {doc}"), of)
    };
    vec![
        ("why", of(&why["outcome"])),
        (
            "collect",
            pick(&collect, "actions", &|a| named(&a["target"])),
        ),
        (
            "audit",
            pick(&audit, "findings", &|f| {
                f["code"] == code && named(&f["object"])
            }),
        ),
        (
            "check restart",
            pick(&restart, "findings", &|f| {
                f["code"] == "GC015" && named(&f["object"])
            }),
        ),
    ]
}

/// Every view says `expected` (`when whenReason`) of ConfigMap `ns/name`.
#[track_caller]
pub fn all_say(env: &TestEnv, ns: &str, name: &str, code: &str, expected: &str) {
    let said = views(env, ns, name, code);
    assert!(
        said.iter().all(|(_, w)| w == expected),
        "{ns}/{name}: every view should say {expected:?}: {said:?}"
    );
}
