//! Emulation of the GC's REST mapper and owner lookups (§3.3, Appendix D.3).
//!
//! The GC resolves an ownerReference's apiVersion/kind with a discovery-backed REST mapper that
//! knows every *served* version (not only the preferred one) and accepts the kind exactly or in
//! all-lower-case (§6.9); it then GETs the owner by group/resource, namespace and name. This
//! module answers the same two questions from a snapshot, and says *unknown* whenever the
//! snapshot cannot answer them: a group whose discovery failed, a resource that was forbidden or
//! failed to list, a namespace that was not collected, a kind a file input never mentions.

use crate::catalog::{KubeVersion, builtin};
use crate::model::{BitSet, ObjId, Store, Sym};
use crate::snapshot::{ListOutcome, Snapshot, SourceKind, split_api_version};
use hashbrown::HashMap;

/// A group/resource: the unit objects are shared by across versions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct GrId(pub u32);

/// What is known about one group/resource.
#[derive(Clone, Debug)]
pub struct GroupResource {
    /// API group.
    pub group: String,
    /// Plural resource name.
    pub plural: String,
    /// Kind.
    pub kind: String,
    /// Scope.
    pub namespaced: bool,
    /// The coverage of the snapshot for this resource (merged over its rows).
    pub coverage: ListOutcome,
}

/// The outcome of REST-mapping an ownerReference's apiVersion/kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// Served: lookups go to this group/resource.
    Resolved(GrId),
    /// Served per the built-in catalogue, but the input never listed this resource.
    Unlisted {
        /// Scope from the catalogue.
        namespaced: bool,
        /// Why we have no objects of it.
        why: String,
    },
    /// The REST mapper's guessed `<Kind>List` / `List` pseudo-kinds (§3.3 step 3, a quirk):
    /// mapping succeeds, but to a resource the server does not serve, so the owner GET 404s.
    Phantom {
        /// The scope the mapper gives the pseudo-kind (`<Kind>List`: the kind's; `List`: cluster).
        namespaced: bool,
    },
    /// Not served: the GC's REST mapping fails and it retries the dependent forever (§6.8).
    Unresolvable(String),
    /// The snapshot cannot tell whether the kind is served.
    Unknown(String),
}

/// REST mapper, coverage and `(group/resource, namespace, name) → object` index of a snapshot.
#[derive(Debug)]
pub struct RestMapper {
    grs: Vec<GroupResource>,
    /// (group, version, kind-or-lowercase-kind) → gr
    by_gvk: HashMap<(String, String, String), GrId>,
    /// group → has any row / failed discovery versions
    known_groups: HashMap<String, ()>,
    /// Served (group, version) pairs.
    served_gvs: hashbrown::HashSet<(String, String)>,
    failed_gvs: Vec<String>,
    source: SourceKind,
    /// A new cluster of this release ([`Snapshot::new_cluster`]): its rows are all it serves.
    new_cluster: Option<KubeVersion>,
    /// Served API versions are judged against this release (files: only if known).
    cluster_version: Option<KubeVersion>,
    /// Resource row → gr.
    gr_of_resource: Vec<GrId>,
    /// The objects by group/resource, namespace and name.
    by_name: ByName,
    /// The mapping of every apiVersion/kind pair the snapshot's ownerReferences use, computed
    /// once when the mapper is built (clusters have few distinct pairs): read-only, so the
    /// mapper can be shared by threads.
    mapped: HashMap<(Sym, Sym), Mapping>,
}

/// No object (in [`ByName::first`]).
const NONE: u32 = u32::MAX;

/// The objects by group/resource, namespace and name, the first listed where several share
/// them: what the GC's GET of an owner by name finds. Most names belong to one object, and
/// an array indexed by the name's symbol answers for those; only names that several objects
/// share go through a hash map. (A hash map of every object was most of the mapper's
/// build, longer than the graph built beside it: BENCHMARKS.md, "Figures behind the code".)
#[derive(Debug)]
struct ByName {
    /// Per name symbol: the first object listed with that name, or [`NONE`].
    first: Vec<u32>,
    /// The name symbols that several objects have.
    shared: BitSet,
    /// (group/resource, namespace, name) → the first object listed with them, for the shared
    /// names only.
    shared_names: HashMap<(GrId, Sym, Sym), ObjId>,
    /// Bit per object: it is the one [`RestMapper::find`] returns for its own coordinates.
    /// Lets [`RestMapper::find_ref`] answer from the UID alone.
    winner: BitSet,
}

