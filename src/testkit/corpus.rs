//! The scenario corpus: every snapshot the GC's scenario tests build (`gc::tests::…`:
//! the scenarios, upstream's tests re-expressed, the plan and graph tests) is kept in
//! `tests/data/corpus/`, one file per built fixture, for the CLI's four-way agreement test
//! (`tests/integration/four_way.rs`), which runs the binary on each.
//!
//! [`Cluster::build`](super::Cluster::build) records what it builds when a scenario test
//! calls it. By default the file must already hold exactly that snapshot: a scenario added or
//! changed without its corpus file fails with the command that writes them
//! (`KGC_CORPUS=write cargo test --lib gc::tests`), so the corpus never drifts from the tests.

use crate::snapshot::Snapshot;
use std::cell::Cell;
use std::path::PathBuf;

/// The tests whose fixtures are the corpus (libtest names a test's thread after its path).
const PREFIX: &str = "gc::tests::";

/// Property tests among them: their fixtures are generated clusters (random forests, by the
/// dozen), which the lib's own property tests cover (`render::tests::why_outcome`), not
/// scenarios.
const GENERATED: &[&str] = &[
    "graph::dependents_are_every_referrer_once_in_store_order",
    "plan::random_forests_steady_state_primary_run_on_its_components_does_what_the_whole_run_does",
];

thread_local! {
    /// Fixtures built so far by the test running on this thread.
    static BUILT: Cell<usize> = const { Cell::new(0) };
}

/// Where the corpus lives.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus")
}

/// Records (or checks) one fixture built by the test on this thread.
pub fn record(snap: &Snapshot) {
    let thread = std::thread::current();
    let Some(test) = thread
        .name()
        .filter(|n| n.starts_with(PREFIX) && !GENERATED.contains(&&n[PREFIX.len()..]))
    else {
        return;
    };
    let n = BUILT.with(|b| {
        b.set(b.get() + 1);
        b.get()
    });
    let name = format!("{}-{n}.ndjson", &test[PREFIX.len()..].replace("::", "."));
    let path = dir().join(&name);
    let mut text = Vec::new();
    crate::snapshot::format::write(snap, &mut text).expect("a snapshot writes to memory");
    if std::env::var_os("KGC_CORPUS").is_some_and(|v| v == "write") {
        std::fs::create_dir_all(dir()).expect("create tests/data/corpus");
        std::fs::write(&path, &text).expect("write the corpus file");
        return;
    }
    match std::fs::read(&path) {
        Ok(held) if held == text => {}
        Ok(_) => panic!(
            "tests/data/corpus/{name} is not the fixture this test builds: rewrite the corpus \
             with `KGC_CORPUS=write cargo test --lib gc::tests`"
        ),
        Err(e) => panic!(
            "tests/data/corpus/{name}: {e}: write the corpus with `KGC_CORPUS=write cargo test \
             --lib gc::tests`"
        ),
    }
}
