//! `kubectl gc why KIND/NAME`: one object, every question — what it is now, what each of its
//! finalizers waits for and who removes it, what the namespace controller waits for (a
//! namespace), what the GC will do to it and why, and what to do, safest first.
//!
//! The answer is data ([`Why`]); `render::why` prints it as a tree for people and as JSON/YAML.
//! It is built from the snapshot alone, plus [`Extras`] — what a live read of the object itself
//! adds (the field managers that set each finalizer, its status conditions). Only the object's
//! neighbourhood is computed: its references, its dependents, its namespace's content.

mod finalizers;
mod gc;
mod namespace;
mod remedies;
mod verdict;

use super::analysis::{Analysis, ObjectOutcome};
use crate::gc::object_ref::by_group;
use crate::gc::{GarbageCollector, ObjectRef};
use crate::model::ObjId;
use crate::namespace::deletion;
use crate::snapshot::{Condition, Snapshot, parse_rfc3339};
use crate::util::human_duration;
use finalizers::finalizer_why;
use gc::gc_why;
use namespace::{condition_ok, namespace_why};
use remedies::remedies;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;
use verdict::verdict;

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
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "by_group::list"
    )]
    pub waiting_for: Vec<ObjectRef>,
    /// The field managers that set it (`metadata.managedFields`); empty when not read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub set_by: Vec<String>,
    /// Where the controller's workload was found in the input, if anywhere.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "by_group::list"
    )]
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
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "by_group::option"
    )]
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
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "by_group::list"
    )]
    pub dependents: Vec<ObjectRef>,
    /// Owners in foreground deletion that wait for this object to go (its references with
    /// blockOwnerDeletion=true to them).
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "by_group::list"
    )]
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
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "by_group::list"
    )]
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
    #[serde(serialize_with = "by_group::one")]
    pub object: ObjectRef,
    /// `exists`, `terminating`, or `unknown` (not in the input, and not proven absent).
    pub state: &'static str,
    /// One sentence: the answer.
    pub verdict: String,
    /// What becomes of it and when: the end state `collect` predicts for it on the same input.
    pub outcome: ObjectOutcome,
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

pub(super) fn refs(snap: &Snapshot, ids: impl IntoIterator<Item = ObjId>) -> Vec<ObjectRef> {
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

pub(super) fn is_namespace(snap: &Snapshot, id: ObjId) -> bool {
    let r = snap.resource_of(snap.store.object(id));
    r.group.is_empty() && r.kind == "Namespace"
}

/// Explains object `id` of `gc`'s snapshot, from `analysis`, the plans of the same snapshot.
pub fn why(gc: &GarbageCollector<'_>, analysis: &Analysis, id: ObjId, extras: &Extras) -> Why {
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
    let outcome = analysis.outcome(gc, id);
    let collateral = !gc.rules.coordinate_keyed_absent_cache() && {
        let bad = gc.misdirected_owner_uids(&state);
        store
            .owner_refs(id)
            .iter()
            .any(|r| bad.get(&r.uid).is_some_and(|&b| b != id))
    };
    let verdict = verdict(&verdict::Subject {
        object: &object,
        terminating,
        age: terminating_for.as_deref(),
        finalizers: &finalizers,
        namespace: namespace.as_ref(),
        gc: &gc_why,
        outcome: &outcome,
        collateral,
    });
    let remedies = remedies(gc, &state, id, &finalizers, namespace.as_ref());
    Why {
        object,
        state: if terminating { "terminating" } else { "exists" },
        verdict,
        outcome,
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

/// The answer for an object the input does not hold where it does not prove it absent: its
/// kind was forbidden, failed, not listed, or (files) not proven complete there. Everything
/// about it is unknown, never "not found".
pub fn unread(object: ObjectRef, reason: String) -> Why {
    let who = object.to_string();
    Why {
        verdict: format!(
            "Whether {who} exists, and so what the GC does with it, is unknown: {reason}."
        ),
        outcome: ObjectOutcome::unknown(),
        object,
        state: "unknown",
        deletion_timestamp: None,
        terminating_for: None,
        finalizers: Vec::new(),
        namespace: None,
        gc: GcWhy {
            verdict: "unknown",
            row: None,
            explanation: format!("unknown: {reason}"),
            owner_references: Vec::new(),
            dependents: Vec::new(),
            blocks: Vec::new(),
        },
        conditions: Vec::new(),
        remedies: Vec::new(),
        unknowns: vec![reason],
    }
}
