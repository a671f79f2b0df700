//! The timeline against the GC's cases: each test names the event semantics it pins (gc-model
//! §2.10, §6.22) and would fail if *when* were read off the plan alone.

use super::{Reason, Timeline, Timing, When};
use crate::catalog::KubeVersion;
use crate::diagnose::Code;
use crate::gc::{GarbageCollector, Plan};
use crate::model::ObjId;
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;

fn id(snap: &Snapshot, name: &str) -> ObjId {
    snap.store
        .ids()
        .find(|&i| snap.store.str(snap.store.object(i).name) == name)
        .expect("object")
}

/// The timing of each named object, with `written` handed to the running GC.
fn timings(snap: &Snapshot, version: &str, written: &[&str], names: &[&str]) -> Vec<Timing> {
    let gc = GarbageCollector::new(snap, KubeVersion::parse(version).expect("version"));
    let (steady, start) = (Plan::steady_state(&gc), Plan::restart(&gc));
    let t = Timeline::new(&gc, &steady, &start, written.iter().map(|n| id(snap, n)));
    names.iter().map(|n| t.timing(id(snap, n))).collect()
}

/// The bundled incident's shape: a StatefulSet in `monitoring` owned by an object in
/// `kube-system`, with a Pod of its own.
fn incident() -> Snapshot {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "kube-system", "owner", "u-owner");
    c.obj("apps/v1", "StatefulSet", "monitoring", "exporter", "u-sts")
        .owner("v1", "ConfigMap", "owner", "u-owner");
    c.obj("v1", "Pod", "monitoring", "exporter-0", "u-pod")
        .owner("apps/v1", "StatefulSet", "exporter", "u-sts");
    c.obj("v1", "ConfigMap", "monitoring", "plain", "u-plain");
    c.build()
}

#[test]
fn a_cross_namespace_reference_that_sits_waits_for_the_next_start_and_so_does_its_cascade() {
    let snap = incident();
    let t = timings(&snap, "1.21", &[], &["exporter", "exporter-0", "plain"]);
    assert_eq!(
        (t[0].when, t[0].reason, t[0].after),
        (When::Restart, Some(Reason::Sitting), None)
    );
    // The Pod goes after its StatefulSet, at the same moment: the start.
    assert_eq!(
        (t[1].when, t[1].reason, t[1].after),
        (
            When::Restart,
            Some(Reason::Sitting),
            Some(id(&snap, "exporter"))
        )
    );
    assert_eq!(t[2].when, When::Never);
}

#[test]
fn the_same_reference_written_is_acted_on_at_once() {
    let snap = incident();
    let t = timings(&snap, "1.21", &["exporter"], &["exporter", "exporter-0"]);
    assert_eq!((t[0].when, t[0].reason), (When::Now, Some(Reason::Written)));
    assert_eq!(
        (t[1].when, t[1].after),
        (When::Now, Some(id(&snap, "exporter")))
    );
}

#[test]
fn before_1_20_the_running_gc_never_checks_a_cross_namespace_reference() {
    let snap = incident();
    let t = timings(&snap, "1.19", &[], &["exporter"]);
    assert_eq!(
        (t[0].when, t[0].reason),
        (When::Restart, Some(Reason::NotRechecked))
    );
    // Written on 1.19, the graph builder links it without a check: still only a start.
    let t = timings(&snap, "1.19", &["exporter"], &["exporter"]);
    assert_eq!(
        (t[0].when, t[0].reason),
        (When::Restart, Some(Reason::NotRechecked))
    );
}

/// N1: the reference's name edited in place, same UID, same namespace.
#[test]
fn a_reference_edited_in_place_waits_for_the_next_start() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "monitoring", "localowner", "u-local");
    c.obj("v1", "ConfigMap", "monitoring", "inplace", "u-inplace")
        .owner("v1", "ConfigMap", "localowner-old", "u-local");
    let snap = c.build();
    let t = timings(&snap, "1.20.2", &[], &["inplace"]);
    assert_eq!(
        (t[0].when, t[0].reason),
        (When::Restart, Some(Reason::Sitting))
    );
}

