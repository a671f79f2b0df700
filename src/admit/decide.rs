//! What the webhook answers: first the fast paths that admit a write without looking at the
//! graph ([`triage`]), then the GC's verdict on each reference the write adds ([`check`]).
//!
//! A webhook must never stand in the way of a write it does not mean to judge, least of all
//! the GC's own: the GC's and the namespace controller's writes, and any write that adds no
//! ownerReference (removing references or finalizers, relabelling, status updates), are
//! admitted before anything else is read.

use super::clip;
use super::graph::{Graph, State};
use super::review::{ObjectIn, Request};
use crate::catalog::KubeVersion;
use crate::diagnose::judge::Judge;
use crate::diagnose::judge::place::Break;
use crate::diagnose::permission::owner_mapping;
use crate::diagnose::remedy;
use crate::gc::{GarbageCollector, RefClass, Verdict};
use crate::model::{MetaIn, ObjId, OwnerRefIn, ResourceId, Sym};
use crate::snapshot::{ListOutcome, Snapshot};
use crate::watch::world::World;
use hashbrown::{HashMap, HashSet};
use std::borrow::Cow;
use std::time::Instant;

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
    let old: &[OwnerRefIn<'_>] = req
        .old_object
        .as_ref()
        .map_or(&[], |o| &o.metadata.owner_references);
    // Old and new as sets: an UPDATE of 20,000 references to 20,000 is linear.
    let old: HashSet<RefKey<'_>> = old.iter().map(ref_key).collect();
    let added: Vec<usize> = new
        .metadata
        .owner_references
        .iter()
        .enumerate()
        .filter(|(_, r)| !old.contains(&ref_key(r)))
        .map(|(i, _)| i)
        .collect();
    if added.is_empty() {
        return Err(Skip::NoNewReferences);
    }
    Ok(added)
}

/// What identifies a reference for [`triage`]: UID, name, kind, apiVersion.
type RefKey<'a> = (&'a str, &'a str, &'a str, &'a str);

fn ref_key<'a>(r: &'a OwnerRefIn<'_>) -> RefKey<'a> {
    (&r.uid, &r.name, &r.kind, &r.api_version)
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
    /// Resources (`plural.group`) whose lost watch made a reference unknown: the graph may be
    /// stale there, so the write is admitted unjudged.
    pub lost: Vec<String>,
    /// What OwnerReferencesPermissionEnforcement would ask the authorizer of the write's
    /// sender, its owners mapped by the same GC model (asked by the server when
    /// `--check-permissions` is on: [`super::permission::warning`]).
    pub permission: Vec<crate::diagnose::permission::Check>,
}

/// At most this many broken references are described in one answer; the rest are counted.
/// The API server keeps 4,096 characters of warnings per request whole (past that, the first
/// 256 of each): eight messages and the count fit.
pub const MAX_PROBLEMS: usize = 8;

/// How a lost watch's resource is marked in a check's snapshot: references into it are
/// unknown (the GC's classification says so of a resource whose listing failed), and the
/// reason names it.
const LOST_WATCH: &str = "its watch is lost";

/// The UID the object under review gets in the snapshot when the request carries none (a
/// CREATE): not a UID any object can hold (it has a `/`).
const NEW_OBJECT_UID: &str = "kubectl-gc/admit/new-object";

/// The row of the resource table the request's resource is listed under.
fn resource_row(world: &World, req: &Request<'_>) -> Option<ResourceId> {
    let rows = world.resources();
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

/// The object as the write leaves it, where the API server puts it.
fn written<'a>(req: &'a Request<'a>, object: &'a ObjectIn<'a>) -> MetaIn<'a> {
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
    meta
}

/// The GC's verdict on the references `added` (from [`triage`]) of the request's object,
/// judged on `graph`; `None` when the graph has not synced or `deadline` passed first.
/// `on_read` is told when the graph's read lock was taken.
pub fn check(
    graph: &Graph,
    req: &Request<'_>,
    added: &[usize],
    deadline: Option<Instant>,
    on_read: impl FnOnce(Instant),
) -> Option<Checked> {
    let Some(object) = &req.object else {
        return Some(Checked::default());
    };
    let meta = written(req, object);
    let gathered = {
        let state = graph.read()?;
        on_read(Instant::now());
        gather(&state, req, &meta)
    };
    let Some(gathered) = gathered else {
        return Some(Checked {
            not_monitored: true,
            ..Checked::default()
        });
    };
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return None;
    }
    judge(&gathered, graph.gc_version(), req, &meta, added, deadline)
}

