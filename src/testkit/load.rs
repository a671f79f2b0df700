//! Loading a generated cluster into a live API server, in bulk (`kubectl gc generate
//! --apply-to-kubeconfig`): the live benchmark's fixture. Meant for disposable test clusters.
//!
//! ownerReferences need the owners' real UIDs, so objects are created level by level (owners
//! first; every level concurrently) and each dependent's references are rewritten with the
//! UIDs the server assigned. References to absent or unserved owners keep their generated UIDs.
//! The two custom resources' CRDs are installed first. Terminating objects are created with
//! their custom finalizers and then deleted with the generated propagation policy: without a
//! running garbage collector they stay terminating exactly as generated (with
//! `foregroundDeletion` or `orphan` added by the API server).

use super::generate::{
    Deletion, GenObj, Generated, K_CLUSTERROLE, K_CONTROLLERREVISION, K_CRONJOB, K_DAEMONSET,
    K_DEPLOYMENT, K_ENDPOINTSLICE, K_JOB, K_LEASE, K_POD, K_PVC, K_REDIS, K_REPLICASET,
    K_ROLEBINDING, K_SECRET, K_SERVICE, K_STATEFULSET, KINDS, RefTarget, UNSERVED_API_VERSION,
    UNSERVED_KIND, format_uid,
};
use super::generate::{K_CLUSTERROLEBINDING, K_CONFIGMAP, K_ROLE};
use crate::error::{Error, Result};
use crate::model::finalizers;
use crate::source::live::Connection;
use crate::util::Backoff;
use futures::{StreamExt, stream};
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, PostParams};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// What a load did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LoadStats {
    /// Objects created.
    pub created: usize,
    /// Objects that already existed (e.g. the system namespaces).
    pub existing: usize,
    /// Objects then deleted to make them terminating.
    pub deleted: usize,
    /// Wall time.
    pub elapsed: Duration,
}

fn api_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Api {
        message: format!("{what}: {e}"),
        hint: Some("load into a fresh, disposable cluster (e.g. scripts/testenv start)".into()),
    }
}

fn crd(group: &str, kind: &str, plural: &str, namespaced: bool) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": { "name": format!("{plural}.{group}") },
        "spec": {
            "group": group,
            "names": { "kind": kind, "plural": plural, "singular": kind.to_ascii_lowercase(),
                       "listKind": format!("{kind}List") },
            "scope": if namespaced { "Namespaced" } else { "Cluster" },
            "versions": [{ "name": "v1", "served": true, "storage": true,
                "schema": { "openAPIV3Schema": { "type": "object",
                    "x-kubernetes-preserve-unknown-fields": true } } }]
        }
    })
}

/// The wait between create retries: 200 ms, doubling.
const CREATE_BACKOFF: Backoff = Backoff {
    base: Duration::from_millis(200),
    factor: 2,
    max_exponent: 6,
    jitter: 0.0,
};

/// Is this a transient failure worth retrying?
fn retryable(e: &kube::Error) -> bool {
    match e {
        kube::Error::Api(s) => matches!(s.code, 429 | 500 | 502 | 503 | 504),
        _ => true,
    }
}

async fn create(api: &Api<DynamicObject>, body: &Value, name: &str) -> Result<(String, bool)> {
    let obj: DynamicObject =
        serde_json::from_value(body.clone()).map_err(|e| api_error("bad generated object", e))?;
    let mut attempt = 0;
    loop {
        match api.create(&PostParams::default(), &obj).await {
            Ok(o) => return Ok((o.metadata.uid.unwrap_or_default(), true)),
            Err(kube::Error::Api(s)) if s.code == 409 => {
                let got = api
                    .get_metadata(name)
                    .await
                    .map_err(|e| api_error(&format!("get {name}"), e))?;
                return Ok((got.metadata.uid.unwrap_or_default(), false));
            }
            Err(e) if retryable(&e) && attempt < 6 => {
                attempt += 1;
                tokio::time::sleep(CREATE_BACKOFF.delay(attempt - 1)).await;
            }
            Err(e) => return Err(api_error(&format!("create {name}"), e)),
        }
    }
}

/// Finds the served version of every generated kind (CRDs may take a moment to appear).
async fn resolve(conn: &Connection) -> Result<Vec<ApiResource>> {
    let mut out = Vec::with_capacity(KINDS.len());
    for k in KINDS.iter() {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let found = kube::discovery::group(&conn.client, k.group)
                .await
                .ok()
                .and_then(|g| {
                    // The most stable served version (1.20 serves CronJob only in v1beta1,
                    // outside batch's preferred version).
                    g.resources_by_stability()
                        .into_iter()
                        .find(|(ar, _)| ar.kind == k.kind)
                });
            match found {
                Some((ar, _)) => {
                    out.push(ar);
                    break;
                }
                None if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(500)).await
                }
                None => {
                    return Err(api_error(
                        "discovery",
                        format!("the server does not serve {}/{}", k.group, k.kind),
                    ));
                }
            }
        }
    }
    Ok(out)
}

