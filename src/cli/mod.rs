//! The command line, as clap definitions only (no I/O). kubectl refuses flags placed before a
//! plugin's name, so every kubectl flag a user expects (`--kubeconfig`, `--context`, `-n`,
//! `-A`, …) is defined here and accepted anywhere after `kubectl gc`.

pub mod complete;

use crate::catalog::KubeVersion;
use crate::diagnose::Severity;
pub use crate::render::ColorChoice;
use clap::{
    ArgAction, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum, ValueHint,
};
use std::path::PathBuf;

/// The last line of every command's help: global flags are listed once, by `options`.
macro_rules! options_footer {
    () => {
        "\n\nUse \"kubectl gc options\" for a list of global command-line options (applies to all commands)."
    };
}

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
    after_help = concat!(
        "Examples:\n  kubectl gc audit -A\n  kubectl gc audit --snapshot cluster.ndjson.gz -o json\n  kubectl get all,cm,secrets -A -o json | kubectl gc audit -f -\n  kubectl gc collect --delete deployment/web -n shop --cascade=foreground\n  kubectl gc snapshot -o cluster.ndjson.gz\n\n",
        "Exit codes:\n",
        "  0  ok (audit, check: no finding at or above --fail-on)\n",
        "  1  an unexpected failure while running\n",
        "  2  usage: a bad flag, an unknown kind, object or namespace\n",
        "  3  unreadable or malformed input\n",
        "  4  cluster unreachable, TLS or credentials rejected\n",
        "  5  findings at or above --fail-on (graph --from-gc: differences)\n",
        "  6  coverage incomplete with --strict-coverage\n",
        "  7  collect --apply refused or stopped early",
        options_footer!()
    )
)]
pub struct Cli {
    /// Flags shared by every command.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command accepts after `kubectl gc` (kubectl's global flags, plus the input
/// and selection flags). They are listed once, by `kubectl gc options`, not in every command's
/// help; a command refuses those it cannot honour, with the reason (`commands::flags`).
#[derive(Args, Debug, Clone, Default)]
pub struct GlobalArgs {
    /// Read a snapshot written by `kubectl gc snapshot` instead of the cluster.
    #[arg(long, global = true, hide = true, value_name = "FILE", value_hint = ValueHint::FilePath, conflicts_with = "filename", help_heading = HEADING_INPUT)]
    pub snapshot: Option<PathBuf>,
    /// Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers
    /// (files, directories, `-` for stdin; repeatable).
    #[arg(short = 'f', long = "filename", global = true, hide = true, value_name = "PATH", value_hint = ValueHint::AnyPath, help_heading = HEADING_INPUT)]
    pub filename: Vec<PathBuf>,
    /// Walk directories given with -f recursively.
    #[arg(short = 'R', long, global = true, hide = true, help_heading = HEADING_INPUT)]
    pub recursive: bool,
    // ---- -f input: broken documents, coverage, limits (src/source/files) ----
    /// -f: report broken documents and go on without them instead of failing (exit 3); what
    /// they could hold (their kinds in their namespaces, or everything) is then unknown.
    #[arg(long, global = true, hide = true, help_heading = HEADING_INPUT)]
    pub skip_broken_input: bool,
    /// -f: declare the input complete: every kind it holds counts as listed in full in every
    /// namespace it holds, so a missing owner of such a kind is reported as absent. Only for
    /// whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or
    /// a partial copy, owners left out would be reported missing and planned for deletion.
    #[arg(long, global = true, hide = true, help_heading = HEADING_INPUT)]
    pub assume_complete: bool,
    /// -f: read at most this much from one decompressed file, archive member or pipe
    /// (e.g. 512Mi, 20Gi).
    #[arg(long, global = true, hide = true, help_heading = HEADING_INPUT, value_name = "SIZE", default_value = "8Gi", value_parser = parse_size)]
    pub max_input_size: u64,

