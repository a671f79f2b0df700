//! Loading the snapshot a command works on: `--snapshot FILE`, `-f PATH…`, or the live cluster.

use crate::catalog::KubeVersion;
use crate::cli::GlobalArgs;
use crate::error::Result;
use crate::gc::GarbageCollector;
use crate::render::text::sanitized;
use crate::snapshot::{Snapshot, format};
use crate::source::{files, live};
use std::time::Instant;

/// Where the snapshot came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// `--snapshot FILE`.
    SnapshotFile,
    /// `-f`.
    Files,
    /// The cluster.
    Live,
}

/// A loaded snapshot and what the command line says about scope.
pub struct Loaded {
    /// The snapshot.
    pub snapshot: Snapshot,
    /// Where it came from.
    pub input: Input,
    /// The namespace findings and actions are limited to (`None`: all).
    pub namespace: Option<String>,
    /// The namespace a `KIND/NAME` argument lives in when `-n` is not given.
    pub default_namespace: String,
    /// The live connection, when the input is the cluster.
    pub connection: Option<live::Connection>,
}

impl Loaded {
    /// The GC release to emulate: `--gc-version`, else the cluster's (read live or recorded in
    /// the snapshot), else the newest.
    pub fn gc_version(&self, global: &GlobalArgs) -> KubeVersion {
        self.known_gc_version(global)
            .unwrap_or_else(|| GarbageCollector::default_gc_version(&self.snapshot))
    }

    /// The GC release when something says which one runs: `--gc-version` or the cluster's
    /// version. `None` for file input without `--gc-version` (the newest is then emulated,
    /// a guess that `check upgrade` must not build on).
    pub fn known_gc_version(&self, global: &GlobalArgs) -> Option<KubeVersion> {
        global
            .gc_version
            .or_else(|| GarbageCollector::server_gc_version(&self.snapshot))
    }

    /// A warning when the cluster's version is outside the modelled range and no
    /// `--gc-version` chooses (the nearest modelled line is emulated).
    pub fn version_warning(&self, global: &GlobalArgs) -> Option<String> {
        if global.gc_version.is_some() {
            return None;
        }
        let server = self.snapshot.provenance.server_version.as_deref()?;
        KubeVersion::emulated_for_server(server)?.1
    }
}

/// Connection options from the global flags.
pub fn connect_options(g: &GlobalArgs) -> live::ConnectOptions {
    live::ConnectOptions {
        kubeconfig: g.kubeconfig.clone(),
        context: g.context.clone(),
        cluster: g.cluster.clone(),
        user: g.user.clone(),
        namespace: g.namespace.clone(),
        // kubectl's `--request-timeout 0` means no timeout: passed on as zero, not as unset.
        request_timeout: g.request_timeout,
        as_user: g.as_user.clone(),
        as_groups: g.as_group.clone(),
        overrides: live::Overrides {
            server: g.server.clone(),
            token: g.token.clone(),
            certificate_authority: g.certificate_authority.clone(),
            client_certificate: g.client_certificate.clone(),
            client_key: g.client_key.clone(),
            tls_server_name: g.tls_server_name.clone(),
            insecure_skip_tls_verify: g.insecure_skip_tls_verify,
            as_uid: g.as_uid.clone(),
        },
    }
}

/// Loads the input. `list_namespace_only`: when the command only looks at one namespace, a
/// live snapshot lists namespaced resources in that namespace only (the GC looks namespaced
/// owners up in the dependent's own namespace, so nothing is lost); cluster-scoped resources
/// are always listed completely.
pub async fn load(g: &GlobalArgs, list_namespace_only: bool) -> Result<Loaded> {
    if let Some(path) = &g.snapshot {
        let (snapshot, integrity) = format::read_path(path, g.max_input_size)?;
        if integrity == format::Integrity::Unverified {
            eprintln!(
                "note: {} has no integrity trailer (written by an older kubectl-gc): lines lost or changed since cannot be detected",
                sanitized(&path.display().to_string())
            );
        }
        let mut snapshot = snapshot;
        if snapshot.provenance.server_version.is_none() {
            snapshot.assumed_version = g.gc_version;
        }
        return Ok(Loaded {
            snapshot,
            input: Input::SnapshotFile,
            namespace: g.namespace.clone(),
            default_namespace: g.namespace.clone().unwrap_or_else(|| "default".into()),
            connection: None,
        });
    }
    if !g.filename.is_empty() {
        let start = Instant::now();
        let (snapshot, stats, problems) = files::read_files_reporting(&file_options(g))?;
        // Broken documents skipped with --skip-broken-input are still reported, one line each.
        for p in &problems {
            eprintln!("warning: {}", sanitized(&p.to_string()));
        }
        if stats.files > 0 && says_what_was_read(g) {
            eprintln!("{}", stats.summary_line(start.elapsed()));
        } else if stats.redacted > 0 {
            eprintln!("note: {}", stats.redacted_note());
        }
        let mut snapshot = snapshot;
        if snapshot.provenance.server_version.is_none() {
            // --gc-version names the release: its served API versions are the cluster's.
            snapshot.assumed_version = g.gc_version;
        }
        return Ok(Loaded {
            snapshot,
            input: Input::Files,
            namespace: g.namespace.clone(),
            default_namespace: g.namespace.clone().unwrap_or_else(|| "default".into()),
            connection: None,
        });
    }
    load_live(g, list_namespace_only, None).await
}

