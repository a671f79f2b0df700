//! Connecting like kubectl: kubeconfig loading, context selection and the first request. The one
//! kubeconfig loader of kubectl-gc: connections, `graph --from-gc` credentials and shell
//! completion all read the kubeconfig through it.
//!
//! Loading follows client-go's `clientcmd` rules rather than kube's defaults:
//! - an explicit `--kubeconfig` that does not exist is an error;
//! - `KUBECONFIG` is a path list: empty entries and missing files are skipped, duplicates are
//!   read once, and the files are merged with "the first file to set a value wins";
//! - otherwise `~/.kube/config`; when that is missing too and we run inside a pod, the pod's
//!   service account (in-cluster config).
//!
//! [`connect`] also sends `GET /version`, so an unreachable server, a TLS problem or rejected
//! credentials are reported before any work starts, as one line plus a hint
//! ([`Error::Cluster`], exit code 4).

use super::request::{self, Failure, Stats, TransportKind};
use super::{ConnectOptions, Connection, DEFAULT_REQUEST_TIMEOUT};
use crate::error::{Error, Result};
use kube::config::{Config, KubeConfigOptions, Kubeconfig, KubeconfigError};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// kube's default connect timeout, used only without a request timeout (`--request-timeout
/// 0`): otherwise the request timeout covers connecting too, so that a server that stalls the
/// TCP or TLS handshake gets the same "timed out after …" as one that never answers.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

fn cluster(message: impl Into<String>, hint: impl Into<String>) -> Error {
    Error::Cluster {
        message: message.into(),
        hint: Some(hint.into()),
    }
}

/// Where the kubeconfig came from (for messages).
struct Loaded {
    config: Kubeconfig,
    /// Files that were read, for messages.
    paths: Vec<PathBuf>,
}

/// Reads the kubeconfig the way kubectl does; `Ok(None)` when there is none at all.
fn load_kubeconfig(explicit: Option<&Path>) -> Result<Option<Loaded>> {
    if let Some(path) = explicit {
        if !path.exists() {
            return Err(cluster(
                format!("kubeconfig {} does not exist", path.display()),
                "check the --kubeconfig path",
            ));
        }
        let config = read_one(path)?;
        return Ok(Some(Loaded {
            config,
            paths: vec![path.to_owned()],
        }));
    }
    if let Some(list) = std::env::var_os("KUBECONFIG") {
        let mut paths: Vec<PathBuf> = Vec::new();
        for p in std::env::split_paths(&list) {
            if p.as_os_str().is_empty() || paths.contains(&p) {
                continue;
            }
            paths.push(p);
        }
        if !paths.is_empty() {
            let existing: Vec<PathBuf> = paths.into_iter().filter(|p| p.exists()).collect();
            let mut merged: Option<Kubeconfig> = None;
            for p in &existing {
                let next = read_one(p)?;
                merged = Some(match merged {
                    None => next,
                    Some(m) => m.merge(next).map_err(|e| {
                        cluster(
                            format!("cannot merge kubeconfig {}: {e}", p.display()),
                            "check the files listed in KUBECONFIG",
                        )
                    })?,
                });
            }
            return Ok(merged.map(|config| Loaded {
                config,
                paths: existing,
            }));
        }
    }
    let home = std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .map(PathBuf::from);
    match home.map(|h| h.join(".kube").join("config")) {
        Some(p) if p.exists() => {
            let config = read_one(&p)?;
            Ok(Some(Loaded {
                config,
                paths: vec![p],
            }))
        }
        _ => Ok(None),
    }
}

fn read_one(path: &Path) -> Result<Kubeconfig> {
    Kubeconfig::read_from(path).map_err(|e| {
        let detail = match &e {
            KubeconfigError::ReadConfig(io, _) => io.to_string(),
            other => {
                // YAML errors carry a multi-line source snippet after " --> ": keep the cause.
                let text = request::one_line(&other.to_string());
                match text.split_once(" --> ") {
                    Some((cause, _)) => cause.to_owned(),
                    None => text,
                }
            }
        };
        cluster(
            format!("cannot read kubeconfig {}: {detail}", path.display()),
            "fix the file or point --kubeconfig/KUBECONFIG at a valid kubeconfig",
        )
    })
}

