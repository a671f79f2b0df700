//! What `audit` and `check` share once their findings are known: the owned result of one
//! input (the report, the ownership pictures, the exit code, the rendered table), and the CI
//! formats.

use crate::cli::{FailOn, GateArgs, ReportFormat};
use crate::diagnose::Finding;
use crate::diagnose::suppress::Baseline;
use crate::error::Result;
use crate::gc::GarbageCollector;
use crate::render::audit::{self as view, AuditReport};
use crate::render::ci::{CiReport, ClusterOutcome, ClusterReport};
use crate::render::html::Component;
use crate::render::sink::Sink;
use crate::render::{Styles, html, junit, markdown, sarif};

/// What one input produced, owned (the snapshot can go).
pub struct Analysed {
    /// The report.
    pub report: AuditReport,
    /// Ownership pictures (only for `-o html`).
    pub components: Vec<Component>,
    /// The exit code of this input alone.
    pub exit_code: u8,
    /// The table (`-o table|wide`), rendered while the snapshot was there.
    pub table: Option<Vec<u8>>,
    /// The baseline of the findings kept (fleet `--write-baseline` only).
    pub baseline: Option<Baseline>,
}

/// How the caller wants the result.
#[derive(Clone, Copy)]
pub struct Want {
    /// The output format.
    pub format: ReportFormat,
    /// Colour of the table.
    pub styles: Styles,
    /// Collect the baseline entries (the fleet writes one baseline for every cluster).
    pub baseline: bool,
}

/// Finishes one input's analysis: exit code, pictures, table, baseline.
pub fn finish(
    gc: &GarbageCollector<'_>,
    report: AuditReport,
    in_scope: &[&Finding],
    fail_on: FailOn,
    gate: &GateArgs,
    want: Want,
) -> Result<Analysed> {
    let exit_code = super::gate::exit_code(in_scope, fail_on, gate, &report.summary.coverage);
    let components = if want.format == ReportFormat::Html {
        html::components(gc, in_scope)
    } else {
        Vec::new()
    };
    let table = match want.format {
        ReportFormat::Table | ReportFormat::Wide => {
            let mut buf = Vec::new();
            view::write_table_report(
                &mut buf,
                gc,
                &report,
                in_scope,
                want.format == ReportFormat::Wide,
                want.styles,
            )?;
            Some(buf)
        }
        _ => None,
    };
    let baseline = want.baseline.then(|| Baseline::of(gc.snap, in_scope));
    Ok(Analysed {
        report,
        components,
        exit_code,
        table,
        baseline,
    })
}

/// `--fail-on` as a severity (`None`: never).
pub fn fail_on_severity(f: FailOn) -> Option<crate::diagnose::Severity> {
    match f {
        FailOn::Never => None,
        FailOn::At(s) => Some(s),
    }
}

/// A one-cluster CI report.
pub fn single(command: &'static str, fail_on: FailOn, gate: &GateArgs, a: Analysed) -> CiReport {
    CiReport {
        command,
        fail_on: fail_on_severity(fail_on),
        strict_coverage: gate.strict_coverage,
        clusters: vec![ClusterReport {
            name: crate::render::ci::cluster_label(&a.report),
            exit_code: a.exit_code,
            outcome: ClusterOutcome::Report {
                report: Box::new(a.report),
                components: a.components,
            },
        }],
    }
}

/// Writes a CI format (`-o sarif|junit|markdown|html`) and commits the sink.
pub fn write_ci(mut sink: Sink, format: ReportFormat, r: &CiReport) -> Result<()> {
    let out = sink.writer();
    match format {
        ReportFormat::Sarif => sarif::write(out, r)?,
        ReportFormat::Junit => junit::write(out, r)?,
        ReportFormat::Markdown => markdown::write(out, r)?,
        ReportFormat::Html => html::write(out, r)?,
        _ => unreachable!("write_ci is only called for CI formats"),
    }
    sink.commit()?;
    Ok(())
}

/// Emits a single input's result in any format.
pub fn emit_single(
    sink: Sink,
    command: &'static str,
    format: ReportFormat,
    fail_on: FailOn,
    gate: &GateArgs,
    a: Analysed,
) -> Result<u8> {
    let code = a.exit_code;
    if format.is_ci() {
        write_ci(sink, format, &single(command, fail_on, gate, a))?;
        return Ok(code);
    }
    let mut sink = sink;
    let out = sink.writer();
    match format {
        ReportFormat::Json => crate::render::write_json(out, &a.report)?,
        ReportFormat::Yaml => crate::render::write_yaml(out, &a.report)?,
        _ => out.write_all(a.table.as_deref().unwrap_or_default())?,
    }
    sink.commit()?;
    Ok(code)
}
