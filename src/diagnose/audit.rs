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
use super::judge::Judge;
use super::{remedy, terminating};
use crate::gc::simulation::Unquiet;
use crate::gc::{GarbageCollector, Plan, RefClass, State, Verdict};
use crate::model::{BitSet, ObjId, OwnerRef, Sym};
use crate::util::fork::join;
use std::collections::BTreeMap;

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
    let judge = Judge::new(gc, &state);
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
            if let Some(j) = judge.reference(id, r, c, &verdict) {
                out.push(j.finding(id, r));
            }
            if !matches!(c, RefClass::Unrequestable { .. })
                && !crate::gc::classify::is_path_segment_name(store.str(r.name))
            {
                out.push(judge.name_not_requestable(id, r, c));
            }
        }
        duplicate_refs(gc, id, refs, &mut out);
    }
    if let Some((l, n)) = run {
        *classifications.entry(l).or_default() += n;
    }
    (state, out, classifications, unquiet)
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
            .with_remedies(remedy::for_uid(gc, state, bad, uid)));
        }
    }
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
        let states = super::analysis::end_state_texts(gc, o);
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
