//! Each command's own flags (`audit`, `check`, `collect`, `graph`, `snapshot`, `watch`,
//! `version`, `completion`, the hidden `generate`) and the flag groups several commands share
//! (kubectl's list-output flags, `--output-file`, fleet contexts, suppressions).

use super::output::{self, GraphFormat, ReportFormat};
use super::values::*;
use crate::catalog::KubeVersion;
use clap::{Args, Subcommand, ValueEnum, ValueHint};
use std::path::PathBuf;

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckWhat {
    /// `check restart`.
    Restart,
    /// `check upgrade`.
    Upgrade,
    /// `check health`.
    Health,
    /// `check apply`.
    Apply,
}

/// `check`'s subcommands, each with only its own flags (upgrade's `--to` is not in `check
/// apply --help`).
#[derive(Subcommand, Debug, Clone)]
pub enum CheckCmd {
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
            gate_exit_codes!("usage", "bad input"),
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
            gate_exit_codes!("usage (--to missing)", "bad input (a --crd file)"),
            options_footer!()
        )
    )]
    Upgrade(UpgradeFlags),
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
            gate_exit_codes!("usage", "bad input"),
            options_footer!()
        )
    )]
    Health,
    /// What the GC does to objects once they are created: manifests, exports, Velero backups.
    #[command(
        long_about = "What the GC does to objects once they are created: manifests, exports, Velero backups.\n\n\
ownerReferences carry UIDs, and every object created anew gets a new UID. check apply takes \
what you apply or restore with -f (manifests and directories with -R, kubectl List exports, \
Helm template and Kustomize output, Velero backup tarballs read directly) and builds the target \
as it will be right after: each input object created with a new UID unless the target already \
has it (same group, kind, namespace, name: an update keeps the target's UID). The target is the \
live cluster (default), --target SNAPSHOT (a snapshot file of it), or --target empty (a new \
cluster). Then every \
reference is judged as the GC judges it there: deleted at once (the owner's UID will not exist), \
cross-namespace owners, cluster-scoped dependents of namespaced owners, owner kinds the target \
does not serve — plus GC024 for ownerReferences written into manifests at all. --restorer \
velero applies Velero's rules instead (references stripped, nodes and events not restored) and \
reports what ends up orphaned.",
        after_help = concat!(
            "Examples:\n",
            "  # A GitOps repository, against a new cluster, as a CI gate\n",
            "  kubectl gc check apply -f manifests/ -R --target empty -o sarif\n\n",
            "  # An export applied to the live cluster\n",
            "  kubectl gc check apply -f exported.yaml\n\n",
            "  # A Velero backup restored into a snapshot of the target\n",
            "  kubectl gc check apply -f backup.tar.gz --target target.ndjson --restorer velero\n\n",
            gate_exit_codes!("usage (no -f)", "bad input"),
            options_footer!()
        )
    )]
    Apply(ApplyFlags),
}

impl CheckCmd {
    /// Which check.
    pub fn what(&self) -> CheckWhat {
        match self {
            CheckCmd::Restart => CheckWhat::Restart,
            CheckCmd::Upgrade(_) => CheckWhat::Upgrade,
            CheckCmd::Health => CheckWhat::Health,
            CheckCmd::Apply(_) => CheckWhat::Apply,
        }
    }
}

/// `check upgrade` flags.
#[derive(Args, Debug, Clone, Default)]
pub struct UpgradeFlags {
    /// Target Kubernetes version (e.g. 1.25).
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub to: Option<KubeVersion>,
    /// CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade
    /// (repeatable): versions they stop serving break ownerReferences.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub crd: Vec<PathBuf>,
}

/// `check apply` flags.
#[derive(Args, Debug, Clone)]
pub struct ApplyFlags {
    /// The target — `empty` (a new cluster) or a snapshot FILE of it; default: the live
    /// cluster.
    #[arg(long, value_name = "empty|SNAPSHOT", value_hint = ValueHint::FilePath)]
    pub target: Option<String>,
    /// How the objects are created (apply: references kept; velero: stripped).
    #[arg(long, value_enum, default_value_t = ApplyRestorer::Apply)]
    pub restorer: ApplyRestorer,
}

