//! `kubectl gc audit` output: table, wide, JSON and YAML (schema in README "JSON: audit").

use super::{
    ObjectRef, REPORT_API_VERSION, Styles, TableOptions, cell, cells, fit, grid, owner_ref_json,
    table, text::sanitized, write_line, write_table,
};
use crate::diagnose::apply::is_placeholder_uid;
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
    /// When the GC does it (`crate::diagnose::timeline`): now, restart, now-or-restart,
    /// now-or-never, never, unknown; absent when the GC does nothing about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<crate::diagnose::timeline::When>,
    /// Why then: written, in-flight, owner-gone, sitting, edited-in-place, not-rechecked,
    /// start-only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_reason: Option<crate::diagnose::timeline::Reason>,
    /// What is wrong.
    pub message: String,
    /// Other objects involved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<ObjectRef>,
    /// Commands that fix or unblock it, safest first (the commands of `fixes`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remedies: Vec<String>,
    /// What fixes or unblocks it, safest first: each a note (what it does and when to use it)
    /// and, where it is one command, the command.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<crate::diagnose::remedy::Remedy>,
    /// Evidence from the cluster: `OwnerRefInvalidNamespace` events the GC recorded for the
    /// object (live audits with `--events`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
    /// `check apply`: where the object is written in the input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceLocation>,
}

/// Where a finding's object is written: a manifest's file (or archive member) and, where
/// known, the line of the ownerReference involved, else of the object.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct SourceLocation {
    /// The file as given on the command line (joined with the path inside a directory or
    /// archive).
    pub file: String,
    /// 1-based line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
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
    /// Verdicts the input cannot tell (references classified `unknown`; for `check restart`,
    /// objects whose fate a restarted GC cannot be predicted on): what makes the
    /// `--assume-complete` hint worth giving. Not in the JSON, which has the classifications.
    #[serde(skip)]
    pub unknown_verdicts: usize,
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
    /// A live read scoped by `-n`: the namespaces its namespaced resources were listed in,
    /// completely. That is the selection, not a gap (newcomer N6): what is judged is read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<String>,
    /// A new cluster (`check apply --target empty`): nothing in it is unknown, whatever the
    /// input was read from. Said in the summary line; `complete` carries it in JSON.
    #[serde(skip)]
    pub new_cluster: bool,
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
    /// File inputs: the namespaces (`""`: cluster scope) the input holds objects in but does
    /// not hold this resource completely in; its owners there are unknown.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_held_in: Vec<String>,
}

