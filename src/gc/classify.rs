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
    /// The owner's name is not a valid path segment (`.`, `..`, or it contains `/` or `%`)
    /// and the GC's GET for it fails (a list, a discovery document, or the API server's 400):
    /// the dependent is retried forever and never collected (see [`request_path`]).
    Unrequestable {
        /// Why.
        reason: String,
    },
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
            RefClass::Unrequestable { .. } => "unrequestable",
            RefClass::Unknown { .. } => "unknown",
        }
    }

    /// True for the classes that make `classifyReferences` return an error (no action).
    pub fn is_error(&self) -> bool {
        matches!(
            self,
            RefClass::Unresolvable { .. } | RefClass::InvalidScope | RefClass::Unrequestable { .. }
        )
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
    /// See [`RefClass::Unrequestable`].
    Unrequestable,
    /// See [`RefClass::Unknown`].
    Unknown,
}

impl GarbageCollector<'_> {
    /// `isDangling` (§3.3): looks the owner of `r` up the way the GC does (REST mapping, then a
    /// GET by name in the dependent's namespace for namespaced kinds, then a UID comparison).
    /// An owner found with the reference's UID is [`RefClass::Solid`]: this function never
    /// answers [`RefClass::Waiting`]; [`GarbageCollector::classify_reference`] tells those apart.
    pub fn is_dangling(&self, state: &State, dependent: ObjId, r: &OwnerRef) -> RefClass {
        self.is_dangling_in(state, self.snap.store.object(dependent).namespace, r)
    }

    /// [`Self::is_dangling`] for a dependent in namespace `dep_ns` (empty: cluster-scoped)
    /// that need not be in the snapshot: the GC's lookup reads only the dependent's
    /// namespace (forensics asks it of an object a log shows, with the references the log's
    /// bodies give, against the state before the log).
    pub fn is_dangling_in(&self, state: &State, dep_ns: Sym, r: &OwnerRef) -> RefClass {
        let snap = self.snap;
        // Before v1.20 a UID recorded as absent makes every reference to it dangling, whatever
        // its coordinates (issue #65200).
        if !self.rules.coordinate_keyed_absent_cache() && state.absent_owner_cached(r.uid) {
            return RefClass::Dangling(Dangling::Absent);
        }
        let (gr, namespaced) = match self.rest_mapper.map(snap, r.api_version, r.kind) {
            Mapping::Resolved(gr) => (gr, self.rest_mapper.gr(gr).namespaced),
            Mapping::Unlisted { namespaced, why } => {
                if dep_ns.is_empty() && namespaced {
                    return self.cluster_scoped_dependent_of_namespaced_kind();
                }
                // The kind is served but its objects were not listed: the GET cannot be
                // answered here, unless the UID is an object's at other coordinates.
                return match self.held_elsewhere(r.uid, None, Sym::EMPTY) {
                    Some(_) => RefClass::Dangling(Dangling::Absent),
                    None => RefClass::Unknown { reason: why },
                };
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
        if dep_ns.is_empty() && namespaced {
            return self.cluster_scoped_dependent_of_namespaced_kind();
        }
        let lookup_ns = if namespaced { dep_ns } else { Sym::EMPTY };
        match self.get_owner(state, gr, lookup_ns, r.name, r.uid) {
            GetResult::Found(owner) => RefClass::Solid { owner },
            GetResult::NotFound(d) => RefClass::Dangling(d),
            GetResult::Error(reason) => RefClass::Unrequestable { reason },
            GetResult::Unknown(reason) => RefClass::Unknown { reason },
        }
    }

    /// The owner GET of §3.3 step 6 against the snapshot: `gr`, `ns` (empty for
    /// cluster-scoped kinds), `name`, compared with `uid`. Names that are not path segments go
    /// where the GC's request path goes ([`request_path`]).
    pub fn get_owner(&self, state: &State, gr: GrId, ns: Sym, name: Sym, uid: Sym) -> GetResult {
        let snap = self.snap;
        let name_text = snap.store.str(name);
        if !is_path_segment_name(name_text) {
            return self.get_by_path(state, gr, ns, name_text, uid);
        }
        match self.rest_mapper.find_ref(snap, gr, ns, name, uid) {
            Some(found) if state.exists(found) => {
                if snap.store.object(found).uid != uid {
                    match self.rest_mapper.twin(snap, gr, found, uid) {
                        // The input contradicts itself (files captured at different times, an
                        // object recreated in between): which one is current cannot be told.
                        Some(twin) if state.exists(twin) => GetResult::Unknown(format!(
                            "the input holds two objects {} with different uids ({} and {}); \
                             which one exists now cannot be told",
                            snap.describe(found),
                            snap.store.str(snap.store.object(found).uid),
                            snap.store.str(uid)
                        )),
                        _ => match self.redacted_lookup(gr, ns, name, uid, Some(found)) {
                            Some(why) => GetResult::Unknown(why),
                            None => GetResult::NotFound(Dangling::UidMismatch { found }),
                        },
                    }
                } else {
                    GetResult::Found(found)
                }
            }
            // Listed once, deleted by the simulation since: absent.
            Some(_) => GetResult::NotFound(Dangling::Absent),
            None => {
                let coverage = &self.rest_mapper.gr(gr).coverage;
                if self.held_elsewhere(uid, Some(gr), ns).is_some() {
                    GetResult::NotFound(Dangling::Absent)
                } else if coverage.covers(snap.store.str(ns)) {
                    match self.redacted_lookup(gr, ns, name, uid, None) {
                        Some(why) => GetResult::Unknown(why),
                        None => GetResult::NotFound(Dangling::Absent),
                    }
                } else {
                    GetResult::Unknown(unknown_reason(self, gr, snap.store.str(ns)))
                }
            }
        }
    }

    /// Why a GET that finds no owner in the input says nothing of the cluster, where a
    /// support-bundle collector redacted what it compares ([`crate::catalog::REDACTED`]): the
    /// reference's name or UID (the owner's real one is not in the input); the UID of the object
    /// `found` by that name (its real one may be the reference's); or, when none was found, the
    /// name of an object of the kind in that namespace (it may be the owner, under the name the
    /// GET asks for). Only a GET that finds no owner asks, so inputs without redactions pay
    /// nothing for it.
    fn redacted_lookup(
        &self,
        gr: GrId,
        ns: Sym,
        name: Sym,
        uid: Sym,
        found: Option<ObjId>,
    ) -> Option<String> {
        let store = &self.snap.store;
        let redacted = crate::catalog::REDACTED;
        if store.str(name).contains(redacted) || store.str(uid).contains(redacted) {
            return Some(format!(
                "the reference's name or uid is a support-bundle redaction (`{redacted}`): which object it names cannot be told"
            ));
        }
        if let Some(found) = found {
            return store
                .str(store.object(found).uid)
                .contains(redacted)
                .then(|| format!(
                    "the uid of {} is a support-bundle redaction (`{redacted}`): whether it is the owner cannot be told",
                    self.snap.describe(found)
                ));
        }
        let hidden = store.strings.get(redacted)?;
        self.rest_mapper.find_ref(self.snap, gr, ns, hidden, uid)?;
        Some(format!(
            "the input holds an object of this kind here whose name is a support-bundle redaction (`{redacted}`): it may be the owner"
        ))
    }

    /// Dangling by UID (issue 11 point 4): the object holding `uid`, when it lives at other
    /// coordinates than the GET at (`gr`, `ns`) looks at. UIDs are unique cluster-wide, so that
    /// GET can never return it: the reference is dangling whatever the input's coverage of the
    /// place it looks in. (`gr` `None`: the looked-up resource is not in the input at all.)
    pub fn held_elsewhere(&self, uid: Sym, gr: Option<GrId>, ns: Sym) -> Option<ObjId> {
        let holder = self.snap.store.by_uid(uid)?;
        // A UID a support-bundle collector redacted is not unique: it identifies nothing.
        if self.snap.store.str(uid).contains(crate::catalog::REDACTED) {
            return None;
        }
        let o = self.snap.store.object(holder);
        let holder_gr = self.rest_mapper.gr_of_resource(o.resource);
        (Some(holder_gr) != gr || o.namespace != ns).then_some(holder)
    }

    /// A GET whose name is not a path segment (gc-model §3.3, issue 12): v1.20.2's metadata
    /// client joins the URL segments with `path.Join`, so `.` and `..` are resolved and `/`
    /// adds segments before the request is sent, and the API server rejects a name containing
    /// `%` (400). Observed on the real v1.20.2 GC: `.` → a list (error, retried forever); `..`
    /// of a namespaced core kind → the Namespace object (another UID: dangling); `..` of a
    /// namespaced kind of another group → 404; `..` of a cluster-scoped kind → a discovery
    /// document (error); `a/b` → a subresource (404); `x/../y` → object `y`; `%` → 400.
    fn get_by_path(&self, state: &State, gr: GrId, ns: Sym, name: &str, uid: Sym) -> GetResult {
        let store = &self.snap.store;
        let g = self.rest_mapper.gr(gr);
        match request_path(&g.group, g.namespaced, store.str(ns), &g.plural, name) {
            RequestPath::Object {
                group,
                plural,
                namespace,
                name,
            } => {
                if name.contains('%') {
                    return GetResult::Error(format!(
                        "the API server rejects the owner name {name:?} (may not contain '%')"
                    ));
                }
                let Some(target) = self.rest_mapper.gr_by_plural(&group, &plural) else {
                    if plural == "namespaces" && !group.is_empty() {
                        return GetResult::NotFound(Dangling::Absent);
                    }
                    return match self.held_elsewhere(uid, None, Sym::EMPTY) {
                        Some(_) => GetResult::NotFound(Dangling::Absent),
                        None => GetResult::Unknown(format!(
                            "the GC's request for this owner name reaches {plural}{} {name:?}, \
                             which the input does not hold",
                            if group.is_empty() {
                                String::new()
                            } else {
                                format!(".{group}")
                            }
                        )),
                    };
                };
                let (Some(ns_sym), Some(name_sym)) =
                    (store.strings.get(&namespace), store.strings.get(&name))
                else {
                    // No object has that name (it is not even interned).
                    let cov = &self.rest_mapper.gr(target).coverage;
                    return if cov.covers(&namespace)
                        || self.held_elsewhere(uid, None, Sym::EMPTY).is_some()
                    {
                        GetResult::NotFound(Dangling::Absent)
                    } else {
                        GetResult::Unknown(unknown_reason(self, target, &namespace))
                    };
                };
                match self.rest_mapper.find(store, target, ns_sym, name_sym) {
                    Some(o) if state.exists(o) && store.object(o).uid == uid => GetResult::Found(o),
                    Some(o) if state.exists(o) => {
                        GetResult::NotFound(Dangling::UidMismatch { found: o })
                    }
                    Some(_) => GetResult::NotFound(Dangling::Absent),
                    None => {
                        let cov = &self.rest_mapper.gr(target).coverage;
                        if cov.covers(&namespace)
                            || self.held_elsewhere(uid, Some(target), ns_sym).is_some()
                        {
                            GetResult::NotFound(Dangling::Absent)
                        } else {
                            GetResult::Unknown(unknown_reason(self, target, &namespace))
                        }
                    }
                }
            }
            RequestPath::Subresource {
                group,
                plural,
                namespace,
                name,
            } => {
                let found = self
                    .rest_mapper
                    .gr_by_plural(&group, &plural)
                    .and_then(|t| {
                        let (n, m) = (store.strings.get(&namespace)?, store.strings.get(&name)?);
                        self.rest_mapper
                            .find(store, t, n, m)
                            .filter(|&o| state.exists(o))
                    });
                match found {
                    None => GetResult::NotFound(Dangling::Absent),
                    Some(o) => GetResult::Unknown(format!(
                        "the GC's request for this owner name reaches a subresource of {}",
                        self.snap.describe(o)
                    )),
                }
            }
            RequestPath::Fails(why) => GetResult::Error(why),
        }
    }

    /// The GET of a virtual node's identity (attemptToDeleteItem rows 2–4 for an owner no
    /// informer shows): found with the same UID, absent (404 or another UID), or not answerable.
    pub fn get_by_identity(&self, state: &State, id: &super::graph::Identity) -> GetResult {
        match self.rest_mapper.map(self.snap, id.api_version, id.kind) {
            Mapping::Resolved(gr) => {
                let namespaced = self.rest_mapper.gr(gr).namespaced;
                if namespaced && id.namespace.is_empty() {
                    // Before v1.20 the GET went out at cluster scope and 404'd.
                    return GetResult::NotFound(Dangling::Absent);
                }
                let ns = if namespaced { id.namespace } else { Sym::EMPTY };
                self.get_owner(state, gr, ns, id.name, id.uid)
            }
            Mapping::Phantom { .. } => GetResult::NotFound(Dangling::Absent),
            Mapping::Unlisted { why, .. } => match self.held_elsewhere(id.uid, None, Sym::EMPTY) {
                Some(_) => GetResult::NotFound(Dangling::Absent),
                None => GetResult::Unknown(why),
            },
            Mapping::Unresolvable(reason) => {
                GetResult::Error(format!("unable to get REST mapping: {reason}"))
            }
            Mapping::Unknown(reason) => GetResult::Unknown(reason),
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
        let mut out = Vec::new();
        self.classify_references_into(state, dependent, &mut out);
        out
    }

    /// [`Self::classify_references`] into `out` (cleared first), a buffer the caller reuses.
    pub fn classify_references_into(
        &self,
        state: &State,
        dependent: ObjId,
        out: &mut Vec<RefClass>,
    ) {
        out.clear();
        out.extend(
            state
                .owner_refs(&self.snap.store, dependent)
                .iter()
                .map(|r| self.classify_reference(state, dependent, r)),
        );
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
        // A file input that holds some objects of the kind there cannot prove it holds all.
        Partial { .. } if gc.snap.holds_objects_of(&g.group, &g.plural, ns) => {
            format!("{res}{place} is not proven complete")
        }
        Partial { .. } => format!("{res}{place} was not collected"),
        NotListed => format!("{res} was not listed"),
        Complete => format!("{res}{place} was not listed"),
    }
}

/// What a GET of an owner answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GetResult {
    /// The object, with the UID asked for.
    Found(ObjId),
    /// 404, or an object with another UID.
    NotFound(Dangling),
    /// The request fails (not a 404): the GC retries forever.
    Error(String),
    /// The snapshot cannot answer.
    Unknown(String),
}

/// Whether `name` is a valid path segment name (the API server's rule: not `.` or `..`, no `/`
/// or `%`). Names that are not cannot be requested as themselves (issue 12).
pub fn is_path_segment_name(name: &str) -> bool {
    // One scan for both bytes: asked at least twice for each of a million references.
    name != "." && name != ".." && memchr::memchr2(b'/', b'%', name.as_bytes()).is_none()
}

/// Where a GC request for an owner named `name` goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestPath {
    /// `GET` of one object (possibly another than the name says).
    Object {
        /// Its group.
        group: String,
        /// Its resource.
        plural: String,
        /// Its namespace (`""`: cluster-scoped).
        namespace: String,
        /// Its name.
        name: String,
    },
    /// A subresource of an object.
    Subresource {
        /// The object's group.
        group: String,
        /// Its resource.
        plural: String,
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
    },
    /// Not an object: a list or a discovery document (the GC's decode fails), or a path
    /// outside the API.
    Fails(String),
}

