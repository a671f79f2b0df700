//! `kubectl gc relink -f BACKUP`: read the backup (`-f`) and the target (the live cluster, or a
//! snapshot with `--target`), plan the references to put back (`diagnose::relink`), print the
//! plan; with `--apply`, confirm, then for each object re-read it and its new owners and send
//! the guarded JSON patch, recording every patch.

use crate::apply::{ClusterOps, LiveObject, ObjectKey, PatchType, kube::KubeOps};
use crate::cli::{GlobalArgs, RelinkArgs, RelinkFormat};
use crate::diagnose::relink::{Link, Relink, json_patch, plan};
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
    let p = plan(&backup, target, args.include_adoptable);
    let mut out = super::stdout();
    match args.output {
        RelinkFormat::Table => table(&mut out, &p, Styles::for_stdout(g.color))?,
        RelinkFormat::Json | RelinkFormat::Yaml => {
            let doc = serde_json::json!({
                "apiVersion": crate::build_info::REPORT_API_VERSION,
                "kind": "RelinkPlan",
                "dryRun": !args.apply,
                "links": p.links,
                "skipped": p.skipped,
            });
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

fn table(w: &mut dyn Write, p: &Relink, styles: Styles) -> std::io::Result<()> {
    if p.links.is_empty() {
        writeln!(w, "Nothing to relink.")?;
    } else {
        let mut t = render::table(styles);
        t.set_header(["NAMESPACE", "OBJECT", "OWNER", "OLD UID", "NEW UID"]);
        render::pad_columns(&mut t);
        for l in &p.links {
            for r in &l.add {
                t.add_row([
                    sanitized(if l.namespace.is_empty() {
                        "-"
                    } else {
                        &l.namespace
                    }),
                    sanitized(&format!("{}/{}", l.kind, l.name)),
                    sanitized(&format!("{}/{}", r.kind, r.name)),
                    sanitized(&r.old_uid),
                    sanitized(&r.uid),
                ]);
            }
        }
        render::write_table(w, &t)?;
    }
    if !p.skipped.is_empty() {
        writeln!(w)?;
        let mut t = render::table(styles);
        t.set_header(["SKIPPED", "OWNER", "WHY"]);
        render::pad_columns(&mut t);
        for s in &p.skipped {
            t.add_row([
                sanitized(&s.object),
                sanitized(&s.owner),
                sanitized(&s.reason),
            ]);
        }
        render::write_table(w, &t)?;
    }
    writeln!(
        w,
        "\n{} reference(s) to set on {} object(s) · {} skipped",
        p.links.iter().map(|l| l.add.len()).sum::<usize>(),
        p.links.len(),
        p.skipped.len()
    )
}

/// A record file, created new (never overwritten) with mode 0600.
fn record_file(args: &RelinkArgs) -> Result<(std::fs::File, std::path::PathBuf)> {
    let path = args.record.clone().unwrap_or_else(|| {
        std::path::PathBuf::from(format!(
            "kubectl-gc-relink-{}.json",
            crate::snapshot::now_rfc3339().replace(':', "")
        ))
    });
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    let f = o.open(&path).map_err(|e| Error::ApplyStopped {
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

/// Why a link is not safe to write any more, re-read from the cluster; `None`: safe.
async fn recheck(
    ops: &KubeOps,
    target: &Snapshot,
    l: &Link,
) -> std::result::Result<LiveObject, String> {
    let key = ObjectKey::of(target, l.target);
    let live = match ops.get(&key).await {
        Ok(Some(o)) => o,
        Ok(None) => return Err("the object is gone".into()),
        Err(e) => return Err(format!("re-reading the object failed: {}", e.message)),
    };
    if live.meta.uid != l.uid {
        return Err("the object was recreated (another UID)".into());
    }
    if live.meta.deletion_timestamp.is_some() {
        return Err("the object is being deleted".into());
    }
    for r in &l.add {
        if live
            .meta
            .owner_references
            .iter()
            .any(|x| x.kind.eq_ignore_ascii_case(&r.kind) && x.name == r.name)
        {
            return Err(format!("it references {}/{} already", r.kind, r.name));
        }
        let okey = ObjectKey::of(target, r.owner);
        match ops.get_owner(&okey).await {
            Ok(Some(o)) if o.meta.uid == r.uid && o.meta.deletion_timestamp.is_none() => {}
            Ok(Some(o)) if o.meta.uid != r.uid => {
                return Err(format!("{}/{} was recreated (another UID)", r.kind, r.name));
            }
            Ok(Some(_)) => return Err(format!("{}/{} is being deleted", r.kind, r.name)),
            Ok(None) => return Err(format!("{}/{} is gone", r.kind, r.name)),
            Err(e) => {
                return Err(format!(
                    "re-reading {}/{} failed: {}",
                    r.kind, r.name, e.message
                ));
            }
        }
    }
    Ok(live)
}

async fn apply(
    args: &RelinkArgs,
    conn: &crate::source::live::Connection,
    target: &Snapshot,
    p: &Relink,
) -> Result<u8> {
    let (mut record, path) = record_file(args)?;
    let ops = KubeOps::new(conn);
    let (mut done, mut failed) = (0usize, 0usize);
    for l in &p.links {
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
        let mut entry = serde_json::json!({
            "kind": "RelinkEntry", "object": {"group": l.group, "kind": l.kind,
                "namespace": l.namespace, "name": l.name, "uid": l.uid},
            "add": l.add, "time": crate::snapshot::now_rfc3339(),
        });
        match recheck(&ops, target, l).await {
            Err(why) => {
                failed += 1;
                entry["outcome"] = "skipped".into();
                entry["reason"] = why.clone().into();
                eprintln!("skipped {}: {}", sanitized(&shown), sanitized(&why));
            }
            Ok(live) => {
                let mut link = l.clone();
                link.resource_version = live.meta.resource_version.clone();
                let body = json_patch(&link, !live.meta.owner_references.is_empty());
                entry["patch"] = body.clone();
                match ops
                    .patch(
                        &ObjectKey::of(target, l.target),
                        PatchType::Json,
                        body.to_string().as_bytes(),
                    )
                    .await
                {
                    Ok(code) => {
                        done += 1;
                        entry["outcome"] = "patched".into();
                        entry["code"] = code.into();
                        eprintln!("relinked {}", sanitized(&shown));
                    }
                    Err(e) => {
                        failed += 1;
                        entry["outcome"] = "failed".into();
                        entry["code"] = e.code.into();
                        entry["reason"] = e.message.clone().into();
                        eprintln!("failed {}: {}", sanitized(&shown), sanitized(&e.message));
                    }
                }
            }
        }
        serde_json::to_writer(&mut record, &entry).map_err(std::io::Error::other)?;
        record.write_all(b"\n")?;
    }
    eprintln!(
        "relink: {done} object(s) patched, {failed} not; record: {}",
        sanitized(&path.display().to_string())
    );
    Ok(if failed == 0 {
        exit::OK
    } else {
        exit::APPLY_STOPPED
    })
}
