//! Which GC behaviour applies: the decision logic differs between releases, patch releases
//! included (gc-model Appendix A). Each predicate reads one row of the behaviour table
//! ([`crate::catalog::version::CHANGES`]), so a back-port counts from its own patch release.

use crate::catalog::KubeVersion;
use crate::catalog::version::Change;

/// The GC release being emulated and the behaviours that follow from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// The emulated kube-controller-manager release.
    pub version: KubeVersion,
}

impl Rules {
    /// Rules of a release.
    pub fn new(version: KubeVersion) -> Self {
        Rules { version }
    }

    /// v1.20+ (PR #92743, row A6): the absent-owner cache is keyed by full coordinates +
    /// namespace, so a bad reference condemns only its own dependent. Before: keyed by UID only
    /// (issue #65200), so one cross-namespace or wrong-kind reference can condemn every other
    /// dependent of the same owner UID, depending on observation order.
    pub fn coordinate_keyed_absent_cache(&self) -> bool {
        self.version.has(Change::CoordinateAwareGraph)
    }

    /// v1.20+ (row A6): a cluster-scoped dependent referencing a namespaced owner kind is
    /// unresolvable (dropped, never collected). Before: the owner was looked up at cluster
    /// scope, 404'd, and the dependent was deleted.
    pub fn cluster_scoped_to_namespaced_is_unresolvable(&self) -> bool {
        self.version.has(Change::CoordinateAwareGraph)
    }

    /// v1.20+ (row A6): coordinate checks and `OwnerRefInvalidNamespace` events.
    pub fn emits_invalid_namespace_events(&self) -> bool {
        self.version.has(Change::CoordinateAwareGraph)
    }

    /// v1.20.3+ and v1.21+ (PR #98068, back-port #98105, row A8): a namespace-less virtual owner
    /// created by a cluster-scoped child no longer strands valid namespaced children of a
    /// missing owner.
    pub fn third_coordinate_check(&self) -> bool {
        self.version.has(Change::ThirdCoordinateCheck)
    }

    /// v1.20.0–v1.20.2 (kubernetes#98040): a cluster-scoped dependent observed first gives a
    /// missing namespaced owner a namespace-less virtual node that is never verified, so the
    /// namespaced dependents of that owner are never collected (fixed by PR #98068).
    pub fn namespace_less_virtual_owner_strands(&self) -> bool {
        self.cluster_scoped_to_namespaced_is_unresolvable() && !self.third_coordinate_check()
    }

    /// v1.34+ (PR #132632, row A14): GC DELETEs carry a resourceVersion precondition as well as
    /// the UID.
    pub fn delete_with_resource_version(&self) -> bool {
        self.version.has(Change::DeleteWithResourceVersion)
    }

    /// Row A5 (most likely PR #81158, v1.17.0; v1.20.2 read in the source): the
    /// owner-reference removal patch serialises `uid` before `ownerReferences`, escaped (byte
    /// order only). PR #104049 (v1.23), which the code used to key this on, did not change the
    /// GC's bytes (row A9).
    pub fn uid_first_patch_order(&self) -> bool {
        self.version.has(Change::UidFirstRemovalPatch)
    }
}
