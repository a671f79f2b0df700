//! Every flag a command accepts does something with its input, or is refused with the reason.
//!
//! The global flags (`kubectl gc options`) are accepted anywhere on the command line, as
//! kubectl's are; this is where a command says which of them it cannot honour: cluster
//! connection flags when the input is a file, selection flags for `snapshot`, anything for
//! the commands that read no input, and the command-specific mismatches (`check restart --to`,
//! `snapshot -o json`).

use crate::cli::{CheckWhat, GlobalArgs, GraphFormat, ReportFormat};
use crate::error::{Error, Result};

/// Which command is checking its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmd {
    /// `audit`.
    Audit,
    /// `check` (and which subcommand).
    Check(Option<CheckWhat>),
    /// `collect`.
    Collect,
    /// `graph` (`from_gc`: `--from-gc` is given, whose credentials come from the kubeconfig).
    Graph {
        /// `--from-gc` given.
        from_gc: bool,
    },
    /// `snapshot`.
    Snapshot,
    /// `watch`.
    Watch,
    /// `why`.
    Why,
    /// `history`: audit logs, the state before from files only, the state after from files
    /// or (`after_cluster`) the cluster.
    History {
        /// `--after cluster`: the cluster is read.
        after_cluster: bool,
        /// A state (before or after) is given, whose labels `-l` can select by.
        with_state: bool,
    },
    /// `policy`: no cluster; -f or --snapshot only for their custom resources.
    Policy,
    /// `relink`: -f is the backup, the cluster (or --target) what is relinked.
    Relink,
    /// `completion`, `options`, `version`: no input at all.
    NoInput(&'static str),
}

/// The global flags that select or configure a connection to a cluster (clap ids).
pub(super) const CONNECTION: &[&str] = &[
    "kubeconfig",
    "context",
    "cluster",
    "user",
    "server",
    "token",
    "certificate_authority",
    "client_certificate",
    "client_key",
    "tls_server_name",
    "insecure_skip_tls_verify",
    "as_user",
    "as_group",
    "as_uid",
    "request_timeout",
    "concurrency",
    "chunk_size",
];

/// The flag as typed, for messages.
fn flag(id: &str) -> String {
    match id {
        "as_user" => "--as".into(),
        "filename" => "-f".into(),
        "verbosity" => "-v".into(),
        other => format!("--{}", other.replace('_', "-")),
    }
}

/// Refuses the global flags `cmd` cannot honour.
pub fn check_global(cmd: Cmd, g: &GlobalArgs) -> Result<()> {
    if let Cmd::NoInput(name) = cmd {
        if let Some(id) = g.given.first() {
            return Err(Error::usage(
                format!("{} does nothing for {name}: it reads no input", flag(id)),
                format!("drop {}", flag(id)),
            ));
        }
        return Ok(());
    }
    if g.given("recursive") && g.filename.is_empty() {
        return Err(Error::usage(
            "-R walks the directories given with -f, and no -f is given",
            "add -f DIR, or drop -R",
        ));
    }
    let file_input = if g.snapshot.is_some() {
        Some("--snapshot")
    } else if !g.filename.is_empty() {
        Some("-f")
    } else {
        None
    };
    // graph --from-gc reaches the GC's endpoint with the kubeconfig's credentials; history
    // reads no cluster at all.
    // check apply reads -f as what is applied, and the cluster (or --snapshot) as the target.
    let history = matches!(cmd, Cmd::History { .. });
    let connects = (file_input.is_none() && !history && cmd != Cmd::Policy)
        || matches!(cmd, Cmd::Graph { from_gc: true })
        || matches!(
            cmd,
            Cmd::History {
                after_cluster: true,
                ..
            }
        )
        || cmd == Cmd::Check(Some(CheckWhat::Apply))
        || cmd == Cmd::Relink;
    if !connects && let Some(id) = CONNECTION.iter().find(|id| g.given(id)) {
        if cmd == Cmd::Policy {
            return Err(Error::usage(
                format!(
                    "{} applies to a cluster, and policy reads no cluster: the kinds come from --release, -f and --snapshot",
                    flag(id)
                ),
                format!(
                    "drop {}; for the cluster's custom resources, take a snapshot first (kubectl gc snapshot) and give --snapshot",
                    flag(id)
                ),
            ));
        }
        if history {
            return Err(Error::usage(
                format!(
                    "{} applies to a cluster, and history reads no cluster: only audit logs, --snapshot/-f and --after FILE",
                    flag(id)
                ),
                format!(
                    "drop {}, or read the cluster as the state after: --after cluster",
                    flag(id)
                ),
            ));
        }
        return Err(Error::usage(
            format!(
                "{} applies to a cluster, but the input is {}: nothing is read from a cluster",
                flag(id),
                file_input.unwrap_or("a file")
            ),
            format!(
                "drop {}, or drop {} to read the cluster",
                flag(id),
                file_input.unwrap_or("the file")
            ),
        ));
    }
    if cmd == Cmd::Watch {
        for id in ["selector", "kind", "field_selector"] {
            if g.given(id) {
                return Err(Error::usage(
                    format!(
                        "{} is not honoured by watch: it evaluates the GC's whole graph and narrows what it prints by -n only",
                        flag(id)
                    ),
                    format!(
                        "drop {}; filter the NDJSON of watch -o json (e.g. with jq), or use -n NS",
                        flag(id)
                    ),
                ));
            }
        }
    }
    if let Cmd::History { with_state, .. } = cmd {
        for id in ["selector", "field_selector", "gc_version"] {
            // -l selects by the labels a state (before or after) holds.
            if id == "selector" && with_state {
                continue;
            }
            if id == "selector" && g.given(id) {
                return Err(Error::usage(
                    "-l selects by labels, and audit events carry none: it needs a state that has them",
                    "add the state before (--snapshot FILE or -f PATH) or after (--after PATH|cluster), or drop -l",
                ));
            }
            if g.given(id) {
                return Err(Error::usage(
                    format!(
                        "{} does nothing for history: audit events carry no labels or fields, and the log says what the GC did",
                        flag(id)
                    ),
                    format!(
                        "drop {}; -n, --kind, --actor and --since/--until select",
                        flag(id)
                    ),
                ));
            }
        }
    }
    if cmd == Cmd::Policy {
        for id in [
            "selector",
            "kind",
            "field_selector",
            "namespace",
            "gc_version",
        ] {
            if g.given(id) {
                return Err(Error::usage(
                    format!(
                        "{} does nothing for policy: it reads only the kinds -f or --snapshot define",
                        flag(id)
                    ),
                    format!(
                        "drop {}; --release names the Kubernetes release, --only-namespace/--skip-namespace the namespaces judged",
                        flag(id)
                    ),
                ));
            }
        }
    }
    if matches!(cmd, Cmd::Why | Cmd::Relink) {
        for id in ["selector", "kind", "field_selector"] {
            if g.given(id) {
                return Err(Error::usage(
                    format!(
                        "{} selects objects; why explains the one object it is given",
                        flag(id)
                    ),
                    format!(
                        "drop {}; name the object as KIND/NAME (-n for its namespace)",
                        flag(id)
                    ),
                ));
            }
        }
    }
    if cmd == Cmd::Snapshot {
        for id in ["selector", "kind", "field_selector"] {
            if g.given(id) {
                return Err(Error::usage(
                    format!(
                        "{} would leave objects out of the snapshot, and their dependents' owners would then be unknown",
                        flag(id)
                    ),
                    format!(
                        "snapshot everything (-n NS for one namespace) and give {} when reading it",
                        flag(id)
                    ),
                ));
            }
        }
        for id in ["gc_version", "color"] {
            if g.given(id) {
                return Err(Error::usage(
                    format!(
                        "{} does nothing for snapshot: it records what was read, for any GC release, and prints no table",
                        flag(id)
                    ),
                    format!("drop {}; give it when reading the snapshot", flag(id)),
                ));
            }
        }
    }
    Ok(())
}

