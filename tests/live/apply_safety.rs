//! `collect --apply` as an attacker and a careless user would run it (issue 12 cases 1, 2, 5
//! `--qps`, 6) and its end state against the real v1.20.2 GC on random ownership forests
//! (issue 14 item 8).
//!
//! Phase 1, a control plane **without** the GC: the scenarios are built and `collect --apply`
//! runs on them; each scenario's end state is kept. Phase 2 (`real_gc_reaches_the_same_end_states`):
//! that control plane is stopped, a fresh one is built with the same scenarios while no GC
//! runs, then kube-controller-manager starts with only the garbage collector (as a restarted
//! GC sees the cluster) and runs until quiescent; its end states must equal the apply's,
//! object by object.
//!
//! Scenarios:
//! - **hostile names** (`gcx-names`): Roles (their names may hold anything but `.`, `..`, `/`,
//!   `%`) named `a?x=1`, `h#frag`, non-ASCII, with control characters, as garbage beside
//!   healthy look-alikes (`a`, `h`), as solid owners of ConfigMaps that also have a dangling
//!   owner; ConfigMaps whose owner is named `.`, `..`, `a/b`, `a%2Fb`, `50%` (never objects:
//!   the GC's metadata client resolves them as paths — see `src/apply/ops.rs`).
//! - **random forests** (`diff-a|b|c` and cluster-scoped ClusterRoles): the generator of the
//!   GC differential harness (branch `gc`, `tests/differential.rs`; copied here until it is
//!   in main): ConfigMaps, Secrets and ClusterRoles with references to each other and to
//!   owners that never existed, wrong kinds and names, every blockOwnerDeletion value, custom
//!   finalizers, owners deleted with the Orphan, Foreground or Background policy while no GC
//!   runs. `KGC_APPLY_DIFF_FORESTS` (default 60; 0 fails: nothing would be compared) and
//!   `KGC_APPLY_DIFF_SEED` (default 1). The objects whose end state the real GC's order
//!   decides are named in `excuses.rs` with the end states each may reach (both
//!   `collect --apply`'s and the real GC's must be among them); another seed may leave open
//!   only what its forests' structure leaves open (`excuses::structurally_open`).
//! - **secrets** created with `kubectl apply` (so `last-applied-configuration` holds their
//!   data) with a marker in data, annotations and labels: no output and no record holds it.
//! - **closed stdout**, a **403 mid-way** behind `| head -c 10`, an out-of-range `--qps`.
//!
//! `KGC_APPLY_SAFETY_BIN=path/to/kubectl-gc` runs the suite's commands with another build (to
//! see what an older one did: `git worktree add`, `cargo build`, point here).

use crate::excuses;
use crate::forests::{Delete, Kind, Obj, Target, Twist, generate, manifest};
use crate::harness::{Suite, Test};
use crate::testenv::{self, TestEnv};
use serde_json::{Value, json};
use std::cell::{Ref, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const LABEL: &str = "kgc-safety";
const NAMES_NS: &str = "gcx-names";
const DIFF_NAMESPACES: &[&str] = &["diff-a", "diff-b", "diff-c"];
const MARKER: &str = "kgc-marker-7f3a9c";
/// The number of random forests unless `KGC_APPLY_DIFF_FORESTS` says otherwise.
const DEFAULT_FORESTS: usize = 60;

pub struct Ctx {
    env: RefCell<Option<TestEnv>>,
    scratch: tempfile::TempDir,
    forests: Vec<Obj>,
    /// Seed 1 and `DEFAULT_FORESTS` forests: the forests whose objects `excuses.rs` names.
    default_forests: bool,
    /// Per scenario (label value): the end state `collect --apply` reached.
    expected: RefCell<BTreeMap<&'static str, State>>,
    /// Objects whose end state depends on an order the real GC does not fix, and why.
    order_dependent: RefCell<BTreeMap<String, String>>,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "apply_safety",
    setup,
    tests: &[
        // First: `-A` must find nothing else to do.
        Test {
            name: "random_forests_build",
            needs: &[],
            run: |ctx| build_forests(&env(ctx), &ctx.forests),
        },
        Test {
            name: "random_forests_collect_apply_converges",
            needs: &["random_forests_build"],
            run: |ctx| {
                let (state, racy) = forests_apply(&env(ctx), ctx.scratch.path());
                ctx.expected.borrow_mut().insert("diff", state);
                *ctx.order_dependent.borrow_mut() = racy;
            },
        },
        Test {
            name: "hostile_names_build",
            needs: &[],
            run: |ctx| build_names(&env(ctx)),
        },
        Test {
            name: "hostile_names_collect_apply",
            needs: &["hostile_names_build"],
            run: |ctx| {
                let state = names_apply(&env(ctx), ctx.scratch.path());
                ctx.expected.borrow_mut().insert("names", state);
            },
        },
        Test {
            name: "secret_marker_is_in_no_record_and_no_output",
            needs: &[],
            run: |ctx| secret_marker(&env(ctx), ctx.scratch.path()),
        },
        Test {
            name: "out_of_range_qps_writes_nothing",
            needs: &[],
            run: |ctx| qps_refused(&env(ctx), ctx.scratch.path()),
        },
        Test {
            name: "closed_stdout_stops_the_apply_and_says_so",
            needs: &[],
            run: |ctx| closed_stdout(&env(ctx), ctx.scratch.path()),
        },
        Test {
            name: "forbidden_mid_way_is_not_masked_by_head",
            needs: &[],
            run: |ctx| forbidden_mid_way(&env(ctx), ctx.scratch.path()),
        },
        // Last: replaces the control plane.
        Test {
            name: "real_gc_reaches_the_same_end_states",
            needs: &[
                "random_forests_collect_apply_converges",
                "hostile_names_collect_apply",
            ],
            run: real_gc_reaches_the_same_end_states,
        },
    ],
};

fn setup() -> Result<Ctx, String> {
    let scratch = tempfile::Builder::new()
        .prefix("kgc-apply-safety-")
        .tempdir()
        .map_err(|e| format!("scratch directory: {e}"))?;
    let var = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (seed, count) = (
        var("KGC_APPLY_DIFF_SEED", 1),
        var("KGC_APPLY_DIFF_FORESTS", DEFAULT_FORESTS as u64) as usize,
    );
    if count == 0 {
        return Err(
            "KGC_APPLY_DIFF_FORESTS=0: no forest, nothing would be compared with the real GC"
                .into(),
        );
    }
    let forests = generate(seed, count, DIFF_NAMESPACES);
    Ok(Ctx {
        env: RefCell::new(Some(TestEnv::start(false)?)),
        scratch,
        forests,
        default_forests: (seed, count) == (1, DEFAULT_FORESTS),
        expected: RefCell::new(BTreeMap::new()),
        order_dependent: RefCell::new(BTreeMap::new()),
    })
}

fn env(ctx: &Ctx) -> Ref<'_, TestEnv> {
    Ref::map(ctx.env.borrow(), |e| e.as_ref().expect("a control plane"))
}

