//! The answer's types: the history's rows (actions with their causes and fates), what they name
//! and who did them, the counts and the notes. Every enum serialises as the schema
//! (`schemas/history.schema.json`) spells it.

use crate::snapshot::format_rfc3339;
use serde::Serialize;

pub use crate::gc::ObjectRef;

/// How the history names an object (a [`ObjectRef`] as the log names it: by resource).
pub trait Spelt {
    /// `Kind/name -n ns`, for people ([`crate::model::spell_object`]): the log names a
    /// resource, whose kind comes from the built-in catalog (`Kind.group` where another
    /// built-in group has a kind of that name: `Ingress.networking.k8s.io`); other resources
    /// (CRDs) keep kubectl's `plural.group`. A collection is `Kind (all) -n ns`; a namespace's
    /// content (no resource, no name), `content of Namespace/ns`.
    fn display(&self) -> String;
    /// Group, resource, namespace, name.
    fn key(&self) -> Key;
}

impl Spelt for ObjectRef {
    fn display(&self) -> String {
        if self.resource.is_empty() && self.name.is_empty() {
            return match self.namespace.as_str() {
                "" => "everything".to_owned(),
                ns => format!("content of Namespace/{ns}"),
            };
        }
        let kind = kind_of(&self.group, &self.resource);
        if self.name.is_empty() {
            return match self.namespace.as_str() {
                "" => format!("{kind} (all)"),
                ns => format!("{kind} (all) -n {ns}"),
            };
        }
        crate::model::spell_object(&kind, &self.name, &self.namespace)
    }

    fn key(&self) -> Key {
        (
            self.group.clone(),
            self.resource.clone(),
            self.namespace.clone(),
            self.name.clone(),
        )
    }
}

/// An object the log names by group, version and resource: its kind from the built-in
/// catalog (empty where the catalog does not know the resource).
pub(super) fn named(
    group: &str,
    version: &str,
    resource: &str,
    namespace: &str,
    name: &str,
    uid: &str,
) -> ObjectRef {
    let kind = crate::catalog::builtin::all()
        .iter()
        .find(|b| b.group == group && b.plural == resource)
        .map_or("", |b| b.kind);
    ObjectRef {
        group: group.to_owned(),
        version: version.to_owned(),
        kind: kind.to_owned(),
        resource: resource.to_owned(),
        namespace: namespace.to_owned(),
        name: name.to_owned(),
        uid: uid.to_owned(),
    }
}

/// The history's JSON spelling of an object: `{group, resource, namespace (omitted when
/// cluster-scoped), name, uid (omitted when unknown)}` (`schemas/history.schema.json`), for
/// `#[serde(serialize_with = "by_resource::one")]`.
pub(super) mod by_resource {
    use super::ObjectRef;
    use serde::Serializer;
    use serde::ser::SerializeStruct;

    pub struct View<'a>(pub &'a ObjectRef);

    impl serde::Serialize for View<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let o = self.0;
            let mut st = s.serialize_struct("Obj", 5)?;
            st.serialize_field("group", &o.group)?;
            st.serialize_field("resource", &o.resource)?;
            if o.namespace.is_empty() {
                st.skip_field("namespace")?;
            } else {
                st.serialize_field("namespace", &o.namespace)?;
            }
            st.serialize_field("name", &o.name)?;
            if o.uid.is_empty() {
                st.skip_field("uid")?;
            } else {
                st.serialize_field("uid", &o.uid)?;
            }
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
}

/// The kind a resource of the log is spelt as ([`Obj::display`]).
pub(super) fn kind_of(group: &str, resource: &str) -> String {
    let builtin = crate::catalog::builtin::all();
    let Some(b) = builtin
        .iter()
        .find(|b| b.group == group && b.plural == resource)
    else {
        return match group {
            "" => resource.to_owned(),
            g => format!("{resource}.{g}"),
        };
    };
    let shared = builtin
        .iter()
        .any(|o| o.kind == b.kind && o.group != b.group);
    match (shared, group) {
        (true, g) if !g.is_empty() => format!("{}.{g}", b.kind),
        _ => b.kind.to_owned(),
    }
}

