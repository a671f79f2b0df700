//! `kubectl gc why KIND/NAME`: one object, every question — what it is now, what each of its
//! finalizers waits for and who removes it, what the namespace controller waits for (a
//! namespace), what the GC will do to it and why, and what to do, safest first.
//!
//! The answer is data ([`Why`]); `render::why` prints it as a tree for people and as JSON/YAML.
//! It is built from the snapshot alone, plus [`Extras`] — what a live read of the object itself
//! adds (the field managers that set each finalizer, its status conditions). Only the object's
//! neighbourhood is computed: its references, its dependents, its namespace's content.

use super::remedy::{self, shell_word};
use crate::catalog::finalizers::{self as catalogue, FinalizerKind};
use crate::gc::{Dangling, GarbageCollector, RefClass, State, Verdict};
use crate::model::{ObjId, finalizers};
use crate::namespace::deletion::{self, Blocker, Outlook};
use crate::snapshot::{Condition, Snapshot, parse_rfc3339};
use crate::util::human_duration;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// What a live read of the object adds to the snapshot's metadata.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    /// Per finalizer, the field managers that own it in `metadata.managedFields`.
    pub finalizer_managers: BTreeMap<String, Vec<String>>,
    /// The object's `status.conditions`.
    pub conditions: Vec<Condition>,
    /// True when the object was read in full (else managers and conditions are unknown).
    pub read: bool,
    /// For a PersistentVolumeClaim: the pods of its namespace that use it (name, and whether
    /// the pod is bound to a node), when the pods were read in full; `None`: not read.
    pub claim_users: Option<Vec<(String, bool)>>,
}

/// An object, as reports name it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    /// API group (`""` for core).
    pub group: String,
    /// Kind.
    pub kind: String,
    /// Namespace (`""` when cluster-scoped).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Name.
    pub name: String,
    /// UID.
    pub uid: String,
}

impl ObjectRef {
    /// The reference to snapshot object `id`.
    pub fn of(snap: &Snapshot, id: ObjId) -> ObjectRef {
        let store = &snap.store;
        let o = store.object(id);
        let r = snap.resource_of(o);
        ObjectRef {
            group: r.group.clone(),
            kind: r.kind.clone(),
            namespace: store.str(o.namespace).to_owned(),
            name: store.str(o.name).to_owned(),
            uid: store.str(o.uid).to_owned(),
        }
    }

    /// `Kind/name` with ` -n namespace` where it has one.
    pub fn display(&self) -> String {
        if self.namespace.is_empty() {
            format!("{}/{}", self.kind, self.name)
        } else {
            format!("{}/{} -n {}", self.kind, self.name, self.namespace)
        }
    }
}

/// Whether something holds now.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Holds {
    /// It holds: the finalizer stays for now.
    Yes,
    /// It does not: the controller should remove the finalizer.
    No,
    /// The input does not tell.
    Unknown,
}

/// One finalizer of the object.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FinalizerWhy {
    /// The finalizer.
    pub name: String,
    /// Where it is: `metadata.finalizers`, or a namespace's `spec.finalizers`.
    pub field: &'static str,
    /// Which controller removes it (`unknown finalizer` when the catalogue does not know it).
    pub controller: String,
    /// `garbage-collector`, `control-plane`, `operator` or `unknown`.
    pub owner_kind: &'static str,
    /// When that controller removes it.
    pub removed_when: String,
    /// Whether what it waits for still holds now.
    pub holds: Holds,
    /// What it waits for now, in words.
    pub detail: String,
    /// The objects it waits for (blocking dependents, dependents to orphan, content).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub waiting_for: Vec<ObjectRef>,
    /// The field managers that set it (`metadata.managedFields`); empty when not read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub set_by: Vec<String>,
    /// Where the controller's workload was found in the input, if anywhere.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub controller_found: Vec<ObjectRef>,
    /// What stripping it by hand leaks or skips.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub leaks: String,
}