    /// Only this namespace (default: the context's namespace for live clusters, all for files).
    #[arg(short = 'n', long, global = true, hide = true, value_name = "NAMESPACE", help_heading = HEADING_SELECT)]
    pub namespace: Option<String>,
    /// All namespaces (`-A`, `-A=true`, `-A=false`).
    #[arg(short = 'A', long, global = true, hide = true, conflicts_with = "namespace",
        num_args = 0..=1, require_equals = true, default_missing_value = "true",
        default_value = "false", action = ArgAction::Set, value_parser = clap::builder::BoolishValueParser::new(),
        value_name = "BOOL", help_heading = HEADING_SELECT)]
    pub all_namespaces: bool,
    /// Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`).
    #[arg(short = 'l', long, global = true, hide = true, value_name = "SELECTOR", help_heading = HEADING_SELECT)]
    pub selector: Option<String>,
    /// Only objects of these kinds, as kubectl names them: kind, plural, singular, short name
    /// or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an
    /// error.
    #[arg(long, global = true, hide = true, value_name = "KIND", value_delimiter = ',', help_heading = HEADING_SELECT)]
    pub kind: Vec<String>,
    /// Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==`
    /// or `!=` (comma-separated; the input holds metadata only).
    #[arg(long, global = true, hide = true, value_name = "SELECTOR", help_heading = HEADING_SELECT)]
    pub field_selector: Option<String>,

    /// Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config).
    #[arg(long, global = true, hide = true, value_name = "PATH", value_hint = ValueHint::FilePath, help_heading = HEADING_CLUSTER)]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use (audit and check: several, comma-separated, are audited
    /// concurrently into one report).
    #[arg(long, global = true, hide = true, value_name = "NAME", help_heading = HEADING_CLUSTER)]
    pub context: Option<String>,
    /// The kubeconfig cluster to use.
    #[arg(long, global = true, hide = true, value_name = "NAME", help_heading = HEADING_CLUSTER)]
    pub cluster: Option<String>,
    /// The kubeconfig user to use.
    #[arg(long, global = true, hide = true, value_name = "NAME", help_heading = HEADING_CLUSTER)]
    pub user: Option<String>,
    /// The address and port of the Kubernetes API server (overrides the kubeconfig's).
    #[arg(short = 's', long, global = true, hide = true, value_name = "URL", help_heading = HEADING_CLUSTER)]
    pub server: Option<String>,
    /// Bearer token for authentication to the API server (overrides the kubeconfig user's).
    #[arg(long, global = true, hide = true, value_name = "TOKEN", help_heading = HEADING_CLUSTER)]
    pub token: Option<String>,
    /// Path to a certificate authority file for the API server's certificate.
    #[arg(long, global = true, hide = true, value_name = "FILE", value_hint = ValueHint::FilePath, help_heading = HEADING_CLUSTER)]
    pub certificate_authority: Option<PathBuf>,
    /// Path to a client certificate file for TLS.
    #[arg(long, global = true, hide = true, value_name = "FILE", value_hint = ValueHint::FilePath, help_heading = HEADING_CLUSTER)]
    pub client_certificate: Option<PathBuf>,
    /// Path to a client key file for TLS.
    #[arg(long, global = true, hide = true, value_name = "FILE", value_hint = ValueHint::FilePath, help_heading = HEADING_CLUSTER)]
    pub client_key: Option<PathBuf>,
    /// Server name to use for the API server's certificate check (default: the server's host).
    #[arg(long, global = true, hide = true, value_name = "NAME", help_heading = HEADING_CLUSTER)]
    pub tls_server_name: Option<String>,
    /// Do not check the API server's certificate (insecure: anyone on the path can read and
    /// change what is sent).
    #[arg(long, global = true, hide = true, num_args = 0..=1, require_equals = true,
        default_missing_value = "true", default_value = "false", action = ArgAction::Set,
        value_parser = clap::builder::BoolishValueParser::new(), value_name = "BOOL", help_heading = HEADING_CLUSTER)]
    pub insecure_skip_tls_verify: bool,
    /// Username to impersonate.
    #[arg(long = "as", global = true, hide = true, value_name = "USER", help_heading = HEADING_CLUSTER)]
    pub as_user: Option<String>,
    /// Group to impersonate (repeatable).
    #[arg(long = "as-group", global = true, hide = true, value_name = "GROUP", help_heading = HEADING_CLUSTER)]
    pub as_group: Vec<String>,
    /// UID to impersonate.
    #[arg(long = "as-uid", global = true, hide = true, value_name = "UID", help_heading = HEADING_CLUSTER)]
    pub as_uid: Option<String>,
    /// Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h).
    #[arg(long, global = true, hide = true, value_name = "DURATION", value_parser = parse_duration, help_heading = HEADING_CLUSTER)]
    pub request_timeout: Option<std::time::Duration>,
    /// Resources listed concurrently from a live cluster.
    #[arg(long, global = true, hide = true, help_heading = HEADING_CLUSTER, default_value_t = crate::source::live::DEFAULT_CONCURRENCY as u16, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub concurrency: u16,
    /// Objects per list page [default: 500, growing to 10000 while the server answers pages
    /// within 0.5s].
    #[arg(long, global = true, hide = true, help_heading = HEADING_CLUSTER, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk_size: Option<u32>,

    /// Emulate this kube-controller-manager release's GC (default: the cluster's version, else
    /// the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200).
    #[arg(long, global = true, hide = true, value_name = "VERSION", value_parser = parse_version, help_heading = HEADING_GC)]
    pub gc_version: Option<KubeVersion>,

    /// Colour: auto (only on a terminal and without NO_COLOR), always, never.
    #[arg(long, global = true, hide = true, value_enum, default_value_t = ColorChoice::Auto, help_heading = HEADING_OUTPUT)]
    pub color: ColorChoice,
    /// Log verbosity, as kubectl's: 4 logs what is read, 6 every API request (method, URL,
    /// status, time), 8 and more everything the client library logs.
    #[arg(short = 'v', long = "v", global = true, hide = true, value_name = "LEVEL", value_parser = clap::value_parser!(u8).range(0..=10), help_heading = HEADING_OUTPUT)]
    pub verbosity: Option<u8>,

    /// The global flags given on the command line (clap ids), for the commands that refuse
    /// flags they cannot honour. Filled by [`parse`].
    #[arg(skip)]
    pub given: Vec<String>,
}

