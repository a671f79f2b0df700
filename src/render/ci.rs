//! What the CI formats ([`super::sarif`], [`super::junit`], [`super::markdown`],
//! [`super::html`]) and the fleet report render: the findings of one or more clusters, as
//! owned reports (so that several clusters, analysed concurrently, can be rendered into one
//! document after their snapshots are gone), with each cluster's label, exit code and, for a
//! cluster that could not be audited, its error.
//!
//! # Finding identity
//!
//! CI systems track a finding across runs by an identity that must not change while the
//! problem stays: SARIF's `partialFingerprints`, JUnit test names. It is the same triple a
//! baseline file records (README "CI gates"): the code, the subject (the object's UID, or
//! `plural.group` for resource-level findings) and the UID of the ownerReference involved
//! (empty when none). UIDs are unique per object incarnation, so a recreated object is a new
//! finding, and a renamed message text is not.

use super::audit::{AuditReport, FindingJson};
use crate::diagnose::Severity;
use crate::snapshot::SourceKind;
use serde::Serialize;

/// Every cluster's results for one command (`audit` or `check`).
#[derive(Debug)]
pub struct CiReport {
    /// `audit`, `check` or `check apply`, as typed after `kubectl gc`.
    pub command: &'static str,
    /// `--fail-on` (`None`: never).
    pub fail_on: Option<Severity>,
    /// `--strict-coverage`.
    pub strict_coverage: bool,
    /// One entry per cluster, in the order asked for.
    pub clusters: Vec<ClusterReport>,
}

/// One cluster's result.
#[derive(Debug)]
pub struct ClusterReport {
    /// The cluster's label: its kubeconfig context, else where the input came from.
    pub name: String,
    /// The process exit code this cluster alone would give.
    pub exit_code: u8,
    /// The report, or why there is none.
    pub outcome: ClusterOutcome,
}

/// A report or an error.
#[derive(Debug)]
pub enum ClusterOutcome {
    /// The cluster was read and analysed.
    Report {
        /// The findings, summary and coverage.
        report: Box<AuditReport>,
        /// Ownership pictures of the affected components (HTML only; empty otherwise).
        components: Vec<super::html::Component>,
    },
    /// Nothing could be analysed (unreachable, unauthorised, bad kubeconfig, …).
    Failed(ClusterError),
}

/// Why a cluster has no report.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ClusterError {
    /// One line of cause.
    pub message: String,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl ClusterReport {
    /// The report, when the cluster was analysed.
    pub fn report(&self) -> Option<&AuditReport> {
        match &self.outcome {
            ClusterOutcome::Report { report, .. } => Some(report),
            ClusterOutcome::Failed(_) => None,
        }
    }

    /// The error, when it was not.
    pub fn error(&self) -> Option<&ClusterError> {
        match &self.outcome {
            ClusterOutcome::Failed(e) => Some(e),
            ClusterOutcome::Report { .. } => None,
        }
    }
}

impl CiReport {
    /// True when the report covers several clusters (`--context a,b`, `--all-contexts`).
    pub fn is_fleet(&self) -> bool {
        self.clusters.len() > 1
    }

    /// True when this finding fails the gate (`--fail-on`).
    pub fn fails(&self, severity: Severity) -> bool {
        self.fail_on.is_some_and(|at| severity >= at)
    }

    /// `--fail-on` as written (`never`, `error`, …).
    pub fn fail_on_text(&self) -> &'static str {
        self.fail_on.map_or("never", Severity::as_str)
    }
}

/// The label of a single (non-fleet) report's cluster: the kubeconfig context it was read
/// with, else `files` or `cluster`.
pub fn cluster_label(r: &AuditReport) -> String {
    match (&r.source.context, r.source.source) {
        (Some(c), _) if !c.is_empty() => c.clone(),
        (_, SourceKind::Files) => "files".into(),
        _ => "cluster".into(),
    }
}

/// The finding's identity (see the module docs): `code`, subject, owner UID.
pub fn identity(f: &FindingJson) -> (&'static str, String, String) {
    let subject = f
        .object
        .as_ref()
        // An object not created yet (check apply) has no UID: its coordinates identify it.
        .map(|o| {
            if o.uid.is_empty() {
                format!("{}/{}/{}/{}", o.api_version(), o.kind, o.namespace, o.name)
            } else {
                o.uid.clone()
            }
        })
        .or_else(|| f.resource.clone())
        .unwrap_or_default();
    let owner = f
        .owner_reference
        .as_ref()
        .and_then(|r| r.get("uid"))
        .and_then(|u| u.as_str())
        .unwrap_or_default()
        .to_owned();
    (f.code, subject, owner)
}

/// The stable fingerprint of a finding: `code/subject/ownerUID`, each part
/// percent-encoded so that a `/` in a resource name cannot make two identities collide.
pub fn fingerprint(f: &FindingJson) -> String {
    let (code, subject, owner) = identity(f);
    let enc = |s: &str| {
        percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
    };
    format!("{code}/{}/{}", enc(&subject), enc(&owner))
}

/// `Kind/name -n namespace` (or the resource) of a finding, for people.
pub fn subject_text(f: &FindingJson) -> String {
    match (&f.object, &f.resource) {
        (Some(o), _) => o.to_string(),
        (None, Some(r)) => format!("resource {r}"),
        (None, None) => "-".into(),
    }
}

/// `Kind/name` of the finding's owner reference, if any.
pub fn owner_text(f: &FindingJson) -> Option<String> {
    let r = f.owner_reference.as_ref()?;
    let s = |k: &str| r.get(k).and_then(|v| v.as_str()).unwrap_or_default();
    Some(format!("{}/{}", s("kind"), s("name")))
}

/// Severities as the formats show them, highest first.
pub const SEVERITIES: [Severity; 4] = [
    Severity::Critical,
    Severity::Error,
    Severity::Warning,
    Severity::Info,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::ObjectRef;

    fn finding(uid: &str, owner: Option<&str>) -> FindingJson {
        FindingJson {
            code: "GC001",
            name: "dangling-owner",
            severity: Severity::Error,
            object: Some(ObjectRef {
                version: "v1".into(),
                kind: "ConfigMap".into(),
                namespace: "shop".into(),
                name: "x".into(),
                uid: uid.into(),
                ..Default::default()
            }),
            resource: None,
            owner_reference: owner
                .map(|o| serde_json::json!({"kind": "ReplicaSet", "name": "rs", "uid": o})),
            classification: None,
            consequence: String::new(),
            when: None,
            when_reason: None,
            message: String::new(),
            related: Vec::new(),
            remedies: Vec::new(),
            fixes: Vec::new(),
            evidence: Vec::new(),
            source: None,
        }
    }

    #[test]
    fn fingerprints_follow_the_baseline_identity() {
        assert_eq!(
            fingerprint(&finding("u-1", Some("o-1"))),
            "GC001/u%2D1/o%2D1"
        );
        assert_eq!(fingerprint(&finding("u-1", None)), "GC001/u%2D1/");
        // A slash in one part cannot collide with the separator.
        assert_ne!(
            fingerprint(&finding("a/b", Some("c"))),
            fingerprint(&finding("a", Some("b/c")))
        );
    }
}
