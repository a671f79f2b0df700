//! What to do, safest first.

use super::finalizers::root_blockers;
use super::{FinalizerWhy, Holds, NamespaceWhy, RemedyWhy};
use crate::catalog::finalizers as catalogue;
use crate::catalog::managers;
use crate::diagnose::remedy::{self, shell_word};
use crate::diagnose::terminating;
use crate::gc::{GarbageCollector, RefClass, State};
use crate::model::{ObjId, finalizers};

pub(super) fn remedies(
    gc: &GarbageCollector<'_>,
    state: &State,
    id: ObjId,
    finalizers: &[FinalizerWhy],
    namespace: Option<&NamespaceWhy>,
) -> Vec<RemedyWhy> {
    let store = &gc.snap.store;
    // 1. The API or controller first.
    let mut out = namespace.map(namespace_remedies).unwrap_or_default();
    let mut last_resorts = Vec::new();
    // 2. Finalizers: the controller first, the strip last, on this object.
    for f in finalizers.iter().filter(|f| f.holds != Holds::No) {
        if f.name == "kubernetes" && namespace.is_some() {
            continue;
        }
        if f.name == finalizers::FOREGROUND {
            out.extend(foreground_remedies(gc, state, id));
        }
        out.extend(finalizer_remedies(gc, id, f));
        last_resorts.extend(strip_last(gc, state, id, f));
    }
    // A foreground deletion this object holds up: the unblocking patch `audit`'s GC008 offers.
    for owner in blocked_owners(gc, state, id) {
        out.push(why_remedy(terminating::unblock(gc, state, owner, id)));
    }
    // 3. A reference the GC acts on: the catalogue's fix for its kind of break.
    for r in state.owner_refs(store, id) {
        for m in remedy::for_reference(gc, state, id, r) {
            push_new(&mut out, why_remedy(m));
        }
    }
    // 4. Finalizer removals last: each skips the cleanup its finalizer guards.
    out.extend(last_resorts);
    out
}

fn why_remedy(m: remedy::Remedy) -> RemedyWhy {
    RemedyWhy {
        note: m.note,
        command: m.command,
        leaks: String::new(),
    }
}

fn push_new(out: &mut Vec<RemedyWhy>, m: RemedyWhy) {
    if !out
        .iter()
        .any(|x| x.note == m.note && x.command == m.command)
    {
        out.push(m);
    }
}

/// The owners in foreground deletion that `id` holds up (its references to them with
/// `blockOwnerDeletion=true`).
fn blocked_owners(gc: &GarbageCollector<'_>, state: &State, id: ObjId) -> Vec<ObjId> {
    state
        .owner_refs(&gc.snap.store, id)
        .iter()
        .filter(|r| r.blocks())
        .filter_map(|r| match gc.classify_reference(state, id, r) {
            RefClass::Waiting { owner } => Some(owner),
            _ => None,
        })
        .collect()
}

/// What holds a namespace being deleted: the API or the controller to fix.
fn namespace_remedies(ns: &NamespaceWhy) -> Vec<RemedyWhy> {
    let mut out = Vec::new();
    for b in &ns.blockers {
        match b.type_ {
            "discovery-failure" => {
                for a in &b.api_services {
                    let svc = a
                        .service
                        .as_deref()
                        .map(|s| format!(" (its service {s})"))
                        .unwrap_or_default();
                    out.push(RemedyWhy {
                        note: format!(
                            "make APIService {}{svc} available again; or, if that API is no \
                             longer wanted, delete the APIService",
                            a.name
                        ),
                        command: format!("kubectl delete apiservice {}", shell_word(&a.name)),
                        leaks: "objects of that API in the namespace are not deleted by \
                                the namespace controller while it cannot list them"
                            .to_owned(),
                    });
                }
                if b.api_services.is_empty() {
                    out.push(RemedyWhy {
                        note: "find the unavailable APIServices and fix or delete them".to_owned(),
                        command: "kubectl get apiservices | grep -v True".to_owned(),
                        leaks: String::new(),
                    });
                }
            }
            "content-held" => out.push(RemedyWhy {
                note: "run `kubectl gc why` on the objects that hold the namespace, and fix \
                       the controllers that own their finalizers"
                    .to_owned(),
                command: b
                    .objects
                    .first()
                    .map(|o| {
                        format!(
                            "kubectl gc why {} -n {}",
                            shell_word(&format!("{}/{}", o.kind.to_ascii_lowercase(), o.name)),
                            shell_word(&o.namespace)
                        )
                    })
                    .unwrap_or_default(),
                leaks: String::new(),
            }),
            "foreign-spec-finalizers" => out.push(RemedyWhy {
                note: "find who added the foreign spec.finalizers token and let it finish; \
                       only /finalize removes it (never remove `kubernetes` with it)"
                    .to_owned(),
                command: String::new(),
                leaks: String::new(),
            }),
            _ => {}
        }
    }
    out
}

