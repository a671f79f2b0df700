//! `kubectl gc graph` against the real garbage collector: a kube-apiserver and a
//! kube-controller-manager v1.20.2 running only the GC (`testenv.rs`, with the GC).
//!
//! For components of a populated cluster, the node set and the edge set of
//! `kubectl-gc graph --uid X -o dot` must equal those of the GC's own debug endpoint
//! (`/debug/controllers/garbagecollector/graph?uid=X`, legacy gonum format in 1.20: integer
//! vertex ids are mapped back to UIDs through the `uid` attribute), and our
//! `--dot-format legacy` must be byte-identical to the GC's output once the GC's per-request
//! integer ids are renumbered in UID order.
//!
//! The fixtures avoid races with the GC: healthy chains, an absent owner and a cross-namespace
//! reference whose dependents carry a finalizer (the GC deletes them, the finalizer keeps them:
//! a stable terminating state), a custom resource owning a ConfigMap (the GC picks the new CRD up
//! at its 30 s discovery resync; we wait for it), and a cluster-scoped dependent naming a
//! namespaced owner kind (the GC keeps that virtual node forever).
//!
//! One control plane with the GC for the suite; `fixtures` and `gc_observed_the_fixtures` run
//! first (the others need them).

use crate::gc_dot::{Sets, sets, unquote};
use crate::harness::{Suite, Test};
use crate::testenv::{self, TestEnv};
use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct Ctx {
    env: TestEnv,
    gc_url: String,
    uids: Mutex<BTreeMap<&'static str, String>>,
}

/// What every comparison builds on: the objects, and the GC having observed them.
const OBSERVED: &[&str] = &["fixtures", "gc_observed_the_fixtures"];

const fn test(name: &'static str, run: fn(&Ctx)) -> Test<Ctx> {
    Test {
        name,
        needs: OBSERVED,
        run,
    }
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "graph",
    setup,
    tests: &[
        Test {
            name: "fixtures",
            needs: &[],
            run: fixtures,
        },
        Test {
            name: "gc_observed_the_fixtures",
            needs: &["fixtures"],
            run: gc_observed_the_fixtures,
        },
        test("components_match_the_gc", components_match_the_gc),
        test("whole_graph_matches_the_gc", whole_graph_matches_the_gc),
        test(
            "legacy_dot_is_byte_identical_modulo_ids",
            legacy_dot_is_byte_identical_modulo_ids,
        ),
        test(
            "from_gc_reports_only_real_differences",
            from_gc_reports_only_real_differences,
        ),
        test("from_gc_endpoint_errors", from_gc_endpoint_errors),
    ],
};

fn setup() -> Result<Ctx, String> {
    let env = TestEnv::start(true)?;
    let gc_url = env
        .gc_url
        .clone()
        .ok_or("the control plane has no GC debug URL")?;
    println!("graph: GC debug endpoint at {gc_url}");
    Ok(Ctx {
        env,
        gc_url,
        uids: Mutex::new(BTreeMap::new()),
    })
}

// ---------------------------------------------------------------------------------------------
// Helpers

fn kubectl(ctx: &Ctx, args: &[&str]) -> String {
    ctx.env.kubectl(args).unwrap_or_else(|e| panic!("{e}"))
}

