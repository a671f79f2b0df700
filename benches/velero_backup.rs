//! Velero-backup benchmark: `cargo bench --bench velero_backup` (BENCHMARKS.md, "Velero
//! backup"). What `kubectl gc check apply -f backup.tar.gz --target empty` costs on a backup
//! of about 1 GiB, against the file-input floor.
//!
//! Data (generated once, cached under `target/bench-data/`): the synthetic cluster of
//! `kubectl gc generate`, every object full (spec, status, `managedFields`, a
//! `last-applied-configuration` annotation), laid out as Velero writes a backup —
//! `metadata/version`, then one compact JSON file per object at
//! `resources/<plural>[.<group>]/namespaces/<ns>/<name>.json` (`…/cluster/<name>.json` for
//! cluster-scoped ones) — in a gzip'd tar, objects added until the tar holds
//! `KGC_BENCH_VELERO_MIB` (default 1024) MiB.
//!
//! Each phase runs in a fresh child process; the median of `KGC_BENCH_RUNS` (default 3) is
//! reported:
//!
//! | phase | what |
//! |---|---|
//! | floor | gunzip, walk the tar, `serde_json::from_slice::<IgnoredAny>` of every member (one thread) |
//! | read | `source::files::read_files_with_origins` as `check apply` reads (manifests, origins) |
//! | check-apply | the `kubectl-gc` binary, `check apply -f … --target empty -o json > /dev/null`, under `/usr/bin/time -v` |
//!
//! Targets (BENCHMARKS.md, file inputs): check apply ≤ 1.5 × the floor's wall time, peak RSS
//! ≤ 1 GiB.

use kubectl_gc::source::files::{FileOptions, read_files_with_origins};
use kubectl_gc::testkit::generate::{Body, GenOptions, generate};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

#[path = "common/mod.rs"]
mod common;

/// Bump when the generated backup changes.
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
    let mib = env("KGC_BENCH_VELERO_MIB", 1024);
    let runs = env("KGC_BENCH_RUNS", 3).max(1);
    let (backup, objects, tar_bytes) = backup(mib);
    println!(
        "backup: {} ({objects} objects, tar {} MiB, gzip'd {} MiB); load average {}",
        backup.display(),
        tar_bytes >> 20,
        std::fs::metadata(&backup)
            .map(|m| m.len() >> 20)
            .unwrap_or(0),
        common::load_average()
    );
    let floor = measure("floor", &backup, runs);
    let read = measure("read", &backup, runs);
    let cmd = measure("check-apply", &backup, runs);
    for (what, m) in [("read", &read), ("check apply", &cmd)] {
        println!(
            "  {what}: {:.2} × the floor's wall time ({:.3}s ÷ {:.3}s), CPU {:.2} × ({:.2}s ÷ {:.2}s), peak RSS {} MiB (floor {} MiB)",
            m.wall / floor.wall,
            m.wall,
            floor.wall,
            m.cpu / floor.cpu,
            m.cpu,
            floor.cpu,
            m.rss >> 10,
            floor.rss >> 10
        );
    }
    let met = cmd.wall <= 1.5 * floor.wall && cmd.rss <= 1 << 20;
    println!(
        "  {} check apply ≤ 1.5 × floor and ≤ 1 GiB peak RSS",
        if met { "MET " } else { "MISS" }
    );
}

fn data_dir() -> PathBuf {
    let dir = std::env::var_os("KGC_BENCH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data"));
    std::fs::create_dir_all(&dir).expect("create bench data dir");
    dir
}

