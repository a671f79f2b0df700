//! `--listen`: streamable HTTP on a loopback address, rmcp's `StreamableHttpService` behind a
//! bearer token, on hyper (already in the tree for watch's metrics). Bounded: connections at
//! once, the time to send a request's headers, the request body (rmcp's cap), the calls at once
//! and each call's time (the server's). Stateless: every request stands alone, so no session
//! outlives its connection; plans are the server's, shared by all requests.

use super::Server;
use crate::error::{Error, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use secrecy::{ExposeSecret, SecretString};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Connections served at once; more wait in the kernel's backlog.
const MAX_CONNECTIONS: usize = 32;
/// A request's headers must arrive within this.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest request body (a tool call's arguments).
const MAX_BODY: usize = 1024 * 1024;
/// The environment variable holding the token when no --token-file is given.
pub const TOKEN_ENV: &str = "KUBECTL_GC_MCP_TOKEN";

/// The bearer token: `--token-file`, else `$KUBECTL_GC_MCP_TOKEN`, else a random one, printed
/// once on stderr (never written to a file).
pub fn token(file: Option<&Path>) -> Result<SecretString> {
    let shown = |p: &Path| crate::render::text::sanitized(&p.display().to_string());
    if let Some(path) = file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::usage(
                format!("--token-file {}: {e}", shown(path)),
                "name a readable file holding the token",
            )
        })?;
        let t = text.trim();
        if t.len() < 16 || t.chars().any(|c| c.is_whitespace() || c.is_control()) {
            // The file's content is not shown: it is meant to be a secret.
            return Err(Error::usage(
                format!(
                    "--token-file {}: not a token (one line of at least 16 characters, no spaces)",
                    shown(path)
                ),
                "e.g. head -c 24 /dev/urandom | base64 > FILE",
            ));
        }
        return Ok(SecretString::from(t.to_owned()));
    }
    if let Ok(t) = std::env::var(TOKEN_ENV)
        && t.trim().len() >= 16
    {
        return Ok(SecretString::from(t.trim().to_owned()));
    }
    let t = super::random_token("kgc");
    eprintln!("kubectl gc mcp: bearer token (this run only): {t}");
    Ok(SecretString::from(t))
}

/// Compares in time that does not depend on where the strings differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn authorized<B>(req: &Request<B>, token: &SecretString) -> bool {
    req.headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|t| same(t.as_bytes(), token.expose_secret().as_bytes()))
}

type Body = http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>;

fn unauthorized() -> Response<Body> {
    let mut r = Response::new(
        Full::new(Bytes::from_static(
            b"{\"error\":\"a bearer token is required (Authorization: Bearer TOKEN)\"}",
        ))
        .boxed(),
    );
    *r.status_mut() = StatusCode::UNAUTHORIZED;
    r.headers_mut().insert(
        hyper::header::WWW_AUTHENTICATE,
        hyper::header::HeaderValue::from_static("Bearer"),
    );
    r
}

/// Serves `server` on `addr` until SIGINT or SIGTERM.
pub async fn serve(server: Server, addr: SocketAddr, token: SecretString) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        Error::usage(
            format!("--listen {addr}: {e}"),
            "choose a free loopback port",
        )
    })?;
    let local = listener.local_addr()?;
    eprintln!("kubectl gc mcp: serving MCP at http://{local}/mcp");
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_max_request_body_bytes(MAX_BODY);
    let service = Arc::new(StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    ));
    let token = Arc::new(token);
    let slots = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    loop {
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => p.map_err(|e| Error::Api { message: e.to_string(), hint: None })?,
            _ = tokio::signal::ctrl_c() => return Ok(()),
            _ = term.recv() => return Ok(()),
        };
        let (stream, _) = tokio::select! {
            a = listener.accept() => a?,
            _ = tokio::signal::ctrl_c() => return Ok(()),
            _ = term.recv() => return Ok(()),
        };
        let service = service.clone();
        let token = token.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let handler = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                let service = service.clone();
                let token = token.clone();
                async move {
                    if !authorized(&req, &token) {
                        return Ok::<_, std::convert::Infallible>(unauthorized());
                    }
                    Ok(service.handle(req).await)
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stream), handler)
                .await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_is_let_in() {
        let token = SecretString::from("0123456789abcdef".to_owned());
        let req = |v: Option<&str>| {
            let mut b = Request::builder();
            if let Some(v) = v {
                b = b.header("authorization", v);
            }
            b.body(()).unwrap()
        };
        assert!(authorized(&req(Some("Bearer 0123456789abcdef")), &token));
        for bad in [
            None,
            Some("Bearer 0123456789abcdeF"),
            Some("Bearer 0123456789abcde"),
            Some("bearer 0123456789abcdef"),
            Some("0123456789abcdef"),
        ] {
            assert!(!authorized(&req(bad), &token), "{bad:?}");
        }
    }
}
