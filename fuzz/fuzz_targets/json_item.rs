//! The one-pass scanner for list items against serde_json's parse of the same text: where the
//! scanner answers, both read the same object and length (it gives up on everything else).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        kubectl_gc::source::files::item_scan_agrees(text);
    }
});
