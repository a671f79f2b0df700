//! Timestamps as an object's metadata holds them, and the civil-date arithmetic behind them.
//!
//! Every object has a creationTimestamp, nearly always unique and only ever displayed or turned
//! into an age. Kept as text it took 28 bytes an object (20 of text, 8 of its span) and the
//! interning thread's time to copy them in (BENCHMARKS.md, "Figures behind the code"). The form Kubernetes writes (`2024-01-02T03:04:05Z`) is held as the seconds it
//! names instead, and turned back into exactly the same text when asked; any other text (a
//! fraction of a second, an offset, a year the seconds do not reach, something that is no
//! timestamp at all) is kept as text, as before, so nothing read is ever changed.

use super::{Interner, Sym};

/// A creationTimestamp: the seconds since the epoch of the canonical form, or the text as read.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Timestamp {
    /// Seconds since 1970 when `packed`, else the [`Sym`] of the text.
    value: u32,
    packed: bool,
}

impl Timestamp {
    /// No timestamp (the empty text).
    pub const NONE: Timestamp = Timestamp {
        value: 0,
        packed: false,
    };

    /// True when there is no timestamp.
    pub fn is_empty(self) -> bool {
        self == Timestamp::NONE
    }

    /// Holds `text`: as seconds when it is in the canonical form, else as unindexed text of
    /// `strings` (only ever displayed, never compared).
    pub fn hold(text: &str, strings: &mut Interner) -> Timestamp {
        match canonical_seconds(text) {
            Some(secs) => Timestamp {
                value: secs,
                packed: true,
            },
            None => Timestamp {
                value: strings.add_unindexed(text).0,
                packed: false,
            },
        }
    }

    /// The seconds since the epoch, where they are what is held (the canonical form).
    pub fn packed_seconds(self) -> Option<i64> {
        self.packed.then_some(i64::from(self.value))
    }

    /// The text as read; `resolve` gives the text of a symbol of the interner that held it.
    pub fn text<'t>(self, resolve: impl FnOnce(Sym) -> &'t str) -> TimestampText<'t> {
        if self.packed {
            TimestampText::Packed(canonical_text(self.value as i64))
        } else {
            TimestampText::Text(resolve(Sym(self.value)))
        }
    }
}

/// The text of a [`Timestamp`], borrowed or made on the stack (no allocation either way).
#[derive(Clone, Copy, Debug)]
pub enum TimestampText<'t> {
    /// Text kept as read.
    Text(&'t str),
    /// The canonical form, made from the seconds.
    Packed([u8; 20]),
}

impl std::ops::Deref for TimestampText<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            TimestampText::Text(s) => s,
            // Only ASCII digits and separators are ever written into it.
            TimestampText::Packed(b) => std::str::from_utf8(b).unwrap_or_default(),
        }
    }
}

impl std::fmt::Display for TimestampText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

/// The seconds of `YYYY-MM-DDTHH:MM:SSZ` exactly as [`canonical_text`] writes them back: every
/// field in range (the day within its month, no leap second), the year from 1970 to 2105 (the
/// seconds fit 32 bits), an upper-case `T` and `Z`. `None` for anything else.
pub fn canonical_seconds(text: &str) -> Option<u32> {
    let b = text.as_bytes();
    if b.len() != 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b'Z'
    {
        return None;
    }
    let num = |at: usize, width: usize| -> Option<i64> {
        b[at..at + width].iter().try_fold(0i64, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
        })
    };
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, s) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1970..=2105).contains(&y)
        || !(1..=12).contains(&mo)
        || d < 1
        || d > days_in_month(y, mo)
        || h > 23
        || mi > 59
        || s > 59
    {
        return None;
    }
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s;
    u32::try_from(secs).ok()
}

