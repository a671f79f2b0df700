//! A deterministic, seeded generator of synthetic clusters for benchmarks and load tests
//! (`kubectl gc generate`, `cargo bench --bench pipeline`).
//!
//! The shape follows a real cluster: many namespaces, each filled with application units —
//! Deployments → ReplicaSets → Pods, StatefulSets → Pods + ControllerRevisions, CronJobs → Jobs →
//! Pods, operator custom resources (`Redis`) owning built-ins, headless Services owning
//! EndpointSlices — plus cluster-scoped owners: Nodes owning their Leases and the control plane's
//! mirror pods, DaemonSets with a pod per node, and a cluster-scoped `ClusterPolicy` custom
//! resource owning ClusterRoles and ClusterRoleBindings. Names, UIDs, resourceVersions,
//! timestamps and labels look like the API server's.
//!
//! On top of that shape, anomalies are injected at configurable rates (each a fraction of the
//! object count, spread evenly over the run):
//!
//! * dangling references — pods whose ReplicaSet is gone (`GC001`);
//! * cross-namespace references — ConfigMaps owned by a `Redis` in another namespace (`GC004`);
//! * unresolvable kinds — ConfigMaps also owned by an unserved `legacy.example.com` kind (`GC006`);
//! * foreground chains with blockers — a Deployment and its current ReplicaSet terminating with
//!   `foregroundDeletion`, held by a pod with `blockOwnerDeletion=true` that is itself terminating
//!   behind a custom finalizer (`GC008`, `GC013`);
//! * orphan finalizers — Deployments terminating with the `orphan` finalizer (`GC009`).
//!
//! The same seed and options always give the same cluster, byte for byte.

use crate::model::meta::Labels;
use crate::model::{MetaIn, OwnerRefIn, finalizers};
use crate::snapshot::{
    IgnoreReason, ListOutcome, Provenance, Resource, Snapshot, SnapshotBuilder, SourceKind,
    format_rfc3339, parse_rfc3339,
};
use std::borrow::Cow;
use std::sync::LazyLock;

mod output;
mod shape;

pub use output::Body;
pub use shape::generate;

/// One kind the generator emits: (group, version, kind, plural, namespaced).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindSpec {
    /// API group (`""` for core).
    pub group: &'static str,
    /// Version written in the snapshot (a live load uses the version the server prefers).
    pub version: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// Plural resource name.
    pub plural: &'static str,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
}

