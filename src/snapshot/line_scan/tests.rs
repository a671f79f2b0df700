use super::line;
use crate::model::meta::MetaLists;
use crate::snapshot::format;
use crate::testkit::generate::{GenOptions, Rng, generate};

/// Reads `text` both ways and panics where the scanner answers and serde does not read the
/// same resource and metadata; whether the scanner answered. The scanner reads into the lists
/// `lists` kept from the lines before, and keeps this one's, as the reader does.
fn agree(text: &str, lists: &mut MetaLists) -> bool {
    let Some((resource, mut fast)) = line(text, lists) else {
        return false;
    };
    let slow: format::Line<'_> = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("the scanner read {text:?}; serde failed: {e}"));
    assert_eq!(resource, slow.resource, "{text:?}");
    assert_eq!(
        format!("{fast:?}"),
        format!("{:?}", slow.metadata),
        "{text:?}"
    );
    lists.keep(&mut fast);
    true
}

/// The object lines the writer writes for a generated cluster with every kind of reference and
/// deletion state.
fn written_lines() -> Vec<String> {
    let generated = generate(&GenOptions {
        objects: 3_000,
        seed: 7,
        dangling_rate: 0.05,
        cross_namespace_rate: 0.05,
        unresolvable_rate: 0.05,
        foreground_rate: 0.05,
        orphan_rate: 0.05,
        ..GenOptions::default()
    });
    let mut out = Vec::new();
    format::write(&generated.to_snapshot(), &mut out).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with(r#"{"resource""#))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_writers_lines_are_read_in_one_pass_as_serde_reads_them() {
    let lines = written_lines();
    assert!(lines.len() >= 3_000, "{}", lines.len());
    let mut lists = MetaLists::default();
    let mut answered = 0;
    let (mut refs, mut finalizers, mut labels, mut terminating) = (0, 0, 0, 0);
    for l in &lines {
        if agree(l, &mut lists) {
            answered += 1;
            let (_, m) = line(l, &mut MetaLists::default()).unwrap();
            refs += m.owner_references.len();
            finalizers += m.finalizers.len();
            labels += m.labels.0.len();
            terminating += usize::from(m.deletion_timestamp.is_some());
        }
    }
    // Every line the writer writes (none has an escape or the ignore annotation here), and
    // with every list and field in them: the fast path is the one taken.
    assert_eq!(answered, lines.len());
    assert!(
        refs > 1_000 && finalizers > 50 && labels > 1_000 && terminating > 50,
        "{refs} {finalizers} {labels} {terminating}"
    );
}

#[test]
fn what_it_reads_spelled_out() {
    let text = r#"{"resource":12,"metadata":{"namespace":"shop","name":"web-1","uid":"u2","resourceVersion":"42","creationTimestamp":"2026-01-02T03:04:05Z","deletionTimestamp":"2026-01-03T03:04:05Z","finalizers":["foregroundDeletion","example.com/x"],"labels":{"app":"web","t":null},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web","uid":"u1","controller":true,"blockOwnerDeletion":null}]}}  "#;
    let (resource, m) = line(text, &mut MetaLists::default()).unwrap();
    assert_eq!(resource, 12);
    assert_eq!(
        (&*m.namespace, &*m.name, &*m.uid, &*m.resource_version),
        ("shop", "web-1", "u2", "42")
    );
    assert_eq!(
        m.deletion_timestamp.as_deref(),
        Some("2026-01-03T03:04:05Z")
    );
    assert_eq!(m.finalizers, ["foregroundDeletion", "example.com/x"]);
    let labels: Vec<(&str, &str)> = m.labels.0.iter().map(|(k, v)| (&**k, &**v)).collect();
    assert_eq!(labels, [("app", "web"), ("t", "")]);
    let r = &m.owner_references[0];
    assert_eq!(
        (&*r.kind, &*r.uid, r.controller, r.block_owner_deletion),
        ("ReplicaSet", "u1", Some(true), None)
    );
    assert!(agree(text, &mut MetaLists::default()));
}

#[test]
fn gives_up_where_serde_refuses_decodes_or_skips() {
    let ok = r#"{"resource":1,"metadata":{"name":"a","uid":"u"}}"#;
    assert!(agree(ok, &mut MetaLists::default()));
    for text in [
        // Serde refuses these lines.
        r#"{"resource":1,"resource":2,"metadata":{"uid":"u"}}"#,
        r#"{"resource":1,"metadata":{"uid":"u"},"metadata":{"uid":"v"}}"#,
        r#"{"resource":1,"metadata":{"uid":"u","uid":"v"}}"#,
        r#"{"resource":1,"metadata":{"labels":{},"labels":{}}}"#,
        r#"{"resource":1,"metadata":{"ownerReferences":[{"uid":"a","uid":"b"}]}}"#,
        r#"{"resource":1,"metadata":{"finalizers":["a",null]}}"#,
        r#"{"resource":1,"metadata":null}"#,
        r#"{"resource":1}"#,
        r#"{"metadata":{"uid":"u"}}"#,
        r#"{"resource":01,"metadata":{"uid":"u"}}"#,
        r#"{"resource":1.0,"metadata":{"uid":"u"}}"#,
        r#"{"resource":1e2,"metadata":{"uid":"u"}}"#,
        r#"{"resource":-1,"metadata":{"uid":"u"}}"#,
        r#"{"resource":4294967296,"metadata":{"uid":"u"}}"#,
        r#"{"resource":"1","metadata":{"uid":"u"}}"#,
        r#"{"resource":1,"metadata":{"uid":"u"}} x"#,
        r#"{"resource":1,"metadata":{"uid":"u"}}{}"#,
        r#"{"resource":1,"metadata":{"uid":"u"}"#,
        r#"{"resource":1,"metadata":{"uid":7}}"#,
        r#"{"resource":1,"metadata":{"ownerReferences":[{"controller":"yes"}]}}"#,
        // Serde decodes or skips these; the writer never writes them.
        r#"{"resource":1,"metadata":{"uid":"u\u0041"}}"#,
        r#"{"resource":1,"metadata":{"labels":{"a\"b":"c"}}}"#,
        r#"{"resource":1,"metadata":{"uid":"u","annotations":{"kubectl-gc.io/ignore":"all"}}}"#,
        r#"{"resource":1,"metadata":{"uid":"u","managedFields":[]}}"#,
        r#"{"resource":1,"metadata":{"labels":{"n":1}}}"#,
        r#"{"resource":1,"metadata":{"ownerReferences":[{"uid":"a","extra":1}]}}"#,
        r#"{"resource":1,"metadata":{"uid":"u"},"extra":true}"#,
        r#"[1,{"uid":"u"}]"#,
    ] {
        assert!(
            line(text, &mut MetaLists::default()).is_none(),
            "answered {text}"
        );
    }
    // At the edges of what it reads, it answers as serde does.
    for text in [
        r#"{"resource":0,"metadata":{}}"#,
        r#"{"resource":4294967295,"metadata":{"labels":null,"finalizers":null,"ownerReferences":null}}"#,
        r#" { "metadata" : { "uid" : null , "deletionTimestamp" : null } , "resource" : 3 } "#,
        "{\"resource\":1,\"metadata\":{\"name\":\"naïve 名前\",\"labels\":{\"k\":\"\"}}}\r",
        r#"{"resource":1,"metadata":{"ownerReferences":[{},{"controller":false}],"labels":{"a":"1","a":"2"}}}"#,
    ] {
        assert!(agree(text, &mut MetaLists::default()), "gave up on {text}");
    }
}

#[test]
fn agrees_with_serde_on_mutated_lines() {
    let lines = written_lines();
    // A fixed seed, so that a failure reproduces.
    let mut rng = Rng(39);
    let (mut answered, mut cases) = (0, 0);
    // One set of kept lists for all of them, as the reader keeps one for a whole file: what a
    // line leaves behind (answered or not) must not show in the next.
    let mut lists = MetaLists::default();
    for _ in 0..40_000 {
        let pick = rng.below(lines.len() as u64) as usize;
        let b = rng.mutate_json(&lines[pick]);
        let Ok(text) = std::str::from_utf8(&b) else {
            continue;
        };
        cases += 1;
        if agree(text, &mut lists) {
            answered += 1;
        }
    }
    // The comparison is not vacuous: many mutated lines still have the writer's shape.
    assert!(
        cases > 35_000 && answered > cases / 10,
        "{answered} of {cases}"
    );
}
