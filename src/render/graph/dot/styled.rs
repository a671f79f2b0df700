//! Styled DOT, for people (`--dot-format styled`, the default of `-o dot`): the look of
//! [`crate::render::graph::style`], one cluster per namespace, and the grid wrapping that keeps
//! thousands of objects legible. Unlike the endpoint formats in [`super`] it owes nothing to the
//! GC's bytes, so it lives apart from them.

use super::go_quote;
use crate::render::graph::Subgraph;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Above this many vertices Graphviz takes seconds and the picture is large: the DOT says so
/// (and the command prints a note) and suggests selecting a component.
pub const LARGE: usize = 2000;

/// Namespaces with more disconnected pieces than this are wrapped into a grid (see
/// [`write_styled`]).
const WRAP_PIECES: usize = 6;

/// A double-quoted DOT string for labels and tooltips: `"` and `\` escaped (so no name can
/// leave the string or start one of Graphviz's `\N`-style escapes), control characters shown
/// as `\u{NNNN}` text, lines joined with `\n`.
pub fn dot_text(lines: &[&str]) -> String {
    let mut out = String::from("\"");
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str("\\n");
        }
        for c in crate::render::escape::one_line(line).chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c => out.push(c),
            }
        }
    }
    out.push('"');
    out
}

/// Writes a DOT picture for people (`--dot-format styled`, the default of `-o dot`): the look
/// of [`crate::render::graph::style`] (dangling references dashed red, virtual owners dashed boxes,
/// terminating objects grey with their finalizers, blocking links of foreground deletions
/// thick dark orange and their root blockers red-bordered), one cluster per namespace
/// (cluster-scoped objects in their own), owners above dependents.
///
/// Legibility at thousands of objects: Graphviz puts every owner without an owner on one rank,
/// so a namespace of 500 small pod/ReplicaSet/Deployment trees becomes one row 30,000 points
/// wide. Each namespace's disconnected pieces are therefore wrapped into a grid of about
/// √pieces columns (invisible edges stack a piece under the piece one row above), and the
/// namespaces are packed (`pack`, `packmode=graph`). Above [`LARGE`] vertices a comment and
/// the graph's label suggest selecting a component.
pub fn write_styled(w: &mut dyn Write, sub: &Subgraph<'_>) -> io::Result<()> {
    use crate::render::graph::style;
    use petgraph::visit::EdgeRef;
    let g = &sub.graph;
    let vertices = sub.sorted_vertices();
    let edges = sub.sorted_edges();
    let mut out = String::with_capacity(512 + vertices.len() * 260);
    let _ = writeln!(
        out,
        "// kubectl-gc ownership graph: {} objects, {} references; arrows point from a dependent to its owner.",
        vertices.len(),
        edges.len()
    );
    out.push_str(
        "// Render with: dot -Tsvg. The GC debug endpoint's own format: --dot-format gc.\n",
    );
    if vertices.len() > LARGE {
        let _ = writeln!(
            out,
            "// {} objects: large for one picture (Graphviz takes a while, the result needs zooming). Select a component: kubectl gc graph KIND/NAME, --uid UID, or -n NAMESPACE.",
            vertices.len()
        );
    }
    out.push_str("digraph ownership {\n");
    let legend = "references: grey solid · blue waiting · red dashed dangling · purple dotted unresolvable · orange dashed invalid-scope · grey dashed unknown · thick dark orange: blocks a foreground deletion\\nobjects: dashed box virtual owner · red dashed box missing · grey terminating · orange deleting dependents · red border root blocker · blue border start object";
    let _ = writeln!(
        out,
        "  graph [rankdir=BT, pack=true, packmode=\"graph\", nodesep=0.2, ranksep=0.4, fontname=\"Helvetica\", fontsize=10, labelloc=b, labeljust=l, label=\"{legend}{}\"];",
        if vertices.len() > LARGE {
            "\\nlarge graph: select a component (KIND/NAME, --uid) or a namespace (-n)"
        } else {
            ""
        }
    );
    out.push_str("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10, margin=\"0.08,0.03\"];\n");
    out.push_str("  edge [arrowsize=0.6];\n");

    // Blocking links and root blockers (style.rs's rule, on the subgraph).
    let mut blocks = vec![false; g.edge_count()];
    let mut root_blocker = vec![false; g.node_count()];
    for e in g.edge_references() {
        let owner = &g[e.target()];
        if style::blocking(owner.deleting_dependents, e.weight().block_owner_deletion) {
            blocks[e.id().index()] = true;
            if !g[e.source()].deleting_dependents {
                root_blocker[e.source().index()] = true;
            }
        }
    }

    // Vertices, one cluster per namespace (sorted; cluster-scoped last).
    let mut by_ns: std::collections::BTreeMap<(bool, &str), Vec<petgraph::graph::NodeIndex>> =
        std::collections::BTreeMap::new();
    for &v in &vertices {
        let ns = g[v].namespace;
        by_ns.entry((ns.is_empty(), ns)).or_default().push(v);
    }
    let mut invisible: Vec<(petgraph::graph::NodeIndex, petgraph::graph::NodeIndex)> = Vec::new();
    for (k, ((cluster_scoped, ns), members)) in by_ns.iter().enumerate() {
        let title = if *cluster_scoped {
            "cluster-scoped".to_owned()
        } else {
            format!("namespace {ns}")
        };
        let _ = writeln!(
            out,
            "  subgraph cluster_{k} {{\n    label={}; style=\"rounded\"; color=\"#b0bec5\"; fontcolor=\"#455a64\";",
            dot_text(&[&title])
        );
        for &v in members {
            let vx = &g[v];
            let kind = if vx.kind.is_empty() { "?" } else { vx.kind };
            let name = format!("{kind}/{}", vx.name);
            let state = style::state_line(
                vx.is_virtual,
                vx.missing,
                vx.being_deleted,
                vx.deleting_dependents,
                &vx.finalizers,
            );
            let mut lines = vec![name.as_str()];
            if !state.is_empty() {
                lines.push(&state);
            }
            if root_blocker[v.index()] {
                lines.push("blocks a foreground deletion");
            }
            let flags = style::VertexFlags {
                is_virtual: vx.is_virtual,
                missing: vx.missing,
                being_deleted: vx.being_deleted,
                deleting_dependents: vx.deleting_dependents,
                root_blocker: root_blocker[v.index()],
                focus: vx.root,
            };
            let (fill, border, stroke, width) = style::vertex(flags);
            let tooltip = format!("{} {} uid={}", vx.api_version, name, vx.uid);
            let _ = writeln!(
                out,
                "    {} [label={}, tooltip={}, fillcolor=\"{fill}\", color=\"{border}\", penwidth={width}{}];",
                go_quote(vx.uid),
                dot_text(&lines),
                dot_text(&[&tooltip]),
                if stroke == style::Stroke::Solid {
                    String::new()
                } else {
                    format!(", style=\"rounded,filled,{}\"", stroke.dot())
                }
            );
        }
        // Wrap the namespace's disconnected pieces into a grid.
        let pieces = pieces_of(sub, members);
        if pieces.len() > WRAP_PIECES {
            let columns = (pieces.len() as f64).sqrt().ceil() as usize;
            for j in columns..pieces.len() {
                let (top, _) = pieces[j];
                let (_, bottom) = pieces[j - columns];
                invisible.push((top, bottom));
            }
        }
        out.push_str("  }\n");
        if out.len() > 1 << 20 {
            w.write_all(out.as_bytes())?;
            out.clear();
        }
    }
    for e in edges {
        let (f, t) = g.edge_endpoints(e).expect("edge exists");
        let r = &g[e];
        let class = r.class.map(crate::render::graph::class_text);
        let look = style::edge(class, blocks[e.index()]);
        let mut tip = format!("{} → {}/{}", class.unwrap_or("reference"), r.kind, r.name);
        if r.controller == Some(true) {
            tip.push_str(", controller");
        }
        if r.block_owner_deletion == Some(true) {
            tip.push_str(", blockOwnerDeletion");
        }
        let _ = writeln!(
            out,
            "  {} -> {} [color=\"{}\", style={}, penwidth={}, tooltip={}];",
            go_quote(g[f].uid),
            go_quote(g[t].uid),
            look.color,
            look.stroke.dot(),
            look.width,
            dot_text(&[&tip])
        );
        if out.len() > 1 << 20 {
            w.write_all(out.as_bytes())?;
            out.clear();
        }
    }
    for (top, bottom) in invisible {
        // `top` (an owner of a piece in the next row) under `bottom` (a dependent of the piece
        // above): with rankdir=BT the head of an edge is drawn above its tail.
        let _ = writeln!(
            out,
            "  {} -> {} [style=invis, weight=0];",
            go_quote(g[top].uid),
            go_quote(g[bottom].uid)
        );
    }
    out.push_str("}\n");
    w.write_all(out.as_bytes())
}