impl KindSpec {
    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_owned()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// The built-in kinds the generator emits, as (group, kind), written at `v1`; plural and scope
/// come from the catalogue ([`crate::catalog::builtin`]). Order matters: the `K_*` constants
/// index [`KINDS`].
const BUILTIN_KINDS: &[(&str, &str)] = &[
    ("", "Namespace"),
    ("", "Node"),
    ("coordination.k8s.io", "Lease"),
    ("", "Pod"),
    ("", "Service"),
    ("discovery.k8s.io", "EndpointSlice"),
    ("", "ConfigMap"),
    ("", "Secret"),
    ("", "ServiceAccount"),
    ("", "PersistentVolumeClaim"),
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("apps", "ControllerRevision"),
    ("batch", "Job"),
    ("batch", "CronJob"),
    ("rbac.authorization.k8s.io", "Role"),
    ("rbac.authorization.k8s.io", "RoleBinding"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
];

/// The custom resources the generator emits (their CRDs are part of the load), after the
/// built-in kinds.
const CUSTOM_KINDS: &[KindSpec] = &[
    KindSpec {
        group: "cache.example.com",
        version: "v1",
        kind: "Redis",
        plural: "redises",
        namespaced: true,
    },
    KindSpec {
        group: "policy.example.com",
        version: "v1",
        kind: "ClusterPolicy",
        plural: "clusterpolicies",
        namespaced: false,
    },
];

/// Every kind the generator emits, indexed by the `K_*` constants.
pub static KINDS: LazyLock<Vec<KindSpec>> = LazyLock::new(|| {
    BUILTIN_KINDS
        .iter()
        .map(|&(group, kind)| {
            let r = crate::catalog::builtin::find(group, kind)
                .unwrap_or_else(|| panic!("{group}/{kind} is not in the built-in catalogue"));
            assert!(r.version("v1").is_some(), "{group}/{kind} has no v1");
            KindSpec {
                group: r.group,
                version: "v1",
                kind: r.kind,
                plural: r.plural,
                namespaced: r.namespaced,
            }
        })
        .chain(CUSTOM_KINDS.iter().copied())
        .collect()
});

/// Index of `Namespace` in [`KINDS`].
pub const K_NAMESPACE: u8 = 0;
/// Index of `Node`.
pub const K_NODE: u8 = 1;
/// Index of `Lease`.
pub const K_LEASE: u8 = 2;
/// Index of `Pod`.
pub const K_POD: u8 = 3;
/// Index of `Service`.
pub const K_SERVICE: u8 = 4;
/// Index of `EndpointSlice`.
pub const K_ENDPOINTSLICE: u8 = 5;
/// Index of `ConfigMap`.
pub const K_CONFIGMAP: u8 = 6;
/// Index of `Secret`.
pub const K_SECRET: u8 = 7;
/// Index of `ServiceAccount`.
pub const K_SERVICEACCOUNT: u8 = 8;
/// Index of `PersistentVolumeClaim`.
pub const K_PVC: u8 = 9;
/// Index of `Deployment`.
pub const K_DEPLOYMENT: u8 = 10;
/// Index of `ReplicaSet`.
pub const K_REPLICASET: u8 = 11;
/// Index of `StatefulSet`.
pub const K_STATEFULSET: u8 = 12;
/// Index of `DaemonSet`.
pub const K_DAEMONSET: u8 = 13;
/// Index of `ControllerRevision`.
pub const K_CONTROLLERREVISION: u8 = 14;
/// Index of `Job`.
pub const K_JOB: u8 = 15;
/// Index of `CronJob`.
pub const K_CRONJOB: u8 = 16;
/// Index of `Role`.
pub const K_ROLE: u8 = 17;
/// Index of `RoleBinding`.
pub const K_ROLEBINDING: u8 = 18;
/// Index of `ClusterRole`.
pub const K_CLUSTERROLE: u8 = 19;
/// Index of `ClusterRoleBinding`.
pub const K_CLUSTERROLEBINDING: u8 = 20;
/// Index of the namespaced custom resource `cache.example.com/v1 Redis`.
pub const K_REDIS: u8 = 21;
/// Index of the cluster-scoped custom resource `policy.example.com/v1 ClusterPolicy`.
pub const K_CLUSTERPOLICY: u8 = 22;

/// apiVersion of the unserved kind that unresolvable references name.
pub const UNSERVED_API_VERSION: &str = "legacy.example.com/v1alpha1";
/// The unserved kind that unresolvable references name.
pub const UNSERVED_KIND: &str = "Widget";
/// The custom finalizer that holds blocking dependents and other terminating objects.
pub const BLOCKER_FINALIZER: &str = "example.com/drain-protection";

/// Generator settings.
#[derive(Clone, Debug, PartialEq)]
pub struct GenOptions {
    /// Number of objects to generate.
    pub objects: usize,
    /// Random seed: the same seed and options give the same cluster.
    pub seed: u64,
    /// Number of application namespaces (default: one per 500 objects, at least 2).
    pub namespaces: Option<usize>,
    /// Fraction of objects that are pods whose ReplicaSet no longer exists.
    pub dangling_rate: f64,
    /// Fraction of objects that are ConfigMaps owned by a custom resource in another namespace.
    pub cross_namespace_rate: f64,
    /// Fraction of objects that carry a reference to an unserved kind.
    pub unresolvable_rate: f64,
    /// Fraction of objects that root a blocked foreground deletion (Deployment → ReplicaSet →
    /// pods, one of them terminating behind [`BLOCKER_FINALIZER`]).
    pub foreground_rate: f64,
    /// Fraction of objects that are Deployments terminating with the `orphan` finalizer.
    pub orphan_rate: f64,
    /// The server version recorded in the snapshot.
    pub server_version: String,
    /// Capture time recorded in the snapshot (objects are created in the 90 days before).
    pub captured_at: String,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            objects: 10_000,
            seed: 1,
            namespaces: None,
            dangling_rate: 0.001,
            cross_namespace_rate: 0.0002,
            unresolvable_rate: 0.0002,
            foreground_rate: 0.0002,
            orphan_rate: 0.0002,
            server_version: "v1.30.4".into(),
            captured_at: "2026-11-20T12:00:00Z".into(),
        }
    }
}

