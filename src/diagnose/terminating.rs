//! Findings about deletions in progress: foreground deletions that cannot finish (GC008),
//! `orphan` finalizers pending or stuck (GC009), objects held by finalizers the GC does not
//! manage (GC013). Ages come from the snapshot's capture time.

use super::code::{Code, Severity};
use super::finding::Finding;
use super::remedy;
use crate::gc::{EndState, GarbageCollector, Plan, State, Verdict};
use crate::model::ObjId;
use crate::snapshot::parse_rfc3339;
use crate::util::human_duration;
use std::collections::BTreeSet;
use std::time::Duration;

/// How long a GC-managed finalizer may sit before we call the GC "not progressing".
const GC_STALL_SECS: i64 = 5 * 60;
/// How long a terminating object may wait on foreign finalizers before a warning.
const FINALIZER_STALL_SECS: i64 = 60 * 60;

/// Seconds the object has been terminating at capture time.
fn terminating_for(gc: &GarbageCollector<'_>, id: ObjId) -> Option<i64> {
    let store = &gc.snap.store;
    let since = parse_rfc3339(store.str(store.object(id).deletion_timestamp))?;
    let now = parse_rfc3339(&gc.snap.provenance.captured_at)?;
    Some(now - since)
}

/// GC008, GC009 and GC013 for every object terminating in the snapshot.
pub(super) fn findings(
    gc: &GarbageCollector<'_>,
    state: &State,
    plan: &Plan,
    out: &mut Vec<Finding>,
) {
    let store = &gc.snap.store;
    let fg = state.foreground_sym();
    let orphan = state.orphan_sym();
    for id in store.ids() {
        if !state.being_deleted(id) {
            continue;
        }
        let in_graph = gc.graph.monitors(id);
        let fins = store.finalizers(id);
        let age = terminating_for(gc, id);
        let stalled = age.is_some_and(|a| a > GC_STALL_SECS);
        // " for 3d4h", or nothing when the snapshot has no capture time.
        let for_age = age
            .map(|a| {
                format!(
                    " for {}",
                    human_duration(Duration::from_secs(a.max(0) as u64))
                )
            })
            .unwrap_or_default();
        // Foreground deletion that the simulation cannot finish: the chain to the root blockers.
        if fins.contains(&fg) {
            // Outcomes are sorted by target, one per object.
            let end = plan
                .outcomes
                .binary_search_by_key(&id, |o| o.target)
                .ok()
                .map(|i| &plan.outcomes[i]);
            let stuck = matches!(end.map(|o| &o.state), Some(EndState::Terminating { finalizers }) if finalizers.contains(&fg));
            if stuck {
                out.push(blocked_foreground(gc, plan, id));
            } else if !in_graph || stalled {
                out.push(Finding::new(
                    Code::BlockedForegroundDeletion,
                    Severity::Warning,
                    id,
                    if in_graph {
                        "nothing blocks it: the GC should already have finished this deletion".into()
                    } else {
                        "the GC does not watch this resource and never removes foregroundDeletion".into()
                    },
                    format!("in foreground deletion{for_age}"),
                )
                .with_remedies(vec![remedy::Remedy::run(
                    format!(
                        "compare with the GC's own view of the object: kube-controller-manager \
                         serves it at /debug/controllers/garbagecollector/graph?uid={} on its \
                         secure port (not through the API server)",
                        store.str(store.object(id).uid)
                    ),
                    "",
                )]));
            }
        }
        if fins.contains(&orphan) {
            let deps = gc.current_dependents(state, id).len();
            let (severity, consequence) = if !in_graph {
                (
                    Severity::Error,
                    "the GC does not watch this resource: the orphan finalizer is never removed"
                        .to_owned(),
                )
            } else if stalled {
                (
                    Severity::Warning,
                    format!(
                        "the GC should already have orphaned {deps} dependent(s) and removed the finalizer: check that it is running"
                    ),
                )
            } else {
                (
                    Severity::Info,
                    format!(
                        "the GC will strip this object's UID from {deps} dependent(s), then remove the finalizer"
                    ),
                )
            };
            out.push(Finding::new(
                Code::OrphanFinalizer,
                severity,
                id,
                consequence,
                format!("terminating with the orphan finalizer{for_age}"),
            ));
        }
        let foreign: Vec<&str> = fins
            .iter()
            .filter(|f| **f != fg && **f != orphan)
            .map(|f| store.str(*f))
            .collect();
        if !foreign.is_empty() {
            let long = age.is_some_and(|a| a > FINALIZER_STALL_SECS);
            out.push(Finding::new(
                Code::TerminatingHeldByFinalizer,
                if long { Severity::Warning } else { Severity::Info },
                id,
                "the GC cannot finish this deletion: the controller owning the finalizer must remove it".into(),
                format!(
                    "terminating{for_age}, held by finalizer(s) {}",
                    foreign.join(", ")
                ),
            ));
        }
    }
}

