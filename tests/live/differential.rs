//! Differential test: kubectl-gc's prediction against the real garbage collector
//! (kube-controller-manager v1.20.2, `scripts/testenv-install`), object by object.
//!
//! 1. A control plane **without** the GC. Random ownership forests (deterministic seed) are
//!    created and put in random deletion states while no GC runs: owners deleted with the
//!    Orphan or Foreground policy stay terminating with the `orphan` / `foregroundDeletion`
//!    finalizer, objects held by a custom finalizer stay terminating, owners deleted in the
//!    background are gone (their dependents' references dangle), references point at owners
//!    that never existed, into other namespaces, with wrong kinds or names, with every
//!    `blockOwnerDeletion` value, several per object; ConfigMaps, Secrets (a second informer)
//!    and ClusterRoles (cluster-scoped).
//! 2. `kubectl gc snapshot -A`, and kubectl-gc's predictions from that snapshot:
//!    * **restart** (`check restart`, gc-model §6.22 / Appendix D.6): what a GC that *starts*
//!      on this cluster does. This is the prediction the real GC is held to: the state arose
//!      while no GC ran, so the GC that starts now sees it exactly as a restarted one does.
//!    * **collect** (`collect`, the steady-state plan: every object visited, as by a GC that
//!      was running while the state arose). Held to the real GC as well: where the two
//!      predictions could differ, the difference is the order in which the state arose, which
//!      no snapshot records (fidelity-review F1 scenario 3); on these forests they do not.
//! 3. The real GC is started on the same API server and left until quiescent (both work
//!    queues empty and no harness object changed for a while); then every harness object's end
//!    state (gone, or present with terminating flag, finalizers and ownerReference UIDs) is
//!    compared with each prediction. Every object must end in its one predicted state, except
//!    the objects `excuses.rs` names with the upstream reason that leaves their end state to
//!    an order the real GC does not fix: those must end in one of their predicted states, and
//!    the prediction must call exactly them order-dependent (29 of the CI run's objects at a
//!    restart, 25 in the steady state).
//!
//! Configuration (environment):
//! * `KGC_DIFF_SCALE`: `ci` (default, a few minutes) or `large` (~1,000 forests, manual);
//! * `KGC_DIFF_SEED`: the seed (default 1); the same seed creates the same forests;
//! * `KGC_DIFF_FORESTS`: override the number of forests;
//! * `KGC_DIFF_GC_SYNCS`: the GC's workers per queue (`--concurrent-gc-syncs`, default 1000);
//! * `KGC_DIFF_KEEP_SNAPSHOT`: copy the snapshot there (to replay the prediction offline).
//!
//! **Timing.** kubectl-gc predicts the order the GC takes when nothing races: every queued item
//! is taken by a worker at once, each API round trip is one time step, and where two workers
//! touch one object in the same step the outcome is reported as order-dependent. A GC with
//! the default 20 workers per queue and a start that queues thousands of items processes them
//! in FIFO batches instead, and two causally independent chains (say, the orphaning of one
//! owner and the verification of another object's missing owner) can then finish in either
//! order. The harness therefore runs the GC with enough workers (and API client limits) that
//! the queues never wait; `KGC_DIFF_GC_SYNCS=20` shows what queue contention adds.
//!
//! Prints every disagreement with its forest (objects, references, deletion states) and the
//! two end states, then a summary line; fails on any disagreement of either prediction and on
//! any order-dependent object the excuses do not name (or a named one no longer predicted
//! so). Each named object lists the end states its reason leaves open, written out in the
//! table: both predictions must give it exactly those, and the real GC must end it in one of
//! them. Another seed or forest count has no named
//! excuses: only the objects its forests' structure leaves open (`excuses::structurally_open`:
//! a reference to an owner in orphan or foreground deletion, or to a missing UID a ClusterRole
//! references too, and their dependents) may be order-dependent, and every object must end in
//! a state its predictions allow. `KGC_DIFF_FORESTS=0` fails: it would compare nothing.
//! The live suite `differential`: `cargo test --test live -- differential`.
//!
//! **Misses found and fixed at large scale** (the real GC took an order the model did not
//! have; never a false deletion): seed 5 at 1,000 forests showed three, each now a unit test
//! in `src/diagnose/tests/fidelity.rs`: forest 673 (a component with more races than are
//! flipped one by one held every chain back at once), 827 (a dependent delivered between a
//! wrong-kind sibling and the owner is checked against the sibling's virtual node) and 702
//! (a write of one chain landing after another chain's read while its own reads keep their
//! time). After them, seeds 1, 5, 8, 9, 10, 12 and 13 at that scale agree everywhere (stop 36),
//! and so do seeds 14 to 21 (stop 37). The real GC samples one order per run, so a large seed
//! can still show an order no run so far has taken: keep such a run's snapshot
//! (`KGC_DIFF_KEEP_SNAPSHOT`) and replay it offline
//! with `kubectl gc check restart --snapshot FILE -v 8` (trace events: each run's informer
//! order, requests, races and end states).

