//! `graph --from-gc URL`: which credentials go where (issue 12 case 3). A local TLS listener
//! records each request's headers and whether a client certificate was presented; the
//! kubeconfig holds a bearer token and a client certificate.
//!
//! The certificates are made with the `openssl` command line (a CA, a server certificate for
//! 127.0.0.1/localhost, a client certificate), in a temporary directory.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-gc");
const TOKEN: &str = "kgc-secret-token-4f1e";
const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");

/// One request the listener saw.
#[derive(Clone, Debug)]
struct Seen {
    /// The request line and headers, lower-cased.
    head: String,
    /// A client certificate was presented in the handshake.
    client_cert: bool,
}

struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn new() -> Pki {
        let dir = tempfile::tempdir().unwrap();
        let pki = Pki { dir };
        let openssl = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(pki.dir.path())
                .output()
                .expect("the openssl command line (Debian: openssl) makes the test certificates");
            assert!(
                out.status.success(),
                "openssl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let ec = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        let mut ca = vec!["req", "-x509"];
        ca.extend(ec);
        ca.extend([
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
            "-days",
            "2",
            "-subj",
            "/CN=kgc-test-ca",
        ]);
        openssl(&ca);
        for (name, cn, ext) in [
            (
                "server",
                "localhost",
                "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
            ),
            ("client", "kgc-user", "extendedKeyUsage=clientAuth\n"),
        ] {
            std::fs::write(pki.path(&format!("{name}.ext")), ext).unwrap();
            let (key, csr, crt, extf) = (
                format!("{name}.key"),
                format!("{name}.csr"),
                format!("{name}.crt"),
                format!("{name}.ext"),
            );
            let subj = format!("/CN={cn}");
            let mut req = vec!["req"];
            req.extend(ec);
            req.extend(["-keyout", &key, "-out", &csr, "-subj", &subj]);
            openssl(&req);
            openssl(&[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                &crt,
                "-days",
                "2",
                "-extfile",
                &extf,
            ]);
        }
        pki
    }

    fn b64(&self, name: &str) -> String {
        b64(&std::fs::read(self.path(name)).unwrap())
    }

    /// A kubeconfig for `server` with the token, the client certificate and the CA.
    fn kubeconfig(&self, server: &str, insecure: bool) -> PathBuf {
        let tls = if insecure {
            "insecure-skip-tls-verify: true".to_owned()
        } else {
            format!("certificate-authority-data: {}", self.b64("ca.crt"))
        };
        let yaml = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\n\
             clusters:\n- name: k\n  cluster:\n    server: {server}\n    {tls}\n\
             users:\n- name: u\n  user:\n    token: {TOKEN}\n    client-certificate-data: {}\n    client-key-data: {}\n\
             contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n",
            self.b64("client.crt"),
            self.b64("client.key"),
        );
        let path = self.path(&format!(
            "kubeconfig-{}",
            self.dir.path().read_dir().unwrap().count()
        ));
        std::fs::write(&path, yaml).unwrap();
        path
    }
}

