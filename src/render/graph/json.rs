//! `graph -o json`: the selected vertices and edges with the DOT attributes (same names), plus
//! what the DOT cannot carry (apiVersion, finalizers, the ownerReference and its
//! classification).
//!
//! ```json
//! {
//!   "apiVersion": "kubectl-gc.io/v1",
//!   "kind": "OwnershipGraph",
//!   "nodes": [
//!     { "uid": "…", "apiVersion": "apps/v1", "group": "apps", "version": "v1", "kind": "ReplicaSet",
//!       "namespace": "shop", "name": "web-5d4f", "missing": false, "beingDeleted": false,
//!       "deletingDependents": false, "virtual": false, "root": true, "finalizers": ["…"] }
//!   ],
//!   "edges": [
//!     { "from": "<dependent uid>", "to": "<owner uid>",
//!       "ownerReference": { "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d4f",
//!                           "uid": "…", "controller": true, "blockOwnerDeletion": true },
//!       "classification": "solid" }
//!   ]
//! }
//! ```
//!
//! Nodes are sorted by UID and edges by (from, to), as in the DOT. `root` and `finalizers` are
//! omitted when false/empty; `controller`, `blockOwnerDeletion` and `classification` when unset.

use super::dot::parse_group_version;
use super::{Subgraph, class_text};
use crate::render::REPORT_API_VERSION;
use serde::Serialize;

/// The document.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct GraphDocument {
    /// `kubectl-gc.io/v1`.
    pub api_version: &'static str,
    /// `OwnershipGraph`.
    pub kind: &'static str,
    /// Vertices.
    pub nodes: Vec<NodeOut>,
    /// Edges (dependent → owner).
    pub edges: Vec<EdgeOut>,
}

/// One vertex.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct NodeOut {
    /// UID.
    pub uid: String,
    /// apiVersion of the identity.
    pub api_version: String,
    /// Group (as the GC parses the apiVersion).
    pub group: String,
    /// Version.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
    /// Synthesised from a reference (no node).
    pub missing: bool,
    /// Has a deletionTimestamp.
    pub being_deleted: bool,
    /// Foreground deletion in progress.
    pub deleting_dependents: bool,
    /// Virtual node.
    #[serde(rename = "virtual")]
    pub is_virtual: bool,
    /// One of the selection's roots.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub root: bool,
    /// Finalizers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
}

/// One edge.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct EdgeOut {
    /// Dependent UID.
    pub from: String,
    /// Owner UID.
    pub to: String,
    /// The ownerReference.
    pub owner_reference: RefOut,
    /// The GC's classification of the reference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classification: Option<&'static str>,
}

/// An ownerReference (Kubernetes field names).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RefOut {
    /// apiVersion.
    pub api_version: String,
    /// kind.
    pub kind: String,
    /// name.
    pub name: String,
    /// uid.
    pub uid: String,
    /// controller.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// blockOwnerDeletion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

/// Builds the document.
pub fn document(sub: &Subgraph<'_>) -> GraphDocument {
    let nodes = sub
        .sorted_vertices()
        .into_iter()
        .map(|i| {
            let v = &sub.graph[i];
            let (group, version) = parse_group_version(v.api_version);
            NodeOut {
                uid: v.uid.to_owned(),
                api_version: v.api_version.to_owned(),
                group: group.to_owned(),
                version: version.to_owned(),
                kind: v.kind.to_owned(),
                namespace: v.namespace.to_owned(),
                name: v.name.to_owned(),
                missing: v.missing,
                being_deleted: v.being_deleted,
                deleting_dependents: v.deleting_dependents,
                is_virtual: v.is_virtual,
                root: v.root,
                finalizers: v.finalizers.iter().map(|f| (*f).to_owned()).collect(),
            }
        })
        .collect();
    let edges = sub
        .sorted_edges()
        .into_iter()
        .map(|e| {
            let (f, t) = sub.graph.edge_endpoints(e).expect("edge exists");
            let r = &sub.graph[e];
            EdgeOut {
                from: sub.graph[f].uid.to_owned(),
                to: sub.graph[t].uid.to_owned(),
                owner_reference: RefOut {
                    api_version: r.api_version.to_owned(),
                    kind: r.kind.to_owned(),
                    name: r.name.to_owned(),
                    uid: r.uid.to_owned(),
                    controller: r.controller,
                    block_owner_deletion: r.block_owner_deletion,
                },
                classification: r.class.map(class_text),
            }
        })
        .collect();
    GraphDocument {
        api_version: REPORT_API_VERSION,
        kind: "OwnershipGraph",
        nodes,
        edges,
    }
}