const HEADING_INPUT: &str = "Input";
const HEADING_SELECT: &str = "Selection";
const HEADING_CLUSTER: &str = "Cluster connection";
const HEADING_GC: &str = "GC";
const HEADING_OUTPUT: &str = "Output";

impl GlobalArgs {
    /// True when the flag with this clap id (the field name) was given on the command line.
    pub fn given(&self, id: &str) -> bool {
        self.given.iter().any(|g| g == id)
    }
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
-f PATH. -n, -l, --kind and --field-selector choose which objects are reported; the analysis \
always sees everything read.",
        after_help = concat!(
            "Examples:\n",
            "  # Every namespace of the current context\n",
            "  kubectl gc audit -A\n\n",
            "  # One namespace, full messages and UIDs\n",
            "  kubectl gc audit -n shop -o wide\n\n",
            "  # Pods and ReplicaSets only, as kubectl names them\n",
            "  kubectl gc audit -A --kind po,rs\n\n",
            "  # As a 1.19 GC would see a saved snapshot, as JSON\n",
            "  kubectl gc audit --snapshot snap.ndjson --gc-version 1.19 -o json\n\n",
            "  # The names of the objects with findings, for a script\n",
            "  kubectl gc audit -A -o name\n\n",
            "  # kubectl output on stdin; fail only on critical findings\n",
            "  kubectl get all -A -o json | kubectl gc audit -f - --fail-on critical\n\n",
            "Exit codes:\n",
            "  0  no finding at or above --fail-on\n",
            "  5  findings at or above --fail-on (default: error)\n",
            "  6  coverage incomplete with --strict-coverage\n",
            "  2  usage (bad flag, unknown kind or namespace)\n",
            "  3  bad input\n",
            "  4  cluster unreachable or credentials rejected",
            options_footer!()
        )
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
whose finalizer, or kept). -n, -l, --kind and --field-selector choose which actions are \
shown (and, with --apply, performed).\n\n\
--delete KIND/NAME previews a delete by you: the API server's finalizers for --cascade, then \
the GC's cascade. Nothing is changed unless --apply is given.",
        after_help = concat!(
            "Examples:\n",
            "  # What the GC will do in every namespace\n",
            "  kubectl gc collect -A\n\n",
            "  # What deleting a Deployment with foreground cascading removes\n",
            "  kubectl gc collect --delete deployment/web -n shop --cascade=foreground\n\n",
            "  # The plan of a saved snapshot as JSON\n",
            "  kubectl gc collect --snapshot snap.ndjson -o json\n\n",
            "  # Perform the GC's plan for one namespace (asks first; records every request)\n",
            "  kubectl gc collect -n shop --apply --record shop-gc.json\n\n",
            "Exit codes:\n",
            "  0  done (or dry run)\n",
            "  7  --apply refused, stopped early (error, Ctrl-C, stdout closed) or incomplete (see the summary line)\n",
            "  2  usage\n",
            "  3  bad input\n",
            "  4  cluster unreachable or credentials rejected",
            options_footer!()
        )
    )]
    Collect(CollectArgs),
    /// Safety gates for CI: what a GC restart or an upgrade would delete, and what blocks the GC.
    #[command(
        long_about = "Safety gates for CI: what a GC restart or an upgrade would delete, and what blocks the GC.\n\n\
restart: what a freshly started GC deletes (GC015, GC016, GC020). upgrade --to VERSION: \
decisions that change with the GC release and ownerReferences the target no longer serves \
(GC017, GC018). health: resources the GC cannot list or watch and deletions that do not \
progress (GC019, GC008, GC009, GC013). `kubectl gc check SUBCOMMAND --help` explains each.\n\n\
Without a subcommand: restart and health (plus upgrade when --to is given).",
        after_help = concat!(
            "Examples:\n",
            "  # Restart and health gates for the whole cluster\n",
            "  kubectl gc check -A\n\n",
            "  # Adopt the gate on a cluster that has findings, then fail only on new ones\n",
            "  kubectl gc check -A --write-baseline gc-baseline.json\n",
            "  kubectl gc check -A --baseline gc-baseline.json --fail-on warning --strict-coverage\n\n",
            "Exit codes:\n",
            "  0  no finding at or above --fail-on\n",
            "  5  findings at or above --fail-on (default: error)\n",
            "  6  coverage incomplete with --strict-coverage\n",
            "  2  usage\n",
            "  3  bad input\n",
            "  4  cluster unreachable or credentials rejected",
            options_footer!()
        )
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
moment, offline and elsewhere. -f converts kubectl output or a must-gather into a snapshot.\n\n\
A snapshot holds every object read, so that no owner is ever unknown: -l, --kind and \
--field-selector are refused (filter when reading it); -n lists one namespace.",
        after_help = concat!(
            "Examples:\n",
            "  # The whole cluster, compressed\n",
            "  kubectl gc snapshot -o cluster.ndjson.gz\n\n",
            "  # One namespace (cluster-scoped resources are always listed in full)\n",
            "  kubectl gc snapshot -n shop -o shop.ndjson\n\n",
            "  # kubectl output or a must-gather, converted\n",
            "  kubectl gc snapshot -f must-gather/ -R -o mg.ndjson.gz\n\n",
            "Exit codes:\n",
            "  0  written\n",
            "  2  usage\n",
            "  3  bad input\n",
            "  4  cluster unreachable or credentials rejected",
            options_footer!()
        )
    )]
    Snapshot(SnapshotArgs),
    /// Show the ownership graph as the GC sees it: a tree, DOT (styled, or identical to the
    /// GC's debug endpoint), Mermaid, JSON or YAML; or compare it with the GC's own graph.
    #[command(
        long_about = "Show the ownership graph as the GC sees it: a tree, DOT (styled, or identical to \
the GC's debug endpoint), Mermaid, JSON or YAML; or compare it with the GC's own graph.\n\n\
Start objects are named like kubectl names them (KIND/NAME, or KIND NAME…) or by --uid; -l, \
--kind and --field-selector pick start objects too. From the start objects, their whole \
connected components (the GC endpoint's ?uid=), narrowed by --direction and --depth. \
Without start objects: every object that has an owner or a dependent (in -n's namespace, or \
all with -A). With -A, KIND/NAME is looked up in every namespace.\n\n\
The default output is the tree, on a terminal or not; it is cut 64 levels down (the line \
says how to continue).",
        after_help = concat!(
            "Examples:\n",
            "  # A Deployment's component, as a tree\n",
            "  kubectl gc graph deployment/web -n shop\n",
            "  kubectl gc graph deploy web -n shop\n\n",
            "  # Find it in whichever namespace it is\n",
            "  kubectl gc graph -A deployment/web\n\n",
            "  # The component of a UID as a picture\n",
            "  kubectl gc graph --uid 6b5a8715-c7b9-4175-aa93-bf50a1b31672 -o dot | dot -Tsvg > web.svg\n\n",
            "  # Only the owners above a Pod\n",
            "  kubectl gc graph pod/web-5d4f-abc -n shop --direction up\n\n",
            "  # Everything with an owner, as Mermaid\n",
            "  kubectl gc graph -A -o mermaid\n\n",
            "  # Compare with the real GC's graph\n",
            "  kubectl gc graph deployment/web -n shop --from-gc http://127.0.0.1:10252\n\n",
            "Exit codes:\n",
            "  0  shown\n",
            "  5  --from-gc found differences\n",
            "  2  usage (unknown kind, object or namespace)\n",
            "  3  bad input\n",
            "  4  cluster or GC endpoint unreachable",
            options_footer!()
        )
    )]
    Graph(GraphArgs),
    /// Watch the cluster like a shadow GC: report findings as they appear, change or resolve,
    /// with what the GC will do and when (now, at its next restart, never).
    #[command(
        long_about = "Watch the cluster like a shadow GC: report findings as they appear, change or resolve, \
with what the GC will do and when.\n\n\
watch lists, then watches, every resource the GC monitors (metadata only, the GC's own \
discovery rules, refreshed every 30 s like the GC's resync) and keeps the GC's graph up to date. \
Every change re-evaluates only the part of the graph it can affect, with the same findings as \
`audit` (codes GC001-GC014). Each transition says when the GC acts: now (the running GC has the \
object on its queue), restart (only a freshly started GC re-checks it: the next \
kube-controller-manager restart or leader change), never (stuck), or unknown (a resource it \
depends on cannot be read). The findings present at start are reported first. watch never writes \
to the cluster.\n\n\
Output: one line per transition, or one JSON object per transition with -o json (NDJSON; \
`finding` has the schema of `audit -o json`). --metrics-addr serves Prometheus metrics, /healthz \
and /readyz.",
        after_help = concat!(
            "Examples:\n",
            "  # Every transition, as lines\n",
            "  kubectl gc watch\n\n",
            "  # What the next GC restart would do, as it appears\n",
            "  kubectl gc watch -o json | jq 'select(.when == \"restart\")'\n\n",
            "  # Exit 5 at the first critical transition\n",
            "  kubectl gc watch --fail-on critical\n\n",
            "  # In a cluster, with Prometheus metrics\n",
            "  kubectl gc watch --metrics-addr 0.0.0.0:9464 -o json\n\n",
            "Exit codes:\n",
            "  0  stopped (SIGINT/SIGTERM)\n",
            "  5  a transition at or above --fail-on\n",
            "  2  usage\n",
            "  4  cluster unreachable or credentials rejected",
            options_footer!()
        )
    )]
    Watch(WatchArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    #[command(
        long_about = "Print a shell completion script (bash, zsh, fish, powershell, elvish) for the \
kubectl-gc command.\n\n\
`kubectl gc <TAB>` is completed by kubectl itself (kubectl >= 1.26), which asks the \
kubectl_complete-gc shim for candidates: put that shim (in the release archive, and in \
completions/ of the source) on your PATH next to kubectl-gc. Namespaces, kinds and names are \
completed from the cluster (or from -f/--snapshot files on the line).",
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
            "/kubectl_complete-gc\" \"$krew/bin/\"\n\n",
            "Exit codes:\n",
            "  0  printed\n",
            "  2  usage"
        )
    )]
    Completion(CompletionArgs),
    /// Print the global command-line options (they apply to every command).
    #[command(
        long_about = "Print the global command-line options: input, selection, cluster connection \
and output flags that every command accepts after `kubectl gc` (a command refuses, with the \
reason, those it cannot honour).",
        after_help = "Examples:\n  kubectl gc options\n\nExit codes:\n  0  printed"
    )]
    Options,
    /// Print the version of kubectl-gc (and, with -o, its build information).
    #[command(
        long_about = "Print the version of kubectl-gc: the release, the git commit and the target it \
was built for. kubectl-gc never contacts a cluster for this.",
        after_help = "Examples:\n  kubectl gc version\n  kubectl gc version -o json\n\nExit codes:\n  0  printed\n  2  usage"
    )]
    Version(VersionArgs),
}

