//! `kubectl gc relink -f BACKUP`: put back the ownerReferences a restore stripped (Velero strips
//! every one), pointing at the owners' **current** UIDs, so the GC collects the children with
//! their owners again.
//!
//! For each object of the target that matches a backup object (group, kind, namespace, name) and
//! lacks a reference the backup had, the owner is matched the same way in the target, under the
//! GC's own namespace rule (a namespaced owner in the dependent's namespace; a cluster-scoped
//! dependent never gets a namespaced owner). Never linked: a missing, terminating or
//! differently-scoped owner, an owner of a kind the target does not serve, a terminating
//! dependent, and — unless asked — a `controller: true` reference of a workload whose controller
//! adopts by selector (Pods of ReplicaSets, StatefulSets, DaemonSets and Jobs; ReplicaSets of
//! Deployments; Jobs of CronJobs): that controller re-adopts them itself. Every reference made
//! is solid the moment it is written (its owner exists with that UID in the same namespace), so
//! the GC never acts on it at once. Each skipped reference says why.

use crate::gc::object_ref::{ObjectRef, Place};
use crate::model::{ObjId, Sym};
use crate::snapshot::Snapshot;
use serde::Serialize;
use std::collections::HashMap;

/// A reference to add.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RefOut {
    /// The owner, in the target.
    #[serde(skip)]
    pub owner: ObjId,
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `name`.
    pub name: String,
    /// The owner's UID in the target.
    pub uid: String,
    /// The UID the backup named (the owner's in the source cluster).
    pub old_uid: String,
    /// `controller`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

/// An object of the target and the references to add to it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Link {
    /// The object, in the target.
    #[serde(skip)]
    pub target: ObjId,
    /// Its group.
    pub group: String,
    /// Its kind.
    pub kind: String,
    /// Its namespace (`""`: cluster-scoped).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// Its UID in the target (the patch tests it).
    pub uid: String,
    /// Its resourceVersion when read (the patch tests it).
    pub resource_version: String,
    /// The references to add, in the backup's order.
    pub add: Vec<RefOut>,
    /// GC027: what OwnerReferencesPermissionEnforcement, where the API server enables it,
    /// makes of the patch for the identity that sends it (refused, or cannot be told); set
    /// by the command, which asks the API server. `None`: admitted, or not asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission: Option<String>,
}

/// A reference left out, and why.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skip {
    /// `Kind/name` of the dependent, with ` -n namespace`.
    pub object: String,
    /// `Kind/name` of the owner the backup named.
    pub owner: String,
    /// Why.
    pub reason: String,
}

/// The plan.
#[derive(Clone, Debug, Serialize, Default)]
pub struct Relink {
    /// What to patch.
    pub links: Vec<Link>,
    /// What is left out.
    pub skipped: Vec<Skip>,
}

fn group_of(api_version: &str) -> &str {
    api_version.split_once('/').map_or("", |(g, _)| g)
}

/// Kinds whose controllers adopt dependents by selector: (owner group, owner kind, dependent
/// group, dependent kind).
const ADOPTERS: &[(&str, &str, &str, &str)] = &[
    ("apps", "replicaset", "", "pod"),
    ("apps", "statefulset", "", "pod"),
    ("apps", "daemonset", "", "pod"),
    ("batch", "job", "", "pod"),
    ("apps", "deployment", "apps", "replicaset"),
    ("batch", "cronjob", "batch", "job"),
    ("", "replicationcontroller", "", "pod"),
];

