//! Borrowing deserialisation of `metadata` as every input carries it (API list pages, `kubectl
//! get -o json|yaml`, our snapshot format). Strings borrow from the input buffer where the JSON
//! has no escapes, so parsing a page allocates almost nothing before interning.

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// The subset of `ObjectMeta` the GC (and kubectl-gc) reads. Unknown fields are skipped.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct MetaIn<'a> {
    /// `namespace` (empty when cluster-scoped).
    #[serde(borrow, default, deserialize_with = "null_as_empty")]
    pub namespace: Cow<'a, str>,
    /// `name`.
    #[serde(borrow, default, deserialize_with = "null_as_empty")]
    pub name: Cow<'a, str>,
    /// `uid`.
    #[serde(borrow, default, deserialize_with = "null_as_empty")]
    pub uid: Cow<'a, str>,
    /// `resourceVersion`.
    #[serde(borrow, default, deserialize_with = "null_as_empty")]
    pub resource_version: Cow<'a, str>,
    /// `creationTimestamp`.
    #[serde(borrow, default, deserialize_with = "null_as_empty")]
    pub creation_timestamp: Cow<'a, str>,
    /// `deletionTimestamp`.
    #[serde(borrow, default, deserialize_with = "opt_cow")]
    pub deletion_timestamp: Option<Cow<'a, str>>,
    /// `finalizers`.
    #[serde(borrow, default, deserialize_with = "vec_cow")]
    pub finalizers: Vec<Cow<'a, str>>,
    /// `labels`, in input order.
    #[serde(borrow, default)]
    pub labels: Labels<'a>,
    /// `ownerReferences`.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub owner_references: Vec<OwnerRefIn<'a>>,
    /// The value of the `kubectl-gc.io/ignore` annotation (finding codes to suppress); the
    /// other annotations are skipped without being copied.
    #[serde(
        borrow,
        default,
        rename = "annotations",
        deserialize_with = "ignore_annotation"
    )]
    pub ignore: Option<Cow<'a, str>>,
}

/// The annotation that suppresses findings on an object: a comma-separated list of codes
/// (`GC004,GC013`) or `all`.
pub const IGNORE_ANNOTATION: &str = "kubectl-gc.io/ignore";

