//! `kubectl gc check`: what a restart or an upgrade of kube-controller-manager would make the
//! GC do, and what stops the GC from working at all. Findings share the audit's codes and
//! shape so CI gates can treat both alike.

use super::audit::{Audit, Code, Finding, Severity};
use super::restart::{Restart, VisitCause};
use crate::catalog::{KubeVersion, builtin};
use crate::gc::Analysis;
use crate::gc::attempt_to_delete::Verdict;
use crate::gc::plan::Verb;
use crate::gc::rest_mapper::Mapping;
use crate::model::ObjId;
use crate::snapshot::{ListOutcome, Snapshot, split_api_version};
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

fn finding(
    code: Code,
    severity: Severity,
    object: ObjId,
    consequence: String,
    message: String,
) -> Finding {
    Finding {
        code,
        severity,
        object: Some(object),
        resource: None,
        owner_ref: None,
        classification: None,
        consequence,
        message,
        related: Vec::new(),
        remedies: Vec::new(),
    }
}

impl Analysis<'_> {
    /// Describes a restart visit cause.
    fn visit_text(&self, c: &VisitCause) -> String {
        let store = &self.snap.store;
        match c {
            VisitCause::MissingOwner { uid } => format!(
                "owner uid {} is not in the graph; the GC verifies it, finds it absent and evaluates its dependents",
                store.str(*uid)
            ),
            VisitCause::NamespaceMismatch { owner } => format!(
                "its ownerReference points at {} in another namespace; the GC re-checks it on start (OwnerRefInvalidNamespace)",
                self.snap.describe(*owner)
            ),
            VisitCause::CoordinateMismatch { owner } => {
                let n = self.graph.node(*owner);
                format!(
                    "its ownerReference disagrees with the owner the GC knows ({} {}/{})",
                    store.str(n.id.api_version),
                    store.str(n.id.kind),
                    store.str(n.id.name)
                )
            }
            VisitCause::OwnerInForeground { owner } => format!(
                "its owner {} is in foreground deletion",
                self.snap.describe(*owner)
            ),
            VisitCause::InForeground => "it is in foreground deletion".into(),
            VisitCause::Orphaning => "it is terminating with the orphan finalizer".into(),
        }
    }

    /// True when one of the object's references is dangling although its UID is a live object
    /// (cross-namespace or wrong coordinates): deleting it is deleting something meant to live.
    fn has_misdirected_ref(&self, state: &crate::gc::State, id: ObjId) -> bool {
        self.snap
            .store
            .owner_refs(id)
            .iter()
            .any(|r| self.misdirected(state, id, r).is_some())
    }

    /// Findings for a restart prediction.
    pub fn restart_findings(&self, r: &Restart) -> Vec<Finding> {
        let store = &self.snap.store;
        let initial = self.initial_state();
        let mut out = Vec::new();
        let mut severity_of_deleted: BTreeMap<ObjId, Severity> = BTreeMap::new();
        for act in &r.plan.actions {
            let id = act.target;
            let why = match r.visits.get(&id) {
                Some(c) if act.wave == 1 => self.visit_text(c),
                _ => "a change earlier in the cascade makes the GC evaluate it".into(),
            };
            match act.verb {
                Verb::Delete => {
                    let base = if self.has_misdirected_ref(&initial, id) {
                        Severity::Critical
                    } else {
                        Severity::Error
                    };
                    let inherited = store
                        .owner_refs(id)
                        .iter()
                        .filter_map(|o| store.by_uid(o.uid))
                        .filter_map(|o| severity_of_deleted.get(&o).copied())
                        .max();
                    let sev = base.max(inherited.unwrap_or(Severity::Info));
                    if !r.plan.end.exists(id) {
                        severity_of_deleted.insert(id, sev);
                    }
                    let mut f = finding(
                        Code::RestartAction,
                        sev,
                        id,
                        format!(
                            "when kube-controller-manager restarts (or its leader changes) the GC deletes this object (propagationPolicy={}, wave {})",
                            act.policy.map(|p| p.as_str()).unwrap_or("-"),
                            act.wave
                        ),
                        format!("{why}; {}", act.detail),
                    );
                    f.remedies = store
                        .owner_refs(id)
                        .iter()
                        .filter(|o| store.by_uid(o.uid).is_some_and(|h| h != id))
                        .map(|o| self.remedy_remove_ref(&r.plan.end, id, o.uid))
                        .collect();
                    out.push(f);
                }
                Verb::RemoveOwnerReferences => out.push(finding(
                    Code::RestartAction,
                    Severity::Warning,
                    id,
                    "when kube-controller-manager restarts the GC strips these ownerReferences"
                        .into(),
                    format!("{why}; {}", act.detail),
                )),
                Verb::UnblockOwnerReferences | Verb::RemoveFinalizer => out.push(finding(
                    Code::RestartAction,
                    Severity::Info,
                    id,
                    format!(
                        "when kube-controller-manager restarts the GC sends {}",
                        act.verb.as_str()
                    ),
                    format!("{why}; {}", act.detail),
                )),
            }
        }
        for o in &r.order_dependent {
            let mut f = finding(
                Code::RestartOrderDependent,
                if o.deleted {
                    Severity::Critical
                } else {
                    Severity::Error
                },
                o.object,
                if o.deleted {
                    "a restarted GC (< 1.20) may delete this object although its owner exists, depending on the order the informers list objects".into()
                } else {
                    "a restarted GC (< 1.20) may strip this valid ownerReference, depending on list order".into()
                },
                format!(
                    "{} has a bad reference to owner uid {}; if it is listed before the owner, the UID is cached as absent for every dependent (kubernetes#65200)",
                    self.snap.describe(o.bad_dependent),
                    store.str(o.owner_uid)
                ),
            );
            f.related = vec![o.bad_dependent];
            f.remedies = vec![self.remedy_remove_ref(&initial, o.bad_dependent, o.owner_uid)];
            out.push(f);
        }
        for st in &r.stranded {
            // Only garbage is worth reporting: the object would be collected if evaluated.
            if matches!(
                self.decide(&initial, st.object),
                Verdict::Delete { .. } | Verdict::RemoveRefs { .. }
            ) {
                out.push(finding(
                    Code::StrandedDependent,
                    Severity::Warning,
                    st.object,
                    if st.certain {
                        "a restarted GC never evaluates this object: the garbage stays".into()
                    } else {
                        "a restarted GC may never evaluate this object (the garbage stays) or may delete it, depending on the order its informers deliver objects".into()
                    },
                    st.why.clone(),
                ));
            }
        }
        out
    }

    /// GC health: resources the GC cannot list or watch, plus deletions that are not progressing.
    pub fn health_findings(&self, audit: &Audit) -> Vec<Finding> {
        let mut out = Vec::new();
        let blocks_all = !self.rules.version.at_least(32);
        // Resource-level findings: no object, the resource as subject.
        for g in self.mapper.grs() {
            if let ListOutcome::Failed { message } = &g.coverage {
                out.push(Finding {
                    code: Code::GcSyncBlocker,
                    severity: if blocks_all { Severity::Error } else { Severity::Warning },
                    object: None,
                    resource: Some(res_name(&g.group, &g.plural)),
                    owner_ref: None,
                    classification: None,
                    consequence: if blocks_all {
                        format!("the GC's monitor for {} cannot sync: GC {} pauses all garbage collection until every monitor has synced (kubernetes#127105)", res_name(&g.group, &g.plural), self.rules.version)
                    } else {
                        format!("the GC proceeds without {}: blockOwnerDeletion on those objects is ignored (GC ≥ 1.32, PR #125796)", res_name(&g.group, &g.plural))
                    },
                    message: format!("listing {} failed: {message}", res_name(&g.group, &g.plural)),
                    related: vec![],
                    remedies: vec![format!("kubectl get {} -A --request-timeout=30s", res_name(&g.group, &g.plural))],
                });
            }
        }
        for f in &self.snap.discovery_failures {
            out.push(Finding {
                code: Code::GcSyncBlocker,
                severity: Severity::Warning,
                object: None,
                resource: Some(f.group_version.clone()),
                owner_ref: None,
                classification: None,
                consequence: "the GC's discovery fails for this group-version too: its resources are not (re)synced and their owners cannot be resolved".into(),
                message: format!("discovery of {} failed: {}", f.group_version, f.message),
                related: vec![],
                remedies: vec![format!("kubectl get apiservices {}", apiservice_name(&f.group_version))],
            });
        }
        out.extend(
            audit
                .findings
                .iter()
                .filter(|f| {
                    matches!(
                        f.code,
                        Code::BlockedForegroundDeletion
                            | Code::OrphanFinalizer
                            | Code::TerminatingHeldByFinalizer
                    ) && f.severity >= Severity::Warning
                })
                .cloned(),
        );
        out
    }
}

