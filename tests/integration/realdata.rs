//! The file loader against four real cluster dumps (their sources, licence and commits are in
//! `tests/data/realdata/NOTICE`).
//!
//! The dumps are part of the repository (`tests/data/realdata`); `$KGC_REALDATA` points the tests
//! at another copy laid out the same way. A missing folder is a test failure, never a silent
//! skip. The OpenShift must-gathers are `.tar.xz` archives: each test extracts its archive with
//! the system `tar` into a temporary directory.
//!
//! Counts differ from the sources' own descriptions where those counted differently; each
//! assertion says why.

use kubectl_gc::model::ObjId;
use kubectl_gc::snapshot::{ListOutcome, Snapshot};
use kubectl_gc::source::files::{FileOptions, FileStats, read_files_with_stats};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The four dumps every test here reads.
const DUMPS: [&str; 4] = [
    "ocp-must-gather-clean",
    "harvester-support-bundle",
    "kurl-support-bundle",
    "insights-archive-sample",
];

/// The real-data folder: `$KGC_REALDATA`, or `tests/data/realdata` in the checkout. Panics
/// (fails the test) with one line naming the variable when it does not hold the four dumps.
pub fn realdata_dir() -> PathBuf {
    let (dir, from_env) = match std::env::var_os("KGC_REALDATA") {
        Some(d) if !d.is_empty() => (PathBuf::from(d), true),
        _ => (
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/realdata"),
            false,
        ),
    };
    let missing: Vec<&str> = DUMPS
        .into_iter()
        .filter(|d| !dir.join(d).is_dir())
        .collect();
    assert!(
        missing.is_empty(),
        "real cluster dumps not found at {}{}: {} missing; KGC_REALDATA names a directory \
         holding {} (these tests must not be skipped)",
        dir.display(),
        if from_env { " (KGC_REALDATA)" } else { "" },
        missing.join(", "),
        DUMPS.join(", "),
    );
    dir
}

/// What a dump yields.
pub struct Loaded {
    /// The snapshot.
    pub snap: Snapshot,
    /// Loader counters.
    pub stats: FileStats,
    /// Keeps an extracted archive alive.
    pub _tmp: Option<tempfile::TempDir>,
}

/// Reads `path` recursively, like `kubectl gc audit -f PATH -R`.
pub fn read_dump(path: &Path) -> Loaded {
    let start = Instant::now();
    // The kURL bundle holds three files that do not parse (redacted YAML): read on past them,
    // as `--skip-broken-input` does.
    let (snap, stats) = read_files_with_stats(&FileOptions {
        paths: vec![path.to_path_buf()],
        recursive: true,
        keep_going: true,
        ..FileOptions::default()
    })
    .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let elapsed = start.elapsed();
    eprintln!(
        "{}: {} objects, {} resources, {} skipped, server {:?}, {:?} ({stats:?})",
        path.display(),
        snap.store.len(),
        snap.resources.len(),
        snap.skipped.len(),
        snap.provenance.server_version,
        elapsed
    );
    Loaded {
        snap,
        stats,
        _tmp: None,
    }
}

/// Extracts `ocp-must-gather-clean/<archive>` with `tar -xJf` and reads it.
pub fn read_must_gather(archive: &str) -> Loaded {
    let file = realdata_dir().join("ocp-must-gather-clean").join(archive);
    assert!(file.is_file(), "missing archive {}", file.display());
    let tmp = tempfile::tempdir().expect("temporary directory");
    let start = Instant::now();
    let status = std::process::Command::new("tar")
        .arg("-xJf")
        .arg(&file)
        .arg("-C")
        .arg(tmp.path())
        .status()
        .expect("running tar (needed to extract the must-gather archives)");
    assert!(
        status.success(),
        "tar -xJf {} failed: {status}",
        file.display()
    );
    eprintln!("extracted {archive} in {:?}", start.elapsed());
    let mut loaded = read_dump(tmp.path());
    loaded._tmp = Some(tmp);
    loaded
}

/// Loads the kURL support bundle.
pub fn kurl() -> Loaded {
    read_dump(&realdata_dir().join("kurl-support-bundle"))
}

/// Loads the Harvester support bundle.
pub fn harvester() -> Loaded {
    read_dump(&realdata_dir().join("harvester-support-bundle"))
}

