//! Snapshots from files: `kubectl get -o json|yaml` output, support bundles and must-gathers,
//! read like `kubectl ... -f PATH` reads its inputs.
//!
//! Accepted shapes: a single object, a `List`/`*List` (its `items` may be null or missing, and
//! items that lack `kind`/`apiVersion` inherit them from a typed list: `PodList` → `Pod`), a JSON
//! array or bare YAML sequence of objects, multi-document YAML and streams of JSON values.
//! Documents that are not Kubernetes objects (metrics, alerts, reports) are ignored and counted;
//! documents that look like objects but cannot be used are recorded with
//! [`SnapshotBuilder::skip`]. Nothing in the input is ever fatal except a path that does not
//! exist, a directory without any candidate file, an archive or a kubectl-gc snapshot given where
//! kubectl output is expected.
//!
//! Files carry no list outcomes, so coverage is inferred: a group/kind counts as collected in a
//! namespace ([`ListOutcome::Partial`]) only where the input holds at least one of its objects.
//! Kinds known only from CRDs or discovery documents in the input get
//! [`ListOutcome::NotListed`] rows, so the REST mapper knows they are served.

use crate::catalog::{KubeVersion, builtin};
use crate::error::{Error, Result};
use crate::model::{Added, MetaIn, ResourceId};
use crate::snapshot::format::{looks_like_snapshot, maybe_gunzip};
use crate::snapshot::{
    ListOutcome, Provenance, Resource, Snapshot, SnapshotBuilder, SourceKind, now_rfc3339,
    split_api_version,
};
use serde::Deserialize;
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

/// What to read.
#[derive(Clone, Debug, Default)]
pub struct FileOptions {
    /// Files and directories; `-` is standard input.
    pub paths: Vec<PathBuf>,
    /// Walk directories recursively (otherwise only their direct `.json`/`.yaml`/`.yml` files).
    pub recursive: bool,
}

/// Counters describing what was read (for `--verbose` output and tests).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileStats {
    /// Files (and stdin) read.
    pub files: usize,
    /// Files passed over in directory walks because of their extension (`.log`, `.html`, …).
    pub files_ignored: usize,
    /// Top-level documents parsed (YAML documents, JSON values).
    pub documents: usize,
    /// Objects with a UID found, including duplicates.
    pub objects: usize,
    /// Objects added to the store.
    pub added: usize,
    /// Objects whose UID had already been read (the first copy is kept).
    pub duplicates: usize,
    /// Documents or list items that are not Kubernetes objects and were ignored.
    pub not_kubernetes: usize,
    /// Discovery documents (`APIResourceList`, `APIGroup`) used for the resource table.
    pub discovery: usize,
}

/// State carried across the files of one snapshot: counters, CRDs and discovery documents seen,
/// coverage per group/kind, and objects whose kind can only be resolved once every file is read.
#[derive(Debug, Default)]
pub struct FileState {
    /// Counters.
    pub stats: FileStats,
    crds: HashMap<(String, String), CrdInfo>,
    discovered: HashMap<(String, String, String), Discovered>,
    discovered_order: Vec<(String, String, String)>,
    group_preferred: HashMap<String, String>,
    kinds: HashMap<(String, String), KindSeen>,
    deferred: Vec<Deferred>,
    server_version: Option<(u8, String)>,
    /// True while reading the items of a List or array: only a list proves that a kind was
    /// collected completely in a namespace (a lone object may have been picked by hand, as
    /// must-gathers do for cluster-scoped objects).
    in_list: bool,
}

#[derive(Debug, Clone)]
struct CrdInfo {
    group: String,
    kind: String,
    plural: String,
    namespaced: bool,
    /// Served versions.
    versions: Vec<String>,
}

#[derive(Debug, Clone)]
struct Discovered {
    plural: String,
    namespaced: bool,
    verbs: Vec<String>,
}

#[derive(Debug, Default)]
struct KindSeen {
    /// Namespaces objects were seen in (scope inference).
    namespaces: BTreeSet<String>,
    /// Namespaces where a list of this kind was seen (coverage).
    covered: BTreeSet<String>,
    versions: BTreeSet<String>,
}

/// An object without `kind`/`apiVersion` whose `metadata.selfLink` names its resource; the kind
/// is looked up once all CRDs and discovery documents are known.
#[derive(Debug)]
struct Deferred {
    source: String,
    group: String,
    version: String,
    plural: String,
    metadata: Value,
}

/// Context a typed list gives its items.
struct ListCtx<'a> {
    /// Item kind (`PodList` → `Pod`); `None` for a generic `List` or a list without kind.
    kind: Option<&'a str>,
    api_version: &'a str,
}

/// Reads every path and builds a snapshot.
pub fn read_files(opts: &FileOptions) -> Result<Snapshot> {
    read_files_with_stats(opts).map(|(snap, _)| snap)
}

/// [`read_files`], also returning the counters.
pub fn read_files_with_stats(opts: &FileOptions) -> Result<(Snapshot, FileStats)> {
    if opts.paths.is_empty() {
        return Err(Error::usage(
            "no input files",
            "pass -f FILE, -f DIR or -f - (standard input)",
        ));
    }
    let inputs = opts.paths.iter().map(|p| p.display().to_string()).collect();
    let mut b = SnapshotBuilder::new(files_provenance(inputs));
    let mut st = FileState::default();
    let mut stdin_read = false;
    for p in &opts.paths {
        if p.as_os_str() == "-" {
            if !stdin_read {
                stdin_read = true;
                read_from_reader("<stdin>", &mut std::io::stdin().lock(), &mut b, &mut st)?;
            }
        } else {
            read_path(p, opts.recursive, &mut b, &mut st)?;
        }
    }
    let snapshot = st.complete(b);
    Ok((snapshot, st.stats))
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

/// Reads one file or directory (walked like `kubectl -f DIR [-R]`) into `b`.
pub fn read_path(
    path: &Path,
    recursive: bool,
    b: &mut SnapshotBuilder,
    st: &mut FileState,
) -> Result<()> {
    let md = std::fs::metadata(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::input(
                path,
                "no such file or directory",
                Some("pass files or directories holding `kubectl get -o json|yaml` output, or - for standard input".into()),
            )
        } else {
            Error::input(path, format!("cannot read: {e}"), None)
        }
    })?;
    if md.is_dir() {
        let mut files = Vec::new();
        let mut has_subdirs = false;
        walk_dir(path, recursive, true, &mut files, &mut has_subdirs, b, st)?;
        if files.is_empty() {
            let hint = if !recursive && has_subdirs {
                "it has subdirectories: add -R (--recursive) to read them"
            } else {
                "kubectl-gc reads .json, .yaml and .yml files (optionally gzip-compressed, .gz)"
            };
            return Err(Error::input(
                path,
                "no .json, .yaml or .yml file in this directory",
                Some(hint.into()),
            ));
        }
        for f in files {
            read_file(&f, false, b, st)?;
        }
        Ok(())
    } else {
        if is_archive(path) {
            return Err(Error::input(
                path,
                "archives are not read directly",
                Some(
                    "extract it first (e.g. `tar -xf FILE`) and pass the directory with -R".into(),
                ),
            ));
        }
        read_file(path, true, b, st)
    }
}

