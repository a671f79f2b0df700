//! The one judgement of an ownerReference, on the GC model: for each reference the GC does not
//! accept as it stands, the kind of break (its [`Code`]), how bad it is, what the GC does about
//! it, the evidence and whether it is proven or inferred, and the remedies on the object that
//! carries the reference. `audit`, `why`, `check`, `watch` and `admit` render this value; this
//! is the only place a reference's classification becomes words (the remedy catalogue words
//! the fixes).

pub mod place;

use super::code::{Code, Severity};
use super::finding::Finding;
use super::remedy::{self, Remedy};
use super::timeline::Timing;
use crate::gc::plan::{Action, Verb};
use crate::gc::{GarbageCollector, RefClass, State, Verdict};
use crate::model::{ObjId, OwnerRef, Sym};
use crate::snapshot::SourceKind;
use place::{Break, SourceUids, break_of};
use std::collections::HashMap;

/// What the judgement rests on (`why`'s JSON prints it per reference).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Evidence {
    /// True when what was read proves it; false when it is inferred (from files taken to be
    /// complete, or from what an apply will create).
    pub proven: bool,
    /// What it rests on, in words.
    pub basis: String,
}

/// The judgement of one reference.
#[derive(Clone, Debug)]
pub struct Judgement {
    /// The kind of break.
    pub brk: Break,
    /// Its code.
    pub code: Code,
    /// How bad it is for this object.
    pub severity: Severity,
    /// The GC's classification label (`dangling`, `waiting`, …).
    pub class: &'static str,
    /// What the GC does with the object because of it.
    pub consequence: String,
    /// What is wrong, in the clause every command prints (`why`'s verdict and `admit`'s
    /// messages print only this).
    pub summary: String,
    /// What is wrong, in full: the summary, and what follows from it (`audit`'s message,
    /// `why`'s detail of the reference).
    pub message: String,
    /// Other objects involved: the one the UID belongs to, the one found by name, the owner.
    pub related: Vec<ObjId>,
    /// What it rests on.
    pub evidence: Evidence,
    /// The fixes, on the object that carries the reference, safest first.
    pub remedies: Vec<Remedy>,
    /// When the GC acts on it, and why then: the timeline's ([`super::timeline`]), where the
    /// caller has one (`None` until it is stamped: the judgement never words *when* itself).
    pub when: Option<Timing>,
}

impl Judgement {
    /// The finding of this judgement about reference `r` of object `id`.
    pub fn finding(self, id: ObjId, r: &OwnerRef) -> Finding {
        let mut f = Finding::new(self.code, self.severity, id, self.consequence, self.message)
            .with_ref(*r, Some(self.class))
            .with_related(self.related)
            .with_remedies(self.remedies);
        f.when = self.when;
        f
    }
}

/// What a reference of a healthy owner means, for the views that list every reference.
pub const SOLID: &str = "the owner exists with this UID";

/// Judges the references of one state of the cluster.
pub struct Judge<'a, 's> {
    gc: &'a GarbageCollector<'s>,
    state: &'a State,
    /// GC 1.20 (kubernetes#98040): per virtual owner UID, a cluster-scoped dependent of it.
    siblings: HashMap<Sym, ObjId>,
    source: Option<&'a SourceUids>,
}

impl<'a, 's> Judge<'a, 's> {
    /// A judge of `state` (the snapshot's initial state for every view of the input).
    pub fn new(gc: &'a GarbageCollector<'s>, state: &'a State) -> Judge<'a, 's> {
        Judge {
            gc,
            state,
            siblings: cluster_scoped_dependents_of_virtual_owners(gc),
            source: None,
        }
    }

    /// For an input created anew (`check apply`): where each UID was in the source.
    pub fn with_source(mut self, source: &'a SourceUids) -> Judge<'a, 's> {
        self.source = Some(source);
        self
    }

    /// The break of reference `r` of `id` classified `class`, `None` when solid.
    pub fn break_of(&self, id: ObjId, r: &OwnerRef, class: &RefClass) -> Option<Break> {
        break_of(self.gc, id, r, class, self.source)
    }

    /// Classifies reference `r` of `id` and judges it; `None` when solid.
    pub fn judge(&self, id: ObjId, r: &OwnerRef) -> Option<Judgement> {
        let class = self.gc.classify_reference(self.state, id, r);
        if matches!(class, RefClass::Solid { .. }) {
            return None;
        }
        let verdict = self.gc.attempt_to_delete_item(self.state, id);
        self.reference(id, r, &class, &verdict)
    }

