//! `metadata`, read strictly: a value of the wrong type (`controller: "true"`, `finalizers: "x"`,
//! a label that is an object) makes the object broken. The problem is recorded, with its path,
//! instead of failing the parse, so the rest of the document stays readable.

use super::doc::{Key, KeyV, Meta, drain_map, drain_seq};
use super::hints::Lenient;
use crate::model::meta::IGNORE_ANNOTATION;
use crate::model::meta::Labels;
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

// ----------------------------------------------------------------------------------------------

fn record(err: &mut Option<String>, msg: impl FnOnce() -> String) {
    if err.is_none() {
        *err = Some(msg());
    }
}

/// Describes a value of the wrong type for messages.
fn found_str(v: &str) -> String {
    let mut s: String = v.chars().take(40).collect();
    if s.len() < v.len() {
        s.push('…');
    }
    format!("the string {s:?}")
}

/// A string field (`null` is unset).
pub(crate) struct StrSeed<'e> {
    err: &'e mut Option<String>,
    path: &'static str,
    index: Option<usize>,
}

impl<'e> StrSeed<'e> {
    pub(crate) fn new(err: &'e mut Option<String>, path: &'static str) -> Self {
        StrSeed {
            err,
            path,
            index: None,
        }
    }
    fn wrong(self, what: String) {
        let (path, index) = (self.path, self.index);
        record(self.err, || match index {
            Some(i) => format!(
                "{}: expected a string, found {what}",
                path.replace("[]", &format!("[{i}]"))
            ),
            None => format!("{path}: expected a string, found {what}"),
        });
    }
}

impl<'de> DeserializeSeed<'de> for StrSeed<'_> {
    type Value = Option<Cow<'de, str>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrSeed<'_> {
    type Value = Option<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v)))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        self.wrong(format!("the boolean {v}"));
        Ok(None)
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        self.wrong(format!("the number {v}"));
        Ok(None)
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        self.wrong(format!("the number {v}"));
        Ok(None)
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        self.wrong(format!("the number {v}"));
        Ok(None)
    }
    fn visit_map<M: MapAccess<'de>>(self, m: M) -> Result<Self::Value, M::Error> {
        drain_map(m)?;
        self.wrong("an object".into());
        Ok(None)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, s: S) -> Result<Self::Value, S::Error> {
        drain_seq(s)?;
        self.wrong("a list".into());
        Ok(None)
    }
}

/// A boolean field (`null` is unset).
struct BoolSeed<'e> {
    err: &'e mut Option<String>,
    path: &'static str,
    index: usize,
}

impl BoolSeed<'_> {
    fn wrong(self, what: String) {
        let (path, index) = (self.path, self.index);
        record(self.err, || {
            format!(
                "{}: expected true or false, found {what}",
                path.replace("[]", &format!("[{index}]"))
            )
        });
    }
}

impl<'de> DeserializeSeed<'de> for BoolSeed<'_> {
    type Value = Option<bool>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for BoolSeed<'_> {
    type Value = Option<bool>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a boolean")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Some(v))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        self.wrong(found_str(v));
        Ok(None)
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        self.wrong(format!("the number {v}"));
        Ok(None)
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        self.wrong(format!("the number {v}"));
        Ok(None)
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        self.wrong(format!("the number {v}"));
        Ok(None)
    }
    fn visit_map<M: MapAccess<'de>>(self, m: M) -> Result<Self::Value, M::Error> {
        drain_map(m)?;
        self.wrong("an object".into());
        Ok(None)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, s: S) -> Result<Self::Value, S::Error> {
        drain_seq(s)?;
        self.wrong("a list".into());
        Ok(None)
    }
}

/// What a container visitor reports for a value that is not its container type.
macro_rules! wrong_type {
    ($self:ident, $what:expr, $out:expr) => {{
        let path = $self.path();
        let expected = $self.expected();
        let what = $what;
        record($self.err(), || {
            format!("{path}: expected {expected}, found {what}")
        });
        Ok($out)
    }};
}

/// Visitors for the container fields of metadata (`finalizers`, `labels`, …).
trait Container {
    fn err(&mut self) -> &mut Option<String>;
    fn path(&self) -> String;
    fn expected(&self) -> &'static str;
}

macro_rules! container_scalars {
    ($out:expr) => {
        fn visit_bool<E>(mut self, v: bool) -> Result<Self::Value, E> {
            wrong_type!(self, format!("the boolean {v}"), $out)
        }
        fn visit_i64<E>(mut self, v: i64) -> Result<Self::Value, E> {
            wrong_type!(self, format!("the number {v}"), $out)
        }
        fn visit_u64<E>(mut self, v: u64) -> Result<Self::Value, E> {
            wrong_type!(self, format!("the number {v}"), $out)
        }
        fn visit_f64<E>(mut self, v: f64) -> Result<Self::Value, E> {
            wrong_type!(self, format!("the number {v}"), $out)
        }
        fn visit_str<E>(mut self, v: &str) -> Result<Self::Value, E> {
            wrong_type!(self, found_str(v), $out)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
    };
}

/// `metadata`, read in place into `out` (set to `None` first): a `Meta` is a few hundred
/// bytes, and returning it by value copied it once per level of the parse, for every object.
pub(crate) struct MetaSeed<'e, 'a> {
    pub err: &'e mut Option<String>,
    pub out: &'e mut Option<Meta<'a>>,
}

impl Container for MetaSeed<'_, '_> {
    fn err(&mut self) -> &mut Option<String> {
        self.err
    }
    fn path(&self) -> String {
        "metadata".into()
    }
    fn expected(&self) -> &'static str {
        "an object"
    }
}

