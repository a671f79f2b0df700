//! The webhook under faults and load: a lost watch, a second look that does not answer in
//! time, no permit left, a flood of absent owners, 20,000 references, slow and idle
//! connections. Each test names the promise it keeps; the mutations they kill are listed in
//! docs/testing.md.

use super::*;
use crate::admit::graph::Lost;
use std::sync::atomic::{AtomicUsize, Ordering};

fn verdicts(a: &App, verdict: &str) -> f64 {
    a.metrics
        .encode()
        .lines()
        .filter(|l| {
            l.starts_with("kubectl_gc_admit_verdicts_total{")
                && l.contains(&format!("verdict=\"{verdict}\""))
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

fn absent_owner() -> String {
    review_of(
        "admission.k8s.io/v1",
        "CREATE",
        "monitoring",
        "x",
        json!([oref("v1", "ConfigMap", "ghost", "uid-ghost")]),
        None,
    )
}

fn cross_namespace() -> String {
    review_of(
        "admission.k8s.io/v1",
        "CREATE",
        "monitoring",
        "x",
        json!([oref("v1", "ConfigMap", "owner", "uid-ks")]),
        None,
    )
}

fn valid() -> String {
    review_of(
        "admission.k8s.io/v1",
        "CREATE",
        "monitoring",
        "x",
        json!([oref("v1", "ConfigMap", "cfg", "uid-mon")]),
        None,
    )
}

#[test]
fn only_the_gc_the_namespace_controller_and_the_controller_manager_skip_the_checks() {
    // Literal strings, not the constant: a user dropped from it, or misspelt, fails here.
    let users = [
        "system:serviceaccount:kube-system:generic-garbage-collector",
        "system:serviceaccount:kube-system:namespace-controller",
        "system:kube-controller-manager",
    ];
    let mut listed = decide::CONTROL_PLANE_USERS.to_vec();
    listed.sort_unstable();
    let mut expected = users.to_vec();
    expected.sort_unstable();
    assert_eq!(listed, expected);
    let p = Policy::default();
    let body = |user: &str| {
        review_of(
            "admission.k8s.io/v1",
            "UPDATE",
            "monitoring",
            "x",
            json!([oref("v1", "ConfigMap", "ghost", "uid-ghost")]),
            Some(json!([])),
        )
        .replace("\"alice\"", &format!("{user:?}"))
    };
    for user in users {
        assert_eq!(triage(&body(user), &p), Err(Skip::ControlPlane), "{user}");
    }
    for user in [
        "system:serviceaccount:kube-system:generic-garbage-collectorx",
        "system:serviceaccount:default:generic-garbage-collector",
        "system:serviceaccount:kube-system:deployment-controller",
        "system:kube-scheduler",
    ] {
        assert_eq!(triage(&body(user), &p), Ok(vec![0]), "{user}");
    }
}

#[tokio::test]
async fn a_second_look_that_does_not_answer_in_time_admits_what_the_first_look_refused() {
    let graph = Arc::new(engine());
    let limits = Limits {
        timeout: Duration::from_millis(700),
        ..Limits::default()
    };
    // Without interference the first and the second look both find no owner: refused.
    let a = app_with(graph.clone(), Mode::Deny, limits);
    let (_, out) = call(&a, absent_owner()).await;
    assert_eq!(out["response"]["allowed"], false, "{out}");
    // The graph stops answering between the two looks (its lock is held past the deadline).
    let a = app_with(graph.clone(), Mode::Deny, limits);
    let g = graph.clone();
    let blocker = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(80));
        let _held = g.lock_out();
        std::thread::sleep(Duration::from_millis(1200));
    });
    let started = Instant::now();
    let (_, out) = call(&a, absent_owner()).await;
    let took = started.elapsed();
    assert_eq!(out["response"]["allowed"], true, "{out}");
    assert_eq!(verdicts(&a, "timeout"), 1.0, "{}", a.metrics.encode());
    assert!(took < Duration::from_millis(1000), "{took:?}");
    blocker.join().unwrap();
}

