//! Reading the real GC's graph (`kubectl gc graph --from-gc`): the DOT that
//! kube-controller-manager's debug handler serves, or a saved copy of it.
//!
//! **Credentials go only where the kubeconfig sends them.** kube-controller-manager
//! authenticates and authorises the handler through the API server (delegated
//! authentication), so it may want the kubeconfig's credentials — but a bearer token or a
//! client certificate is the user's identity on the cluster, and a URL on the command line may
//! point anywhere. So:
//!
//! - the kubeconfig's own server (same scheme, host and port as the selected cluster's
//!   `server`): its credentials and its TLS settings (CA, `insecure-skip-tls-verify`), as
//!   kubectl would send them there;
//! - any other endpoint: no credentials, and none of the kubeconfig's TLS settings (the
//!   endpoint's certificate is verified against the system's roots, or not at all with
//!   `--gc-insecure-skip-tls-verify`) — unless the user asks with `--gc-send-credentials`
//!   (then the credentials and the cluster's CA, over https only; never the kubeconfig's
//!   `insecure-skip-tls-verify`).
//!
//! The answer is returned as text; parsing it is the renderer's job
//! (`render::graph::dot::parse`).

use super::ConnectOptions;
use super::kubeconfig::context_config;
use crate::catalog::KubeVersion;
use crate::error::{Error, Result, cause_chain};
use std::time::Duration;

/// The GC debug handler's paths: before 1.28 the controller is registered as
/// `garbagecollector`, since 1.28 under its canonical name (gc-model §8.1).
const GC_PATHS: [&str; 2] = [
    "/debug/controllers/garbagecollector/graph",
    "/debug/controllers/garbage-collector-controller/graph",
];

/// How to reach the GC's endpoint.
#[derive(Clone, Debug, Default)]
pub struct GcGraphOptions {
    /// The kubeconfig selection whose credentials an https endpoint gets, and the request
    /// timeout (unset or zero: 60 s).
    pub connect: ConnectOptions,
    /// Accept the endpoint's certificate without verifying it (kube-controller-manager usually
    /// serves a self-signed one).
    pub insecure_skip_tls_verify: bool,
    /// Send the kubeconfig's credentials to an endpoint that is not the kubeconfig's own
    /// server (`--gc-send-credentials`; https only).
    pub send_credentials: bool,
}

/// `(scheme, host, port)` with the scheme's default port filled in and the host in lower
/// case: two URLs name the same server when these are equal.
fn origin(uri: &http::Uri) -> Option<(String, String, u16)> {
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let host = uri.host()?.to_ascii_lowercase();
    let port = uri.port_u16().or(match scheme.as_str() {
        "https" => Some(443),
        "http" => Some(80),
        _ => None,
    })?;
    Some((scheme, host, port))
}

/// Where credentials may go: the client configuration for `base`.
enum Trust {
    /// The kubeconfig's own server: its configuration as is.
    Own(kube::Config),
    /// Another endpoint, with the kubeconfig's credentials and CA (asked for).
    Sent(kube::Config),
    /// Another endpoint, or no kubeconfig: nothing from the kubeconfig.
    None,
}

