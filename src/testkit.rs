//! Hand-built snapshots for tests, examples and the benchmark generator.
//!
//! ```
//! use kubectl_gc::testkit::Cluster;
//! let mut c = Cluster::new();
//! c.obj("apps/v1", "ReplicaSet", "ns1", "rs1", "uid-rs1");
//! c.obj("v1", "Pod", "ns1", "pod1", "uid-pod1").owner("apps/v1", "ReplicaSet", "rs1", "uid-rs1");
//! let snap = c.build();
//! assert_eq!(snap.store.len(), 2);
//! ```

#[cfg(test)]
pub mod corpus;
pub mod forests;
pub mod generate;
pub mod load;

use crate::model::meta::Labels;
use crate::model::{MetaIn, OwnerRefIn};
use crate::snapshot::{ListOutcome, Provenance, Resource, Snapshot, SnapshotBuilder, SourceKind};
use std::borrow::Cow;

/// A built-in kind pre-registered by [`Cluster::new`]: (group, version, kind, plural, namespaced).
const KINDS: &[(&str, &str, &str, &str, bool)] = &[
    ("", "v1", "Pod", "pods", true),
    ("", "v1", "ConfigMap", "configmaps", true),
    ("", "v1", "Secret", "secrets", true),
    ("", "v1", "Service", "services", true),
    ("", "v1", "ServiceAccount", "serviceaccounts", true),
    (
        "",
        "v1",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        true,
    ),
    (
        "",
        "v1",
        "ReplicationController",
        "replicationcontrollers",
        true,
    ),
    ("", "v1", "Event", "events", true),
    ("", "v1", "Node", "nodes", false),
    ("", "v1", "Namespace", "namespaces", false),
    ("", "v1", "PersistentVolume", "persistentvolumes", false),
    ("apps", "v1", "Deployment", "deployments", true),
    ("apps", "v1", "ReplicaSet", "replicasets", true),
    ("apps", "v1", "StatefulSet", "statefulsets", true),
    ("apps", "v1", "DaemonSet", "daemonsets", true),
    ("batch", "v1", "Job", "jobs", true),
    ("batch", "v1", "CronJob", "cronjobs", true),
    ("rbac.authorization.k8s.io", "v1", "Role", "roles", true),
    (
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRole",
        "clusterroles",
        false,
    ),
];

/// One object under construction.
#[derive(Clone, Debug, Default)]
pub struct ObjSpec {
    api_version: String,
    kind: String,
    meta: MetaIn<'static>,
}

impl ObjSpec {
    /// Adds an ownerReference (controller and blockOwnerDeletion unset).
    pub fn owner(&mut self, api_version: &str, kind: &str, name: &str, uid: &str) -> &mut Self {
        self.meta.owner_references.push(OwnerRefIn {
            api_version: Cow::Owned(api_version.into()),
            kind: Cow::Owned(kind.into()),
            name: Cow::Owned(name.into()),
            uid: Cow::Owned(uid.into()),
            controller: None,
            block_owner_deletion: None,
        });
        self
    }

    /// Sets `blockOwnerDeletion` on the last added reference.
    pub fn block(&mut self, value: bool) -> &mut Self {
        if let Some(r) = self.meta.owner_references.last_mut() {
            r.block_owner_deletion = Some(value);
        }
        self
    }

    /// Sets `controller` on the last added reference.
    pub fn controller(&mut self, value: bool) -> &mut Self {
        if let Some(r) = self.meta.owner_references.last_mut() {
            r.controller = Some(value);
        }
        self
    }

    /// Adds finalizers.
    pub fn finalizers(&mut self, names: &[&str]) -> &mut Self {
        self.meta
            .finalizers
            .extend(names.iter().map(|n| Cow::Owned((*n).to_owned())));
        self
    }

    /// Sets a deletionTimestamp (the object is terminating).
    pub fn deleting(&mut self) -> &mut Self {
        self.meta.deletion_timestamp = Some(Cow::Borrowed("2026-01-01T00:00:00Z"));
        self
    }

    /// Sets a deletionTimestamp at `when`.
    pub fn deleting_since(&mut self, when: &str) -> &mut Self {
        self.meta.deletion_timestamp = Some(Cow::Owned(when.to_owned()));
        self
    }

    /// Sets the creationTimestamp (default 2026-01-01T00:00:00Z).
    pub fn created_at(&mut self, when: &str) -> &mut Self {
        self.meta.creation_timestamp = Cow::Owned(when.to_owned());
        self
    }

    /// Sets the `kubectl-gc.io/ignore` annotation.
    pub fn ignore(&mut self, codes: &str) -> &mut Self {
        self.meta.ignore = Some(Cow::Owned(codes.to_owned()));
        self
    }

    /// Adds a label.
    pub fn label(&mut self, k: &str, v: &str) -> &mut Self {
        self.meta
            .labels
            .0
            .push((Cow::Owned(k.into()), Cow::Owned(v.into())));
        self
    }
}

/// The object names of the GC's `dump_test.go` fixture (gc-model §7.4).
pub const DUMP_TEST_NAMES: [&str; 7] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
];

