//! The line table: every message the garbage collector and the namespace controller of
//! kube-controller-manager write about what they do, in the wordings of the releases 1.13 to
//! the newest, as upstream's klog calls in `pkg/controller/garbagecollector/` and
//! `pkg/controller/namespace/` print them (`tests/data/controller-manager/line-table.tsv`
//! records which release each wording comes from and at which `--v`; a test renders each of
//! its format strings and reads it back through this table).
//!
//! Three shapes: `Infof` text (1.13 to 1.26 for most lines: `delete object %s with
//! propagation policy %s`), `InfoS` structured lines (1.20 to 1.26: `"Deleting object"
//! object="ns/name" objectUID=… kind="ConfigMap" propagationPolicy=Background`), and
//! contextual logging (1.27 and later: `"Deleting item" item="[v1/ConfigMap, namespace: ns,
//! name: n, uid: u]" propagationPolicy="Background"`). The JSON logging format carries the same
//! message in `msg` and the pairs as fields.

use super::text::{identity, kref, owner_refs, pairs, quoted};
use super::{Ident, Kind};

/// A message of a line: its text (for `Infof` lines, all of it) and its pairs.
pub(super) struct Message<'a> {
    pub text: std::borrow::Cow<'a, str>,
    pub pairs: Vec<(String, String)>,
    /// The line's own `v`, where the format records it (JSON).
    pub v: Option<u8>,
}

