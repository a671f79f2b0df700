//! Unit tests of the file reader: shapes, coverage, accounting, broken input.

use super::resources::{compare_version_priority, guess_plural};
use super::*;
use crate::snapshot::{ListOutcome, Resource, Skipped};

fn opts() -> FileOptions {
    FileOptions {
        keep_going: true,
        ..FileOptions::default()
    }
}

fn read(text: &str) -> (Snapshot, FileStats) {
    read_named("input", text)
}

fn read_named(name: &str, text: &str) -> (Snapshot, FileStats) {
    let (s, st, _) = read_bytes(name, text.as_bytes(), &opts()).unwrap();
    (s, st)
}

fn row<'a>(s: &'a Snapshot, group: &str, version: &str, kind: &str) -> &'a Resource {
    s.resources
        .iter()
        .find(|r| r.group == group && r.version == version && r.kind == kind)
        .unwrap_or_else(|| panic!("no row {group}/{version} {kind}: {:?}", s.resources))
}

fn names(s: &Snapshot) -> Vec<String> {
    s.store
        .ids()
        .map(|id| s.store.str(s.store.object(id).name).to_owned())
        .collect()
}

fn skipped_reasons(s: &Snapshot) -> Vec<&Skipped> {
    s.skipped.iter().collect()
}

/// The snapshot's lines as written, without the header (it holds the capture time) and the
/// trailer (its checksum covers the header).
fn snapshot_body(s: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    crate::snapshot::format::write(s, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<String> = out.lines().skip(1).map(str::to_owned).collect();
    lines[..lines.len() - 1].to_vec()
}

/// `n` ConfigMaps as flow-style YAML documents: YAML that starts like JSON.
fn flow_yaml(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{{apiVersion: v1, kind: ConfigMap, metadata: {{name: y{i}, namespace: yn, uid: y{i}}}}}\n---\n"
            )
        })
        .collect()
}

#[test]
fn typed_list_with_kindless_items_inherits_kind_and_api_version() {
    let (s, stats) = read(
        r#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"12"},"items":[
            {"metadata":{"name":"a","namespace":"ns1","uid":"u1"}},
            {"metadata":{"name":"b","namespace":"ns2","uid":"u2"}}]}"#,
    );
    assert_eq!(stats.added, 2);
    let r = row(&s, "", "v1", "Pod");
    assert!(r.namespaced);
    assert_eq!(
        r.list,
        ListOutcome::Partial {
            namespaces: vec!["ns1".into(), "ns2".into()]
        }
    );
    assert!(r.verbs.is_empty());
    assert_eq!(s.provenance.source, SourceKind::Files);
}

#[test]
fn list_with_null_or_missing_items_is_empty_not_an_error() {
    let (s, stats) = read(
        "apiVersion: route.openshift.io/v1\nkind: RouteList\nitems: null\n---\n\
         apiVersion: route.openshift.io/v1\nkind: RouteList\nmetadata: {}\n",
    );
    assert_eq!(stats.documents, 2);
    assert!(s.store.is_empty());
    assert!(s.skipped.is_empty(), "{:?}", s.skipped);
    assert!(s.resources.is_empty());
}

#[test]
fn generic_list_items_without_kind_are_skipped_with_a_reason() {
    let (s, _) = read(
        r#"{"kind":"List","apiVersion":"v1","items":[
            {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ok","namespace":"n","uid":"u1"}},
            {"metadata":{"name":"what","namespace":"n","uid":"u2"}}]}"#,
    );
    assert_eq!(names(&s), ["ok"]);
    assert_eq!(s.skipped.len(), 1);
    assert_eq!(s.skipped[0].source, "input (document 1, item 1)");
    assert!(s.skipped[0].reason.contains("no kind"), "{:?}", s.skipped);
}

#[test]
fn multi_document_yaml_keeps_good_documents_around_a_broken_one() {
    let text = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n  namespace: a\n  uid: u1\n\
                --- # second\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n\
                ---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: three\n  namespace: a\n  uid: u3\n---\n";
    let (s, stats) = read_named("cms.yaml", text);
    assert_eq!(names(&s), ["one", "three"]);
    assert_eq!(stats.documents, 2);
    let skipped = skipped_reasons(&s);
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].source, "cms.yaml (document 2)");
    assert!(skipped[0].reason.starts_with("invalid YAML"));
    assert!(!skipped[0].reason.contains('\n'));
}

#[test]
fn bare_yaml_sequence_and_json_array_of_objects() {
    let yaml = "- apiVersion: longhorn.io/v1beta1\n  kind: Setting\n  metadata:\n    name: s1\n    namespace: longhorn-system\n    uid: u1\n\
                - apiVersion: longhorn.io/v1beta1\n  kind: Setting\n  metadata:\n    name: s2\n    namespace: longhorn-system\n    uid: u2\n";
    let (s, _) = read(yaml);
    assert_eq!(names(&s), ["s1", "s2"]);
    let r = row(&s, "longhorn.io", "v1beta1", "Setting");
    assert!(r.namespaced);
    assert_eq!(r.plural, "settings");

    let json = r#"[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","uid":"u1"}},
                   {"alerts":[]}, 7]"#;
    let (s, stats) = read(json);
    assert_eq!(names(&s), ["n1"]);
    assert_eq!(stats.not_kubernetes, 2);
    // A bare array is not a list the API server returned whole: it proves nothing.
    let r = row(&s, "", "v1", "Node");
    assert_eq!(r.list, ListOutcome::Partial { namespaces: vec![] });
}

