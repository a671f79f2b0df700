//! `kubectl gc collect` output (schema in README "JSON: collect").

use super::{
    ObjectRef, REPORT_API_VERSION, Styles, TableOptions, cells, fit, table, write_line, write_table,
};
use crate::diagnose::analysis::{StateWhy, state_why};
use crate::diagnose::timeline::{Reason, Timing, When};
use crate::gc::GarbageCollector;
use crate::gc::plan::{Action, EndState, Plan, Verb};
use crate::model::ObjId;
use serde::Serialize;
use serde_json::json;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::io::Write;

/// The JSON/YAML plan.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct PlanReport {
    /// `kubectl-gc.io/v1`.
    pub api_version: &'static str,
    /// `CollectPlan`.
    pub kind: &'static str,
    /// The emulated GC release.
    pub gc_version: String,
    /// `collect` (what the GC will do) or `delete-preview`.
    pub mode: &'static str,
    /// Always true unless `--apply` ran.
    pub dry_run: bool,
    /// Actions in waves.
    pub actions: Vec<ActionJson>,
    /// Requests every order makes but only after a request whose fate depends on the order
    /// (GC021): not in `actions`, never sent by `--apply`, which reports them as left.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub withheld: Vec<ActionJson>,
    /// End states.
    pub outcomes: Vec<OutcomeJson>,
    /// Counts.
    pub summary: PlanSummary,
}

/// One action.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ActionJson {
    /// Wave, from 1.
    pub wave: u32,
    /// delete, remove-owner-references, unblock-owner-references, remove-finalizer.
    pub verb: &'static str,
    /// The object.
    pub target: ObjectRef,
    /// For deletes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub propagation_policy: Option<&'static str>,
    /// For patches: owner UIDs removed or unblocked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_references: Option<Vec<String>>,
    /// For finalizer removal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finalizer: Option<String>,
    /// When the GC sends it (`crate::diagnose::timeline`): now, restart, now-or-restart,
    /// now-or-never.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<When>,
    /// Why then: written, in-flight, owner-gone, sitting, not-rechecked, start-only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_reason: Option<Reason>,
    /// The GC rule.
    pub rule: &'static str,
    /// Why.
    pub reason: String,
    /// The request the GC sends.
    pub request: serde_json::Value,
}

/// End state of one object.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct OutcomeJson {
    /// The object.
    pub target: ObjectRef,
    /// deleted, terminating, kept.
    pub state: &'static str,
    /// For terminating: the finalizers holding it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finalizers: Option<Vec<String>>,
    /// For kept: the ownerReference UIDs it ends with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_references: Option<Vec<String>>,
    /// Why it is stuck.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// For an end state that depends on an order upstream does not fix (GC021): the other end
    /// states it can reach.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<StateWhy>,
    /// The human table's "Left stuck" lists it: it is stuck and not deleted, and in a delete
    /// preview the delete reached it (the objects that were stuck before it are no result of
    /// it). Not in the JSON, whose outcomes stay complete.
    #[serde(skip)]
    pub left_stuck: bool,
}

/// Counts.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct PlanSummary {
    /// Waves with actions.
    pub waves: u32,
    /// Actions per verb.
    pub actions: BTreeMap<&'static str, usize>,
    /// Objects deleted.
    pub deleted: usize,
    /// Objects deleted per kind and namespace.
    pub deleted_by_kind: Vec<DeletedCount>,
    /// Objects left terminating.
    pub terminating: usize,
    /// True when the cascade hit the wave limit.
    pub truncated: bool,
}

/// Deleted objects of one kind in one namespace.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct DeletedCount {
    /// Kind.
    pub kind: String,
    /// Namespace (empty for cluster-scoped).
    pub namespace: String,
    /// Count.
    pub count: usize,
}

