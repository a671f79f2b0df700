//! Classification of ownerReferences: upstream's `isDangling` and `classifyReferences` (§3.3,
//! §3.4) over a snapshot, extended with the answers a snapshot adds: *unresolvable* (the REST
//! mapping fails: the GC retries forever), *invalid scope* (cluster-scoped dependent →
//! namespaced kind) and *unknown* (the snapshot cannot tell: never reported as dangling).

use super::GarbageCollector;
use super::rest_mapper::{GrId, Mapping};
use super::state::State;
use crate::model::{ObjId, OwnerRef, Sym};
use serde::Serialize;

/// How the GC would classify one ownerReference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefClass {
    /// The owner exists with this UID and is not in foreground deletion.
    Solid {
        /// The owner.
        owner: ObjId,
    },
    /// The owner exists and is being deleted in the foreground ("waitingForDependentsDeletion").
    Waiting {
        /// The owner.
        owner: ObjId,
    },
    /// The owner, looked up by the reference's coordinates in the dependent's namespace, does
    /// not exist or has another UID.
    Dangling(Dangling),
    /// The apiVersion/kind is not served: the GC's REST mapping fails, the dependent is retried
    /// with backoff forever and never collected (§6.8).
    Unresolvable {
        /// Why.
        reason: String,
    },
    /// A cluster-scoped dependent names a namespaced owner kind: the GC drops the dependent
    /// and never collects it (v1.20+, §6.7).
    InvalidScope,
    /// The snapshot cannot tell (resource forbidden or not listed, discovery failed, kind not
    /// in the input).
    Unknown {
        /// Why.
        reason: String,
    },
}

/// Why a reference is dangling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dangling {
    /// No object of that kind and name in the namespace the GC looks in.
    Absent,
    /// An object of that kind and name exists there, with another UID.
    UidMismatch {
        /// The object found by name.
        found: ObjId,
    },
}

impl RefClass {
    /// A short, stable label (`solid`, `waiting`, `dangling`, `unresolvable`, `invalid-scope`,
    /// `unknown`).
    pub fn label(&self) -> &'static str {
        match self {
            RefClass::Solid { .. } => "solid",
            RefClass::Waiting { .. } => "waiting",
            RefClass::Dangling(_) => "dangling",
            RefClass::Unresolvable { .. } => "unresolvable",
            RefClass::InvalidScope => "invalid-scope",
            RefClass::Unknown { .. } => "unknown",
        }
    }

    /// True for the classes that make `classifyReferences` return an error (no action).
    pub fn is_error(&self) -> bool {
        matches!(self, RefClass::Unresolvable { .. } | RefClass::InvalidScope)
    }
}

/// Serializable label form of [`RefClass`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RefClassLabel {
    /// See [`RefClass::Solid`].
    Solid,
    /// See [`RefClass::Waiting`].
    Waiting,
    /// See [`RefClass::Dangling`].
    Dangling,
    /// See [`RefClass::Unresolvable`].
    Unresolvable,
    /// See [`RefClass::InvalidScope`].
    InvalidScope,
    /// See [`RefClass::Unknown`].
    Unknown,
}

