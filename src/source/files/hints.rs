//! Hints read leniently: a CRD's `spec`, discovery documents, version reports. Any other
//! object may carry the same keys with other shapes; those are skipped without a word.

use super::doc::{ApiGroup, ApiResource, NamedVersion, Spec, drain_map, drain_seq};
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

// ----------------------------------------------------------------------------------------------

/// A value read when it has the expected shape, `None` (and skipped) otherwise.
pub(crate) struct Lenient<T>(pub Option<T>);

/// Types [`Lenient`] can read: maps of known keys, strings, numbers, lists.
pub(crate) trait LenientShape: Sized {
    fn from_str(_: &str) -> Option<Self> {
        None
    }
    fn from_bool(_: bool) -> Option<Self> {
        None
    }
    fn from_u64(_: u64) -> Option<Self> {
        None
    }
    /// Reads one key of a map; `false` when the key is not of interest (the value is skipped).
    fn map_key<'de, M: MapAccess<'de>>(
        _out: &mut Option<Self>,
        _key: &str,
        _m: &mut M,
    ) -> Result<bool, M::Error> {
        Ok(false)
    }
    fn is_map() -> bool {
        false
    }
    /// The value of a map without any key of interest (maps only).
    fn empty() -> Option<Self> {
        None
    }
    fn from_seq<'de, S: SeqAccess<'de>>(s: S) -> Result<Option<Self>, S::Error> {
        drain_seq(s)?;
        Ok(None)
    }
}

impl<'de, T: LenientShape> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LenientV(std::marker::PhantomData))
    }
}

struct LenientV<T>(std::marker::PhantomData<T>);

impl<'de, T: LenientShape> Visitor<'de> for LenientV<T> {
    type Value = Lenient<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Lenient(T::from_str(v)))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Lenient(T::from_bool(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Lenient(T::from_u64(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Lenient(u64::try_from(v).ok().and_then(T::from_u64)))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Lenient(None))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Lenient(None))
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Lenient(None))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
        if !T::is_map() {
            drain_map(m)?;
            return Ok(Lenient(None));
        }
        let mut out = None;
        while let Some(k) = m.next_key::<Lenient<String>>()? {
            let used = match &k.0 {
                Some(k) => T::map_key(&mut out, k, &mut m)?,
                None => false,
            };
            if !used {
                m.next_value::<IgnoredAny>()?;
            }
        }
        // A map of the right shape without any key of interest is the shape's default.
        Ok(Lenient(out.or_else(T::empty)))
    }
    fn visit_seq<S: SeqAccess<'de>>(self, s: S) -> Result<Self::Value, S::Error> {
        T::from_seq(s).map(Lenient)
    }
}

impl LenientShape for String {
    fn from_str(v: &str) -> Option<Self> {
        Some(v.to_owned())
    }
}

impl LenientShape for bool {
    fn from_bool(v: bool) -> Option<Self> {
        Some(v)
    }
}

impl LenientShape for u64 {
    fn from_u64(v: u64) -> Option<Self> {
        Some(v)
    }
}

impl<T: LenientShape> LenientShape for Vec<T> {
    fn from_seq<'de, S: SeqAccess<'de>>(mut s: S) -> Result<Option<Self>, S::Error> {
        let mut out = Vec::new();
        while let Some(x) = s.next_element::<Lenient<T>>()? {
            if let Some(x) = x.0 {
                out.push(x);
            }
        }
        Ok(Some(out))
    }
}

impl<T: LenientShape> LenientShape for Lenient<T> {
    fn from_str(v: &str) -> Option<Self> {
        Some(Lenient(T::from_str(v)))
    }
    fn from_bool(v: bool) -> Option<Self> {
        Some(Lenient(T::from_bool(v)))
    }
    fn from_u64(v: u64) -> Option<Self> {
        Some(Lenient(T::from_u64(v)))
    }
    fn is_map() -> bool {
        T::is_map()
    }
    fn empty() -> Option<Self> {
        Some(Lenient(T::empty()))
    }
    fn map_key<'de, M: MapAccess<'de>>(
        out: &mut Option<Self>,
        key: &str,
        m: &mut M,
    ) -> Result<bool, M::Error> {
        let mut inner = out.take().and_then(|l| l.0);
        let used = T::map_key(&mut inner, key, m)?;
        *out = Some(Lenient(inner));
        Ok(used)
    }
    fn from_seq<'de, S: SeqAccess<'de>>(s: S) -> Result<Option<Self>, S::Error> {
        Ok(Some(Lenient(T::from_seq(s)?)))
    }
}

