//! The four verbs, each as the GC sends it (§3.7–3.9) after its own re-verification: DELETE
//! with preconditions, the ownerReference removal and unblock patches (strategic merge, or a
//! JSON merge patch after a 415), and the finalizer removal.

use super::executor::{CONFLICT_BACKOFF, Executor, Fail, Res, Step};
use super::verify::{LiveClass, NoSolidOwner};
use super::{ClusterOps, Entry, LiveRef, MAX_ATTEMPTS, PatchType, SkipCause, patch};
use crate::gc::Policy;
use crate::gc::plan::{Action, Reason};
use crate::model::finalizers;

impl<C: ClusterOps> Executor<'_, '_, C> {
    pub(super) async fn delete(&mut self, act: &Action, entry: &mut Entry) -> Res<Step> {
        let id = act.target;
        let (key, uid) = self.target(id);
        let obj = match self.read_target(id, &key, &uid, entry).await? {
            Ok(o) => o,
            Err(skip) => return Ok(skip),
        };
        let policy = if act.reason == Reason::UserDelete {
            if self.opts.user_policy_explicit {
                act.policy
            } else {
                None
            }
        } else {
            if let Some(skip) = self.terminating_skip(id, &obj.meta) {
                return Ok(skip);
            }
            if obj.meta.owner_references.is_empty() {
                return Ok(Step::Skip(
                    "has no ownerReferences any more".into(),
                    self.cause(id, Some(&obj.meta)),
                ));
            }
            let NoSolidOwner { waiting, why } = match self
                .no_solid_owner(&obj.meta, &key.namespace, entry)
                .await?
            {
                Ok(v) => v,
                Err(skip) => return Ok(skip),
            };
            entry.notes.push(format!("verified: {}", why.join("; ")));
            // Row 9 (waiting owner, has dependents) or row 10 (the object's own finalizers).
            let p = if act.reason == Reason::ForegroundForWaitingOwner && waiting {
                Policy::Foreground
            } else if obj.meta.has_finalizer(finalizers::ORPHAN) {
                Policy::Orphan
            } else if obj.meta.has_finalizer(finalizers::FOREGROUND) {
                Policy::Foreground
            } else {
                Policy::Background
            };
            if Some(p) != act.policy {
                entry.notes.push(format!(
                    "propagationPolicy={} from the live object (planned {})",
                    p.as_str(),
                    act.policy.map_or("none", Policy::as_str)
                ));
            }
            Some(p)
        };
        let with_rv =
            act.reason != Reason::UserDelete && self.a.rules.delete_with_resource_version();
        let rv = with_rv.then(|| obj.meta.resource_version.clone());
        let body = patch::delete(&uid, rv.as_deref(), policy);
        let done = |status: u16| {
            Step::Done(format!(
                "deleted (propagationPolicy={}, HTTP {status})",
                policy.map_or("default", Policy::as_str)
            ))
        };
        let gone = |this: &Self, msg: &str| Step::Skip(msg.into(), this.cause(id, None));
        match self.write(&key, None, body, entry).await {
            Ok(s) => Ok(done(s)),
            Err(e) if e.is_object_not_found() => Ok(gone(self, "gone before the DELETE (404)")),
            Err(e) if e.code == 409 && rv.is_some() => {
                // §3.2 notes (v1.34+): same UID, other resourceVersion, same ownerReferences →
                // retry with the UID precondition only; otherwise re-verify.
                let latest = match self.get(&key, entry).await? {
                    Ok(Some(o)) => o,
                    Ok(None) => return Ok(gone(self, "gone before the DELETE (409, then 404)")),
                    Err(msg) => return Ok(Step::Failed(msg)),
                };
                if latest.meta.uid == uid
                    && latest.meta.resource_version != obj.meta.resource_version
                    && latest.meta.owner_references == obj.meta.owner_references
                {
                    entry.before = Some(latest.meta.clone());
                    let body = patch::delete(&uid, None, policy);
                    match self.write(&key, None, body, entry).await {
                        Ok(s) => Ok(done(s)),
                        Err(e) if e.is_object_not_found() => {
                            Ok(gone(self, "gone before the DELETE (404)"))
                        }
                        Err(e) if e.code == 409 => Ok(Step::Conflict(e.describe())),
                        Err(e) => self.unexpected("DELETE", &key, &e),
                    }
                } else {
                    Ok(Step::Conflict(e.describe()))
                }
            }
            Err(e) if e.code == 409 => Ok(Step::Conflict(e.describe())),
            Err(e) => self.unexpected("DELETE", &key, &e),
        }
    }