/// Who acted, by what the request's authentication proves (`actor.rs`). Ordered as spelt.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum ActorKind {
    /// The garbage collector (its service account, or the controller manager's identity with
    /// its user agent).
    GarbageCollector,
    /// The namespace controller.
    NamespaceController,
    /// A person, or a credential that is no component of the cluster.
    User,
    /// Another controller, a node, a component of the control plane.
    Controller,
}

impl ActorKind {
    /// As the schema spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ActorKind::GarbageCollector => "garbage-collector",
            ActorKind::NamespaceController => "namespace-controller",
            ActorKind::User => "user",
            ActorKind::Controller => "controller",
        }
    }

    /// True for the actors whose actions start chains (people and other controllers).
    pub fn starts_chains(self) -> bool {
        matches!(self, ActorKind::User | ActorKind::Controller)
    }
}

/// Who acted.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Actor {
    /// From the authenticated user (`user.username`, refined by `user.groups`: `actor.rs`),
    /// whom the request's credentials prove; the user agent, which any client may send, only
    /// tells the controllers of the controller manager's own identity apart.
    pub kind: ActorKind,
    /// The identity the request acted as: `user.username`, or the impersonated user where
    /// the request impersonated one.
    pub user: String,
    /// The authenticated user who impersonated [`Actor::user`]; absent without
    /// impersonation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impersonated_by: Option<String>,
    /// `userAgent`.
    pub user_agent: String,
}

impl Actor {
    /// The identity for people: `bob (impersonated by admin)` when impersonated.
    pub fn display(&self) -> String {
        match &self.impersonated_by {
            Some(real) => format!("{} (impersonated by {real})", self.user),
            None => self.user.clone(),
        }
    }
}

/// What an action did.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Verb {
    /// A DELETE of one object.
    Delete,
    /// A write that removed ownerReferences.
    RemoveOwnerReferences,
    /// A write that removed finalizers (or a namespace's `finalize`).
    RemoveFinalizer,
    /// A DELETE of a collection (`deletecollection`: names no object).
    DeleteCollection,
    /// A patch of the GC's or the namespace controller's whose body the log does not show.
    OtherPatch,
    /// A start of the garbage collector (controller-manager log): a new graph from fresh
    /// lists, so what it deletes right after, it deletes at the restart.
    GcStart,
    /// The GC removed an owner from all its dependents' references (an Orphan deletion, as
    /// the controller manager's log shows it: on the owner, not on each dependent).
    OrphanDependents,
    /// The namespace controller found a namespace's content gone and the namespace with it
    /// (controller-manager log).
    DeleteNamespaceContent,
}

impl Verb {
    /// As the schema spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Delete => "delete",
            Verb::RemoveOwnerReferences => "remove-owner-references",
            Verb::RemoveFinalizer => "remove-finalizer",
            Verb::DeleteCollection => "delete-collection",
            Verb::OtherPatch => "other-patch",
            Verb::GcStart => "gc-start",
            Verb::OrphanDependents => "orphan-dependents",
            Verb::DeleteNamespaceContent => "delete-namespace-content",
        }
    }

    /// A deletion, of one object or of a collection.
    pub fn deletes(self) -> bool {
        matches!(self, Verb::Delete | Verb::DeleteCollection)
    }
}

/// A deletion's propagation policy.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Dependents deleted in the background.
    Background,
    /// The owner waits for its blocking dependents.
    Foreground,
    /// Dependents keep living, without the reference.
    Orphan,
    /// Not known.
    #[serde(rename = "unknown")]
    Unknown,
}

impl Policy {
    /// As the schema spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Background => "Background",
            Policy::Foreground => "Foreground",
            Policy::Orphan => "Orphan",
            Policy::Unknown => "unknown",
        }
    }

    /// `propagationPolicy` as a request writes it.
    pub fn parse(s: &str) -> Policy {
        match s {
            "Background" => Policy::Background,
            "Foreground" => Policy::Foreground,
            "Orphan" => Policy::Orphan,
            _ => Policy::Unknown,
        }
    }
}

/// The action at the start of a chain.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    /// When (RFC 3339).
    pub time: String,
    /// Who (the identity acted as).
    pub user: String,
    /// The authenticated user who impersonated [`Root::user`]; absent without impersonation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impersonated_by: Option<String>,
    /// What.
    pub action: Verb,
    /// On what.
    #[serde(serialize_with = "by_resource::one")]
    pub object: ObjectRef,
}

