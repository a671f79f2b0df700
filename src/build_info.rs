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

/// The labels of the `kubectl_gc_build_info` metric (`watch` and `admit` serve it): the crate
/// version, the git commit (empty when the build did not know it) and the compiler.
pub fn metric_labels() -> Vec<(String, String)> {
    let commit = env!("KGC_GIT_COMMIT");
    let commit = if commit == "unknown commit" {
        ""
    } else {
        commit
    };
    vec![
        ("version".to_owned(), env!("CARGO_PKG_VERSION").to_owned()),
        ("commit".to_owned(), commit.to_owned()),
        ("rustc".to_owned(), env!("KGC_RUSTC_VERSION").to_owned()),
    ]
}
