//! The live source against a real kube-apiserver v1.20.2 (no controllers): discovery, the
//! snapshot compared with `kubectl get`, pagination, partial permissions, kubeconfig handling
//! like kubectl's, the connection errors, a broken aggregated API, and the README's live
//! commands. One control plane for the suite; `fixtures` (which the others need) runs first.
//!
//! Besides the tests there is a measurement mode, run against a cluster started by hand:
//! ```text
//! target/debug/deps/live-<hash> bench-populate <kubeconfig> <objects> [<namespaces>]
//! target/debug/deps/live-<hash> bench-snapshot <kubeconfig> [<page size> [<concurrency>]]
//! target/debug/deps/live-<hash> bench-urls <kubeconfig>   # "<list URL> <kubectl resource>" per monitored resource
//! ```

use crate::harness::{Suite, Test};
use crate::support::readme;
use crate::testenv::TestEnv;
use futures::StreamExt;
use kubectl_gc::Error;
use kubectl_gc::snapshot::{IgnoreReason, ListOutcome, Snapshot};
use kubectl_gc::source::live::{
    self, ConnectOptions, Connection, LiveOptions, Phase, Progress, ProgressLine,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct Ctx {
    // Dropped first: the runtime, then the control plane.
    rt: tokio::runtime::Runtime,
    env: TestEnv,
}

/// Every other test builds on the fixtures.
const FIXTURES: &[&str] = &["fixtures"];

const fn test(name: &'static str, run: fn(&Ctx)) -> Test<Ctx> {
    Test {
        name,
        needs: FIXTURES,
        run,
    }
}

pub const SUITE: Suite<Ctx> = Suite {
    name: "source",
    setup,
    tests: &[
        Test {
            name: "fixtures",
            needs: &[],
            run: fixtures,
        },
        test("discovery_follows_gc_rules", discovery_follows_gc_rules),
        test("snapshot_matches_kubectl_get", snapshot_matches_kubectl_get),
        test("namespace_scoped_snapshot", namespace_scoped_snapshot),
        test("pagination_3000_configmaps", pagination_3000_configmaps),
        test(
            "viewer_snapshot_records_forbidden",
            viewer_snapshot_records_forbidden,
        ),
        test("invalid_namespace_events", invalid_namespace_events),
        test(
            "connect_defaults_and_overrides",
            connect_defaults_and_overrides,
        ),
        test(
            "kubeconfig_env_list_like_kubectl",
            kubeconfig_env_list_like_kubectl,
        ),
        test("error_unreachable_server", error_unreachable_server),
        test("error_bad_context", error_bad_context),
        test("error_invalid_token", error_invalid_token),
        test("error_untrusted_certificate", error_untrusted_certificate),
        test("error_missing_kubeconfig", error_missing_kubeconfig),
        // Last: it adds (and removes again) a broken aggregated API.
        test(
            "unavailable_api_group_is_a_discovery_failure",
            unavailable_api_group_is_a_discovery_failure,
        ),
        // Really last: one README command applies the GC's plan to every namespace.
        test("readme_live_commands", readme_live_commands),
    ],
};

fn setup() -> Result<Ctx, String> {
    let env = TestEnv::start(false)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    Ok(Ctx { rt, env })
}

/// The measurement mode: `Some(exit code)` when `args` asks for it.
pub fn bench_mode(args: &[String]) -> Option<ExitCode> {
    match args.first().map(String::as_str) {
        Some("bench-populate") => Some(bench_populate(&args[1..])),
        Some("bench-snapshot") => Some(bench_snapshot(&args[1..])),
        Some("bench-urls") => Some(bench_urls(&args[1..])),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers

fn connect_as(ctx: &Ctx, context: &str) -> Connection {
    let opts = ConnectOptions {
        kubeconfig: Some(ctx.env.kubeconfig.clone()),
        context: Some(context.to_owned()),
        ..ConnectOptions::default()
    };
    ctx.rt
        .block_on(live::connect(&opts))
        .unwrap_or_else(|e| panic!("connect as {context}: {e}"))
}

fn take_snapshot(ctx: &Ctx, conn: &Connection, opts: &LiveOptions) -> (Snapshot, Vec<Progress>) {
    let reports = Mutex::new(Vec::new());
    let snap = ctx
        .rt
        .block_on(live::snapshot(conn, opts, &|p| {
            reports.lock().unwrap().push(p)
        }))
        .unwrap_or_else(|e| panic!("snapshot: {e}"));
    (snap, reports.into_inner().unwrap())
}

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

fn uid_of(ctx: &Ctx, args: &[&str]) -> String {
    let mut a = vec!["get"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["-o", "jsonpath={.metadata.uid}"]);
    let uid = kubectl(ctx, &a);
    assert!(!uid.is_empty(), "no uid for {args:?}");
    uid
}

/// An owner reference: apiVersion, kind, name, uid, controller, blockOwnerDeletion.
type Ref = (String, String, String, String, Option<bool>, Option<bool>);

/// What we compare between the snapshot and `kubectl get -o json`.
#[derive(Debug, PartialEq, Eq, Clone)]
struct View {
    namespace: String,
    name: String,
    owner_refs: Vec<Ref>,
    finalizers: Vec<String>,
    deletion_timestamp: String,
}

/// Objects of `group`/`plural` in the snapshot, by uid (optionally only in `namespace`).
fn snapshot_view(snap: &Snapshot, group: &str, plural: &str) -> BTreeMap<String, View> {
    let s = &snap.store;
    let mut out = BTreeMap::new();
    for id in s.ids() {
        let o = s.object(id);
        let r = snap.resource_of(o);
        if r.group != group || r.plural != plural {
            continue;
        }
        let view = View {
            namespace: s.str(o.namespace).to_owned(),
            name: s.str(o.name).to_owned(),
            owner_refs: s
                .owner_refs(id)
                .iter()
                .map(|r| {
                    (
                        s.str(r.api_version).to_owned(),
                        s.str(r.kind).to_owned(),
                        s.str(r.name).to_owned(),
                        s.str(r.uid).to_owned(),
                        r.controller,
                        r.block_owner_deletion,
                    )
                })
                .collect(),
            finalizers: s
                .finalizers(id)
                .iter()
                .map(|f| s.str(*f).to_owned())
                .collect(),
            deletion_timestamp: s.str(o.deletion_timestamp).to_owned(),
        };
        out.insert(s.str(o.uid).to_owned(), view);
    }
    out
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_owned()
}

/// Objects `kubectl get <resource> -A -o json` returns, by uid.
fn kubectl_view(ctx: &Ctx, resource: &str, namespace: Option<&str>) -> BTreeMap<String, View> {
    let mut args = vec!["get", resource, "-o", "json"];
    match namespace {
        Some(ns) => args.extend_from_slice(&["-n", ns]),
        None => args.push("-A"),
    }
    let list: Value = serde_json::from_str(&kubectl(ctx, &args)).expect("kubectl json");
    let mut out = BTreeMap::new();
    for item in list["items"].as_array().expect("items") {
        let m = &item["metadata"];
        let owner_refs = m["ownerReferences"]
            .as_array()
            .map(|refs| {
                refs.iter()
                    .map(|r| {
                        (
                            str_of(r, "apiVersion"),
                            str_of(r, "kind"),
                            str_of(r, "name"),
                            str_of(r, "uid"),
                            r.get("controller").and_then(Value::as_bool),
                            r.get("blockOwnerDeletion").and_then(Value::as_bool),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let finalizers = m["finalizers"]
            .as_array()
            .map(|f| {
                f.iter()
                    .map(|x| x.as_str().unwrap_or("").to_owned())
                    .collect()
            })
            .unwrap_or_default();
        out.insert(
            str_of(m, "uid"),
            View {
                namespace: str_of(m, "namespace"),
                name: str_of(m, "name"),
                owner_refs,
                finalizers,
                deletion_timestamp: str_of(m, "deletionTimestamp"),
            },
        );
    }
    out
}

fn row<'a>(
    snap: &'a Snapshot,
    group: &str,
    version: &str,
    plural: &str,
) -> &'a kubectl_gc::snapshot::Resource {
    snap.resources
        .iter()
        .find(|r| r.group == group && r.version == version && r.plural == plural)
        .unwrap_or_else(|| panic!("no resource row {group}/{version}/{plural}"))
}

fn monitored_row<'a>(
    snap: &'a Snapshot,
    group: &str,
    plural: &str,
) -> &'a kubectl_gc::snapshot::Resource {
    let rows: Vec<_> = snap
        .resources
        .iter()
        .filter(|r| r.group == group && r.plural == plural && r.monitored())
        .collect();
    assert_eq!(
        rows.len(),
        1,
        "monitored rows of {group}/{plural}: {rows:?}"
    );
    rows[0]
}

// ---------------------------------------------------------------------------------------------
// Fixtures

const CRDS: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.kgc.example.com}
spec:
  group: kgc.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.kgc.example.com}
spec:
  group: kgc.example.com
  scope: Cluster
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: v1
kind: Namespace
metadata: {name: kgc-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: kgc-b}
---
apiVersion: v1
kind: Namespace
metadata: {name: kgc-c}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kgc-owner-role}
rules: []
"#;

const OWNERS: &str = r#"
apiVersion: v1
kind: ConfigMap
metadata: {name: owner, namespace: kgc-a, labels: {app: kgc}}
data: {k: v}
---
apiVersion: v1
kind: Secret
metadata: {name: s1, namespace: kgc-b}
stringData: {password: hunter2}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: kgc-b}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: example.invalid/web:1}]}
"#;

