//! Times of log lines. Envelopes carry whole times (kubectl's `--timestamps`, journald,
//! Cloud Logging, CloudWatch, the JSON format's `ts`); klog's own header has no year
//! (`I1207 13:46:25.028002`), and is the process's local time. The year comes from
//! [`Year`]: a flag, a whole time in the same input (klog's `Log file created at:` header),
//! the other sources' window, or the file's modification time — each said in the read's
//! counts, never guessed silently.

use crate::model::timestamp::{days_from_civil, days_in_month};

/// Microseconds since the epoch of an RFC 3339 time as logs write it: `T` or a space
/// between date and time, any number of fractional digits (nanoseconds are cut to
/// microseconds), `Z`, `±HH:MM`, `±HHMM` or no zone (UTC).
pub(super) fn parse_rfc3339_us(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 || !s.is_char_boundary(19) {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        b.get(r)?.iter().try_fold(0i64, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
        })
    };
    if b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || se > 60
    {
        return None;
    }
    let mut rest = &s[19..];
    let mut micros = 0i64;
    if let Some(frac) = rest.strip_prefix('.').or_else(|| rest.strip_prefix(',')) {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        for (i, c) in frac.bytes().take(6).enumerate() {
            if i < n {
                micros = micros * 10 + i64::from(c - b'0');
            }
        }
        for _ in n.min(6)..6 {
            micros *= 10;
        }
        rest = &frac[n..];
    }
    let offset = zone(rest)?;
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se - offset;
    secs.checked_mul(1_000_000)?.checked_add(micros)
}

/// Seconds east of UTC of a zone suffix: ``, `Z`, `±HH:MM`, `±HHMM`, `±HH`.
fn zone(rest: &str) -> Option<i64> {
    let rest = rest.trim_end();
    if rest.is_empty() || rest == "Z" || rest == "z" {
        return Some(0);
    }
    let sign = match rest.as_bytes()[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: String = rest[1..].chars().filter(|c| *c != ':').collect();
    if !digits.bytes().all(|c| c.is_ascii_digit()) || !matches!(digits.len(), 2 | 4) {
        return None;
    }
    let h: i64 = digits[..2].parse().ok()?;
    let m: i64 = if digits.len() == 4 {
        digits[2..].parse().ok()?
    } else {
        0
    };
    (h <= 23 && m <= 59).then_some(sign * (h * 3600 + m * 60))
}

/// A klog header's time without its year: month, day, and microseconds into the day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NoYear {
    pub month: u8,
    pub day: u8,
    pub micros: i64,
}

/// `MMDD hh:mm:ss.uuuuuu` (klog's header after the level letter).
pub(super) fn klog_time(s: &[u8]) -> Option<NoYear> {
    if s.len() < 15 || s[4] != b' ' || s[7] != b':' || s[10] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        s.get(r)?.iter().try_fold(0i64, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
        })
    };
    let (mo, d) = (num(0..2)?, num(2..4)?);
    let (h, mi, se) = (num(5..7)?, num(8..10)?, num(11..13)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let mut micros = (h * 3600 + mi * 60 + se) * 1_000_000;
    if s.get(13) == Some(&b'.') {
        let frac: Vec<u8> = s[14..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .copied()
            .collect();
        let mut f = 0i64;
        for i in 0..6 {
            f = f * 10 + frac.get(i).map_or(0, |c| i64::from(c - b'0'));
        }
        micros += f;
    }
    Some(NoYear {
        month: mo as u8,
        day: d as u8,
        micros,
    })
}

/// Where the year of klog's headers comes from, in the order it is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum YearFrom {
    /// `--year`.
    Flag,
    /// A whole time in the same input (klog's `Log file created at:` line).
    File,
    /// The window of the other sources read with it (`--audit-log`).
    OtherSources,
    /// The file's modification time (its last line was written then, or before).
    Modified,
}

impl YearFrom {
    /// For people.
    pub fn describe(self) -> &'static str {
        match self {
            YearFrom::Flag => "--year",
            YearFrom::File => "the log's own header (Log file created at:)",
            YearFrom::OtherSources => "the window of the other sources",
            YearFrom::Modified => "the file's modification time",
        }
    }
}

