//! `kubectl gc watch`.

use super::input::connect_options;
use crate::cli::{FailOn, GlobalArgs, WatchArgs, WatchFormat};
use crate::error::{Error, Result, exit};
use crate::render::{Styles, watch as view};
use crate::watch::run::{Config, Exit, Sink};
use crate::watch::{Transition, TransitionKind};
use std::io::{IsTerminal, Write};

/// Writes transitions to stdout (flushed line by line: an alert must not wait in a buffer)
/// and notices to stderr.
struct Out {
    format: WatchFormat,
    styles: Styles,
    fail_on: FailOn,
    namespace: Option<String>,
    failed: bool,
    /// stderr is a terminal.
    progress: bool,
}

impl Sink for Out {
    fn transition(&mut self, t: &Transition) -> std::io::Result<bool> {
        if let Some(ns) = &self.namespace
            && t.finding
                .object
                .as_ref()
                .is_some_and(|o| &o.namespace != ns)
        {
            return Ok(true);
        }
        let mut out = std::io::stdout().lock();
        match self.format {
            WatchFormat::Json => view::write_json_line(&mut out, t)?,
            WatchFormat::Text => view::write_line(&mut out, t, self.styles)?,
        }
        out.flush()?;
        if let FailOn::At(min) = self.fail_on
            && t.kind != TransitionKind::Resolved
            && t.finding.severity >= min
        {
            self.failed = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn notice(&mut self, text: &str) {
        eprintln!("watch: {}", view::sanitize(text));
    }

    fn progress(&mut self, text: &str) {
        if self.progress {
            eprintln!("watch: {}", view::sanitize(text));
        }
    }
}

/// SIGINT or SIGTERM (a Deployment's pod is stopped with SIGTERM).
pub(super) async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

pub async fn run(g: &GlobalArgs, args: &WatchArgs) -> Result<u8> {
    if g.snapshot.is_some() || !g.filename.is_empty() {
        return Err(Error::usage(
            "watch reads a live cluster, not a snapshot or files",
            "drop --snapshot/-f (audit and check read those)",
        ));
    }
    if args.resync < std::time::Duration::from_secs(1) {
        return Err(Error::usage(
            "--resync must be at least 1s",
            "the GC itself resyncs every 30s",
        ));
    }
    // The GC watches every namespace; `-n` only narrows what is printed.
    let mut opts = connect_options(g);
    opts.namespace = None;
    let conn = crate::source::live::connect(&opts).await?;
    let cfg = Config {
        gc_version: g.gc_version,
        concurrency: usize::from(g.concurrency),
        page_size: g
            .chunk_size
            .unwrap_or(crate::source::live::DEFAULT_PAGE_SIZE),
        resync: args.resync,
        metrics_addr: args.metrics_addr,
        state_file: args.state_file.clone(),
        ..Config::default()
    };
    let mut out = Out {
        format: args.output,
        styles: Styles::for_stdout(g.color),
        fail_on: args.fail_on,
        namespace: g.namespace.clone().filter(|_| !g.all_namespaces),
        failed: false,
        progress: std::io::stderr().is_terminal(),
    };
    match crate::watch::run::run(&conn, &cfg, &mut out, stop_signal()).await? {
        Exit::SinkStopped if out.failed => Ok(exit::FINDINGS),
        Exit::SinkStopped | Exit::Stopped => Ok(exit::OK),
    }
}
