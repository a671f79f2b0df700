//! The finding catalogue: stable codes and severities, and the one table of what each code
//! means (id, name, severity, title, what the GC does, the fix), which `--help`, the README's
//! "Finding codes" section, SARIF rules and the reports' legends all print.

use serde::Serialize;

/// Severity, ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; nothing breaks.
    Info,
    /// Something leaks, waits or cannot be checked.
    Warning,
    /// The GC will change or cannot collect objects because of a broken reference.
    Error,
    /// The GC will (or may) delete a live object that someone meant to keep.
    Critical,
}

impl Severity {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
            Severity::Critical => "critical",
        }
    }
}

impl std::str::FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "info" => Ok(Severity::Info),
            "warning" => Ok(Severity::Warning),
            "error" => Ok(Severity::Error),
            "critical" => Ok(Severity::Critical),
            _ => Err(format!(
                "unknown severity {s:?} (info, warning, error, critical)"
            )),
        }
    }
}

/// What the table says of one code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeInfo {
    /// `GC0NN`.
    pub id: &'static str,
    /// kebab-case name.
    pub name: &'static str,
    /// The severities it is reported at, and when (README's column).
    pub severity: &'static str,
    /// What it is, in one sentence.
    pub title: &'static str,
    /// What the GC does about it, in a few sentences.
    pub sentence: &'static str,
    /// How to fix it, in general (each finding carries its own remedies).
    pub remedy: &'static str,
}

/// The codes: the enum, [`Code::ALL`] and the table, from one list.
macro_rules! codes {
    ($($(#[doc = $doc:literal])* $variant:ident {
        id: $id:literal,
        name: $name:literal,
        severity: $severity:literal,
        title: $title:literal,
        sentence: $sentence:literal,
        remedy: $remedy:literal,
    })*) => {
        /// Stable finding codes (README "Finding codes"). Never renumber.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Code {
            /// All codes in order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// What the table says of this code.
            pub fn info(self) -> &'static CodeInfo {
                match self {
                    $(Code::$variant => &CodeInfo {
                        id: $id,
                        name: $name,
                        severity: $severity,
                        title: $title,
                        sentence: $sentence,
                        remedy: $remedy,
                    },)*
                }
            }
        }
    };
}

