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
use super::remedy::Remedy;
use crate::catalog::{KubeVersion, builtin};
use crate::model::ObjId;
use crate::snapshot::{ListOutcome, Resource, Snapshot, SnapshotBuilder};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

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
    /// Per object of `snapshot`: the input object it was created or updated from.
    pub input_of: Vec<Option<ObjId>>,
    /// Input objects Velero does not restore (the object as human output spells it, why).
    pub not_restored: Vec<(String, String)>,
    /// Input objects whose references were stripped (Velero), each with the owners they named.
    pub stripped: Vec<(ObjId, Vec<String>)>,
    /// Input objects at the coordinates of an earlier one (group, kind, namespace, name) that
    /// disagree with it: (the object created, the input object merged into it, what differs).
    /// Copies that agree are one object, silently (a backup stores some objects twice).
    pub conflicts: Vec<(ObjId, ObjId, Vec<&'static str>)>,
}

impl Applied {
    /// True when object `id` of the applied cluster was created or updated from the input.
    pub fn from_input(&self, id: ObjId) -> bool {
        self.input_of.get(id.index()).is_some_and(Option::is_some)
    }
}

/// What an apply matches on: group, kind, namespace, name.
type Coordinates<'s> = (&'s str, &'s str, &'s str, &'s str);

fn coordinates(snap: &Snapshot, id: ObjId) -> Coordinates<'_> {
    let o = snap.store.object(id);
    let r = snap.resource_of(o);
    (
        r.group.as_str(),
        r.kind.as_str(),
        snap.store.str(o.namespace),
        snap.store.str(o.name),
    )
}

