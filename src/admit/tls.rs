//! The webhook's TLS: the serving certificate, read again when its files' content changes,
//! and the optional client-certificate check (`--client-ca-file`).
//!
//! The certificate and key are read at each TLS handshake (two small files; handshakes are
//! rare on kept-alive connections) and compared with what is served by content, not by
//! modification time: a Secret volume's `..data` swap, or a tool that keeps mtimes, is picked
//! up all the same. A pair that does not load (caught half-written, garbage, a key that does
//! not match) leaves the last good pair in service; the failure is logged once per distinct
//! cause and counted (`kubectl_gc_admit_certificate_reloads_total{result="failed"}`,
//! `kubectl_gc_admit_certificate_reload_failing` 1 until the files load again), so an expiring
//! certificate that fails to rotate is seen.

use super::metrics::Metrics;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert, WebPkiClientVerifier};
use rustls::sign::CertifiedKey;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

/// Reads a PEM certificate chain and private key; one line of cause on failure.
pub fn load_pair(cert: &Path, key: &Path) -> Result<Arc<CertifiedKey>, String> {
    let c = std::fs::read(cert).map_err(|e| format!("cannot read {}: {e}", cert.display()))?;
    let k = std::fs::read(key).map_err(|e| format!("cannot read {}: {e}", key.display()))?;
    pair_of(&c, &k, cert, key)
}

/// The pair in these PEM texts (`cert`, `key`: their files, for messages).
fn pair_of(c: &[u8], k: &[u8], cert: &Path, key: &Path) -> Result<Arc<CertifiedKey>, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(c)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{} is not a PEM certificate chain: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!("{} holds no certificate", cert.display()));
    }
    let key_der = PrivateKeyDer::from_pem_slice(k)
        .map_err(|e| format!("{} is not a PEM private key: {e}", key.display()))?;
    let signing = rustls::crypto::ring::sign::any_supported_type(&key_der)
        .map_err(|e| format!("{} is not a usable private key: {e}", key.display()))?;
    let pair = CertifiedKey::new(chain, signing);
    // A rotation caught between its two writes pairs the new key with the old certificate.
    match pair.keys_match() {
        Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch)) => {
            Err(format!(
                "the private key in {} does not belong to the certificate in {}",
                key.display(),
                cert.display()
            ))
        }
        _ => Ok(Arc::new(pair)),
    }
}

/// What is served, and the files' content it came from.
#[derive(Debug)]
struct Served {
    cert: Vec<u8>,
    key: Vec<u8>,
    pair: Arc<CertifiedKey>,
    /// The files now on disk do not load: why (said once per cause).
    failing: Option<String>,
}

/// The serving certificate, read again when its files' content changes.
#[derive(Debug)]
pub struct ReloadingCert {
    cert: PathBuf,
    key: PathBuf,
    served: RwLock<Served>,
    metrics: Option<Arc<Metrics>>,
}

impl ReloadingCert {
    /// The pair at these paths, read now; reloads are counted in `metrics` when given.
    pub fn new(
        cert: PathBuf,
        key: PathBuf,
        metrics: Option<Arc<Metrics>>,
    ) -> Result<ReloadingCert, String> {
        let c = std::fs::read(&cert).map_err(|e| format!("cannot read {}: {e}", cert.display()))?;
        let k = std::fs::read(&key).map_err(|e| format!("cannot read {}: {e}", key.display()))?;
        let pair = pair_of(&c, &k, &cert, &key)?;
        Ok(ReloadingCert {
            served: RwLock::new(Served {
                cert: c,
                key: k,
                pair,
                failing: None,
            }),
            cert,
            key,
            metrics,
        })
    }

    /// The pair to serve: read again if either file's content changed since it was read.
    pub fn get(&self) -> Arc<CertifiedKey> {
        let read = (std::fs::read(&self.cert), std::fs::read(&self.key));
        let (Ok(c), Ok(k)) = read else {
            let why = match read {
                (Err(e), _) => format!("cannot read {}: {e}", self.cert.display()),
                (_, Err(e)) => format!("cannot read {}: {e}", self.key.display()),
                _ => String::new(),
            };
            return self.failed(why);
        };
        {
            let s = self.served.read().unwrap_or_else(PoisonError::into_inner);
            if s.cert == c && s.key == k && s.failing.is_none() {
                return s.pair.clone();
            }
        }
        {
            // The files hold the pair served again (a failed rotation undone): not failing.
            let mut s = self.served.write().unwrap_or_else(PoisonError::into_inner);
            if s.cert == c && s.key == k {
                s.failing = None;
                if let Some(m) = &self.metrics {
                    m.certificate_failing(false);
                }
                return s.pair.clone();
            }
        }
        match pair_of(&c, &k, &self.cert, &self.key) {
            Ok(pair) => {
                let mut s = self.served.write().unwrap_or_else(PoisonError::into_inner);
                *s = Served {
                    cert: c,
                    key: k,
                    pair: pair.clone(),
                    failing: None,
                };
                eprintln!(
                    "admit: serving the new certificate in {}",
                    self.cert.display()
                );
                if let Some(m) = &self.metrics {
                    m.certificate_reload(true);
                }
                pair
            }
            // Caught half-written, or garbage: the previous pair stays in service; the next
            // handshake tries again.
            Err(why) => self.failed(why),
        }
    }

    /// The files do not load: the pair served so far, the failure said once and counted.
    fn failed(&self, why: String) -> Arc<CertifiedKey> {
        let mut s = self.served.write().unwrap_or_else(PoisonError::into_inner);
        if s.failing.as_deref() != Some(why.as_str()) {
            eprintln!(
                "admit: cannot load the new serving certificate ({}); still serving the previous one",
                super::clip_to(&why, 400)
            );
            if let Some(m) = &self.metrics {
                m.certificate_reload(false);
            }
            s.failing = Some(why);
        }
        s.pair.clone()
    }
}

impl ResolvesServerCert for ReloadingCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.get())
    }
}

/// The TLS configuration serving `cert`; with `client_ca` (PEM), a client may present a
/// certificate it signed (verified in the handshake), which `/validate` then requires.
pub fn tls_config(
    cert: Arc<ReloadingCert>,
    client_ca: Option<&Path>,
) -> Result<Arc<rustls::ServerConfig>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup failed: {e}"))?;
    let cfg = match client_ca {
        None => builder.with_no_client_auth().with_cert_resolver(cert),
        Some(path) => {
            let pem =
                std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let mut roots = rustls::RootCertStore::empty();
            for c in CertificateDer::pem_slice_iter(&pem) {
                let c = c.map_err(|e| format!("{} is not PEM: {e}", path.display()))?;
                roots
                    .add(c)
                    .map_err(|e| format!("{} holds an unusable CA: {e}", path.display()))?;
            }
            if roots.is_empty() {
                return Err(format!("{} holds no CA certificate", path.display()));
            }
            // Optional at the TLS layer: the kubelet's probes and Prometheus present no
            // certificate and may read /healthz and /metrics; /validate refuses them.
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .allow_unauthenticated()
                .build()
                .map_err(|e| format!("{}: {e}", path.display()))?;
            builder
                .with_client_cert_verifier(verifier)
                .with_cert_resolver(cert)
        }
    };
    Ok(Arc::new(cfg))
}
