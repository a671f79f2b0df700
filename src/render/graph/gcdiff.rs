//! `graph --from-gc`: the difference between the real GC's graph (its DOT, either format) and
//! ours. Vertices are matched by UID (the legacy format's integer ids are mapped back through
//! the `uid` attribute), edges as (dependent UID, owner UID) pairs.
//!
//! What differences usually mean:
//! * a node only in the GC — an object deleted since the GC's view, or outside our snapshot's
//!   scope; a "missing" vertex only the GC draws is an owner it verified absent and dropped
//!   while dependents still point at it;
//! * a node only in ours — an object the GC has not observed (yet): a resource it does not
//!   monitor yet (a new CRD is picked up at the next discovery resync, every 30 s), or GC lag;
//! * differing flags — GC lag (beingDeleted, deletingDependents), an owner the GC has since
//!   verified (virtual → real or → missing), or a node stuck in the GC's graph.

use super::Subgraph;
use super::dot::{DotGraph, parse_group_version};
use crate::render::{REPORT_API_VERSION, Styles};
use owo_colors::OwoColorize;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

/// A vertex as both sides describe it.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewVertex {
    /// UID.
    pub uid: String,
    /// Group.
    pub group: String,
    /// Version.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// `missingFromGraph`.
    pub missing: bool,
    /// `beingDeleted`.
    pub being_deleted: bool,
    /// `deletingDependents`.
    pub deleting_dependents: bool,
    /// `virtual`.
    #[serde(rename = "virtual")]
    pub is_virtual: bool,
}

impl ViewVertex {
    fn describe(&self) -> String {
        let kind = if self.kind.is_empty() {
            "?"
        } else {
            &self.kind
        };
        let mut s = format!("{kind}/{}", self.name);
        if !self.namespace.is_empty() {
            s.push_str(" -n ");
            s.push_str(&self.namespace);
        }
        s
    }

    fn flags(&self) -> String {
        let f: Vec<&str> = [
            (self.missing, "missing"),
            (self.is_virtual, "virtual"),
            (self.being_deleted, "beingDeleted"),
            (self.deleting_dependents, "deletingDependents"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, n)| *n)
        .collect();
        f.join(",")
    }
}

/// One side: vertices by UID and the (dependent, owner) UID pairs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// Vertices by UID.
    pub vertices: BTreeMap<String, ViewVertex>,
    /// Edges.
    pub edges: BTreeSet<(String, String)>,
}

impl View {
    /// Our side.
    pub fn of_subgraph(sub: &Subgraph<'_>) -> View {
        let mut view = View::default();
        for i in sub.graph.node_indices() {
            let v = &sub.graph[i];
            let (group, version) = parse_group_version(v.api_version);
            view.vertices.insert(
                v.uid.to_owned(),
                ViewVertex {
                    uid: v.uid.to_owned(),
                    group: group.to_owned(),
                    version: version.to_owned(),
                    kind: v.kind.to_owned(),
                    namespace: v.namespace.to_owned(),
                    name: v.name.to_owned(),
                    missing: v.missing,
                    being_deleted: v.being_deleted,
                    deleting_dependents: v.deleting_dependents,
                    is_virtual: v.is_virtual,
                },
            );
        }
        for e in sub.graph.edge_indices() {
            let (f, t) = sub.graph.edge_endpoints(e).expect("edge exists");
            view.edges
                .insert((sub.graph[f].uid.to_owned(), sub.graph[t].uid.to_owned()));
        }
        view
    }

    /// The GC's side, from its DOT (either format).
    pub fn of_dot(dot: &DotGraph) -> View {
        let mut view = View::default();
        let mut uid_of: BTreeMap<&str, String> = BTreeMap::new();
        for (id, attrs) in &dot.nodes {
            let get = |k: &str| {
                attrs
                    .iter()
                    .rev()
                    .find(|(key, _)| key == k)
                    .map(|(_, v)| v.as_str())
            };
            let flag = |k: &str| get(k).is_some_and(|v| v.trim_matches('"') == "true");
            let text = |k: &str| get(k).unwrap_or("").trim_matches('"').to_owned();
            let uid = get("uid").map_or_else(|| id.clone(), |u| u.trim_matches('"').to_owned());
            uid_of.insert(id.as_str(), uid.clone());
            view.vertices.insert(
                uid.clone(),
                ViewVertex {
                    uid,
                    group: text("group"),
                    version: text("version"),
                    kind: text("kind"),
                    namespace: text("namespace"),
                    name: text("name"),
                    missing: flag("missing"),
                    being_deleted: flag("beingDeleted"),
                    deleting_dependents: flag("deletingDependents"),
                    is_virtual: flag("virtual"),
                },
            );
        }
        for (f, t) in &dot.edges {
            let map = |id: &String| {
                uid_of
                    .get(id.as_str())
                    .cloned()
                    .unwrap_or_else(|| id.clone())
            };
            view.edges.insert((map(f), map(t)));
        }
        view
    }