fn dependents_yaml(cm: &str, secret: &str, deploy: &str, role: &str, ns_a: &str) -> String {
    format!(
        r#"
apiVersion: v1
kind: ConfigMap
metadata:
  name: child
  namespace: kgc-a
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: owner, uid: {cm}, controller: true, blockOwnerDeletion: true}}
---
apiVersion: kgc.example.com/v1
kind: Widget
metadata:
  name: w1
  namespace: kgc-a
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: owner, uid: {cm}}}
---
apiVersion: kgc.example.com/v1beta1
kind: Widget
metadata:
  name: w2
  namespace: kgc-a
  finalizers: [kgc.example.com/hold]
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: owner, uid: {cm}, blockOwnerDeletion: false}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: held
  namespace: kgc-a
  finalizers: [kgc.example.com/hold, kgc.example.com/other]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: secret-child
  namespace: kgc-b
  ownerReferences:
  - {{apiVersion: v1, kind: Secret, name: s1, uid: {secret}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-1
  namespace: kgc-b
  ownerReferences:
  - {{apiVersion: apps/v1, kind: Deployment, name: web, uid: {deploy}, controller: true, blockOwnerDeletion: true}}
spec:
  replicas: 0
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec: {{containers: [{{name: c, image: example.invalid/web:1}}]}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: dangling
  namespace: kgc-c
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: gone, uid: 00000000-0000-0000-0000-000000000000}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cross-ns
  namespace: kgc-c
  ownerReferences:
  - {{apiVersion: v1, kind: ConfigMap, name: owner, uid: {cm}}}
---
apiVersion: kgc.example.com/v1
kind: Gadget
metadata:
  name: g1
  ownerReferences:
  - {{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: kgc-owner-role, uid: {role}}}
---
apiVersion: kgc.example.com/v1
kind: Gadget
metadata:
  name: g2
  ownerReferences:
  - {{apiVersion: v1, kind: Namespace, name: kgc-a, uid: {ns_a}}}
  - {{apiVersion: v1, kind: ConfigMap, name: owner, uid: {cm}}}
---
apiVersion: kgc.example.com/v1
kind: Gadget
metadata:
  name: g3
  finalizers: [kgc.example.com/hold]
"#
    )
}

