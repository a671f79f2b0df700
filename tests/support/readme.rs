//! The commands shown in README.md: extraction and running, shared by the offline test
//! `integration/readme.rs` (the offline ones, every test run) and the live suite
//! `live/source.rs` (the [`LIVE`] ones, against the test control plane).
//!
//! A README command is any line of a `sh`, `bash`, `shell` or `console` code block that runs
//! kubectl-gc: it starts with `kubectl gc `, `kubectl-gc ` or `cargo run -- ` (after an optional
//! `$ ` prompt), or pipes into one of those. Trailing `# comments` are dropped. In `console`
//! blocks, the lines after a `$ command` line up to the next `$` line are its expected stdout;
//! a line `...` there matches any number of lines. A command must exit with a code it is
//! documented to return and print something: a `> FILE` redirect, `--output-file FILE` or `snapshot -o FILE` must
//! write a non-empty file instead, and `source <(…)` must register a completion.
// Each binary uses its own part.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// README commands that need a live cluster (or kubectl output on stdin), with the exit codes the
/// README documents for them. `integration/readme.rs` checks that each is still in the README
/// and skips it; the live test `source::readme_live_commands` runs each one through the real
/// `kubectl` plugin dispatch against the test control plane, after creating the objects the
/// README's examples name (namespace `shop`, deployment `checkout`).
pub const LIVE: &[(&str, &[i32])] = &[
    ("kubectl gc audit -A", &[0, 5]),
    (
        "kubectl get all,cm,secrets -A -o json | kubectl gc audit -f - --assume-complete",
        &[0, 5],
    ),
    (
        "kubectl gc collect --delete deployment/checkout -n shop --cascade=foreground",
        &[0],
    ),
    ("kubectl gc snapshot -A -o cluster.ndjson.gz", &[0]),
    ("kubectl gc collect -n shop", &[0]),
    // Without a terminal and without --yes, --apply refuses to start (exit 7, documented).
    ("kubectl gc collect -n shop --apply", &[7]),
    // `check` gates: 5 findings, 6 incomplete coverage with --strict-coverage (README).
    ("kubectl gc check -A", &[0, 5, 6]),
    (
        "kubectl gc check -A --write-baseline gc-baseline.json",
        &[0, 5, 6],
    ),
    (
        "kubectl gc check -A --baseline gc-baseline.json --fail-on warning --strict-coverage",
        &[0, 5, 6],
    ),
    // Files named in these two are made by LIVE_SETUP.
    (
        "kubectl gc check restart --snapshot snap.ndjson.gz",
        &[0, 5, 6],
    ),
    (
        "kubectl gc check upgrade --to 1.25 -A --crd crds-after-upgrade.yaml",
        &[0, 5, 6],
    ),
    // The README's cluster has a dangling ConfigMap (an error finding): the watch exits 5 at
    // its first transition.
    ("kubectl gc watch --fail-on error", &[5]),
    // Last: it changes the cluster.
    (
        "kubectl gc collect -A --apply --yes --record gc-2026-11-21.json --qps 10",
        &[0],
    ),
];

/// Run (through bash, in the same directory, before the [`LIVE`] commands) to make the files
/// that README examples take as given: a snapshot you took earlier, the CRDs of your cluster.
pub const LIVE_SETUP: &[&str] = &[
    "kubectl gc snapshot -A -o snap.ndjson.gz",
    "kubectl get crds -o yaml > crds-after-upgrade.yaml",
];

/// Exit codes a README command may end with when [`LIVE`] does not say otherwise: 0, and 5
/// (findings at or above `--fail-on`, as documented in the README's exit code table).
pub const DEFAULT_EXIT_CODES: &[i32] = &[0, 5];

/// One command shown in the README.
#[derive(Debug, Clone)]
pub struct Example {
    /// 1-based line number in README.md.
    pub line: usize,
    /// The command as shown (prompt and trailing comment removed).
    pub command: String,
    /// For `console` blocks: the stdout shown below the command.
    pub expected: Option<Vec<String>>,
}

/// The crate's README.md.
pub fn readme_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

/// Drops a trailing `# comment` (a `#` after whitespace, outside quotes).
fn strip_comment(line: &str) -> &str {
    let (mut single, mut double) = (false, false);
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b'#' if !single && !double && i > 0 && bytes[i - 1].is_ascii_whitespace() => {
                return line[..i].trim_end();
            }
            _ => {}
        }
    }
    line.trim_end()
}

/// True when the (normalised) line runs kubectl-gc.
pub fn runs_kubectl_gc(line: &str) -> bool {
    const STARTS: [&str; 3] = ["kubectl gc ", "kubectl-gc ", "cargo run -- "];
    STARTS.iter().any(|s| line.starts_with(s))
        || STARTS
            .iter()
            .any(|s| line.contains(&format!("| {s}")) || line.contains(&format!("<({s}")))
}

/// Every kubectl-gc command in the README, in order.
pub fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut lang: Option<String> = None;
    // Index into `out` of the console command whose output is being read.
    let mut reading: Option<usize> = None;
    for (i, raw) in readme.lines().enumerate() {
        let trimmed = raw.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            lang = match lang {
                None => Some(info.trim().to_owned()),
                Some(_) => None,
            };
            reading = None;
            continue;
        }
        let Some(l) = lang.as_deref() else { continue };
        let console = l == "console";
        if !matches!(l, "sh" | "bash" | "shell" | "console") {
            continue;
        }
        let line = if console {
            match raw.strip_prefix("$ ") {
                Some(cmd) => cmd,
                None => {
                    if let Some(idx) = reading {
                        out[idx]
                            .expected
                            .get_or_insert_with(Vec::new)
                            .push(raw.trim_end().to_owned());
                    }
                    continue;
                }
            }
        } else {
            raw
        };
        reading = None;
        let command = strip_comment(line.trim()).to_owned();
        if runs_kubectl_gc(&command) {
            out.push(Example {
                line: i + 1,
                command,
                expected: console.then(Vec::new),
            });
            if console {
                reading = Some(out.len() - 1);
            }
        }
    }
    out
}

