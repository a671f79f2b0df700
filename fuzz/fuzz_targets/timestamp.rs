//! The RFC 3339 parser (object timestamps, a snapshot's `capturedAt`) on arbitrary text.
#![no_main]

use kubectl_gc::snapshot::{format_rfc3339, parse_rfc3339};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data)
        && let Some(secs) = parse_rfc3339(s)
    {
        let text = format_rfc3339(secs);
        assert_eq!(parse_rfc3339(&text), Some(secs), "{s:?} -> {text}");
    }
});
