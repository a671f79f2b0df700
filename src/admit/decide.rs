//! What the webhook answers: first the fast paths that admit a write without looking at the
//! graph ([`triage`]), then the GC's verdict on each reference the write adds ([`check`]).
//!
//! A webhook must never stand in the way of a write it does not mean to judge, least of all
//! the GC's own: the GC's and the namespace controller's writes, and any write that adds no
//! ownerReference (removing references or finalizers, relabelling, status updates), are
//! admitted before anything else is read.

use super::clip;
use super::review::Request;
use crate::diagnose::remedy;
use crate::gc::{Dangling, GarbageCollector, RefClass, Verdict};
use crate::model::{MetaIn, ObjId, OwnerRefIn, ResourceId, Sym};
use crate::snapshot::ListOutcome;
use crate::watch::Engine;
use hashbrown::HashSet;
use std::borrow::Cow;

/// Warn (admit, with warnings) or deny (refuse with the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Admitted, with AdmissionReview `warnings` (kubectl prints them).
    Warn,
    /// Refused with the messages.
    Deny,
}

/// The identities whose writes are admitted at once: the GC's and the namespace controller's
/// service accounts (kube-controller-manager with `--use-service-account-credentials`), and
/// kube-controller-manager's own identity (without it).
pub const CONTROL_PLANE_USERS: [&str; 3] = [
    "system:serviceaccount:kube-system:generic-garbage-collector",
    "system:serviceaccount:kube-system:namespace-controller",
    "system:kube-controller-manager",
];

/// The label that exempts an object (`kubectl-gc.io/admit: skip`).
pub const SKIP_LABEL: (&str, &str) = ("kubectl-gc.io/admit", "skip");

/// Which writes are judged, and how.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Warn or deny.
    pub mode: Mode,
    /// Only these namespaces (empty: every namespace, and cluster-scoped objects).
    pub namespaces: Vec<String>,
    /// Never these namespaces.
    pub exclude_namespaces: Vec<String>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            mode: Mode::Warn,
            namespaces: Vec::new(),
            exclude_namespaces: Vec::new(),
        }
    }
}

/// Why a write was admitted without a look at the graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Not a CREATE or UPDATE.
    Operation,
    /// The GC, the namespace controller, or kube-controller-manager.
    ControlPlane,
    /// The namespace is not opted in, or is opted out.
    Namespace,
    /// The object carries [`SKIP_LABEL`].
    Label,
    /// The write adds no ownerReference.
    NoNewReferences,
    /// The GC does not monitor the object's resource: it never acts on its references.
    NotMonitored,
}

impl Skip {
    /// The metrics label.
    pub fn label(self) -> &'static str {
        match self {
            Skip::Operation => "operation",
            Skip::ControlPlane => "control-plane",
            Skip::Namespace => "namespace",
            Skip::Label => "label",
            Skip::NoNewReferences => "no-new-references",
            Skip::NotMonitored => "not-monitored",
        }
    }
}

/// The indexes (into the new object's ownerReferences) of the references the write adds: a
/// reference is new unless the old object has one with the same apiVersion, kind, name and UID.
pub fn triage(req: &Request<'_>, policy: &Policy) -> Result<Vec<usize>, Skip> {
    if req.operation != "CREATE" && req.operation != "UPDATE" {
        return Err(Skip::Operation);
    }
    if CONTROL_PLANE_USERS.contains(&req.user_info.username.as_ref()) {
        return Err(Skip::ControlPlane);
    }
    let ns = req.namespace.as_ref();
    if (!policy.namespaces.is_empty() && !policy.namespaces.iter().any(|n| n == ns))
        || policy.exclude_namespaces.iter().any(|n| n == ns)
    {
        return Err(Skip::Namespace);
    }
    let Some(new) = &req.object else {
        return Err(Skip::NoNewReferences);
    };
    let skip_label = |m: &MetaIn<'_>| {
        m.labels
            .0
            .iter()
            .any(|(k, v)| k == SKIP_LABEL.0 && v == SKIP_LABEL.1)
    };
    if skip_label(&new.metadata) {
        return Err(Skip::Label);
    }
    let same = |a: &OwnerRefIn<'_>, b: &OwnerRefIn<'_>| {
        a.uid == b.uid && a.name == b.name && a.kind == b.kind && a.api_version == b.api_version
    };
    let old: &[OwnerRefIn<'_>] = req
        .old_object
        .as_ref()
        .map_or(&[], |o| &o.metadata.owner_references);
    let added: Vec<usize> = new
        .metadata
        .owner_references
        .iter()
        .enumerate()
        .filter(|(_, r)| !old.iter().any(|o| same(o, r)))
        .map(|(i, _)| i)
        .collect();
    if added.is_empty() {
        return Err(Skip::NoNewReferences);
    }
    Ok(added)
}

