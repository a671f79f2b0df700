//! GC forensics: what the garbage collector and the namespace controller did, from API-server
//! audit events, and for each of their actions the cause, chained back to the first action that
//! started it (`kubectl gc history`, and `why KIND/NAME --audit-log` for an object that is gone).
//!
//! The audit log says *who* did *what* and *when*; it rarely says *why*. The why comes from what
//! the GC does (docs/gc-model.md §3): it deletes a dependent once no owner is solid, removes a
//! reference to an owner that is gone while another remains, removes `foregroundDeletion` once
//! no blocking dependent is left, orphans dependents then removes `orphan`. So each GC action is
//! explained by the owners of its object — read from the request/response bodies where the
//! log has them, else from a snapshot of the state before (`--snapshot`/`-f`) — and by what
//! happened to those owners in the log (deleted: by whom, with which policy; created again),
//! and, for an owner the log does not touch, by what the GC model of the state before (or
//! after) makes of the reference (`gc::classify`): the finding codes' kinds of break.
//!
//! Unknown is never guessed: an owner the inputs do not show, a deletion before the log's
//! window, a level without bodies — each is said so (cause `unknown`, with the reason), and a
//! policy not read from the request is marked inferred. A GC deletion whose owner the inputs
//! show alive and not deleted in the window is `unexplained`: the dangerous kind, listed first.
//!
//! The module follows the pipeline: [`from_logs`] (`entry.rs`) is the one entry point; a
//! source turns what it reads into the action model of `record.rs` (`audit.rs`: audit events;
//! [`actor`] says who acted, from authentication; `kcm.rs`: kube-controller-manager's own log,
//! each of its actions one with the audit log's where both show it); `facts.rs` orders the actions and indexes
//! the states around the log (`index.rs`) with the GC model on each (`model.rs`); `cause.rs`
//! and `absent.rs` explain each GC and namespace-controller action; `answer.rs` assembles the
//! history (fates, `collection.rs`: what a deletecollection took, notes); `select.rs` chooses
//! what is shown and `rows.rs` collapses retries and a namespace's content; `object.rs` is
//! one object's story for `why`.

mod absent;
mod actor;
mod answer;
mod audit;
mod cause;
mod collection;
mod entry;
mod facts;
mod index;
mod kcm;
mod model;
mod object;
mod record;
mod rows;
mod select;
#[cfg(test)]
mod tests;
mod types;

pub use actor::{CONTROLLER_MANAGER_USER, GC_USER, NAMESPACE_CONTROLLER_USER, actor_of};
pub use audit::used_by_history;
pub use entry::{Answer, Logs, Query, Read, from_logs};
pub use index::SnapIndex;
pub use kcm::{KcmLogs, LOG_USER, LogRead};
pub use object::{Story, Target, deleted_later, gone};
pub use record::{
    Action, CapHit, Caps, Create, Evidence, LogNote, ObjKey, Origin, Recorder, RefSeen, RefSpan,
    Who,
};
pub use select::{Actors, Select, TimeArg, parse_time_arg};
pub use types::*;

/// The history of `events` (any order) with the states before and after them, unselected and
/// uncollapsed (tests build events by hand; the commands stream through [`from_logs`]).
#[cfg(test)]
pub fn history_between(
    events: &[crate::source::audit::AuditEvent],
    before: Option<&mut crate::snapshot::Snapshot>,
    after: Option<&mut crate::snapshot::Snapshot>,
) -> History {
    let mut r = Recorder::default();
    for e in events {
        r.push(e.clone());
    }
    r.finish(before, after)
}

/// [`history_between`] with a state before only.
#[cfg(test)]
pub fn history(
    events: &[crate::source::audit::AuditEvent],
    before: Option<&mut crate::snapshot::Snapshot>,
) -> History {
    history_between(events, before, None)
}

#[cfg(test)]
impl Recorder {
    /// The history of what was pushed, with the states around it, at the newest release.
    pub fn finish(
        self,
        mut before: Option<&mut crate::snapshot::Snapshot>,
        mut after: Option<&mut crate::snapshot::Snapshot>,
    ) -> History {
        for s in [before.as_deref_mut(), after.as_deref_mut()]
            .into_iter()
            .flatten()
        {
            model::prepare(s, &self);
        }
        answer::build(
            &self,
            before.as_deref(),
            after.as_deref(),
            crate::catalog::KubeVersion::NEWEST,
        )
    }
}
