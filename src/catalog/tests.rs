//! The behaviour table's release boundaries pinned to numbers read upstream (issue 60 point 3),
//! independent of the table: each test states a change's upstream PR and first release as
//! literals, from the release's CHANGELOG or release notes (cited), and checks that the table
//! and [`KubeVersion::has`] agree with them on both sides of the boundary.
//!
//! A row whose first release could not be read upstream says so in its test's name
//! (`…_unverified`): the literal there is the table's own claim (the PR's merge date against
//! the release calendar, or the team's earlier reference), so the test only pins it against
//! silent edits, and also checks that the table marks the row [`Evidence::Unverified`].

use super::version::{CHANGES, Change, Evidence, KubeVersion};

fn r(minor: u32, patch: u32) -> KubeVersion {
    KubeVersion::release(minor, patch)
}

/// The row of `change` has `pr`, `first` and `evidence`; a release just before `first`
/// (`before`, the newest without it) lacks the change and `first` has it.
#[track_caller]
fn pinned(change: Change, pr: u32, before: KubeVersion, first: KubeVersion, evidence: Evidence) {
    let row = change.row();
    assert_eq!(row.pr, pr, "{}: the upstream PR", row.row);
    assert_eq!(row.first, first, "{} (#{pr}): the first release", row.row);
    assert_eq!(row.evidence, evidence, "{} (#{pr}): the evidence", row.row);
    assert!(
        !before.has(change),
        "{} (#{pr}) must be absent at {before}",
        row.row
    );
    assert!(
        first.has(change),
        "{} (#{pr}) must be present at {first}",
        row.row
    );
}

/// A5, kubernetes#81158 ("Fix unsafe JSON construction in a number of locations in the
/// codebase"): listed in CHANGELOG-1.17 under v1.17.0-alpha.2, so first released in v1.17.0.
#[test]
fn a5_uid_first_removal_patch_from_1_17_0_pr_81158() {
    pinned(
        Change::UidFirstRemovalPatch,
        81158,
        r(16, 99),
        r(17, 0),
        Evidence::Verified,
    );
}

/// A6, kubernetes#92743 (a namespaced dependent of a missing or cross-namespace owner treated as
/// though the owner is absent, cluster-scoped dependents of namespaced kinds ignored): listed
/// in CHANGELOG-1.20 among the v1.20.0 changes (beside the dockershim deprecation).
#[test]
fn a6_coordinate_aware_graph_from_1_20_0_pr_92743() {
    pinned(
        Change::CoordinateAwareGraph,
        92743,
        r(19, 16),
        r(20, 0),
        Evidence::Verified,
    );
}

/// A7, kubernetes#96185 (the API server drops duplicated ownerReference entries and warns):
/// listed in the same v1.20.0 changes of CHANGELOG-1.20.
#[test]
fn a7_dedup_owner_references_from_1_20_0_pr_96185() {
    pinned(
        Change::DedupOwnerReferences,
        96185,
        r(19, 16),
        r(20, 0),
        Evidence::Verified,
    );
}

/// A8, kubernetes#98068 (fixes kubernetes#98040), in v1.21.0, and its back-port
/// kubernetes#98105 in v1.20.3 (read in the v1.20.2 and v1.20.3 sources, gc-model Appendix A;
/// the live suites confirm v1.20.2 lacks it, `tests/live/check.rs`).
#[test]
fn a8_third_coordinate_check_from_1_21_0_pr_98068_and_1_20_3_pr_98105() {
    let change = Change::ThirdCoordinateCheck;
    pinned(change, 98068, r(20, 2), r(21, 0), Evidence::Verified);
    let ports: Vec<(u32, KubeVersion)> = change
        .row()
        .backports
        .iter()
        .map(|b| (b.pr, b.release))
        .collect();
    assert_eq!(ports, [(98105, r(20, 3))]);
    assert!(!r(20, 2).has(change) && r(20, 3).has(change));
}

/// A13, kubernetes#125796 ("Fixed a bug in the garbage collector controller which could block
/// indefinitely due to a cache sync failure"): listed in the v1.32.0 release notes.
#[test]
fn a13_workers_start_without_full_sync_from_1_32_0_pr_125796() {
    pinned(
        Change::WorkersStartWithoutFullSync,
        125796,
        r(31, 99),
        r(32, 0),
        Evidence::Verified,
    );
}

/// A15, kubernetes#136817: a 404 on the GC's DELETE handled at once as a virtual delete, from
/// v1.36.0 (read in the sources, gc-model Appendix A; not re-read for this test).
#[test]
fn a15_delete_not_found_is_virtual_delete_from_1_36_0_pr_136817() {
    pinned(
        Change::DeleteNotFoundIsVirtualDelete,
        136817,
        r(35, 99),
        r(36, 0),
        Evidence::Verified,
    );
}

