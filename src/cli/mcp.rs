//! `kubectl gc mcp`: its flags, and the catalogue of its tools (name, title, what each answers).
//! The catalogue is here, beside the flags, because `kubectl gc mcp --help` documents every
//! tool: the server (`crate::mcp`) takes each tool's description from [`TOOLS`], so the help and
//! what an agent reads cannot disagree.

use super::values::{parse_duration, parse_qps, parse_size};
use clap::Args;
use std::path::PathBuf;

/// One tool of the MCP server, as documented.
#[derive(Debug, Clone, Copy)]
pub struct ToolDoc {
    /// The tool's name (`delete_preview`).
    pub name: &'static str,
    /// A title for people.
    pub title: &'static str,
    /// The command whose `-o json` document the tool returns.
    pub command: &'static str,
    /// What the tool answers, for a model that has never heard of the GC: when to call it and
    /// what the answer means.
    pub description: &'static str,
}

/// How every tool reads its input (appended to each description).
pub const INPUT_NOTE: &str = "Input: the live cluster by default (the server's kubeconfig; \
`context`, `namespace`, `all_namespaces` as kubectl takes them), or files under the server's \
--root: `snapshot` (a file written by `kubectl gc snapshot`) or `files` (kubectl get -o \
json|yaml output, must-gathers). Paths are relative to --root; nothing outside it is read. \
An answer larger than the server's cap comes in pages: call again with only `continuation`.";

/// The tools, in the order they are listed. `apply_plan` is listed only with `--allow-apply`.
pub const TOOLS: &[ToolDoc] = &[
    ToolDoc {
        name: "audit",
        title: "Audit ownerReferences as the garbage collector judges them",
        command: "audit",
        description: "Kubernetes deletes an object automatically when every owner named in its \
metadata.ownerReferences is gone: the garbage collector (GC) in kube-controller-manager does it. \
A reference that names an owner in another namespace, an owner that does not exist, or an owner \
recreated with another uid makes the GC delete a live object, now or at the next \
controller-manager restart. Call audit to find such references before they do harm, or to \
explain deletions nobody asked for. The answer lists findings (code GC001..., severity, the \
object, the reference, what the GC will do, and a remedy command); owners that could not be read \
are 'unknown', never 'missing'. Read-only.",
    },
    ToolDoc {
        name: "why",
        title: "Explain one object: why it is stuck, why the GC will or will not delete it",
        command: "why",
        description: "Explain one object (`object`: KIND/NAME as kubectl names it, e.g. \
deployment/web, pod/web-1, namespace/shop): its verdict first (kept, deleted by the GC now or \
at its next restart, stuck terminating and on what), then the evidence: each finalizer and which \
controller removes it, each ownerReference as the GC classifies it, the namespace controller's \
view, and remedies in a safe order. Call it when an object is stuck in Terminating, vanished, or \
you want to know whether the GC will remove it. With `audit_logs`, it also says what the log \
shows happened to it. Read-only.",
    },
    ToolDoc {
        name: "delete_preview",
        title: "Preview everything a delete would remove, before deleting",
        command: "collect --delete",
        description: "Call this BEFORE deleting any object (`object`: KIND/NAME; `cascade`: \
background (kubectl's default), foreground, orphan, or default for the type's own). Deleting an \
owner makes the GC delete its dependents, theirs in turn, and a namespace takes all its content: \
the answer lists every delete, ownerReference patch and finalizer removal that follows, wave by \
wave, and each touched object's end state (deleted, terminating and held by which finalizer, or \
kept). Nothing is changed. When the server runs with --allow-apply on a live cluster, the answer \
carries a `planId`: pass it to apply_plan to perform exactly this delete, refused if anything \
it read has changed since.",
    },
    ToolDoc {
        name: "plan",
        title: "What the garbage collector will delete or patch (dry run)",
        command: "collect",
        description: "The GC's work still to do on the input: dependents whose owners are gone \
(deleted, with the propagation policy the GC sends), orphaned dependents (ownerReferences \
removed), foreground deletions that can finish (finalizers removed), in waves, with each \
object's end state. Call it to see what the GC would do right now if it ran on this state, \
e.g. in a cluster where kube-controller-manager is down. Nothing is changed. With --allow-apply \
on a live cluster, the answer carries a `planId` for apply_plan.",
    },
    ToolDoc {
        name: "history",
        title: "What the GC and the namespace controller deleted, and why (audit logs)",
        command: "history",
        description: "Forensics from Kubernetes API-server audit logs (`audit_logs`: files or \
directories under --root; JSON lines, gzipped, must-gathers, EKS, GKE and AKS exports): every \
deletion, ownerReference removal and finalizer removal in time order, by the GC, the namespace \
controller, people and controllers; for the GC's and namespace controller's actions, the cause \
(which owner was deleted, by whom, with which policy; an owner that never existed or sits in \
another namespace) chained back to the action that started it. Call it after objects \
disappeared unexpectedly. `snapshot`/`files` give the state before; `after` the state after \
(a path, or `cluster`). A cause the log does not prove is 'unknown' or 'unexplained'. Read-only.",
    },
    ToolDoc {
        name: "graph",
        title: "The owner/dependent graph as the GC holds it",
        command: "graph",
        description: "The ownership graph the GC builds from ownerReferences: nodes (objects, \
with uid and finalizers; 'virtual' nodes for owners that were never seen) and edges (dependent \
to owner, with how the GC classifies each reference). `objects` (KIND/NAME) or `uids` pick start \
objects; their connected components are returned, narrowed by `direction` (up: owners, down: \
dependents) and `depth`. Call it to see what hangs off an object before you touch it. Read-only.",
    },
    ToolDoc {
        name: "check_restart",
        title: "What a restarted GC deletes right after it starts",
        command: "check restart",
        description: "A freshly started GC (after a kube-controller-manager restart, upgrade or \
leader change) re-checks owners a long-running GC never looked at again, so it deletes garbage \
and misdirected dependents all at once. This lists those deletions with their cascade (GC015), \
dependents it never evaluates (GC020) and order-dependent deletions (GC016, GC before 1.20). \
Call it before restarting or upgrading the control plane. Read-only.",
    },
    ToolDoc {
        name: "check_apply",
        title: "What the GC does to manifests once they are applied or restored",
        command: "check apply",
        description: "ownerReferences carry uids, and every object created anew gets a new uid: \
a manifest, export or backup that carries ownerReferences can make the GC delete what you just \
applied. `manifests` (files or directories under --root: YAML, kubectl List exports, Helm or \
Kustomize output, Velero backup tarballs) are laid over the target as it will be right after the \
apply: the live cluster (default), `target`: a snapshot path, or `empty` (a new cluster). Every \
reference is judged as the GC judges it there. `restorer`: apply (default) or velero (Velero \
strips references on restore: reports what ends up orphaned). Call it before kubectl apply or a \
restore. Read-only.",
    },
    ToolDoc {
        name: "apply_plan",
        title: "Carry out a previewed plan (destructive)",
        command: "collect --apply",
        description: "Only with --allow-apply. Carries out exactly the plan that plan or \
delete_preview returned as `planId`, nothing else: the cluster is read again first and the call \
is refused, with nothing deleted, if the plan would differ or any object it read has changed \
(another resourceVersion), if the id is unknown, expired or already used. Each action is then \
re-verified just before its request and sent with the GC's own preconditions (uid; \
resourceVersion where the GC sends it): a delete_preview's plan sends the user's delete only (the \
cluster's GC carries out the cascade it previewed), a plan's sends the GC's requests. The answer \
is the record of every request sent and each action's result. Show the preview to the user \
before calling this.",
    },
];

