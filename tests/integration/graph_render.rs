//! `kubectl gc graph` renderings, byte for byte against golden files in `tests/golden/graph/`,
//! the GC endpoint's own test cases (gc-semantics §7.4), Graphviz acceptance and the command
//! line.
//!
//! Regenerate the golden files after an intended change with
//! `KGC_UPDATE_GOLDEN=1 cargo test --test integration graph_render::` (and review the diff).
//!
//! `empty.dot`, `upstream-simple.dot` and `escaping.dot` are byte-identical to the endpoint's
//! own golden files (kubernetes `pkg/controller/garbagecollector/testdata/`).

use crate::support::run::kubectl_gc;
use kubectl_gc::catalog::KubeVersion;
use kubectl_gc::gc::GarbageCollector;
use kubectl_gc::gc::classify::RefClassLabel;
use kubectl_gc::gc::graph::NodeId;
use kubectl_gc::render::Styles;
use kubectl_gc::render::graph::{
    Direction, Reference, Selection, Subgraph, Vertex, dot, json, mermaid, tree,
};
use kubectl_gc::snapshot::Snapshot;
use kubectl_gc::testkit::Cluster;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/graph")
}

/// Compares `actual` with the golden file `name` (or writes it with KGC_UPDATE_GOLDEN=1).
fn golden(name: &str, actual: &[u8]) {
    let path = golden_dir().join(name);
    if std::env::var_os("KGC_UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (create it with KGC_UPDATE_GOLDEN=1)",
            path.display()
        )
    });
    if expected != actual {
        panic!(
            "{} differs from the output:\n--- expected\n{}\n--- actual\n{}",
            path.display(),
            String::from_utf8_lossy(&expected),
            String::from_utf8_lossy(actual)
        );
    }
}

fn render(
    sub: &Subgraph<'_>,
    f: fn(&mut dyn std::io::Write, &Subgraph<'_>) -> std::io::Result<()>,
) -> Vec<u8> {
    let mut out = Vec::new();
    f(&mut out, sub).unwrap();
    out
}

fn dot_current(sub: &Subgraph<'_>) -> Vec<u8> {
    render(sub, dot::write)
}

fn dot_legacy(sub: &Subgraph<'_>) -> Vec<u8> {
    render(sub, dot::write_legacy)
}

/// gc-semantics §7.4 with ConfigMaps: alpha is owned by bravo and charlie, delta by foxtrot,
/// foxtrot by golf; echo has no references. Only the named objects exist.
fn dump_fixture(only: &[&str]) -> Snapshot {
    kubectl_gc::testkit::dump_test_fixture(only)
}

const ALL: &[&str] = &[
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
];
const SIMPLE: &[&str] = &["alpha", "bravo", "charlie"];

fn roots(a: &GarbageCollector<'_>, uids: &[&str]) -> Vec<NodeId> {
    uids.iter()
        .filter_map(|u| {
            a.snap
                .store
                .strings
                .get(u)
                .and_then(|s| a.graph.uid_to_node(s))
        })
        .collect()
}

/// The DOT of the selection from `uids` (all nodes with relations when empty).
fn dump(only: &[&str], uids: &[&str], legacy: bool) -> Vec<u8> {
    let snap = dump_fixture(only);
    let a = GarbageCollector::new(&snap, KubeVersion::NEWEST);
    let r = roots(&a, uids);
    // Requested UIDs that all lack a node select nothing (as the endpoint's ?uid=).
    let sub = if !uids.is_empty() && r.is_empty() {
        Subgraph::new()
    } else {
        Subgraph::select(
            &a,
            &Selection {
                roots: r,
                ..Selection::default()
            },
        )
    };
    if legacy {
        dot_legacy(&sub)
    } else {
        dot_current(&sub)
    }
}

// ---------------------------------------------------------------------------------------------
// §7.4 TestToDOTGraph / TestToDOTGraphObj / TestMarshalDOT

#[test]
fn dump_empty() {
    let out = dump(&["echo"], &[], false);
    assert_eq!(out, b"strict digraph full {\n}\n");
    golden("empty.dot", &out);
    golden("empty.legacy.dot", &dump(&["echo"], &[], true));
}

#[test]
fn dump_simple() {
    golden("simple.dot", &dump(SIMPLE, &[], false));
    golden("simple.legacy.dot", &dump(SIMPLE, &[], true));
}

#[test]
fn dump_missing_owner_is_virtual() {
    // Upstream's "missing" case removes bravo's node by hand; a snapshot of such a cluster has a
    // virtual node for bravo (as the GC has until it verifies bravo absent).
    let out = dump(&["alpha", "charlie"], &[], false);
    golden("missing.dot", &out);
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("uid=bravo\\nnamespace=default\\nConfigMap.v1/bravo\\nvirtual\\n"));
}

