//! The executor: one action at a time, with its retries on 409, the requests it sends (each
//! rate-limited and recorded) and the re-read of the target. What it verifies is in
//! `verify.rs`; what each verb does is in `verbs.rs`.

use super::RequestRecord;
use super::limiter::Limiter;
use super::{ApiError, ClusterOps, Entry, LiveObject, MAX_ATTEMPTS, ObjectKey, Options, PatchType};
use crate::gc::GarbageCollector;
use crate::gc::plan::{Action, Verb};
use crate::model::ObjId;
use crate::util::Backoff;
use std::time::Duration;

/// The outcome of one attempt.
#[derive(Debug)]
pub(super) enum Step {
    Done(String),
    Skip(String),
    /// A 409: re-run the action from the re-read.
    Conflict(String),
}

/// An unexpected error: stop.
#[derive(Debug)]
pub(super) struct Fail(pub(super) String);

pub(super) type Res<T> = Result<T, Fail>;

/// Performs one action at a time against the cluster, re-reading before it writes.
pub(super) struct Executor<'x, 'b, C> {
    pub(super) ops: &'x C,
    pub(super) a: &'x GarbageCollector<'b>,
    pub(super) opts: &'x Options,
    pub(super) limiter: Limiter,
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

    pub(super) async fn get(
        &mut self,
        key: &ObjectKey,
        entry: &mut Entry,
    ) -> Res<Option<LiveObject>> {
        self.limiter.acquire().await;
        entry.reads += 1;
        self.ops
            .get(key)
            .await
            .map_err(|e| Fail(format!("GET {}: {}", key.path(), e.describe())))
    }

    /// Re-reads the target; `Err(skip)` when it is gone or was recreated.
    pub(super) async fn read_target(
        &mut self,
        key: &ObjectKey,
        uid: &str,
        entry: &mut Entry,
    ) -> Res<Result<LiveObject, Step>> {
        let Some(obj) = self.get(key, entry).await? else {
            return Ok(Err(Step::Skip(format!(
                "gone: {} no longer exists",
                key.describe()
            ))));
        };
        entry.before = Some(obj.raw.clone());
        if obj.meta.uid != uid {
            return Ok(Err(Step::Skip(format!(
                "recreated: {} now has uid {}, the plan was for uid {uid}",
                key.describe(),
                obj.meta.uid
            ))));
        }
        Ok(Ok(obj))
    }

    pub(super) async fn write(
        &mut self,
        key: &ObjectKey,
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

    pub(super) fn unexpected(&self, method: &str, key: &ObjectKey, e: &ApiError) -> Fail {
        Fail(format!("{method} {}: {}", key.path(), e.describe()))
    }

    /// A 422 may be the SMP's `uid` check against a recreated object: re-read to tell.
    pub(super) async fn after_invalid(
        &mut self,
        key: &ObjectKey,
        uid: &str,
        e: &ApiError,
        entry: &mut Entry,
    ) -> Res<Step> {
        match self.read_target(key, uid, entry).await? {
            Err(skip) => Ok(skip),
            Ok(_) => Err(self.unexpected("PATCH", key, e)),
        }
    }

    // -- coordinates -----------------------------------------------------------------------

    pub(super) fn target(&self, id: ObjId) -> (ObjectKey, String) {
        let key = ObjectKey::of(self.a.snap, id);
        let uid = self
            .a
            .snap
            .store
            .str(self.a.snap.store.object(id).uid)
            .to_owned();
        (key, uid)
    }
}