/// A foreground deletion of this object that waits: what holds it at the bottom of the chain,
/// and the patch that stops each root blocker from blocking (as `audit`'s GC008 offers it).
fn foreground_remedies(gc: &GarbageCollector<'_>, state: &State, id: ObjId) -> Vec<RemedyWhy> {
    let snap = gc.snap;
    let blocking = gc.blocking_dependents(state, id);
    let mut out = Vec::new();
    for r in root_blockers(gc, state, &blocking).into_iter().take(3) {
        out.push(RemedyWhy {
            note: format!(
                "find out what holds {}, at the bottom of the foreground chain",
                snap.describe(r)
            ),
            command: format!("kubectl gc why {}", remedy::kubectl_target(snap, r)),
            leaks: String::new(),
        });
        for owner in blocked_owners(gc, state, r) {
            out.push(why_remedy(terminating::unblock(gc, state, owner, r)));
        }
    }
    out
}

/// Who removes finalizer `f`, and what to check.
fn finalizer_remedies(gc: &GarbageCollector<'_>, id: ObjId, f: &FinalizerWhy) -> Vec<RemedyWhy> {
    let note = |note: String| RemedyWhy {
        note,
        command: String::new(),
        leaks: String::new(),
    };
    if let Some(i) = catalogue::lookup(&f.name) {
        return vec![note(format!("{}: {}", f.name, i.remedy))];
    }
    if f.set_by.is_empty() {
        return vec![RemedyWhy {
            command: format!(
                "kubectl get {} --show-managed-fields -o jsonpath='{{.metadata.managedFields[*].manager}}'",
                remedy::kubectl_target(gc.snap, id)
            ),
            ..note(format!(
                "find the controller that set {} (the field managers of the object) and why it \
                 has not removed it",
                f.name
            ))
        }];
    }
    let (clients, controllers) = set_by(f);
    let mut out = Vec::new();
    if !controllers.is_empty() {
        out.push(note(format!(
            "{} was set by {}: check that it runs and why it has not removed it",
            f.name,
            controllers.join(", ")
        )));
    }
    if !clients.is_empty() {
        out.push(note(format!(
            "{} was set by a client ({}): nothing removes it unless a person or a pipeline \
             does; find who applied it, and remove it once what it protects is done with",
            f.name,
            clients.join(", ")
        )));
    }
    out
}

/// The field managers that set `f`: clients (kubectl, …) and controllers.
fn set_by(f: &FinalizerWhy) -> (Vec<&str>, Vec<&str>) {
    f.set_by
        .iter()
        .map(String::as_str)
        .partition(|m| managers::is_client(m))
}