/// One ownerReference, classified as the GC does.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceWhy {
    /// `apiVersion` of the reference.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `name`.
    pub name: String,
    /// `uid`.
    pub uid: String,
    /// `solid`, `waiting`, `dangling`, `unresolvable`, `invalid-scope`, `unrequestable`,
    /// `unknown`.
    pub class: &'static str,
    /// Why, in words.
    pub detail: String,
    /// The owner, where it exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<ObjectRef>,
}

/// What the GC does with the object.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GcWhy {
    /// The verdict's label (`keep`, `delete`, `wait-for-dependents`, …).
    pub verdict: &'static str,
    /// The decision table's row (docs/gc-model.md §3.2), where one applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<u8>,
    /// The verdict in words.
    pub explanation: String,
    /// Each ownerReference.
    pub owner_references: Vec<ReferenceWhy>,
    /// Dependents (objects referencing this one), at most 50.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dependents: Vec<ObjectRef>,
    /// Owners in foreground deletion that wait for this object to go (its references with
    /// blockOwnerDeletion=true to them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<ObjectRef>,
}

/// One thing that holds a namespace.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceBlockerWhy {
    /// `discovery-failure`, `foreign-spec-finalizers`, `controller-failure`, `content-held`,
    /// `gc-finalizers`, `pods-first`, `content-unknown`, `spec-unknown`.
    #[serde(rename = "type")]
    pub type_: &'static str,
    /// What it makes of the outlook alone.
    pub outlook: &'static str,
    /// One line, for the verdict.
    pub summary: String,
    /// In words, with the evidence.
    pub message: String,
    /// The objects concerned (content held by a finalizer, pods), at most 50.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<ObjectRef>,
    /// Unavailable APIServices behind a discovery failure.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub api_services: Vec<crate::snapshot::ApiService>,
}

/// Content of a namespace by resource.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentCount {
    /// `Kind.group` (`Kind` for core).
    pub resource: String,
    /// Objects of it.
    pub count: usize,
}

/// The namespace controller's view (a Namespace target).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceWhy {
    /// `finishes`, `waiting`, `stuck` or `unknown`.
    pub outlook: &'static str,
    /// `spec.finalizers`, when read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec_finalizers: Option<Vec<String>>,
    /// What holds it, most decisive first.
    pub blockers: Vec<NamespaceBlockerWhy>,
    /// Its conditions that are `True` (the namespace controller's own report).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failing_conditions: Vec<Condition>,
    /// What is left in it, by resource.
    pub content: Vec<ContentCount>,
}

/// A remedy, in the order to try them.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemedyWhy {
    /// What it does and when to use it.
    pub note: String,
    /// The command, shell-quoted (empty when the step is not a command).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// What it leaks or skips (finalizer removals).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub leaks: String,
}

/// The whole answer.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Why {
    /// The object.
    pub object: ObjectRef,
    /// `exists` or `terminating`.
    pub state: &'static str,
    /// One sentence: the answer.
    pub verdict: String,
    /// deletionTimestamp, when terminating.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<String>,
    /// How long it has been terminating at the input's capture time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminating_for: Option<String>,
    /// Its finalizers.
    pub finalizers: Vec<FinalizerWhy>,
    /// The namespace controller's view, for a Namespace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<NamespaceWhy>,
    /// What the GC does with it.
    pub gc: GcWhy,
    /// Its status conditions that are not ok (live reads only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// What to do, safest first.
    pub remedies: Vec<RemedyWhy>,
    /// What the input did not tell.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknowns: Vec<String>,
}

/// At most this many objects are listed per group.
const MAX_LISTED: usize = 50;

fn refs(snap: &Snapshot, ids: impl IntoIterator<Item = ObjId>) -> Vec<ObjectRef> {
    ids.into_iter()
        .take(MAX_LISTED)
        .map(|id| ObjectRef::of(snap, id))
        .collect()
}

