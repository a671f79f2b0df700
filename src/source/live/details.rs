//! Namespaces and APIServices read in full, beside the metadata-only lists: the namespace
//! controller's model needs each namespace's `spec.finalizers` and conditions, and a discovery
//! failure is explained by the APIService behind it (snapshot::details).
//!
//! Both are small lists (one object per namespace, one per group-version) read in JSON in one
//! request each (paginated like the metadata lists would be pointless at these sizes, but a
//! `continue` token is followed all the same). A refused or failed read leaves the details
//! unknown — never empty — and does not fail the snapshot.

use super::request::{self, Stats};
use crate::snapshot::details::{api_service_from_json, namespace_status_from_json};
use crate::snapshot::{ApiService, NamespaceStatus};
use std::time::Duration;

/// What was read.
#[derive(Default)]
pub(crate) struct Read {
    /// Namespaces read in full, by name.
    pub namespaces: Vec<(String, NamespaceStatus)>,
    /// APIServices, when their list could be read.
    pub api_services: Option<Vec<ApiService>>,
}

/// Reads the namespaces (only `namespace` when given) and the APIServices.
pub(crate) async fn read(
    client: &kube::Client,
    timeout: Option<Duration>,
    stats: &Stats,
    namespace: Option<&str>,
) -> Read {
    let namespaces_path = match namespace {
        Some(ns) => format!("/api/v1/namespaces/{}", super::path::segment(ns)),
        None => "/api/v1/namespaces".to_owned(),
    };
    let (namespaces, api_services) = futures::join!(
        items(
            client,
            timeout,
            stats,
            &namespaces_path,
            namespace.is_some()
        ),
        items(
            client,
            timeout,
            stats,
            "/apis/apiregistration.k8s.io/v1/apiservices",
            false
        ),
    );
    Read {
        namespaces: namespaces
            .unwrap_or_default()
            .iter()
            .filter_map(|ns| {
                let name = ns.pointer("/metadata/name")?.as_str()?.to_owned();
                Some((
                    name,
                    namespace_status_from_json(ns.get("spec"), ns.get("status")),
                ))
            })
            .collect(),
        api_services: api_services.map(|items| {
            items
                .iter()
                .filter_map(api_service_from_json)
                .collect::<Vec<_>>()
        }),
    }
}

/// The items of a JSON list at `path` (or the one object at `path` when `single`), following
/// `continue` tokens; `None` when any request fails.
async fn items(
    client: &kube::Client,
    timeout: Option<Duration>,
    stats: &Stats,
    path: &str,
    single: bool,
) -> Option<Vec<serde_json::Value>> {
    let mut out = Vec::new();
    let mut token = String::new();
    loop {
        let uri = if token.is_empty() || single {
            path.to_owned()
        } else {
            format!("{path}?{}", super::path::query(&[("continue", &token)]))
        };
        let build = || {
            http::Request::get(uri.as_str())
                .header(http::header::ACCEPT, "application/json")
                .body(Vec::new())
                .map_err(|e| e.to_string())
        };
        let answer = request::get(client, timeout, stats, &build).await.ok()?;
        let mut value: serde_json::Value = serde_json::from_slice(&answer.body).ok()?;
        if single {
            out.push(value);
            return Some(out);
        }
        token = value
            .pointer("/metadata/continue")
            .and_then(|c| c.as_str())
            .unwrap_or_default()
            .to_owned();
        match value.get_mut("items").map(serde_json::Value::take) {
            Some(serde_json::Value::Array(items)) => out.extend(items),
            Some(serde_json::Value::Null) | None => {}
            Some(_) => return None,
        }
        if token.is_empty() {
            return Some(out);
        }
    }
}

/// One object read in full, as JSON, for `why` (its managedFields and status conditions);
/// `Ok(None)` when the server says it is gone. Only the caller's own fields are kept from it:
/// the value may hold a Secret's data and is never written anywhere.
pub(crate) async fn object(
    client: &kube::Client,
    timeout: Option<Duration>,
    stats: &Stats,
    path: &str,
) -> Result<Option<serde_json::Value>, String> {
    let build = || {
        http::Request::get(path)
            .header(http::header::ACCEPT, "application/json")
            .body(Vec::new())
            .map_err(|e| e.to_string())
    };
    match request::get(client, timeout, stats, &build).await {
        Ok(answer) => serde_json::from_slice(&answer.body)
            .map(Some)
            .map_err(|e| format!("cannot decode {path}: {e}")),
        Err(f) if f.code() == Some(404) => Ok(None),
        Err(f) => Err(f.describe()),
    }
}
