use super::{Spare, element};
use crate::source::files::doc::Doc;
use crate::testkit::generate::Rng;

/// Reads `text` both ways and panics where the scanner answers and the parser does not give
/// the same `Doc` and length; whether the scanner answered.
fn agree(text: &str) -> bool {
    agree_reusing(text, &mut Spare::default())
}

/// [`agree`], the scanner reading into the lists `spare` kept from the items before (and
/// keeping this one's, as the reader does).
fn agree_reusing(text: &str, spare: &mut Spare) -> bool {
    let mut fast = Doc::default();
    let answer = element(text, &mut fast, spare);
    let mut slow = Doc::default();
    let parsed = crate::source::files::json::parse_element(text, &mut slow);
    if let Some(n) = answer {
        let (object, m) =
            parsed.unwrap_or_else(|e| panic!("the scanner read {text:?}; the parser failed: {e}"));
        assert!(object, "{text:?}");
        assert_eq!(n, m, "length of {text:?}");
        assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{text:?}");
    }
    spare.keep(&mut fast);
    answer.is_some()
}

/// Items of the shapes dumps hold: compact and indented, with skipped values of every kind.
const USUAL: &[&str] = &[
    r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"creationTimestamp":"2026-11-17T14:29:55Z","labels":{"kubernetes.io/metadata.name":"default"},"name":"default","resourceVersion":"1000022","uid":"ce01e389-6d78-4ac8-a276-0c95209d3070"}}"#,
    r#"{
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "annotations": {
            "kubectl.kubernetes.io/last-applied-configuration": "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}\n",
            "checksum/config": "\u00e9\t\/\\\b\f\r"
        },
        "creationTimestamp": "2026-01-02T03:04:05Z",
        "deletionTimestamp": "2026-01-03T03:04:05Z",
        "finalizers": ["example.com/a", null, "example.com/b"],
        "generateName": "web-7d9f-",
        "labels": {"app": "web", "tier": null, "pod-template-hash": "7d9f"},
        "managedFields": [{"manager": "kubectl", "operation": "Update", "time": "2026-01-02T03:04:05Z", "fieldsV1": {"f:metadata": {}}}],
        "name": "web-7d9f-x2x4z",
        "namespace": "shop",
        "ownerReferences": [
            {"apiVersion": "apps/v1", "blockOwnerDeletion": true, "controller": true, "kind": "ReplicaSet", "name": "web-7d9f", "uid": "0b1c2d3e-0000-4000-8000-000000000001"},
            {"apiVersion": "example.com/v1", "kind": "Thing", "name": "t", "uid": "u2", "controller": false, "blockOwnerDeletion": null, "extra": [1, {"x": -0.5e-3}]}
        ],
        "resourceVersion": "42",
        "selfLink": "/api/v1/namespaces/shop/pods/web-7d9f-x2x4z",
        "uid": "9f8e7d6c-0000-4000-8000-000000000002"
    },
    "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}], "resources": {}}], "priority": 0, "terminationGracePeriodSeconds": 30},
    "status": {"phase": "Running", "conditions": [], "startTime": "2026-01-02T03:04:06Z", "ratio": 1.25E+2, "ok": true, "none": null}
}"#,
    r#"{"kind":"ConfigMap","apiVersion":"v1","data":{"a":[0,-1,2e10,1E-3,10.5,true,false,null,{"b":[[],{}]}],"c":"\"quoted\" \u00E9 na\u00efve"},"metadata":{"name":"cfg","namespace":"ns","creationTimestamp":null,"labels":null,"annotations":null,"finalizers":null,"ownerReferences":null,"deletionTimestamp":null,"uid":null,"continue":"tok"}}"#,
    r#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"first","uid":"1"},"kind":"ConfigMap","metadata":{"name":"second","labels":{"naïve":"名前"}},"type":"Opaque"}"#,
    r#"{}"#,
    r#"{"metadata":{}}"#,
    r#"{ "apiVersion" : "apps/v1" , "kind" : "Deployment" , "metadata" : { "name" : "d" , "namespace" : "n" , "ownerReferences" : [ ] , "labels" : { } } , "spec" : { "replicas" : 3 } , "status" : { } }"#,
];