fn apply(ctx: &Ctx, yaml: &str) {
    let mut last = String::new();
    for _ in 0..20 {
        match ctx.env.kubectl_stdin(&["apply", "-f", "-"], Some(yaml)) {
            Ok(_) => return,
            Err(e) => last = e,
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    panic!("{last}");
}

fn uid_of(ctx: &Ctx, key: &'static str, args: &[&str]) -> String {
    let mut a = vec!["get"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["-o", "jsonpath={.metadata.uid}"]);
    let uid = kubectl(ctx, &a);
    assert!(!uid.is_empty(), "no uid for {args:?}");
    ctx.uids.lock().unwrap().insert(key, uid.clone());
    uid
}

fn uid(ctx: &Ctx, key: &str) -> String {
    ctx.uids
        .lock()
        .unwrap()
        .get(key)
        .cloned()
        .unwrap_or_else(|| panic!("fixture {key} missing"))
}

/// `GET <url>` (the GC's debug endpoint); panics unless the answer is 2xx.
fn http_get(url: &str) -> String {
    testenv::http_get(url).unwrap_or_else(|e| panic!("{e}"))
}

fn gc_graph(ctx: &Ctx, uids: &[&str]) -> String {
    let q: Vec<String> = uids.iter().map(|u| format!("uid={u}")).collect();
    let query = if q.is_empty() {
        String::new()
    } else {
        format!("?{}", q.join("&"))
    };
    http_get(&format!(
        "{}/debug/controllers/garbagecollector/graph{query}",
        ctx.gc_url
    ))
}

/// Runs the binary under test; returns (exit code, stdout, stderr).
fn kubectl_gc(ctx: &Ctx, args: &[&str]) -> (i32, String, String) {
    let kubeconfig = ctx.env.kubeconfig.to_string_lossy().into_owned();
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(args)
        .args(["--kubeconfig", &kubeconfig])
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run kubectl-gc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn our_graph(ctx: &Ctx, uids: &[&str], extra: &[&str]) -> String {
    let mut args = vec!["graph", "-A", "-o", "dot"];
    if !extra.contains(&"--dot-format") {
        // The endpoint's own bytes (the default DOT is styled for people).
        args.extend(["--dot-format", "gc"]);
    }
    for u in uids {
        args.extend(["--uid", u]);
    }
    args.extend_from_slice(extra);
    let (code, out, err) = kubectl_gc(ctx, &args);
    assert_eq!(code, 0, "kubectl-gc {args:?}: {err}");
    out
}

/// Polls until `check` passes (the GC and our snapshot converge), up to `secs`.
fn eventually(secs: u64, what: &str, mut check: impl FnMut() -> Result<(), String>) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        match check() {
            Ok(()) => return,
            Err(e) if Instant::now() >= deadline => panic!("{what}: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(1500)),
        }
    }
}

/// Compares the node and edge sets of the GC's graph and ours for `uids`; `flags_except`
/// lists UIDs whose flags may differ (checked by the caller).
fn compare(ctx: &Ctx, uids: &[&str], flags_except: &[&str]) -> Result<(Sets, Sets), String> {
    let gc = sets(&gc_graph(ctx, uids));
    let ours = sets(&our_graph(ctx, uids, &[]));
    let gc_nodes: BTreeSet<&String> = gc.vertices.keys().collect();
    let our_nodes: BTreeSet<&String> = ours.vertices.keys().collect();
    if gc_nodes != our_nodes {
        return Err(format!(
            "node sets differ for {uids:?}:\n  GC:   {gc_nodes:?}\n  ours: {our_nodes:?}"
        ));
    }
    if gc.edges != ours.edges {
        return Err(format!(
            "edge sets differ for {uids:?}:\n  GC:   {:?}\n  ours: {:?}",
            gc.edges, ours.edges
        ));
    }
    for (u, f) in &gc.vertices {
        if !flags_except.contains(&u.as_str()) && ours.vertices[u] != *f {
            return Err(format!(
                "flags of {u} differ: GC {f:?}, ours {:?}",
                ours.vertices[u]
            ));
        }
    }
    Ok((gc, ours))
}

// ---------------------------------------------------------------------------------------------
// Fixtures

const ABSENT: &str = "00000000-0000-4000-8000-00000000dead";
const ABSENT_SCOPED: &str = "00000000-0000-4000-8000-0000000000c5";

const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.kgc.example.com}
spec:
  group: kgc.example.com
  names: {kind: Gizmo, plural: gizmos, singular: gizmo}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
"#;

fn pod(name: &str, owner: &str, owner_uid: &str) -> String {
    format!(
        r#"
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: gtest
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: {owner}, uid: {owner_uid}, controller: true, blockOwnerDeletion: true}}
spec:
  containers: [{{name: c, image: example.invalid/none}}]
"#
    )
}

