//! Snapshots from files: `kubectl get -o json|yaml` output, support bundles and must-gathers
//! (directories, archives, compressed files), read like `kubectl ... -f PATH` reads its inputs.
//!
//! The pipeline, one module each:
//!
//! 1. [`walk`] — paths, directory walks, standard input, decompression (gzip, xz, zstd) and
//!    archives (tar, zip, nested), all streamed and bounded;
//! 2. [`json`] and [`yaml`] — documents split and parsed without building value trees
//!    ([`doc`]: typed visitors that keep only what kubectl-gc needs; [`meta`] reads
//!    `metadata` strictly, [`hints`] the rest leniently; [`item_scan`] reads the usual item
//!    of a big list in one pass and leaves any other to them);
//! 3. [`recognize`] — what each document is (object, list, discovery document, version
//!    report) and what it adds; objects go to a second thread that interns them into the
//!    store while parsing goes on;
//! 4. [`coverage`] and [`resources`] — which kinds count as held where, and the resource
//!    table;
//! 5. [`accounting`] — every document is read, ignored as not a Kubernetes object (counted,
//!    with the reason), or broken (reported: file, document, offset or line, cause).
//!
//! Broken input is an error (exit code 3) unless [`FileOptions::keep_going`] is set; then
//! everything a broken document could have held is unknown, never absent. Input without any
//! object is an error too.

pub(crate) mod accounting;
pub(crate) mod coverage;
pub(crate) mod doc;
pub(crate) mod hints;
pub(crate) mod item_scan;
pub(crate) mod json;
pub(crate) mod meta;
pub mod origin;
pub(crate) mod recognize;
pub(crate) mod resources;
pub(crate) mod text;
pub(crate) mod yaml;

#[cfg(test)]
mod tests;

pub use accounting::{FileStats, Problem};
pub use origin::{DuplicateCopy, Origin, Origins};

use crate::error::{Error, Result};
use crate::model::{Added, Batch, Store};
use crate::snapshot::{Provenance, Snapshot, SnapshotBuilder, SourceKind, format, now_rfc3339};
use recognize::{Reader, Sink};
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

/// The `json_item` fuzz target's check: where the one-pass list-item scanner reads `text`, the
/// parser reads the same object from it (panics otherwise). Built only under `cargo fuzz`.
#[cfg(fuzzing)]
pub fn item_scan_agrees(text: &str) {
    let mut fast = doc::Doc::default();
    let Some(n) = item_scan::element(text, &mut fast, &mut item_scan::Spare::default()) else {
        return;
    };
    let mut slow = doc::Doc::default();
    let (object, m) = json::parse_element(text, &mut slow)
        .unwrap_or_else(|e| panic!("the scanner read {text:?}; the parser failed: {e}"));
    assert!(object, "{text:?}");
    assert_eq!(n, m, "length of {text:?}");
    assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{text:?}");
}

pub use crate::input::walk::DEFAULT_MAX_INPUT_BYTES;

/// What to read, and how.
#[derive(Clone, Debug)]
pub struct FileOptions {
    /// Files, directories and archives; `-` is standard input.
    pub paths: Vec<PathBuf>,
    /// Walk directories recursively (otherwise only their direct files). Archives are always
    /// read whole.
    pub recursive: bool,
    /// Go on past broken input (reported; what it could hold becomes unknown) instead of
    /// failing.
    pub keep_going: bool,
    /// The user declares the input complete: every kind it holds counts as held in every
    /// namespace it holds.
    pub assume_complete: bool,
    /// At most this many bytes from one decompressed stream or pipe.
    pub max_input_bytes: u64,
    /// The input is manifests to be created (`check apply`): an object without
    /// `metadata.uid` — as people write them — is read with a UID of its own (unique, and
    /// recognisable: `kgc-manifest-N`) instead of being skipped.
    pub manifests: bool,
}

impl Default for FileOptions {
    fn default() -> Self {
        FileOptions {
            paths: Vec::new(),
            recursive: false,
            keep_going: false,
            assume_complete: false,
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            manifests: false,
        }
    }
}

/// Reads every path and builds a snapshot.
pub fn read_files(opts: &FileOptions) -> Result<Snapshot> {
    read_files_with_stats(opts).map(|(snap, _)| snap)
}

/// [`read_files`], also returning the counters.
///
/// A lone input that is a kubectl-gc snapshot (a file, or standard input) is read as one.
pub fn read_files_with_stats(opts: &FileOptions) -> Result<(Snapshot, FileStats)> {
    read_files_reporting(opts).map(|(s, st, _)| (s, st))
}

