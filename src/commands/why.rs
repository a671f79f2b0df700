//! `kubectl gc why KIND/NAME`: read the input, find the object, explain it
//! (`diagnose::why`), print it (`render::why`).

use crate::cli::{GlobalArgs, WhyArgs, WhyFormat};
use crate::diagnose::why::{Extras, why};
use crate::error::{Error, Result, exit};
use crate::gc::GarbageCollector;
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
            format!("expected KIND/NAME or KIND NAME, got {:?}", words.join(" ")),
            "e.g. kubectl gc why namespace/doomed, or kubectl gc why pvc data-0 -n shop",
        )),
    }
}

pub async fn run(g: &GlobalArgs, args: &WhyArgs) -> Result<u8> {
    let target = target(&args.target)?;
    let mut sink = Sink::open(args.file.output_file.as_deref())?;
    // Owners may be in any namespace and a namespace's content is everywhere in it: read all.
    let loaded = super::load_input(g, false).await?;
    let snap = &loaded.snapshot;
    let namespace = g
        .namespace
        .clone()
        .unwrap_or_else(|| loaded.default_namespace.clone());
    let namespace = (!g.all_namespaces).then_some(namespace.as_str());
    let id = match find(snap, &target, namespace) {
        Ok(id) => id,
        Err(e @ Error::NotFound { .. }) if !args.audit_log.is_empty() => {
            let code = gone(g, args, snap, &target, namespace, e, &mut sink)?;
            sink.commit()?;
            return Ok(code);
        }
        Err(e) => return Err(e),
    };
    let gc = GarbageCollector::new(snap, loaded.gc_version(g));
    let extras = match &loaded.connection {
        Some(conn) => read_extras(conn, snap, id).await,
        None => Extras::default(),
    };
    let answer = why(&gc, id, &extras);
    let w = sink.writer();
    match args.output {
        WhyFormat::Text => render::why::text(w, &answer, Styles::for_stdout(g.color))?,
        WhyFormat::Json => render::write_json(w, &render::why::document(&answer))?,
        WhyFormat::Yaml => render::write_yaml(w, &render::why::document(&answer))?,
    }
    sink.commit()?;
    Ok(exit::OK)
}

/// An object that is not in the input: what the audit logs say happened to it.
fn gone(
    g: &GlobalArgs,
    args: &WhyArgs,
    snap: &Snapshot,
    target: &str,
    namespace: Option<&str>,
    not_found: Error,
    sink: &mut Sink,
) -> Result<u8> {
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
    let mut recorder = crate::diagnose::history::Recorder::default();
    let stats = crate::source::audit::read(
        &crate::source::audit::AuditOptions {
            paths: args.audit_log.clone(),
            keep: Some(crate::diagnose::history::used_by_history),
        },
        &mut |e| recorder.push(e),
    )?;
    recorder.read_all(&stats);
    // What was read is the state now, after the log: an owner it lacks may have been deleted
    // before the log's window, so it proves what exists, not what never did.
    let h = recorder.finish(crate::diagnose::history::States {
        before: None,
        after: Some(snap),
    });
    let items: Vec<&crate::diagnose::history::Item> = h
        .items
        .iter()
        .filter(|it| {
            let o = &it.object;
            o.name == name
                && resources
                    .iter()
                    .any(|(g, p)| *g == o.group && *p == o.resource)
                && namespace.is_none_or(|ns| o.namespace == ns || o.namespace.is_empty())
        })
        .collect();
    if items.is_empty() {
        return Err(match not_found {
            Error::NotFound { message, hint } => Error::NotFound {
                message,
                hint: Some(format!(
                    "{}; the audit log{} ({} event(s)) has no deletion of it either",
                    hint.unwrap_or_default(),
                    if args.audit_log.len() == 1 { "" } else { "s" },
                    stats.events
                )),
            },
            other => other,
        });
    }
    let w = sink.writer();
    match args.output {
        WhyFormat::Text => {
            render::history::gone(w, &items, Styles::for_stdout(g.color))?;
        }
        WhyFormat::Json | WhyFormat::Yaml => {
            let doc = serde_json::json!({
                "apiVersion": crate::build_info::REPORT_API_VERSION,
                "kind": "History",
                "items": items,
                "summary": h.summary,
            });
            if args.output == WhyFormat::Json {
                render::write_json(w, &doc)?;
            } else {
                render::write_yaml(w, &doc)?;
            }
        }
    }
    Ok(exit::OK)
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
            let store = &snap.store;
            let mut candidates: Vec<(usize, String)> = store
                .ids()
                .filter(|&id| rows.contains(&store.object(id).resource))
                .map(|id| {
                    let o = store.object(id);
                    let n = store.str(o.name);
                    let ns = store.str(o.namespace);
                    let at = if ns.is_empty() {
                        n.to_owned()
                    } else {
                        format!("{n} -n {ns}")
                    };
                    (distance(n, name), at)
                })
                .collect();
            if candidates.len() > 1
                && matches!(e, Error::Usage { ref message, .. } if message.contains("ambiguous"))
            {
                return Err(e);
            }
            candidates.sort();
            candidates.dedup();
            let nearest: Vec<String> = candidates
                .into_iter()
                .take(5)
                .map(|(_, at)| render::text::sanitized(&at))
                .collect();
            Err(Error::NotFound {
                message: render::text::sanitized(&e.to_string()),
                hint: Some(if nearest.is_empty() {
                    "the input holds no object of that kind".to_owned()
                } else {
                    format!("nearest: {}", nearest.join(", "))
                }),
            })
        }
    }
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
    fn nearest_names_by_edit_distance() {
        assert_eq!(distance("doomed", "doomed"), 0);
        assert_eq!(distance("doomed", "domed"), 1);
        assert_eq!(distance("web", "api"), 3);
        assert_eq!(distance("", "abc"), 3);
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