/// The request the GC sends for an action (§3.7–3.9), as JSON.
pub fn request_json(a: &GarbageCollector<'_>, act: &Action) -> serde_json::Value {
    let store = &a.snap.store;
    let o = store.object(act.target);
    let uid = store.str(o.uid);
    match act.verb {
        Verb::Delete => {
            let mut pre = json!({ "uid": uid });
            if a.rules.delete_with_resource_version() {
                pre["resourceVersion"] = json!(store.str(o.resource_version));
            }
            json!({
                "method": "DELETE",
                "body": { "propagationPolicy": act.policy.map(|p| p.as_str()), "preconditions": pre },
            })
        }
        Verb::RemoveOwnerReferences => json!({
            "method": "PATCH",
            "contentType": "application/strategic-merge-patch+json",
            "body": { "metadata": {
                "uid": uid,
                "ownerReferences": act.owner_refs.iter().map(|u| json!({"$patch": "delete", "uid": store.str(*u)})).collect::<Vec<_>>(),
            }},
            "fallbackOn415": "application/merge-patch+json with metadata.resourceVersion and the remaining ownerReferences",
        }),
        Verb::UnblockOwnerReferences => json!({
            "method": "PATCH",
            "contentType": "application/strategic-merge-patch+json",
            "body": { "metadata": {
                "uid": uid,
                "ownerReferences": act.owner_refs.iter().map(|u| json!({"uid": store.str(*u), "blockOwnerDeletion": false})).collect::<Vec<_>>(),
            }},
            "fallbackOn415": "application/merge-patch+json with metadata.resourceVersion and every ownerReference with blockOwnerDeletion=false",
        }),
        Verb::RemoveFinalizer => json!({
            "method": "PATCH",
            "contentType": "application/merge-patch+json",
            "body": { "metadata": { "resourceVersion": "<current>", "finalizers": "<current minus the finalizer, or null>" } },
        }),
    }
}

/// Builds the report.
pub fn report(a: &GarbageCollector<'_>, plan: &Plan, mode: &'static str) -> PlanReport {
    let snap = a.snap;
    let store = &snap.store;
    let action_json = |act: &crate::gc::plan::Action| ActionJson {
        wave: act.wave,
        verb: act.verb.as_str(),
        target: ObjectRef::of(snap, act.target),
        propagation_policy: act.policy.map(|p| p.as_str()),
        owner_references: act.patched_owner_uids(store),
        finalizer: act.finalizer.map(|f| store.str(f).to_owned()),
        when: None,
        when_reason: None,
        rule: act.reason.rule(),
        reason: act.detail.clone(),
        request: request_json(a, act),
    };
    let actions = plan.actions.iter().map(action_json).collect();
    let withheld = plan.withheld.iter().map(action_json).collect();
    let preview = mode == "delete-preview";
    let outcomes = plan
        .outcomes
        .iter()
        .map(|o| OutcomeJson {
            target: ObjectRef::of(snap, o.target),
            state: match o.state {
                EndState::Deleted => "deleted",
                EndState::Terminating { .. } => "terminating",
                EndState::Kept => "kept",
            },
            finalizers: match &o.state {
                EndState::Terminating { finalizers } => Some(
                    finalizers
                        .iter()
                        .map(|f| store.str(*f).to_owned())
                        .collect(),
                ),
                _ => None,
            },
            owner_references: (o.state == EndState::Kept).then(|| {
                o.owner_refs
                    .iter()
                    .map(|u| store.str(*u).to_owned())
                    .collect()
            }),
            why: o.why.clone(),
            alternatives: o
                .alternatives
                .iter()
                .map(|x| state_why(a, &x.state, &x.owner_refs, Some(x.order)))
                .collect(),
            left_stuck: o.why.is_some()
                && o.state != EndState::Deleted
                && (!preview || plan.reached[o.target.index()] || o.order_dependent()),
        })
        .collect();
    let mut counts = BTreeMap::new();
    for v in [
        Verb::Delete,
        Verb::RemoveOwnerReferences,
        Verb::UnblockOwnerReferences,
        Verb::RemoveFinalizer,
    ] {
        counts.insert(v.as_str(), plan.count(v));
    }
    let by_kind = plan.deleted_by_kind_namespace(a);
    PlanReport {
        api_version: REPORT_API_VERSION,
        kind: "CollectPlan",
        gc_version: a.rules.version.to_string(),
        mode,
        dry_run: true,
        actions,
        withheld,
        outcomes,
        summary: PlanSummary {
            waves: plan.waves,
            actions: counts,
            deleted: by_kind.values().sum(),
            deleted_by_kind: by_kind
                .into_iter()
                .map(|((kind, namespace), count)| DeletedCount {
                    kind,
                    namespace,
                    count,
                })
                .collect(),
            terminating: plan
                .outcomes
                .iter()
                .filter(|o| matches!(o.state, EndState::Terminating { .. }))
                .count(),
            truncated: plan.truncated,
        },
    }
}

