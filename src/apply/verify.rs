//! Re-verification against the live cluster before every write: the GC's `classifyReferences`
//! (§3.4) with live GETs of the owners, and the checks that a verdict taken on the snapshot
//! still holds.

use super::executor::{Executor, Got, Res, Step};
use super::{ClusterOps, Entry, LiveMeta, LiveRef, ObjectRef, ObjectUrl, SkipCause};
use crate::model::{ObjId, Sym, finalizers};
use crate::snapshot::split_api_version;
use std::collections::{BTreeSet, HashMap};

/// How the GC would see one reference now.
#[derive(Debug)]
pub(super) enum LiveClass {
    Solid,
    Waiting,
    Dangling(String),
    /// Cannot be re-checked (kind not served, invalid scope, a name the GC cannot request, a
    /// GET refused for this owner): the GC never resolves it either, and keeps the dependent.
    /// Never act.
    Unverifiable(String),
}

/// What [`Executor::no_solid_owner`] verified: no owner is solid, whether one is in
/// foreground deletion, and each owner's state (for the record).
pub(super) struct NoSolidOwner {
    pub(super) waiting: bool,
    pub(super) why: Vec<String>,
}

impl<C: ClusterOps> Executor<'_, '_, C> {
    /// Where the GC looks an owner up (§3.3 step 6): the reference's group/version/kind
    /// (exact kind, or the kind in lower case), in the dependent's namespace for namespaced
    /// kinds.
    pub(super) fn owner_key(&self, r: &LiveRef, dependent_ns: &str) -> Result<ObjectRef, String> {
        let (group, version) = split_api_version(&r.api_version)
            .ok_or_else(|| format!("apiVersion {:?} does not parse", r.api_version))?;
        let row = self
            .a
            .snap
            .resources
            .iter()
            .find(|x| {
                x.group == group
                    && x.version == version
                    && (x.kind == r.kind || x.kind.to_ascii_lowercase() == r.kind)
            })
            .ok_or_else(|| {
                format!(
                    "{} {} is not served (as of the snapshot)",
                    r.api_version, r.kind
                )
            })?;
        if row.namespaced && dependent_ns.is_empty() {
            return Err("cluster-scoped objects cannot refer to namespaced owners".into());
        }
        Ok(ObjectRef {
            group: row.group.clone(),
            version: row.version.clone(),
            kind: row.kind.clone(),
            resource: row.plural.clone(),
            namespace: if row.namespaced {
                dependent_ns.to_owned()
            } else {
                String::new()
            },
            name: r.name.clone(),
            uid: r.uid.clone(),
        })
    }

    /// `classifyReferences` (§3.4) against live GETs of the owners.
    pub(super) async fn classify(
        &mut self,
        meta: &LiveMeta,
        namespace: &str,
        entry: &mut Entry,
    ) -> Res<Vec<LiveClass>> {
        let mut cache: HashMap<String, Got> = HashMap::new();
        let mut out = Vec::with_capacity(meta.owner_references.len());
        for r in &meta.owner_references {
            let key = match self.owner_key(r, namespace) {
                Ok(k) => k,
                Err(why) => {
                    out.push(LiveClass::Unverifiable(why));
                    continue;
                }
            };
            // isDangling's GET: where the GC's metadata client sends it (a name with `/`, `.`
            // or `..` resolves elsewhere; `%` is refused by the server), answered as it
            // answers the GC.
            let path = key.gc_get_path();
            let owner: Got = match cache.get(&path) {
                Some(o) => o.clone(),
                None => {
                    let o = self.get_owner(&key, entry).await?;
                    cache.insert(path, o.clone());
                    o
                }
            };
            out.push(match owner {
                Err(msg) if msg.contains(super::kube::CANNOT_SEND) => LiveClass::Unverifiable(
                    format!("{msg}; left alone (the GC's own lookup may resolve it)"),
                ),
                Err(msg) => LiveClass::Unverifiable(format!(
                    "{msg}; the GC's lookup fails the same way: it never resolves this owner and keeps the object"
                )),
                Ok(None) => LiveClass::Dangling(format!("{} does not exist", key)),
                Ok(Some(o)) if o.meta.uid != r.uid => LiveClass::Dangling(format!(
                    "{} has uid {}, not {}",
                    key,
                    o.meta.uid,
                    r.uid
                )),
                Ok(Some(o))
                    if o.meta.terminating() && o.meta.has_finalizer(finalizers::FOREGROUND) =>
                {
                    LiveClass::Waiting
                }
                Ok(Some(_)) => LiveClass::Solid,
            });
        }
        Ok(out)
    }

