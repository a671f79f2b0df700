//! Every command shown in README.md runs, with the documented exit code and real output.
//!
//! Offline commands (on `--snapshot examples/…`, `-f` inputs, `completion`, `--help`) run here
//! with the built binary, in order, in one scratch directory that has `examples/` in it, with a
//! kubeconfig that does not exist (so none can reach a cluster by accident). Commands that need
//! a live cluster are listed in `tests/support/readme.rs` (`LIVE`) and run by the live suite
//! `source` (`tests/live/source.rs`, test `readme_live_commands`).

use crate::support::readme;

use std::ffi::OsString;

fn load() -> (String, Vec<readme::Example>) {
    let text = std::fs::read_to_string(readme::readme_path()).expect("README.md");
    let examples = readme::examples(&text);
    (text, examples)
}

#[test]
fn readme_shows_commands_for_every_subcommand() {
    let (_, examples) = load();
    assert!(
        examples.len() >= 10,
        "only {} commands found",
        examples.len()
    );
    let shown = |sub: &str| {
        examples
            .iter()
            .any(|e| e.command.split_whitespace().any(|w| w == sub))
    };
    use clap::CommandFactory;
    for sub in kubectl_gc::cli::Cli::command().get_subcommands() {
        let name = sub.get_name();
        assert!(
            shown(name),
            "README.md shows no `kubectl gc {name} …` command in a sh/console block"
        );
    }
}

#[test]
fn live_allow_list_is_still_in_the_readme() {
    let (_, examples) = load();
    for (cmd, _) in readme::LIVE {
        assert!(
            examples.iter().any(|e| e.command == *cmd),
            "tests/support/readme.rs LIVE lists `{cmd}`, which README.md no longer shows: \
             remove it from LIVE"
        );
    }
}

#[test]
fn every_offline_readme_command_runs() {
    let (_, examples) = load();
    let scratch = tempfile::tempdir().expect("tempdir");
    let cwd = scratch.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let examples_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&examples_dir, cwd.join("examples")).unwrap();
    make_must_gather(&cwd.join("must-gather"));
    let bin = readme::bin_dir(scratch.path());
    let env: Vec<(&str, OsString)> = vec![(
        "KUBECONFIG",
        scratch.path().join("no-such-kubeconfig").into_os_string(),
    )];

    let mut ran = 0;
    let mut failures = Vec::new();
    for ex in &examples {
        if readme::LIVE.iter().any(|(c, _)| *c == ex.command) {
            continue;
        }
        let out = readme::run(&ex.command, &cwd, &bin, false, &env);
        ran += 1;
        if let Err(e) = readme::check(ex, &cwd, &out) {
            let hint = if out.status.code() == Some(4) {
                "\n(hint: this command needs a cluster: list it in LIVE in tests/support/readme.rs, \
                 which makes the live test source::readme_live_commands run it)"
            } else {
                ""
            };
            failures.push(format!("{e}{hint}"));
        }
    }
    assert!(ran >= 8, "only {ran} offline README commands ran");
    assert!(
        failures.is_empty(),
        "{} of {ran} README commands failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The README's `-f must-gather/ -R` example runs on a directory shaped like an OpenShift
/// must-gather (`namespaces/<ns>/<group>/<resource>.yaml`, one List per file), built from
/// `examples/shop-kubectl-get.yaml`.
fn make_must_gather(root: &std::path::Path) {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shop-kubectl-get.yaml"),
    )
    .unwrap();
    let list: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    let mut by_file: std::collections::BTreeMap<String, Vec<serde_json::Value>> =
        Default::default();
    for item in list["items"].as_array().unwrap() {
        let ns = item["metadata"]["namespace"].as_str().unwrap();
        let group = match item["apiVersion"].as_str().unwrap().split_once('/') {
            Some((g, _)) => g.to_owned(),
            None => "core".to_owned(),
        };
        let resource = format!("{}s", item["kind"].as_str().unwrap().to_lowercase());
        by_file
            .entry(format!("namespaces/{ns}/{group}/{resource}.yaml"))
            .or_default()
            .push(item.clone());
    }
    for (file, items) in by_file {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // As `oc adm inspect` writes them: lists the API server returned whole.
        let doc = serde_json::json!({"apiVersion": "v1", "kind": "List",
            "metadata": {"resourceVersion": "48300"}, "items": items});
        std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    }
}

#[test]
fn extraction_understands_prompts_comments_pipes_and_outputs() {
    let text = "\
```sh
kubectl gc audit -A            # all namespaces
kubectl get pods -o json | kubectl gc audit -f -
cargo test
echo '# not a comment' && kubectl-gc --version
```
```console
$ cargo run -- audit --snapshot x.json
SEVERITY  CODE
...
1 finding
$ kubectl gc --help
```
```text
kubectl gc audit -A
```
";
    let ex = readme::examples(text);
    let cmds: Vec<&str> = ex.iter().map(|e| e.command.as_str()).collect();
    assert_eq!(
        cmds,
        [
            "kubectl gc audit -A",
            "kubectl get pods -o json | kubectl gc audit -f -",
            "cargo run -- audit --snapshot x.json",
            "kubectl gc --help",
        ]
    );
    assert_eq!(ex[0].line, 2);
    assert!(ex[0].expected.is_none());
    assert_eq!(
        ex[2].expected.as_deref(),
        Some(
            &[
                "SEVERITY  CODE".to_owned(),
                "...".into(),
                "1 finding".into()
            ][..]
        )
    );
    assert_eq!(ex[3].expected.as_deref(), Some(&[][..]));
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(readme::lines_match(
        &s(&["a", "...", "z"]),
        &s(&["a", "b", "c", "z"])
    ));
    assert!(!readme::lines_match(&s(&["a", "z"]), &s(&["a", "b", "z"])));
    assert_eq!(
        readme::written_file("kubectl gc snapshot -f x -o out.ndjson").as_deref(),
        Some("out.ndjson")
    );
}