    /// The judgement of reference `r` of `id`, which the GC classified `class` and whose object
    /// gets `verdict`; `None` for a solid reference.
    pub fn reference(
        &self,
        id: ObjId,
        r: &OwnerRef,
        class: &RefClass,
        verdict: &Verdict,
    ) -> Option<Judgement> {
        let brk = self.break_of(id, r, class)?;
        let (consequence, deletes) = self.consequence(id, &brk, verdict);
        let code = brk.code();
        let (summary, explained) = self.words(id, r, &brk);
        Some(Judgement {
            code,
            severity: severity(&brk, deletes),
            class: class.label(),
            consequence,
            message: match &explained {
                Some(more) => format!("{summary}; {more}"),
                None => summary.clone(),
            },
            summary,
            related: self.related(r, &brk),
            evidence: self.evidence(id, r, &brk),
            remedies: remedy::for_break(self.gc, self.state, id, r, &brk),
            when: None,
            brk,
        })
    }

    /// Why the GC takes `act`: the judgement's summary where a reference of its target that
    /// the GC counts as dangling decides it (a deletion, a stripped reference), else the plan's
    /// own reason (a cascade, a foreground deletion, a finalizer).
    pub fn action_reason(&self, act: &Action) -> String {
        if !matches!(act.verb, Verb::Delete | Verb::RemoveOwnerReferences) {
            return act.detail.clone();
        }
        let id = act.target;
        for r in self.state.owner_refs(&self.gc.snap.store, id) {
            if act.verb == Verb::RemoveOwnerReferences && !act.owner_refs.contains(&r.uid) {
                continue;
            }
            let class = self.gc.classify_reference(self.state, id, r);
            if let Some(brk) = self.break_of(id, r, &class)
                && brk.owner_gone()
                && !matches!(brk, Break::Waiting { .. })
            {
                return self.words(id, r, &brk).0;
            }
        }
        act.detail.clone()
    }

    /// GC022 for an owner name that is not a path segment but that the GC resolves anyway
    /// (the reference's own class says what its request reaches).
    pub fn name_not_requestable(&self, id: ObjId, r: &OwnerRef, class: &RefClass) -> Finding {
        let gc = self.gc;
        let store = &gc.snap.store;
        let name = store.str(r.name);
        let consequence = match class {
            RefClass::Solid { owner } | RefClass::Waiting { owner } => format!(
                "the GC's request for this owner reaches {} (same UID): it counts as present",
                gc.snap.describe(*owner)
            ),
            RefClass::Dangling(_) => {
                "the GC's request for this owner reaches another path and finds nothing with its UID: it counts as absent".into()
            }
            RefClass::Unknown { reason } => format!("unknown: {reason}"),
            _ => "the GC never resolves this owner".into(),
        };
        Finding::new(
            Code::OwnerNameNotRequestable,
            Severity::Warning,
            id,
            consequence,
            format!(
                "owner name {name:?} is not a valid path segment ('.', '..', '/' or '%'): the GC's metadata client joins it into the request path, so it is never requested as named"
            ),
        )
        .with_ref(*r, Some(class.label()))
    }

    /// What the GC does with the object because of the break, and whether that is deleting it.
    fn consequence(&self, id: ObjId, brk: &Break, verdict: &Verdict) -> (String, bool) {
        match brk {
            Break::Waiting { .. } => (waiting_consequence(verdict), false),
            Break::Absent
            | Break::Recreated { .. }
            | Break::Misnamed { .. }
            | Break::OtherNamespace { .. } => match verdict {
                Verdict::Unknown { reason } if !self.gc.graph.monitors(id) => {
                    (format!("unknown: {reason}"), false)
                }
                _ => dangling_consequence(verdict),
            },
            Break::InvalidScope => (
                "the GC drops this object and never collects it".into(),
                false,
            ),
            Break::Unresolvable { .. } => (
                "the GC retries this object forever (REST mapping fails) and never collects it"
                    .into(),
                false,
            ),
            Break::Unrequestable { .. } => (
                "the GC retries this object forever (its GET of the owner fails) and never \
                 collects it"
                    .into(),
                false,
            ),
            Break::Unknown { .. } => (
                format!(
                    "unknown: {} cannot tell whether the GC keeps or collects this object",
                    // Said of what was given: files are not a snapshot of the cluster.
                    match self.gc.snap.provenance.source {
                        SourceKind::Files => "the input files",
                        SourceKind::Live => "what was read from the cluster",
                    }
                ),
                false,
            ),
        }
    }

