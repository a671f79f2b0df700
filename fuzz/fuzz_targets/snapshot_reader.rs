//! The snapshot reader on arbitrary bytes: a snapshot or an input error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(snap) = kubectl_gc::snapshot::format::parse(std::path::Path::new("fuzz"), data) {
        // Every object's resource index is in the table.
        for id in snap.store.ids() {
            let _ = snap.resource_of(snap.store.object(id));
        }
    }
});
