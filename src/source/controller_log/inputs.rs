//! What `--controller-manager-log` reads of the inputs [`crate::input::walk`] finds. A file the
//! user names is always read (and is an error when it is no log); in a directory, an archive or
//! a glob only names that name the controller manager (`kube-controller-manager`, `kcm`: a
//! must-gather's `namespaces/openshift-kube-controller-manager/pods/…/logs/current.log`,
//! `/var/log/pods/kube-system_kube-controller-manager-…/…/0.log`, rotated
//! `kube-controller-manager.log.1.gz`) and archives, whose members are chosen the same way:
//! other components' logs are klog too, and some of their lines would read as the GC's.

use super::envelope::names_controller_manager;
use super::scan::Reader;
use crate::error::{Error, Result};
use crate::input::walk::{Event, Text, Visitor, Walk, Words};
use std::path::PathBuf;

const WORDS: Words = Words {
    not_found: "pass kube-controller-manager's log (a file, rotated or gzipped files, a directory or must-gather holding them), or - for standard input",
    stdin_terminal: (
        "- reads standard input, which is a terminal",
        "pipe the log in: kubectl logs -n kube-system kube-controller-manager-NODE | kubectl gc history --controller-manager-log -",
    ),
    empty_dir: (
        "no file in this directory names the controller manager",
        "name the log files themselves, or pass the directory that holds kube-controller-manager*.log",
    ),
};

/// Reads every input; `max_bytes` caps a stream of unknown length.
pub(super) fn read_all(paths: &[PathBuf], max_bytes: u64, reader: &mut Reader<'_>) -> Result<()> {
    let walk = Walk {
        recursive: true,
        max_bytes,
        words: &WORDS,
    };
    walk.read_paths(paths, reader)
}

/// Archive names, whose members are chosen by theirs.
fn is_archive(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        ".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.zst", ".zip",
    ]
    .iter()
    .any(|s| n.ends_with(s))
}

impl Visitor for Reader<'_> {
    fn candidate(&self, name: &str) -> bool {
        names_controller_manager(name) || is_archive(name)
    }

    fn map_from(&self) -> Option<u64> {
        Some(1 << 20)
    }

    fn map(&self, head: &[u8]) -> bool {
        // JSON documents and YAML are streamed through serde, not scanned.
        let t = head.trim_ascii_start();
        !(t.starts_with(b"[") || t.starts_with(b"---"))
    }

    fn text(&mut self, text: Text<'_>) -> Result<()> {
        let modified = if text.source.member {
            None
        } else {
            std::fs::metadata(text.name)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .and_then(|d| i64::try_from(d.as_micros()).ok())
        };
        match self.read(text.name, text.head, text.map, text.r, modified) {
            Ok(()) => Ok(()),
            Err(cause) if text.source.explicit && !text.source.member => Err(Error::input(
                text.name,
                cause,
                Some(
                    "give kube-controller-manager's log: `kubectl logs -n kube-system \
                     kube-controller-manager-NODE`, its journald unit, or a Cloud Logging or \
                     CloudWatch export of it"
                        .to_owned(),
                ),
            )),
            Err(_) => {
                if self.stats.skipped_inputs.len() < 1000 {
                    self.stats.skipped_inputs.push(text.name.to_owned());
                }
                Ok(())
            }
        }
    }

    fn event(&mut self, event: Event<'_>) -> Result<()> {
        match event {
            Event::Problem(name, problem) => {
                let cause = problem.cause();
                self.problem_in(name, cause);
            }
            Event::Ignored(_) => self.stats.ignored_inputs += 1,
            Event::Special(_) | Event::Archive(_) => {}
        }
        Ok(())
    }
}

impl Reader<'_> {
    fn problem_in(&mut self, name: &str, cause: String) {
        self.stats.problem(name, 0, cause);
    }
}