/// gc-model §7.4 with ConfigMaps in `default` (UID = name): alpha is owned by bravo and
/// charlie, delta by foxtrot, foxtrot by golf; echo has no references. Only the objects named
/// in `only` exist (owners left out become missing/virtual).
pub fn dump_test_fixture(only: &[&str]) -> Snapshot {
    let mut c = Cluster::new();
    for name in only {
        let o = c.obj("v1", "ConfigMap", "default", name, name);
        match *name {
            "alpha" => {
                o.owner("v1", "ConfigMap", "bravo", "bravo").owner(
                    "v1",
                    "ConfigMap",
                    "charlie",
                    "charlie",
                );
            }
            "delta" => {
                o.owner("v1", "ConfigMap", "foxtrot", "foxtrot");
            }
            "foxtrot" => {
                o.owner("v1", "ConfigMap", "golf", "golf");
            }
            _ => {}
        }
    }
    c.build()
}

/// A hand-built cluster.
#[derive(Debug)]
pub struct Cluster {
    resources: Vec<Resource>,
    objects: Vec<ObjSpec>,
    provenance: Provenance,
}

impl Default for Cluster {
    fn default() -> Self {
        Self::new()
    }
}

impl Cluster {
    /// A live-like cluster with the common built-in kinds registered and fully listed.
    pub fn new() -> Self {
        let resources = KINDS
            .iter()
            .map(|&(g, v, k, p, ns)| Resource {
                group: g.into(),
                version: v.into(),
                kind: k.into(),
                plural: p.into(),
                namespaced: ns,
                verbs: ["delete", "list", "watch", "get", "patch"]
                    .map(String::from)
                    .to_vec(),
                preferred_version: v.into(),
                list: if p == "events" {
                    ListOutcome::Ignored {
                        reason: crate::snapshot::IgnoreReason::GcIgnoredResource,
                    }
                } else {
                    ListOutcome::Complete
                },
            })
            .collect();
        Cluster {
            resources,
            objects: Vec::new(),
            provenance: Provenance {
                tool: "kubectl-gc testkit".into(),
                captured_at: "2026-01-02T00:00:00Z".into(),
                server_version: None,
                source: SourceKind::Live,
                ..Provenance::default()
            },
        }
    }

    /// Sets the server version recorded in the snapshot.
    pub fn server_version(&mut self, v: &str) -> &mut Self {
        self.provenance.server_version = Some(v.into());
        self
    }

    /// Registers a resource (e.g. a CRD's kind), fully listed.
    pub fn resource(
        &mut self,
        group: &str,
        version: &str,
        kind: &str,
        plural: &str,
        namespaced: bool,
    ) -> &mut Self {
        self.resources.push(Resource {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            plural: plural.into(),
            namespaced,
            verbs: ["delete", "list", "watch", "get", "patch"]
                .map(String::from)
                .to_vec(),
            preferred_version: version.into(),
            list: ListOutcome::Complete,
        });
        self
    }

    /// Registers a served but non-preferred version of an existing resource.
    pub fn served_version(&mut self, group: &str, version: &str, kind: &str) -> &mut Self {
        let base = self
            .resources
            .iter()
            .find(|r| r.group == group && r.kind == kind)
            .cloned()
            .expect("served_version: register the resource first");
        self.resources.push(Resource {
            version: version.into(),
            list: ListOutcome::Ignored {
                reason: crate::snapshot::IgnoreReason::NonPreferredVersion,
            },
            ..base
        });
        self
    }

    /// Sets the list outcome of the (preferred) rows of `group`/`plural`.
    pub fn outcome(&mut self, group: &str, plural: &str, outcome: ListOutcome) -> &mut Self {
        for r in &mut self.resources {
            if r.group == group && r.plural == plural && r.version == r.preferred_version {
                r.list = outcome.clone();
            }
        }
        self
    }

    /// Marks `group`/`plural` as forbidden (HTTP 403).
    pub fn forbid(&mut self, group: &str, plural: &str) -> &mut Self {
        self.outcome(
            group,
            plural,
            ListOutcome::Forbidden {
                message: format!("{plural} is forbidden"),
            },
        )
    }

    /// Adds an object; returns it for adding references, finalizers and flags.
    pub fn obj(
        &mut self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
        uid: &str,
    ) -> &mut ObjSpec {
        self.objects.push(ObjSpec {
            api_version: api_version.into(),
            kind: kind.into(),
            meta: MetaIn {
                namespace: Cow::Owned(namespace.into()),
                name: Cow::Owned(name.into()),
                uid: Cow::Owned(uid.into()),
                resource_version: Cow::Owned(format!("{}", 100 + self.objects.len())),
                creation_timestamp: Cow::Borrowed("2026-01-01T00:00:00Z"),
                deletion_timestamp: None,
                finalizers: Vec::new(),
                labels: Labels::default(),
                owner_references: Vec::new(),
                ignore: None,
            },
        });
        self.objects.last_mut().expect("just pushed")
    }

    /// Builds the snapshot. Panics on an object of an unregistered kind (a test bug).
    pub fn build(&self) -> Snapshot {
        let mut b = SnapshotBuilder::new(self.provenance.clone());
        for r in &self.resources {
            b.add_resource(r.clone());
        }
        for o in &self.objects {
            let (group, version) = crate::snapshot::split_api_version(&o.api_version)
                .unwrap_or_else(|| panic!("bad apiVersion {}", o.api_version));
            let rid = b
                .find_resource(group, version, &o.kind)
                .unwrap_or_else(|| panic!("unregistered kind {}/{}", o.api_version, o.kind));
            b.add_object(rid, &o.meta);
        }
        let snap = b.finish();
        #[cfg(test)]
        corpus::record(&snap);
        snap
    }
}
