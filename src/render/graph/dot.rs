//! DOT, byte-for-byte as kube-controller-manager's GC debug endpoint prints it
//! (`/debug/controllers/garbagecollector/graph`, gc-model §8), and a parser for what it
//! prints.
//!
//! # v1.26+ format ([`write()`])
//!
//! ```text
//! strict digraph full {
//!   // Node definitions.                      (only when there is a vertex)
//!   "<uid>" [
//!     label="uid=<uid>\nnamespace=<ns>\n<Kind>.<version>[.<group>]/<name>\n[<conditions>\n]"
//!     group="…"
//!     version="…"
//!     kind="…"
//!     namespace="…"
//!     name="…"
//!     uid="…"
//!     missing="false"
//!     beingDeleted="false"
//!     deletingDependents="false"
//!     virtual="false"
//!   ];
//!   // Edge definitions.                      (only when there is an edge)
//!   "<dependent uid>" -> "<owner uid>";
//! }
//! ```
//!
//! Vertices are sorted by UID, edges by (dependent, owner) UID, one edge per ownerReference
//! (a dependent listing one owner twice gives two identical lines, as upstream). Every quoted
//! string is Go `%q` ([`go_quote`]). The group and version come from the identity's apiVersion
//! as Go's `schema.ParseGroupVersion` splits it ([`parse_group_version`]). The conditions line
//! lists `beingDeleted`, `deletingDependents`, `virtual`, `missingFromGraph` (in that order,
//! comma-joined) when any holds.
//!
//! # Legacy format ([`write_legacy`], v1.12–v1.25: gonum's encoder)
//!
//! Verified against a running v1.20.2 kube-controller-manager: `strict digraph full {`, vertices
//! identified by integers allocated per request (we allocate them in UID order), attributes in
//! the same order with the same values, each wrapped in double quotes by the GC and then quoted
//! *again* by gonum when the result is not a valid Go string literal — which is always the case
//! for the label (it contains raw newlines), so the label reads `label="\"uid=…\n…\n\""`. One
//! edge per (dependent, owner) pair (gonum's simple graph merges duplicates), a blank line
//! before `// Edge definitions.`, and no newline after the closing brace. (gc-model §8.4
//! describes the even older encoder — not strict, unquoted labels with raw newlines; the parser
//! below reads that too.)
//!
//! # The quirk we fix (gc-model §8.5)
//!
//! When the GC synthesises a "missing" vertex for an owner UID that has no node, it records that
//! vertex under the **dependent's** UID instead of the owner's. A second dependent of the same
//! absent owner then gets a second, duplicate missing vertex, and a dependent processed later
//! whose owner is the first dependent gets its edge pointed at the missing vertex; since the GC
//! iterates a Go map, its output is not even deterministic in that case. kubectl-gc keys the
//! missing vertex by the owner's UID (what the code intends): one vertex per absent owner, every
//! edge to its real target. (With a graph built from a snapshot every absent owner is a
//! *virtual* node, so missing vertices only appear in graphs built by hand; the GC prints them
//! when it has verified an owner absent and dropped its virtual node while dependents still
//! point at it.)
//!
//! Two smaller deviations: Go's `strconv.Quote` escapes every rune Unicode does not consider
//! printable; we escape control, format, separator, private-use and non-character code points
//! but treat unassigned code points as printable (Kubernetes names, kinds and UIDs are ASCII in
//! practice). And the legacy encoder panics on a self-reference (an object owning itself) —
//! gonum's simple graph refuses self edges, so the real endpoint fails — while we print the
//! edge.

use super::{Subgraph, Vertex};
use std::fmt::Write as _;
use std::io::{self, Write};

/// Splits an apiVersion like Go's `schema.ParseGroupVersion`: `""` and `"/"` → empty;
/// `"v1"` → core; `"g/v"` → group and version; more than one `/` → empty (a parse error,
/// which the GC logs and prints as empty group and version).
pub fn parse_group_version(api_version: &str) -> (&str, &str) {
    if api_version.is_empty() || api_version == "/" {
        return ("", "");
    }
    match api_version.matches('/').count() {
        0 => ("", api_version),
        1 => api_version.split_once('/').unwrap_or(("", "")),
        _ => ("", ""),
    }
}

