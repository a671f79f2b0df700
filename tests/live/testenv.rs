//! A throwaway Kubernetes control plane on loopback for the live tests, started and stopped by
//! the tests themselves: etcd, kube-apiserver v1.20.2 (RBAC, static tokens) and, on request,
//! kube-controller-manager running only the garbage collector.
//!
//! ```ignore
//! let env = TestEnv::start(false)?; // `true`: with the garbage collector
//! env.kubectl(&["get", "ns"])?;
//! // dropped (also while a test panics): processes killed, directory removed
//! ```
//!
//! What [`TestEnv::start`] sets up, in a fresh directory under the system's temp dir:
//! - etcd and kube-apiserver on free loopback ports; each process's output goes to `<name>.log`
//!   and its pid to `<name>.pid` in that directory;
//! - a service-account signing key (ECDSA P-256, generated in process), which v1.20 requires;
//!   the apiserver makes its own self-signed serving certificate in `certs/`;
//! - static bearer tokens: `admin` in `system:masters`, and `viewer`, whom the ClusterRole
//!   `kgc-viewer` lets get/list/watch the core and workload APIs but not secrets, RBAC objects or
//!   custom resources (a realistic partial-permission user);
//! - `kubeconfig` with contexts `admin` (current) and `viewer`, namespace `default`;
//! - `env`: `export` lines (`KUBECONFIG`, `KGC_TESTENV_*`) to `source` in a shell.
//!
//! Every step waits with a deadline and fails with the reason and the tail of the process's log.
//!
//! Environment:
//! - `KGC_TESTENV_BIN`: the directory holding `kube-apiserver` and `kube-controller-manager`
//!   v1.20.2; default: the last line printed by `scripts/testenv-install` (idempotent; it builds
//!   them from Debian's source package on first use, 10-20 min, and caches them under
//!   `${XDG_CACHE_HOME:-~/.cache}/kubectl-gc/testenv`);
//! - `KGC_ETCD`: the etcd binary; default `etcd` on `PATH` (Debian: `etcd-server`);
//! - `KGC_TESTENV_KEEP=1`: leave the control planes running and their directories in place (the
//!   path is printed) for debugging.
//!
//! `kubectl` must be on `PATH`: the tests drive the cluster with it.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, Once, OnceLock};
use std::time::{Duration, Instant};

/// A running control plane. Dropping it stops it.
pub struct TestEnv {
    /// Its directory: kubeconfig, env, logs, pid files, etcd data.
    pub dir: PathBuf,
    /// Its kubeconfig: contexts `admin` (current) and `viewer`.
    pub kubeconfig: PathBuf,
    /// `https://127.0.0.1:<port>`.
    pub server: String,
    /// Bearer token of `admin` (system:masters).
    pub admin_token: String,
    /// Bearer token of `viewer` (read-only, no secrets / RBAC / custom resources).
    pub viewer_token: String,
    /// `http://127.0.0.1:<port>` of kube-controller-manager's insecure port (it serves
    /// `/debug/controllers/garbagecollector/graph`) while the garbage collector runs.
    pub gc_url: Option<String>,
    /// The audit log (`--audit-log-path`), when the plane was started with an audit level.
    pub audit_log: Option<PathBuf>,
    /// The audit level of every request but reads (`Metadata`, `Request`, `RequestResponse`).
    audit_level: Option<&'static str>,
    /// Admission plugins enabled beyond the API server's defaults
    /// (`--enable-admission-plugins`).
    admission_plugins: &'static [&'static str],
    /// The client certificate and key (PEM) kube-apiserver presents to admission webhooks
    /// (`--admission-control-config-file`, with a kubeconfig for them).
    webhook_client: Option<(String, String)>,
    etcd_url: String,
    api_port: u16,
    id: u64,
    stopped: bool,
}

