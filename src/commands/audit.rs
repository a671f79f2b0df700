//! `kubectl gc audit`.

use super::findings::{self, Analysed, Want};
use super::fleet;
use super::select::Selection;
use super::{flags, gate, output};
use crate::cli::{AuditArgs, GateArgs, GlobalArgs};
use crate::error::Result;
use crate::render::audit as view;
use crate::render::sink::Sink;

pub async fn run(g: &GlobalArgs, args: &AuditArgs) -> Result<u8> {
    // Reject bad flags, selectors and templates before spending time on the cluster.
    flags::check_report_output(args.output, &args.list, false)?;
    output::check_templates(args.output, args.list.sort_by.as_deref())?;
    let selection = Selection::parse(g)?;
    if args.events && (g.snapshot.is_some() || !g.filename.is_empty()) {
        return Err(crate::error::Error::usage(
            "--events reads the GC's events from a live cluster, and the input is a file",
            "drop --snapshot/-f, or drop --events",
        ));
    }
    if let Some(contexts) = fleet::contexts(g, &args.fleet)? {
        let opts = fleet::Options {
            command: "audit",
            report_kind: "AuditReport",
            format: args.output,
            color: g.color,
            list: &args.list,
            fail_on: args.fail_on,
            gate: &args.gate,
            output_file: args.file.output_file.as_deref(),
        };
        return fleet::run(g, contexts, &opts, |g, gate, want| async move {
            let loaded = fleet::load(&g).await?;
            analyse(
                &g,
                args,
                Selection::parse(&g)?,
                &gate,
                &loaded,
                &want,
                false,
            )
            .await
        })
        .await;
    }
    // A bad --output-file fails before the cluster is read.
    let sink = Sink::open(args.file.output_file.as_deref())?;
    let loaded = super::load_input(g, true).await?;
    let want = Want::new(args.output, g.color, &args.list, sink.is_file());
    let a = analyse(g, args, selection, &args.gate, &loaded, &want, true).await?;
    let code = findings::emit_single(
        sink,
        "audit",
        args.output,
        g.color,
        &args.list,
        args.fail_on,
        &args.gate,
        a,
    );
    // The process ends with this command; see `super::exiting`.
    super::exiting(loaded);
    code
}

/// Audits one loaded input. `last`: nothing runs after this input but the output (not
/// so for a fleet's contexts), so the graph and the findings need not be freed.
async fn analyse(
    g: &GlobalArgs,
    args: &AuditArgs,
    selection: Selection,
    gate_args: &GateArgs,
    loaded: &super::Loaded,
    want: &Want,
    last: bool,
) -> Result<Analysed> {
    let selection = selection.resolve(
        &loaded.snapshot,
        loaded.namespace.as_deref(),
        g.given("namespace"),
    )?;
    let gc = super::progress::step("building the GC's graph", || {
        crate::run::garbage_collector(&loaded.snapshot, loaded.gc_version(g))
    });
    let audit = super::progress::step("auditing", || crate::diagnose::audit(&gc));
    let in_scope: Vec<_> = audit
        .findings
        .iter()
        .filter(|f| {
            f.object
                .is_none_or(|o| selection.includes(&loaded.snapshot, o))
        })
        .collect();
    let (in_scope, suppressed) = gate::suppress(&loaded.snapshot, gate_args, in_scope)?;
    let mut report = super::progress::step("building the report", || {
        view::report_of_kind(
            &gc,
            "AuditReport",
            &audit.classifications,
            &in_scope,
            suppressed,
        )
    });
    if args.events {
        attach_events(loaded, &mut report).await?;
    }
    let analysed = findings::finish(
        &gc,
        report,
        in_scope,
        Some(&audit.plan),
        args.fail_on,
        gate_args,
        want,
    );
    if last {
        super::exiting(gc);
        super::exiting(audit);
    }
    analysed
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
