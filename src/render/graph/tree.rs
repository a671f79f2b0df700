//! `graph -o tree`: the selection as kubectl-tree draws ownership — owners at the top, their
//! dependents indented below — with the GC's view on every line:
//!
//! ```text
//! NAMESPACE   NAME                          REFERENCE                 GC STATE
//! shop        Deployment/web
//! shop        └─ReplicaSet/web-5d4f         solid, controller, block
//! shop          ├─Pod/web-5d4f-abc          solid, controller, block  terminating, finalizers=example.com/drain
//! shop          └─Pod/web-5d4f-def          dangling
//! ```
//!
//! REFERENCE is the line's ownerReference to the owner on the line above it (its
//! classification as the GC would make it — solid, waiting, dangling, unresolvable,
//! invalid-scope, unknown — then `controller` and `block` for blockOwnerDeletion=true); GC STATE
//! lists virtual/missing, terminating, deletingDependents and finalizers. An object with several
//! owners appears under each of them; its dependents are drawn once ("dependents shown above"
//! afterwards), and an ownership cycle is cut where it closes ("ownership cycle"). The drawing
//! stops [`DEFAULT_MAX_DEPTH`] levels down (a note on the line says how to continue from there),
//! so even a chain of 32,768 owners renders in time and space linear in its length. Names,
//! namespaces and finalizers are shown sanitised ([`crate::render::text`]).

use super::{Subgraph, Vertex, class_text, kind_name};
use crate::diagnose::remedy::shell_word;
use crate::gc::classify::RefClassLabel;
use crate::render::Styles;
use crate::render::text::sanitized;
use owo_colors::OwoColorize;
use petgraph::graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use std::io::{self, Write};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Paint {
    Plain,
    Bold,
    Dim,
    Green,
    Yellow,
    YellowBold,
    Red,
    Magenta,
    Blue,
}

type Spans = Vec<(String, Paint)>;

struct Row {
    namespace: String,
    prefix: String,
    name: String,
    name_paint: Paint,
    reference: Spans,
    state: Spans,
}

fn paint(text: &str, p: Paint, styles: Styles) -> String {
    if !styles.color || text.is_empty() {
        return text.to_owned();
    }
    match p {
        Paint::Plain => text.to_owned(),
        Paint::Bold => text.bold().to_string(),
        Paint::Dim => text.dimmed().to_string(),
        Paint::Green => text.green().to_string(),
        Paint::Yellow => text.yellow().to_string(),
        Paint::YellowBold => text.yellow().bold().to_string(),
        Paint::Red => text.red().to_string(),
        Paint::Magenta => text.magenta().to_string(),
        Paint::Blue => text.blue().to_string(),
    }
}

fn plain_len(spans: &Spans) -> usize {
    let text: usize = spans.iter().map(|(t, _)| t.chars().count()).sum();
    text + spans.len().saturating_sub(1) * 2
}

fn render_spans(spans: &Spans, styles: Styles) -> String {
    spans
        .iter()
        .map(|(t, p)| paint(t, *p, styles))
        .collect::<Vec<_>>()
        .join(", ")
}

fn class_paint(c: RefClassLabel) -> Paint {
    match c {
        RefClassLabel::Solid => Paint::Green,
        RefClassLabel::Waiting => Paint::Yellow,
        RefClassLabel::Dangling => Paint::Red,
        RefClassLabel::Unresolvable
        | RefClassLabel::InvalidScope
        | RefClassLabel::Unrequestable => Paint::Magenta,
        RefClassLabel::Unknown => Paint::Blue,
    }
}

fn state_spans(v: &Vertex<'_>) -> Spans {
    let mut s = Spans::new();
    if v.missing {
        s.push(("missing".into(), Paint::Red));
    }
    if v.is_virtual {
        s.push(("virtual".into(), Paint::Magenta));
    }
    if v.deleting_dependents {
        s.push(("deletingDependents".into(), Paint::YellowBold));
    } else if v.being_deleted {
        s.push(("terminating".into(), Paint::Yellow));
    }
    if !v.finalizers.is_empty() {
        s.push((
            sanitized(&format!("finalizers={}", v.finalizers.join(","))),
            Paint::Plain,
        ));
    }
    s
}

enum Frame {
    Enter {
        v: NodeIndex,
        depth: usize,
        /// The tree drawing before the name: `depth` two-character cells.
        line_prefix: String,
        child_prefix: String,
        refs: Vec<EdgeIndex>,
    },
    Exit(NodeIndex),
}

