//! The list half of a resource's watch: every object of the resource, page by page, and the
//! list's resourceVersion to watch from; each GET retried as the snapshot's lists are.

use super::super::request::{self, Failure, Stats, TransportKind};
use super::{OwnedMeta, RETRY, WatchOptions, WatchTarget, to_owned_meta};
use crate::model::MetaIn;
use kube::api::ListParams;
use serde::Deserialize;
use std::borrow::Cow;
use std::time::Duration;

/// A list page: continue token and resourceVersion, items' metadata.
#[derive(Deserialize)]
struct PageIn<'a> {
    #[serde(borrow, default)]
    metadata: ListMetaIn<'a>,
    #[serde(borrow, default)]
    items: Option<Vec<ItemIn<'a>>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ListMetaIn<'a> {
    #[serde(borrow, default, rename = "continue")]
    continue_: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    resource_version: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ItemIn<'a> {
    #[serde(borrow, default)]
    metadata: MetaIn<'a>,
}

/// Lists every object of the resource; returns them and the list's resourceVersion. Pages are
/// asked for as the snapshot's are: metadata only, in protobuf where the server speaks it
/// (JSON otherwise, and a full JSON list after a 406), growing while they come back quickly.
pub(super) async fn list_all(
    client: &kube::Client,
    target: &WatchTarget,
    opts: &WatchOptions,
    stats: &Stats,
) -> Result<(Vec<OwnedMeta>, String), Failure> {
    let url = target.url();
    let mut token: Option<String> = None;
    let mut metadata_only = true;
    let mut restarts = 0;
    let mut objects = Vec::new();
    let mut sizer = super::super::list::PageSizer::new(opts.page_size, opts.max_page_size);
    loop {
        let mut lp = ListParams::default().limit(sizer.limit);
        if let Some(t) = &token {
            lp = lp.continue_token(t);
        }
        let accept = if metadata_only {
            super::super::list::ACCEPT_PROTOBUF
        } else {
            "application/json"
        };
        let mut req = kube::api::Request::new(url.as_str())
            .list(&lp)
            .map_err(|e| Failure::Transport {
                kind: TransportKind::Other,
                message: e.to_string(),
            })?;
        req.headers_mut()
            .insert(http::header::ACCEPT, http::HeaderValue::from_static(accept));
        let started = std::time::Instant::now();
        let body = match get_with_retries(client, opts.request_timeout, stats, req).await {
            Ok(body) => body,
            Err(Failure::Status { code: 410, .. }) if token.is_some() && restarts < 3 => {
                // The continue token expired: a fresh, consistent list from the start.
                restarts += 1;
                token = None;
                objects.clear();
                continue;
            }
            Err(Failure::Status { code: 406, .. }) if metadata_only => {
                metadata_only = false;
                continue;
            }
            Err(f) => return Err(f),
        };
        let undecodable = |e: String| Failure::Transport {
            kind: TransportKind::Other,
            message: format!("cannot decode a list page of {}: {e}", target.label),
        };
        let (next, rv) = if super::super::protobuf::has_magic(&body) {
            let page = super::super::protobuf::decode_page(body.into()).map_err(undecodable)?;
            objects.extend(
                page.metas()
                    .filter(|m| !m.uid.is_empty())
                    .map(|m| to_owned_meta(&m)),
            );
            (page.continue_token(), page.resource_version())
        } else {
            let page: PageIn =
                serde_json::from_slice(&body).map_err(|e| undecodable(e.to_string()))?;
            objects.extend(
                page.items
                    .unwrap_or_default()
                    .iter()
                    .filter(|i| !i.metadata.uid.is_empty())
                    .map(|i| to_owned_meta(&i.metadata)),
            );
            (
                page.metadata
                    .continue_
                    .filter(|t| !t.is_empty())
                    .map(Cow::into_owned),
                page.metadata
                    .resource_version
                    .map(Cow::into_owned)
                    .unwrap_or_default(),
            )
        };
        sizer.after_page(started.elapsed(), next.is_some());
        match next {
            Some(t) => token = Some(t),
            None => return Ok((objects, rv)),
        }
    }
}

