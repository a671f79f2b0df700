//! The webhook under faults and load, called by the real API server: its own watch cut (a
//! loopback proxy between it and the API server), slow and idle connections, a write with
//! 20,000 references, a flood of absent owners, client certificates, a garbage certificate,
//! and `--only-namespace` on v1.20.

use super::*;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A loopback TCP proxy to the API server that can be cut (listener and every connection
/// closed) and restored on the same port.
struct Proxy {
    port: u16,
    target: std::net::SocketAddr,
    conns: Arc<Mutex<Vec<TcpStream>>>,
    stop: Arc<AtomicBool>,
    accepter: Option<std::thread::JoinHandle<()>>,
}

impl Proxy {
    fn to(server: &str) -> Proxy {
        let target = server
            .trim_start_matches("https://")
            .parse()
            .expect("the API server's address");
        let mut p = Proxy {
            port: free_port(),
            target,
            conns: Arc::default(),
            stop: Arc::default(),
            accepter: None,
        };
        p.restore();
        p
    }

    fn restore(&mut self) {
        let listener = TcpListener::bind(("127.0.0.1", self.port)).expect("proxy port");
        listener.set_nonblocking(true).expect("nonblocking");
        self.stop = Arc::new(AtomicBool::new(false));
        let (stop, conns, target) = (self.stop.clone(), self.conns.clone(), self.target);
        self.accepter = Some(std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let Ok((client, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                };
                let _ = client.set_nonblocking(false);
                let Ok(server) = TcpStream::connect(target) else {
                    continue;
                };
                for (from, to) in [(&client, &server), (&server, &client)] {
                    let (mut from, mut to) = (from.try_clone().unwrap(), to.try_clone().unwrap());
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Both);
                    });
                }
                let mut held = conns.lock().unwrap();
                held.push(client);
                held.push(server);
            }
        }));
    }

    fn cut(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.accepter.take() {
            let _ = t.join();
        }
        for c in self.conns.lock().unwrap().drain(..) {
            let _ = c.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.cut();
    }
}

/// `/healthz`'s status line and body, as `503 the watch of … is lost`.
fn healthz_says(ctx: &Ctx) -> String {
    let out = Command::new("curl")
        .args(["-s", "--max-time", "5", "-w", "%{http_code}", "--cacert"])
        .arg(&ctx.ca)
        .arg(format!("https://127.0.0.1:{}/healthz", ctx.port))
        .output()
        .expect("curl");
    let text = String::from_utf8_lossy(&out.stdout);
    let (body, code) = text
        .trim_end()
        .split_at(text.trim_end().len().saturating_sub(3));
    format!("{code} {}", body.trim())
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

pub fn cut_watch(ctx: &Ctx) {
    let env = &ctx.env;
    let mut proxy = Proxy::to(&env.server);
    let kubeconfig = env.dir.join("kubeconfig-via-proxy");
    let text = std::fs::read_to_string(&env.kubeconfig).expect("kubeconfig");
    let via = text.replace(&env.server, &format!("https://127.0.0.1:{}", proxy.port));
    std::fs::write(&kubeconfig, via).expect("kubeconfig");
    start_with(ctx, "deny", &kubeconfig, &[]);
    env.kubectl(&["create", "namespace", "cut"]).expect("ns");
    // Before the cut: an owner, then its dependent at once, admitted.
    env.kubectl(&["create", "configmap", "before", "-n", "cut"])
        .expect("owner");
    let before = uid_of(env, &["configmap", "before", "-n", "cut"]);
    let (ok, _, err) = create(
        env,
        &cm(
            "cut",
            "dep-before",
            json!([oref("v1", "ConfigMap", "before", &before)]),
        ),
    );
    assert!(ok, "{err}");
    // The cut: the API server serves everyone else; admit's watches are lost.
    proxy.cut();
    wait_for(
        "configmaps' watch reported lost",
        Duration::from_secs(20),
        || {
            metric(
                ctx,
                "kubectl_gc_admit_graph_lost_watch_seconds{resource=\"configmaps\"}",
            ) > 0.0
        },
    );
    let unknown = || {
        metric(
            ctx,
            "kubectl_gc_admit_verdicts_total{verdict=\"unknown\",reason=\"lost-watch\"}",
        )
    };
    let was = unknown();
    // An owner admit cannot see, then its dependent: admitted in deny mode (not judged).
    env.kubectl(&["create", "configmap", "during", "-n", "cut"])
        .expect("owner");
    let during = uid_of(env, &["configmap", "during", "-n", "cut"]);
    let (ok, _, err) = create(
        env,
        &cm(
            "cut",
            "dep-during",
            json!([oref("v1", "ConfigMap", "during", &during)]),
        ),
    );
    assert!(
        ok,
        "a valid write was refused while the watch was cut: {err}"
    );
    assert!(unknown() > was, "not counted as unjudged");
    // Not ready past the grace (10 s).
    wait_for("/healthz not ready", Duration::from_secs(30), || {
        let says = healthz_says(ctx);
        says.starts_with("503 the watch of") && says.contains("configmaps (")
    });
    eprintln!(
        "    /healthz: {}",
        crate::admit::clip_line(&healthz_says(ctx))
    );
    // Restored: ready again, and judging again (a dangling reference is refused).
    proxy.restore();
    wait_for("/healthz ready again", Duration::from_secs(60), || {
        healthz(ctx)
    });
    let (ok, _, err) = create(
        env,
        &cm(
            "cut",
            "dep-nobody",
            json!([oref(
                "v1",
                "ConfigMap",
                "nobody",
                "6f1e2b9c-0000-4000-8000-000000000010"
            )]),
        ),
    );
    assert!(
        !ok,
        "deny mode admitted a dangling reference after the recovery"
    );
    assert!(
        err.contains("no such owner exists in namespace cut"),
        "{err}"
    );
    // The owner created during the cut is known now: its dependents pass.
    let (ok, _, err) = create(
        env,
        &cm(
            "cut",
            "dep-after",
            json!([oref("v1", "ConfigMap", "during", &during)]),
        ),
    );
    assert!(ok, "{err}");
    start(ctx, "warn");
}

/// A TLS connection to the webhook (trusting the suite's CA), as rustls makes one.
fn tls_to(ctx: &Ctx) -> rustls::StreamOwned<rustls::ClientConnection, TcpStream> {
    use rustls::pki_types::{CertificateDer, ServerName, pem::PemObject};
    let pem = std::fs::read(&ctx.ca).expect("ca");
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(&pem).expect("pem"))
        .expect("root");
    let cfg = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("tls")
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name = ServerName::try_from("127.0.0.1").expect("name");
    let conn = rustls::ClientConnection::new(Arc::new(cfg), name).expect("tls");
    let tcp = TcpStream::connect(("127.0.0.1", ctx.port)).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(10))).ok();
    rustls::StreamOwned::new(conn, tcp)
}