impl Coverage {
    /// Coverage of the analysed snapshot.
    pub fn of(a: &GarbageCollector<'_>) -> Coverage {
        let snap = a.snap;
        // A new cluster's rows are all complete: no file-input gaps to infer.
        let files = snap.provenance.source == SourceKind::Files && !snap.new_cluster;
        // File inputs: the namespaces the input holds objects in, to say where a resource is
        // not held.
        let input_namespaces: std::collections::BTreeSet<&str> = if files {
            // Deduplicated by symbol first, one bit per symbol: a million objects in a few
            // hundred namespaces. (A hashed set was slower, the namespace changing from one
            // object to the next more often than not: BENCHMARKS.md, "Figures behind the code".)
            let mut seen = crate::model::BitSet::new(snap.store.strings.len());
            for o in &snap.store.objects {
                seen.insert(o.namespace.index());
            }
            seen.remove(crate::model::Sym::EMPTY.index()); // the cluster scope
            seen.iter()
                .map(|n| snap.store.str(crate::model::Sym(n as u32)))
                .collect()
        } else {
            Default::default()
        };
        let mut gaps = Vec::new();
        let mut selected = std::collections::BTreeSet::new();
        for g in a.rest_mapper.grs() {
            let mut not_held_in = Vec::new();
            let (outcome, message) = match &g.coverage {
                ListOutcome::Forbidden { message } => ("forbidden", Some(message.clone())),
                ListOutcome::Failed { message } => ("failed", Some(message.clone())),
                // A live list is partial only where `-n` asked for one namespace.
                ListOutcome::Partial { namespaces } if !files => {
                    selected.extend(namespaces.iter().cloned());
                    continue;
                }
                ListOutcome::Partial { namespaces } => {
                    let wanted: Vec<&str> = if g.namespaced {
                        input_namespaces.iter().copied().collect()
                    } else {
                        vec![""]
                    };
                    // Looked up in a set: thousands of namespaces against thousands.
                    let held: hashbrown::HashSet<&str> =
                        namespaces.iter().map(String::as_str).collect();
                    not_held_in = wanted
                        .into_iter()
                        .filter(|n| !held.contains(n))
                        .map(str::to_owned)
                        .collect();
                    if not_held_in.is_empty() {
                        continue;
                    }
                    let held = if namespaces.is_empty() {
                        "no complete list of it in the input".to_owned()
                    } else if g.namespaced {
                        format!("held completely only in: {}", namespaces.join(", "))
                    } else {
                        "held completely at cluster scope".to_owned()
                    };
                    ("partial", Some(held))
                }
                ListOutcome::NotListed if files => (
                    "not-listed",
                    Some("served (CRD or discovery in the input), but no objects of it".into()),
                ),
                _ => continue,
            };
            gaps.push(Gap {
                group: g.group.clone(),
                resource: g.plural.clone(),
                kind: g.kind.clone(),
                outcome,
                message,
                not_held_in,
            });
        }
        Coverage {
            complete: (snap.provenance.source == SourceKind::Live || snap.new_cluster)
                && gaps.is_empty()
                && snap.discovery_failures.is_empty(),
            source: snap.provenance.source,
            gaps,
            discovery_failures: snap.discovery_failures.clone(),
            skipped_inputs: snap.skipped.clone(),
            namespaces: selected.into_iter().collect(),
            new_cluster: snap.new_cluster,
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
            when: f.when.map(|t| t.when),
            when_reason: f.when.and_then(|t| t.reason),
            message: f.message.clone(),
            related: f.related.iter().map(|&r| ObjectRef::of(snap, r)).collect(),
            remedies: f.commands(),
            fixes: f.remedies.clone(),
            evidence: Vec::new(),
            source: None,
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
            unknown_verdicts: classifications.get("unknown").copied().unwrap_or(0),
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
    write_table_report_with(w, a, report, in_scope, &TableOptions::of(wide), styles)
}

/// One row of the findings table before grouping.
struct FindingRow<'f> {
    finding: &'f Finding,
    /// Index into the report's findings.
    index: usize,
    namespace: String,
    object: String,
    owner: String,
    age: String,
}

/// Rows of the same severity, code, namespace, object kind and consequence whose owners are
/// of one kind (27 pods whose Jobs the input lacks): shown as one row in `-o table`.
fn group_key<'r>(
    r: &'r FindingRow<'_>,
) -> (Severity, &'static str, &'r str, &'r str, &'r str, &'r str) {
    (
        r.finding.severity,
        r.finding.code.id(),
        r.namespace.as_str(),
        r.object.split_once('/').map_or("", |(k, _)| k),
        r.owner.split_once('/').map_or(r.owner.as_str(), |(k, _)| k),
        r.finding.consequence.as_str(),
    )
}

/// At least this many near-identical rows are shown as one in `-o table`.
pub const GROUP_AT: usize = 3;

