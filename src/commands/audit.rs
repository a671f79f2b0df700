//! `kubectl gc audit`.

use super::filter::Filter;
use super::{gate, load};
use crate::analysis::Analysis;
use crate::cli::{AuditArgs, GlobalArgs};
use crate::error::Result;
use crate::render::audit as view;

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
    super::emit(args.output, g.color, &report, |out, wide, styles| {
        view::write_table_report(out, &analysis, &report, &in_scope, wide, styles)
    })?;
    Ok(gate::exit_code(
        &in_scope,
        args.fail_on,
        &args.gate,
        &report.summary.coverage,
    ))
}
