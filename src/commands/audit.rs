//! `kubectl gc audit`.

use super::filter::Filter;
use super::load;
use crate::analysis::Analysis;
use crate::cli::{AuditArgs, FailOn, GlobalArgs, ReportFormat};
use crate::error::{Result, exit};
use crate::render::{self, Styles, audit as view};
use std::io::Write;

pub async fn run(g: &GlobalArgs, args: &AuditArgs) -> Result<u8> {
    // Reject a bad selector before spending time on the cluster.
    Filter::new(None, args.selector.as_deref(), &args.kind)?;
    let loaded = load(g, true).await?;
    let analysis = Analysis::new(&loaded.snapshot, loaded.gc_version(g));
    let audit = analysis.audit();
    let filter = Filter::new(
        loaded.namespace.clone(),
        args.selector.as_deref(),
        &args.kind,
    )?;
    let in_scope: Vec<_> = audit
        .findings
        .iter()
        .filter(|f| filter.includes(&loaded.snapshot, f.object))
        .collect();
    let report = view::report(&analysis, &audit, &in_scope);
    let mut out = super::stdout();
    match args.output {
        ReportFormat::Json => render::write_json(&mut out, &report)?,
        ReportFormat::Yaml => render::write_yaml(&mut out, &report)?,
        ReportFormat::Table | ReportFormat::Wide => view::write_table_report(
            &mut out,
            &analysis,
            &report,
            &in_scope,
            args.output == ReportFormat::Wide,
            Styles::for_stdout(g.color),
        )?,
    }
    out.flush()?;
    let failing = match args.fail_on {
        FailOn::Never => false,
        FailOn::At(sev) => in_scope.iter().any(|f| f.severity >= sev),
    };
    Ok(if failing { exit::FINDINGS } else { exit::OK })
}