use crate::excuses;
use crate::forests::{Delete, Kind, Obj, Target, Twist, generate, manifest};
use crate::harness::{Suite, Test};
use crate::testenv::{self, TestEnv};
use kubectl_gc::diagnose::restart;
use kubectl_gc::gc::{EndState as EndOf, GarbageCollector, Plan, State};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const LABEL: &str = "kgc-diff";
const NAMESPACES: &[&str] = &["diff-a", "diff-b", "diff-c"];

pub struct Ctx {
    env: TestEnv,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "differential",
    setup: || {
        Ok(Ctx {
            env: TestEnv::start(false)?,
        })
    },
    tests: &[Test {
        name: "restart_prediction_equals_the_v1_20_2_gc",
        needs: &[],
        run: |ctx| {
            let scale = std::env::var("KGC_DIFF_SCALE").unwrap_or_else(|_| "ci".into());
            let seed: u64 = std::env::var("KGC_DIFF_SEED")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(1);
            let forests: usize = std::env::var("KGC_DIFF_FORESTS")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(if scale == "large" { 1000 } else { CI_FORESTS });
            let failures = run(&ctx.env, seed, forests);
            assert!(
                failures.is_empty(),
                "the predictions disagree with the real GC beyond the named excuses (seed \
                 {seed}, {forests} forests):\n{}",
                failures.join("\n")
            );
        },
    }],
};

/// The number of forests of the CI run, the run whose objects `excuses.rs` names.
const CI_FORESTS: usize = 200;

// ---------------------------------------------------------------------------------------------
// The forests (tests/live/forests.rs, shared with apply_safety)

/// The forests' metadata: the suite's label, the namespace when namespaced.
fn forest_meta(ns: &str, name: &str, refs: Vec<Value>) -> Value {
    let mut meta = json!({"name": name, "labels": {LABEL: "1"}});
    if !ns.is_empty() {
        meta["namespace"] = json!(ns);
    }
    if !refs.is_empty() {
        meta["ownerReferences"] = json!(refs);
    }
    meta
}

/// Describes one forest for a disagreement report.
fn describe_forest(objs: &[Obj], forest: usize, uids: &BTreeMap<String, String>) -> String {
    let mut s = String::new();
    for o in objs.iter().filter(|o| o.forest == forest) {
        let uid = uids.get(&o.key()).map(String::as_str).unwrap_or("?");
        let _ = write!(
            s,
            "    {} uid={}{}{}",
            o.key(),
            short(uid),
            if o.hold { " finalizer=hold" } else { "" },
            match o.delete {
                Some(d) => format!(" deleted={d:?}"),
                None => String::new(),
            }
        );
        s.push('\n');
        for r in &o.refs {
            let target = match &r.target {
                Target::Object(t, twist) => {
                    let tw = match twist {
                        Twist::Exact => "",
                        Twist::WrongKind => " (wrong kind)",
                        Twist::WrongName => " (wrong name)",
                    };
                    format!("{}{tw}", objs[*t].key())
                }
                Target::Missing { kind, name, uid } => {
                    format!("missing {}/{name} uid={}", kind.name(), short(uid))
                }
            };
            let _ = writeln!(
                s,
                "      -> {target}{}{}",
                match r.block {
                    Some(b) => format!(" block={b}"),
                    None => String::new(),
                },
                if r.controller { " controller" } else { "" }
            );
        }
    }
    s
}

