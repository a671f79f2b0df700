//! Finding what a user names on the command line, the way kubectl reads it: a kind (`--kind`,
//! the KIND of `KIND/NAME`) as a kind, plural, singular, short name or `kind.group`,
//! case-insensitive; and `KIND/NAME` in a namespace or, with `-A`, in any.

use crate::catalog::short_names;
use crate::error::{Error, Result};
use crate::model::{ObjId, ResourceId};
use crate::snapshot::{ListOutcome, Snapshot};

/// What a `--kind` word (or the KIND of `KIND/NAME`) names in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KindMatch {
    /// Rows of the resource table (every version of the kind the input holds).
    Found(Vec<ResourceId>),
    /// A kind Kubernetes has (built in), but the input has no row for it: the `Kind`.
    NotInInput(String),
    /// Nothing by that name, in the input or built in.
    Unknown,
}

/// The names kubectl accepts for a resource, lower-case: the kind, the plural, the short names
/// of built-in resources.
pub fn names_of(kind: &str, plural: &str) -> Vec<String> {
    let mut names = vec![kind.to_ascii_lowercase(), plural.to_owned()];
    for short in short_names::all() {
        if short_names::plural_of(short) == Some(plural) {
            names.push((*short).to_owned());
        }
    }
    names
}

/// True when `word` (lower-case) names `r` as kubectl would: its kind (the singular), plural or
/// short name, alone or followed by `.group` or `.version.group`.
fn names_resource(word: &str, kind: &str, plural: &str, group: &str, version: &str) -> bool {
    names_of(kind, plural).iter().any(|n| {
        word == n
            || word
                .strip_prefix(n.as_str())
                .and_then(|rest| rest.strip_prefix('.'))
                .is_some_and(|rest| {
                    !group.is_empty()
                        && (rest == group
                            || rest
                                .strip_prefix(version)
                                .and_then(|r| r.strip_prefix('.'))
                                .is_some_and(|g| g == group))
                })
    })
}

/// Resolves a kind the way kubectl resolves a resource type: kind, plural, singular, short name
/// or `kind.group` (`deployments.apps`, `deploy`, `Deployment`), case-insensitive, against the
/// input's resource table.
pub fn resolve_kind(snap: &Snapshot, word: &str) -> KindMatch {
    let word = word.trim().to_ascii_lowercase();
    let found: Vec<ResourceId> = snap
        .resources
        .iter()
        .enumerate()
        .filter(|(_, r)| names_resource(&word, &r.kind, &r.plural, &r.group, &r.version))
        .map(|(i, _)| ResourceId(i as u32))
        .collect();
    if !found.is_empty() {
        return KindMatch::Found(found);
    }
    match crate::catalog::builtin::all().iter().find(|b| {
        b.versions
            .iter()
            .any(|v| names_resource(&word, b.kind, b.plural, b.group, v.version))
            || names_resource(&word, b.kind, b.plural, b.group, "")
    }) {
        Some(b) => KindMatch::NotInInput(b.kind.to_owned()),
        None => KindMatch::Unknown,
    }
}

/// The kinds of the input, as `Kind (short)` for messages, sorted, deduplicated.
pub fn kinds_in(snap: &Snapshot) -> Vec<String> {
    let mut kinds: Vec<String> = snap
        .resources
        .iter()
        .filter(|r| r.monitored())
        .map(|r| {
            let shorts: Vec<String> = names_of(&r.kind, &r.plural).split_off(2);
            if shorts.is_empty() {
                r.kind.clone()
            } else {
                format!("{} ({})", r.kind, shorts.join(", "))
            }
        })
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

/// An object the input does not hold, where the input does not prove it absent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unproven {
    /// API group of its kind.
    pub group: String,
    /// Its kind.
    pub kind: String,
    /// Its namespace (`""` for a cluster-scoped kind).
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Why the input cannot tell: the kind's list was forbidden or failed, or a file does not
    /// prove it holds every object of the kind there.
    pub reason: String,
    /// The objects of the kind the input holds whose names are nearest (`name -n ns`): a typo,
    /// or the object in another namespace than the one asked about.
    pub nearest: Vec<String>,
}

