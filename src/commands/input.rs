//! Loading the snapshot a command works on: `--snapshot FILE`, `-f PATH…`, or the live cluster.

use crate::catalog::KubeVersion;
use crate::cli::GlobalArgs;
use crate::error::Result;
use crate::gc::GarbageCollector;
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
    /// The GC release to emulate.
    pub fn gc_version(&self, global: &GlobalArgs) -> KubeVersion {
        global
            .gc_version
            .unwrap_or_else(|| GarbageCollector::default_gc_version(&self.snapshot))
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
    }
}

/// Loads the input. `list_namespace_only`: when the command only looks at one namespace, a
/// live snapshot lists namespaced resources in that namespace only (the GC looks namespaced
/// owners up in the dependent's own namespace, so nothing is lost); cluster-scoped resources
/// are always listed completely.
pub async fn load(g: &GlobalArgs, list_namespace_only: bool) -> Result<Loaded> {
    if let Some(path) = &g.snapshot {
        let snapshot = format::read_file(path)?;
        return Ok(Loaded {
            snapshot,
            input: Input::SnapshotFile,
            namespace: g.namespace.clone(),
            default_namespace: g.namespace.clone().unwrap_or_else(|| "default".into()),
            connection: None,
        });
    }
    if !g.filename.is_empty() {
        let snapshot = files::read_files(&files::FileOptions {
            paths: g.filename.clone(),
            recursive: g.recursive,
        })?;
        return Ok(Loaded {
            snapshot,
            input: Input::Files,
            namespace: g.namespace.clone(),
            default_namespace: g.namespace.clone().unwrap_or_else(|| "default".into()),
            connection: None,
        });
    }
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
    let opts = live::LiveOptions {
        namespace: if list_namespace_only {
            namespace.clone()
        } else {
            None
        },
        page_size: g.chunk_size,
        concurrency: usize::from(g.concurrency),
    };
    let line = live::ProgressLine::stderr();
    let start = Instant::now();
    let snapshot = live::snapshot(&conn, &opts, &|p| line.update(&p)).await?;
    line.clear();
    eprintln!("{}", live::summary_line(&snapshot, start.elapsed()));
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