fn fixtures(ctx: &Ctx) {
    apply(
        ctx,
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: gtest}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: gtest-other}\n",
    );
    apply(ctx, CRD);
    // A deployment-like chain of ConfigMaps and Pods: deploy <- rs <- pod-1, pod-2.
    apply(
        ctx,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deploy, namespace: gtest}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: second-owner, namespace: gtest}\n",
    );
    let deploy = uid_of(ctx, "deploy", &["configmap", "deploy", "-n", "gtest"]);
    let second = uid_of(
        ctx,
        "second-owner",
        &["configmap", "second-owner", "-n", "gtest"],
    );
    apply(
        ctx,
        &format!(
            r#"
apiVersion: v1
kind: ConfigMap
metadata:
  name: rs
  namespace: gtest
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: deploy, uid: {deploy}, controller: true, blockOwnerDeletion: true}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: shared
  namespace: gtest
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: deploy, uid: {deploy}}}
  - {{apiVersion: v1, kind: ConfigMap, name: second-owner, uid: {second}}}
---
# An owner that does not exist: the GC deletes the dependent, the finalizer keeps it.
apiVersion: v1
kind: ConfigMap
metadata:
  name: held
  namespace: gtest
  finalizers: [kgc.example.com/hold]
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: gone, uid: {ABSENT}}}
---
# A reference across namespaces: the GC finds no owner in gtest-other and deletes it.
apiVersion: v1
kind: ConfigMap
metadata:
  name: xns
  namespace: gtest-other
  finalizers: [kgc.example.com/hold]
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: deploy, uid: {deploy}}}
---
# A cluster-scoped dependent naming a namespaced kind: a virtual node the GC never resolves.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kgc-graph-scoped
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: nowhere, uid: {ABSENT_SCOPED}}}
rules: []
"#
        ),
    );
    let rs = uid_of(ctx, "rs", &["configmap", "rs", "-n", "gtest"]);
    uid_of(ctx, "shared", &["configmap", "shared", "-n", "gtest"]);
    uid_of(ctx, "held", &["configmap", "held", "-n", "gtest"]);
    uid_of(ctx, "xns", &["configmap", "xns", "-n", "gtest-other"]);
    uid_of(ctx, "scoped", &["clusterrole", "kgc-graph-scoped"]);
    apply(
        ctx,
        &format!("{}{}", pod("pod-1", "rs", &rs), pod("pod-2", "rs", &rs)),
    );
    uid_of(ctx, "pod-1", &["pod", "pod-1", "-n", "gtest"]);
    // A custom resource owning a ConfigMap.
    kubectl(
        ctx,
        &[
            "wait",
            "--for",
            "condition=established",
            "--timeout=60s",
            "crd/gizmos.kgc.example.com",
        ],
    );
    apply(
        ctx,
        "apiVersion: kgc.example.com/v1\nkind: Gizmo\nmetadata: {name: g1, namespace: gtest}\n",
    );
    let gizmo = uid_of(ctx, "gizmo", &["gizmo", "g1", "-n", "gtest"]);
    apply(
        ctx,
        &format!(
            r#"
apiVersion: v1
kind: ConfigMap
metadata:
  name: gizmo-cm
  namespace: gtest
  ownerReferences:
  - {{apiVersion: kgc.example.com/v1, kind: Gizmo, name: g1, uid: {gizmo}, controller: true, blockOwnerDeletion: true}}
"#
        ),
    );
    uid_of(ctx, "gizmo-cm", &["configmap", "gizmo-cm", "-n", "gtest"]);
}

