//! The standard Kubernetes resources: group, kind, plural, scope, and which versions each
//! Kubernetes release serves. Used where there is no discovery document (file inputs) and to
//! predict what an upgrade stops serving (`check upgrade`).
//!
//! Scope of the table ([`BUILTIN`]):
//!
//! * Resources served by kube-apiserver itself (including the apiextensions and apiregistration
//!   servers it embeds), Kubernetes 1.0 to 1.38 (1.37 and v1.38.0-alpha.2 add no kind served
//!   by default and remove none: their new kinds, such as `scheduling.k8s.io` CompositePodGroup
//!   of kubernetes#141021, are alpha). Aggregated APIs (`metrics.k8s.io`, …) and
//!   custom resources are not here.
//! * Every beta and GA version a resource ever had. Alpha versions are left out: they were never
//!   served by default and are not what real ownerReferences carry. Kinds that only ever had
//!   alpha versions (e.g. `batch/v2alpha1` ScheduledJob, `networking.k8s.io/v1alpha1`
//!   ClusterCIDR, `resource.k8s.io` DeviceTaintRule, `scheduling.k8s.io` Workload) are left out
//!   with them, and so are groups that only ever had alpha versions (`settings.k8s.io`,
//!   `internal.apiserver.k8s.io`, `storagemigration.k8s.io`).
//! * Purely virtual request types that are never persisted and so can never own anything
//!   (TokenReview, SubjectAccessReview, SelfSubjectRulesReview, …, and with them the whole
//!   `authentication.k8s.io` and `authorization.k8s.io` groups) are left out; subresource kinds
//!   (Scale, Eviction, TokenRequest) too. Core Binding and ComponentStatus are in, as not
//!   deletable.
//! * `since` is the first minor release that served the version by default. Beta versions
//!   introduced after 1.24 are off by default (`--runtime-config`); for those `since` is the
//!   first release that had the version at all.
//! * `removed_in` is the first minor release that no longer serves the version, per the
//!   Deprecated API Migration Guide on kubernetes.io and the release notes. Versions still
//!   served in 1.38 have `None`, even where a later removal is announced.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::KubeVersion;

/// One served version of a built-in resource and the releases that serve it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServedVersion {
    /// The version (`v1beta1`).
    pub version: &'static str,
    /// First minor release (1.x) that serves it.
    pub since: u32,
    /// First minor release that no longer serves it (`None`: still served).
    pub removed_in: Option<u32>,
}

impl ServedVersion {
    /// Whether release `1.minor` serves this version.
    pub fn served_at(&self, minor: u32) -> bool {
        minor >= self.since && self.removed_in.is_none_or(|r| minor < r)
    }
}

/// A built-in resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltinResource {
    /// API group (`""` for core).
    pub group: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// Plural resource name.
    pub plural: &'static str,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
    /// Supports delete, list and watch, i.e. the GC monitors it (§5.1).
    pub deletable: bool,
    /// Served versions, in the group's preference order (preferred first).
    pub versions: &'static [ServedVersion],
}

impl BuiltinResource {
    /// Whether `version` is served at `at`. `None` when `version` was never a version of this
    /// resource.
    pub fn serves(&self, version: &str, at: KubeVersion) -> Option<bool> {
        let v = self.version(version)?;
        Some(v.served_at(at.minor))
    }

    /// The preferred served version at `at` (the first served one in preference order).
    pub fn preferred_at(&self, at: KubeVersion) -> Option<&'static str> {
        self.versions
            .iter()
            .find(|v| v.served_at(at.minor))
            .map(|v| v.version)
    }

    /// The entry for `version`, if it was ever a version of this resource.
    pub fn version(&self, version: &str) -> Option<&'static ServedVersion> {
        self.versions.iter().find(|v| v.version == version)
    }

    /// `group/version` (or just `version` for the core group), the form of `apiVersion`.
    pub fn api_version(&self, version: &str) -> String {
        if self.group.is_empty() {
            version.to_string()
        } else {
            format!("{}/{version}", self.group)
        }
    }
}

const fn sv(version: &'static str, since: u32, removed_in: Option<u32>) -> ServedVersion {
    ServedVersion {
        version,
        since,
        removed_in,
    }
}

/// A version served from `1.since` and still served in the newest release we model.
const fn on(version: &'static str, since: u32) -> ServedVersion {
    sv(version, since, None)
}

/// A version served from `1.since` until (not including) `1.removed_in`.
const fn gone(version: &'static str, since: u32, removed_in: u32) -> ServedVersion {
    sv(version, since, Some(removed_in))
}

const NAMESPACED: bool = true;
const CLUSTER: bool = false;
const DELETABLE: bool = true;
/// Not deletable, or not listable/watchable: the GC never monitors it.
const NOT_DELETABLE: bool = false;

/// One table row; expands to a struct literal so the version slice is promoted to `'static`.
macro_rules! res {
    ($group:literal, $kind:literal, $plural:literal, $scope:expr, $deletable:expr, [$($v:expr),+ $(,)?]) => {
        BuiltinResource {
            group: $group,
            kind: $kind,
            plural: $plural,
            namespaced: $scope,
            deletable: $deletable,
            versions: &[$($v),+],
        }
    };
}

