//! Owners the log does not show deleted: why the GC found them absent — recreated in the log,
//! or what the GC model of the states around the log makes of the reference.

use super::cause::Cx;
use super::model::{Judged, RefText};
use super::types::{Cause, CauseKind, ObjectRef, Policy, Spelt, Verb, format_us};
use crate::model::ObjId;

impl Cx<'_> {
    /// Owner `owner` of item `i`'s reference `r`, not deleted in the window: why the GC
    /// acted. `dependent`: the object in the state before, where its references come from.
    pub(super) fn absent_owner(
        &self,
        i: usize,
        owner: &ObjectRef,
        r: RefText<'_>,
        dependent: Option<ObjId>,
    ) -> Cause {
        let it = &self.f.items[i];
        let evidence = self
            .f
            .absent_before(owner, it.time_us)
            .map(|t| format!("; the GC's GET of it answered 404 at {}", format_us(t)))
            .unwrap_or_default();
        let mut c = self.judged_absent(i, owner, r, dependent);
        c.detail.push_str(&evidence);
        c
    }

    fn judged_absent(
        &self,
        i: usize,
        owner: &ObjectRef,
        r: RefText<'_>,
        dependent: Option<ObjId>,
    ) -> Cause {
        let it = &self.f.items[i];
        if let Some((t, uid)) = self.f.recreated(owner, r.uid, it.time_us) {
            return Cause::new(
                CauseKind::OwnerUidMismatch,
                Some(owner.clone()),
                format!(
                    "{} was created at {} with UID {uid}, not the UID {} the reference names",
                    owner.display(),
                    format_us(t),
                    r.uid
                ),
            );
        }
        // The state before's object of the owner's name is the one the GC looked up only if
        // the log does not create that name again in between.
        if let Some(v) = &self.f.before
            && let Some(id) = v.index.find(owner)
        {
            let name_only = ObjectRef {
                uid: String::new(),
                ..owner.clone()
            };
            if let Some(why) = self
                .f
                .other_incarnation(&v.index, id, &name_only, it.time_us)
            {
                return Cause::unknown(format!(
                    "{why}: whether the owner existed when the GC acted is unknown"
                ));
            }
        }
        let Some((judged, view)) = self.f.judge(&it.object.namespace, dependent, r) else {
            return Cause::unknown(format!(
                "its owner {} was not deleted in the log's window: it was gone before the \
                 window, or never existed — a snapshot of the state before tells which",
                owner.display()
            ));
        };
        let where_ = view.place;
        match judged {
            Judged::Solid { owner: id } => self.present_owner(i, view, id, where_),
            Judged::Broken {
                kind,
                owner,
                detail,
            } => Cause::new(kind, Some(owner), detail),
            Judged::NoAction(why) => Cause::new(
                CauseKind::Unexplained,
                Some(owner.clone()),
                format!(
                    "the GC does not act on this reference ({why}): nothing in the inputs \
                     accounts for this GC action"
                ),
            ),
            Judged::Unknown(why) => Cause::unknown(format!(
                "its owner {} was not deleted in the log's window, and {why}: whether it \
                 existed is unknown",
                owner.display()
            )),
        }
    }

    /// The owner is there with the reference's UID (`where_`: in which state): being deleted
    /// (its deletion not in the log), or nothing accounts for the GC's action.
    fn present_owner(
        &self,
        i: usize,
        view: &super::facts::View<'_>,
        id: ObjId,
        where_: &str,
    ) -> Cause {
        let it = &self.f.items[i];
        let owner = view.model.obj(id);
        let store = &view.model.snap().store;
        let o = store.object(id);
        if !o.being_deleted() {
            return Cause::new(
                CauseKind::Unexplained,
                Some(owner.clone()),
                format!(
                    "its owner {} exists {where_} with this UID and no deletion of it is in \
                     the log: nothing in the inputs accounts for this GC action (a gap in the \
                     log, or a GC whose view was wrong)",
                    owner.display()
                ),
            );
        }
        // Its deletion is not in the log: before the window, or in a gap of it. The
        // finalizer the API server added for the policy shows which.
        let policy = if store.has_finalizer(id, "foregroundDeletion") {
            Policy::Foreground
        } else if store.has_finalizer(id, "orphan") {
            Policy::Orphan
        } else {
            Policy::Unknown
        };
        let kind = if policy == Policy::Orphan && it.action == Verb::RemoveOwnerReferences {
            CauseKind::Orphaned
        } else {
            CauseKind::OwnerDeleted
        };
        let mut c = Cause::new(
            kind,
            Some(owner.clone()),
            format!(
                "its owner {} is being deleted {where_} (deletionTimestamp {}), but the \
                 deletion is not in the log (before its window, or in a gap){}",
                owner.display(),
                store.str(o.deletion_timestamp),
                match policy {
                    Policy::Unknown => String::new(),
                    p => format!(
                        "; its {} finalizer shows propagationPolicy={}",
                        if p == Policy::Foreground {
                            "foregroundDeletion"
                        } else {
                            "orphan"
                        },
                        p.as_str()
                    ),
                }
            ),
        );
        c.policy = policy;
        c.policy_inferred = policy != Policy::Unknown;
        c
    }
}
