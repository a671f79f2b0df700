//! Build information for `--version`.

/// `apiVersion` of every document kubectl-gc writes (reports, baselines, apply records).
pub const REPORT_API_VERSION: &str = "kubectl-gc.io/v1";

/// `--version` text: the crate version, the git commit and target when known at build time.
pub const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("KGC_GIT_COMMIT"),
    ", ",
    env!("KGC_TARGET"),
    ")"
);