/// Writes the findings table with kubectl's layout options, the detail blocks (remedies) and
/// the summary line. In `-o table`, runs of [`GROUP_AT`] or more near-identical rows (same
/// severity, code, namespace, kinds and consequence) are shown as one row, `(+N more)`;
/// `-o wide` shows every row.
pub fn write_table_report_with(
    w: &mut dyn Write,
    a: &GarbageCollector<'_>,
    report: &AuditReport,
    in_scope: &[&Finding],
    opts: &TableOptions,
    styles: Styles,
) -> std::io::Result<()> {
    let snap = a.snap;
    let wide = opts.wide;
    let now = super::captured_secs(snap);
    let mut grouped_rows = 0usize;
    if in_scope.is_empty() {
        if !opts.no_headers {
            writeln!(w, "No findings.")?;
        }
    } else {
        let rows: Vec<FindingRow<'_>> = in_scope
            .iter()
            .enumerate()
            .map(|(index, f)| finding_row(a, f, index, now))
            .collect();
        // Groups, in the order of their first row.
        let mut groups: Vec<Vec<usize>> = Vec::new();
        if wide {
            groups = (0..rows.len()).map(|i| vec![i]).collect();
        } else {
            let mut index: hashbrown::HashMap<_, usize> =
                hashbrown::HashMap::with_capacity(rows.len());
            for (i, r) in rows.iter().enumerate() {
                match index.get(&group_key(r)) {
                    Some(&g) => groups[g].push(i),
                    None => {
                        index.insert(group_key(r), groups.len());
                        groups.push(vec![i]);
                    }
                }
            }
            // Small groups are shown row by row.
            groups = groups
                .into_iter()
                .flat_map(|g| {
                    if g.len() >= GROUP_AT {
                        vec![g]
                    } else {
                        g.into_iter().map(|i| vec![i]).collect()
                    }
                })
                .collect();
            groups.sort_by_key(|g| g[0]);
        }
        let mut header: Vec<String> = [
            "SEVERITY",
            "CODE",
            "NAMESPACE",
            "OBJECT",
            "OWNER",
            "AGE",
            "CONSEQUENCE",
        ]
        .map(String::from)
        .to_vec();
        if wide {
            header.extend(["CLASS", "UID", "MESSAGE"].map(String::from));
        }
        header.extend(opts.label_headers());
        // Each row's cells as sanitised text, and its severity for the colour.
        let mut lines: Vec<Vec<String>> = Vec::with_capacity(groups.len());
        let mut severities = Vec::with_capacity(groups.len());
        for g in &groups {
            let r = &rows[g[0]];
            let f = r.finding;
            let more = |text: &str, distinct: usize| {
                if g.len() > 1 && distinct > 1 {
                    format!("{text} (+{} more)", g.len() - 1)
                } else {
                    text.to_owned()
                }
            };
            let distinct_owners = {
                let mut o: Vec<&str> = g.iter().map(|&i| rows[i].owner.as_str()).collect();
                o.sort_unstable();
                o.dedup();
                o.len()
            };
            if g.len() > 1 {
                grouped_rows += g.len() - 1;
            }
            let mut row = vec![
                f.severity.as_str().to_uppercase(),
                f.code.id().to_owned(),
                sanitized(&r.namespace),
                sanitized(&more(&r.object, g.len())),
                sanitized(&more(&r.owner, distinct_owners)),
                sanitized(&r.age),
                sanitized(&f.consequence),
            ];
            if wide {
                row.push(sanitized(f.classification.unwrap_or("-")));
                row.push(sanitized(
                    f.object
                        .map(|o| snap.store.str(snap.store.object(o).uid))
                        .filter(|u| !is_placeholder_uid(u))
                        .unwrap_or("-"),
                ));
                row.push(sanitized(&f.message));
            }
            row.extend(
                opts.label_cells(snap, f.object)
                    .iter()
                    .map(|c| sanitized(c)),
            );
            lines.push(row);
            severities.push(f.severity);
        }
        let header = (!opts.no_headers).then_some(&header[..]);
        // Without colour or a width to fit (output to a pipe or a file), the plain writer;
        // else comfy-table.
        let plain = !styles.color
            && opts.width.filter(|_| !wide).is_none()
            && grid::write_plain(w, header, &lines)?;
        if !plain {
            let mut t = table(styles);
            if let Some(h) = header {
                t.set_header(cells(h));
            }
            for (row, &severity) in lines.iter().zip(&severities) {
                // Sanitised already: `cell` leaves such text as it is.
                let mut out = vec![severity_cell(severity, styles)];
                out.extend(row[1..].iter().map(cell));
                t.add_row(out);
            }
            // SEVERITY, CODE and AGE keep their width; the rest share what is left.
            fit(&mut t, opts, &[0, 1, 5]);
            write_table(w, &t)?;
        }
        if opts.no_headers {
            return Ok(());
        }
        // Blocked deletions and broken references come with their fixes.
        let detailed: Vec<&FindingRow<'_>> = rows
            .iter()
            .filter(|r| {
                let f = r.finding;
                // check apply: a fix in a manifest is the point of the report.
                let in_manifest =
                    report.findings[r.index].source.is_some() && f.severity >= Severity::Error;
                !f.remedies.is_empty()
                    && (wide
                        || in_manifest
                        || f.code == Code::BlockedForegroundDeletion
                        || f.severity >= Severity::Critical)
            })
            .take(20)
            .collect();
        for r in detailed {
            let f = r.finding;
            writeln!(w)?;
            write_line(
                w,
                &format!(
                    "{} {}: {}",
                    f.code.id(),
                    f.object
                        .map(|o| snap.describe(o))
                        .or_else(|| f.resource.clone())
                        .unwrap_or_default(),
                    f.message
                ),
            )?;
            for e in &report.findings[r.index].evidence {
                write_line(w, &format!("  evidence: {e}"))?;
            }
            if f.code == Code::BlockedForegroundDeletion {
                writeln!(w, "  to unblock, safest first:")?;
            } else {
                writeln!(w, "  to fix, safest first:")?;
            }
            for (i, rem) in f.remedies.iter().enumerate() {
                write_line(w, &format!("    {}. {}", i + 1, rem.note))?;
                if !rem.command.is_empty() {
                    write_line(w, &format!("       {}", rem.command))?;
                }
            }
        }
    }
    if opts.no_headers {
        return Ok(());
    }
    writeln!(w)?;
    let mut line = summary_line(report);
    if grouped_rows > 0 {
        line.push_str(&format!(
            " · {grouped_rows} similar row(s) grouped (-o wide lists each)"
        ));
    }
    write_line(w, &line)
}

