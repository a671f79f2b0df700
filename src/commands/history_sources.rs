//! `history`'s sources besides the audit log: kube-controller-manager's log
//! (`--controller-manager-log`, `source::controller_log` → `diagnose::controller_log`).

use crate::cli::{GlobalArgs, HistoryArgs};
use crate::diagnose::controller_log::{Builder, LogHistory};
use crate::error::{Error, Result};
use crate::render;
use crate::source::controller_log::{self, LogOptions};

/// Reads `--controller-manager-log` into its history. `alone`: no other source holds an
/// action, so a log that cannot show the GC's work is an error (exit 3), not an empty answer.
pub fn controller_manager_log(
    g: &GlobalArgs,
    args: &HistoryArgs,
    near_us: Option<i64>,
    alone: bool,
) -> Result<(LogHistory, render::history::LogRead)> {
    let mut builder = Builder::default();
    let stats = controller_log::read(
        &LogOptions {
            paths: args.controller_manager_log.clone(),
            max_input_bytes: g.max_input_size,
            year: args.year,
            near_us,
        },
        &mut |r| builder.push(r),
    )?;
    for p in stats.problems.iter().take(20) {
        eprintln!(
            "warning: {}:{}: {}",
            render::text::sanitized(&p.position.source),
            p.position.line,
            render::text::sanitized(&p.cause)
        );
    }
    if stats.no_year > 0 {
        return Err(Error::usage(
            format!(
                "{} line(s) of the controller manager's log have klog times, which hold no year, \
                 and nothing gives one (standard input, no other source)",
                stats.no_year
            ),
            "give --year YYYY (the year of the log's first line), or the log as a file",
        ));
    }
    if alone {
        controller_log::require_work(&stats, &args.controller_manager_log)?;
    }
    let mut log = builder.finish(&stats);
    if stats.max_v < 2 && !alone {
        log.notes.push(
            "the controller-manager log holds no line of the GC's work: it was written below \
             --v=2, where the GC logs none of its deletions"
                .into(),
        );
    }
    if stats.long_lines > 0 {
        log.notes.push(format!(
            "{} line(s) of the controller-manager log longer than 1 MiB were not read",
            stats.long_lines
        ));
    }
    if stats.other_lines > 0 {
        log.notes.push(format!(
            "{} line(s) of other components in the controller-manager log inputs were passed over",
            stats.other_lines
        ));
    }
    let read = render::history::LogRead {
        lines: stats.lines,
        controller_lines: stats.by_kind.values().sum(),
        verbosity: stats.max_v,
    };
    Ok((log, read))
}