/// The label text of a vertex (before quoting): three or four lines, each ending in `\n`.
pub fn label(v: &Vertex<'_>) -> String {
    let (group, version) = parse_group_version(v.api_version);
    let mut s = format!(
        "uid={}\nnamespace={}\n{}.{}",
        v.uid, v.namespace, v.kind, version
    );
    if !group.is_empty() {
        s.push('.');
        s.push_str(group);
    }
    s.push('/');
    s.push_str(v.name);
    s.push('\n');
    let conditions: Vec<&str> = [
        (v.being_deleted, "beingDeleted"),
        (v.deleting_dependents, "deletingDependents"),
        (v.is_virtual, "virtual"),
        (v.missing, "missingFromGraph"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| *name)
    .collect();
    if !conditions.is_empty() {
        s.push_str(&conditions.join(","));
        s.push('\n');
    }
    s
}

/// The attributes of a vertex, in the GC's order, unquoted.
pub fn attributes(v: &Vertex<'_>) -> [(&'static str, String); 11] {
    let (group, version) = parse_group_version(v.api_version);
    let b = |x: bool| if x { "true" } else { "false" }.to_owned();
    [
        ("label", label(v)),
        ("group", group.to_owned()),
        ("version", version.to_owned()),
        ("kind", v.kind.to_owned()),
        ("namespace", v.namespace.to_owned()),
        ("name", v.name.to_owned()),
        ("uid", v.uid.to_owned()),
        ("missing", b(v.missing)),
        ("beingDeleted", b(v.being_deleted)),
        ("deletingDependents", b(v.deleting_dependents)),
        ("virtual", b(v.is_virtual)),
    ]
}

/// Writes the v1.26+ format.
pub fn write(w: &mut dyn Write, sub: &Subgraph<'_>) -> io::Result<()> {
    let mut out = String::with_capacity(64 + sub.vertex_count() * 420);
    out.push_str("strict digraph full {\n");
    let vertices = sub.sorted_vertices();
    if !vertices.is_empty() {
        out.push_str("  // Node definitions.\n");
    }
    for v in vertices {
        let v = &sub.graph[v];
        let _ = writeln!(out, "  {} [", go_quote(v.uid));
        for (key, value) in attributes(v) {
            let _ = writeln!(out, "    {key}={}", go_quote(&value));
        }
        out.push_str("  ];\n");
        if out.len() > 1 << 20 {
            w.write_all(out.as_bytes())?;
            out.clear();
        }
    }
    let edges = sub.sorted_edges();
    if !edges.is_empty() {
        out.push_str("  // Edge definitions.\n");
    }
    for e in edges {
        let (f, t) = sub.graph.edge_endpoints(e).expect("edge exists");
        let _ = writeln!(
            out,
            "  {} -> {};",
            go_quote(sub.graph[f].uid),
            go_quote(sub.graph[t].uid)
        );
        if out.len() > 1 << 20 {
            w.write_all(out.as_bytes())?;
            out.clear();
        }
    }
    out.push_str("}\n");
    w.write_all(out.as_bytes())
}

/// Writes the legacy (gonum, v1.12–v1.25) format as v1.20–v1.25 print it.
pub fn write_legacy(w: &mut dyn Write, sub: &Subgraph<'_>) -> io::Result<()> {
    let vertices = sub.sorted_vertices();
    let mut id = vec![0usize; sub.graph.node_count()];
    for (i, v) in vertices.iter().enumerate() {
        id[v.index()] = i;
    }
    let mut out = String::with_capacity(64 + vertices.len() * 440);
    out.push_str("strict digraph full {");
    if !vertices.is_empty() {
        out.push_str("\n  // Node definitions.");
    }
    for v in &vertices {
        let _ = write!(out, "\n  {} [", id[v.index()]);
        for (key, value) in attributes(&sub.graph[*v]) {
            let _ = write!(out, "\n    {key}={}", gonum_value(&value));
        }
        out.push_str("\n  ];");
        if out.len() > 1 << 20 {
            w.write_all(out.as_bytes())?;
            out.clear();
        }
    }
    // A simple graph: one edge per (from, to) pair, ordered by from id, then to id.
    let mut edges: Vec<(usize, usize)> = sub
        .graph
        .edge_indices()
        .filter_map(|e| sub.graph.edge_endpoints(e))
        .map(|(f, t)| (id[f.index()], id[t.index()]))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    if !edges.is_empty() {
        out.push_str("\n\n  // Edge definitions.");
    }
    for (f, t) in edges {
        let _ = write!(out, "\n  {f} -> {t};");
    }
    out.push_str("\n}");
    w.write_all(out.as_bytes())
}

