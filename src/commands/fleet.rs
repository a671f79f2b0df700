//! Several clusters in one run: `--context a,b,c` or `--all-contexts` (audit, check). Each
//! context is read and analysed concurrently (at most [`CONCURRENT_CLUSTERS`] at a time),
//! then every cluster's result goes into one report (`FleetReport` in JSON/YAML, a CLUSTER
//! column in tables, one run / suite / section per cluster in SARIF, JUnit, Markdown and HTML).
//!
//! A cluster that cannot be read (unknown context, unreachable, unauthorised) is reported
//! with its error and its exit code; the others' findings are reported as usual. The process
//! exit code is the worst of the clusters': an error that kept a cluster from being audited
//! (its own code: 4 for connection problems, 3 for bad input, 1 otherwise) outranks findings
//! (5), which outrank incomplete coverage (6 with `--strict-coverage`), which outranks 0.
//!
//! `--write-baseline` writes one baseline for the whole fleet (entries are keyed by UIDs,
//! which differ between clusters), from the clusters that could be read.

use super::findings::{self, Analysed, Want};
use super::input::{Loaded, load_live};
use crate::cli::{
    ColorChoice, FailOn, FleetArgs, GateArgs, GlobalArgs, ListOutputArgs, ReportFormat,
};
use crate::diagnose::suppress::Baseline;
use crate::error::{Error, Result, exit};
use crate::render::ci::{CiReport, ClusterError, ClusterOutcome, ClusterReport};
use crate::render::fleet as view;
use crate::render::sink::Sink;
use futures::StreamExt;
use std::future::Future;
use std::path::Path;

/// Clusters read at the same time (each lists its resources concurrently already).
pub const CONCURRENT_CLUSTERS: usize = 4;

/// The contexts to audit, when more than one cluster was asked for: `--all-contexts`, or a
/// `--context` value with a comma that is not itself the name of a context.
pub fn contexts(g: &GlobalArgs, fleet: &FleetArgs) -> Result<Option<Vec<String>>> {
    let known = || crate::source::live::kubeconfig_names(g.kubeconfig.as_deref(), "contexts");
    let list = if fleet.all_contexts {
        if g.context.is_some() {
            return Err(Error::usage(
                "--all-contexts and --context both choose the clusters",
                "drop one of them (--context a,b audits the contexts named)",
            ));
        }
        let names = known();
        if names.is_empty() {
            return Err(Error::Cluster {
                message: "--all-contexts: the kubeconfig has no contexts (or none could be read)"
                    .into(),
                hint: Some("pass --kubeconfig PATH or set KUBECONFIG".into()),
            });
        }
        names
    } else {
        match &g.context {
            Some(c) if c.contains(',') && !known().contains(c) => {
                let mut names: Vec<String> = Vec::new();
                for n in c.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    if !names.iter().any(|x| x == n) {
                        names.push(n.to_owned());
                    }
                }
                if names.is_empty() {
                    return Err(Error::usage(
                        format!("--context {c:?} names no context"),
                        "e.g. --context prod,staging",
                    ));
                }
                names
            }
            _ => return Ok(None),
        }
    };
    if g.snapshot.is_some() || !g.filename.is_empty() {
        return Err(Error::usage(
            "several contexts are read from the clusters; --snapshot and -f read one input",
            "drop --snapshot/-f, or give one context",
        ));
    }
    Ok(Some(list))
}

/// Loads one context's cluster (quietly: several load at once).
pub async fn load(g: &GlobalArgs) -> Result<Loaded> {
    let label = g.context.clone().unwrap_or_default();
    load_live(g, true, Some(&label)).await
}

/// How the fleet reports.
pub struct Options<'a> {
    /// `audit` or `check`.
    pub command: &'static str,
    /// `AuditReport` or `CheckReport`.
    pub report_kind: &'static str,
    /// `-o`.
    pub format: ReportFormat,
    /// `--color`.
    pub color: ColorChoice,
    /// kubectl's list-output flags.
    pub list: &'a ListOutputArgs,
    /// `--fail-on`.
    pub fail_on: FailOn,
    /// Gate flags.
    pub gate: &'a GateArgs,
    /// `--output-file`.
    pub output_file: Option<&'a Path>,
}

/// The rank of an exit code in "worst of" (higher is worse).
fn rank(code: u8) -> u8 {
    match code {
        exit::OK => 0,
        exit::INCOMPLETE => 1,
        exit::FINDINGS => 2,
        _ => 3,
    }
}

/// The worst of several exit codes (see the module docs).
pub fn worst(codes: impl IntoIterator<Item = u8>) -> u8 {
    codes
        .into_iter()
        .max_by_key(|&c| rank(c))
        .unwrap_or(exit::OK)
}

