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

/// JSON lines on several threads: the calling thread reads blocks of whole lines and hands
/// them to `workers` threads, which parse them as [`read_lines`] would (events, problems and
/// counts kept aside), and replays each block's outcome in input order — so the sink sees the
/// same events in the same order, with the same positions, problems and counts, as line by
/// line. A record that may span lines (a line whose JSON does not end on it) stops its block:
/// the bytes from there are put back and read line by line. True at the end of the input;
/// false when the caller should read on line by line (that record, or a line longer than a
/// block).
pub(super) fn parallel_lines(ctx: &mut Ctx, buf: &mut Buf, st: &mut St) -> io::Result<bool> {
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex, mpsc};
    let Parallel { workers, block, .. } = ctx.parallel;
    let (walked, multi_ok, keep) = (st.walked, st.multi_ok, ctx.keep);
    let source = ctx.source.clone();
    let in_flight = workers * 2;
    let result = std::thread::scope(|scope| {
        let (job_tx, job_rx) = mpsc::sync_channel::<(u64, Vec<u8>, u64)>(in_flight);
        let job_rx = Arc::new(Mutex::new(job_rx));
        let (done_tx, done_rx) = mpsc::channel::<(u64, BlockDone, Vec<u8>)>();
        let mut started = Vec::new();
        for _ in 0..workers {
            let (job_rx, done_tx, source) = (job_rx.clone(), done_tx.clone(), &source);
            let worker = crate::util::spawn_scoped(scope, "audit-log-read", move || {
                loop {
                    let job = job_rx
                        .lock()
                        .map_err(|_| ())
                        .and_then(|rx| rx.recv().map_err(|_| ()));
                    let Ok((seq, bytes, line)) = job else { break };
                    let (done, bytes) = parse_block(source, walked, multi_ok, keep, bytes, line);
                    if done_tx.send((seq, done, bytes)).is_err() {
                        break;
                    }
                }
            });
            started.extend(worker.ok());
        }
        drop(done_tx);
        if started.is_empty() {
            // No thread to be had: nothing was taken from the input yet.
            return None;
        }
        let (mut sent, mut next) = (0u64, 0u64);
        let mut spares: Vec<Vec<u8>> = Vec::new();
        let mut ready: BTreeMap<u64, (BlockDone, Vec<u8>)> = BTreeMap::new();
        let mut input_left = true;
        let result = 'read: loop {
            while input_left && sent - next < in_flight as u64 {
                match buf.take_block(block, spares.pop()) {
                    Ok(Some((bytes, line))) => {
                        if job_tx.send((sent, bytes, line)).is_err() {
                            break 'read Err(worker_lost());
                        }
                        sent += 1;
                    }
                    Ok(None) => input_left = false,
                    Err(e) => break 'read Err(e),
                }
            }
            if next == sent {
                // Every block replayed: the end of the input, or a line longer than a block.
                break Ok(buf.data().is_empty() && buf.at_eof());
            }
            let Some((done, bytes)) = wait_for(&done_rx, &mut ready, next) else {
                break Err(worker_lost());
            };
            next += 1;
            let stopped_at = done.stopped_at;
            replay(ctx, st, done);
            let Some((line, offset)) = stopped_at else {
                spares.push(bytes);
                continue;
            };
            // Put back the rest of this block and every later one, in order.
            let mut back = bytes[offset..].to_vec();
            while next < sent {
                let Some((_, bytes)) = wait_for(&done_rx, &mut ready, next) else {
                    break;
                };
                back.extend_from_slice(&bytes);
                next += 1;
            }
            if next < sent {
                break Err(worker_lost());
            }
            buf.unread(&back, line);
            break Ok(false);
        };
        // Hung up, the workers end: waited for to their very end (see `util::join`).
        drop(job_tx);
        started.into_iter().for_each(crate::util::join);
        Some(result)
    });
    result.unwrap_or_else(|| {
        // Line by line on this thread, from here to the end.
        ctx.parallel.workers = 0;
        Ok(false)
    })
}

/// Block `seq`'s outcome, waiting for the workers as needed; `None` if they are all gone.
fn wait_for(
    rx: &std::sync::mpsc::Receiver<(u64, BlockDone, Vec<u8>)>,
    ready: &mut std::collections::BTreeMap<u64, (BlockDone, Vec<u8>)>,
    seq: u64,
) -> Option<(BlockDone, Vec<u8>)> {
    while !ready.contains_key(&seq) {
        let (s, done, bytes) = rx.recv().ok()?;
        ready.insert(s, (done, bytes));
    }
    ready.remove(&seq)
}

/// A parsing thread ended without its block (it cannot: the reader never panics — but if it
/// did, the rest of the input is reported lost, never skipped in silence).
fn worker_lost() -> io::Error {
    io::Error::other("a parsing thread failed")
}
