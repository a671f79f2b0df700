use super::dot::{self, go_quote, parse, parse_group_version};
use super::gcdiff::{self, SideSummary, View};
use super::*;
use crate::catalog::KubeVersion;
use crate::render::Styles;
use crate::snapshot::Snapshot;
use crate::testkit::Cluster;

/// The dump_test fixture (§7.4) with ConfigMaps: alpha owned by bravo and charlie, delta by
/// foxtrot, foxtrot by golf, echo alone. `skip` leaves objects out.
fn dump_fixture(skip: &[&str]) -> Snapshot {
    let only: Vec<&str> = crate::testkit::DUMP_TEST_NAMES
        .into_iter()
        .filter(|n| !skip.contains(n))
        .collect();
    crate::testkit::dump_test_fixture(&only)
}

fn analysis(snap: &Snapshot) -> GarbageCollector<'_> {
    GarbageCollector::new(snap, KubeVersion::NEWEST)
}

fn uids(sub: &Subgraph<'_>) -> Vec<String> {
    sub.sorted_vertices()
        .into_iter()
        .map(|i| sub.graph[i].uid.to_owned())
        .collect()
}

fn edges(sub: &Subgraph<'_>) -> Vec<(String, String)> {
    sub.sorted_edges()
        .into_iter()
        .map(|e| {
            let (f, t) = sub.graph.edge_endpoints(e).unwrap();
            (sub.graph[f].uid.to_owned(), sub.graph[t].uid.to_owned())
        })
        .collect()
}

fn roots_of(a: &GarbageCollector<'_>, names: &[&str]) -> Vec<NodeId> {
    names
        .iter()
        .map(|n| {
            let sym = a.snap.store.strings.get(n).expect("interned");
            a.graph.uid_to_node(sym).expect("in graph")
        })
        .collect()
}

fn select_from(a: &GarbageCollector<'_>, names: &[&str]) -> Vec<String> {
    let sel = Selection {
        roots: roots_of(a, names),
        ..Selection::default()
    };
    uids(&Subgraph::select(a, &sel))
}

#[test]
fn whole_graph_drops_nodes_without_relations() {
    let snap = dump_fixture(&[]);
    let a = analysis(&snap);
    let sub = Subgraph::select(&a, &Selection::default());
    assert_eq!(
        uids(&sub),
        ["alpha", "bravo", "charlie", "delta", "foxtrot", "golf"]
    );
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(f, t)| ((*f).to_owned(), (*t).to_owned()))
            .collect()
    };
    assert_eq!(
        edges(&sub),
        pairs(&[
            ("alpha", "bravo"),
            ("alpha", "charlie"),
            ("delta", "foxtrot"),
            ("foxtrot", "golf")
        ])
    );
    assert!(
        sub.graph
            .node_weights()
            .all(|v| !v.is_virtual && !v.missing && !v.root)
    );
}

#[test]
fn components_like_the_endpoint_uid_query() {
    let snap = dump_fixture(&[]);
    let a = analysis(&snap);
    assert_eq!(select_from(&a, &["bravo"]), ["alpha", "bravo", "charlie"]);
    assert_eq!(select_from(&a, &["golf"]), ["delta", "foxtrot", "golf"]);
    assert_eq!(select_from(&a, &["delta"]), ["delta", "foxtrot", "golf"]);
    assert_eq!(select_from(&a, &["echo"]), Vec::<String>::new());
    assert_eq!(
        select_from(&a, &["delta", "charlie"]),
        ["alpha", "bravo", "charlie", "delta", "foxtrot", "golf"]
    );
}

#[test]
fn an_absent_owner_is_a_virtual_vertex() {
    // The endpoint's "missing" case: bravo is referenced but no object has its UID. A GC that
    // listed this cluster holds a virtual node for it (until it verifies it absent), and so do
    // we; the component of bravo is therefore not empty as in the hand-built upstream test.
    let snap = dump_fixture(&["bravo", "delta", "echo", "foxtrot", "golf"]);
    let a = analysis(&snap);
    let sub = Subgraph::select(&a, &Selection::default());
    assert_eq!(uids(&sub), ["alpha", "bravo", "charlie"]);
    let bravo = sub.graph.node_weights().find(|v| v.uid == "bravo").unwrap();
    assert!(bravo.is_virtual && !bravo.missing && bravo.object.is_none());
    assert_eq!(
        bravo.namespace, "default",
        "the first dependent's namespace"
    );
    assert_eq!(select_from(&a, &["bravo"]), ["alpha", "bravo", "charlie"]);
    let e = &sub.graph[sub.sorted_edges()[0]];
    assert_eq!(e.class, Some(RefClassLabel::Dangling));
}

