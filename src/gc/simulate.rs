//! The simulation loop behind [`Plan`]: each wave takes the GC's decisions on the state at
//! its start, applies them with the API server's semantics (Appendix B) and collects what the
//! graph builder enqueues for the next wave.

use super::attempt_to_delete::{Policy, Verdict};
use super::plan::{Action, EndState, MAX_WAVES, Outcome, Plan, Reason, UserDelete, Verb};
use super::{GarbageCollector, RefClass, State};
use crate::model::{ObjId, OwnerRef, Sym};

pub(super) struct Simulation<'a, 'b> {
    gc: &'a GarbageCollector<'b>,
    state: State,
    actions: Vec<Action>,
    /// Per object: an action was applied to it.
    touched: Vec<bool>,
}

/// The objects a wave enqueues, collected in any order with repeats, in ascending order and
/// each once: the order the next wave evaluates them in (sorting once is cheaper than a
/// `BTreeSet` when the first wave holds every object).
fn sorted_unique(mut queue: Vec<ObjId>) -> Vec<ObjId> {
    queue.sort_unstable();
    queue.dedup();
    queue
}

impl<'a, 'b> Simulation<'a, 'b> {
    pub(super) fn new(gc: &'a GarbageCollector<'b>, state: State) -> Self {
        Simulation {
            gc,
            state,
            actions: Vec::new(),
            touched: vec![false; gc.snap.store.len()],
        }
    }

    /// `dirty`: the first wave's objects, ascending and unique.
    pub(super) fn run(mut self, mut dirty: Vec<ObjId>, user: Option<UserDelete>) -> Plan {
        let mut wave = 1;
        let mut truncated = false;
        if let Some(u) = user {
            let (policy, source) = match u.policy {
                Some(p) => (p, "requested"),
                None => self.implicit_policy(u.target),
            };
            let detail = match u.policy {
                Some(p) => format!("requested: delete with propagationPolicy={}", p.as_str()),
                None => format!(
                    "requested: delete without a propagation policy ({source}: {})",
                    policy.as_str()
                ),
            };
            let act = self.action(
                wave,
                Verb::Delete,
                u.target,
                Some(policy),
                vec![],
                None,
                Reason::UserDelete,
                detail,
            );
            dirty = self.apply(vec![act]);
            wave += 1;
        }
        while !dirty.is_empty() {
            if wave > MAX_WAVES {
                truncated = true;
                break;
            }
            let planned = self.decide_wave(wave, &dirty);
            if planned.is_empty() {
                break;
            }
            dirty = self.apply(planned);
            wave += 1;
        }
        let outcomes = self.outcomes();
        Plan {
            waves: self.actions.last().map_or(0, |a| a.wave),
            actions: self.actions,
            outcomes,
            end: self.state,
            truncated,
        }
    }