impl<'a> Message<'a> {
    /// A klog text payload (after the header): a quoted message and pairs, or `Infof` text.
    pub fn klog(payload: &'a str) -> Message<'a> {
        let payload = payload.trim_end_matches(['\r', ' ']);
        if payload.starts_with('"')
            && let Some((text, rest)) = quoted(payload)
        {
            return Message {
                text: text.into(),
                pairs: pairs(rest),
                v: None,
            };
        }
        Message {
            text: payload.into(),
            pairs: Vec::new(),
            v: None,
        }
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// What a hole of a pattern, or a key of a structured line, holds.
#[derive(Clone, Copy, Debug)]
enum Field {
    /// The GC's identity of the object (`[v1/ConfigMap, namespace: …]`).
    Object,
    /// `ns/name` of the object (klog's `KRef`).
    ObjectRef,
    ObjectUid,
    ObjectKind,
    ObjectApiVersion,
    /// The GC's identity of an owner.
    Owner,
    /// Owner references as Go prints a slice of them.
    Owners,
    /// `apiVersion/Kind` of an owner reference.
    OwnerGvk,
    OwnerName,
    Policy,
    Namespace,
    /// A group-version-resource as Go prints it (`/v1, Resource=configmaps`).
    Resource,
    Version,
    /// `virtual=true|false`.
    Virtual,
    /// A controller's name (`controller="garbagecollector"`).
    Controller,
    /// An Event's reason (`reason="OwnerRefInvalidNamespace"`).
    Reason,
    /// Anything else (kept out of the record).
    Skip,
}

/// How a wording is printed.
enum Shape {
    /// `Infof` text: literal pieces and `{}` holes, in order.
    Text(&'static str, &'static [Field]),
    /// A structured line: its message, and what its keys hold.
    Pairs(&'static str, &'static [(&'static str, Field)]),
}

/// One wording of the table.
struct Wording {
    kind: Kind,
    /// Its `--v` (0: always logged).
    v: u8,
    /// A substring every line of this wording holds (no quote or backslash, so that it is
    /// found in JSON-escaped text too): the scan's prefilter.
    anchor: &'static str,
    shape: Shape,
}

use Field as F;
use Kind as K;

/// The table. Releases in `tests/data/controller-manager/line-table.tsv`.
const TABLE: &[Wording] = &[
    // Deletions.
    w(
        K::Delete,
        2,
        "delete object ",
        Shape::Text(
            "delete object {} with propagation policy {}",
            &[F::Object, F::Policy],
        ),
    ),
    w(
        K::Delete,
        2,
        "Deleting object",
        Shape::Pairs(
            "Deleting object",
            &[
                ("object", F::ObjectRef),
                ("objectUID", F::ObjectUid),
                ("kind", F::ObjectKind),
                ("propagationPolicy", F::Policy),
            ],
        ),
    ),
    w(
        K::Delete,
        2,
        "Deleting item",
        Shape::Pairs(
            "Deleting item",
            &[("item", F::Object), ("propagationPolicy", F::Policy)],
        ),
    ),
    w(
        K::DeleteForeground,
        2,
        "deleted in Foreground",
        Shape::Text(
            "at least one owner of object {} has FinalizerDeletingDependents, and the object itself has dependents, so it is going to be deleted in Foreground",
            &[F::Object],
        ),
    ),
    w(
        K::DeleteForeground,
        2,
        "deleted in Foreground",
        Shape::Pairs(
            "at least one owner of item has FinalizerDeletingDependents, and the item itself has dependents, so it is going to be deleted in Foreground",
            &[("item", F::Object)],
        ),
    ),
    w(
        K::Unblock,
        2,
        "to prevent potential cycle",
        Shape::Text(
            "processing object {}, some of its owners and its dependent [{}] have FinalizerDeletingDependents, to prevent potential cycle, its ownerReferences are going to be modified to be non-blocking, then the object is going to be deleted with Foreground",
            &[F::Object, F::Skip],
        ),
    ),
    w(
        K::Unblock,
        2,
        "to prevent potential cycle",
        Shape::Pairs(
            "processing item, some of its owners and its dependent have FinalizerDeletingDependents, to prevent potential cycle, its ownerReferences are going to be modified to be non-blocking, then the item is going to be deleted with Foreground",
            &[("item", F::Object)],
        ),
    ),
    // Finalizers and references.
    w(
        K::RemoveFinalizer,
        2,
        "remove DeleteDependents finalizer",
        Shape::Text(
            "remove DeleteDependents finalizer for item {}",
            &[F::Object],
        ),
    ),
    w(
        K::RemoveFinalizer,
        2,
        "remove DeleteDependents finalizer",
        Shape::Pairs(
            "remove DeleteDependents finalizer for item",
            &[("item", F::Object)],
        ),
    ),
    w(
        K::RemoveReferences,
        2,
        "remove dangling references",
        Shape::Text(
            "remove dangling references {} and waiting references {} for object {}",
            &[F::Owners, F::Skip, F::Object],
        ),
    ),
    w(
        K::RemoveReferences,
        2,
        "remove dangling references",
        Shape::Pairs(
            "remove dangling references and waiting references for item",
            &[("item", F::Object), ("dangling", F::Owners)],
        ),
    ),
    // Why: what the graph builder and the owner lookups saw.
    w(
        K::NamespaceMismatch,
        2,
        "does not match namespaces",
        Shape::Text(
            "node {} references an owner {} but does not match namespaces",
            &[F::Object, F::Owner],
        ),
    ),
    w(
        K::NamespaceMismatch,
        2,
        "does not match namespaces",
        Shape::Pairs(
            "item references an owner but does not match namespaces",
            &[("item", F::Object), ("owner", F::Owner)],
        ),
    ),
    w(
        K::CoordinateMismatch,
        2,
        "do not match the observed identity",
        Shape::Text(
            "node {} references an owner {} with coordinates that do not match the observed identity",
            &[F::Object, F::Owner],
        ),
    ),
    w(
        K::CoordinateMismatch,
        2,
        "do not match the observed identity",
        Shape::Pairs(
            "item references an owner with coordinates that do not match the observed identity",
            &[("item", F::Object), ("owner", F::Owner)],
        ),
    ),
    w(
        K::OwnerUidMismatch,
        5,
        "s owner ",
        Shape::Text(
            "object {}'s owner {}, {} is not found, UID mismatch",
            &[F::ObjectUid, F::OwnerGvk, F::OwnerName],
        ),
    ),
    w(
        K::OwnerUidMismatch,
        5,
        "s owner ",
        Shape::Pairs(
            "item's owner is not found, UID mismatch",
            &[("item", F::Object), ("owner", F::Owners)],
        ),
    ),
    w(
        K::OwnerAbsent,
        5,
        "s owner ",
        Shape::Text(
            "object {}'s owner {}, {} is not found",
            &[F::ObjectUid, F::OwnerGvk, F::OwnerName],
        ),
    ),
    w(
        K::OwnerAbsent,
        5,
        "s owner ",
        Shape::Pairs(
            "item's owner is not found",
            &[("item", F::Object), ("owner", F::Owners)],
        ),
    ),
    w(
        K::OwnerAbsent,
        5,
        "according to the absentOwnerCache",
        Shape::Text(
            "according to the absentOwnerCache, object {}'s owner {}, {} does not exist",
            &[F::ObjectUid, F::OwnerGvk, F::OwnerName],
        ),
    ),
    w(
        K::OwnerAbsent,
        5,
        "according to the absentOwnerCache",
        Shape::Text(
            "according to the absentOwnerCache, object {}'s owner {}, {} does not exist in namespace {}",
            &[F::ObjectUid, F::OwnerGvk, F::OwnerName, F::Namespace],
        ),
    ),
    w(
        K::OwnerAbsent,
        5,
        "according to the absentOwnerCache",
        Shape::Pairs(
            "according to the absentOwnerCache, item's owner does not exist",
            &[("item", F::Object), ("owner", F::Owners)],
        ),
    ),
    w(
        K::OwnerAbsent,
        5,
        "according to the absentOwnerCache",
        Shape::Pairs(
            "according to the absentOwnerCache, item's owner does not exist in namespace",
            &[("item", F::Object), ("owner", F::Owners)],
        ),
    ),
    w(
        K::VirtualDelete,
        5,
        "generating a virtual delete event",
        Shape::Text(
            "UID doesn't match, item {} not found, generating a virtual delete event",
            &[F::Object],
        ),
    ),
    w(
        K::VirtualDelete,
        5,
        "generating a virtual delete event",
        Shape::Text(
            "item {} not found, generating a virtual delete event",
            &[F::Object],
        ),
    ),
    w(
        K::VirtualDelete,
        5,
        "generating a virtual delete event",
        Shape::Pairs(
            "UID doesn't match, item not found, generating a virtual delete event",
            &[("item", F::Object)],
        ),
    ),
    w(
        K::VirtualDelete,
        5,
        "generating a virtual delete event",
        Shape::Pairs(
            "item not found, generating a virtual delete event",
            &[("item", F::Object)],
        ),
    ),
    // The event broadcaster logs every Event at --v=0.
    w(
        K::InvalidNamespaceEvent,
        0,
        "OwnerRefInvalidNamespace",
        Shape::Pairs(
            "Event occurred",
            &[
                ("object", F::ObjectRef),
                ("kind", F::ObjectKind),
                ("apiVersion", F::ObjectApiVersion),
                ("reason", F::Reason),
            ],
        ),
    ),
    w(
        K::DependentQueued,
        2,
        "is deletingDependents",
        Shape::Text(
            "adding {} to attemptToDelete, because its owner {} is deletingDependents",
            &[F::Object, F::Owner],
        ),
    ),
    w(
        K::DependentQueued,
        2,
        "is deletingDependents",
        Shape::Pairs(
            "adding dependent to attemptToDelete, because its owner is deletingDependents",
            &[("dependent", F::Object), ("item", F::Owner)],
        ),
    ),
    // Foreground and orphan deletions as the graph builder starts them, and orphaning done.
    w(
        K::ForegroundStart,
        2,
        "waiting for its dependents to be deleted",
        Shape::Text(
            "add {} to the attemptToDelete, because it's waiting for its dependents to be deleted",
            &[F::Object],
        ),
    ),
    w(
        K::ForegroundStart,
        2,
        "waiting for its dependents to be deleted",
        Shape::Pairs(
            "add item to attemptToDelete, because it's waiting for its dependents to be deleted",
            &[("item", F::Object)],
        ),
    ),
    w(
        K::OrphanStart,
        5,
        "attemptToOrphan",
        Shape::Text("add {} to the attemptToOrphan", &[F::Object]),
    ),
    w(
        K::OrphanStart,
        5,
        "attemptToOrphan",
        Shape::Pairs("add item to attemptToOrphan", &[("item", F::Object)]),
    ),
    w(
        K::Orphaned,
        5,
        "successfully updated all dependents",
        Shape::Text(
            "successfully updated all dependents of owner {}",
            &[F::Object],
        ),
    ),
    w(
        K::Orphaned,
        5,
        "successfully updated all dependents",
        Shape::Pairs(
            "successfully updated all dependents",
            &[("owner", F::Object)],
        ),
    ),
    // Items looked at (proof of the verbosity; a virtual one is an owner never observed).
    w(
        K::Processing,
        2,
        "processing item ",
        Shape::Text("processing item {}", &[F::Object]),
    ),
    w(
        K::Processing,
        2,
        "Processing object",
        Shape::Pairs(
            "Processing object",
            &[
                ("object", F::ObjectRef),
                ("objectUID", F::ObjectUid),
                ("kind", F::ObjectKind),
                ("virtual", F::Virtual),
            ],
        ),
    ),
    w(
        K::Processing,
        2,
        "Processing item",
        Shape::Pairs(
            "Processing item",
            &[("item", F::Object), ("virtual", F::Virtual)],
        ),
    ),
    // Starts.
    w(
        K::Start,
        0,
        "Starting garbage collector controller",
        Shape::Text("Starting garbage collector controller", &[]),
    ),
    w(
        K::Start,
        0,
        "Starting controller",
        Shape::Pairs("Starting controller", &[("controller", F::Controller)]),
    ),
    w(
        K::NamespaceStart,
        0,
        "Starting namespace controller",
        Shape::Text("Starting namespace controller", &[]),
    ),
    w(
        K::Synced,
        0,
        "all resource monitors have synced",
        Shape::Text(
            "Garbage collector: all resource monitors have synced. Proceeding to collect garbage",
            &[],
        ),
    ),
    w(
        K::Synced,
        0,
        "all resource monitors have synced",
        Shape::Pairs("Garbage collector: all resource monitors have synced", &[]),
    ),
    w(
        K::ProcessStart,
        0,
        "Version: ",
        Shape::Text("Version: {}", &[F::Version]),
    ),
    // The namespace controller.
    w(
        K::NamespaceGone,
        0,
        "Namespace has been deleted",
        Shape::Text("Namespace has been deleted {}", &[F::Namespace]),
    ),
    w(
        K::NamespaceGone,
        0,
        "Namespace has been deleted",
        Shape::Pairs("Namespace has been deleted", &[("namespace", F::Namespace)]),
    ),
    w(
        K::NamespaceContentDone,
        4,
        "deleteAllContent",
        Shape::Text(
            "namespace controller - deleteAllContent - namespace: {}, estimate: {}, errors: {}",
            &[F::Namespace, F::Skip, F::Skip],
        ),
    ),
    w(
        K::NamespaceContent,
        4,
        "deleteAllContent",
        Shape::Text(
            "namespace controller - deleteAllContent - namespace: {}",
            &[F::Namespace],
        ),
    ),
    w(
        K::NamespaceContent,
        4,
        "deleteAllContent",
        Shape::Pairs(
            "Namespace controller - deleteAllContent",
            &[("namespace", F::Namespace)],
        ),
    ),
    w(
        K::NamespaceCollection,
        5,
        "deleteCollection",
        Shape::Text(
            "namespace controller - deleteCollection - namespace: {}, gvr: {}",
            &[F::Namespace, F::Resource],
        ),
    ),
    w(
        K::NamespaceCollection,
        5,
        "deleteCollection",
        Shape::Pairs(
            "Namespace controller - deleteCollection",
            &[("namespace", F::Namespace), ("resource", F::Resource)],
        ),
    ),
];

const fn w(kind: Kind, v: u8, anchor: &'static str, shape: Shape) -> Wording {
    Wording {
        kind,
        v,
        anchor,
        shape,
    }
}

/// The prefilter's substrings: a line none of which holds is no line of the table.
pub(super) fn anchors() -> Vec<&'static str> {
    let mut a: Vec<&'static str> = TABLE.iter().map(|w| w.anchor).collect();
    a.sort_unstable();
    a.dedup();
    a
}

/// What a line of the table says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Said {
    pub object: Option<Ident>,
    pub owners: Vec<Ident>,
    pub policy: Option<String>,
    pub namespace: Option<String>,
    pub resource: Option<String>,
    pub version: Option<String>,
    pub virtual_: bool,
}

/// The wording `msg` is, and what it says: kind, `--v`, fields. `None`: no line of the table
/// (another controller's, or a line of the GC's this table does not read).
pub(super) fn recognise(msg: &Message<'_>) -> Option<(Kind, u8, Said)> {
    for w in TABLE {
        let said = match &w.shape {
            Shape::Text(pattern, fields) => {
                let Some(holes) = fill(pattern, &msg.text) else {
                    continue;
                };
                if holes.len() != fields.len() {
                    continue;
                }
                let mut said = Said::default();
                let ok = fields
                    .iter()
                    .zip(&holes)
                    .all(|(f, v)| put(&mut said, *f, v));
                if !ok {
                    continue;
                }
                said
            }
            Shape::Pairs(text, keys) => {
                if msg.text != *text {
                    continue;
                }
                let mut said = Said::default();
                let mut ok = true;
                for (key, field) in *keys {
                    if let Some(v) = msg.get(key) {
                        ok &= put(&mut said, *field, v);
                    }
                }
                if !ok {
                    continue;
                }
                said
            }
        };
        if !accept(w, msg, &said) {
            continue;
        }
        return Some((w.kind, msg.v.unwrap_or(w.v), said));
    }
    None
}

/// `fill` found the pieces only if the text is this wording: a per-wording check of what the
/// pattern cannot say (which controller started; which Event).
fn accept(w: &Wording, msg: &Message<'_>, said: &Said) -> bool {
    match (w.kind, &w.shape) {
        (K::Start, Shape::Pairs(..)) => msg.get("controller") == Some("garbagecollector"),
        (K::InvalidNamespaceEvent, _) => msg.get("reason") == Some("OwnerRefInvalidNamespace"),
        (K::Delete | K::DeleteForeground | K::RemoveFinalizer | K::Processing, _) => {
            said.object.is_some()
        }
        _ => true,
    }
}

/// The holes of `pattern` (`{}`) in `text`, when `text` is that pattern.
fn fill<'t>(pattern: &str, text: &'t str) -> Option<Vec<&'t str>> {
    let mut pieces = pattern.split("{}");
    let first = pieces.next()?;
    let mut rest = text.strip_prefix(first)?;
    let mut holes = Vec::new();
    let pieces: Vec<&str> = pieces.collect();
    for (i, lit) in pieces.iter().enumerate() {
        let last = i + 1 == pieces.len();
        let at = if lit.is_empty() {
            if last { rest.len() } else { return None }
        } else if last {
            // The last literal ends the text.
            rest.strip_suffix(lit).map(str::len)?
        } else {
            rest.find(lit)?
        };
        holes.push(&rest[..at]);
        rest = &rest[at + lit.len()..];
    }
    if pieces.is_empty() && !rest.is_empty() {
        return None;
    }
    Some(holes)
}

/// Puts hole or pair value `v` into `said` as `f` says; false when `v` is not of that form.
fn put(said: &mut Said, f: Field, v: &str) -> bool {
    match f {
        F::Object => match identity(v) {
            Some((id, _)) => said.object = Some(id),
            None => return false,
        },
        F::ObjectRef => {
            let (ns, name) = kref(v);
            let o = said.object.get_or_insert_with(Ident::default);
            o.namespace = ns;
            o.name = name;
        }
        F::ObjectUid => said.object.get_or_insert_with(Ident::default).uid = v.to_owned(),
        F::ObjectKind => said.object.get_or_insert_with(Ident::default).kind = v.to_owned(),
        F::ObjectApiVersion => {
            said.object.get_or_insert_with(Ident::default).api_version = v.to_owned();
        }
        F::Owner => match identity(v) {
            Some((id, _)) => said.owners.push(id),
            None => return false,
        },
        F::Owners => said.owners.extend(owner_refs(v)),
        F::OwnerGvk => {
            let Some((api_version, kind)) = v.rsplit_once('/') else {
                return false;
            };
            let o = owner(said);
            o.api_version = api_version.to_owned();
            o.kind = kind.to_owned();
        }
        F::OwnerName => owner(said).name = v.to_owned(),
        F::Policy => said.policy = Some(v.to_owned()),
        F::Namespace => said.namespace = Some(v.to_owned()),
        F::Resource => said.resource = Some(v.to_owned()),
        F::Version => said.version = Some(v.to_owned()),
        F::Virtual => said.virtual_ = v == "true",
        F::Controller | F::Reason | F::Skip => {}
    }
    true
}

fn owner(said: &mut Said) -> &mut Ident {
    if said.owners.is_empty() {
        said.owners.push(Ident::default());
    }
    let last = said.owners.len() - 1;
    &mut said.owners[last]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_takes_holes_between_literals_and_the_last_one_to_the_end() {
        assert_eq!(fill("a {} b {}", "a x b y z"), Some(vec!["x", "y z"]));
        assert_eq!(fill("a {} b", "a x b"), Some(vec!["x"]));
        assert_eq!(fill("a {} b", "a x c"), None);
        assert_eq!(fill("fixed", "fixed"), Some(vec![]));
        assert_eq!(fill("fixed", "fixed and more"), None);
        assert_eq!(fill("x {}", "y"), None);
    }

    #[test]
    fn every_anchor_is_in_its_own_wording() {
        for w in TABLE {
            let text = match &w.shape {
                Shape::Text(t, _) | Shape::Pairs(t, _) => t,
            };
            assert!(
                text.contains(w.anchor) || w.anchor == "OwnerRefInvalidNamespace",
                "{:?}: {text:?} lacks {:?}",
                w.kind,
                w.anchor
            );
            assert!(!w.anchor.contains(['"', '\\']), "{}", w.anchor);
        }
    }
}
