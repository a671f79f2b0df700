//! Commands: each wires input → analysis → output for one subcommand and returns the exit code.

mod admit;
mod audit;
mod check;
mod check_apply;
mod collect;
pub mod complete;
mod findings;
mod flags;
mod fleet;
mod gate;
#[cfg(feature = "testkit")]
mod generate;
mod graph;
pub mod history;
mod input;
mod mcp;
mod output;
mod permission;
mod policy;
pub mod progress;
mod relink;
mod select;
mod signals;
mod snapshot;
mod watch;
mod why;

pub use input::{Input, Loaded, load};

use crate::cli::{Command, Invocation};
use crate::error::{Result, exit};
use flags::Cmd;
use std::io::Write;

/// Leaves `value` unfreed: for what a command holds when nothing but the process's exit
/// comes after it. A million objects' store, graph and findings are millions of allocations
/// freed one at a time (BENCHMARKS.md, "Figures behind the code"); the OS takes the pages back at once. Never for what a loop over inputs (a fleet's contexts) holds.
fn exiting<T>(value: T) {
    std::mem::forget(value);
}

/// Runs a parsed command line; returns the process exit code.
pub async fn run(invocation: Invocation) -> Result<u8> {
    // Without the `testkit` feature there is only the one variant.
    #[allow(clippy::infallible_destructuring_match)]
    let cli = match invocation {
        Invocation::Cli(cli) => cli,
        #[cfg(feature = "testkit")]
        Invocation::Generate(g) => {
            init_logging(g.global.verbosity);
            return generate::run(&g.global, &g.args).await;
        }
    };
    let g = &cli.global;
    init_logging(g.verbosity);
    match &cli.command {
        Command::Audit(args) => {
            flags::check_global(Cmd::Audit, g)?;
            audit::run(g, args).await
        }
        Command::Collect(args) => {
            // `--apply` on file input is the bigger mistake than a cluster flag beside it.
            if args.apply {
                collect::check_apply_input(g)?;
            }
            flags::check_global(Cmd::Collect, g)?;
            collect::run(g, args).await
        }
        Command::Check(args) => {
            flags::check_global(Cmd::Check(args.what()), g)?;
            check::run(g, args).await
        }
        Command::Snapshot(args) => {
            flags::check_global(Cmd::Snapshot, g)?;
            snapshot::run(g, args).await
        }
        Command::Graph(args) => {
            flags::check_global(
                Cmd::Graph {
                    from_gc: args.from_gc.is_some(),
                },
                g,
            )?;
            graph::run(g, args).await
        }
        Command::Watch(args) => {
            flags::check_global(Cmd::Watch, g)?;
            watch::run(g, args).await
        }
        Command::Admit(args) => {
            // The live graph is watch's: the same flags hold; the configuration reads nothing
            // but the cluster's release, unless --release gives it.
            if args.print_config && args.release.is_some() {
                flags::check_global(Cmd::NoInput("admit --print-config"), g)?;
            } else {
                flags::check_global(Cmd::Watch, g)?;
            }
            admit::run(g, args).await
        }
        Command::Policy(args) => {
            flags::check_global(Cmd::Policy, g)?;
            policy::run(g, args).await
        }
        Command::Relink(args) => {
            flags::check_global(Cmd::Relink, g)?;
            relink::run(g, args).await
        }
        Command::History(args) => {
            flags::check_global(
                Cmd::History {
                    after_cluster: args.after.as_deref() == Some("cluster"),
                    with_state: args.after.is_some()
                        || g.snapshot.is_some()
                        || !g.filename.is_empty(),
                },
                g,
            )?;
            history::run(g, args).await
        }
        Command::Why(args) => {
            flags::check_global(Cmd::Why, g)?;
            why::run(g, args).await
        }
        Command::Mcp(args) => mcp::run(g, args).await,
        Command::Completion(args) => {
            flags::check_global(Cmd::NoInput("completion"), g)?;
            let mut out = std::io::stdout().lock();
            out.write_all(&crate::cli::complete::completion_script(args.shell))?;
            out.flush()?;
            Ok(exit::OK)
        }
        Command::Options => {
            flags::check_global(Cmd::NoInput("options"), g)?;
            let mut out = stdout();
            out.write_all(crate::cli::options_help().as_bytes())?;
            out.flush()?;
            Ok(exit::OK)
        }
        Command::Version(args) => {
            flags::check_global(Cmd::NoInput("version"), g)?;
            version(args.output)
        }
    }
}