    pub(super) async fn remove_refs(&mut self, act: &Action, entry: &mut Entry) -> Res<Step> {
        let a = self.a;
        let store = &a.snap.store;
        let planned = act.patched_owner_uids(store).unwrap_or_default();
        if let Reason::Orphan { owner } = act.reason {
            // attemptToOrphan (§4): only while the owner is terminating with `orphan`.
            let (okey, ouid) = self.target(owner);
            match self.get(&okey, entry).await? {
                Err(msg) => return Ok(Step::Failed(msg)),
                Ok(None) => {
                    return Ok(Step::Skip(
                        format!("owner {} is gone", okey),
                        self.cause(owner, None),
                    ));
                }
                Ok(Some(o)) if o.meta.uid != ouid => {
                    return Ok(Step::Skip(
                        format!("owner {} was recreated (uid {})", okey, o.meta.uid),
                        SkipCause::Changed,
                    ));
                }
                Ok(Some(o))
                    if !(o.meta.terminating() && o.meta.has_finalizer(finalizers::ORPHAN)) =>
                {
                    return Ok(Step::Skip(
                        format!(
                            "owner {} is no longer being deleted with the orphan finalizer",
                            okey
                        ),
                        self.cause(owner, Some(&o.meta)),
                    ));
                }
                Ok(Some(_)) => {}
            }
        }
        let id = act.target;
        let (key, uid) = self.target(id);
        let obj = match self.read_target(id, &key, &uid, entry).await? {
            Ok(o) => o,
            Err(skip) => return Ok(skip),
        };
        let present: Vec<String> = planned
            .iter()
            .filter(|u| obj.meta.owner_references.iter().any(|r| &r.uid == *u))
            .cloned()
            .collect();
        if present.is_empty() {
            return Ok(Step::Skip(
                "the references are already gone".into(),
                self.cause(id, Some(&obj.meta)),
            ));
        }
        if act.reason == Reason::StripDanglingAndWaiting {
            if let Some(skip) = self.terminating_skip(id, &obj.meta) {
                return Ok(skip);
            }
            let classes = self.classify(&obj.meta, &key.namespace, entry).await?;
            let mut solid = false;
            for (r, c) in obj.meta.owner_references.iter().zip(&classes) {
                match c {
                    LiveClass::Unverifiable(why) => {
                        return Ok(Step::Skip(
                            format!("cannot re-check owner {}: {why}", Self::describe_ref(r)),
                            SkipCause::GcWouldNot,
                        ));
                    }
                    LiveClass::Solid if present.contains(&r.uid) => {
                        return Ok(Step::Skip(
                            format!("owner {} exists again", Self::describe_ref(r)),
                            SkipCause::Changed,
                        ));
                    }
                    LiveClass::Solid => solid = true,
                    LiveClass::Waiting | LiveClass::Dangling(_) => {}
                }
            }
            if !solid {
                // The GC's next visit deletes the object instead: the next round re-plans.
                return Ok(Step::Skip(
                    "no solid owner left: the GC would now delete the object instead".into(),
                    self.cause(id, Some(&obj.meta)),
                ));
            }
        }
        if present.len() < planned.len() {
            entry.notes.push(format!(
                "{} of the planned references were already gone",
                planned.len() - present.len()
            ));
        }
        let refs: Vec<&str> = present.iter().map(String::as_str).collect();
        let smp = patch::remove_refs_smp(&uid, &refs, self.a.rules.uid_first_patch_order());
        let done =
            |n: usize, how: &str| Step::Done(format!("removed {n} ownerReference(s) ({how})"));
        let gone =
            |this: &Self| Step::Skip("gone before the PATCH (404)".into(), this.cause(id, None));
        match self
            .write(&key, Some(PatchType::Strategic), smp, entry)
            .await
        {
            Ok(_) => Ok(done(present.len(), "strategic merge patch")),
            Err(e) if e.is_object_not_found() => Ok(gone(self)),
            Err(e) if e.code == 409 => Ok(Step::Conflict(e.describe())),
            Err(e) if e.code == 422 => self.after_invalid(id, &key, &uid, &e, entry).await,
            Err(e) if e.code == 415 => {
                // §3.7: JSON merge patch from a fresh read, guarded by its resourceVersion.
                let fresh = match self.read_target(id, &key, &uid, entry).await? {
                    Ok(o) => o,
                    Err(skip) => return Ok(skip),
                };
                let remaining: Vec<LiveRef> = fresh
                    .meta
                    .owner_references
                    .iter()
                    .filter(|r| !present.contains(&r.uid))
                    .cloned()
                    .collect();
                let removed = fresh.meta.owner_references.len() - remaining.len();
                if removed == 0 {
                    return Ok(Step::Skip(
                        "the references are already gone".into(),
                        self.cause(id, Some(&fresh.meta)),
                    ));
                }
                let jmp = patch::refs_jmp(&fresh.meta.resource_version, &remaining);
                match self.write(&key, Some(PatchType::Merge), jmp, entry).await {
                    Ok(_) => Ok(done(removed, "JSON merge patch after 415")),
                    Err(e) if e.is_object_not_found() => Ok(gone(self)),
                    Err(e) if e.code == 409 => Ok(Step::Conflict(e.describe())),
                    Err(e) => self.unexpected("PATCH", &key, &e),
                }
            }
            Err(e) => self.unexpected("PATCH", &key, &e),
        }
    }