/// Plans the relink of `target` from `backup`.
pub fn plan(backup: &Snapshot, target: &Snapshot, include_adoptable: bool) -> Relink {
    let ts = &target.store;
    let by_place: HashMap<Place, ObjId> = ts
        .ids()
        .map(|id| (ObjectRef::of(target, id).place(), id))
        .collect();
    // Served kinds and their scope, by (group, kind lower-case).
    let scope: HashMap<(String, String), bool> = target
        .resources
        .iter()
        .map(|r| ((r.group.clone(), r.kind.to_ascii_lowercase()), r.namespaced))
        .collect();
    let bs = &backup.store;
    let mut out = Relink::default();
    for bid in bs.ids() {
        let refs = bs.owner_refs(bid);
        if refs.is_empty() {
            continue;
        }
        let bo = bs.object(bid);
        let br = backup.resource_of(bo);
        let me = ObjectRef::of(backup, bid);
        let (shown, place, ns) = (me.to_string(), me.place(), me.namespace);
        let skip_all = |out: &mut Relink, reason: &str| {
            for r in refs {
                out.skipped.push(Skip {
                    object: shown.clone(),
                    owner: format!("{}/{}", bs.str(r.kind), bs.str(r.name)),
                    reason: reason.to_owned(),
                });
            }
        };
        let Some(&tid) = by_place.get(&place) else {
            skip_all(&mut out, "not in the target (not restored)");
            continue;
        };
        let to = ts.object(tid);
        if to.being_deleted() {
            skip_all(&mut out, "the object is being deleted in the target");
            continue;
        }
        let dependent_namespaced = target.resource_of(to).namespaced;
        let existing: Vec<(Sym, Sym)> = ts
            .owner_refs(tid)
            .iter()
            .map(|r| (r.kind, r.name))
            .collect();
        let mut add = Vec::new();
        for r in refs {
            let (kind, rname) = (bs.str(r.kind), bs.str(r.name));
            let owner_shown = format!("{kind}/{rname}");
            let mut skip = |reason: String| {
                out.skipped.push(Skip {
                    object: shown.clone(),
                    owner: owner_shown.clone(),
                    reason,
                })
            };
            if existing
                .iter()
                .any(|&(k, n)| ts.str(k).eq_ignore_ascii_case(kind) && ts.str(n) == rname)
            {
                skip("the object already references it".to_owned());
                continue;
            }
            let group = group_of(bs.str(r.api_version)).to_owned();
            let lkind = kind.to_ascii_lowercase();
            let Some(&owner_namespaced) = scope.get(&(group.clone(), lkind.clone())) else {
                skip(format!(
                    "the target does not serve {kind} ({})",
                    bs.str(r.api_version)
                ));
                continue;
            };
            if owner_namespaced && !dependent_namespaced {
                skip(
                    "a cluster-scoped object cannot have a namespaced owner (the GC drops it)"
                        .to_owned(),
                );
                continue;
            }
            let owner_ns = if owner_namespaced {
                ns.clone()
            } else {
                String::new()
            };
            let owner_place =
                ObjectRef::from_api_version(bs.str(r.api_version), kind, &owner_ns, rname, "")
                    .place();
            let Some(&oid) = by_place.get(&owner_place) else {
                skip(if owner_namespaced {
                    format!("no {kind} {rname} in namespace {ns} of the target")
                } else {
                    format!("no {kind} {rname} in the target")
                });
                continue;
            };
            if ts.object(oid).being_deleted() {
                skip("the owner is being deleted in the target".to_owned());
                continue;
            }
            let adoptable = r.controller == Some(true)
                && ADOPTERS.iter().any(|&(og, ok, dg, dk)| {
                    og == group
                        && ok == lkind
                        && dg == br.group
                        && dk == br.kind.to_ascii_lowercase()
                });
            if adoptable && !include_adoptable {
                skip(format!(
                    "its {kind} controller adopts it by selector (--include-adoptable to link it anyway)"
                ));
                continue;
            }
            add.push(RefOut {
                owner: oid,
                api_version: bs.str(r.api_version).to_owned(),
                kind: kind.to_owned(),
                name: rname.to_owned(),
                uid: ts.str(ts.object(oid).uid).to_owned(),
                old_uid: bs.str(r.uid).to_owned(),
                controller: r.controller,
                block_owner_deletion: r.block_owner_deletion,
            });
        }
        if !add.is_empty() {
            out.links.push(Link {
                target: tid,
                group: br.group.clone(),
                kind: target.resource_of(to).kind.clone(),
                namespace: ts.str(to.namespace).to_owned(),
                name: ts.str(to.name).to_owned(),
                uid: ts.str(to.uid).to_owned(),
                resource_version: ts.str(to.resource_version).to_owned(),
                add,
                permission: None,
            });
        }
    }
    out
}