#[test]
fn dump_drop_no_ref() {
    let mut with_echo = SIMPLE.to_vec();
    with_echo.push("echo");
    assert_eq!(dump(&with_echo, &[], false), dump(SIMPLE, &[], false));
}

#[test]
fn dump_two_chains() {
    let out = dump(ALL, &[], false);
    golden("two-chains.dot", &out);
    golden("two-chains.legacy.dot", &dump(ALL, &[], true));
    let text = String::from_utf8(out).unwrap();
    let edges: Vec<&str> = text.lines().filter(|l| l.contains("->")).collect();
    assert_eq!(
        edges,
        [
            "  \"alpha\" -> \"bravo\";",
            "  \"alpha\" -> \"charlie\";",
            "  \"delta\" -> \"foxtrot\";",
            "  \"foxtrot\" -> \"golf\";"
        ]
    );
}

#[test]
fn dump_components() {
    // uid=bravo on simple: all three.
    assert_eq!(dump(SIMPLE, &["bravo"], false), dump(SIMPLE, &[], false));
    // uid=bravo where bravo has no object: its virtual node still links alpha and charlie.
    assert_eq!(
        dump(&["alpha", "charlie"], &["bravo"], false),
        dump(&["alpha", "charlie"], &[], false)
    );
    // A UID nothing has: empty.
    assert_eq!(
        dump(SIMPLE, &["zulu"], false),
        b"strict digraph full {\n}\n"
    );
    // uid=echo (no references): empty.
    let mut with_echo = SIMPLE.to_vec();
    with_echo.push("echo");
    assert_eq!(
        dump(&with_echo, &["echo"], false),
        b"strict digraph full {\n}\n"
    );
    // uid=golf and uid=delta: the delta-foxtrot-golf chain.
    let golf = dump(ALL, &["golf"], false);
    golden("component-golf.dot", &golf);
    assert_eq!(dump(ALL, &["delta"], false), golf);
    golden("component-golf.legacy.dot", &dump(ALL, &["golf"], true));
    // uids delta and charlie: everything (4 edges).
    assert_eq!(
        dump(ALL, &["delta", "charlie"], false),
        dump(ALL, &[], false)
    );
}

/// Upstream's fixture exactly: nodes with nothing but a UID (no apiVersion, kind, name or
/// namespace) — not expressible as objects, so built as a subgraph.
fn upstream_simple() -> Subgraph<'static> {
    let mut sub = Subgraph::new();
    let mut idx = std::collections::HashMap::new();
    for uid in ["alpha", "bravo", "charlie", "delta", "foxtrot", "golf"] {
        idx.insert(
            uid,
            sub.add_vertex(Vertex {
                uid,
                ..Vertex::default()
            }),
        );
    }
    for (f, t) in [
        ("alpha", "bravo"),
        ("alpha", "charlie"),
        ("delta", "foxtrot"),
        ("foxtrot", "golf"),
    ] {
        sub.add_edge(idx[f], idx[t], Reference::default());
    }
    sub
}

#[test]
fn marshal_upstream_simple() {
    let sub = upstream_simple();
    golden("upstream-simple.dot", &dot_current(&sub));
    golden("upstream-simple.legacy.dot", &dot_legacy(&sub));
}

