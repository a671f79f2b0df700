//! JSON lines parsed in blocks on several threads and replayed in input order
//! ([`parallel_lines`]).

use super::scan::Buf;
use super::{AuditEvent, Ctx, Parallel, ReadStats, Seen, St, read_lines};
use std::io;

/// What a block parsed on another thread gave, for the calling thread to replay in order.
struct BlockDone {
    events: Vec<AuditEvent>,
    seen: Vec<Seen>,
    stats: ReadStats,
    known: u64,
    /// Where it stopped before a record that may span lines: (line, offset in the block).
    stopped_at: Option<(u64, usize)>,
}

/// Parses one block of lines as [`read_lines`] would, on a worker thread.
fn parse_block(
    source: &str,
    walked: bool,
    multi_ok: bool,
    keep: Option<fn(&AuditEvent) -> bool>,
    block: Vec<u8>,
    line: u64,
) -> (BlockDone, Vec<u8>) {
    let mut events = Vec::new();
    let mut sink = |e: AuditEvent| events.push(e);
    let mut ctx = Ctx::new(&mut sink);
    ctx.source = source.to_owned();
    ctx.journal = Some(Vec::new());
    ctx.keep = keep;
    ctx.parallel.workers = 1;
    let mut st = St {
        walked,
        // Past the rules for an input's first records (they were read line by line).
        records: u64::MAX / 2,
        known: 1,
        multi_ok,
        stop: false,
        parallel_from: u64::MAX,
        in_block: Some(None),
    };
    let mut none = io::empty();
    let mut buf = Buf::from_block(&mut none, block, line);
    // A block is in memory: reading it cannot fail.
    let _ = read_lines(&mut ctx, &mut buf, &mut st);
    let block = std::mem::take(buf.inner_mut());
    let seen = ctx.journal.take().unwrap_or_default();
    let stats = std::mem::take(&mut ctx.stats);
    drop(ctx);
    (
        BlockDone {
            events,
            seen,
            stats,
            known: st.known - 1,
            stopped_at: st.in_block.flatten(),
        },
        block,
    )
}

/// A block's outcome, in input order, as if it had been read here.
fn replay(ctx: &mut Ctx, st: &mut St, done: BlockDone) {
    let s = done.stats;
    ctx.stats.records += s.records;
    st.records += s.records;
    st.known += done.known;
    ctx.stats.other_records += s.other_records;
    ctx.stats.other_stages += s.other_stages;
    for (format, n) in s.by_format {
        *ctx.stats.by_format.entry(format).or_default() += n;
    }
    for t in done.seen {
        ctx.seen(t);
    }
    for p in s.problems {
        ctx.keep_problem(p);
    }
    ctx.stats.more_problems += s.more_problems;
    ctx.stats.passed += s.passed;
    for ev in done.events {
        ctx.deliver(ev);
    }
}

/// JSON lines on several threads ([`crate::input::parallel::ordered`]): the calling thread
/// reads blocks of whole lines and hands them to `workers` threads, which parse them as
/// [`read_lines`] would (events, problems and counts kept aside), and replays each block's
/// outcome in input order — so the sink sees the same events in the same order, with the
/// same positions, problems and counts, as line by line. A record that may span lines (a
/// line whose JSON does not end on it) stops its block: the bytes from there are put back
/// and read line by line. True at the end of the input; false when the caller should read on
/// line by line (that record, or a line longer than a block).
pub(super) fn parallel_lines(ctx: &mut Ctx, buf: &mut Buf, st: &mut St) -> io::Result<bool> {
    use crate::input::parallel::{Flow, Mapped, ordered};
    use std::cell::RefCell;
    let Parallel { workers, block, .. } = ctx.parallel;
    let (walked, multi_ok, keep) = (st.walked, st.multi_ok, ctx.keep);
    let source = ctx.source.clone();
    let work =
        |(bytes, line): (Vec<u8>, u64)| parse_block(&source, walked, multi_ok, keep, bytes, line);
    // Blocks replayed go back to be filled again.
    let spares: RefCell<Vec<Vec<u8>>> = RefCell::new(Vec::new());
    // The block that stopped at a record that may span lines: its bytes from there, and
    // the line it starts on.
    let mut stopped: Option<(Vec<u8>, u64)> = None;
    let outcome = {
        let buf = &mut *buf;
        let mut make = || {
            let spare = spares.borrow_mut().pop();
            buf.take_block(block, spare)
        };
        let mut take = |(done, bytes): (BlockDone, Vec<u8>)| {
            let stopped_at = done.stopped_at;
            replay(ctx, st, done);
            match stopped_at {
                None => {
                    spares.borrow_mut().push(bytes);
                    Flow::More
                }
                Some((line, offset)) => {
                    stopped = Some((bytes[offset..].to_vec(), line));
                    Flow::Stop
                }
            }
        };
        ordered(
            "audit-log-read",
            workers,
            workers * 2,
            &work,
            &mut make,
            &mut take,
        )
    };
    match outcome {
        // No thread to be had: nothing was taken from the input yet; line by line on this
        // thread, from here to the end.
        None => {
            ctx.parallel.workers = 0;
            Ok(false)
        }
        Some(Err(e)) => Err(e),
        // Every block replayed: the end of the input, or a line longer than a block.
        Some(Ok(Mapped::Ended)) => Ok(buf.data().is_empty() && buf.at_eof()),
        // Put back the rest of the block that stopped and every later one, in order.
        Some(Ok(Mapped::Stopped(rest))) => {
            let (mut back, line) = stopped.unwrap_or_default();
            for (_, bytes) in rest {
                back.extend_from_slice(&bytes);
            }
            buf.unread(&back, line);
            Ok(false)
        }
    }
}
