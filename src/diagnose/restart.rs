//! What a freshly (re)started GC does (§6.22).
//!
//! On start every object arrives as an *add* event. The graph builder does not enqueue
//! dependents for evaluation; it enqueues:
//! * every virtual owner (a UID no monitored object has) — verified by GET with the identity
//!   of the first dependent that referenced it; if absent, all its dependents are enqueued;
//! * (v1.20+, PR #92743) every dependent whose reference disagrees with the owner node already
//!   in the graph: another namespace, other coordinates, or (v1.21+, PR #98068) a namespace-less
//!   virtual owner created by a cluster-scoped dependent;
//! * objects already terminating with `foregroundDeletion` (and their dependents) or `orphan`.
//!
//! Objects whose owners exist and agree are never looked at. So a restart turns some pending
//! garbage into deletions now, and leaves other garbage alone. Before v1.20 the outcome also
//! depends on the order the informers deliver objects: a bad reference observed before its
//! real owner gets the owner's UID cached as absent, condemning the owner's valid dependents.

use crate::gc::graph::NodeId;
use crate::gc::plan::Plan;
use crate::gc::rest_mapper::Mapping;
use crate::gc::{Analysis, State};
use crate::model::{ObjId, Sym};
use std::collections::{BTreeMap, BTreeSet};

/// Why a restarted GC evaluates an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VisitCause {
    /// Its owner UID is not in the graph; the GC verifies the virtual owner and finds it absent.
    MissingOwner {
        /// The owner UID.
        uid: Sym,
    },
    /// Its reference names another namespace than the owner's (event `OwnerRefInvalidNamespace`).
    NamespaceMismatch {
        /// The real owner.
        owner: ObjId,
    },
    /// Its reference's apiVersion/kind/name differ from the owner node's identity.
    CoordinateMismatch {
        /// The owner node.
        owner: NodeId,
    },
    /// Its owner is in foreground deletion.
    OwnerInForeground {
        /// The owner.
        owner: ObjId,
    },
    /// It is in foreground deletion itself.
    InForeground,
    /// It is terminating with the `orphan` finalizer.
    Orphaning,
}

/// A pre-1.20 outcome that depends on list order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderDependent {
    /// The object that may be deleted (or stripped).
    pub object: ObjId,
    /// The owner UID that may be cached as absent.
    pub owner_uid: Sym,
    /// The dependent whose bad reference would poison the cache.
    pub bad_dependent: ObjId,
    /// True when the object would be deleted; false when only its reference is stripped.
    pub deleted: bool,
}

/// A dependent of a missing owner that a restarted GC does not evaluate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stranded {
    /// The dependent.
    pub object: ObjId,
    /// False when it depends on informer order (the other order evaluates, and deletes, it).
    pub certain: bool,
    /// Why.
    pub why: String,
}

/// The prediction.
#[derive(Debug)]
pub struct Restart {
    /// Objects the restarted GC evaluates first, and why.
    pub visits: BTreeMap<ObjId, VisitCause>,
    /// What it then does (deterministic part).
    pub plan: Plan,
    /// Pre-1.20: further deletions that happen for some informer orders.
    pub order_dependent: Vec<OrderDependent>,
    /// Dependents of missing owners the restarted GC never evaluates (GC v1.20 without
    /// PR #98068: stranded by a namespace-less virtual owner; or a virtual owner whose kind
    /// cannot be mapped).
    pub stranded: Vec<Stranded>,
    /// Virtual owners the snapshot cannot verify (their dependents' fate is unknown).
    pub unknown: Vec<(NodeId, String)>,
}

