//! The API server's side of every request (Appendix B): what a DELETE with a propagation
//! policy leaves (finalizers added, Events that never get GC finalizers, namespaces that stay
//! terminating), the patches, the informer event each change feeds back to the graph builder,
//! the namespace controller emptying a terminating namespace, and the policy a delete without
//! options gets.

use super::{Item, Sim};
use crate::gc::attempt_to_delete::Policy;
use crate::gc::graph_builder::OldMeta;
use crate::gc::plan::{Action, UserDelete, Verb};
use crate::model::{ObjId, Sym};
use crate::namespace::deletion::{self, Blocker};
use hashbrown::HashMap;

impl Sim<'_, '_> {
    pub(super) fn apply_writes(&mut self, items: &mut [Item], writes: Vec<(usize, Action)>) {
        for (i, mut a) in writes {
            a.wave = self.step;
            self.chain = items[i].chain;
            self.item = items[i].id;
            if self.apply(a) {
                items[i].wrote = true;
            }
            self.item = 0;
        }
    }

    /// The API server's side of one request (Appendix B); events for the graph builder.
    /// Returns whether it changed anything.
    pub(super) fn apply(&mut self, act: Action) -> bool {
        let store = self.store();
        let id = act.target;
        if !self.state.exists(id) {
            return false; // 404
        }
        let old = OldMeta {
            refs: self.state.owner_refs(store, id).to_vec(),
            being_deleted: self.state.being_deleted(id),
            finalizers: self.state.finalizers(store, id).to_vec(),
        };
        let changed = match act.verb {
            Verb::Delete => self.api_delete(id, act.policy),
            Verb::RemoveOwnerReferences | Verb::UnblockOwnerReferences => {
                let mut new_refs = Vec::with_capacity(old.refs.len());
                let mut changed = false;
                for r in &old.refs {
                    if act.owner_refs.contains(&r.uid) {
                        if act.verb == Verb::UnblockOwnerReferences {
                            let mut r = *r;
                            changed |= r.block_owner_deletion != Some(false);
                            r.block_owner_deletion = Some(false);
                            new_refs.push(r);
                        } else {
                            changed = true;
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
                let fins: Vec<Sym> = old.finalizers.iter().copied().filter(|x| *x != f).collect();
                let changed = fins.len() != old.finalizers.len();
                if changed {
                    // A namespace also waits for its `spec.finalizers`: the namespace
                    // controller's `kubernetes` token, removed only once it has emptied the
                    // namespace (`namespace_controller`), whatever policy the DELETE had.
                    let spec_held =
                        self.is_namespace(id) && !self.finalized_namespaces.contains(&id);
                    if fins.is_empty() && self.state.being_deleted(id) && !spec_held {
                        self.state.set_finalizers(id, fins);
                        self.state.remove(id);
                    } else {
                        self.state.set_finalizers(id, fins);
                    }
                }
                changed
            }
        };
        if !changed {
            return false;
        }
        self.writes_total += 1;
        self.touched[id.index()] = true;
        self.write_log.push((id, self.chain, self.step, self.item));
        if !old.being_deleted && self.state.being_deleted(id) {
            self.terminating_log.push((id, self.step));
        }
        if self.trace {
            tracing::trace!(
                "step {} applied {:?} on {:?}",
                self.step,
                act.verb,
                store.str(store.object(id).name)
            );
        }
        self.actions.push(act);
        self.event(id, &old);
        true
    }

    /// The informer event a change causes (monitored objects only).
    fn event(&mut self, id: ObjId, old: &OldMeta) {
        let gc = self.gc;
        if self.is_namespace(id)
            && self.state.exists(id)
            && self.state.being_deleted(id)
            && !self.terminating_namespaces.contains(&id)
        {
            self.terminating_namespaces.push(id);
        }
        if !gc.graph.monitors(id) || !self.in_scope(id) {
            return;
        }
        self.graph.chain = self.chain;
        if self.state.exists(id) {
            self.graph.update(gc, &self.state, id, old);
        } else {
            self.graph.delete(gc, &self.state, id);
        }
    }

    /// DELETE with a propagation policy: which finalizers the object ends with (Appendix B).
    fn api_delete(&mut self, id: ObjId, policy: Option<Policy>) -> bool {
        let store = self.store();
        let (fg, orphan) = (self.state.foreground_sym(), self.state.orphan_sym());
        let current = self.state.finalizers(store, id).to_vec();
        let mut fins: Vec<Sym> = current
            .iter()
            .copied()
            .filter(|f| *f != fg && *f != orphan)
            .collect();
        let r = self.gc.snap.resource_of(store.object(id));
        let is_event = r.plural == "events" && (r.group.is_empty() || r.group == "events.k8s.io");
        if self.is_namespace(id) {
            // The namespace registry's `Delete` (pkg/registry/core/namespace/storage): never
            // removed at once while `spec.finalizers` holds `kubernetes`; the namespace
            // controller (`namespacedResourcesDeleter`) empties it first (issue 14 case 7).
            match policy {
                Some(Policy::Orphan) => fins.push(orphan),
                Some(Policy::Foreground) => fins.push(fg),
                Some(Policy::Background) => {}
                None => fins = current.clone(),
            }
            let was = self.state.being_deleted(id);
            if was && fins == current {
                return false;
            }
            self.state.start_deletion(id, fins);
            return true;
        }
        if !is_event {
            // Events' delete strategy is `rest.Unsupported` (`BeforeDelete` in the generic
            // registry then adds no GC finalizer whatever the policy, issue 14 case 6).
            match policy {
                Some(Policy::Orphan) => fins.push(orphan),
                Some(Policy::Foreground) => fins.push(fg),
                _ => {}
            }
        }
        if fins.is_empty() {
            self.state.set_finalizers(id, fins);
            self.state.remove(id);
            return true;
        }
        if self.state.being_deleted(id) && fins == current {
            return false;
        }
        self.state.start_deletion(id, fins);
        true
    }

    fn is_pod(&self, id: ObjId) -> bool {
        let r = self.gc.snap.resource_of(self.store().object(id));
        r.group.is_empty() && r.plural == "pods"
    }

    fn is_namespace(&self, id: ObjId) -> bool {
        let r = self.gc.snap.resource_of(self.store().object(id));
        r.group.is_empty() && r.plural == "namespaces"
    }

    /// The namespace controller (Appendix B): deletes everything in a terminating namespace,
    /// then lets the namespace go. Returns whether it changed anything.
    pub(super) fn namespace_controller(&mut self) -> bool {
        if self.terminating_namespaces.is_empty() {
            return false;
        }
        let store = self.store();
        if self.ns_index.is_none() {
            let mut idx: HashMap<Sym, Vec<ObjId>> = HashMap::new();
            for id in store.ids() {
                let ns = store.object(id).namespace;
                if !ns.is_empty() {
                    idx.entry(ns).or_default().push(id);
                }
            }
            self.ns_index = Some(idx);
        }
        let mut changed = false;
        let namespaces = self.terminating_namespaces.clone();
        for ns_obj in namespaces {
            if !self.state.exists(ns_obj) {
                self.terminating_namespaces.retain(|&n| n != ns_obj);
                continue;
            }
            let name = store.object(ns_obj).name;
            let content: Vec<ObjId> = self
                .ns_index
                .as_ref()
                .and_then(|i| i.get(&name))
                .map(|v| {
                    v.iter()
                        .copied()
                        .filter(|&o| self.state.exists(o))
                        .collect()
                })
                .unwrap_or_default();
            // 1.33+ (OrderedNamespaceDeletion): while a pod remains, only pods are deleted.
            let pods_first = self.gc.rules.version >= deletion::ORDERED_NAMESPACE_DELETION
                && content.iter().any(|&o| self.is_pod(o));
            for o in &content {
                let old = OldMeta {
                    refs: self.state.owner_refs(store, *o).to_vec(),
                    being_deleted: self.state.being_deleted(*o),
                    finalizers: self.state.finalizers(store, *o).to_vec(),
                };
                if self.state.being_deleted(*o) || (pods_first && !self.is_pod(*o)) {
                    continue;
                }
                if self.api_delete(*o, Some(Policy::Background)) {
                    changed = true;
                    self.writes_total += 1;
                    self.touched[o.index()] = true;
                    self.by_namespace_controller.insert(*o);
                    self.event(*o, &old);
                }
            }
            if content.is_empty() {
                // Emptied: the `kubernetes` token goes unless something holds it for good (a
                // failed discovery, a foreign token, content that was not read, §10.2); the
                // GC's finalizers may remain.
                let holds = removal_holds(self.gc.snap, store.str(name));
                if !holds.is_empty() {
                    self.namespace_holds.insert(ns_obj, holds);
                    self.terminating_namespaces.retain(|&n| n != ns_obj);
                    continue;
                }
                self.finalized_namespaces.insert(ns_obj);
                let old = OldMeta {
                    refs: self.state.owner_refs(store, ns_obj).to_vec(),
                    being_deleted: true,
                    finalizers: self.state.finalizers(store, ns_obj).to_vec(),
                };
                if self.state.finalizers(store, ns_obj).is_empty() {
                    self.state.remove(ns_obj);
                    self.writes_total += 1;
                    self.touched[ns_obj.index()] = true;
                    self.event(ns_obj, &old);
                    changed = true;
                }
                self.terminating_namespaces.retain(|&n| n != ns_obj);
            }
        }
        changed
    }

    pub(super) fn user_policy(&self, u: UserDelete) -> (Policy, String) {
        match u.policy {
            Some(p) => (
                p,
                format!("requested: delete with propagationPolicy={}", p.as_str()),
            ),
            None => {
                let (p, source) = self.implicit_policy(u.target);
                (
                    p,
                    format!(
                        "requested: delete without a propagation policy ({source}: {})",
                        p.as_str()
                    ),
                )
            }
        }
    }

    /// The policy the API server applies to a delete without options (Appendix B,
    /// `shouldOrphanDependents`/`shouldDeleteDependents`): an `orphan` or `foregroundDeletion`
    /// finalizer already on the object decides (the first of the two in list order); else the
    /// type default — RC, Job, CronJob (and old workload versions) orphan, the rest background.
    fn implicit_policy(&self, id: ObjId) -> (Policy, &'static str) {
        let (fg, orphan) = (self.state.foreground_sym(), self.state.orphan_sym());
        let store = self.store();
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
}

/// What keeps an emptied namespace's `kubernetes` token for good, in words (empty: nothing):
/// the namespace controller's blockers that do not depend on the content the run deletes.
/// A `spec.finalizers` that was not read does not hold it here (metadata-only inputs would
/// otherwise keep every namespace); `why` reports it.
pub(crate) fn removal_holds(snap: &crate::snapshot::Snapshot, namespace: &str) -> String {
    deletion::static_holds(snap, namespace)
        .iter()
        .filter_map(|b| match b {
            Blocker::DiscoveryFailure {
                group_versions,
                observed,
                discovery_read,
            } => Some(match (group_versions.is_empty(), observed) {
                (true, Some(_)) if *discovery_read => return None,
                (false, _) => format!(
                    "discovery failed for {}: the namespace controller never removes its \
                     `kubernetes` finalizer while any group-version fails",
                    group_versions
                        .iter()
                        .map(|(gv, _)| gv.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                (true, Some(m)) => format!(
                    "the namespace controller reports a discovery failure ({m}): it never \
                     removes its `kubernetes` finalizer while any group-version fails"
                ),
                (true, None) => return None,
            }),
            Blocker::ForeignSpecFinalizers(tokens) => Some(format!(
                "spec.finalizers holds {}: only a /finalize call removes it",
                tokens.join(", ")
            )),
            Blocker::ContentUnknown(resources) => Some(format!(
                "unknown: its content in {} resource(s) was not read ({}{})",
                resources.len(),
                resources
                    .iter()
                    .take(3)
                    .map(|(r, _)| r.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                if resources.len() > 3 { ", …" } else { "" }
            )),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("; ")
}
