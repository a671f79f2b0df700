//! Coverage inferred from files: which kinds are known to be held completely in which
//! namespaces, and what broken or unusable input makes unknown.
//!
//! Files carry no list outcomes, so the rule is conservative:
//!
//! * A kind counts as held in a namespace only when a **server list** holds one of its objects
//!   there: a list (typed `PodList` or generic `List`) with a non-empty
//!   `metadata.resourceVersion` and no `continue` token or `remainingItemCount` — what the API
//!   server returns for a whole collection (must-gathers, support bundles and
//!   `kubectl get --raw` write these). kubectl's own `-o json|yaml` output is a `List` it
//!   builds itself, always with `resourceVersion: ""`, and it looks the same for `kubectl get
//!   pods` as for `kubectl get pod/a rs/b`: it proves nothing. Neither do single objects or
//!   bare arrays. A server list read with a label or field selector cannot be told from a
//!   whole one; such dumps are rare and the risk is documented.
//! * `--assume-complete` declares the input complete instead: every kind it holds counts as
//!   held in every namespace it holds (and at cluster scope).
//! * Whatever a broken or unusable document could have held is never held ([`Hole`]): its
//!   kind in its namespace, its kind everywhere when the namespace is unknown, every kind in
//!   its namespace when the kind is unknown, and everything when nothing is known.

use crate::model::StrHasher;
use std::collections::{BTreeSet, HashMap};

/// The `(group/kind, namespace)` pairs objects were seen in, numbered in first-seen order.
/// Probed with the namespace's hash that the batch computed for the store already, and with
/// the hash and group/kind compared before the text: one probe per object and no string
/// hashing, in whatever order the input comes (kubectl sorts a merged `List` by name, so
/// namespaces interleave). A list's items are then recorded by number.
#[derive(Debug, Default)]
struct Pairs {
    /// `(group/kind, namespace hash, pair)`.
    table: hashbrown::HashTable<(u32, u32, u32)>,
    /// By pair: group/kind and namespace.
    pairs: Vec<(u32, String)>,
}

impl Pairs {
    fn hash(gk: u32, ns_hash: u32) -> u64 {
        // The namespace's hash in both halves (the table's bucket comes from the low bits, its
        // tag from the high ones), the group/kind spread over all of them.
        (u64::from(ns_hash) * 0x1_0000_0001) ^ u64::from(gk).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// The pair's number, and whether it is new.
    fn insert(&mut self, gk: u32, namespace: &str, ns_hash: u32) -> (u32, bool) {
        let pairs = &self.pairs;
        let same = |&(g, h, p): &(u32, u32, u32)| {
            g == gk && h == ns_hash && pairs[p as usize].1 == namespace
        };
        if let Some(&(_, _, p)) = self.table.find(Pairs::hash(gk, ns_hash), same) {
            return (p, false);
        }
        let p = self.pairs.len() as u32;
        self.pairs.push((gk, namespace.to_owned()));
        self.table
            .insert_unique(Pairs::hash(gk, ns_hash), (gk, ns_hash, p), |&(g, h, _)| {
                Pairs::hash(g, h)
            });
        (p, true)
    }
}

/// A group and kind.
pub(crate) type Gk = (String, String);

/// What one group/kind looks like in the input.
#[derive(Debug, Default)]
pub(crate) struct KindSeen {
    /// Namespaces its objects were seen in (scope inference).
    pub namespaces: BTreeSet<String>,
    /// Namespaces a server list of it was seen in (coverage).
    pub covered: BTreeSet<String>,
    /// Versions its objects were seen in.
    pub versions: BTreeSet<String>,
    /// The version of the last object seen.
    last_version: String,
}

/// Something the input cannot vouch for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Hole {
    /// This kind of this group, in one namespace (`None`: everywhere).
    Kind { gk: Gk, namespace: Option<String> },
    /// This kind in any group (the apiVersion did not parse).
    KindName {
        kind: String,
        namespace: Option<String>,
    },
    /// Every kind in this namespace.
    Namespace(String),
    /// Everything.
    Everything,
}

/// Coverage bookkeeping.
#[derive(Debug, Default)]
pub(crate) struct Coverage {
    /// Group/kinds in first-seen order.
    pub gks: Vec<Gk>,
    index: HashMap<Gk, u32>,
    pub seen: Vec<KindSeen>,
    /// Every namespace an object was seen in.
    pub namespaces: BTreeSet<String>,
    /// What broken or unusable input makes unknown, with the problem that caused it.
    pub holes: Vec<(Hole, String)>,
    /// Every `(group/kind, namespace)` recorded.
    pairs: Pairs,
    /// The lists ([`ListFrame::id`]) that were whole server lists: their items' pairs are
    /// covered once the store's thread has numbered them ([`Coverage::absorb`]).
    covered_frames: Vec<u32>,
    /// The store's string hash, for namespaces that come without one.
    hasher: StrHasher,
}