/// Reads one input stream (a file's content or stdin) named `name` into `b`.
pub fn read_from_reader(
    name: &str,
    r: &mut dyn Read,
    b: &mut SnapshotBuilder,
    st: &mut FileState,
) -> Result<()> {
    let mut raw = Vec::new();
    r.read_to_end(&mut raw)
        .map_err(|e| Error::input(name, format!("cannot read: {e}"), None))?;
    read_bytes(name, raw, true, b, st)
}

impl FileState {
    /// The API server version found in the input so far (`v1.23.5`).
    pub fn server_version(&self) -> Option<&str> {
        self.server_version.as_ref().map(|(_, v)| v.as_str())
    }

    /// Resolves deferred objects, completes the resource table and provenance, and finishes
    /// the snapshot.
    pub fn finish(mut self, b: SnapshotBuilder) -> Snapshot {
        self.complete(b)
    }

    fn complete(&mut self, mut b: SnapshotBuilder) -> Snapshot {
        self.resolve_deferred(&mut b);
        if let Some((_, v)) = &self.server_version
            && b.provenance_mut().server_version.is_none()
        {
            b.provenance_mut().server_version = Some(v.clone());
        }
        // The capture time of a dump is unknown; the newest timestamp it holds is a lower
        // bound, which keeps ages ("terminating for 14d") honest instead of measuring from now.
        if let Some(newest) = newest_timestamp(b.store()) {
            b.provenance_mut().captured_at = crate::snapshot::format_rfc3339(newest);
        }
        let at = self
            .server_version
            .as_ref()
            .and_then(|(_, v)| KubeVersion::parse(v));
        for i in 0..b.resources().len() {
            let id = ResourceId(i as u32);
            let row = b.resources()[i].clone();
            let filled = self.fill_row(row, at);
            *b.resource_mut(id) = filled;
        }
        // Kinds the input shows to be served but holds no object of.
        let mut crds: Vec<&CrdInfo> = self.crds.values().collect();
        crds.sort_by(|a, b| (&a.group, &a.kind).cmp(&(&b.group, &b.kind)));
        let mut extra = Vec::new();
        for crd in crds {
            for v in &crd.versions {
                extra.push((crd.group.clone(), v.clone(), crd.kind.clone()));
            }
        }
        extra.extend(self.discovered_order.iter().cloned());
        for (group, version, kind) in extra {
            if b.find_resource(&group, &version, &kind).is_some() {
                continue;
            }
            let row = Resource {
                group,
                version: version.clone(),
                kind,
                plural: String::new(),
                namespaced: false,
                verbs: Vec::new(),
                preferred_version: version,
                list: ListOutcome::NotListed,
            };
            let row = self.fill_row(row, at);
            b.add_resource(row);
        }
        b.finish()
    }

    /// Completes a row: plural, scope, verbs and preferred version from discovery, a CRD, the
    /// built-in catalogue or the objects; the list outcome from coverage.
    fn fill_row(&self, mut r: Resource, at: Option<KubeVersion>) -> Resource {
        let key = (r.group.clone(), r.kind.clone());
        let seen = self.kinds.get(&key);
        let disc = self
            .discovered
            .get(&(r.group.clone(), r.version.clone(), r.kind.clone()));
        let crd = self.crds.get(&key);
        let known = builtin::find(&r.group, &r.kind);
        if let Some(d) = disc {
            r.plural = d.plural.clone();
            r.namespaced = d.namespaced;
            r.verbs = d.verbs.clone();
        } else if let Some(c) = crd {
            r.plural = c.plural.clone();
            r.namespaced = c.namespaced;
        } else if let Some(k) = known {
            r.plural = k.plural.to_owned();
            r.namespaced = k.namespaced;
        } else {
            r.plural = guess_plural(&r.kind);
            r.namespaced = seen.is_some_and(|s| s.namespaces.iter().any(|n| !n.is_empty()));
        }
        let seen_versions: Vec<&str> = seen
            .map(|s| s.versions.iter().map(String::as_str).collect())
            .unwrap_or_default();
        r.preferred_version = if let Some(p) = self.group_preferred.get(&r.group) {
            p.clone()
        } else if let Some(c) = crd.filter(|c| !c.versions.is_empty()) {
            highest_priority(c.versions.iter().map(String::as_str)).to_owned()
        } else if let Some(k) = known {
            let by_server = at.and_then(|at| k.preferred_at(at));
            let by_input = k
                .versions
                .iter()
                .map(|v| v.version)
                .find(|v| seen_versions.contains(v));
            by_server
                .or(by_input)
                .or(k.versions.first().map(|v| v.version))
                .unwrap_or(r.version.as_str())
                .to_owned()
        } else if !seen_versions.is_empty() {
            highest_priority(seen_versions.iter().copied()).to_owned()
        } else {
            r.version.clone()
        };
        if !matches!(r.list, ListOutcome::NotListed) {
            r.list = ListOutcome::Partial {
                namespaces: seen
                    .map(|s| s.covered.iter().cloned().collect())
                    .unwrap_or_default(),
            };
        }
        r
    }

    fn resolve_deferred(&mut self, b: &mut SnapshotBuilder) {
        for d in std::mem::take(&mut self.deferred) {
            let Some(kind) = self.kind_for_plural(&d.group, &d.version, &d.plural) else {
                let gv = if d.group.is_empty() {
                    d.version.clone()
                } else {
                    format!("{}/{}", d.group, d.version)
                };
                b.skip(
                    d.source,
                    format!(
                        "no kind/apiVersion, and its selfLink resource `{} {}` is neither built in nor defined in the input",
                        gv, d.plural
                    ),
                );
                continue;
            };
            match MetaIn::deserialize(&d.metadata) {
                Ok(meta) => add_object(b, self, &d.group, &d.version, &kind, &meta),
                Err(e) => b.skip(d.source, one_line(&format!("bad metadata: {e}"))),
            }
        }
    }

    /// The kind served as `group/version` `plural`, from the catalogue, discovery, CRDs or the
    /// kinds seen in the input.
    fn kind_for_plural(&self, group: &str, version: &str, plural: &str) -> Option<String> {
        if let Some(r) = builtin::all()
            .iter()
            .find(|r| r.group == group && r.plural == plural)
        {
            return Some(r.kind.to_owned());
        }
        if let Some(((_, _, k), _)) = self
            .discovered
            .iter()
            .find(|((g, v, _), d)| g == group && v == version && d.plural == plural)
        {
            return Some(k.clone());
        }
        if let Some(c) = self
            .crds
            .values()
            .find(|c| c.group == group && c.plural == plural)
        {
            return Some(c.kind.clone());
        }
        let mut seen: Vec<&String> = self
            .kinds
            .keys()
            .filter(|(g, k)| g == group && guess_plural(k) == plural)
            .map(|(_, k)| k)
            .collect();
        seen.sort();
        seen.first().map(|k| (*k).clone())
    }

