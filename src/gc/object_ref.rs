//! The one owned identity of an object, in every module: group, version, kind, resource,
//! namespace, name, uid (upstream's `objectReference` is the same identity: an
//! ownerReference's coordinates plus a namespace).
//!
//! Machine formats write it as `{apiVersion, kind, namespace, name, uid}` (`objectRef` in
//! `schemas/common.schema.json`: reports, the apply record, watch transitions); `why`'s
//! document writes it by API group instead ([`by_group`], `groupObjectRef` in
//! `schemas/why.schema.json`). People read it as [`model::spell_object`](crate::model::spell_object)
//! spells it (its `Display`).

use crate::model::ObjId;
use crate::snapshot::{Snapshot, split_api_version};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// [`ObjectRef::place`]: (group, kind in lower case, namespace, name).
pub type Place = (String, String, String, String);

/// An object: where it is served (group, version, plural resource), what it is (kind), and
/// which one (namespace, name, uid).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectRef {
    /// API group (`""` for core).
    pub group: String,
    /// API version (of the resource it was listed with, or that names it).
    pub version: String,
    /// Kind.
    pub kind: String,
    /// Plural resource name as served; `""` where the source does not say (a journal read
    /// back). Not written by [`Serialize`]: the apiVersion and kind identify the type.
    pub resource: String,
    /// Namespace, `""` when cluster-scoped.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// UID; `""` where unknown (an address to look an object up at).
    pub uid: String,
}

impl ObjectRef {
    /// The reference of a snapshot object, at the version it was listed with.
    pub fn of(snap: &Snapshot, id: ObjId) -> ObjectRef {
        let o = snap.store.object(id);
        let r = snap.resource_of(o);
        ObjectRef {
            group: r.group.clone(),
            version: r.version.clone(),
            kind: r.kind.clone(),
            resource: r.plural.clone(),
            namespace: snap.store.str(o.namespace).to_owned(),
            name: snap.store.str(o.name).to_owned(),
            uid: snap.store.str(o.uid).to_owned(),
        }
    }

    /// From the coordinates a report writes (`apiVersion`, kind, …); the resource is unknown.
    /// An apiVersion that does not parse is kept whole as the version, so it reads back as
    /// written.
    pub fn from_api_version(
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
        uid: &str,
    ) -> ObjectRef {
        let (group, version) = split_api_version(api_version).unwrap_or(("", api_version));
        ObjectRef {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
            resource: String::new(),
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            uid: uid.to_owned(),
        }
    }

    /// Where the object is, whatever version it is read at and whatever UID it has now:
    /// (group, kind in lower case — the GC's REST mapper takes either case —, namespace, name).
    /// A restored or recreated object is in the same place under a new UID.
    pub fn place(&self) -> Place {
        (
            self.group.clone(),
            self.kind.to_ascii_lowercase(),
            self.namespace.clone(),
            self.name.clone(),
        )
    }

    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// `Kind/name -n namespace`, or `Kind/name` when cluster-scoped: the one human spelling.
impl fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::model::spell_object(
            &self.kind,
            &self.name,
            &self.namespace,
        ))
    }
}

/// `{apiVersion, kind, namespace (omitted when cluster-scoped), name, uid}`.
impl Serialize for ObjectRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("ObjectRef", 5)?;
        st.serialize_field("apiVersion", &self.api_version())?;
        st.serialize_field("kind", &self.kind)?;
        if self.namespace.is_empty() {
            st.skip_field("namespace")?;
        } else {
            st.serialize_field("namespace", &self.namespace)?;
        }
        st.serialize_field("name", &self.name)?;
        st.serialize_field("uid", &self.uid)?;
        st.end()
    }
}

/// Reads what [`Serialize`] writes (a watch journal read back); the resource stays unknown.
impl<'de> Deserialize<'de> for ObjectRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire {
            api_version: String,
            kind: String,
            #[serde(default)]
            namespace: String,
            name: String,
            uid: String,
        }
        let w = Wire::deserialize(d)?;
        Ok(ObjectRef::from_api_version(
            &w.api_version,
            &w.kind,
            &w.namespace,
            &w.name,
            &w.uid,
        ))
    }
}

/// `why`'s spelling: `{group, kind, namespace (omitted when cluster-scoped), name, uid}`, for
/// `#[serde(serialize_with = "by_group::one")]` (and [`by_group::option`], [`by_group::list`]).
pub mod by_group {
    use super::ObjectRef;
    use serde::Serializer;
    use serde::ser::{SerializeSeq, SerializeStruct};

    struct View<'a>(&'a ObjectRef);

    impl serde::Serialize for View<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let o = self.0;
            let mut st = s.serialize_struct("GroupObjectRef", 5)?;
            st.serialize_field("group", &o.group)?;
            st.serialize_field("kind", &o.kind)?;
            if o.namespace.is_empty() {
                st.skip_field("namespace")?;
            } else {
                st.serialize_field("namespace", &o.namespace)?;
            }
            st.serialize_field("name", &o.name)?;
            st.serialize_field("uid", &o.uid)?;
            st.end()
        }
    }

    /// One object.
    pub fn one<S: Serializer>(o: &ObjectRef, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&View(o), s)
    }

    /// An optional object (with `skip_serializing_if = "Option::is_none"`).
    pub fn option<S: Serializer>(o: &Option<ObjectRef>, s: S) -> Result<S::Ok, S::Error> {
        match o {
            Some(o) => s.serialize_some(&View(o)),
            None => s.serialize_none(),
        }
    }

    /// A list of objects.
    pub fn list<S: Serializer>(v: &[ObjectRef], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(v.len()))?;
        for o in v {
            seq.serialize_element(&View(o))?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::ObjectRef;

    fn rs() -> ObjectRef {
        ObjectRef {
            group: "apps".into(),
            version: "v1".into(),
            kind: "ReplicaSet".into(),
            resource: "replicasets".into(),
            namespace: "shop".into(),
            name: "web".into(),
            uid: "u1".into(),
        }
    }

    #[test]
    fn both_spellings_keep_their_documented_shape() {
        let o = rs();
        assert_eq!(
            serde_json::to_string(&o).unwrap(),
            r#"{"apiVersion":"apps/v1","kind":"ReplicaSet","namespace":"shop","name":"web","uid":"u1"}"#
        );
        #[derive(serde::Serialize)]
        struct W<'a> {
            #[serde(serialize_with = "super::by_group::one")]
            o: &'a ObjectRef,
        }
        let mut cluster = rs();
        cluster.namespace.clear();
        assert_eq!(
            serde_json::to_string(&W { o: &cluster }).unwrap(),
            r#"{"o":{"group":"apps","kind":"ReplicaSet","name":"web","uid":"u1"}}"#
        );
        assert_eq!(o.to_string(), "ReplicaSet/web -n shop");
        assert_eq!(cluster.to_string(), "ReplicaSet/web");
    }

    #[test]
    fn reads_back_what_it_writes_but_the_resource() {
        let o = rs();
        let back: ObjectRef = serde_json::from_str(&serde_json::to_string(&o).unwrap()).unwrap();
        assert_eq!(back.resource, "");
        assert_eq!(
            ObjectRef {
                resource: o.resource.clone(),
                ..back
            },
            o
        );
        let core = ObjectRef::from_api_version("v1", "ConfigMap", "", "c", "u");
        assert_eq!(
            (core.group.as_str(), core.api_version().as_str()),
            ("", "v1")
        );
        let odd = ObjectRef::from_api_version("a/b/c", "K", "", "n", "u");
        assert_eq!(odd.api_version(), "a/b/c");
    }
}
