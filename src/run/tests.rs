//! The runner's threads answer what the engine answers in line, whichever piece of a fork
//! finishes first.

use super::{THREADS, Threads};
use crate::catalog::KubeVersion;
use crate::gc::{GarbageCollector, Plan};
use crate::testkit::forests;
use crate::util::fork::{Fork, InLine, join};

/// A fork that runs the second piece first: an engine whose pieces depended on each other's
/// order would answer differently with it.
/// It counts the forks, by name.
#[derive(Debug, Default)]
struct Backwards(std::sync::Mutex<std::collections::BTreeMap<String, usize>>);

impl Fork for Backwards {
    fn both(&self, name: &str, a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
        *self.0.lock().unwrap().entry(name.to_owned()).or_default() += 1;
        b();
        a();
    }
}

/// Everything an analysis answers, as text: the graph, the audit's findings and reference
/// counts, its steady-state plan and a restart's plan.
fn analysis(snap: &crate::snapshot::Snapshot, v: KubeVersion, fork: &dyn Fork) -> String {
    let gc = GarbageCollector::new_on(snap, v, fork);
    let audit = crate::diagnose::audit(&gc);
    let restart = Plan::restart(&gc);
    format!(
        "{:#?}\n{:#?}\n{:#?}\n{}\n{}",
        gc.graph,
        audit.findings,
        audit.classifications,
        plan(&audit.plan),
        plan(&restart)
    )
}

/// A plan as text: every field but the end state, whose maps print in no fixed order (each
/// object's end is in its outcome).
fn plan(p: &Plan) -> String {
    format!(
        "{:#?}\n{:#?}\n{:#?}\n{} {}\n{:?}\n{:?}\n{:?}",
        p.actions, p.withheld, p.outcomes, p.waves, p.truncated, p.visits, p.evaluated, p.reached
    )
}

#[test]
fn threads_answer_what_the_engine_answers_in_line() {
    let versions = [
        KubeVersion::v1(19),
        KubeVersion::parse("1.20.2").unwrap(),
        KubeVersion::NEWEST,
    ];
    let backwards = Backwards::default();
    for seed in 1..=3u64 {
        let snap = forests::forest_cluster(&forests::random_forests(seed, 30)).build();
        for v in versions {
            let in_line = analysis(&snap, v, &InLine);
            for fork in [&THREADS as &dyn Fork, &backwards] {
                let other = analysis(&snap, v, fork);
                let first_difference = in_line
                    .lines()
                    .zip(other.lines())
                    .enumerate()
                    .find(|(_, (a, b))| a != b);
                assert_eq!(first_difference, None, "seed {seed}, {v:?}, {fork:?}");
                assert_eq!(other, in_line, "seed {seed}, {v:?}, {fork:?}");
            }
        }
    }
    // Not vacuous: every fork of the engine was taken (the plans had informer orders to run
    // and races to re-run beside one another).
    let forks = backwards.0.into_inner().unwrap();
    for name in [
        "rest-mapper",
        "plan",
        "informer-runs",
        "primary-run",
        "flip-runs",
    ] {
        assert!(forks.get(name).is_some_and(|&n| n > 0), "{name}: {forks:?}");
    }
}

#[test]
fn a_panic_on_the_runner_thread_reaches_the_caller() {
    let caught =
        std::panic::catch_unwind(|| join(&Threads, "boom", || panic!("on the thread"), || 1));
    assert!(caught.is_err());
}
