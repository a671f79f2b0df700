//! File-input benchmark: `cargo bench --bench file_input` (see BENCHMARKS.md, "File inputs").
//!
//! Data (generated once, cached under `target/bench-data/`, from the synthetic cluster of
//! `kubectl gc generate`):
//!
//! * `list-N-meta.json`: the cluster as `kubectl get <every kind> -A -o json` prints it,
//!   metadata only (kubectl's own `List`);
//! * `list-N-full.json`: the same objects with a spec and status of about 5 KB each;
//! * `mg-N/`: the cluster as a must-gather lays it out (`namespaces/<ns>/<group>/<res>.yaml`,
//!   one server list per file).
//!
//! Each measurement runs in a fresh child process (this binary re-executed), so its peak RSS
//! (`VmHWM`) is its own; the median of `KGC_BENCH_RUNS` (default 3) runs is reported with the
//! ratio to its floor, for wall-clock time and for CPU time (user + system, all threads, from
//! `/proc/self/stat`: on a shared machine it does not depend on what else runs):
//!
//! | case | floor | measured |
//! |---|---|---|
//! | JSON | read the file + `serde_json::from_slice::<IgnoredAny>` | `source::files::read_files` |
//! | YAML | read every file + `serde_saphyr::from_str::<IgnoredAny>` (same options) | `read_files` with `-R` |
//!
//! Knobs: `KGC_BENCH_META=1000000` (objects of the metadata-only List), `KGC_BENCH_FULL=200000`
//! (full objects, and a metadata-only List of the same objects for the RSS comparison),
//! `KGC_BENCH_YAML=100000`, `KGC_BENCH_RUNS=3`, `KGC_BENCH_STRICT=1` (exit 1 on a missed target),
//! `KGC_BENCH_CASES=meta,e2e,full,yaml` (which of the cases below run).
//!
//! `e2e`: the whole commands on the metadata-only List, as a user runs them (the `kubectl-gc`
//! binary under `/usr/bin/time -v`, output discarded), against the same floor: `audit -f`,
//! `audit --snapshot` of the same objects (the snapshot written once by `snapshot -f`), and
//! `check restart -f` (the queue-faithful simulation; its target is 3 × the floor).

use kubectl_gc::source::files::{FileOptions, read_files_with_stats};
use kubectl_gc::testkit::generate::{Body, GenOptions, generate};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[path = "common/mod.rs"]
mod common;
use common::{cpu_seconds, machine, peak_rss_kib};

