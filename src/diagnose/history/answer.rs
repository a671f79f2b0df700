//! The answer: the actions with their causes and fates, the counts and the notes on what the
//! inputs could not tell.

use super::cause::Cx;
use super::facts::Facts;
use super::index::SnapIndex;
use super::record::{Origin, Recorder};
use super::types::{Cause, History, Item, ObjectRef, Root, Summary, Unlogged, Verb, format_us};
use crate::catalog::KubeVersion;
use crate::snapshot::Snapshot;
use crate::source::audit::Level;
use std::collections::HashMap;

/// The history of what `rec` kept, with the states around the log (prepared:
/// `model::prepare`) and the GC release to model.
pub(super) fn build(
    rec: &Recorder,
    before: Option<&Snapshot>,
    after: Option<&Snapshot>,
    version: KubeVersion,
) -> History {
    let mut f = Facts::new(rec, before, after, version);
    let causes: Vec<Option<Cause>> = {
        let cx = Cx::new(&f);
        (0..f.items.len()).map(|i| cx.cause(i, 0)).collect()
    };
    let after_index = f.after.as_ref().map(|v| &v.index);
    let fates: Vec<_> = f
        .items
        .iter()
        .map(|it| {
            // A collection names no object: its fate is the unlogged list's.
            after_index
                .filter(|_| !it.object.name.is_empty())
                .map(|a| a.fate(&it.object, it.time_us))
        })
        .collect();
    let unlogged = match (&f.before, after_index) {
        (Some(b), Some(a)) => unlogged(&b.index, a, &f),
        _ => Vec::new(),
    };
    let taken = match &f.before {
        Some(b) => super::collection::taken(&b.index, after_index, &f),
        None => vec![Vec::new(); f.items.len()],
    };
    let mut items = std::mem::take(&mut f.items);
    let states = f.before.is_some() || f.after.is_some();
    let notes_of = f.acts.iter().map(|a| (a.log, a.evidence.origin));
    for ((((item, cause), fate), taken), (log, origin)) in items
        .iter_mut()
        .zip(causes)
        .zip(fates)
        .zip(taken)
        .zip(notes_of)
    {
        // The controller manager's log proves causes of its own (`kcm.rs`).
        item.cause = match log {
            Some(n) if item.action != Verb::GcStart => super::kcm::merged_cause(
                cause,
                &rec.log_notes[n as usize].cause,
                origin == Origin::AuditLog || states,
            ),
            _ => cause,
        };
        item.after = fate;
        item.taken = taken;
    }
    let mut summary = Summary {
        gc_seen: rec.gc_seen,
        dry_run: rec.dry_run,
        logged: items.len(),
        from: rec.first_us.map(format_us),
        to: rec.last_us.map(format_us),
        ..Summary::default()
    };
    summary.count(&items);
    summary.notes = notes(rec, &items, before, after);
    summary.notes.extend(rec.log_limits.iter().cloned());
    History {
        items,
        unlogged,
        summary,
    }
}

/// What the inputs could not tell (the notes that do not depend on the selection).
fn notes(
    rec: &Recorder,
    items: &[Item],
    before: Option<&Snapshot>,
    after: Option<&Snapshot>,
) -> Vec<String> {
    let mut notes = Vec::new();
    let any = rec.seen > 0;
    if any && !rec.gc_seen {
        notes.push(
            "no write of the garbage collector is in the log (nor a read of an absent owner): \
             either it did nothing in this window, or the audit policy drops it (a rule on \
             system:serviceaccounts:kube-system or system:kube-controller-manager)"
                .to_owned(),
        );
    }
    if any && rec.levels.iter().all(|l| *l <= Level::Metadata) {
        notes.push(
            "Metadata level only: no request bodies, so propagation policies are inferred from \
             what the GC did next (said so in each cause), and owners come only from \
             --snapshot/-f"
                .to_owned(),
        );
    }
    if rec.dry_run > 0 {
        notes.push(format!(
            "{} dry-run request(s) (dryRun=All) changed nothing: not listed as actions \
             (summary.dryRun in -o json)",
            rec.dry_run
        ));
    }
    notes.extend(impersonations(items));
    if before.is_none() {
        notes.push(
            "no snapshot of the state before (--snapshot FILE or -f PATH): owners the bodies do \
             not show are unknown"
                .to_owned(),
        );
    }
    if let (Some(a), Some(to)) = (after, rec.last_us)
        && let Some(at) = crate::snapshot::parse_rfc3339(&a.provenance.captured_at)
        && at * 1_000_000 < to
    {
        notes.push(format!(
            "the state after (--after) was captured at {}, before the log ends: what happened \
             later is not in it",
            a.provenance.captured_at
        ));
    }
    notes
}

/// Objects of the state before that the state after (which covers them) no longer holds (or
/// holds under another UID), with no deletion of their own in the log: removed with a
/// collection (a namespace's content goes through `deletecollection`, which names no object —
/// only the two states tell what went), or gone in a gap of the log or outside its window.
fn unlogged(before: &SnapIndex<'_>, after: &SnapIndex<'_>, f: &Facts<'_>) -> Vec<Unlogged> {
    // The first collection deletion per (group, resource, namespace).
    let mut collections: HashMap<(&str, &str, &str), usize> = HashMap::new();
    for (i, it) in f.items.iter().enumerate() {
        if it.action == Verb::DeleteCollection {
            let o = &it.object;
            collections
                .entry((&o.group, &o.resource, &o.namespace))
                .or_insert(i);
        }
    }
    let store = &before.snap.store;
    let mut out = Vec::new();
    for id in store.ids() {
        let o = store.object(id);
        let res = &before.snap.resources[o.resource.0 as usize];
        let (ns, name) = (store.str(o.namespace), store.str(o.name));
        // Most objects are still there: asked by borrowed coordinates, nothing is copied. One
        // whose name is there under another UID is gone too (recreated). Not read in the
        // state after: unknown, never gone.
        let kept_or_unknown = match after.find_at(&res.group, &res.plural, ns, name) {
            Some(a) => {
                let a_store = &after.snap.store;
                a_store.str(a_store.object(a).uid) == store.str(o.uid)
            }
            None => !after.covers_at(&res.group, &res.plural, ns),
        };
        if kept_or_unknown {
            continue;
        }
        let obj = ObjectRef::of(before.snap, id);
        let deleted = f
            .key(&obj)
            .and_then(|k| f.by_key.get(&k))
            .is_some_and(|v| v.iter().any(|&j| f.items[j].action == Verb::Delete));
        if deleted {
            continue;
        }
        // A collection of its resource in its namespace, else across all, that the log has.
        let collection = collections
            .get(&(res.group.as_str(), res.plural.as_str(), ns))
            .or_else(|| collections.get(&(res.group.as_str(), res.plural.as_str(), "")))
            .copied();
        out.push(Unlogged {
            object: obj,
            collection: collection.map(|c| Root::of(&f.items[c])),
        });
    }
    out.sort_by(|a, b| a.object.cmp(&b.object));
    out
}

/// One note per real user and identity impersonated: who made the requests listed under
/// another's name.
fn impersonations(items: &[Item]) -> Vec<String> {
    let mut by: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
    for it in items {
        if let Some(real) = &it.actor.impersonated_by {
            *by.entry((real.as_str(), it.actor.user.as_str()))
                .or_default() += 1;
        }
    }
    by.into_iter()
        .map(|((real, acted_as), n)| {
            format!(
                "{real} impersonated {acted_as} in {n} action(s): they are {real}'s, listed as \
                 made by a user (-o wide names both)"
            )
        })
        .collect()
}
