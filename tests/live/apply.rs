//! `collect --apply` against a real kube-apiserver v1.20.2 (`testenv.rs`), compared
//! with the real garbage collector.
//!
//! Two control planes, one after the other (the box has 2 cores):
//!
//! 1. a cluster **without** the GC: build the scenarios, run the built binary
//!    `collect -A --apply --yes`, check the record and the end state, and the safety cases
//!    (recreated object, refused inputs, no TTY, a second apply has nothing to do);
//! 2. stop it; a cluster **with** the GC: build the identical scenarios, let the real GC
//!    settle, and require the same end state (objects by namespace/kind/name, their
//!    ownerReferences by owner kind/name/blockOwnerDeletion, finalizers, terminating).

use crate::gc_dot;
use crate::harness::{Suite, Test};
use crate::testenv::{self, TestEnv};
use kubectl_gc::apply::{self, ClusterOps, Header, PatchType, Record, kube::KubeOps};
use kubectl_gc::gc::GarbageCollector;
use kubectl_gc::gc::ObjectRef;
use kubectl_gc::gc::plan::{Action, Plan};
use kubectl_gc::source::live::{self, ConnectOptions, LiveOptions};
use serde_json::{Value, json};
use std::cell::{Ref, RefCell};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LABEL: &str = "kgc-scenario";
const NAMESPACES: &[&str] = &["gcx-a", "gcx-b", "gcx-probe"];

// ---------------------------------------------------------------------------------------------
// The suite

pub struct Ctx {
    rt: tokio::runtime::Runtime,
    /// The control plane: without the GC, then (`real_gc_reaches_the_same_end_state`) with it.
    env: RefCell<Option<TestEnv>>,
    /// Records and snapshots the tests write.
    scratch: tempfile::TempDir,
    /// The end state kubectl-gc reached, for the real GC to reach too.
    expected: RefCell<Option<State>>,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "apply",
    setup,
    tests: &[
        Test {
            name: "build_scenarios",
            needs: &[],
            run: |ctx| build_scenarios(&env(ctx), false),
        },
        Test {
            name: "collect_apply_yes_performs_the_plan",
            needs: &["build_scenarios"],
            run: |ctx| collect_apply(&env(ctx), ctx.scratch.path()),
        },
        Test {
            name: "end_state_is_the_gc_end_state_by_hand",
            needs: &["collect_apply_yes_performs_the_plan"],
            run: |ctx| {
                let state = capture(&env(ctx));
                check_expected_by_hand(&state);
                *ctx.expected.borrow_mut() = Some(state);
            },
        },
        Test {
            name: "second_apply_has_nothing_to_do",
            needs: &["collect_apply_yes_performs_the_plan"],
            run: |ctx| second_apply_is_empty(&env(ctx), ctx.scratch.path()),
        },
        Test {
            name: "recreated_between_plan_and_apply_is_not_deleted",
            needs: &[],
            run: |ctx| recreated_between_plan_and_apply(&env(ctx), &ctx.rt),
        },
        Test {
            name: "api_server_answers_the_preconditions_as_the_fake_does",
            // The widget CRD.
            needs: &["build_scenarios"],
            run: |ctx| api_server_preconditions(&env(ctx), &ctx.rt),
        },
        Test {
            name: "gc_1_34_requests_on_a_real_server",
            needs: &[],
            run: |ctx| gc_1_34_requests(&env(ctx), ctx.scratch.path()),
        },
        Test {
            name: "apply_refuses_snapshot_input",
            needs: &[],
            run: |ctx| refuses_snapshot(&env(ctx), ctx.scratch.path()),
        },
        Test {
            name: "apply_without_tty_needs_yes",
            needs: &[],
            run: |ctx| needs_yes(&env(ctx), ctx.scratch.path()),
        },
        // Last: it replaces the control plane with one that runs the GC.
        Test {
            name: "real_gc_reaches_the_same_end_state",
            needs: &["end_state_is_the_gc_end_state_by_hand"],
            run: real_gc_reaches_the_same_end_state,
        },
    ],
};

fn setup() -> Result<Ctx, String> {
    let scratch = tempfile::Builder::new()
        .prefix("kgc-apply-live-")
        .tempdir()
        .map_err(|e| format!("scratch directory: {e}"))?;
    Ok(Ctx {
        env: RefCell::new(Some(TestEnv::start(false)?)),
        rt: runtime(),
        scratch,
        expected: RefCell::new(None),
    })
}

/// The current control plane.
fn env(ctx: &Ctx) -> Ref<'_, TestEnv> {
    Ref::map(ctx.env.borrow(), |e| e.as_ref().expect("a control plane"))
}

