//! Findings: what is wrong (or about to happen), in the GC's own terms, with stable codes.
//!
//! Findings are derived from the classification of every reference, the per-object decision,
//! the simulated plan (for deletions that stay blocked) and a few structural checks (cycles,
//! duplicate references, pre-1.20 collateral). Each names the object, the reference where one is
//! involved, and the consequence ("the GC will delete this object", …).

use crate::gc::attempt_to_delete::Verdict;
use crate::gc::classify::{Dangling, RefClass};
use crate::gc::plan::{EndState, Plan};
use crate::gc::{Analysis, State};
use crate::model::{ObjId, OwnerRef, Sym};
use crate::snapshot::parse_rfc3339;
use crate::util::human_duration;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Duration;

/// Severity, ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; nothing breaks.
    Info,
    /// Something leaks, waits or cannot be checked.
    Warning,
    /// The GC will change or cannot collect objects because of a broken reference.
    Error,
    /// The GC will (or may) delete a live object that someone meant to keep.
    Critical,
}

impl Severity {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
            Severity::Critical => "critical",
        }
    }
}

impl std::str::FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "info" => Ok(Severity::Info),
            "warning" => Ok(Severity::Warning),
            "error" => Ok(Severity::Error),
            "critical" => Ok(Severity::Critical),
            _ => Err(format!(
                "unknown severity {s:?} (info, warning, error, critical)"
            )),
        }
    }
}

/// Stable finding codes (README "Finding codes"). Never renumber.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    /// GC001: the owner does not exist.
    DanglingOwner,
    /// GC002: an object with the owner's kind and name exists with another UID (recreated).
    OwnerUidMismatch,
    /// GC003: the UID exists, but the reference's kind/name/group do not match it.
    OwnerCoordinatesMismatch,
    /// GC004: the UID is a namespaced object in another namespace.
    CrossNamespaceOwner,
    /// GC005: a cluster-scoped object names a namespaced owner kind.
    ClusterScopedDependentOfNamespacedOwner,
    /// GC006: the owner's apiVersion/kind is not served.
    UnresolvableOwnerKind,
    /// GC007: the snapshot cannot tell whether the owner exists.
    UnknownOwner,
    /// GC008: a foreground deletion that cannot finish.
    BlockedForegroundDeletion,
    /// GC009: an `orphan` finalizer that is pending or stuck.
    OrphanFinalizer,
    /// GC010: an ownership cycle.
    OwnershipCycle,
    /// GC011: several references to one UID, or several controllers.
    DuplicateOwnerReferences,
    /// GC012: (GC < 1.20) a valid dependent that a bad sibling reference can get deleted.
    CollateralAtRisk,
    /// GC013: terminating, held by finalizers no controller seems to process.
    TerminatingHeldByFinalizer,
    /// GC014: a reference to an owner in foreground deletion.
    WaitingOwner,
    /// GC015: a restarted GC deletes (or strips a reference of) this object.
    RestartAction,
    /// GC016: GC < 1.20: a restart may delete this object, depending on list order.
    RestartOrderDependent,
    /// GC017: an upgrade changes what the GC does to this object.
    UpgradeBehaviourChange,
    /// GC018: the owner's apiVersion/kind is not served after the upgrade.
    OwnerUnservedAfterUpgrade,
    /// GC019: a deletable resource the GC cannot list or watch.
    GcSyncBlocker,
    /// GC020: garbage a restarted GC never evaluates.
    StrandedDependent,
}

impl Code {
    /// All codes in order.
    pub const ALL: [Code; 20] = [
        Code::DanglingOwner,
        Code::OwnerUidMismatch,
        Code::OwnerCoordinatesMismatch,
        Code::CrossNamespaceOwner,
        Code::ClusterScopedDependentOfNamespacedOwner,
        Code::UnresolvableOwnerKind,
        Code::UnknownOwner,
        Code::BlockedForegroundDeletion,
        Code::OrphanFinalizer,
        Code::OwnershipCycle,
        Code::DuplicateOwnerReferences,
        Code::CollateralAtRisk,
        Code::TerminatingHeldByFinalizer,
        Code::WaitingOwner,
        Code::RestartAction,
        Code::RestartOrderDependent,
        Code::UpgradeBehaviourChange,
        Code::OwnerUnservedAfterUpgrade,
        Code::GcSyncBlocker,
        Code::StrandedDependent,
    ];