    pub(super) async fn unblock(&mut self, act: &Action, entry: &mut Entry) -> Res<Step> {
        let a = self.a;
        let store = &a.snap.store;
        let planned = act.patched_owner_uids(store).unwrap_or_default();
        let id = act.target;
        let (key, uid) = self.target(id);
        let obj = match self.read_target(id, &key, &uid, entry).await? {
            Ok(o) => o,
            Err(skip) => return Ok(skip),
        };
        if let Some(skip) = self.terminating_skip(id, &obj.meta) {
            return Ok(skip);
        }
        let waiting = match self
            .no_solid_owner(&obj.meta, &key.namespace, entry)
            .await?
        {
            Ok(v) => v.waiting,
            Err(skip) => return Ok(skip),
        };
        if !waiting {
            return Ok(Step::Skip(
                "no owner is in foreground deletion any more".into(),
                self.cause(id, Some(&obj.meta)),
            ));
        }
        let blocking: Vec<LiveRef> = obj
            .meta
            .owner_references
            .iter()
            .filter(|r| r.blocks() && planned.contains(&r.uid))
            .cloned()
            .collect();
        if blocking.is_empty() {
            return Ok(Step::Skip(
                "the references no longer block".into(),
                self.cause(id, Some(&obj.meta)),
            ));
        }
        let smp = patch::unblock_smp(&uid, &blocking);
        let done = |how: &str| {
            Step::Done(format!(
                "set blockOwnerDeletion=false on {} reference(s) ({how})",
                blocking.len()
            ))
        };
        let gone =
            |this: &Self| Step::Skip("gone before the PATCH (404)".into(), this.cause(id, None));
        match self
            .write(&key, Some(PatchType::Strategic), smp, entry)
            .await
        {
            Ok(_) => Ok(done("strategic merge patch")),
            Err(e) if e.is_object_not_found() => Ok(gone(self)),
            Err(e) if e.code == 409 => Ok(Step::Conflict(e.describe())),
            Err(e) if e.code == 422 => self.after_invalid(id, &key, &uid, &e, entry).await,
            Err(e) if e.code == 415 => {
                let fresh = match self.read_target(id, &key, &uid, entry).await? {
                    Ok(o) => o,
                    Err(skip) => return Ok(skip),
                };
                let jmp =
                    patch::unblock_jmp(&fresh.meta.resource_version, &fresh.meta.owner_references);
                match self.write(&key, Some(PatchType::Merge), jmp, entry).await {
                    Ok(_) => Ok(done("JSON merge patch after 415")),
                    Err(e) if e.is_object_not_found() => Ok(gone(self)),
                    Err(e) if e.code == 409 => Ok(Step::Conflict(e.describe())),
                    Err(e) => self.unexpected("PATCH", &key, &e),
                }
            }
            Err(e) => self.unexpected("PATCH", &key, &e),
        }
    }