/// Tells each action of `r` (made from `plan`, in its order) when the GC sends it.
pub fn time_actions(r: &mut PlanReport, plan: &Plan, timings: &HashMap<ObjId, Timing>) {
    for (json, act) in r.actions.iter_mut().zip(&plan.actions) {
        if let Some(t) = timings.get(&act.target) {
            json.when = Some(t.when);
            json.when_reason = t.reason;
        }
    }
}

/// Writes the plan as tables: actions, then objects left stuck, then a summary.
pub fn write_table_report(
    w: &mut dyn Write,
    a: &GarbageCollector<'_>,
    plan: &Plan,
    r: &PlanReport,
    wide: bool,
    styles: Styles,
) -> std::io::Result<()> {
    write_table_report_with(w, a, plan, r, &TableOptions::of(wide), styles)
}

/// Entries of `deleted (…)` in the summary line before "… and N more".
pub const SUMMARY_KINDS: usize = 8;

/// [`write_table_report`] with kubectl's layout options (`--no-headers`: the action rows only).
pub fn write_table_report_with(
    w: &mut dyn Write,
    a: &GarbageCollector<'_>,
    plan: &Plan,
    r: &PlanReport,
    opts: &TableOptions,
    styles: Styles,
) -> std::io::Result<()> {
    let snap = a.snap;
    let wide = opts.wide;
    let now = super::captured_secs(snap);
    if plan.actions.is_empty() {
        if !opts.no_headers {
            writeln!(w, "The GC has nothing to do.")?;
        }
    } else {
        let mut t = table(styles);
        let mut header: Vec<String> = [
            "WAVE",
            "WHEN",
            "ACTION",
            "NAMESPACE",
            "OBJECT",
            "AGE",
            "DETAIL",
        ]
        .map(String::from)
        .to_vec();
        if wide {
            header.extend(["RULE", "UID"].map(String::from));
        }
        header.extend(opts.label_headers());
        if !opts.no_headers {
            t.set_header(cells(&header));
        }
        for (i, act) in plan.actions.iter().enumerate() {
            let o = snap.store.object(act.target);
            let when = r
                .actions
                .get(i)
                .and_then(|j| j.when)
                .map_or("-", When::short);
            let verb = match (act.verb, act.policy) {
                (Verb::Delete, Some(p)) => format!("delete ({})", p.as_str()),
                (Verb::RemoveFinalizer, _) => format!(
                    "remove-finalizer {}",
                    act.finalizer.map(|f| snap.store.str(f)).unwrap_or("")
                ),
                (v, _) => v.as_str().to_owned(),
            };
            let ns = snap.store.str(o.namespace);
            let mut row = vec![
                act.wave.to_string(),
                when.to_owned(),
                verb,
                if ns.is_empty() {
                    "-".into()
                } else {
                    ns.to_owned()
                },
                format!("{}/{}", snap.kind_label(o.resource), snap.store.str(o.name)),
                super::age(&snap.store.timestamp(o.creation_timestamp), now),
                act.detail.clone(),
            ];
            if wide {
                row.push(act.reason.rule().to_owned());
                row.push(snap.store.str(o.uid).to_owned());
            }
            row.extend(opts.label_cells(snap, Some(act.target)));
            t.add_row(cells(row));
        }
        fit(&mut t, opts, &[0, 2, 5]);
        write_table(w, &t)?;
    }
    if opts.no_headers {
        return Ok(());
    }
    let stuck: Vec<&OutcomeJson> = r.outcomes.iter().filter(|o| o.left_stuck).collect();
    if !stuck.is_empty() {
        writeln!(w)?;
        writeln!(w, "Left stuck:")?;
        let mut t = table(styles);
        t.set_header(vec!["STATE", "NAMESPACE", "OBJECT", "WHY"]);
        for o in stuck {
            t.add_row(cells([
                o.state.to_owned(),
                if o.target.namespace.is_empty() {
                    "-".into()
                } else {
                    o.target.namespace.clone()
                },
                format!("{}/{}", o.target.kind, o.target.name),
                o.why.clone().unwrap_or_default(),
            ]));
        }
        fit(&mut t, opts, &[0]);
        write_table(w, &t)?;
    }
    if !r.withheld.is_empty() {
        writeln!(w)?;
        writeln!(
            w,
            "Withheld: every order of the GC makes these requests, but only after one whose outcome depends on the order (GC021); --apply does not send them and reports them as left:"
        )?;
        let mut t = table(styles);
        t.set_header(vec!["WAVE", "ACTION", "NAMESPACE", "OBJECT", "DETAIL"]);
        for act in &r.withheld {
            t.add_row(cells([
                act.wave.to_string(),
                act.verb.to_owned(),
                if act.target.namespace.is_empty() {
                    "-".into()
                } else {
                    act.target.namespace.clone()
                },
                format!("{}/{}", act.target.kind, act.target.name),
                act.reason.clone(),
            ]));
        }
        fit(&mut t, opts, &[0, 1]);
        write_table(w, &t)?;
    }
    writeln!(w)?;
    write_line(w, &summary_line(plan, r))
}

