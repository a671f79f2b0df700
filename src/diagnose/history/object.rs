//! One object's story in the logs, for `why KIND/NAME --audit-log`: what happened to an object
//! the state given lacks (it is gone: the state is the one after the log), or the deletion,
//! after the state given, of an object that state holds (the state is the one before).

use super::entry::{Logs, Query, from_logs};
use super::record::Caps;
use super::select::Select;
use super::types::{Item, Summary, Verb};
use crate::catalog::KubeVersion;
use crate::error::Result;
use crate::snapshot::Snapshot;

/// The object asked about.
#[derive(Clone, Debug, Default)]
pub struct Target {
    /// The resources its kind may be (`(group, plural)`).
    pub resources: Vec<(String, String)>,
    /// Its namespace (`None`: any; a cluster-scoped object matches any).
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
}

/// What the logs say of it.
#[derive(Debug)]
pub enum Story {
    /// Its actions (deletions, or for a gone object every action on it), in time order, and
    /// the summary of the whole history they come from.
    Told(Vec<Item>, Summary),
    /// The logs delete an object of its name at this time, but neither a UID nor an exact
    /// capture time tells whether that came after the state given.
    Unplaced(String),
    /// The logs, with this many events, have nothing of it.
    NotInLog(u64),
}

/// An object the state given (`after`, possibly empty) does not hold: every action of the
/// logs on it. What was read is the state now, after the log: an owner it lacks may have been
/// deleted before the log's window, so it proves what exists, not what never did.
pub fn gone(
    logs: Logs,
    after: &mut Snapshot,
    gc_version: KubeVersion,
    target: &Target,
) -> Result<Story> {
    let a = from_logs(Query {
        logs,
        kcm: Default::default(),
        before: None,
        after: Some(after),
        gc_version,
        select: Select::default(),
        caps: Caps::default(),
    })?;
    let items: Vec<Item> = a
        .history
        .items
        .iter()
        .filter(|it| target.is(&it.object))
        .cloned()
        .collect();
    Ok(if items.is_empty() {
        Story::NotInLog(a.read.events)
    } else {
        Story::Told(items, a.history.summary)
    })
}

/// Object `id` of the state `before`: its deletion in the logs after that state — the deletion
/// of this very object (the log's UID is its UID), or, where the log names no UID, one later
/// than the state's exact capture time (a live snapshot's; a dump's time is only the newest
/// timestamp in it). The history is built with the state as the state before, so the cause
/// agrees with `history --snapshot`.
pub fn deleted_later(
    logs: Logs,
    before: &mut Snapshot,
    gc_version: KubeVersion,
    id: crate::model::ObjId,
) -> Result<Story> {
    let (target, uid, captured) = {
        let store = &before.store;
        let o = store.object(id);
        let r = &before.resources[o.resource.index()];
        let captured = (before.provenance.source == crate::snapshot::SourceKind::Live)
            .then(|| crate::snapshot::parse_rfc3339(&before.provenance.captured_at))
            .flatten()
            .map(|s| s * 1_000_000);
        (
            Target {
                resources: vec![(r.group.clone(), r.plural.clone())],
                namespace: Some(store.str(o.namespace).to_owned()),
                name: store.str(o.name).to_owned(),
            },
            store.str(o.uid).to_owned(),
            captured,
        )
    };
    let a = from_logs(Query {
        logs,
        kcm: Default::default(),
        before: Some(before),
        after: None,
        gc_version,
        select: Select::default(),
        caps: Caps::default(),
    })?;
    let mut told = Vec::new();
    let mut unplaced = None;
    for it in a.history.items.iter().filter(|it| {
        it.action == Verb::Delete
            && target.is(&it.object)
            && target.namespace.as_deref() == Some(it.object.namespace.as_str())
    }) {
        let logged_uid = (!it.object.uid.is_empty()).then_some(&it.object.uid);
        match (logged_uid, captured) {
            (Some(u), _) if *u == uid => told.push(it.clone()),
            (Some(_), _) => {}
            (None, Some(c)) if it.time_us >= c => told.push(it.clone()),
            (None, Some(_)) => {}
            (None, None) => unplaced = Some(it.time.clone()),
        }
    }
    Ok(match (told.is_empty(), unplaced) {
        (false, _) => Story::Told(told, a.history.summary),
        (true, Some(t)) => Story::Unplaced(t),
        (true, None) => Story::NotInLog(a.read.events),
    })
}

impl Target {
    fn is(&self, o: &super::types::ObjectRef) -> bool {
        o.name == self.name
            && self
                .resources
                .iter()
                .any(|(g, p)| *g == o.group && *p == o.resource)
            && self
                .namespace
                .as_deref()
                .is_none_or(|ns| o.namespace == ns || o.namespace.is_empty())
    }
}