/// Bump when the generated dumps change.
const DATA_VERSION: u32 = 1;

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
    let meta_n = env("KGC_BENCH_META", 1_000_000);
    let full_n = env("KGC_BENCH_FULL", 200_000);
    let yaml_n = env("KGC_BENCH_YAML", 100_000);
    let runs = env("KGC_BENCH_RUNS", 3).max(1);
    println!("{}", machine());
    let mut misses = 0;
    let mut check = |ok: bool, what: String| {
        if !ok {
            misses += 1;
        }
        println!("  {} {what}", if ok { "MET " } else { "MISS" });
    };

    let cases = std::env::var("KGC_BENCH_CASES").unwrap_or_else(|_| "meta,e2e,full,yaml".into());

    // 1. Metadata-only kubectl List.
    let file = list_file(meta_n, Body::MetadataOnly);
    let floor = measure("floor-json", &file, runs);
    let read = measure("read", &file, runs);
    let rss = read.rss;
    ratios(
        &mut check,
        &format!("{meta_n} objects, metadata-only List"),
        &read,
        &floor,
    );
    check(
        rss <= 1 << 20,
        format!(
            "{meta_n} objects, metadata-only List: peak RSS {} MiB ≤ 1024 MiB",
            rss >> 10
        ),
    );

    // 1b. The whole commands on that List, end to end: the binary as a user runs it, output
    // discarded. `audit` (the default table) and `check restart` (the queue-faithful
    // simulation) from `-f`, and `audit` from a snapshot of the same objects.
    if cases.contains("e2e") {
        let snap = snapshot_of(&file);
        let e2e: [(&str, Vec<&OsStr>, f64); 3] = [
            (
                "audit -f",
                vec!["audit".as_ref(), "-f".as_ref(), file.as_os_str()],
                1.5,
            ),
            (
                "audit --snapshot",
                vec!["audit".as_ref(), "--snapshot".as_ref(), snap.as_os_str()],
                1.5,
            ),
            (
                "check restart -f",
                vec![
                    "check".as_ref(),
                    "restart".as_ref(),
                    "-f".as_ref(),
                    file.as_os_str(),
                ],
                3.0,
            ),
        ];
        for (what, args, target) in e2e {
            let m = measure_command(what, &args, runs);
            check(
                m.wall <= target * floor.wall,
                format!(
                    "{what} end to end ÷ floor = {:.2} ≤ {target} (wall: {:.3}s ÷ {:.3}s; CPU {:.2} = {:.3}s ÷ {:.3}s)",
                    m.wall / floor.wall,
                    m.wall,
                    floor.wall,
                    m.cpu / floor.cpu,
                    m.cpu,
                    floor.cpu
                ),
            );
            check(
                m.rss <= 1 << 20,
                format!("{what}: peak RSS {} MiB ≤ 1024 MiB", m.rss >> 10),
            );
        }
    }

    // 2. Full objects, and the same objects metadata-only for the memory comparison.
    if cases.contains("full") {
        let full = list_file(full_n, Body::Full);
        let meta = list_file(full_n, Body::MetadataOnly);
        let floor = measure("floor-json", &full, runs);
        let read = measure("read", &full, runs);
        let rss_full = read.rss;
        let rss_meta = measure("read", &meta, runs).rss;
        ratios(&mut check, &format!("{full_n} full objects"), &read, &floor);
        check(
            rss_full as f64 <= 1.3 * rss_meta as f64,
            format!(
                "{full_n} full objects: peak RSS {} MiB ≤ 1.3 × {} MiB (the same objects metadata-only) = {:.2}×",
                rss_full >> 10,
                rss_meta >> 10,
                rss_full as f64 / rss_meta as f64
            ),
        );
    }

    // 3. YAML, must-gather layout.
    if cases.contains("yaml") {
        let dir = must_gather(yaml_n);
        let floor = measure("floor-yaml", &dir, runs);
        let read = measure("read-dir", &dir, runs);
        ratios(
            &mut check,
            &format!("{yaml_n} objects, must-gather YAML"),
            &read,
            &floor,
        );
    }
    if misses > 0 {
        println!("\n{misses} target(s) missed");
        if std::env::var_os("KGC_BENCH_STRICT").is_some() {
            std::process::exit(1);
        }
    }
}

fn data_dir() -> PathBuf {
    let dir = std::env::var_os("KGC_BENCH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data"));
    std::fs::create_dir_all(&dir).expect("create bench data dir");
    dir
}

fn list_file(n: usize, body: Body) -> PathBuf {
    let tag = match body {
        Body::MetadataOnly => "meta",
        Body::Full => "full",
    };
    let file = data_dir().join(format!("list-{n}-{tag}-v{DATA_VERSION}.json"));
    if !file.exists() {
        let t = Instant::now();
        let g = generate(&GenOptions {
            objects: n,
            ..GenOptions::default()
        });
        let tmp = file.with_extension("tmp");
        let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp).expect("create"));
        g.write_kubectl_list(&mut w, body).expect("write list");
        drop(w);
        std::fs::rename(&tmp, &file).expect("rename");
        eprintln!(
            "generated {} in {:.1}s",
            file.display(),
            t.elapsed().as_secs_f64()
        );
    }
    file
}

fn must_gather(n: usize) -> PathBuf {
    let dir = data_dir().join(format!("mg-{n}-v{DATA_VERSION}"));
    if !dir.exists() {
        let t = Instant::now();
        let g = generate(&GenOptions {
            objects: n,
            ..GenOptions::default()
        });
        let tmp = dir.with_extension("tmp");
        let _ = std::fs::remove_dir_all(&tmp);
        g.write_must_gather(&tmp, Body::MetadataOnly)
            .expect("write must-gather");
        std::fs::rename(&tmp, &dir).expect("rename");
        eprintln!(
            "generated {} in {:.1}s",
            dir.display(),
            t.elapsed().as_secs_f64()
        );
    }
    dir
}

/// What `runs` child runs of one phase took.
struct Measured {
    /// Median wall-clock seconds.
    wall: f64,
    /// Median CPU seconds (user + system, all threads).
    cpu: f64,
    /// Largest peak RSS, KiB.
    rss: u64,
}

/// Checks the ≤ 1.5 × floor target on wall-clock and on CPU time.
fn ratios(check: &mut impl FnMut(bool, String), what: &str, read: &Measured, floor: &Measured) {
    for (measure, t, f) in [
        ("wall", read.wall, floor.wall),
        ("CPU", read.cpu, floor.cpu),
    ] {
        check(
            t <= 1.5 * f,
            format!(
                "{what}: read ÷ floor = {:.2} ≤ 1.5 ({measure}: {t:.3}s ÷ {f:.3}s)",
                t / f
            ),
        );
    }
}

