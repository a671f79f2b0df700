//! Discovery the way the garbage collector does it (`docs/gc-model.md` §5.1).
//!
//! The GC calls client-go's `ServerPreferredResources`: for every group, the versions in the
//! server's order; for every resource that is not a subresource, the group's **preferred
//! version** if it serves the resource, else the **first** version that does. It then keeps the
//! resources whose verbs include `delete`, `list` and `watch`, minus its ignored set (§5.2).
//!
//! We keep *every* served group/version/resource in the resource table, because the analysis
//! emulates the GC's REST mapper, which knows all served versions; rows the GC does not watch
//! carry `ListOutcome::Ignored` with the reason. Rows to be listed are returned with
//! [`ListOutcome::NotListed`] as a placeholder.
//!
//! The per-group-version walk (`/api`, `/apis`, then `/api/v1`, `/apis/<group>/<version>`
//! concurrently) is used on every server version: aggregated discovery only exists since 1.26.
//! A group-version whose document cannot be read is reported as a discovery failure and the
//! walk continues.
//!
//! The pieces are separate ([`groups`], [`group_version_doc`], [`group_outcome`]) so that
//! `snapshot` can start listing a group's resources as soon as that group's documents are in,
//! while the other groups' documents are still on their way (`super::snapshot`); [`discover`]
//! is the whole walk at once, for `watch`.

use super::request::{self, Failure, Stats};
use crate::catalog::KubeVersion;
use crate::snapshot::{IgnoreReason, ListOutcome, Resource};
use futures::StreamExt;
use serde::Deserialize;
use std::collections::HashMap;
use std::time::Duration;

/// `/api` (the core group's versions).
#[derive(Deserialize, Default)]
#[serde(default)]
struct ApiVersionsIn {
    versions: Vec<String>,
}

/// `/apis`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ApiGroupListIn {
    groups: Vec<ApiGroupIn>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ApiGroupIn {
    name: String,
    versions: Vec<GroupVersionIn>,
    preferred_version: Option<GroupVersionIn>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(default, rename_all = "camelCase")]
struct GroupVersionIn {
    version: String,
}

/// `/api/v1`, `/apis/<group>/<version>`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ApiResourceListIn {
    resources: Option<Vec<ApiResourceIn>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(default)]
pub(crate) struct ApiResourceIn {
    name: String,
    namespaced: bool,
    kind: String,
    verbs: Option<Vec<String>>,
}

/// One API group in server order, its versions in preference order.
#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub name: String,
    pub versions: Vec<String>,
    pub preferred: String,
}

/// The outcome of discovery.
#[derive(Debug, Default)]
pub(crate) struct Discovered {
    /// Every served group/version/resource; rows to list carry `NotListed`.
    pub rows: Vec<Resource>,
    /// `(group/version, message)` for documents that could not be read.
    pub failures: Vec<(String, String)>,
}

/// True when the GC of a server of version `server` ignores `group`/`resource`
/// ([`crate::catalog::gc_ignored_by`]); an unknown version is taken as today's GC.
pub(crate) fn gc_ignored(group: &str, resource: &str, server: Option<KubeVersion>) -> bool {
    crate::catalog::gc_ignored_by(group, resource, server.unwrap_or(KubeVersion::NEWEST))
}

/// True when `verbs` contains delete, list and watch (§5.1 step 2).
pub(crate) fn deletable(verbs: &[String]) -> bool {
    ["delete", "list", "watch"]
        .iter()
        .all(|v| verbs.iter().any(|x| x == v))
}

fn group_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}

/// Fetches `/api` and `/apis`. Failures here are fatal (nothing can be listed without them).
pub(crate) async fn groups(
    client: &kube::Client,
    timeout: Option<Duration>,
    stats: &Stats,
) -> Result<Vec<Group>, Failure> {
    let get = |path: &'static str| {
        move || {
            http::Request::get(path)
                .body(Vec::new())
                .map_err(|e| e.to_string())
        }
    };
    let (get_core, get_named) = (get("/api"), get("/apis"));
    let (core, named) = futures::join!(
        request::get(client, timeout, stats, &get_core),
        request::get(client, timeout, stats, &get_named),
    );
    let core: ApiVersionsIn = decode(&core?.body, "/api")?;
    let named: ApiGroupListIn = decode(&named?.body, "/apis")?;
    let mut out = Vec::with_capacity(named.groups.len() + 1);
    if let Some(first) = core.versions.first() {
        out.push(Group {
            name: String::new(),
            preferred: first.clone(),
            versions: core.versions,
        });
    }
    for g in named.groups {
        let versions: Vec<String> = g.versions.into_iter().map(|v| v.version).collect();
        let preferred = g
            .preferred_version
            .map(|p| p.version)
            .filter(|p| !p.is_empty())
            .or_else(|| versions.first().cloned())
            .unwrap_or_default();
        out.push(Group {
            name: g.name,
            versions,
            preferred,
        });
    }
    Ok(out)
}