/// The days of month `m` (1–12) of proleptic Gregorian year `y`.
pub fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the epoch in years 0 to 9999.
fn canonical_text(secs: i64) -> [u8; 20] {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let mut b = *b"0000-00-00T00:00:00Z";
    let mut put = |at: usize, width: usize, mut v: i64| {
        for i in (at..at + width).rev() {
            b[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, 4, y);
    put(5, 2, m);
    put(8, 2, d);
    put(11, 2, rem / 3600);
    put(14, 2, (rem % 3600) / 60);
    put(17, 2, rem % 60);
    b
}

/// Formats seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_rfc3339(secs: i64) -> String {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    if !(0..=9999).contains(&y) {
        // Years of other widths (hostile or absurd input): `format!` pads and signs them.
        let rem = secs.rem_euclid(86_400);
        let (hh, mm, ss) = (rem / 3600, (rem % 3600) / 60, rem % 60);
        return format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z");
    }
    // Every live object's timestamps go through here, and `format!` with widths showed in a
    // live snapshot's profile (BENCHMARKS.md, "Figures behind the code").
    canonical_text(secs).iter().map(|&c| c as char).collect()
}

// Howard Hinnant's civil-date algorithms (public domain arithmetic).
/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of days since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(text: &str) -> (Timestamp, Interner) {
        let mut strings = Interner::new();
        (Timestamp::hold(text, &mut strings), strings)
    }

    fn back(t: Timestamp, strings: &Interner) -> String {
        t.text(|s| strings.resolve(s)).to_string()
    }

    /// Every second of the range that is packed reads back as the text it was made from,
    /// sampled across the whole range and at every boundary the arithmetic has.
    #[test]
    fn canonical_text_is_packed_and_reads_back_byte_for_byte() {
        let mut secs: Vec<i64> = (0..4_000_000_000i64).step_by(7_919_993).collect();
        // Month ends, leap days, century years, the range's ends.
        for (y, m, d) in [
            (1970, 1, 1),
            (1972, 2, 29),
            (2000, 2, 29),
            (2000, 12, 31),
            (2024, 2, 29),
            (2026, 12, 1),
            (2100, 2, 28),
            (2100, 3, 1),
            (2105, 12, 31),
        ] {
            let day = days_from_civil(y, m, d) * 86_400;
            secs.extend([day, day + 86_399]);
        }
        for s in secs {
            let text = format_rfc3339(s);
            let (t, strings) = held(&text);
            assert!(t.packed, "{text} is canonical");
            assert_eq!(t.value as i64, s, "{text}");
            assert_eq!(back(t, &strings), text);
            assert_eq!(strings.len(), 1, "nothing stored as text for {text}");
        }
    }

    /// Anything not exactly canonical is kept as the text read, unchanged.
    #[test]
    fn other_text_is_kept_as_read() {
        for text in [
            "2024-01-02T03:04:05.123Z",
            "2024-01-02T03:04:05+01:00",
            "2024-01-02t03:04:05z",
            "2024-02-30T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2100-02-29T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-00-01T00:00:00Z",
            "2024-01-00T00:00:00Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01T00:60:00Z",
            "2016-12-31T23:59:60Z",
            "1969-12-31T23:59:59Z",
            "2106-02-07T06:28:16Z",
            "9999-12-31T23:59:59Z",
            "+024-01-02T03:04:05Z",
            "2024-01-02T03:04:0٥Z",
            "2024-01-02 03:04:05Z",
            "***HIDDEN***",
            "yesterday",
        ] {
            let (t, strings) = held(text);
            assert!(!t.packed, "{text} is not canonical");
            assert_eq!(back(t, &strings), text);
        }
        let (t, _) = held("");
        assert!(t.is_empty());
        assert_eq!(t, Timestamp::NONE);
    }

    #[test]
    fn formatting_keeps_odd_years_readable() {
        assert_eq!(format_rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_rfc3339(-1), "1969-12-31T23:59:59Z");
        assert_eq!(format_rfc3339(253_402_300_800), "10000-01-01T00:00:00Z");
    }
}