fn fixtures(ctx: &Ctx) {
    apply(ctx, CRDS);
    kubectl(
        ctx,
        &[
            "wait",
            "--for",
            "condition=established",
            "--timeout=60s",
            "crd/widgets.kgc.example.com",
            "crd/gadgets.kgc.example.com",
        ],
    );
    apply(ctx, OWNERS);
    let cm = uid_of(ctx, &["configmap", "owner", "-n", "kgc-a"]);
    let secret = uid_of(ctx, &["secret", "s1", "-n", "kgc-b"]);
    let deploy = uid_of(ctx, &["deployment", "web", "-n", "kgc-b"]);
    let role = uid_of(ctx, &["clusterrole", "kgc-owner-role"]);
    let ns_a = uid_of(ctx, &["namespace", "kgc-a"]);
    apply(ctx, &dependents_yaml(&cm, &secret, &deploy, &role, &ns_a));
    // Finalizers + delete = objects with a deletionTimestamp that stay.
    kubectl(
        ctx,
        &[
            "delete",
            "-n",
            "kgc-a",
            "configmap/held",
            "widget/w2",
            "--wait=false",
        ],
    );
    kubectl(ctx, &["delete", "gadget/g3", "--wait=false"]);

    let cross = uid_of(ctx, &["configmap", "cross-ns", "-n", "kgc-c"]);
    apply(
        ctx,
        &format!(
            r#"
apiVersion: v1
kind: Event
metadata: {{name: cross-ns.kgc1, namespace: kgc-c}}
involvedObject: {{apiVersion: v1, kind: ConfigMap, name: cross-ns, namespace: kgc-c, uid: {cross}}}
reason: OwnerRefInvalidNamespace
message: 'ownerRef [v1/ConfigMap, namespace: kgc-c, name: owner, uid: {cm}] does not exist in namespace "kgc-c"'
type: Warning
count: 3
firstTimestamp: "2024-01-01T00:00:00Z"
lastTimestamp: "2024-01-01T00:05:00Z"
source: {{component: garbage-collector-controller}}
---
apiVersion: v1
kind: Event
metadata: {{name: cross-ns.kgc2, namespace: kgc-c}}
involvedObject: {{apiVersion: v1, kind: ConfigMap, name: cross-ns, namespace: kgc-c, uid: {cross}}}
reason: SomethingElse
message: unrelated
type: Normal
count: 1
firstTimestamp: "2024-01-01T00:00:00Z"
lastTimestamp: "2024-01-01T00:00:00Z"
source: {{component: test}}
"#
        ),
    );
}

// ---------------------------------------------------------------------------------------------
// Cases

fn discovery_follows_gc_rules(ctx: &Ctx) {
    let conn = connect_as(ctx, "admin");
    let (snap, _) = take_snapshot(ctx, &conn, &LiveOptions::default());
    assert_eq!(snap.provenance.server_version.as_deref(), Some("v1.20.2"));
    assert_eq!(snap.provenance.context.as_deref(), Some("admin"));
    assert_eq!(snap.provenance.inputs, vec![ctx.env.server.clone()]);
    assert!(
        snap.discovery_failures.is_empty(),
        "{:?}",
        snap.discovery_failures
    );
    assert!(
        snap.resources.iter().all(|r| !r.plural.contains('/')),
        "no subresources"
    );

    let ignored = |reason| ListOutcome::Ignored { reason };
    assert_eq!(
        row(&snap, "", "v1", "events").list,
        ignored(IgnoreReason::GcIgnoredResource)
    );
    // The 1.20 GC still watches events.k8s.io events (ignored only since 1.25).
    assert_eq!(
        monitored_row(&snap, "events.k8s.io", "events").list,
        ListOutcome::Complete
    );
    assert_eq!(
        row(&snap, "", "v1", "bindings").list,
        ignored(IgnoreReason::NotDeletable)
    );
    assert_eq!(
        row(&snap, "", "v1", "componentstatuses").list,
        ignored(IgnoreReason::NotDeletable)
    );
    // The CRD's preferred version is v1 (highest priority); v1beta1 stays in the table.
    let w1 = row(&snap, "kgc.example.com", "v1", "widgets");
    assert_eq!(
        (w1.list.clone(), w1.kind.as_str(), w1.namespaced),
        (ListOutcome::Complete, "Widget", true)
    );
    assert_eq!(w1.preferred_version, "v1");
    assert!(
        ["delete", "list", "watch"]
            .iter()
            .all(|v| w1.verbs.iter().any(|x| x == v))
    );
    assert_eq!(
        row(&snap, "kgc.example.com", "v1beta1", "widgets").list,
        ignored(IgnoreReason::NonPreferredVersion)
    );
    assert!(!row(&snap, "kgc.example.com", "v1", "gadgets").namespaced);
    // autoscaling: v1 preferred on 1.20; v2beta1/v2beta2 rows are non-preferred.
    assert_eq!(
        monitored_row(&snap, "autoscaling", "horizontalpodautoscalers").version,
        "v1"
    );
    assert_eq!(
        row(&snap, "autoscaling", "v2beta2", "horizontalpodautoscalers").list,
        ignored(IgnoreReason::NonPreferredVersion)
    );

    // The monitored set is exactly what ServerPreferredResources + the verb filter give,
    // as `kubectl api-resources` computes it, minus the GC's ignored resources.
    let expected: BTreeSet<String> = kubectl(
        ctx,
        &["api-resources", "--verbs=delete,list,watch", "-o", "name"],
    )
    .lines()
    .map(str::to_owned)
    .filter(|n| n != "events" && n != "events.events.k8s.io")
    .chain(["events.events.k8s.io".to_owned()]) // monitored by a 1.20 GC
    .collect();
    let monitored: BTreeSet<String> = snap
        .resources
        .iter()
        .filter(|r| r.monitored())
        .map(|r| {
            if r.group.is_empty() {
                r.plural.clone()
            } else {
                format!("{}.{}", r.plural, r.group)
            }
        })
        .collect();
    assert_eq!(monitored, expected);
    // Every monitored row was listed completely by admin.
    for r in snap.resources.iter().filter(|r| r.monitored()) {
        assert_eq!(
            r.list,
            ListOutcome::Complete,
            "{}/{}",
            r.api_version(),
            r.plural
        );
    }
}

