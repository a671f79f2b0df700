//! `check` scenarios: restart (§6.22), version boundaries (Appendix A), health, suppressions.

use crate::catalog::KubeVersion;
use crate::diagnose::upgrade::{self, CrdVersions};
use crate::diagnose::{Code, Finding, Severity};
use crate::diagnose::{audit, health, restart};
use crate::gc::GarbageCollector;
use crate::gc::graph_builder::VisitCause;
use crate::snapshot::ListOutcome;
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;
use crate::util::fork::InLine;

/// The object named `name` (first match).
fn obj(snap: &Snapshot, name: &str) -> crate::model::ObjId {
    snap.store
        .ids()
        .find(|&id| snap.store.str(snap.store.object(id).name) == name)
        .unwrap_or_else(|| panic!("no object {name}"))
}

fn v(m: u32) -> KubeVersion {
    KubeVersion::v1(m)
}

fn named(s: &Snapshot, f: &[Finding], name: &str) -> Vec<(Code, Severity)> {
    f.iter()
        .filter(|x| {
            x.object
                .is_some_and(|o| s.store.str(s.store.object(o).name) == name)
        })
        .map(|x| (x.code, x.severity))
        .collect()
}

fn restart(s: &Snapshot, gc: u32) -> Vec<Finding> {
    let a = GarbageCollector::new(s, v(gc));
    let r = restart::predict(&a);
    restart::findings(&a, &r)
}

/// An owner in `kube-system`, a valid dependent next to it and a cross-namespace one.
fn cross_namespace() -> Cluster {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "kube-system", "owner", "owner-uid");
    c.obj("v1", "Secret", "kube-system", "valid", "valid-uid")
        .owner("v1", "ConfigMap", "owner", "owner-uid");
    c.obj("v1", "Secret", "monitoring", "bad", "bad-uid").owner(
        "v1",
        "ConfigMap",
        "owner",
        "owner-uid",
    );
    c.obj("v1", "Pod", "monitoring", "bad-child", "bad-child-uid")
        .owner("v1", "Secret", "bad", "bad-uid");
    c
}

#[test]
fn restart_v1_20_deletes_cross_namespace_dependent_and_its_subtree_critically() {
    let s = cross_namespace().build();
    let a = GarbageCollector::new(&s, v(20));
    let r = restart::predict(&a);
    let bad = s
        .store
        .ids()
        .find(|&i| s.store.str(s.store.object(i).name) == "bad")
        .unwrap();
    assert!(matches!(
        r.visits.get(&bad),
        Some(VisitCause::NamespaceMismatch { .. })
    ));
    let f = restart::findings(&a, &r);
    assert_eq!(
        named(&s, &f, "bad"),
        [(Code::RestartAction, Severity::Critical)]
    );
    assert_eq!(
        named(&s, &f, "bad-child"),
        [(Code::RestartAction, Severity::Critical)],
        "inherited along the cascade"
    );
    assert!(named(&s, &f, "valid").is_empty());
    assert!(r.order_dependent.is_empty());
}

#[test]
fn restart_before_1_20_is_order_dependent_and_threatens_valid_siblings() {
    // kubernetes#65200: no coordinate checks; whether anything happens depends on list order.
    let s = cross_namespace().build();
    let f = restart(&s, 19);
    assert_eq!(
        named(&s, &f, "valid"),
        [(Code::RestartOrderDependent, Severity::Critical)]
    );
    assert_eq!(
        named(&s, &f, "bad"),
        [(Code::RestartOrderDependent, Severity::Critical)]
    );
    assert!(
        f.iter().all(|x| x.code != Code::RestartAction),
        "nothing is certain: {f:#?}"
    );
}

#[test]
fn restart_deletes_dependents_of_missing_owners_in_waves() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "ReplicaSet", "ns", "rs", "rs")
        .owner("apps/v1", "Deployment", "gone", "gone");
    c.obj("v1", "Pod", "ns", "pod", "pod")
        .owner("apps/v1", "ReplicaSet", "rs", "rs");
    let s = c.build();
    let a = GarbageCollector::new(&s, v(28));
    let r = restart::predict(&a);
    assert!(matches!(
        r.visits.values().next(),
        Some(VisitCause::MissingOwner { .. })
    ));
    assert_eq!(
        r.visits.len(),
        1,
        "only the dependent of the missing owner is visited first"
    );
    let f = restart::findings(&a, &r);
    assert_eq!(
        named(&s, &f, "rs"),
        [(Code::RestartAction, Severity::Error)]
    );
    assert_eq!(
        named(&s, &f, "pod"),
        [(Code::RestartAction, Severity::Error)]
    );
}

#[test]
fn restart_leaves_healthy_cluster_alone() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "ns", "d", "d");
    c.obj("apps/v1", "ReplicaSet", "ns", "rs", "rs")
        .owner("apps/v1", "Deployment", "d", "d");
    c.obj("v1", "Node", "", "n", "n");
    c.obj("v1", "Pod", "kube-system", "mirror", "m")
        .owner("v1", "Node", "n", "n");
    let s = c.build();
    for gc in [13, 20, 28] {
        assert!(restart(&s, gc).is_empty(), "GC 1.{gc}");
    }
}

