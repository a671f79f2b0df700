//! `kubectl gc watch` against the real garbage collector (kube-controller-manager v1.20.2).
//!
//! One control plane with the GC; one `kubectl gc watch -o json` process reads it for the
//! whole suite, and every test makes something happen and checks the transitions it prints:
//! that the GC's action is predicted (within a second of the write), with the right *when*,
//! and that the GC then does exactly that. Then: the API server restarted under a frozen
//! watch (its streams come back with `410 Gone`, relist and reconcile: no transition lost or
//! repeated), the deploy/ package (`package`: server-side dry run; the binary running with
//! exactly its ClusterRole, through a service-account token), and a bounded soak: a random workload
//! against the real GC, every deletion the GC performs predicted beforehand and none
//! predicted that it did not perform (`KGC_SOAK_SECS`, default 45).

mod package;

use crate::harness::{Suite, Test};
use crate::testenv::{self, TestEnv};
use serde_json::{Value, json};
use std::cell::{Ref, RefCell, RefMut};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Ctx {
    env: RefCell<TestEnv>,
    watch: RefCell<Option<Watcher>>,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "watch",
    setup: || {
        Ok(Ctx {
            env: RefCell::new(TestEnv::start(true)?),
            watch: RefCell::new(None),
        })
    },
    tests: &[
        Test {
            name: "becomes_ready_once_the_initial_lists_are_in",
            needs: &[],
            run: becomes_ready,
        },
        Test {
            name: "dangling_owner_the_running_gc_deletes_now",
            needs: &["becomes_ready_once_the_initial_lists_are_in"],
            run: dangling_owner_now,
        },
        Test {
            name: "cross_namespace_reference_gc_1_20_deletes_now",
            needs: &["becomes_ready_once_the_initial_lists_are_in"],
            run: cross_namespace_now,
        },
        Test {
            name: "edited_reference_waits_for_the_gc_restart",
            needs: &["becomes_ready_once_the_initial_lists_are_in"],
            run: edited_reference_restart,
        },
        Test {
            name: "blocked_foreground_deletion_appears_then_resolves",
            needs: &["becomes_ready_once_the_initial_lists_are_in"],
            run: blocked_foreground,
        },
        Test {
            name: "orphan_finalizer_appears_then_resolves",
            needs: &["becomes_ready_once_the_initial_lists_are_in"],
            run: orphan_finalizer,
        },
        Test {
            name: "a_crd_that_appears_is_watched_after_the_next_resync",
            needs: &["becomes_ready_once_the_initial_lists_are_in"],
            run: crd_appears,
        },
        Test {
            name: "api_server_restart_and_expired_watches_lose_and_repeat_nothing",
            needs: &["becomes_ready_once_the_initial_lists_are_in"],
            run: api_server_restart,
        },
        Test {
            name: "soak_every_gc_deletion_predicted_and_none_more",
            needs: &["becomes_ready_once_the_initial_lists_are_in"],
            run: soak,
        },
        Test {
            name: "package_passes_server_side_dry_run",
            needs: &[],
            run: package::dry_run,
        },
        Test {
            name: "runs_with_exactly_the_packages_cluster_role",
            needs: &["package_passes_server_side_dry_run"],
            run: package::service_account_watch,
        },
        Test {
            name: "the_gc_backlog_alert_reads_what_the_controller_manager_exports",
            needs: &[],
            run: package::gc_queue_metrics,
        },
    ],
};

// ---------------------------------------------------------------------------------------------
// The watch process

/// One transition line, with when it was read.
#[derive(Clone, Debug)]
struct Line {
    at: Instant,
    v: Value,
}

impl Line {
    fn transition(&self) -> &str {
        self.v["transition"].as_str().unwrap_or("")
    }
    fn code(&self) -> &str {
        self.v["finding"]["code"].as_str().unwrap_or("")
    }
    fn name(&self) -> &str {
        self.v["finding"]["object"]["name"].as_str().unwrap_or("")
    }
    fn uid(&self) -> &str {
        self.v["finding"]["object"]["uid"].as_str().unwrap_or("")
    }
    fn when(&self) -> &str {
        self.v["when"].as_str().unwrap_or("")
    }
    fn verb(&self) -> &str {
        self.v["action"]["verb"].as_str().unwrap_or("")
    }
    fn id(&self) -> &str {
        self.v["id"].as_str().unwrap_or("")
    }
}