/// OwnerReferencesPermissionEnforcement's checks on each link's patch (an UPDATE from the
/// object's references in `target` to those plus the link's), by the link's index.
pub fn permission_checks(
    p: &Relink,
    target: &Snapshot,
    mapper: &crate::gc::rest_mapper::RestMapper,
) -> Vec<(usize, Vec<super::permission::Check>)> {
    use super::permission::{owner_mapping, refs_of, required, write_of};
    let mut out = Vec::new();
    for (i, l) in p.links.iter().enumerate() {
        let old = refs_of(target, l.target);
        let new = new_refs(l, target);
        let w = write_of(target, l.target, Some(&old), &new);
        let checks = required(&w, &|r| owner_mapping(mapper, r));
        if !checks.is_empty() {
            out.push((i, checks));
        }
    }
    out
}

/// The new references of link `l` (the object's in `target`, then the link's).
pub fn new_refs<'a>(l: &'a Link, target: &'a Snapshot) -> Vec<super::permission::RefIn<'a>> {
    let mut new = super::permission::refs_of(target, l.target);
    new.extend(l.add.iter().map(|r| super::permission::RefIn {
        api_version: &r.api_version,
        kind: &r.kind,
        name: &r.name,
        uid: &r.uid,
        controller: r.controller,
        block_owner_deletion: r.block_owner_deletion,
    }));
    new
}