/// What the process was asked to do.
#[derive(Debug)]
pub enum Invocation {
    /// A command of the shipped command line.
    Cli(Cli),
    /// The hidden `generate` command (test support: only in builds with the `testkit` feature).
    #[cfg(feature = "testkit")]
    Generate(GenerateCli),
}

/// The word that selects the hidden `generate` command.
#[cfg(feature = "testkit")]
pub const GENERATE: &str = "generate";

/// Parses the process arguments (`args[0]` is the program). `generate` is parsed on its own,
/// before the shipped command line, so that [`Cli`] (its help, its completion scripts) is the
/// same with or without the `testkit` feature.
pub fn parse(args: Vec<std::ffi::OsString>) -> Result<Invocation, clap::Error> {
    #[cfg(feature = "testkit")]
    if args.get(1).is_some_and(|a| a == GENERATE) {
        let mut args = args;
        args.remove(1);
        return GenerateCli::try_parse_from(args).map(Invocation::Generate);
    }
    let matches = Cli::command().try_get_matches_from(args)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    cli.global.given = given_globals(&matches);
    Ok(Invocation::Cli(cli))
}

/// The ids of the global flags given on the command line (at any level: globals propagate).
fn given_globals(matches: &clap::ArgMatches) -> Vec<String> {
    let root = Cli::command();
    let mut given = Vec::new();
    for arg in root.get_arguments().filter(|a| a.is_global_set()) {
        let id = arg.get_id().as_str();
        let mut m = Some(matches);
        while let Some(level) = m {
            if level.value_source(id) == Some(clap::parser::ValueSource::CommandLine) {
                given.push(id.to_owned());
                break;
            }
            m = level.subcommand().map(|(_, sub)| sub);
        }
    }
    given
}