fn short(uid: &str) -> &str {
    &uid[uid.len().saturating_sub(8)..]
}

// ---------------------------------------------------------------------------------------------
// The cluster

/// An object's state as compared: `None` = gone.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Present {
    terminating: bool,
    finalizers: BTreeSet<String>,
    owner_uids: Vec<String>,
}

type EndState = Option<Present>;

fn show(s: &EndState) -> String {
    match s {
        None => "gone".into(),
        Some(p) => {
            let mut t = if p.terminating {
                "terminating".to_owned()
            } else {
                "present".to_owned()
            };
            if !p.finalizers.is_empty() {
                let f: Vec<&str> = p.finalizers.iter().map(String::as_str).collect();
                let _ = write!(t, " finalizers=[{}]", f.join(","));
            }
            let r: Vec<&str> = p.owner_uids.iter().map(|u| short(u)).collect();
            let _ = write!(t, " refs=[{}]", r.join(","));
            t
        }
    }
}

/// The harness objects now, by key (kind/namespace/name) → (uid, state).
fn read_cluster(env: &TestEnv) -> BTreeMap<String, (String, Present)> {
    let text = env
        .kubectl(&[
            "get",
            "configmaps,secrets,clusterroles",
            "-A",
            "-l",
            &format!("{LABEL}=1"),
            "-o",
            "json",
        ])
        .expect("kubectl get");
    let v: Value = serde_json::from_str(&text).expect("JSON list");
    let mut out = BTreeMap::new();
    for item in v["items"].as_array().into_iter().flatten() {
        let m = &item["metadata"];
        let key = format!(
            "{}/{}/{}",
            item["kind"].as_str().unwrap_or(""),
            m["namespace"].as_str().unwrap_or(""),
            m["name"].as_str().unwrap_or("")
        );
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect()
        };
        let owner_uids = m["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["uid"].as_str().map(str::to_owned))
            .collect();
        out.insert(
            key,
            (
                m["uid"].as_str().unwrap_or("").to_owned(),
                Present {
                    terminating: m.get("deletionTimestamp").is_some_and(|d| !d.is_null()),
                    finalizers: strings(&m["finalizers"]).into_iter().collect(),
                    owner_uids,
                },
            ),
        );
    }
    out
}

/// Creates the objects level by level (owners before dependents), a few kubectl processes
/// at a time; returns every object's UID by key.
fn create_all(env: &TestEnv, objs: &[Obj]) -> BTreeMap<String, String> {
    for ns in NAMESPACES {
        env.kubectl(&["create", "namespace", ns])
            .expect("namespace");
    }
    let mut uids: BTreeMap<String, String> = BTreeMap::new();
    let max_level = objs.iter().map(|o| o.level).max().unwrap_or(0);
    for level in 0..=max_level {
        let items: Vec<Value> = objs
            .iter()
            .filter(|o| o.level == level)
            .map(|o| manifest(o, objs, &uids, &forest_meta))
            .collect();
        let chunks: Vec<&[Value]> = items.chunks(items.len().div_ceil(4).max(1)).collect();
        std::thread::scope(|s| {
            for chunk in chunks {
                s.spawn(move || {
                    let list = json!({"apiVersion": "v1", "kind": "List", "items": chunk});
                    env.kubectl_stdin(
                        &["create", "-f", "-", "-o", "name"],
                        Some(&list.to_string()),
                    )
                    .expect("kubectl create");
                });
            }
        });
        for (k, (uid, _)) in read_cluster(env) {
            uids.insert(k, uid);
        }
    }
    uids
}

