//! Finding the object a user names on the command line: `KIND/NAME` the way kubectl reads it
//! (a kind, a plural, a short name or `kind.group`, case-insensitive), in a snapshot.

use crate::catalog::short_names;
use crate::error::{Error, Result};
use crate::model::ObjId;
use crate::snapshot::Snapshot;

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
        None => (
            short_names::plural_of(&kind).unwrap_or(&kind).to_owned(),
            None,
        ),
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
