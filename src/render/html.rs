//! `-o html`: one self-contained page — the findings of every cluster, their details and
//! fixes, and a picture of the ownership of every affected component (inline SVG drawn by
//! [`super::graph::svg`]). It works offline: no script, no font, no image and no stylesheet is
//! loaded from anywhere (inline CSS only; no `http` URL appears in the page). The markup is
//! also well-formed XML (void elements self-closed), so XML tools can read it.
//!
//! Every string from the cluster is escaped ([`super::escape::xml`]); element ids are made
//! from indices, never from names.

use super::audit::FindingJson;
use super::ci::{CiReport, ClusterOutcome, SEVERITIES, owner_text, subject_text};
use super::escape::{xml, xml_line};
use super::graph::json::{self as gjson, GraphDocument};
use super::graph::{Direction, Selection, Subgraph, svg};
use crate::diagnose::{Code, Finding};
use crate::gc::{EndState, GarbageCollector, Plan};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{self, Write};

/// Components drawn per cluster at most (the rest are listed without a picture).
pub const MAX_PICTURES: usize = 40;
/// Objects drawn per picture at most; a larger component is drawn around the finding's
/// object only (fewer hops), with a note.
pub const MAX_OBJECTS: usize = 80;

/// An ownership picture's data: a component (or the part of it around a finding's object).
#[derive(Debug, Clone)]
pub struct Component {
    /// The vertices and edges drawn.
    pub graph: GraphDocument,
    /// UIDs of the findings' objects in it (highlighted).
    pub focus: Vec<String>,
    /// UIDs of the drawn objects the GC deletes, whatever the order of its work (marked).
    pub deleted: Vec<String>,
    /// Objects in the whole component.
    pub objects: usize,
    /// `Some(n)`: only `n` references around the focus are drawn (the component is larger
    /// than [`MAX_OBJECTS`]).
    pub hops: Option<u32>,
}

/// The components of the findings' objects (in findings order), at most [`MAX_PICTURES`];
/// `plan`: the simulation whose deletions the pictures mark.
pub fn components(
    gc: &GarbageCollector<'_>,
    findings: &[&Finding],
    plan: Option<&Plan>,
) -> Vec<Component> {
    let store = &gc.snap.store;
    // Only certain deletions: an order-dependent end state is the finding's to explain.
    let deleted: HashSet<&str> = plan
        .into_iter()
        .flat_map(|p| &p.outcomes)
        .filter(|o| {
            o.state == EndState::Deleted
                && o.alternatives.iter().all(|a| a.state == EndState::Deleted)
        })
        .map(|o| store.str(store.object(o.target).uid))
        .collect();
    let mut out: Vec<Component> = Vec::new();
    let mut covered: HashMap<String, usize> = HashMap::new();
    for f in findings {
        let Some(obj) = f.object else { continue };
        let uid = store.str(store.object(obj).uid).to_owned();
        if let Some(&i) = covered.get(&uid) {
            if !out[i].focus.contains(&uid) {
                out[i].focus.push(uid);
            }
            continue;
        }
        if out.len() >= MAX_PICTURES {
            continue;
        }
        let node = gc.graph.node_of_object(obj);
        if !gc.graph.node(node).in_graph() {
            continue;
        }
        let select = |depth: Option<u32>| {
            Subgraph::select(
                gc,
                &Selection {
                    roots: vec![node],
                    direction: Direction::Both,
                    depth,
                    namespace: None,
                },
            )
        };
        let whole = select(None);
        if whole.is_empty() {
            continue; // no owner, no dependent: nothing to draw
        }
        let objects = whole.vertex_count();
        let (sub, hops) = if objects <= MAX_OBJECTS {
            (whole, None)
        } else {
            let mut pick = None;
            for hops in [3, 2, 1] {
                let s = select(Some(hops));
                if s.vertex_count() <= MAX_OBJECTS {
                    pick = Some((s, Some(hops)));
                    break;
                }
            }
            match pick {
                Some(p) => p,
                None => continue, // even its direct relations are too many to draw
            }
        };
        let graph = gjson::document(&sub);
        let i = out.len();
        if hops.is_none() {
            for n in &graph.nodes {
                covered.insert(n.uid.clone(), i);
            }
        } else {
            covered.insert(uid.clone(), i);
        }
        let deleted = graph
            .nodes
            .iter()
            .filter(|n| deleted.contains(n.uid.as_str()))
            .map(|n| n.uid.clone())
            .collect();
        out.push(Component {
            graph,
            focus: vec![uid],
            deleted,
            objects,
            hops,
        });
    }
    out
}