/// The table: every built-in resource, grouped by API group.
#[rustfmt::skip]
pub static BUILTIN: &[BuiltinResource] = &[
    // ---- core ("" / v1) ----------------------------------------------------------------------
    res!("", "Pod", "pods", NAMESPACED, DELETABLE, [on("v1", 0)]),
    res!("", "PodTemplate", "podtemplates", NAMESPACED, DELETABLE, [on("v1", 0)]),
    res!("", "ReplicationController", "replicationcontrollers", NAMESPACED, DELETABLE, [on("v1", 0)]),
    res!("", "Service", "services", NAMESPACED, DELETABLE, [on("v1", 0)]),
    res!("", "Endpoints", "endpoints", NAMESPACED, DELETABLE, [on("v1", 0)]),
    res!("", "Node", "nodes", CLUSTER, DELETABLE, [on("v1", 0)]),
    res!("", "Namespace", "namespaces", CLUSTER, DELETABLE, [on("v1", 0)]),
    // Events are deletable; the GC ignores them by a separate rule (§5.1), not via this flag.
    res!("", "Event", "events", NAMESPACED, DELETABLE, [on("v1", 0)]),
    res!("", "LimitRange", "limitranges", NAMESPACED, DELETABLE, [on("v1", 0)]),
    res!("", "ResourceQuota", "resourcequotas", NAMESPACED, DELETABLE, [on("v1", 0)]),
    res!("", "Secret", "secrets", NAMESPACED, DELETABLE, [on("v1", 0)]),
    res!("", "ServiceAccount", "serviceaccounts", NAMESPACED, DELETABLE, [on("v1", 0)]),
    res!("", "PersistentVolume", "persistentvolumes", CLUSTER, DELETABLE, [on("v1", 0)]),
    res!("", "PersistentVolumeClaim", "persistentvolumeclaims", NAMESPACED, DELETABLE, [on("v1", 0)]),
    res!("", "ConfigMap", "configmaps", NAMESPACED, DELETABLE, [on("v1", 2)]),
    // get/list only.
    res!("", "ComponentStatus", "componentstatuses", CLUSTER, NOT_DELETABLE, [on("v1", 0)]),
    // create only.
    res!("", "Binding", "bindings", NAMESPACED, NOT_DELETABLE, [on("v1", 0)]),
    // ---- apps -----------------------------------------------------------------------------------
    res!("apps", "Deployment", "deployments", NAMESPACED, DELETABLE, [
        on("v1", 9),
        gone("v1beta2", 8, 16),
        gone("v1beta1", 6, 16),
    ]),
    res!("apps", "StatefulSet", "statefulsets", NAMESPACED, DELETABLE, [
        on("v1", 9),
        gone("v1beta2", 8, 16),
        gone("v1beta1", 5, 16),
    ]),
    res!("apps", "DaemonSet", "daemonsets", NAMESPACED, DELETABLE, [
        on("v1", 9),
        gone("v1beta2", 8, 16),
    ]),
    res!("apps", "ReplicaSet", "replicasets", NAMESPACED, DELETABLE, [
        on("v1", 9),
        gone("v1beta2", 8, 16),
    ]),
    res!("apps", "ControllerRevision", "controllerrevisions", NAMESPACED, DELETABLE, [
        on("v1", 9),
        gone("v1beta2", 8, 16),
        gone("v1beta1", 7, 16),
    ]),
    // ---- extensions (v1beta1 only) ----------------------------------------------------------------
    // Deployments and DaemonSets existed in 1.1 but were off by default until 1.2.
    res!("extensions", "Deployment", "deployments", NAMESPACED, DELETABLE, [gone("v1beta1", 2, 16)]),
    res!("extensions", "DaemonSet", "daemonsets", NAMESPACED, DELETABLE, [gone("v1beta1", 2, 16)]),
    res!("extensions", "ReplicaSet", "replicasets", NAMESPACED, DELETABLE, [gone("v1beta1", 2, 16)]),
    res!("extensions", "Ingress", "ingresses", NAMESPACED, DELETABLE, [gone("v1beta1", 1, 22)]),
    res!("extensions", "NetworkPolicy", "networkpolicies", NAMESPACED, DELETABLE, [gone("v1beta1", 3, 16)]),
    // PodSecurityPolicy existed from 1.3 but its API was off by default until 1.6
    // (kubernetes#39743).
    res!("extensions", "PodSecurityPolicy", "podsecuritypolicies", CLUSTER, DELETABLE, [gone("v1beta1", 6, 16)]),
    res!("extensions", "HorizontalPodAutoscaler", "horizontalpodautoscalers", NAMESPACED, DELETABLE, [
        gone("v1beta1", 1, 6),
    ]),
    res!("extensions", "Job", "jobs", NAMESPACED, DELETABLE, [gone("v1beta1", 1, 6)]),
    res!("extensions", "ThirdPartyResource", "thirdpartyresources", CLUSTER, DELETABLE, [gone("v1beta1", 2, 8)]),
    // ---- batch ----------------------------------------------------------------------------------
    res!("batch", "Job", "jobs", NAMESPACED, DELETABLE, [on("v1", 2)]),
    res!("batch", "CronJob", "cronjobs", NAMESPACED, DELETABLE, [
        on("v1", 21),
        gone("v1beta1", 8, 25),
    ]),
    // ---- autoscaling ----------------------------------------------------------------------------
    res!("autoscaling", "HorizontalPodAutoscaler", "horizontalpodautoscalers", NAMESPACED, DELETABLE, [
        on("v2", 23),
        on("v1", 2),
        gone("v2beta2", 12, 26),
        gone("v2beta1", 8, 25),
    ]),
    // ---- policy ---------------------------------------------------------------------------------
    res!("policy", "PodDisruptionBudget", "poddisruptionbudgets", NAMESPACED, DELETABLE, [
        on("v1", 21),
        gone("v1beta1", 5, 25),
    ]),
    res!("policy", "PodSecurityPolicy", "podsecuritypolicies", CLUSTER, DELETABLE, [gone("v1beta1", 10, 25)]),
    // ---- networking.k8s.io ----------------------------------------------------------------------
    // GA in 1.7 (kubernetes#39164); the migration guide says "available since v1.8".
    res!("networking.k8s.io", "NetworkPolicy", "networkpolicies", NAMESPACED, DELETABLE, [on("v1", 7)]),
    res!("networking.k8s.io", "Ingress", "ingresses", NAMESPACED, DELETABLE, [
        on("v1", 19),
        gone("v1beta1", 14, 22),
    ]),
    res!("networking.k8s.io", "IngressClass", "ingressclasses", CLUSTER, DELETABLE, [
        on("v1", 19),
        gone("v1beta1", 18, 22),
    ]),
    res!("networking.k8s.io", "ServiceCIDR", "servicecidrs", CLUSTER, DELETABLE, [
        on("v1", 33),
        on("v1beta1", 31),
    ]),
    res!("networking.k8s.io", "IPAddress", "ipaddresses", CLUSTER, DELETABLE, [
        on("v1", 33),
        on("v1beta1", 31),
    ]),
    // ---- rbac.authorization.k8s.io --------------------------------------------------------------
    res!("rbac.authorization.k8s.io", "Role", "roles", NAMESPACED, DELETABLE, [
        on("v1", 8),
        gone("v1beta1", 6, 22),
    ]),
    res!("rbac.authorization.k8s.io", "RoleBinding", "rolebindings", NAMESPACED, DELETABLE, [
        on("v1", 8),
        gone("v1beta1", 6, 22),
    ]),
    res!("rbac.authorization.k8s.io", "ClusterRole", "clusterroles", CLUSTER, DELETABLE, [
        on("v1", 8),
        gone("v1beta1", 6, 22),
    ]),
    res!("rbac.authorization.k8s.io", "ClusterRoleBinding", "clusterrolebindings", CLUSTER, DELETABLE, [
        on("v1", 8),
        gone("v1beta1", 6, 22),
    ]),
    // ---- storage.k8s.io -------------------------------------------------------------------------
    res!("storage.k8s.io", "StorageClass", "storageclasses", CLUSTER, DELETABLE, [
        on("v1", 6),
        gone("v1beta1", 4, 22),
    ]),
    res!("storage.k8s.io", "VolumeAttachment", "volumeattachments", CLUSTER, DELETABLE, [
        on("v1", 13),
        gone("v1beta1", 10, 22),
    ]),
    // The migration guide says v1 "since v1.19"; the GA promotion (kubernetes#84814) shipped in
    // 1.18.
    res!("storage.k8s.io", "CSIDriver", "csidrivers", CLUSTER, DELETABLE, [
        on("v1", 18),
        gone("v1beta1", 14, 22),
    ]),
    res!("storage.k8s.io", "CSINode", "csinodes", CLUSTER, DELETABLE, [
        on("v1", 17),
        gone("v1beta1", 14, 22),
    ]),
    res!("storage.k8s.io", "CSIStorageCapacity", "csistoragecapacities", NAMESPACED, DELETABLE, [
        on("v1", 24),
        gone("v1beta1", 21, 27),
    ]),
    res!("storage.k8s.io", "VolumeAttributesClass", "volumeattributesclasses", CLUSTER, DELETABLE, [
        on("v1", 34),
        on("v1beta1", 31),
    ]),
    // ---- admissionregistration.k8s.io -----------------------------------------------------------
    res!(
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        CLUSTER,
        DELETABLE,
        [on("v1", 16), gone("v1beta1", 9, 22)]
    ),
    res!(
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        CLUSTER,
        DELETABLE,
        [on("v1", 16), gone("v1beta1", 9, 22)]
    ),
    res!(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        "validatingadmissionpolicies",
        CLUSTER,
        DELETABLE,
        [on("v1", 30), on("v1beta1", 28)]
    ),
    res!(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        "validatingadmissionpolicybindings",
        CLUSTER,
        DELETABLE,
        [on("v1", 30), on("v1beta1", 28)]
    ),
    res!(
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicy",
        "mutatingadmissionpolicies",
        CLUSTER,
        DELETABLE,
        [on("v1", 36), on("v1beta1", 34)]
    ),
    res!(
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding",
        "mutatingadmissionpolicybindings",
        CLUSTER,
        DELETABLE,
        [on("v1", 36), on("v1beta1", 34)]
    ),
    // ---- apiextensions.k8s.io / apiregistration.k8s.io ------------------------------------------
    res!("apiextensions.k8s.io", "CustomResourceDefinition", "customresourcedefinitions", CLUSTER, DELETABLE, [
        on("v1", 16),
        gone("v1beta1", 7, 22),
    ]),
    res!("apiregistration.k8s.io", "APIService", "apiservices", CLUSTER, DELETABLE, [
        on("v1", 10),
        gone("v1beta1", 7, 22),
    ]),
    // ---- certificates.k8s.io --------------------------------------------------------------------
    res!("certificates.k8s.io", "CertificateSigningRequest", "certificatesigningrequests", CLUSTER, DELETABLE, [
        on("v1", 19),
        gone("v1beta1", 6, 22),
    ]),
    res!("certificates.k8s.io", "ClusterTrustBundle", "clustertrustbundles", CLUSTER, DELETABLE, [
        on("v1beta1", 33),
    ]),
    res!("certificates.k8s.io", "PodCertificateRequest", "podcertificaterequests", NAMESPACED, DELETABLE, [
        on("v1beta1", 35),
    ]),
    // ---- coordination.k8s.io --------------------------------------------------------------------
    res!("coordination.k8s.io", "Lease", "leases", NAMESPACED, DELETABLE, [
        on("v1", 14),
        gone("v1beta1", 12, 22),
    ]),
    res!("coordination.k8s.io", "LeaseCandidate", "leasecandidates", NAMESPACED, DELETABLE, [
        on("v1beta1", 33),
    ]),
    // ---- discovery.k8s.io / events.k8s.io -------------------------------------------------------
    res!("discovery.k8s.io", "EndpointSlice", "endpointslices", NAMESPACED, DELETABLE, [
        on("v1", 21),
        gone("v1beta1", 17, 25),
    ]),
    res!("events.k8s.io", "Event", "events", NAMESPACED, DELETABLE, [
        on("v1", 19),
        gone("v1beta1", 8, 25),
    ]),
    // ---- node.k8s.io / scheduling.k8s.io --------------------------------------------------------
    res!("node.k8s.io", "RuntimeClass", "runtimeclasses", CLUSTER, DELETABLE, [
        on("v1", 20),
        gone("v1beta1", 14, 25),
    ]),
    res!("scheduling.k8s.io", "PriorityClass", "priorityclasses", CLUSTER, DELETABLE, [
        on("v1", 14),
        gone("v1beta1", 11, 22),
    ]),
    // ---- flowcontrol.apiserver.k8s.io -----------------------------------------------------------
    res!("flowcontrol.apiserver.k8s.io", "FlowSchema", "flowschemas", CLUSTER, DELETABLE, [
        on("v1", 29),
        gone("v1beta3", 26, 32),
        gone("v1beta2", 23, 29),
        gone("v1beta1", 20, 26),
    ]),
    res!(
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        "prioritylevelconfigurations",
        CLUSTER,
        DELETABLE,
        [on("v1", 29), gone("v1beta3", 26, 32), gone("v1beta2", 23, 29), gone("v1beta1", 20, 26)]
    ),
    // ---- resource.k8s.io (dynamic resource allocation) ------------------------------------------
    // v1beta1 (1.32) and v1beta2 (1.33) are off by default; v1 (1.34) is on.
    res!("resource.k8s.io", "DeviceClass", "deviceclasses", CLUSTER, DELETABLE, [
        on("v1", 34),
        on("v1beta2", 33),
        on("v1beta1", 32),
    ]),
    res!("resource.k8s.io", "ResourceClaim", "resourceclaims", NAMESPACED, DELETABLE, [
        on("v1", 34),
        on("v1beta2", 33),
        on("v1beta1", 32),
    ]),
    res!("resource.k8s.io", "ResourceClaimTemplate", "resourceclaimtemplates", NAMESPACED, DELETABLE, [
        on("v1", 34),
        on("v1beta2", 33),
        on("v1beta1", 32),
    ]),
    res!("resource.k8s.io", "ResourceSlice", "resourceslices", CLUSTER, DELETABLE, [
        on("v1", 34),
        on("v1beta2", 33),
        on("v1beta1", 32),
    ]),
];

