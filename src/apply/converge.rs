//! Rounds until nothing is left, as the GC's queues go on (issue 14 item 8).
//!
//! A plan settles the cluster in synchronous waves; the GC does not: its workers take items
//! as events arrive, so an orphan patch may remove an object's only solid owner before the
//! planned "strip the dangling reference" runs, and the GC then deletes the object on its next
//! visit. Re-verification sees the world moved and skips the planned action
//! ([`SkipCause::Superseded`]); a round that ends that way is followed by another: the
//! cluster is read again ([`Relist`]), re-planned, and what the GC would still do is applied —
//! every action re-verified and recorded as in the first round.
//!
//! Bounds: at most [`MAX_ROUNDS`] rounds; a round that changed nothing is the last (a re-plan
//! would see the same cluster); only objects of the first read are ever touched (what
//! appeared since was never shown to the user); an object whose action was skipped because
//! the cluster changed in a way nobody planned, because the GC would not perform it, or that
//! failed, is left alone for the rest of the apply. What the last re-plan still predicts is
//! reported as `left`: its actions, and the requests every order makes that it withholds
//! because they wait for an order-dependent one ([`Plan::withheld`]) — never performed, and
//! never a silent "nothing left".

use super::{
    Applier, ClusterOps, EntryResult, NotDone, Progress, Record, SkipCause, Stop, Stopped,
};
use crate::catalog::KubeVersion;
use crate::gc::GarbageCollector;
use crate::gc::object_ref::{ObjectRef, Place};
use crate::gc::plan::{Action, Plan};
use crate::snapshot::Snapshot;
use std::collections::HashSet;
use std::future::Future;
use std::io::Write;

/// The most rounds an apply runs (the first, from the plan shown, included).
pub const MAX_ROUNDS: u32 = 10;

/// Reads the cluster again between rounds, the way the first snapshot was read (same scope).
pub trait Relist {
    /// A fresh snapshot, or why none could be read.
    fn relist(&mut self) -> impl Future<Output = Result<Snapshot, String>>;
}

/// What a round plans on a fresh snapshot: the command's own planner (scope included), so
/// that later rounds plan exactly as the first one did.
pub type Planner<'p> = dyn Fn(&GarbageCollector<'_>) -> Plan + 'p;

/// Runs the first round (`actions` of `plan`, made from `first`), then re-reads, re-plans and
/// applies until nothing is left (see the module). The summary's `left` and `converged` say
/// how it ended; the summary line is written.
#[allow(clippy::too_many_arguments)]
pub async fn converge<C: ClusterOps, W: Write, R: Relist>(
    mut applier: Applier<'_, C>,
    first: &GarbageCollector<'_>,
    plan: &Plan,
    actions: &[&Action],
    version: KubeVersion,
    planner: &Planner<'_>,
    relist: &mut R,
    record: &mut Record<W>,
    stop: &Stop,
    progress: &mut Progress<'_>,
) -> super::Summary {
    let store = &first.snap.store;
    let first_uids: HashSet<String> = store
        .ids()
        .map(|id| store.str(store.object(id).uid).to_owned())
        .collect();
    let mut wrote = applier
        .round(first, &plan.end, actions, record, stop, progress)
        .await;
    loop {
        if applier.stopped() {
            break;
        }
        // Objects left alone: skipped for a change nobody planned or an action the GC would
        // not perform, or failed.
        let excluded: HashSet<Place> = applier
            .summary()
            .attempted
            .iter()
            .filter(|x| {
                x.entry.result == EntryResult::Failed
                    || matches!(
                        x.entry.cause,
                        Some(SkipCause::Changed | SkipCause::GcWouldNot)
                    )
            })
            .map(|x| x.entry.target.place())
            .collect();
        let snap = match relist.relist().await {
            Ok(s) => s,
            Err(e) => {
                applier.stop(Stopped::Error(format!(
                    "reading the cluster again after round {}: {e}",
                    applier.summary().rounds
                )));
                break;
            }
        };
        let gc = crate::run::garbage_collector(&snap, version);
        let next = planner(&gc);
        let round = applier.summary().rounds + 1;
        let mut remaining: Vec<NotDone> = Vec::new();
        let mut selected: Vec<&Action> = Vec::new();
        for act in &next.actions {
            let o = snap.store.object(act.target);
            if !first_uids.contains(snap.store.str(o.uid)) {
                continue;
            }
            let target = ObjectRef::of(&snap, act.target);
            if !excluded.contains(&target.place()) {
                selected.push(act);
            }
            remaining.push(NotDone {
                round,
                wave: act.wave,
                verb: act.verb.as_str(),
                target,
            });
        }
        // What every order still does but waits for an order-dependent request (the plan
        // withholds it): never performed, and never a silent "nothing left".
        for act in &next.withheld {
            let o = snap.store.object(act.target);
            if first_uids.contains(snap.store.str(o.uid)) {
                remaining.push(NotDone {
                    round,
                    wave: act.wave,
                    verb: act.verb.as_str(),
                    target: ObjectRef::of(&snap, act.target),
                });
            }
        }
        if selected.is_empty() {
            applier.settle(remaining, true);
            break;
        }
        if wrote == 0 || round > MAX_ROUNDS {
            // The last round changed nothing (the same plan again would loop), or the bound.
            applier.settle(remaining, false);
            break;
        }
        if let Some(why) = stop.requested() {
            applier.stop(why);
            applier.settle(Vec::new(), false);
            break;
        }
        wrote = applier
            .round(&gc, &next.end, &selected, record, stop, progress)
            .await;
    }
    applier.finish(record)
}
