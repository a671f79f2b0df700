//! What an upgrade (or downgrade) of kube-controller-manager changes (`check upgrade`): the
//! restart of the new release compared with the old one's (Appendix A), and ownerReferences
//! whose apiVersion the new release (or a new CRD) no longer serves.

use super::code::{Code, Severity};
use super::finding::Finding;
use super::restart::{self, OrderDependent, Restart};
use crate::catalog::{KubeVersion, builtin};
use crate::gc::rest_mapper::Mapping;
use crate::gc::{GarbageCollector, Verb, Verdict};
use crate::model::ObjId;
use crate::snapshot::{Snapshot, split_api_version};
use crate::util::fork::Fork;
use std::collections::{BTreeMap, BTreeSet};

/// Served versions of a custom resource after an upgrade (from a CRD manifest given with
/// `--crd`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrdVersions {
    /// API group.
    pub group: String,
    /// Kind.
    pub kind: String,
    /// Versions with `served: true`.
    pub served: Vec<String>,
}

/// Findings for an upgrade of the GC from `from` to `to` on this snapshot; `fork` runs the
/// two GCs' work that may run side by side.
pub fn findings(
    snap: &Snapshot,
    from: KubeVersion,
    to: KubeVersion,
    crds: &[CrdVersions],
    fork: &dyn Fork,
) -> Vec<Finding> {
    let before = GarbageCollector::new_on(snap, from, fork);
    let after = GarbageCollector::new_on(snap, to, fork);
    let rb = restart::predict(&before);
    let ra = restart::predict(&after);
    let mut out = Vec::new();
    // Certain deletions; pre-1.20 order-dependent ones are "maybe".
    let deleted = |r: &Restart| -> BTreeSet<ObjId> {
        r.plan
            .actions
            .iter()
            .filter(|a| a.verb == Verb::Delete && !r.plan.end.exists(a.target))
            .map(|a| a.target)
            .collect()
    };
    let maybe = |r: &Restart| -> BTreeSet<ObjId> {
        r.order_dependent
            .iter()
            .filter(|o| o.deleted)
            .map(|o| o.object)
            .collect()
    };
    let (db, da) = (deleted(&rb), deleted(&ra));
    let (mb, ma) = (maybe(&rb), maybe(&ra));
    let after_findings: BTreeMap<ObjId, Finding> = restart::findings(&after, &ra)
        .into_iter()
        .filter(|f| f.code == Code::RestartAction)
        .filter_map(|f| f.object.map(|o| (o, f)))
        .collect();
    for id in da.difference(&db) {
        let f = &after_findings[id];
        let before_text = if mb.contains(id) {
            "only for some list orders"
        } else {
            "does not"
        };
        out.push(Finding::new(
            Code::UpgradeBehaviourChange,
            f.severity,
            *id,
            format!("after the upgrade to {to}, the GC deletes this object when it starts (GC {from}: {before_text})"),
            f.message.clone(),
        ));
    }
    let state = after.initial_state();
    // Newly at risk of an order-dependent deletion (e.g. downgrading below 1.20), or a certain
    // deletion that becomes order-dependent.
    let ra_order: BTreeMap<ObjId, &OrderDependent> =
        ra.order_dependent.iter().map(|o| (o.object, o)).collect();
    for id in ma
        .difference(&mb)
        .filter(|id| !db.contains(id))
        .chain(ma.intersection(&db))
    {
        let o = ra_order[id];
        let why = match o.related.first() {
            Some(&h) if !after.rules.coordinate_keyed_absent_cache() => format!(
                "GC {to} keys its absent-owner cache by UID only, and a reference names {} at other coordinates (kubernetes#65200)",
                snap.describe(h)
            ),
            _ => format!(
                "with GC {to} the outcome depends on an order upstream does not fix (possible end states: {})",
                o.states
                    .iter()
                    .map(|s| restart::end_state_text(&after, s))
                    .collect::<Vec<_>>()
                    .join(" | ")
            ),
        };
        out.push(Finding::new(
            Code::UpgradeBehaviourChange,
            if db.contains(id) { Severity::Warning } else { Severity::Critical },
            *id,
            format!(
                "after the change to {to}, a GC restart may delete this object depending on order (GC {from}: {})",
                if db.contains(id) { "deletes it" } else { "keeps it" }
            ),
            why,
        ));
    }
    let no_longer: BTreeSet<ObjId> = db
        .union(&mb)
        .filter(|id| !da.contains(id) && !ma.contains(id))
        .copied()
        .collect();
    for id in no_longer {
        let (was, why) = if db.contains(&id) {
            ("deletes", String::new())
        } else {
            (
                "may delete (depending on list order)",
                format!("; GC {to} keys its absent-owner cache by full coordinates (PR #92743)"),
            )
        };
        out.push(Finding::new(
            Code::UpgradeBehaviourChange,
            Severity::Info,
            id,
            format!("after the upgrade to {to}, a GC restart no longer deletes this object (GC {from} {was})"),
            match after.attempt_to_delete_item(&state, id) {
                Verdict::NeverCollected { reason, .. } => format!("GC {to}: {reason}; it is never collected{why}"),
                other => format!("GC {to} decides: {}{why}", other.label()),
            },
        ));
    }
    // ownerReferences whose apiVersion/kind the target release no longer serves.
    let store = &snap.store;
    for id in store.ids() {
        for r in store.owner_refs(id) {
            let (av, kind) = (store.str(r.api_version), store.str(r.kind));
            let Some((group, version)) = split_api_version(av) else {
                continue;
            };
            // Only references that work today can break.
            if !matches!(
                before.rest_mapper.map(snap, r.api_version, r.kind),
                Mapping::Resolved(_) | Mapping::Unlisted { .. }
            ) {
                continue;
            }
            let gone = if let Some(b) = builtin::find(group, kind) {
                builtin::removed_by(group, version, b.kind, to)
                    .filter(|m| *m > from.minor)
                    .map(|m| {
                        let replacement = b
                            .preferred_at(to)
                            .map(|v| b.api_version(v))
                            .unwrap_or_else(|| "no replacement: the kind is gone".into());
                        format!(
                            "{av} {} is removed in Kubernetes 1.{m}; use {replacement}",
                            b.kind
                        )
                    })
            } else {
                crds.iter()
                    .find(|c| {
                        c.group == group && (c.kind == kind || c.kind.to_ascii_lowercase() == kind)
                    })
                    .filter(|c| !c.served.iter().any(|v| v == version))
                    .map(|c| {
                        format!(
                            "the new {}.{} CRD does not serve {version} (serves: {})",
                            c.kind,
                            c.group,
                            c.served.join(", ")
                        )
                    })
            };
            if let Some(msg) = gone {
                out.push(
                    Finding::new(
                        Code::OwnerUnservedAfterUpgrade,
                        Severity::Error,
                        id,
                        "after the upgrade the GC cannot map this owner: it retries the object forever and never collects it".into(),
                        format!("ownerReference {av} {kind}/{}: {msg}", store.str(r.name)),
                    )
                    .with_ref(*r, None),
                );
            }
        }
    }
    out
}

