//! The snapshot reader on arbitrary bytes, as `--snapshot -` reads them (through the input
//! layer's walker: compressed, archived or plain): a snapshot or an input error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((snap, _)) = kubectl_gc::snapshot::format::read_from("fuzz", data) {
        // Every object's resource index is in the table.
        for id in snap.store.ids() {
            let _ = snap.resource_of(snap.store.object(id));
        }
    }
});
