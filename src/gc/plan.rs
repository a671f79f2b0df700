//! The GC's decisions simulated to a fixpoint (Appendix D.5): what it will do, in waves, and
//! the state every touched object ends in.
//!
//! Wave 1 evaluates every object the GC would evaluate (or, for a previewed user delete, the
//! user's request). Each wave's decisions are taken against the state at the start of the wave
//! (the GC's workers run concurrently), then applied with the API server's semantics
//! (Appendix B: the finalizers a DELETE adds, removal once no finalizer remains). Every change
//! enqueues what the GC's graph builder would enqueue for it (§2.10), and the next wave
//! evaluates exactly those objects, until nothing changes.

use super::attempt_to_delete::{Policy, Verdict};
use super::{Analysis, State};
use crate::model::{ObjId, OwnerRef, Sym};
use std::collections::{BTreeMap, BTreeSet};

/// A cap on cascade depth; a fixpoint is normally reached in a handful of waves.
pub const MAX_WAVES: u32 = 10_000;

/// What an action does (the `verb` of the JSON contract).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verb {
    /// DELETE with a propagation policy and a UID precondition.
    Delete,
    /// Strategic-merge patch removing ownerReferences by UID (§3.7 P1).
    RemoveOwnerReferences,
    /// Strategic-merge patch setting `blockOwnerDeletion=false` (§3.7 P2, the row-9 cycle guard).
    UnblockOwnerReferences,
    /// JSON merge patch removing a finalizer (§3.7 P3).
    RemoveFinalizer,
}

impl Verb {
    /// The JSON contract's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Delete => "delete",
            Verb::RemoveOwnerReferences => "remove-owner-references",
            Verb::UnblockOwnerReferences => "unblock-owner-references",
            Verb::RemoveFinalizer => "remove-finalizer",
        }
    }
}

/// Why an action is taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The user's own delete being previewed.
    UserDelete,
    /// §3.2 row 8: the object has a solid owner; these references are dangling or waiting.
    Row8,
    /// §3.2 row 9: no solid owner, a waiting owner, and the object has dependents.
    Row9,
    /// §3.2 row 9 cycle guard: a dependent is itself deletingDependents.
    Row9CycleGuard,
    /// §3.2 row 10: no solid owner left.
    Row10,
    /// §3.5: foreground deletion with no blocking dependent left.
    ForegroundDone,
    /// §4: the owner is being deleted with Orphan propagation.
    Orphan {
        /// The owner being orphaned from.
        owner: ObjId,
    },
    /// §4: all dependents were orphaned.
    OrphanDone,
}

/// One action of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    /// Wave, starting at 1.
    pub wave: u32,
    /// What.
    pub verb: Verb,
    /// On which object.
    pub target: ObjId,
    /// For deletes.
    pub policy: Option<Policy>,
    /// For patches: the owner UIDs removed or unblocked.
    pub owner_refs: Vec<Sym>,
    /// For finalizer removal.
    pub finalizer: Option<Sym>,
    /// Why.
    pub reason: Reason,
    /// Human-readable explanation (which references and why).
    pub detail: String,
}

/// Predicted end state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndState {
    /// Gone.
    Deleted,
    /// Deletion requested but held by these finalizers.
    Terminating {
        /// Remaining finalizers.
        finalizers: Vec<Sym>,
    },
    /// Still there.
    Kept,
}

/// The end state of one object the plan touches or leaves stuck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The object.
    pub target: ObjId,
    /// Its end state.
    pub state: EndState,
    /// UIDs of its remaining ownerReferences when kept.
    pub owner_refs: Vec<Sym>,
    /// Why it is stuck (terminating forever, never collected, unknown), if it is.
    pub why: Option<String>,
}

/// A plan.
#[derive(Debug)]
pub struct Plan {
    /// Actions in wave order.
    pub actions: Vec<Action>,
    /// End states, sorted by target (at most one per object).
    pub outcomes: Vec<Outcome>,
    /// The state after the last wave.
    pub end: State,
    /// Number of waves that had actions.
    pub waves: u32,
    /// True when [`MAX_WAVES`] was hit before a fixpoint.
    pub truncated: bool,
}

