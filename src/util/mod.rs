//! Small helpers any stage may use that know nothing about Kubernetes objects: the retry
//! backoff and the human-readable duration. (Error cause chains are flattened in
//! [`crate::error::cause_chain`].)

pub mod fork;

use std::time::Duration;

/// An exponential backoff in the shape of client-go's `wait.Backoff`: step `n` (0-based) waits
/// `base × factor^min(n, max_exponent)`, plus up to `jitter` × that at random.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    /// The first step's wait.
    pub base: Duration,
    /// Growth per step.
    pub factor: u32,
    /// Steps after this one stop growing.
    pub max_exponent: u32,
    /// Extra wait, as a fraction of the step's wait, chosen at random (0 = none).
    pub jitter: f64,
}

impl Backoff {
    /// The wait before retry number `step + 1`.
    pub fn delay(&self, step: u32) -> Duration {
        let wait = self.base * self.factor.saturating_pow(step.min(self.max_exponent));
        if self.jitter <= 0.0 {
            return wait;
        }
        // Cheap jitter without a random-number crate: the clock's sub-microsecond noise.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        wait + wait.mul_f64(self.jitter * f64::from(nanos % 1000) / 1000.0)
    }
}

/// The one duration grammar of every flag that takes one (`--request-timeout`, `--resync`,
/// `--timeout`, `history --since`/`--until`): Go's (`time.ParseDuration`, as kubectl reads
/// them: `300ms`, `1.5h`, `1h30m`; units `ns`, `us`/`µs`, `ms`, `s`, `m`, `h`), plus `d` for
/// days (incidents span them), `0`, and a bare integer as seconds (as kubectl's
/// `--request-timeout` takes `30`). No sign, no spaces. Total: never panics, overflow is an
/// error; bounds are each flag's.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let bad = || format!("{t:?} is not a duration (e.g. 90s, 15m, 1h30m, 2d)");
    let long = || format!("duration {t:?} is too long");
    if t.is_empty() {
        return Err(bad());
    }
    if t.bytes().all(|b| b.is_ascii_digit()) {
        return t
            .parse::<u64>()
            .map(Duration::from_secs)
            .map_err(|_| long());
    }
    let mut rest = t;
    let mut total = Duration::ZERO;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        let (num, after) = rest.split_at(num_len);
        if num.is_empty() || num == "." || num.matches('.').count() > 1 {
            return Err(bad());
        }
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, next) = after.split_at(unit_len);
        let nanos_per: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            "d" => 86_400_000_000_000,
            _ => return Err(bad()),
        };
        let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
        let whole: u128 = if whole.is_empty() {
            0
        } else {
            whole.parse().map_err(|_| long())?
        };
        // The fraction in units of 10^-digits, at most 18 digits (finer than a nanosecond of
        // a day).
        let frac = &frac[..frac.len().min(18)];
        let frac_value: u128 = if frac.is_empty() {
            0
        } else {
            frac.parse().map_err(|_| bad())?
        };
        let nanos = whole
            .checked_mul(nanos_per)
            .and_then(|w| w.checked_add(frac_value * nanos_per / 10u128.pow(frac.len() as u32)))
            .ok_or_else(long)?;
        let secs = u64::try_from(nanos / 1_000_000_000).map_err(|_| long())?;
        let part = Duration::new(secs, (nanos % 1_000_000_000) as u32);
        total = total.checked_add(part).ok_or_else(long)?;
        rest = next;
    }
    Ok(total)
}

