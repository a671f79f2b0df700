//! What the reader counts (events read, their levels, what it skipped and why), the same
//! request read twice, the 2017-era events with one `timestamp`, YAML documents, and input
//! that holds no audit event.

use super::*;

/// `text` with its `stageTimestamp` set to `t`.
fn at(text: &str, t: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let old = v["stageTimestamp"].as_str().unwrap().to_owned();
    text.replace(
        &format!("\"stageTimestamp\":\"{old}\""),
        &format!("\"stageTimestamp\":\"{t}\""),
    )
}

#[test]
fn a_log_and_its_gz_count_each_request_once() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, gz) = (
        dir.path().join("audit.log"),
        dir.path().join("audit.log.1.gz"),
    );
    std::fs::write(&plain, log()).unwrap();
    std::fs::write(&gz, gzip(log().as_bytes())).unwrap();
    let (events, stats) = read_paths(&[plain.clone(), gz]).unwrap();
    // log(): four final events (the GC's delete, its 404 owner read, a 200 read, a lease
    // update), three of them passed on; the second input repeats all four.
    assert_eq!(stats.events, 4);
    assert_eq!(stats.duplicates, 4);
    assert_eq!(stats.passed, 3);
    assert_eq!(events.len(), 3);
    assert!(
        events
            .iter()
            .all(|e| e.position.source.ends_with("audit.log"))
    );
    assert_eq!(stats.skipped().get("duplicate"), Some(&4));
    // The same file named twice, too.
    let (events, stats) = read_paths(&[plain.clone(), plain]).unwrap();
    assert_eq!((stats.events, stats.duplicates, events.len()), (4, 4, 3));
}

#[test]
fn duplicates_are_dropped_when_blocks_are_parsed_on_other_threads() {
    let dir = tempfile::tempdir().unwrap();
    // 300 distinct requests, then the same 300 again, in one input.
    let one: Vec<String> = (0..300)
        .map(|i| GC_DELETE.replace("cart-config", &format!("cm-{i}")))
        .collect();
    let text = format!("{}\n{}\n", one.join("\n"), one.join("\n"));
    let path = dir.path().join("twice.log");
    std::fs::write(&path, &text).unwrap();
    for p in [
        Parallel {
            workers: 1,
            ..Parallel::default()
        },
        Parallel {
            workers: 3,
            after: 1,
            block: 2048,
        },
    ] {
        let (events, stats) = read_parallel(&path, p);
        assert_eq!(
            (stats.events, stats.duplicates, stats.passed, events.len()),
            (300, 300, 300, 300),
            "{p:?}"
        );
        assert_eq!(events.last().unwrap().position.line, 300, "{p:?}");
    }
}

#[test]
fn an_audit_id_a_client_reused_for_another_request_is_no_duplicate() {
    // kube-apiserver takes the auditID from the client's Audit-ID header: two deletes a
    // second apart with one ID are two requests.
    let second = at(GC_DELETE, "2026-11-26T01:49:46.123456Z");
    let (events, stats) = read_bytes("audit.log", format!("{GC_DELETE}\n{second}\n").as_bytes());
    assert_eq!((stats.events, stats.duplicates, events.len()), (2, 0, 2));
}

#[test]
fn levels_are_counted_on_every_event_read_not_only_those_passed_on() {
    // A RequestResponse read answered 200 is never passed on; its level still shows what the
    // policy records.
    let rr_read = GET_200.replace("\"level\":\"Metadata\"", "\"level\":\"RequestResponse\"");
    let text = format!("{GC_DELETE}\n{rr_read}\n{LEASE}\n");
    let (events, stats) = read_bytes("audit.log", text.as_bytes());
    assert_eq!(events.len(), 2);
    assert_eq!(stats.levels.get(&Level::Metadata), Some(&2));
    assert_eq!(stats.levels.get(&Level::RequestResponse), Some(&1));
}

#[test]
fn skipped_counts_lost_records_not_events_read_with_a_cut_field() {
    let long = GC_DELETE.replace("cart-config", &"x".repeat(20 << 10));
    let text = format!("{GC_DELETE}\nnot json\n{{\"auditID\":\"x\"\n{long}\n");
    let (events, stats) = read_bytes("audit.log", text.as_bytes());
    // The cut one is read (a problem, not a loss); the two broken lines are lost.
    assert_eq!(events.len(), 2);
    assert_eq!(stats.partial, 1);
    assert_eq!(stats.problems.len(), 3, "{:?}", stats.problems);
    assert_eq!(
        stats.skipped().into_iter().collect::<Vec<_>>(),
        vec![("unreadable", 2)]
    );
}

