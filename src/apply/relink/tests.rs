//! `relink --apply` against the in-memory API server: the patch sent when the re-read finds
//! the link still safe, and each refusal of the re-read (nothing is written), driven by
//! changing the fake cluster between the plan and the apply.

use super::{Counts, Outcome, apply};
use crate::apply::fake::FakeCluster;
use crate::apply::ops::{ApiError, LiveRef, ObjectUrl};
use crate::apply::{Stop, Stopped};
use crate::diagnose::relink::{Relink, plan};
use crate::gc::ObjectRef;
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;
use serde_json::{Value, json};

/// The backup: `child` referenced `parent` (blocking); `other` referenced `parent` too.
fn backup() -> Snapshot {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "parent", "old-parent");
    c.obj("v1", "ConfigMap", "shop", "child", "old-child")
        .owner("v1", "ConfigMap", "parent", "old-parent")
        .block(true);
    c.build()
}

/// The restored cluster: the same objects with new UIDs and no references.
fn restored() -> Snapshot {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "parent", "new-parent");
    c.obj("v1", "ConfigMap", "shop", "child", "new-child");
    c.build()
}

fn key(snap: &Snapshot, name: &str) -> ObjectRef {
    let id = snap
        .store
        .ids()
        .find(|&id| snap.store.str(snap.store.object(id).name) == name)
        .unwrap_or_else(|| panic!("no {name}"));
    ObjectRef::of(snap, id)
}

struct Applied {
    counts: Counts,
    outcomes: Vec<Outcome>,
    record: Vec<Value>,
}

async fn relink(target: &Snapshot, p: &Relink, fake: &FakeCluster) -> Applied {
    let mut record = Vec::new();
    let mut outcomes = Vec::new();
    let counts = apply(fake, target, p, &Stop::new(), &mut record, &mut |_, o| {
        outcomes.push(o.clone())
    })
    .await
    .expect("the record is written");
    let record = String::from_utf8(record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each record line is JSON"))
        .collect();
    Applied {
        counts,
        outcomes,
        record,
    }
}

/// The plan, the fake holding the restored cluster, and the child's key.
fn setup() -> (Snapshot, Relink, FakeCluster, ObjectRef, ObjectRef) {
    let target = restored();
    let p = plan(&backup(), &target, false);
    assert_eq!(p.links.len(), 1, "{p:#?}");
    let fake = FakeCluster::from_snapshot(&target);
    let (child, parent) = (key(&target, "child"), key(&target, "parent"));
    (target, p, fake, child, parent)
}

#[tokio::test]
async fn a_link_still_safe_is_patched_testing_the_uid_and_the_resource_version_re_read() {
    let (target, p, fake, child, _) = setup();
    // Something touched the child after the plan was made: the patch must test the version
    // the re-read returned, not the plan's.
    fake.with_objects(|o| {
        let m = o.get(&child).cloned().unwrap();
        o.put(child.clone(), m);
    });
    let rv = fake.object(&child).unwrap().resource_version;
    assert_ne!(rv, p.links[0].resource_version, "the version moved on");
    let run = relink(&target, &p, &fake).await;
    assert_eq!(run.outcomes, [Outcome::Patched(200)]);
    assert_eq!(
        run.counts,
        Counts {
            patched: 1,
            not: 0,
            stopped: None
        }
    );
    let writes = fake.writes();
    assert_eq!(writes.len(), 1);
    assert_eq!(writes[0].key, child);
    let body: Value = serde_json::from_str(&writes[0].body).unwrap();
    assert_eq!(
        body,
        json!([
            {"op": "test", "path": "/metadata/uid", "value": "new-child"},
            {"op": "test", "path": "/metadata/resourceVersion", "value": rv},
            {"op": "add", "path": "/metadata/ownerReferences", "value": [
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "parent", "uid": "new-parent",
                 "blockOwnerDeletion": true}
            ]}
        ])
    );
    let now = fake.object(&child).unwrap();
    assert_eq!(
        now.owner_references,
        [LiveRef {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            name: "parent".into(),
            uid: "new-parent".into(),
            controller: None,
            block_owner_deletion: Some(true),
        }]
    );
    assert_eq!(run.record.len(), 1);
    let e = &run.record[0];
    assert_eq!(e["kind"], "RelinkEntry");
    assert_eq!(e["outcome"], "patched");
    assert_eq!(e["code"], 200);
    assert_eq!(e["object"]["uid"], "new-child");
    assert_eq!(e["patch"], body);
}

#[tokio::test]
async fn a_reference_added_to_a_list_extends_it_and_keeps_what_is_there() {
    let (target, p, fake, child, _) = setup();
    let other = LiveRef {
        api_version: "v1".into(),
        kind: "Secret".into(),
        name: "keep".into(),
        uid: "u-keep".into(),
        ..LiveRef::default()
    };
    fake.with_objects(|o| {
        let mut m = o.get(&child).cloned().unwrap();
        m.owner_references.push(other.clone());
        o.put(child.clone(), m);
    });
    let run = relink(&target, &p, &fake).await;
    assert_eq!(run.outcomes, [Outcome::Patched(200)]);
    let body: Value = serde_json::from_str(&fake.writes()[0].body).unwrap();
    assert_eq!(body[2]["path"], "/metadata/ownerReferences/-");
    let refs = fake.object(&child).unwrap().owner_references;
    assert_eq!(refs.len(), 2);
    assert_eq!(refs[0], other);
    assert_eq!(refs[1].uid, "new-parent");
}

