//! A record that spans lines (a pretty-printed export): scanned by structure, its arrays,
//! `items`, `records` and `events` streamed element by element.

use super::scan::{Buf, MAX_RECORD, Stop};
use super::{Ctx, St, outcome, record};
use std::io;

/// A record that spans lines, from the current position: an object (streaming its `items`,
/// `records` or `events`) or an array (streamed element by element).
pub(super) fn document(ctx: &mut Ctx, buf: &mut Buf, st: &mut St) -> io::Result<()> {
    let start = buf.line;
    let result = match buf.data()[0] {
        b'[' => {
            buf.consume(1);
            elements(ctx, buf, st, "event-list")
        }
        _ => object(ctx, buf, st),
    };
    let e = match result {
        Ok(()) => return Ok(()),
        Err(Stop::Io(e)) => return Err(e),
        Err(e) => e,
    };
    let at = buf.line;
    st.multi_ok = false;
    st.records += 1;
    ctx.stats.records += 1;
    let untouched = at == start;
    match e {
        Stop::Cut => ctx.problem(start, || {
            "the input ends inside this record: cut short".into()
        }),
        Stop::TooBig => ctx.problem(start, || {
            format!("a record longer than {} MiB: skipped", MAX_RECORD >> 20)
        }),
        Stop::Broken(why) => ctx.problem(if untouched { start } else { at }, || {
            if untouched {
                format!("cut short: the record ends before its JSON does ({why} after it)")
            } else {
                format!("broken JSON: {why}; read on line by line")
            }
        }),
        Stop::Io(_) => {}
    }
    buf.discard_line()?;
    Ok(())
}

/// The elements of an array whose `[` was consumed, up to and including its `]`.
fn elements(ctx: &mut Ctx, buf: &mut Buf, st: &mut St, format: &'static str) -> Result<(), Stop> {
    let mut n = 0u64;
    while !st.stop {
        match buf.skip_ws()? {
            None => return Err(Stop::Cut),
            Some(b']') => {
                buf.consume(1);
                return Ok(());
            }
            Some(b',') => buf.consume(1),
            Some(_) => {
                let line = buf.line;
                let end = buf.scan_value(0)?;
                if end == 0 {
                    // A `}` where an element starts: an empty scalar, on which this loop
                    // would stay forever.
                    return Err(Stop::Broken("a `}` where an array element was expected"));
                }
                n += 1;
                ctx.stats.records += 1;
                st.records += 1;
                let r = record(ctx, st, &buf.data()[..end], line, Some(n), Some(format));
                outcome(ctx, st, r, line, Some(n), true);
                buf.consume(end);
            }
        }
    }
    Ok(())
}

/// An object at the current position, spanning lines.
fn object(ctx: &mut Ctx, buf: &mut Buf, st: &mut St) -> Result<(), Stop> {
    let line = buf.line;
    let mut off = 1;
    let mut streamed = false;
    loop {
        let (o, b) = buf.ws_at(off)?;
        off = o;
        match b {
            b'}' => {
                if !streamed {
                    st.records += 1;
                    ctx.stats.records += 1;
                    let r = record(ctx, st, &buf.data()[..off + 1], line, None, None);
                    outcome(ctx, st, r, line, None, true);
                }
                buf.consume(off + 1);
                return Ok(());
            }
            b',' => off += 1,
            b'"' => {
                let key_end = buf.scan_value(off)?;
                let format = match &buf.data()[off + 1..key_end - 1] {
                    b"items" => Some("event-list"),
                    b"records" => Some("aks"),
                    b"events" => Some("eks"),
                    _ => None,
                };
                let (o, b) = buf.ws_at(key_end)?;
                if b != b':' {
                    return Err(Stop::Broken("no `:` after a key"));
                }
                let (o, b) = buf.ws_at(o + 1)?;
                if let (Some(format), b'[') = (format, b) {
                    buf.consume(o + 1);
                    streamed = true;
                    elements(ctx, buf, st, format)?;
                    if st.stop {
                        return Ok(());
                    }
                    off = 0;
                    continue;
                }
                off = buf.scan_value(o)?;
                if streamed {
                    buf.consume(off);
                    off = 0;
                }
            }
            _ => return Err(Stop::Broken("a key was expected")),
        }
    }
}