    fn offer_server_version(&mut self, priority: u8, version: String) {
        if self
            .server_version
            .as_ref()
            .is_none_or(|(p, _)| priority < *p)
        {
            self.server_version = Some((priority, version));
        }
    }
}

// ----------------------------------------------------------------------------------------------
// Files and directories
// ----------------------------------------------------------------------------------------------

const EXTENSIONS: [&str; 3] = ["json", "yaml", "yml"];

/// True for names kubectl-gc reads in a directory walk (`x.yaml`, `x.json.gz`, …).
fn is_candidate(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    EXTENSIONS
        .iter()
        .any(|ext| name.len() > ext.len() + 1 && name.ends_with(&format!(".{ext}")))
}

fn is_archive(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    [
        ".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".zip",
    ]
    .iter()
    .any(|s| name.ends_with(s))
}

fn walk_dir(
    dir: &Path,
    recursive: bool,
    top: bool,
    files: &mut Vec<PathBuf>,
    has_subdirs: &mut bool,
    b: &mut SnapshotBuilder,
    st: &mut FileState,
) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if top => {
            return Err(Error::input(
                dir,
                format!("cannot read directory: {e}"),
                None,
            ));
        }
        Err(e) => {
            b.skip(
                dir.display().to_string(),
                format!("cannot read directory: {e}"),
            );
            return Ok(());
        }
    };
    let mut paths: Vec<(PathBuf, bool)> = Vec::new();
    for entry in entries {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                b.skip(
                    dir.display().to_string(),
                    format!("cannot read directory: {e}"),
                );
                continue;
            }
        };
        let path = entry.path();
        // Like kubectl's walk, symbolic links to directories are not followed.
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        paths.push((path, is_dir));
    }
    paths.sort();
    for (path, is_dir) in paths {
        if is_dir {
            *has_subdirs = true;
            if recursive {
                walk_dir(&path, recursive, false, files, has_subdirs, b, st)?;
            }
        } else if is_candidate(&path) {
            files.push(path);
        } else {
            st.stats.files_ignored += 1;
        }
    }
    Ok(())
}

/// Reads a file; `explicit` when the user named it (errors are then fatal where a walk would
/// record a skip and continue).
fn read_file(
    path: &Path,
    explicit: bool,
    b: &mut SnapshotBuilder,
    st: &mut FileState,
) -> Result<()> {
    match std::fs::read(path) {
        Ok(raw) => read_bytes(&path.display().to_string(), raw, explicit, b, st),
        Err(e) if explicit => Err(Error::input(path, format!("cannot read: {e}"), None)),
        Err(e) => {
            b.skip(path.display().to_string(), format!("cannot read: {e}"));
            Ok(())
        }
    }
}

fn read_bytes(
    name: &str,
    raw: Vec<u8>,
    explicit: bool,
    b: &mut SnapshotBuilder,
    st: &mut FileState,
) -> Result<()> {
    let bytes = match maybe_gunzip(Path::new(name), raw) {
        Ok(bytes) => bytes,
        Err(e) if explicit => return Err(e),
        Err(e) => {
            b.skip(name, one_line(&e.to_string()));
            return Ok(());
        }
    };
    if looks_like_snapshot(&bytes) {
        if explicit {
            return Err(Error::input(
                name,
                "this is a kubectl-gc snapshot, not kubectl output",
                Some("use --snapshot FILE".into()),
            ));
        }
        b.skip(name, "a kubectl-gc snapshot (read it with --snapshot FILE)");
        return Ok(());
    }
    st.stats.files += 1;
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            b.skip(name, format!("not UTF-8 text: {e}"));
            return Ok(());
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.trim_start().chars().next();
    if matches!(first, Some('{') | Some('[')) {
        read_json_text(name, text, b, st);
    } else {
        read_yaml_text(name, text, b, st);
    }
    Ok(())
}

// ----------------------------------------------------------------------------------------------
// Formats
// ----------------------------------------------------------------------------------------------

/// JSON: one value, or a stream of values (`jq` output). Falls back to YAML when the text is
/// not JSON at all (flow-style YAML also starts with `{` or `[`).
fn read_json_text(name: &str, text: &str, b: &mut SnapshotBuilder, st: &mut FileState) {
    let mut values = Vec::new();
    let mut failure = None;
    for v in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        match v {
            Ok(v) => values.push(v),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    if values.is_empty()
        && let Some(e) = &failure
    {
        match parse_yaml(text) {
            Ok(v) => handle_document(name, v, b, st),
            Err(_) => b.skip(name, one_line(&format!("invalid JSON: {e}"))),
        }
        return;
    }
    let many = values.len() > 1 || failure.is_some();
    for (i, v) in values.into_iter().enumerate() {
        let label = doc_label(name, i, many);
        handle_document(&label, v, b, st);
    }
    if let Some(e) = failure {
        b.skip(
            name,
            one_line(&format!("invalid JSON after the first values: {e}")),
        );
    }
}

/// YAML: split on `---` lines (as kubectl does) and parse each document on its own, so one
/// broken document does not lose the others.
fn read_yaml_text(name: &str, text: &str, b: &mut SnapshotBuilder, st: &mut FileState) {
    let docs: Vec<&str> = split_yaml_documents(text)
        .into_iter()
        .filter(|d| !is_empty_yaml(d))
        .collect();
    let many = docs.len() > 1;
    for (i, doc) in docs.into_iter().enumerate() {
        let label = doc_label(name, i, many);
        match parse_yaml(doc) {
            Ok(v) => handle_document(&label, v, b, st),
            Err(e) => b.skip(label, one_line(&format!("invalid YAML: {e}"))),
        }
    }
}

fn doc_label(name: &str, index: usize, many: bool) -> String {
    if many {
        format!("{name} (document {})", index + 1)
    } else {
        name.to_owned()
    }
}

/// Splits a YAML stream at separator lines: `---` alone or followed by a comment (kubectl's
/// `YAMLReader` rule; `--- value` on one line stays inside its document).
fn split_yaml_documents(text: &str) -> Vec<&str> {
    let mut docs = Vec::new();
    let mut start = 0;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("---") {
            let rest = rest.trim();
            if rest.is_empty() || rest.starts_with('#') {
                docs.push(&text[start..pos]);
                start = pos + line.len();
            }
        }
        pos += line.len();
    }
    docs.push(&text[start..]);
    docs
}

/// True for a document of only blank lines, comments, directives and end markers.
fn is_empty_yaml(doc: &str) -> bool {
    doc.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t.starts_with('%') || t == "..."
    })
}

