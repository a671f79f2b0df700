//! `kubectl gc check apply -f PATH`: read what is to be created (`-f`), the target (the live
//! cluster, `--snapshot`, or `--target empty`), build the cluster right after the apply
//! (`diagnose::apply`) and audit it: the findings on the created objects are what the GC will do
//! to them. The report has `check`'s formats, exit codes and `--fail-on`.

use super::findings::{self, Want};
use super::{gate, progress};
use crate::cli::{ApplyRestorer, CheckArgs, GlobalArgs};
use crate::diagnose::apply::{
    Applied, Restorer, Target, apply, block_owner_deletion_findings, duplicate_findings,
    input_findings, is_placeholder_uid, manifest_remedies, name_absent_owners,
};
use crate::diagnose::{Code, Finding};
use crate::error::{Error, Result};
use crate::gc::GarbageCollector;
use crate::render::audit::{self as view, SourceLocation};
use crate::render::sink::Sink;
use crate::snapshot::Snapshot;
use crate::source::files::Origins;
use std::collections::BTreeMap;

pub async fn run(g: &GlobalArgs, args: &CheckArgs) -> Result<u8> {
    if g.filename.is_empty() {
        return Err(Error::usage(
            "check apply needs -f PATH: the manifests, export or backup to be applied",
            "e.g. kubectl gc check apply -f manifests/ -R --target empty",
        ));
    }
    let sink = Sink::open(args.file.output_file.as_deref())?;
    let (input, origins) = super::input::read_manifests(g)?;
    let flags = args.apply();
    let target = match flags.target.as_deref() {
        Some("empty") => None,
        other => {
            // The target: a snapshot file, or the live cluster (every namespace: owners may
            // be anywhere).
            let mut tg = g.clone();
            tg.filename.clear();
            tg.snapshot = other.map(std::path::PathBuf::from);
            Some(super::load_input(&tg, false).await?)
        }
    };
    let restorer = match flags.restorer {
        ApplyRestorer::Apply => Restorer::Apply,
        ApplyRestorer::Velero => Restorer::Velero,
    };
    // The release: the user's, else the target server's, else (files, a new cluster) the
    // input's or the newest. A new cluster serves that release's kinds, so it is needed first.
    let version = g
        .gc_version
        .or_else(|| target.as_ref().and_then(|t| t.known_gc_version(g)))
        .unwrap_or_else(|| {
            GarbageCollector::default_gc_version(target.as_ref().map_or(&input, |t| &t.snapshot))
        });
    let to = match &target {
        Some(t) => Target::Cluster(&t.snapshot),
        None => Target::Empty(version),
    };
    let applied = progress::step("creating the input in the target", || {
        apply(to, &input, restorer)
    });
    for (object, why) in &applied.not_restored {
        eprintln!(
            "note: {} is not restored: {}",
            crate::render::text::sanitize(object),
            crate::render::text::sanitize(why)
        );
    }
    let snap = &applied.snapshot;
    let gc = progress::step("building the GC's graph", || {
        crate::run::garbage_collector(snap, version)
    });
    let crate::diagnose::Audit {
        findings: mut all,
        plan,
        ..
    } = progress::step("judging the created objects", || {
        // The apply writes them: the running GC acts on what they break at once.
        let written: Vec<_> = snap
            .store
            .ids()
            .filter(|&o| applied.from_input(o))
            .collect();
        crate::diagnose::audit::audit_written(&gc, &written)
    });
    all.retain(|f| f.object.is_some_and(|o| applied.from_input(o)));
    name_absent_owners(&mut all, &applied);
    let bod = block_owner_deletion_findings(&all, snap);
    all.extend(bod);
    all.extend(input_findings(&applied, restorer));
    all.extend(duplicate_findings(&applied, &origins));
    manifest_remedies(&mut all, &applied, &origins);
    // GC027's grant is no edit of the manifest but of the writer's RBAC: it stays a command
    // beside the manifest edit.
    let mut perm = permission_findings(g, target.as_ref(), &applied, &gc).await;
    let grants: Vec<Vec<_>> = perm
        .iter()
        .map(|f| {
            f.remedies
                .iter()
                .filter(|r| !r.command.is_empty())
                .cloned()
                .collect()
        })
        .collect();
    manifest_remedies(&mut perm, &applied, &origins);
    for (f, grant) in perm.iter_mut().zip(grants) {
        f.remedies.extend(grant);
    }
    all.extend(perm);
    all.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(a.code.cmp(&b.code))
            .then(a.object.cmp(&b.object))
    });
    let in_scope: Vec<&Finding> = all.iter().collect();
    let (in_scope, suppressed) = gate::suppress(snap, &args.gate, in_scope)?;
    let mut report =
        view::report_of_kind(&gc, "CheckReport", &BTreeMap::new(), &in_scope, suppressed);
    for (json, f) in report.findings.iter_mut().zip(&in_scope) {
        json.source = source_of(&applied, &origins, f);
        // An object the apply has yet to create has no UID yet: the placeholder that keeps it
        // apart inside the model is no UID to show.
        for o in json.object.iter_mut().chain(json.related.iter_mut()) {
            if is_placeholder_uid(&o.uid) {
                o.uid.clear();
            }
        }
    }
    let want = Want::new(args.output, g.color, &args.list, sink.is_file());
    let a = findings::finish(
        &gc,
        report,
        in_scope,
        Some(&plan),
        args.fail_on,
        &args.gate,
        &want,
    )?;
    let code = findings::emit_single(
        sink,
        "check apply",
        args.output,
        g.color,
        &args.list,
        args.fail_on,
        &args.gate,
        a,
    );
    // The process ends with this command: a restored backup has a finding or three per object,
    // and freeing them, their strings and the two clusters one allocation at a time showed in
    // the whole command's profile (BENCHMARKS.md, "Figures behind the code").
    super::exiting(gc);
    super::exiting(all);
    super::exiting(applied);
    super::exiting(plan);
    super::exiting(input);
    super::exiting(origins);
    super::exiting(target);
    code
}