fn b64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                s.push(char::from(A[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// A TLS listener on 127.0.0.1 that answers every request with the saved GC graph and records
/// what it saw.
struct Listener {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Listener {
    fn start(pki: &Pki) -> Listener {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let chain: Vec<CertificateDer<'static>> =
            CertificateDer::pem_file_iter(pki.path("server.crt"))
                .unwrap()
                .map(Result::unwrap)
                .collect();
        let key = PrivateKeyDer::from_pem_file(pki.path("server.key")).unwrap();
        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_file_iter(pki.path("ca.crt")).unwrap() {
            roots.add(c.unwrap()).unwrap();
        }
        let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
            Arc::new(roots),
            provider.clone(),
        )
        .allow_unauthenticated()
        .build()
        .unwrap();
        let config = Arc::new(
            rustls::ServerConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .unwrap()
                .with_client_cert_verifier(verifier)
                .with_single_cert(chain, key)
                .unwrap(),
        );
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let body = std::fs::read(format!("{EXAMPLES}/gc-lag-graph.dot")).unwrap();
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(10)));
                let conn = rustls::ServerConnection::new(config.clone()).unwrap();
                let mut tls = rustls::StreamOwned::new(conn, stream);
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                if head.is_empty() {
                    continue; // a failed handshake
                }
                log.lock().unwrap().push(Seen {
                    head: String::from_utf8_lossy(&head).to_ascii_lowercase(),
                    client_cert: tls.conn.peer_certificates().is_some_and(|c| !c.is_empty()),
                });
                let _ = write!(
                    tls,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = tls.write_all(&body);
                tls.conn.send_close_notify();
                let _ = tls.flush();
            }
        });
        Listener { port, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn graph(kubeconfig: &Path, url: &str, extra: &[&str]) -> Output {
    Command::new(BIN)
        .args(["graph", "--snapshot"])
        .arg(format!("{EXAMPLES}/gc-lag-snapshot.json"))
        .args(["-n", "shop", "--from-gc", url, "--request-timeout", "10s"])
        .args(extra)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .output()
        .expect("run kubectl-gc")
}

fn one_request(l: &Listener, o: &Output) -> Seen {
    let seen = l.seen();
    assert_eq!(
        seen.len(),
        1,
        "one request reached the listener; stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The graphs differ (exit 5) or agree (0); either way the endpoint answered.
    assert!(
        matches!(o.status.code(), Some(0 | 5)),
        "{:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    seen[0].clone()
}

fn has_token(s: &Seen) -> bool {
    s.head.contains("authorization:") || s.head.contains(&TOKEN.to_ascii_lowercase())
}

#[test]
fn another_host_gets_no_credentials_unless_asked() {
    let pki = Pki::new();
    let l = Listener::start(&pki);
    // The kubeconfig's server is elsewhere (nothing listens there).
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let kc = pki.kubeconfig(&format!("https://127.0.0.1:{closed}"), false);
    let url = format!("https://127.0.0.1:{}", l.port);

    let o = graph(&kc, &url, &["--gc-insecure-skip-tls-verify"]);
    let s = one_request(&l, &o);
    assert!(!has_token(&s), "no token to another host: {}", s.head);
    assert!(!s.client_cert, "no client certificate to another host");

    // Asked for: the token and the client certificate, TLS verified against the cluster's CA.
    let l = Listener::start(&pki);
    let url = format!("https://127.0.0.1:{}", l.port);
    let o = graph(&kc, &url, &["--gc-send-credentials"]);
    let s = one_request(&l, &o);
    assert!(s.head.contains(&format!(
        "authorization: bearer {}",
        TOKEN.to_ascii_lowercase()
    )));
    assert!(s.client_cert);
}

#[test]
fn the_kubeconfigs_own_server_gets_its_credentials_and_tls_settings() {
    let pki = Pki::new();
    let l = Listener::start(&pki);
    let url = format!("https://127.0.0.1:{}", l.port);
    // Verified against the kubeconfig's CA (no --gc-insecure-skip-tls-verify).
    let kc = pki.kubeconfig(&url, false);
    let o = graph(
        &kc,
        &format!("{url}/debug/controllers/garbagecollector/graph"),
        &[],
    );
    let s = one_request(&l, &o);
    assert!(s.head.contains(&format!(
        "authorization: bearer {}",
        TOKEN.to_ascii_lowercase()
    )));
    assert!(s.client_cert);
    assert!(
        s.head
            .starts_with("get /debug/controllers/garbagecollector/graph")
    );

    // The same port under another host name is another server: no credentials, and none of
    // the kubeconfig's TLS settings either (its CA is not trusted for it).
    let l2 = Listener::start(&pki);
    let kc = pki.kubeconfig(&format!("https://127.0.0.1:{}", l2.port), false);
    let localhost = format!("https://localhost:{}", l2.port);
    let o = graph(&kc, &localhost, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.contains("UnknownIssuer"), "{err}");
    assert!(l2.seen().is_empty());
    let o = graph(&kc, &localhost, &["--gc-insecure-skip-tls-verify"]);
    let s = one_request(&l2, &o);
    assert!(!has_token(&s), "{}", s.head);
    assert!(!s.client_cert);
}

#[test]
fn a_kubeconfig_that_skips_verification_does_not_lend_it_to_another_host() {
    let pki = Pki::new();
    let l = Listener::start(&pki);
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // insecure-skip-tls-verify for its own server only; the listener's certificate is from a
    // CA the system does not trust: without --gc-insecure-skip-tls-verify the handshake fails.
    let kc = pki.kubeconfig(&format!("https://127.0.0.1:{closed}"), true);
    let o = graph(
        &kc,
        &format!("https://127.0.0.1:{}", l.port),
        &["--gc-send-credentials"],
    );
    assert_eq!(
        o.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        l.seen().is_empty(),
        "nothing sent over an unverified connection"
    );
}

#[test]
fn credentials_are_never_sent_to_another_host_over_plain_http() {
    let pki = Pki::new();
    let kc = pki.kubeconfig("https://127.0.0.1:6443", false);
    let o = graph(&kc, "http://127.0.0.1:1", &["--gc-send-credentials"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("never sent to another host without TLS"),
        "{err}"
    );
}
