//! What a collection deletion took. `deletecollection` names no object: the state before
//! does — every object of that resource in that namespace (all namespaces for a collection
//! across them), less those the log shows deleted earlier, those an earlier collection took,
//! and those a finalizer held (a collection deletion only marks them).

use super::facts::Facts;
use super::index::SnapIndex;
use super::types::{Fate, ObjectRef, Taken, Verb};
use crate::model::ObjId;
use std::collections::HashSet;

/// The objects each collection deletion of the history took (empty for the other actions).
pub(super) fn taken(
    before: &SnapIndex<'_>,
    after: Option<&SnapIndex<'_>>,
    f: &Facts<'_>,
) -> Vec<Vec<Taken>> {
    let items = &f.items;
    let snap = before.snap;
    let store = &snap.store;
    let mut claimed: HashSet<ObjId> = HashSet::new();
    let mut out = vec![Vec::new(); items.len()];
    // The state's objects per resource, gathered once: a stuck namespace's collection is
    // retried hundreds of times.
    let mut by_resource: Vec<Vec<ObjId>> = vec![Vec::new(); snap.resources.len()];
    for id in store.ids() {
        if let Some(v) = by_resource.get_mut(store.object(id).resource.0 as usize) {
            v.push(id);
        }
    }
    for (i, it) in items.iter().enumerate() {
        if it.action != Verb::DeleteCollection {
            continue;
        }
        let a = f.acts[i];
        let labels = (!a.labels.is_empty())
            .then(|| crate::model::selector::Selector::parse(f.rec.str(a.labels)).ok());
        let fields = a.fields;
        let ids = snap
            .resources
            .iter()
            .zip(&by_resource)
            .filter(|(r, _)| r.group == it.object.group && r.plural == it.object.resource)
            .flat_map(|(_, ids)| ids.iter().copied());
        for id in ids {
            let o = store.object(id);
            let ns = store.str(o.namespace);
            if (!it.object.namespace.is_empty() && ns != it.object.namespace)
                || claimed.contains(&id)
                || !store.finalizers(id).is_empty()
            {
                continue;
            }
            match &labels {
                // A selector that does not parse says nothing of any object: skip none.
                Some(Some(sel)) if !sel.matches(store, id) => continue,
                _ => {}
            }
            let obj = ObjectRef::of(snap, id);
            let deleted_before = f.key(&obj).and_then(|k| f.by_key.get(&k)).is_some_and(|v| {
                v.iter().any(|&j| {
                    items[j].action == Verb::Delete
                        && items[j].time_us <= it.time_us
                        && (items[j].object.uid.is_empty() || items[j].object.uid == obj.uid)
                })
            });
            if deleted_before {
                continue;
            }
            let fate = after.map_or(Fate::Unknown, |a| a.fate(&obj, it.time_us));
            let sure = match fate {
                // Still there (or held) after the log: this collection did not take it.
                Fate::Present | Fate::Terminating => continue,
                _ if fields || matches!(labels, Some(None)) => "possible",
                Fate::Gone | Fate::Recreated => "confirmed",
                Fate::Unknown => "likely",
            };
            claimed.insert(id);
            out[i].push(Taken { object: obj, sure });
        }
        out[i].sort_by(|a, b| a.object.cmp(&b.object));
    }
    out
}
