//! A snapshot: what was read from a cluster (or from files), and how completely.
//!
//! Besides the objects themselves ([`Store`]) a snapshot records the resource table (every
//! served group/version/kind with its scope and verbs, so the analysis can emulate the GC's REST
//! mapper) and, for every resource, the *outcome* of listing it. The outcome is what lets the
//! analysis tell "this owner does not exist" from "we could not see whether it exists": the
//! second must never be reported as dangling.

pub mod details;
pub mod format;
mod line_scan;

pub use details::{ApiService, Condition, Details, NamespaceStatus};

use crate::model::{Added, MetaIn, ObjId, Object, ResourceId, Store, Sym};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Where a snapshot's data came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub enum SourceKind {
    /// Listed from a live API server by kubectl-gc: list outcomes are authoritative.
    #[default]
    Live,
    /// Read from `kubectl get -o json|yaml` output, support bundles or must-gathers: there are
    /// no list outcomes, so coverage is inferred from what the files contain.
    Files,
}

/// Who wrote the snapshot, when, and from which server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    /// `kubectl-gc <version>`.
    pub tool: String,
    /// Capture time, RFC 3339 (UTC).
    pub captured_at: String,
    /// API server `gitVersion` (e.g. `v1.20.2`) when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_version: Option<String>,
    /// Live cluster or files.
    pub source: SourceKind,
    /// kubeconfig context (live) when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Input paths (files) or the server URL (live).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
}

/// The outcome of listing one resource.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum ListOutcome {
    /// Every object of the resource was listed, cluster-wide.
    Complete,
    /// Only the listed namespaces are complete (`""` stands for cluster scope). Used for `-n`
    /// snapshots and for file inputs, where a kind counts as collected in a namespace only if
    /// the files hold at least one object of it there.
    Partial {
        /// Namespaces whose objects of this resource are all present.
        namespaces: Vec<String>,
    },
    /// The list was refused (HTTP 403).
    Forbidden {
        /// The server's message.
        message: String,
    },
    /// The list failed (timeout, 5xx, conversion webhook error, 404 for a vanished CRD, …).
    Failed {
        /// What went wrong.
        message: String,
    },
    /// Not listed because the GC does not monitor it (see [`IgnoreReason`]).
    Ignored {
        /// Why the GC does not monitor this resource.
        reason: IgnoreReason,
    },
    /// Not listed (for example excluded by a filter, or only known from the built-in catalogue).
    NotListed,
}

/// Why the GC does not watch a resource (§5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IgnoreReason {
    /// In the GC's ignored set (core and events.k8s.io `events`, §5.2).
    GcIgnoredResource,
    /// Lacks one of the verbs delete, list, watch (§5.1 step 2).
    NotDeletable,
    /// A non-preferred served version: its objects are listed under the preferred version.
    NonPreferredVersion,
}

impl ListOutcome {
    /// True when every object of the resource in `namespace` is in the snapshot
    /// (`namespace` = `""` for cluster-scoped lookups).
    pub fn covers(&self, namespace: &str) -> bool {
        match self {
            ListOutcome::Complete => true,
            ListOutcome::Partial { namespaces } => namespaces.iter().any(|n| n == namespace),
            _ => false,
        }
    }

    /// A short label for tables.
    pub fn label(&self) -> &'static str {
        match self {
            ListOutcome::Complete => "complete",
            ListOutcome::Partial { .. } => "partial",
            ListOutcome::Forbidden { .. } => "forbidden",
            ListOutcome::Failed { .. } => "failed",
            ListOutcome::Ignored { .. } => "ignored",
            ListOutcome::NotListed => "not-listed",
        }
    }
}

/// One row of the resource table: a served group/version/resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// API group (`""` for core).
    pub group: String,
    /// Version.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// Plural resource name (`deployments`).
    pub plural: String,
    /// Namespaced or cluster-scoped.
    pub namespaced: bool,
    /// Verbs from discovery (empty when unknown, e.g. file inputs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verbs: Vec<String>,
    /// The group's preferred version.
    pub preferred_version: String,
    /// The list outcome (for non-monitored rows: why they were not listed).
    #[serde(flatten)]
    pub list: ListOutcome,
}