/// For `KIND/NAME` that the input does not hold: why the input does not prove it absent, or
/// `None` when it does (its kind was listed completely where the object would be, or the
/// kind is not one the input could hold). Unknown is never absent: every command that names
/// an object asks this before calling it missing.
pub fn unproven(snap: &Snapshot, target: &str, namespace: Option<&str>) -> Option<Unproven> {
    let (kind, name) = target.split_once('/')?;
    let files = snap.provenance.source == crate::snapshot::SourceKind::Files;
    let object = |group: &str, kind: &str, namespaced: bool, reason: String| Unproven {
        group: group.to_owned(),
        kind: kind.to_owned(),
        namespace: if namespaced {
            namespace.unwrap_or_default().to_owned()
        } else {
            String::new()
        },
        name: name.to_owned(),
        reason,
        nearest: Vec::new(),
    };
    match resolve_kind(snap, kind) {
        KindMatch::Found(rows) => rows.iter().find_map(|&row| {
            let r = &snap.resources[row.index()];
            let ns = if r.namespaced {
                namespace.unwrap_or_default()
            } else {
                ""
            };
            let covered = match namespace {
                Some(_) => r.list.covers(ns),
                None => r.list == ListOutcome::Complete,
            };
            if covered {
                return None;
            }
            let resource = r.plural_group();
            let place = match (namespace, r.namespaced) {
                (Some(ns), true) => format!(" in namespace {ns}"),
                (None, true) => " in every namespace".to_owned(),
                _ => String::new(),
            };
            let reason = match &r.list {
                ListOutcome::Forbidden { message } => {
                    format!("listing {resource}{place} was forbidden ({message})")
                }
                ListOutcome::Failed { message } => {
                    format!("listing {resource}{place} failed ({message})")
                }
                ListOutcome::Ignored { .. } => {
                    format!("{resource} are not read: the GC does not watch them")
                }
                _ if files => format!(
                    "the input does not prove it holds every one of {resource}{place} (a file \
                     holds what was exported, not necessarily all; --assume-complete says it does)"
                ),
                _ => format!("{resource}{place} were not listed"),
            };
            Some(Unproven {
                nearest: nearest(snap, &rows, name, 3),
                ..object(&r.group, &r.kind, r.namespaced, reason)
            })
        }),
        KindMatch::NotInInput(k) if files => {
            let b = crate::catalog::builtin::all()
                .iter()
                .find(|b| b.kind == k)?;
            Some(object(
                b.group,
                b.kind,
                b.namespaced,
                format!(
                    "the input holds no {k} objects, which does not prove there are none \
                     (--assume-complete says the input holds everything)"
                ),
            ))
        }
        _ => None,
    }
}

/// Not found, said as what it is when the input does not prove the object absent: not in
/// the input, and why the input cannot tell.
fn unproven_error(snap: &Snapshot, target: &str, namespace: Option<&str>) -> Option<Error> {
    let u = unproven(snap, target, namespace)?;
    let mut hint =
        "read it with a context that can list it, or pass an input that holds it".to_owned();
    if !u.nearest.is_empty() {
        hint.push_str(&format!("; nearest in the input: {}", u.nearest.join(", ")));
    }
    Some(Error::NotFound {
        message: format!(
            "{target} is not in the input, which does not prove it absent: {}",
            u.reason
        ),
        hint: Some(hint),
    })
}

/// Resolves `KIND/NAME` (kind, plural, short name or `kind.group`; case-insensitive) to an
/// object in `namespace`, or in any namespace when `namespace` is `None` (`-A`).
pub fn resolve_target(snap: &Snapshot, target: &str, namespace: Option<&str>) -> Result<ObjId> {
    let (kind, name) = target.split_once('/').ok_or_else(|| {
        Error::usage(
            format!("expected KIND/NAME, got {target:?}"),
            "e.g. deployment/web -n shop",
        )
    })?;
    let rows = match resolve_kind(snap, kind) {
        KindMatch::Found(rows) => rows,
        // The kind exists but the input holds none of it: the object named is not there
        // either, which is "not found" (exit 8) as for a name no object has.
        KindMatch::NotInInput(k) => {
            return Err(unproven_error(snap, target, namespace).unwrap_or_else(|| {
                Error::NotFound {
                    message: format!("{target}: the input holds no {k} objects"),
                    hint: Some("check -f/--snapshot, or the cluster's resources".to_owned()),
                }
            }));
        }
        KindMatch::Unknown => {
            return Err(Error::usage(
                format!("{target}: unknown kind {kind:?}"),
                format!("kinds in the input: {}", join_some(&kinds_in(snap), 12)),
            ));
        }
    };
    let mut found = Vec::new();
    for id in snap.store.ids() {
        let o = snap.store.object(id);
        if rows.contains(&o.resource)
            && snap.store.str(o.name) == name
            && (!snap.resource_of(o).namespaced
                || namespace.is_none_or(|ns| snap.store.str(o.namespace) == ns))
        {
            found.push(id);
        }
    }
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(
            unproven_error(snap, target, namespace).unwrap_or_else(|| Error::NotFound {
                message: match namespace {
                    Some(ns) => format!("{target} not found in namespace {ns:?}"),
                    None => format!("{target} not found in any namespace"),
                },
                hint: Some({
                    let near = nearest(snap, &rows, name, 5);
                    let look = if namespace.is_some() {
                        "check the name and -n (-A looks in every namespace)"
                    } else {
                        "check the name"
                    };
                    if near.is_empty() {
                        format!("{look}; the input holds no object of that kind")
                    } else {
                        format!("{look}; nearest: {}", near.join(", "))
                    }
                }),
            }),
        ),
        many => Err(ambiguous_error(snap, target, many)),
    }
}

