//! `kubectl gc mcp`: the server's settings from the command line, then [`crate::mcp::serve`].

use super::input::{connect_options, live_options};
use crate::cli::{GlobalArgs, McpArgs};
use crate::error::{Error, Result, exit};
use crate::mcp::{Config, Defaults};
use std::ffi::OsString;

/// Global flags a tool call chooses for itself (its input and what it selects): refused on
/// the server's command line, where they would apply to every call.
const PER_CALL: &[(&str, &str)] = &[
    ("snapshot", "snapshot"),
    ("filename", "files"),
    ("recursive", "recursive"),
    ("selector", "selector"),
    ("kind", "kinds"),
    ("field_selector", "selector"),
];

/// Global flags about reading files that the tools do not take (they read with the defaults).
const NOT_OFFERED: &[&str] = &["max_input_size", "skip_broken_input", "assume_complete"];

pub async fn run(g: &GlobalArgs, args: &McpArgs) -> Result<u8> {
    if let Some((id, arg)) = PER_CALL.iter().find(|(id, _)| g.given(id)) {
        return Err(Error::usage(
            format!(
                "--{} is chosen by each tool call, not by the server",
                id.replace('_', "-")
            ),
            format!("drop it: a tool takes its input as the `{arg}` argument"),
        ));
    }
    if let Some(id) = NOT_OFFERED.iter().find(|id| g.given(id)) {
        return Err(Error::usage(
            format!(
                "--{} is not offered by mcp: its tools read files with the commands' defaults",
                id.replace('_', "-")
            ),
            "drop it",
        ));
    }
    if let Some(addr) = args.listen
        && !addr.ip().is_loopback()
    {
        return Err(Error::usage(
            format!("--listen {addr}: the MCP server serves loopback addresses only"),
            "use 127.0.0.1:PORT or [::1]:PORT; reach it from elsewhere through an SSH tunnel",
        ));
    }
    let root = match &args.root {
        Some(r) => r.clone(),
        None => std::env::current_dir()?,
    };
    let root = std::fs::canonicalize(&root)
        .ok()
        .filter(|r| r.is_dir())
        .ok_or_else(|| {
            Error::usage(
                format!(
                    "--root {}: not a directory",
                    crate::render::text::sanitized(&root.display().to_string())
                ),
                "name the directory the tools may read files from",
            )
        })?;
    let exe = std::env::current_exe().map_err(|e| {
        Error::usage(
            format!("cannot find kubectl-gc's own executable: {e}"),
            "run kubectl-gc from an installed path",
        )
    })?;
    let config = Config {
        root,
        exe,
        allow_apply: args.allow_apply,
        listen: args.listen,
        token_file: args.token_file.clone(),
        timeout: args.timeout,
        max_answer: usize::try_from(args.max_answer_size).unwrap_or(usize::MAX),
        max_concurrency: usize::from(args.max_concurrency),
        plan_ttl: args.plan_ttl,
        qps: args.qps,
        defaults: Defaults {
            args: passed_on(g),
            namespace: g.namespace.clone(),
            all_namespaces: g.all_namespaces,
            connect: connect_options(g),
            live: live_options(g, None),
            gc_version: g.gc_version,
        },
    };
    crate::mcp::serve(config).await?;
    Ok(exit::OK)
}

/// The server's connection flags as the commands it runs take them.
fn passed_on(g: &GlobalArgs) -> Vec<OsString> {
    let mut out = Vec::new();
    let flag = |id: &str| match id {
        "as_user" => "--as".to_owned(),
        other => format!("--{}", other.replace('_', "-")),
    };
    // The connection flags, passed on to every command a tool runs as given (`--flag=value`).
    for id in super::flags::CONNECTION.iter().filter(|id| g.given(id)) {
        let values: Vec<OsString> = match *id {
            "kubeconfig" => g.kubeconfig.iter().map(|p| p.into()).collect(),
            "context" => g.context.iter().map(Into::into).collect(),
            "cluster" => g.cluster.iter().map(Into::into).collect(),
            "user" => g.user.iter().map(Into::into).collect(),
            "server" => g.server.iter().map(Into::into).collect(),
            "token" => g.token.iter().map(Into::into).collect(),
            "certificate_authority" => g.certificate_authority.iter().map(|p| p.into()).collect(),
            "client_certificate" => g.client_certificate.iter().map(|p| p.into()).collect(),
            "client_key" => g.client_key.iter().map(|p| p.into()).collect(),
            "tls_server_name" => g.tls_server_name.iter().map(Into::into).collect(),
            "insecure_skip_tls_verify" => vec![g.insecure_skip_tls_verify.to_string().into()],
            "as_user" => g.as_user.iter().map(Into::into).collect(),
            "as_group" => g.as_group.iter().map(Into::into).collect(),
            "as_uid" => g.as_uid.iter().map(Into::into).collect(),
            "request_timeout" => g
                .request_timeout
                .iter()
                .map(|d| format!("{}ms", d.as_millis()).into())
                .collect(),
            "concurrency" => vec![g.concurrency.to_string().into()],
            "chunk_size" => g.chunk_size.iter().map(|n| n.to_string().into()).collect(),
            _ => Vec::new(),
        };
        for v in values {
            let mut arg = OsString::from(format!("{}=", flag(id)));
            arg.push(v);
            out.push(arg);
        }
    }
    out
}