fn parse_yaml(doc: &str) -> std::result::Result<Value, serde_saphyr::Error> {
    let mut budget = serde_saphyr::Budget::default();
    // Real dumps are big (an OpenShift `events.yaml` has millions of nodes); these limits
    // only guard against runaway input, not against size.
    budget.max_reader_input_bytes = None;
    budget.max_events = usize::MAX / 2;
    budget.max_nodes = usize::MAX / 2;
    budget.max_total_scalar_bytes = usize::MAX / 2;
    budget.max_depth = 128;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::LastWins;
    serde_saphyr::from_str_with_options::<Value>(doc, options)
}

/// Collapses an error message to one line of bounded length.
fn one_line(s: &str) -> String {
    let first = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut out: String = first.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() > 240 {
        out = out.chars().take(237).collect::<String>() + "...";
    }
    out
}

// ----------------------------------------------------------------------------------------------
// Documents
// ----------------------------------------------------------------------------------------------

fn handle_document(label: &str, v: Value, b: &mut SnapshotBuilder, st: &mut FileState) {
    st.stats.documents += 1;
    match &v {
        Value::Array(items) => {
            let outer = std::mem::replace(&mut st.in_list, true);
            for (i, item) in items.iter().enumerate() {
                handle_value(&format!("{label} [{i}]"), item, None, b, st);
            }
            st.in_list = outer;
        }
        Value::Null => {}
        _ => handle_value(label, &v, None, b, st),
    }
}

fn str_field<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn has_uid(v: &Value) -> bool {
    v.get("metadata")
        .and_then(|m| m.get("uid"))
        .and_then(Value::as_str)
        .is_some_and(|u| !u.is_empty())
}

fn handle_value(
    label: &str,
    v: &Value,
    ctx: Option<&ListCtx<'_>>,
    b: &mut SnapshotBuilder,
    st: &mut FileState,
) {
    if !v.is_object() {
        st.stats.not_kubernetes += 1;
        return;
    }
    if let Some((priority, version)) = server_version_hint(v) {
        st.offer_server_version(priority, version);
    }
    let kind = str_field(v, "kind");
    let api_version = str_field(v, "apiVersion");
    // Discovery documents.
    if kind == "APIResourceList" || (kind.is_empty() && is_api_resource_list(v)) {
        record_api_resource_list(v, st);
        return;
    }
    if kind == "APIGroupList" {
        st.stats.discovery += 1;
        if let Some(groups) = v.get("groups").and_then(Value::as_array) {
            for g in groups {
                record_api_group(g, st);
            }
        }
        return;
    }
    if kind == "APIGroup" || (kind.is_empty() && is_api_group(v)) {
        st.stats.discovery += 1;
        record_api_group(v, st);
        return;
    }
    // Lists.
    let is_list = if kind.is_empty() {
        v.get("items").is_some_and(|i| i.is_array() || i.is_null()) && !has_uid(v)
    } else {
        kind.ends_with("List") && (v.get("items").is_some() || !has_uid(v))
    };
    if is_list {
        let item_kind = match kind.strip_suffix("List") {
            Some("") | None => None,
            Some(k) => Some(k),
        };
        let ctx = ListCtx {
            kind: item_kind,
            api_version,
        };
        match v.get("items") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                let outer = std::mem::replace(&mut st.in_list, true);
                for (i, item) in items.iter().enumerate() {
                    handle_value(&format!("{label} items[{i}]"), item, Some(&ctx), b, st);
                }
                st.in_list = outer;
            }
            Some(_) => b.skip(label, "`items` is not a list"),
        }
        return;
    }
    handle_object(label, v, ctx, b, st);
}

fn handle_object(
    label: &str,
    v: &Value,
    ctx: Option<&ListCtx<'_>>,
    b: &mut SnapshotBuilder,
    st: &mut FileState,
) {
    let mut kind = str_field(v, "kind").to_owned();
    let mut api_version = str_field(v, "apiVersion").to_owned();
    if let Some(ctx) = ctx
        && kind.is_empty()
        && let Some(k) = ctx.kind
    {
        kind = k.to_owned();
        if api_version.is_empty() {
            api_version = ctx.api_version.to_owned();
        }
    }
    let uid = has_uid(v);
    if kind.is_empty() || api_version.is_empty() {
        let typed = !kind.is_empty() || !api_version.is_empty();
        if !typed && !uid {
            // Not a Kubernetes object (metrics, alerts, reports, config fragments).
            st.stats.not_kubernetes += 1;
            return;
        }
        if !typed && let Some(crd) = crd_info(v) {
            // A CRD written without TypeMeta (typed-client output, e.g. troubleshoot bundles):
            // its shape is unmistakable.
            if str_field(v.get("metadata").unwrap_or(&Value::Null), "name")
                == format!("{}.{}", crd.plural, crd.group)
            {
                let version = if v["spec"].get("version").is_some_and(Value::is_string) {
                    "apiextensions.k8s.io/v1beta1"
                } else {
                    "apiextensions.k8s.io/v1"
                };
                api_version = version.to_owned();
                kind = "CustomResourceDefinition".to_owned();
            }
        }
        if (kind.is_empty() || api_version.is_empty())
            && !typed
            && let Some((group, version, plural)) = self_link_resource(v)
        {
            st.deferred.push(Deferred {
                source: label.to_owned(),
                group,
                version,
                plural,
                metadata: v["metadata"].clone(),
            });
            return;
        }
        if kind.is_empty() || api_version.is_empty() {
            let reason = if kind.is_empty() && ctx.is_some() {
                "list item has no kind, and its list does not say which kind it holds"
            } else if kind.is_empty() {
                "no kind/apiVersion: cannot tell which resource this object belongs to"
            } else {
                "no apiVersion"
            };
            b.skip(label, reason);
            return;
        }
    }
    let Some((group, version)) = split_api_version(&api_version) else {
        b.skip(label, format!("invalid apiVersion {api_version:?}"));
        return;
    };
    let meta = match v.get("metadata") {
        Some(m @ Value::Object(_)) => match MetaIn::deserialize(m) {
            Ok(meta) => meta,
            Err(e) => {
                b.skip(label, one_line(&format!("bad metadata: {e}")));
                return;
            }
        },
        _ => {
            b.skip(label, "no metadata");
            return;
        }
    };
    if meta.uid.is_empty() {
        b.skip(label, "no metadata.uid");
        return;
    }
    if group == "apiextensions.k8s.io"
        && kind == "CustomResourceDefinition"
        && let Some(crd) = crd_info(v)
    {
        st.crds
            .entry((crd.group.clone(), crd.kind.clone()))
            .or_insert(crd);
    }
    add_object(b, st, group, version, &kind, &meta);
}

/// The newest creation or deletion timestamp of any object (seconds since the epoch).
fn newest_timestamp(store: &crate::model::Store) -> Option<i64> {
    let mut seen = std::collections::HashSet::new();
    let mut newest = None;
    for o in &store.objects {
        for t in [o.creation_timestamp, o.deletion_timestamp] {
            if !t.is_empty() && seen.insert(t) {
                newest = newest.max(crate::snapshot::parse_rfc3339(store.str(t)));
            }
        }
    }
    newest
}