#[tokio::test]
async fn overloaded_is_admitted_in_deny_mode_and_a_valid_write_is_never_refused() {
    let graph = Arc::new(engine());
    let limits = Limits {
        timeout: Duration::from_millis(400),
        max_checks: 1,
        max_rechecks: 1,
        ..Limits::default()
    };
    let a = app_with(graph.clone(), Mode::Deny, limits);
    // The one permit taken by a check that cannot read the graph yet.
    let held = LockedOut::new(&graph);
    let first = {
        let a = a.clone();
        tokio::spawn(async move { call(&a, valid()).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (_, out) = call(&a, cross_namespace()).await;
    assert_eq!(
        out["response"]["allowed"], true,
        "overloaded must admit: {out}"
    );
    assert!(verdicts(&a, "overloaded") >= 1.0);
    drop(held);
    let (_, out) = first.await.unwrap();
    assert_eq!(out["response"]["allowed"], true, "{out}");
    // Concurrent valid writes on one permit: each is admitted, checked or not.
    let mut writes = Vec::new();
    for _ in 0..40 {
        let a = a.clone();
        writes.push(tokio::spawn(async move { call(&a, valid()).await }));
    }
    for w in writes {
        let (status, out) = w.await.unwrap();
        assert_eq!(status, 200);
        assert_eq!(out["response"]["allowed"], true, "{out}");
    }
    assert_eq!(verdicts(&a, "denied"), 0.0, "{}", a.metrics.encode());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_absent_owners_leaves_the_other_writes_their_checks() {
    let a = app_with(
        Arc::new(engine()),
        Mode::Warn,
        Limits {
            timeout: Duration::from_secs(2),
            max_checks: 4,
            max_rechecks: 2,
            ..Limits::default()
        },
    );
    // 40 writes naming an absent owner: each waits 250 ms for its second look.
    let mut flood = Vec::new();
    for _ in 0..40 {
        let a = a.clone();
        flood.push(tokio::spawn(async move { call(&a, absent_owner()).await }));
    }
    // While they wait, other writes are checked: the waits hold no permit.
    tokio::time::sleep(Duration::from_millis(120)).await;
    let warned = Arc::new(AtomicUsize::new(0));
    let mut others = Vec::new();
    for _ in 0..8 {
        let (a, warned) = (a.clone(), warned.clone());
        others.push(tokio::spawn(async move {
            let (_, out) = call(&a, cross_namespace()).await;
            let w = out["response"]["warnings"][0].as_str().unwrap_or("");
            if w.contains("kube-system/owner") {
                warned.fetch_add(1, Ordering::Relaxed);
            }
        }));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for o in others {
        o.await.unwrap();
    }
    assert_eq!(warned.load(Ordering::Relaxed), 8, "{}", a.metrics.encode());
    // The flood itself is admitted: judged where a second-look permit was free, unjudged
    // (and said so) where it was not; never refused.
    for f in flood {
        let (_, out) = f.await.unwrap();
        assert_eq!(out["response"]["allowed"], true, "{out}");
    }
}

#[tokio::test]
async fn a_lost_watch_makes_its_references_unknown_until_it_resumes() {
    let graph = Arc::new(engine());
    let deny = app_with(
        graph.clone(),
        Mode::Deny,
        Limits {
            timeout: Duration::from_millis(600),
            ..Limits::default()
        },
    );
    let warn = app_with(graph.clone(), Mode::Warn, deny.limits);
    let configmaps = configmaps(&graph);
    graph.set_lost(
        configmaps,
        Some(Lost {
            since: Instant::now() - Duration::from_secs(20),
            message: "connection refused".into(),
        }),
    );
    // An owner the stale graph does not hold: admitted, not refused.
    let (_, out) = call(&deny, absent_owner()).await;
    assert_eq!(out["response"]["allowed"], true, "{out}");
    assert!(
        deny.metrics
            .encode()
            .contains("verdict=\"unknown\",reason=\"lost-watch\""),
        "{}",
        deny.metrics.encode()
    );
    let (_, out) = call(&warn, absent_owner()).await;
    let w = out["response"]["warnings"][0].as_str().unwrap_or("");
    assert!(
        w.contains(
            "did not judge the ownerReferences this write adds: its watch of configmaps is lost"
        ),
        "{out}"
    );
    // A resource whose watch holds is judged as ever.
    let deployment = review_of(
        "admission.k8s.io/v1",
        "CREATE",
        "monitoring",
        "x",
        json!([oref("apps/v1", "Deployment", "gone", "uid-gone")]),
        None,
    );
    let (_, out) = call(&deny, deployment).await;
    assert_eq!(out["response"]["allowed"], false, "{out}");
    // Not ready past the grace; the metric names the resource.
    let health = graph.health();
    assert!(!health.ready(Duration::from_secs(10)), "{health:?}");
    assert!(health.ready(Duration::from_secs(60)), "{health:?}");
    deny.metrics.graph_health(&health);
    assert!(
        deny.metrics
            .encode()
            .contains("kubectl_gc_admit_graph_lost_watch_seconds{resource=\"configmaps\"} 20."),
        "{}",
        deny.metrics.encode()
    );
    // Resumed: judged again, ready again.
    graph.set_lost(configmaps, None);
    let (_, out) = call(&deny, absent_owner()).await;
    assert_eq!(out["response"]["allowed"], false, "{out}");
    assert!(graph.health().ready(Duration::from_secs(10)));
}

/// A cluster with `n` ConfigMaps `o-<i>` in namespace `big`.
fn big(n: usize) -> Graph {
    let mut c = cluster();
    for i in 0..n {
        c.obj(
            "v1",
            "ConfigMap",
            "big",
            &format!("o-{i}"),
            &format!("uid-o-{i}"),
        );
    }
    Graph::from_snapshot(c.build(), None)
}

fn refs(n: usize, name: impl Fn(usize) -> String) -> Value {
    Value::Array(
        (0..n)
            .map(|i| oref("v1", "ConfigMap", &name(i), &format!("uid-o-{i}")))
            .collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_thousand_references_are_answered_in_time_while_small_reviews_stay_fast() {
    const N: usize = 20_000;
    let graph = Arc::new(big(N));
    let a = app_with(graph, Mode::Warn, Limits::default());
    let valid_refs = refs(N, |i| format!("o-{i}"));
    // CREATE: 20,000 owners, every one found.
    let create = review_of(
        "admission.k8s.io/v1",
        "CREATE",
        "big",
        "x",
        valid_refs.clone(),
        None,
    );
    // UPDATE of 20,000 to 20,000: the last reference renamed, so it is the one added (and it
    // names no owner).
    let mut renamed = valid_refs.clone();
    renamed[N - 1]["name"] = json!("nobody");
    let update = review_of(
        "admission.k8s.io/v1",
        "UPDATE",
        "big",
        "x",
        renamed,
        Some(valid_refs.clone()),
    );
    let large = {
        let a = a.clone();
        tokio::spawn(async move {
            let t = Instant::now();
            let c = call(&a, create).await;
            let u = call(&a, update).await;
            (c, u, t.elapsed())
        })
    };
    // Small reviews meanwhile: answered as fast as ever.
    let mut slowest = Duration::ZERO;
    for _ in 0..20 {
        let t = Instant::now();
        let (_, out) = call(&a, cross_namespace()).await;
        slowest = slowest.max(t.elapsed());
        assert!(out["response"]["warnings"][0].is_string(), "{out}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let ((_, created), (_, updated), took) = large.await.unwrap();
    assert_eq!(created["response"]["allowed"], true, "{created}");
    assert_eq!(created["response"]["warnings"], Value::Null, "{created}");
    let w = updated["response"]["warnings"].as_array().expect("warned");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].as_str().unwrap().contains("ConfigMap \"nobody\""),
        "{w:?}"
    );
    assert!(
        took < Duration::from_secs(4),
        "two large reviews took {took:?}"
    );
    assert!(
        slowest < Duration::from_millis(500),
        "a small review took {slowest:?}"
    );
    assert_eq!(verdicts(&a, "timeout"), 0.0, "{}", a.metrics.encode());
}

#[test]
fn a_write_with_thousands_of_broken_references_is_described_in_a_few() {
    let g = big(0);
    let p = problems(&g, "big", refs(5_000, |i| format!("ghost-{i}")));
    assert_eq!(p.len(), decide::MAX_PROBLEMS + 1, "{p:#?}");
    assert!(
        p.last()
            .unwrap()
            .starts_with("4992 more ownerReferences of this write the GC will act on"),
        "{p:#?}"
    );
    // Conflicting duplicates among thousands are still found (in linear time).
    let mut r = refs(5_000, |i| format!("o-{i}"));
    r.as_array_mut()
        .unwrap()
        .push(oref("v1", "ConfigMap", "o-typo", "uid-o-4321"));
    let g = big(5_000);
    let p = problems(&g, "big", r);
    assert!(
        p.iter()
            .any(|m| m.starts_with("Two ownerReferences name uid uid-o-4321")),
        "{p:#?}"
    );
}

/// A request over a fresh plain connection (`Connection: close`): status and body.
async fn post(addr: std::net::SocketAddr, path: &str, body: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.expect("write");
    s.write_all(body.as_bytes()).await.expect("write");
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out).await;
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    (status, body)
}

/// What the server sends on `s` within `wait` (empty: nothing, or closed).
async fn answer_on(s: &mut tokio::net::TcpStream, wait: Duration) -> String {
    use tokio::io::AsyncReadExt;
    let mut buf = vec![0u8; 4096];
    match tokio::time::timeout(wait, s.read(&mut buf)).await {
        Ok(Ok(n)) => String::from_utf8_lossy(&buf[..n]).into_owned(),
        _ => String::new(),
    }
}

fn counter(a: &App, line: &str) -> f64 {
    a.metrics
        .encode()
        .lines()
        .filter(|l| l.starts_with(line))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_idle_connections_make_room_for_new_ones_and_a_slow_body_times_out() {
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let a = app_with(
        Arc::new(engine()),
        Mode::Warn,
        Limits {
            timeout: Duration::from_millis(600),
            max_connections: 4,
            slow_body: Duration::from_millis(100),
            ..Limits::default()
        },
    );
    let server = tokio::spawn(crate::admit::conns::serve(listener, None, a.clone()));
    // Slowloris: four connections send whole headers, then one byte of a 1 MB body.
    let mut slow = Vec::new();
    for _ in 0..4 {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(
            b"POST /validate HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\
              Content-Length: 1000000\r\n\r\n{",
        )
        .await
        .unwrap();
        slow.push(s);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Every place is taken, by slow bodies: a review still gets through.
    let (status, body) = post(addr, "/validate", &cross_namespace()).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("kube-system/owner"), "{body}");
    assert!(
        counter(
            &a,
            "kubectl_gc_admit_connections_shed_total{phase=\"slow-body\"}"
        ) >= 1.0,
        "{}",
        a.metrics.encode()
    );
    // Those not shed are answered 408 once their deadline passes; the shed ones are closed.
    let mut timed_out = 0;
    for s in &mut slow {
        let got = answer_on(s, Duration::from_secs(2)).await;
        assert!(got.is_empty() || got.starts_with("HTTP/1.1 408"), "{got}");
        timed_out += usize::from(!got.is_empty());
    }
    assert!(timed_out >= 1, "no slow body was timed out");
    // Idle connections (nothing sent) make room too, and so does a TLS-less HTTP/2 preface.
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(tokio::net::TcpStream::connect(addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (status, _) = post(addr, "/validate", &valid()).await;
    assert_eq!(status, 200);
    assert!(
        counter(
            &a,
            "kubectl_gc_admit_connections_shed_total{phase=\"idle\"}"
        ) >= 1.0
    );
    let mut h2 = tokio::net::TcpStream::connect(addr).await.unwrap();
    h2.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .unwrap();
    let got = answer_on(&mut h2, Duration::from_secs(2)).await;
    assert!(!got.starts_with("HTTP/2"), "{got}");
    server.abort();
}