/// Loads the (stitched) Insights archive sample.
pub fn insights() -> Loaded {
    read_dump(&realdata_dir().join("insights-archive-sample"))
}

/// The object `kind` `namespace/name` (any group).
pub fn find(s: &Snapshot, kind: &str, namespace: &str, name: &str) -> Option<ObjId> {
    s.store.ids().find(|&id| {
        let o = s.store.object(id);
        s.resource_of(o).kind == kind
            && s.store.str(o.namespace) == namespace
            && s.store.str(o.name) == name
    })
}

fn must_find(s: &Snapshot, kind: &str, namespace: &str, name: &str) -> ObjId {
    find(s, kind, namespace, name)
        .unwrap_or_else(|| panic!("{kind} {namespace}/{name} not in the snapshot"))
}

fn finalizers(s: &Snapshot, id: ObjId) -> Vec<&str> {
    s.store
        .finalizers(id)
        .iter()
        .map(|&f| s.store.str(f))
        .collect()
}

fn owner_ref_count(s: &Snapshot) -> usize {
    s.store.owner_refs.len()
}

/// Owner references whose uid is not an object of the snapshot.
fn unresolved_refs(s: &Snapshot) -> usize {
    s.store
        .owner_refs
        .iter()
        .filter(|r| s.store.by_uid(r.uid).is_none())
        .count()
}

fn count_kind(s: &Snapshot, group: &str, kind: &str) -> usize {
    s.store
        .ids()
        .filter(|&id| {
            let r = s.resource_of(s.store.object(id));
            r.group == group && r.kind == kind
        })
        .count()
}

fn outcome<'a>(s: &'a Snapshot, group: &str, version: &str, kind: &str) -> Option<&'a ListOutcome> {
    s.resources
        .iter()
        .find(|r| r.group == group && r.version == version && r.kind == kind)
        .map(|r| &r.list)
}

/// Checks shared by both must-gathers.
fn check_must_gather(l: &Loaded) {
    let s = &l.snap;
    // No document is unusable; only pod logs, HTML and other non-YAML files are passed over.
    assert!(
        s.skipped.is_empty(),
        "{:?}",
        &s.skipped[..s.skipped.len().min(5)]
    );
    assert!(l.stats.files_ignored > 1000, "{:?}", l.stats);
    // The lower-case kind quirk: Route and Service owned by `apps/v1 daemonset ingress-canary`.
    for kind in ["Route", "Service"] {
        let id = must_find(
            s,
            kind,
            "openshift-ingress-canary",
            match kind {
                "Route" => "canary",
                _ => "ingress-canary",
            },
        );
        let refs = s.store.owner_refs(id);
        let r = refs
            .iter()
            .find(|r| s.store.str(r.kind) == "daemonset")
            .unwrap_or_else(|| panic!("{kind} has no `kind: daemonset` ref"));
        assert_eq!(s.store.str(r.api_version), "apps/v1");
        assert_eq!(s.store.str(r.name), "ingress-canary");
        assert_eq!(r.controller, Some(true));
        let owner = s
            .store
            .by_uid(r.uid)
            .expect("the lower-case ref's uid resolves");
        assert_eq!(s.resource_of(s.store.object(owner)).kind, "DaemonSet");
    }
    // Every ownerRef uid resolves (a scan of the dump), so nothing may look dangling.
    assert_eq!(unresolved_refs(s), 0);
    // No object is terminating.
    assert!(s.store.objects.iter().all(|o| !o.being_deleted()));
    // Coverage: pods are covered where the must-gather collected them, not elsewhere.
    let pods = outcome(s, "", "v1", "Pod").expect("Pod row");
    assert!(pods.covers("openshift-ingress-canary"));
    assert!(!pods.covers("kube-system") && !pods.covers(""));
    // Nodes come as one file per object (cluster-scoped-resources/core/nodes/<name>.yaml): a
    // lone object does not prove the others were collected, so Nodes are not covered.
    let nodes = outcome(s, "", "v1", "Node").expect("Node row");
    assert!(!nodes.covers(""));
    // Deployment→ReplicaSet→Pod chains are complete.
    assert!(count_kind(s, "apps", "ReplicaSet") > 50);
}