/// A duration for people: `250ms`, `1.5s`, `40s`, `12m`, `5h`, `3d4h`. Below two minutes it
/// keeps sub-second precision (request timings); above, the coarse form of ages ("terminating
/// for 3d4h").
pub fn human_duration(d: Duration) -> String {
    let s = d.as_secs();
    let whole = d.subsec_nanos() == 0;
    match s {
        0 if !whole => format!("{}ms", d.as_millis()),
        0..=119 if whole => format!("{s}s"),
        0..=119 => format!("{:.1}s", d.as_secs_f64()),
        120..=7199 => format!("{}m", s / 60),
        7200..=172_799 => format!("{}h", s / 3600),
        _ => format!("{}d{}h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// True for a character that must never reach a terminal as itself: control characters (C0,
/// DEL, C1) and the invisible format characters that reorder or hide text (bidirectional
/// overrides and isolates, zero-width characters, the BOM, line/paragraph separators). The
/// renderers show them escaped (`render::text`), remedies quote them for the shell.
pub fn is_terminal_hostile(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // Arabic letter mark (a bidirectional mark outside the U+20xx block); Mongolian
            // vowel separator (zero-width since Unicode 6.3).
            '\u{061C}' | '\u{180E}'
            // Zero-width space, non-joiner, joiner; left-to-right and right-to-left marks.
            | '\u{200B}'..='\u{200F}'
            // Line and paragraph separators; bidirectional embeddings and overrides.
            | '\u{2028}'..='\u{202E}'
            // Word joiner … invisible plus; bidirectional isolates; deprecated format chars.
            | '\u{2060}'..='\u{206F}'
            // Byte order mark / zero-width no-break space.
            | '\u{FEFF}'
            // Interlinear annotation characters.
            | '\u{FFF9}'..='\u{FFFB}'
            // Tag characters: invisible, and they spell ASCII text a reader never sees.
            | '\u{E0000}'..='\u{E007F}'
        )
}

/// Starts a named thread in `scope`. The OS's refusal (a pids limit, a tasks quota) comes back
/// as an error worded for people, not as the panic of `Scope::spawn`.
pub fn spawn_scoped<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    name: &str,
    f: impl FnOnce() -> T + Send + 'scope,
) -> Result<std::thread::ScopedJoinHandle<'scope, T>, ThreadRefused> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn_scoped(scope, f)
        .map_err(ThreadRefused)
}

/// Waits for a scoped thread to end and passes on its panic. Every thread a reader starts is
/// joined this way: the scope's own wait ends with the thread's closure, before the thread has
/// run its thread-local destructors and exited, so an unjoined thread can outlive the read.
pub fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The OS refused a thread: a limit of the machine, not a fault of the input being read.
#[derive(Debug)]
pub struct ThreadRefused(pub std::io::Error);

impl ThreadRefused {
    /// As an I/O error (for readers that return one), still recognisable by
    /// [`ThreadRefused::of`].
    pub fn into_io(self) -> std::io::Error {
        std::io::Error::new(self.0.kind(), self)
    }

    /// The refusal inside an I/O error made by [`ThreadRefused::into_io`].
    pub fn of(e: &std::io::Error) -> Option<&ThreadRefused> {
        e.get_ref().and_then(|i| i.downcast_ref::<ThreadRefused>())
    }
}

impl std::fmt::Display for ThreadRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "cannot start a thread: {}", self.0)
    }
}

impl std::error::Error for ThreadRefused {}

/// Whether `n` threads can run at once: started together, each held until all are. (tokio's
/// multi-thread runtime aborts the process when the OS refuses one of its workers, so the
/// binary asks this first.)
pub fn threads_to_be_had(n: usize) -> bool {
    let hold = std::sync::Arc::new(std::sync::RwLock::new(()));
    let held = hold.write();
    let probes: Vec<_> = (0..n)
        .map_while(|_| {
            let hold = hold.clone();
            std::thread::Builder::new()
                .stack_size(16 * 1024)
                .spawn(move || drop(hold.read()))
                .ok()
        })
        .collect();
    let all = probes.len() == n;
    drop(held);
    probes.into_iter().for_each(|p| drop(p.join()));
    all
}