impl ByName {
    fn new(snap: &Snapshot, gr_of_resource: &[GrId]) -> ByName {
        let store = &snap.store;
        let syms = store.strings.len();
        let mut first = vec![NONE; syms];
        let mut shared = BitSet::new(syms);
        // Objects whose name another object has: every one after the first of its name, and
        // the first once a second comes.
        let mut sharing = 0;
        for id in store.ids() {
            let name = store.object(id).name.index();
            if first[name] == NONE {
                first[name] = id.0;
            } else {
                sharing += if shared.contains(name) { 1 } else { 2 };
                shared.insert(name);
            }
        }
        debug_assert_eq!(
            sharing,
            store
                .ids()
                .filter(|&id| shared.contains(store.object(id).name.index()))
                .count()
        );
        // Sized once: grown by doubling, its re-hashing and the fresh pages of each larger
        // table were most of this pass where many objects share a name (BENCHMARKS.md, "Figures behind the code").
        let mut shared_names = HashMap::with_capacity(sharing);
        let mut winner = BitSet::new(store.len());
        for id in store.ids() {
            let o = store.object(id);
            if !shared.contains(o.name.index()) {
                winner.insert(id.index());
            } else if let hashbrown::hash_map::Entry::Vacant(e) =
                shared_names.entry((gr_of_resource[o.resource.index()], o.namespace, o.name))
            {
                e.insert(id);
                winner.insert(id.index());
            }
        }
        ByName {
            first,
            shared,
            shared_names,
            winner,
        }
    }
}

impl RestMapper {
    /// Builds the mapper of a snapshot. `cluster_version` is the release whose served versions
    /// apply (the snapshot's server version, or what the user says).
    pub fn new(snap: &Snapshot, cluster_version: Option<KubeVersion>) -> RestMapper {
        let mut grs: Vec<GroupResource> = Vec::new();
        let mut gr_index: HashMap<(String, String), GrId> = HashMap::new();
        let mut by_gvk = HashMap::new();
        let mut known_groups = HashMap::new();
        let mut served_gvs = hashbrown::HashSet::new();
        let mut gr_of_resource = Vec::with_capacity(snap.resources.len());
        let served = snap
            .new_cluster
            .then(|| NewClusterServes::of(snap, cluster_version));
        for r in &snap.resources {
            let key = (r.group.clone(), r.plural.clone());
            let gr = *gr_index.entry(key).or_insert_with(|| {
                grs.push(GroupResource {
                    group: r.group.clone(),
                    plural: r.plural.clone(),
                    kind: r.kind.clone(),
                    namespaced: r.namespaced,
                    coverage: ListOutcome::NotListed,
                });
                GrId(grs.len() as u32 - 1)
            });
            gr_of_resource.push(gr);
            merge_coverage(&mut grs[gr.0 as usize].coverage, &r.list);
            // A new cluster's REST mapper maps only what it serves; the input's objects of other
            // kinds keep their row (they are judged) but are never an owner the GC can resolve.
            if served.as_ref().is_some_and(|s| !s.serves(r)) {
                continue;
            }
            by_gvk.insert((r.group.clone(), r.version.clone(), r.kind.clone()), gr);
            by_gvk
                .entry((
                    r.group.clone(),
                    r.version.clone(),
                    r.kind.to_ascii_lowercase(),
                ))
                .or_insert(gr);
            known_groups.insert(r.group.clone(), ());
            served_gvs.insert((r.group.clone(), r.version.clone()));
        }
        let by_name = ByName::new(snap, &gr_of_resource);
        let mut mapper = RestMapper {
            grs,
            by_gvk,
            known_groups,
            served_gvs,
            failed_gvs: snap
                .discovery_failures
                .iter()
                .map(|f| f.group_version.clone())
                .collect(),
            source: snap.provenance.source,
            new_cluster: served.map(|s| s.at),
            cluster_version,
            gr_of_resource,
            by_name,
            mapped: HashMap::new(),
        };
        let mut mapped = HashMap::new();
        let mut last = None;
        for id in snap.store.ids() {
            for r in snap.store.owner_refs(id) {
                // References of one kind come in runs (a resource's objects are listed
                // together): skip the hash lookup for a repeat of the previous pair.
                let pair = (r.api_version, r.kind);
                if last == Some(pair) {
                    continue;
                }
                last = Some(pair);
                mapped.entry(pair).or_insert_with(|| {
                    mapper.map_uncached(snap.store.str(r.api_version), snap.store.str(r.kind))
                });
            }
        }
        mapper.mapped = mapped;
        mapper
    }