/// The command line with the global flags visible, for completion scripts and candidates
/// (help hides them: `kubectl gc options` lists them once).
pub fn command_for_completion() -> clap::Command {
    Cli::command().mut_args(|a| if a.is_global_set() { a.hide(false) } else { a })
}

/// `kubectl gc options`: the global flags, grouped by heading, as kubectl's `options` prints
/// its own.
pub fn options_help() -> String {
    let mut cmd = clap::Command::new("kubectl gc options")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .term_width(100)
        .help_template(
            "The following options can be passed to any command (after `kubectl gc`); a command \
refuses, with the reason, those it cannot honour:\n\n{all-args}\n",
        );
    for arg in Cli::command().get_arguments().filter(|a| a.is_global_set()) {
        cmd = cmd.arg(arg.clone().hide(false).global(false));
    }
    cmd.render_help().to_string()
}

/// `kubectl gc generate`: a synthetic cluster for GC benchmarks and load tests (see
/// BENCHMARKS.md): a snapshot file, or objects created in a disposable test cluster. Test
/// support, built with the `testkit` feature only.
#[cfg(feature = "testkit")]
#[derive(Parser, Debug)]
#[command(
    name = "kubectl-gc-generate",
    bin_name = "kubectl gc generate",
    about = "Generate a synthetic cluster for GC benchmarks and load tests",
    after_help = "Examples:\n  kubectl gc generate --objects 1000000 -o synthetic.ndjson\n  kubectl gc generate --objects 50000 --apply-to-kubeconfig /tmp/testenv/kubeconfig"
)]
pub struct GenerateCli {
    /// Flags shared by every command.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// `generate`'s own flags.
    #[command(flatten)]
    pub args: GenerateArgs,
}

pub mod output;
pub use output::{GraphFormat, ReportFormat};

/// kubectl's list-output flags, shared by the commands that print lists.
#[derive(Args, Debug, Clone, Default)]
pub struct ListOutputArgs {
    /// Tables and custom-columns: print the rows only (no header, no detail blocks, no summary
    /// line).
    #[arg(long, global = true)]
    pub no_headers: bool,
    /// Sort the rows (and the JSON/YAML items) by this JSONPath, evaluated on each item as
    /// JSON shows it (e.g. `.object.name`, `{.severity}`).
    #[arg(long, value_name = "JSONPATH")]
    pub sort_by: Option<String>,
    /// Add a column with the value of each of these labels (repeatable or comma-separated).
    #[arg(
        short = 'L',
        long = "label-columns",
        value_name = "KEY",
        value_delimiter = ','
    )]
    pub label_columns: Vec<String>,
    /// Add a LABELS column with all of the object's labels.
    #[arg(long)]
    pub show_labels: bool,
}

