//! Which GC behaviour applies: the decision logic differs between releases (Appendix A).

use crate::catalog::KubeVersion;

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

    /// v1.20+ (PR #92743): the absent-owner cache is keyed by full coordinates + namespace, so
    /// a bad reference condemns only its own dependent. Before: keyed by UID only (issue
    /// #65200), so one cross-namespace or wrong-kind reference can condemn every other
    /// dependent of the same owner UID, depending on observation order.
    pub fn coordinate_keyed_absent_cache(&self) -> bool {
        self.version.at_least(20)
    }

    /// v1.20+: a cluster-scoped dependent referencing a namespaced owner kind is unresolvable
    /// (dropped, never collected). Before: the owner was looked up at cluster scope, 404'd,
    /// and the dependent was deleted.
    pub fn cluster_scoped_to_namespaced_is_unresolvable(&self) -> bool {
        self.version.at_least(20)
    }

    /// v1.20+: coordinate checks and `OwnerRefInvalidNamespace` events.
    pub fn emits_invalid_namespace_events(&self) -> bool {
        self.version.at_least(20)
    }

    /// v1.21+ (PR #98068): a namespace-less virtual owner created by a cluster-scoped child no
    /// longer strands valid namespaced children of a missing owner.
    pub fn third_coordinate_check(&self) -> bool {
        self.version.at_least(21)
    }

    /// Exactly v1.20 (kubernetes#98040): a cluster-scoped dependent observed first gives a
    /// missing namespaced owner a namespace-less virtual node that is never verified, so the
    /// namespaced dependents of that owner are never collected (fixed by PR #98068).
    pub fn namespace_less_virtual_owner_strands(&self) -> bool {
        self.cluster_scoped_to_namespaced_is_unresolvable() && !self.third_coordinate_check()
    }

    /// v1.34+ (PR #132632): GC DELETEs carry a resourceVersion precondition as well as the UID.
    pub fn delete_with_resource_version(&self) -> bool {
        self.version.at_least(34)
    }

    /// v1.23+ (PR #104049): the owner-reference removal patch serialises `uid` before
    /// `ownerReferences` (byte order only).
    pub fn uid_first_patch_order(&self) -> bool {
        self.version.at_least(23)
    }
}
