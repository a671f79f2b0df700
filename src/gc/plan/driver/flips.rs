//! The re-runs that flip the races of a run: each chain that got somewhere first is held
//! back so that it gets there second, per component of the graph.

use super::super::orders::Components;
use crate::gc::GarbageCollector;
use crate::gc::simulation::{self, Delays, Race, Run, Scope};
use crate::model::ObjId;
use crate::util::fork::{Tickets, join};
use std::collections::BTreeMap;

/// Re-runs per component and round of flips: its races one by one up to this many; beyond,
/// up to two per chain held back for up to this many chains ([`per_chain`]); beyond that too,
/// all at once.
pub(super) const MAX_RACE_RUNS: usize = 8;

/// A race whatever the steps it takes to flip it.
pub(super) type RaceKey = (ObjId, (bool, u32), simulation::Hold);

pub(super) fn race_key(r: &Race) -> RaceKey {
    (r.object, r.first, r.hold)
}

/// Per component: the sets of races to hold back together, one set per re-run.
pub(super) type FlipSets = BTreeMap<u32, Vec<Vec<Race>>>;

/// A component's races grouped by the chain each holds back, when there are too many to flip
/// one by one: each chain that got somewhere first gets there second in a re-run of its own,
/// which holding every chain back at once cannot show. Two re-runs per chain: every race of
/// the chain flipped (held back past its latest), and its closest race alone (the chain a step
/// late, say: its DELETE lands just after another chain's read while its own reads still come
/// before a third chain's writes). One set of all of them when even the chains are too many.
pub(super) fn per_chain(races: Vec<Race>) -> Vec<Vec<Race>> {
    let mut chains: BTreeMap<(bool, u32), Vec<Race>> = BTreeMap::new();
    for r in &races {
        chains.entry(r.first).or_default().push(*r);
    }
    if chains.len() > MAX_RACE_RUNS {
        return vec![races];
    }
    let mut out = Vec::new();
    for set in chains.into_values() {
        // The earliest: the chain's closest race alone (the smallest hold; of equal ones, one
        // request held before the whole chain's start).
        let earliest: Vec<Race> = set
            .iter()
            .min_by_key(|r| (r.by, r.hold == simulation::Hold::Start))
            .copied()
            .into_iter()
            .collect();
        let distinct = holding(&earliest) != holding(&set);
        out.push(set);
        if distinct {
            out.push(earliest);
        }
    }
    out
}

/// The delays that hold back every race of `races`.
fn holding(races: &[Race]) -> Delays {
    let mut d = Delays::default();
    for r in races {
        d.hold(r);
    }
    d
}

/// One re-run of [`flip`].
pub(super) struct Flipped {
    pub(super) run: Run,
    pub(super) scope: Scope,
    /// Per component: the races it held back.
    pub(super) held: BTreeMap<u32, Vec<Race>>,
}

/// The re-runs that flip `sets`: round `r` holds back the `r`-th set of every component, and
/// is scoped to those components.
pub(super) fn flip(
    gc: &GarbageCollector<'_>,
    comps: &Components,
    target: Option<u32>,
    sets: &FlipSets,
    run: impl Fn(&Delays, &Scope) -> Run + Sync,
) -> Vec<Flipped> {
    let rounds = sets.values().map(Vec::len).max().unwrap_or(0);
    let round = |round: usize| {
        let mut delays = Delays::default();
        let mut held = BTreeMap::new();
        for (&comp, v) in sets {
            if let Some(set) = v.get(round) {
                for r in set {
                    delays.hold(r);
                }
                held.insert(comp, set.clone());
            }
        }
        let scope = comps.scope(gc, held.keys().copied().chain(target));
        Flipped {
            run: run(&delays, &scope),
            scope,
            held,
        }
    };
    // The rounds are independent of one another: both sides of a fork take them.
    let tickets = Tickets::new(0, rounds);
    let out = if rounds > 1 {
        let (mut theirs, ours) = join(
            gc.fork,
            "flip-runs",
            || tickets.take_all(&round),
            || tickets.take_all(&round),
        );
        theirs.extend(ours);
        theirs
    } else {
        tickets.take_all(&round)
    };
    Tickets::in_order(out).into_iter().map(|(_, f)| f).collect()
}