impl Root {
    /// Item `it` as the start of a chain.
    pub fn of(it: &Item) -> Root {
        Root {
            time: it.time.clone(),
            user: it.actor.user.clone(),
            impersonated_by: it.actor.impersonated_by.clone(),
            action: it.action,
            object: it.object.clone(),
        }
    }

    /// Who, for people: `bob (impersonated by admin)` when impersonated.
    pub fn who(&self) -> String {
        match &self.impersonated_by {
            Some(real) => format!("{} (impersonated by {real})", self.user),
            None => self.user.clone(),
        }
    }
}

/// Why the GC or the namespace controller acted. For a reference the GC found broken, the
/// kind of break is the finding code's (`dangling-owner` GC001, `owner-uid-mismatch` GC002,
/// `owner-coordinates-mismatch` GC003, `cross-namespace-owner` GC004), judged on the GC model
/// of the state around the log. Ordered as spelt.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum CauseKind {
    /// Its owner was deleted (by the root, with the policy shown).
    OwnerDeleted,
    /// GC001: its owner does not exist.
    DanglingOwner,
    /// GC002: an object of the owner's kind and name exists with another UID (recreated).
    OwnerUidMismatch,
    /// GC003: the UID is an object's whose kind or name the reference does not match.
    OwnerCoordinatesMismatch,
    /// GC004: the UID is a namespaced object's in another namespace.
    CrossNamespaceOwner,
    /// The GC removed `foregroundDeletion` once no blocking dependent was left.
    ForegroundFinished,
    /// An Orphan deletion: the GC removed the dependents' references, then `orphan`.
    Orphaned,
    /// The GC removed the finalizer of a deletion that had nothing left to wait for, and the
    /// inputs do not tell which (`foregroundDeletion` or `orphan`).
    DeletionFinished,
    /// The namespace controller emptying a namespace someone deleted.
    NamespaceDeleted,
    /// Its owner existed and nothing in the inputs deleted it.
    Unexplained,
    /// The inputs do not show why.
    Unknown,
}

impl CauseKind {
    /// As the schema spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            CauseKind::OwnerDeleted => "owner-deleted",
            CauseKind::DanglingOwner => "dangling-owner",
            CauseKind::OwnerUidMismatch => "owner-uid-mismatch",
            CauseKind::OwnerCoordinatesMismatch => "owner-coordinates-mismatch",
            CauseKind::CrossNamespaceOwner => "cross-namespace-owner",
            CauseKind::ForegroundFinished => "foreground-finished",
            CauseKind::Orphaned => "orphaned",
            CauseKind::DeletionFinished => "deletion-finished",
            CauseKind::NamespaceDeleted => "namespace-deleted",
            CauseKind::Unexplained => "unexplained",
            CauseKind::Unknown => "unknown",
        }
    }

    /// The cause a broken reference of finding code `code` is, for the codes the GC deletes
    /// on (the judgement's breaks GC001–GC004).
    pub fn of_code(code: crate::diagnose::Code) -> Option<CauseKind> {
        use crate::diagnose::Code;
        Some(match code {
            Code::DanglingOwner => CauseKind::DanglingOwner,
            Code::OwnerUidMismatch => CauseKind::OwnerUidMismatch,
            Code::OwnerCoordinatesMismatch => CauseKind::OwnerCoordinatesMismatch,
            Code::CrossNamespaceOwner => CauseKind::CrossNamespaceOwner,
            _ => return None,
        })
    }

    /// The finding code of a broken reference, for the kinds that are one.
    pub fn code(self) -> Option<crate::diagnose::Code> {
        use crate::diagnose::Code;
        match self {
            CauseKind::DanglingOwner => Some(Code::DanglingOwner),
            CauseKind::OwnerUidMismatch => Some(Code::OwnerUidMismatch),
            CauseKind::OwnerCoordinatesMismatch => Some(Code::OwnerCoordinatesMismatch),
            CauseKind::CrossNamespaceOwner => Some(Code::CrossNamespaceOwner),
            _ => None,
        }
    }
}

/// Counts and lists read in the order of the names.
macro_rules! ordered_as_spelt {
    ($t:ty) => {
        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for $t {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.as_str().cmp(other.as_str())
            }
        }
    };
}
ordered_as_spelt!(ActorKind);
ordered_as_spelt!(CauseKind);