/// The keys of `metadata` the reader acts on (the one-pass item scanner matches them too).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum MetaKey {
    Namespace,
    Name,
    Uid,
    ResourceVersion,
    CreationTimestamp,
    DeletionTimestamp,
    SelfLink,
    GenerateName,
    Continue,
    RemainingItemCount,
    Finalizers,
    Labels,
    Annotations,
    OwnerReferences,
    Other,
}

impl MetaKey {
    pub(crate) fn of(k: &str) -> MetaKey {
        match k {
            "namespace" => MetaKey::Namespace,
            "name" => MetaKey::Name,
            "uid" => MetaKey::Uid,
            "resourceVersion" => MetaKey::ResourceVersion,
            "creationTimestamp" => MetaKey::CreationTimestamp,
            "deletionTimestamp" => MetaKey::DeletionTimestamp,
            "selfLink" => MetaKey::SelfLink,
            "generateName" => MetaKey::GenerateName,
            "continue" => MetaKey::Continue,
            "remainingItemCount" => MetaKey::RemainingItemCount,
            "finalizers" => MetaKey::Finalizers,
            "labels" => MetaKey::Labels,
            "annotations" => MetaKey::Annotations,
            "ownerReferences" => MetaKey::OwnerReferences,
            _ => MetaKey::Other,
        }
    }
}

impl<'de> Deserialize<'de> for Key<MetaKey> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KeyV(MetaKey::of, MetaKey::Other))
            .map(Key)
    }
}

impl<'de: 'a, 'a> DeserializeSeed<'de> for MetaSeed<'_, 'a> {
    /// `Some` when `metadata` was a map (and is now in `out`).
    type Value = Option<()>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        *self.out = None;
        d.deserialize_any(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for MetaSeed<'_, 'a> {
    type Value = Option<()>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("metadata")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
        let err = self.err;
        let out = self.out.insert(Meta::default());
        let meta = &mut out.meta;
        let s = |v: Option<Cow<'de, str>>| v.unwrap_or_default();
        while let Some(Key(k)) = m.next_key::<Key<MetaKey>>()? {
            match k {
                MetaKey::Namespace => {
                    meta.namespace = s(m.next_value_seed(StrSeed::new(err, "metadata.namespace"))?)
                }
                MetaKey::Name => {
                    meta.name = s(m.next_value_seed(StrSeed::new(err, "metadata.name"))?)
                }
                MetaKey::Uid => meta.uid = s(m.next_value_seed(StrSeed::new(err, "metadata.uid"))?),
                MetaKey::ResourceVersion => {
                    meta.resource_version =
                        s(m.next_value_seed(StrSeed::new(err, "metadata.resourceVersion"))?)
                }
                MetaKey::CreationTimestamp => {
                    meta.creation_timestamp =
                        s(m.next_value_seed(StrSeed::new(err, "metadata.creationTimestamp"))?)
                }
                MetaKey::DeletionTimestamp => {
                    meta.deletion_timestamp =
                        m.next_value_seed(StrSeed::new(err, "metadata.deletionTimestamp"))?
                }
                MetaKey::SelfLink => {
                    out.self_link = m.next_value_seed(StrSeed::new(err, "metadata.selfLink"))?
                }
                MetaKey::GenerateName => {
                    out.generate_name =
                        m.next_value_seed(StrSeed::new(err, "metadata.generateName"))?
                }
                MetaKey::Continue => {
                    out.continue_token =
                        m.next_value_seed(StrSeed::new(err, "metadata.continue"))?
                }
                MetaKey::RemainingItemCount => {
                    out.remaining = !matches!(m.next_value::<Lenient<u64>>()?.0, None | Some(0))
                        || out.remaining;
                }
                MetaKey::Finalizers => meta.finalizers = m.next_value_seed(StrList { err })?,
                MetaKey::Labels => meta.labels = Labels(m.next_value_seed(LabelsSeed { err })?),
                MetaKey::Annotations => meta.ignore = m.next_value_seed(AnnotationsSeed { err })?,
                MetaKey::OwnerReferences => {
                    meta.owner_references = m.next_value_seed(RefsSeed { err })?
                }
                MetaKey::Other => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(()))
    }
    fn visit_seq<S: SeqAccess<'de>>(mut self, s: S) -> Result<Self::Value, S::Error> {
        drain_seq(s)?;
        wrong_type!(self, "a list", None)
    }
    container_scalars!(None);
}

/// `finalizers`.
struct StrList<'e> {
    err: &'e mut Option<String>,
}