    /// Keeps the edges whose dependent is in `namespace` and the vertices that are in it or at
    /// the other end of such an edge.
    pub fn scope_namespace(&mut self, namespace: &str) {
        let ns_of = |uid: &str, v: &BTreeMap<String, ViewVertex>| {
            v.get(uid).map(|x| x.namespace.clone()).unwrap_or_default()
        };
        let kept: BTreeSet<(String, String)> = self
            .edges
            .iter()
            .filter(|(f, _)| ns_of(f, &self.vertices) == namespace)
            .cloned()
            .collect();
        let mut keep: BTreeSet<String> = kept
            .iter()
            .flat_map(|(f, t)| [f.clone(), t.clone()])
            .collect();
        keep.extend(
            self.vertices
                .values()
                .filter(|v| v.namespace == namespace)
                .map(|v| v.uid.clone()),
        );
        self.vertices.retain(|uid, _| keep.contains(uid));
        self.edges = kept;
    }
}

/// Where the two sides disagree on one vertex.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldDifference {
    /// Field name (`virtual`, `missing`, `beingDeleted`, `deletingDependents`, `namespace`, …).
    pub field: &'static str,
    /// The GC's value.
    pub gc: String,
    /// Ours.
    pub ours: String,
}

/// A vertex both sides have, with different attributes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VertexDifference {
    /// The GC's vertex.
    pub gc: ViewVertex,
    /// The differing fields.
    pub fields: Vec<FieldDifference>,
    /// What it probably means.
    pub explanation: String,
}

/// An edge in the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EdgeOut {
    /// Dependent UID.
    pub from: String,
    /// Owner UID.
    pub to: String,
}

/// Counts of one side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SideSummary {
    /// Where it came from (URL, file, or our input).
    pub source: String,
    /// DOT format (`v1.26+` or `legacy`), for the GC's side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Vertices.
    pub nodes: usize,
    /// Distinct edges.
    pub edges: usize,
}

/// The comparison (`graph --from-gc -o json`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphDiff {
    /// `kubectl-gc.io/v1`.
    pub api_version: &'static str,
    /// `GraphDiff`.
    pub kind: &'static str,
    /// True when nodes, edges and flags all agree.
    pub identical: bool,
    /// The GC's side.
    pub gc: SideSummary,
    /// Our side.
    pub ours: SideSummary,
    /// Vertices only the GC has.
    pub only_in_gc: Vec<ViewVertex>,
    /// Vertices only we have.
    pub only_in_ours: Vec<ViewVertex>,
    /// Vertices with different attributes.
    pub different: Vec<VertexDifference>,
    /// Edges only the GC has.
    pub edges_only_in_gc: Vec<EdgeOut>,
    /// Edges only we have.
    pub edges_only_in_ours: Vec<EdgeOut>,
}

impl GraphDiff {
    /// The number of differences.
    pub fn count(&self) -> usize {
        self.only_in_gc.len()
            + self.only_in_ours.len()
            + self.different.len()
            + self.edges_only_in_gc.len()
            + self.edges_only_in_ours.len()
    }
}

fn explain(gc: &ViewVertex, ours: &ViewVertex) -> String {
    if gc.missing && ours.is_virtual {
        "the GC verified this owner absent and dropped its node; dependents still reference it \
         (the GC deletes them unless another owner is solid or a finalizer holds them)"
            .into()
    } else if gc.is_virtual && !ours.is_virtual {
        "the GC has not observed this object yet (its resource is not monitored yet, or the GC lags)"
            .into()
    } else if !gc.is_virtual && ours.is_virtual {
        "the GC has a real object with this UID that our snapshot does not include (deleted since, not listed, or out of scope)".into()
    } else if ours.being_deleted && !gc.being_deleted
        || ours.deleting_dependents && !gc.deleting_dependents
    {
        "the GC has not processed the deletion yet (lag)".into()
    } else if gc.being_deleted && !ours.being_deleted {
        "the GC saw a deletion our snapshot does not show (the object was recreated, or the snapshot is older)".into()
    } else {
        "the identities differ (the GC keeps the coordinates it first saw)".into()
    }
}