/// (kubectl resource name, group, plural)
const COMPARED: &[(&str, &str, &str)] = &[
    ("configmaps", "", "configmaps"),
    ("secrets", "", "secrets"),
    ("namespaces", "", "namespaces"),
    ("services", "", "services"),
    ("deployments.apps", "apps", "deployments"),
    ("replicasets.apps", "apps", "replicasets"),
    (
        "clusterroles.rbac.authorization.k8s.io",
        "rbac.authorization.k8s.io",
        "clusterroles",
    ),
    ("widgets.kgc.example.com", "kgc.example.com", "widgets"),
    ("gadgets.kgc.example.com", "kgc.example.com", "gadgets"),
    (
        "customresourcedefinitions.apiextensions.k8s.io",
        "apiextensions.k8s.io",
        "customresourcedefinitions",
    ),
];

fn snapshot_matches_kubectl_get(ctx: &Ctx) {
    let conn = connect_as(ctx, "admin");
    let (snap, reports) = take_snapshot(ctx, &conn, &LiveOptions::default());
    for (resource, group, plural) in COMPARED {
        let ours = snapshot_view(&snap, group, plural);
        let theirs = kubectl_view(ctx, resource, None);
        assert!(!theirs.is_empty(), "{resource}: kubectl sees nothing");
        assert_eq!(ours, theirs, "{resource}");
    }
    // Spot checks of the fixture.
    let cms = snapshot_view(&snap, "", "configmaps");
    let by_name = |ns: &str, name: &str| {
        cms.values()
            .find(|v| v.namespace == ns && v.name == name)
            .unwrap_or_else(|| panic!("configmap {ns}/{name} missing"))
            .clone()
    };
    let held = by_name("kgc-a", "held");
    assert!(!held.deletion_timestamp.is_empty());
    assert_eq!(
        held.finalizers,
        ["kgc.example.com/hold", "kgc.example.com/other"]
    );
    let child = by_name("kgc-a", "child");
    assert_eq!(child.owner_refs[0].4, Some(true));
    assert_eq!(child.owner_refs[0].5, Some(true));
    let dangling = by_name("kgc-c", "dangling");
    assert_eq!(
        dangling.owner_refs[0].3,
        "00000000-0000-0000-0000-000000000000"
    );
    assert_eq!(dangling.owner_refs[0].4, None, "unset stays unset");
    let widgets = snapshot_view(&snap, "kgc.example.com", "widgets");
    let w2 = widgets.values().find(|v| v.name == "w2").expect("w2");
    assert!(!w2.deletion_timestamp.is_empty());
    assert_eq!(w2.owner_refs[0].5, Some(false));
    let gadgets = snapshot_view(&snap, "kgc.example.com", "gadgets");
    assert!(gadgets.values().all(|g| g.namespace.is_empty()));
    assert_eq!(
        gadgets
            .values()
            .find(|g| g.name == "g2")
            .unwrap()
            .owner_refs
            .len(),
        2
    );
    // Nothing was listed under a non-preferred version row.
    for id in snap.store.ids() {
        assert!(snap.resource_of(snap.store.object(id)).monitored());
    }

    // Progress: discovery first, then listing, monotone, ending with everything done.
    assert_eq!(reports.first().map(|p| p.phase), Some(Phase::Discovery));
    let last = reports.last().expect("progress");
    assert_eq!(last.phase, Phase::Done);
    assert_eq!(last.resources_done, last.resources_total);
    assert_eq!(last.objects as usize, snap.store.len());
    assert!(reports.windows(2).all(|w| w[0].objects <= w[1].objects));
    let line = live::summary_line(&snap, Duration::from_secs(2));
    assert!(
        line.starts_with(&format!("listed {} objects from ", snap.store.len())),
        "{line}"
    );
    assert_eq!(
        ProgressLine::text(last).split(',').count(),
        2,
        "{}",
        ProgressLine::text(last)
    );
}

fn namespace_scoped_snapshot(ctx: &Ctx) {
    let conn = connect_as(ctx, "admin");
    let opts = LiveOptions {
        namespace: Some("kgc-a".into()),
        page_size: 2, // several pages even for this small namespace
        ..LiveOptions::default()
    };
    let (snap, reports) = take_snapshot(ctx, &conn, &opts);
    let partial = ListOutcome::Partial {
        namespaces: vec!["kgc-a".into()],
    };
    assert_eq!(monitored_row(&snap, "", "configmaps").list, partial);
    assert_eq!(
        monitored_row(&snap, "kgc.example.com", "widgets").list,
        partial
    );
    assert_eq!(
        monitored_row(&snap, "", "namespaces").list,
        ListOutcome::Complete
    );
    assert_eq!(
        monitored_row(&snap, "kgc.example.com", "gadgets").list,
        ListOutcome::Complete
    );
    for (resource, group, plural) in [
        ("configmaps", "", "configmaps"),
        ("widgets.kgc.example.com", "kgc.example.com", "widgets"),
    ] {
        assert_eq!(
            snapshot_view(&snap, group, plural),
            kubectl_view(ctx, resource, Some("kgc-a")),
            "{resource}"
        );
    }
    assert_eq!(
        snapshot_view(&snap, "", "namespaces"),
        kubectl_view(ctx, "namespaces", None)
    );
    let pages = reports.last().unwrap().pages;
    let cms = snapshot_view(&snap, "", "configmaps").len() as u64;
    assert!(
        pages >= cms.div_ceil(2),
        "{pages} pages for {cms} configmaps at 2 per page"
    );
}

