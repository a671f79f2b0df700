//! The typed parse of one document: only what kubectl-gc keeps, straight from the parser's
//! events, without building a `serde_json::Value` or a YAML node tree.
//!
//! [`Doc`] is a map seen as a Kubernetes object, list, discovery document or version report.
//! From `metadata` it keeps the fields the GC and the filters read (see [`MetaIn`]); from the
//! rest only the hints that name served kinds (a CRD's `spec`, discovery documents) or the
//! server version. Everything else — `spec`, `status`, `data`, other annotations — is skipped
//! with [`IgnoredAny`], which is as fast as the parser can go.
//!
//! The visitors never fail on a value of the wrong type: they record the first such problem in
//! [`Doc::error`] (with the field's path) and skip the value, so a broken object is reported
//! with its kind and namespace (which tell what it makes unknown) and the document around it
//! stays readable. Only syntax errors abort a parse.

use super::hints::{Lenient, StatusVersions};
use super::meta::{MetaSeed, StrSeed};
use crate::model::{MetaIn, OwnerRefIn, meta::Labels};
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// Scalars (and `null`) become `$out` in visitors that only want containers.
macro_rules! scalars_to {
    ($out:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok($out)
        }
    };
}

/// One map document (or list item).
#[derive(Debug, Default)]
pub(crate) struct Doc<'a> {
    pub api_version: Option<Cow<'a, str>>,
    pub kind: Option<Cow<'a, str>>,
    /// `metadata`, when it is a map.
    pub metadata: Option<Meta<'a>>,
    pub items: Items<'a>,
    /// Hints about served kinds and the server version (owned: rare and small).
    /// Allocated only when the document has one (most objects have none).
    pub hints: Option<Box<Hints>>,
    /// The first value of a wrong type, with its path (`metadata.finalizers: …`).
    pub error: Option<String>,
    /// Number of keys.
    pub keys: u32,
}

/// `items` of a document.
#[derive(Debug, Default)]
pub(crate) enum Items<'a> {
    #[default]
    Absent,
    Null,
    List(Vec<Element<'a>>),
    /// Present but neither a list nor null.
    NotAList,
}

/// An element of `items` or of a top-level array.
// Boxing the object would cost an allocation per list item; elements are moved once.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Element<'a> {
    Object(Doc<'a>),
    /// A scalar, or a nested array: not a Kubernetes object.
    Other,
}

/// `metadata`, as the store keeps it, plus what lists and kindless objects need.
#[derive(Debug, Default, Clone)]
pub(crate) struct Meta<'a> {
    pub meta: MetaIn<'a>,
    /// `selfLink` (written by API servers before 1.20): names the resource of kindless objects.
    pub self_link: Option<Cow<'a, str>>,
    /// A list's `continue` token: set when the list is one page of a longer one.
    pub continue_token: Option<Cow<'a, str>>,
    /// A list's `remainingItemCount` is set: the list is one page of a longer one.
    pub remaining: bool,
    /// `generateName`: a manifest without a name gets one made from it when created.
    pub generate_name: Option<Cow<'a, str>>,
}

