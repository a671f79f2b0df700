//! The records of every format as serde reads them, borrowed from the buffer they were read
//! into (strings without escapes are not copied, unknown fields are skipped), and the
//! [`AuditEvent`] built from one, owned, only for records that are kept.
//!
//! One struct, [`Record`], has the fields of every envelope (a native Event, an `EventList`,
//! an EKS CloudWatch record, a GKE `LogEntry`, an AKS diagnostic record): a record is parsed
//! once and recognised by which fields it has ([`Record::shape`]).
//!
//! Bodies (`requestObject`, `responseObject`, GKE's `request`/`response`) are recorded as the
//! client sent them, before validation: a rejected request can hold anything. Their fields are
//! read leniently ([`LStr`], [`LList`], [`LObj`]): a value of the wrong type is ignored, never
//! an error that would lose the event.

use super::super::event::{AuditEvent, Bodies, Level, ObjectRef, OwnerRefSeen};
use crate::model::timestamp::days_in_month;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// Longest string copied into an event; longer ones are cut (and the record reports it).
pub(super) const MAX_FIELD: usize = 16 << 10;
/// Most elements read from one list in a body (ownerReferences, finalizers, patch operations).
const MAX_LIST: usize = 1024;

/// A string, borrowed from the input when it has no escapes.
pub(super) struct Str<'a>(pub Cow<'a, str>);

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
pub(super) struct LStr<'a>(pub Option<Cow<'a, str>>);

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
pub(super) struct LBool(pub Option<bool>);

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
pub(super) enum LList<T> {
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
pub(super) struct LObj<T>(pub Option<T>);

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
struct Key<'a>(Cow<'a, [u8]>);

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
pub(super) fn parse<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    match std::str::from_utf8(bytes) {
        Ok(s) => serde_json::from_str(s),
        Err(_) => serde_json::from_slice(bytes),
    }
}

/// Reads one field: `Option<T>` (absent and `null` are `None`), or with `present`, `Some` for
/// any value, `null` included (`"finalizers": null` means "set to none").
macro_rules! read_field {
    ($map:ident, $place:expr) => {
        $place = $map.next_value()?
    };
    ($map:ident, $place:expr, present, $out:ident) => {
        $place = Some($map.next_value()?)
    };
    // A body of a record already known to be left out (another stage, a read not answered
    // 404: kube-apiserver writes stage, verb and responseStatus before the bodies) is skipped.
    ($map:ident, $place:expr, body, $out:ident) => {
        if $out.left_out() {
            $map.next_value::<IgnoredAny>()?;
        } else {
            $place = $map.next_value()?
        }
    };
}

/// `Deserialize` for a struct of optional fields read from a JSON object: keys compared as
/// bytes, unknown keys skipped, the last of duplicate keys wins (as in Go), anything but an
/// object an error.
macro_rules! object {
    ($name:ident, $what:literal, { $( $field:ident $(($mode:ident))? = $key:literal ),* $(,)? }) => {
        impl<'de: 'a, 'a> Deserialize<'de> for $name<'a> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V<'a>(PhantomData<&'a ()>);
                impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
                    type Value = $name<'a>;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$name<'a>, A::Error> {
                        let mut out = $name::default();
                        while let Some(Key(k)) = map.next_key::<Key>()? {
                            match k.as_ref() {
                                $( $key => read_field!(map, out.$field $(, $mode, out)?), )*
                                _ => {
                                    map.next_value::<IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(out)
                    }
                }
                d.deserialize_map(V(PhantomData))
            }
        }
    };
}

/// `metadata` of a body.
#[derive(Default)]
pub(super) struct Meta<'a> {
    uid: Option<LStr<'a>>,
    owner_references: Option<LList<LObj<RefObj<'a>>>>,
    finalizers: Option<LList<LStr<'a>>>,
    deletion_timestamp: Option<LStr<'a>>,
    /// Strategic merge patch: finalizers to remove.
    delete_finalizers: Option<LList<LStr<'a>>>,
}

object!(Meta, "metadata", {
    uid = b"uid",
    owner_references(present) = b"ownerReferences",
    finalizers(present) = b"finalizers",
    deletion_timestamp = b"deletionTimestamp",
    delete_finalizers = b"$deleteFromPrimitiveList/finalizers",
});

