//! The engine against the whole-cluster audit, and its transitions for the GC's cases.

use super::engine::Engine;
use super::{Cause, GcAction, Transition, TransitionKind, When};
use crate::catalog::KubeVersion;
use crate::model::meta::Labels;
use crate::model::{MetaIn, OwnerRefIn, ResourceId};
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;
use crate::testkit::generate::{GenOptions, generate};
use std::borrow::Cow;
use std::collections::BTreeMap;

fn meta(ns: &str, name: &str, uid: &str, refs: &[(&str, &str, &str, &str)]) -> MetaIn<'static> {
    MetaIn {
        namespace: Cow::Owned(ns.into()),
        name: Cow::Owned(name.into()),
        uid: Cow::Owned(uid.into()),
        resource_version: Cow::Borrowed("1"),
        creation_timestamp: Cow::Borrowed("2026-01-01T00:00:00Z"),
        deletion_timestamp: None,
        finalizers: vec![],
        labels: Labels::default(),
        owner_references: refs
            .iter()
            .map(|&(av, kind, name, uid)| OwnerRefIn {
                api_version: Cow::Owned(av.into()),
                kind: Cow::Owned(kind.into()),
                name: Cow::Owned(name.into()),
                uid: Cow::Owned(uid.into()),
                controller: None,
                block_owner_deletion: None,
            })
            .collect(),
        ignore: None,
    }
}

fn row(snap: &Snapshot, group: &str, kind: &str) -> ResourceId {
    let i = snap
        .resources
        .iter()
        .position(|r| r.group == group && r.kind == kind && r.monitored())
        .expect("registered kind");
    ResourceId(i as u32)
}

/// (id, severity, action) of every finding an engine holds.
fn held(e: &Engine) -> BTreeMap<String, (String, Option<GcAction>)> {
    e.held()
        .map(|(id, h)| {
            (
                id.clone(),
                (h.finding.severity.as_str().to_owned(), h.action),
            )
        })
        .collect()
}

/// What a fresh engine (a whole-cluster audit) finds on the engine's world as it is now.
fn full(e: &Engine) -> BTreeMap<String, (String, Option<GcAction>)> {
    let w = e.world();
    let (snap, _) = w.mini(&w.uids());
    let mut fresh = Engine::new(snap, Some(e.gc_version()));
    fresh.evaluate_all(Cause::Initial);
    held(&fresh)
}

fn find<'a>(ts: &'a [Transition], code: &str, name: &str) -> Option<&'a Transition> {
    ts.iter().find(|t| {
        t.finding.code.id() == code && t.finding.object.as_ref().is_some_and(|o| o.name == name)
    })
}

#[test]
fn incremental_evaluation_matches_a_whole_cluster_audit() {
    let generated = generate(&GenOptions {
        objects: 1500,
        seed: 7,
        dangling_rate: 0.01,
        cross_namespace_rate: 0.005,
        unresolvable_rate: 0.005,
        foreground_rate: 0.005,
        orphan_rate: 0.005,
        ..GenOptions::default()
    });
    let whole = generated.to_snapshot();
    // The engine starts on the first 60 % of the objects (owners come first); the rest
    // arrives as events, interleaved with deletions and reference edits.
    let cut = generated.objects.len() * 6 / 10;
    let mut base = crate::snapshot::SnapshotBuilder::new(whole.provenance.clone());
    for r in &whole.resources {
        base.add_resource(r.clone());
    }
    let rid = |o: &crate::testkit::generate::GenObj| {
        let s = o.spec();
        let i = whole
            .resources
            .iter()
            .position(|r| r.group == s.group && r.kind == s.kind && r.version == s.version)
            .expect("kind");
        ResourceId(i as u32)
    };
    for o in &generated.objects[..cut] {
        base.add_object(rid(o), &generated.meta(o));
    }
    let mut base = base.finish();
    base.store.sort_objects();
    let mut e = Engine::new(base, None);
    e.evaluate_all(Cause::Initial);
    assert_eq!(held(&e), full(&e), "initial");
    let mut step = 0;
    for (i, o) in generated.objects[cut..].iter().enumerate() {
        e.apply(rid(o), &generated.meta(o), None);
        // Every 7th new object: delete an earlier one (an owner, often).
        if i % 7 == 3 {
            let victim = &generated.objects[(i * 13) % cut];
            e.delete(&crate::testkit::generate::format_uid(victim.uid), None);
        }
        // Every 11th: point one of its references elsewhere (another name: a coordinate
        // mismatch), or drop them all.
        if i % 11 == 5 && !o.owner_refs.is_empty() {
            let mut m = generated.meta(o);
            if i % 2 == 0 {
                m.owner_references[0].name = Cow::Owned("renamed".into());
            } else {
                m.owner_references.clear();
            }
            e.apply(rid(o), &m, None);
        }
        if i % 20 == 19 {
            e.flush(Cause::Event);
            step += 1;
            if step % 5 == 0 {
                assert_eq!(held(&e), full(&e), "after {} events", i + 1);
            }
        }
    }
    e.flush(Cause::Event);
    assert_eq!(held(&e), full(&e), "at the end");
    assert!(
        e.held().count() > 20,
        "the scenario has findings to compare"
    );
    // Incremental: far fewer objects evaluated than a whole audit per flush would.
    let per_eval = e.stats.objects_evaluated / e.stats.evaluations.max(1);
    assert!(per_eval < 300, "{per_eval} objects per evaluation");
}

