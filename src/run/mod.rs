//! The analysis runner: the threads of an analysis.
//!
//! The engine (`gc`, `namespace`, `diagnose`) is single-threaded code. Where two pieces of its
//! work do not depend on each other it says so through a [`Fork`] (`util::fork`), and the
//! runner's [`Threads`] is the one that starts threads for them: the graph beside the REST
//! mapper (`GarbageCollector::new_on`), the plan beside the audit's per-object checks and the
//! audit's whole-graph checks beside the plan's primary run (`diagnose::audit`), the primary
//! run beside the other informer orders' runs and the race re-runs two at a time
//! (`gc::plan`). Each piece computes the same value wherever it runs and the results are put
//! together in a fixed order, so an analysis on threads answers exactly what one in line does
//! (the tests run in line; `tests` here checks the two agree).
//!
//! Commands, the watch and `collect --apply`'s re-planning build their garbage collector
//! here ([`garbage_collector`]); a one-object analysis (the admission webhook's) stays in line,
//! where a thread would cost more than it saves.

use crate::catalog::KubeVersion;
use crate::gc::GarbageCollector;
use crate::snapshot::Snapshot;
use crate::util::fork::Fork;

/// Starts a scoped thread for the first piece of work and runs the second on the calling
/// thread. If the OS refuses the thread (a pids limit, a tasks quota) the first runs in line
/// after the second: slower, never different.
#[derive(Debug, Clone, Copy, Default)]
pub struct Threads;

/// The runner's fork, for a garbage collector that lives as long as the process's data.
pub static THREADS: Threads = Threads;

impl Fork for Threads {
    fn both(&self, name: &str, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
        let spawned =
            std::thread::scope(
                |scope| match crate::util::spawn_scoped(scope, name, &mut *a) {
                    Ok(handle) => {
                        b();
                        crate::util::join(handle);
                        true
                    }
                    Err(_) => false,
                },
            );
        if !spawned {
            b();
            a();
        }
    }
}

/// The garbage collector of release `gc_version` on `snap`, whose work runs on threads where it
/// can ([`GarbageCollector::new_on`] with [`THREADS`]).
pub fn garbage_collector(snap: &Snapshot, gc_version: KubeVersion) -> GarbageCollector<'_> {
    GarbageCollector::new_on(snap, gc_version, &THREADS)
}

#[cfg(test)]
mod tests;
