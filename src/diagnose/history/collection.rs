//! What a collection deletion took. `deletecollection` names no object: the state before
//! does — every object of that resource in that namespace (all namespaces for a collection
//! across them), less those the log shows deleted earlier, those an earlier collection took,
//! and those a finalizer held (a collection deletion only marks them).

use super::index::SnapIndex;
use super::{Item, Key, Obj, Taken};
use crate::model::ObjId;
use crate::source::audit::AuditEvent;
use std::collections::{HashMap, HashSet};

/// The objects each collection deletion of `items` took (empty for the other actions).
pub(super) fn taken(
    before: &SnapIndex<'_>,
    after: Option<&SnapIndex<'_>>,
    items: &[Item],
    sources: &[&AuditEvent],
    by_key: &HashMap<Key, Vec<usize>>,
) -> Vec<Vec<Taken>> {
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
        if it.action != "delete-collection" {
            continue;
        }
        let query = sources[i]
            .request_uri
            .split_once('?')
            .map_or("", |(_, q)| q);
        let labels =
            param(query, "labelSelector").map(|s| crate::model::selector::Selector::parse(&s).ok());
        let fields = param(query, "fieldSelector").is_some_and(|s| !s.is_empty());
        let ids = snap
            .resources
            .iter()
            .zip(&by_resource)
            .filter(|(r, _)| r.group == it.object.group && r.plural == it.object.resource)
            .flat_map(|(_, ids)| ids.iter().copied());
        for id in ids {
            let o = store.object(id);
            let res = &snap.resources[o.resource.0 as usize];
            let ns = store.str(o.namespace);
            if res.group != it.object.group
                || res.plural != it.object.resource
                || (!it.object.namespace.is_empty() && ns != it.object.namespace)
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
            let obj = Obj {
                group: res.group.clone(),
                resource: res.plural.clone(),
                namespace: ns.to_owned(),
                name: store.str(o.name).to_owned(),
                uid: Some(store.str(o.uid).to_owned()),
            };
            let deleted_before = by_key.get(&obj.key()).is_some_and(|v| {
                v.iter().any(|&j| {
                    items[j].action == "delete"
                        && items[j].time_us <= it.time_us
                        && items[j]
                            .object
                            .uid
                            .as_deref()
                            .is_none_or(|u| Some(u) == obj.uid.as_deref())
                })
            });
            if deleted_before {
                continue;
            }
            let fate = after.map_or("unknown", |a| a.fate(&obj, it.time_us));
            let sure = match fate {
                // Still there (or held) after the log: this collection did not take it.
                "present" | "terminating" => continue,
                _ if fields || matches!(labels, Some(None)) => "possible",
                "gone" | "recreated" => "confirmed",
                _ => "likely",
            };
            claimed.insert(id);
            out[i].push(Taken { object: obj, sure });
        }
        out[i].sort_by(|a, b| a.object.cmp(&b.object));
    }
    out
}

/// The percent-decoded value of `key` in a query string.
fn param(query: &str, key: &str) -> Option<String> {
    let raw = query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)?
        .1;
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}
