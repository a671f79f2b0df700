//! The policy's CEL, evaluated on objects by a CEL implementation (the `cel` crate, with the
//! strings extension Kubernetes' CEL environment also has), the way the API server evaluates a
//! ValidatingAdmissionPolicy: the match conditions first (all true, or the policy does not
//! apply), then the variables, then each validation, and the message expression of each that
//! fails. The expected messages follow from the GC's rules (docs/gc-model.md §6.8, §6.9), not
//! from the generator's output.

use super::*;
use crate::snapshot::{ListOutcome, Resource};
use std::sync::Arc;

const UID: &str = "0f7e3c52-4c1a-4b8e-9a53-3b0f2d5f6a11";
const GC: &str = "system:serviceaccount:kube-system:generic-garbage-collector";

fn env() -> Arc<cel::Env> {
    let mut env = cel::Env::stdlib();
    env.add_extension(cel::extensions::strings).unwrap();
    Arc::new(env)
}

fn eval(env: &Arc<cel::Env>, ctx: &cel::Context, expr: &str) -> cel::Value {
    let program = env
        .compile(expr)
        .unwrap_or_else(|e| panic!("{expr} does not compile: {e:?}"));
    program
        .execute(ctx)
        .unwrap_or_else(|e| panic!("{expr} fails: {e:?}"))
}

/// What the API server makes of a write under `policy`: `None` when the policy does not apply
/// (a match condition is false), else the messages of the failed validations.
fn review(policy: &Value, user: &str, object: Value, old: Value) -> Option<Vec<String>> {
    let env = env();
    let mut ctx = cel::Context::with_env(env.clone());
    let operation = if old.is_null() { "CREATE" } else { "UPDATE" };
    ctx.add_variable("object", cel::to_value(&object).unwrap())
        .unwrap();
    ctx.add_variable("oldObject", cel::to_value(&old).unwrap())
        .unwrap();
    let request = json!({"operation": operation, "userInfo": {"username": user}});
    ctx.add_variable("request", cel::to_value(&request).unwrap())
        .unwrap();
    let spec = &policy["spec"];
    for c in spec["matchConditions"].as_array().unwrap() {
        let e = c["expression"].as_str().unwrap();
        if eval(&env, &ctx, e) != cel::Value::Bool(true) {
            return None;
        }
    }
    let mut vars = std::collections::HashMap::new();
    for v in spec["variables"].as_array().unwrap() {
        let value = eval(&env, &ctx, v["expression"].as_str().unwrap());
        vars.insert(v["name"].as_str().unwrap().to_owned(), value);
        ctx.add_variable_from_value("variables", vars.clone());
    }
    let mut messages = Vec::new();
    for v in spec["validations"].as_array().unwrap() {
        match eval(&env, &ctx, v["expression"].as_str().unwrap()) {
            cel::Value::Bool(true) => {}
            cel::Value::Bool(false) => {
                match eval(&env, &ctx, v["messageExpression"].as_str().unwrap()) {
                    cel::Value::String(s) => messages.push(s.to_string()),
                    other => panic!("a message that is no string: {other:?}"),
                }
            }
            other => panic!("a validation that is no bool: {other:?}"),
        }
    }
    Some(messages)
}

fn owner(api_version: &str, kind: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "name": name, "uid": uid})
}

fn object(namespace: Option<&str>, refs: &[Value]) -> Value {
    let mut meta = json!({"name": "dependent", "ownerReferences": refs});
    if let Some(ns) = namespace {
        meta["namespace"] = json!(ns);
    }
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta})
}

fn created(policy: &Value, obj: Value) -> Vec<String> {
    review(policy, "alice", obj, Value::Null).expect("the policy applies")
}

fn widget(version: &str, namespaced: bool) -> Resource {
    Resource {
        group: "example.com".into(),
        version: version.into(),
        kind: "Widget".into(),
        plural: "widgets".into(),
        namespaced,
        verbs: Vec::new(),
        preferred_version: version.into(),
        list: ListOutcome::Complete,
    }
}

fn policy_at(minor: u32, input: &[Resource]) -> Value {
    policy(&Served::new(KubeVersion::v1(minor), input))
}

