//! A picture of a (small) owned graph as inline SVG, for the self-contained HTML report: no
//! Graphviz, no script, no external resource. Owners are drawn above their dependents
//! (layers by longest path from the owners, cycles broken), the order within a layer by a few
//! barycenter sweeps to reduce crossings; arrows point from a dependent to its owner, as in the
//! GC's DOT. The look is [`super::style`]'s. Every label and tooltip is XML-escaped; labels
//! are cut to [`MAX_LABEL`] characters (the tooltip has the full text).

use super::json::GraphDocument;
use super::style::{self, VertexFlags};
use crate::render::escape::{xml, xml_line};
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

/// Longest label line drawn (characters).
pub const MAX_LABEL: usize = 44;

/// The advance of one character of the labels' font: monospace fonts advance 0.6 em (Menlo,
/// DejaVu and Liberation Mono; Consolas less), 7.2 px at the stylesheet's 12 px, and bold
/// names round up. Estimated for narrower glyphs, long labels ran into the box's border.
const CHAR_W: f64 = 7.4;
/// Space left of the text (its `x` inset) and right of its estimated end.
const PAD_LEFT: f64 = 8.0;
const PAD_RIGHT: f64 = 10.0;
const LINE_H: f64 = 15.0;
const GAP_X: f64 = 22.0;
const GAP_Y: f64 = 54.0;
const MARGIN: f64 = 12.0;
/// The label line of an object the GC deletes.
const DELETED: &str = "✕ the GC deletes it";

fn cut(s: &str) -> String {
    if s.chars().count() <= MAX_LABEL {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(MAX_LABEL - 1).collect();
        t.push('…');
        t
    }
}

/// Layers (owners first) of the vertices; each vertex's layer. Cycles are broken by taking,
/// when no vertex has all its owners placed, the unplaced one with the fewest unplaced owners.
pub fn layers(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut owners: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    let mut dependents: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for &(d, o) in edges {
        if d != o {
            owners[d].insert(o);
            dependents[o].insert(d);
        }
    }
    let mut rank = vec![0usize; n];
    let mut placed = vec![false; n];
    let mut waiting: Vec<usize> = owners.iter().map(BTreeSet::len).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&v| waiting[v] == 0).rev().collect();
    let mut done = 0;
    while done < n {
        let v = match ready.pop() {
            Some(v) => v,
            None => match (0..n)
                .filter(|&v| !placed[v])
                .min_by_key(|&v| (waiting[v], v))
            {
                Some(v) => v,
                None => break,
            },
        };
        if placed[v] {
            continue;
        }
        placed[v] = true;
        done += 1;
        rank[v] = owners[v]
            .iter()
            .filter(|&&o| placed[o] && o != v)
            .map(|&o| rank[o] + 1)
            .max()
            .unwrap_or(0);
        for &d in &dependents[v] {
            if !placed[d] {
                waiting[d] = waiting[d].saturating_sub(1);
                if waiting[d] == 0 {
                    ready.push(d);
                }
            }
        }
    }
    rank
}

