//! The lenient readers of a body's fields ([`LStr`], [`LBool`], [`LList`], [`LObj`]): a value
//! of the wrong type is ignored, never an error that would lose the event; and [`Str`], a
//! string borrowed from the input when it has no escapes.

use super::MAX_LIST;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// A string, borrowed from the input when it has no escapes.
pub(in crate::source::audit::formats) struct Str<'a>(pub Cow<'a, str>);

impl<'a> Str<'a> {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V(PhantomData))
    }
}

/// Drains a map or a sequence the lenient types do not want.
fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Implements the scalar and container callbacks of a lenient visitor: every value that is not
/// the wanted kind becomes `$none`.
macro_rules! lenient_rest {
    ($value:ty, $none:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$value, E> {
            Ok($none)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$value, E> {
            Ok($none)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$value, E> {
            Ok($none)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$value, E> {
            Ok($none)
        }
        fn visit_unit<E: de::Error>(self) -> Result<$value, E> {
            Ok($none)
        }
        fn visit_none<E: de::Error>(self) -> Result<$value, E> {
            Ok($none)
        }
    };
}

/// A lenient string: `None` for a value of any other type.
pub(in crate::source::audit::formats) struct LStr<'a>(pub Option<Cow<'a, str>>);

impl<'a> LStr<'a> {
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for LStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = LStr<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<LStr<'a>, E> {
                Ok(LStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LStr<'a>, E> {
                Ok(LStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<LStr<'a>, E> {
                Ok(LStr(Some(Cow::Owned(v))))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<LStr<'a>, A::Error> {
                drain_map(map).map(|()| LStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<LStr<'a>, A::Error> {
                drain_seq(seq).map(|()| LStr(None))
            }
            lenient_rest!(LStr<'a>, LStr(None));
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A lenient boolean.
pub(in crate::source::audit::formats) struct LBool(pub Option<bool>);

impl<'de> Deserialize<'de> for LBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LBool;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<LBool, E> {
                Ok(LBool(Some(v)))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<LBool, A::Error> {
                drain_map(map).map(|()| LBool(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<LBool, A::Error> {
                drain_seq(seq).map(|()| LBool(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A lenient list: `null` (set to none), the elements (at most [`MAX_LIST`]), or anything else.
pub(in crate::source::audit::formats) enum LList<T> {
    Null,
    Items(Vec<T>),
    Invalid,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for LList<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = LList<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LList<T>, A::Error> {
                let mut items = Vec::new();
                while items.len() < MAX_LIST {
                    match seq.next_element::<T>()? {
                        Some(x) => items.push(x),
                        None => return Ok(LList::Items(items)),
                    }
                }
                drain_seq(seq).map(|()| LList::Items(items))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LList<T>, E> {
                Ok(LList::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<LList<T>, E> {
                Ok(LList::Null)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<LList<T>, E> {
                Ok(LList::Invalid)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<LList<T>, E> {
                Ok(LList::Invalid)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<LList<T>, E> {
                Ok(LList::Invalid)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<LList<T>, E> {
                Ok(LList::Invalid)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LList<T>, E> {
                Ok(LList::Invalid)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<LList<T>, A::Error> {
                drain_map(map).map(|()| LList::Invalid)
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A lenient object: `None` for a value of any other type.
pub(in crate::source::audit::formats) struct LObj<T>(pub Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for LObj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = LObj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<LObj<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| LObj(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<LObj<T>, A::Error> {
                drain_seq(seq).map(|()| LObj(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LObj<T>, E> {
                Ok(LObj(None))
            }
            lenient_rest!(LObj<T>, LObj(None));
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// An object key (compared as bytes). The input is parsed from a `&str` (its UTF-8 checked
/// once for the whole record), so serde_json borrows keys without checking them again.
pub(in crate::source::audit::formats) struct Key<'a>(pub Cow<'a, [u8]>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Key<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Owned(v.to_vec())))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Borrowed(v.as_bytes())))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'a>, E> {
                Ok(Key(Cow::Owned(v.as_bytes().to_vec())))
            }
        }
        d.deserialize_str(V(PhantomData))
    }
}

/// Parses a record: from `&str` when it is UTF-8 (checked once, here; serde_json then checks no
/// string again), else from bytes (serde_json reports where the UTF-8 is broken, if it matters).
pub(in crate::source::audit::formats) fn parse<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
) -> serde_json::Result<T> {
    match std::str::from_utf8(bytes) {
        Ok(s) => serde_json::from_str(s),
        Err(_) => serde_json::from_slice(bytes),
    }
}
