//! Value parsers and value types of the command line: durations and sizes as kubectl spells
//! them, `--fail-on`, `--gc-version`, `--qps`. Every parser bounds what it accepts, so no flag
//! value can make the program panic or wait for ever (issue 12).

use crate::catalog::KubeVersion;
use crate::diagnose::Severity;

/// `--fail-on` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// Never fail because of findings.
    Never,
    /// Fail on findings at or above this severity.
    At(Severity),
}

pub(crate) fn parse_fail_on(s: &str) -> Result<FailOn, String> {
    if s == "never" {
        Ok(FailOn::Never)
    } else {
        s.parse::<Severity>()
            .map(FailOn::At)
            .map_err(|_| format!("expected never, info, warning, error or critical, got {s:?}"))
    }
}

pub(crate) fn parse_version(s: &str) -> Result<KubeVersion, String> {
    s.parse()
}

/// The longest `--request-timeout` accepted (longer values are refused, not clamped).
pub const MAX_REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// `--request-timeout` and the other waits: the one duration grammar
/// ([`crate::util::parse_duration`]), `0` (in any unit) for no limit, anything else between
/// 1ms and [`MAX_REQUEST_TIMEOUT`].
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let d = crate::util::parse_duration(s).map_err(|e| {
        if e.contains("too long") {
            format!(
                "duration {:?} is too long (at most 24h; 0 for no limit)",
                s.trim()
            )
        } else {
            e
        }
    })?;
    if d.is_zero() {
        return Ok(d);
    }
    if d < std::time::Duration::from_millis(1) {
        return Err(format!(
            "duration {:?} is too short (0 for no limit, else at least 1ms)",
            s.trim()
        ));
    }
    if d > MAX_REQUEST_TIMEOUT {
        return Err(format!(
            "duration {:?} is too long (at most 24h; 0 for no limit)",
            s.trim()
        ));
    }
    Ok(d)
}

/// Parses `512Mi`, `8Gi`, `100M`, `4096` (bytes) into bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("invalid size {s:?} (e.g. 512Mi, 8Gi)"))?;
    let mult: u64 = match unit {
        "" => 1,
        "K" | "k" => 1_000,
        "M" => 1_000_000,
        "G" => 1_000_000_000,
        "T" => 1_000_000_000_000,
        "Ki" => 1 << 10,
        "Mi" => 1 << 20,
        "Gi" => 1 << 30,
        "Ti" => 1 << 40,
        _ => {
            return Err(format!(
                "invalid size unit in {s:?} (Ki, Mi, Gi, Ti, K, M, G, T)"
            ));
        }
    };
    match n.checked_mul(mult) {
        Some(v) if v > 0 => Ok(v),
        Some(_) => Err("the size must be positive".into()),
        None => Err(format!("size {s:?} is too large")),
    }
}

/// `--qps`: finite, 0.01 ≤ N ≤ 10000 (`apply::QPS_RANGE`; 1e-300 was a 1e300-second wait).
pub(crate) fn parse_qps(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(q) if q.is_finite() && (0.01..=10_000.0).contains(&q) => Ok(q),
        _ => Err(format!(
            "expected a number of requests per second (0.01 ≤ N ≤ 10000), got {s:?}"
        )),
    }
}

#[cfg(feature = "testkit")]
pub(crate) fn parse_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
        _ => Err(format!("expected a fraction between 0 and 1, got {s:?}")),
    }
}
