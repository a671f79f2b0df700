//! One ordered parallel map: jobs made on the calling thread, worked on several threads, and
//! their results handed back on the calling thread in the order the jobs were made, so that
//! what the caller does with them is what it would have done working them one by one. Generic
//! over the job and the result: a reader decides what a job is (a block of lines) and what
//! replaying a result means.

use std::collections::BTreeMap;
use std::io;
use std::sync::{Arc, Mutex, mpsc};

/// What the caller wants after a result.
pub enum Flow {
    /// Go on.
    More,
    /// Make no more jobs: the results of those already made come back in [`Mapped::Stopped`].
    Stop,
}

/// How a map ended.
pub enum Mapped<R> {
    /// The jobs ran out and every result was handed over.
    Ended,
    /// The caller stopped: the results of the jobs made after the one it stopped at, in order.
    Stopped(Vec<R>),
}

/// Runs `work` on up to `workers` threads named `name`, with at most `in_flight` jobs made
/// and not yet handed back: `make` makes the next job on this thread (`None`: no more), `take`
/// receives each result on this thread in the order the jobs were made. `None` when no thread
/// could be started (then no job was made: the caller works on this thread instead).
pub fn ordered<J: Send, R: Send>(
    name: &str,
    workers: usize,
    in_flight: usize,
    work: &(dyn Fn(J) -> R + Sync),
    make: &mut dyn FnMut() -> io::Result<Option<J>>,
    take: &mut dyn FnMut(R) -> Flow,
) -> Option<io::Result<Mapped<R>>> {
    std::thread::scope(|scope| {
        let (job_tx, job_rx) = mpsc::sync_channel::<(u64, J)>(in_flight);
        let job_rx = Arc::new(Mutex::new(job_rx));
        let (done_tx, done_rx) = mpsc::channel::<(u64, std::thread::Result<R>)>();
        let mut started = Vec::new();
        for _ in 0..workers {
            let (job_rx, done_tx) = (job_rx.clone(), done_tx.clone());
            let worker = std::thread::Builder::new()
                .name(name.into())
                .spawn_scoped(scope, move || work_jobs(&job_rx, &done_tx, work));
            started.extend(worker.ok());
        }
        drop(done_tx);
        if started.is_empty() {
            return None;
        }
        let (mut sent, mut next) = (0u64, 0u64);
        let mut ready = BTreeMap::new();
        let mut panicked = None;
        let mut jobs_left = true;
        let result = 'run: loop {
            while jobs_left && sent - next < in_flight as u64 {
                match make() {
                    Ok(Some(job)) => {
                        if job_tx.send((sent, job)).is_err() {
                            break 'run Err(worker_lost());
                        }
                        sent += 1;
                    }
                    Ok(None) => jobs_left = false,
                    Err(e) => break 'run Err(e),
                }
            }
            if next == sent {
                break Ok(Mapped::Ended);
            }
            let done = match wait_for(&done_rx, &mut ready, next) {
                Some(Ok(done)) => done,
                Some(Err(panic)) => {
                    panicked = Some(panic);
                    break Err(worker_lost());
                }
                None => break Err(worker_lost()),
            };
            next += 1;
            if let Flow::More = take(done) {
                continue;
            }
            let mut rest = Vec::new();
            while next < sent {
                match wait_for(&done_rx, &mut ready, next) {
                    Some(Ok(done)) => rest.push(done),
                    Some(Err(panic)) => {
                        panicked = Some(panic);
                        break 'run Err(worker_lost());
                    }
                    None => break 'run Err(worker_lost()),
                }
                next += 1;
            }
            break Ok(Mapped::Stopped(rest));
        };
        // Hung up, the workers end: each is joined, so that none outlives the map (the
        // scope's own wait ends with the closure, before the thread has exited).
        drop(job_tx);
        drop(done_rx);
        for worker in started {
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
        }
        if let Some(panic) = panicked {
            std::panic::resume_unwind(panic);
        }
        Some(result)
    })
}

