//! A generated cluster as each input reads it: the snapshot, the resource table, the objects'
//! metadata and JSON (metadata only or full), a `kubectl get -o json` List and a must-gather
//! directory.

use super::*;

impl Generated {
    /// The apiVersion and kind a reference names.
    pub fn ref_type(&self, r: &GenRef) -> (String, &'static str) {
        match r.target {
            RefTarget::Object(i) => {
                let s = self.objects[i as usize].spec();
                (s.api_version(), s.kind)
            }
            RefTarget::Absent(k) => (KINDS[k as usize].api_version(), KINDS[k as usize].kind),
            RefTarget::Unserved => (UNSERVED_API_VERSION.to_owned(), UNSERVED_KIND),
        }
    }

    /// The namespace name of an object (`""` for cluster-scoped ones).
    pub fn namespace_of(&self, o: &GenObj) -> &str {
        if o.namespace == NO_NAMESPACE {
            ""
        } else {
            &self.namespaces[o.namespace as usize]
        }
    }

    /// Number of objects of each kind, in [`KINDS`] order.
    pub fn counts(&self) -> Vec<(&'static str, usize)> {
        let mut n = vec![0usize; KINDS.len()];
        for o in &self.objects {
            n[o.kind as usize] += 1;
        }
        KINDS.iter().map(|k| k.kind).zip(n).collect()
    }

    /// The resource table a live snapshot of this cluster would have: every generated kind,
    /// completely listed, plus the (ignored) core events.
    pub fn resources(&self) -> Vec<Resource> {
        let verbs: Vec<String> = [
            "create",
            "delete",
            "deletecollection",
            "get",
            "list",
            "patch",
            "update",
            "watch",
        ]
        .map(String::from)
        .to_vec();
        let mut out: Vec<Resource> = KINDS
            .iter()
            .map(|k| Resource {
                group: k.group.into(),
                version: k.version.into(),
                kind: k.kind.into(),
                plural: k.plural.into(),
                namespaced: k.namespaced,
                verbs: verbs.clone(),
                preferred_version: k.version.into(),
                list: ListOutcome::Complete,
            })
            .collect();
        out.push(Resource {
            group: String::new(),
            version: "v1".into(),
            kind: "Event".into(),
            plural: "events".into(),
            namespaced: true,
            verbs,
            preferred_version: "v1".into(),
            list: ListOutcome::Ignored {
                reason: IgnoreReason::GcIgnoredResource,
            },
        });
        out
    }

    /// The snapshot a live `kubectl gc snapshot` of this cluster would write: objects grouped
    /// by resource (the order lists return them in), generation order within a resource.
    pub fn to_snapshot(&self) -> Snapshot {
        let mut b = SnapshotBuilder::new(Provenance {
            tool: format!(
                "kubectl-gc {} generate --seed {}",
                env!("CARGO_PKG_VERSION"),
                self.options.seed
            ),
            captured_at: self.options.captured_at.clone(),
            server_version: Some(self.options.server_version.clone()),
            source: SourceKind::Live,
            context: Some("synthetic".into()),
            inputs: vec![],
        });
        let rows: Vec<_> = self
            .resources()
            .into_iter()
            .map(|r| b.add_resource(r))
            .collect();
        let mut order: Vec<u32> = (0..self.objects.len() as u32).collect();
        order.sort_by_key(|&i| self.objects[i as usize].kind);
        for i in order {
            let o = &self.objects[i as usize];
            let meta = self.meta(o);
            b.add_object(rows[o.kind as usize], &meta);
        }
        b.finish()
    }

