//! The audit-log reader on arbitrary bytes (JSON lines, EventLists, EKS/GKE/AKS envelopes,
//! YAML documents, events of any age, gzip, archives: it recognises them all by content):
//! events and problems, never a panic; the account of what was read is consistent; and the
//! same input read twice is each request once.
#![no_main]

use kubectl_gc::source::audit::{AuditOptions, ReadStats, read};
use libfuzzer_sys::fuzz_target;

fn read_paths(paths: &[std::path::PathBuf]) -> Option<(ReadStats, u64)> {
    let mut passed = 0u64;
    let opts = AuditOptions {
        paths: paths.to_vec(),
        keep: None,
        max_input_bytes: 0,
    };
    let stats = read(&opts, &mut |_| passed += 1).ok()?;
    assert_eq!(stats.passed, passed);
    assert!(stats.passed <= stats.events);
    assert!(stats.problems.len() <= 1000);
    assert_eq!(stats.levels.values().sum::<u64>(), stats.events);
    // Every event read with a problem has its problem.
    assert!(stats.partial <= stats.problems.len() as u64 + stats.more_problems);
    let _ = stats.skipped();
    if let (Some(first), Some(last)) = (stats.first_us, stats.last_us) {
        assert!(first <= last);
    }
    Some((stats, passed))
}

fuzz_target!(|data: &[u8]| {
    // `read` takes paths: files per process, rewritten for each input.
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let path = dir.join(format!("kgc-fuzz-audit-{pid}.log"));
    // The same bytes behind a YAML document separator: read by the YAML reader.
    let yaml = dir.join(format!("kgc-fuzz-audit-{pid}.yaml"));
    let mut as_yaml = b"---\n".to_vec();
    as_yaml.extend_from_slice(data);
    if std::fs::write(&path, data).is_err() || std::fs::write(&yaml, &as_yaml).is_err() {
        return;
    }
    let Some((once, passed)) = read_paths(std::slice::from_ref(&path)) else {
        return;
    };
    let _ = read_paths(std::slice::from_ref(&yaml));
    // Read twice: every event of the second reading is one of the first.
    if let Some((twice, passed_twice)) = read_paths(&[path.clone(), path]) {
        assert_eq!(twice.events, once.events);
        assert_eq!(twice.duplicates, 2 * once.duplicates + once.events);
        assert_eq!(passed_twice, passed);
    }
});