/// Reads the GC's DOT from `source` (an `http(s)://HOST:PORT[/path]` URL or a file), asking for
/// the components of `uids` (`?uid=`, as the endpoint takes them). Without a path, both of the
/// handler's paths are tried, the one `server` (the cluster's version) serves first. Returns
/// the text and where it came from.
pub async fn read_gc_graph(
    source: &str,
    uids: &[String],
    server: Option<KubeVersion>,
    opts: &GcGraphOptions,
) -> Result<(String, String)> {
    let is_url = source.starts_with("http://") || source.starts_with("https://");
    if !is_url {
        let text = std::fs::read_to_string(source).map_err(|e| {
            Error::input(
                source,
                format!("cannot read the GC graph: {e}"),
                Some("--from-gc takes http(s)://HOST:PORT[/path] or a saved DOT file".into()),
            )
        })?;
        return Ok((text, source.to_owned()));
    }
    let uri: http::Uri = source.parse().map_err(|e| {
        Error::usage(
            format!("--from-gc: invalid URL {source:?}: {e}"),
            "e.g. --from-gc https://127.0.0.1:10257 (port-forwarded kube-controller-manager)",
        )
    })?;
    let scheme = uri.scheme_str().unwrap_or("http").to_owned();
    let Some(authority) = uri.authority().map(|a| a.as_str().to_owned()) else {
        return Err(Error::usage(
            format!("--from-gc: URL {source:?} has no host"),
            "e.g. --from-gc https://127.0.0.1:10257",
        ));
    };
    let base: http::Uri = format!("{scheme}://{authority}").parse().map_err(|e| {
        Error::usage(
            format!("--from-gc: invalid URL {source:?}: {e}"),
            "check the URL",
        )
    })?;
    let mut query: Vec<String> = uri
        .query()
        .filter(|q| !q.is_empty())
        .map(|q| vec![q.to_owned()])
        .unwrap_or_default();
    query.extend(uids.iter().map(|u| format!("uid={}", percent_encode(u))));
    let query = if query.is_empty() {
        String::new()
    } else {
        format!("?{}", query.join("&"))
    };
    let paths: Vec<String> = match uri.path() {
        "" | "/" => {
            let mut p = GC_PATHS.map(str::to_owned).to_vec();
            if server.is_some_and(|v| v >= KubeVersion::v1(28)) {
                p.reverse();
            }
            p
        }
        path => vec![path.to_owned()],
    };

    let timeout = opts
        .connect
        .request_timeout
        .filter(|d| !d.is_zero())
        .unwrap_or(Duration::from_secs(60));
    let https = scheme == "https";
    let kubeconfig = match context_config(&opts.connect).await {
        Ok(Some((config, _))) => Some(config),
        // No usable kubeconfig: the endpoint may not need credentials.
        _ => None,
    };
    let trust = match kubeconfig {
        Some(c) if origin(&c.cluster_url).is_some() && origin(&c.cluster_url) == origin(&base) => {
            Trust::Own(c)
        }
        Some(_) | None if !opts.send_credentials => Trust::None,
        Some(c) if https => Trust::Sent(c),
        Some(_) => {
            return Err(Error::usage(
                format!(
                    "--gc-send-credentials: {source} is plain http; credentials are never sent to another host without TLS"
                ),
                "use the endpoint's https port (kube-controller-manager: 10257)",
            ));
        }
        None => {
            return Err(Error::usage(
                "--gc-send-credentials: no kubeconfig to take credentials from",
                "pass --kubeconfig or set KUBECONFIG",
            ));
        }
    };
    let mut config = match trust {
        Trust::Own(c) => c,
        Trust::Sent(mut c) => {
            // The credentials and the cluster's CA, but never a kubeconfig's "do not verify":
            // that was said of its own server.
            c.accept_invalid_certs = false;
            c.tls_server_name = None;
            c.proxy_url = None;
            c
        }
        Trust::None => kube::Config::new(base.clone()),
    };
    config.cluster_url = base;
    config.default_retry = false;
    config.connect_timeout = Some(timeout.min(Duration::from_secs(30)));
    config.read_timeout = Some(timeout);
    if opts.insecure_skip_tls_verify {
        config.accept_invalid_certs = true;
        config.root_cert = None;
    }
    let client = kube::Client::try_from(config).map_err(|e| Error::Cluster {
        message: format!("cannot set up a client for {source}: {e}"),
        hint: Some("check the URL and the kubeconfig's credentials".into()),
    })?;

    let mut last = None;
    for path in &paths {
        let url = format!("{scheme}://{authority}{path}{query}");
        let request = http::Request::get(format!("{path}{query}"))
            .body(kube::client::Body::from(Vec::<u8>::new()))
            .map_err(|e| Error::usage(format!("--from-gc: {e}"), "check the URL"))?;
        let response = tokio::time::timeout(timeout, client.send(request))
            .await
            .map_err(|_| gc_unreachable(&url, "no answer in time".into()))?
            .map_err(|e| gc_unreachable(&url, cause_chain(&e)))?;
        let status = response.status();
        let body = tokio::time::timeout(timeout, response.into_body().collect_bytes())
            .await
            .map_err(|_| gc_unreachable(&url, "no answer in time".into()))?
            .map_err(|e| gc_unreachable(&url, cause_chain(&e)))?;
        if status.is_success() {
            let text = String::from_utf8(body.to_vec())
                .map_err(|_| Error::input(url.clone(), "the answer is not UTF-8 text", None))?;
            return Ok((text, url));
        }
        let hint = match status.as_u16() {
            401 => {
                "the endpoint wants credentials: the kubeconfig's are sent only to its own server; add --gc-send-credentials to send them to this one (https only)"
            }
            403 => {
                "the user needs `get` on the non-resource URL /debug/controllers/* (delegated authorization)"
            }
            404 => {
                "no GC debug handler here: check host, port and path (≤ 1.27: /debug/controllers/garbagecollector/graph, ≥ 1.28: …/garbage-collector-controller/graph)"
            }
            _ => "check that the URL points at kube-controller-manager",
        };
        last = Some(Error::Cluster {
            message: format!("the GC endpoint {url} answered {status}"),
            hint: Some(hint.into()),
        });
        if status.as_u16() != 404 {
            break;
        }
    }
    Err(last.unwrap_or_else(|| gc_unreachable(source, "no request was made".into())))
}

fn gc_unreachable(url: &str, detail: String) -> Error {
    let tls = detail.to_ascii_lowercase().contains("certificate");
    Error::Cluster {
        message: format!("cannot read the GC graph from {url}: {detail}"),
        hint: Some(if tls {
            "kube-controller-manager usually serves a self-signed certificate: add --gc-insecure-skip-tls-verify".into()
        } else {
            "is kube-controller-manager reachable? e.g. kubectl -n kube-system port-forward pod/kube-controller-manager-<node> 10257, then --from-gc https://127.0.0.1:10257".into()
        }),
    }
}

/// Percent-encodes a query value (everything but RFC 3986 unreserved characters).
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{origin, percent_encode};

    #[test]
    fn same_server_means_same_scheme_host_and_port() {
        let o = |s: &str| origin(&s.parse().unwrap());
        assert_eq!(
            o("https://API.example.com"),
            o("https://api.example.com:443/x")
        );
        assert_eq!(o("http://10.0.0.1"), o("http://10.0.0.1:80"));
        assert_ne!(o("https://127.0.0.1:6443"), o("https://127.0.0.1:10257"));
        assert_ne!(o("https://127.0.0.1:6443"), o("http://127.0.0.1:6443"));
        assert_ne!(o("https://127.0.0.1:6443"), o("https://localhost:6443"));
        assert_ne!(o("https://example.com"), o("https://example.com.evil.io"));
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(percent_encode("abc-1.2_~"), "abc-1.2_~");
        assert_eq!(percent_encode("a b&c=\"ñ"), "a%20b%26c%3D%22%C3%B1");
    }
}
