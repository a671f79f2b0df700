//! Common Kubernetes finalizers and the controller that removes each one (research
//! why-and-restore §A1, §A2). `kubectl gc why` uses this to say who must act before a stuck
//! object can go, what usually keeps that from happening, and what stripping the finalizer by
//! hand would skip.
//!
//! Every finalizer has exactly one controller that removes it, after the cleanup it guards.
//! Removing it by hand does not do that cleanup; [`FinalizerInfo::leaks`] says what is lost.

/// How a catalogue entry matches a finalizer string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// The whole finalizer, byte for byte.
    Exact(&'static str),
    /// Any finalizer that starts with this text (`external-attacher/` + driver).
    Prefix(&'static str),
    /// Any finalizer that ends with this text (`<kind>.ceph.rook.io`).
    Suffix(&'static str),
}

impl Pattern {
    /// Whether `finalizer` matches this pattern.
    pub fn matches(&self, finalizer: &str) -> bool {
        match *self {
            Pattern::Exact(s) => finalizer == s,
            Pattern::Prefix(p) => finalizer.starts_with(p),
            Pattern::Suffix(s) => finalizer.ends_with(s),
        }
    }

    /// The literal text of the pattern (the name, prefix or suffix).
    pub fn text(&self) -> &'static str {
        match *self {
            Pattern::Exact(s) | Pattern::Prefix(s) | Pattern::Suffix(s) => s,
        }
    }
}

/// Where the removing controller usually runs, as a hint for finding it in a cluster or a
/// snapshot. A hint only: installs rename and relocate things freely.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Workload {
    /// Namespaces it is usually installed in; empty when there is no usual one.
    pub namespaces: &'static [&'static str],
    /// Fragments of its Deployment, DaemonSet, StatefulSet, Pod or container name; any one of
    /// them is a match.
    pub name_contains: &'static [&'static str],
}

/// Which part of the system owns a finalizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinalizerKind {
    /// The garbage collector's own finalizers (`orphan`, `foregroundDeletion`).
    GarbageCollector,
    /// A controller of the control plane: kube-controller-manager, cloud-controller-manager or
    /// the API server.
    ControlPlane,
    /// An add-on installed into the cluster: CSI sidecars, snapshot-controller, operators.
    Operator,
}

/// One catalogue entry: a finalizer, who removes it, and what to do when it stays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FinalizerInfo {
    /// Which finalizer strings this entry covers.
    pub pattern: Pattern,
    /// The controller that removes it.
    pub controller: &'static str,
    /// Where that controller usually runs; `None` inside kube-controller-manager or the API
    /// server, which no workload in the cluster stands for.
    pub workload: Option<Workload>,
    /// The objects that carry it.
    pub applies_to: &'static str,
    /// The condition under which the controller removes it.
    pub removed_when: &'static str,
    /// The usual reasons it is not removed.
    pub stuck_causes: &'static str,
    /// What to do, safest step first: repair the controller before touching the finalizer.
    pub remedy: &'static str,
    /// What removing it by hand leaks or skips (`""` when nothing at all).
    pub leaks: &'static str,
    /// Which part of the system owns it.
    pub kind: FinalizerKind,
    /// Where this comes from: the upstream repository and file, PR or CHANGELOG line that
    /// defines the finalizer (and the release it arrived in, for Kubernetes' own).
    pub source: &'static str,
}

/// The entry for `finalizer`: an exact entry if there is one, else the matching prefix or
/// suffix entry with the longest pattern.
pub fn lookup(finalizer: &str) -> Option<&'static FinalizerInfo> {
    lookup_in(catalogue(), finalizer)
}

fn lookup_in<'a>(all: &'a [FinalizerInfo], finalizer: &str) -> Option<&'a FinalizerInfo> {
    all.iter()
        .find(|e| matches!(e.pattern, Pattern::Exact(_)) && e.pattern.matches(finalizer))
        .or_else(|| {
            all.iter()
                .filter(|e| !matches!(e.pattern, Pattern::Exact(_)) && e.pattern.matches(finalizer))
                .min_by_key(|e| std::cmp::Reverse(e.pattern.text().len()))
        })
}

/// Every entry, in catalogue order.
pub fn catalogue() -> &'static [FinalizerInfo] {
    CATALOGUE
}

type Names = &'static [&'static str];

/// A [`Workload`] hint, in one line per entry.
const fn at(namespaces: Names, name_contains: Names) -> Option<Workload> {
    Some(Workload {
        namespaces,
        name_contains,
    })
}