async fn create_configmaps(
    conn: &Connection,
    namespaces: &[String],
    per_namespace: usize,
) -> usize {
    use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
    use kube::api::{Api, PostParams};

    let pp = PostParams::default();
    let ns_api: Api<Namespace> = Api::all(conn.client.clone());
    for ns in namespaces {
        let obj = Namespace {
            metadata: ObjectMeta {
                name: Some(ns.clone()),
                ..ObjectMeta::default()
            },
            ..Namespace::default()
        };
        match ns_api.create(&pp, &obj).await {
            Ok(_) => {}
            Err(kube::Error::Api(s)) if s.code == 409 => {}
            Err(e) => panic!("create namespace {ns}: {e}"),
        }
    }
    let jobs = namespaces
        .iter()
        .flat_map(|ns| (0..per_namespace).map(move |i| (ns.clone(), i)));
    futures::stream::iter(jobs)
        .map(|(ns, i)| {
            let client = conn.client.clone();
            let pp = pp.clone();
            async move {
                let api: Api<ConfigMap> = Api::namespaced(client, &ns);
                let mut labels = BTreeMap::new();
                labels.insert(
                    "app.kubernetes.io/name".to_owned(),
                    format!("bench-{}", i % 50),
                );
                labels.insert(
                    "app.kubernetes.io/part-of".to_owned(),
                    "kubectl-gc-tests".to_owned(),
                );
                let owner_references = (i % 10 != 0).then(|| {
                    vec![OwnerReference {
                        api_version: "v1".into(),
                        kind: "ConfigMap".into(),
                        name: format!("cm-{:06}", i - i % 10),
                        uid: format!("00000000-0000-4000-8000-{:012}", i - i % 10),
                        controller: Some(true),
                        block_owner_deletion: Some(true),
                    }]
                });
                let mut data = BTreeMap::new();
                data.insert(
                    "config.yaml".to_owned(),
                    format!("key: value-{i}\n").repeat(8),
                );
                let cm = ConfigMap {
                    metadata: ObjectMeta {
                        name: Some(format!("cm-{i:06}")),
                        labels: Some(labels),
                        owner_references,
                        ..ObjectMeta::default()
                    },
                    data: Some(data),
                    ..ConfigMap::default()
                };
                for attempt in 0..5 {
                    match api.create(&pp, &cm).await {
                        Ok(_) => return 1,
                        Err(kube::Error::Api(s)) if s.code == 409 => return 0,
                        Err(e) if attempt == 4 => panic!("create configmap {ns}/cm-{i}: {e}"),
                        Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
                    }
                }
                0
            }
        })
        .buffer_unordered(32)
        .fold(0usize, |acc, n| async move { acc + n })
        .await
}

fn pagination_3000_configmaps(ctx: &Ctx) {
    let conn = connect_as(ctx, "admin");
    let t = Instant::now();
    ctx.rt
        .block_on(create_configmaps(&conn, &["kgc-page".to_owned()], 3000));
    println!(
        "  created 3000 configmaps in {:.1}s",
        t.elapsed().as_secs_f64()
    );

    // All namespaces, page size 500.
    let (snap, _) = take_snapshot(ctx, &conn, &LiveOptions::default());
    let ours: BTreeMap<_, _> = snapshot_view(&snap, "", "configmaps")
        .into_iter()
        .filter(|(_, v)| v.namespace == "kgc-page")
        .collect();
    assert_eq!(ours.len(), 3000);
    assert_eq!(ours, kubectl_view(ctx, "configmaps", Some("kgc-page")));
    assert_eq!(
        snapshot_view(&snap, "", "configmaps"),
        kubectl_view(ctx, "configmaps", None)
    );

    // Scoped to the namespace: 3000 objects in 500-object pages = at least 6 pages for
    // configmaps, plus one page per other resource.
    let opts = LiveOptions {
        namespace: Some("kgc-page".into()),
        page_size: 500,
        ..LiveOptions::default()
    };
    let (snap, reports) = take_snapshot(ctx, &conn, &opts);
    let last = reports.last().unwrap();
    assert_eq!(snapshot_view(&snap, "", "configmaps").len(), 3000);
    assert!(
        last.pages as usize >= last.resources_total + 5,
        "{} pages for {} resources",
        last.pages,
        last.resources_total
    );
    // 2,700 of these reference owners by a made-up UID: garbage that later cases (the README's
    // `collect -A --apply`) would otherwise spend minutes deleting at a polite request rate.
    ctx.env
        .kubectl(&[
            "delete",
            "configmaps",
            "--all",
            "-n",
            "kgc-page",
            "--wait=false",
        ])
        .expect("clean up the pagination fixture");
}

fn viewer_snapshot_records_forbidden(ctx: &Ctx) {
    let conn = connect_as(ctx, "viewer");
    let (snap, _) = take_snapshot(ctx, &conn, &LiveOptions::default());
    // What the testenv's kgc-viewer ClusterRole allows.
    const CORE: &[&str] = &[
        "configmaps",
        "endpoints",
        "events",
        "limitranges",
        "namespaces",
        "persistentvolumeclaims",
        "persistentvolumes",
        "pods",
        "podtemplates",
        "replicationcontrollers",
        "resourcequotas",
        "serviceaccounts",
        "services",
        "nodes",
    ];
    const GROUPS: &[&str] = &[
        "apps",
        "batch",
        "autoscaling",
        "policy",
        "networking.k8s.io",
        "discovery.k8s.io",
        "coordination.k8s.io",
    ];
    let mut forbidden = BTreeSet::new();
    for r in snap.resources.iter().filter(|r| r.monitored()) {
        let allowed = if r.group.is_empty() {
            CORE.contains(&r.plural.as_str())
        } else {
            GROUPS.contains(&r.group.as_str())
        };
        match (&r.list, allowed) {
            (ListOutcome::Complete, true) => {}
            (ListOutcome::Forbidden { message }, false) => {
                assert!(message.contains("forbidden"), "{message}");
                forbidden.insert(format!("{}/{}", r.group, r.plural));
            }
            (other, _) => panic!(
                "{}/{}: {other:?} (allowed: {allowed})",
                r.api_version(),
                r.plural
            ),
        }
    }
    for expected in [
        "/secrets",
        "rbac.authorization.k8s.io/clusterroles",
        "rbac.authorization.k8s.io/roles",
        "rbac.authorization.k8s.io/rolebindings",
        "rbac.authorization.k8s.io/clusterrolebindings",
        "kgc.example.com/widgets",
        "kgc.example.com/gadgets",
    ] {
        assert!(
            forbidden.contains(expected),
            "{expected} not forbidden: {forbidden:?}"
        );
    }
    assert!(snap.discovery_failures.is_empty());
    // The configmap owned by a secret is there, with its reference; the secret is not visible
    // and its resource does not cover the namespace (so its owner is unknown, not absent).
    let cms = snapshot_view(&snap, "", "configmaps");
    let child = cms
        .values()
        .find(|v| v.namespace == "kgc-b" && v.name == "secret-child")
        .expect("secret-child listed");
    assert_eq!(child.owner_refs[0].1, "Secret");
    let secrets = monitored_row(&snap, "", "secrets");
    assert!(!secrets.list.covers("kgc-b"));
    assert!(snapshot_view(&snap, "", "secrets").is_empty());
    assert_eq!(cms, kubectl_view(ctx, "configmaps", None));
    let line = live::summary_line(&snap, Duration::from_secs(1));
    assert!(
        line.contains(&format!("({} forbidden)", forbidden.len())),
        "{line}"
    );
}

