//! Audit-log reader benchmark: `cargo bench --bench audit_log`.
//!
//! Generates a synthetic kube-apiserver audit log (JSON lines, as `--audit-log-path` writes it
//! under a kube-up-like policy: RequestReceived omitted, reads at Request level, writes at
//! RequestResponse) into a temporary directory under `target/`, and its gzip (as rotation
//! compresses it). The mix, by event: node lease renewals (update, both bodies), reads (get,
//! list, watch; a few of the GC's owner lookups answered 404), pod status patches, pod creates,
//! endpoint-slice updates, configmap and secret reads at Metadata, and the GC's deletes and
//! ownerReference-removal patches.
//!
//! Each measurement runs in a fresh child process (this binary re-executed), so its peak RSS
//! (`VmHWM`) is its own; the median of `KGC_BENCH_RUNS` (default 3) runs is reported:
//!
//! | case | floor | measured |
//! |---|---|---|
//! | plain | read the file line by line + `serde_json::from_slice::<IgnoredAny>` per line | `source::audit::read`, a sink that counts |
//! | gzip | the same through `flate2`'s `MultiGzDecoder` | `read` on the `.gz` |
//! | history (each input) | the floor of that input | the `history` command but its flag parsing: `read` keeping what the history uses, the explanation, the JSON written to a sink |
//!
//! Knobs: `KGC_BENCH_AUDIT_MB=200` (size of the plain log), `KGC_BENCH_RUNS=3`,
//! `KGC_BENCH_KEEP=1` (keep the generated logs, e.g. to profile one phase:
//! `perf record target/release/deps/audit_log-… --phase read target/bench-audit-…/audit.log`).

use kubectl_gc::source::audit::{AuditOptions, read};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[path = "common/mod.rs"]
mod common;
use common::{cpu_seconds, machine, peak_rss_kib};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--phase") {
        child(&args[i + 1], Path::new(&args[i + 2]));
        return;
    }
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.replace('_', "").parse().ok())
            .unwrap_or(d)
    };
    let mb = env("KGC_BENCH_AUDIT_MB", 200).max(1);
    let runs = env("KGC_BENCH_RUNS", 3).max(1);
    println!("{}", machine());
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target).expect("target dir");
    let tmp = tempfile::Builder::new()
        .prefix("bench-audit-")
        .tempdir_in(&target)
        .expect("temp dir");
    let (plain, gz, events) = generate(tmp.path(), mb);
    println!(
        "log: {events} events, {:.0} MB plain, {:.0} MB gzip",
        size(&plain) as f64 / 1e6,
        size(&gz) as f64 / 1e6
    );
    let _guard = if std::env::var_os("KGC_BENCH_KEEP").is_some() {
        println!("kept in {}", tmp.keep().display());
        None
    } else {
        Some(tmp)
    };
    for (what, file, floor_phase) in [("plain", &plain, "floor"), ("gzip", &gz, "floor-gz")] {
        let floor = measure(floor_phase, file, runs);
        let read = measure("read", file, runs);
        let history = measure("history", file, runs);
        println!(
            "  {what}: read ÷ floor = {:.2} wall, {:.2} CPU; {:.0} MB/s of log read; peak RSS {} MiB (floor {} MiB)",
            read.wall / floor.wall,
            read.cpu / floor.cpu.max(0.01),
            size(&plain) as f64 / 1e6 / read.wall,
            read.rss >> 10,
            floor.rss >> 10
        );
        println!(
            "  {what}: history ÷ floor = {:.2} wall, {:.2} CPU; peak RSS {} MiB",
            history.wall / floor.wall,
            history.cpu / floor.cpu.max(0.01),
            history.rss >> 10
        );
    }
}

/// A tiny deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn uid(&mut self) -> String {
        let a = self.next();
        let b = self.next();
        format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            b >> 52,
            b & 0xffff_ffff_ffff
        )
    }
}

fn stamp(us: i64) -> String {
    let secs = us / 1_000_000;
    let (h, m, s) = (secs / 3600 % 24, secs / 60 % 60, secs % 60);
    format!("2026-11-26T{h:02}:{m:02}:{s:02}.{:06}Z", us % 1_000_000)
}