/// The cells of one finding: an object's namespace, `Kind/name`, its owner (for GC013, the
/// finalizers holding it and for how long) and its age.
fn finding_row<'f>(
    a: &GarbageCollector<'_>,
    f: &'f Finding,
    index: usize,
    now: Option<i64>,
) -> FindingRow<'f> {
    let snap = a.snap;
    let Some(obj) = f.object else {
        return FindingRow {
            finding: f,
            index,
            namespace: "-".into(),
            object: f.resource.clone().unwrap_or_else(|| "-".into()),
            owner: "-".into(),
            age: "-".into(),
        };
    };
    let o = snap.store.object(obj);
    let kind = snap.kind_label(o.resource);
    let owner = if f.code == Code::TerminatingHeldByFinalizer {
        let fins: Vec<&str> = snap
            .store
            .finalizers(obj)
            .iter()
            .map(|s| snap.store.str(*s))
            .collect();
        format!(
            "held by {} for {}",
            if fins.is_empty() {
                "-".to_owned()
            } else {
                fins.join(",")
            },
            super::age(snap.store.str(o.deletion_timestamp), now)
        )
    } else {
        f.owner_ref
            .map(|r| format!("{}/{}", snap.store.str(r.kind), snap.store.str(r.name)))
            .unwrap_or_else(|| "-".into())
    };
    let ns = snap.store.str(o.namespace);
    FindingRow {
        finding: f,
        index,
        namespace: if ns.is_empty() {
            "-".into()
        } else {
            ns.to_owned()
        },
        object: format!("{kind}/{}", snap.store.str(o.name)),
        owner,
        // An object the apply has yet to create has no age.
        age: if is_placeholder_uid(snap.store.str(o.uid)) {
            "-".into()
        } else {
            super::age(&snap.store.timestamp(o.creation_timestamp), now)
        },
    }
}

