//! `test/e2e/apimachinery/garbage_collector.go` (§7.7): controllers create the dependents, the
//! test deletes the owner and waits. Here the controllers' objects are written out as they
//! create them (`controller: true`, `blockOwnerDeletion: true`), and the owner's DELETE is
//! previewed.

use super::*;
use crate::testkit::Cluster;

/// What a controller writes on the objects it creates.
fn controlled(c: &mut Cluster, api: &str, kind: &str, name: &str, owner: (&str, &str, &str, &str)) {
    c.obj(api, kind, "gc", name, &format!("uid-{name}"))
        .owner(owner.0, owner.1, owner.2, owner.3)
        .controller(true)
        .block(true);
}

/// An RC `simpletest.rc` and the `n` pods it created.
fn rc_with_pods(n: usize) -> (Cluster, Vec<String>) {
    let mut c = Cluster::new();
    c.obj("v1", "ReplicationController", "gc", "simpletest.rc", "rc");
    let pods: Vec<String> = (0..n).map(|i| format!("simpletest.rc-{i}")).collect();
    for pod in &pods {
        controlled(
            &mut c,
            "v1",
            "Pod",
            pod,
            ("v1", "ReplicationController", "simpletest.rc", "rc"),
        );
    }
    (c, pods)
}

/// A Deployment `simpletest.deployment`, its ReplicaSet and two pods.
fn deployment() -> Snapshot {
    deployment_with(false)
}

/// [`deployment`], its Deployment's orphan deletion under way when `orphaning` (deletion
/// started, `orphan` finalizer, the ReplicaSet still naming it).
fn deployment_with(orphaning: bool) -> Snapshot {
    let mut c = Cluster::new();
    let d = c.obj("apps/v1", "Deployment", "gc", "simpletest.deployment", "d");
    if orphaning {
        d.finalizers(&["orphan"]).deleting();
    }
    controlled(
        &mut c,
        "apps/v1",
        "ReplicaSet",
        "simpletest.deployment-rs",
        ("apps/v1", "Deployment", "simpletest.deployment", "d"),
    );
    for i in 0..2 {
        controlled(
            &mut c,
            "v1",
            "Pod",
            &format!("simpletest.deployment-rs-{i}"),
            (
                "apps/v1",
                "ReplicaSet",
                "simpletest.deployment-rs",
                "uid-simpletest.deployment-rs",
            ),
        );
    }
    c.build()
}

/// "should delete pods created by rc when not orphaning": the RC deleted in the background.
/// Upstream: no RC and no pods left.
#[test]
fn should_delete_pods_created_by_rc_when_not_orphaning() {
    let (c, pods) = rc_with_pods(10);
    let s = c.build();
    for gc in RELEASES {
        let p = delete(&s, gc, "simpletest.rc", Some(Policy::Background));
        assert_certain(&p, &s, "simpletest.rc", EndState::Deleted);
        for pod in &pods {
            assert_certain(&p, &s, pod, EndState::Deleted);
        }
    }
}

/// The RC deleted with `policy`: it goes, every pod stays, without a reference to it.
fn rc_orphans_its_pods(policy: Option<Policy>) {
    let (c, pods) = rc_with_pods(10);
    let s = c.build();
    for gc in RELEASES {
        let p = delete(&s, gc, "simpletest.rc", policy);
        assert_certain(&p, &s, "simpletest.rc", EndState::Deleted);
        for pod in &pods {
            assert_certain(&p, &s, pod, EndState::Kept);
            assert!(owners_left(&p, &s, pod).is_empty(), "{gc} {policy:?}");
        }
    }
}

/// "should orphan pods created by rc if delete options say so": propagation policy Orphan.
/// Upstream: the RC goes; after 30 s every pod is still there.
#[test]
fn should_orphan_pods_created_by_rc_if_delete_options_say_so() {
    rc_orphans_its_pods(Some(Policy::Orphan));
}

/// "should orphan pods created by rc if deleteOptions.OrphanDependents is nil": a DELETE with
/// only a UID precondition; a ReplicationController's default is to orphan (Appendix B).
/// Upstream: after 30 s every pod is still there.
#[test]
fn should_orphan_pods_created_by_rc_if_delete_options_orphan_dependents_is_nil() {
    rc_orphans_its_pods(None);
}