/// Compares the GC's view with ours.
pub fn diff(gc: &View, ours: &View, gc_side: SideSummary, our_side: SideSummary) -> GraphDiff {
    let mut only_in_gc = Vec::new();
    let mut only_in_ours = Vec::new();
    let mut different = Vec::new();
    for (uid, g) in &gc.vertices {
        let Some(o) = ours.vertices.get(uid) else {
            only_in_gc.push(g.clone());
            continue;
        };
        let b = |x: bool| x.to_string();
        let mut fields = Vec::new();
        for (field, gv, ov) in [
            ("missing", b(g.missing), b(o.missing)),
            ("virtual", b(g.is_virtual), b(o.is_virtual)),
            ("beingDeleted", b(g.being_deleted), b(o.being_deleted)),
            (
                "deletingDependents",
                b(g.deleting_dependents),
                b(o.deleting_dependents),
            ),
            ("group", g.group.clone(), o.group.clone()),
            ("version", g.version.clone(), o.version.clone()),
            ("kind", g.kind.clone(), o.kind.clone()),
            ("namespace", g.namespace.clone(), o.namespace.clone()),
            ("name", g.name.clone(), o.name.clone()),
        ] {
            if gv != ov {
                fields.push(FieldDifference {
                    field,
                    gc: gv,
                    ours: ov,
                });
            }
        }
        if !fields.is_empty() {
            different.push(VertexDifference {
                gc: g.clone(),
                fields,
                explanation: explain(g, o),
            });
        }
    }
    for (uid, o) in &ours.vertices {
        if !gc.vertices.contains_key(uid) {
            only_in_ours.push(o.clone());
        }
    }
    let edge = |(f, t): &(String, String)| EdgeOut {
        from: f.clone(),
        to: t.clone(),
    };
    let edges_only_in_gc: Vec<EdgeOut> = gc.edges.difference(&ours.edges).map(edge).collect();
    let edges_only_in_ours: Vec<EdgeOut> = ours.edges.difference(&gc.edges).map(edge).collect();
    let mut d = GraphDiff {
        api_version: REPORT_API_VERSION,
        kind: "GraphDiff",
        identical: false,
        gc: gc_side,
        ours: our_side,
        only_in_gc,
        only_in_ours,
        different,
        edges_only_in_gc,
        edges_only_in_ours,
    };
    d.identical = d.count() == 0;
    d
}

/// The DOT format a parsed graph was printed in.
pub fn dot_format(dot: &DotGraph) -> &'static str {
    let legacy = dot.nodes.iter().any(|(id, attrs)| {
        attrs
            .iter()
            .any(|(k, v)| k == "uid" && v.trim_matches('"') != id)
    });
    if legacy { "legacy" } else { "v1.26+" }
}

/// Writes the comparison for people.
pub fn write_text(
    w: &mut dyn Write,
    d: &GraphDiff,
    gc: &View,
    ours: &View,
    styles: Styles,
) -> io::Result<()> {
    let bold = |s: &str| {
        if styles.color {
            s.bold().to_string()
        } else {
            s.to_owned()
        }
    };
    let side = |s: &SideSummary| {
        let fmt = s
            .format
            .as_deref()
            .map(|f| format!(", {f} format"))
            .unwrap_or_default();
        format!("{} nodes, {} edges ({}{fmt})", s.nodes, s.edges, s.source)
    };
    // Every line that carries names from the cluster or the DOT file is sanitised.
    use crate::render::write_line as line;
    line(w, &format!("GC:   {}", side(&d.gc)))?;
    line(w, &format!("ours: {}", side(&d.ours)))?;
    if d.identical {
        writeln!(w, "no differences")?;
        return Ok(());
    }
    let describe_uid = |uid: &str| {
        ours.vertices
            .get(uid)
            .or_else(|| gc.vertices.get(uid))
            .map(|v| v.describe())
            .unwrap_or_else(|| uid.to_owned())
    };
    let vertex_line = |v: &ViewVertex| {
        let flags = v.flags();
        let flags = if flags.is_empty() {
            String::new()
        } else {
            format!("  [{flags}]")
        };
        format!("  {}  uid={}{flags}", v.describe(), v.uid)
    };
    if !d.only_in_gc.is_empty() {
        writeln!(
            w,
            "\n{}",
            bold(&format!("ONLY IN THE GC ({})", d.only_in_gc.len()))
        )?;
        for v in &d.only_in_gc {
            line(w, &vertex_line(v))?;
        }
    }
    if !d.only_in_ours.is_empty() {
        writeln!(
            w,
            "\n{}",
            bold(&format!("ONLY IN OURS ({})", d.only_in_ours.len()))
        )?;
        for v in &d.only_in_ours {
            line(w, &vertex_line(v))?;
        }
    }
    if !d.different.is_empty() {
        writeln!(
            w,
            "\n{}",
            bold(&format!("DIFFERENT ({})", d.different.len()))
        )?;
        for x in &d.different {
            line(w, &vertex_line(&x.gc))?;
            for f in &x.fields {
                line(
                    w,
                    &format!("      {}: GC {:?}, ours {:?}", f.field, f.gc, f.ours),
                )?;
            }
            line(w, &format!("      → {}", x.explanation))?;
        }
    }
    for (title, edges) in [
        ("EDGES ONLY IN THE GC", &d.edges_only_in_gc),
        ("EDGES ONLY IN OURS", &d.edges_only_in_ours),
    ] {
        if edges.is_empty() {
            continue;
        }
        writeln!(w, "\n{}", bold(&format!("{title} ({})", edges.len())))?;
        for e in edges {
            line(
                w,
                &format!("  {} -> {}", describe_uid(&e.from), describe_uid(&e.to)),
            )?;
        }
    }
    writeln!(w, "\n{} difference(s)", d.count())
}
