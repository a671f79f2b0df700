//! [`ClusterOps`] over a kube-rs client: raw HTTP requests with the exact bodies given, so the
//! record and the tests see what is sent. GETs ask for `PartialObjectMetadata` (falling back to
//! the full object for servers that cannot convert) and are retried a few times on 5xx, 429 and
//! timeouts; writes are never retried here (the executor decides what a failed write means).

use super::ops::{ApiError, ClusterOps, LiveMeta, LiveObject, ObjectUrl, PatchType};
use crate::error::cause_chain;
use crate::gc::ObjectRef;
use crate::source::live::Connection;
use crate::util::{Backoff, human_duration};
use kube::client::Body;
use std::time::Duration;

/// The wait between GET retries: 250 ms, doubling.
const GET_BACKOFF: Backoff = Backoff {
    base: Duration::from_millis(250),
    factor: 2,
    max_exponent: 6,
    jitter: 0.0,
};

/// The metadata-only Accept header, with the plain JSON fallback.
const ACCEPT_METADATA: &str =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
/// Retries of a GET on 5xx / 429 / no answer.
const GET_RETRIES: u32 = 3;

/// The longest URI the `http` crate builds (its parser keeps offsets in a `u16`). The GC's Go
/// client has no such limit: an owner whose lookup is longer is looked up another way
/// ([`KubeOps::owner_in_collection`]).
const MAX_URI: usize = 65_534;

/// What kube-apiserver reads of a request's line and headers (Go's `http.Server`
/// `MaxHeaderBytes`, 1 MiB, which the API server keeps): a lookup longer than this is refused
/// (431) for the GC too, which then never resolves the owner. The GC's own headers (its token,
/// user agent, Accept) take a few hundred bytes more; a lookup within that margin of the limit
/// is not re-checked either way.
const SERVER_MAX_REQUEST_LINE: usize = (1 << 20) - 8192;

/// Says, in a lookup's error, that this client could not send what the GC sends (so the GC's
/// answer is not known to be the same): `verify` words the skip accordingly.
pub(super) const CANNOT_SEND: &str = "more than this client can send";

/// The metadata-only Accept header of a list, with the plain JSON fallback.
const ACCEPT_METADATA_LIST: &str =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

/// Items per page when a collection stands in for one owner's GET.
const PAGE: u32 = 500;

/// The kube-rs implementation.
#[derive(Clone)]
pub struct KubeOps {
    client: kube::Client,
    timeout: Option<Duration>,
}

impl std::fmt::Debug for KubeOps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KubeOps")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// Only `kind` and `metadata`'s decided-on fields are parsed; the rest of the answer (a full
/// object when the server cannot convert to `PartialObjectMetadata`) is skipped unread.
#[derive(serde::Deserialize)]
struct Envelope {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    metadata: LiveMeta,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct StatusIn {
    reason: String,
    message: String,
}

impl KubeOps {
    /// Uses the connection's client and request timeout.
    pub fn new(conn: &Connection) -> KubeOps {
        KubeOps {
            client: conn.client.clone(),
            timeout: conn.request_timeout,
        }
    }

