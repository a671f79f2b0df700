//! Live lists: protobuf pages read exactly like JSON ones (the same snapshot, line for line), and
//! hostile `-n` values stay one path segment.

use crate::harness::{Suite, Test};
use crate::testenv::TestEnv;
use kubectl_gc::snapshot::{ListOutcome, Snapshot, format};
use kubectl_gc::source::live::{self, ConnectOptions, Connection, LiveOptions, WireFormat};
use std::time::Duration;

pub struct Ctx {
    env: TestEnv,
    rt: tokio::runtime::Runtime,
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "lists",
    setup: || {
        let env = TestEnv::start(false)?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| format!("tokio runtime: {e}"))?;
        Ok(Ctx { env, rt })
    },
    tests: &[
        Test {
            name: "protobuf_snapshot_equals_json_snapshot",
            needs: &[],
            run: protobuf_snapshot_equals_json_snapshot,
        },
        Test {
            name: "hostile_namespace_stays_one_segment",
            needs: &[],
            run: hostile_namespace_stays_one_segment,
        },
    ],
};

fn kubectl(ctx: &Ctx, args: &[&str]) -> String {
    ctx.env.kubectl(args).unwrap_or_else(|e| panic!("{e}"))
}

fn apply(ctx: &Ctx, yaml: &str) {
    // Right after a CRD is established kubectl's discovery may not know the kind yet.
    let mut last = String::new();
    for _ in 0..20 {
        match ctx.env.kubectl_stdin(&["apply", "-f", "-"], Some(yaml)) {
            Ok(_) => return,
            Err(e) => last = e,
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    panic!("{last}");
}

fn connect(ctx: &Ctx) -> Connection {
    let opts = ConnectOptions {
        kubeconfig: Some(ctx.env.kubeconfig.clone()),
        ..ConnectOptions::default()
    };
    ctx.rt.block_on(live::connect(&opts)).expect("connect")
}

fn take(ctx: &Ctx, conn: &Connection, opts: &LiveOptions) -> Snapshot {
    take_counting(ctx, conn, opts).0
}

/// The snapshot, with the last progress report: its page counts say how many list pages the
/// server answered in protobuf (Content-Type and magic bytes as the client received them).
fn take_counting(ctx: &Ctx, conn: &Connection, opts: &LiveOptions) -> (Snapshot, live::Progress) {
    let last = std::sync::Mutex::new(live::Progress::default());
    let snap = ctx
        .rt
        .block_on(live::snapshot(conn, opts, &|p| {
            *last.lock().unwrap() = p;
        }))
        .unwrap_or_else(|e| panic!("snapshot: {e}"));
    let p = *last.lock().unwrap();
    (snap, p)
}

/// The snapshot as written to a file, minus the capture time: every object line and the
/// resource table, byte for byte.
fn written(snap: &Snapshot) -> (serde_json::Value, Vec<String>) {
    let mut buf = Vec::new();
    format::write(snap, &mut buf).expect("write");
    let text = String::from_utf8(buf).expect("utf-8");
    let mut lines = text.lines();
    let mut header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    header["provenance"]["capturedAt"] = serde_json::Value::Null;
    // The trailer's CRC covers the header with its capture time: two reads a second apart
    // differ there and nowhere else (its object count is still compared).
    let lines = lines
        .map(|l| match serde_json::from_str::<serde_json::Value>(l) {
            Ok(mut v) if v.get("trailer").is_some() => {
                v["trailer"]["crc32"] = serde_json::Value::Null;
                v.to_string()
            }
            _ => l.to_owned(),
        })
        .collect();
    (header, lines)
}

const OBJECTS: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: sprockets.lists.kgc.example.com}
spec:
  group: lists.kgc.example.com
  names: {kind: Sprocket, plural: sprockets, singular: sprocket, listKind: SprocketList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: v1
kind: Namespace
metadata: {name: lists-a}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: owner
  namespace: lists-a
  labels: {app: web, "example.com/tier": "1", empty: ""}
  annotations:
    kubectl-gc.io/ignore: "GC004"
    note: "ünïcode ✓ \u001b[31m"
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: lists-role
  labels: {a: b}
  finalizers: [example.com/keep]
rules: []
"#;

fn protobuf_snapshot_equals_json_snapshot(ctx: &Ctx) {
    apply(ctx, OBJECTS);
    kubectl(
        ctx,
        &[
            "wait",
            "--for",
            "condition=established",
            "--timeout=60s",
            "crd/sprockets.lists.kgc.example.com",
        ],
    );
    let owner = kubectl(
        ctx,
        &[
            "get",
            "cm",
            "owner",
            "-n",
            "lists-a",
            "-o",
            "jsonpath={.metadata.uid}",
        ],
    );
    let role = kubectl(
        ctx,
        &[
            "get",
            "clusterrole",
            "lists-role",
            "-o",
            "jsonpath={.metadata.uid}",
        ],
    );
    // Dependents with every shape of ownerReference, finalizers, and (after the delete) a
    // deletionTimestamp; a custom resource (served in protobuf too since 1.20's metadata
    // support); 30 ConfigMaps so that small pages paginate.
    let mut yaml = format!(
        r#"
apiVersion: v1
kind: ConfigMap
metadata:
  name: dependent
  namespace: lists-a
  finalizers: [example.com/hold]
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: owner, uid: {owner}, controller: true, blockOwnerDeletion: true}}
  - {{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: lists-role, uid: {role}, controller: false}}
  - {{apiVersion: apps/v1, kind: ReplicaSet, name: gone, uid: 00000000-0000-0000-0000-000000000001, blockOwnerDeletion: false}}
---
apiVersion: lists.kgc.example.com/v1
kind: Sprocket
metadata:
  name: s1
  namespace: lists-a
  labels: {{x: "why"}}
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: owner, uid: {owner}}}
spec: {{size: 3}}
"#
    );
    for i in 0..30 {
        yaml.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: page-{i:02}, namespace: lists-a, labels: {{i: \"{i}\"}}}}\n"
        ));
    }
    apply(ctx, &yaml);
    kubectl(
        ctx,
        &["delete", "cm", "dependent", "-n", "lists-a", "--wait=false"],
    );

    let conn = connect(ctx);
    for page_size in [7, 500] {
        let (pb, pb_progress) = take_counting(
            ctx,
            &conn,
            &LiveOptions {
                page_size,
                wire: WireFormat::Protobuf,
                ..LiveOptions::default()
            },
        );
        let (json, json_progress) = take_counting(
            ctx,
            &conn,
            &LiveOptions {
                page_size,
                wire: WireFormat::Json,
                ..LiveOptions::default()
            },
        );
        // Protobuf was spoken: every page of the protobuf run came back in protobuf (v1.20.2
        // serves PartialObjectMetadataList in protobuf for built-in and custom resources
        // alike), none of the JSON run did. Equal snapshots alone would also hold if the
        // protobuf request had silently been answered in JSON.
        assert!(pb_progress.pages > 0, "{pb_progress:?}");
        assert_eq!(
            pb_progress.protobuf_pages, pb_progress.pages,
            "page size {page_size}: pages answered in JSON to a protobuf request"
        );
        assert!(json_progress.pages > 0, "{json_progress:?}");
        assert_eq!(json_progress.protobuf_pages, 0, "page size {page_size}");
        // At 7 objects a page, the 30 ConfigMaps alone take 5 pages.
        if page_size == 7 {
            assert!(pb_progress.pages >= 5, "{pb_progress:?}");
        }
        assert!(pb.skipped.is_empty(), "{:?}", pb.skipped);
        assert!(
            pb.resources
                .iter()
                .filter(|r| r.monitored())
                .all(|r| r.list == ListOutcome::Complete),
            "every list complete"
        );
        let (pb_header, pb_objects) = written(&pb);
        let (json_header, json_objects) = written(&json);
        assert_eq!(pb_header, json_header, "page size {page_size}");
        assert_eq!(
            pb_objects.len(),
            json_objects.len(),
            "page size {page_size}"
        );
        for (a, b) in pb_objects.iter().zip(&json_objects) {
            assert_eq!(a, b, "page size {page_size}");
        }
        // The interesting objects are there, with what they carry.
        let line = |name: &str| {
            pb_objects
                .iter()
                .find(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    v["metadata"]["name"] == name
                })
                .unwrap_or_else(|| panic!("{name} missing"))
                .clone()
        };
        let dependent = line("dependent");
        for needle in [
            "\"deletionTimestamp\":\"",
            "\"finalizers\":[\"example.com/hold\"]",
            "\"controller\":true,\"blockOwnerDeletion\":true",
            "\"controller\":false}",
            "\"blockOwnerDeletion\":false}",
        ] {
            assert!(dependent.contains(needle), "{needle} in {dependent}");
        }
        assert!(line("s1").contains(&owner));
        assert!(line("lists-role").contains("example.com/keep"));
        assert!(line("owner").contains("\"example.com/tier\":\"1\""));
        assert!(pb_objects.iter().filter(|l| l.contains("\"page-")).count() == 30);
    }
}

fn hostile_namespace_stays_one_segment(ctx: &Ctx) {
    // `a/../kube-system` unescaped would list kube-system; as one segment it is a namespace that
    // cannot exist, and the server refuses the path: every namespaced list fails (a coverage
    // gap), and nothing from kube-system or default is read.
    let conn = connect(ctx);
    let snap = take(
        ctx,
        &conn,
        &LiveOptions {
            namespace: Some("a/../kube-system".into()),
            ..LiveOptions::default()
        },
    );
    let s = &snap.store;
    for id in s.ids() {
        let o = s.object(id);
        assert_eq!(
            s.str(o.namespace),
            "",
            "only cluster-scoped objects: {}",
            snap.describe(id)
        );
    }
    let namespaced: Vec<_> = snap
        .resources
        .iter()
        .filter(|r| r.monitored() && r.namespaced)
        .collect();
    assert!(!namespaced.is_empty());
    for r in namespaced {
        assert!(
            matches!(&r.list, ListOutcome::Failed { message } if message.contains("404")),
            "{}: {:?}",
            r.plural,
            r.list
        );
    }
}