/// "should delete RS created by deployment when not orphaning": the Deployment deleted in the
/// background. Upstream: no Deployment, ReplicaSet or pod left.
#[test]
fn should_delete_rs_created_by_deployment_when_not_orphaning() {
    let s = deployment();
    for gc in RELEASES {
        let p = delete(&s, gc, "simpletest.deployment", Some(Policy::Background));
        for name in [
            "simpletest.deployment",
            "simpletest.deployment-rs",
            "simpletest.deployment-rs-0",
            "simpletest.deployment-rs-1",
        ] {
            assert_certain(&p, &s, name, EndState::Deleted);
        }
    }
}

/// "should orphan RS created by deployment when deleteOptions.PropagationPolicy is Orphan".
/// Upstream: no Deployment, one ReplicaSet without a controller reference, two pods.
#[test]
fn should_orphan_rs_created_by_deployment_when_propagation_policy_is_orphan() {
    let s = deployment();
    for gc in RELEASES {
        let p = delete(&s, gc, "simpletest.deployment", Some(Policy::Orphan));
        assert_certain(&p, &s, "simpletest.deployment", EndState::Deleted);
        assert_certain(&p, &s, "simpletest.deployment-rs", EndState::Kept);
        assert!(owners_left(&p, &s, "simpletest.deployment-rs").is_empty());
        for pod in ["simpletest.deployment-rs-0", "simpletest.deployment-rs-1"] {
            assert_certain(&p, &s, pod, EndState::Kept);
        }
    }
}

/// "should keep the rc around until all its pods are deleted if the deleteOptions says so":
/// the RC deleted in the foreground. Upstream: the RC goes, and by then no pod is left. Here:
/// every pod is deleted, and the RC's last step comes after the last pod's delete.
#[test]
fn should_keep_the_rc_around_until_all_its_pods_are_deleted() {
    let (c, pods) = rc_with_pods(10);
    let s = c.build();
    for gc in RELEASES {
        let p = delete(&s, gc, "simpletest.rc", Some(Policy::Foreground));
        assert_certain(&p, &s, "simpletest.rc", EndState::Deleted);
        let last = |name: &str| {
            let id = obj(&s, name);
            p.actions
                .iter()
                .filter(|a| a.target == id)
                .map(|a| a.wave)
                .max()
                .expect("acted on")
        };
        for pod in &pods {
            assert_certain(&p, &s, pod, EndState::Deleted);
            assert!(last(pod) < last("simpletest.rc"), "{gc}: {pod}");
        }
    }
}

/// "should not delete dependents that have both valid owner and owner that's waiting for
/// dependents to be deleted": `simpletest-rc-to-be-deleted` created ten pods, half of which
/// also name `simpletest-rc-to-stay`; the first RC deleted in the foreground. Upstream: it
/// goes; half the pods remain, not terminating, each with one ownerReference.
#[test]
fn should_not_delete_dependents_that_have_both_valid_owner_and_owner_waiting() {
    let mut c = Cluster::new();
    c.obj(
        "v1",
        "ReplicationController",
        "gc",
        "simpletest-rc-to-be-deleted",
        "rc1",
    );
    c.obj(
        "v1",
        "ReplicationController",
        "gc",
        "simpletest-rc-to-stay",
        "rc2",
    );
    for i in 0..10 {
        let pod = c
            .obj("v1", "Pod", "gc", &format!("pod-{i}"), &format!("p{i}"))
            .owner(
                "v1",
                "ReplicationController",
                "simpletest-rc-to-be-deleted",
                "rc1",
            )
            .controller(true)
            .block(true);
        if i < 5 {
            pod.owner(
                "v1",
                "ReplicationController",
                "simpletest-rc-to-stay",
                "rc2",
            );
        }
    }
    let s = c.build();
    for gc in RELEASES {
        let p = delete(
            &s,
            gc,
            "simpletest-rc-to-be-deleted",
            Some(Policy::Foreground),
        );
        assert_certain(&p, &s, "simpletest-rc-to-be-deleted", EndState::Deleted);
        for i in 0..10 {
            let pod = format!("pod-{i}");
            if i < 5 {
                assert_certain(&p, &s, &pod, EndState::Kept);
                assert_eq!(owners_left(&p, &s, &pod), ["rc2"], "{gc}");
            } else {
                assert_certain(&p, &s, &pod, EndState::Deleted);
            }
        }
    }
}

