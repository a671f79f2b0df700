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

const APPS: &[&str] = &[
    "web",
    "api",
    "worker",
    "cache",
    "auth",
    "billing",
    "search",
    "frontend",
    "gateway",
    "ingest",
    "metrics",
    "notifier",
    "scheduler",
    "payments",
    "catalog",
    "checkout",
    "inventory",
    "orders",
    "profile",
    "reports",
    "mailer",
    "uploader",
    "thumbnailer",
    "recommender",
    "ledger",
    "session",
    "feeds",
    "graphql",
    "pricing",
    "shipping",
];

const TEAMS: &[&str] = &[
    "alpha", "atlas", "aurora", "beacon", "cobalt", "comet", "delta", "ember", "falcon", "garnet",
    "harbor", "helix", "indigo", "jade", "kestrel", "lumen", "magma", "nebula", "onyx", "orbit",
    "pioneer", "quartz", "raven", "sierra", "summit", "tango", "titan", "umbra", "vector",
    "willow", "zenith", "zephyr",
];

const ENVS: &[&str] = &["prod", "staging", "dev", "qa", "perf"];

const SYSTEM_NAMESPACES: &[&str] = &[
    "default",
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "monitoring",
];
const NS_KUBE_SYSTEM: u32 = 1;
const NS_NODE_LEASE: u32 = 3;
const NS_MONITORING: u32 = 4;

#[derive(Clone, Copy)]
enum Anomaly {
    Dangling = 0,
    CrossNamespace = 1,
    Unresolvable = 2,
    Foreground = 3,
    Orphan = 4,
}

struct Gen {
    o: GenOptions,
    rng: Rng,
    now: i64,
    rv: u64,
    objs: Vec<GenObj>,
    namespaces: Vec<String>,
    /// Per namespace, how many names of each unit sort were handed out.
    counters: Vec<u32>,
    /// Every `Redis` so far (cross-namespace owners).
    redises: Vec<u32>,
    injected: [usize; 5],
}

impl Gen {
    fn full(&self) -> bool {
        self.objs.len() >= self.o.objects
    }

    /// True when an anomaly of this sort is due, keeping the injected count proportional to
    /// the progress of the run.
    fn due(&mut self, a: Anomaly) -> bool {
        let rate = match a {
            Anomaly::Dangling => self.o.dangling_rate,
            Anomaly::CrossNamespace => self.o.cross_namespace_rate,
            Anomaly::Unresolvable => self.o.unresolvable_rate,
            Anomaly::Foreground => self.o.foreground_rate,
            Anomaly::Orphan => self.o.orphan_rate,
        };
        let expected = rate * (self.objs.len() + 1) as f64;
        if (self.injected[a as usize] as f64) < expected.floor() && !self.full() {
            self.injected[a as usize] += 1;
            true
        } else {
            false
        }
    }

    fn created_after(&mut self, t: i64) -> i64 {
        (t + self.rng.below(86_400) as i64).min(self.now - 1)
    }

