//! The command line, as clap definitions only (no I/O). kubectl refuses flags placed before a
//! plugin's name, so every kubectl flag a user expects (`--kubeconfig`, `--context`, `-n`,
//! `-A`, …) is defined here and accepted anywhere after `kubectl gc`.

pub mod complete;

use crate::catalog::KubeVersion;
use crate::diagnose::Severity;
pub use crate::render::ColorChoice;
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

/// Commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Classify every ownerReference as the GC would and report what is wrong.
    #[command(
        long_about = "Classify every ownerReference as the GC would and report what is wrong.\n\n\
The GC looks up each ownerReference by apiVersion/kind/name in the dependent's own namespace \
(or at cluster scope) and compares UIDs; once a dependent has no solid owner left, it deletes \
it. audit does the same over every object read and reports references that are dangling, point \
into another namespace, name a recreated owner, cannot be resolved, block a foreground \
deletion or form cycles (codes GC001-GC014), each with the GC's consequence and a remedy. \
Owners the input cannot see (forbidden or unlisted resources) are reported as unknown, never as \
missing. audit only reads.\n\n\
Input: the live cluster by default (the context's namespace; -A for all), --snapshot FILE, or \
-f PATH."
    )]
    #[command(
        after_help = "Examples:\n  kubectl gc audit -A\n  kubectl gc audit -n shop -o wide\n  kubectl gc audit --snapshot snap.ndjson --gc-version 1.19 -o json\n  kubectl get all -A -o json | kubectl gc audit -f - --fail-on critical\n\nExit codes: 0 no finding at or above --fail-on; 5 findings; 2 usage; 3 bad input; 4 cluster unreachable."
    )]
    Audit(AuditArgs),
    /// Show what the GC would delete or patch (dry run), or preview a delete's cascade.
    #[command(
        long_about = "Show what the GC would delete or patch (dry run), or preview a delete's cascade.\n\n\
collect runs the GC's decisions to a fixpoint, as the GC would reach it: dependents without a \
solid owner are deleted (propagationPolicy as the GC sends it), orphaned dependents lose their \
ownerReferences, foreground deletions finish once no blocking dependent is left, and the \
orphan/foregroundDeletion finalizers are removed. Actions are listed in waves, with the \
request the GC sends and each touched object's end state (deleted, terminating and held by \
whose finalizer, or kept).\n\n\
--delete KIND/NAME previews a delete by you: the API server's finalizers for --cascade, then \
the GC's cascade. Nothing is changed unless --apply is given."
    )]
    #[command(
        after_help = "Examples:\n  kubectl gc collect -A\n  kubectl gc collect --delete deployment/web -n shop --cascade=foreground\n  kubectl gc collect --snapshot snap.ndjson -o json\n  kubectl gc collect -n shop --apply --record shop-gc.json\n\nExit codes: 0 done (or dry run); 7 --apply refused or stopped early; 2 usage; 3 bad input; 4 cluster unreachable."
    )]
    Collect(CollectArgs),
    /// Safety gates for CI: what a GC restart or an upgrade would delete, and what blocks the GC.
    #[command(
        long_about = "Safety gates for CI: what a GC restart or an upgrade would delete, and what blocks the GC.\n\n\
restart: a freshly started GC rebuilds its graph from scratch; it verifies owners it has not \
seen and (1.20+) re-checks references that disagree with their owner, so garbage that a long-running \
GC never looked at is deleted right after a kube-controller-manager restart. This lists those \
deletions and their cascade (GC015), dependents it never evaluates (GC020), and, for GC < 1.20, \
deletions that depend on list order (GC016, kubernetes#65200).\n\n\
upgrade --to VERSION: decisions that change between the cluster's GC and the target (GC017; e.g. \
crossing 1.20 cross-namespace dependents become deterministically deleted and cluster-scoped \
dependents of namespaced owners stop being deleted), and ownerReferences whose apiVersion/kind \
the target (or a new CRD manifest given with --crd) no longer serves (GC018: never collected).\n\n\
health: deletable resources the GC cannot list or watch (GC019) and deletions that do not \
progress (GC008, GC009, GC013).\n\n\
Without a subcommand: restart and health (plus upgrade when --to is given)."
    )]
    #[command(
        after_help = "Examples:\n  kubectl gc check -A\n  kubectl gc check restart --snapshot snap.ndjson -o json\n  kubectl gc check upgrade --to 1.25 -A --crd new-crds.yaml\n  kubectl gc check -A --write-baseline gc-baseline.json\n  kubectl gc check -A --baseline gc-baseline.json --fail-on warning --strict-coverage\n\nExit codes: 0 no finding at or above --fail-on; 5 findings; 6 coverage incomplete (--strict-coverage); 2 usage; 3 bad input; 4 cluster unreachable."
    )]
    Check(CheckArgs),
    /// Write a snapshot of every deletable resource's object metadata.
    #[command(
        long_about = "Write a snapshot of every deletable resource's object metadata.\n\n\
The snapshot holds what the GC's graph is built from: the metadata (names, UIDs, \
ownerReferences, finalizers, deletion timestamps, labels) of every object of every resource \
the GC watches (verbs delete, list and watch; minus the GC's ignored resources), plus how \
completely each resource was read. No spec, status or Secret data is stored. `audit \
--snapshot FILE` and `collect --snapshot FILE` then answer as the cluster would have at that \
moment, offline and elsewhere. -f converts kubectl output or a must-gather into a snapshot."
    )]
    #[command(
        after_help = "Examples:\n  kubectl gc snapshot -o cluster.ndjson.gz\n  kubectl gc snapshot -n shop -o shop.ndjson"
    )]
    Snapshot(SnapshotArgs),
    /// Show the ownership graph as the GC sees it: a tree, or DOT identical to the GC's debug
    /// endpoint, Mermaid or JSON; or compare it with the GC's own graph.
    #[command(
        after_help = "Examples:\n  kubectl gc graph deployment/web -n shop\n  kubectl gc graph --uid 6b5a8715-c7b9-4175-aa93-bf50a1b31672 -o dot | dot -Tsvg > web.svg\n  kubectl gc graph pod/web-5d4f-abc -n shop --direction up\n  kubectl gc graph -A -o mermaid\n  kubectl gc graph deployment/web -n shop --from-gc http://127.0.0.1:10252\n\nWithout KIND/NAME or --uid: every object that has an owner or a dependent. With them: their \
whole connected component(s), as the GC endpoint's ?uid= (narrow with --direction and --depth).\n\
Default output: tree on a terminal, DOT otherwise.\n\nExit codes: 0 ok; 5 --from-gc found differences; 2 usage; 3 bad input; 4 cluster or GC endpoint unreachable."
    )]
    Graph(GraphArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    #[command(
        long_about = "Print a shell completion script (bash, zsh, fish, powershell, elvish) for the \
kubectl-gc command.\n\n\
`kubectl gc <TAB>` is completed by kubectl itself (kubectl >= 1.26), which asks the \
kubectl_complete-gc shim for candidates: put that shim (in the release archive, and in \
completions/ of the source) on your PATH next to kubectl-gc.",
        after_help = concat!(
            "Examples:\n",
            "  source <(kubectl gc completion bash)          # bash, this shell only\n",
            "  kubectl gc completion zsh > \"${fpath[1]}/_kubectl-gc\"\n",
            "  kubectl gc completion fish > ~/.config/fish/completions/kubectl-gc.fish\n",
            "  kubectl gc completion powershell | Out-String | Invoke-Expression\n\n",
            "`kubectl gc <TAB>` after a krew install (kubectl >= 1.26):\n",
            "  krew=\"${KREW_ROOT:-$HOME/.krew}\"\n",
            "  ln -sf \"$krew/store/gc/v",
            env!("CARGO_PKG_VERSION"),
            "/kubectl_complete-gc\" \"$krew/bin/\""
        )
    )]
    Completion(CompletionArgs),
    /// Generate a synthetic cluster for GC benchmarks and load tests (see BENCHMARKS.md):
    /// a snapshot file, or objects created in a disposable test cluster.
    #[command(
        hide = true,
        after_help = "Examples:\n  kubectl gc generate --objects 1000000 -o synthetic.ndjson\n  kubectl gc generate --objects 50000 --apply-to-kubeconfig /tmp/testenv/kubeconfig"
    )]
    Generate(GenerateArgs),
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
    /// Live clusters: attach the `OwnerRefInvalidNamespace` events the GC has recorded to the
    /// matching cross-namespace findings (one extra list of core Events).
    #[arg(long)]
    pub events: bool,
    /// Gate flags shared with `check`.
    #[command(flatten)]
    pub gate: GateArgs,
}

