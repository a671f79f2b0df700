//! `collect --apply` flags as the binary parses them (no cluster needed): every value is
//! refused before anything is read, asked or written.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-gc");

#[test]
fn out_of_range_qps_is_a_usage_error_before_any_record() {
    // 1e-300 passed the old parser and panicked in the rate limiter after the record header
    // was written (exit 134 in release builds).
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("rec.json");
    for q in ["1e-300", "0", "-1", "NaN", "inf", "1e9", "0.001", "x"] {
        let o = Command::new(BIN)
            .args([
                "collect",
                "-A",
                "--apply",
                "--yes",
                &format!("--qps={q}"),
                "--record",
            ])
            .arg(&record)
            .env("KUBECONFIG", "/nonexistent-kubeconfig")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "--qps {q}: {err}");
        assert!(err.contains("--qps"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!record.exists(), "--qps {q}: a record was written");
    }
}