fn add_object(
    b: &mut SnapshotBuilder,
    st: &mut FileState,
    group: &str,
    version: &str,
    kind: &str,
    meta: &MetaIn<'_>,
) {
    let id = match b.find_resource(group, version, kind) {
        Some(id) => id,
        None => b.add_resource(Resource {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
            // Completed by `FileState::finish`.
            plural: String::new(),
            namespaced: false,
            verbs: Vec::new(),
            preferred_version: version.to_owned(),
            list: ListOutcome::Partial {
                namespaces: Vec::new(),
            },
        }),
    };
    st.stats.objects += 1;
    match b.add_object(id, meta) {
        Added::New(_) => st.stats.added += 1,
        Added::Duplicate(_) => st.stats.duplicates += 1,
        Added::NoUid => {}
    }
    let seen = st
        .kinds
        .entry((group.to_owned(), kind.to_owned()))
        .or_default();
    if !seen.namespaces.contains(meta.namespace.as_ref()) {
        seen.namespaces.insert(meta.namespace.to_string());
    }
    if st.in_list && !seen.covered.contains(meta.namespace.as_ref()) {
        seen.covered.insert(meta.namespace.to_string());
    }
    if !seen.versions.contains(version) {
        seen.versions.insert(version.to_owned());
    }
}

/// `spec.group`, `spec.names` and `spec.scope` of a CRD (v1 or v1beta1).
fn crd_info(v: &Value) -> Option<CrdInfo> {
    let spec = v.get("spec")?;
    let group = spec.get("group")?.as_str()?;
    let names = spec.get("names")?;
    let kind = names.get("kind")?.as_str()?;
    let plural = names.get("plural")?.as_str()?;
    if group.is_empty() || kind.is_empty() || plural.is_empty() {
        return None;
    }
    let namespaced = spec.get("scope").and_then(Value::as_str) != Some("Cluster");
    let mut versions = Vec::new();
    if let Some(list) = spec.get("versions").and_then(Value::as_array) {
        for entry in list {
            let served = entry.get("served").and_then(Value::as_bool).unwrap_or(true);
            if let Some(name) = entry.get("name").and_then(Value::as_str)
                && served
                && !versions.iter().any(|v| v == name)
            {
                versions.push(name.to_owned());
            }
        }
    }
    if let Some(v) = spec.get("version").and_then(Value::as_str)
        && !versions.iter().any(|x| x == v)
    {
        versions.push(v.to_owned());
    }
    Some(CrdInfo {
        group: group.to_owned(),
        kind: kind.to_owned(),
        plural: plural.to_owned(),
        namespaced,
        versions,
    })
}

/// `(group, version, plural)` from `metadata.selfLink` (`/api/v1/namespaces/ns/pods/name`,
/// `/apis/g/v/plural/name`), which the API server wrote before 1.20.
fn self_link_resource(v: &Value) -> Option<(String, String, String)> {
    let link = v.get("metadata")?.get("selfLink")?.as_str()?;
    let parts: Vec<&str> = link.trim_start_matches('/').split('/').collect();
    let (group, version, rest) = match parts.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return None,
    };
    let plural = match rest {
        ["namespaces", _, plural, _name, ..] => *plural,
        [plural, _name, ..] => *plural,
        _ => return None,
    };
    if version.is_empty() || plural.is_empty() {
        return None;
    }
    Some((group.to_owned(), version.to_owned(), plural.to_owned()))
}

fn is_api_resource_list(v: &Value) -> bool {
    v.get("groupVersion").is_some_and(Value::is_string)
        && v.get("resources").is_some_and(Value::is_array)
        && v.get("metadata").is_none()
}

fn is_api_group(v: &Value) -> bool {
    v.get("name").is_some_and(Value::is_string)
        && v.get("versions").is_some_and(Value::is_array)
        && v.get("preferredVersion").is_some_and(Value::is_object)
        && v.get("metadata").is_none()
}

fn record_api_group(g: &Value, st: &mut FileState) {
    let name = str_field(g, "name");
    let preferred = g
        .get("preferredVersion")
        .map(|p| str_field(p, "version"))
        .unwrap_or("");
    if !preferred.is_empty() {
        st.group_preferred
            .entry(name.to_owned())
            .or_insert_with(|| preferred.to_owned());
    }
}

