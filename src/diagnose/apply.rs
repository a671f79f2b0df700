//! `kubectl gc check apply`: what the GC does to objects once they are created in a target
//! cluster — manifests, `kubectl get -o yaml` exports, Velero backups applied or restored.
//!
//! ownerReferences carry UIDs, and every object created anew gets a new UID. So the question
//! is answered by building the cluster as it will be right after the apply — the target's
//! objects, plus every input object, created with a new UID unless the target already has it
//! (same group, kind, namespace and name: then it is an update and keeps the target's UID, with
//! the input's references) — and running the audit on it: what the GC does to the created
//! objects is what it does in that cluster. A reference whose UID only the source cluster had is
//! dangling there (deleted at once once no owner is solid); cross-namespace owners,
//! cluster-scoped dependents of namespaced kinds and unserved owner kinds are found as usual.
//!
//! `--restorer velero` applies Velero's own rules instead: every ownerReference is stripped,
//! and nodes, events, completed pods and jobs are not restored — so nothing is deleted, and the
//! finding is what ends up orphaned (children the GC will never collect with their owners).

use super::code::{Code, Severity};
use super::finding::Finding;
use crate::model::{MetaIn, ObjId, OwnerRefIn, Store, Sym};
use crate::snapshot::{ListOutcome, Snapshot, SnapshotBuilder};
use std::borrow::Cow;
use std::collections::HashMap;

/// How the input is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restorer {
    /// As `kubectl apply` / `kubectl create` / a GitOps tool: ownerReferences kept as written.
    Apply,
    /// As Velero restores: ownerReferences stripped; nodes, events, completed pods and jobs
    /// not restored.
    Velero,
}

/// The cluster right after the apply, and which of its objects came from the input.
pub struct Applied {
    /// Target plus input.
    pub snapshot: Snapshot,
    /// Per object of `snapshot`: created or updated from the input.
    pub from_input: Vec<bool>,
    /// Input objects Velero does not restore (kind, namespace/name), with the reason.
    pub not_restored: Vec<(String, String)>,
    /// Input objects whose references were stripped (Velero), each with the owners they named.
    pub stripped: Vec<(ObjId, Vec<String>)>,
}

/// The metadata of a stored object, borrowing the store's strings.
fn meta_of(store: &Store, id: ObjId) -> MetaIn<'_> {
    let s = |sym: Sym| Cow::Borrowed(store.str(sym));
    let o = store.object(id);
    MetaIn {
        namespace: s(o.namespace),
        name: s(o.name),
        uid: s(o.uid),
        resource_version: s(o.resource_version),
        creation_timestamp: s(o.creation_timestamp),
        deletion_timestamp: o.being_deleted().then(|| s(o.deletion_timestamp)),
        finalizers: store.finalizers(id).iter().map(|&f| s(f)).collect(),
        labels: Default::default(),
        owner_references: store
            .owner_refs(id)
            .iter()
            .map(|r| OwnerRefIn {
                api_version: s(r.api_version),
                kind: s(r.kind),
                name: s(r.name),
                uid: s(r.uid),
                controller: r.controller,
                block_owner_deletion: r.block_owner_deletion,
            })
            .collect(),
        ignore: (!o.ignore.is_empty()).then(|| s(o.ignore)),
    }
}

/// Why Velero does not restore an input object, if it does not. (It also skips completed pods
/// and jobs, which metadata cannot tell from running ones: those are kept, and so predicted
/// as if restored.)
fn velero_skips(kind: &str, group: &str) -> Option<&'static str> {
    match (group, kind) {
        ("", "Node") => Some("Velero never restores nodes"),
        ("", "Event") | ("events.k8s.io", "Event") => Some("Velero never restores events"),
        _ => None,
    }
}

