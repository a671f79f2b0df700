//! The version matrix (issue 14): for every row of the behaviour table
//! ([`crate::catalog::version::CHANGES`]), one scenario evaluated at the release just before and
//! just after each of the row's boundaries ([`Change::boundaries`], back-ports included), with
//! both outcomes asserted. A row the offline model cannot observe is listed with the reason.

use crate::catalog::KubeVersion;
use crate::catalog::version::{CHANGES, Change};
use crate::diagnose::{Code, Severity, audit, health, restart};
use crate::gc::{EndState, GarbageCollector, Plan, Rules};
use crate::snapshot::{ListOutcome, Snapshot};
use crate::testkit::Cluster;

/// The possible end states of `name` (the plan's, then its order-dependent alternatives).
fn possible(plan: &Plan, s: &Snapshot, name: &str) -> Vec<EndState> {
    let id = s
        .store
        .ids()
        .find(|&id| s.store.str(s.store.object(id).name) == name)
        .expect("object");
    let first = if !plan.end.exists(id) {
        EndState::Deleted
    } else if plan.end.being_deleted(id) {
        EndState::Terminating {
            finalizers: plan.end.finalizers(&s.store, id).to_vec(),
        }
    } else {
        EndState::Kept
    };
    let mut out = vec![first];
    for o in plan.outcomes.iter().filter(|o| o.target == id) {
        out.extend(o.alternatives.iter().map(|a| a.state.clone()));
    }
    out
}

/// The observable outcome of the row's scenario at GC release `v`.
fn outcome(change: Change, v: KubeVersion) -> Option<String> {
    Some(match change {
        Change::UidFirstRemovalPatch => {
            format!("uid first: {}", Rules::new(v).uid_first_patch_order())
        }
        Change::DeleteWithResourceVersion => format!(
            "resourceVersion precondition: {}",
            Rules::new(v).delete_with_resource_version()
        ),
        // A cluster-scoped dependent of a missing namespaced owner kind: looked up at cluster
        // scope and deleted before, dropped (never collected) after.
        Change::CoordinateAwareGraph => {
            let mut c = Cluster::new();
            c.obj("v1", "Node", "", "node", "u-node")
                .owner("v1", "ConfigMap", "gone", "u-gone");
            let s = c.build();
            let gc = GarbageCollector::new(&s, v);
            format!("{:?}", possible(&Plan::steady_state(&gc), &s, "node"))
        }
        // kubernetes#98040: a restart with a namespaced and a cluster-scoped child of a missing
        // namespaced owner.
        Change::ThirdCoordinateCheck => {
            let mut c = Cluster::new();
            c.obj("v1", "Node", "", "nodename", "nodeuid1")
                .owner("v1", "Pod", "podname1", "poduid1");
            c.obj("v1", "Pod", "ns1", "podname2", "poduid2")
                .owner("v1", "Pod", "podname1", "poduid1");
            let s = c.build();
            let gc = GarbageCollector::new(&s, v);
            format!(
                "{:?}",
                possible(&restart::predict(&gc).plan, &s, "podname2")
            )
        }
        // An events.k8s.io Event whose owner is gone.
        Change::EventsK8sIoIgnored => {
            let mut c = Cluster::new();
            c.resource("events.k8s.io", "v1", "Event", "events", true);
            c.obj("events.k8s.io/v1", "Event", "ns", "ev", "u-ev")
                .owner("v1", "Pod", "gone", "u-gone");
            let s = c.build();
            let gc = GarbageCollector::new(&s, v);
            format!("{:?}", possible(&Plan::steady_state(&gc), &s, "ev"))
        }
        // A resource whose list fails: every collection stops before, a warning after.
        Change::WorkersStartWithoutFullSync => {
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
            let gc = GarbageCollector::new(&s, v);
            let f = health::findings(&gc, &audit::audit(&gc));
            format!(
                "{:?}",
                f.iter().map(|f| (f.code, f.severity)).collect::<Vec<_>>()
            )
        }
        // Not observable offline: request bytes kubectl-gc never sends (A4, a GET + update
        // before 1.15, below the supported range's behaviour of interest), the API server's
        // write-side deduplication (A7, invisible in a snapshot), the GC's debug endpoint
        // (A11, A12: `--from-gc` reads either), a reaction to a 404 on the GC's own DELETE
        // (A15, a race with another deleter no snapshot shows).
        Change::FinalizerMergePatch
        | Change::DedupOwnerReferences
        | Change::DotWithoutGonum
        | Change::CanonicalControllerNames
        | Change::DeleteNotFoundIsVirtualDelete => return None,
    })
}

/// What each observable row's scenario gives just before and just after its boundary.
fn expected(change: Change) -> (String, String) {
    let d = format!("{:?}", vec![EndState::Deleted]);
    let k = format!("{:?}", vec![EndState::Kept]);
    match change {
        Change::UidFirstRemovalPatch => ("uid first: false".into(), "uid first: true".into()),
        Change::DeleteWithResourceVersion => (
            "resourceVersion precondition: false".into(),
            "resourceVersion precondition: true".into(),
        ),
        Change::CoordinateAwareGraph => (d, k),
        // Before: which child the informers deliver first decides (kept, or deleted);
        // after: collected in every order.
        Change::ThirdCoordinateCheck => {
            (format!("{:?}", vec![EndState::Kept, EndState::Deleted]), d)
        }
        Change::EventsK8sIoIgnored => (d, k),
        Change::WorkersStartWithoutFullSync => (
            format!("{:?}", vec![(Code::GcSyncBlocker, Severity::Error)]),
            format!("{:?}", vec![(Code::GcSyncBlocker, Severity::Warning)]),
        ),
        _ => unreachable!("not observable"),
    }
}

#[test]
fn every_behaviour_row_flips_exactly_at_its_boundaries() {
    let mut observed = 0;
    for row in CHANGES {
        let boundaries = row.change.boundaries();
        assert!(!boundaries.is_empty(), "{}", row.row);
        for (before, after) in boundaries {
            let (Some(b), Some(a)) = (outcome(row.change, before), outcome(row.change, after))
            else {
                continue;
            };
            let (eb, ea) = expected(row.change);
            assert_eq!(b, eb, "{} (#{}) at {before}", row.row, row.pr);
            assert_eq!(a, ea, "{} (#{}) at {after}", row.row, row.pr);
            observed += 1;
        }
    }
    // A6, A5, A8 (twice: v1.21.0 and the v1.20.3 back-port), A10, A13, A14.
    assert_eq!(observed, 7);
}

#[test]
fn the_third_coordinate_check_back_port_counts_from_v1_20_3() {
    assert_eq!(
        Change::ThirdCoordinateCheck.boundaries(),
        vec![
            (KubeVersion::release(20, 2), KubeVersion::release(21, 0)),
            (KubeVersion::release(20, 2), KubeVersion::release(20, 3)),
        ]
    );
    // v1.20.15 behaves like v1.21 (issue 14 case 4).
    assert_eq!(
        outcome(Change::ThirdCoordinateCheck, KubeVersion::release(20, 15)),
        Some(format!("{:?}", vec![EndState::Deleted]))
    );
}
