//! The audit: every ownerReference classified as the GC classifies it, every object's
//! attemptToDeleteItem verdict, the steady-state plan, and what in them is wrong.
//!
//! Findings are derived from the classification of every reference, the per-object decision,
//! the simulated plan (for deletions that stay blocked, [`super::terminating`]) and a few
//! structural checks (cycles, duplicate references, pre-1.20 collateral). Each names the
//! object, the reference where one is involved, and the consequence ("the GC will delete this
//! object", …).

use super::code::{Code, Severity};
use super::finding::Finding;
use super::{remedy, terminating};
use crate::gc::rest_mapper::Mapping;
use crate::gc::simulation::Unquiet;
use crate::gc::{Dangling, GarbageCollector, Plan, RefClass, State, Verdict};
use crate::model::{BitSet, ObjId, OwnerRef, Sym};
use crate::util::fork::join;
use std::collections::{BTreeMap, HashMap};

/// Everything an audit produces.
#[derive(Debug)]
pub struct Audit {
    /// Findings, sorted by severity (highest first), then code, then object.
    pub findings: Vec<Finding>,
    /// The simulated plan the findings were checked against.
    pub plan: Plan,
    /// What a GC that starts on the snapshot does ([`Plan::restart`]): with `plan`, what
    /// the findings' *when* is read off ([`super::timeline`]).
    pub restart: Plan,
    /// Count of references per classification label.
    pub classifications: BTreeMap<&'static str, usize>,
}

/// Runs every check on the snapshot as captured (nothing was written just now).
pub fn audit(gc: &GarbageCollector<'_>) -> Audit {
    audit_written(gc, &[])
}

/// [`audit`] where the running GC was just handed `written` (the objects a manifest creates
/// or updates): the GC acts on them at once.
pub fn audit_written(gc: &GarbageCollector<'_>, written: &[ObjId]) -> Audit {
    // The plan (a simulation of every wave) and the per-object checks are independent until
    // `terminating::findings` needs both: side by side. The per-object checks classify every
    // reference; the plan's scope needs to know which objects have a reference that is not
    // solid, and takes that from them rather than classifying everything a second time.
    let (pending, (state, mut out, classifications, unquiet)) = join(
        gc.fork,
        "plan",
        || Plan::steady_state_pending(gc),
        || per_object(gc),
    );
    // The whole graph's checks need no plan either: done while it is finished, and added after
    // the plan's own findings, in the order they always came.
    let (plan, (mut whole, restart)) = join(
        gc.fork,
        "plan",
        || pending.finish(&unquiet),
        || {
            let mut whole = Vec::new();
            terminating::stuck_namespaces(gc, &mut whole);
            cycles(gc, &state, &mut whole);
            if !gc.rules.coordinate_keyed_absent_cache() {
                collateral(gc, &state, &mut whole);
            }
            (whole, Plan::restart(gc))
        },
    );
    terminating::findings(gc, &state, &plan, &mut out);
    out.append(&mut whole);
    order_dependent(gc, &plan, &mut out);
    out.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.code.cmp(&b.code))
            .then(a.object.cmp(&b.object))
    });
    super::timeline::Timeline::new(gc, &plan, &restart, written.iter().copied()).stamp(&mut out);
    Audit {
        findings: out,
        plan,
        restart,
        classifications,
    }
}