fn names<'a>(it: impl Iterator<Item = &'a String>) -> String {
    let v: Vec<&str> = it.map(String::as_str).collect();
    if v.is_empty() {
        "none".to_owned()
    } else {
        v.join(", ")
    }
}

/// A flag value, with `--flag=""` meaning "not given" as in kubectl.
fn nonempty(v: &Option<String>) -> Option<&String> {
    v.as_ref().filter(|s| !s.is_empty())
}

/// Checks the context/cluster/user names up front, for messages that list the alternatives.
fn select_context(loaded: &Loaded, opts: &ConnectOptions) -> Result<String> {
    let kc = &loaded.config;
    let files = loaded
        .paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let available = || {
        format!(
            "available contexts: {}",
            names(kc.contexts.iter().map(|c| &c.name))
        )
    };
    let name = match nonempty(&opts.context).or(kc.current_context.as_ref()) {
        Some(n) if !n.is_empty() => n.clone(),
        _ => {
            return Err(cluster(
                format!("no current context is set in kubeconfig {files}"),
                format!("pass --context; {}", available()),
            ));
        }
    };
    let Some(ctx) = kc
        .contexts
        .iter()
        .find(|c| c.name == name)
        .and_then(|c| c.context.as_ref())
    else {
        return Err(cluster(
            format!("context \"{name}\" not found in kubeconfig {files}"),
            available(),
        ));
    };
    let cluster_name = nonempty(&opts.cluster).unwrap_or(&ctx.cluster);
    if !kc.clusters.iter().any(|c| &c.name == cluster_name) {
        return Err(cluster(
            format!(
                "cluster \"{cluster_name}\" (context \"{name}\") not found in kubeconfig {files}"
            ),
            format!(
                "available clusters: {}",
                names(kc.clusters.iter().map(|c| &c.name))
            ),
        ));
    }
    if let Some(user) = nonempty(&opts.user)
        && !kc.auth_infos.iter().any(|u| &u.name == user)
    {
        return Err(cluster(
            format!("user \"{user}\" not found in kubeconfig {files}"),
            format!(
                "available users: {}",
                names(kc.auth_infos.iter().map(|u| &u.name))
            ),
        ));
    }
    Ok(name)
}

fn config_error(e: KubeconfigError, context: &str) -> Error {
    let hint = match &e {
        KubeconfigError::LoadCertificateAuthority(_)
        | KubeconfigError::LoadClientCertificate(_)
        | KubeconfigError::LoadClientKey(_)
        | KubeconfigError::ParseCertificates(_) => {
            "check the certificate settings of the cluster and user of this context"
        }
        KubeconfigError::MissingClusterUrl | KubeconfigError::ParseClusterUrl(_) => {
            "check the `server:` of the context's cluster"
        }
        _ => "check the kubeconfig",
    };
    cluster(
        format!(
            "invalid kubeconfig context \"{context}\": {}",
            request::one_line(&e.to_string())
        ),
        hint,
    )
}

/// `GET /version` answer (the subset we read).
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct VersionInfo {
    git_version: String,
}

// ---- kubectl's connection flags (--server, --token, TLS, --as-uid) ---------------------------
//
// client-go applies these on top of the kubeconfig ("ConfigOverrides"); so does this, on the
// loaded Kubeconfig, before kube turns it into a client configuration: kube does the work
// (reading certificate files, TLS, the bearer token, the impersonation headers).

/// kubectl's flags that override the selected cluster and user of the kubeconfig.
#[derive(Clone, Default)]
pub struct Overrides {
    /// `-s/--server`.
    pub server: Option<String>,
    /// `--token`: replaces the user's credentials with this bearer token.
    pub token: Option<String>,
    /// `--certificate-authority`.
    pub certificate_authority: Option<PathBuf>,
    /// `--client-certificate`.
    pub client_certificate: Option<PathBuf>,
    /// `--client-key`.
    pub client_key: Option<PathBuf>,
    /// `--tls-server-name`.
    pub tls_server_name: Option<String>,
    /// `--insecure-skip-tls-verify`.
    pub insecure_skip_tls_verify: bool,
    /// `--as-uid`.
    pub as_uid: Option<String>,
}