fn age(snap: &Snapshot, since: &str) -> Option<String> {
    let since = parse_rfc3339(since)?;
    let now = parse_rfc3339(&snap.provenance.captured_at)?;
    Some(human_duration(Duration::from_secs(
        (now - since).max(0) as u64
    )))
}

fn is_namespace(snap: &Snapshot, id: ObjId) -> bool {
    let r = snap.resource_of(snap.store.object(id));
    r.group.is_empty() && r.kind == "Namespace"
}

/// Explains object `id` of `gc`'s snapshot.
pub fn why(gc: &GarbageCollector<'_>, id: ObjId, extras: &Extras) -> Why {
    let snap = gc.snap;
    let store = &snap.store;
    let state = gc.initial_state();
    let o = store.object(id);
    let object = ObjectRef::of(snap, id);
    let terminating = o.being_deleted();
    let deletion_timestamp = terminating.then(|| store.str(o.deletion_timestamp).to_owned());
    let terminating_for = deletion_timestamp.as_deref().and_then(|t| age(snap, t));
    let mut unknowns = Vec::new();
    if !extras.read {
        unknowns.push(
            "who set each finalizer (metadata.managedFields) and the object's status conditions: \
             the input holds metadata only, or the object could not be read in full"
                .to_owned(),
        );
    }

    let namespace = is_namespace(snap, id).then(|| {
        let content = deletion::content_of(snap, &object.name);
        namespace_why(gc, id, &content)
    });
    let gc_why = gc_why(gc, &state, id);
    let mut finalizers: Vec<FinalizerWhy> = store
        .finalizers(id)
        .iter()
        .map(|f| finalizer_why(gc, &state, id, store.str(*f), extras, namespace.as_ref()))
        .collect();
    // A namespace's own tokens: `kubernetes` (the namespace controller's) and any other.
    if let Some(spec) = namespace.as_ref().and_then(|n| n.spec_finalizers.as_ref()) {
        for token in spec {
            let mut f = finalizer_why(gc, &state, id, token, extras, namespace.as_ref());
            f.field = "spec.finalizers";
            f.set_by.clear();
            if token != crate::snapshot::details::NAMESPACE_FINALIZER {
                f.holds = Holds::Yes;
                f.detail = "a token the namespace controller does not own: it stays until \
                            whoever added it calls /finalize"
                    .to_owned();
            }
            finalizers.push(f);
        }
    }
    // A namespace's controller conditions are shown in its namespace section.
    let conditions: Vec<Condition> = extras
        .conditions
        .iter()
        .filter(|c| !condition_ok(c))
        .filter(|c| namespace.is_none() || !deletion::condition::ALL.contains(&c.type_.as_str()))
        .cloned()
        .collect();
    let verdict = verdict(
        &object,
        terminating,
        terminating_for.as_deref(),
        &finalizers,
        namespace.as_ref(),
        &gc_why,
    );
    let remedies = remedies(gc, &state, id, &finalizers, namespace.as_ref());
    Why {
        object,
        state: if terminating { "terminating" } else { "exists" },
        verdict,
        deletion_timestamp,
        terminating_for,
        finalizers,
        namespace,
        gc: gc_why,
        conditions,
        remedies,
        unknowns,
    }
}

/// A condition that reports nothing wrong: `Ready`/`Available`-like types that are `True`,
/// anything else that is `False` (the usual polarity of failure conditions), the namespace
/// controller's ok variants.
fn condition_ok(c: &Condition) -> bool {
    let positive = matches!(
        c.type_.as_str(),
        "Ready"
            | "Available"
            | "Established"
            | "NamesAccepted"
            | "Synced"
            | "Healthy"
            | "Progressing"
            | "Initialized"
            | "ContainersReady"
            | "PodScheduled"
            | "Complete"
            | "Bound"
    );
    if positive {
        c.status == "True"
    } else {
        c.status != "True"
    }
}