const KCM_GC: &str = "garbage collector (kube-controller-manager)";
const CSI_PROVISIONER: Option<Workload> = at(&[], &["csi", "provisioner"]);
const ARGOCD: Option<Workload> = at(&["argocd"], &["argocd-application-controller"]);
const CROSSPLANE: Option<Workload> = at(&["crossplane-system"], &["provider-", "crossplane"]);
const FLUX: Option<Workload> = at(
    &["flux-system"],
    &[
        "kustomize-controller",
        "helm-controller",
        "source-controller",
    ],
);
const CAPI: Option<Workload> = at(&["capi-system"], &["capi-controller-manager"]);

/// Shared by the snapshot-controller entries; `pattern` and the texts that differ are overridden.
const SNAPSHOT: FinalizerInfo = FinalizerInfo {
    pattern: Pattern::Exact(""),
    controller: "snapshot-controller (external-snapshotter)",
    workload: at(&[], &["snapshot-controller"]),
    applies_to: "",
    removed_when: "",
    stuck_causes: "snapshot-controller missing or down; a snapshot or restore that never completes",
    remedy: "get snapshot-controller running; resolve the Pending claim or unfinished snapshot",
    leaks: "",
    kind: FinalizerKind::Operator,
    source: "kubernetes-csi/external-snapshotter: pkg/utils/util.go (the snapshot protection finalizers)",
};

/// Shared by the aws-load-balancer-controller entries; `pattern` and `applies_to` differ.
const AWS_LBC: FinalizerInfo = FinalizerInfo {
    pattern: Pattern::Exact(""),
    controller: "aws-load-balancer-controller",
    workload: at(&["kube-system"], &["aws-load-balancer-controller"]),
    applies_to: "",
    removed_when: "it has deleted the load balancer, its target groups and its security groups",
    stuck_causes: "controller not running, its IAM permissions missing, or an AWS API error",
    remedy: "get the controller running with its IAM role; failing that, delete the AWS \
        resources by hand before removing the finalizer",
    leaks: "the load balancer, target groups and security groups stay in AWS, and cost money",
    kind: FinalizerKind::Operator,
    source: "kubernetes-sigs/aws-load-balancer-controller: pkg/service, pkg/ingress, pkg/gateway finalizers",
};