/// `dry run: 3 action(s) in 2 wave(s): … · 12 object(s) deleted (4 Pod in shop, …, and 5
/// more) · 2 left terminating · GC 1.28`.
pub fn summary_line(plan: &Plan, r: &PlanReport) -> String {
    let s = &r.summary;
    let mut kinds: Vec<String> = s
        .deleted_by_kind
        .iter()
        .take(SUMMARY_KINDS)
        .map(|d| {
            format!(
                "{} {}{}",
                d.count,
                d.kind,
                if d.namespace.is_empty() {
                    String::new()
                } else {
                    format!(" in {}", d.namespace)
                }
            )
        })
        .collect();
    if s.deleted_by_kind.len() > SUMMARY_KINDS {
        let rest = &s.deleted_by_kind[SUMMARY_KINDS..];
        kinds.push(format!(
            "… and {} more in {} more kind/namespace pair(s)",
            rest.iter().map(|d| d.count).sum::<usize>(),
            rest.len()
        ));
    }
    let withheld = if r.withheld.is_empty() {
        String::new()
    } else {
        format!(" · {} withheld (GC021)", r.withheld.len())
    };
    // What --apply is about to perform is no dry run (newcomer NC7).
    let lead = if r.dry_run { "dry run" } else { "to apply" };
    format!(
        "{lead}: {} action(s) in {} wave(s): {} delete, {} remove-owner-references, {} unblock-owner-references, {} remove-finalizer{withheld} · {} object(s) deleted{} · {} left terminating · GC {}",
        plan.actions.len(),
        s.waves,
        s.actions["delete"],
        s.actions["remove-owner-references"],
        s.actions["unblock-owner-references"],
        s.actions["remove-finalizer"],
        s.deleted,
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        },
        s.terminating,
        r.gc_version
    )
}

