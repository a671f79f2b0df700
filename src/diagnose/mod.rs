//! Diagnostics built on the emulated GC ([`crate::gc`]): what in its graph, decisions and plans
//! is wrong or about to happen, as findings with stable codes.
//!
//! * [`code`]: the catalogue (`GC001`…, severities); [`finding`]: one finding, made one way.
//! * [`mod@audit`] (`kubectl gc audit`): every reference and verdict of the snapshot as captured,
//!   with [`terminating`] deletions in progress.
//! * [`restart`], [`upgrade`], [`health`] (`kubectl gc check …`): what a restart or an upgrade
//!   of kube-controller-manager would make the GC do, and what stops it from working.
//! * [`analysis`]: the plans every object view reads (`why` answers from them).
//! * [`remedy`]: the `kubectl` commands findings offer; [`suppress`]: annotations and baselines.
//!
//! This module imports `gc`; `gc` never imports it.

pub mod analysis;
pub mod apply;
pub mod audit;
pub mod code;
pub mod controller_log;
pub mod finding;
pub mod health;
pub mod history;
pub mod judge;
pub mod permission;
pub mod relink;
pub mod remedy;
pub mod restart;
pub mod suppress;
pub mod terminating;
pub mod timeline;
pub mod upgrade;
pub mod why;

pub use audit::{Audit, audit};
pub use code::{Code, Severity};
pub use finding::{Finding, Subject};

#[cfg(test)]
mod tests;