#[test]
fn a_valid_reference_passes_and_each_break_gets_its_one_message() {
    let p = policy_at(30, &[]);
    let ns = Some("shop");
    let one = |r: Value| created(&p, object(ns, &[r]));
    assert_eq!(
        one(owner("apps/v1", "ReplicaSet", "web-1", UID)),
        Vec::<String>::new()
    );
    // `/v1` parses as core v1, and the GC maps it (§6.8).
    assert_eq!(
        one(owner("/v1", "Service", "web", UID)),
        Vec::<String>::new()
    );

    let m = one(owner("core/v1", "Pod", "p", UID));
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].starts_with(
            "ownerReference to Pod \"p\": apiVersion core/v1 is served by no cluster (core kinds \
             are \"v1\""
        ),
        "{}",
        m[0]
    );
    assert!(m[0].contains("will never collect this object. Fix: set the reference's apiVersion"));
    // One "Fix:" and no "Fix: Fix" (newcomer NC9).
    assert!(!m[0].contains("Fix: Fix"), "{}", m[0]);

    // extensions/v1beta1 Deployment went in 1.16: well formed, but not served by 1.30.
    let m = one(owner("extensions/v1beta1", "Deployment", "web", UID));
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(m[0].contains("apiVersion extensions/v1beta1 is not served by Kubernetes 1.30"));
    // A malformed version (upper case) and an empty one.
    for bad in ["apps/V1", "apps/", "apps/v1/x"] {
        let m = one(owner(bad, "Deployment", "web", UID));
        assert_eq!(m.len(), 1, "{bad}: {m:?}");
        assert!(m[0].contains("is served by no cluster"), "{bad}: {}", m[0]);
    }

    for bad in ["abc", "", "0F7E3C52-4C1A-4B8E-9A53-3B0F2D5F6A11"] {
        let m = one(owner("apps/v1", "ReplicaSet", "web-1", bad));
        assert_eq!(m.len(), 1, "{bad:?}: {m:?}");
        assert!(
            m[0].starts_with(
                "ownerReference to ReplicaSet \"web-1\": the uid is not one the API server gives"
            ),
            "{}",
            m[0]
        );
        assert!(
            m[0].ends_with(&format!("{}.", wording::ABSENT_WHEN)),
            "{}",
            m[0]
        );
    }
}

#[test]
fn kinds_in_lower_case_in_the_plural_or_misspelt_are_named_with_what_the_gc_does() {
    let p = policy_at(30, &[]);
    let one = |kind: &str| {
        created(
            &p,
            object(Some("shop"), &[owner("apps/v1", kind, "web", UID)]),
        )
    };
    // All lower case: the GC's REST mapper accepts it (§6.9), controllers compare exactly.
    let m = one("deployment");
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].contains(
            "the kind is written in lower case: the GC maps it to Deployment, but controllers"
        ) && m[0].ends_with("Fix: write the kind Deployment."),
        "{}",
        m[0]
    );
    // Plural or another spelling: the GC cannot map it and never collects (§6.8, §6.9).
    for bad in ["deployments", "Deployments", "DEPLOYMENT", "deployMent"] {
        let m = one(bad);
        assert_eq!(m.len(), 1, "{bad}: {m:?}");
        assert!(
            m[0].contains("the kind is not one this apiVersion serves")
                && m[0].contains("will never collect this object"),
            "{bad}: {}",
            m[0]
        );
    }
    assert!(one("Deployment").is_empty());
    // A group the policy does not know: only a kind that cannot be UpperCamelCase is named.
    let other = |kind: &str| {
        created(
            &p,
            object(Some("shop"), &[owner("example.com/v1", kind, "w", UID)]),
        )
    };
    assert!(other("Widgets").is_empty());
    assert_eq!(other("widget").len(), 1);
}

#[test]
fn the_input_custom_resources_are_known_with_their_versions_and_scope() {
    let p = policy_at(31, &[widget("v1", true)]);
    let one = |av: &str, kind: &str, ns: Option<&str>| {
        created(&p, object(ns, &[owner(av, kind, "w", UID)]))
    };
    assert!(one("example.com/v1", "Widget", Some("shop")).is_empty());
    let m = one("example.com/v2", "Widget", Some("shop"));
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(m[0].contains("apiVersion example.com/v2 is not served by Kubernetes 1.31"));
    assert_eq!(one("example.com/v1", "Widgets", Some("shop")).len(), 1);
    // Cluster-scoped dependent, namespaced custom owner kind.
    let m = one("example.com/v1", "Widget", None);
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(m[0].contains("this object is cluster-scoped and the owner's kind is namespaced"));
    // A kind no API server could serve is left out of the policy, not written into it.
    let hostile = Resource {
        kind: "Wid'get".into(),
        group: "evil.example".into(),
        ..widget("v1", true)
    };
    let served = Served::new(KubeVersion::v1(31), &[hostile]);
    assert!(!served.kinds.keys().any(|v| v.starts_with("evil.example")));
}

