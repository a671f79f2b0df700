//! `kubectl gc admit`: the watch's live graph, and the webhook server reading it.

use super::input::connect_options;
use crate::admit::server::{App, Limits, ReloadingCert};
use crate::admit::{Mode, Policy};
use crate::cli::{AdmitArgs, AdmitMode, GlobalArgs};
use crate::error::{Error, Result, exit};
use crate::watch::Transition;
use crate::watch::run::{Config, Serving, Sink};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

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

fn policy(args: &AdmitArgs) -> Policy {
    Policy {
        mode: match args.mode {
            AdmitMode::Warn => Mode::Warn,
            AdmitMode::Deny => Mode::Deny,
        },
        namespaces: args.only_namespaces.clone(),
        exclude_namespaces: args.skip_namespaces.clone(),
    }
}

/// `timeoutSeconds` of the configuration: the answer's own deadline, rounded up, plus a
/// second for the round trip.
fn timeout_seconds(args: &AdmitArgs) -> u32 {
    let own = args.timeout.as_secs_f64().ceil() as u32;
    (own + 1).clamp(1, 30)
}

fn print_config(args: &AdmitArgs) -> Result<u8> {
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
    let value =
        crate::admit::config::webhook_configuration(url, &ca, &policy(args), timeout_seconds(args));
    let text = serde_saphyr::to_string(&value).map_err(|e| Error::Usage {
        message: format!("cannot write the configuration: {e}"),
        hint: None,
    })?;
    print!("{text}");
    Ok(exit::OK)
}

pub async fn run(g: &GlobalArgs, args: &AdmitArgs) -> Result<u8> {
    if args.print_config {
        return print_config(args);
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
    let reloading = ReloadingCert::new(cert.clone(), key.clone()).map_err(|why| {
        Error::input(
            cert,
            why,
            Some("give a PEM certificate chain and its PEM private key".into()),
        )
    })?;
    let tls =
        crate::admit::server::tls_config(Arc::new(reloading)).map_err(|why| Error::Usage {
            message: why,
            hint: None,
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
    let synced = Arc::new(AtomicBool::new(false));
    let (tx, rx) = tokio::sync::mpsc::channel(args.max_in_flight.max(1));
    let metrics = Arc::new(crate::admit::metrics::Metrics::new());
    let app = Arc::new(App::new(
        policy(args),
        metrics.clone(),
        synced.clone(),
        tx,
        Limits {
            timeout: args.timeout,
            max_checks: args.max_in_flight,
            ..Limits::default()
        },
    ));
    let server = tokio::spawn(crate::admit::server::serve(listener, Some(tls), app));
    let mut sink = Quiet {
        progress: std::io::stderr().is_terminal(),
    };
    eprintln!("admit: serving https://{}/validate", args.listen);
    let watch_synced = synced.clone();
    let mark = tokio::spawn(async move {
        while !watch_synced.load(std::sync::atomic::Ordering::Acquire) {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        metrics.set_synced();
        eprintln!("admit: the graph has synced; checking writes");
    });
    let serving = Serving {
        queries: rx,
        synced,
    };
    let result = crate::watch::run::run_serving(
        &conn,
        &cfg,
        &mut sink,
        super::watch::stop_signal(),
        Some(serving),
    )
    .await;
    server.abort();
    mark.abort();
    result.map(|_| exit::OK)
}