// ---------------------------------------------------------------------------------------------
// Running things

fn kubectl(env: &TestEnv, args: &[&str]) -> String {
    env.kubectl(args).unwrap_or_else(|e| panic!("{e}"))
}

/// `kubectl create -f -` of a List; returns name → uid.
fn create(env: &TestEnv, items: Vec<Value>) -> BTreeMap<String, String> {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
    let out = env
        .kubectl_stdin(&["create", "-f", "-", "-o", "json"], Some(&list))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut uids = BTreeMap::new();
    for v in serde_json::Deserializer::from_str(&out).into_iter::<Value>() {
        let v = v.expect("kubectl create -o json");
        let items = match v["items"].as_array() {
            Some(a) => a.clone(),
            None => vec![v],
        };
        for i in items {
            uids.insert(
                i["metadata"]["name"].as_str().unwrap().to_owned(),
                i["metadata"]["uid"].as_str().unwrap().to_owned(),
            );
        }
    }
    uids
}

fn namespace(env: &TestEnv, ns: &str) {
    create(
        env,
        vec![json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})],
    );
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// The binary under test: this build, or `KGC_APPLY_SAFETY_BIN`.
fn exe() -> std::path::PathBuf {
    std::env::var_os("KGC_APPLY_SAFETY_BIN")
        .filter(|p| !p.is_empty())
        .map_or_else(|| env!("CARGO_BIN_EXE_kubectl-gc").into(), Into::into)
}

/// The binary with our kubeconfig, stdin from /dev/null.
fn bin(env: &TestEnv, args: &[&str]) -> Run {
    let out = Command::new(exe())
        .args(args)
        .arg("--kubeconfig")
        .arg(&env.kubeconfig)
        .stdin(Stdio::null())
        .output()
        .expect("run kubectl-gc");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn record_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).expect("record line is JSON"))
        .collect()
}

fn oref(api: &str, kind: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": api, "kind": kind, "name": name, "uid": uid})
}

fn meta(ns: &str, name: &str, scenario: &str, refs: Vec<Value>) -> Value {
    let mut m = json!({"name": name, "labels": {LABEL: scenario}});
    if !ns.is_empty() {
        m["namespace"] = json!(ns);
    }
    if !refs.is_empty() {
        m["ownerReferences"] = json!(refs);
    }
    m
}

const RBAC: &str = "rbac.authorization.k8s.io/v1";

/// Repeated 300,000 times: the owner name of `dep-long` (F10).
const LONG_NAME: &str = "l";

fn ghost(n: u32) -> String {
    format!("00000000-0000-4000-8000-0000000{n:05x}")
}

fn dangling_cm(ns: &str, name: &str, scenario: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": meta(ns, name, scenario, vec![oref("v1", "ConfigMap", "ghost", &ghost(1))])})
}

// ---------------------------------------------------------------------------------------------
// State, compared across clusters (owners by apiVersion/kind/name: UIDs differ)

#[derive(Clone, Debug, PartialEq, Eq)]
struct Present {
    terminating: bool,
    finalizers: BTreeSet<String>,
    refs: Vec<String>,
    /// The owner names of `refs`, for `excuses::end_state`.
    ref_names: Vec<String>,
}

/// Each object's end state as `excuses::end_state` spells it.
fn spelled(state: &State) -> BTreeMap<String, String> {
    state
        .iter()
        .map(|(k, p)| {
            let s = excuses::end_state(Some((
                p.terminating,
                p.finalizers.iter().map(String::as_str),
                p.ref_names.iter().map(String::as_str),
            )));
            (k.clone(), s)
        })
        .collect()
}

type State = BTreeMap<String, Present>;