/// `kubectl gc mcp --help`'s long description, with every tool.
pub fn long_about() -> String {
    let mut s = String::from(
        "Serve kubectl-gc's answers as Model Context Protocol (MCP) tools for AI agents.\n\n\
mcp speaks MCP over stdio (what agent hosts start: `claude mcp add kubectl-gc -- kubectl gc \
mcp`), or, with --listen, streamable HTTP on a loopback address with a bearer token. Each tool \
runs the matching kubectl-gc command in a child process with a time limit and returns the \
command's `-o json` document as structuredContent, with its JSON schema as the tool's output \
schema, plus a one-line summary. Every tool only reads, except apply_plan, which exists only with \
--allow-apply and performs only a plan a preview returned. Files are read only under --root.\n\n\
Tools:\n",
    );
    for t in TOOLS {
        s.push_str(&format!(
            "\n  {} — {} (`kubectl gc {} -o json`)\n",
            t.name, t.title, t.command
        ));
        for line in wrap(t.description, 90) {
            s.push_str("      ");
            s.push_str(&line);
            s.push('\n');
        }
    }
    s.push('\n');
    for line in wrap(INPUT_NOTE, 94) {
        s.push_str(&line);
        s.push('\n');
    }
    s
}

/// Words of `text` in lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// `mcp` flags.
#[derive(Args, Debug, Clone)]
pub struct McpArgs {
    /// The directory file arguments are confined to (default: the working directory). Paths
    /// are resolved against it; `..`, absolute paths and links leading out of it are refused.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub root: Option<PathBuf>,
    /// Offer apply_plan: carry out a plan that plan or delete_preview returned, after a re-read
    /// shows nothing it read has changed. Without it the server never writes to a cluster.
    #[arg(long)]
    pub allow_apply: bool,
    /// Serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8765) instead of stdio.
    /// Requests need `Authorization: Bearer TOKEN`.
    #[arg(long, value_name = "HOST:PORT")]
    pub listen: Option<std::net::SocketAddr>,
    /// With --listen: the file holding the bearer token (default: $KUBECTL_GC_MCP_TOKEN, else a
    /// random token printed once on stderr).
    #[arg(long, value_name = "FILE", requires = "listen", value_hint = clap::ValueHint::FilePath)]
    pub token_file: Option<PathBuf>,
    /// Time limit of one tool call (the command is stopped and the call answers an error).
    #[arg(long, default_value = "2m", value_name = "DURATION", value_parser = parse_duration)]
    pub timeout: std::time::Duration,
    /// Largest answer (the JSON document) of one call; a larger one comes in pages with a
    /// continuation.
    #[arg(long, default_value = "96Ki", value_name = "SIZE", value_parser = parse_size)]
    pub max_answer_size: u64,
    /// Tool calls run at once; further calls wait.
    #[arg(long, default_value_t = 2, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub max_concurrency: u16,
    /// How long a planId stays valid.
    #[arg(long, default_value = "15m", value_name = "DURATION", value_parser = parse_duration)]
    pub plan_ttl: std::time::Duration,
    /// apply_plan: requests per second.
    #[arg(long, value_name = "N", default_value_t = 20.0, value_parser = parse_qps)]
    pub qps: f64,
}