/// The exit codes allowed for `command`.
pub fn allowed_exit_codes(command: &str) -> &'static [i32] {
    LIVE.iter()
        .find(|(c, _)| *c == command)
        .map(|(_, codes)| *codes)
        .unwrap_or(DEFAULT_EXIT_CODES)
}

/// A directory holding `kubectl-gc` (a symlink to the binary under test) for `PATH`.
pub fn bin_dir(base: &Path) -> PathBuf {
    let dir = base.join("bin");
    std::fs::create_dir_all(&dir).expect("bin dir");
    let link = dir.join("kubectl-gc");
    if !link.exists() {
        #[cfg(unix)]
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_kubectl-gc"), &link).expect("symlink");
        #[cfg(not(unix))]
        std::fs::copy(env!("CARGO_BIN_EXE_kubectl-gc"), &link).expect("copy binary");
    }
    dir
}

/// Runs a README command with bash in `cwd`, with `bin` first on `PATH`. `cargo run -- ` means
/// the binary under test; with `via_kubectl` false, `kubectl gc ` is run as `kubectl-gc ` (no
/// kubectl needed), else kubectl dispatches to the plugin itself.
pub fn run(
    command: &str,
    cwd: &Path,
    bin: &Path,
    via_kubectl: bool,
    env: &[(&str, OsString)],
) -> Output {
    let mut script = command.replace("cargo run -- ", "kubectl-gc ");
    if !via_kubectl {
        script = script.replace("kubectl gc ", "kubectl-gc ");
    }
    if script.starts_with("source ") {
        // Loading a completion script prints nothing: show what it registered.
        script.push_str("\ncomplete -p kubectl-gc");
    }
    let mut path = OsString::from(bin.as_os_str());
    if let Some(old) = std::env::var_os("PATH") {
        path.push(":");
        path.push(old);
    }
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(format!("set -o pipefail\n{script}"))
        .current_dir(cwd)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run bash for {command:?}: {e}"))
}

/// The file a command writes: `> FILE`, or `-o FILE` / `--output FILE` of `snapshot`.
pub fn written_file(command: &str) -> Option<String> {
    let words: Vec<&str> = command.split_whitespace().collect();
    if let Some(w) = words
        .windows(2)
        .find(|w| w[0] == ">" || w[0] == "--output-file")
    {
        return Some(w[1].to_owned());
    }
    if !command.contains(" snapshot ") {
        return None;
    }
    words
        .windows(2)
        .find(|w| w[0] == "-o" || w[0] == "--output")
        .map(|w| w[1].to_owned())
        .filter(|f| f != "-")
}

/// Checks one run: allowed exit code, some output (or the written file), and the console
/// block's expected stdout. Returns a description of what is wrong.
pub fn check(example: &Example, cwd: &Path, out: &Output) -> Result<(), String> {
    let code = out.status.code().unwrap_or(-1);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let allowed = allowed_exit_codes(&example.command);
    let context = || {
        format!(
            "README.md:{} `{}`: exit {code}\n--- stdout\n{}\n--- stderr\n{}",
            example.line,
            example.command,
            stdout.chars().take(3000).collect::<String>(),
            stderr.chars().take(3000).collect::<String>()
        )
    };
    if !allowed.contains(&code) {
        return Err(format!("exit code not in {allowed:?}: {}", context()));
    }
    match written_file(&example.command) {
        Some(file) => {
            let len = std::fs::metadata(cwd.join(&file))
                .map(|m| m.len())
                .unwrap_or(0);
            if len == 0 {
                return Err(format!("{file} was not written: {}", context()));
            }
        }
        None => {
            // A documented failure (e.g. a refusal) may speak on stderr only.
            let failed = code != 0 && !DEFAULT_EXIT_CODES.contains(&code);
            let spoke = !stdout.trim().is_empty() || (failed && !stderr.trim().is_empty());
            if !spoke {
                return Err(format!("no output: {}", context()));
            }
        }
    }
    if let Some(expected) = example.expected.as_ref().filter(|e| !e.is_empty()) {
        let actual: Vec<String> = stdout.lines().map(|l| l.trim_end().to_owned()).collect();
        if !lines_match(expected, &actual) {
            return Err(format!(
                "the output shown in the README differs from the real one (update README.md \
                 with the output below; `...` lines match anything):\n--- README\n{}\n{}",
                expected.join("\n"),
                context()
            ));
        }
    }
    Ok(())
}

/// Line-wise match where a `...` line in `pattern` matches any number of lines.
pub fn lines_match(pattern: &[String], actual: &[String]) -> bool {
    match pattern.split_first() {
        None => actual.is_empty() || actual.iter().all(|l| l.is_empty()),
        Some((p, rest)) if p.trim() == "..." => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((p, rest)) => match actual.split_first() {
            Some((a, arest)) => p.trim_end() == a && lines_match(rest, arest),
            None => false,
        },
    }
}
