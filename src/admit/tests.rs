//! The webhook's decisions on a small cluster: each break the GC acts on, the fast paths, both
//! review versions, and bodies that are not reviews.

use super::config::{base64, webhook_configuration};
use super::decide::{self, Mode, Policy, Skip};
use super::review::{self, Answer};
use super::server::{App, Limits, validate};
use crate::testkit::Cluster;
use crate::watch::Engine;
use crate::watch::run::Query;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// kube-system holds the owner of the incident; monitoring holds a ConfigMap and a
/// Deployment; a PersistentVolume is cluster-scoped; GC 1.20.
fn engine() -> Engine {
    let mut c = Cluster::new();
    c.server_version("v1.20.2");
    c.obj("v1", "ConfigMap", "kube-system", "owner", "uid-ks");
    c.obj("v1", "ConfigMap", "monitoring", "cfg", "uid-mon");
    c.obj("apps/v1", "Deployment", "monitoring", "web", "uid-web");
    c.obj("v1", "PersistentVolume", "", "pv", "uid-pv");
    c.obj("v1", "ConfigMap", "monitoring", "dep", "uid-dep")
        .owner("v1", "ConfigMap", "cfg", "uid-mon");
    Engine::new(c.build(), None)
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
fn problems(e: &Engine, ns: &str, refs: Value) -> Vec<String> {
    let body = review_of("admission.k8s.io/v1", "CREATE", ns, "new", refs, None);
    let r = review::parse(body.as_bytes()).expect("a review");
    let added = decide::triage(&r.request, &Policy::default()).expect("judged");
    decide::check(e, &r.request, &added).problems
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
    // The judgement's summary, as `audit` and `why` word it (GC004).
    assert!(
        m.starts_with(
            "ownerReference to ConfigMap \"owner\": the reference's UID belongs to \
             ConfigMap/owner -n kube-system, in another namespace, and an ownerReference cannot \
             cross namespaces, so the GC will delete this object."
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
    for user in decide::CONTROL_PLANE_USERS {
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
            decide::check(&e, &r.request, &added);
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

/// An app whose queries are answered on `engine` by a task, as the watch loop answers them
/// (`None`: nobody answers).
fn app(engine: Option<Engine>, synced: bool, mode: Mode) -> Arc<App> {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Query>(8);
    if let Some(engine) = engine {
        tokio::spawn(async move {
            while let Some(q) = rx.recv().await {
                q(&engine);
            }
        });
    } else {
        // Keep the receiver alive and unread.
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(60)).await;
            drop(rx);
        });
    }
    Arc::new(App::new(
        Policy {
            mode,
            ..Policy::default()
        },
        Arc::new(super::metrics::Metrics::new()),
        Arc::new(AtomicBool::new(synced)),
        tx,
        Limits {
            timeout: Duration::from_millis(200),
            ..Limits::default()
        },
    ))
}

async fn call(app: &App, body: String) -> (u16, Value) {
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
    let a = app(Some(engine()), true, Mode::Warn);
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
    let d = app(Some(engine()), true, Mode::Deny);
    let (_, out) = call(&d, broken.clone()).await;
    assert_eq!(out["response"]["allowed"], false, "{out}");
    // Not synced: admitted at once, counted.
    let n = app(Some(engine()), false, Mode::Deny);
    let (_, out) = call(&n, broken.clone()).await;
    assert_eq!(out["response"]["allowed"], true);
    assert!(
        n.metrics.encode().contains("verdict=\"not-synced\""),
        "{}",
        n.metrics.encode()
    );
    // A graph that does not answer: admitted by the deadline, counted.
    let t = app(None, true, Mode::Deny);
    let started = Instant::now();
    let (_, out) = call(&t, broken).await;
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
    let c = webhook_configuration("https://127.0.0.1:8443/validate", b"PEM", &p, 3);
    let w = &c["webhooks"][0];
    assert_eq!(c["kind"], "ValidatingWebhookConfiguration");
    assert_eq!(w["failurePolicy"], "Ignore");
    assert_eq!(w["sideEffects"], "None");
    assert_eq!(w["timeoutSeconds"], 3);
    assert_eq!(w["admissionReviewVersions"], json!(["v1", "v1beta1"]));
    assert_eq!(w["clientConfig"]["caBundle"], "UEVN");
    assert_eq!(w["rules"][0]["operations"], json!(["CREATE", "UPDATE"]));
    assert_eq!(
        w["namespaceSelector"]["matchExpressions"][0]["values"],
        json!(["kube-system"])
    );
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
fn the_certificate_is_read_again_when_it_changes_and_a_mismatch_keeps_the_old_one() {
    use super::server::ReloadingCert;
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
    let (c1, k1) = pair();
    let (c2, k2) = pair();
    std::fs::write(&cert, &c1).unwrap();
    std::fs::write(&key, &k1).unwrap();
    let r = ReloadingCert::new(cert.clone(), key.clone()).unwrap();
    let first = r.get().unwrap();
    assert!(
        Arc::ptr_eq(&first, &r.get().unwrap()),
        "read again without a change"
    );
    // Half a rotation: the new key beside the old certificate is not served.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&key, &k2).unwrap();
    assert!(Arc::ptr_eq(&first, &r.get().unwrap()));
    std::fs::write(&cert, &c2).unwrap();
    let second = r.get().unwrap();
    assert!(!Arc::ptr_eq(&first, &second));
    assert_ne!(first.cert[0], second.cert[0]);
    // Files that are not PEM are refused at start with the path.
    std::fs::write(&cert, "garbage").unwrap();
    let err = ReloadingCert::new(cert.clone(), key.clone()).unwrap_err();
    assert!(err.contains("tls.crt"), "{err}");
}

#[tokio::test]
async fn an_owner_created_a_moment_before_the_write_is_given_time_to_reach_the_graph() {
    // The graph without the owner answers the first check, the graph with it every later one:
    // the owner's creation was in flight on the watch when the dependent was written.
    let mut c = Cluster::new();
    c.server_version("v1.20.2");
    c.obj("v1", "ConfigMap", "monitoring", "cfg", "uid-mon");
    let before = engine();
    c.obj("v1", "ConfigMap", "monitoring", "fresh", "uid-fresh");
    let after = Engine::new(c.build(), None);
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Query>(8);
    tokio::spawn(async move {
        if let Some(q) = rx.recv().await {
            q(&before);
        }
        while let Some(q) = rx.recv().await {
            q(&after);
        }
    });
    let a = App::new(
        Policy {
            mode: Mode::Deny,
            ..Policy::default()
        },
        Arc::new(super::metrics::Metrics::new()),
        Arc::new(AtomicBool::new(true)),
        tx,
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
    let (_, out) = call(&a, body).await;
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