/// The JSON patch that adds a link's references: a `test` of the object's UID and
/// resourceVersion (the patch fails if the object changed since it was read), then one `add`
/// per reference (creating the list when the object has none).
pub fn json_patch(link: &Link, has_refs: bool) -> serde_json::Value {
    let mut ops = vec![
        serde_json::json!({"op": "test", "path": "/metadata/uid", "value": link.uid}),
        serde_json::json!({"op": "test", "path": "/metadata/resourceVersion", "value": link.resource_version}),
    ];
    let refs: Vec<serde_json::Value> = link
        .add
        .iter()
        .map(|r| {
            let mut v = serde_json::json!({"apiVersion": r.api_version, "kind": r.kind,
                "name": r.name, "uid": r.uid});
            if let Some(c) = r.controller {
                v["controller"] = c.into();
            }
            if let Some(b) = r.block_owner_deletion {
                v["blockOwnerDeletion"] = b.into();
            }
            v
        })
        .collect();
    if has_refs {
        for r in refs {
            ops.push(
                serde_json::json!({"op": "add", "path": "/metadata/ownerReferences/-", "value": r}),
            );
        }
    } else {
        ops.push(
            serde_json::json!({"op": "add", "path": "/metadata/ownerReferences", "value": refs}),
        );
    }
    serde_json::Value::Array(ops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Cluster;

    /// The backup: a Deployment → ReplicaSet → Pod chain, a ConfigMap owned by a ConfigMap, a
    /// ConfigMap owned by one that was not restored, a Secret owned by a terminating owner, a
    /// ClusterRole owned by a namespaced CR-like ConfigMap.
    fn backup() -> Cluster {
        let mut c = Cluster::new();
        c.obj("apps/v1", "Deployment", "shop", "web", "old-d");
        c.obj("apps/v1", "ReplicaSet", "shop", "web-1", "old-rs")
            .owner("apps/v1", "Deployment", "web", "old-d")
            .controller(true);
        c.obj("v1", "Pod", "shop", "web-1-a", "old-p")
            .owner("apps/v1", "ReplicaSet", "web-1", "old-rs")
            .controller(true);
        c.obj("v1", "ConfigMap", "shop", "parent", "old-parent");
        c.obj("v1", "ConfigMap", "shop", "child", "old-child")
            .owner("v1", "ConfigMap", "parent", "old-parent")
            .block(true);
        c.obj("v1", "ConfigMap", "shop", "lost", "old-lost").owner(
            "v1",
            "ConfigMap",
            "not-restored",
            "old-nr",
        );
        c.obj("v1", "Secret", "shop", "s", "old-s")
            .owner("v1", "ConfigMap", "dying", "old-dying");
        c.obj(
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            "",
            "role",
            "old-role",
        )
        .owner("v1", "ConfigMap", "parent", "old-parent");
        c
    }

    /// The target after a Velero restore: the same objects, new UIDs, no references.
    fn restored() -> Snapshot {
        let mut c = Cluster::new();
        c.obj("apps/v1", "Deployment", "shop", "web", "new-d");
        c.obj("apps/v1", "ReplicaSet", "shop", "web-1", "new-rs");
        c.obj("v1", "Pod", "shop", "web-1-a", "new-p");
        c.obj("v1", "ConfigMap", "shop", "parent", "new-parent");
        c.obj("v1", "ConfigMap", "shop", "child", "new-child");
        c.obj("v1", "ConfigMap", "shop", "lost", "new-lost");
        c.obj("v1", "ConfigMap", "shop", "dying", "new-dying")
            .deleting();
        c.obj("v1", "Secret", "shop", "s", "new-s");
        c.obj(
            "rbac.authorization.k8s.io/v1",
            "ClusterRole",
            "",
            "role",
            "new-role",
        );
        c.build()
    }

    fn reason<'p>(p: &'p Relink, object: &str) -> &'p str {
        p.skipped
            .iter()
            .find(|s| s.object.starts_with(object))
            .map(|s| s.reason.as_str())
            .unwrap_or_else(|| panic!("{object} not skipped: {p:#?}"))
    }

    #[test]
    fn links_point_at_current_uids_and_every_skip_says_why() {
        let p = plan(&backup().build(), &restored(), false);
        let linked: Vec<(&str, &str, &str)> = p
            .links
            .iter()
            .flat_map(|l| {
                l.add
                    .iter()
                    .map(move |r| (l.name.as_str(), r.name.as_str(), r.uid.as_str()))
            })
            .collect();
        assert_eq!(linked, [("child", "parent", "new-parent")]);
        let child = &p.links[0];
        assert_eq!(child.uid, "new-child");
        assert_eq!(child.add[0].old_uid, "old-parent");
        assert_eq!(child.add[0].block_owner_deletion, Some(true));
        assert!(reason(&p, "ReplicaSet/web-1").contains("adopts it by selector"));
        assert!(reason(&p, "Pod/web-1-a").contains("adopts it by selector"));
        assert!(reason(&p, "ConfigMap/lost").contains("no ConfigMap not-restored"));
        assert!(reason(&p, "Secret/s").contains("being deleted"));
        assert!(reason(&p, "ClusterRole/role").contains("cluster-scoped object cannot"));
        // With --include-adoptable the workload chain is linked too.
        let p = plan(&backup().build(), &restored(), true);
        let names: Vec<&str> = p.links.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["web-1", "web-1-a", "child"]);
        assert_eq!(p.links[0].add[0].uid, "new-d");
    }

    #[test]
    fn an_existing_reference_is_left_alone_and_the_patch_tests_uid_and_version() {
        let mut c = Cluster::new();
        c.obj("v1", "ConfigMap", "shop", "parent", "new-parent");
        c.obj("v1", "ConfigMap", "shop", "child", "new-child")
            .owner("v1", "ConfigMap", "parent", "new-parent");
        let p = plan(&backup().build(), &c.build(), false);
        assert!(p.links.is_empty());
        assert!(reason(&p, "ConfigMap/child").contains("already references"));
        let p = plan(&backup().build(), &restored(), false);
        let patch = json_patch(&p.links[0], false);
        assert_eq!(
            patch[0],
            serde_json::json!({"op": "test", "path": "/metadata/uid", "value": "new-child"})
        );
        assert_eq!(patch[1]["path"], "/metadata/resourceVersion");
        assert_eq!(patch[2]["path"], "/metadata/ownerReferences");
        assert_eq!(patch[2]["value"][0]["uid"], "new-parent");
        assert_eq!(
            json_patch(&p.links[0], true)[2]["path"],
            "/metadata/ownerReferences/-"
        );
    }
}