/// CI gate flags shared by `audit` and `check`.
#[derive(Args, Debug, Clone, Default)]
pub struct GateArgs {
    /// Exit with code 6 when some resource could not be read (forbidden, failed, discovery
    /// errors), even if nothing else is wrong.
    #[arg(long, global = true)]
    pub strict_coverage: bool,
    /// Suppress the findings recorded in this baseline file (see --write-baseline).
    #[arg(long, global = true, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write the current findings as a baseline file (then exit as usual).
    #[arg(long, global = true, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
}

/// What `check` examines.
#[derive(Subcommand, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckWhat {
    /// What a restarted GC deletes or strips right after it starts.
    Restart,
    /// What changes when the GC is upgraded (--to required).
    Upgrade,
    /// Resources the GC cannot list or watch, and deletions that do not progress.
    Health,
}

/// `check` flags.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Which check (default: restart and health, plus upgrade when --to is given).
    #[command(subcommand)]
    pub what: Option<CheckWhat>,
    /// Target Kubernetes version for the upgrade check (e.g. 1.25).
    #[arg(long, global = true, value_name = "VERSION", value_parser = parse_version)]
    pub to: Option<KubeVersion>,
    /// CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade
    /// (repeatable): versions they stop serving break ownerReferences.
    #[arg(long, global = true, value_name = "FILE")]
    pub crd: Vec<PathBuf>,
    /// Output format.
    #[arg(short, long, global = true, value_enum, default_value_t = ReportFormat::Table)]
    pub output: ReportFormat,
    /// Exit with code 5 when a finding has at least this severity.
    #[arg(long, global = true, default_value = "error", value_name = "SEVERITY", value_parser = parse_fail_on)]
    pub fail_on: FailOn,
    /// Gate flags.
    #[command(flatten)]
    pub gate: GateArgs,
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
    /// Perform the plan on the live cluster (each action re-verified first; default: dry run).
    /// With --delete: perform that delete only (the GC does the cascade).
    #[arg(long, help_heading = "Apply")]
    pub apply: bool,
    /// Apply without asking (required when stdin or stderr is not a terminal).
    #[arg(long, short = 'y', requires = "apply", help_heading = "Apply")]
    pub yes: bool,
    /// The record of every action --apply attempts (NDJSON; default:
    /// ./kubectl-gc-apply-<UTC time>.json; never overwritten).
    #[arg(long, value_name = "FILE", requires = "apply", help_heading = "Apply")]
    pub record: Option<PathBuf>,
    /// Requests per second --apply may send (bursts of 1.5 × N).
    #[arg(long, value_name = "N", default_value_t = 20.0, value_parser = parse_qps, help_heading = "Apply")]
    pub qps: f64,
}