fn record_api_resource_list(v: &Value, st: &mut FileState) {
    st.stats.discovery += 1;
    let Some((group, version)) = split_api_version(str_field(v, "groupVersion")) else {
        return;
    };
    let Some(resources) = v.get("resources").and_then(Value::as_array) else {
        return;
    };
    for r in resources {
        let plural = str_field(r, "name");
        let kind = str_field(r, "kind");
        if plural.is_empty() || plural.contains('/') || kind.is_empty() {
            continue; // subresources
        }
        let key = (group.to_owned(), version.to_owned(), kind.to_owned());
        if st.discovered.contains_key(&key) {
            continue;
        }
        let verbs = r
            .get("verbs")
            .and_then(Value::as_array)
            .map(|vs| {
                vs.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        st.discovered.insert(
            key.clone(),
            Discovered {
                plural: plural.to_owned(),
                namespaced: r.get("namespaced").and_then(Value::as_bool).unwrap_or(true),
                verbs,
            },
        );
        st.discovered_order.push(key);
    }
}

/// The API server version a document reveals, with a priority (lower wins):
///
/// * 0: `kubectl version -o json|yaml` (`serverVersion.gitVersion`), the `/version` response
///   (`gitVersion` with `major`), a troubleshoot bundle's `cluster-info/cluster_version.json`
///   (`info.gitVersion`), a support-bundle-kit `metadata.yaml` (`kubernetesversion`);
/// * 1: OpenShift's `ClusterOperator kube-apiserver` (`status.versions[kube-apiserver]`).
fn server_version_hint(v: &Value) -> Option<(u8, String)> {
    let norm = |s: &str| {
        let s = s.trim();
        if s.is_empty() {
            None
        } else if s.starts_with('v') {
            Some(s.to_owned())
        } else {
            Some(format!("v{s}"))
        }
    };
    let kind = str_field(v, "kind");
    if kind.is_empty() && v.get("metadata").is_none() {
        if let Some(s) = v.get("serverVersion").map(|s| str_field(s, "gitVersion")) {
            return norm(s).map(|s| (0, s));
        }
        if let Some(s) = v.get("info").map(|s| str_field(s, "gitVersion")) {
            return norm(s).map(|s| (0, s));
        }
        if v.get("major").is_some() {
            return norm(str_field(v, "gitVersion")).map(|s| (0, s));
        }
        let k = str_field(v, "kubernetesversion");
        let k = if k.is_empty() {
            str_field(v, "kubernetesVersion")
        } else {
            k
        };
        if !k.is_empty() {
            return norm(k).map(|s| (0, s));
        }
        return None;
    }
    if kind == "ClusterOperator"
        && str_field(v, "apiVersion").starts_with("config.openshift.io/")
        && v.get("metadata").map(|m| str_field(m, "name")) == Some("kube-apiserver")
    {
        let versions = v.get("status")?.get("versions")?.as_array()?;
        let found = versions
            .iter()
            .find(|e| str_field(e, "name") == "kube-apiserver")?;
        return norm(str_field(found, "version")).map(|s| (1, s));
    }
    None
}

/// `kubectl`'s guess of a kind's resource name (`UnsafeGuessKindToResource`).
fn guess_plural(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    if lower.is_empty() {
        return lower;
    }
    if lower.ends_with('s') {
        return format!("{lower}es");
    }
    if let Some(stem) = lower.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u'])
    {
        return format!("{stem}ies");
    }
    format!("{lower}s")
}

/// Kubernetes' version priority: GA before beta before alpha, higher numbers first, then
/// anything else alphabetically.
fn compare_version_priority(a: &str, b: &str) -> Ordering {
    fn parse(v: &str) -> Option<(u8, u64, u64)> {
        let rest = v.strip_prefix('v')?;
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let major: u64 = rest[..digits].parse().ok()?;
        let tail = &rest[digits..];
        if tail.is_empty() {
            return Some((2, major, 0));
        }
        let (class, minor) = if let Some(m) = tail.strip_prefix("beta") {
            (1, m)
        } else if let Some(m) = tail.strip_prefix("alpha") {
            (0, m)
        } else {
            return None;
        };
        let minor = if minor.is_empty() {
            0
        } else {
            minor.parse().ok()?
        };
        Some((class, major, minor))
    }
    match (parse(a), parse(b)) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

fn highest_priority<'a>(versions: impl Iterator<Item = &'a str>) -> &'a str {
    versions
        .min_by(|a, b| compare_version_priority(a, b))
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Skipped;

    fn read(text: &str) -> (Snapshot, FileStats) {
        read_named("input", text)
    }

    fn read_named(name: &str, text: &str) -> (Snapshot, FileStats) {
        let mut b = SnapshotBuilder::new(files_provenance(vec![name.into()]));
        let mut st = FileState::default();
        read_from_reader(name, &mut text.as_bytes(), &mut b, &mut st).unwrap();
        let snapshot = st.complete(b);
        (snapshot, st.stats)
    }

    fn row<'a>(s: &'a Snapshot, group: &str, version: &str, kind: &str) -> &'a Resource {
        s.resources
            .iter()
            .find(|r| r.group == group && r.version == version && r.kind == kind)
            .unwrap_or_else(|| panic!("no row {group}/{version} {kind}: {:?}", s.resources))
    }

    fn names(s: &Snapshot) -> Vec<String> {
        s.store
            .ids()
            .map(|id| s.store.str(s.store.object(id).name).to_owned())
            .collect()
    }

    fn skipped_reasons(s: &Snapshot) -> Vec<&Skipped> {
        s.skipped.iter().collect()
    }

    #[test]
    fn typed_list_with_kindless_items_inherits_kind_and_api_version() {
        let (s, stats) = read(
            r#"{"kind":"PodList","apiVersion":"v1","items":[
                {"metadata":{"name":"a","namespace":"ns1","uid":"u1"}},
                {"metadata":{"name":"b","namespace":"ns2","uid":"u2"}}]}"#,
        );
        assert_eq!(stats.added, 2);
        let r = row(&s, "", "v1", "Pod");
        assert!(r.namespaced);
        assert_eq!(
            r.list,
            ListOutcome::Partial {
                namespaces: vec!["ns1".into(), "ns2".into()]
            }
        );
        assert!(r.verbs.is_empty());
        assert_eq!(s.provenance.source, SourceKind::Files);
    }

    #[test]
    fn list_with_null_or_missing_items_is_empty_not_an_error() {
        let (s, stats) = read(
            "apiVersion: route.openshift.io/v1\nkind: RouteList\nitems: null\n---\n\
             apiVersion: route.openshift.io/v1\nkind: RouteList\nmetadata: {}\n",
        );
        assert_eq!(stats.documents, 2);
        assert!(s.store.is_empty());
        assert!(s.skipped.is_empty(), "{:?}", s.skipped);
        assert!(s.resources.is_empty());
    }

    #[test]
    fn generic_list_items_without_kind_are_skipped_with_a_reason() {
        let (s, _) = read(
            r#"{"kind":"List","apiVersion":"v1","items":[
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ok","namespace":"n","uid":"u1"}},
                {"metadata":{"name":"what","namespace":"n","uid":"u2"}}]}"#,
        );
        assert_eq!(names(&s), ["ok"]);
        assert_eq!(s.skipped.len(), 1);
        assert_eq!(s.skipped[0].source, "input items[1]");
        assert!(s.skipped[0].reason.contains("no kind"), "{:?}", s.skipped);
    }

    #[test]
    fn multi_document_yaml_keeps_good_documents_around_a_broken_one() {
        let text = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n  namespace: a\n  uid: u1\n\
                    --- # second\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n\
                    ---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: three\n  namespace: a\n  uid: u3\n---\n";
        let (s, stats) = read_named("cms.yaml", text);
        assert_eq!(names(&s), ["one", "three"]);
        assert_eq!(stats.documents, 2);
        let skipped = skipped_reasons(&s);
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].source, "cms.yaml (document 2)");
        assert!(skipped[0].reason.starts_with("invalid YAML"));
        assert!(!skipped[0].reason.contains('\n'));
    }

    #[test]
    fn bare_yaml_sequence_and_json_array_of_objects() {
        let yaml = "- apiVersion: longhorn.io/v1beta1\n  kind: Setting\n  metadata:\n    name: s1\n    namespace: longhorn-system\n    uid: u1\n\
                    - apiVersion: longhorn.io/v1beta1\n  kind: Setting\n  metadata:\n    name: s2\n    namespace: longhorn-system\n    uid: u2\n";
        let (s, _) = read(yaml);
        assert_eq!(names(&s), ["s1", "s2"]);
        let r = row(&s, "longhorn.io", "v1beta1", "Setting");
        assert!(r.namespaced);
        assert_eq!(r.plural, "settings");

        let json = r#"[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","uid":"u1"}},
                       {"alerts":[]}, 7]"#;
        let (s, stats) = read(json);
        assert_eq!(names(&s), ["n1"]);
        assert_eq!(stats.not_kubernetes, 2);
        let r = row(&s, "", "v1", "Node");
        assert_eq!(
            r.list,
            ListOutcome::Partial {
                namespaces: vec!["".into()]
            }
        );
    }

    #[test]
    fn redacted_yaml_that_does_not_parse_is_skipped_not_fatal() {
        let text = "- apiVersion: longhorn.io/v1beta1\n  kind: InstanceManager\n  metadata:\n    name: im\n    namespace: longhorn-system\n    uid: u1\n  spec:\n    address: ***HIDDEN***\n";
        let (s, _) = read_named("instancemanagers.yaml", text);
        assert!(s.store.is_empty());
        assert_eq!(s.skipped.len(), 1);
        assert_eq!(s.skipped[0].source, "instancemanagers.yaml");
        assert!(s.skipped[0].reason.starts_with("invalid YAML"));
    }

    #[test]
    fn crd_in_input_defines_scope_plural_and_preferred_version() {
        let text = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com, uid: crd1}