/// Support-bundle collectors (troubleshoot.sh) write redacted values as a bare `***HIDDEN***`,
/// which YAML reads as an alias of an anchor that does not exist. Such a document is read as
/// the collector meant it, the redacted values as text, when none of them is a value kubectl-gc
/// reads; otherwise it is broken, and says which field.
#[test]
fn redacted_yaml_is_read_past_redactions_kubectl_gc_does_not_read() {
    let object = |spec: &str, name: &str, owner_uid: &str| {
        format!(
            "apiVersion: longhorn.io/v1beta1\nkind: InstanceManager\nmetadata:\n  name: {name}\n  namespace: longhorn-system\n  uid: u1\n  ownerReferences:\n  - apiVersion: longhorn.io/v1beta1\n    kind: Node\n    name: n1\n    uid: {owner_uid}\nspec:\n{spec}"
        )
    };
    let read_one = |text: &str| {
        let (s, st, problems) = read_bytes("im.yaml", text.as_bytes(), &opts()).unwrap();
        let problems: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        (s, st, problems)
    };
    // A value, a value with more after the token, a list entry, a value on its own line, CRLF.
    for spec in [
        "  address: ***HIDDEN***\n",
        "  replicas:\n    r1: ***HIDDEN***:10000\n",
        "  ips:\n  - ***HIDDEN***\n  -   ***HIDDEN***-2\n",
        "  address:\n    ***HIDDEN***\n",
        "  address: ***HIDDEN***\r\n  port: 1\r\n",
    ] {
        let (s, st, problems) = read_one(&object(spec, "im", "u0"));
        assert!(problems.is_empty(), "{spec:?}: {problems:?}");
        assert_eq!(names(&s), ["im"], "{spec:?}");
        assert_eq!(s.store.str(s.store.owner_refs[0].uid), "u0");
        assert_eq!(st.redacted, 1, "{spec:?}");
        assert!(s.skipped.is_empty());
    }
    // In a value kubectl-gc reads: broken, and the cause says which.
    for (text, field) in [
        (object("  a: 1\n", "***HIDDEN***", "u0"), "metadata.name"),
        (
            object("  a: 1\n", "im", "***HIDDEN***"),
            "metadata.ownerReferences",
        ),
    ] {
        let (s, st, problems) = read_one(&text);
        assert!(s.store.is_empty(), "{field}");
        assert_eq!(st.redacted, 0);
        assert_eq!(problems.len(), 1, "{field}");
        assert!(problems[0].contains("a redaction"), "{}", problems[0]);
        assert!(
            problems[0].contains(&format!("`{field}` is among the redacted values")),
            "{}",
            problems[0]
        );
    }
    // Where quoting could change more than the redacted scalar (a comment after it, flow
    // style), nothing is quoted: broken as before.
    for spec in [
        "  address: ***HIDDEN*** # the node's\n",
        "  map: {a: ***HIDDEN***, b: c}\n",
        "  address: ***HIDDEN*** and more\n",
    ] {
        let (s, st, problems) = read_one(&object(spec, "im", "u0"));
        assert!(s.store.is_empty(), "{spec:?}");
        assert_eq!((st.redacted, problems.len()), (0, 1), "{spec:?}");
        assert!(problems[0].starts_with("im.yaml"), "{}", problems[0]);
    }
    // A CRD is read in more places than its metadata: its redactions always count.
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: xs.example.com\n  uid: c1\nspec:\n  group: example.com\n  names: {kind: X, plural: xs}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n  conversion:\n    url: ***HIDDEN***\n";
    let (s, _, problems) = read_one(crd);
    assert!(s.store.is_empty());
    assert!(
        problems[0].contains("is among the redacted values"),
        "{}",
        problems[0]
    );
    // An alias error elsewhere says nothing of redactions, and is not read.
    let (s, _) = read_named(
        "x.yaml",
        "kind: Pod\nmetadata: {name: p, uid: u}\nspec: *nothing\n",
    );
    assert_eq!(s.skipped.len(), 1);
    assert!(
        !s.skipped[0].reason.contains("redaction"),
        "{}",
        s.skipped[0].reason
    );
}

#[test]
fn crd_in_input_defines_scope_plural_and_preferred_version() {
    let text = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com, uid: crd1}
spec:
  group: example.com
  scope: Cluster
  names: {kind: Widget, plural: widgets}
  versions:
  - {name: v1beta1, served: true}
  - {name: v1, served: true}
  - {name: v2alpha1, served: false}
---
apiVersion: example.com/v1beta1
kind: Widget
metadata: {name: w, uid: w1}
---
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com, uid: crd2}
spec:
  group: example.com
  version: v1alpha1
  scope: Namespaced
  names: {kind: Gadget, plural: gadgetries}
"#;
    let (s, _) = read(text);
    let w = row(&s, "example.com", "v1beta1", "Widget");
    assert!(!w.namespaced);
    assert_eq!(w.plural, "widgets");
    assert_eq!(w.preferred_version, "v1");
    // A lone object document proves nothing about the other Widgets.
    assert_eq!(w.list, ListOutcome::Partial { namespaces: vec![] });
    // Served versions without objects are known to be served, not covered.
    assert_eq!(
        row(&s, "example.com", "v1", "Widget").list,
        ListOutcome::NotListed
    );
    assert!(
        !s.resources
            .iter()
            .any(|r| r.kind == "Widget" && r.version == "v2alpha1")
    );
    let g = row(&s, "example.com", "v1alpha1", "Gadget");
    assert!(g.namespaced);
    assert_eq!(g.plural, "gadgetries");
    assert_eq!(g.list, ListOutcome::NotListed);
    assert!(!g.list.covers(""));
    let crd = row(&s, "apiextensions.k8s.io", "v1", "CustomResourceDefinition");
    assert_eq!(crd.plural, "customresourcedefinitions");
}

#[test]
fn unknown_kinds_are_inferred_from_their_objects() {
    let (s, _) = read(
        r#"{"apiVersion":"acme.io/v1","kind":"Policy","metadata":{"name":"p","namespace":"x","uid":"u"}}"#,
    );
    let r = row(&s, "acme.io", "v1", "Policy");
    assert!(r.namespaced);
    assert_eq!(r.plural, "policies");
    assert_eq!(r.preferred_version, "v1");
}

#[test]
fn duplicate_uids_are_one_object_and_only_lists_prove_coverage() {
    let text = r#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[
            {"metadata":{"name":"a","namespace":"ns1","uid":"u1"}}]}
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ns1","uid":"u1"}}
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"b","namespace":"ns2","uid":"u2"}}"#;
    let (s, stats) = read(text);
    assert_eq!(s.store.len(), 2);
    assert_eq!(stats.objects, 3);
    assert_eq!(stats.duplicates, 1);
    // ns1 came as a server's PodList; ns2 only as a lone Pod document, which may have been
    // picked.
    assert_eq!(
        row(&s, "", "v1", "Pod").list,
        ListOutcome::Partial {
            namespaces: vec!["ns1".into()]
        }
    );
}