const KUBELET_UA: &str = "kubelet/v1.31.2 (linux/amd64) kubernetes/5864a46";
const GC_USER: &str = "system:serviceaccount:kube-system:generic-garbage-collector";
const GC_UA: &str = "kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/system:serviceaccount:kube-system:generic-garbage-collector";

#[allow(clippy::too_many_arguments)]
fn event(
    level: &str,
    id: &str,
    uri: &str,
    verb: &str,
    user: &str,
    groups: &str,
    ua: &str,
    object_ref: &str,
    status: &str,
    bodies: &str,
    t: i64,
) -> String {
    format!(
        r#"{{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"{level}","auditID":"{id}","stage":"ResponseComplete","requestURI":"{uri}","verb":"{verb}","user":{{"username":"{user}","groups":[{groups}]}},"sourceIPs":["10.0.{}.{}"],"userAgent":"{ua}","objectRef":{object_ref},"responseStatus":{status}{bodies},"requestReceivedTimestamp":"{}","stageTimestamp":"{}","annotations":{{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}}}"#,
        t % 7,
        t % 250,
        stamp(t - 1800),
        stamp(t)
    )
}

fn pod_json(rng: &mut Rng, ns: &str, name: &str, uid: &str, rs: &str, rs_uid: &str) -> String {
    format!(
        r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","generateName":"{rs}-","namespace":"{ns}","uid":"{uid}","resourceVersion":"{}","creationTimestamp":"2026-11-26T01:00:00Z","labels":{{"app":"{rs}","pod-template-hash":"5d8f9c7b6"}},"ownerReferences":[{{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"{rs}","uid":"{rs_uid}","controller":true,"blockOwnerDeletion":true}}]}},"spec":{{"volumes":[{{"name":"kube-api-access","projected":{{"sources":[{{"serviceAccountToken":{{"expirationSeconds":3607,"path":"token"}}}}],"defaultMode":420}}}}],"containers":[{{"name":"app","image":"registry.example.com/shop/{rs}:1.4.2","ports":[{{"containerPort":8080,"protocol":"TCP"}}],"resources":{{"limits":{{"cpu":"500m","memory":"256Mi"}},"requests":{{"cpu":"100m","memory":"128Mi"}}}},"env":[{{"name":"LOG_LEVEL","value":"info"}},{{"name":"POD_NAME","valueFrom":{{"fieldRef":{{"apiVersion":"v1","fieldPath":"metadata.name"}}}}}}],"terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"}}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","nodeName":"node-{}","schedulerName":"default-scheduler","tolerations":[{{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}}]}},"status":{{"phase":"Running","conditions":[{{"type":"Ready","status":"True","lastTransitionTime":"2026-11-26T01:00:05Z"}}],"podIP":"10.244.{}.{}","startTime":"2026-11-26T01:00:00Z","qosClass":"Burstable"}}}}"#,
        rng.below(10_000_000),
        rng.below(50),
        rng.below(250),
        rng.below(250)
    )
}