#[test]
fn usual_items_are_read_in_one_pass_as_the_parser_reads_them() {
    for text in USUAL {
        assert!(agree(text), "the scanner gave up on {text}");
    }
    // What it read, spelled out for the first two.
    let mut d = Doc::default();
    assert_eq!(
        element(USUAL[0], &mut d, &mut Spare::default()),
        Some(USUAL[0].len())
    );
    let m = &d.metadata.as_ref().unwrap().meta;
    assert_eq!((d.kind(), d.api_version()), ("Namespace", "v1"));
    assert_eq!(m.uid, "ce01e389-6d78-4ac8-a276-0c95209d3070");
    assert_eq!(m.labels.0[0].1, "default");
    let mut d = Doc::default();
    element(USUAL[1], &mut d, &mut Spare::default()).unwrap();
    let meta = d.metadata.as_ref().unwrap();
    let m = &meta.meta;
    assert_eq!(m.finalizers, ["example.com/a", "example.com/b"]);
    assert_eq!(m.owner_references.len(), 2);
    assert_eq!(m.owner_references[0].controller, Some(true));
    assert_eq!(m.owner_references[1].block_owner_deletion, None);
    assert_eq!(m.labels.0[1], ("tier".into(), "".into()));
    assert_eq!(meta.generate_name.as_deref(), Some("web-7d9f-"));
    assert_eq!(d.keys, 5);
    assert!(m.ignore.is_none());
}

#[test]
fn gives_up_where_the_parser_decodes_records_or_fails() {
    let give_up = [
        // Escapes in strings it keeps; a raw control character anywhere.
        r#"{"metadata":{"name":"a\"b"}}"#,
        r#"{"metadata":{"na\u006de":"a"}}"#,
        "{\"data\":\"a\u{1}b\"}",
        // Values of the wrong type (the visitors record them) and `null` where they do.
        r#"{"metadata":null}"#,
        r#"{"kind":1}"#,
        r#"{"metadata":{"labels":{"a":1}}}"#,
        r#"{"metadata":{"ownerReferences":[null]}}"#,
        r#"{"metadata":{"ownerReferences":[{"controller":"true"}]}}"#,
        r#"{"metadata":{"finalizers":"x"}}"#,
        // Keys that carry hints, and the fields the scanner leaves to the visitors.
        r#"{"kind":"List","items":[]}"#,
        r#"{"kind":"CustomResourceDefinition","spec":{}}"#,
        r#"{"spec":{},"kind":"Pod"}"#,
        r#"{"kind":"Namespace","status":{}}"#,
        r#"{"kind":"ClusterOperator","status":{}}"#,
        r#"{"gitVersion":"v1.20.2"}"#,
        r#"{"metadata":{"annotations":{"kubectl-gc.io/ignore":"all"}}}"#,
        r#"{"metadata":{"remainingItemCount":3}}"#,
        // Syntax the parser rejects.
        r#"{"data":01}"#,
        r#"{"data":1.}"#,
        r#"{"data":-}"#,
        r#"{"data":1e}"#,
        r#"{"data":"\x"}"#,
        r#"{"data":"\u12G4"}"#,
        r#"{"data":[1,]}"#,
        r#"{"data":{"a":1,}}"#,
        r#"{"a":1,}"#,
        r#"{"data":nul}"#,
        r#"{"data":tru}"#,
        r#"{"data":[1 2]}"#,
        r#"{"data":{"a" 1}}"#,
        r#"{"data":{1:2}}"#,
        // Not an object.
        r#"[]"#,
        r#"null"#,
    ];
    for text in give_up {
        let mut d = Doc::default();
        assert_eq!(element(text, &mut d, &mut Spare::default()), None, "{text}");
        agree(text);
    }
    // Cut anywhere, an item is left to the parser (which asks for more input).
    let whole = USUAL[1];
    for cut in (0..whole.len()).filter(|&i| whole.is_char_boundary(i)) {
        assert_eq!(
            element(&whole[..cut], &mut Doc::default(), &mut Spare::default()),
            None,
            "cut at {cut}"
        );
    }
}

