//! `--apply` against the in-memory API server: request bytes, fallbacks, re-verification
//! skips, stops, the record, and end states equal to the plan's prediction.

use super::ObjectKey;
use super::fake::{FakeCluster, Recorded};
use super::*;
use crate::catalog::KubeVersion;
use crate::gc::plan::Plan;
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;
use serde_json::Value;

const CR_GROUP: &str = "example.com";

fn obj(snap: &Snapshot, name: &str) -> ObjId {
    snap.store
        .ids()
        .find(|&id| snap.store.str(snap.store.object(id).name) == name)
        .unwrap_or_else(|| panic!("no object {name}"))
}

fn key(snap: &Snapshot, name: &str) -> ObjectKey {
    ObjectKey::of(snap, obj(snap, name))
}

struct Run {
    summary: Summary,
    record: Vec<Value>,
}

async fn apply_plan(
    a: &GarbageCollector<'_>,
    plan: &Plan,
    fake: &FakeCluster,
    stop: &AtomicBool,
) -> Run {
    let actions: Vec<&Action> = plan.actions.iter().collect();
    let header = Header {
        kind: "ApplyRecord",
        ..Header::default()
    };
    let mut rec = Record::new(Vec::new(), &header).unwrap();
    let opts = Options {
        qps: 10_000.0,
        ..Options::default()
    };
    let summary = run(fake, a, &actions, &opts, &mut rec, stop, &mut |_, _, _| {}).await;
    let text = String::from_utf8(rec.into_inner()).unwrap();
    let record = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("every record line is JSON"))
        .collect();
    Run { summary, record }
}

async fn collect_and_apply(snap: &Snapshot, version: u32, fake: &FakeCluster) -> Run {
    let a = GarbageCollector::new(snap, KubeVersion::v1(version));
    let plan = Plan::steady_state(&a);
    apply_plan(&a, &plan, fake, &AtomicBool::new(false)).await
}

fn writes(fake: &FakeCluster) -> Vec<(String, String, u16)> {
    fake.writes()
        .into_iter()
        .map(|r: Recorded| (format!("{} {}", r.method, r.key.path()), r.body, r.status))
        .collect()
}

fn entries(run: &Run) -> Vec<&Value> {
    run.record
        .iter()
        .filter(|l| l["kind"] == "ApplyEntry")
        .collect()
}

/// The fake's final state equals the plan's predicted end state, object by object.
fn assert_matches_plan(snap: &Snapshot, plan: &Plan, fake: &FakeCluster) {
    let s = &snap.store;
    for id in s.ids() {
        let name = s.str(s.object(id).name);
        let live = fake.object(&ObjectKey::of(snap, id));
        if !plan.end.exists(id) {
            assert!(
                live.is_none(),
                "{name}: the plan deletes it, the fake has {live:?}"
            );
            continue;
        }
        let live = live.unwrap_or_else(|| panic!("{name}: the plan keeps it, the fake deleted it"));
        assert_eq!(
            live.terminating(),
            plan.end.being_deleted(id),
            "{name}: terminating"
        );
        let fins: Vec<&str> = plan
            .end
            .finalizers(s, id)
            .iter()
            .map(|f| s.str(*f))
            .collect();
        assert_eq!(live.finalizers, fins, "{name}: finalizers");
        let refs: Vec<(&str, Option<bool>)> = plan
            .end
            .owner_refs(s, id)
            .iter()
            .map(|r| (s.str(r.uid), r.block_owner_deletion))
            .collect();
        let live_refs: Vec<(&str, Option<bool>)> = live
            .owner_references
            .iter()
            .map(|r| (r.uid.as_str(), r.block_owner_deletion))
            .collect();
        assert_eq!(live_refs, refs, "{name}: ownerReferences");
    }
}

// ---------------------------------------------------------------------------------------------
// Request bodies, byte for byte