/// `check`'s own mismatches: `--to`/`--crd` are for the upgrade check.
pub fn check_check(what: Option<CheckWhat>, to_given: bool, crd_given: bool) -> Result<()> {
    if let Some(w @ (CheckWhat::Restart | CheckWhat::Health)) = what {
        let name = if w == CheckWhat::Restart {
            "restart"
        } else {
            "health"
        };
        for (given, f) in [(to_given, "--to"), (crd_given, "--crd")] {
            if given {
                return Err(Error::usage(
                    format!("{f} is for the upgrade check; check {name} does not use it"),
                    format!(
                        "kubectl gc check upgrade {f} …, or kubectl gc check {f} … (restart, health and upgrade)"
                    ),
                ));
            }
        }
    }
    if what.is_none() && crd_given && !to_given {
        return Err(Error::usage(
            "--crd is for the upgrade check, which runs only with --to",
            "add --to VERSION",
        ));
    }
    Ok(())
}

/// List-output flags that a report format cannot honour.
pub fn check_report_output(
    format: ReportFormat,
    list: &crate::cli::ListOutputArgs,
    apply: bool,
) -> Result<()> {
    if list.no_headers
        && !matches!(
            format,
            ReportFormat::Table | ReportFormat::Wide | ReportFormat::CustomColumns(_)
        )
    {
        return Err(Error::usage(
            "--no-headers applies to table, wide and custom-columns output",
            "drop --no-headers",
        ));
    }
    if (!list.label_columns.is_empty() || list.show_labels) && !format.is_table() {
        return Err(Error::usage(
            "-L and --show-labels add table columns; this output has none",
            "use -o table or -o wide, or a custom-columns=…:.object.name column",
        ));
    }
    if apply {
        if !matches!(
            format,
            ReportFormat::Table | ReportFormat::Wide | ReportFormat::Json | ReportFormat::Yaml
        ) {
            return Err(Error::usage(
                "--apply reports as table, wide, json or yaml",
                "drop -o, or use one of those",
            ));
        }
        if list.sort_by.is_some() {
            return Err(Error::usage(
                "--sort-by with --apply: actions are performed and reported in the GC's wave order",
                "drop --sort-by",
            ));
        }
    }
    Ok(())
}

/// `graph`'s output mismatches.
pub fn check_graph_output(format: GraphFormat, no_headers: bool) -> Result<()> {
    if no_headers && !matches!(format, GraphFormat::Tree | GraphFormat::CustomColumns(_)) {
        return Err(Error::usage(
            "--no-headers applies to tree and custom-columns output",
            "drop --no-headers",
        ));
    }
    Ok(())
}

/// `snapshot -o json` (a format name where a file name belongs).
pub fn check_snapshot_output(path: &std::path::Path) -> Result<()> {
    let text = path.to_string_lossy();
    let formats = [
        "json", "yaml", "table", "wide", "name", "ndjson", "tree", "dot",
    ];
    if formats.contains(&text.as_ref())
        || text.starts_with("jsonpath")
        || text.starts_with("custom-columns")
    {
        return Err(Error::usage(
            format!(
                "snapshot -o takes the file to write, and {text:?} looks like an output format"
            ),
            format!(
                "snapshots are always NDJSON: -o cluster.ndjson (or .ndjson.gz), -o - for stdout; to write a file named {text}, use -o ./{text}"
            ),
        ));
    }
    Ok(())
}