fn parse_qps(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(q) if q.is_finite() && q > 0.0 && q <= 10_000.0 => Ok(q),
        _ => Err(format!(
            "expected a number of requests per second (0 < N ≤ 10000), got {s:?}"
        )),
    }
}

/// `snapshot` flags.
#[derive(Args, Debug)]
pub struct SnapshotArgs {
    /// File to write (gzip-compressed when it ends in .gz; `-` for stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}

/// `graph` output formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphFormat {
    /// kubectl-tree-like: owners above dependents, with the GC's view on every line.
    Tree,
    /// Graphviz DOT, byte-for-byte the GC debug endpoint's format (see --dot-format).
    Dot,
    /// A Mermaid flowchart (renders on GitHub).
    Mermaid,
    /// JSON: nodes and edges with the DOT attributes.
    Json,
}

/// Which way `graph` walks from its roots.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphDirection {
    /// Owners, their owners, …
    Up,
    /// Dependents, their dependents, …
    Down,
    /// Both: the connected component (the GC endpoint's ?uid=).
    Both,
}

/// Which release's DOT `graph -o dot` prints.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DotFormat {
    /// Kubernetes 1.26 and later: UID vertex ids, Go-quoted strings.
    #[value(alias = "new")]
    Current,
    /// Kubernetes 1.12–1.25 (gonum's encoder): integer vertex ids.
    Legacy,
}