/// `kubectl gc version`.
/// `--apply`'s confirmation: none with `--yes`; on a terminal, `prompt` (sanitised; default
/// no); without a terminal, refused. `done` says what did not happen (`applied`, `patched`).
pub(crate) fn confirm(yes: bool, prompt: &str, done: &str) -> Result<()> {
    use std::io::IsTerminal;
    if yes {
        return Ok(());
    }
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Err(crate::error::Error::ApplyStopped {
            message: format!(
                "--apply asks for confirmation, but stdin is not a terminal; nothing was {done}"
            ),
            hint: Some("review the dry run, then add --yes to apply without a prompt".into()),
        });
    }
    match dialoguer::Confirm::new()
        .with_prompt(crate::render::text::sanitized(prompt))
        .default(false)
        .interact()
    {
        Ok(true) => Ok(()),
        Ok(false) => Err(crate::error::Error::ApplyStopped {
            message: format!("not confirmed; nothing was {done}"),
            hint: None,
        }),
        Err(e) => Err(crate::error::Error::ApplyStopped {
            message: format!("cannot ask for confirmation: {e}; nothing was {done}"),
            hint: Some("add --yes to apply without a prompt".into()),
        }),
    }
}

fn version(format: Option<crate::cli::VersionFormat>) -> Result<u8> {
    use crate::cli::VersionFormat;
    match format {
        None => {
            let mut out = stdout();
            writeln!(out, "kubectl-gc {}", crate::build_info::VERSION_LINE)?;
            writeln!(
                out,
                "GC releases modelled: {}",
                crate::catalog::version::supported_range()
            )?;
            out.flush()?;
        }
        Some(f) => output::emit_value(
            &serde_json::json!({
                "apiVersion": crate::build_info::REPORT_API_VERSION,
                "kind": "Version",
                "version": env!("CARGO_PKG_VERSION"),
                "gitCommit": env!("KGC_GIT_COMMIT"),
                "target": env!("KGC_TARGET"),
                "reportApiVersion": crate::build_info::REPORT_API_VERSION,
                "gcReleases": crate::catalog::version::supported_range(),
            }),
            f == VersionFormat::Yaml,
        )?,
    }
    Ok(exit::OK)
}

/// `-v N`: kube-rs logs its requests through `tracing`; print them on stderr, as kubectl's
/// `-v` does: 4 and 5 the client's informational messages, 6 and 7 every request (method, URL,
/// status, latency), 8 and more everything the client libraries log.
fn init_logging(level: Option<u8>) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;
    let Some(level) = level else { return };
    if level >= 4 {
        progress::LOG_STEPS.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    let (ours, libraries) = match level {
        0..=3 => (LevelFilter::WARN, LevelFilter::WARN),
        4..=5 => (LevelFilter::INFO, LevelFilter::WARN),
        6..=7 => (LevelFilter::DEBUG, LevelFilter::WARN),
        _ => (LevelFilter::TRACE, LevelFilter::DEBUG),
    };
    let filter = Targets::new()
        .with_default(libraries)
        .with_target("kube_client", ours)
        .with_target("kube", ours)
        .with_target("kubectl_gc", ours);
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        // From 6 on, a line when each request finishes, with its status and time.
        .with_span_events(if level >= 6 {
            tracing_subscriber::fmt::format::FmtSpan::CLOSE
        } else {
            tracing_subscriber::fmt::format::FmtSpan::NONE
        })
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false);
    // A second call (tests run commands in one process) keeps the first subscriber.
    let _ = tracing_subscriber::registry()
        .with(layer.with_filter(filter))
        .try_init();
}

/// Loads the input (`input::load`) with a spinner while files are read (a live read draws its
/// own counter line), and at `-v 4` and more says what is read.
pub(crate) async fn load_input(
    g: &crate::cli::GlobalArgs,
    list_namespace_only: bool,
) -> Result<Loaded> {
    let files = g.snapshot.is_some() || !g.filename.is_empty();
    if g.verbosity.is_some_and(|v| v >= 4) {
        match (&g.snapshot, files) {
            (Some(p), _) => eprintln!("reading snapshot {}", p.display()),
            (None, true) => eprintln!(
                "reading {}",
                g.filename
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            (None, false) => eprintln!("reading the cluster"),
        }
    }
    let spinner = files.then(|| progress::Spinner::new("reading the input"));
    let loaded = load(g, list_namespace_only).await?;
    drop(spinner);
    // The server's version is text from the cluster or the snapshot file: sanitised.
    if let Some(w) = loaded.version_warning(g) {
        eprintln!("warning: {}", crate::render::text::sanitized(&w));
    }
    Ok(loaded)
}

/// The error for a CI format asked of a command that has no findings.
pub(crate) fn refuse_ci_format(format: crate::cli::ReportFormat) -> crate::error::Error {
    use crate::cli::ReportFormat;
    let name = match format {
        ReportFormat::Sarif => "sarif",
        ReportFormat::Junit => "junit",
        ReportFormat::Markdown => "markdown",
        _ => "html",
    };
    crate::error::Error::usage(
        format!("-o {name} reports findings: this command has none"),
        format!(
            "use it with audit or check (kubectl gc audit -o {name}); here use -o table, wide, json, yaml, name, jsonpath= or custom-columns="
        ),
    )
}

/// Buffered stdout; flushing reports a closed pipe as an error the binary treats as success.
pub(crate) fn stdout() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock())
}
