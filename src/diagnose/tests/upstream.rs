//! The findings on upstream's GC scenarios (issue 60 point 2): `gc/tests/upstream/` asserts the
//! end states kubectl-gc predicts for upstream's own tests; here the same scenarios are
//! audited, and checked as a restarted GC sees them (`check restart`), and the exact finding
//! codes and severities are asserted, at the newest modelled release and at v1.20.2.
//!
//! Upstream's tests create objects, send one DELETE and wait. The state a snapshot holds once
//! the API server has accepted that DELETE is what is audited here: with the Orphan policy
//! (or a kind whose default is to orphan), the owner terminating with the `orphan`
//! finalizer; with Foreground, terminating with `foregroundDeletion`; with Background, the
//! owner gone.
//!
//! **No ERROR or CRITICAL where the GC does what the user asked.** An owner terminating with
//! `orphan` or `foregroundDeletion` records the user's request in the snapshot, and what the GC
//! does about it (orphan the dependents; delete them, then the owner) is the request carried
//! out: warnings at most (a deletion the GC should already have finished, a reference it
//! strips). A background DELETE leaves no trace: the owner is gone, and its dependents' dangling
//! references look like any reference whose owner vanished (a restored backup, an owner deleted
//! by mistake). There, as documented (README, GC001 "error if the GC deletes the object"), the
//! deletions the GC will make are errors; the tests pin that too, so that the line between the
//! two is where this comment says.

use crate::catalog::KubeVersion;
use crate::diagnose::{Code, Finding, Severity, audit, restart};
use crate::gc::GarbageCollector;
use crate::gc::plan::Verb;
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;

use Code::{
    BlockedForegroundDeletion as GC008, DanglingOwner as GC001, OrphanFinalizer as GC009,
    OwnershipCycle as GC010, RestartAction as GC015, RestartOrderDependent as GC016,
    WaitingOwner as GC014,
};
use Severity::{Critical, Error, Info, Warning};

/// The releases every scenario runs at: the newest modelled, and the live suites' v1.20.2.
const RELEASES: [KubeVersion; 2] = [KubeVersion::NEWEST, KubeVersion::release(20, 2)];

/// One expected finding: the object's name, the code, the severity.
type Expect = (String, Code, Severity);

fn e(name: &str, code: Code, severity: Severity) -> Expect {
    (name.to_owned(), code, severity)
}

/// `e` for each of `names`.
fn each(names: &[String], code: Code, severity: Severity) -> Vec<Expect> {
    names.iter().map(|n| e(n, code, severity)).collect()
}

fn sorted(s: &Snapshot, f: Vec<Finding>) -> Vec<Expect> {
    let mut out: Vec<Expect> = f
        .into_iter()
        .map(|x| {
            let name = x
                .object
                .map(|o| s.store.str(s.store.object(o).name).to_owned())
                .unwrap_or_default();
            (name, x.code, x.severity)
        })
        .collect();
    out.sort_by(|a, b| (&a.0, a.1 as u32, a.2).cmp(&(&b.0, b.1 as u32, b.2)));
    out
}

/// The audit's and the restart check's findings on `s` at `gc` equal the expected ones (in any
/// order).
#[track_caller]
fn assert_findings(s: &Snapshot, gc: KubeVersion, audit_: Vec<Expect>, restart_: Vec<Expect>) {
    let g = GarbageCollector::new(s, gc);
    let found_audit = sorted(s, audit::audit(&g).findings);
    let found_restart = sorted(s, restart::findings(&g, &restart::predict(&g)));
    assert_eq!(found_audit, sorted_expect(audit_), "audit at {gc}");
    assert_eq!(
        found_restart,
        sorted_expect(restart_),
        "check restart at {gc}"
    );
}

fn sorted_expect(mut v: Vec<Expect>) -> Vec<Expect> {
    v.sort_by(|a, b| (&a.0, a.1 as u32, a.2).cmp(&(&b.0, b.1 as u32, b.2)));
    v
}

