//! The answer's rows: identical retries collapsed to one row with a count and a time span, and
//! a namespace's content, which the namespace controller deletes one resource at a time, one
//! row per namespace.
//!
//! A namespace stuck Terminating makes the namespace controller retry its collection
//! deletions — one per resource the cluster serves — for as long as it stays: hundreds of rows
//! that say the same thing.

use super::types::{ActorKind, History, Item, Key, ObjectRef, Spelt, Verb};
use std::collections::HashMap;

impl History {
    /// Collapses each run of identical actions on one target (same actor, action, object,
    /// cause and fate; a retry that took nothing more) into its first row, with the count
    /// and the last one's time; then the namespace controller's collection deletions of one
    /// namespace with one cause into one row naming their resources. The counts follow the
    /// rows.
    pub fn collapse(&mut self) {
        let items = std::mem::take(&mut self.items);
        let mut out: Vec<Item> = Vec::with_capacity(items.len());
        // Per target, actor and action: its last row, so that other actions in between do
        // not break a run of retries.
        let mut last_on: HashMap<(Key, String, Verb), usize> = HashMap::new();
        for it in items {
            let key = (it.object.key(), it.actor.user.clone(), it.action);
            if let Some(&r) = last_on.get(&key)
                && retry_of(&out[r], &it)
            {
                merge(&mut out[r], it);
                continue;
            }
            last_on.insert(key, out.len());
            out.push(it);
        }
        self.items = group_namespace_content(out);
        self.summary.count(&self.items);
    }
}

/// Adds row `b`'s actions to row `a` (which comes first).
fn merge(a: &mut Item, b: Item) {
    a.count += b.count;
    if b.last_us >= a.last_us {
        a.last = Some(b.last.unwrap_or(b.time));
        a.last_us = b.last_us;
    }
}

/// True when `b` repeats row `a`.
fn retry_of(a: &Item, b: &Item) -> bool {
    // Each start of the GC is a row of its own (controller-manager log).
    a.action != Verb::GcStart
        && a.actor == b.actor
        && a.action == b.action
        && a.object == b.object
        && a.cause == b.cause
        && a.after == b.after
        && (b.taken.is_empty() || a.taken == b.taken)
}

/// The namespace controller's collection deletions of one namespace, with one actor and one
/// cause, as one row at the first one's place: its object the namespace's content (no
/// resource, no name), its resources listed. A lone one stays as it is.
fn group_namespace_content(rows: Vec<Item>) -> Vec<Item> {
    let groupable = |it: &Item| {
        it.actor.kind == ActorKind::NamespaceController
            && it.action == Verb::DeleteCollection
            && !it.object.namespace.is_empty()
    };
    let mut members: HashMap<(String, String, Option<super::Cause>), Vec<usize>> = HashMap::new();
    for (i, it) in rows.iter().enumerate().filter(|(_, it)| groupable(it)) {
        members
            .entry((
                it.object.namespace.clone(),
                it.actor.user.clone(),
                it.cause.clone(),
            ))
            .or_default()
            .push(i);
    }
    let mut into: HashMap<usize, usize> = HashMap::new();
    for v in members.values().filter(|v| v.len() > 1) {
        for &i in v {
            into.insert(i, v[0]);
        }
    }
    if into.is_empty() {
        return rows;
    }
    let mut out: Vec<Item> = Vec::with_capacity(rows.len());
    let mut at: HashMap<usize, usize> = HashMap::new();
    for (i, mut it) in rows.into_iter().enumerate() {
        match into.get(&i) {
            Some(&first) if first != i => {
                let row = &mut out[at[&first]];
                row.resources.push(resource_name(&it.object));
                row.taken.append(&mut it.taken);
                merge(row, it);
            }
            Some(_) => {
                it.resources.push(resource_name(&it.object));
                it.object = ObjectRef {
                    namespace: std::mem::take(&mut it.object.namespace),
                    ..ObjectRef::default()
                };
                at.insert(i, out.len());
                out.push(it);
            }
            None => out.push(it),
        }
    }
    for it in &mut out {
        it.resources.sort();
        it.resources.dedup();
        it.taken.sort_by(|a, b| a.object.cmp(&b.object));
    }
    out
}

/// `plural`, or `plural.group`: kubectl's spelling of a resource, one per group.
fn resource_name(o: &ObjectRef) -> String {
    if o.group.is_empty() {
        o.resource.clone()
    } else {
        format!("{}.{}", o.resource, o.group)
    }
}