/// The last resort for a finalizer of an object being deleted: its removal, guarded.
fn strip_last(
    gc: &GarbageCollector<'_>,
    state: &State,
    id: ObjId,
    f: &FinalizerWhy,
) -> Option<RemedyWhy> {
    if !terminating_and_gc_free(gc, id, &f.name) {
        return None;
    }
    let store = &gc.snap.store;
    let sym = store
        .finalizers(id)
        .iter()
        .copied()
        .find(|s| store.str(*s) == f.name)?;
    // The patch guards the finalizer's place in the list as read; removing another one first
    // shifts it, and the guard then refuses the patch.
    let shifts = if store.finalizers(id).len() > 1 {
        " (one at a time: after another removal, run why again for its new place)"
    } else {
        ""
    };
    // Who could still finish it: a catalogued controller; for a finalizer only clients set,
    // nobody but a person (NC4: no controller to wait for).
    let (clients, controllers) = set_by(f);
    let once = if f.owner_kind != "unknown" {
        format!("once {} cannot finish", f.controller)
    } else if !clients.is_empty() && controllers.is_empty() {
        "once what it protects is done with".to_owned()
    } else {
        "once the controller that set it cannot finish".to_owned()
    };
    Some(RemedyWhy {
        note: format!(
            "last resort, {once}: remove {} from this object only{shifts}",
            f.name
        ),
        command: remedy::remove_finalizer(gc.snap, state, id, sym),
        leaks: if f.leaks.is_empty() {
            "whatever cleanup the finalizer guards is skipped".to_owned()
        } else {
            f.leaks.clone()
        },
    })
}

/// Finalizers the GC manages are never stripped by a remedy: the GC removes them.
fn terminating_and_gc_free(gc: &GarbageCollector<'_>, id: ObjId, name: &str) -> bool {
    gc.snap.store.object(id).being_deleted()
        && name != finalizers::FOREGROUND
        && name != finalizers::ORPHAN
}

#[cfg(test)]
mod tests {
    use crate::catalog::KubeVersion;
    use crate::diagnose::why::{Extras, why};
    use crate::gc::GarbageCollector;
    use crate::testkit::Cluster;

    /// The notes `why` gives a terminating ConfigMap held by `example.com/protect`, set by
    /// `managers`.
    fn notes(managers: &[&str]) -> Vec<String> {
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "shop", "locked", "locked-uid")
            .finalizers(&["example.com/protect"])
            .deleting();
        let s = c.build();
        let gc = GarbageCollector::new(&s, KubeVersion::v1(30));
        let id = s.store.ids().next().unwrap();
        let mut extras = Extras {
            read: true,
            ..Extras::default()
        };
        extras.finalizer_managers.insert(
            "example.com/protect".into(),
            managers.iter().map(|m| m.to_string()).collect(),
        );
        let analysis = crate::diagnose::analysis::Analysis::new(&gc);
        why(&gc, &analysis, id, &extras)
            .remedies
            .into_iter()
            .map(|r| r.note)
            .collect()
    }

    #[test]
    fn a_finalizer_set_by_a_client_is_said_to_be_a_clients_not_a_controllers() {
        // W5: kubectl is a field manager, not a controller that runs.
        let n = notes(&["kubectl-client-side-apply"]);
        assert!(
            n.iter()
                .any(|x| x.contains("set by a client (kubectl-client-side-apply): nothing removes it unless a person or a pipeline does")),
            "{n:?}"
        );
        assert!(n.iter().all(|x| !x.contains("check that it runs")), "{n:?}");
        // NC4: no controller to wait for, so none is named in the last resort either.
        assert!(
            n.last()
                .unwrap()
                .starts_with("last resort, once what it protects is done with: remove"),
            "{n:?}"
        );
        assert!(n.iter().all(|x| !x.contains("controller")), "{n:?}");
        // A GitOps controller is a controller.
        let n = notes(&["argocd-application-controller"]);
        assert!(
            n.iter()
                .any(|x| x.contains("set by argocd-application-controller: check that it runs")),
            "{n:?}"
        );
        assert!(n.iter().all(|x| !x.contains("set by a client")), "{n:?}");
        // The finalizer's removal stays last either way.
        assert!(n.last().unwrap().starts_with("last resort"), "{n:?}");
    }
}