    /// What is wrong: the clause every command prints (`summary`), and what follows from it
    /// where there is more to say.
    fn words(&self, id: ObjId, r: &OwnerRef, brk: &Break) -> (String, Option<String>) {
        let gc = self.gc;
        let snap = gc.snap;
        let store = &snap.store;
        let reference = ref_text(gc, r);
        let named = format!("{}/{}", store.str(r.kind), store.str(r.name));
        match brk {
            Break::Waiting { .. } => (
                format!("owner {reference} is being deleted in the foreground"),
                None,
            ),
            Break::Absent => self.absent_words(id, r, &reference),
            Break::Recreated { found } => {
                let uid = store.str(store.object(*found).uid);
                if super::apply::is_placeholder_uid(uid) {
                    (
                        format!(
                            "owner {reference} is not the one the apply creates: {} gets a new \
                             UID",
                            snap.describe(*found)
                        ),
                        None,
                    )
                } else {
                    (
                        format!(
                            "owner {reference} was recreated: {} exists with uid {uid}",
                            snap.describe(*found)
                        ),
                        None,
                    )
                }
            }
            Break::Misnamed { holder } => (
                format!(
                    "the reference's UID belongs to {}, but the reference names {named}",
                    snap.describe(*holder)
                ),
                Some("looked up by kind and name, the owner is absent".to_owned()),
            ),
            Break::OtherNamespace { holder, found } => {
                let ns = store.str(store.object(id).namespace);
                let here = if ns.is_empty() {
                    "at cluster scope".to_owned()
                } else {
                    format!("in namespace {ns:?}")
                };
                let finds = match found {
                    Some(f) => format!("finds {} under another UID", snap.describe(*f)),
                    None => "finds nothing".to_owned(),
                };
                let mut then = format!(
                    "the GC looks for {named} only {here}, {finds} and treats the owner as absent"
                );
                // The GC sees the UID in another namespace only where its graph holds it (not
                // for an owner an apply creates anew).
                if gc.rules.emits_invalid_namespace_events() && store.by_uid(r.uid) == Some(*holder)
                {
                    then.push_str("; the GC records an OwnerRefInvalidNamespace event");
                }
                (
                    format!(
                        "the reference's UID belongs to {}, in another namespace, and an \
                         ownerReference cannot cross namespaces",
                        snap.describe(*holder)
                    ),
                    Some(then),
                )
            }
            Break::InvalidScope => (
                format!("cluster-scoped object names a namespaced owner {reference}"),
                Some("owners of cluster-scoped objects must be cluster-scoped".to_owned()),
            ),
            Break::Unresolvable { reason } | Break::Unrequestable { reason } => {
                (format!("owner {reference}: {reason}"), None)
            }
            Break::Unknown { reason } => {
                (format!("cannot check owner {reference}: {reason}"), None)
            }
        }
    }

    fn absent_words(&self, id: ObjId, r: &OwnerRef, reference: &str) -> (String, Option<String>) {
        let gc = self.gc;
        let o = gc.snap.store.object(id);
        let namespaced = !o.namespace.is_empty() && owner_kind_namespaced(gc, r);
        let summary = if namespaced {
            format!(
                "owner {reference} does not exist in namespace {:?}",
                gc.snap.store.str(o.namespace)
            )
        } else {
            format!("owner {reference} does not exist")
        };
        let stranded = self
            .siblings
            .get(&r.uid)
            .filter(|_| namespaced)
            .map(|&sibling| {
                format!(
                    "GC 1.20 may never collect it: {} references the same missing owner, and if \
                 the GC observed it first the owner's virtual node has no namespace and is never \
                 verified for namespaced dependents (kubernetes#98040, fixed in 1.20.3)",
                    gc.snap.describe(sibling)
                )
            });
        (summary, stranded)
    }

    fn related(&self, r: &OwnerRef, brk: &Break) -> Vec<ObjId> {
        match brk {
            Break::Waiting { owner } => vec![*owner],
            Break::Recreated { found } => vec![*found],
            Break::Misnamed { holder } => vec![*holder],
            Break::OtherNamespace { holder, .. } => vec![*holder],
            Break::InvalidScope => self.gc.snap.store.by_uid(r.uid).into_iter().collect(),
            _ => Vec::new(),
        }
    }