/// POSTs `body` to /validate on `s` (kept alive): the status and the body of the answer.
fn post<S: Read + Write>(s: &mut S, body: &str) -> (u16, String) {
    let head = format!(
        "POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    if s.write_all(head.as_bytes()).is_err() || s.write_all(body.as_bytes()).is_err() {
        return (0, String::new());
    }
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                let status = head
                    .split(' ')
                    .nth(1)
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(0);
                let body = String::from_utf8_lossy(&buf[end + 4..end + 4 + len]).into_owned();
                return (status, body);
            }
        }
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return (0, String::new()),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

pub fn slowloris(ctx: &Ctx) {
    let env = &ctx.env;
    start_with(ctx, "warn", &env.kubeconfig, &["--max-connections", "8"]);
    // Every place taken: 4 connections that sent whole headers and then one byte of a 1 MB
    // body, and 4 that never finish their TLS handshake.
    let mut slow = Vec::new();
    for _ in 0..4 {
        let mut s = tls_to(ctx);
        s.write_all(
            b"POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Content-Length: 1000000\r\n\r\n{",
        )
        .expect("slow headers");
        slow.push(s);
    }
    let idle: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(("127.0.0.1", ctx.port)).expect("idle"))
        .collect();
    std::thread::sleep(Duration::from_millis(1500));
    // The API server still gets its answers: each write draws its warning.
    for n in 0..3 {
        let w = one_warning(
            ctx,
            &cm(
                "monitoring",
                &format!("past-slowloris-{n}"),
                json!([oref(
                    "v1",
                    "ConfigMap",
                    "nobody",
                    "6f1e2b9c-0000-4000-8000-000000000020"
                )]),
            ),
        );
        assert!(w.contains("no such owner exists"), "{w}");
    }
    // The API server keeps its connection alive: one place was enough for the three.
    let shed = metric(ctx, "kubectl_gc_admit_connections_shed_total");
    assert!(shed >= 1.0, "{shed} connections shed");
    drop((slow, idle));
    start(ctx, "warn");
}

/// `n` references to ConfigMaps named `<prefix><i>` (none exists), with distinct uids.
fn many(n: usize, prefix: &str) -> Value {
    Value::Array(
        (0..n)
            .map(|i| {
                oref(
                    "v1",
                    "ConfigMap",
                    &format!("{prefix}{i}"),
                    &format!("6f1e2b9c-0000-4000-8000-{i:012}"),
                )
            })
            .collect(),
    )
}