/// Writes `mb` MB of log and its gzip; the number of events.
fn generate(dir: &Path, mb: usize) -> (PathBuf, PathBuf, u64) {
    let t0 = Instant::now();
    let plain = dir.join("audit.log");
    let gz = dir.join("audit-2026-11-26T01-49-45.123.log.gz");
    let mut w =
        std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&plain).expect("create"));
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut written = 0usize;
    let mut n = 0u64;
    let mut t: i64 = 1_800_000_000;
    let nodes_group = r#""system:nodes","system:authenticated""#;
    let sa_group =
        r#""system:serviceaccounts","system:serviceaccounts:kube-system","system:authenticated""#;
    let ok = r#"{"metadata":{},"code":200}"#;
    while written < mb * 1_000_000 {
        t += 1 + rng.below(2000) as i64;
        let id = rng.uid();
        let node = format!("node-{}", rng.below(50));
        let ns = ["shop", "payments", "search", "kube-system"][rng.below(4) as usize];
        let app = ["cart", "checkout", "catalog", "frontend"][rng.below(4) as usize];
        let rs = format!("{app}-5d8f9c7b6");
        let pod = format!("{rs}-{:05x}", rng.below(1 << 20));
        let (pod_uid, rs_uid) = (rng.uid(), rng.uid());
        let roll = rng.below(100);
        let line = if roll < 30 {
            let lease = |rv: u64| {
                format!(
                    r#"{{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{{"name":"{node}","namespace":"kube-node-lease","uid":"{pod_uid}","resourceVersion":"{rv}","creationTimestamp":"2026-11-20T08:00:00Z","ownerReferences":[{{"apiVersion":"v1","kind":"Node","name":"{node}","uid":"{rs_uid}"}}]}},"spec":{{"holderIdentity":"{node}","leaseDurationSeconds":40,"renewTime":"{}"}}}}"#,
                    stamp(t)
                )
            };
            let rv = rng.below(100_000_000);
            event(
                "RequestResponse",
                &id,
                &format!(
                    "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{node}?timeout=10s"
                ),
                "update",
                &format!("system:node:{node}"),
                nodes_group,
                KUBELET_UA,
                &format!(
                    r#"{{"resource":"leases","namespace":"kube-node-lease","name":"{node}","uid":"{pod_uid}","apiGroup":"coordination.k8s.io","apiVersion":"v1","resourceVersion":"{rv}"}}"#
                ),
                ok,
                &format!(
                    r#","requestObject":{},"responseObject":{}"#,
                    lease(rv),
                    lease(rv + 1)
                ),
                t,
            )
        } else if roll < 60 {
            // Reads at Request level: no bodies. One in thirty is the GC's owner lookup, 404.
            let (verb, uri, code) = match rng.below(30) {
                0 => (
                    "get",
                    format!("/apis/apps/v1/namespaces/{ns}/replicasets/{rs}"),
                    404,
                ),
                1..=12 => ("get", format!("/api/v1/namespaces/{ns}/pods/{pod}"), 200),
                13..=22 => (
                    "list",
                    format!(
                        "/api/v1/namespaces/{ns}/pods?labelSelector=app%3D{app}\\u0026limit=500"
                    ),
                    200,
                ),
                _ => (
                    "watch",
                    format!(
                        "/api/v1/namespaces/{ns}/configmaps?allowWatchBookmarks=true\\u0026resourceVersion=123\\u0026timeout=7m2s\\u0026watch=true"
                    ),
                    200,
                ),
            };
            let (user, ua, groups) = if code == 404 {
                (GC_USER, GC_UA, sa_group)
            } else {
                ("system:node:node-3", KUBELET_UA, nodes_group)
            };
            event(
                "Request",
                &id,
                &uri,
                verb,
                user,
                groups,
                ua,
                &format!(
                    r#"{{"resource":"pods","namespace":"{ns}","name":"{pod}","apiVersion":"v1"}}"#
                ),
                &if code == 404 {
                    format!(
                        r#"{{"metadata":{{}},"status":"Failure","message":"replicasets.apps \"{rs}\" not found","reason":"NotFound","details":{{"name":"{rs}","group":"apps","kind":"replicasets"}},"code":404}}"#
                    )
                } else {
                    ok.to_owned()
                },
                "",
                t,
            )
        } else if roll < 70 {
            event(
                "RequestResponse",
                &id,
                &format!("/api/v1/namespaces/{ns}/pods/{pod}/status"),
                "patch",
                &format!("system:node:{node}"),
                nodes_group,
                KUBELET_UA,
                &format!(
                    r#"{{"resource":"pods","namespace":"{ns}","name":"{pod}","apiVersion":"v1","subresource":"status"}}"#
                ),
                ok,
                &format!(
                    r#","requestObject":{{"metadata":{{"uid":"{pod_uid}"}},"status":{{"$setElementOrder/conditions":[{{"type":"Initialized"}},{{"type":"Ready"}}],"conditions":[{{"lastTransitionTime":"{}","status":"True","type":"Ready"}}]}}}},"responseObject":{}"#,
                    stamp(t),
                    pod_json(&mut rng, ns, &pod, &pod_uid, &rs, &rs_uid)
                ),
                t,
            )
        } else if roll < 75 {
            let body = pod_json(&mut rng, ns, &pod, &pod_uid, &rs, &rs_uid);
            event(
                "RequestResponse",
                &id,
                &format!("/api/v1/namespaces/{ns}/pods"),
                "create",
                "system:serviceaccount:kube-system:replicaset-controller",
                sa_group,
                "kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/system:serviceaccount:kube-system:replicaset-controller",
                &format!(
                    r#"{{"resource":"pods","namespace":"{ns}","name":"{pod}","apiVersion":"v1"}}"#
                ),
                r#"{"metadata":{},"code":201}"#,
                &format!(r#","requestObject":{body},"responseObject":{body}"#),
                t,
            )
        } else if roll < 82 {
            event(
                "RequestResponse",
                &id,
                &format!("/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices/{app}-x7k2p"),
                "update",
                "system:serviceaccount:kube-system:endpointslice-controller",
                sa_group,
                "kube-controller-manager/v1.31.2 (linux/amd64) kubernetes/5864a46/system:serviceaccount:kube-system:endpointslice-controller",
                &format!(
                    r#"{{"resource":"endpointslices","namespace":"{ns}","name":"{app}-x7k2p","apiGroup":"discovery.k8s.io","apiVersion":"v1"}}"#
                ),
                ok,
                &format!(
                    r#","requestObject":{{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1","metadata":{{"name":"{app}-x7k2p","namespace":"{ns}","uid":"{rs_uid}","labels":{{"kubernetes.io/service-name":"{app}"}},"ownerReferences":[{{"apiVersion":"v1","kind":"Service","name":"{app}","uid":"{pod_uid}","controller":true,"blockOwnerDeletion":true}}]}},"addressType":"IPv4","endpoints":[{{"addresses":["10.244.1.7"],"conditions":{{"ready":true}},"nodeName":"{node}","targetRef":{{"kind":"Pod","namespace":"{ns}","name":"{pod}","uid":"{pod_uid}"}}}}],"ports":[{{"name":"http","protocol":"TCP","port":8080}}]}}"#
                ),
                t,
            )
        } else if roll < 92 {
            let res = if roll.is_multiple_of(2) {
                "configmaps"
            } else {
                "secrets"
            };
            event(
                "Metadata",
                &id,
                &format!("/api/v1/namespaces/{ns}/{res}/{app}-config"),
                "get",
                "system:node:node-7",
                nodes_group,
                KUBELET_UA,
                &format!(
                    r#"{{"resource":"{res}","namespace":"{ns}","name":"{app}-config","apiVersion":"v1"}}"#
                ),
                ok,
                "",
                t,
            )
        } else if roll < 97 {
            event(
                "RequestResponse",
                &id,
                &format!("/api/v1/namespaces/{ns}/pods/{pod}"),
                "delete",
                GC_USER,
                sa_group,
                GC_UA,
                &format!(
                    r#"{{"resource":"pods","namespace":"{ns}","name":"{pod}","apiVersion":"v1"}}"#
                ),
                ok,
                &format!(
                    r#","requestObject":{{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/__internal","preconditions":{{"uid":"{pod_uid}"}},"propagationPolicy":"Background"}},"responseObject":{}"#,
                    pod_json(&mut rng, ns, &pod, &pod_uid, &rs, &rs_uid)
                ),
                t,
            )
        } else {
            event(
                "RequestResponse",
                &id,
                &format!("/apis/apps/v1/namespaces/{ns}/replicasets/{rs}"),
                "patch",
                GC_USER,
                sa_group,
                GC_UA,
                &format!(
                    r#"{{"resource":"replicasets","namespace":"{ns}","name":"{rs}","apiGroup":"apps","apiVersion":"v1"}}"#
                ),
                ok,
                &format!(
                    r#","requestObject":{{"metadata":{{"ownerReferences":[{{"$patch":"delete","uid":"{pod_uid}"}}],"uid":"{rs_uid}"}}}}"#
                ),
                t,
            )
        };
        w.write_all(line.as_bytes()).expect("write");
        w.write_all(b"\n").expect("write");
        written += line.len() + 1;
        n += 1;
    }
    drop(w);
    let mut e = flate2::write::GzEncoder::new(
        std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&gz).expect("create")),
        flate2::Compression::default(),
    );
    std::io::copy(&mut std::fs::File::open(&plain).expect("open"), &mut e).expect("gzip");
    e.finish().expect("gzip");
    eprintln!(
        "generated {} and its gzip in {:.1}s",
        plain.display(),
        t0.elapsed().as_secs_f64()
    );
    (plain, gz, n)
}