/// All built-in resources.
pub fn all() -> &'static [BuiltinResource] {
    BUILTIN
}

/// `kind` is `canonical` exactly or `canonical` lower-cased (the REST mapper's rule, §6.9).
fn kind_matches(canonical: &str, kind: &str) -> bool {
    canonical == kind
        || (canonical.len() == kind.len()
            && canonical
                .bytes()
                .zip(kind.bytes())
                .all(|(c, k)| c.to_ascii_lowercase() == k))
}

/// The built-in resource of `group` whose kind is `kind` exactly or whose lower-cased kind
/// equals `kind` (the REST mapper's rule, §6.9).
pub fn find(group: &str, kind: &str) -> Option<&'static BuiltinResource> {
    BUILTIN
        .iter()
        .find(|r| r.group == group && kind_matches(r.kind, kind))
}

/// True for API groups whose every kind is in this table (a kind missing from such a group is
/// not served by any release — within the table's scope: alpha-only kinds are not listed, see
/// the module documentation).
pub fn is_builtin_group(group: &str) -> bool {
    BUILTIN.iter().any(|r| r.group == group)
}

/// Whether a delete request made through `group/version` for `kind`, without an explicit
/// propagation policy (and without the legacy `orphanDependents` field), defaults to orphaning
/// the dependents (the type's `DefaultGarbageCollectionPolicy` is `OrphanDependents`).
///
/// The group and version are those of the *request*, not of the stored object. Everything not
/// listed defaults to background deletion:
///
/// * core `v1` ReplicationController;
/// * `batch/v1` Job;
/// * `batch/v1beta1` and `batch/v2alpha1` CronJob;
/// * the pre-`apps/v1` workload versions: `extensions/v1beta1` Deployment, DaemonSet and
///   ReplicaSet; `apps/v1beta1` Deployment and StatefulSet; `apps/v1beta2` Deployment,
///   DaemonSet, ReplicaSet and StatefulSet.
///
/// `kind` matches like [`find`] (exact or all lower-case).
pub fn default_orphans(group: &str, version: &str, kind: &str) -> bool {
    let any = |kinds: &[&str]| kinds.iter().any(|k| kind_matches(k, kind));
    match (group, version) {
        ("", "v1") => any(&["ReplicationController"]),
        ("batch", "v1") => any(&["Job"]),
        ("batch", "v1beta1" | "v2alpha1") => any(&["CronJob"]),
        ("extensions", "v1beta1") => any(&["Deployment", "DaemonSet", "ReplicaSet"]),
        ("apps", "v1beta1") => any(&["Deployment", "StatefulSet"]),
        ("apps", "v1beta2") => any(&["Deployment", "DaemonSet", "ReplicaSet", "StatefulSet"]),
        _ => false,
    }
}

