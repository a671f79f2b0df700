//! The answer: what each collection deletion took, and retries collapsed to one row.

use super::*;

fn collection(ms: i64) -> AuditEvent {
    ev(
        ms,
        NAMESPACE_CONTROLLER_USER,
        "deletecollection",
        "configmaps",
        "shop",
        "",
    )
}

fn shop_before() -> Snapshot {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "a", "u-a");
    c.obj("v1", "ConfigMap", "shop", "held", "u-held")
        .finalizers(&["example.com/keep"]);
    c.obj("v1", "ConfigMap", "shop", "early", "u-early");
    c.obj("v1", "Secret", "shop", "s", "u-s");
    c.obj("v1", "ConfigMap", "other", "x", "u-x");
    c.build()
}

fn taken(it: &Item) -> Vec<(&str, &str)> {
    it.taken
        .iter()
        .map(|t| (t.object.name.as_str(), t.sure))
        .collect()
}

#[test]
fn a_collection_deletion_lists_what_it_took_from_the_state_before() {
    let events = [
        ev(0, USER, "delete", "namespaces", "", "shop"),
        ev(1, USER, "delete", "configmaps", "shop", "early"),
        collection(5),
        collection(6),
    ];
    let h = history(&events, Some(&mut shop_before()));
    let colls: Vec<&Item> = h
        .items
        .iter()
        .filter(|i| i.action == "delete-collection")
        .collect();
    assert_eq!(colls.len(), 2);
    // Not the one with a finalizer (kept, terminating), not the one deleted before, not the
    // Secret nor the other namespace's.
    assert_eq!(taken(colls[0]), [("a", "likely")], "{:#?}", colls[0]);
    assert_eq!(taken(colls[1]), [], "the first took it");
    // The state after confirms.
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "shop", "held", "u-held")
        .finalizers(&["example.com/keep"])
        .deleting();
    let mut after = c.build();
    let h = history_between(&events, Some(&mut shop_before()), Some(&mut after));
    let first = h
        .items
        .iter()
        .find(|i| i.action == "delete-collection")
        .unwrap();
    assert_eq!(taken(first), [("a", "confirmed")]);
    // Without a state before nothing is listed.
    let h = history(&events, None);
    assert!(h.items.iter().all(|i| i.taken.is_empty()));
}

#[test]
fn identical_retries_collapse_to_one_row_with_a_count_and_span() {
    let events = [
        ev(0, USER, "delete", "namespaces", "", "shop"),
        collection(5),
        collection(6),
        collection(7),
        ev(8, USER, "delete", "configmaps", "shop", "a"),
        collection(9),
    ];
    let mut h = history(&events, None);
    assert_eq!(h.summary.logged, 6);
    h.collapse();
    let rows: Vec<(&str, usize)> = h
        .items
        .iter()
        .map(|i| (i.action.as_str(), i.count))
        .collect();
    // The collection retried before and after a's deletion: one row of four, in time order
    // of the first.
    assert_eq!(
        rows,
        [("delete", 1), ("delete-collection", 4), ("delete", 1)],
        "{:#?}",
        h.items
    );
    let row = &h.items[1];
    assert_eq!(row.time, format_us(T0 + 5000));
    assert_eq!(row.last.as_deref(), Some(format_us(T0 + 9000).as_str()));
    assert_eq!(
        h.summary.by_actor.get(&ActorKind::NamespaceController),
        Some(&4)
    );
    let json = serde_json::to_value(row).unwrap();
    assert_eq!(json["count"], 4);
    // A single action carries count 1 and no span.
    assert_eq!(serde_json::to_value(&h.items[0]).unwrap()["count"], 1);
    assert!(h.items[0].last.is_none());
    // Another actor, or another target, is another row.
    let mut other = collection(6);
    other.user = "system:serviceaccount:kube-system:other".into();
    let mut h = history(&[collection(5), other, collection(7)], None);
    h.collapse();
    assert_eq!(h.items.len(), 2);
}

/// F8: what the history keeps is capped; a log past a cap is an error that names it (exit
/// 3), never an abort or a silent cut.
#[test]
fn a_log_past_a_cap_is_an_error_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.log");
    let line = |i: usize| {
        serde_json::json!({"kind": "Event", "apiVersion": "audit.k8s.io/v1",
            "level": "Metadata", "auditID": format!("id-{i}"), "stage": "ResponseComplete",
            "verb": "delete", "requestURI": format!("/api/v1/namespaces/a/pods/p{i}"),
            "user": {"username": GC_USER}, "userAgent": "test",
            "objectRef": {"resource": "pods", "namespace": "a", "name": format!("p{i}"),
                "apiVersion": "v1"},
            "responseStatus": {"metadata": {}, "code": 200},
            "stageTimestamp": "2026-11-26T01:00:00.000001Z"})
        .to_string()
    };
    let text: Vec<String> = (0..5).map(line).collect();
    std::fs::write(&log, text.join("\n")).unwrap();
    let query = |actions| Query {
        logs: Logs {
            paths: vec![log.clone()],
            max_input_bytes: 0,
        },
        kcm: Default::default(),
        before: None,
        after: None,
        gc_version: crate::catalog::KubeVersion::NEWEST,
        select: Select::default(),
        caps: Caps {
            actions,
            ..Caps::default()
        },
    };
    let e = from_logs(query(4)).err().expect("past the cap");
    assert_eq!(e.exit_code(), crate::error::exit::INPUT);
    assert!(
        e.to_string()
            .contains("more than 4 actions (the cap on actions kept)"),
        "{e}"
    );
    let a = from_logs(query(5)).expect("within the cap");
    assert_eq!(a.history.summary.logged, 5);
    // Each cap is counted where it is kept.
    let mut r = Recorder::with_caps(Caps {
        refs: 3,
        ..Caps::default()
    });
    let refs = |n| {
        (0..n).map(|_| RefSeen {
            api_version: crate::model::Sym::EMPTY,
            kind: crate::model::Sym::EMPTY,
            name: crate::model::Sym::EMPTY,
            uid: crate::model::Sym::EMPTY,
        })
    };
    assert!(r.refs(refs(3)).is_some());
    assert!(r.refs(refs(1)).is_none());
    assert_eq!(r.over, Some(CapHit::Refs(3)));
}
