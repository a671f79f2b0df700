//! `kubectl gc graph`: the ownership graph as the GC sees it (tree, DOT, Mermaid, JSON), and
//! `--from-gc`: its difference from the real GC's graph.

use super::select::Selection as Select;
use super::{flags, output, progress};
use crate::catalog::KubeVersion;
use crate::cli::{DotFormat, GlobalArgs, GraphArgs, GraphDirection, GraphFormat};
use crate::error::{Error, Result, exit};
use crate::render::graph::gcdiff::{self, SideSummary, View};
use crate::render::graph::{self as view, Direction, Selection, Subgraph, dot};
use crate::render::{self, Styles, list};
use crate::source::live;

/// `graph`'s positional words as kubectl reads them: `KIND/NAME…`, or `KIND NAME…`, or a lone
/// `KIND` (every object of the kind).
enum Targets {
    /// `KIND/NAME` words.
    Named(Vec<String>),
    /// A lone `KIND`: every object of it (in -n's namespace, or all with -A).
    Kind(String),
}

fn parse_targets(words: &[String]) -> Result<Targets> {
    let Some(first) = words.first() else {
        return Ok(Targets::Named(Vec::new()));
    };
    let bad = |w: &str| w.is_empty() || w.starts_with('/') || w.ends_with('/');
    if first.contains('/') {
        if let Some(w) = words.iter().find(|w| !w.contains('/') || bad(w)) {
            return Err(Error::usage(
                format!("expected KIND/NAME, got {w:?}"),
                "name every object as KIND/NAME (deployment/web pod/web-1), or give KIND NAME… (deployment web api)",
            ));
        }
        return Ok(Targets::Named(words.to_vec()));
    }
    if bad(first) {
        return Err(Error::usage(
            format!("expected KIND/NAME or KIND NAME, got {first:?}"),
            "e.g. kubectl gc graph deployment/web, or kubectl gc graph deployment web",
        ));
    }
    let names = &words[1..];
    if names.is_empty() {
        return Ok(Targets::Kind(first.clone()));
    }
    if let Some(w) = names.iter().find(|w| w.contains('/') || w.is_empty()) {
        return Err(Error::usage(
            format!("{w:?}: after a KIND, give names only"),
            "kubectl's rule: either KIND NAME… or KIND/NAME…, not both",
        ));
    }
    Ok(Targets::Named(
        names.iter().map(|n| format!("{first}/{n}")).collect(),
    ))
}