    /// Adds an object; `None` once the budget is spent.
    fn push(
        &mut self,
        kind: u8,
        namespace: u32,
        name: String,
        labels: Vec<(&'static str, String)>,
        owner_refs: Vec<GenRef>,
    ) -> Option<u32> {
        if self.full() {
            return None;
        }
        self.rv += 1 + self.rng.below(40);
        let created = match owner_refs.iter().find_map(|r| match r.target {
            RefTarget::Object(i) => Some(self.objs[i as usize].created),
            _ => None,
        }) {
            Some(t) => self.created_after(t),
            None => self.now - 86_400 * 90 + self.rng.below(86_400 * 89) as i64,
        };
        let uid = self.rng.uid();
        self.objs.push(GenObj {
            kind,
            namespace,
            name,
            uid,
            resource_version: self.rv,
            created,
            deletion: None,
            finalizers: Vec::new(),
            labels,
            owner_refs,
        });
        Some(self.objs.len() as u32 - 1)
    }

    /// A controller reference (`controller` and `blockOwnerDeletion` true) to object `i`.
    fn ctrl(&self, i: u32) -> GenRef {
        let o = &self.objs[i as usize];
        GenRef {
            target: RefTarget::Object(i),
            name: o.name.clone(),
            uid: o.uid,
            controller: Some(true),
            block_owner_deletion: Some(true),
        }
    }

    fn delete(&mut self, i: u32, how: Deletion, finalizer: &'static str) {
        let age = 60 + self.rng.below(3 * 86_400) as i64;
        let o = &mut self.objs[i as usize];
        o.deletion = Some((self.now - age, how));
        o.finalizers.push(finalizer);
    }

    fn next_name(&mut self, ns: u32, words: &[&str]) -> String {
        let c = &mut self.counters[ns as usize];
        let n = *c as usize;
        *c += 1;
        let word = words[n % words.len()];
        match n / words.len() {
            0 => word.to_owned(),
            k => format!("{word}-{k}"),
        }
    }

    fn pod_spec_hash(&mut self) -> String {
        let n = 9 + self.rng.below(2) as usize;
        self.rng.suffix(n)
    }

    fn cluster(&mut self) {
        let n = self.o.objects;
        for ns in SYSTEM_NAMESPACES {
            self.namespaces.push((*ns).to_owned());
        }
        let apps = self.o.namespaces.unwrap_or((n / 500).max(2));
        for i in 0..apps {
            let team = TEAMS[i % TEAMS.len()];
            let env = ENVS[(i / TEAMS.len()) % ENVS.len()];
            let round = i / (TEAMS.len() * ENVS.len());
            self.namespaces.push(if round == 0 {
                format!("{team}-{env}")
            } else {
                format!("{team}-{env}-{round}")
            });
        }
        self.counters = vec![0; self.namespaces.len()];
        for ns in 0..self.namespaces.len() {
            let name = self.namespaces[ns].clone();
            let labels = vec![("kubernetes.io/metadata.name", name.clone())];
            self.push(K_NAMESPACE, NO_NAMESPACE, name, labels, vec![]);
        }
        // Nodes, their leases, and the mirror pods of the control plane.
        let nodes: Vec<u32> = (0..(n / 400).max(3))
            .filter_map(|i| {
                let pool = if i < 3 { "control-plane" } else { "pool" };
                let name = format!("{pool}-{}-{}", i, self.rng.suffix(5));
                let labels = vec![
                    ("kubernetes.io/hostname", name.clone()),
                    ("kubernetes.io/os", "linux".to_owned()),
                ];
                self.push(K_NODE, NO_NAMESPACE, name, labels, vec![])
            })
            .collect();
        for (i, &node) in nodes.iter().enumerate() {
            let name = self.objs[node as usize].name.clone();
            let node_ref = GenRef {
                controller: None,
                block_owner_deletion: None,
                ..self.ctrl(node)
            };
            self.push(K_LEASE, NS_NODE_LEASE, name.clone(), vec![], vec![node_ref]);
            if i < 3 {
                for c in [
                    "etcd",
                    "kube-apiserver",
                    "kube-controller-manager",
                    "kube-scheduler",
                ] {
                    let labels = vec![
                        ("component", c.to_owned()),
                        ("tier", "control-plane".to_owned()),
                    ];
                    let owner = GenRef {
                        block_owner_deletion: None,
                        ..self.ctrl(node)
                    };
                    self.push(
                        K_POD,
                        NS_KUBE_SYSTEM,
                        format!("{c}-{name}"),
                        labels,
                        vec![owner],
                    );
                }
            }
        }
        for (ns, ds) in [
            (NS_KUBE_SYSTEM, "kube-proxy"),
            (NS_MONITORING, "node-exporter"),
        ] {
            let labels = vec![("app", ds.to_owned())];
            let Some(d) = self.push(K_DAEMONSET, ns, ds.to_owned(), labels.clone(), vec![]) else {
                return;
            };
            let hash = self.pod_spec_hash();
            let rev = self.ctrl(d);
            self.push(
                K_CONTROLLERREVISION,
                ns,
                format!("{ds}-{hash}"),
                labels.clone(),
                vec![rev],
            );
            let mut names = std::collections::HashSet::new();
            for _ in &nodes {
                let mut name = format!("{ds}-{}", self.rng.suffix(5));
                while !names.insert(name.clone()) {
                    name = format!("{ds}-{}", self.rng.suffix(5));
                }
                let owner = self.ctrl(d);
                self.push(K_POD, ns, name, labels.clone(), vec![owner]);
            }
        }
        // Cluster-scoped custom resources owning cluster-scoped RBAC.
        for i in 0..(n / 20_000).max(1) {
            let name = format!("baseline-{i}");
            let Some(p) = self.push(K_CLUSTERPOLICY, NO_NAMESPACE, name.clone(), vec![], vec![])
            else {
                return;
            };
            for (kind, suffix) in [
                (K_CLUSTERROLE, "view"),
                (K_CLUSTERROLE, "edit"),
                (K_CLUSTERROLEBINDING, "view"),
            ] {
                let owner = self.ctrl(p);
                let labels = vec![("policy.example.com/name", name.clone())];
                self.push(
                    kind,
                    NO_NAMESPACE,
                    format!("{name}-{suffix}"),
                    labels,
                    vec![owner],
                );
            }
        }
    }

    fn namespace_base(&mut self, ns: u32) {
        self.push(K_SERVICEACCOUNT, ns, "default".into(), vec![], vec![]);
        self.push(K_CONFIGMAP, ns, "kube-root-ca.crt".into(), vec![], vec![]);
        let token = format!("default-token-{}", self.rng.suffix(5));
        self.push(K_SECRET, ns, token, vec![], vec![]);
        if self.rng.chance(0.5) {
            self.push(K_ROLE, ns, "developer".into(), vec![], vec![]);
            self.push(K_ROLEBINDING, ns, "developers".into(), vec![], vec![]);
        }
    }

    fn service(&mut self, ns: u32, name: &str, owner: Option<u32>) {
        let labels = vec![("app", name.to_owned())];
        let refs = owner.map(|o| vec![self.ctrl(o)]).unwrap_or_default();
        let Some(svc) = self.push(K_SERVICE, ns, name.to_owned(), labels, refs) else {
            return;
        };
        let slice = format!("{name}-{}", self.rng.suffix(5));
        let labels = vec![
            ("kubernetes.io/service-name", name.to_owned()),
            (
                "endpointslice.kubernetes.io/managed-by",
                "endpointslice-controller.k8s.io".to_owned(),
            ),
        ];
        let owner = self.ctrl(svc);
        self.push(K_ENDPOINTSLICE, ns, slice, labels, vec![owner]);
    }

    fn deployment(&mut self, ns: u32) {
        let name = self.next_name(ns, APPS);
        let app = vec![("app", name.clone())];
        let Some(d) = self.push(K_DEPLOYMENT, ns, name.clone(), app, vec![]) else {
            return;
        };
        let foreground = self.due(Anomaly::Foreground);
        if foreground {
            self.delete(d, Deletion::Foreground, finalizers::FOREGROUND);
        } else if self.due(Anomaly::Orphan) {
            self.delete(d, Deletion::Orphan, finalizers::ORPHAN);
        }
        let revisions = 1 + self.rng.below(3);
        for rev in 0..revisions {
            let hash = self.pod_spec_hash();
            let rs_name = format!("{name}-{hash}");
            let labels = vec![("app", name.clone()), ("pod-template-hash", hash.clone())];
            let owner = self.ctrl(d);
            let Some(rs) = self.push(
                K_REPLICASET,
                ns,
                rs_name.clone(),
                labels.clone(),
                vec![owner],
            ) else {
                return;
            };
            let current = rev == 0;
            if foreground && current {
                self.delete(rs, Deletion::Foreground, finalizers::FOREGROUND);
            }
            let replicas = if current { 1 + self.rng.below(4) } else { 0 };
            for p in 0..replicas {
                let pod = format!("{rs_name}-{}", self.rng.suffix(5));
                let owner = self.ctrl(rs);
                let Some(pod) = self.push(K_POD, ns, pod, labels.clone(), vec![owner]) else {
                    return;
                };
                if foreground && p == 0 {
                    self.delete(pod, Deletion::Plain, BLOCKER_FINALIZER);
                }
            }
        }
        self.service(ns, &name, None);
        if self.rng.chance(0.5) {
            self.push(K_CONFIGMAP, ns, format!("{name}-config"), vec![], vec![]);
        }
        if self.rng.chance(0.3) {
            self.push(K_SECRET, ns, format!("{name}-tls"), vec![], vec![]);
        }
        if self.due(Anomaly::Dangling) {
            // A pod left behind by a ReplicaSet that is gone.
            let hash = self.pod_spec_hash();
            let rs_name = format!("{name}-{hash}");
            let owner = GenRef {
                target: RefTarget::Absent(K_REPLICASET),
                name: rs_name.clone(),
                uid: self.rng.uid(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            };
            let pod = format!("{rs_name}-{}", self.rng.suffix(5));
            let labels = vec![("app", name.clone()), ("pod-template-hash", hash)];
            self.push(K_POD, ns, pod, labels, vec![owner]);
        }
        if self.due(Anomaly::Unresolvable) {
            let owner = GenRef {
                target: RefTarget::Unserved,
                name: name.clone(),
                uid: self.rng.uid(),
                controller: None,
                block_owner_deletion: None,
            };
            self.push(
                K_CONFIGMAP,
                ns,
                format!("{name}-legacy"),
                vec![],
                vec![owner],
            );
        }
    }

    fn statefulset_pods(&mut self, ns: u32, sts: u32, name: &str) {
        let labels = vec![("app", name.to_owned())];
        let hash = self.pod_spec_hash();
        let owner = self.ctrl(sts);
        self.push(
            K_CONTROLLERREVISION,
            ns,
            format!("{name}-{hash}"),
            labels.clone(),
            vec![owner],
        );
        let replicas = 1 + self.rng.below(3);
        for i in 0..replicas {
            let pod = format!("{name}-{i}");
            let mut labels = labels.clone();
            labels.push(("controller-revision-hash", format!("{name}-{hash}")));
            labels.push(("statefulset.kubernetes.io/pod-name", pod.clone()));
            let owner = self.ctrl(sts);
            self.push(K_POD, ns, pod, labels, vec![owner]);
            self.push(K_PVC, ns, format!("data-{name}-{i}"), vec![], vec![]);
        }
    }

    fn statefulset(&mut self, ns: u32) {
        let name = format!("{}-db", self.next_name(ns, APPS));
        let labels = vec![("app", name.clone())];
        let Some(sts) = self.push(K_STATEFULSET, ns, name.clone(), labels, vec![]) else {
            return;
        };
        self.statefulset_pods(ns, sts, &name);
        self.service(ns, &name, None);
    }

    fn cronjob(&mut self, ns: u32) {
        let name = format!("{}-cleanup", self.next_name(ns, APPS));
        let Some(cj) = self.push(K_CRONJOB, ns, name.clone(), vec![], vec![]) else {
            return;
        };
        let base = (self.now / 60) as u64 - self.rng.below(10_000);
        for j in 0..3u64 {
            let job = format!("{name}-{}", base + j * 60);
            let owner = self.ctrl(cj);
            let uid_label = format_uid(self.rng.uid());
            let labels = vec![("job-name", job.clone()), ("controller-uid", uid_label)];
            let Some(job_id) = self.push(K_JOB, ns, job.clone(), labels.clone(), vec![owner])
            else {
                return;
            };
            let pod = format!("{job}-{}", self.rng.suffix(5));
            let owner = self.ctrl(job_id);
            self.push(K_POD, ns, pod, labels, vec![owner]);
        }
    }

    fn operator(&mut self, ns: u32) {
        let name = format!("{}-redis", self.next_name(ns, APPS));
        let labels = vec![("app.kubernetes.io/instance", name.clone())];
        let Some(r) = self.push(K_REDIS, ns, name.clone(), labels.clone(), vec![]) else {
            return;
        };
        let owner = self.ctrl(r);
        if let Some(sts) = self.push(K_STATEFULSET, ns, name.clone(), labels.clone(), vec![owner]) {
            self.statefulset_pods(ns, sts, &name);
        }
        self.service(ns, &name, Some(r));
        let owner = self.ctrl(r);
        self.push(
            K_CONFIGMAP,
            ns,
            format!("{name}-config"),
            labels.clone(),
            vec![owner],
        );
        let owner = self.ctrl(r);
        self.push(K_SECRET, ns, format!("{name}-auth"), labels, vec![owner]);
        if self.due(Anomaly::CrossNamespace) {
            // Shared configuration owned by an instance in another namespace (GC004).
            if let Some(&other) = self
                .redises
                .iter()
                .rev()
                .find(|&&o| self.objs[o as usize].namespace != ns)
            {
                let owner = self.ctrl(other);
                let other_name = self.objs[other as usize].name.clone();
                let name = format!("{other_name}-shared-{}", self.rng.suffix(5));
                self.push(K_CONFIGMAP, ns, name, vec![], vec![owner]);
            } else {
                self.injected[Anomaly::CrossNamespace as usize] -= 1;
            }
        }
        self.redises.push(r);
    }

    fn misc(&mut self, ns: u32) {
        let name = self.next_name(ns, APPS);
        self.push(K_CONFIGMAP, ns, format!("{name}-settings"), vec![], vec![]);
        self.push(K_SECRET, ns, format!("{name}-credentials"), vec![], vec![]);
        self.push(K_SERVICEACCOUNT, ns, name, vec![], vec![]);
    }

    fn run(mut self) -> Generated {
        self.cluster();
        let first_app_ns = SYSTEM_NAMESPACES.len() as u32;
        let n_ns = self.namespaces.len() as u32;
        for ns in 0..n_ns {
            self.namespace_base(ns);
        }
        'fill: loop {
            for ns in first_app_ns..n_ns {
                if self.full() {
                    break 'fill;
                }
                let roll = self.rng.below(100);
                match roll {
                    0..55 => self.deployment(ns),
                    55..68 => self.statefulset(ns),
                    68..83 => self.cronjob(ns),
                    83..93 => self.operator(ns),
                    _ => self.misc(ns),
                }
            }
        }
        let [dangling, cross_namespace, unresolvable, foreground, orphan] = self.injected;
        Generated {
            options: self.o,
            namespaces: self.namespaces,
            objects: self.objs,
            injected: Injected {
                dangling,
                cross_namespace,
                unresolvable,
                foreground,
                orphan,
            },
        }
    }
}

/// Generates a cluster.
pub fn generate(options: &GenOptions) -> Generated {
    let now = parse_rfc3339(&options.captured_at).unwrap_or(1_795_000_000);
    let g = Gen {
        o: options.clone(),
        rng: Rng(options.seed ^ 0x6b75_6265_6374_6c67),
        now,
        rv: 1_000_000,
        objs: Vec::with_capacity(options.objects),
        namespaces: Vec::new(),
        counters: Vec::new(),
        redises: Vec::new(),
        injected: [0; 5],
    };
    g.run()
}

impl Generated {
    /// The apiVersion and kind a reference names.
    pub fn ref_type(&self, r: &GenRef) -> (String, &'static str) {
        match r.target {
            RefTarget::Object(i) => {
                let s = self.objects[i as usize].spec();
                (s.api_version(), s.kind)
            }
            RefTarget::Absent(k) => (KINDS[k as usize].api_version(), KINDS[k as usize].kind),
            RefTarget::Unserved => (UNSERVED_API_VERSION.to_owned(), UNSERVED_KIND),
        }
    }