impl Coverage {
    /// The index of a group/kind, registering it.
    pub fn gk(&mut self, group: &str, kind: &str) -> u32 {
        if let Some(&i) = self.index.get(&(group.to_owned(), kind.to_owned())) {
            return i;
        }
        let i = self.gks.len() as u32;
        let gk = (group.to_owned(), kind.to_owned());
        self.gks.push(gk.clone());
        self.index.insert(gk, i);
        self.seen.push(KindSeen::default());
        i
    }

    /// The index of a group/kind, if registered.
    pub fn find(&self, group: &str, kind: &str) -> Option<u32> {
        self.index
            .get(&(group.to_owned(), kind.to_owned()))
            .copied()
    }

    /// A coverage record whose namespace hashes are the store's (`Batch::push` returns them).
    pub fn new(hasher: StrHasher) -> Coverage {
        Coverage {
            hasher,
            ..Coverage::default()
        }
    }

    /// Records an object of `gk` in `namespace`, listed under `version` (objects read after
    /// the store's thread is done, [`Coverage::absorb`]); returns the `(group/kind,
    /// namespace)` pair's number (for [`Coverage::cover_pair`]).
    pub fn object(&mut self, gk: u32, namespace: &str, version: &str) -> u32 {
        self.version(gk, version);
        let (pair, new) = self
            .pairs
            .insert(gk, namespace, self.hasher.hash(namespace));
        if new {
            self.seen_in(gk, namespace);
        }
        pair
    }

    /// A kind's object was seen in `namespace` (scope inference).
    fn seen_in(&mut self, gk: u32, namespace: &str) {
        if let Some(s) = self.seen.get_mut(gk as usize)
            && !s.namespaces.contains(namespace)
        {
            s.namespaces.insert(namespace.to_owned());
        }
        if !self.namespaces.contains(namespace) {
            self.namespaces.insert(namespace.to_owned());
        }
    }

    /// [`Coverage::seen_in`] for every `(kind, namespace)` pair at once: each kind's namespaces,
    /// and all of them, built from sorted runs. Inserted pair by pair (a search among the
    /// namespaces' strings, and an allocation, each), they ran alone on one core at the end
    /// of the read (BENCHMARKS.md, "Figures behind the code").
    fn all_seen_in(&mut self, pairs: &[(u32, String)]) {
        let mut by_kind: Vec<Vec<&str>> = vec![Vec::new(); self.seen.len()];
        let mut all: Vec<&str> = Vec::with_capacity(pairs.len());
        for (gk, ns) in pairs {
            if let Some(names) = by_kind.get_mut(*gk as usize) {
                names.push(ns);
            }
            all.push(ns);
        }
        for (seen, names) in self.seen.iter_mut().zip(by_kind) {
            merge_sorted(&mut seen.namespaces, names);
        }
        merge_sorted(&mut self.namespaces, all);
    }

    /// Records that an object of `gk` was listed under `version`. Its namespace is recorded
    /// on the store's thread ([`PairLog`]).
    pub fn version(&mut self, gk: u32, version: &str) {
        let s = &mut self.seen[gk as usize];
        // A kind is mostly listed under one version: the last one is checked first.
        if s.last_version != version {
            if !s.versions.contains(version) {
                s.versions.insert(version.to_owned());
            }
            s.last_version.clear();
            s.last_version.push_str(version);
        }
    }

    /// The list `frame` ([`ListFrame::id`]) was a whole server list: its items' kinds are held
    /// in their namespaces.
    pub fn cover_frame(&mut self, frame: u32) {
        if frame != NO_FRAME {
            self.covered_frames.push(frame);
        }
    }

    /// Takes in the pairs the store's thread recorded, in push order, and covers those of the
    /// lists [`Coverage::cover_frame`] named. Called once, after the last push and before
    /// any [`Coverage::object`].
    pub fn absorb(&mut self, log: PairLog) {
        debug_assert!(
            self.pairs.pairs.is_empty(),
            "absorbed after objects were recorded"
        );
        self.all_seen_in(&log.pairs.pairs);
        self.pairs = log.pairs;
        let covered: std::collections::HashSet<u32> = std::mem::take(&mut self.covered_frames)
            .into_iter()
            .collect();
        if !covered.is_empty() {
            for (frame, pair) in log.frames {
                if covered.contains(&frame) {
                    self.cover_pair(pair);
                }
            }
        }
    }

