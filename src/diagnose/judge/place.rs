//! The decision under every judgement of a reference: which kind of break it is. For a
//! dangling reference that means asking where its UID lives, once: nowhere (GC001), not where
//! the GC looks but an object of that kind and name is there under another UID (GC002), in the
//! dependent's namespace under another kind or name (GC003), or in another namespace (GC004).
//! No words here; [`super`] words the break and the remedy catalogue fixes it.

use crate::diagnose::code::Code;
use crate::gc::{Dangling, GarbageCollector, RefClass};
use crate::model::{ObjId, OwnerRef, Sym};
use std::collections::HashMap;

/// The kind of break of one reference the GC does not accept as it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Break {
    /// GC014: the owner is being deleted in the foreground.
    Waiting {
        /// The owner.
        owner: ObjId,
    },
    /// GC001: nothing holds the UID, and the GC finds no owner by kind and name.
    Absent,
    /// GC002: nothing holds the UID, but an object of that kind and name is where the GC
    /// looks, under another UID: the owner was recreated.
    Recreated {
        /// The object the GC finds by kind and name.
        found: ObjId,
    },
    /// GC003: the UID belongs to an object where the GC looks (the dependent's namespace, or
    /// cluster scope), but the reference names another kind or name.
    Misnamed {
        /// The object that holds the UID.
        holder: ObjId,
    },
    /// GC004: the UID belongs to a namespaced object in another namespace than the dependent's:
    /// an ownerReference cannot cross namespaces.
    OtherNamespace {
        /// The object that holds the UID.
        holder: ObjId,
        /// What the GC finds by kind and name in the dependent's namespace, under another UID.
        found: Option<ObjId>,
    },
    /// GC005: a cluster-scoped object names a namespaced owner kind.
    InvalidScope,
    /// GC006: the apiVersion/kind is not served.
    Unresolvable {
        /// Why.
        reason: String,
    },
    /// GC022: the owner's name is not a path segment.
    Unrequestable {
        /// Why.
        reason: String,
    },
    /// GC007: the input cannot tell.
    Unknown {
        /// Why.
        reason: String,
    },
}

impl Break {
    /// The finding code of this kind of break.
    pub fn code(&self) -> Code {
        match self {
            Break::Waiting { .. } => Code::WaitingOwner,
            Break::Absent => Code::DanglingOwner,
            Break::Recreated { .. } => Code::OwnerUidMismatch,
            Break::Misnamed { .. } => Code::OwnerCoordinatesMismatch,
            Break::OtherNamespace { .. } => Code::CrossNamespaceOwner,
            Break::InvalidScope => Code::ClusterScopedDependentOfNamespacedOwner,
            Break::Unresolvable { .. } => Code::UnresolvableOwnerKind,
            Break::Unrequestable { .. } => Code::OwnerNameNotRequestable,
            Break::Unknown { .. } => Code::UnknownOwner,
        }
    }

    /// True when the GC counts the owner as gone (dangling) or going (foreground deletion):
    /// the references `attemptToDeleteItem` removes, or deletes the object for.
    pub fn owner_gone(&self) -> bool {
        matches!(
            self,
            Break::Waiting { .. }
                | Break::Absent
                | Break::Recreated { .. }
                | Break::Misnamed { .. }
                | Break::OtherNamespace { .. }
        )
    }

    /// The object that holds the reference's UID, where it is not the owner the reference
    /// reaches (GC003, GC004): the owner is alive, the reference just cannot reach it.
    pub fn holder(&self) -> Option<ObjId> {
        match self {
            Break::Misnamed { holder } | Break::OtherNamespace { holder, .. } => Some(*holder),
            _ => None,
        }
    }
}

/// Where a reference's UID lived when the input was written, for inputs whose objects get new
/// UIDs (`check apply`: each input object is created anew): source UID → the object created
/// from the one that held it.
pub type SourceUids = HashMap<String, ObjId>;

/// The break of reference `r` of `dependent`, which the GC classified `class`; `None` for a
/// solid reference. `source` names, for a UID nothing holds, the object that held it where the
/// input came from (see [`SourceUids`]).
pub fn break_of(
    gc: &GarbageCollector<'_>,
    dependent: ObjId,
    r: &OwnerRef,
    class: &RefClass,
    source: Option<&SourceUids>,
) -> Option<Break> {
    let namespace = gc.snap.store.object(dependent).namespace;
    break_in(gc, namespace, Some(dependent), r, class, source)
}

/// [`break_of`] for a dependent in `namespace` that the state may not hold (`history`: an
/// object the log acted on, which the snapshot beside it lacks). `dependent`, where the state
/// holds it, is never the holder of its own reference's UID.
pub fn break_in(
    gc: &GarbageCollector<'_>,
    namespace: Sym,
    dependent: Option<ObjId>,
    r: &OwnerRef,
    class: &RefClass,
    source: Option<&SourceUids>,
) -> Option<Break> {
    Some(match class {
        RefClass::Solid { .. } => return None,
        RefClass::Waiting { owner } => Break::Waiting { owner: *owner },
        RefClass::Dangling(d) => dangling(gc, namespace, dependent, r, *d, source),
        RefClass::InvalidScope => Break::InvalidScope,
        RefClass::Unresolvable { reason } => Break::Unresolvable {
            reason: reason.clone(),
        },
        RefClass::Unrequestable { reason } => Break::Unrequestable {
            reason: reason.clone(),
        },
        RefClass::Unknown { reason } => Break::Unknown {
            reason: reason.clone(),
        },
    })
}

fn dangling(
    gc: &GarbageCollector<'_>,
    namespace: Sym,
    dependent: Option<ObjId>,
    r: &OwnerRef,
    d: Dangling,
    source: Option<&SourceUids>,
) -> Break {
    let store = &gc.snap.store;
    let found = match d {
        Dangling::UidMismatch { found } => Some(found),
        Dangling::Absent => None,
    };
    let holder = store
        .by_uid(r.uid)
        .filter(|&h| Some(h) != dependent)
        .or_else(|| {
            // The object created from the one that held the UID in the source, unless it is
            // the one the GC finds by name (that is a recreated owner: GC002).
            source
                .and_then(|s| s.get(store.str(r.uid)).copied())
                .filter(|&h| Some(h) != dependent && Some(h) != found)
        });
    let Some(holder) = holder else {
        return match found {
            Some(found) => Break::Recreated { found },
            None => Break::Absent,
        };
    };
    let h = store.object(holder);
    if !h.namespace.is_empty() && h.namespace != namespace {
        Break::OtherNamespace { holder, found }
    } else {
        Break::Misnamed { holder }
    }
}