#[test]
fn delete_bodies_are_client_go_delete_options() {
    assert_eq!(
        String::from_utf8(patch::delete("u1", None, Some(Policy::Background))).unwrap(),
        r#"{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"u1"},"propagationPolicy":"Background"}"#
    );
    assert_eq!(
        String::from_utf8(patch::delete("u1", Some("42"), Some(Policy::Foreground))).unwrap(),
        r#"{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"u1","resourceVersion":"42"},"propagationPolicy":"Foreground"}"#
    );
    assert_eq!(
        String::from_utf8(patch::delete("u1", None, None)).unwrap(),
        r#"{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"u1"}}"#
    );
}

#[test]
fn owner_reference_removal_bodies_follow_the_gc_version() {
    // TestGeneratePatchBytesForDelete's expected bytes (≥ 1.23) and the older format string.
    assert_eq!(
        String::from_utf8(patch::remove_refs_smp("ss2", &["ss1", "ss2"], true)).unwrap(),
        r#"{"metadata":{"uid":"ss2","ownerReferences":[{"$patch":"delete","uid":"ss1"},{"$patch":"delete","uid":"ss2"}]}}"#
    );
    assert_eq!(
        String::from_utf8(patch::remove_refs_smp("d", &["o"], false)).unwrap(),
        r#"{"metadata":{"ownerReferences":[{"$patch":"delete","uid":"o"}],"uid":"d"}}"#
    );
    let keep = LiveRef {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: "a".into(),
        uid: "ua".into(),
        controller: Some(true),
        block_owner_deletion: None,
    };
    assert_eq!(
        String::from_utf8(patch::refs_jmp("7", std::slice::from_ref(&keep))).unwrap(),
        r#"{"metadata":{"resourceVersion":"7","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"ua","controller":true}]}}"#
    );
    assert_eq!(
        String::from_utf8(patch::refs_jmp("7", &[])).unwrap(),
        r#"{"metadata":{"resourceVersion":"7","ownerReferences":null}}"#
    );
    let blocking = LiveRef {
        block_owner_deletion: Some(true),
        ..keep.clone()
    };
    assert_eq!(
        String::from_utf8(patch::unblock_smp("d", std::slice::from_ref(&blocking))).unwrap(),
        r#"{"metadata":{"uid":"d","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"ua","controller":true,"blockOwnerDeletion":false}]}}"#
    );
    assert_eq!(
        String::from_utf8(patch::unblock_jmp("9", &[keep, blocking])).unwrap(),
        r#"{"metadata":{"resourceVersion":"9","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"ua","controller":true,"blockOwnerDeletion":false},{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"ua","controller":true,"blockOwnerDeletion":false}]}}"#
    );
    assert_eq!(
        String::from_utf8(patch::finalizers_jmp("3", &["example.com/x".to_owned()])).unwrap(),
        r#"{"metadata":{"resourceVersion":"3","finalizers":["example.com/x"]}}"#
    );
    assert_eq!(
        String::from_utf8(patch::finalizers_jmp("3", &[])).unwrap(),
        r#"{"metadata":{"resourceVersion":"3","finalizers":null}}"#
    );
}

// ---------------------------------------------------------------------------------------------
// Scenarios on the fake

fn dangling() -> Cluster {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "orphaned", "u-dep")
        .owner("v1", "ConfigMap", "gone", "u-gone")
        .block(true);
    c
}

#[tokio::test]
async fn dangling_owner_is_deleted_with_the_uid_precondition() {
    let snap = dangling().build();
    let fake = FakeCluster::from_snapshot(&snap);
    let run = collect_and_apply(&snap, 20, &fake).await;
    assert!(run.summary.complete());
    assert_eq!(run.summary.done(), 1);
    assert_eq!(
        writes(&fake),
        vec![(
            "DELETE /api/v1/namespaces/ns/configmaps/orphaned".to_owned(),
            r#"{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"u-dep"},"propagationPolicy":"Background"}"#.to_owned(),
            200
        )]
    );
    assert!(fake.object(&key(&snap, "orphaned")).is_none());
    // Verification read the object and looked the owner up where the GC does.
    let gets: Vec<String> = fake
        .requests()
        .iter()
        .filter(|r| r.method == "GET")
        .map(|r| r.key.path())
        .collect();
    assert_eq!(
        gets,
        vec![
            "/api/v1/namespaces/ns/configmaps/orphaned",
            "/api/v1/namespaces/ns/configmaps/gone"
        ]
    );
}