/// A delete the user asks to preview (`collect --delete`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserDelete {
    /// The object.
    pub target: ObjId,
    /// The policy sent; `None` = no explicit policy (the type's default, Appendix B).
    pub policy: Option<Policy>,
}

impl Plan {
    /// What the GC will do to the whole snapshot, if it visits every object (Appendix D.6).
    pub fn collect(a: &Analysis<'_>) -> Plan {
        let state = a.initial_state();
        let all: Vec<ObjId> = a.snap.store.ids().collect();
        Simulation::new(a, state).run(all, None)
    }

    /// What a user's delete would remove: the delete itself, then only the GC work it
    /// triggers.
    pub fn preview_delete(a: &Analysis<'_>, delete: UserDelete) -> Plan {
        let state = a.initial_state();
        Simulation::new(a, state).run(Vec::new(), Some(delete))
    }

    /// What the GC does when it processes exactly `worklist` first (e.g. the objects a
    /// restarted GC visits), starting from `state`, and everything that follows from it.
    pub fn from_worklist(a: &Analysis<'_>, state: State, worklist: BTreeSet<ObjId>) -> Plan {
        Simulation::new(a, state).run(worklist.into_iter().collect(), None)
    }

    /// Number of actions per verb.
    pub fn count(&self, verb: Verb) -> usize {
        self.actions.iter().filter(|a| a.verb == verb).count()
    }

    /// Objects deleted, counted by (kind, namespace).
    pub fn deleted_by_kind_namespace(&self, a: &Analysis<'_>) -> BTreeMap<(String, String), usize> {
        let mut out = BTreeMap::new();
        for o in &self.outcomes {
            if o.state == EndState::Deleted {
                let obj = a.snap.store.object(o.target);
                let key = (
                    a.snap.resource_of(obj).kind.clone(),
                    a.snap.store.str(obj.namespace).to_owned(),
                );
                *out.entry(key).or_insert(0) += 1;
            }
        }
        out
    }
}

struct Simulation<'a, 'b> {
    a: &'a Analysis<'b>,
    state: State,
    actions: Vec<Action>,
    /// Per object: an action was applied to it.
    touched: Vec<bool>,
}

/// The objects a wave enqueues: collected in any order, with repeats, then sorted and
/// deduplicated once (cheaper than a `BTreeSet` when the first wave holds every object).
#[derive(Default)]
struct Worklist(Vec<ObjId>);

impl Worklist {
    fn insert(&mut self, id: ObjId) {
        self.0.push(id);
    }

    fn extend(&mut self, ids: impl IntoIterator<Item = ObjId>) {
        self.0.extend(ids);
    }

    /// The ids in ascending order, each once (the order the next wave evaluates them in).
    fn into_sorted(mut self) -> Vec<ObjId> {
        self.0.sort_unstable();
        self.0.dedup();
        self.0
    }
}

impl<'a, 'b> Simulation<'a, 'b> {
    fn new(a: &'a Analysis<'b>, state: State) -> Self {
        Simulation {
            a,
            state,
            actions: Vec::new(),
            touched: vec![false; a.snap.store.len()],
        }
    }

