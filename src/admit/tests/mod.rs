//! The webhook's decisions on a small cluster: each break the GC acts on, the fast paths, both
//! review versions, and bodies that are not reviews.

use super::config::{base64, webhook_configuration};
use super::decide::{self, Mode, Policy, Skip};
use super::graph::Graph;
use super::review::{self, Answer};
use super::server::{App, Limits, validate};
use crate::catalog::KubeVersion;
use crate::testkit::Cluster;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// kube-system holds the owner of the incident; monitoring holds a ConfigMap and a
/// Deployment; a PersistentVolume is cluster-scoped; GC 1.20.
fn cluster() -> Cluster {
    let mut c = Cluster::new();
    c.server_version("v1.20.2");
    c.obj("v1", "ConfigMap", "kube-system", "owner", "uid-ks");
    c.obj("v1", "ConfigMap", "monitoring", "cfg", "uid-mon");
    c.obj("apps/v1", "Deployment", "monitoring", "web", "uid-web");
    c.obj("v1", "PersistentVolume", "", "pv", "uid-pv");
    c.obj("v1", "ConfigMap", "monitoring", "dep", "uid-dep")
        .owner("v1", "ConfigMap", "cfg", "uid-mon");
    c
}

fn engine() -> Graph {
    Graph::from_snapshot(cluster().build(), None)
}

fn oref(av: &str, kind: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": av, "kind": kind, "name": name, "uid": uid})
}

/// A review of `op` on a ConfigMap `name` in `ns` (`""`: a PersistentVolume) whose new
/// object has `refs` and whose old one (UPDATE) `old`.
fn review_of(
    version: &str,
    op: &str,
    ns: &str,
    name: &str,
    refs: Value,
    old: Option<Value>,
) -> String {
    let (group, resource) = if ns.is_empty() {
        ("", "persistentvolumes")
    } else {
        ("", "configmaps")
    };
    let uid = if op == "CREATE" { "" } else { "uid-x" };
    let mut req = json!({
        "uid": "req-1",
        "kind": {"group": group, "version": "v1", "kind": "ConfigMap"},
        "resource": {"group": group, "version": "v1", "resource": resource},
        "name": name,
        "namespace": ns,
        "operation": op,
        "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
        "object": {"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": name, "namespace": ns, "uid": uid, "ownerReferences": refs}},
    });
    if let Some(old) = old {
        req["oldObject"] = json!({"metadata": {"name": name, "namespace": ns, "uid": uid, "ownerReferences": old}});
    }
    json!({"apiVersion": version, "kind": "AdmissionReview", "request": req}).to_string()
}

/// The problems the webhook finds in a CREATE in `ns` with `refs`.
fn problems(e: &Graph, ns: &str, refs: Value) -> Vec<String> {
    let body = review_of("admission.k8s.io/v1", "CREATE", ns, "new", refs, None);
    let r = review::parse(body.as_bytes()).expect("a review");
    let added = decide::triage(&r.request, &Policy::default()).expect("judged");
    decide::check(e, &r.request, &added, None, |_| ())
        .expect("synced")
        .problems
}

fn one(mut p: Vec<String>) -> String {
    assert_eq!(p.len(), 1, "{p:#?}");
    p.remove(0)
}

#[test]
fn an_owner_in_another_namespace_is_named_with_the_deletion_and_the_fix() {
    let e = engine();
    let m = one(problems(
        &e,
        "monitoring",
        json!([oref("v1", "ConfigMap", "owner", "uid-ks")]),
    ));
    // The judgement's summary, as `audit` and `why` word it (GC004), and when from the
    // timeline: a reference written into another namespace is verified at once (1.20+).
    assert!(
        m.starts_with(
            "ownerReference to ConfigMap \"owner\": the reference's UID belongs to \
             ConfigMap/owner -n kube-system, in another namespace, and an ownerReference cannot \
             cross namespaces, so the GC will delete this object at once."
        ),
        "{m}"
    );
    // The fix is the remedy catalogue's for a manifest, as `check apply` words it.
    assert!(
        m.ends_with(
            "Fix: delete the ownerReferences entry that names ConfigMap/owner, or write this \
             object into namespace kube-system beside its owner."
        ),
        "{m}"
    );
}