#[test]
fn roots_are_marked() {
    let snap = dump_fixture(&[]);
    let a = analysis(&snap);
    let sel = Selection {
        roots: roots_of(&a, &["foxtrot"]),
        ..Selection::default()
    };
    let sub = Subgraph::select(&a, &sel);
    let marked: Vec<&str> = sub
        .graph
        .node_weights()
        .filter(|v| v.root)
        .map(|v| v.uid)
        .collect();
    assert_eq!(marked, ["foxtrot"]);
}

/// a → b → c → d (each owned by the next), and x also owned by c; y owned by a.
fn chain() -> Snapshot {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "d", "d");
    c.obj("v1", "ConfigMap", "ns", "c", "c")
        .owner("v1", "ConfigMap", "d", "d");
    c.obj("v1", "ConfigMap", "ns", "b", "b")
        .owner("v1", "ConfigMap", "c", "c");
    c.obj("v1", "ConfigMap", "ns", "a", "a")
        .owner("v1", "ConfigMap", "b", "b");
    c.obj("v1", "ConfigMap", "ns", "x", "x")
        .owner("v1", "ConfigMap", "c", "c");
    c.obj("v1", "ConfigMap", "ns", "y", "y")
        .owner("v1", "ConfigMap", "a", "a");
    c.build()
}

fn sel_uids(
    a: &GarbageCollector<'_>,
    root: &str,
    direction: Direction,
    depth: Option<u32>,
) -> Vec<String> {
    let sel = Selection {
        roots: roots_of(a, &[root]),
        direction,
        depth,
        namespace: None,
    };
    uids(&Subgraph::select(a, &sel))
}

#[test]
fn direction_and_depth_narrow_the_walk() {
    let snap = chain();
    let a = analysis(&snap);
    assert_eq!(
        sel_uids(&a, "b", Direction::Both, None),
        ["a", "b", "c", "d", "x", "y"]
    );
    assert_eq!(sel_uids(&a, "b", Direction::Up, None), ["b", "c", "d"]);
    assert_eq!(sel_uids(&a, "b", Direction::Down, None), ["a", "b", "y"]);
    assert_eq!(sel_uids(&a, "b", Direction::Up, Some(1)), ["b", "c"]);
    assert_eq!(sel_uids(&a, "b", Direction::Down, Some(1)), ["a", "b"]);
    assert_eq!(sel_uids(&a, "b", Direction::Both, Some(0)), ["b"]);
    // One hop both ways: owner c and dependent a; two hops adds d, x (via c) and y (via a).
    assert_eq!(sel_uids(&a, "b", Direction::Both, Some(1)), ["a", "b", "c"]);
    assert_eq!(
        sel_uids(&a, "b", Direction::Both, Some(2)),
        ["a", "b", "c", "d", "x", "y"]
    );
    assert_eq!(
        sel_uids(&a, "c", Direction::Down, None),
        ["a", "b", "c", "x", "y"]
    );
}

#[test]
fn narrowed_selections_draw_only_edges_inside() {
    let snap = chain();
    let a = analysis(&snap);
    let sel = Selection {
        roots: roots_of(&a, &["b"]),
        direction: Direction::Up,
        depth: Some(1),
        namespace: None,
    };
    let sub = Subgraph::select(&a, &sel);
    assert_eq!(edges(&sub), [("b".to_owned(), "c".to_owned())]);
    assert!(sub.graph.node_weights().all(|v| !v.missing));
}