pub fn twenty_thousand(ctx: &Ctx) {
    let env = &ctx.env;
    let timeouts = || metric(ctx, "kubectl_gc_admit_verdicts_total{verdict=\"timeout\"");
    let before = timeouts();
    let big = cm("monitoring", "twenty-thousand", many(20_000, "g"));
    let kubeconfig = env.kubeconfig.clone();
    let create_big = std::thread::spawn(move || {
        let t = Instant::now();
        let out = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(["create", "-f", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                c.stdin
                    .take()
                    .expect("stdin")
                    .write_all(big.to_string().as_bytes())?;
                c.wait_with_output()
            })
            .expect("kubectl create");
        (out, t.elapsed())
    });
    // Small writes meanwhile keep their verdicts.
    for n in 0..4 {
        let w = one_warning(
            ctx,
            &cm(
                "monitoring",
                &format!("beside-big-{n}"),
                json!([oref(
                    "v1",
                    "ConfigMap",
                    "nobody",
                    "6f1e2b9c-0000-4000-8000-000000000030"
                )]),
            ),
        );
        assert!(w.contains("no such owner exists"), "{w}");
    }
    let (out, took) = create_big.join().expect("create");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let w = warnings_of(&err);
    eprintln!("    20,000 references: {took:?}, {} warnings", w.len());
    assert!(
        w.iter()
            .any(|w| w.contains("more ownerReferences of this write the GC will act on")),
        "{err}"
    );
    // The UPDATE of 20,000 to 20,000: one reference renamed, the one judged.
    let mut refs = many(20_000, "g");
    refs[19_999]["name"] = json!("renamed");
    let (ok, _, err) = kubectl(
        env,
        &["replace", "-f", "-"],
        Some(&cm("monitoring", "twenty-thousand", refs)),
    );
    assert!(ok, "{err}");
    let w = warnings_of(&err);
    assert_eq!(w.len(), 1, "{err}");
    assert!(w[0].contains("ConfigMap \"renamed\""), "{err}");
    assert_eq!(timeouts(), before, "a review was not judged in time");
}