/// A resource version that one release serves and another does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Removal {
    /// API group (`""` for core).
    pub group: &'static str,
    /// The version no longer served (`v1beta1`).
    pub version: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// First minor release, going from `from` towards `to`, that does not serve the version:
    /// for an upgrade, the release that removed it.
    pub removed_in: u32,
    /// The `apiVersion` to use instead at the target release (`"apps/v1"`): the preferred served
    /// version of the same kind in the same group, else in another group (for `extensions`
    /// kinds). `None` when the kind itself is gone (PodSecurityPolicy, ThirdPartyResource).
    pub replacement: Option<&'static str>,
}

/// The preferred `apiVersion` serving `kind` at `at`: in `group` if it still serves the kind,
/// else in the first other group that does.
fn replacement_for(group: &str, kind: &str, at: KubeVersion) -> Option<&'static str> {
    let same = BUILTIN
        .iter()
        .filter(|r| r.group == group && r.kind == kind);
    let other = BUILTIN
        .iter()
        .filter(|r| r.group != group && r.kind == kind);
    same.chain(other).find_map(|r| {
        r.versions
            .iter()
            .find(|v| v.served_at(at.minor))
            .and_then(|v| api_version_str(r.group, v.version))
    })
}

/// Every `group/version` of a non-core group in the table, built once.
static API_VERSIONS: LazyLock<HashMap<(&'static str, &'static str), String>> =
    LazyLock::new(|| {
        BUILTIN
            .iter()
            .filter(|r| !r.group.is_empty())
            .flat_map(|r| {
                r.versions
                    .iter()
                    .map(move |v| ((r.group, v.version), format!("{}/{}", r.group, v.version)))
            })
            .collect()
    });