#[test]
fn an_absent_owner_and_a_stale_uid_are_told_apart() {
    let e = engine();
    let m = one(problems(
        &e,
        "monitoring",
        json!([oref("v1", "ConfigMap", "ghost", "uid-ghost")]),
    ));
    assert!(
        m.contains("does not exist in namespace \"monitoring\""),
        "{m}"
    );
    assert!(m.contains("the GC will delete this object"), "{m}");
    assert!(
        m.ends_with("Fix: delete the ownerReferences entry that names ConfigMap/ghost."),
        "{m}"
    );
    let m = one(problems(
        &e,
        "monitoring",
        json!([oref("v1", "ConfigMap", "cfg", "uid-old")]),
    ));
    assert!(
        m.contains("was recreated: ConfigMap/cfg -n monitoring exists with uid uid-mon"),
        "{m}"
    );
    // The owner exists, so its current uid is the fix (what `why` offers as a patch).
    assert!(
        m.ends_with(
            "Fix: set the entry's uid to uid-mon, the owner's current uid, or delete the \
             ownerReferences entry that names ConfigMap/cfg."
        ),
        "{m}"
    );
}

/// N2: a reference whose UID is an object of this namespace under another name is a
/// coordinates mismatch (GC003), never a cross-namespace one, with `audit`'s words.
#[test]
fn a_uid_of_this_namespace_under_another_name_is_a_coordinates_mismatch() {
    let e = engine();
    let m = one(problems(
        &e,
        "monitoring",
        json!([oref("v1", "ConfigMap", "cfg-old", "uid-mon")]),
    ));
    assert!(
        m.starts_with(
            "ownerReference to ConfigMap \"cfg-old\": the reference's UID belongs to \
             ConfigMap/cfg -n monitoring, but the reference names ConfigMap/cfg-old, so"
        ),
        "{m}"
    );
    assert!(!m.contains("namespace"), "{m}");
    assert!(
        m.ends_with(
            "Fix: set the entry's apiVersion to v1, kind to ConfigMap and name to cfg, or delete \
             the ownerReferences entry that names ConfigMap/cfg-old."
        ),
        "{m}"
    );
}

#[test]
fn a_dangling_reference_beside_a_solid_one_is_stripped_not_deleted() {
    let e = engine();
    let m = one(problems(
        &e,
        "monitoring",
        json!([
            oref("apps/v1", "Deployment", "web", "uid-web"),
            oref("v1", "ConfigMap", "ghost", "uid-ghost")
        ]),
    ));
    assert!(m.contains("the GC will remove this ownerReference"), "{m}");
}

#[test]
fn a_cluster_scoped_object_naming_a_namespaced_kind_is_never_collected() {
    let e = engine();
    let m = one(problems(
        &e,
        "",
        json!([oref("v1", "ConfigMap", "cfg", "uid-mon")]),
    ));
    assert!(
        m.contains("cluster-scoped object names a namespaced owner v1 ConfigMap/cfg"),
        "{m}"
    );
    assert!(m.contains("never collect this object"), "{m}");
}

#[test]
fn a_kind_the_cluster_does_not_serve_is_never_collected() {
    let e = engine();
    // kubernetes#137008's shape: `core/v1` is no group version any cluster serves.
    let m = one(problems(
        &e,
        "monitoring",
        json!([oref("core/v1", "ConfigMap", "cfg", "uid-mon")]),
    ));
    assert!(
        m.contains("owner core/v1 ConfigMap/cfg (uid uid-mon): "),
        "{m}"
    );
    assert!(m.contains("never collect this object"), "{m}");
}

#[test]
fn conflicting_duplicates_are_reported_and_a_valid_reference_is_not() {
    let e = engine();
    assert!(
        problems(
            &e,
            "monitoring",
            json!([oref("v1", "ConfigMap", "cfg", "uid-mon")])
        )
        .is_empty()
    );
    let p = problems(
        &e,
        "monitoring",
        json!([
            oref("v1", "ConfigMap", "cfg", "uid-mon"),
            oref("v1", "ConfigMap", "cfg-typo", "uid-mon")
        ]),
    );
    assert!(
        p.iter()
            .any(|m| m.starts_with("Two ownerReferences name uid uid-mon")),
        "{p:#?}"
    );
    assert!(
        p.iter()
            .any(|m| m.contains("\"cfg-typo\"") && m.contains("remove this ownerReference")),
        "{p:#?}"
    );
}