/// `--output-file` (audit, check, collect, graph).
#[derive(Args, Debug, Clone, Default)]
pub struct OutputFileArgs {
    /// Write the report to FILE instead of stdout, atomically (a temporary file in the same
    /// directory, renamed when complete: never a partial report). Every -o form.
    #[arg(long, global = true, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub output_file: Option<PathBuf>,
}

/// Several clusters in one report (audit, check).
#[derive(Args, Debug, Clone, Default)]
pub struct FleetArgs {
    /// Audit every context of the kubeconfig, concurrently, into one report (as
    /// --context a,b,c does for the contexts named).
    #[arg(long, global = true, conflicts_with_all = ["snapshot", "filename"])]
    pub all_contexts: bool,
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

/// The longest `--request-timeout` accepted (longer values are refused, not clamped).
pub const MAX_REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// Parses `30s`, `2m`, `1h`, `500ms`, `0` (kubectl's --request-timeout syntax): `0` (in any
/// unit) means no limit; anything else must lie between 1ms and [`MAX_REQUEST_TIMEOUT`].
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let d = parse_duration_unbounded(s)?;
    if d.is_zero() {
        return Ok(d);
    }
    if d < std::time::Duration::from_millis(1) {
        return Err(format!(
            "duration {:?} is too short (0 for no limit, else at least 1ms)",
            s.trim()
        ));
    }
    if d > MAX_REQUEST_TIMEOUT {
        return Err(format!(
            "duration {:?} is too long (at most 24h; 0 for no limit)",
            s.trim()
        ));
    }
    Ok(d)
}

fn parse_duration_unbounded(s: &str) -> Result<std::time::Duration, String> {
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
    // `from_secs_f64` panics on overflow (`99999999999999999999s`): use the checked form.
    std::time::Duration::try_from_secs_f64(secs)
        .map_err(|_| format!("duration {s:?} is too long (at most 24h; 0 for no limit)"))
}

/// Parses `512Mi`, `8Gi`, `100M`, `4096` (bytes) into bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("invalid size {s:?} (e.g. 512Mi, 8Gi)"))?;
    let mult: u64 = match unit {
        "" => 1,
        "K" | "k" => 1_000,
        "M" => 1_000_000,
        "G" => 1_000_000_000,
        "T" => 1_000_000_000_000,
        "Ki" => 1 << 10,
        "Mi" => 1 << 20,
        "Gi" => 1 << 30,
        "Ti" => 1 << 40,
        _ => {
            return Err(format!(
                "invalid size unit in {s:?} (Ki, Mi, Gi, Ti, K, M, G, T)"
            ));
        }
    };
    match n.checked_mul(mult) {
        Some(v) if v > 0 => Ok(v),
        Some(_) => Err("the size must be positive".into()),
        None => Err(format!("size {s:?} is too large")),
    }
}

