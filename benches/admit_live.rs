//! The two programs `scripts/bench-admit-live.sh` runs beside `kubectl gc admit` on a test
//! cluster (see BENCHMARKS.md, "admit as the API server sees it"):
//!
//! - `allow-all --listen ADDR --cert FILE --key FILE`: the floor. A validating webhook that
//!   admits every review: hyper's HTTP/1.1 server over rustls with the same TLS setup as
//!   admit, reading only the request's `uid` to echo it. Nothing else.
//! - `write --kubeconfig FILE --namespace NS --owner NAME --owner-uid UID --writers N
//!   --seconds S`: N concurrent writers, each creating ConfigMaps (`generateName`) that carry
//!   one valid ownerReference to ConfigMap NAME, back to back for S seconds, through one kube
//!   client. Prints `writes N seconds S errors E` on one line.
//!
//! Built with `cargo build --profile profiling --bench admit_live`; not a `cargo bench`.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn arg(args: &[String], name: &str) -> String {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| panic!("{name} is required"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    match args.first().map(String::as_str) {
        Some("allow-all") => rt.block_on(allow_all(&args)),
        Some("write") => rt.block_on(write(&args)),
        // `cargo bench` runs every bench target with `--bench`: nothing to do here.
        _ => eprintln!("usage: admit_live allow-all … | write … (see the file's header)"),
    }
}

#[derive(serde::Deserialize)]
struct Review<'a> {
    #[serde(borrow, rename = "apiVersion")]
    api_version: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    request: Request<'a>,
}

#[derive(serde::Deserialize)]
struct Request<'a> {
    #[serde(borrow)]
    uid: std::borrow::Cow<'a, str>,
}

async fn allow(req: http::Request<hyper::body::Incoming>) -> http::Response<Full<Bytes>> {
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let answer = match serde_json::from_slice::<Review<'_>>(&body) {
        Ok(r) => serde_json::json!({
            "apiVersion": r.api_version, "kind": "AdmissionReview",
            "response": {"uid": r.request.uid, "allowed": true},
        })
        .to_string(),
        Err(_) => String::new(),
    };
    http::Response::builder()
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(answer)))
        .expect("response")
}

async fn allow_all(args: &[String]) {
    use rustls_pki_types::pem::PemObject;
    let chain: Vec<_> = rustls_pki_types::CertificateDer::pem_file_iter(arg(args, "--cert"))
        .expect("cert")
        .collect::<Result<_, _>>()
        .expect("cert");
    let key = rustls_pki_types::PrivateKeyDer::from_pem_file(arg(args, "--key")).expect("key");
    let cfg = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("tls")
    .with_no_client_auth()
    .with_single_cert(chain, key)
    .expect("pair");
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(cfg));
    let listener = tokio::net::TcpListener::bind(arg(args, "--listen"))
        .await
        .expect("listen");
    loop {
        let Ok((tcp, _)) = listener.accept().await else {
            continue;
        };
        let _ = tcp.set_nodelay(true);
        let acceptor = acceptor.clone();
        tokio::spawn(async move {
            let Ok(tls) = acceptor.accept(tcp).await else {
                return;
            };
            let service = hyper::service::service_fn(|req| async move {
                Ok::<_, std::convert::Infallible>(allow(req).await)
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                .await;
        });
    }
}

async fn write(args: &[String]) {
    let kubeconfig =
        kube::config::Kubeconfig::read_from(arg(args, "--kubeconfig")).expect("kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .expect("kubeconfig");
    let client = kube::Client::try_from(config).expect("client");
    let ns = arg(args, "--namespace");
    let writers: usize = arg(args, "--writers").parse().expect("--writers");
    let seconds: u64 = arg(args, "--seconds").parse().expect("--seconds");
    let body = serde_json::json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"generateName": "w-", "ownerReferences": [{
            "apiVersion": "v1", "kind": "ConfigMap",
            "name": arg(args, "--owner"), "uid": arg(args, "--owner-uid"),
        }]},
    })
    .to_string()
    .into_bytes();
    let path = format!("/api/v1/namespaces/{ns}/configmaps");
    let (done, errors) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let until = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let tasks: Vec<_> = (0..writers)
        .map(|_| {
            let (client, body, path) = (client.clone(), body.clone(), path.clone());
            let (done, errors) = (done.clone(), errors.clone());
            tokio::spawn(async move {
                while Instant::now() < until {
                    let req = http::Request::post(path.as_str())
                        .header(http::header::CONTENT_TYPE, "application/json")
                        .body(body.clone())
                        .expect("request");
                    match client.request_text(req).await {
                        Ok(_) => done.fetch_add(1, Ordering::Relaxed),
                        Err(_) => errors.fetch_add(1, Ordering::Relaxed),
                    };
                }
            })
        })
        .collect();
    for t in tasks {
        let _ = t.await;
    }
    println!(
        "writes {} seconds {:.3} errors {}",
        done.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64(),
        errors.load(Ordering::Relaxed)
    );
}