/// Renders `doc` as an `<svg>` element. `id` prefixes the element ids (arrow markers), so
/// several pictures can share one HTML page; `focus` are the UIDs to highlight.
pub fn render(doc: &GraphDocument, id: &str, focus: &[&str], deleted: &[&str]) -> String {
    let n = doc.nodes.len();
    let index: HashMap<&str, usize> = doc
        .nodes
        .iter()
        .enumerate()
        .map(|(i, v)| (v.uid.as_str(), i))
        .collect();
    let edges: Vec<(usize, usize)> = doc
        .edges
        .iter()
        .filter_map(|e| Some((*index.get(e.from.as_str())?, *index.get(e.to.as_str())?)))
        .collect();
    let rank = layers(n, &edges);
    let (root_blocker, blocks) = style::chains(doc);

    // Labels and box sizes.
    let labels: Vec<Vec<String>> = doc
        .nodes
        .iter()
        .map(|v| {
            let kind = if v.kind.is_empty() { "?" } else { &v.kind };
            let mut lines = vec![cut(&format!("{kind}/{}", v.name))];
            lines.push(if v.namespace.is_empty() {
                if v.missing {
                    String::new()
                } else {
                    "cluster-scoped".into()
                }
            } else {
                cut(&format!("ns {}", v.namespace))
            });
            let fins: Vec<&str> = v.finalizers.iter().map(String::as_str).collect();
            let state = style::state_line(
                v.is_virtual,
                v.missing,
                v.being_deleted,
                v.deleting_dependents,
                &fins,
            );
            if !state.is_empty() {
                lines.push(cut(&state));
            }
            if deleted.contains(&v.uid.as_str()) {
                lines.push(DELETED.to_owned());
            }
            lines.retain(|l| !l.is_empty());
            lines
        })
        .collect();
    let width: Vec<f64> = labels
        .iter()
        .map(|ls| {
            let chars = ls.iter().map(|l| l.chars().count()).max().unwrap_or(1);
            (chars as f64 * CHAR_W + PAD_LEFT + PAD_RIGHT).max(96.0)
        })
        .collect();
    let box_h = |v: usize| labels[v].len() as f64 * LINE_H + 10.0;

    // Order within layers: by UID, then barycenter sweeps against the neighbouring layers.
    let depth = rank.iter().copied().max().map_or(0, |m| m + 1);
    let mut layer: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for v in 0..n {
        layer[rank[v]].push(v);
    }
    let mut pos = vec![0.0f64; n];
    let set_pos = |layer: &Vec<Vec<usize>>, pos: &mut Vec<f64>| {
        for l in layer {
            for (i, &v) in l.iter().enumerate() {
                pos[v] = i as f64;
            }
        }
    };
    set_pos(&layer, &mut pos);
    let mut owners_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut deps_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(d, o) in &edges {
        if d != o {
            owners_of[d].push(o);
            deps_of[o].push(d);
        }
    }
    for _ in 0..4 {
        for (r, l) in layer.iter_mut().enumerate().skip(1) {
            let key = |v: usize| {
                let up: Vec<f64> = owners_of[v]
                    .iter()
                    .filter(|&&o| rank[o] < r)
                    .map(|&o| pos[o])
                    .collect();
                if up.is_empty() {
                    pos[v]
                } else {
                    up.iter().sum::<f64>() / up.len() as f64
                }
            };
            let mut keyed: Vec<(f64, usize)> = l.iter().map(|&v| (key(v), v)).collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            *l = keyed.into_iter().map(|(_, v)| v).collect();
            for (i, &v) in l.iter().enumerate() {
                pos[v] = i as f64;
            }
        }
        for r in (0..depth.saturating_sub(1)).rev() {
            let key = |v: usize| {
                let down: Vec<f64> = deps_of[v]
                    .iter()
                    .filter(|&&d| rank[d] > r)
                    .map(|&d| pos[d])
                    .collect();
                if down.is_empty() {
                    pos[v]
                } else {
                    down.iter().sum::<f64>() / down.len() as f64
                }
            };
            let mut keyed: Vec<(f64, usize)> = layer[r].iter().map(|&v| (key(v), v)).collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            layer[r] = keyed.into_iter().map(|(_, v)| v).collect();
            for (i, &v) in layer[r].iter().enumerate() {
                pos[v] = i as f64;
            }
        }
    }

    // Coordinates: each layer centred on the widest one.
    let layer_w: Vec<f64> = layer
        .iter()
        .map(|l| {
            l.iter().map(|&v| width[v]).sum::<f64>() + GAP_X * l.len().saturating_sub(1) as f64
        })
        .collect();
    let total_w = layer_w.iter().copied().fold(0.0, f64::max) + 2.0 * MARGIN;
    let row_h: Vec<f64> = layer
        .iter()
        .map(|l| l.iter().map(|&v| box_h(v)).fold(0.0, f64::max))
        .collect();
    let mut x = vec![0.0f64; n];
    let mut y = vec![0.0f64; n];
    let mut top = MARGIN;
    for (r, l) in layer.iter().enumerate() {
        let mut left = (total_w - layer_w[r]) / 2.0;
        for &v in l {
            x[v] = left;
            y[v] = top;
            left += width[v] + GAP_X;
        }
        top += row_h[r] + GAP_Y;
    }
    let total_h = (top - GAP_Y + MARGIN).max(2.0 * MARGIN);

    let mut s = String::with_capacity(1024 + n * 400);
    let _ = writeln!(
        s,
        "<svg class=\"graph\" viewBox=\"0 0 {:.0} {:.0}\" width=\"{:.0}\" height=\"{:.0}\" role=\"img\" aria-label=\"ownership graph: {} objects, {} references\">",
        total_w,
        total_h,
        total_w,
        total_h,
        n,
        edges.len()
    );
    // One arrow marker per colour in use.
    let mut colours: BTreeSet<&str> = BTreeSet::new();
    for (k, e) in doc.edges.iter().enumerate() {
        colours.insert(style::edge(e.classification, blocks[k]).color);
    }
    s.push_str("<defs>");
    for c in &colours {
        let _ = write!(
            s,
            "<marker id=\"{id}-{}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"{c}\"/></marker>",
            &c[1..]
        );
    }
    s.push_str("</defs>\n");

    // Edges first (under the boxes).
    for (k, e) in doc.edges.iter().enumerate() {
        let (Some(&d), Some(&o)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) else {
            continue;
        };
        let look = style::edge(e.classification, blocks[k]);
        let path = if d == o {
            let (x0, y0) = (x[d] + width[d], y[d] + box_h(d) / 2.0);
            format!(
                "M{:.1},{:.1} C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
                x0,
                y0 - 6.0,
                x0 + 34.0,
                y0 - 22.0,
                x0 + 34.0,
                y0 + 22.0,
                x0,
                y0 + 6.0
            )
        } else {
            let (x1, y1) = (x[d] + width[d] / 2.0, y[d]);
            let (x2, y2) = (x[o] + width[o] / 2.0, y[o] + box_h(o));
            if rank[o] < rank[d] {
                let my = (y1 - y2) / 2.0;
                format!(
                    "M{x1:.1},{y1:.1} C{x1:.1},{:.1} {x2:.1},{:.1} {x2:.1},{y2:.1}",
                    y1 - my,
                    y2 + my
                )
            } else {
                // A back edge of a cycle: around the right side.
                let (x1, y1) = (x[d] + width[d], y[d] + box_h(d) / 2.0);
                let (x2, y2) = (x[o] + width[o], y[o] + box_h(o) / 2.0);
                let out = x1.max(x2) + 40.0;
                format!("M{x1:.1},{y1:.1} C{out:.1},{y1:.1} {out:.1},{y2:.1} {x2:.1},{y2:.1}")
            }
        };
        let dash = look.stroke.dasharray();
        let r = &e.owner_reference;
        let mut tip = format!(
            "{} → owner {}/{} (uid {})",
            e.classification.unwrap_or("reference"),
            r.kind,
            r.name,
            r.uid
        );
        if r.controller == Some(true) {
            tip.push_str(", controller");
        }
        if r.block_owner_deletion == Some(true) {
            tip.push_str(", blockOwnerDeletion");
        }
        if blocks[k] {
            tip.push_str(": blocks the owner's foreground deletion");
        }
        let _ = writeln!(
            s,
            "<path class=\"ref {}\" d=\"{path}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} marker-end=\"url(#{id}-{})\"><title>{}</title></path>",
            e.classification.unwrap_or("unclassified"),
            look.color,
            look.width,
            if dash.is_empty() {
                String::new()
            } else {
                format!(" stroke-dasharray=\"{dash}\"")
            },
            &look.color[1..],
            xml_line(&tip)
        );
    }

    // Vertices.
    for (v, node) in doc.nodes.iter().enumerate() {
        let flags = VertexFlags {
            is_virtual: node.is_virtual,
            missing: node.missing,
            being_deleted: node.being_deleted,
            deleting_dependents: node.deleting_dependents,
            root_blocker: root_blocker[v],
            focus: focus.contains(&node.uid.as_str()),
        };
        let (fill, border, stroke, bw) = style::vertex(flags);
        // The tooltip's lines are ours; what is in them is the cluster's, on one line each.
        let line = crate::render::escape::one_line;
        let mut tip = format!(
            "{} {}/{}\nuid {}",
            line(&node.api_version),
            line(&node.kind),
            line(&node.name),
            line(&node.uid)
        );
        if !node.namespace.is_empty() {
            let _ = write!(tip, "\nnamespace {}", line(&node.namespace));
        }
        if !node.finalizers.is_empty() {
            let _ = write!(tip, "\nfinalizers {}", line(&node.finalizers.join(", ")));
        }
        if root_blocker[v] {
            tip.push_str("\nblocks a foreground deletion");
        }
        if deleted.contains(&node.uid.as_str()) {
            tip.push_str("\nthe GC deletes it");
        }
        let dash = stroke.dasharray();
        let _ = write!(
            s,
            "<g class=\"obj\"><title>{}</title><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"5\" fill=\"{fill}\" stroke=\"{border}\" stroke-width=\"{bw}\"{}/>",
            xml(&tip),
            x[v],
            y[v],
            width[v],
            box_h(v),
            if dash.is_empty() {
                String::new()
            } else {
                format!(" stroke-dasharray=\"{dash}\"")
            }
        );
        for (i, line) in labels[v].iter().enumerate() {
            let _ = write!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\"{}>{}</text>",
                x[v] + PAD_LEFT,
                y[v] + 5.0 + LINE_H * (i as f64 + 0.8),
                if i == 0 {
                    " class=\"name\""
                } else if line == DELETED {
                    " class=\"sub deleted\""
                } else {
                    " class=\"sub\""
                },
                xml_line(line)
            );
        }
        s.push_str("</g>\n");
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_are_above_dependents_and_cycles_terminate() {
        // 0 ← 1 ← 2, and 3 ↔ 4.
        let r = layers(5, &[(1, 0), (2, 1), (3, 4), (4, 3)]);
        assert_eq!(&r[..3], &[0, 1, 2]);
        assert_ne!(r[3], r[4]);
        // A self-reference alone.
        assert_eq!(layers(1, &[(0, 0)]), vec![0]);
        // A diamond: the longest path decides.
        let r = layers(4, &[(1, 0), (2, 0), (3, 1), (3, 2), (2, 1)]);
        assert_eq!(r, vec![0, 1, 2, 3]);
    }

    #[test]
    fn long_labels_are_cut() {
        let long = "x".repeat(100);
        assert_eq!(cut(&long).chars().count(), MAX_LABEL);
        assert!(cut(&long).ends_with('…'));
    }
}