/// `check apply --restorer`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyRestorer {
    /// kubectl apply/create, GitOps tools: ownerReferences kept as written.
    Apply,
    /// Velero: ownerReferences stripped; nodes and events not restored.
    Velero,
}

/// `check` flags.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Which check (default: restart and health, plus upgrade when --to is given).
    #[command(subcommand)]
    pub cmd: Option<CheckCmd>,
    /// Adds the upgrade check to restart and health: the target Kubernetes version (e.g.
    /// 1.25).
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub to: Option<KubeVersion>,
    /// CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade
    /// (repeatable; with --to).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
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

impl CheckArgs {
    /// Which check, if one was named.
    pub fn what(&self) -> Option<CheckWhat> {
        self.cmd.as_ref().map(CheckCmd::what)
    }

    /// The upgrade check's flags: `check upgrade`'s own, else `check`'s (`check --to`).
    pub fn upgrade(&self) -> UpgradeFlags {
        match &self.cmd {
            Some(CheckCmd::Upgrade(u)) => UpgradeFlags {
                to: u.to.or(self.to),
                crd: self.crd.iter().chain(&u.crd).cloned().collect(),
            },
            _ => UpgradeFlags {
                to: self.to,
                crd: self.crd.clone(),
            },
        }
    }

    /// `check apply`'s flags (defaults elsewhere).
    pub fn apply(&self) -> ApplyFlags {
        match &self.cmd {
            Some(CheckCmd::Apply(a)) => a.clone(),
            _ => ApplyFlags {
                target: None,
                restorer: ApplyRestorer::Apply,
            },
        }
    }
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

/// `admit --mode`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdmitMode {
    /// Admit, with a warning kubectl prints.
    Warn,
    /// Refuse the write with the message.
    Deny,
}

/// `admit` flags.
#[derive(Args, Debug)]
pub struct AdmitArgs {
    /// Warn (admit with warnings) or deny (refuse) a write whose new ownerReference the GC
    /// will act on.
    #[arg(long, value_enum, default_value_t = AdmitMode::Warn)]
    pub mode: AdmitMode,
    /// Serve HTTPS here.
    #[arg(long, default_value = "0.0.0.0:8443", value_name = "HOST:PORT")]
    pub listen: std::net::SocketAddr,
    /// The serving certificate (PEM, chain first); read again when it changes.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub tls_cert_file: Option<PathBuf>,
    /// Its private key (PEM); read again when it changes.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub tls_private_key_file: Option<PathBuf>,
    /// Answer reviews only over connections that present a client certificate this CA (PEM)
    /// signed: the one the API server presents through its admission configuration. Without
    /// it, anyone who reaches the port is answered, and learns which owners exist where.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub client_ca_file: Option<PathBuf>,
    /// Answer every review within this time (a check the graph has not answered by then is
    /// admitted).
    #[arg(long, default_value = "2s", value_name = "DURATION", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// Also warn when OwnerReferencesPermissionEnforcement would refuse the write for its
    /// sender (blockOwnerDeletion=true without update on the owner's finalizers, or a changed
    /// ownerReferences without delete), asked of the API server with a SubjectAccessReview:
    /// the webhook's service account needs create on subjectaccessreviews. A warning in every
    /// mode; an answer that does not come within --timeout says nothing.
    #[arg(long)]
    pub check_permissions: bool,
    /// Checks on the graph in flight at once (beyond it, writes are admitted unchecked).
    #[arg(long, default_value_t = 64, value_name = "N")]
    pub max_in_flight: usize,
    /// Connections served at once; a new one beyond them takes the place of the oldest idle
    /// or slow connection.
    #[arg(long, default_value_t = 512, value_name = "N")]
    pub max_connections: usize,
    /// Judge only writes in this namespace (repeatable; default: every namespace and
    /// cluster-scoped objects).
    #[arg(long = "only-namespace", value_name = "NAMESPACE")]
    pub only_namespaces: Vec<String>,
    /// Never judge writes in this namespace (repeatable).
    #[arg(long = "skip-namespace", value_name = "NAMESPACE")]
    pub skip_namespaces: Vec<String>,
    /// Print the ValidatingWebhookConfiguration for --url and --ca-file, and exit.
    #[arg(long, requires_all = ["url", "ca_file"])]
    pub print_config: bool,
    /// The webhook's URL as the API server reaches it (https://HOST:PORT/validate).
    #[arg(long, value_name = "URL", requires = "print_config")]
    pub url: Option<String>,
    /// The CA certificate (PEM) that signed the serving certificate.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, requires = "print_config")]
    pub ca_file: Option<PathBuf>,
    /// The Kubernetes release the configuration is for (what it can keep off the wire depends
    /// on it) [default: the connected cluster's].
    #[arg(long, value_name = "VERSION", value_parser = parse_version, requires = "print_config")]
    pub release: Option<KubeVersion>,
}