#[tokio::test]
async fn a_change_between_the_re_read_and_the_patch_is_refused_by_the_version_test() {
    let (target, p, fake, child, _) = setup();
    // After the re-reads (object, owner), before the PATCH: another writer updates the child.
    let k = child.clone();
    fake.on_request(Box::new(move |_, r, objs| {
        if r.method == "PATCH" {
            let m = objs.get(&k).cloned().unwrap();
            objs.put(k.clone(), m);
        }
        None
    }));
    let run = relink(&target, &p, &fake).await;
    assert!(
        matches!(&run.outcomes[..], [Outcome::Failed(422, m)] if m.contains("/metadata/resourceVersion")),
        "{:?}",
        run.outcomes
    );
    assert_eq!(
        run.counts,
        Counts {
            patched: 0,
            not: 1,
            stopped: None
        }
    );
    assert!(fake.object(&child).unwrap().owner_references.is_empty());
    assert_eq!(run.record[0]["outcome"], "failed");
    assert_eq!(run.record[0]["code"], 422);
}

/// Applies after `change` and expects one refusal naming `why`, with nothing written.
async fn refused(change: impl FnOnce(&FakeCluster, &ObjectRef, &ObjectRef), why: &str) {
    let (target, p, fake, child, parent) = setup();
    change(&fake, &child, &parent);
    let before = fake.object(&child);
    let run = relink(&target, &p, &fake).await;
    match &run.outcomes[..] {
        [Outcome::Skipped(m)] => assert_eq!(m, why),
        other => panic!("{why}: {other:?}"),
    }
    assert_eq!(
        run.counts,
        Counts {
            patched: 0,
            not: 1,
            stopped: None
        }
    );
    assert!(fake.writes().is_empty(), "{why}: {:?}", fake.writes());
    assert_eq!(fake.object(&child), before, "{why}");
    let e = &run.record[0];
    assert_eq!(e["outcome"], "skipped");
    assert_eq!(e["reason"], why);
    assert!(e.get("patch").is_none(), "{e}");
}

fn edit(fake: &FakeCluster, k: &ObjectRef, f: impl FnOnce(&mut crate::apply::ops::LiveMeta)) {
    fake.with_objects(|o| {
        let mut m = o.get(k).cloned().unwrap();
        f(&mut m);
        o.put(k.clone(), m);
    });
}

#[tokio::test]
async fn the_object_gone_is_not_linked() {
    refused(
        |f, c, _| {
            f.with_objects(|o| o.remove(c));
        },
        "the object is gone",
    )
    .await;
}

#[tokio::test]
async fn the_object_recreated_is_not_linked() {
    refused(
        |f, c, _| edit(f, c, |m| m.uid = "newer-child".into()),
        "the object was recreated (another UID)",
    )
    .await;
}

#[tokio::test]
async fn the_object_being_deleted_is_not_linked() {
    refused(
        |f, c, _| {
            edit(f, c, |m| {
                m.deletion_timestamp = Some("2026-01-01T00:00:00Z".into())
            })
        },
        "the object is being deleted",
    )
    .await;
}

#[tokio::test]
async fn the_object_already_linked_is_not_linked_twice() {
    refused(
        |f, c, _| {
            edit(f, c, |m| {
                m.owner_references.push(LiveRef {
                    api_version: "v1".into(),
                    // kubectl users write kinds in any case; the GC's kind match ignores it.
                    kind: "configmap".into(),
                    name: "parent".into(),
                    uid: "someone-elses".into(),
                    ..LiveRef::default()
                })
            })
        },
        "it references ConfigMap/parent already",
    )
    .await;
}

#[tokio::test]
async fn an_owner_recreated_is_not_linked_to_its_old_uid() {
    // The link would name a UID no object has: the GC would treat it as dangling and delete
    // the child it was meant to protect.
    refused(
        |f, _, o| edit(f, o, |m| m.uid = "newer-parent".into()),
        "ConfigMap/parent was recreated (another UID)",
    )
    .await;
}

#[tokio::test]
async fn an_owner_being_deleted_is_not_linked() {
    refused(
        |f, _, o| {
            edit(f, o, |m| {
                m.deletion_timestamp = Some("2026-01-01T00:00:00Z".into())
            })
        },
        "ConfigMap/parent is being deleted",
    )
    .await;
}

#[tokio::test]
async fn an_owner_gone_is_not_linked() {
    refused(
        |f, _, o| {
            f.with_objects(|x| x.remove(o));
        },
        "ConfigMap/parent is gone",
    )
    .await;
}

#[tokio::test]
async fn a_re_read_that_fails_is_not_taken_for_an_answer() {
    let forbidden = |path: String| {
        move |f: &FakeCluster, _: &ObjectRef, _: &ObjectRef| {
            f.on_request(Box::new(move |_, r, _| {
                (r.method == "GET" && r.key.path() == path)
                    .then(|| ApiError::status(403, "Forbidden", "configmaps is forbidden"))
            }))
        }
    };
    let (target, ..) = setup();
    refused(
        forbidden(key(&target, "child").path()),
        "re-reading the object failed: configmaps is forbidden",
    )
    .await;
    refused(
        forbidden(key(&target, "parent").path()),
        "re-reading ConfigMap/parent failed: configmaps is forbidden",
    )
    .await;
}

#[tokio::test]
async fn a_stop_requested_is_honoured_before_the_next_object() {
    let (target, p, fake, child, _) = setup();
    let stop = Stop::new();
    stop.terminate();
    let mut record = Vec::new();
    let counts = apply(&fake, &target, &p, &stop, &mut record, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(
        counts,
        Counts {
            patched: 0,
            not: 0,
            stopped: Some((Stopped::Terminated, 1))
        }
    );
    assert!(fake.requests().is_empty());
    assert!(record.is_empty());
    assert!(fake.object(&child).unwrap().owner_references.is_empty());
}