    /// The group/resource of a row of the resource table.
    pub fn gr_of_resource(&self, r: crate::model::ResourceId) -> GrId {
        self.gr_of_resource[r.index()]
    }

    /// A group/resource.
    pub fn gr(&self, id: GrId) -> &GroupResource {
        &self.grs[id.0 as usize]
    }

    /// All group/resources.
    pub fn grs(&self) -> &[GroupResource] {
        &self.grs
    }

    /// The object of `gr` named `name` in `namespace` (`""` for cluster-scoped), if listed
    /// (the first listed, if several are).
    pub fn find(&self, store: &Store, gr: GrId, namespace: Sym, name: Sym) -> Option<ObjId> {
        let b = &self.by_name;
        let first = ObjId(*b.first.get(name.index())?);
        if first.0 == NONE {
            None
        } else if b.shared.contains(name.index()) {
            b.shared_names.get(&(gr, namespace, name)).copied()
        } else {
            let o = store.object(first);
            (o.namespace == namespace && self.gr_of_resource[o.resource.index()] == gr)
                .then_some(first)
        }
    }

    /// [`RestMapper::find`] for an ownerReference naming `uid`: usually the object with that UID
    /// is the one the lookup finds, and checking that costs one array access instead of a hash
    /// lookup; otherwise (dangling, recreated, mismatched) this falls back to `find`.
    pub fn find_ref(
        &self,
        snap: &Snapshot,
        gr: GrId,
        namespace: Sym,
        name: Sym,
        uid: Sym,
    ) -> Option<ObjId> {
        if let Some(c) = snap.store.by_uid(uid) {
            let o = snap.store.object(c);
            if o.name == name
                && o.namespace == namespace
                && self.gr_of_resource[o.resource.index()] == gr
                && self.by_name.winner.contains(c.index())
            {
                return Some(c);
            }
        }
        self.find(&snap.store, gr, namespace, name)
    }

    /// Another object than `found` (the one [`RestMapper::find`] returns) with the same
    /// group/resource, namespace and name, holding `uid`. Only a self-contradicting input (e.g.
    /// files captured at different times) has one.
    pub fn twin(&self, snap: &Snapshot, gr: GrId, found: ObjId, uid: Sym) -> Option<ObjId> {
        let c = snap.store.by_uid(uid)?;
        let (o, f) = (snap.store.object(c), snap.store.object(found));
        (c != found
            && o.name == f.name
            && o.namespace == f.namespace
            && self.gr_of_resource[o.resource.index()] == gr)
            .then_some(c)
    }

    /// REST-maps an ownerReference's apiVersion/kind: the snapshot's own pairs were mapped
    /// when the mapper was built; any other pair (a reference made up later, e.g. by a plan)
    /// is mapped now.
    pub fn map(&self, snap: &Snapshot, api_version: Sym, kind: Sym) -> Mapping {
        match self.mapped.get(&(api_version, kind)) {
            Some(m) => m.clone(),
            None => self.map_uncached(snap.store.str(api_version), snap.store.str(kind)),
        }
    }

    /// [`RestMapper::map`] for a reference that is not in the snapshot's store (one read from
    /// elsewhere, e.g. a backup to relink).
    pub fn map_names(&self, api_version: &str, kind: &str) -> Mapping {
        self.map_uncached(api_version, kind)
    }

    /// The group/resource listed as `group`/`plural`, if the input has it.
    pub fn gr_by_plural(&self, group: &str, plural: &str) -> Option<GrId> {
        self.grs
            .iter()
            .position(|g| g.group == group && g.plural == plural)
            .map(|i| GrId(i as u32))
    }