#[rustfmt::skip]
static CATALOGUE: &[FinalizerInfo] = &[
    FinalizerInfo {
        pattern: Pattern::Exact("kubernetes"), kind: FinalizerKind::ControlPlane,
        source: "kubernetes/kubernetes: core/v1 FinalizerKubernetes; pkg/controller/namespace/deletion/namespaced_resources_deleter.go",
        controller: "namespace controller (kube-controller-manager)", workload: None,
        applies_to: "Namespace, in spec.finalizers (writable only through /finalize)",
        removed_when: "a pass over the namespace's content ends with no error and nothing left",
        stuck_causes: "an aggregated API fails discovery; a conversion webhook is gone; content \
            keeps other finalizers; pods on an unreachable node",
        remedy: "read the namespace's conditions; fix the failing APIService or webhook, or \
            resolve the remaining objects' finalizers; never /finalize blindly",
        leaks: "what is left stays in etcd, and no write to it (not even removing a finalizer) \
            is accepted once the namespace is gone",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("foregroundDeletion"), kind: FinalizerKind::GarbageCollector,
        source: "kubernetes/kubernetes: apimachinery meta/v1 FinalizerDeleteDependents; pkg/controller/garbagecollector (foreground deletion, 1.6)",
        controller: KCM_GC, workload: None,
        applies_to: "any object deleted with propagationPolicy Foreground",
        removed_when: "no dependent with blockOwnerDeletion: true is left",
        stuck_causes: "a blocking dependent stuck on a finalizer of its own; a stalled garbage \
            collector (a CRD that fails to sync)",
        remedy: "follow the blocking dependents to the stuck one and resolve what holds it \
            (`kubectl gc why` on the owner names it); the garbage collector removes this one \
            when the last of them is gone",
        leaks: "nothing; the owner just goes before its dependents, which follow in background",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("orphan"), kind: FinalizerKind::GarbageCollector,
        source: "kubernetes/kubernetes: apimachinery meta/v1 FinalizerOrphanDependents; pkg/controller/garbagecollector/garbagecollector.go attemptToOrphan",
        controller: KCM_GC, workload: None,
        applies_to: "any object deleted with propagationPolicy Orphan",
        removed_when: "the owner's reference has been taken out of every dependent",
        stuck_causes: "the collector cannot patch a dependent (a webhook refuses) or is down",
        remedy: "fix the webhook or the garbage collector and let it finish",
        leaks: "the dependents still name the deleted owner, so they are deleted, not orphaned",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("kubernetes.io/pvc-protection"), kind: FinalizerKind::ControlPlane,
        source: "kubernetes/kubernetes: pkg/volume/util/finalizer.go; pkg/controller/volume/pvcprotection (Storage Object in Use Protection, GA 1.11)",
        controller: "pvc-protection controller (kube-controller-manager)", workload: None,
        applies_to: "PersistentVolumeClaim",
        removed_when: "no pod of its namespace that is bound to a node uses the claim",
        stuck_causes: "a pod using it is stuck Terminating on a dead node; another consumer",
        remedy: "delete the pods that use the claim, force-deleting those on a lost node",
        leaks: "protection for pods still using it (the kubelet refuses to start new ones)",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("kubernetes.io/pv-protection"), kind: FinalizerKind::ControlPlane,
        source: "kubernetes/kubernetes: pkg/volume/util/finalizer.go; pkg/controller/volume/pvprotection (GA 1.11)",
        controller: "pv-protection controller (kube-controller-manager)", workload: None,
        applies_to: "PersistentVolume",
        removed_when: "the volume is no longer Bound",
        stuck_causes: "its claim still exists or is itself stuck",
        remedy: "resolve the claim first; the reclaim policy then decides what becomes of the data",
        leaks: "the reclaim policy may never run, leaving the backing disk behind",
    },
    FinalizerInfo {
        pattern: Pattern::Prefix("external-attacher/"), kind: FinalizerKind::Operator,
        source: "kubernetes-csi/external-attacher: pkg/controller (the attacher finalizer on VolumeAttachment and PV)",
        controller: "csi-attacher sidecar of the CSI driver (suffix: driver name, '.' as '-')",
        workload: at(&[], &["csi", "attacher"]),
        applies_to: "VolumeAttachment, PersistentVolume",
        removed_when: "VolumeAttachment: the volume is detached (ControllerUnpublishVolume); \
            PersistentVolume: no VolumeAttachment refers to it",
        stuck_causes: "attacher or driver down; node gone; volume already gone in the backend",
        remedy: "repair the attacher or driver; confirm the detach in the backend; then delete \
            the VolumeAttachment",
        leaks: "the disk may stay attached to the old node (multi-attach errors later)",
    },
    FinalizerInfo {
        controller: "csi-provisioner sidecar of the CSI driver", workload: CSI_PROVISIONER,
        pattern: Pattern::Exact("external-provisioner.volume.kubernetes.io/finalizer"),
        source: "kubernetes-csi/external-provisioner: the PV deletion protection finalizer; KEP-2644 HonorPVReclaimPolicy (alpha 1.23, beta 1.31, GA 1.33)",
        applies_to: "PersistentVolume",
        removed_when: "the driver's DeleteVolume call succeeded",
        stuck_causes: "driver down, or its credentials broken",
        remedy: "repair the driver and let it delete the volume",
        leaks: "the disk in the storage backend",
        kind: FinalizerKind::Operator,
    },
    FinalizerInfo {
        pattern: Pattern::Exact("snapshot.storage.kubernetes.io/pvc-as-source-protection"),
        applies_to: "PersistentVolumeClaim that a VolumeSnapshot is taken from",
        removed_when: "no snapshot of the claim is still being created",
        leaks: "a snapshot in progress can lose its source volume",
        ..SNAPSHOT
    },
    FinalizerInfo {
        pattern:
            Pattern::Exact("snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection"),
        applies_to: "VolumeSnapshot that a claim is being restored from",
        removed_when: "no Pending claim has the snapshot as its data source",
        leaks: "a restore in progress can lose its source snapshot",
        ..SNAPSHOT
    },
    FinalizerInfo {
        pattern: Pattern::Exact("snapshot.storage.kubernetes.io/volumesnapshot-bound-protection"),
        applies_to: "VolumeSnapshot bound to a VolumeSnapshotContent",
        removed_when: "on deletion, once no restore uses it and its content has been handed on \
            per its deletionPolicy",
        leaks: "the bound VolumeSnapshotContent and the backend snapshot may stay",
        ..SNAPSHOT
    },
    FinalizerInfo {
        pattern:
            Pattern::Exact("snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection"),
        controller: "snapshot-controller; csi-snapshotter sidecar once the snapshot is deleted",
        workload: at(&[], &["snapshot-controller", "csi-snapshotter"]),
        applies_to: "VolumeSnapshotContent",
        removed_when: "its VolumeSnapshot is gone and, with deletionPolicy Delete, so is the \
            backend snapshot",
        stuck_causes: "csi-snapshotter sidecar or driver down; backend credentials broken",
        remedy: "repair the driver's csi-snapshotter sidecar and let it delete the snapshot",
        leaks: "the snapshot in the storage backend",
        ..SNAPSHOT
    },
    FinalizerInfo {
        controller: "csi-provisioner sidecar (clone controller)", workload: CSI_PROVISIONER,
        pattern: Pattern::Exact("provisioner.storage.kubernetes.io/cloning-protection"),
        source: "kubernetes-csi/external-provisioner: pkg/controller (clone source protection)",
        applies_to: "PersistentVolumeClaim that a clone is made from",
        removed_when: "no Pending claim clones from it (a heuristic for \"clone finished\")",
        stuck_causes: "a clone target claim stays Pending; provisioner down",
        remedy: "resolve or delete the Pending target claim; repair the provisioner",
        leaks: "a clone in progress can lose its source volume",
        kind: FinalizerKind::Operator,
    },
    FinalizerInfo {
        pattern: Pattern::Exact("service.kubernetes.io/load-balancer-cleanup"),
        source: "kubernetes/kubernetes: k8s.io/cloud-provider service controller, LoadBalancerCleanupFinalizer (ServiceLoadBalancerFinalizer, GA 1.17)",
        controller: "service controller (cloud-controller-manager, or kube-controller-manager \
            with an in-tree cloud provider)",
        workload: at(&["kube-system"], &["cloud-controller-manager"]),
        applies_to: "Service of type LoadBalancer (1.15 alpha, GA 1.17)",
        removed_when: "the cloud load balancer has been deleted",
        stuck_causes: "cloud-controller-manager down; cloud credentials broken; the provider \
            erroring on a load balancer that is already gone",
        remedy: "repair the cloud-controller-manager; remove the finalizer only once the load \
            balancer is confirmed gone",
        leaks: "the cloud load balancer, unless it is already gone",
        kind: FinalizerKind::ControlPlane,
    },
    FinalizerInfo {
        controller: "job controller (kube-controller-manager)", workload: None,
        pattern: Pattern::Exact("batch.kubernetes.io/job-tracking"),
        source: "kubernetes/kubernetes: batch/v1 JobTrackingFinalizer; pkg/controller/job (JobTrackingWithFinalizers, GA 1.26)",
        applies_to: "Pod created by a Job (beta 1.23, GA 1.26)",
        removed_when: "the pod is counted in its Job's status, or the pod is an orphan",
        stuck_causes: "a job-controller backlog; races in 1.23",
        remedy: "wait for the job controller; removing it is safe once the pod is terminal or \
            its Job is gone",
        leaks: "nothing external; at worst the Job's counts miss this pod",
        kind: FinalizerKind::ControlPlane,
    },
    FinalizerInfo {
        pattern: Pattern::Exact("kubernetes.io/pv-controller"), kind: FinalizerKind::ControlPlane,
        source: "kubernetes/kubernetes: pkg/controller/volume/persistentvolume; KEP-2644 HonorPVReclaimPolicy (alpha 1.23, beta 1.31, GA 1.33)",
        controller: "persistent volume controller (kube-controller-manager)", workload: None,
        applies_to: "PersistentVolume of an in-tree or migrated volume plugin, reclaim policy Delete",
        removed_when: "the volume's storage asset has been deleted (the reclaim policy ran)",
        stuck_causes: "the volume plugin cannot delete the disk (cloud credentials, the disk in use)",
        remedy: "fix what keeps the plugin from deleting the disk and let the controller retry",
        leaks: "the disk in the storage backend",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("kubernetes.io/vac-protection"), kind: FinalizerKind::ControlPlane,
        source: "kubernetes/kubernetes: pkg/volume/util/finalizer.go; pkg/controller/volume/vacprotection (VolumeAttributesClass, alpha 1.29, GA 1.34)",
        controller: "vac-protection controller (kube-controller-manager)", workload: None,
        applies_to: "VolumeAttributesClass",
        removed_when: "no PersistentVolume or PersistentVolumeClaim refers to the class",
        stuck_causes: "a volume or claim still names the class (spec or status)",
        remedy: "move the volumes and claims that name it to another class, or delete them",
        leaks: "protection of the volumes still using it: their attributes can no longer be resolved",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("networking.k8s.io/service-cidr-finalizer"),
        kind: FinalizerKind::ControlPlane,
        source: "kubernetes/kubernetes: pkg/controller/servicecidrs ServiceCIDRProtectionFinalizer (MultiCIDRServiceAllocator, alpha 1.27, GA 1.33)",
        controller: "service-cidr controller (kube-controller-manager)", workload: None,
        applies_to: "ServiceCIDR",
        removed_when: "no IPAddress in its ranges is left that no other ServiceCIDR covers",
        stuck_causes: "Services still hold ClusterIPs from the range",
        remedy: "delete or re-address the Services with ClusterIPs in the range",
        leaks: "Services keep ClusterIPs from a range the cluster no longer claims",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("resource.kubernetes.io/delete-protection"),
        kind: FinalizerKind::ControlPlane,
        source: "kubernetes/kubernetes: resource.k8s.io Finalizer; pkg/controller/resourceclaim (Dynamic Resource Allocation, resource.k8s.io/v1 in 1.34)",
        controller: "resource-claim controller (kube-controller-manager)", workload: None,
        applies_to: "ResourceClaim allocated by the scheduler",
        removed_when: "no pod is reserved for the claim and its allocation has been cleared",
        stuck_causes: "a pod in status.reservedFor that is stuck terminating; the DRA driver down",
        remedy: "delete the pods that use the claim, force-deleting those on a lost node; get the \
            DRA driver running so it unprepares the devices",
        leaks: "the devices stay prepared on the node and may be handed out twice",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("scheduling.k8s.io/podgroup-protection"),
        kind: FinalizerKind::ControlPlane,
        source: "kubernetes/kubernetes: pkg/apis/scheduling PodGroupProtectionFinalizer; the PodGroupProtection admission plugin and podgroupprotection controller (workload-aware scheduling, alpha)",
        controller: "podgroup-protection controller (kube-controller-manager)", workload: None,
        applies_to: "PodGroup",
        removed_when: "no pod that names the group (spec.schedulingGroup) is left running",
        stuck_causes: "a member pod stuck terminating",
        remedy: "delete the member pods, force-deleting those on a lost node",
        leaks: "member pods lose the group that gang-schedules them",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("scheduling.k8s.io/compositepodgroup-protection"),
        kind: FinalizerKind::ControlPlane,
        source: "kubernetes/kubernetes#141021 (v1.38.0-alpha.2 CHANGELOG: CompositePodGroup GC protection, hierarchical bottom-up cleanup)",
        controller: "compositepodgroup-protection (kube-controller-manager)", workload: None,
        applies_to: "CompositePodGroup",
        removed_when: "the PodGroups and CompositePodGroups under it are gone (bottom-up cleanup)",
        stuck_causes: "a child PodGroup held by its own podgroup-protection finalizer",
        remedy: "resolve the children first (their member pods), and let the cleanup go up",
        leaks: "children left without the group that holds them together",
    },
    FinalizerInfo {
        controller: "CRD finalizer of kube-apiserver (apiextensions-apiserver)", workload: None,
        pattern: Pattern::Exact("customresourcecleanup.apiextensions.k8s.io"),
        source: "kubernetes/kubernetes: staging/src/k8s.io/apiextensions-apiserver pkg/controller/finalizer (CRD deletion)",
        applies_to: "CustomResourceDefinition",
        removed_when: "every custom resource of the definition has been deleted",
        stuck_causes: "custom resources keep finalizers of an operator uninstalled before them",
        remedy: "resolve the remaining custom resources and their finalizers (reinstall the \
            operator if needed), not the CRD",
        leaks: "the custom resources stay in etcd, out of reach of the API",
        kind: FinalizerKind::ControlPlane,
    },
    FinalizerInfo {
        pattern: Pattern::Exact("finalizer.acme.cert-manager.io"), kind: FinalizerKind::Operator,
        source: "cert-manager/cert-manager: pkg/controller/acmechallenges (the ACME challenge finalizer)",
        controller: "cert-manager controller", workload: at(&["cert-manager"], &["cert-manager"]),
        applies_to: "Challenge (acme.cert-manager.io)",
        removed_when: "the solver is cleaned up: DNS01 TXT record, HTTP01 pod and ingress",
        stuck_causes: "cert-manager uninstalled before its custom resources; its webhook gone",
        remedy: "reinstall cert-manager and let it clean up; else remove the finalizer and \
            delete the TXT records by hand",
        leaks: "DNS01 TXT records at the DNS provider; HTTP01 solver pods and ingresses",
    },
    FinalizerInfo {
        controller: "argocd-application-controller", workload: ARGOCD,
        pattern: Pattern::Prefix("resources-finalizer.argocd.argoproj.io"),
        source: "argoproj/argo-cd: docs, App Deletion (resources-finalizer, /foreground, /background)",
        applies_to: "Argo CD Application (bare or /foreground, /background); AppProject",
        removed_when: "Application: its resources are cascade-deleted; AppProject: no \
            Application uses it",
        stuck_causes: "destination cluster removed; project missing; a resource stuck on its \
            own finalizer",
        remedy: "restore the cluster or project, or resolve the stuck resource; removing the \
            finalizer makes the delete non-cascading",
        leaks: "the application's resources stay in the destination cluster, unmanaged",
        kind: FinalizerKind::Operator,
    },
    FinalizerInfo {
        controller: "argocd-application-controller", workload: ARGOCD,
        pattern: Pattern::Prefix("post-delete-finalizer.argocd.argoproj.io"),
        source: "argoproj/argo-cd: docs, Resource Hooks: PostDelete hooks (2.10)",
        applies_to: "Argo CD Application with post-delete hooks (also the /cleanup form)",
        removed_when: "the post-delete hooks have run and been cleaned up",
        stuck_causes: "a failing hook; a destination cluster that is invalid or gone",
        remedy: "fix the hook or the destination cluster and let the hooks finish",
        leaks: "the post-delete hooks, and the cleanup they do, never run",
        kind: FinalizerKind::Operator,
    },
    FinalizerInfo {
        controller: "Crossplane provider of the managed resource", workload: CROSSPLANE,
        pattern: Pattern::Exact("finalizer.managedresource.crossplane.io"),
        source: "crossplane/crossplane-runtime: pkg/reconciler/managed (managed resource finalizer)",
        applies_to: "Crossplane managed resource",
        removed_when: "the external resource is deleted (or deletionPolicy is Orphan)",
        stuck_causes: "provider uninstalled before its managed resources; credentials or \
            connectivity lost",
        remedy: "reinstall or repair the provider; deletionPolicy: Orphan keeps the external \
            resource on purpose",
        leaks: "the external (cloud) resource",
        kind: FinalizerKind::Operator,
    },
    FinalizerInfo {
        pattern: Pattern::Exact("in-use.crossplane.io"), kind: FinalizerKind::Operator,
        source: "crossplane/crossplane: internal/controller/apiextensions/usage (Usage, 1.14)",
        controller: "Crossplane provider (ProviderConfig reconciler)", workload: CROSSPLANE,
        applies_to: "ProviderConfig",
        removed_when: "no ProviderConfigUsage refers to it",
        stuck_causes: "managed resources still use it; provider uninstalled",
        remedy: "delete the managed resources that use it first",
        leaks: "its managed resources lose the credentials they need to clean up",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("finalizers.fluxcd.io"), kind: FinalizerKind::Operator,
        source: "fluxcd/pkg: apis/meta SourceFinalizer/ReconcileFinalizer (finalizers.fluxcd.io)",
        controller: "Flux kustomize-controller, helm-controller or source-controller",
        workload: FLUX,
        applies_to: "Kustomization, HelmRelease, Flux sources",
        removed_when: "the inventory is pruned (if spec.prune and not suspended) or the Helm \
            release uninstalled",
        stuck_causes: "controller not running; a HelmRelease's ServiceAccount missing",
        remedy: "bring the controller back; `flux uninstall` drops these finalizers without \
            pruning",
        leaks: "no pruning, no Helm uninstall: the applied objects stay",
    },
    FinalizerInfo {
        pattern: Pattern::Suffix(".ceph.rook.io"), kind: FinalizerKind::Operator,
        source: "rook/rook: pkg/operator/ceph (the <kind>.ceph.rook.io finalizers)",
        controller: "Rook operator", workload: at(&["rook-ceph"], &["rook-ceph-operator"]),
        applies_to: "Rook Ceph custom resources (<kind>.ceph.rook.io: CephCluster, \
            CephBlockPool, CephFilesystem, ...)",
        removed_when: "the resource is cleaned up; held while dependents exist (condition \
            DeletionIsBlocked, reason ObjectHasDependents)",
        stuck_causes: "pools, filesystems or volumes still depend on it; operator gone",
        remedy: "delete the dependents first; `kubectl rook-ceph destroy-cluster` for a teardown",
        leaks: "the Ceph daemons and data stay on the hosts (the documented keep-data path)",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("longhorn.io"), kind: FinalizerKind::Operator,
        source: "longhorn/longhorn-manager: types (longhorn.io finalizer on volumes, engines, replicas)",
        controller: "longhorn-manager", workload: at(&["longhorn-system"], &["longhorn-manager"]),
        applies_to: "Longhorn custom resources (volumes, engines, replicas, ...)",
        removed_when: "longhorn-manager has cleaned up the volume, its engines and replicas",
        stuck_causes: "longhorn-manager deleted before its resources",
        remedy: "run the Longhorn uninstaller (deleting-confirmation-flag) instead",
        leaks: "replica data stays on the nodes' disks",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("cluster.cluster.x-k8s.io"), kind: FinalizerKind::Operator,
        source: "kubernetes-sigs/cluster-api: api/v1beta1 ClusterFinalizer",
        controller: "Cluster API cluster controller", workload: CAPI,
        applies_to: "Cluster (cluster.x-k8s.io)",
        removed_when: "every descendant is gone: control plane, MachineDeployments, \
            MachineSets, Machines, infrastructure cluster",
        stuck_causes: "infrastructure provider failing; kubeconfig secret already gone",
        remedy: "repair the infrastructure provider and let the deletion finish",
        leaks: "the infrastructure: VMs, networks, load balancers",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("machine.cluster.x-k8s.io"), kind: FinalizerKind::Operator,
        source: "kubernetes-sigs/cluster-api: api/v1beta1 MachineFinalizer",
        controller: "Cluster API machine controller", workload: CAPI,
        applies_to: "Machine (cluster.x-k8s.io)",
        removed_when: "the node is drained and the infrastructure machine is deleted",
        stuck_causes: "infrastructure provider failing to delete the VM; a drain that hangs",
        remedy: "repair the infrastructure provider and let the deletion finish",
        leaks: "the VM and its disks",
    },
    FinalizerInfo {
        pattern: Pattern::Exact("service.k8s.aws/resources"),
        applies_to: "Service of type LoadBalancer served by an AWS NLB",
        ..AWS_LBC
    },
    FinalizerInfo {
        pattern: Pattern::Exact("ingress.k8s.aws/resources"),
        applies_to: "Ingress served by an AWS ALB, in no explicit group",
        ..AWS_LBC
    },
    FinalizerInfo {
        pattern: Pattern::Prefix("group.ingress.k8s.aws/"),
        applies_to: "Ingress of an explicit IngressGroup (suffix: the group name)",
        ..AWS_LBC
    },
    FinalizerInfo {
        pattern: Pattern::Prefix("gateway.k8s.aws/"),
        applies_to: "Gateway served by an AWS NLB or ALB (gateway.k8s.aws/nlb, /alb)",
        ..AWS_LBC
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    const EXACT: &str = "kubernetes foregroundDeletion orphan kubernetes.io/pvc-protection \
        kubernetes.io/pv-protection external-provisioner.volume.kubernetes.io/finalizer \
        snapshot.storage.kubernetes.io/pvc-as-source-protection \
        snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection \
        snapshot.storage.kubernetes.io/volumesnapshot-bound-protection \
        snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection \
        provisioner.storage.kubernetes.io/cloning-protection \
        service.kubernetes.io/load-balancer-cleanup batch.kubernetes.io/job-tracking \
        customresourcecleanup.apiextensions.k8s.io finalizer.acme.cert-manager.io \
        finalizer.managedresource.crossplane.io in-use.crossplane.io finalizers.fluxcd.io \
        longhorn.io cluster.cluster.x-k8s.io machine.cluster.x-k8s.io service.k8s.aws/resources \
        ingress.k8s.aws/resources kubernetes.io/pv-controller kubernetes.io/vac-protection \
        networking.k8s.io/service-cidr-finalizer resource.kubernetes.io/delete-protection \
        scheduling.k8s.io/podgroup-protection scheduling.k8s.io/compositepodgroup-protection";

    /// Names that resolve through a prefix or suffix entry, and the pattern they resolve to.
    #[rustfmt::skip]
    const MATCHED: &[(&str, Pattern)] = &[
        ("external-attacher/csi-vsphere-vmware-com", Pattern::Prefix("external-attacher/")),
        ("group.ingress.k8s.aws/my-group", Pattern::Prefix("group.ingress.k8s.aws/")),
        ("gateway.k8s.aws/nlb", Pattern::Prefix("gateway.k8s.aws/")),
        ("resources-finalizer.argocd.argoproj.io", Pattern::Prefix(ARGO)),
        ("resources-finalizer.argocd.argoproj.io/foreground", Pattern::Prefix(ARGO)),
        ("resources-finalizer.argocd.argoproj.io/background", Pattern::Prefix(ARGO)),
        ("post-delete-finalizer.argocd.argoproj.io/cleanup", Pattern::Prefix(ARGO_POST)),
        ("cephblockpool.ceph.rook.io", Pattern::Suffix(".ceph.rook.io")),
        ("cephcluster.ceph.rook.io", Pattern::Suffix(".ceph.rook.io")),
    ];
    const ARGO: &str = "resources-finalizer.argocd.argoproj.io";
    const ARGO_POST: &str = "post-delete-finalizer.argocd.argoproj.io";

    /// Unknown names and near misses of known ones.
    const MISSES: &str = "example.com/x foregroundDeletionX xforegroundDeletion Orphan \
        kubernetes.io/pvc-protectionX ceph.rook.io external-attacher";

    fn pattern_of(finalizer: &str) -> Option<Pattern> {
        lookup(finalizer).map(|e| e.pattern)
    }

    #[test]
    fn exact_names_resolve_to_their_own_entry() {
        for name in EXACT.split_whitespace() {
            assert_eq!(pattern_of(name), Some(Pattern::Exact(name)), "{name}");
        }
    }

    #[test]
    fn prefixes_and_suffixes_match() {
        for &(name, pattern) in MATCHED {
            assert_eq!(pattern_of(name), Some(pattern), "{name}");
        }
        let argo = lookup("resources-finalizer.argocd.argoproj.io/foreground").unwrap();
        assert_eq!(argo.controller, "argocd-application-controller");
        let rook = lookup("cephblockpool.ceph.rook.io").unwrap();
        assert_eq!(rook.workload.unwrap().namespaces, &["rook-ceph"]);
    }

    #[test]
    fn unknown_and_near_misses_do_not_match() {
        assert_eq!(pattern_of(""), None);
        for f in MISSES.split_whitespace() {
            assert_eq!(pattern_of(f), None, "{f}");
        }
    }

    #[test]
    fn exact_wins_over_prefix_and_longest_pattern_wins() {
        let entry = |pattern| FinalizerInfo { pattern, ..AWS_LBC };
        let table = [
            entry(Pattern::Prefix("a")),
            entry(Pattern::Suffix(".io")),
            entry(Pattern::Prefix("a.b/")),
            entry(Pattern::Exact("a.b/c.io")),
        ];
        let found = |f| lookup_in(&table, f).map(|e| e.pattern);
        assert_eq!(found("a.b/c.io"), Some(Pattern::Exact("a.b/c.io")));
        assert_eq!(found("a.b/d.io"), Some(Pattern::Prefix("a.b/")));
        assert_eq!(found("a.io"), Some(Pattern::Suffix(".io")));
        assert_eq!(found("ab"), Some(Pattern::Prefix("a")));
        assert_eq!(found("b"), None);
    }

    #[test]
    fn entries_are_complete_and_unique() {
        let all = catalogue();
        for (i, e) in all.iter().enumerate() {
            let name = e.pattern.text();
            assert!(!name.is_empty(), "entry {i} has an empty pattern");
            for text in [e.controller, e.applies_to, e.removed_when, e.stuck_causes] {
                assert!(!text.is_empty(), "{name}: an empty text");
            }
            assert!(!e.remedy.is_empty(), "{name}: no remedy");
            // Each entry says where it comes from: an upstream repository (owner/name), then
            // its file, PR or CHANGELOG line.
            let (repo, what) = e.source.split_once([':', '#']).unwrap_or_default();
            let cited = repo.contains('/') && !what.trim().is_empty();
            assert!(cited, "{name}: source {:?}", e.source);
            let hint = e.workload.is_none_or(|w| !w.name_contains.is_empty());
            assert!(hint, "{name}: a workload hint without names");
            let unique = all[i + 1..].iter().all(|o| o.pattern != e.pattern);
            assert!(unique, "{name} listed twice");
            // Each entry is what a name of its own pattern resolves to.
            let sample = match e.pattern {
                Pattern::Exact(s) => s.to_string(),
                Pattern::Prefix(p) => format!("{p}x"),
                Pattern::Suffix(s) => format!("x{s}"),
            };
            assert_eq!(lookup(&sample), Some(e), "{sample}");
        }
    }

    #[test]
    fn kinds_and_workloads() {
        for gc in ["foregroundDeletion", "orphan"] {
            let e = lookup(gc).unwrap();
            assert_eq!(e.kind, FinalizerKind::GarbageCollector, "{gc}");
            assert!(e.workload.is_none(), "{gc}");
        }
        for kcm in [
            "kubernetes",
            "kubernetes.io/pvc-protection",
            "batch.kubernetes.io/job-tracking",
        ] {
            let e = lookup(kcm).unwrap();
            let expected = (FinalizerKind::ControlPlane, None);
            assert_eq!((e.kind, e.workload), expected, "{kcm}");
        }
        let cm = lookup("finalizer.acme.cert-manager.io").unwrap();
        assert_eq!(cm.kind, FinalizerKind::Operator);
        assert_eq!(cm.workload.unwrap().namespaces, &["cert-manager"]);
        let ns = lookup("kubernetes").unwrap();
        assert!(ns.applies_to.contains("spec.finalizers"));
    }
}
