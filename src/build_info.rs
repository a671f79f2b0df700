//! Build information for `--version`.

/// `--version` text: the crate version, the git commit and target when known at build time.
pub const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("KGC_GIT_COMMIT"),
    ", ",
    env!("KGC_TARGET"),
    ")"
);
