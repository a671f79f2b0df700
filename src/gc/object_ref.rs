//! The owned-string form of an object's identity, as reports and the apply record write it:
//! `{apiVersion, kind, namespace, name, uid}` (upstream's `objectReference` is the same
//! identity: an ownerReference's coordinates plus a namespace).

use crate::model::ObjId;
use crate::snapshot::Snapshot;
use serde::Serialize;

/// An object reference in reports and records: `{apiVersion, kind, namespace, name, uid}`.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    /// apiVersion of the object's resource.
    pub api_version: String,
    /// kind.
    pub kind: String,
    /// namespace (omitted when cluster-scoped).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// name.
    pub name: String,
    /// uid.
    pub uid: String,
}

impl ObjectRef {
    /// The reference of a snapshot object.
    pub fn of(snap: &Snapshot, id: ObjId) -> ObjectRef {
        let o = snap.store.object(id);
        let r = snap.resource_of(o);
        ObjectRef {
            api_version: r.api_version(),
            kind: r.kind.clone(),
            namespace: snap.store.str(o.namespace).to_owned(),
            name: snap.store.str(o.name).to_owned(),
            uid: snap.store.str(o.uid).to_owned(),
        }
    }
}
