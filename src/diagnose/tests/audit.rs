//! One test per finding code, named after the GC behaviour behind it.

use crate::catalog::KubeVersion;
use crate::diagnose::{Code, Finding, Severity};
use crate::gc::GarbageCollector;
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;

fn audit(c: &Cluster, gc: u32) -> (Snapshot, Vec<Finding>) {
    let s = c.build();
    let f = crate::diagnose::audit(&GarbageCollector::new(&s, KubeVersion::v1(gc))).findings;
    (s, f)
}

/// The first finding with `code` on the object named `name`; panics (listing all) if none.
fn finding_on<'f>(s: &Snapshot, f: &'f [Finding], code: Code, name: &str) -> &'f Finding {
    f.iter()
        .find(|x| {
            x.code == code
                && x.object
                    .is_some_and(|o| s.store.str(s.store.object(o).name) == name)
        })
        .unwrap_or_else(|| panic!("no {code:?} on {name}: {f:?}"))
}

fn codes_for(s: &Snapshot, f: &[Finding], name: &str) -> Vec<(Code, Severity)> {
    f.iter()
        .filter(|x| {
            x.object
                .is_some_and(|o| s.store.str(s.store.object(o).name) == name)
        })
        .map(|x| (x.code, x.severity))
        .collect()
}

/// The redis-operator incident: an exporter StatefulSet in `monitoring` owned by a custom
/// resource in `kube-system`, next to valid dependents in `kube-system`.
fn redis_incident() -> Cluster {
    let mut c = Cluster::new();
    c.resource(
        "databases.spotahome.com",
        "v1",
        "RedisFailover",
        "redisfailovers",
        true,
    );
    c.obj(
        "databases.spotahome.com/v1",
        "RedisFailover",
        "kube-system",
        "redis",
        "rf-uid",
    );
    for name in ["rfr-redis", "rfs-redis"] {
        c.obj(
            "apps/v1",
            "StatefulSet",
            "kube-system",
            name,
            &format!("{name}-uid"),
        )
        .owner(
            "databases.spotahome.com/v1",
            "RedisFailover",
            "redis",
            "rf-uid",
        )
        .controller(true);
    }
    c.obj(
        "apps/v1",
        "StatefulSet",
        "monitoring",
        "redis-exporter",
        "exp-uid",
    )
    .owner(
        "databases.spotahome.com/v1",
        "RedisFailover",
        "redis",
        "rf-uid",
    )
    .controller(true);
    c
}

#[test]
fn gc004_cross_namespace_owner_gets_the_dependent_deleted() {
    let (s, f) = audit(&redis_incident(), 28);
    assert_eq!(
        codes_for(&s, &f, "redis-exporter"),
        [(Code::CrossNamespaceOwner, Severity::Critical)]
    );
    let x = f
        .iter()
        .find(|x| x.code == Code::CrossNamespaceOwner)
        .unwrap();
    assert!(x.consequence.contains("will delete"));
    assert!(x.message.contains("OwnerRefInvalidNamespace"));
    assert!(
        x.remedies[0].command.starts_with(
            "kubectl patch statefulsets.apps/redis-exporter -n monitoring --type=json"
        )
    );
    // v1.20+: the valid dependents are safe.
    assert!(codes_for(&s, &f, "rfr-redis").is_empty());
    assert!(f.iter().all(|x| x.code != Code::CollateralAtRisk));
}

#[test]
fn gc012_before_1_20_valid_siblings_of_a_cross_namespace_ref_are_at_risk() {
    let (s, f) = audit(&redis_incident(), 13);
    for name in ["rfr-redis", "rfs-redis"] {
        assert_eq!(
            codes_for(&s, &f, name),
            [(Code::CollateralAtRisk, Severity::Critical)],
            "{name}"
        );
    }
    assert!(
        !f.iter()
            .any(|x| x.message.contains("OwnerRefInvalidNamespace")),
        "no events before 1.20"
    );
}

#[test]
fn gc012_sibling_with_another_solid_owner_risks_only_the_reference() {
    let mut c = redis_incident();
    c.obj("v1", "ConfigMap", "kube-system", "other-owner", "cm-uid");
    c.obj("v1", "Service", "kube-system", "svc", "svc-uid")
        .owner(
            "databases.spotahome.com/v1",
            "RedisFailover",
            "redis",
            "rf-uid",
        )
        .owner("v1", "ConfigMap", "other-owner", "cm-uid");
    let (s, f) = audit(&c, 19);
    assert_eq!(
        codes_for(&s, &f, "svc"),
        [(Code::CollateralAtRisk, Severity::Error)]
    );
}