#[tokio::test]
async fn gc_1_34_deletes_carry_the_resource_version_and_fall_back_on_conflict() {
    let snap = dangling().build();
    let fake = FakeCluster::from_snapshot(&snap);
    let k = key(&snap, "orphaned");
    // Someone relabels the object between our read and the DELETE: same UID and refs, new RV.
    let kk = k.clone();
    fake.on_request(Box::new(move |_, req, objs| {
        if req.method == "DELETE" && req.body.contains("resourceVersion") {
            let m = objs.get(&kk).cloned().unwrap();
            objs.put(kk.clone(), m);
        }
        None
    }));
    let run = collect_and_apply(&snap, 34, &fake).await;
    assert_eq!(run.summary.done(), 1, "{:?}", run.summary);
    let w = writes(&fake);
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].1
            .contains(r#""preconditions":{"uid":"u-dep","resourceVersion":"#)
    );
    assert_eq!(w[0].2, 409);
    assert_eq!(
        w[1].1,
        r#"{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"u-dep"},"propagationPolicy":"Background"}"#
    );
    assert_eq!(w[1].2, 200);
    assert!(fake.object(&k).is_none());
}

#[tokio::test]
async fn object_recreated_between_read_and_delete_is_not_deleted() {
    let snap = dangling().build();
    let fake = FakeCluster::from_snapshot(&snap);
    let k = key(&snap, "orphaned");
    // Recreated with the same name (and the same dangling reference) right before the DELETE.
    let kk = k.clone();
    let mut done = false;
    fake.on_request(Box::new(move |_, req, objs| {
        if req.method == "DELETE" && !done {
            done = true;
            let mut m = objs.remove(&kk).unwrap();
            m.uid = "u-new".into();
            objs.put(kk.clone(), m);
        }
        None
    }));
    let run = collect_and_apply(&snap, 20, &fake).await;
    assert!(run.summary.complete());
    assert_eq!((run.summary.done(), run.summary.skipped()), (0, 1));
    let w = writes(&fake);
    assert_eq!(w.len(), 1, "one DELETE, answered 409: {w:?}");
    assert_eq!(w[0].2, 409);
    let e = entries(&run)[0];
    assert_eq!(e["result"], "skipped");
    assert!(
        e["message"].as_str().unwrap().starts_with("recreated"),
        "{e}"
    );
    assert_eq!(fake.object(&k).unwrap().uid, "u-new");
}

#[tokio::test]
async fn object_recreated_before_apply_is_skipped_without_writes() {
    let snap = dangling().build();
    let fake = FakeCluster::from_snapshot(&snap);
    let k = key(&snap, "orphaned");
    fake.with_objects(|o| {
        let mut m = o.remove(&k).unwrap();
        m.uid = "u-new".into();
        o.put(k.clone(), m);
    });
    let run = collect_and_apply(&snap, 20, &fake).await;
    assert_eq!(run.summary.skipped(), 1);
    assert!(writes(&fake).is_empty());
    assert!(fake.object(&k).is_some());
}