/// The processes of one control plane. They live in [`PLANES`], not in [`TestEnv`], so that the
/// signal handler can stop every control plane of the process.
struct Plane {
    dir: PathBuf,
    children: Vec<(&'static str, Child)>,
}

static PLANES: Mutex<BTreeMap<u64, Plane>> = Mutex::new(BTreeMap::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

fn planes() -> MutexGuard<'static, BTreeMap<u64, Plane>> {
    PLANES.lock().unwrap_or_else(|e| e.into_inner())
}

// ---------------------------------------------------------------------------------------------
// Where the binaries are

/// The directory holding kube-apiserver and kube-controller-manager (`KGC_TESTENV_BIN`, or what
/// the repository's `scripts/testenv-install` prints). Resolved once per process.
pub fn bin_dir() -> Result<PathBuf, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(find_bin_dir).clone()
}

fn find_bin_dir() -> Result<PathBuf, String> {
    const WHAT: &str = "set KGC_TESTENV_BIN to the directory holding kube-apiserver and \
                        kube-controller-manager v1.20.2";
    let dir = match std::env::var_os("KGC_TESTENV_BIN").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => {
            let install = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/testenv-install");
            if !install.is_file() {
                return Err(format!(
                    "KGC_TESTENV_BIN is not set and {} does not exist: {WHAT}",
                    install.display()
                ));
            }
            let out = Command::new(&install)
                // Cargo's OUT_DIR would redirect Kubernetes' build output (the script unsets
                // it too).
                .env_remove("OUT_DIR")
                .stdin(Stdio::null())
                .stderr(Stdio::inherit())
                .output()
                .map_err(|e| format!("cannot run {}: {e}; {WHAT}", install.display()))?;
            if !out.status.success() {
                return Err(format!(
                    "{} failed ({}); {WHAT}",
                    install.display(),
                    out.status
                ));
            }
            let stdout = String::from_utf8_lossy(&out.stdout);
            PathBuf::from(stdout.lines().last().unwrap_or_default().trim())
        }
    };
    for bin in ["kube-apiserver", "kube-controller-manager"] {
        if !is_executable(&dir.join(bin)) {
            return Err(format!(
                "{} is not an executable file: {WHAT}",
                dir.join(bin).display()
            ));
        }
    }
    Ok(dir)
}