fn code_id<S: serde::Serializer>(k: &CauseKind, s: S) -> Result<S::Ok, S::Error> {
    match k.code() {
        Some(c) => s.serialize_some(c.id()),
        None => s.serialize_none(),
    }
}

fn no_code(k: &CauseKind) -> bool {
    k.code().is_none()
}

/// Why the GC or the namespace controller acted.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "camelCase")]
pub struct Cause {
    /// What kind of cause.
    #[serde(rename = "type")]
    pub type_: CauseKind,
    /// The finding code of a broken reference (`GC001`…`GC004`), for the kinds that are one.
    #[serde(
        rename = "code",
        serialize_with = "code_id",
        skip_serializing_if = "no_code"
    )]
    pub code: CauseKind,
    /// The owner (or namespace) behind it, where there is one: for a reference whose UID is
    /// another object's (GC003, GC004), that object, in its own namespace.
    #[serde(
        serialize_with = "by_resource::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub owner: Option<ObjectRef>,
    /// The propagation policy of the deletion behind it.
    pub policy: Policy,
    /// True when the policy is not read from the request but inferred from what followed.
    pub policy_inferred: bool,
    /// The action at the start of the chain; absent when it is not in the inputs, or when no
    /// action started it (a reference that could never reach its owner).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<Root>,
    /// In words, with the evidence and what is not known.
    pub detail: String,
}

impl Cause {
    /// A cause of this kind; the code follows the kind.
    pub(super) fn new(type_: CauseKind, owner: Option<ObjectRef>, detail: String) -> Cause {
        Cause {
            type_,
            code: type_,
            owner,
            policy: Policy::Unknown,
            policy_inferred: false,
            root: None,
            detail,
        }
    }

    /// Nothing in the inputs shows why.
    pub(super) fn unknown(detail: String) -> Cause {
        Cause::new(CauseKind::Unknown, None, detail)
    }

    /// True for a reference the GC found broken with no action before it: no root is missing.
    pub fn rootless(&self) -> bool {
        self.root.is_none()
            && matches!(
                self.type_,
                CauseKind::DanglingOwner
                    | CauseKind::OwnerCoordinatesMismatch
                    | CauseKind::CrossNamespaceOwner
            )
    }
}

/// One action of the log.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// When (the response time, RFC 3339 with microseconds).
    pub time: String,
    /// Microseconds since the epoch (for sorting; not in the JSON).
    #[serde(skip)]
    pub time_us: i64,
    /// What was done.
    pub action: Verb,
    /// The object.
    #[serde(serialize_with = "by_resource::one")]
    pub object: ObjectRef,
    /// Collapsed collection deletions of one namespace's content ([`History::collapse`]): each
    /// resource (`plural` or `plural.group`) the row stands for; the object is then the
    /// namespace's content (no resource, no name).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    /// Who.
    pub actor: Actor,
    /// Why (GC and namespace-controller actions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    /// The audit level of the event (`Metadata`, `Request`, `RequestResponse`, `unknown`).
    pub level: &'static str,
    /// Where the event was read (`file:line`).
    pub source: String,
    /// How many actions this row stands for (retries of one actor, action and target with
    /// the same cause, collapsed by [`History::collapse`]); 1 for one action.
    pub count: usize,
    /// With `count` > 1: when the last of them was (`time` is the first's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<String>,
    /// Microseconds of `last` (not in the JSON).
    #[serde(skip)]
    pub last_us: i64,
    /// A collection deletion, with a state before: the objects of that state it took.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub taken: Vec<Taken>,
    /// With a state after the log (`--after`): the object there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Fate>,
    /// With the controller manager's log among the inputs: each source that shows this
    /// action, and where — one row for one action, however many sources saw it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Proof>,
    /// Within a minute after a start of the garbage collector (a restart: a new graph from
    /// fresh lists), how long after it, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_gc_start_ms: Option<i64>,
}

/// Where a source shows an action.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Proof {
    /// `audit-log`, `controller-manager-log`.
    pub source: &'static str,
    /// `file:line`.
    pub at: String,
    /// What it says, where that adds to the row (the policy the GC sent, the cause's proof).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub says: Option<String>,
}

impl Item {
    /// The cause's kind, if any.
    pub fn cause_kind(&self) -> Option<CauseKind> {
        self.cause.as_ref().map(|c| c.type_)
    }