/// kube-apiserver 1.7/1.8 (audit.k8s.io/v1alpha1, v1beta1): one `timestamp`, no
/// `requestReceivedTimestamp`/`stageTimestamp` (shape of liggitt/audit2rbac's 2017 demo log).
const EVENT_2017: &str = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1beta1","metadata":{"creationTimestamp":"2017-09-11T19:55:35Z"},"level":"Metadata","timestamp":"2017-09-11T19:55:35Z","auditID":"0b5b2a3c-6a1d-4a4e-9f54-1c2d3e4f5a6b","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/configmaps/c1","verb":"delete","user":{"username":"system:admin","groups":["system:masters","system:authenticated"]},"sourceIPs":["::1"],"objectRef":{"resource":"configmaps","namespace":"default","name":"c1","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200}}"#;

#[test]
fn events_with_only_timestamp_are_read() {
    let (events, stats) = read_bytes("audit.log", format!("{EVENT_2017}\n").as_bytes());
    assert_eq!(causes(&stats), vec![]);
    assert_eq!(events.len(), 1);
    // 2017-09-11T19:55:35Z: 17420 days and 71735 s after the epoch.
    assert_eq!(events[0].time_us, (17_420 * 86_400 + 71_735) * 1_000_000);
    assert_eq!(events[0].verb, "delete");
    // A bad one names the field it read.
    let bad = EVENT_2017.replace(
        "\"timestamp\":\"2017-09-11T19:55:35Z\"",
        "\"timestamp\":\"yesterday\"",
    );
    let (_, stats) = read_bytes("audit.log", format!("{bad}\n").as_bytes());
    assert_eq!(causes(&stats), vec![(1, "bad timestamp \"yesterday\"")]);
    let none = EVENT_2017.replace("\"timestamp\":\"2017-09-11T19:55:35Z\",", "");
    let (_, stats) = read_bytes("audit.log", format!("{none}\n").as_bytes());
    assert_eq!(
        causes(&stats),
        vec![(
            1,
            "an audit event without stageTimestamp, requestReceivedTimestamp or timestamp"
        )]
    );
}

/// JSON lines as YAML documents, `---` between them, as `gcloud logging read` prints entries
/// (a line that is not JSON stays as it is).
fn to_yaml_documents(jsonl: &str, header: &str) -> String {
    let docs: Vec<String> = jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match serde_json::from_str::<serde_json::Value>(l) {
            Ok(v) => serde_saphyr::to_string(&v).unwrap(),
            // A broken line stays as it is: a broken document.
            Err(_) => format!("{l}\n"),
        })
        .collect();
    format!("{header}{}", docs.join("---\n"))
}

#[test]
fn gke_entries_as_yaml_read_as_the_same_entries_as_json() {
    let gke = to_gke(&log());
    let (want, want_stats) = read_bytes("gke.json", gke.as_bytes());
    assert_eq!(want.len(), 3);
    let yaml = to_yaml_documents(&gke, "");
    assert!(
        yaml.contains("\n---\n") && yaml.contains("protoPayload:"),
        "{yaml}"
    );
    let (got, stats) = read_bytes("gke.yaml", yaml.as_bytes());
    assert_eq!(causes(&stats), vec![]);
    assert_eq!(bare(&got), bare(&want));
    assert_eq!(stats.events, want_stats.events);
    assert_eq!(stats.by_format.get("gke"), Some(&4));
    // Each event's line is where its document starts.
    let starts: Vec<u64> = yaml
        .lines()
        .enumerate()
        .filter(|(i, l)| *i == 0 || yaml.lines().nth(i - 1) == Some("---") && !l.is_empty())
        .map(|(i, _)| i as u64 + 1)
        .collect();
    assert_eq!(got[0].position.line, starts[0]);
    assert_eq!(got[1].position.line, starts[1]);
}

#[test]
fn a_native_event_as_yaml_after_a_comment_header_is_read() {
    let yaml = to_yaml_documents(GC_DELETE, "# Copyright\n#  a licence header\n\n");
    let (got, stats) = read_bytes("event.yaml", yaml.as_bytes());
    assert_eq!(causes(&stats), vec![]);
    assert_eq!(bare(&got), vec![expected_delete()]);
    assert_eq!(got[0].position.line, 4);
}

/// The one-line cause of the error for an input that holds no audit event.
fn no_events(name: &str, bytes: &[u8]) -> String {
    let (events, stats) = read_bytes(name, bytes);
    assert!(events.is_empty());
    let err = require_events(&stats, &[PathBuf::from(name)]).unwrap_err();
    assert_eq!(err.exit_code(), crate::error::exit::INPUT, "{err}");
    let msg = err.to_string();
    assert!(!msg.contains('\n'), "{msg}");
    msg
}

