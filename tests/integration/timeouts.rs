//! A server that accepts connections and never answers: the run ends with one clear error
//! within the request timeout (`--request-timeout`, or the 30 s default), and out-of-range
//! timeout values are usage errors, never panics. No cluster needed.

use kubectl_gc::source::live::DEFAULT_REQUEST_TIMEOUT;
use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-gc");

/// Listens on loopback, accepts every connection and reads (and ignores) what arrives; returns
/// the kubeconfig pointing at it. The thread lives until the process ends.
fn silent_server(dir: &Path) -> PathBuf {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while matches!(conn.read(&mut buf), Ok(n) if n > 0) {}
            });
        }
    });
    let path = dir.join("silent.kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: silent\n\
             clusters: [{{name: silent, cluster: {{server: \"https://127.0.0.1:{port}\", insecure-skip-tls-verify: true}}}}]\n\
             users: [{{name: u, user: {{token: t}}}}]\n\
             contexts: [{{name: silent, context: {{cluster: silent, user: u}}}}]\n"
        ),
    )
    .expect("write kubeconfig");
    path
}

fn run_bin(args: &[&str]) -> (Output, Duration) {
    let t = Instant::now();
    let out = Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run kubectl-gc");
    (out, t.elapsed())
}

fn assert_silent_server_error(out: &Output, elapsed: Duration, timeout: Duration) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(4),
        "exit code (cluster error): {stderr}"
    );
    assert!(
        elapsed >= timeout && elapsed < timeout + Duration::from_secs(5),
        "ended after one request timeout ({timeout:?}): {elapsed:?}"
    );
    assert!(
        stderr.contains("no answer from https://127.0.0.1:")
            && stderr.contains(&format!(
                "timed out after {}",
                kubectl_gc::util::human_duration(timeout)
            )),
        "{stderr}"
    );
    assert!(stderr.contains("--request-timeout"), "hint: {stderr}");
    assert_eq!(
        stderr.lines().filter(|l| !l.trim().is_empty()).count(),
        2,
        "{stderr}"
    );
}

#[test]
fn silent_server_with_request_timeout_flag() {
    let dir = tempfile::tempdir().unwrap();
    let kc = silent_server(dir.path());
    let out_file = dir.path().join("s.ndjson");
    let (out, elapsed) = run_bin(&[
        "snapshot",
        "-o",
        out_file.to_str().unwrap(),
        "--kubeconfig",
        kc.to_str().unwrap(),
        "--request-timeout",
        "2s",
    ]);
    assert_silent_server_error(&out, elapsed, Duration::from_secs(2));
    assert!(!out_file.exists(), "no snapshot written");
}

#[test]
fn silent_server_with_default_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let kc = silent_server(dir.path());
    let (out, elapsed) = run_bin(&["audit", "-A", "--kubeconfig", kc.to_str().unwrap()]);
    assert_silent_server_error(&out, elapsed, DEFAULT_REQUEST_TIMEOUT);
}

#[test]
fn request_timeout_flag_is_bounded() {
    for (value, ok) in [
        ("99999999999999999999s", false),
        ("1e400s", false),
        ("25h", false),
        ("0.0000001s", false),
        ("-1s", false),
        ("24h", true),
        ("0", true),
    ] {
        let flag = format!("--request-timeout={value}");
        let (out, _) = run_bin(&["audit", &flag, "--help"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        if ok {
            assert_eq!(code, Some(0), "{value}: {stderr}");
        } else {
            assert_eq!(code, Some(2), "{value}: usage error, not a panic: {stderr}");
            assert!(
                stderr.contains("--request-timeout") && !stderr.contains("panicked"),
                "{value}: {stderr}"
            );
        }
    }
}
