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
//! afterwards), and an ownership cycle is cut where it closes ("ownership cycle").

use super::{Subgraph, Vertex, class_text, kind_name};
use crate::gc::classify::RefClassLabel;
use crate::render::Styles;
use owo_colors::OwoColorize;
use petgraph::graph::NodeIndex;
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
            format!("finalizers={}", v.finalizers.join(",")),
            Paint::Plain,
        ));
    }
    s
}

enum Frame {
    Enter {
        v: NodeIndex,
        line_prefix: String,
        child_prefix: String,
        refs: Vec<petgraph::graph::EdgeIndex>,
    },
    Exit(NodeIndex),
}

/// Writes the tree.
pub fn write(w: &mut dyn Write, sub: &Subgraph<'_>, styles: Styles) -> io::Result<()> {
    let g = &sub.graph;
    let key = |i: NodeIndex| {
        let v = &g[i];
        (v.namespace, v.kind, v.name, v.uid)
    };
    let mut order: Vec<NodeIndex> = g.node_indices().collect();
    order.sort_by_key(|&i| key(i));
    let mut visited = vec![false; g.node_count()];
    let mut on_path = vec![false; g.node_count()];
    let mut rows: Vec<Row> = Vec::new();
    // Owners without owners first; then whatever is only reachable through a cycle.
    let tops: Vec<NodeIndex> = order
        .iter()
        .copied()
        .filter(|&i| sub.owners(i).next().is_none())
        .collect();
    for start in tops.into_iter().chain(order.iter().copied()) {
        if visited[start.index()] {
            continue;
        }
        let mut stack = vec![Frame::Enter {
            v: start,
            line_prefix: String::new(),
            child_prefix: String::new(),
            refs: Vec::new(),
        }];
        while let Some(frame) = stack.pop() {
            let (v, line_prefix, child_prefix, refs) = match frame {
                Frame::Exit(v) => {
                    on_path[v.index()] = false;
                    continue;
                }
                Frame::Enter {
                    v,
                    line_prefix,
                    child_prefix,
                    refs,
                } => (v, line_prefix, child_prefix, refs),
            };
            let vertex = &g[v];
            let mut reference = Spans::new();
            for e in &refs {
                let r = &g[*e];
                let mut words = Vec::new();
                if r.controller == Some(true) {
                    words.push("controller");
                }
                if r.block_owner_deletion == Some(true) {
                    words.push("block");
                }
                let (text, p) = match r.class {
                    Some(c) => (class_text(c).to_owned(), class_paint(c)),
                    None => ("ref".to_owned(), Paint::Plain),
                };
                reference.push((text, p));
                for word in words {
                    reference.push((word.to_owned(), Paint::Plain));
                }
            }
            let mut state = state_spans(vertex);
            let mut children: Vec<(NodeIndex, Vec<petgraph::graph::EdgeIndex>)> = Vec::new();
            for e in g.edges_directed(v, petgraph::Direction::Incoming) {
                use petgraph::visit::EdgeRef;
                match children.iter_mut().find(|(c, _)| *c == e.source()) {
                    Some((_, list)) => list.push(e.id()),
                    None => children.push((e.source(), vec![e.id()])),
                }
            }
            let expand = if on_path[v.index()] {
                state.push(("ownership cycle".into(), Paint::Red));
                false
            } else if visited[v.index()] {
                if !children.is_empty() {
                    state.push(("dependents shown above".into(), Paint::Dim));
                }
                false
            } else {
                true
            };
            rows.push(Row {
                namespace: vertex.namespace.to_owned(),
                prefix: line_prefix,
                name: kind_name(vertex),
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
            children.sort_by_key(|(c, _)| key(*c));
            for e in children.iter_mut() {
                e.1.sort();
            }
            let n = children.len();
            for (k, (c, refs)) in children.into_iter().enumerate().rev() {
                let last = k + 1 == n;
                stack.push(Frame::Enter {
                    v: c,
                    line_prefix: format!("{child_prefix}{}", if last { "└─" } else { "├─" }),
                    child_prefix: format!("{child_prefix}{}", if last { "  " } else { "│ " }),
                    refs,
                });
            }
        }
    }
    write_rows(w, &rows, styles)
}

fn write_rows(w: &mut dyn Write, rows: &[Row], styles: Styles) -> io::Result<()> {
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
    writeln!(w, "{}", line.trim_end())?;
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
