//! The times of audit records: RFC 3339 as the API server writes it, and the looser forms of
//! the cloud providers' envelopes.

use super::Str;
use crate::model::timestamp::days_in_month;
use serde_json::value::RawValue;

/// A time given as a JSON string (RFC 3339, or CloudWatch's `2021-08-11 09:29:13.095`) or as
/// milliseconds since the epoch.
pub(in crate::source::audit::formats) fn raw_time_us(raw: &RawValue) -> Option<i64> {
    let s = raw.get();
    if s.starts_with('"') {
        let text: Str = serde_json::from_str(s).ok()?;
        parse_time_loose_us(text.as_str())
    } else {
        let ms: i64 = s.parse().ok()?;
        ms.checked_mul(1000)
    }
}

/// RFC 3339 (`2026-11-26T01:49:45.123456Z`, any number of fraction digits, `Z` or `±hh:mm`) to
/// microseconds since the Unix epoch; `None` for anything else, out-of-range fields included.
pub(in crate::source::audit) fn parse_time_us(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b.len() > 64 {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let shape = digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && matches!(b[10], b'T' | b't')
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    if !shape {
        return None;
    }
    let n = |r: std::ops::Range<usize>| b[r].iter().fold(0i64, |a, d| a * 10 + i64::from(d - b'0'));
    let (y, mo, d) = (n(0..4), n(5..7), n(8..10));
    if !(1..=12).contains(&mo)
        || d < 1
        || d > days_in_month(y, mo)
        || n(11..13) > 23
        || n(14..16) > 59
        || n(17..19) > 59
    {
        return None;
    }
    let mut rest = &b[19..];
    let mut us = 0i64;
    if let Some(frac) = rest.strip_prefix(b".") {
        let k = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if k == 0 {
            return None;
        }
        for i in 0..6 {
            us = us * 10
                + frac
                    .get(i)
                    .filter(|_| i < k)
                    .map_or(0, |c| i64::from(c - b'0'));
        }
        rest = &frac[k..];
    }
    let zone_ok = match rest {
        b"Z" | b"z" => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit())
                && (h1 - b'0') * 10 + (h2 - b'0') <= 23
                && (m1 - b'0') * 10 + (m2 - b'0') <= 59
        }
        _ => false,
    };
    if !zone_ok {
        return None;
    }
    Some(crate::snapshot::parse_rfc3339(s)? * 1_000_000 + us)
}

/// [`parse_time_us`], also accepting a space for `T` and no zone (UTC), as CloudWatch prints.
pub(in crate::source::audit::formats) fn parse_time_loose_us(s: &str) -> Option<i64> {
    if let Some(t) = parse_time_us(s) {
        return Some(t);
    }
    if s.len() < 19 || s.len() > 40 || !s.is_ascii() {
        return None;
    }
    let mut t = s.to_owned();
    t.replace_range(10..11, "T");
    if !t[19..].contains(['Z', 'z', '+', '-']) {
        t.push('Z');
    }
    parse_time_us(&t)
}