    /// `GC0NN`.
    pub fn id(self) -> &'static str {
        match self {
            Code::DanglingOwner => "GC001",
            Code::OwnerUidMismatch => "GC002",
            Code::OwnerCoordinatesMismatch => "GC003",
            Code::CrossNamespaceOwner => "GC004",
            Code::ClusterScopedDependentOfNamespacedOwner => "GC005",
            Code::UnresolvableOwnerKind => "GC006",
            Code::UnknownOwner => "GC007",
            Code::BlockedForegroundDeletion => "GC008",
            Code::OrphanFinalizer => "GC009",
            Code::OwnershipCycle => "GC010",
            Code::DuplicateOwnerReferences => "GC011",
            Code::CollateralAtRisk => "GC012",
            Code::TerminatingHeldByFinalizer => "GC013",
            Code::WaitingOwner => "GC014",
            Code::RestartAction => "GC015",
            Code::RestartOrderDependent => "GC016",
            Code::UpgradeBehaviourChange => "GC017",
            Code::OwnerUnservedAfterUpgrade => "GC018",
            Code::GcSyncBlocker => "GC019",
            Code::StrandedDependent => "GC020",
        }
    }

    /// kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            Code::DanglingOwner => "dangling-owner",
            Code::OwnerUidMismatch => "owner-uid-mismatch",
            Code::OwnerCoordinatesMismatch => "owner-coordinates-mismatch",
            Code::CrossNamespaceOwner => "cross-namespace-owner",
            Code::ClusterScopedDependentOfNamespacedOwner => {
                "cluster-scoped-dependent-of-namespaced-owner"
            }
            Code::UnresolvableOwnerKind => "unresolvable-owner-kind",
            Code::UnknownOwner => "unknown-owner",
            Code::BlockedForegroundDeletion => "blocked-foreground-deletion",
            Code::OrphanFinalizer => "orphan-finalizer",
            Code::OwnershipCycle => "ownership-cycle",
            Code::DuplicateOwnerReferences => "duplicate-owner-references",
            Code::CollateralAtRisk => "collateral-at-risk",
            Code::TerminatingHeldByFinalizer => "terminating-held-by-finalizer",
            Code::WaitingOwner => "waiting-owner",
            Code::RestartAction => "restart-action",
            Code::RestartOrderDependent => "restart-order-dependent",
            Code::UpgradeBehaviourChange => "upgrade-behaviour-change",
            Code::OwnerUnservedAfterUpgrade => "owner-unserved-after-upgrade",
            Code::GcSyncBlocker => "gc-sync-blocker",
            Code::StrandedDependent => "stranded-dependent",
        }
    }

    /// Parses `GC004` or `cross-namespace-owner`.
    pub fn parse(s: &str) -> Option<Code> {
        Code::ALL
            .into_iter()
            .find(|c| c.id().eq_ignore_ascii_case(s) || c.name() == s)
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Code.
    pub code: Code,
    /// Severity.
    pub severity: Severity,
    /// The object the finding is about (`None` for findings about a whole resource, see
    /// [`Finding::resource`]).
    pub object: Option<ObjId>,
    /// For resource-level findings (e.g. a resource the GC cannot list): `plural.group`.
    pub resource: Option<String>,
    /// The reference involved (a copy: it may no longer exist in a simulated state).
    pub owner_ref: Option<OwnerRef>,
    /// The reference's classification, where one is involved.
    pub classification: Option<&'static str>,
    /// What the GC does about it.
    pub consequence: String,
    /// What is wrong.
    pub message: String,
    /// Other objects involved (the real owner, the blocking chain, the bad sibling, …).
    pub related: Vec<ObjId>,
    /// Ready-to-run commands that fix or unblock it.
    pub remedies: Vec<String>,
}