impl Resource {
    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `plural.group`, or `plural` for the core group: how kubectl names the resource.
    pub fn plural_group(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// True for the rows whose objects the GC watches (and we list).
    pub fn monitored(&self) -> bool {
        !matches!(self.list, ListOutcome::Ignored { .. })
    }
}

/// A discovery group-version that could not be read: its kinds are unknown, not unserved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveryFailure {
    /// `group/version`.
    pub group_version: String,
    /// What went wrong.
    pub message: String,
}

/// An input document that could not be used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    /// File (and document index) or resource.
    pub source: String,
    /// Why it was skipped.
    pub reason: String,
}

/// A complete snapshot.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// Where and when it was taken.
    pub provenance: Provenance,
    /// The resource table.
    pub resources: Vec<Resource>,
    /// Discovery failures.
    pub discovery_failures: Vec<DiscoveryFailure>,
    /// Inputs that were skipped (unparsable documents, objects without a UID, …).
    pub skipped: Vec<Skipped>,
    /// The objects.
    pub store: Store,
    /// Namespace and APIService details beyond metadata, where they were read.
    pub details: Details,
    /// For an input that does not record its server version (files): the release the user
    /// said to emulate (`--gc-version`), whose served API versions then stand in for the
    /// cluster's. Never written to a snapshot file.
    pub assumed_version: Option<crate::catalog::KubeVersion>,
    /// A new cluster built by `check apply --target empty`: its resource table is everything
    /// it serves (the release's built-in kinds and the input's CRDs), so a kind without a
    /// served row is not served and a GET of any other object answers 404. No source sets it.
    /// Never written to a snapshot file.
    pub new_cluster: bool,
    /// Per resource id, the interned apiVersion and kind (filled by [`Snapshot::reindex`]).
    resource_syms: Vec<(Sym, Sym)>,
    /// Per resource id, whether another group has a kind of the same name (filled by
    /// [`Snapshot::reindex`]): [`Snapshot::kind_label`] qualifies those.
    kind_shared: Vec<bool>,
    /// The (resource row, namespace) pairs the store holds objects in: built on the first
    /// [`Snapshot::holds_objects_of`] (only an unknown owner's reason asks), cleared by
    /// [`Snapshot::reindex`].
    held: std::sync::OnceLock<std::collections::HashSet<(ResourceId, Sym)>>,
}

impl Snapshot {
    /// The resource row an object was listed under.
    pub fn resource_of(&self, obj: &Object) -> &Resource {
        &self.resources[obj.resource.index()]
    }

    /// Interned `(apiVersion, kind)` of an object's resource.
    pub fn type_syms(&self, obj: &Object) -> (Sym, Sym) {
        self.resource_syms[obj.resource.index()]
    }

    /// Re-derives cached per-resource data; call after the resource table changes.
    pub fn reindex(&mut self) {
        self.held = std::sync::OnceLock::new();
        self.store.intern(crate::model::finalizers::FOREGROUND);
        self.store.intern(crate::model::finalizers::ORPHAN);
        self.resource_syms = self
            .resources
            .iter()
            .map(|r| {
                let av = r.api_version();
                (self.store.intern(&av), self.store.intern(&r.kind))
            })
            .collect();
        self.kind_shared = self
            .resources
            .iter()
            .map(|r| {
                !r.group.is_empty()
                    && self
                        .resources
                        .iter()
                        .any(|x| x.kind == r.kind && x.group != r.group)
            })
            .collect();
    }

    /// True when the input holds at least one object of `group`/`plural` in `namespace` (`""`:
    /// cluster scope). For a file input, that tells a kind it holds there but cannot prove it
    /// holds completely from one it holds none of. The store must not change after the first
    /// call (snapshots are built, then only read).
    pub fn holds_objects_of(&self, group: &str, plural: &str, namespace: &str) -> bool {
        let Some(ns) = self.store.strings.get(namespace) else {
            return false;
        };
        let held = self.held.get_or_init(|| {
            self.store
                .objects
                .iter()
                .map(|o| (o.resource, o.namespace))
                .collect()
        });
        self.resources
            .iter()
            .enumerate()
            .filter(|(_, r)| r.group == group && r.plural == plural)
            .any(|(i, _)| held.contains(&(ResourceId(i as u32), ns)))
    }

    /// The object as human output spells it ([`crate::model::spell_object`]): `Kind/name -n ns`.
    pub fn describe(&self, id: ObjId) -> String {
        let o = self.store.object(id);
        crate::model::spell_object(
            &self.kind_label(o.resource),
            self.store.str(o.name),
            self.store.str(o.namespace),
        )
    }

