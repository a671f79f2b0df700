//! The answer's rows: identical retries collapsed to one row with a count and a time span.
//!
//! A namespace stuck Terminating makes the namespace controller retry its collection
//! deletions for as long as it stays: hundreds of rows that say the same thing.

use super::{History, Item, Key};
use std::collections::HashMap;

impl History {
    /// Collapses each run of identical actions on one target (same actor, action, object,
    /// cause and fate; a retry that took nothing more) into its first row, with the count
    /// and the last one's time; the counts follow the rows.
    pub fn collapse(&mut self) {
        let items = std::mem::take(&mut self.items);
        let mut out: Vec<Item> = Vec::with_capacity(items.len());
        // Per target, actor and action: its last row, so that other actions in between do
        // not break a run of retries.
        let mut last_on: HashMap<(Key, String, &'static str), usize> = HashMap::new();
        for it in items {
            let key = (it.object.key(), it.actor.user.clone(), it.action);
            if let Some(&r) = last_on.get(&key)
                && retry_of(&out[r], &it)
            {
                let row = &mut out[r];
                row.count += it.count;
                row.last = Some(it.last.unwrap_or(it.time));
                row.last_us = it.last_us;
                continue;
            }
            last_on.insert(key, out.len());
            out.push(it);
        }
        self.items = out;
        self.summary.count(&self.items);
    }
}

/// True when `b` repeats row `a`.
fn retry_of(a: &Item, b: &Item) -> bool {
    // Each start of the GC is a row of its own (controller-manager log).
    a.action != "gc-start"
        && a.actor == b.actor
        && a.action == b.action
        && a.object == b.object
        && a.cause == b.cause
        && a.after == b.after
        && (b.taken.is_empty() || a.taken == b.taken)
}
