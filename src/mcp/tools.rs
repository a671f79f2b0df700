//! The tools: their arguments (one table of fields, each tool a list of them), input and
//! output schemas, annotations, and the command line each call runs.

use super::paths::{Root, shown};
use crate::cli::mcp::{INPUT_NOTE, TOOLS, ToolDoc};
use rmcp::model::{Tool, ToolAnnotations};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::ffi::OsString;
use std::sync::Arc;

/// Which tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `audit`.
    Audit,
    /// `why`.
    Why,
    /// `collect --delete`.
    DeletePreview,
    /// `collect`.
    Plan,
    /// `history`.
    History,
    /// `graph`.
    Graph,
    /// `check restart`.
    CheckRestart,
    /// `check apply`.
    CheckApply,
    /// Carries out a previewed plan.
    ApplyPlan,
}

impl Kind {
    /// Every tool, in [`TOOLS`]' order.
    pub const ALL: [Kind; 9] = [
        Kind::Audit,
        Kind::Why,
        Kind::DeletePreview,
        Kind::Plan,
        Kind::History,
        Kind::Graph,
        Kind::CheckRestart,
        Kind::CheckApply,
        Kind::ApplyPlan,
    ];

    /// The tool's documentation.
    pub fn doc(self) -> &'static ToolDoc {
        &TOOLS[Kind::ALL.iter().position(|k| *k == self).expect("listed")]
    }

    /// The tool named `name`.
    pub fn named(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.doc().name == name)
    }

    /// The schema (in `schemas/`) of the document it returns.
    fn schema_file(self) -> &'static str {
        match self {
            Kind::Audit | Kind::CheckRestart | Kind::CheckApply => "audit-report.schema.json",
            Kind::Why => "why.schema.json",
            Kind::DeletePreview | Kind::Plan => "collect-plan.schema.json",
            Kind::History => "history.schema.json",
            Kind::Graph => "ownership-graph.schema.json",
            Kind::ApplyPlan => "apply-result.schema.json",
        }
    }

    /// Its arguments, and which of them are required.
    fn fields(self) -> (&'static [&'static str], &'static [&'static str]) {
        match self {
            Kind::Audit | Kind::Plan | Kind::CheckRestart => (
                &[
                    "context",
                    "kubeconfig",
                    "namespace",
                    "all_namespaces",
                    "snapshot",
                    "files",
                    "recursive",
                    "gc_version",
                    "kinds",
                    "selector",
                ],
                &[],
            ),
            Kind::Why => (
                &[
                    "object",
                    "audit_logs",
                    "context",
                    "kubeconfig",
                    "namespace",
                    "snapshot",
                    "files",
                    "recursive",
                    "gc_version",
                ],
                &["object"],
            ),
            Kind::DeletePreview => (
                &[
                    "object",
                    "cascade",
                    "context",
                    "kubeconfig",
                    "namespace",
                    "all_namespaces",
                    "snapshot",
                    "files",
                    "recursive",
                    "gc_version",
                ],
                &["object"],
            ),
            Kind::History => (
                &[
                    "audit_logs",
                    "actor",
                    "since",
                    "until",
                    "after",
                    "namespace",
                    "kinds",
                    "snapshot",
                    "files",
                    "recursive",
                    "context",
                    "kubeconfig",
                ],
                &["audit_logs"],
            ),
            Kind::Graph => (
                &[
                    "objects",
                    "uids",
                    "direction",
                    "depth",
                    "context",
                    "kubeconfig",
                    "namespace",
                    "all_namespaces",
                    "snapshot",
                    "files",
                    "recursive",
                    "kinds",
                    "selector",
                ],
                &[],
            ),
            Kind::CheckApply => (
                &[
                    "manifests",
                    "target",
                    "restorer",
                    "recursive",
                    "context",
                    "kubeconfig",
                    "namespace",
                    "gc_version",
                ],
                &["manifests"],
            ),
            Kind::ApplyPlan => (&["plan_id"], &["plan_id"]),
        }
    }

    /// The tool as listed.
    pub fn tool(self) -> Tool {
        let doc = self.doc();
        let (fields, required) = self.fields();
        let mut props = Map::new();
        for f in fields.iter().chain(["continuation"].iter()) {
            props.insert((*f).to_owned(), field_schema(f));
        }
        let input = json!({
            "type": "object",
            "properties": props,
            "required": required,
            "additionalProperties": false,
        });
        let Value::Object(input) = input else {
            unreachable!()
        };
        let description = match self {
            Kind::ApplyPlan => doc.description.to_owned(),
            _ => format!("{} {INPUT_NOTE}", doc.description),
        };
        let plan_id = matches!(self, Kind::Plan | Kind::DeletePreview | Kind::ApplyPlan);
        let annotations = ToolAnnotations::with_title(doc.title)
            .read_only(self != Kind::ApplyPlan)
            .destructive(self == Kind::ApplyPlan)
            .idempotent(self != Kind::ApplyPlan)
            .open_world(true);
        Tool::new(doc.name, description, Arc::new(input))
            .with_title(doc.title)
            .with_raw_output_schema(Arc::new(super::schema::output(self.schema_file(), plan_id)))
            .with_annotations(annotations)
    }
}