pub(super) const CSS: &str = "
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #ffffff; }
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; color: var(--fg); background: var(--bg); margin: 24px; line-height: 1.45; }
h1 { font-size: 1.5em; margin: 0 0 4px 0; }
h2 { font-size: 1.25em; border-bottom: 1px solid var(--line); padding-bottom: 4px; margin-top: 32px; }
h3 { font-size: 1.05em; margin-top: 24px; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: #f6f8fa; padding: 8px 12px; overflow-x: auto; border-radius: 6px; white-space: pre-wrap; word-break: break-all; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
.verdict { font-weight: 600; }
.fail { color: #b42318; }
.pass { color: #1a7f37; }
.sev { font-weight: 600; white-space: nowrap; }
.sev-critical { color: #ffffff; background: #b42318; }
.sev-error { color: #b42318; }
.sev-warning { color: #9a6700; }
.sev-info { color: #0969da; }
.muted { color: var(--muted); }
details { margin: 6px 0; }
summary { cursor: pointer; }
figure { margin: 16px 0; border: 1px solid var(--line); border-radius: 6px; padding: 8px; overflow-x: auto; }
figcaption { color: var(--muted); margin-bottom: 6px; }
svg.graph { max-width: 100%; height: auto; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
svg.graph text.name { font-weight: 600; fill: #1f2328; }
svg.graph text.sub { fill: #59636e; }
svg.graph text.deleted { fill: #b42318; font-weight: 600; }
.legend td { font-size: 0.9em; }
.swatch { display: inline-block; width: 36px; height: 0; vertical-align: middle; border-top-width: 2px; }
";

fn sev_cell(s: crate::diagnose::Severity) -> String {
    format!("<td class=\"sev sev-{0}\">{0}</td>", s.as_str())
}

fn finding_row(out: &mut String, f: &FindingJson, picture: Option<&str>, anchor: &str) {
    let (ns, obj) = match (&f.object, &f.resource) {
        (Some(o), _) => (
            if o.namespace.is_empty() {
                "-".to_owned()
            } else {
                o.namespace.clone()
            },
            format!("{}/{}", o.kind, o.name),
        ),
        (None, Some(r)) => ("-".into(), format!("resource {r}")),
        (None, None) => ("-".into(), "-".into()),
    };
    let _ = writeln!(
        out,
        "<tr>{}<td><a href=\"#{anchor}\">{}</a> <span class=\"muted\">{}</span></td><td class=\"mono\">{}</td><td class=\"mono\">{}</td><td class=\"mono\">{}</td><td>{}</td><td>{}</td></tr>",
        sev_cell(f.severity),
        f.code,
        xml(f.name),
        xml_line(&ns),
        xml_line(&obj),
        xml_line(&owner_text(f).unwrap_or_else(|| "-".into())),
        xml_line(&f.consequence),
        picture
            .map(|p| format!("<a href=\"#{p}\">picture</a>"))
            .unwrap_or_default()
    );
}

/// Writes the page.
pub fn write(w: &mut dyn Write, r: &CiReport) -> io::Result<()> {
    let mut out = String::with_capacity(64 * 1024);
    let total: usize = r
        .clusters
        .iter()
        .filter_map(|c| c.report())
        .map(|rep| rep.findings.len())
        .sum();
    let failing: usize = r
        .clusters
        .iter()
        .filter_map(|c| c.report())
        .flat_map(|rep| rep.findings.iter())
        .filter(|f| r.fails(f.severity))
        .count();
    let failed = r.clusters.iter().filter(|c| c.error().is_some()).count();
    let title = format!("kubectl-gc {} report", r.command);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n");
    let _ = writeln!(out, "<title>{}</title>", xml(&title));
    let _ = writeln!(out, "<style>{CSS}</style>\n</head>\n<body>");
    let _ = writeln!(out, "<h1>{}</h1>", xml(&title));
    let ok = failing == 0 && failed == 0;
    let _ = writeln!(
        out,
        "<p class=\"verdict {}\">{} finding{} in {} cluster{}; {} at or above --fail-on {}{}.</p>",
        if ok { "pass" } else { "fail" },
        total,
        if total == 1 { "" } else { "s" },
        r.clusters.len(),
        if r.clusters.len() == 1 { "" } else { "s" },
        failing,
        r.fail_on_text(),
        if failed > 0 {
            format!("; {failed} cluster(s) could not be audited")
        } else {
            String::new()
        }
    );

    // Clusters overview.
    out.push_str("<table class=\"clusters\">\n<thead><tr><th>cluster</th><th>findings</th>");
    for s in SEVERITIES {
        let _ = write!(out, "<th>{}</th>", s.as_str());
    }
    out.push_str("<th>suppressed</th><th>objects</th><th>GC</th><th>server</th><th>captured</th><th>coverage</th></tr></thead>\n<tbody>\n");
    for (ci, c) in r.clusters.iter().enumerate() {
        let _ = write!(
            out,
            "<tr><td><a href=\"#cluster-{ci}\" class=\"mono\">{}</a></td>",
            xml_line(&c.name)
        );
        match &c.outcome {
            ClusterOutcome::Failed(e) => {
                let _ = writeln!(
                    out,
                    "<td colspan=\"11\" class=\"fail\">not audited: {}</td></tr>",
                    xml_line(&e.message)
                );
            }
            ClusterOutcome::Report { report, .. } => {
                let s = &report.summary;
                let _ = write!(out, "<td>{}</td>", s.findings);
                for sev in SEVERITIES {
                    let _ = write!(
                        out,
                        "<td>{}</td>",
                        s.by_severity.get(sev.as_str()).copied().unwrap_or(0)
                    );
                }
                let cov = &s.coverage;
                let coverage = if cov.complete {
                    "complete".to_owned()
                } else if cov.gaps.is_empty() && cov.discovery_failures.is_empty() {
                    "file input".to_owned()
                } else {
                    format!(
                        "incomplete: {} resource(s), {} group-version(s)",
                        cov.gaps.len(),
                        cov.discovery_failures.len()
                    )
                };
                let _ = writeln!(
                    out,
                    "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    s.suppressed,
                    s.objects,
                    xml_line(&report.gc_version),
                    xml_line(report.source.server_version.as_deref().unwrap_or("-")),
                    xml_line(&report.source.captured_at),
                    xml(&coverage)
                );
            }
        }
    }
    out.push_str("</tbody>\n</table>\n");

    for (ci, c) in r.clusters.iter().enumerate() {
        let _ = writeln!(
            out,
            "<section id=\"cluster-{ci}\">\n<h2>Cluster <code>{}</code></h2>",
            xml_line(&c.name)
        );
        let (report, components) = match &c.outcome {
            ClusterOutcome::Failed(e) => {
                let _ = writeln!(
                    out,
                    "<p class=\"fail\">Not audited: {}</p>",
                    xml_line(&e.message)
                );
                if let Some(h) = &e.hint {
                    let _ = writeln!(out, "<p>Hint: {}</p>", xml_line(h));
                }
                out.push_str("</section>\n");
                continue;
            }
            ClusterOutcome::Report { report, components } => (report, components),
        };
        let _ = writeln!(
            out,
            "<p>{}</p>",
            xml_line(&super::audit::summary_line(report))
        );
        let cov = &report.summary.coverage;
        if !cov.gaps.is_empty() || !cov.discovery_failures.is_empty() {
            out.push_str("<details><summary>Not fully read (owners there are unknown, never dangling)</summary>\n<ul>\n");
            for g in &cov.gaps {
                let _ = writeln!(
                    out,
                    "<li><code>{}{}{}</code> {}{}</li>",
                    xml_line(&g.resource),
                    if g.group.is_empty() { "" } else { "." },
                    xml_line(&g.group),
                    g.outcome,
                    g.message
                        .as_deref()
                        .map(|m| format!(": {}", xml_line(m)))
                        .unwrap_or_default()
                );
            }
            for d in &cov.discovery_failures {
                let _ = writeln!(
                    out,
                    "<li>discovery <code>{}</code>: {}</li>",
                    xml_line(&d.group_version),
                    xml_line(&d.message)
                );
            }
            out.push_str("</ul>\n</details>\n");
        }
        if report.findings.is_empty() {
            out.push_str("<p class=\"pass\">No findings.</p>\n</section>\n");
            continue;
        }
        // Which picture shows each finding's object.
        let picture_of = |f: &FindingJson| {
            let uid = f.object.as_ref()?.uid.as_str();
            components
                .iter()
                .position(|k| k.focus.iter().any(|u| u == uid))
                .map(|k| format!("c{ci}-p{k}"))
        };
        out.push_str("<table class=\"findings\">\n<thead><tr><th>severity</th><th>code</th><th>namespace</th><th>object</th><th>owner</th><th>what the GC does</th><th></th></tr></thead>\n<tbody>\n");
        for (fi, f) in report.findings.iter().enumerate() {
            finding_row(
                &mut out,
                f,
                picture_of(f).as_deref(),
                &format!("c{ci}-f{fi}"),
            );
        }
        out.push_str("</tbody>\n</table>\n<h3>Details and fixes</h3>\n");
        for (fi, f) in report.findings.iter().enumerate() {
            let _ = writeln!(
                out,
                "<details id=\"c{ci}-f{fi}\"><summary><span class=\"sev sev-{}\">{}</span> {} <code>{}</code></summary>",
                f.severity.as_str(),
                f.severity.as_str(),
                f.code,
                xml_line(&subject_text(f))
            );
            let _ = writeln!(out, "<p>{}</p>", xml_line(&f.message));
            let _ = writeln!(
                out,
                "<p><strong>The GC:</strong> {}</p>",
                xml_line(&f.consequence)
            );
            if let Some(r) = &f.owner_reference {
                let s = serde_json::to_string(r).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "<p>ownerReference <code>{}</code>{}</p>",
                    xml_line(&s),
                    f.classification
                        .map(|c| format!(" ({c})"))
                        .unwrap_or_default()
                );
            }
            if !f.related.is_empty() {
                out.push_str("<p>Related:</p>\n<ul>\n");
                for o in &f.related {
                    let _ = writeln!(
                        out,
                        "<li><code>{}/{}</code>{} <span class=\"muted\">uid {}</span></li>",
                        xml_line(&o.kind),
                        xml_line(&o.name),
                        if o.namespace.is_empty() {
                            String::new()
                        } else {
                            format!(" in <code>{}</code>", xml_line(&o.namespace))
                        },
                        xml_line(&o.uid)
                    );
                }
                out.push_str("</ul>\n");
            }
            for e in &f.evidence {
                let _ = writeln!(out, "<p>Evidence: {}</p>", xml_line(e));
            }
            if !f.fixes.is_empty() {
                out.push_str("<ol>\n");
                for m in &f.fixes {
                    let _ = write!(out, "<li>{}", xml_line(&m.note));
                    if !m.command.is_empty() {
                        let _ = write!(out, "<pre>{}</pre>", xml_line(&m.command));
                    }
                    out.push_str("</li>\n");
                }
                out.push_str("</ol>\n");
            }
            if let Some(code) = Code::parse(f.code) {
                let _ = writeln!(out, "<p class=\"muted\">{}</p>", xml(code.info().remedy));
            }
            if let Some(p) = picture_of(f) {
                let _ = writeln!(out, "<p><a href=\"#{p}\">ownership picture</a></p>");
            }
            out.push_str("</details>\n");
        }
        if !components.is_empty() {
            out.push_str("<h3>Ownership of the affected objects</h3>\n");
            for (k, comp) in components.iter().enumerate() {
                let focus: Vec<&str> = comp.focus.iter().map(String::as_str).collect();
                let names: Vec<String> = comp
                    .graph
                    .nodes
                    .iter()
                    .filter(|n| comp.focus.contains(&n.uid))
                    .map(|n| format!("{}/{}", n.kind, n.name))
                    .collect();
                let _ = writeln!(
                    out,
                    "<figure id=\"c{ci}-p{k}\">\n<figcaption>{} of {}: {} object{}{}</figcaption>",
                    if comp.hops.is_some() {
                        "Part of the component"
                    } else {
                        "Component"
                    },
                    xml_line(&names.join(", ")),
                    comp.objects,
                    if comp.objects == 1 { "" } else { "s" },
                    match comp.hops {
                        Some(h) => format!(
                            "; drawn: {} objects within {h} reference(s) of the finding's object (select it with kubectl gc graph --uid {} for all)",
                            comp.graph.nodes.len(),
                            xml_line(comp.focus.first().map(String::as_str).unwrap_or_default())
                        ),
                        None => String::new(),
                    }
                );
                let deleted: Vec<&str> = comp.deleted.iter().map(String::as_str).collect();
                out.push_str(&svg::render(
                    &comp.graph,
                    &format!("c{ci}-p{k}"),
                    &focus,
                    &deleted,
                ));
                out.push_str("</figure>\n");
            }
            let pictured: usize = components.iter().map(|c| c.focus.len()).sum();
            let objects: std::collections::BTreeSet<&str> = report
                .findings
                .iter()
                .filter_map(|f| f.object.as_ref().map(|o| o.uid.as_str()))
                .collect();
            if pictured < objects.len() {
                let _ = writeln!(
                    out,
                    "<p class=\"muted\">{} affected object(s) have no picture: no owner and no dependent, a component too large to draw, or more than {MAX_PICTURES} components.</p>",
                    objects.len() - pictured
                );
            }
        }
        out.push_str("</section>\n");
    }

    // Legends.
    out.push_str(
        "<h2>Legend</h2>\n<details><summary>Pictures</summary>\n<table class=\"legend\">\n",
    );
    for (class, what) in [
        ("solid", "solid reference: the owner exists"),
        ("waiting", "waiting: the owner is in foreground deletion"),
        ("dangling", "dangling: the GC treats the owner as absent"),
        (
            "unresolvable",
            "unresolvable: the owner's kind is not served",
        ),
        (
            "invalid-scope",
            "invalid scope: cluster-scoped dependent, namespaced owner",
        ),
        ("unknown", "unknown: the input cannot tell"),
    ] {
        let look = super::graph::style::edge(Some(class), false);
        let _ = writeln!(
            out,
            "<tr><td><span class=\"swatch\" style=\"border-top-style: {}; border-top-color: {};\"></span></td><td>{}</td></tr>",
            look.stroke.dot(),
            look.color,
            what
        );
    }
    let _ = writeln!(
        out,
        "<tr><td><span class=\"swatch\" style=\"border-top-style: solid; border-top-width: 4px; border-top-color: {};\"></span></td><td>blocks a foreground deletion (owner deleting dependents, blockOwnerDeletion=true)</td></tr>",
        super::graph::style::CHAIN
    );
    out.push_str("<tr><td>dashed box</td><td>virtual owner (not observed) or missing owner (red)</td></tr>\n<tr><td>grey box</td><td>terminating (with its finalizers)</td></tr>\n<tr><td>orange box</td><td>deleting its dependents (foreground)</td></tr>\n<tr><td>red border</td><td>a root blocker of a foreground deletion</td></tr>\n<tr><td>blue border</td><td>the finding's object</td></tr>\n<tr><td>✕ the GC deletes it</td><td>the GC deletes the object, whatever the order of its work</td></tr>\n</table>\n</details>\n");
    let mut codes: Vec<Code> = r
        .clusters
        .iter()
        .filter_map(|c| c.report())
        .flat_map(|rep| rep.findings.iter())
        .filter_map(|f| Code::parse(f.code))
        .collect();
    codes.sort();
    codes.dedup();
    if !codes.is_empty() {
        out.push_str("<details><summary>Finding codes</summary>\n<table class=\"legend\">\n<thead><tr><th>code</th><th>meaning</th><th>fix</th></tr></thead>\n<tbody>\n");
        for c in codes {
            let h = c.info();
            let _ = writeln!(
                out,
                "<tr><td>{} {}</td><td>{} {}</td><td>{}</td></tr>",
                c.id(),
                xml(c.name()),
                xml(h.title),
                xml(h.sentence),
                xml(h.remedy)
            );
        }
        out.push_str("</tbody>\n</table>\n</details>\n");
    }
    let _ = writeln!(
        out,
        "<p class=\"muted\">kubectl-gc {}</p>\n</body>\n</html>",
        env!("CARGO_PKG_VERSION")
    );
    w.write_all(out.as_bytes())
}
