//! What every benchmark measures of its own process, from `/proc` (Linux): CPU time, peak
//! RSS, and a line naming the machine. Each bench includes this with
//! `#[path = "common/mod.rs"] mod common;`.
#![allow(dead_code)] // each bench uses what it needs

/// CPU time of this process (all threads), user + system, in seconds: fields 14 and 15 of
/// `/proc/self/stat`, in clock ticks (`USER_HZ`, 100 on Linux).
pub fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The command name (field 2) may hold spaces; the fields after it are numbers.
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    // `after` starts at field 3 (state), so utime (14) and stime (15) are at 11 and 12.
    (f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0)) as f64 / 100.0
}

/// Peak resident set size of this process in KiB (`VmHWM`).
pub fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// One line describing the machine (CPU model, cores, memory, load).
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|m| m.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let mem_kib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .unwrap_or(0);
    format!(
        "machine: {cpu}, {cores} cores, {:.1} GiB RAM, load average {}",
        mem_kib as f64 / 1024.0 / 1024.0,
        load_average()
    )
}

/// `/proc/loadavg`'s three load averages.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// What one run of a whole command took, as `/usr/bin/time -v` saw it: the process itself,
/// from exec to exit, with its own threads (this is what a user waits for).
pub struct Timed {
    /// Wall-clock seconds.
    pub wall: f64,
    /// CPU seconds, user + system.
    pub cpu: f64,
    /// Peak RSS, KiB.
    pub rss_kib: u64,
    /// The command's exit code.
    pub code: Option<i32>,
    /// Its standard error, less `time`'s report.
    pub stderr: String,
}

/// Runs `program args…` under `/usr/bin/time -v`, standard output discarded.
pub fn timed_command(program: &std::path::Path, args: &[&std::ffi::OsStr]) -> Timed {
    let out = std::process::Command::new("/usr/bin/time")
        .arg("-v")
        .arg(program)
        .args(args)
        // Never a cluster: a bench that reached one would measure the network.
        .env("KUBECONFIG", "/nonexistent")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("/usr/bin/time (Debian: apt install time)");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let field = |name: &str| {
        err.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map(str::trim)
            .unwrap_or_else(|| panic!("{name} not in /usr/bin/time's report: {err}"))
            .to_owned()
    };
    // h:mm:ss or m:ss.ss
    let secs = |t: &str| {
        t.split(':')
            .fold(0.0, |acc, p| acc * 60.0 + p.parse::<f64>().unwrap_or(0.0))
    };
    let num = |name: &str| field(name).parse::<f64>().unwrap_or(0.0);
    let code = field("Exit status:").parse().ok();
    let stderr = err
        .split("\tCommand being timed:")
        .next()
        .unwrap_or_default()
        .to_owned();
    Timed {
        wall: secs(&field("Elapsed (wall clock) time (h:mm:ss or m:ss):")),
        cpu: num("User time (seconds):") + num("System time (seconds):"),
        rss_kib: num("Maximum resident set size (kbytes):") as u64,
        code,
        stderr,
    }
}