/// Nothing above a warning: the check this file exists for, stated on its own so that a
/// failure says it plainly.
#[track_caller]
fn assert_routine(s: &Snapshot) {
    for gc in RELEASES {
        let g = GarbageCollector::new(s, gc);
        let mut all = audit::audit(&g).findings;
        all.extend(restart::findings(&g, &restart::predict(&g)));
        let alarms: Vec<String> = all
            .iter()
            .filter(|f| f.severity >= Error)
            .map(|f| format!("{:?} {:?} {}", f.code, f.severity, f.consequence))
            .collect();
        assert!(
            alarms.is_empty(),
            "at {gc}, the GC does what the user asked, yet: {alarms:#?}"
        );
    }
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// Pods in `gc` created by a controller (`controller` and `blockOwnerDeletion` true).
fn controlled_pods(c: &mut Cluster, pods: &[String], owner: (&str, &str, &str, &str)) {
    for p in pods {
        c.obj("v1", "Pod", "gc", p, &format!("uid-{p}"))
            .owner(owner.0, owner.1, owner.2, owner.3)
            .controller(true)
            .block(true);
    }
}

const RC: (&str, &str, &str, &str) = ("v1", "ReplicationController", "simpletest.rc", "rc");

/// The RC of the e2e tests after a DELETE with `finalizer` (None: background, the RC gone),
/// and its ten pods.
fn rc_deleted(finalizer: Option<&str>) -> (Snapshot, Vec<String>) {
    let mut c = Cluster::new();
    if let Some(f) = finalizer {
        c.obj(RC.0, RC.1, "gc", RC.2, RC.3)
            .deleting()
            .finalizers(&[f]);
    }
    let pods = names("simpletest.rc-", 10);
    controlled_pods(&mut c, &pods, RC);
    (c.build(), pods)
}

/// e2e "should delete pods created by rc when not orphaning": the RC deleted in the
/// background. Its pods' owner is gone: each is garbage the GC deletes (GC001), and a
/// restarted GC too (GC015): errors, as for any dangling owner (module comment).
#[test]
fn e2e_rc_deleted_in_the_background() {
    let (s, pods) = rc_deleted(None);
    for gc in RELEASES {
        assert_findings(&s, gc, each(&pods, GC001, Error), each(&pods, GC015, Error));
    }
}

/// e2e "should orphan pods created by rc if delete options say so" and "… if
/// deleteOptions.OrphanDependents is nil" (an RC's default is to orphan), and integration
/// `TestOrphaning`: the RC terminating with `orphan`. The GC strips each pod's reference
/// (warning: a reference removed) and then the finalizer (info); the pending `orphan` is
/// stalled, the deletion being older than the capture (GC009 warning).
#[test]
fn e2e_rc_deleted_with_the_orphan_policy() {
    let (s, pods) = rc_deleted(Some("orphan"));
    assert_routine(&s);
    let mut restart = each(&pods, GC015, Warning);
    restart.push(e(RC.2, GC015, Info));
    for gc in RELEASES {
        assert_findings(&s, gc, vec![e(RC.2, GC009, Warning)], restart.clone());
    }
}

/// e2e "should keep the rc around until all its pods are deleted if the deleteOptions says
/// so": the RC terminating with `foregroundDeletion`. Its pods wait for the GC (GC014), which
/// deletes them and then removes the finalizer (info: the deletion asked for); nothing blocks
/// it, so a deletion still pending is one the GC should have finished (GC008 warning).
#[test]
fn e2e_rc_deleted_in_the_foreground() {
    let (s, pods) = rc_deleted(Some("foregroundDeletion"));
    assert_routine(&s);
    let mut audit = each(&pods, GC014, Info);
    audit.push(e(RC.2, GC008, Warning));
    let mut restart = each(&pods, GC015, Info);
    restart.push(e(RC.2, GC015, Info));
    for gc in RELEASES {
        assert_findings(&s, gc, audit.clone(), restart.clone());
    }
}

/// The Deployment of the e2e tests after a DELETE with `finalizer`, its ReplicaSet and two
/// pods.
fn deployment_deleted(finalizer: &str) -> Snapshot {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "gc", "simpletest.deployment", "d")
        .deleting()
        .finalizers(&[finalizer]);
    c.obj(
        "apps/v1",
        "ReplicaSet",
        "gc",
        "simpletest.deployment-rs",
        "rs",
    )
    .owner("apps/v1", "Deployment", "simpletest.deployment", "d")
    .controller(true)
    .block(true);
    controlled_pods(
        &mut c,
        &names("simpletest.deployment-rs-", 2),
        ("apps/v1", "ReplicaSet", "simpletest.deployment-rs", "rs"),
    );
    c.build()
}