/// [`read_files_with_stats`], also returning the broken documents that were skipped
/// ([`FileOptions::keep_going`]).
pub fn read_files_reporting(opts: &FileOptions) -> Result<(Snapshot, FileStats, Vec<Problem>)> {
    read_files_with_origins(opts).map(|(s, st, p, _)| (s, st, p))
}

/// [`read_files_reporting`], also returning where each object came from (recorded with
/// [`FileOptions::manifests`]; empty otherwise, and for a lone snapshot file).
pub fn read_files_with_origins(
    opts: &FileOptions,
) -> Result<(Snapshot, FileStats, Vec<Problem>, origin::Origins)> {
    if opts.paths.is_empty() {
        return Err(Error::usage(
            "no input files",
            "pass -f FILE, -f DIR or -f - (standard input)",
        ));
    }
    let mut stdin: Option<Box<dyn Read + Send>> = None;
    if let [only] = opts.paths.as_slice() {
        if only.as_os_str() == "-" {
            let mut r = BufReader::with_capacity(1 << 16, std::io::stdin());
            if starts_like_snapshot(&mut r) {
                return format::read_from("<stdin>", r)
                    .map(|(s, _)| (s, FileStats::default(), Vec::new(), Default::default()));
            }
            stdin = Some(Box::new(r));
        } else if std::fs::metadata(only).is_ok_and(|m| m.is_file())
            && std::fs::File::open(only)
                .map(|f| starts_like_snapshot(&mut BufReader::new(f)))
                .unwrap_or(false)
        {
            return format::read_file(only)
                .map(|s| (s, FileStats::default(), Vec::new(), Default::default()));
        }
    }
    let (snapshot, stats, problems, origins) = run(opts, |reader| {
        let mut stdin_read = false;
        for p in &opts.paths {
            if p.as_os_str() == "-" {
                if std::mem::replace(&mut stdin_read, true) {
                    continue;
                }
                match stdin.take() {
                    Some(mut r) => {
                        let source = crate::input::walk::Source::named(None);
                        text::read_stream("<stdin>", &mut r, source, reader)?;
                    }
                    None => text::read_path(p, reader, &mut false)?,
                }
            } else {
                text::read_path(p, reader, &mut stdin_read)?;
            }
        }
        Ok(())
    })?;
    check(opts, &snapshot, &stats, &problems)?;
    Ok((snapshot, stats, problems, origins))
}

/// Reads one in-memory input (tests, fuzzing): like `-f` of a file holding `bytes`, without
/// the final checks (broken input and empty input are in the returned problems).
pub fn read_bytes(
    name: &str,
    bytes: &[u8],
    opts: &FileOptions,
) -> Result<(Snapshot, FileStats, Vec<Problem>)> {
    read_bytes_with_origins(name, bytes, opts).map(|(s, st, p, _)| (s, st, p))
}

/// [`read_bytes`], also returning where each object came from
/// ([`FileOptions::manifests`]).
pub fn read_bytes_with_origins(
    name: &str,
    bytes: &[u8],
    opts: &FileOptions,
) -> Result<(Snapshot, FileStats, Vec<Problem>, origin::Origins)> {
    run(opts, |reader| {
        let source = crate::input::walk::Source::named(Some(bytes.len() as u64));
        text::read_stream(name, &mut &bytes[..], source, reader)
    })
}

/// The errors of a finished read: broken input (unless `keep_going`), no object at all.
fn check(
    opts: &FileOptions,
    snapshot: &Snapshot,
    stats: &FileStats,
    problems: &[Problem],
) -> Result<()> {
    if !problems.is_empty() && !opts.keep_going {
        return Err(Error::BrokenInput {
            problems: problems.iter().map(Problem::to_string).collect(),
            hint: Some(
                "fix or remove the broken input, or pass --skip-broken-input to go on without it \
                 (what it could hold is then unknown)"
                    .into(),
            ),
        });
    }
    if snapshot.store.is_empty() {
        let inputs = opts
            .paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let mut what = vec![format!("{} document(s)", stats.documents)];
        for (reason, n) in &stats.ignored {
            what.push(format!("{n} ignored: {reason}"));
        }
        if stats.broken > 0 {
            what.push(format!("{} broken", stats.broken));
        }
        return Err(Error::input(
            inputs,
            format!("no Kubernetes object in the input ({})", what.join("; ")),
            Some(if opts.manifests {
                "pass manifests (YAML or JSON, -R for directories), a kubectl List export, Helm or Kustomize output, or a Velero backup tarball (metadata/version and resources/<resource>/…/<name>.json); objects need kind, apiVersion and metadata.name".into()
            } else {
                "pass `kubectl get -o json|yaml` output, a must-gather or a support bundle; objects need kind, apiVersion and metadata.uid"
                    .into()
            }),
        ));
    }
    Ok(())
}

