//! What the namespace controller does with a namespace being deleted, and what keeps the
//! namespace from going (upstream `NamespacedResourcesDeleter`; docs/gc-model.md §10).
//!
//! A deleted namespace goes once both `spec.finalizers` and `metadata.finalizers` are empty.
//! The controller owns one token in `spec.finalizers`, `kubernetes`, and removes it only after
//! a pass that deletes every resource in the namespace (each with `propagationPolicy:
//! Background`), finds none left and hit no error — a failed discovery of *any* group-version
//! included, so one unavailable APIService holds every terminating namespace (§10.2). Content
//! that carries finalizers other than the GC's stays until their controllers remove them
//! (a Background delete drops `orphan` and `foregroundDeletion`, Appendix B). Any other token
//! in `spec.finalizers` stays until someone calls `/finalize`; the GC's finalizers on the
//! namespace object itself are the GC's to remove. From 1.33 (OrderedNamespaceDeletion) pods
//! go first: nothing else is deleted while a pod remains (§10.3).
//!
//! Two entry points: [`static_holds`] — what holds a namespace whatever happens to its content
//! (the GC's simulation uses it, with its own view of the content) — and [`evaluate`], the
//! whole answer for one namespace as the snapshot has it (`why`, `audit`).

use crate::catalog::KubeVersion;
use crate::model::{ObjId, Sym, finalizers};
use crate::snapshot::{Condition, ListOutcome, Snapshot};
use std::collections::{BTreeMap, HashMap};

/// The first release whose namespace controller deletes pods before anything else
/// (KEP-5080 OrderedNamespaceDeletion: beta and on by default in 1.33, GA in 1.34; the
/// back-ports to 1.30–1.32 are off by default, so those releases keep the old order).
pub const ORDERED_NAMESPACE_DELETION: KubeVersion = KubeVersion::release(33, 0);

/// The namespace controller's condition types (match on the type: the reasons and messages
/// changed between releases).
pub mod condition {
    /// Discovery failed for some group-version.
    pub const DISCOVERY_FAILURE: &str = "NamespaceDeletionDiscoveryFailure";
    /// A group-version could not be parsed.
    pub const GROUP_VERSION_PARSING_FAILURE: &str = "NamespaceDeletionGroupVersionParsingFailure";
    /// Deleting or listing some resource failed.
    pub const CONTENT_FAILURE: &str = "NamespaceDeletionContentFailure";
    /// Objects remained after the last pass.
    pub const CONTENT_REMAINING: &str = "NamespaceContentRemaining";
    /// Remaining objects carry finalizers.
    pub const FINALIZERS_REMAINING: &str = "NamespaceFinalizersRemaining";
    /// All five, in the order the controller writes them.
    pub const ALL: [&str; 5] = [
        DISCOVERY_FAILURE,
        GROUP_VERSION_PARSING_FAILURE,
        CONTENT_FAILURE,
        CONTENT_REMAINING,
        FINALIZERS_REMAINING,
    ];
}

/// Whether a namespace being deleted will go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outlook {
    /// Nothing holds it: the namespace controller empties it and it goes.
    Finishes,
    /// Not everything it needs was read: it may or may not go.
    Unknown,
    /// Held by finalizers that controllers remove once their cleanup is done; it goes when
    /// they do.
    Waiting,
    /// Held by something no controller will resolve (a failed discovery, a foreign
    /// `spec.finalizers` token): it stays until a person acts.
    Stuck,
}

impl Outlook {
    /// The lower-case word for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Outlook::Finishes => "finishes",
            Outlook::Unknown => "unknown",
            Outlook::Waiting => "waiting",
            Outlook::Stuck => "stuck",
        }
    }
}

/// Objects of the namespace that carry one finalizer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContentGroup {
    /// The finalizer.
    pub finalizer: String,
    /// The objects carrying it.
    pub objects: Vec<ObjId>,
}