/// Each argument's JSON Schema, with what it means.
fn field_schema(name: &str) -> Value {
    let strings = |d: &str| json!({"type": "array", "items": {"type": "string"}, "description": d});
    let string = |d: &str| json!({"type": "string", "description": d});
    match name {
        "context" => string("kubeconfig context to read (default: the server's)."),
        "kubeconfig" => string("A kubeconfig file under --root (default: the server's)."),
        "namespace" => string(
            "Only this namespace (default: the context's namespace for a cluster, all for files).",
        ),
        "all_namespaces" => json!({"type": "boolean", "description": "Every namespace."}),
        "snapshot" => string(
            "A snapshot file written by `kubectl gc snapshot`, under --root, instead of the cluster.",
        ),
        "files" => strings(
            "kubectl get -o json|yaml output, must-gathers or support bundles (files or directories under --root) instead of the cluster.",
        ),
        "recursive" => {
            json!({"type": "boolean", "description": "Walk directories of files/manifests recursively."})
        }
        "gc_version" => {
            string("Emulate this Kubernetes release's GC, e.g. 1.19 (default: the cluster's).")
        }
        "kinds" => strings(
            "Only objects of these kinds, as kubectl names them (pod, deploy, replicasets.apps).",
        ),
        "selector" => string("Only objects matching this label selector (app=web,tier!=db)."),
        "object" => string(
            "The object, as kubectl names it: KIND/NAME (deployment/web, pod/web-1, namespace/shop).",
        ),
        "objects" => strings("Start objects, KIND/NAME each."),
        "uids" => strings("Start objects by metadata.uid."),
        "direction" => {
            json!({"enum": ["up", "down", "both"], "description": "up: owners only; down: dependents only; both (default)."})
        }
        "depth" => {
            json!({"type": "integer", "minimum": 0, "maximum": 1000, "description": "Levels from the start objects."})
        }
        "cascade" => {
            json!({"enum": ["background", "foreground", "orphan", "default"], "description": "The delete's propagationPolicy: background (kubectl's default), foreground, orphan, or default (none sent: the type's default)."})
        }
        "audit_logs" => strings(
            "API-server audit logs under --root (files or directories; gzipped, must-gathers, EKS/GKE/AKS exports).",
        ),
        "actor" => {
            json!({"enum": ["all", "gc", "namespace", "user"], "description": "Only actions by the GC, the namespace controller, or people and other controllers."})
        }
        "since" => string(
            "Only actions at or after this time (RFC 3339, or a duration back from the log's end like 2h).",
        ),
        "until" => string("Only actions before this time (RFC 3339)."),
        "after" => {
            string("The state after the log: a snapshot or files path under --root, or `cluster`.")
        }
        "manifests" => strings(
            "What is applied or restored: manifests, exports, Helm/Kustomize output, Velero backups (files or directories under --root).",
        ),
        "target" => string(
            "Where it is applied: `empty` (a new cluster), a snapshot path under --root, or absent for the live cluster.",
        ),
        "restorer" => {
            json!({"enum": ["apply", "velero"], "description": "apply (default), or velero: Velero's restore rules (references stripped)."})
        }
        "plan_id" => {
            json!({"type": "string", "pattern": "^plan-[0-9a-f]{32}$", "description": "The planId a plan or delete_preview answer carried."})
        }
        "continuation" => {
            string("The continuation token of a paged answer: alone, it fetches the next page.")
        }
        other => panic!("no schema for {other}"),
    }
}

