//! Offline pipeline benchmark: `cargo bench --bench pipeline` (see BENCHMARKS.md).
//!
//! For each size (default 100k and 1M objects; `KGC_BENCH_SIZES=100000,1000000`) it generates a
//! synthetic cluster snapshot once (cached under `target/bench-data/`), then measures every
//! phase in a fresh child process (this binary re-executed with `--phase`), so each phase's
//! peak RSS (`VmHWM`) is its own:
//!
//! | phase   | timed                                                        |
//! |---------|--------------------------------------------------------------|
//! | floor   | read the file + parse every line into a `serde_json::Value`  |
//! | read    | `snapshot::format::read_file`                                 |
//! | graph   | `gc::graph::Graph::build`                                    |
//! | analysis| `run::garbage_collector` (graph + REST mapper, side by side)  |
//! | audit   | `diagnose::audit` (classification, findings, and the plan)   |
//! | plan    | `gc::Plan::steady_state`                                     |
//! | e2e     | read + `run::garbage_collector` + `audit` (what `kubectl gc audit --snapshot` does) |
//!
//! The peak RSS of a phase includes whatever it needs loaded first (the snapshot, the
//! analysis). Each phase runs `KGC_BENCH_RUNS` times (default 3); the median time and the
//! largest RSS are reported, with the ratios to the floor and the targets
//! (1M objects: end to end ≤ 2 s, ≤ 1 GiB, ≤ 1.5 × the floor).

use kubectl_gc::gc::GarbageCollector;
use kubectl_gc::gc::graph::Graph;
use kubectl_gc::gc::plan::Plan;
use kubectl_gc::snapshot::format;
use kubectl_gc::testkit::generate::{GenOptions, generate};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[path = "common/mod.rs"]
mod common;
use common::{machine, peak_rss_kib};

/// Bump when the generator's output changes, so cached files are regenerated.
const DATA_VERSION: u32 = 1;

const PHASES: &[(&str, &str)] = &[
    ("floor", "parse floor (serde_json::Value)"),
    ("read", "(a) read snapshot"),
    ("graph", "(b) Graph::build"),
    ("analysis", "(b) GarbageCollector::new"),
    ("audit", "(c) audit (incl. plan)"),
    ("plan", "(d) Plan::steady_state"),
    ("e2e", "end to end (read+analysis+audit)"),
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--phase") {
        let phase = &args[i + 1];
        let file = PathBuf::from(&args[args.iter().position(|a| a == "--file").unwrap() + 1]);
        child(phase, &file);
        return;
    }
    // `cargo bench` passes `--bench`; other arguments filter nothing here.
    let sizes: Vec<usize> = std::env::var("KGC_BENCH_SIZES")
        .unwrap_or_else(|_| "100000,1000000".into())
        .split(',')
        .filter_map(|s| s.trim().replace('_', "").parse().ok())
        .collect();
    let runs: usize = std::env::var("KGC_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3)
        .max(1);
    let phases: Vec<&str> = match std::env::var("KGC_BENCH_PHASES") {
        Ok(p) => PHASES
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| p.split(',').any(|x| x == *n))
            .collect(),
        Err(_) => PHASES.iter().map(|(n, _)| *n).collect(),
    };
    println!("{}", machine());
    let mut misses = 0;
    for &n in &sizes {
        let file = data_file(n);
        let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        println!(
            "\n{n} objects: {} ({:.0} MB, {:.0} B/object), {runs} run(s) per phase",
            file.display(),
            size as f64 / 1e6,
            size as f64 / n as f64
        );
        println!(
            "{:<36} {:>9} {:>9} {:>10} {:>9}",
            "phase", "median", "min", "peak RSS", "÷ floor"
        );
        let mut results: Vec<(&str, f64, u64)> = Vec::new();
        for &phase in &phases {
            let mut times = Vec::new();
            let mut rss = 0;
            for _ in 0..runs {
                let (t, r) = run_child(phase, &file);
                times.push(t);
                rss = rss.max(r);
            }
            times.sort_by(f64::total_cmp);
            let median = times[times.len() / 2];
            let floor = results.iter().find(|r| r.0 == "floor").map(|r| r.1);
            let label = PHASES.iter().find(|p| p.0 == phase).unwrap().1;
            println!(
                "{:<36} {:>8.3}s {:>8.3}s {:>7.0} MiB {:>9}",
                label,
                median,
                times[0],
                rss as f64 / 1024.0,
                floor.map_or("".into(), |f| format!("{:.2}×", median / f)),
            );
            results.push((phase, median, rss));
        }
        let get = |p: &str| results.iter().find(|r| r.0 == p).map(|r| (r.1, r.2));
        if let Some((e2e, rss)) = get("e2e") {
            let mut check = |ok: bool, what: String| {
                if !ok {
                    misses += 1;
                }
                println!("  {} {what}", if ok { "MET " } else { "MISS" });
            };
            println!("targets ({n} objects):");
            let scaled = 2.0 * n as f64 / 1e6;
            check(
                e2e <= scaled,
                format!("end to end {e2e:.3}s ≤ {scaled:.2}s (2 s per 1M objects)"),
            );
            let budget = 1024.0 * 1024.0 * n as f64 / 1e6;
            check(
                (rss as f64) <= budget,
                format!(
                    "peak RSS {:.0} MiB ≤ {:.0} MiB (1 GiB per 1M objects)",
                    rss as f64 / 1024.0,
                    budget / 1024.0
                ),
            );
            if let Some((floor, _)) = get("floor") {
                check(
                    e2e <= 1.5 * floor,
                    format!(
                        "end to end ÷ parse floor = {:.2} ≤ 1.5 ({e2e:.3}s ÷ {floor:.3}s)",
                        e2e / floor
                    ),
                );
            }
        }
    }
    if misses > 0 {
        println!("\n{misses} target(s) missed");
        if std::env::var_os("KGC_BENCH_STRICT").is_some() {
            std::process::exit(1);
        }
    }
}