    /// A GC action nothing in the inputs accounts for.
    pub fn unexplained(&self) -> bool {
        self.cause_kind() == Some(CauseKind::Unexplained)
    }
}

/// What became of an object in the state after the log.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Fate {
    /// Not there (and its resource was read there).
    Gone,
    /// Still there, its deletion pending on finalizers.
    Terminating,
    /// Still there.
    Present,
    /// The name is there with another UID (or, where the log names no UID, an object
    /// created after the action).
    Recreated,
    /// The state after did not read it.
    Unknown,
}

impl Fate {
    /// As the schema spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Fate::Gone => "gone",
            Fate::Terminating => "terminating",
            Fate::Present => "present",
            Fate::Recreated => "recreated",
            Fate::Unknown => "unknown",
        }
    }
}

/// An object a collection deletion took: one of the state before in its namespace and
/// resource that nothing in the log removed earlier and no finalizer held.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Taken {
    /// The object (as the state before had it).
    #[serde(serialize_with = "by_resource::one")]
    pub object: ObjectRef,
    /// How sure: `confirmed` (the state after no longer holds it), `likely` (no state after
    /// read it), `possible` (the request had a field selector, which is not evaluated).
    pub sure: &'static str,
}

/// An object of the state before that the state after no longer holds, with no deletion of its
/// own in the log.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unlogged {
    /// The object (as the state before had it).
    #[serde(serialize_with = "by_resource::one")]
    pub object: ObjectRef,
    /// The collection deletion of the log that took it (its resource in its namespace), if
    /// any; absent: it went in a gap of the log or outside its window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collection: Option<Root>,
}

/// Counts and what the inputs could not tell.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Actions in the log, before any selection (-n, --kind, --actor, -l, --since,
    /// --until).
    pub logged: usize,
    /// Actions by actor kind.
    pub by_actor: std::collections::BTreeMap<ActorKind, usize>,
    /// Actions by cause type (GC and namespace-controller actions).
    pub by_cause: std::collections::BTreeMap<CauseKind, usize>,
    /// GC deletions nothing in the inputs accounts for.
    pub unexplained: usize,
    /// The window the log covers (RFC 3339), when it has events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// End of the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Server-side dry runs (`dryRun=All`) of writes the history would report: the server
    /// changed nothing, so they are not listed as actions.
    pub dry_run: usize,
    /// Whether any GC action was seen at all (a policy that drops the GC shows none).
    pub gc_seen: bool,
    /// What the inputs could not tell, and how that limits the answer.
    pub notes: Vec<String>,
}

impl Summary {
    /// Counts `items` by actor and cause (again after a selection: the counts describe what
    /// is shown).
    pub fn count(&mut self, items: &[Item]) {
        self.by_actor.clear();
        self.by_cause.clear();
        self.unexplained = 0;
        for it in items {
            *self.by_actor.entry(it.actor.kind).or_default() += it.count;
            if let Some(c) = &it.cause {
                *self.by_cause.entry(c.type_).or_default() += it.count;
                if c.type_ == CauseKind::Unexplained {
                    self.unexplained += it.count;
                }
            }
        }
    }
}

/// The history.
#[derive(Clone, Debug, Serialize)]
pub struct History {
    /// The actions, in time order.
    pub items: Vec<Item>,
    /// With states before and after: objects gone without a deletion of their own in the log.
    pub unlogged: Vec<Unlogged>,
    /// Counts and notes.
    pub summary: Summary,
}

/// Formats microseconds since the epoch as RFC 3339 with microseconds.
pub fn format_us(us: i64) -> String {
    let secs = us.div_euclid(1_000_000);
    let micros = us.rem_euclid(1_000_000);
    let base = format_rfc3339(secs);
    match base.strip_suffix('Z') {
        Some(b) => format!("{b}.{micros:06}Z"),
        None => base,
    }
}

/// An object's coordinates: group, resource, namespace, name.
pub(super) type Key = (String, String, String, String);

/// Tests compare the enums with the words the schema spells.
#[cfg(test)]
mod spelt {
    use super::*;

    macro_rules! eq_str {
        ($($t:ty),*) => {$(
            impl PartialEq<&str> for $t {
                fn eq(&self, other: &&str) -> bool {
                    self.as_str() == *other
                }
            }
        )*};
    }
    eq_str!(ActorKind, Verb, Policy, CauseKind, Fate);
}
