//! How the watch loop applies what its streams send: objects applied and deleted, relists,
//! readability changes, and discovery refreshes.

use super::*;

pub(super) fn unreadable_notice(r: &Resource, forbidden: bool, message: &str) -> String {
    if forbidden {
        format!(
            "cannot list/watch {} (forbidden): verdicts that depend on it are unknown until it can be read ({})",
            label(r),
            crate::error::one_line(message)
        )
    } else {
        format!(
            "cannot list/watch {} (retrying): verdicts that depend on it are unknown until it can be read ({})",
            label(r),
            crate::error::one_line(message)
        )
    }
}

/// Applies one update from a stream. `live`: after the initial sync (relists and readability
/// changes are evaluated at once).
pub(super) fn handle(
    engine: &mut impl Model,
    lp: &mut Loop<'_>,
    sink: &mut dyn Sink,
    metrics: &Metrics,
    held_when: &mut HashMap<String, Option<When>>,
    update: Update,
    live: bool,
) -> Result<bool> {
    fn flush_first(
        engine: &mut impl Model,
        sink: &mut dyn Sink,
        metrics: &Metrics,
        held_when: &mut HashMap<String, Option<When>>,
        uid: &str,
        live: bool,
    ) -> Result<bool> {
        if live && engine.must_flush_before(uid) {
            let ts = engine.flush(Cause::Event);
            return emit(sink, metrics, held_when, &ts);
        }
        Ok(true)
    }
    match update {
        Update::Applied {
            key,
            meta,
            received,
        } => {
            let Some(rid) = lp.streams.get(&key).map(|s| s.resource) else {
                return Ok(true);
            };
            metrics.event("applied");
            if !flush_first(engine, sink, metrics, held_when, &meta.uid, live)? {
                return Ok(false);
            }
            engine.apply(rid, &meta, Some(received));
        }
        Update::Deleted {
            key,
            meta,
            received,
        } => {
            if !lp.streams.contains_key(&key) {
                return Ok(true);
            }
            metrics.event("deleted");
            if !flush_first(engine, sink, metrics, held_when, &meta.uid, live)? {
                return Ok(false);
            }
            engine.delete(&meta.uid, Some(received));
        }
        Update::Progress { .. } => metrics.event("bookmark"),
        Update::Listed {
            key,
            objects,
            relist,
            ..
        } => {
            let Some(s) = lp.streams.get_mut(&key) else {
                return Ok(true);
            };
            let rid = s.resource;
            let was_known = s.listed && !s.unreadable;
            s.listed = true;
            s.unreadable = false;
            metrics.event("relist");
            if live && engine.pending() {
                let ts = engine.flush(Cause::Event);
                if !emit(sink, metrics, held_when, &ts)? {
                    return Ok(false);
                }
            }
            reconcile(engine, rid, &objects);
            // Current only once what was listed is in.
            engine.stream_health(rid, StreamHealth::Current);
            if !live {
                engine.set_outcome(rid, ListOutcome::Complete);
                return Ok(true);
            }
            let ts = if was_known && relist {
                engine.flush(Cause::Relist)
            } else {
                // It becomes readable: references into it go from unknown to known.
                engine.set_outcome(rid, ListOutcome::Complete);
                sink.notice(&format!(
                    "{} can be read again",
                    label(&engine.world().resources()[rid.index()])
                ));
                engine.evaluate_all(Cause::Relist)
            };
            return emit(sink, metrics, held_when, &ts);
        }
        Update::Unreadable {
            key,
            forbidden,
            message,
        } => {
            let Some(s) = lp.streams.get_mut(&key) else {
                return Ok(true);
            };
            if s.unreadable {
                return Ok(true);
            }
            s.unreadable = true;
            let rid = s.resource;
            // Forbidden is not staleness: what depends on it is unknown, and stays so.
            engine.stream_health(
                rid,
                if forbidden {
                    StreamHealth::Current
                } else {
                    StreamHealth::Interrupted {
                        since: Instant::now(),
                        message: message.clone(),
                    }
                },
            );
            let notice = unreadable_notice(
                &engine.world().resources()[rid.index()],
                forbidden,
                &message,
            );
            sink.notice(&notice);
            engine.set_outcome(
                rid,
                if forbidden {
                    ListOutcome::Forbidden { message }
                } else {
                    ListOutcome::Failed { message }
                },
            );
            if live {
                let ts = engine.evaluate_all(Cause::Resync);
                return emit(sink, metrics, held_when, &ts);
            }
        }
        Update::Readable { .. } => {}
        Update::Interrupted { key, message } => {
            if let Some(s) = lp.streams.get(&key) {
                let since = Instant::now();
                engine.stream_health(s.resource, StreamHealth::Interrupted { since, message });
            }
        }
        Update::Resumed { key } => {
            if let Some(s) = lp.streams.get(&key) {
                engine.stream_health(s.resource, StreamHealth::Current);
            }
        }
    }
    Ok(true)
}