#[test]
fn namespace_scope_keeps_related_nodes_elsewhere() {
    let mut c = Cluster::new();
    c.obj("v1", "Node", "", "node1", "node1");
    c.obj("v1", "ConfigMap", "a", "owner", "owner");
    c.obj("v1", "Pod", "b", "pod", "pod")
        .owner("v1", "Node", "node1", "node1")
        .owner("v1", "ConfigMap", "owner", "owner");
    c.obj("v1", "ConfigMap", "a", "dep", "dep")
        .owner("v1", "ConfigMap", "owner", "owner");
    let snap = c.build();
    let a = analysis(&snap);
    let scoped = |ns: &str| {
        uids(&Subgraph::select(
            &a,
            &Selection {
                namespace: Some(ns.to_owned()),
                ..Selection::default()
            },
        ))
    };
    assert_eq!(scoped("b"), ["node1", "owner", "pod"]);
    assert_eq!(scoped("a"), ["dep", "owner", "pod"]);
    assert_eq!(scoped("c"), Vec::<String>::new());
}

#[test]
fn one_vertex_per_absent_owner_and_edges_to_their_real_targets() {
    // §8.5: the GC records a synthesised owner vertex under the dependent's UID. Here two
    // dependents share the absent owner "gone", and "child" is owned by the first of them:
    // upstream could print "gone" twice and point child's edge at it.
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "dep1", "dep1")
        .owner("v1", "ConfigMap", "gone", "gone");
    c.obj("v1", "ConfigMap", "ns", "dep2", "dep2")
        .owner("v1", "ConfigMap", "gone", "gone");
    c.obj("v1", "ConfigMap", "ns", "child", "child")
        .owner("v1", "ConfigMap", "dep1", "dep1");
    let snap = c.build();
    let a = analysis(&snap);
    let sub = Subgraph::select(&a, &Selection::default());
    assert_eq!(uids(&sub), ["child", "dep1", "dep2", "gone"]);
    let pairs: Vec<(String, String)> = [("child", "dep1"), ("dep1", "gone"), ("dep2", "gone")]
        .iter()
        .map(|(f, t)| ((*f).to_owned(), (*t).to_owned()))
        .collect();
    assert_eq!(edges(&sub), pairs);
    let mut text = Vec::new();
    dot::write(&mut text, &sub).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert_eq!(text.matches("  \"gone\" [\n").count(), 1);
}

#[test]
fn duplicate_references_give_duplicate_edges_in_current_and_one_in_legacy() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "o", "o");
    c.obj("v1", "ConfigMap", "ns", "d", "d")
        .owner("v1", "ConfigMap", "o", "o")
        .owner("v1", "ConfigMap", "o", "o");
    let snap = c.build();
    let a = analysis(&snap);
    let sub = Subgraph::select(&a, &Selection::default());
    let mut cur = Vec::new();
    dot::write(&mut cur, &sub).unwrap();
    let cur = String::from_utf8(cur).unwrap();
    assert_eq!(cur.matches("  \"d\" -> \"o\";\n").count(), 2);
    let mut legacy = Vec::new();
    dot::write_legacy(&mut legacy, &sub).unwrap();
    let legacy = String::from_utf8(legacy).unwrap();
    assert!(
        legacy.ends_with("\n\n  // Edge definitions.\n  0 -> 1;\n}"),
        "{legacy}"
    );
}

