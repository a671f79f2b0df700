//! How pictures of the graph look — one vocabulary for the styled DOT ([`super::dot::write_styled`])
//! and the HTML report's SVG ([`super::svg`]), so both read the same way:
//!
//! | what | drawn as |
//! |---|---|
//! | solid reference | a plain grey arrow (dependent → owner) |
//! | waiting (owner in foreground deletion) | blue |
//! | dangling | **red, dashed** |
//! | unresolvable (kind not served) | purple, dotted |
//! | invalid-scope (cluster-scoped dependent, namespaced owner) | orange, dashed |
//! | unknown (the input cannot tell) | grey, dashed |
//! | a blocking link of a foreground deletion (owner deleting dependents, `blockOwnerDeletion=true`) | thick, dark orange, whatever its class |
//! | virtual owner (no object has this UID: an owner the GC has not observed) | dashed box |
//! | missing owner (the GC verified it absent) | dashed red box |
//! | terminating object (deletionTimestamp set) | grey fill, "terminating" and its finalizers |
//! | deleting its dependents (foreground) | orange fill |
//! | root blocker of a foreground deletion | red border: a dependent in the chain that is not itself waiting for dependents |

use super::json::GraphDocument;

/// The colour and stroke of a reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeLook {
    /// `#rrggbb`.
    pub color: &'static str,
    /// solid, dashed, dotted.
    pub stroke: Stroke,
    /// Stroke width in points.
    pub width: f32,
}

/// A line's pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stroke {
    /// Continuous.
    Solid,
    /// Dashes.
    Dashed,
    /// Dots.
    Dotted,
}

impl Stroke {
    /// The Graphviz `style` value.
    pub fn dot(self) -> &'static str {
        match self {
            Stroke::Solid => "solid",
            Stroke::Dashed => "dashed",
            Stroke::Dotted => "dotted",
        }
    }

    /// The SVG `stroke-dasharray` value (empty for solid).
    pub fn dasharray(self) -> &'static str {
        match self {
            Stroke::Solid => "",
            Stroke::Dashed => "6 4",
            Stroke::Dotted => "2 3",
        }
    }
}

/// Colour of blocking links of a foreground deletion.
pub const CHAIN: &str = "#d84315";

/// The look of a reference of classification `class` (`solid`, `dangling`, …; `None`: not
/// classified); `blocking`: a blocking link of a foreground deletion.
pub fn edge(class: Option<&str>, blocking: bool) -> EdgeLook {
    let (color, stroke) = match class {
        Some("waiting") => ("#1565c0", Stroke::Solid),
        Some("dangling") => ("#c62828", Stroke::Dashed),
        Some("unresolvable") => ("#6a1b9a", Stroke::Dotted),
        Some("invalid-scope") => ("#ef6c00", Stroke::Dashed),
        Some("unknown") => ("#757575", Stroke::Dashed),
        _ => ("#546e7a", Stroke::Solid),
    };
    if blocking {
        EdgeLook {
            color: CHAIN,
            stroke,
            width: 2.5,
        }
    } else {
        EdgeLook {
            color,
            stroke,
            width: if class == Some("dangling") { 1.6 } else { 1.0 },
        }
    }
}

/// What a vertex is, for drawing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VertexFlags {
    /// A virtual node.
    pub is_virtual: bool,
    /// A missing node.
    pub missing: bool,
    /// Has a deletionTimestamp.
    pub being_deleted: bool,
    /// Foreground deletion in progress.
    pub deleting_dependents: bool,
    /// The dependent end of a blocking link that does not itself wait for dependents.
    pub root_blocker: bool,
    /// One of the picture's subjects (a start object, a finding's object).
    pub focus: bool,
}

/// Fill, border colour, border stroke and width of a vertex.
pub fn vertex(f: VertexFlags) -> (&'static str, &'static str, Stroke, f32) {
    let fill = if f.deleting_dependents {
        "#ffe0b2"
    } else if f.being_deleted {
        "#e0e0e0"
    } else if f.is_virtual || f.missing {
        "#ffffff"
    } else {
        "#f5f9ff"
    };
    let (border, width) = if f.root_blocker {
        ("#b71c1c", 2.5)
    } else if f.missing {
        ("#c62828", 1.2)
    } else if f.focus {
        ("#0d47a1", 2.5)
    } else {
        ("#607d8b", 1.0)
    };
    let stroke = if f.is_virtual || f.missing {
        Stroke::Dashed
    } else {
        Stroke::Solid
    };
    (fill, border, stroke, width)
}

/// True when the reference from a dependent to `owner` blocks the owner's foreground
/// deletion (the GC deletes the owner only once such dependents are gone).
pub fn blocking(owner_deleting_dependents: bool, block_owner_deletion: Option<bool>) -> bool {
    owner_deleting_dependents && block_owner_deletion == Some(true)
}

/// For each vertex of an owned graph, whether it is a root blocker (indices as `doc.nodes`),
/// and for each edge whether it blocks.
pub fn chains(doc: &GraphDocument) -> (Vec<bool>, Vec<bool>) {
    let index: std::collections::HashMap<&str, usize> = doc
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.uid.as_str(), i))
        .collect();
    let mut root = vec![false; doc.nodes.len()];
    let mut blocks = vec![false; doc.edges.len()];
    for (k, e) in doc.edges.iter().enumerate() {
        let (Some(&from), Some(&to)) = (index.get(e.from.as_str()), index.get(e.to.as_str()))
        else {
            continue;
        };
        if blocking(
            doc.nodes[to].deleting_dependents,
            e.owner_reference.block_owner_deletion,
        ) {
            blocks[k] = true;
            if !doc.nodes[from].deleting_dependents {
                root[from] = true;
            }
        }
    }
    (root, blocks)
}

/// A vertex's second line: its GC state (`virtual`, `terminating: fin1, fin2`, …), empty
/// when nothing is special.
pub fn state_line(
    is_virtual: bool,
    missing: bool,
    being_deleted: bool,
    deleting_dependents: bool,
    finalizers: &[&str],
) -> String {
    let mut parts: Vec<String> = Vec::new();
    if missing {
        parts.push("missing (verified absent)".into());
    } else if is_virtual {
        parts.push("virtual (not observed)".into());
    }
    if deleting_dependents {
        parts.push("deleting dependents".into());
    } else if being_deleted {
        parts.push("terminating".into());
    }
    let mut line = parts.join(", ");
    if being_deleted && !finalizers.is_empty() {
        line.push_str(": ");
        line.push_str(&finalizers.join(", "));
    }
    line
}