/// One ownerReference (or a strategic-merge-patch directive on one).
#[derive(Default)]
pub(super) struct RefObj<'a> {
    api_version: Option<LStr<'a>>,
    kind: Option<LStr<'a>>,
    name: Option<LStr<'a>>,
    uid: Option<LStr<'a>>,
    patch: Option<LStr<'a>>,
}

object!(RefObj, "an ownerReference", {
    api_version = b"apiVersion",
    kind = b"kind",
    name = b"name",
    uid = b"uid",
    patch = b"$patch",
});

#[derive(Default)]
pub(super) struct Preconditions<'a> {
    uid: Option<LStr<'a>>,
}

object!(Preconditions, "preconditions", { uid = b"uid" });

/// A request body that is an object: DeleteOptions, an object, or a merge patch.
#[derive(Default)]
pub(super) struct ReqObj<'a> {
    propagation_policy: Option<LStr<'a>>,
    orphan_dependents: Option<LBool>,
    preconditions: Option<LObj<Preconditions<'a>>>,
    metadata: Option<LObj<Meta<'a>>>,
}

object!(ReqObj, "a request object", {
    propagation_policy = b"propagationPolicy",
    orphan_dependents = b"orphanDependents",
    preconditions = b"preconditions",
    metadata = b"metadata",
});

/// One JSON-patch operation.
#[derive(Default)]
pub(super) struct PatchOp<'a> {
    op: Option<LStr<'a>>,
    path: Option<LStr<'a>>,
    value: Option<&'a RawValue>,
}

object!(PatchOp, "a JSON-patch operation", {
    op = b"op",
    path = b"path",
    value = b"value",
});

/// `requestObject`: an object, a JSON patch (an array of operations), or anything else.
pub(super) enum ReqBody<'a> {
    Obj(ReqObj<'a>),
    Patch(Vec<LObj<PatchOp<'a>>>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for ReqBody<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = ReqBody<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ReqBody<'a>, A::Error> {
                ReqObj::deserialize(de::value::MapAccessDeserializer::new(map)).map(ReqBody::Obj)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ReqBody<'a>, A::Error> {
                match LList::<LObj<PatchOp<'a>>>::deserialize(
                    de::value::SeqAccessDeserializer::new(seq),
                )? {
                    LList::Items(ops) => Ok(ReqBody::Patch(ops)),
                    _ => Ok(ReqBody::Other),
                }
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<ReqBody<'a>, E> {
                Ok(ReqBody::Other)
            }
            lenient_rest!(ReqBody<'a>, ReqBody::Other);
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// `details` of a Status.
#[derive(Default)]
pub(super) struct Details<'a> {
    uid: Option<LStr<'a>>,
}

object!(Details, "details", { uid = b"uid" });

/// `responseObject`: what of it matters.
#[derive(Default)]
pub(super) struct RespObj<'a> {
    metadata: Option<LObj<Meta<'a>>>,
    details: Option<LObj<Details<'a>>>,
}

object!(RespObj, "a response object", {
    metadata = b"metadata",
    details = b"details",
});

impl RespObj<'_> {
    /// A Status response's `details.uid` (GKE's answer to a DELETE).
    pub fn details_uid(&self) -> Option<&str> {
        self.details.as_ref()?.0.as_ref()?.uid.as_ref()?.get()
    }
}

/// `user`, `impersonatedUser`.
#[derive(Default)]
pub(super) struct User<'a> {
    username: Option<Str<'a>>,
}

object!(User, "user info", { username = b"username" });

/// `objectRef`.
#[derive(Default)]
pub(super) struct ObjRef<'a> {
    resource: Option<Str<'a>>,
    subresource: Option<Str<'a>>,
    namespace: Option<Str<'a>>,
    name: Option<Str<'a>>,
    api_group: Option<Str<'a>>,
    api_version: Option<Str<'a>>,
    uid: Option<Str<'a>>,
}

object!(ObjRef, "objectRef", {
    resource = b"resource",
    subresource = b"subresource",
    namespace = b"namespace",
    name = b"name",
    api_group = b"apiGroup",
    api_version = b"apiVersion",
    uid = b"uid",
});

