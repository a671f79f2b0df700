//! What `-f` reads of the inputs [`crate::input::walk`] finds, and how: the names it opens in
//! a walk (`.json`, `.yaml`, `.yml`, optionally compressed, and archives), which files it maps,
//! and each input's text recognised as JSON (when it starts with `{` or `[`) or YAML.

use super::accounting::Loc;
use super::coverage::Hole;
use super::recognize::Reader;
use super::{json, yaml};
use crate::error::{Error, Result};
use crate::input::walk::{Event, Problem, Source, Text, Visitor, Walk, Words};
use crate::snapshot::format::looks_like_snapshot;
use std::io::{BufReader, Read};
use std::path::Path;

const TEXT_EXTENSIONS: [&str; 3] = ["json", "yaml", "yml"];
const COMPRESSED: [&str; 3] = ["gz", "xz", "zst"];
const ARCHIVES: [&str; 8] = [
    ".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.zst", ".tzst", ".zip",
];

/// True for names kubectl-gc reads in a walk (`x.yaml`, `x.json.gz`, `bundle.tar.gz`, …).
pub(crate) fn is_candidate(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    if ARCHIVES.iter().any(|a| name.ends_with(a)) {
        return true;
    }
    let base = COMPRESSED
        .iter()
        .find_map(|c| name.strip_suffix(&format!(".{c}")))
        .unwrap_or(&name);
    let file = base.rsplit('/').next().unwrap_or(base);
    TEXT_EXTENSIONS
        .iter()
        .any(|ext| file.len() > ext.len() + 1 && file.ends_with(&format!(".{ext}")))
}

/// `-f`'s words for the walk's fatal errors.
const WORDS: Words = Words {
    not_found: "pass files or directories holding `kubectl get -o json|yaml` output, or - for standard input",
    stdin_terminal: (
        "-f - reads standard input, which is a terminal",
        "pipe kubectl output in: kubectl get pods -A -o json | kubectl gc audit -f -",
    ),
    empty_dir: (
        "no .json, .yaml or .yml file or archive in this directory",
        "kubectl-gc reads .json, .yaml and .yml files (optionally compressed: .gz, .xz, .zst) and archives (.tar, .tar.gz, .tgz, .tar.xz, .zip)",
    ),
};

