//! The action model every source feeds, and the recorder that keeps it in bounded memory.
//!
//! A source (the API server's audit log today: `audit.rs`) turns what it reads into
//! observations, each proven by its evidence:
//!
//! - an [`Action`]: a write the history reports — who did what to which object (its
//!   coordinates and UID), when, with the propagation policy the record states (if it does),
//!   and what else the record proves (the object removed at once, the reference a patch
//!   removed, the references the object had, a collection's selector);
//! - a [`Create`]: an object created (its UID, and its references where the record shows them);
//! - an absent owner: the GC's read of an object that answered 404.
//!
//! Everything is interned in one arena, so the memory follows what is kept, never the
//! log's size; and what is kept is capped ([`Caps`]): past a cap the recorder stops keeping
//! and the answer is an error that names the cap, never a silent truncation or an abort.

use super::types::{ActorKind, Policy, Verb};
use crate::model::Sym;
use crate::model::intern::Interner;
use crate::source::audit::Level;
use std::collections::HashMap;

/// An object's coordinates as the recorder holds them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjKey {
    /// API group (empty for core).
    pub group: Sym,
    /// Resource (plural).
    pub resource: Sym,
    /// Namespace (empty when cluster-scoped, or a collection across namespaces).
    pub namespace: Sym,
    /// Name (empty for a collection).
    pub name: Sym,
}

/// Who acted, as the source's authentication proves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Who {
    /// What kind of actor.
    pub kind: ActorKind,
    /// The identity acted as.
    pub user: Sym,
    /// The authenticated user who impersonated `user` (empty: none).
    pub impersonated_by: Sym,
    /// The client's user agent.
    pub user_agent: Sym,
}

/// Which kind of source read an observation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// An API server's audit log (any of its formats).
    AuditLog,
    /// kube-controller-manager's own log (`kcm.rs`).
    ControllerManagerLog,
}

/// Where an observation was read, and what that record can prove.
#[derive(Clone, Copy, Debug)]
pub struct Evidence {
    /// The kind of source.
    pub origin: Origin,
    /// The input (file, archive member).
    pub source: Sym,
    /// The line or record in it.
    pub line: u64,
    /// For an audit log: the level the event was recorded at (what bodies it has).
    pub level: Level,
}

/// What the controller manager's log shows of an action (`kcm.rs`): its line, what that says,
/// and the cause the log's own lines prove (the GC's words about this object).
#[derive(Clone, Debug)]
pub struct LogNote {
    /// The line, and what it says.
    pub proof: super::types::Proof,
    /// The cause the log's lines prove (`unknown` where they prove none).
    pub cause: super::types::Cause,
}

/// An ownerReference a record shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefSeen {
    /// `apiVersion`.
    pub api_version: Sym,
    /// `kind`.
    pub kind: Sym,
    /// `name`.
    pub name: Sym,
    /// `uid`.
    pub uid: Sym,
}

/// A run of [`Recorder::refs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefSpan {
    /// First.
    pub start: u32,
    /// How many.
    pub len: u32,
}

/// A write the history reports.
#[derive(Clone, Copy, Debug)]
pub struct Action {
    /// When the server answered (µs since the epoch).
    pub time_us: i64,
    /// What it did.
    pub verb: Verb,
    /// On what.
    pub key: ObjKey,
    /// The API version the record names it at (empty: not named).
    pub version: Sym,
    /// The object's UID where the record names it (empty: not named).
    pub uid: Sym,
    /// Who: an index into [`Recorder::actors`].
    pub who: u32,
    /// Where it was read.
    pub evidence: Evidence,
    /// The propagation policy the record states (a delete's options); `None`: not stated.
    pub policy: Option<Policy>,
    /// The record proves the object was removed at once (the response names the UID it
    /// deleted): no finalizer held it.
    pub removed_at_once: bool,
    /// The UID of the reference the write removed, where the record names it (empty: none).
    pub removed_ref: Sym,
    /// The object's references before the write, where the record shows them (a response).
    pub refs: Option<RefSpan>,
    /// A collection's label selector (empty: none).
    pub labels: Sym,
    /// A collection's field selector was set (it is not evaluated).
    pub fields: bool,
    /// What the controller manager's log shows of it: an index into [`Recorder::log_notes`].
    pub log: Option<u32>,
}

/// An object created.
#[derive(Clone, Copy, Debug)]
pub struct Create {
    /// When.
    pub time_us: i64,
    /// What.
    pub key: ObjKey,
    /// Its UID where the record names it (empty: not named).
    pub uid: Sym,
    /// The references it was created with, where the record shows them.
    pub refs: Option<RefSpan>,
}

/// What is kept at most, so that no log can take the memory: past any of them the history is
/// an error that names it (exit 3).
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// Actions (deletions, reference and finalizer removals).
    pub actions: usize,
    /// Creates.
    pub creates: usize,
    /// ownerReferences shown by creates and responses.
    pub refs: usize,
    /// Bytes of distinct text (names, UIDs, users, sources).
    pub text_bytes: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            actions: 1_000_000,
            creates: 4_000_000,
            refs: 4_000_000,
            text_bytes: 256 << 20,
        }
    }
}

/// Which cap a log reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapHit {
    /// [`Caps::actions`].
    Actions(usize),
    /// [`Caps::creates`].
    Creates(usize),
    /// [`Caps::refs`].
    Refs(usize),
    /// [`Caps::text_bytes`].
    Text(usize),
}