    /// The metadata of a generated object, as an input to the store.
    pub fn meta<'a>(&'a self, o: &'a GenObj) -> MetaIn<'a> {
        MetaIn {
            namespace: Cow::Borrowed(self.namespace_of(o)),
            name: Cow::Borrowed(&o.name),
            uid: Cow::Owned(format_uid(o.uid)),
            resource_version: Cow::Owned(o.resource_version.to_string()),
            creation_timestamp: Cow::Owned(format_rfc3339(o.created)),
            deletion_timestamp: o.deletion.map(|(t, _)| Cow::Owned(format_rfc3339(t))),
            finalizers: o.finalizers.iter().map(|f| Cow::Borrowed(*f)).collect(),
            labels: Labels(
                o.labels
                    .iter()
                    .map(|(k, v)| (Cow::Borrowed(*k), Cow::Borrowed(v.as_str())))
                    .collect(),
            ),
            owner_references: o
                .owner_refs
                .iter()
                .map(|r| {
                    let (api_version, kind) = self.ref_type(r);
                    OwnerRefIn {
                        api_version: Cow::Owned(api_version),
                        kind: Cow::Borrowed(kind),
                        name: Cow::Borrowed(&r.name),
                        uid: Cow::Owned(format_uid(r.uid)),
                        controller: r.controller,
                        block_owner_deletion: r.block_owner_deletion,
                    }
                })
                .collect(),
            ..MetaIn::default()
        }
    }
}

/// What the objects of a dump written by [`Generated::write_kubectl_list`] carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    /// apiVersion, kind and metadata only.
    MetadataOnly,
    /// Also a spec and a status of about 5 KB, as real objects have (containers with
    /// environment and resources, volumes, conditions), plus `managedFields` and a
    /// `last-applied-configuration` annotation: what a reader must skip.
    Full,
}