fn small_cluster() -> Snapshot {
    let mut c = Cluster::new();
    c.server_version("v1.20.2");
    c.obj("v1", "ConfigMap", "a", "owner", "uid-owner");
    c.obj("v1", "ConfigMap", "a", "dep", "uid-dep")
        .owner("v1", "ConfigMap", "owner", "uid-owner");
    c.obj("v1", "ConfigMap", "b", "other", "uid-other");
    c.build()
}

#[test]
fn when_the_gc_acts_now_at_restart_or_never() {
    let snap = small_cluster();
    let cm = row(&snap, "", "ConfigMap");
    let mut e = Engine::new(snap, None);
    assert!(e.evaluate_all(Cause::Initial).is_empty());

    // The incident's shape on GC 1.20: a reference edited in place (same UID, another name)
    // is a changed reference, which the running GC does not re-check; a restart does.
    e.apply(
        cm,
        &meta(
            "a",
            "dep",
            "uid-dep",
            &[("v1", "ConfigMap", "renamed", "uid-owner")],
        ),
        None,
    );
    let ts = e.flush(Cause::Event);
    let t = find(&ts, "GC003", "dep").expect("GC003 for dep");
    assert_eq!(t.kind, TransitionKind::Appeared);
    assert_eq!(t.when, Some(When::Restart), "{ts:?}");
    assert!(matches!(t.action, Some(GcAction::Delete { .. })));

    // A new object whose owner does not exist: the GC verifies the virtual owner now.
    e.apply(
        cm,
        &meta(
            "a",
            "orphaned",
            "uid-x",
            &[("v1", "ConfigMap", "ghost", "uid-ghost")],
        ),
        None,
    );
    let ts = e.flush(Cause::Event);
    assert_eq!(
        find(&ts, "GC001", "orphaned").and_then(|t| t.when),
        Some(When::Now)
    );

    // A new cross-namespace reference to an owner the GC has observed: v1.20 checks the
    // namespace when it links the dependent (§1.5) and acts now.
    e.apply(
        cm,
        &meta(
            "b",
            "cross",
            "uid-cross",
            &[("v1", "ConfigMap", "owner", "uid-owner")],
        ),
        None,
    );
    let ts = e.flush(Cause::Event);
    let t = find(&ts, "GC004", "cross").expect("GC004");
    assert_eq!(t.when, Some(When::Now));

    // The GC deletes them: resolved, the object gone; nothing else changes.
    e.delete("uid-x", None);
    e.delete("uid-cross", None);
    let ts = e.flush(Cause::Event);
    assert_eq!(ts.len(), 2, "{ts:?}");
    assert!(
        ts.iter()
            .all(|t| t.kind == TransitionKind::Resolved && t.object_gone)
    );
    // The owner goes: dep's reference is now dangling, and the delete event queues it.
    e.delete("uid-owner", None);
    let ts = e.flush(Cause::Event);
    assert_eq!(
        find(&ts, "GC001", "dep").and_then(|t| t.when),
        Some(When::Now)
    );
    assert!(find(&ts, "GC003", "dep").is_some_and(|t| t.kind == TransitionKind::Resolved));
}

