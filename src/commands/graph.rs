//! `kubectl gc graph`: the ownership graph as the GC sees it (tree, DOT, Mermaid, JSON), and
//! `--from-gc`: its difference from the real GC's graph.

use super::load;
use crate::catalog::KubeVersion;
use crate::cli::{DotFormat, GlobalArgs, GraphArgs, GraphDirection, GraphFormat};
use crate::error::{Error, Result, exit};
use crate::gc::GarbageCollector;
use crate::render::graph::gcdiff::{self, SideSummary, View};
use crate::render::graph::{self as view, Direction, Selection, Subgraph, dot};
use crate::render::{self, Styles};
use std::io::{IsTerminal, Write};
use std::time::Duration;

pub async fn run(g: &GlobalArgs, args: &GraphArgs) -> Result<u8> {
    for t in &args.targets {
        if !t.contains('/') || t.starts_with('/') || t.ends_with('/') {
            return Err(Error::usage(
                format!("expected KIND/NAME, got {t:?}"),
                "e.g. kubectl gc graph deployment/web -n shop, or --uid UID",
            ));
        }
    }
    let format = args.output.unwrap_or(if std::io::stdout().is_terminal() {
        GraphFormat::Tree
    } else {
        GraphFormat::Dot
    });
    if args.from_gc.is_none() && args.dot_format == DotFormat::Legacy && format != GraphFormat::Dot
    {
        return Err(Error::usage(
            "--dot-format legacy applies to DOT output only",
            "add -o dot",
        ));
    }
    let has_roots = !args.targets.is_empty() || !args.uids.is_empty();
    // A component crosses namespaces (cluster-scoped owners, cross-namespace references): with
    // start objects, read every namespace, as the GC's graph does.
    let loaded = load(g, !has_roots).await?;
    let snap = &loaded.snapshot;
    let gc = GarbageCollector::new(snap, loaded.gc_version(g));
    let graph = &gc.graph;
    let namespace = g.namespace.as_deref().unwrap_or(&loaded.default_namespace);

    let mut roots = Vec::new();
    let mut root_uids: Vec<String> = Vec::new();
    for t in &args.targets {
        let id = crate::lookup::resolve_target(snap, t, namespace)?;
        let node = graph.node_of_object(id);
        if !graph.node(node).in_graph() {
            return Err(Error::usage(
                format!(
                    "{} is not part of the GC's graph: the GC does not watch its resource",
                    snap.describe(id)
                ),
                "events are never part of the graph; pick an object of a monitored resource",
            ));
        }
        roots.push(node);
        root_uids.push(snap.store.str(snap.store.object(id).uid).to_owned());
    }
    for uid in &args.uids {
        root_uids.push(uid.clone());
        match snap
            .store
            .strings
            .get(uid)
            .and_then(|s| graph.uid_to_node(s))
        {
            Some(n) => roots.push(n),
            None => eprintln!(
                "warning: uid {uid} is not in the graph (no object or reference has it); it adds nothing, as with the GC's ?uid="
            ),
        }
    }
    let selection = Selection {
        roots,
        direction: match args.direction {
            GraphDirection::Up => Direction::Up,
            GraphDirection::Down => Direction::Down,
            GraphDirection::Both => Direction::Both,
        },
        depth: args.depth,
        namespace: if has_roots {
            None
        } else {
            loaded.namespace.clone()
        },
    };
    // Start objects were asked for but none is in the graph: nothing, as the endpoint's ?uid=.
    let sub = if has_roots && selection.roots.is_empty() {
        Subgraph::new()
    } else {
        Subgraph::select(&gc, &selection)
    };
    let styles = Styles::for_stdout(g.color);

    if let Some(source) = &args.from_gc {
        let server = snap
            .provenance
            .server_version
            .as_deref()
            .and_then(KubeVersion::parse);
        let (text, origin) = read_gc_graph(g, args, source, &root_uids, server).await?;
        let parsed = dot::parse(&text).map_err(|e| {
            Error::input(
                origin.clone(),
                format!("not a DOT graph from the GC's debug endpoint: {e}"),
                Some("point --from-gc at /debug/controllers/garbagecollector/graph (≤ 1.27) or …/garbage-collector-controller/graph (≥ 1.28)".into()),
            )
        })?;
        let mut gc_view = View::of_dot(&parsed);
        let mut our_view = View::of_subgraph(&sub);
        if !has_roots && let Some(ns) = &loaded.namespace {
            gc_view.scope_namespace(ns);
            our_view.scope_namespace(ns);
        }
        let gc_side = SideSummary {
            source: origin,
            format: Some(gcdiff::dot_format(&parsed).to_owned()),
            nodes: gc_view.vertices.len(),
            edges: gc_view.edges.len(),
        };
        let our_side = SideSummary {
            source: format!(
                "{} snapshot taken {}",
                match loaded.input {
                    super::Input::Live => "live",
                    super::Input::SnapshotFile => "saved",
                    super::Input::Files => "files",
                },
                snap.provenance.captured_at
            ),
            format: None,
            nodes: our_view.vertices.len(),
            edges: our_view.edges.len(),
        };
        let d = gcdiff::diff(&gc_view, &our_view, gc_side, our_side);
        let mut out = super::stdout();
        if args.output == Some(GraphFormat::Json) {
            render::write_json(&mut out, &d)?;
        } else {
            gcdiff::write_text(&mut out, &d, &gc_view, &our_view, styles)?;
        }
        out.flush()?;
        return Ok(if d.identical {
            exit::OK
        } else {
            exit::FINDINGS
        });
    }

    if sub.is_empty() && format == GraphFormat::Tree {
        // Like kubectl's "No resources found": a note on stderr, no table header on stdout.
        eprintln!("nothing to show: no selected object has an owner or a dependent");
        return Ok(exit::OK);
    }
    if format == GraphFormat::Mermaid && sub.edge_count() > view::mermaid::MAX_EDGES {
        eprintln!(
            "warning: {} edges: Mermaid (and GitHub) refuse to render more than {} by default; select less (KIND/NAME, --uid, --depth)",
            sub.edge_count(),
            view::mermaid::MAX_EDGES
        );
    }
    let mut out = super::stdout();
    match format {
        GraphFormat::Tree => view::tree::write(&mut out, &sub, styles)?,
        GraphFormat::Dot => match args.dot_format {
            DotFormat::Current => dot::write(&mut out, &sub)?,
            DotFormat::Legacy => dot::write_legacy(&mut out, &sub)?,
        },
        GraphFormat::Mermaid => view::mermaid::write(&mut out, &sub)?,
        GraphFormat::Json => render::write_json(&mut out, &view::json::document(&sub))?,
    }
    out.flush()?;
    Ok(exit::OK)
}

