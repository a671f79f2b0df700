//! The stop signals of the commands that write (`collect --apply`, `relink --apply`).
//!
//! The first SIGINT (Ctrl-C) or SIGTERM (a Job's or CI runner's cancellation, `systemctl stop`,
//! `kill`) asks the apply to stop before its next action: it finishes the one in flight, writes
//! its summary and exits 7. A second one exits at once — 130 after SIGINT, 143 after SIGTERM,
//! the codes a shell reports for a process those signals end (`exit::INTERRUPTED_NOW`,
//! `exit::TERMINATED_NOW`) — after one line on stderr saying what was done; the record holds
//! every action finished before it (each entry is written when its action ends).

use crate::apply::Stop;
use crate::error::exit;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Which signal arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Signal {
    Interrupt,
    Terminate,
}

impl Signal {
    fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "Ctrl-C",
            Signal::Terminate => "SIGTERM",
        }
    }

    fn exit_now(self) -> u8 {
        match self {
            Signal::Interrupt => exit::INTERRUPTED_NOW,
            Signal::Terminate => exit::TERMINATED_NOW,
        }
    }
}

/// SIGTERM's stream, where the platform has one.
#[cfg(unix)]
type Term = Option<tokio::signal::unix::Signal>;
#[cfg(not(unix))]
type Term = ();

#[cfg(unix)]
fn term() -> Term {
    tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok()
}
#[cfg(not(unix))]
fn term() -> Term {}

/// The next SIGINT or SIGTERM (SIGINT only where there is no SIGTERM); `None` when no signal
/// can be listened to.
async fn next(term: &mut Term) -> Option<Signal> {
    #[cfg(unix)]
    if let Some(t) = term {
        return tokio::select! {
            r = tokio::signal::ctrl_c() => r.ok().map(|()| Signal::Interrupt),
            r = t.recv() => r.map(|()| Signal::Terminate),
        };
    }
    let _ = term;
    tokio::signal::ctrl_c()
        .await
        .ok()
        .map(|()| Signal::Interrupt)
}

/// What the apply has done so far, for the line a second signal prints.
#[derive(Debug, Default)]
pub struct Tally {
    /// Actions (objects, for relink) finished and recorded.
    pub finished: AtomicUsize,
    /// Of those, done (written).
    pub done: AtomicUsize,
}

impl Tally {
    /// Counts one finished action.
    pub fn finished(&self, done: bool) {
        self.finished.fetch_add(1, Ordering::SeqCst);
        if done {
            self.done.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Listens for the stop signals while an apply runs (abort the task when it ends): the first
/// sets `stop`, the second exits at once. `what` names the unit (`action`, `object`), `record`
/// the record file as shown.
pub fn listen(
    stop: Arc<Stop>,
    tally: Arc<Tally>,
    what: &'static str,
    record: String,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut term = term();
        let Some(first) = next(&mut term).await else {
            return;
        };
        match first {
            Signal::Interrupt => stop.interrupt(),
            Signal::Terminate => stop.terminate(),
        }
        eprintln!(
            "\n{}: stopping after the {what} in flight (Ctrl-C or SIGTERM again to exit now)",
            first.name()
        );
        let Some(second) = next(&mut term).await else {
            return;
        };
        eprintln!("{}", exit_now_line(second, &tally, what, &record));
        std::process::exit(i32::from(second.exit_now()));
    })
}

/// The one line a second signal leaves: what was done, where it is recorded, the exit code.
fn exit_now_line(s: Signal, tally: &Tally, what: &str, record: &str) -> String {
    format!(
        "{} again: exiting now with {}: {} {what}(s) finished ({} done), each in the record {record}; \
         the {what} in flight, if any, may have been sent and is not recorded",
        s.name(),
        s.exit_now(),
        tally.finished.load(Ordering::SeqCst),
        tally.done.load(Ordering::SeqCst),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_now_line_says_what_was_done_and_the_code() {
        let t = Tally::default();
        t.finished(true);
        t.finished(false);
        t.finished(true);
        assert_eq!(
            exit_now_line(Signal::Terminate, &t, "action", "rec.json"),
            "SIGTERM again: exiting now with 143: 3 action(s) finished (2 done), each in the \
             record rec.json; the action in flight, if any, may have been sent and is not recorded"
        );
        assert_eq!(Signal::Interrupt.exit_now(), 130);
    }
}