/// Under load the owner's and its dependent's deletions can arrive in one batch. What the
/// owner's deletion enqueued (the dependent) must be evaluated before the dependent's own
/// deletion is applied, or the GC's action on it is never predicted, only seen resolved.
#[test]
fn a_deletion_the_pending_batch_enqueued_is_predicted_before_it_is_applied() {
    let snap = small_cluster();
    let mut e = Engine::new(snap, None);
    assert!(e.evaluate_all(Cause::Initial).is_empty());
    e.delete("uid-owner", None);
    assert!(
        e.must_flush_before("uid-dep"),
        "the owner's deletion put dep on the GC's queue: flush before dep's own event"
    );
    let ts = e.flush(Cause::Event);
    let t = find(&ts, "GC001", "dep").expect("GC001 for dep");
    assert_eq!(
        (t.kind, t.when),
        (TransitionKind::Appeared, Some(When::Now))
    );
    assert!(matches!(t.action, Some(GcAction::Delete { .. })));
    // An object nothing pending touches does not force a flush.
    e.delete("uid-dep", None);
    assert!(!e.must_flush_before("uid-other"));
}

#[test]
fn before_1_20_a_cross_namespace_reference_waits_for_a_restart() {
    let snap = small_cluster();
    let cm = row(&snap, "", "ConfigMap");
    let mut e = Engine::new(snap, Some(KubeVersion::v1(19)));
    e.evaluate_all(Cause::Initial);
    e.apply(
        cm,
        &meta(
            "b",
            "cross",
            "uid-cross",
            &[("v1", "ConfigMap", "owner", "uid-owner")],
        ),
        None,
    );
    let ts = e.flush(Cause::Event);
    let t = find(&ts, "GC004", "cross").expect("GC004");
    assert_eq!(t.when, Some(When::Restart), "{ts:?}");
}

#[test]
fn a_relist_reconciles_without_duplicate_or_lost_transitions() {
    let snap = small_cluster();
    let cm = row(&snap, "", "ConfigMap");
    let mut e = Engine::new(snap, None);
    e.evaluate_all(Cause::Initial);
    e.apply(
        cm,
        &meta(
            "b",
            "gone-later",
            "uid-g",
            &[("v1", "ConfigMap", "ghost", "uid-ghost")],
        ),
        None,
    );
    let first = e.flush(Cause::Event);
    assert_eq!(first.len(), 1);
    // While the watch was down (410): gone-later was deleted, dep got a dangling second
    // owner, a new object appeared; `other` did not change.
    let listed = vec![
        meta("a", "owner", "uid-owner", &[]),
        meta(
            "a",
            "dep",
            "uid-dep",
            &[
                ("v1", "ConfigMap", "owner", "uid-owner"),
                ("v1", "ConfigMap", "ghost2", "uid-ghost2"),
            ],
        ),
        meta("b", "other", "uid-other", &[]),
        meta(
            "b",
            "new",
            "uid-new",
            &[("v1", "ConfigMap", "ghost", "uid-ghost")],
        ),
    ];
    e.reconcile(cm, &listed);
    let ts = e.flush(Cause::Relist);
    let kinds: Vec<(TransitionKind, &str, &str)> = ts
        .iter()
        .map(|t| {
            (
                t.kind,
                t.finding.code.id(),
                t.finding.object.as_ref().map_or("", |o| o.name.as_str()),
            )
        })
        .collect();
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    assert!(kinds.contains(&(TransitionKind::Resolved, "GC001", "gone-later")));
    assert!(kinds.contains(&(TransitionKind::Appeared, "GC001", "dep")));
    assert!(kinds.contains(&(TransitionKind::Appeared, "GC001", "new")));
    // The same list again (another 410): nothing changed, nothing is reported.
    e.reconcile(cm, &listed);
    assert!(e.flush(Cause::Relist).is_empty());
    // And a full re-evaluation (a watch restart with the same state) repeats nothing.
    assert!(e.evaluate_all(Cause::Resync).is_empty());
}