fn invalid_namespace_events(ctx: &Ctx) {
    let conn = connect_as(ctx, "admin");
    let cross = uid_of(ctx, &["configmap", "cross-ns", "-n", "kgc-c"]);
    for ns in [None, Some("kgc-c")] {
        let events = ctx
            .rt
            .block_on(live::invalid_namespace_events(&conn, ns))
            .expect("events");
        assert_eq!(events.len(), 1, "{events:?}");
        let e = &events[0];
        assert_eq!(
            (
                e.uid.as_str(),
                e.kind.as_str(),
                e.name.as_str(),
                e.namespace.as_str()
            ),
            (cross.as_str(), "ConfigMap", "cross-ns", "kgc-c")
        );
        assert_eq!(e.count, 3);
        assert_eq!(e.last_timestamp.as_deref(), Some("2024-01-01T00:05:00Z"));
        assert!(e.message.contains("does not exist in namespace"));
    }
    let none = ctx
        .rt
        .block_on(live::invalid_namespace_events(&conn, Some("kgc-a")))
        .expect("events");
    assert!(none.is_empty());
}

fn connect_defaults_and_overrides(ctx: &Ctx) {
    let conn = connect_as(ctx, "admin");
    assert_eq!(conn.default_namespace, "default");
    assert_eq!(conn.context.as_deref(), Some("admin"));
    assert_eq!(conn.server_url, ctx.env.server);
    assert_eq!(conn.server_version.as_deref(), Some("v1.20.2"));
    let opts = ConnectOptions {
        kubeconfig: Some(ctx.env.kubeconfig.clone()),
        namespace: Some("kgc-b".into()),
        request_timeout: Some(Duration::from_secs(5)),
        ..ConnectOptions::default()
    };
    let conn = ctx.rt.block_on(live::connect(&opts)).expect("connect");
    assert_eq!(conn.default_namespace, "kgc-b");
    assert_eq!(conn.context.as_deref(), Some("admin"), "current context");
    assert_eq!(conn.request_timeout, Some(Duration::from_secs(5)));
    // --user switches credentials within the context: viewer cannot list secrets.
    let opts = ConnectOptions {
        kubeconfig: Some(ctx.env.kubeconfig.clone()),
        user: Some("viewer".into()),
        ..ConnectOptions::default()
    };
    let conn = ctx.rt.block_on(live::connect(&opts)).expect("connect");
    let (snap, _) = take_snapshot(ctx, &conn, &LiveOptions::default());
    assert!(matches!(
        monitored_row(&snap, "", "secrets").list,
        ListOutcome::Forbidden { .. }
    ));
    // --as impersonation: admin may impersonate viewer.
    let opts = ConnectOptions {
        kubeconfig: Some(ctx.env.kubeconfig.clone()),
        as_user: Some("viewer".into()),
        ..ConnectOptions::default()
    };
    let conn = ctx.rt.block_on(live::connect(&opts)).expect("connect");
    let (snap, _) = take_snapshot(ctx, &conn, &LiveOptions::default());
    assert!(matches!(
        monitored_row(&snap, "", "secrets").list,
        ListOutcome::Forbidden { .. }
    ));
    assert_eq!(
        monitored_row(&snap, "", "configmaps").list,
        ListOutcome::Complete
    );
}

