//! Evidence from the cluster: the GC's own `OwnerRefInvalidNamespace` warnings.
//!
//! Since v1.20 the GC records a Warning event with reason `OwnerRefInvalidNamespace` on a
//! namespaced dependent whose owner reference resolves, in the dependent's namespace, to nothing
//! while an object with that UID exists elsewhere (§1.5). The findings for cross-namespace
//! references can quote these events.

use super::Connection;
use super::kubeconfig::connect_failure;
use super::request::{self, Failure, Stats};
use crate::error::{Error, Result};
use kube::api::ListParams;
use serde::Deserialize;

/// The event reason the GC uses for an owner reference that points across namespaces.
pub const OWNER_REF_INVALID_NAMESPACE: &str = "OwnerRefInvalidNamespace";

/// One `OwnerRefInvalidNamespace` event: the object it is about and how often it was seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidNamespaceEvent {
    /// `involvedObject.uid` (the dependent).
    pub uid: String,
    /// `involvedObject.apiVersion`.
    pub api_version: String,
    /// `involvedObject.kind`.
    pub kind: String,
    /// `involvedObject.name`.
    pub name: String,
    /// `involvedObject.namespace`.
    pub namespace: String,
    /// The event message (names the owner reference).
    pub message: String,
    /// How many times the event was recorded (`count`, or `series.count`; at least 1).
    pub count: i64,
    /// `lastTimestamp` (or `series.lastObservedTime` / `eventTime` when unset).
    pub last_timestamp: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct EventListIn {
    metadata: ContinueIn,
    items: Option<Vec<EventIn>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ContinueIn {
    #[serde(rename = "continue")]
    continue_: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct EventIn {
    involved_object: InvolvedIn,
    message: Option<String>,
    count: Option<i64>,
    last_timestamp: Option<String>,
    event_time: Option<String>,
    series: Option<SeriesIn>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct InvolvedIn {
    uid: Option<String>,
    api_version: Option<String>,
    kind: Option<String>,
    name: Option<String>,
    namespace: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct SeriesIn {
    count: Option<i64>,
    last_observed_time: Option<String>,
}

impl From<EventIn> for InvalidNamespaceEvent {
    fn from(e: EventIn) -> Self {
        let series = e.series.unwrap_or_default();
        InvalidNamespaceEvent {
            uid: e.involved_object.uid.unwrap_or_default(),
            api_version: e.involved_object.api_version.unwrap_or_default(),
            kind: e.involved_object.kind.unwrap_or_default(),
            name: e.involved_object.name.unwrap_or_default(),
            namespace: e.involved_object.namespace.unwrap_or_default(),
            message: e.message.unwrap_or_default(),
            count: e.count.or(series.count).unwrap_or(1).max(1),
            last_timestamp: e
                .last_timestamp
                .or(series.last_observed_time)
                .or(e.event_time)
                .filter(|t| !t.is_empty()),
        }
    }
}

/// Lists the core Events with reason `OwnerRefInvalidNamespace` (in `namespace`, or in all
/// namespaces), following pagination.
pub async fn invalid_namespace_events(
    conn: &Connection,
    namespace: Option<&str>,
) -> Result<Vec<InvalidNamespaceEvent>> {
    let url = super::path::collection("", "v1", namespace, "events");
    let stats = Stats::default();
    let selector = format!("reason={OWNER_REF_INVALID_NAMESPACE}");
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut lp = ListParams::default().fields(&selector).limit(500);
        if let Some(t) = &token {
            lp = lp.continue_token(t);
        }
        let build = || {
            kube::api::Request::new(url.as_str())
                .list(&lp)
                .map_err(|e| e.to_string())
        };
        let answer = request::get(&conn.client, conn.request_timeout, &stats, &build)
            .await
            .map_err(|f| events_failure(conn, &f))?;
        let page: EventListIn = serde_json::from_slice(&answer.body).map_err(|e| Error::Api {
            message: format!("cannot decode the event list: {e}"),
            hint: None,
        })?;
        out.extend(
            page.items
                .unwrap_or_default()
                .into_iter()
                .map(InvalidNamespaceEvent::from),
        );
        match page.metadata.continue_.filter(|t| !t.is_empty()) {
            Some(t) => token = Some(t),
            None => break,
        }
    }
    Ok(out)
}

fn events_failure(conn: &Connection, f: &Failure) -> Error {
    match f {
        Failure::Status { code: 401, .. } | Failure::Transport { .. } => connect_failure(
            f,
            &conn.server_url,
            conn.context.as_deref().unwrap_or("in-cluster"),
        ),
        Failure::Status { code: 403, .. } => Error::Api {
            message: format!("listing events is forbidden: {}", f.describe()),
            hint: Some("OwnerRefInvalidNamespace evidence needs permission to list events".into()),
        },
        _ => Error::Api {
            message: format!("listing events failed: {}", f.describe()),
            hint: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_fields_fall_back_to_series_and_event_time() {
        let e: EventIn = serde_json::from_str(
            r#"{"involvedObject":{"uid":"u","kind":"Pod","name":"p","namespace":"n","apiVersion":"v1"},
                "reason":"OwnerRefInvalidNamespace","message":"m","count":null,"lastTimestamp":null,
                "eventTime":"2024-01-01T00:00:00.000000Z","series":{"count":4}}"#,
        )
        .unwrap();
        let e = InvalidNamespaceEvent::from(e);
        assert_eq!((e.uid.as_str(), e.count), ("u", 4));
        assert_eq!(
            e.last_timestamp.as_deref(),
            Some("2024-01-01T00:00:00.000000Z")
        );
    }
}
