//! The namespace controller's model: what holds a namespace (`evaluate`), and what the GC's
//! simulation makes of a deleted namespace with it (`collect --delete namespace/X`).

use super::deletion::{Blocker, Outlook, content_of, evaluate};
use crate::catalog::KubeVersion;
use crate::gc::GarbageCollector;
use crate::gc::plan::{EndState, Plan, UserDelete};
use crate::model::ObjId;
use crate::snapshot::{Condition, DiscoveryFailure, NamespaceStatus, Snapshot};
use crate::testkit::Cluster;

fn obj(snap: &Snapshot, name: &str) -> ObjId {
    snap.store
        .ids()
        .find(|&id| snap.store.str(snap.store.object(id).name) == name)
        .unwrap_or_else(|| panic!("no object {name}"))
}

fn spec(tokens: &[&str]) -> NamespaceStatus {
    NamespaceStatus {
        spec_finalizers: tokens.iter().map(|t| t.to_string()).collect(),
        ..NamespaceStatus::default()
    }
}

/// Namespace `team` with a ConfigMap, its spec read (`kubernetes` only).
fn team() -> Cluster {
    let mut c = Cluster::new();
    c.obj("v1", "Namespace", "", "team", "u-ns");
    c.obj("v1", "ConfigMap", "team", "cm", "u-cm");
    c
}

fn with_spec(mut s: Snapshot, tokens: &[&str]) -> Snapshot {
    s.details.namespaces.insert("team".into(), spec(tokens));
    s
}

fn outlook(s: &Snapshot, v: KubeVersion) -> (Outlook, Vec<Blocker>) {
    let ns = obj(s, "team");
    let d = evaluate(s, ns, &content_of(s, "team"), v);
    (d.outlook, d.blockers)
}

const V: KubeVersion = KubeVersion::v1(28);

#[test]
fn nothing_holds_an_ordinary_namespace() {
    let s = with_spec(team().build(), &["kubernetes"]);
    let (o, b) = outlook(&s, V);
    assert_eq!(o, Outlook::Finishes, "{b:?}");
    assert!(b.is_empty());
}

#[test]
fn any_discovery_failure_holds_every_namespace_for_good() {
    let mut s = with_spec(team().build(), &["kubernetes"]);
    s.discovery_failures.push(DiscoveryFailure {
        group_version: "metrics.k8s.io/v1beta1".into(),
        message: "the server is currently unable to handle the request".into(),
    });
    let (o, b) = outlook(&s, V);
    assert_eq!(o, Outlook::Stuck);
    assert!(
        matches!(&b[0], Blocker::DiscoveryFailure { group_versions, .. } if group_versions[0].0 == "metrics.k8s.io/v1beta1")
    );
}

#[test]
fn a_discovery_failure_only_the_controller_saw_clears_on_a_live_read_not_from_files() {
    let mut s = team().build();
    let mut status = spec(&["kubernetes"]);
    status.conditions.push(Condition {
        type_: "NamespaceDeletionDiscoveryFailure".into(),
        status: "True".into(),
        ..Condition::default()
    });
    s.details.namespaces.insert("team".into(), status);
    // Live: this read's discovery succeeded, so the condition is the controller's last pass.
    assert_eq!(outlook(&s, V).0, Outlook::Waiting);
    // A file: nothing says discovery works now.
    s.provenance.source = crate::snapshot::SourceKind::Files;
    assert_eq!(outlook(&s, V).0, Outlook::Stuck);
}

#[test]
fn a_foreign_spec_token_holds_and_the_controllers_own_does_not() {
    let s = with_spec(team().build(), &["kubernetes", "example.com/tenant"]);
    let (o, b) = outlook(&s, V);
    assert_eq!(o, Outlook::Stuck);
    assert_eq!(
        b[0],
        Blocker::ForeignSpecFinalizers(vec!["example.com/tenant".into()])
    );
}

#[test]
fn content_held_by_non_gc_finalizers_waits_and_gc_finalizers_do_not_hold() {
    let mut c = team();
    c.obj("v1", "Secret", "team", "held", "u-held")
        .finalizers(&["example.com/hold"]);
    c.obj("v1", "Secret", "team", "fg", "u-fg")
        .finalizers(&["foregroundDeletion", "orphan"]);
    let s = with_spec(c.build(), &["kubernetes"]);
    let (o, b) = outlook(&s, V);
    assert_eq!(o, Outlook::Waiting);
    let [Blocker::ContentHeld(groups)] = b.as_slice() else {
        panic!("{b:?}")
    };
    assert_eq!(
        groups.len(),
        1,
        "the GC's finalizers are dropped by the Background delete"
    );
    assert_eq!(groups[0].finalizer, "example.com/hold");
    assert_eq!(groups[0].objects, vec![obj(&s, "held")]);
}