#[test]
fn restart_non_preferred_version_reference_is_visited_but_kept() {
    let mut c = Cluster::new();
    c.served_version("rbac.authorization.k8s.io", "v1beta1", "Role");
    c.obj("rbac.authorization.k8s.io/v1", "Role", "ns", "r", "r");
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("rbac.authorization.k8s.io/v1beta1", "Role", "r", "r");
    let s = c.build();
    let a = GarbageCollector::new(&s, v(28));
    let r = restart::predict(&a);
    assert!(matches!(
        r.visits.values().next(),
        Some(VisitCause::CoordinateMismatch { .. })
    ));
    assert!(r.plan.actions.is_empty());
}

/// #98040: a cluster-scoped child listed first creates the missing owner's virtual node
/// without a namespace.
fn issue_98040() -> Cluster {
    let mut c = Cluster::new();
    c.obj("v1", "Node", "", "nodename", "nodeuid1")
        .owner("v1", "Pod", "podname1", "poduid1");
    c.obj("v1", "Pod", "ns1", "podname2", "poduid2")
        .owner("v1", "Pod", "podname1", "poduid1");
    c
}

#[test]
fn restart_v1_20_strands_namespaced_children_of_namespace_less_virtual_owner() {
    // Confirmed on a real v1.20.2 GC: with the cluster-scoped child observed first, the
    // namespaced child of the missing owner is never collected. Which child a restarted GC
    // observes first is informer order, so either listing order gives the same "may" finding
    // and neither predicts a certain deletion.
    for cluster_scoped_first in [true, false] {
        let c = if cluster_scoped_first {
            issue_98040()
        } else {
            let mut c = Cluster::new();
            c.obj("v1", "Pod", "ns1", "podname2", "poduid2")
                .owner("v1", "Pod", "podname1", "poduid1");
            c.obj("v1", "Node", "", "nodename", "nodeuid1")
                .owner("v1", "Pod", "podname1", "poduid1");
            c
        };
        let s = c.build();
        let a = GarbageCollector::new(&s, KubeVersion::v1(20));
        let r = restart::predict(&a);
        assert!(r.plan.actions.is_empty(), "{:?}", r.plan.actions);
        assert_eq!(r.stranded.len(), 1);
        assert!(!r.stranded[0].certain);
        let f = restart(&s, 20);
        assert_eq!(
            named(&s, &f, "podname2"),
            [(Code::StrandedDependent, Severity::Warning)]
        );
        let stranded = f
            .iter()
            .find(|x| x.code == Code::StrandedDependent)
            .unwrap();
        assert!(
            stranded.consequence.contains("depending on the order"),
            "{}",
            stranded.consequence
        );
    }
}

#[test]
fn restart_v1_21_third_coordinate_check_collects_them() {
    let s = issue_98040().build();
    let f = restart(&s, 21);
    assert_eq!(
        named(&s, &f, "podname2"),
        [(Code::RestartAction, Severity::Error)]
    );
    assert!(
        named(&s, &f, "nodename").is_empty(),
        "the cluster-scoped child is never collected"
    );
}

#[test]
fn virtual_owner_of_a_list_pseudo_kind_is_verified_absent_on_restart() {
    // §1.4 + §3.3 quirk: the virtual owner `apps/v1 ReplicaSetList` maps, its GET 404s, the
    // virtual delete enqueues its dependent, which is then collected.
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "a", "a")
        .owner("apps/v1", "ReplicaSetList", "x", "x");
    let s = c.build();
    let a = GarbageCollector::new(&s, v(28));
    let r = restart::predict(&a);
    assert!(r.visits.contains_key(&obj(&s, "a")), "{:?}", r.visits);
    assert!(r.stranded.is_empty() && r.unknown.is_empty());
    assert!(!r.plan.end.exists(obj(&s, "a")));
}

#[test]
fn restart_continues_foreground_deletion_in_progress() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "ns", "d", "d")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("apps/v1", "ReplicaSet", "ns", "rs", "rs")
        .owner("apps/v1", "Deployment", "d", "d")
        .block(true);
    let s = c.build();
    let f = restart(&s, 28);
    // Deleting the ReplicaSet is the foreground deletion the user asked for, carried on: info,
    // not an alarm (issue 60; the audit reports the same dependent as GC014, info).
    assert_eq!(named(&s, &f, "rs"), [(Code::RestartAction, Severity::Info)]);
    assert_eq!(
        named(&s, &f, "d"),
        [(Code::RestartAction, Severity::Info)],
        "finalizer removal"
    );
}

#[test]
fn upgrade_across_1_20_cross_namespace_becomes_deterministic() {
    let s = cross_namespace().build();
    let f = upgrade::findings(&s, v(19), v(21), &[], &InLine);
    assert_eq!(
        named(&s, &f, "bad"),
        [(Code::UpgradeBehaviourChange, Severity::Critical)]
    );
}

