//! The `-f` reader on arbitrary bytes (JSON, YAML, compressed, archives: it sniffs them all):
//! a snapshot or problems, never a panic; the account of what was read is consistent.
#![no_main]

use kubectl_gc::source::files::{FileOptions, read_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = FileOptions {
        keep_going: true,
        // Keep decompression short: under the fuzzer's instrumentation the xz decoder makes
        // about 1 MB of output a second (a 1 MiB prefix of a must-gather .tar.xz from the seed
        // corpus, 21 MB inflated, took 24 s against libFuzzer's 10 s timeout at a 16 MiB cap).
        // 1 MiB still crosses the cap on every bomb-like input, so that path stays covered.
        max_input_bytes: 1 << 20,
        ..FileOptions::default()
    };
    if let Ok((snap, stats, problems)) = read_bytes("fuzz", data, &opts) {
        assert_eq!(stats.broken, problems.len());
        assert!(snap.store.len() <= stats.objects);
    }
});