/// A legacy attribute value: the GC wraps it in double quotes; gonum keeps that when it is a
/// valid Go string literal and quotes it again otherwise.
fn gonum_value(raw: &str) -> String {
    let wrapped = format!("\"{raw}\"");
    if go_unquotable(raw) {
        wrapped
    } else {
        go_quote(&wrapped)
    }
}

/// Go's `strconv.Quote`: a double-quoted literal; `"` and `\` escaped, `\a \b \f \n \r \t \v`
/// for those controls, `\xHH` for other ASCII controls, `\uHHHH`/`\UHHHHHHHH` for other
/// non-printable runes, printable Unicode as is.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if go_printable(c) => out.push(c),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\x7f' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// Go's `strconv.IsPrint`, approximately: letters, marks, numbers, punctuation, symbols and
/// the ASCII space. Unassigned code points count as printable here (Go escapes them).
fn go_printable(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return (0x20..0x7f).contains(&u);
    }
    if c.is_control() {
        return false;
    }
    !matches!(u,
        // Separators (Zs except U+0020, Zl, Zp).
        0xA0 | 0x1680 | 0x2000..=0x200A | 0x2028 | 0x2029 | 0x202F | 0x205F | 0x3000
        // Format characters (Cf).
        | 0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x890 | 0x891 | 0x8E2 | 0x180E
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF
        | 0xFFF9..=0xFFFB | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3
        | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F
        // Private use (Co) and non-characters.
        | 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD | 0xFDD0..=0xFDEF)
        && (u & 0xFFFE) != 0xFFFE
}

/// True when `"<inner>"` is a valid Go double-quoted literal (`strconv.Unquote` succeeds).
fn go_unquotable(inner: &str) -> bool {
    let b = inner.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\n' => return false,
            b'\\' => {
                let Some(&c) = b.get(i + 1) else {
                    return false;
                };
                i += 2;
                match c {
                    b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' | b'\\' | b'"' => {}
                    b'x' | b'u' | b'U' => {
                        let n = match c {
                            b'x' => 2,
                            b'u' => 4,
                            _ => 8,
                        };
                        let Some(digits) = b.get(i..i + n) else {
                            return false;
                        };
                        if !digits.iter().all(u8::is_ascii_hexdigit) {
                            return false;
                        }
                        let v = u32::from_str_radix(std::str::from_utf8(digits).unwrap_or("g"), 16)
                            .unwrap_or(u32::MAX);
                        if c != b'x' && v > 0x10FFFF {
                            return false;
                        }
                        i += n;
                    }
                    b'0'..=b'7' => {
                        let Some(digits) = b.get(i..i + 2) else {
                            return false;
                        };
                        if !digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                            return false;
                        }
                        let v = u32::from(c - b'0') * 64
                            + u32::from(digits[0] - b'0') * 8
                            + u32::from(digits[1] - b'0');
                        if v > 255 {
                            return false;
                        }
                        i += 2;
                    }
                    _ => return false,
                }
            }
            _ => i += 1,
        }
    }
    true
}

// ---------------------------------------------------------------------------------------------
// Styled DOT, for people

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
/// of [`super::style`] (dangling references dashed red, virtual owners dashed boxes,
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
    use super::style;
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
        let class = r.class.map(super::class_text);
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

// ---------------------------------------------------------------------------------------------
// Parsing

/// A parsed DOT graph (the subset the GC endpoint emits, any of its versions).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DotGraph {
    /// `strict` was given.
    pub strict: bool,
    /// Vertices in order: the id and the attributes (unquoted values).
    pub nodes: Vec<(String, Vec<(String, String)>)>,
    /// Edges in order: (from id, to id).
    pub edges: Vec<(String, String)>,
}

/// Why a text is not a DOT graph we understand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line of the problem.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    /// An identifier, numeral or quoted string (unquoted with Go's escapes), or HTML string.
    Id(String),
    Punct(char),
    Arrow,
}

struct Lexer<'t> {
    s: &'t [u8],
    text: &'t str,
    i: usize,
    line: usize,
}

impl<'t> Lexer<'t> {
    fn err(&self, message: impl Into<String>) -> ParseError {
        ParseError {
            line: self.line,
            message: message.into(),
        }
    }