#[test]
fn content_that_was_not_read_makes_the_outcome_unknown_never_finished() {
    let mut c = team();
    c.forbid("", "secrets");
    let s = with_spec(c.build(), &["kubernetes"]);
    let (o, b) = outlook(&s, V);
    assert_eq!(o, Outlook::Unknown);
    assert!(
        matches!(&b[0], Blocker::ContentUnknown(r) if r[0].0 == "v1/secrets"),
        "{b:?}"
    );
    // A namespace whose spec was not read is unknown too.
    let s = team().build();
    assert!(matches!(
        outlook(&s, V).1.as_slice(),
        [Blocker::SpecUnknown]
    ));
}

#[test]
fn from_1_33_pods_go_first() {
    let mut c = team();
    c.obj("v1", "Pod", "team", "p", "u-p");
    let s = with_spec(c.build(), &["kubernetes"]);
    assert!(matches!(
        outlook(&s, KubeVersion::v1(33)).1.as_slice(),
        [Blocker::PodsFirst(p)] if *p == vec![obj(&s, "p")]
    ));
    assert!(outlook(&s, KubeVersion::v1(32)).1.is_empty());
}

// ---- the GC's simulation with the namespace controller --------------------------------------

fn preview_delete(s: &Snapshot, v: KubeVersion) -> Plan {
    let gc = GarbageCollector::new(s, v);
    Plan::preview_delete(
        &gc,
        UserDelete {
            target: obj(s, "team"),
            policy: None,
        },
    )
}

fn end(plan: &Plan, s: &Snapshot, name: &str) -> EndState {
    let id = obj(s, name);
    if !plan.end.exists(id) {
        EndState::Deleted
    } else if plan.end.being_deleted(id) {
        EndState::Terminating {
            finalizers: plan.end.finalizers(&s.store, id).to_vec(),
        }
    } else {
        EndState::Kept
    }
}

fn why_of(plan: &Plan, s: &Snapshot, name: &str) -> String {
    let id = obj(s, name);
    plan.outcomes
        .iter()
        .find(|o| o.target == id)
        .and_then(|o| o.why.clone())
        .unwrap_or_default()
}

#[test]
fn a_deleted_namespace_is_emptied_but_kept_while_discovery_fails() {
    let mut s = with_spec(team().build(), &["kubernetes"]);
    let plan = preview_delete(&s, V);
    assert_eq!(
        end(&plan, &s, "team"),
        EndState::Deleted,
        "the control case"
    );
    s.discovery_failures.push(DiscoveryFailure {
        group_version: "metrics.k8s.io/v1beta1".into(),
        message: "unavailable".into(),
    });
    let plan = preview_delete(&s, V);
    assert_eq!(
        end(&plan, &s, "cm"),
        EndState::Deleted,
        "content still goes"
    );
    assert!(matches!(
        end(&plan, &s, "team"),
        EndState::Terminating { .. }
    ));
    let why = why_of(&plan, &s, "team");
    assert!(
        why.contains("discovery failed for metrics.k8s.io/v1beta1"),
        "{why}"
    );
}

#[test]
fn a_foreign_token_or_unread_content_keeps_a_deleted_namespace() {
    let s = with_spec(team().build(), &["kubernetes", "example.com/tenant"]);
    let plan = preview_delete(&s, V);
    assert!(matches!(
        end(&plan, &s, "team"),
        EndState::Terminating { .. }
    ));
    assert!(why_of(&plan, &s, "team").contains("example.com/tenant"));

    let mut c = team();
    c.forbid("", "secrets");
    let s = with_spec(c.build(), &["kubernetes"]);
    let plan = preview_delete(&s, V);
    assert_eq!(end(&plan, &s, "cm"), EndState::Deleted);
    assert!(matches!(
        end(&plan, &s, "team"),
        EndState::Terminating { .. }
    ));
    assert!(why_of(&plan, &s, "team").contains("unknown: its content"));
}

