//! Commands: each wires input → analysis → output for one subcommand and returns the exit code.

mod audit;
mod check;
mod collect;
mod filter;
mod findings;
mod fleet;
mod gate;
#[cfg(feature = "testkit")]
mod generate;
mod graph;
mod input;
mod snapshot;

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
        Command::Completion(args) => {
            let mut out = std::io::stdout().lock();
            out.write_all(&crate::cli::complete::completion_script(args.shell))?;
            out.flush()?;
            Ok(exit::OK)
        }
    }
}

/// Writes a report to `sink` (stdout or `--output-file`) as JSON, YAML, or (table/wide) with
/// `table`, which receives the writer, whether `-o wide` was asked for, and the colour
/// decision (never colour in a file). The CI formats are rendered by the commands that
/// report findings; any other command refuses them.
pub(crate) fn emit<T: serde::Serialize>(
    mut sink: crate::render::sink::Sink,
    format: crate::cli::ReportFormat,
    color: crate::cli::ColorChoice,
    report: &T,
    table: impl FnOnce(&mut dyn Write, bool, crate::render::Styles) -> std::io::Result<()>,
) -> Result<()> {
    use crate::cli::ReportFormat;
    let styles = if sink.is_file() {
        crate::render::Styles::plain()
    } else {
        crate::render::Styles::for_stdout(color)
    };
    let out = sink.writer();
    match format {
        ReportFormat::Json => crate::render::write_json(out, report)?,
        ReportFormat::Yaml => crate::render::write_yaml(out, report)?,
        ReportFormat::Table | ReportFormat::Wide => {
            table(out, format == ReportFormat::Wide, styles)?
        }
        ReportFormat::Sarif | ReportFormat::Junit | ReportFormat::Markdown | ReportFormat::Html => {
            return Err(refuse_ci_format(format));
        }
    }
    sink.commit()?;
    Ok(())
}

/// The error for a CI format asked of a command that has no findings.
pub(crate) fn refuse_ci_format(format: crate::cli::ReportFormat) -> crate::error::Error {
    use clap::ValueEnum;
    let name = format
        .to_possible_value()
        .map(|v| v.get_name().to_owned())
        .unwrap_or_default();
    crate::error::Error::usage(
        format!("-o {name} reports findings: this command has none"),
        format!(
            "use it with audit or check (kubectl gc audit -o {name}); here use -o table, wide, json or yaml"
        ),
    )
}

/// Buffered stdout; flushing reports a closed pipe as an error the binary treats as success.
pub(crate) fn stdout() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock())
}