/// e2e "should orphan RS created by deployment when deleteOptions.PropagationPolicy is
/// Orphan": the Deployment terminating with `orphan`. The GC strips the ReplicaSet's
/// reference and removes the finalizer; the pods are not touched (their owner, the
/// ReplicaSet, stays). Upstream: one ReplicaSet without a controller reference, two pods.
///
/// The GC that runs while the user deletes (the audit) keeps every dependent at both releases.
/// A GC that *restarts* while the orphaning is in flight is another matter before v1.34: when
/// a pod is listed before its ReplicaSet, the ReplicaSet is evaluated as a virtual node's
/// observed object, and its GET of the Deployment can follow the finalizer's removal — the
/// ReplicaSet is deleted, and its pods with it. The real v1.20.2 GC did exactly that in the live
/// differential (commit 54bd927: a held ConfigMap below an orphaning owner's dependent left
/// Terminating); from v1.34 the DELETE carries the resourceVersion the worker read, so the
/// orphan PATCH makes it fail (kubernetes#132632). So at v1.20.2 the restart check names the
/// risk (GC016), and at the newest release it is routine.
#[test]
fn e2e_deployment_deleted_with_the_orphan_policy() {
    let s = deployment_deleted("orphan");
    let newest = GarbageCollector::new(&s, KubeVersion::NEWEST);
    let mut all = audit::audit(&newest).findings;
    all.extend(restart::findings(&newest, &restart::predict(&newest)));
    assert!(all.iter().all(|f| f.severity < Error), "{all:?}");
    let routine_restart = vec![
        e("simpletest.deployment", GC015, Info),
        e("simpletest.deployment-rs", GC015, Warning),
    ];
    assert_findings(
        &s,
        KubeVersion::NEWEST,
        vec![e("simpletest.deployment", GC009, Warning)],
        routine_restart.clone(),
    );
    let mut racing = routine_restart;
    racing.push(e("simpletest.deployment-rs", GC016, Critical));
    racing.extend(each(
        &names("simpletest.deployment-rs-", 2),
        GC016,
        Critical,
    ));
    assert_findings(
        &s,
        KubeVersion::release(20, 2),
        vec![e("simpletest.deployment", GC009, Warning)],
        racing,
    );
}

/// e2e "should delete RS created by deployment when not orphaning", deleted in the foreground
/// instead (the cascade two levels deep): the ReplicaSet is deleted in the foreground as part
/// of the Deployment's deletion, and its pods as part of the ReplicaSet's: all asked for.
#[test]
fn e2e_deployment_deleted_in_the_foreground() {
    let s = deployment_deleted("foregroundDeletion");
    assert_routine(&s);
    let mut restart = each(&names("simpletest.deployment-rs-", 2), GC015, Info);
    restart.extend([
        e("simpletest.deployment-rs", GC015, Info), // deleted
        e("simpletest.deployment-rs", GC015, Info), // its foregroundDeletion removed
        e("simpletest.deployment", GC015, Info),
    ]);
    for gc in RELEASES {
        assert_findings(
            &s,
            gc,
            vec![
                e("simpletest.deployment", GC008, Warning),
                e("simpletest.deployment-rs", GC014, Info),
            ],
            restart.clone(),
        );
    }
}

