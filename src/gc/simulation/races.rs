//! Race detection: every read and effective write is logged with its causal chain and step;
//! a read of an object another chain writes within [`RACE_HORIZON`] steps is a [`Race`]
//! (see the module doc of [`super`] for why chains race). Kept apart from the workers, which
//! only log.

use super::{Hold, Item, RACE_HORIZON, Race, Read, Sim};
use crate::model::ObjId;
use hashbrown::{HashMap, HashSet};

impl Sim<'_, '_> {
    pub(super) fn mark_read(&mut self, obj: ObjId, it: &Item) {
        self.log_read(obj, it, false);
    }

    /// An owner GET of `isDangling`.
    pub(super) fn mark_owner_get(&mut self, obj: ObjId, it: &Item) {
        self.log_read(obj, it, true);
    }

    fn log_read(&mut self, object: ObjId, it: &Item, owner_get: bool) {
        self.read_log.push(Read {
            object,
            chain: it.chain,
            step: self.step,
            owner_get,
            item: it.id,
            started: it.started,
        });
    }

    /// Reads of an object written by another chain within [`RACE_HORIZON`] steps.
    pub(super) fn races(&self) -> Vec<Race> {
        if self.write_log.is_empty() {
            return Vec::new();
        }
        let mut writes: HashMap<ObjId, Vec<(u32, u32, u32)>> = HashMap::new();
        for &(o, c, t, item) in &self.write_log {
            writes.entry(o).or_default().push((c, t, item));
        }
        let mut out: HashSet<Race> = HashSet::new();
        for r in &self.read_log {
            let Some(ws) = writes.get(&r.object) else {
                continue;
            };
            let Some(&root) = self.roots.get(&r.chain) else {
                continue;
            };
            let (o, rt) = (r.object, r.step);
            for &(wc, wt, witem) in ws {
                if witem == r.item || rt.abs_diff(wt) > RACE_HORIZON {
                    continue;
                }
                if wc == r.chain {
                    // Two items of one chain: unordered when the reader started before the
                    // write (so the write did not cause it). Holding back the chain would
                    // hold back both; the later request of the two is held instead.
                    if r.started > wt {
                        continue;
                    }
                    if wt <= rt {
                        out.insert(Race {
                            object: o,
                            first: root,
                            by: rt - wt + 1,
                            hold: Hold::Write,
                        });
                    } else if r.owner_get {
                        out.insert(Race {
                            object: o,
                            first: root,
                            by: wt - rt + 1,
                            hold: Hold::Read,
                        });
                    }
                    continue;
                }
                // Hold back whichever chain got there first.
                let (first, by) = if wt <= rt {
                    (wc, rt - wt + 1)
                } else {
                    (r.chain, wt - rt + 1)
                };
                let Some(&first) = self.roots.get(&first) else {
                    continue;
                };
                let race = Race {
                    object: o,
                    first,
                    by,
                    hold: Hold::Start,
                };
                out.insert(race);
                // A writer that got there first can get there second by itself too: the
                // write alone is late (it costs more than a GET, and etcd commits it), while
                // the chain's reads before it keep their time.
                if wt <= rt {
                    out.insert(Race {
                        hold: Hold::Write,
                        ..race
                    });
                }
                // A reader that got there first with an owner GET can also get there second
                // by itself: its worker is slow between two of its round trips, and what it
                // read before stays read.
                if wt > rt && r.owner_get {
                    out.insert(Race {
                        hold: Hold::Read,
                        ..race
                    });
                }
            }
        }
        // A row-1 check soon after a DELETE made the object terminating (the same chain's
        // included: the worker has the DELETE's response before the graph builder has its
        // watch event) may find the graph from before.
        // An object becomes terminating once (one-way), so one step per object.
        let terminating: HashMap<ObjId, u32> = self.terminating_log.iter().copied().collect();
        for &(o, rc, rt) in &self.row1_log {
            let stale = terminating
                .get(&o)
                .is_some_and(|&wt| wt <= rt && rt - wt <= RACE_HORIZON);
            if stale && let Some(&root) = self.roots.get(&rc) {
                out.insert(Race {
                    object: o,
                    first: root,
                    by: 0,
                    hold: Hold::StaleGraph,
                });
            }
        }
        let mut out: Vec<Race> = out.into_iter().collect();
        out.sort();
        out
    }
}