fn decode<T: serde::de::DeserializeOwned>(body: &[u8], what: &str) -> Result<T, Failure> {
    serde_json::from_slice(body).map_err(|e| Failure::Transport {
        kind: request::TransportKind::Other,
        message: format!("cannot decode {what}: {e}"),
    })
}

/// One group version's discovery document: its resources (subresources included), or why it
/// could not be read.
pub(crate) type GroupVersionDoc = Result<Vec<ApiResourceIn>, String>;

/// Fetches and decodes `/api/<version>` or `/apis/<group>/<version>`.
pub(crate) async fn group_version_doc(
    client: &kube::Client,
    timeout: Option<Duration>,
    stats: &Stats,
    group: &str,
    version: &str,
) -> GroupVersionDoc {
    let path = super::path::group_version(group, version);
    let build = || {
        http::Request::get(path.as_str())
            .body(Vec::new())
            .map_err(|e| e.to_string())
    };
    match request::get(client, timeout, stats, &build).await {
        Ok(answer) => serde_json::from_slice::<ApiResourceListIn>(&answer.body)
            .map(|d| d.resources.unwrap_or_default())
            .map_err(|e| format!("cannot decode {path}: {e}")),
        Err(f) => Err(f.describe()),
    }
}

/// What one group contributes to the resource table: its rows, and `(group/version, message)`
/// for each of its versions whose document could not be read. `docs` are the group's version
/// documents in `group.versions` order (`None`: never fetched).
///
/// Which version a resource is listed in depends on every version of its group (the preferred
/// one wins, else the first serving it), so a group is decided only once all its documents
/// are in — and a version that could not be read is left out of that choice, exactly as the
/// GC's discovery leaves it out; its failure makes the group's kinds unknown in the analysis.
pub(crate) fn group_outcome(
    group: &Group,
    docs: Vec<Option<GroupVersionDoc>>,
    server: Option<KubeVersion>,
) -> (Vec<Resource>, Vec<(String, String)>) {
    let mut failures = Vec::new();
    let mut per_version: Vec<(String, Vec<ApiResourceIn>)> = Vec::new();
    let mut docs = docs.into_iter();
    for v in &group.versions {
        match docs.next().flatten() {
            Some(Ok(resources)) => per_version.push((v.clone(), resources)),
            Some(Err(message)) => failures.push((group_version(&group.name, v), message)),
            None => failures.push((
                group_version(&group.name, v),
                "discovery did not run".to_owned(),
            )),
        }
    }
    let rows = group_rows(&group.name, &group.preferred, &per_version, server);
    (rows, failures)
}

/// Runs discovery. `Err` only when `/api` or `/apis` cannot be read.
pub(crate) async fn discover(
    client: &kube::Client,
    timeout: Option<Duration>,
    concurrency: usize,
    server: Option<KubeVersion>,
    stats: &Stats,
) -> Result<Discovered, Failure> {
    let groups = groups(client, timeout, stats).await?;
    let gvs: Vec<(usize, usize)> = groups
        .iter()
        .enumerate()
        .flat_map(|(gi, g)| (0..g.versions.len()).map(move |vi| (gi, vi)))
        .collect();
    let mut docs: Vec<Vec<Option<GroupVersionDoc>>> = groups
        .iter()
        .map(|g| vec![None; g.versions.len()])
        .collect();
    let groups_ref = &groups;
    let fetched = futures::stream::iter(gvs)
        .map(|(gi, vi)| async move {
            let g = &groups_ref[gi];
            let doc = group_version_doc(client, timeout, stats, &g.name, &g.versions[vi]).await;
            (gi, vi, doc)
        })
        .buffer_unordered(concurrency.max(1))
        .collect::<Vec<_>>()
        .await;
    for (gi, vi, doc) in fetched {
        if let Some(slot) = docs.get_mut(gi).and_then(|d| d.get_mut(vi)) {
            *slot = Some(doc);
        }
    }

    let mut out = Discovered::default();
    for (g, docs) in groups.iter().zip(docs) {
        let (rows, failures) = group_outcome(g, docs, server);
        out.rows.extend(rows);
        out.failures.extend(failures);
    }
    Ok(out)
}

