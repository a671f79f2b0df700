//! The answer's causes: why the GC or the namespace controller did each action, chained back
//! to the action that started it. What the log shows happening to an owner (deleted, by whom,
//! with which policy; created again) comes first; what the owner was when the GC acted is the
//! GC model's answer on the states around the log (`model.rs`).

use super::facts::Facts;
use super::model::RefText;
use super::record::Action;
use super::types::{
    ActorKind, Cause, CauseKind, Item, ObjectRef, Policy, Root, Spelt, Verb, format_us,
};
use std::collections::HashMap;

/// A deletion's propagation policy, whether it is inferred, and the evidence in words (`None`:
/// read from the request).
#[derive(Clone, Copy, Debug)]
pub(super) struct PolicyFound {
    pub policy: Policy,
    pub inferred: bool,
    pub evidence: Option<&'static str>,
}

impl PolicyFound {
    fn read(policy: Policy) -> Self {
        PolicyFound {
            policy,
            inferred: false,
            evidence: None,
        }
    }

    fn inferred(policy: Policy, evidence: &'static str) -> Self {
        PolicyFound {
            policy,
            inferred: true,
            evidence: Some(evidence),
        }
    }

    /// ` — the evidence` for a detail, empty when read from the request.
    fn how(&self) -> String {
        self.evidence.map(|e| format!(" — {e}")).unwrap_or_default()
    }
}

pub(super) const MAX_DEPTH: usize = 64;

/// The causes of one history, worked out on demand (a chain's items are asked again by every
/// later link: each is computed once).
pub(super) struct Cx<'a> {
    pub f: &'a Facts<'a>,
    memo: std::cell::RefCell<HashMap<usize, Option<Cause>>>,
    policies: std::cell::RefCell<HashMap<usize, PolicyFound>>,
    /// The GC's Foreground deletions, in time order (found at the first need).
    gc_foreground: std::cell::OnceCell<Vec<usize>>,
}

impl<'a> Cx<'a> {
    pub fn new(f: &'a Facts<'a>) -> Self {
        Cx {
            f,
            memo: Default::default(),
            policies: Default::default(),
            gc_foreground: Default::default(),
        }
    }