/// How a generated object is being deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deletion {
    /// Deleted with `propagationPolicy=Foreground` (the `foregroundDeletion` finalizer).
    Foreground,
    /// Deleted with `propagationPolicy=Orphan` (the `orphan` finalizer).
    Orphan,
    /// Deleted with the default policy, held by its own finalizers.
    Plain,
}

/// The object a generated reference points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefTarget {
    /// A generated object (index into [`Generated::objects`]).
    Object(u32),
    /// An object of this kind (index into [`KINDS`]) that does not exist.
    Absent(u8),
    /// An object of [`UNSERVED_API_VERSION`] [`UNSERVED_KIND`], which no server serves.
    Unserved,
}

/// One generated ownerReference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenRef {
    /// What it points at.
    pub target: RefTarget,
    /// The owner's name.
    pub name: String,
    /// The owner's UID (for [`RefTarget::Object`]: the generated UID, replaced by the
    /// server-assigned one when loaded into a live cluster).
    pub uid: u128,
    /// `controller`.
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`.
    pub block_owner_deletion: Option<bool>,
}

/// Namespace index of cluster-scoped objects.
pub const NO_NAMESPACE: u32 = u32::MAX;

/// One generated object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenObj {
    /// Index into [`KINDS`].
    pub kind: u8,
    /// Index into [`Generated::namespaces`], or [`NO_NAMESPACE`].
    pub namespace: u32,
    /// Name.
    pub name: String,
    /// UID (formatted as a version-4 UUID).
    pub uid: u128,
    /// resourceVersion.
    pub resource_version: u64,
    /// creationTimestamp, seconds since the epoch.
    pub created: i64,
    /// deletionTimestamp and how the deletion was requested.
    pub deletion: Option<(i64, Deletion)>,
    /// Finalizers (as the snapshot shows them, GC finalizers included).
    pub finalizers: Vec<&'static str>,
    /// Labels.
    pub labels: Vec<(&'static str, String)>,
    /// ownerReferences.
    pub owner_refs: Vec<GenRef>,
}

impl GenObj {
    /// The object's kind.
    pub fn spec(&self) -> &'static KindSpec {
        &KINDS[self.kind as usize]
    }
}

/// How many anomalies of each sort were injected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Injected {
    /// Pods whose ReplicaSet is gone.
    pub dangling: usize,
    /// ConfigMaps owned by a custom resource in another namespace.
    pub cross_namespace: usize,
    /// References to an unserved kind.
    pub unresolvable: usize,
    /// Blocked foreground chains.
    pub foreground: usize,
    /// Deployments terminating with the orphan finalizer.
    pub orphan: usize,
}

/// A generated cluster.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The options it was generated with.
    pub options: GenOptions,
    /// Namespace names.
    pub namespaces: Vec<String>,
    /// Objects, owners before their dependents.
    pub objects: Vec<GenObj>,
    /// Injected anomalies.
    pub injected: Injected,
}

/// Formats a UID as a version-4 UUID (`8-4-4-4-12` lower-case hex).
pub fn format_uid(x: u128) -> String {
    let x = (x & !(0xf << 76) & !(0x3 << 62)) | (0x4 << 76) | (0x2 << 62);
    let h = format!("{x:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// SplitMix64: small, fast and good enough for shaping test data (the seed is the state).
#[derive(Clone, Debug)]
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }

    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    /// A random suffix in the alphabet the API server uses for generated names.
    fn suffix(&mut self, n: usize) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..n)
            .map(|_| ALPHABET[self.below(ALPHABET.len() as u64) as usize] as char)
            .collect()
    }

    fn uid(&mut self) -> u128 {
        ((self.next() as u128) << 64) | self.next() as u128
    }

    /// `json` with one to three random edits that make and break JSON: a byte of structure,
    /// escapes, numbers or literals (or a control byte) inserted, removed or replaced, or a
    /// span repeated (duplicate keys, doubled values, nesting). For tests that hold a
    /// one-pass scanner against the parser on near-misses of the shapes it reads.
    #[cfg(test)]
    pub(crate) fn mutate_json(&mut self, json: &str) -> Vec<u8> {
        const ALPHABET: &[u8] = b"{}[]\",:\\ \n0123456789-+.eEnultrfasxu/\x01";
        let mut below = |n: usize| self.below(n as u64) as usize;
        let mut b = json.as_bytes().to_vec();
        for _ in 0..1 + below(3) {
            let at = below(b.len() + 1);
            match below(4) {
                0 => b.insert(at, ALPHABET[below(ALPHABET.len())]),
                1 if at < b.len() => {
                    b.remove(at);
                }
                2 if at < b.len() => b[at] = ALPHABET[below(ALPHABET.len())],
                _ => {
                    let end = (at + below(40)).min(b.len());
                    let span = b[at..end].to_vec();
                    b.splice(at..at, span);
                }
            }
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::Code;
    use crate::gc::GarbageCollector;

    fn small() -> GenOptions {
        GenOptions {
            objects: 20_000,
            dangling_rate: 0.001,
            cross_namespace_rate: 0.0005,
            unresolvable_rate: 0.0005,
            foreground_rate: 0.0005,
            orphan_rate: 0.0005,
            ..GenOptions::default()
        }
    }

    #[test]
    fn same_seed_same_cluster_other_seed_other_cluster() {
        let a = generate(&small());
        let b = generate(&small());
        assert_eq!(a.objects, b.objects);
        let c = generate(&GenOptions { seed: 2, ..small() });
        assert_ne!(a.objects, c.objects);
    }

    #[test]
    fn exact_size_owners_first_and_realistic_shape() {
        let g = generate(&small());
        assert_eq!(g.objects.len(), 20_000);
        for (i, o) in g.objects.iter().enumerate() {
            for r in &o.owner_refs {
                if let RefTarget::Object(t) = r.target {
                    assert!((t as usize) < i, "owner after dependent");
                    assert_eq!(g.objects[t as usize].uid, r.uid);
                }
            }
        }
        let counts: std::collections::HashMap<_, _> = g.counts().into_iter().collect();
        for kind in [
            "Pod",
            "ReplicaSet",
            "Deployment",
            "StatefulSet",
            "Job",
            "CronJob",
            "Redis",
        ] {
            assert!(counts[kind] > 0, "no {kind}");
        }
        assert!(counts["Pod"] > counts["Deployment"]);
        assert_eq!(format_uid(0).len(), 36);
        assert_eq!(&format_uid(u128::MAX)[14..15], "4");
    }

    #[test]
    fn injected_anomalies_show_up_as_findings() {
        let g = generate(&small());
        assert!(g.injected.dangling >= 19, "{:?}", g.injected);
        assert!(g.injected.cross_namespace >= 8, "{:?}", g.injected);
        assert!(g.injected.unresolvable >= 8, "{:?}", g.injected);
        assert!(g.injected.foreground >= 8, "{:?}", g.injected);
        assert!(g.injected.orphan >= 8, "{:?}", g.injected);
        let snap = g.to_snapshot();
        assert_eq!(snap.store.len(), 20_000);
        let a = GarbageCollector::new(&snap, GarbageCollector::default_gc_version(&snap));
        let audit = crate::diagnose::audit(&a);
        let count = |c: Code| audit.findings.iter().filter(|f| f.code == c).count();
        assert_eq!(count(Code::DanglingOwner), g.injected.dangling);
        assert_eq!(count(Code::CrossNamespaceOwner), g.injected.cross_namespace);
        assert_eq!(count(Code::UnresolvableOwnerKind), g.injected.unresolvable);
        // Each chain: the Deployment and its ReplicaSet are stuck in foreground deletion.
        assert_eq!(
            count(Code::BlockedForegroundDeletion),
            2 * g.injected.foreground
        );
        assert_eq!(count(Code::OrphanFinalizer), g.injected.orphan);
        assert_eq!(count(Code::OwnerUidMismatch), 0);
        assert_eq!(count(Code::OwnershipCycle), 0);
    }

    #[test]
    fn snapshot_round_trips_through_the_file_format() {
        let g = generate(&GenOptions {
            objects: 2_000,
            ..GenOptions::default()
        });
        let snap = g.to_snapshot();
        let mut buf = Vec::new();
        crate::snapshot::format::write(&snap, &mut buf).unwrap();
        let back = crate::snapshot::format::parse(std::path::Path::new("x"), &buf).unwrap();
        assert_eq!(back.store.len(), 2_000);
        let mut again = Vec::new();
        crate::snapshot::format::write(&back, &mut again).unwrap();
        assert_eq!(buf, again);
    }
}