/// The GC debug handler's paths: before 1.28 the controller is registered as
/// `garbagecollector`, since 1.28 under its canonical name (gc-semantics §8.1).
const GC_PATHS: [&str; 2] = [
    "/debug/controllers/garbagecollector/graph",
    "/debug/controllers/garbage-collector-controller/graph",
];

/// Reads the GC's DOT from its endpoint or a file; returns the text and where it came from.
async fn read_gc_graph(
    g: &GlobalArgs,
    args: &GraphArgs,
    source: &str,
    uids: &[String],
    server: Option<KubeVersion>,
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

    let timeout = g
        .request_timeout
        .filter(|d| !d.is_zero())
        .unwrap_or(Duration::from_secs(60));
    let https = scheme == "https";
    let mut config = if https {
        kubeconfig_credentials(g)
            .await
            .unwrap_or_else(|| kube::Config::new(base.clone()))
    } else {
        // Never send credentials over plain HTTP.
        kube::Config::new(base.clone())
    };
    config.cluster_url = base;
    config.tls_server_name = None;
    config.default_retry = false;
    config.connect_timeout = Some(timeout.min(Duration::from_secs(30)));
    config.read_timeout = Some(timeout);
    if args.gc_insecure_skip_tls_verify {
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
            .map_err(|e| gc_unreachable(&url, crate::error::cause_chain(&e)))?;
        let status = response.status();
        let body = tokio::time::timeout(timeout, response.into_body().collect_bytes())
            .await
            .map_err(|_| gc_unreachable(&url, "no answer in time".into()))?
            .map_err(|e| gc_unreachable(&url, crate::error::cause_chain(&e)))?;
        if status.is_success() {
            let text = String::from_utf8(body.to_vec())
                .map_err(|_| Error::input(url.clone(), "the answer is not UTF-8 text", None))?;
            return Ok((text, url));
        }
        let hint = match status.as_u16() {
            401 => {
                "the endpoint wants credentials: use https:// (the kubeconfig's token is sent only over TLS)"
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

/// The kubeconfig's credentials for the selected context (for an https GC endpoint, which
/// authenticates with the API server's tokens); `None` when there is no usable kubeconfig.
async fn kubeconfig_credentials(g: &GlobalArgs) -> Option<kube::Config> {
    let opts = kube::config::KubeConfigOptions {
        context: g.context.clone(),
        cluster: g.cluster.clone(),
        user: g.user.clone(),
    };
    match &g.kubeconfig {
        Some(path) => {
            let kc = kube::config::Kubeconfig::read_from(path).ok()?;
            kube::Config::from_custom_kubeconfig(kc, &opts).await.ok()
        }
        None => kube::Config::from_kubeconfig(&opts).await.ok(),
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
    use super::percent_encode;

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(percent_encode("abc-1.2_~"), "abc-1.2_~");
        assert_eq!(percent_encode("a b&c=\"ñ"), "a%20b%26c%3D%22%C3%B1");
    }
}