    /// `Kind`, or `Kind.group` when the resource table also holds a kind of that name in
    /// another group (two CRDs named `Certificate`, or `Event` in the core group and in
    /// `events.k8s.io`): the core group's kind stays bare, so only the others are qualified.
    pub fn kind_label(&self, id: ResourceId) -> std::borrow::Cow<'_, str> {
        let r = &self.resources[id.index()];
        if self.kind_shared.get(id.index()).copied().unwrap_or(false) {
            format!("{}.{}", r.kind, r.group).into()
        } else {
            r.kind.as_str().into()
        }
    }
}

/// Incrementally builds a [`Snapshot`]; used by every source.
#[derive(Debug, Default)]
pub struct SnapshotBuilder {
    snapshot: Snapshot,
    by_gvk: HashMap<(String, String, String), ResourceId>,
}

impl SnapshotBuilder {
    /// Starts a snapshot.
    pub fn new(provenance: Provenance) -> Self {
        SnapshotBuilder {
            snapshot: Snapshot {
                provenance,
                ..Snapshot::default()
            },
            by_gvk: HashMap::new(),
        }
    }

    /// Adds a resource-table row (or returns the existing row with the same group/version/kind).
    pub fn add_resource(&mut self, resource: Resource) -> ResourceId {
        let key = (
            resource.group.clone(),
            resource.version.clone(),
            resource.kind.clone(),
        );
        if let Some(&id) = self.by_gvk.get(&key) {
            return id;
        }
        let id = ResourceId(self.snapshot.resources.len() as u32);
        self.snapshot.resources.push(resource);
        self.by_gvk.insert(key, id);
        id
    }

    /// The row for group/version/kind, if present.
    pub fn find_resource(&self, group: &str, version: &str, kind: &str) -> Option<ResourceId> {
        self.by_gvk
            .get(&(group.to_owned(), version.to_owned(), kind.to_owned()))
            .copied()
    }

    /// Mutable access to a row (e.g. to record its list outcome).
    pub fn resource_mut(&mut self, id: ResourceId) -> &mut Resource {
        &mut self.snapshot.resources[id.index()]
    }

    /// Reorders the resource table: row `order[i]` becomes row `i`, and every object added so
    /// far follows its row. For a source that adds rows in the order their discovery answers
    /// arrive and wants the table (and so the snapshot's output) in the server's order.
    /// Returns false, changing nothing, when `order` is not a permutation of the rows.
    pub fn reorder_resources(&mut self, order: &[ResourceId]) -> bool {
        let n = self.snapshot.resources.len();
        if order.len() != n {
            return false;
        }
        let mut new_of_old = vec![u32::MAX; n];
        for (new, old) in order.iter().enumerate() {
            match new_of_old.get_mut(old.index()) {
                Some(slot) if *slot == u32::MAX => *slot = new as u32,
                _ => return false,
            }
        }
        if new_of_old.iter().enumerate().all(|(i, &n)| i as u32 == n) {
            return true;
        }
        let mut rows: Vec<(u32, Resource)> = std::mem::take(&mut self.snapshot.resources)
            .into_iter()
            .zip(&new_of_old)
            .map(|(row, &new)| (new, row))
            .collect();
        rows.sort_unstable_by_key(|(new, _)| *new);
        self.snapshot.resources = rows.into_iter().map(|(_, row)| row).collect();
        let renumber = |id: &mut ResourceId| {
            if let Some(&new) = new_of_old.get(id.index()) {
                *id = ResourceId(new);
            }
        };
        self.by_gvk.values_mut().for_each(renumber);
        self.snapshot
            .store
            .objects
            .iter_mut()
            .for_each(|o| renumber(&mut o.resource));
        true
    }

    /// Read access to the rows added so far.
    pub fn resources(&self) -> &[Resource] {
        &self.snapshot.resources
    }

    /// Adds an object listed under `resource`.
    pub fn add_object(&mut self, resource: ResourceId, meta: &MetaIn<'_>) -> Added {
        self.snapshot.store.add(resource, meta)
    }

    /// Records an unusable input.
    pub fn skip(&mut self, source: impl Into<String>, reason: impl Into<String>) {
        self.snapshot.skipped.push(Skipped {
            source: source.into(),
            reason: reason.into(),
        });
    }