/// Phase 2: the real GC on an identical copy.
fn real_gc_reaches_the_same_end_state(ctx: &Ctx) {
    let expected = ctx.expected.borrow();
    let expected = expected
        .as_ref()
        .expect("no end state from the kubectl-gc run to compare with");
    // One control plane at a time: stop the first before the second starts.
    drop(ctx.env.borrow_mut().take());
    let t = Instant::now();
    let with_gc = TestEnv::start(true)
        .unwrap_or_else(|e| panic!("cannot start the control plane with the GC: {e}"));
    println!(
        "  (control plane with the GC up in {:.1}s)",
        t.elapsed().as_secs_f64()
    );
    *ctx.env.borrow_mut() = Some(with_gc);
    let env = env(ctx);
    build_scenarios(&env, true);
    wait_for_state(&env, expected, Duration::from_secs(120));
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

// ---------------------------------------------------------------------------------------------
// kubectl helpers

fn kubectl(env: &TestEnv, args: &[&str]) -> String {
    env.kubectl(args).unwrap_or_else(|e| panic!("{e}"))
}

/// `kubectl create -f - -o json` of a List; returns name → uid of the created objects. Retries
/// while a just-established CRD's kind is unknown to kubectl's discovery.
fn create(env: &TestEnv, items: Vec<Value>) -> BTreeMap<String, String> {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let mut last = String::new();
    for _ in 0..40 {
        match env.kubectl_stdin(&["create", "-f", "-", "-o", "json"], Some(&list)) {
            Ok(out) => {
                // One JSON document per created object (or a List).
                let mut items = Vec::new();
                for v in serde_json::Deserializer::from_str(&out).into_iter::<Value>() {
                    let v = v.expect("kubectl create -o json");
                    match v["items"].as_array() {
                        Some(a) => items.extend(a.iter().cloned()),
                        None => items.push(v),
                    }
                }
                return items
                    .iter()
                    .map(|i| {
                        (
                            i["metadata"]["name"].as_str().unwrap().to_owned(),
                            i["metadata"]["uid"].as_str().unwrap().to_owned(),
                        )
                    })
                    .collect();
            }
            Err(e) if e.contains("AlreadyExists") => panic!("{e}"),
            Err(e) => last = e,
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    panic!("{last}");
}

/// An ownerReference: (apiVersion, kind, name, uid, controller, blockOwnerDeletion).
fn oref(api: &str, kind: &str, name: &str, uid: &str, block: Option<bool>) -> Value {
    let mut r = json!({"apiVersion": api, "kind": kind, "name": name, "uid": uid});
    if let Some(b) = block {
        r["blockOwnerDeletion"] = json!(b);
    }
    r
}

fn object(api: &str, kind: &str, ns: &str, name: &str, refs: Vec<Value>, fins: &[&str]) -> Value {
    let mut o = json!({
        "apiVersion": api, "kind": kind,
        "metadata": {"name": name, "namespace": ns, "labels": {LABEL: "1"}},
    });
    if !refs.is_empty() {
        o["metadata"]["ownerReferences"] = json!(refs);
    }
    if !fins.is_empty() {
        o["metadata"]["finalizers"] = json!(fins);
    }
    o
}

fn cm(ns: &str, name: &str, refs: Vec<Value>, fins: &[&str]) -> Value {
    object("v1", "ConfigMap", ns, name, refs, fins)
}

fn cluster_role(name: &str, refs: Vec<Value>) -> Value {
    let mut o = object(
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        "",
        name,
        refs,
        &[],
    );
    o["metadata"].as_object_mut().unwrap().remove("namespace");
    o
}

fn widget(ns: &str, name: &str, refs: Vec<Value>) -> Value {
    object("example.com/v1", "Widget", ns, name, refs, &[])
}

fn cm_ref(name: &str, uid: &str, block: Option<bool>) -> Value {
    oref("v1", "ConfigMap", name, uid, block)
}

fn widget_ref(name: &str, uid: &str, block: Option<bool>) -> Value {
    oref("example.com/v1", "Widget", name, uid, block)
}

/// UIDs of owners that never existed.
const GHOST: &str = "00000000-0000-4000-8000-00000000dead";
const GHOST2: &str = "00000000-0000-4000-8000-00000000bad2";
const OLD_UID: &str = "00000000-0000-4000-8000-0000000001d0";

const CRD: &str = r#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
  "versions":[{"name":"v1","served":true,"storage":true,
   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}"#;

/// Builds every scenario. On a cluster with the GC, waits until the GC monitors widgets (a
/// probe widget with a dangling owner gets collected) and gives its informers a moment to
/// observe the dependents before the deletes that start foreground/orphan processing.
fn build_scenarios(env: &TestEnv, with_gc: bool) {
    let ns: Vec<Value> = NAMESPACES
        .iter()
        .map(|n| json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}}))
        .collect();
    let mut first = ns;
    first.push(serde_json::from_str(CRD).unwrap());
    create(env, first);
    kubectl(
        env,
        &[
            "wait",
            "--for",
            "condition=established",
            "--timeout=60s",
            "crd/widgets.example.com",
        ],
    );
    create(
        env,
        vec![widget(
            "gcx-probe",
            "probe",
            vec![cm_ref("ghost", GHOST, None)],
        )],
    );
    if with_gc {
        let t = Instant::now();
        wait_until(
            Duration::from_secs(120),
            "the GC to collect the probe widget",
            || !crate::probe::exists(env, &["widgets.example.com", "probe", "-n", "gcx-probe"]),
        );
        println!(
            "  (the GC monitors widgets after {:.1}s)",
            t.elapsed().as_secs_f64()
        );
    }

    // Owners.
    let a = "gcx-a";
    let owners = create(
        env,
        vec![
            cm(a, "solid-owner", vec![], &[]),
            cm(a, "owner-recreated", vec![], &[]),
            cm(a, "xowner", vec![], &[]),
            cm(a, "fg-owner", vec![], &[]),
            cm(a, "fg2-owner", vec![], &[]),
            cm(a, "orph-owner", vec![], &[]),
            cm(a, "cyc-a", vec![], &[]),
            widget(a, "w-owner", vec![]),
            widget(a, "wf-owner", vec![]),
            cm(a, "fg3-owner", vec![], &[]),
            cm(a, "fg4-owner", vec![], &[]),
            json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
                   "metadata": {"name": "hpa-owner", "namespace": a, "labels": {LABEL: "1"}},
                   "spec": {"maxReplicas": 2,
                            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "x"}}}),
            // Pre-set `orphan` finalizer: the GC's delete (row 10) uses Orphan.
            cm(a, "porph", vec![], &["orphan"]),
            cluster_role("kgc-cr-owner", vec![]),
        ],
    );
    let u = |n: &str| owners[n].clone();
    // Dependents of the owners.
    let level1 = create(
        env,
        vec![
            // Dangling owner, and a cascade three deep below it.
            cm(a, "dangle-1", vec![cm_ref("ghost", GHOST, Some(true))], &[]),
            // Owner name exists with another UID (recreated owner).
            cm(
                a,
                "uidmm-dep",
                vec![cm_ref("owner-recreated", OLD_UID, None)],
                &[],
            ),
            // Cross-namespace: the GC looks the owner up in gcx-b.
            cm(
                "gcx-b",
                "xdep",
                vec![cm_ref("xowner", &u("xowner"), None)],
                &[],
            ),
            cm(a, "xvalid", vec![cm_ref("xowner", &u("xowner"), None)], &[]),
            // Solid + dangling.
            cm(
                a,
                "mixed",
                vec![
                    json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "solid-owner",
                           "uid": u("solid-owner"), "controller": true}),
                    cm_ref("ghost2", GHOST2, Some(true)),
                ],
                &[],
            ),
            cm(
                a,
                "healthy",
                vec![cm_ref("solid-owner", &u("solid-owner"), Some(true))],
                &[],
            ),
            // Not served: never collected.
            cm(
                a,
                "unresolvable",
                vec![oref("nothere.example.com/v1", "Gadget", "g", GHOST, None)],
                &[],
            ),
            // Foreground chain; fg-d2 holds its own finalizer.
            cm(
                a,
                "fg-d1",
                vec![cm_ref("fg-owner", &u("fg-owner"), Some(true))],
                &[],
            ),
            cm(
                a,
                "fg-d2",
                vec![cm_ref("fg-owner", &u("fg-owner"), Some(true))],
                &["example.com/hold"],
            ),
            cm(
                a,
                "fg2-dep",
                vec![cm_ref("fg2-owner", &u("fg2-owner"), Some(true))],
                &[],
            ),
            // Orphaning.
            cm(
                a,
                "orph-d1",
                vec![cm_ref("orph-owner", &u("orph-owner"), None)],
                &[],
            ),
            cm(
                a,
                "orph-d2",
                vec![cm_ref("orph-owner", &u("orph-owner"), Some(true))],
                &[],
            ),
            cm(
                a,
                "orph-d3",
                vec![
                    cm_ref("orph-owner", &u("orph-owner"), None),
                    cm_ref("solid-owner", &u("solid-owner"), None),
                ],
                &[],
            ),
            widget(
                a,
                "w-orph",
                vec![cm_ref("orph-owner", &u("orph-owner"), None)],
            ),
            // Ownership cycle deleted in the foreground.
            cm(
                a,
                "cyc-b",
                vec![cm_ref("cyc-a", &u("cyc-a"), Some(true))],
                &[],
            ),
            // Custom resources as owners and dependents.
            cm(
                a,
                "w-child",
                vec![widget_ref("w-owner", &u("w-owner"), Some(true))],
                &[],
            ),
            widget(a, "w-dangling", vec![cm_ref("ghost", GHOST, None)]),
            widget(
                a,
                "w-mixed",
                vec![
                    cm_ref("solid-owner", &u("solid-owner"), None),
                    cm_ref("ghost2", GHOST2, None),
                ],
            ),
            cm(
                a,
                "wf-dep",
                vec![widget_ref("wf-owner", &u("wf-owner"), Some(true))],
                &[],
            ),
            // A blocking dependent with a second, solid owner: the waiting reference is removed.
            cm(
                a,
                "fg3-dep",
                vec![
                    cm_ref("fg3-owner", &u("fg3-owner"), Some(true)),
                    cm_ref("solid-owner", &u("solid-owner"), None),
                ],
                &[],
            ),
            cm(
                a,
                "porph-child",
                vec![cm_ref("porph", &u("porph"), None)],
                &[],
            ),
            // Foreground deletion also deletes dependents that do not block.
            cm(
                a,
                "fg4-dep",
                vec![cm_ref("fg4-owner", &u("fg4-owner"), None)],
                &[],
            ),
            // The owner named by a served, non-preferred version: solid.
            cm(
                a,
                "hpa-child",
                vec![oref(
                    "autoscaling/v2beta2",
                    "HorizontalPodAutoscaler",
                    "hpa-owner",
                    &u("hpa-owner"),
                    None,
                )],
                &[],
            ),
            // Cluster scope: a cluster-scoped owner; a cluster-scoped dependent of a namespaced
            // kind (never collected since 1.20); a cluster-scoped dangling owner.
            cm(
                a,
                "cr-child",
                vec![oref(
                    "rbac.authorization.k8s.io/v1",
                    "ClusterRole",
                    "kgc-cr-owner",
                    &u("kgc-cr-owner"),
                    None,
                )],
                &[],
            ),
            cluster_role(
                "kgc-cr-invalid",
                vec![cm_ref("solid-owner", &u("solid-owner"), None)],
            ),
            cluster_role(
                "kgc-cr-dangling",
                vec![oref(
                    "rbac.authorization.k8s.io/v1",
                    "ClusterRole",
                    "kgc-ghost",
                    GHOST,
                    None,
                )],
            ),
            // The REST mapper accepts the kind in lower case; a wrong kind is dangling.
            cm(
                a,
                "lowercase-kind",
                vec![oref(
                    "v1",
                    "configmap",
                    "solid-owner",
                    &u("solid-owner"),
                    None,
                )],
                &[],
            ),
            cm(
                a,
                "wrong-kind",
                vec![oref("v1", "Secret", "solid-owner", &u("solid-owner"), None)],
                &[],
            ),
        ],
    );
    let v = |n: &str| level1[n].clone();
    let level2 = create(
        env,
        vec![
            object(
                "v1",
                "Secret",
                a,
                "dangle-2",
                vec![cm_ref("dangle-1", &v("dangle-1"), Some(true))],
                &[],
            ),
            object(
                "v1",
                "Secret",
                a,
                "fg-d1c",
                vec![cm_ref("fg-d1", &v("fg-d1"), Some(true))],
                &[],
            ),
            widget(
                a,
                "w-grandchild",
                vec![cm_ref("w-child", &v("w-child"), None)],
            ),
        ],
    );
    create(
        env,
        vec![cm(
            a,
            "dangle-3",
            vec![oref("v1", "Secret", "dangle-2", &level2["dangle-2"], None)],
            &[],
        )],
    );
    let cycle =
        json!({"metadata": {"ownerReferences": [cm_ref("cyc-b", &v("cyc-b"), Some(true))]}})
            .to_string();
    kubectl(
        env,
        &[
            "patch",
            "cm",
            "cyc-a",
            "-n",
            a,
            "--type=merge",
            "-p",
            &cycle,
        ],
    );

    if with_gc {
        // The GC's informers must observe every dependent before its owners start terminating
        // (otherwise orphaning may miss one: kubernetes#26120). Wait until its graph holds
        // every dependent of the namespace as an observed (non-virtual) node.
        let t = Instant::now();
        wait_until(
            Duration::from_secs(60),
            "the GC to observe every scenario dependent",
            || {
                let observed = gc_observed_uids(env);
                dependent_uids(env, a).iter().all(|u| observed.contains(u))
            },
        );
        println!(
            "  (the GC observed every scenario dependent after {:.1}s)",
            t.elapsed().as_secs_f64()
        );
    }
    // porph gets a dangling owner only now, with its dependent in place.
    let dangling =
        json!({"metadata": {"ownerReferences": [cm_ref("ghost", GHOST, None)]}}).to_string();
    kubectl(
        env,
        &[
            "patch",
            "cm",
            "porph",
            "-n",
            a,
            "--type=merge",
            "-p",
            &dangling,
        ],
    );
    for (what, cascade) in [
        (
            vec![
                "cm",
                "fg-owner",
                "fg2-owner",
                "fg3-owner",
                "fg4-owner",
                "cyc-a",
            ],
            "foreground",
        ),
        (vec!["cm", "orph-owner"], "orphan"),
        (vec!["widgets.example.com", "wf-owner"], "foreground"),
    ] {
        let mut args = vec!["delete", "-n", a, "--wait=false"];
        let flag = format!("--cascade={cascade}");
        args.push(&flag);
        args.extend(what);
        kubectl(env, &args);
    }
}

