//! The namespace controller's view of a Namespace target.

use super::{ContentCount, NamespaceBlockerWhy, NamespaceWhy, refs};
use crate::gc::GarbageCollector;
use crate::model::ObjId;
use crate::namespace::deletion::{self, Blocker};
use crate::snapshot::{Condition, Snapshot};
use std::collections::BTreeMap;

/// A condition that reports nothing wrong: `Ready`/`Available`-like types that are `True`,
/// anything else that is `False` (the usual polarity of failure conditions), the namespace
/// controller's ok variants.
pub(super) fn condition_ok(c: &Condition) -> bool {
    let positive = matches!(
        c.type_.as_str(),
        "Ready"
            | "Available"
            | "Established"
            | "NamesAccepted"
            | "Synced"
            | "Healthy"
            | "Progressing"
            | "Initialized"
            | "ContainersReady"
            | "PodScheduled"
            | "Complete"
            | "Bound"
    );
    if positive {
        c.status == "True"
    } else {
        c.status != "True"
    }
}

pub(super) fn namespace_why(
    gc: &GarbageCollector<'_>,
    id: ObjId,
    content: &[ObjId],
) -> NamespaceWhy {
    let snap = gc.snap;
    let d = deletion::evaluate(snap, id, content, gc.rules.version);
    let spec_finalizers = snap
        .details
        .namespaces
        .get(&d.name)
        .map(|s| s.spec_finalizers.clone());
    let blockers = d.blockers.iter().map(|b| blocker_why(snap, b)).collect();
    let mut by_resource: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for &c in content {
        let o = snap.store.object(c);
        let r = snap.resource_of(o);
        let name = if r.group.is_empty() {
            r.kind.clone()
        } else {
            format!("{}.{}", r.kind, r.group)
        };
        by_resource
            .entry(name)
            .or_insert_with(|| (0, snap.kind_label(o.resource).into_owned()))
            .0 += 1;
    }
    NamespaceWhy {
        outlook: d.outlook.as_str(),
        spec_finalizers,
        blockers,
        failing_conditions: d.failing_conditions,
        content: by_resource
            .into_iter()
            .map(|(resource, (count, shown))| ContentCount {
                resource,
                count,
                shown,
            })
            .collect(),
    }
}

fn blocker_why(snap: &Snapshot, b: &Blocker) -> NamespaceBlockerWhy {
    let summary = blocker_summary(b);
    let (type_, message, objects, api_services) = match b {
        Blocker::DiscoveryFailure {
            group_versions,
            observed,
            discovery_read,
        } => {
            let gvs: Vec<&str> = group_versions.iter().map(|(g, _)| g.as_str()).collect();
            let mut message = if gvs.is_empty() && *discovery_read {
                "the namespace controller's last pass saw a discovery failure, and discovery \
                 succeeds now: its next retry (backoff up to a minute) should get past it"
                    .to_owned()
            } else if gvs.is_empty() {
                "the namespace controller reports a discovery failure".to_owned()
            } else {
                format!("discovery fails for {}", gvs.join(", "))
            };
            if let Some(m) = observed {
                message.push_str(&format!(" (its condition: {m})"));
            }
            message.push_str(
                "; the namespace controller never removes its `kubernetes` finalizer while any \
                 API group fails discovery, even one with nothing in this namespace",
            );
            let unavailable: Vec<crate::snapshot::ApiService> = snap
                .details
                .api_services
                .iter()
                .flatten()
                .filter(|a| !a.is_available() || gvs.contains(&a.group_version().as_str()))
                .cloned()
                .collect();
            ("discovery-failure", message, Vec::new(), unavailable)
        }
        Blocker::ForeignSpecFinalizers(tokens) => (
            "foreign-spec-finalizers",
            format!(
                "spec.finalizers holds {}: the namespace controller removes only `kubernetes`; \
                 these stay until whoever added them calls /finalize",
                tokens.join(", ")
            ),
            Vec::new(),
            Vec::new(),
        ),
        Blocker::ControllerFailure(c) => (
            "controller-failure",
            format!("{}: {}", c.type_, c.message),
            Vec::new(),
            Vec::new(),
        ),
        Blocker::ContentHeld(groups) => {
            let parts: Vec<String> = groups
                .iter()
                .map(|g| format!("{} on {} object(s)", g.finalizer, g.objects.len()))
                .collect();
            (
                "content-held",
                format!(
                    "content held by finalizers the namespace controller's deletes do not clear: {}",
                    parts.join(", ")
                ),
                refs(snap, groups.iter().flat_map(|g| g.objects.iter().copied())),
                Vec::new(),
            )
        }
        Blocker::GcFinalizers(f) => (
            "gc-finalizers",
            format!(
                "the namespace object itself carries the GC's {}: the GC removes it",
                f.join(", ")
            ),
            Vec::new(),
            Vec::new(),
        ),
        Blocker::PodsFirst(pods) => (
            "pods-first",
            format!(
                "{} pod(s) remain: from 1.33 the namespace controller deletes nothing else \
                 until every pod is gone (its conditions may say \"ok\" meanwhile)",
                pods.len()
            ),
            refs(snap, pods.iter().copied()),
            Vec::new(),
        ),
        Blocker::ContentUnknown(resources) => (
            "content-unknown",
            format!(
                "its content in {} resource(s) was not read: {}",
                resources.len(),
                resources
                    .iter()
                    .take(8)
                    .map(|(r, why)| format!("{r} ({why})"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Vec::new(),
            Vec::new(),
        ),
        Blocker::SpecUnknown => (
            "spec-unknown",
            "its spec.finalizers and status were not read (metadata-only input)".to_owned(),
            Vec::new(),
            Vec::new(),
        ),
    };
    NamespaceBlockerWhy {
        type_,
        outlook: b.outlook().as_str(),
        summary,
        message,
        objects,
        api_services,
    }
}

/// One line per blocker, for the verdict.
fn blocker_summary(b: &Blocker) -> String {
    match b {
        Blocker::DiscoveryFailure { group_versions, .. } if !group_versions.is_empty() => format!(
            "discovery fails for {}, and the namespace controller never finishes a namespace \
             while any API group fails",
            group_versions
                .iter()
                .map(|(g, _)| g.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Blocker::DiscoveryFailure {
            discovery_read: true,
            ..
        } => "the namespace controller's last pass saw a discovery failure that discovery no \
              longer shows: its next retry should finish it"
            .to_owned(),
        Blocker::DiscoveryFailure { .. } => "the namespace controller reports a discovery \
             failure, and it never finishes a namespace while any API group fails"
            .to_owned(),
        Blocker::ForeignSpecFinalizers(t) => format!(
            "spec.finalizers holds {}, which only a /finalize call removes",
            t.join(", ")
        ),
        Blocker::ControllerFailure(c) => format!("the namespace controller reports {}", c.type_),
        Blocker::ContentHeld(groups) => format!(
            "{} object(s) in it are held by finalizers ({})",
            groups.iter().map(|g| g.objects.len()).sum::<usize>(),
            groups
                .iter()
                .map(|g| g.finalizer.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Blocker::GcFinalizers(f) => format!("the GC's {} on the namespace itself", f.join(", ")),
        Blocker::PodsFirst(p) => format!("{} pod(s) go first", p.len()),
        Blocker::ContentUnknown(r) => {
            format!("its content in {} resource(s) was not read", r.len())
        }
        Blocker::SpecUnknown => "its spec.finalizers were not read".to_owned(),
    }
}