/// Coverage is numbered on the interning thread, per list: a server list larger than a
/// batch (and than the whole-parse window, so streamed, its kind and metadata after its items)
/// covers exactly its items' namespaces, interleaved as kubectl interleaves them; a kubectl
/// `List` of the same kind, read before and after it, covers none, not even where it shares a
/// namespace with the server list; a list nested in a list is a list of its own.
#[test]
fn each_list_covers_its_own_items_namespaces_across_batches() {
    let pod = |i: usize, ns: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p{i}","namespace":"{ns}","uid":"u{i}"}}}}"#
        )
    };
    let kubectl = |from: usize, nss: &[&str]| {
        let items: Vec<String> = (0..3000)
            .map(|i| pod(from + i, nss[i % nss.len()]))
            .collect();
        format!(
            r#"{{"apiVersion":"v1","items":[{}],"kind":"List","metadata":{{"resourceVersion":""}}}}"#,
            items.join(",")
        )
    };
    let server: Vec<String> = (0..20_000)
        .map(|i| {
            let ns = format!("s{}", i % 7);
            pod(100_000 + i, &ns).replace(r#""apiVersion":"v1","kind":"Pod","#, "")
        })
        .collect();
    let server = format!(
        r#"{{"apiVersion":"v1","items":[{}],"kind":"PodList","metadata":{{"resourceVersion":"5"}}}}"#,
        server.join(",")
    );
    assert!(server.len() > json::WHOLE_UP_TO);
    let nested = r#"{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[
        {"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"8"},"items":[
            {"metadata":{"name":"c","namespace":"c0","uid":"c1"}}]},
        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","namespace":"c1","uid":"c2"}}]}"#;
    let text = [
        kubectl(0, &["k0", "s0", "k1"]),
        server,
        kubectl(10_000, &["k2", "s3"]),
        nested.to_owned(),
    ]
    .join("\n");
    let (s, stats) = read(&text);
    assert_eq!(stats.added, 26_002);
    let want: Vec<String> = (0..7).map(|i| format!("s{i}")).collect();
    assert_eq!(
        row(&s, "", "v1", "Pod").list,
        ListOutcome::Partial { namespaces: want }
    );
    assert_eq!(
        row(&s, "", "v1", "ConfigMap").list,
        ListOutcome::Partial {
            namespaces: vec!["c0".into()]
        }
    );
}

#[test]
fn partial_namespaces_are_per_group_and_kind() {
    let text = r#"{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":"9"},"items":[
        {"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"a","namespace":"b-ns","uid":"1"}},
        {"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"b","namespace":"a-ns","uid":"2"}},
        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"c-ns","uid":"3"}}]}"#;
    let (s, _) = read(text);
    let want = ListOutcome::Partial {
        namespaces: vec!["a-ns".into(), "b-ns".into()],
    };
    assert_eq!(
        row(&s, "autoscaling", "v1", "HorizontalPodAutoscaler").list,
        want
    );
    assert_eq!(
        row(&s, "autoscaling", "v2", "HorizontalPodAutoscaler").list,
        want
    );
    let cm = &row(&s, "", "v1", "ConfigMap").list;
    assert!(cm.covers("c-ns") && !cm.covers("a-ns"));
}

#[test]
fn objects_without_uid_or_metadata_are_skipped_and_non_objects_ignored() {
    let text = r#"[
        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"no-uid","namespace":"n"}},
        {"apiVersion":"operator.openshift.io/v1","kind":"Network","name":"cluster","spec":{}},
        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","uid":"u","labels":"oops"}},
        {"status":"success","data":{"result":[]}},
        {"apiVersion":"v1/x/y","kind":"Thing","metadata":{"uid":"u9"}}]"#;
    let (s, stats) = read(text);
    assert!(s.store.is_empty());
    let reasons: Vec<&str> = s.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert_eq!(reasons[0], "no metadata.uid");
    assert_eq!(reasons[1], "no metadata");
    assert!(
        reasons[2].starts_with("metadata.labels: expected a map of strings"),
        "{reasons:?}"
    );
    assert!(reasons[3].starts_with("invalid apiVersion"), "{reasons:?}");
    assert_eq!(reasons.len(), 4);
    assert_eq!(stats.not_kubernetes, 1);
    assert!(s.resources.is_empty());
}

#[test]
fn kindless_crds_and_self_links_are_recognised() {
    let text = r#"{"metadata":{"resourceVersion":"1"},"items":[
        {"metadata":{"name":"engines.longhorn.io","uid":"c1"},
         "spec":{"group":"longhorn.io","scope":"Namespaced","names":{"kind":"Engine","plural":"engines"},
                 "versions":[{"name":"v1beta1","served":true}]}}]}
        {"metadata":{"name":"p","namespace":"ns","uid":"p1","selfLink":"/api/v1/namespaces/ns/pods/p"}}
        {"metadata":{"name":"e","namespace":"longhorn-system","uid":"e1","selfLink":"/apis/longhorn.io/v1beta1/namespaces/longhorn-system/engines/e"}}
        {"metadata":{"name":"q","uid":"q1","selfLink":"/apis/unknown.io/v1/things/q"}}
        {"metadata":{"name":"r","uid":"r1"}}"#;
    let (s, stats) = read(text);
    assert_eq!(names(&s), ["engines.longhorn.io", "p", "e"]);
    assert_eq!(stats.added, 3);
    assert!(row(&s, "", "v1", "Pod").namespaced);
    let e = row(&s, "longhorn.io", "v1beta1", "Engine");
    assert_eq!(e.plural, "engines");
    assert_eq!(s.skipped.len(), 2, "{:?}", s.skipped);
    assert!(s.skipped.iter().all(|s| s.reason.contains("no kind")));
}

