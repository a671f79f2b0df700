//! One finalizer of the object: who removes it, what it waits for now.

use super::{Extras, FinalizerWhy, Holds, NamespaceWhy, refs};
use crate::catalog::finalizers::{self as catalogue, FinalizerKind};
use crate::catalog::managers;
use crate::gc::ObjectRef;
use crate::gc::{GarbageCollector, State};
use crate::model::{ObjId, finalizers};
use crate::namespace::deletion::Outlook;
use crate::snapshot::Snapshot;

/// Objects of the input that look like the controller's workload.
fn controller_workloads(snap: &Snapshot, info: &catalogue::FinalizerInfo) -> Vec<ObjectRef> {
    let Some(w) = &info.workload else {
        return Vec::new();
    };
    let store = &snap.store;
    let mut found = Vec::new();
    for id in store.ids() {
        let o = store.object(id);
        let r = snap.resource_of(o);
        if r.group != "apps"
            || !matches!(r.kind.as_str(), "Deployment" | "StatefulSet" | "DaemonSet")
        {
            continue;
        }
        let ns = store.str(o.namespace);
        let name = store.str(o.name);
        if (w.namespaces.is_empty() || w.namespaces.contains(&ns))
            && w.name_contains.iter().any(|f| name.contains(f))
        {
            found.push(id);
            if found.len() >= 5 {
                break;
            }
        }
    }
    refs(snap, found)
}

