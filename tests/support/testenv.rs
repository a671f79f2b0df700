//! A real Kubernetes control plane for integration tests (`../shared/k8s-testenv`).
//!
//! Use from a test file with
//! ```ignore
//! #[path = "support/testenv.rs"]
//! mod testenv;
//! let env = testenv::TestEnv::start(false)?; // or `true` for the garbage collector too
//! ```
//! `start` runs the (idempotent) `install` script, then `start --dir <fresh dir>`, and reads the
//! `env` file it writes. Dropping the [`TestEnv`] runs `stop --dir`. Start one cluster per test
//! binary: it takes several seconds.
//!
//! Environment:
//! - `KGC_TESTENV_SCRIPTS`: the directory holding `install`/`start`/`stop` (default
//!   `<crate>/../shared/k8s-testenv`);
//! - `KGC_TESTENV_KEEP=1`: leave the cluster running and its directory in place (its path is
//!   printed) for debugging.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A running control plane.
pub struct TestEnv {
    /// The directory `start` wrote to (kubeconfig, logs, pid files).
    pub dir: PathBuf,
    /// Its kubeconfig: contexts `admin` (current) and `viewer`.
    pub kubeconfig: PathBuf,
    /// `https://127.0.0.1:<port>`.
    pub server: String,
    /// Bearer token of `admin` (system:masters).
    pub admin_token: String,
    /// Bearer token of `viewer` (read-only, no secrets / RBAC / custom resources).
    pub viewer_token: String,
    /// The GC's debug URL when started with the garbage collector.
    pub gc_url: Option<String>,
    scripts: PathBuf,
    stopped: bool,
}

/// The directory holding the testenv scripts.
pub fn scripts_dir() -> PathBuf {
    match std::env::var_os("KGC_TESTENV_SCRIPTS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/k8s-testenv"),
    }
}

fn run_script(script: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(script)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} {} failed ({})",
            script.display(),
            args.join(" "),
            out.status
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Parses the `export NAME="value"` lines of the env file.
fn parse_env(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("export "))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.trim_matches('"').to_owned()))
        .collect()
}

impl TestEnv {
    /// Installs (if needed) and starts a control plane; `with_gc` adds the garbage collector.
    pub fn start(with_gc: bool) -> Result<TestEnv, String> {
        let scripts = scripts_dir();
        for s in ["install", "start", "stop"] {
            if !scripts.join(s).exists() {
                return Err(format!("{} is missing", scripts.join(s).display()));
            }
        }
        run_script(&scripts.join("install"), &[])?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("kgc-testenv-{}-{nanos:x}", std::process::id()));
        let dir_s = dir.to_string_lossy().into_owned();
        let mut args = vec!["--dir", dir_s.as_str()];
        if with_gc {
            args.push("--with-gc");
        }
        let mut env = TestEnv {
            dir: dir.clone(),
            kubeconfig: dir.join("kubeconfig"),
            server: String::new(),
            admin_token: String::new(),
            viewer_token: String::new(),
            gc_url: None,
            scripts: scripts.clone(),
            stopped: false,
        };
        // From here on, Drop stops whatever part of the control plane came up.
        run_script(&scripts.join("start"), &args)?;
        let text = std::fs::read_to_string(dir.join("env"))
            .map_err(|e| format!("cannot read {}/env: {e}", dir.display()))?;
        let vars = parse_env(&text);
        let get = |k: &str| {
            vars.get(k)
                .cloned()
                .ok_or_else(|| format!("{k} missing from {}/env", dir.display()))
        };
        env.kubeconfig = PathBuf::from(get("KUBECONFIG")?);
        env.server = get("KGC_TESTENV_SERVER")?;
        env.admin_token = get("KGC_TESTENV_ADMIN_TOKEN")?;
        env.viewer_token = get("KGC_TESTENV_VIEWER_TOKEN")?;
        env.gc_url = vars
            .get("KGC_TESTENV_GC_URL")
            .filter(|u| !u.is_empty())
            .cloned();
        Ok(env)
    }

    /// Runs `kubectl --kubeconfig <ours> <args>` and returns stdout.
    pub fn kubectl(&self, args: &[&str]) -> Result<String, String> {
        self.kubectl_stdin(args, None)
    }

    /// Runs kubectl with `stdin` piped in (e.g. `apply -f -`).
    pub fn kubectl_stdin(&self, args: &[&str], stdin: Option<&str>) -> Result<String, String> {
        let mut child = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .args(args)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run kubectl: {e}"))?;
        if let Some(input) = stdin {
            let mut pipe = child.stdin.take().expect("piped stdin");
            pipe.write_all(input.as_bytes())
                .map_err(|e| format!("writing to kubectl: {e}"))?;
        }
        let out = child
            .wait_with_output()
            .map_err(|e| format!("waiting for kubectl: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "kubectl {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Writes a kubeconfig variant into the env's directory and returns its path.
    pub fn write_kubeconfig(&self, name: &str, yaml: &str) -> PathBuf {
        let p = self.dir.join(name);
        std::fs::write(&p, yaml).expect("write kubeconfig");
        p
    }

    /// Stops the control plane now (also done on drop).
    pub fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        if std::env::var_os("KGC_TESTENV_KEEP").is_some_and(|v| v == "1") {
            eprintln!(
                "k8s-testenv left running: source {}/env; stop with {}/stop --dir {}",
                self.dir.display(),
                self.scripts.display(),
                self.dir.display()
            );
            return;
        }
        if self.dir.exists() {
            let dir = self.dir.to_string_lossy().into_owned();
            if let Err(e) = run_script(&self.scripts.join("stop"), &["--dir", &dir]) {
                eprintln!("k8s-testenv: {e}");
            }
        }
    }
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        self.stop();
    }
}