/// `responseStatus`.
#[derive(Default)]
pub(super) struct RespStatus<'a> {
    code: Option<u16>,
    reason: Option<Str<'a>>,
    details: Option<LObj<Details<'a>>>,
}

object!(RespStatus, "responseStatus", {
    code = b"code",
    reason = b"reason",
    details = b"details",
});

/// The annotations that matter.
#[derive(Default)]
pub(super) struct Annotations<'a> {
    truncated: Option<LStr<'a>>,
}

object!(Annotations, "annotations", {
    truncated = b"audit.k8s.io/truncated"
});

/// GKE: `protoPayload` (a `google.cloud.audit.AuditLog`).
#[derive(Default)]
pub(super) struct Proto<'a> {
    pub type_: Option<Str<'a>>,
    pub service_name: Option<Str<'a>>,
    pub method_name: Option<Str<'a>>,
    pub resource_name: Option<Str<'a>>,
    pub authentication_info: Option<AuthInfo<'a>>,
    pub request_metadata: Option<RequestMetadata<'a>>,
    pub status: Option<RpcStatus<'a>>,
    pub request: Option<ReqBody<'a>>,
    pub response: Option<LObj<RespObj<'a>>>,
}

object!(Proto, "protoPayload", {
    type_ = b"@type",
    service_name = b"serviceName",
    method_name = b"methodName",
    resource_name = b"resourceName",
    authentication_info = b"authenticationInfo",
    request_metadata = b"requestMetadata",
    status = b"status",
    request = b"request",
    response = b"response",
});

#[derive(Default)]
pub(super) struct AuthInfo<'a> {
    pub principal_email: Option<Str<'a>>,
}

object!(AuthInfo, "authenticationInfo", {
    principal_email = b"principalEmail"
});

#[derive(Default)]
pub(super) struct RequestMetadata<'a> {
    pub caller_supplied_user_agent: Option<Str<'a>>,
}

object!(RequestMetadata, "requestMetadata", {
    caller_supplied_user_agent = b"callerSuppliedUserAgent",
});

/// `google.rpc.Status` (`code` omitted when 0).
#[derive(Default)]
pub(super) struct RpcStatus<'a> {
    pub code: Option<i64>,
    _a: PhantomData<&'a ()>,
}

object!(RpcStatus, "status", { code = b"code" });

/// GKE: `operation`.
#[derive(Default)]
pub(super) struct Operation<'a> {
    pub id: Option<Str<'a>>,
}

object!(Operation, "operation", { id = b"id" });

/// AKS: `properties`.
#[derive(Default)]
pub(super) struct AksProps<'a> {
    pub log: Option<&'a RawValue>,
}

object!(AksProps, "properties", { log = b"log" });

/// One record of any format.
#[derive(Default)]
pub(super) struct Record<'a> {
    // A native Event.
    pub kind: Option<Str<'a>>,
    pub api_version: Option<Str<'a>>,
    level: Option<Str<'a>>,
    audit_id: Option<Str<'a>>,
    stage: Option<Str<'a>>,
    request_uri: Option<Str<'a>>,
    verb: Option<Str<'a>>,
    user: Option<User<'a>>,
    impersonated_user: Option<User<'a>>,
    user_agent: Option<Str<'a>>,
    object_ref: Option<ObjRef<'a>>,
    response_status: Option<RespStatus<'a>>,
    request_object: Option<ReqBody<'a>>,
    response_object: Option<LObj<RespObj<'a>>>,
    request_received_timestamp: Option<Str<'a>>,
    stage_timestamp: Option<Str<'a>>,
    annotations: Option<Annotations<'a>>,
    // Containers: an EventList's `items`, AKS `records`, `aws logs filter-log-events` `events`.
    pub items: Option<Vec<&'a RawValue>>,
    pub records: Option<Vec<&'a RawValue>>,
    pub events: Option<Vec<&'a RawValue>>,
    // EKS CloudWatch.
    pub message: Option<&'a RawValue>,
    pub at_message: Option<&'a RawValue>,
    pub at_timestamp: Option<&'a RawValue>,
    // GKE (and EKS `filter-log-events`: milliseconds).
    pub timestamp: Option<&'a RawValue>,
    pub proto_payload: Option<Box<Proto<'a>>>,
    pub insert_id: Option<Str<'a>>,
    pub operation: Option<Operation<'a>>,
    // AKS.
    pub category: Option<Str<'a>>,
    pub properties: Option<AksProps<'a>>,
    pub time: Option<Str<'a>>,
}