#[test]
fn skipped_values_nest_as_deep_as_the_parser_allows() {
    // The parser's skip has no depth limit; the scanner tracks 128 levels, then leaves it.
    for depth in [1, 100, 128, 129, 5000] {
        let text = format!(
            r#"{{"kind":"Pod","spec":{}0{}}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let mut d = Doc::default();
        let answered = element(&text, &mut d, &mut Spare::default()).is_some();
        assert_eq!(answered, depth <= 128, "depth {depth}");
        agree(&text);
    }
}

#[test]
fn agrees_with_the_parser_on_mutated_items() {
    let mut rng = Rng(25);
    // A fixed seed, so that a failure reproduces.
    let (mut answered, mut cases) = (0, 0);
    // One set of kept lists for all of them, as the reader keeps one for a whole list: what an
    // item leaves behind (answered or not) must not show in the next.
    let mut spare = Spare::default();
    for _ in 0..60_000 {
        let pick = rng.below(USUAL.len() as u64) as usize;
        let b = rng.mutate_json(USUAL[pick]);
        let Ok(text) = std::str::from_utf8(&b) else {
            continue;
        };
        cases += 1;
        if agree_reusing(text, &mut spare) {
            answered += 1;
        }
    }
    // The comparison is not vacuous: many mutated items still have the usual shape.
    assert!(
        cases > 50_000 && answered > cases / 10,
        "{answered} of {cases}"
    );
}

#[test]
fn the_next_item_fills_the_lists_of_the_last() {
    let mut spare = Spare::default();
    let mut d = Doc::default();
    element(USUAL[1], &mut d, &mut spare).unwrap();
    let meta = &d.metadata.as_ref().unwrap().meta;
    let lists = (
        meta.finalizers.as_ptr() as usize,
        meta.labels.0.as_ptr() as usize,
        meta.owner_references.as_ptr() as usize,
    );
    spare.keep(&mut d);
    // The same item again: its lists land in the same allocations, and read the same.
    let mut again = Doc::default();
    element(USUAL[1], &mut again, &mut spare).unwrap();
    let meta = &again.metadata.as_ref().unwrap().meta;
    assert_eq!(
        (
            meta.finalizers.as_ptr() as usize,
            meta.labels.0.as_ptr() as usize,
            meta.owner_references.as_ptr() as usize,
        ),
        lists
    );
    let mut fresh = Doc::default();
    element(USUAL[1], &mut fresh, &mut Spare::default()).unwrap();
    assert_eq!(format!("{again:?}"), format!("{fresh:?}"));
    // An item without lists leaves them kept for the one after; one with a long list is not
    // kept.
    spare.keep(&mut again);
    let mut bare = Doc::default();
    element(USUAL[0], &mut bare, &mut spare).unwrap();
    spare.keep(&mut bare);
    let (finalizers, _, refs) = spare.0.capacities();
    assert!(refs >= 2 && finalizers >= 2);
    let long = format!(
        r#"{{"metadata":{{"finalizers":[{}"x"]}}}}"#,
        r#""f","#.repeat(100)
    );
    let mut d = Doc::default();
    element(&long, &mut d, &mut spare).unwrap();
    assert_eq!(d.metadata.as_ref().unwrap().meta.finalizers.len(), 101);
    spare.keep(&mut d);
    assert_eq!(spare.0.capacities().0, 0);
}