fn res_name(group: &str, plural: &str) -> String {
    if group.is_empty() {
        plural.to_owned()
    } else {
        format!("{plural}.{group}")
    }
}

fn apiservice_name(gv: &str) -> String {
    match split_api_version(gv) {
        Some(("", v)) => format!("{v}."),
        Some((g, v)) => format!("{v}.{g}"),
        None => gv.to_owned(),
    }
}

/// Findings for an upgrade of the GC from `from` to `to` on this snapshot.
pub fn upgrade_findings(
    snap: &Snapshot,
    from: KubeVersion,
    to: KubeVersion,
    crds: &[CrdVersions],
) -> Vec<Finding> {
    let before = Analysis::new(snap, from);
    let after = Analysis::new(snap, to);
    let rb = before.restart();
    let ra = after.restart();
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
    let after_findings: BTreeMap<ObjId, Finding> = after
        .restart_findings(&ra)
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
        out.push(finding(
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
    let ra_order: BTreeMap<ObjId, &super::restart::OrderDependent> =
        ra.order_dependent.iter().map(|o| (o.object, o)).collect();
    for id in ma
        .difference(&mb)
        .filter(|id| !db.contains(id))
        .chain(ma.intersection(&db))
    {
        let o = ra_order[id];
        out.push(finding(
            Code::UpgradeBehaviourChange,
            if db.contains(id) { Severity::Warning } else { Severity::Critical },
            *id,
            format!(
                "after the change to {to}, a GC restart may delete this object depending on list order (GC {from}: {})",
                if db.contains(id) { "deletes it" } else { "keeps it" }
            ),
            format!(
                "GC {to} keys its absent-owner cache by UID only: {} has a bad reference to owner uid {} (kubernetes#65200)",
                snap.describe(o.bad_dependent),
                snap.store.str(o.owner_uid)
            ),
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
        out.push(finding(
            Code::UpgradeBehaviourChange,
            Severity::Info,
            id,
            format!("after the upgrade to {to}, a GC restart no longer deletes this object (GC {from} {was})"),
            match after.decide(&state, id) {
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
                before.mapper.map(snap, r.api_version, r.kind),
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
                let mut f = finding(
                    Code::OwnerUnservedAfterUpgrade,
                    Severity::Error,
                    id,
                    "after the upgrade the GC cannot map this owner: it retries the object forever and never collects it".into(),
                    format!("ownerReference {av} {kind}/{}: {msg}", store.str(r.name)),
                );
                f.owner_ref = Some(*r);
                out.push(f);
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
