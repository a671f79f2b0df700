//! The command line, as clap definitions only (no I/O). kubectl refuses flags placed before a
//! plugin's name, so every kubectl flag a user expects (`--kubeconfig`, `--context`, `-n`,
//! `-A`, …) is defined here and accepted anywhere after `kubectl gc`.

pub mod complete;
mod misplaced;
mod values;

use crate::catalog::KubeVersion;
pub use crate::render::ColorChoice;
use clap::{ArgAction, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueHint};
use std::path::PathBuf;

/// The last line of every command's help: global flags are listed once, by `options`.
macro_rules! options_footer {
    () => {
        "\n\nUse \"kubectl gc options\" for a list of global command-line options (applies to all commands)."
    };
}

/// The exit codes of the commands that gate CI (`audit`, `check …`), with what "usage" and
/// "bad input" mean for the command.
macro_rules! gate_exit_codes {
    ($usage:literal, $input:literal) => {
        concat!(
            "Exit codes:\n",
            "  0  no finding at or above --fail-on\n",
            "  1  an unexpected failure while running\n",
            "  2  ",
            $usage,
            "\n",
            "  3  ",
            $input,
            "\n",
            "  4  cluster unreachable or credentials rejected\n",
            "  5  findings at or above --fail-on (default: error)\n",
            "  6  coverage incomplete with --strict-coverage"
        )
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
        "  2  usage: a bad flag, an unknown kind or namespace, history -n/--kind matching nothing\n",
        "  3  unreadable or malformed input\n",
        "  4  cluster unreachable, TLS or credentials rejected\n",
        "  5  findings at or above --fail-on (watch: a transition; graph --from-gc: differences)\n",
        "  6  coverage incomplete with --strict-coverage\n",
        "  7  collect --apply or relink --apply refused, stopped early or incomplete\n",
        "  8  the object named is not in the input (why, graph, collect --delete)\n",
        "  130  collect --apply or relink --apply ended at once by a second Ctrl-C\n",
        "  143  collect --apply or relink --apply ended at once by a second SIGTERM",
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
    /// -f, --snapshot, --audit-log: read at most this much from one decompressed file, archive
    /// member or pipe (e.g. 512Mi, 20Gi).
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
            gate_exit_codes!("usage (bad flag, unknown kind or namespace)", "bad input"),
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
            "  1  an unexpected failure while running\n",
            "  2  usage\n",
            "  3  bad input\n",
            "  4  cluster unreachable or credentials rejected\n",
            "  7  --apply refused, stopped early (error, Ctrl-C or SIGTERM, stdout closed) or incomplete\n",
            "  8  the object of --delete is not in the input (the nearest names are listed)\n",
            "  130  --apply ended at once by a second Ctrl-C (what was done is printed and recorded)\n",
            "  143  --apply ended at once by a second SIGTERM (likewise)",
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
            gate_exit_codes!("usage", "bad input"),
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
            "  1  an unexpected failure while running\n",
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
            "  1  an unexpected failure while running\n",
            "  2  usage (unknown kind or namespace)\n",
            "  3  bad input\n",
            "  4  cluster or GC endpoint unreachable\n",
            "  5  --from-gc found differences\n",
            "  8  an object named is not in the input (the nearest names are listed)",
            options_footer!()
        )
    )]
    Graph(GraphArgs),
    /// What the GC and the namespace controller deleted, and why: forensics from API-server
    /// audit logs.
    #[command(
        long_about = "What the GC and the namespace controller deleted, and why: forensics from API-server audit logs.\n\n\
history reads audit logs (JSON lines as --audit-log-path writes them, rotated and gzipped; \
webhook EventLists; OpenShift must-gathers; EKS CloudWatch, GKE Cloud Logging and AKS \
diagnostic exports — recognised by content) and lists, in time order, every deletion, \
ownerReference removal and finalizer removal, by the garbage collector, the namespace \
controller, people and other controllers. For each action of the GC or the namespace controller \
it gives the cause — the owner deleted (by whom, with which policy: read from the request, or \
marked inferred), or the broken reference as `audit` names it on the GC model of the state \
around the log (GC001 dangling, GC002 recreated under the same name, GC003 a name or kind that \
does not match its UID, GC004 in another namespace), a foreground deletion or an orphaning that \
finished, a namespace deleted — chained back to the action that started it. A GC \
deletion that nothing in the inputs accounts for is 'unexplained', listed first. Owners come \
from the log's bodies (Request level and above) or from --snapshot/-f, the state before; what \
neither shows is 'unknown', never guessed. --after adds the state after the log (a file, or \
`cluster`): what became of each object, owners that still exist, and, with the state before, \
every object gone without a deletion of its own in the log (a namespace's content, which \
`deletecollection` removes without naming it; gaps). history reads no cluster unless --after \
cluster is given.",
        after_help = concat!(
            "Examples:\n",
            "  # Everything in one log, with the state before from a snapshot\n",
            "  kubectl gc history --audit-log /var/log/kubernetes/audit.log --snapshot before.ndjson\n\n",
            "  # Only the GC's actions in one namespace, from a must-gather\n",
            "  kubectl gc history --audit-log must-gather/audit_logs/ --actor gc -n shop\n\n",
            "  # A must-gather: its audit logs, and its resources as the state after\n",
            "  kubectl gc history --audit-log must-gather/ --snapshot before.ndjson --after must-gather/\n\n",
            "  # A window of rotated, gzipped logs, as JSON\n",
            "  kubectl gc history --audit-log 'audit-*.log.gz' --since 2026-11-26T01:00:00Z -o json\n\n",
            "Exit codes:\n",
            "  0  listed\n",
            "  1  an unexpected failure while running\n",
            "  2  usage, or -n/--kind match none of the log's actions\n",
            "  3  an input cannot be opened, is no audit log, or holds more than history's caps\n",
            "  4  --after cluster: cluster unreachable or credentials rejected",
            options_footer!()
        )
    )]
    History(HistoryArgs),
    /// Put back the ownerReferences a restore stripped, with the owners' current UIDs.
    #[command(
        long_about = "Put back the ownerReferences a restore stripped, with the owners' current UIDs.\n\n\
Velero strips every ownerReference on restore, so restored children are never collected with \
their owners again. relink -f BACKUP (a Velero tarball, an export, manifests) finds each object \
of the target that matches a backup object (group, kind, namespace, name) and lacks one of its \
references, and sets it again pointing at the owner's current UID (the owner matched the same \
way, in the dependent's namespace as the GC looks). It never links a missing, terminating or \
differently-scoped owner, nor creates a reference the GC would act on at once; controller \
references of workloads whose controllers adopt by selector are left to them unless \
--include-adoptable. Each skipped reference says why. Dry run by default; --apply asks, re-reads \
each object and owner, sends a JSON patch that tests the object's UID and resourceVersion, and \
records every patch.",
        after_help = concat!(
            "Examples:\n",
            "  # What would be relinked after a Velero restore\n",
            "  kubectl gc relink -f backup.tar.gz\n\n",
            "  # Do it, with a record\n",
            "  kubectl gc relink -f backup.tar.gz --apply --record relink.json\n\n",
            "Exit codes:\n",
            "  0  planned (or applied)\n",
            "  1  an unexpected failure while running\n",
            "  2  usage\n",
            "  3  bad input\n",
            "  4  cluster unreachable or credentials rejected\n",
            "  7  --apply refused, stopped (Ctrl-C or SIGTERM: before the next object) or incomplete\n",
            "  130  --apply ended at once by a second Ctrl-C (what was done is printed and recorded)\n",
            "  143  --apply ended at once by a second SIGTERM (likewise)",
            options_footer!()
        )
    )]
    Relink(RelinkArgs),
    /// Explain one object: why it is stuck, why the GC will (not) delete it, what to do.
    #[command(
        long_about = "Explain one object: why it is stuck, why the GC will (not) delete it, what to do.\n\n\
why answers for one object, top to bottom: a verdict first, then the evidence. Each finalizer: \
which controller removes it, on what condition, whether that holds now (the blocking dependents \
of foregroundDeletion, chained to the bottom of the chain; the dependents orphan still has to \
patch), and who set it (metadata.managedFields, on a live cluster). For a namespace, the \
namespace controller's view: its five conditions, failed discovery and the unavailable \
APIServices behind it, foreign spec.finalizers tokens, the content left by resource and by \
finalizer. What the GC does with the object (its decision-table row and each ownerReference \
classified), and remedies in safe order: fix the controller or the API first, strip a finalizer \
last and on the blocking object, never /finalize a namespace. why only reads.\n\n\
Input: the live cluster by default, --snapshot FILE or -f PATH (metadata only: who set a \
finalizer and status conditions then come only from a live read).",
        after_help = concat!(
            "Examples:\n",
            "  # Why is this namespace stuck Terminating?\n",
            "  kubectl gc why namespace/doomed\n\n",
            "  # Why does this PVC not go away?\n",
            "  kubectl gc why pvc data-0 -n shop\n\n",
            "  # From a support bundle, as JSON\n",
            "  kubectl gc why -f bundle/ -R deployment/web -n shop -o json\n\n",
            "Exit codes:\n",
            "  0  answered\n",
            "  1  an unexpected failure while running\n",
            "  2  usage\n",
            "  3  bad input\n",
            "  4  cluster unreachable or credentials rejected\n",
            "  8  the object is not in the input (the nearest names are listed)",
            options_footer!()
        )
    )]
    Why(WhyArgs),
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
            "  1  an unexpected failure while running\n",
            "  2  usage\n",
            "  3  an unreadable --state-file\n",
            "  4  cluster unreachable or credentials rejected\n",
            "  5  a transition at or above --fail-on",
            options_footer!()
        )
    )]
    Watch(WatchArgs),
    /// Serve a validating admission webhook that warns about (or refuses) ownerReferences the
    /// GC will act on, as they are written.
    #[command(
        long_about = "Serve a validating admission webhook that warns about (or refuses) an \
ownerReference the GC will act on, when it is written.\n\n\
admit keeps the GC's graph of the cluster as watch does (list, then watch, every resource the GC \
monitors) and judges the ownerReferences each CREATE or UPDATE adds with the GC's own rules: an \
owner in another namespace, an owner that does not exist or has another uid, a cluster-scoped \
object naming a namespaced owner kind, a kind or apiVersion the cluster does not serve, \
conflicting duplicates. Each message names the owner, what the GC will do and the fix. With \
--mode warn (the default) the write is admitted and kubectl prints the warning; with --mode deny \
it is refused. Writes that add no reference, and the GC's and the namespace controller's own \
writes, are admitted at once; so is every write until the graph has synced, every write the \
graph cannot judge in time or beyond the checks allowed at once, and every reference into a \
resource whose watch is lost (warn mode says each was not judged). kube-system is not judged \
unless --only-namespace names it.\n\n\
Serves POST /validate (admission.k8s.io/v1 and v1beta1), /healthz (ready once the graph has \
synced, not while a watch has been lost for more than 10s), /livez and /metrics over HTTPS. \
Without --client-ca-file anyone who reaches the port is answered, and a crafted review tells \
whether an owner exists in any namespace and where a UID lives: restrict it to the API server \
with --client-ca-file (the client certificate the API server presents through its admission \
configuration) or a NetworkPolicy (README, \"Who it answers\"). --print-config prints the \
ValidatingWebhookConfiguration to apply for the cluster's release (or --release): \
failurePolicy Ignore (a webhook that is down admits everything), namespace selectors from 1.21, \
matchConditions from 1.28.",
        after_help = concat!(
            "Examples:\n",
            "  # Serve, warning\n",
            "  kubectl gc admit --tls-cert-file tls.crt --tls-private-key-file tls.key\n\n",
            "  # Refuse instead, outside namespace ci; answer only the API server\n",
            "  kubectl gc admit --mode deny --skip-namespace ci --client-ca-file apiserver-client-ca.crt \\\n",
            "      --tls-cert-file tls.crt --tls-private-key-file tls.key\n\n",
            "  # The configuration to apply, for the cluster's release\n",
            "  kubectl gc admit --print-config --url https://gc-admit.example:8443/validate \\\n",
            "      --ca-file ca.crt | kubectl apply -f -\n\n",
            "Exit codes:\n",
            "  0  stopped (SIGINT/SIGTERM), or the configuration printed\n",
            "  1  the configuration could not be written\n",
            "  2  usage (also: --print-config without --release when the cluster cannot be asked)\n",
            "  3  a certificate, key or client CA that cannot be read\n",
            "  4  cluster unreachable or credentials rejected",
            options_footer!()
        )
    )]
    Admit(AdmitArgs),
    /// Print the checks that need no lookup as a ValidatingAdmissionPolicy and its binding
    /// (Kubernetes 1.30+): the API server warns about (or refuses) such ownerReferences itself.
    #[command(
        long_about = "Print the checks of admit that need no lookup as a ValidatingAdmissionPolicy \
and its ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1, Kubernetes 1.30+), \
for kubectl apply: the API server then judges each ownerReference a CREATE or UPDATE adds, with no \
server to run.\n\n\
The checks: a uid that is not a lower-case UUID (no object can hold it), an apiVersion no cluster \
serves (core/v1, a malformed group or version) or the target release does not, a kind written in \
lower case, in the plural or otherwise not as the API serves it, and a cluster-scoped object \
naming a namespaced owner kind. Which kinds exist and which are namespaced comes from the built-in \
catalogue for --release, plus the custom resources of -f or --snapshot if given (give every CRD of \
a group: the kinds of a group it knows are all it accepts). An owner in another namespace or with a \
stale uid needs the owner looked up: that is admit's.\n\n\
The policy never stands in the cluster's way: only references a write adds are judged, the \
GC's, the namespace controller's and kube-controller-manager's writes and objects labelled \
kubectl-gc.io/admit=skip are not matched, and failurePolicy Ignore admits a write whose \
expressions cannot be evaluated.",
        after_help = concat!(
            "Examples:\n",
            "  # Warn (the default), knowing the kinds of Kubernetes 1.31\n",
            "  kubectl gc policy --release 1.31 | kubectl apply -f -\n\n",
            "  # Refuse, knowing the cluster's custom resources too, outside kube-system\n",
            "  kubectl gc policy --validation-actions deny --snapshot cluster.json \\\n",
            "      --skip-namespace kube-system | kubectl apply -f -\n\n",
            "Exit codes:\n",
            "  0  printed\n",
            "  1  output could not be written\n",
            "  2  usage\n",
            "  3  unreadable or malformed input",
            options_footer!()
        )
    )]
    Policy(PolicyArgs),
    /// Serve the GC model as Model Context Protocol tools for AI agents (read-only unless
    /// --allow-apply).
    #[command(
        long_about = mcp::long_about(),
        after_help = concat!(
            "Examples:\n",
            "  # Register with an agent host (stdio)\n",
            "  claude mcp add kubectl-gc -- kubectl gc mcp\n\n",
            "  # Files of one incident only, offline\n",
            "  kubectl gc mcp --root ./incident-42\n\n",
            "  # Let the agent carry out plans it previewed, on one context\n",
            "  kubectl gc mcp --allow-apply --context staging\n\n",
            "  # Streamable HTTP on loopback, with a bearer token\n",
            "  kubectl gc mcp --listen 127.0.0.1:8765 --token-file ~/.kube/gc-mcp-token\n\n",
            "Exit codes:\n",
            "  0  the client closed the connection (stdio), or SIGINT/SIGTERM\n",
            "  1  an unexpected failure while running\n",
            "  2  usage (a bad flag, --root not a directory, --listen not on loopback)",
            options_footer!()
        )
    )]
    Mcp(McpArgs),
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
            "  1  output could not be written\n",
            "  2  usage"
        )
    )]
    Completion(CompletionArgs),
    /// Print the global command-line options (they apply to every command).
    #[command(
        long_about = "Print the global command-line options: input, selection, cluster connection \
and output flags that every command accepts after `kubectl gc` (a command refuses, with the \
reason, those it cannot honour).",
        after_help = "Examples:\n  kubectl gc options\n\nExit codes:\n  0  printed\n  1  output could not be written\n  2  usage"
    )]
    Options,
    /// Print the version of kubectl-gc (and, with -o, its build information).
    #[command(
        long_about = "Print the version of kubectl-gc: the release, the git commit and the target it \
was built for. kubectl-gc never contacts a cluster for this.",
        after_help = "Examples:\n  kubectl gc version\n  kubectl gc version -o json\n\nExit codes:\n  0  printed\n  1  output could not be written\n  2  usage"
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
    let matches = Cli::command()
        .try_get_matches_from(&args)
        .map_err(|e| misplaced::explain(&e, &args).unwrap_or(e))?;
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

pub mod mcp;
pub use mcp::McpArgs;
pub mod output;
// After `options_footer!` (macros are visible to the modules declared below them).
mod args;
pub use args::*;
pub use output::{GraphFormat, ReportFormat};
use values::parse_version;
pub use values::{FailOn, MAX_REQUEST_TIMEOUT, parse_duration, parse_size};

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