struct Watcher {
    child: Child,
    lines: Arc<Mutex<Vec<Line>>>,
    /// Lines of stdout that are not JSON: the reading thread records them, and the test's
    /// thread fails on the first (a panic in the reading thread would go unseen).
    not_json: Arc<Mutex<Vec<String>>>,
    stderr: PathBuf,
    metrics: String,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

impl Watcher {
    fn start(kubeconfig: &Path, stderr: PathBuf) -> Watcher {
        let port = free_port();
        let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"))
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .args(["watch", "-o", "json", "--resync", "5s"])
            .args(["--metrics-addr", &format!("127.0.0.1:{port}")])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"))
            .spawn()
            .expect("start kubectl-gc watch");
        let out = child.stdout.take().expect("piped");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let not_json = Arc::new(Mutex::new(Vec::new()));
        let (sink, bad) = (lines.clone(), not_json.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let line = match line {
                    Ok(line) => line,
                    Err(e) => {
                        bad.lock().unwrap().push(format!("unreadable stdout: {e}"));
                        break;
                    }
                };
                let at = Instant::now();
                match serde_json::from_str::<Value>(&line) {
                    Ok(v) => sink.lock().unwrap().push(Line { at, v }),
                    Err(e) => bad.lock().unwrap().push(format!("({e}) {line}")),
                }
            }
        });
        Watcher {
            child,
            lines,
            not_json,
            stderr,
            metrics: format!("http://127.0.0.1:{port}"),
        }
    }

    /// The lines printed so far; fails the test if one was not JSON.
    #[track_caller]
    fn lines(&self) -> Vec<Line> {
        let bad = self.not_json.lock().unwrap().clone();
        assert!(
            bad.is_empty(),
            "watch printed lines that are not JSON: {bad:#?}"
        );
        self.lines.lock().unwrap().clone()
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Waits for the first line after `since` that matches.
    fn wait_for(
        &self,
        since: Instant,
        timeout: Duration,
        what: &str,
        pred: impl Fn(&Line) -> bool,
    ) -> Line {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(l) = self.lines().into_iter().find(|l| l.at >= since && pred(l)) {
                return l;
            }
            if Instant::now() > deadline {
                panic!(
                    "no transition {what} within {timeout:?}; transitions since: {:#?}\nstderr:\n{}",
                    self.lines()
                        .iter()
                        .filter(|l| l.at >= since)
                        .map(|l| &l.v)
                        .collect::<Vec<_>>(),
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The sum of the samples of `name`, which must be exported; a scrape that fails fails the
    /// test.
    #[track_caller]
    fn metric(&self, name: &str) -> f64 {
        self.samples(name)
            .unwrap_or_else(|| panic!("watch exports no {name}"))
    }

    /// The sum of the samples of the counter `name`: 0 while none has been recorded (a
    /// labelled counter appears with its first increment); a scrape that fails fails the test.
    #[track_caller]
    fn counter(&self, name: &str) -> f64 {
        self.samples(name).unwrap_or(0.0)
    }

    #[track_caller]
    fn samples(&self, name: &str) -> Option<f64> {
        let text = testenv::http_get(&format!("{}/metrics", self.metrics))
            .unwrap_or_else(|e| panic!("cannot scrape watch's metrics: {e}"));
        let values: Vec<f64> = text
            .lines()
            .filter(|l| l.starts_with(name))
            .map(|l| {
                l.rsplit(' ')
                    .next()
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or_else(|| panic!("not a sample: {l}"))
            })
            .collect();
        (!values.is_empty()).then(|| values.iter().sum())
    }
}

fn env(ctx: &Ctx) -> Ref<'_, TestEnv> {
    ctx.env.borrow()
}

fn watcher(ctx: &Ctx) -> RefMut<'_, Option<Watcher>> {
    ctx.watch.borrow_mut()
}

fn apply(env: &TestEnv, v: &Value) {
    env.kubectl_stdin(&["apply", "-f", "-"], Some(&v.to_string()))
        .expect("kubectl apply");
}

/// Creates `v` and returns its UID from the API server's answer. Read back later, an object
/// the GC deletes at once (a dangling dependent) is often already gone.
fn create_uid(env: &TestEnv, v: &Value) -> String {
    env.kubectl_stdin(
        &["create", "-f", "-", "-o", "jsonpath={.metadata.uid}"],
        Some(&v.to_string()),
    )
    .expect("kubectl create")
    .trim()
    .to_owned()
}

fn cm(ns: &str, name: &str, owners: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"namespace": ns, "name": name, "ownerReferences": owners}})
}