/// One thing that keeps a namespace from going.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blocker {
    /// Discovery failed for these group-versions (`group/version`, message): the `kubernetes`
    /// token is never removed while any fails. `observed` is the namespace's own
    /// `NamespaceDeletionDiscoveryFailure` message, when its status says so.
    DiscoveryFailure {
        /// Failing group-versions and why, from this read's discovery.
        group_versions: Vec<(String, String)>,
        /// The controller's own condition message, when it reports the failure.
        observed: Option<String>,
        /// True when this read ran discovery itself (a live read): an `observed` failure that
        /// discovery no longer shows is the controller's last pass, which its next retry (within
        /// its one-minute backoff) should get past.
        discovery_read: bool,
    },
    /// `spec.finalizers` tokens other than `kubernetes`: only `/finalize` removes them.
    ForeignSpecFinalizers(Vec<String>),
    /// The namespace controller's other failure conditions are `True` (content deletion or
    /// group-version parsing): it retries, and the namespace stays meanwhile.
    ControllerFailure(Condition),
    /// Content held by finalizers other than the GC's, grouped by finalizer.
    ContentHeld(Vec<ContentGroup>),
    /// The GC's finalizers (`orphan`, `foregroundDeletion`) on the namespace object itself.
    GcFinalizers(Vec<String>),
    /// 1.33+: pods remain, and nothing else is deleted until they are gone.
    PodsFirst(Vec<ObjId>),
    /// Resources whose objects in this namespace were not read (`group/version/plural` and
    /// why): content there is unknown.
    ContentUnknown(Vec<(String, String)>),
    /// The namespace's `spec.finalizers` were not read (a metadata-only input).
    SpecUnknown,
}

impl Blocker {
    /// What this blocker makes of the outlook on its own.
    pub fn outlook(&self) -> Outlook {
        match self {
            Blocker::DiscoveryFailure {
                group_versions,
                discovery_read: true,
                ..
            } if group_versions.is_empty() => Outlook::Waiting,
            Blocker::DiscoveryFailure { .. } | Blocker::ForeignSpecFinalizers(_) => Outlook::Stuck,
            Blocker::ControllerFailure(_) | Blocker::ContentHeld(_) | Blocker::GcFinalizers(_) => {
                Outlook::Waiting
            }
            Blocker::PodsFirst(_) => Outlook::Finishes,
            Blocker::ContentUnknown(_) | Blocker::SpecUnknown => Outlook::Unknown,
        }
    }
}

/// The namespace controller's view of one namespace.
#[derive(Clone, Debug)]
pub struct NamespaceDeletion {
    /// The Namespace object.
    pub namespace: ObjId,
    /// Its name.
    pub name: String,
    /// True when it has a deletionTimestamp. When false, the answer is what a delete would
    /// meet now.
    pub terminating: bool,
    /// Its content in the snapshot (every object of the namespace).
    pub content: Vec<ObjId>,
    /// What keeps it, most decisive first.
    pub blockers: Vec<Blocker>,
    /// The namespace controller's conditions that are `True` on the namespace now.
    pub failing_conditions: Vec<Condition>,
    /// Whether it will go.
    pub outlook: Outlook,
}

/// Objects by namespace name, for every namespace at once (one pass over the store).
pub fn content_index(snap: &Snapshot) -> HashMap<Sym, Vec<ObjId>> {
    let store = &snap.store;
    let mut idx: HashMap<Sym, Vec<ObjId>> = HashMap::new();
    for id in store.ids() {
        let ns = store.object(id).namespace;
        if !ns.is_empty() {
            idx.entry(ns).or_default().push(id);
        }
    }
    idx
}

/// The objects of one namespace (one pass over the store; use [`content_index`] for many).
pub fn content_of(snap: &Snapshot, namespace: &str) -> Vec<ObjId> {
    let store = &snap.store;
    store
        .ids()
        .filter(|&id| store.str(store.object(id).namespace) == namespace)
        .collect()
}

/// What holds namespace `name` whatever happens to its content: failed discovery, foreign
/// `spec.finalizers` tokens, the controller's own failure conditions, and content or spec that
/// was not read.
pub fn static_holds(snap: &Snapshot, name: &str) -> Vec<Blocker> {
    let mut out = Vec::new();
    let status = snap.details.namespaces.get(name);
    let observed = status
        .and_then(|s| s.condition(condition::DISCOVERY_FAILURE))
        .filter(|c| c.is_true())
        .map(|c| c.message.clone());
    if !snap.discovery_failures.is_empty() || observed.is_some() {
        out.push(Blocker::DiscoveryFailure {
            group_versions: snap
                .discovery_failures
                .iter()
                .map(|f| (f.group_version.clone(), f.message.clone()))
                .collect(),
            observed,
            discovery_read: snap.provenance.source == crate::snapshot::SourceKind::Live,
        });
    }
    match status {
        Some(s) => {
            let foreign: Vec<String> = s.foreign_spec_finalizers().map(str::to_owned).collect();
            if !foreign.is_empty() {
                out.push(Blocker::ForeignSpecFinalizers(foreign));
            }
            for c in &s.conditions {
                if c.is_true()
                    && (c.type_ == condition::CONTENT_FAILURE
                        || c.type_ == condition::GROUP_VERSION_PARSING_FAILURE)
                {
                    out.push(Blocker::ControllerFailure(c.clone()));
                }
            }
        }
        None => out.push(Blocker::SpecUnknown),
    }
    let unread = unread_resources(snap, name);
    if !unread.is_empty() {
        out.push(Blocker::ContentUnknown(unread));
    }
    out
}

