//! Running the binary as a user does, offline: no colour, no kubeconfig (a command that would
//! reach a cluster fails as it would on a machine without one), nothing on stdin.
#![allow(dead_code)] // each test binary uses what it needs

use std::process::{Command, Stdio};

/// Runs `kubectl-gc ARGS`; (exit code, stdout, stderr).
pub fn kubectl_gc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .stdin(Stdio::null())
        .output()
        .expect("run kubectl-gc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