    fn next(&mut self) -> Result<Option<(Tok, usize)>, ParseError> {
        loop {
            let Some(&c) = self.s.get(self.i) else {
                return Ok(None);
            };
            match c {
                b'\n' => {
                    self.line += 1;
                    self.i += 1;
                }
                c if c.is_ascii_whitespace() => self.i += 1,
                b'/' if self.s.get(self.i + 1) == Some(&b'/') => self.skip_line(),
                b'#' if self.i == 0 || self.s[self.i - 1] == b'\n' => self.skip_line(),
                b'/' if self.s.get(self.i + 1) == Some(&b'*') => {
                    let rest = &self.text[self.i + 2..];
                    let end = rest
                        .find("*/")
                        .ok_or_else(|| self.err("unterminated comment"))?;
                    self.line += rest[..end].matches('\n').count();
                    self.i += 2 + end + 2;
                }
                _ => break,
            }
        }
        let line = self.line;
        let c = self.s[self.i];
        let tok = match c {
            b'{' | b'}' | b'[' | b']' | b';' | b',' | b'=' | b':' => {
                self.i += 1;
                Tok::Punct(c as char)
            }
            b'-' if matches!(self.s.get(self.i + 1), Some(b'>' | b'-')) => {
                self.i += 2;
                Tok::Arrow
            }
            b'"' => Tok::Id(self.quoted()?),
            b'<' => Tok::Id(self.html()?),
            _ => {
                let start = self.i;
                while let Some(&c) = self.s.get(self.i) {
                    let word = c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c >= 0x80;
                    let dash = c == b'-' && !matches!(self.s.get(self.i + 1), Some(b'>' | b'-'));
                    if word || dash {
                        self.i += 1;
                    } else {
                        break;
                    }
                }
                if start == self.i {
                    return Err(self.err(format!("unexpected character {:?}", c as char)));
                }
                Tok::Id(self.text[start..self.i].to_owned())
            }
        };
        Ok(Some((tok, line)))
    }

    fn skip_line(&mut self) {
        while let Some(&c) = self.s.get(self.i) {
            if c == b'\n' {
                break;
            }
            self.i += 1;
        }
    }

    /// A quoted string, unescaped with Go's rules (the GC quotes with `%q`); raw newlines are
    /// accepted (the oldest encoder did not escape them), unknown escapes are kept as written.
    fn quoted(&mut self) -> Result<String, ParseError> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.i..];
            let Some(c) = rest.chars().next() else {
                return Err(self.err("unterminated string"));
            };
            self.i += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\n' => {
                    self.line += 1;
                    out.push('\n');
                }
                '\\' => {
                    let Some(e) = self.text[self.i..].chars().next() else {
                        return Err(self.err("unterminated string"));
                    };
                    self.i += e.len_utf8();
                    match e {
                        'a' => out.push('\x07'),
                        'b' => out.push('\x08'),
                        'f' => out.push('\x0c'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'v' => out.push('\x0b'),
                        '\\' | '"' | '\'' => out.push(e),
                        '\n' => self.line += 1, // DOT line continuation
                        'x' | 'u' | 'U' => {
                            let n = match e {
                                'x' => 2,
                                'u' => 4,
                                _ => 8,
                            };
                            let digits = self.text.get(self.i..self.i + n).unwrap_or("");
                            match u32::from_str_radix(digits, 16)
                                .ok()
                                .filter(|_| digits.len() == n)
                            {
                                Some(v) => {
                                    self.i += n;
                                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                                }
                                None => {
                                    out.push('\\');
                                    out.push(e);
                                }
                            }
                        }
                        '0'..='7' => {
                            let digits = self.text.get(self.i..self.i + 2).unwrap_or("");
                            match u32::from_str_radix(&format!("{e}{digits}"), 8)
                                .ok()
                                .filter(|_| digits.len() == 2)
                            {
                                Some(v) => {
                                    self.i += 2;
                                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                                }
                                None => {
                                    out.push('\\');
                                    out.push(e);
                                }
                            }
                        }
                        other => {
                            out.push('\\');
                            out.push(other);
                        }
                    }
                }
                c => out.push(c),
            }
        }
    }

    fn html(&mut self) -> Result<String, ParseError> {
        let start = self.i;
        let mut depth = 0usize;
        while let Some(&c) = self.s.get(self.i) {
            self.i += 1;
            match c {
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(self.text[start..self.i].to_owned());
                    }
                }
                b'\n' => self.line += 1,
                _ => {}
            }
        }
        Err(self.err("unterminated HTML string"))
    }
}