impl std::fmt::Debug for Overrides {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Overrides")
            .field("server", &self.server)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("certificate_authority", &self.certificate_authority)
            .field("client_certificate", &self.client_certificate)
            .field("client_key", &self.client_key)
            .field("tls_server_name", &self.tls_server_name)
            .field("insecure_skip_tls_verify", &self.insecure_skip_tls_verify)
            .field("as_uid", &self.as_uid)
            .finish()
    }
}

impl Overrides {
    fn any(&self) -> bool {
        self.server.is_some()
            || self.token.is_some()
            || self.certificate_authority.is_some()
            || self.client_certificate.is_some()
            || self.client_key.is_some()
            || self.tls_server_name.is_some()
            || self.insecure_skip_tls_verify
    }
}

/// The name of the cluster, user and context made from the flags alone (no kubeconfig).
const FLAGS_ONLY: &str = "kubectl-gc-flags";

/// A kubeconfig holding only what `--server` and the other flags say, for a command line
/// without any kubeconfig file (as kubectl works with `--server` and `--token` alone).
fn from_flags() -> Loaded {
    use kube::config::{Context, NamedAuthInfo, NamedCluster, NamedContext};
    let config = Kubeconfig {
        clusters: vec![NamedCluster {
            name: FLAGS_ONLY.into(),
            cluster: Some(Default::default()),
            ..Default::default()
        }],
        auth_infos: vec![NamedAuthInfo {
            name: FLAGS_ONLY.into(),
            auth_info: Some(Default::default()),
            ..Default::default()
        }],
        contexts: vec![NamedContext {
            name: FLAGS_ONLY.into(),
            context: Some(Context {
                cluster: FLAGS_ONLY.into(),
                user: Some(FLAGS_ONLY.into()),
                ..Default::default()
            }),
            ..Default::default()
        }],
        current_context: Some(FLAGS_ONLY.into()),
        ..Default::default()
    };
    Loaded {
        config,
        paths: Vec::new(),
    }
}

/// Applies the flags to the cluster and user the context uses (as client-go's overrides).
fn apply_overrides(kc: &mut Kubeconfig, context: &str, opts: &ConnectOptions) -> Result<()> {
    let o = &opts.overrides;
    if o.insecure_skip_tls_verify && o.certificate_authority.is_some() {
        return Err(cluster(
            "--certificate-authority and --insecure-skip-tls-verify contradict each other",
            "give one of them (kubectl refuses both too)",
        ));
    }
    let ctx = kc
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.clone())
        .unwrap_or_default();
    let cluster_name = nonempty(&opts.cluster).cloned().unwrap_or(ctx.cluster);
    let user_name = nonempty(&opts.user).cloned().or(ctx.user);
    if let Some(named) = kc.clusters.iter_mut().find(|c| c.name == cluster_name) {
        let c = named.cluster.get_or_insert_with(Default::default);
        if let Some(server) = &o.server {
            c.server = Some(server.clone());
        }
        if let Some(ca) = &o.certificate_authority {
            c.certificate_authority = Some(ca.to_string_lossy().into_owned());
            c.certificate_authority_data = None;
        }
        if o.insecure_skip_tls_verify {
            c.insecure_skip_tls_verify = Some(true);
            c.certificate_authority = None;
            c.certificate_authority_data = None;
        }
        if let Some(name) = &o.tls_server_name {
            c.tls_server_name = Some(name.clone());
        }
    }
    let user = match user_name {
        Some(name) => kc.auth_infos.iter_mut().find(|u| u.name == name),
        None => None,
    };
    let needs_user = o.token.is_some() || o.client_certificate.is_some() || o.client_key.is_some();
    let auth = match user {
        Some(u) => Some(u.auth_info.get_or_insert_with(Default::default)),
        None if needs_user => {
            // A context without a user: the flags make one.
            kc.auth_infos.push(kube::config::NamedAuthInfo {
                name: FLAGS_ONLY.into(),
                auth_info: Some(Default::default()),
                ..Default::default()
            });
            if let Some(c) = kc
                .contexts
                .iter_mut()
                .find(|c| c.name == context)
                .and_then(|c| c.context.as_mut())
            {
                c.user = Some(FLAGS_ONLY.into());
            }
            kc.auth_infos.last_mut().and_then(|u| u.auth_info.as_mut())
        }
        None => None,
    };
    if let Some(a) = auth {
        if let Some(token) = &o.token {
            // The bearer token replaces the user's other ways of authenticating.
            a.token = Some(secrecy::SecretString::from(token.clone()));
            a.token_file = None;
            a.username = None;
            a.password = None;
            a.exec = None;
            a.auth_provider = None;
        }
        if let Some(cert) = &o.client_certificate {
            a.client_certificate = Some(cert.to_string_lossy().into_owned());
            a.client_certificate_data = None;
        }
        if let Some(key) = &o.client_key {
            a.client_key = Some(key.to_string_lossy().into_owned());
            a.client_key_data = None;
        }
    }
    Ok(())
}

