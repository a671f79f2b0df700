//! `kubectl gc relink --apply`: the references a restore stripped, put back on the live
//! cluster through the same guarded path as `collect --apply` — each object and each new owner
//! re-read first, a JSON patch that `test`s the resourceVersion and the list it extends, and
//! one record entry per object, written as it goes.

use super::{ClusterOps, LiveObject, ObjectRef, PatchType, Stop, Stopped};
use crate::diagnose::relink::{Link, Relink, json_patch};
use crate::snapshot::Snapshot;
use std::io::Write;

/// What became of one object's link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Patched (the HTTP status).
    Patched(u16),
    /// Not sent: the re-read shows it is no longer safe (why).
    Skipped(String),
    /// Sent and refused (status, message).
    Failed(u16, String),
}

/// Counts of an apply.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counts {
    /// Objects patched.
    pub patched: usize,
    /// Objects skipped or refused.
    pub not: usize,
    /// Objects never attempted: the apply was stopped before them (why).
    pub stopped: Option<(Stopped, usize)>,
}

/// Why a link is not safe to write any more, re-read from the cluster; `None`: safe.
async fn recheck(
    ops: &impl ClusterOps,
    target: &Snapshot,
    l: &Link,
) -> std::result::Result<LiveObject, String> {
    let key = ObjectRef::of(target, l.target);
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
        let okey = ObjectRef::of(target, r.owner);
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

/// Applies the plan's links one object at a time, writing a `RelinkEntry` line to `record` for
/// each and telling `progress` what became of it; a stop requested (Ctrl-C, SIGTERM) is
/// honoured before the next object. `ops` is the cluster (`KubeOps`; the tests drive it with
/// `apply::fake`).
pub async fn apply(
    ops: &impl ClusterOps,
    target: &Snapshot,
    p: &Relink,
    stop: &Stop,
    record: &mut dyn Write,
    progress: &mut dyn FnMut(&Link, &Outcome),
) -> std::io::Result<Counts> {
    let mut counts = Counts::default();
    for (i, l) in p.links.iter().enumerate() {
        if let Some(why) = stop.requested() {
            counts.stopped = Some((why, p.links.len() - i));
            break;
        }
        let mut entry = serde_json::json!({
            "kind": "RelinkEntry", "object": {"group": l.group, "kind": l.kind,
                "namespace": l.namespace, "name": l.name, "uid": l.uid},
            "add": l.add, "time": crate::snapshot::now_rfc3339(),
        });
        let outcome = match recheck(ops, target, l).await {
            Err(why) => Outcome::Skipped(why),
            Ok(live) => {
                let mut link = l.clone();
                link.resource_version = live.meta.resource_version.clone();
                let body = json_patch(&link, !live.meta.owner_references.is_empty());
                entry["patch"] = body.clone();
                match ops
                    .patch(
                        &ObjectRef::of(target, l.target),
                        PatchType::Json,
                        body.to_string().as_bytes(),
                    )
                    .await
                {
                    Ok(code) => Outcome::Patched(code),
                    Err(e) => Outcome::Failed(e.code, e.message.clone()),
                }
            }
        };
        match &outcome {
            Outcome::Patched(code) => {
                counts.patched += 1;
                entry["outcome"] = "patched".into();
                entry["code"] = (*code).into();
            }
            Outcome::Skipped(why) => {
                counts.not += 1;
                entry["outcome"] = "skipped".into();
                entry["reason"] = why.clone().into();
            }
            Outcome::Failed(code, message) => {
                counts.not += 1;
                entry["outcome"] = "failed".into();
                entry["code"] = (*code).into();
                entry["reason"] = message.clone().into();
            }
        }
        progress(l, &outcome);
        serde_json::to_writer(&mut *record, &entry).map_err(std::io::Error::other)?;
        record.write_all(b"\n")?;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests;