pub fn flood(ctx: &Ctx) {
    let env = &ctx.env;
    start_with(ctx, "warn", &env.kubeconfig, &["--max-in-flight", "8"]);
    let review = |n: usize| {
        json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
            "uid": format!("flood-{n}"),
            "resource": {"group": "", "version": "v1", "resource": "configmaps"},
            "namespace": "monitoring", "name": format!("flood-{n}"), "operation": "CREATE",
            "userInfo": {"username": "flooder"},
            "object": {"metadata": {"name": format!("flood-{n}"), "namespace": "monitoring",
                "ownerReferences": [oref("v1", "ConfigMap", "ghost", "6f1e2b9c-0000-4000-8000-000000000040")]}}}})
        .to_string()
    };
    // 40 clients, each posting absent-owner reviews back to back for 4 s.
    let until = Instant::now() + Duration::from_secs(4);
    let flooders: Vec<_> = (0..40)
        .map(|t| {
            let (body, mut s) = (review(t), tls_to(ctx));
            std::thread::spawn(move || {
                let mut sent = 0;
                while Instant::now() < until {
                    let (status, _) = post(&mut s, &body);
                    assert_eq!(status, 200);
                    sent += 1;
                }
                sent
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    // Meanwhile every other write is checked: each draws its warning.
    env.kubectl(&["create", "configmap", "flood-owner", "-n", "kube-system"])
        .ok();
    let ks = uid_of(env, &["configmap", "flood-owner", "-n", "kube-system"]);
    for n in 0..3 {
        let w = one_warning(
            ctx,
            &cm(
                "monitoring",
                &format!("during-flood-{n}"),
                json!([oref("v1", "ConfigMap", "flood-owner", &ks)]),
            ),
        );
        assert!(w.contains("is kube-system/flood-owner"), "{w}");
    }
    let sent: usize = flooders
        .into_iter()
        .map(|t| t.join().expect("flooder"))
        .sum();
    eprintln!("    {sent} absent-owner reviews in 4 s");
    start(ctx, "warn");
}

fn curl_status(ctx: &Ctx, path: &str, extra: &[&std::ffi::OsStr]) -> String {
    let out = Command::new("curl")
        .args([
            "-s",
            "--max-time",
            "5",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "--cacert",
        ])
        .arg(&ctx.ca)
        .args(extra)
        .args(["-H", "Content-Type: application/json", "--data", "{}"])
        .arg(format!("https://127.0.0.1:{}{path}", ctx.port))
        .output()
        .expect("curl");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn client_certificates(ctx: &Ctx) {
    let env = &ctx.env;
    let ca = ctx.client_ca.to_string_lossy().into_owned();
    start_with(ctx, "warn", &env.kubeconfig, &["--client-ca-file", &ca]);
    // The API server presents the certificate its admission configuration names: answered.
    let w = one_warning(
        ctx,
        &cm(
            "monitoring",
            "with-client-cert",
            json!([oref(
                "v1",
                "ConfigMap",
                "nobody",
                "6f1e2b9c-0000-4000-8000-000000000050"
            )]),
        ),
    );
    assert!(w.contains("no such owner exists"), "{w}");
    // Anyone else: refused at /validate, while probes and metrics are served.
    assert_eq!(curl_status(ctx, "/validate", &[]), "403");
    assert!(healthz(ctx));
    assert!(
        metric(
            ctx,
            "kubectl_gc_admit_verdicts_total{verdict=\"error\",reason=\"unauthenticated\"}"
        ) >= 1.0
    );
    // The same certificate from curl is answered (400: `{}` is no review), one from another
    // CA fails the handshake.
    let (cert, key) = (ctx.client_cert.as_os_str(), ctx.client_key.as_os_str());
    let with = [
        std::ffi::OsStr::new("--cert"),
        cert,
        std::ffi::OsStr::new("--key"),
        key,
    ];
    assert_eq!(curl_status(ctx, "/validate", &with), "400");
    let (_, other_cert, other_key) = certificates(&env.dir, "other-").expect("certificates");
    let other = [
        std::ffi::OsStr::new("--cert"),
        other_cert.as_os_str(),
        std::ffi::OsStr::new("--key"),
        other_key.as_os_str(),
    ];
    assert_eq!(curl_status(ctx, "/validate", &other), "000");
    start(ctx, "warn");
}

pub fn garbage_certificate(ctx: &Ctx) {
    start(ctx, "warn");
    let original = std::fs::read(&ctx.cert).expect("cert");
    std::fs::write(&ctx.cert, "-----BEGIN CERTIFICATE-----\ngarbage\n").expect("garbage");
    // Still served: the last good certificate, which the configuration's CA trusts.
    assert_eq!(curl(ctx, "/livez").as_deref(), Some("ok\n"));
    assert_eq!(
        metric(ctx, "kubectl_gc_admit_certificate_reload_failing"),
        1.0
    );
    assert!(
        metric(
            ctx,
            "kubectl_gc_admit_certificate_reloads_total{result=\"failed\"}"
        ) >= 1.0
    );
    let log = std::fs::read_to_string(ctx.env.dir.join("admit-warn.log")).unwrap_or_default();
    assert!(
        log.contains("cannot load the new serving certificate"),
        "{log}"
    );
    std::fs::write(&ctx.cert, original).expect("cert");
    assert_eq!(curl(ctx, "/livez").as_deref(), Some("ok\n"));
    assert_eq!(
        metric(ctx, "kubectl_gc_admit_certificate_reload_failing"),
        0.0
    );
}

pub fn only_namespace(ctx: &Ctx) {
    let env = &ctx.env;
    env.kubectl(&["create", "namespace", "shop"]).expect("ns");
    // Printed for the cluster it reads (v1.20.2): no selector on a label v1.20 lacks.
    let config = print_config(ctx, &["--only-namespace", "shop"]);
    assert!(
        !config
            .lines()
            .any(|l| l.trim_start().starts_with("namespaceSelector:")),
        "{config}"
    );
    assert!(config.contains("skips the namespaces"), "{config}");
    env.kubectl_stdin(&["apply", "-f", "-"], Some(&config))
        .expect("the API server takes the configuration");
    start_with(ctx, "warn", &env.kubeconfig, &["--only-namespace", "shop"]);
    let broken = |ns: &str, name: &str| {
        cm(
            ns,
            name,
            json!([oref(
                "v1",
                "ConfigMap",
                "nobody",
                "6f1e2b9c-0000-4000-8000-000000000060"
            )]),
        )
    };
    let w = one_warning(ctx, &broken("shop", "in-shop"));
    assert!(w.contains("no such owner exists in namespace shop"), "{w}");
    let skipped = || {
        metric(
            ctx,
            "kubectl_gc_admit_verdicts_total{verdict=\"skipped\",reason=\"namespace\"}",
        )
    };
    let was = skipped();
    let (ok, _, err) = create(env, &broken("monitoring", "outside-shop"));
    assert!(ok && warnings_of(&err).is_empty(), "{err}");
    assert!(
        skipped() > was,
        "the API server did not call, or the webhook judged"
    );
    // Back to the suite's configuration.
    env.kubectl_stdin(&["apply", "-f", "-"], Some(&print_config(ctx, &[])))
        .expect("configuration");
    start(ctx, "warn");
}
