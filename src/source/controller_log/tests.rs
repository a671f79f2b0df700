//! The reader on real captures of a v1.20.2 controller manager (tests/data/controller-manager:
//! `capture.sh`, at --v=0, 2, 5 and with --logging-format=json), on every envelope those lines
//! come in, on a real must-gather, on hostile bytes, and on every wording of the line table.

use super::*;
use std::path::PathBuf;

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/controller-manager")
        .join(rel)
}

fn read_paths(
    paths: &[PathBuf],
    year: Option<i64>,
) -> crate::error::Result<(Vec<Record>, LogStats)> {
    let mut out = Vec::new();
    let stats = read(
        &LogOptions {
            paths: paths.to_vec(),
            year,
            ..LogOptions::default()
        },
        &mut |r| out.push(r),
    )?;
    Ok((out, stats))
}

/// Reads `text` as a file of its own.
fn read_text(text: &str, year: Option<i64>) -> crate::error::Result<(Vec<Record>, LogStats)> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("kube-controller-manager.log");
    std::fs::write(&p, text).unwrap();
    read_paths(&[p], year)
}

fn capture(name: &str) -> String {
    std::fs::read_to_string(data(&format!("{name}/kube-controller-manager.log"))).unwrap()
}

/// What a record says, for comparing envelopes: kind, object, owners, policy, namespace.
fn says(r: &Record) -> String {
    let o = r.object.as_ref().map_or(String::new(), |o| {
        format!("{}/{}/{}/{}", o.kind, o.namespace, o.name, o.uid)
    });
    let owners: Vec<String> = r
        .owners
        .iter()
        .map(|o| format!("{}/{}", o.kind, o.name))
        .collect();
    format!(
        "{:?} {o} {owners:?} {:?} {:?}",
        r.kind, r.policy, r.namespace
    )
}

fn kinds(recs: &[Record], k: Kind) -> Vec<&Record> {
    recs.iter().filter(|r| r.kind == k).collect()
}

fn name_of(r: &Record) -> String {
    r.object
        .as_ref()
        .map_or(String::new(), |o| format!("{}/{}", o.namespace, o.name))
}