    /// The policy the API server applies to a delete without options (Appendix B,
    /// `shouldOrphanDependents`/`shouldDeleteDependents`): an `orphan` or `foregroundDeletion`
    /// finalizer already on the object decides (the first of the two in list order); else the
    /// type default — RC, Job, CronJob (and old workload versions) orphan, the rest background.
    /// Returns the policy and what decided it.
    fn implicit_policy(&self, id: ObjId) -> (Policy, &'static str) {
        let (fg, orphan) = (self.state.foreground_sym(), self.state.orphan_sym());
        let store = &self.gc.snap.store;
        for &f in self.state.finalizers(store, id) {
            if f == orphan {
                return (Policy::Orphan, "the object's orphan finalizer");
            }
            if f == fg {
                return (
                    Policy::Foreground,
                    "the object's foregroundDeletion finalizer",
                );
            }
        }
        let r = self.gc.snap.resource_of(store.object(id));
        if crate::catalog::builtin::default_orphans(&r.group, &r.version, &r.kind) {
            (Policy::Orphan, "type default")
        } else {
            (Policy::Background, "type default")
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn action(
        &self,
        wave: u32,
        verb: Verb,
        target: ObjId,
        policy: Option<Policy>,
        owner_refs: Vec<Sym>,
        finalizer: Option<Sym>,
        reason: Reason,
        detail: String,
    ) -> Action {
        Action {
            wave,
            verb,
            target,
            policy,
            owner_refs,
            finalizer,
            reason,
            detail,
        }
    }

    fn describe_refs(&self, id: ObjId, uids: &[Sym]) -> String {
        let store = &self.gc.snap.store;
        let refs = self.state.owner_refs(store, id);
        uids.iter()
            .filter_map(|u| refs.iter().find(|r| r.uid == *u))
            .map(|r| {
                format!(
                    "{}/{} ({})",
                    store.str(r.kind),
                    store.str(r.name),
                    store.str(r.uid)
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn decide_wave(&self, wave: u32, dirty: &[ObjId]) -> Vec<Action> {
        let gc = self.gc;
        let store = &gc.snap.store;
        let mut out = Vec::new();
        for &id in dirty {
            if !self.state.exists(id) || !gc.graph.monitors(id) {
                continue;
            }
            if self.state.orphaning(store, id) {
                out.extend(gc.attempt_to_orphan(&self.state, id, wave));
                continue;
            }
            match gc.attempt_to_delete_item(&self.state, id) {
                Verdict::RemoveRefs { uids, .. } => {
                    let detail = format!(
                        "has a solid owner; removing dangling/waiting references {}",
                        self.describe_refs(id, &uids)
                    );
                    out.push(self.action(
                        wave,
                        Verb::RemoveOwnerReferences,
                        id,
                        None,
                        uids,
                        None,
                        Reason::StripDanglingAndWaiting,
                        detail,
                    ));
                }
                Verdict::Delete {
                    policy,
                    row,
                    unblock_first,
                } => {
                    if unblock_first {
                        let blocking: Vec<Sym> = self
                            .state
                            .owner_refs(store, id)
                            .iter()
                            .filter(|r| r.blocks())
                            .map(|r| r.uid)
                            .collect();
                        let detail =
                            "a dependent is itself deleting dependents (ownership cycle guard)"
                                .to_owned();
                        out.push(self.action(
                            wave,
                            Verb::UnblockOwnerReferences,
                            id,
                            None,
                            blocking,
                            None,
                            Reason::CycleGuard,
                            detail,
                        ));
                    }
                    let refs: Vec<Sym> = self
                        .state
                        .owner_refs(store, id)
                        .iter()
                        .map(|r| r.uid)
                        .collect();
                    let (reason, detail) = if row == 9 {
                        (
                            Reason::ForegroundForWaitingOwner,
                            format!(
                                "no solid owner; owner in foreground deletion and it has dependents: {}",
                                self.describe_refs(id, &refs)
                            ),
                        )
                    } else {
                        (
                            Reason::NoSolidOwner,
                            format!("no solid owner left: {}", self.describe_refs(id, &refs)),
                        )
                    };
                    out.push(self.action(
                        wave,
                        Verb::Delete,
                        id,
                        Some(policy),
                        vec![],
                        None,
                        reason,
                        detail,
                    ));
                }
                Verdict::RemoveForegroundFinalizer => {
                    let fg = self.state.foreground_sym();
                    out.push(self.action(
                        wave,
                        Verb::RemoveFinalizer,
                        id,
                        None,
                        vec![],
                        Some(fg),
                        Reason::ForegroundDone,
                        "no dependent with blockOwnerDeletion=true remains".into(),
                    ));
                }
                _ => {}
            }
        }
        out
    }

    /// Applies a wave's actions with API-server semantics; returns what the GC re-enqueues.
    fn apply(&mut self, planned: Vec<Action>) -> Vec<ObjId> {
        let gc = self.gc;
        let store = &gc.snap.store;
        let mut next = Vec::new();
        for act in planned {
            let id = act.target;
            if !self.state.exists(id) {
                continue; // already gone: the request would 404, nothing to record
            }
            let applied = match act.verb {
                Verb::Delete => {
                    let fg = self.state.foreground_sym();
                    let orphan = self.state.orphan_sym();
                    let mut fins: Vec<Sym> = self
                        .state
                        .finalizers(store, id)
                        .iter()
                        .copied()
                        .filter(|f| *f != fg && *f != orphan)
                        .collect();
                    match act.policy {
                        Some(Policy::Orphan) => fins.push(orphan),
                        Some(Policy::Foreground) => fins.push(fg),
                        _ => {}
                    }
                    if fins.is_empty() {
                        gc.process_delete_event(&mut self.state, id, &mut next);
                    } else {
                        let was_fg = self.state.deleting_dependents(store, id);
                        self.state.start_deletion(id, fins);
                        gc.process_deletion_start(&self.state, id, was_fg, &mut next);
                    }
                    true
                }
                Verb::RemoveOwnerReferences | Verb::UnblockOwnerReferences => {
                    let refs = self.state.owner_refs(store, id);
                    let mut changed = false;
                    let mut new_refs: Vec<OwnerRef> = Vec::with_capacity(refs.len());
                    for r in refs {
                        if act.owner_refs.contains(&r.uid) {
                            gc.process_reference_unblocked(r, &mut next);
                            changed = true;
                            if act.verb == Verb::UnblockOwnerReferences {
                                let mut r = *r;
                                r.block_owner_deletion = Some(false);
                                new_refs.push(r);
                            }
                        } else {
                            new_refs.push(*r);
                        }
                    }
                    if changed {
                        self.state.set_owner_refs(id, new_refs);
                    }
                    changed
                }
                Verb::RemoveFinalizer => {
                    let f = act.finalizer.expect("finalizer action names its finalizer");
                    let fins: Vec<Sym> = self
                        .state
                        .finalizers(store, id)
                        .iter()
                        .copied()
                        .filter(|x| *x != f)
                        .collect();
                    let changed = fins.len() != self.state.finalizers(store, id).len();
                    if changed {
                        if fins.is_empty() && self.state.being_deleted(id) {
                            gc.process_delete_event(&mut self.state, id, &mut next);
                        } else {
                            self.state.set_finalizers(id, fins);
                        }
                    }
                    changed
                }
            };
            if applied {
                self.touched[id.index()] = true;
                self.actions.push(act);
            }
        }
        sorted_unique(next)
    }

    fn outcomes(&self) -> Vec<Outcome> {
        let gc = self.gc;
        let store = &gc.snap.store;
        // Touched objects and objects left terminating get an outcome; the others one only
        // when they are stuck.
        let (ids, others): (Vec<ObjId>, Vec<ObjId>) = store.ids().partition(|&id| {
            self.touched[id.index()] || (self.state.exists(id) && self.state.being_deleted(id))
        });
        let mut out = Vec::with_capacity(ids.len());
        for id in others {
            // Without ownerReferences the GC has nothing to fail on (attemptToDeleteItem row 6).
            if self.state.owner_refs(store, id).is_empty() {
                continue;
            }
            // Objects the GC would act on but cannot: stuck.
            if let Verdict::NeverCollected { reason, dropped } =
                gc.attempt_to_delete_item(&self.state, id)
            {
                let refs = gc.classify_references(&self.state, id);
                if refs.iter().any(|c| !matches!(c, RefClass::Solid { .. })) {
                    let how = if dropped {
                        "dropped by the GC, never collected"
                    } else {
                        "retried by the GC forever, never collected"
                    };
                    out.push(Outcome {
                        target: id,
                        state: EndState::Kept,
                        owner_refs: self
                            .state
                            .owner_refs(store, id)
                            .iter()
                            .map(|r| r.uid)
                            .collect(),
                        why: Some(format!("{reason} ({how})")),
                    });
                }
            }
        }
        for id in ids {
            let (state, why) = if !self.state.exists(id) {
                (EndState::Deleted, None)
            } else if self.state.being_deleted(id) {
                let fins = self.state.finalizers(store, id).to_vec();
                (
                    EndState::Terminating { finalizers: fins },
                    Some(self.why_terminating(id)),
                )
            } else {
                let why = match gc.attempt_to_delete_item(&self.state, id) {
                    Verdict::Unknown { reason } => Some(format!("unknown: {reason}")),
                    Verdict::NeverCollected { reason, .. } => Some(reason),
                    _ => None,
                };
                (EndState::Kept, why)
            };
            let owner_refs = if state == EndState::Kept {
                self.state
                    .owner_refs(store, id)
                    .iter()
                    .map(|r| r.uid)
                    .collect()
            } else {
                vec![]
            };
            out.push(Outcome {
                target: id,
                state,
                owner_refs,
                why,
            });
        }
        out.sort_by_key(|o| o.target);
        out
    }

    fn why_terminating(&self, id: ObjId) -> String {
        let gc = self.gc;
        let store = &gc.snap.store;
        let fg = self.state.foreground_sym();
        let orphan = self.state.orphan_sym();
        let fins = self.state.finalizers(store, id);
        let mut parts = Vec::new();
        if fins.contains(&fg) {
            let blocking = gc.blocking_dependents(&self.state, id);
            let mut names: Vec<String> = blocking.iter().map(|&d| gc.snap.describe(d)).collect();
            names.dedup();
            if names.is_empty() {
                parts.push(
                    "foregroundDeletion: the GC removes it once it processes the object".to_owned(),
                );
            } else {
                parts.push(format!(
                    "foregroundDeletion: blocked by dependents with blockOwnerDeletion=true: {}",
                    names.join(", ")
                ));
            }
        }
        if fins.contains(&orphan) {
            parts.push("orphan: the GC removes it after orphaning the dependents".to_owned());
        }
        let others: Vec<&str> = fins
            .iter()
            .filter(|f| **f != fg && **f != orphan)
            .map(|f| store.str(*f))
            .collect();
        if !others.is_empty() {
            parts.push(format!(
                "held by finalizer(s) the GC does not manage: {}",
                others.join(", ")
            ));
        }
        parts.join("; ")
    }
}