/// What the checks found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// One whole sentence (or two) per broken reference: the owner, what the GC will do, the fix.
    pub problems: Vec<String>,
    /// References the graph cannot judge (a resource that could not be listed, …): unknown is
    /// never taken for absent, so these are admitted without a word.
    pub unknown: usize,
    /// The GC does not monitor the object's resource.
    pub not_monitored: bool,
    /// A problem says an owner is absent or has another UID: an owner created a moment before
    /// this write (a controller creating an object and then its dependents) may not have
    /// reached the graph yet, so such a verdict is checked again after a short wait.
    pub absence: bool,
}

/// The UID the object under review gets in the snapshot when the request carries none (a
/// CREATE): not a UID any object can hold (it has a `/`).
const NEW_OBJECT_UID: &str = "kubectl-gc/admit/new-object";

/// The row of the resource table the request's resource is listed under.
fn resource_row(engine: &Engine, req: &Request<'_>) -> Option<ResourceId> {
    let rows = engine.world().resources();
    let (g, v, p) = (
        req.resource.group.as_ref(),
        req.resource.version.as_ref(),
        req.resource.resource.as_ref(),
    );
    let exact = rows
        .iter()
        .position(|r| r.group == g && r.version == v && r.plural == p);
    let any_version = || rows.iter().position(|r| r.group == g && r.plural == p);
    exact.or_else(any_version).map(|i| ResourceId(i as u32))
}

/// The GC's verdict on the references `added` (from [`triage`]) of the request's object,
/// judged on the engine's graph.
pub fn check(engine: &Engine, req: &Request<'_>, added: &[usize]) -> Checked {
    let mut out = Checked::default();
    let Some(object) = &req.object else {
        return out;
    };
    let world = engine.world();
    let Some(row) = resource_row(engine, req) else {
        out.not_monitored = true;
        return out;
    };
    if matches!(
        world.resources()[row.index()].list,
        ListOutcome::Ignored { .. }
    ) {
        out.not_monitored = true;
        return out;
    }
    // The object as the write leaves it, where the API server puts it.
    let mut meta = object.metadata.clone();
    meta.namespace = Cow::Borrowed(req.namespace.as_ref());
    if meta.name.is_empty() {
        meta.name = Cow::Borrowed(if req.name.is_empty() {
            "(generated)"
        } else {
            req.name.as_ref()
        });
    }
    if meta.uid.is_empty() {
        meta.uid = Cow::Borrowed(NEW_OBJECT_UID);
    }
    let own_uid = world.sym(&meta.uid);
    // What an owner lookup can reach: the owner by name, in the object's namespace and at
    // cluster scope, and whatever holds each reference's UID (a misdirected reference).
    let mut reach: HashSet<Sym> = HashSet::new();
    let ns = world.sym(&meta.namespace);
    for r in &meta.owner_references {
        if let Some(name) = world.sym(&r.name) {
            if let Some(ns) = ns {
                reach.extend(world.named(ns, name).iter().copied());
            }
            reach.extend(world.named(Sym::EMPTY, name).iter().copied());
        }
        if let Some(uid) = world.sym(&r.uid)
            && world.get(uid).is_some()
        {
            reach.insert(uid);
        }
    }
    if let Some(own) = own_uid {
        reach.remove(&own);
    }
    let uids: Vec<Sym> = reach.into_iter().collect();
    let (snap, _) = world.mini_with(&uids, Some((row, &meta)));
    let Some(dep) = snap.store.by_uid_text(&meta.uid) else {
        out.not_monitored = true;
        return out;
    };
    let gc = GarbageCollector::new(&snap, engine.gc_version());
    let state = gc.initial_state();
    let mut classes = Vec::new();
    let verdict = gc.attempt_to_delete_item_classified_into(&state, dep, &mut classes);
    let refs = snap.store.owner_refs(dep);
    let ctx = Ctx {
        gc: &gc,
        dep,
        verdict: &verdict,
        namespace: &meta.namespace,
    };
    for &i in added {
        let (Some(r), Some(class)) = (refs.get(i), classes.get(i)) else {
            continue;
        };
        match ctx.problem(r, class) {
            Some(p) => {
                out.absence |= matches!(class, RefClass::Dangling(_))
                    && gc.misdirected(&state, dep, r).is_none();
                out.problems.push(p);
            }
            None if matches!(class, RefClass::Unknown { .. }) => out.unknown += 1,
            None => {}
        }
    }
    if let Some(p) = conflicting_duplicates(&meta.owner_references, added) {
        out.problems.push(p);
    }
    out
}

