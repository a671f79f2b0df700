//! `kubectl gc why KIND/NAME`: read the input, find the object, explain it
//! (`diagnose::why`), print it (`render::why`).

use crate::cli::{GlobalArgs, WhyArgs, WhyFormat};
use crate::diagnose::history::{self, Story};
use crate::diagnose::why::{Extras, Why, unread, why};
use crate::error::{Error, Result, exit};
use crate::gc::ObjectRef;
use crate::lookup::{self, KindMatch};
use crate::model::ObjId;
use crate::render::sink::Sink;
use crate::render::{self, Styles};
use crate::snapshot::Snapshot;
use crate::source::live;
use std::collections::BTreeMap;

/// `KIND/NAME`, or `KIND NAME` as kubectl takes them.
fn target(words: &[String]) -> Result<String> {
    let bad = |w: &str| w.is_empty() || w.starts_with('/') || w.ends_with('/');
    match words {
        [one] if one.contains('/') && !bad(one) => Ok(one.clone()),
        [kind, name] if !kind.contains('/') && !name.contains('/') && !bad(kind) && !bad(name) => {
            Ok(format!("{kind}/{name}"))
        }
        _ => Err(Error::usage(
            format!(
                "expected one object, as KIND/NAME or KIND NAME; got {:?}",
                words.join(" ")
            ),
            "why explains one object at a time: e.g. kubectl gc why namespace/doomed, or \
             kubectl gc why pvc data-0 -n shop",
        )),
    }
}

pub async fn run(g: &GlobalArgs, args: &WhyArgs) -> Result<u8> {
    let target = target(&args.target)?;
    let mut sink = Sink::open(args.file.output_file.as_deref())?;
    // Owners may be in any namespace and a namespace's content is everywhere in it: read all.
    let loaded = match super::load_input(g, false).await {
        Ok(l) => l,
        // No state given and no cluster to read: the audit log alone can still say what
        // happened to the object (an object the log shows deleted is answered whatever else
        // is given).
        Err(e @ Error::Cluster { .. }) if !args.audit_log.is_empty() => {
            let mut empty = Snapshot::default();
            let namespace = g.namespace.as_deref().filter(|_| !g.all_namespaces);
            return match gone(g, args, &mut empty, &target, namespace, &mut sink)? {
                Gone::Told => {
                    sink.commit()?;
                    Ok(exit::OK)
                }
                Gone::NotInLog(n) => Err(match e {
                    Error::Cluster { message, hint } => Error::Cluster {
                        message,
                        hint: Some(format!(
                            "{}; the audit log ({n} event(s)) has no deletion of it, so whether \
                             it exists needs the cluster or a state (--snapshot FILE, -f PATH)",
                            hint.unwrap_or_default()
                        )),
                    },
                    e => e,
                }),
            };
        }
        Err(e) => return Err(e),
    };
    let mut loaded = loaded;
    let gc_version = loaded.gc_version(g);
    let namespace = g
        .namespace
        .clone()
        .unwrap_or_else(|| loaded.default_namespace.clone());
    let namespace = (!g.all_namespaces).then_some(namespace.as_str());
    let id = match find(&loaded.snapshot, &target, namespace) {
        Ok(id) => id,
        Err(e)
            if matches!(e, Error::NotFound { .. })
                // A namespace or kind the input lacks: the log may still have the object.
                || (!args.audit_log.is_empty()
                    && matches!(&e, Error::Usage { message, .. } if !message.contains("ambiguous")))
                || matches!(
                    target
                        .split_once('/')
                        .map(|(k, _)| lookup::resolve_kind(&loaded.snapshot, k)),
                    Some(KindMatch::NotInInput(_))
                ) =>
        {
            // Not in the input: what the audit logs say happened to it, first.
            let mut events = None;
            if !args.audit_log.is_empty() {
                match gone(g, args, &mut loaded.snapshot, &target, namespace, &mut sink)? {
                    Gone::Told => {
                        sink.commit()?;
                        return Ok(exit::OK);
                    }
                    Gone::NotInLog(n) => events = Some(n),
                }
            }
            // Absent only where the input proves it.
            let Some(u) = lookup::unproven(&loaded.snapshot, &target, namespace) else {
                return Err(match (e, events) {
                    (Error::NotFound { message, hint }, Some(n)) => Error::NotFound {
                        message,
                        hint: Some(format!(
                            "{}; the audit log{} ({n} event(s)) has no deletion of it either",
                            hint.unwrap_or_default(),
                            if args.audit_log.len() == 1 { "" } else { "s" },
                        )),
                    },
                    (e, _) => e,
                });
            };
            let mut reason = u.reason;
            if let Some(n) = events {
                reason.push_str(&format!(
                    "; the audit log ({n} event(s)) has no deletion of it"
                ));
            }
            let object = ObjectRef {
                group: u.group,
                kind: u.kind,
                namespace: u.namespace,
                name: u.name,
                ..ObjectRef::default()
            };
            write(g, args, &unread(object, reason), &mut sink)?;
            sink.commit()?;
            return Ok(exit::OK);
        }
        Err(e) => return Err(e),
    };
    // In the state given, but the log may show it deleted since: that story first.
    let later = if args.audit_log.is_empty() {
        Later::None
    } else {
        deleted_later(g, args, &mut loaded.snapshot, gc_version, id, &mut sink)?
    };
    let snap = &loaded.snapshot;
    if matches!(later, Later::Told) && args.output != WhyFormat::Text {
        sink.commit()?;
        return Ok(exit::OK);
    }
    let gc = crate::run::garbage_collector(snap, gc_version);
    let extras = match &loaded.connection {
        Some(conn) => read_extras(conn, snap, id).await,
        None => Extras::default(),
    };
    let analysis = crate::diagnose::analysis::Analysis::new(&gc);
    let answer = why(&gc, &analysis, id, &extras);
    write(g, args, &answer, &mut sink)?;
    if let Later::Unplaced(time) = &later {
        render::history::unplaced_deletion(sink.writer(), time)?;
    }
    sink.commit()?;
    Ok(exit::OK)
}