/// Parses a DOT graph as the GC endpoint prints it (v1.26+, gonum with or without re-quoting).
/// Graph, node and edge default attributes are skipped; subgraphs are refused.
pub fn parse(text: &str) -> Result<DotGraph, ParseError> {
    let mut lx = Lexer {
        s: text.as_bytes(),
        text,
        i: 0,
        line: 1,
    };
    let mut toks: Vec<(Tok, usize)> = Vec::new();
    while let Some(t) = lx.next()? {
        toks.push(t);
    }
    let mut p = 0;
    let at = |p: usize| toks.get(p).map(|(t, _)| t);
    let line_at = |p: usize| toks.get(p).or(toks.last()).map_or(1, |(_, l)| *l);
    let err = |p: usize, m: &str| ParseError {
        line: line_at(p),
        message: m.to_owned(),
    };
    let keyword =
        |t: Option<&Tok>, k: &str| matches!(t, Some(Tok::Id(s)) if s.eq_ignore_ascii_case(k));
    let mut g = DotGraph::default();
    if keyword(at(p), "strict") {
        g.strict = true;
        p += 1;
    }
    if keyword(at(p), "digraph") || keyword(at(p), "graph") {
        p += 1;
    } else {
        return Err(err(p, "expected `digraph` (is this the GC's DOT graph?)"));
    }
    if matches!(at(p), Some(Tok::Id(_))) {
        p += 1;
    }
    if at(p) != Some(&Tok::Punct('{')) {
        return Err(err(p, "expected `{`"));
    }
    p += 1;
    loop {
        match at(p) {
            None => return Err(err(p, "missing closing `}`")),
            Some(Tok::Punct('}')) => {
                p += 1;
                break;
            }
            Some(Tok::Punct(';' | ',')) => p += 1,
            Some(Tok::Id(id)) if id.eq_ignore_ascii_case("subgraph") => {
                return Err(err(p, "subgraphs are not supported"));
            }
            Some(Tok::Id(id)) => {
                let id = id.clone();
                let is_default = ["node", "edge", "graph"]
                    .iter()
                    .any(|k| id.eq_ignore_ascii_case(k));
                p += 1;
                match at(p) {
                    Some(Tok::Punct('=')) => {
                        // graph attribute `a = b`
                        p += 2;
                    }
                    Some(Tok::Arrow) => {
                        let mut from = id;
                        while at(p) == Some(&Tok::Arrow) {
                            let Some(Tok::Id(to)) = at(p + 1) else {
                                return Err(err(p + 1, "expected a node id after `->`"));
                            };
                            g.edges.push((from, to.clone()));
                            from = to.clone();
                            p += 2;
                        }
                        if at(p) == Some(&Tok::Punct('[')) {
                            (_, p) =
                                attr_list(&toks, p).map_err(|q| err(q, "bad attribute list"))?;
                        }
                    }
                    Some(Tok::Punct('[')) => {
                        let (attrs, q) =
                            attr_list(&toks, p).map_err(|q| err(q, "bad attribute list"))?;
                        p = q;
                        if !is_default {
                            g.nodes.push((id, attrs));
                        }
                    }
                    Some(Tok::Punct(':')) => return Err(err(p, "ports are not supported")),
                    _ => {
                        if !is_default {
                            g.nodes.push((id, Vec::new()));
                        }
                    }
                }
            }
            Some(_) => return Err(err(p, "unexpected token")),
        }
    }
    if p < toks.len() {
        return Err(err(p, "text after the closing `}`"));
    }
    Ok(g)
}

/// Parses `[ a=b c=d, … ]` starting at `p` (the `[`); returns the attributes and the index
/// after `]`, or the index of the problem.
fn attr_list(toks: &[(Tok, usize)], mut p: usize) -> Result<(Vec<(String, String)>, usize), usize> {
    let mut attrs = Vec::new();
    p += 1;
    loop {
        match toks.get(p).map(|(t, _)| t) {
            Some(Tok::Punct(']')) => return Ok((attrs, p + 1)),
            Some(Tok::Punct(';' | ',')) => p += 1,
            Some(Tok::Id(k)) => {
                if toks.get(p + 1).map(|(t, _)| t) != Some(&Tok::Punct('=')) {
                    return Err(p + 1);
                }
                let Some((Tok::Id(v), _)) = toks.get(p + 2) else {
                    return Err(p + 2);
                };
                attrs.push((k.clone(), v.clone()));
                p += 3;
            }
            _ => return Err(p),
        }
    }
}