fn reconcile(engine: &mut impl Model, rid: ResourceId, objects: &[OwnedMeta]) {
    engine.reconcile(rid, objects);
}

/// A discovery refresh: when the set of resources changed (a CRD appeared or went away, a
/// version stopped being served), the table is replaced, streams are started and stopped, and
/// everything is evaluated again (the GC resets its REST mapper then too, §5.1).
pub(super) fn rediscover(
    engine: &mut impl Model,
    lp: &mut Loop<'_>,
    sink: &mut dyn Sink,
    rows: Vec<Resource>,
    failures: &[(String, String)],
) -> Vec<Transition> {
    let old = engine.world().resources().to_vec();
    let mut seen = std::collections::HashSet::new();
    let rows: Vec<Resource> = rows
        .into_iter()
        .filter(|r| seen.insert((r.group.clone(), r.version.clone(), r.kind.clone())))
        .collect();
    let shape = |rs: &[Resource]| -> Vec<(String, String, String, String, bool, bool)> {
        let mut v: Vec<_> = rs
            .iter()
            .map(|r| {
                (
                    r.group.clone(),
                    r.version.clone(),
                    r.plural.clone(),
                    r.kind.clone(),
                    r.namespaced,
                    monitored(r),
                )
            })
            .collect();
        v.sort();
        v
    };
    let old_failures: Vec<(String, String)> = engine
        .world()
        .snap
        .discovery_failures
        .iter()
        .map(|f| (f.group_version.clone(), f.message.clone()))
        .collect();
    let same_failures = {
        let mut a: Vec<&String> = old_failures.iter().map(|f| &f.0).collect();
        let mut b: Vec<&String> = failures.iter().map(|f| &f.0).collect();
        a.sort();
        b.sort();
        a == b
    };
    if shape(&old) == shape(&rows) && same_failures {
        return Vec::new();
    }
    // New table: monitored rows keep their outcome when they were monitored before.
    let by_key: HashMap<_, (usize, &Resource)> = old
        .iter()
        .enumerate()
        .map(|(i, r)| (row_key(r), (i, r)))
        .collect();
    let mut table = Vec::with_capacity(rows.len());
    for mut r in rows {
        if monitored(&r) {
            r.list = match by_key.get(&row_key(&r)) {
                Some((_, o)) if monitored(o) => o.list.clone(),
                _ => ListOutcome::Failed {
                    message: NOT_LISTED_YET.into(),
                },
            };
        }
        table.push(r);
    }
    let new_index: HashMap<_, usize> = table
        .iter()
        .enumerate()
        .map(|(i, r)| (row_key(r), i))
        .collect();
    let remap: Vec<Option<ResourceId>> = old
        .iter()
        .map(|r| {
            let &i = new_index.get(&row_key(r))?;
            (monitored(r) == monitored(&table[i])).then_some(ResourceId(i as u32))
        })
        .collect();
    // Streams: stop the ones whose resource went away, re-point the others, start new ones.
    let mut watched = std::collections::HashSet::new();
    lp.streams.retain(
        |_, s| match remap.get(s.resource.index()).copied().flatten() {
            Some(n) if monitored(&table[n.index()]) => {
                s.resource = n;
                watched.insert(n);
                true
            }
            _ => {
                s.task.abort();
                false
            }
        },
    );
    let mut started = Vec::new();
    for (i, r) in table.iter().enumerate() {
        let id = ResourceId(i as u32);
        if monitored(r) && !watched.contains(&id) {
            started.push(label(r));
            lp.spawn(r, id);
        }
    }
    let stopped: Vec<String> = old
        .iter()
        .zip(&remap)
        .filter(|(r, m)| monitored(r) && m.is_none())
        .map(|(r, _)| label(r))
        .collect();
    if !started.is_empty() || !stopped.is_empty() {
        sink.notice(&format!(
            "discovery changed: now watching {}{}",
            if started.is_empty() {
                "-".to_owned()
            } else {
                started.join(", ")
            },
            if stopped.is_empty() {
                String::new()
            } else {
                format!("; stopped watching {}", stopped.join(", "))
            }
        ));
    }
    engine.retable(table, remap, failures);
    engine.evaluate_all(Cause::Resync)
}
