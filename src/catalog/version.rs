//! Kubernetes releases, as far as GC semantics and API removals care (major is always 1), and
//! the table of GC behaviour changes keyed by the exact release that first has them, back-ports
//! included (docs/gc-model.md, Appendix A).
//!
//! A version is `1.minor` or `1.minor.patch`. Patch releases matter: PR #98068 (the third
//! coordinate check, issue #98040) ships in v1.21.0 **and** in v1.20.3 (back-port #98105), so
//! v1.20.0–v1.20.2 strand dependents that v1.20.3–v1.20.15 collect (Appendix A row A8).
//! A version written without a patch number (`1.20`, a server reporting `v1.28+`) stands for the
//! first release of its line (`v1.20.0`): where a back-port splits the line, give the patch.
//!
//! Only releases in [`SUPPORTED`] are modelled. Outside it [`KubeVersion::from_str`] (the CLI's
//! parser for `--gc-version` and `--to`) is an error naming the range; a server or snapshot
//! reporting an unmodelled release gets [`KubeVersion::emulated_for_server`]: the nearest
//! modelled release plus a warning to show the user (refusing to read a newer cluster at all
//! would make the tool useless until it is updated; pretending silently would be worse).

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// A Kubernetes release: `1.minor` (patch unknown: the line's first release) or
/// `1.minor.patch`.
///
/// Ordering and equality compare `(major, minor, patch)` with a missing patch read as 0, so
/// `1.20 == 1.20.0 < 1.20.3 < 1.21`.
#[derive(Clone, Copy, Debug)]
pub struct KubeVersion {
    /// Major version (1).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch release, when known.
    pub patch: Option<u32>,
}

/// The range of releases whose GC kubectl-gc models: the oldest and the newest **line**
/// (every patch release of the newest line is accepted).
pub const SUPPORTED: (KubeVersion, KubeVersion) = (KubeVersion::v1(13), KubeVersion::NEWEST);

/// Why a version cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VersionError {
    /// Not a Kubernetes version at all.
    Syntax(String),
    /// A Kubernetes version outside [`SUPPORTED`].
    Unsupported(KubeVersion),
}

impl fmt::Display for VersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionError::Syntax(s) => write!(
                f,
                "`{s}` is not a Kubernetes version (expected e.g. 1.20, 1.20.5 or v1.28.3+k3s1)"
            ),
            VersionError::Unsupported(v) => write!(
                f,
                "Kubernetes {v} is outside the releases whose garbage collector kubectl-gc models \
                 ({})",
                supported_range()
            ),
        }
    }
}

impl std::error::Error for VersionError {}

/// `v1.13.0–v1.38.x`, for messages.
pub fn supported_range() -> String {
    format!(
        "v{}.{}.0–v{}.{}.x",
        SUPPORTED.0.major, SUPPORTED.0.minor, SUPPORTED.1.major, SUPPORTED.1.minor
    )
}

impl KubeVersion {
    /// `1.minor` (patch unknown).
    pub const fn v1(minor: u32) -> Self {
        KubeVersion {
            major: 1,
            minor,
            patch: None,
        }
    }

    /// `1.minor.patch`.
    pub const fn release(minor: u32, patch: u32) -> Self {
        KubeVersion {
            major: 1,
            minor,
            patch: Some(patch),
        }
    }

    /// The newest line whose GC behaviour this tool models. 1.37 and 1.38 (read through
    /// v1.38.0-alpha.2) change no GC decision (gc-model Appendix A, "1.37 and 1.38"): the
    /// GC behaves as in 1.36, and the namespace controller's pods-first deletion, keyed on the
    /// release from 1.33, can no longer be switched off (kubernetes#138907).
    pub const NEWEST: KubeVersion = KubeVersion::v1(38);