#[test]
fn upgrade_across_1_20_cluster_scoped_dependents_stop_being_deleted() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns1", "podname1", "poduid1");
    c.obj("v1", "Node", "", "nodename", "nodeuid1")
        .owner("v1", "Pod", "podname1", "poduid1");
    let s = c.build();
    let f = upgrade::findings(&s, v(19), v(21), &[], &InLine);
    assert_eq!(
        named(&s, &f, "nodename"),
        [(Code::UpgradeBehaviourChange, Severity::Info)]
    );
    assert!(f[0].message.contains("never collected"), "{}", f[0].message);
}

#[test]
fn upgrade_to_1_25_breaks_batch_v1beta1_cronjob_owner_references() {
    let mut c = Cluster::new();
    c.server_version("v1.24.9");
    c.served_version("batch", "v1beta1", "CronJob");
    c.obj("batch/v1", "CronJob", "ns", "nightly", "cj");
    c.obj("batch/v1", "Job", "ns", "nightly-1", "job").owner(
        "batch/v1beta1",
        "CronJob",
        "nightly",
        "cj",
    );
    let s = c.build();
    let f = upgrade::findings(&s, v(24), v(25), &[], &InLine);
    assert_eq!(
        named(&s, &f, "nightly-1"),
        [(Code::OwnerUnservedAfterUpgrade, Severity::Error)]
    );
    assert!(
        f[0].message.contains("removed in Kubernetes 1.25"),
        "{}",
        f[0].message
    );
    assert!(f[0].message.contains("batch/v1"), "{}", f[0].message);
    assert!(upgrade::findings(&s, v(24), v(24), &[], &InLine).is_empty());
}

#[test]
fn upgrade_with_crd_manifest_that_drops_a_version() {
    let mut c = Cluster::new();
    c.resource("cert-manager.io", "v1", "Certificate", "certificates", true);
    c.served_version("cert-manager.io", "v1alpha2", "Certificate");
    c.obj("cert-manager.io/v1", "Certificate", "ns", "tls", "cert");
    c.obj("v1", "Secret", "ns", "tls", "sec").owner(
        "cert-manager.io/v1alpha2",
        "Certificate",
        "tls",
        "cert",
    );
    let s = c.build();
    let crds = [CrdVersions {
        group: "cert-manager.io".into(),
        kind: "Certificate".into(),
        served: vec!["v1".into()],
    }];
    let f = upgrade::findings(&s, v(28), v(28), &crds, &InLine);
    assert_eq!(
        named(&s, &f, "tls"),
        [(Code::OwnerUnservedAfterUpgrade, Severity::Error)]
    );
}

#[test]
fn health_failed_list_blocks_gc_before_1_32_only() {
    let mut c = Cluster::new();
    c.resource("example.com", "v1", "Widget", "widgets", true);
    c.outcome(
        "example.com",
        "widgets",
        ListOutcome::Failed {
            message: "conversion webhook failed".into(),
        },
    );
    let s = c.build();
    for (gc, sev) in [(28, Severity::Error), (32, Severity::Warning)] {
        let a = GarbageCollector::new(&s, v(gc));
        let f = health::findings(&a, &audit(&a));
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].code, f[0].severity, f[0].resource.as_deref()),
            (Code::GcSyncBlocker, sev, Some("widgets.example.com"))
        );
        assert!(f[0].object.is_none());
    }
}

#[test]
fn health_forbidden_is_our_coverage_gap_not_a_gc_problem() {
    let mut c = Cluster::new();
    c.forbid("", "secrets");
    let s = c.build();
    let a = GarbageCollector::new(&s, v(28));
    assert!(health::findings(&a, &audit(&a)).is_empty());
}

#[test]
fn suppressions_by_annotation_and_baseline() {
    use crate::diagnose::suppress::{Baseline, apply};
    let mut c = cross_namespace();
    c.obj("v1", "Pod", "ns", "ignored", "ig")
        .owner("v1", "Pod", "gone", "gone")
        .ignore("GC001");
    c.obj("v1", "Pod", "ns", "ignored-all", "ia")
        .owner("v1", "Pod", "gone", "gone")
        .ignore("all");
    c.obj("v1", "Pod", "ns", "other-code", "oc")
        .owner("v1", "Pod", "gone", "gone")
        .ignore("GC004");
    let s = c.build();
    let audit = audit(&GarbageCollector::new(&s, v(28)));
    let all: Vec<&Finding> = audit.findings.iter().collect();
    let (kept, suppressed) = apply(&s, all.clone(), None);
    assert_eq!(suppressed, 2);
    assert!(kept.iter().any(|f| {
        f.object
            .is_some_and(|o| s.store.str(s.store.object(o).name) == "other-code")
    }));
    let baseline = Baseline::of(&s, &kept);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("baseline.json");
    baseline.write(&path).unwrap();
    let back = Baseline::read(&path).unwrap();
    let (kept2, suppressed2) = apply(&s, all, Some(&back));
    assert!(kept2.is_empty());
    assert_eq!(suppressed2, audit.findings.len());
}