    /// Re-checks every owner of the object live: it is still garbage only if none is solid and
    /// each could be checked (rows 9 and 10). Otherwise the skip to report.
    pub(super) async fn no_solid_owner(
        &mut self,
        meta: &LiveMeta,
        namespace: &str,
        entry: &mut Entry,
    ) -> Res<Result<NoSolidOwner, Step>> {
        let classes = self.classify(meta, namespace, entry).await?;
        let mut verified = NoSolidOwner {
            waiting: false,
            why: Vec::new(),
        };
        for (r, c) in meta.owner_references.iter().zip(&classes) {
            match c {
                LiveClass::Unverifiable(why) => {
                    return Ok(Err(Step::Skip(
                        format!("cannot re-check owner {}: {why}", Self::describe_ref(r)),
                        SkipCause::GcWouldNot,
                    )));
                }
                LiveClass::Solid => {
                    // The plan deleted that owner (or began to) on the way to this action, by
                    // a request of its own that was left out as order-dependent or not done
                    // yet: the world is where this apply left it, and the next round re-plans
                    // from there. Any other solid owner is a change nobody planned.
                    let planned_away = self
                        .a
                        .snap
                        .store
                        .by_uid_text(&r.uid)
                        .is_some_and(|o| !self.end.exists(o) || self.end.being_deleted(o));
                    return Ok(Err(Step::Skip(
                        format!(
                            "owner {} exists: the object is not garbage{}",
                            Self::describe_ref(r),
                            if planned_away {
                                " yet (the plan's way there goes through a request of the owner's this round did not make)"
                            } else {
                                ""
                            }
                        ),
                        if planned_away {
                            SkipCause::Superseded
                        } else {
                            SkipCause::Changed
                        },
                    )));
                }
                LiveClass::Waiting => {
                    verified.waiting = true;
                    verified.why.push(format!(
                        "{} is in foreground deletion",
                        Self::describe_ref(r)
                    ));
                }
                LiveClass::Dangling(d) => verified.why.push(format!("dangling: {d}")),
            }
        }
        Ok(Ok(verified))
    }

    /// Row 1 / row 5: the GC does nothing to a terminating object here.
    pub(super) fn terminating_skip(&self, id: ObjId, meta: &LiveMeta) -> Option<Step> {
        if !meta.terminating() {
            return None;
        }
        let msg = if meta.has_finalizer(finalizers::FOREGROUND) {
            "now in foreground deletion: the GC waits for its dependents instead"
        } else {
            "already being deleted"
        };
        Some(Step::Skip(msg.into(), self.cause(id, Some(meta))))
    }

    /// Why the object `id` no longer matches an action: [`SkipCause::Superseded`] when what was
    /// observed (`None`: gone) lies on the way from the snapshot to the end state the plan
    /// predicts — nothing appeared that neither had (no new reference or finalizer, not
    /// recreated), nothing the plan keeps went away, it is terminating or gone only if the
    /// plan says so — otherwise [`SkipCause::Changed`].
    pub(super) fn cause(&self, id: ObjId, observed: Option<&LiveMeta>) -> SkipCause {
        if self.on_the_way(id, observed) {
            SkipCause::Superseded
        } else {
            SkipCause::Changed
        }
    }

    fn on_the_way(&self, id: ObjId, observed: Option<&LiveMeta>) -> bool {
        let store = &self.a.snap.store;
        let end = self.end;
        let Some(m) = observed else {
            return !end.exists(id);
        };
        let o = store.object(id);
        if m.uid != store.str(o.uid) {
            return false;
        }
        let kept = end.exists(id);
        if m.terminating() && !o.being_deleted() && kept && !end.being_deleted(id) {
            return false;
        }
        let strs = |syms: &mut dyn Iterator<Item = Sym>| -> BTreeSet<String> {
            syms.map(|s| store.str(s).to_owned()).collect()
        };
        let snap_refs = strs(&mut store.owner_refs(id).iter().map(|r| r.uid));
        let end_refs = if kept {
            strs(&mut end.owner_refs(store, id).iter().map(|r| r.uid))
        } else {
            BTreeSet::new()
        };
        let live_refs: BTreeSet<String> =
            m.owner_references.iter().map(|r| r.uid.clone()).collect();
        let gc_fins = [finalizers::ORPHAN, finalizers::FOREGROUND].map(str::to_owned);
        let snap_fins = strs(&mut store.finalizers(id).iter().copied());
        let end_fins = if kept {
            strs(&mut end.finalizers(store, id).iter().copied())
        } else {
            BTreeSet::new()
        };
        let live_fins: BTreeSet<String> = m.finalizers.iter().cloned().collect();
        let between = |live: &BTreeSet<String>,
                       before: &BTreeSet<String>,
                       after: &BTreeSet<String>,
                       extra: &[String]| {
            live.iter()
                .all(|x| before.contains(x) || after.contains(x) || extra.contains(x))
                && (!kept || before.intersection(after).all(|x| live.contains(x)))
        };
        between(&live_refs, &snap_refs, &end_refs, &[])
            && between(&live_fins, &snap_fins, &end_fins, &gc_fins)
    }

    pub(super) fn describe_ref(r: &LiveRef) -> String {
        format!("{}/{} ({})", r.kind, r.name, r.uid)
    }

    /// Dependents (from the snapshot's graph) that may still hold the target: for foreground
    /// deletion those with a blocking reference, for orphaning those with any reference.
    pub(super) fn snapshot_dependents(&self, id: ObjId, blocking_only: bool) -> Vec<ObjId> {
        let a = self.a;
        let store = &a.snap.store;
        let uid = store.object(id).uid;
        let mut out: Vec<ObjId> = a
            .graph
            .dependents(a.graph.node_of_object(id))
            .iter()
            .filter_map(|&n| a.graph.object(n))
            .filter(|&d| {
                store
                    .owner_refs(d)
                    .iter()
                    .any(|r| r.uid == uid && (!blocking_only || r.blocks()))
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}