/// How a yearless time gets its year.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Year {
    /// This year for the first line; a month that goes back (December → January) is the
    /// next year.
    Starting(i64),
    /// The year that puts the time nearest this instant (µs), within half a year: a log read
    /// beside other sources, or ending at its file's modification time.
    Near(i64),
}

/// Gives yearless times their years, in input order.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clock {
    pub year: Year,
    last: Option<(u8, i64)>,
}

impl Clock {
    pub fn new(year: Year) -> Clock {
        Clock { year, last: None }
    }

    /// Microseconds since the epoch of `t` (klog writes local time: read as UTC).
    pub fn at(&mut self, t: NoYear) -> i64 {
        let of = |y: i64| {
            let day = i64::from(t.day).min(days_in_month(y, i64::from(t.month)));
            days_from_civil(y, i64::from(t.month), day) * 86_400_000_000 + t.micros
        };
        match self.year {
            Year::Near(anchor) => {
                let y0 =
                    crate::model::timestamp::civil_from_days(anchor.div_euclid(86_400_000_000)).0;
                (y0 - 1..=y0 + 1)
                    .map(of)
                    .min_by_key(|us| (us - anchor).abs())
                    .unwrap_or_else(|| of(y0))
            }
            Year::Starting(y) => {
                let mut year = y;
                if let Some((month, _)) = self.last
                    && t.month < month
                    && month - t.month > 6
                {
                    year += 1;
                    self.year = Year::Starting(year);
                }
                self.last = Some((t.month, t.micros));
                of(year)
            }
        }
    }
}

/// `Log file created at: 2026/12/07 13:45:00` (klog's first line of a `--log-file`/`--log_dir`
/// file): the instant, in µs.
pub(super) fn created_at(line: &str) -> Option<i64> {
    let rest = line.trim().strip_prefix("Log file created at: ")?;
    let t = rest.get(..19)?.replacen('/', "-", 2);
    parse_rfc3339_us(&t)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400_000_000;

    #[test]
    fn rfc3339_as_logs_write_it() {
        let base = days_from_civil(2021, 9, 14) * DAY + ((14 * 3600 + 30 * 60 + 29) * 1_000_000);
        assert_eq!(
            parse_rfc3339_us("2021-09-14T14:30:29.611586922Z"),
            Some(base + 611_586)
        );
        assert_eq!(parse_rfc3339_us("2021-09-14T14:30:29Z"), Some(base));
        assert_eq!(
            parse_rfc3339_us("2021-09-14 14:30:29.5"),
            Some(base + 500_000)
        );
        assert_eq!(parse_rfc3339_us("2021-09-14T16:30:29+0200"), Some(base));
        assert_eq!(parse_rfc3339_us("2021-09-14T16:30:29+02:00"), Some(base));
        for bad in [
            "2021-13-14T14:30:29Z",
            "2021-09-14T14:30:29.Z",
            "2021-09-14T14:30",
            "",
            "2021-09-14T14:30:29+2",
            "२०२१-09-14T14:30:29Z",
        ] {
            assert_eq!(parse_rfc3339_us(bad), None, "{bad}");
        }
    }

    #[test]
    fn klog_times_get_the_year_they_are_given() {
        let t = klog_time(b"1231 23:59:59.900000").unwrap();
        let jan = klog_time(b"0101 00:00:01.000000").unwrap();
        let mut c = Clock::new(Year::Starting(2026));
        let a = c.at(t);
        let b = c.at(jan);
        assert_eq!(a, days_from_civil(2026, 12, 31) * DAY + 86_399_900_000);
        assert_eq!(
            b,
            days_from_civil(2027, 1, 1) * DAY + 1_000_000,
            "December → January is the next year"
        );
        // Near an instant in January 2027: December is 2026's.
        let anchor = days_from_civil(2027, 1, 5) * DAY;
        let mut n = Clock::new(Year::Near(anchor));
        assert_eq!(n.at(t), a);
        assert_eq!(n.at(jan), b);
        assert!(klog_time(b"1307 13:46:25.028002").is_none());
        assert!(klog_time(b"12").is_none());
        assert_eq!(
            created_at("Log file created at: 2026/12/07 13:45:00"),
            Some(days_from_civil(2026, 12, 7) * DAY + (13 * 3600 + 45 * 60) * 1_000_000)
        );
    }
}
