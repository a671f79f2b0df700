//! `kubectl gc audit` output: table, wide, JSON and YAML (schema in README "JSON: audit").

use super::{
    ObjectRef, REPORT_API_VERSION, Styles, owner_ref_json, pad_columns, table, write_table,
};
use crate::diagnose::{Audit, Code, Finding, Severity};
use crate::gc::GarbageCollector;
use crate::snapshot::{ListOutcome, Provenance, SourceKind};
use comfy_table::{Cell, Color};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// The JSON/YAML audit report.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct AuditReport {
    /// `kubectl-gc.io/v1`.
    pub api_version: &'static str,
    /// `AuditReport`.
    pub kind: &'static str,
    /// The emulated GC release.
    pub gc_version: String,
    /// Where the data came from.
    pub source: Provenance,
    /// Findings in scope, highest severity first.
    pub findings: Vec<FindingJson>,
    /// Counts and coverage.
    pub summary: Summary,
}

/// One finding.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct FindingJson {
    /// `GC0NN`.
    pub code: &'static str,
    /// kebab-case name of the code.
    pub name: &'static str,
    /// info, warning, error, critical.
    pub severity: Severity,
    /// The object (absent for resource-level findings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectRef>,
    /// The resource (`plural.group`) of resource-level findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The ownerReference involved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_reference: Option<serde_json::Value>,
    /// Its classification (solid, waiting, dangling, unresolvable, invalid-scope, unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classification: Option<&'static str>,
    /// What the GC does about it.
    pub consequence: String,
    /// What is wrong.
    pub message: String,
    /// Other objects involved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<ObjectRef>,
    /// Commands that fix or unblock it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remedies: Vec<String>,
    /// Evidence from the cluster: `OwnerRefInvalidNamespace` events the GC recorded for the
    /// object (live audits with `--events`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
}

/// Counts and coverage.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Objects in the snapshot.
    pub objects: usize,
    /// ownerReferences evaluated.
    pub owner_references: usize,
    /// Findings in scope.
    pub findings: usize,
    /// Findings per severity.
    pub by_severity: BTreeMap<&'static str, usize>,
    /// Findings per code.
    pub by_code: BTreeMap<&'static str, usize>,
    /// References per classification.
    pub classifications: BTreeMap<&'static str, usize>,
    /// Findings suppressed by `kubectl-gc.io/ignore` annotations or a baseline file.
    pub suppressed: usize,
    /// What could not be read.
    pub coverage: Coverage,
}

/// What the snapshot could not see: owners there are *unknown*, never dangling.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    /// True when every monitored resource was listed completely.
    pub complete: bool,
    /// Live cluster or files.
    pub source: SourceKind,
    /// Resources not fully read.
    pub gaps: Vec<Gap>,
    /// Discovery group-versions that could not be read.
    pub discovery_failures: Vec<crate::snapshot::DiscoveryFailure>,
    /// Input documents that were skipped.
    pub skipped_inputs: Vec<crate::snapshot::Skipped>,
}

/// One resource not fully read.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Gap {
    /// API group.
    pub group: String,
    /// Plural resource.
    pub resource: String,
    /// Kind.
    pub kind: String,
    /// forbidden, failed, partial.
    pub outcome: &'static str,
    /// Details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Coverage {
    /// Coverage of the analysed snapshot.
    pub fn of(a: &GarbageCollector<'_>) -> Coverage {
        let snap = a.snap;
        let mut gaps = Vec::new();
        for g in a.rest_mapper.grs() {
            let (outcome, message) = match &g.coverage {
                ListOutcome::Forbidden { message } => ("forbidden", Some(message.clone())),
                ListOutcome::Failed { message } => ("failed", Some(message.clone())),
                ListOutcome::Partial { namespaces }
                    if snap.provenance.source == SourceKind::Live =>
                {
                    (
                        "partial",
                        Some(format!("listed only in: {}", namespaces.join(", "))),
                    )
                }
                _ => continue,
            };
            gaps.push(Gap {
                group: g.group.clone(),
                resource: g.plural.clone(),
                kind: g.kind.clone(),
                outcome,
                message,
            });
        }
        Coverage {
            complete: snap.provenance.source == SourceKind::Live
                && gaps.is_empty()
                && snap.discovery_failures.is_empty(),
            source: snap.provenance.source,
            gaps,
            discovery_failures: snap.discovery_failures.clone(),
            skipped_inputs: snap.skipped.clone(),
        }
    }
}