/// For file input whose verdicts are unknown only because the kinds it holds are not assumed
/// complete: how to assume it. Every human format (table, Markdown, HTML, the `check` gates)
/// gives it where it gives the coverage.
pub fn assume_complete_hint(r: &AuditReport) -> Option<&'static str> {
    let s = &r.summary;
    let partial = s.coverage.gaps.iter().any(|g| g.outcome == "partial");
    (s.coverage.source == SourceKind::Files
        && !s.coverage.new_cluster
        && partial
        && s.unknown_verdicts > 0)
        .then_some("--assume-complete if the input holds every object of those kinds")
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
    if c.new_cluster {
        line.push_str(
            " · a new cluster: the release's built-in kinds and the input's CRDs, nothing else",
        );
    } else if c.source == SourceKind::Files {
        // What was held, what was not: owners there are unknown, never missing.
        let failed: Vec<&str> = c
            .gaps
            .iter()
            .filter(|g| g.outcome == "failed")
            .map(|g| g.resource.as_str())
            .collect();
        let partial: Vec<&str> = c
            .gaps
            .iter()
            .filter(|g| g.outcome == "partial")
            .map(|g| g.resource.as_str())
            .collect();
        let list = |v: &[&str]| {
            let mut s = v.iter().take(4).copied().collect::<Vec<_>>().join(", ");
            if v.len() > 4 {
                s.push_str(&format!(", +{} more", v.len() - 4));
            }
            s
        };
        let mut parts = Vec::new();
        if partial.is_empty() && failed.is_empty() {
            parts.push("every kind it holds is held completely".to_owned());
        }
        if !partial.is_empty() {
            parts.push(format!(
                "not held completely everywhere: {} (-o json lists where)",
                list(&partial)
            ));
        }
        if !failed.is_empty() {
            parts.push(format!("unknown (broken input): {}", list(&failed)));
        }
        line.push_str(&format!(
            " · file input: {}; owners of other kinds are unknown",
            parts.join("; ")
        ));
        if let Some(hint) = assume_complete_hint(r) {
            line.push_str(&format!(" ({hint})"));
        }
    } else if c.complete && !c.namespaces.is_empty() {
        line.push_str(&format!(
            " · coverage complete in namespace {}",
            c.namespaces.join(", ")
        ));
    } else if c.complete {
        line.push_str(" · coverage complete");
    } else {
        let names: Vec<String> = c
            .gaps
            .iter()
            .take(5)
            .map(|g| format!("{} {}", g.resource, g.outcome))
            .collect();
        if !names.is_empty() {
            line.push_str(&format!(
                " · coverage incomplete: {}{} (their owners are unknown, never dangling)",
                names.join(", "),
                if c.gaps.len() > 5 { ", …" } else { "" }
            ));
        } else {
            line.push_str(" · coverage incomplete");
        }
        if !c.discovery_failures.is_empty() {
            line.push_str(&format!(
                "{} {} API group-version(s) unreadable ({}): owners of their kinds are unknown, \
                 and every namespace being deleted waits for them",
                if names.is_empty() { ":" } else { ";" },
                c.discovery_failures.len(),
                c.discovery_failures
                    .iter()
                    .take(3)
                    .map(|f| crate::render::text::sanitized(&f.group_version))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if !c.skipped_inputs.is_empty() {
        line.push_str(&format!(
            " · {} input document(s) skipped",
            c.skipped_inputs.len()
        ));
    }
    if s.suppressed > 0 {
        line.push_str(&format!(
            " · {} suppressed (kubectl-gc.io/ignore or --baseline)",
            s.suppressed
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::KubeVersion;
    use crate::testkit::Cluster;

    /// A file input that holds ReplicaSets completely only in namespace `a`: its gap names
    /// every other namespace the input holds objects in, in order, and never the cluster
    /// scope; a cluster-scoped kind held nowhere completely names the cluster scope only.
    #[test]
    fn coverage_names_the_namespaces_a_partial_resource_is_not_held_in() {
        let mut c = Cluster::new();
        c.outcome(
            "apps",
            "replicasets",
            ListOutcome::Partial {
                namespaces: vec!["a".into()],
            },
        );
        c.outcome("", "nodes", ListOutcome::Partial { namespaces: vec![] });
        // Namespaces alternate from object to object, cluster-scoped objects in between.
        for (i, ns) in ["c", "a", "", "b", "c", "", "a"].iter().enumerate() {
            let (av, kind) = if ns.is_empty() {
                ("v1", "Node")
            } else {
                ("apps/v1", "ReplicaSet")
            };
            c.obj(av, kind, ns, &format!("o{i}"), &format!("u{i}"));
        }
        let mut snap = c.build();
        snap.provenance.source = SourceKind::Files;
        let gc = GarbageCollector::new(&snap, KubeVersion::v1(30));
        let coverage = Coverage::of(&gc);
        let gap = |resource: &str| {
            coverage
                .gaps
                .iter()
                .find(|g| g.resource == resource)
                .unwrap_or_else(|| panic!("no {resource} gap: {:?}", coverage.gaps))
                .not_held_in
                .clone()
        };
        assert_eq!(gap("replicasets"), ["b", "c"]);
        assert_eq!(gap("nodes"), [""]);
    }
}
