//! An in-memory API server for `--apply` tests: objects' metadata, with the API server's
//! semantics for the requests the GC sends (DELETE preconditions and deletion finalizers,
//! strategic merge patches of ownerReferences with the `uid` check (422, as kube-apiserver), JSON merge patches with the
//! resourceVersion check, 415 for strategic merge patches of custom resources, JSON patches with
//! their `test` operations). Every request is
//! recorded with its exact body; faults and hooks let tests change the cluster between requests.

use super::ops::{ApiError, ClusterOps, LiveMeta, LiveObject, LiveRef, ObjectUrl, PatchType};
use crate::gc::ObjectRef;
use crate::model::MetaIn;
use crate::snapshot::{Snapshot, SnapshotBuilder};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

/// A request the fake received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// GET, DELETE or PATCH.
    pub method: &'static str,
    /// The object's key.
    pub key: ObjectRef,
    /// PATCH content type.
    pub patch: Option<PatchType>,
    /// The exact body (empty for GET).
    pub body: String,
    /// The status answered (200, 404, 409, 415, …).
    pub status: u16,
}

/// A hook run before every request (after it is numbered): may change the objects.
pub type Hook = Box<dyn FnMut(usize, &Recorded, &mut Objects) -> Option<ApiError> + Send>;

/// The stored objects, by (group, plural, namespace, name) — versions share objects.
#[derive(Clone, Debug, Default)]
pub struct Objects {
    map: BTreeMap<(String, String, String, String), (ObjectRef, LiveMeta)>,
    next_rv: u64,
}

fn slot(key: &ObjectRef) -> (String, String, String, String) {
    (
        key.group.clone(),
        key.resource.clone(),
        key.namespace.clone(),
        key.name.clone(),
    )
}

impl Objects {
    /// Adds or replaces an object (a new resourceVersion is assigned).
    pub fn put(&mut self, key: ObjectRef, mut meta: LiveMeta) {
        self.next_rv += 1;
        meta.resource_version = self.next_rv.to_string();
        meta.name = key.name.clone();
        meta.namespace = key.namespace.clone();
        self.map.insert(slot(&key), (key, meta));
    }

    /// The object, if present.
    pub fn get(&self, key: &ObjectRef) -> Option<&LiveMeta> {
        self.map.get(&slot(key)).map(|(_, m)| m)
    }

    /// Removes an object.
    pub fn remove(&mut self, key: &ObjectRef) -> Option<LiveMeta> {
        self.map.remove(&slot(key)).map(|(_, m)| m)
    }

    /// Every object.
    pub fn all(&self) -> impl Iterator<Item = (&ObjectRef, &LiveMeta)> {
        self.map.values().map(|(k, m)| (k, m))
    }

    fn bump(&mut self, key: &ObjectRef) {
        self.next_rv += 1;
        let rv = self.next_rv.to_string();
        if let Some((_, m)) = self.map.get_mut(&slot(key)) {
            m.resource_version = rv;
        }
    }
}

/// The fake cluster.
pub struct FakeCluster {
    objects: Mutex<Objects>,
    requests: Mutex<Vec<Recorded>>,
    hooks: Mutex<Vec<Hook>>,
    no_smp_groups: BTreeSet<String>,
}

impl Default for FakeCluster {
    fn default() -> Self {
        FakeCluster {
            objects: Mutex::new(Objects::default()),
            requests: Mutex::new(Vec::new()),
            hooks: Mutex::new(Vec::new()),
            no_smp_groups: BTreeSet::new(),
        }
    }
}

impl FakeCluster {
    /// A cluster holding exactly the snapshot's objects (same UIDs, refs, finalizers,
    /// deletionTimestamps).
    pub fn from_snapshot(snap: &Snapshot) -> FakeCluster {
        let fake = FakeCluster::default();
        {
            let mut objs = fake.objects.lock().expect("fake lock");
            let s = &snap.store;
            for id in s.ids() {
                let o = s.object(id);
                let meta = LiveMeta {
                    uid: s.str(o.uid).to_owned(),
                    deletion_timestamp: o
                        .being_deleted()
                        .then(|| s.str(o.deletion_timestamp).to_owned()),
                    finalizers: s
                        .finalizers(id)
                        .iter()
                        .map(|f| s.str(*f).to_owned())
                        .collect(),
                    owner_references: s
                        .owner_refs(id)
                        .iter()
                        .map(|r| LiveRef {
                            api_version: s.str(r.api_version).to_owned(),
                            kind: s.str(r.kind).to_owned(),
                            name: s.str(r.name).to_owned(),
                            uid: s.str(r.uid).to_owned(),
                            controller: r.controller,
                            block_owner_deletion: r.block_owner_deletion,
                        })
                        .collect(),
                    ..LiveMeta::default()
                };
                objs.put(ObjectRef::of(snap, id), meta);
            }
        }
        fake
    }