/// Builds the audit report for the findings in scope.
pub fn report(a: &GarbageCollector<'_>, audit: &Audit, in_scope: &[&Finding]) -> AuditReport {
    report_of_kind(a, "AuditReport", &audit.classifications, in_scope, 0)
}

/// Builds a report of `kind` (`AuditReport`, `CheckReport`) over findings in scope;
/// `suppressed` counts findings hidden by annotations or a baseline.
pub fn report_of_kind(
    a: &GarbageCollector<'_>,
    kind: &'static str,
    classifications: &BTreeMap<&'static str, usize>,
    in_scope: &[&Finding],
    suppressed: usize,
) -> AuditReport {
    let snap = a.snap;
    let findings: Vec<FindingJson> = in_scope
        .iter()
        .map(|f| FindingJson {
            code: f.code.id(),
            name: f.code.name(),
            severity: f.severity,
            object: f.object.map(|o| ObjectRef::of(snap, o)),
            resource: f.resource.clone(),
            owner_reference: f.owner_ref.as_ref().map(|r| owner_ref_json(snap, r)),
            classification: f.classification,
            consequence: f.consequence.clone(),
            message: f.message.clone(),
            related: f.related.iter().map(|&r| ObjectRef::of(snap, r)).collect(),
            remedies: f.remedies.clone(),
            evidence: Vec::new(),
        })
        .collect();
    let mut by_severity = BTreeMap::new();
    let mut by_code = BTreeMap::new();
    for f in in_scope {
        *by_severity.entry(f.severity.as_str()).or_insert(0) += 1;
        *by_code.entry(f.code.id()).or_insert(0) += 1;
    }
    AuditReport {
        api_version: REPORT_API_VERSION,
        kind,
        gc_version: a.rules.version.to_string(),
        source: snap.provenance.clone(),
        summary: Summary {
            objects: snap.store.len(),
            owner_references: snap.store.owner_refs.len(),
            findings: findings.len(),
            by_severity,
            by_code,
            classifications: classifications.clone(),
            suppressed,
            coverage: Coverage::of(a),
        },
        findings,
    }
}

fn severity_cell(s: Severity, styles: Styles) -> Cell {
    let c = Cell::new(s.as_str().to_uppercase());
    if !styles.color {
        return c;
    }
    match s {
        Severity::Critical => c.fg(Color::Red).add_attribute(comfy_table::Attribute::Bold),
        Severity::Error => c.fg(Color::Red),
        Severity::Warning => c.fg(Color::Yellow),
        Severity::Info => c.fg(Color::Blue),
    }
}