#[test]
fn marshal_escaping() {
    let kind = "ref1kind-Iñtërnâtiônàlizætiøn,🐹";
    let mut c = Cluster::new();
    c.resource("ref1group", "version", kind, "ref1kinds", true);
    c.resource("ref2group", "version", "ref2kind-", "ref2kinds", true);
    c.obj(
        "ref1group/version",
        kind,
        "ref1ns",
        "ref1name-Iñtërnâtiônàlizætiøn,🐹",
        "ref1-[]\"\\Iñtërnâtiônàlizætiøn,🐹",
    )
    .owner("ref2group/version", "ref2kind-", "ref2name-", "ref2-");
    c.obj(
        "ref2group/version",
        "ref2kind-",
        "ref2ns",
        "ref2name-",
        "ref2-",
    );
    let snap = c.build();
    let a = GarbageCollector::new(&snap, KubeVersion::NEWEST);
    let sub = Subgraph::select(&a, &Selection::default());
    let out = dot_current(&sub);
    golden("escaping.dot", &out);
    let text = String::from_utf8(out.clone()).unwrap();
    assert!(text.contains("  \"ref1-[]\\\"\\\\Iñtërnâtiônàlizætiøn,🐹\" -> \"ref2-\";\n"));
    golden("escaping.legacy.dot", &dot_legacy(&sub));
    golden("escaping.styled.gv", &render(&sub, dot::write_styled));
    // The parser reads back the exact UIDs.
    let parsed = dot::parse(&text).unwrap();
    assert_eq!(parsed.nodes[0].0, "ref1-[]\"\\Iñtërnâtiônàlizætiøn,🐹");
}

#[test]
fn marshal_missing_vertex_as_the_gc_prints_it() {
    // After the GC verifies an owner absent it drops the owner's node; dependents still point
    // at it and the endpoint synthesises a "missing" vertex (namespace empty).
    let mut sub = Subgraph::new();
    let dep = sub.add_vertex(Vertex {
        uid: "dep",
        api_version: "v1",
        kind: "ConfigMap",
        name: "held",
        namespace: "default",
        being_deleted: true,
        ..Vertex::default()
    });
    let gone = sub.add_vertex(Vertex {
        uid: "gone",
        api_version: "v1",
        kind: "ConfigMap",
        name: "gone",
        missing: true,
        ..Vertex::default()
    });
    sub.add_edge(dep, gone, Reference::default());
    golden("missing-synthetic.dot", &dot_current(&sub));
    golden("missing-synthetic.legacy.dot", &dot_legacy(&sub));
}

// ---------------------------------------------------------------------------------------------
// A cluster with every GC state, in every format

fn states() -> Snapshot {
    let mut c = Cluster::new();
    c.forbid("", "secrets");
    c.obj("apps/v1", "Deployment", "shop", "web", "u-01-deploy");
    c.obj("apps/v1", "ReplicaSet", "shop", "web-5d4f", "u-02-rs")
        .owner("apps/v1", "Deployment", "web", "u-01-deploy")
        .controller(true)
        .block(true)
        .deleting()
        .finalizers(&["foregroundDeletion"]);
    c.obj("v1", "Pod", "shop", "web-5d4f-a", "u-03-pod-a")
        .owner("apps/v1", "ReplicaSet", "web-5d4f", "u-02-rs")
        .controller(true)
        .block(true)
        .deleting()
        .finalizers(&["example.com/drain"]);
    c.obj("v1", "Pod", "shop", "web-5d4f-b", "u-04-pod-b")
        .owner("apps/v1", "ReplicaSet", "web-5d4f", "u-02-rs")
        .controller(true)
        .block(true)
        .owner("v1", "Node", "node-1", "u-05-node");
    c.obj("v1", "Node", "", "node-1", "u-05-node");
    c.obj("v1", "ConfigMap", "shop", "orphaned", "u-06-cm")
        .owner("apps/v1", "Deployment", "old", "u-07-gone");
    c.obj("v1", "ConfigMap", "shop", "legacy", "u-08-cm").owner(
        "extensions/v1beta1",
        "Deployment",
        "web",
        "u-01-deploy",
    );
    c.obj("v1", "ConfigMap", "shop", "secret-owned", "u-09-cm")
        .owner("v1", "Secret", "creds", "u-10-secret");
    c.obj(
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        "",
        "scoped",
        "u-11-role",
    )
    .owner("v1", "ConfigMap", "cm", "u-12-cm");
    c.obj("v1", "ConfigMap", "loop", "a", "u-13-a")
        .owner("v1", "ConfigMap", "b", "u-14-b");
    c.obj("v1", "ConfigMap", "loop", "b", "u-14-b")
        .owner("v1", "ConfigMap", "a", "u-13-a");
    c.obj("v1", "ConfigMap", "shop", "alone", "u-15-alone");
    c.build()
}