fn owner(name: &str, uid: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid})
}

fn uid_of(env: &TestEnv, ns: &str, name: &str) -> String {
    env.kubectl(&[
        "get",
        "cm",
        "-n",
        ns,
        name,
        "-o",
        "jsonpath={.metadata.uid}",
    ])
    .expect("uid")
}

fn exists(env: &TestEnv, ns: &str, name: &str) -> bool {
    crate::probe::exists(env, &["cm", "-n", ns, name])
}

fn wait_gone(env: &TestEnv, ns: &str, name: &str, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    while exists(env, ns, name) {
        assert!(
            Instant::now() < deadline,
            "configmap {ns}/{name} still exists after {timeout:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn namespace(env: &TestEnv, ns: &str) {
    let _ = env.kubectl(&["create", "namespace", ns]);
}

// ---------------------------------------------------------------------------------------------
// Tests

fn becomes_ready(ctx: &Ctx) {
    let env = env(ctx);
    for ns in ["wa", "wb"] {
        namespace(&env, ns);
    }
    let w = Watcher::start(&env.kubeconfig, env.dir.join("watch.stderr"));
    let deadline = Instant::now() + Duration::from_secs(60);
    while testenv::http_get(&format!("{}/readyz", w.metrics)).is_err() {
        assert!(
            Instant::now() < deadline,
            "watch not ready within 60 s; stderr:\n{}",
            w.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(testenv::http_get(&format!("{}/healthz", w.metrics)).is_ok());
    assert_eq!(w.metric("kubectl_gc_watch_ready"), 1.0);
    assert!(
        !w.stderr().contains("cannot list"),
        "admin can read everything: {}",
        w.stderr()
    );
    *watcher(ctx) = Some(w);
}

fn dangling_owner_now(ctx: &Ctx) {
    let env = env(ctx);
    let guard = watcher(ctx);
    let w = guard.as_ref().expect("watch runs");
    apply(
        &env,
        &cm(
            "wa",
            "dangling",
            json!([owner("ghost", "00000000-0000-4000-8000-000000000001")]),
        ),
    );
    let written = Instant::now();
    let l = w.wait_for(
        written - Duration::from_secs(1),
        Duration::from_secs(5),
        "GC001 dangling",
        |l| l.code() == "GC001" && l.name() == "dangling" && l.transition() == "appeared",
    );
    assert_eq!((l.when(), l.verb()), ("now", "delete"), "{:#}", l.v);
    let latency = l.at.saturating_duration_since(written);
    assert!(
        latency < Duration::from_secs(1),
        "reported {latency:?} after the write"
    );
    // The running GC does it.
    wait_gone(&env, "wa", "dangling", Duration::from_secs(30));
    let r = w.wait_for(l.at, Duration::from_secs(10), "resolved dangling", |x| {
        x.id() == l.id() && x.transition() == "resolved"
    });
    assert_eq!(r.v["objectDeleted"], true);
}

fn cross_namespace_now(ctx: &Ctx) {
    // The incident's reference — a dependent in another namespace than its owner. GC 1.20
    // checks the namespace when it links a new dependent to an owner it has observed
    // (kubernetes PR #92743, gc-model §1.5) and deletes it at once; only before 1.20 did such
    // a reference sit until a restart (the engine's unit tests cover GC 1.19).
    let env = env(ctx);
    let guard = watcher(ctx);
    let w = guard.as_ref().expect("watch runs");
    apply(&env, &cm("wa", "redis", json!([])));
    let owner_uid = uid_of(&env, "wa", "redis");
    apply(
        &env,
        &cm("wb", "exporter", json!([owner("redis", &owner_uid)])),
    );
    let written = Instant::now();
    let l = w.wait_for(
        written - Duration::from_secs(1),
        Duration::from_secs(5),
        "GC004 exporter",
        |l| l.code() == "GC004" && l.name() == "exporter" && l.transition() == "appeared",
    );
    assert_eq!((l.when(), l.verb()), ("now", "delete"), "{:#}", l.v);
    assert_eq!(l.v["finding"]["severity"], "critical");
    assert!(l.at.saturating_duration_since(written) < Duration::from_secs(1));
    wait_gone(&env, "wb", "exporter", Duration::from_secs(30));
    assert!(exists(&env, "wa", "redis"), "the owner stays");
}

fn edited_reference_restart(ctx: &Ctx) {
    let mut env = ctx.env.borrow_mut();
    let guard = watcher(ctx);
    let w = guard.as_ref().expect("watch runs");
    apply(&env, &cm("wa", "operator", json!([])));
    let owner_uid = uid_of(&env, "wa", "operator");
    apply(
        &env,
        &cm("wa", "managed", json!([owner("operator", &owner_uid)])),
    );
    std::thread::sleep(Duration::from_millis(500));
    // Edited in place: same UID, another name. The running GC sees a *changed* reference,
    // which it does not re-check (only added ones are, gc-model §2.2 B2); a restarted GC
    // looks the owner up by the reference's name and finds nothing.
    let written = Instant::now();
    env.kubectl(&[
        "patch",
        "cm",
        "-n",
        "wa",
        "managed",
        "--type=json",
        "-p",
        r#"[{"op":"replace","path":"/metadata/ownerReferences/0/name","value":"operator-old"}]"#,
    ])
    .expect("patch");
    let l = w.wait_for(written, Duration::from_secs(5), "GC003 managed", |l| {
        l.code() == "GC003" && l.name() == "managed" && l.transition() == "appeared"
    });
    assert_eq!((l.when(), l.verb()), ("restart", "delete"), "{:#}", l.v);
    assert_eq!(l.v["whenReason"], "edited-in-place", "{:#}", l.v);
    assert!(l.at.saturating_duration_since(written) < Duration::from_secs(1));
    // The views that read the cluster as it sits say the same moment (the newcomer's N1):
    // a reference the running GC checks only when it is written, sitting there broken.
    crate::timeline::all_say(&env, "wa", "managed", "GC003", "restart sitting");
    // The running GC leaves it alone…
    std::thread::sleep(Duration::from_secs(5));
    assert!(exists(&env, "wa", "managed"), "the running GC deleted it");
    // …and a restarted one deletes it, as predicted.
    env.restart_gc().expect("restart the GC");
    wait_gone(&env, "wa", "managed", Duration::from_secs(60));
    assert!(exists(&env, "wa", "operator"));
    w.wait_for(l.at, Duration::from_secs(10), "resolved managed", |x| {
        x.id() == l.id() && x.transition() == "resolved" && x.v["objectDeleted"] == true
    });
}

fn blocked_foreground(ctx: &Ctx) {
    let env = env(ctx);
    let guard = watcher(ctx);
    let w = guard.as_ref().expect("watch runs");
    apply(&env, &cm("wa", "fg-owner", json!([])));
    let owner_uid = uid_of(&env, "wa", "fg-owner");
    let mut child = cm(
        "wa",
        "fg-child",
        json!([{"apiVersion": "v1", "kind": "ConfigMap", "name": "fg-owner", "uid": owner_uid,
                "blockOwnerDeletion": true}]),
    );
    child["metadata"]["finalizers"] = json!(["example.com/hold"]);
    apply(&env, &child);
    let start = Instant::now();
    env.kubectl(&[
        "delete",
        "cm",
        "-n",
        "wa",
        "fg-owner",
        "--cascade=foreground",
        "--wait=false",
    ])
    .expect("foreground delete");
    let l = w.wait_for(start, Duration::from_secs(20), "GC008 fg-owner", |l| {
        l.code() == "GC008" && l.name() == "fg-owner" && l.transition() != "resolved"
    });
    assert_eq!(l.when(), "never", "{:#}", l.v);
    // The blocker goes: the GC finishes the deletion, the finding resolves.
    env.kubectl(&[
        "patch",
        "cm",
        "-n",
        "wa",
        "fg-child",
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ])
    .expect("remove the finalizer");
    wait_gone(&env, "wa", "fg-owner", Duration::from_secs(30));
    w.wait_for(l.at, Duration::from_secs(10), "resolved GC008", |x| {
        x.id() == l.id() && x.transition() == "resolved"
    });
}

fn orphan_finalizer(ctx: &Ctx) {
    let env = env(ctx);
    let guard = watcher(ctx);
    let w = guard.as_ref().expect("watch runs");
    // Held by another finalizer, so that it stays after the GC has orphaned its dependents.
    let mut o = cm("wa", "orphaner", json!([]));
    o["metadata"]["finalizers"] = json!(["example.com/hold"]);
    apply(&env, &o);
    let owner_uid = uid_of(&env, "wa", "orphaner");
    apply(
        &env,
        &cm("wa", "kept", json!([owner("orphaner", &owner_uid)])),
    );
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    env.kubectl(&[
        "delete",
        "cm",
        "-n",
        "wa",
        "orphaner",
        "--cascade=orphan",
        "--wait=false",
    ])
    .expect("orphan delete");
    let l = w.wait_for(start, Duration::from_secs(10), "GC009 orphaner", |l| {
        l.code() == "GC009" && l.name() == "orphaner" && l.transition() == "appeared"
    });
    assert_eq!((l.when(), l.verb()), ("now", "orphan"), "{:#}", l.v);
    w.wait_for(l.at, Duration::from_secs(30), "resolved GC009", |x| {
        x.id() == l.id() && x.transition() == "resolved"
    });
    let refs = env
        .kubectl(&[
            "get",
            "cm",
            "-n",
            "wa",
            "kept",
            "-o",
            "jsonpath={.metadata.ownerReferences}",
        ])
        .expect("kept exists");
    assert!(refs.trim().is_empty(), "the GC orphaned it: {refs}");
    let _ = env.kubectl(&[
        "patch",
        "cm",
        "-n",
        "wa",
        "orphaner",
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ]);
}

fn crd_appears(ctx: &Ctx) {
    let env = env(ctx);
    let guard = watcher(ctx);
    let w = guard.as_ref().expect("watch runs");
    // A reference to a kind nobody serves yet: the GC cannot map it and retries for ever.
    apply(
        &env,
        &cm(
            "wa",
            "cache-config",
            json!([{"apiVersion": "cache.example.com/v1", "kind": "Redis", "name": "cache",
                    "uid": "00000000-0000-4000-8000-00000000cafe"}]),
        ),
    );
    let l = w.wait_for(
        Instant::now() - Duration::from_secs(3),
        Duration::from_secs(10),
        "GC006",
        |l| l.name() == "cache-config" && l.code() == "GC006",
    );
    assert_eq!(l.when(), "never");
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "redis.cache.example.com"},
        "spec": {"group": "cache.example.com", "scope": "Namespaced",
                 "names": {"plural": "redis", "singular": "redis", "kind": "Redis"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object",
                                   "x-kubernetes-preserve-unknown-fields": true}}}]}});
    let created = Instant::now();
    apply(&env, &crd);
    // Within a resync (5 s here) the new resource is discovered and listed: the kind maps, the
    // owner is absent, and the GC (whose own resync picks the kind up too) deletes the dependent.
    let l2 = w.wait_for(
        created,
        Duration::from_secs(30),
        "GC001 after the CRD",
        |l| l.name() == "cache-config" && l.code() == "GC001" && l.transition() != "resolved",
    );
    // The GC retries an unmappable reference with back-off for ever, so it acts on it now.
    assert_eq!((l2.when(), l2.verb()), ("now", "delete"), "{:#}", l2.v);
    wait_gone(&env, "wa", "cache-config", Duration::from_secs(60));
    w.wait_for(created, Duration::from_secs(5), "GC006 resolved", |l| {
        l.name() == "cache-config" && l.code() == "GC006" && l.transition() == "resolved"
    });
    assert!(
        w.stderr()
            .contains("discovery changed: now watching redis.cache.example.com"),
        "{}",
        w.stderr()
    );
}