// ---------------------------------------------------------------------------------------------
// State

/// An object's state, with references by owner kind/name (UIDs differ between clusters).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Obj {
    refs: Vec<String>,
    finalizers: Vec<String>,
    terminating: bool,
}

type State = BTreeMap<String, Obj>;

fn capture(env: &TestEnv) -> State {
    let out = kubectl(
        env,
        &[
            "get",
            "configmaps,secrets,widgets.example.com,clusterroles.rbac.authorization.k8s.io",
            "-A",
            "-l",
            LABEL,
            "-o",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(&out).expect("kubectl get -o json");
    let mut state = State::new();
    for item in v["items"].as_array().expect("items") {
        let m = &item["metadata"];
        let key = format!(
            "{}/{}/{}",
            m["namespace"].as_str().unwrap_or(""),
            item["kind"].as_str().unwrap_or(""),
            m["name"].as_str().unwrap_or("")
        );
        let refs = m["ownerReferences"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| {
                        format!(
                            "{}/{}{}",
                            r["kind"].as_str().unwrap_or(""),
                            r["name"].as_str().unwrap_or(""),
                            match r["blockOwnerDeletion"].as_bool() {
                                Some(b) => format!(" block={b}"),
                                None => String::new(),
                            }
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let finalizers = m["finalizers"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|f| f.as_str().unwrap_or("").to_owned())
                    .collect()
            })
            .unwrap_or_default();
        state.insert(
            key,
            Obj {
                refs,
                finalizers,
                terminating: m.get("deletionTimestamp").is_some_and(|d| !d.is_null()),
            },
        );
    }
    state
}

fn diff(expected: &State, actual: &State) -> String {
    let mut out = Vec::new();
    for (k, e) in expected {
        match actual.get(k) {
            None => out.push(format!("  - {k} (expected {e:?}) is missing")),
            Some(a) if a != e => out.push(format!("  ~ {k}: expected {e:?}, got {a:?}")),
            _ => {}
        }
    }
    for (k, a) in actual {
        if !expected.contains_key(k) {
            out.push(format!("  + {k} exists ({a:?}) but should not"));
        }
    }
    out.join("\n")
}

/// UIDs of the ConfigMaps, Secrets and widgets in `ns` that have ownerReferences (the GC's
/// v1.20 debug graph lists only nodes with edges).
fn dependent_uids(env: &TestEnv, ns: &str) -> Vec<String> {
    kubectl(
        env,
        &[
            "get",
            "configmaps,secrets,widgets.example.com",
            "-n",
            ns,
            "-o",
            "jsonpath={.items[?(@.metadata.ownerReferences)].metadata.uid}",
        ],
    )
    .split_whitespace()
    .map(str::to_owned)
    .collect()
}

/// UIDs of the nodes the running GC has observed (not virtual), from its debug DOT graph.
fn gc_observed_uids(env: &TestEnv) -> std::collections::BTreeSet<String> {
    let url = format!(
        "{}/debug/controllers/garbagecollector/graph",
        env.gc_url.as_deref().expect("GC url")
    );
    // Not answering yet reads as an empty graph: the caller polls.
    gc_dot::sets(&testenv::http_get(&url).unwrap_or_default())
        .vertices
        .into_iter()
        .filter(|(_, flags)| !flags.is_virtual)
        .map(|(uid, _)| uid)
        .collect()
}

fn wait_until(timeout: Duration, what: &str, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(
            t.elapsed() < timeout,
            "timed out after {timeout:?} waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn wait_for_state(env: &TestEnv, expected: &State, timeout: Duration) {
    let t = Instant::now();
    loop {
        let s = capture(env);
        if &s == expected {
            // Settled? The same a few seconds later.
            std::thread::sleep(Duration::from_secs(3));
            let again = capture(env);
            assert!(
                &again == expected,
                "the GC's state changed after matching:\n{}",
                diff(expected, &again)
            );
            println!(
                "  (the real GC matched after {:.1}s)",
                t.elapsed().as_secs_f64()
            );
            return;
        }
        if t.elapsed() > timeout {
            panic!(
                "the real GC's end state differs from kubectl-gc's:\n{}",
                diff(expected, &s)
            );
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// What the GC must leave, worked out by hand from gc-semantics §3–§4.
fn check_expected_by_hand(s: &State) {
    let kept = |k: &str, refs: &[&str], fins: &[&str], terminating: bool| {
        let o = s
            .get(k)
            .unwrap_or_else(|| panic!("{k} should exist; state:\n{s:#?}"));
        assert_eq!(o.refs, refs, "{k} refs");
        assert_eq!(o.finalizers, fins, "{k} finalizers");
        assert_eq!(o.terminating, terminating, "{k} terminating");
    };
    kept("gcx-a/ConfigMap/solid-owner", &[], &[], false);
    kept("gcx-a/ConfigMap/xvalid", &["ConfigMap/xowner"], &[], false);
    kept(
        "gcx-a/ConfigMap/mixed",
        &["ConfigMap/solid-owner"],
        &[],
        false,
    );
    kept(
        "gcx-a/ConfigMap/healthy",
        &["ConfigMap/solid-owner block=true"],
        &[],
        false,
    );
    kept("gcx-a/ConfigMap/unresolvable", &["Gadget/g"], &[], false);
    kept(
        "gcx-a/ConfigMap/fg-owner",
        &[],
        &["foregroundDeletion"],
        true,
    );
    kept(
        "gcx-a/ConfigMap/fg-d2",
        &["ConfigMap/fg-owner block=true"],
        &["example.com/hold"],
        true,
    );
    kept("gcx-a/ConfigMap/orph-d1", &[], &[], false);
    kept("gcx-a/ConfigMap/orph-d2", &[], &[], false);
    kept(
        "gcx-a/ConfigMap/orph-d3",
        &["ConfigMap/solid-owner"],
        &[],
        false,
    );
    kept("gcx-a/Widget/w-orph", &[], &[], false);
    kept("gcx-a/Widget/w-owner", &[], &[], false);
    kept(
        "gcx-a/ConfigMap/w-child",
        &["Widget/w-owner block=true"],
        &[],
        false,
    );
    kept(
        "gcx-a/Widget/w-grandchild",
        &["ConfigMap/w-child"],
        &[],
        false,
    );
    kept(
        "gcx-a/Widget/w-mixed",
        &["ConfigMap/solid-owner"],
        &[],
        false,
    );
    kept("gcx-a/ConfigMap/owner-recreated", &[], &[], false);
    kept("gcx-a/ConfigMap/xowner", &[], &[], false);
    kept(
        "gcx-a/ConfigMap/fg3-dep",
        &["ConfigMap/solid-owner"],
        &[],
        false,
    );
    kept(
        "gcx-a/ConfigMap/hpa-child",
        &["HorizontalPodAutoscaler/hpa-owner"],
        &[],
        false,
    );
    kept("gcx-a/ConfigMap/porph-child", &[], &[], false);
    kept(
        "gcx-a/ConfigMap/cr-child",
        &["ClusterRole/kgc-cr-owner"],
        &[],
        false,
    );
    kept("/ClusterRole/kgc-cr-owner", &[], &[], false);
    kept(
        "/ClusterRole/kgc-cr-invalid",
        &["ConfigMap/solid-owner"],
        &[],
        false,
    );
    kept(
        "gcx-a/ConfigMap/lowercase-kind",
        &["configmap/solid-owner"],
        &[],
        false,
    );
    for gone in [
        "gcx-probe/Widget/probe",
        "gcx-a/ConfigMap/dangle-1",
        "gcx-a/Secret/dangle-2",
        "gcx-a/ConfigMap/dangle-3",
        "gcx-a/ConfigMap/uidmm-dep",
        "gcx-b/ConfigMap/xdep",
        "gcx-a/ConfigMap/fg-d1",
        "gcx-a/Secret/fg-d1c",
        "gcx-a/ConfigMap/fg2-owner",
        "gcx-a/ConfigMap/fg2-dep",
        "gcx-a/ConfigMap/orph-owner",
        "gcx-a/ConfigMap/cyc-a",
        "gcx-a/ConfigMap/cyc-b",
        "gcx-a/Widget/w-dangling",
        "gcx-a/Widget/wf-owner",
        "gcx-a/ConfigMap/wf-dep",
        "gcx-a/ConfigMap/fg3-owner",
        "gcx-a/ConfigMap/fg4-owner",
        "gcx-a/ConfigMap/fg4-dep",
        "gcx-a/ConfigMap/porph",
        "/ClusterRole/kgc-cr-dangling",
        "gcx-a/ConfigMap/wrong-kind",
    ] {
        assert!(
            !s.contains_key(gone),
            "{gone} should be gone: {:?}",
            s.get(gone)
        );
    }
    assert_eq!(s.len(), 24, "{s:#?}");
}

// ---------------------------------------------------------------------------------------------
// The binary

/// Runs the built binary with `--kubeconfig` and no terminal on stdin.
fn bin(env: &TestEnv, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(args)
        .arg("--kubeconfig")
        .arg(&env.kubeconfig)
        .stdin(Stdio::null())
        .output()
        .expect("run kubectl-gc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn read_record(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).expect("record line is JSON"))
        .collect()
}

fn collect_apply(env: &TestEnv, scratch: &Path) {
    let record = scratch.join("apply.json");
    let rec = record.to_string_lossy().into_owned();
    let t = Instant::now();
    let (code, out, err) = bin(
        env,
        &[
            "collect", "-A", "--apply", "--yes", "--record", &rec, "-o", "json",
        ],
    );
    println!("  (collect --apply took {:.1}s)", t.elapsed().as_secs_f64());
    assert_eq!(code, 0, "exit code; stderr:\n{err}\nstdout:\n{out}");
    let doc: Value = serde_json::from_str(&out).expect("ApplyResult JSON");
    assert_eq!(doc["kind"], "ApplyResult");
    assert_eq!(doc["plan"]["dryRun"], false);
    let r = &doc["result"];
    assert_eq!(r["complete"], true, "{r:#}");
    let planned = doc["plan"]["actions"].as_array().unwrap().len();
    assert!(planned >= 20, "{planned} actions planned");
    assert_eq!(r["done"].as_u64().unwrap() as usize, planned, "{r:#}");
    assert_eq!(r["skipped"], 0, "{r:#}");
    println!(
        "  ({planned} actions in {} waves: {} done)",
        doc["plan"]["summary"]["waves"], r["done"]
    );

    // The record: header, one entry per action, summary.
    let lines = read_record(&record);
    assert_eq!(lines[0]["kind"], "ApplyRecord");
    assert_eq!(lines[0]["serverVersion"], "v1.20.2");
    // The exact release the server reports (patch releases change GC behaviour, e.g. v1.20.3).
    assert_eq!(lines[0]["gcVersion"], "1.20.2");
    assert_eq!(lines.len(), planned + 2);
    let last = lines.last().unwrap();
    assert_eq!(last["kind"], "ApplySummary");
    assert_eq!(last["complete"], true);
    let entry = |verb: &str, name: &str| -> &Value {
        lines
            .iter()
            .find(|l| l["verb"] == verb && l["target"]["name"] == name)
            .unwrap_or_else(|| panic!("no {verb} {name} in the record"))
    };
    // Delete: UID precondition, explicit policy, metadata before.
    let d = entry("delete", "dangle-1");
    assert_eq!(d["requests"][0]["method"], "DELETE");
    assert_eq!(
        d["requests"][0]["body"]["preconditions"]["uid"],
        d["before"]["uid"]
    );
    assert_eq!(d["requests"][0]["body"]["propagationPolicy"], "Background");
    assert_eq!(d["requests"][0]["status"], 200);
    assert_eq!(d["before"]["ownerReferences"][0]["name"], "ghost");
    // Built-in: one strategic merge patch (1.20 key order: ownerReferences, then uid).
    let p = entry("remove-owner-references", "mixed");
    assert_eq!(p["requests"].as_array().unwrap().len(), 1);
    assert_eq!(
        p["requests"][0]["contentType"],
        "application/strategic-merge-patch+json"
    );
    assert_eq!(p["requests"][0]["status"], 200);
    // Custom resource: 415, then a JSON merge patch carrying the resourceVersion.
    for name in ["w-mixed", "w-orph"] {
        let w = entry("remove-owner-references", name);
        let reqs = w["requests"].as_array().unwrap();
        assert_eq!(reqs.len(), 2, "{w:#}");
        assert_eq!(reqs[0]["status"], 415);
        assert_eq!(reqs[1]["contentType"], "application/merge-patch+json");
        assert!(reqs[1]["body"]["metadata"]["resourceVersion"].is_string());
        assert_eq!(reqs[1]["status"], 200);
    }
    // Row 9 foreground delete, cycle guard, finalizer removals.
    assert_eq!(
        entry("delete", "fg-d1")["requests"][0]["body"]["propagationPolicy"],
        "Foreground"
    );
    let unblock = entry("unblock-owner-references", "cyc-b");
    assert_eq!(
        unblock["requests"][0]["body"]["metadata"]["ownerReferences"][0]["blockOwnerDeletion"],
        false
    );
    for name in ["fg-d1", "fg2-owner", "cyc-a", "cyc-b", "wf-owner"] {
        let f = entry("remove-finalizer", name);
        assert_eq!(f["finalizer"], "foregroundDeletion");
        assert_eq!(
            f["requests"][0]["body"]["metadata"]["finalizers"],
            Value::Null
        );
    }
    assert_eq!(
        entry("remove-finalizer", "orph-owner")["finalizer"],
        "orphan"
    );
    // Row 10 with a pre-set orphan finalizer: deleted with Orphan, then orphaned.
    assert_eq!(
        entry("delete", "porph")["requests"][0]["body"]["propagationPolicy"],
        "Orphan"
    );
    assert_eq!(entry("remove-finalizer", "porph")["finalizer"], "orphan");
    assert_eq!(
        entry("remove-owner-references", "fg3-dep")["result"],
        "done"
    );
}

fn second_apply_is_empty(env: &TestEnv, scratch: &Path) {
    let record = scratch.join("again.json");
    let rec = record.to_string_lossy().into_owned();
    let (code, out, err) = bin(
        env,
        &["collect", "-A", "--apply", "--yes", "--record", &rec],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Nothing to apply."), "{out}");
    assert!(!record.exists(), "no record when nothing is applied");
}

fn refuses_snapshot(env: &TestEnv, scratch: &Path) {
    let snap = scratch.join("snap.ndjson");
    let s = snap.to_string_lossy().into_owned();
    let (code, _, err) = bin(env, &["snapshot", "-o", &s]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = bin(env, &["collect", "--snapshot", &s, "--apply", "--yes"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--apply needs a live cluster"), "{err}");
}

fn needs_yes(env: &TestEnv, scratch: &Path) {
    // Something to apply in its own namespace.
    create(
        env,
        vec![json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gcx-tty"}})],
    );
    create(
        env,
        vec![cm(
            "gcx-tty",
            "dangling",
            vec![cm_ref("ghost", GHOST, None)],
            &[],
        )],
    );
    let record = scratch.join("tty.json");
    let rec = record.to_string_lossy().into_owned();
    let (code, _, err) = bin(
        env,
        &["collect", "-n", "gcx-tty", "--apply", "--record", &rec],
    );
    assert_eq!(code, 7, "{err}");
    assert!(err.contains("--yes"), "{err}");
    assert!(!record.exists());
    assert!(
        env.kubectl(&["get", "cm", "dangling", "-n", "gcx-tty"])
            .is_ok()
    );
}

fn gc_1_34_requests(env: &TestEnv, scratch: &Path) {
    create(
        env,
        vec![json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gcx-v134"}})],
    );
    create(
        env,
        vec![cm(
            "gcx-v134",
            "dangling",
            vec![cm_ref("ghost", GHOST, None)],
            &[],
        )],
    );
    let record = scratch.join("v134.json");
    let rec = record.to_string_lossy().into_owned();
    let (code, _, err) = bin(
        env,
        &[
            "collect",
            "-n",
            "gcx-v134",
            "--gc-version",
            "1.34",
            "--apply",
            "--yes",
            "--record",
            &rec,
        ],
    );
    assert_eq!(code, 0, "{err}");
    let lines = read_record(&record);
    let e = &lines[1];
    assert_eq!(e["result"], "done", "{e:#}");
    let pre = &e["requests"][0]["body"]["preconditions"];
    assert_eq!(pre["uid"], e["before"]["uid"]);
    assert_eq!(pre["resourceVersion"], e["before"]["resourceVersion"]);
    assert!(!crate::probe::exists(
        env,
        &["cm", "dangling", "-n", "gcx-v134"]
    ));
}

// ---------------------------------------------------------------------------------------------
// Library-level cases

fn connect(env: &TestEnv, rt: &tokio::runtime::Runtime) -> live::Connection {
    rt.block_on(live::connect(&ConnectOptions {
        kubeconfig: Some(env.kubeconfig.clone()),
        ..ConnectOptions::default()
    }))
    .expect("connect")
}

fn recreated_between_plan_and_apply(env: &TestEnv, rt: &tokio::runtime::Runtime) {
    let ns = "gcx-r";
    create(
        env,
        vec![json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})],
    );
    let victim = cm(ns, "victim", vec![cm_ref("ghost", GHOST, None)], &[]);
    let first = create(env, vec![victim.clone()]);
    let conn = connect(env, rt);
    let snap = rt
        .block_on(live::snapshot(
            &conn,
            &LiveOptions {
                namespace: Some(ns.into()),
                ..LiveOptions::default()
            },
            &|_| {},
        ))
        .expect("snapshot");
    let a = GarbageCollector::new(&snap, kubectl_gc::catalog::KubeVersion::v1(20));
    let plan = Plan::steady_state(&a);
    let actions: Vec<&Action> = plan
        .actions
        .iter()
        .filter(|x| snap.store.str(snap.store.object(x.target).namespace) == ns)
        .collect();
    assert_eq!(actions.len(), 1, "the plan deletes the victim: {actions:?}");
    // Between plan and apply: deleted and recreated with the same name and the same (dangling)
    // reference — a name-based delete would remove the new object.
    kubectl(env, &["delete", "cm", "victim", "-n", ns]);
    let second = create(env, vec![victim]);
    assert_ne!(first["victim"], second["victim"]);
    let ops = KubeOps::new(&conn);
    let mut rec = Record::new(Vec::new(), &Header::default()).unwrap();
    let summary = rt.block_on(apply::run(
        &ops,
        &a,
        &plan.end,
        &actions,
        &apply::Options::default(),
        &mut rec,
        &apply::Stop::new(),
        &mut |_, _, _| {},
    ));
    // Recreated: a change nobody planned, never acted on.
    assert!(summary.stopped.is_none());
    assert!(!summary.complete());
    assert_eq!(summary.skipped_for(apply::SkipCause::Changed), 1);
    assert_eq!((summary.done(), summary.skipped()), (0, 1));
    let e = &summary.attempted[0].entry;
    assert!(e.message.starts_with("recreated"), "{}", e.message);
    assert!(e.requests.is_empty(), "no write was sent");
    let uid = kubectl(
        env,
        &[
            "get",
            "cm",
            "victim",
            "-n",
            ns,
            "-o",
            "jsonpath={.metadata.uid}",
        ],
    );
    assert_eq!(uid, second["victim"]);
}

/// What the real API server answers to a stale UID, so the fake's answers are the real ones.
fn api_server_preconditions(env: &TestEnv, rt: &tokio::runtime::Runtime) {
    let ns = "gcx-pre";
    create(
        env,
        vec![json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})],
    );
    let uids = create(
        env,
        vec![
            cm(ns, "target", vec![cm_ref("ghost", GHOST, None)], &[]),
            widget(ns, "wtarget", vec![cm_ref("ghost", GHOST, None)]),
        ],
    );
    let conn = connect(env, rt);
    let ops = KubeOps::new(&conn);
    let key = ObjectRef {
        group: String::new(),
        version: "v1".into(),
        resource: "configmaps".into(),
        kind: "ConfigMap".into(),
        namespace: ns.into(),
        name: "target".into(),
        uid: String::new(),
    };
    let smp = apply::patch::remove_refs_smp(OLD_UID, &[GHOST], false);
    let err = rt
        .block_on(ops.patch(&key, PatchType::Strategic, &smp))
        .expect_err("SMP with a stale uid");
    assert_eq!(err.code, 422, "{err:?}");
    assert!(err.message.contains("metadata.uid"), "{err:?}");
    let del = apply::patch::delete(OLD_UID, None, Some(kubectl_gc::gc::Policy::Background));
    let err = rt.block_on(ops.delete(&key, &del)).expect_err("stale uid");
    assert_eq!(err.code, 409, "{err:?}");
    let live = rt.block_on(ops.get(&key)).unwrap().expect("still there");
    assert_eq!(live.meta.uid, uids["target"]);
    let jmp = apply::patch::refs_jmp("1", &[]);
    let err = rt
        .block_on(ops.patch(&key, PatchType::Merge, &jmp))
        .expect_err("stale resourceVersion");
    assert_eq!(err.code, 409, "{err:?}");
    // Custom resources: 415 for a strategic merge patch.
    let wkey = ObjectRef {
        group: "example.com".into(),
        resource: "widgets".into(),
        kind: "Widget".into(),
        name: "wtarget".into(),
        ..key.clone()
    };
    let smp = apply::patch::remove_refs_smp(&uids["wtarget"], &[GHOST], false);
    let err = rt
        .block_on(ops.patch(&wkey, PatchType::Strategic, &smp))
        .expect_err("415");
    assert_eq!(err.code, 415, "{err:?}");
    // A missing object: GET answers None, writes 404.
    let gone = ObjectRef {
        name: "nope".into(),
        ..key
    };
    assert!(rt.block_on(ops.get(&gone)).unwrap().is_none());
    assert_eq!(rt.block_on(ops.delete(&gone, &del)).unwrap_err().code, 404);
}