/// `audit` flags.
#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE,
    /// custom-columns=NAME:JSONPATH,…
    #[arg(short, long, default_value = "table", value_name = "FORMAT", value_parser = output::report_parser())]
    pub output: ReportFormat,
    /// kubectl's list-output flags.
    #[command(flatten)]
    pub list: ListOutputArgs,
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
    /// `--output-file`.
    #[command(flatten)]
    pub file: OutputFileArgs,
    /// `--all-contexts`.
    #[command(flatten)]
    pub fleet: FleetArgs,
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
    #[command(
        long_about = "What a restarted GC deletes or strips right after it starts.\n\n\
A freshly started GC rebuilds its graph from scratch; it verifies owners it has not seen and \
(1.20+) re-checks references that disagree with their owner, so garbage that a long-running GC \
never looked at is deleted right after a kube-controller-manager restart. This lists those \
deletions and their cascade (GC015), dependents it never evaluates (GC020), and, for GC < \
1.20, deletions that depend on list order (GC016, kubernetes#65200).",
        after_help = concat!(
            "Examples:\n",
            "  kubectl gc check restart -A\n",
            "  kubectl gc check restart --snapshot snap.ndjson -o json\n",
            "  kubectl gc check restart -A --gc-version 1.19   # as an older GC restarts\n\n",
            "Exit codes:\n",
            "  0  no finding at or above --fail-on\n",
            "  5  findings at or above --fail-on (default: error)\n",
            "  6  coverage incomplete with --strict-coverage\n",
            "  2  usage\n",
            "  3  bad input\n",
            "  4  cluster unreachable or credentials rejected",
            options_footer!()
        )
    )]
    Restart,
    /// What changes when the GC is upgraded (--to required).
    #[command(
        long_about = "What changes when the GC is upgraded (--to required).\n\n\
Decisions that change between the cluster's GC (or --gc-version) and the target (GC017; e.g. \
crossing 1.20 cross-namespace dependents become deterministically deleted and cluster-scoped \
dependents of namespaced owners stop being deleted), and ownerReferences whose apiVersion/kind \
the target (or a CRD manifest given with --crd, as it will be after the upgrade) no longer \
serves (GC018: never collected). Downgrades work the same way.",
        after_help = concat!(
            "Examples:\n",
            "  kubectl gc check upgrade --to 1.25 -A\n",
            "  kubectl gc check upgrade --to 1.30 -A --crd new-crds.yaml\n",
            "  kubectl gc check upgrade --to 1.19 --snapshot snap.ndjson -o json\n\n",
            "Exit codes:\n",
            "  0  no finding at or above --fail-on\n",
            "  5  findings at or above --fail-on (default: error)\n",
            "  6  coverage incomplete with --strict-coverage\n",
            "  2  usage (--to missing)\n",
            "  3  bad input (a --crd file)\n",
            "  4  cluster unreachable or credentials rejected",
            options_footer!()
        )
    )]
    Upgrade,
    /// Resources the GC cannot list or watch, and deletions that do not progress.
    #[command(
        long_about = "Resources the GC cannot list or watch, and deletions that do not progress.\n\n\
A deletable resource the GC cannot list or watch stops its informers from syncing, and with \
them every collection (GC019). Deletions that do not progress: foreground deletions blocked by \
a dependent (GC008), orphan finalizers that are pending or stuck (GC009), and objects held by \
finalizers no controller seems to process (GC013).",
        after_help = concat!(
            "Examples:\n",
            "  kubectl gc check health -A\n",
            "  kubectl gc check health -A --strict-coverage   # fail when something was unreadable\n\n",
            "Exit codes:\n",
            "  0  no finding at or above --fail-on\n",
            "  5  findings at or above --fail-on (default: error)\n",
            "  6  coverage incomplete with --strict-coverage\n",
            "  2  usage\n",
            "  3  bad input\n",
            "  4  cluster unreachable or credentials rejected",
            options_footer!()
        )
    )]
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
    #[arg(long, global = true, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub crd: Vec<PathBuf>,
    /// Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE,
    /// custom-columns=NAME:JSONPATH,…
    #[arg(short, long, global = true, default_value = "table", value_name = "FORMAT", value_parser = output::report_parser())]
    pub output: ReportFormat,
    /// kubectl's list-output flags.
    #[command(flatten)]
    pub list: ListOutputArgs,
    /// Exit with code 5 when a finding has at least this severity.
    #[arg(long, global = true, default_value = "error", value_name = "SEVERITY", value_parser = parse_fail_on)]
    pub fail_on: FailOn,
    /// Gate flags.
    #[command(flatten)]
    pub gate: GateArgs,
    /// `--output-file`.
    #[command(flatten)]
    pub file: OutputFileArgs,
    /// `--all-contexts`.
    #[command(flatten)]
    pub fleet: FleetArgs,
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
    /// Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE,
    /// custom-columns=NAME:JSONPATH,…
    #[arg(short, long, default_value = "table", value_name = "FORMAT", value_parser = output::report_parser())]
    pub output: ReportFormat,
    /// kubectl's list-output flags.
    #[command(flatten)]
    pub list: ListOutputArgs,
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
    /// `./kubectl-gc-apply-<UTC time>.json`; never overwritten).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, requires = "apply", help_heading = "Apply")]
    pub record: Option<PathBuf>,
    /// Requests per second --apply may send (bursts of 1.5 × N).
    #[arg(long, value_name = "N", default_value_t = 20.0, value_parser = parse_qps, help_heading = "Apply")]
    pub qps: f64,
    /// `--output-file`.
    #[command(flatten)]
    pub file: OutputFileArgs,
}

/// `--qps`: finite, 0.01 ≤ N ≤ 10000 (`apply::QPS_RANGE`; 1e-300 was a 1e300-second wait).
fn parse_qps(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(q) if q.is_finite() && (0.01..=10_000.0).contains(&q) => Ok(q),
        _ => Err(format!(
            "expected a number of requests per second (0.01 ≤ N ≤ 10000), got {s:?}"
        )),
    }
}

/// `snapshot` flags.
#[derive(Args, Debug)]
pub struct SnapshotArgs {
    /// File to write (gzip-compressed when it ends in .gz; `-` for stdout). The format is
    /// always the snapshot's NDJSON: `-o json` is refused rather than written to a file named
    /// `json` (write `./json` for that).
    #[arg(short, long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub output: PathBuf,
}

/// `watch` output formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchFormat {
    /// One line per transition.
    Text,
    /// One JSON object per transition (NDJSON).
    Json,
}

