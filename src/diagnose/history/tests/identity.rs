//! Attribution: who acted comes from authentication, never from the user agent alone;
//! impersonation shows both identities; dry runs are not actions.

use super::*;

const GC_AGENT: &str =
    "kube-controller-manager/v1.20.2 (linux/amd64) kubernetes/faecb19/generic-garbage-collector";

#[test]
fn a_user_agent_alone_never_makes_the_garbage_collector() {
    // Anyone may send the GC's user agent: only the controller manager's own identity is
    // refined by it.
    let mut e = ev(0, "mallory", "delete", "pods", "a", "p");
    e.user_agent = GC_AGENT.into();
    assert_eq!(actor_of(&e).kind, "user");
    let mut e = ev(
        0,
        "system:serviceaccount:a:builder",
        "delete",
        "pods",
        "a",
        "p",
    );
    e.user_agent = "kubectl/v1.20.2 (linux/amd64) kubernetes/faecb19/namespace-controller".into();
    assert_eq!(actor_of(&e).kind, "controller");
    let mut e = ev(
        0,
        "system:kube-controller-manager",
        "delete",
        "pods",
        "a",
        "p",
    );
    e.user_agent = GC_AGENT.into();
    assert_eq!(actor_of(&e).kind, "garbage-collector");
    e.user_agent =
        "kube-controller-manager/v1.20.2 (linux/amd64) kubernetes/faecb19/namespace-controller"
            .into();
    assert_eq!(actor_of(&e).kind, "namespace-controller");
    // A spoofed GC's deletion is a user's action: no cause is inferred for it.
    let mut e = ev(0, "mallory", "delete", "pods", "a", "p");
    e.user_agent = GC_AGENT.into();
    let h = history(&[e], None);
    assert_eq!(h.items[0].actor.kind, "user");
    assert!(h.items[0].cause.is_none());
    assert!(!h.summary.gc_seen, "a spoofed agent is not the GC seen");
}

#[test]
fn impersonating_the_garbage_collector_names_the_real_user() {
    let mut e = ev(0, "admin", "delete", "configmaps", "shop", "dep");
    e.impersonated_user = Some(GC_USER.into());
    let a = actor_of(&e);
    assert_eq!(a.kind, "user", "the authenticated user acted: {a:?}");
    assert_eq!(a.user, GC_USER, "the effective identity");
    assert_eq!(a.impersonated_by.as_deref(), Some("admin"));
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["impersonatedBy"], "admin");
    // Without impersonation the field is absent.
    let plain = actor_of(&ev(0, "admin", "delete", "pods", "a", "p"));
    assert!(plain.impersonated_by.is_none());
    assert!(
        serde_json::to_value(&plain)
            .unwrap()
            .get("impersonatedBy")
            .is_none()
    );
    // The GC's deletion that follows has the impersonated request as its root, which names
    // the real user; the summary says who impersonated whom.
    let owner = ev(0, "admin", "delete", "configmaps", "shop", "owner");
    let mut owner = owner;
    owner.impersonated_user = Some("bob".into());
    let events = [owner, ev(5, GC_USER, "delete", "configmaps", "shop", "dep")];
    let h = history(&events, Some(&mut before()));
    let root = cause(&h, "delete", "dep").root.clone().unwrap();
    assert_eq!(root.user, "bob");
    assert_eq!(root.impersonated_by.as_deref(), Some("admin"));
    assert!(
        h.summary
            .notes
            .iter()
            .any(|n| n.contains("admin") && n.contains("impersonat") && n.contains("bob")),
        "{:?}",
        h.summary.notes
    );
}

#[test]
fn a_dry_run_is_not_an_action_but_is_counted() {
    let mut dry = ev(0, USER, "delete", "configmaps", "shop", "owner");
    dry.request_uri = "/api/v1/namespaces/shop/configmaps/owner?dryRun=All".into();
    let mut dry_coll = ev(1, USER, "deletecollection", "configmaps", "shop", "");
    dry_coll.request_uri =
        "/api/v1/namespaces/shop/configmaps?labelSelector=a%3Db&dryRun=All".into();
    let mut real = ev(2, USER, "delete", "configmaps", "shop", "other");
    real.request_uri = "/api/v1/namespaces/shop/configmaps/other?dryRun=".into();
    // The reader's filter keeps dry runs so that they are counted.
    assert!(used_by_history(&dry));
    let mut r = Recorder::default();
    for e in [dry, dry_coll, real] {
        r.push(e);
    }
    let h = r.finish(None, None);
    let names: Vec<&str> = h.items.iter().map(|i| i.object.name.as_str()).collect();
    assert_eq!(names, ["other"], "{:#?}", h.items);
    assert_eq!(h.summary.dry_run, 2);
    let json = serde_json::to_value(&h.summary).unwrap();
    assert_eq!(json["dryRun"], 2);
    assert!(
        h.summary.notes.iter().any(|n| n.contains("2 dry-run")),
        "{:?}",
        h.summary.notes
    );
    // A dry run of the owner does not explain its dependent's deletion.
    let mut dry = ev(0, USER, "delete", "configmaps", "shop", "owner");
    dry.request_uri = "/api/v1/namespaces/shop/configmaps/owner?dryRun=All".into();
    let events = [dry, ev(5, GC_USER, "delete", "configmaps", "shop", "dep")];
    let h = history(&events, Some(&mut before()));
    assert_ne!(cause(&h, "delete", "dep").type_, "owner-deleted");
}