/// The weakly connected pieces of the subgraph induced by `members` (in `members` order of
/// their first vertex), each as (a vertex without an owner in the piece — its top —, a vertex
/// without a dependent in the piece — its bottom).
fn pieces_of(
    sub: &Subgraph<'_>,
    members: &[petgraph::graph::NodeIndex],
) -> Vec<(petgraph::graph::NodeIndex, petgraph::graph::NodeIndex)> {
    use petgraph::graph::NodeIndex;
    let inside: std::collections::HashSet<NodeIndex> = members.iter().copied().collect();
    let mut seen: std::collections::HashSet<NodeIndex> = std::collections::HashSet::new();
    let mut out = Vec::new();
    for &start in members {
        if !seen.insert(start) {
            continue;
        }
        let mut stack = vec![start];
        let (mut top, mut bottom) = (None, None);
        while let Some(v) = stack.pop() {
            let owners: Vec<NodeIndex> = sub
                .owners(v)
                .map(|(o, _)| o)
                .filter(|o| inside.contains(o) && *o != v)
                .collect();
            let deps: Vec<NodeIndex> = sub
                .dependents(v)
                .map(|(d, _)| d)
                .filter(|d| inside.contains(d) && *d != v)
                .collect();
            if owners.is_empty() && top.is_none() {
                top = Some(v);
            }
            if deps.is_empty() && bottom.is_none() {
                bottom = Some(v);
            }
            for n in owners.into_iter().chain(deps) {
                if seen.insert(n) {
                    stack.push(n);
                }
            }
        }
        out.push((top.unwrap_or(start), bottom.unwrap_or(start)));
    }
    out
}