/// Implements [`LenientShape`] for a `Default` struct whose listed keys are read leniently.
macro_rules! map_shape {
    ($ty:ty { $($key:literal => $field:ident : $fty:ty),* $(,)? }) => {
        impl LenientShape for $ty {
            fn is_map() -> bool {
                true
            }
            fn map_key<'de, M: MapAccess<'de>>(
                out: &mut Option<Self>,
                key: &str,
                m: &mut M,
            ) -> Result<bool, M::Error> {
                let o = out.get_or_insert_with(Default::default);
                match key {
                    $($key => {
                        let v = m.next_value::<Lenient<$fty>>()?.0;
                        map_shape!(@set o.$field, v, $fty);
                        Ok(true)
                    })*
                    _ => Ok(false),
                }
            }
        }
    };
    (@set $place:expr, $v:ident, $other:ty) => { $place = $v.into() };
}

map_shape!(NamedVersion {
    "name" => name: String,
    "version" => version: String,
    "gitVersion" => version: String,
    "groupVersion" => group_version: String,
    "served" => served: bool,
});

/// `spec.names` of a CRD.
#[derive(Default)]
struct Names {
    kind: Option<String>,
    plural: Option<String>,
}

map_shape!(Names {
    "kind" => kind: String,
    "plural" => plural: String,
});

impl LenientShape for Spec {
    fn is_map() -> bool {
        true
    }
    fn empty() -> Option<Self> {
        Some(Self::default())
    }
    fn map_key<'de, M: MapAccess<'de>>(
        out: &mut Option<Self>,
        key: &str,
        m: &mut M,
    ) -> Result<bool, M::Error> {
        let o = out.get_or_insert_with(Default::default);
        match key {
            "group" => o.group = m.next_value::<Lenient<String>>()?.0,
            "scope" => o.scope = m.next_value::<Lenient<String>>()?.0,
            "version" => o.version = m.next_value::<Lenient<String>>()?.0,
            "names" => {
                if let Some(n) = m.next_value::<Lenient<Names>>()?.0 {
                    o.kind = n.kind;
                    o.plural = n.plural;
                }
            }
            "versions" => {
                o.versions = m
                    .next_value::<Lenient<Vec<NamedVersion>>>()?
                    .0
                    .unwrap_or_default()
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// `status` of a ClusterOperator: its `versions`.
#[derive(Default)]
pub(crate) struct StatusVersions(pub Vec<NamedVersion>);

impl LenientShape for StatusVersions {
    fn is_map() -> bool {
        true
    }
    fn empty() -> Option<Self> {
        Some(Self::default())
    }
    fn map_key<'de, M: MapAccess<'de>>(
        out: &mut Option<Self>,
        key: &str,
        m: &mut M,
    ) -> Result<bool, M::Error> {
        let o = out.get_or_insert_with(Default::default);
        if key == "versions" {
            o.0 = m
                .next_value::<Lenient<Vec<NamedVersion>>>()?
                .0
                .unwrap_or_default();
            Ok(true)
        } else {
            Ok(false)
        }
    }
}

impl LenientShape for ApiResource {
    fn is_map() -> bool {
        true
    }
    fn empty() -> Option<Self> {
        Some(Self::default())
    }
    fn map_key<'de, M: MapAccess<'de>>(
        out: &mut Option<Self>,
        key: &str,
        m: &mut M,
    ) -> Result<bool, M::Error> {
        let o = out.get_or_insert_with(Default::default);
        match key {
            "name" => o.name = m.next_value::<Lenient<String>>()?.0,
            "kind" => o.kind = m.next_value::<Lenient<String>>()?.0,
            "namespaced" => o.namespaced = m.next_value::<Lenient<bool>>()?.0,
            "verbs" => {
                o.verbs = m
                    .next_value::<Lenient<Vec<String>>>()?
                    .0
                    .unwrap_or_default()
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

impl LenientShape for ApiGroup {
    fn is_map() -> bool {
        true
    }
    fn empty() -> Option<Self> {
        Some(Self::default())
    }
    fn map_key<'de, M: MapAccess<'de>>(
        out: &mut Option<Self>,
        key: &str,
        m: &mut M,
    ) -> Result<bool, M::Error> {
        let o = out.get_or_insert_with(Default::default);
        match key {
            "name" => o.name = m.next_value::<Lenient<String>>()?.0,
            "preferredVersion" => o.preferred_version = m.next_value::<Lenient<NamedVersion>>()?.0,
            _ => return Ok(false),
        }
        Ok(true)
    }
}