/// One input `ownerReferences` entry.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub struct OwnerRefIn<'a> {
    /// `apiVersion`.
    #[serde(borrow, default, deserialize_with = "null_as_empty")]
    pub api_version: Cow<'a, str>,
    /// `kind`.
    #[serde(borrow, default, deserialize_with = "null_as_empty")]
    pub kind: Cow<'a, str>,
    /// `name`.
    #[serde(borrow, default, deserialize_with = "null_as_empty")]
    pub name: Cow<'a, str>,
    /// `uid`.
    #[serde(borrow, default, deserialize_with = "null_as_empty")]
    pub uid: Cow<'a, str>,
    /// `controller`.
    #[serde(default)]
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`.
    #[serde(default)]
    pub block_owner_deletion: Option<bool>,
}

/// Labels as an ordered list of pairs (a map in the input).
#[derive(Debug, Default, Clone)]
pub struct Labels<'a>(pub Vec<(Cow<'a, str>, Cow<'a, str>)>);

impl<'de: 'a, 'a> Deserialize<'de> for Labels<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Labels<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of labels")
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Labels::default())
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Labels::default())
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_map(self)
            }
            fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
                let mut out = Vec::with_capacity(m.size_hint().unwrap_or(4));
                while let Some((k, v)) = m.next_entry::<CowStr<'a>, LabelValue<'a>>()? {
                    out.push((k.0, v.0));
                }
                Ok(Labels(out))
            }
        }
        d.deserialize_option(V(std::marker::PhantomData))
    }
}

/// A label value; YAML inputs sometimes carry unquoted numbers or booleans, which kubectl
/// would have rejected but dumps written by other tools contain. Accept them as text.
struct LabelValue<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for LabelValue<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = LabelValue<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a label value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(LabelValue(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(LabelValue(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(LabelValue(Cow::Owned(v)))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
                Ok(LabelValue(Cow::Owned(v.to_string())))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
                Ok(LabelValue(Cow::Owned(v.to_string())))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
                Ok(LabelValue(Cow::Owned(v.to_string())))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
                Ok(LabelValue(Cow::Owned(v.to_string())))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(LabelValue(Cow::Borrowed("")))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A string that borrows from the input when it can (serde's own `Cow` impl always copies).
struct CowStr<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for CowStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = CowStr<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

fn null_as_empty<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Cow<'a, str>, D::Error> {
    Ok(Option::<CowStr<'a>>::deserialize(d)?
        .map(|c| c.0)
        .unwrap_or_default())
}

fn opt_cow<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'a, str>>, D::Error> {
    Ok(Option::<CowStr<'a>>::deserialize(d)?.map(|c| c.0))
}

fn vec_cow<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Vec<Cow<'a, str>>, D::Error> {
    Ok(Option::<Vec<CowStr<'a>>>::deserialize(d)?
        .unwrap_or_default()
        .into_iter()
        .map(|c| c.0)
        .collect())
}

fn ignore_annotation<'de: 'a, 'a, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Cow<'a, str>>, D::Error> {
    struct V<'a>(std::marker::PhantomData<&'a ()>);
    impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
        type Value = Option<Cow<'a, str>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a map of annotations")
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
        fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
            let mut out = None;
            while let Some(k) = m.next_key::<CowStr<'a>>()? {
                if k.0 == IGNORE_ANNOTATION {
                    out = Some(m.next_value::<LabelValue<'a>>()?.0);
                } else {
                    m.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            Ok(out)
        }
    }
    d.deserialize_option(V(std::marker::PhantomData))
}

fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// The lists of the last object's metadata, emptied, for the next object to fill. A reader
/// that parses a million objects one after another otherwise does a `malloc` and a `free` per
/// list per object (finalizers, labels, owner references) on its parsing thread, which sets
/// the read's pace. The lists are kept without their lifetime ([`relife`]), so each object may
/// borrow from its own text.
#[derive(Default)]
pub struct MetaLists {
    finalizers: Vec<Cow<'static, str>>,
    labels: Vec<(Cow<'static, str>, Cow<'static, str>)>,
    refs: Vec<OwnerRefIn<'static>>,
}

/// Lists longer than this are not kept: one odd object does not pin its memory for the rest.
const KEEP_UP_TO: usize = 64;

impl MetaLists {
    /// Takes back the lists of `meta` (which is done with), emptied.
    pub fn keep(&mut self, meta: &mut MetaIn<'_>) {
        keep(&mut self.finalizers, &mut meta.finalizers);
        keep(&mut self.labels, &mut meta.labels.0);
        keep(&mut self.refs, &mut meta.owner_references);
    }

    /// An empty list for finalizers: the one kept, if any.
    pub fn finalizers<'t>(&mut self) -> Vec<Cow<'t, str>> {
        relife(std::mem::take(&mut self.finalizers))
    }

    /// An empty list for labels: the one kept, if any.
    pub fn labels<'t>(&mut self) -> Vec<(Cow<'t, str>, Cow<'t, str>)> {
        relife(std::mem::take(&mut self.labels))
    }

    /// An empty list for owner references: the one kept, if any.
    pub fn owner_refs<'t>(&mut self) -> Vec<OwnerRefIn<'t>> {
        relife(std::mem::take(&mut self.refs))
    }

    /// The capacities kept (finalizers, labels, owner references), for tests.
    #[cfg(test)]
    pub(crate) fn capacities(&self) -> (usize, usize, usize) {
        (
            self.finalizers.capacity(),
            self.labels.capacity(),
            self.refs.capacity(),
        )
    }
}

/// Moves `from`'s allocation, emptied, into `to` when it is small enough and `to` has none.
fn keep<T, U>(to: &mut Vec<T>, from: &mut Vec<U>) {
    if to.capacity() == 0 && from.capacity() <= KEEP_UP_TO {
        *to = relife(std::mem::take(from));
    }
}

/// The allocation of `v`, emptied, as a vector of another type: the same type under another
/// lifetime here, whose layout is the same, so the standard library's in-place collection
/// keeps the allocation (for other layouts it would return a fresh, unallocated vector).
fn relife<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

/// The metadata two copies of one object disagree on, among what kubectl-gc reads (UIDs
/// aside: the caller knows whether they are the same): `namespace`, `name`,
/// `deletionTimestamp`, `finalizers`, `labels` (as a set), `ownerReferences` (in order, every
/// field) and the `kubectl-gc.io/ignore` annotation. Empty when they agree.
pub fn differences(a: &MetaIn<'_>, b: &MetaIn<'_>) -> Vec<&'static str> {
    let mut out = Vec::new();
    if a.namespace != b.namespace {
        out.push("namespace");
    }
    if a.name != b.name {
        out.push("name");
    }
    if a.deletion_timestamp.is_some() != b.deletion_timestamp.is_some() {
        out.push("deletionTimestamp");
    }
    if a.finalizers != b.finalizers {
        out.push("finalizers");
    }
    fn sorted<'l>(l: &'l Labels<'_>) -> Vec<(&'l str, &'l str)> {
        let mut v: Vec<(&str, &str)> = l.0.iter().map(|(k, v)| (&**k, &**v)).collect();
        v.sort_unstable();
        v
    }
    if sorted(&a.labels) != sorted(&b.labels) {
        out.push("labels");
    }
    let refs = |m: &MetaIn<'_>| {
        m.owner_references
            .iter()
            .map(|r| {
                (
                    r.api_version.to_string(),
                    r.kind.to_string(),
                    r.name.to_string(),
                    r.uid.to_string(),
                    r.controller,
                    r.block_owner_deletion,
                )
            })
            .collect::<Vec<_>>()
    };
    if refs(a) != refs(b) {
        out.push("ownerReferences");
    }
    if a.ignore != b.ignore {
        out.push("annotations");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_full_metadata_and_borrows() {
        let json = r#"{"namespace":"ns1","name":"pod-a","uid":"u1","resourceVersion":"42",
            "creationTimestamp":"2024-01-01T00:00:00Z","deletionTimestamp":"2024-01-02T00:00:00Z",
            "finalizers":["foregroundDeletion","x/y"],"labels":{"app":"web","tier":"1"},
            "managedFields":[{"manager":"kubectl"}],
            "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u0",
              "controller":true,"blockOwnerDeletion":false}]}"#;
        let m: MetaIn = serde_json::from_str(json).unwrap();
        assert!(matches!(m.name, Cow::Borrowed("pod-a")));
        assert_eq!(
            m.deletion_timestamp.as_deref(),
            Some("2024-01-02T00:00:00Z")
        );
        assert_eq!(m.finalizers.len(), 2);
        assert_eq!(m.labels.0.len(), 2);
        assert_eq!(m.owner_references[0].controller, Some(true));
        assert_eq!(m.owner_references[0].block_owner_deletion, Some(false));
        assert_eq!(m.ignore, None);
    }

    #[test]
    fn only_the_ignore_annotation_is_kept() {
        let m: MetaIn = serde_json::from_str(
            r#"{"uid":"u","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"big\":1}",
            "kubectl-gc.io/ignore":"GC004,GC013"}}"#,
        )
        .unwrap();
        assert_eq!(m.ignore.as_deref(), Some("GC004,GC013"));
        let m: MetaIn = serde_json::from_str(r#"{"uid":"u","annotations":null}"#).unwrap();
        assert_eq!(m.ignore, None);
    }

    #[test]
    fn nulls_and_missing_fields_are_empty() {
        let m: MetaIn = serde_json::from_str(
            r#"{"name":"x","uid":"u","labels":null,"finalizers":null,"ownerReferences":null,"namespace":null}"#,
        )
        .unwrap();
        assert!(m.namespace.is_empty());
        assert!(m.finalizers.is_empty());
        assert!(m.owner_references.is_empty());
        assert!(m.labels.0.is_empty());
    }

    #[test]
    fn unset_block_owner_deletion_differs_from_false() {
        let m: MetaIn = serde_json::from_str(
            r#"{"uid":"u","ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"o"}]}"#,
        )
        .unwrap();
        assert_eq!(m.owner_references[0].block_owner_deletion, None);
    }

    #[test]
    fn differences_name_what_two_copies_disagree_on() {
        let a: MetaIn<'_> = serde_json::from_str(
            r#"{"name":"x","uid":"1","labels":{"a":"1","b":"2"},"finalizers":["f"],
                "ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"u"}]}"#,
        )
        .unwrap();
        // The same labels in another order, another resourceVersion and UID: the same object.
        let same: MetaIn<'_> = serde_json::from_str(
            r#"{"name":"x","uid":"2","resourceVersion":"9","labels":{"b":"2","a":"1"},"finalizers":["f"],
                "ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"u"}]}"#,
        )
        .unwrap();
        assert!(differences(&a, &same).is_empty());
        let other: MetaIn<'_> = serde_json::from_str(
            r#"{"name":"x","labels":{"a":"1"},
                "ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"u","controller":true}]}"#,
        )
        .unwrap();
        assert_eq!(
            differences(&a, &other),
            ["finalizers", "labels", "ownerReferences"]
        );
    }
}