object!(Record, "a JSON object", {
    kind = b"kind",
    api_version = b"apiVersion",
    level = b"level",
    audit_id = b"auditID",
    stage = b"stage",
    request_uri = b"requestURI",
    verb = b"verb",
    user = b"user",
    impersonated_user = b"impersonatedUser",
    user_agent = b"userAgent",
    object_ref = b"objectRef",
    response_status = b"responseStatus",
    request_object(body) = b"requestObject",
    response_object(body) = b"responseObject",
    request_received_timestamp = b"requestReceivedTimestamp",
    stage_timestamp = b"stageTimestamp",
    annotations = b"annotations",
    items = b"items",
    records = b"records",
    events = b"events",
    message = b"message",
    at_message = b"@message",
    at_timestamp = b"@timestamp",
    timestamp = b"timestamp",
    proto_payload = b"protoPayload",
    insert_id = b"insertId",
    operation = b"operation",
    category = b"category",
    properties = b"properties",
    time = b"time",
});

impl Record<'_> {
    /// Already known not to become a passed event: a stage other than ResponseComplete and
    /// Panic, or a read answered other than 404.
    fn left_out(&self) -> bool {
        let stage = self.stage.as_ref().map(Str::as_str);
        let code = self.response_status.as_ref().and_then(|s| s.code);
        stage.is_some_and(|s| s != "ResponseComplete" && s != "Panic")
            || matches!((self.verb.as_ref().map(Str::as_str), code), (Some(v), Some(c)) if dropped(v, c))
    }
}