    /// Records a failed discovery group-version.
    pub fn discovery_failure(
        &mut self,
        group_version: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.snapshot.discovery_failures.push(DiscoveryFailure {
            group_version: group_version.into(),
            message: message.into(),
        });
    }

    /// Records what a source read of a namespace beyond its metadata.
    pub fn namespace_status(&mut self, name: impl Into<String>, status: NamespaceStatus) {
        self.snapshot.details.namespaces.insert(name.into(), status);
    }

    /// Records an APIService read in full (and so that APIServices were read).
    pub fn api_service(&mut self, api_service: ApiService) {
        self.snapshot
            .details
            .api_services
            .get_or_insert_with(Vec::new)
            .push(api_service);
    }

    /// Records that APIServices were read, even if there were none.
    pub fn api_services_read(&mut self) {
        self.snapshot
            .details
            .api_services
            .get_or_insert_with(Vec::new);
    }

    /// Mutable provenance (e.g. to set the server version once known).
    pub fn provenance_mut(&mut self) -> &mut Provenance {
        &mut self.snapshot.provenance
    }

    /// Read access to the objects added so far.
    pub fn store(&self) -> &Store {
        &self.snapshot.store
    }

    /// Mutable access to the objects (bulk loading, e.g. [`Store::add_batch`]).
    pub fn store_mut(&mut self) -> &mut Store {
        &mut self.snapshot.store
    }

    /// Finishes the snapshot.
    pub fn finish(mut self) -> Snapshot {
        self.snapshot.reindex();
        self.snapshot
    }
}

/// Splits an apiVersion into `(group, version)`; `None` when it does not parse
/// (empty, or more than one `/`), as `schema.ParseGroupVersion` would refuse it.
pub fn split_api_version(api_version: &str) -> Option<(&str, &str)> {
    if api_version.is_empty() {
        return None;
    }
    match api_version.split_once('/') {
        None => Some(("", api_version)),
        Some((g, v)) if !g.is_empty() && !v.is_empty() && !v.contains('/') => Some((g, v)),
        Some(_) => None,
    }
}

/// The current time as RFC 3339 UTC text (no external time crate needed for this).
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    format_rfc3339(secs)
}

use crate::model::timestamp::days_from_civil;
pub use crate::model::timestamp::format_rfc3339;