    /// The namespace name of an object (`""` for cluster-scoped ones).
    pub fn namespace_of(&self, o: &GenObj) -> &str {
        if o.namespace == NO_NAMESPACE {
            ""
        } else {
            &self.namespaces[o.namespace as usize]
        }
    }

    /// Number of objects of each kind, in [`KINDS`] order.
    pub fn counts(&self) -> Vec<(&'static str, usize)> {
        let mut n = vec![0usize; KINDS.len()];
        for o in &self.objects {
            n[o.kind as usize] += 1;
        }
        KINDS.iter().map(|k| k.kind).zip(n).collect()
    }

    /// The resource table a live snapshot of this cluster would have: every generated kind,
    /// completely listed, plus the (ignored) core events.
    pub fn resources(&self) -> Vec<Resource> {
        let verbs: Vec<String> = [
            "create",
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "update",
            "watch",
        ]
        .map(String::from)
        .to_vec();
        let mut out: Vec<Resource> = KINDS
            .iter()
            .map(|k| Resource {
                group: k.group.into(),
                version: k.version.into(),
                kind: k.kind.into(),
                plural: k.plural.into(),
                namespaced: k.namespaced,
                verbs: verbs.clone(),
                preferred_version: k.version.into(),
                list: ListOutcome::Complete,
            })
            .collect();
        out.push(Resource {
            group: String::new(),
            version: "v1".into(),
            kind: "Event".into(),
            plural: "events".into(),
            namespaced: true,
            verbs,
            preferred_version: "v1".into(),
            list: ListOutcome::Ignored {
                reason: IgnoreReason::GcIgnoredResource,
            },
        });
        out
    }