/// `kubectl-gc ARGS` with `vars` set (`None`: removed) in the child's environment only: the
/// test's own environment is never changed, so nothing here needs `unsafe`.
fn kgc_with_env(args: &[&str], vars: &[(&str, Option<&std::ffi::OsStr>)]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-gc"));
    cmd.args(args).env("NO_COLOR", "1");
    for (k, v) in vars {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd.output().expect("run kubectl-gc")
}

fn kubeconfig_env_list_like_kubectl(ctx: &Ctx) {
    // Missing files in KUBECONFIG are skipped; the first file to set a key wins.
    let override_ctx = ctx.env.write_kubeconfig(
        "first.yaml",
        "apiVersion: v1\nkind: Config\ncurrent-context: viewer\ncontexts: []\nclusters: []\nusers: []\n",
    );
    let list = std::env::join_paths([
        PathBuf::from("/nonexistent/kubeconfig"),
        override_ctx,
        ctx.env.kubeconfig.clone(),
    ])
    .unwrap();
    // The snapshot records the context it connected through.
    let file = ctx.env.dir.join("kubeconfig-list.ndjson");
    let out = kgc_with_env(
        &["snapshot", "-n", "default", "-o", file.to_str().unwrap()],
        &[("KUBECONFIG", Some(list.as_os_str()))],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "connect through KUBECONFIG: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let header: serde_json::Value =
        serde_json::from_str(text.lines().next().unwrap_or_default()).expect("snapshot header");
    assert_eq!(
        header["provenance"]["context"], "viewer",
        "current-context of the first file"
    );

    // Nothing at all: KUBECONFIG lists only missing files and there is no ~/.kube/config.
    let empty_home = ctx.env.dir.join("empty-home");
    std::fs::create_dir_all(&empty_home).unwrap();
    let out = kgc_with_env(
        &["audit", "-n", "default"],
        &[
            (
                "KUBECONFIG",
                Some(std::ffi::OsStr::new("/nonexistent/a:/nonexistent/b")),
            ),
            ("HOME", Some(empty_home.as_os_str())),
            ("KUBERNETES_SERVICE_HOST", None),
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    println!("  {}", err.trim_end());
    assert_eq!(out.status.code(), Some(4), "no kubeconfig: {err}");
    let mut lines = err.lines();
    let msg = lines.next().unwrap_or_default();
    assert!(msg.contains("no kubeconfig"), "one line of cause: {err}");
    assert!(
        lines
            .next()
            .is_some_and(|h| h.starts_with("hint: ") && h.len() > 6),
        "a hint: {err}"
    );
}

fn assert_cluster_error(err: &Error, needle: &str) {
    println!("  error: {err}\n  hint: {}", err.hint().unwrap_or("-"));
    assert!(matches!(err, Error::Cluster { .. }), "{err:?}");
    assert_eq!(err.exit_code(), 4);
    let msg = err.to_string();
    assert!(!msg.is_empty() && !msg.contains('\n'), "one line: {msg:?}");
    assert!(err.hint().is_some_and(|h| !h.is_empty()), "a hint");
    assert!(
        msg.contains(needle) || err.hint().unwrap_or("").contains(needle),
        "{needle:?} not in {msg:?} / {:?}",
        err.hint()
    );
}

fn connect_with(ctx: &Ctx, name: &str, yaml: &str) -> Result<Connection, Error> {
    let path = ctx.env.write_kubeconfig(name, yaml);
    let opts = ConnectOptions {
        kubeconfig: Some(path),
        ..ConnectOptions::default()
    };
    ctx.rt.block_on(live::connect(&opts))
}

fn kubeconfig_yaml(server: &str, tls: &str, token: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n\
         clusters:\n- name: k\n  cluster:\n    server: {server}\n{tls}\
         users:\n- name: u\n  user:\n    token: {token}\n\
         contexts:\n- name: c\n  context: {{cluster: k, user: u}}\n"
    )
}

const INSECURE: &str = "    insecure-skip-tls-verify: true\n";

fn error_unreachable_server(ctx: &Ctx) {
    let t = Instant::now();
    let err = connect_with(
        ctx,
        "unreachable.yaml",
        &kubeconfig_yaml("https://127.0.0.1:1", INSECURE, "x"),
    )
    .expect_err("port 1 is closed");
    assert!(
        t.elapsed() < Duration::from_secs(15),
        "failed fast: {:?}",
        t.elapsed()
    );
    assert_cluster_error(&err, "127.0.0.1:1");
    assert!(err.to_string().contains("connection refused") || err.to_string().contains("onnect"));
}

fn error_bad_context(ctx: &Ctx) {
    let opts = ConnectOptions {
        kubeconfig: Some(ctx.env.kubeconfig.clone()),
        context: Some("no-such-context".into()),
        ..ConnectOptions::default()
    };
    let err = ctx
        .rt
        .block_on(live::connect(&opts))
        .expect_err("bad context");
    assert_cluster_error(&err, "no-such-context");
    let hint = err.hint().unwrap();
    assert!(hint.contains("admin") && hint.contains("viewer"), "{hint}");
}

fn error_invalid_token(ctx: &Ctx) {
    let err = connect_with(
        ctx,
        "bad-token.yaml",
        &kubeconfig_yaml(&ctx.env.server, INSECURE, "expired-or-bogus-token"),
    )
    .expect_err("401");
    assert_cluster_error(&err, "401");
    assert!(err.hint().unwrap().contains("expired"));
}

fn error_untrusted_certificate(ctx: &Ctx) {
    // The testenv serves a self-signed certificate; without insecure-skip-tls-verify or its CA
    // the handshake must fail with a TLS hint.
    let err = connect_with(
        ctx,
        "untrusted.yaml",
        &kubeconfig_yaml(&ctx.env.server, "", &ctx.env.admin_token),
    )
    .expect_err("untrusted certificate");
    assert_cluster_error(&err, "TLS");
}

fn error_missing_kubeconfig(ctx: &Ctx) {
    let opts = ConnectOptions {
        kubeconfig: Some(ctx.env.dir.join("does-not-exist.yaml")),
        ..ConnectOptions::default()
    };
    let err = ctx.rt.block_on(live::connect(&opts)).expect_err("missing");
    assert_cluster_error(&err, "does-not-exist.yaml");
    let bad = ctx
        .env
        .write_kubeconfig("garbage.yaml", "clusters: [oops\n");
    let opts = ConnectOptions {
        kubeconfig: Some(bad),
        ..ConnectOptions::default()
    };
    let err = ctx
        .rt
        .block_on(live::connect(&opts))
        .expect_err("unparsable");
    assert_cluster_error(&err, "garbage.yaml");
}

fn unavailable_api_group_is_a_discovery_failure(ctx: &Ctx) {
    // An APIService whose backend does not exist: /apis lists the group, but its discovery
    // document answers 503. The snapshot must record it and carry on.
    apply(
        ctx,
        r#"
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.broken.kgc.example.com}
spec:
  group: broken.kgc.example.com
  version: v1
  groupPriorityMinimum: 1000
  versionPriority: 15
  insecureSkipTLSVerify: true
  service: {name: nothing-here, namespace: default, port: 443}
"#,
    );
    // Until the aggregator has registered the proxy the document is a 404; wait for the 503.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match ctx
            .env
            .kubectl(&["get", "--raw", "/apis/broken.kgc.example.com/v1"])
        {
            Err(e) if e.contains("ServiceUnavailable") || e.contains("503") => break,
            other => {
                assert!(Instant::now() < deadline, "no 503 yet: {other:?}");
                std::thread::sleep(Duration::from_millis(300));
            }
        }
    }
    let conn = connect_as(ctx, "admin");
    let t = Instant::now();
    let (snap, _) = take_snapshot(ctx, &conn, &LiveOptions::default());
    let elapsed = t.elapsed();
    kubectl(ctx, &["delete", "apiservice", "v1.broken.kgc.example.com"]);
    assert_eq!(
        snap.discovery_failures.len(),
        1,
        "{:?}",
        snap.discovery_failures
    );
    let f = &snap.discovery_failures[0];
    assert_eq!(f.group_version, "broken.kgc.example.com/v1");
    assert!(f.message.contains("503"), "{}", f.message);
    assert!(
        elapsed < Duration::from_secs(15),
        "bounded retries: {elapsed:?}"
    );
    // Everything else was still listed.
    assert!(
        snap.resources
            .iter()
            .filter(|r| r.monitored())
            .all(|r| r.list == ListOutcome::Complete)
    );
    assert!(!snapshot_view(&snap, "", "configmaps").is_empty());
    let line = live::summary_line(&snap, elapsed);
    assert!(
        line.ends_with("(1 discovery group-version unreadable)"),
        "{line}"
    );
}

// ---------------------------------------------------------------------------------------------
// Measurement mode

fn bench_conn(rt: &tokio::runtime::Runtime, kubeconfig: &str) -> Connection {
    let opts = ConnectOptions {
        kubeconfig: Some(PathBuf::from(kubeconfig)),
        ..ConnectOptions::default()
    };
    rt.block_on(live::connect(&opts)).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(4)
    })
}

