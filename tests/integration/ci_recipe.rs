//! The CI recipe for `check apply` (deploy/ci/check-apply.yml, through the GitHub Action in
//! action.yml) and the pre-commit hook (.pre-commit-hooks.yaml), run as written.

use crate::check_apply::export;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};

/// The CI recipe (deploy/ci/check-apply.yml, through the action in action.yml) and the
/// pre-commit hook (.pre-commit-hooks.yaml): their commands run as written, with `kubectl-gc`
/// on PATH, on a repository of manifests.
#[test]
fn the_ci_recipe_and_the_pre_commit_hook_run_as_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_kubectl-gc"), bin.join("kubectl-gc")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("manifests")).unwrap();
    let good = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ok", "namespace": "shop"}});
    std::fs::write(repo.join("manifests/ok.json"), good.to_string()).unwrap();

    // The workflow's step is the action (action.yml); its `check` step runs with the
    // workflow's inputs (else the action's defaults), as the runner gives them: environment
    // variables, and a file for the step's outputs.
    let yaml = |path: &str| -> Value {
        serde_saphyr::from_str(&std::fs::read_to_string(root.join(path)).unwrap()).unwrap()
    };
    let workflow = yaml("deploy/ci/check-apply.yml");
    let action = yaml("action.yml");
    let steps = workflow["jobs"]["gc-check-apply"]["steps"]
        .as_array()
        .unwrap();
    assert!(
        steps.iter().all(|s| s["run"].is_null()),
        "the workflow runs nothing itself: {steps:?}"
    );
    let uses = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("kubectl-gc/kubectl-gc@"))
        })
        .expect("the workflow uses the action");
    let input = |name: &str| -> String {
        uses["with"][name]
            .as_str()
            .or(action["inputs"][name]["default"].as_str())
            .unwrap_or_else(|| panic!("no input {name}"))
            .to_owned()
    };
    let action_steps = action["runs"]["steps"].as_array().unwrap();
    let check = action_steps
        .iter()
        .find(|s| s["id"] == "check")
        .and_then(|s| s["run"].as_str())
        .expect("the action's check step")
        .to_owned();
    assert!(
        action_steps
            .iter()
            .any(|s| s["uses"] == "github/codeql-action/upload-sarif@v4"),
        "the upload goes through upload-sarif v4 (v3 is deprecated)"
    );
    let outputs = dir.path().join("github-output");
    let run = |cmd: &str| {
        std::fs::write(&outputs, "").unwrap();
        Command::new("bash")
            .arg("-c")
            .arg(cmd)
            .current_dir(&repo)
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env("KGC_ARGS", input("args"))
            .env("KGC_FAIL_ON", input("fail-on"))
            .env("KGC_SARIF", input("sarif-file"))
            .env("GITHUB_OUTPUT", &outputs)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&check);
    assert!(
        out.status.success(),
        "{check}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&outputs).unwrap(), "exit-code=0\n");
    let sarif_path = repo.join(input("sarif-file"));
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif_path).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");

    // A manifest with a stale ownerReference: the step records exit 5 (findings at or above
    // --fail-on error) for the action's last step to fail the job, and the SARIF shows it.
    std::fs::write(repo.join("manifests/bad.json"), export()[2].to_string()).unwrap();
    let out = run(&check);
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&outputs).unwrap(), "exit-code=5\n");
    let sarif = std::fs::read_to_string(&sarif_path).unwrap();
    assert!(sarif.contains("GC001"), "{sarif}");

    // The pre-commit hook: its entry, with the staged files as arguments.
    let hooks: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(root.join(".pre-commit-hooks.yaml")).unwrap(),
    )
    .unwrap();
    let entry = root.join(hooks[0]["entry"].as_str().unwrap());
    let hook = |files: &[&str]| {
        Command::new(&entry)
            .args(files)
            .current_dir(&repo)
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(hook(&["manifests/ok.json"]), Some(0));
    assert_eq!(hook(&["manifests/ok.json", "manifests/bad.json"]), Some(5));
    assert_eq!(hook(&[]), Some(0), "no staged manifest: nothing to judge");
}