/// e2e "should not delete dependents that have both valid owner and owner that's waiting for
/// dependents to be deleted": `rc1` terminating with `foregroundDeletion`; pods 0-4 also name
/// `rc2`, which stays. Pods 0-4 lose their reference to rc1 (warning: stripped), pods 5-9 are
/// deleted as asked (info).
#[test]
fn e2e_valid_owner_and_owner_waiting_for_dependents() {
    let mut c = Cluster::new();
    c.obj("v1", "ReplicationController", "gc", "rc1", "rc1")
        .deleting()
        .finalizers(&["foregroundDeletion"]);
    c.obj("v1", "ReplicationController", "gc", "rc2", "rc2");
    let pods = names("pod-", 10);
    for (i, p) in pods.iter().enumerate() {
        let o = c
            .obj("v1", "Pod", "gc", p, &format!("uid-{p}"))
            .owner("v1", "ReplicationController", "rc1", "rc1")
            .controller(true)
            .block(true);
        if i < 5 {
            o.owner("v1", "ReplicationController", "rc2", "rc2");
        }
    }
    let s = c.build();
    assert_routine(&s);
    let (both, only) = pods.split_at(5);
    let mut audit = each(&pods, GC014, Info);
    audit.push(e("rc1", GC008, Warning));
    let mut restart = each(both, GC015, Warning);
    restart.extend(each(only, GC015, Info));
    restart.push(e("rc1", GC015, Info));
    for gc in RELEASES {
        assert_findings(&s, gc, audit.clone(), restart.clone());
    }
}

/// e2e "should not be blocked by dependency circle": pod1 → pod3 → pod2 → pod1 (owner
/// references, all blocking), pod1 terminating with `foregroundDeletion`. The cycle is
/// reported (warning); the GC deletes pod2 and pod3 in the foreground and finishes — what
/// upstream ends with (all gone). A restarted GC does the same, and only at info: it breaks
/// the cycle with the unblocking patch upstream sends (attemptToDeleteItem on pod3, whose
/// dependent pod1 is deleting its own dependents, unblocks pod3's references), then deletes
/// pod3.
#[test]
fn e2e_dependency_circle_deleted_in_the_foreground() {
    let mut c = Cluster::new();
    for (name, owner) in [("pod1", "pod3"), ("pod2", "pod1"), ("pod3", "pod2")] {
        let o = c
            .obj("v1", "Pod", "gc", name, &format!("uid-{name}"))
            .owner("v1", "Pod", owner, &format!("uid-{owner}"))
            .controller(true)
            .block(true);
        if name == "pod1" {
            o.deleting().finalizers(&["foregroundDeletion"]);
        }
    }
    let s = c.build();
    assert_routine(&s);
    for gc in RELEASES {
        let g = GarbageCollector::new(&s, gc);
        assert_eq!(
            sorted(&s, audit::audit(&g).findings),
            sorted_expect(vec![
                e("pod1", GC008, Warning),
                e("pod1", GC010, Warning),
                e("pod2", GC014, Info),
            ]),
            "audit at {gc}"
        );
        let predicted = restart::predict(&g);
        let restart = sorted(&s, restart::findings(&g, &predicted));
        assert!(
            !restart.is_empty() && restart.iter().all(|f| f.1 == GC015 && f.2 == Info),
            "{restart:?}"
        );
        let store = &s.store;
        let acts = |name: &str| -> Vec<Verb> {
            predicted
                .plan
                .actions
                .iter()
                .filter(|a| store.str(store.object(a.target).name) == name)
                .map(|a| a.verb)
                .collect()
        };
        assert!(
            acts("pod3").contains(&Verb::UnblockOwnerReferences)
                && acts("pod3").contains(&Verb::Delete),
            "at {gc}: pod3's restart actions {:?}",
            acts("pod3")
        );
        assert!(acts("pod2").contains(&Verb::Delete), "at {gc}");
        for id in store.ids() {
            assert!(!predicted.plan.end.exists(id), "at {gc}: all three pods go");
        }
    }
}