impl CapHit {
    /// The cap in words, for the error.
    pub fn describe(self) -> String {
        match self {
            CapHit::Actions(n) => format!("more than {n} actions (the cap on actions kept)"),
            CapHit::Creates(n) => format!("more than {n} creates (the cap on creates kept)"),
            CapHit::Refs(n) => {
                format!("more than {n} ownerReferences in its bodies (the cap on references kept)")
            }
            CapHit::Text(n) => format!(
                "more than {} MiB of distinct names, UIDs and users (the cap on text kept)",
                n >> 20
            ),
        }
    }
}

/// Keeps the observations of every source, interned and capped.
pub struct Recorder {
    /// All text of what is kept.
    pub(super) strings: Interner,
    /// Each distinct actor once.
    pub(super) actors: Vec<Who>,
    actor_ids: HashMap<Who, u32>,
    /// The actions, in the order read.
    pub(super) actions: Vec<Action>,
    /// The creates, in the order read.
    pub(super) creates: Vec<Create>,
    /// The references creates and responses show.
    pub(super) refs: Vec<RefSeen>,
    /// The GC's reads of objects that answered 404, when.
    pub(super) absent: Vec<(ObjKey, i64)>,
    pub(super) first_us: Option<i64>,
    pub(super) last_us: Option<i64>,
    pub(super) levels: std::collections::BTreeSet<Level>,
    pub(super) gc_seen: bool,
    pub(super) seen: u64,
    pub(super) dry_run: usize,
    /// The controller manager's log: what it shows of actions (`Action::log`).
    pub(super) log_notes: Vec<LogNote>,
    /// Its starts of the garbage collector (µs), in time order.
    pub(super) gc_starts: Vec<i64>,
    /// What its verbosity cannot show, and other limits of it.
    pub(super) log_limits: Vec<String>,
    caps: Caps,
    /// The first cap reached, if any: nothing more is kept.
    pub(super) over: Option<CapHit>,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder::with_caps(Caps::default())
    }
}

impl Recorder {
    /// A recorder that keeps at most `caps`.
    pub fn with_caps(caps: Caps) -> Self {
        Recorder {
            strings: Interner::new(),
            actors: Vec::new(),
            actor_ids: HashMap::new(),
            actions: Vec::new(),
            creates: Vec::new(),
            refs: Vec::new(),
            absent: Vec::new(),
            first_us: None,
            last_us: None,
            levels: Default::default(),
            gc_seen: false,
            seen: 0,
            dry_run: 0,
            log_notes: Vec::new(),
            gc_starts: Vec::new(),
            log_limits: Vec::new(),
            caps,
            over: None,
        }
    }

    /// Interns text of an observation.
    pub fn intern(&mut self, s: &str) -> Sym {
        self.strings.intern(s)
    }

    /// The text of a symbol.
    pub fn str(&self, s: Sym) -> &str {
        self.strings.resolve(s)
    }

    /// The index of an actor (each distinct one kept once).
    pub fn actor(&mut self, who: Who) -> u32 {
        if who.kind == ActorKind::GarbageCollector {
            self.gc_seen = true;
        }
        let next = self.actors.len() as u32;
        *self.actor_ids.entry(who).or_insert_with(|| {
            self.actors.push(who);
            next
        })
    }

    /// Keeps references a record shows; `None` past the cap.
    pub fn refs(&mut self, refs: impl ExactSizeIterator<Item = RefSeen>) -> Option<RefSpan> {
        if self.refs.len() + refs.len() > self.caps.refs {
            self.over.get_or_insert(CapHit::Refs(self.caps.refs));
            return None;
        }
        let start = self.refs.len() as u32;
        self.refs.extend(refs);
        Some(RefSpan {
            start,
            len: self.refs.len() as u32 - start,
        })
    }

    /// The references of a span.
    pub(super) fn refs_of(&self, span: RefSpan) -> &[RefSeen] {
        &self.refs[span.start as usize..(span.start + span.len) as usize]
    }

    /// Something was read at `time_us` (any record, kept or not): the window and the count.
    pub fn saw(&mut self, time_us: i64, level: Level) {
        self.seen += 1;
        self.first_us = Some(self.first_us.map_or(time_us, |t| t.min(time_us)));
        self.last_us = Some(self.last_us.map_or(time_us, |t| t.max(time_us)));
        self.levels.insert(level);
    }

    /// Keeps an action.
    pub fn action(&mut self, a: Action) {
        if self.within(self.actions.len(), self.caps.actions, CapHit::Actions) {
            self.actions.push(a);
        }
    }

    /// Keeps a create.
    pub fn create(&mut self, c: Create) {
        if self.within(self.creates.len(), self.caps.creates, CapHit::Creates) {
            self.creates.push(c);
        }
    }

    /// Keeps the GC's 404 read of an object.
    pub fn owner_absent(&mut self, key: ObjKey, time_us: i64) {
        if self.within(self.absent.len(), self.caps.creates, CapHit::Creates) {
            self.absent.push((key, time_us));
        }
    }

    /// A server-side dry run of an action: counted, not kept.
    pub fn dry_run(&mut self) {
        self.dry_run += 1;
    }

    /// True while `held` is below `cap` and no cap was reached (text included); else the
    /// first cap reached is kept.
    fn within(&mut self, held: usize, cap: usize, hit: fn(usize) -> CapHit) -> bool {
        if self.over.is_some() {
            return false;
        }
        if self.strings.text_len() > self.caps.text_bytes {
            self.over = Some(CapHit::Text(self.caps.text_bytes));
            return false;
        }
        if held >= cap {
            self.over = Some(hit(cap));
            return false;
        }
        true
    }

    /// Actions kept.
    pub fn kept(&self) -> usize {
        self.actions.len()
    }

    /// Records read, kept or not.
    pub fn seen(&self) -> u64 {
        self.seen
    }
}