fn states_sub<'a>(
    a: &GarbageCollector<'a>,
    uids: &[&str],
    direction: Direction,
    depth: Option<u32>,
) -> Subgraph<'a> {
    Subgraph::select(
        a,
        &Selection {
            roots: roots(a, uids),
            direction,
            depth,
            namespace: None,
        },
    )
}

#[test]
fn states_in_every_format() {
    let snap = states();
    let a = GarbageCollector::new(&snap, KubeVersion::NEWEST);
    let sub = states_sub(&a, &[], Direction::Both, None);
    golden("states.dot", &dot_current(&sub));
    golden("states.legacy.dot", &dot_legacy(&sub));
    let mut t = Vec::new();
    tree::write(&mut t, &sub, Styles::plain()).unwrap();
    golden("states.tree.txt", &t);
    let mut t = Vec::new();
    tree::write(&mut t, &sub, Styles { color: true }).unwrap();
    golden("states.tree-color.txt", &t);
    golden("states.mermaid", &render(&sub, mermaid::write));
    golden("states.styled.gv", &render(&sub, dot::write_styled));
    let mut j = serde_json::to_vec_pretty(&json::document(&sub)).unwrap();
    j.push(b'\n');
    golden("states.json", &j);

    // Every classification is represented.
    let classes: std::collections::BTreeSet<String> = sub
        .graph
        .edge_weights()
        .filter_map(|r| r.class)
        .map(|c| format!("{c:?}"))
        .collect();
    for c in [
        RefClassLabel::Solid,
        RefClassLabel::Waiting,
        RefClassLabel::Dangling,
        RefClassLabel::Unresolvable,
        RefClassLabel::InvalidScope,
        RefClassLabel::Unknown,
    ] {
        assert!(
            classes.contains(&format!("{c:?}")),
            "{c:?} not in {classes:?}"
        );
    }
    let text = String::from_utf8(t).unwrap();
    assert!(!text.contains("alone"));
}

#[test]
fn states_narrowed_with_direction_and_depth() {
    let snap = states();
    let a = GarbageCollector::new(&snap, KubeVersion::NEWEST);
    let tree_of = |sub: &Subgraph<'_>| {
        let mut t = Vec::new();
        tree::write(&mut t, sub, Styles::plain()).unwrap();
        t
    };
    // Up from a pod: its owners' chains only (not the sibling pod, not the node's other pods).
    let up = states_sub(&a, &["u-04-pod-b"], Direction::Up, None);
    golden("states-up-pod-b.tree.txt", &tree_of(&up));
    // Down from the deployment, one hop: the RS only.
    let down1 = states_sub(&a, &["u-01-deploy"], Direction::Down, Some(1));
    golden("states-down-1-deploy.tree.txt", &tree_of(&down1));
    // Down without a limit: the RS and both pods, and legacy's ConfigMap.
    let down = states_sub(&a, &["u-01-deploy"], Direction::Down, None);
    golden("states-down-deploy.tree.txt", &tree_of(&down));
    // Both ways (the component) reaches the node through pod b.
    let both = states_sub(&a, &["u-01-deploy"], Direction::Both, None);
    let names: Vec<&str> = both.graph.node_weights().map(|v| v.name).collect();
    assert!(
        names.contains(&"node-1") && names.contains(&"legacy"),
        "{names:?}"
    );
    assert!(!names.contains(&"orphaned"));
}