    /// Strategic merge patches of this group's objects answer 415 (custom resources).
    pub fn without_smp(mut self, group: &str) -> FakeCluster {
        self.no_smp_groups.insert(group.to_owned());
        self
    }

    /// Runs `hook` before every request; a returned error is answered instead of the request.
    pub fn on_request(&self, hook: Hook) {
        self.hooks.lock().expect("fake lock").push(hook);
    }

    /// Changes the objects now.
    pub fn with_objects<T>(&self, f: impl FnOnce(&mut Objects) -> T) -> T {
        f(&mut self.objects.lock().expect("fake lock"))
    }

    /// The object, if present.
    pub fn object(&self, key: &ObjectRef) -> Option<LiveMeta> {
        self.objects.lock().expect("fake lock").get(key).cloned()
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("fake lock").clone()
    }

    /// The writes (DELETE, PATCH) so far.
    pub fn writes(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.method != "GET")
            .collect()
    }

    fn handle(
        &self,
        method: &'static str,
        key: &ObjectRef,
        patch: Option<PatchType>,
        body: &[u8],
    ) -> Result<Option<LiveMeta>, ApiError> {
        let mut rec = Recorded {
            method,
            key: key.clone(),
            patch,
            body: String::from_utf8_lossy(body).into_owned(),
            status: 0,
        };
        let n = self.requests.lock().expect("fake lock").len();
        let mut objs = self.objects.lock().expect("fake lock");
        let mut injected = None;
        for h in self.hooks.lock().expect("fake lock").iter_mut() {
            if let Some(e) = h(n, &rec, &mut objs) {
                injected = Some(e);
                break;
            }
        }
        let result = match injected {
            Some(e) => Err(e),
            None => self.serve(&mut objs, method, key, patch, body),
        };
        rec.status = match &result {
            Ok(_) => 200,
            Err(e) => e.code,
        };
        self.requests.lock().expect("fake lock").push(rec);
        result
    }

    fn serve(
        &self,
        objs: &mut Objects,
        method: &'static str,
        key: &ObjectRef,
        patch: Option<PatchType>,
        body: &[u8],
    ) -> Result<Option<LiveMeta>, ApiError> {
        let not_found = || {
            ApiError::status(
                404,
                "NotFound",
                format!("{} {:?} not found", key.resource, key.name),
            )
        };
        if method == "GET" {
            return objs.get(key).cloned().map(Some).ok_or_else(not_found);
        }
        let Some(current) = objs.get(key).cloned() else {
            return Err(not_found());
        };
        let body: Value = serde_json::from_slice(body)
            .map_err(|e| ApiError::status(400, "BadRequest", format!("body: {e}")))?;
        match (method, patch) {
            ("DELETE", _) => {
                let pre = &body["preconditions"];
                if let Some(uid) = pre["uid"].as_str()
                    && uid != current.uid
                {
                    return Err(conflict(format!(
                        "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                        current.uid
                    )));
                }
                if let Some(rv) = pre["resourceVersion"].as_str()
                    && rv != current.resource_version
                {
                    return Err(conflict(format!(
                        "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}",
                        current.resource_version
                    )));
                }
                // Appendix B: the finalizers a delete adds.
                let mut fins: Vec<String> = current
                    .finalizers
                    .iter()
                    .filter(|f| *f != "orphan" && *f != "foregroundDeletion")
                    .cloned()
                    .collect();
                let gc_fin = match body["propagationPolicy"].as_str() {
                    Some("Orphan") => Some("orphan"),
                    Some("Foreground") => Some("foregroundDeletion"),
                    Some(_) => None,
                    None => current
                        .finalizers
                        .iter()
                        .find(|f| *f == "orphan" || *f == "foregroundDeletion")
                        .map(|f| {
                            if f == "orphan" {
                                "orphan"
                            } else {
                                "foregroundDeletion"
                            }
                        }),
                };
                if let Some(f) = gc_fin {
                    fins.push(f.to_owned());
                }
                if fins.is_empty() {
                    objs.remove(key);
                    return Ok(None);
                }
                let mut m = current;
                m.deletion_timestamp
                    .get_or_insert_with(|| "2026-01-01T00:00:00Z".to_owned());
                m.finalizers = fins;
                set(objs, key, m.clone());
                Ok(Some(objs.get(key).cloned().unwrap_or(m)))
            }
            ("PATCH", Some(PatchType::Strategic)) => {
                if self.no_smp_groups.contains(&key.group) {
                    return Err(ApiError::status(
                        415,
                        "UnsupportedMediaType",
                        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
                    ));
                }
                let md = &body["metadata"];
                if let Some(uid) = md["uid"].as_str()
                    && uid != current.uid
                {
                    // What kube-apiserver answers (checked live in tests/apply_live.rs).
                    return Err(ApiError::status(
                        422,
                        "Invalid",
                        format!(
                            "{} {:?} is invalid: metadata.uid: Invalid value: {uid:?}: field is immutable",
                            key.kind, key.name
                        ),
                    ));
                }
                let mut m = current;
                if let Some(list) = md["ownerReferences"].as_array() {
                    for item in list {
                        let uid = item["uid"].as_str().unwrap_or_default();
                        if item["$patch"].as_str() == Some("delete") {
                            m.owner_references.retain(|r| r.uid != uid);
                            continue;
                        }
                        let patch: LiveRef = serde_json::from_value(item.clone())
                            .map_err(|e| ApiError::status(422, "Invalid", e.to_string()))?;
                        match m.owner_references.iter_mut().find(|r| r.uid == uid) {
                            Some(r) => {
                                if item.get("controller").is_some() {
                                    r.controller = patch.controller;
                                }
                                if item.get("blockOwnerDeletion").is_some() {
                                    r.block_owner_deletion = patch.block_owner_deletion;
                                }
                            }
                            None => m.owner_references.push(patch),
                        }
                    }
                }
                set(objs, key, m);
                Ok(objs.get(key).cloned())
            }
            ("PATCH", Some(PatchType::Merge)) => {
                let md = &body["metadata"];
                if let Some(rv) = md["resourceVersion"].as_str()
                    && rv != current.resource_version
                {
                    return Err(conflict(
                        "Operation cannot be fulfilled: the object has been modified; please apply your changes to the latest version and try again".to_owned(),
                    ));
                }
                let mut m = current;
                if let Some(v) = md.get("ownerReferences") {
                    m.owner_references = if v.is_null() {
                        vec![]
                    } else {
                        serde_json::from_value(v.clone())
                            .map_err(|e| ApiError::status(422, "Invalid", e.to_string()))?
                    };
                }
                if let Some(v) = md.get("finalizers") {
                    m.finalizers = if v.is_null() {
                        vec![]
                    } else {
                        serde_json::from_value(v.clone())
                            .map_err(|e| ApiError::status(422, "Invalid", e.to_string()))?
                    };
                }
                if m.terminating() && m.finalizers.is_empty() {
                    objs.remove(key);
                    return Ok(None);
                }
                set(objs, key, m);
                Ok(objs.get(key).cloned())
            }
            ("PATCH", Some(PatchType::Json)) => {
                let m = json_patch(current, &body)?;
                set(objs, key, m);
                Ok(objs.get(key).cloned())
            }
            _ => Err(ApiError::status(405, "MethodNotAllowed", method)),
        }
    }
}