    /// A server list held the objects of a `(group/kind, namespace)` pair
    /// ([`Coverage::object`]): all of them are in the input.
    pub fn cover_pair(&mut self, pair: u32) {
        let (gk, ns) = &self.pairs.pairs[pair as usize];
        let s = &mut self.seen[*gk as usize];
        if !s.covered.contains(ns) {
            s.covered.insert(ns.clone());
        }
    }

    /// Records a hole.
    pub fn hole(&mut self, hole: Hole, cause: String) {
        if !self.holes.iter().any(|(h, _)| *h == hole) {
            self.holes.push((hole, cause));
        }
    }

    /// The namespaces where `group`/`kind` is known to be held completely, or `Err(cause)` when
    /// broken input makes the kind unknown everywhere.
    pub fn held(
        &self,
        group: &str,
        kind: &str,
        assume_complete: bool,
    ) -> Result<Vec<String>, String> {
        for (h, cause) in &self.holes {
            let everywhere = match h {
                Hole::Everything => true,
                Hole::Kind {
                    gk,
                    namespace: None,
                } => gk.0 == group && gk.1 == kind,
                Hole::KindName {
                    kind: k,
                    namespace: None,
                } => k == kind,
                _ => false,
            };
            if everywhere {
                return Err(cause.clone());
            }
        }
        let mut held: BTreeSet<String> = if assume_complete {
            let mut all = self.namespaces.clone();
            all.insert(String::new());
            all
        } else {
            match self.find(group, kind) {
                Some(i) => self.seen[i as usize].covered.clone(),
                None => BTreeSet::new(),
            }
        };
        for (h, _) in &self.holes {
            match h {
                Hole::Kind {
                    gk,
                    namespace: Some(ns),
                } if gk.0 == group && gk.1 == kind => {
                    held.remove(ns);
                }
                Hole::KindName {
                    kind: k,
                    namespace: Some(ns),
                } if k == kind => {
                    held.remove(ns);
                }
                Hole::Namespace(ns) => {
                    held.remove(ns);
                }
                _ => {}
            }
        }
        Ok(held.into_iter().collect())
    }
}

/// [`ListFrame::id`] of no list: an object outside any list.
pub(crate) const NO_FRAME: u32 = u32::MAX;

/// The group/kinds one list put in the input, decided on when the list ends (a list's `kind`
/// and `metadata` often come after its `items`). Its items' namespaces are recorded by the
/// store's thread under its `id` ([`PairLog`]).
#[derive(Debug)]
pub(crate) struct ListFrame {
    /// Its number among the input's lists ([`NO_FRAME`]: a list with no items).
    pub id: u32,
    /// Group/kinds its items named.
    pub kinds: BTreeSet<u32>,
    /// The last item's group/kind: items come in runs of one kind.
    last: Option<u32>,
}

impl Default for ListFrame {
    fn default() -> Self {
        ListFrame::new(NO_FRAME)
    }
}

impl ListFrame {
    /// The frame of list number `id`.
    pub fn new(id: u32) -> ListFrame {
        ListFrame {
            id,
            kinds: BTreeSet::new(),
            last: None,
        }
    }

    /// Records an item of `gk`.
    pub fn item(&mut self, gk: u32) {
        if self.last != Some(gk) {
            self.last = Some(gk);
            self.kinds.insert(gk);
        }
    }
}

/// The `(group/kind, namespace)` pair of every object pushed, numbered on the store's thread
/// (which has the object's namespace at hand, hashed), and which list each came in: a table
/// probe per object that the parsing thread, the reader's bottleneck, is spared.
#[derive(Debug, Default)]
pub(crate) struct PairLog {
    pairs: Pairs,
    /// `(list, pair)` of the objects of lists, a run of equal entries recorded once.
    frames: Vec<(u32, u32)>,
}

impl PairLog {
    /// The tag an object is pushed with ([`crate::model::Batch::push_tagged`]): its
    /// group/kind and list.
    pub fn tag(gk: u32, frame: u32) -> u64 {
        (u64::from(gk) << 32) | u64::from(frame)
    }

    /// Records an object pushed with [`PairLog::tag`] `tag`, in namespace `namespace`.
    pub fn object(&mut self, tag: u64, namespace: &str, ns_hash: u32) {
        let (gk, frame) = ((tag >> 32) as u32, tag as u32);
        let (pair, _) = self.pairs.insert(gk, namespace, ns_hash);
        if frame != NO_FRAME && self.frames.last() != Some(&(frame, pair)) {
            self.frames.push((frame, pair));
        }
    }
}