    async fn send(&self, req: http::Request<Vec<u8>>) -> Result<(u16, Vec<u8>), ApiError> {
        let fut = async {
            let resp = self
                .client
                .send(req.map(Body::from))
                .await
                .map_err(|e| ApiError::status(0, "", cause_chain(&e)))?;
            let status = resp.status().as_u16();
            let body = resp
                .into_body()
                .collect_bytes()
                .await
                .map_err(|e| ApiError::status(0, "", cause_chain(&e)))?;
            Ok((status, body.to_vec()))
        };
        let (status, body) = match self.timeout {
            Some(t) => tokio::time::timeout(t, fut).await.map_err(|_| {
                ApiError::status(0, "", format!("no answer within {}", human_duration(t)))
            })??,
            None => fut.await?,
        };
        if (200..300).contains(&status) {
            return Ok((status, body));
        }
        let st: StatusIn = serde_json::from_slice(&body).unwrap_or_default();
        let message = if st.message.is_empty() {
            String::from_utf8_lossy(&body)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .take(200)
                .collect()
        } else {
            st.message
        };
        Err(ApiError::status(status, &st.reason, message))
    }
}

fn request(
    method: http::Method,
    path: &str,
    content_type: Option<&str>,
    accept: &str,
    body: Vec<u8>,
) -> Result<http::Request<Vec<u8>>, ApiError> {
    let method_name = method.to_string();
    let mut b = http::Request::builder()
        .method(method)
        .uri(path)
        .header(http::header::ACCEPT, accept);
    if let Some(ct) = content_type {
        b = b.header(http::header::CONTENT_TYPE, ct);
    }
    b.body(body)
        .map_err(|e| ApiError::not_sent(format!("{method_name} {path}: {e}")))
}

impl KubeOps {
    /// GET `path` (retried on 5xx, 429 and no answer); `None` for a 404 `NotFound`. Like
    /// client-go's metadata client, an answer that is not one object's metadata (a list, a
    /// discovery document) is an error.
    async fn get_path(&self, path: &str) -> Result<Option<LiveObject>, ApiError> {
        let mut attempt = 0;
        loop {
            let req = request(http::Method::GET, path, None, ACCEPT_METADATA, Vec::new())?;
            match self.send(req).await {
                Ok((_, body)) => {
                    let env: Envelope = serde_json::from_slice(&body).map_err(|e| {
                        ApiError::status(0, "", format!("GET {path}: bad answer: {e}"))
                    })?;
                    let m = &env.metadata;
                    if env.kind.ends_with("List") || (m.uid.is_empty() && m.name.is_empty()) {
                        return Err(ApiError::not_an_object(format!(
                            "GET {path}: the answer is not one object's metadata (kind {:?})",
                            env.kind
                        )));
                    }
                    return Ok(Some(LiveObject { meta: env.metadata }));
                }
                Err(e) if e.is_object_not_found() => return Ok(None),
                Err(e)
                    if attempt < GET_RETRIES
                        && (e.code == 0 || e.code == 429 || (e.code >= 500 && e.code != 501)) =>
                {
                    attempt += 1;
                    tokio::time::sleep(GET_BACKOFF.delay(attempt - 1)).await;
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// One page of a metadata list: the items' metadata and the continue token.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct ListPage {
    metadata: ListMeta,
    items: Vec<Envelope>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ListMeta {
    #[serde(rename = "continue")]
    continue_token: String,
}

impl KubeOps {
    /// An owner whose lookup URI this client cannot send (F10: a 300,000-character name; the
    /// real GC sends it, gets NotFound and deletes the dependent): the collection the GC's GET
    /// would read from, listed page by page, answers the same question — an object of that
    /// name exists, or not. Not for a name the API server resolves as a path (`/`, `.`, `..`)
    /// or refuses (`%`), nor for a lookup the API server itself refuses as too long: those are
    /// reported as lookups that cannot be re-checked, and the object is left alone.
    async fn owner_in_collection(
        &self,
        key: &ObjectRef,
        len: usize,
    ) -> Result<Option<LiveObject>, ApiError> {
        if len > SERVER_MAX_REQUEST_LINE {
            return Err(ApiError::status(
                431,
                "RequestHeaderFieldsTooLarge",
                format!(
                    "the GC's lookup of this owner is {len} bytes long: the API server refuses \
                     a request line over 1 MiB"
                ),
            ));
        }
        if let Some(problem) = super::ops::path_segment_problem(&key.name) {
            return Err(ApiError::not_sent(format!(
                "the lookup of this owner is {len} bytes long, {CANNOT_SEND}, and its name \
                 {problem}: it cannot be re-checked by listing its collection"
            )));
        }
        let collection = crate::source::live::path::collection(
            &key.group,
            &key.version,
            (!key.namespace.is_empty()).then_some(key.namespace.as_str()),
            &key.resource,
        );
        let mut token = String::new();
        loop {
            let mut path = format!("{collection}?limit={PAGE}");
            if !token.is_empty() {
                path.push_str("&continue=");
                path.push_str(&crate::source::live::path::segment(&token));
            }
            let req = request(
                http::Method::GET,
                &path,
                None,
                ACCEPT_METADATA_LIST,
                Vec::new(),
            )?;
            let (_, body) = self.send(req).await?;
            let page: ListPage = serde_json::from_slice(&body).map_err(|e| {
                ApiError::status(0, "", format!("GET {collection}: bad answer: {e}"))
            })?;
            if let Some(item) = page.items.into_iter().find(|i| i.metadata.name == key.name) {
                return Ok(Some(LiveObject {
                    meta: item.metadata,
                }));
            }
            if page.metadata.continue_token.is_empty() {
                return Ok(None);
            }
            token = page.metadata.continue_token;
        }
    }
}

impl ClusterOps for KubeOps {
    async fn get(&self, key: &ObjectRef) -> Result<Option<LiveObject>, ApiError> {
        self.get_path(&key.path()).await
    }

    async fn get_owner(&self, key: &ObjectRef) -> Result<Option<LiveObject>, ApiError> {
        let path = key.gc_get_path();
        if path.len() <= MAX_URI {
            return self.get_path(&path).await;
        }
        self.owner_in_collection(key, path.len()).await
    }

    async fn delete(&self, key: &ObjectRef, body: &[u8]) -> Result<u16, ApiError> {
        let req = request(
            http::Method::DELETE,
            &key.path(),
            Some("application/json"),
            "application/json",
            body.to_vec(),
        )?;
        self.send(req).await.map(|(s, _)| s)
    }

    async fn patch(&self, key: &ObjectRef, patch: PatchType, body: &[u8]) -> Result<u16, ApiError> {
        let req = request(
            http::Method::PATCH,
            &key.path(),
            Some(patch.content_type()),
            "application/json",
            body.to_vec(),
        )?;
        self.send(req).await.map(|(s, _)| s)
    }
}