impl<'a> Doc<'a> {
    /// A copy that owns its text (for documents kept past the input buffer they came from).
    pub fn into_owned(self) -> Doc<'static> {
        Doc {
            api_version: self.api_version.map(own),
            kind: self.kind.map(own),
            metadata: self.metadata.map(Meta::into_owned),
            items: match self.items {
                Items::Absent => Items::Absent,
                Items::Null => Items::Null,
                Items::NotAList => Items::NotAList,
                Items::List(v) => Items::List(
                    v.into_iter()
                        .map(|e| match e {
                            Element::Object(d) => Element::Object(d.into_owned()),
                            Element::Other => Element::Other,
                        })
                        .collect(),
                ),
            },
            hints: self.hints,
            error: self.error,
            keys: self.keys,
        }
    }

    /// The hints (empty when there are none).
    pub fn hints(&self) -> &Hints {
        static NONE: Hints = Hints {
            spec: None,
            status_versions: Vec::new(),
            detail_spec: None,
            detail_status: None,
            group_version: None,
            resources: None,
            groups: None,
            name: None,
            versions: None,
            preferred_version: None,
            server_git_version: None,
            info_git_version: None,
            has_major: false,
            git_version: None,
            kubernetes_version: None,
        };
        self.hints.as_deref().unwrap_or(&NONE)
    }

    /// The hints, allocated on first use.
    pub fn hints_mut(&mut self) -> &mut Hints {
        self.hints.get_or_insert_with(Default::default)
    }

    /// `kind`, or `""`.
    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    /// `apiVersion`, or `""`.
    pub fn api_version(&self) -> &str {
        self.api_version.as_deref().unwrap_or("")
    }

    /// `metadata.uid` is set.
    pub fn has_uid(&self) -> bool {
        self.metadata
            .as_ref()
            .is_some_and(|m| !m.meta.uid.is_empty())
    }

    /// `metadata.namespace` when `metadata` was read.
    pub fn namespace(&self) -> Option<&str> {
        self.metadata.as_ref().map(|m| m.meta.namespace.as_ref())
    }

    /// Merges a field read on its own (the top-level JSON reader reads a document key by key).
    pub fn absorb(&mut self, other: Doc<'a>)
    where
        Self: Sized,
    {
        let Doc {
            api_version,
            kind,
            metadata,
            items,
            hints,
            error,
            keys,
        } = other;
        if api_version.is_some() {
            self.api_version = api_version;
        }
        if kind.is_some() {
            self.kind = kind;
        }
        if metadata.is_some() {
            self.metadata = metadata;
        }
        if !matches!(items, Items::Absent) {
            self.items = items;
        }
        if let Some(h) = hints {
            self.hints_mut().absorb(*h);
        }
        if self.error.is_none() {
            self.error = error;
        }
        self.keys += keys;
    }
}

impl Meta<'_> {
    pub(crate) fn into_owned(self) -> Meta<'static> {
        let m = self.meta;
        Meta {
            meta: MetaIn {
                namespace: own(m.namespace),
                name: own(m.name),
                uid: own(m.uid),
                resource_version: own(m.resource_version),
                creation_timestamp: own(m.creation_timestamp),
                deletion_timestamp: m.deletion_timestamp.map(own),
                finalizers: m.finalizers.into_iter().map(own).collect(),
                labels: Labels(
                    m.labels
                        .0
                        .into_iter()
                        .map(|(k, v)| (own(k), own(v)))
                        .collect(),
                ),
                owner_references: m
                    .owner_references
                    .into_iter()
                    .map(|r| OwnerRefIn {
                        api_version: own(r.api_version),
                        kind: own(r.kind),
                        name: own(r.name),
                        uid: own(r.uid),
                        controller: r.controller,
                        block_owner_deletion: r.block_owner_deletion,
                    })
                    .collect(),
                ignore: m.ignore.map(own),
            },
            self_link: self.self_link.map(own),
            continue_token: self.continue_token.map(own),
            remaining: self.remaining,
            generate_name: self.generate_name.map(own),
        }
    }
}

fn own(c: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(c.into_owned())
}

/// What a document says about served kinds or the server version.
#[derive(Debug, Default)]
pub(crate) struct Hints {
    /// A CRD's `spec` (group, names, scope, versions).
    pub spec: Option<Spec>,
    /// `status.versions` (an OpenShift ClusterOperator's component versions).
    pub status_versions: Vec<NamedVersion>,
    /// A Namespace's or an APIService's `spec` and `status`, whole (snapshot::details); read
    /// only for those two kinds, and only when `kind` comes before them (as in every dump).
    pub detail_spec: Option<serde_json::Value>,
    pub detail_status: Option<serde_json::Value>,
    /// Discovery: `groupVersion` and `resources` (APIResourceList).
    pub group_version: Option<String>,
    pub resources: Option<Vec<ApiResource>>,
    /// Discovery: `groups` (APIGroupList).
    pub groups: Option<Vec<ApiGroup>>,
    /// Discovery: an APIGroup's `name`, `versions` and `preferredVersion`.
    pub name: Option<String>,
    pub versions: Option<Vec<NamedVersion>>,
    pub preferred_version: Option<NamedVersion>,
    /// Version reports: `serverVersion.gitVersion`, `info.gitVersion`, `major`, `gitVersion`,
    /// `kubernetesversion`.
    pub server_git_version: Option<String>,
    pub info_git_version: Option<String>,
    pub has_major: bool,
    pub git_version: Option<String>,
    pub kubernetes_version: Option<String>,
}

impl Hints {
    fn absorb(&mut self, o: Hints) {
        macro_rules! take {
            ($($f:ident),*) => {$( if o.$f.is_some() { self.$f = o.$f; } )*};
        }
        take!(
            spec,
            detail_spec,
            detail_status,
            group_version,
            resources,
            groups,
            name,
            versions,
            preferred_version,
            server_git_version,
            info_git_version,
            git_version,
            kubernetes_version
        );
        if !o.status_versions.is_empty() {
            self.status_versions = o.status_versions;
        }
        self.has_major |= o.has_major;
    }
}