/// Namespaced resources whose objects in `namespace` are not all in the snapshot. Resources
/// the GC ignores are still listed where they can hold content (`events` are read elsewhere:
/// they carry no finalizers and the controller's deletecollection takes them); a non-preferred
/// version's objects are read under the preferred one; resources without `delete` are skipped
/// by the controller too.
fn unread_resources(snap: &Snapshot, namespace: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for r in snap.resources.iter().filter(|r| r.namespaced) {
        let why = match &r.list {
            ListOutcome::Complete | ListOutcome::Ignored { .. } => continue,
            ListOutcome::Partial { .. } if r.list.covers(namespace) => continue,
            ListOutcome::Partial { .. } => "not in the input for this namespace".to_owned(),
            ListOutcome::Forbidden { message } => format!("list forbidden: {message}"),
            ListOutcome::Failed { message } => format!("list failed: {message}"),
            ListOutcome::NotListed => "not listed".to_owned(),
        };
        out.push((format!("{}/{}", r.api_version(), r.plural), why));
    }
    out
}

/// True when `id` is a core Pod.
fn is_pod(snap: &Snapshot, id: ObjId) -> bool {
    let r = snap.resource_of(snap.store.object(id));
    r.group.is_empty() && r.plural == "pods"
}

/// The whole answer for namespace object `ns`, its `content` as the snapshot has it, at
/// release `version`.
pub fn evaluate(
    snap: &Snapshot,
    ns: ObjId,
    content: &[ObjId],
    version: KubeVersion,
) -> NamespaceDeletion {
    let store = &snap.store;
    let o = store.object(ns);
    let name = store.str(o.name).to_owned();
    let mut blockers = static_holds(snap, &name);
    let gc_finalizers: Vec<String> = store
        .finalizers(ns)
        .iter()
        .map(|f| store.str(*f))
        .filter(|f| *f == finalizers::FOREGROUND || *f == finalizers::ORPHAN)
        .map(str::to_owned)
        .collect();
    if !gc_finalizers.is_empty() {
        blockers.push(Blocker::GcFinalizers(gc_finalizers));
    }
    // Content the controller's Background deletes cannot remove: held by finalizers other
    // than the GC's (which those deletes drop).
    let mut held: BTreeMap<String, Vec<ObjId>> = BTreeMap::new();
    for &id in content {
        for f in store.finalizers(id) {
            let f = store.str(*f);
            if f != finalizers::FOREGROUND && f != finalizers::ORPHAN {
                held.entry(f.to_owned()).or_default().push(id);
            }
        }
    }
    if !held.is_empty() {
        blockers.push(Blocker::ContentHeld(
            held.into_iter()
                .map(|(finalizer, objects)| ContentGroup { finalizer, objects })
                .collect(),
        ));
    }
    if version >= ORDERED_NAMESPACE_DELETION {
        let pods: Vec<ObjId> = content
            .iter()
            .copied()
            .filter(|&id| is_pod(snap, id))
            .collect();
        if !pods.is_empty() && pods.len() < content.len() {
            blockers.push(Blocker::PodsFirst(pods));
        }
    }
    blockers.sort_by_key(|b| std::cmp::Reverse(b.outlook()));
    let outlook = blockers
        .iter()
        .map(Blocker::outlook)
        .max()
        .unwrap_or(Outlook::Finishes);
    let failing_conditions = snap
        .details
        .namespaces
        .get(&name)
        .map(|s| {
            s.conditions
                .iter()
                .filter(|c| c.is_true() && condition::ALL.contains(&c.type_.as_str()))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    NamespaceDeletion {
        namespace: ns,
        terminating: o.being_deleted(),
        name,
        content: content.to_vec(),
        blockers,
        failing_conditions,
        outlook,
    }
}