#[test]
fn gc001_dangling_owner_sole_owner_is_deleted_other_owner_strips() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "keep", "keep");
    c.obj("v1", "Pod", "ns", "orphaned", "a")
        .owner("apps/v1", "ReplicaSet", "gone", "gone");
    c.obj("v1", "Pod", "ns", "two-owners", "b")
        .owner("apps/v1", "ReplicaSet", "gone", "gone")
        .owner("v1", "ConfigMap", "keep", "keep");
    let (s, f) = audit(&c, 28);
    assert_eq!(
        codes_for(&s, &f, "orphaned"),
        [(Code::DanglingOwner, Severity::Error)]
    );
    assert_eq!(
        codes_for(&s, &f, "two-owners"),
        [(Code::DanglingOwner, Severity::Warning)]
    );
    let strip = finding_on(&s, &f, Code::DanglingOwner, "two-owners");
    assert!(strip.consequence.contains("strip"));
}

#[test]
fn gc002_owner_recreated_with_the_same_name_is_dangling() {
    // insights-archive: Machines owned by a ControlPlaneMachineSet whose uid changed.
    let mut c = Cluster::new();
    c.obj("apps/v1", "ReplicaSet", "ns", "rs", "new-uid");
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("apps/v1", "ReplicaSet", "rs", "old-uid");
    let (s, f) = audit(&c, 28);
    assert_eq!(
        codes_for(&s, &f, "p"),
        [(Code::OwnerUidMismatch, Severity::Error)]
    );
}

#[test]
fn gc003_wrong_kind_for_an_existing_uid_deletes_the_dependent() {
    // crossplane#895: the uid of a ClusterStackInstall with kind Stack.
    let mut c = Cluster::new();
    c.obj(
        "apps/v1",
        "Deployment",
        "ns1",
        "deployment1",
        "deploymentuid1",
    );
    c.obj("v1", "Pod", "ns1", "badpod", "badpoduid").owner(
        "v1",
        "Secret",
        "secretname",
        "deploymentuid1",
    );
    let (s, f) = audit(&c, 28);
    assert_eq!(
        codes_for(&s, &f, "badpod"),
        [(Code::OwnerCoordinatesMismatch, Severity::Critical)]
    );
}

#[test]
fn gc005_cluster_scoped_dependent_of_namespaced_owner() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "ns", "d", "d");
    c.obj(
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        "",
        "cr",
        "cr",
    )
    .owner("apps/v1", "Deployment", "d", "d");
    let (s, f) = audit(&c, 28);
    assert_eq!(
        codes_for(&s, &f, "cr"),
        [(
            Code::ClusterScopedDependentOfNamespacedOwner,
            Severity::Warning
        )]
    );
    // Before 1.20 the GC deleted it (Juniper/contrail-operator#277).
    let (s, f) = audit(&c, 19);
    assert_eq!(
        codes_for(&s, &f, "cr"),
        [(Code::CrossNamespaceOwner, Severity::Critical)]
    );
}

#[test]
fn gc006_unresolvable_owner_kind_is_retried_forever() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("extensions/v1beta1", "ReplicaSet", "rs", "rs");
    let (s, f) = audit(&c, 28);
    assert_eq!(
        codes_for(&s, &f, "p"),
        [(Code::UnresolvableOwnerKind, Severity::Warning)]
    );
    assert!(f[0].consequence.contains("forever"));
}

#[test]
fn gc007_forbidden_owner_is_unknown_never_dangling() {
    let mut c = Cluster::new();
    c.forbid("", "secrets");
    c.obj("v1", "ConfigMap", "ns", "cm", "cm")
        .owner("v1", "Secret", "s", "s");
    let (s, f) = audit(&c, 28);
    assert_eq!(
        codes_for(&s, &f, "cm"),
        [(Code::UnknownOwner, Severity::Info)]
    );
    assert!(f.iter().all(|x| x.classification != Some("dangling")));
}