impl Container for StrList<'_> {
    fn err(&mut self) -> &mut Option<String> {
        self.err
    }
    fn path(&self) -> String {
        "metadata.finalizers".into()
    }
    fn expected(&self) -> &'static str {
        "a list of strings"
    }
}

impl<'de> DeserializeSeed<'de> for StrList<'_> {
    type Value = Vec<Cow<'de, str>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrList<'_> {
    type Value = Vec<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of strings")
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut s: S) -> Result<Self::Value, S::Error> {
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(v) = s.next_element_seed(StrSeed {
            err: &mut *self.err,
            path: "metadata.finalizers[]",
            index: Some(i),
        })? {
            if let Some(v) = v {
                out.push(v);
            }
            i += 1;
        }
        Ok(out)
    }
    fn visit_map<M: MapAccess<'de>>(mut self, m: M) -> Result<Self::Value, M::Error> {
        drain_map(m)?;
        wrong_type!(self, "an object", Vec::new())
    }
    container_scalars!(Vec::new());
}

/// `labels`: values may be numbers or booleans in YAML written by other tools; kept as text.
struct LabelsSeed<'e> {
    err: &'e mut Option<String>,
}

impl Container for LabelsSeed<'_> {
    fn err(&mut self) -> &mut Option<String> {
        self.err
    }
    fn path(&self) -> String {
        "metadata.labels".into()
    }
    fn expected(&self) -> &'static str {
        "a map of strings"
    }
}

impl<'de> DeserializeSeed<'de> for LabelsSeed<'_> {
    type Value = Vec<(Cow<'de, str>, Cow<'de, str>)>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LabelsSeed<'_> {
    type Value = Vec<(Cow<'de, str>, Cow<'de, str>)>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of labels")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
        let mut out = Vec::with_capacity(m.size_hint().unwrap_or(4));
        while let Some(k) = m.next_key_seed(StrSeed::new(self.err, "metadata.labels (a key)"))? {
            let v = m.next_value_seed(ScalarText {
                err: &mut *self.err,
                path: "metadata.labels",
            })?;
            if let (Some(k), Some(v)) = (k, v) {
                out.push((k, v));
            }
        }
        Ok(out)
    }
    fn visit_seq<S: SeqAccess<'de>>(mut self, s: S) -> Result<Self::Value, S::Error> {
        drain_seq(s)?;
        wrong_type!(self, "a list", Vec::new())
    }
    container_scalars!(Vec::new());
}

/// A label or annotation value: text, or a scalar written as text; `null` is empty.
struct ScalarText<'e> {
    err: &'e mut Option<String>,
    path: &'static str,
}

impl<'de> DeserializeSeed<'de> for ScalarText<'_> {
    type Value = Option<Cow<'de, str>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ScalarText<'_> {
    type Value = Option<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v)))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_string())))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_string())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_string())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_string())))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed("")))
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed("")))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_map<M: MapAccess<'de>>(self, m: M) -> Result<Self::Value, M::Error> {
        drain_map(m)?;
        let path = self.path;
        record(self.err, || {
            format!("{path}: a value is an object, not a string")
        });
        Ok(None)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, s: S) -> Result<Self::Value, S::Error> {
        drain_seq(s)?;
        let path = self.path;
        record(self.err, || {
            format!("{path}: a value is a list, not a string")
        });
        Ok(None)
    }
}

/// `annotations`: only `kubectl-gc.io/ignore` is kept; the others are skipped unread.
struct AnnotationsSeed<'e> {
    err: &'e mut Option<String>,
}

impl Container for AnnotationsSeed<'_> {
    fn err(&mut self) -> &mut Option<String> {
        self.err
    }
    fn path(&self) -> String {
        "metadata.annotations".into()
    }
    fn expected(&self) -> &'static str {
        "a map of strings"
    }
}

impl<'de> DeserializeSeed<'de> for AnnotationsSeed<'_> {
    type Value = Option<Cow<'de, str>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum AnnKey {
    Ignore,
    Other,
}

impl<'de> Deserialize<'de> for Key<AnnKey> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        fn of(k: &str) -> AnnKey {
            if k == IGNORE_ANNOTATION {
                AnnKey::Ignore
            } else {
                AnnKey::Other
            }
        }
        d.deserialize_any(KeyV(of, AnnKey::Other)).map(Key)
    }
}

impl<'de> Visitor<'de> for AnnotationsSeed<'_> {
    type Value = Option<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of annotations")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
        let mut out = None;
        while let Some(Key(k)) = m.next_key::<Key<AnnKey>>()? {
            if k == AnnKey::Ignore {
                out = m.next_value_seed(ScalarText {
                    err: &mut *self.err,
                    path: "metadata.annotations",
                })?;
            } else {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(out)
    }
    fn visit_seq<S: SeqAccess<'de>>(mut self, s: S) -> Result<Self::Value, S::Error> {
        drain_seq(s)?;
        wrong_type!(self, "a list", None)
    }
    container_scalars!(None);
}

// After the macros and the `Container` trait, which it uses.
mod owner_refs;
pub(crate) use owner_refs::RefKey;
use owner_refs::RefsSeed;