/// Where an action stands in `collect --apply`: its round (apply re-plans until the GC would
/// do nothing more), its number among the round's `total` actions, and its wave.
#[derive(Debug, Clone, Copy)]
pub struct ApplyStep {
    /// Round, from 1.
    pub round: u32,
    /// The action's number in its round, from 1.
    pub seq: usize,
    /// Actions in the round.
    pub total: usize,
    /// The plan's wave.
    pub wave: u32,
}

/// One line of `collect --apply`'s progress on stderr, sanitised:
/// `[ 3/12] wave 1 delete Pod/web-1 -n shop: done — 200 OK` (`[round 2  3/12]` after the first
/// round). `message` may come from the API server or an admission webhook, and names from the
/// cluster: both are hostile text.
pub fn apply_progress_line(
    step: ApplyStep,
    verb: &str,
    target: &ObjectRef,
    result: &str,
    message: &str,
) -> String {
    let ApplyStep {
        round,
        seq,
        total,
        wave,
    } = step;
    let width = total.to_string().len();
    let round = if round > 1 {
        format!("round {round} ")
    } else {
        String::new()
    };
    super::text::sanitized(&format!(
        "[{round}{seq:>width$}/{total}] wave {wave} {verb} {}: {result} — {message}",
        target
    ))
}