#[test]
fn gc008_blocked_foreground_deletion_names_root_blocker_and_remedies() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "ns", "web", "d")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs")
        .owner("apps/v1", "Deployment", "web", "d")
        .block(true)
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "Pod", "ns", "stuck", "p")
        .owner("apps/v1", "ReplicaSet", "web-1", "rs")
        .block(true)
        .finalizers(&["example.com/drain"])
        .deleting();
    let (s, f) = audit(&c, 28);
    let web = finding_on(&s, &f, Code::BlockedForegroundDeletion, "web");
    assert_eq!(web.severity, Severity::Error);
    assert!(
        web.message
            .contains("Pod/stuck -n ns is terminating, held by example.com/drain"),
        "{}",
        web.message
    );
    assert_eq!(web.related.len(), 2, "chain: web-1, stuck");
    assert_eq!(web.remedies.len(), 3, "{:?}", web.remedies);
    // stuck is already terminating: no reference change keeps it, its finalizer finishes it;
    // unblocking lets the owners finish; stripping the finalizer comes last, once (C8).
    assert!(web.remedies[0].command.is_empty());
    assert!(web.remedies[0].note.contains("example.com/drain"));
    assert!(
        web.remedies[1]
            .command
            .contains("blockOwnerDeletion\",\"value\":false")
    );
    assert_eq!(
        web.remedies[2].command,
        r#"kubectl patch pods/stuck -n ns --type=json -p '[{"op":"test","path":"/metadata/finalizers","value":["example.com/drain"]},{"op":"remove","path":"/metadata/finalizers"}]'"#
    );
    assert!(
        codes_for(&s, &f, "stuck").contains(&(Code::TerminatingHeldByFinalizer, Severity::Warning))
    );
}

#[test]
fn gc008_live_root_blocker_gets_a_delete_remedy() {
    // The blocker is not terminating: the GC cannot decide it (its other owner's resource was
    // not readable). Unblocking, then keeping it, then deleting it (the one step that cannot be
    // undone) are the ways out.
    let mut c = Cluster::new();
    c.forbid("", "secrets");
    c.obj("apps/v1", "Deployment", "ns", "web", "d")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "Pod", "ns", "held", "p")
        .owner("apps/v1", "Deployment", "web", "d")
        .block(true)
        .owner("v1", "Secret", "creds", "s");
    let (s, f) = audit(&c, 28);
    let web = finding_on(&s, &f, Code::BlockedForegroundDeletion, "web");
    assert!(
        web.message.contains("Pod/held -n ns cannot be evaluated"),
        "{}",
        web.message
    );
    assert!(
        web.remedies[0]
            .command
            .contains("blockOwnerDeletion\",\"value\":false")
    );
    assert_eq!(web.remedies[2].command, "kubectl delete pods/held -n ns");
    assert!(web.remedies[1].command.contains(
        r#"[{"op":"test","path":"/metadata/ownerReferences/0/uid","value":"d"},{"op":"remove","path":"/metadata/ownerReferences/0"}]"#
    ));
}

#[test]
fn gc008_not_reported_when_the_gc_can_finish() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "ns", "web", "d")
        .finalizers(&["foregroundDeletion"])
        .deleting_since("2026-01-01T23:59:00Z");
    c.obj("apps/v1", "ReplicaSet", "ns", "web-1", "rs")
        .owner("apps/v1", "Deployment", "web", "d")
        .block(true);
    let (_, f) = audit(&c, 28);
    assert!(
        f.iter().all(|x| x.code != Code::BlockedForegroundDeletion),
        "{f:#?}"
    );
}

#[test]
fn gc009_orphan_finalizer_pending_or_stalled() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "ReplicaSet", "ns", "fresh", "a")
        .finalizers(&["orphan"])
        .deleting_since("2026-01-01T23:59:00Z");
    c.obj("apps/v1", "ReplicaSet", "ns", "old", "b")
        .finalizers(&["orphan"])
        .deleting_since("2025-12-01T00:00:00Z");
    let (s, f) = audit(&c, 28);
    assert_eq!(
        codes_for(&s, &f, "fresh"),
        [(Code::OrphanFinalizer, Severity::Info)]
    );
    assert_eq!(
        codes_for(&s, &f, "old"),
        [(Code::OrphanFinalizer, Severity::Warning)]
    );
}

#[test]
fn gc010_ownership_cycle_and_self_reference() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "a", "a")
        .owner("v1", "ConfigMap", "b", "b");
    c.obj("v1", "ConfigMap", "ns", "b", "b")
        .owner("v1", "ConfigMap", "a", "a");
    c.obj("v1", "ConfigMap", "ns", "me", "me")
        .owner("v1", "ConfigMap", "me", "me")
        .block(true);
    let (s, f) = audit(&c, 28);
    let cycles: Vec<_> = f
        .iter()
        .filter(|x| x.code == Code::OwnershipCycle)
        .collect();
    assert_eq!(cycles.len(), 2);
    assert!(cycles.iter().any(|x| x.message.contains("2 objects")));
    assert_eq!(
        codes_for(&s, &f, "me"),
        [(Code::OwnershipCycle, Severity::Warning)]
    );
}

