//! `kubectl gc audit`.

use super::filter::Filter;
use super::{gate, load};
use crate::analysis::Analysis;
use crate::cli::{AuditArgs, GlobalArgs, ReportFormat};
use crate::error::Result;
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
        .filter(|f| {
            f.object
                .is_none_or(|o| filter.includes(&loaded.snapshot, o))
        })
        .collect();
    let (in_scope, suppressed) = gate::suppress(&loaded.snapshot, &args.gate, in_scope)?;
    let report = view::report_of_kind(
        &analysis,
        "AuditReport",
        &audit.classifications,
        &in_scope,
        suppressed,
    );
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
    Ok(gate::exit_code(
        &in_scope,
        args.fail_on,
        &args.gate,
        &report.summary.coverage,
    ))
}
