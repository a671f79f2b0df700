//! `metadata.ownerReferences`, read strictly (see the parent module): a reference with a
//! field of the wrong type makes its object broken.

use super::{BoolSeed, Container, StrSeed, found_str, record};
use crate::model::OwnerRefIn;
use crate::source::files::doc::{Key, KeyV, drain_map, drain_seq};
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// `ownerReferences`.
pub(super) struct RefsSeed<'e> {
    pub err: &'e mut Option<String>,
}

impl Container for RefsSeed<'_> {
    fn err(&mut self) -> &mut Option<String> {
        self.err
    }
    fn path(&self) -> String {
        "metadata.ownerReferences".into()
    }
    fn expected(&self) -> &'static str {
        "a list"
    }
}

impl<'de> DeserializeSeed<'de> for RefsSeed<'_> {
    type Value = Vec<OwnerRefIn<'de>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RefsSeed<'_> {
    type Value = Vec<OwnerRefIn<'de>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of ownerReferences")
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut s: S) -> Result<Self::Value, S::Error> {
        let mut out = Vec::with_capacity(s.size_hint().unwrap_or(1));
        let mut index = 0;
        while let Some(r) = s.next_element_seed(RefSeed {
            err: &mut *self.err,
            index,
        })? {
            if let Some(r) = r {
                out.push(r);
            }
            index += 1;
        }
        Ok(out)
    }
    fn visit_map<M: MapAccess<'de>>(mut self, m: M) -> Result<Self::Value, M::Error> {
        drain_map(m)?;
        wrong_type!(self, "an object", Vec::new())
    }
    container_scalars!(Vec::new());
}

struct RefSeed<'e> {
    err: &'e mut Option<String>,
    index: usize,
}

impl Container for RefSeed<'_> {
    fn err(&mut self) -> &mut Option<String> {
        self.err
    }
    fn path(&self) -> String {
        format!("metadata.ownerReferences[{}]", self.index)
    }
    fn expected(&self) -> &'static str {
        "an object"
    }
}

/// The keys of an `ownerReferences` entry the reader acts on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum RefKey {
    ApiVersion,
    Kind,
    Name,
    Uid,
    Controller,
    BlockOwnerDeletion,
    Other,
}

impl RefKey {
    pub(crate) fn of(k: &str) -> RefKey {
        match k {
            "apiVersion" => RefKey::ApiVersion,
            "kind" => RefKey::Kind,
            "name" => RefKey::Name,
            "uid" => RefKey::Uid,
            "controller" => RefKey::Controller,
            "blockOwnerDeletion" => RefKey::BlockOwnerDeletion,
            _ => RefKey::Other,
        }
    }
}

impl<'de> Deserialize<'de> for Key<RefKey> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KeyV(RefKey::of, RefKey::Other)).map(Key)
    }
}

impl<'de> DeserializeSeed<'de> for RefSeed<'_> {
    type Value = Option<OwnerRefIn<'de>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RefSeed<'_> {
    type Value = Option<OwnerRefIn<'de>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an ownerReference")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
        let (err, index) = (self.err, self.index);
        let mut r = OwnerRefIn::default();
        fn str_seed<'x>(
            err: &'x mut Option<String>,
            path: &'static str,
            index: usize,
        ) -> StrSeed<'x> {
            StrSeed {
                err,
                path,
                index: Some(index),
            }
        }
        while let Some(Key(k)) = m.next_key::<Key<RefKey>>()? {
            let s = |v: Option<Cow<'de, str>>| v.unwrap_or_default();
            match k {
                RefKey::ApiVersion => {
                    r.api_version = s(m.next_value_seed(str_seed(
                        err,
                        "metadata.ownerReferences[].apiVersion",
                        index,
                    ))?)
                }
                RefKey::Kind => {
                    r.kind = s(m.next_value_seed(str_seed(
                        err,
                        "metadata.ownerReferences[].kind",
                        index,
                    ))?)
                }
                RefKey::Name => {
                    r.name = s(m.next_value_seed(str_seed(
                        err,
                        "metadata.ownerReferences[].name",
                        index,
                    ))?)
                }
                RefKey::Uid => {
                    r.uid = s(m.next_value_seed(str_seed(
                        err,
                        "metadata.ownerReferences[].uid",
                        index,
                    ))?)
                }
                RefKey::Controller => {
                    r.controller = m.next_value_seed(BoolSeed {
                        err,
                        path: "metadata.ownerReferences[].controller",
                        index,
                    })?
                }
                RefKey::BlockOwnerDeletion => {
                    r.block_owner_deletion = m.next_value_seed(BoolSeed {
                        err,
                        path: "metadata.ownerReferences[].blockOwnerDeletion",
                        index,
                    })?
                }
                RefKey::Other => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(r))
    }
    fn visit_seq<S: SeqAccess<'de>>(mut self, s: S) -> Result<Self::Value, S::Error> {
        drain_seq(s)?;
        wrong_type!(self, "a list", None)
    }
    container_scalars!(None);
}