/// Medians and largest peak RSS of `runs` child runs; prints a line.
fn measure(phase: &str, path: &Path, runs: usize) -> Measured {
    let mut times = Vec::new();
    let mut cpus = Vec::new();
    let mut rss = 0;
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
    }
    times.sort_by(f64::total_cmp);
    cpus.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let cpu = cpus[cpus.len() / 2];
    let size: u64 = file_size(path);
    println!(
        "{phase:<11} {:<34} {median:>7.3}s wall (min {:.3}s) {cpu:>7.3}s CPU {:>6} MiB peak, {:.0} MB input",
        path.file_name().unwrap().to_string_lossy(),
        times[0],
        rss >> 10,
        size as f64 / 1e6
    );
    Measured {
        wall: median,
        cpu,
        rss,
    }
}

/// The kubectl-gc binary this bench was built with.
fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_kubectl-gc"))
}

/// A snapshot (the project's own format) of the objects of `list`, written once by the binary.
fn snapshot_of(list: &Path) -> PathBuf {
    let snap = list.with_extension("snapshot.ndjson");
    if !snap.exists() {
        let tmp = snap.with_extension("tmp");
        let t = common::timed_command(
            binary(),
            &[
                "snapshot".as_ref(),
                "-f".as_ref(),
                list.as_os_str(),
                "-o".as_ref(),
                tmp.as_os_str(),
            ],
        );
        assert_eq!(t.code, Some(0), "snapshot -f failed: {}", t.stderr);
        std::fs::rename(&tmp, &snap).expect("rename");
    }
    snap
}

/// Medians and largest peak RSS of `runs` runs of the binary with `args`; prints a line.
fn measure_command(what: &str, args: &[&OsStr], runs: usize) -> Measured {
    let (mut walls, mut cpus, mut rss) = (Vec::new(), Vec::new(), 0);
    for _ in 0..runs {
        let t = common::timed_command(binary(), args);
        // 0: nothing found; 5: findings at or above --fail-on; 6: verdicts left unknown by
        // what the input does not cover. Anything else is a failure.
        assert!(
            matches!(t.code, Some(0) | Some(5) | Some(6)),
            "{what} exited {:?}: {}",
            t.code,
            t.stderr
        );
        walls.push(t.wall);
        cpus.push(t.cpu);
        rss = rss.max(t.rss_kib);
    }
    walls.sort_by(f64::total_cmp);
    cpus.sort_by(f64::total_cmp);
    let m = Measured {
        wall: walls[walls.len() / 2],
        cpu: cpus[cpus.len() / 2],
        rss,
    };
    println!(
        "{what:<18} {:>7.3}s wall (min {:.3}s) {:>7.3}s CPU {:>6} MiB peak",
        m.wall,
        walls[0],
        m.cpu,
        m.rss >> 10
    );
    m
}

fn file_size(p: &Path) -> u64 {
    if p.is_dir() {
        yaml_files(p)
            .iter()
            .map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
            .sum()
    } else {
        std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
    }
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn yaml_options() -> serde_saphyr::Options {
    // The reader's own limits (src/source/files/yaml.rs), so both parse the same way.
    let mut budget = serde_saphyr::Budget::default();
    budget.max_reader_input_bytes = None;
    budget.max_events = usize::MAX / 2;
    budget.max_nodes = usize::MAX / 2;
    budget.max_total_scalar_bytes = usize::MAX / 2;
    budget.max_depth = 128;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::LastWins;
    options
}

fn child(phase: &str, path: &Path) {
    let t = Instant::now();
    match phase {
        "floor-json" => {
            let bytes = std::fs::read(path).expect("read");
            serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).expect("json");
        }
        "floor-yaml" => {
            for f in yaml_files(path) {
                let text = std::fs::read_to_string(&f).expect("read");
                serde_saphyr::from_str_with_options::<serde::de::IgnoredAny>(&text, yaml_options())
                    .expect("yaml");
            }
        }
        "read" | "read-dir" => {
            let (snap, stats) = read_files_with_stats(&FileOptions {
                paths: vec![path.to_path_buf()],
                recursive: true,
                ..FileOptions::default()
            })
            .expect("read");
            assert!(stats.added > 0 && stats.broken == 0, "{stats:?}");
            std::hint::black_box(&snap);
        }
        other => panic!("unknown phase {other}"),
    }
    println!(
        "RESULT {:.6} {} {:.2}",
        t.elapsed().as_secs_f64(),
        peak_rss_kib(),
        cpu_seconds()
    );
}