/// A tool call's arguments (any tool's: [`Kind::fields`] says which one takes which).
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)]
pub struct Args {
    pub context: Option<String>,
    pub kubeconfig: Option<String>,
    pub namespace: Option<String>,
    pub all_namespaces: Option<bool>,
    pub snapshot: Option<String>,
    pub files: Option<Vec<String>>,
    pub recursive: Option<bool>,
    pub gc_version: Option<String>,
    pub kinds: Option<Vec<String>>,
    pub selector: Option<String>,
    pub object: Option<String>,
    pub objects: Option<Vec<String>>,
    pub uids: Option<Vec<String>>,
    pub direction: Option<String>,
    pub depth: Option<u32>,
    pub cascade: Option<String>,
    pub audit_logs: Option<Vec<String>>,
    pub actor: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub after: Option<String>,
    pub manifests: Option<Vec<String>>,
    pub target: Option<String>,
    pub restorer: Option<String>,
    pub plan_id: Option<String>,
    pub continuation: Option<String>,
    /// Set by the server, never by a call: the snapshot comes on the command's stdin.
    #[serde(skip)]
    pub stdin_snapshot: bool,
}

impl Args {
    /// Reads a call's arguments for `kind`: unknown fields, fields of other tools, missing
    /// required ones and values out of their enums are refused with one line.
    pub fn parse(kind: Kind, raw: Option<&Map<String, Value>>) -> Result<Args, String> {
        let raw = raw.cloned().unwrap_or_default();
        let (fields, required) = kind.fields();
        for k in raw.keys() {
            if k != "continuation" && !fields.contains(&k.as_str()) {
                return Err(format!(
                    "{} is not an argument of {} (it takes: {})",
                    shown(k),
                    kind.doc().name,
                    fields.join(", ")
                ));
            }
        }
        if raw.contains_key("continuation") && raw.len() > 1 {
            return Err("`continuation` fetches the next page and takes no other argument".into());
        }
        if !raw.contains_key("continuation")
            && let Some(r) = required.iter().find(|r| !raw.contains_key(**r))
        {
            return Err(format!("{} needs `{r}`", kind.doc().name));
        }
        let args: Args = serde_json::from_value(Value::Object(raw))
            .map_err(|e| format!("bad arguments: {e}"))?;
        for (name, value, allowed) in [
            ("direction", &args.direction, &["up", "down", "both"][..]),
            (
                "cascade",
                &args.cascade,
                &["background", "foreground", "orphan", "default"][..],
            ),
            (
                "actor",
                &args.actor,
                &["all", "gc", "namespace", "user"][..],
            ),
            ("restorer", &args.restorer, &["apply", "velero"][..]),
        ] {
            if let Some(v) = value
                && !allowed.contains(&v.as_str())
            {
                return Err(format!(
                    "`{name}` is {}; expected one of {}",
                    shown(v),
                    allowed.join(", ")
                ));
            }
        }
        Ok(args)
    }