    fn map_uncached(&self, api_version: &str, kind: &str) -> Mapping {
        let m = self.map_group_version_kind(api_version, kind);
        // Core `events` and `events.k8s.io` `events` serve the same stored objects (gc-model
        // §5.2): a reference to one finds the objects the input listed under the other.
        let group = match &m {
            Mapping::Resolved(gr) => {
                let g = &self.grs[gr.0 as usize];
                if g.plural != "events" || listed(&g.coverage) {
                    return m;
                }
                g.group.as_str()
            }
            Mapping::Unlisted { .. } if kind.eq_ignore_ascii_case("event") => {
                match parse_group_version(api_version) {
                    Some((g, _)) => g,
                    None => return m,
                }
            }
            _ => return m,
        };
        let other = match group {
            "" => "events.k8s.io",
            "events.k8s.io" => "",
            _ => return m,
        };
        match self.gr_by_plural(other, "events") {
            Some(gr) if listed(&self.grs[gr.0 as usize].coverage) => Mapping::Resolved(gr),
            _ => m,
        }
    }

    fn map_group_version_kind(&self, api_version: &str, kind: &str) -> Mapping {
        let Some((group, version)) = parse_group_version(api_version) else {
            return Mapping::Unresolvable(format!("apiVersion {api_version:?} does not parse"));
        };
        if kind.is_empty() {
            return Mapping::Unresolvable("the reference has an empty kind".into());
        }
        if let Some(&gr) = self
            .by_gvk
            .get(&(group.to_owned(), version.to_owned(), kind.to_owned()))
        {
            // A file input lists what it holds, in whatever version it was written; which
            // versions the server serves is the release's (§5.3). Objects in a version the
            // release no longer serves (an old manifest) do not make the GC's REST mapper map it.
            if self.source == SourceKind::Files
                && let (Some(at), Some(b)) = (self.cluster_version, builtin::find(group, kind))
                && b.serves(version, at) == Some(false)
            {
                return Mapping::Unresolvable(format!(
                    "{api_version} {} is not served by Kubernetes {at}",
                    b.kind
                ));
            }
            return Mapping::Resolved(gr);
        }
        let gv = api_version.to_owned();
        if self
            .failed_gvs
            .iter()
            .any(|f| split_api_version(f).is_some_and(|(g, _)| g == group))
        {
            return Mapping::Unknown(format!("discovery of {gv} failed"));
        }
        if let Some(namespaced) = self.pseudo_list_kind(group, version, kind) {
            return Mapping::Phantom { namespaced };
        }
        let catalog = builtin::find(group, kind);
        if let Some(at) = self.new_cluster {
            // Every kind a new cluster serves has a row: anything else fails the GC's REST
            // mapping there, and the dependent is retried forever (§6.8).
            return Mapping::Unresolvable(match catalog {
                Some(b) if b.version(version).is_some() => {
                    format!("{api_version} {} is not served by Kubernetes {at}", b.kind)
                }
                _ if builtin::is_builtin_group(group) => {
                    format!("Kubernetes {at} serves no kind {kind:?} in {api_version}")
                }
                _ => format!(
                    "a new cluster does not serve {api_version} {kind}: the input holds no \
                     CustomResourceDefinition serving it"
                ),
            });
        }
        match self.source {
            SourceKind::Live => {
                // Live discovery lists every served group/version/kind, so anything else fails
                // the GC's REST mapping too.
                if self.known_groups.contains_key(group) || builtin::is_builtin_group(group) {
                    Mapping::Unresolvable(not_served(group, version, kind, self.cluster_version))
                } else {
                    Mapping::Unresolvable(format!("no API group {group:?} is served"))
                }
            }
            SourceKind::Files => {
                if let Some(b) = catalog {
                    match (
                        self.cluster_version,
                        b.serves(version, self.cluster_version.unwrap_or(KubeVersion::NEWEST)),
                    ) {
                        (_, None) => {
                            Mapping::Unresolvable(format!("{api_version} has no kind {kind}"))
                        }
                        (Some(at), Some(false)) => Mapping::Unresolvable(format!(
                            "{api_version} {} is not served by Kubernetes {at}",
                            b.kind
                        )),
                        (None, Some(false)) => Mapping::Unknown(format!(
                            "{api_version} {} is not served by current Kubernetes; the input does not say which version the cluster ran",
                            b.kind
                        )),
                        (_, Some(true)) => {
                            // Served; resolve to the listed group/resource if the input has it.
                            match self
                                .grs
                                .iter()
                                .position(|g| g.group == group && g.plural == b.plural)
                            {
                                Some(i) => Mapping::Resolved(GrId(i as u32)),
                                None => Mapping::Unlisted {
                                    namespaced: b.namespaced,
                                    why: format!("the input holds no {} objects", b.kind),
                                },
                            }
                        }
                    }
                } else if builtin::is_builtin_group(group) {
                    Mapping::Unresolvable(format!(
                        "Kubernetes serves no kind {kind:?} in {api_version}"
                    ))
                } else if self.known_groups.contains_key(group) {
                    // The input defines the group (CRD or objects) but not this version/kind.
                    Mapping::Unknown(format!("the input has no {kind} objects in {api_version}"))
                } else {
                    Mapping::Unknown(format!("the input has no objects of group {group:?}"))
                }
            }
        }
    }
}