/// What the audit log says of an object the state given holds.
enum Later {
    /// No deletion of it in the log.
    None,
    /// Its deletion after the state was told (text: the state's answer follows).
    Told,
    /// The log deletes an object of its name at this time, but neither a UID nor an exact
    /// capture time tells whether that came after the state.
    Unplaced(String),
}

/// The audit logs `why` reads.
fn logs(g: &GlobalArgs, args: &WhyArgs) -> history::Logs {
    history::Logs {
        paths: args.audit_log.clone(),
        max_input_bytes: g.max_input_size,
    }
}

/// With `--audit-log`, for an object the state given holds: its deletion in the log after that
/// state (`diagnose::history::deleted_later`), told first.
fn deleted_later(
    g: &GlobalArgs,
    args: &WhyArgs,
    snap: &mut Snapshot,
    gc_version: crate::catalog::KubeVersion,
    id: ObjId,
    sink: &mut Sink,
) -> Result<Later> {
    let (told, summary) = match history::deleted_later(logs(g, args), snap, gc_version, id)? {
        Story::Told(told, summary) => (told, summary),
        Story::Unplaced(time) => return Ok(Later::Unplaced(time)),
        Story::NotInLog(_) => return Ok(Later::None),
    };
    let w = sink.writer();
    match args.output {
        WhyFormat::Text => {
            render::history::gone(w, &told, Styles::for_stdout(g.color))?;
            render::history::before_deletion(w, &snap.provenance.captured_at)?;
        }
        WhyFormat::Json => render::write_json(w, &render::history::story(&told, &summary))?,
        WhyFormat::Yaml => render::write_yaml(w, &render::history::story(&told, &summary))?,
    }
    Ok(Later::Told)
}

fn write(g: &GlobalArgs, args: &WhyArgs, answer: &Why, sink: &mut Sink) -> Result<()> {
    let w = sink.writer();
    match args.output {
        WhyFormat::Text => render::why::text(w, answer, Styles::for_stdout(g.color))?,
        WhyFormat::Json => render::write_json(w, &render::why::document(answer))?,
        WhyFormat::Yaml => render::write_yaml(w, &render::why::document(answer))?,
    }
    Ok(())
}

/// What the audit logs said of an object that is not in the input.
enum Gone {
    /// Its deletion was found and printed.
    Told,
    /// The logs, with this many events, have no deletion of it.
    NotInLog(u64),
}

