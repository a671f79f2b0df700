//! `kubectl gc check`: restart, upgrade and health gates.

use super::findings::{self, Analysed, Want};
use super::fleet;
use super::select::Selection;
use super::{flags, gate, output, progress};
use crate::catalog::KubeVersion;
use crate::cli::{CheckArgs, CheckWhat, GateArgs, GlobalArgs};
use crate::diagnose::upgrade::{self, CrdVersions, crd_versions};
use crate::diagnose::{Finding, health, restart};
use crate::error::{Error, Result};
use crate::render::audit as view;
use crate::render::sink::Sink;
use std::collections::BTreeMap;

pub async fn run(g: &GlobalArgs, args: &CheckArgs) -> Result<u8> {
    let up = args.upgrade();
    if args.what() == Some(CheckWhat::Apply) {
        if up.to.is_some() || !up.crd.is_empty() {
            let f = if up.to.is_some() { "--to" } else { "--crd" };
            return Err(Error::usage(
                format!("{f} is for the upgrade check; check apply does not use it"),
                format!("kubectl gc check upgrade {f} …, or drop {f}"),
            ));
        }
        flags::check_report_output(args.output, &args.list, false)?;
        output::check_templates(args.output, args.list.sort_by.as_deref())?;
        return super::check_apply::run(g, args).await;
    }
    if args.what() == Some(CheckWhat::Upgrade) && up.to.is_none() {
        return Err(Error::usage(
            "check upgrade needs --to VERSION",
            "e.g. kubectl gc check upgrade --to 1.25",
        ));
    }
    flags::check_check(args.what(), up.to.is_some(), !up.crd.is_empty())?;
    flags::check_report_output(args.output, &args.list, false)?;
    output::check_templates(args.output, args.list.sort_by.as_deref())?;
    let selection = Selection::parse(g)?;
    let crds = read_crds(&up.crd)?;
    if let Some(contexts) = fleet::contexts(g, &args.fleet)? {
        let opts = fleet::Options {
            command: "check",
            report_kind: "CheckReport",
            format: args.output,
            color: g.color,
            list: &args.list,
            fail_on: args.fail_on,
            gate: &args.gate,
            output_file: args.file.output_file.as_deref(),
        };
        let crds = &crds;
        return fleet::run(g, contexts, &opts, |g, gate, want| async move {
            let loaded = fleet::load(&g).await?;
            analyse(&g, args, Selection::parse(&g)?, &gate, crds, &loaded, &want)
        })
        .await;
    }
    // A bad --output-file fails before the cluster is read.
    let sink = Sink::open(args.file.output_file.as_deref())?;
    let loaded = super::load_input(g, true).await?;
    let want = Want::new(args.output, g.color, &args.list, sink.is_file());
    let a = analyse(g, args, selection, &args.gate, &crds, &loaded, &want)?;
    findings::emit_single(
        sink,
        "check",
        args.output,
        g.color,
        &args.list,
        args.fail_on,
        &args.gate,
        a,
    )
}

/// True when the run includes the upgrade check.
fn upgrade_checked(args: &CheckArgs) -> bool {
    matches!(args.what(), None | Some(CheckWhat::Upgrade)) && args.upgrade().to.is_some()
}

/// The release an upgrade starts from, which must be known — `--gc-version`, or the cluster's
/// version read live or recorded in the snapshot — and older than `--to`: compared with a
/// guessed source (the newest, for files) an "upgrade" can be a downgrade that reports nothing.
fn upgrade_source(g: &GlobalArgs, args: &CheckArgs, loaded: &super::Loaded) -> Result<KubeVersion> {
    let Some(to) = args.upgrade().to else {
        return Ok(loaded.gc_version(g));
    };
    let Some(from) = loaded.known_gc_version(g) else {
        return Err(Error::usage(
            format!(
                "check upgrade --to {to}: the input does not say which release the cluster runs now (file input records no server version)"
            ),
            "add --gc-version with the cluster's current kube-controller-manager release, e.g. --gc-version 1.24.7",
        ));
    };
    if to <= from {
        return Err(Error::usage(
            format!(
                "check upgrade --to {to}: not newer than the release the cluster runs ({from})"
            ),
            "--to names the release to upgrade to; give --gc-version if the input's release is not the one you start from",
        ));
    }
    Ok(from)
}

