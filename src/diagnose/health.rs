//! GC health (`check health`): resources the GC cannot list or watch (which stall or blind
//! it, depending on the release), plus the audit's deletions that are not progressing.

use super::audit::Audit;
use super::code::{Code, Severity};
use super::finding::{Finding, Subject};
use super::remedy::{Remedy, shell_word};
use crate::gc::GarbageCollector;
use crate::snapshot::{ListOutcome, split_api_version};

/// GC health: resources the GC cannot list or watch, plus deletions that are not progressing.
pub fn findings(gc: &GarbageCollector<'_>, audit: &Audit) -> Vec<Finding> {
    let mut out = Vec::new();
    let blocks_all = !gc
        .rules
        .version
        .has(crate::catalog::version::Change::WorkersStartWithoutFullSync);
    // Resource-level findings: no object, the resource as subject.
    for g in gc.rest_mapper.grs() {
        if let ListOutcome::Failed { message } = &g.coverage {
            out.push(Finding::new(
                Code::GcSyncBlocker,
                if blocks_all { Severity::Error } else { Severity::Warning },
                Subject::Resource(res_name(&g.group, &g.plural)),
                if blocks_all {
                    format!("the GC's monitor for {} cannot sync: GC {} pauses all garbage collection until every monitor has synced (kubernetes#127105)", res_name(&g.group, &g.plural), gc.rules.version)
                } else {
                    format!("the GC proceeds without {}: blockOwnerDeletion on those objects is ignored (GC ≥ 1.32, PR #125796)", res_name(&g.group, &g.plural))
                },
                format!("listing {} failed: {message}", res_name(&g.group, &g.plural)),
            )
            .with_remedies(vec![Remedy::run(
                "see whether the resource lists now, and if not, what the API server answers",
                format!("kubectl get {} -A --request-timeout=30s", shell_word(&res_name(&g.group, &g.plural))),
            )]));
        }
    }
    // Any failed discovery holds every namespace being deleted (§10.2): name them.
    let store = &gc.snap.store;
    let held: Vec<&str> = store
        .ids()
        .filter(|&id| {
            let o = store.object(id);
            let r = gc.snap.resource_of(o);
            o.being_deleted() && r.group.is_empty() && r.kind == "Namespace"
        })
        .map(|id| store.str(store.object(id).name))
        .collect();
    let holds = if held.is_empty() {
        String::new()
    } else {
        format!(
            "; it also holds {} terminating namespace(s) for good: {}",
            held.len(),
            held.iter().take(10).copied().collect::<Vec<_>>().join(", ")
        )
    };
    // Holding namespaces for good is what `audit` calls GC023, an error: one severity for
    // one situation (newcomer NC6).
    let severity = if held.is_empty() {
        Severity::Warning
    } else {
        Severity::Error
    };
    for f in &gc.snap.discovery_failures {
        out.push(Finding::new(
            Code::GcSyncBlocker,
            severity,
            Subject::Resource(f.group_version.clone()),
            format!("the GC's discovery fails for this group-version too: its resources are not (re)synced and their owners cannot be resolved{holds}"),
            format!("discovery of {} failed: {}", f.group_version, f.message),
        )
        .with_remedies(vec![Remedy::run(
            "see why the APIService serving it is unavailable (its status conditions), and fix or delete it",
            format!("kubectl get apiservices {}", shell_word(&apiservice_name(&f.group_version))),
        )]));
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
                        | Code::StuckNamespace
                ) && f.severity >= Severity::Warning
            })
            .cloned(),
    );
    out
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