/// One line of `collect --apply`'s "Not performed:" list, sanitised.
pub fn write_apply_not_performed(
    w: &mut dyn Write,
    result: &str,
    verb: &str,
    target: &ObjectRef,
    message: &str,
) -> std::io::Result<()> {
    write_line(w, &format!("  {result} {verb} {}: {message}", target))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dry_run_shows_the_requests_apply_withholds() {
        // A foreground deletion's finalizer removal that waits for an order-dependent request
        // is not an action; the dry run names it, in the table, the summary and the JSON, as
        // `--apply` reports it left (before, only `--apply` said so).
        let mut c = crate::testkit::Cluster::new();
        c.obj("v1", "ConfigMap", "ns", "root", "u-root")
            .finalizers(&["foregroundDeletion"])
            .deleting();
        let snap = c.build();
        let gc = GarbageCollector::new(&snap, crate::catalog::KubeVersion::v1(20));
        let mut plan = Plan::steady_state(&gc);
        let plain = report(&gc, &plan, "collect");
        assert!(plain.withheld.is_empty());
        assert!(
            serde_json::to_value(&plain)
                .unwrap()
                .get("withheld")
                .is_none()
        );
        let (removal, rest): (Vec<_>, Vec<_>) = plan
            .actions
            .drain(..)
            .partition(|x| x.verb == Verb::RemoveFinalizer);
        assert_eq!(removal.len(), 1);
        plan.actions = rest;
        plan.withheld = removal;
        let r = report(&gc, &plan, "collect");
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["withheld"][0]["verb"], "remove-finalizer");
        assert_eq!(json["withheld"][0]["target"]["name"], "root");
        assert_eq!(json["actions"].as_array().unwrap().len(), 0);
        let mut out = Vec::new();
        write_table_report(&mut out, &gc, &plan, &r, false, Styles::plain()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Withheld:"), "{text}");
        assert!(text.contains("remove-finalizer"), "{text}");
        assert!(text.contains("ConfigMap/root"), "{text}");
        assert!(text.contains("1 withheld (GC021)"), "{text}");
    }

    use crate::catalog::KubeVersion;
    use crate::gc::Policy;
    use crate::gc::plan::UserDelete;
    use crate::snapshot::{DiscoveryFailure, NamespaceStatus, Snapshot};

    fn id_of(snap: &Snapshot, name: &str) -> crate::model::ObjId {
        snap.store
            .ids()
            .find(|&id| snap.store.str(snap.store.object(id).name) == name)
            .unwrap_or_else(|| panic!("no object {name}"))
    }

    fn table_of(gc: &GarbageCollector<'_>, plan: &Plan, r: &PlanReport) -> String {
        let mut out = Vec::new();
        write_table_report(&mut out, gc, plan, r, false, Styles::plain()).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The rows of the "Left stuck" table, as `STATE OBJECT` (namespace left out).
    fn left_stuck(text: &str) -> Vec<String> {
        let Some((_, rest)) = text.split_once("Left stuck:\n") else {
            return Vec::new();
        };
        rest.lines()
            .skip(1)
            .take_while(|l| !l.is_empty())
            .map(|l| {
                let cols: Vec<&str> = l.split_whitespace().collect();
                format!("{} {}", cols[0], cols[2])
            })
            .collect()
    }

    /// A foreground delete of `api` (its Secret held by a finalizer nothing removes, its
    /// ConfigMap deleted) beside what was stuck before: a ConfigMap held by a finalizer, a
    /// Deployment whose foreground deletion waits for a held Pod, and a namespace being
    /// deleted that discovery keeps (C15).
    fn shop() -> Snapshot {
        let mut c = crate::testkit::Cluster::new();
        c.obj("apps/v1", "Deployment", "shop", "api", "u-api");
        c.obj("v1", "Secret", "shop", "api-token", "u-token")
            .owner("apps/v1", "Deployment", "api", "u-api")
            .block(true)
            .finalizers(&["example.com/vault-sync"]);
        c.obj("v1", "ConfigMap", "shop", "api-config", "u-api-config")
            .owner("apps/v1", "Deployment", "api", "u-api")
            .block(true);
        c.obj("v1", "ConfigMap", "shop", "locked", "u-locked")
            .finalizers(&["example.com/protect"])
            .deleting();
        c.obj("apps/v1", "Deployment", "shop", "web", "u-web")
            .finalizers(&["foregroundDeletion"])
            .deleting();
        c.obj("v1", "Pod", "shop", "web-0", "u-web-0")
            .owner("apps/v1", "Deployment", "web", "u-web")
            .block(true)
            .finalizers(&["example.com/drain-protection"]);
        c.obj("v1", "Namespace", "", "shop", "u-shop");
        c.obj("v1", "Namespace", "", "doomed", "u-doomed")
            .finalizers(&["kubernetes"])
            .deleting();
        let mut snap = c.build();
        snap.discovery_failures.push(DiscoveryFailure {
            group_version: "metrics.k8s.io/v1beta1".into(),
            message: "the server is currently unable to handle the request".into(),
        });
        snap
    }

    #[test]
    fn a_delete_preview_leaves_stuck_only_what_the_delete_reaches() {
        let snap = shop();
        let gc = GarbageCollector::new(&snap, KubeVersion::v1(28));
        let plan = Plan::preview_delete(
            &gc,
            UserDelete {
                target: id_of(&snap, "api"),
                policy: Some(Policy::Foreground),
            },
        );
        let r = report(&gc, &plan, "delete-preview");
        let text = table_of(&gc, &plan, &r);
        // The Deployment waits for its Secret, which waits for a finalizer nobody removes;
        // the ConfigMap goes. What was stuck before the delete is no result of it.
        assert_eq!(
            left_stuck(&text),
            ["terminating Deployment/api", "terminating Secret/api-token"],
            "{text}"
        );
        assert!(
            text.contains("1 object(s) deleted (1 ConfigMap in shop)"),
            "{text}"
        );
        // The JSON keeps every outcome, the ones stuck before included.
        let json = serde_json::to_value(&r).unwrap();
        let states: Vec<String> = json["outcomes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| format!("{} {}", o["state"].as_str().unwrap(), o["target"]["name"]))
            .collect();
        for want in [
            "terminating \"api\"",
            "terminating \"api-token\"",
            "deleted \"api-config\"",
            "terminating \"locked\"",
            "terminating \"web\"",
            "terminating \"doomed\"",
        ] {
            assert!(states.iter().any(|s| s == want), "{want} in {states:?}");
        }
        assert!(json["outcomes"][0].get("leftStuck").is_none());

        // Without --delete, the table lists what the steady state leaves stuck.
        let steady = Plan::steady_state(&gc);
        let r = report(&gc, &steady, "collect");
        let rows = left_stuck(&table_of(&gc, &steady, &r));
        for want in [
            "terminating ConfigMap/locked",
            "terminating Deployment/web",
            "terminating Pod/web-0",
            "terminating Namespace/doomed",
        ] {
            assert!(rows.iter().any(|s| s == want), "{want} in {rows:?}");
        }
    }

    #[test]
    fn a_namespace_delete_leaves_stuck_no_deleted_row() {
        // W10: `collect --delete namespace/orph --cascade=orphan` while discovery fails: the
        // namespace controller deletes the ConfigMap, and the namespace stays Terminating on
        // its `kubernetes` token. The ConfigMap is deleted, not stuck.
        let mut c = crate::testkit::Cluster::new();
        c.obj("v1", "Namespace", "", "orph", "u-orph");
        c.obj("v1", "ConfigMap", "orph", "settings", "u-settings");
        let mut snap = c.build();
        snap.details.namespaces.insert(
            "orph".into(),
            NamespaceStatus {
                spec_finalizers: vec!["kubernetes".into()],
                ..NamespaceStatus::default()
            },
        );
        snap.discovery_failures.push(DiscoveryFailure {
            group_version: "metrics.k8s.io/v1beta1".into(),
            message: "the server is currently unable to handle the request".into(),
        });
        let gc = GarbageCollector::new(&snap, KubeVersion::v1(20));
        for policy in [None, Some(Policy::Orphan), Some(Policy::Foreground)] {
            let plan = Plan::preview_delete(
                &gc,
                UserDelete {
                    target: id_of(&snap, "orph"),
                    policy,
                },
            );
            let r = report(&gc, &plan, "delete-preview");
            let text = table_of(&gc, &plan, &r);
            assert_eq!(
                left_stuck(&text),
                ["terminating Namespace/orph"],
                "{policy:?}: {text}"
            );
            assert!(
                text.contains("1 object(s) deleted (1 ConfigMap in orph)"),
                "{policy:?}: {text}"
            );
            // The JSON still says who deleted the ConfigMap.
            let cm = r
                .outcomes
                .iter()
                .find(|o| o.target.name == "settings")
                .expect("the ConfigMap's outcome");
            assert_eq!(cm.state, "deleted");
            assert!(
                cm.why
                    .as_deref()
                    .unwrap_or("")
                    .contains("namespace controller"),
                "{:?}",
                cm.why
            );
        }
    }

    #[test]
    fn apply_lines_show_hostile_names_and_server_messages_escaped() {
        let target = ObjectRef {
            kind: "Pod".into(),
            name: "web\r\nFAKE\u{1b}]0;title\u{7}".into(),
            namespace: "shop\u{1b}[2J".into(),
            version: "v1".into(),
            uid: "u".into(),
            ..Default::default()
        };
        // A webhook's denial message is server text too.
        let msg = "denied\u{1b}[2K\rby webhook";
        let line = apply_progress_line(
            ApplyStep {
                round: 1,
                seq: 3,
                total: 12,
                wave: 1,
            },
            "delete",
            &target,
            "failed",
            msg,
        );
        assert_eq!(
            line,
            "[ 3/12] wave 1 delete Pod/web\\r\\nFAKE^[]0;title\\x07 -n shop^[[2J: failed — denied^[[2K\\rby webhook"
        );
        let mut out = Vec::new();
        write_apply_not_performed(&mut out, "skipped", "delete", &target, msg).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.trim_end_matches('\n').chars().any(|c| c.is_control()));
    }
}
