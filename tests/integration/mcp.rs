//! `kubectl gc mcp` driven by rmcp's own client over stdio, as an agent host drives it: the
//! handshake and the tool list, the same documents as the CLI on `examples/`, and every bad
//! argument answered as a tool error while the server stays up. No cluster: the live half
//! (planId, apply_plan) is `tests/live/mcp.rs`.

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-gc");

type Client = RunningService<RoleClient, ()>;

fn examples() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")).unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A server started as an agent host starts it, with `flags`, its root `root`.
async fn start(root: &Path, flags: &[&str]) -> Client {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.arg("mcp")
        .arg("--root")
        .arg(root)
        .args(flags)
        .env("KUBECONFIG", "/nonexistent-kubeconfig");
    let transport = rmcp::transport::TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
        .0;
    ().serve(transport).await.expect("the MCP handshake")
}

fn args(v: Value) -> Map<String, Value> {
    let Value::Object(m) = v else { panic!("{v}") };
    m
}

async fn call(c: &Client, tool: &str, a: Value) -> CallToolResult {
    c.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args(a)))
        .await
        .unwrap_or_else(|e| panic!("{tool}: a protocol error instead of a result: {e}"))
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The tool error of `r` (it must be one).
fn tool_error(r: &CallToolResult) -> String {
    assert_eq!(r.is_error, Some(true), "not an error: {}", text(r));
    assert!(r.structured_content.is_none());
    text(r)
}