/// Parses the RFC 3339 timestamps Kubernetes writes (`2024-01-02T03:04:05Z`, optionally with
/// fractional seconds or a numeric offset) into seconds since the epoch.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    // Byte positions below are character positions only in ASCII text; anything else is not
    // a timestamp Kubernetes writes (and slicing it by bytes could split a character).
    if !s.is_ascii() {
        return None;
    }
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || (b[10] != b'T' && b[10] != b't') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        rest = &frac[n..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && (rest.starts_with('+') || rest.starts_with('-')) => {
            let sign = if rest.starts_with('-') { -1 } else { 1 };
            sign * (rest[1..3].parse::<i64>().ok()? * 3600 + rest[4..6].parse::<i64>().ok()? * 60)
        }
        _ => return None,
    };
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se - offset;
    // In UTC, years 0000 to 9999: what Kubernetes can write (Go's time.Time refuses to marshal
    // other years), and what `format_rfc3339` writes back in a form read here again. An offset
    // can push a four-digit local date out of that range (`9999-12-31T23:59:59-01:00`).
    const FIRST: i64 = -62_167_219_200; // 0000-01-01T00:00:00Z
    const LAST: i64 = 253_402_300_799; // 9999-12-31T23:59:59Z
    (FIRST..=LAST).contains(&secs).then_some(secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::timestamp::civil_from_days;

    #[test]
    fn objects_are_spelled_kind_name_and_namespace_with_the_group_only_where_two_share_a_kind() {
        let mut c = crate::testkit::Cluster::new();
        c.resource("cert-manager.io", "v1", "Certificate", "certificates", true);
        c.resource(
            "networking.gke.io",
            "v1",
            "Certificate",
            "certificates",
            true,
        );
        c.obj("v1", "ConfigMap", "shop", "web", "u1");
        c.obj("v1", "Node", "", "n1", "u2");
        c.obj("cert-manager.io/v1", "Certificate", "shop", "tls", "u3");
        c.obj("networking.gke.io/v1", "Certificate", "shop", "tls", "u4");
        let snap = c.build();
        let by_uid = |u: &str| {
            let id = snap
                .store
                .ids()
                .find(|&id| snap.store.str(snap.store.object(id).uid) == u)
                .unwrap();
            snap.describe(id)
        };
        assert_eq!(by_uid("u1"), "ConfigMap/web -n shop");
        assert_eq!(by_uid("u2"), "Node/n1");
        assert_eq!(by_uid("u3"), "Certificate.cert-manager.io/tls -n shop");
        assert_eq!(by_uid("u4"), "Certificate.networking.gke.io/tls -n shop");
        // What the input holds, by resource and namespace.
        assert!(snap.holds_objects_of("", "configmaps", "shop"));
        assert!(!snap.holds_objects_of("", "configmaps", "other"));
        assert!(!snap.holds_objects_of("apps", "deployments", "shop"));
        assert!(snap.holds_objects_of("", "nodes", ""));
    }

    #[test]
    fn api_versions_split_like_parse_group_version() {
        assert_eq!(split_api_version("v1"), Some(("", "v1")));
        assert_eq!(split_api_version("apps/v1"), Some(("apps", "v1")));
        assert_eq!(split_api_version(""), None);
        assert_eq!(split_api_version("a/b/c"), None);
        assert_eq!(split_api_version("/v1"), None);
    }

    #[test]
    fn rfc3339_round_trips() {
        let t = parse_rfc3339("2021-09-14T10:20:30Z").unwrap();
        assert_eq!(format_rfc3339(t), "2021-09-14T10:20:30Z");
        assert_eq!(parse_rfc3339("2021-09-14T12:20:30+02:00"), Some(t));
        assert_eq!(parse_rfc3339("2021-09-14T10:20:30.123456Z"), Some(t));
        assert_eq!(parse_rfc3339("yesterday"), None);
        // Multi-byte characters where digits or the offset belong (once a panic: byte slicing
        // inside a character).
        // Years outside 0000..=9999 once in UTC: Kubernetes cannot write them, and they would
        // not read back from what `format_rfc3339` writes.
        for s in [
            "9999-12-31T23:59:59-01:00",
            "0000-01-01T00:00:00+01:00",
            "-001-12-31T23:00:00Z",
        ] {
            assert_eq!(parse_rfc3339(s), None, "{s}");
        }
        assert_eq!(parse_rfc3339("9999-12-31T23:59:59Z"), Some(253_402_300_799));
        assert_eq!(parse_rfc3339("0000-01-01T00:00:00Z"), Some(-62_167_219_200));
        for s in [
            "2021-09-14T10:20:30+0é00",
            "2021-09-14T10:20:30+é:00",
            "2021-09-14T10:20:3é+00:00",
            "２０２１-09-14T10:20:30Z",
            "2021-09-14T10:20:30.1234é",
        ] {
            assert_eq!(parse_rfc3339(s), None, "{s}");
        }
    }

    proptest::proptest! {
        /// No string makes the timestamp parser panic; what it accepts formats back to a
        /// timestamp that parses to the same second.
        #[test]
        fn rfc3339_parser_is_total(s in "\\PC{0,40}", t in "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})") {
            let _ = parse_rfc3339(&s);
            if let Some(secs) = parse_rfc3339(&t) {
                // The same second comes back, and writing it again writes the same text.
                let text = format_rfc3339(secs);
                proptest::prop_assert_eq!(parse_rfc3339(&text), Some(secs), "{}", text);
                proptest::prop_assert_eq!(format_rfc3339(secs), text);
            }
        }

        /// The hand-written digits write what `format!` with widths writes, for every second
        /// an `int64` can carry (years of five digits and negative years take `format!`).
        #[test]
        fn rfc3339_digits_match_format(secs in proptest::prelude::any::<i64>(), near in -1_000_000_000_000i64..300_000_000_000) {
            for secs in [secs, near] {
                let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
                let rem = secs.rem_euclid(86_400);
                let want = format!(
                    "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
                    rem / 3600,
                    (rem % 3600) / 60,
                    rem % 60
                );
                proptest::prop_assert_eq!(format_rfc3339(secs), want);
            }
        }
    }

    #[test]
    fn partial_coverage_is_per_namespace() {
        let o = ListOutcome::Partial {
            namespaces: vec!["a".into(), "".into()],
        };
        assert!(o.covers("a") && o.covers("") && !o.covers("b"));
        assert!(ListOutcome::Complete.covers("anything"));
        assert!(
            !ListOutcome::Forbidden {
                message: "no".into()
            }
            .covers("a")
        );
    }
}