#[test]
fn discovery_documents_fill_plural_scope_verbs_and_not_listed_rows() {
    let text = r#"[{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[
          {"name":"daemonsets","namespaced":true,"kind":"DaemonSet","verbs":["get","list","watch","delete"]},
          {"name":"daemonsets/status","namespaced":true,"kind":"DaemonSet","verbs":["get"]}]}]
        [{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],
          "preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]"#;
    let (s, stats) = read(text);
    assert_eq!(stats.discovery, 2);
    let ds = row(&s, "apps", "v1", "DaemonSet");
    assert_eq!(ds.list, ListOutcome::NotListed);
    assert_eq!(ds.plural, "daemonsets");
    assert_eq!(ds.verbs.len(), 4);
    assert_eq!(s.resources.len(), 1);
}

#[test]
fn server_version_detection() {
    let j = |s: &str| read(s).0.provenance.server_version;
    assert_eq!(
        j(r#"{"info":{"major":"1","minor":"23","gitVersion":"v1.23.5"},"string":"v1.23.5"}"#),
        Some("v1.23.5".into())
    );
    assert_eq!(
        j(r#"{"clientVersion":{"gitVersion":"v1.30.0"},"serverVersion":{"gitVersion":"v1.29.2"}}"#),
        Some("v1.29.2".into())
    );
    assert_eq!(
        j(r#"{"major":"1","minor":"20","gitVersion":"v1.20.2"}"#),
        Some("v1.20.2".into())
    );
    assert_eq!(
        j(r#"{"bundleversion":"0.1.0","kubernetesversion":"v1.21.7+rke2r1"}"#),
        Some("v1.21.7+rke2r1".into())
    );
    let co = r#"{"apiVersion":"config.openshift.io/v1","kind":"ClusterOperator",
        "metadata":{"name":"kube-apiserver","uid":"x"},
        "status":{"versions":[{"name":"raw-internal","version":"4.8.0"},{"name":"kube-apiserver","version":"1.21.1"}]}}"#;
    assert_eq!(j(co), Some("v1.21.1".into()));
    assert_eq!(j(r#"{"alerts":[]}"#), None);
    // The bundle's own statement beats the operator's.
    assert_eq!(
        j(&format!(
            "{co}\n{{\"info\":{{\"gitVersion\":\"v1.21.3\"}}}}"
        )),
        Some("v1.21.3".into())
    );
}

#[test]
fn snapshot_among_other_inputs_is_an_error_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("snap.json");
    std::fs::write(
        &snap,
        r#"{"apiVersion":"kubectl-gc.io/v1","kind":"Snapshot","formatVersion":1}"#,
    )
    .unwrap();
    let other = dir.path().join("o.json");
    std::fs::write(
        &other,
        r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n","uid":"u"}}"#,
    )
    .unwrap();
    let err = read_files(&FileOptions {
        paths: vec![other, snap],
        ..FileOptions::default()
    })
    .unwrap_err();
    assert!(err.hint().unwrap().contains("--snapshot"), "{err}");
}

#[test]
fn a_single_compressed_snapshot_given_to_f_is_read_as_the_snapshot() {
    // The sniff decompresses through the input layer (gzip, xz, zstd alike): `-f snap.zst`
    // alone is the snapshot, as `--snapshot snap.zst` is.
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut c = crate::testkit::Cluster::new();
    c.obj("v1", "ConfigMap", "ns", "a", "u-a");
    let mut text = Vec::new();
    crate::snapshot::format::write(&c.build(), &mut text).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&text).unwrap();
    for (name, bytes) in [
        ("s.ndjson", text.clone()),
        ("s.ndjson.gz", gz.finish().unwrap()),
        (
            "s.ndjson.zst",
            zstd::stream::encode_all(&text[..], 1).unwrap(),
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let s = read_files(&FileOptions {
            paths: vec![path],
            ..FileOptions::default()
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.store.len(), 1, "{name}");
        // The snapshot's own provenance (testkit writes a live one), not a file read's.
        assert_eq!(
            s.provenance.source,
            crate::snapshot::SourceKind::Live,
            "{name}"
        );
    }
}

#[test]
fn compressed_input_is_decompressed() {
    use std::io::Write;
    let text = br#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n","uid":"u"}}"#;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text).unwrap();
    let gz = gz.finish().unwrap();
    let zst = zstd::stream::encode_all(&text[..], 1).unwrap();
    for (name, bytes) in [("x.json.gz", gz), ("x.json.zst", zst)] {
        let (s, _, p) = read_bytes(name, &bytes, &opts()).unwrap();
        assert_eq!(s.store.len(), 1, "{name}");
        assert!(p.is_empty(), "{name}: {p:?}");
    }
}

#[test]
fn a_truncated_stream_or_archive_is_broken_input_that_says_truncated() {
    use std::io::Write;
    let doc = |i: usize| {
        format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c{i}","namespace":"n","uid":"u{i}"}}}}"#
        )
    };
    let mut tar = tar::Builder::new(Vec::new());
    for i in 0..20 {
        let body = doc(i).into_bytes();
        let mut h = tar::Header::new_gnu();
        h.set_size(body.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, format!("cm-{i}.json"), &body[..])
            .unwrap();
    }
    let tar = tar.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar).unwrap();
    let gz = gz.finish().unwrap();
    let zst = zstd::stream::encode_all(&tar[..], 1).unwrap();
    // xz: the shipped build has only the decoder; a real must-gather cut at 256 KiB.
    let xz = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/realdata/ocp-must-gather-clean/must-gather-metal.tar.xz"
    ))
    .unwrap();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..20 {
        zip.start_file(
            format!("cm-{i}.json"),
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        zip.write_all(doc(i).as_bytes()).unwrap();
    }
    let zip = zip.finish().unwrap().into_inner();
    // A cut inside a member's data (the tar itself), or anywhere inside a compressed stream.
    for (name, bytes) in [
        ("b.tar", &tar[..512 * 8 + 100]),
        ("b.zip", &zip[..zip.len() / 3]),
        ("b.tar.gz", &gz[..gz.len() / 2]),
        ("b.tar.zst", &zst[..zst.len() / 2]),
        ("must-gather.tar.xz", &xz[..256 << 10]),
    ] {
        let (_, stats, problems) = read_bytes(name, bytes, &opts()).unwrap();
        assert!(stats.broken >= 1, "{name}: a cut archive read as whole");
        let said: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert!(
            said.iter().any(|p| p.contains("truncated")),
            "{name}: {said:?}"
        );
    }
}

#[test]
fn a_refused_thread_stops_the_read_with_a_hint_not_as_broken_input() {
    // What the JSON reader returns when the OS refuses its parser thread.
    struct Refused;
    impl std::io::Read for Refused {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            let os = std::io::Error::from(std::io::ErrorKind::WouldBlock);
            Err(crate::util::ThreadRefused(os).into_io())
        }
    }
    let source = crate::input::walk::Source::named(None);
    let err = run(&opts(), |reader| {
        text::read_stream("big.json", &mut Refused, source, reader)
    })
    .unwrap_err();
    assert_eq!(err.exit_code(), crate::error::exit::INPUT);
    assert!(
        err.to_string().contains("not read: cannot start a thread"),
        "{err}"
    );
    assert!(err.hint().unwrap().contains("pids"), "{err}");
}

/// `-f` takes a glob the shell did not expand, as `--audit-log` does (one walker): its
/// matches are read as a walk reads them (names kubectl-gc reads only; a gzip member too),
/// and a glob that matches nothing is an input error.
#[test]
fn a_glob_is_read_like_the_files_it_matches() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let obj = |name: &str, uid: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}","namespace":"n","uid":"{uid}"}}}}"#
        )
    };
    std::fs::write(root.join("a.json"), obj("a", "1")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(obj("b", "2").as_bytes()).unwrap();
    std::fs::write(root.join("b.json.gz"), gz.finish().unwrap()).unwrap();
    std::fs::write(root.join("c.log"), "not read").unwrap();
    let (snap, stats) = read_files_with_stats(&FileOptions {
        paths: vec![root.join("*")],
        ..FileOptions::default()
    })
    .unwrap();
    assert_eq!(names(&snap), ["a", "b"]);
    assert_eq!(stats.files, 2);
    assert_eq!(stats.files_ignored, 1);
    let err = read_files(&FileOptions {
        paths: vec![root.join("*.yaml")],
        ..FileOptions::default()
    })
    .unwrap_err();
    assert_eq!(err.exit_code(), crate::error::exit::INPUT);
    assert!(
        err.to_string().contains("no file matches this pattern"),
        "{err}"
    );
}