/// Checks one loaded input.
fn analyse(
    g: &GlobalArgs,
    args: &CheckArgs,
    selection: Selection,
    gate_args: &GateArgs,
    crds: &[CrdVersions],
    loaded: &super::Loaded,
    want: &Want,
) -> Result<Analysed> {
    let snap = &loaded.snapshot;
    let selection = selection.resolve(snap, loaded.namespace.as_deref(), g.given("namespace"))?;
    let current = if upgrade_checked(args) {
        upgrade_source(g, args, loaded)?
    } else {
        loaded.gc_version(g)
    };
    let gc = progress::step("building the GC's graph", || {
        crate::run::garbage_collector(snap, current)
    });
    let to = args.upgrade().to;
    let (restart, health, upgrade) = match args.what() {
        None => (true, true, to.is_some()),
        Some(CheckWhat::Restart) => (true, false, false),
        Some(CheckWhat::Health) => (false, true, false),
        Some(CheckWhat::Upgrade) => (false, false, true),
        Some(CheckWhat::Apply) => (false, false, false),
    };
    let mut findings: Vec<Finding> = Vec::new();
    // Verdicts the input cannot tell: with file input, the summary then says how to assume
    // the kinds it holds complete.
    let mut unknown = 0;
    progress::step("checking", || {
        if restart {
            unknown = unknown.max(restart::unknown_references(&gc));
            findings.extend(restart::timed_findings(&gc));
        }
        if health {
            let audit = crate::diagnose::audit(&gc);
            unknown = unknown.max(audit.classifications.get("unknown").copied().unwrap_or(0));
            findings.extend(health::findings(&gc, &audit));
        }
        if upgrade && let Some(to) = to {
            findings.extend(upgrade::findings(
                snap,
                current,
                to,
                crds,
                &crate::run::THREADS,
            ));
        }
    });
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.code.cmp(&b.code))
            .then(a.object.cmp(&b.object))
    });
    let in_scope: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.object.is_none_or(|o| selection.includes(snap, o)))
        .collect();
    let (in_scope, suppressed) = gate::suppress(snap, gate_args, in_scope)?;
    let mut report =
        view::report_of_kind(&gc, "CheckReport", &BTreeMap::new(), &in_scope, suppressed);
    report.summary.unknown_verdicts = unknown;
    // No plan marked: restart and health judge other moments than the running GC's steady state.
    findings::finish(&gc, report, in_scope, None, args.fail_on, gate_args, want)
}
/// Reads `--crd` manifests (YAML, possibly multi-document, or JSON).
fn read_crds(paths: &[std::path::PathBuf]) -> Result<Vec<CrdVersions>> {
    let mut docs = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(p)
            .map_err(|e| Error::input(p, format!("cannot read CRD manifest: {e}"), None))?;
        for (i, doc) in text.split("\n---").enumerate() {
            if doc.trim().is_empty() {
                continue;
            }
            let v: serde_json::Value = serde_saphyr::from_str(doc).map_err(|e| {
                Error::input(p, format!("document {}: not YAML/JSON: {e}", i + 1), None)
            })?;
            match v {
                serde_json::Value::Object(ref o)
                    if o.get("kind").and_then(|k| k.as_str()) == Some("List") =>
                {
                    docs.extend(
                        o.get("items")
                            .and_then(|i| i.as_array())
                            .cloned()
                            .unwrap_or_default(),
                    )
                }
                other => docs.push(other),
            }
        }
    }
    let crds = crd_versions(&docs);
    if !paths.is_empty() && crds.is_empty() {
        return Err(Error::input(
            &paths[0],
            "no CustomResourceDefinition found",
            Some("pass CRD manifests, e.g. kubectl get crd NAME -o yaml".into()),
        ));
    }
    Ok(crds)
}