pub async fn run(g: &GlobalArgs, args: &GraphArgs) -> Result<u8> {
    let format = args.output;
    let targets = parse_targets(&args.targets)?;
    flags::check_graph_output(format, args.no_headers)?;
    if args.from_gc.is_none() && args.dot_format != DotFormat::Styled && format != GraphFormat::Dot
    {
        return Err(Error::usage(
            "--dot-format applies to DOT output only",
            "add -o dot",
        ));
    }
    if args.from_gc.is_some()
        && !matches!(
            format,
            GraphFormat::Tree | GraphFormat::Json | GraphFormat::Yaml
        )
    {
        return Err(Error::usage(
            "--from-gc prints the differences as text, json or yaml",
            "drop -o, or use -o json / -o yaml",
        ));
    }
    match format {
        GraphFormat::JsonPath(t) | GraphFormat::CustomColumns(t) => {
            let as_report = if matches!(format, GraphFormat::JsonPath(_)) {
                crate::cli::ReportFormat::JsonPath(t)
            } else {
                crate::cli::ReportFormat::CustomColumns(t)
            };
            output::check_templates(as_report, None)?;
        }
        _ => {}
    }
    let selection = Select::parse(g)?;
    // A bad --output-file fails before the cluster is read.
    let mut sink = render::sink::Sink::open(args.file.output_file.as_deref())?;
    let selects = !selection.selects_all_of_namespace() || matches!(targets, Targets::Kind(_));
    let has_roots = !args.targets.is_empty() || !args.uids.is_empty() || selects;
    // A component crosses namespaces (cluster-scoped owners, cross-namespace references): with
    // start objects, read every namespace, as the GC's graph does.
    let loaded = super::load_input(g, !has_roots).await?;
    let snap = &loaded.snapshot;
    // With -A, objects are looked up (and selected) in every namespace.
    let namespace: Option<&str> = if g.all_namespaces {
        None
    } else {
        Some(g.namespace.as_deref().unwrap_or(&loaded.default_namespace))
    };
    let mut selection = selection;
    if let Targets::Kind(kind) = &targets {
        let mut with_kind = g.clone();
        with_kind.kind.push(kind.clone());
        selection = Select::parse(&with_kind)?;
    }
    let picked = selection.resolve(
        snap,
        if has_roots {
            namespace
        } else {
            loaded.namespace.as_deref()
        },
        g.given("namespace"),
    )?;
    let gc = progress::step("building the GC's graph", || {
        crate::run::garbage_collector(snap, loaded.gc_version(g))
    });
    let graph = &gc.graph;

    let mut roots = Vec::new();
    let mut root_uids: Vec<String> = Vec::new();
    let named = match &targets {
        Targets::Named(t) => t.as_slice(),
        Targets::Kind(_) => &[],
    };
    for t in named {
        let id = crate::lookup::resolve_target(snap, t, namespace)?;
        if namespace.is_none() {
            // -A: say where it was found (the tree shows it; DOT and JSON do not at a glance).
            eprintln!("{t}: {}", crate::render::text::sanitize(&snap.describe(id)));
        }
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
    if selects {
        let before = roots.len();
        for id in snap.store.ids().filter(|&id| picked.includes(snap, id)) {
            let node = graph.node_of_object(id);
            if graph.node(node).in_graph() {
                roots.push(node);
                root_uids.push(snap.store.str(snap.store.object(id).uid).to_owned());
            }
        }
        if roots.len() == before {
            eprintln!("note: no object matches the selection (-l, --kind, --field-selector, KIND)");
        }
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
        progress::step("selecting", || Subgraph::select(&gc, &selection))
    };
    let styles = if sink.is_file() {
        Styles::plain()
    } else {
        Styles::for_stdout(g.color)
    };

    if let Some(source) = &args.from_gc {
        let server = snap
            .provenance
            .server_version
            .as_deref()
            .and_then(KubeVersion::parse);
        let opts = live::GcGraphOptions {
            connect: super::input::connect_options(g),
            insecure_skip_tls_verify: args.gc_insecure_skip_tls_verify,
            send_credentials: args.gc_send_credentials,
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
        let out = sink.writer();
        if format == GraphFormat::Json {
            render::write_json(out, &d)?;
        } else if format == GraphFormat::Yaml {
            render::write_yaml(out, &d)?;
        } else {
            gcdiff::write_text(out, &d, &gc_view, &our_view, styles)?;
        }
        sink.commit()?;
        return Ok(if d.identical {
            exit::OK
        } else {
            exit::FINDINGS
        });
    }

    if sub.is_empty() && format == GraphFormat::Tree {
        // Like kubectl's "No resources found": a note on stderr, no table header on stdout.
        eprintln!("nothing to show: no selected object has an owner or a dependent");
        sink.commit()?; // an empty file, as stdout would be
        return Ok(exit::OK);
    }
    if format == GraphFormat::Mermaid && sub.edge_count() > view::mermaid::MAX_EDGES {
        eprintln!(
            "warning: {} edges: Mermaid (and GitHub) refuse to render more than {} by default; select less (KIND/NAME, --uid, --depth)",
            sub.edge_count(),
            view::mermaid::MAX_EDGES
        );
    }
    if format == GraphFormat::Dot
        && args.dot_format == DotFormat::Styled
        && sub.vertex_count() > dot::LARGE
    {
        eprintln!(
            "note: {} objects in one picture: Graphviz takes a while and the result needs zooming; select a component (KIND/NAME, --uid UID) or a namespace (-n)",
            sub.vertex_count()
        );
    }
    let out = sink.writer();
    progress::rendering(|| -> Result<()> {
        match format {
            GraphFormat::Tree => {
                let opts = view::tree::TreeOptions {
                    no_headers: args.no_headers,
                    ..Default::default()
                };
                let stats = view::tree::write_with(out, &sub, styles, opts)?;
                if stats.cuts > 0 {
                    out.flush()?;
                    eprintln!(
                        "note: the tree is cut at depth {} in {} place(s) ({} object(s) below not shown); each cut line says how to continue from there",
                        opts.max_depth, stats.cuts, stats.hidden
                    );
                }
            }
            GraphFormat::Dot => match args.dot_format {
                DotFormat::Styled => dot::write_styled(out, &sub)?,
                DotFormat::Gc => dot::write(out, &sub)?,
                DotFormat::Legacy => dot::write_legacy(out, &sub)?,
            },
            GraphFormat::Mermaid => view::mermaid::write(out, &sub)?,
            GraphFormat::Json => render::write_json(out, &view::json::document(&sub))?,
            GraphFormat::Yaml => render::write_yaml(out, &view::json::document(&sub))?,
            GraphFormat::Name => {
                let doc = serde_json::to_value(view::json::document(&sub))
                    .map_err(std::io::Error::other)?;
                let nodes = doc["nodes"].as_array().cloned().unwrap_or_default();
                list::write_names(out, nodes.iter().filter_map(list::name_of))?;
            }
            GraphFormat::JsonPath(t) => {
                let doc = serde_json::to_value(view::json::document(&sub))
                    .map_err(std::io::Error::other)?;
                let template = crate::render::jsonpath::Template::parse(t).map_err(|e| {
                    Error::usage(format!("-o jsonpath: {e}"), "see kubectl's JSONPath")
                })?;
                list::write_jsonpath(out, &doc, &template)?;
            }
            GraphFormat::CustomColumns(c) => {
                let doc = serde_json::to_value(view::json::document(&sub))
                    .map_err(std::io::Error::other)?;
                let nodes = doc["nodes"].as_array().cloned().unwrap_or_default();
                list::Columns::parse(c)
                    .map_err(|e| {
                        Error::usage(
                            format!("-o {e}"),
                            "e.g. custom-columns=KIND:.kind,NAME:.name",
                        )
                    })?
                    .write(out, &nodes, args.no_headers)?;
            }
        }
        Ok(())
    })?;
    sink.commit()?;
    Ok(exit::OK)
}
