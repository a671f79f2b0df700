//! Distribution: the krew manifest (krew's validation rules, and the archives the release script
//! produces), the completion scripts and the `__complete` protocol (through a real kubectl),
//! `--version`, and every command's `--help` and usage errors.
//!
//! Needs `bash`, `tar`, `zip`, `unzip`, `sha256sum` and `kubectl` (≥ 1.26) on PATH, like the live
//! tests; a missing tool fails the test with its name.

use serde_json::Value;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-gc");
const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The sha256 placeholder in the committed manifest, replaced by `scripts/release.sh`.
const PLACEHOLDER_SHA: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run(program: &str, args: &[&str], dir: Option<&Path>, path_first: Option<&Path>) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::null()).env("NO_COLOR", "1");
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    if let Some(p) = path_first {
        let mut path = OsString::from(p.as_os_str());
        if let Some(old) = std::env::var_os("PATH") {
            path.push(":");
            path.push(old);
        }
        cmd.env("PATH", path);
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {program} (is it installed?): {e}"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(root().join("krew-manifest.yaml")).expect("manifest");
    serde_saphyr::from_str(&text).expect("krew-manifest.yaml is not valid YAML")
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    let mut cur = v;
    for p in path {
        cur = &cur[*p];
    }
    cur.as_str()
        .unwrap_or_else(|| panic!("krew-manifest.yaml: {} must be a string", path.join(".")))
}

fn is_semver_with_v(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else {
        return false;
    };
    let core = rest.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
        })
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The rules of krew's `internal/index/validation` (see rust-notes §2.3), plus ours: the
/// version equals Cargo.toml's, the five usual platforms, archives named for this version.
#[test]
fn krew_manifest_satisfies_krew_validation() {
    let m = manifest();
    assert_eq!(
        str_at(&m, &["apiVersion"]),
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(str_at(&m, &["kind"]), "Plugin");
    let name = str_at(&m, &["metadata", "name"]);
    assert_eq!(name, "gc");
    assert!(
        name.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    );
    let reserved = ["CON", "PRN", "AUX", "NUL"];
    assert!(!reserved.contains(&name.to_uppercase().as_str()));

    let spec = &m["spec"];
    let version = str_at(spec, &["version"]);
    assert!(is_semver_with_v(version), "spec.version {version:?}");
    assert_eq!(
        version,
        format!("v{VERSION}"),
        "krew-manifest.yaml spec.version must be v + the Cargo.toml version"
    );
    assert!(str_at(spec, &["homepage"]).starts_with("https://"));
    let short = str_at(spec, &["shortDescription"]);
    assert!(!short.is_empty() && !short.contains('\n') && short.len() <= 60);
    assert!(str_at(spec, &["description"]).len() > 100);
    let caveats = str_at(spec, &["caveats"]);
    for needle in [
        "RBAC",
        "list",
        "--apply",
        "delete and patch",
        "dry run",
        &format!("store/gc/{version}/kubectl_complete-gc"),
    ] {
        assert!(caveats.contains(needle), "caveats must mention {needle:?}");
    }

    let platforms = spec["platforms"].as_array().expect("spec.platforms");
    assert!(!platforms.is_empty());
    let mut seen = BTreeSet::new();
    for p in platforms {
        let labels = p["selector"]["matchLabels"]
            .as_object()
            .expect("selector.matchLabels");
        assert!(!labels.is_empty());
        assert!(
            labels.keys().all(|k| k == "os" || k == "arch"),
            "{labels:?}"
        );
        let os = labels["os"].as_str().unwrap();
        let arch = labels["arch"].as_str().unwrap();
        assert!(
            seen.insert((os.to_owned(), arch.to_owned())),
            "{os}/{arch} twice"
        );

        let uri = str_at(p, &["uri"]);
        let prefix = format!(
            "https://github.com/kubectl-gc/kubectl-gc/releases/download/{version}/kubectl-gc_{version}_"
        );
        assert!(uri.starts_with(&prefix), "{uri}");
        let ext = if os == "windows" { ".zip" } else { ".tar.gz" };
        assert!(uri.ends_with(ext), "{uri}");
        let sha = str_at(p, &["sha256"]);
        assert!(is_sha256(sha), "sha256 {sha:?} must match ^[a-f0-9]{{64}}$");

        let bin = str_at(p, &["bin"]);
        let files = p["files"].as_array().expect("files");
        assert!(!files.is_empty());
        let froms: Vec<&str> = files
            .iter()
            .map(|f| {
                assert!(!str_at(f, &["to"]).is_empty());
                str_at(f, &["from"])
            })
            .collect();
        assert!(
            froms.contains(&bin),
            "{os}/{arch}: bin {bin} is not in files"
        );
        assert!(froms.contains(&"LICENSE"));
        if os == "windows" {
            assert_eq!(bin, "kubectl-gc.exe");
            assert!(froms.contains(&"kubectl_complete-gc.cmd"));
        } else {
            assert_eq!(bin, "kubectl-gc");
            assert!(froms.contains(&"kubectl_complete-gc"));
        }
    }
    let expected: BTreeSet<(String, String)> = [
        ("darwin", "amd64"),
        ("darwin", "arm64"),
        ("linux", "amd64"),
        ("linux", "arm64"),
        ("windows", "amd64"),
    ]
    .iter()
    .map(|(o, a)| (o.to_string(), a.to_string()))
    .collect();
    assert_eq!(seen, expected);
    assert!(root().join("LICENSE").exists());
    let license = std::fs::read_to_string(root().join("LICENSE")).unwrap();
    assert!(license.contains("Apache License") && license.contains("Version 2.0"));
}

fn platform<'a>(m: &'a Value, os: &str, arch: &str) -> &'a Value {
    m["spec"]["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["selector"]["matchLabels"]["os"] == os && p["selector"]["matchLabels"]["arch"] == arch
        })
        .unwrap_or_else(|| panic!("no {os}/{arch} platform"))
}