codes! {
    /// GC001: the owner does not exist.
    DanglingOwner {
        id: "GC001",
        name: "dangling-owner",
        severity: "error if the GC deletes the object, else warning",
        title: "The owner an ownerReference names does not exist.",
        sentence: "The GC looks the owner up by the reference's apiVersion, kind and name (in the dependent's namespace for namespaced kinds) and compares UIDs. When nothing is there, the reference is dangling; once a dependent has no solid owner left, the GC deletes it.",
        remedy: "If the object should live on, remove the ownerReference (on a live object, the patch in the report; in a manifest, delete the entry); if it is garbage, let the GC delete it.",
    }
    /// GC002: an object with the owner's kind and name exists with another UID (recreated).
    OwnerUidMismatch {
        id: "GC002",
        name: "owner-uid-mismatch",
        severity: "error / warning",
        title: "An object with the owner's kind and name exists, but with another UID (it was recreated).",
        sentence: "The GC compares UIDs: a recreated owner is not the owner the reference names, so the reference is dangling and the dependent is deleted once no solid owner is left.",
        remedy: "Point the reference at the new owner's UID (the owning controller usually re-adopts), or remove it.",
    }
    /// GC003: the UID exists, but the reference's kind/name/group do not match it.
    OwnerCoordinatesMismatch {
        id: "GC003",
        name: "owner-coordinates-mismatch",
        severity: "critical if the GC deletes, else error",
        title: "The owner's UID exists, but the reference's kind, name or group do not match it.",
        sentence: "The GC resolves the reference by its coordinates, not by UID alone: a mismatch makes it dangling, and the GC can delete a dependent whose owner is alive.",
        remedy: "Set the reference's apiVersion, kind and name to the owner's, or remove it.",
    }
    /// GC004: the UID is a namespaced object in another namespace.
    CrossNamespaceOwner {
        id: "GC004",
        name: "cross-namespace-owner",
        severity: "critical if the GC deletes, else error",
        title: "The owner lives in another namespace.",
        sentence: "An ownerReference cannot cross namespaces: the GC looks the owner up by kind and name in the dependent's own namespace, does not find it there with the reference's UID, treats it as absent (from v1.20 it records an OwnerRefInvalidNamespace event), and deletes the dependent once no solid owner is left.",
        remedy: "Remove the reference, or create the dependent in its owner's namespace; an owner in another namespace can only be tracked by a controller (labels), or be cluster-scoped.",
    }
    /// GC005: a cluster-scoped object names a namespaced owner kind.
    ClusterScopedDependentOfNamespacedOwner {
        id: "GC005",
        name: "cluster-scoped-dependent-of-namespaced-owner",
        severity: "warning",
        title: "A cluster-scoped object names a namespaced owner kind.",
        sentence: "A cluster-scoped dependent cannot have a namespaced owner: the GC (1.20 and later) drops such references and never collects the object through them.",
        remedy: "Remove the reference, or make the owner cluster-scoped.",
    }
    /// GC006: the owner's apiVersion/kind is not served.
    UnresolvableOwnerKind {
        id: "GC006",
        name: "unresolvable-owner-kind",
        severity: "warning",
        title: "The owner's apiVersion/kind is not served by the cluster.",
        sentence: "The GC cannot map the reference to a resource; it retries the dependent forever and never collects it through that reference.",
        remedy: "Write a served apiVersion and kind (e.g. instead of a removed API version), install the CRD, or remove the reference.",
    }
    /// GC007: the snapshot cannot tell whether the owner exists.
    UnknownOwner {
        id: "GC007",
        name: "unknown-owner",
        severity: "info",
        title: "The input cannot tell whether the owner exists.",
        sentence: "The owner's resource was forbidden, failed to list, or (file inputs) is not proven complete in that namespace, or not held there at all. Unknown is never reported as dangling.",
        remedy: "Read the cluster with permission to list the owner's resource, or include it in the input.",
    }
    /// GC008: a foreground deletion that cannot finish.
    BlockedForegroundDeletion {
        id: "GC008",
        name: "blocked-foreground-deletion",
        severity: "error",
        title: "A foreground deletion cannot finish.",
        sentence: "An owner being deleted with the foregroundDeletion finalizer waits until every dependent with blockOwnerDeletion=true is gone; a dependent held by another finalizer, or one the GC cannot delete, blocks the whole chain. kubectl-gc names the chain down to the root blockers and offers the unblocking commands: delete the blocker (or, when it is already terminating, remove its finalizers, guarded by a `test` op), remove its ownerReference, or set blockOwnerDeletion=false.",
        remedy: "Unblock the root blockers: delete them (or remove their finalizers when already terminating), remove their ownerReference, or set blockOwnerDeletion=false.",
    }
    /// GC009: an `orphan` finalizer that is pending or stuck.
    OrphanFinalizer {
        id: "GC009",
        name: "orphan-finalizer",
        severity: "info / warning (stalled) / error (resource not watched)",
        title: "An orphan finalizer is pending or stuck.",
        sentence: "The GC removes the owner's references from its dependents, then the orphan finalizer; it stalls when it cannot update a dependent or does not watch the resource.",
        remedy: "Check the GC can list, watch and patch the dependents' resources; remove the finalizer by hand once the dependents are orphaned.",
    }
    /// GC010: an ownership cycle.
    OwnershipCycle {
        id: "GC010",
        name: "ownership-cycle",
        severity: "warning",
        title: "Objects own each other (or themselves).",
        sentence: "The GC can delete a cycle only once every member is being deleted; foreground deletions in a cycle wait forever.",
        remedy: "Remove one reference of the cycle.",
    }
    /// GC011: several references to one UID, or several controllers.
    DuplicateOwnerReferences {
        id: "GC011",
        name: "duplicate-owner-references",
        severity: "warning",
        title: "Several references to one owner UID, or several controller references.",
        sentence: "The API server normally refuses duplicates; objects written before that check, or by patches, confuse controllers and the GC's patches.",
        remedy: "Keep one reference per owner and at most one with controller: true.",
    }
    /// GC012: (GC < 1.20) a valid dependent that a bad sibling reference can get deleted.
    CollateralAtRisk {
        id: "GC012",
        name: "collateral-at-risk",
        severity: "critical / error",
        title: "GC < 1.20: a valid dependent that a bad sibling reference can get deleted.",
        sentence: "Before 1.20 the GC caches absent owners by UID alone (kubernetes#65200): a dangling reference with the same UID as a real owner can make the GC delete that owner's valid dependents.",
        remedy: "Correct the bad sibling reference, or upgrade kube-controller-manager to 1.20 or later.",
    }
    /// GC013: terminating, held by finalizers no controller seems to process.
    TerminatingHeldByFinalizer {
        id: "GC013",
        name: "terminating-held-by-finalizer",
        severity: "info / warning (> 1 h)",
        title: "Terminating, held by finalizers the GC does not manage.",
        sentence: "The object has a deletionTimestamp but a finalizer no controller seems to process keeps it; owners waiting on it in foreground deletion wait too.",
        remedy: "Find the controller that owns the finalizer; remove the finalizer only once its work is known to be done.",
    }
    /// GC014: a reference to an owner in foreground deletion.
    WaitingOwner {
        id: "GC014",
        name: "waiting-owner",
        severity: "info",
        title: "The owner is in foreground deletion.",
        sentence: "The reference waits for dependents deletion: the GC deletes this dependent as part of the owner's foreground deletion.",
        remedy: "Nothing to do unless the deletion is stuck (see GC008).",
    }
    /// GC015: a restarted GC deletes (or strips a reference of) this object.
    RestartAction {
        id: "GC015",
        name: "restart-action",
        severity: "critical (the owner is alive elsewhere, or a cascade from such a deletion) / error / warning (strip) / info (a finalizer removed, a reference unblocked, or a deletion that carries on a foreground deletion the user asked for)",
        title: "A restarted GC deletes or patches this object.",
        sentence: "A freshly started GC verifies owners it has not seen and re-checks references that disagree with their owner: garbage a long-running GC never looked at is deleted right after a kube-controller-manager restart.",
        remedy: "Correct or remove the reference before the restart if the object must survive.",
    }
    /// GC016: what a restarted GC does to this object depends on an order upstream does not
    /// fix (informer delivery, concurrent requests), and one order deletes something meant to
    /// live (before v1.20: the UID-keyed absent cache, kubernetes#65200).
    RestartOrderDependent {
        id: "GC016",
        name: "restart-order-dependent",
        severity: "critical (some order deletes it) / error",
        title: "What a restarted GC does to this object depends on an order upstream does not fix.",
        sentence: "A freshly started GC processes objects in the order its informers deliver them and its requests return; one of those orders deletes something meant to live (before 1.20 the absent-owner cache is keyed by UID alone, kubernetes#65200).",
        remedy: "Correct the references the outcome depends on (e.g. bad references that share an owner's UID), or upgrade to 1.20 or later.",
    }
    /// GC017: an upgrade changes what the GC does to this object.
    UpgradeBehaviourChange {
        id: "GC017",
        name: "upgrade-behaviour-change",
        severity: "as GC015 / info",
        title: "An upgrade changes what the GC does to this object.",
        sentence: "The target release's GC decides differently (e.g. crossing 1.20: cross-namespace dependents become deterministically deleted, cluster-scoped dependents of namespaced owners stop being deleted).",
        remedy: "Correct the reference before upgrading, or accept the new behaviour.",
    }
    /// GC018: the owner's apiVersion/kind is not served after the upgrade.
    OwnerUnservedAfterUpgrade {
        id: "GC018",
        name: "owner-unserved-after-upgrade",
        severity: "error",
        title: "The owner's apiVersion/kind is not served after the upgrade.",
        sentence: "The target release (or the CRD manifest given with --crd) no longer serves the reference's apiVersion: the GC cannot resolve it and never collects the dependent through it.",
        remedy: "Update the references to a served version before upgrading.",
    }
    /// GC019: a deletable resource the GC cannot list or watch.
    GcSyncBlocker {
        id: "GC019",
        name: "gc-sync-blocker",
        severity: "error (GC < 1.32) / warning",
        title: "A deletable resource the GC cannot list or watch.",
        sentence: "The GC's informers cannot sync: before 1.32 this pauses all garbage collection (kubernetes#127105); later the resource's objects are not collected.",
        remedy: "Repair the aggregated API or CRD conversion webhook behind the resource, or remove the broken APIService.",
    }
    /// GC020: garbage a restarted GC never evaluates.
    StrandedDependent {
        id: "GC020",
        name: "stranded-dependent",
        severity: "warning",
        title: "Garbage a restarted GC never evaluates.",
        sentence: "An unmappable virtual owner, or (GC 1.20, kubernetes#98040) an informer order, keeps a restarted GC from ever looking at this dependent. It is confirmed on a real v1.20.2 GC by the live tests.",
        remedy: "Delete the dependent by hand, or fix its reference.",
    }
    /// GC021: the GC's end state for this object depends on an order upstream does not fix
    /// (steady state: `audit`, `collect`).
    OrderDependent {
        id: "GC021",
        name: "order-dependent",
        severity: "error (one possible end state deletes it) / warning",
        title: "The GC's end state for this object depends on an order upstream does not fix.",
        sentence: "Depending on the order in which the GC's informers deliver objects or its requests complete, the running GC leaves this object in different end states (deleted, terminating or kept).",
        remedy: "Correct the references the outcome depends on, so that every order ends the same way.",
    }
    /// GC022: the owner's name is not a path segment (`.`, `..`, `/`, `%`): the GC's request
    /// for it never resolves it as named.
    OwnerNameNotRequestable {
        id: "GC022",
        name: "owner-name-not-requestable",
        severity: "warning",
        title: "The owner's name is not a valid path segment ('.', '..', '/' or '%').",
        sentence: "The GC's metadata client joins the owner's name into the request path, so the owner is never requested as named: the GC never resolves it and retries the dependent forever. `collect --apply` requests exactly what the GC would.",
        remedy: "Correct the ownerReference's name, or remove the reference.",
    }
    /// GC023: a namespace being deleted that the namespace controller cannot finish (a failed
    /// discovery, a foreign `spec.finalizers` token, content held by finalizers).
    StuckNamespace {
        id: "GC023",
        name: "stuck-namespace",
        severity: "error (never finishes by itself: a failed discovery, a foreign `spec.finalizers` token) / warning (content held by finalizers)",
        title: "A namespace being deleted that the namespace controller cannot finish.",
        sentence: "The namespace controller deletes everything in a terminating namespace and removes its `kubernetes` token from spec.finalizers only after a pass with no error and nothing left. A failed discovery of any API group-version blocks that for good, as does a token in spec.finalizers it does not own; content held by finalizers keeps the namespace until their controllers remove them.",
        remedy: "Run `kubectl gc why namespace/NAME`: fix the unavailable APIService or the controllers owning the finalizers first; remove a finalizer last, on the object that holds it; never /finalize the namespace.",
    }
    /// GC024: `check apply`: ownerReferences written into a manifest or backup (their UIDs
    /// belong to the source cluster), or stripped by a Velero restore (the object is orphaned).
    OwnerReferenceInManifest {
        id: "GC024",
        name: "owner-reference-in-manifest",
        severity: "warning (kept by an apply) / info (stripped by a Velero restore)",
        title: "ownerReferences in a manifest or backup, or stripped by a restore.",
        sentence: "ownerReferences name their owners by UID, and every object created anew gets a new UID: a reference copied from one cluster into a manifest points at nothing in any other, and the GC deletes the object seconds after it is created once no owner is solid. A Velero restore strips every ownerReference instead: the object survives, but the GC will never delete it with its owner.",
        remedy: "Remove ownerReferences from manifests and let the owners' controllers adopt the objects; after a restore, put the references back with the owners' new UIDs (kubectl gc relink).",
    }
    /// GC025: `check apply`: `blockOwnerDeletion: true` on a reference whose owner will not
    /// exist: it holds no foreground deletion, and the object is collected anyway.
    BlockOwnerDeletionToNothing {
        id: "GC025",
        name: "block-owner-deletion-to-nothing",
        severity: "warning",
        title: "blockOwnerDeletion on a reference whose owner will not exist.",
        sentence: "blockOwnerDeletion=true makes an owner's foreground deletion wait for this dependent. Its owner will not exist once the input is created (its UID belongs to the source cluster, or the owner is re-created with a new one): the reference holds nothing, and the GC deletes the object once no owner is solid.",
        remedy: "Remove the reference (and let the owner's controller adopt the object), or set it after the apply with the owner's new UID (kubectl gc relink).",
    }
    /// GC026: `check apply`: two copies of one object in the input (same group, kind,
    /// namespace and name) that disagree on what the GC reads; which one is created depends
    /// on the tool.
    ConflictingDuplicateInput {
        id: "GC026",
        name: "conflicting-duplicate-input",
        severity: "error (the copies disagree on UID, ownerReferences, namespace or name) / warning",
        title: "The input holds two different copies of one object.",
        sentence: "Two documents (or backup files) name the same group, kind, namespace and name but disagree on what the GC reads (UID, ownerReferences, finalizers, labels, deletion): which copy ends up in the cluster depends on the tool and the order it reads them in, so what the GC does to the object cannot be told. Identical copies (as Velero stores objects of several API versions) are one object and not reported.",
        remedy: "Keep one copy of the object in the input.",
    }
    /// GC027: `check apply`, `relink`: where the API server enables
    /// OwnerReferencesPermissionEnforcement (OpenShift and others), it refuses this write for
    /// the identity that sends it (`blockOwnerDeletion: true` without `update` on the owner's
    /// `finalizers`, or changed references without `delete` on the object).
    OwnerReferencePermission {
        id: "GC027",
        name: "owner-reference-permission",
        severity: "warning (info: cannot tell)",
        title: "The API server refuses this write where OwnerReferencesPermissionEnforcement is enabled.",
        sentence: "The OwnerReferencesPermissionEnforcement admission plugin (on in OpenShift and many hardened clusters) lets a write set blockOwnerDeletion=true on a reference only if the writer may update the owner's finalizers subresource, and change the references of an existing object only if the writer may delete that object. The access review of the identity that writes (SelfSubjectAccessReview) says it may not: the API server answers 403 and the object is not written.",
        remedy: "Write the reference without blockOwnerDeletion=true (the owner's foreground deletion then does not wait for this object), or grant the writer update on the owner's finalizers (and delete on the object, for an update); the finding's commands do it.",
    }
}