#[test]
fn hostile_names_are_escaped_and_cut() {
    let e = engine();
    let name = format!("\u{1b}[31mred\u{202e}{}", "x".repeat(300));
    let m = one(problems(
        &e,
        "monitoring",
        json!([oref("v1", "ConfigMap", &name, "uid-ghost")]),
    ));
    assert!(!m.chars().any(crate::util::is_terminal_hostile), "{m:?}");
    assert!(m.contains("\\u{001b}[31mred\\u{202e}"), "{m}");
    // The name is cut wherever it is written: the reference, the judgement's summary, the fix.
    assert_eq!(m.matches("red\\u{202e}xxx").count(), 3, "{m}");
    assert_eq!(m.matches("xxx…").count(), 3, "{m}");
    assert!(m.len() < 500, "{}", m.len());
}

fn triage(body: &str, policy: &Policy) -> Result<Vec<usize>, Skip> {
    let r = review::parse(body.as_bytes()).expect("a review");
    decide::triage(&r.request, policy)
}

#[test]
fn writes_that_add_no_reference_and_the_control_plane_are_admitted_at_once() {
    let p = Policy::default();
    let bad = json!([oref("v1", "ConfigMap", "ghost", "uid-ghost")]);
    let v1 = "admission.k8s.io/v1";
    // Removing a reference (and keeping a broken one that was there before).
    let body = review_of(
        v1,
        "UPDATE",
        "monitoring",
        "x",
        bad.clone(),
        Some(json!([
            oref("v1", "ConfigMap", "ghost", "uid-ghost"),
            oref("v1", "ConfigMap", "cfg", "uid-mon")
        ])),
    );
    assert_eq!(triage(&body, &p), Err(Skip::NoNewReferences));
    let body = review_of(v1, "DELETE", "monitoring", "x", bad.clone(), None);
    assert_eq!(triage(&body, &p), Err(Skip::Operation));
    // The users as literal strings: a name dropped from (or misspelt in) the list fails here.
    for user in [
        "system:serviceaccount:kube-system:generic-garbage-collector",
        "system:serviceaccount:kube-system:namespace-controller",
        "system:kube-controller-manager",
    ] {
        let body = review_of(
            v1,
            "UPDATE",
            "monitoring",
            "x",
            bad.clone(),
            Some(json!([])),
        )
        .replace("\"alice\"", &format!("{user:?}"));
        assert_eq!(triage(&body, &p), Err(Skip::ControlPlane), "{user}");
    }
    // Near misses are anyone's writes: judged.
    for user in [
        "system:serviceaccount:kube-system:generic-garbage-collectorx",
        "system:serviceaccount:default:generic-garbage-collector",
        "system:kube-scheduler",
        "generic-garbage-collector",
    ] {
        let body = review_of(
            v1,
            "UPDATE",
            "monitoring",
            "x",
            bad.clone(),
            Some(json!([])),
        )
        .replace("\"alice\"", &format!("{user:?}"));
        assert_eq!(triage(&body, &p), Ok(vec![0]), "{user}");
    }
    // A reference the update adds is judged; the same write by alice on CREATE too.
    let body = review_of(
        v1,
        "UPDATE",
        "monitoring",
        "x",
        bad.clone(),
        Some(json!([])),
    );
    assert_eq!(triage(&body, &p), Ok(vec![0]));
    // Opt-outs: the label, a skipped namespace, a namespace not opted in.
    let labelled = body.replace(
        "\"metadata\":{",
        "\"metadata\":{\"labels\":{\"kubectl-gc.io/admit\":\"skip\"},",
    );
    assert_eq!(triage(&labelled, &p), Err(Skip::Label));
    let skip = Policy {
        exclude_namespaces: vec!["monitoring".into()],
        ..Policy::default()
    };
    assert_eq!(triage(&body, &skip), Err(Skip::Namespace));
    let only = Policy {
        namespaces: vec!["shop".into()],
        ..Policy::default()
    };
    assert_eq!(triage(&body, &only), Err(Skip::Namespace));
    let only = Policy {
        namespaces: vec!["monitoring".into()],
        ..Policy::default()
    };
    assert_eq!(triage(&body, &only), Ok(vec![0]));
}