#[test]
fn a_dry_run_in_the_delete_body_is_not_an_action() {
    // `kubectl delete --dry-run=server`: DeleteOptions' `dryRun: ["All"]` in the body, no
    // query string.
    let mut dry = ev(0, USER, "delete", "configmaps", "shop", "owner");
    dry.bodies.dry_run = true;
    let real = ev(1, USER, "delete", "configmaps", "shop", "other");
    let mut r = Recorder::default();
    for e in [dry, real] {
        r.push(e);
    }
    let h = r.finish(None, None);
    let names: Vec<&str> = h.items.iter().map(|i| i.object.name.as_str()).collect();
    assert_eq!(names, ["other"], "{:#?}", h.items);
    assert_eq!(h.summary.dry_run, 1);
}

/// An event by `who`, of `groups`.
fn by(who: &str, groups: &[&str]) -> AuditEvent {
    let mut e = ev(0, who, "delete", "pods", "a", "p");
    e.groups = groups.iter().map(|g| (*g).to_owned()).collect();
    e
}

#[test]
fn an_anonymous_request_is_a_user_not_a_controller() {
    // `system:anonymous` is a `system:` name, but the request proved no identity.
    let anon = by("system:anonymous", &["system:unauthenticated"]);
    assert_eq!(actor_of(&anon).kind, "user");
    assert_eq!(actor_of(&by("system:anonymous", &[])).kind, "user");
    // The group alone says so too, whatever name a front proxy gave the request.
    let proxied = by("system:proxy-guest", &["system:unauthenticated"]);
    assert_eq!(actor_of(&proxied).kind, "user");
}

#[test]
fn a_node_is_a_controller_whatever_its_username() {
    // Kubelets of clusters before the Node authorizer: CN=kubelet, O=system:nodes.
    let kubelet = by("kubelet", &["system:nodes", "system:authenticated"]);
    assert_eq!(actor_of(&kubelet).kind, "controller");
    // AKS's kubelets, as its diagnostic records show them.
    let aks = by("nodeclient", &["system:nodes", "system:authenticated"]);
    assert_eq!(actor_of(&aks).kind, "controller");
    // Without the group, the same name is a user's.
    assert_eq!(
        actor_of(&by("kubelet", &["system:authenticated"])).kind,
        "user"
    );
}

#[test]
fn a_system_admin_credential_is_a_user() {
    // k3s's and OpenShift's admin kubeconfig: CN=system:admin, O=system:masters.
    let admin = by("system:admin", &["system:masters", "system:authenticated"]);
    assert_eq!(actor_of(&admin).kind, "user");
    // Without the superuser group the `system:` name stays a controller's.
    assert_eq!(actor_of(&by("system:admin", &[])).kind, "controller");
    // The control plane's own identities in system:masters stay controllers.
    for component in [
        "system:apiserver",
        "system:kube-scheduler",
        "system:node:node-1",
    ] {
        let e = by(component, &["system:masters"]);
        assert_eq!(actor_of(&e).kind, "controller", "{component}");
    }
    let sa = by(
        "system:serviceaccount:kube-system:bootstrap",
        &[
            "system:serviceaccounts",
            "system:serviceaccounts:kube-system",
            "system:masters",
        ],
    );
    assert_eq!(actor_of(&sa).kind, "controller");
}

#[test]
fn groups_never_override_the_controllers_own_identities() {
    // The GC's and the namespace controller's identities, and the controller manager's
    // refined by its agent, are decided by the username first.
    let gc = by(
        GC_USER,
        &[
            "system:serviceaccounts",
            "system:serviceaccounts:kube-system",
            "system:masters",
        ],
    );
    assert_eq!(actor_of(&gc).kind, "garbage-collector");
    let mut kcm = by(
        "system:kube-controller-manager",
        &["system:unauthenticated", "system:masters"],
    );
    kcm.user_agent = GC_AGENT.into();
    assert_eq!(actor_of(&kcm).kind, "garbage-collector");
    // An impersonated request's kind is the authenticated user's, groups included.
    let mut e = by("system:admin", &["system:masters"]);
    e.impersonated_user = Some("system:node:node-1".into());
    assert_eq!(actor_of(&e).kind, "user");
}