/// The etcd binary: `KGC_ETCD`, or `etcd` on `PATH`.
fn etcd_bin() -> Result<PathBuf, String> {
    match std::env::var_os("KGC_ETCD").filter(|e| !e.is_empty()) {
        Some(p) if is_executable(Path::new(&p)) => Ok(PathBuf::from(p)),
        Some(p) => Err(format!(
            "KGC_ETCD={} is not an executable file: set KGC_ETCD to an etcd binary",
            Path::new(&p).display()
        )),
        None => on_path("etcd").ok_or_else(|| {
            "etcd not found on PATH: set KGC_ETCD to an etcd binary (Debian: etcd-server)".into()
        }),
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

// ---------------------------------------------------------------------------------------------
// Start and stop

impl TestEnv {
    /// Starts a control plane; `with_gc` adds kube-controller-manager with the garbage
    /// collector. Takes a few seconds (longer the first time, when `install` builds).
    pub fn start(with_gc: bool) -> Result<TestEnv, String> {
        Self::start_with(with_gc, None, None)
    }

    /// [`TestEnv::start`] with kube-apiserver presenting the client certificate `cert` (its
    /// key `key`, both PEM) to every admission webhook it calls: an
    /// `AdmissionConfiguration` whose `ValidatingAdmissionWebhook` plugin reads a kubeconfig
    /// with that certificate for user `*` (any webhook).
    pub fn start_with_webhook_client(cert: &str, key: &str) -> Result<TestEnv, String> {
        Self::start_with(false, None, Some((cert.to_owned(), key.to_owned())))
    }

    /// [`TestEnv::start`] with an audit log: every request but reads (get, list, watch) is
    /// logged at `level` to `audit.log` in the plane's directory (JSON lines), as most
    /// clusters' policies do.
    pub fn start_audited(level: &'static str) -> Result<TestEnv, String> {
        Self::start_with(false, Some(level), None)
    }

    /// [`TestEnv::start`] (without the GC) with admission `plugins` enabled beyond the
    /// defaults, e.g. `OwnerReferencesPermissionEnforcement`.
    pub fn start_admitting(plugins: &'static [&'static str]) -> Result<TestEnv, String> {
        Self::start_full(false, None, plugins, None)
    }

    fn start_with(
        with_gc: bool,
        audit_level: Option<&'static str>,
        webhook_client: Option<(String, String)>,
    ) -> Result<TestEnv, String> {
        Self::start_full(with_gc, audit_level, &[], webhook_client)
    }

    fn start_full(
        with_gc: bool,
        audit_level: Option<&'static str>,
        admission_plugins: &'static [&'static str],
        webhook_client: Option<(String, String)>,
    ) -> Result<TestEnv, String> {
        let bin = bin_dir()?;
        let etcd = etcd_bin()?;
        if on_path("kubectl").is_none() {
            return Err(
                "kubectl not found on PATH: the live tests drive the cluster with it \
                 (Debian: kubernetes-client)"
                    .into(),
            );
        }
        install_signal_handler();
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("kgc-testenv-{}-{id}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        planes().insert(
            id,
            Plane {
                dir: dir.clone(),
                children: Vec::new(),
            },
        );
        // From here on, dropping `env` (an error below, a panic) stops what came up.
        let mut env = TestEnv {
            kubeconfig: dir.join("kubeconfig"),
            dir,
            server: String::new(),
            admin_token: String::new(),
            viewer_token: String::new(),
            gc_url: None,
            audit_log: None,
            audit_level,
            admission_plugins,
            webhook_client,
            etcd_url: String::new(),
            api_port: 0,
            id,
            stopped: false,
        };
        env.boot(&bin, &etcd)?;
        if with_gc {
            env.start_gc()?;
        }
        Ok(env)
    }

    fn boot(&mut self, bin: &Path, etcd: &Path) -> Result<(), String> {
        let [etcd_client, etcd_peer, api_port] = free_ports::<3>()?;
        let etcd_client_url = format!("http://127.0.0.1:{etcd_client}");
        let etcd_peer_url = format!("http://127.0.0.1:{etcd_peer}");
        let mut cmd = Command::new(etcd);
        cmd.arg("--data-dir")
            .arg(self.dir.join("etcd"))
            .args(["--listen-client-urls", &etcd_client_url])
            .args(["--advertise-client-urls", &etcd_client_url])
            .args(["--listen-peer-urls", &etcd_peer_url])
            .args(["--initial-advertise-peer-urls", &etcd_peer_url])
            .args(["--initial-cluster", &format!("default={etcd_peer_url}")])
            .args(["--name", "default"])
            .args(["--quota-backend-bytes", &(4u64 << 30).to_string()]);
        self.spawn("etcd", cmd)?;
        self.etcd_url = etcd_client_url;
        self.wait("etcd", Duration::from_secs(30), || {
            http_get(&format!("{}/health", self.etcd_url)).map(drop)
        })?;

        // The service-account signing key (v1.20 requires one) and the static tokens.
        let (key_pem, pub_pem) = service_account_key()?;
        self.write("sa.key", &key_pem)?;
        self.write("sa.pub", &pub_pem)?;
        self.admin_token = format!("admin-{}", random_hex(16)?);
        self.viewer_token = format!("viewer-{}", random_hex(16)?);
        self.write(
            "tokens.csv",
            &format!(
                "{},admin,1,\"system:masters\"\n{},viewer,2\n",
                self.admin_token, self.viewer_token
            ),
        )?;

        self.api_port = api_port;
        if let Some((cert, key)) = &self.webhook_client {
            self.write("webhook-client.crt", cert)?;
            self.write("webhook-client.key", key)?;
            let path = |name: &str| self.dir.join(name).display().to_string();
            self.write(
                "webhook-kubeconfig",
                &format!(
                    "apiVersion: v1\nkind: Config\nusers:\n- name: '*'\n  user:\n    \
                     client-certificate: {}\n    client-key: {}\n",
                    path("webhook-client.crt"),
                    path("webhook-client.key")
                ),
            )?;
            // v1.20 knows WebhookAdmission in v1alpha1 only (v1 came later).
            self.write(
                "admission.yaml",
                &format!(
                    "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n\
                     plugins:\n- name: ValidatingAdmissionWebhook\n  configuration:\n    \
                     apiVersion: apiserver.config.k8s.io/v1alpha1\n    kind: WebhookAdmission\n    \
                     kubeConfigFile: {}\n",
                    path("webhook-kubeconfig")
                ),
            )?;
        }
        if let Some(level) = self.audit_level {
            self.write(
                "audit-policy.yaml",
                &format!(
                    "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\n\
                     rules:\n- level: None\n  verbs: [get, list, watch]\n- level: {level}\n"
                ),
            )?;
            self.audit_log = Some(self.dir.join("audit.log"));
        }
        let cmd = self.apiserver_command(bin);
        self.spawn("kube-apiserver", cmd)?;
        self.server = format!("https://127.0.0.1:{api_port}");
        self.write("kubeconfig", &self.kubeconfig_yaml())?;
        self.write_env_file()?;

        // A runtime of its own, in a thread of its own: this also works when the caller is
        // inside a runtime, and the client lives (and dies) with the runtime it was made on.
        std::thread::scope(|s| {
            s.spawn(|| {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| format!("tokio runtime: {e}"))?;
                let client = rt.block_on(kube_client(&self.kubeconfig))?;
                self.wait("kube-apiserver", Duration::from_secs(90), || {
                    rt.block_on(get(&client, "/readyz"))
                })?;
                rt.block_on(create_viewer_rbac(&client))?;
                // The `default` namespace is made by a controller inside the apiserver, shortly
                // after it reports ready.
                self.wait("kube-apiserver", Duration::from_secs(30), || {
                    rt.block_on(get(&client, "/api/v1/namespaces/default"))
                })
            })
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
        })
    }

    /// kube-apiserver's command line (the same on every start of this plane).
    fn apiserver_command(&self, bin: &Path) -> Command {
        let mut cmd = Command::new(bin.join("kube-apiserver"));
        let path = |name: &str| self.dir.join(name).into_os_string();
        cmd.args(["--etcd-servers", &self.etcd_url])
            .args(["--bind-address", "127.0.0.1"])
            .args(["--advertise-address", "127.0.0.1"])
            .args(["--secure-port", &self.api_port.to_string()])
            .arg("--cert-dir")
            .arg(path("certs"))
            .arg("--token-auth-file")
            .arg(path("tokens.csv"))
            .args(["--authorization-mode", "RBAC"])
            .arg("--service-account-key-file")
            .arg(path("sa.pub"))
            .arg("--service-account-signing-key-file")
            .arg(path("sa.key"))
            .args(["--service-account-issuer", "https://kubernetes.default.svc"])
            .args(["--service-cluster-ip-range", "10.0.0.0/24"])
            .args(["--disable-admission-plugins", "ServiceAccount"])
            .args(["--max-requests-inflight", "1000"])
            .args(["--max-mutating-requests-inflight", "500"]);
        if !self.admission_plugins.is_empty() {
            cmd.args([
                "--enable-admission-plugins",
                &self.admission_plugins.join(","),
            ]);
        }
        if self.webhook_client.is_some() {
            cmd.arg("--admission-control-config-file")
                .arg(path("admission.yaml"));
        }
        if self.audit_level.is_some() {
            cmd.arg("--audit-policy-file")
                .arg(path("audit-policy.yaml"))
                .arg("--audit-log-path")
                .arg(path("audit.log"));
        }
        cmd
    }

    /// Stops kube-apiserver and starts it again on the same port and etcd (clients see their
    /// connections and watches break; etcd keeps the data). Waits until it is ready.
    pub fn restart_apiserver(&mut self) -> Result<(), String> {
        self.kill_process("kube-apiserver");
        let cmd = self.apiserver_command(&bin_dir()?);
        self.spawn("kube-apiserver", cmd)?;
        std::thread::scope(|s| {
            s.spawn(|| {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| format!("tokio runtime: {e}"))?;
                let client = rt.block_on(kube_client(&self.kubeconfig))?;
                self.wait("kube-apiserver", Duration::from_secs(90), || {
                    rt.block_on(get(&client, "/readyz"))
                })
            })
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
        })
    }

    /// Stops the garbage collector and starts it again: a fresh GC on the same cluster (what a
    /// kube-controller-manager restart or a leader change does).
    pub fn restart_gc(&mut self) -> Result<(), String> {
        self.stop_gc();
        self.start_gc()
    }

    fn kill_process(&self, which: &str) {
        if let Some(plane) = planes().get_mut(&self.id) {
            let dir = plane.dir.clone();
            plane.children.retain_mut(|(name, child)| {
                if *name != which {
                    return true;
                }
                kill(&dir, name, child);
                false
            });
        }
    }

    /// Starts kube-controller-manager with only the garbage collector, and waits until its
    /// insecure port answers; sets [`TestEnv::gc_url`].
    pub fn start_gc(&mut self) -> Result<(), String> {
        if self.gc_url.is_some() {
            return Err("the garbage collector is already running".into());
        }
        let [port] = free_ports::<1>()?;
        let mut cmd = Command::new(bin_dir()?.join("kube-controller-manager"));
        cmd.arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .args(["--controllers", "garbagecollector"])
            .arg("--leader-elect=false")
            .arg("--use-service-account-credentials=false")
            .args(["--port", &port.to_string(), "--address", "127.0.0.1"])
            .args(["--secure-port", "0"]);
        self.spawn("kube-controller-manager", cmd)?;
        let url = format!("http://127.0.0.1:{port}");
        self.wait("kube-controller-manager", Duration::from_secs(60), || {
            http_get(&format!("{url}/healthz")).map(drop)
        })?;
        self.gc_url = Some(url);
        self.write_env_file()
    }

    /// Starts kube-controller-manager with `controllers` (e.g. the garbage collector and the
    /// namespace controller) as real clusters run it: each controller under its own service
    /// account (`--use-service-account-credentials`, the token controller minting their tokens
    /// with the plane's signing key), so the GC acts as
    /// `system:serviceaccount:kube-system:generic-garbage-collector`. Waits until it is healthy.
    pub fn start_controllers(&mut self, controllers: &[&str]) -> Result<(), String> {
        if self.gc_url.is_some() {
            return Err("kube-controller-manager is already running".into());
        }
        let mut list: Vec<&str> = controllers.to_vec();
        if !list.contains(&"serviceaccount-token") {
            list.push("serviceaccount-token");
        }
        let [port] = free_ports::<1>()?;
        let mut cmd = Command::new(bin_dir()?.join("kube-controller-manager"));
        cmd.arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .args(["--controllers", &list.join(",")])
            .arg("--leader-elect=false")
            .arg("--use-service-account-credentials=true")
            .arg("--service-account-private-key-file")
            .arg(self.dir.join("sa.key"))
            .arg("--root-ca-file")
            .arg(self.dir.join("certs").join("apiserver.crt"))
            .args(["--port", &port.to_string(), "--address", "127.0.0.1"])
            .args(["--secure-port", "0"]);
        self.spawn("kube-controller-manager", cmd)?;
        let url = format!("http://127.0.0.1:{port}");
        self.wait("kube-controller-manager", Duration::from_secs(60), || {
            http_get(&format!("{url}/healthz")).map(drop)
        })?;
        self.gc_url = Some(url);
        self.write_env_file()
    }

    /// Stops kube-controller-manager (the rest of the control plane keeps running).
    pub fn stop_gc(&mut self) {
        self.kill_process("kube-controller-manager");
        self.gc_url = None;
        let _ = self.write_env_file();
    }

    /// Stops the control plane and removes its directory (also done on drop); with
    /// `KGC_TESTENV_KEEP=1`, leaves both in place and says how to stop it.
    pub fn stop(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        let Some(plane) = planes().remove(&self.id) else {
            return;
        };
        if std::env::var_os("KGC_TESTENV_KEEP").is_some_and(|v| v == "1") {
            let pids: Vec<String> = plane
                .children
                .iter()
                .map(|(_, c)| c.id().to_string())
                .collect();
            eprintln!(
                "k8s-testenv left running (KGC_TESTENV_KEEP=1): source {dir}/env; \
                 stop with: kill {pids}; rm -rf {dir}",
                dir = plane.dir.display(),
                pids = pids.join(" ")
            );
            return;
        }
        stop_plane(plane);
    }

    /// Starts `cmd` as the plane's process `name`, with its output in `<dir>/<name>.log`.
    fn spawn(&self, name: &'static str, mut cmd: Command) -> Result<(), String> {
        let log = std::fs::File::create(self.dir.join(format!("{name}.log")))
            .map_err(|e| format!("{}/{name}.log: {e}", self.dir.display()))?;
        let err = log.try_clone().map_err(|e| e.to_string())?;
        let child = cmd
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("cannot start {name} ({:?}): {e}", cmd.get_program()))?;
        self.write(&format!("{name}.pid"), &format!("{}\n", child.id()))?;
        match planes().get_mut(&self.id) {
            Some(plane) => plane.children.push((name, child)),
            None => {
                let mut child = child;
                kill(&self.dir, name, &mut child);
                return Err("the control plane was stopped while starting".into());
            }
        }
        Ok(())
    }

    /// Polls `ready` every 300 ms until it succeeds; fails when process `name` exits or after
    /// `timeout`, with the last lines of its log.
    fn wait(
        &self,
        name: &str,
        timeout: Duration,
        mut ready: impl FnMut() -> Result<(), String>,
    ) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        loop {
            let last = match ready() {
                Ok(()) => return Ok(()),
                Err(e) => e,
            };
            let exited = planes().get_mut(&self.id).and_then(|p| {
                let (_, child) = p.children.iter_mut().find(|(n, _)| *n == name)?;
                child.try_wait().ok().flatten()
            });
            let why = match exited {
                Some(status) => format!("{name} exited ({status})"),
                None if Instant::now() >= deadline => format!(
                    "{name} was not ready within {} s (last answer: {last})",
                    timeout.as_secs()
                ),
                None => {
                    std::thread::sleep(Duration::from_millis(300));
                    continue;
                }
            };
            let log = self.dir.join(format!("{name}.log"));
            return Err(format!("{why}; {}:\n{}", log.display(), tail(&log, 15)));
        }
    }

    fn write(&self, name: &str, text: &str) -> Result<(), String> {
        let p = self.dir.join(name);
        std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))
    }

    fn kubeconfig_yaml(&self) -> String {
        format!(
            "apiVersion: v1
kind: Config
clusters:
- name: testenv
  cluster:
    server: {server}
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: {admin}
- name: viewer
  user:
    token: {viewer}
contexts:
- name: admin
  context: {{cluster: testenv, user: admin, namespace: default}}
- name: viewer
  context: {{cluster: testenv, user: viewer, namespace: default}}
current-context: admin
",
            server = self.server,
            admin = self.admin_token,
            viewer = self.viewer_token
        )
    }

    fn write_env_file(&self) -> Result<(), String> {
        let q = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        let vars = [
            ("KUBECONFIG", self.kubeconfig.to_string_lossy().into_owned()),
            ("KGC_TESTENV_DIR", self.dir.to_string_lossy().into_owned()),
            ("KGC_TESTENV_SERVER", self.server.clone()),
            ("KGC_TESTENV_ADMIN_TOKEN", self.admin_token.clone()),
            ("KGC_TESTENV_VIEWER_TOKEN", self.viewer_token.clone()),
            ("KGC_TESTENV_ETCD", self.etcd_url.clone()),
            (
                "KGC_TESTENV_GC_URL",
                self.gc_url.clone().unwrap_or_default(),
            ),
        ];
        let text: String = vars
            .iter()
            .map(|(k, v)| format!("export {k}={}\n", q(v)))
            .collect();
        self.write("env", &text)
    }
}