    fn evidence(&self, id: ObjId, r: &OwnerRef, brk: &Break) -> Evidence {
        let snap = self.gc.snap;
        let store = &snap.store;
        let created = |o: ObjId| super::apply::is_placeholder_uid(store.str(store.object(o).uid));
        let files = snap.provenance.source == SourceKind::Files;
        let (proven, basis) = match brk {
            Break::Misnamed { holder } | Break::OtherNamespace { holder, .. } => (
                !created(*holder) && store.by_uid(r.uid) == Some(*holder),
                if store.by_uid(r.uid) == Some(*holder) {
                    format!(
                        "the input holds {} with the reference's UID",
                        snap.describe(*holder)
                    )
                } else {
                    format!(
                        "the input names {} with the reference's UID, and the apply creates it \
                         anew",
                        snap.describe(*holder)
                    )
                },
            ),
            Break::Recreated { found } if created(*found) => (
                false,
                format!("the apply creates {} with a new UID", snap.describe(*found)),
            ),
            Break::Absent | Break::Recreated { .. } if files => (
                false,
                format!(
                    "the input files are taken to hold every {} {}",
                    store.str(r.kind),
                    match store.str(store.object(id).namespace) {
                        "" => "there is".to_owned(),
                        ns => format!("in namespace {ns}"),
                    }
                ),
            ),
            Break::Absent | Break::Recreated { .. } if let Some(read) = namespaces_read(snap) => (
                false,
                format!(
                    "the GC's own lookup of the owner finds no object with the reference's UID \
                     in what was read, but the read covered only {read}: the UID may be an \
                     object's in a namespace not read (a cross-namespace owner, GC004); read \
                     every namespace (-A) to tell"
                ),
            ),
            Break::Unknown { reason } => (false, reason.clone()),
            _ => (
                true,
                "the GC's own lookup of the owner, on what was read".to_owned(),
            ),
        };
        Evidence { proven, basis }
    }
}

/// The namespaces a namespace-limited read covered, as words (`None`: every namespaced
/// resource was read in every namespace). A UID no object read holds may then be an object's
/// in a namespace not read, so a break found on that read is not proven to be GC001/GC002.
fn namespaces_read(snap: &crate::snapshot::Snapshot) -> Option<String> {
    let mut read: Vec<&str> = Vec::new();
    for r in &snap.resources {
        if let crate::snapshot::ListOutcome::Partial { namespaces } = &r.list {
            read.extend(
                namespaces
                    .iter()
                    .map(String::as_str)
                    .filter(|n| !n.is_empty()),
            );
        }
    }
    if read.is_empty() {
        return None;
    }
    read.sort_unstable();
    read.dedup();
    Some(match read.as_slice() {
        [one] => format!("namespace {one}"),
        few if few.len() <= 3 => format!("namespaces {}", few.join(", ")),
        many => format!(
            "namespaces {}, … ({} in all)",
            many[..3].join(", "),
            many.len()
        ),
    })
}

/// The reference findings of the applied cluster judged again with the input's own UIDs
/// (`diagnose::apply::source_uids`): a reference whose owner nothing in the applied cluster holds, but whose
/// UID an input object held in the source, is judged against that object — GC004 when it is in
/// another namespace, GC003 when the reference names it by another kind or name.
pub fn rejudge_with_source(
    gc: &GarbageCollector<'_>,
    findings: &mut [Finding],
    source: &SourceUids,
) {
    let state = gc.initial_state();
    let judge = Judge::new(gc, &state).with_source(source);
    for f in findings.iter_mut() {
        let (Code::DanglingOwner, Some(id), Some(r)) = (f.code, f.object, f.owner_ref) else {
            continue;
        };
        let class = gc.classify_reference(&state, id, &r);
        let verdict = gc.attempt_to_delete_item(&state, id);
        if let Some(j) = judge.reference(id, &r, &class, &verdict)
            && j.code != f.code
        {
            *f = j.finding(id, &r);
        }
    }
}

/// How bad a break is, given whether the GC deletes the object for it: a plain missing owner
/// is ordinary garbage; a reference that points at a live object is a bug that deletes
/// something someone meant to keep.
fn severity(brk: &Break, deletes: bool) -> Severity {
    match (brk, deletes) {
        (Break::OtherNamespace { .. } | Break::Misnamed { .. }, true) => Severity::Critical,
        (Break::Absent | Break::Recreated { .. }, true) => Severity::Error,
        (Break::OtherNamespace { .. } | Break::Misnamed { .. }, false) => Severity::Error,
        (Break::Absent | Break::Recreated { .. }, false) => Severity::Warning,
        (Break::Waiting { .. } | Break::Unknown { .. }, _) => Severity::Info,
        (Break::InvalidScope | Break::Unresolvable { .. } | Break::Unrequestable { .. }, _) => {
            Severity::Warning
        }
    }
}

