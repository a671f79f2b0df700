//! `kubectl gc generate --apply-to-kubeconfig` against a real kube-apiserver v1.20.2
//! (`testenv.rs`, no controllers): the loaded cluster must be the generated one, as
//! the GC would see it — a live audit reports the same findings, code for code, and the same
//! reference classifications as the audit of the snapshot the generator wrote.

use crate::harness::{Suite, Test};
use crate::testenv::TestEnv;
use std::process::Command;

pub const SUITE: Suite<TestEnv> = Suite {
    name: "generate",
    setup: || TestEnv::start(false),
    tests: &[Test {
        name: "loaded_cluster_audits_like_the_generated_snapshot",
        needs: &[],
        run: |env| {
            loaded_cluster_audits_like_the_generated_snapshot(env).unwrap_or_else(|e| panic!("{e}"))
        },
    }],
};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-gc");

fn run(args: &[&str]) -> Result<String, String> {
    let out = Command::new(BIN)
        .args(args)
        .env_remove("KUBECONFIG")
        .output()
        .map_err(|e| format!("cannot run kubectl-gc: {e}"))?;
    // audit exits 5 when it has findings (the point of this fixture).
    if !matches!(out.status.code(), Some(0) | Some(5)) {
        return Err(format!(
            "kubectl-gc {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn summary(json: &str) -> Result<serde_json::Value, String> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    Ok(v["summary"].clone())
}

fn loaded_cluster_audits_like_the_generated_snapshot(env: &TestEnv) -> Result<(), String> {
    let kubeconfig = env.kubeconfig.to_string_lossy().into_owned();
    let snap = env.dir.join("generated.ndjson");
    let snap = snap.to_string_lossy().into_owned();
    run(&[
        "generate",
        "--objects",
        "2500",
        "--seed",
        "11",
        "--dangling-rate",
        "0.004",
        "--cross-namespace-rate",
        "0.002",
        "--unresolvable-rate",
        "0.002",
        "--foreground-rate",
        "0.002",
        "--orphan-rate",
        "0.002",
        "--server-version",
        "v1.20.2",
        "-o",
        &snap,
        "--apply-to-kubeconfig",
        &kubeconfig,
    ])?;
    let offline = summary(&run(&["audit", "--snapshot", &snap, "-o", "json"])?)?;
    let live = summary(&run(&[
        "audit",
        "--kubeconfig",
        &kubeconfig,
        "-A",
        "-o",
        "json",
    ])?)?;
    for code in ["GC001", "GC004", "GC006", "GC008", "GC009", "GC013"] {
        if offline["byCode"][code].as_u64().unwrap_or(0) == 0 {
            return Err(format!("the generated cluster has no {code}: {offline}"));
        }
    }
    if live["byCode"] != offline["byCode"] {
        return Err(format!(
            "findings differ: live {} vs generated {}",
            live["byCode"], offline["byCode"]
        ));
    }
    if live["classifications"] != offline["classifications"] {
        return Err(format!(
            "classifications differ: live {} vs generated {}",
            live["classifications"], offline["classifications"]
        ));
    }
    // Every generated object is there (plus what the API server creates itself).
    let (n_live, n_gen) = (
        live["objects"].as_u64().unwrap_or(0),
        offline["objects"].as_u64().unwrap_or(0),
    );
    if n_gen != 2500 || n_live < n_gen {
        return Err(format!("{n_live} objects live, {n_gen} generated"));
    }
    Ok(())
}
