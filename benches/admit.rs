//! Latency of `kubectl gc admit`'s `POST /validate` at a sustained request rate:
//! `cargo bench --bench admit` (see BENCHMARKS.md, "admit").
//!
//! The graph is a synthetic cluster (default 50k objects, `KGC_BENCH_ADMIT_OBJECTS`) in the
//! webhook's shared graph, as the watch loop leaves it after the initial lists. The server
//! is the webhook's own (HTTPS with a certificate made here, on loopback); the client sends
//! AdmissionReviews at a fixed rate (`KGC_BENCH_ADMIT_RATE` per second, default 500) for
//! `KGC_BENCH_ADMIT_SECS` (default 10) over 8 kept-alive connections, open loop (a request
//! is sent on schedule whether or not earlier ones were answered). Each review is a CREATE of
//! a ConfigMap with one ownerReference to an object of the graph: half in the owner's own
//! namespace (valid: checked, nothing found), half in another namespace (the cross-namespace
//! break: a warning). Reported: p50, p90, p99 and max of the latency from send to the whole
//! answer, and how many answers warned (all the broken ones must).

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use kubectl_gc::admit::conns::serve;
use kubectl_gc::admit::graph::Graph;
use kubectl_gc::admit::server::{App, Limits};
use kubectl_gc::admit::tls::{ReloadingCert, tls_config};
use kubectl_gc::admit::{Policy, metrics::Metrics};
use kubectl_gc::testkit::generate::{GenOptions, generate};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn certificates(dir: &std::path::Path) -> (String, std::path::PathBuf, std::path::PathBuf) {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    let (c, k) = (dir.join("tls.crt"), dir.join("tls.key"));
    std::fs::write(&c, cert.pem()).unwrap();
    std::fs::write(&k, key.serialize_pem()).unwrap();
    (ca.pem(), c, k)
}

/// Review bodies: (body, broken).
fn reviews(snap: &kubectl_gc::snapshot::Snapshot, n: usize) -> Vec<(Vec<u8>, bool)> {
    let namespaces: Vec<&str> = snap
        .store
        .ids()
        .map(|id| snap.store.str(snap.store.object(id).namespace))
        .filter(|ns| !ns.is_empty())
        .take(5000)
        .collect();
    let owners: Vec<_> = snap
        .store
        .ids()
        .filter(|&id| {
            let o = snap.store.object(id);
            // An owner being deleted draws a warning of its own (the foreground chains of
            // the generated cluster): not a valid owner.
            !snap.store.str(o.namespace).is_empty() && o.deletion_timestamp.is_empty()
        })
        .step_by(7)
        .take(n)
        .collect();
    owners
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let o = snap.store.object(id);
            let r = &snap.resources[o.resource.index()];
            let api_version = if r.group.is_empty() {
                r.version.clone()
            } else {
                format!("{}/{}", r.group, r.version)
            };
            let own_ns = snap.store.str(o.namespace);
            let broken = i % 2 == 1;
            let ns = if broken {
                namespaces
                    .iter()
                    .copied()
                    .find(|n| *n != own_ns)
                    .unwrap_or("elsewhere")
            } else {
                own_ns
            };
            let body = serde_json::json!({
                "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                "request": {
                    "uid": format!("req-{i}"),
                    "resource": {"group": "", "version": "v1", "resource": "configmaps"},
                    "namespace": ns, "name": format!("bench-{i}"), "operation": "CREATE",
                    "userInfo": {"username": "bench"},
                    "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
                        "name": format!("bench-{i}"), "namespace": ns,
                        "ownerReferences": [{"apiVersion": api_version, "kind": r.kind,
                            "name": snap.store.str(o.name), "uid": snap.store.str(o.uid)}]}}
                }
            });
            (serde_json::to_vec(&body).unwrap(), broken)
        })
        .collect()
}

type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

