//! # kubectl-gc
//!
//! See, predict and control what the Kubernetes garbage collector does.
//!
//! The library is a pipeline; each stage is a module and depends only on the ones before it:
//!
//! 1. [`source`] — where metadata comes from: a live API server (discovery + metadata-only lists)
//!    or files (`kubectl get -o json|yaml`, support bundles, must-gathers).
//! 2. [`snapshot`] — what was read and how completely (resource table, per-resource list
//!    outcome), and the versioned snapshot file format.
//! 3. [`graph`] — the GC's owner/dependent graph (`uidToNode`, virtual nodes, flags).
//! 4. [`analysis`] — the GC's reference classification and per-object decisions, and the
//!    findings built on them.
//! 5. [`plan`] — the GC's decisions simulated to a fixpoint: actions in waves and end states.
//! 6. [`render`] — tables, JSON/YAML, trees and graphs for people and machines.
//! 7. [`apply`] — `collect --apply`: a plan's actions performed on a live cluster, each
//!    re-verified first, with the GC's own requests and a record of every change.
//!
//! [`model`] is the compact columnar store all stages share; [`catalog`] is built-in
//! Kubernetes knowledge; [`commands`] wires the stages to the command line.
//!
//! `gc-semantics.md` section numbers (§3.2 …) in comments refer to the team's reference on the
//! upstream garbage collector.
#![deny(missing_docs)]

pub mod apply;
pub mod build_info;
pub mod catalog;
pub mod cli;
pub mod commands;
pub mod diagnose;
pub mod error;
pub mod gc;
pub mod lookup;
pub mod model;
pub mod render;
pub mod snapshot;
pub mod source;
pub mod testkit;
pub mod util;

pub use error::{Error, Result};