fn file_names(p: &Value) -> BTreeSet<String> {
    p["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["from"].as_str().unwrap().to_owned())
        .collect()
}

fn archive_name(p: &Value) -> String {
    let uri = p["uri"].as_str().unwrap();
    uri.rsplit('/').next().unwrap().to_owned()
}

fn sha256_of(file: &Path) -> String {
    let o = run("sha256sum", &[file.to_str().unwrap()], None, None);
    assert!(o.status.success());
    stdout(&o).split_whitespace().next().unwrap().to_owned()
}

/// `scripts/release.sh` packs exactly the manifest's `files` for a platform, names the archive
/// as the manifest's uri does, and writes its sha256 into the manifest copy. The unpacked
/// archive works as a kubectl plugin, completion included, through a real kubectl.
///
/// Only the host can build here, so the archives are made with `--binary` (the packaging step
/// the script runs for every target) from a small wrapper that runs the binary under test.
#[test]
fn release_archives_hold_exactly_the_manifest_files() {
    let m = manifest();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    let fake = tmp.path().join("kubectl-gc-wrapper");
    std::fs::write(&fake, format!("#!/bin/sh\nexec '{BIN}' \"$@\"\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let script = root().join("scripts/release.sh");
    for target in ["x86_64-unknown-linux-musl", "x86_64-pc-windows-msvc"] {
        let o = run(
            script.to_str().unwrap(),
            &[
                "--out",
                out.to_str().unwrap(),
                "--binary",
                fake.to_str().unwrap(),
                "--target",
                target,
            ],
            Some(root()),
            None,
        );
        assert!(
            o.status.success(),
            "release.sh failed:\n{}\n{}",
            stdout(&o),
            stderr(&o)
        );
        assert!(
            stdout(&o).contains("built:   kubectl-gc_v"),
            "{}",
            stdout(&o)
        );
    }

    let written: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(out.join("krew-manifest.yaml")).expect("manifest copy"),
    )
    .unwrap();
    let sums = std::fs::read_to_string(out.join("SHA256SUMS")).unwrap();

    // Linux: tar.gz with exactly the files; sha256 filled in.
    let linux = platform(&m, "linux", "amd64");
    let tgz = out.join(archive_name(linux));
    let listing = run("tar", &["tzf", tgz.to_str().unwrap()], None, None);
    assert!(listing.status.success(), "{}", stderr(&listing));
    let in_tar: BTreeSet<String> = stdout(&listing)
        .lines()
        .map(|l| l.trim_start_matches("./").to_owned())
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(
        in_tar,
        file_names(linux),
        "tar.gz contents vs manifest files"
    );
    let sha = sha256_of(&tgz);
    assert_eq!(
        platform(&written, "linux", "amd64")["sha256"].as_str(),
        Some(sha.as_str())
    );
    assert!(sums.contains(&format!("{sha}  {}", archive_name(linux))));

    // Windows: zip with exactly the files.
    let win = platform(&m, "windows", "amd64");
    let zip = out.join(archive_name(win));
    let listing = run("unzip", &["-Z1", zip.to_str().unwrap()], None, None);
    assert!(listing.status.success(), "{}", stderr(&listing));
    let in_zip: BTreeSet<String> = stdout(&listing).lines().map(str::to_owned).collect();
    assert_eq!(in_zip, file_names(win), "zip contents vs manifest files");
    assert_eq!(
        platform(&written, "windows", "amd64")["sha256"].as_str(),
        Some(sha256_of(&zip).as_str())
    );

    // Not built: placeholders stay; everything else is unchanged.
    assert_eq!(
        platform(&written, "darwin", "arm64")["sha256"].as_str(),
        Some(PLACEHOLDER_SHA)
    );
    let mut a = written.clone();
    let mut b = m.clone();
    for v in [&mut a, &mut b] {
        for p in v["spec"]["platforms"].as_array_mut().unwrap() {
            p["sha256"] = Value::Null;
        }
    }
    assert_eq!(a, b, "release.sh must only fill in sha256 values");

    // The unpacked archive is a working plugin: kubectl finds it and completes through the shim.
    let unpacked = tmp.path().join("unpacked");
    std::fs::create_dir_all(&unpacked).unwrap();
    let x = run(
        "tar",
        &[
            "xzf",
            tgz.to_str().unwrap(),
            "-C",
            unpacked.to_str().unwrap(),
        ],
        None,
        None,
    );
    assert!(x.status.success());
    let list = run("kubectl", &["plugin", "list"], None, Some(&unpacked));
    assert!(
        stdout(&list).contains(&format!("{}/kubectl-gc", unpacked.display())),
        "kubectl plugin list: {}{}",
        stdout(&list),
        stderr(&list)
    );
    let version = run("kubectl", &["gc", "--version"], None, Some(&unpacked));
    assert_eq!(stdout(&version).trim(), expected_version_line());
    let complete = run(
        "kubectl",
        &["__complete", "gc", "audit", "-o", ""],
        None,
        Some(&unpacked),
    );
    assert_eq!(
        candidates(&stdout(&complete)),
        (
            vec![
                "table",
                "wide",
                "json",
                "yaml",
                "name",
                "sarif",
                "junit",
                "markdown",
                "html",
                "jsonpath=",
                "custom-columns="
            ],
            ":4".to_owned()
        ),
        "kubectl __complete gc audit -o \"\": {}{}",
        stdout(&complete),
        stderr(&complete)
    );
    let complete = run("kubectl", &["__complete", "gc", ""], None, Some(&unpacked));
    let text = stdout(&complete);
    let (subs, directive) = candidates(&text);
    for sub in ["audit", "collect", "snapshot", "completion"] {
        assert!(subs.contains(&sub), "{sub} missing: {}", stdout(&complete));
    }
    assert_eq!(directive, ":4");
}

/// Candidate values (without descriptions) and the directive line of a Cobra answer.
fn candidates(out: &str) -> (Vec<&str>, String) {
    let mut lines: Vec<&str> = out.lines().collect();
    let directive = lines.pop().unwrap_or("").to_owned();
    (
        lines
            .into_iter()
            .map(|l| l.split('\t').next().unwrap_or(""))
            .collect(),
        directive,
    )
}

#[test]
fn complete_protocol_from_the_binary() {
    let o = run(BIN, &["__complete", "audit", "-o", ""], None, None);
    assert!(o.status.success());
    assert_eq!(
        candidates(&stdout(&o)),
        (
            vec![
                "table",
                "wide",
                "json",
                "yaml",
                "name",
                "sarif",
                "junit",
                "markdown",
                "html",
                "jsonpath=",
                "custom-columns="
            ],
            ":4".to_owned()
        )
    );
    let o = run(BIN, &["__complete", "collect", "--cascade="], None, None);
    let text = stdout(&o);
    let (values, _) = candidates(&text);
    assert!(values.contains(&"--cascade=foreground"), "{}", stdout(&o));
    // Paths are left to the shell (directive 0 = default file completion).
    let o = run(BIN, &["__complete", "audit", "--snapshot", ""], None, None);
    assert_eq!(stdout(&o), ":0\n");
    // Hidden from help and from the completion of subcommands.
    let help = stdout(&run(BIN, &["--help"], None, None));
    assert!(!help.contains("__complete"));
    let o = run(BIN, &["__complete", "__"], None, None);
    assert!(!stdout(&o).contains("__complete"));
}

fn shim_path(name: &str) -> PathBuf {
    root().join("completions").join(name)
}

#[test]
fn completion_shims_call_the_binary() {
    let sh = std::fs::read_to_string(shim_path("kubectl_complete-gc")).unwrap();
    assert!(sh.starts_with("#!/usr/bin/env sh\n"), "{sh}");
    assert!(sh.contains("\nexec kubectl-gc __complete \"$@\"\n"), "{sh}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(shim_path("kubectl_complete-gc"))
            .unwrap()
            .permissions()
            .mode();
        assert!(
            mode & 0o111 != 0,
            "completions/kubectl_complete-gc must be executable"
        );
    }
    let cmd = std::fs::read_to_string(shim_path("kubectl_complete-gc.cmd")).unwrap();
    assert!(cmd.contains("kubectl-gc.exe\" __complete %*"), "{cmd}");
    assert!(cmd.contains("\r\n"), "a .cmd file needs CRLF line ends");
}

/// Where the generated script for each shell lives, and how to regenerate it.
fn generated() -> Vec<(clap_complete::Shell, PathBuf)> {
    use clap_complete::{Generator, Shell};
    [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::PowerShell,
        Shell::Elvish,
    ]
    .into_iter()
    .map(|s| (s, shim_path(&s.file_name("kubectl-gc"))))
    .collect()
}

/// The scripts in completions/ are what `kubectl gc completion SHELL` prints now. Set
/// `KGC_BLESS=1` to rewrite them instead (same as `scripts/gen-completions.sh`).
#[test]
fn completion_scripts_are_current() {
    let bless = std::env::var_os("KGC_BLESS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (shell, path) in generated() {
        let o = run(BIN, &["completion", &shell.to_string()], None, None);
        assert!(o.status.success(), "completion {shell}: {}", stderr(&o));
        assert!(o.stdout.len() > 1000, "completion {shell} is too short");
        let current = std::fs::read(&path).unwrap_or_default();
        if current != o.stdout {
            if bless {
                std::fs::write(&path, &o.stdout).unwrap();
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale completion scripts: {}\nregenerate them with `scripts/gen-completions.sh` \
         (or `KGC_BLESS=1 cargo test --test integration completion_scripts_are_current`)",
        stale.join(", ")
    );
}

/// The bash script really completes after a subcommand (clap-rs/clap#6421 breaks this for
/// binary names with a dash; `completion_script` works around it).
#[test]
fn bash_script_completes_subcommands_and_values() {
    let script = shim_path("kubectl-gc.bash");
    let probe = format!(
        r#"source '{}'
reply() {{ COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=();
  _kubectl_gc kubectl-gc "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"; echo "${{COMPREPLY[*]}}"; }}
reply kubectl-gc co
reply kubectl-gc audit -o ''
reply kubectl-gc collect --cascade f
reply kubectl-gc audit --fail
complete -p kubectl-gc"#,
        script.display()
    );
    let o = run("bash", &["-c", &probe], None, None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "collect completion codes");
    assert_eq!(
        lines[1],
        "table wide json yaml name sarif junit markdown html jsonpath= custom-columns="
    );
    assert_eq!(lines[2], "foreground");
    assert_eq!(lines[3], "--fail-on");
    assert!(lines[4].ends_with(" kubectl-gc"), "{}", lines[4]);
}

fn expected_version_line() -> String {
    format!(
        "kubectl-gc {VERSION} ({}, {})",
        env!("KGC_GIT_COMMIT"),
        env!("KGC_TARGET")
    )
}

#[test]
fn version_names_commit_and_target() {
    let o = run(BIN, &["--version"], None, None);
    assert!(o.status.success());
    let line = stdout(&o);
    assert_eq!(line.trim_end(), expected_version_line());
    let commit = env!("KGC_GIT_COMMIT");
    assert!(
        commit == "unknown commit"
            || (commit.len() == 12 && commit.bytes().all(|b| b.is_ascii_hexdigit())),
        "{commit}"
    );
    assert!(env!("KGC_TARGET").contains('-'), "target triple");
    assert_eq!(stdout(&run(BIN, &["-V"], None, None)), line);
}

/// Every command's `--help` says what it does, shows an example and its defaults.
#[test]
fn every_help_has_examples_and_defaults() {
    use clap::CommandFactory;
    let cli = kubectl_gc::cli::Cli::command();
    let mut names: Vec<(Vec<String>, bool)> = vec![(vec![], false)];
    for sub in cli.get_subcommands() {
        if sub.get_name() != "help" {
            // Global flags are listed once, by `kubectl gc options`; defaults are asserted
            // where the command has options of its own with one.
            let has_defaults = sub
                .get_arguments()
                .any(|a| !a.is_hide_set() && !a.get_default_values().is_empty());
            names.push((vec![sub.get_name().to_owned()], has_defaults));
            for subsub in sub.get_subcommands().filter(|s| s.get_name() != "help") {
                names.push((
                    vec![sub.get_name().to_owned(), subsub.get_name().to_owned()],
                    has_defaults,
                ));
            }
        }
    }
    for (path, has_defaults) in names {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let o = run(BIN, &args, None, None);
        let help = stdout(&o);
        let what = format!("kubectl gc {}", args.join(" "));
        assert!(o.status.success(), "{what}: {}", stderr(&o));
        assert!(help.contains("Usage: kubectl gc"), "{what}");
        assert!(help.contains("\nExamples:\n  "), "{what} shows no example");
        let example = format!("  kubectl gc {}", path.first().map_or("", String::as_str));
        assert!(
            help.contains(&example),
            "{what}: no example of this command"
        );
        if has_defaults {
            assert!(help.contains("[default: "), "{what} lists no defaults");
        }
        assert!(
            help.contains("\nExit codes:\n  0  "),
            "{what} lists no exit codes"
        );
        if !path.is_empty() && !["options", "completion", "version"].contains(&path[0].as_str()) {
            assert!(
                help.contains(
                    "Use \"kubectl gc options\" for a list of global command-line options"
                ),
                "{what}: no pointer to the global options"
            );
            assert!(
                !help.contains("--kubeconfig"),
                "{what}: global flags are listed by `kubectl gc options`, not in every help"
            );
        }
        if let Some(name) = path.first() {
            // In GC terms: the long description names the garbage collector's behaviour.
            let about = help.split("\n\nUsage:").next().unwrap_or("");
            assert!(
                about.contains("GC")
                    || ["completion", "options", "version"].contains(&name.as_str()),
                "{what}: the description does not say what it does in GC terms"
            );
            assert!(about.len() > 60, "{what}: description too short");
        }
    }
}

#[test]
fn usage_errors_exit_2_with_a_hint() {
    let o = run(BIN, &["audit", "--bogus"], None, None);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("unexpected argument '--bogus'"), "{e}");
    assert!(e.contains("--help"), "{e}");
    assert!(stdout(&o).is_empty());

    let o = run(BIN, &["audit", "-o", "xml"], None, None);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("invalid value 'xml' for '--output"), "{e}");
    assert!(
        e.contains(
            "possible values: table, wide, json, yaml, name, sarif, junit, markdown, html, jsonpath=…, custom-columns=…"
        ),
        "{e}"
    );

    let o = run(BIN, &["audti"], None, None);
    assert_eq!(o.status.code(), Some(2));
    // clap names every close subcommand (`admit` is one edit further from `audti`).
    let e = stderr(&o);
    assert!(
        e.contains("similar subcommand") && e.contains("'audit'"),
        "{e}"
    );

    let o = run(BIN, &["audit", "--fail-on", "sometimes"], None, None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--fail-on"));

    let o = run(BIN, &["audit", "--request-timeout", "soon"], None, None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--request-timeout"));
}

/// A shipped example snapshot says where it was made only in words that mean nothing on the
/// reader's machine anyway: no absolute path of the machine that wrote it.
#[test]
fn example_snapshots_record_no_absolute_input_path() {
    let mut checked = 0;
    for entry in std::fs::read_dir(root().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let Some(Ok(header)) = text.lines().next().map(serde_json::from_str::<Value>) else {
            continue;
        };
        if header["kind"] != "Snapshot" {
            continue;
        }
        checked += 1;
        for input in header["provenance"]["inputs"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let input = input.as_str().unwrap_or("");
            assert!(
                !input.starts_with('/') && !input.contains(":\\"),
                "{}: provenance.inputs holds {input:?}",
                path.display()
            );
        }
    }
    assert!(checked >= 4, "only {checked} example snapshots found");
}
