//! The executor: one action at a time, with its retries on 409, the requests it sends (each
//! rate-limited and recorded) and the re-read of the target. What it verifies is in
//! `verify.rs`; what each verb does is in `verbs.rs`.

use super::limiter::Limiter;
use super::{
    ApiError, ClusterOps, Entry, LiveObject, MAX_ATTEMPTS, ObjectRef, ObjectUrl, Options, PatchType,
};
use super::{RequestRecord, SkipCause};
use crate::gc::GarbageCollector;
use crate::gc::plan::{Action, Verb};
use crate::gc::state::State;
use crate::model::ObjId;
use crate::util::Backoff;
use std::time::Duration;

/// The outcome of one attempt.
#[derive(Debug)]
pub(super) enum Step {
    Done(String),
    Skip(String, SkipCause),
    /// A 409: re-run the action from the re-read.
    Conflict(String),
    /// This action failed (a request about this object only was refused or could not be
    /// built): recorded, and the apply goes on.
    Failed(String),
}

/// An unexpected error that may hit every later request too: stop.
#[derive(Debug)]
pub(super) struct Fail(pub(super) String);

/// A GET's answer: the object, `None` when it does not exist, or `Err` with the message of an
/// error that concerns this object only (the action fails, the apply goes on).
pub(super) type Got = Result<Option<LiveObject>, String>;

pub(super) type Res<T> = Result<T, Fail>;

/// Performs one action at a time against the cluster, re-reading before it writes.
pub(super) struct Executor<'x, 'b, C> {
    pub(super) ops: &'x C,
    pub(super) a: &'x GarbageCollector<'b>,
    /// The end state the round's plan predicts: a skip whose cause lies on the way there is
    /// [`SkipCause::Superseded`], any other change is [`SkipCause::Changed`].
    pub(super) end: &'x State,
    pub(super) opts: &'x Options,
    pub(super) limiter: &'x mut Limiter,
}

/// The wait before re-running an action after a 409 (client-go's `DefaultBackoff`: 10 ms, ×5).
pub(super) const CONFLICT_BACKOFF: Backoff = Backoff {
    base: Duration::from_millis(10),
    factor: 5,
    max_exponent: 4,
    jitter: 0.0,
};

impl<C: ClusterOps> Executor<'_, '_, C> {
    pub(super) async fn perform(&mut self, act: &Action, entry: &mut Entry) -> Res<Step> {
        let mut attempt = 0;
        loop {
            let step = match act.verb {
                Verb::Delete => self.delete(act, entry).await?,
                Verb::RemoveOwnerReferences => self.remove_refs(act, entry).await?,
                Verb::UnblockOwnerReferences => self.unblock(act, entry).await?,
                Verb::RemoveFinalizer => self.remove_finalizer(act, entry).await?,
            };
            match step {
                Step::Conflict(msg) if attempt + 1 < MAX_ATTEMPTS => {
                    entry
                        .notes
                        .push(format!("attempt {}: {msg}; re-reading", attempt + 1));
                    tokio::time::sleep(CONFLICT_BACKOFF.delay(attempt)).await;
                    attempt += 1;
                }
                other => return Ok(other),
            }
        }
    }

    // -- requests --------------------------------------------------------------------------

    /// GETs `key`. Errors that may hit every request stop the apply (`Err`); an error about
    /// this object only is `Ok(Err(message))`.
    pub(super) async fn get(&mut self, key: &ObjectRef, entry: &mut Entry) -> Res<Got> {
        self.limiter.acquire().await;
        entry.reads += 1;
        let r = self.ops.get(key).await;
        Self::got(&key.path(), r)
    }

    /// GETs an owner the way the GC looks it up ([`ObjectRef::gc_get_path`]).
    pub(super) async fn get_owner(&mut self, key: &ObjectRef, entry: &mut Entry) -> Res<Got> {
        self.limiter.acquire().await;
        entry.reads += 1;
        let r = self.ops.get_owner(key).await;
        Self::got(&key.gc_get_path(), r)
    }

