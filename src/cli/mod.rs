//! The command line, as clap definitions only (no I/O). kubectl refuses flags placed before a
//! plugin's name, so every kubectl flag a user expects (`--kubeconfig`, `--context`, `-n`,
//! `-A`, …) is defined here and accepted anywhere after `kubectl gc`.

use crate::analysis::findings::Severity;
use crate::catalog::KubeVersion;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// See, predict and control what the Kubernetes garbage collector does.
#[derive(Parser, Debug)]
#[command(
    name = "kubectl-gc",
    bin_name = "kubectl gc",
    version = crate::build_info::VERSION_LINE,
    about = "See, predict and control what the Kubernetes garbage collector (GC) does",
    long_about = "See, predict and control what the Kubernetes garbage collector (GC) does.\n\n\
kubectl-gc builds the same owner/dependent graph as the GC in kube-controller-manager, \
classifies every ownerReference the way the GC does (solid, dangling, waiting for \
dependents deletion, unresolvable), and predicts what the GC will delete, patch or \
wait for. It reads a live cluster (metadata only), a snapshot file, or kubectl/must-gather \
output.",
    after_help = "Examples:\n  kubectl gc audit -A\n  kubectl gc audit --snapshot cluster.ndjson.gz -o json\n  kubectl get all,cm,secrets -A -o json | kubectl gc audit -f -\n  kubectl gc collect --delete deployment/web -n shop --cascade=foreground\n  kubectl gc snapshot -o cluster.ndjson.gz"
)]
pub struct Cli {
    /// Flags shared by every command.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Where the data comes from, and how to reach the cluster.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Input and cluster")]
pub struct GlobalArgs {
    /// Read a snapshot written by `kubectl gc snapshot` instead of the cluster.
    #[arg(long, global = true, value_name = "FILE", conflicts_with = "filename")]
    pub snapshot: Option<PathBuf>,
    /// Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers
    /// (files, directories, `-` for stdin; repeatable).
    #[arg(short = 'f', long = "filename", global = true, value_name = "PATH")]
    pub filename: Vec<PathBuf>,
    /// Walk directories given with -f recursively.
    #[arg(short = 'R', long, global = true)]
    pub recursive: bool,
    /// Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config).
    #[arg(long, global = true, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub context: Option<String>,
    /// The kubeconfig cluster to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub cluster: Option<String>,
    /// The kubeconfig user to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub user: Option<String>,
    /// Username to impersonate.
    #[arg(long = "as", global = true, value_name = "USER")]
    pub as_user: Option<String>,
    /// Group to impersonate (repeatable).
    #[arg(long = "as-group", global = true, value_name = "GROUP")]
    pub as_group: Vec<String>,
    /// Time to wait for one API request (e.g. 30s, 2m; 0 = no limit).
    #[arg(long, global = true, value_name = "DURATION", value_parser = parse_duration)]
    pub request_timeout: Option<std::time::Duration>,
    /// Only this namespace (default: the context's namespace for live clusters, all for files).
    #[arg(short = 'n', long, global = true, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// All namespaces.
    #[arg(short = 'A', long, global = true, conflicts_with = "namespace")]
    pub all_namespaces: bool,
    /// Resources listed concurrently from a live cluster.
    #[arg(long, global = true, default_value_t = 8, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub concurrency: u16,
    /// Objects per list page.
    #[arg(long, global = true, default_value_t = 500, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk_size: u32,
    /// Emulate this kube-controller-manager release's GC (default: the cluster's version, else
    /// the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200).
    #[arg(long, global = true, value_name = "VERSION", value_parser = parse_version)]
    pub gc_version: Option<KubeVersion>,
    /// Colour: auto (only on a terminal and without NO_COLOR), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// When to colour output.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Classify every ownerReference as the GC would and report what is wrong.
    #[command(
        after_help = "Examples:\n  kubectl gc audit -A\n  kubectl gc audit -n shop -o wide\n  kubectl gc audit --snapshot snap.ndjson --gc-version 1.19 -o json\n  kubectl get all -A -o json | kubectl gc audit -f - --fail-on critical\n\nExit codes: 0 no finding at or above --fail-on; 5 findings; 2 usage; 3 bad input; 4 cluster unreachable."
    )]
    Audit(AuditArgs),
    /// Show what the GC would delete or patch (dry run), or preview a delete's cascade.
    #[command(
        after_help = "Examples:\n  kubectl gc collect -A\n  kubectl gc collect --delete deployment/web -n shop --cascade=foreground\n  kubectl gc collect --snapshot snap.ndjson -o json"
    )]
    Collect(CollectArgs),
    /// Write a snapshot of every deletable resource's object metadata.
    #[command(
        after_help = "Examples:\n  kubectl gc snapshot -o cluster.ndjson.gz\n  kubectl gc snapshot -n shop -o shop.ndjson"
    )]
    Snapshot(SnapshotArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completion(CompletionArgs),
}