impl Drop for TestEnv {
    fn drop(&mut self) {
        self.stop();
    }
}

fn kill(dir: &Path, name: &str, child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_file(dir.join(format!("{name}.pid")));
}

/// Kills the plane's processes, last started first, and removes its directory.
fn stop_plane(mut plane: Plane) {
    while let Some((name, mut child)) = plane.children.pop() {
        kill(&plane.dir, name, &mut child);
    }
    if let Err(e) = std::fs::remove_dir_all(&plane.dir) {
        eprintln!("k8s-testenv: cannot remove {}: {e}", plane.dir.display());
    }
}

/// On SIGINT or SIGTERM, stops every control plane of the process before exiting: a test run
/// that is interrupted leaves no etcd or apiserver behind.
fn install_signal_handler() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::thread::spawn(|| {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async {
                use tokio::signal::unix::{SignalKind, signal};
                let (Ok(mut int), Ok(mut term)) = (
                    signal(SignalKind::interrupt()),
                    signal(SignalKind::terminate()),
                ) else {
                    return;
                };
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
                eprintln!("\ninterrupted: stopping the test control planes");
                let all = std::mem::take(&mut *planes());
                for plane in all.into_values() {
                    stop_plane(plane);
                }
                std::process::exit(130);
            });
        });
    });
}

