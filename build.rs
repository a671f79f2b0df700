// Embeds the git commit and target triple for `kubectl gc --version`.
fn main() {
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|| "unknown commit".to_owned());
    println!("cargo:rustc-env=KGC_GIT_COMMIT={commit}");
    println!(
        "cargo:rustc-env=KGC_TARGET={}",
        std::env::var("TARGET").unwrap_or_default()
    );
    // The compiler, for the build-information metric (`kubectl_gc_build_info{rustc}`).
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let rustc_version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    println!("cargo:rustc-env=KGC_RUSTC_VERSION={rustc_version}");
    // In a linked worktree `.git` is a file and HEAD lives in the worktree's own git dir; a
    // rerun-if-changed path that does not exist makes cargo rerun this script, and rebuild the
    // crate, on every build.
    let git_dir = std::process::Command::new("git")
        .args(["rev-parse", "--git-dir", "--git-common-dir"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok());
    match git_dir.as_deref().map(|s| s.lines().collect::<Vec<_>>()) {
        Some(dirs) if dirs.len() == 2 => {
            println!("cargo:rerun-if-changed={}/HEAD", dirs[0]);
            println!("cargo:rerun-if-changed={}/refs/heads", dirs[1]);
        }
        // Not a git checkout (a source archive): nothing to watch but this script.
        _ => println!("cargo:rerun-if-changed=build.rs"),
    }
}
