//! The offline integration tests: one test binary (`cargo test --test integration`), one module
//! per topic. They run the built `kubectl-gc` or call the library; none needs a cluster. The
//! tests that do are in `tests/live/` (`cargo test --test live`); ARCHITECTURE.md (Tests) describes the
//! layout and the environment variables.

mod apply;
mod check_apply;
mod ci_recipe;
mod cli;
mod cli_surface;
mod deploy;
mod distribution;
mod exit_codes;
mod fidelity;
mod four_way;
mod from_gc;
mod graph_render;
mod history;
mod hostile;
mod html_pictures;
mod inputs;
mod judge;
mod kcm_log;
mod mcp;
mod readme;
mod realdata;
mod realdata_audit;
mod reports;
mod terminal;
mod timeouts;
mod voice;
mod why;

#[path = "../support/mod.rs"]
mod support;