/// Output formats of reports.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    /// A table.
    Table,
    /// A table with more columns.
    Wide,
    /// JSON (stable, documented schema).
    Json,
    /// YAML (same schema as JSON).
    Yaml,
}

/// `--fail-on` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// Never fail because of findings.
    Never,
    /// Fail on findings at or above this severity.
    At(Severity),
}

fn parse_fail_on(s: &str) -> Result<FailOn, String> {
    if s == "never" {
        Ok(FailOn::Never)
    } else {
        s.parse::<Severity>()
            .map(FailOn::At)
            .map_err(|_| format!("expected never, info, warning, error or critical, got {s:?}"))
    }
}

fn parse_version(s: &str) -> Result<KubeVersion, String> {
    s.parse()
}

/// Parses `30s`, `2m`, `1h`, `500ms`, `0` (kubectl's --request-timeout syntax).
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    if s == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    let split = s
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("invalid duration {s:?} (e.g. 30s, 2m)"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" | "" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("invalid duration unit in {s:?} (ms, s, m, h)")),
    };
    Ok(std::time::Duration::from_secs_f64(secs))
}

/// `audit` flags.
#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = ReportFormat::Table)]
    pub output: ReportFormat,
    /// Only objects matching this label selector (the analysis still sees everything).
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Only objects of these kinds (kind, plural or kind.group; repeatable or comma-separated).
    #[arg(long, value_name = "KIND", value_delimiter = ',')]
    pub kind: Vec<String>,
    /// Exit with code 5 when a finding has at least this severity
    /// (never, info, warning, error, critical).
    #[arg(long, default_value = "error", value_name = "SEVERITY", value_parser = parse_fail_on)]
    pub fail_on: FailOn,
}

/// Cascade policies for `collect --delete`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cascade {
    /// propagationPolicy=Background (kubectl's default).
    Background,
    /// propagationPolicy=Foreground.
    Foreground,
    /// propagationPolicy=Orphan.
    Orphan,
    /// No policy: the type's default (RC, Job and CronJob orphan; others background).
    Default,
}

/// `collect` flags.
#[derive(Args, Debug)]
pub struct CollectArgs {
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = ReportFormat::Table)]
    pub output: ReportFormat,
    /// Preview deleting this object (KIND/NAME, e.g. deployment/web or deployments.apps/web).
    #[arg(long, value_name = "KIND/NAME")]
    pub delete: Option<String>,
    /// Propagation policy of the previewed delete.
    #[arg(long, value_enum, default_value_t = Cascade::Background, requires = "delete")]
    pub cascade: Cascade,
}

/// `snapshot` flags.
#[derive(Args, Debug)]
pub struct SnapshotArgs {
    /// File to write (gzip-compressed when it ends in .gz; `-` for stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}

/// `completion` arguments.
#[derive(Args, Debug)]
pub struct CompletionArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn durations_parse_like_kubectl() {
        assert_eq!(parse_duration("30s").unwrap().as_secs(), 30);
        assert_eq!(parse_duration("2m").unwrap().as_secs(), 120);
        assert_eq!(parse_duration("500ms").unwrap().as_millis(), 500);
        assert_eq!(parse_duration("0").unwrap().as_secs(), 0);
        assert!(parse_duration("soon").is_err());
    }

    #[test]
    fn global_flags_are_accepted_after_the_subcommand() {
        let cli = Cli::try_parse_from([
            "kubectl-gc",
            "audit",
            "--context",
            "prod",
            "-A",
            "-o",
            "json",
        ])
        .unwrap();
        assert_eq!(cli.global.context.as_deref(), Some("prod"));
        assert!(cli.global.all_namespaces);
    }
}
