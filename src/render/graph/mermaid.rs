//! `graph -o mermaid`: a Mermaid flowchart (GitHub renders it inside a ```` ```mermaid ````
//! block). Owners are at the top (`flowchart BT`, edges from the dependent to the owner as in
//! the DOT); each edge is labelled with the reference's classification, `controller` and
//! `block` (blockOwnerDeletion=true); dangling, waiting, unresolvable and unknown references
//! are coloured; virtual, missing, terminating and deletingDependents vertices have their own
//! classes.
//!
//! Labels are escaped with Mermaid's entity codes (`#34;` for `"`, `#35;` for `#`, …), so any
//! name, kind or UID renders as text and cannot break out of the label.

use super::{Subgraph, Vertex, class_text, kind_name};
use crate::gc::classify::RefClassLabel;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Mermaid's default `maxEdges`: GitHub refuses to render larger diagrams.
pub const MAX_EDGES: usize = 500;

/// Escapes text for a quoted Mermaid label.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' | '#' | '&' | '<' | '>' | '`' | '\\' | '|' | '{' | '}' | '[' | ']' => {
                let _ = write!(out, "#{};", c as u32);
            }
            // Controls (a newline too: a name is one line; the label's own lines are joined
            // with `<br/>`) and the invisible characters that reorder or hide text, as visible
            // `\u{NNNN}` (itself escaped).
            c if crate::util::is_terminal_hostile(c) => {
                out.push_str(&escape(&format!("\\u{{{:04x}}}", c as u32)));
            }
            c => out.push(c),
        }
    }
    out
}

fn vertex_label(v: &Vertex<'_>) -> String {
    let mut lines = vec![escape(&kind_name(v))];
    if !v.namespace.is_empty() {
        lines.push(format!("ns: {}", escape(v.namespace)));
    }
    let mut state = Vec::new();
    if v.missing {
        state.push("missing");
    }
    if v.is_virtual {
        state.push("virtual");
    }
    if v.deleting_dependents {
        state.push("deletingDependents");
    } else if v.being_deleted {
        state.push("terminating");
    }
    if !state.is_empty() {
        lines.push(format!("({})", state.join(", ")));
    }
    lines.join("<br/>")
}

/// Writes the flowchart.
pub fn write(w: &mut dyn Write, sub: &Subgraph<'_>) -> io::Result<()> {
    let mut out = String::from("flowchart BT\n");
    let vertices = sub.sorted_vertices();
    let mut id = vec![0usize; sub.graph.node_count()];
    for (i, v) in vertices.iter().enumerate() {
        id[v.index()] = i;
    }
    for (i, v) in vertices.iter().enumerate() {
        let v = &sub.graph[*v];
        let class = if v.missing {
            ":::missing"
        } else if v.is_virtual {
            ":::virtual"
        } else if v.deleting_dependents {
            ":::deletingDependents"
        } else if v.being_deleted {
            ":::terminating"
        } else {
            ""
        };
        let _ = writeln!(out, "  n{i}[\"{}\"]{class}", vertex_label(v));
    }
    let mut styled: Vec<(RefClassLabel, Vec<usize>)> = Vec::new();
    for (k, e) in sub.sorted_edges().into_iter().enumerate() {
        let (f, t) = sub.graph.edge_endpoints(e).expect("edge exists");
        let r = &sub.graph[e];
        let mut words: Vec<&str> = Vec::new();
        if let Some(c) = r.class {
            words.push(class_text(c));
            if c != RefClassLabel::Solid {
                match styled.iter_mut().find(|(x, _)| *x == c) {
                    Some((_, v)) => v.push(k),
                    None => styled.push((c, vec![k])),
                }
            }
        }
        if r.controller == Some(true) {
            words.push("controller");
        }
        if r.block_owner_deletion == Some(true) {
            words.push("block");
        }
        let arrow = if words.is_empty() {
            "-->".to_owned()
        } else {
            format!("-->|{}|", words.join(", "))
        };
        let _ = writeln!(out, "  n{} {arrow} n{}", id[f.index()], id[t.index()]);
    }
    for (c, edges) in styled {
        let colour = match c {
            RefClassLabel::Dangling => "#d62728",
            RefClassLabel::Waiting => "#e6a700",
            RefClassLabel::Unresolvable
            | RefClassLabel::InvalidScope
            | RefClassLabel::Unrequestable => "#9467bd",
            RefClassLabel::Unknown | RefClassLabel::Solid => "#7f7f7f",
        };
        let list: Vec<String> = edges.iter().map(usize::to_string).collect();
        let _ = writeln!(
            out,
            "  linkStyle {} stroke:{colour},stroke-width:2px",
            list.join(",")
        );
    }
    out.push_str(
        "  classDef virtual stroke-dasharray:5 5,color:#555\n\
         \x20 classDef missing stroke-dasharray:2 2,stroke:#d62728,color:#555\n\
         \x20 classDef terminating fill:#fff4d6,stroke:#e6a700\n\
         \x20 classDef deletingDependents fill:#ffe3cc,stroke:#e05a00\n",
    );
    w.write_all(out.as_bytes())
}
