//! The audit-log reader on arbitrary bytes (JSON lines, EventLists, EKS/GKE/AKS envelopes,
//! gzip, archives: it recognises them all by content): events and problems, never a panic;
//! the account of what was read is consistent.
#![no_main]

use kubectl_gc::source::audit::{AuditOptions, read};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // `read` takes paths: one file per process, rewritten for each input.
    let path = std::env::temp_dir().join(format!("kgc-fuzz-audit-{}.log", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let mut passed = 0u64;
    let opts = AuditOptions {
        paths: vec![path.clone()],
        keep: None,
        max_input_bytes: 0,
    };
    if let Ok(stats) = read(&opts, &mut |_| passed += 1) {
        assert_eq!(stats.passed, passed);
        assert!(stats.passed <= stats.events);
        assert!(stats.problems.len() <= 1000);
        if let (Some(first), Some(last)) = (stats.first_us, stats.last_us) {
            assert!(first <= last);
        }
    }
});
