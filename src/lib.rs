//! # kubectl-gc
//!
//! See, predict and control what the Kubernetes garbage collector does.
//!
//! The library is a pipeline. Each stage is a module that imports only the stages before it
//! and the shared modules (`src/layering.rs` checks this on every `cargo test`):
//!
//! 1. [`source`] — where metadata comes from: a live API server (the GC's discovery +
//!    metadata-only lists) or files (`kubectl get -o json|yaml`, support bundles,
//!    must-gathers).
//! 2. [`snapshot`] — what was read and how completely (resource table, per-resource list
//!    outcome), and the versioned snapshot file format.
//! 3. [`gc`] — the emulated garbage collector, laid out like upstream's
//!    `pkg/controller/garbagecollector`: the graph (`uidToNode`, virtual nodes) and what its
//!    builder enqueues, the REST mapper, `classifyReferences`, `attemptToDeleteItem`,
//!    `attemptToOrphan`, the rules per release, and its workers simulated to a fixpoint
//!    ([`gc::Plan`]). Beside it, [`namespace`]: the namespace controller, laid out like
//!    upstream's `pkg/controller/namespace/deletion` — what a terminating namespace loses and
//!    what keeps it.
//! 4. [`diagnose`] — what in the GC's verdicts and plans is wrong or about to happen:
//!    findings with stable codes (audit; restart, upgrade and health checks), remedies,
//!    suppressions. The engine (`gc`, `namespace`, `diagnose`) is single-threaded code;
//!    [`run`], the analysis runner, gives it threads for the work it names independent.
//! 5. [`watch`] — `kubectl gc watch`: the same findings kept up to date from watch events,
//!    re-evaluating only what each change can affect, as transitions with *when* the GC acts;
//!    and [`admit`] — `kubectl gc admit`: the GC's verdicts on the ownerReferences a write
//!    adds, answered to the API server as a validating webhook from the watch's graph.
//! 6. [`render`] — tables, JSON/YAML, trees and graphs for people and machines; and
//!    [`apply`] — `collect --apply`: a plan's actions performed on a live cluster, each
//!    re-verified first, with the GC's own requests and a record of every change.
//! 7. [`cli`] and [`commands`] — the command line, and for each subcommand the wiring of
//!    input → stages → output; [`mcp`] — `kubectl gc mcp`: the commands' documents as Model
//!    Context Protocol tools, each call run as a child process of this binary.
//!
//! Under every file reader, [`input`]: the one walker (paths, globs, directories, archives,
//! decompression, size caps) and the memory maps.
//!
//! Shared by all: [`model`] (the compact columnar store), [`catalog`] (built-in Kubernetes
//! knowledge), [`error`], [`util`] and [`build_info`]; [`lookup`] finds the object a user
//! names (`KIND/NAME`) in a snapshot. Test support (`testkit`, `apply::fake`, the hidden
//! `generate` command) is compiled only with the `testkit` feature, which `cargo test` turns
//! on; the shipped binary has none of it.
//!
//! Section numbers in comments (§3.2, Appendix A …) refer to `docs/gc-model.md`, the
//! description of the upstream garbage collector this crate emulates.
#![deny(missing_docs)]

pub mod admit;
pub mod apply;
pub mod build_info;
pub mod catalog;
pub mod cli;
pub mod commands;
pub mod diagnose;
pub mod error;
pub mod gc;
pub mod input;
#[cfg(test)]
mod layering;
pub mod lookup;
pub mod mcp;
pub mod model;
pub mod namespace;
pub mod render;
pub mod run;
pub mod snapshot;
pub mod source;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
pub mod util;
pub mod watch;

pub use error::{Error, Result};
