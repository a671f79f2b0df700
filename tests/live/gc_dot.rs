//! Reading the GC's debug graph (`/debug/controllers/garbagecollector/graph`) in live tests:
//! a small line-based reader of the endpoint's DOT layout (gonum legacy and v1.26+),
//! independent of the crate's own parser. Used by the suites `graph` and `apply`.

use std::collections::{BTreeMap, BTreeSet};

/// A DOT graph as sets: vertices by UID with their flags, edges as UID pairs. A small
/// line-based reader of the endpoint's layout (both formats), independent of the crate's parser.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Sets {
    /// Vertices by UID.
    pub vertices: BTreeMap<String, Flags>,
    /// Edges (dependent UID, owner UID).
    pub edges: BTreeSet<(String, String)>,
}

/// The GC state attributes of a vertex.
#[derive(Debug, Default, PartialEq, Eq, Clone)]
pub struct Flags {
    pub missing: bool,
    pub being_deleted: bool,
    pub deleting_dependents: bool,
    pub is_virtual: bool,
}

/// A DOT attribute value without its quotes and escapes.
pub fn unquote(s: &str) -> String {
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s)
        .replace("\\\"", "\"")
        .replace("\\\\", "\\")
}

/// Reads a DOT graph from the GC's debug endpoint (or ours) into sets.
pub fn sets(dot: &str) -> Sets {
    let mut id_to_uid: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<(String, String, Flags)> = None;
    let mut out = Sets::default();
    let mut raw_edges = Vec::new();
    for line in dot.lines() {
        if let Some(id) = line.strip_prefix("  ").and_then(|l| l.strip_suffix(" [")) {
            current = Some((id.to_owned(), String::new(), Flags::default()));
        } else if line == "  ];" {
            let (id, uid, flags) = current.take().expect("vertex block");
            id_to_uid.insert(id, uid.clone());
            out.vertices.insert(uid, flags);
        } else if let Some((id, uid, flags)) = current.as_mut() {
            let _ = id;
            let attr = line.trim_start();
            let (k, v) = attr.split_once('=').expect("attribute");
            let v = unquote(v);
            match k {
                "uid" => *uid = v,
                "missing" => flags.missing = v == "true",
                "beingDeleted" => flags.being_deleted = v == "true",
                "deletingDependents" => flags.deleting_dependents = v == "true",
                "virtual" => flags.is_virtual = v == "true",
                _ => {}
            }
        } else if let Some(edge) = line.strip_prefix("  ").and_then(|l| l.strip_suffix(';'))
            && let Some((f, t)) = edge.split_once(" -> ")
        {
            raw_edges.push((f.to_owned(), t.to_owned()));
        }
    }
    for (f, t) in raw_edges {
        let map = |id: &str| id_to_uid.get(id).cloned().unwrap_or_else(|| unquote(id));
        out.edges.insert((map(&f), map(&t)));
    }
    out
}
