//! Commands: each wires input → analysis → output for one subcommand and returns the exit code.

mod audit;
mod check;
mod collect;
mod filter;
mod gate;
#[cfg(feature = "testkit")]
mod generate;
mod graph;
mod input;
mod snapshot;
mod watch;

pub use input::{Input, Loaded, load};

use crate::cli::{Command, Invocation};
use crate::error::{Result, exit};
use std::io::Write;

/// Runs a parsed command line; returns the process exit code.
pub async fn run(invocation: Invocation) -> Result<u8> {
    // Without the `testkit` feature there is only the one variant.
    #[allow(clippy::infallible_destructuring_match)]
    let cli = match invocation {
        Invocation::Cli(cli) => cli,
        #[cfg(feature = "testkit")]
        Invocation::Generate(g) => return generate::run(&g.global, &g.args).await,
    };
    match &cli.command {
        Command::Audit(args) => audit::run(&cli.global, args).await,
        Command::Collect(args) => collect::run(&cli.global, args).await,
        Command::Check(args) => check::run(&cli.global, args).await,
        Command::Snapshot(args) => snapshot::run(&cli.global, args).await,
        Command::Graph(args) => graph::run(&cli.global, args).await,
        Command::Watch(args) => watch::run(&cli.global, args).await,
        Command::Completion(args) => {
            let mut out = std::io::stdout().lock();
            out.write_all(&crate::cli::complete::completion_script(args.shell))?;
            out.flush()?;
            Ok(exit::OK)
        }
    }
}

/// Prints a report to stdout as JSON, YAML, or (table/wide) with `table`, which receives the
/// writer, whether `-o wide` was asked for, and the colour decision.
pub(crate) fn emit<T: serde::Serialize>(
    format: crate::cli::ReportFormat,
    color: crate::cli::ColorChoice,
    report: &T,
    table: impl FnOnce(&mut dyn Write, bool, crate::render::Styles) -> std::io::Result<()>,
) -> Result<()> {
    use crate::cli::ReportFormat;
    let mut out = stdout();
    match format {
        ReportFormat::Json => crate::render::write_json(&mut out, report)?,
        ReportFormat::Yaml => crate::render::write_yaml(&mut out, report)?,
        ReportFormat::Table | ReportFormat::Wide => table(
            &mut out,
            format == ReportFormat::Wide,
            crate::render::Styles::for_stdout(color),
        )?,
    }
    out.flush()?;
    Ok(())
}

/// Buffered stdout; flushing reports a closed pipe as an error the binary treats as success.
pub(crate) fn stdout() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock())
}