/// The cluster right after `input` is created in `target` (`None`: an empty, new cluster of
/// the same served kinds), the way `restorer` creates objects.
pub fn apply(target: Option<&Snapshot>, input: &Snapshot, restorer: Restorer) -> Applied {
    let provenance = target.map_or_else(|| input.provenance.clone(), |t| t.provenance.clone());
    let mut b = SnapshotBuilder::new(provenance);
    let empty = target.is_none();
    // The resource table: the target's, then the input's kinds it lacks. An empty target holds
    // nothing of any kind: every row is complete.
    for r in target.map_or(&[][..], |t| &t.resources[..]) {
        b.add_resource(r.clone());
    }
    for r in &input.resources {
        if b.find_resource(&r.group, &r.version, &r.kind).is_none() {
            let mut r = r.clone();
            if empty {
                r.list = match r.list {
                    ListOutcome::Ignored { reason } => ListOutcome::Ignored { reason },
                    _ => ListOutcome::Complete,
                };
            }
            b.add_resource(r);
        }
    }
    // The target's objects, keyed by what an apply matches on.
    let mut existing: HashMap<(String, String, String, String), String> = HashMap::new();
    let mut from_input = Vec::new();
    if let Some(t) = target {
        for id in t.store.ids() {
            let o = t.store.object(id);
            let r = t.resource_of(o);
            let rid = b
                .find_resource(&r.group, &r.version, &r.kind)
                .expect("the target's row was added");
            existing.insert(
                (
                    r.group.clone(),
                    r.kind.clone(),
                    t.store.str(o.namespace).to_owned(),
                    t.store.str(o.name).to_owned(),
                ),
                t.store.str(o.uid).to_owned(),
            );
            b.add_object(rid, &meta_of(&t.store, id));
        }
        from_input.resize(b.store().len(), false);
    }
    let mut not_restored = Vec::new();
    let mut stripped_refs: Vec<(usize, Vec<String>)> = Vec::new();
    let store = &input.store;
    for (n, id) in store.ids().enumerate() {
        let o = store.object(id);
        let r = input.resource_of(o);
        if restorer == Restorer::Velero
            && let Some(why) = velero_skips(&r.kind, &r.group)
        {
            not_restored.push((r.kind.clone(), why.to_owned()));
            continue;
        }
        let key = (
            r.group.clone(),
            r.kind.clone(),
            store.str(o.namespace).to_owned(),
            store.str(o.name).to_owned(),
        );
        let mut meta = meta_of(store, id);
        // An update keeps the target's UID; a create gets a new one (made unique and
        // recognisable: no real UID looks like it).
        let uid = existing
            .get(&key)
            .cloned()
            .unwrap_or_else(|| format!("kgc-created-{n:08}"));
        meta.uid = Cow::Owned(uid);
        meta.deletion_timestamp = None;
        meta.resource_version = Cow::Borrowed("");
        if restorer == Restorer::Velero && !meta.owner_references.is_empty() {
            let owners = meta
                .owner_references
                .iter()
                .map(|r| format!("{}/{}", r.kind, r.name))
                .collect();
            meta.owner_references.clear();
            stripped_refs.push((b.store().len(), owners));
        }
        let rid = b
            .find_resource(&r.group, &r.version, &r.kind)
            .expect("the input's row was added");
        if existing.contains_key(&key) {
            // Updated in place: the target's object is replaced by the applied one.
            let pos = b.store().ids().find(|&t| {
                let to = b.store().object(t);
                to.resource == rid
                    && b.store().str(to.namespace) == key.2
                    && b.store().str(to.name) == key.3
            });
            if let Some(pos) = pos {
                from_input[pos.index()] = true;
            }
            continue;
        }
        b.add_object(rid, &meta);
        from_input.push(true);
    }
    let snapshot = b.finish();
    from_input.resize(snapshot.store.len(), false);
    let stripped = stripped_refs
        .into_iter()
        .filter_map(|(i, owners)| snapshot.store.ids().nth(i).map(|id| (id, owners)))
        .collect();
    Applied {
        snapshot,
        from_input,
        not_restored,
        stripped,
    }
}

/// Findings about the input itself: ownerReferences written into manifests at all (they cannot
/// be right in another cluster), and, for Velero, children left orphaned.
pub fn input_findings(applied: &Applied, restorer: Restorer) -> Vec<Finding> {
    let snap = &applied.snapshot;
    let store = &snap.store;
    let mut out = Vec::new();
    match restorer {
        Restorer::Apply => {
            for id in store.ids().filter(|id| applied.from_input[id.index()]) {
                if store.owner_refs(id).is_empty() {
                    continue;
                }
                out.push(Finding::new(
                    Code::OwnerReferenceInManifest,
                    Severity::Warning,
                    id,
                    "its ownerReferences name UIDs of the cluster the manifest came from: in any \
                     other cluster they point at nothing, and the GC deletes the object once no \
                     owner is solid"
                        .into(),
                    format!(
                        "the manifest carries {} ownerReference(s): remove them and let the owner's \
                         controller adopt the object (or kubectl gc relink after the apply)",
                        store.owner_refs(id).len()
                    ),
                ));
            }
        }
        Restorer::Velero => {
            for (id, owners) in &applied.stripped {
                out.push(Finding::new(
                    Code::OwnerReferenceInManifest,
                    Severity::Info,
                    *id,
                    "Velero strips ownerReferences on restore: this object survives, but the GC \
                     will never delete it with its owner again (orphaned)"
                        .into(),
                    format!(
                        "restored without its owner(s) {}: kubectl gc relink -f BACKUP puts the \
                         references back with the owners' new UIDs",
                        owners.join(", ")
                    ),
                ));
            }
        }
    }
    out
}