/// `policy --validation-actions`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyAction {
    /// Admit, with a warning kubectl prints.
    Warn,
    /// Admit, with the message in the audit log's annotations.
    Audit,
    /// Refuse the write with the message.
    Deny,
}

/// `policy` flags.
#[derive(Args, Debug)]
pub struct PolicyArgs {
    /// What the API server does with a write that fails a check (comma-separated; Deny and
    /// Warn exclude each other).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "warn",
        value_name = "ACTION",
        ignore_case = true
    )]
    pub validation_actions: Vec<PolicyAction>,
    /// The Kubernetes release whose built-in kinds the policy knows (1.30 or later: the first
    /// to serve ValidatingAdmissionPolicy v1) [default: the newest modelled].
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub release: Option<KubeVersion>,
    /// Judge only writes in this namespace (repeatable; default: every namespace and
    /// cluster-scoped objects).
    #[arg(long = "only-namespace", value_name = "NAMESPACE")]
    pub only_namespaces: Vec<String>,
    /// Never judge writes in this namespace (repeatable).
    #[arg(long = "skip-namespace", value_name = "NAMESPACE")]
    pub skip_namespaces: Vec<String>,
}

/// `codes` arguments.
#[derive(Args, Debug)]
pub struct CodesArgs {
    /// A finding code (GC004) or its name (cross-namespace-owner); none: every code.
    #[arg(value_name = "CODE")]
    pub code: Option<String>,
}

/// `version` flags.
#[derive(Args, Debug)]
pub struct VersionArgs {
    /// Output format: the version line, or json / yaml with the build information.
    #[arg(short, long, value_enum)]
    pub output: Option<VersionFormat>,
}

/// `why` flags.
#[derive(Args, Debug)]
pub struct WhyArgs {
    /// The object: KIND/NAME or KIND NAME, as kubectl takes them (kind, plural, singular,
    /// short name or kind.group), in -n's namespace.
    #[arg(value_name = "KIND/NAME", required = true, num_args = 1..=2)]
    pub target: Vec<String>,
    /// Output format: text (a verdict, then the evidence as a tree), json or yaml.
    #[arg(short, long, value_enum, default_value_t = WhyFormat::Text)]
    pub output: WhyFormat,
    /// For an object that is gone: API-server audit logs that say who deleted it and why
    /// (as `history --audit-log`; repeatable).
    #[arg(long = "audit-log", value_name = "PATH", value_hint = ValueHint::AnyPath)]
    pub audit_log: Vec<std::path::PathBuf>,
    /// `--output-file`.
    #[command(flatten)]
    pub file: OutputFileArgs,
}

/// `relink` flags.
#[derive(Args, Debug)]
pub struct RelinkArgs {
    /// The target to relink: a snapshot FILE of it (dry run only); default: the live cluster.
    #[arg(long, value_name = "SNAPSHOT", value_hint = ValueHint::FilePath)]
    pub target: Option<std::path::PathBuf>,
    /// Also link `controller: true` references of workloads whose controllers adopt by
    /// selector (Pods of ReplicaSets, ReplicaSets of Deployments, Pods of Jobs, …).
    #[arg(long)]
    pub include_adoptable: bool,
    /// Patch the live cluster (each object and owner re-read first; default: dry run).
    #[arg(long, help_heading = "Apply")]
    pub apply: bool,
    /// Apply without asking (required when stdin or stderr is not a terminal).
    #[arg(long, short = 'y', requires = "apply", help_heading = "Apply")]
    pub yes: bool,
    /// The record of every patch --apply sends (NDJSON, mode 0600; default:
    /// `./kubectl-gc-relink-<UTC time>.json`; never overwritten).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, requires = "apply", help_heading = "Apply")]
    pub record: Option<std::path::PathBuf>,
    /// Output format: table, json or yaml.
    #[arg(short, long, value_enum, default_value_t = RelinkFormat::Table)]
    pub output: RelinkFormat,
}