fn namespace_why(gc: &GarbageCollector<'_>, id: ObjId, content: &[ObjId]) -> NamespaceWhy {
    let snap = gc.snap;
    let d = deletion::evaluate(snap, id, content, gc.rules.version);
    let spec_finalizers = snap
        .details
        .namespaces
        .get(&d.name)
        .map(|s| s.spec_finalizers.clone());
    let blockers = d.blockers.iter().map(|b| blocker_why(snap, b)).collect();
    let mut by_resource: BTreeMap<String, usize> = BTreeMap::new();
    for &c in content {
        let r = snap.resource_of(snap.store.object(c));
        let name = if r.group.is_empty() {
            r.kind.clone()
        } else {
            format!("{}.{}", r.kind, r.group)
        };
        *by_resource.entry(name).or_default() += 1;
    }
    NamespaceWhy {
        outlook: d.outlook.as_str(),
        spec_finalizers,
        blockers,
        failing_conditions: d.failing_conditions,
        content: by_resource
            .into_iter()
            .map(|(resource, count)| ContentCount { resource, count })
            .collect(),
    }
}

fn blocker_why(snap: &Snapshot, b: &Blocker) -> NamespaceBlockerWhy {
    let summary = blocker_summary(b);
    let (type_, message, objects, api_services) = match b {
        Blocker::DiscoveryFailure {
            group_versions,
            observed,
            discovery_read,
        } => {
            let gvs: Vec<&str> = group_versions.iter().map(|(g, _)| g.as_str()).collect();
            let mut message = if gvs.is_empty() && *discovery_read {
                "the namespace controller's last pass saw a discovery failure, and discovery \
                 succeeds now: its next retry (backoff up to a minute) should get past it"
                    .to_owned()
            } else if gvs.is_empty() {
                "the namespace controller reports a discovery failure".to_owned()
            } else {
                format!("discovery fails for {}", gvs.join(", "))
            };
            if let Some(m) = observed {
                message.push_str(&format!(" (its condition: {m})"));
            }
            message.push_str(
                "; the namespace controller never removes its `kubernetes` finalizer while any \
                 API group fails discovery, even one with nothing in this namespace",
            );
            let unavailable: Vec<crate::snapshot::ApiService> = snap
                .details
                .api_services
                .iter()
                .flatten()
                .filter(|a| !a.is_available() || gvs.contains(&a.group_version().as_str()))
                .cloned()
                .collect();
            ("discovery-failure", message, Vec::new(), unavailable)
        }
        Blocker::ForeignSpecFinalizers(tokens) => (
            "foreign-spec-finalizers",
            format!(
                "spec.finalizers holds {}: the namespace controller removes only `kubernetes`; \
                 these stay until whoever added them calls /finalize",
                tokens.join(", ")
            ),
            Vec::new(),
            Vec::new(),
        ),
        Blocker::ControllerFailure(c) => (
            "controller-failure",
            format!("{}: {}", c.type_, c.message),
            Vec::new(),
            Vec::new(),
        ),
        Blocker::ContentHeld(groups) => {
            let parts: Vec<String> = groups
                .iter()
                .map(|g| format!("{} on {} object(s)", g.finalizer, g.objects.len()))
                .collect();
            (
                "content-held",
                format!(
                    "content held by finalizers the namespace controller's deletes do not clear: {}",
                    parts.join(", ")
                ),
                refs(snap, groups.iter().flat_map(|g| g.objects.iter().copied())),
                Vec::new(),
            )
        }
        Blocker::GcFinalizers(f) => (
            "gc-finalizers",
            format!(
                "the namespace object itself carries the GC's {}: the GC removes it",
                f.join(", ")
            ),
            Vec::new(),
            Vec::new(),
        ),
        Blocker::PodsFirst(pods) => (
            "pods-first",
            format!(
                "{} pod(s) remain: from 1.33 the namespace controller deletes nothing else \
                 until every pod is gone (its conditions may say \"ok\" meanwhile)",
                pods.len()
            ),
            refs(snap, pods.iter().copied()),
            Vec::new(),
        ),
        Blocker::ContentUnknown(resources) => (
            "content-unknown",
            format!(
                "its content in {} resource(s) was not read: {}",
                resources.len(),
                resources
                    .iter()
                    .take(8)
                    .map(|(r, why)| format!("{r} ({why})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Vec::new(),
            Vec::new(),
        ),
        Blocker::SpecUnknown => (
            "spec-unknown",
            "its spec.finalizers and status were not read (metadata-only input)".to_owned(),
            Vec::new(),
            Vec::new(),
        ),
    };
    NamespaceBlockerWhy {
        type_,
        outlook: b.outlook().as_str(),
        summary,
        message,
        objects,
        api_services,
    }
}

/// One line per blocker, for the verdict.
fn blocker_summary(b: &Blocker) -> String {
    match b {
        Blocker::DiscoveryFailure { group_versions, .. } if !group_versions.is_empty() => format!(
            "discovery fails for {}, and the namespace controller never finishes a namespace \
             while any API group fails",
            group_versions
                .iter()
                .map(|(g, _)| g.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Blocker::DiscoveryFailure {
            discovery_read: true,
            ..
        } => "the namespace controller's last pass saw a discovery failure that discovery no \
              longer shows: its next retry should finish it"
            .to_owned(),
        Blocker::DiscoveryFailure { .. } => "the namespace controller reports a discovery \
             failure, and it never finishes a namespace while any API group fails"
            .to_owned(),
        Blocker::ForeignSpecFinalizers(t) => format!(
            "spec.finalizers holds {}, which only a /finalize call removes",
            t.join(", ")
        ),
        Blocker::ControllerFailure(c) => format!("the namespace controller reports {}", c.type_),
        Blocker::ContentHeld(groups) => format!(
            "{} object(s) in it are held by finalizers ({})",
            groups.iter().map(|g| g.objects.len()).sum::<usize>(),
            groups
                .iter()
                .map(|g| g.finalizer.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Blocker::GcFinalizers(f) => format!("the GC's {} on the namespace itself", f.join(", ")),
        Blocker::PodsFirst(p) => format!("{} pod(s) go first", p.len()),
        Blocker::ContentUnknown(r) => {
            format!("its content in {} resource(s) was not read", r.len())
        }
        Blocker::SpecUnknown => "its spec.finalizers were not read".to_owned(),
    }
}

fn gc_why(gc: &GarbageCollector<'_>, state: &State, id: ObjId) -> GcWhy {
    let snap = gc.snap;
    let store = &snap.store;
    let owner_references = state
        .owner_refs(store, id)
        .iter()
        .map(|r| {
            let class = gc.classify_reference(state, id, r);
            let (detail, owner) = match &class {
                RefClass::Solid { owner } => {
                    ("the owner exists with this UID".to_owned(), Some(*owner))
                }
                RefClass::Waiting { owner } => (
                    "the owner exists and is being deleted in the foreground".to_owned(),
                    Some(*owner),
                ),
                RefClass::Dangling(Dangling::Absent) => match gc.misdirected(state, id, r) {
                    Some(elsewhere) => (
                        format!(
                            "the owner with this UID is {}, but the GC looks for it only in the \
                             dependent's own namespace (or at cluster scope): ownerReferences \
                             cannot cross namespaces, so it treats the owner as gone",
                            snap.describe(elsewhere)
                        ),
                        Some(elsewhere),
                    ),
                    None => (
                        "no such owner where the GC looks (its kind and name in the dependent's \
                         namespace, or at cluster scope): the GC treats it as gone"
                            .to_owned(),
                        None,
                    ),
                },
                RefClass::Dangling(Dangling::UidMismatch { found }) => (
                    format!(
                        "an object of that kind and name exists with another UID ({}): the \
                         owner was recreated, and the GC treats this one as gone",
                        store.str(store.object(*found).uid)
                    ),
                    Some(*found),
                ),
                RefClass::Unresolvable { reason }
                | RefClass::Unrequestable { reason }
                | RefClass::Unknown { reason } => (reason.clone(), None),
                RefClass::InvalidScope => (
                    "a cluster-scoped object cannot have a namespaced owner: the GC drops it \
                     and never collects it"
                        .to_owned(),
                    None,
                ),
            };
            ReferenceWhy {
                api_version: store.str(r.api_version).to_owned(),
                kind: store.str(r.kind).to_owned(),
                name: store.str(r.name).to_owned(),
                uid: store.str(r.uid).to_owned(),
                class: class.label(),
                detail,
                owner: owner.map(|o| ObjectRef::of(snap, o)),
            }
        })
        .collect();
    let blocks: Vec<ObjId> = state
        .owner_refs(store, id)
        .iter()
        .filter(|r| r.blocks())
        .filter_map(|r| match gc.classify_reference(state, id, r) {
            RefClass::Waiting { owner } => Some(owner),
            _ => None,
        })
        .collect();
    let verdict = gc.attempt_to_delete_item(state, id);
    let (row, explanation) = explain_verdict(gc, &verdict);
    GcWhy {
        verdict: verdict.label(),
        row,
        explanation,
        owner_references,
        dependents: refs(snap, gc.current_dependents(state, id)),
        blocks: refs(snap, blocks),
    }
}

fn explain_verdict(gc: &GarbageCollector<'_>, v: &Verdict) -> (Option<u8>, String) {
    let describe = |ids: &[ObjId]| {
        ids.iter()
            .take(5)
            .map(|&d| gc.snap.describe(d))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match v {
        Verdict::NotMonitored => (
            None,
            "the GC does not watch this resource: it never deletes or patches it".to_owned(),
        ),
        Verdict::Terminating => (
            Some(1),
            "it is being deleted without foregroundDeletion: the GC leaves it to its finalizers"
                .to_owned(),
        ),
        Verdict::NoOwners => (
            Some(6),
            "it has no ownerReferences: the GC never deletes it on its own".to_owned(),
        ),
        Verdict::Keep { unknown } if unknown.is_empty() => (
            Some(8),
            "at least one owner exists: the GC keeps it".to_owned(),
        ),
        Verdict::Keep { unknown } => (
            Some(8),
            format!(
                "at least one owner exists: the GC keeps it ({} reference(s) could not be checked)",
                unknown.len()
            ),
        ),
        Verdict::RemoveRefs { uids, .. } => (
            Some(8),
            format!(
                "a solid owner remains: the GC keeps it and removes {} reference(s) to owners \
                 that are gone or being deleted in the foreground",
                uids.len()
            ),
        ),
        Verdict::Delete { policy, row, .. } => (
            Some(*row),
            format!(
                "no owner is left: the GC deletes it (propagationPolicy={})",
                policy.as_str()
            ),
        ),
        Verdict::RemoveForegroundFinalizer => (
            None,
            "in foreground deletion and nothing blocks it: the GC removes foregroundDeletion"
                .to_owned(),
        ),
        Verdict::WaitForDependents { blocking } => (
            None,
            format!(
                "in foreground deletion: the GC waits for {} dependent(s) with \
                 blockOwnerDeletion=true ({})",
                blocking.len(),
                describe(blocking)
            ),
        ),
        Verdict::NeverCollected { reason, dropped } => (
            Some(7),
            format!(
                "the GC cannot classify its references and never collects it ({}): {reason}",
                if *dropped {
                    "dropped from its queue"
                } else {
                    "retried forever"
                }
            ),
        ),
        Verdict::Unknown { reason } => (None, format!("unknown: {reason}")),
    }
}

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

fn finalizer_why(
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
                    "{} dependent(s) with blockOwnerDeletion=true remain{}",
                    blocking.len(),
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
            None => "not in kubectl-gc's catalogue: find its controller from who set it".to_owned(),
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
fn root_blockers(gc: &GarbageCollector<'_>, state: &State, blocking: &[ObjId]) -> Vec<ObjId> {
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

/// `; at the bottom of the chain: …` when the roots are not the direct blockers.
fn chain_text(gc: &GarbageCollector<'_>, blocking: &[ObjId], roots: &[ObjId]) -> String {
    if roots.iter().all(|r| blocking.contains(r)) {
        return String::new();
    }
    format!(
        "; at the bottom of the chain: {}",
        roots
            .iter()
            .take(5)
            .map(|&r| gc.snap.describe(r))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn verdict(
    object: &ObjectRef,
    terminating: bool,
    age: Option<&str>,
    finalizers: &[FinalizerWhy],
    namespace: Option<&NamespaceWhy>,
    gc: &GcWhy,
) -> String {
    let who = object.display();
    let for_age = age.map(|a| format!(" for {a}")).unwrap_or_default();
    if let Some(ns) = namespace {
        let first = ns.blockers.first();
        return match (terminating, ns.outlook) {
            (true, "finishes") => format!(
                "{who} is Terminating{for_age}; nothing holds it: the namespace controller \
                 finishes it"
            ),
            (true, "stuck") => format!(
                "{who} is stuck Terminating{for_age}: {}",
                first.map_or("", |b| b.summary.as_str())
            ),
            (true, "waiting") => format!(
                "{who} is Terminating{for_age} and waits: {}",
                first.map_or("", |b| b.summary.as_str())
            ),
            (true, _) => format!(
                "{who} is Terminating{for_age}; whether it finishes is unknown: {}",
                first.map_or("", |b| b.summary.as_str())
            ),
            (false, "finishes") => {
                format!("{who} exists; deleted now, the namespace controller would finish it")
            }
            (false, outlook) => format!(
                "{who} exists; deleted now, it would be {}: {}",
                match outlook {
                    "stuck" => "stuck Terminating",
                    "waiting" => "held Terminating a while",
                    _ => "of unknown fate",
                },
                first.map_or("", |b| b.summary.as_str())
            ),
        };
    }
    if terminating {
        let holding: Vec<&FinalizerWhy> =
            finalizers.iter().filter(|f| f.holds != Holds::No).collect();
        return match holding.as_slice() {
            [] if finalizers.is_empty() => {
                format!("{who} is Terminating{for_age} with no finalizer left: it goes at once")
            }
            [] => format!(
                "{who} is Terminating{for_age}; its finalizers' conditions are met: {} should \
                 remove them",
                finalizers
                    .iter()
                    .map(|f| f.controller.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            hs => format!(
                "{who} is Terminating{for_age}, held by {}{}",
                hs.iter()
                    .map(|f| if f.owner_kind == "unknown" {
                        format!("{} (a finalizer kubectl-gc does not know)", f.name)
                    } else {
                        format!("{} ({}: {})", f.name, f.controller, f.detail)
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
                blocks_text(gc)
            ),
        };
    }
    let first_gone = gc
        .owner_references
        .iter()
        .find(|r| r.class == "dangling")
        .map(|r| format!(" {}/{} {}", r.kind, r.name, r.detail))
        .unwrap_or_default();
    match gc.verdict {
        "delete" => format!("the GC will delete {who}: no owner is left —{first_gone}"),
        "remove-refs" => format!(
            "the GC keeps {who} but removes the references to owners that are gone —{first_gone}"
        ),
        "keep" | "no-owners" | "not-monitored" => {
            format!("the GC will not delete {who}: {}", gc.explanation)
        }
        _ => format!("{who}: {}", gc.explanation),
    }
}

/// `; it blocks the foreground deletion of …` when it does.
fn blocks_text(gc: &GcWhy) -> String {
    if gc.blocks.is_empty() {
        return String::new();
    }
    format!(
        "; it blocks the foreground deletion of {}",
        gc.blocks
            .iter()
            .map(ObjectRef::display)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn remedies(
    gc: &GarbageCollector<'_>,
    state: &State,
    id: ObjId,
    finalizers: &[FinalizerWhy],
    namespace: Option<&NamespaceWhy>,
) -> Vec<RemedyWhy> {
    let snap = gc.snap;
    let store = &snap.store;
    let mut out = Vec::new();
    // 1. The API or controller first.
    if let Some(ns) = namespace {
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
                            note: "find the unavailable APIServices and fix or delete them"
                                .to_owned(),
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
    }
    // 2. Finalizers: the controller first, the strip last, on this object.
    for f in finalizers.iter().filter(|f| f.holds != Holds::No) {
        if f.name == "kubernetes" && namespace.is_some() {
            continue;
        }
        if f.name == finalizers::FOREGROUND {
            let blocking = gc.blocking_dependents(state, id);
            for r in root_blockers(gc, state, &blocking).into_iter().take(3) {
                out.push(RemedyWhy {
                    note: format!(
                        "find out what holds {}, at the bottom of the foreground chain",
                        snap.describe(r)
                    ),
                    command: format!("kubectl gc why {}", remedy::kubectl_target(snap, r)),
                    leaks: String::new(),
                });
            }
        }
        let info = catalogue::lookup(&f.name);
        match info {
            Some(i) => out.push(RemedyWhy {
                note: format!("{}: {}", f.name, i.remedy),
                command: String::new(),
                leaks: String::new(),
            }),
            None if f.set_by.is_empty() => out.push(RemedyWhy {
                note: format!(
                    "find the controller that set {} (the field managers of the object) and \
                     why it has not removed it",
                    f.name
                ),
                command: format!(
                    "kubectl get {} --show-managed-fields -o jsonpath='{{.metadata.managedFields[*].manager}}'",
                    remedy::kubectl_target(snap, id)
                ),
                leaks: String::new(),
            }),
            None => out.push(RemedyWhy {
                note: format!(
                    "{} was set by {}: check that it runs and why it has not removed it",
                    f.name,
                    f.set_by.join(", ")
                ),
                command: String::new(),
                leaks: String::new(),
            }),
        }
        if terminating_and_gc_free(gc, id, &f.name) {
            let sym = store
                .finalizers(id)
                .iter()
                .copied()
                .find(|s| store.str(*s) == f.name);
            if let Some(sym) = sym {
                // The patch guards the finalizer's place in the list as read; removing
                // another one first shifts it, and the guard then refuses the patch.
                let shifts = if store.finalizers(id).len() > 1 {
                    " (one at a time: after another removal, run why again for its new place)"
                } else {
                    ""
                };
                out.push(RemedyWhy {
                    note: format!(
                        "last resort, once {} cannot finish: remove {} from this object only{shifts}",
                        if f.owner_kind == "unknown" {
                            "its controller"
                        } else {
                            f.controller.as_str()
                        },
                        f.name
                    ),
                    command: remedy::remove_finalizer(snap, state, id, sym),
                    leaks: if f.leaks.is_empty() {
                        "whatever cleanup the finalizer guards is skipped".to_owned()
                    } else {
                        f.leaks.clone()
                    },
                });
            }
        }
    }
    // 3. A reference the GC acts on.
    for r in state.owner_refs(store, id) {
        if matches!(gc.classify_reference(state, id, r), RefClass::Dangling(_)) {
            out.push(RemedyWhy {
                note: format!(
                    "if {}/{} should still own it, point the reference at the current owner's \
                     UID; if not, remove the reference before the GC deletes the object",
                    store.str(r.kind),
                    store.str(r.name)
                ),
                command: remedy::remove_ref(snap, state, id, r.uid),
                leaks: String::new(),
            });
        }
    }
    out
}

/// Finalizers the GC manages are never stripped by a remedy: the GC removes them.
fn terminating_and_gc_free(gc: &GarbageCollector<'_>, id: ObjId, name: &str) -> bool {
    gc.snap.store.object(id).being_deleted()
        && name != finalizers::FOREGROUND
        && name != finalizers::ORPHAN
}