/// The cached snapshot file for `n` objects (generated on first use).
fn data_file(n: usize) -> PathBuf {
    let dir = std::env::var_os("KGC_BENCH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data"));
    std::fs::create_dir_all(&dir).expect("create bench data dir");
    let file = dir.join(format!("synthetic-{n}-seed1-v{DATA_VERSION}.ndjson"));
    if !file.exists() {
        let t = Instant::now();
        let g = generate(&GenOptions {
            objects: n,
            ..GenOptions::default()
        });
        let snap = g.to_snapshot();
        let tmp = file.with_extension("tmp");
        format::write_file(&snap, &tmp).expect("write snapshot");
        std::fs::rename(&tmp, &file).expect("rename snapshot");
        eprintln!(
            "generated {} in {:.1}s",
            file.display(),
            t.elapsed().as_secs_f64()
        );
    }
    file
}

fn run_child(phase: &str, file: &Path) -> (f64, u64) {
    let out = Command::new(std::env::current_exe().expect("current exe"))
        .args(["--phase", phase, "--file"])
        .arg(file)
        .output()
        .expect("run child");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("RESULT "))
        .unwrap_or_else(|| {
            panic!(
                "phase {phase} failed: {}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let mut it = line.split_whitespace();
    let secs: f64 = it.next().unwrap().parse().unwrap();
    let rss: u64 = it.next().unwrap().parse().unwrap();
    (secs, rss)
}

fn child(phase: &str, file: &Path) {
    let gc = |snap| GarbageCollector::default_gc_version(snap);
    let secs = match phase {
        "floor" => {
            let t = Instant::now();
            let bytes = std::fs::read(file).expect("read");
            let mut n = 0usize;
            for line in bytes.split(|&b| b == b'\n') {
                if line.is_empty() {
                    continue;
                }
                let v: serde_json::Value = serde_json::from_slice(line).expect("json");
                n += v.is_object() as usize;
            }
            let secs = t.elapsed().as_secs_f64();
            assert!(n > 0);
            secs
        }
        "read" => {
            let t = Instant::now();
            let snap = format::read_file(file).expect("read snapshot");
            let secs = t.elapsed().as_secs_f64();
            std::hint::black_box(&snap);
            secs
        }
        "graph" => {
            let snap = format::read_file(file).expect("read snapshot");
            let t = Instant::now();
            let g = Graph::build(&snap);
            let secs = t.elapsed().as_secs_f64();
            std::hint::black_box(&g);
            secs
        }
        "analysis" => {
            let snap = format::read_file(file).expect("read snapshot");
            let t = Instant::now();
            let a = kubectl_gc::run::garbage_collector(&snap, gc(&snap));
            let secs = t.elapsed().as_secs_f64();
            std::hint::black_box(&a);
            secs
        }
        "audit" => {
            let snap = format::read_file(file).expect("read snapshot");
            let a = kubectl_gc::run::garbage_collector(&snap, gc(&snap));
            let t = Instant::now();
            let audit = kubectl_gc::diagnose::audit(&a);
            let secs = t.elapsed().as_secs_f64();
            std::hint::black_box(&audit);
            secs
        }
        "plan" => {
            let snap = format::read_file(file).expect("read snapshot");
            let a = kubectl_gc::run::garbage_collector(&snap, gc(&snap));
            let t = Instant::now();
            let plan = Plan::steady_state(&a);
            let secs = t.elapsed().as_secs_f64();
            std::hint::black_box(&plan);
            secs
        }
        "e2e" => {
            let t = Instant::now();
            let snap = format::read_file(file).expect("read snapshot");
            let a = kubectl_gc::run::garbage_collector(&snap, gc(&snap));
            let audit = kubectl_gc::diagnose::audit(&a);
            let secs = t.elapsed().as_secs_f64();
            eprintln!(
                "{} objects, {} findings, {} plan actions",
                snap.store.len(),
                audit.findings.len(),
                audit.plan.actions.len()
            );
            std::hint::black_box(&audit);
            secs
        }
        other => panic!("unknown phase {other}"),
    };
    println!("RESULT {secs:.6} {}", peak_rss_kib());
}