#[test]
fn ocp_must_gather_aws() {
    let l = read_must_gather("must-gather-aws.tar.xz");
    let s = &l.snap;
    // 8,635 objects with a uid; 311 appear twice (all 239 Pods in `core/pods.yaml` and
    // `pods/<name>/<name>.yaml`, 31 ClusterOperators, …). A scan counting "8,376 docs" counted
    // differently; an independent YAML scan gives the same 8,635 / 8,324 as the loader.
    assert_eq!(l.stats.objects, 8_635);
    assert_eq!(l.stats.duplicates, 311);
    assert_eq!(s.store.len(), 8_324);
    assert_eq!(count_kind(s, "", "Event"), 5_373);
    assert_eq!(count_kind(s, "", "Pod"), 239);
    assert_eq!(
        count_kind(s, "apiextensions.k8s.io", "CustomResourceDefinition"),
        98
    );
    assert_eq!(owner_ref_count(s), 1_054);
    // OpenShift 4.8: the kube-apiserver ClusterOperator reports Kubernetes 1.21.1.
    assert_eq!(s.provenance.server_version.as_deref(), Some("v1.21.1"));
    check_must_gather(&l);
    // Finalizers on live objects.
    let m = s
        .store
        .ids()
        .find(|&id| s.resource_of(s.store.object(id)).kind == "Machine")
        .expect("a Machine");
    assert!(finalizers(s, m).contains(&"machine.machine.openshift.io"));
}

#[test]
fn ocp_must_gather_metal() {
    let l = read_must_gather("must-gather-metal.tar.xz");
    let s = &l.snap;
    assert_eq!(l.stats.objects, 8_552);
    assert_eq!(l.stats.duplicates, 304);
    assert_eq!(s.store.len(), 8_248);
    assert_eq!(owner_ref_count(s), 1_441);
    // OpenShift 4.9 is Kubernetes 1.22.
    assert_eq!(s.provenance.server_version.as_deref(), Some("v1.22.1"));
    check_must_gather(&l);
    // Multiple owners: InstallPlan owned by two Subscriptions, neither controller nor blocking.
    let ip = must_find(s, "InstallPlan", "cfe-test-namespace", "install-4snvd");
    let refs = s.store.owner_refs(ip);
    assert_eq!(refs.len(), 2);
    for r in refs {
        assert_eq!(s.store.str(r.kind), "Subscription");
        assert_eq!(r.controller, Some(false));
        assert_eq!(r.block_owner_deletion, Some(false));
    }
    // ClusterVersion owns cluster-scoped and namespaced objects.
    let cv = must_find(s, "ClusterVersion", "", "version");
    let cv_uid = s.store.object(cv).uid;
    assert!(
        s.store
            .owner_refs
            .iter()
            .filter(|r| r.uid == cv_uid)
            .count()
            > 10
    );
}