/// The kinds whose `spec` and `status` are kept whole (snapshot::details).
pub(crate) fn has_details(kind: Option<&str>) -> bool {
    matches!(kind, Some("Namespace" | "APIService"))
}

/// A `spec` that names served kinds: a CRD's, or a kindless object's (typed-client output).
fn has_spec_hints(kind: Option<&str>) -> bool {
    kind.is_none_or(|k| k == "CustomResourceDefinition")
}

/// A `status` that names component versions: a ClusterOperator's, or a kindless object's.
fn has_status_hints(kind: Option<&str>) -> bool {
    kind.is_none_or(|k| k == "ClusterOperator")
}

/// Whether the document visitor reads past the value of `key` unseen in a document of `kind`
/// (so far: `kind` may come later), as [`IgnoredAny`] does.
pub(crate) fn skips(key: DocKey, kind: Option<&str>) -> bool {
    match key {
        DocKey::Spec => !has_spec_hints(kind) && !has_details(kind),
        DocKey::Status => !has_status_hints(kind) && !has_details(kind),
        DocKey::Other => true,
        _ => false,
    }
}

/// A CRD's `spec`, read leniently (any other object's `spec` may hold anything).
#[derive(Debug, Default)]
pub(crate) struct Spec {
    pub group: Option<String>,
    pub kind: Option<String>,
    pub plural: Option<String>,
    pub scope: Option<String>,
    pub versions: Vec<NamedVersion>,
    pub version: Option<String>,
}

/// `{name, version, groupVersion, served}` entries of the shapes above.
#[derive(Debug, Default, Clone)]
pub(crate) struct NamedVersion {
    pub name: Option<String>,
    pub version: Option<String>,
    pub group_version: Option<String>,
    pub served: Option<bool>,
}

/// One entry of an APIResourceList.
#[derive(Debug, Default)]
pub(crate) struct ApiResource {
    pub name: Option<String>,
    pub kind: Option<String>,
    pub namespaced: Option<bool>,
    pub verbs: Vec<String>,
}

/// One entry of an APIGroupList.
#[derive(Debug, Default)]
pub(crate) struct ApiGroup {
    pub name: Option<String>,
    pub preferred_version: Option<NamedVersion>,
}

// ----------------------------------------------------------------------------------------------
// Document-level parse
// ----------------------------------------------------------------------------------------------

/// The keys a document's visitor acts on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum DocKey {
    ApiVersion,
    Kind,
    Metadata,
    Items,
    Spec,
    Status,
    GroupVersion,
    Resources,
    Groups,
    Name,
    Versions,
    PreferredVersion,
    ServerVersion,
    Info,
    Major,
    GitVersion,
    KubernetesVersion,
    Other,
}

impl DocKey {
    pub fn of(k: &str) -> DocKey {
        match k {
            "apiVersion" => DocKey::ApiVersion,
            "kind" => DocKey::Kind,
            "metadata" => DocKey::Metadata,
            "items" => DocKey::Items,
            "spec" => DocKey::Spec,
            "status" => DocKey::Status,
            "groupVersion" => DocKey::GroupVersion,
            "resources" => DocKey::Resources,
            "groups" => DocKey::Groups,
            "name" => DocKey::Name,
            "versions" => DocKey::Versions,
            "preferredVersion" => DocKey::PreferredVersion,
            "serverVersion" => DocKey::ServerVersion,
            "info" => DocKey::Info,
            "major" => DocKey::Major,
            "gitVersion" => DocKey::GitVersion,
            "kubernetesversion" | "kubernetesVersion" => DocKey::KubernetesVersion,
            _ => DocKey::Other,
        }
    }
}

/// A map key, matched without copying it.
pub(crate) struct Key<T>(pub T);

impl<'de> Deserialize<'de> for Key<DocKey> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KeyV(DocKey::of, DocKey::Other)).map(Key)
    }
}

pub(crate) struct KeyV<T: Copy>(pub fn(&str) -> T, pub T);