/// A cluster-scoped custom kind `Foo`: `dependent` owned by `owner`, which is deleted with
/// `finalizer` (None: background, gone).
fn custom_resources(finalizer: Option<&str>) -> Snapshot {
    let mut c = Cluster::new();
    c.resource("mygroup.example.com", "v1", "Foo", "foos", false);
    let api = "mygroup.example.com/v1";
    if let Some(f) = finalizer {
        c.obj(api, "Foo", "", "owner", "owner")
            .deleting()
            .finalizers(&[f]);
    }
    c.obj(api, "Foo", "", "dependent", "dependent")
        .owner(api, "Foo", "owner", "owner");
    c.build()
}

/// e2e "should support cascading deletion of custom resources" (background) and "should
/// support orphan deletion of custom resources".
#[test]
fn e2e_custom_resources() {
    let background = custom_resources(None);
    let orphan = custom_resources(Some("orphan"));
    assert_routine(&orphan);
    for gc in RELEASES {
        assert_findings(
            &background,
            gc,
            vec![e("dependent", GC001, Error)],
            vec![e("dependent", GC015, Error)],
        );
        assert_findings(
            &orphan,
            gc,
            vec![e("owner", GC009, Warning)],
            vec![e("dependent", GC015, Warning), e("owner", GC015, Info)],
        );
    }
}

/// e2e "should delete jobs and pods created by cronjob": the CronJob deleted in the
/// background. Its Job's owner is gone (GC001 error, as for any dangling owner); a restarted
/// GC deletes the Job and then its pod (the pod's deletion inherits the Job's severity).
#[test]
fn e2e_cronjob_deleted_in_the_background() {
    for (gc, cronjob_version) in [(KubeVersion::NEWEST, "v1"), (RELEASES[1], "v1beta1")] {
        let mut c = Cluster::new();
        if cronjob_version != "v1" {
            c.resource("batch", cronjob_version, "CronJob", "cronjobs", true);
        }
        c.obj("batch/v1", "Job", "gc", "simple-1", "uid-simple-1")
            .owner(
                &format!("batch/{cronjob_version}"),
                "CronJob",
                "simple",
                "cj",
            )
            .controller(true)
            .block(true);
        controlled_pods(
            &mut c,
            &["simple-1-abcde".to_owned()],
            ("batch/v1", "Job", "simple-1", "uid-simple-1"),
        );
        let s = c.build();
        assert_findings(
            &s,
            gc,
            vec![e("simple-1", GC001, Error)],
            vec![
                e("simple-1", GC015, Error),
                e("simple-1-abcde", GC015, Error),
            ],
        );
    }
}

/// integration `TestCascadingDeletion`: rc.1 deleted in the background; pod.1 is its only
/// dependent (deleted: GC001 error), pod.3 also names rc.2 (its reference stripped: GC001
/// warning), pod.2 has no owner (nothing).
#[test]
fn integration_cascading_deletion() {
    let mut c = Cluster::new();
    let ns = "gc-cascading-deletion";
    c.obj("v1", "ReplicationController", ns, "test.rc.2", "rc2");
    c.obj("v1", "Pod", ns, "test.pod.1", "p1").owner(
        "v1",
        "ReplicationController",
        "test.rc.1",
        "rc1",
    );
    c.obj("v1", "Pod", ns, "test.pod.3", "p3")
        .owner("v1", "ReplicationController", "test.rc.1", "rc1")
        .owner("v1", "ReplicationController", "test.rc.2", "rc2");
    c.obj("v1", "Pod", ns, "test.pod.2", "p2");
    let s = c.build();
    for gc in RELEASES {
        assert_findings(
            &s,
            gc,
            vec![
                e("test.pod.1", GC001, Error),
                e("test.pod.3", GC001, Warning),
            ],
            vec![
                e("test.pod.1", GC015, Error),
                e("test.pod.3", GC015, Warning),
            ],
        );
    }
}