// ---------------------------------------------------------------------------------------------
// Graphviz accepts every DOT we print

#[test]
fn graphviz_accepts_our_dot() {
    let dot_bin = which("dot").unwrap_or_else(|| {
        panic!(
            "Graphviz `dot` is not installed: this test needs it (Debian: apt-get install graphviz; .ci/run installs it)"
        )
    });
    let mut checked = 0;
    let mut names: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dot"))
        .collect();
    names.sort();
    for path in names {
        let input = std::fs::read(&path).unwrap();
        let expected_nodes = dot::parse(std::str::from_utf8(&input).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .nodes
            .len();
        let mut child = Command::new(&dot_bin)
            .arg("-Tsvg")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&input).unwrap();
        let out = child.wait_with_output().unwrap();
        let svg = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "dot -Tsvg rejected {}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(svg.contains("<svg"), "{}", path.display());
        assert_eq!(
            svg.matches("class=\"node\"").count(),
            expected_nodes,
            "{}: Graphviz drew another number of vertices",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} DOT files checked");
}

/// Runs `dot -Tsvg` on `input`; returns the SVG, failing on any error or warning.
fn graphviz_svg(input: &[u8], what: &str) -> String {
    let dot_bin = which("dot").unwrap_or_else(|| {
        panic!(
            "Graphviz `dot` is not installed: this test needs it (Debian: apt-get install graphviz; .ci/run installs it)"
        )
    });
    let mut child = Command::new(&dot_bin)
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "dot -Tsvg rejected {what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The styled DOT (`-o dot`'s default): Graphviz draws every vertex, and names cannot leave
/// their strings.
#[test]
fn graphviz_accepts_our_styled_dot() {
    let mut names: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "gv"))
        .collect();
    names.sort();
    assert!(names.len() >= 2);
    for path in names {
        let input = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&input);
        let vertices = text.lines().filter(|l| l.contains(" [label=")).count();
        let svg = graphviz_svg(&input, &path.display().to_string());
        assert_eq!(
            svg.matches("class=\"node\"").count(),
            vertices,
            "{}: Graphviz drew another number of vertices",
            path.display()
        );
        assert_eq!(
            svg.matches("class=\"cluster\"").count(),
            text.matches("subgraph cluster_").count()
        );
    }
    // Hostile names: quotes, backslashes (Graphviz's \N escapes), newlines, braces.
    let mut sub = Subgraph::new();
    let a = sub.add_vertex(Vertex {
        uid: "u\"1",
        kind: "Kind\"] ; evil [label=\"x",
        name: "a\\N\nb{c}",
        namespace: "ns\"}",
        being_deleted: true,
        finalizers: vec!["f\"\\"],
        ..Vertex::default()
    });
    let b = sub.add_vertex(Vertex {
        uid: "u\\2",
        kind: "Owner",
        name: "o",
        is_virtual: true,
        namespace: "ns\"}",
        ..Vertex::default()
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
    let out = render(&sub, dot::write_styled);
    let svg = graphviz_svg(&out, "hostile names");
    assert_eq!(svg.matches("class=\"node\"").count(), 2);
    assert_eq!(svg.matches("class=\"edge\"").count(), 1);
    assert!(!svg.contains(">evil<"), "a name became a node: {svg}");
}

/// Thousands of objects: the namespace clusters are wrapped into grids and packed, so the
/// picture is not one rank tens of thousands of points wide.
#[test]
fn large_styled_graphs_stay_compact() {
    let mut c = Cluster::new();
    // 40 namespaces × (15 Deployment → ReplicaSet → 3 Pods) = 3,000 objects, 600 trees.
    for ns in 0..40 {
        let ns = format!("team-{ns:02}");
        for d in 0..15 {
            let dep = format!("{ns}-d{d}");
            let rs = format!("{ns}-r{d}");
            c.obj("apps/v1", "Deployment", &ns, &format!("web-{d}"), &dep);
            c.obj("apps/v1", "ReplicaSet", &ns, &format!("web-{d}-5d4f"), &rs)
                .owner("apps/v1", "Deployment", &format!("web-{d}"), &dep)
                .controller(true);
            for p in 0..3 {
                c.obj(
                    "v1",
                    "Pod",
                    &ns,
                    &format!("web-{d}-5d4f-{p}"),
                    &format!("{rs}-p{p}"),
                )
                .owner("apps/v1", "ReplicaSet", &format!("web-{d}-5d4f"), &rs)
                .controller(true);
            }
        }
    }
    let snap = c.build();
    let a = GarbageCollector::new(&snap, KubeVersion::NEWEST);
    let sub = Subgraph::select(&a, &Selection::default());
    assert_eq!(sub.vertex_count(), 3000);
    let out = render(&sub, dot::write_styled);
    let svg = graphviz_svg(&out, "3,000 objects");
    let dims = |attr: &str| -> f64 {
        let start = svg.find(&format!("{attr}=\"")).unwrap() + attr.len() + 2;
        svg[start..].split("pt").next().unwrap().parse().unwrap()
    };
    let (w, h) = (dims("width"), dims("height"));
    // One flat rank would be ~600 trees × ~400 pt wide; Graphviz's own limit is 32,767.
    assert!(w < 32_767.0 && h < 32_767.0, "{w} × {h} pt");
    assert!(
        w / h < 8.0 && h / w < 8.0,
        "{w} × {h} pt is a strip, not a picture"
    );
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

// ---------------------------------------------------------------------------------------------
// The command line

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn cli_graph_of_a_snapshot() {
    let snap = example("stuck-foreground-deletion.json");
    let (code, out, err) = kubectl_gc(&["graph", "--snapshot", &snap, "-A", "-o", "tree"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("NAMESPACE   NAME"), "{out}");
    assert!(out.contains("└─ReplicaSet/checkout-7d9f8c6b5"), "{out}");
    assert!(out.contains("waiting, controller, block"), "{out}");
    // The tree is the default, on a terminal or not (kubectl's formats do not depend on it).
    let (code, default_out, _) = kubectl_gc(&["graph", "--snapshot", &snap, "-A"]);
    assert_eq!(code, 0);
    assert_eq!(default_out, out);
    // -o dot is styled for people by default; the GC endpoint's with --dot-format gc.
    let (code, dot_out, _) = kubectl_gc(&["graph", "--snapshot", &snap, "-A", "-o", "dot"]);
    assert_eq!(code, 0);
    assert!(
        dot_out.starts_with("// kubectl-gc ownership graph"),
        "{dot_out}"
    );
    let (code, dot_out, _) = kubectl_gc(&[
        "graph",
        "--snapshot",
        &snap,
        "-A",
        "-o",
        "dot",
        "--dot-format",
        "gc",
    ]);
    assert_eq!(code, 0);
    assert!(dot_out.starts_with("strict digraph full {\n"));
    // KIND/NAME selects the component; --direction/--depth narrow it.
    let (code, one, err) = kubectl_gc(&[
        "graph",
        "--snapshot",
        &snap,
        "-n",
        "shop",
        "deployment/checkout",
        "--direction",
        "down",
        "--depth",
        "1",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(doc["nodes"].as_array().unwrap().len(), 2, "{one}");
    assert_eq!(doc["edges"][0]["classification"], "waiting");
    // Mermaid.
    let (code, m, _) = kubectl_gc(&["graph", "--snapshot", &snap, "-A", "-o", "mermaid"]);
    assert_eq!(code, 0);
    assert!(m.starts_with("flowchart BT\n"), "{m}");
}

#[test]
fn cli_graph_errors_and_warnings() {
    let snap = example("stuck-foreground-deletion.json");
    // A lone word is a KIND, as for kubectl get: an unknown one is an error.
    let (code, _, err) = kubectl_gc(&["graph", "--snapshot", &snap, "checkout"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("checkout: no such kind"), "{err}");
    let (code, _, err) = kubectl_gc(&["graph", "--snapshot", &snap, "deployment/"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("expected KIND/NAME"), "{err}");
    let (code, _, err) = kubectl_gc(&["graph", "--snapshot", &snap, "-n", "shop", "pod/nope"]);
    assert_eq!(code, 8, "{err}");
    assert!(err.contains("not found"), "{err}");
    let (code, out, err) = kubectl_gc(&[
        "graph",
        "--snapshot",
        &snap,
        "--uid",
        "no-such-uid",
        "-o",
        "dot",
        "--dot-format",
        "gc",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("uid no-such-uid is not in the graph"), "{err}");
    assert_eq!(out, "strict digraph full {\n}\n");
    let (code, _, err) = kubectl_gc(&[
        "graph",
        "--snapshot",
        &snap,
        "--from-gc",
        "x.dot",
        "--depth",
        "1",
    ]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn cli_from_gc_file() {
    let snap = example("stuck-foreground-deletion.json");
    let dir = tempfile::tempdir().unwrap();
    // Our own DOT (either format) read back as the GC's: no difference.
    for legacy in [false, true] {
        let mut args = vec!["graph", "--snapshot", &snap, "-A", "-o", "dot"];
        args.extend(["--dot-format", if legacy { "legacy" } else { "gc" }]);
        let (code, dot_text, err) = kubectl_gc(&args);
        assert_eq!(code, 0, "{err}");
        let file = dir.path().join(format!("gc-{legacy}.dot"));
        std::fs::write(&file, &dot_text).unwrap();
        let f = file.to_string_lossy().into_owned();
        let (code, out, err) = kubectl_gc(&["graph", "--snapshot", &snap, "-A", "--from-gc", &f]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("no differences"), "{out}");
        let fmt = if legacy {
            "legacy format"
        } else {
            "v1.26+ format"
        };
        assert!(out.contains(fmt), "{out}");
    }
    // A GC graph that lags: the pod is not terminating yet there, and it knows another pod.
    let (_, dot_text, _) = kubectl_gc(&[
        "graph",
        "--snapshot",
        &snap,
        "-A",
        "-o",
        "dot",
        "--dot-format",
        "gc",
    ]);
    let lagging = dot_text
        .replace(
            "\\nPod.v1/checkout-7d9f8c6b5-x2x9q\\nbeingDeleted\\n",
            "\\nPod.v1/checkout-7d9f8c6b5-x2x9q\\n",
        )
        .replacen(
            "    beingDeleted=\"true\"\n    deletingDependents=\"false\"",
            "    beingDeleted=\"false\"\n    deletingDependents=\"false\"",
            1,
        );
    let file = dir.path().join("lagging.dot");
    std::fs::write(&file, lagging).unwrap();
    let f = file.to_string_lossy().into_owned();
    let (code, out, err) = kubectl_gc(&[
        "graph",
        "--snapshot",
        &snap,
        "-A",
        "--from-gc",
        &f,
        "-o",
        "json",
    ]);
    assert_eq!(code, 5, "{out}{err}");
    let d: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(d["identical"], false);
    assert_eq!(d["different"][0]["fields"][0]["field"], "beingDeleted");
    // Not a DOT file: input error.
    let bad = dir.path().join("bad.dot");
    std::fs::write(&bad, "<html>404</html>").unwrap();
    let (code, _, err) = kubectl_gc(&[
        "graph",
        "--snapshot",
        &snap,
        "--from-gc",
        &bad.to_string_lossy(),
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("not a DOT graph"), "{err}");
    // An endpoint nobody listens on: exit 4 with a hint.
    let (code, _, err) = kubectl_gc(&[
        "graph",
        "--snapshot",
        &snap,
        "--from-gc",
        "http://127.0.0.1:9",
    ]);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("hint:"), "{err}");
}