/// Runs `per_cluster` for every context (with `g.context` set to it, and the gate flags
/// without `--write-baseline`), and reports them all.
pub async fn run<'a, F, Fut>(
    g: &GlobalArgs,
    contexts: Vec<String>,
    opts: &Options<'a>,
    per_cluster: F,
) -> Result<u8>
where
    F: Fn(GlobalArgs, GateArgs, Want) -> Fut,
    Fut: Future<Output = Result<Analysed>>,
{
    if !opts.list.label_columns.is_empty() || opts.list.show_labels {
        return Err(Error::usage(
            "-L and --show-labels read the objects' labels, and a fleet table is made after each cluster's snapshot is gone",
            "use -o json (each finding names its object), or audit one context at a time",
        ));
    }
    // A bad --output-file fails before any cluster is read.
    let sink = Sink::open(opts.output_file)?;
    let mut gate = opts.gate.clone();
    let write_baseline = gate.write_baseline.take();
    let mut want = Want::new(opts.format, opts.color, opts.list, sink.is_file());
    // Tables are rendered for all clusters at once, from the owned reports.
    if opts.format.is_table() {
        want.format = ReportFormat::Json;
    }
    want.baseline = write_baseline.is_some();
    let per_cluster = &per_cluster;
    let gate = &gate;
    let results: Vec<(String, Result<Analysed>)> = futures::stream::iter(contexts)
        .map(|context| {
            let mut cg = g.clone();
            cg.context = Some(context.clone());
            let want = want.clone();
            async move {
                let r = per_cluster(cg, gate.clone(), want).await;
                (context, r)
            }
        })
        .buffered(CONCURRENT_CLUSTERS)
        .collect()
        .await;

    let mut baseline: Option<Baseline> = None;
    let mut clusters = Vec::with_capacity(results.len());
    for (name, r) in results {
        match r {
            Ok(a) => {
                if let Some(b) = a.baseline {
                    match &mut baseline {
                        Some(all) => all.entries.extend(b.entries),
                        None => baseline = Some(b),
                    }
                }
                clusters.push(ClusterReport {
                    name,
                    // Writing a baseline succeeds for every cluster that was read.
                    exit_code: if write_baseline.is_some() {
                        exit::OK
                    } else {
                        a.exit_code
                    },
                    outcome: ClusterOutcome::Report {
                        report: Box::new(a.report),
                        components: a.components,
                    },
                });
            }
            Err(e) => {
                eprintln!(
                    "{}: error: {}",
                    crate::render::text::sanitize(&name),
                    crate::render::text::sanitize(&e.to_string())
                );
                clusters.push(ClusterReport {
                    name,
                    exit_code: e.exit_code(),
                    outcome: ClusterOutcome::Failed(ClusterError {
                        message: e.to_string(),
                        hint: e.hint().map(str::to_owned),
                    }),
                });
            }
        }
    }
    if let Some(path) = &write_baseline {
        let b = baseline.unwrap_or_else(|| Baseline {
            api_version: crate::build_info::REPORT_API_VERSION.into(),
            kind: "Baseline".into(),
            entries: Default::default(),
        });
        b.write(path)?;
        eprintln!(
            "wrote {} finding(s) of {} cluster(s) to baseline {}",
            b.entries.len(),
            clusters.iter().filter(|c| c.report().is_some()).count(),
            path.display()
        );
    }
    let code = worst(clusters.iter().map(|c| c.exit_code));
    let report = CiReport {
        command: opts.command,
        fail_on: findings::fail_on_severity(opts.fail_on),
        strict_coverage: opts.gate.strict_coverage,
        clusters,
    };
    if opts.format.is_ci() {
        findings::write_ci(sink, opts.format, &report)?;
        return Ok(code);
    }
    let document = view::document(&report, opts.report_kind, code);
    super::output::emit_with(
        sink,
        opts.format,
        opts.color,
        opts.list,
        &document,
        fleet_items,
        Some("object"),
        |out, table, styles| view::write_table_report(out, &report, table, styles),
    )?;
    Ok(code)
}

/// The items of a fleet document for `-o name` and `custom-columns=`: every cluster's
/// findings, each with its cluster's context as `cluster`.
fn fleet_items(doc: &serde_json::Value) -> Vec<serde_json::Value> {
    let mut items = Vec::new();
    for c in doc["clusters"].as_array().into_iter().flatten() {
        for f in c["report"]["findings"].as_array().into_iter().flatten() {
            let mut f = f.clone();
            if let Some(o) = f.as_object_mut() {
                o.insert("cluster".into(), c["context"].clone());
            }
            items.push(f);
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_exit_code_wins() {
        assert_eq!(worst([0, 5, 6]), 5);
        assert_eq!(worst([0, 6]), 6);
        assert_eq!(worst([5, 4, 0]), 4);
        assert_eq!(worst([0, 0]), 0);
        assert_eq!(worst([]), 0);
        assert_eq!(worst([6, 1]), 1);
    }
}