/// What `runs` child runs of one phase took.
struct Measured {
    /// Median wall-clock seconds.
    wall: f64,
    /// Median CPU seconds (user + system).
    cpu: f64,
    /// Largest peak RSS, KiB.
    rss: u64,
}

/// Medians and largest peak RSS of `runs` child runs; prints a line.
fn measure(phase: &str, path: &Path, runs: usize) -> Measured {
    let mut times = Vec::new();
    let mut cpus = Vec::new();
    let mut rss = 0;
    let mut detail = String::new();
    for _ in 0..runs {
        let out = Command::new(std::env::current_exe().expect("current exe"))
            .args(["--phase", phase])
            .arg(path)
            .output()
            .expect("run child");
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("RESULT "))
            .unwrap_or_else(|| {
                panic!(
                    "{phase} failed: {}\n{}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        let mut it = line.split_whitespace();
        times.push(it.next().unwrap().parse::<f64>().unwrap());
        rss = rss.max(it.next().unwrap().parse::<u64>().unwrap());
        cpus.push(it.next().unwrap().parse::<f64>().unwrap());
        detail = it.collect::<Vec<_>>().join(" ");
    }
    times.sort_by(f64::total_cmp);
    cpus.sort_by(f64::total_cmp);
    let wall = times[times.len() / 2];
    let cpu = cpus[cpus.len() / 2];
    println!(
        "{phase:<9} {:<42} {wall:>7.3}s wall (min {:.3}s) {cpu:>7.3}s CPU {:>5} MiB peak  {detail}",
        path.file_name().unwrap().to_string_lossy(),
        times[0],
        rss >> 10,
    );
    Measured { wall, cpu, rss }
}

fn size(p: &Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

/// The floor: every line through serde_json into `IgnoredAny`.
fn floor(r: impl Read) -> u64 {
    let mut r = BufReader::with_capacity(1 << 20, r);
    let mut line = Vec::with_capacity(1 << 16);
    let mut n = 0;
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line).expect("read") == 0 {
            return n;
        }
        serde_json::from_slice::<serde::de::IgnoredAny>(&line).expect("json");
        n += 1;
    }
}

fn child(phase: &str, path: &Path) {
    let t = Instant::now();
    let detail = match phase {
        "floor" => format!("{} lines", floor(std::fs::File::open(path).expect("open"))),
        "floor-gz" => format!(
            "{} lines",
            floor(flate2::read::MultiGzDecoder::new(
                std::fs::File::open(path).expect("open")
            ))
        ),
        "read" => {
            let mut n = 0u64;
            let stats = read(
                &AuditOptions {
                    paths: vec![path.to_path_buf()],
                    keep: None,
                    max_input_bytes: 0,
                },
                &mut |e| {
                    n += 1;
                    std::hint::black_box(&e);
                },
            )
            .expect("read");
            assert!(stats.problems.is_empty(), "{:?}", &stats.problems[..1]);
            format!("{} events, {n} passed", stats.events)
        }
        // The whole `history` command but its flag parsing: the read (dropping on the parsing
        // threads what the history does not use), the explanation, the JSON written out.
        "history" => {
            use kubectl_gc::diagnose::history::{Caps, Logs, Query, Select, from_logs};
            let a = from_logs(Query {
                logs: Logs {
                    paths: vec![path.to_path_buf()],
                    max_input_bytes: 0,
                },
                kcm: Default::default(),
                before: None,
                after: None,
                gc_version: kubectl_gc::catalog::KubeVersion::NEWEST,
                select: Select::default(),
                caps: Caps::default(),
            })
            .expect("history");
            let mut out = std::io::BufWriter::new(std::io::sink());
            kubectl_gc::render::write_json(
                &mut out,
                &kubectl_gc::render::history::document(&a.history, &a.read),
            )
            .expect("write");
            format!(
                "{} events, {} actions",
                a.read.events, a.history.summary.logged
            )
        }
        other => panic!("unknown phase {other}"),
    };
    println!(
        "RESULT {:.6} {} {:.2} {detail}",
        t.elapsed().as_secs_f64(),
        peak_rss_kib(),
        cpu_seconds()
    );
}
