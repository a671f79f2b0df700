//! GET requests against the API server with kubectl-gc's own bounded retry policy.
//!
//! kube's default retry layer (15 retries, up to 1000 s apart on 429/503/504) is switched off in
//! [`super::connect`]: one dead aggregated API could stall a snapshot for minutes. Instead every
//! request goes through [`get`], which
//!
//! - waits out `429 Too Many Requests` honouring `Retry-After` (capped), a bounded number of times;
//! - retries 5xx answers (except 501) and broken connections a few times with exponential
//!   backoff and jitter;
//! - retries a request that got no answer within the request timeout once — and never the
//!   first contact with a server ([`probe`]): a server that accepts connections and never
//!   answers ends the run after one timeout, not after several;
//! - never retries anything else (4xx, TLS and credential problems), so those fail at once.
//!
//! Responses are returned as raw bytes with their Content-Type ([`Answer`]): callers decode them
//! into borrowing structs ([`crate::model::MetaIn`]), from JSON or protobuf, which
//! `kube::Client::request` (it needs `DeserializeOwned` JSON) cannot do.

use crate::error::cause_chain;
pub(crate) use crate::error::one_line;
use crate::util::{Backoff, human_duration};
use kube::client::Body;
use prost::bytes::Bytes;
use serde::Deserialize;
use std::error::Error as StdError;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Retries for 5xx answers and dropped connections.
const MAX_TRANSIENT_RETRIES: u32 = 3;
/// Retries for requests that got no answer within the request timeout (each one waits a whole
/// timeout: one retry, for a connection that died silently).
const MAX_TIMEOUT_RETRIES: u32 = 1;
/// Retries for 429 answers (the server tells us how long to wait).
const MAX_THROTTLE_RETRIES: u32 = 10;
/// First backoff step; doubled on every retry.
const BASE_BACKOFF: Duration = Duration::from_millis(250);
/// The longest `Retry-After` we honour.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

/// Counters shared by all requests of one run (reported through progress).
#[derive(Debug, Default)]
pub(crate) struct Stats {
    /// Requests sent (including retries).
    pub requests: AtomicU64,
    /// Retries (any cause).
    pub retries: AtomicU64,
    /// Of which after a 429.
    pub throttled: AtomicU64,
}

impl Stats {
    fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// What kind of transport problem a request hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TransportKind {
    /// TCP connect refused / host unreachable / DNS.
    Connect,
    /// TLS handshake or certificate verification.
    Tls,
    /// No answer within the request timeout.
    Timeout,
    /// Credentials could not be obtained (exec plugin, token file, …).
    Auth,
    /// Anything else (connection reset mid-body, …).
    Other,
}

/// Why a request failed (after retries).
#[derive(Clone, Debug)]
pub(crate) enum Failure {
    /// The server answered with a non-2xx status.
    Status {
        /// HTTP status code.
        code: u16,
        /// `Status.reason` (`Expired`, `Forbidden`, …); empty when the body was not a Status.
        reason: String,
        /// `Status.message`, or the body text.
        message: String,
    },
    /// No usable answer.
    Transport {
        /// Classification, for hints.
        kind: TransportKind,
        /// The whole cause chain on one line.
        message: String,
    },
}

impl Failure {
    /// The HTTP status code, when the server answered.
    pub fn code(&self) -> Option<u16> {
        match self {
            Failure::Status { code, .. } => Some(*code),
            Failure::Transport { .. } => None,
        }
    }

    /// One line describing the failure.
    pub fn describe(&self) -> String {
        match self {
            Failure::Status {
                code,
                reason,
                message,
                ..
            } => {
                let message = one_line(message);
                match (reason.is_empty(), message.is_empty()) {
                    (_, true) if !reason.is_empty() => format!("{code} {reason}"),
                    (_, true) => format!("HTTP {code}"),
                    (true, false) => format!("HTTP {code}: {message}"),
                    (false, false) => format!("{code} {reason}: {message}"),
                }
            }
            Failure::Transport { message, .. } => message.clone(),
        }
    }
}

/// Retries used so far by one request, per cause.
#[derive(Debug, Default)]
struct Budget {
    transient: u32,
    throttled: u32,
    timeouts: u32,
    /// Timeouts allowed ([`MAX_TIMEOUT_RETRIES`], 0 for a [`probe`]).
    max_timeouts: u32,
}