#[test]
fn malformed_bodies_are_refused_with_a_reason_never_a_panic() {
    let good = review_of(
        "admission.k8s.io/v1",
        "CREATE",
        "monitoring",
        "x",
        json!([]),
        None,
    );
    for (body, why) in [
        ("", "not an AdmissionReview"),
        ("{", "not an AdmissionReview"),
        ("[]", "not an AdmissionReview"),
        (
            r#"{"apiVersion":"admission.k8s.io/v1","kind":"Pod","request":{"uid":"u"}}"#,
            "kind is not",
        ),
        (
            r#"{"apiVersion":"admission.k8s.io/v2","kind":"AdmissionReview","request":{"uid":"u"}}"#,
            "is not served",
        ),
        (
            r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}"#,
            "has no request",
        ),
        (
            r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}}"#,
            "has no uid",
        ),
        (
            r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":{"metadata":{"ownerReferences":5}}}}"#,
            "not an AdmissionReview",
        ),
    ] {
        let err = review::parse(body.as_bytes()).expect_err(body);
        assert!(err.contains(why), "{body}: {err}");
    }
    assert!(review::parse(b"\xff\xfe").is_err());
    // Every prefix of a real review: an answer or an error, whatever is cut.
    let e = engine();
    for n in 0..good.len() {
        if let Ok(r) = review::parse(&good.as_bytes()[..n])
            && let Ok(added) = decide::triage(&r.request, &Policy::default())
        {
            decide::check(&e, &r.request, &added, None, |_| ());
        }
    }
}

#[test]
fn answers_echo_the_review_version_and_refuse_in_deny_mode() {
    let warn = decide::answer(Mode::Warn, vec!["bad.".into()]);
    let deny = decide::answer(Mode::Deny, vec!["bad.".into(), "worse.".into()]);
    assert_eq!(decide::answer(Mode::Deny, vec![]), Answer::allow());
    for version in review::REVIEW_VERSIONS {
        let out: Value = serde_json::from_slice(&review::respond(version, "u-1", &warn)).unwrap();
        assert_eq!(out["apiVersion"], version);
        assert_eq!(out["kind"], "AdmissionReview");
        assert_eq!(out["response"]["uid"], "u-1");
        assert_eq!(out["response"]["allowed"], true);
        assert_eq!(out["response"]["warnings"], json!(["bad."]));
        let out: Value = serde_json::from_slice(&review::respond(version, "u-2", &deny)).unwrap();
        assert_eq!(out["response"]["allowed"], false);
        assert_eq!(out["response"]["status"]["code"], 403);
        assert_eq!(out["response"]["status"]["message"], "bad. worse.");
    }
}

/// An app on `graph` in `mode`, answering within 200 ms.
fn app(graph: Graph, mode: Mode) -> Arc<App> {
    app_with(
        Arc::new(graph),
        mode,
        Limits {
            timeout: Duration::from_millis(200),
            ..Limits::default()
        },
    )
}

fn app_with(graph: Arc<Graph>, mode: Mode, limits: Limits) -> Arc<App> {
    Arc::new(App::new(
        Policy {
            mode,
            ..Policy::default()
        },
        Arc::new(super::metrics::Metrics::new()),
        graph,
        limits,
    ))
}

/// `graph`'s write lock held by a thread of its own until this is dropped: no check can read
/// the graph meanwhile.
struct LockedOut {
    release: Option<std::sync::mpsc::Sender<()>>,
    holder: Option<std::thread::JoinHandle<()>>,
}

impl LockedOut {
    fn new(graph: &Arc<Graph>) -> LockedOut {
        let (release, released) = std::sync::mpsc::channel::<()>();
        let (held, is_held) = std::sync::mpsc::channel();
        let g = graph.clone();
        let holder = std::thread::spawn(move || {
            let _guard = g.lock_out();
            let _ = held.send(());
            let _ = released.recv();
        });
        is_held.recv().expect("the lock is taken");
        LockedOut {
            release: Some(release),
            holder: Some(holder),
        }
    }
}

impl Drop for LockedOut {
    fn drop(&mut self) {
        self.release.take();
        if let Some(h) = self.holder.take() {
            let _ = h.join();
        }
    }
}