#[tokio::test]
async fn owner_that_reappeared_is_respected() {
    let snap = dangling().build();
    let fake = FakeCluster::from_snapshot(&snap);
    let owner = ObjectKey {
        name: "gone".into(),
        ..key(&snap, "orphaned")
    };
    fake.with_objects(|o| {
        o.put(
            owner.clone(),
            LiveMeta {
                uid: "u-gone".into(),
                ..LiveMeta::default()
            },
        )
    });
    let run = collect_and_apply(&snap, 20, &fake).await;
    assert_eq!(run.summary.skipped(), 1);
    assert!(writes(&fake).is_empty());
    let e = entries(&run)[0];
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("owner ConfigMap/gone (u-gone) exists"),
        "{e}"
    );
    // An owner of that name with another UID does not count: still dangling.
    let fake = FakeCluster::from_snapshot(&snap);
    fake.with_objects(|o| {
        o.put(
            owner.clone(),
            LiveMeta {
                uid: "u-other".into(),
                ..LiveMeta::default()
            },
        )
    });
    let run = collect_and_apply(&snap, 20, &fake).await;
    assert_eq!(run.summary.done(), 1);
}

fn mixed(group: &str) -> Cluster {
    let mut c = Cluster::new();
    c.resource(CR_GROUP, "v1", "Widget", "widgets", true);
    c.obj("v1", "ConfigMap", "ns", "solid", "u-solid");
    let (api, kind) = if group.is_empty() {
        ("v1", "ConfigMap")
    } else {
        ("example.com/v1", "Widget")
    };
    c.obj(api, kind, "ns", "mixed", "u-mixed")
        .owner("v1", "ConfigMap", "solid", "u-solid")
        .controller(true)
        .owner("v1", "ConfigMap", "gone", "u-gone")
        .block(true);
    c
}

#[tokio::test]
async fn dangling_reference_beside_a_solid_owner_is_removed_by_strategic_merge_patch() {
    let snap = mixed("").build();
    let fake = FakeCluster::from_snapshot(&snap);
    let run = collect_and_apply(&snap, 20, &fake).await;
    assert_eq!(run.summary.done(), 1);
    assert_eq!(
        writes(&fake),
        vec![(
            "PATCH /api/v1/namespaces/ns/configmaps/mixed".to_owned(),
            // v1.20.2's bytes (gc-model §3.7 P1, read in its source): uid first, escaped.
            r#"{"metadata":{"uid":"u-mixed","ownerReferences":[{"$patch":"delete","uid":"u-gone"}]}}"#.to_owned(),
            200
        )]
    );
    assert_eq!(
        fake.requests().last().unwrap().patch,
        Some(PatchType::Strategic)
    );
    let left = fake.object(&key(&snap, "mixed")).unwrap();
    assert_eq!(left.owner_references.len(), 1);
    assert_eq!(left.owner_references[0].uid, "u-solid");
}

#[tokio::test]
async fn patch_of_an_object_recreated_after_the_read_is_refused_and_skipped() {
    let snap = mixed("").build();
    let fake = FakeCluster::from_snapshot(&snap);
    let k = key(&snap, "mixed");
    let kk = k.clone();
    fake.on_request(Box::new(move |_, req, objs| {
        if req.method == "PATCH" && objs.get(&kk).is_some_and(|m| m.uid == "u-mixed") {
            let mut m = objs.remove(&kk).unwrap();
            m.uid = "u-new".into();
            objs.put(kk.clone(), m);
        }
        None
    }));
    let run = collect_and_apply(&snap, 20, &fake).await;
    assert!(run.summary.complete());
    assert_eq!(run.summary.skipped(), 1, "{:?}", run.summary);
    let w = writes(&fake);
    assert_eq!(w.len(), 1);
    assert_eq!(
        w[0].2, 422,
        "the SMP's metadata.uid is checked by the server"
    );
    let e = entries(&run)[0];
    assert!(
        e["message"].as_str().unwrap().starts_with("recreated"),
        "{e}"
    );
    // The new object keeps its references.
    assert_eq!(fake.object(&k).unwrap().owner_references.len(), 2);
}