/// Adds `names` to `set`: sorted and deduplicated first, so that the set is built in one pass
/// and merged in another.
fn merge_sorted(set: &mut BTreeSet<String>, mut names: Vec<&str>) {
    if names.is_empty() {
        return;
    }
    names.sort_unstable();
    names.dedup();
    let mut more: BTreeSet<String> = names.into_iter().map(str::to_owned).collect();
    set.append(&mut more);
}

/// True when a list's metadata says the API server returned it whole.
pub(crate) fn is_server_list(
    resource_version: &str,
    continue_token: Option<&str>,
    remaining: bool,
) -> bool {
    // support-bundle-kit writes `continue: "null"` (a Go nil printed as text) on whole lists;
    // a real continue token is an opaque base64 string and never "null".
    !resource_version.is_empty()
        && continue_token.is_none_or(|c| c.is_empty() || c == "null")
        && !remaining
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The store's thread numbers pairs in push order; only the lists named whole cover
    /// theirs, and an object of no list (or of a list without a number) covers nothing.
    #[test]
    fn absorbed_pairs_cover_only_the_whole_lists() {
        let hasher = crate::model::Store::new().strings.hasher();
        let mut c = Coverage::new(hasher.clone());
        let pod = c.gk("", "Pod");
        let cm = c.gk("", "ConfigMap");
        let mut log = PairLog::default();
        let mut push =
            |gk, frame, ns: &str| log.object(PairLog::tag(gk, frame), ns, hasher.hash(ns));
        push(pod, 1, "a");
        push(pod, 1, "a");
        push(cm, 1, "b");
        push(pod, 2, "c");
        push(pod, NO_FRAME, "d");
        push(pod, 3, "a");
        push(cm, 3, "e");
        c.cover_frame(1);
        c.cover_frame(NO_FRAME);
        c.absorb(log);
        assert_eq!(c.held("", "Pod", false).unwrap(), ["a"]);
        assert_eq!(c.held("", "ConfigMap", false).unwrap(), ["b"]);
        let seen: Vec<&str> = c.seen[pod as usize]
            .namespaces
            .iter()
            .map(String::as_str)
            .collect();
        assert_eq!(
            seen,
            ["a", "c", "d"],
            "every object counts for the kind's namespaces"
        );
        let all: Vec<&str> = c.namespaces.iter().map(String::as_str).collect();
        assert_eq!(all, ["a", "b", "c", "d", "e"]);
        // After the absorb, objects recorded directly number on from the same pairs.
        let p = c.object(pod, "c", "v1");
        c.cover_pair(p);
        assert_eq!(c.held("", "Pod", false).unwrap(), ["a", "c"]);
    }

    #[test]
    fn holes_remove_what_broken_input_could_hold() {
        let mut c = Coverage::default();
        let pod = c.gk("", "Pod");
        let cm = c.gk("", "ConfigMap");
        for ns in ["a", "b", "c"] {
            let p = c.object(pod, ns, "v1");
            c.cover_pair(p);
            let p = c.object(cm, ns, "v1");
            c.cover_pair(p);
        }
        c.hole(
            Hole::Kind {
                gk: ("".into(), "Pod".into()),
                namespace: Some("a".into()),
            },
            "x".into(),
        );
        c.hole(Hole::Namespace("b".into()), "y".into());
        assert_eq!(c.held("", "Pod", false).unwrap(), ["c"]);
        assert_eq!(c.held("", "ConfigMap", false).unwrap(), ["a", "c"]);
        assert_eq!(
            c.held("", "ConfigMap", true).unwrap(),
            ["", "a", "c"],
            "declared complete: every namespace of the input and cluster scope"
        );
        c.hole(
            Hole::KindName {
                kind: "ConfigMap".into(),
                namespace: None,
            },
            "z".into(),
        );
        assert_eq!(c.held("", "ConfigMap", true), Err("z".into()));
        c.hole(Hole::Everything, "w".into());
        assert_eq!(c.held("", "Pod", false), Err("w".into()));
    }

    #[test]
    fn only_whole_server_lists_prove_coverage() {
        assert!(is_server_list("123", None, false));
        assert!(is_server_list("123", Some("null"), false));
        assert!(!is_server_list("", None, false), "kubectl's own List");
        assert!(
            !is_server_list("123", Some("eyJ2IjoibWV0YS"), false),
            "one page"
        );
        assert!(!is_server_list("123", None, true), "remainingItemCount");
    }
}