async fn call(app: &Arc<App>, body: String) -> (u16, Value) {
    let r = validate(app, body.into(), Instant::now() + app.limits.timeout).await;
    let status = r.status().as_u16();
    let bytes = http_body_util::BodyExt::collect(r.into_body())
        .await
        .unwrap()
        .to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn the_server_answers_warns_denies_and_never_waits_past_its_deadline() {
    let broken = review_of(
        "admission.k8s.io/v1beta1",
        "CREATE",
        "monitoring",
        "x",
        json!([oref("v1", "ConfigMap", "owner", "uid-ks")]),
        None,
    );
    let a = app(engine(), Mode::Warn);
    let (status, out) = call(&a, broken.clone()).await;
    assert_eq!(status, 200);
    assert_eq!(out["apiVersion"], "admission.k8s.io/v1beta1");
    assert_eq!(out["response"]["allowed"], true);
    assert!(
        out["response"]["warnings"][0]
            .as_str()
            .unwrap()
            .contains("ConfigMap/owner -n kube-system"),
        "{out}"
    );
    let d = app(engine(), Mode::Deny);
    let (_, out) = call(&d, broken.clone()).await;
    assert_eq!(out["response"]["allowed"], false, "{out}");
    // Not synced: admitted at once, counted; in warn mode the warning says it was not judged.
    let n = app(Graph::default(), Mode::Deny);
    let (_, out) = call(&n, broken.clone()).await;
    assert_eq!(out["response"]["allowed"], true);
    assert_eq!(out["response"]["warnings"], Value::Null, "{out}");
    assert!(
        n.metrics.encode().contains("verdict=\"not-synced\""),
        "{}",
        n.metrics.encode()
    );
    let n = app(Graph::default(), Mode::Warn);
    let (_, out) = call(&n, broken.clone()).await;
    assert!(
        out["response"]["warnings"][0]
            .as_str()
            .unwrap()
            .contains("did not judge the ownerReferences this write adds: its graph of the cluster has not synced yet"),
        "{out}"
    );
    // A graph that does not answer (its lock held): admitted by the deadline, counted.
    let t = app(engine(), Mode::Deny);
    let held = LockedOut::new(&t.graph);
    let started = Instant::now();
    let (_, out) = call(&t, broken).await;
    drop(held);
    assert_eq!(out["response"]["allowed"], true);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(t.metrics.encode().contains("verdict=\"timeout\""));
    // Garbage: a 400 with the reason.
    let (status, _) = call(&a, "nonsense".into()).await;
    assert_eq!(status, 400);
    assert!(a.metrics.encode().contains("verdict=\"warned\""));
}

/// Allows everything but `update` on a `finalizers` subresource; counts what it is asked.
#[derive(Default)]
struct NoFinalizers {
    asked: std::sync::atomic::AtomicUsize,
}

impl super::permission::Authorizer for NoFinalizers {
    fn review<'a>(
        &'a self,
        _: &'a super::permission::User,
        attrs: &'a crate::diagnose::permission::ResourceAttributes,
    ) -> super::permission::Answer<'a> {
        self.asked
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let allowed = !(attrs.verb == "update" && attrs.subresource == "finalizers");
        Box::pin(async move {
            Ok(crate::diagnose::permission::Decision {
                allowed,
                reason: String::new(),
            })
        })
    }
}

#[tokio::test]
async fn check_permissions_warns_of_the_plugins_refusal_in_every_mode_and_asks_once() {
    let mut r = oref("v1", "ConfigMap", "cfg", "uid-mon");
    r["blockOwnerDeletion"] = json!(true);
    let valid = review_of(
        "admission.k8s.io/v1",
        "CREATE",
        "monitoring",
        "x",
        json!([r]),
        None,
    );
    // Without the flag: a valid reference, no word.
    let (_, out) = call(&app(engine(), Mode::Deny), valid.clone()).await;
    assert_eq!(out["response"]["allowed"], true, "{out}");
    assert!(out["response"]["warnings"].is_null(), "{out}");
    for mode in [Mode::Warn, Mode::Deny] {
        let counted = Arc::new(NoFinalizers::default());
        let mut a = App::new(
            Policy {
                mode,
                ..Policy::default()
            },
            Arc::new(super::metrics::Metrics::new()),
            Arc::new(engine()),
            Limits {
                timeout: Duration::from_millis(500),
                ..Limits::default()
            },
        );
        a.authorizer = Some(Arc::new(super::permission::Cached::new(CountedRef(
            counted.clone(),
        ))));
        let a = Arc::new(a);
        for _ in 0..3 {
            let (_, out) = call(&a, valid.clone()).await;
            // A warning, never a refusal: the plugin, not the webhook, would refuse.
            assert_eq!(out["response"]["allowed"], true, "{out}");
            let w = out["response"]["warnings"][0].as_str().unwrap_or_default();
            assert!(
                w.starts_with("where OwnerReferencesPermissionEnforcement is enabled")
                    && w.contains("user \"alice\" may not update configmaps/finalizers \"cfg\""),
                "{out}"
            );
        }
        // The answer is kept: three writes, one review.
        assert_eq!(counted.asked.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}

/// An authorizer shared with the test, to count what the server asked.
struct CountedRef(Arc<NoFinalizers>);

impl super::permission::Authorizer for CountedRef {
    fn review<'a>(
        &'a self,
        user: &'a super::permission::User,
        attrs: &'a crate::diagnose::permission::ResourceAttributes,
    ) -> super::permission::Answer<'a> {
        self.0.review(user, attrs)
    }
}

