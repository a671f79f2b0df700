//! `kubectl gc collect`: the GC's plan (dry run), or the cascade of a user's delete.

use super::load;
use crate::analysis::{Analysis, Policy};
use crate::cli::{Cascade, CollectArgs, GlobalArgs};
use crate::error::{Error, Result, exit};
use crate::model::ObjId;
use crate::plan::{Plan, UserDelete};
use crate::render::plan as view;
use crate::snapshot::Snapshot;

mod apply;

pub async fn run(g: &GlobalArgs, args: &CollectArgs) -> Result<u8> {
    if args.apply {
        apply::check_input(g)?;
    }
    // A delete's cascade can cross namespaces (cluster-scoped owners): list everything then.
    let loaded = load(g, args.delete.is_none()).await?;
    let snap = &loaded.snapshot;
    let analysis = Analysis::new(snap, loaded.gc_version(g));
    let (mut plan, mode) = match &args.delete {
        Some(target) => {
            let id = resolve_target(
                snap,
                target,
                g.namespace.as_deref().unwrap_or(&loaded.default_namespace),
            )?;
            let policy = match args.cascade {
                Cascade::Background => Some(Policy::Background),
                Cascade::Foreground => Some(Policy::Foreground),
                Cascade::Orphan => Some(Policy::Orphan),
                Cascade::Default => None,
            };
            (
                Plan::preview_delete(&analysis, UserDelete { target: id, policy }),
                "delete-preview",
            )
        }
        None => (Plan::collect(&analysis), "collect"),
    };
    if let (Some(ns), None) = (&loaded.namespace, &args.delete) {
        // Scope the actions to the namespace: what is shown is what --apply performs.
        plan.actions
            .retain(|a| snap.store.str(snap.store.object(a.target).namespace) == ns);
    }
    let mut report = view::report(&analysis, &plan, mode);
    if let (Some(ns), None) = (&loaded.namespace, &args.delete) {
        report.outcomes.retain(|o| o.target.namespace == *ns);
    }
    if args.apply {
        return apply::run(g, args, &loaded, &analysis, &plan, report).await;
    }
    super::emit(args.output, g.color, &report, |out, wide, styles| {
        view::write_table_report(out, &analysis, &plan, &report, wide, styles)
    })?;
    Ok(exit::OK)
}

/// Resolves `KIND/NAME` (kind, plural or `kind.group`; case-insensitive) to an object.
pub fn resolve_target(snap: &Snapshot, target: &str, namespace: &str) -> Result<ObjId> {
    let (kind, name) = target.split_once('/').ok_or_else(|| {
        Error::usage(
            format!("--delete wants KIND/NAME, got {target:?}"),
            "e.g. --delete deployment/web -n shop",
        )
    })?;
    let kind = kind.to_ascii_lowercase();
    let (kind, group) = match kind.split_once('.') {
        Some((k, g)) => (k.to_owned(), Some(g.to_owned())),
        None => (short_name(&kind).unwrap_or(&kind).to_owned(), None),
    };
    let matches_kind = |r: &crate::snapshot::Resource| {
        (r.kind.to_ascii_lowercase() == kind || r.plural == kind)
            && group.as_deref().is_none_or(|g| r.group == g)
    };
    let mut found = Vec::new();
    for id in snap.store.ids() {
        let o = snap.store.object(id);
        let r = snap.resource_of(o);
        if snap.store.str(o.name) == name
            && matches_kind(r)
            && (!r.namespaced || snap.store.str(o.namespace) == namespace)
        {
            found.push(id);
        }
    }
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(Error::usage(
            format!("{target} not found in namespace {namespace:?}"),
            "check the name and -n; KIND may be a kind, a plural or kind.group",
        )),
        many => Err(Error::usage(
            format!("{target} is ambiguous ({} objects match)", many.len()),
            "qualify the kind with its group, e.g. deployments.apps/web",
        )),
    }
}

/// kubectl's short names of the built-in resources (`cm` → `configmaps`).
fn short_name(s: &str) -> Option<&'static str> {
    Some(match s {
        "cm" => "configmaps",
        "cj" => "cronjobs",
        "crd" | "crds" => "customresourcedefinitions",
        "csr" => "certificatesigningrequests",
        "deploy" => "deployments",
        "ds" => "daemonsets",
        "ep" => "endpoints",
        "hpa" => "horizontalpodautoscalers",
        "ing" => "ingresses",
        "limits" => "limitranges",
        "netpol" => "networkpolicies",
        "no" => "nodes",
        "ns" => "namespaces",
        "pc" => "priorityclasses",
        "pdb" => "poddisruptionbudgets",
        "po" => "pods",
        "pv" => "persistentvolumes",
        "pvc" => "persistentvolumeclaims",
        "quota" => "resourcequotas",
        "rc" => "replicationcontrollers",
        "rs" => "replicasets",
        "sa" => "serviceaccounts",
        "sc" => "storageclasses",
        "sts" => "statefulsets",
        "svc" => "services",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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
                s.store
                    .str(s.store.object(resolve_target(&s, t, "ns").unwrap()).uid),
                "cm-x",
                "{t}"
            );
        }
        for t in ["deploy/web", "deployments.apps/web", "deployment.apps/web"] {
            assert_eq!(
                s.store
                    .str(s.store.object(resolve_target(&s, t, "ns").unwrap()).uid),
                "d-web",
                "{t}"
            );
        }
        // Cluster-scoped: the namespace does not matter.
        assert!(resolve_target(&s, "no/n1", "elsewhere").is_ok());
        assert_eq!(
            resolve_target(&s, "cm/x", "other").unwrap_err().exit_code(),
            crate::error::exit::USAGE
        );
        assert!(resolve_target(&s, "deployments.batch/web", "ns").is_err());
        assert!(resolve_target(&s, "noslash", "ns").is_err());
    }
}