fn waiting_consequence(verdict: &Verdict) -> String {
    match verdict {
        Verdict::RemoveRefs { .. } => {
            "the GC will strip this reference (another owner is valid)".into()
        }
        Verdict::Delete { policy, .. } => format!(
            "the GC will delete this object (propagationPolicy={}) as part of its owner's \
             foreground deletion",
            policy.as_str()
        ),
        _ => "the owner waits for this object".into(),
    }
}

/// What the GC does to the object because of a dangling reference, and whether it deletes it.
fn dangling_consequence(verdict: &Verdict) -> (String, bool) {
    match verdict {
        Verdict::Delete { policy, .. } => (
            format!(
                "the GC will delete this object (propagationPolicy={})",
                policy.as_str()
            ),
            true,
        ),
        Verdict::RemoveRefs { .. } => (
            "the GC will strip this reference (the object has another, valid owner)".into(),
            false,
        ),
        Verdict::Terminating => ("none while the object is terminating".into(), false),
        Verdict::NeverCollected { reason, .. } => (
            format!("none: another reference stops the GC from acting on this object ({reason})"),
            false,
        ),
        Verdict::Unknown { reason } => (
            format!("the GC will delete this object if its other owners are gone too ({reason})"),
            false,
        ),
        _ => ("the GC will act on this reference".into(), false),
    }
}

/// `apiVersion Kind/name (uid UID)`: the reference as written.
fn ref_text(gc: &GarbageCollector<'_>, r: &OwnerRef) -> String {
    let store = &gc.snap.store;
    format!(
        "{} {}/{} (uid {})",
        store.str(r.api_version),
        store.str(r.kind),
        store.str(r.name),
        store.str(r.uid)
    )
}

fn owner_kind_namespaced(gc: &GarbageCollector<'_>, r: &OwnerRef) -> bool {
    match gc.rest_mapper.map(gc.snap, r.api_version, r.kind) {
        crate::gc::rest_mapper::Mapping::Resolved(gr) => gc.rest_mapper.gr(gr).namespaced,
        _ => true,
    }
}

/// GC 1.20 only (kubernetes#98040): for each virtual owner UID, a cluster-scoped dependent
/// of it, if any (observed first, it leaves the owner's virtual node without a namespace).
/// One pass over the virtual nodes' dependents; empty for other GC versions.
fn cluster_scoped_dependents_of_virtual_owners(gc: &GarbageCollector<'_>) -> HashMap<Sym, ObjId> {
    let store = &gc.snap.store;
    if !gc.rules.namespace_less_virtual_owner_strands() {
        return HashMap::new();
    }
    gc.graph
        .virtual_nodes()
        .filter_map(|v| {
            let first = gc
                .graph
                .dependents(v)
                .iter()
                .filter_map(|&d| gc.graph.object(d))
                .find(|&d| store.object(d).namespace.is_empty())?;
            Some((gc.graph.node(v).id.uid, first))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::KubeVersion;
    use crate::snapshot::ListOutcome;
    use crate::testkit::Cluster;

    /// The evidence of `dep`'s reference to an owner whose UID nothing read holds.
    fn evidence_of(partial: bool) -> Evidence {
        let mut c = Cluster::new();
        c.server_version("v1.20.2");
        c.obj("v1", "ConfigMap", "start", "dep", "u-dep")
            .owner("v1", "ConfigMap", "far", "u-far");
        if partial {
            c.outcome(
                "",
                "configmaps",
                ListOutcome::Partial {
                    namespaces: vec!["start".into()],
                },
            );
        }
        let snap = c.build();
        let gc = GarbageCollector::new(&snap, KubeVersion::v1(20));
        let state = gc.initial_state();
        let id = snap.store.by_uid_text("u-dep").unwrap();
        let r = snap.store.owner_refs(id)[0];
        let j = Judge::new(&gc, &state).judge(id, &r).expect("broken");
        assert_eq!(j.code, Code::DanglingOwner);
        j.evidence
    }

    #[test]
    fn an_absent_owner_is_proven_only_by_a_read_of_every_namespace() {
        assert!(evidence_of(false).proven);
        // Read in `start` alone: the UID may be an object's elsewhere (GC004).
        let e = evidence_of(true);
        assert!(!e.proven, "{e:?}");
        assert!(
            e.basis.contains("the read covered only namespace start")
                && e.basis.contains("read every namespace (-A)"),
            "{e:?}"
        );
    }
}
