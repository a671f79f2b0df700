//! File inputs as users hit them (issue 11): broken input is reported and fails the run,
//! unreadable owners stay unknown, coverage is only claimed where the input proves it,
//! archives are read directly, nothing hangs or reads without limit; snapshots from stdin and
//! their integrity. Each test is one defect that was measured before the file reader was
//! rebuilt.

use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-gc");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("KUBECONFIG", "/nonexistent-kubeconfig")
        .stdin(Stdio::null())
        .output()
        .expect("run kubectl-gc")
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .env("KUBECONFIG", "/nonexistent-kubeconfig")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&o.stdout),
            stderr(o)
        )
    })
}

/// (code, object name) of every finding.
fn codes(r: &Value) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["object"]["name"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Names of the objects the collect plan deletes.
fn planned_deletes(plan: &Value) -> Vec<String> {
    plan["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["verb"] == "delete")
        .map(|a| a["target"]["name"].as_str().unwrap().to_owned())
        .collect()
}

/// A broken-input failure: exit 3, every problem on its own line naming the file.
fn assert_broken(o: &Output, file: &str, cause: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(3), "stderr: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(
        err.contains(file) && err.contains(cause),
        "{file} / {cause}: {err}"
    );
    assert!(err.contains("hint: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Real line breaks between the problems, not an escaped `\n` inside one long line.
    assert!(!err.contains("\\n"), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines[0].ends_with(':'), "{err}");
    for line in &lines[1..] {
        assert!(
            line.starts_with("  ") || line.starts_with("hint: "),
            "{line:?} in {err}"
        );
    }
}

/// A file name or cause that carries terminal control characters reaches the terminal escaped,
/// in the error and in `--skip-broken-input`'s warnings; many broken documents are listed one
/// per line up to a cap and the rest counted, so an error never floods a terminal.
#[test]
fn broken_input_is_shown_one_problem_per_line_and_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let ok = objects().join("\n");
    std::fs::write(dir.path().join("ok.json"), ok).unwrap();
    let hostile = "bad\u{1b}[31mred\u{7}.yaml";
    std::fs::write(dir.path().join(hostile), "kind: [\n").unwrap();
    let d = dir.path().to_str().unwrap();

    let o = run(&["audit", "-f", d]);
    assert_broken(&o, "bad^[[31mred\\x07.yaml", "invalid YAML");
    let err = stderr(&o);
    assert!(
        err.starts_with("error: 1 broken input document:\n"),
        "{err}"
    );
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");

    let o = run(&[
        "audit",
        "-f",
        d,
        "--skip-broken-input",
        "--fail-on",
        "never",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let warning = err
        .lines()
        .find(|l| l.starts_with("warning: "))
        .unwrap_or_else(|| panic!("no warning: {err}"));
    assert!(warning.contains("bad^[[31mred\\x07.yaml"), "{warning:?}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");

    // 25 broken files: 20 shown, 5 counted.
    let many = tempfile::tempdir().unwrap();
    for i in 0..25 {
        std::fs::write(many.path().join(format!("b{i:02}.yaml")), "kind: [\n").unwrap();
    }
    let o = run(&["audit", "-f", many.path().to_str().unwrap()]);
    assert_broken(&o, "b00.yaml", "invalid YAML");
    let err = stderr(&o);
    assert!(
        err.starts_with("error: 25 broken input documents:\n"),
        "{err}"
    );
    let shown = err.lines().filter(|l| l.contains("invalid YAML")).count();
    assert_eq!(shown, 20, "{err}");
    assert!(err.contains("  … and 5 more"), "{err}");
}

fn obj(
    kind: &str,
    api: &str,
    ns: &str,
    name: &str,
    uid: &str,
    owner: Option<(&str, &str, &str, &str)>,
) -> String {
    let refs = owner
        .map(|(a, k, n, u)| {
            format!(r#","ownerReferences":[{{"apiVersion":"{a}","kind":"{k}","name":"{n}","uid":"{u}","controller":true}}]"#)
        })
        .unwrap_or_default();
    format!(
        r#"{{"apiVersion":"{api}","kind":"{kind}","metadata":{{"name":"{name}","namespace":"{ns}","uid":"{uid}"{refs}}},"spec":{{"replicas":1}}}}"#
    )
}

/// A Deployment, its ReplicaSet and two Pods in namespace `a`, and a Pod whose ReplicaSet is
/// gone.
fn objects() -> Vec<String> {
    vec![
        obj("Deployment", "apps/v1", "a", "web", "d1", None),
        obj(
            "ReplicaSet",
            "apps/v1",
            "a",
            "web-1",
            "r1",
            Some(("apps/v1", "Deployment", "web", "d1")),
        ),
        obj(
            "Pod",
            "v1",
            "a",
            "web-1-x",
            "p1",
            Some(("apps/v1", "ReplicaSet", "web-1", "r1")),
        ),
        obj(
            "Pod",
            "v1",
            "a",
            "web-1-y",
            "p2",
            Some(("apps/v1", "ReplicaSet", "web-1", "r1")),
        ),
        obj(
            "Pod",
            "v1",
            "a",
            "orphan",
            "p3",
            Some(("apps/v1", "ReplicaSet", "gone", "r9")),
        ),
    ]
}

fn server_list(items: &[String]) -> String {
    format!(
        r#"{{"apiVersion":"v1","items":[{}],"kind":"List","metadata":{{"resourceVersion":"4711"}}}}"#,
        items.join(",")
    )
}

fn kubectl_list(items: &[String]) -> String {
    format!(
        r#"{{"apiVersion":"v1","items":[{}],"kind":"List","metadata":{{"resourceVersion":""}}}}"#,
        items.join(",")
    )
}

fn to_yaml_stream(items: &[String]) -> String {
    items
        .iter()
        .map(|i| {
            let v: Value = serde_json::from_str(i).unwrap();
            format!("---\n{}", serde_saphyr::to_string(&v).unwrap())
        })
        .collect()
}

#[test]
fn a_list_cut_off_is_an_input_error_in_audit_check_and_strict_mode() {
    let list = server_list(&objects());
    let cut = &list[..list.len() * 2 / 3];
    for args in [
        vec!["audit", "-f", "-"],
        vec!["audit", "-f", "-", "--strict-coverage"],
        vec!["check", "-f", "-"],
        vec!["collect", "-f", "-"],
    ] {
        let o = run_stdin(&args, cut.as_bytes());
        assert_broken(&o, "<stdin>", "cut off");
        assert!(stderr(&o).contains("byte "), "{}", stderr(&o));
    }
}

#[test]
fn unreadable_and_empty_inputs_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.json", vec![], "empty input"),
        (
            "garbage.json",
            vec![0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 0xff, 0xfe],
            "NUL",
        ),
        (
            "latin1.yaml",
            b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: caf\xe9, uid: u}\n".to_vec(),
            "UTF-8",
        ),
        // Out of range where kubectl-gc reads (elsewhere it is skipped unread, like any value).
        (
            "big.json",
            br#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":1e400,"uid":"u"}}"#
                .to_vec(),
            "number out of range",
        ),
        (
            "stats.json",
            br#"{"alerts":[],"status":"ok"}"#.to_vec(),
            "no Kubernetes object",
        ),
    ];
    for (name, bytes, cause) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        let o = run(&["audit", "-f", p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(3), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(cause), "{name}: {}", stderr(&o));
    }
    // Closed or empty standard input.
    let o = Command::new(BIN)
        .args(["audit", "-f", "-"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_broken(&o, "<stdin>", "empty input");
}

/// The owner ReplicaSet `web-1` is unreadable in four ways; the List around it is a server
/// list (and declared complete, too). Its dependents must never be predicted deleted.
#[test]
fn an_unreadable_owner_never_condemns_its_dependents() {
    let bad_rs = [
        (
            r#""controller":true"#,
            r#""controller":"true""#,
            "expected true or false",
        ),
        (
            r#""uid":"r1""#,
            r#""uid":"r1","finalizers":"x""#,
            "metadata.finalizers",
        ),
        (
            r#""uid":"r1""#,
            r#""uid":"r1","labels":{"app":{"nested":1}}"#,
            "metadata.labels",
        ),
        (
            r#""apiVersion":"apps/v1","kind":"ReplicaSet""#,
            r#""apiVersion":"apps/v1/","kind":"ReplicaSet""#,
            "invalid apiVersion",
        ),
    ];
    for (from, to, cause) in bad_rs {
        let mut items = objects();
        items[1] = items[1].replacen(from, to, 1);
        let list = server_list(&items);
        // By default: an error naming the document and the item.
        let o = run_stdin(&["audit", "-f", "-"], list.as_bytes());
        assert_broken(&o, "<stdin>", cause);
        assert!(stderr(&o).contains("item 1"), "{}", stderr(&o));
        // Going on: the ReplicaSet is unknown, so are its Pods' verdicts.
        for extra in [&[][..], &["--assume-complete"][..]] {
            let args = [
                &[
                    "audit",
                    "-f",
                    "-",
                    "-o",
                    "json",
                    "--skip-broken-input",
                    "--fail-on",
                    "never",
                ][..],
                extra,
            ]
            .concat();
            let r = json(&run_stdin(&args, list.as_bytes()));
            let c = codes(&r);
            for pod in ["web-1-x", "web-1-y"] {
                assert!(
                    c.contains(&("GC007".into(), pod.into())),
                    "{cause} {extra:?}: {c:?}"
                );
                assert!(!c.contains(&("GC001".into(), pod.into())), "{cause}: {c:?}");
            }
            let skipped = r["summary"]["coverage"]["skippedInputs"]
                .as_array()
                .unwrap();
            assert_eq!(skipped.len(), 1, "{skipped:?}");
            let args = [
                &["collect", "-f", "-", "-o", "json", "--skip-broken-input"][..],
                extra,
            ]
            .concat();
            let plan = json(&run_stdin(&args, list.as_bytes()));
            let deletes = planned_deletes(&plan);
            assert!(
                !deletes.iter().any(|d| d.starts_with("web-1-")),
                "{cause}: {deletes:?}"
            );
        }
    }
}

#[test]
fn list_concatenated_objects_and_yaml_stream_give_identical_verdicts() {
    let items = objects();
    let forms = [
        ("list", server_list(&items)),
        ("concatenated", items.join("\n")),
        ("array", format!("[{}]", items.join(","))),
        ("yaml", to_yaml_stream(&items)),
    ];
    for complete in [false, true] {
        let mut seen: Option<Vec<(String, String)>> = None;
        for (form, text) in &forms {
            // Declared complete, every form proves the same; otherwise only the server list
            // proves anything, so compare the forms that prove nothing among themselves.
            if !complete && *form == "list" {
                continue;
            }
            let mut args = vec!["audit", "-f", "-", "-o", "json", "--fail-on", "never"];
            if complete {
                args.push("--assume-complete");
            }
            let o = run_stdin(&args, text.as_bytes());
            assert_eq!(o.status.code(), Some(0), "{form}: {}", stderr(&o));
            let c = codes(&json(&o));
            match &seen {
                None => seen = Some(c),
                Some(first) => assert_eq!(first, &c, "{form} (complete: {complete})"),
            }
        }
        let want = if complete { "GC001" } else { "GC007" };
        assert_eq!(seen.unwrap(), [(want.to_owned(), "orphan".to_owned())]);
    }
    // The server list proves the ReplicaSets of namespace a: the missing one is absent.
    let r = json(&run_stdin(
        &["audit", "-f", "-", "-o", "json", "--fail-on", "never"],
        forms[0].1.as_bytes(),
    ));
    assert_eq!(codes(&r), [("GC001".to_owned(), "orphan".to_owned())]);
}

#[test]
fn a_list_of_named_objects_is_not_full_coverage() {
    // `kubectl get pod/orphan rs/web-1 -o json`: kubectl's List, resourceVersion "".
    let items = objects();
    let named = kubectl_list(&[items[4].clone(), items[1].clone()]);
    let r = json(&run_stdin(
        &["audit", "-f", "-", "-o", "json", "--fail-on", "never"],
        named.as_bytes(),
    ));
    // Neither the missing ReplicaSet nor the Deployment left out is taken for absent.
    assert_eq!(
        codes(&r),
        [
            ("GC007".to_owned(), "orphan".to_owned()),
            ("GC007".to_owned(), "web-1".to_owned())
        ]
    );
    // And the JSON says what is not held, concretely.
    let gaps = r["summary"]["coverage"]["gaps"].as_array().unwrap();
    let rs = gaps
        .iter()
        .find(|g| g["resource"] == "replicasets")
        .expect("replicasets gap");
    assert_eq!(rs["outcome"], "partial");
    assert_eq!(rs["notHeldIn"], serde_json::json!(["a"]));
    let plan = json(&run_stdin(
        &["collect", "-f", "-", "-o", "json"],
        named.as_bytes(),
    ));
    assert!(planned_deletes(&plan).is_empty());
}

#[test]
fn a_yaml_list_cut_at_an_item_boundary_is_detected() {
    let items = objects();
    let list: Value = serde_json::from_str(&kubectl_list(&items)).unwrap();
    let yaml = serde_saphyr::to_string(&list).unwrap();
    // kubectl prints apiVersion, items, kind, metadata: cut after the third item.
    let at = yaml.match_indices("\n- ").nth(3).unwrap().0 + 1;
    let cut = &yaml[..at];
    let o = run_stdin(&["audit", "-f", "-", "--assume-complete"], cut.as_bytes());
    assert_broken(&o, "<stdin>", "cut off");
}

#[test]
fn archives_are_read_without_extracting() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    std::fs::create_dir_all(root.join("ns/a")).unwrap();
    let items = objects();
    std::fs::write(root.join("ns/a/list.json"), server_list(&items[..3])).unwrap();
    std::fs::write(root.join("ns/a/pods.yaml"), to_yaml_stream(&items[3..])).unwrap();
    std::fs::write(root.join("ns/a/pod.log"), "not yaml: [").unwrap();
    let inner = dir.path().join("inner.tar.gz");
    let status = Command::new("tar")
        .args([
            "-czf",
            inner.to_str().unwrap(),
            "-C",
            dir.path().to_str().unwrap(),
            "bundle",
        ])
        .status()
        .unwrap();
    assert!(status.success());
    // A zip holding the tar.gz, as bundles get re-packed.
    let outer = dir.path().join("outer.zip");
    let f = std::fs::File::create(&outer).unwrap();
    let mut z = zip::ZipWriter::new(f);
    z.start_file(
        "upload/inner.tar.gz",
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    z.write_all(&std::fs::read(&inner).unwrap()).unwrap();
    z.finish().unwrap();
    let tree = json(&run(&[
        "audit",
        "-f",
        root.to_str().unwrap(),
        "-R",
        "-o",
        "json",
        "--fail-on",
        "never",
    ]));
    for archive in [&inner, &outer] {
        let r = json(&run(&[
            "audit",
            "-f",
            archive.to_str().unwrap(),
            "-o",
            "json",
            "--fail-on",
            "never",
        ]));
        assert_eq!(codes(&r), codes(&tree), "{}", archive.display());
        assert_eq!(r["summary"]["objects"], 5);
    }
    assert_eq!(codes(&tree), [("GC001".to_owned(), "orphan".to_owned())]);
}

/// Every object of a snapshot as (group, kind, namespace, name, uid, owner uids).
fn object_set(
    s: &kubectl_gc::snapshot::Snapshot,
) -> std::collections::BTreeSet<(String, String, String, String, String, Vec<String>)> {
    s.store
        .ids()
        .map(|id| {
            let o = s.store.object(id);
            let r = s.resource_of(o);
            (
                r.group.clone(),
                r.kind.clone(),
                s.store.str(o.namespace).to_owned(),
                s.store.str(o.name).to_owned(),
                s.store.str(o.uid).to_owned(),
                s.store
                    .owner_refs(id)
                    .iter()
                    .map(|x| s.store.str(x.uid).to_owned())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn real_must_gathers_read_from_their_tar_xz_equal_the_extracted_tree() {
    use kubectl_gc::gc::GarbageCollector;
    use kubectl_gc::source::files::{FileOptions, read_files_with_stats};
    let data = crate::realdata::realdata_dir().join("ocp-must-gather-clean");
    assert!(
        data.is_dir(),
        "real data missing at {}: this test must not be skipped",
        data.display()
    );
    for archive in ["must-gather-aws.tar.xz", "must-gather-metal.tar.xz"] {
        let file = data.join(archive);
        let tmp = tempfile::tempdir().unwrap();
        let status = Command::new("tar")
            .arg("-xJf")
            .arg(&file)
            .arg("-C")
            .arg(tmp.path())
            .status()
            .expect("tar");
        assert!(status.success());
        let read = |p: &Path, recursive| {
            read_files_with_stats(&FileOptions {
                paths: vec![p.to_path_buf()],
                recursive,
                ..FileOptions::default()
            })
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        };
        let (from_tree, tree_stats) = read(tmp.path(), true);
        let (from_archive, archive_stats) = read(&file, false);
        assert_eq!(
            object_set(&from_archive),
            object_set(&from_tree),
            "{archive}"
        );
        assert_eq!(archive_stats.objects, tree_stats.objects, "{archive}");
        assert_eq!(archive_stats.duplicates, tree_stats.duplicates, "{archive}");
        assert_eq!(archive_stats.archives, 1);
        assert!(
            from_archive.skipped.is_empty(),
            "{:?}",
            from_archive.skipped
        );
        let rows = |s: &kubectl_gc::snapshot::Snapshot| {
            let mut v: Vec<String> = s
                .resources
                .iter()
                .map(|r| format!("{} {} {} {:?}", r.api_version(), r.kind, r.plural, r.list))
                .collect();
            v.sort();
            v
        };
        assert_eq!(rows(&from_archive), rows(&from_tree), "{archive}");
        let findings = |s: &kubectl_gc::snapshot::Snapshot| {
            let gc = GarbageCollector::new(s, GarbageCollector::default_gc_version(s));
            kubectl_gc::diagnose::audit::audit(&gc).findings.len()
        };
        assert_eq!(findings(&from_archive), 0);
        assert_eq!(findings(&from_tree), 0);
    }
}

#[test]
fn special_files_never_hang_and_bombs_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    std::fs::write(&good, server_list(&objects())).unwrap();
    // A FIFO in a walked directory: skipped (reading it would block forever).
    let fifo = dir.path().join("pipe.yaml");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let start = Instant::now();
    let o = run(&[
        "audit",
        "-f",
        dir.path().to_str().unwrap(),
        "-o",
        "json",
        "--fail-on",
        "never",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(start.elapsed() < Duration::from_secs(20));
    // The same FIFO named directly, with nobody writing: empty input, at once.
    let start = Instant::now();
    let o = run(&["audit", "-f", fifo.to_str().unwrap()]);
    assert_broken(&o, "pipe.yaml", "empty input");
    assert!(start.elapsed() < Duration::from_secs(20));
    // A device: refused.
    let o = run(&["audit", "-f", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("device"), "{}", stderr(&o));
    // A gzip bomb: 64 MiB of spaces in a few KiB, with a 1Mi cap.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(server_list(&objects()).as_bytes()).unwrap();
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..64 {
        gz.write_all(&zeros).unwrap();
    }
    let bomb = gz.finish().unwrap();
    assert!(bomb.len() < 200_000);
    let path = dir.path().join("bomb.json.gz");
    std::fs::write(&path, &bomb).unwrap();
    let o = run(&[
        "audit",
        "-f",
        path.to_str().unwrap(),
        "--max-input-size",
        "1Mi",
    ]);
    assert_broken(&o, "bomb.json.gz", "--max-input-size");
    // Under the default cap it is read (whitespace is valid JSON).
    let o = run(&[
        "audit",
        "-f",
        path.to_str().unwrap(),
        "-o",
        "json",
        "--fail-on",
        "never",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn snapshots_from_stdin_and_files_converted_with_their_coverage() {
    let dir = tempfile::tempdir().unwrap();
    let named = kubectl_list(&objects());
    let input = dir.path().join("dump.json");
    std::fs::write(&input, &named).unwrap();
    for complete in [false, true] {
        let snap = dir.path().join(format!("s{complete}.ndjson.gz"));
        let mut args = vec![
            "snapshot",
            "-f",
            input.to_str().unwrap(),
            "-o",
            snap.to_str().unwrap(),
        ];
        if complete {
            args.push("--assume-complete");
        }
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let direct = {
            let mut a = vec![
                "audit",
                "-f",
                input.to_str().unwrap(),
                "-o",
                "json",
                "--fail-on",
                "never",
            ];
            if complete {
                a.push("--assume-complete");
            }
            codes(&json(&run(&a)))
        };
        // The snapshot answers as the files did: it recorded what they held.
        let bytes = std::fs::read(&snap).unwrap();
        for args in [
            vec![
                "audit",
                "--snapshot",
                "-",
                "-o",
                "json",
                "--fail-on",
                "never",
            ],
            vec!["audit", "-f", "-", "-o", "json", "--fail-on", "never"],
        ] {
            let o = run_stdin(&args, &bytes);
            assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
            assert_eq!(codes(&json(&o)), direct, "{args:?}");
        }
    }
}
