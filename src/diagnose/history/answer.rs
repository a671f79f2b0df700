//! The answer: the actions with their causes and fates, the counts and the notes.

use super::cause::Cx;
use super::*;
use crate::source::audit::Level;
use std::collections::HashMap;

/// The history of what `rec` kept, with the states around the log.
pub(super) fn build(rec: Recorder, states: States<'_>) -> History {
    let States { before, after } = states;
    let read::Actions {
        mut items,
        sources,
        by_key,
        created,
        created_refs,
        gc_404,
    } = read::actions(&rec.kept);
    let index = before.map(SnapIndex::new);
    let after_index = after.map(SnapIndex::new);
    let cx = Cx {
        items: &items,
        sources: &sources,
        by_key: &by_key,
        created: &created,
        created_refs: &created_refs,
        gc_404: &gc_404,
        before,
        index: index.as_ref(),
        after_index: after_index.as_ref(),
        memo: std::cell::RefCell::new(HashMap::new()),
        policies: std::cell::RefCell::new(HashMap::new()),
        gc_foreground: std::cell::OnceCell::new(),
    };
    let causes: Vec<Option<Cause>> = (0..items.len()).map(|i| cx.cause(i, 0)).collect();
    let fates: Vec<Option<&'static str>> = items
        .iter()
        .map(|it| {
            // A collection names no object: its fate is the unlogged list's.
            after_index
                .as_ref()
                .filter(|_| !it.object.name.is_empty())
                .map(|a| a.fate(&it.object, it.time_us))
        })
        .collect();
    let unlogged = match (&index, &after_index) {
        (Some(b), Some(a)) => unlogged(b, a, &items, &by_key),
        _ => Vec::new(),
    };
    let taken = match &index {
        Some(b) => super::collection::taken(b, after_index.as_ref(), &items, &sources, &by_key),
        None => vec![Vec::new(); items.len()],
    };
    for (((item, cause), fate), taken) in items.iter_mut().zip(causes).zip(fates).zip(taken) {
        item.cause = cause;
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
    let any = rec.seen > 0;
    if any && !rec.gc_seen {
        summary.notes.push(
            "no write of the garbage collector is in the log (nor a read of an absent owner): \
             either it did nothing in this window, or the audit policy drops it (a rule on \
             system:serviceaccounts:kube-system or system:kube-controller-manager)"
                .to_owned(),
        );
    }
    if any && rec.levels.iter().all(|l| *l <= Level::Metadata) {
        summary.notes.push(
            "Metadata level only: no request bodies, so propagation policies are inferred from \
             what the GC did next, and owners come only from --snapshot/-f"
                .to_owned(),
        );
    }
    if rec.dry_run > 0 {
        summary.notes.push(format!(
            "{} dry-run request(s) (dryRun=All) changed nothing: not listed as actions \
             (summary.dryRun in -o json)",
            rec.dry_run
        ));
    }
    summary.notes.extend(impersonations(&items));
    if before.is_none() {
        summary.notes.push(
            "no snapshot of the state before (--snapshot FILE or -f PATH): owners the bodies do \
             not show are unknown"
                .to_owned(),
        );
    }
    if let (Some(a), Some(to)) = (after, rec.last_us)
        && let Some(at) = crate::snapshot::parse_rfc3339(&a.provenance.captured_at)
        && at * 1_000_000 < to
    {
        summary.notes.push(format!(
            "the state after (--after) was captured at {}, before the log ends: what happened \
             later is not in it",
            a.provenance.captured_at
        ));
    }
    if !unlogged.is_empty() {
        summary.notes.push(format!(
            "{} object(s) of the state before are gone from the state after without a deletion \
             of their own in the log (listed; `unlogged` in -o json)",
            unlogged.len()
        ));
    }
    History {
        items,
        unlogged,
        summary,
    }
}

/// Objects of the state before that the state after (which covers them) no longer holds (or
/// holds under another UID), with no deletion of their own in the log: removed with a collection (a namespace's content goes
/// through `deletecollection`, which names no object — only the two states tell what went), or
/// gone in a gap of the log or outside its window.
fn unlogged(
    before: &SnapIndex<'_>,
    after: &SnapIndex<'_>,
    items: &[Item],
    by_key: &HashMap<Key, Vec<usize>>,
) -> Vec<Unlogged> {
    // The first collection deletion per (group, resource, namespace, "").
    let mut collections: HashMap<Key, usize> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        if it.action == "delete-collection" {
            collections.entry(it.object.key()).or_insert(i);
        }
    }
    let store = &before.snap.store;
    let mut out = Vec::new();
    for id in store.ids() {
        let o = store.object(id);
        let res = &before.snap.resources[o.resource.0 as usize];
        let (ns, name) = (store.str(o.namespace), store.str(o.name));
        // Most objects are still there: asked by borrowed coordinates, nothing is copied. One
        // whose name is there under another UID is gone too (recreated).
        // Not read in the state after: unknown, never gone.
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
        let obj = Obj {
            group: res.group.clone(),
            resource: res.plural.clone(),
            namespace: store.str(o.namespace).to_owned(),
            name: store.str(o.name).to_owned(),
            uid: Some(store.str(o.uid).to_owned()),
        };
        let deleted = by_key
            .get(&obj.key())
            .is_some_and(|v| v.iter().any(|&j| items[j].action == "delete"));
        if deleted {
            continue;
        }
        // A collection of its resource in its namespace, else across all, that the log has.
        let mut coll = obj.key();
        coll.3 = String::new();
        let collection = collections.get(&coll).or_else(|| {
            coll.2 = String::new();
            collections.get(&coll)
        });
        let collection = collection.copied();
        out.push(Unlogged {
            object: obj,
            collection: collection.map(|c| Root::of(&items[c])),
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