/// One GET, retried like the snapshot's lists are: `429` (honouring `Retry-After`) up to ten
/// times, 5xx answers (but 501), timeouts and dropped connections three times, with backoff;
/// anything else fails at once. Returns the body of the 2xx answer.
async fn get_with_retries(
    client: &kube::Client,
    timeout: Option<Duration>,
    stats: &Stats,
    req: http::Request<Vec<u8>>,
) -> Result<Vec<u8>, Failure> {
    let (parts, body) = req.into_parts();
    let (mut transient, mut throttled) = (0u32, 0u32);
    loop {
        let mut attempt = http::Request::builder()
            .method(parts.method.clone())
            .uri(parts.uri.clone());
        for (k, v) in &parts.headers {
            attempt = attempt.header(k, v);
        }
        let attempt = attempt
            .body(kube::client::Body::from(body.clone()))
            .map_err(|e| Failure::Transport {
                kind: TransportKind::Other,
                message: e.to_string(),
            })?;
        stats
            .requests
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let send = async {
            let response = client
                .send(attempt)
                .await
                .map_err(|e| (request::transport_failure(&e), None))?;
            let status = response.status();
            let retry_after = response
                .headers()
                .get(http::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(request::parse_retry_after);
            let bytes = response
                .into_body()
                .collect_bytes()
                .await
                .map_err(|e| (request::transport_failure(&e), None))?;
            if status.is_success() {
                Ok(bytes.to_vec())
            } else {
                Err((
                    request::status_failure(status.as_u16(), &bytes),
                    retry_after,
                ))
            }
        };
        let outcome = match timeout {
            Some(t) => tokio::time::timeout(t, send).await.unwrap_or_else(|_| {
                Err((
                    Failure::Transport {
                        kind: TransportKind::Timeout,
                        message: format!("no answer within {}", crate::util::human_duration(t)),
                    },
                    None,
                ))
            }),
            None => send.await,
        };
        let (failure, retry_after) = match outcome {
            Ok(body) => return Ok(body),
            Err(e) => e,
        };
        let wait = match &failure {
            Failure::Status { code: 429, .. } if throttled < 10 => {
                throttled += 1;
                retry_after.unwrap_or_else(|| RETRY.delay(throttled - 1))
            }
            Failure::Status { code, .. } if *code >= 500 && *code != 501 && transient < 3 => {
                transient += 1;
                retry_after.unwrap_or_else(|| RETRY.delay(transient - 1))
            }
            Failure::Transport {
                kind: TransportKind::Timeout | TransportKind::Other | TransportKind::Connect,
                ..
            } if transient < 3 => {
                transient += 1;
                RETRY.delay(transient - 1)
            }
            _ => return Err(failure),
        };
        stats
            .retries
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tokio::time::sleep(wait.min(Duration::from_secs(30))).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_pages_carry_the_resource_version() {
        let body = br#"{"kind":"PartialObjectMetadataList","metadata":{"resourceVersion":"77"},"items":[{"metadata":{"name":"a","uid":"u"}}]}"#;
        let p: PageIn = serde_json::from_slice(body).unwrap();
        assert_eq!(p.metadata.resource_version.as_deref(), Some("77"));
        assert!(p.metadata.continue_.is_none());
    }

    /// The initial list asks for protobuf, as the snapshot does, and reads the same objects
    /// and resourceVersion from it as from the JSON answer to the same request (fixtures
    /// captured from the v1.20.2 API server).
    #[tokio::test]
    async fn lists_ask_for_protobuf_and_read_what_json_says() {
        use crate::source::live::testserver::{Reply, Script, Server};
        const PB: &[u8] = include_bytes!("../testdata/configmaps-fx.pb");
        const JSON: &[u8] = include_bytes!("../testdata/configmaps-fx.json");
        let mut got = Vec::new();
        for (content_type, body) in [
            ("application/vnd.kubernetes.protobuf", PB),
            ("application/json", JSON),
        ] {
            let server = Server::start(Script::Answer(Box::new(move |_, _| {
                Reply::ok(content_type, body)
            })))
            .await;
            let target = WatchTarget::new(0, "", "v1", "configmaps");
            let (objects, rv) = list_all(
                &server.client(),
                &target,
                &WatchOptions::default(),
                &Stats::default(),
            )
            .await
            .unwrap();
            let seen = server.requests();
            assert_eq!(seen.len(), 1, "{seen:?}");
            assert_eq!(seen[0].accept, crate::source::live::list::ACCEPT_PROTOBUF);
            assert!(!objects.is_empty() && !rv.is_empty());
            // Every field as Debug shows it (MetaIn has no PartialEq).
            got.push((format!("{objects:?}"), rv));
        }
        assert_eq!(got[0], got[1]);
    }
}