/// An object that is not in the input: what the audit logs say happened to it
/// (`diagnose::history::gone`, the input as the state after).
fn gone(
    g: &GlobalArgs,
    args: &WhyArgs,
    snap: &mut Snapshot,
    target: &str,
    namespace: Option<&str>,
    sink: &mut Sink,
) -> Result<Gone> {
    let (kind, name) = target.split_once('/').unwrap_or((target, ""));
    let resources: Vec<(String, String)> = match lookup::resolve_kind(snap, kind) {
        KindMatch::Found(rows) => rows
            .iter()
            .map(|r| {
                let r = &snap.resources[r.index()];
                (r.group.clone(), r.plural.clone())
            })
            .collect(),
        _ => crate::catalog::builtin::all()
            .iter()
            .filter(|b| {
                lookup::names_of(b.kind, b.plural)
                    .iter()
                    .any(|n| n == &kind.to_ascii_lowercase())
            })
            .map(|b| (b.group.to_owned(), b.plural.to_owned()))
            .collect(),
    };
    let target = history::Target {
        resources,
        namespace: namespace.map(str::to_owned),
        name: name.to_owned(),
    };
    let gc_version = g
        .gc_version
        .unwrap_or_else(|| crate::gc::GarbageCollector::default_gc_version(snap));
    let (items, summary) = match history::gone(logs(g, args), snap, gc_version, &target)? {
        Story::Told(items, summary) => (items, summary),
        Story::NotInLog(n) => return Ok(Gone::NotInLog(n)),
        // Only a state before leaves a deletion unplaced; this one is the state after.
        Story::Unplaced(_) => return Ok(Gone::NotInLog(0)),
    };
    let w = sink.writer();
    match args.output {
        WhyFormat::Text => render::history::gone(w, &items, Styles::for_stdout(g.color))?,
        WhyFormat::Json => render::write_json(w, &render::history::story(&items, &summary))?,
        WhyFormat::Yaml => render::write_yaml(w, &render::history::story(&items, &summary))?,
    }
    Ok(Gone::Told)
}

/// The object, or a not-found error that names the nearest objects of the kind.
fn find(snap: &Snapshot, target: &str, namespace: Option<&str>) -> Result<ObjId> {
    match lookup::resolve_target(snap, target, namespace) {
        Ok(id) => Ok(id),
        Err(e) => {
            let (kind, name) = target.split_once('/').unwrap_or((target, ""));
            let KindMatch::Found(rows) = lookup::resolve_kind(snap, kind) else {
                return Err(e);
            };
            // An ambiguous name (several objects match) is a usage error as it stands.
            if matches!(e, Error::Usage { ref message, .. } if message.contains("ambiguous")) {
                return Err(e);
            }
            let nearest: Vec<String> = lookup::nearest(snap, &rows, name, 5)
                .iter()
                .map(|at| render::text::sanitized(at))
                .collect();
            let mut hint = if nearest.is_empty() {
                "the input holds no object of that kind".to_owned()
            } else {
                format!("nearest: {}", nearest.join(", "))
            };
            let referrers = referrers(snap, &rows, name);
            if !referrers.is_empty() {
                hint.push_str(&format!(
                    "; it is named as an owner by {}",
                    referrers.join(", ")
                ));
            }
            hint.push_str("; if it was deleted, --audit-log FILE tells who deleted it and why");
            Err(Error::NotFound {
                message: render::text::sanitized(&e.to_string()),
                hint: Some(hint),
            })
        }
    }
}

/// Objects whose ownerReferences name an owner of one of `rows`' kinds called `name` (at most
/// three, sanitised): a missing owner is best explained by who still points at it.
fn referrers(snap: &Snapshot, rows: &[crate::model::ResourceId], name: &str) -> Vec<String> {
    let store = &snap.store;
    let kinds: Vec<&str> = rows
        .iter()
        .map(|r| snap.resources[r.index()].kind.as_str())
        .collect();
    store
        .ids()
        .filter(|&id| {
            store
                .owner_refs(id)
                .iter()
                .any(|r| store.str(r.name) == name && kinds.contains(&store.str(r.kind)))
        })
        .take(3)
        .map(|id| render::text::sanitized(&snap.describe(id)))
        .collect()
}

/// What a live read of the object adds: who set each finalizer, its status conditions. A
/// failed read leaves them unknown (said so in the answer).
async fn read_extras(conn: &live::Connection, snap: &Snapshot, id: ObjId) -> Extras {
    let store = &snap.store;
    let o = store.object(id);
    let r = snap.resource_of(o);
    let ns = store.str(o.namespace);
    let Ok(Some(object)) = live::get_object(
        conn,
        &r.group,
        &r.version,
        (!ns.is_empty()).then_some(ns),
        &r.plural,
        store.str(o.name),
    )
    .await
    else {
        return Extras::default();
    };
    // Another object with the same name (recreated since the read) answers nothing about this one.
    if object.pointer("/metadata/uid").and_then(|u| u.as_str()) != Some(store.str(o.uid)) {
        return Extras::default();
    }
    let claim_users = if r.group.is_empty() && r.kind == "PersistentVolumeClaim" {
        claim_users(conn, ns, store.str(o.name)).await
    } else {
        None
    };
    Extras {
        finalizer_managers: finalizer_managers(&object),
        conditions: crate::snapshot::details::conditions_from_json(object.get("status")),
        read: true,
        claim_users,
    }
}