/// Everything an audit produces.
#[derive(Debug)]
pub struct Audit {
    /// Findings, sorted by severity (highest first), then code, then object.
    pub findings: Vec<Finding>,
    /// The simulated plan the findings were checked against.
    pub plan: Plan,
    /// Count of references per classification label.
    pub classifications: BTreeMap<&'static str, usize>,
}

/// How long a GC-managed finalizer may sit before we call the GC "not progressing".
const GC_STALL_SECS: i64 = 5 * 60;
/// How long a terminating object may wait on foreign finalizers before a warning.
const FINALIZER_STALL_SECS: i64 = 60 * 60;

impl Analysis<'_> {
    /// Runs every check.
    pub fn audit(&self) -> Audit {
        let state = self.initial_state();
        let plan = Plan::collect(self);
        let mut out = Vec::new();
        let mut classifications: BTreeMap<&'static str, usize> = BTreeMap::new();
        let store = &self.snap.store;
        let siblings = self.cluster_scoped_dependents_of_virtual_owners();
        for id in store.ids() {
            if !self.graph.monitors(id) {
                continue;
            }
            let refs = store.owner_refs(id);
            if refs.is_empty() {
                continue;
            }
            let (verdict, classes) = self.decide_classified(&state, id);
            for (r, c) in refs.iter().zip(&classes) {
                *classifications.entry(c.label()).or_default() += 1;
                if let Some(f) = self.ref_finding(&state, id, r, c, &verdict, &siblings) {
                    out.push(f);
                }
            }
            self.duplicate_refs(id, refs, &mut out);
        }
        self.terminating_findings(&state, &plan, &mut out);
        self.cycles(&state, &mut out);
        if !self.rules.coordinate_keyed_absent_cache() {
            self.collateral(&state, &mut out);
        }
        out.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then(a.code.cmp(&b.code))
                .then(a.object.cmp(&b.object))
        });
        Audit {
            findings: out,
            plan,
            classifications,
        }
    }

    /// What the GC does to the object because of a dangling reference, and how bad that is.
    fn dangling_consequence(&self, verdict: &Verdict) -> (String, bool) {
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
                format!(
                    "none: another reference stops the GC from acting on this object ({reason})"
                ),
                false,
            ),
            Verdict::Unknown { reason } => (
                format!(
                    "the GC will delete this object if its other owners are gone too ({reason})"
                ),
                false,
            ),
            _ => ("the GC will act on this reference".into(), false),
        }
    }

    fn ref_finding(
        &self,
        state: &State,
        id: ObjId,
        r: &OwnerRef,
        class: &RefClass,
        verdict: &Verdict,
        siblings: &HashMap<Sym, ObjId>,
    ) -> Option<Finding> {
        let store = &self.snap.store;
        let o = store.object(id);
        let ns = store.str(o.namespace);
        let ref_text = format!(
            "{} {}/{} (uid {})",
            store.str(r.api_version),
            store.str(r.kind),
            store.str(r.name),
            store.str(r.uid)
        );
        let mk =
            |code, severity, consequence: String, message: String, related: Vec<ObjId>| Finding {
                code,
                severity,
                object: Some(id),
                resource: None,
                owner_ref: Some(*r),
                classification: Some(class.label()),
                consequence,
                message,
                related,
                remedies: Vec::new(),
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
                let (consequence, deletes) = self.dangling_consequence(verdict);
                // Where does this UID really live?
                let holder = store.by_uid(r.uid).filter(|&h| h != id);
                let (code, message, related, base) = match (holder, d) {
                    (Some(h), _) if self.is_cross_namespace(id, h) => {
                        let hns = store.str(store.object(h).namespace);
                        let mut msg = format!(
                            "owner {ref_text} lives in namespace {hns:?}; the GC looks namespaced owners up in the dependent's namespace {ns:?}, finds nothing and treats the owner as absent"
                        );
                        if self.rules.emits_invalid_namespace_events() {
                            msg.push_str("; the GC records an OwnerRefInvalidNamespace event");
                        }
                        (Code::CrossNamespaceOwner, msg, vec![h], Severity::Error)
                    }
                    (Some(h), _) => (
                        Code::OwnerCoordinatesMismatch,
                        format!(
                            "the reference's UID belongs to {}, but the reference names {}/{}: looked up by name and kind, the owner is absent",
                            self.snap.describe(h),
                            store.str(r.kind),
                            store.str(r.name)
                        ),
                        vec![h],
                        Severity::Error,
                    ),
                    (None, Dangling::UidMismatch { found }) => (
                        Code::OwnerUidMismatch,
                        format!(
                            "owner {ref_text} was replaced: {} exists with uid {}",
                            self.snap.describe(*found),
                            store.str(store.object(*found).uid)
                        ),
                        vec![*found],
                        Severity::Warning,
                    ),
                    (None, Dangling::Absent) => {
                        let mut msg = if o.namespace.is_empty() || !self.owner_kind_namespaced(r) {
                            format!("owner {ref_text} does not exist")
                        } else {
                            format!("owner {ref_text} does not exist in namespace {ns:?}")
                        };
                        let sibling = siblings
                            .get(&r.uid)
                            .filter(|_| !o.namespace.is_empty() && self.owner_kind_namespaced(r));
                        if let Some(&sibling) = sibling {
                            msg.push_str(&format!(
                                "; GC 1.20 may never collect it: {} references the same missing owner, and if the GC observed it first the owner's virtual node has no namespace and is never verified for namespaced dependents (kubernetes#98040, fixed in 1.21)",
                                self.snap.describe(sibling)
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
                let mut f = mk(code, severity, consequence, message, related);
                if code == Code::CrossNamespaceOwner || code == Code::OwnerCoordinatesMismatch {
                    f.remedies.push(self.remedy_remove_ref(state, id, r.uid));
                }
                Some(f)
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
                "the GC retries this object forever (REST mapping fails) and never collects it"
                    .into(),
                format!("owner {ref_text}: {reason}"),
                vec![],
            )),
            RefClass::Unknown { reason } => Some(mk(
                Code::UnknownOwner,
                Severity::Info,
                "unknown: the snapshot cannot tell whether the GC keeps or collects this object"
                    .into(),
                format!("cannot check owner {ref_text}: {reason}"),
                vec![],
            )),
        }
    }

    fn owner_kind_namespaced(&self, r: &OwnerRef) -> bool {
        match self.mapper.map(self.snap, r.api_version, r.kind) {
            crate::gc::rest_mapper::Mapping::Resolved(gr) => self.mapper.gr(gr).namespaced,
            _ => true,
        }
    }

    /// The UID's real object is namespaced and lives elsewhere than the dependent.
    fn is_cross_namespace(&self, dependent: ObjId, holder: ObjId) -> bool {
        let store = &self.snap.store;
        let (d, h) = (store.object(dependent), store.object(holder));
        !h.namespace.is_empty() && h.namespace != d.namespace
    }

    /// `kubectl` target words for an object: `kind.group/name [-n ns]`.
    pub fn kubectl_target(&self, id: ObjId) -> String {
        let o = self.snap.store.object(id);
        let r = self.snap.resource_of(o);
        let res = if r.group.is_empty() {
            r.plural.clone()
        } else {
            format!("{}.{}", r.plural, r.group)
        };
        let ns = self.snap.store.str(o.namespace);
        let name = self.snap.store.str(o.name);
        if ns.is_empty() {
            format!("{res}/{name}")
        } else {
            format!("{res}/{name} -n {ns}")
        }
    }

    fn ref_index(&self, state: &State, id: ObjId, uid: Sym) -> usize {
        state
            .owner_refs(&self.snap.store, id)
            .iter()
            .position(|r| r.uid == uid)
            .unwrap_or(0)
    }

    /// `kubectl patch` removing the reference to `uid` (JSON patch with a `test` guard, which
    /// works for custom resources too).
    pub fn remedy_remove_ref(&self, state: &State, id: ObjId, uid: Sym) -> String {
        let i = self.ref_index(state, id, uid);
        format!(
            "kubectl patch {} --type=json -p '[{{\"op\":\"test\",\"path\":\"/metadata/ownerReferences/{i}/uid\",\"value\":\"{}\"}},{{\"op\":\"remove\",\"path\":\"/metadata/ownerReferences/{i}\"}}]'",
            self.kubectl_target(id),
            self.snap.store.str(uid)
        )
    }

    /// Finishes a deletion held by finalizers: removes them all, guarded by a test on their
    /// current value. Only for when the controllers owning them cannot or will not.
    fn remedy_remove_finalizers(&self, state: &State, id: ObjId) -> String {
        let store = &self.snap.store;
        let fins: Vec<&str> = state
            .finalizers(store, id)
            .iter()
            .map(|f| store.str(*f))
            .collect();
        format!(
            "kubectl patch {} --type=json -p '[{{\"op\":\"test\",\"path\":\"/metadata/finalizers\",\"value\":{}}},{{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}}]'",
            self.kubectl_target(id),
            serde_json::to_string(&fins).expect("strings serialize")
        )
    }

    /// GC 1.20 only (kubernetes#98040): for each virtual owner UID, a cluster-scoped dependent
    /// of it, if any (observed first, it leaves the owner's virtual node without a namespace).
    /// One pass over the virtual nodes' dependents; empty for other GC versions.
    fn cluster_scoped_dependents_of_virtual_owners(&self) -> HashMap<Sym, ObjId> {
        let store = &self.snap.store;
        if !self.rules.namespace_less_virtual_owner_strands() {
            return HashMap::new();
        }
        self.graph
            .virtual_nodes()
            .filter_map(|v| {
                let first = self
                    .graph
                    .dependents(v)
                    .iter()
                    .filter_map(|&d| self.graph.object(d))
                    .find(|&d| store.object(d).namespace.is_empty())?;
                Some((self.graph.node(v).id.uid, first))
            })
            .collect()
    }

    fn remedy_unblock_ref(&self, state: &State, id: ObjId, uid: Sym) -> String {
        let i = self.ref_index(state, id, uid);
        format!(
            "kubectl patch {} --type=json -p '[{{\"op\":\"test\",\"path\":\"/metadata/ownerReferences/{i}/uid\",\"value\":\"{}\"}},{{\"op\":\"replace\",\"path\":\"/metadata/ownerReferences/{i}/blockOwnerDeletion\",\"value\":false}}]'",
            self.kubectl_target(id),
            self.snap.store.str(uid)
        )
    }

    fn duplicate_refs(&self, id: ObjId, refs: &[OwnerRef], out: &mut Vec<Finding>) {
        if refs.len() < 2 {
            return; // nothing to duplicate (the common case: skip the map)
        }
        let store = &self.snap.store;
        let mut seen: BTreeMap<Sym, Vec<&OwnerRef>> = BTreeMap::new();
        for r in refs {
            seen.entry(r.uid).or_default().push(r);
        }
        for (uid, rs) in seen {
            if rs.len() > 1 {
                let identical = rs.windows(2).all(|w| w[0] == w[1]);
                out.push(Finding {
                    code: Code::DuplicateOwnerReferences,
                    severity: Severity::Warning,
                    object: Some(id),
                    resource: None,
                    owner_ref: Some(*rs[0]),
                    classification: None,
                    consequence: if identical {
                        "the API server removes exact duplicates on the next write (v1.20+); the GC treats them as one owner".into()
                    } else {
                        "the GC evaluates each reference separately: one mismatching entry is dangling and gets stripped or gets the object deleted".into()
                    },
                    message: format!(
                        "{} references to uid {} ({})",
                        rs.len(),
                        store.str(uid),
                        if identical { "identical" } else { "conflicting coordinates" }
                    ),
                    related: vec![],
                    remedies: vec![],
                });
            }
        }
        if refs.iter().filter(|r| r.controller == Some(true)).count() > 1 {
            out.push(Finding {
                code: Code::DuplicateOwnerReferences,
                severity: Severity::Warning,
                object: Some(id),
                resource: None,
                owner_ref: None,
                classification: None,
                consequence: "the API server rejects any write to this object until one controller reference is removed".into(),
                message: "more than one ownerReference has controller=true".into(),
                related: vec![],
                remedies: vec![],
            });
        }
    }

    /// Seconds the object has been terminating at capture time.
    fn terminating_for(&self, id: ObjId) -> Option<i64> {
        let store = &self.snap.store;
        let since = parse_rfc3339(store.str(store.object(id).deletion_timestamp))?;
        let now = parse_rfc3339(&self.snap.provenance.captured_at)?;
        Some(now - since)
    }

    fn terminating_findings(&self, state: &State, plan: &Plan, out: &mut Vec<Finding>) {
        let store = &self.snap.store;
        let fg = state.foreground_sym();
        let orphan = state.orphan_sym();
        for id in store.ids() {
            if !state.being_deleted(id) {
                continue;
            }
            let in_graph = self.graph.monitors(id);
            let fins = store.finalizers(id);
            let age = self.terminating_for(id);
            let stalled = age.is_some_and(|a| a > GC_STALL_SECS);
            // Foreground deletion that the simulation cannot finish: the chain to the root blockers.
            if fins.contains(&fg) {
                // Outcomes are sorted by target, one per object.
                let end = plan
                    .outcomes
                    .binary_search_by_key(&id, |o| o.target)
                    .ok()
                    .map(|i| &plan.outcomes[i]);
                let stuck = matches!(end.map(|o| &o.state), Some(EndState::Terminating { finalizers }) if finalizers.contains(&fg));
                if stuck {
                    out.push(self.blocked_foreground(plan, id));
                } else if !in_graph || stalled {
                    out.push(Finding {
                        code: Code::BlockedForegroundDeletion,
                        severity: Severity::Warning,
                        object: Some(id),
                        resource: None,
                        owner_ref: None,
                        classification: None,
                        consequence: if in_graph {
                            "nothing blocks it: the GC should already have finished this deletion".into()
                        } else {
                            "the GC does not watch this resource and never removes foregroundDeletion".into()
                        },
                        message: format!(
                            "in foreground deletion{}",
                            age.map(|a| format!(" for {}", human_duration(Duration::from_secs(a.max(0) as u64)))).unwrap_or_default()
                        ),
                        related: vec![],
                        remedies: vec![format!(
                            "kubectl get --raw /debug/controllers/garbagecollector/graph?uid={}  # check the GC's view",
                            store.str(store.object(id).uid)
                        )],
                    });
                }
            }
            if fins.contains(&orphan) {
                let deps = self.current_dependents(state, id).len();
                let (severity, consequence) = if !in_graph {
                    (Severity::Error, "the GC does not watch this resource: the orphan finalizer is never removed".to_owned())
                } else if stalled {
                    (
                        Severity::Warning,
                        format!(
                            "the GC should already have orphaned {deps} dependent(s) and removed the finalizer: check that it is running"
                        ),
                    )
                } else {
                    (
                        Severity::Info,
                        format!(
                            "the GC will strip this object's UID from {deps} dependent(s), then remove the finalizer"
                        ),
                    )
                };
                out.push(Finding {
                    code: Code::OrphanFinalizer,
                    severity,
                    object: Some(id),
                    resource: None,
                    owner_ref: None,
                    classification: None,
                    consequence,
                    message: format!(
                        "terminating with the orphan finalizer{}",
                        age.map(|a| format!(
                            " for {}",
                            human_duration(Duration::from_secs(a.max(0) as u64))
                        ))
                        .unwrap_or_default()
                    ),
                    related: vec![],
                    remedies: vec![],
                });
            }
            let foreign: Vec<&str> = fins
                .iter()
                .filter(|f| **f != fg && **f != orphan)
                .map(|f| store.str(*f))
                .collect();
            if !foreign.is_empty() {
                let long = age.is_some_and(|a| a > FINALIZER_STALL_SECS);
                out.push(Finding {
                    code: Code::TerminatingHeldByFinalizer,
                    severity: if long { Severity::Warning } else { Severity::Info },
                    object: Some(id),
                    resource: None,
                    owner_ref: None,
                    classification: None,
                    consequence: "the GC cannot finish this deletion: the controller owning the finalizer must remove it".into(),
                    message: format!(
                        "terminating{}, held by finalizer(s) {}",
                        age.map(|a| format!(" for {}", human_duration(Duration::from_secs(a.max(0) as u64)))).unwrap_or_default(),
                        foreign.join(", ")
                    ),
                    related: vec![],
                    remedies: vec![],
                });
            }
        }
    }

    /// GC008 for an owner whose foreground deletion cannot finish: walks blocking dependents
    /// down to the root blockers and offers the three unblocking moves of the GC's logic.
    fn blocked_foreground(&self, plan: &Plan, id: ObjId) -> Finding {
        let end = &plan.end;
        let store = &self.snap.store;
        let mut chain = Vec::new();
        let mut roots = Vec::new();
        let mut seen = BTreeSet::new();
        let mut stack = vec![id];
        while let Some(cur) = stack.pop() {
            if !seen.insert(cur) {
                continue;
            }
            for b in self.blocking_dependents(end, cur) {
                if seen.contains(&b) {
                    continue;
                }
                chain.push(b);
                if end.deleting_dependents(store, b) && !self.blocking_dependents(end, b).is_empty()
                {
                    stack.push(b);
                } else {
                    roots.push((cur, b));
                }
            }
        }
        let mut remedies = Vec::new();
        let mut why = Vec::new();
        for &(owner, b) in &roots {
            let owner_uid = store.object(owner).uid;
            let reason = if end.being_deleted(b) {
                let fins: Vec<&str> = end
                    .finalizers(store, b)
                    .iter()
                    .map(|f| store.str(*f))
                    .collect();
                format!(
                    "{} is terminating, held by {}",
                    self.snap.describe(b),
                    fins.join(", ")
                )
            } else {
                match self.decide(end, b) {
                    Verdict::NeverCollected { reason, .. } => {
                        format!("{} is never collected: {reason}", self.snap.describe(b))
                    }
                    Verdict::Unknown { reason } => {
                        format!("{} cannot be evaluated: {reason}", self.snap.describe(b))
                    }
                    Verdict::NotMonitored => {
                        format!("{} is not monitored by the GC", self.snap.describe(b))
                    }
                    other => format!("{} is kept ({})", self.snap.describe(b), other.label()),
                }
            };
            why.push(reason);
            // Deleting an object that is already terminating changes nothing: it goes away
            // once its finalizers do. The test op makes the patch fail if they changed since.
            remedies.push(if end.being_deleted(b) {
                self.remedy_remove_finalizers(end, b)
            } else {
                format!("kubectl delete {}", self.kubectl_target(b))
            });
            remedies.push(self.remedy_remove_ref(end, b, owner_uid));
            remedies.push(self.remedy_unblock_ref(end, b, owner_uid));
        }
        Finding {
            code: Code::BlockedForegroundDeletion,
            severity: Severity::Error,
            object: Some(id),
            resource: None,
            owner_ref: None,
            classification: None,
            consequence: "the GC keeps this object in foreground deletion until every blocking dependent is gone".into(),
            message: if why.is_empty() {
                "foreground deletion cannot finish".into()
            } else {
                format!("foreground deletion blocked: {}", why.join("; "))
            },
            related: chain,
            remedies,
        }
    }

    /// GC010: strongly connected components of the owner graph (and self-references).
    fn cycles(&self, state: &State, out: &mut Vec<Finding>) {
        use petgraph::graph::{DiGraph, NodeIndex};
        let store = &self.snap.store;
        let mut self_refs = Vec::new();
        // Edges dependent → owner between objects.
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for id in store.ids() {
            if !self.graph.monitors(id) {
                continue;
            }
            for r in store.owner_refs(id) {
                let Some(owner) = self
                    .graph
                    .node_of_uid(r.uid)
                    .and_then(|n| self.graph.object(n))
                else {
                    continue;
                };
                if owner == id {
                    self_refs.push((id, *r));
                    continue;
                }
                edges.push((id.0, owner.0));
            }
        }
        // Only objects with both an owner and a dependent can be on a cycle: peel the others
        // off until none is left to peel. An ownership graph is almost always acyclic, so
        // usually nothing remains for the SCC search.
        let on_cycle = crate::gc::graph::nodes_on_cycles(store.len(), &edges);
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(0, 0);
        let mut index: BTreeMap<ObjId, NodeIndex> = BTreeMap::new();
        for &(a, b) in &edges {
            if !(on_cycle[a as usize] && on_cycle[b as usize]) {
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
            let names: Vec<String> = members.iter().map(|&m| self.snap.describe(m)).collect();
            out.push(Finding {
                code: Code::OwnershipCycle,
                severity: Severity::Warning,
                object: Some(members[0]),
                resource: None,
                owner_ref: None,
                classification: None,
                consequence: "each member keeps the others alive: the GC never collects the cycle, and foreground-deleting every member at once deadlocks".into(),
                message: format!("ownership cycle of {} objects: {}", members.len(), names.join(" → ")),
                related: members[1..].to_vec(),
                remedies: vec![],
            });
        }
        for (id, r) in self_refs {
            out.push(Finding {
                code: Code::OwnershipCycle,
                severity: Severity::Warning,
                object: Some(id),
                resource: None,
                owner_ref: Some(r),
                classification: Some("solid"),
                consequence: if r.blocks() {
                    "the object owns itself with blockOwnerDeletion=true: it is never collected, and a foreground deletion of it never finishes".into()
                } else {
                    "the object owns itself: the GC never collects it".into()
                },
                message: "self-reference in ownerReferences".into(),
                related: vec![],
                remedies: vec![self.remedy_remove_ref(state, id, r.uid)],
            });
        }
    }

    /// GC012 (GC < 1.20): the absent-owner cache is keyed by UID only, so once a bad
    /// reference (cross-namespace, wrong kind or name) makes the GC record an owner UID as
    /// absent, every other dependent of that UID evaluated while the entry is cached is
    /// treated as dangling too (issue #65200). Whether that happens depends on the order the
    /// informers deliver objects in.
    fn collateral(&self, state: &State, out: &mut Vec<Finding>) {
        let store = &self.snap.store;
        for (uid, bad) in self.misdirected_owner_uids(state) {
            let Some(owner_node) = self.graph.node_of_uid(uid) else {
                continue;
            };
            for &d in self.graph.dependents(owner_node) {
                let Some(d) = self.graph.object(d) else {
                    continue;
                };
                if d == bad {
                    continue;
                }
                let refs = store.owner_refs(d);
                let classes = self.classify(state, d);
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
                out.push(Finding {
                    code: Code::CollateralAtRisk,
                    severity: if other_solid { Severity::Error } else { Severity::Critical },
                    object: Some(d),
                    resource: None,
                    owner_ref: Some(r),
                    classification: Some("solid"),
                    consequence: if other_solid {
                        "the GC may strip this valid reference, depending on list order (GC < 1.20)".into()
                    } else {
                        "the GC may delete this object although its owner exists, depending on list order (GC < 1.20, issue #65200)".into()
                    },
                    message: format!(
                        "valid reference to {} shares the owner UID with the bad reference of {}; the UID-keyed absent cache makes them indistinguishable",
                        store.by_uid(uid).map(|o| self.snap.describe(o)).unwrap_or_default(),
                        self.snap.describe(bad)
                    ),
                    related: vec![bad],
                    remedies: vec![self.remedy_remove_ref(state, bad, uid)],
                });
            }
        }
    }
}
