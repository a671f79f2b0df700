//! The states around the log, indexed: objects by coordinates and by UID.

use super::types::{Fate, ObjectRef};
use crate::snapshot::Snapshot;
use std::collections::HashMap;

/// The snapshot's objects by coordinates: one pass over the store, keyed by interned symbols
/// (no string is copied), so each lookup of the history is a hash probe.
pub struct SnapIndex<'s> {
    pub(super) snap: &'s Snapshot,
    by_resource: HashMap<(&'s str, &'s str), Vec<crate::model::ResourceId>>,
    objects: HashMap<
        (
            crate::model::ResourceId,
            crate::model::Sym,
            crate::model::Sym,
        ),
        crate::model::ObjId,
    >,
}

impl<'s> SnapIndex<'s> {
    /// Indexes `snap` (one pass over its store).
    pub fn new(snap: &'s Snapshot) -> Self {
        let mut by_resource: HashMap<(&str, &str), Vec<crate::model::ResourceId>> = HashMap::new();
        for (i, r) in snap.resources.iter().enumerate() {
            by_resource
                .entry((r.group.as_str(), r.plural.as_str()))
                .or_default()
                .push(crate::model::ResourceId(i as u32));
        }
        let store = &snap.store;
        let objects = store
            .ids()
            .map(|id| {
                let o = store.object(id);
                ((o.resource, o.namespace, o.name), id)
            })
            .collect();
        SnapIndex {
            snap,
            by_resource,
            objects,
        }
    }

    /// True when the snapshot read every object of `o`'s resource in `o`'s namespace: only
    /// then is an object it does not hold absent rather than unknown.
    pub(super) fn covers(&self, o: &ObjectRef) -> bool {
        self.covers_at(&o.group, &o.resource, &o.namespace)
    }

    pub(super) fn covers_at(&self, group: &str, resource: &str, namespace: &str) -> bool {
        self.by_resource.get(&(group, resource)).is_some_and(|rs| {
            rs.iter()
                .any(|r| self.snap.resources[r.0 as usize].list.covers(namespace))
        })
    }

    /// What became of `o`, acted on at `at_us`, in this (later) state: `gone`,
    /// `terminating`, `present`, `recreated` (another UID at its coordinates — or, where the
    /// log names no UID, an object created after the action) or `unknown` (not read).
    pub(super) fn fate(&self, o: &ObjectRef, at_us: i64) -> Fate {
        let store = &self.snap.store;
        match self.find(o) {
            Some(id) => {
                let obj = store.object(id);
                let recreated = match o.uid.as_str() {
                    "" => crate::snapshot::parse_rfc3339(&store.timestamp(obj.creation_timestamp))
                        .is_some_and(|created| created * 1_000_000 > at_us),
                    u => u != store.str(obj.uid),
                };
                if recreated {
                    Fate::Recreated
                } else if obj.being_deleted() {
                    Fate::Terminating
                } else {
                    Fate::Present
                }
            }
            None if self.covers(o) => Fate::Gone,
            None => Fate::Unknown,
        }
    }

    /// The snapshot object at these coordinates.
    pub fn find(&self, o: &ObjectRef) -> Option<crate::model::ObjId> {
        self.find_at(&o.group, &o.resource, &o.namespace, &o.name)
    }

    pub(super) fn find_at(
        &self,
        group: &str,
        resource: &str,
        namespace: &str,
        name: &str,
    ) -> Option<crate::model::ObjId> {
        let strings = &self.snap.store.strings;
        let ns = if namespace.is_empty() {
            crate::model::Sym::EMPTY
        } else {
            strings.get(namespace)?
        };
        let name = strings.get(name)?;
        self.by_resource
            .get(&(group, resource))?
            .iter()
            .find_map(|&r| self.objects.get(&(r, ns, name)).copied())
    }
}