#[test]
fn a_blocked_foreground_deletion_appears_then_resolves_when_the_blocker_goes() {
    let mut c = Cluster::new();
    c.server_version("v1.20.2");
    c.obj("apps/v1", "Deployment", "a", "web", "uid-web");
    c.obj("v1", "Pod", "a", "blocker", "uid-pod")
        .owner("apps/v1", "Deployment", "web", "uid-web")
        .block(true)
        .finalizers(&["example.com/hold"]);
    let snap = c.build();
    let deploy = row(&snap, "apps", "Deployment");
    let pod = row(&snap, "", "Pod");
    let mut e = Engine::new(snap, None);
    e.evaluate_all(Cause::Initial);
    // kubectl delete deployment web --cascade=foreground
    let mut m = meta("a", "web", "uid-web", &[]);
    // Now: a foreground deletion younger than five minutes is not "stalled".
    m.deletion_timestamp = Some(Cow::Owned(crate::snapshot::now_rfc3339()));
    m.finalizers = vec![Cow::Borrowed("foregroundDeletion")];
    e.apply(deploy, &m, None);
    // The GC deletes the pod, which its finalizer holds.
    let mut p = meta(
        "a",
        "blocker",
        "uid-pod",
        &[("apps/v1", "Deployment", "web", "uid-web")],
    );
    p.owner_references[0].block_owner_deletion = Some(true);
    p.finalizers = vec![Cow::Borrowed("example.com/hold")];
    p.deletion_timestamp = Some(Cow::Owned(crate::snapshot::now_rfc3339()));
    e.flush(Cause::Event);
    e.apply(pod, &p, None);
    let ts = e.flush(Cause::Event);
    let held: Vec<String> = e.held().map(|(id, _)| id.clone()).collect();
    assert!(
        held.iter().any(|id| id.starts_with("GC008/uid-web/")),
        "GC008 held: {held:?} {ts:?}"
    );
    let gc008 = e
        .held()
        .find(|(id, _)| id.starts_with("GC008/"))
        .map(|(_, h)| h.when);
    assert_eq!(gc008, Some(Some(When::Never)));
    // The finalizer is removed: the pod goes, the GC finishes the deployment's deletion.
    e.delete("uid-pod", None);
    let ts = e.flush(Cause::Event);
    assert!(
        ts.iter()
            .any(|t| t.kind == TransitionKind::Resolved && t.id.starts_with("GC008/uid-web/")),
        "{ts:?}"
    );
}