#[test]
fn a_missing_owner_cannot_tell_whether_the_running_gc_saw_it_go() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "orphaned", "u-dep").owner(
        "apps/v1",
        "ReplicaSet",
        "gone",
        "u-gone",
    );
    c.obj("v1", "ConfigMap", "shop", "child", "u-child").owner(
        "v1",
        "ConfigMap",
        "orphaned",
        "u-dep",
    );
    let snap = c.build();
    let t = timings(&snap, "1.30", &[], &["orphaned", "child"]);
    assert_eq!(
        (t[0].when, t[0].reason),
        (When::NowOrRestart, Some(Reason::OwnerGone))
    );
    assert_eq!(
        (t[1].when, t[1].after),
        (When::NowOrRestart, Some(id(&snap, "orphaned")))
    );
}

#[test]
fn a_foreground_deletion_in_progress_is_worked_through_now() {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "shop", "web", "u-web")
        .deleting()
        .finalizers(&["foregroundDeletion"]);
    c.obj("apps/v1", "ReplicaSet", "shop", "web-1", "u-rs")
        .owner("apps/v1", "Deployment", "web", "u-web")
        .block(true);
    let snap = c.build();
    let t = timings(&snap, "1.30", &[], &["web", "web-1"]);
    assert_eq!(
        (t[0].when, t[0].reason),
        (When::Now, Some(Reason::InFlight))
    );
    assert_eq!(
        (t[1].when, t[1].reason),
        (When::Now, Some(Reason::InFlight))
    );
}

#[test]
fn audit_findings_carry_the_timeline_and_say_it() {
    let snap = incident();
    let gc = GarbageCollector::new(&snap, KubeVersion::parse("1.21").expect("version"));
    let a = crate::diagnose::audit(&gc);
    let f = a
        .findings
        .iter()
        .find(|f| f.code == Code::CrossNamespaceOwner)
        .expect("GC004");
    assert_eq!(f.when.map(|t| t.when), Some(When::Restart));
    assert!(
        f.consequence
            .ends_with(" at the next kube-controller-manager restart"),
        "{}",
        f.consequence
    );
    // The manifest that writes it: at once.
    let written = [id(&snap, "exporter")];
    let a = crate::diagnose::audit::audit_written(&gc, &written);
    let f = a
        .findings
        .iter()
        .find(|f| f.code == Code::CrossNamespaceOwner)
        .expect("GC004");
    assert_eq!(f.when.map(|t| t.when), Some(When::Now));
    assert!(f.consequence.ends_with(" at once"), "{}", f.consequence);
}

#[test]
fn check_restart_says_when_the_running_gc_does_not_wait() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "orphaned", "u-dep").owner(
        "apps/v1",
        "ReplicaSet",
        "gone",
        "u-gone",
    );
    c.obj("v1", "ConfigMap", "kube-system", "owner", "u-owner");
    c.obj("v1", "ConfigMap", "shop", "cross", "u-cross").owner(
        "v1",
        "ConfigMap",
        "owner",
        "u-owner",
    );
    let snap = c.build();
    let gc = GarbageCollector::new(&snap, KubeVersion::parse("1.30").expect("version"));
    let f = crate::diagnose::restart::timed_findings(&gc);
    let on = |name: &str| {
        f.iter()
            .find(|f| f.code == Code::RestartAction && f.object == Some(id(&snap, name)))
            .expect("GC015")
    };
    assert_eq!(on("cross").when.map(|t| t.when), Some(When::Restart));
    assert!(!on("cross").consequence.contains("running GC"));
    assert_eq!(
        on("orphaned").when.map(|t| t.when),
        Some(When::NowOrRestart)
    );
    assert!(
        on("orphaned")
            .consequence
            .ends_with("it is acting on it now"),
        "{}",
        on("orphaned").consequence
    );
}