fn api_server_restart(ctx: &Ctx) {
    let mut env = ctx.env.borrow_mut();
    let guard = watcher(ctx);
    let w = guard.as_ref().expect("watch runs");
    // Two findings the running GC leaves alone (edited references), known before.
    apply(&env, &cm("wb", "anchor", json!([])));
    let anchor = uid_of(&env, "wb", "anchor");
    for name in ["keep-me", "delete-me", "edit-me"] {
        apply(&env, &cm("wb", name, json!([owner("anchor", &anchor)])));
    }
    for name in ["keep-me", "delete-me"] {
        env.kubectl(&[
            "patch",
            "cm",
            "-n",
            "wb",
            name,
            "--type=json",
            "-p",
            r#"[{"op":"replace","path":"/metadata/ownerReferences/0/name","value":"moved"}]"#,
        ])
        .expect("patch");
    }
    let before = Instant::now();
    for name in ["keep-me", "delete-me"] {
        w.wait_for(
            before - Duration::from_secs(5),
            Duration::from_secs(5),
            name,
            |l| l.name() == name && l.code() == "GC003",
        );
    }
    let relists_before = w.counter("kubectl_gc_watch_events_total{event=\"relist\"}");
    // Freeze the watch, restart the API server, change things, thaw: its streams resume from
    // resourceVersions the new server's watch cache no longer has (410 Gone), relist and
    // reconcile.
    let pid = w.child.id().to_string();
    Command::new("kill")
        .args(["-STOP", &pid])
        .status()
        .expect("SIGSTOP");
    let changed = (|| -> Result<(), String> {
        env.restart_apiserver()?;
        env.kubectl(&["delete", "cm", "-n", "wb", "delete-me"])?;
        env.kubectl(&[
            "patch",
            "cm",
            "-n",
            "wb",
            "edit-me",
            "--type=json",
            "-p",
            r#"[{"op":"replace","path":"/metadata/ownerReferences/0/name","value":"moved"}]"#,
        ])?;
        Ok(())
    })();
    let thawed = Instant::now();
    Command::new("kill")
        .args(["-CONT", &pid])
        .status()
        .expect("SIGCONT");
    changed.expect("changes while the watch was frozen");
    let appeared = w.wait_for(thawed, Duration::from_secs(60), "GC003 edit-me", |l| {
        l.name() == "edit-me" && l.code() == "GC003" && l.transition() == "appeared"
    });
    assert_eq!(appeared.when(), "restart");
    w.wait_for(thawed, Duration::from_secs(60), "resolved delete-me", |l| {
        l.name() == "delete-me" && l.transition() == "resolved" && l.v["objectDeleted"] == true
    });
    std::thread::sleep(Duration::from_secs(3));
    let relists = w.counter("kubectl_gc_watch_events_total{event=\"relist\"}") - relists_before;
    assert!(
        relists >= 1.0,
        "no stream relisted after the restart (410 expected)"
    );
    // Exactly one transition each; keep-me, unchanged, none.
    let after: Vec<Line> = w.lines().into_iter().filter(|l| l.at >= thawed).collect();
    let count = |name: &str| after.iter().filter(|l| l.name() == name).count();
    assert_eq!(
        (count("edit-me"), count("delete-me"), count("keep-me")),
        (1, 1, 0),
        "transitions after the restart: {:#?}",
        after.iter().map(|l| &l.v).collect::<Vec<_>>()
    );
    eprintln!(
        "api server restart: {relists} relists, transitions after it: {}",
        after.len()
    );
}