#[test]
fn from_1_33_a_held_pod_keeps_the_rest_of_the_namespace() {
    let mut c = team();
    c.obj("v1", "Pod", "team", "p", "u-p")
        .finalizers(&["example.com/drain"]);
    let s = with_spec(c.build(), &["kubernetes"]);
    let plan = preview_delete(&s, KubeVersion::v1(33));
    assert!(matches!(end(&plan, &s, "p"), EndState::Terminating { .. }));
    assert_eq!(
        end(&plan, &s, "cm"),
        EndState::Kept,
        "nothing else goes while a pod remains"
    );
    let plan = preview_delete(&s, KubeVersion::v1(32));
    assert_eq!(end(&plan, &s, "cm"), EndState::Deleted, "1.32: no order");
    let why = why_of(&plan, &s, "team");
    assert!(why.contains("1 object(s) left"), "{why}");
}

/// `collect --delete namespace/team --cascade=…`: the DELETE's propagation policy adds the
/// GC's `orphan` or `foregroundDeletion` finalizer to the namespace, and the GC removes it
/// once it has orphaned or deleted the namespace's dependents; the namespace still waits for
/// its `spec.finalizers` (the namespace controller's `kubernetes` token, removed only after a
/// pass that empties it without error). So every cascade ends as the default one does.
fn preview_delete_with(s: &Snapshot, policy: Option<crate::gc::Policy>) -> Plan {
    let gc = GarbageCollector::new(s, V);
    Plan::preview_delete(
        &gc,
        UserDelete {
            target: obj(s, "team"),
            policy,
        },
    )
}

const CASCADES: [Option<crate::gc::Policy>; 4] = [
    None,
    Some(crate::gc::Policy::Background),
    Some(crate::gc::Policy::Foreground),
    Some(crate::gc::Policy::Orphan),
];

#[test]
fn every_cascade_of_a_namespace_delete_goes_when_nothing_holds_it() {
    let s = with_spec(team().build(), &["kubernetes"]);
    for policy in CASCADES {
        let plan = preview_delete_with(&s, policy);
        assert_eq!(end(&plan, &s, "cm"), EndState::Deleted, "{policy:?}");
        assert_eq!(end(&plan, &s, "team"), EndState::Deleted, "{policy:?}");
    }
}

#[test]
fn every_cascade_of_a_namespace_delete_leaves_it_terminating_while_discovery_fails() {
    let mut s = with_spec(team().build(), &["kubernetes"]);
    s.discovery_failures.push(DiscoveryFailure {
        group_version: "metrics.k8s.io/v1beta1".into(),
        message: "the server is currently unable to handle the request".into(),
    });
    for policy in CASCADES {
        let plan = preview_delete_with(&s, policy);
        assert_eq!(end(&plan, &s, "cm"), EndState::Deleted, "{policy:?}");
        // The GC's own finalizer is gone; only the spec's token holds it.
        assert_eq!(
            end(&plan, &s, "team"),
            EndState::Terminating { finalizers: vec![] },
            "{policy:?}"
        );
        let why = why_of(&plan, &s, "team");
        assert!(
            why.contains("discovery failed for metrics.k8s.io/v1beta1"),
            "{policy:?}: {why}"
        );
    }
}

#[test]
fn every_cascade_of_a_namespace_delete_waits_for_a_foreign_spec_token_or_held_content() {
    let s = with_spec(team().build(), &["kubernetes", "example.com/tenant"]);
    for policy in CASCADES {
        let plan = preview_delete_with(&s, policy);
        assert_eq!(end(&plan, &s, "cm"), EndState::Deleted, "{policy:?}");
        assert!(
            matches!(end(&plan, &s, "team"), EndState::Terminating { .. }),
            "{policy:?}"
        );
        assert!(why_of(&plan, &s, "team").contains("example.com/tenant"));
    }
    let mut c = team();
    c.obj("v1", "Secret", "team", "held", "u-held")
        .finalizers(&["example.com/hold"]);
    let s = with_spec(c.build(), &["kubernetes"]);
    for policy in CASCADES {
        let plan = preview_delete_with(&s, policy);
        assert_eq!(end(&plan, &s, "cm"), EndState::Deleted, "{policy:?}");
        assert!(
            matches!(end(&plan, &s, "held"), EndState::Terminating { .. }),
            "{policy:?}"
        );
        assert!(
            matches!(end(&plan, &s, "team"), EndState::Terminating { .. }),
            "{policy:?}"
        );
    }
}