/// integration `TestSolidOwnerDoesNotBlockWaitingOwner`: test.rc.1 terminating with
/// `foregroundDeletion`; the pod (blocking) also names test.rc.2. The GC strips the reference
/// to rc.1 and finishes its deletion.
#[test]
fn integration_solid_owner_does_not_block_waiting_owner() {
    let mut c = Cluster::new();
    let ns = "gc-foreground1";
    c.obj("v1", "ReplicationController", ns, "test.rc.1", "rc1")
        .deleting()
        .finalizers(&["foregroundDeletion"]);
    c.obj("v1", "ReplicationController", ns, "test.rc.2", "rc2");
    c.obj("v1", "Pod", ns, "pod", "pod")
        .owner("v1", "ReplicationController", "test.rc.1", "rc1")
        .block(true)
        .owner("v1", "ReplicationController", "test.rc.2", "rc2");
    let s = c.build();
    assert_routine(&s);
    for gc in RELEASES {
        assert_findings(
            &s,
            gc,
            vec![e("pod", GC014, Info), e("test.rc.1", GC008, Warning)],
            vec![e("pod", GC015, Warning), e("test.rc.1", GC015, Info)],
        );
    }
}

/// integration `TestNonBlockingOwnerRefDoesNotBlock`: test.rc.1 terminating with
/// `foregroundDeletion`; two pods held by `x/y`, neither reference blocking. The GC deletes
/// both (they stay terminating behind `x/y`) and finishes the RC's deletion.
#[test]
fn integration_non_blocking_owner_ref_does_not_block() {
    let mut c = Cluster::new();
    let ns = "gc-foreground2";
    c.obj("v1", "ReplicationController", ns, "test.rc.1", "rc1")
        .deleting()
        .finalizers(&["foregroundDeletion"]);
    c.obj("v1", "Pod", ns, "pod1", "p1")
        .owner("v1", "ReplicationController", "test.rc.1", "rc1")
        .finalizers(&["x/y"]);
    c.obj("v1", "Pod", ns, "pod2", "p2")
        .owner("v1", "ReplicationController", "test.rc.1", "rc1")
        .block(false)
        .finalizers(&["x/y"]);
    let s = c.build();
    assert_routine(&s);
    for gc in RELEASES {
        assert_findings(
            &s,
            gc,
            vec![
                e("pod1", GC014, Info),
                e("pod2", GC014, Info),
                e("test.rc.1", GC008, Warning),
            ],
            vec![
                e("pod1", GC015, Info),
                e("pod2", GC015, Info),
                e("test.rc.1", GC015, Info),
            ],
        );
    }
}

/// integration `TestCreateWithNonExistentOwner`: a pod created with a reference to an RC that
/// does not exist. No DELETE: the reference dangles from the start, and the GC deletes the pod
/// (GC001 error, as for any dangling owner).
#[test]
fn integration_create_with_non_existent_owner() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "gc-non-existing-owner", "test.pod.1", "p1")
        .owner("v1", "ReplicationController", "test.rc.1", "doesn't matter");
    let s = c.build();
    for gc in RELEASES {
        assert_findings(
            &s,
            gc,
            vec![e("test.pod.1", GC001, Error)],
            vec![e("test.pod.1", GC015, Error)],
        );
    }
}

/// integration `TestBlockingOwnerRefDoesBlock`: test.rc.1 terminating with
/// `foregroundDeletion`; its pod blocks it and is held by `x/y`, which nothing removes. The GC
/// deletes the pod as asked (info), which then stays terminating, so the RC's deletion never
/// finishes: that one is an error (GC008), upstream's own assertion (the RC still there).
#[test]
fn integration_blocking_owner_ref_does_block() {
    let mut c = Cluster::new();
    c.obj("v1", "ReplicationController", "foo", "test.rc.1", "rc1")
        .deleting()
        .finalizers(&["foregroundDeletion"]);
    c.obj("v1", "Pod", "foo", "pod", "pod")
        .owner("v1", "ReplicationController", "test.rc.1", "rc1")
        .block(true)
        .finalizers(&["x/y"]);
    let s = c.build();
    for gc in RELEASES {
        assert_findings(
            &s,
            gc,
            vec![e("pod", GC014, Info), e("test.rc.1", GC008, Error)],
            vec![e("pod", GC015, Info)],
        );
    }
}