/// What a record is, by the fields it has.
pub(super) enum Shape<'r, 'a> {
    /// A native `audit.k8s.io` Event.
    Event,
    /// A container of records: its elements, and the format they count as.
    Container(&'r [&'a RawValue], &'static str),
    /// GKE: a `LogEntry` with `protoPayload`.
    Gke(&'r Proto<'a>),
    /// AKS: the Event in `properties.log` (`None`: the record has no `log`).
    Aks(Option<&'a RawValue>),
    /// EKS: the Event in `message`/`@message`.
    Eks(&'a RawValue),
    /// A record of a known envelope that holds no audit event (an AKS record of another
    /// category).
    Other,
    /// Valid JSON, but no audit record: why.
    NotAudit(String),
}

impl<'a> Record<'a> {
    /// Recognises the record by its content.
    pub fn shape(&self) -> Shape<'_, 'a> {
        let api = self.api_version.as_ref().map(Str::as_str);
        let kind = self.kind.as_ref().map(Str::as_str);
        let audit_api = api.is_some_and(|a| a.starts_with("audit.k8s.io/"));
        if let Some(items) = &self.items {
            return if audit_api || kind == Some("EventList") {
                Shape::Container(items, "event-list")
            } else {
                Shape::NotAudit(format!(
                    "a list of {} {}, not audit events",
                    quote(kind.unwrap_or("?")),
                    quote(api.unwrap_or("?"))
                ))
            };
        }
        if audit_api || (api.is_none() && (self.audit_id.is_some() || self.stage.is_some())) {
            return if kind.is_none_or(|k| k == "Event") {
                Shape::Event
            } else {
                Shape::NotAudit(format!(
                    "an audit.k8s.io {}, not an Event",
                    quote(kind.unwrap_or(""))
                ))
            };
        }
        if let Some(p) = self.proto_payload.as_deref() {
            return Shape::Gke(p);
        }
        if let Some(records) = &self.records {
            return Shape::Container(records, "aks");
        }
        if let Some(events) = &self.events {
            return Shape::Container(events, "eks");
        }
        if self.properties.is_some() || self.category.is_some() {
            return match self.category.as_ref().map(Str::as_str) {
                Some(c)
                    if !c.eq_ignore_ascii_case("kube-audit")
                        && !c.eq_ignore_ascii_case("kube-audit-admin") =>
                {
                    Shape::Other
                }
                _ => Shape::Aks(self.properties.as_ref().and_then(|p| p.log)),
            };
        }
        // `message` alone is a common field name (a core v1 Event has one): a CloudWatch
        // record has no kind and no apiVersion.
        let bare = kind.is_none() && api.is_none();
        if let Some(m) = self.at_message.or(self.message.filter(|_| bare)) {
            return Shape::Eks(m);
        }
        Shape::NotAudit(match (kind, api) {
            (Some(k), Some(a)) => format!("a {} {}, not an audit event", quote(k), quote(a)),
            _ => "a JSON object with none of the fields of an audit event (auditID, stage, protoPayload, properties.log, message)".into(),
        })
    }

    /// The envelope's time (AKS `time`, EKS `@timestamp`/`timestamp`), for an event whose own
    /// timestamps were cut away.
    pub fn envelope_time_us(&self) -> Option<i64> {
        if let Some(t) = &self.time {
            return parse_time_loose_us(t.as_str());
        }
        [self.at_timestamp, self.timestamp]
            .into_iter()
            .flatten()
            .find_map(raw_time_us)
    }
}

/// A time given as a JSON string (RFC 3339, or CloudWatch's `2021-08-11 09:29:13.095`) or as
/// milliseconds since the epoch.
pub(super) fn raw_time_us(raw: &RawValue) -> Option<i64> {
    let s = raw.get();
    if s.starts_with('"') {
        let text: Str = serde_json::from_str(s).ok()?;
        parse_time_loose_us(text.as_str())
    } else {
        let ms: i64 = s.parse().ok()?;
        ms.checked_mul(1000)
    }
}

/// A value quoted for a message, cut to a sensible length.
pub(super) fn quote(s: &str) -> String {
    let cut = cut_at(s, 80);
    if cut.len() < s.len() {
        format!("{:?}…", cut)
    } else {
        format!("{cut:?}")
    }
}

/// `s` cut to at most `max` bytes, at a character boundary.
pub(super) fn cut_at(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut i = max;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    &s[..i]
}

/// Copies a string into an event, cut at [`MAX_FIELD`] (`cut` is set then).
fn own(s: &str, cut: &mut bool) -> String {
    let c = cut_at(s, MAX_FIELD);
    if c.len() < s.len() {
        *cut = true;
    }
    c.to_owned()
}

fn own_opt(s: Option<&Str>, cut: &mut bool) -> String {
    s.map_or_else(String::new, |s| own(s.as_str(), cut))
}

/// What building an event from a record gave.
pub(super) enum Built {
    /// A stage other than ResponseComplete and Panic: not an event here.
    OtherStage,
    /// The event; `Some(cause)` when a field was cut (still passed on, with a problem).
    Event(Box<AuditEvent>, Option<String>),
    /// A read not answered 404, at this time: counted, never built.
    Dropped(i64),
    /// A broken record: why.
    Bad(String),
}

/// Reads are passed on only when answered 404 (the GC's owner lookup that proves an owner
/// absent).
pub(super) fn dropped(verb: &str, code: u16) -> bool {
    matches!(verb, "get" | "list" | "watch") && code != 404
}

fn cut_problem(cut: bool) -> Option<String> {
    cut.then(|| format!("a field longer than {} KiB was cut", MAX_FIELD >> 10))
}

/// Builds the event of a native Event record. `fallback_us`: the envelope's time, used when
/// the event's own timestamps are missing and `truncated` (an AKS record cut short).
pub(super) fn native(rec: &Record, truncated: bool, fallback_us: Option<i64>) -> Built {
    if let Some(stage) = &rec.stage
        && !matches!(stage.as_str(), "ResponseComplete" | "Panic")
    {
        return Built::OtherStage;
    }
    let Some(verb) = &rec.verb else {
        return Built::Bad("an audit event without verb".into());
    };
    let stamp = rec
        .stage_timestamp
        .as_ref()
        .or(rec.request_received_timestamp.as_ref());
    let time_us = match stamp {
        Some(s) => match parse_time_us(s.as_str()) {
            Some(t) => t,
            None => return Built::Bad(format!("bad stageTimestamp {}", quote(s.as_str()))),
        },
        None => match fallback_us.filter(|_| truncated) {
            Some(t) => t,
            None => return Built::Bad("an audit event without stageTimestamp".into()),
        },
    };
    let Some(audit_id) = &rec.audit_id else {
        return Built::Bad("an audit event without auditID".into());
    };
    let status = rec.response_status.as_ref();
    let code = status.and_then(|s| s.code).unwrap_or(0);
    if dropped(verb.as_str(), code) {
        return Built::Dropped(time_us);
    }
    let mut cut = false;
    let level = match rec.level.as_ref().map(Str::as_str) {
        Some("Metadata") => Level::Metadata,
        Some("Request") => Level::Request,
        Some("RequestResponse") => Level::RequestResponse,
        _ => Level::Unknown,
    };
    let object = rec.object_ref.as_ref().map(|o| ObjectRef {
        resource: own_opt(o.resource.as_ref(), &mut cut),
        subresource: own_opt(o.subresource.as_ref(), &mut cut),
        namespace: own_opt(o.namespace.as_ref(), &mut cut),
        name: own_opt(o.name.as_ref(), &mut cut),
        api_group: own_opt(o.api_group.as_ref(), &mut cut),
        api_version: own_opt(o.api_version.as_ref(), &mut cut),
        uid: own_opt(o.uid.as_ref(), &mut cut),
    });
    let uri = rec.request_uri.as_ref().map_or("", Str::as_str);
    let response = rec.response_object.as_ref().and_then(|r| r.0.as_ref());
    let truncated = truncated
        || rec
            .annotations
            .as_ref()
            .and_then(|a| a.truncated.as_ref())
            .and_then(LStr::get)
            == Some("true");
    let event = AuditEvent {
        audit_id: own(audit_id.as_str(), &mut cut),
        level,
        time_us,
        verb: own(verb.as_str(), &mut cut),
        request_uri: own(uri, &mut cut),
        user: own_opt(
            rec.user.as_ref().and_then(|u| u.username.as_ref()),
            &mut cut,
        ),
        impersonated_user: rec
            .impersonated_user
            .as_ref()
            .and_then(|u| u.username.as_ref())
            .map(|u| own(u.as_str(), &mut cut)),
        user_agent: own_opt(rec.user_agent.as_ref(), &mut cut),
        object,
        code,
        reason: own_opt(status.and_then(|s| s.reason.as_ref()), &mut cut),
        deleted_uid: status
            .and_then(|s| s.details.as_ref())
            .and_then(|d| d.0.as_ref())
            .and_then(|d| d.uid.as_ref())
            .and_then(LStr::get)
            .map(|u| own(u, &mut cut)),
        bodies: bodies(
            verb.as_str(),
            uri,
            rec.request_object.as_ref(),
            response,
            &mut cut,
        ),
        truncated,
        position: Default::default(),
    };
    Built::Event(Box::new(event), cut_problem(cut))
}

/// Builds an event's [`Bodies`].
pub(super) fn bodies(
    verb: &str,
    uri: &str,
    request: Option<&ReqBody>,
    response: Option<&RespObj>,
    cut: &mut bool,
) -> Bodies {
    let mut b = Bodies::default();
    let deleting = matches!(verb, "delete" | "deletecollection");
    match request {
        Some(ReqBody::Obj(o)) if deleting => {
            b.propagation_policy = o
                .propagation_policy
                .as_ref()
                .and_then(LStr::get)
                .map(|p| own(p, cut));
            b.orphan_dependents = o.orphan_dependents.as_ref().and_then(|x| x.0);
            b.precondition_uid = o
                .preconditions
                .as_ref()
                .and_then(|p| p.0.as_ref())
                .and_then(|p| p.uid.as_ref())
                .and_then(LStr::get)
                .map(|u| own(u, cut));
        }
        Some(ReqBody::Obj(o)) => {
            if let Some(m) = o.metadata.as_ref().and_then(|m| m.0.as_ref()) {
                b.owner_references = m.owner_references.as_ref().and_then(|l| owner_refs(l, cut));
                b.finalizers = m.finalizers.as_ref().and_then(|l| strings(l, cut));
                // Strategic merge patch directives.
                if let Some(LList::Items(refs)) = &m.owner_references {
                    for r in refs.iter().filter_map(|r| r.0.as_ref()) {
                        if r.patch.as_ref().and_then(LStr::get) == Some("delete") {
                            let uid = r.uid.as_ref().and_then(LStr::get).unwrap_or("");
                            b.removed_paths.push(format!(
                                "/metadata/ownerReferences/uid={}",
                                cut_at(uid, 256)
                            ));
                        }
                    }
                }
                if let Some(LList::Items(names)) = &m.delete_finalizers {
                    for n in names.iter().filter_map(LStr::get) {
                        b.removed_paths
                            .push(format!("/metadata/finalizers/value={}", cut_at(n, 256)));
                    }
                }
            }
        }
        Some(ReqBody::Patch(ops)) => json_patch(ops, &mut b, cut),
        _ => {}
    }
    if deleting && b.propagation_policy.is_none() && b.orphan_dependents.is_none() {
        query_options(uri, &mut b, cut);
    }
    if let Some(m) = response
        .and_then(|r| r.metadata.as_ref())
        .and_then(|m| m.0.as_ref())
    {
        b.response_uid = m.uid.as_ref().and_then(LStr::get).map(|u| own(u, cut));
        b.response_owner_references = m.owner_references.as_ref().and_then(|l| owner_refs(l, cut));
        b.response_finalizers = m.finalizers.as_ref().and_then(|l| strings(l, cut));
        b.response_deleting = m.deletion_timestamp.as_ref().and_then(LStr::get).is_some();
    }
    b
}

/// The ownerReferences of a body; directives (`$patch`) are not references.
fn owner_refs(l: &LList<LObj<RefObj>>, cut: &mut bool) -> Option<Vec<OwnerRefSeen>> {
    match l {
        LList::Null => Some(Vec::new()),
        LList::Invalid => None,
        LList::Items(items) => {
            let refs: Vec<OwnerRefSeen> = items
                .iter()
                .filter_map(|r| r.0.as_ref())
                .filter(|r| r.patch.is_none())
                .map(|r| {
                    let s = |x: &Option<LStr>, cut: &mut bool| {
                        x.as_ref()
                            .and_then(LStr::get)
                            .map_or_else(String::new, |v| own(v, cut))
                    };
                    OwnerRefSeen {
                        api_version: s(&r.api_version, cut),
                        kind: s(&r.kind, cut),
                        name: s(&r.name, cut),
                        uid: s(&r.uid, cut),
                    }
                })
                .collect();
            // A list of directives only (the GC's removal patch) sets nothing.
            (!refs.is_empty() || items.is_empty()).then_some(refs)
        }
    }
}

fn strings(l: &LList<LStr>, cut: &mut bool) -> Option<Vec<String>> {
    match l {
        LList::Null => Some(Vec::new()),
        LList::Invalid => None,
        LList::Items(items) => Some(
            items
                .iter()
                .filter_map(LStr::get)
                .map(|s| own(s, cut))
                .collect(),
        ),
    }
}

/// A JSON patch: removed/replaced paths under ownerReferences and finalizers, and whole lists
/// set by `add`/`replace`.
fn json_patch(ops: &[LObj<PatchOp>], b: &mut Bodies, cut: &mut bool) {
    for op in ops.iter().filter_map(|o| o.0.as_ref()) {
        let (Some(kind), Some(path)) = (
            op.op.as_ref().and_then(LStr::get),
            op.path.as_ref().and_then(LStr::get),
        ) else {
            continue;
        };
        let under = |p: &str, base: &str| {
            p == base || p.strip_prefix(base).is_some_and(|r| r.starts_with('/'))
        };
        let refs = under(path, "/metadata/ownerReferences");
        let fins = under(path, "/metadata/finalizers");
        if !(refs || fins) {
            continue;
        }
        if matches!(kind, "remove" | "replace") && b.removed_paths.len() < MAX_LIST {
            b.removed_paths.push(own(cut_at(path, 1024), cut));
        }
        if matches!(kind, "add" | "replace") {
            let value = op.value.map_or("null", RawValue::get);
            if path == "/metadata/finalizers" {
                if let Ok(l) = serde_json::from_str::<LList<LStr>>(value) {
                    b.finalizers = strings(&l, cut);
                }
            } else if path == "/metadata/ownerReferences"
                && let Ok(l) = serde_json::from_str::<LList<LObj<RefObj>>>(value)
            {
                b.owner_references = owner_refs(&l, cut);
            }
        }
    }
}

/// DeleteOptions in the query string (`?propagationPolicy=Foreground`), which the API server
/// reads when the body has none.
fn query_options(uri: &str, b: &mut Bodies, cut: &mut bool) {
    let Some((_, query)) = uri.split_once('?') else {
        return;
    };
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = v.replace('+', " ");
        let v = percent_encoding::percent_decode_str(&v).decode_utf8_lossy();
        match k {
            "propagationPolicy" if b.propagation_policy.is_none() => {
                b.propagation_policy = Some(own(&v, cut));
            }
            "orphanDependents" if b.orphan_dependents.is_none() => {
                b.orphan_dependents = match v.as_ref() {
                    "true" | "1" => Some(true),
                    "false" | "0" => Some(false),
                    _ => None,
                };
            }
            _ => {}
        }
    }
}

/// The level a GKE entry's bodies show (GKE drops `level`).
pub(super) fn level_from_bodies(request: bool, response: bool) -> Level {
    match (request, response) {
        (_, true) => Level::RequestResponse,
        (true, false) => Level::Request,
        _ => Level::Unknown,
    }
}

/// Copies a string into an event (for the other format modules).
pub(super) fn owned(s: &str, cut: &mut bool) -> String {
    own(s, cut)
}

pub(super) fn cut_cause(cut: bool) -> Option<String> {
    cut_problem(cut)
}

/// RFC 3339 (`2026-11-26T01:49:45.123456Z`, any number of fraction digits, `Z` or `±hh:mm`) to
/// microseconds since the Unix epoch; `None` for anything else, out-of-range fields included.
pub(in crate::source::audit) fn parse_time_us(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b.len() > 64 {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let shape = digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && matches!(b[10], b'T' | b't')
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    if !shape {
        return None;
    }
    let n = |r: std::ops::Range<usize>| b[r].iter().fold(0i64, |a, d| a * 10 + i64::from(d - b'0'));
    let (y, mo, d) = (n(0..4), n(5..7), n(8..10));
    if !(1..=12).contains(&mo)
        || d < 1
        || d > days_in_month(y, mo)
        || n(11..13) > 23
        || n(14..16) > 59
        || n(17..19) > 59
    {
        return None;
    }
    let mut rest = &b[19..];
    let mut us = 0i64;
    if let Some(frac) = rest.strip_prefix(b".") {
        let k = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if k == 0 {
            return None;
        }
        for i in 0..6 {
            us = us * 10
                + frac
                    .get(i)
                    .filter(|_| i < k)
                    .map_or(0, |c| i64::from(c - b'0'));
        }
        rest = &frac[k..];
    }
    let zone_ok = match rest {
        b"Z" | b"z" => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit())
                && (h1 - b'0') * 10 + (h2 - b'0') <= 23
                && (m1 - b'0') * 10 + (m2 - b'0') <= 59
        }
        _ => false,
    };
    if !zone_ok {
        return None;
    }
    Some(crate::snapshot::parse_rfc3339(s)? * 1_000_000 + us)
}

/// [`parse_time_us`], also accepting a space for `T` and no zone (UTC), as CloudWatch prints.
pub(super) fn parse_time_loose_us(s: &str) -> Option<i64> {
    if let Some(t) = parse_time_us(s) {
        return Some(t);
    }
    if s.len() < 19 || s.len() > 40 || !s.is_ascii() {
        return None;
    }
    let mut t = s.to_owned();
    t.replace_range(10..11, "T");
    if !t[19..].contains(['Z', 'z', '+', '-']) {
        t.push('Z');
    }
    parse_time_us(&t)
}