/// The cycle check leaves out, before its search, every edge that cannot lie on a cycle:
/// held against a search over every edge, on random graphs of objects with one to three
/// owners each (cycles of every length, with trees hanging off them and chains leading away).
#[test]
fn gc010_cycles_found_as_a_search_over_every_edge_finds_them() {
    use petgraph::graph::DiGraph;
    use std::collections::BTreeSet;
    let mut rng = crate::testkit::generate::Rng(10);
    for round in 0..60 {
        let n = 2 + rng.below(40) as usize;
        let mut c = Cluster::new();
        let mut g: DiGraph<(), ()> = DiGraph::new();
        let nodes: Vec<_> = (0..n).map(|_| g.add_node(())).collect();
        for i in 0..n {
            let name = format!("o{i}");
            let o = c.obj("v1", "ConfigMap", "ns", &name, &name);
            // A third have no owner; the others one to three, at random, self included.
            if rng.below(3) == 0 {
                continue;
            }
            for _ in 0..=rng.below(3) {
                let j = rng.below(n as u64) as usize;
                let owner = format!("o{j}");
                o.owner("v1", "ConfigMap", &owner, &owner);
                if j != i {
                    g.add_edge(nodes[i], nodes[j], ());
                }
            }
        }
        let expected: BTreeSet<BTreeSet<String>> = petgraph::algo::tarjan_scc(&g)
            .into_iter()
            .filter(|scc| scc.len() > 1)
            .map(|scc| scc.iter().map(|x| format!("o{}", x.index())).collect())
            .collect();
        let (s, f) = audit(&c, 28);
        let name = |o| s.store.str(s.store.object(o).name).to_owned();
        let found: BTreeSet<BTreeSet<String>> = f
            .iter()
            .filter(|x| x.code == Code::OwnershipCycle && !x.related.is_empty())
            .map(|x| {
                x.related
                    .iter()
                    .chain(x.object.as_ref())
                    .map(|&o| name(o))
                    .collect()
            })
            .collect();
        assert_eq!(found, expected, "round {round}");
    }
}

#[test]
fn gc011_duplicate_and_conflicting_refs_to_one_uid() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "o", "o");
    c.obj("v1", "Pod", "ns", "dup", "d")
        .owner("v1", "ConfigMap", "o", "o")
        .controller(true)
        .owner("v1", "ConfigMap", "o", "o")
        .controller(true);
    let (s, f) = audit(&c, 28);
    let codes: Vec<Code> = codes_for(&s, &f, "dup").into_iter().map(|x| x.0).collect();
    assert_eq!(
        codes,
        [
            Code::DuplicateOwnerReferences,
            Code::DuplicateOwnerReferences
        ]
    );
}

#[test]
fn gc013_terminating_held_by_foreign_finalizer() {
    // harvester: PVCs terminating for weeks with kubernetes.io/pvc-protection.
    let mut c = Cluster::new();
    c.obj("v1", "PersistentVolumeClaim", "ns", "data", "pvc")
        .finalizers(&["kubernetes.io/pvc-protection"])
        .deleting_since("2025-12-08T00:00:00Z");
    let (s, f) = audit(&c, 28);
    assert_eq!(
        codes_for(&s, &f, "data"),
        [(Code::TerminatingHeldByFinalizer, Severity::Warning)]
    );
    assert!(f[0].message.contains("kubernetes.io/pvc-protection"));
}

#[test]
fn gc014_waiting_owner_reference() {
    let mut c = Cluster::new();
    c.obj("v1", "ReplicationController", "ns", "rc", "rc")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("v1", "ReplicationController", "rc", "rc");
    let (s, f) = audit(&c, 28);
    assert_eq!(
        codes_for(&s, &f, "p"),
        [(Code::WaitingOwner, Severity::Info)]
    );
}

#[test]
fn healthy_cluster_has_no_findings() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "ns", "d", "d");
    c.obj("apps/v1", "ReplicaSet", "ns", "rs", "rs")
        .owner("apps/v1", "Deployment", "d", "d")
        .controller(true)
        .block(true);
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("apps/v1", "ReplicaSet", "rs", "rs")
        .controller(true)
        .block(true);
    c.obj("v1", "Node", "", "n1", "n1");
    c.obj("v1", "Pod", "kube-system", "mirror", "m")
        .owner("v1", "Node", "n1", "n1")
        .controller(true);
    let (_, f) = audit(&c, 28);
    assert!(f.is_empty(), "{f:#?}");
}