    /// The snapshot a live `kubectl gc snapshot` of this cluster would write: objects grouped
    /// by resource (the order lists return them in), generation order within a resource.
    pub fn to_snapshot(&self) -> Snapshot {
        let mut b = SnapshotBuilder::new(Provenance {
            tool: format!(
                "kubectl-gc {} generate --seed {}",
                env!("CARGO_PKG_VERSION"),
                self.options.seed
            ),
            captured_at: self.options.captured_at.clone(),
            server_version: Some(self.options.server_version.clone()),
            source: SourceKind::Live,
            context: Some("synthetic".into()),
            inputs: vec![],
        });
        let rows: Vec<_> = self
            .resources()
            .into_iter()
            .map(|r| b.add_resource(r))
            .collect();
        let mut order: Vec<u32> = (0..self.objects.len() as u32).collect();
        order.sort_by_key(|&i| self.objects[i as usize].kind);
        for i in order {
            let o = &self.objects[i as usize];
            let meta = self.meta(o);
            b.add_object(rows[o.kind as usize], &meta);
        }
        b.finish()
    }

    /// The metadata of a generated object, as an input to the store.
    pub fn meta<'a>(&'a self, o: &'a GenObj) -> MetaIn<'a> {
        MetaIn {
            namespace: Cow::Borrowed(self.namespace_of(o)),
            name: Cow::Borrowed(&o.name),
            uid: Cow::Owned(format_uid(o.uid)),
            resource_version: Cow::Owned(o.resource_version.to_string()),
            creation_timestamp: Cow::Owned(format_rfc3339(o.created)),
            deletion_timestamp: o.deletion.map(|(t, _)| Cow::Owned(format_rfc3339(t))),
            finalizers: o.finalizers.iter().map(|f| Cow::Borrowed(*f)).collect(),
            labels: Labels(
                o.labels
                    .iter()
                    .map(|(k, v)| (Cow::Borrowed(*k), Cow::Borrowed(v.as_str())))
                    .collect(),
            ),
            owner_references: o
                .owner_refs
                .iter()
                .map(|r| {
                    let (api_version, kind) = self.ref_type(r);
                    OwnerRefIn {
                        api_version: Cow::Owned(api_version),
                        kind: Cow::Borrowed(kind),
                        name: Cow::Borrowed(&r.name),
                        uid: Cow::Owned(format_uid(r.uid)),
                        controller: r.controller,
                        block_owner_deletion: r.block_owner_deletion,
                    }
                })
                .collect(),
            ..MetaIn::default()
        }
    }
}

/// What the objects of a dump written by [`Generated::write_kubectl_list`] carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    /// apiVersion, kind and metadata only.
    MetadataOnly,
    /// Also a spec and a status of about 5 KB, as real objects have (containers with
    /// environment and resources, volumes, conditions), plus `managedFields` and a
    /// `last-applied-configuration` annotation: what a reader must skip.
    Full,
}

