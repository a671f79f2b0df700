//! A scripted HTTP/1.1 server on loopback for the unit tests of the live source: it records
//! every request (method, path and query, `Accept`) and answers each with what the script says,
//! or — [`Script::Silent`] — accepts connections and never answers.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    /// `GET /api/v1/pods?limit=1`: the request line without the protocol.
    pub line: String,
    /// The `Accept` header.
    pub accept: String,
    /// When the request's head had been read.
    pub at: Instant,
}

/// One answer.
#[derive(Clone, Debug)]
pub(crate) struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// How long the server waits before answering (a slow discovery document); the
    /// connection carries nothing else meanwhile, as in HTTP/1.1.
    pub delay: Duration,
}

impl Reply {
    /// A 200 with this content type and body.
    pub fn ok(content_type: &'static str, body: &[u8]) -> Reply {
        Reply {
            status: 200,
            content_type,
            body: body.to_vec(),
            delay: Duration::ZERO,
        }
    }

    /// This reply, sent after `delay`.
    pub fn after(self, delay: Duration) -> Reply {
        Reply { delay, ..self }
    }

    /// An error `Status` in JSON.
    pub fn status(status: u16, reason: &str) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: format!(
                r#"{{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"{reason}","message":"{reason} (test)","code":{status}}}"#
            )
            .into_bytes(),
            delay: Duration::ZERO,
        }
    }
}

/// Computes the reply to a request, given the request and its number (from 0).
pub(crate) type Responder = Box<dyn Fn(&Seen, usize) -> Reply + Send + Sync>;

/// What the server does.
pub(crate) enum Script {
    /// Answers each request with the responder's reply.
    Answer(Responder),
    /// Reads requests and never answers.
    Silent,
}

/// A running server.
pub(crate) struct Server {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    /// Requests received so far.
    pub seen: Arc<Mutex<Vec<Seen>>>,
    /// TCP connections accepted so far.
    pub connections: Arc<Mutex<usize>>,
}

impl Server {
    /// Starts the server on the current tokio runtime.
    pub async fn start(script: Script) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(Mutex::new(0));
        let script = Arc::new(script);
        let (seen2, conns2) = (seen.clone(), connections.clone());
        tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                *conns2.lock().unwrap() += 1;
                let (script, seen) = (script.clone(), seen2.clone());
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    loop {
                        // Read one request head (GETs only: no body).
                        let head_end = loop {
                            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                                break i + 4;
                            }
                            let mut chunk = [0u8; 4096];
                            match sock.read(&mut chunk).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => buf.extend_from_slice(&chunk[..n]),
                            }
                        };
                        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
                        buf.drain(..head_end);
                        let mut lines = head.lines();
                        let line = lines
                            .next()
                            .unwrap_or_default()
                            .trim_end_matches(" HTTP/1.1")
                            .to_owned();
                        let accept = lines
                            .filter_map(|l| l.split_once(':'))
                            .find(|(k, _)| k.eq_ignore_ascii_case("accept"))
                            .map(|(_, v)| v.trim().to_owned())
                            .unwrap_or_default();
                        let req = Seen {
                            line,
                            accept,
                            at: Instant::now(),
                        };
                        let n = {
                            let mut s = seen.lock().unwrap();
                            s.push(req.clone());
                            s.len() - 1
                        };
                        let reply = match &*script {
                            Script::Silent => continue,
                            Script::Answer(f) => f(&req, n),
                        };
                        if !reply.delay.is_zero() {
                            tokio::time::sleep(reply.delay).await;
                        }
                        let mut out = format!(
                            "HTTP/1.1 {} X\r\nContent-Type: {}\r\nContent-Length: {}\r\n\r\n",
                            reply.status,
                            reply.content_type,
                            reply.body.len()
                        )
                        .into_bytes();
                        out.extend_from_slice(&reply.body);
                        if sock.write_all(&out).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Server {
            url,
            seen,
            connections,
        }
    }

    /// A kube client for this server (plain HTTP, no retries of kube's own).
    pub fn client(&self) -> kube::Client {
        let mut config = kube::Config::new(self.url.parse().expect("url"));
        config.default_retry = false;
        kube::Client::try_from(config).expect("client")
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}