/// Several objects match `target`: names where they are, or, when they differ only by UID,
/// says the input mixes two lives of one object.
fn ambiguous_error(snap: &Snapshot, target: &str, many: &[ObjId]) -> Error {
    let mut places: Vec<String> = many
        .iter()
        .map(|&id| {
            let o = snap.store.object(id);
            format!(
                "{} in {}",
                snap.resource_of(o).kind,
                match snap.store.str(o.namespace) {
                    "" => "the cluster scope",
                    ns => ns,
                }
            )
        })
        .collect();
    places.sort();
    places.dedup();
    if places.len() == 1 {
        // One kind, one namespace, one name, yet several objects: they differ only by
        // UID, which no selector here can tell apart. The input holds two lives of
        // the object: files of different clusters, or of one deleted and recreated.
        let mut uids: Vec<String> = many
            .iter()
            .map(|&id| snap.store.str(snap.store.object(id).uid).to_owned())
            .collect();
        uids.sort();
        return Error::usage(
            format!(
                "{target} is ambiguous: {} objects of that name ({}) with different UIDs: {}",
                many.len(),
                places[0],
                join_some(&uids, 6)
            ),
            "the input mixes objects of different clusters or times: read one cluster's files at a time (graph --uid UID picks one)",
        );
    }
    Error::usage(
        format!(
            "{target} is ambiguous: {} objects match ({})",
            many.len(),
            join_some(&places, 6)
        ),
        "name the namespace with -n, or qualify the kind with its group (deployments.apps/web)",
    )
}

/// The `max` objects of the `rows` kinds whose names are nearest `name` (edit distance), as
/// `name -n ns` (cluster-scoped: `name`). `main` sanitises the hint it is shown in.
pub fn nearest(snap: &Snapshot, rows: &[ResourceId], name: &str, max: usize) -> Vec<String> {
    let store = &snap.store;
    let mut candidates: Vec<(usize, String)> = store
        .ids()
        .filter(|&id| rows.contains(&store.object(id).resource))
        .map(|id| {
            let o = store.object(id);
            let n = store.str(o.name);
            let at = match store.str(o.namespace) {
                "" => n.to_owned(),
                ns => format!("{n} -n {ns}"),
            };
            (distance(n, name), at)
        })
        .collect();
    candidates.sort();
    candidates.dedup();
    candidates.into_iter().take(max).map(|(_, at)| at).collect()
}

