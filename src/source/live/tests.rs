//! The live source against a scripted API server: discovery and lists pipelined, the
//! resource table's order, failed discovery, request timeouts.

use super::*;
use std::time::Instant;
use testserver::{Reply, Script, Server};

fn kubeconfig_for(dir: &tempfile::TempDir, server: &str) -> PathBuf {
    let path = dir.path().join("kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\n\
             clusters: [{{name: k, cluster: {{server: \"{server}\"}}}}]\n\
             users: [{{name: u, user: {{token: t}}}}]\n\
             contexts: [{{name: c, context: {{cluster: k, user: u}}}}]\n"
        ),
    )
    .unwrap();
    path
}

const ALL_VERBS: &str = r#"["create","delete","get","list","watch"]"#;

/// An API server with the core group (ConfigMaps: `child`, owned by Widget `w`) and the
/// group `widgets.example.com` (Widgets: `w`). `slow_path`'s answer is `slow_reply`
/// (`None`: the normal answer) after `delay`.
async fn widget_server(
    slow_path: &'static str,
    slow_reply: Option<Reply>,
    delay: Duration,
) -> Server {
    Server::start(Script::Answer(Box::new(move |req, _| {
        let path = req.line.trim_start_matches("GET ");
        let path = path.split('?').next().unwrap_or_default();
        let json = |body: String| Reply::ok("application/json", body.as_bytes());
        let reply = match path {
            "/api" => json(r#"{"versions":["v1"]}"#.into()),
            "/apis" => json(
                r#"{"groups":[{"name":"widgets.example.com","versions":[{"version":"v1"}],
                    "preferredVersion":{"version":"v1"}}]}"#
                    .into(),
            ),
            "/api/v1" => json(format!(
                r#"{{"resources":[{{"name":"configmaps","namespaced":true,"kind":"ConfigMap","verbs":{ALL_VERBS}}}]}}"#
            )),
            "/apis/widgets.example.com/v1" => json(format!(
                r#"{{"resources":[{{"name":"widgets","namespaced":true,"kind":"Widget","verbs":{ALL_VERBS}}}]}}"#
            )),
            "/api/v1/configmaps" => json(
                r#"{"metadata":{},"items":[{"metadata":{"name":"child","namespace":"ns","uid":"cuid",
                    "ownerReferences":[{"apiVersion":"widgets.example.com/v1","kind":"Widget","name":"w","uid":"wuid"}]}}]}"#
                    .into(),
            ),
            "/apis/widgets.example.com/v1/widgets" => json(
                r#"{"metadata":{},"items":[{"metadata":{"name":"w","namespace":"ns","uid":"wuid"}}]}"#
                    .into(),
            ),
            "/api/v1/namespaces" | "/apis/apiregistration.k8s.io/v1/apiservices" => {
                json(r#"{"items":[]}"#.into())
            }
            _ => Reply::status(404, "NotFound"),
        };
        if path == slow_path {
            slow_reply.clone().unwrap_or(reply).after(delay)
        } else {
            reply
        }
    })))
    .await
}

fn connection_to(server: &Server) -> Connection {
    Connection {
        client: server.client(),
        context: None,
        default_namespace: "default".into(),
        server_url: server.url.clone(),
        server_version: Some("v1.20.2".into()),
        request_timeout: Some(Duration::from_secs(10)),
    }
}

/// When the server first saw a request for `path` (any query).
fn first_seen(server: &Server, path: &str) -> Instant {
    server
        .requests()
        .iter()
        .find(|r| {
            let p = r.line.trim_start_matches("GET ");
            p.split('?').next() == Some(path)
        })
        .unwrap_or_else(|| panic!("no request for {path}"))
        .at
}

fn plurals(snap: &Snapshot) -> Vec<(&str, &ListOutcome)> {
    snap.resources
        .iter()
        .map(|r| (r.plural.as_str(), &r.list))
        .collect()
}

#[tokio::test]
async fn lists_begin_while_another_groups_discovery_is_still_out() {
    let delay = Duration::from_millis(1500);
    let server = widget_server("/apis/widgets.example.com/v1", None, delay).await;
    let snap = snapshot(&connection_to(&server), &LiveOptions::default(), &|_| {})
        .await
        .unwrap();
    // The core group's lists do not wait for the slow group's document.
    let slow_doc = first_seen(&server, "/apis/widgets.example.com/v1");
    let configmaps = first_seen(&server, "/api/v1/configmaps");
    assert!(
        configmaps < slow_doc + delay / 2,
        "configmaps listed {:?} after the slow document was asked for",
        configmaps.saturating_duration_since(slow_doc)
    );
    assert_eq!(
        plurals(&snap),
        [
            ("configmaps", &ListOutcome::Complete),
            ("widgets", &ListOutcome::Complete)
        ]
    );
    assert_eq!(snap.store.len(), 2);
    assert!(snap.discovery_failures.is_empty());
}