#[test]
fn directories_are_read_like_kubectl() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let obj = |name: &str, uid: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}","namespace":"n","uid":"{uid}"}}}}"#
        )
    };
    std::fs::write(root.join("b.json"), obj("b", "2")).unwrap();
    std::fs::write(root.join("a.yaml"), obj("a", "1")).unwrap();
    std::fs::write(root.join("pod.log"), "not yaml: [").unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/c.yml"), obj("c", "3")).unwrap();
    std::fs::write(root.join("sub/broken.json"), "{ nope").unwrap();

    let flat = read_files(&FileOptions {
        paths: vec![root.to_path_buf()],
        ..FileOptions::default()
    })
    .unwrap();
    assert_eq!(names(&flat), ["a", "b"]);
    assert!(flat.skipped.is_empty());

    // The broken file fails the run unless told to go on.
    let err = read_files(&FileOptions {
        paths: vec![root.to_path_buf()],
        recursive: true,
        ..FileOptions::default()
    })
    .unwrap_err();
    assert_eq!(err.exit_code(), crate::error::exit::INPUT);
    assert!(err.to_string().contains("broken.json"), "{err}");
    let (deep, stats) = read_files_with_stats(&FileOptions {
        paths: vec![root.to_path_buf()],
        recursive: true,
        keep_going: true,
        ..FileOptions::default()
    })
    .unwrap();
    assert_eq!(names(&deep), ["a", "b", "c"]);
    assert_eq!(stats.files_ignored, 1);
    assert_eq!(stats.broken, 1);
    assert_eq!(deep.skipped.len(), 1);
    assert!(deep.skipped[0].source.ends_with("broken.json"));
    assert_eq!(deep.provenance.inputs, [root.display().to_string()]);

    let missing = read_files(&FileOptions {
        paths: vec![root.join("nope")],
        ..FileOptions::default()
    })
    .unwrap_err();
    assert!(missing.to_string().contains("no such file or directory"));
    assert!(missing.hint().is_some());

    let empty = tempfile::tempdir().unwrap();
    std::fs::create_dir(empty.path().join("deeper")).unwrap();
    let err = read_files(&FileOptions {
        paths: vec![empty.path().to_path_buf()],
        ..FileOptions::default()
    })
    .unwrap_err();
    assert!(err.hint().unwrap().contains("-R"), "{err}");
}