/// GC027: the writes OwnerReferencesPermissionEnforcement refuses for the identity that will
/// apply, asked of the live target's API server. A target that is a file or a new cluster has
/// no authorizer to ask: the writes it would judge are counted in a note, never passed over
/// silently.
async fn permission_findings(
    g: &GlobalArgs,
    target: Option<&super::input::Loaded>,
    applied: &Applied,
    gc: &GarbageCollector<'_>,
) -> Vec<Finding> {
    use crate::diagnose::permission::{self as p, apply_checks};
    let empty = Snapshot::default();
    let target_snap = target.map_or(&empty, |t| &t.snapshot);
    let writes = apply_checks(applied, target_snap, &gc.rest_mapper);
    let Some(conn) = target.and_then(|t| t.connection.as_ref()) else {
        if !writes.is_empty() {
            eprintln!(
                "note: {} write(s) of the input need permissions {} checks where it is enabled; \
                 without a live target they are not checked",
                writes.len(),
                p::PLUGIN
            );
        }
        return Vec::new();
    };
    let answers = super::permission::ask(conn, writes.iter().flat_map(|(_, c)| c)).await;
    let (writer, user) = super::permission::writer(g, conn);
    let snap = &applied.snapshot;
    writes
        .iter()
        .filter_map(|(id, checks)| {
            let new = p::refs_of(snap, *id);
            let v = super::permission::verdict(checks, &answers, &new, &writer);
            p::finding(snap, *id, &v, &writer, user.as_deref())
        })
        .collect()
}

/// Where a finding's object is written in the input: the manifest's file, and the line of the
/// reference involved (GC024, about the references as a whole: the first), else of the object.
fn source_of(applied: &Applied, origins: &Origins, f: &Finding) -> Option<SourceLocation> {
    let id = f.object?;
    let origin = origins.of(applied.input_of.get(id.index()).copied().flatten()?)?;
    let store = &applied.snapshot.store;
    let line = match (&f.owner_ref, f.code) {
        (Some(r), _) => match store.owner_refs(id).iter().position(|x| x == r) {
            Some(i) => origin.line_of_ref(i),
            None => origin.line,
        },
        (None, Code::OwnerReferenceInManifest) => origin.line_of_ref(0),
        (None, _) => origin.line,
    };
    Some(SourceLocation {
        file: origin.file.to_string(),
        line,
    })
}