/// How much of the tree to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeOptions {
    /// Levels drawn below a top-level owner; deeper dependents are cut, with a note on the
    /// line where the cut is (and [`TreeStats::cuts`] counts them).
    pub max_depth: usize,
    /// `--no-headers`: no header line.
    pub no_headers: bool,
}

/// The default depth limit: deep enough for any real ownership chain (Deployment → ReplicaSet
/// → Pod is 3), shallow enough that the drawing (two columns per level) stays readable and
/// the output linear in the size of the graph.
pub const DEFAULT_MAX_DEPTH: usize = 64;

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            max_depth: DEFAULT_MAX_DEPTH,
            no_headers: false,
        }
    }
}

/// What [`write_with`] left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeStats {
    /// Lines written (without the header).
    pub rows: usize,
    /// Places where dependents were not drawn because of [`TreeOptions::max_depth`].
    pub cuts: usize,
    /// Vertices not drawn at all because they are only below such a cut.
    pub hidden: usize,
}

/// Writes the tree with the default depth limit.
pub fn write(w: &mut dyn Write, sub: &Subgraph<'_>, styles: Styles) -> io::Result<()> {
    write_with(w, sub, styles, TreeOptions::default()).map(|_| ())
}

/// Writes the tree. Linear in the size of the selection: every vertex is expanded once (later
/// appearances under other owners say "dependents shown above"), children are grouped by
/// sorting (not searching), and the drawing is at most `max_depth` levels deep, so no line is
/// longer than `2 × max_depth` plus the longest name.
pub fn write_with(
    w: &mut dyn Write,
    sub: &Subgraph<'_>,
    styles: Styles,
    opts: TreeOptions,
) -> io::Result<TreeStats> {
    let g = &sub.graph;
    let key = |i: NodeIndex| {
        let v = &g[i];
        (v.namespace, v.kind, v.name, v.uid)
    };
    let mut order: Vec<NodeIndex> = g.node_indices().collect();
    order.sort_by_key(|&i| key(i));
    // Each vertex's rank in `order`: children sort by it (one comparison of two integers
    // instead of four strings).
    let mut rank = vec![0usize; g.node_count()];
    for (r, &i) in order.iter().enumerate() {
        rank[i.index()] = r;
    }
    let mut visited = vec![false; g.node_count()];
    // Below a depth cut: not drawn there, and never the start of a tree of its own (drawn only
    // if another owner reaches it within the limit).
    let mut hidden = vec![false; g.node_count()];
    let mut on_path = vec![false; g.node_count()];
    let mut rows: Vec<Row> = Vec::new();
    let mut stats = TreeStats::default();
    // Owners without owners first; then whatever is only reachable through a cycle.
    let tops: Vec<NodeIndex> = order
        .iter()
        .copied()
        .filter(|&i| sub.owners(i).next().is_none())
        .collect();
    for start in tops.into_iter().chain(order.iter().copied()) {
        if visited[start.index()] || hidden[start.index()] {
            continue;
        }
        let mut stack = vec![Frame::Enter {
            v: start,
            depth: 0,
            line_prefix: String::new(),
            child_prefix: String::new(),
            refs: Vec::new(),
        }];
        while let Some(frame) = stack.pop() {
            let (v, depth, line_prefix, child_prefix, refs) = match frame {
                Frame::Exit(v) => {
                    on_path[v.index()] = false;
                    continue;
                }
                Frame::Enter {
                    v,
                    depth,
                    line_prefix,
                    child_prefix,
                    refs,
                } => (v, depth, line_prefix, child_prefix, refs),
            };
            let vertex = &g[v];
            let mut reference = Spans::new();
            for e in &refs {
                let r = &g[*e];
                let (text, p) = match r.class {
                    Some(c) => (class_text(c).to_owned(), class_paint(c)),
                    None => ("ref".to_owned(), Paint::Plain),
                };
                reference.push((text, p));
                if r.controller == Some(true) {
                    reference.push(("controller".to_owned(), Paint::Plain));
                }
                if r.block_owner_deletion == Some(true) {
                    reference.push(("block".to_owned(), Paint::Plain));
                }
            }
            let mut state = state_spans(vertex);
            let has_dependents = g
                .edges_directed(v, petgraph::Direction::Incoming)
                .next()
                .is_some();
            let expand = if on_path[v.index()] {
                state.push(("ownership cycle".into(), Paint::Red));
                false
            } else if visited[v.index()] {
                if has_dependents {
                    state.push(("dependents shown above".into(), Paint::Dim));
                }
                false
            } else if has_dependents && depth >= opts.max_depth {
                visited[v.index()] = true;
                stats.cuts += 1;
                let mut below: Vec<NodeIndex> = vec![v];
                while let Some(x) = below.pop() {
                    for d in g.neighbors_directed(x, petgraph::Direction::Incoming) {
                        if !visited[d.index()] && !hidden[d.index()] {
                            hidden[d.index()] = true;
                            below.push(d);
                        }
                    }
                }
                state.push((
                    format!(
                        "dependents not shown (depth limit {}): kubectl gc graph --uid {} --direction down",
                        opts.max_depth,
                        shell_word(vertex.uid)
                    ),
                    Paint::Dim,
                ));
                false
            } else {
                true
            };
            rows.push(Row {
                namespace: sanitized(vertex.namespace),
                prefix: line_prefix,
                name: sanitized(&kind_name(vertex)),
                name_paint: if vertex.root {
                    Paint::Bold
                } else {
                    Paint::Plain
                },
                reference,
                state,
            });
            if !expand {
                continue;
            }
            visited[v.index()] = true;
            on_path[v.index()] = true;
            stack.push(Frame::Exit(v));
            // Dependents, each with its references to `v` (several when it lists `v` more than
            // once), in `order`; grouped by sorting the incoming edges.
            let mut incoming: Vec<(usize, EdgeIndex, NodeIndex)> = g
                .edges_directed(v, petgraph::Direction::Incoming)
                .map(|e| (rank[e.source().index()], e.id(), e.source()))
                .collect();
            incoming.sort_unstable_by_key(|&(r, e, _)| (r, e));
            let mut children: Vec<(NodeIndex, Vec<EdgeIndex>)> = Vec::new();
            for (_, e, c) in incoming {
                match children.last_mut() {
                    Some((last, list)) if *last == c => list.push(e),
                    _ => children.push((c, vec![e])),
                }
            }
            let n = children.len();
            for (k, (c, refs)) in children.into_iter().enumerate().rev() {
                let last = k + 1 == n;
                stack.push(Frame::Enter {
                    v: c,
                    depth: depth + 1,
                    line_prefix: format!("{child_prefix}{}", if last { "└─" } else { "├─" }),
                    child_prefix: format!("{child_prefix}{}", if last { "  " } else { "│ " }),
                    refs,
                });
            }
        }
    }
    stats.rows = rows.len();
    stats.hidden = (0..g.node_count())
        .filter(|&i| hidden[i] && !visited[i])
        .count();
    write_rows(w, &rows, styles, opts.no_headers)?;
    Ok(stats)
}