#[test]
fn plural_guess_and_version_priority() {
    assert_eq!(guess_plural("Ingress"), "ingresses");
    assert_eq!(guess_plural("NetworkPolicy"), "networkpolicies");
    assert_eq!(guess_plural("Gateway"), "gateways");
    assert_eq!(guess_plural("Machine"), "machines");
    let mut v = vec!["v1alpha1", "v2", "v1beta2", "v1", "v1beta1", "foo", "v10"];
    v.sort_by(|a, b| compare_version_priority(a, b));
    assert_eq!(
        v,
        ["v10", "v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "foo"]
    );
}

#[test]
fn a_document_that_does_not_parse_makes_the_kinds_it_names_unknown() {
    let text = "apiVersion: v1\nkind: ConfigMapList\nmetadata: {resourceVersion: \"3\"}\nitems:\n\
                - apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a, namespace: ns, uid: u1}\n\
                ---\n- apiVersion: longhorn.io/v1beta1\n  kind: InstanceManager\n  spec:\n    address: *undefined\n";
    let (s, st, p) = read_bytes("x.yaml", text.as_bytes(), &opts()).unwrap();
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(st.broken, 1);
    assert_eq!(
        row(&s, "", "v1", "ConfigMap").list,
        ListOutcome::Partial {
            namespaces: vec!["ns".into()]
        },
        "the broken document names no ConfigMap"
    );
    // An InstanceManager row, if there were one, would be unknown everywhere: the hole is
    // recorded for the kind in any group.
    let text2 = format!(
        "{text}---\napiVersion: longhorn.io/v1beta1\nkind: InstanceManagerList\nmetadata: {{resourceVersion: \"4\"}}\nitems:\n- metadata: {{name: im, namespace: ns, uid: u9}}\n"
    );
    let (s, _, _) = read_bytes("x.yaml", text2.as_bytes(), &opts()).unwrap();
    assert!(matches!(
        row(&s, "longhorn.io", "v1beta1", "InstanceManager").list,
        ListOutcome::Failed { .. }
    ));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    const LIST: &str = r#"{"apiVersion":"v1","items":[
        {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs","namespace":"a","uid":"r1","labels":{"app":"x"}},"spec":{"replicas":2}},
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"a","uid":"p1","finalizers":["f"],
          "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"r1","controller":true}]},"status":{"phase":"Running"}}
      ],"kind":"List","metadata":{"resourceVersion":"12"}}"#;

    fn yaml() -> String {
        let v: serde_json::Value = serde_json::from_str(LIST).unwrap();
        serde_saphyr::to_string(&v).unwrap()
    }

    fn strict() -> FileOptions {
        FileOptions::default()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Any bytes: a result or an error, never a panic; a result comes with a consistent
        /// account (every broken document reported, no more objects than were read), an error
        /// with a message.
        #[test]
        fn any_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            match read_bytes("fuzz", &bytes, &opts()) {
                Ok((s, stats, problems)) => {
                    prop_assert_eq!(stats.broken, problems.len());
                    prop_assert!(s.store.len() <= stats.objects);
                }
                Err(e) => prop_assert!(!e.to_string().is_empty()),
            }
        }

        /// A valid List cut anywhere before its end never loses objects silently, and never
        /// makes a kind count as held: either the cut is reported (and nothing is held), or
        /// every object was read, or nothing is claimed held.
        #[test]
        fn a_cut_document_is_never_silent(cut in 1usize..2000, as_yaml in any::<bool>()) {
            let text = if as_yaml { yaml() } else { LIST.to_owned() };
            let cut = cut.min(text.len() - 1);
            let head = &text[..cut]; // ASCII text
            let (s, stats, problems) = read_bytes("cut", head.as_bytes(), &strict()).unwrap();
            let whole = head.trim_end() == text.trim_end();
            let held = s.resources.iter().any(|r| {
                matches!(&r.list, ListOutcome::Partial { namespaces } if !namespaces.is_empty())
            });
            prop_assert!(
                whole || !problems.is_empty() || s.store.len() == 2 || !held,
                "cut at {cut}: read {} objects, no problem reported, coverage claimed",
                s.store.len()
            );
            // Whatever was cut away is unknown, never absent: no kind is held.
            if !problems.is_empty() {
                prop_assert!(!held, "cut at {cut}: {:?}", s.resources);
            }
            let _ = stats;
        }

        /// Single-byte edits of a valid document never panic, and whatever is read comes with
        /// a consistent account.
        #[test]
        fn edited_documents_never_panic(pos in 0usize..600, byte in any::<u8>(), as_yaml in any::<bool>()) {
            let mut text = if as_yaml { yaml().into_bytes() } else { LIST.as_bytes().to_vec() };
            let pos = pos % text.len();
            text[pos] = byte;
            let (s, stats, problems) = read_bytes("edit", &text, &opts()).unwrap();
            prop_assert_eq!(stats.broken, problems.len());
            prop_assert!(s.store.len() <= stats.objects);
        }
    }
}

#[test]
fn the_newest_timestamp_skips_parsing_but_not_the_answer() {
    use super::Newest;
    use crate::snapshot::parse_rfc3339;
    let cases: [&[&str]; 7] = [
        // The API server's form, in any order.
        &[
            "2026-01-02T00:00:00Z",
            "2026-03-01T00:00:00Z",
            "2026-02-01T00:00:00Z",
        ],
        // Another form newer than every canonical one, before and after them.
        &[
            "2026-03-01T04:00:00+02:00",
            "2026-03-01T00:00:00Z",
            "2026-01-01T00:00:00Z",
        ],
        &["2026-03-01T00:00:00Z", "2026-03-01T04:00:00+02:00"],
        &["2026-03-01T00:00:00.5Z", "2026-03-01T00:00:00Z"],
        // Text that is not a time, in the canonical shape or not.
        &[
            "2026-02-01T00:00:00Z",
            "2026-02-01T00:00:0xZ",
            "x",
            "2026-01-01T00:00:00Z",
        ],
        // Out of range, read by the parser as another day: February 30 is March 2, the
        // 13th month of 2026 is in 2027.
        &["2026-03-01T00:00:00Z", "2026-02-30T00:00:00Z"],
        &[
            "2026-13-01T00:00:00Z",
            "2026-12-01T00:00:00Z",
            "2026-12-02T00:00:00Z",
        ],
    ];
    for texts in cases {
        let mut n = Newest::default();
        for t in texts {
            n.offer(t);
        }
        // What parsing every timestamp gives.
        let every = texts.iter().filter_map(|t| parse_rfc3339(t)).max();
        assert!(every.is_some());
        assert_eq!(n.seconds, every, "{texts:?}");
    }
    let mut n = Newest::default();
    n.offer("2026-03-01T04:00:00+02:00");
    assert_eq!(n.seconds, parse_rfc3339("2026-03-01T02:00:00Z"));
}

#[test]
fn the_remembered_api_version_split_is_the_split() {
    use super::recognize::{Reader, Sink};
    let opts = FileOptions::default();
    let (tx, _rx) = std::sync::mpsc::sync_channel(1);
    let (_rtx, rrx) = std::sync::mpsc::channel();
    let hasher = crate::model::Store::new().strings.hasher();
    let mut reader = Reader::new(&opts, Sink::new(crate::model::Batch::new(hasher), tx, rrx));
    let inputs = [
        "v1", "v1", "apps/v1", "apps/v1", "", "a/b/c", "a/", "/v1", "a//v1", "apps/v1", "x.io/v2",
    ];
    for a in inputs {
        assert_eq!(
            reader.split_api_version_cached(a),
            crate::snapshot::split_api_version(a),
            "{a:?}"
        );
    }
}