/// An RFC 6902 JSON patch of the object's metadata, as kube-apiserver applies one (the
/// `jsonPatcher` of its patch handler): the operations in order on the object as JSON, the
/// first that fails (a `test` that does not match, an `add` whose parent is missing) answers
/// 422 and nothing is written. The fake knows `test` and `add` (what `relink` sends).
fn json_patch(current: LiveMeta, ops: &Value) -> Result<LiveMeta, ApiError> {
    let invalid = |m: String| ApiError::status(422, "", m);
    let mut doc = serde_json::json!({ "metadata": current });
    for op in ops
        .as_array()
        .ok_or_else(|| invalid("not a JSON patch".into()))?
    {
        let path = op["path"].as_str().unwrap_or_default();
        let value = op.get("value").cloned().unwrap_or(Value::Null);
        match op["op"].as_str() {
            Some("test") => {
                if doc.pointer(path) != Some(&value) {
                    return Err(invalid(format!("testing value {path} failed: test failed")));
                }
            }
            Some("add") => {
                let (parent, last) = path.rsplit_once('/').unwrap_or(("", path));
                let missing = || {
                    invalid(format!(
                        "add operation does not apply: doc is missing path: \"{path}\""
                    ))
                };
                match doc.pointer_mut(parent).ok_or_else(missing)? {
                    Value::Array(list) if last == "-" => list.push(value),
                    Value::Object(map) => {
                        map.insert(last.to_owned(), value);
                    }
                    _ => return Err(missing()),
                }
            }
            other => return Err(invalid(format!("the fake does not apply op {other:?}"))),
        }
    }
    serde_json::from_value(doc["metadata"].take()).map_err(|e| invalid(e.to_string()))
}