/// `watch` flags.
#[derive(Args, Debug)]
pub struct WatchArgs {
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = WatchFormat::Text)]
    pub output: WatchFormat,
    /// Exit with code 5 at the first transition that appears or changes at or above this
    /// severity (never, info, warning, error, critical).
    #[arg(long, default_value = "never", value_name = "SEVERITY", value_parser = parse_fail_on)]
    pub fail_on: FailOn,
    /// Serve Prometheus metrics (/metrics), /healthz and /readyz on this address
    /// (e.g. 0.0.0.0:9464).
    #[arg(long, value_name = "HOST:PORT")]
    pub metrics_addr: Option<std::net::SocketAddr>,
    /// How often discovery is refreshed and ages re-evaluated (the GC's resync period).
    #[arg(long, default_value = "30s", value_name = "DURATION", value_parser = parse_duration)]
    pub resync: std::time::Duration,
    /// Keep the findings held in this file, so that a restarted watch reports only what
    /// changed while it was not running.
    #[arg(long, value_name = "FILE")]
    pub state_file: Option<std::path::PathBuf>,
}

/// `version` flags.
#[derive(Args, Debug)]
pub struct VersionArgs {
    /// Output format: the version line, or json / yaml with the build information.
    #[arg(short, long, value_enum)]
    pub output: Option<VersionFormat>,
}

/// `version -o` formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum VersionFormat {
    /// JSON.
    Json,
    /// YAML.
    Yaml,
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

/// Which DOT `graph -o dot` prints.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DotFormat {
    /// For people: dangling references dashed red, virtual owners dashed boxes, terminating
    /// objects marked, blocked foreground chains coloured, clusters by namespace.
    Styled,
    /// Byte-for-byte the GC debug endpoint's DOT, Kubernetes 1.26 and later (UID vertex ids,
    /// Go-quoted strings).
    #[value(alias = "current", alias = "new")]
    Gc,
    /// The GC debug endpoint's DOT of Kubernetes 1.12–1.25 (gonum's encoder): integer vertex
    /// ids.
    Legacy,
}

/// `graph` flags.
#[derive(Args, Debug)]
pub struct GraphArgs {
    /// Start from these objects: KIND/NAME… or KIND NAME… as kubectl takes them (kind, plural,
    /// singular, short name or kind.group), in -n's namespace (with -A: wherever they are).
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
    /// Output format: tree, dot, mermaid, json, yaml, name, jsonpath=TEMPLATE,
    /// custom-columns=NAME:JSONPATH,… (JSONPath over the JSON document's nodes).
    #[arg(short, long, default_value = "tree", value_name = "FORMAT", value_parser = output::graph_parser())]
    pub output: GraphFormat,
    /// Tree and custom-columns: print the rows only (no header).
    #[arg(long)]
    pub no_headers: bool,
    /// The DOT flavour: styled (for people), gc (the GC debug endpoint's, Kubernetes ≥ 1.26)
    /// or legacy (the endpoint's of 1.12–1.25).
    #[arg(long, value_enum, default_value_t = DotFormat::Styled)]
    pub dot_format: DotFormat,
    /// Compare with the real GC's graph: its debug endpoint (http(s)://HOST:PORT, optionally
    /// with the path) or a saved DOT file. Prints the differences (-o json for JSON).
    #[arg(long, value_name = "URL|FILE", value_hint = ValueHint::AnyPath, conflicts_with_all = ["direction", "depth"])]
    pub from_gc: Option<String>,
    /// Do not verify the TLS certificate of the --from-gc endpoint (kube-controller-manager
    /// usually serves a self-signed one).
    #[arg(long, requires = "from_gc")]
    pub gc_insecure_skip_tls_verify: bool,
    /// Send the kubeconfig's credentials (token, client certificate) to the --from-gc endpoint
    /// even though it is not the kubeconfig's own server (https only). Without it, they go
    /// only to the server the kubeconfig names (same scheme, host and port).
    #[arg(long, requires = "from_gc")]
    pub gc_send_credentials: bool,
    /// `--output-file`.
    #[command(flatten)]
    pub file: OutputFileArgs,
}

/// `generate` flags (hidden: synthetic clusters for benchmarks, see BENCHMARKS.md).
#[cfg(feature = "testkit")]
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
        value_hint = ValueHint::FilePath,
        required_unless_present = "apply_to_kubeconfig"
    )]
    pub output: Option<PathBuf>,
    /// Create the objects in the cluster of this kubeconfig (a disposable test cluster: it
    /// installs two CRDs and thousands of objects).
    #[arg(long, value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub apply_to_kubeconfig: Option<PathBuf>,
    /// Concurrent create requests with --apply-to-kubeconfig.
    #[arg(long, default_value_t = 32, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=512))]
    pub load_concurrency: u16,
}

#[cfg(feature = "testkit")]
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
    fn request_timeouts_are_bounded_and_never_panic() {
        assert_eq!(parse_duration("0s").unwrap(), std::time::Duration::ZERO);
        assert_eq!(parse_duration("24h").unwrap(), MAX_REQUEST_TIMEOUT);
        assert_eq!(parse_duration("1ms").unwrap().as_millis(), 1);
        for bad in [
            "99999999999999999999s",
            "99999999999999999999999999999999999999999999h",
            "1e400s",
            "25h",
            "0.0000001s",
            "-5s",
            "NaNs",
            "infs",
            ".s",
            "",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
        let err = Cli::try_parse_from([
            "kubectl-gc",
            "audit",
            "--request-timeout",
            "99999999999999999999s",
        ])
        .unwrap_err();
        assert!(err.to_string().contains("too long"), "{err}");
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