#[test]
fn kurl_support_bundle() {
    let l = kurl();
    let s = &l.snap;
    // 236 typed objects (a scan of the dump) + the 32 CRDs of `custom-resource-definitions.json`, written
    // without kind/apiVersion by the troubleshoot collector and recognised by their shape, + the
    // 10 Longhorn objects of the three files whose redactions YAML reads as aliases.
    assert_eq!(s.store.len(), 278);
    assert_eq!(l.stats.duplicates, 0);
    assert_eq!(
        count_kind(s, "apiextensions.k8s.io", "CustomResourceDefinition"),
        32
    );
    assert_eq!(owner_ref_count(s), 81);
    // cluster-info/cluster_version.json.
    assert_eq!(s.provenance.server_version.as_deref(), Some("v1.23.5"));
    // The three redacted Longhorn files (`***HIDDEN***` written unquoted, which YAML reads as
    // aliases) are read with the redacted values as text: every redaction is in `spec` or
    // `status` (an address, an IP), none in what the GC looks at. Nothing is skipped.
    assert_eq!(l.stats.redacted, 3);
    assert_eq!(l.stats.broken, 0);
    assert!(s.skipped.is_empty(), "{:?}", s.skipped);
    for (kind, n) in [("Engine", 1), ("InstanceManager", 6), ("Replica", 3)] {
        assert_eq!(count_kind(s, "longhorn.io", kind), n, "{kind}");
    }
    // So the Pods their InstanceManagers own have owners in the input: each Pod's reference
    // names an InstanceManager by its UID. (The file is a bare YAML sequence, not a server
    // list: what it holds is read, but it proves no absence, so the kind stays uncovered.)
    let im = outcome(s, "longhorn.io", "v1beta1", "InstanceManager").expect("InstanceManager row");
    assert!(!im.covers("longhorn-system"), "{im:?}");
    let im_refs: Vec<_> = s
        .store
        .owner_refs
        .iter()
        .filter(|r| s.store.str(r.kind) == "InstanceManager")
        .collect();
    assert_eq!(im_refs.len(), 6);
    for r in im_refs {
        let owner = s.store.by_uid(r.uid).expect("the owner is in the input");
        assert_eq!(s.store.object(owner).name, r.name);
    }
    // Pods owned by DaemonSets, which troubleshoot did not collect: served (discovery in
    // `resources.json`), not covered.
    let ds = s
        .resources
        .iter()
        .find(|r| r.group == "apps" && r.kind == "DaemonSet")
        .expect("DaemonSet row from discovery");
    assert_eq!(ds.list, ListOutcome::NotListed);
    assert_eq!(ds.plural, "daemonsets");
    assert!(ds.verbs.iter().any(|v| v == "delete"));
    let ds_refs = s
        .store
        .owner_refs
        .iter()
        .filter(|r| s.store.str(r.kind) == "DaemonSet")
        .count();
    assert_eq!(ds_refs, 21);
    // Static pods are owned by Nodes, which are all present.
    assert!(outcome(s, "", "v1", "Node").unwrap().covers(""));
    // Longhorn's CR `Node` is namespaced and distinct from core Nodes.
    let lh_node = s
        .resources
        .iter()
        .find(|r| r.group == "longhorn.io" && r.kind == "Node")
        .unwrap();
    assert!(lh_node.namespaced && lh_node.plural == "nodes");
}

#[test]
fn harvester_support_bundle() {
    let l = harvester();
    let s = &l.snap;
    // A scan of the dump: 1,173 objects with a uid and 10 duplicate uids (one Ingress served as
    // extensions/v1beta1 and networking.k8s.io/v1, nine Events as v1 and events.k8s.io/v1;
    // the first read wins).
    assert_eq!(s.store.len(), 1_173);
    assert_eq!(l.stats.duplicates, 10);
    assert_eq!(owner_ref_count(s), 194);
    assert_eq!(
        s.provenance.server_version.as_deref(),
        Some("v1.21.7+rke2r1")
    );
    // The 63 documents without uid are metrics (NodeMetrics, PodMetrics) and ComponentStatuses.
    assert_eq!(s.skipped.len(), 63);
    assert!(s.skipped.iter().all(|k| k.reason == "no metadata.uid"));
    assert!(s.skipped.iter().all(|k| {
        k.source.contains("/metrics.k8s.io/") || k.source.contains("/componentstatuses.yaml")
    }));
    // Two PVCs stuck Terminating behind pvc-protection.
    for name in [
        "rancher-monitoring-grafana",
        "prometheus-rancher-monitoring-prometheus-db-prometheus-rancher-monitoring-prometheus-0",
    ] {
        let id = must_find(s, "PersistentVolumeClaim", "cattle-monitoring-system", name);
        let o = s.store.object(id);
        assert!(o.being_deleted());
        assert!(s.store.str(o.deletion_timestamp).starts_with("2022-03-08"));
        assert_eq!(finalizers(s, id), ["kubernetes.io/pvc-protection"]);
    }
    // Two terminating PVs.
    let pvs: Vec<ObjId> = s
        .store
        .ids()
        .filter(|&id| {
            let o = s.store.object(id);
            s.resource_of(o).kind == "PersistentVolume" && o.being_deleted()
        })
        .collect();
    assert_eq!(pvs.len(), 2);
    for id in pvs {
        assert_eq!(
            finalizers(s, id),
            [
                "kubernetes.io/pv-protection",
                "external-attacher/driver-longhorn-io"
            ]
        );
    }
    // A finalizer that looks like the GC's but is not, on a live object.
    let kv = must_find(s, "KubeVirt", "harvester-system", "kubevirt");
    assert!(finalizers(s, kv).contains(&"foregroundDeleteKubeVirt"));
    assert!(!s.store.object(kv).being_deleted());
    // Same kind name in two groups: Longhorn's namespaced `Node` next to core `Node`.
    let lh = s
        .resources
        .iter()
        .find(|r| r.group == "longhorn.io" && r.kind == "Node")
        .expect("longhorn.io Node row");
    assert!(lh.namespaced);
    assert!(lh.list.covers("longhorn-system") && !lh.list.covers(""));
    let core = outcome(s, "", "v1", "Node").expect("core Node row");
    assert!(core.covers(""));
    // Apps owned by Helm release Secrets: the bundle has no Secrets, so the kind is covered
    // nowhere (the owners are unknown, not absent).
    assert!(
        s.store
            .owner_refs
            .iter()
            .any(|r| s.store.str(r.kind) == "Secret")
    );
    assert!(
        s.resources
            .iter()
            .filter(|r| r.group.is_empty() && r.kind == "Secret")
            .all(|r| !r.list.covers("cattle-system") && !r.list.covers("fleet-local"))
    );
    // 180 of 194 refs resolve; 14 point at kinds absent from the bundle.
    assert_eq!(unresolved_refs(s), 14);
}

