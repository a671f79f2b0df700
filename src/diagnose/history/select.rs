//! What is shown: `-n`, `--kind` (resource names as kubectl takes them), `-l` (labels in a
//! state before or after), `--actor`, `--since`/`--until`. Causes were worked out on
//! everything; the selection only chooses rows, and the counts and notes follow it.

use super::index::SnapIndex;
use super::types::{ActorKind, History, ObjectRef};
use crate::error::{Error, Result};
use crate::model::selector::Selector;
use crate::snapshot::Snapshot;

/// Whose actions to show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Actors {
    /// Every action.
    #[default]
    All,
    /// The garbage collector's.
    Gc,
    /// The namespace controller's.
    Namespace,
    /// People's and other controllers'.
    User,
}

impl Actors {
    fn admits(self, kind: ActorKind) -> bool {
        match self {
            Actors::All => true,
            Actors::Gc => kind == ActorKind::GarbageCollector,
            Actors::Namespace => kind == ActorKind::NamespaceController,
            Actors::User => kind.starts_chains(),
        }
    }
}

/// The selection.
#[derive(Clone, Debug, Default)]
pub struct Select {
    /// `-n`: only this namespace (`None`: all).
    pub namespace: Option<String>,
    /// `--kind`: resource names, short names or kinds (any of them; empty: all).
    pub kinds: Vec<String>,
    /// `--actor`.
    pub actors: Actors,
    /// `-l`: the labels of the object in the first state that holds it.
    pub labels: Option<Selector>,
    /// `--since` (µs since the epoch).
    pub since_us: Option<i64>,
    /// `--until`.
    pub until_us: Option<i64>,
}

impl Select {
    fn kind_ok(&self, o: &ObjectRef) -> bool {
        self.kinds.is_empty()
            || self.kinds.iter().any(|k| {
                *k == o.resource
                    || o.resource.strip_suffix('s') == Some(k.as_str())
                    || format!("{}.{}", o.resource, o.group) == *k
                    || crate::catalog::builtin::all().iter().any(|b| {
                        b.group == o.group
                            && b.plural == o.resource
                            && crate::lookup::names_of(b.kind, b.plural).contains(k)
                    })
            })
    }

    fn ns_ok(&self, o: &ObjectRef) -> bool {
        self.namespace.as_deref().is_none_or(|ns| o.namespace == ns)
    }

    /// Keeps what is selected of `h`, read with `states` (for `-l`). A namespace or kind that
    /// none of the log's actions names is a usage error (exit 2), as `audit -n` of a namespace
    /// the input does not hold: "no action" would claim the log shows none, when the filter
    /// removed them all.
    pub(super) fn apply(&self, h: &mut History, states: [Option<&Snapshot>; 2]) -> Result<()> {
        let named = |o: &ObjectRef| self.ns_ok(o) && self.kind_ok(o);
        if !h.items.is_empty()
            && !h.items.iter().any(|it| named(&it.object))
            && !h.unlogged.iter().any(|u| named(&u.object))
        {
            return Err(self.matched_none(h));
        }
        // -l: the labels of the object in the first state that holds it; an object no state
        // holds has unknown labels and is not shown (counted in a note).
        let indexes: Vec<SnapIndex<'_>> = match &self.labels {
            Some(_) => states.into_iter().flatten().map(SnapIndex::new).collect(),
            None => Vec::new(),
        };
        let mut unlabelled = 0usize;
        let mut labels_ok = |o: &ObjectRef| {
            let Some(sel) = &self.labels else { return true };
            match indexes.iter().find_map(|ix| ix.find(o).map(|id| (ix, id))) {
                Some((ix, id)) => sel.matches(&ix.snap.store, id),
                None => {
                    unlabelled += 1;
                    false
                }
            }
        };
        let all_unlogged = h.unlogged.len();
        h.items.retain(|it| {
            named(&it.object)
                && self.since_us.is_none_or(|t| it.time_us >= t)
                && self.until_us.is_none_or(|t| it.time_us <= t)
                && self.actors.admits(it.actor.kind)
                && labels_ok(&it.object)
        });
        h.unlogged
            .retain(|u| named(&u.object) && labels_ok(&u.object));
        h.summary.count(&h.items);
        if unlabelled > 0 {
            h.summary.notes.push(format!(
                "{unlabelled} action(s) on objects neither state holds are not shown: -l \
                 cannot read their labels"
            ));
        }
        match (all_unlogged, h.unlogged.len()) {
            (0, _) => {}
            (_, 0) => h.summary.notes.push(format!(
                "{all_unlogged} object(s) of the state before are gone from the state after \
                 without a deletion of their own in the log; none of them matches the selection"
            )),
            (_, n) => h.summary.notes.push(format!(
                "{n} object(s) of the state before are gone from the state after without a \
                 deletion of their own in the log (listed; `unlogged` in -o json)"
            )),
        }
        Ok(())
    }

    /// The usage error of a namespace or kind that names none of the log's actions.
    fn matched_none(&self, h: &History) -> Error {
        let mut said = Vec::new();
        if let Some(ns) = &self.namespace {
            said.push(format!("-n {ns}"));
        }
        if !self.kinds.is_empty() {
            said.push(format!("--kind {}", self.kinds.join(",")));
        }
        let mut namespaces: Vec<String> = h
            .items
            .iter()
            .map(|it| it.object.namespace.clone())
            .filter(|ns| !ns.is_empty())
            .collect();
        namespaces.sort();
        namespaces.dedup();
        let mut resources: Vec<String> = h
            .items
            .iter()
            .map(|it| it.object.resource.clone())
            .collect();
        resources.sort();
        resources.dedup();
        Error::usage(
            format!(
                "{} matched none of the {} action(s) in the log",
                said.join(" "),
                h.items.len()
            ),
            format!(
                "the log's actions are on {}, {}",
                crate::lookup::join_some(&resources, 8),
                if namespaces.is_empty() {
                    "all cluster-scoped".to_owned()
                } else {
                    format!("in namespaces {}", crate::lookup::join_some(&namespaces, 8))
                }
            ),
        )
    }
}

/// `history --since`/`--until`: a time, or a duration back from when the command runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeArg {
    /// RFC 3339, in µs since the epoch.
    At(i64),
    /// A duration back from now ([`crate::util::parse_duration`]).
    Ago(std::time::Duration),
}

impl TimeArg {
    /// The time, in µs since the epoch, with `now_us` the time now.
    pub fn at(self, now_us: i64) -> i64 {
        match self {
            TimeArg::At(t) => t,
            TimeArg::Ago(d) => {
                now_us.saturating_sub(i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
            }
        }
    }
}

/// Parses [`TimeArg`]: RFC 3339, else the one duration grammar.
pub fn parse_time_arg(s: &str) -> Result<TimeArg, String> {
    let t = s.trim();
    if let Some(secs) = crate::snapshot::parse_rfc3339(t) {
        return secs
            .checked_mul(1_000_000)
            .map(TimeArg::At)
            .ok_or_else(|| format!("{t:?} is out of range"));
    }
    match crate::util::parse_duration(t) {
        Ok(d) => Ok(TimeArg::Ago(d)),
        Err(e) if e.contains("too long") => Err(e),
        Err(_) => Err(format!(
            "{t:?} is neither an RFC 3339 time nor a duration (90s, 15m, 1h30m, 2d; e.g. --since \
             2026-11-26T01:00:00Z, or --since 1h for the last hour)"
        )),
    }
}
