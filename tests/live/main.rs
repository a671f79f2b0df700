//! The live tests: `kubectl-gc` against real control planes (kube-apiserver v1.20.2, and
//! kube-controller-manager's garbage collector where a suite compares with it), which the
//! binary starts and stops itself (`testenv.rs`). One module per suite; each suite sets up its
//! own control plane, and its tests run in order on it.
//!
//! `cargo test --test live` runs every suite; `cargo test --test live -- apply` runs the tests
//! whose name (`<suite>::<test>`) contains `apply`; `-- --list` lists them (`harness.rs` has
//! the options). A control plane that cannot be started fails the suite's tests: it is never a
//! skip. ARCHITECTURE.md (Tests) lists the environment variables.
//!
//! The suite `source` also has a measurement mode, for a control plane started by hand:
//! `target/debug/deps/live-<hash> bench-populate|bench-snapshot|bench-urls …` (see source.rs).

mod excuses;
mod forests;
mod gc_dot;
mod harness;
mod probe;
mod testenv;
mod timeline;

mod admit;
mod apply;
mod apply_safety;
mod check;
mod check_apply;
mod cli;
mod differential;
mod fleet;
mod generate;
mod graph;
mod history;
mod lists;
mod mcp;
mod permission;
mod remedy;
mod source;
mod watch;
mod why;

#[path = "../support/mod.rs"]
mod support;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(code) = source::bench_mode(&args) {
        return code;
    }
    let suites: [&dyn harness::AnySuite; 19] = [
        &source::SUITE,
        &lists::SUITE,
        &cli::SUITE,
        &graph::SUITE,
        &check::SUITE,
        &check_apply::SUITE,
        &apply::SUITE,
        &apply_safety::SUITE,
        &generate::SUITE,
        &fleet::SUITE,
        &watch::SUITE,
        &why::SUITE,
        &remedy::SUITE,
        &history::METADATA,
        &history::REQUEST,
        &differential::SUITE,
        &admit::SUITE,
        &permission::SUITE,
        &mcp::SUITE,
    ];
    ExitCode::from(harness::main(&suites, args))
}