#[test]
fn the_configuration_never_blocks_the_cluster() {
    assert_eq!(base64(b""), "");
    assert_eq!(base64(b"f"), "Zg==");
    assert_eq!(base64(b"fo"), "Zm8=");
    assert_eq!(base64(b"foo"), "Zm9v");
    assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    let p = Policy {
        exclude_namespaces: vec!["kube-system".into()],
        ..Policy::default()
    };
    let url = "https://127.0.0.1:8443/validate";
    let c = webhook_configuration(url, b"PEM", &p, 3, KubeVersion::v1(21));
    let w = &c["webhooks"][0];
    assert_eq!(c["kind"], "ValidatingWebhookConfiguration");
    assert_eq!(w["failurePolicy"], "Ignore");
    assert_eq!(w["sideEffects"], "None");
    assert_eq!(w["timeoutSeconds"], 3);
    assert_eq!(w["admissionReviewVersions"], json!(["v1", "v1beta1"]));
    assert_eq!(w["clientConfig"]["caBundle"], "UEVN");
    assert_eq!(w["rules"][0]["operations"], json!(["CREATE", "UPDATE"]));
    assert_eq!(
        w["namespaceSelector"]["matchExpressions"][0],
        json!({"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system"]})
    );
    assert_eq!(w["matchConditions"], Value::Null);
}