#[test]
fn insights_archive_sample() {
    let l = insights();
    let s = &l.snap;
    // 78 objects with kind/apiVersion, 2 CRDs written without them and recognised by their
    // shape (`config/crd/`), and 34 more without kind whose resource `metadata.selfLink` names
    // (31 Pods, 2 Nodes, 1 PersistentVolume). One uid appears twice
    // (`machineconfigpools/master.json` holds the worker pool).
    assert_eq!(s.store.len(), 114);
    assert_eq!(l.stats.duplicates, 1);
    // A stitched archive: the kube-apiserver ClusterOperator says 1.20.0-beta.2 (OCP 4.7).
    assert_eq!(
        s.provenance.server_version.as_deref(),
        Some("v1.20.0-beta.2")
    );
    // Non-object JSON (alerts, metrics, reports) is ignored, not reported.
    assert!(l.stats.not_kubernetes >= 40, "{:?}", l.stats);
    let count = |prefix: &str| {
        s.skipped
            .iter()
            .filter(|k| k.reason.starts_with(prefix))
            .count()
    };
    // Sanitised operator configs (`apiVersion`, `kind`, `name`, `spec`; no metadata).
    assert_eq!(count("no metadata"), 21);
    assert_eq!(count("no metadata.uid"), 2);
    // Objects without kind/apiVersion or selfLink, and selfLinks naming OpenShift resources
    // that nothing in the archive defines.
    assert_eq!(count("no kind/apiVersion"), 18 + 15);
    assert_eq!(s.skipped.len(), 21 + 18 + 15);
    // Machines: masters owned by a ControlPlaneMachineSet uid that is not the archive's.
    let machines: Vec<ObjId> = s
        .store
        .ids()
        .filter(|&id| s.resource_of(s.store.object(id)).kind == "Machine")
        .collect();
    assert_eq!(machines.len(), 6);
    let cpms = must_find(
        s,
        "ControlPlaneMachineSet",
        "openshift-machine-api",
        "cluster",
    );
    assert!(
        s.store
            .str(s.store.object(cpms).uid)
            .starts_with("00ceb81c")
    );
    for i in 0..3 {
        let name = format!("dev-rhrmo-dev-26-01-2-tk6g8-master-{i}");
        let id = must_find(s, "Machine", "openshift-machine-api", &name);
        let r = s.store.owner_refs(id)[0];
        assert_eq!(s.store.str(r.kind), "ControlPlaneMachineSet");
        assert!(s.store.str(r.uid).starts_with("7d68aa4d"));
        assert!(s.store.by_uid(r.uid).is_none());
    }
    // One file per Machine: the archive proves nothing about the Machines it left out.
    let machines_row = outcome(s, "machine.openshift.io", "v1beta1", "Machine").unwrap();
    assert!(!machines_row.covers("openshift-machine-api"));
}

// ---- Audit on real data: every finding must be true -----------------------------------------

mod audit {
    use super::*;
    use kubectl_gc::diagnose::{Code, Finding};
    use kubectl_gc::gc::GarbageCollector;
    use std::collections::BTreeMap;