    /// True when the call reads the cluster (no snapshot or files given).
    pub fn live(&self, kind: Kind) -> bool {
        if self.stdin_snapshot {
            return false;
        }
        match kind {
            Kind::CheckApply => self.target.as_deref().is_none(),
            Kind::History => self.after.as_deref() == Some("cluster"),
            _ => self.snapshot.is_none() && self.files.is_none(),
        }
    }
}

impl Args {
    /// True when the call names a file to read (its errors may quote what is in it).
    pub fn reads_files(&self) -> bool {
        self.snapshot.is_some()
            || self.files.is_some()
            || self.audit_logs.is_some()
            || self.manifests.is_some()
            || self.kubeconfig.is_some()
            || self.after.as_deref().is_some_and(|a| a != "cluster")
            || self.target.as_deref().is_some_and(|t| t != "empty")
    }
}

/// A value put on a command line: one that could be read as a flag, or holds control
/// characters, is refused (values also go as `--flag=value`, never as the next word).
fn value(name: &str, v: &str) -> Result<String, String> {
    if v.is_empty() {
        return Err(format!("`{name}` is empty"));
    }
    if v.starts_with('-') {
        return Err(format!("`{name}` {} starts with '-'", shown(v)));
    }
    if v.chars().any(char::is_control) || v.len() > 4096 {
        return Err(format!("`{name}` {} is not a usable value", shown(v)));
    }
    Ok(v.to_owned())
}

/// `--flag=value` for each value given.
fn flag(out: &mut Vec<OsString>, flag: &str, name: &str, v: Option<&str>) -> Result<(), String> {
    if let Some(v) = v {
        out.push(format!("--{flag}={}", value(name, v)?).into());
    }
    Ok(())
}

fn path_flag(out: &mut Vec<OsString>, flag: &str, root: &Root, arg: &str) -> Result<(), String> {
    let p = root.resolve(arg)?;
    let mut a = OsString::from(format!("--{flag}="));
    a.push(p.as_os_str());
    out.push(a);
    Ok(())
}

/// What the server passes to every command.
#[derive(Debug, Clone, Default)]
pub struct Base<'a> {
    /// The server's connection flags (for calls that read the cluster).
    pub connection: &'a [OsString],
    /// The server's `-n`.
    pub namespace: Option<&'a str>,
    /// The server's `-A`.
    pub all_namespaces: bool,
    /// The server's `--gc-version`, as typed.
    pub gc_version: Option<String>,
}

/// The command line (after the program) a call of `kind` runs.
pub fn argv(kind: Kind, a: &Args, root: &Root, base: &Base<'_>) -> Result<Vec<OsString>, String> {
    let mut out: Vec<OsString> = match kind {
        Kind::Audit => vec!["audit".into(), "--fail-on=never".into()],
        Kind::Why => vec!["why".into()],
        Kind::DeletePreview => {
            let mut v: Vec<OsString> = vec!["collect".into()];
            flag(&mut v, "delete", "object", a.object.as_deref())?;
            flag(&mut v, "cascade", "cascade", a.cascade.as_deref())?;
            v
        }
        Kind::Plan => vec!["collect".into()],
        Kind::History => vec!["history".into()],
        Kind::Graph => vec!["graph".into()],
        Kind::CheckRestart => vec!["check".into(), "restart".into(), "--fail-on=never".into()],
        Kind::CheckApply => vec!["check".into(), "apply".into(), "--fail-on=never".into()],
        Kind::ApplyPlan => return Err("apply_plan runs no command".into()),
    };
    out.extend(["-o".into(), "json".into()]);
    inputs(kind, a, root, &mut out)?;
    if a.live(kind) {
        out.extend(base.connection.iter().cloned());
        flag(&mut out, "context", "context", a.context.as_deref())?;
        if let Some(k) = &a.kubeconfig {
            path_flag(&mut out, "kubeconfig", root, k)?;
        }
    } else if a.context.is_some() || a.kubeconfig.is_some() {
        return Err(
            "`context` and `kubeconfig` choose a cluster, and this call reads files".into(),
        );
    }
    selection(kind, a, base, &mut out)?;
    tool_flags(kind, a, root, &mut out)?;
    // Positional arguments last, after `--`: nothing in them is read as a flag.
    let positional: Vec<&String> = match kind {
        Kind::Why => a.object.iter().collect(),
        Kind::Graph => a.objects.iter().flatten().collect(),
        _ => Vec::new(),
    };
    if !positional.is_empty() {
        out.push("--".into());
        for p in positional {
            out.push(value("object", p)?.into());
        }
    }
    Ok(out)
}

