//! `kubectl gc audit`.

use super::filter::Filter;
use super::{gate, load};
use crate::cli::{AuditArgs, GlobalArgs};
use crate::error::Result;
use crate::gc::GarbageCollector;
use crate::render::audit as view;

pub async fn run(g: &GlobalArgs, args: &AuditArgs) -> Result<u8> {
    // Reject a bad selector before spending time on the cluster.
    Filter::new(None, args.selector.as_deref(), &args.kind)?;
    let loaded = load(g, true).await?;
    let gc = GarbageCollector::new(&loaded.snapshot, loaded.gc_version(g));
    let audit = crate::diagnose::audit(&gc);
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
    let mut report = view::report_of_kind(
        &gc,
        "AuditReport",
        &audit.classifications,
        &in_scope,
        suppressed,
    );
    if args.events {
        attach_events(&loaded, &mut report).await?;
    }
    super::emit(args.output, g.color, &report, |out, wide, styles| {
        view::write_table_report(out, &gc, &report, &in_scope, wide, styles)
    })?;
    Ok(gate::exit_code(
        &in_scope,
        args.fail_on,
        &args.gate,
        &report.summary.coverage,
    ))
}

/// Attaches the GC's `OwnerRefInvalidNamespace` events to the findings about their objects.
async fn attach_events(loaded: &super::Loaded, report: &mut view::AuditReport) -> Result<()> {
    let Some(conn) = &loaded.connection else {
        return Err(crate::error::Error::usage(
            "--events reads events from a live cluster",
            "drop --snapshot/-f, or drop --events",
        ));
    };
    let events =
        crate::source::live::invalid_namespace_events(conn, loaded.namespace.as_deref()).await?;
    for f in &mut report.findings {
        let Some(obj) = &f.object else { continue };
        for e in events.iter().filter(|e| e.uid == obj.uid) {
            f.evidence.push(format!(
                "OwnerRefInvalidNamespace ×{}{}: {}",
                e.count,
                e.last_timestamp
                    .as_deref()
                    .map(|t| format!(" (last {t})"))
                    .unwrap_or_default(),
                e.message
            ));
        }
    }
    Ok(())
}