    /// Parses the shapes servers and users write: `v1.20.2`, `1.20`, `1.20.5`,
    /// `v1.20.5-eks-49a6c0`, `v1.27.3+k3s1`, `v1.23.5-gke.100`, `v1.28+` (GKE's minor). Only
    /// Kubernetes 1.x parses (`4.8`, an OpenShift release, does not). No range check: see
    /// [`KubeVersion::supported`].
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let s = s.strip_prefix('v').unwrap_or(s);
        // The release proper ends at the first build or pre-release marker.
        let (core, _suffix) = match s.find(['-', '+']) {
            Some(i) => s.split_at(i),
            None => (s, ""),
        };
        let mut parts = core.split('.');
        let number = |t: Option<&str>| -> Option<u32> {
            let t = t?;
            if t.is_empty() || t.len() > 6 || !t.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            t.parse().ok()
        };
        let major = number(parts.next())?;
        let minor = number(parts.next())?;
        let patch = match parts.next() {
            None => None,
            Some(p) => Some(number(Some(p))?),
        };
        if major != 1 || parts.next().is_some() {
            return None;
        }
        Some(KubeVersion {
            major,
            minor,
            patch,
        })
    }

    /// This version if kubectl-gc models it, else [`VersionError::Unsupported`].
    pub fn supported(self) -> Result<Self, VersionError> {
        if self.minor < SUPPORTED.0.minor || self.minor > SUPPORTED.1.minor {
            Err(VersionError::Unsupported(self))
        } else {
            Ok(self)
        }
    }

    /// The release to emulate for a cluster reporting `server` (a live server's `gitVersion`
    /// or a snapshot's provenance): the release itself when modelled; otherwise the nearest
    /// modelled line, with a warning for the user. `None` when `server` is not a Kubernetes
    /// version at all (the caller falls back to its default and may say so).
    pub fn emulated_for_server(server: &str) -> Option<(KubeVersion, Option<String>)> {
        let v = KubeVersion::parse(server)?;
        Some(match v.supported() {
            Ok(v) => (v, None),
            Err(_) => {
                let nearest = if v.minor < SUPPORTED.0.minor {
                    SUPPORTED.0
                } else {
                    SUPPORTED.1
                };
                (
                    nearest,
                    Some(format!(
                        "the cluster reports Kubernetes {}, outside the releases kubectl-gc \
                         models ({}); emulating the GC of {nearest} (set --gc-version to choose)",
                        server.trim(),
                        supported_range()
                    )),
                )
            }
        })
    }

    /// True when this version is at least `1.minor` (any patch).
    pub fn at_least(self, minor: u32) -> bool {
        self >= KubeVersion::v1(minor)
    }

    /// True when GC release `self` has behaviour change `c`: it is at least the change's first
    /// release on the main line, or it is on a line the change was back-ported to, at or after
    /// the back-port.
    pub fn has(self, c: Change) -> bool {
        let row = c.row();
        self >= row.first
            || row
                .backports
                .iter()
                .any(|b| b.release.minor == self.minor && self >= b.release)
    }

    /// True when it is not known whether GC release `self` has change `c`: the change's
    /// boundary is unverified and `self` lies between the release it is dated to and the
    /// first release whose source was read with it. Verdicts that depend on the change are
    /// unknown at such a release, never guessed from the table.
    pub fn unsettled(self, c: Change) -> bool {
        let row = c.row();
        row.evidence == Evidence::Unverified
            && self >= row.first
            && row.seen_in.is_none_or(|seen| self < seen)
    }

    /// The patch number, 0 when unknown.
    fn patch_or_zero(self) -> u32 {
        self.patch.unwrap_or(0)
    }

    fn key(self) -> (u32, u32, u32) {
        (self.major, self.minor, self.patch_or_zero())
    }
}

impl PartialEq for KubeVersion {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for KubeVersion {}

impl Hash for KubeVersion {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl PartialOrd for KubeVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for KubeVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.patch {
            Some(p) => write!(f, "{}.{}.{p}", self.major, self.minor),
            None => write!(f, "{}.{}", self.major, self.minor),
        }
    }
}

/// Strict parsing for user input (`--gc-version`, `--to`): the syntax of
/// [`KubeVersion::parse`] and a release inside [`SUPPORTED`]; the error is the
/// [`VersionError`]'s message (what clap prints).
impl std::str::FromStr for KubeVersion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        KubeVersion::parse(s)
            .ok_or_else(|| VersionError::Syntax(s.to_owned()))
            .and_then(KubeVersion::supported)
            .map_err(|e| e.to_string())
    }
}