/// Loads the live cluster of `g`'s context. `fleet`: the context's name when several
/// clusters load at once (`--context a,b`): no progress line (they would overwrite each
/// other), and the summary line names the context.
pub async fn load_live(
    g: &GlobalArgs,
    list_namespace_only: bool,
    fleet: Option<&str>,
) -> Result<Loaded> {
    let conn = live::connect(&connect_options(g)).await?;
    let namespace = if g.all_namespaces {
        None
    } else {
        Some(
            g.namespace
                .clone()
                .unwrap_or_else(|| conn.default_namespace.clone()),
        )
    };
    let opts = live_options(
        g,
        if list_namespace_only {
            namespace.clone()
        } else {
            None
        },
    );
    let line = live::ProgressLine::new(fleet.is_none() && live::ProgressLine::stderr().enabled());
    let start = Instant::now();
    let snapshot = live::snapshot(&conn, &opts, &|p| line.update(&p)).await?;
    line.clear();
    if says_what_was_read(g) {
        match fleet {
            Some(context) => eprintln!(
                "{}: {}",
                crate::render::text::sanitize(context),
                live::summary_line(&snapshot, start.elapsed())
            ),
            None => eprintln!("{}", live::summary_line(&snapshot, start.elapsed())),
        }
    }
    Ok(Loaded {
        snapshot,
        input: Input::Live,
        default_namespace: g
            .namespace
            .clone()
            .unwrap_or_else(|| conn.default_namespace.clone()),
        namespace,
        connection: Some(conn),
    })
}

/// How to list the cluster, from the global flags: `namespace` limits namespaced resources.
/// Without `--chunk-size`, pages grow while the server answers them quickly.
pub fn live_options(g: &GlobalArgs, namespace: Option<String>) -> live::LiveOptions {
    live::LiveOptions {
        namespace,
        page_size: g.chunk_size.unwrap_or(live::DEFAULT_PAGE_SIZE),
        max_page_size: match g.chunk_size {
            Some(_) => None,
            None => Some(live::DEFAULT_MAX_PAGE_SIZE),
        },
        concurrency: usize::from(g.concurrency),
        ..live::LiveOptions::default()
    }
}

/// The one-line account of what was read ("read 50 objects from 1 file in 0.2s") is progress:
/// shown on a terminal, or on any stderr with `-v 1` and more, never mixed into a pipeline's
/// or a CI log's stderr unasked (where an error must be the first line).
fn says_what_was_read(g: &GlobalArgs) -> bool {
    super::progress::enabled() || g.verbosity.is_some_and(|v| v >= 1)
}

/// The `-f` reader's options from the global flags.
pub fn file_options(g: &GlobalArgs) -> files::FileOptions {
    files::FileOptions {
        paths: g.filename.clone(),
        recursive: g.recursive,
        keep_going: g.skip_broken_input,
        assume_complete: g.assume_complete,
        // `GlobalArgs::default()` (tests) has no limit set: use the default one.
        max_input_bytes: match g.max_input_size {
            0 => files::DEFAULT_MAX_INPUT_BYTES,
            n => n,
        },
        manifests: false,
    }
}

/// `-f` read as what is to be created or restored (`check apply`, `relink`): every kind it
/// holds is all there is of it, and objects without a UID (manifests as people write them)
/// are read too. Broken documents skipped with --skip-broken-input are reported.
/// Also returns where each object came from (file, line), for findings to point at.
pub fn read_manifests(g: &GlobalArgs) -> Result<(crate::snapshot::Snapshot, files::Origins)> {
    let (snapshot, _stats, problems, origins) =
        files::read_files_with_origins(&files::FileOptions {
            assume_complete: true,
            manifests: true,
            ..file_options(g)
        })?;
    for p in &problems {
        eprintln!("warning: {}", sanitized(&p.to_string()));
    }
    Ok((snapshot, origins))
}