    /// `dirty`: the first wave's objects, ascending and unique.
    fn run(mut self, mut dirty: Vec<ObjId>, user: Option<UserDelete>) -> Plan {
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
        let store = &self.a.snap.store;
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
        let r = self.a.snap.resource_of(store.object(id));
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
        let store = &self.a.snap.store;
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
        let a = self.a;
        let store = &a.snap.store;
        let mut out = Vec::new();
        for &id in dirty {
            if !self.state.exists(id) || !a.graph.monitors(id) {
                continue;
            }
            // attemptToOrphan (§4): strip the owner's UID from every dependent, then the finalizer.
            if self.state.orphaning(store, id) {
                let uid = store.object(id).uid;
                for d in a.current_dependents(&self.state, id) {
                    let detail = format!(
                        "orphaning from {} (being deleted with propagationPolicy=Orphan)",
                        a.snap.describe(id)
                    );
                    out.push(self.action(
                        wave,
                        Verb::RemoveOwnerReferences,
                        d,
                        None,
                        vec![uid],
                        None,
                        Reason::Orphan { owner: id },
                        detail,
                    ));
                }
                let orphan = self.state.orphan_sym();
                out.push(self.action(
                    wave,
                    Verb::RemoveFinalizer,
                    id,
                    None,
                    vec![],
                    Some(orphan),
                    Reason::OrphanDone,
                    "all dependents orphaned".into(),
                ));
                continue;
            }
            match a.decide(&self.state, id) {
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
                        Reason::Row8,
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
                            Reason::Row9CycleGuard,
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
                            Reason::Row9,
                            format!(
                                "no solid owner; owner in foreground deletion and it has dependents: {}",
                                self.describe_refs(id, &refs)
                            ),
                        )
                    } else {
                        (
                            Reason::Row10,
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
        let a = self.a;
        let store = &a.snap.store;
        let mut next = Worklist::default();
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
                        self.removed(id, &mut next);
                    } else {
                        let was_fg = self.state.deleting_dependents(store, id);
                        self.state.start_deletion(id, fins);
                        if self.state.deleting_dependents(store, id) && !was_fg {
                            // §2.7: foreground deletion starts: the object and its dependents.
                            next.insert(id);
                            next.extend(a.current_dependents(&self.state, id));
                        }
                        if self.state.orphaning(store, id) {
                            next.insert(id);
                        }
                    }
                    true
                }
                Verb::RemoveOwnerReferences | Verb::UnblockOwnerReferences => {
                    let refs = self.state.owner_refs(store, id);
                    let mut changed = false;
                    let mut new_refs: Vec<OwnerRef> = Vec::with_capacity(refs.len());
                    for r in refs {
                        if act.owner_refs.contains(&r.uid) {
                            // §2.9: a blocking reference removed or unblocked re-enqueues its owner.
                            if r.blocks()
                                && let Some(owner) =
                                    a.graph.node_of_uid(r.uid).and_then(|n| a.graph.object(n))
                            {
                                next.insert(owner);
                            }
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
                            self.removed(id, &mut next);
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
        next.into_sorted()
    }

    /// The object is gone: §2.2 B4 — its dependents are enqueued, and owners that are
    /// deletingDependents re-check whether they are unblocked.
    fn removed(&mut self, id: ObjId, next: &mut Worklist) {
        let a = self.a;
        let store = &a.snap.store;
        next.extend(a.current_dependents(&self.state, id));
        self.state.remove(id);
        for r in self.state.owner_refs(store, id) {
            if let Some(owner) = a.graph.node_of_uid(r.uid).and_then(|n| a.graph.object(n))
                && self.state.exists(owner)
                && self.state.deleting_dependents(store, owner)
            {
                next.insert(owner);
            }
        }
    }

    fn outcomes(&self) -> Vec<Outcome> {
        let a = self.a;
        let store = &a.snap.store;
        // Touched objects and objects left terminating get an outcome; the others one only
        // when they are stuck.
        let (ids, others): (Vec<ObjId>, Vec<ObjId>) = store.ids().partition(|&id| {
            self.touched[id.index()] || (self.state.exists(id) && self.state.being_deleted(id))
        });
        let mut out = Vec::with_capacity(ids.len());
        for id in others {
            // Without ownerReferences the GC has nothing to fail on (`decide` row 6).
            if self.state.owner_refs(store, id).is_empty() {
                continue;
            }
            // Objects the GC would act on but cannot: stuck.
            if let Verdict::NeverCollected { reason, dropped } = a.decide(&self.state, id) {
                let refs = a.classify(&self.state, id);
                if refs
                    .iter()
                    .any(|c| !matches!(c, super::RefClass::Solid { .. }))
                {
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
                let why = match a.decide(&self.state, id) {
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
        let a = self.a;
        let store = &a.snap.store;
        let fg = self.state.foreground_sym();
        let orphan = self.state.orphan_sym();
        let fins = self.state.finalizers(store, id);
        let mut parts = Vec::new();
        if fins.contains(&fg) {
            let blocking = a.blocking_dependents(&self.state, id);
            let mut names: Vec<String> = blocking.iter().map(|&d| a.snap.describe(d)).collect();
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