impl Generated {
    /// One object as `kubectl get -o json` prints it.
    pub fn object_json(&self, o: &GenObj, body: Body) -> serde_json::Value {
        use serde_json::{Map, Value, json};
        let k = o.spec();
        let mut meta = Map::new();
        meta.insert("name".into(), o.name.clone().into());
        if o.namespace != NO_NAMESPACE {
            meta.insert("namespace".into(), self.namespace_of(o).into());
        }
        meta.insert("uid".into(), format_uid(o.uid).into());
        meta.insert(
            "resourceVersion".into(),
            o.resource_version.to_string().into(),
        );
        meta.insert("creationTimestamp".into(), format_rfc3339(o.created).into());
        if let Some((t, _)) = o.deletion {
            meta.insert("deletionTimestamp".into(), format_rfc3339(t).into());
        }
        if !o.finalizers.is_empty() {
            meta.insert("finalizers".into(), json!(o.finalizers));
        }
        if !o.labels.is_empty() {
            let labels: Map<String, Value> = o
                .labels
                .iter()
                .map(|(k, v)| ((*k).to_owned(), Value::from(v.as_str())))
                .collect();
            meta.insert("labels".into(), Value::Object(labels));
        }
        if !o.owner_refs.is_empty() {
            let refs: Vec<Value> = o
                .owner_refs
                .iter()
                .map(|r| {
                    let (api_version, kind) = self.ref_type(r);
                    let mut m = Map::new();
                    m.insert("apiVersion".into(), api_version.into());
                    m.insert("kind".into(), kind.into());
                    m.insert("name".into(), r.name.clone().into());
                    m.insert("uid".into(), format_uid(r.uid).into());
                    if let Some(c) = r.controller {
                        m.insert("controller".into(), c.into());
                    }
                    if let Some(b) = r.block_owner_deletion {
                        m.insert("blockOwnerDeletion".into(), b.into());
                    }
                    Value::Object(m)
                })
                .collect();
            meta.insert("ownerReferences".into(), Value::Array(refs));
        }
        let mut obj = Map::new();
        obj.insert("apiVersion".into(), k.api_version().into());
        obj.insert("kind".into(), k.kind.into());
        if body == Body::Full {
            let name = &o.name;
            let image = format!("registry.example.com/team/{name}:v1.{}", o.uid % 97);
            let env: Vec<Value> = (0..24)
                .map(|i| json!({"name": format!("SETTING_{i}"), "value": format!("{name}-value-{i}-{:x}", o.uid >> (i % 64))}))
                .collect();
            let container = |c: &str| {
                json!({"name": c, "image": image, "imagePullPolicy": "IfNotPresent",
                    "args": ["--config=/etc/app/config.yaml", "--log-level=info", "--metrics-addr=:9090"],
                    "env": env,
                    "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}, {"containerPort": 9090, "name": "metrics", "protocol": "TCP"}],
                    "resources": {"limits": {"cpu": "500m", "memory": "512Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
                    "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10},
                    "volumeMounts": [{"mountPath": "/etc/app", "name": "config"}, {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access", "readOnly": true}]})
            };
            obj.insert(
                "spec".into(),
                json!({"containers": [container("app"), container("sidecar")],
                    "volumes": [{"name": "config", "configMap": {"name": format!("{name}-config")}},
                                {"name": "kube-api-access", "projected": {"sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}],
                    "nodeSelector": {"kubernetes.io/os": "linux"}, "restartPolicy": "Always",
                    "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst"}),
            );
            let conditions: Vec<Value> = ["Initialized", "Ready", "ContainersReady", "PodScheduled"]
                .iter()
                .map(|t| json!({"type": t, "status": "True", "lastTransitionTime": format_rfc3339(o.created + 30)}))
                .collect();
            obj.insert(
                "status".into(),
                json!({"phase": "Running", "observedGeneration": 3,
                    "conditions": conditions,
                    "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0, "image": image, "imageID": format!("{image}@sha256:{:064x}", o.uid), "started": true}]}),
            );
            meta.insert(
                "annotations".into(),
                json!({"kubectl.kubernetes.io/last-applied-configuration": format!("{{\"apiVersion\":\"{}\",\"kind\":\"{}\",\"metadata\":{{\"name\":\"{name}\"}},\"spec\":{{\"replicas\":1,\"template\":{{\"spec\":{{\"containers\":[{{\"name\":\"app\",\"image\":\"{image}\"}}]}}}}}}}}", k.api_version(), k.kind)}),
            );
            meta.insert(
                "managedFields".into(),
                json!([{"apiVersion": k.api_version(), "fieldsType": "FieldsV1", "manager": "kube-controller-manager", "operation": "Update", "time": format_rfc3339(o.created),
                    "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}, "f:ownerReferences": {}}, "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:env": {}}}}}}]),
            );
        }
        obj.insert("metadata".into(), Value::Object(meta));
        Value::Object(obj)
    }

    /// Writes the cluster as `kubectl get <every kind> -A -o json` prints it: one `List` that
    /// kubectl built (`resourceVersion: ""`), items grouped by resource.
    pub fn write_kubectl_list(
        &self,
        w: &mut dyn std::io::Write,
        body: Body,
    ) -> std::io::Result<()> {
        let mut order: Vec<u32> = (0..self.objects.len() as u32).collect();
        order.sort_by_key(|&i| self.objects[i as usize].kind);
        w.write_all(b"{\"apiVersion\":\"v1\",\"items\":[")?;
        for (n, i) in order.into_iter().enumerate() {
            if n > 0 {
                w.write_all(b",")?;
            }
            serde_json::to_writer(&mut *w, &self.object_json(&self.objects[i as usize], body))?;
        }
        w.write_all(b"],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}\n")
    }

    /// Writes the cluster as a must-gather writes it: `namespaces/<ns>/<group>/<plural>.yaml`
    /// and `cluster-scoped-resources/<group>/<plural>.yaml`, one server list (YAML) per file.
    pub fn write_must_gather(&self, dir: &std::path::Path, body: Body) -> std::io::Result<()> {
        let mut files: std::collections::BTreeMap<std::path::PathBuf, Vec<serde_json::Value>> =
            Default::default();
        for o in &self.objects {
            let k = o.spec();
            let group = if k.group.is_empty() { "core" } else { k.group };
            let path = if o.namespace == NO_NAMESPACE {
                dir.join("cluster-scoped-resources").join(group)
            } else {
                dir.join("namespaces")
                    .join(self.namespace_of(o))
                    .join(group)
            }
            .join(format!("{}.yaml", k.plural));
            files
                .entry(path)
                .or_default()
                .push(self.object_json(o, body));
        }
        for (path, items) in files {
            std::fs::create_dir_all(path.parent().expect("a parent"))?;
            let list = serde_json::json!({"apiVersion": "v1", "items": items, "kind": "List",
                "metadata": {"resourceVersion": self.objects.len().to_string()}});
            let text = serde_saphyr::to_string(&list).map_err(std::io::Error::other)?;
            std::fs::write(path, text)?;
        }
        Ok(())
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