impl<'de, T: Copy> Visitor<'de> for KeyV<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map key")
    }
    fn visit_str<E>(self, v: &str) -> Result<T, E> {
        Ok((self.0)(v))
    }
    fn visit_bool<E>(self, _: bool) -> Result<T, E> {
        Ok(self.1)
    }
    fn visit_i64<E>(self, _: i64) -> Result<T, E> {
        Ok(self.1)
    }
    fn visit_u64<E>(self, _: u64) -> Result<T, E> {
        Ok(self.1)
    }
    fn visit_f64<E>(self, _: f64) -> Result<T, E> {
        Ok(self.1)
    }
    fn visit_unit<E>(self) -> Result<T, E> {
        Ok(self.1)
    }
    fn visit_map<M: MapAccess<'de>>(self, m: M) -> Result<T, M::Error> {
        drain_map(m)?;
        Ok(self.1)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, s: S) -> Result<T, S::Error> {
        drain_seq(s)?;
        Ok(self.1)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Doc<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(DocV)
    }
}

struct DocV;

impl<'de> Visitor<'de> for DocV {
    type Value = Doc<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(self, m: M) -> Result<Doc<'de>, M::Error> {
        let mut doc = Doc::default();
        ElementSeed(&mut doc).visit_map(m)?;
        Ok(doc)
    }
}

/// Reads one list element into an empty [`Doc`] in place: `true` when it is a map (now in
/// the `Doc`), `false` for anything else (not a Kubernetes object). For the items of large
/// lists: a `Doc` is a few hundred bytes, and returned by value (as [`Element`]) it was copied
/// at each level of the parse and again into the reader, for every item.
pub(crate) struct ElementSeed<'d, 'a>(pub &'d mut Doc<'a>);

impl<'de: 'a, 'a> DeserializeSeed<'de> for ElementSeed<'_, 'a> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for ElementSeed<'_, 'a> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<bool, M::Error> {
        while let Some(Key(k)) = m.next_key::<Key<DocKey>>()? {
            m.next_value_seed(FieldSeed {
                doc: &mut *self.0,
                key: k,
            })?;
        }
        Ok(true)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, s: S) -> Result<bool, S::Error> {
        drain_seq(s)?;
        Ok(false)
    }
    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_none<E>(self) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
    scalars_to!(false);
}

/// Reads the value of one key of a document into it.
pub(crate) struct FieldSeed<'d, 'a> {
    pub doc: &'d mut Doc<'a>,
    pub key: DocKey,
}

impl<'de: 'a, 'a> DeserializeSeed<'de> for FieldSeed<'_, 'a> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let doc = self.doc;
        doc.keys += 1;
        let err = &mut doc.error;
        match self.key {
            DocKey::ApiVersion => {
                doc.api_version = StrSeed::new(err, "apiVersion").deserialize(d)?
            }
            DocKey::Kind => doc.kind = StrSeed::new(err, "kind").deserialize(d)?,
            DocKey::Metadata => {
                MetaSeed {
                    err,
                    out: &mut doc.metadata,
                }
                .deserialize(d)?;
            }
            DocKey::Items => doc.items = d.deserialize_any(ItemsV)?,
            DocKey::Spec => {
                if has_spec_hints(doc.kind.as_deref()) {
                    doc.hints_mut().spec = Lenient::<Spec>::deserialize(d)?.0;
                } else if has_details(doc.kind.as_deref()) {
                    doc.hints_mut().detail_spec = Some(serde_json::Value::deserialize(d)?);
                } else {
                    IgnoredAny::deserialize(d)?;
                }
            }
            DocKey::Status => {
                if has_status_hints(doc.kind.as_deref()) {
                    doc.hints_mut().status_versions = Lenient::<StatusVersions>::deserialize(d)?
                        .0
                        .map(|s| s.0)
                        .unwrap_or_default();
                } else if has_details(doc.kind.as_deref()) {
                    doc.hints_mut().detail_status = Some(serde_json::Value::deserialize(d)?);
                } else {
                    IgnoredAny::deserialize(d)?;
                }
            }
            DocKey::GroupVersion => doc.hints_mut().group_version = Lenient::deserialize(d)?.0,
            DocKey::Resources => {
                doc.hints_mut().resources = Lenient::<Vec<Lenient<ApiResource>>>::deserialize(d)?
                    .0
                    .map(|v| v.into_iter().filter_map(|x| x.0).collect())
            }
            DocKey::Groups => {
                doc.hints_mut().groups = Lenient::<Vec<Lenient<ApiGroup>>>::deserialize(d)?
                    .0
                    .map(|v| v.into_iter().filter_map(|x| x.0).collect())
            }
            DocKey::Name => doc.hints_mut().name = Lenient::deserialize(d)?.0,
            DocKey::Versions => {
                doc.hints_mut().versions = Lenient::<Vec<Lenient<NamedVersion>>>::deserialize(d)?
                    .0
                    .map(|v| v.into_iter().filter_map(|x| x.0).collect())
            }
            DocKey::PreferredVersion => {
                doc.hints_mut().preferred_version = Lenient::deserialize(d)?.0
            }
            DocKey::ServerVersion => {
                doc.hints_mut().server_git_version = Lenient::<NamedVersion>::deserialize(d)?
                    .0
                    .and_then(|v| v.version)
            }
            DocKey::Info => {
                doc.hints_mut().info_git_version = Lenient::<NamedVersion>::deserialize(d)?
                    .0
                    .and_then(|v| v.version)
            }
            DocKey::Major => {
                IgnoredAny::deserialize(d)?;
                doc.hints_mut().has_major = true;
            }
            DocKey::GitVersion => doc.hints_mut().git_version = Lenient::deserialize(d)?.0,
            DocKey::KubernetesVersion => {
                doc.hints_mut().kubernetes_version = Lenient::deserialize(d)?.0
            }
            DocKey::Other => {
                IgnoredAny::deserialize(d)?;
            }
        }
        Ok(())
    }
}