// ---------------------------------------------------------------------------------------------
// Soak

/// A tiny deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn soak(ctx: &Ctx) {
    let env = env(ctx);
    let guard = watcher(ctx);
    let w = guard.as_ref().expect("watch runs");
    let secs: u64 = std::env::var("KGC_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(45);
    let nss = ["soak-a", "soak-b"];
    for ns in nss {
        namespace(&env, ns);
    }
    let start = Instant::now();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ u64::from(std::process::id()));
    // name → (namespace, uid) of the objects the workload believes exist.
    let mut live: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut user_deleted: BTreeSet<String> = BTreeSet::new();
    let mut all: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut n = 0u32;
    let mut ops: BTreeMap<&str, u32> = BTreeMap::new();
    while start.elapsed() < Duration::from_secs(secs) {
        n += 1;
        let roll = rng.below(100);
        let ns = nss[rng.below(2)].to_owned();
        let pick = |rng: &mut Rng, live: &BTreeMap<String, (String, String)>| {
            (!live.is_empty()).then(|| {
                let k = live.keys().nth(rng.below(live.len())).cloned().unwrap();
                let (ns, uid) = live[&k].clone();
                (k, ns, uid)
            })
        };
        let op = if roll < 25 || live.len() < 4 {
            let name = format!("root-{n}");
            let uid = create_uid(&env, &cm(&ns, &name, json!([])));
            Some((name, ns, uid, "create-root"))
        } else if roll < 50 {
            // A dependent of one or two existing objects (same namespace as the first),
            // sometimes blocking its owner's deletion.
            let (oname, ons, ouid) = pick(&mut rng, &live).unwrap();
            let name = format!("dep-{n}");
            let mut refs = vec![
                json!({"apiVersion": "v1", "kind": "ConfigMap", "name": oname,
                "uid": ouid, "blockOwnerDeletion": rng.below(2) == 0}),
            ];
            if rng.below(4) == 0
                && let Some((o2, _, u2)) = pick(&mut rng, &live)
                && u2 != ouid
            {
                refs.push(owner(&o2, &u2));
            }
            let uid = create_uid(&env, &cm(&ons, &name, json!(refs)));
            Some((name, ons, uid, "create-dependent"))
        } else if roll < 58 {
            let name = format!("dangling-{n}");
            let ghost = format!("00000000-0000-4000-8000-{n:012}");
            let uid = create_uid(&env, &cm(&ns, &name, json!([owner("ghost", &ghost)])));
            Some((name, ns, uid, "create-dangling"))
        } else if roll < 80 {
            let (name, ns, _) = pick(&mut rng, &live).unwrap();
            let cascade = ["background", "foreground", "orphan"][rng.below(3)];
            let deleted = env
                .kubectl(&[
                    "delete",
                    "cm",
                    "-n",
                    &ns,
                    &name,
                    &format!("--cascade={cascade}"),
                    "--wait=false",
                ])
                .is_ok();
            if deleted {
                user_deleted.insert(live[&name].1.clone());
                *ops.entry(match cascade {
                    "background" => "delete-background",
                    "foreground" => "delete-foreground",
                    _ => "delete-orphan",
                })
                .or_default() += 1;
            }
            live.remove(&name);
            None
        } else {
            // Edit a dependent's references: drop them, add one, or rename one in place.
            let (name, ns, _) = pick(&mut rng, &live).unwrap();
            let r = rng.below(3);
            let patch = match r {
                0 => r#"{"metadata":{"ownerReferences":null}}"#.to_owned(),
                1 => match pick(&mut rng, &live) {
                    Some((o, ons, u)) if ons == ns && o != name => json!({"metadata":
                        {"ownerReferences": [owner(&o, &u)]}})
                    .to_string(),
                    _ => r#"{"metadata":{"ownerReferences":null}}"#.to_owned(),
                },
                _ => String::new(),
            };
            let ok = if patch.is_empty() {
                env.kubectl(&[
                    "patch", "cm", "-n", &ns, &name, "--type=json", "-p",
                    r#"[{"op":"replace","path":"/metadata/ownerReferences/0/name","value":"renamed"}]"#,
                ])
                .is_ok()
            } else {
                env.kubectl(&[
                    "patch",
                    "cm",
                    "-n",
                    &ns,
                    &name,
                    "--type=merge",
                    "-p",
                    &patch,
                ])
                .is_ok()
            };
            if ok {
                *ops.entry(["edit-drop", "edit-add", "edit-rename"][r])
                    .or_default() += 1;
            }
            None
        };
        if let Some((name, ns, uid, what)) = op {
            *ops.entry(what).or_default() += 1;
            // The UID comes from the create itself: read back, a dependent the GC deletes
            // at once was often gone already and its deletion went uncounted.
            if !uid.is_empty() {
                live.insert(name.clone(), (ns.clone(), uid.clone()));
                all.insert(uid, (ns, name));
            }
        }
        // Forget what the GC removed (so the workload does not act on it).
        if n.is_multiple_of(10) {
            let present = present_uids(&env, &nss);
            live.retain(|_, (_, uid)| present.contains(uid));
        }
    }
    // Let the GC finish, then compare.
    std::thread::sleep(Duration::from_secs(10));
    let present = present_uids(&env, &nss);
    let gc_deleted: BTreeSet<&String> = all
        .keys()
        .filter(|u| !present.contains(*u) && !user_deleted.contains(*u))
        .collect();
    let lines = w.lines();
    // Predictions: a delete the running GC does now, in the watch's output before the line
    // that says the object is gone. A prediction still standing at the end (not resolved or
    // changed since) whose object still exists is one the GC did not perform.
    let mut predicted: BTreeMap<String, usize> = BTreeMap::new();
    let mut gone_at: BTreeMap<String, usize> = BTreeMap::new();
    let mut standing: BTreeMap<String, (String, bool)> = BTreeMap::new();
    for (i, l) in lines.iter().enumerate() {
        let now_delete = l.transition() != "resolved" && l.when() == "now" && l.verb() == "delete";
        if now_delete {
            predicted.entry(l.uid().to_owned()).or_insert(i);
        }
        if l.transition() == "resolved" && l.v["objectDeleted"] == true {
            gone_at.entry(l.uid().to_owned()).or_insert(i);
        }
        standing.insert(l.id().to_owned(), (l.uid().to_owned(), now_delete));
    }
    let unpredicted: Vec<&(String, String)> = gc_deleted
        .iter()
        .filter(|u| {
            predicted
                .get(**u)
                .is_none_or(|p| gone_at.get(**u).is_some_and(|g| g < p))
        })
        .map(|u| &all[*u])
        .collect();
    let predicted_in_soak: BTreeSet<&String> = predicted
        .keys()
        .filter(|u| all.contains_key(*u) && !user_deleted.contains(*u))
        .collect();
    let still_standing: BTreeSet<&String> = standing
        .values()
        .filter(|(_, s)| *s)
        .map(|(u, _)| u)
        .collect();
    let not_performed: Vec<&(String, String)> = predicted_in_soak
        .iter()
        .filter(|u| present.contains(**u) && still_standing.contains(**u))
        .map(|u| &all[*u])
        .collect();
    eprintln!(
        "soak: {secs}s, {} operations {ops:?}; the GC deleted {}, watch predicted {} of them \
         beforehand; watch predicted {} deletions, {} not performed",
        n,
        gc_deleted.len(),
        gc_deleted.len() - unpredicted.len(),
        predicted_in_soak.len(),
        not_performed.len()
    );
    // What watch said about each of them, to tell a missed prediction from a late one.
    for (ns, name) in &unpredicted {
        let uid = all
            .iter()
            .find(|(_, v)| v.0 == *ns && v.1 == *name)
            .map(|(u, _)| u.as_str())
            .unwrap_or("");
        for l in lines.iter().filter(|l| l.uid() == uid) {
            eprintln!("  {ns}/{name}: {}", l.v);
        }
    }
    assert!(
        unpredicted.is_empty(),
        "deleted by the GC without a prediction before: {unpredicted:?}"
    );
    assert!(
        not_performed.is_empty(),
        "predicted but not deleted by the GC: {not_performed:?}"
    );
    assert!(
        gc_deleted.len() >= 5,
        "the workload made the GC delete things"
    );
}

fn present_uids(env: &TestEnv, nss: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for ns in nss {
        let text = env
            .kubectl(&[
                "get",
                "cm",
                "-n",
                ns,
                "-o",
                "jsonpath={.items[*].metadata.uid}",
            ])
            .unwrap_or_default();
        out.extend(text.split_whitespace().map(str::to_owned));
    }
    out
}