/// F7: the GC is its service account, which the API server proves with the account's groups
/// (`system:serviceaccounts`, `system:serviceaccounts:kube-system`). The same username from
/// another authenticator — a static token, OIDC, a client certificate; reproduced on a real
/// API server — is a user's credential named like the GC, and its deletions are no GC action.
#[test]
fn the_gcs_username_without_its_service_account_groups_is_not_the_gc() {
    let sa = [
        "system:serviceaccounts",
        "system:serviceaccounts:kube-system",
        "system:authenticated",
    ];
    assert_eq!(actor_of(&by(GC_USER, &sa)).kind, "garbage-collector");
    assert_eq!(
        actor_of(&by(NAMESPACE_CONTROLLER_USER, &sa)).kind,
        "namespace-controller"
    );
    for forged in [
        &["evil-group", "system:authenticated"][..],
        &["oidc:admins", "system:authenticated"],
        // Only one of the two groups: not what a token of that account carries.
        &["system:serviceaccounts", "system:authenticated"],
        // The account's groups of another namespace.
        &["system:serviceaccounts", "system:serviceaccounts:default"],
    ] {
        assert_eq!(actor_of(&by(GC_USER, forged)).kind, "user", "{forged:?}");
        assert_eq!(
            actor_of(&by(NAMESPACE_CONTROLLER_USER, forged)).kind,
            "user",
            "{forged:?}"
        );
    }
    // A node named like the GC is a node: a controller, not the GC.
    let node = by(GC_USER, &["system:nodes", "system:authenticated"]);
    assert_eq!(actor_of(&node).kind, "controller");
    // Its deletion gets no GC cause, and the log is not taken to have the GC in it.
    let h = history(
        &[by(GC_USER, &["evil-group", "system:authenticated"])],
        None,
    );
    assert_eq!(h.items[0].actor.kind, "user");
    assert!(h.items[0].cause.is_none());
    assert!(!h.summary.gc_seen);
    // Where the format records no groups (GKE), the username alone speaks.
    assert_eq!(actor_of(&by(GC_USER, &[])).kind, "garbage-collector");
}

/// M10: a chain a controller starts is rooted at that controller — the CronJob controller
/// deletes a Job (history limit), the GC deletes the Job's Pod; the Deployment controller
/// deletes an old ReplicaSet, the GC its Pod. Fails if a controller's action no longer ends a
/// chain (`ActorKind::starts_chains`).
#[test]
fn a_chain_a_controller_starts_is_rooted_at_that_controller() {
    const CRONJOB: &str = "system:serviceaccount:kube-system:cronjob-controller";
    const DEPLOYMENT: &str = "system:serviceaccount:kube-system:deployment-controller";
    let sa = |mut e: AuditEvent| {
        e.groups = vec![
            "system:serviceaccounts".into(),
            "system:serviceaccounts:kube-system".into(),
            "system:authenticated".into(),
        ];
        e
    };
    let mut c = crate::testkit::Cluster::new();
    c.obj("batch/v1", "Job", "shop", "report-1", "u-job");
    c.obj("v1", "Pod", "shop", "report-1-x", "u-pod")
        .owner("batch/v1", "Job", "report-1", "u-job");
    c.obj("apps/v1", "ReplicaSet", "shop", "web-1", "u-rs");
    c.obj("v1", "Pod", "shop", "web-1-y", "u-pod2")
        .owner("apps/v1", "ReplicaSet", "web-1", "u-rs");
    let events = [
        sa(ev(0, CRONJOB, "delete", "jobs.batch", "shop", "report-1")),
        sa(ev(5, GC_USER, "delete", "pods", "shop", "report-1-x")),
        sa(ev(
            7,
            DEPLOYMENT,
            "delete",
            "replicasets.apps",
            "shop",
            "web-1",
        )),
        sa(ev(9, GC_USER, "delete", "pods", "shop", "web-1-y")),
    ];
    let h = history(&events, Some(&mut c.build()));
    assert_eq!(item(&h, "delete", "report-1").actor.kind, "controller");
    for (pod, controller, owner) in [
        ("report-1-x", CRONJOB, "report-1"),
        ("web-1-y", DEPLOYMENT, "web-1"),
    ] {
        let cause = cause(&h, "delete", pod);
        assert_eq!(cause.type_, "owner-deleted", "{cause:?}");
        let root = cause
            .root
            .as_ref()
            .unwrap_or_else(|| panic!("no root: {cause:?}"));
        assert_eq!(
            (
                root.user.as_str(),
                root.action.as_str(),
                root.object.name.as_str()
            ),
            (controller, "delete", owner)
        );
    }
}