// ---- end of the connection flags -------------------------------------------------------------

/// The client configuration of the kubeconfig context `opts` selects (server, credentials,
/// TLS) and the context's name, with kubectl's connection flags applied; `Ok(None)` when there
/// is no kubeconfig at all and no `--server`.
pub(crate) async fn context_config(opts: &ConnectOptions) -> Result<Option<(Config, String)>> {
    let loaded = match load_kubeconfig(opts.kubeconfig.as_deref())? {
        Some(loaded) => loaded,
        None if opts.overrides.server.is_some() => from_flags(),
        None => return Ok(None),
    };
    let mut loaded = loaded;
    let context = select_context(&loaded, opts)?;
    if opts.overrides.any() {
        apply_overrides(&mut loaded.config, &context, opts)?;
    }
    let kopts = KubeConfigOptions {
        context: Some(context.clone()),
        cluster: nonempty(&opts.cluster).cloned(),
        user: nonempty(&opts.user).cloned(),
    };
    let config = Config::from_custom_kubeconfig(loaded.config, &kopts)
        .await
        .map_err(|e| config_error(e, &context))?;
    Ok(Some((config, context)))
}

/// The names in one section of the kubeconfig (`contexts`, `clusters`, anything else: users),
/// sorted; empty when there is no readable kubeconfig. For shell completion.
pub fn kubeconfig_names(explicit: Option<&Path>, section: &str) -> Vec<String> {
    let Ok(Some(loaded)) = load_kubeconfig(explicit) else {
        return Vec::new();
    };
    let config = loaded.config;
    let mut names: Vec<String> = match section {
        "contexts" => config.contexts.into_iter().map(|c| c.name).collect(),
        "clusters" => config.clusters.into_iter().map(|c| c.name).collect(),
        _ => config.auth_infos.into_iter().map(|u| u.name).collect(),
    };
    names.sort();
    names.dedup();
    names
}

