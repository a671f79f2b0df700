//! `kubectl-gc`: parse, run, map the result to an exit code. Everything else is in the library.

use kubectl_gc::cli::{self, complete};
use std::process::ExitCode;

/// Threads a file or snapshot read starts beside the runtime's workers.
const READER_THREADS: usize = 3;

fn main() -> ExitCode {
    // kubectl's plugin completion (`kubectl_complete-gc` runs `kubectl-gc __complete WORD…`):
    // answered before clap parses, so the words are not taken for our own flags.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == complete::COMMAND) {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(kubectl_gc::commands::complete::complete(&args[2..]).as_bytes());
        return ExitCode::SUCCESS;
    }
    let invocation = match cli::parse(args) {
        Ok(invocation) => invocation,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                kubectl_gc::error::exit::USAGE
            } else {
                0
            });
        }
    };
    // tokio's multi-thread runtime panics (an abort, in release builds) when the OS refuses
    // one of its worker threads: under a pids limit or a tasks quota, one thread runs the
    // command instead, and the readers' own threads fail with an error, not a panic.
    let threads = kubectl_gc::util::threads_to_be_had(
        std::thread::available_parallelism().map_or(1, |n| n.get()) + READER_THREADS,
    );
    let mut builder = if threads {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(kubectl_gc::error::exit::ERROR);
        }
    };
    match runtime.block_on(kubectl_gc::commands::run(invocation)) {
        Ok(code) => ExitCode::from(code),
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            // Messages quote names and file contents: shown sanitised, like all output.
            use kubectl_gc::render::text::sanitize;
            // Line by line: broken input lists one problem per line.
            for (i, line) in e.lines().iter().enumerate() {
                let prefix = if i == 0 { "error: " } else { "" };
                eprintln!("{prefix}{}", sanitize(line));
            }
            if let Some(hint) = e.hint() {
                eprintln!("hint: {}", sanitize(hint));
            }
            ExitCode::from(e.exit_code())
        }
    }
}
