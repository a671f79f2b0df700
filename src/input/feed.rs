//! The one read-ahead: the input is read on the calling thread, in chunks, while another
//! thread parses the chunks read before; parsed chunks go back to be filled again, so that
//! the buffers are reused rather than allocated (and faulted in) per chunk. The input stays on
//! the calling thread, so it need not be `Send`: archive members and decompressors are not.
//! (A large plain file is read through its map instead: [`super::bytes`].)

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};

/// The parser's end of a read-ahead: the chunks (`C`) in input order, and a way back for the
/// buffers (`S`) it is done with. The input's end is the reading side hanging up.
pub struct Ahead<C, S = C> {
    chunks: Receiver<io::Result<C>>,
    spare: Sender<S>,
}

impl<C, S> Ahead<C, S> {
    /// The next chunk, or `None` at the end of the input.
    pub fn next(&self) -> Option<io::Result<C>> {
        self.chunks.recv().ok()
    }

    /// A buffer parsed, to be filled again.
    pub fn give_back(&self, buffer: S) {
        // A send fails only once the reading is over: the buffer is then dropped.
        let _ = self.spare.send(buffer);
    }

    /// The chunks still to come, until the reading side hangs up.
    pub fn rest(&self) -> impl Iterator<Item = io::Result<C>> + '_ {
        self.chunks.iter()
    }
}

/// Runs `parse` on a new thread named `name` with the chunks `fill` reads on this thread:
/// `fill(spare)` reads the next chunk (into `spare`, a buffer given back, when there is one)
/// and says whether it is the last one, or gives `None` at the end of the input. At most
/// `in_flight` chunks wait for the parser. The reading ends at the input's end, at a read
/// error (handed to the parser as the last chunk), when the parser hangs up (it is done), or
/// once `stop` is set (the parser takes the rest of the input itself). `Err` when no thread
/// could be started: then nothing was read.
pub fn read_ahead<C: Send, S: Send, T: Send>(
    name: &str,
    in_flight: usize,
    stop: Option<&AtomicBool>,
    fill: &mut dyn FnMut(Option<S>) -> io::Result<Option<(C, bool)>>,
    parse: impl FnOnce(Ahead<C, S>) -> T + Send,
) -> io::Result<T> {
    let (tx, rx) = std::sync::mpsc::sync_channel(in_flight);
    let (spare_tx, spare_rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        let parser =
            std::thread::Builder::new()
                .name(name.into())
                .spawn_scoped(scope, move || {
                    parse(Ahead {
                        chunks: rx,
                        spare: spare_tx,
                    })
                })?;
        while !stop.is_some_and(|s| s.load(Ordering::Acquire)) {
            let (chunk, last) = match fill(spare_rx.try_recv().ok()) {
                Ok(Some((c, last))) => (Ok(c), last),
                Ok(None) => break,
                Err(e) => (Err(e), true),
            };
            // A send fails when the parser is done.
            if tx.send(chunk).is_err() || last {
                break;
            }
        }
        drop(tx);
        // Joined, so that the thread does not outlive the read (the scope's own wait ends
        // with the closure, before the thread has exited).
        match parser.join() {
            Ok(out) => Ok(out),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}