fn pod_spec() -> Value {
    json!({ "containers": [{ "name": "app", "image": "registry.k8s.io/pause:3.9" }] })
}

fn first_label(o: &GenObj) -> Value {
    match o.labels.first() {
        Some((k, v)) => json!({ *k: v }),
        None => json!({ "generated": "true" }),
    }
}

/// The object's body as the API wants it: kind-specific required fields with the generated
/// metadata.
fn body(g: &Generated, i: usize, uids: &[String], ars: &[ApiResource]) -> Value {
    let o = &g.objects[i];
    let ar = &ars[o.kind as usize];
    let mut meta = json!({ "name": o.name });
    let ns = g.namespace_of(o);
    if !ns.is_empty() {
        meta["namespace"] = json!(ns);
    }
    if !o.labels.is_empty() {
        let labels: serde_json::Map<String, Value> = o
            .labels
            .iter()
            .map(|(k, v)| ((*k).to_owned(), json!(v)))
            .collect();
        meta["labels"] = Value::Object(labels);
    }
    let fins: Vec<&str> = o
        .finalizers
        .iter()
        .copied()
        .filter(|f| *f != finalizers::FOREGROUND && *f != finalizers::ORPHAN)
        .collect();
    if !fins.is_empty() {
        meta["finalizers"] = json!(fins);
    }
    if !o.owner_refs.is_empty() {
        let refs: Vec<Value> = o
            .owner_refs
            .iter()
            .map(|r| {
                let (api_version, kind, uid) = match r.target {
                    RefTarget::Object(t) => {
                        let t = t as usize;
                        let tar = &ars[g.objects[t].kind as usize];
                        (tar.api_version.clone(), tar.kind.clone(), uids[t].clone())
                    }
                    RefTarget::Absent(k) => (
                        ars[k as usize].api_version.clone(),
                        ars[k as usize].kind.clone(),
                        format_uid(r.uid),
                    ),
                    RefTarget::Unserved => (
                        UNSERVED_API_VERSION.to_owned(),
                        UNSERVED_KIND.to_owned(),
                        format_uid(r.uid),
                    ),
                };
                let mut v =
                    json!({ "apiVersion": api_version, "kind": kind, "name": r.name, "uid": uid });
                if let Some(c) = r.controller {
                    v["controller"] = json!(c);
                }
                if let Some(b) = r.block_owner_deletion {
                    v["blockOwnerDeletion"] = json!(b);
                }
                v
            })
            .collect();
        meta["ownerReferences"] = json!(refs);
    }
    let mut obj = json!({ "apiVersion": ar.api_version, "kind": ar.kind, "metadata": meta });
    let selector = first_label(o);
    let template = json!({ "metadata": { "labels": selector }, "spec": pod_spec() });
    let job_template =
        json!({ "spec": { "restartPolicy": "Never", "containers": pod_spec()["containers"] } });
    match o.kind {
        K_POD => obj["spec"] = pod_spec(),
        K_SERVICE => {
            obj["spec"] = json!({ "clusterIP": "None", "selector": selector,
                                  "ports": [{ "port": 80 }] })
        }
        K_ENDPOINTSLICE => {
            obj["addressType"] = json!("IPv4");
            obj["endpoints"] = json!([]);
        }
        K_CONFIGMAP => obj["data"] = json!({ "generated": "true" }),
        K_SECRET => obj["type"] = json!("Opaque"),
        K_PVC => {
            obj["spec"] = json!({ "accessModes": ["ReadWriteOnce"],
                                  "resources": { "requests": { "storage": "1Gi" } } })
        }
        K_LEASE => obj["spec"] = json!({ "holderIdentity": o.name, "leaseDurationSeconds": 40 }),
        K_DEPLOYMENT | K_DAEMONSET => {
            obj["spec"] = json!({ "selector": { "matchLabels": selector }, "template": template });
        }
        K_REPLICASET => {
            let labels: serde_json::Map<String, Value> = o
                .labels
                .iter()
                .map(|(k, v)| ((*k).to_owned(), json!(v)))
                .collect();
            obj["spec"] = json!({ "replicas": 1, "selector": { "matchLabels": labels },
                "template": { "metadata": { "labels": labels }, "spec": pod_spec() } });
        }
        K_STATEFULSET => {
            obj["spec"] = json!({ "serviceName": o.name, "selector": { "matchLabels": selector },
                                  "template": template });
        }
        K_CONTROLLERREVISION => {
            obj["revision"] = json!(1);
            obj["data"] = json!({});
        }
        K_JOB => obj["spec"] = json!({ "template": job_template }),
        K_CRONJOB => {
            obj["spec"] = json!({ "schedule": "*/30 * * * *",
                                  "jobTemplate": { "spec": { "template": job_template } } })
        }
        K_ROLE | K_CLUSTERROLE => obj["rules"] = json!([]),
        K_ROLEBINDING => {
            obj["roleRef"] = json!({ "apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                     "name": "developer" })
        }
        K_CLUSTERROLEBINDING => {
            // The generator names each binding after the ClusterRole it binds.
            obj["roleRef"] = json!({ "apiGroup": "rbac.authorization.k8s.io",
                                     "kind": "ClusterRole", "name": o.name })
        }
        K_REDIS => obj["spec"] = json!({ "size": 3 }),
        _ => {}
    }
    obj
}

fn api_for(conn: &Connection, ar: &ApiResource, namespace: &str) -> Api<DynamicObject> {
    if namespace.is_empty() {
        Api::all_with(conn.client.clone(), ar)
    } else {
        Api::namespaced_with(conn.client.clone(), namespace, ar)
    }
}

/// Creates the generated cluster in the connected server, `concurrency` requests at a time.
/// `progress(done, total)` is called as objects are created.
pub async fn load(
    conn: &Connection,
    g: &Generated,
    concurrency: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<LoadStats> {
    let start = Instant::now();
    let crd_ar = ApiResource {
        group: "apiextensions.k8s.io".into(),
        version: "v1".into(),
        api_version: "apiextensions.k8s.io/v1".into(),
        kind: "CustomResourceDefinition".into(),
        plural: "customresourcedefinitions".into(),
    };
    let crds: Api<DynamicObject> = Api::all_with(conn.client.clone(), &crd_ar);
    for k in KINDS.iter().filter(|k| k.group.ends_with(".example.com")) {
        let body = crd(k.group, k.kind, k.plural, k.namespaced);
        create(&crds, &body, &format!("{}.{}", k.plural, k.group)).await?;
    }
    let ars = resolve(conn).await?;
    // Level = 1 + the deepest generated owner; objects come owners-first.
    let n = g.objects.len();
    let mut level = vec![0u32; n];
    for (i, o) in g.objects.iter().enumerate() {
        for r in &o.owner_refs {
            if let RefTarget::Object(t) = r.target {
                level[i] = level[i].max(level[t as usize] + 1);
            }
        }
    }
    // A namespaced object is created after its Namespace (the API server refuses it before:
    // "namespaces \"x\" not found"), so it sits at least one level below it. Repeat until
    // stable: a Namespace can itself own, or be owned by, objects of other levels.
    let ns_index: std::collections::HashMap<&str, usize> = g
        .objects
        .iter()
        .enumerate()
        .filter(|(_, o)| KINDS[o.kind as usize].kind == "Namespace")
        .map(|(i, o)| (o.name.as_str(), i))
        .collect();
    // Bounded: generated ownership cycles would otherwise raise levels for ever.
    for _ in 0..=n {
        let mut changed = false;
        for (i, o) in g.objects.iter().enumerate() {
            let mut l = level[i];
            for r in &o.owner_refs {
                if let RefTarget::Object(t) = r.target {
                    l = l.max(level[t as usize] + 1);
                }
            }
            if let Some(&nsi) = ns_index.get(g.namespace_of(o))
                && nsi != i
            {
                l = l.max(level[nsi] + 1);
            }
            if l != level[i] {
                level[i] = l;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let depth = level.iter().copied().max().unwrap_or(0);
    let mut uids = vec![String::new(); n];
    let mut stats = LoadStats::default();
    let mut done = 0;
    for l in 0..=depth {
        let batch: Vec<usize> = (0..n).filter(|&i| level[i] == l).collect();
        let bodies: Vec<(usize, Value)> = batch
            .iter()
            .map(|&i| (i, body(g, i, &uids, &ars)))
            .collect();
        let mut results = stream::iter(bodies)
            .map(|(i, b)| {
                let o = &g.objects[i];
                let api = api_for(conn, &ars[o.kind as usize], g.namespace_of(o));
                async move { (i, create(&api, &b, &o.name).await) }
            })
            .buffer_unordered(concurrency.max(1));
        while let Some((i, r)) = results.next().await {
            let (uid, created) = r?;
            uids[i] = uid;
            if created {
                stats.created += 1;
            } else {
                stats.existing += 1;
            }
            done += 1;
            if done % 1000 == 0 || done == n {
                progress(done, n);
            }
        }
    }
    let deletes: Vec<usize> = (0..n)
        .filter(|&i| g.objects[i].deletion.is_some())
        .collect();
    let mut results = stream::iter(deletes)
        .map(|i| {
            let o = &g.objects[i];
            let api = api_for(conn, &ars[o.kind as usize], g.namespace_of(o));
            let dp = match o.deletion.map(|d| d.1) {
                Some(Deletion::Foreground) => DeleteParams::foreground(),
                Some(Deletion::Orphan) => DeleteParams::orphan(),
                _ => DeleteParams::default(),
            };
            async move {
                api.delete(&o.name, &dp)
                    .await
                    .map_err(|e| api_error(&format!("delete {}", o.name), e))
            }
        })
        .buffer_unordered(concurrency.max(1));
    while let Some(r) = results.next().await {
        r?;
        stats.deleted += 1;
    }
    stats.elapsed = start.elapsed();
    Ok(stats)
}