impl Code {
    /// `GC0NN`.
    pub fn id(self) -> &'static str {
        self.info().id
    }

    /// kebab-case name.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Parses `GC004` or `cross-namespace-owner`.
    pub fn parse(s: &str) -> Option<Code> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.id().eq_ignore_ascii_case(s) || c.name() == s)
    }
}

/// The table as the README's "Finding codes" section writes it (Markdown).
pub fn markdown_table() -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let mut out =
        String::from("| code | name | severity | meaning | fix |\n|---|---|---|---|---|\n");
    for c in Code::ALL {
        let i = c.info();
        out.push_str(&format!(
            "| {} | {} | {} | {} {} | {} |\n",
            i.id,
            i.name,
            cell(i.severity),
            cell(i.title),
            cell(i.sentence),
            cell(i.remedy)
        ));
    }
    out
}

/// `kubectl gc codes`: one line per code, its id, name and title.
pub fn help_list() -> String {
    let mut out = String::new();
    for c in Code::ALL {
        let i = c.info();
        out.push_str(&format!("{} {}: {}\n", i.id, i.name, i.title));
    }
    out
}

impl Code {
    /// `kubectl gc codes CODE`: the code's row of the table, in full.
    pub fn explain(self) -> String {
        let i = self.info();
        format!(
            "{} {}\n{}\n\n{}\n\nSeverity: {}.\nFix: {}\n",
            i.id, i.name, i.title, i.sentence, i.severity, i.remedy
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Code;

    #[test]
    fn every_code_is_listed_once_in_order_with_its_number() {
        for (n, c) in Code::ALL.iter().enumerate() {
            assert_eq!(*c as usize, n, "{c:?} out of order in Code::ALL");
            assert_eq!(c.id(), format!("GC{:03}", n + 1));
            assert_eq!(Code::parse(c.id()), Some(*c));
            assert_eq!(Code::parse(c.name()), Some(*c));
            let i = c.info();
            for s in [i.title, i.sentence, i.remedy] {
                assert!(s.ends_with('.'), "{}: {s}", i.id);
                assert!(!s.starts_with("Fix"), "{}: {s}", i.id);
            }
        }
        assert_eq!(Code::parse(&format!("GC{:03}", Code::ALL.len() + 1)), None);
    }

    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).expect("read src/") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                rust_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    /// The table is the one place a code's words are written: no other file of `src/` holds a
    /// code's title, sentence or remedy (a renderer prints them from [`Code::info`]).
    #[test]
    fn a_codes_words_are_written_only_in_the_table() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        rust_files(&root.join("src"), &mut files);
        let this = root.join("src/diagnose/code.rs");
        for f in files.iter().filter(|f| **f != this) {
            // Rust source wraps long strings with `\` + newline + indentation: compare words.
            let text = std::fs::read_to_string(f).expect("read");
            let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let flat = flat.replace("\\ ", "");
            for c in Code::ALL {
                let i = c.info();
                for s in [i.title, i.sentence, i.remedy] {
                    assert!(
                        !flat.contains(s),
                        "{} of {} is written again in {}",
                        s,
                        i.id,
                        f.display()
                    );
                }
            }
        }
    }

    /// The README's "Finding codes" section is the table, as [`super::markdown_table`] writes
    /// it.
    #[test]
    fn the_readme_lists_the_table() {
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
            .expect("README.md");
        let table = super::markdown_table();
        assert!(
            readme.contains(&format!("## Finding codes\n\n{table}\n")),
            "README.md's \"Finding codes\" table is not the code table; replace it with:\n{table}"
        );
    }
}