#[test]
fn the_configuration_fits_its_release() {
    let only = Policy {
        namespaces: vec!["shop".into()],
        exclude_namespaces: vec!["kube-system".into()],
        ..Policy::default()
    };
    let url = "https://127.0.0.1:8443/validate";
    // v1.20 has no kubernetes.io/metadata.name: a selector on it would match no namespace
    // (In) — the webhook would never be called — so none is written; the webhook skips the
    // namespaces itself, and the header says so.
    let c = webhook_configuration(url, b"PEM", &only, 3, KubeVersion::v1(20));
    assert_eq!(c["webhooks"][0]["namespaceSelector"], Value::Null, "{c}");
    assert_eq!(c["webhooks"][0]["matchConditions"], Value::Null);
    let h = super::config::header(KubeVersion::v1(20), &only);
    assert!(h.starts_with("# kubectl gc admit's webhook configuration for Kubernetes 1.20.\n"));
    assert!(h.contains("skips the namespaces"), "{h}");
    assert!(h.lines().all(|l| l.starts_with("# ")), "{h}");
    let c = webhook_configuration(url, b"PEM", &only, 3, KubeVersion::v1(27));
    assert_eq!(
        c["webhooks"][0]["namespaceSelector"]["matchExpressions"][0],
        json!({"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["shop"]})
    );
    assert_eq!(c["webhooks"][0]["matchConditions"], Value::Null);
    // 1.28+: matchConditions keep what the webhook admits at once off the wire.
    let c = webhook_configuration(url, b"PEM", &only, 3, KubeVersion::v1(28));
    let conditions = c["webhooks"][0]["matchConditions"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(conditions.len(), 3);
    assert!(!super::config::header(KubeVersion::v1(28), &only).contains("matchConditions"));
    let sent = |user: &str, object: Value, old: Value| -> bool {
        let env = cel::Env::stdlib();
        let mut ctx = cel::Context::default();
        ctx.add_variable("object", cel::to_value(&object).unwrap())
            .unwrap();
        ctx.add_variable("oldObject", cel::to_value(&old).unwrap())
            .unwrap();
        let request = json!({"userInfo": {"username": user}});
        ctx.add_variable("request", cel::to_value(&request).unwrap())
            .unwrap();
        conditions.iter().all(|c| {
            let e = c["expression"].as_str().unwrap();
            let program = env.compile(e).unwrap_or_else(|err| panic!("{e}: {err:?}"));
            program
                .execute(&ctx)
                .unwrap_or_else(|err| panic!("{e}: {err:?}"))
                == cel::Value::Bool(true)
        })
    };
    let with = |refs: Value| json!({"metadata": {"name": "x", "ownerReferences": refs}});
    let a = json!([oref("v1", "ConfigMap", "a", "uid-a")]);
    let ab = json!([
        oref("v1", "ConfigMap", "a", "uid-a"),
        oref("v1", "ConfigMap", "b", "uid-b")
    ]);
    let alice = "alice";
    assert!(
        sent(alice, with(a.clone()), Value::Null),
        "a CREATE with a reference"
    );
    assert!(
        sent(alice, with(ab.clone()), with(a.clone())),
        "an UPDATE adding one"
    );
    assert!(sent(
        alice,
        with(a.clone()),
        json!({"metadata": {"name": "x"}})
    ));
    assert!(
        !sent(alice, json!({"metadata": {"name": "x"}}), Value::Null),
        "no reference"
    );
    assert!(!sent(alice, with(json!([])), Value::Null), "an empty list");
    assert!(
        !sent(alice, with(a.clone()), with(a.clone())),
        "references kept as they were"
    );
    // Removing one is sent (the webhook admits it at once): the conditions only err that way.
    assert!(sent(alice, with(a.clone()), with(ab.clone())));
    for user in [
        "system:serviceaccount:kube-system:generic-garbage-collector",
        "system:serviceaccount:kube-system:namespace-controller",
        "system:kube-controller-manager",
    ] {
        assert!(!sent(user, with(ab.clone()), with(a.clone())), "{user}");
    }
    assert!(sent(
        "system:serviceaccount:kube-system:deployment-controller",
        with(a),
        Value::Null
    ));
}

/// A self-signed certificate for 127.0.0.1 and its key, as PEM.
fn pair() -> (String, String) {
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .unwrap()
        .self_signed(&key)
        .unwrap();
    (cert.pem(), key.serialize_pem())
}

#[test]
fn the_certificate_is_read_again_when_its_content_changes_and_a_bad_file_keeps_the_old_one() {
    use super::tls::ReloadingCert;
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
    let (c1, k1) = pair();
    let (c2, k2) = pair();
    std::fs::write(&cert, &c1).unwrap();
    std::fs::write(&key, &k1).unwrap();
    let metrics = Arc::new(super::metrics::Metrics::new());
    let r = ReloadingCert::new(cert.clone(), key.clone(), Some(metrics.clone())).unwrap();
    let first = r.get();
    assert!(Arc::ptr_eq(&first, &r.get()), "read again without a change");
    let stamp = |p: &std::path::Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let (cert_time, key_time) = (stamp(&cert), stamp(&key));
    let keep_times = || {
        for (p, t) in [(&cert, cert_time), (&key, key_time)] {
            std::fs::File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
    };
    // Half a rotation: the new key beside the old certificate is not served.
    std::fs::write(&key, &k2).unwrap();
    keep_times();
    assert!(Arc::ptr_eq(&first, &r.get()));
    // The whole rotation, with the old files' mtimes (a tool that keeps them): served.
    std::fs::write(&cert, &c2).unwrap();
    keep_times();
    assert_eq!((stamp(&cert), stamp(&key)), (cert_time, key_time));
    let second = r.get();
    assert!(!Arc::ptr_eq(&first, &second));
    assert_ne!(first.cert[0], second.cert[0]);
    // Garbage: the last good pair stays in service, the failure is counted once (the half
    // rotation above was the first) and flagged.
    std::fs::write(&cert, "garbage").unwrap();
    assert!(Arc::ptr_eq(&second, &r.get()));
    assert!(Arc::ptr_eq(&second, &r.get()));
    let text = metrics.encode();
    assert!(
        text.contains("kubectl_gc_admit_certificate_reloads_total{result=\"failed\"} 2\n")
            && text.contains("kubectl_gc_admit_certificate_reload_failing 1\n"),
        "{text}"
    );
    // Undone: the served pair back on disk, nothing is failing.
    std::fs::write(&cert, &c2).unwrap();
    assert!(Arc::ptr_eq(&second, &r.get()));
    assert!(
        metrics
            .encode()
            .contains("kubectl_gc_admit_certificate_reload_failing 0\n")
    );
    // Rotated again: loaded.
    std::fs::write(&cert, "garbage").unwrap();
    r.get();
    std::fs::write(&cert, &c1).unwrap();
    std::fs::write(&key, &k1).unwrap();
    assert_eq!(r.get().cert[0], first.cert[0]);
    assert!(
        metrics
            .encode()
            .contains("kubectl_gc_admit_certificate_reload_failing 0\n")
    );
    // Files that are not PEM are refused at start with the path.
    std::fs::write(&cert, "garbage").unwrap();
    let err = ReloadingCert::new(cert.clone(), key.clone(), None).unwrap_err();
    assert!(err.contains("tls.crt"), "{err}");
}

#[tokio::test]
async fn an_owner_created_a_moment_before_the_write_is_given_time_to_reach_the_graph() {
    // The graph without the owner answers the first look; the owner's creation, in flight
    // on the watch when the dependent was written, reaches the graph before the second.
    let graph = Arc::new(engine());
    let a = app_with(
        graph.clone(),
        Mode::Deny,
        Limits {
            timeout: Duration::from_secs(2),
            ..Limits::default()
        },
    );
    let body = review_of(
        "admission.k8s.io/v1",
        "CREATE",
        "monitoring",
        "x",
        json!([oref("v1", "ConfigMap", "fresh", "uid-fresh")]),
        None,
    );
    let arrives = tokio::spawn(watch_brings(graph.clone(), "fresh", "uid-fresh", 100));
    let (_, out) = call(&a, body).await;
    arrives.await.unwrap();
    assert_eq!(out["response"]["allowed"], true, "{out}");
    assert!(a.metrics.encode().contains("verdict=\"allowed\""));
    // A reference into another namespace cannot be mended by waiting: no second look.
    let started = Instant::now();
    let cross = review_of(
        "admission.k8s.io/v1",
        "CREATE",
        "kube-system",
        "x",
        json!([oref("v1", "ConfigMap", "cfg", "uid-mon")]),
        None,
    );
    let (_, out) = call(&a, cross).await;
    assert_eq!(out["response"]["allowed"], false, "{out}");
    assert!(
        started.elapsed() < Duration::from_millis(200),
        "{:?}",
        started.elapsed()
    );
}

/// After `after_ms`, the watch loop applies the creation of ConfigMap monitoring/`name`.
async fn watch_brings(graph: Arc<Graph>, name: &str, uid: &str, after_ms: u64) {
    use crate::watch::run::Model;
    tokio::time::sleep(Duration::from_millis(after_ms)).await;
    let rid = configmaps(&graph);
    let meta = crate::model::MetaIn {
        namespace: "monitoring".into(),
        name: name.to_owned().into(),
        uid: uid.to_owned().into(),
        resource_version: "2".into(),
        creation_timestamp: "2026-12-07T00:00:00Z".into(),
        ..Default::default()
    };
    super::graph::Writer(graph).apply(rid, &meta, None);
}

/// The resource-table row of v1 ConfigMaps.
fn configmaps(graph: &Graph) -> crate::model::ResourceId {
    let state = graph.read().expect("synced");
    let i = state
        .world
        .resources()
        .iter()
        .position(|r| r.group.is_empty() && r.plural == "configmaps")
        .expect("configmaps are listed");
    crate::model::ResourceId(i as u32)
}

mod faults;

#[test]
fn metrics_carry_the_build_information_under_its_own_name() {
    let m = crate::admit::metrics::Metrics::new();
    let text = m.encode();
    let info = text
        .lines()
        .find(|l| l.starts_with("kubectl_gc_build_info{"))
        .unwrap_or_else(|| panic!("no kubectl_gc_build_info in {text}"));
    assert!(
        info.contains(&format!("version=\"{}\"", env!("CARGO_PKG_VERSION")))
            && info.contains("commit=\"")
            && info.contains("rustc=\"rustc ")
            && info.ends_with("} 1"),
        "{info}"
    );
    // The admit metrics keep their prefix.
    assert!(
        text.contains("# TYPE kubectl_gc_admit_synced gauge"),
        "{text}"
    );
}