#[tokio::test]
async fn the_resource_table_keeps_the_servers_order_whichever_document_comes_first() {
    // The core group's document comes last: the widgets' rows are added first.
    let server = widget_server("/api/v1", None, Duration::from_millis(400)).await;
    let snap = snapshot(&connection_to(&server), &LiveOptions::default(), &|_| {})
        .await
        .unwrap();
    assert!(
        first_seen(&server, "/apis/widgets.example.com/v1/widgets")
            < first_seen(&server, "/api/v1/configmaps")
    );
    assert_eq!(
        plurals(&snap),
        [
            ("configmaps", &ListOutcome::Complete),
            ("widgets", &ListOutcome::Complete)
        ]
    );
    // Objects follow their rows, in the table's order.
    let objects: Vec<(String, String)> = snap
        .store
        .ids()
        .map(|id| {
            let o = snap.store.object(id);
            (
                snap.resource_of(o).kind.clone(),
                snap.store.str(o.name).to_owned(),
            )
        })
        .collect();
    assert_eq!(
        objects,
        [
            ("ConfigMap".to_owned(), "child".to_owned()),
            ("Widget".to_owned(), "w".to_owned())
        ]
    );
}

#[tokio::test]
async fn a_group_whose_discovery_fails_leaves_its_kinds_unknown_while_others_are_listed() {
    // 503 is retried (backoff from 250 ms): the lists go on meanwhile.
    let server = widget_server(
        "/apis/widgets.example.com/v1",
        Some(Reply::status(503, "ServiceUnavailable")),
        Duration::ZERO,
    )
    .await;
    let snap = snapshot(&connection_to(&server), &LiveOptions::default(), &|_| {})
        .await
        .unwrap();
    let failed: Vec<&str> = snap
        .discovery_failures
        .iter()
        .map(|f| f.group_version.as_str())
        .collect();
    assert_eq!(failed, ["widgets.example.com/v1"]);
    assert!(snap.discovery_failures[0].message.contains("503"));
    assert_eq!(plurals(&snap), [("configmaps", &ListOutcome::Complete)]);
    let doc_requests: Vec<Instant> = server
        .requests()
        .iter()
        .filter(|r| r.line == "GET /apis/widgets.example.com/v1")
        .map(|r| r.at)
        .collect();
    assert!(doc_requests.len() > 1, "retried: {}", doc_requests.len());
    // The core group was listed while the failing document was being retried.
    assert!(
        doc_requests
            .last()
            .is_some_and(|&last| first_seen(&server, "/api/v1/configmaps") < last)
    );
    // The failure is what makes the child's owner unknown, never dangling, in the
    // analysis (`gc::tests::scenarios::discovery_failure_makes_the_group_unknown_not_unresolvable`;
    // `source` does not import `gc`): the child is in the snapshot, its owner's group is not.
    let child = snap
        .store
        .ids()
        .find(|&id| snap.store.str(snap.store.object(id).name) == "child");
    assert!(child.is_some());
    assert!(
        snap.resources
            .iter()
            .all(|r| r.group != "widgets.example.com")
    );
}

#[tokio::test]
async fn a_silent_server_ends_the_run_after_one_request_timeout() {
    let server = Server::start(Script::Silent).await;
    let dir = tempfile::tempdir().unwrap();
    let opts = ConnectOptions {
        kubeconfig: Some(kubeconfig_for(&dir, &server.url)),
        request_timeout: Some(Duration::from_millis(800)),
        ..ConnectOptions::default()
    };
    let t = Instant::now();
    let err = connect(&opts).await.expect_err("nobody answers");
    let elapsed = t.elapsed();
    assert!(
        elapsed >= Duration::from_millis(800) && elapsed < Duration::from_millis(2500),
        "one timeout, no retry: {elapsed:?}"
    );
    assert_eq!(
        server.requests().len(),
        1,
        "the first request is not retried"
    );
    assert_eq!(*server.connections.lock().unwrap(), 1);
    let Error::Cluster { message, hint } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        message,
        &format!(
            "no answer from {} (context \"c\"): timed out after 800ms",
            server.url
        )
    );
    assert!(hint.as_deref().unwrap().contains("--request-timeout"));
    assert_eq!(err.exit_code(), crate::error::exit::CLUSTER);
}

#[tokio::test]
async fn the_request_timeout_defaults_to_tens_of_seconds() {
    let server = Server::start(Script::Answer(Box::new(|_, _| {
        Reply::ok("application/json", br#"{"gitVersion":"v1.20.2"}"#)
    })))
    .await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = Some(kubeconfig_for(&dir, &server.url));
    let conn = connect(&ConnectOptions {
        kubeconfig: kubeconfig.clone(),
        ..ConnectOptions::default()
    })
    .await
    .unwrap();
    assert_eq!(conn.request_timeout, Some(DEFAULT_REQUEST_TIMEOUT));
    assert!((10..=60).contains(&DEFAULT_REQUEST_TIMEOUT.as_secs()));
    assert_eq!(conn.server_version.as_deref(), Some("v1.20.2"));
    // kubectl's `--request-timeout 0`: no limit.
    let conn = connect(&ConnectOptions {
        kubeconfig,
        request_timeout: Some(Duration::ZERO),
        ..ConnectOptions::default()
    })
    .await
    .unwrap();
    assert_eq!(conn.request_timeout, None);
}
