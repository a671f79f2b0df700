//! The one-pass scanners against serde_json's parse of the same text, where each answers (they
//! give up on everything else): a list item (the same object and length), and a snapshot's
//! object line (the same resource index and metadata).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        kubectl_gc::source::files::item_scan_agrees(text);
        kubectl_gc::snapshot::format::line_scan_agrees(text);
    }
});
