//! Owners the log does not show deleted: what the states around it say of them.

use super::cause::{Cx, OwnerKey, other_incarnation};
use super::*;

impl Cx<'_> {
    /// An owner not deleted in the window: why the GC found it absent. The state before
    /// proves most (what existed then); the state after proves what still exists — an owner
    /// with the reference's UID that exists after the GC's action existed during it.
    pub(super) fn absent_owner_cause(&self, k: &OwnerKey, it: &Item) -> Cause {
        let key = k.obj.key();
        let evidence = self
            .gc_404
            .get(&key)
            .filter(|t| **t <= it.time_us)
            .map(|t| format!("; the GC's GET of it answered 404 at {}", format_us(*t)))
            .unwrap_or_default();
        let with = |type_, policy, detail: String| Cause {
            type_,
            owner: Some(k.obj.clone()),
            policy,
            root: None,
            detail: format!("{detail}{evidence}"),
        };
        let recreated = self.created.get(&key).and_then(|v| {
            v.iter()
                .find_map(|(t, u)| u.clone().filter(|u| *u != k.uid).map(|u| (*t, u)))
        });
        if let Some((t, uid)) = recreated {
            return with(
                "stale-owner-uid",
                "unknown",
                format!(
                    "{} was created at {} with UID {uid}, not the UID {} the reference names",
                    k.obj.display(),
                    format_us(t),
                    k.uid
                ),
            );
        }
        // The state before's object of the owner's name is the one the GC looked up only if
        // the log does not create that name again in between.
        if let Some(index) = self.index
            && let Some(id) = index.find(&k.obj)
        {
            let name_only = Obj {
                uid: None,
                ..k.obj.clone()
            };
            if let Some(why) = other_incarnation(index, id, &name_only, it.time_us, self.created) {
                return with(
                    "unknown",
                    "unknown",
                    format!("{why}: whether the owner existed when the GC acted is unknown"),
                );
            }
        }
        let mut unread = None;
        if let (Some(_), Some(index)) = (self.before, self.index) {
            if let Some(c) = self.owner_in(index, k, it, "in the snapshot before", &with) {
                return c;
            }
            if index.covers(&k.obj) {
                return with(
                    "dangling-owner",
                    "unknown",
                    format!(
                        "its owner {} (UID {}) is neither in the snapshot of the state before \
                         nor created in the log: the reference never pointed at anything there",
                        k.obj.display(),
                        k.uid
                    ),
                );
            }
            unread = Some(format!(
                "the snapshot before did not read {} in {}",
                k.obj.resource,
                if k.obj.namespace.is_empty() {
                    "the cluster scope"
                } else {
                    k.obj.namespace.as_str()
                }
            ));
        }
        if let Some(index) = self.after_index {
            if let Some(c) = self.owner_in(index, k, it, "in the state after", &with) {
                return c;
            }
            if index.covers(&k.obj) && unread.is_none() {
                return with(
                    "unknown",
                    "unknown",
                    format!(
                        "its owner {} (UID {}) was not deleted in the log's window and is not in the state after either: it was gone before the window, or never existed — a snapshot of the state before tells which",
                        k.obj.display(),
                        k.uid
                    ),
                );
            }
        }
        with(
            "unknown",
            "unknown",
            match unread {
                Some(why) => format!(
                    "its owner {} was not deleted in the log's window, and {why}: whether it existed is unknown",
                    k.obj.display()
                ),
                None => format!(
                    "its owner {} was not deleted in the log's window: it was gone before the window, or never existed — a snapshot of the state before tells which",
                    k.obj.display()
                ),
            },
        )
    }

    /// What a state (`when`: before or after the log) says of owner `k`: there under another
    /// UID (stale), there with this UID (so the GC's action is unexplained — unless it was
    /// already being deleted), or in another namespace (cross-namespace). `None`: not there.
    fn owner_in(
        &self,
        index: &SnapIndex<'_>,
        k: &OwnerKey,
        it: &Item,
        when: &str,
        with: &dyn Fn(&'static str, &'static str, String) -> Cause,
    ) -> Option<Cause> {
        let store = &index.snap.store;
        if let Some(found) = index.find(&k.obj) {
            let o = store.object(found);
            let uid = store.str(o.uid);
            if uid != k.uid {
                return Some(with(
                    "stale-owner-uid",
                    "unknown",
                    format!(
                        "{} exists {when} with UID {uid}, not the UID {} the reference names: the owner was recreated under the same name",
                        k.obj.display(),
                        k.uid
                    ),
                ));
            }
            if o.being_deleted() {
                // Its deletion is not in the log: before the window, or in a gap of it.
                let fins: Vec<&str> = store
                    .finalizers(found)
                    .iter()
                    .map(|f| store.str(*f))
                    .collect();
                let policy = if fins.contains(&"foregroundDeletion") {
                    "Foreground"
                } else if fins.contains(&"orphan") {
                    "Orphan"
                } else {
                    "unknown"
                };
                let type_ = if policy == "Orphan" && it.action == "remove-owner-references" {
                    "orphaned"
                } else {
                    "owner-deleted"
                };
                return Some(with(
                    type_,
                    policy,
                    format!(
                        "its owner {} is being deleted {when} (deletionTimestamp {}), but the deletion is not in the log (before its window, or in a gap)",
                        k.obj.display(),
                        store.str(o.deletion_timestamp)
                    ),
                ));
            }
            return Some(with(
                "unexplained",
                "unknown",
                format!(
                    "its owner {} exists {when} with this UID and no deletion of it is in the \
                     log: nothing in the inputs accounts for this GC action (a gap in the log, \
                     or a GC whose view was wrong)",
                    k.obj.display()
                ),
            ));
        }
        let elsewhere = index.by_uid(&k.uid)?;
        let ns = store.str(store.object(elsewhere).namespace);
        Some(with(
            "cross-namespace-owner",
            "unknown",
            format!(
                "the owner with UID {} is {when} in {}, but the GC looks only in the dependent's namespace {}: ownerReferences cannot cross namespaces",
                k.uid,
                if ns.is_empty() {
                    "the cluster scope".to_owned()
                } else {
                    format!("namespace {ns}")
                },
                it.object.namespace
            ),
        ))
    }
}