/// Puts objects into their deletion states (no GC runs: nothing cascades).
fn delete_some(env: &TestEnv, objs: &[Obj]) {
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
    std::thread::scope(|s| {
        for ((kind, ns, cascade), names) in groups {
            s.spawn(move || {
                for chunk in names.chunks(200) {
                    let mut args = vec!["delete", kind.plural()];
                    args.extend(chunk.iter().copied());
                    let cascade = format!("--cascade={cascade}");
                    args.extend(["--wait=false", cascade.as_str()]);
                    if !ns.is_empty() {
                        args.extend(["-n", ns]);
                    }
                    env.kubectl(&args).expect("kubectl delete");
                }
            });
        }
    });
}

/// Starts kube-controller-manager with only the GC; returns it and its insecure port's URL.
/// `syncs` workers per queue, and API client limits raised so that neither the queues nor
/// the client throttle (see "Timing" above).
fn start_gc(env: &TestEnv, syncs: u32) -> (Child, String) {
    let bin = testenv::bin_dir().expect("the control plane's binaries");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let log = std::fs::File::create(env.dir.join("kcm-differential.log")).unwrap();
    let child = Command::new(bin.join("kube-controller-manager"))
        .args([
            "--kubeconfig",
            env.kubeconfig.to_str().unwrap(),
            "--controllers",
            "garbagecollector",
            "--leader-elect=false",
            "--use-service-account-credentials=false",
            "--kube-api-qps=5000",
            "--kube-api-burst=10000",
            &format!("--concurrent-gc-syncs={syncs}"),
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
    (child, format!("http://127.0.0.1:{port}"))
}

/// The depth of the GC's two work queues, from its metrics (`None` while not serving).
fn queue_depth(gc_url: &str) -> Option<u64> {
    let out = Command::new("curl")
        .args(["-sf", "--max-time", "5"])
        .arg(format!("{gc_url}/metrics"))
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
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

/// Waits until the GC is quiescent: queues empty and no harness object changed for `calm`.
fn wait_quiescent(env: &TestEnv, gc_url: &str, calm: Duration, timeout: Duration) {
    let start = Instant::now();
    let mut last = read_cluster(env);
    let mut since = Instant::now();
    let mut changed_once = false;
    loop {
        std::thread::sleep(Duration::from_secs(2));
        let now = read_cluster(env);
        if now != last {
            last = now;
            since = Instant::now();
            changed_once = true;
            continue;
        }
        let idle = queue_depth(gc_url) == Some(0);
        // Before the first change the GC may still be syncing its informers.
        let needed = if changed_once { calm } else { calm * 2 };
        if idle && since.elapsed() >= needed {
            eprintln!("GC quiescent after {:.0}s", start.elapsed().as_secs_f64());
            return;
        }
        assert!(
            start.elapsed() < timeout,
            "the GC did not become quiescent within {timeout:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Predictions

/// Per object UID: the possible end states kubectl-gc predicts (one unless order-dependent).
type Prediction = BTreeMap<String, Vec<EndState>>;

fn end_of(a: &GarbageCollector<'_>, end: &State, id: kubectl_gc::model::ObjId) -> EndState {
    let store = &a.snap.store;
    if !end.exists(id) {
        return None;
    }
    Some(Present {
        terminating: end.being_deleted(id),
        finalizers: end
            .finalizers(store, id)
            .iter()
            .map(|f| store.str(*f).to_owned())
            .collect(),
        owner_uids: end
            .owner_refs(store, id)
            .iter()
            .map(|r| store.str(r.uid).to_owned())
            .collect(),
    })
}

/// Every end state a plan allows for each object: the plan's own, plus its order-dependent
/// alternatives.
fn possible(a: &GarbageCollector<'_>, plan: &Plan) -> Prediction {
    let store = &a.snap.store;
    let mut out = Prediction::new();
    let by_target: BTreeMap<_, _> = plan.outcomes.iter().map(|o| (o.target, o)).collect();
    for id in store.ids() {
        let uid = store.str(store.object(id).uid).to_owned();
        let mut states = vec![end_of(a, &plan.end, id)];
        if let Some(o) = by_target.get(&id) {
            for alt in &o.alternatives {
                let s = match &alt.state {
                    EndOf::Deleted => None,
                    EndOf::Terminating { finalizers } => Some(Present {
                        terminating: true,
                        finalizers: finalizers
                            .iter()
                            .map(|f| store.str(*f).to_owned())
                            .collect(),
                        owner_uids: alt
                            .owner_refs
                            .iter()
                            .map(|u| store.str(*u).to_owned())
                            .collect(),
                    }),
                    EndOf::Kept => Some(Present {
                        terminating: false,
                        finalizers: store
                            .finalizers(id)
                            .iter()
                            .map(|f| store.str(*f).to_owned())
                            .collect(),
                        owner_uids: alt
                            .owner_refs
                            .iter()
                            .map(|u| store.str(*u).to_owned())
                            .collect(),
                    }),
                };
                if !states.contains(&s) {
                    states.push(s);
                }
            }
        }
        out.insert(uid, states);
    }
    out
}

/// The restart and collect predictions for every object of the snapshot.
fn predict(snapshot: &std::path::Path) -> (Prediction, Prediction, String) {
    let snap = kubectl_gc::snapshot::format::read_file(snapshot).expect("read snapshot");
    let version = GarbageCollector::default_gc_version(&snap);
    let a = GarbageCollector::new(&snap, version);
    let restart = restart::predict(&a);
    let collect = Plan::steady_state(&a);
    (
        possible(&a, &restart.plan),
        possible(&a, &collect),
        version.to_string(),
    )
}

// ---------------------------------------------------------------------------------------------
// The run

/// How one prediction compared with the real GC.
#[derive(Default)]
struct Tally {
    compared: usize,
    false_deletions: usize,
    missed_deletions: usize,
    /// Objects whose real end state is not the one the prediction gives them (nor, for an
    /// object it calls order-dependent, one of its alternatives), by key.
    disagree: BTreeSet<String>,
    /// Objects the prediction calls order-dependent (more than one possible end state).
    order_dependent: BTreeSet<String>,
    /// Per object: the end states the prediction allows, as `excuses::end_state` spells them.
    predicted: BTreeMap<String, BTreeSet<String>>,
    /// Per object: the real GC's end state, spelled the same way.
    actual: BTreeMap<String, String>,
}

/// Per object (by key): the owner UIDs its references name, with the name each reference
/// gives (the forests' own description: a wrong-name reference names `<owner>-renamed`).
fn reference_names(
    objs: &[Obj],
    uids: &BTreeMap<String, String>,
) -> BTreeMap<String, Vec<(String, String)>> {
    objs.iter()
        .map(|o| {
            let names = o
                .refs
                .iter()
                .map(|r| match &r.target {
                    Target::Object(t, twist) => {
                        let t = &objs[*t];
                        let name = match twist {
                            Twist::WrongName => format!("{}-renamed", t.name),
                            _ => t.name.clone(),
                        };
                        (uids.get(&t.key()).cloned().unwrap_or_default(), name)
                    }
                    Target::Missing { name, uid, .. } => (uid.clone(), name.clone()),
                })
                .collect();
            (o.key(), names)
        })
        .collect()
}

/// An end state in `excuses::end_state`'s spelling: owner UIDs as the names the object's
/// references give them (each reference used once, in order).
fn spelled(state: &EndState, names: &[(String, String)]) -> String {
    let Some(p) = state else {
        return excuses::end_state(None::<(bool, Vec<&str>, Vec<&str>)>);
    };
    let mut used = vec![false; names.len()];
    let refs: Vec<&str> = p
        .owner_uids
        .iter()
        .map(|u| {
            match names
                .iter()
                .enumerate()
                .find(|(i, (uid, _))| !used[*i] && uid == u)
            {
                Some((i, (_, n))) => {
                    used[i] = true;
                    n.as_str()
                }
                None => "?",
            }
        })
        .collect();
    excuses::end_state(Some((
        p.terminating,
        p.finalizers.iter().map(String::as_str),
        refs,
    )))
}

fn compare(
    name: &str,
    objs: &[Obj],
    uids: &BTreeMap<String, String>,
    before: &BTreeMap<String, (String, Present)>,
    after: &BTreeMap<String, (String, Present)>,
    prediction: &Prediction,
) -> Tally {
    let mut t = Tally::default();
    let by_key: BTreeMap<String, &Obj> = objs.iter().map(|o| (o.key(), o)).collect();
    let names = reference_names(objs, uids);
    let none = Vec::new();
    let mut bad_forests: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for (key, (uid, _)) in before {
        let Some(possible) = prediction.get(uid) else {
            panic!("{key} ({uid}) is not in the snapshot");
        };
        t.compared += 1;
        let actual: EndState = after
            .get(key)
            .filter(|(u, _)| u == uid)
            .map(|(_, p)| p.clone());
        let names = names.get(key).unwrap_or(&none);
        t.predicted.insert(
            key.clone(),
            possible.iter().map(|p| spelled(p, names)).collect(),
        );
        t.actual.insert(key.clone(), spelled(&actual, names));
        if possible.len() > 1 {
            t.order_dependent.insert(key.clone());
        }
        if possible.contains(&actual) {
            continue;
        }
        t.disagree.insert(key.clone());
        let predicted_gone = possible.iter().all(Option::is_none);
        if predicted_gone && actual.is_some() {
            t.false_deletions += 1;
        }
        if actual.is_none() && possible.iter().all(Option::is_some) {
            t.missed_deletions += 1;
        }
        let shown: Vec<String> = possible.iter().map(show).collect();
        let forest = by_key.get(key).map_or(usize::MAX, |o| o.forest);
        bad_forests.entry(forest).or_default().push(format!(
            "    {key}: predicted {} / real GC {}",
            shown.join(" | "),
            show(&actual)
        ));
    }
    for (forest, lines) in &bad_forests {
        println!("[{name}] forest {forest} disagrees:");
        print!("{}", describe_forest(objs, *forest, uids));
        for l in lines {
            println!("{l}");
        }
    }
    for key in &t.order_dependent {
        let forest = by_key.get(key).map_or(usize::MAX, |o| o.forest);
        println!(
            "[{name}] order-dependent: {key} (forest {forest}): predicted {:?}, real GC {:?}",
            t.predicted[key], t.actual[key]
        );
    }
    println!(
        "[{name}] {} objects compared, {} disagree ({} false deletions, {} missed deletions), \
         {} predicted order-dependent",
        t.compared,
        t.disagree.len(),
        t.false_deletions,
        t.missed_deletions,
        t.order_dependent.len()
    );
    t
}

fn run(env: &TestEnv, seed: u64, forests: usize) -> Vec<String> {
    assert!(
        forests > 0,
        "KGC_DIFF_FORESTS=0: no forest, nothing would be compared with the real GC"
    );
    let objs = generate(seed, forests, NAMESPACES);
    let t = Instant::now();
    let uids = create_all(env, &objs);
    delete_some(env, &objs);
    let before = read_cluster(env);
    eprintln!(
        "{} objects created ({} remain after the deletions) in {:.0}s",
        objs.len(),
        before.len(),
        t.elapsed().as_secs_f64()
    );

    let snapshot = env.dir.join("differential.ndjson");
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
        .args(["snapshot", "-A", "-o"])
        .arg(&snapshot)
        .arg("--kubeconfig")
        .arg(&env.kubeconfig)
        .output()
        .expect("run kubectl-gc snapshot");
    assert!(
        out.status.success(),
        "snapshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if let Some(keep) = std::env::var_os("KGC_DIFF_KEEP_SNAPSHOT") {
        std::fs::copy(&snapshot, &keep).expect("copy the snapshot");
    }
    let t = Instant::now();
    let (restart, collect, version) = predict(&snapshot);
    eprintln!(
        "predictions (GC {version}) in {:.2}s",
        t.elapsed().as_secs_f64()
    );
    // Nothing moves while no GC runs.
    assert_eq!(read_cluster(env), before, "objects changed without a GC");

    let syncs: u32 = std::env::var("KGC_DIFF_GC_SYNCS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let (mut gc, gc_url) = start_gc(env, syncs);
    let waited = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wait_quiescent(
            env,
            &gc_url,
            Duration::from_secs(15),
            Duration::from_secs(900),
        )
    }));
    let after = read_cluster(env);
    let _ = gc.kill();
    let _ = gc.wait();
    if let Err(e) = waited {
        std::panic::resume_unwind(e);
    }

    let r = compare("restart", &objs, &uids, &before, &after, &restart);
    let c = compare("collect", &objs, &uids, &before, &after, &collect);
    println!(
        "differential seed={seed} forests={forests} objects={} gc-syncs={syncs}: restart \
         prediction {} disagreements ({} false deletions), collect (steady state) {} \
         disagreements",
        r.compared,
        r.disagree.len(),
        r.false_deletions,
        c.disagree.len()
    );
    assert!(
        r.compared > 0 && c.compared == r.compared,
        "nothing was compared with the real GC ({} and {} objects)",
        r.compared,
        c.compared
    );
    if (seed, forests) != (1, CI_FORESTS) {
        // The excuses name objects of the CI forests. Another seed may leave open only the
        // objects its forests' structure leaves open (excuses::structurally_open, read from
        // the forests, not from the prediction); those must end in one of the prediction's
        // end states, every other object in its one.
        let open = excuses::structurally_open(&objs);
        let mut failures = Vec::new();
        for (label, t) in [("restart", &r), ("collect", &c)] {
            failures.extend(t.order_dependent.difference(&open).map(|k| {
                format!("[{label}] {k} is predicted order-dependent, but its forest has none of the excuses' reasons")
            }));
            failures.extend(
                t.disagree
                    .iter()
                    .map(|k| format!("[{label}] {k}: the real GC disagrees")),
            );
        }
        return failures;
    }
    // Every object is held to its one predicted end state but the named order-dependent
    // ones, which must end in one of theirs: in both predictions, so none may differ.
    let at_restart = excuses::order_dependent(forests, false);
    let steady = excuses::order_dependent(forests, true);
    assert_eq!(
        (at_restart.len(), steady.len()),
        (29, 25),
        "the excuses of the CI forests"
    );
    let none = BTreeSet::new();
    let mut failures = excuses::check(
        "restart",
        &r.order_dependent,
        &r.disagree,
        &at_restart,
        &[],
        &none,
    );
    failures.extend(excuses::check(
        "collect",
        &c.order_dependent,
        &c.disagree,
        &steady,
        &[],
        &none,
    ));
    // Each excused object: each prediction gives it exactly the listed end states, and the
    // real GC ends it in one of them.
    failures.extend(excuses::check_ends(
        "restart",
        &at_restart,
        Some((&r.predicted, true)),
        &[("the real GC", &r.actual)],
    ));
    failures.extend(excuses::check_ends(
        "collect",
        &steady,
        Some((&c.predicted, true)),
        &[("the real GC", &c.actual)],
    ));
    failures
}