/// Waits until the GC has acted on the fixtures: the Gizmo observed (its CRD is picked up at
/// the GC's 30 s discovery resync), the absent owner verified (missing vertex), both
/// finalizer-held dependents deleted (terminating).
fn gc_observed_the_fixtures(ctx: &Ctx) {
    let gizmo = uid(ctx, "gizmo");
    let held = uid(ctx, "held");
    let xns = uid(ctx, "xns");
    eventually(150, "the GC did not settle", || {
        let all = sets(&gc_graph(ctx, &[]));
        let get = |u: &str| {
            all.vertices
                .get(u)
                .cloned()
                .ok_or_else(|| format!("{u} not in the GC's graph"))
        };
        let g = get(&gizmo)?;
        if g.is_virtual {
            return Err("the Gizmo is still virtual in the GC's graph".into());
        }
        if !get(ABSENT)?.missing {
            return Err("the absent owner is not missing yet".into());
        }
        if !get(&held)?.being_deleted || !get(&xns)?.being_deleted {
            return Err("the GC has not deleted held / xns yet".into());
        }
        if !get(ABSENT_SCOPED)?.is_virtual {
            return Err("the cluster-scoped dependent's owner is not virtual".into());
        }
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------
// Cases

fn components_match_the_gc(ctx: &Ctx) {
    let deploy = uid(ctx, "deploy");
    let pod1 = uid(ctx, "pod-1");
    let gizmo_cm = uid(ctx, "gizmo-cm");
    let scoped = uid(ctx, "scoped");
    let held = uid(ctx, "held");
    let second = uid(ctx, "second-owner");
    // The chain (with the shared dependent, its second owner and the cross-namespace
    // dependent), from its top and from a leaf; the CR and its ConfigMap; the virtual owner of
    // a cluster-scoped dependent; two components at once.
    for roots in [
        vec![deploy.as_str()],
        vec![pod1.as_str()],
        vec![second.as_str()],
        vec![gizmo_cm.as_str()],
        vec![scoped.as_str()],
        vec![ABSENT_SCOPED],
        vec![deploy.as_str(), gizmo_cm.as_str()],
    ] {
        eventually(60, "components", || compare(ctx, &roots, &[]).map(|_| ()));
    }
    // Spot checks of what was compared.
    let (gc, _) = compare(ctx, &[&deploy], &[]).unwrap();
    assert_eq!(
        gc.vertices.len(),
        7,
        "deploy, second-owner, rs, shared, pod-1, pod-2, xns: {gc:?}"
    );
    assert_eq!(gc.edges.len(), 6, "{gc:?}");
    assert!(gc.vertices[&uid(ctx, "xns")].being_deleted);
    let (gc, _) = compare(ctx, &[ABSENT_SCOPED], &[]).unwrap();
    assert!(gc.vertices[ABSENT_SCOPED].is_virtual);

    // The absent owner: same nodes and edges, but the GC has verified it absent and dropped its
    // node (a "missing" vertex, namespace empty) while we, like a GC that just listed the
    // cluster, hold a virtual node for it.
    let (gc, ours) = compare(ctx, &[&held], &[ABSENT]).unwrap();
    assert_eq!(gc.vertices.len(), 2);
    assert!(gc.vertices[&held].being_deleted && ours.vertices[&held].being_deleted);
    let (g, o) = (&gc.vertices[ABSENT], &ours.vertices[ABSENT]);
    assert!(g.missing && !g.is_virtual, "GC: {g:?}");
    assert!(o.is_virtual && !o.missing, "ours: {o:?}");
    // Asked from the absent UID itself, the GC has no node to start from; we do.
    assert!(sets(&gc_graph(ctx, &[ABSENT])).vertices.is_empty());
    assert_eq!(sets(&our_graph(ctx, &[ABSENT], &[])).vertices.len(), 2);
}

fn whole_graph_matches_the_gc(ctx: &Ctx) {
    eventually(60, "whole graph", || {
        compare(ctx, &[], &[ABSENT]).map(|_| ())
    });
    let (gc, _) = compare(ctx, &[], &[ABSENT]).unwrap();
    assert!(gc.vertices.len() >= 13, "{gc:?}");
}

/// Renumbers the integer vertex ids of a legacy DOT in UID order (what we print) and sorts
/// vertices and edges accordingly, keeping every other byte.
fn canonical_legacy(dot: &str) -> String {
    let body = dot
        .strip_prefix("strict digraph full {")
        .and_then(|b| b.strip_suffix("\n}"))
        .expect("legacy frame");
    let (nodes_part, edges_part) = match body.split_once("\n\n  // Edge definitions.") {
        Some((n, e)) => (n, e),
        None => (body, ""),
    };
    let mut blocks: Vec<(String, String, String)> = Vec::new(); // (uid, old id, attribute text)
    let nodes_part = nodes_part
        .strip_prefix("\n  // Node definitions.")
        .unwrap_or(nodes_part);
    for chunk in nodes_part.split("\n  ];").filter(|c| !c.is_empty()) {
        let (head, attrs) = chunk.split_once(" [").expect("vertex");
        let id = head.trim().to_owned();
        let uid = attrs
            .lines()
            .find_map(|l| l.trim().strip_prefix("uid="))
            .map(unquote)
            .expect("uid attribute");
        blocks.push((uid, id, attrs.to_owned()));
    }
    blocks.sort();
    let new_id: BTreeMap<String, usize> = blocks
        .iter()
        .enumerate()
        .map(|(i, (_, id, _))| (id.clone(), i))
        .collect();
    let mut edges: Vec<(usize, usize)> = edges_part
        .lines()
        .filter_map(|l| l.trim().strip_suffix(';'))
        .filter_map(|l| l.split_once(" -> "))
        .map(|(f, t)| (new_id[f], new_id[t]))
        .collect();
    edges.sort();
    let mut out = String::from("strict digraph full {");
    if !blocks.is_empty() {
        out.push_str("\n  // Node definitions.");
    }
    for (i, (_, _, attrs)) in blocks.iter().enumerate() {
        out.push_str(&format!("\n  {i} [{attrs}\n  ];"));
    }
    if !edges.is_empty() {
        out.push_str("\n\n  // Edge definitions.");
    }
    for (f, t) in edges {
        out.push_str(&format!("\n  {f} -> {t};"));
    }
    out.push_str("\n}");
    out
}

fn legacy_dot_is_byte_identical_modulo_ids(ctx: &Ctx) {
    let deploy = uid(ctx, "deploy");
    let gizmo_cm = uid(ctx, "gizmo-cm");
    for roots in [
        vec![deploy.as_str()],
        vec![gizmo_cm.as_str()],
        vec![ABSENT_SCOPED],
    ] {
        eventually(60, "legacy bytes", || {
            let gc = canonical_legacy(&gc_graph(ctx, &roots));
            let ours = our_graph(ctx, &roots, &["--dot-format", "legacy"]);
            if canonical_legacy(&ours) != ours {
                return Err(format!("our legacy output is not canonical:\n{ours}"));
            }
            if gc == ours {
                Ok(())
            } else {
                Err(format!(
                    "for {roots:?}:\n--- GC (renumbered)\n{gc}\n--- ours\n{ours}"
                ))
            }
        });
    }
    // An empty answer is byte-identical too (no renumbering needed).
    assert_eq!(gc_graph(ctx, &["no-such-uid"]), "strict digraph full {\n}");
    assert_eq!(
        our_graph(ctx, &["no-such-uid"], &["--dot-format", "legacy"]),
        "strict digraph full {\n}"
    );
}

fn from_gc_reports_only_real_differences(ctx: &Ctx) {
    let deploy = uid(ctx, "deploy");
    let held = uid(ctx, "held");
    eventually(60, "--from-gc on a healthy component", || {
        let (code, out, err) =
            kubectl_gc(ctx, &["graph", "--uid", &deploy, "--from-gc", &ctx.gc_url]);
        if code == 0 && out.contains("no differences") && out.contains("legacy format") {
            Ok(())
        } else {
            Err(format!("exit {code}\n{out}{err}"))
        }
    });
    // KIND/NAME works the same way (and the URL may carry the path).
    let url = format!("{}/debug/controllers/garbagecollector/graph", ctx.gc_url);
    let (code, out, err) = kubectl_gc(
        ctx,
        &[
            "graph",
            "configmap/held",
            "-n",
            "gtest",
            "--from-gc",
            &url,
            "-o",
            "json",
        ],
    );
    assert_eq!(code, 5, "{out}{err}");
    let d: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(d["identical"], false);
    assert_eq!(d["gc"]["format"], "legacy");
    assert!(d["onlyInGc"].as_array().unwrap().is_empty(), "{out}");
    assert!(d["onlyInOurs"].as_array().unwrap().is_empty(), "{out}");
    assert!(d["edgesOnlyInGc"].as_array().unwrap().is_empty(), "{out}");
    let diffs = d["different"].as_array().unwrap();
    assert_eq!(diffs.len(), 1, "{out}");
    assert_eq!(diffs[0]["gc"]["uid"], ABSENT);
    let fields: Vec<&str> = diffs[0]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["missing", "virtual", "namespace"], "{out}");
    assert!(out.contains(&held));
}

fn from_gc_endpoint_errors(ctx: &Ctx) {
    let (code, _, err) = kubectl_gc(
        ctx,
        &[
            "graph",
            "-n",
            "gtest",
            "--from-gc",
            &format!("{}/debug/nothing", ctx.gc_url),
        ],
    );
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("404") && err.contains("hint:"), "{err}");
}