/// What a check copies out of the graph under its read lock.
pub struct Gathered {
    /// The object as written beside the objects an owner lookup can reach, with the resource
    /// rows they reach (a lost watch's row marked failed).
    snap: Snapshot,
    /// The resources marked so (`plural.group`).
    lost: Vec<String>,
}

/// Copies out what judging `meta` (the request's object as written) reads: linear in its
/// references (an index lookup by name and by UID each). `None`: the GC does not monitor the
/// object's resource.
fn gather(state: &State, req: &Request<'_>, meta: &MetaIn<'_>) -> Option<Gathered> {
    let world = &state.world;
    let row = resource_row(world, req)?;
    if matches!(
        world.resources()[row.index()].list,
        ListOutcome::Ignored { .. }
    ) {
        return None;
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
    let (mut snap, _) = world.mini_with(&uids, Some((row, meta)));
    let mut lost = Vec::new();
    for (r, l) in &state.lost {
        let Some(w) = world.resources().get(r.index()) else {
            continue;
        };
        if let Some(m) = snap
            .resources
            .iter_mut()
            .find(|m| m.group == w.group && m.version == w.version && m.plural == w.plural)
        {
            m.list = ListOutcome::Failed {
                message: format!(
                    "{LOST_WATCH} since {} ago ({})",
                    crate::util::human_duration(l.since.elapsed()),
                    crate::error::one_line(&l.message)
                ),
            };
            lost.push(w.plural_group());
        }
    }
    Some(Gathered { snap, lost })
}

/// The GC's verdict on `added`, judged on what [`gather`] copied out (no lock held).
fn judge(
    g: &Gathered,
    gc_version: KubeVersion,
    req: &Request<'_>,
    meta: &MetaIn<'_>,
    added: &[usize],
    deadline: Option<Instant>,
) -> Option<Checked> {
    let mut out = Checked::default();
    let snap = &g.snap;
    let Some(dep) = snap.store.by_uid_text(&meta.uid) else {
        out.not_monitored = true;
        return Some(out);
    };
    let gc = GarbageCollector::new(snap, gc_version);
    // The plugin maps an owner's kind as the API server's REST mapper does: the GC's mapper
    // of the same cluster (only references with blockOwnerDeletion are mapped).
    out.permission = super::permission::checks(req, &|r| owner_mapping(&gc.rest_mapper, r));
    let state = gc.initial_state();
    let mut classes = Vec::new();
    let verdict = gc.attempt_to_delete_item_classified_into(&state, dep, &mut classes);
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return None;
    }
    let refs = snap.store.owner_refs(dep);
    let ctx = Ctx {
        gc: &gc,
        dep,
        verdict: &verdict,
        namespace: &meta.namespace,
    };
    let mut undescribed = 0;
    for &i in added {
        let (Some(r), Some(class)) = (refs.get(i), classes.get(i)) else {
            continue;
        };
        match class {
            RefClass::Unknown { reason } => {
                out.unknown += 1;
                if reason.contains(LOST_WATCH) && out.lost.is_empty() {
                    out.lost.clone_from(&g.lost);
                }
                continue;
            }
            RefClass::Solid { .. } => continue,
            RefClass::Dangling(_) if !out.absence => {
                out.absence = gc.misdirected(&state, dep, r).is_none();
            }
            _ => {}
        }
        if out.problems.len() == MAX_PROBLEMS {
            undescribed += 1;
            continue;
        }
        if let Some(p) = ctx.problem(r, class) {
            out.problems.push(p);
        }
    }
    if undescribed > 0 {
        out.problems.push(format!(
            "{undescribed} more ownerReferences of this write the GC will act on are not \
             described here (only the first {MAX_PROBLEMS} are)."
        ));
    }
    if let Some(p) = conflicting_duplicates(&meta.owner_references, added) {
        out.problems.push(p);
    }
    Some(out)
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

    /// One message: the judgement's summary of what is wrong ([`Judge`], as `audit` and `why`
    /// word it) and what the GC does, then the fix: the remedy catalogue's for a write
    /// ([`remedy::for_write_break`]). Every string from the request or the cluster in it is
    /// written as [`clip`] writes it.
    fn problem(&self, r: &crate::model::OwnerRef, class: &RefClass) -> Option<String> {
        let store = &self.gc.snap.store;
        let state = self.gc.initial_state();
        let judged = Judge::new(self.gc, &state).reference(self.dep, r, class, self.verdict)?;
        if let Break::Unknown { .. } = judged.brk {
            return None;
        }
        // The strings from the request and the cluster the sentences can name.
        let mut raw: Vec<&str> = vec![
            store.str(r.kind),
            store.str(r.name),
            store.str(r.uid),
            store.str(r.api_version),
            self.namespace,
        ];
        for &o in &judged.related {
            let o = store.object(o);
            raw.extend([store.str(o.namespace), store.str(o.name), store.str(o.uid)]);
        }
        let what = clipped(&judged.summary, &mut raw, WHAT_CLIP);
        let then = self.consequence(r.uid);
        let owner = format!("{} \"{}\"", self.text(r.kind), self.text(r.name));
        Some(
            match remedy::for_write_break(self.gc, &state, self.dep, r, &judged.brk) {
                Some(f) => format!(
                    "ownerReference to {owner}: {what}, so {then}. Fix: {}.",
                    clipped(&f, &mut raw, FIX_CLIP)
                ),
                None => format!("ownerReference to {owner}: {what}, so {then}."),
            },
        )
    }
}