/// The path the GC's metadata client requests for the owner `name` of resource `plural` in
/// group `group` (namespace `namespace` when `namespaced`): the URL segments joined with Go's
/// `path.Join` (empty segments and `.` dropped, `..` removing the one before), then read back
/// the way the API server routes it. The group version is irrelevant to where it lands.
pub fn request_path(
    group: &str,
    namespaced: bool,
    namespace: &str,
    plural: &str,
    name: &str,
) -> RequestPath {
    let mut segs: Vec<&str> = Vec::new();
    let prefix: Vec<&str> = if group.is_empty() {
        vec!["api", "v"]
    } else {
        vec!["apis", group, "v"]
    };
    let mut raw: Vec<&str> = prefix.clone();
    if namespaced {
        raw.push("namespaces");
        raw.push(namespace);
    }
    raw.push(plural);
    raw.extend(name.split('/'));
    for s in raw {
        match s {
            "" | "." => {}
            ".." => {
                segs.pop();
            }
            s => segs.push(s),
        }
    }
    let fails = |what: &str| {
        RequestPath::Fails(format!(
            "the GC's GET of the owner name {name:?} reaches {what}, not an object"
        ))
    };
    let (g, rest): (&str, &[&str]) = match segs.as_slice() {
        ["api", "v", rest @ ..] => ("", rest),
        ["apis", g, "v", rest @ ..] => (g, rest),
        [] | ["api"] | ["apis"] | ["apis", _] => return fails("a discovery document"),
        _ => return fails("a path outside the API"),
    };
    let object = |plural: &str, namespace: &str, name: &str, sub: bool| {
        let (group, plural, namespace, name) = (
            g.to_owned(),
            plural.to_owned(),
            namespace.to_owned(),
            name.to_owned(),
        );
        if sub {
            RequestPath::Subresource {
                group,
                plural,
                namespace,
                name,
            }
        } else {
            RequestPath::Object {
                group,
                plural,
                namespace,
                name,
            }
        }
    };
    match rest {
        [] => fails("a discovery document"),
        ["namespaces", ns, plural, name, more @ ..] => object(plural, ns, name, !more.is_empty()),
        ["namespaces", _, _] => fails("a list"),
        [plural] => fails(&format!("the list of {plural}")),
        [plural, name, more @ ..] => object(plural, "", name, !more.is_empty()),
    }
}