fn conflict(message: String) -> ApiError {
    ApiError::status(409, "Conflict", message)
}

fn set(objs: &mut Objects, key: &ObjectRef, meta: LiveMeta) {
    if let Some((_, m)) = objs.map.get_mut(&slot(key)) {
        *m = meta;
    }
    objs.bump(key);
}

fn live(meta: LiveMeta) -> LiveObject {
    LiveObject { meta }
}

impl FakeCluster {
    /// The objects now, as a snapshot with `template`'s resource table and provenance: what a
    /// re-list between rounds would read.
    pub fn snapshot(&self, template: &Snapshot) -> Snapshot {
        let mut b = SnapshotBuilder::new(template.provenance.clone());
        for r in &template.resources {
            b.add_resource(r.clone());
        }
        let objs = self.objects.lock().expect("fake lock");
        for (key, meta) in objs.all() {
            let json = serde_json::to_string(meta).expect("metadata serialises");
            let m: MetaIn<'_> = serde_json::from_str(&json).expect("metadata parses");
            let rid = b
                .find_resource(&key.group, &key.version, &key.kind)
                .expect("the template lists every kind of the fake");
            b.add_object(rid, &m);
        }
        b.finish()
    }
}

/// Re-lists the fake between rounds ([`super::Relist`]), counting the re-lists.
pub struct FakeRelist<'f> {
    /// The cluster.
    pub fake: &'f FakeCluster,
    /// The first snapshot (its resource table is kept).
    pub template: &'f Snapshot,
    /// Re-lists so far.
    pub count: u32,
}

impl super::Relist for FakeRelist<'_> {
    async fn relist(&mut self) -> Result<Snapshot, String> {
        self.count += 1;
        Ok(self.fake.snapshot(self.template))
    }
}

impl ClusterOps for FakeCluster {
    async fn get(&self, key: &ObjectRef) -> Result<Option<LiveObject>, ApiError> {
        match self.handle("GET", key, None, b"") {
            Ok(m) => Ok(m.map(live)),
            Err(e) if e.is_object_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    async fn get_owner(&self, key: &ObjectRef) -> Result<Option<LiveObject>, ApiError> {
        // Where the GC's lookup lands: an object whose path it is, a collection (a list: not
        // an object), the server's refusal of a `%`, or nothing.
        let path = key.gc_get_path();
        let found = {
            let objs = self.objects.lock().expect("fake lock");
            objs.all()
                .find(|(k, _)| k.path() == path)
                .map(|(k, _)| k.clone())
        };
        if let Some(k) = found {
            return self.get(&k).await;
        }
        let collection = {
            let objs = self.objects.lock().expect("fake lock");
            objs.all().any(|(k, _)| {
                ObjectRef {
                    name: String::new(),
                    ..k.clone()
                }
                .gc_get_path()
                    == path
            })
        };
        let answer = if collection {
            Err(ApiError::not_an_object(format!("GET {path}: a list")))
        } else if key.name.contains('%') {
            Err(ApiError::status(
                400,
                "BadRequest",
                format!(
                    "Name parameter invalid: {:?}: may not contain '%'",
                    key.name
                ),
            ))
        } else {
            Err(ApiError::status(
                404,
                "NotFound",
                format!("{path} not found"),
            ))
        };
        let mut rec = Recorded {
            method: "GET",
            key: key.clone(),
            patch: None,
            body: String::new(),
            status: 0,
        };
        rec.status = answer.as_ref().map_or_else(|e| e.code, |_| 200);
        self.requests.lock().expect("fake lock").push(rec);
        match answer {
            Err(e) if e.is_object_not_found() => Ok(None),
            other => other,
        }
    }

    async fn delete(&self, key: &ObjectRef, body: &[u8]) -> Result<u16, ApiError> {
        self.handle("DELETE", key, None, body).map(|_| 200)
    }

    async fn patch(&self, key: &ObjectRef, patch: PatchType, body: &[u8]) -> Result<u16, ApiError> {
        self.handle("PATCH", key, Some(patch), body).map(|_| 200)
    }
}