/// The resource-table rows of one group, given its readable version documents in server order.
fn group_rows(
    group: &str,
    preferred: &str,
    per_version: &[(String, Vec<ApiResourceIn>)],
    server: Option<KubeVersion>,
) -> Vec<Resource> {
    // ServerPreferredResources: preferred version wins, else the first version serving it.
    let mut chosen: HashMap<&str, &str> = HashMap::new();
    for (version, resources) in per_version {
        for r in resources {
            if r.name.contains('/') {
                continue;
            }
            match chosen.get(r.name.as_str()) {
                Some(_) if version != preferred => {}
                _ => {
                    chosen.insert(&r.name, version);
                }
            }
        }
    }
    let mut rows = Vec::new();
    for (version, resources) in per_version {
        for r in resources {
            if r.name.contains('/') {
                continue;
            }
            let verbs = r.verbs.clone().unwrap_or_default();
            let list = if chosen.get(r.name.as_str()) != Some(&version.as_str()) {
                ListOutcome::Ignored {
                    reason: IgnoreReason::NonPreferredVersion,
                }
            } else if !deletable(&verbs) {
                ListOutcome::Ignored {
                    reason: IgnoreReason::NotDeletable,
                }
            } else if gc_ignored(group, &r.name, server) {
                ListOutcome::Ignored {
                    reason: IgnoreReason::GcIgnoredResource,
                }
            } else {
                ListOutcome::NotListed
            };
            rows.push(Resource {
                group: group.to_owned(),
                version: version.clone(),
                kind: r.kind.clone(),
                plural: r.name.clone(),
                namespaced: r.namespaced,
                verbs,
                preferred_version: preferred.to_owned(),
                list,
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(name: &str, verbs: &[&str]) -> ApiResourceIn {
        ApiResourceIn {
            name: name.into(),
            namespaced: true,
            kind: name.to_uppercase(),
            verbs: Some(verbs.iter().map(|v| v.to_string()).collect()),
        }
    }

    const ALL: &[&str] = &["create", "delete", "get", "list", "watch"];

    #[test]
    fn preferred_version_wins_else_first_serving_version() {
        // Server order: v2beta2, v1, v2beta1; preferred v1.
        let per_version = vec![
            (
                "v2beta2".to_string(),
                vec![res("hpas", ALL), res("only2b2", ALL)],
            ),
            (
                "v1".to_string(),
                vec![res("hpas", ALL), res("hpas/status", ALL)],
            ),
            (
                "v2beta1".to_string(),
                vec![res("hpas", ALL), res("only2b2", ALL), res("only2b1", ALL)],
            ),
        ];
        let rows = group_rows("autoscaling", "v1", &per_version, None);
        let monitored: Vec<String> = rows
            .iter()
            .filter(|r| r.list == ListOutcome::NotListed)
            .map(|r| format!("{}/{}", r.version, r.plural))
            .collect();
        assert_eq!(monitored, ["v2beta2/only2b2", "v1/hpas", "v2beta1/only2b1"]);
        assert_eq!(
            rows.len(),
            6,
            "all served versions are kept, subresources are not"
        );
        assert!(rows.iter().all(|r| r.preferred_version == "v1"));
    }

    #[test]
    fn verbs_and_ignored_resources() {
        let per_version = vec![(
            "v1".to_string(),
            vec![
                res("events", ALL),
                res("bindings", &["create"]),
                res("componentstatuses", &["get", "list"]),
                res("pods", ALL),
            ],
        )];
        let rows = group_rows("", "v1", &per_version, Some(KubeVersion::v1(20)));
        let outcome = |p: &str| rows.iter().find(|r| r.plural == p).unwrap().list.clone();
        let ignored = |reason| ListOutcome::Ignored { reason };
        assert_eq!(outcome("events"), ignored(IgnoreReason::GcIgnoredResource));
        assert_eq!(outcome("bindings"), ignored(IgnoreReason::NotDeletable));
        assert_eq!(
            outcome("componentstatuses"),
            ignored(IgnoreReason::NotDeletable)
        );
        assert_eq!(outcome("pods"), ListOutcome::NotListed);
    }

    #[test]
    fn events_k8s_io_is_ignored_only_since_1_25() {
        assert!(!gc_ignored(
            "events.k8s.io",
            "events",
            Some(KubeVersion::v1(20))
        ));
        assert!(!gc_ignored(
            "events.k8s.io",
            "events",
            Some(KubeVersion::v1(24))
        ));
        assert!(gc_ignored(
            "events.k8s.io",
            "events",
            Some(KubeVersion::v1(25))
        ));
        assert!(gc_ignored("events.k8s.io", "events", None));
        assert!(gc_ignored("", "events", Some(KubeVersion::v1(13))));
        assert!(!gc_ignored("apps", "events", None));
    }
}
