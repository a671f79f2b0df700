//! The records of every format as serde reads them, borrowed from the buffer they were read
//! into (strings without escapes are not copied, unknown fields are skipped), and the
//! [`AuditEvent`](crate::source::audit::event::AuditEvent) built from one, owned, only for
//! records that are kept.
//!
//! One struct, [`Record`], has the fields of every envelope (a native Event, an `EventList`,
//! an EKS CloudWatch record, a GKE `LogEntry`, an AKS diagnostic record): a record is parsed
//! once and recognised by which fields it has ([`Record::shape`]).
//!
//! Bodies (`requestObject`, `responseObject`, GKE's `request`/`response`) are recorded as the
//! client sent them, before validation: a rejected request can hold anything. Their fields are
//! read leniently ([`LStr`], [`LList`], [`LObj`]): a value of the wrong type is ignored, never
//! an error that would lose the event.
//!
//! **Files.** This one holds the records' shapes; `lenient.rs` the lenient field readers,
//! `build.rs` the event built from a record, `time.rs` the records' times.

mod build;
#[macro_use]
mod lenient;
mod time;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;
use std::marker::PhantomData;

pub(super) use build::{
    Built, Dropped, bodies, cut_at, cut_cause, dropped, level_from_bodies, native, owned, quote,
    request_key,
};
use lenient::{Key, LBool, LList, LObj, LStr};
pub(super) use lenient::{Str, parse};
use time::parse_time_loose_us;
pub(in crate::source::audit) use time::parse_time_us;
pub(super) use time::raw_time_us;

/// Longest string copied into an event; longer ones are cut (and the record reports it).
pub(super) const MAX_FIELD: usize = 16 << 10;
/// Most elements read from one list in a body (ownerReferences, finalizers, patch operations).
const MAX_LIST: usize = 1024;

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
    dry_run: Option<LList<LStr<'a>>>,
    metadata: Option<LObj<Meta<'a>>>,
}

object!(ReqObj, "a request object", {
    dry_run = b"dryRun",
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
    /// `groups`, read only for an event that is built: most records are dropped, and
    /// keeping the raw text costs no copy.
    groups: Option<&'a RawValue>,
}

object!(User, "user info", {
    username = b"username",
    groups = b"groups",
});

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