/// `--snapshot`, `-f`, `-R`, `--audit-log`.
fn inputs(kind: Kind, a: &Args, root: &Root, out: &mut Vec<OsString>) -> Result<(), String> {
    if a.snapshot.is_some() && a.files.is_some() {
        return Err("give `snapshot` or `files`, not both".into());
    }
    if a.stdin_snapshot {
        out.push("--snapshot=-".into());
    } else if let Some(s) = &a.snapshot {
        path_flag(out, "snapshot", root, s)?;
    }
    let files = if kind == Kind::CheckApply {
        &a.manifests
    } else {
        &a.files
    };
    for f in files.iter().flatten() {
        path_flag(out, "filename", root, f)?;
    }
    if files.as_ref().is_some_and(Vec::is_empty) {
        return Err("an empty list of files".into());
    }
    if a.recursive == Some(true) {
        out.push("-R".into());
    }
    for l in a.audit_logs.iter().flatten() {
        path_flag(out, "audit-log", root, l)?;
    }
    Ok(())
}

/// `-n`, `-A`, `--kind`, `-l`, `--gc-version`.
fn selection(kind: Kind, a: &Args, base: &Base<'_>, out: &mut Vec<OsString>) -> Result<(), String> {
    match (a.namespace.as_deref(), a.all_namespaces) {
        (Some(_), Some(true)) => {
            return Err("give `namespace` or `all_namespaces`, not both".into());
        }
        (Some(ns), _) => flag(out, "namespace", "namespace", Some(ns))?,
        (None, Some(true)) => out.push("--all-namespaces=true".into()),
        (None, Some(false)) => flag(out, "namespace", "namespace", base.namespace)?,
        (None, None) if base.all_namespaces => out.push("--all-namespaces=true".into()),
        (None, None) => flag(out, "namespace", "namespace", base.namespace)?,
    }
    for k in a.kinds.iter().flatten() {
        flag(out, "kind", "kinds", Some(k))?;
    }
    flag(out, "selector", "selector", a.selector.as_deref())?;
    if kind != Kind::History {
        let v = a.gc_version.as_deref().or(base.gc_version.as_deref());
        flag(out, "gc-version", "gc_version", v)?;
    }
    Ok(())
}

/// Each tool's own flags.
fn tool_flags(kind: Kind, a: &Args, root: &Root, out: &mut Vec<OsString>) -> Result<(), String> {
    match kind {
        Kind::History => {
            flag(out, "actor", "actor", a.actor.as_deref())?;
            flag(out, "since", "since", a.since.as_deref())?;
            flag(out, "until", "until", a.until.as_deref())?;
            match a.after.as_deref() {
                Some("cluster") => out.push("--after=cluster".into()),
                Some(p) => path_flag(out, "after", root, p)?,
                None => {}
            }
        }
        Kind::Graph => {
            for u in a.uids.iter().flatten() {
                flag(out, "uid", "uids", Some(u))?;
            }
            flag(out, "direction", "direction", a.direction.as_deref())?;
            if let Some(d) = a.depth {
                out.push(format!("--depth={d}").into());
            }
        }
        Kind::CheckApply => {
            match a.target.as_deref() {
                Some("empty") => out.push("--target=empty".into()),
                Some(p) => path_flag(out, "target", root, p)?,
                None => {}
            }
            flag(out, "restorer", "restorer", a.restorer.as_deref())?;
        }
        _ => {}
    }
    Ok(())
}