/// Connects to the cluster selected by `opts` and checks that it answers.
pub async fn connect(opts: &ConnectOptions) -> Result<Connection> {
    let (mut config, context) = match context_config(opts).await? {
        Some((config, context)) => (config, Some(context)),
        None if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() => {
            let config = Config::incluster().map_err(|e| {
                cluster(
                    format!(
                        "no kubeconfig found and the in-cluster configuration failed: {}",
                        request::one_line(&e.to_string())
                    ),
                    "pass --kubeconfig or set KUBECONFIG",
                )
            })?;
            (config, None)
        }
        None => {
            return Err(cluster(
                "no kubeconfig found (KUBECONFIG is unset or lists no existing file, and ~/.kube/config does not exist)",
                "pass --kubeconfig PATH or set KUBECONFIG",
            ));
        }
    };

    if let Some(ns) = &opts.namespace {
        config.default_namespace = ns.clone();
    }
    if let Some(user) = &opts.as_user {
        config.auth_info.impersonate = Some(user.clone());
    }
    if !opts.as_groups.is_empty() {
        config.auth_info.impersonate_groups = Some(opts.as_groups.clone());
    }
    if let Some(uid) = &opts.overrides.as_uid {
        config.auth_info.impersonate_uid = Some(uid.clone());
    }
    // Our own bounded retries replace kube's (up to 15 retries, minutes apart).
    config.default_retry = false;
    let request_timeout = match opts.request_timeout {
        Some(t) if t.is_zero() => None,
        Some(t) => Some(t),
        None => Some(DEFAULT_REQUEST_TIMEOUT),
    };
    config.connect_timeout = match request_timeout {
        Some(_) => None,
        None => Some(CONNECT_TIMEOUT),
    };

    let server_url = config
        .cluster_url
        .to_string()
        .trim_end_matches('/')
        .to_owned();
    let default_namespace = config.default_namespace.clone();
    let ctx_label = context.as_deref().unwrap_or("in-cluster").to_owned();
    let client = kube::Client::try_from(config).map_err(|e| {
        cluster(
            format!(
                "cannot set up a client for {server_url} (context \"{ctx_label}\"): {}",
                crate::error::cause_chain(&e)
            ),
            "check the certificate-authority and client certificate settings in the kubeconfig",
        )
    })?;

    let stats = Stats::default();
    let build = || {
        http::Request::get("/version")
            .body(Vec::new())
            .map_err(|e| e.to_string())
    };
    // The first request: a timeout here is not retried (see `request::probe`).
    let answer = request::probe(&client, request_timeout, &stats, &build)
        .await
        .map_err(|f| connect_failure(&f, &server_url, &ctx_label))?;
    let version: VersionInfo = serde_json::from_slice(&answer.body).unwrap_or_default();
    let server_version = Some(version.git_version).filter(|v| !v.is_empty());

    Ok(Connection {
        client,
        context,
        default_namespace,
        server_url,
        server_version,
        request_timeout,
    })
}

/// Turns a failed first request into a one-line [`Error::Cluster`] with a hint.
pub(crate) fn connect_failure(f: &Failure, server: &str, context: &str) -> Error {
    let detail = f.describe();
    match f {
        Failure::Status { code: 401, .. } => cluster(
            format!(
                "the server {server} rejected the credentials of context \"{context}\" (401 Unauthorized)"
            ),
            "the token or client certificate is expired or invalid: log in again or refresh the kubeconfig credentials",
        ),
        Failure::Status { code: 403, .. } => cluster(
            format!("the server {server} refused access for context \"{context}\": {detail}"),
            "check the user's RBAC permissions (kubectl auth can-i --list)",
        ),
        Failure::Status { .. } => cluster(
            format!("the server {server} (context \"{context}\") answered with an error: {detail}"),
            "check that the URL points at a Kubernetes API server",
        ),
        Failure::Transport { kind, .. } => {
            let hint = match kind {
                TransportKind::Tls => {
                    "TLS failed: check the cluster's certificate-authority in the kubeconfig (and tls-server-name); the server's certificate may not be trusted"
                }
                TransportKind::Connect => {
                    "is the cluster running and reachable from here? check the context's server URL, VPN and proxy settings"
                }
                TransportKind::Timeout => {
                    "the server did not answer in time: check that the URL points at a running API server and the network, or raise --request-timeout"
                }
                TransportKind::Auth => {
                    "obtaining credentials failed: check the user's exec plugin / auth provider / token file"
                }
                TransportKind::Other => "check the context's server URL and the network",
            };
            let what = match kind {
                TransportKind::Tls => "TLS handshake with",
                TransportKind::Auth => "cannot get credentials for",
                TransportKind::Timeout => "no answer from",
                _ => "cannot connect to",
            };
            cluster(
                format!("{what} {server} (context \"{context}\"): {detail}"),
                hint,
            )
        }
    }
}
