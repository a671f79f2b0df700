//! The webhook's connections: HTTP/1.1 over TLS, at most `max_connections` at once.
//!
//! When a connection comes and every place is taken, the oldest connection that is idle or
//! slow gives up its place: one still in its TLS handshake, one idle between requests (or
//! sending its headers), one whose request body has not arrived after a second. Only when
//! every connection is busy answering is the new one refused. So slow or idle clients (a
//! slowloris) cannot keep the API server out: they are the ones shed. Each stage is bounded
//! too: the handshake (10 s), the headers and the idle time between requests (30 s), the body
//! (the review's deadline).
//!
//! HTTP/2 is not served: TLS offers no ALPN protocol, so the API server speaks HTTP/1.1 over
//! kept-alive connections, and a client that starts with the HTTP/2 preface is refused by the
//! HTTP/1 parser. None of HTTP/2's own attack surface (stream floods, rapid resets, HPACK and
//! flow-control windows) is exposed.

use super::server::{App, Peer, handle};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// Where a connection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Phase {
    /// In its TLS handshake.
    Handshake = 0,
    /// Between requests, or sending a request's headers.
    Idle = 1,
    /// A request's headers are in; its body is being read.
    Body = 2,
    /// A request is being answered.
    Busy = 3,
}

impl Phase {
    fn from_u8(v: u8) -> Phase {
        match v {
            0 => Phase::Handshake,
            1 => Phase::Idle,
            2 => Phase::Body,
            _ => Phase::Busy,
        }
    }

    /// The metrics label.
    pub fn label(self) -> &'static str {
        match self {
            Phase::Handshake => "handshake",
            Phase::Idle => "idle",
            Phase::Body => "slow-body",
            Phase::Busy => "busy",
        }
    }
}

/// One connection's place.
#[derive(Debug)]
struct Conn {
    phase: AtomicU8,
    /// Nanoseconds from the registry's epoch to the start of the phase.
    since: AtomicU64,
    shed: Notify,
}

/// The places, and who holds them.
#[derive(Debug)]
pub struct Registry {
    epoch: Instant,
    max: usize,
    slow_body: Duration,
    next: AtomicU64,
    conns: Mutex<HashMap<u64, Arc<Conn>>>,
}

impl Registry {
    /// At most `max` connections; a body not in after `slow_body` is slow.
    pub fn new(max: usize, slow_body: Duration) -> Registry {
        Registry {
            epoch: Instant::now(),
            max: max.max(1),
            slow_body,
            next: AtomicU64::new(0),
            conns: Mutex::new(HashMap::new()),
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn set(&self, conn: &Conn, phase: Phase) {
        conn.since.store(self.now(), Ordering::Relaxed);
        conn.phase.store(phase as u8, Ordering::Relaxed);
    }

    /// Connections held now.
    pub fn len(&self) -> usize {
        self.conns
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// True when no connection is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A place for a new connection: `Err(())` when every place is busy answering; `Ok` with
    /// the phase of the connection shed to make room, if one was.
    fn admit(&self) -> Result<(u64, Arc<Conn>, Option<Phase>), ()> {
        let mut conns = self.conns.lock().unwrap_or_else(PoisonError::into_inner);
        let mut shed = None;
        if conns.len() >= self.max {
            let now = self.now();
            let slow = self.slow_body.as_nanos() as u64;
            let victim = conns
                .iter()
                .filter_map(|(&id, c)| {
                    let phase = Phase::from_u8(c.phase.load(Ordering::Relaxed));
                    let since = c.since.load(Ordering::Relaxed);
                    let sheddable = match phase {
                        Phase::Handshake | Phase::Idle => true,
                        Phase::Body => now.saturating_sub(since) >= slow,
                        Phase::Busy => false,
                    };
                    sheddable.then_some((since, id, phase))
                })
                .min();
            let (_, id, phase) = victim.ok_or(())?;
            if let Some(c) = conns.remove(&id) {
                c.shed.notify_one();
            }
            shed = Some(phase);
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let conn = Arc::new(Conn {
            phase: AtomicU8::new(Phase::Handshake as u8),
            since: AtomicU64::new(self.now()),
            shed: Notify::new(),
        });
        conns.insert(id, conn.clone());
        Ok((id, conn, shed))
    }

    fn leave(&self, id: u64) {
        self.conns
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
    }
}

/// Serves on `listener` until the task is aborted: HTTPS when `tls` is given, else plain
/// HTTP (benchmarks and tests on loopback only; the command always serves HTTPS).
pub async fn serve(
    listener: tokio::net::TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    app: Arc<App>,
) {
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    let registry = Arc::new(Registry::new(
        app.limits.max_connections,
        app.limits.slow_body,
    ));
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of file descriptors and the like: back off rather than spin.
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let (id, conn, shed) = match registry.admit() {
            Ok(place) => place,
            Err(()) => {
                app.metrics.connection_refused();
                continue; // every place is answering: the API server retries or fails open
            }
        };
        if let Some(phase) = shed {
            app.metrics.connection_shed(phase.label());
        }
        app.metrics.connections(registry.len());
        let _ = stream.set_nodelay(true);
        let (app, acceptor, registry) = (app.clone(), acceptor.clone(), registry.clone());
        tokio::spawn(async move {
            tokio::select! {
                () = conn.shed.notified() => {}
                () = connection(&app, &registry, &conn, stream, acceptor) => {}
            }
            registry.leave(id);
            app.metrics.connections(registry.len());
        });
    }
}

/// Serves one connection to its end.
async fn connection(
    app: &Arc<App>,
    registry: &Arc<Registry>,
    conn: &Arc<Conn>,
    stream: tokio::net::TcpStream,
    acceptor: Option<tokio_rustls::TlsAcceptor>,
) {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(app.limits.header_timeout);
    let service = |peer: Peer| {
        let (app, registry, conn) = (app.clone(), registry.clone(), conn.clone());
        hyper::service::service_fn(move |req| {
            let (app, registry, conn) = (app.clone(), registry.clone(), conn.clone());
            async move {
                registry.set(&conn, Phase::Body);
                let read = || registry.set(&conn, Phase::Busy);
                let response = handle(app, peer, req, read).await;
                registry.set(&conn, Phase::Idle);
                Ok::<_, std::convert::Infallible>(response)
            }
        })
    };
    match acceptor {
        Some(acceptor) => {
            let handshake =
                tokio::time::timeout(app.limits.handshake_timeout, acceptor.accept(stream));
            let Ok(Ok(tls)) = handshake.await else {
                return;
            };
            let peer = Peer {
                authenticated: tls
                    .get_ref()
                    .1
                    .peer_certificates()
                    .is_some_and(|c| !c.is_empty()),
            };
            registry.set(conn, Phase::Idle);
            let io = hyper_util::rt::TokioIo::new(tls);
            let _ = builder.serve_connection(io, service(peer)).await;
        }
        None => {
            registry.set(conn, Phase::Idle);
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = builder.serve_connection(io, service(Peer::default())).await;
        }
    }
}