impl Analysis<'_> {
    /// Predicts a GC restart on this snapshot.
    pub fn restart(&self) -> Restart {
        let state = self.initial_state();
        let mut visits = BTreeMap::new();
        let mut stranded = Vec::new();
        let mut unknown = Vec::new();
        self.transition_visits(&state, &mut visits);
        self.virtual_owner_visits(&mut visits, &mut stranded, &mut unknown);
        if self.rules.emits_invalid_namespace_events() {
            self.coordinate_check_visits(&mut visits);
        }
        let plan = Plan::from_worklist(self, state.clone(), visits.keys().copied().collect());
        let order_dependent = if self.rules.coordinate_keyed_absent_cache() {
            Vec::new()
        } else {
            self.order_dependent(&state, &plan)
        };
        Restart {
            visits,
            plan,
            order_dependent,
            stranded,
            unknown,
        }
    }

    /// §2.7 on the initial add events: foreground and orphan deletions in progress.
    fn transition_visits(&self, state: &State, visits: &mut BTreeMap<ObjId, VisitCause>) {
        let store = &self.snap.store;
        for id in store.ids() {
            if !state.being_deleted(id) || !self.graph.monitors(id) {
                continue;
            }
            if state.orphaning(store, id) {
                visits.insert(id, VisitCause::Orphaning);
            } else if state.deleting_dependents(store, id) {
                visits.insert(id, VisitCause::InForeground);
                for d in self.current_dependents(state, id) {
                    visits
                        .entry(d)
                        .or_insert(VisitCause::OwnerInForeground { owner: id });
                }
            }
        }
    }

    /// Virtual owners are verified by GET with the first dependent's coordinates (§1.4).
    fn virtual_owner_visits(
        &self,
        visits: &mut BTreeMap<ObjId, VisitCause>,
        stranded: &mut Vec<Stranded>,
        unknown: &mut Vec<(NodeId, String)>,
    ) {
        let store = &self.snap.store;
        for v in self.graph.virtual_nodes() {
            let node = self.graph.node(v);
            let deps: Vec<ObjId> = self
                .graph
                .dependents(v)
                .iter()
                .filter_map(|&d| self.graph.object(d))
                .collect();
            let visit_all = |visits: &mut BTreeMap<ObjId, VisitCause>| {
                for &d in &deps {
                    visits
                        .entry(d)
                        .or_insert(VisitCause::MissingOwner { uid: node.id.uid });
                }
            };
            match self
                .mapper
                .map(self.snap, node.id.api_version, node.id.kind)
            {
                Mapping::Unresolvable(reason) => {
                    // Retried forever; only dependents that disagree with its coordinates are
                    // enqueued by the coordinate checks (handled there, v1.20+).
                    for &d in &deps {
                        stranded.push(Stranded {
                            object: d,
                            certain: true,
                            why: format!("its owner's kind cannot be mapped: {reason}"),
                        });
                    }
                }
                Mapping::Unknown(why) | Mapping::Unlisted { why, .. } => unknown.push((v, why)),
                mapped @ (Mapping::Resolved(_) | Mapping::Phantom { .. }) => {
                    let (namespaced, gr) = match mapped {
                        Mapping::Resolved(gr) => (self.mapper.gr(gr).namespaced, Some(gr)),
                        Mapping::Phantom { namespaced } => (namespaced, None),
                        _ => unreachable!("matched above"),
                    };
                    // GC 1.20 (PR #92743 without #98068): whether a cluster-scoped or a
                    // namespaced dependent is observed first decides the virtual owner's
                    // namespace, and with it whether the namespaced dependents are ever
                    // evaluated. Informer order is not in a snapshot: report both outcomes.
                    if namespaced
                        && self.rules.namespace_less_virtual_owner_strands()
                        && deps.iter().any(|&d| store.object(d).namespace.is_empty())
                    {
                        for &d in &deps {
                            if !store.object(d).namespace.is_empty() {
                                stranded.push(Stranded {
                                    object: d,
                                    certain: false,
                                    why: "a cluster-scoped dependent references the same missing owner; if the restarted GC observes it first, the owner's virtual node has no namespace and GC 1.20 never verifies it for namespaced dependents (fixed in 1.21, PR #98068); if this object is observed first, the owner is verified absent and this object deleted".into(),
                                });
                            }
                        }
                        continue;
                    }
                    if namespaced && node.id.namespace.is_empty() {
                        if !self.rules.cluster_scoped_to_namespaced_is_unresolvable() {
                            // Pre-1.20: GET at cluster scope 404s; every dependent is enqueued.
                            visit_all(visits);
                        } else if self.rules.third_coordinate_check() {
                            for &d in &deps {
                                if !store.object(d).namespace.is_empty() {
                                    visits
                                        .entry(d)
                                        .or_insert(VisitCause::MissingOwner { uid: node.id.uid });
                                }
                            }
                        }
                        continue;
                    }
                    // A `<Kind>List`/`List` pseudo-kind: the GET 404s (§3.3 quirk).
                    let Some(gr) = gr else {
                        visit_all(visits);
                        continue;
                    };
                    let g = self.mapper.gr(gr);
                    let ns = if g.namespaced {
                        node.id.namespace
                    } else {
                        Sym::EMPTY
                    };
                    match self.mapper.find(gr, ns, node.id.name) {
                        // The owner exists (its resource is not monitored): polled, nothing else.
                        Some(o) if store.object(o).uid == node.id.uid => {}
                        Some(_) => visit_all(visits),
                        None if g.coverage.covers(store.str(ns)) => visit_all(visits),
                        None => unknown.push((
                            v,
                            format!(
                                "{} {} was not fully listed",
                                g.kind,
                                store.str(node.id.name)
                            ),
                        )),
                    }
                }
            }
        }
    }

    /// §1.5(1): dependents whose reference disagrees with an existing owner node.
    fn coordinate_check_visits(&self, visits: &mut BTreeMap<ObjId, VisitCause>) {
        let store = &self.snap.store;
        for (i, node) in self.graph.nodes().iter().enumerate() {
            let owner = NodeId(i as u32);
            if !node.in_graph() {
                continue;
            }
            for &d in self.graph.dependents(owner) {
                let Some(dep) = self.graph.object(d) else {
                    continue;
                };
                let dns = store.object(dep).namespace;
                for r in store
                    .owner_refs(dep)
                    .iter()
                    .filter(|r| r.uid == node.id.uid)
                {
                    let cause = if !node.id.namespace.is_empty() && node.id.namespace != dns {
                        match self.graph.object(owner) {
                            Some(o) => Some(VisitCause::NamespaceMismatch { owner: o }),
                            None => Some(VisitCause::CoordinateMismatch { owner }),
                        }
                    } else if r.api_version != node.id.api_version
                        || r.kind != node.id.kind
                        || r.name != node.id.name
                    {
                        Some(VisitCause::CoordinateMismatch { owner })
                    } else {
                        None
                    };
                    if let Some(c) = cause {
                        visits.entry(dep).or_insert(c);
                        break;
                    }
                }
            }
        }
    }

    /// Pre-1.20 worst case: a bad reference to a live owner, observed before the owner, gets
    /// the owner's UID cached as absent; every dependent of that UID is then evaluated against
    /// the cache (issue #65200).
    fn order_dependent(&self, state: &State, certain: &Plan) -> Vec<OrderDependent> {
        let store = &self.snap.store;
        let poisoned = self.misdirected_owner_uids(state);
        if poisoned.is_empty() {
            return Vec::new();
        }
        let mut worst_state = state.clone();
        let mut worklist = BTreeSet::new();
        for &uid in poisoned.keys() {
            worst_state.cache_absent_uid(uid);
            if let Some(n) = self.graph.node_of_uid(uid) {
                worklist.extend(
                    self.graph
                        .dependents(n)
                        .iter()
                        .filter_map(|&d| self.graph.object(d)),
                );
            }
        }
        let worst = Plan::from_worklist(self, worst_state, worklist);
        let mut out = Vec::new();
        for act in &worst.actions {
            let id = act.target;
            let deleted = !worst.end.exists(id);
            let already = !certain.end.exists(id);
            if already {
                continue;
            }
            let stripped = act.verb == crate::gc::plan::Verb::RemoveOwnerReferences;
            if !(deleted || stripped) || out.iter().any(|o: &OrderDependent| o.object == id) {
                continue;
            }
            // Attribute to the poisoned UID it referenced (directly or through a deleted owner).
            let (owner_uid, bad) = store
                .owner_refs(id)
                .iter()
                .find_map(|r| poisoned.get(&r.uid).map(|b| (r.uid, *b)))
                .or_else(|| poisoned.iter().next().map(|(u, b)| (*u, *b)))
                .expect("poisoned is not empty");
            out.push(OrderDependent {
                object: id,
                owner_uid,
                bad_dependent: bad,
                deleted,
            });
        }
        out
    }
}
