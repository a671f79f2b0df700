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
use crate::diagnose::{Code, Severity};
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

/// What a finding code means and what to do about it: rule metadata for SARIF and the
/// legends of the Markdown and HTML reports.
#[derive(Clone, Copy, Debug)]
pub struct CodeHelp {
    /// One sentence.
    pub short: &'static str,
    /// What the GC does, in a few sentences.
    pub full: &'static str,
    /// How to fix it.
    pub fix: &'static str,
}

/// The help of a code (README "Finding codes").
pub fn help(code: Code) -> CodeHelp {
    let (short, full, fix) = match code {
        Code::DanglingOwner => (
            "The owner an ownerReference names does not exist.",
            "The GC looks the owner up by the reference's apiVersion, kind and name (in the dependent's namespace for namespaced kinds) and compares UIDs. When nothing is there, the reference is dangling; once a dependent has no solid owner left, the GC deletes it.",
            "If the object should live on, remove the ownerReference (on a live object, the patch in the report; in a manifest, delete the entry); if it is garbage, let the GC delete it.",
        ),
        Code::OwnerUidMismatch => (
            "An object with the owner's kind and name exists, but with another UID (it was recreated).",
            "The GC compares UIDs: a recreated owner is not the owner the reference names, so the reference is dangling and the dependent is deleted once no solid owner is left.",
            "Point the reference at the new owner's UID (the owning controller usually re-adopts), or remove it.",
        ),
        Code::OwnerCoordinatesMismatch => (
            "The owner's UID exists, but the reference's kind, name or group do not match it.",
            "The GC resolves the reference by its coordinates, not by UID alone: a mismatch makes it dangling, and the GC can delete a dependent whose owner is alive.",
            "Fix the reference's apiVersion/kind/name to match the owner, or remove it.",
        ),
        Code::CrossNamespaceOwner => (
            "The owner lives in another namespace.",
            "ownerReferences cannot cross namespaces: the GC looks the owner up in the dependent's own namespace, finds nothing, treats it as absent (and records an OwnerRefInvalidNamespace event), and deletes the dependent once no solid owner is left.",
            "Remove the cross-namespace reference; use a cluster-scoped owner or a controller that watches across namespaces instead.",
        ),
        Code::ClusterScopedDependentOfNamespacedOwner => (
            "A cluster-scoped object names a namespaced owner kind.",
            "A cluster-scoped dependent cannot have a namespaced owner: the GC (1.20 and later) drops such references and never collects the object through them.",
            "Remove the reference, or make the owner cluster-scoped.",
        ),
        Code::UnresolvableOwnerKind => (
            "The owner's apiVersion/kind is not served by the cluster.",
            "The GC cannot map the reference to a resource; it retries the dependent forever and never collects it through that reference.",
            "Fix the apiVersion/kind (e.g. a removed API version), install the CRD, or remove the reference.",
        ),
        Code::UnknownOwner => (
            "The input cannot tell whether the owner exists.",
            "The owner's resource was forbidden, failed to list, or (file inputs) is not proven complete in that namespace, or not held there at all. Unknown is never reported as dangling.",
            "Read the cluster with permission to list the owner's resource, or include it in the input.",
        ),
        Code::BlockedForegroundDeletion => (
            "A foreground deletion cannot finish.",
            "An owner being deleted with the foregroundDeletion finalizer waits until every dependent with blockOwnerDeletion=true is gone; a dependent held by another finalizer, or one the GC cannot delete, blocks the whole chain.",
            "Unblock the root blockers: delete them (or remove their finalizers when already terminating), remove their ownerReference, or set blockOwnerDeletion=false.",
        ),
        Code::OrphanFinalizer => (
            "An orphan finalizer is pending or stuck.",
            "The GC removes the owner's references from its dependents, then the orphan finalizer; it stalls when it cannot update a dependent or does not watch the resource.",
            "Check the GC can list, watch and patch the dependents' resources; remove the finalizer by hand once the dependents are orphaned.",
        ),
        Code::OwnershipCycle => (
            "Objects own each other (or themselves).",
            "The GC can delete a cycle only once every member is being deleted; foreground deletions in a cycle wait forever.",
            "Remove one reference of the cycle.",
        ),
        Code::DuplicateOwnerReferences => (
            "Several references to one owner UID, or several controller references.",
            "The API server normally refuses duplicates; objects written before that check, or by patches, confuse controllers and the GC's patches.",
            "Keep one reference per owner and at most one with controller: true.",
        ),
        Code::CollateralAtRisk => (
            "GC < 1.20: a valid dependent that a bad sibling reference can get deleted.",
            "Before 1.20 the GC caches absent owners by UID alone (kubernetes#65200): a dangling reference with the same UID as a real owner can make the GC delete that owner's valid dependents.",
            "Fix the bad sibling reference, or upgrade kube-controller-manager to 1.20 or later.",
        ),
        Code::TerminatingHeldByFinalizer => (
            "Terminating, held by finalizers the GC does not manage.",
            "The object has a deletionTimestamp but a finalizer no controller seems to process keeps it; owners waiting on it in foreground deletion wait too.",
            "Find the controller that owns the finalizer; remove the finalizer only once its work is known to be done.",
        ),
        Code::WaitingOwner => (
            "The owner is in foreground deletion.",
            "The reference waits for dependents deletion: the GC deletes this dependent as part of the owner's foreground deletion.",
            "Nothing to do unless the deletion is stuck (see GC008).",
        ),
        Code::RestartAction => (
            "A restarted GC deletes or patches this object.",
            "A freshly started GC verifies owners it has not seen and re-checks references that disagree with their owner: garbage a long-running GC never looked at is deleted right after a kube-controller-manager restart.",
            "Fix or remove the reference before the restart if the object must survive.",
        ),
        Code::RestartOrderDependent => (
            "What a restarted GC does to this object depends on an order upstream does not fix.",
            "A freshly started GC processes objects in the order its informers deliver them and its requests return; one of those orders deletes something meant to live (before 1.20 the absent-owner cache is keyed by UID alone, kubernetes#65200).",
            "Fix the references the outcome depends on (e.g. bad references that share an owner's UID), or upgrade to 1.20 or later.",
        ),
        Code::UpgradeBehaviourChange => (
            "An upgrade changes what the GC does to this object.",
            "The target release's GC decides differently (e.g. crossing 1.20: cross-namespace dependents become deterministically deleted, cluster-scoped dependents of namespaced owners stop being deleted).",
            "Fix the reference before upgrading, or accept the new behaviour.",
        ),
        Code::OwnerUnservedAfterUpgrade => (
            "The owner's apiVersion/kind is not served after the upgrade.",
            "The target release (or the CRD manifest given with --crd) no longer serves the reference's apiVersion: the GC cannot resolve it and never collects the dependent through it.",
            "Update the references to a served version before upgrading.",
        ),
        Code::GcSyncBlocker => (
            "A deletable resource the GC cannot list or watch.",
            "The GC's informers cannot sync: before 1.32 this pauses all garbage collection (kubernetes#127105); later the resource's objects are not collected.",
            "Fix the aggregated API or CRD conversion webhook behind the resource, or remove the broken APIService.",
        ),
        Code::StrandedDependent => (
            "Garbage a restarted GC never evaluates.",
            "An unmappable virtual owner, or (GC 1.20, kubernetes#98040) an informer order, keeps a restarted GC from ever looking at this dependent.",
            "Delete the dependent by hand, or fix its reference.",
        ),
        Code::OrderDependent => (
            "The GC's end state for this object depends on an order upstream does not fix.",
            "Depending on the order in which the GC's informers deliver objects or its requests complete, the running GC leaves this object in different end states (deleted, terminating or kept).",
            "Fix the references the outcome depends on, so that every order ends the same way.",
        ),
        Code::OwnerNameNotRequestable => (
            "The owner's name is not a valid path segment ('.', '..', '/' or '%').",
            "The GC's metadata client joins the owner's name into the request path, so the owner is never requested as named: the GC never resolves it and retries the dependent forever.",
            "Fix the ownerReference's name, or remove the reference.",
        ),
        Code::OwnerReferenceInManifest => (
            "ownerReferences in a manifest or backup, or stripped by a restore.",
            "ownerReferences name their owners by UID, and every object created anew gets a new UID: a reference copied from one cluster into a manifest points at nothing in any other, and the GC deletes the object seconds after it is created once no owner is solid. A Velero restore strips every ownerReference instead: the object survives, but the GC will never delete it with its owner.",
            "Remove ownerReferences from manifests and let the owners' controllers adopt the objects; after a restore, put the references back with the owners' new UIDs (kubectl gc relink).",
        ),
        Code::BlockOwnerDeletionToNothing => (
            "blockOwnerDeletion on a reference whose owner will not exist.",
            "blockOwnerDeletion=true makes an owner's foreground deletion wait for this dependent. Its owner will not exist once the input is created (its UID belongs to the source cluster, or the owner is re-created with a new one): the reference holds nothing, and the GC deletes the object once no owner is solid.",
            "Remove the reference (and let the owner's controller adopt the object), or set it after the apply with the owner's new UID (kubectl gc relink).",
        ),
        Code::ConflictingDuplicateInput => (
            "The input holds two different copies of one object.",
            "Two documents (or backup files) name the same group, kind, namespace and name but disagree on what the GC reads (UID, ownerReferences, finalizers, labels, deletion): which copy ends up in the cluster depends on the tool and the order it reads them in, so what the GC does to the object cannot be told. Identical copies (as Velero stores objects of several API versions) are one object and not reported.",
            "Keep one copy of the object in the input.",
        ),
        Code::OwnerReferencePermission => (
            "The API server refuses this write where OwnerReferencesPermissionEnforcement is enabled.",
            "The OwnerReferencesPermissionEnforcement admission plugin (on in OpenShift and many hardened clusters) lets a write set blockOwnerDeletion=true on a reference only if the writer may update the owner's finalizers subresource, and change the references of an existing object only if the writer may delete that object. The access review of the identity that writes (SelfSubjectAccessReview) says it may not: the API server answers 403 and the object is not written.",
            "Write the reference without blockOwnerDeletion=true (the owner's foreground deletion then does not wait for this object), or grant the writer update on the owner's finalizers (and delete on the object, for an update); the finding's commands do it.",
        ),
        Code::StuckNamespace => (
            "A namespace being deleted that the namespace controller cannot finish.",
            "The namespace controller deletes everything in a terminating namespace and removes its `kubernetes` token from spec.finalizers only after a pass with no error and nothing left. A failed discovery of any API group-version blocks that for good, as does a token in spec.finalizers it does not own; content held by finalizers keeps the namespace until their controllers remove them.",
            "Run `kubectl gc why namespace/NAME`: fix the unavailable APIService or the controllers owning the finalizers first; remove a finalizer last, on the object that holds it; never /finalize the namespace.",
        ),
    };
    CodeHelp { short, full, fix }
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

    #[test]
    fn every_code_has_help() {
        for c in Code::ALL {
            let h = help(c);
            assert!(h.short.ends_with('.') && !h.full.is_empty() && !h.fix.is_empty());
        }
    }
}