fn capture(env: &TestEnv, scenario: &str) -> State {
    let out = kubectl(
        env,
        &[
            "get",
            "configmaps,secrets,roles.rbac.authorization.k8s.io,clusterroles.rbac.authorization.k8s.io",
            "-A",
            "-l",
            &format!("{LABEL}={scenario}"),
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
            item["kind"].as_str().unwrap_or(""),
            m["namespace"].as_str().unwrap_or(""),
            m["name"].as_str().unwrap_or("")
        );
        let refs = m["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                format!(
                    "{} {} {:?} block={}",
                    r["apiVersion"].as_str().unwrap_or(""),
                    r["kind"].as_str().unwrap_or(""),
                    r["name"].as_str().unwrap_or(""),
                    r["blockOwnerDeletion"]
                )
            })
            .collect();
        let finalizers = m["finalizers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f.as_str().map(str::to_owned))
            .collect();
        let ref_names = m["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| r["name"].as_str().unwrap_or("").to_owned())
            .collect();
        state.insert(
            key,
            Present {
                terminating: m.get("deletionTimestamp").is_some_and(|d| !d.is_null()),
                finalizers,
                refs,
                ref_names,
            },
        );
    }
    state
}

/// Object-by-object differences by key (`None`: gone).
fn differences(expected: &State, actual: &State) -> BTreeMap<String, String> {
    let keys: BTreeSet<&String> = expected.keys().chain(actual.keys()).collect();
    keys.into_iter()
        .filter(|k| expected.get(*k) != actual.get(*k))
        .map(|k| {
            let d = format!(
                "kubectl-gc {:?} / real GC {:?}",
                expected.get(k),
                actual.get(k)
            );
            (k.clone(), d)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Hostile names

fn build_names(env: &TestEnv) {
    let ns = NAMES_NS;
    let s = "names";
    namespace(env, ns);
    let role = |name: &str, refs: Vec<Value>| json!({"apiVersion": RBAC, "kind": "Role", "metadata": meta(ns, name, s, refs)});
    let cm = |name: &str, refs: Vec<Value>| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta(ns, name, s, refs)});
    let g = || oref("v1", "ConfigMap", "ghost", &ghost(1));
    let owners = create(
        env,
        vec![
            role("s?x=1", vec![]),
            role("o#frag", vec![]),
            role("é-owner", vec![]),
            role("c\u{1}owner", vec![]),
            role("a", vec![]),
            role("h", vec![]),
        ],
    );
    let r = |n: &str| oref(RBAC, "Role", n, &owners[n]);
    let garbage = create(
        env,
        vec![
            // Garbage with hostile names, beside healthy look-alikes (`a`, `h`).
            role("a?x=1", vec![g()]),
            role("h#frag", vec![g()]),
            role("d\u{1}x", vec![g()]),
            role("é-dep", vec![g()]),
            role("sp ace", vec![g()]),
            role("esc\u{1b}[2J", vec![g()]),
            // Solid owners with hostile names.
            cm("dep-solid-q", vec![r("s?x=1")]),
            cm("mixed-q", vec![r("s?x=1"), g()]),
            cm("mixed-hash", vec![r("o#frag"), g()]),
            cm("mixed-e", vec![r("é-owner"), g()]),
            cm("mixed-c", vec![r("c\u{1}owner"), g()]),
            // Owner names that are no object's: the GC's lookup resolves them as paths.
            cm("dep-dot", vec![oref("v1", "ConfigMap", ".", &ghost(2))]),
            cm("dep-dotdot", vec![oref("v1", "ConfigMap", "..", &ghost(3))]),
            cm(
                "dep-pct2f",
                vec![oref("v1", "ConfigMap", "a%2Fb", &ghost(4))],
            ),
            cm("dep-slash", vec![oref("v1", "ConfigMap", "a/b", &ghost(5))]),
            cm("dep-pct", vec![oref("v1", "ConfigMap", "50%", &ghost(6))]),
            cm(
                "dep-dot-solid",
                vec![oref("v1", "ConfigMap", ".", &ghost(2)), r("a")],
            ),
            // F10: an owner name whose lookup is longer than the http crate can send (the
            // GC's Go client sends it, gets NotFound and deletes the dependent).
            cm(
                "dep-long",
                vec![oref(
                    "v1",
                    "ConfigMap",
                    &LONG_NAME.repeat(300_000),
                    &ghost(7),
                )],
            ),
        ],
    );
    // A cascade through a hostile name.
    create(
        env,
        vec![cm(
            "child-of-q",
            vec![oref(RBAC, "Role", "a?x=1", &garbage["a?x=1"])],
        )],
    );
}

fn names_apply(env: &TestEnv, scratch: &Path) -> State {
    let record = scratch.join("names.json");
    let run = bin(
        env,
        &[
            "collect",
            "-n",
            NAMES_NS,
            "--apply",
            "--yes",
            "--qps",
            "500",
            "-o",
            "json",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    println!("{}", run.stderr.lines().last().unwrap_or(""));
    let doc: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
    let r = &doc["result"];
    // No action abandoned: nothing failed, nothing left undone by a stop.
    assert_eq!(r["failed"], 0, "{r:#}");
    assert_eq!(r["notDone"], 0, "{r:#}");
    assert!(r.get("stopped").is_none(), "{r:#}");
    // Skips only where the GC's own lookup fails (the `.` and `%` owners).
    for e in r["entries"].as_array().unwrap() {
        if e["result"] == "done" {
            continue;
        }
        assert_eq!(e["result"], "skipped", "{e}");
        assert_eq!(e["cause"], "gc-would-not", "{e}");
        let name = e["target"]["name"].as_str().unwrap();
        assert!(
            ["dep-dot", "dep-dot-solid", "dep-pct", "dep-pct2f"].contains(&name),
            "{e}"
        );
    }
    // Until the plan knows the GC's lookup rule (branch gc), it predicts those four; the
    // apply then says it is incomplete. With the rule, nothing is left and it exits 0.
    let left = r["left"].as_u64().unwrap();
    assert_eq!(run.code, if left == 0 { 0 } else { 7 }, "{}", run.stderr);
    let lines = record_lines(&record);
    assert_eq!(lines.last().unwrap()["kind"], "ApplySummary");
    // Every request path was a valid URI and reached its own object.
    for l in &lines {
        for req in l["requests"].as_array().into_iter().flatten() {
            let path = req["path"].as_str().unwrap();
            assert!(http::Uri::try_from(path).is_ok(), "{path}");
        }
    }
    let state = capture(env, "names");
    let key = |kind: &str, name: &str| format!("{kind}/{NAMES_NS}/{name}");
    for gone in [
        key("Role", "a?x=1"),
        key("Role", "h#frag"),
        key("Role", "d\u{1}x"),
        key("Role", "é-dep"),
        key("Role", "sp ace"),
        key("Role", "esc\u{1b}[2J"),
        key("ConfigMap", "child-of-q"),
        key("ConfigMap", "dep-dotdot"),
        key("ConfigMap", "dep-slash"),
        // F10: re-checked by listing its owner's collection, as `collect` planned it.
        key("ConfigMap", "dep-long"),
    ] {
        assert!(!state.contains_key(&gone), "{gone:?} should be gone");
    }
    for kept in ["a", "h", "s?x=1", "o#frag", "é-owner", "c\u{1}owner"] {
        assert!(state.contains_key(&key("Role", kept)), "{kept:?} kept");
    }
    for (cm, refs) in [
        ("mixed-q", 1),
        ("mixed-hash", 1),
        ("mixed-e", 1),
        ("mixed-c", 1),
        ("dep-solid-q", 1),
        ("dep-dot", 1),
        ("dep-pct", 1),
        ("dep-pct2f", 1),
        ("dep-dot-solid", 2),
    ] {
        let p = &state[&key("ConfigMap", cm)];
        assert_eq!(p.refs.len(), refs, "{cm}: {p:?}");
    }
    state
}

// ---------------------------------------------------------------------------------------------
// Secrets never leave the cluster

fn secret_marker(env: &TestEnv, scratch: &Path) {
    for (ns, output) in [("gcx-secret-t", "table"), ("gcx-secret-j", "json")] {
        namespace(env, ns);
        let manifest = json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {
                "name": "db-creds", "namespace": ns,
                "labels": {LABEL: "secret", "marker": MARKER},
                "annotations": {"note": MARKER},
                "ownerReferences": [oref("v1", "ConfigMap", "ghost", &ghost(1))],
            },
            "stringData": {"password": MARKER},
        });
        env.kubectl_stdin(&["apply", "-f", "-"], Some(&manifest.to_string()))
            .unwrap_or_else(|e| panic!("{e}"));
        // The test can fail: the cluster does hold the marker in the object's metadata.
        let live = kubectl(env, &["get", "secret", "db-creds", "-n", ns, "-o", "json"]);
        assert!(
            live.contains("last-applied-configuration") && live.contains(MARKER),
            "{live}"
        );
        let record = scratch.join(format!("secret-{output}.json"));
        let run = bin(
            env,
            &[
                "collect",
                "-n",
                ns,
                "--apply",
                "--yes",
                "-o",
                output,
                "--record",
                record.to_str().unwrap(),
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            !crate::probe::exists(env, &["secret", "db-creds", "-n", ns]),
            "the Secret was collected"
        );
        let text = std::fs::read_to_string(&record).unwrap();
        for (what, s) in [
            ("the record", &text),
            ("stdout", &run.stdout),
            ("stderr", &run.stderr),
        ] {
            assert!(
                !s.contains(MARKER),
                "{what} ({output}) holds the marker:\n{s}"
            );
            assert!(
                !s.contains("last-applied-configuration"),
                "{what} ({output}):\n{s}"
            );
        }
        // The record still has what an audit needs.
        let lines = record_lines(&record);
        let e = &lines[1];
        assert_eq!(e["result"], "done");
        assert!(e["before"]["uid"].is_string(), "{e}");
        assert!(e["before"]["resourceVersion"].is_string(), "{e}");
        assert_eq!(e["before"]["ownerReferences"][0]["name"], "ghost");
        assert_eq!(e["requests"][0]["status"], 200);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&record).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "record mode {mode:o}");
    }
    // Never an existing file, not even a symlink planted at the name.
    let target = scratch.join("planted-target");
    std::fs::write(&target, "keep").unwrap();
    let planted = scratch.join("planted.json");
    std::os::unix::fs::symlink(&target, &planted).unwrap();
    namespace(env, "gcx-secret-s");
    create(env, vec![dangling_cm("gcx-secret-s", "x", "secret")]);
    let run = bin(
        env,
        &[
            "collect",
            "-n",
            "gcx-secret-s",
            "--apply",
            "--yes",
            "--record",
            planted.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
}

// ---------------------------------------------------------------------------------------------
// --qps

fn qps_refused(env: &TestEnv, scratch: &Path) {
    let ns = "gcx-qps";
    namespace(env, ns);
    create(env, vec![dangling_cm(ns, "d", "qps")]);
    let record = scratch.join("qps.json");
    for q in ["1e-300", "0", "NaN", "1e9"] {
        let run = bin(
            env,
            &[
                "collect",
                "-n",
                ns,
                "--apply",
                "--yes",
                &format!("--qps={q}"),
                "--record",
                record.to_str().unwrap(),
            ],
        );
        assert_eq!(run.code, 2, "--qps {q}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(!record.exists(), "--qps {q}: a record was written");
    }
    assert!(env.kubectl(&["get", "cm", "d", "-n", ns]).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Exit codes that do not lie

/// Runs the binary with stdout a pipe whose reading end is already closed (`… | true`).
fn run_with_closed_stdout(env: &TestEnv, args: &[&str]) -> Run {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(exe())
        .args(args)
        .arg("--kubeconfig")
        .arg(&env.kubeconfig)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run kubectl-gc");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::new(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn closed_stdout(env: &TestEnv, scratch: &Path) {
    let ns = "gcx-pipe";
    namespace(env, ns);
    create(
        env,
        vec![dangling_cm(ns, "p1", "pipe"), dangling_cm(ns, "p2", "pipe")],
    );
    for output in ["table", "json"] {
        let record = scratch.join(format!("pipe-{output}.json"));
        let run = run_with_closed_stdout(
            env,
            &[
                "collect",
                "-n",
                ns,
                "--apply",
                "--yes",
                "-o",
                output,
                "--record",
                record.to_str().unwrap(),
            ],
        );
        // Not "applies nothing, writes no record, exits 0".
        assert_eq!(run.code, 7, "{output}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("apply stopped: standard output was closed"),
            "{output}: {}",
            run.stderr
        );
        let lines = record_lines(&record);
        let last = lines.last().unwrap();
        assert_eq!(last["kind"], "ApplySummary", "{last}");
        assert_eq!(last["stopped"], "output-closed", "{last}");
        assert_eq!(last["notDone"].as_array().unwrap().len(), 2, "{last}");
        assert_eq!(last["done"], 0);
        // Stopped before the first action: nothing was changed.
        for name in ["p1", "p2"] {
            assert!(env.kubectl(&["get", "cm", name, "-n", ns]).is_ok());
        }
    }
}

/// Lets the `viewer` user delete only the ConfigMaps `a1` and `a2` of `ns`.
fn partial_delete_rights(env: &TestEnv, ns: &str) {
    namespace(env, ns);
    create(
        env,
        vec![
            dangling_cm(ns, "a1", "forbid"),
            dangling_cm(ns, "a2", "forbid"),
            dangling_cm(ns, "b1", "forbid"),
            dangling_cm(ns, "b2", "forbid"),
            json!({"apiVersion": RBAC, "kind": "Role",
                   "metadata": {"name": "kgc-delete-some", "namespace": ns},
                   "rules": [{"apiGroups": [""], "resources": ["configmaps"],
                              "resourceNames": ["a1", "a2"], "verbs": ["delete"]}]}),
            json!({"apiVersion": RBAC, "kind": "RoleBinding",
                   "metadata": {"name": "kgc-delete-some", "namespace": ns},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                               "name": "kgc-delete-some"},
                   "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User",
                                 "name": "viewer"}]}),
        ],
    );
}

fn forbidden_mid_way(env: &TestEnv, scratch: &Path) {
    // Without a pipe first: what the 403 looks like.
    let ns = "gcx-forbid";
    partial_delete_rights(env, ns);
    let record = scratch.join("forbid.json");
    let run = bin(
        env,
        &[
            "collect",
            "--context",
            "viewer",
            "-n",
            ns,
            "--apply",
            "--yes",
            "-o",
            "json",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 7, "{}", run.stderr);
    assert!(run.stderr.contains("apply stopped"), "{}", run.stderr);
    assert!(run.stderr.contains("403"), "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("ApplyResult");
    assert_eq!(doc["result"]["stopped"], "error");
    assert_eq!(doc["result"]["done"], 2, "{:#}", doc["result"]);
    assert!(!crate::probe::exists(env, &["cm", "a1", "-n", ns]));
    assert!(crate::probe::exists(env, &["cm", "b1", "-n", ns]));

    // `| head -c 10`: the reader takes 10 bytes and goes away.
    let ns = "gcx-forbid2";
    partial_delete_rights(env, ns);
    let record = scratch.join("forbid-head.json");
    let mut child: Child = Command::new(exe())
        .args([
            "collect",
            "--context",
            "viewer",
            "-n",
            ns,
            "--apply",
            "--yes",
        ])
        .arg("--record")
        .arg(&record)
        .arg("--kubeconfig")
        .arg(&env.kubeconfig)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kubectl-gc");
    let mut head = [0u8; 10];
    child
        .stdout
        .take()
        .unwrap()
        .read_exact(&mut head)
        .expect("10 bytes of output");
    // (the stdout handle is dropped here: the pipe's reading end is closed)
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    assert!(stderr.contains("apply stopped"), "{stderr}");
    let last = record_lines(&record).pop().unwrap();
    assert_eq!(last["kind"], "ApplySummary");
    assert_eq!(last["complete"], false);
    assert!(
        ["error", "output-closed"].contains(&last["stopped"].as_str().unwrap()),
        "{last}"
    );
}

// ---------------------------------------------------------------------------------------------
// Random forests (tests/live/forests.rs, shared with the differential suite)

/// Creates the forests level by level (owners before dependents), then puts objects into
/// their deletion states — all while no GC runs, so nothing cascades.
fn build_forests(env: &TestEnv, objs: &[Obj]) {
    for ns in DIFF_NAMESPACES {
        namespace(env, ns);
    }
    let mut uids: BTreeMap<String, String> = BTreeMap::new();
    let max_level = objs.iter().map(|o| o.level).max().unwrap_or(0);
    for level in 0..=max_level {
        let items: Vec<Value> = objs
            .iter()
            .filter(|o| o.level == level)
            .map(|o| {
                manifest(o, objs, &uids, &|ns, name, refs| {
                    meta(ns, name, "diff", refs)
                })
            })
            .collect();
        if items.is_empty() {
            continue;
        }
        let list = json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string();
        let out = env
            .kubectl_stdin(&["create", "-f", "-", "-o", "json"], Some(&list))
            .unwrap_or_else(|e| panic!("{e}"));
        for v in serde_json::Deserializer::from_str(&out).into_iter::<Value>() {
            let v = v.expect("kubectl create -o json");
            let items = match v["items"].as_array() {
                Some(a) => a.clone(),
                None => vec![v],
            };
            for i in items {
                let m = &i["metadata"];
                uids.insert(
                    format!(
                        "{}/{}/{}",
                        i["kind"].as_str().unwrap(),
                        m["namespace"].as_str().unwrap_or(""),
                        m["name"].as_str().unwrap()
                    ),
                    m["uid"].as_str().unwrap().to_owned(),
                );
            }
        }
    }
    let mut groups: BTreeMap<(Kind, &str, &str), Vec<&str>> = BTreeMap::new();
    for o in objs {
        let Some(d) = o.delete else { continue };
        let cascade = match d {
            Delete::Background => "background",
            Delete::Orphan => "orphan",
            Delete::Foreground => "foreground",
        };
        groups
            .entry((o.kind, o.ns.unwrap_or(""), cascade))
            .or_default()
            .push(&o.name);
    }
    for ((kind, ns, cascade), names) in groups {
        let cascade = format!("--cascade={cascade}");
        let mut args = vec!["delete", kind.plural()];
        args.extend(names.iter().copied());
        args.extend(["--wait=false", cascade.as_str()]);
        if !ns.is_empty() {
            args.extend(["-n", ns]);
        }
        kubectl(env, &args);
    }
    println!(
        "  ({} objects in random forests; {} remain after the deletions)",
        objs.len(),
        capture(env, "diff").len()
    );
}

/// The objects whose end state a *restarted* v1.20.2 GC does not fix, from kubectl-gc's own
/// predictions on the snapshot taken before the apply:
/// - stranded (`check restart`): dependents of a missing owner that a restarted GC never
///   evaluates, or evaluates only for some informer orders (kubernetes#98040); `--apply`
///   does what a running GC does;
/// - an orphan patch racing an attemptToDelete action: the steady-state plan has both an
///   attemptToOrphan patch and a delete or reference removal of the GC's attemptToDelete for
///   the object. Which worker gets there first decides whether it survives; the real GC
///   took either order in repeated runs (issue 14 item 1);
/// - what the plan itself reports as order-dependent, and the owners whose finalizer removal
///   the plan withholds behind such a dependent (`--apply` reports them left, exit 7).
///
/// An owner deleted with the orphan policy is never among them: every order orphans its
/// dependents and removes `orphan` (issue 25: `--apply` used to leave it terminating).
fn order_dependent(snapshot: &Path) -> BTreeMap<String, String> {
    use kubectl_gc::gc::plan::{Plan, Reason};
    let snap = kubectl_gc::snapshot::format::read_file(snapshot).expect("read snapshot");
    let gc = kubectl_gc::gc::GarbageCollector::new(&snap, kubectl_gc::catalog::KubeVersion::v1(20));
    let key = |id| {
        let r = kubectl_gc::gc::ObjectRef::of(&snap, id);
        format!("{}/{}/{}", r.kind, r.namespace, r.name)
    };
    let mut out = BTreeMap::new();
    for s in kubectl_gc::diagnose::restart::predict(&gc).stranded {
        out.insert(key(s.object), format!("stranded at a restart: {}", s.why));
    }
    // Owners being deleted with the orphan finalizer: attemptToOrphan patches every object
    // whose reference carries their UID (the GC's graph is keyed by UID, whatever the
    // reference's kind or name).
    let store = &snap.store;
    let orphaning: BTreeSet<_> = store
        .ids()
        .filter(|&id| {
            store.object(id).being_deleted()
                && store.has_finalizer(id, kubectl_gc::model::finalizers::ORPHAN)
        })
        .map(|id| store.object(id).uid)
        .collect();
    let plan = Plan::steady_state(&gc);
    // The plan's own order-dependent objects (the queue-faithful simulation runs every order
    // upstream leaves open), and the owners whose finalizer removal every order makes but the
    // plan withholds behind one of them (a foreground deletion waiting for a blocking
    // dependent whose deletion is order-dependent): `--apply` leaves those terminating where
    // the real GC's order finishes them, and says so.
    for o in plan.outcomes.iter().filter(|o| o.order_dependent()) {
        out.insert(key(o.target), "order-dependent in the plan (GC021)".into());
    }
    for a in &plan.withheld {
        out.insert(
            key(a.target),
            "its finalizer's removal waits for an order-dependent dependent".into(),
        );
    }
    for a in &plan.actions {
        let deletes_or_strips = !matches!(a.reason, Reason::Orphan { .. })
            && matches!(
                a.verb,
                kubectl_gc::gc::plan::Verb::Delete
                    | kubectl_gc::gc::plan::Verb::RemoveOwnerReferences
            );
        let refs_orphaning = store
            .owner_refs(a.target)
            .iter()
            .any(|r| orphaning.contains(&r.uid));
        if deletes_or_strips && refs_orphaning {
            out.insert(
                key(a.target),
                "an orphan patch races the GC's attemptToDelete for it".into(),
            );
        }
    }
    out
}

fn forests_apply(env: &TestEnv, scratch: &Path) -> (State, BTreeMap<String, String>) {
    let before = capture(env, "diff");
    // This build's snapshot, read by this build's library (whatever binary is under test).
    let snapshot = scratch.join("forests.ndjson");
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(["snapshot", "-A", "-o"])
        .arg(&snapshot)
        .arg("--kubeconfig")
        .arg(&env.kubeconfig)
        .output()
        .expect("kubectl-gc snapshot");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let racy = order_dependent(&snapshot);
    let record = scratch.join("forests.json");
    let t = Instant::now();
    let run = bin(
        env,
        &[
            "collect",
            "-A",
            "--apply",
            "--yes",
            "--qps",
            "1000",
            "-o",
            "json",
            "--record",
            record.to_str().unwrap(),
        ],
    );
    let doc: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
    let r = &doc["result"];
    println!(
        "  (collect -A --apply: {} planned, {} done, {} skipped ({} changed, {} gc-would-not), {} round(s), converged {}, left {}, in {:.1}s)",
        doc["plan"]["actions"].as_array().map_or(0, Vec::len),
        r["done"],
        r["skipped"],
        r["skippedChanged"],
        r["skippedGcWouldNot"],
        r["rounds"],
        r["converged"],
        r["left"],
        t.elapsed().as_secs_f64()
    );
    for e in r["entries"].as_array().unwrap() {
        if e["result"] != "done" {
            println!(
                "    round {} {} {}/{}: {} ({}) {}",
                e["round"],
                e["verb"],
                e["target"]["namespace"].as_str().unwrap_or(""),
                e["target"]["name"].as_str().unwrap_or(""),
                e["result"],
                e["cause"],
                e["message"]
            );
        }
    }
    let state = capture(env, "diff");
    assert_ne!(state, before, "the apply changed the cluster");
    // Converged: a dry run now (this build's plan) finds nothing left in the forests. Before
    // the rounds, a strip skipped after an orphan patch ("re-run collect") left objects with
    // a dangling reference — an end state neither order of the real GC reaches.
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(["collect", "-A", "-o", "json", "--kubeconfig"])
        .arg(&env.kubeconfig)
        .output()
        .expect("kubectl-gc collect");
    let plan: Value = serde_json::from_slice(&out.stdout).expect("CollectPlan");
    let left: Vec<String> = plan["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| {
            let t = &a["target"];
            t["namespace"]
                .as_str()
                .is_some_and(|ns| DIFF_NAMESPACES.contains(&ns))
                || t["name"].as_str().is_some_and(|n| n.starts_with("diff-f"))
        })
        .map(|a| {
            format!(
                "{} {}/{}",
                a["verb"], a["target"]["namespace"], a["target"]["name"]
            )
        })
        .collect();
    assert!(left.is_empty(), "still planned after --apply: {left:#?}");
    // Nothing the cluster did on its own: every skip is superseded, nothing failed or stopped,
    // and a re-plan found nothing left: exit 0.
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(r["complete"], true, "{r:#}");
    assert_eq!(r["converged"], true, "{r:#}");
    println!(
        "  ({} objects whose end state the real GC does not fix)",
        racy.len()
    );
    for (k, why) in &racy {
        println!("    {k:?}: {why}");
    }
    (state, racy)
}

/// One forest, for a disagreement report.
fn describe_forest(objs: &[Obj], forest: usize) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for o in objs.iter().filter(|o| o.forest == forest) {
        let _ = writeln!(
            s,
            "      {}{}{}",
            o.key(),
            if o.hold { " finalizer=hold" } else { "" },
            o.delete
                .map_or(String::new(), |d| format!(" deleted={d:?}"))
        );
        for r in &o.refs {
            let target = match &r.target {
                Target::Object(t, twist) => format!(
                    "{}{}",
                    objs[*t].key(),
                    match twist {
                        Twist::Exact => "",
                        Twist::WrongKind => " (wrong kind)",
                        Twist::WrongName => " (wrong name)",
                    }
                ),
                Target::Missing { kind, name, .. } => format!("missing {}/{name}", kind.name()),
            };
            let _ = writeln!(
                s,
                "        -> {target}{}{}",
                r.block.map_or(String::new(), |b| format!(" block={b}")),
                if r.controller { " controller" } else { "" }
            );
        }
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Phase 2: the real GC

/// kube-controller-manager with only the garbage collector, enough workers and API client
/// limits that its queues never wait (as the differential harness runs it: with 20 workers
/// the order of independent chains depends on queue contention); killed on drop.
struct Gc {
    child: Child,
    url: String,
}

impl Gc {
    fn start(env: &TestEnv) -> Gc {
        let bin = testenv::bin_dir().unwrap_or_else(|e| panic!("{e}"));
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = std::fs::File::create(env.dir.join("kcm-apply-safety.log")).unwrap();
        let child = Command::new(bin.join("kube-controller-manager"))
            .arg("--kubeconfig")
            .arg(&env.kubeconfig)
            .args([
                "--controllers",
                "garbagecollector",
                "--leader-elect=false",
                "--use-service-account-credentials=false",
                "--kube-api-qps=5000",
                "--kube-api-burst=10000",
                "--concurrent-gc-syncs=1000",
                "--secure-port",
                "0",
                "--address",
                "127.0.0.1",
                "--port",
                &port.to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start kube-controller-manager");
        Gc {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    /// The depth of the GC's two work queues (`None` while it does not answer).
    fn queue_depth(&self) -> Option<u64> {
        let text = testenv::http_get(&format!("{}/metrics", self.url)).ok()?;
        let mut total = 0;
        let mut seen = false;
        for line in text.lines() {
            if line.starts_with("workqueue_depth{")
                && (line.contains("garbage_collector_attempt_to_delete")
                    || line.contains("garbage_collector_attempt_to_orphan"))
            {
                seen = true;
                total += line
                    .rsplit(' ')
                    .next()
                    .and_then(|n| n.parse::<f64>().ok())
                    .unwrap_or(1.0) as u64;
            }
        }
        seen.then_some(total)
    }
}

impl Drop for Gc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn real_gc_reaches_the_same_end_states(ctx: &Ctx) {
    let expected = ctx.expected.borrow().clone();
    drop(ctx.env.borrow_mut().take());
    *ctx.env.borrow_mut() =
        Some(TestEnv::start(false).unwrap_or_else(|e| panic!("second control plane: {e}")));
    let env = env(ctx);
    build_forests(&env, &ctx.forests);
    build_names(&env);
    let start = Instant::now();
    let gc = Gc::start(&env);
    // Quiescent: both queues empty and nothing changed for 15 s (30 s before the first
    // change: the GC may still be syncing its informers).
    let scenarios = ["diff", "names"];
    let read = || -> Vec<State> { scenarios.iter().map(|s| capture(&env, s)).collect() };
    let mut last = read();
    let mut since = Instant::now();
    let mut changed_once = false;
    loop {
        std::thread::sleep(Duration::from_secs(2));
        let now = read();
        if now != last {
            last = now;
            since = Instant::now();
            changed_once = true;
            continue;
        }
        let calm = if changed_once { 15 } else { 30 };
        if gc.queue_depth() == Some(0) && since.elapsed() >= Duration::from_secs(calm) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "the GC did not become quiescent in 10 minutes"
        );
    }
    println!(
        "  (the real GC quiescent after {:.0}s)",
        start.elapsed().as_secs_f64()
    );
    drop(gc);
    let racy = ctx.order_dependent.borrow();
    let mut failures = Vec::new();
    for (scenario, actual) in scenarios.iter().zip(last) {
        let want = &expected[scenario];
        let diff = differences(want, &actual);
        println!(
            "  [{scenario}] {} objects: {} differ between collect --apply and the real GC",
            want.len().max(actual.len()),
            diff.len(),
        );
        for (k, d) in &diff {
            println!("    {k:?}: {d}");
        }
        if *scenario != "diff" {
            failures.extend(
                diff.keys()
                    .map(|k| format!("[{scenario}] {k}: the real GC disagrees")),
            );
            continue;
        }
        let forests: BTreeSet<usize> = ctx
            .forests
            .iter()
            .filter(|o| diff.contains_key(&o.key()))
            .map(|o| o.forest)
            .collect();
        for f in forests {
            println!("    forest {f}:\n{}", describe_forest(&ctx.forests, f));
        }
        // Which objects differ is the real GC's order's choice; which objects may is named.
        let disagree: BTreeSet<String> = diff.keys().cloned().collect();
        let predicted: BTreeSet<String> = racy.keys().cloned().collect();
        assert!(!want.is_empty(), "no forest object was compared");
        if !ctx.default_forests {
            // The excuses name objects of the default forests. Another seed may leave open only
            // what its forests' structure leaves open (excuses::structurally_open, read from
            // the forests, never from kubectl-gc's own prediction); everything else must agree.
            let open = excuses::structurally_open(&ctx.forests);
            failures.extend(predicted.difference(&open).map(|k| {
                format!("[diff] {k}: kubectl-gc calls it order-dependent, but its forest has none of the excuses' reasons")
            }));
            failures.extend(
                disagree
                    .iter()
                    .filter(|k| !(predicted.contains(*k) && open.contains(*k)))
                    .map(|k| format!("[diff] {k}: the real GC disagrees")),
            );
            continue;
        }
        // `collect --apply` follows the steady-state plan: the named objects may differ
        // between the two, but each must end in one of the states its excuse lists, whoever
        // ended it.
        let excused = excuses::order_dependent(DEFAULT_FORESTS, true);
        let listed: BTreeSet<String> = excused.iter().map(|e| e.object.to_owned()).collect();
        failures.extend(excuses::check(
            scenario, &predicted, &disagree, &excused, &excused, &listed,
        ));
        let (by_apply, by_gc) = (spelled(want), spelled(&actual));
        for e in &excused {
            println!(
                "    {}: collect --apply {:?}, the real GC {:?}",
                e.object,
                by_apply.get(e.object).map_or("gone", String::as_str),
                by_gc.get(e.object).map_or("gone", String::as_str)
            );
        }
        failures.extend(excuses::check_ends(
            scenario,
            &excused,
            None,
            &[("collect --apply", &by_apply), ("the real GC", &by_gc)],
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
