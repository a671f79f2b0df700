//! Several clusters in one report (`--context a,b,c`, `--all-contexts`): the `FleetReport`
//! JSON/YAML document and the table. Every finding row carries its cluster; a cluster that
//! could not be audited is listed with its error, and never hides the other clusters'
//! findings.
//!
//! ```json
//! {
//!   "apiVersion": "kubectl-gc.io/v1",
//!   "kind": "FleetReport",
//!   "reportKind": "AuditReport",
//!   "exitCode": 5,
//!   "clusters": [
//!     { "context": "prod", "exitCode": 5, "report": { …an AuditReport… } },
//!     { "context": "edge", "exitCode": 4, "error": { "message": "…", "hint": "…" } }
//!   ],
//!   "summary": { "clusters": 2, "audited": 1, "failed": 1, "findings": 3, "bySeverity": { "error": 3 } }
//! }
//! ```

use super::audit::{AuditReport, summary_line};
use super::ci::{CiReport, ClusterError, ClusterOutcome, owner_text};
use super::{REPORT_API_VERSION, Styles, TableOptions, cells, fit, table, write_line, write_table};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{self, Write};

/// The fleet document.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct FleetReport<'a> {
    /// `kubectl-gc.io/v1`.
    pub api_version: &'static str,
    /// `FleetReport`.
    pub kind: &'static str,
    /// The kind of each cluster's report (`AuditReport`, `CheckReport`).
    pub report_kind: &'static str,
    /// The process exit code (the worst of the clusters').
    pub exit_code: u8,
    /// One entry per cluster, in the order asked for.
    pub clusters: Vec<FleetCluster<'a>>,
    /// Totals.
    pub summary: FleetSummary,
}

/// One cluster.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct FleetCluster<'a> {
    /// The kubeconfig context.
    pub context: &'a str,
    /// The exit code of this cluster alone.
    pub exit_code: u8,
    /// Its report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<&'a AuditReport>,
    /// Why there is no report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a ClusterError>,
}

/// Totals over the clusters.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct FleetSummary {
    /// Clusters asked for.
    pub clusters: usize,
    /// Clusters read and analysed.
    pub audited: usize,
    /// Clusters that could not be.
    pub failed: usize,
    /// Findings over all clusters.
    pub findings: usize,
    /// Findings per severity.
    pub by_severity: BTreeMap<&'static str, usize>,
    /// Findings suppressed over all clusters.
    pub suppressed: usize,
}

/// The fleet document of `r` (`exit_code`: the process's).
pub fn document<'a>(r: &'a CiReport, report_kind: &'static str, exit_code: u8) -> FleetReport<'a> {
    let mut by_severity = BTreeMap::new();
    let (mut findings, mut suppressed, mut audited) = (0, 0, 0);
    for rep in r.clusters.iter().filter_map(|c| c.report()) {
        audited += 1;
        findings += rep.summary.findings;
        suppressed += rep.summary.suppressed;
        for (k, v) in &rep.summary.by_severity {
            *by_severity.entry(*k).or_insert(0) += v;
        }
    }
    FleetReport {
        api_version: REPORT_API_VERSION,
        kind: "FleetReport",
        report_kind,
        exit_code,
        clusters: r
            .clusters
            .iter()
            .map(|c| FleetCluster {
                context: &c.name,
                exit_code: c.exit_code,
                report: c.report(),
                error: c.error(),
            })
            .collect(),
        summary: FleetSummary {
            clusters: r.clusters.len(),
            audited,
            failed: r.clusters.len() - audited,
            findings,
            by_severity,
            suppressed,
        },
    }
}

/// The table: one row per finding with its cluster first, then one summary line per cluster
/// (its coverage and GC version) and one line per cluster that could not be audited
/// (`--no-headers`: the rows only; the errors are on stderr as well).
pub fn write_table_report(
    w: &mut dyn Write,
    r: &CiReport,
    opts: &TableOptions,
    styles: Styles,
) -> io::Result<()> {
    let wide = opts.wide;
    let mut rows = 0;
    let mut t = table(styles);
    let mut header = vec![
        "CLUSTER",
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
    if !opts.no_headers {
        t.set_header(header);
    }
    for c in &r.clusters {
        let Some(rep) = c.report() else { continue };
        for f in &rep.findings {
            let (ns, obj, uid) = match (&f.object, &f.resource) {
                (Some(o), _) => (
                    if o.namespace.is_empty() {
                        "-".to_owned()
                    } else {
                        o.namespace.clone()
                    },
                    format!("{}/{}", o.kind, o.name),
                    o.uid.clone(),
                ),
                (None, Some(res)) => ("-".into(), res.clone(), "-".into()),
                (None, None) => ("-".into(), "-".into(), "-".into()),
            };
            let mut row = vec![
                c.name.clone(),
                f.severity.as_str().to_uppercase(),
                f.code.to_owned(),
                ns,
                obj,
                owner_text(f).unwrap_or_else(|| "-".into()),
                f.consequence.clone(),
            ];
            if wide {
                row.push(f.classification.unwrap_or("-").to_owned());
                row.push(uid);
                row.push(f.message.clone());
            }
            t.add_row(cells(row));
            rows += 1;
        }
    }
    if opts.no_headers {
        if rows > 0 {
            fit(&mut t, opts, &[0, 1, 2]);
            write_table(w, &t)?;
        }
        return Ok(());
    }
    if rows == 0 {
        writeln!(w, "No findings.")?;
    } else {
        // CLUSTER, SEVERITY and CODE keep their width; the others share what is left.
        fit(&mut t, opts, &[0, 1, 2]);
        write_table(w, &t)?;
    }
    writeln!(w)?;
    for c in &r.clusters {
        match &c.outcome {
            ClusterOutcome::Report { report, .. } => {
                write_line(w, &format!("{}: {}", c.name, summary_line(report)))?
            }
            ClusterOutcome::Failed(e) => {
                let mut line = format!("{}: not audited: {}", c.name, e.message);
                if let Some(h) = &e.hint {
                    line.push_str(&format!(" (hint: {h})"));
                }
                write_line(w, &line)?;
            }
        }
    }
    Ok(())
}