#[tokio::test]
async fn custom_resources_fall_back_to_a_json_merge_patch_on_415() {
    let snap = mixed(CR_GROUP).build();
    let fake = FakeCluster::from_snapshot(&snap).without_smp(CR_GROUP);
    let run = collect_and_apply(&snap, 28, &fake).await;
    assert_eq!(run.summary.done(), 1, "{:?}", run.summary);
    let k = key(&snap, "mixed");
    let w = writes(&fake);
    assert_eq!(w.len(), 2);
    assert_eq!(
        w[0],
        (
            "PATCH /apis/example.com/v1/namespaces/ns/widgets/mixed".to_owned(),
            r#"{"metadata":{"uid":"u-mixed","ownerReferences":[{"$patch":"delete","uid":"u-gone"}]}}"#.to_owned(),
            415
        )
    );
    // Built from a fresh GET: the remaining reference in full, guarded by the RV read.
    let reqs = fake.requests();
    let i = reqs.iter().position(|r| r.status == 415).unwrap();
    assert_eq!(reqs[i + 1].method, "GET", "a fresh read after the 415");
    assert_eq!(reqs[i + 1].key, k);
    assert_eq!(reqs[i + 2].patch, Some(PatchType::Merge));
    // The merge patch succeeded and bumped the resourceVersion it carried by one.
    let rv = &fake.object(&k).unwrap().resource_version;
    let expected_rv = rv.parse::<u64>().unwrap() - 1;
    assert_eq!(
        w[1].1,
        format!(
            r#"{{"metadata":{{"resourceVersion":"{expected_rv}","ownerReferences":[{{"apiVersion":"v1","kind":"ConfigMap","name":"solid","uid":"u-solid","controller":true}}]}}}}"#
        )
    );
    assert_eq!(w[1].2, 200);
    let e = entries(&run)[0];
    assert_eq!(e["requests"][0]["status"], 415);
    assert_eq!(
        e["requests"][1]["contentType"],
        "application/merge-patch+json"
    );
}

