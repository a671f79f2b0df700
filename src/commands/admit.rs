//! `kubectl gc admit`: the watch's live graph, and the webhook server reading it.

use super::input::connect_options;
use crate::admit::graph::{Graph, Writer};
use crate::admit::server::{App, Limits};
use crate::admit::tls::ReloadingCert;
use crate::admit::{Mode, Policy};
use crate::catalog::KubeVersion;
use crate::cli::{AdmitArgs, AdmitMode, GlobalArgs};
use crate::error::{Error, Result, exit};
use crate::watch::Transition;
use crate::watch::run::{Config, Sink};
use std::io::IsTerminal;
use std::sync::Arc;

/// The watch's transitions are not admit's output: only its notices are shown.
struct Quiet {
    progress: bool,
}

impl Sink for Quiet {
    fn transition(&mut self, _: &Transition) -> std::io::Result<bool> {
        Ok(true)
    }

    fn notice(&mut self, text: &str) {
        eprintln!("admit: {}", crate::render::watch::sanitize(text));
    }

    fn progress(&mut self, text: &str) {
        if self.progress {
            eprintln!("admit: {}", crate::render::watch::sanitize(text));
        }
    }
}

/// The namespace never judged unless `--only-namespace` names it: the control plane's own
/// (upstream's webhook good practices keep webhooks out of it).
const KUBE_SYSTEM: &str = "kube-system";

fn policy(args: &AdmitArgs) -> Policy {
    let mut exclude_namespaces = args.skip_namespaces.clone();
    let named = |ns: &[String]| ns.iter().any(|n| n == KUBE_SYSTEM);
    if !named(&args.only_namespaces) && !named(&exclude_namespaces) {
        exclude_namespaces.push(KUBE_SYSTEM.to_owned());
    }
    Policy {
        mode: match args.mode {
            AdmitMode::Warn => Mode::Warn,
            AdmitMode::Deny => Mode::Deny,
        },
        namespaces: args.only_namespaces.clone(),
        exclude_namespaces,
    }
}

/// `timeoutSeconds` of the configuration: the answer's own deadline, rounded up, plus a
/// second for the round trip.
fn timeout_seconds(args: &AdmitArgs) -> u32 {
    let own = args.timeout.as_secs_f64().ceil() as u32;
    (own + 1).clamp(1, 30)
}

/// The release the configuration is for: `--release`, else the connected cluster's.
async fn target_release(g: &GlobalArgs, args: &AdmitArgs) -> Result<KubeVersion> {
    if let Some(v) = args.release {
        return Ok(v);
    }
    let hint = "give the release it is for with --release X.Y (e.g. --release 1.30)";
    let conn = crate::source::live::connect(&connect_options(g))
        .await
        .map_err(|e| {
            Error::usage(
                format!(
                    "--print-config writes the configuration for the cluster's release, and the \
                     cluster cannot be asked: {}",
                    crate::error::one_line(&e.to_string())
                ),
                hint,
            )
        })?;
    conn.server_version
        .as_deref()
        .and_then(KubeVersion::parse)
        .ok_or_else(|| Error::usage("the cluster did not say which release it runs", hint))
}

async fn print_config(g: &GlobalArgs, args: &AdmitArgs) -> Result<u8> {
    let (Some(url), Some(ca_file)) = (&args.url, &args.ca_file) else {
        return Err(Error::usage(
            "--print-config needs --url and --ca-file",
            "add --url https://HOST:PORT/validate --ca-file ca.crt",
        ));
    };
    if !url.starts_with("https://") {
        return Err(Error::usage(
            format!(
                "the webhook URL must start with https:// (got {:?})",
                crate::admit::clip(url)
            ),
            "the API server calls webhooks over TLS only: --url https://HOST:PORT/validate",
        ));
    }
    let ca = std::fs::read(ca_file)
        .map_err(|e| Error::input(ca_file, format!("cannot read the CA file: {e}"), None))?;
    if !ca.starts_with(b"-----BEGIN") {
        return Err(Error::input(
            ca_file,
            "not a PEM certificate",
            Some("give the CA certificate that signed the serving certificate, in PEM".into()),
        ));
    }
    let release = target_release(g, args).await?;
    let policy = policy(args);
    let value = crate::admit::config::webhook_configuration(
        url,
        &ca,
        &policy,
        timeout_seconds(args),
        release,
    );
    let text = serde_saphyr::to_string(&value).map_err(|e| Error::Usage {
        message: format!("cannot write the configuration: {e}"),
        hint: None,
    })?;
    print!("{}{text}", crate::admit::config::header(release, &policy));
    Ok(exit::OK)
}

