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
    let up = Upgrade {
        from,
        to,
        deleted_before: deleted(&rb),
        deleted_after: deleted(&ra),
        maybe_before: maybe(&rb),
        maybe_after: maybe(&ra),
        after: &after,
    };
    let mut out = up.newly_deleted(&ra);
    out.extend(up.newly_order_dependent(&ra));
    out.extend(up.no_longer_deleted());
    out.extend(unserved_owners(&before, from, to, crds));
    out
}

/// Certain deletions of a restart.
fn deleted(r: &Restart) -> BTreeSet<ObjId> {
    r.plan
        .actions
        .iter()
        .filter(|a| a.verb == Verb::Delete && !r.plan.end.exists(a.target))
        .map(|a| a.target)
        .collect()
}

/// Deletions of a restart that depend on an order upstream does not fix ("maybe").
fn maybe(r: &Restart) -> BTreeSet<ObjId> {
    r.order_dependent
        .iter()
        .filter(|o| o.deleted)
        .map(|o| o.object)
        .collect()
}

/// The two releases' restart predictions, compared.
struct Upgrade<'a, 's> {
    from: KubeVersion,
    to: KubeVersion,
    after: &'a GarbageCollector<'s>,
    deleted_before: BTreeSet<ObjId>,
    deleted_after: BTreeSet<ObjId>,
    maybe_before: BTreeSet<ObjId>,
    maybe_after: BTreeSet<ObjId>,
}

impl Upgrade<'_, '_> {
    /// Deleted by a restart of the new release only: its restart finding's reason.
    fn newly_deleted(&self, ra: &Restart) -> Vec<Finding> {
        let (from, to) = (self.from, self.to);
        let after_findings: BTreeMap<ObjId, Finding> = restart::findings(self.after, ra)
            .into_iter()
            .filter(|f| f.code == Code::RestartAction)
            .filter_map(|f| f.object.map(|o| (o, f)))
            .collect();
        self.deleted_after
            .difference(&self.deleted_before)
            .map(|id| {
                let f = &after_findings[id];
                let before_text = if self.maybe_before.contains(id) {
                    "only for some list orders"
                } else {
                    "does not"
                };
                Finding::new(
                    Code::UpgradeBehaviourChange,
                    f.severity,
                    *id,
                    format!("after the upgrade to {to}, the GC deletes this object when it starts (GC {from}: {before_text})"),
                    f.message.clone(),
                )
            })
            .collect()
    }

    /// Newly at risk of an order-dependent deletion (e.g. downgrading below 1.20), or a
    /// certain deletion that becomes order-dependent.
    fn newly_order_dependent(&self, ra: &Restart) -> Vec<Finding> {
        let (from, to, after) = (self.from, self.to, self.after);
        let db = &self.deleted_before;
        let ra_order: BTreeMap<ObjId, &OrderDependent> =
            ra.order_dependent.iter().map(|o| (o.object, o)).collect();
        self.maybe_after
            .difference(&self.maybe_before)
            .filter(|id| !db.contains(id))
            .chain(self.maybe_after.intersection(db))
            .map(|id| {
                let o = ra_order[id];
                let why = match o.related.first() {
                    Some(&h) if !after.rules.coordinate_keyed_absent_cache() => format!(
                        "GC {to} keys its absent-owner cache by UID only, and a reference names {} at other coordinates (kubernetes#65200)",
                        after.snap.describe(h)
                    ),
                    _ => format!(
                        "with GC {to} the outcome depends on an order upstream does not fix (possible end states: {})",
                        o.states
                            .iter()
                            .map(|s| super::analysis::end_state_text(after, s))
                            .collect::<Vec<_>>()
                            .join(" | ")
                    ),
                };
                Finding::new(
                    Code::UpgradeBehaviourChange,
                    if db.contains(id) { Severity::Warning } else { Severity::Critical },
                    *id,
                    format!(
                        "after the change to {to}, a GC restart may delete this object depending on order (GC {from}: {})",
                        if db.contains(id) { "deletes it" } else { "keeps it" }
                    ),
                    why,
                )
            })
            .collect()
    }

    /// Deleted (or maybe deleted) by a restart of the old release only.
    fn no_longer_deleted(&self) -> Vec<Finding> {
        let (from, to, after) = (self.from, self.to, self.after);
        let state = after.initial_state();
        let db = &self.deleted_before;
        db.union(&self.maybe_before)
            .filter(|id| !self.deleted_after.contains(id) && !self.maybe_after.contains(id))
            .map(|&id| {
                let (was, why) = if db.contains(&id) {
                    ("deletes", String::new())
                } else {
                    (
                        "may delete (depending on list order)",
                        format!("; GC {to} keys its absent-owner cache by full coordinates (PR #92743)"),
                    )
                };
                Finding::new(
                    Code::UpgradeBehaviourChange,
                    Severity::Info,
                    id,
                    format!("after the upgrade to {to}, a GC restart no longer deletes this object (GC {from} {was})"),
                    match after.attempt_to_delete_item(&state, id) {
                        Verdict::NeverCollected { reason, .. } => format!("GC {to}: {reason}; it is never collected{why}"),
                        other => format!("GC {to} decides: {}{why}", other.label()),
                    },
                )
            })
            .collect()
    }
}

/// GC018: ownerReferences whose apiVersion/kind the target release no longer serves.
fn unserved_owners(
    before: &GarbageCollector<'_>,
    from: KubeVersion,
    to: KubeVersion,
    crds: &[CrdVersions],
) -> Vec<Finding> {
    let snap = before.snap;
    let store = &snap.store;
    let mut out = Vec::new();
    for id in store.ids() {
        for r in store.owner_refs(id) {
            // Only references that work today can break.
            if !matches!(
                before.rest_mapper.map(snap, r.api_version, r.kind),
                Mapping::Resolved(_) | Mapping::Unlisted { .. }
            ) {
                continue;
            }
            if let Some(msg) =
                unserved_after(store.str(r.api_version), store.str(r.kind), from, to, crds)
            {
                out.push(
                    Finding::new(
                        Code::OwnerUnservedAfterUpgrade,
                        Severity::Error,
                        id,
                        "after the upgrade the GC cannot map this owner: it retries the object forever and never collects it".into(),
                        format!(
                            "ownerReference {} {}/{}: {msg}",
                            store.str(r.api_version),
                            store.str(r.kind),
                            store.str(r.name)
                        ),
                    )
                    .with_ref(*r, None),
                );
            }
        }
    }
    out
}

/// Why apiVersion `av` of `kind`, served by release `from`, is not served by `to` (or by the
/// new CRDs), if it is not.
fn unserved_after(
    av: &str,
    kind: &str,
    from: KubeVersion,
    to: KubeVersion,
    crds: &[CrdVersions],
) -> Option<String> {
    let (group, version) = split_api_version(av)?;
    if let Some(b) = builtin::find(group, kind) {
        return builtin::removed_by(group, version, b.kind, to)
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
            });
    }
    crds.iter()
        .find(|c| c.group == group && (c.kind == kind || c.kind.to_ascii_lowercase() == kind))
        .filter(|c| !c.served.iter().any(|v| v == version))
        .map(|c| {
            format!(
                "the new {}.{} CRD does not serve {version} (serves: {})",
                c.kind,
                c.group,
                c.served.join(", ")
            )
        })
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