/// The walk `-f` makes with `reader`'s options.
fn walk_of(reader: &Reader<'_>) -> Walk<'static> {
    Walk {
        recursive: reader.opts.recursive,
        max_bytes: reader.opts.max_input_bytes,
        words: &WORDS,
    }
}

/// Reads one path given with `-f` (`-` unless `stdin_read`).
pub(crate) fn read_path(path: &Path, reader: &mut Reader<'_>, stdin_read: &mut bool) -> Result<()> {
    walk_of(reader).read_path(path, reader, stdin_read)
}

/// Reads a stream the user gave (standard input, bytes in memory).
pub(crate) fn read_stream(
    name: &str,
    r: &mut dyn Read,
    source: Source,
    reader: &mut Reader<'_>,
) -> Result<()> {
    walk_of(reader).read_stream(name, r, source, reader)
}

/// Regular files of JSON text at least this large are read through a memory map; smaller ones
/// fit the stream's first read.
#[cfg(not(test))]
pub(crate) const MAP_FROM: u64 = 1 << 20;
/// Every JSON file in tests, so that every test that reads one takes that path.
#[cfg(test)]
pub(crate) const MAP_FROM: u64 = 1;

/// Whether text starting with `head` is read as JSON: its first byte after a byte-order mark
/// and whitespace opens an object or an array.
fn starts_as_json(head: &[u8]) -> bool {
    let start = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
    matches!(
        start.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{') | Some(b'[')
    )
}

impl Visitor for Reader<'_> {
    fn candidate(&self, name: &str) -> bool {
        is_candidate(name)
    }

    /// Only JSON is mapped: its reader hands the pages it has parsed back to the kernel as it
    /// goes ([`json::read_mapped`]), so that the process holds the objects' metadata, not the
    /// file; the YAML reader would keep every page it touched. (A snapshot starts as JSON
    /// too; [`Visitor::text`] tells it apart as for a stream.)
    fn map_from(&self) -> Option<u64> {
        Some(MAP_FROM)
    }

    fn map(&self, head: &[u8]) -> bool {
        starts_as_json(head)
    }

    fn text(&mut self, text: Text<'_>) -> Result<()> {
        let Text {
            name,
            source,
            head,
            map,
            r,
        } = text;
        let reader = self;
        if head.is_empty() {
            if source.explicit {
                reader.broken(
                    &Loc::file(name),
                    if name == "<stdin>" {
                        "empty input (standard input is empty or closed)"
                    } else {
                        "empty input"
                    },
                    Hole::Everything,
                );
            } else {
                reader.stats.ignore("empty file");
            }
            return Ok(());
        }
        if looks_like_snapshot(head) {
            if source.explicit {
                return Err(Error::input(
                    name,
                    "this is a kubectl-gc snapshot, not kubectl output; it cannot be combined with other inputs",
                    Some("read it alone: --snapshot FILE, or -f FILE with no other -f".into()),
                ));
            }
            reader
                .stats
                .ignore("a kubectl-gc snapshot (read it with --snapshot FILE)");
            reader.skipped.push(crate::snapshot::Skipped {
                source: name.to_owned(),
                reason: "a kubectl-gc snapshot (read it with --snapshot FILE)".into(),
            });
            return Ok(());
        }
        reader.stats.files += 1;
        // Lines of manifests name a file of the repository only outside archives.
        reader.track_lines = reader.opts.manifests && !source.member;
        let result = if starts_as_json(head) {
            reader.input_size(source.size);
            let read = match map {
                Some(map) => json::read_mapped(name, map, reader),
                None => json::read(name, r, reader),
            };
            reader.input_size(None);
            match read {
                Ok(json::Outcome::Done) => Ok(()),
                Ok(json::Outcome::NotJson(start, json_problem)) => {
                    let (objects, problems) = (reader.stats.objects, reader.problems.len());
                    let mut chained = BufReader::new(std::io::Cursor::new(start).chain(r));
                    let r = yaml::read(name, &mut chained, reader);
                    // Not YAML either: the JSON parser's message is the one that helps.
                    if reader.stats.objects == objects && reader.problems.len() > problems {
                        while reader.problems.len() > problems {
                            reader.unrecord_last();
                        }
                        reader.rerecord(json_problem, Hole::Everything);
                    }
                    r
                }
                Err(e) => Err(e),
            }
        } else {
            yaml::read(name, r, reader)
        };
        match result {
            Ok(()) => Ok(()),
            Err(e) => io_problem(name, e, reader),
        }
    }

    fn event(&mut self, event: Event<'_>) -> Result<()> {
        match event {
            Event::Problem(name, Problem::Read(e)) => {
                if let Some(refused) = crate::util::ThreadRefused::of(&e) {
                    // Not a fault of this input, and no input after it can be read either:
                    // the run stops.
                    return Err(Error::thread_refused(name, format!("not read: {refused}")));
                }
                self.broken(&Loc::file(name), Problem::Read(e).cause(), Hole::Everything)
            }
            Event::Problem(name, problem) => {
                self.broken(&Loc::file(name), problem.cause(), Hole::Everything)
            }
            Event::Ignored(_) => self.stats.files_ignored += 1,
            Event::Special(_) => {
                self.stats.special_files += 1;
                self.stats
                    .ignore("not a regular file (FIFO, socket or device)");
            }
            Event::Archive(_) => self.stats.archives += 1,
        }
        Ok(())
    }
}

/// An I/O error while parsing an input (a corrupt compressed file, a cap exceeded, a vanished
/// file): broken input; everything is unknown (what was lost cannot be told).
fn io_problem(name: &str, e: std::io::Error, reader: &mut Reader<'_>) -> Result<()> {
    reader.event(Event::Problem(name, Problem::Read(e)))
}