pub async fn run(g: &GlobalArgs, args: &AdmitArgs) -> Result<u8> {
    if args.print_config {
        return print_config(g, args).await;
    }
    let (Some(cert), Some(key)) = (&args.tls_cert_file, &args.tls_private_key_file) else {
        return Err(Error::usage(
            "admit serves HTTPS and needs --tls-cert-file and --tls-private-key-file",
            "give the serving certificate and key (PEM), or --print-config to print the configuration",
        ));
    };
    if g.snapshot.is_some() || !g.filename.is_empty() {
        return Err(Error::usage(
            "admit reads a live cluster, not a snapshot or files",
            "drop --snapshot/-f",
        ));
    }
    if args.timeout < std::time::Duration::from_millis(10)
        || args.timeout > std::time::Duration::from_secs(29)
    {
        return Err(Error::usage(
            "--timeout must be between 10ms and 29s",
            "the API server waits at most 30s for a webhook; a few seconds is usual",
        ));
    }
    let metrics = Arc::new(crate::admit::metrics::Metrics::new());
    let reloading =
        ReloadingCert::new(cert.clone(), key.clone(), Some(metrics.clone())).map_err(|why| {
            Error::input(
                cert,
                why,
                Some("give a PEM certificate chain and its PEM private key".into()),
            )
        })?;
    let client_ca = args.client_ca_file.as_deref();
    let tls = crate::admit::tls::tls_config(Arc::new(reloading), client_ca).map_err(|why| {
        Error::input(
            client_ca.unwrap_or(cert),
            why,
            Some("give the CA (PEM) that signed the API server's client certificate".into()),
        )
    })?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| {
            Error::usage(
                format!("cannot listen on {}: {e}", args.listen),
                "choose another --listen (host:port)",
            )
        })?;
    // The GC watches every namespace; so does the graph the checks read.
    let mut opts = connect_options(g);
    opts.namespace = None;
    let conn = crate::source::live::connect(&opts).await?;
    let cfg = Config {
        gc_version: g.gc_version,
        concurrency: usize::from(g.concurrency),
        page_size: g
            .chunk_size
            .unwrap_or(crate::source::live::DEFAULT_PAGE_SIZE),
        ..Config::default()
    };
    let graph = Arc::new(Graph::default());
    let mut app = App::new(
        policy(args),
        metrics.clone(),
        graph.clone(),
        Limits {
            timeout: args.timeout,
            max_checks: args.max_in_flight,
            max_connections: args.max_connections,
            ..Limits::default()
        },
    );
    app.client_auth = client_ca.is_some();
    if args.check_permissions {
        app.authorizer = Some(super::permission::webhook_authorizer(&conn));
    }
    let server = tokio::spawn(crate::admit::conns::serve(
        listener,
        Some(tls),
        Arc::new(app),
    ));
    let mut sink = Quiet {
        progress: std::io::stderr().is_terminal(),
    };
    eprintln!("admit: serving https://{}/validate", args.listen);
    if client_ca.is_none() {
        eprintln!(
            "admit: without --client-ca-file anyone who reaches the port is answered (and learns \
             which owners exist where): limit it to the API server"
        );
    }
    let watched = graph.clone();
    let mark = tokio::spawn(async move {
        while !watched.is_synced() {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        metrics.set_synced();
        eprintln!("admit: the graph has synced; checking writes");
    });
    let result = crate::watch::run::run_model(
        &conn,
        &cfg,
        &mut sink,
        super::watch::stop_signal(),
        |snap, version| Writer::new(graph, snap, version),
    )
    .await;
    server.abort();
    mark.abort();
    result.map(|_| exit::OK)
}