// ---------------------------------------------------------------------------------------------
// Building blocks

/// `N` distinct free ports on 127.0.0.1 (bound together, then released for the processes).
fn free_ports<const N: usize>() -> Result<[u16; N], String> {
    let listeners: Vec<TcpListener> = (0..N)
        .map(|_| TcpListener::bind((Ipv4Addr::LOCALHOST, 0)))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("no free loopback port: {e}"))?;
    let mut ports = [0; N];
    for (p, l) in ports.iter_mut().zip(&listeners) {
        *p = l.local_addr().map_err(|e| e.to_string())?.port();
    }
    Ok(ports)
}

/// `GET http://127.0.0.1:<port><path>` (HTTP/1.0, so the body ends with the connection):
/// the body of a 2xx answer, an error otherwise. For etcd's and kube-controller-manager's plain
/// HTTP endpoints, without an HTTP client crate or curl.
pub fn http_get(url: &str) -> Result<String, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("not an http:// URL: {url}"))?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let addr: SocketAddr = host
        .parse()
        .map_err(|e| format!("{url}: host must be IP:port ({e})"))?;
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2))
        .map_err(|e| format!("GET {url}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .map_err(|e| e.to_string())?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n")
        .map_err(|e| format!("GET {url}: {e}"))?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)
        .map_err(|e| format!("GET {url}: {e}"))?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("GET {url}: no HTTP header in the answer"))?;
    let status = head.split(' ').nth(1).unwrap_or("");
    if !status.starts_with('2') {
        return Err(format!("GET {url}: HTTP {status}: {}", body.trim()));
    }
    Ok(body.to_owned())
}

