//! What `--audit-log` reads of the inputs [`crate::input::walk`] finds: every file of a
//! directory (recursively), an archive or a glob, whatever its name, since what is an audit
//! log is told by its content ([`super::read_text`]); files that are not (a must-gather's
//! `*.audit_logs_listing`, YAML, another kind of JSON) are passed over there and named in
//! [`super::super::ReadStats::skipped_inputs`]; an input the user named is always read.

use super::Ctx;
use crate::error::Result;
use crate::input::walk::{Event, Text, Visitor, Walk, Words};
use std::path::PathBuf;

/// `--audit-log`'s words for the walk's fatal errors.
const WORDS: Words = Words {
    not_found: "pass audit log files (plain or gzipped), directories of them, or - for standard input",
    stdin_terminal: (
        "- reads standard input, which is a terminal",
        "pipe the audit log in: zcat audit.log.gz | kubectl gc … -",
    ),
    empty_dir: (
        "no file in this directory",
        "pass the directory that holds the audit logs (audit.log, audit-*.log.gz)",
    ),
};

/// Reads every input; `max_bytes` caps what is read from a stream of unknown length.
pub(in super::super) fn read_all(paths: &[PathBuf], max_bytes: u64, ctx: &mut Ctx) -> Result<()> {
    let walk = Walk {
        recursive: true,
        max_bytes,
        words: &WORDS,
    };
    walk.read_paths(paths, ctx)
}

impl Visitor for Ctx<'_> {
    fn candidate(&self, _name: &str) -> bool {
        true
    }

    fn text(&mut self, text: Text<'_>) -> Result<()> {
        super::read_text(self, text.name, text.r, !text.source.explicit);
        Ok(())
    }

    fn event(&mut self, event: Event<'_>) -> Result<()> {
        if let Event::Problem(name, problem) = event {
            self.problem_in(name, 0, || problem.cause());
        }
        Ok(())
    }
}