/// `graph` flags.
#[derive(Args, Debug)]
pub struct GraphArgs {
    /// Start from these objects (KIND/NAME in -n's namespace; kind, plural or kind.group).
    #[arg(value_name = "KIND/NAME")]
    pub targets: Vec<String>,
    /// Start from the object with this UID (repeatable), like the GC endpoint's ?uid=.
    #[arg(long = "uid", value_name = "UID")]
    pub uids: Vec<String>,
    /// From the start objects, follow owners (up), dependents (down) or both.
    #[arg(long, value_enum, default_value_t = GraphDirection::Both)]
    pub direction: GraphDirection,
    /// At most this many ownerReference hops from the start objects.
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    /// Output format (default: tree on a terminal, dot otherwise).
    #[arg(short, long, value_enum)]
    pub output: Option<GraphFormat>,
    /// The DOT flavour: current (Kubernetes ≥ 1.26) or legacy (1.12–1.25).
    #[arg(long, value_enum, default_value_t = DotFormat::Current)]
    pub dot_format: DotFormat,
    /// Compare with the real GC's graph: its debug endpoint (http(s)://HOST:PORT, optionally
    /// with the path) or a saved DOT file. Prints the differences (-o json for JSON).
    #[arg(long, value_name = "URL|FILE", conflicts_with_all = ["direction", "depth"])]
    pub from_gc: Option<String>,
    /// Do not verify the TLS certificate of the --from-gc endpoint (kube-controller-manager
    /// usually serves a self-signed one).
    #[arg(long, requires = "from_gc")]
    pub gc_insecure_skip_tls_verify: bool,
}

/// `generate` flags (hidden: synthetic clusters for benchmarks, see BENCHMARKS.md).
#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Number of objects.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub objects: usize,
    /// Random seed (the same seed and flags give the same cluster).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    /// Application namespaces (default: one per 500 objects).
    #[arg(long, value_name = "N")]
    pub namespaces: Option<usize>,
    /// Fraction of objects that are pods whose ReplicaSet is gone [default: 0.001].
    #[arg(long, value_name = "RATE", value_parser = parse_rate)]
    pub dangling_rate: Option<f64>,
    /// Fraction of objects owned from another namespace [default: 0.0002].
    #[arg(long, value_name = "RATE", value_parser = parse_rate)]
    pub cross_namespace_rate: Option<f64>,
    /// Fraction of objects referencing an unserved kind [default: 0.0002].
    #[arg(long, value_name = "RATE", value_parser = parse_rate)]
    pub unresolvable_rate: Option<f64>,
    /// Fraction of objects rooting a blocked foreground deletion [default: 0.0002].
    #[arg(long, value_name = "RATE", value_parser = parse_rate)]
    pub foreground_rate: Option<f64>,
    /// Fraction of objects terminating with the orphan finalizer [default: 0.0002].
    #[arg(long, value_name = "RATE", value_parser = parse_rate)]
    pub orphan_rate: Option<f64>,
    /// Server version recorded in the snapshot.
    #[arg(long, default_value = "v1.30.4", value_name = "VERSION")]
    pub server_version: String,
    /// Write the snapshot to FILE (gzip-compressed when it ends in .gz; `-` for stdout).
    #[arg(
        short,
        long,
        value_name = "FILE",
        required_unless_present = "apply_to_kubeconfig"
    )]
    pub output: Option<PathBuf>,
    /// Create the objects in the cluster of this kubeconfig (a disposable test cluster: it
    /// installs two CRDs and thousands of objects).
    #[arg(long, value_name = "PATH")]
    pub apply_to_kubeconfig: Option<PathBuf>,
    /// Concurrent create requests with --apply-to-kubeconfig.
    #[arg(long, default_value_t = 32, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=512))]
    pub load_concurrency: u16,
}

fn parse_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
        _ => Err(format!("expected a fraction between 0 and 1, got {s:?}")),
    }
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