/// A temporary file to replace `path` with: in its directory (so that the rename over it never
/// crosses a filesystem), hidden and named after it (`.NAME.XXXXXX.tmp`). Created 0600: see
/// [`as_plainly_created`].
pub fn temp_file_beside(path: &std::path::Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    tempfile::Builder::new()
        .prefix(&format!(".{}.", name.unwrap_or_default()))
        .suffix(".tmp")
        .tempfile_in(dir)
}

/// Gives a file made by [`temp_file_beside`] the permissions a plain create gives (the
/// umask's default for new files), before it is renamed into place. Best effort.
pub fn as_plainly_created(file: &std::fs::File) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = 0o666 & !umask();
        let _ = file.set_permissions(std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = file;
}

/// The process umask.
#[cfg(unix)]
pub(crate) fn umask() -> u32 {
    // Read, not set: umask(2) can only read it by changing it, which races with threads
    // creating files. Linux shows it in /proc/self/status; elsewhere assume 022.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One duration grammar for every flag: Go's, `d` for days, a bare integer as seconds.
    #[test]
    fn the_one_duration_grammar_reads_go_durations_days_and_seconds() {
        let ok = |s: &str| parse_duration(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(ok("90s"), Duration::from_secs(90));
        assert_eq!(ok("15m"), Duration::from_secs(900));
        assert_eq!(ok("1h30m"), Duration::from_secs(5400));
        assert_eq!(ok("1.5h"), Duration::from_secs(5400));
        assert_eq!(ok("2d"), Duration::from_secs(172_800));
        assert_eq!(ok("500ms"), Duration::from_millis(500));
        assert_eq!(ok("1m0.5s"), Duration::from_millis(60_500));
        assert_eq!(ok("250us"), Duration::from_micros(250));
        assert_eq!(ok("7ns"), Duration::from_nanos(7));
        assert_eq!(ok("30"), Duration::from_secs(30));
        assert_eq!(ok("0"), Duration::ZERO);
        assert_eq!(ok(" 2m "), Duration::from_secs(120));
        for bad in [
            "", "h", "1y", "-1h", "1h 30m", ".s", "1..5s", "1.2.3s", "NaNs", "1e3s",
        ] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.contains("not a duration"), "{bad:?}: {e}");
        }
        for long in [
            "99999999999999999999999d",
            "99999999999999999999",
            "150000000000000d150000000000000d",
        ] {
            let e = parse_duration(long).unwrap_err();
            assert!(e.contains("too long"), "{long:?}: {e}");
        }
    }

    #[test]
    fn durations_read_like_kubectl_ages_and_keep_precision_below_two_minutes() {
        let ms = Duration::from_millis;
        let secs = Duration::from_secs;
        assert_eq!(human_duration(ms(250)), "250ms");
        assert_eq!(human_duration(ms(1500)), "1.5s");
        assert_eq!(human_duration(secs(0)), "0s");
        assert_eq!(human_duration(secs(40)), "40s");
        assert_eq!(human_duration(secs(119)), "119s");
        assert_eq!(human_duration(secs(12 * 60 + 5)), "12m");
        assert_eq!(human_duration(secs(5 * 3600)), "5h");
        assert_eq!(human_duration(secs(3 * 86_400 + 4 * 3600 + 59)), "3d4h");
        assert_eq!(human_duration(secs(14 * 86_400)), "14d0h");
    }

    #[test]
    fn backoff_grows_by_its_factor_and_stops_growing() {
        let b = Backoff {
            base: Duration::from_millis(10),
            factor: 5,
            max_exponent: 4,
            jitter: 0.0,
        };
        assert_eq!(b.delay(0), Duration::from_millis(10));
        assert_eq!(b.delay(1), Duration::from_millis(50));
        assert_eq!(b.delay(4), Duration::from_millis(6250));
        assert_eq!(b.delay(9), Duration::from_millis(6250));
        let jittered = Backoff { jitter: 0.25, ..b };
        let d = jittered.delay(1);
        assert!(d >= Duration::from_millis(50) && d <= Duration::from_micros(62_500));
    }
}