#[test]
fn a_cluster_scoped_object_may_name_only_cluster_scoped_owner_kinds() {
    let p = policy_at(30, &[]);
    let one = |av: &str, kind: &str| created(&p, object(None, &[owner(av, kind, "o", UID)]));
    let m = one("v1", "Pod");
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].starts_with("ownerReference to Pod \"o\": this object is cluster-scoped")
            && m[0].ends_with(&format!("{}.", wording::INVALID_SCOPE_WHEN)),
        "{}",
        m[0]
    );
    // The lower-case kind maps to the same namespaced kind (§6.9).
    assert_eq!(one("apps/v1", "deployment").len(), 2);
    assert!(one("v1", "Namespace").is_empty());
    assert!(one("rbac.authorization.k8s.io/v1", "ClusterRole").is_empty());
    // The same reference from a namespaced object is fine.
    assert!(created(&p, object(Some("shop"), &[owner("v1", "Pod", "o", UID)])).is_empty());
}

#[test]
fn only_references_a_write_adds_are_judged_and_the_control_plane_is_not_matched() {
    let p = policy_at(30, &[]);
    let bad = owner("core/v1", "Pod", "p", UID);
    let good = owner("apps/v1", "ReplicaSet", "web-1", UID);
    let old = object(Some("shop"), std::slice::from_ref(&bad));
    // An UPDATE that keeps a reference judged when it was written, or removes one.
    let kept = review(
        &p,
        "alice",
        object(Some("shop"), &[bad.clone(), good.clone()]),
        old.clone(),
    );
    assert_eq!(kept, Some(Vec::new()));
    let other_bad = owner("core/v1", "Pod", "q", UID);
    let added = review(
        &p,
        "alice",
        object(Some("shop"), &[bad.clone(), other_bad]),
        old.clone(),
    );
    let added = added.unwrap();
    assert_eq!(added.len(), 1, "{added:?}");
    assert!(added[0].starts_with("ownerReference to Pod \"q\""));
    // The GC's own writes, objects with no references, and the skip label.
    assert_eq!(
        review(
            &p,
            GC,
            object(Some("shop"), std::slice::from_ref(&bad)),
            Value::Null
        ),
        None
    );
    assert_eq!(
        review(&p, "alice", object(Some("shop"), &[]), Value::Null),
        None
    );
    let mut skipped = object(Some("shop"), &[bad]);
    skipped["metadata"]["labels"] = json!({"kubectl-gc.io/admit": "skip"});
    assert_eq!(review(&p, "alice", skipped, Value::Null), None);
}

#[test]
fn strings_from_the_object_never_reach_a_message_raw() {
    let p = policy_at(30, &[]);
    let r = owner(
        "apps/v1",
        "Replica\u{1b}[2JSet",
        "x\u{1b}]0;pwned\u{7}",
        "nope",
    );
    let m = created(&p, object(Some("shop"), &[r]));
    assert_eq!(m.len(), 2, "{m:?}");
    for s in &m {
        assert!(!s.chars().any(crate::util::is_terminal_hostile), "{s:?}");
        assert!(s.starts_with(
            "ownerReference to (a kind with other characters) \"(a name with other characters)\""
        ));
    }
}

#[test]
fn cel_string_literals_read_back_exactly() {
    let env = env();
    let ctx = cel::Context::with_env(env.clone());
    for s in [
        "plain",
        "it's",
        "back\\slash",
        "quote\"d",
        "esc\u{1b}[2J",
        "nl\nx",
        "ünï ✓ 🚀",
        "",
    ] {
        let lit = cel_str(s);
        assert!(lit.is_ascii(), "{lit}");
        assert_eq!(
            eval(&env, &ctx, &lit),
            cel::Value::String(Arc::new(s.to_owned())),
            "{lit}"
        );
    }
}

#[test]
fn the_documents_are_what_the_api_schema_accepts() {
    use k8s_openapi::api::admissionregistration::v1::{
        ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding,
    };
    let served = Served::new(KubeVersion::v1(30), &[widget("v1", true)]);
    let p = policy(&served);
    let b = binding(
        &[Action::Deny, Action::Audit, Action::Deny],
        &[],
        &["kube-system".to_owned()],
    );
    // Through YAML as printed, then through the API's types (generated from its OpenAPI
    // document): a missing required field fails to parse, and a misplaced or misspelt field
    // is dropped, so the round trip differs.
    for doc in [&p, &b] {
        let yaml = serde_saphyr::to_string(doc).unwrap();
        let back: Value = serde_saphyr::from_str(&yaml).unwrap();
        assert_eq!(&back, doc);
    }
    let typed: ValidatingAdmissionPolicy = serde_json::from_value(p.clone()).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), p);
    let typed: ValidatingAdmissionPolicyBinding = serde_json::from_value(b.clone()).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), b);
    // The enumerations the schema states in prose.
    assert_eq!(b["spec"]["validationActions"], json!(["Audit", "Deny"]));
    let spec = typed.spec.unwrap();
    assert_eq!(spec.policy_name.as_deref(), Some(POLICY_NAME));
    assert_eq!(p["spec"]["failurePolicy"], "Ignore");
    for v in p["spec"]["variables"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric()), "{name}");
    }
}