/// The pods of `namespace` whose volumes use claim `name` (pod name, bound to a node), read in
/// full: what the pvc-protection controller checks. `None` when the pods cannot be read.
async fn claim_users(
    conn: &live::Connection,
    namespace: &str,
    name: &str,
) -> Option<Vec<(String, bool)>> {
    let pods = live::list_full(conn, "", "v1", Some(namespace), "pods")
        .await
        .ok()
        .flatten()?;
    Some(pods_using_claim(&pods, name))
}

fn pods_using_claim(pods: &serde_json::Value, claim: &str) -> Vec<(String, bool)> {
    pods.get("items")
        .and_then(|i| i.as_array())
        .into_iter()
        .flatten()
        .filter(|p| {
            p.pointer("/spec/volumes")
                .and_then(|v| v.as_array())
                .is_some_and(|vs| {
                    vs.iter().any(|v| {
                        v.pointer("/persistentVolumeClaim/claimName")
                            .and_then(|c| c.as_str())
                            == Some(claim)
                    })
                })
        })
        .map(|p| {
            (
                p.pointer("/metadata/name")
                    .and_then(|n| n.as_str())
                    .unwrap_or_default()
                    .to_owned(),
                p.pointer("/spec/nodeName")
                    .and_then(|n| n.as_str())
                    .is_some_and(|n| !n.is_empty()),
            )
        })
        .collect()
}

/// Per finalizer, the managers whose `fieldsV1` own `f:metadata.f:finalizers.v:"<name>"`.
fn finalizer_managers(object: &serde_json::Value) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let Some(entries) = object
        .pointer("/metadata/managedFields")
        .and_then(|m| m.as_array())
    else {
        return out;
    };
    for e in entries {
        let manager = e.get("manager").and_then(|m| m.as_str()).unwrap_or("");
        let Some(fins) = e
            .pointer("/fieldsV1/f:metadata/f:finalizers")
            .and_then(|f| f.as_object())
        else {
            continue;
        };
        for key in fins.keys() {
            // `v:"name"`: the key is a JSON string after `v:`.
            if let Some(name) = key
                .strip_prefix("v:")
                .and_then(|v| serde_json::from_str::<String>(v).ok())
            {
                let managers = out.entry(name).or_default();
                if !managers.iter().any(|m| m == manager) {
                    managers.push(manager.to_owned());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_read_like_kubectl() {
        let w = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(target(&w(&["ns/doomed"])).unwrap(), "ns/doomed");
        assert_eq!(target(&w(&["pvc", "data-0"])).unwrap(), "pvc/data-0");
        assert!(target(&w(&["pvc"])).is_err());
        assert!(target(&w(&["pvc/a", "b"])).is_err());
        assert!(target(&w(&["/a"])).is_err());
    }

    #[test]
    fn claim_users_are_the_pods_whose_volumes_name_it() {
        let pods = serde_json::json!({"items": [
            {"metadata": {"name": "a"}, "spec": {"nodeName": "n1", "volumes": [
                {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}},
            {"metadata": {"name": "b"}, "spec": {"volumes": [
                {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}},
            {"metadata": {"name": "c"}, "spec": {"nodeName": "n1", "volumes": [
                {"name": "d", "persistentVolumeClaim": {"claimName": "other"}}]}},
            {"metadata": {"name": "d"}, "spec": {"nodeName": "n1"}}
        ]});
        assert_eq!(
            pods_using_claim(&pods, "data"),
            [("a".to_owned(), true), ("b".to_owned(), false)]
        );
        assert!(pods_using_claim(&serde_json::json!({"items": null}), "data").is_empty());
    }

    #[test]
    fn managers_of_each_finalizer_from_managed_fields() {
        let o = serde_json::json!({"metadata": {"managedFields": [
            {"manager": "kube-controller-manager", "fieldsV1": {"f:metadata": {"f:finalizers": {
                ".": {}, "v:\"kubernetes.io/pvc-protection\"": {}}}}},
            {"manager": "kubectl", "fieldsV1": {"f:metadata": {"f:labels": {}}}},
            {"manager": "my-operator", "fieldsV1": {"f:metadata": {"f:finalizers": {
                "v:\"example.com/cleanup\"": {}, "v:\"kubernetes.io/pvc-protection\"": {}}}}}
        ]}});
        let m = finalizer_managers(&o);
        assert_eq!(
            m["kubernetes.io/pvc-protection"],
            ["kube-controller-manager", "my-operator"]
        );
        assert_eq!(m["example.com/cleanup"], ["my-operator"]);
        assert_eq!(m.len(), 2);
    }
}