/// Whether a failed attempt may be retried, and after how long.
fn retry_delay(
    failure: &Failure,
    retry_after: Option<Duration>,
    budget: &mut Budget,
) -> Option<Duration> {
    let Budget {
        transient,
        throttled,
        timeouts,
        max_timeouts,
    } = budget;
    match failure {
        Failure::Status { code: 429, .. } => {
            if *throttled >= MAX_THROTTLE_RETRIES {
                return None;
            }
            *throttled += 1;
            Some(
                retry_after
                    .unwrap_or_else(|| backoff(*throttled))
                    .min(MAX_RETRY_AFTER),
            )
        }
        Failure::Status { code, .. } if *code >= 500 && *code != 501 => {
            if *transient >= MAX_TRANSIENT_RETRIES {
                return None;
            }
            *transient += 1;
            // 503 from an aggregated API server may carry Retry-After too.
            Some(
                retry_after
                    .unwrap_or_else(|| backoff(*transient))
                    .min(MAX_RETRY_AFTER),
            )
        }
        Failure::Transport {
            kind: TransportKind::Timeout,
            ..
        } => {
            if *timeouts >= *max_timeouts {
                return None;
            }
            *timeouts += 1;
            Some(backoff(*timeouts))
        }
        Failure::Transport {
            kind: TransportKind::Other | TransportKind::Connect,
            ..
        } => {
            if *transient >= MAX_TRANSIENT_RETRIES {
                return None;
            }
            *transient += 1;
            Some(backoff(*transient))
        }
        _ => None,
    }
}

/// Exponential backoff with up to 25 % jitter, for retry number `n` (1-based).
fn backoff(n: u32) -> Duration {
    let b = Backoff {
        base: BASE_BACKOFF,
        factor: 2,
        max_exponent: 6,
        jitter: 0.25,
    };
    b.delay(n.saturating_sub(1))
}