    fn got(path: &str, r: Result<Option<LiveObject>, ApiError>) -> Res<Got> {
        match r {
            Ok(o) => Ok(Ok(o)),
            Err(e) if e.concerns_one_object() => Ok(Err(format!("GET {path}: {}", e.describe()))),
            Err(e) => Err(Fail(format!("GET {path}: {}", e.describe()))),
        }
    }

    /// Re-reads the target; `Err(step)` when it is gone or was recreated (a skip) or cannot be
    /// read (a failure of this action).
    pub(super) async fn read_target(
        &mut self,
        id: ObjId,
        key: &ObjectRef,
        uid: &str,
        entry: &mut Entry,
    ) -> Res<Result<LiveObject, Step>> {
        if let Some(why) = key.not_storable() {
            // Never the case for a listed object; a plan from elsewhere could name one. No
            // write ever goes to such a key (its path could resolve to another object).
            return Ok(Err(Step::Skip(
                format!("{} cannot be an object: {why}", key),
                SkipCause::GcWouldNot,
            )));
        }
        let obj = match self.get(key, entry).await? {
            Ok(Some(o)) => o,
            Ok(None) => {
                return Ok(Err(Step::Skip(
                    format!("gone: {} no longer exists", key),
                    self.cause(id, None),
                )));
            }
            Err(msg) => return Ok(Err(Step::Failed(msg))),
        };
        entry.before = Some(obj.meta.clone());
        if obj.meta.uid != uid {
            return Ok(Err(Step::Skip(
                format!(
                    "recreated: {} now has uid {}, the plan was for uid {uid}",
                    key, obj.meta.uid
                ),
                SkipCause::Changed,
            )));
        }
        Ok(Ok(obj))
    }

    pub(super) async fn write(
        &mut self,
        key: &ObjectRef,
        patch: Option<PatchType>,
        body: Vec<u8>,
        entry: &mut Entry,
    ) -> Result<u16, ApiError> {
        self.limiter.acquire().await;
        let result = match patch {
            None => self.ops.delete(key, &body).await,
            Some(p) => self.ops.patch(key, p, &body).await,
        };
        entry.requests.push(RequestRecord {
            method: if patch.is_some() { "PATCH" } else { "DELETE" },
            path: key.path(),
            content_type: patch.map_or("application/json", PatchType::content_type),
            body: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
            status: match &result {
                Ok(s) => *s,
                Err(e) => e.code,
            },
            error: result.as_ref().err().map(ApiError::describe),
        });
        result
    }

    /// A write's unexpected answer: this action fails when the error concerns this object
    /// only, otherwise the apply stops.
    pub(super) fn unexpected(&self, method: &str, key: &ObjectRef, e: &ApiError) -> Res<Step> {
        let msg = format!("{method} {}: {}", key.path(), e.describe());
        if e.concerns_one_object() {
            Ok(Step::Failed(msg))
        } else {
            Err(Fail(msg))
        }
    }

    /// A 422 may be the SMP's `uid` check against a recreated object: re-read to tell.
    pub(super) async fn after_invalid(
        &mut self,
        id: ObjId,
        key: &ObjectRef,
        uid: &str,
        e: &ApiError,
        entry: &mut Entry,
    ) -> Res<Step> {
        match self.read_target(id, key, uid, entry).await? {
            Err(skip) => Ok(skip),
            Ok(_) => self.unexpected("PATCH", key, e),
        }
    }

    // -- coordinates -----------------------------------------------------------------------

    pub(super) fn target(&self, id: ObjId) -> (ObjectRef, String) {
        let key = ObjectRef::of(self.a.snap, id);
        let uid = self
            .a
            .snap
            .store
            .str(self.a.snap.store.object(id).uid)
            .to_owned();
        (key, uid)
    }
}