/// A UID the reader gave a manifest that had none: not a real object's identity.
fn synthesized(uid: &str) -> bool {
    uid.starts_with("kgc-manifest-")
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

/// Where the input is created.
#[derive(Clone, Copy, Debug)]
pub enum Target<'a> {
    /// An existing cluster, as read (live or `--snapshot`): what it did not read stays unknown.
    Cluster(&'a Snapshot),
    /// A new, empty cluster of this release (`--target empty`).
    Empty(KubeVersion),
}

/// The resource table of a new cluster of release `at`: every built-in kind at every version
/// the release serves, each complete (a new cluster holds none of them, so the GC's GET of an
/// owner not in the input answers 404). The input's CRDs add their kinds with the input's rows.
fn new_cluster_rows(at: KubeVersion) -> Vec<Resource> {
    let mut rows = Vec::new();
    for b in builtin::all() {
        let Some(preferred) = b.preferred_at(at) else {
            continue;
        };
        for v in b.versions.iter().filter(|v| v.served_at(at.minor)) {
            rows.push(Resource {
                group: b.group.to_owned(),
                version: v.version.to_owned(),
                kind: b.kind.to_owned(),
                plural: b.plural.to_owned(),
                namespaced: b.namespaced,
                verbs: Vec::new(),
                preferred_version: preferred.to_owned(),
                list: ListOutcome::Complete,
            });
        }
    }
    rows
}

/// The cluster right after `input` is created in `target`, the way `restorer` creates
/// objects.
///
/// Objects are matched by coordinates through one index per side (each lookup is a hash
/// probe, so a large backup against a large target costs their sizes, not their product).
pub fn apply(target: Target<'_>, input: &Snapshot, restorer: Restorer) -> Applied {
    let (target, release) = match target {
        Target::Cluster(t) => (Some(t), None),
        Target::Empty(at) => (None, Some(at)),
    };
    let provenance = target.map_or_else(|| input.provenance.clone(), |t| t.provenance.clone());
    let mut b = SnapshotBuilder::new(provenance);
    let empty = target.is_none();
    // The resource table: the target's (or a new cluster's), then the input's kinds it lacks.
    // An empty target holds nothing of any kind: every row is complete.
    for r in target.map_or(&[][..], |t| &t.resources[..]) {
        b.add_resource(r.clone());
    }
    for r in release.map(new_cluster_rows).unwrap_or_default() {
        b.add_resource(r);
    }
    for r in &input.resources {
        if b.find_resource(&r.group, &r.version, &r.kind).is_none() {
            let mut r = r.clone();
            r.list = match r.list {
                ListOutcome::Ignored { reason } => ListOutcome::Ignored { reason },
                _ if empty => ListOutcome::Complete,
                // A kind the target's table lacks is one it did not read (a snapshot of files
                // without it, or a cluster that does not serve it): only the input's objects of
                // it are known, so an owner of it that is not among them is unknown, never
                // absent.
                _ => ListOutcome::NotListed,
            };
            b.add_resource(r);
        }
    }
    // The input, by coordinates: the first object at each is the one created; later ones are
    // merged into it (a conflict when they disagree).
    let mut not_restored = Vec::new();
    let mut conflicts = Vec::new();
    let mut wanted: HashMap<Coordinates<'_>, ObjId> = HashMap::new();
    let mut order: Vec<ObjId> = Vec::new();
    for id in input.store.ids() {
        let key = coordinates(input, id);
        if restorer == Restorer::Velero
            && let Some(why) = velero_skips(key.1, key.0)
        {
            not_restored.push((
                crate::model::spell_object(key.1, key.3, key.2),
                why.to_owned(),
            ));
            continue;
        }
        match wanted.get(&key) {
            Some(&first) => {
                let (a, c) = (input.store.meta_of(first), input.store.meta_of(id));
                let mut differs = crate::model::meta::differences(&a, &c);
                if a.uid != c.uid && !(synthesized(&a.uid) && synthesized(&c.uid)) {
                    differs.insert(0, "uid");
                }
                if !differs.is_empty() {
                    conflicts.push((first, id, differs));
                }
            }
            None => {
                wanted.insert(key, id);
                order.push(id);
            }
        }
    }
    let mut input_of: Vec<Option<ObjId>> = Vec::new();
    let mut stripped_refs: Vec<(ObjId, Vec<String>)> = Vec::new();
    // The input object `iid` as created (`uid`: its UID in the target).
    let created = |iid: ObjId, uid: Cow<'_, str>, stripped: &mut Vec<String>| {
        let mut meta = input.store.meta_of(iid);
        meta.uid = Cow::Owned(uid.into_owned());
        meta.deletion_timestamp = None;
        meta.resource_version = Cow::Borrowed("");
        if restorer == Restorer::Velero {
            stripped.extend(
                meta.owner_references
                    .iter()
                    .map(|r| format!("{}/{}", r.kind, r.name)),
            );
            meta.owner_references.clear();
        }
        meta
    };
    // The target's objects, in order; those the input updates carry the input's metadata
    // under the target's UID (Velero leaves an existing object as it is).
    let mut updated: HashSet<ObjId> = HashSet::new();
    if let Some(t) = target {
        for id in t.store.ids() {
            let r = t.resource_of(t.store.object(id));
            let rid = b
                .find_resource(&r.group, &r.version, &r.kind)
                .expect("the target's row was added");
            let hit = wanted.get(&coordinates(t, id)).copied();
            let added = match hit {
                Some(iid) if restorer == Restorer::Apply => {
                    updated.insert(iid);
                    let mut stripped = Vec::new();
                    let mut meta = created(
                        iid,
                        Cow::Borrowed(t.store.str(t.store.object(id).uid)),
                        &mut stripped,
                    );
                    // An update keeps what the server set at creation.
                    meta.creation_timestamp = Cow::Owned(
                        t.store
                            .timestamp(t.store.object(id).creation_timestamp)
                            .to_string(),
                    );
                    b.add_object(rid, &meta)
                }
                Some(iid) => {
                    updated.insert(iid);
                    let (_, kind, namespace, name) = coordinates(t, id);
                    not_restored.push((
                        crate::model::spell_object(kind, name, namespace),
                        "it already exists in the target, and Velero leaves existing objects as they are".to_owned(),
                    ));
                    b.add_object(rid, &t.store.meta_of(id))
                }
                None => b.add_object(rid, &t.store.meta_of(id)),
            };
            if let crate::model::Added::New(_) = added {
                input_of.push(hit.filter(|_| restorer == Restorer::Apply));
            }
        }
    }
    // The rest of the input: created, each with a new UID — recognisable (no real UID looks
    // like it), unique (one object per coordinate) and made of the coordinates rather than a
    // count, so that a finding's identity (its SARIF fingerprint, its baseline entry) stays
    // the same when other manifests are added or removed.
    for &iid in &order {
        if updated.contains(&iid) {
            continue;
        }
        let o = input.store.object(iid);
        let r = input.resource_of(o);
        let rid = b
            .find_resource(&r.group, &r.version, &r.kind)
            .expect("the input's row was added");
        let mut stripped = Vec::new();
        let (group, kind, ns, name) = coordinates(input, iid);
        let uid = format!("{CREATED_UID_PREFIX}{group}/{kind}/{ns}/{name}");
        let meta = created(iid, Cow::Owned(uid), &mut stripped);
        if let crate::model::Added::New(id) = b.add_object(rid, &meta) {
            input_of.push(Some(iid));
            if !stripped.is_empty() {
                stripped_refs.push((id, stripped));
            }
        }
    }
    let mut snapshot = b.finish();
    snapshot.new_cluster = empty;
    input_of.resize(snapshot.store.len(), None);
    Applied {
        snapshot,
        input_of,
        not_restored,
        stripped: stripped_refs,
        conflicts,
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
            for id in store.ids().filter(|&id| applied.from_input(id)) {
                if store.owner_refs(id).is_empty() {
                    continue;
                }
                out.push(Finding::new(
                    Code::OwnerReferenceInManifest,
                    Severity::Warning,
                    id,
                    // Only what is true of every such reference: whether the GC then deletes
                    // the object, keeps it (an owner kind it cannot resolve) or finds the owner
                    // solid (an update that keeps the target's UID) is the row of the reference.
                    "its ownerReferences hold UIDs from the cluster the manifest came from: an \
                     owner created anew gets a new UID, and a reference to the old one then \
                     points at nothing"
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

/// Where each input object's UID was in the cluster the input came from: that UID → the
/// object of the applied cluster created (or updated) from it. Every created object gets a new
/// UID, so a reference to one of them finds nothing by UID in the applied cluster; this says
/// which object it meant (NC10: a reference into another namespace stays cross-namespace).
pub fn source_uids(applied: &Applied, input: &Snapshot) -> HashMap<String, ObjId> {
    let store = &input.store;
    applied
        .input_of
        .iter()
        .enumerate()
        .filter_map(|(i, iid)| {
            let uid = store.str(store.object((*iid)?).uid);
            (!uid.is_empty()).then(|| (uid.to_owned(), ObjId(i as u32)))
        })
        .collect()
}

/// GC025: `blockOwnerDeletion: true` on references whose owner will not exist — those the
/// audit of the applied cluster classified dangling. The reference holds no foreground
/// deletion; what the GC does to the object is the dangling finding's consequence.
pub fn block_owner_deletion_findings(audit: &[Finding], snap: &Snapshot) -> Vec<Finding> {
    // A set, not a list: a restored backup has a dangling reference on most objects.
    let mut seen: std::collections::HashSet<(ObjId, crate::model::OwnerRef)> =
        std::collections::HashSet::new();
    let mut out = Vec::new();
    for f in audit {
        let (Some(id), Some(r), Some("dangling")) = (f.object, f.owner_ref, f.classification)
        else {
            continue;
        };
        if !r.blocks() || !seen.insert((id, r)) {
            continue;
        }
        let store = &snap.store;
        out.push(
            Finding::new(
                Code::BlockOwnerDeletionToNothing,
                Severity::Warning,
                id,
                // Its own meaning, not the dangling row's: that row, beside it, says what the
                // GC does to the object.
                "blockOwnerDeletion=true on this reference holds nothing: no owner with its UID \
                 will exist, so no foreground deletion ever waits for this object"
                    .into(),
                format!(
                    "blockOwnerDeletion=true on its reference to {}/{} (uid {}), which will not \
                     exist once the input is created: it holds no foreground deletion",
                    store.str(r.kind),
                    store.str(r.name),
                    store.str(r.uid)
                ),
            )
            .with_ref(r, Some("dangling")),
        );
    }
    out
}

/// GC026: copies of one object in the input that disagree — a second copy with the same UID
/// (`origins.duplicates`, dropped by the reader) or another object at the same coordinates
/// ([`Applied::conflicts`], merged into the first). Each names both sources (file names are
/// hostile text: the renderers sanitise messages like every other string) and what differs;
/// copies that agree are one object and not reported. Error when the copies disagree on what
/// decides the GC's verdict (UID, ownerReferences, namespace, name), else warning.
pub fn duplicate_findings(
    applied: &Applied,
    origins: &crate::source::files::Origins,
) -> Vec<Finding> {
    let mut applied_of: HashMap<ObjId, ObjId> = HashMap::new();
    for (i, iid) in applied.input_of.iter().enumerate() {
        if let Some(iid) = iid {
            applied_of.insert(*iid, ObjId(i as u32));
        }
    }
    let where_ = |iid: ObjId| {
        origins
            .of(iid)
            .map_or_else(|| "the input".to_owned(), |o| o.label())
    };
    let mut out = Vec::new();
    let mut push = |kept: ObjId, copy: String, differs: &[&'static str]| {
        let Some(&id) = applied_of.get(&kept) else {
            // Not created (Velero skips it, or the target keeps its own): nothing to judge.
            return;
        };
        let grave = differs
            .iter()
            .any(|d| matches!(*d, "uid" | "ownerReferences" | "namespace" | "name"));
        out.push(Finding::new(
            Code::ConflictingDuplicateInput,
            if grave {
                Severity::Error
            } else {
                Severity::Warning
            },
            id,
            "which copy is created depends on the tool and the order it reads them in: what \
             the GC does to this object cannot be told"
                .into(),
            format!(
                "written twice, differently ({} differ): at {} and at {}; the first is judged here",
                differs.join(", "),
                where_(kept),
                copy,
            ),
        ));
    };
    for d in &origins.duplicates {
        if !d.differs.is_empty() {
            let mut differs = d.differs.clone();
            differs.dedup();
            push(d.kept, d.copy.label(), &differs);
        }
    }
    for (first, second, differs) in &applied.conflicts {
        push(*first, where_(*second), differs);
    }
    out
}

/// GC001 on a created object says where its owner is not: the owner is in neither the input
/// nor the target (in a new cluster, nowhere), so the reference can never be satisfied by the
/// apply. Only said when no input object has the owner's group, kind and name in any namespace:
/// an owner written into another namespace is GC001 too, and "not in the input" would be false.
pub fn name_absent_owners(findings: &mut [Finding], applied: &Applied) {
    let snap = &applied.snapshot;
    let store = &snap.store;
    let mut in_input: Option<HashSet<(&str, &str, &str)>> = None;
    for f in findings.iter_mut() {
        let (Code::DanglingOwner, Some(id), Some(r)) = (f.code, f.object, f.owner_ref) else {
            continue;
        };
        if !applied.from_input(id) {
            continue;
        }
        let held = in_input.get_or_insert_with(|| {
            store
                .ids()
                .filter(|&i| applied.from_input(i))
                .map(|i| {
                    let (group, kind, _, name) = coordinates(snap, i);
                    (group, kind, name)
                })
                .collect()
        });
        let group = crate::gc::rest_mapper::parse_group_version(store.str(r.api_version))
            .map_or("", |g| g.0);
        if held.contains(&(group, store.str(r.kind), store.str(r.name))) {
            continue;
        }
        f.message.push_str(if snap.new_cluster {
            "; it is not in the input, and a new cluster holds nothing else"
        } else {
            "; it is in neither the input nor the target"
        });
    }
}

/// The remedies of findings on input objects, as edits of their manifests: an object that does
/// not exist yet cannot be patched, and one that does would get the reference back from its
/// manifest at the next apply. Each names the file and line to change (the reference's line
/// where the finding has one) and what to change there; remedies that are no edit of the
/// manifest (a UID only the live cluster knows, a finalizer) are dropped.
pub fn manifest_remedies(
    findings: &mut [Finding],
    applied: &Applied,
    origins: &crate::source::files::Origins,
) {
    let store = &applied.snapshot.store;
    for f in findings.iter_mut() {
        let Some(id) = f.object.filter(|&id| applied.from_input(id)) else {
            continue;
        };
        let origin = applied
            .input_of
            .get(id.index())
            .copied()
            .flatten()
            .and_then(|i| origins.of(i));
        let place = match origin {
            Some(o) => {
                let line = match f
                    .owner_ref
                    .and_then(|r| store.owner_refs(id).iter().position(|x| *x == r))
                {
                    Some(i) => o.line_of_ref(i),
                    None => o.line,
                };
                match line {
                    Some(l) => format!("{}:{l}", o.file),
                    None => o.label(),
                }
            }
            None => "its manifest".to_owned(),
        };
        f.remedies = std::mem::take(&mut f.remedies)
            .into_iter()
            .filter(|m| !m.manifest.is_empty())
            .map(|m| Remedy {
                note: format!("in {place}: {}", m.manifest),
                command: String::new(),
                manifest: m.manifest,
            })
            .collect();
    }
}

/// A UID this module gave an object the apply creates: no real object's, and not for output.
pub fn is_placeholder_uid(uid: &str) -> bool {
    uid.starts_with(CREATED_UID_PREFIX)
}

const CREATED_UID_PREFIX: &str = "kgc-created-";