#[tokio::test]
async fn unexpected_error_stops_the_apply_and_the_summary_says_what_was_not_done() {
    let mut c = Cluster::new();
    for i in 0..3 {
        c.obj(
            "v1",
            "ConfigMap",
            "ns",
            &format!("d{i}"),
            &format!("u-d{i}"),
        )
        .owner("v1", "ConfigMap", "gone", "u-gone");
    }
    let snap = c.build();
    let fake = FakeCluster::from_snapshot(&snap);
    let mut deletes = 0;
    fake.on_request(Box::new(move |_, req, _| {
        if req.method == "DELETE" {
            deletes += 1;
            if deletes == 2 {
                return Some(ApiError::status(
                    500,
                    "InternalError",
                    "etcdserver: timeout",
                ));
            }
        }
        None
    }));
    let run = collect_and_apply(&snap, 20, &fake).await;
    let s = &run.summary;
    assert_eq!(
        (s.done(), s.skipped(), s.failed(), s.not_done.len()),
        (1, 0, 1, 1)
    );
    match &s.stopped {
        Some(Stopped::Error(m)) => {
            assert!(m.contains("delete ConfigMap/d1 -n ns"), "{m}");
            assert!(m.contains("500 InternalError: etcdserver: timeout"), "{m}");
        }
        other => panic!("{other:?}"),
    }
    assert!(fake.object(&key(&snap, "d0")).is_none());
    assert!(fake.object(&key(&snap, "d1")).is_some());
    assert!(fake.object(&key(&snap, "d2")).is_some());
    // Record: header, the done entry, the failed entry, the summary naming what was not done.
    let kinds: Vec<&str> = run
        .record
        .iter()
        .map(|l| l["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        vec!["ApplyRecord", "ApplyEntry", "ApplyEntry", "ApplySummary"]
    );
    let last = run.record.last().unwrap();
    assert_eq!(last["complete"], false);
    assert_eq!(last["stopped"], "error");
    assert_eq!(
        (last["done"].as_u64(), last["failed"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(last["notDone"][0]["target"]["name"], "d2");
    assert_eq!(run.record[2]["result"], "failed");
    assert_eq!(run.record[2]["requests"][0]["status"], 500);
}

#[tokio::test]
async fn interrupted_apply_leaves_a_correct_record() {
    let mut c = Cluster::new();
    for i in 0..4 {
        c.obj(
            "v1",
            "ConfigMap",
            "ns",
            &format!("d{i}"),
            &format!("u-d{i}"),
        )
        .owner("v1", "ConfigMap", "gone", "u-gone");
    }
    let snap = c.build();
    let a = GarbageCollector::new(&snap, KubeVersion::v1(20));
    let plan = Plan::steady_state(&a);
    let fake = FakeCluster::from_snapshot(&snap);
    let stop = AtomicBool::new(false);
    let actions: Vec<&Action> = plan.actions.iter().collect();
    let mut rec = Record::new(Vec::new(), &Header::default()).unwrap();
    // "Ctrl-C" arrives while the second action is in flight.
    let summary = run(
        &fake,
        &a,
        &actions,
        &Options::default(),
        &mut rec,
        &stop,
        &mut |seq, _, _| {
            if seq == 2 {
                stop.store(true, Ordering::SeqCst);
            }
        },
    )
    .await;
    assert_eq!(summary.stopped, Some(Stopped::Interrupted));
    assert_eq!((summary.done(), summary.not_done.len()), (2, 2));
    let lines: Vec<Value> = String::from_utf8(rec.into_inner())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    for (i, e) in lines[1..3].iter().enumerate() {
        assert_eq!(e["seq"], i + 1);
        assert_eq!(e["result"], "done");
        assert_eq!(e["before"]["uid"], format!("u-d{i}"));
        assert_eq!(e["before"]["ownerReferences"][0]["uid"], "u-gone");
        assert_eq!(e["requests"][0]["method"], "DELETE");
        assert_eq!(
            e["requests"][0]["path"],
            format!("/api/v1/namespaces/ns/configmaps/d{i}")
        );
        assert_eq!(
            e["requests"][0]["body"]["preconditions"]["uid"],
            format!("u-d{i}")
        );
        assert_eq!(e["requests"][0]["status"], 200);
    }
    assert_eq!(lines[3]["stopped"], "interrupted");
    assert_eq!(lines[3]["notDone"].as_array().unwrap().len(), 2);
    // Exactly the recorded objects are gone.
    assert!(fake.object(&key(&snap, "d1")).is_none());
    assert!(fake.object(&key(&snap, "d2")).is_some());
}

#[tokio::test]
async fn finalizer_removal_retries_conflicts_with_a_fresh_read() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "owner", "u-owner")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    let snap = c.build();
    let fake = FakeCluster::from_snapshot(&snap);
    let k = key(&snap, "owner");
    let kk = k.clone();
    let mut patches = 0;
    fake.on_request(Box::new(move |_, req, objs| {
        if req.method == "PATCH" {
            patches += 1;
            if patches == 1 {
                // A concurrent writer bumps the resourceVersion.
                let m = objs.get(&kk).cloned().unwrap();
                objs.put(kk.clone(), m);
            }
        }
        None
    }));
    let run = collect_and_apply(&snap, 20, &fake).await;
    assert_eq!(run.summary.done(), 1, "{:?}", run.summary);
    let w = writes(&fake);
    assert_eq!(w.iter().map(|x| x.2).collect::<Vec<_>>(), vec![409, 200]);
    assert!(w[1].1.ends_with(r#""finalizers":null}}"#), "{}", w[1].1);
    assert!(fake.object(&k).is_none());
}

#[tokio::test]
async fn finalizer_of_a_recreated_object_is_not_removed() {
    // Deliberate deviation from the GC (§3.8 does no UID check).
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "owner", "u-owner")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    let snap = c.build();
    let fake = FakeCluster::from_snapshot(&snap);
    let k = key(&snap, "owner");
    fake.with_objects(|o| {
        let mut m = o.remove(&k).unwrap();
        m.uid = "u-new".into();
        o.put(k.clone(), m);
    });
    let run = collect_and_apply(&snap, 20, &fake).await;
    assert_eq!(run.summary.skipped(), 1);
    assert!(writes(&fake).is_empty());
}

#[tokio::test]
async fn orphan_finalizer_stays_when_a_dependent_was_not_orphaned() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "owner", "u-owner")
        .finalizers(&["orphan"])
        .deleting();
    c.obj("v1", "ConfigMap", "ns", "d1", "u-d1")
        .owner("v1", "ConfigMap", "owner", "u-owner");
    c.obj("v1", "ConfigMap", "ns", "d2", "u-d2")
        .owner("v1", "ConfigMap", "owner", "u-owner");
    let snap = c.build();
    let fake = FakeCluster::from_snapshot(&snap);
    let d2 = key(&snap, "d2");
    let dd = d2.clone();
    // The patch of d2 fails with a 404 without d2 being gone (a flaky proxy, say).
    fake.on_request(Box::new(move |_, req, _| {
        (req.method == "PATCH" && req.key == dd)
            .then(|| ApiError::status(404, "NotFound", "not found"))
    }));
    let run = collect_and_apply(&snap, 20, &fake).await;
    assert!(run.summary.complete());
    let last = entries(&run).last().copied().unwrap().clone();
    assert_eq!(last["verb"], "remove-finalizer");
    assert_eq!(last["result"], "skipped");
    assert!(
        last["message"]
            .as_str()
            .unwrap()
            .contains("ConfigMap/d2 -n ns still references"),
        "{last}"
    );
    assert_eq!(
        fake.object(&key(&snap, "owner")).unwrap().finalizers,
        vec!["orphan"]
    );
    assert!(
        fake.object(&key(&snap, "d1"))
            .unwrap()
            .owner_references
            .is_empty()
    );
}

// ---------------------------------------------------------------------------------------------
// Whole plans: the fake ends where the plan says

#[tokio::test]
async fn foreground_chain_with_a_blocker_holding_its_own_finalizer_ends_as_planned() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "root", "u-root")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "ConfigMap", "ns", "mid", "u-mid")
        .owner("v1", "ConfigMap", "root", "u-root")
        .block(true);
    c.obj("v1", "Secret", "ns", "leaf", "u-leaf")
        .owner("v1", "ConfigMap", "mid", "u-mid")
        .block(true);
    c.obj("v1", "ConfigMap", "ns", "held", "u-held")
        .owner("v1", "ConfigMap", "root", "u-root")
        .block(true)
        .finalizers(&["example.com/hold"]);
    c.obj("v1", "ConfigMap", "ns", "root2", "u-root2")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "ConfigMap", "ns", "dep2", "u-dep2")
        .owner("v1", "ConfigMap", "root2", "u-root2")
        .block(true);
    let snap = c.build();
    let a = GarbageCollector::new(&snap, KubeVersion::v1(20));
    let plan = Plan::steady_state(&a);
    let fake = FakeCluster::from_snapshot(&snap);
    let run = apply_plan(&a, &plan, &fake, &AtomicBool::new(false)).await;
    assert!(run.summary.complete());
    assert_eq!(run.summary.skipped(), 0, "{:#?}", run.record);
    assert_eq!(run.summary.done(), plan.actions.len());
    assert_matches_plan(&snap, &plan, &fake);
    assert!(fake.object(&key(&snap, "root")).unwrap().terminating());
    assert!(fake.object(&key(&snap, "root2")).is_none());
    // mid was deleted in the foreground (row 9), the rest in the background.
    let mid = entries(&run)
        .into_iter()
        .find(|e| e["target"]["name"] == "mid" && e["verb"] == "delete")
        .unwrap();
    assert_eq!(
        mid["requests"][0]["body"]["propagationPolicy"],
        "Foreground"
    );
}