/// The backup (generated when missing), its object count and the size of its tar.
fn backup(mib: usize) -> (PathBuf, usize, u64) {
    let file = data_dir().join(format!("velero-{mib}mib-v{DATA_VERSION}.tar.gz"));
    let info = file.with_extension("info");
    if let Ok(text) = std::fs::read_to_string(&info)
        && let Some((n, bytes)) = text.trim().split_once(' ')
        && file.exists()
    {
        return (file, n.parse().unwrap_or(0), bytes.parse().unwrap_or(0));
    }
    let t = Instant::now();
    let want = (mib as u64) << 20;
    // About 7.7 KB of JSON per full object, plus its tar header and padding.
    let g = generate(&GenOptions {
        objects: (want / 7_000) as usize + 1000,
        ..GenOptions::default()
    });
    let tmp = file.with_extension("tmp");
    let gz = flate2::write::GzEncoder::new(
        std::io::BufWriter::new(std::fs::File::create(&tmp).expect("create")),
        flate2::Compression::default(),
    );
    let mut tar = tar::Builder::new(gz);
    let put = |tar: &mut tar::Builder<_>, path: &str, data: &[u8]| {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(1_700_000_000);
        h.set_cksum();
        tar.append_data(&mut h, path, data).expect("append");
        512 + (data.len() as u64).div_ceil(512) * 512
    };
    let mut bytes = put(&mut tar, "metadata/version", b"1\n");
    let mut objects = 0;
    for o in &g.objects {
        if bytes >= want {
            break;
        }
        let v = g.object_json(o, Body::Full);
        let k = o.spec();
        let resource = if k.group.is_empty() {
            k.plural.to_owned()
        } else {
            format!("{}.{}", k.plural, k.group)
        };
        let name = v["metadata"]["name"].as_str().expect("a name").to_owned();
        let path = match v["metadata"]["namespace"].as_str() {
            Some(ns) if !ns.is_empty() => {
                format!("resources/{resource}/namespaces/{ns}/{name}.json")
            }
            _ => format!("resources/{resource}/cluster/{name}.json"),
        };
        let data = serde_json::to_vec(&v).expect("json");
        bytes += put(&mut tar, &path, &data);
        objects += 1;
    }
    tar.into_inner()
        .expect("finish tar")
        .finish()
        .expect("finish gzip");
    std::fs::rename(&tmp, &file).expect("rename");
    std::fs::write(&info, format!("{objects} {bytes}\n")).expect("info");
    eprintln!(
        "generated {} in {:.1}s",
        file.display(),
        t.elapsed().as_secs_f64()
    );
    (file, objects, bytes)
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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn measure(phase: &str, path: &Path, runs: usize) -> Measured {
    let (mut walls, mut cpus, mut rss) = (Vec::new(), Vec::new(), 0);
    for _ in 0..runs {
        let (wall, cpu, peak) = if phase == "check-apply" {
            check_apply(path)
        } else {
            let out = Command::new(std::env::current_exe().expect("exe"))
                .args(["--phase", phase])
                .arg(path)
                .stderr(Stdio::inherit())
                .output()
                .expect("run phase");
            assert!(out.status.success(), "phase {phase} failed");
            let text = String::from_utf8_lossy(&out.stdout);
            let f: Vec<&str> = text.split_whitespace().collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        };
        walls.push(wall);
        cpus.push(cpu);
        rss = rss.max(peak);
    }
    let m = Measured {
        wall: median(walls),
        cpu: median(cpus),
        rss,
    };
    println!(
        "{phase:>12}: wall {:.3}s, CPU {:.2}s, peak RSS {} MiB",
        m.wall,
        m.cpu,
        m.rss >> 10
    );
    m
}

/// The binary under `/usr/bin/time -v`: wall seconds, CPU seconds, peak RSS (KiB).
fn check_apply(path: &Path) -> (f64, f64, u64) {
    let args = ["check", "apply", "-f"].map(std::ffi::OsStr::new);
    let rest = ["--target", "empty", "-o", "json"].map(std::ffi::OsStr::new);
    let args: Vec<&std::ffi::OsStr> = args
        .into_iter()
        .chain([path.as_os_str()])
        .chain(rest)
        .collect();
    let t = common::timed_command(Path::new(env!("CARGO_BIN_EXE_kubectl-gc")), &args);
    // Exit 5: findings (the synthetic cluster's owners get new UIDs) — the run completed.
    assert!(
        matches!(t.code, Some(0) | Some(5)),
        "check apply failed: {}",
        t.stderr
    );
    (t.wall, t.cpu, t.rss_kib)
}

/// One phase, in this (fresh) process; prints `wall cpu rss_kib`.
fn child(phase: &str, path: &Path) {
    let t = Instant::now();
    match phase {
        "floor" => {
            let f = std::fs::File::open(path).expect("open");
            let gz = flate2::read::GzDecoder::new(std::io::BufReader::with_capacity(1 << 16, f));
            let mut tar = tar::Archive::new(gz);
            let mut buf = Vec::new();
            let mut members = 0usize;
            for e in tar.entries().expect("entries") {
                let mut e = e.expect("entry");
                buf.clear();
                e.read_to_end(&mut buf).expect("read");
                if e.path()
                    .is_ok_and(|p| p.extension().is_some_and(|x| x == "json"))
                {
                    serde_json::from_slice::<serde::de::IgnoredAny>(&buf).expect("json");
                    members += 1;
                }
            }
            std::hint::black_box(members);
        }
        "read" => {
            let opts = FileOptions {
                paths: vec![path.to_owned()],
                assume_complete: true,
                manifests: true,
                ..FileOptions::default()
            };
            let (snap, _, _, origins) = read_files_with_origins(&opts).expect("read");
            std::hint::black_box((snap.store.len(), origins.of_object.len()));
        }
        _ => panic!("unknown phase {phase}"),
    }
    let wall = t.elapsed().as_secs_f64();
    println!(
        "{wall} {} {}",
        common::cpu_seconds(),
        common::peak_rss_kib()
    );
}
