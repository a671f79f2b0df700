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
use crate::source::live;
use std::io::{IsTerminal, Write};

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
        let opts = live::GcGraphOptions {
            connect: super::input::connect_options(g),
            insecure_skip_tls_verify: args.gc_insecure_skip_tls_verify,
        };
        let (text, origin) = live::read_gc_graph(source, &root_uids, server, &opts).await?;
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
