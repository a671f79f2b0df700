//! Race detection: every read and effective write is logged with its causal chain and step;
//! a read of an object another chain writes within [`RACE_HORIZON`] steps is a [`Race`]
//! (see the module doc of [`super`] for why chains race). Kept apart from the workers, which
//! only log.

use super::{RACE_HORIZON, Race, Sim};
use crate::model::ObjId;
use hashbrown::{HashMap, HashSet};

impl Sim<'_, '_> {
    pub(super) fn mark_read(&mut self, obj: ObjId, chain: u32) {
        self.read_log.push((obj, chain, self.step));
    }

    /// Reads of an object written by another chain within [`RACE_HORIZON`] steps.
    pub(super) fn races(&self) -> Vec<Race> {
        if self.write_log.is_empty() {
            return Vec::new();
        }
        let mut writes: HashMap<ObjId, Vec<(u32, u32)>> = HashMap::new();
        for &(o, c, t) in &self.write_log {
            writes.entry(o).or_default().push((c, t));
        }
        let mut out: HashSet<Race> = HashSet::new();
        for &(o, rc, rt) in &self.read_log {
            let Some(ws) = writes.get(&o) else { continue };
            for &(wc, wt) in ws {
                if wc == rc || rt.abs_diff(wt) > RACE_HORIZON {
                    continue;
                }
                // Hold back whichever chain got there first.
                let (first, by) = if wt <= rt {
                    (wc, rt - wt + 1)
                } else {
                    (rc, wt - rt + 1)
                };
                if let Some(&root) = self.roots.get(&first) {
                    out.insert(Race {
                        object: o,
                        first: root,
                        by,
                    });
                }
            }
        }
        let mut out: Vec<Race> = out.into_iter().collect();
        out.sort_by_key(|r| (r.object, r.first, r.by));
        out
    }
}