async fn kube_client(kubeconfig: &Path) -> Result<kube::Client, String> {
    let config = kube::config::Kubeconfig::read_from(kubeconfig).map_err(|e| e.to_string())?;
    let opts = kube::config::KubeConfigOptions {
        context: Some("admin".into()),
        ..Default::default()
    };
    let config = kube::Config::from_custom_kubeconfig(config, &opts)
        .await
        .map_err(|e| e.to_string())?;
    kube::Client::try_from(config).map_err(|e| e.to_string())
}

/// One GET through the apiserver, bounded to 5 s.
async fn get(client: &kube::Client, path: &str) -> Result<(), String> {
    let req = http::Request::get(path)
        .body(Vec::new())
        .map_err(|e| e.to_string())?;
    match tokio::time::timeout(Duration::from_secs(5), client.request_text(req)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(format!("GET {path}: {e}")),
        Err(_) => Err(format!("GET {path}: no answer within 5 s")),
    }
}

/// The `kgc-viewer` ClusterRole and its binding to the user `viewer`.
async fn create_viewer_rbac(client: &kube::Client) -> Result<(), String> {
    let verbs = ["get", "list", "watch"];
    let role = serde_json::json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "kgc-viewer"},
        "rules": [
            {
                "apiGroups": [""],
                "resources": ["configmaps", "endpoints", "events", "limitranges", "namespaces",
                    "persistentvolumeclaims", "persistentvolumes", "pods", "podtemplates",
                    "replicationcontrollers", "resourcequotas", "serviceaccounts", "services",
                    "nodes"],
                "verbs": verbs,
            },
            {
                "apiGroups": ["apps", "batch", "autoscaling", "policy", "networking.k8s.io",
                    "discovery.k8s.io", "coordination.k8s.io"],
                "resources": ["*"],
                "verbs": verbs,
            },
        ],
    });
    let binding = serde_json::json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "kgc-viewer"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
            "name": "kgc-viewer"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "viewer"}],
    });
    for (plural, body) in [("clusterroles", role), ("clusterrolebindings", binding)] {
        let path = format!("/apis/rbac.authorization.k8s.io/v1/{plural}");
        let req = http::Request::post(&path)
            .header("Content-Type", "application/json")
            .body(body.to_string().into_bytes())
            .map_err(|e| e.to_string())?;
        client
            .request_text(req)
            .await
            .map_err(|e| format!("POST {path}: {e}"))?;
    }
    Ok(())
}