/// Writes the table (or wide table) and the summary line.
pub fn write_table_report(
    w: &mut dyn Write,
    a: &GarbageCollector<'_>,
    report: &AuditReport,
    in_scope: &[&Finding],
    wide: bool,
    styles: Styles,
) -> std::io::Result<()> {
    let snap = a.snap;
    if in_scope.is_empty() {
        writeln!(w, "No findings.")?;
    } else {
        let mut t = table(styles);
        let mut header = vec![
            "SEVERITY",
            "CODE",
            "NAMESPACE",
            "OBJECT",
            "OWNER",
            "CONSEQUENCE",
        ];
        if wide {
            header.extend(["CLASS", "UID", "MESSAGE"]);
        }
        t.set_header(header);
        for f in in_scope {
            let Some(obj) = f.object else {
                let mut row = vec![
                    severity_cell(f.severity, styles),
                    Cell::new(f.code.id()),
                    Cell::new("-"),
                    Cell::new(f.resource.as_deref().unwrap_or("-")),
                    Cell::new("-"),
                    Cell::new(&f.consequence),
                ];
                if wide {
                    row.extend([Cell::new("-"), Cell::new("-"), Cell::new(&f.message)]);
                }
                t.add_row(row);
                continue;
            };
            let o = snap.store.object(obj);
            let kind = &snap.resource_of(o).kind;
            let owner = f
                .owner_ref
                .map(|r| format!("{}/{}", snap.store.str(r.kind), snap.store.str(r.name)))
                .unwrap_or_else(|| "-".into());
            let ns = snap.store.str(o.namespace);
            let mut row = vec![
                severity_cell(f.severity, styles),
                Cell::new(f.code.id()),
                Cell::new(if ns.is_empty() { "-" } else { ns }),
                Cell::new(format!("{kind}/{}", snap.store.str(o.name))),
                Cell::new(owner),
                Cell::new(&f.consequence),
            ];
            if wide {
                row.push(Cell::new(f.classification.unwrap_or("-")));
                row.push(Cell::new(snap.store.str(o.uid)));
                row.push(Cell::new(&f.message));
            }
            t.add_row(row);
        }
        pad_columns(&mut t);
        write_table(w, &t)?;
        // Blocked deletions and broken references come with their fixes.
        let detailed: Vec<(usize, &&Finding)> = in_scope
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                !f.remedies.is_empty()
                    && (wide
                        || f.code == Code::BlockedForegroundDeletion
                        || f.severity >= Severity::Critical)
            })
            .take(20)
            .collect();
        for (i, f) in detailed {
            writeln!(w)?;
            writeln!(
                w,
                "{} {}: {}",
                f.code.id(),
                f.object
                    .map(|o| snap.describe(o))
                    .or_else(|| f.resource.clone())
                    .unwrap_or_default(),
                f.message
            )?;
            for e in &report.findings[i].evidence {
                writeln!(w, "  evidence: {e}")?;
            }
            if f.code == Code::BlockedForegroundDeletion {
                writeln!(w, "  to unblock, run one of (per root blocker):")?;
            } else {
                writeln!(w, "  to fix:")?;
            }
            for r in &f.remedies {
                writeln!(w, "    {r}")?;
            }
        }
    }
    writeln!(w)?;
    writeln!(w, "{}", summary_line(report))
}

/// `12 findings (1 critical, 3 error, 8 warning) in 5210 objects · GC 1.28 · coverage complete`.
pub fn summary_line(r: &AuditReport) -> String {
    let s = &r.summary;
    let sev: Vec<String> = ["critical", "error", "warning", "info"]
        .iter()
        .filter_map(|k| s.by_severity.get(k).map(|n| format!("{n} {k}")))
        .collect();
    let mut line = format!(
        "{} finding{}{} in {} objects · GC {}",
        s.findings,
        if s.findings == 1 { "" } else { "s" },
        if sev.is_empty() {
            String::new()
        } else {
            format!(" ({})", sev.join(", "))
        },
        s.objects,
        r.gc_version
    );
    let c = &s.coverage;
    if c.source == SourceKind::Files {
        line.push_str(
            " · file input: owners of kinds or namespaces the files do not hold are unknown",
        );
    } else if c.complete {
        line.push_str(" · coverage complete");
    } else {
        let names: Vec<String> = c
            .gaps
            .iter()
            .take(5)
            .map(|g| format!("{} {}", g.resource, g.outcome))
            .collect();
        line.push_str(&format!(
            " · coverage incomplete: {}{} (their owners are unknown, never dangling)",
            names.join(", "),
            if c.gaps.len() > 5 { ", …" } else { "" }
        ));
        if !c.discovery_failures.is_empty() {
            line.push_str(&format!(
                "; {} API group-version(s) unreadable",
                c.discovery_failures.len()
            ));
        }
    }
    if !c.skipped_inputs.is_empty() {
        line.push_str(&format!(
            " · {} input document(s) skipped",
            c.skipped_inputs.len()
        ));
    }
    line
}