/// One worker: takes jobs until the channel is hung up (or a job panics), sending each result
/// back with the job's number.
fn work_jobs<J, R>(
    job_rx: &Mutex<mpsc::Receiver<(u64, J)>>,
    done_tx: &mpsc::Sender<(u64, std::thread::Result<R>)>,
    work: &(dyn Fn(J) -> R + Sync),
) {
    loop {
        let job = job_rx
            .lock()
            .map_err(|_| ())
            .and_then(|rx| rx.recv().map_err(|_| ()));
        let Ok((seq, job)) = job else { break };
        // A panic is handed back as the job's result, so that the caller stops waiting for it
        // (the other workers would keep its channel open) and re-raises it once every worker
        // is joined.
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(job)));
        let failed = done.is_err();
        if done_tx.send((seq, done)).is_err() || failed {
            break;
        }
    }
}

/// Result `seq`, waiting for the workers as needed; `None` if they are all gone.
fn wait_for<R>(rx: &mpsc::Receiver<(u64, R)>, ready: &mut BTreeMap<u64, R>, seq: u64) -> Option<R> {
    while !ready.contains_key(&seq) {
        let (s, done) = rx.recv().ok()?;
        ready.insert(s, done);
    }
    ready.remove(&seq)
}

/// A worker ended without its result (a panic in `work` is re-raised after the workers are
/// joined; the rest of the input is never skipped in silence).
fn worker_lost() -> io::Error {
    io::Error::other("a parsing thread failed")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic in one worker reaches the caller (re-raised once every worker is joined)
    /// instead of leaving it waiting for a result the other workers never send.
    #[test]
    fn a_panicking_job_reaches_the_caller_and_never_hangs() {
        let outcome = std::panic::catch_unwind(|| {
            let work = |n: u64| {
                assert!(n != 3, "job 3 fails");
                n
            };
            let mut n = 0u64;
            let mut make = || {
                n += 1;
                Ok((n <= 50).then_some(n))
            };
            ordered("test-panic", 2, 4, &work, &mut make, &mut |_| Flow::More)
        });
        let Err(panic) = outcome else {
            panic!("the worker's panic is not re-raised");
        };
        let text = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
        assert_eq!(text.as_deref(), Some("job 3 fails"));
    }

    /// Results come back in the order the jobs were made, whatever order the workers finish
    /// in; a stop hands back the later results, in order, and makes no more jobs.
    #[test]
    fn results_come_back_in_job_order() {
        let work = |n: u64| {
            // Later jobs finish first.
            std::thread::sleep(std::time::Duration::from_millis(20 - n % 20));
            n * 10
        };
        let mut made = 0u64;
        let mut make = || {
            made += 1;
            Ok((made <= 40).then_some(made))
        };
        let mut got = Vec::new();
        let mut take = |r: u64| {
            got.push(r);
            Flow::More
        };
        let out = ordered("test", 3, 6, &work, &mut make, &mut take)
            .unwrap()
            .unwrap();
        assert!(matches!(out, Mapped::Ended));
        assert_eq!(got, (1..=40).map(|n| n * 10).collect::<Vec<_>>());

        let mut made = 0u64;
        let mut make = || {
            made += 1;
            Ok(Some(made))
        };
        let mut got = Vec::new();
        let mut take = |r: u64| {
            got.push(r);
            if r == 50 { Flow::Stop } else { Flow::More }
        };
        let Mapped::Stopped(rest) = ordered("test", 2, 4, &work, &mut make, &mut take)
            .unwrap()
            .unwrap()
        else {
            panic!("not stopped");
        };
        assert_eq!(got, [10, 20, 30, 40, 50]);
        // At most `in_flight` jobs were made beyond the one it stopped at.
        assert_eq!(
            rest,
            (6..6 + rest.len() as u64)
                .map(|n| n * 10)
                .collect::<Vec<_>>()
        );
        assert!(rest.len() <= 4);
    }
}
