//! `kubectl gc relink -f BACKUP`: read the backup (`-f`) and the target (the live cluster, or a
//! snapshot with `--target`), plan the references to put back (`diagnose::relink`), print the
//! plan; with `--apply`, confirm, then for each object re-read it and its new owners and send
//! the guarded JSON patch, recording every patch.

use crate::apply::kube::KubeOps;
use crate::apply::relink::Outcome;
use crate::cli::{GlobalArgs, RelinkArgs, RelinkFormat};
use crate::diagnose::relink::{Relink, plan};
use crate::error::{Error, Result, exit};
use crate::render::{self, Styles, text::sanitized};
use crate::snapshot::Snapshot;
use std::io::Write;

pub async fn run(g: &GlobalArgs, args: &RelinkArgs) -> Result<u8> {
    if g.filename.is_empty() {
        return Err(Error::usage(
            "relink needs -f BACKUP: the backup, export or manifests whose references to restore",
            "e.g. kubectl gc relink -f backup.tar.gz",
        ));
    }
    if args.apply && args.target.is_some() {
        return Err(Error::usage(
            "--apply patches the live cluster, and --target names a snapshot",
            "drop --target to relink the live cluster",
        ));
    }
    let (backup, _) = super::input::read_manifests(g)?;
    let mut tg = g.clone();
    tg.filename.clear();
    tg.snapshot = args.target.clone();
    let loaded = super::load_input(&tg, false).await?;
    let target = &loaded.snapshot;
    let mut p = plan(&backup, target, args.include_adoptable);
    if let Some(conn) = &loaded.connection {
        predict_permission(g, conn, target, &mut p).await;
    }
    let mut out = super::stdout();
    match args.output {
        RelinkFormat::Table => {
            render::relink::table(&mut out, &p, Styles::for_stdout(g.color), args.apply)?
        }
        RelinkFormat::Json | RelinkFormat::Yaml => {
            let doc = render::relink::document(&p, !args.apply);
            if args.output == RelinkFormat::Json {
                render::write_json(&mut out, &doc)?;
            } else {
                render::write_yaml(&mut out, &doc)?;
            }
        }
    }
    out.flush()?;
    if !args.apply || p.links.is_empty() {
        return Ok(exit::OK);
    }
    let conn = loaded
        .connection
        .as_ref()
        .ok_or_else(|| Error::ApplyStopped {
            message: "--apply needs a live cluster".into(),
            hint: None,
        })?;
    super::confirm(
        args.yes,
        &format!(
            "Set ownerReferences on {} object(s) of {}?",
            p.links.len(),
            conn.server_url
        ),
        "patched",
    )?;
    apply(args, conn, target, &p).await
}

/// GC027 on each link whose patch OwnerReferencesPermissionEnforcement refuses (or cannot be
/// told about) for the identity that will send it.
async fn predict_permission(
    g: &GlobalArgs,
    conn: &crate::source::live::Connection,
    target: &Snapshot,
    p: &mut Relink,
) {
    use crate::diagnose::permission::Verdict;
    let mapper = crate::gc::rest_mapper::RestMapper::new(target, None);
    let writes = crate::diagnose::relink::permission_checks(p, target, &mapper);
    if writes.is_empty() {
        return;
    }
    let answers = super::permission::ask(conn, writes.iter().flat_map(|(_, c)| c)).await;
    let (writer, _) = super::permission::writer(g, conn);
    for (i, checks) in &writes {
        let new = crate::diagnose::relink::new_refs(&p.links[*i], target);
        let note = match super::permission::verdict(checks, &answers, &new, &writer) {
            Verdict::Admitted => None,
            Verdict::Refused(d) => Some(format!(
                "where the API server enables {}, it refuses this patch for {writer}: {}",
                crate::diagnose::permission::PLUGIN,
                d.iter()
                    .map(|d| d.message.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            Verdict::Unknown(why) => Some(format!(
                "whether {} admits this patch cannot be told: {}",
                crate::diagnose::permission::PLUGIN,
                why.join("; ")
            )),
        };
        p.links[*i].permission = note;
    }
}

/// A record file, created new (never overwritten) with mode 0600.
fn record_file(args: &RelinkArgs) -> Result<(std::fs::File, std::path::PathBuf)> {
    let path = args.record.clone().unwrap_or_else(|| {
        std::path::PathBuf::from(format!(
            "kubectl-gc-relink-{}.json",
            crate::snapshot::now_rfc3339().replace(':', "")
        ))
    });
    let f = crate::apply::record::create_file(&path).map_err(|e| Error::ApplyStopped {
        message: format!(
            "cannot create the record {}: {e}; nothing was patched",
            path.display()
        ),
        hint: Some(
            "--record FILE names another file (an existing one is never overwritten)".into(),
        ),
    })?;
    Ok((f, path))
}

async fn apply(
    args: &RelinkArgs,
    conn: &crate::source::live::Connection,
    target: &Snapshot,
    p: &Relink,
) -> Result<u8> {
    let (mut record, path) = record_file(args)?;
    let ops = KubeOps::new(conn);
    let stop = std::sync::Arc::new(crate::apply::Stop::new());
    let tally = std::sync::Arc::new(super::signals::Tally::default());
    let signals = super::signals::listen(
        stop.clone(),
        tally.clone(),
        "object",
        sanitized(&path.display().to_string()),
    );
    let counts =
        crate::apply::relink::apply(&ops, target, p, &stop, &mut record, &mut |l, outcome| {
            tally.finished(matches!(outcome, Outcome::Patched(_)));
            let shown = format!(
                "{}/{}{}",
                l.kind,
                l.name,
                if l.namespace.is_empty() {
                    String::new()
                } else {
                    format!(" -n {}", l.namespace)
                }
            );
            match outcome {
                Outcome::Patched(_) => eprintln!("relinked {}", sanitized(&shown)),
                Outcome::Skipped(why) => {
                    eprintln!("skipped {}: {}", sanitized(&shown), sanitized(why))
                }
                Outcome::Failed(_, message) => {
                    eprintln!("failed {}: {}", sanitized(&shown), sanitized(message))
                }
            }
        })
        .await?;
    signals.abort();
    let stopped = match &counts.stopped {
        Some((why, left)) => format!(", {left} not attempted ({})", why.message()),
        None => String::new(),
    };
    eprintln!(
        "relink: {} object(s) patched, {} not{stopped}; record: {}",
        counts.patched,
        counts.not,
        sanitized(&path.display().to_string())
    );
    Ok(if counts.not == 0 && counts.stopped.is_none() {
        exit::OK
    } else {
        exit::APPLY_STOPPED
    })
}
