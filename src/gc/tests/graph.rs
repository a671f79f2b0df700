//! Graph-building tests named after the GC behaviour they pin.

use crate::gc::graph::*;
use crate::model::Sym;
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;

fn uid(snap: &Snapshot, s: &str) -> Sym {
    snap.store.strings.get(s).expect("uid interned")
}

/// §6.12: every dependent lists the owner's UID, and every owner reference whose UID has a
/// node is reflected in that node's dependents.
fn assert_invariants(snap: &Snapshot, g: &Graph) {
    for (i, n) in g.nodes().iter().enumerate() {
        let owner = NodeId(i as u32);
        for &d in g.dependents(owner) {
            let obj = g.object(d).expect("dependents are real objects");
            assert!(
                snap.store.owner_refs(obj).iter().any(|r| r.uid == n.id.uid),
                "dependent without matching ref"
            );
        }
    }
    for id in snap.store.ids() {
        if !g.node(g.node_of_object(id)).in_graph() {
            continue;
        }
        for r in snap.store.owner_refs(id) {
            let owner = g.uid_to_node(r.uid).expect("every owner UID has a node");
            assert!(g.dependents(owner).contains(&g.node_of_object(id)));
        }
    }
}

#[test]
fn test_process_event_test1_chain_of_bare_pods() {
    // TestProcessEvent "test1": add 1; add 2 (owner 1); add 3 (owners 1, 2).
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "p1", "1");
    c.obj("v1", "Pod", "ns", "p2", "2")
        .owner("v1", "Pod", "p1", "1");
    c.obj("v1", "Pod", "ns", "p3", "3")
        .owner("v1", "Pod", "p1", "1")
        .owner("v1", "Pod", "p2", "2");
    let snap = c.build();
    let g = Graph::build(&snap);
    assert_invariants(&snap, &g);
    assert_eq!(g.virtual_count(), 0);
    let n1 = g.uid_to_node(uid(&snap, "1")).unwrap();
    assert_eq!(g.dependents(n1).len(), 2);
}

#[test]
fn test_process_event_reverse_order_creates_virtual_owners_then_observes_them() {
    // "reverse test2": adds in reverse order; in a snapshot every listed object is observed,
    // so owners that exist are real nodes regardless of order.
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "p4", "4")
        .owner("v1", "Pod", "p2", "2");
    c.obj("v1", "Pod", "ns", "p3", "3")
        .owner("v1", "Pod", "p1", "1")
        .owner("v1", "Pod", "p2", "2");
    c.obj("v1", "Pod", "ns", "p2", "2")
        .owner("v1", "Pod", "p1", "1");
    c.obj("v1", "Pod", "ns", "p1", "1");
    let snap = c.build();
    let g = Graph::build(&snap);
    assert_invariants(&snap, &g);
    assert_eq!(g.virtual_count(), 0, "all owners are listed objects");
}

#[test]
fn test_process_event_cycle_is_linked_both_ways() {
    // "test3": update 2 to be owned by 4 which is owned by 3 which is owned by 1 and 2: a cycle.
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "p2", "2")
        .owner("v1", "Pod", "p4", "4");
    c.obj("v1", "Pod", "ns", "p3", "3")
        .owner("v1", "Pod", "p2", "2");
    c.obj("v1", "Pod", "ns", "p4", "4")
        .owner("v1", "Pod", "p3", "3");
    let snap = c.build();
    let g = Graph::build(&snap);
    assert_invariants(&snap, &g);
}

#[test]
fn virtual_owner_takes_the_first_dependents_namespace_even_for_cluster_scoped_kinds() {
    // §1.4 and issue #124378: a missing Node referenced from ns1 first gets namespace ns1.
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns1", "a", "pa")
        .owner("v1", "Node", "node1", "nodeuid");
    c.obj("v1", "Pod", "ns2", "b", "pb")
        .owner("v1", "Node", "node1", "nodeuid");
    let snap = c.build();
    let g = Graph::build(&snap);
    let v = g.uid_to_node(uid(&snap, "nodeuid")).unwrap();
    let n = g.node(v);
    assert!(n.is_virtual());
    assert_eq!(snap.store.str(n.id.namespace), "ns1");
    assert_eq!(snap.store.str(n.id.kind), "Node");
    assert_eq!(g.dependents(v).len(), 2);
}

#[test]
fn two_refs_to_one_uid_make_one_dependent() {
    // §6.11: the dependents set holds the dependent once.
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "owner", "o");
    c.obj("v1", "Pod", "ns", "p", "p")
        .owner("v1", "ConfigMap", "owner", "o")
        .owner("v1", "ConfigMap", "other-name", "o");
    let snap = c.build();
    let g = Graph::build(&snap);
    let o = g.uid_to_node(uid(&snap, "o")).unwrap();
    assert_eq!(g.dependents(o).len(), 1);
}

#[test]
fn events_are_not_graph_nodes_and_their_refs_are_ignored() {
    // §5.2: core events are ignored; an Event's ownerReference creates no virtual node.
    let mut c = Cluster::new();
    c.obj("v1", "Event", "ns", "e", "ev")
        .owner("v1", "Pod", "gone", "gone-uid");
    let snap = c.build();
    let g = Graph::build(&snap);
    assert!(!g.node(NodeId(0)).in_graph());
    assert!(g.uid_to_node(uid(&snap, "gone-uid")).is_none());
    assert!(g.uid_to_node(uid(&snap, "ev")).is_none());
}