struct ItemsV;

impl<'de> Visitor<'de> for ItemsV {
    type Value = Items<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of items")
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut s: S) -> Result<Items<'de>, S::Error> {
        let mut out = Vec::with_capacity(s.size_hint().unwrap_or(0).min(4096));
        while let Some(e) = s.next_element::<Element<'de>>()? {
            out.push(e);
        }
        Ok(Items::List(out))
    }
    fn visit_unit<E>(self) -> Result<Items<'de>, E> {
        Ok(Items::Null)
    }
    fn visit_none<E>(self) -> Result<Items<'de>, E> {
        Ok(Items::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Items<'de>, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_map<M: MapAccess<'de>>(self, m: M) -> Result<Items<'de>, M::Error> {
        drain_map(m)?;
        Ok(Items::NotAList)
    }
    scalars_to!(Items::NotAList);
}

impl<'de: 'a, 'a> Deserialize<'de> for Element<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ElementV)
    }
}

struct ElementV;

impl<'de> Visitor<'de> for ElementV {
    type Value = Element<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(self, m: M) -> Result<Element<'de>, M::Error> {
        DocV.visit_map(m).map(Element::Object)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, s: S) -> Result<Element<'de>, S::Error> {
        drain_seq(s)?;
        Ok(Element::Other)
    }
    fn visit_unit<E>(self) -> Result<Element<'de>, E> {
        Ok(Element::Other)
    }
    fn visit_none<E>(self) -> Result<Element<'de>, E> {
        Ok(Element::Other)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Element<'de>, D::Error> {
        d.deserialize_any(self)
    }
    scalars_to!(Element::Other);
}

/// A top-level document: a map, a sequence of maps, or something else.
#[allow(clippy::large_enum_variant)] // As `Element`.
#[derive(Debug)]
pub(crate) enum TopValue<'a> {
    Object(Doc<'a>),
    Array(Vec<Element<'a>>),
    /// `null` or an empty document.
    Null,
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for TopValue<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TopV)
    }
}

struct TopV;

impl<'de> Visitor<'de> for TopV {
    type Value = TopValue<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a document")
    }
    fn visit_map<M: MapAccess<'de>>(self, m: M) -> Result<TopValue<'de>, M::Error> {
        DocV.visit_map(m).map(TopValue::Object)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, s: S) -> Result<TopValue<'de>, S::Error> {
        match ItemsV.visit_seq(s)? {
            Items::List(v) => Ok(TopValue::Array(v)),
            _ => Ok(TopValue::Other),
        }
    }
    fn visit_unit<E>(self) -> Result<TopValue<'de>, E> {
        Ok(TopValue::Null)
    }
    fn visit_none<E>(self) -> Result<TopValue<'de>, E> {
        Ok(TopValue::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<TopValue<'de>, D::Error> {
        d.deserialize_any(self)
    }
    scalars_to!(TopValue::Other);
}

pub(crate) fn drain_map<'de, M: MapAccess<'de>>(mut m: M) -> Result<(), M::Error> {
    while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

pub(crate) fn drain_seq<'de, S: SeqAccess<'de>>(mut s: S) -> Result<(), S::Error> {
    while s.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}