/// The unblocking move of a foreground deletion that `blocker` holds up: its reference to
/// `owner` set to `blockOwnerDeletion=false` (GC008's, and `why`'s on any object of the chain).
pub fn unblock(
    gc: &GarbageCollector<'_>,
    state: &State,
    owner: ObjId,
    blocker: ObjId,
) -> remedy::Remedy {
    let (b_name, owner_name) = (gc.snap.describe(blocker), gc.snap.describe(owner));
    remedy::Remedy {
        note: format!(
            "let {owner_name} finish now: {b_name} stops blocking it and {}",
            if state.being_deleted(blocker) {
                "still goes once its own finalizers do"
            } else {
                "is then collected as its dependent, in the background"
            }
        ),
        command: remedy::unblock_ref(gc.snap, state, blocker, gc.snap.store.object(owner).uid),
        manifest: String::new(),
    }
}

/// GC008 for an owner whose foreground deletion cannot finish: walks blocking dependents
/// down to the root blockers and offers the three unblocking moves of the GC's logic.
fn blocked_foreground(gc: &GarbageCollector<'_>, plan: &Plan, id: ObjId) -> Finding {
    let end = &plan.end;
    let store = &gc.snap.store;
    let mut chain = Vec::new();
    let mut roots = Vec::new();
    let mut seen = BTreeSet::new();
    let mut stack = vec![id];
    while let Some(cur) = stack.pop() {
        if !seen.insert(cur) {
            continue;
        }
        for b in gc.blocking_dependents(end, cur) {
            if seen.contains(&b) {
                continue;
            }
            chain.push(b);
            if end.deleting_dependents(store, b) && !gc.blocking_dependents(end, b).is_empty() {
                stack.push(b);
            } else {
                roots.push((cur, b));
            }
        }
    }
    let mut remedies = Vec::new();
    let mut why = Vec::new();
    let mut noted = BTreeSet::new();
    for &(owner, b) in &roots {
        let owner_uid = store.object(owner).uid;
        let reason = if end.being_deleted(b) {
            let fins: Vec<&str> = end
                .finalizers(store, b)
                .iter()
                .map(|f| store.str(*f))
                .collect();
            format!(
                "{} is terminating, held by {}",
                gc.snap.describe(b),
                fins.join(", ")
            )
        } else {
            match gc.attempt_to_delete_item(end, b) {
                Verdict::NeverCollected { reason, .. } => {
                    format!("{} is never collected: {reason}", gc.snap.describe(b))
                }
                Verdict::Unknown { reason } => {
                    format!("{} cannot be evaluated: {reason}", gc.snap.describe(b))
                }
                Verdict::NotMonitored => {
                    format!("{} is not monitored by the GC", gc.snap.describe(b))
                }
                other => format!("{} is kept ({})", gc.snap.describe(b), other.label()),
            }
        };
        why.push(reason);
        let (b_name, owner_name) = (gc.snap.describe(b), gc.snap.describe(owner));
        if end.being_deleted(b) && noted.insert(b) {
            remedies.push(remedy::finish_deletion(gc, end, b));
        }
        remedies.push(unblock(gc, end, owner, b));
        if !end.being_deleted(b) {
            remedies.push(remedy::Remedy {
                note: format!(
                    "keep {b_name}: remove its reference to {owner_name}, so it neither blocks \
                     nor goes with it"
                ),
                command: remedy::remove_ref(gc.snap, end, b, owner_uid),
                manifest: String::new(),
            });
            remedies.push(remedy::Remedy {
                note: format!("delete {b_name} now, as the foreground deletion means to"),
                command: format!("kubectl delete {}", remedy::kubectl_target(gc.snap, b)),
                manifest: String::new(),
            });
        }
    }
    // Last, once per blocker: stripping its finalizers skips the cleanup they guard. The test
    // op makes the patch fail if they changed since.
    let mut stripped = BTreeSet::new();
    for &(_, b) in &roots {
        if end.being_deleted(b) && stripped.insert(b) && !end.finalizers(store, b).is_empty() {
            remedies.push(remedy::Remedy {
                note: format!(
                    "last resort, once the controllers that own them cannot finish: remove the \
                     finalizers of {} (the cleanup they guard is skipped)",
                    gc.snap.describe(b)
                ),
                command: remedy::remove_finalizers(gc.snap, end, b),
                manifest: String::new(),
            });
        }
    }
    Finding::new(
        Code::BlockedForegroundDeletion,
        Severity::Error,
        id,
        "the GC keeps this object in foreground deletion until every blocking dependent is gone"
            .into(),
        if why.is_empty() {
            "foreground deletion cannot finish".into()
        } else {
            format!("foreground deletion blocked: {}", why.join("; "))
        },
    )
    .with_related(chain)
    .with_remedies(remedies)
}