pub(super) fn finalizer_why(
    gc: &GarbageCollector<'_>,
    state: &State,
    id: ObjId,
    name: &str,
    extras: &Extras,
    namespace: Option<&NamespaceWhy>,
) -> FinalizerWhy {
    let snap = gc.snap;
    let info = catalogue::lookup(name);
    let owner_kind = match info.map(|i| i.kind) {
        Some(FinalizerKind::GarbageCollector) => "garbage-collector",
        Some(FinalizerKind::ControlPlane) => "control-plane",
        Some(FinalizerKind::Operator) => "operator",
        None => "unknown",
    };
    let terminating = snap.store.object(id).being_deleted();
    let (holds, detail, waiting_for) = if name == finalizers::FOREGROUND {
        let blocking = gc.blocking_dependents(state, id);
        if !terminating {
            (
                Holds::Unknown,
                "set without a deletion in progress: it does nothing until the object is deleted"
                    .to_owned(),
                Vec::new(),
            )
        } else if blocking.is_empty() {
            (
                Holds::No,
                "no dependent with blockOwnerDeletion=true is left: the GC removes it when it \
                 processes the object"
                    .to_owned(),
                Vec::new(),
            )
        } else {
            (
                Holds::Yes,
                format!(
                    "{}{}",
                    if blocking.len() == 1 {
                        "1 dependent with blockOwnerDeletion=true remains".to_owned()
                    } else {
                        format!(
                            "{} dependents with blockOwnerDeletion=true remain",
                            blocking.len()
                        )
                    },
                    chain_text(gc, &blocking, &root_blockers(gc, state, &blocking))
                ),
                refs(snap, blocking),
            )
        }
    } else if name == finalizers::ORPHAN {
        let dependents = gc.current_dependents(state, id);
        if dependents.is_empty() {
            (
                Holds::No,
                "no dependent still references it: the GC removes it when it processes the object"
                    .to_owned(),
                Vec::new(),
            )
        } else {
            (
                Holds::Yes,
                format!(
                    "{} dependent(s) still reference it; the GC patches their ownerReferences \
                     away, then removes the finalizer",
                    dependents.len()
                ),
                refs(snap, dependents),
            )
        }
    } else if name == "kubernetes.io/pvc-protection" {
        match &extras.claim_users {
            None => (
                Holds::Unknown,
                "removed once no pod bound to a node uses the claim — which pods use it is not \
                 in metadata (a live read looks at the namespace's pods)"
                    .to_owned(),
                Vec::new(),
            ),
            Some(users) if users.iter().any(|(_, bound)| *bound) => (
                Holds::Yes,
                format!(
                    "{} pod(s) bound to a node use the claim: {}",
                    users.iter().filter(|(_, b)| *b).count(),
                    users
                        .iter()
                        .filter(|(_, b)| *b)
                        .take(5)
                        .map(|(p, _)| p.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Vec::new(),
            ),
            Some(_) => (
                Holds::No,
                "no pod bound to a node uses the claim: the pvc-protection controller should \
                 remove it"
                    .to_owned(),
                Vec::new(),
            ),
        }
    } else if let Some(ns) = namespace.filter(|_| name == "kubernetes") {
        (
            if ns.outlook == Outlook::Finishes.as_str() {
                Holds::No
            } else {
                Holds::Yes
            },
            format!("the namespace controller's view: {}", ns.outlook),
            Vec::new(),
        )
    } else {
        let detail = match info {
            Some(i) => format!(
                "removed when {} — the input does not show whether that holds now",
                i.removed_when
            ),
            None => match extras.finalizer_managers.get(name) {
                Some(m) if !m.is_empty() && m.iter().all(|m| managers::is_client(m)) => format!(
                    "set by a client ({}): nothing removes it unless a person or a pipeline does",
                    m.join(", ")
                ),
                _ => {
                    "not in kubectl-gc's catalogue: find its controller from who set it".to_owned()
                }
            },
        };
        (Holds::Unknown, detail, Vec::new())
    };
    FinalizerWhy {
        name: name.to_owned(),
        field: "metadata.finalizers",
        controller: info.map_or("unknown finalizer".to_owned(), |i| i.controller.to_owned()),
        owner_kind,
        removed_when: info.map_or(String::new(), |i| i.removed_when.to_owned()),
        holds,
        detail,
        waiting_for,
        set_by: extras
            .finalizer_managers
            .get(name)
            .cloned()
            .unwrap_or_default(),
        controller_found: info.map_or(Vec::new(), |i| controller_workloads(snap, i)),
        leaks: info.map_or(String::new(), |i| i.leaks.to_owned()),
    }
}

/// The objects at the bottom of a foreground chain: following blocking dependents that are
/// themselves in foreground deletion down to those that are not (held by something else).
pub(super) fn root_blockers(
    gc: &GarbageCollector<'_>,
    state: &State,
    blocking: &[ObjId],
) -> Vec<ObjId> {
    let store = &gc.snap.store;
    let mut roots = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<ObjId> = blocking.to_vec();
    while let Some(d) = stack.pop() {
        if !seen.insert(d) || seen.len() > 10_000 {
            continue;
        }
        let next = if store
            .finalizers(d)
            .iter()
            .any(|f| store.str(*f) == finalizers::FOREGROUND)
        {
            gc.blocking_dependents(state, d)
        } else {
            Vec::new()
        };
        if next.is_empty() {
            roots.push(d);
        } else {
            stack.extend(next);
        }
    }
    roots.sort();
    roots.dedup();
    roots
}

/// `: X` or `; at the bottom of the chain: X`, each object at the bottom named with what holds
/// it: the finalizers other than the GC's that keep it Terminating, which nothing in the chain
/// can clear.
fn chain_text(gc: &GarbageCollector<'_>, blocking: &[ObjId], roots: &[ObjId]) -> String {
    let store = &gc.snap.store;
    let held = |r: ObjId| {
        let o = store.object(r);
        let fins: Vec<&str> = store
            .finalizers(r)
            .iter()
            .map(|f| store.str(*f))
            .filter(|f| *f != finalizers::FOREGROUND && *f != finalizers::ORPHAN)
            .collect();
        match (o.being_deleted(), fins.as_slice()) {
            (true, []) => format!("{} (Terminating)", gc.snap.describe(r)),
            (true, f) => format!("{}, held by {}", gc.snap.describe(r), f.join(", ")),
            (false, _) => format!("{} (not being deleted yet)", gc.snap.describe(r)),
        }
    };
    let named: Vec<String> = roots.iter().take(5).map(|&r| held(r)).collect();
    if roots.iter().all(|r| blocking.contains(r)) {
        format!(": {}", named.join("; "))
    } else {
        format!("; at the bottom of the chain: {}", named.join("; "))
    }
}
