//! One API-server audit event, reduced to what GC forensics needs, whatever format it came in
//! (JSON lines, a webhook `EventList`, a must-gather, EKS, GKE or AKS exports: `super::formats`).
//!
//! Only `ResponseComplete` (and `Panic`) events become an [`AuditEvent`]: the other stages of a
//! request repeat it. Strings are owned: an event outlives the buffer it was parsed from only
//! when the history keeps it (writes, the GC's owner reads), and most are dropped at once.

/// The audit level the event was recorded at: what it can prove (research: Metadata has no
/// bodies; Request adds the request body; RequestResponse the response body).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Level {
    /// No `level` field (a format that drops it, e.g. GKE): treated as Metadata.
    #[default]
    Unknown,
    /// Metadata: no bodies.
    Metadata,
    /// Request: the request body.
    Request,
    /// RequestResponse: both bodies.
    RequestResponse,
}

impl Level {
    /// The level as the audit policy names it (`unknown` where the format drops the field).
    pub fn name(self) -> &'static str {
        match self {
            Level::Unknown => "unknown",
            Level::Metadata => "Metadata",
            Level::Request => "Request",
            Level::RequestResponse => "RequestResponse",
        }
    }
}

/// `objectRef`: the object the request was about (from the URL); audit.k8s.io's
/// `ObjectReference`, not the GC's [`crate::gc::ObjectRef`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectReference {
    /// `resource` (plural, lower-case).
    pub resource: String,
    /// `subresource` (`finalize`, `status`, …; empty when none).
    pub subresource: String,
    /// `namespace` (empty for cluster-scoped objects and collections).
    pub namespace: String,
    /// `name` (empty for collections: `deletecollection`, `list`).
    pub name: String,
    /// `apiGroup` (empty for core).
    pub api_group: String,
    /// `apiVersion` (the version part only, e.g. `v1`).
    pub api_version: String,
    /// `uid`, only for requests whose body had ObjectMeta (create/update); empty otherwise.
    pub uid: String,
}

/// An ownerReference seen in a body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnerRefSeen {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `name`.
    pub name: String,
    /// `uid`.
    pub uid: String,
}

/// What the bodies of a Request or RequestResponse event say, where it matters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bodies {
    /// DeleteOptions' `propagationPolicy` (request body, or the query string).
    pub propagation_policy: Option<String>,
    /// DeleteOptions' `orphanDependents` (the older form of Orphan).
    pub orphan_dependents: Option<bool>,
    /// DeleteOptions' `preconditions.uid`.
    pub precondition_uid: Option<String>,
    /// A create, patch or update body's `metadata.ownerReferences` (`Some(empty)`: set to
    /// none; a JSON patch `add`/`replace` of the whole list counts too). Strategic-merge
    /// directives (`$patch: delete`) are not references: they go to `removed_paths`.
    pub owner_references: Option<Vec<OwnerRefSeen>>,
    /// A create, patch or update body's `metadata.finalizers` (`Some(empty)`: set to none,
    /// e.g. the merge patch `{"metadata":{"finalizers":null}}`).
    pub finalizers: Option<Vec<String>>,
    /// What a patch removes from ownerReferences and finalizers: the paths of a JSON patch's
    /// `remove`/`replace` operations under `/metadata/ownerReferences` or
    /// `/metadata/finalizers`; `/metadata/ownerReferences/uid=<UID>` for each strategic-merge
    /// `{"$patch":"delete","uid":…}` (the GC's removal patch); `/metadata/finalizers/value=<F>`
    /// for each strategic-merge `$deleteFromPrimitiveList/finalizers` entry.
    pub removed_paths: Vec<String>,
    /// The response object's `metadata.uid` (RequestResponse).
    pub response_uid: Option<String>,
    /// The response object's `metadata.ownerReferences` (RequestResponse).
    pub response_owner_references: Option<Vec<OwnerRefSeen>>,
    /// The response object's `metadata.finalizers` (RequestResponse).
    pub response_finalizers: Option<Vec<String>>,
    /// The response object has a `metadata.deletionTimestamp` (RequestResponse).
    pub response_deleting: bool,
    /// DeleteOptions' `dryRun` names `All` (request body): a server-side dry run.
    pub dry_run: bool,
}

/// Where an event was read: the input (file, archive member) and the line or record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Position {
    /// File (and archive member) name.
    pub source: String,
    /// 1-based line where the record starts, in every format (the items of a list written on
    /// one line share it; a problem then names the item). 0: the input as a whole.
    pub line: u64,
}

/// One `ResponseComplete` audit event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuditEvent {
    /// `auditID` (one per request).
    pub audit_id: String,
    /// The recorded level.
    pub level: Level,
    /// `stageTimestamp`, microseconds since the Unix epoch (the response time).
    pub time_us: i64,
    /// `verb` (`delete`, `deletecollection`, `patch`, `update`, `create`, `get`, …).
    pub verb: String,
    /// `requestURI` with its query string (empty where the format drops it: GKE).
    pub request_uri: String,
    /// `user.username`.
    pub user: String,
    /// `user.groups`: the groups the authenticator gave that user (empty where none were
    /// recorded: GKE's `authenticationInfo` has no groups). A list of anything but strings
    /// gives none; at most 1024 are kept.
    pub groups: Vec<String>,
    /// `impersonatedUser.username`, when the request impersonated someone.
    pub impersonated_user: Option<String>,
    /// `userAgent`.
    pub user_agent: String,
    /// `objectRef`, for resource requests.
    pub object: Option<ObjectReference>,
    /// `responseStatus.code` (HTTP; GKE's gRPC codes are mapped to HTTP).
    pub code: u16,
    /// `responseStatus.reason` (`NotFound`, `Conflict`, …).
    pub reason: String,
    /// `responseStatus.details.uid`: the UID of an object a DELETE removed at once (newer
    /// servers keep it at Metadata level).
    pub deleted_uid: Option<String>,
    /// What the bodies say (Request and RequestResponse levels).
    pub bodies: Bodies,
    /// `annotations["audit.k8s.io/truncated"] == "true"`, or an AKS record cut at 16 KiB:
    /// the bodies are missing even at a level that records them.
    pub truncated: bool,
    /// Where it was read.
    pub position: Position,
}