impl Generated {
    /// One object as `kubectl get -o json` prints it.
    pub fn object_json(&self, o: &GenObj, body: Body) -> serde_json::Value {
        use serde_json::{Map, Value, json};
        let k = o.spec();
        let mut meta = Map::new();
        meta.insert("name".into(), o.name.clone().into());
        if o.namespace != NO_NAMESPACE {
            meta.insert("namespace".into(), self.namespace_of(o).into());
        }
        meta.insert("uid".into(), format_uid(o.uid).into());
        meta.insert(
            "resourceVersion".into(),
            o.resource_version.to_string().into(),
        );
        meta.insert("creationTimestamp".into(), format_rfc3339(o.created).into());
        if let Some((t, _)) = o.deletion {
            meta.insert("deletionTimestamp".into(), format_rfc3339(t).into());
        }
        if !o.finalizers.is_empty() {
            meta.insert("finalizers".into(), json!(o.finalizers));
        }
        if !o.labels.is_empty() {
            let labels: Map<String, Value> = o
                .labels
                .iter()
                .map(|(k, v)| ((*k).to_owned(), Value::from(v.as_str())))
                .collect();
            meta.insert("labels".into(), Value::Object(labels));
        }
        if !o.owner_refs.is_empty() {
            let refs: Vec<Value> = o
                .owner_refs
                .iter()
                .map(|r| {
                    let (api_version, kind) = self.ref_type(r);
                    let mut m = Map::new();
                    m.insert("apiVersion".into(), api_version.into());
                    m.insert("kind".into(), kind.into());
                    m.insert("name".into(), r.name.clone().into());
                    m.insert("uid".into(), format_uid(r.uid).into());
                    if let Some(c) = r.controller {
                        m.insert("controller".into(), c.into());
                    }
                    if let Some(b) = r.block_owner_deletion {
                        m.insert("blockOwnerDeletion".into(), b.into());
                    }
                    Value::Object(m)
                })
                .collect();
            meta.insert("ownerReferences".into(), Value::Array(refs));
        }
        let mut obj = Map::new();
        obj.insert("apiVersion".into(), k.api_version().into());
        obj.insert("kind".into(), k.kind.into());
        if body == Body::Full {
            let name = &o.name;
            let image = format!("registry.example.com/team/{name}:v1.{}", o.uid % 97);
            let env: Vec<Value> = (0..24)
                .map(|i| json!({"name": format!("SETTING_{i}"), "value": format!("{name}-value-{i}-{:x}", o.uid >> (i % 64))}))
                .collect();
            let container = |c: &str| {
                json!({"name": c, "image": image, "imagePullPolicy": "IfNotPresent",
                    "args": ["--config=/etc/app/config.yaml", "--log-level=info", "--metrics-addr=:9090"],
                    "env": env,
                    "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}, {"containerPort": 9090, "name": "metrics", "protocol": "TCP"}],
                    "resources": {"limits": {"cpu": "500m", "memory": "512Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
                    "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10},
                    "volumeMounts": [{"mountPath": "/etc/app", "name": "config"}, {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access", "readOnly": true}]})
            };
            obj.insert(
                "spec".into(),
                json!({"containers": [container("app"), container("sidecar")],
                    "volumes": [{"name": "config", "configMap": {"name": format!("{name}-config")}},
                                {"name": "kube-api-access", "projected": {"sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}],
                    "nodeSelector": {"kubernetes.io/os": "linux"}, "restartPolicy": "Always",
                    "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst"}),
            );
            let conditions: Vec<Value> = ["Initialized", "Ready", "ContainersReady", "PodScheduled"]
                .iter()
                .map(|t| json!({"type": t, "status": "True", "lastTransitionTime": format_rfc3339(o.created + 30)}))
                .collect();
            obj.insert(
                "status".into(),
                json!({"phase": "Running", "observedGeneration": 3,
                    "conditions": conditions,
                    "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0, "image": image, "imageID": format!("{image}@sha256:{:064x}", o.uid), "started": true}]}),
            );
            meta.insert(
                "annotations".into(),
                json!({"kubectl.kubernetes.io/last-applied-configuration": format!("{{\"apiVersion\":\"{}\",\"kind\":\"{}\",\"metadata\":{{\"name\":\"{name}\"}},\"spec\":{{\"replicas\":1,\"template\":{{\"spec\":{{\"containers\":[{{\"name\":\"app\",\"image\":\"{image}\"}}]}}}}}}}}", k.api_version(), k.kind)}),
            );
            meta.insert(
                "managedFields".into(),
                json!([{"apiVersion": k.api_version(), "fieldsType": "FieldsV1", "manager": "kube-controller-manager", "operation": "Update", "time": format_rfc3339(o.created),
                    "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}, "f:ownerReferences": {}}, "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:env": {}}}}}}]),
            );
        }
        obj.insert("metadata".into(), Value::Object(meta));
        Value::Object(obj)
    }

    /// Writes the cluster as `kubectl get <every kind> -A -o json` prints it: one `List` that
    /// kubectl built (`resourceVersion: ""`), items grouped by resource.
    pub fn write_kubectl_list(
        &self,
        w: &mut dyn std::io::Write,
        body: Body,
    ) -> std::io::Result<()> {
        let mut order: Vec<u32> = (0..self.objects.len() as u32).collect();
        order.sort_by_key(|&i| self.objects[i as usize].kind);
        w.write_all(b"{\"apiVersion\":\"v1\",\"items\":[")?;
        for (n, i) in order.into_iter().enumerate() {
            if n > 0 {
                w.write_all(b",")?;
            }
            serde_json::to_writer(&mut *w, &self.object_json(&self.objects[i as usize], body))?;
        }
        w.write_all(b"],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}\n")
    }

    /// Writes the cluster as a must-gather writes it: `namespaces/<ns>/<group>/<plural>.yaml`
    /// and `cluster-scoped-resources/<group>/<plural>.yaml`, one server list (YAML) per file.
    pub fn write_must_gather(&self, dir: &std::path::Path, body: Body) -> std::io::Result<()> {
        let mut files: std::collections::BTreeMap<std::path::PathBuf, Vec<serde_json::Value>> =
            Default::default();
        for o in &self.objects {
            let k = o.spec();
            let group = if k.group.is_empty() { "core" } else { k.group };
            let path = if o.namespace == NO_NAMESPACE {
                dir.join("cluster-scoped-resources").join(group)
            } else {
                dir.join("namespaces")
                    .join(self.namespace_of(o))
                    .join(group)
            }
            .join(format!("{}.yaml", k.plural));
            files
                .entry(path)
                .or_default()
                .push(self.object_json(o, body));
        }
        for (path, items) in files {
            std::fs::create_dir_all(path.parent().expect("a parent"))?;
            let list = serde_json::json!({"apiVersion": "v1", "items": items, "kind": "List",
                "metadata": {"resourceVersion": self.objects.len().to_string()}});
            let text = serde_saphyr::to_string(&list).map_err(std::io::Error::other)?;
            std::fs::write(path, text)?;
        }
        Ok(())
    }
}