fn write_rows(w: &mut dyn Write, rows: &[Row], styles: Styles, no_headers: bool) -> io::Result<()> {
    let headers = ["NAMESPACE", "NAME", "REFERENCE", "GC STATE"];
    let mut width = headers.map(|h| h.len());
    for r in rows {
        width[0] = width[0].max(r.namespace.chars().count());
        width[1] = width[1].max(r.prefix.chars().count() + r.name.chars().count());
        width[2] = width[2].max(plain_len(&r.reference));
    }
    let pad = |n: usize| " ".repeat(n);
    let mut line = String::new();
    for (i, h) in headers.iter().enumerate() {
        line.push_str(h);
        if i < 3 {
            line.push_str(&pad(width[i] - h.len() + 3));
        }
    }
    if !no_headers {
        writeln!(w, "{}", line.trim_end())?;
    }
    for r in rows {
        let mut line = String::new();
        line.push_str(&r.namespace);
        line.push_str(&pad(width[0] - r.namespace.chars().count() + 3));
        line.push_str(&paint(&r.prefix, Paint::Dim, styles));
        line.push_str(&paint(&r.name, r.name_paint, styles));
        line.push_str(&pad(width[1]
            - r.prefix.chars().count()
            - r.name.chars().count()
            + 3));
        line.push_str(&render_spans(&r.reference, styles));
        let state = render_spans(&r.state, styles);
        if !state.is_empty() {
            line.push_str(&pad(width[2] - plain_len(&r.reference) + 3));
            line.push_str(&state);
        }
        writeln!(w, "{}", line.trim_end())?;
    }
    Ok(())
}