/// "should not be blocked by dependency circle": pod1 owned by pod3, pod2 by pod1, pod3 by
/// pod2 (`controller` and `blockOwnerDeletion` true); pod1 deleted in the foreground.
/// Upstream: all three pods are gone.
#[test]
fn should_not_be_blocked_by_dependency_circle() {
    let mut c = Cluster::new();
    for (name, owner) in [("pod1", "pod3"), ("pod2", "pod1"), ("pod3", "pod2")] {
        controlled(
            &mut c,
            "v1",
            "Pod",
            name,
            ("v1", "Pod", owner, &format!("uid-{owner}")),
        );
    }
    let s = c.build();
    for gc in RELEASES {
        let p = delete(&s, gc, "pod1", Some(Policy::Foreground));
        for name in ["pod1", "pod2", "pod3"] {
            assert_certain(&p, &s, name, EndState::Deleted);
        }
        assert!(
            p.count(Verb::UnblockOwnerReferences) >= 1,
            "the cycle guard fires"
        );
    }
}

/// A cluster-scoped custom resource kind, an owner of it and a dependent of the same kind.
fn custom_resources() -> Snapshot {
    let mut c = Cluster::new();
    c.resource("mygroup.example.com", "v1", "Foo", "foos", false);
    let api = "mygroup.example.com/v1";
    c.obj(api, "Foo", "", "owner", "owner");
    c.obj(api, "Foo", "", "dependent", "dependent")
        .owner(api, "Foo", "owner", "owner");
    c.build()
}

/// "should support cascading deletion of custom resources": the owner deleted in the
/// background. Upstream: the dependent and the owner are gone.
#[test]
fn should_support_cascading_deletion_of_custom_resources() {
    let s = custom_resources();
    for gc in RELEASES {
        let p = delete(&s, gc, "owner", Some(Policy::Background));
        assert_certain(&p, &s, "owner", EndState::Deleted);
        assert_certain(&p, &s, "dependent", EndState::Deleted);
    }
}

/// "should support orphan deletion of custom resources": the owner deleted with
/// `orphanDependents: true`. Upstream: the owner goes and the dependent stays.
#[test]
fn should_support_orphan_deletion_of_custom_resources() {
    let s = custom_resources();
    for gc in RELEASES {
        let p = delete(&s, gc, "owner", Some(Policy::Orphan));
        assert_certain(&p, &s, "owner", EndState::Deleted);
        assert_certain(&p, &s, "dependent", EndState::Kept);
        assert!(owners_left(&p, &s, "dependent").is_empty());
    }
}

/// "should delete jobs and pods created by cronjob": a CronJob, its Job and the Job's pod;
/// the CronJob deleted in the background. Upstream: no CronJob, Job or pod left. CronJob is
/// `batch/v1` from v1.21; a v1.20.2 cluster serves it as `batch/v1beta1`, and the CronJob
/// controller names it so in the Job's reference.
#[test]
fn should_delete_jobs_and_pods_created_by_cronjob() {
    for (gc, cronjob_version) in [(KubeVersion::NEWEST, "v1"), (V1_20_2, "v1beta1")] {
        let mut c = Cluster::new();
        if cronjob_version != "v1" {
            c.resource("batch", cronjob_version, "CronJob", "cronjobs", true);
        }
        let api = format!("batch/{cronjob_version}");
        c.obj(&api, "CronJob", "gc", "simple", "cj");
        controlled(
            &mut c,
            "batch/v1",
            "Job",
            "simple-1",
            (&api, "CronJob", "simple", "cj"),
        );
        controlled(
            &mut c,
            "v1",
            "Pod",
            "simple-1-abcde",
            ("batch/v1", "Job", "simple-1", "uid-simple-1"),
        );
        let s = c.build();
        let p = delete(&s, gc, "simple", Some(Policy::Background));
        for name in ["simple", "simple-1", "simple-1-abcde"] {
            assert_certain(&p, &s, name, EndState::Deleted);
        }
    }
}

