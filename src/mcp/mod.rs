//! `kubectl gc mcp`: kubectl-gc's answers as Model Context Protocol tools, on rmcp (the
//! protocol's official Rust SDK), over stdio or streamable HTTP on loopback.
//!
//! A tool call runs the matching command of this binary as a child process ([`child`]): its
//! `-o json` document is the tool's `structuredContent`, its schema (`schemas/`, bundled by
//! [`schema`]) the tool's output schema. Arguments are checked before anything runs
//! ([`tools`]): file arguments stay under `--root` ([`paths`]), values cannot turn into flags.
//! Answers over the cap come in pages ([`pages`]). With `--allow-apply`, `plan` and
//! `delete_preview` on a live cluster also bind their plan to what they read and hand out a
//! `planId` that `apply_plan` carries out, and nothing else ([`plans`]).

mod child;
mod http;
mod pages;
mod paths;
mod plans;
mod schema;
mod server;
mod summary;
mod tools;

use crate::catalog::KubeVersion;
use crate::error::{Error, Result};
use crate::source::live;
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

pub use server::Server;

/// What every call starts from: the server's own command line.
#[derive(Debug, Clone)]
pub struct Defaults {
    /// The connection flags, as the commands take them (`--context=prod`, …).
    pub args: Vec<OsString>,
    /// `-n` given to the server.
    pub namespace: Option<String>,
    /// `-A` given to the server.
    pub all_namespaces: bool,
    /// The same connection, for the reads and writes of `plan`/`apply_plan` in process.
    pub connect: live::ConnectOptions,
    /// How to list the cluster (the namespace is set per call).
    pub live: live::LiveOptions,
    /// `--gc-version` given to the server.
    pub gc_version: Option<KubeVersion>,
}

/// The server's settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// Canonical `--root`.
    pub root: PathBuf,
    /// This binary, which runs each tool's command.
    pub exe: PathBuf,
    /// `--allow-apply`.
    pub allow_apply: bool,
    /// `--listen` (loopback only).
    pub listen: Option<SocketAddr>,
    /// `--token-file`.
    pub token_file: Option<PathBuf>,
    /// Time limit of one call.
    pub timeout: Duration,
    /// Largest page of an answer, in bytes of JSON.
    pub max_answer: usize,
    /// Calls run at once.
    pub max_concurrency: usize,
    /// How long a planId is valid.
    pub plan_ttl: Duration,
    /// apply_plan's requests per second.
    pub qps: f64,
    /// The server's command line, for every call.
    pub defaults: Defaults,
}

/// Serves until the client goes away (stdio) or the process is stopped (HTTP).
pub async fn serve(config: Config) -> Result<()> {
    use rmcp::ServiceExt;
    let listen = config.listen;
    let token_file = config.token_file.clone();
    let server = Server::new(config);
    if let Some(addr) = listen {
        let token = http::token(token_file.as_deref())?;
        return http::serve(server, addr, token).await;
    }
    let running = match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => running,
        // The client went away before it said anything (or `kubectl gc mcp < /dev/null`).
        Err(
            rmcp::service::ServerInitializeError::ConnectionClosed(_)
            | rmcp::service::ServerInitializeError::ExpectedInitializeRequest(None),
        ) => return Ok(()),
        Err(e) => {
            return Err(Error::Api {
                message: format!("MCP handshake failed: {e}"),
                hint: Some("kubectl gc mcp speaks MCP on stdin/stdout: start it from an agent host (claude mcp add kubectl-gc -- kubectl gc mcp)".into()),
            });
        }
    };
    running.waiting().await.map_err(|e| Error::Api {
        message: format!("the MCP server stopped: {e}"),
        hint: None,
    })?;
    Ok(())
}

/// `prefix-` and 32 random hex digits (from the kernel's random source).
pub(crate) fn random_token(prefix: &str) -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        // No kernel source (not Linux or a BSD): hash what differs between calls. Tokens name
        // pages and plans the server issued; they guard nothing on their own.
        use sha2::Digest;
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let digest = sha2::Sha256::digest(format!("{n} {now:?} {}", std::process::id()));
        bytes.copy_from_slice(&digest[..16]);
    }
    format!("{prefix}-{}", hex(&bytes))
}

/// Lower-case hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