spec:
  group: example.com
  scope: Cluster
  names: {kind: Widget, plural: widgets}
  versions:
  - {name: v1beta1, served: true}
  - {name: v1, served: true}
  - {name: v2alpha1, served: false}
---
apiVersion: example.com/v1beta1
kind: Widget
metadata: {name: w, uid: w1}
---
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com, uid: crd2}
spec:
  group: example.com
  version: v1alpha1
  scope: Namespaced
  names: {kind: Gadget, plural: gadgetries}
"#;
        let (s, _) = read(text);
        let w = row(&s, "example.com", "v1beta1", "Widget");
        assert!(!w.namespaced);
        assert_eq!(w.plural, "widgets");
        assert_eq!(w.preferred_version, "v1");
        // A lone object document proves nothing about the other Widgets.
        assert_eq!(w.list, ListOutcome::Partial { namespaces: vec![] });
        // Served versions without objects are known to be served, not covered.
        assert_eq!(
            row(&s, "example.com", "v1", "Widget").list,
            ListOutcome::NotListed
        );
        assert!(
            !s.resources
                .iter()
                .any(|r| r.kind == "Widget" && r.version == "v2alpha1")
        );
        let g = row(&s, "example.com", "v1alpha1", "Gadget");
        assert!(g.namespaced);
        assert_eq!(g.plural, "gadgetries");
        assert_eq!(g.list, ListOutcome::NotListed);
        assert!(!g.list.covers(""));
        let crd = row(&s, "apiextensions.k8s.io", "v1", "CustomResourceDefinition");
        assert_eq!(crd.plural, "customresourcedefinitions");
    }

    #[test]
    fn unknown_kinds_are_inferred_from_their_objects() {
        let (s, _) = read(
            r#"{"apiVersion":"acme.io/v1","kind":"Policy","metadata":{"name":"p","namespace":"x","uid":"u"}}"#,
        );
        let r = row(&s, "acme.io", "v1", "Policy");
        assert!(r.namespaced);
        assert_eq!(r.plural, "policies");
        assert_eq!(r.preferred_version, "v1");
    }

    #[test]
    fn duplicate_uids_are_one_object_and_only_lists_prove_coverage() {
        let text = r#"{"kind":"PodList","apiVersion":"v1","items":[
                {"metadata":{"name":"a","namespace":"ns1","uid":"u1"}}]}
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ns1","uid":"u1"}}
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"b","namespace":"ns2","uid":"u2"}}"#;
        let (s, stats) = read(text);
        assert_eq!(s.store.len(), 2);
        assert_eq!(stats.objects, 3);
        assert_eq!(stats.duplicates, 1);
        // ns1 came as a PodList; ns2 only as a lone Pod document, which may have been picked.
        assert_eq!(
            row(&s, "", "v1", "Pod").list,
            ListOutcome::Partial {
                namespaces: vec!["ns1".into()]
            }
        );
    }

    #[test]
    fn partial_namespaces_are_per_group_and_kind() {
        let text = r#"[
            {"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"a","namespace":"b-ns","uid":"1"}},
            {"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"b","namespace":"a-ns","uid":"2"}},
            {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"c-ns","uid":"3"}}]"#;
        let (s, _) = read(text);
        let want = ListOutcome::Partial {
            namespaces: vec!["a-ns".into(), "b-ns".into()],
        };
        assert_eq!(
            row(&s, "autoscaling", "v1", "HorizontalPodAutoscaler").list,
            want
        );
        assert_eq!(
            row(&s, "autoscaling", "v2", "HorizontalPodAutoscaler").list,
            want
        );
        let cm = &row(&s, "", "v1", "ConfigMap").list;
        assert!(cm.covers("c-ns") && !cm.covers("a-ns"));
    }

    #[test]
    fn objects_without_uid_or_metadata_are_skipped_and_non_objects_ignored() {
        let text = r#"[
            {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"no-uid","namespace":"n"}},
            {"apiVersion":"operator.openshift.io/v1","kind":"Network","name":"cluster","spec":{}},
            {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","uid":"u","labels":"oops"}},
            {"status":"success","data":{"result":[]}},
            {"apiVersion":"v1/x/y","kind":"Thing","metadata":{"uid":"u9"}}]"#;
        let (s, stats) = read(text);
        assert!(s.store.is_empty());
        let reasons: Vec<&str> = s.skipped.iter().map(|s| s.reason.as_str()).collect();
        assert_eq!(reasons[0], "no metadata.uid");
        assert_eq!(reasons[1], "no metadata");
        assert!(reasons[2].starts_with("bad metadata"), "{reasons:?}");
        assert!(reasons[3].starts_with("invalid apiVersion"), "{reasons:?}");
        assert_eq!(reasons.len(), 4);
        assert_eq!(stats.not_kubernetes, 1);
        assert!(s.resources.is_empty());
    }

    #[test]
    fn kindless_crds_and_self_links_are_recognised() {
        let text = r#"{"metadata":{"resourceVersion":"1"},"items":[
            {"metadata":{"name":"engines.longhorn.io","uid":"c1"},
             "spec":{"group":"longhorn.io","scope":"Namespaced","names":{"kind":"Engine","plural":"engines"},
                     "versions":[{"name":"v1beta1","served":true}]}}]}
            {"metadata":{"name":"p","namespace":"ns","uid":"p1","selfLink":"/api/v1/namespaces/ns/pods/p"}}
            {"metadata":{"name":"e","namespace":"longhorn-system","uid":"e1","selfLink":"/apis/longhorn.io/v1beta1/namespaces/longhorn-system/engines/e"}}
            {"metadata":{"name":"q","uid":"q1","selfLink":"/apis/unknown.io/v1/things/q"}}
            {"metadata":{"name":"r","uid":"r1"}}"#;
        let (s, stats) = read(text);
        assert_eq!(names(&s), ["engines.longhorn.io", "p", "e"]);
        assert_eq!(stats.added, 3);
        assert!(row(&s, "", "v1", "Pod").namespaced);
        let e = row(&s, "longhorn.io", "v1beta1", "Engine");
        assert_eq!(e.plural, "engines");
        assert_eq!(s.skipped.len(), 2, "{:?}", s.skipped);
        assert!(s.skipped.iter().all(|s| s.reason.contains("no kind")));
    }

    #[test]
    fn discovery_documents_fill_plural_scope_verbs_and_not_listed_rows() {
        let text = r#"[{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[
              {"name":"daemonsets","namespaced":true,"kind":"DaemonSet","verbs":["get","list","watch","delete"]},
              {"name":"daemonsets/status","namespaced":true,"kind":"DaemonSet","verbs":["get"]}]}]
            [{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],
              "preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]"#;
        let (s, stats) = read(text);
        assert_eq!(stats.discovery, 2);
        let ds = row(&s, "apps", "v1", "DaemonSet");
        assert_eq!(ds.list, ListOutcome::NotListed);
        assert_eq!(ds.plural, "daemonsets");
        assert_eq!(ds.verbs.len(), 4);
        assert_eq!(s.resources.len(), 1);
    }

    #[test]
    fn server_version_detection() {
        let j = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert_eq!(
            server_version_hint(&j(
                r#"{"info":{"major":"1","minor":"23","gitVersion":"v1.23.5"},"string":"v1.23.5"}"#
            )),
            Some((0, "v1.23.5".into()))
        );
        assert_eq!(
            server_version_hint(&j(
                r#"{"clientVersion":{"gitVersion":"v1.30.0"},"serverVersion":{"gitVersion":"v1.29.2"}}"#
            )),
            Some((0, "v1.29.2".into()))
        );
        assert_eq!(
            server_version_hint(&j(r#"{"major":"1","minor":"20","gitVersion":"v1.20.2"}"#)),
            Some((0, "v1.20.2".into()))
        );
        assert_eq!(
            server_version_hint(&j(
                r#"{"bundleversion":"0.1.0","kubernetesversion":"v1.21.7+rke2r1"}"#
            )),
            Some((0, "v1.21.7+rke2r1".into()))
        );
        let co = r#"{"apiVersion":"config.openshift.io/v1","kind":"ClusterOperator",
            "metadata":{"name":"kube-apiserver","uid":"x"},
            "status":{"versions":[{"name":"raw-internal","version":"4.8.0"},{"name":"kube-apiserver","version":"1.21.1"}]}}"#;
        assert_eq!(server_version_hint(&j(co)), Some((1, "v1.21.1".into())));
        assert_eq!(server_version_hint(&j(r#"{"alerts":[]}"#)), None);

        // In a snapshot, the bundle's own statement beats the operator's.
        let (s, _) = read(&format!(
            "{co}\n{{\"info\":{{\"gitVersion\":\"v1.21.3\"}}}}"
        ));
        assert_eq!(s.provenance.server_version.as_deref(), Some("v1.21.3"));
        let (s, _) = read(co);
        assert_eq!(s.provenance.server_version.as_deref(), Some("v1.21.1"));
    }

    #[test]
    fn snapshot_given_as_input_is_an_error_with_a_hint() {
        let mut b = SnapshotBuilder::new(files_provenance(vec![]));
        let mut st = FileState::default();
        let text = r#"{"apiVersion":"kubectl-gc.io/v1","kind":"Snapshot","formatVersion":1}"#;
        let err = read_from_reader("snap.json", &mut text.as_bytes(), &mut b, &mut st).unwrap_err();
        assert_eq!(err.hint(), Some("use --snapshot FILE"));
    }

    #[test]
    fn gzip_input_is_decompressed() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(
            br#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n","uid":"u"}}"#,
        )
        .unwrap();
        let bytes = gz.finish().unwrap();
        let mut b = SnapshotBuilder::new(files_provenance(vec![]));
        let mut st = FileState::default();
        read_from_reader("x.json.gz", &mut &bytes[..], &mut b, &mut st).unwrap();
        assert_eq!(st.finish(b).store.len(), 1);
    }

    #[test]
    fn directories_are_read_like_kubectl() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let obj = |name: &str, uid: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}","namespace":"n","uid":"{uid}"}}}}"#
            )
        };
        std::fs::write(root.join("b.json"), obj("b", "2")).unwrap();
        std::fs::write(root.join("a.yaml"), obj("a", "1")).unwrap();
        std::fs::write(root.join("pod.log"), "not yaml: [").unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/c.yml"), obj("c", "3")).unwrap();
        std::fs::write(root.join("sub/broken.json"), "{ nope").unwrap();

        let flat = read_files(&FileOptions {
            paths: vec![root.to_path_buf()],
            recursive: false,
        })
        .unwrap();
        assert_eq!(names(&flat), ["a", "b"]);
        assert!(flat.skipped.is_empty());

        let (deep, stats) = read_files_with_stats(&FileOptions {
            paths: vec![root.to_path_buf()],
            recursive: true,
        })
        .unwrap();
        assert_eq!(names(&deep), ["a", "b", "c"]);
        assert_eq!(stats.files_ignored, 1);
        assert_eq!(deep.skipped.len(), 1);
        assert!(deep.skipped[0].source.ends_with("broken.json"));
        assert_eq!(deep.provenance.inputs, [root.display().to_string()]);

        let missing = read_files(&FileOptions {
            paths: vec![root.join("nope")],
            recursive: false,
        })
        .unwrap_err();
        assert!(missing.to_string().contains("no such file or directory"));
        assert!(missing.hint().is_some());

        let empty = tempfile::tempdir().unwrap();
        std::fs::create_dir(empty.path().join("deeper")).unwrap();
        let err = read_files(&FileOptions {
            paths: vec![empty.path().to_path_buf()],
            recursive: false,
        })
        .unwrap_err();
        assert!(err.hint().unwrap().contains("-R"), "{err}");

        let archive = root.join("must-gather.tar.xz");
        std::fs::write(&archive, [0xfd, b'7', b'z', b'X', b'Z', 0]).unwrap();
        let err = read_files(&FileOptions {
            paths: vec![archive],
            recursive: true,
        })
        .unwrap_err();
        assert!(err.hint().unwrap().contains("extract"), "{err}");
    }

    #[test]
    fn yaml_splitting_follows_kubectl() {
        let docs = split_yaml_documents("a: 1\n---\nb: 2\n--- # c\nc: 3\n--- |\n  text\n");
        assert_eq!(docs, ["a: 1\n", "b: 2\n", "c: 3\n--- |\n  text\n"]);
        assert!(is_empty_yaml("# only a comment\n\n...\n"));
    }

    #[test]
    fn plural_guess_and_version_priority() {
        assert_eq!(guess_plural("Ingress"), "ingresses");
        assert_eq!(guess_plural("NetworkPolicy"), "networkpolicies");
        assert_eq!(guess_plural("Gateway"), "gateways");
        assert_eq!(guess_plural("Machine"), "machines");
        let mut v = vec!["v1alpha1", "v2", "v1beta2", "v1", "v1beta1", "foo", "v10"];
        v.sort_by(|a, b| compare_version_priority(a, b));
        assert_eq!(
            v,
            ["v10", "v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "foo"]
        );
    }
}