#[test]
fn gc001_on_gc_1_20_warns_that_a_cluster_scoped_sibling_can_strand_it() {
    // kubernetes#98040 (reproduced on a real v1.20.2 GC by tests/check_live.rs).
    let mut c = Cluster::new();
    c.obj(
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        "",
        "bad",
        "cr",
    )
    .owner("v1", "ConfigMap", "parent", "gone");
    c.obj("v1", "ConfigMap", "ns", "good", "cm")
        .owner("v1", "ConfigMap", "parent", "gone");
    let message = |gc: u32| {
        let (s, f) = audit(&c, gc);
        finding_on(&s, &f, Code::DanglingOwner, "good")
            .message
            .clone()
    };
    let m20 = message(20);
    assert!(
        m20.contains("GC 1.20 may never collect it")
            && m20.contains("ClusterRole/bad")
            && m20.contains("98040"),
        "{m20}"
    );
    // Fixed in 1.21; before 1.20 the cluster-scoped GET 404s and both are collected.
    assert!(!message(21).contains("98040"));
    assert!(!message(19).contains("98040"));
}

/// Issue 25: where the simulation runs (audit, collect), GC 1.20.0–1.20.2's #98040 makes the
/// good dependent's end state order-dependent — deleted, or never collected — not only
/// "deleted" (the restart check already reported both).
#[test]
fn gc021_on_gc_1_20_2_reports_both_end_states_of_a_dependent_98040_can_strand() {
    let mut c = Cluster::new();
    c.obj(
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        "",
        "bad",
        "cr",
    )
    .owner("v1", "ConfigMap", "parent", "gone");
    c.obj("v1", "ConfigMap", "ns", "good", "cm")
        .owner("v1", "ConfigMap", "parent", "gone");
    let s = c.build();
    let at = |v: KubeVersion| crate::diagnose::audit(&GarbageCollector::new(&s, v));
    let a = at(KubeVersion::release(20, 2));
    let f = finding_on(&s, &a.findings, Code::OrderDependent, "good");
    assert!(
        f.consequence.contains("deleted")
            && f.consequence
                .contains("kept with its ownerReference to ConfigMap/parent")
            && !f.consequence.contains("gone"),
        "{}",
        f.consequence
    );
    let good = a
        .plan
        .outcomes
        .iter()
        .find(|o| s.store.str(s.store.object(o.target).name) == "good")
        .expect("good's outcome");
    assert!(good.alternatives.iter().any(|x| x.never_evaluated));
    // 1.20.3 has the fix; 1.19 deletes both: one end state.
    for v in [KubeVersion::release(20, 3), KubeVersion::v1(19)] {
        let a = at(v);
        assert!(
            !a.findings.iter().any(|x| x.code == Code::OrderDependent),
            "{v}: {:?}",
            a.findings
        );
    }
}

/// Issue 56 item 6: a Deployment being deleted with `propagationPolicy=Orphan` (deletion
/// started, `orphan` finalizer, its ReplicaSet and pods still naming it) is a routine state,
/// not an order-dependent one. A running GC queued only the Deployment (attemptToOrphan) when
/// its deletion began; the orphan worker patches the ReplicaSet before it removes the
/// finalizer, and nothing evaluates the ReplicaSet in between. Before the fix the audit
/// reported GC021 ERROR "kept, or deleted" on the ReplicaSet and both pods.
#[test]
fn gc021_not_reported_for_a_deployment_being_deleted_with_orphan_propagation() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "shop", "web", "u-dep")
        .finalizers(&["orphan"])
        .deleting();
    c.obj("apps/v1", "ReplicaSet", "shop", "web-5d9", "u-rs")
        .owner("apps/v1", "Deployment", "web", "u-dep")
        .controller(true)
        .block(true);
    for pod in ["web-5d9-a", "web-5d9-b"] {
        c.obj("v1", "Pod", "shop", pod, &format!("u-{pod}"))
            .owner("apps/v1", "ReplicaSet", "web-5d9", "u-rs")
            .controller(true)
            .block(true);
    }
    let s = c.build();
    for v in [KubeVersion::release(20, 2), KubeVersion::NEWEST] {
        let a = crate::diagnose::audit(&GarbageCollector::new(&s, v));
        assert!(
            !a.findings
                .iter()
                .any(|x| x.code == Code::OrderDependent || x.severity >= Severity::Error),
            "{v}: {:?}",
            a.findings
                .iter()
                .map(|x| (x.code, x.severity, &x.message))
                .collect::<Vec<_>>()
        );
        for o in &a.plan.outcomes {
            assert!(o.alternatives.is_empty(), "{v}: {o:?}");
        }
    }
}