#[test]
fn input_with_no_audit_event_is_an_error_with_its_cause() {
    // Random bytes.
    let noise: Vec<u8> = (0u32..4096)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let msg = no_events("noise.bin", &noise);
    assert!(msg.contains("no audit event in it"), "{msg}");
    // A kubectl YAML dump.
    let dump = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c1\n    namespace: shop\nmetadata:\n  resourceVersion: \"\"\n";
    let msg = no_events("dump.yaml", dump.as_bytes());
    assert!(
        msg.contains("not an audit record: a list of \\\"List\\\" \\\"v1\\\"")
            || msg.contains("a list of \"List\" \"v1\""),
        "{msg}"
    );
    // A YAML log it cannot read: a record per line in a text format.
    let text = "level: info\nmsg: started\nlevel: info msg: [unclosed\n";
    let msg = no_events("app.log", text.as_bytes());
    assert!(msg.contains("not valid YAML"), "{msg}");
    // YAML documents, none of them an audit record.
    let docs = "a: 1\n---\nb: 2\n";
    let msg = no_events("docs.yaml", docs.as_bytes());
    assert!(
        msg.contains("none of the fields of an audit event"),
        "{msg}"
    );
}

/// Reads `bytes` alone and twice over (the same file named twice): the account of each.
fn once_and_twice(bytes: &[u8]) -> [(Vec<AuditEvent>, ReadStats); 2] {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in");
    std::fs::write(&path, bytes).unwrap();
    [
        read_paths(std::slice::from_ref(&path)).unwrap(),
        read_paths(&[path.clone(), path]).unwrap(),
    ]
}

/// What the stable twin of the fuzz target (`fuzz/fuzz_targets/audit_reader.rs`) checks.
fn accounted(bytes: &[u8]) -> Result<(), proptest::test_runner::TestCaseError> {
    use proptest::prelude::*;
    let [(events, once), (events_twice, twice)] = once_and_twice(bytes);
    for (e, s) in [(&events, &once), (&events_twice, &twice)] {
        prop_assert_eq!(e.len() as u64, s.passed);
        prop_assert_eq!(s.levels.values().sum::<u64>(), s.events);
        prop_assert!(s.partial <= s.problems.len() as u64 + s.more_problems);
    }
    // The second reading is every request again.
    prop_assert_eq!(twice.events, once.events);
    prop_assert_eq!(twice.duplicates, 2 * once.duplicates + once.events);
    prop_assert_eq!(bare(&events_twice), bare(&events));
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 128, ..Default::default() })]

    /// YAML-like text (keys, separators, comments, flow collections): never a panic, and the
    /// account holds.
    #[test]
    fn yaml_like_text_is_accounted_for(s in "(---\n|# c\n|[a-z@']{1,6}: [a-z0-9{}\\[\\],\"']{0,12}\n|  [a-z]{1,4}: [0-9a-z]{0,6}\n){0,12}") {
        accounted(s.as_bytes())?;
    }

    /// A log's events, some lines repeated and some cut, in JSON or as GKE YAML: each request
    /// once however often it is read.
    #[test]
    fn repeated_and_cut_logs_are_accounted_for(
        picks in proptest::collection::vec((0usize..5, 0usize..3), 0..10),
        yaml in proptest::bool::ANY,
    ) {
        let lines = [GC_DELETE, OWNER_404, GET_200, LEASE, EVENT_2017];
        let mut text = String::new();
        for (i, how) in picks {
            let l = lines[i];
            text.push_str(if how == 2 { &l[..l.len() / 2] } else { l });
            text.push('\n');
        }
        let text = if yaml { to_yaml_documents(&to_gke(&text), "") } else { text };
        accounted(text.as_bytes())?;
    }
}

#[test]
fn the_users_groups_are_read_and_a_bad_list_loses_nothing() {
    let (events, stats) = read_bytes("audit.log", format!("{EVENT_2017}\n").as_bytes());
    assert_eq!(causes(&stats), vec![]);
    assert_eq!(events[0].groups, ["system:masters", "system:authenticated"]);
    // Only `user`'s groups: the impersonated user's are not the authenticated user's.
    let imp = EVENT_2017.replace(
        "\"sourceIPs\"",
        "\"impersonatedUser\":{\"username\":\"bob\",\"groups\":[\"system:nodes\"]},\"sourceIPs\"",
    );
    let (events, _) = read_bytes("audit.log", format!("{imp}\n").as_bytes());
    assert_eq!(events[0].impersonated_user.as_deref(), Some("bob"));
    assert_eq!(events[0].groups, ["system:masters", "system:authenticated"]);
    // Escapes are decoded; what is not a string is ignored, and a value that is not a list
    // leaves the groups unknown (empty), the event still read.
    for (groups, want) in [
        (r#"["a\u003ab",7,null,"c"]"#, vec!["a:b", "c"]),
        (r#""system:masters""#, vec![]),
        (r#"{"system:masters":true}"#, vec![]),
        ("null", vec![]),
    ] {
        let text = EVENT_2017.replace(r#"["system:masters","system:authenticated"]"#, groups);
        let (events, stats) = read_bytes("audit.log", format!("{text}\n").as_bytes());
        assert_eq!(causes(&stats), vec![], "{groups}");
        assert_eq!(events.len(), 1, "{groups}");
        assert_eq!(events[0].groups, want, "{groups}");
    }
}