/// Parses `Retry-After` as delta-seconds (the API server never sends an HTTP date).
pub(crate) fn parse_retry_after(value: &str) -> Option<Duration> {
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// A 2xx answer.
#[derive(Debug)]
pub(crate) struct Answer {
    /// The (decompressed) body.
    pub body: Bytes,
    /// The `Content-Type` header, when present and readable.
    pub content_type: Option<String>,
}

/// A request builder, called again for every attempt.
pub(crate) type Build<'a> = &'a (dyn Fn() -> Result<http::Request<Vec<u8>>, String> + Sync);

/// Sends the request `build` makes and returns the first 2xx answer, retrying as described in
/// the module documentation.
pub(crate) async fn get(
    client: &kube::Client,
    timeout: Option<Duration>,
    stats: &Stats,
    build: Build<'_>,
) -> Result<Answer, Failure> {
    send(client, timeout, stats, build, MAX_TIMEOUT_RETRIES).await
}

/// [`get`] for the first request to a server: a timeout is not retried, so a server that
/// accepts the connection and never answers costs one request timeout.
pub(crate) async fn probe(
    client: &kube::Client,
    timeout: Option<Duration>,
    stats: &Stats,
    build: Build<'_>,
) -> Result<Answer, Failure> {
    send(client, timeout, stats, build, 0).await
}

async fn send(
    client: &kube::Client,
    timeout: Option<Duration>,
    stats: &Stats,
    build: Build<'_>,
    max_timeouts: u32,
) -> Result<Answer, Failure> {
    let mut budget = Budget {
        max_timeouts,
        ..Budget::default()
    };
    loop {
        let request = build().map_err(|message| Failure::Transport {
            kind: TransportKind::Other,
            message,
        })?;
        Stats::bump(&stats.requests);
        let attempt = send_once(client, request);
        let outcome = match timeout {
            Some(t) => match tokio::time::timeout(t, attempt).await {
                Ok(r) => r,
                Err(_) => Err((
                    Failure::Transport {
                        kind: TransportKind::Timeout,
                        message: format!("timed out after {}", human_duration(t)),
                    },
                    None,
                )),
            },
            None => attempt.await,
        };
        let (failure, retry_after) = match outcome {
            Ok(body) => return Ok(body),
            Err(e) => e,
        };
        match retry_delay(&failure, retry_after, &mut budget) {
            Some(delay) => {
                Stats::bump(&stats.retries);
                if failure.code() == Some(429) {
                    Stats::bump(&stats.throttled);
                }
                tokio::time::sleep(delay).await;
            }
            None => return Err(failure),
        }
    }
}

/// One attempt: the body on 2xx, else the failure and any `Retry-After`.
async fn send_once(
    client: &kube::Client,
    request: http::Request<Vec<u8>>,
) -> Result<Answer, (Failure, Option<Duration>)> {
    let response = client
        .send(request.map(Body::from))
        .await
        .map_err(|e| (transport_failure(&e), None))?;
    let status = response.status();
    let retry_after = response
        .headers()
        .get(http::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_retry_after);
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = response
        .into_body()
        .collect_bytes()
        .await
        .map_err(|e| (transport_failure(&e), None))?;
    if status.is_success() {
        return Ok(Answer { body, content_type });
    }
    Err((status_failure(status.as_u16(), &body), retry_after))
}

/// The subset of `metav1.Status` we read.
#[derive(Deserialize, Default)]
#[serde(default)]
struct StatusIn {
    kind: String,
    reason: String,
    message: String,
}

/// Builds a [`Failure::Status`] from a non-2xx answer's body.
pub(crate) fn status_failure(code: u16, body: &[u8]) -> Failure {
    match serde_json::from_slice::<StatusIn>(body) {
        Ok(s) if s.kind == "Status" || !s.message.is_empty() => Failure::Status {
            code,
            reason: s.reason,
            message: s.message,
        },
        _ => {
            let text = String::from_utf8_lossy(body);
            let mut text = one_line(&text);
            if text.len() > 200 {
                let mut cut = 200;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
                text.push('…');
            }
            Failure::Status {
                code,
                reason: String::new(),
                message: text,
            }
        }
    }
}

/// Classifies a transport-level `kube::Error` by walking its cause chain.
pub(crate) fn transport_failure(error: &kube::Error) -> Failure {
    let message = cause_chain(error);
    let lower = message.to_ascii_lowercase();
    let io_kind = io_error_kind(error);
    let kind = if matches!(error, kube::Error::Auth(_)) {
        TransportKind::Auth
    } else if lower.contains("certificate")
        || lower.contains("tls")
        || lower.contains("handshake")
        || lower.contains("invalid peer")
    {
        TransportKind::Tls
    } else if matches!(io_kind, Some(std::io::ErrorKind::TimedOut)) || lower.contains("timed out") {
        TransportKind::Timeout
    } else if matches!(
        io_kind,
        Some(
            std::io::ErrorKind::ConnectionRefused
                | std::io::ErrorKind::AddrNotAvailable
                | std::io::ErrorKind::HostUnreachable
                | std::io::ErrorKind::NetworkUnreachable
        )
    ) || lower.contains("dns error")
        || lower.contains("failed to lookup")
        || lower.contains("connection refused")
    {
        TransportKind::Connect
    } else {
        TransportKind::Other
    };
    Failure::Transport { kind, message }
}

/// The first `io::Error` kind in an error's cause chain.
fn io_error_kind(error: &(dyn StdError + 'static)) -> Option<std::io::ErrorKind> {
    let mut cur: Option<&(dyn StdError + 'static)> = Some(error);
    while let Some(e) = cur {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        cur = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_delta_seconds() {
        assert_eq!(parse_retry_after(" 3 "), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }

    #[test]
    fn retries_are_bounded_and_honour_retry_after() {
        let too_many = Failure::Status {
            code: 429,
            reason: "TooManyRequests".into(),
            message: String::new(),
        };
        let mut budget = Budget::default();
        let d = retry_delay(&too_many, Some(Duration::from_secs(2)), &mut budget);
        assert_eq!(d, Some(Duration::from_secs(2)));
        let d = retry_delay(&too_many, Some(Duration::from_secs(600)), &mut budget);
        assert_eq!(d, Some(MAX_RETRY_AFTER));
        while retry_delay(&too_many, None, &mut budget).is_some() {}
        assert_eq!(budget.throttled, MAX_THROTTLE_RETRIES);

        let unavailable = status_failure(503, b"service unavailable");
        let mut n = 0;
        while retry_delay(&unavailable, None, &mut budget).is_some() {
            n += 1;
        }
        assert_eq!(n, MAX_TRANSIENT_RETRIES);

        let forbidden = status_failure(
            403,
            br#"{"kind":"Status","reason":"Forbidden","message":"no"}"#,
        );
        let mut fresh = Budget::default();
        assert_eq!(retry_delay(&forbidden, None, &mut fresh), None);
        let tls = Failure::Transport {
            kind: TransportKind::Tls,
            message: "bad cert".into(),
        };
        assert_eq!(retry_delay(&tls, None, &mut fresh), None);
    }

    #[test]
    fn timeouts_are_retried_once_and_never_on_a_probe() {
        let silent = Failure::Transport {
            kind: TransportKind::Timeout,
            message: "timed out after 30.0s".into(),
        };
        let mut budget = Budget {
            max_timeouts: MAX_TIMEOUT_RETRIES,
            ..Budget::default()
        };
        let mut n = 0;
        while retry_delay(&silent, None, &mut budget).is_some() {
            n += 1;
        }
        assert_eq!(n, 1);
        let mut probe = Budget::default();
        assert_eq!(retry_delay(&silent, None, &mut probe), None);
        // A dropped connection is still retried on a probe.
        let reset = Failure::Transport {
            kind: TransportKind::Other,
            message: "connection reset".into(),
        };
        assert!(retry_delay(&reset, None, &mut probe).is_some());
    }

    #[test]
    fn status_bodies_are_parsed_and_plain_text_kept() {
        let f = status_failure(
            410,
            br#"{"kind":"Status","apiVersion":"v1","metadata":{"continue":"abc"},"status":"Failure",
                "message":"The provided continue parameter is too old","reason":"Expired","code":410}"#,
        );
        match &f {
            Failure::Status { code, reason, .. } => {
                assert_eq!(*code, 410);
                assert_eq!(reason, "Expired");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(
            status_failure(404, b"404 page not found\n").describe(),
            "HTTP 404: 404 page not found"
        );
    }

    #[test]
    fn backoff_grows() {
        assert!(backoff(1) >= BASE_BACKOFF && backoff(1) < BASE_BACKOFF * 2);
        assert!(backoff(3) >= BASE_BACKOFF * 4);
    }
}