    fn items(&self) -> &'a [Item] {
        &self.f.items
    }

    fn act(&self, i: usize) -> &'a Action {
        self.f.acts[i]
    }

    /// The root of the chain that item `i` is part of: a person's or another controller's
    /// action starts one (a CronJob controller deleting its Job, the GC then its Pod).
    fn root(&self, i: usize, depth: usize) -> Option<Root> {
        let it = &self.items()[i];
        if it.actor.kind.starts_chains() || depth > MAX_DEPTH {
            return Some(Root::of(it));
        }
        self.cause(i, depth + 1)?.root
    }

    pub fn cause(&self, i: usize, depth: usize) -> Option<Cause> {
        if let Some(c) = self.memo.borrow().get(&i) {
            return c.clone();
        }
        if depth > MAX_DEPTH {
            return None;
        }
        let it = &self.items()[i];
        let c = match it.actor.kind {
            ActorKind::NamespaceController => Some(self.namespace_cause(i, depth)),
            // A start of the GC is no action on an object: nothing to explain.
            ActorKind::GarbageCollector if it.action == Verb::GcStart => None,
            ActorKind::GarbageCollector => Some(match it.action {
                Verb::RemoveFinalizer => self.finalizer_cause(i, depth),
                _ => self.owner_cause(i, depth),
            }),
            _ => None,
        };
        self.memo.borrow_mut().insert(i, c.clone());
        c
    }

    /// The policy of deletion item `d` and what shows it. Evidence first: the request, the
    /// namespace controller's own rule, the response, the GC's own requests, the state
    /// after; only then the absence of a later finalizer removal.
    pub(super) fn policy_of(&self, d: usize) -> PolicyFound {
        if let Some(p) = self.policies.borrow().get(&d) {
            return *p;
        }
        let p = self.find_policy(d);
        self.policies.borrow_mut().insert(d, p);
        p
    }

    fn find_policy(&self, d: usize) -> PolicyFound {
        let a = self.act(d);
        if let Some(p) = a.policy {
            return PolicyFound::read(p);
        }
        let owner = &self.items()[d];
        if owner.actor.kind == ActorKind::NamespaceController {
            // The namespace controller always deletes with Background (§10.2).
            return PolicyFound::read(Policy::Background);
        }
        if a.removed_at_once {
            // Removed at once: no finalizer was added, so not Foreground or Orphan.
            return PolicyFound::inferred(
                Policy::Background,
                "inferred: the deletion removed it at once (its response names the UID)",
            );
        }
        if self.f.absent_after(&a.key, owner.time_us) {
            return PolicyFound::inferred(
                Policy::Background,
                "inferred: the GC's GET of it answered 404 after the deletion, so it was \
                 removed at once",
            );
        }
        // Foreground and Orphan add a finalizer the GC removes once done.
        if let Some(f) = self.f.gc_finalizer_removal(d) {
            return self.orphan_or_foreground(d, f);
        }
        if self.gc_foreground_dependent(d) {
            return PolicyFound::inferred(
                Policy::Foreground,
                "inferred: the GC deleted a dependent of it with Foreground, which it does \
                 only while an owner waits for its dependents' deletion",
            );
        }
        if let Some(p) = self.f.after_finalizer(owner) {
            return p;
        }
        PolicyFound::inferred(
            Policy::Background,
            "inferred, not read from the request: the GC removed no finalizer of it later in \
             the log",
        )
    }

    /// Between deletion `d` and the GC's finalizer removal `f` on the same object: Orphan
    /// when the GC only removed dependents' references, Foreground when it deleted any; when
    /// it did neither (nothing depended on it), the log cannot tell.
    fn orphan_or_foreground(&self, d: usize, f: usize) -> PolicyFound {
        let items = self.items();
        let owner = &items[d];
        // An audit event's time is its response's (stageTimestamp): the GC sees the owner's
        // deletionTimestamp as soon as it is stored and can finish deleting a dependent before
        // the owner's DELETE has sent its response. So the window opens a request's latency
        // early (1 s, far above a loaded API server's), not at the owner's recorded time.
        const LATENCY_US: i64 = 1_000_000;
        let (from, to) = (owner.time_us.saturating_sub(LATENCY_US), items[f].time_us);
        let near = |x: &Item| {
            x.actor.kind == ActorKind::GarbageCollector
                && x.time_us >= from
                && x.time_us <= to
                && (owner.object.namespace.is_empty()
                    || x.object.namespace == owner.object.namespace)
        };
        // Items are in time order: only those between the deletion and the removal are read
        // (a scan of every item per deletion is quadratic on a busy log).
        let lo = items.partition_point(|x| x.time_us < from);
        let hi = items.partition_point(|x| x.time_us <= to);
        let window = &items[lo..hi.max(lo)];
        let deleted = window.iter().any(|x| near(x) && x.action == Verb::Delete);
        let unlinked = window
            .iter()
            .any(|x| near(x) && x.action == Verb::RemoveOwnerReferences);
        if !deleted && !unlinked && self.gc_deleted_dependent_after(d, to, hi) {
            return PolicyFound::inferred(
                Policy::Foreground,
                "inferred from what the GC did next (it removed the finalizer, then deleted a \
                 dependent that still referenced it, which an Orphan deletion unlinks first), \
                 not read from the request",
            );
        }
        match (deleted, unlinked) {
            (false, true) => PolicyFound::inferred(
                Policy::Orphan,
                "inferred from what the GC did next (it removed dependents' references, then \
                 the finalizer), not read from the request",
            ),
            (true, _) => PolicyFound::inferred(
                Policy::Foreground,
                "inferred from what the GC did next (it deleted dependents, then removed the \
                 finalizer), not read from the request",
            ),
            (false, false) => PolicyFound::inferred(
                Policy::Unknown,
                "Foreground or Orphan: the GC removed its finalizer with no dependent to \
                 delete or orphan, and the request's policy is not in the log (Request level \
                 records it)",
            ),
        }
    }

    /// True when the GC deleted an object that still referenced deletion `d`'s object soon
    /// after removing its finalizer (items from `from` on, in time order). Foreground waits
    /// only for dependents with blockOwnerDeletion: the GC may remove the finalizer first and
    /// delete the others once the owner is gone. An Orphan deletion removes every dependent's
    /// reference before its finalizer, so a dependent deleted for it later rules Orphan out.
    /// `removed`: the time of the finalizer's removal.
    fn gc_deleted_dependent_after(&self, d: usize, removed: i64, from: usize) -> bool {
        // Long enough for the GC's queue to reach the dependent on a loaded controller, short
        // enough that a later, unrelated deletion of a still-linked object is not read as it.
        const AFTER_US: i64 = 30_000_000;
        let items = self.items();
        let owner = &items[d];
        let until = removed.saturating_add(AFTER_US);
        let to = items.partition_point(|x| x.time_us <= until);
        (from..to.max(from)).any(|j| {
            let x = &items[j];
            x.actor.kind == ActorKind::GarbageCollector
                && x.action == Verb::Delete
                && (owner.object.namespace.is_empty()
                    || x.object.namespace == owner.object.namespace)
                && self.names_owner(j, owner)
        })
    }

    /// True when, after deletion `d`, the GC deleted a dependent of its object with
    /// Foreground (the request says so, or the GC removed that dependent's finalizer after
    /// it without the deletion removing it at once): upstream's GC does that for a dependent
    /// with dependents of its own whose owner waits for its dependents' deletion.
    fn gc_foreground_dependent(&self, d: usize) -> bool {
        let items = self.items();
        let owner = &items[d];
        let foreground = self.gc_foreground.get_or_init(|| {
            (0..items.len())
                .filter(|&j| {
                    items[j].actor.kind == ActorKind::GarbageCollector
                        && items[j].action == Verb::Delete
                        && self.foreground_delete(j)
                })
                .collect()
        });
        let lo = foreground.partition_point(|&j| items[j].time_us < owner.time_us);
        foreground[lo..].iter().any(|&j| {
            let x = &items[j];
            (owner.object.namespace.is_empty() || x.object.namespace == owner.object.namespace)
                && self.names_owner(j, owner)
        })
    }

    /// Deletion `j` was Foreground, by its request or by the GC removing its finalizer after
    /// it.
    fn foreground_delete(&self, j: usize) -> bool {
        let a = self.act(j);
        if let Some(p) = a.policy {
            return p == Policy::Foreground;
        }
        !a.removed_at_once && self.f.gc_finalizer_removal(j).is_some()
    }

    /// True when the object of item `j` has a reference to `owner`'s object (by UID where the
    /// log names one, else by name and resource), as the inputs show its references.
    fn names_owner(&self, j: usize, owner: &Item) -> bool {
        let x = &self.items()[j];
        let Ok(refs) = self.f.owner_refs_of(j) else {
            return false;
        };
        refs.refs.iter().any(|r| {
            self.f.owner_obj(&x.object.namespace, *r).is_some_and(|k| {
                k.key() == owner.object.key()
                    && (owner.object.uid.is_empty() || owner.object.uid == k.uid)
            })
        })
    }

    fn namespace_cause(&self, i: usize, depth: usize) -> Cause {
        let it = &self.items()[i];
        let ns_name = if it.object.resource == "namespaces" && it.object.group.is_empty() {
            it.object.name.clone()
        } else {
            it.object.namespace.clone()
        };
        let ns = super::types::named("", "v1", "namespaces", "", &ns_name, "");
        let d = self.f.deletion_before(&ns, it.time_us, i);
        let detail = match d {
            Some(d) => format!(
                "namespace {ns_name} was deleted at {} by {}: the namespace controller deletes \
                 everything in it",
                self.items()[d].time,
                self.items()[d].actor.display()
            ),
            None => format!(
                "namespace {ns_name} is being deleted; its deletion is not in the log (before \
                 its window?)"
            ),
        };
        let mut c = Cause::new(CauseKind::NamespaceDeleted, Some(ns), detail);
        if let Some(d) = d {
            let p = self.policy_of(d);
            (c.policy, c.policy_inferred) = (p.policy, p.inferred);
            c.root = self.root(d, depth);
        }
        c
    }

    /// The GC removed a finalizer of `it`: its foreground deletion or orphaning finished.
    fn finalizer_cause(&self, i: usize, depth: usize) -> Cause {
        let items = self.items();
        let it = &items[i];
        let Some(d) = self.f.deletion_before(&it.object, it.time_us, i) else {
            return Cause::new(
                CauseKind::Unknown,
                None,
                "the GC removed a finalizer of an object whose deletion is not in the log \
                 (before its window?)"
                    .to_owned(),
            );
        };
        let p = self.policy_of(d);
        let by = format!(
            "deleted at {} by {}",
            items[d].time,
            items[d].actor.display()
        );
        let (kind, detail) = match p.policy {
            Policy::Orphan => (
                CauseKind::Orphaned,
                format!(
                    "{by} with propagationPolicy=Orphan{}: the GC removed `orphan` after \
                     removing the dependents' references",
                    p.how()
                ),
            ),
            Policy::Foreground => (
                CauseKind::ForegroundFinished,
                format!(
                    "{by} with propagationPolicy=Foreground{}: the GC removed \
                     `foregroundDeletion` once no blocking dependent was left",
                    p.how()
                ),
            ),
            _ => (
                CauseKind::DeletionFinished,
                format!(
                    "{by}{}: the GC removed the finalizer its deletion added once it had nothing \
                     left to do for it",
                    p.how()
                ),
            ),
        };
        let mut c = Cause::new(kind, None, detail);
        (c.policy, c.policy_inferred) = (p.policy, p.inferred);
        c.root = self.root(d, depth);
        c
    }

    /// A GC deletion or reference removal: explained by the object's owners.
    fn owner_cause(&self, i: usize, depth: usize) -> Cause {
        let it = &self.items()[i];
        let a = self.act(i);
        let shown = match self.f.owner_refs_of(i) {
            Ok(shown) => shown,
            Err(Some(why)) => return Cause::unknown(format!("{why}: its owners are unknown")),
            Err(None) => {
                return Cause::unknown(
                    "its owners are not in the inputs: the log's bodies do not show them and \
                     no snapshot of the state before holds the object (--snapshot/-f)"
                        .to_owned(),
                );
            }
        };
        let removed = (!a.removed_ref.is_empty()).then(|| self.f.rec.str(a.removed_ref));
        let refs: Vec<RefText<'_>> = match removed {
            Some(u) => shown.refs.iter().copied().filter(|r| r.uid == u).collect(),
            None => shown.refs.clone(),
        };
        if refs.is_empty() {
            let from = shown.from;
            return Cause::unknown(match (removed, shown.refs.is_empty()) {
                (Some(u), false) => {
                    format!("{from} shows no ownerReference with UID {u}: its owner is unknown")
                }
                _ if shown.dependent.is_some() => format!(
                    "{from} shows no ownerReference on it: the GC acted on references added \
                     after the snapshot"
                ),
                _ => format!("{from} shows no ownerReference on it: its owners are unknown"),
            });
        }
        // Each owner's fate; the cause is the latest deletion among them, else the most telling
        // of the others, whatever their order. The GC deletes an object only when no owner is
        // solid, so for a delete an owner found present (`unexplained`) outweighs the rest; it
        // removes a reference when its owner is gone and another remains, so there an owner
        // proven absent (or elsewhere) outweighs an unknown one, and both a present one.
        let deleting = it.action == Verb::Delete;
        let rank = |c: &Cause| match (c.type_, deleting) {
            (CauseKind::Unexplained, true) => 3,
            (CauseKind::Unexplained, false) => 0,
            (CauseKind::Unknown, _) => 1,
            _ => 2,
        };
        let mut best: Option<(i64, Cause)> = None;
        let mut notes: Vec<String> = Vec::new();
        for r in &refs {
            let Some(owner) = self.f.owner_obj(&it.object.namespace, *r) else {
                notes.push(format!(
                    "{}/{} ({}): a kind kubectl-gc cannot map to a resource",
                    r.kind, r.name, r.api_version
                ));
                continue;
            };
            match self.deleted_owner(i, &owner, r, shown.created_us, depth) {
                Ok((t, c)) => {
                    if best.as_ref().is_none_or(|(bt, _)| t > *bt) {
                        best = Some((t, c));
                    }
                    continue;
                }
                Err(Some(note)) => notes.push(note),
                Err(None) => {}
            }
            if best.as_ref().is_some_and(|(t, _)| *t > i64::MIN) {
                continue;
            }
            let c = self.absent_owner(i, &owner, *r, shown.dependent);
            if best.as_ref().is_none_or(|(_, b)| rank(&c) > rank(b)) {
                best = Some((i64::MIN, c));
            }
        }
        match best {
            Some((_, mut c)) => {
                if !notes.is_empty() {
                    c.detail.push_str(&format!("; {}", notes.join("; ")));
                }
                c
            }
            None => Cause::unknown(notes.join("; ")),
        }
    }

    /// An owner of item `i` the log shows deleted before the GC acted, and after the
    /// dependent was created (`created_us`: a deletion before the dependent existed is not
    /// what the GC acted on — the dependent was born pointing at a UID no object had): the
    /// deletion's time and the cause. `Err(Some(note))`: such a deletion came before the
    /// dependent, said in the detail.
    fn deleted_owner(
        &self,
        i: usize,
        owner: &ObjectRef,
        r: &RefText<'_>,
        created_us: Option<i64>,
        depth: usize,
    ) -> Result<(i64, Cause), Option<String>> {
        let items = self.items();
        let it = &items[i];
        let d = self.f.deletion_before(owner, it.time_us, i).ok_or(None)?;
        let del = &items[d];
        if let Some(c) = created_us
            && del.time_us < c
        {
            return Err(Some(format!(
                "{} was deleted at {}, before this object was created at {}: not the owner it \
                 was created with",
                owner.display(),
                del.time,
                format_us(c)
            )));
        }
        let deleted_uid = del.object.uid.as_str();
        let stale = !deleted_uid.is_empty() && deleted_uid != r.uid;
        let p = self.policy_of(d);
        let orphaned = it.action == Verb::RemoveOwnerReferences && p.policy == Policy::Orphan;
        let (kind, detail) = if stale {
            (
                CauseKind::OwnerUidMismatch,
                format!(
                    "the reference names UID {} but the {} deleted at {} had UID {}",
                    r.uid,
                    owner.display(),
                    del.time,
                    deleted_uid
                ),
            )
        } else if orphaned {
            (
                CauseKind::Orphaned,
                format!(
                    "its owner {} was deleted at {} by {} with propagationPolicy=Orphan{}: the \
                     GC removed the reference instead of deleting it",
                    owner.display(),
                    del.time,
                    del.actor.display(),
                    p.how()
                ),
            )
        } else {
            (
                CauseKind::OwnerDeleted,
                format!(
                    "its owner {} was deleted at {} by {} (propagationPolicy {}{})",
                    owner.display(),
                    del.time,
                    del.actor.display(),
                    p.policy.as_str(),
                    p.how()
                ),
            )
        };
        let mut c = Cause::new(kind, Some(owner.clone()), detail);
        // A deletion of another object of the owner's name is not the chain's start.
        if !stale {
            (c.policy, c.policy_inferred) = (p.policy, p.inferred);
            c.root = self.root(d, depth);
        }
        Ok((del.time_us, c))
    }
}