/// A List too large to parse whole is streamed key by key; both ways must read the same
/// snapshot. The same items with and without a large `spec` (which neither reads) straddle
/// the whole-parse window; the list's kind comes last, so streamed items wait for it.
#[test]
fn a_list_streamed_key_by_key_reads_as_the_same_list_parsed_whole() {
    let list = |spec: &str| {
        let items: Vec<String> = (0..300)
            .map(|i| {
                format!(
                    r#"{{"metadata":{{"name":"p{i}","namespace":"ns{}","uid":"u{i}","labels":{{"app":"a{}"}},"finalizers":["f/{i}"],"ownerReferences":[{{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"r{}","uid":"u{}","controller":true}}]}}{spec}}}"#,
                    i % 7,
                    i % 3,
                    i / 2,
                    i / 2
                )
            })
            .chain(["42".to_owned()])
            .collect();
        format!(
            r#"{{"apiVersion":"v1","metadata":{{"resourceVersion":"9"}},"items":[{}],"kind":"PodList"}}"#,
            items.join(",")
        )
    };
    let small = list("");
    let large = list(&format!(r#","spec":{{"x":"{}"}}"#, "s".repeat(4000)));
    assert!(small.len() < json::WHOLE_UP_TO && large.len() > json::WHOLE_UP_TO);
    let dump = |text: &str| {
        let (s, stats) = read(text);
        (snapshot_body(&s), format!("{stats:?}"), s.skipped.len())
    };
    let (small, large) = (dump(&small), dump(&large));
    assert_eq!(small.0.len(), 300, "{:?}", small.0.first());
    assert_eq!(small, large);
}

/// Inputs whose values, characters and errors fall on every kind of boundary: a List, values
/// concatenated, an array, each cut off, broken UTF-8, a character cut by the end, a syntax
/// error, and flow-style YAML that starts like JSON and is handed on whole.
fn awkward_inputs() -> Vec<(&'static str, Vec<u8>)> {
    let item = |i: usize| {
        format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c{i}","namespace":"ns-ü{}","uid":"u{i}","labels":{{"k":"日本-😀-{i}"}},"ownerReferences":[{{"apiVersion":"v1","kind":"ConfigMap","name":"c0","uid":"u0"}}]}},"data":{{"x":"{}"}}}}"#,
            i % 3,
            "é".repeat(i)
        )
    };
    let items: Vec<String> = (0..40).map(item).collect();
    let list = format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
        items.join(",\n ")
    );
    let mut bad_utf8 = list.clone().into_bytes();
    let at = list.find("c7").unwrap();
    bad_utf8[at + 1] = 0xff;
    let cut_char = list.as_bytes()[..list.find('😀').unwrap() + 2].to_vec();
    let flow_yaml = flow_yaml(30);
    vec![
        ("list", list.clone().into_bytes()),
        ("concatenated", items.join("\n \t").into_bytes()),
        ("array", format!("[{}]", items.join(",")).into_bytes()),
        ("cut", list.as_bytes()[..list.len() * 2 / 3].to_vec()),
        ("bad utf-8", bad_utf8),
        ("cut character", cut_char),
        (
            "syntax error",
            format!("{}\n{{\"apiVersion\": x}}\n{}", items[1], items[2]).into_bytes(),
        ),
        ("flow yaml", flow_yaml.into_bytes()),
    ]
}

/// Chunk boundaries, and reading ahead in another thread, never change what is read: every
/// input reads the same in chunks of 1, 2, 3 … bytes as in one (values, multi-byte
/// characters, broken UTF-8, cut-off input, errors and their byte offsets, and flow-style
/// YAML that starts like JSON and is handed on whole).
#[test]
fn chunk_boundaries_never_change_what_is_read() {
    let inputs = awkward_inputs();
    let read_in = |bytes: &[u8], chunk: Option<usize>| {
        json::TEST_CHUNK.set(chunk);
        let out = read_bytes("input", bytes, &opts());
        json::TEST_CHUNK.set(None);
        let (s, stats, problems) = out.unwrap();
        let problems: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        (snapshot_body(&s), format!("{stats:?}"), problems)
    };
    for (what, bytes) in &inputs {
        let whole = read_in(bytes, None);
        match *what {
            "list" | "concatenated" | "array" => assert_eq!(whole.0.len(), 40, "{what}"),
            "flow yaml" => assert_eq!(whole.0.len(), 30, "{what}: {:?}", whole.2),
            _ => assert!(!whole.2.is_empty(), "{what}: no problem reported"),
        }
        for chunk in [1, 2, 3, 5, 17, 64, 1000, 4096] {
            assert_eq!(
                read_in(bytes, Some(chunk)),
                whole,
                "{what}, chunks of {chunk}"
            );
        }
    }
}

/// A file read through a memory map reads as the same bytes streamed, in steps of any size:
/// objects, statistics and problems (their byte offsets and the file's name included). In
/// tests every regular file of JSON text is mapped (`text::MAP_FROM`), whatever its size.
#[test]
fn a_mapped_file_reads_as_the_same_bytes_streamed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("input.json");
    let name = file.display().to_string();
    let summary = |out: Result<(Snapshot, FileStats, Vec<Problem>)>| {
        let (s, stats, problems) = out.unwrap();
        let problems: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        (snapshot_body(&s), format!("{stats:?}"), problems)
    };
    for (what, bytes) in awkward_inputs() {
        std::fs::write(&file, &bytes).unwrap();
        let streamed = summary(read_bytes(&name, &bytes, &opts()));
        for chunk in [
            None,
            Some(1),
            Some(2),
            Some(3),
            Some(5),
            Some(64),
            Some(4096),
        ] {
            json::TEST_CHUNK.set(chunk);
            let mapped = summary(
                run(&opts(), |reader| text::read_path(&file, reader, &mut false))
                    .map(|(s, st, p, _)| (s, st, p)),
            );
            json::TEST_CHUNK.set(None);
            assert_eq!(mapped, streamed, "{what}, steps of {chunk:?}");
        }
        if what == "list" {
            assert_eq!(streamed.0.len(), 40);
        }
    }
}