impl RestMapper {
    /// The discovery REST mapper registers, for every served group/version, the pseudo-kind
    /// `List` (cluster scope) and `<Kind>List` for each served kind (exact spelling, the kind's
    /// scope); they map to guessed resources that do not exist. `Some(namespaced)` for those.
    fn pseudo_list_kind(&self, group: &str, version: &str, kind: &str) -> Option<bool> {
        if !self
            .served_gvs
            .contains(&(group.to_owned(), version.to_owned()))
        {
            return None;
        }
        if kind == "List" {
            return Some(false);
        }
        let base = kind.strip_suffix("List")?;
        let gr = self
            .by_gvk
            .get(&(group.to_owned(), version.to_owned(), base.to_owned()))?;
        let g = self.gr(*gr);
        (g.kind == base).then_some(g.namespaced)
    }
}

/// What a new cluster ([`Snapshot::new_cluster`]) serves: the built-in kinds at the versions
/// its release serves, and the kinds of the CRDs the input holds.
struct NewClusterServes {
    at: KubeVersion,
    /// `plural.group` of each CustomResourceDefinition in the input (a CRD's name is exactly
    /// that, which the API server enforces).
    crds: hashbrown::HashSet<String>,
}

impl NewClusterServes {
    fn of(snap: &Snapshot, at: Option<KubeVersion>) -> NewClusterServes {
        let crd_rows: Vec<bool> = snap
            .resources
            .iter()
            .map(|r| r.group == "apiextensions.k8s.io" && r.kind == "CustomResourceDefinition")
            .collect();
        let crds = snap
            .store
            .objects
            .iter()
            .filter(|o| crd_rows[o.resource.index()])
            .map(|o| snap.store.str(o.name).to_owned())
            .collect();
        NewClusterServes {
            at: at.unwrap_or(KubeVersion::NEWEST),
            crds,
        }
    }

    /// Whether the row's group/version/kind is served. A custom kind counts as served at every
    /// version the input has a row for (its CRD's served versions, or the versions its objects
    /// are written in): the CRD's metadata, which is what the input keeps, does not say more.
    fn serves(&self, r: &crate::snapshot::Resource) -> bool {
        match builtin::find(&r.group, &r.kind) {
            Some(b) => b.serves(&r.version, self.at) == Some(true),
            None => self.crds.contains(&format!("{}.{}", r.plural, r.group)),
        }
    }
}

fn listed(c: &ListOutcome) -> bool {
    matches!(c, ListOutcome::Complete | ListOutcome::Partial { .. })
}

/// `schema.ParseGroupVersion` as the GC's REST mapper applies it (gc-model §5.3): `"v1"` and
/// `"/v1"` are both core `v1` (a leading slash leaves the group empty); `"a/b/c"` does not
/// parse; an empty version never maps.
pub fn parse_group_version(api_version: &str) -> Option<(&str, &str)> {
    let (group, version) = match api_version.split_once('/') {
        None => ("", api_version),
        Some((g, v)) if !v.contains('/') => (g, v),
        Some(_) => return None,
    };
    (!version.is_empty()).then_some((group, version))
}

fn not_served(group: &str, version: &str, kind: &str, at: Option<KubeVersion>) -> String {
    let api_version = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    match (builtin::find(group, kind), at) {
        (Some(b), Some(at)) if b.serves(version, at) == Some(false) => {
            format!(
                "{api_version} {} is not served by this cluster (Kubernetes {at})",
                b.kind
            )
        }
        _ => format!("{api_version} {kind} is not served by this cluster"),
    }
}