async fn connect(addr: std::net::SocketAddr, ca_pem: &str) -> Sender {
    use rustls_pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(rustls_pki_types::CertificateDer::from_pem_slice(ca_pem.as_bytes()).unwrap())
        .unwrap();
    let cfg = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tcp.set_nodelay(true).unwrap();
    let name = rustls_pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let tls = tokio_rustls::TlsConnector::from(Arc::new(cfg))
        .connect(name, tcp)
        .await
        .unwrap();
    let (sender, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
        .await
        .unwrap();
    tokio::spawn(conn);
    sender
}

fn main() {
    let objects = env_num("KGC_BENCH_ADMIT_OBJECTS", 50_000) as usize;
    let rate = env_num("KGC_BENCH_ADMIT_RATE", 500);
    let secs = env_num("KGC_BENCH_ADMIT_SECS", 10);
    let g = generate(&GenOptions {
        objects,
        ..GenOptions::default()
    });
    let snap = g.to_snapshot();
    let total = (rate * secs) as usize;
    let bodies = Arc::new(reviews(&snap, total.min(20_000)));
    let graph = Arc::new(Graph::from_snapshot(snap, None));
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = certificates(dir.path());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let app = Arc::new(App::new(
            Policy::default(),
            Arc::new(Metrics::new()),
            graph,
            Limits::default(),
        ));
        let tls = tls_config(Arc::new(ReloadingCert::new(cert, key, None).unwrap()), None).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(serve(listener, Some(tls), app));
        let conns = 8;
        let mut senders = Vec::new();
        for _ in 0..conns {
            let (stx, mut srx) = tokio::sync::mpsc::unbounded_channel::<(
                usize,
                Instant,
                tokio::sync::oneshot::Sender<(Duration, bool, Bytes)>,
            )>();
            let mut s = connect(addr, &ca).await;
            let bodies = bodies.clone();
            tokio::spawn(async move {
                while let Some((i, sent, done)) = srx.recv().await {
                    let (body, _) = &bodies[i % bodies.len()];
                    let req = http::Request::post("/validate")
                        .header("host", "127.0.0.1")
                        .header("content-type", "application/json")
                        .body(Full::new(Bytes::from(body.clone())))
                        .unwrap();
                    let resp = s.send_request(req).await.unwrap();
                    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
                    let warned = memchr::memmem::find(&bytes, b"\"warnings\"").is_some();
                    let _ = done.send((sent.elapsed(), warned, bytes));
                }
            });
            senders.push(stx);
        }
        // Warm-up: one pass over the connections.
        for (i, s) in senders.iter().enumerate() {
            let (d, r) = tokio::sync::oneshot::channel();
            s.send((i, Instant::now(), d)).unwrap();
            r.await.unwrap();
        }
        let period = Duration::from_secs_f64(1.0 / rate as f64);
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
        let mut pending = Vec::with_capacity(total);
        let started = Instant::now();
        for i in 0..total {
            tick.tick().await;
            let (d, r) = tokio::sync::oneshot::channel();
            senders[i % conns]
                .send((i, Instant::now(), d))
                .unwrap();
            pending.push((i, r));
        }
        let mut lat = Vec::with_capacity(total);
        let (mut warned, mut broken) = (0, 0);
        for (i, r) in pending {
            let (d, w, answer) = r.await.unwrap();
            lat.push(d);
            let is_broken = bodies[i % bodies.len()].1;
            broken += usize::from(is_broken);
            warned += usize::from(w);
            // A broken review admitted without a warning is one the webhook did not check in
            // time (counted below); a valid one that warns is a wrong verdict.
            assert!(
                !w || is_broken,
                "review {i}: warned, yet valid: {}",
                String::from_utf8_lossy(&answer)
            );
        }
        let wall = started.elapsed();
        lat.sort();
        let q = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
        println!(
            "admit: {objects} objects, {total} reviews at {rate}/s over {:.1}s ({} connections, TLS): \
             p50 {:?}, p90 {:?}, p99 {:?}, max {:?}; {warned} warned of {broken} broken",
            wall.as_secs_f64(),
            conns,
            q(0.50),
            q(0.90),
            q(0.99),
            lat[lat.len() - 1]
        );
        assert_eq!(
            warned, broken,
            "{} broken reviews were admitted unchecked (not answered within the deadline)",
            broken - warned
        );
    });
}
