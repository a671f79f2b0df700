//! What `audit` and `check` share once their findings are known: the owned result of one
//! input (the report, the ownership pictures, the exit code, the rendered table), and the CI
//! formats.

use crate::cli::{ColorChoice, FailOn, GateArgs, ListOutputArgs, ReportFormat};
use crate::diagnose::Finding;
use crate::diagnose::suppress::Baseline;
use crate::error::Result;
use crate::gc::GarbageCollector;
use crate::render::audit::{self as view, AuditReport};
use crate::render::ci::{CiReport, ClusterOutcome, ClusterReport};
use crate::render::html::Component;
use crate::render::sink::Sink;
use crate::render::{Styles, TableOptions, html, junit, list, markdown, sarif};

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
#[derive(Clone)]
pub struct Want {
    /// The output format.
    pub format: ReportFormat,
    /// Colour of the table.
    pub styles: Styles,
    /// How the table is laid out (`-o wide`, `--no-headers`, `-L`, width).
    pub table: TableOptions,
    /// `--sort-by`: the order of the findings in every format.
    pub sort_by: Option<String>,
    /// Collect the baseline entries (the fleet writes one baseline for every cluster).
    pub baseline: bool,
}

impl Want {
    /// What a single input's command line asks for; `to_file`: the report goes to
    /// `--output-file` (no colour, never cut to the terminal's width).
    pub fn new(
        format: ReportFormat,
        color: ColorChoice,
        list_args: &ListOutputArgs,
        to_file: bool,
    ) -> Want {
        let mut table = super::output::table_options(list_args, format == ReportFormat::Wide);
        if to_file {
            table.width = None;
        }
        Want {
            format,
            styles: if to_file {
                Styles::plain()
            } else {
                Styles::for_stdout(color)
            },
            table,
            sort_by: list_args.sort_by.clone(),
            baseline: false,
        }
    }
}

/// Finishes one input's analysis: `--sort-by`, exit code, pictures, table, baseline.
pub fn finish(
    gc: &GarbageCollector<'_>,
    mut report: AuditReport,
    mut in_scope: Vec<&Finding>,
    plan: Option<&crate::gc::Plan>,
    fail_on: FailOn,
    gate: &GateArgs,
    want: &Want,
) -> Result<Analysed> {
    if let Some(order) = super::output::sort_order(&report, "findings", want.sort_by.as_deref())? {
        list::apply_order(&mut report.findings, &order);
        list::apply_order(&mut in_scope, &order);
    }
    let in_scope = &in_scope[..];
    let exit_code = super::gate::exit_code(in_scope, fail_on, gate, &report.summary.coverage);
    let components = if want.format == ReportFormat::Html {
        html::components(gc, in_scope, plan)
    } else {
        Vec::new()
    };
    let table = match want.format {
        ReportFormat::Table | ReportFormat::Wide => super::progress::step("rendering", || {
            let mut buf = Vec::new();
            view::write_table_report_with(&mut buf, gc, &report, in_scope, &want.table, want.styles)
                .map(|()| Some(buf))
        })?,
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

/// Emits a single input's result in any format (`-o` and `--output-file`).
#[allow(clippy::too_many_arguments)]
pub fn emit_single(
    sink: Sink,
    command: &'static str,
    format: ReportFormat,
    color: ColorChoice,
    list_args: &ListOutputArgs,
    fail_on: FailOn,
    gate: &GateArgs,
    a: Analysed,
) -> Result<u8> {
    let code = a.exit_code;
    if format.is_ci() {
        write_ci(sink, format, &single(command, fail_on, gate, a))?;
        return Ok(code);
    }
    // The table was rendered while the snapshot was there.
    let table = a.table.unwrap_or_default();
    super::output::emit(
        sink,
        format,
        color,
        list_args,
        &a.report,
        "findings",
        Some("object"),
        |out, _, _| out.write_all(&table),
    )?;
    // Only the exit is left: a report of thousands of findings is tens of thousands of frees.
    super::exiting(a.report);
    super::exiting(table);
    Ok(code)
}
