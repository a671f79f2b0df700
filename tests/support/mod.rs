//! Helpers shared by both test binaries (`tests/integration`, `tests/live`); each includes this
//! directory with `#[path = "../support/mod.rs"] mod support;`.

pub mod readme;
pub mod run;
pub mod schema;