/// One GC behaviour change of the table (docs/gc-model.md Appendix A, same row ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Change {
    /// A4: `removeFinalizer` sends a JSON merge patch (before: GET + full update).
    FinalizerMergePatch,
    /// A5: the ownerReference-removal SMP is escaped JSON with `uid` before `ownerReferences`
    /// (before: string formatting, `ownerReferences` first).
    UidFirstRemovalPatch,
    /// A6: coordinate-keyed absent-owner cache, coordinate checks and `OwnerRefInvalidNamespace`
    /// events, virtual deletes that keep contested nodes, cluster-scoped dependents of
    /// namespaced kinds unresolvable.
    CoordinateAwareGraph,
    /// A7: the API server drops exactly duplicated ownerReferences on write.
    DedupOwnerReferences,
    /// A8: the third coordinate check (a namespace-less virtual owner no longer strands the
    /// namespaced dependents of a missing owner, issue #98040).
    ThirdCoordinateCheck,
    /// A10: `events.k8s.io` events are ignored too (before: only core `events`, so every Event
    /// was a node through `events.k8s.io`).
    EventsK8sIoIgnored,
    /// A11: the DOT debug graph is printed without gonum.
    DotWithoutGonum,
    /// A12: controllers registered under canonical names (debug path
    /// `…/garbage-collector-controller/graph`).
    CanonicalControllerNames,
    /// A13: workers start after an initial-sync timeout even if monitors never sync.
    WorkersStartWithoutFullSync,
    /// A14: the GC's DELETE carries a resourceVersion precondition as well as the UID.
    DeleteWithResourceVersion,
    /// A15: a 404 on the GC's DELETE is handled at once as a virtual delete.
    DeleteNotFoundIsVirtualDelete,
}

/// A back-port of a change to an older release line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backport {
    /// The cherry-pick PR.
    pub pr: u32,
    /// The first release of the older line that carries it.
    pub release: KubeVersion,
}

/// How a row's first release was established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// Read in the source of the releases on either side, or in the CHANGELOG of the release.
    Verified,
    /// Inferred (merge window, PR thread) or taken from the team's earlier reference only.
    Unverified,
}

/// One row of the behaviour table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeRow {
    /// The change.
    pub change: Change,
    /// The row id in docs/gc-model.md Appendix A (`A8`).
    pub row: &'static str,
    /// The upstream PR on kubernetes/kubernetes.
    pub pr: u32,
    /// The first release of the main line that has it.
    pub first: KubeVersion,
    /// Back-ports to older lines.
    pub backports: &'static [Backport],
    /// How the boundary is known.
    pub evidence: Evidence,
    /// For an unverified boundary: the earliest release whose source was read and holds the
    /// change. Releases from `first` up to it may or may not have it, so a verdict that
    /// depends on the change is unknown there ([`KubeVersion::unsettled`]).
    pub seen_in: Option<KubeVersion>,
    /// One line: what changes.
    pub summary: &'static str,
}