impl GarbageCollector<'_> {
    /// `isDangling` (§3.3): looks the owner of `r` up the way the GC does (REST mapping, then a
    /// GET by name in the dependent's namespace for namespaced kinds, then a UID comparison).
    /// An owner found with the reference's UID is [`RefClass::Solid`]: this function never
    /// answers [`RefClass::Waiting`]; [`GarbageCollector::classify_reference`] tells those apart.
    pub fn is_dangling(&self, state: &State, dependent: ObjId, r: &OwnerRef) -> RefClass {
        let snap = self.snap;
        // Before v1.20 a UID recorded as absent makes every reference to it dangling, whatever
        // its coordinates (issue #65200).
        if !self.rules.coordinate_keyed_absent_cache() && state.absent_owner_cached(r.uid) {
            return RefClass::Dangling(Dangling::Absent);
        }
        let dep_ns = snap.store.object(dependent).namespace;
        let (gr, namespaced) = match self.rest_mapper.map(snap, r.api_version, r.kind) {
            Mapping::Resolved(gr) => (Some(gr), self.rest_mapper.gr(gr).namespaced),
            Mapping::Unlisted { namespaced, why } => {
                if dep_ns.is_empty() && namespaced {
                    return self.cluster_scoped_dependent_of_namespaced_kind();
                }
                return RefClass::Unknown { reason: why };
            }
            // Maps, but the GET of the guessed resource 404s (§3.3 step 3 quirk).
            Mapping::Phantom { namespaced } => {
                if dep_ns.is_empty() && namespaced {
                    return self.cluster_scoped_dependent_of_namespaced_kind();
                }
                return RefClass::Dangling(Dangling::Absent);
            }
            Mapping::Unresolvable(reason) => return RefClass::Unresolvable { reason },
            Mapping::Unknown(reason) => return RefClass::Unknown { reason },
        };
        let gr = gr.expect("resolved");
        if dep_ns.is_empty() && namespaced {
            return self.cluster_scoped_dependent_of_namespaced_kind();
        }
        let lookup_ns = if namespaced { dep_ns } else { Sym::EMPTY };
        match self
            .rest_mapper
            .find_ref(snap, gr, lookup_ns, r.name, r.uid)
        {
            Some(found) if state.exists(found) => {
                if snap.store.object(found).uid != r.uid {
                    match self.rest_mapper.twin(snap, gr, found, r.uid) {
                        // The input contradicts itself (files captured at different times, an
                        // object recreated in between): which one is current cannot be told.
                        Some(twin) if state.exists(twin) => RefClass::Unknown {
                            reason: format!(
                                "the input holds two objects {} with different uids ({} and {}); \
                                 which one exists now cannot be told",
                                snap.describe(found),
                                snap.store.str(snap.store.object(found).uid),
                                snap.store.str(r.uid)
                            ),
                        },
                        _ => RefClass::Dangling(Dangling::UidMismatch { found }),
                    }
                } else {
                    RefClass::Solid { owner: found }
                }
            }
            // Listed once, deleted by the simulation since: absent.
            Some(_) => RefClass::Dangling(Dangling::Absent),
            None => {
                let coverage = &self.rest_mapper.gr(gr).coverage;
                if coverage.covers(snap.store.str(lookup_ns)) {
                    RefClass::Dangling(Dangling::Absent)
                } else {
                    RefClass::Unknown {
                        reason: unknown_reason(self, gr, snap.store.str(lookup_ns)),
                    }
                }
            }
        }
    }

    /// One reference as `classifyReferences` (§3.4) sorts it: [`Self::is_dangling`], with an
    /// owner in foreground deletion (terminating with `foregroundDeletion`) as
    /// [`RefClass::Waiting`].
    pub fn classify_reference(&self, state: &State, dependent: ObjId, r: &OwnerRef) -> RefClass {
        match self.is_dangling(state, dependent, r) {
            RefClass::Solid { owner } if state.deleting_dependents(&self.snap.store, owner) => {
                RefClass::Waiting { owner }
            }
            class => class,
        }
    }

    /// A cluster-scoped dependent naming a namespaced kind: unresolvable since v1.20; before,
    /// the owner was GET at cluster scope, 404'd, and the reference was dangling (§6.7).
    fn cluster_scoped_dependent_of_namespaced_kind(&self) -> RefClass {
        if self.rules.cluster_scoped_to_namespaced_is_unresolvable() {
            RefClass::InvalidScope
        } else {
            RefClass::Dangling(Dangling::Absent)
        }
    }

    /// The live object a *dangling* reference's UID actually belongs to, if any (a reference
    /// into another namespace, or with the wrong kind or name): the owner exists, the reference
    /// just cannot reach it. `None` for references that are not dangling.
    pub fn misdirected(&self, state: &State, dependent: ObjId, r: &OwnerRef) -> Option<ObjId> {
        let holder = self.snap.store.by_uid(r.uid).filter(|&h| h != dependent)?;
        matches!(self.is_dangling(state, dependent, r), RefClass::Dangling(_)).then_some(holder)
    }

    /// Owner UIDs that a misdirected reference gets recorded as absent, each with the first
    /// dependent (in observation order) whose reference does it. Before v1.20 the absent cache
    /// is keyed by UID, so this condemns every other dependent of the UID (issue #65200).
    pub fn misdirected_owner_uids(&self, state: &State) -> std::collections::BTreeMap<Sym, ObjId> {
        let store = &self.snap.store;
        let mut out = std::collections::BTreeMap::new();
        for id in store.ids().filter(|&id| self.graph.monitors(id)) {
            for r in store.owner_refs(id) {
                if self.misdirected(state, id, r).is_some() {
                    out.entry(r.uid).or_insert(id);
                }
            }
        }
        out
    }

    /// `classifyReferences` (§3.4): every current reference of `dependent`, in order.
    pub fn classify_references(&self, state: &State, dependent: ObjId) -> Vec<RefClass> {
        state
            .owner_refs(&self.snap.store, dependent)
            .iter()
            .map(|r| self.classify_reference(state, dependent, r))
            .collect()
    }
}

fn unknown_reason(gc: &GarbageCollector<'_>, gr: GrId, ns: &str) -> String {
    use crate::snapshot::ListOutcome::*;
    let g = gc.rest_mapper.gr(gr);
    let res = if g.group.is_empty() {
        g.plural.clone()
    } else {
        format!("{}.{}", g.plural, g.group)
    };
    let place = if ns.is_empty() {
        String::new()
    } else {
        format!(" in namespace {ns}")
    };
    match &g.coverage {
        Forbidden { .. } => format!("listing {res} was forbidden"),
        Failed { message } => format!("listing {res} failed: {message}"),
        Ignored { .. } => format!("{res} is not monitored by the GC and was not listed"),
        Partial { .. } => format!("{res}{place} was not collected"),
        NotListed => format!("{res} was not listed"),
        Complete => format!("{res}{place} was not listed"),
    }
}