struct Ctx<'a, 'g> {
    gc: &'a GarbageCollector<'g>,
    dep: ObjId,
    verdict: &'a Verdict,
    namespace: &'a str,
}

impl Ctx<'_, '_> {
    fn text(&self, s: Sym) -> String {
        clip(self.gc.snap.store.str(s))
    }

    /// What the GC does to the object, as the end of a sentence.
    fn consequence(&self, uid: Sym) -> String {
        // When: the timeline's, for a reference being written (an owner UID no object
        // holds is verified at once; one at other coordinates from 1.20).
        let absent = self.gc.snap.store.by_uid(uid).is_none_or(|h| h == self.dep);
        let when = crate::diagnose::timeline::of_write(self.gc, absent);
        match self.verdict {
            Verdict::Delete { .. } => format!("the GC will delete this object{}", when.clause()),
            Verdict::RemoveRefs { uids, .. } if uids.contains(&uid) => {
                format!("the GC will remove this ownerReference{}", when.clause())
            }
            Verdict::NeverCollected { .. } => "the GC will never collect this object".into(),
            _ => "the GC will not keep this ownerReference as written".into(),
        }
    }

    /// One message: what is wrong and what the GC does, then the fix. The fix is the remedy
    /// catalogue's for a write ([`remedy::for_write`]), so `why` and `admit` say the same;
    /// `fallback` where the catalogue has no edit of the object to offer.
    fn problem(&self, r: &crate::model::OwnerRef, class: &RefClass) -> Option<String> {
        let store = &self.gc.snap.store;
        let owner = format!("{} \"{}\"", self.text(r.kind), self.text(r.name));
        let uid = self.text(r.uid);
        let here = if self.namespace.is_empty() {
            "at cluster scope".to_owned()
        } else {
            format!("in namespace {}", clip(self.namespace))
        };
        let (what, fallback) = match class {
            RefClass::Solid { .. } | RefClass::Unknown { .. } => return None,
            RefClass::Waiting { .. } => (
                format!(
                    "ownerReference to {owner}: the owner is being deleted in the foreground, so {}",
                    self.consequence(r.uid)
                ),
                "reference an owner that is not being deleted".to_owned(),
            ),
            RefClass::Dangling(d) => {
                let then = self.consequence(r.uid);
                let holder = self
                    .gc
                    .misdirected(&self.gc.initial_state(), self.dep, r)
                    .map(|h| store.object(h));
                match (holder, d) {
                    (Some(h), _) if store.str(h.namespace) != self.namespace => {
                        let hns = self.text(h.namespace);
                        let hname = self.text(h.name);
                        if hns.is_empty() {
                            (
                                format!(
                                    "ownerReference to {owner}: uid {uid} is the cluster-scoped \
                                     \"{hname}\", which the GC does not find under this kind and \
                                     name, so {then}"
                                ),
                                "copy the owner's apiVersion, kind and name exactly".to_owned(),
                            )
                        } else {
                            (
                                format!(
                                    "ownerReference to {owner}: uid {uid} is {hns}/{hname}, in \
                                     another namespace than this object, and the GC looks owners \
                                     up only in the object's own namespace, so {then}"
                                ),
                                format!(
                                    "create this object in namespace {hns}, or drop the reference"
                                ),
                            )
                        }
                    }
                    (Some(h), _) => (
                        format!(
                            "ownerReference to {owner}: uid {uid} belongs to \"{}\", not to an \
                             object of this kind and name, so {then}",
                            self.text(h.name)
                        ),
                        "copy the owner's apiVersion, kind and name exactly".to_owned(),
                    ),
                    (None, Dangling::UidMismatch { found }) => (
                        format!(
                            "ownerReference to {owner}: the owner {here} has uid {}, not {uid} \
                             (a stale uid), so {then}",
                            self.text(store.object(*found).uid),
                        ),
                        format!(
                            "set the reference's uid to {}",
                            self.text(store.object(*found).uid)
                        ),
                    ),
                    (None, Dangling::Absent) => (
                        format!(
                            "ownerReference to {owner}: no such owner exists {here}, so {then}"
                        ),
                        "reference an existing owner by its current uid, or drop the reference"
                            .to_owned(),
                    ),
                }
            }
            RefClass::InvalidScope => (
                format!(
                    "ownerReference to {owner}: this object is cluster-scoped and {} is a \
                     namespaced kind, so the GC rejects the reference and will never collect \
                     this object",
                    self.text(r.kind)
                ),
                "use a cluster-scoped owner, or drop the reference".to_owned(),
            ),
            RefClass::Unresolvable { .. } => (
                format!(
                    "ownerReference to {owner}: the cluster does not serve kind {} in apiVersion \
                     \"{}\", so the GC cannot look the owner up and will never collect this \
                     object",
                    self.text(r.kind),
                    self.text(r.api_version)
                ),
                "write the owner's served apiVersion and kind (core kinds are \"v1\")".to_owned(),
            ),
            RefClass::Unrequestable { .. } => (
                format!(
                    "ownerReference to {owner}: the GC cannot request an owner by this name, so \
                     it will never collect this object"
                ),
                "write the owner's name exactly".to_owned(),
            ),
        };
        let state = self.gc.initial_state();
        // The strings from the request and the cluster the catalogue's sentence can name.
        let mut raw: Vec<&str> = vec![
            store.str(r.kind),
            store.str(r.name),
            store.str(r.uid),
            store.str(r.api_version),
            self.namespace,
        ];
        if let Some(h) = self.gc.misdirected(&state, self.dep, r) {
            let h = store.object(h);
            raw.extend([store.str(h.namespace), store.str(h.name)]);
        }
        let fix = remedy::for_write(self.gc, &state, self.dep, r)
            .map(|f| fix_text(&f, &mut raw))
            .unwrap_or(fallback);
        Some(format!("{what}. Fix: {fix}."))
    }
}