/// True when the stream starts like a snapshot (plain or compressed: the input layer's
/// decompression), without consuming it.
fn starts_like_snapshot(r: &mut dyn BufRead) -> bool {
    let Ok(head) = r.fill_buf() else {
        return false;
    };
    format::looks_like_snapshot(&crate::input::stream::text_head(head, 512))
}

/// The provenance of a file snapshot.
pub fn files_provenance(inputs: Vec<String>) -> Provenance {
    Provenance {
        tool: format!("kubectl-gc {}", env!("CARGO_PKG_VERSION")),
        captured_at: now_rfc3339(),
        server_version: None,
        source: SourceKind::Files,
        context: None,
        inputs,
    }
}

/// Runs `f` with a [`Reader`] whose objects are interned by a second thread, then builds the
/// snapshot.
fn run(
    opts: &FileOptions,
    f: impl FnOnce(&mut Reader<'_>) -> Result<()>,
) -> Result<(Snapshot, FileStats, Vec<Problem>, origin::Origins)> {
    let mut store = Store::new();
    let hasher = store.strings.hasher();
    let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(4);
    let (recycle_tx, recycle_rx) = std::sync::mpsc::channel::<Batch>();
    let manifests = opts.manifests;
    let (result, (store, added, duplicates, newest, log, pairs)) = std::thread::scope(|scope| {
        let interner = crate::util::spawn_scoped(scope, "intern", move || {
            let (mut added, mut duplicates) = (0, 0);
            // The capture-time bound is taken here, while the parser goes on, rather than in
            // a pass over the whole store once reading is done.
            let mut newest = Newest::default();
            // Manifests: what became of each object pushed, and how a second copy differs
            // from the first (compared here, while the copy's text is in the batch).
            let mut log: Vec<(Added, Vec<&'static str>)> = Vec::new();
            // Coverage's per-object work, done here while the parser goes on.
            let mut pairs = coverage::PairLog::default();
            for mut batch in rx {
                for (i, a) in store.add_batch(&mut batch).into_iter().enumerate() {
                    match a {
                        Added::New(id) => {
                            added += 1;
                            newest.object(&store, id);
                        }
                        Added::Duplicate(_) => duplicates += 1,
                        Added::NoUid => {}
                    }
                    if manifests {
                        let differs = match a {
                            Added::Duplicate(kept) => crate::model::meta::differences(
                                &store.meta_of(kept),
                                &batch.meta_in(i),
                            ),
                            _ => Vec::new(),
                        };
                        log.push((a, differs));
                    }
                }
                for i in 0..batch.len() {
                    let (ns, hash) = batch.namespace(i);
                    pairs.object(batch.tag(i), ns, hash);
                }
                batch.clear();
                let _ = recycle_tx.send(batch);
            }
            (store, added, duplicates, newest, log, pairs)
        });
        let interner = match interner {
            Ok(interner) => interner,
            Err(e) => {
                // Nothing was read yet: say so of the inputs, as of an unreadable file.
                let path = opts.paths.first().cloned().unwrap_or_default();
                let others = match opts.paths.len() {
                    0 | 1 => String::new(),
                    2 => " (nor the other input)".into(),
                    n => format!(" (nor the {} other inputs)", n - 1),
                };
                let msg = format!("not read{others}: {e}");
                return Err(Error::thread_refused(path, msg));
            }
        };
        let mut reader = Reader::new(opts, Sink::new(Batch::new(hasher), tx, recycle_rx));
        let r = f(&mut reader);
        reader.sink.close();
        let out = crate::util::join(interner);
        Ok((r.map(|()| reader), out))
    })?;
    let mut reader = result?;
    reader.cov.absorb(pairs);
    reader.stats.added = added;
    reader.stats.duplicates = duplicates;
    // Only manifests keep origins: a cluster dump's million objects pay nothing for them.
    let mut origins = origin::Origins {
        of_object: if manifests {
            vec![None; store.len()]
        } else {
            Vec::new()
        },
        duplicates: Vec::new(),
    };
    // Every object pushed has a UID in manifests mode, so the log and the origins pair up.
    for ((a, differs), o) in log.into_iter().zip(std::mem::take(&mut reader.origins)) {
        match a {
            Added::New(id) => origins.of_object[id.index()] = Some(o),
            Added::Duplicate(kept) => origins.duplicates.push(origin::DuplicateCopy {
                kept,
                copy: o,
                differs,
            }),
            Added::NoUid => {}
        }
    }
    let inputs = opts.paths.iter().map(|p| p.display().to_string()).collect();
    let snapshot = finish(&mut reader, store, newest, files_provenance(inputs));
    if manifests {
        origins.of_object.resize(snapshot.store.len(), None);
    }
    Ok((snapshot, reader.stats, reader.problems, origins))
}

/// Resolves kindless objects, completes the resource table and provenance.
fn finish(
    reader: &mut Reader<'_>,
    mut store: Store,
    mut newest: Newest,
    provenance: Provenance,
) -> Snapshot {
    // Objects whose kind only their selfLink tells, now that every CRD and discovery document
    // is known.
    for d in std::mem::take(&mut reader.res.deferred) {
        let Some(kind) = reader
            .res
            .kind_for_plural(&reader.cov, &d.group, &d.version, &d.plural)
        else {
            let gv = if d.group.is_empty() {
                d.version.clone()
            } else {
                format!("{}/{}", d.group, d.version)
            };
            let reason = format!(
                "no kind/apiVersion, and its selfLink resource `{gv} {}` is neither built in nor defined in the input",
                d.plural
            );
            reader
                .stats
                .ignore("no kind/apiVersion, and an unknown selfLink resource");
            reader.skipped.push(crate::snapshot::Skipped {
                source: d.source.clone(),
                reason: reason.clone(),
            });
            let hole = match d.metadata.namespace.as_ref() {
                "" => coverage::Hole::Everything,
                ns => coverage::Hole::Namespace(ns.to_owned()),
            };
            reader.cov.hole(hole, format!("{}: {reason}", d.source));
            continue;
        };
        let rid = reader.res.row(&d.group, &d.version, &kind);
        let gk = reader.cov.gk(&d.group, &kind);
        reader.stats.objects += 1;
        match store.add(rid, &d.metadata) {
            Added::New(id) => {
                reader.stats.added += 1;
                newest.object(&store, id);
            }
            Added::Duplicate(_) => reader.stats.duplicates += 1,
            Added::NoUid => {}
        }
        reader.cov.object(gk, &d.metadata.namespace, &d.version);
    }
    reader
        .res
        .complete(&reader.cov, reader.opts.assume_complete);
    let mut b = SnapshotBuilder::new(provenance);
    for r in std::mem::take(&mut reader.res.rows) {
        b.add_resource(r);
    }
    *b.store_mut() = store;
    for s in std::mem::take(&mut reader.skipped) {
        b.skip(s.source, s.reason);
    }
    let details = std::mem::take(&mut reader.details);
    for (name, status) in details.namespaces {
        b.namespace_status(name, status);
    }
    for a in details.api_services.into_iter().flatten() {
        b.api_service(a);
    }
    if let Some((_, v)) = &reader.res.server_version {
        b.provenance_mut().server_version = Some(v.clone());
    }
    // The capture time of a dump is unknown; the newest timestamp it holds is a lower
    // bound, which keeps ages ("terminating for 14d") honest instead of measuring from now.
    if let Some(newest) = newest.seconds {
        b.provenance_mut().captured_at = crate::snapshot::format_rfc3339(newest);
    }
    b.finish()
}

/// The newest creation or deletion timestamp of the objects added (seconds since the epoch).
#[derive(Default)]
struct Newest {
    seconds: Option<i64>,
}

impl Newest {
    fn object(&mut self, store: &Store, id: crate::model::ObjId) {
        let o = store.object(id);
        match o.creation_timestamp.packed_seconds() {
            Some(t) => self.seconds = self.seconds.max(Some(t)),
            None if !o.creation_timestamp.is_empty() => {
                self.offer(&store.timestamp(o.creation_timestamp))
            }
            None => {}
        }
        if !o.deletion_timestamp.is_empty() {
            self.offer(store.str(o.deletion_timestamp));
        }
    }

    fn offer(&mut self, text: &str) {
        // The API server's own form is read by the store's strict scan (the general form
        // for every timestamp showed in the read's profile: BENCHMARKS.md, "Figures behind the code").
        let t = match crate::model::timestamp::canonical_seconds(text) {
            Some(t) => Some(i64::from(t)),
            None => crate::snapshot::parse_rfc3339(text),
        };
        self.seconds = self.seconds.max(t);
    }
}