    fn findings(s: &Snapshot) -> Vec<Finding> {
        let a = GarbageCollector::new(s, GarbageCollector::default_gc_version(s));
        kubectl_gc::diagnose::audit(&a).findings
    }

    fn by_code(f: &[Finding]) -> BTreeMap<&'static str, usize> {
        let mut m = BTreeMap::new();
        for x in f {
            *m.entry(x.code.id()).or_insert(0) += 1;
        }
        m
    }

    /// Independent re-check of every "the owner is not there" finding: the reference's UID is
    /// not the object found under the reference's name, and nothing is unknown about it.
    fn assert_dangling_findings_are_true(s: &Snapshot, f: &[Finding]) {
        for x in f {
            let dangling = matches!(
                x.code,
                Code::DanglingOwner
                    | Code::OwnerUidMismatch
                    | Code::OwnerCoordinatesMismatch
                    | Code::CrossNamespaceOwner
            );
            if !dangling {
                continue;
            }
            let r = x.owner_ref.expect("dangling findings name the reference");
            let dep = s.store.object(x.object.expect("object finding"));
            let same_name_in_ns = s.store.ids().find(|&id| {
                let o = s.store.object(id);
                o.name == r.name
                    && o.namespace == dep.namespace
                    && s.resource_of(o)
                        .kind
                        .eq_ignore_ascii_case(s.store.str(r.kind))
            });
            if let Some(found) = same_name_in_ns {
                assert_ne!(
                    s.store.object(found).uid,
                    r.uid,
                    "{x:?}: the owner is there"
                );
            }
            assert_eq!(x.classification, Some("dangling"));
        }
    }

    #[test]
    fn ocp_must_gathers_have_no_findings() {
        for archive in ["must-gather-aws.tar.xz", "must-gather-metal.tar.xz"] {
            let l = read_must_gather(archive);
            let f = findings(&l.snap);
            assert!(f.is_empty(), "{archive}: {:#?}", &f[..f.len().min(5)]);
        }
    }

    #[test]
    fn kurl_uncollected_daemonsets_are_unknown_and_redacted_instance_managers_are_owners() {
        let l = kurl();
        let f = findings(&l.snap);
        // 21 Pod→DaemonSet refs (DaemonSets not collected): unknown, never dangling. The 6
        // Pod→InstanceManager refs are solid: their owners' file is read past its redactions.
        assert_eq!(by_code(&f), BTreeMap::from([("GC007", 21)]));
        let s = &l.snap;
        for x in &f {
            let r = x.owner_ref.as_ref().expect("GC007 names the reference");
            assert_eq!(s.store.str(r.kind), "DaemonSet", "{}", x.message);
        }
    }

    #[test]
    fn harvester_terminating_pvcs_are_held_by_finalizers_and_helm_owners_are_unknown() {
        let l = harvester();
        let f = findings(&l.snap);
        assert_eq!(by_code(&f), BTreeMap::from([("GC007", 14), ("GC013", 4)]));
        let pvc = f
            .iter()
            .find(|x| {
                x.code == Code::TerminatingHeldByFinalizer
                    && x.message.contains("kubernetes.io/pvc-protection")
            })
            .expect("PVC held by pvc-protection");
        assert!(pvc.message.contains("for 14d"), "{}", pvc.message);
        assert_dangling_findings_are_true(&l.snap, &f);
    }

    #[test]
    fn insights_recreated_control_plane_machine_set_is_the_only_dangling_owner() {
        let l = insights();
        let f = findings(&l.snap);
        let counts = by_code(&f);
        assert_eq!(counts.get("GC002"), Some(&3), "{counts:?}");
        assert!(
            counts.keys().all(|k| ["GC002", "GC007"].contains(k)),
            "{counts:?}"
        );
        for x in f.iter().filter(|x| x.code == Code::OwnerUidMismatch) {
            assert!(s_name(&l.snap, x).contains("-master-"));
        }
        assert_dangling_findings_are_true(&l.snap, &f);
    }

    fn s_name(s: &Snapshot, x: &Finding) -> String {
        s.store
            .str(s.store.object(x.object.expect("object finding")).name)
            .to_owned()
    }
}
