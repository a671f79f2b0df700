//! Offline benchmark of `kubectl gc watch`'s evaluation: `cargo bench --bench watch` (see
//! BENCHMARKS.md, "watch").
//!
//! A synthetic cluster (default 50k objects, `KGC_BENCH_WATCH_OBJECTS`) is the initial lists;
//! then synthetic watch events (`KGC_BENCH_WATCH_EVENTS`, default 20,000) are applied and
//! evaluated the way the watch loop does:
//!
//! - **one by one**: apply, then flush (evaluate) after every event — a calm cluster, every
//!   event its own batch, the worst case per event;
//! - **batched**: what arrives while the previous batch is evaluated forms the next batch (here
//!   batches of 100 events) — a busy cluster.
//!
//! The events are what a cluster's churn looks like to the GC: 40 % updates of an existing
//! object that change something the GC reads (a finalizer added or removed, a reference's
//! `blockOwnerDeletion` flipped), 30 % creates (new pods of an existing ReplicaSet, 1 in 10
//! with a missing owner), 30 % deletes (mostly pods; sometimes an owner). Target: ≥ 5,000 events
//! evaluated per second.
//!
//! It also reports the initial evaluation (the whole cluster once) and the process's resident
//! memory after it, next to the snapshot's own (a fresh child process per measurement).

use kubectl_gc::model::{MetaIn, OwnerRefIn, ResourceId};
use kubectl_gc::testkit::generate::{GenOptions, format_uid, generate};
use kubectl_gc::watch::{Cause, Engine};
use std::borrow::Cow;
use std::process::Command;
use std::time::Instant;

/// CPU time (user + system) this process has used, in seconds (`/proc/self/stat`, in clock
/// ticks of 1/100 s): on a shared machine the rate per CPU second is the comparable figure.
fn cpu_secs() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = s.rsplit_once(')')?.1;
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some((f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) / 100.0)
        })
        .unwrap_or(0.0)
}

fn rss_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

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

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// One synthetic event.
enum Ev {
    // Boxed: a MetaIn is ten times the size of a delete event.
    Apply(ResourceId, Box<MetaIn<'static>>),
    Delete(String),
}

fn owned(m: &MetaIn<'_>) -> MetaIn<'static> {
    kubectl_gc::source::live::to_owned_meta(m)
}

fn events(objects: usize, n: usize) -> (kubectl_gc::snapshot::Snapshot, Vec<Ev>) {
    let g = generate(&GenOptions {
        objects,
        ..GenOptions::default()
    });
    let snap = g.to_snapshot();
    let row = |o: &kubectl_gc::testkit::generate::GenObj| {
        let s = o.spec();
        ResourceId(
            snap.resources
                .iter()
                .position(|r| r.group == s.group && r.kind == s.kind && r.version == s.version)
                .expect("kind") as u32,
        )
    };
    let pods: Vec<usize> = (0..g.objects.len())
        .filter(|&i| g.objects[i].spec().kind == "Pod" && !g.objects[i].owner_refs.is_empty())
        .collect();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut out = Vec::with_capacity(n);
    let mut deleted = std::collections::HashSet::new();
    let mut next_uid: u128 = 0xabcd_0000_0000_0000_0000_0000_0000_0000;
    for k in 0..n {
        let roll = rng.below(100);
        let i = rng.below(g.objects.len());
        let o = &g.objects[i];
        if roll < 40 {
            if deleted.contains(&i) {
                continue;
            }
            let mut m = owned(&g.meta(o));
            if k % 2 == 0 {
                if m.finalizers.is_empty() {
                    m.finalizers.push(Cow::Borrowed("example.com/bench"));
                } else {
                    m.finalizers.clear();
                }
            } else if let Some(r) = m.owner_references.first_mut() {
                r.block_owner_deletion = Some(!r.block_owner_deletion.unwrap_or(false));
            } else {
                m.finalizers.push(Cow::Borrowed("example.com/bench"));
            }
            out.push(Ev::Apply(row(o), Box::new(m)));
        } else if roll < 70 {
            // A new pod of an existing pod's owner (1 in 10: an owner that is gone).
            let p = &g.objects[pods[rng.below(pods.len())]];
            let mut m = owned(&g.meta(p));
            next_uid += 1;
            m.uid = Cow::Owned(format_uid(next_uid));
            m.name = Cow::Owned(format!("{}-n{k}", m.name));
            if k % 10 == 0 {
                m.owner_references = vec![OwnerRefIn {
                    api_version: Cow::Borrowed("apps/v1"),
                    kind: Cow::Borrowed("ReplicaSet"),
                    name: Cow::Borrowed("gone"),
                    uid: Cow::Owned(format_uid(next_uid ^ 0xffff)),
                    controller: Some(true),
                    block_owner_deletion: Some(true),
                }];
            }
            out.push(Ev::Apply(row(p), Box::new(m)));
        } else {
            let j = if rng.below(5) == 0 {
                i
            } else {
                pods[rng.below(pods.len())]
            };
            if deleted.insert(j) {
                out.push(Ev::Delete(format_uid(g.objects[j].uid)));
            }
        }
    }
    (snap, out)
}

fn run(mode: &str, objects: usize, n: usize) {
    let (snap, evs) = events(objects, n);
    let snapshot_rss = rss_kib("VmRSS:");
    let t = Instant::now();
    let mut e = Engine::new(snap, None);
    let initial = e.evaluate_all(Cause::Initial);
    let initial_secs = t.elapsed().as_secs_f64();
    let engine_rss = rss_kib("VmRSS:");
    let batch = if mode == "one" { 1 } else { 100 };
    let t = Instant::now();
    let cpu = cpu_secs();
    let mut transitions = 0;
    for (i, ev) in evs.iter().enumerate() {
        match ev {
            Ev::Apply(r, m) => {
                if e.must_flush_before(&m.uid) {
                    transitions += e.flush(Cause::Event).len();
                }
                e.apply(*r, m, None);
            }
            Ev::Delete(uid) => {
                if e.must_flush_before(uid) {
                    transitions += e.flush(Cause::Event).len();
                }
                e.delete(uid, None);
            }
        }
        if (i + 1) % batch == 0 {
            transitions += e.flush(Cause::Event).len();
        }
    }
    transitions += e.flush(Cause::Event).len();
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_secs() - cpu;
    println!(
        "{mode}: {objects} objects, initial evaluation {initial_secs:.2}s ({} findings), \
         {} events in {secs:.2}s = {:.0} events/s ({:.0} per CPU second; {} evaluations, \
         {:.0} objects per evaluation, {transitions} transitions); RSS: snapshot {} MiB, \
         after the initial evaluation {} MiB, end {} MiB",
        initial.len(),
        evs.len(),
        evs.len() as f64 / secs,
        evs.len() as f64 / cpu.max(0.001),
        e.stats.evaluations,
        e.stats.objects_evaluated as f64 / e.stats.evaluations.max(1) as f64,
        snapshot_rss / 1024,
        engine_rss / 1024,
        rss_kib("VmRSS:") / 1024
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let objects = env_usize("KGC_BENCH_WATCH_OBJECTS", 50_000);
    let n = env_usize("KGC_BENCH_WATCH_EVENTS", 20_000);
    if let Some(i) = args.iter().position(|a| a == "--mode") {
        run(&args[i + 1], objects, n);
        return;
    }
    // Each mode in a fresh process, so that memory figures are its own.
    for mode in ["one", "batched"] {
        let status = Command::new(&args[0])
            .args(["--mode", mode])
            .status()
            .expect("re-run the bench binary");
        assert!(status.success(), "mode {mode} failed");
    }
}