#[test]
fn a_v2_capture_shows_every_deletion_with_its_uid_and_policy() {
    let (recs, stats) = read_paths(&[data("v2/kube-controller-manager.log")], Some(2026)).unwrap();
    assert_eq!(stats.max_v, 2);
    let deletes: Vec<(String, Option<String>)> = recs
        .iter()
        .filter(|r| matches!(r.kind, Kind::Delete | Kind::DeleteForeground))
        .map(|r| {
            assert!(!r.object.as_ref().unwrap().uid.is_empty(), "{r:?}");
            let policy = if r.kind == Kind::DeleteForeground {
                Some("Foreground".into())
            } else {
                r.policy.clone()
            };
            (name_of(r), policy)
        })
        .collect();
    let mut got = deletes.clone();
    got.sort();
    let bg = Some("Background".to_owned());
    assert_eq!(
        got,
        [
            ("cross/dep".into(), bg.clone()),
            ("dangling/dep".into(), bg.clone()),
            ("edit/dep".into(), bg.clone()),
            ("fg/leaf".into(), bg.clone()),
            ("fg/mid".into(), Some("Foreground".into())),
        ]
    );
    let fin: Vec<String> = kinds(&recs, Kind::RemoveFinalizer)
        .iter()
        .map(|r| name_of(r))
        .collect();
    assert_eq!(fin, ["fg/mid", "fg/top"]);
    assert_eq!(
        kinds(&recs, Kind::Start).len(),
        2,
        "the first start and the restart"
    );
    assert_eq!(
        kinds(&recs, Kind::NamespaceGone)[0].namespace.as_deref(),
        Some("doomed")
    );
    let mismatch = kinds(&recs, Kind::NamespaceMismatch);
    assert_eq!(name_of(mismatch[0]), "cross/dep");
    assert_eq!(
        mismatch[0].owners[0].namespace, "ops",
        "the line names the owner's own namespace"
    );
    // Every time is in the capture's window and in order of the log.
    let t: Vec<i64> = recs.iter().map(|r| r.time_us).collect();
    assert!(t.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(
        crate::model::timestamp::civil_from_days(t[0] / 86_400_000_000).0,
        2026
    );
}

#[test]
fn a_v5_capture_shows_orphaning_owner_lookups_and_the_namespace_content() {
    let (recs, stats) = read_paths(&[data("v5/kube-controller-manager.log")], Some(2026)).unwrap();
    assert_eq!(stats.max_v, 5);
    assert_eq!(name_of(kinds(&recs, Kind::Orphaned)[0]), "orph/owner");
    assert_eq!(name_of(kinds(&recs, Kind::OrphanStart)[0]), "orph/owner");
    let absent: Vec<String> = kinds(&recs, Kind::OwnerAbsent)
        .iter()
        .map(|r| r.owners[0].name.clone())
        .collect();
    assert!(
        absent.contains(&"ghost".to_owned()) && absent.contains(&"renamed".to_owned()),
        "{absent:?}"
    );
    let virtual_: Vec<String> = kinds(&recs, Kind::VirtualDelete)
        .iter()
        .map(|r| name_of(r))
        .collect();
    assert!(
        virtual_.contains(&"dangling/ghost".to_owned()),
        "{virtual_:?}"
    );
    let collections: Vec<&str> = kinds(&recs, Kind::NamespaceCollection)
        .iter()
        .filter_map(|r| r.resource.as_deref())
        .collect();
    assert!(
        collections.contains(&"/v1, Resource=configmaps"),
        "{collections:?}"
    );
    assert_eq!(kinds(&recs, Kind::NamespaceContentDone).len(), 1);
}

#[test]
fn the_json_format_says_what_klog_text_says() {
    let (json, stats) = read_paths(&[data("json/kube-controller-manager.log")], None).unwrap();
    assert_eq!(
        stats.by_format.keys().copied().collect::<Vec<_>>(),
        ["json"]
    );
    assert!(
        stats.year_from.is_empty(),
        "the JSON format's times are whole"
    );
    let (text, _) = read_paths(&[data("v2/kube-controller-manager.log")], Some(2026)).unwrap();
    // Same scenarios, other UIDs (another run): compare kinds and names.
    // (Informer order differs between runs: which mismatch lines the graph builder writes,
    // how often a dependent is queued; the actions do not.)
    let shape = |recs: &[Record]| {
        recs.iter()
            .filter(|r| {
                matches!(
                    r.kind,
                    Kind::Delete
                        | Kind::DeleteForeground
                        | Kind::RemoveFinalizer
                        | Kind::Start
                        | Kind::NamespaceGone
                        | Kind::NamespaceMismatch
                )
            })
            .map(|r| format!("{:?} {} {:?}", r.kind, name_of(r), r.policy))
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert_eq!(shape(&json), shape(&text));
}

#[test]
fn a_v0_log_is_an_error_with_the_verbosity_hint() {
    let paths = [data("v0/kube-controller-manager.log")];
    let (_, stats) = read_paths(&paths, Some(2026)).unwrap();
    assert!(stats.max_v < 2);
    let e = require_work(&stats, &paths).unwrap_err();
    assert_eq!(e.exit_code(), crate::error::exit::INPUT);
    assert!(e.to_string().contains("--v=0 or 1"), "{e}");
    assert!(e.hint().unwrap().contains("--v=2"), "{:?}", e.hint());
}

/// The capture's klog lines with their times as RFC 3339 (the year 2026, UTC), and pids.
fn timed_lines(text: &str) -> Vec<(String, String, u32)> {
    let mut clock = time::Clock::new(time::Year::Starting(2026));
    text.lines()
        .filter_map(|l| {
            let t = time::klog_time(l.get(1..)?.as_bytes())?;
            let us = clock.at(t);
            let secs = us.div_euclid(1_000_000);
            let base = crate::model::timestamp::format_rfc3339(secs);
            let rfc = format!(
                "{}.{:06}Z",
                base.trim_end_matches('Z'),
                us.rem_euclid(1_000_000)
            );
            let pid = l.split_whitespace().nth(2)?.parse().ok()?;
            Some((rfc, l.to_owned(), pid))
        })
        .collect()
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

#[test]
fn every_envelope_of_a_real_capture_gives_the_same_records() {
    let text = capture("v2");
    let (plain, _) = read_text(&text, Some(2026)).unwrap();
    let want: Vec<String> = plain.iter().map(says).collect();
    assert!(want.len() > 20);
    let lines = timed_lines(&text);
    let per_line = |f: &dyn Fn(&(String, String, u32)) -> String| {
        lines.iter().map(f).collect::<Vec<_>>().join("\n") + "\n"
    };
    let cloud = |(t, l, _): &(String, String, u32)| serde_json::json!({"textPayload": l, "timestamp": t, "resource": {"type": "k8s_control_plane_component", "labels": {"component_name": "controller-manager"}}});
    let cloudwatch = serde_json::json!({"events": lines.iter().map(|(t, l, _)| {
        let us = time::parse_rfc3339_us(t).unwrap();
        serde_json::json!({"logStreamName": "kube-controller-manager-0a1b2c", "timestamp": us / 1000, "message": l})
    }).collect::<Vec<_>>()});
    let forms: Vec<(&str, String)> = vec![
        ("kubectl logs --timestamps", per_line(&|(t, l, _)| format!("{t} {l}"))),
        ("containerd CRI", per_line(&|(t, l, _)| format!("{t} stderr F {l}"))),
        ("journalctl -o short-iso", per_line(&|(t, l, p)| {
            format!("{}+0000 node-1 kube-controller-manager[{p}]: {l}", &t[..19])
        })),
        ("journalctl (syslog)", per_line(&|(_, l, p)| format!("Dec  7 13:47:41 node-1 kube-controller-manager[{p}]: {l}"))),
        ("journalctl -o json", per_line(&|(t, l, p)| {
            let us = time::parse_rfc3339_us(t).unwrap();
            format!(r#"{{"__REALTIME_TIMESTAMP":"{us}","_PID":"{p}","SYSLOG_IDENTIFIER":"kube-controller-manager","MESSAGE":{}}}"#, json_str(l))
        })),
        ("Cloud Logging, JSON lines", per_line(&|x| cloud(x).to_string())),
        ("Cloud Logging, JSON array", serde_json::to_string_pretty(&lines.iter().map(cloud).collect::<Vec<_>>()).unwrap()),
        ("Cloud Logging, YAML", lines.iter().map(|(t, l, _)| format!("---\ntextPayload: {}\ntimestamp: '{t}'\nresource:\n  labels:\n    component_name: controller-manager\n", json_str(l))).collect()),
        ("CloudWatch filter-log-events", serde_json::to_string_pretty(&cloudwatch).unwrap()),
        ("CloudWatch S3 export", per_line(&|(t, l, _)| format!("{t} {l}"))),
        ("docker json-file", per_line(&|(t, l, _)| format!(r#"{{"log":{},"stream":"stderr","time":"{t}"}}"#, json_str(&format!("{l}\n"))))),
    ];
    for (name, form) in forms {
        let (got, stats) = read_text(&form, Some(2026)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got: Vec<String> = got.iter().map(says).collect();
        assert_eq!(got, want, "{name} ({:?})", stats.by_format);
    }
    // Other components' lines in the same journal are passed over, not read.
    let mixed = format!(
        "{}\n2026-12-07T13:47:41+0000 node-1 kubelet[77]: I1207 13:47:41.000000 77 garbagecollector.go:580] \"Deleting object\" object=\"x/y\" objectUID=1 kind=\"Pod\" propagationPolicy=Background\n",
        per_line(&|(t, l, p)| format!(
            "{}+0000 node-1 kube-controller-manager[{p}]: {l}",
            &t[..19]
        ))
    );
    let (got, stats) = read_text(&mixed, Some(2026)).unwrap();
    assert_eq!(got.len(), want.len());
    assert_eq!(stats.other_lines, 1);
}

#[test]
fn compressed_and_rotated_files_and_directories_are_read() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let text = capture("v2");
    let half = text.len() / 2;
    let cut = text[..half].rfind('\n').unwrap() + 1;
    std::fs::write(
        dir.path().join("kube-controller-manager.log.1"),
        &text[..cut],
    )
    .unwrap();
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(dir.path().join("kube-controller-manager.log.2.gz")).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(&text.as_bytes()[cut..]).unwrap();
    gz.finish().unwrap();
    std::fs::write(dir.path().join("kube-apiserver.log"), &text).unwrap(); // not its name: passed over
    let (got, stats) = read_paths(&[dir.path().to_path_buf()], Some(2026)).unwrap();
    let (want, _) = read_text(&text, Some(2026)).unwrap();
    assert_eq!(
        got.iter().map(says).collect::<Vec<_>>(),
        want.iter().map(says).collect::<Vec<_>>()
    );
    assert_eq!(stats.inputs, 2);
    assert_eq!(stats.ignored_inputs, 1);
}

#[test]
fn a_real_must_gather_is_read_through_its_archive() {
    // OpenShift 4.9's kube-controller-manager pods (OpenShift runs it at --v=2), their
    // `kubectl logs --timestamps` files inside the must-gather archive.
    let mg = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/realdata/ocp-must-gather-clean/must-gather-metal.tar.xz");
    let (recs, stats) = read_paths(&[mg], None).unwrap();
    assert!(
        stats.by_format.contains_key("timestamped"),
        "{:?}",
        stats.by_format
    );
    assert!(stats.year_from.is_empty(), "--timestamps carries the year");
    assert!(!kinds(&recs, Kind::Start).is_empty(), "{:?}", stats.by_kind);
    assert!(
        stats.max_v >= 2,
        "OpenShift's --v=2 shows the GC's items: {:?}",
        stats.by_kind
    );
    assert!(
        kinds(&recs, Kind::Processing)
            .iter()
            .all(|r| r.time_us > 1_600_000_000_000_000)
    );
}

#[test]
fn the_year_comes_from_a_flag_a_header_or_the_files_time_never_from_nowhere() {
    let line = "I1231 23:59:59.000000       1 garbagecollector.go:580] \"Deleting object\" object=\"a/b\" objectUID=u kind=\"ConfigMap\" propagationPolicy=Background\nI0101 00:00:01.000000       1 garbagecollector.go:580] \"Deleting object\" object=\"a/c\" objectUID=v kind=\"ConfigMap\" propagationPolicy=Background\n";
    let (recs, stats) = read_text(line, Some(2030)).unwrap();
    let year = |us: i64| crate::model::timestamp::civil_from_days(us.div_euclid(86_400_000_000)).0;
    assert_eq!((year(recs[0].time_us), year(recs[1].time_us)), (2030, 2031));
    assert!(stats.year_from.contains(&YearFrom::Flag));
    let with_header =
        format!("Log file created at: 2024/12/31 23:00:00\nRunning on machine: m\n{line}");
    let (recs, stats) = read_text(&with_header, None).unwrap();
    assert_eq!(year(recs[0].time_us), 2024);
    assert!(stats.year_from.contains(&YearFrom::File));
    // A file: its modification time.
    let (_, stats) = read_text(line, None).unwrap();
    assert!(stats.year_from.contains(&YearFrom::Modified));
}

#[test]
fn bytes_that_are_no_log_are_an_input_error_and_hostile_bytes_never_panic() {
    for junk in [
        &b"\x00\x01\x02binary"[..],
        b"just some text\nand more\n",
        b"{\"kind\":\"ConfigMap\"}\n",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.log");
        std::fs::write(&p, junk).unwrap();
        let e = read_paths(&[p], Some(2026)).unwrap_err();
        assert_eq!(e.exit_code(), crate::error::exit::INPUT, "{e}");
    }
    // Lines cut anywhere, broken quotes and identities, a huge line: read without panic.
    let text = capture("v5");
    let mut hostile = String::new();
    for (i, l) in text.lines().enumerate() {
        let cut = l.len() * (i % 7) / 7;
        let cut = (0..=cut)
            .rev()
            .find(|&c| l.is_char_boundary(c))
            .unwrap_or(0);
        hostile.push_str(&l[..cut]);
        hostile.push_str(["\"", "[", "]", "\\", " uid: ", "=", ""][i % 7]);
        hostile.push('\n');
    }
    hostile.push_str(&"x".repeat(MAX_LINE + 10));
    hostile.push_str(" Deleting object\n");
    let (_, stats) = read_text(&hostile, Some(2026)).unwrap();
    assert_eq!(stats.long_lines, 1);
}

/// A row of `line-table.tsv` rendered as the klog line upstream's call would print.
fn render_row(format: &str, sample: &str) -> String {
    let samples: Vec<&str> = if sample.is_empty() {
        Vec::new()
    } else {
        sample.split(" | ").collect()
    };
    if let Some(rest) = format.strip_prefix('"') {
        let msg = &rest[..rest.find('"').expect("a quoted message")];
        let mut line = serde_json::to_string(msg).unwrap();
        for s in samples {
            line.push(' ');
            line.push_str(s);
        }
        return line;
    }
    let mut out = String::new();
    let mut rest = format;
    let mut values = samples.into_iter();
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let verb_len = rest[at + 1..]
            .find(|c: char| c.is_ascii_alphabetic())
            .expect("a verb")
            + 2;
        out.push_str(values.next().expect("a sample per verb"));
        rest = &rest[at + verb_len..];
    }
    out.push_str(rest);
    out
}

#[test]
fn line_table_wordings_are_read() {
    let table = std::fs::read_to_string(data("line-table.tsv")).unwrap();
    let mut rows = 0;
    for row in table.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        assert_eq!(cols.len(), 7, "{row}");
        let (kind, v, format, sample) = (cols[0], cols[1], cols[4], cols[5]);
        let line = format!(
            "I1207 13:46:25.028002    5430 garbagecollector.go:1] {}\n",
            render_row(format, sample)
        );
        let (recs, _) = read_text(&line, Some(2026)).unwrap_or_else(|e| panic!("{row}: {e}"));
        assert_eq!(recs.len(), 1, "{row}\n{line}");
        let got = serde_json::to_value(recs[0].kind).unwrap();
        assert_eq!(got, kind, "{line}");
        assert_eq!(recs[0].v.to_string(), v, "{line}");
        if recs[0].kind.is_work()
            && !matches!(
                recs[0].kind,
                Kind::NamespaceGone
                    | Kind::NamespaceContent
                    | Kind::NamespaceContentDone
                    | Kind::NamespaceCollection
            )
        {
            assert!(recs[0].object.is_some(), "{line}: {:?}", recs[0]);
        }
        rows += 1;
    }
    assert!(rows >= 45, "{rows}");
}
