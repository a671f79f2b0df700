//! `kubectl gc collect`: the GC's plan (dry run), or the cascade of a user's delete.

use super::select::Selection;
use super::{flags, output, progress};
use crate::cli::{Cascade, CollectArgs, GlobalArgs};
use crate::diagnose::timeline::Timeline;
use crate::error::{Error, Result, exit};
use crate::gc::plan::{Plan, UserDelete};
use crate::gc::{GarbageCollector, Policy};
use crate::render::sink::Sink;
use crate::render::{list, plan as view};
use crate::util::fork::join;

mod apply;

pub use apply::check_input as check_apply_input;

pub async fn run(g: &GlobalArgs, args: &CollectArgs) -> Result<u8> {
    if args.output.is_ci() {
        return Err(super::refuse_ci_format(args.output));
    }
    if args.apply && args.file.output_file.is_some() {
        return Err(Error::usage(
            "--output-file writes the dry run's report; --apply records what it does with --record",
            "drop --output-file, or pass --record FILE",
        ));
    }
    flags::check_report_output(args.output, &args.list, args.apply)?;
    output::check_templates(args.output, args.list.sort_by.as_deref())?;
    if args.delete.is_some()
        && let Some(f) = [
            ("selector", "-l"),
            ("kind", "--kind"),
            ("field_selector", "--field-selector"),
        ]
        .iter()
        .find(|(id, _)| g.given(id))
    {
        return Err(Error::usage(
            format!(
                "{} with --delete: --delete previews one object's whole cascade",
                f.1
            ),
            format!(
                "drop {}, or drop --delete to select what the GC's plan shows",
                f.1
            ),
        ));
    }
    let selection = Selection::parse(g)?;
    if args.apply {
        apply::check_input(g)?;
    }
    // A bad --output-file fails before the cluster is read (--apply reports on stdout).
    let sink = if args.apply {
        None
    } else {
        Some(Sink::open(args.file.output_file.as_deref())?)
    };
    // A delete's cascade can cross namespaces (cluster-scoped owners): list everything then.
    let loaded = super::load_input(g, args.delete.is_none()).await?;
    let snap = &loaded.snapshot;
    let selection = selection.resolve(
        snap,
        if args.delete.is_none() {
            loaded.namespace.as_deref()
        } else {
            None
        },
        g.given("namespace"),
    )?;
    let gc = progress::step("building the GC's graph", || {
        crate::run::garbage_collector(snap, loaded.gc_version(g))
    });
    let restart = || Plan::restart(&gc);
    let (mut plan, mode, written) = match &args.delete {
        Some(target) => {
            let namespace = if g.all_namespaces {
                None
            } else {
                Some(g.namespace.as_deref().unwrap_or(&loaded.default_namespace))
            };
            let id = crate::lookup::resolve_target(snap, target, namespace)?;
            let policy = match args.cascade {
                Cascade::Background => Some(Policy::Background),
                Cascade::Foreground => Some(Policy::Foreground),
                Cascade::Orphan => Some(Policy::Orphan),
                Cascade::Default => None,
            };
            let preview = || Plan::preview_delete(&gc, UserDelete { target: id, policy });
            let (plan, restart) = progress::step("simulating the GC", || {
                join(gc.fork, "plan", preview, restart)
            });
            (plan, "delete-preview", (vec![id], restart))
        }
        None => {
            let steady = || Plan::steady_state(&gc);
            let (plan, restart) = progress::step("simulating the GC", || {
                join(gc.fork, "plan", steady, restart)
            });
            (plan, "collect", (Vec::new(), restart))
        }
    };
    // When each action comes, on the whole plan (a cascade's owner may be out of the
    // selection); then the plan is scoped as --apply performs it.
    let timings = Timeline::new(&gc, &plan, &written.1, written.0).of_actions();
    if mode == "collect" {
        scope(&gc, &selection, &mut plan);
    }
    // What is shown is what --apply performs: the actions are scoped by collect_plan, the
    // outcomes here, before the report counts them, so that the summary's deletions are the
    // selection's (F14: a summary counting objects the list leaves out contradicts it).
    plan.actions.retain(|a| selection.includes(snap, a.target));
    plan.outcomes.retain(|o| selection.includes(snap, o.target));
    let mut report = view::report(&gc, &plan, mode);
    view::time_actions(&mut report, &plan, &timings);
    if args.apply {
        // Later rounds of --apply plan exactly as this plan was made, with the same selection.
        let planner = |gc: &GarbageCollector<'_>| collect_plan(gc, &selection);
        return apply::run(g, args, &loaded, &gc, &plan, report, &planner).await;
    }
    let sink = match sink {
        Some(sink) => sink,
        None => Sink::open(None)?,
    };
    if let Some(order) = output::sort_order(&report, "actions", args.list.sort_by.as_deref())? {
        list::apply_order(&mut report.actions, &order);
        list::apply_order(&mut plan.actions, &order);
    }
    output::emit(
        sink,
        args.output,
        g.color,
        &args.list,
        &report,
        "actions",
        Some("target"),
        |out, opts, styles| view::write_table_report_with(out, &gc, &plan, &report, opts, styles),
    )?;
    Ok(exit::OK)
}

/// The GC's plan, its actions scoped to the selection (`-n`, `-l`, `--kind`,
/// `--field-selector`): what is shown is what `--apply` performs, in every round.
fn collect_plan(gc: &GarbageCollector<'_>, selection: &Selection) -> Plan {
    let mut plan = Plan::steady_state(gc);
    scope(gc, selection, &mut plan);
    plan
}

/// The plan's requests scoped to the selection.
fn scope(gc: &GarbageCollector<'_>, selection: &Selection, plan: &mut Plan) {
    plan.actions
        .retain(|a| selection.includes(gc.snap, a.target));
    plan.withheld
        .retain(|a| selection.includes(gc.snap, a.target));
}