#[test]
fn flags_follow_deletion_timestamp_and_foreground_finalizer() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "fg", "fg")
        .finalizers(&["foregroundDeletion"])
        .deleting();
    c.obj("v1", "Pod", "ns", "bg", "bg")
        .finalizers(&["x/y"])
        .deleting();
    // foregroundDeletion without deletionTimestamp (seen in the wild) is not deletingDependents.
    c.obj("v1", "Pod", "ns", "idle", "idle")
        .finalizers(&["foregroundDeletion"]);
    let snap = c.build();
    let g = Graph::build(&snap);
    assert!(g.node(NodeId(0)).deleting_dependents() && g.node(NodeId(0)).being_deleted());
    assert!(!g.node(NodeId(1)).deleting_dependents() && g.node(NodeId(1)).being_deleted());
    assert!(!g.node(NodeId(2)).deleting_dependents() && !g.node(NodeId(2)).being_deleted());
}

#[test]
fn only_cycles_and_paths_between_them_survive_peeling() {
    use crate::gc::graph::nodes_on_cycles;
    // 0→1→2→0 is a cycle; 3→0 feeds it; 2→4 leaves it; 5→6 is a chain; 7 is alone;
    // 8⇄9 is a second cycle.
    let keep = nodes_on_cycles(
        10,
        &[
            (0, 1),
            (1, 2),
            (2, 0),
            (3, 0),
            (2, 4),
            (5, 6),
            (8, 9),
            (9, 8),
        ],
    );
    assert_eq!(
        keep,
        [
            true, true, true, false, false, false, false, false, true, true
        ]
    );
    let keep = nodes_on_cycles(4, &[(0, 1), (1, 2), (2, 3)]);
    assert_eq!(keep, [false; 4]);
    assert!(nodes_on_cycles(0, &[]).is_empty());
}

/// The dependents of every node are exactly the objects in the graph that reference its UID,
/// each once, in store order: on random clusters with repeated references to one UID (next to
/// each other or not), references to UIDs no object has (virtual owners), and Events, whose
/// references the graph ignores.
#[test]
fn dependents_are_every_referrer_once_in_store_order() {
    let mut rng = crate::testkit::generate::Rng(12);
    for round in 0..40 {
        let n = 1 + rng.below(60) as usize;
        let mut c = Cluster::new();
        for i in 0..n {
            let kind = if rng.below(8) == 0 {
                "Event"
            } else {
                "ConfigMap"
            };
            let name = format!("o{i}");
            let o = c.obj("v1", kind, "ns", &name, &name);
            for _ in 0..rng.below(5) {
                // Owners among the objects and a few UIDs no object has.
                let j = rng.below(n as u64 + 3);
                let owner = format!("o{j}");
                o.owner("v1", "ConfigMap", &owner, &owner);
            }
        }
        let snap = c.build();
        let g = Graph::build(&snap);
        for (i, node) in g.nodes().iter().enumerate() {
            if !node.in_graph() {
                // An Event's own node: references to its UID go to a virtual node.
                assert!(g.dependents(NodeId(i as u32)).is_empty());
                continue;
            }
            let mut expected: Vec<NodeId> = snap
                .store
                .ids()
                .filter(|&d| g.node(g.node_of_object(d)).in_graph())
                .filter(|&d| {
                    snap.store
                        .owner_refs(d)
                        .iter()
                        .any(|r| r.uid == node.id.uid)
                })
                .map(|d| g.node_of_object(d))
                .collect();
            expected.dedup();
            assert_eq!(
                g.dependents(NodeId(i as u32)),
                expected,
                "round {round}, node {}",
                snap.store.str(node.id.uid)
            );
        }
        assert_invariants(&snap, &g);
    }
}

/// The dependents table: each UID's dependents once each, in store order, however the
/// references to it are spread over the store (repeated on one object, on objects before and
/// after the owner, to a virtual owner), and nothing else.
#[test]
fn dependents_are_listed_once_each_in_store_order() {
    let mut c = Cluster::new();
    c.obj("v1", "Pod", "ns", "d0", "d0")
        .owner("v1", "Pod", "o", "o")
        .owner("v1", "Pod", "gone", "gone")
        .owner("v1", "Pod", "o", "o");
    c.obj("v1", "Pod", "ns", "o", "o")
        .owner("v1", "Pod", "gone", "gone");
    c.obj("v1", "Pod", "ns", "d2", "d2")
        .owner("v1", "Pod", "gone", "gone")
        .owner("v1", "Pod", "gone", "gone");
    c.obj("v1", "Pod", "ns", "d3", "d3")
        .owner("v1", "Pod", "o", "o");
    c.obj("v1", "Pod", "ns", "lone", "lone");
    let snap = c.build();
    let g = Graph::build(&snap);
    assert_invariants(&snap, &g);
    let names = |owner: &str| -> Vec<&str> {
        let n = g.uid_to_node(uid(&snap, owner)).unwrap();
        g.dependents(n)
            .iter()
            .map(|&d| snap.store.str(g.node(d).id.name))
            .collect()
    };
    assert_eq!(names("o"), ["d0", "d3"]);
    assert_eq!(names("gone"), ["d0", "o", "d2"]);
    for leaf in ["d0", "d2", "d3", "lone"] {
        assert!(names(leaf).is_empty(), "{leaf}");
    }
    assert_eq!(g.virtual_count(), 1);
}