/// The CLI's own `-o json` document for `argv`.
fn cli(argv: &[&str]) -> Value {
    let o = Command::new(BIN)
        .args(argv)
        .env("KUBECONFIG", "/nonexistent-kubeconfig")
        .output()
        .unwrap();
    assert!(
        o.status.code().is_some_and(|c| c == 0 || c == 5),
        "{argv:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn validate(tool: &Tool, doc: &Value) {
    let schema = Value::Object((*tool.output_schema.clone().expect("an output schema")).clone());
    let v = jsonschema::validator_for(&schema).expect("a valid output schema");
    let errors: Vec<String> = v.iter_errors(doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{}: {errors:?}", tool.name);
}

const READ_TOOLS: [&str; 8] = [
    "audit",
    "why",
    "delete_preview",
    "plan",
    "history",
    "graph",
    "check_restart",
    "check_apply",
];

#[test]
fn handshake_and_tool_list_read_only_unless_apply_is_allowed() {
    runtime().block_on(async {
        let c = start(&examples(), &[]).await;
        let info = c.peer_info().expect("the server's initialize result");
        assert_eq!(info.server_info.as_ref().unwrap().name, "kubectl-gc");
        assert!(info.capabilities.tools.is_some());
        let tools = c.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, READ_TOOLS);
        for t in &tools {
            let a = t.annotations.as_ref().expect("annotations");
            assert_eq!(a.read_only_hint, Some(true), "{}", t.name);
            assert_eq!(a.destructive_hint, Some(false), "{}", t.name);
            assert!(
                t.description.as_ref().is_some_and(|d| d.len() > 200),
                "{}",
                t.name
            );
            assert_eq!(t.input_schema["additionalProperties"], json!(false));
            let out = t.output_schema.as_ref().expect("output schema");
            assert_eq!(out["type"], "object", "{}", t.name);
        }
        c.cancel().await.unwrap();

        let c = start(&examples(), &["--allow-apply"]).await;
        let tools = c.list_all_tools().await.unwrap();
        let apply = tools
            .iter()
            .find(|t| t.name == "apply_plan")
            .expect("apply_plan");
        let a = apply.annotations.as_ref().unwrap();
        assert_eq!(a.read_only_hint, Some(false));
        assert_eq!(a.destructive_hint, Some(true));
        assert_eq!(apply.input_schema["required"], json!(["plan_id"]));
        c.cancel().await.unwrap();
    });
}

#[test]
fn help_documents_every_tool() {
    let o = Command::new(BIN).args(["mcp", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    for name in READ_TOOLS.iter().chain(["apply_plan"].iter()) {
        assert!(
            help.contains(&format!("  {name} — ")),
            "{name} missing from:\n{help}"
        );
    }
    assert!(
        help.contains("--allow-apply") && help.contains("--root"),
        "{help}"
    );
}

/// Each tool's structuredContent is the CLI's `-o json` document for the same input, and
/// validates against the tool's output schema; the text leads with a summary.
#[test]
fn answers_are_the_cli_documents() {
    let ex = examples();
    let p = |f: &str| ex.join(f).display().to_string();
    let snap = p("gc-lag-snapshot.json");
    let cases: Vec<(&str, Value, Vec<String>)> = vec![
        (
            "audit",
            json!({"snapshot": "gc-lag-snapshot.json", "all_namespaces": true}),
            vec![
                "audit".into(),
                "--snapshot".into(),
                snap.clone(),
                "-A".into(),
            ],
        ),
        (
            "audit",
            json!({"files": ["shop-kubectl-get.yaml"], "all_namespaces": true}),
            vec![
                "audit".into(),
                "-f".into(),
                p("shop-kubectl-get.yaml"),
                "-A".into(),
            ],
        ),
        (
            "why",
            json!({"snapshot": "gc-lag-snapshot.json", "namespace": "shop", "object": "configmap/session-cache"}),
            vec![
                "why".into(),
                "--snapshot".into(),
                snap.clone(),
                "-n".into(),
                "shop".into(),
                "configmap/session-cache".into(),
            ],
        ),
        (
            "delete_preview",
            json!({"snapshot": "gc-lag-snapshot.json", "namespace": "shop", "object": "deployment/web", "cascade": "foreground"}),
            vec![
                "collect".into(),
                "--snapshot".into(),
                snap.clone(),
                "-n".into(),
                "shop".into(),
                "--delete".into(),
                "deployment/web".into(),
                "--cascade".into(),
                "foreground".into(),
            ],
        ),
        (
            "plan",
            json!({"snapshot": "gc-lag-snapshot.json", "all_namespaces": true}),
            vec![
                "collect".into(),
                "--snapshot".into(),
                snap.clone(),
                "-A".into(),
            ],
        ),
        (
            "graph",
            json!({"snapshot": "gc-lag-snapshot.json", "namespace": "shop", "objects": ["deployment/web"]}),
            vec![
                "graph".into(),
                "--snapshot".into(),
                snap.clone(),
                "-n".into(),
                "shop".into(),
                "deployment/web".into(),
            ],
        ),
        (
            "check_restart",
            json!({"snapshot": "gc-lag-snapshot.json", "all_namespaces": true}),
            vec![
                "check".into(),
                "restart".into(),
                "--snapshot".into(),
                snap.clone(),
                "-A".into(),
            ],
        ),
        (
            "history",
            json!({"audit_logs": ["audit-shop.log"], "snapshot": "audit-shop-before.ndjson"}),
            vec![
                "history".into(),
                "--audit-log".into(),
                p("audit-shop.log"),
                "--snapshot".into(),
                p("audit-shop-before.ndjson"),
            ],
        ),
        (
            "check_apply",
            json!({"manifests": ["export.yaml"], "target": "empty"}),
            vec![
                "check".into(),
                "apply".into(),
                "-f".into(),
                p("export.yaml"),
                "--target".into(),
                "empty".into(),
            ],
        ),
    ];
    runtime().block_on(async {
        let c = start(&ex, &[]).await;
        let tools = c.list_all_tools().await.unwrap();
        for (tool, a, argv) in cases {
            let r = call(&c, tool, a).await;
            assert_ne!(r.is_error, Some(true), "{tool}: {}", text(&r));
            let got = r.structured_content.clone().expect("structuredContent");
            let mut argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            argv.extend(["-o", "json"]);
            let mut want = cli(&argv);
            let mut got_cmp = got.clone();
            // The time a file input was read at is the only thing two runs may differ in.
            for d in [&mut want, &mut got_cmp] {
                if let Some(s) = d.get_mut("source").and_then(Value::as_object_mut)
                    && s.get("source") == Some(&json!("files"))
                {
                    s.remove("capturedAt");
                }
            }
            assert_eq!(got_cmp, want, "{tool}: not the CLI's document");
            validate(tools.iter().find(|t| t.name == tool).unwrap(), &got);
            let summary = text(&r);
            assert!(
                !summary.starts_with('{'),
                "{tool}: no summary first: {summary}"
            );
        }
        c.cancel().await.unwrap();
    });
}

#[test]
fn bad_arguments_are_tool_errors_and_the_server_stays_up() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::copy(
        examples().join("gc-lag-snapshot.json"),
        root.path().join("snap.json"),
    )
    .unwrap();
    std::fs::write(outside.path().join("secret.json"), "{}").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.json"),
        root.path().join("link.json"),
    )
    .unwrap();
    std::fs::create_dir(root.path().join("dir")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.json"),
        root.path().join("dir/inner"),
    )
    .unwrap();
    let secret = outside.path().join("secret.json").display().to_string();
    let cases: Vec<(&str, Value, &str)> = vec![
        ("audit", json!({"snapshot": "missing.json"}), "no such file"),
        ("audit", json!({"snapshot": "../x/secret.json"}), "--root"),
        (
            "audit",
            json!({"snapshot": secret}),
            "outside the server's --root",
        ),
        (
            "audit",
            json!({"snapshot": "/etc/passwd"}),
            "outside the server's --root",
        ),
        (
            "audit",
            json!({"snapshot": "link.json"}),
            "outside the server's --root",
        ),
        (
            "audit",
            json!({"files": ["dir"]}),
            "leads outside the server's --root",
        ),
        (
            "audit",
            json!({"files": ["*.json"]}),
            "patterns are not expanded",
        ),
        ("audit", json!({"snapshot": "-"}), "standard input"),
        (
            "audit",
            json!({"snapshot": "snap.json", "files": ["snap.json"]}),
            "not both",
        ),
        (
            "audit",
            json!({"snapshot": "snap.json", "cascade": "orphan"}),
            "not an argument of audit",
        ),
        ("audit", json!({"bogus": 1}), "not an argument of audit"),
        (
            "why",
            json!({"snapshot": "snap.json"}),
            "why needs `object`",
        ),
        (
            "why",
            json!({"snapshot": "snap.json", "object": "--kubeconfig=/etc/passwd"}),
            "starts with '-'",
        ),
        (
            "why",
            json!({"snapshot": "snap.json", "object": "configmap/nope", "namespace": "shop"}),
            "not",
        ),
        (
            "delete_preview",
            json!({"snapshot": "snap.json", "object": "deployment/web", "cascade": "sideways"}),
            "expected one of",
        ),
        (
            "audit",
            json!({"snapshot": "snap.json", "namespace": "shop", "all_namespaces": true}),
            "not both",
        ),
        (
            "audit",
            json!({"snapshot": "snap.json", "context": "prod"}),
            "reads files",
        ),
        (
            "apply_plan",
            json!({"plan_id": "plan-00000000000000000000000000000000"}),
            "without --allow-apply",
        ),
        (
            "audit",
            json!({"continuation": "page-nope"}),
            "unknown or spent continuation",
        ),
    ];
    runtime().block_on(async {
        let c = start(root.path(), &[]).await;
        for (tool, a, expect) in cases {
            let e = tool_error(&call(&c, tool, a.clone()).await);
            assert!(
                e.contains(expect),
                "{tool} {a}: {e:?} does not say {expect:?}"
            );
            assert!(
                !e.contains(&secret) || expect == "outside the server's --root",
                "{e}"
            );
        }
        // Still up, still answering.
        let r = call(
            &c,
            "audit",
            json!({"snapshot": "snap.json", "all_namespaces": true}),
        )
        .await;
        assert_ne!(r.is_error, Some(true), "{}", text(&r));
        c.cancel().await.unwrap();
    });
}

/// A file that is not what the tool reads is refused with the command's cause, and nothing
/// of what the file holds reaches the agent.
#[test]
fn errors_never_echo_file_content() {
    let root = tempfile::tempdir().unwrap();
    let token = "SECRET-9f8e7d6c5b4a";
    std::fs::write(
        root.path().join("notes.txt"),
        format!("{token}:x:0:0:root:/root:/bin/bash\npassword: {token}\n"),
    )
    .unwrap();
    std::fs::write(
        root.path().join("bad.yaml"),
        format!("token: {token}\nfoo: [\n"),
    )
    .unwrap();
    let calls = [
        ("audit", json!({"snapshot": "notes.txt"})),
        ("audit", json!({"files": ["notes.txt"]})),
        ("audit", json!({"files": ["bad.yaml"]})),
        ("history", json!({"audit_logs": ["notes.txt"]})),
        ("history", json!({"audit_logs": ["bad.yaml"]})),
        (
            "check_apply",
            json!({"manifests": ["bad.yaml"], "target": "empty"}),
        ),
        ("why", json!({"object": "pod/x", "files": ["bad.yaml"]})),
    ];
    runtime().block_on(async {
        let c = start(root.path(), &[]).await;
        for (tool, a) in calls {
            let e = tool_error(&call(&c, tool, a.clone()).await);
            assert!(!e.contains("SECRET"), "{tool} {a}: {e}");
            assert!(e.len() > 20, "{tool} {a}: no cause in {e:?}");
        }
        c.cancel().await.unwrap();
    });
}

/// An answer over --max-answer-size comes in pages that together hold the whole document.
#[test]
fn large_answers_come_in_pages_that_add_up_to_the_document() {
    let ex = examples();
    runtime().block_on(async {
        let c = start(&ex, &["--max-answer-size", "1Ki"]).await;
        let a = json!({"audit_logs": ["audit-shop.log"], "snapshot": "audit-shop-before.ndjson"});
        let mut r = call(&c, "history", a).await;
        let whole = cli(&[
            "history",
            "--audit-log",
            &ex.join("audit-shop.log").display().to_string(),
            "--snapshot",
            &ex.join("audit-shop-before.ndjson").display().to_string(),
            "-o",
            "json",
        ]);
        let mut items: Vec<Value> = Vec::new();
        let mut pages = 0;
        loop {
            let doc = r.structured_content.clone().expect("a page");
            pages += 1;
            // Over the cap only when one item alone is larger.
            let size = serde_json::to_vec(&doc).unwrap().len();
            let n = doc["items"].as_array().unwrap().len();
            assert!(
                size <= 1024 || n == 1,
                "page {pages}: {size} bytes, {n} items"
            );
            assert_eq!(doc["summary"], whole["summary"]);
            items.extend(doc["items"].as_array().unwrap().iter().cloned());
            let Some(token) = doc["continuation"]["token"].as_str() else {
                break;
            };
            r = call(&c, "history", json!({"continuation": token})).await;
        }
        assert!(pages > 1, "one page only");
        assert_eq!(&Value::Array(items), &whole["items"]);
        c.cancel().await.unwrap();
    });
}

#[test]
fn a_call_past_the_time_limit_is_stopped_and_the_server_answers_the_next() {
    let ex = examples();
    runtime().block_on(async {
        let c = start(&ex, &["--timeout", "1ms"]).await;
        let e = tool_error(&call(&c, "audit", json!({"snapshot": "gc-lag-snapshot.json"})).await);
        assert!(e.contains("time limit"), "{e}");
        let e = tool_error(&call(&c, "audit", json!({"snapshot": "missing.json"})).await);
        assert!(e.contains("no such file"), "{e}");
        c.cancel().await.unwrap();
    });
}

/// `--listen`: loopback only, and nothing without the bearer token.
#[test]
fn http_needs_loopback_and_the_bearer_token() {
    let o = Command::new(BIN)
        .args(["mcp", "--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("loopback"));

    let token_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(token_file.path(), "tok-0123456789abcdef\n").unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new(BIN)
        .args([
            "mcp",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--token-file",
        ])
        .arg(token_file.path())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let post = |auth: Option<&str>| -> String {
        use std::io::{Read, Write};
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        for _ in 0..100 {
            let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
                std::thread::sleep(std::time::Duration::from_millis(100));
                continue;
            };
            let auth = auth
                .map(|a| format!("Authorization: Bearer {a}\r\n"))
                .unwrap_or_default();
            write!(s, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
            let mut out = String::new();
            let _ = s.read_to_string(&mut out);
            return out;
        }
        panic!("the server never listened");
    };
    let none = post(None);
    let wrong = post(Some("tok-0123456789abcdeX"));
    let right = post(Some("tok-0123456789abcdef"));
    let _ = server.kill();
    let _ = server.wait();
    assert!(none.starts_with("HTTP/1.1 401"), "{none}");
    assert!(wrong.starts_with("HTTP/1.1 401"), "{wrong}");
    assert!(right.starts_with("HTTP/1.1 200"), "{right}");
    assert!(right.contains("kubectl-gc"), "{right}");
}