/// Merges a row's outcome into the group/resource's coverage: the monitored row decides;
/// partial rows (file inputs) union their namespaces.
fn merge_coverage(acc: &mut ListOutcome, row: &ListOutcome) {
    match (&mut *acc, row) {
        (_, ListOutcome::Ignored { .. }) => {
            if matches!(acc, ListOutcome::NotListed) {
                *acc = row.clone();
            }
        }
        (ListOutcome::Partial { namespaces }, ListOutcome::Partial { namespaces: more }) => {
            for n in more {
                if !namespaces.contains(n) {
                    namespaces.push(n.clone());
                }
            }
        }
        (_, ListOutcome::NotListed) => {}
        _ => *acc = row.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Cluster;

    #[test]
    fn find_ref_answers_what_find_answers() {
        let mut c = Cluster::new();
        // Two listings of one name (a recreated object in a file input): lookups by name see
        // the first.
        c.obj("apps/v1", "ReplicaSet", "ns", "rs", "uid-old");
        c.obj("apps/v1", "ReplicaSet", "ns", "rs", "uid-new");
        c.obj("apps/v1", "ReplicaSet", "other", "rs2", "uid-other");
        let snap = c.build();
        let m = RestMapper::new(&snap, None);
        let sym = |s: &str| snap.store.strings.get(s).unwrap();
        let gr = m.gr_of_resource(snap.store.object(ObjId(0)).resource);
        let (ns, other, rs) = (sym("ns"), sym("other"), sym("rs"));
        for (ns, name, uid) in [
            (ns, rs, sym("uid-old")),
            (ns, rs, sym("uid-new")),
            (ns, sym("rs2"), sym("uid-other")),
            (other, sym("rs2"), sym("uid-other")),
            (other, rs, sym("uid-old")),
        ] {
            assert_eq!(
                m.find_ref(&snap, gr, ns, name, uid),
                m.find(&snap.store, gr, ns, name),
                "{ns:?} {name:?} {uid:?}"
            );
        }
        assert_eq!(
            m.find_ref(&snap, gr, ns, rs, sym("uid-new")),
            Some(ObjId(0))
        );
    }

    /// The name index finds, for every group/resource, namespace and name, the first object
    /// listed with them, and nothing for the others: on random inputs where names repeat
    /// within a listing and across two versions of one resource (one group/resource), next to
    /// a resource of another group with the same names.
    #[test]
    fn the_name_index_finds_the_first_object_listed_with_a_name() {
        let mut rng = crate::testkit::generate::Rng(7);
        for round in 0..20 {
            let n = 1 + rng.below(200) as usize;
            let mut c = Cluster::new();
            c.resource("example.com", "v1", "ReplicaSet", "replicasets", true);
            c.served_version("apps", "v1beta2", "ReplicaSet");
            let names = 1 + rng.below(n as u64 / 2 + 1);
            for i in 0..n {
                let (api_version, kind) = match rng.below(3) {
                    0 => ("apps/v1", "ReplicaSet"),
                    1 => ("apps/v1beta2", "ReplicaSet"),
                    _ => ("example.com/v1", "ReplicaSet"),
                };
                let ns = format!("ns{}", rng.below(3));
                let name = format!("n{}", rng.below(names));
                c.obj(api_version, kind, &ns, &name, &format!("uid-{i}"));
            }
            let snap = c.build();
            let m = RestMapper::new(&snap, None);
            let store = &snap.store;
            let key = |id: ObjId| {
                let o = store.object(id);
                (m.gr_of_resource(o.resource), o.namespace, o.name)
            };
            let grs: Vec<GrId> = (0..m.grs().len() as u32).map(GrId).collect();
            let mut nss: Vec<Sym> = store.ids().map(|id| store.object(id).namespace).collect();
            let mut all_names: Vec<Sym> = store.ids().map(|id| store.object(id).name).collect();
            nss.sort();
            nss.dedup();
            all_names.sort();
            all_names.dedup();
            for &gr in &grs {
                for &ns in &nss {
                    // Namespaces' names too: symbols that no object is named.
                    for &name in all_names.iter().chain(&nss) {
                        let first = store.ids().find(|&id| key(id) == (gr, ns, name));
                        assert_eq!(m.find(&snap.store, gr, ns, name), first, "round {round}");
                    }
                }
            }
            for id in store.ids() {
                let o = store.object(id);
                let gr = m.gr_of_resource(o.resource);
                assert_eq!(
                    m.find_ref(&snap, gr, o.namespace, o.name, o.uid),
                    m.find(store, gr, o.namespace, o.name),
                    "round {round}"
                );
            }
        }
    }
}