#[test]
fn a_restarted_watch_with_its_state_file_reports_only_what_changed() {
    let mut c = Cluster::new();
    c.server_version("v1.20.2");
    c.obj("v1", "ConfigMap", "a", "one", "uid-1")
        .owner("v1", "ConfigMap", "ghost", "uid-ghost");
    c.obj("v1", "ConfigMap", "a", "two", "uid-2")
        .owner("v1", "ConfigMap", "ghost", "uid-ghost");
    let mut first = Engine::new(c.build(), None);
    assert_eq!(first.evaluate_all(Cause::Initial).len(), 2);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    let entries = first
        .held()
        .map(|(id, h)| super::state::Entry::of(id, h))
        .collect();
    super::state::save(&path, entries).unwrap();

    // The same cluster: nothing to report.
    let load = || -> Vec<(String, super::engine::Held)> {
        super::state::load(&path)
            .unwrap()
            .iter()
            .map(|e| (e.id.clone(), e.held().expect("readable entry")))
            .collect()
    };
    let mut again = Engine::new(c.build(), None);
    again.preload(load());
    assert!(again.evaluate_all(Cause::Initial).is_empty());

    // `two` was deleted while the watch was down: exactly that resolves.
    let mut c2 = Cluster::new();
    c2.server_version("v1.20.2");
    c2.obj("v1", "ConfigMap", "a", "one", "uid-1")
        .owner("v1", "ConfigMap", "ghost", "uid-ghost");
    let mut later = Engine::new(c2.build(), None);
    later.preload(load());
    let ts = later.evaluate_all(Cause::Initial);
    assert_eq!(ts.len(), 1, "{ts:?}");
    assert_eq!(ts[0].kind, TransitionKind::Resolved);
    assert!(ts[0].object_gone);
    assert_eq!(ts[0].finding.object.as_ref().unwrap().name, "two");
    assert!(
        super::state::load(&dir.path().join("missing.json"))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn compaction_and_a_new_resource_table_keep_the_findings_consistent() {
    let mut c = Cluster::new();
    c.server_version("v1.20.2");
    c.resource("cache.example.com", "v1", "Redis", "redis", true);
    c.obj("cache.example.com/v1", "Redis", "a", "cache", "uid-redis");
    c.obj("v1", "ConfigMap", "a", "cfg", "uid-cfg").owner(
        "cache.example.com/v1",
        "Redis",
        "cache",
        "uid-redis",
    );
    c.obj("v1", "ConfigMap", "a", "lost", "uid-lost").owner(
        "v1",
        "ConfigMap",
        "ghost",
        "uid-ghost",
    );
    let snap = c.build();
    let cm = row(&snap, "", "ConfigMap");
    let mut e = Engine::new(snap, None);
    assert_eq!(e.evaluate_all(Cause::Initial).len(), 1);
    for i in 0..50 {
        e.apply(
            cm,
            &meta("b", &format!("n{i}"), &format!("uid-n{i}"), &[]),
            None,
        );
    }
    e.flush(Cause::Event);
    let before = held(&e);
    // Folding the overlay into a new base changes no finding.
    assert!(e.world().overlay_len() > 0);
    assert!(e.evaluate_all(Cause::Resync).is_empty());
    assert_eq!(e.world().overlay_len(), 0);
    assert_eq!(held(&e), before);
    assert_eq!(e.world().len(), 53);
    // The CRD goes away: its objects with it, and cfg's owner kind no longer maps.
    let table: Vec<_> = e
        .world()
        .resources()
        .iter()
        .filter(|r| r.group != "cache.example.com")
        .cloned()
        .collect();
    let remap: Vec<Option<ResourceId>> = e
        .world()
        .resources()
        .iter()
        .map(|r| {
            table
                .iter()
                .position(|t| t.group == r.group && t.version == r.version && t.kind == r.kind)
                .map(|i| ResourceId(i as u32))
        })
        .collect();
    e.retable(table, remap, &[]);
    let ts = e.evaluate_all(Cause::Resync);
    assert_eq!(e.world().len(), 52);
    let cfg = find(&ts, "GC006", "cfg").expect("unresolvable owner kind");
    assert_eq!(cfg.when, Some(When::Never));
}

#[test]
fn references_diffs_like_upstream() {
    use crate::model::{OwnerRef, Sym};
    let r = |uid: u32, block: Option<bool>| OwnerRef {
        api_version: Sym(1),
        kind: Sym(2),
        name: Sym(3),
        uid: Sym(uid),
        controller: None,
        block_owner_deletion: block,
    };
    let (added, removed, changed) = super::queue::references_diffs(
        &[r(10, Some(true)), r(11, None), r(12, None)],
        &[r(10, Some(false)), r(12, None), r(13, None)],
    );
    assert_eq!(added, vec![r(13, None)]);
    assert_eq!(removed, vec![r(11, None)]);
    assert_eq!(changed, vec![(r(10, Some(true)), r(10, Some(false)))]);
}

/// The soak's race (a live run missed one GC deletion): a dependent waits on the running GC's
/// queue to have its cross-namespace reference stripped, and its other reference is renamed
/// before the worker takes it. The worker reads the object when it takes it, so it deletes the
/// object now (both references dangle) — unless it read it before the rename, when it strips
/// the reference and the renamed one waits for a restart. Both are reported; the worker's
/// write, when it comes, settles which.
#[test]
fn an_object_edited_while_it_waits_for_a_worker_is_acted_on_as_edited_or_as_read_before() {
    let mut c = Cluster::new();
    c.server_version("v1.20.2");
    c.obj("v1", "ConfigMap", "a", "owner", "uid-owner");
    c.obj("v1", "ConfigMap", "b", "elsewhere", "uid-elsewhere");
    let snap = c.build();
    let cm = row(&snap, "", "ConfigMap");
    let both = [
        ("v1", "ConfigMap", "owner", "uid-owner"),
        ("v1", "ConfigMap", "elsewhere", "uid-elsewhere"),
    ];
    let renamed = [
        ("v1", "ConfigMap", "renamed", "uid-owner"),
        ("v1", "ConfigMap", "elsewhere", "uid-elsewhere"),
    ];
    let start = |e: &mut Engine| {
        e.apply(cm, &meta("a", "dep", "uid-dep", &both), None);
        let ts = e.flush(Cause::Event);
        let t = find(&ts, "GC004", "dep").expect("GC004 for dep");
        assert_eq!(
            (t.when, t.action, t.if_read_before),
            (Some(When::Now), Some(GcAction::RemoveOwnerReferences), None),
            "{ts:?}"
        );
        e.apply(cm, &meta("a", "dep", "uid-dep", &renamed), None);
        e.flush(Cause::Event)
    };
    let deleted_now = |t: &Transition| {
        t.when == Some(When::Now)
            && matches!(t.action, Some(GcAction::Delete { .. }))
            && t.if_read_before == Some(GcAction::RemoveOwnerReferences)
    };

    // Read after the rename: the worker deletes it.
    let mut e = Engine::new(snap.clone(), None);
    e.evaluate_all(Cause::Initial);
    let ts = start(&mut e);
    let renamed_ref = find(&ts, "GC003", "dep").expect("GC003 for the renamed reference");
    assert_eq!(renamed_ref.kind, TransitionKind::Appeared);
    assert!(deleted_now(renamed_ref), "{renamed_ref:?}");
    let cross = find(&ts, "GC004", "dep").expect("GC004 changes its action");
    assert_eq!(cross.kind, TransitionKind::Changed);
    assert!(deleted_now(cross), "{cross:?}");
    assert_eq!(cross.previous_action, Some(GcAction::RemoveOwnerReferences));
    // An edit that is not a worker's write leaves both outcomes open.
    let mut labelled = meta("a", "dep", "uid-dep", &renamed);
    labelled.resource_version = Cow::Borrowed("3");
    e.apply(cm, &labelled, None);
    let ts = e.flush(Cause::Event);
    assert!(ts.is_empty(), "nothing changed: {ts:?}");
    e.delete("uid-dep", None);
    let ts = e.flush(Cause::Event);
    assert_eq!(ts.len(), 2, "{ts:?}");
    assert!(
        ts.iter()
            .all(|t| t.kind == TransitionKind::Resolved && t.object_gone)
    );

    // Read before the rename: the worker's patch strips the cross-namespace reference after
    // the rename; the renamed one waits for a restart.
    let mut e = Engine::new(snap.clone(), None);
    e.evaluate_all(Cause::Initial);
    start(&mut e);
    e.apply(cm, &meta("a", "dep", "uid-dep", &renamed[..1]), None);
    let ts = e.flush(Cause::Event);
    let t = find(&ts, "GC003", "dep").expect("GC003 changes");
    assert_eq!(
        (t.kind, t.when, t.if_read_before, t.previous.map(|p| p.1)),
        (
            TransitionKind::Changed,
            Some(When::Restart),
            None,
            Some(Some(When::Now))
        ),
        "{ts:?}"
    );
    assert!(find(&ts, "GC004", "dep").is_some_and(|t| t.kind == TransitionKind::Resolved));
}

#[test]
fn a_namespace_deleted_after_the_first_lists_is_terminating_since_its_deletion_timestamp() {
    // The first lists were read long before (captured_at 2026-01-02); the namespace was deleted
    // an hour ago and is held by its content's finalizer. Its age is measured from
    // deletionTimestamp to now, not to when the lists were read (which would clamp to 0s).
    let now = crate::snapshot::parse_rfc3339(&crate::snapshot::now_rfc3339()).unwrap();
    let an_hour_ago = crate::snapshot::format_rfc3339(now - 3600);
    let mut c = Cluster::new();
    c.server_version("v1.20.2");
    c.obj("v1", "Namespace", "", "doomed", "uid-ns")
        .deleting_since(&an_hour_ago);
    c.obj("v1", "ConfigMap", "doomed", "held", "uid-cm")
        .finalizers(&["example.com/hold"])
        .deleting_since(&an_hour_ago);
    let mut e = Engine::new(c.build(), None);
    let ts = e.evaluate_all(Cause::Initial);
    let gc023 = find(&ts, "GC023", "doomed").expect("GC023 for the namespace");
    assert!(
        ["terminating for 60m:", "terminating for 61m:"]
            .iter()
            .any(|p| gc023.finding.message.starts_with(p)),
        "{}",
        gc023.finding.message
    );
}
