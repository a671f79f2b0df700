//! The finding catalogue: stable codes (README "Finding codes") and severities.

use serde::Serialize;

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
    /// GC016: what a restarted GC does to this object depends on an order upstream does not
    /// fix (informer delivery, concurrent requests), and one order deletes something meant to
    /// live (before v1.20: the UID-keyed absent cache, kubernetes#65200).
    RestartOrderDependent,
    /// GC017: an upgrade changes what the GC does to this object.
    UpgradeBehaviourChange,
    /// GC018: the owner's apiVersion/kind is not served after the upgrade.
    OwnerUnservedAfterUpgrade,
    /// GC019: a deletable resource the GC cannot list or watch.
    GcSyncBlocker,
    /// GC020: garbage a restarted GC never evaluates.
    StrandedDependent,
    /// GC021: the GC's end state for this object depends on an order upstream does not fix
    /// (steady state: `audit`, `collect`).
    OrderDependent,
    /// GC022: the owner's name is not a path segment (`.`, `..`, `/`, `%`): the GC's request
    /// for it never resolves it as named.
    OwnerNameNotRequestable,
    /// GC023: a namespace being deleted that the namespace controller cannot finish (a failed
    /// discovery, a foreign `spec.finalizers` token, content held by finalizers).
    StuckNamespace,
    /// GC024: `check apply`: ownerReferences written into a manifest or backup (their UIDs
    /// belong to the source cluster), or stripped by a Velero restore (the object is orphaned).
    OwnerReferenceInManifest,
    /// GC025: `check apply`: `blockOwnerDeletion: true` on a reference whose owner will not
    /// exist: it holds no foreground deletion, and the object is collected anyway.
    BlockOwnerDeletionToNothing,
    /// GC026: `check apply`: two copies of one object in the input (same group, kind,
    /// namespace and name) that disagree on what the GC reads; which one is created depends
    /// on the tool.
    ConflictingDuplicateInput,
    /// GC027: `check apply`, `relink`: where the API server enables
    /// OwnerReferencesPermissionEnforcement (OpenShift and others), it refuses this write for
    /// the identity that sends it (`blockOwnerDeletion: true` without `update` on the owner's
    /// `finalizers`, or changed references without `delete` on the object).
    OwnerReferencePermission,
}

impl Code {
    /// All codes in order.
    pub const ALL: [Code; 27] = [
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
        Code::OrderDependent,
        Code::OwnerNameNotRequestable,
        Code::StuckNamespace,
        Code::OwnerReferenceInManifest,
        Code::BlockOwnerDeletionToNothing,
        Code::ConflictingDuplicateInput,
        Code::OwnerReferencePermission,
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
            Code::OrderDependent => "GC021",
            Code::OwnerNameNotRequestable => "GC022",
            Code::StuckNamespace => "GC023",
            Code::OwnerReferenceInManifest => "GC024",
            Code::BlockOwnerDeletionToNothing => "GC025",
            Code::ConflictingDuplicateInput => "GC026",
            Code::OwnerReferencePermission => "GC027",
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
            Code::OrderDependent => "order-dependent",
            Code::OwnerNameNotRequestable => "owner-name-not-requestable",
            Code::StuckNamespace => "stuck-namespace",
            Code::OwnerReferenceInManifest => "owner-reference-in-manifest",
            Code::BlockOwnerDeletionToNothing => "block-owner-deletion-to-nothing",
            Code::ConflictingDuplicateInput => "conflicting-duplicate-input",
            Code::OwnerReferencePermission => "owner-reference-permission",
        }
    }

    /// Parses `GC004` or `cross-namespace-owner`.
    pub fn parse(s: &str) -> Option<Code> {
        Code::ALL
            .into_iter()
            .find(|c| c.id().eq_ignore_ascii_case(s) || c.name() == s)
    }
}