fn bench_populate(args: &[String]) -> ExitCode {
    let [kubeconfig, count, rest @ ..] = args else {
        eprintln!("usage: bench-populate <kubeconfig> <objects> [<namespaces>]");
        return ExitCode::from(2);
    };
    let count: usize = count.parse().expect("objects");
    let namespaces: usize = rest.first().map_or(10, |n| n.parse().expect("namespaces"));
    let rt = tokio::runtime::Runtime::new().unwrap();
    let conn = bench_conn(&rt, kubeconfig);
    let names: Vec<String> = (0..namespaces).map(|i| format!("bench-{i:02}")).collect();
    let t = Instant::now();
    let created = rt.block_on(create_configmaps(&conn, &names, count.div_ceil(namespaces)));
    println!(
        "created {created} configmaps in {:.1}s",
        t.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

fn bench_snapshot(args: &[String]) -> ExitCode {
    let [kubeconfig, rest @ ..] = args else {
        eprintln!("usage: bench-snapshot <kubeconfig> [<page size> [<concurrency>]]");
        return ExitCode::from(2);
    };
    let page_size = rest.first().map_or(500, |n| n.parse().expect("page size"));
    let concurrency = rest.get(1).map_or(live::DEFAULT_CONCURRENCY, |n| {
        n.parse().expect("concurrency")
    });
    let rt = tokio::runtime::Runtime::new().unwrap();
    let conn = bench_conn(&rt, kubeconfig);
    let t = Instant::now();
    let line = ProgressLine::stderr();
    let opts = LiveOptions {
        page_size,
        concurrency,
        ..LiveOptions::default()
    };
    let snap = rt
        .block_on(live::snapshot(&conn, &opts, &|p| line.update(&p)))
        .expect("snapshot");
    line.clear();
    println!("{}", live::summary_line(&snap, t.elapsed()));
    ExitCode::SUCCESS
}

fn bench_urls(args: &[String]) -> ExitCode {
    let [kubeconfig, ..] = args else {
        eprintln!("usage: bench-urls <kubeconfig>");
        return ExitCode::from(2);
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let conn = bench_conn(&rt, kubeconfig);
    let snap = rt
        .block_on(live::snapshot(&conn, &LiveOptions::default(), &|_| {}))
        .expect("snapshot");
    for r in snap.resources.iter().filter(|r| r.monitored()) {
        let (url, name) = if r.group.is_empty() {
            (format!("/api/{}/{}", r.version, r.plural), r.plural.clone())
        } else {
            (
                format!("/apis/{}/{}/{}", r.group, r.version, r.plural),
                format!("{}.{}.{}", r.plural, r.version, r.group),
            )
        };
        println!("{url} {name}");
    }
    ExitCode::SUCCESS
}

// ---------------------------------------------------------------------------------------------
// README

/// The README commands that need a cluster (`LIVE` in `tests/support/readme.rs`), run as a user would:
/// through kubectl's plugin dispatch (`kubectl gc …` finds the binary under test on PATH), with
/// the test control plane's kubeconfig in `KUBECONFIG`, each checked for its documented exit
/// code and for output.
fn readme_live_commands(ctx: &Ctx) {
    // The objects the README's examples name.
    apply(
        ctx,
        r#"
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: checkout
  namespace: shop
spec:
  replicas: 1
  selector:
    matchLabels: {app: checkout}
  template:
    metadata:
      labels: {app: checkout}
    spec:
      containers:
      - name: app
        image: registry.invalid/checkout:1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-settings
  namespace: shop
  ownerReferences:
  - apiVersion: apps/v1
    kind: ReplicaSet
    name: web-58b6c4f9d7
    uid: 0d3b8f0e-5a8c-4f7e-9b1a-4c1f000000ff
"#,
    );
    let text = std::fs::read_to_string(readme::readme_path()).expect("README.md");
    let examples = readme::examples(&text);
    let scratch = tempfile::tempdir().expect("tempdir");
    let cwd = scratch.path().join("work");
    std::fs::create_dir_all(&cwd).expect("work dir");
    let bin = readme::bin_dir(scratch.path());
    let env = vec![("KUBECONFIG", ctx.env.kubeconfig.clone().into_os_string())];
    for setup in readme::LIVE_SETUP {
        let out = readme::run(setup, &cwd, &bin, true, &env);
        assert!(
            out.status.success(),
            "setup `{setup}`: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut failures = Vec::new();
    for (command, _) in readme::LIVE {
        let example = examples
            .iter()
            .find(|e| e.command == *command)
            .unwrap_or_else(|| panic!("`{command}` is in LIVE but not in README.md"));
        let out = readme::run(command, &cwd, &bin, true, &env);
        println!(
            "  README.md:{} `{command}` -> exit {:?}",
            example.line,
            out.status.code()
        );
        if let Err(e) = readme::check(example, &cwd, &out) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} README command(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // The README's `collect -A --apply --yes` did the GC's work: the dangling ConfigMap is gone.
    let left = ctx
        .env
        .kubectl(&[
            "get",
            "configmap",
            "web-settings",
            "-n",
            "shop",
            "--ignore-not-found",
            "-o",
            "name",
        ])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        left.trim(),
        "",
        "the applied plan left the dangling ConfigMap"
    );
}