/// Reads CRD manifests (`--crd FILE`): every CustomResourceDefinition document's group, kind
/// and served versions.
pub fn crd_versions(docs: &[serde_json::Value]) -> Vec<CrdVersions> {
    let mut out = Vec::new();
    for d in docs {
        if d.get("kind").and_then(|k| k.as_str()) != Some("CustomResourceDefinition") {
            continue;
        }
        let Some(spec) = d.get("spec") else { continue };
        let group = spec
            .get("group")
            .and_then(|g| g.as_str())
            .unwrap_or_default();
        let kind = spec
            .pointer("/names/kind")
            .and_then(|k| k.as_str())
            .unwrap_or_default();
        let mut served: Vec<String> = spec
            .get("versions")
            .and_then(|v| v.as_array())
            .map(|vs| {
                vs.iter()
                    .filter(|v| v.get("served").and_then(|s| s.as_bool()).unwrap_or(true))
                    .filter_map(|v| v.get("name").and_then(|n| n.as_str()).map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(v) = spec.get("version").and_then(|v| v.as_str())
            && !served.iter().any(|s| s == v)
        {
            served.push(v.to_owned());
        }
        if !group.is_empty() && !kind.is_empty() {
            out.push(CrdVersions {
                group: group.into(),
                kind: kind.into(),
                served,
            });
        }
    }
    out
}