/// The behaviour table, in row order. Rows A1–A3 lie below the modelled range; A9 changes no
/// GC byte (it only retires a wrong boundary); A16 and A17 have no identified PR and are not
/// observable offline (gc-model Appendix A.1).
pub const CHANGES: &[ChangeRow] = &[
    ChangeRow {
        change: Change::FinalizerMergePatch,
        row: "A4",
        pr: 75972,
        first: KubeVersion::release(15, 0),
        backports: &[],
        evidence: Evidence::Unverified,
        seen_in: None,
        summary: "removeFinalizer sends a JSON merge patch (before: GET + update)",
    },
    ChangeRow {
        change: Change::UidFirstRemovalPatch,
        row: "A5",
        pr: 81158,
        first: KubeVersion::release(17, 0),
        backports: &[],
        evidence: Evidence::Verified,
        seen_in: None,
        summary: "ownerReference-removal patch as escaped JSON, uid before ownerReferences",
    },
    ChangeRow {
        change: Change::CoordinateAwareGraph,
        row: "A6",
        pr: 92743,
        first: KubeVersion::release(20, 0),
        backports: &[],
        evidence: Evidence::Verified,
        seen_in: None,
        summary: "coordinate-keyed absent cache, coordinate checks, OwnerRefInvalidNamespace \
                  events; cluster-scoped dependents of namespaced kinds unresolvable",
    },
    ChangeRow {
        change: Change::DedupOwnerReferences,
        row: "A7",
        pr: 96185,
        first: KubeVersion::release(20, 0),
        backports: &[],
        evidence: Evidence::Verified,
        seen_in: None,
        summary: "the API server drops exactly duplicated ownerReferences on write",
    },
    ChangeRow {
        change: Change::ThirdCoordinateCheck,
        row: "A8",
        pr: 98068,
        first: KubeVersion::release(21, 0),
        backports: &[Backport {
            pr: 98105,
            release: KubeVersion::release(20, 3),
        }],
        evidence: Evidence::Verified,
        seen_in: None,
        summary: "a namespace-less virtual owner no longer strands namespaced dependents of a \
                  missing owner (issue #98040)",
    },
    ChangeRow {
        change: Change::EventsK8sIoIgnored,
        row: "A10",
        pr: 110888,
        first: KubeVersion::release(25, 0),
        backports: &[],
        evidence: Evidence::Unverified,
        seen_in: Some(KubeVersion::release(28, 0)),
        summary: "events.k8s.io events ignored as well as core events",
    },
    ChangeRow {
        change: Change::DotWithoutGonum,
        row: "A11",
        pr: 112692,
        first: KubeVersion::release(26, 0),
        backports: &[],
        evidence: Evidence::Unverified,
        seen_in: None,
        summary: "the DOT debug graph printed without gonum (UID vertex ids, sorted)",
    },
    ChangeRow {
        change: Change::CanonicalControllerNames,
        row: "A12",
        pr: 115813,
        first: KubeVersion::release(28, 0),
        backports: &[],
        evidence: Evidence::Unverified,
        seen_in: None,
        summary: "debug path /debug/controllers/garbage-collector-controller/graph",
    },
    ChangeRow {
        change: Change::WorkersStartWithoutFullSync,
        row: "A13",
        pr: 125796,
        first: KubeVersion::release(32, 0),
        backports: &[],
        evidence: Evidence::Verified,
        seen_in: None,
        summary: "workers start after an initial-sync timeout; a failing monitor no longer \
                  stops all garbage collection",
    },
    ChangeRow {
        change: Change::DeleteWithResourceVersion,
        row: "A14",
        pr: 132632,
        first: KubeVersion::release(34, 0),
        backports: &[],
        // CHANGELOG-1.34, v1.34.0 "Bug or Regression" (src/catalog/testdata).
        evidence: Evidence::Verified,
        seen_in: None,
        summary: "the GC's DELETE carries a resourceVersion precondition",
    },
    ChangeRow {
        change: Change::DeleteNotFoundIsVirtualDelete,
        row: "A15",
        pr: 136817,
        first: KubeVersion::release(36, 0),
        backports: &[],
        evidence: Evidence::Verified,
        seen_in: None,
        summary: "a 404 on the GC's DELETE is handled at once as a virtual delete",
    },
];