/// At most this many characters of what is wrong, whatever it names.
const WHAT_CLIP: usize = 320;

/// At most this many characters of a fix, whatever it names.
const FIX_CLIP: usize = 320;

/// A sentence of the judgement or the catalogue for a message: each string of `raw` it holds
/// (names, namespaces and UIDs from the request and the cluster) written as [`clip`] writes it
/// in the rest of the message (escaped, cut), any other terminal-hostile character escaped,
/// and the whole cut to `limit` characters.
fn clipped(s: &str, raw: &mut [&str], limit: usize) -> String {
    // Longest first: a name that holds another is replaced whole.
    raw.sort_by_key(|r| std::cmp::Reverse(r.len()));
    let mut s = s.to_owned();
    for r in raw.iter().filter(|r| !r.is_empty()) {
        let shown = clip(r);
        if shown != *r {
            s = s.replace(r, &shown);
        }
    }
    super::clip_to(&s, limit)
}

/// A message for references the write adds that share a UID with another reference but not
/// its kind, name or apiVersion: the API server keeps both, and the GC judges each one alone.
/// Linear: the references are grouped by UID once (a UID's group conflicts when its members
/// differ, and then each member differs from another).
fn conflicting_duplicates(refs: &[OwnerRefIn<'_>], added: &[usize]) -> Option<String> {
    let mut groups: HashMap<&str, (RefKey<'_>, bool)> = HashMap::with_capacity(refs.len());
    for r in refs {
        let key = ref_key(r);
        let group = groups.entry(&r.uid).or_insert((key, false));
        group.1 |= group.0 != key;
    }
    let conflict = added.iter().find_map(|&i| {
        let r = refs.get(i)?;
        groups.get(r.uid.as_ref())?.1.then_some(r)
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