    pub(super) async fn remove_finalizer(&mut self, act: &Action, entry: &mut Entry) -> Res<Step> {
        let a = self.a;
        let store = &a.snap.store;
        let fin = act
            .finalizer
            .map(|f| store.str(f).to_owned())
            .unwrap_or_default();
        let id = act.target;
        let (key, uid) = self.target(id);
        let mut obj = match self.read_target(id, &key, &uid, entry).await? {
            Ok(o) => o,
            Err(skip) => return Ok(skip),
        };
        if !obj.meta.terminating() {
            return Ok(Step::Skip(
                "not being deleted".into(),
                self.cause(id, Some(&obj.meta)),
            ));
        }
        if !obj.meta.has_finalizer(&fin) {
            return Ok(Step::Skip(
                format!("finalizer {fin} already removed"),
                self.cause(id, Some(&obj.meta)),
            ));
        }
        // The verdict: nothing blocks a foreground deletion; every dependent was orphaned.
        let foreground = matches!(act.reason, Reason::ForegroundDone);
        for d in self.snapshot_dependents(act.target, foreground) {
            let (dkey, duid) = self.target(d);
            let dep = match self.get(&dkey, entry).await? {
                Ok(Some(dep)) => dep,
                Ok(None) => continue,
                Err(msg) => return Ok(Step::Failed(msg)),
            };
            if dep.meta.uid != duid {
                continue;
            }
            let holds = dep
                .meta
                .owner_references
                .iter()
                .any(|r| r.uid == uid && (!foreground || r.blocks()));
            if holds {
                let cause = self.cause(d, Some(&dep.meta));
                return Ok(Step::Skip(
                    if foreground {
                        format!(
                            "dependent {} still blocks the deletion (blockOwnerDeletion=true)",
                            dkey
                        )
                    } else {
                        format!(
                            "dependent {} still references the owner: it was not orphaned",
                            dkey
                        )
                    },
                    cause,
                ));
            }
        }
        // removeFinalizer (§3.8): JSON merge patch with the resourceVersion, retried on 409 with
        // a fresh read (and, unlike the GC, a UID check on every read).
        for attempt in 0..MAX_ATTEMPTS {
            if attempt > 0 {
                tokio::time::sleep(CONFLICT_BACKOFF.delay(attempt - 1)).await;
                obj = match self.read_target(id, &key, &uid, entry).await? {
                    Ok(o) => o,
                    Err(skip) => return Ok(skip),
                };
                if !obj.meta.has_finalizer(&fin) {
                    return Ok(Step::Skip(
                        format!("finalizer {fin} already removed"),
                        self.cause(id, Some(&obj.meta)),
                    ));
                }
            }
            let rest: Vec<String> = obj
                .meta
                .finalizers
                .iter()
                .filter(|f| **f != fin)
                .cloned()
                .collect();
            let body = patch::finalizers_jmp(&obj.meta.resource_version, &rest);
            match self.write(&key, Some(PatchType::Merge), body, entry).await {
                Ok(_) => {
                    return Ok(Step::Done(if rest.is_empty() {
                        format!("removed finalizer {fin}; no finalizer left, the object is gone")
                    } else {
                        format!("removed finalizer {fin}; still held by {}", rest.join(", "))
                    }));
                }
                Err(e) if e.is_object_not_found() => {
                    return Ok(Step::Skip(
                        "gone before the PATCH (404)".into(),
                        self.cause(id, None),
                    ));
                }
                Err(e) if e.code == 409 => {
                    entry
                        .notes
                        .push(format!("attempt {}: {}", attempt + 1, e.describe()));
                }
                Err(e) => return self.unexpected("PATCH", &key, &e),
            }
        }
        Err(Fail(format!(
            "removing finalizer {fin}: 409 Conflict {MAX_ATTEMPTS} times (the GC's updateMaxRetries)"
        )))
    }
}