impl Change {
    /// The change's row of [`CHANGES`].
    pub fn row(self) -> &'static ChangeRow {
        CHANGES
            .iter()
            .find(|r| r.change == self)
            .expect("every Change has a row in CHANGES")
    }

    /// The releases between which the behaviour flips, for the version-matrix tests: for each
    /// first release (main line and back-ports), the newest release before it that lacks the
    /// change, and the release itself. Before `1.m.0` that is the last release of line `m-1`
    /// without a back-port: written `1.(m-1).99` when the line has none (a patch no line
    /// reached; the table only compares), else the release just before the back-port.
    pub fn boundaries(self) -> Vec<(KubeVersion, KubeVersion)> {
        let row = self.row();
        std::iter::once(row.first)
            .chain(row.backports.iter().map(|b| b.release))
            .map(|first| {
                let before = match first.patch_or_zero() {
                    0 => match row
                        .backports
                        .iter()
                        .find(|b| b.release.minor + 1 == first.minor)
                    {
                        Some(b) => {
                            KubeVersion::release(b.release.minor, b.release.patch_or_zero() - 1)
                        }
                        None => KubeVersion::release(first.minor - 1, 99),
                    },
                    p => KubeVersion::release(first.minor, p - 1),
                };
                (before, first)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_shapes_servers_report() {
        let p = KubeVersion::parse;
        assert_eq!(p("v1.20.2"), Some(KubeVersion::release(20, 2)));
        assert_eq!(p("v1.20.2").unwrap().patch, Some(2));
        assert_eq!(p("1.13"), Some(KubeVersion::v1(13)));
        assert_eq!(p("1.13").unwrap().patch, None);
        assert_eq!(p("v1.21.7+rke2r1"), Some(KubeVersion::release(21, 7)));
        assert_eq!(p("v1.23.5-gke.100"), Some(KubeVersion::release(23, 5)));
        assert_eq!(p("v1.20.5-eks-49a6c0"), Some(KubeVersion::release(20, 5)));
        assert_eq!(p("v1.27.3+k3s1"), Some(KubeVersion::release(27, 3)));
        assert_eq!(p("v1.28+"), Some(KubeVersion::v1(28)));
        assert_eq!(p(" 1.20.15 "), Some(KubeVersion::release(20, 15)));
        for bad in [
            "4.8",
            "latest",
            "",
            "v",
            "1",
            "1.",
            "1.x",
            "1.20.",
            "1.20.2.1",
            "1.-2",
            "1.20.x",
            "2.0.0",
            "1.99999999999",
        ] {
            assert_eq!(p(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn order_and_equality_read_a_missing_patch_as_zero() {
        let (v20, v20_0, v20_3) = (
            KubeVersion::v1(20),
            KubeVersion::release(20, 0),
            KubeVersion::release(20, 3),
        );
        assert_eq!(v20, v20_0);
        assert!(v20 < v20_3 && v20_3 < KubeVersion::v1(21));
        assert!(KubeVersion::release(20, 15).at_least(20));
        assert!(!KubeVersion::release(19, 16).at_least(20));
        assert_eq!(v20.to_string(), "1.20");
        assert_eq!(v20_3.to_string(), "1.20.3");
    }

    #[test]
    fn the_cli_refuses_versions_outside_the_table_and_names_the_range() {
        for ok in ["1.13", "1.20.5", "v1.36.4", "1.36", "1.37", "v1.38.0"] {
            assert!(ok.parse::<KubeVersion>().is_ok(), "{ok}");
        }
        for out in ["1.99", "v1.40.0", "1.12.9", "1.39"] {
            let e = out.parse::<KubeVersion>().unwrap_err();
            assert!(e.contains("v1.13.0–v1.38.x"), "{out}: {e}");
        }
        let e = "banana".parse::<KubeVersion>().unwrap_err();
        assert!(e.contains("not a Kubernetes version"), "{e}");
    }

    #[test]
    fn an_unmodelled_server_is_emulated_by_the_nearest_line_with_a_warning() {
        let (v, w) = KubeVersion::emulated_for_server("v1.20.5-eks-49a6c0").unwrap();
        assert_eq!((v, w), (KubeVersion::release(20, 5), None));
        let (v, w) = KubeVersion::emulated_for_server("v1.40.1").unwrap();
        assert_eq!(v, KubeVersion::NEWEST);
        assert!(w.unwrap().contains("v1.40.1"));
        let (v, w) = KubeVersion::emulated_for_server("v1.9.11").unwrap();
        assert_eq!(v, SUPPORTED.0);
        assert!(w.is_some());
        assert_eq!(KubeVersion::emulated_for_server("OpenShift 4.8"), None);
    }

    #[test]
    fn back_ports_split_the_1_20_line() {
        let third = Change::ThirdCoordinateCheck;
        for (v, has) in [
            (KubeVersion::release(20, 0), false),
            (KubeVersion::v1(20), false),
            (KubeVersion::release(20, 2), false),
            (KubeVersion::release(20, 3), true),
            (KubeVersion::release(20, 15), true),
            (KubeVersion::release(21, 0), true),
            (KubeVersion::v1(21), true),
            (KubeVersion::release(19, 16), false),
        ] {
            assert_eq!(v.has(third), has, "{v}");
        }
        assert_eq!(
            third.boundaries(),
            vec![
                (KubeVersion::release(20, 2), KubeVersion::release(21, 0)),
                (KubeVersion::release(20, 2), KubeVersion::release(20, 3)),
            ]
        );
    }

    #[test]
    fn every_change_has_one_row_and_rows_flip_at_their_boundaries() {
        let mut seen = std::collections::BTreeSet::new();
        for row in CHANGES {
            assert!(seen.insert(row.change), "{:?} listed twice", row.change);
            assert!(row.first.supported().is_ok(), "{}", row.row);
            for (before, after) in row.change.boundaries() {
                assert!(!before.has(row.change), "{} at {before}", row.row);
                assert!(after.has(row.change), "{} at {after}", row.row);
            }
        }
    }
}