/// A read that fails part-way is reported, however far the input was read ahead: in a
/// List, and in flow-style YAML (whose read-ahead chunks are handed on to the YAML reader).
#[test]
fn a_read_that_fails_part_way_is_reported_with_or_without_reading_ahead() {
    struct Failing<'a>(&'a [u8]);
    impl std::io::Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("disk on fire"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let items: Vec<String> = (0..30)
        .map(|i| format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c{i}","namespace":"n1","uid":"u{i}"}}}}"#))
        .collect();
    let list = format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
        items.join(",")
    );
    let flow_yaml = flow_yaml(30);
    for (what, text) in [("list", &list), ("flow yaml", &flow_yaml)] {
        let cut = &text.as_bytes()[..text.len() * 2 / 3];
        for chunk in [None, Some(7), Some(64), Some(1000)] {
            json::TEST_CHUNK.set(chunk);
            let out = run(&opts(), |reader| {
                let source = crate::input::walk::Source::named(None);
                text::read_stream("input", &mut Failing(cut), source, reader)
            });
            json::TEST_CHUNK.set(None);
            let (_, stats, problems, _) = out.unwrap();
            assert!(
                problems
                    .iter()
                    .any(|p| p.to_string().contains("cannot read: disk on fire")),
                "{what}, chunks of {chunk:?}: {problems:?}"
            );
            assert!(stats.broken > 0, "{what}, chunks of {chunk:?}");
        }
    }
}

/// Manifests keep each object's line and its references' lines: in a List larger than the
/// whole-value window (streamed item by item, across chunk joins), in a top-level array, and
/// in concatenated values.
#[test]
fn manifest_origins_keep_lines_across_chunks() {
    let pad = "x".repeat(400);
    let item = |i: usize| {
        format!(
            "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\n \"metadata\": {{\"name\": \"o{i}\", \"namespace\": \"n\", \"annotations\": {{\"pad\": \"{pad}\"}},\n  \"ownerReferences\": [\n   {{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"name\": \"p\", \"uid\": \"u{i}\"}}]}}}}"
        )
    };
    let n = 3000;
    let items: Vec<String> = (0..n).map(item).collect();
    // Line 1 opens the list; item i starts on line 2 + 4i, its reference on the 4th line.
    let list = format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n{}\n]}}\n",
        items.join(",\n")
    );
    assert!(list.len() > json::WHOLE_UP_TO, "streamed, not parsed whole");
    let array = format!("[\n{}\n]\n", items.join(",\n"));
    let concatenated = format!("\n{}\n", items.join("\n"));
    let manifests = FileOptions {
        manifests: true,
        ..opts()
    };
    for (what, text, first) in [
        ("list", &list, 2),
        ("array", &array, 2),
        ("concatenated", &concatenated, 2),
    ] {
        for chunk in [None, Some(1 << 16), Some(100_003)] {
            json::TEST_CHUNK.set(chunk);
            let out = read_bytes_with_origins("m.json", text.as_bytes(), &manifests);
            json::TEST_CHUNK.set(None);
            let (s, _, problems, origins) = out.unwrap();
            assert!(problems.is_empty(), "{what}: {problems:?}");
            assert_eq!(s.store.len(), n, "{what}");
            for id in s.store.ids() {
                let name = s.store.str(s.store.object(id).name);
                let i: u32 = name[1..].parse().unwrap();
                let o = origins.of(id).unwrap_or_else(|| panic!("{what}: {name}"));
                let start = first + 4 * i;
                assert_eq!(
                    (o.line, o.ref_lines.clone()),
                    (Some(start), vec![start + 3]),
                    "{what}, chunks of {chunk:?}: {name}"
                );
                assert_eq!(&*o.file, "m.json");
            }
        }
    }
}

/// A large JSON input of known size estimates, a tenth of the way in, how many objects it
/// holds, and the store makes room for them at once; what is read does not change.
#[test]
fn a_sized_input_makes_room_for_its_objects_once_a_tenth_is_read() {
    assert_eq!(recognize::still_to_come(100, 1_000, 10_000), 900);
    assert_eq!(recognize::still_to_come(0, 1_000, 10_000), 0);
    assert_eq!(
        recognize::still_to_come(5, 0, 10),
        50,
        "no division by zero"
    );
    assert_eq!(recognize::still_to_come(7, 20, 10), 0, "read past the size");
    assert_eq!(
        recognize::still_to_come(usize::MAX, 1, u64::MAX),
        usize::MAX,
        "saturates"
    );
    // 2,000 small objects, then one whose skipped `data` is nine tenths of the input (which,
    // above 1 MiB, is streamed item by item): the estimate (ten times what the first tenth
    // held) is far off, which shows it was made.
    let item = |i: usize, data: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c{i}","namespace":"n","uid":"u{i}"}},"data":{{"k":"{data}"}}}}"#
        )
    };
    let mut items: Vec<String> = (0..2_000).map(|i| item(i, "")).collect();
    let small = items.iter().map(String::len).sum::<usize>();
    items.push(item(2_000, &"x".repeat(small * 9)));
    let text = format!(
        r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
        items.join(",")
    );
    let read_with = |estimate_from: u64| {
        let (snap, stats, problems, _) = run(&opts(), |reader| {
            reader.estimate_from = estimate_from;
            let source = crate::input::walk::Source::named(Some(text.len() as u64));
            text::read_stream("list.json", &mut text.as_bytes(), source, reader)
        })
        .unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(stats.objects, 2_001);
        snap
    };
    let estimated = read_with(0);
    let not = read_with(u64::MAX);
    assert_eq!(snapshot_body(&estimated), snapshot_body(&not));
    assert!(
        estimated.store.objects.capacity() >= 15_000,
        "room for about 20,000 objects: {}",
        estimated.store.objects.capacity()
    );
    assert!(
        not.store.objects.capacity() < 10_000,
        "{}",
        not.store.objects.capacity()
    );
}
