//! The `-f` reader on arbitrary bytes (JSON, YAML, compressed, archives: it sniffs them all):
//! a snapshot or problems, never a panic; the account of what was read is consistent.
#![no_main]

use kubectl_gc::source::files::{FileOptions, read_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = FileOptions {
        keep_going: true,
        // Keep decompression bombs short.
        max_input_bytes: 16 << 20,
        ..FileOptions::default()
    };
    if let Ok((snap, stats, problems)) = read_bytes("fuzz", data, &opts) {
        assert_eq!(stats.broken, problems.len());
        assert!(snap.store.len() <= stats.objects);
    }
});