#[tokio::test]
async fn ownership_cycle_in_foreground_deletion_is_unblocked_then_collected() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "a", "u-a")
        .owner("v1", "ConfigMap", "b", "u-b")
        .block(true)
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "ConfigMap", "ns", "b", "u-b")
        .owner("v1", "ConfigMap", "a", "u-a")
        .block(true);
    let snap = c.build();
    let a = GarbageCollector::new(&snap, KubeVersion::v1(20));
    let plan = Plan::steady_state(&a);
    assert!(
        plan.actions
            .iter()
            .any(|x| x.verb == Verb::UnblockOwnerReferences)
    );
    let fake = FakeCluster::from_snapshot(&snap);
    let run = apply_plan(&a, &plan, &fake, &AtomicBool::new(false)).await;
    assert_eq!(run.summary.skipped(), 0, "{:#?}", run.record);
    assert_matches_plan(&snap, &plan, &fake);
    let unblock = writes(&fake)
        .into_iter()
        .find(|w| w.1.contains("blockOwnerDeletion"))
        .unwrap();
    assert_eq!(
        unblock.1,
        r#"{"metadata":{"uid":"u-b","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"u-a","blockOwnerDeletion":false}]}}"#
    );
}

#[tokio::test]
async fn orphaning_and_custom_resource_cascades_end_as_planned() {
    let mut c = Cluster::new();
    c.resource(CR_GROUP, "v1", "Widget", "widgets", true);
    c.obj("v1", "ConfigMap", "ns", "solid", "u-solid");
    c.obj("v1", "ConfigMap", "ns", "owner", "u-owner")
        .finalizers(&["orphan"])
        .deleting();
    c.obj("v1", "ConfigMap", "ns", "o1", "u-o1")
        .owner("v1", "ConfigMap", "owner", "u-owner");
    c.obj("example.com/v1", "Widget", "ns", "o2", "u-o2")
        .owner("v1", "ConfigMap", "owner", "u-owner")
        .owner("v1", "ConfigMap", "solid", "u-solid");
    // Custom resource owner gone: a 3-deep cascade through a custom resource.
    c.obj("example.com/v1", "Widget", "ns", "w1", "u-w1").owner(
        "example.com/v1",
        "Widget",
        "w0",
        "u-w0",
    );
    c.obj("v1", "ConfigMap", "ns", "w1-child", "u-w1c").owner(
        "example.com/v1",
        "Widget",
        "w1",
        "u-w1",
    );
    c.obj("example.com/v1", "Widget", "ns", "w1-grandchild", "u-w1g")
        .owner("v1", "ConfigMap", "w1-child", "u-w1c");
    let snap = c.build();
    let a = GarbageCollector::new(&snap, KubeVersion::v1(28));
    let plan = Plan::steady_state(&a);
    let fake = FakeCluster::from_snapshot(&snap).without_smp(CR_GROUP);
    let run = apply_plan(&a, &plan, &fake, &AtomicBool::new(false)).await;
    assert!(run.summary.complete());
    assert_eq!(run.summary.skipped(), 0, "{:#?}", run.record);
    assert_matches_plan(&snap, &plan, &fake);
    assert!(fake.object(&key(&snap, "owner")).is_none());
    assert!(fake.object(&key(&snap, "w1-grandchild")).is_none());
    let o2 = fake.object(&key(&snap, "o2")).unwrap();
    assert_eq!(o2.owner_references.len(), 1);
    assert_eq!(o2.owner_references[0].uid, "u-solid");
}

#[test]
fn waves_run_patches_then_deletes_then_finalizer_removals() {
    let mk = |wave, verb| Action {
        wave,
        verb,
        target: ObjId(0),
        policy: None,
        owner_refs: vec![],
        finalizer: None,
        reason: Reason::NoSolidOwner,
        detail: String::new(),
    };
    let acts = [
        mk(1, Verb::RemoveFinalizer),
        mk(1, Verb::Delete),
        mk(1, Verb::RemoveOwnerReferences),
        mk(2, Verb::RemoveOwnerReferences),
        mk(1, Verb::UnblockOwnerReferences),
        mk(1, Verb::Delete),
    ];
    let refs: Vec<&Action> = acts.iter().collect();
    assert_eq!(execution_order(&refs), vec![2, 4, 1, 5, 0, 3]);
}