/// GC023 for every namespace being deleted that the namespace controller cannot finish: held
/// for good (a failed discovery, a foreign `spec.finalizers` token) or by content that carries
/// finalizers (docs/gc-model.md §10). A namespace whose content or spec was not read, and
/// nothing else, is left out: its fate is unknown, not stuck.
pub(super) fn stuck_namespaces(gc: &GarbageCollector<'_>, out: &mut Vec<Finding>) {
    use crate::namespace::deletion::{self, Blocker, Outlook};
    let snap = gc.snap;
    let store = &snap.store;
    let terminating: Vec<ObjId> = store
        .ids()
        .filter(|&id| {
            let o = store.object(id);
            let r = snap.resource_of(o);
            o.being_deleted() && r.group.is_empty() && r.kind == "Namespace"
        })
        .collect();
    if terminating.is_empty() {
        return;
    }
    let index = deletion::content_index(snap);
    for id in terminating {
        let name = store.object(id).name;
        let content = index.get(&name).map_or(&[][..], Vec::as_slice);
        let d = deletion::evaluate(snap, id, content, gc.rules.version);
        let decisive: Vec<&Blocker> = d
            .blockers
            .iter()
            .filter(|b| {
                match b {
                    // A failure only the controller's last pass saw, which discovery no longer
                    // shows, is about to clear.
                    Blocker::DiscoveryFailure {
                        group_versions,
                        discovery_read,
                        ..
                    } => !(group_versions.is_empty() && *discovery_read),
                    Blocker::ForeignSpecFinalizers(_)
                    | Blocker::ContentHeld(_)
                    | Blocker::ControllerFailure(_) => true,
                    _ => false,
                }
            })
            .collect();
        if decisive.is_empty() {
            continue;
        }
        let severity = if d.outlook == Outlook::Stuck {
            Severity::Error
        } else {
            Severity::Warning
        };
        let age = terminating_for(gc, id)
            .map(|a| {
                format!(
                    " for {}",
                    human_duration(Duration::from_secs(a.max(0) as u64))
                )
            })
            .unwrap_or_default();
        let what: Vec<String> = decisive
            .iter()
            .map(|b| match b {
                Blocker::DiscoveryFailure { group_versions, .. } if !group_versions.is_empty() => {
                    format!(
                        "discovery fails for {}",
                        group_versions
                            .iter()
                            .map(|(g, _)| g.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
                Blocker::DiscoveryFailure { .. } => {
                    "its status reports a discovery failure".to_owned()
                }
                Blocker::ForeignSpecFinalizers(t) => {
                    format!("spec.finalizers holds {}", t.join(", "))
                }
                Blocker::ContentHeld(groups) => format!(
                    "content held by {}",
                    groups
                        .iter()
                        .map(|g| format!("{} ({} object(s))", g.finalizer, g.objects.len()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Blocker::ControllerFailure(c) => format!("{}: {}", c.type_, c.message),
                _ => String::new(),
            })
            .collect();
        let consequence = if d.outlook == Outlook::Stuck {
            "the namespace controller never finishes this namespace by itself".to_owned()
        } else {
            "the namespace stays until the controllers owning those finalizers remove them"
                .to_owned()
        };
        out.push(
            Finding::new(
                Code::StuckNamespace,
                severity,
                id,
                consequence,
                format!("terminating{age}: {}", what.join("; ")),
            )
            .with_remedies(vec![remedy::Remedy::run(
                "ask what holds each object and finalizer of the namespace",
                format!(
                    "kubectl gc why {}",
                    remedy::shell_word(&format!("namespace/{}", store.str(name)))
                ),
            )]),
        );
    }
}