/// The checks of each object's own references: their classification, the decision, and the
/// findings about them.
fn per_object(
    gc: &GarbageCollector<'_>,
) -> (State, Vec<Finding>, BTreeMap<&'static str, usize>, Unquiet) {
    let state = gc.initial_state();
    let mut unquiet = Unquiet::new(gc.snap.store.len());
    let mut out = Vec::new();
    let mut classifications: BTreeMap<&'static str, usize> = BTreeMap::new();
    let store = &gc.snap.store;
    let siblings = cluster_scoped_dependents_of_virtual_owners(gc);
    let mut classes = Vec::new();
    // References are counted by label in runs (nearly all are `solid`): one map update per
    // run of a label, not one string-keyed lookup per reference.
    let mut run: Option<(&'static str, usize)> = None;
    for id in store.ids() {
        let refs = store.owner_refs(id);
        if refs.is_empty() {
            continue;
        }
        let verdict = gc.attempt_to_delete_item_classified_into(&state, id, &mut classes);
        // Objects outside the graph have no findings, unless this release may watch them
        // after all (the verdict is then unknown): their broken references are reported.
        if verdict == Verdict::NotMonitored {
            continue;
        }
        if gc.graph.monitors(id) {
            unquiet.note(&state, id, &classes);
        }
        for (r, c) in refs.iter().zip(&classes) {
            let label = c.label();
            match &mut run {
                Some((l, n)) if *l == label => *n += 1,
                _ => {
                    if let Some((l, n)) = run.replace((label, 1)) {
                        *classifications.entry(l).or_default() += n;
                    }
                }
            }
            if let Some(f) = ref_finding(gc, &state, id, r, c, &verdict, &siblings) {
                out.push(f);
            }
            if !matches!(c, RefClass::Unrequestable { .. })
                && !crate::gc::classify::is_path_segment_name(store.str(r.name))
            {
                out.push(name_finding(gc, id, r, c));
            }
        }
        duplicate_refs(gc, id, refs, &mut out);
    }
    if let Some((l, n)) = run {
        *classifications.entry(l).or_default() += n;
    }
    (state, out, classifications, unquiet)
}

/// What the GC does to the object because of a dangling reference, and how bad that is.
fn dangling_consequence(verdict: &Verdict) -> (String, bool) {
    match verdict {
        Verdict::Delete { policy, .. } => (
            format!(
                "the GC will delete this object (propagationPolicy={})",
                policy.as_str()
            ),
            true,
        ),
        Verdict::RemoveRefs { .. } => (
            "the GC will strip this reference (the object has another, valid owner)".into(),
            false,
        ),
        Verdict::Terminating => ("none while the object is terminating".into(), false),
        Verdict::NeverCollected { reason, .. } => (
            format!("none: another reference stops the GC from acting on this object ({reason})"),
            false,
        ),
        Verdict::Unknown { reason } => (
            format!("the GC will delete this object if its other owners are gone too ({reason})"),
            false,
        ),
        _ => ("the GC will act on this reference".into(), false),
    }
}

fn ref_finding(
    gc: &GarbageCollector<'_>,
    state: &State,
    id: ObjId,
    r: &OwnerRef,
    class: &RefClass,
    verdict: &Verdict,
    siblings: &HashMap<Sym, ObjId>,
) -> Option<Finding> {
    if let RefClass::Solid { .. } = class {
        // Nearly every reference: decided before any text is formatted for it.
        return None;
    }
    let store = &gc.snap.store;
    let o = store.object(id);
    let ns = store.str(o.namespace);
    let ref_text = format!(
        "{} {}/{} (uid {})",
        store.str(r.api_version),
        store.str(r.kind),
        store.str(r.name),
        store.str(r.uid)
    );
    let mk = |code, severity, consequence: String, message: String, related: Vec<ObjId>| {
        Finding::new(code, severity, id, consequence, message)
            .with_ref(*r, Some(class.label()))
            .with_related(related)
            .with_remedies(remedy::for_reference(gc, state, id, r))
    };
    match class {
        RefClass::Solid { .. } => None,
        RefClass::Waiting { owner } => Some(mk(
            Code::WaitingOwner,
            Severity::Info,
            match verdict {
                Verdict::RemoveRefs { .. } => {
                    "the GC will strip this reference (another owner is valid)".into()
                }
                Verdict::Delete { policy, .. } => format!(
                    "the GC will delete this object (propagationPolicy={}) as part of its owner's foreground deletion",
                    policy.as_str()
                ),
                _ => "the owner waits for this object".into(),
            },
            format!("owner {ref_text} is being deleted in the foreground"),
            vec![*owner],
        )),
        RefClass::Dangling(d) => {
            let (consequence, deletes) = match verdict {
                Verdict::Unknown { reason } if !gc.graph.monitors(id) => {
                    (format!("unknown: {reason}"), false)
                }
                _ => dangling_consequence(verdict),
            };
            // Where does this UID really live?
            let holder = store.by_uid(r.uid).filter(|&h| h != id);
            let (code, message, related, base) = match (holder, d) {
                (Some(h), _) if is_cross_namespace(gc, id, h) => {
                    let hns = store.str(store.object(h).namespace);
                    let mut msg = format!(
                        "owner {ref_text} lives in namespace {hns:?}; the GC looks namespaced owners up in the dependent's namespace {ns:?}, finds nothing and treats the owner as absent"
                    );
                    if gc.rules.emits_invalid_namespace_events() {
                        msg.push_str("; the GC records an OwnerRefInvalidNamespace event");
                    }
                    (Code::CrossNamespaceOwner, msg, vec![h], Severity::Error)
                }
                (Some(h), _) => (
                    Code::OwnerCoordinatesMismatch,
                    format!(
                        "the reference's UID belongs to {}, but the reference names {}/{}: looked up by name and kind, the owner is absent",
                        gc.snap.describe(h),
                        store.str(r.kind),
                        store.str(r.name)
                    ),
                    vec![h],
                    Severity::Error,
                ),
                (None, Dangling::UidMismatch { found }) => (
                    Code::OwnerUidMismatch,
                    if super::apply::is_placeholder_uid(store.str(store.object(*found).uid)) {
                        format!(
                            "owner {ref_text} is not the one the apply creates: {} gets a new UID",
                            gc.snap.describe(*found)
                        )
                    } else {
                        format!(
                            "owner {ref_text} was replaced: {} exists with uid {}",
                            gc.snap.describe(*found),
                            store.str(store.object(*found).uid)
                        )
                    },
                    vec![*found],
                    Severity::Warning,
                ),
                (None, Dangling::Absent) => {
                    let mut msg = if o.namespace.is_empty() || !owner_kind_namespaced(gc, r) {
                        format!("owner {ref_text} does not exist")
                    } else {
                        format!("owner {ref_text} does not exist in namespace {ns:?}")
                    };
                    let sibling = siblings
                        .get(&r.uid)
                        .filter(|_| !o.namespace.is_empty() && owner_kind_namespaced(gc, r));
                    if let Some(&sibling) = sibling {
                        msg.push_str(&format!(
                            "; GC 1.20 may never collect it: {} references the same missing owner, and if the GC observed it first the owner's virtual node has no namespace and is never verified for namespaced dependents (kubernetes#98040, fixed in 1.20.3)",
                            gc.snap.describe(sibling)
                        ));
                    }
                    (Code::DanglingOwner, msg, vec![], Severity::Warning)
                }
            };
            // A plain missing owner is ordinary garbage; a reference that points at a live
            // object is a bug that deletes something someone meant to keep.
            let severity = match (code, deletes) {
                (Code::CrossNamespaceOwner | Code::OwnerCoordinatesMismatch, true) => {
                    Severity::Critical
                }
                (_, true) => Severity::Error,
                _ => base,
            };
            Some(mk(code, severity, consequence, message, related))
        }
        RefClass::InvalidScope => Some(mk(
            Code::ClusterScopedDependentOfNamespacedOwner,
            Severity::Warning,
            "the GC drops this object and never collects it".into(),
            format!(
                "cluster-scoped object names a namespaced owner {ref_text}; owners must be cluster-scoped"
            ),
            store.by_uid(r.uid).into_iter().collect(),
        )),
        RefClass::Unresolvable { reason } => Some(mk(
            Code::UnresolvableOwnerKind,
            Severity::Warning,
            "the GC retries this object forever (REST mapping fails) and never collects it".into(),
            format!("owner {ref_text}: {reason}"),
            vec![],
        )),
        RefClass::Unrequestable { reason } => Some(mk(
            Code::OwnerNameNotRequestable,
            Severity::Warning,
            "the GC retries this object forever (its GET of the owner fails) and never collects it"
                .into(),
            format!("owner {ref_text}: {reason}"),
            vec![],
        )),
        RefClass::Unknown { reason } => Some(mk(
            Code::UnknownOwner,
            Severity::Info,
            format!(
                "unknown: {} cannot tell whether the GC keeps or collects this object",
                // Said of what was given: files are not a snapshot of the cluster.
                match gc.snap.provenance.source {
                    crate::snapshot::SourceKind::Files => "the input files",
                    crate::snapshot::SourceKind::Live => "what was read from the cluster",
                }
            ),
            format!("cannot check owner {ref_text}: {reason}"),
            vec![],
        )),
    }
}

fn owner_kind_namespaced(gc: &GarbageCollector<'_>, r: &OwnerRef) -> bool {
    match gc.rest_mapper.map(gc.snap, r.api_version, r.kind) {
        Mapping::Resolved(gr) => gc.rest_mapper.gr(gr).namespaced,
        _ => true,
    }
}

/// The UID's real object is namespaced and lives elsewhere than the dependent.
fn is_cross_namespace(gc: &GarbageCollector<'_>, dependent: ObjId, holder: ObjId) -> bool {
    let store = &gc.snap.store;
    let (d, h) = (store.object(dependent), store.object(holder));
    !h.namespace.is_empty() && h.namespace != d.namespace
}

/// GC 1.20 only (kubernetes#98040): for each virtual owner UID, a cluster-scoped dependent
/// of it, if any (observed first, it leaves the owner's virtual node without a namespace).
/// One pass over the virtual nodes' dependents; empty for other GC versions.
fn cluster_scoped_dependents_of_virtual_owners(gc: &GarbageCollector<'_>) -> HashMap<Sym, ObjId> {
    let store = &gc.snap.store;
    if !gc.rules.namespace_less_virtual_owner_strands() {
        return HashMap::new();
    }
    gc.graph
        .virtual_nodes()
        .filter_map(|v| {
            let first = gc
                .graph
                .dependents(v)
                .iter()
                .filter_map(|&d| gc.graph.object(d))
                .find(|&d| store.object(d).namespace.is_empty())?;
            Some((gc.graph.node(v).id.uid, first))
        })
        .collect()
}

fn duplicate_refs(gc: &GarbageCollector<'_>, id: ObjId, refs: &[OwnerRef], out: &mut Vec<Finding>) {
    if refs.len() < 2 {
        return; // nothing to duplicate (the common case: skip the map)
    }
    let store = &gc.snap.store;
    let mut seen: BTreeMap<Sym, Vec<&OwnerRef>> = BTreeMap::new();
    for r in refs {
        seen.entry(r.uid).or_default().push(r);
    }
    for (uid, rs) in seen {
        if rs.len() > 1 {
            let identical = rs.windows(2).all(|w| w[0] == w[1]);
            out.push(Finding::new(
                Code::DuplicateOwnerReferences,
                Severity::Warning,
                id,
                if identical {
                    "the API server removes exact duplicates on the next write (v1.20+); the GC treats them as one owner".into()
                } else {
                    "the GC evaluates each reference separately: one mismatching entry is dangling and gets stripped or gets the object deleted".into()
                },
                format!(
                    "{} references to uid {} ({})",
                    rs.len(),
                    store.str(uid),
                    if identical { "identical" } else { "conflicting coordinates" }
                ),
            )
            .with_ref(*rs[0], None));
        }
    }
    if refs.iter().filter(|r| r.controller == Some(true)).count() > 1 {
        out.push(Finding::new(
            Code::DuplicateOwnerReferences,
            Severity::Warning,
            id,
            "the API server rejects any write to this object until one controller reference is removed".into(),
            "more than one ownerReference has controller=true".into(),
        ));
    }
}

/// GC010: strongly connected components of the owner graph (and self-references).
fn cycles(gc: &GarbageCollector<'_>, state: &State, out: &mut Vec<Finding>) {
    use petgraph::graph::{DiGraph, NodeIndex};
    let store = &gc.snap.store;
    let mut self_refs = Vec::new();
    // Edges dependent → owner between objects. Only objects with both an owner and a
    // dependent can be on a cycle, so an edge into an object with no edge out (it has no
    // references, or the GC does not follow them) is left out as it is found: that is most
    // of them (a Pod's owner ReplicaSet has references, its Deployment none).
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for id in store.ids() {
        if !gc.graph.monitors(id) {
            continue;
        }
        for r in store.owner_refs(id) {
            let Some(owner) = gc.graph.uid_to_node(r.uid).and_then(|n| gc.graph.object(n)) else {
                continue;
            };
            if owner == id {
                self_refs.push((id, *r));
                continue;
            }
            if gc.graph.monitors(owner) && !store.owner_refs(owner).is_empty() {
                edges.push((id.0, owner.0));
            }
        }
    }
    // Then the edges out of objects no edge points to (a Pod's), and the rest peeled off
    // until none is left to peel, on the objects the edges still join, numbered densely. An
    // ownership graph is almost always acyclic, so usually nothing remains for the SCC search.
    let mut owners = BitSet::new(store.len());
    for &(_, b) in &edges {
        owners.insert(b as usize);
    }
    edges.retain(|&(a, _)| owners.contains(a as usize));
    let mut nodes: Vec<u32> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let dense = |x: u32| nodes.binary_search(&x).unwrap_or_default() as u32;
    let compact: Vec<(u32, u32)> = edges.iter().map(|&(a, b)| (dense(a), dense(b))).collect();
    let on_cycle = crate::gc::graph::nodes_on_cycles(nodes.len(), &compact);
    let mut g: DiGraph<(), ()> = DiGraph::with_capacity(0, 0);
    let mut index: BTreeMap<ObjId, NodeIndex> = BTreeMap::new();
    for (&(a, b), &(da, db)) in edges.iter().zip(&compact) {
        if !(on_cycle[da as usize] && on_cycle[db as usize]) {
            continue;
        }
        let a = *index.entry(ObjId(a)).or_insert_with(|| g.add_node(()));
        let b = *index.entry(ObjId(b)).or_insert_with(|| g.add_node(()));
        g.add_edge(a, b, ());
    }
    let back: BTreeMap<NodeIndex, ObjId> = index.iter().map(|(k, v)| (*v, *k)).collect();
    for scc in petgraph::algo::tarjan_scc(&g) {
        if scc.len() < 2 {
            continue;
        }
        let mut members: Vec<ObjId> = scc.iter().map(|n| back[n]).collect();
        members.sort();
        let names: Vec<String> = members.iter().map(|&m| gc.snap.describe(m)).collect();
        out.push(Finding::new(
            Code::OwnershipCycle,
            Severity::Warning,
            members[0],
            "each member keeps the others alive: the GC never collects the cycle, and foreground-deleting every member at once deadlocks".into(),
            format!("ownership cycle of {} objects: {}", members.len(), names.join(" → ")),
        )
        .with_related(members[1..].to_vec()));
    }
    for (id, r) in self_refs {
        out.push(Finding::new(
            Code::OwnershipCycle,
            Severity::Warning,
            id,
            if r.blocks() {
                "the object owns itself with blockOwnerDeletion=true: it is never collected, and a foreground deletion of it never finishes".into()
            } else {
                "the object owns itself: the GC never collects it".into()
            },
            "self-reference in ownerReferences".into(),
        )
        .with_ref(r, Some("solid"))
        .with_remedies(vec![remedy::Remedy {
            note: format!(
                "remove the self-reference from {}: an object cannot own itself",
                gc.snap.describe(id)
            ),
            command: remedy::remove_ref(gc.snap, state, id, r.uid),
            manifest: "delete the ownerReferences entry that names the object itself".into(),
        }]));
    }
}

/// GC012 (GC < 1.20): the absent-owner cache is keyed by UID only, so once a bad
/// reference (cross-namespace, wrong kind or name) makes the GC record an owner UID as
/// absent, every other dependent of that UID evaluated while the entry is cached is
/// treated as dangling too (issue #65200). Whether that happens depends on the order the
/// informers deliver objects in.
fn collateral(gc: &GarbageCollector<'_>, state: &State, out: &mut Vec<Finding>) {
    let store = &gc.snap.store;
    for (uid, bad) in gc.misdirected_owner_uids(state) {
        let Some(owner_node) = gc.graph.uid_to_node(uid) else {
            continue;
        };
        for &d in gc.graph.dependents(owner_node) {
            let Some(d) = gc.graph.object(d) else {
                continue;
            };
            if d == bad {
                continue;
            }
            let refs = store.owner_refs(d);
            let classes = gc.classify_references(state, d);
            let to_owner_solid = refs
                .iter()
                .zip(&classes)
                .any(|(r, c)| r.uid == uid && matches!(c, RefClass::Solid { .. }));
            if !to_owner_solid {
                continue;
            }
            let other_solid = refs
                .iter()
                .zip(&classes)
                .any(|(r, c)| r.uid != uid && matches!(c, RefClass::Solid { .. }));
            let r = *refs
                .iter()
                .find(|r| r.uid == uid)
                .expect("dependent references the owner");
            out.push(Finding::new(
                Code::CollateralAtRisk,
                if other_solid { Severity::Error } else { Severity::Critical },
                d,
                if other_solid {
                    "the GC may strip this valid reference, depending on list order (GC < 1.20)".into()
                } else {
                    "the GC may delete this object although its owner exists, depending on list order (GC < 1.20, issue #65200)".into()
                },
                format!(
                    "valid reference to {} shares the owner UID with the bad reference of {}; the UID-keyed absent cache makes them indistinguishable",
                    store.by_uid(uid).map(|o| gc.snap.describe(o)).unwrap_or_default(),
                    gc.snap.describe(bad)
                ),
            )
            .with_ref(r, Some("solid"))
            .with_related(vec![bad])
            .with_remedies(carrier_remedies(gc, state, bad, uid)));
        }
    }
}

/// GC022 for an owner name that is not a path segment but still resolves somewhere: what the
/// GC's request for it reaches (issue 12).
fn name_finding(gc: &GarbageCollector<'_>, id: ObjId, r: &OwnerRef, class: &RefClass) -> Finding {
    let store = &gc.snap.store;
    let name = store.str(r.name);
    let consequence = match class {
        RefClass::Solid { owner } | RefClass::Waiting { owner } => format!(
            "the GC's request for this owner reaches {} (same UID): it counts as present",
            gc.snap.describe(*owner)
        ),
        RefClass::Dangling(_) => {
            "the GC's request for this owner reaches another path and finds nothing with its UID: it counts as absent".into()
        }
        RefClass::Unknown { reason } => format!("unknown: {reason}"),
        _ => "the GC never resolves this owner".into(),
    };
    Finding::new(
        Code::OwnerNameNotRequestable,
        Severity::Warning,
        id,
        consequence,
        format!(
            "owner name {name:?} is not a valid path segment ('.', '..', '/' or '%'): the GC's metadata client joins it into the request path, so it is never requested as named"
        ),
    )
    .with_ref(*r, Some(class.label()))
}

/// GC021: objects whose steady-state end state depends on an order upstream does not fix.
fn order_dependent(gc: &GarbageCollector<'_>, plan: &Plan, out: &mut Vec<Finding>) {
    use crate::gc::EndState;
    // Before v1.20 the UID-keyed absent cache is already reported per object (GC012).
    let collateral: std::collections::HashSet<ObjId> = out
        .iter()
        .filter(|f| f.code == Code::CollateralAtRisk)
        .filter_map(|f| f.object)
        .collect();
    for o in plan
        .outcomes
        .iter()
        .filter(|o| o.order_dependent() && !collateral.contains(&o.target))
    {
        let states = super::restart::end_state_texts(gc, o);
        let deletes =
            o.state != EndState::Kept || o.alternatives.iter().any(|a| a.state != EndState::Kept);
        let which = o.alternatives[0].order.what();
        out.push(Finding::new(
            Code::OrderDependent,
            if deletes {
                Severity::Error
            } else {
                Severity::Warning
            },
            o.target,
            format!(
                "order-dependent: the GC leaves this object {}",
                states.join(", or ")
            ),
            format!("the end state depends on {which}, which upstream does not fix"),
        ));
    }
}

/// The catalogue's remedies for the references to `uid` that `carrier` holds: the fix goes on
/// the object with the bad reference, never on a dependent it endangers.
pub(crate) fn carrier_remedies(
    gc: &GarbageCollector<'_>,
    state: &State,
    carrier: ObjId,
    uid: Sym,
) -> Vec<remedy::Remedy> {
    state
        .owner_refs(&gc.snap.store, carrier)
        .iter()
        .filter(|r| r.uid == uid)
        .flat_map(|r| remedy::for_reference(gc, state, carrier, r))
        .collect()
}