/// At most this many characters of a fix, whatever it names.
const FIX_CLIP: usize = 320;

/// A fix from the catalogue for a message: each string of `raw` it holds (names, namespaces
/// and UIDs from the request and the cluster) written as [`clip`] writes it in the rest of the
/// message (escaped, cut), any other terminal-hostile character escaped, and the whole cut to
/// [`FIX_CLIP`] characters.
fn fix_text(s: &str, raw: &mut [&str]) -> String {
    // Longest first: a name that holds another is replaced whole.
    raw.sort_by_key(|r| std::cmp::Reverse(r.len()));
    let mut s = s.to_owned();
    for r in raw.iter().filter(|r| !r.is_empty()) {
        let shown = clip(r);
        if shown != *r {
            s = s.replace(r, &shown);
        }
    }
    super::clip_to(&s, FIX_CLIP)
}

/// A message for references the write adds that share a UID with another reference but not
/// its kind, name or apiVersion: the API server keeps both, and the GC judges each one alone.
fn conflicting_duplicates(refs: &[OwnerRefIn<'_>], added: &[usize]) -> Option<String> {
    let conflict = added.iter().find_map(|&i| {
        let r = refs.get(i)?;
        refs.iter()
            .enumerate()
            .any(|(j, o)| {
                j != i
                    && o.uid == r.uid
                    && (o.name != r.name || o.kind != r.kind || o.api_version != r.api_version)
            })
            .then_some(r)
    })?;
    Some(format!(
        "Two ownerReferences name uid {} with different kinds, names or apiVersions; the GC \
         judges each one alone, so the one that does not match the owner is dangling. Fix: \
         keep one ownerReference per owner.",
        clip(&conflict.uid)
    ))
}

/// The answer to a write with these problems.
pub fn answer(mode: Mode, problems: Vec<String>) -> super::review::Answer {
    use super::review::Answer;
    if problems.is_empty() {
        return Answer::allow();
    }
    match mode {
        Mode::Warn => Answer {
            allowed: true,
            warnings: problems,
            message: None,
        },
        Mode::Deny => Answer {
            allowed: false,
            warnings: Vec::new(),
            message: Some(problems.join(" ")),
        },
    }
}
