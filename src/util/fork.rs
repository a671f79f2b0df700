//! Work that may run side by side, said by the code that has it and done by whoever runs it.
//!
//! The engine (`gc`, `namespace`, `diagnose`) is single-threaded code: where two pieces of its
//! work do not depend on each other it says so through a [`Fork`] and goes on as if they had
//! run one after the other. Whether they get threads is the caller's choice: the analysis
//! runner (`crate::run`) hands the engine one that starts them, tests and one-object callers
//! run them in line ([`InLine`]). Either way each piece computes the same value, so the
//! results do not depend on the choice.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs two pieces of work, side by side or one after the other, and returns when both are
/// done. An implementation calls each closure exactly once (the engine relies on it:
/// [`join`] has no other way to get the results) and passes on a panic of either.
pub trait Fork: Sync + std::fmt::Debug {
    /// Runs `a` and `b` once each; `name` says what `a` is (a thread's name, if it gets one).
    fn both(&self, name: &str, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send));
}

/// One after the other, on the calling thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct InLine;

impl Fork for InLine {
    fn both(&self, _: &str, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
        a();
        b();
    }
}

/// `a()` and `b()` through `fork` (`name` says what `a` is): their results, as if run one
/// after the other.
pub fn join<A: Send, B: Send>(
    fork: &dyn Fork,
    name: &str,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    let (mut a, mut b) = (Some(a), Some(b));
    let (mut ra, mut rb) = (None, None);
    fork.both(
        name,
        &mut || {
            if let Some(f) = a.take() {
                ra = Some(f());
            }
        },
        &mut || {
            if let Some(f) = b.take() {
                rb = Some(f());
            }
        },
    );
    match (ra, rb) {
        (Some(ra), Some(rb)) => (ra, rb),
        // A `Fork` that skipped a closure broke its one promise; nothing to return.
        _ => unreachable!("a Fork ran each closure once"),
    }
}

/// Numbered pieces of independent work, shared by the sides of a [`join`]: each side takes
/// the next number nobody has taken until none are left, so a side that finishes its own work
/// early takes over what is left instead of waiting for the other.
#[derive(Debug)]
pub struct Tickets {
    next: AtomicUsize,
    end: usize,
}

impl Tickets {
    /// The numbers `first..end`.
    pub fn new(first: usize, end: usize) -> Tickets {
        Tickets {
            next: AtomicUsize::new(first),
            end,
        }
    }

    /// Every number no other side has taken, with `f` of it, in the order taken.
    pub fn take_all<T>(&self, mut f: impl FnMut(usize) -> T) -> Vec<(usize, T)> {
        let mut out = Vec::new();
        loop {
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            if k >= self.end {
                return out;
            }
            out.push((k, f(k)));
        }
    }

    /// What the sides took, put together in the numbers' order: as if one side had made it.
    pub fn in_order<T>(mut taken: Vec<(usize, T)>) -> Vec<(usize, T)> {
        taken.sort_unstable_by_key(|&(k, _)| k);
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::{Fork, InLine, Tickets, join};

    /// A fork that runs `b` before `a`: results must not depend on the order.
    #[derive(Debug)]
    struct Backwards;

    impl Fork for Backwards {
        fn both(&self, _: &str, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
            b();
            a();
        }
    }

    #[test]
    fn join_returns_each_side_in_its_place_whatever_the_order() {
        for fork in [&InLine as &dyn Fork, &Backwards] {
            let (a, b) = join(fork, "left", || "left".to_owned(), || 2 + 2);
            assert_eq!((a.as_str(), b), ("left", 4), "{fork:?}");
        }
    }

    #[test]
    fn tickets_are_each_taken_once_by_one_side() {
        for threads in [1, 2, 4] {
            let tickets = Tickets::new(3, 500);
            let taken: Vec<(usize, usize)> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads)
                    .map(|_| s.spawn(|| tickets.take_all(|k| k * 2)))
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().unwrap())
                    .collect()
            });
            assert_eq!(
                Tickets::in_order(taken),
                (3..500).map(|k| (k, k * 2)).collect::<Vec<_>>(),
                "{threads} threads"
            );
            // Once all are taken, nothing is left for a late side.
            assert!(tickets.take_all(|k| k).is_empty());
        }
    }
}
