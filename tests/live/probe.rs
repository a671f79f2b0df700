//! Reading the cluster without mistaking a failure for an answer: "the object is gone" only
//! from the API server's NotFound, any other failure of kubectl (a refused connection, a
//! forbidden read, a typo in the arguments) fails the test with its message.

use crate::testenv::TestEnv;

/// `kubectl get <args> -o name`: true when the object exists, false when the API server
/// answers NotFound. Any other failure panics with kubectl's message.
#[track_caller]
pub fn exists(env: &TestEnv, args: &[&str]) -> bool {
    let mut all = vec!["get"];
    all.extend_from_slice(args);
    all.extend(["-o", "name"]);
    match env.kubectl(&all) {
        Ok(out) => {
            assert!(
                !out.trim().is_empty(),
                "kubectl {} printed nothing",
                all.join(" ")
            );
            true
        }
        Err(e) if is_not_found(&e) => false,
        Err(e) => panic!("cannot tell whether the object exists: {e}"),
    }
}

/// kubectl's message for the API server's 404 on a named get (`Error from server
/// (NotFound): configmaps "x" not found`).
fn is_not_found(message: &str) -> bool {
    message.contains("(NotFound)")
}

/// `kubectl auth can-i <args>`: true on "yes" (exit 0), false on "no" (exit 1). Anything else
/// (a refused connection, an unknown resource, a bad flag) panics with kubectl's message: a
/// failure is never a "no".
#[track_caller]
pub fn can_i(env: &TestEnv, args: &[&str]) -> bool {
    let out = std::process::Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(&env.kubeconfig)
        .args(["auth", "can-i"])
        .args(args)
        .output()
        .expect("run kubectl auth can-i");
    let said = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    match (out.status.code(), said.as_str()) {
        (Some(0), "yes") => true,
        (Some(1), s) if s == "no" || s.starts_with("no - ") => false,
        (code, _) => panic!(
            "kubectl auth can-i {}: exit {code:?}, stdout {said:?}, stderr {:?}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    }
}