/// A4, kubernetes#75972: no CHANGELOG entry found; the table's v1.15.0 is the team's earlier
/// reference.
#[test]
fn a4_finalizer_merge_patch_from_1_15_0_pr_75972_unverified() {
    pinned(
        Change::FinalizerMergePatch,
        75972,
        r(14, 99),
        r(15, 0),
        Evidence::Unverified,
    );
}

/// A10, kubernetes#110888 ("ignore all event resource for gc", release note NONE, so in no
/// CHANGELOG): v1.25.0 is inferred from the PR's dates.
#[test]
fn a10_events_k8s_io_ignored_from_1_25_0_pr_110888_unverified() {
    pinned(
        Change::EventsK8sIoIgnored,
        110888,
        r(24, 99),
        r(25, 0),
        Evidence::Unverified,
    );
}

/// A10's window: a v1.28 source tree read with the change (kevinhehc/k8s-1.28,
/// pkg/controller/garbagecollector/graph_builder.go at d253fe4e) bounds it above; v1.24.x
/// cannot have it (the PR opened on 2022-06-30, after the v1.24 branch, and no cherry-pick
/// was found). In between, verdicts that depend on it are unknown.
#[test]
fn a10_unsettled_from_1_25_0_until_1_28_0_seen_in_a_1_28_source_tree() {
    let c = Change::EventsK8sIoIgnored;
    assert!(!r(24, 99).unsettled(c));
    assert!(r(25, 0).unsettled(c));
    assert!(r(27, 99).unsettled(c));
    assert!(!r(28, 0).unsettled(c));
    assert!(r(28, 0).has(c));
}

/// Only unverified rows leave releases unsettled.
#[test]
fn verified_rows_are_settled_at_every_release() {
    for row in CHANGES.iter().filter(|r| r.evidence == Evidence::Verified) {
        for minor in 13..=36 {
            assert!(
                !r(minor, 0).unsettled(row.change),
                "{} at 1.{minor}",
                row.row
            );
        }
    }
}

/// A11, kubernetes#112692 ("Drop DOT dependency", merged 2022-09-23 after v1.25.0, release note
/// NONE): v1.26.0 is inferred from the merge date.
#[test]
fn a11_dot_without_gonum_from_1_26_0_pr_112692_unverified() {
    pinned(
        Change::DotWithoutGonum,
        112692,
        r(25, 99),
        r(26, 0),
        Evidence::Unverified,
    );
}

/// A12, kubernetes#115813 (canonical controller names): found in release notes among 1.28-era
/// PRs, but the release heading was not read.
#[test]
fn a12_canonical_controller_names_from_1_28_0_pr_115813_unverified() {
    pinned(
        Change::CanonicalControllerNames,
        115813,
        r(27, 99),
        r(28, 0),
        Evidence::Unverified,
    );
}

/// The release an upstream changelog lists a PR under: the `# vX.Y.Z` heading above the entry
/// that links `#pr`, in a committed excerpt of the changelog (`testdata/`, with its source).
fn release_in_changelog(excerpt: &str, pr: u32) -> KubeVersion {
    let link = format!("[#{pr}](https://github.com/kubernetes/kubernetes/pull/{pr})");
    let mut heading = None;
    for line in excerpt.lines() {
        if let Some(v) = line.strip_prefix("# v") {
            heading = Some(v.to_owned());
        }
        if line.starts_with("- ") && line.contains(&link) {
            let v = heading.unwrap_or_else(|| panic!("#{pr} is listed under no release heading"));
            let mut parts = v.split('.').map(|n| n.parse::<u32>());
            return match (parts.next(), parts.next(), parts.next(), parts.next()) {
                (Some(Ok(1)), Some(Ok(minor)), Some(Ok(patch)), None) => r(minor, patch),
                _ => panic!("#{pr} is listed under {v:?}, not a release"),
            };
        }
    }
    panic!("#{pr} is not in the excerpt")
}

/// A14, kubernetes#132632 ("fix: add RV check on GC delete calls"): CHANGELOG-1.34 lists it
/// among v1.34.0's bug fixes ("The garbage collection controller no longer raced with changes
/// to `ownerReferences` when deleting orphaned objects"), read from the committed excerpt.
#[test]
fn a14_delete_with_resource_version_from_1_34_0_pr_132632() {
    let excerpt = include_str!("testdata/CHANGELOG-1.34.excerpt.md");
    assert!(excerpt.contains("no longer raced with changes to `ownerReferences`"));
    let first = release_in_changelog(excerpt, 132632);
    assert_eq!(first, r(34, 0), "the changelog's release");
    pinned(
        Change::DeleteWithResourceVersion,
        132632,
        r(33, 99),
        first,
        Evidence::Verified,
    );
}

/// Every row of the table is pinned above, so that a new row comes with its own literal.
#[test]
fn every_row_is_pinned() {
    let rows: Vec<&str> = CHANGES.iter().map(|c| c.row).collect();
    assert_eq!(
        rows,
        [
            "A4", "A5", "A6", "A7", "A8", "A10", "A11", "A12", "A13", "A14", "A15"
        ]
    );
}