/// "should orphan RS created by deployment when deleteOptions.PropagationPolicy is Orphan",
/// captured between the DELETE and the end: attemptToOrphan patches the ReplicaSet's
/// reference away before it removes the finalizer, and the GC's DELETE of a dependent is
/// judged on the dependent as read then. A running GC (the steady state) queued only the
/// Deployment when its deletion began, so nothing races the orphaning: upstream's end state,
/// certain. A GC started on the state (a restart) also evaluates the ReplicaSet if a pod is
/// listed before it (§3.1 step 2): before v1.34 that evaluation can read the ReplicaSet before
/// the PATCH and GET the Deployment after it went, and delete it (seen live on v1.20.2, see
/// `diagnose::tests::fidelity`); from v1.34 its DELETE carries the resourceVersion read, gets
/// 409 since the reference changed, and the retry reads the ReplicaSet without it.
#[test]
fn should_orphan_rs_created_by_deployment_captured_mid_deletion() {
    let s = deployment_with(true);
    let pods = ["simpletest.deployment-rs-0", "simpletest.deployment-rs-1"];
    let certain = |p: &Plan| {
        assert_certain(p, &s, "simpletest.deployment", EndState::Deleted);
        assert_certain(p, &s, "simpletest.deployment-rs", EndState::Kept);
        assert!(owners_left(p, &s, "simpletest.deployment-rs").is_empty());
        for pod in pods {
            assert_certain(p, &s, pod, EndState::Kept);
            assert_eq!(owners_left(p, &s, pod), ["uid-simpletest.deployment-rs"]);
        }
    };
    for gc in RELEASES {
        certain(&steady(&s, gc));
    }
    certain(&restart(&s, KubeVersion::NEWEST));
    let p = restart(&s, V1_20_2);
    assert_eq!(end(&p, &s, "simpletest.deployment-rs"), EndState::Kept);
    assert_eq!(
        alternatives(&p, &s, "simpletest.deployment-rs"),
        [EndState::Deleted],
        "v1.20.2 restart: the evaluation that races the orphaning"
    );
}

/// The same with a third level (a ConfigMap owned by a pod) and a dependent that does not
/// block: only the Deployment's own reference is removed, every level is kept.
#[test]
fn orphaning_keeps_every_level_below_the_owner() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "gc", "dep", "d")
        .finalizers(&["orphan"])
        .deleting();
    controlled(
        &mut c,
        "apps/v1",
        "ReplicaSet",
        "rs",
        ("apps/v1", "Deployment", "dep", "d"),
    );
    c.obj("apps/v1", "ReplicaSet", "gc", "loose", "uid-loose")
        .owner("apps/v1", "Deployment", "dep", "d");
    controlled(
        &mut c,
        "v1",
        "Pod",
        "pod",
        ("apps/v1", "ReplicaSet", "rs", "uid-rs"),
    );
    controlled(
        &mut c,
        "v1",
        "ConfigMap",
        "cm",
        ("v1", "Pod", "pod", "uid-pod"),
    );
    let s = c.build();
    for gc in RELEASES {
        let p = steady(&s, gc);
        assert_certain(&p, &s, "dep", EndState::Deleted);
        for name in ["rs", "loose", "pod", "cm"] {
            assert_certain(&p, &s, name, EndState::Kept);
        }
        assert!(owners_left(&p, &s, "rs").is_empty());
        assert!(owners_left(&p, &s, "loose").is_empty());
        assert_eq!(owners_left(&p, &s, "pod"), ["uid-rs"]);
        assert_eq!(owners_left(&p, &s, "cm"), ["uid-pod"]);
    }
}

/// An `orphan` finalizer on an object that is not being deleted: `processTransitions` acts
/// only when a deletion starts with it, so the GC does nothing (§2.7).
#[test]
fn an_orphan_finalizer_without_a_deletion_does_nothing() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "gc", "dep", "d")
        .finalizers(&["orphan"]);
    controlled(
        &mut c,
        "apps/v1",
        "ReplicaSet",
        "rs",
        ("apps/v1", "Deployment", "dep", "d"),
    );
    let s = c.build();
    for gc in RELEASES {
        for p in [steady(&s, gc), restart(&s, gc)] {
            assert!(p.actions.is_empty(), "{gc}: {:?}", p.actions);
            assert_certain(&p, &s, "dep", EndState::Kept);
            assert_certain(&p, &s, "rs", EndState::Kept);
            assert_eq!(owners_left(&p, &s, "rs"), ["d"]);
        }
    }
}