/// `relink -o` formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelinkFormat {
    /// The links and the skipped references, as tables.
    Table,
    /// The `RelinkPlan` document as JSON.
    Json,
    /// The same as YAML.
    Yaml,
}

/// `history` flags.
#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// API-server audit logs: files, directories, globs, `.gz`, `-` for stdin (repeatable).
    /// JSON lines, webhook EventLists, OpenShift must-gathers, EKS, GKE and AKS exports are
    /// recognised by content.
    #[arg(
        long = "audit-log",
        value_name = "PATH",
        required_unless_present = "controller_manager_log",
        value_hint = ValueHint::AnyPath
    )]
    pub audit_log: Vec<std::path::PathBuf>,
    /// kube-controller-manager's own log, for clusters without an audit log: files, rotated
    /// and `.gz` files, directories and must-gathers (files naming the controller manager),
    /// `-` for stdin (repeatable). klog text at any --v, `kubectl logs` with or without
    /// --timestamps, journald (short-iso, json), the JSON logging format, Cloud Logging and
    /// CloudWatch exports.
    #[arg(long = "controller-manager-log", value_name = "PATH", value_hint = ValueHint::AnyPath)]
    pub controller_manager_log: Vec<std::path::PathBuf>,
    /// The year of the controller manager's klog times, which have none (of each input's
    /// first line; default: the log's own header, the audit log's window, or the file's
    /// modification time, said in a note).
    #[arg(long, value_name = "YYYY", value_parser = clap::value_parser!(i64).range(1970..=9999))]
    pub year: Option<i64>,
    /// Only actions by the garbage collector, the namespace controller, users and other
    /// controllers (`user`), or all.
    #[arg(long, value_enum, default_value_t = HistoryActor::All)]
    pub actor: HistoryActor,
    /// Only actions at or after this time: RFC 3339, or a duration back from now (90s, 15m,
    /// 1h30m, 2d), as kubectl logs --since takes one.
    #[arg(long, value_name = "TIME", value_parser = crate::diagnose::history::parse_time_arg)]
    pub since: Option<crate::diagnose::history::TimeArg>,
    /// Only actions at or before this time: RFC 3339, or a duration back from now.
    #[arg(long, value_name = "TIME", value_parser = crate::diagnose::history::parse_time_arg)]
    pub until: Option<crate::diagnose::history::TimeArg>,
    /// The state after the log: a snapshot FILE or a path as -f takes it (a must-gather's
    /// resources, a kubectl dump), or `cluster` for the live cluster now (connection flags
    /// then apply). It shows what became of each object, owners that still exist, and — with
    /// the state before — what went without a deletion of its own in the log.
    #[arg(long, value_name = "PATH|cluster", value_hint = ValueHint::AnyPath)]
    pub after: Option<String>,
    /// Output format: table, wide, json, yaml or html.
    #[arg(short, long, value_enum, default_value_t = HistoryFormat::Table)]
    pub output: HistoryFormat,
    /// `--output-file`.
    #[command(flatten)]
    pub file: OutputFileArgs,
}

/// `history --actor`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistoryActor {
    /// Every action.
    All,
    /// The garbage collector's.
    Gc,
    /// The namespace controller's.
    Namespace,
    /// People's and other controllers'.
    User,
}

/// `history -o` formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistoryFormat {
    /// Unexplained GC actions first, then every action with its cause.
    Table,
    /// The table with full causes, users and where each event was read.
    Wide,
    /// The `History` document as JSON (schemas/history.schema.json).
    Json,
    /// The same as YAML.
    Yaml,
    /// A self-contained page: the timeline as a picture, then every action.
    Html,
}

/// `why -o` formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhyFormat {
    /// A verdict, then the evidence as a tree.
    Text,
    /// The answer as JSON (schemas/why.schema.json).
    Json,
    /// The answer as YAML.
    Yaml,
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

/// `completion` arguments.
#[derive(Args, Debug)]
pub struct CompletionArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