/// Levenshtein distance over characters (names are short: O(n·m) is fine).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The first `max` items joined with `, `, then `… (N more)`.
pub fn join_some(items: &[String], max: usize) -> String {
    let mut s = items
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max {
        s.push_str(&format!(", … ({} more)", items.len() - max));
    }
    if s.is_empty() {
        s.push_str("none");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_names_by_edit_distance() {
        assert_eq!(distance("doomed", "doomed"), 0);
        assert_eq!(distance("doomed", "domed"), 1);
        assert_eq!(distance("web", "api"), 3);
        assert_eq!(distance("", "abc"), 3);
    }
    use crate::testkit::Cluster;

    #[test]
    fn targets_resolve_by_kind_plural_short_name_and_group() {
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "ns", "x", "cm-x");
        c.obj("apps/v1", "Deployment", "ns", "web", "d-web");
        c.obj("v1", "Node", "", "n1", "node-1");
        let s = c.build();
        for t in ["cm/x", "configmap/x", "ConfigMap/x", "configmaps/x"] {
            assert_eq!(
                s.store.str(
                    s.store
                        .object(resolve_target(&s, t, Some("ns")).unwrap())
                        .uid
                ),
                "cm-x",
                "{t}"
            );
        }
        for t in ["deploy/web", "deployments.apps/web", "deployment.apps/web"] {
            assert_eq!(
                s.store.str(
                    s.store
                        .object(resolve_target(&s, t, Some("ns")).unwrap())
                        .uid
                ),
                "d-web",
                "{t}"
            );
        }
        // Cluster-scoped: the namespace does not matter.
        assert!(resolve_target(&s, "no/n1", Some("elsewhere")).is_ok());
        // An object the input does not hold is "not found" (8), with the nearest names; so is
        // a kind Kubernetes has but the input holds none of.
        let err = resolve_target(&s, "cm/y", Some("ns")).unwrap_err();
        assert_eq!(err.exit_code(), crate::error::exit::NOT_FOUND);
        assert!(err.hint().unwrap().contains("nearest: x -n ns"), "{err:?}");
        assert_eq!(
            resolve_target(&s, "cm/x", Some("other"))
                .unwrap_err()
                .exit_code(),
            crate::error::exit::NOT_FOUND
        );
        assert_eq!(
            resolve_target(&s, "hpa/x", Some("ns"))
                .unwrap_err()
                .exit_code(),
            crate::error::exit::NOT_FOUND
        );
        // A kind nobody has is a usage error, as kubectl's "the server doesn't have a resource type".
        assert_eq!(
            resolve_target(&s, "nonsense/x", Some("ns"))
                .unwrap_err()
                .exit_code(),
            crate::error::exit::USAGE
        );
        assert!(resolve_target(&s, "deployments.batch/web", Some("ns")).is_err());
        assert!(resolve_target(&s, "noslash", Some("ns")).is_err());
        // -A: wherever it is.
        assert!(resolve_target(&s, "cm/x", None).is_ok());
    }

    #[test]
    fn ambiguity_says_what_tells_the_objects_apart() {
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "a", "x", "cm-a");
        c.obj("v1", "ConfigMap", "b", "x", "cm-b");
        // Two clusters' dumps read together: the same namespace twice.
        c.obj("v1", "Namespace", "", "shop", "ns-1");
        c.obj("v1", "Namespace", "", "shop", "ns-2");
        let s = c.build();
        let message = |t: &str| match resolve_target(&s, t, None).unwrap_err() {
            Error::Usage { message, hint } => (message, hint.unwrap_or_default()),
            e => panic!("{e}"),
        };
        // Different namespaces: -n tells them apart.
        let (m, h) = message("cm/x");
        assert!(m.contains("ConfigMap in a, ConfigMap in b"), "{m}");
        assert!(h.contains("-n"), "{h}");
        // Same kind, namespace and name: only the UIDs differ, and both are shown.
        let (m, h) = message("ns/shop");
        assert!(m.contains("different UIDs: ns-1, ns-2"), "{m}");
        assert!(h.contains("one cluster"), "{h}");
        assert!(resolve_target(&s, "cm/x", Some("a")).is_ok());
    }

    #[test]
    fn kinds_resolve_like_kubectl_against_the_input() {
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "ns", "x", "cm-x");
        c.obj("apps/v1", "Deployment", "ns", "web", "d-web");
        let s = c.build();
        let found = |w: &str| matches!(resolve_kind(&s, w), KindMatch::Found(_));
        for w in [
            "cm",
            "configmap",
            "configmaps",
            "ConfigMap",
            "deploy",
            "deployment.apps",
            "deployments.apps",
            "deployments.v1.apps",
        ] {
            assert!(found(w), "{w}");
        }
        assert_eq!(resolve_kind(&s, "deployments.batch"), KindMatch::Unknown);
        assert_eq!(
            resolve_kind(&s, "hpa"),
            KindMatch::NotInInput("HorizontalPodAutoscaler".into()),
            "known to Kubernetes, absent from the input"
        );
        assert_eq!(resolve_kind(&s, "nonsense"), KindMatch::Unknown);
    }
}