#[test]
fn go_quote_matches_strconv_quote() {
    assert_eq!(go_quote(""), r#""""#);
    assert_eq!(go_quote("a\"b\\c"), r#""a\"b\\c""#);
    assert_eq!(go_quote("x\ny\tz\r"), r#""x\ny\tz\r""#);
    assert_eq!(go_quote("\x07\x08\x0c\x0b"), r#""\a\b\f\v""#);
    assert_eq!(go_quote("\x00\x1b\x7f"), r#""\x00\x1b\x7f""#);
    assert_eq!(
        go_quote("Iñtërnâtiônàlizætiøn,🐹"),
        "\"Iñtërnâtiônàlizætiøn,🐹\""
    );
    assert_eq!(
        go_quote("\u{a0}\u{200b}\u{feff}"),
        r#""\u00a0\u200b\ufeff""#
    );
    assert_eq!(go_quote("\u{e0001}\u{10fffd}"), r#""\U000e0001\U0010fffd""#);
    assert_eq!(go_quote("\u{85}"), r#""\u0085""#);
}

#[test]
fn group_versions_split_like_parse_group_version() {
    assert_eq!(parse_group_version(""), ("", ""));
    assert_eq!(parse_group_version("/"), ("", ""));
    assert_eq!(parse_group_version("v1"), ("", "v1"));
    assert_eq!(parse_group_version("apps/v1"), ("apps", "v1"));
    assert_eq!(parse_group_version("a/b/c"), ("", ""));
    assert_eq!(parse_group_version("apps/"), ("apps", ""));
}

fn vertex(uid: &'static str) -> Vertex<'static> {
    Vertex {
        uid,
        api_version: "apps/v1",
        kind: "ReplicaSet",
        name: "web",
        namespace: "shop",
        ..Vertex::default()
    }
}

#[test]
fn labels_list_conditions_in_order() {
    let mut v = vertex("u");
    assert_eq!(
        dot::label(&v),
        "uid=u\nnamespace=shop\nReplicaSet.v1.apps/web\n"
    );
    v.being_deleted = true;
    v.deleting_dependents = true;
    v.is_virtual = true;
    v.missing = true;
    assert_eq!(
        dot::label(&v),
        "uid=u\nnamespace=shop\nReplicaSet.v1.apps/web\nbeingDeleted,deletingDependents,virtual,missingFromGraph\n"
    );
    v.api_version = "v1";
    v.kind = "Pod";
    v.being_deleted = false;
    v.deleting_dependents = false;
    v.missing = false;
    assert_eq!(
        dot::label(&v),
        "uid=u\nnamespace=shop\nPod.v1/web\nvirtual\n"
    );
}

#[test]
fn legacy_values_are_requoted_only_when_gonum_would() {
    let mut sub = Subgraph::new();
    let a = sub.add_vertex(Vertex {
        name: "we\"ird\\",
        ..vertex("a")
    });
    let b = sub.add_vertex(vertex("b"));
    sub.add_edge(a, b, Reference::default());
    let mut out = Vec::new();
    dot::write_legacy(&mut out, &sub).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.starts_with("strict digraph full {\n  // Node definitions.\n  0 [\n    label=\"\\\"uid=a\\nnamespace=shop\\nReplicaSet.v1.apps/we\\\"ird\\\\\\n\\\"\"\n    group=\"apps\"\n"), "{out}");
    // A value that is not a valid Go literal once wrapped in quotes is quoted again.
    assert!(
        out.contains("    name=\"\\\"we\\\"ird\\\\\\\"\"\n"),
        "{out}"
    );
    assert!(out.contains("    name=\"web\"\n"));
    assert!(out.ends_with("  ];\n\n  // Edge definitions.\n  0 -> 1;\n}"));
    // An escape sequence that Go accepts is kept as is.
    let mut sub = Subgraph::new();
    let c = sub.add_vertex(Vertex {
        name: "a\\tb",
        ..vertex("c")
    });
    let d = sub.add_vertex(vertex("d"));
    sub.add_edge(c, d, Reference::default());
    let mut out = Vec::new();
    dot::write_legacy(&mut out, &sub).unwrap();
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("    name=\"a\\tb\"\n")
    );
}

#[test]
fn empty_graphs() {
    let sub = Subgraph::new();
    let mut out = Vec::new();
    dot::write(&mut out, &sub).unwrap();
    assert_eq!(out, b"strict digraph full {\n}\n");
    let mut out = Vec::new();
    dot::write_legacy(&mut out, &sub).unwrap();
    assert_eq!(out, b"strict digraph full {\n}");
    let parsed = parse("strict digraph full {\n}").unwrap();
    assert!(parsed.strict && parsed.nodes.is_empty() && parsed.edges.is_empty());
}

fn sample() -> Snapshot {
    let mut c = Cluster::new();
    c.obj("apps/v1", "Deployment", "shop", "web", "u-dep");
    c.obj("apps/v1", "ReplicaSet", "shop", "web-1", "u-rs")
        .owner("apps/v1", "Deployment", "web", "u-dep")
        .controller(true)
        .block(true)
        .deleting()
        .finalizers(&["foregroundDeletion"]);
    c.obj("v1", "Pod", "shop", "web-1-a", "u-pod-a")
        .owner("apps/v1", "ReplicaSet", "web-1", "u-rs")
        .controller(true)
        .block(true)
        .deleting()
        .finalizers(&["example.com/drain"]);
    c.obj("v1", "Pod", "shop", "web-1-b", "u-pod-b")
        .owner("apps/v1", "ReplicaSet", "web-1", "u-rs")
        .owner("v1", "ConfigMap", "gone", "u-gone");
    c.build()
}

#[test]
fn current_dot_roundtrips_through_the_parser() {
    let snap = sample();
    let a = analysis(&snap);
    let sub = Subgraph::select(&a, &Selection::default());
    for legacy in [false, true] {
        let mut out = Vec::new();
        if legacy {
            dot::write_legacy(&mut out, &sub).unwrap();
        } else {
            dot::write(&mut out, &sub).unwrap();
        }
        let text = String::from_utf8(out).unwrap();
        let parsed = parse(&text).unwrap();
        assert!(parsed.strict);
        assert_eq!(
            gcdiff::dot_format(&parsed),
            if legacy { "legacy" } else { "v1.26+" }
        );
        let gc = View::of_dot(&parsed);
        let ours = View::of_subgraph(&sub);
        assert_eq!(gc, ours, "legacy={legacy}");
        let side = || SideSummary {
            source: "x".into(),
            format: None,
            nodes: 0,
            edges: 0,
        };
        assert!(gcdiff::diff(&gc, &ours, side(), side()).identical);
        // The label reads back exactly (legacy: inside its extra quotes).
        let (_, attrs) = &parsed.nodes[0];
        let label = &attrs[0].1;
        let label = if legacy {
            label.strip_prefix('"').unwrap().strip_suffix('"').unwrap()
        } else {
            label
        };
        assert_eq!(label, &dot::label(&sub.graph[sub.sorted_vertices()[0]]));
    }
}

#[test]
fn parses_what_a_v1_20_controller_manager_serves() {
    let text = include_str!("../../../tests/golden/graph/gc-v1.20.2-endpoint.dot");
    let parsed = parse(text).unwrap();
    assert_eq!(gcdiff::dot_format(&parsed), "legacy");
    let view = View::of_dot(&parsed);
    assert_eq!(view.vertices.len(), 9);
    assert_eq!(view.edges.len(), 5);
    let gone = &view.vertices["00000000-0000-0000-0000-00000000dead"];
    assert!(gone.missing && !gone.is_virtual && gone.namespace.is_empty());
    assert_eq!(
        (gone.kind.as_str(), gone.version.as_str()),
        ("ConfigMap", "v1")
    );
    let virt = &view.vertices["11111111-2222-3333-4444-555555555555"];
    assert!(virt.is_virtual);
    let widget = view.vertices.values().find(|v| v.kind == "Widget").unwrap();
    assert_eq!(
        (widget.group.as_str(), widget.name.as_str()),
        ("example.com", "w1")
    );
    assert!(
        view.edges
            .iter()
            .all(|(f, t)| view.vertices.contains_key(f) && view.vertices.contains_key(t))
    );
}

#[test]
fn parses_the_oldest_gonum_format_and_tolerates_extras() {
    let text = "digraph full {\n  // Node definitions.\n  0 [\n    label=\"uid=a\nnamespace=ns\nPod.v1/p\n\"\n    uid=\"a\"\n    virtual=\"false\"\n  ];\n  1 [\n    uid=\"b\"\n    virtual=\"true\"\n  ];\n\n  // Edge definitions.\n  0 -> 1;\n}";
    let parsed = parse(text).unwrap();
    assert!(!parsed.strict);
    let view = View::of_dot(&parsed);
    assert!(view.vertices["b"].is_virtual);
    assert!(view.edges.contains(&("a".into(), "b".into())));
    assert_eq!(parsed.nodes[0].1[0].1, "uid=a\nnamespace=ns\nPod.v1/p\n");

    let extras = "/* c */ digraph { graph [rankdir=LR]; node [shape=box]\n# line\n a; a -> b -> c [color=red]; x = y }";
    let parsed = parse(extras).unwrap();
    assert_eq!(parsed.nodes, vec![("a".to_owned(), vec![])]);
    assert_eq!(
        parsed.edges,
        vec![("a".into(), "b".into()), ("b".into(), "c".into())]
    );
}

#[test]
fn parse_errors_say_where() {
    let e = parse("hello").unwrap_err();
    assert!(e.message.contains("digraph"), "{e}");
    let e = parse("digraph {\n a [\n").unwrap_err();
    assert_eq!(e.line, 2, "{e}");
    assert!(parse("digraph { \"open }").is_err());
    assert!(parse("digraph { subgraph x { } }").is_err());
    assert!(parse("digraph { } trailing").is_err());
    assert!(parse("").is_err());
}

#[test]
fn diff_reports_each_kind_of_difference() {
    let snap = sample();
    let a = analysis(&snap);
    let sub = Subgraph::select(&a, &Selection::default());
    let ours = View::of_subgraph(&sub);
    let mut gc = ours.clone();
    // The GC verified u-gone absent (missing), has not seen u-pod-b yet, knows an extra object
    // and has not processed the RS deletion.
    let gone = gc.vertices.get_mut("u-gone").unwrap();
    gone.is_virtual = false;
    gone.missing = true;
    gone.namespace.clear();
    gc.vertices.remove("u-pod-b");
    gc.edges.retain(|(f, _)| f != "u-pod-b");
    let mut extra = gc.vertices["u-pod-a"].clone();
    extra.uid = "u-extra".into();
    gc.vertices.insert("u-extra".into(), extra);
    gc.edges.insert(("u-extra".into(), "u-rs".into()));
    let rs = gc.vertices.get_mut("u-rs").unwrap();
    rs.being_deleted = false;
    rs.deleting_dependents = false;
    let side = |n: &str| SideSummary {
        source: n.into(),
        format: None,
        nodes: 0,
        edges: 0,
    };
    let d = gcdiff::diff(&gc, &ours, side("gc"), side("ours"));
    assert!(!d.identical);
    assert_eq!(
        d.only_in_gc.iter().map(|v| &v.uid).collect::<Vec<_>>(),
        ["u-extra"]
    );
    assert_eq!(
        d.only_in_ours.iter().map(|v| &v.uid).collect::<Vec<_>>(),
        ["u-pod-b"]
    );
    assert_eq!(d.different.len(), 2);
    let gone = d.different.iter().find(|x| x.gc.uid == "u-gone").unwrap();
    let fields: Vec<&str> = gone.fields.iter().map(|f| f.field).collect();
    assert_eq!(fields, ["missing", "virtual", "namespace"]);
    assert!(gone.explanation.contains("verified this owner absent"));
    let rs = d.different.iter().find(|x| x.gc.uid == "u-rs").unwrap();
    assert!(rs.explanation.contains("lag"), "{}", rs.explanation);
    assert_eq!(d.edges_only_in_gc.len(), 1);
    assert_eq!(d.edges_only_in_ours.len(), 2);
    assert_eq!(d.count(), 7);
    let mut text = Vec::new();
    gcdiff::write_text(&mut text, &d, &gc, &ours, Styles::plain()).unwrap();
    let text = String::from_utf8(text).unwrap();
    for needle in [
        "ONLY IN THE GC (1)",
        "ONLY IN OURS (1)",
        "DIFFERENT (2)",
        "EDGES ONLY IN OURS (2)",
        "Pod/web-1-b -n shop -> ReplicaSet/web-1 -n shop",
        "7 difference(s)",
    ] {
        assert!(text.contains(needle), "{needle} missing in\n{text}");
    }
}

#[test]
fn namespace_scoping_of_views() {
    let snap = sample();
    let a = analysis(&snap);
    let mut v = View::of_subgraph(&Subgraph::select(&a, &Selection::default()));
    v.scope_namespace("other");
    assert!(v.vertices.is_empty() && v.edges.is_empty());
    let mut v = View::of_subgraph(&Subgraph::select(&a, &Selection::default()));
    v.scope_namespace("shop");
    assert_eq!(v.vertices.len(), 5);
}

#[test]
fn tree_draws_owners_above_dependents_with_gc_state() {
    let snap = sample();
    let a = analysis(&snap);
    let sub = Subgraph::select(&a, &Selection::default());
    let mut out = Vec::new();
    tree::write(&mut out, &sub, Styles::plain()).unwrap();
    let text = String::from_utf8(out).unwrap();
    let expected = "\
NAMESPACE   NAME                 REFERENCE                    GC STATE
shop        ConfigMap/gone                                    virtual
shop        └─Pod/web-1-b        dangling
shop        Deployment/web
shop        └─ReplicaSet/web-1   solid, controller, block     deletingDependents, finalizers=foregroundDeletion
shop          ├─Pod/web-1-a      waiting, controller, block   terminating, finalizers=example.com/drain
shop          └─Pod/web-1-b      waiting
";
    assert_eq!(text, expected);
}

#[test]
fn tree_cuts_cycles_and_colours_when_asked() {
    let mut c = Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "a", "a")
        .owner("v1", "ConfigMap", "b", "b");
    c.obj("v1", "ConfigMap", "ns", "b", "b")
        .owner("v1", "ConfigMap", "a", "a");
    let snap = c.build();
    let a = analysis(&snap);
    let sub = Subgraph::select(&a, &Selection::default());
    let mut out = Vec::new();
    tree::write(&mut out, &sub, Styles::plain()).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(
        text,
        "NAMESPACE   NAME              REFERENCE   GC STATE\n\
         ns          ConfigMap/a\n\
         ns          └─ConfigMap/b     solid\n\
         ns            └─ConfigMap/a   solid       ownership cycle\n"
    );
    let mut out = Vec::new();
    tree::write(&mut out, &sub, Styles { color: true }).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("\u{1b}[32msolid\u{1b}[39m"), "{text:?}");
    assert!(
        text.contains("\u{1b}[31mownership cycle\u{1b}[39m"),
        "{text:?}"
    );
}

#[test]
fn mermaid_escapes_labels_and_styles_edges() {
    let mut sub = Subgraph::new();
    let a = sub.add_vertex(Vertex {
        name: "x\"]; click n0 \"javascript:alert(1)\" #<b>&",
        ..vertex("a")
    });
    let b = sub.add_vertex(Vertex {
        is_virtual: true,
        ..vertex("b")
    });
    sub.add_edge(
        a,
        b,
        Reference {
            class: Some(RefClassLabel::Dangling),
            block_owner_deletion: Some(true),
            ..Reference::default()
        },
    );
    let mut out = Vec::new();
    mermaid::write(&mut out, &sub).unwrap();
    let text = String::from_utf8(out).unwrap();
    let first = text.lines().nth(1).unwrap();
    assert_eq!(
        first,
        "  n0[\"ReplicaSet/x#34;#93;; click n0 #34;javascript:alert(1)#34; #35;#60;b#62;#38;<br/>ns: shop\"]"
    );
    assert_eq!(first.matches('"').count(), 2, "only the label's own quotes");
    assert!(text.contains("  n1[\"ReplicaSet/web<br/>ns: shop<br/>(virtual)\"]:::virtual\n"));
    assert!(text.contains("  n0 -->|dangling, block| n1\n"));
    assert!(text.contains("  linkStyle 0 stroke:#d62728,stroke-width:2px\n"));
    assert!(text.starts_with("flowchart BT\n"));
}

#[test]
fn json_carries_the_dot_attributes_and_more() {
    let snap = sample();
    let a = analysis(&snap);
    let sub = Subgraph::select(&a, &Selection::default());
    let doc = serde_json::to_value(json::document(&sub)).unwrap();
    assert_eq!(doc["kind"], "OwnershipGraph");
    let nodes = doc["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 5);
    let rs = nodes.iter().find(|n| n["uid"] == "u-rs").unwrap();
    for key in [
        "group",
        "version",
        "kind",
        "namespace",
        "name",
        "uid",
        "missing",
        "beingDeleted",
        "deletingDependents",
        "virtual",
    ] {
        assert!(rs.get(key).is_some(), "{key}");
    }
    assert_eq!(rs["group"], "apps");
    assert_eq!(rs["deletingDependents"], true);
    assert_eq!(rs["finalizers"], serde_json::json!(["foregroundDeletion"]));
    let edges = doc["edges"].as_array().unwrap();
    assert_eq!(edges.len(), 4);
    let e = edges
        .iter()
        .find(|e| e["from"] == "u-pod-b" && e["to"] == "u-gone")
        .unwrap();
    assert_eq!(e["classification"], "dangling");
    assert_eq!(e["ownerReference"]["name"], "gone");
    assert!(e["ownerReference"].get("controller").is_none());
}

/// A vertex for hand-built subgraphs (leaks its strings: test only).
fn cm(name: String) -> Vertex<'static> {
    let name: &'static str = Box::leak(name.into_boxed_str());
    Vertex {
        uid: name,
        api_version: "v1",
        kind: "ConfigMap",
        name,
        namespace: "ns",
        ..Vertex::default()
    }
}

fn solid() -> Reference<'static> {
    Reference {
        class: Some(RefClassLabel::Solid),
        ..Reference::default()
    }
}

#[test]
fn tree_of_a_32k_deep_chain_is_cut_at_the_depth_limit_with_a_note() {
    // Issue 12 case 8: every level of a 32,768-deep chain used to be drawn, each line indented
    // two columns more than the last and every line padded to the widest: 2 GB of output.
    const N: usize = 32_768;
    let mut sub = Subgraph::new();
    let ids: Vec<_> = (0..N)
        .map(|i| sub.add_vertex(cm(format!("c{i}"))))
        .collect();
    for i in 1..N {
        sub.add_edge(ids[i], ids[i - 1], solid());
    }
    let mut out = Vec::new();
    let stats = tree::write_with(
        &mut out,
        &sub,
        Styles::plain(),
        tree::TreeOptions::default(),
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    let depth = tree::DEFAULT_MAX_DEPTH;
    assert_eq!(stats.cuts, 1);
    assert_eq!(stats.rows, depth + 1);
    assert_eq!(stats.hidden, N - depth - 1);
    assert_eq!(text.lines().count(), depth + 2, "header + the drawn levels");
    let last = text.lines().last().unwrap();
    assert!(
        last.contains(&format!("ConfigMap/c{depth} "))
            && last.contains(&format!(
                "dependents not shown (depth limit {depth}): kubectl gc graph --uid c{depth} --direction down"
            )),
        "{last}"
    );
    assert!(text.len() < 64 * 1024, "{} bytes", text.len());
    // A shallower limit cuts earlier.
    let mut out = Vec::new();
    let s = tree::write_with(
        &mut out,
        &sub,
        Styles::plain(),
        tree::TreeOptions {
            max_depth: 3,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!((s.rows, s.cuts), (4, 1));
}

#[test]
fn tree_of_an_owner_with_200k_dependents_and_a_dependent_with_200k_owners_is_linear() {
    // Children used to be grouped by a linear search per edge: quadratic in the number of
    // dependents (and ownerReferences) of one object.
    const N: usize = 200_000;
    let mut sub = Subgraph::new();
    let owner = sub.add_vertex(cm("owner".into()));
    for i in 0..N {
        let d = sub.add_vertex(cm(format!("d{i:06}")));
        sub.add_edge(d, owner, solid());
    }
    // One object listing 200k owners, each of them an owner with no owner of its own.
    let many = sub.add_vertex(cm("many".into()));
    for i in 0..N {
        let o = sub.add_vertex(cm(format!("o{i:06}")));
        sub.add_edge(many, o, solid());
    }
    let mut out = Vec::new();
    let started = std::time::Instant::now();
    let stats = tree::write_with(
        &mut out,
        &sub,
        Styles::plain(),
        tree::TreeOptions::default(),
    )
    .unwrap();
    // Linear takes seconds in a debug build; the quadratic grouping this guards against makes
    // some 4·10^10 comparisons here, minutes at the least. The bound tells the two apart with
    // room for a loaded machine.
    let took = started.elapsed();
    assert!(
        took < std::time::Duration::from_secs(60),
        "rendering took {took:?}: not linear"
    );
    // owner + its N dependents; N owners each with `many` under it.
    assert_eq!(stats.rows, 1 + N + 2 * N);
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.lines().all(|l| l.len() < 80),
        "no line is padded beyond the widest name"
    );
}