/// A new ECDSA P-256 key pair as PEM: (PKCS#8 private key, SubjectPublicKeyInfo public key).
/// The apiserver signs service-account tokens with the first and verifies them with the second.
fn service_account_key() -> Result<(String, String), String> {
    use ring::signature::{ECDSA_P256_SHA256_ASN1_SIGNING, EcdsaKeyPair, KeyPair};
    let rng = ring::rand::SystemRandom::new();
    let alg = &ECDSA_P256_SHA256_ASN1_SIGNING;
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(alg, &rng)
        .map_err(|_| "cannot generate the service-account key")?;
    let pair = EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng)
        .map_err(|e| format!("service-account key: {e}"))?;
    // SubjectPublicKeyInfo { id-ecPublicKey, prime256v1 } followed by the uncompressed point.
    const P256_SPKI_PREFIX: [u8; 26] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08,
        0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ];
    let mut spki = P256_SPKI_PREFIX.to_vec();
    spki.extend_from_slice(pair.public_key().as_ref());
    Ok((pem("PRIVATE KEY", pkcs8.as_ref()), pem("PUBLIC KEY", &spki)))
}

fn pem(label: &str, der: &[u8]) -> String {
    const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut b64 = String::new();
    for chunk in der.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            b64.push(if i <= chunk.len() {
                B64[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap_or_default());
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

fn random_hex(bytes: usize) -> Result<String, String> {
    use ring::rand::SecureRandom;
    let mut buf = vec![0u8; bytes];
    ring::rand::SystemRandom::new()
        .fill(&mut buf)
        .map_err(|_| "no randomness for the tokens")?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// The last `n` lines of a log file.
fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

// ---------------------------------------------------------------------------------------------
// Driving the cluster

impl TestEnv {
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
}
