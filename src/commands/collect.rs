//! `kubectl gc collect`: the GC's plan (dry run), or the cascade of a user's delete.

use super::load;
use crate::cli::{Cascade, CollectArgs, GlobalArgs};
use crate::error::{Result, exit};
use crate::gc::plan::{Plan, UserDelete};
use crate::gc::{GarbageCollector, Policy};
use crate::render::plan as view;

mod apply;

pub async fn run(g: &GlobalArgs, args: &CollectArgs) -> Result<u8> {
    if args.apply {
        apply::check_input(g)?;
    }
    // A delete's cascade can cross namespaces (cluster-scoped owners): list everything then.
    let loaded = load(g, args.delete.is_none()).await?;
    let snap = &loaded.snapshot;
    let gc = GarbageCollector::new(snap, loaded.gc_version(g));
    let (mut plan, mode) = match &args.delete {
        Some(target) => {
            let id = crate::lookup::resolve_target(
                snap,
                target,
                g.namespace.as_deref().unwrap_or(&loaded.default_namespace),
            )?;
            let policy = match args.cascade {
                Cascade::Background => Some(Policy::Background),
                Cascade::Foreground => Some(Policy::Foreground),
                Cascade::Orphan => Some(Policy::Orphan),
                Cascade::Default => None,
            };
            (
                Plan::preview_delete(&gc, UserDelete { target: id, policy }),
                "delete-preview",
            )
        }
        None => (Plan::steady_state(&gc), "collect"),
    };
    if let (Some(ns), None) = (&loaded.namespace, &args.delete) {
        // Scope the actions to the namespace: what is shown is what --apply performs.
        plan.actions
            .retain(|a| snap.store.str(snap.store.object(a.target).namespace) == ns);
    }
    let mut report = view::report(&gc, &plan, mode);
    if let (Some(ns), None) = (&loaded.namespace, &args.delete) {
        report.outcomes.retain(|o| o.target.namespace == *ns);
    }
    if args.apply {
        return apply::run(g, args, &loaded, &gc, &plan, report).await;
    }
    super::emit(args.output, g.color, &report, |out, wide, styles| {
        view::write_table_report(out, &gc, &plan, &report, wide, styles)
    })?;
    Ok(exit::OK)
}