/// `group/version` as a `'static` string, for a group and version that are in the table.
fn api_version_str(group: &'static str, version: &'static str) -> Option<&'static str> {
    if group.is_empty() {
        return Some(version);
    }
    API_VERSIONS.get(&(group, version)).map(String::as_str)
}

/// The resource versions served at `from` but not at `to`, in table order.
///
/// For an upgrade these are the removals in between; for a downgrade (`to` older than `from`)
/// they are the versions `to` does not serve yet, with `removed_in` the newest release below
/// `from` that lacks them.
pub fn removals_between(from: KubeVersion, to: KubeVersion) -> Vec<Removal> {
    let mut out = Vec::new();
    for r in BUILTIN {
        for v in r.versions {
            if !v.served_at(from.minor) || v.served_at(to.minor) {
                continue;
            }
            let removed_in = if to.minor >= from.minor {
                // Served at `from`, not at the later `to`: removed in between.
                v.removed_in.unwrap_or(to.minor)
            } else {
                v.since.saturating_sub(1)
            };
            out.push(Removal {
                group: r.group,
                version: v.version,
                kind: r.kind,
                removed_in,
                replacement: replacement_for(r.group, r.kind, to),
            });
        }
    }
    out
}

/// The release that removed `group/version` `kind`, if it is removed as of `at` (`None`: still
/// served, not yet introduced, or not a built-in resource version).
pub fn removed_by(group: &str, version: &str, kind: &str, at: KubeVersion) -> Option<u32> {
    find(group, kind)?
        .version(version)?
        .removed_in
        .filter(|&r| at.minor >= r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;
    use std::collections::HashSet;

    fn v(minor: u32) -> KubeVersion {
        KubeVersion::v1(minor)
    }

    /// Kubernetes version priority: GA > beta > alpha, then higher major, then higher number.
    fn priority(a: &str, b: &str) -> Ordering {
        fn key(s: &str) -> (u32, u32, u32) {
            let rest = s.strip_prefix('v').expect("versions start with v");
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let major: u32 = digits.parse().expect("major");
            let tail = &rest[digits.len()..];
            let (stability, n) = if tail.is_empty() {
                (2, 0)
            } else if let Some(n) = tail.strip_prefix("beta") {
                (1, n.parse().expect("beta number"))
            } else if let Some(n) = tail.strip_prefix("alpha") {
                (0, n.parse().expect("alpha number"))
            } else {
                panic!("unexpected version {s}")
            };
            (stability, major, n)
        }
        key(b).cmp(&key(a))
    }

    /// (group, kind, version, removed_in) pinned against the Deprecated API Migration Guide.
    const PINNED_REMOVALS: &[(&str, &str, &str, u32)] = &[
        ("extensions", "Deployment", "v1beta1", 16),
        ("extensions", "DaemonSet", "v1beta1", 16),
        ("extensions", "ReplicaSet", "v1beta1", 16),
        ("extensions", "NetworkPolicy", "v1beta1", 16),
        ("extensions", "PodSecurityPolicy", "v1beta1", 16),
        ("extensions", "Ingress", "v1beta1", 22),
        ("apps", "Deployment", "v1beta1", 16),
        ("apps", "Deployment", "v1beta2", 16),
        ("apps", "StatefulSet", "v1beta1", 16),
        ("apps", "StatefulSet", "v1beta2", 16),
        ("apps", "DaemonSet", "v1beta2", 16),
        ("apps", "ReplicaSet", "v1beta2", 16),
        ("apps", "ControllerRevision", "v1beta1", 16),
        ("apps", "ControllerRevision", "v1beta2", 16),
        ("batch", "CronJob", "v1beta1", 25),
        ("policy", "PodDisruptionBudget", "v1beta1", 25),
        ("policy", "PodSecurityPolicy", "v1beta1", 25),
        ("autoscaling", "HorizontalPodAutoscaler", "v2beta1", 25),
        ("autoscaling", "HorizontalPodAutoscaler", "v2beta2", 26),
        ("networking.k8s.io", "Ingress", "v1beta1", 22),
        ("networking.k8s.io", "IngressClass", "v1beta1", 22),
        ("rbac.authorization.k8s.io", "Role", "v1beta1", 22),
        ("rbac.authorization.k8s.io", "RoleBinding", "v1beta1", 22),
        ("rbac.authorization.k8s.io", "ClusterRole", "v1beta1", 22),
        (
            "rbac.authorization.k8s.io",
            "ClusterRoleBinding",
            "v1beta1",
            22,
        ),
        (
            "apiextensions.k8s.io",
            "CustomResourceDefinition",
            "v1beta1",
            22,
        ),
        ("apiregistration.k8s.io", "APIService", "v1beta1", 22),
        (
            "admissionregistration.k8s.io",
            "ValidatingWebhookConfiguration",
            "v1beta1",
            22,
        ),
        (
            "admissionregistration.k8s.io",
            "MutatingWebhookConfiguration",
            "v1beta1",
            22,
        ),
        (
            "certificates.k8s.io",
            "CertificateSigningRequest",
            "v1beta1",
            22,
        ),
        ("coordination.k8s.io", "Lease", "v1beta1", 22),
        ("scheduling.k8s.io", "PriorityClass", "v1beta1", 22),
        ("storage.k8s.io", "CSIDriver", "v1beta1", 22),
        ("storage.k8s.io", "CSINode", "v1beta1", 22),
        ("storage.k8s.io", "StorageClass", "v1beta1", 22),
        ("storage.k8s.io", "VolumeAttachment", "v1beta1", 22),
        ("storage.k8s.io", "CSIStorageCapacity", "v1beta1", 27),
        ("discovery.k8s.io", "EndpointSlice", "v1beta1", 25),
        ("events.k8s.io", "Event", "v1beta1", 25),
        ("node.k8s.io", "RuntimeClass", "v1beta1", 25),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema", "v1beta1", 26),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema", "v1beta2", 29),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema", "v1beta3", 32),
        (
            "flowcontrol.apiserver.k8s.io",
            "PriorityLevelConfiguration",
            "v1beta1",
            26,
        ),
        (
            "flowcontrol.apiserver.k8s.io",
            "PriorityLevelConfiguration",
            "v1beta2",
            29,
        ),
        (
            "flowcontrol.apiserver.k8s.io",
            "PriorityLevelConfiguration",
            "v1beta3",
            32,
        ),
    ];

    #[test]
    fn pinned_removals_match_the_migration_guide() {
        for &(group, kind, version, removed_in) in PINNED_REMOVALS {
            let r = find(group, kind).unwrap_or_else(|| panic!("{group} {kind} missing"));
            let entry = r
                .version(version)
                .unwrap_or_else(|| panic!("{group}/{version} {kind} missing"));
            assert_eq!(
                entry.removed_in,
                Some(removed_in),
                "{group}/{version} {kind}"
            );
            assert_eq!(
                r.serves(version, v(removed_in - 1)),
                Some(true),
                "{group}/{version} {kind}"
            );
            assert_eq!(
                r.serves(version, v(removed_in)),
                Some(false),
                "{group}/{version} {kind}"
            );
            assert_eq!(
                removed_by(group, version, kind, v(removed_in)),
                Some(removed_in)
            );
            assert_eq!(removed_by(group, version, kind, v(removed_in - 1)), None);
        }
    }

    #[test]
    fn replacement_versions_start_where_the_guide_says() {
        let since = |g: &str, k: &str, ver: &str| find(g, k).unwrap().version(ver).unwrap().since;
        assert_eq!(since("apps", "Deployment", "v1"), 9);
        assert_eq!(since("batch", "CronJob", "v1"), 21);
        assert_eq!(since("policy", "PodDisruptionBudget", "v1"), 21);
        assert_eq!(since("autoscaling", "HorizontalPodAutoscaler", "v2"), 23);
        assert_eq!(since("networking.k8s.io", "Ingress", "v1"), 19);
        assert_eq!(since("networking.k8s.io", "IngressClass", "v1"), 19);
        assert_eq!(since("rbac.authorization.k8s.io", "Role", "v1"), 8);
        assert_eq!(
            since("apiextensions.k8s.io", "CustomResourceDefinition", "v1"),
            16
        );
        assert_eq!(
            since(
                "admissionregistration.k8s.io",
                "ValidatingWebhookConfiguration",
                "v1"
            ),
            16
        );
        assert_eq!(since("apiregistration.k8s.io", "APIService", "v1"), 10);
        assert_eq!(
            since("certificates.k8s.io", "CertificateSigningRequest", "v1"),
            19
        );
        assert_eq!(since("coordination.k8s.io", "Lease", "v1"), 14);
        assert_eq!(since("scheduling.k8s.io", "PriorityClass", "v1"), 14);
        assert_eq!(since("storage.k8s.io", "CSIStorageCapacity", "v1"), 24);
        assert_eq!(since("storage.k8s.io", "CSINode", "v1"), 17);
        assert_eq!(since("storage.k8s.io", "StorageClass", "v1"), 6);
        assert_eq!(since("storage.k8s.io", "VolumeAttachment", "v1"), 13);
        assert_eq!(since("discovery.k8s.io", "EndpointSlice", "v1"), 21);
        assert_eq!(since("events.k8s.io", "Event", "v1"), 19);
        assert_eq!(since("node.k8s.io", "RuntimeClass", "v1"), 20);
        assert_eq!(
            since("flowcontrol.apiserver.k8s.io", "FlowSchema", "v1beta3"),
            26
        );
        assert_eq!(
            since("flowcontrol.apiserver.k8s.io", "FlowSchema", "v1"),
            29
        );
        assert_eq!(since("policy", "PodSecurityPolicy", "v1beta1"), 10);
    }

    #[test]
    fn pod_security_policy_is_gone_entirely_in_1_25() {
        assert_eq!(
            find("policy", "PodSecurityPolicy")
                .unwrap()
                .preferred_at(v(24)),
            Some("v1beta1")
        );
        assert_eq!(
            find("policy", "PodSecurityPolicy")
                .unwrap()
                .preferred_at(v(25)),
            None
        );
        assert_eq!(
            find("extensions", "PodSecurityPolicy")
                .unwrap()
                .preferred_at(v(16)),
            None
        );
    }

    #[test]
    fn table_is_well_formed() {
        let mut seen = HashSet::new();
        for r in BUILTIN {
            assert!(
                seen.insert((r.group, r.kind)),
                "duplicate row {} {}",
                r.group,
                r.kind
            );
            assert!(
                !r.versions.is_empty(),
                "{} {} has no versions",
                r.group,
                r.kind
            );
            assert!(
                r.plural.bytes().all(|b| b.is_ascii_lowercase()),
                "plural {} not lower-case",
                r.plural
            );
            assert!(
                r.kind.starts_with(|c: char| c.is_ascii_uppercase()),
                "kind {}",
                r.kind
            );
            let mut versions = HashSet::new();
            for ver in r.versions {
                assert!(
                    versions.insert(ver.version),
                    "{} {} lists {} twice",
                    r.group,
                    r.kind,
                    ver.version
                );
                assert!(
                    !ver.version.contains("alpha"),
                    "{} {} lists alpha {}",
                    r.group,
                    r.kind,
                    ver.version
                );
                if let Some(removed) = ver.removed_in {
                    assert!(
                        ver.since < removed,
                        "{} {} {} removed before served",
                        r.group,
                        r.kind,
                        ver.version
                    );
                    assert!(
                        removed <= KubeVersion::NEWEST.minor,
                        "{} {} {}",
                        r.group,
                        r.kind,
                        ver.version
                    );
                }
                assert!(
                    ver.since <= KubeVersion::NEWEST.minor,
                    "{} {} {}",
                    r.group,
                    r.kind,
                    ver.version
                );
            }
            for pair in r.versions.windows(2) {
                assert_eq!(
                    priority(pair[0].version, pair[1].version),
                    Ordering::Less,
                    "{} {}: {} listed before {}",
                    r.group,
                    r.kind,
                    pair[0].version,
                    pair[1].version
                );
            }
            if r.kind == "ComponentStatus" || r.kind == "Binding" {
                assert!(!r.deletable);
            } else {
                assert!(r.deletable, "{} {}", r.group, r.kind);
            }
        }
        // A plural names one kind within a group.
        let mut plurals = HashSet::new();
        for r in BUILTIN {
            assert!(
                plurals.insert((r.group, r.plural)),
                "{} {}",
                r.group,
                r.plural
            );
        }
    }

    #[test]
    fn core_resources_are_present_with_their_scope() {
        let core = [
            ("Pod", true),
            ("Service", true),
            ("Endpoints", true),
            ("ConfigMap", true),
            ("Secret", true),
            ("ServiceAccount", true),
            ("PersistentVolumeClaim", true),
            ("PersistentVolume", false),
            ("Node", false),
            ("Namespace", false),
            ("ReplicationController", true),
            ("LimitRange", true),
            ("ResourceQuota", true),
            ("PodTemplate", true),
            ("Event", true),
            ("ComponentStatus", false),
            ("Binding", true),
        ];
        for (kind, namespaced) in core {
            let r = find("", kind).unwrap_or_else(|| panic!("core {kind} missing"));
            assert_eq!(r.namespaced, namespaced, "{kind}");
            assert_eq!(r.preferred_at(v(36)), Some("v1"), "{kind}");
        }
        assert!(find("", "Event").unwrap().deletable);
        assert!(!find("", "ComponentStatus").unwrap().deletable);
        assert!(!find("", "Binding").unwrap().deletable);
    }

    #[test]
    fn find_accepts_exact_and_lowercase_kinds_only() {
        assert_eq!(
            find("apps", "DaemonSet").map(|r| r.plural),
            Some("daemonsets")
        );
        assert_eq!(
            find("apps", "daemonset").map(|r| r.plural),
            Some("daemonsets")
        );
        assert!(find("apps", "DAEMONSET").is_none());
        assert!(find("apps", "Daemonset").is_none());
        assert!(find("apps", "daemonsets").is_none());
        assert!(find("", "configmap").is_some());
        assert!(find("core", "ConfigMap").is_none());
        assert!(find("apps", "Pod").is_none());
    }

    #[test]
    fn preferred_versions() {
        let deploy = find("apps", "Deployment").unwrap();
        assert_eq!(deploy.preferred_at(v(15)), Some("v1"));
        assert_eq!(deploy.preferred_at(v(8)), Some("v1beta2"));
        assert_eq!(deploy.preferred_at(v(7)), Some("v1beta1"));
        assert_eq!(deploy.preferred_at(v(5)), None);

        // extensions and networking.k8s.io are different groups.
        let ext_ingress = find("extensions", "Ingress").unwrap();
        let net_ingress = find("networking.k8s.io", "Ingress").unwrap();
        assert_eq!(ext_ingress.preferred_at(v(20)), Some("v1beta1"));
        assert_eq!(net_ingress.preferred_at(v(20)), Some("v1"));
        assert_eq!(ext_ingress.preferred_at(v(21)), Some("v1beta1"));
        assert_eq!(ext_ingress.preferred_at(v(22)), None);
        assert_eq!(net_ingress.preferred_at(v(18)), Some("v1beta1"));

        let hpa = find("autoscaling", "HorizontalPodAutoscaler").unwrap();
        assert_eq!(hpa.preferred_at(v(22)), Some("v1"));
        assert_eq!(hpa.preferred_at(v(23)), Some("v2"));

        let flow = find("flowcontrol.apiserver.k8s.io", "FlowSchema").unwrap();
        assert_eq!(flow.preferred_at(v(19)), None);
        assert_eq!(flow.preferred_at(v(20)), Some("v1beta1"));
        assert_eq!(flow.preferred_at(v(25)), Some("v1beta2"));
        assert_eq!(flow.preferred_at(v(28)), Some("v1beta3"));
        assert_eq!(flow.preferred_at(v(29)), Some("v1"));

        assert_eq!(find("", "ConfigMap").unwrap().preferred_at(v(1)), None);
        assert_eq!(
            find("", "ConfigMap").unwrap().preferred_at(v(2)),
            Some("v1")
        );
    }

    #[test]
    fn serves_reports_unknown_versions_as_none() {
        let rs = find("apps", "ReplicaSet").unwrap();
        assert_eq!(rs.serves("v1", v(9)), Some(true));
        assert_eq!(rs.serves("v1", v(8)), Some(false));
        assert_eq!(rs.serves("v1beta2", v(15)), Some(true));
        assert_eq!(rs.serves("v1beta2", v(16)), Some(false));
        // ReplicaSet never was in apps/v1beta1.
        assert_eq!(rs.serves("v1beta1", v(10)), None);
        assert_eq!(rs.serves("v2", v(30)), None);
        let cj = find("batch", "CronJob").unwrap();
        assert_eq!(cj.serves("v1", v(20)), Some(false));
        assert_eq!(cj.serves("v1", v(21)), Some(true));
        assert_eq!(cj.serves("v1beta1", v(24)), Some(true));
    }

    #[test]
    fn builtin_groups() {
        for g in [
            "",
            "apps",
            "extensions",
            "batch",
            "autoscaling",
            "policy",
            "networking.k8s.io",
            "rbac.authorization.k8s.io",
            "storage.k8s.io",
            "admissionregistration.k8s.io",
            "apiextensions.k8s.io",
            "apiregistration.k8s.io",
            "certificates.k8s.io",
            "coordination.k8s.io",
            "discovery.k8s.io",
            "events.k8s.io",
            "node.k8s.io",
            "scheduling.k8s.io",
            "flowcontrol.apiserver.k8s.io",
            "resource.k8s.io",
        ] {
            assert!(is_builtin_group(g), "{g:?}");
        }
        assert!(!is_builtin_group("metrics.k8s.io"));
        assert!(!is_builtin_group("cert-manager.io"));
        assert!(!is_builtin_group("authentication.k8s.io"));
    }

    #[test]
    fn default_orphan_policies() {
        assert!(default_orphans("", "v1", "ReplicationController"));
        assert!(default_orphans("", "v1", "replicationcontroller"));
        assert!(default_orphans("batch", "v1", "Job"));
        assert!(default_orphans("batch", "v1beta1", "CronJob"));
        assert!(default_orphans("batch", "v2alpha1", "CronJob"));
        assert!(default_orphans("extensions", "v1beta1", "Deployment"));
        assert!(default_orphans("extensions", "v1beta1", "DaemonSet"));
        assert!(default_orphans("extensions", "v1beta1", "ReplicaSet"));
        assert!(default_orphans("apps", "v1beta1", "Deployment"));
        assert!(default_orphans("apps", "v1beta1", "StatefulSet"));
        assert!(default_orphans("apps", "v1beta2", "Deployment"));
        assert!(default_orphans("apps", "v1beta2", "DaemonSet"));
        assert!(default_orphans("apps", "v1beta2", "ReplicaSet"));
        assert!(default_orphans("apps", "v1beta2", "StatefulSet"));

        assert!(!default_orphans("apps", "v1", "Deployment"));
        assert!(!default_orphans("apps", "v1", "ReplicaSet"));
        assert!(!default_orphans("batch", "v1", "CronJob"));
        assert!(!default_orphans("", "v1", "Pod"));
        assert!(!default_orphans("", "v1", "Service"));
        assert!(!default_orphans("extensions", "v1beta1", "Ingress"));
        assert!(!default_orphans("", "v1", "REPLICATIONCONTROLLER"));
        assert!(!default_orphans("example.com", "v1", "Job"));
    }

    #[test]
    fn removals_between_1_15_and_1_16() {
        let removals = removals_between(v(15), v(16));
        let deploy = removals
            .iter()
            .find(|r| r.group == "extensions" && r.version == "v1beta1" && r.kind == "Deployment")
            .expect("extensions/v1beta1 Deployment is removed in 1.16");
        assert_eq!(deploy.removed_in, 16);
        assert_eq!(deploy.replacement, Some("apps/v1"));

        let has = |g: &str, ver: &str, k: &str| {
            removals
                .iter()
                .any(|r| r.group == g && r.version == ver && r.kind == k)
        };
        assert!(has("apps", "v1beta1", "StatefulSet"));
        assert!(has("apps", "v1beta2", "DaemonSet"));
        assert!(has("extensions", "v1beta1", "NetworkPolicy"));
        assert!(has("extensions", "v1beta1", "PodSecurityPolicy"));
        assert!(!has("extensions", "v1beta1", "Ingress"));
        assert!(removals.iter().all(|r| r.removed_in == 16));

        let find_removal = |g: &str, ver: &str, k: &str| {
            *removals
                .iter()
                .find(|r| r.group == g && r.version == ver && r.kind == k)
                .unwrap()
        };
        assert_eq!(
            find_removal("extensions", "v1beta1", "NetworkPolicy").replacement,
            Some("networking.k8s.io/v1")
        );
        assert_eq!(
            find_removal("extensions", "v1beta1", "PodSecurityPolicy").replacement,
            Some("policy/v1beta1")
        );
        assert_eq!(
            find_removal("apps", "v1beta1", "ControllerRevision").replacement,
            Some("apps/v1")
        );
    }

    #[test]
    fn removals_between_other_releases() {
        assert!(removals_between(v(16), v(16)).is_empty());
        assert!(removals_between(v(22), v(24)).is_empty());

        let r = removals_between(v(21), v(22));
        let ingress = r
            .iter()
            .find(|x| x.group == "extensions" && x.kind == "Ingress")
            .unwrap();
        assert_eq!(ingress.replacement, Some("networking.k8s.io/v1"));
        assert!(
            r.iter()
                .any(|x| x.group == "networking.k8s.io" && x.kind == "IngressClass")
        );

        let r = removals_between(v(24), v(26));
        let psp = r
            .iter()
            .find(|x| x.group == "policy" && x.kind == "PodSecurityPolicy")
            .unwrap();
        assert_eq!((psp.removed_in, psp.replacement), (25, None));
        let hpa2 = r
            .iter()
            .find(|x| x.kind == "HorizontalPodAutoscaler" && x.version == "v2beta2")
            .unwrap();
        assert_eq!(
            (hpa2.removed_in, hpa2.replacement),
            (26, Some("autoscaling/v2"))
        );
        let cj = r.iter().find(|x| x.kind == "CronJob").unwrap();
        assert_eq!((cj.removed_in, cj.replacement), (25, Some("batch/v1")));

        // A downgrade reports what the older release does not serve yet.
        let down = removals_between(v(21), v(20));
        let cj = down
            .iter()
            .find(|x| x.kind == "CronJob" && x.version == "v1")
            .unwrap();
        assert_eq!((cj.removed_in, cj.replacement), (20, Some("batch/v1beta1")));
    }

    #[test]
    fn removed_by_derives_from_the_table() {
        assert_eq!(
            removed_by("extensions", "v1beta1", "Ingress", v(22)),
            Some(22)
        );
        assert_eq!(
            removed_by("extensions", "v1beta1", "ingress", v(30)),
            Some(22)
        );
        assert_eq!(removed_by("extensions", "v1beta1", "Ingress", v(21)), None);
        assert_eq!(removed_by("apps", "v1", "Deployment", v(36)), None);
        assert_eq!(removed_by("apps", "v1beta1", "ReplicaSet", v(20)), None);
        assert_eq!(removed_by("example.com", "v1", "Widget", v(20)), None);
    }

    #[test]
    fn api_version_strings() {
        assert_eq!(find("", "Pod").unwrap().api_version("v1"), "v1");
        assert_eq!(
            find("apps", "Deployment").unwrap().api_version("v1"),
            "apps/v1"
        );
        assert_eq!(api_version_str("apps", "v1"), Some("apps/v1"));
        assert_eq!(api_version_str("", "v1"), Some("v1"));
        assert_eq!(api_version_str("apps", "v7"), None);
    }
}
