use super::*;
use crate::model::ObjId;
use crate::snapshot::{ListOutcome, SourceKind};

fn sample() -> Snapshot {
    let mut b = SnapshotBuilder::new(Provenance {
        tool: "kubectl-gc test".into(),
        captured_at: "2026-01-01T00:00:00Z".into(),
        server_version: Some("v1.20.2".into()),
        source: SourceKind::Live,
        ..Default::default()
    });
    let rs = b.add_resource(Resource {
        group: "apps".into(),
        version: "v1".into(),
        kind: "ReplicaSet".into(),
        plural: "replicasets".into(),
        namespaced: true,
        verbs: vec!["delete".into(), "list".into(), "watch".into()],
        preferred_version: "v1".into(),
        list: ListOutcome::Complete,
    });
    let meta: MetaIn = serde_json::from_str(
        r#"{"namespace":"ns","name":"rs1","uid":"u-rs","resourceVersion":"7",
            "finalizers":["x/y"],"labels":{"app":"a"},
            "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"u-d","controller":true}]}"#,
    )
    .unwrap();
    b.add_object(rs, &meta);
    b.finish()
}

#[test]
fn round_trips_plain_and_gzip() {
    let snap = sample();
    let dir = tempfile::tempdir().unwrap();
    for name in ["s.ndjson", "s.ndjson.gz"] {
        let p = dir.path().join(name);
        write_file(&snap, &p).unwrap();
        let back = read_file(&p).unwrap();
        assert_eq!(back.provenance, snap.provenance);
        assert_eq!(back.resources, snap.resources);
        assert_eq!(back.store.len(), 1);
        let id = ObjId(0);
        let r = back.store.owner_refs(id)[0];
        assert_eq!(back.store.str(r.uid), "u-d");
        assert_eq!(r.controller, Some(true));
        assert_eq!(r.block_owner_deletion, None);
        assert_eq!(back.store.str(back.store.finalizers(id)[0]), "x/y");
    }
}

#[test]
fn truncated_file_is_an_input_error() {
    let snap = sample();
    let mut buf = Vec::new();
    write(&snap, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let header_only = text.lines().next().unwrap();
    let err = parse(Path::new("x"), header_only.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
    assert_eq!(err.exit_code(), crate::error::exit::INPUT);
}

#[test]
fn a_cut_gzip_snapshot_says_truncated() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.ndjson.gz");
    write_file(&sample(), &p).unwrap();
    let gz = std::fs::read(&p).unwrap();
    std::fs::write(&p, &gz[..gz.len() / 2]).unwrap();
    let err = read_file(&p).unwrap_err();
    assert!(
        err.to_string().contains("truncated: the data ends early"),
        "{err}"
    );
    assert_eq!(err.exit_code(), crate::error::exit::INPUT);
}

fn written(snap: &Snapshot) -> String {
    let mut buf = Vec::new();
    write(snap, &mut buf).unwrap();
    String::from_utf8(buf).unwrap()
}

#[test]
fn trailer_detects_dropped_edited_and_appended_lines() {
    let mut snap = sample();
    let meta: MetaIn =
        serde_json::from_str(r#"{"namespace":"ns","name":"rs2","uid":"u-2"}"#).unwrap();
    let mut b = SnapshotBuilder::new(snap.provenance.clone());
    for r in &snap.resources {
        b.add_resource(r.clone());
    }
    b.add_object(
        ResourceId(0),
        &MetaIn {
            ..serde_json::from_str(r#"{"namespace":"ns","name":"rs1","uid":"u-rs"}"#).unwrap()
        },
    );
    b.add_object(ResourceId(0), &meta);
    snap = b.finish();
    let text = written(&snap);
    let (_, integrity) = parse_reader(Path::new("x"), text.as_bytes(), 0).unwrap();
    assert_eq!(integrity, Integrity::Verified);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[3].starts_with(r#"{"trailer":{"objects":2,"crc32":""#));
    // A line dropped, and the header's count edited to match: the trailer still catches it.
    let dropped = [
        lines[0]
            .replace(r#""objects":2"#, r#""objects":1"#)
            .as_str(),
        lines[2],
        lines[3],
    ]
    .join("\n");
    let err = parse(Path::new("x"), dropped.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("trailer counts 2"), "{err}");
    // A value edited.
    let edited = text.replace("rs2", "rs3");
    let err = parse(Path::new("x"), edited.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("CRC-32"), "{err}");
    // Data after the trailer.
    let appended = format!("{text}{}\n", lines[2]);
    let err = parse(Path::new("x"), appended.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("after the trailer"), "{err}");
    // Written before trailers existed: read, but unverified.
    let old = lines[..3].join("\n");
    let (_, integrity) = parse_reader(Path::new("x"), old.as_bytes(), 0).unwrap();
    assert_eq!(integrity, Integrity::Unverified);
}

/// The written snapshot of `sample`'s resources and `n` objects of resource 0, the metadata
/// of object `i` being `meta_json(i)`.
fn written_with(n: usize, meta_json: impl Fn(usize) -> String) -> String {
    let base = sample();
    let mut b = SnapshotBuilder::new(base.provenance.clone());
    for r in &base.resources {
        b.add_resource(r.clone());
    }
    for i in 0..n {
        let json = meta_json(i);
        let meta: MetaIn = serde_json::from_str(&json).unwrap();
        b.add_object(ResourceId(0), &meta);
    }
    written(&b.finish())
}

/// A written snapshot and five ways to spoil it: an edited value, blank lines (both change
/// the digest), no final newline, a truncated line, data after the trailer.
fn variants(text: &str) -> [String; 6] {
    [
        text.to_string(),
        text.replace("rs3", "rs9"),
        text.replacen('\n', "\n\n", 2),
        text.trim_end().to_string(),
        text[..text.len() / 2].to_string(),
        format!("{text}{}\n", text.lines().nth(1).unwrap()),
    ]
}

/// Lines cut by the reader thread's chunk boundaries at every possible place read the
/// same as whole: the same objects, the same verdict on the trailer, the same errors.
#[test]
fn lines_split_across_chunks_read_as_whole() {
    let text = written_with(5, |i| {
        format!(
            r#"{{"namespace":"ns","name":"rs{i}","uid":"u-{i}","finalizers":["f/{i}"],
                "ownerReferences":[{{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"u-d"}}]}}"#
        )
    });
    let outcome = |input: &str, chunk: usize| {
        parse_chunked(Path::new("x"), input.as_bytes(), 0, chunk)
            .map(|(snap, integrity)| (written(&snap), integrity))
            .map_err(|e| e.to_string())
    };
    let variants = variants(&text);
    assert_eq!(
        outcome(&text, CHUNK),
        Ok((text.clone(), Integrity::Verified))
    );
    for input in &variants {
        let whole = outcome(input, CHUNK);
        for chunk in [1, 2, 3, 5, 7, 16, 61, 100, 256, 1000] {
            assert_eq!(outcome(input, chunk), whole, "chunk {chunk}");
        }
    }
    assert!(outcome(&variants[1], CHUNK).unwrap_err().contains("CRC-32"));
    assert!(
        outcome(&variants[5], CHUNK)
            .unwrap_err()
            .contains("after the trailer")
    );
}

/// A snapshot file is replaced whole (a new file renamed over the old one, with the
/// permissions a plain create gives), and written through a symbolic link in place.
#[test]
fn snapshot_files_are_replaced_whole() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.ndjson");
    std::fs::write(&file, "old").unwrap();
    let held = std::fs::File::open(&file).unwrap();
    let snap = sample();
    write_file(&snap, &file).unwrap();
    // A reader of the old file keeps reading the old file.
    let mut old = String::new();
    std::io::Read::read_to_string(&mut &held, &mut old).unwrap();
    assert_eq!(old, "old");
    assert_eq!(written(&read_file(&file).unwrap()), written(&snap));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["s.ndjson"], "no temporary file left behind");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !crate::util::umask());
        let link = dir.path().join("link.ndjson");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        write_file(&snap, &link).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(written(&read_file(&link).unwrap()), written(&snap));
    }
    let err = write_file(&snap, &dir.path().join("no/such/s.ndjson")).unwrap_err();
    assert!(
        err.to_string().contains("cannot create snapshot file"),
        "{err}"
    );
}

/// A mapped file reads as the chunked stream does, its pages handed back behind the cursor
/// as often as can be (every line), through the variants above and at every size.
#[test]
fn mapped_files_read_as_streamed() {
    // Enough objects for the file to span many pages.
    let text = written_with(3000, |i| {
        format!(
            r#"{{"namespace":"ns-{}","name":"rs{i}","uid":"u-{i}","labels":{{"app":"a{i}"}},
                "ownerReferences":[{{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"u-d{}"}}]}}"#,
            i % 7,
            i % 13
        )
    });
    assert!(
        text.len() > 64 * crate::input::bytes::page_size(),
        "{} bytes",
        text.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.ndjson");
    let mut variants = variants(&text).to_vec();
    variants.extend([String::new(), "\n".to_string()]);
    for (i, input) in variants.iter().enumerate() {
        std::fs::write(&file, input).unwrap();
        let streamed = parse_chunked(Path::new("x"), input.as_bytes(), 0, CHUNK)
            .map(|(snap, integrity)| (written(&snap), integrity))
            .map_err(|e| e.to_string());
        let f = std::fs::File::open(&file).unwrap();
        let map = crate::input::bytes::map(&f).expect("a map of the test's own file");
        for every in [1, 4096, RELEASE_EVERY] {
            let mapped = parse_mapped(Path::new("x"), &map, every)
                .map(|(snap, integrity)| (written(&snap), integrity))
                .map_err(|e| e.to_string());
            assert_eq!(mapped, streamed, "variant {i}, release every {every}");
        }
    }
    // And through the file reader, which maps files from `MAP_FROM` bytes (blank lines
    // after the trailer are allowed).
    let mut big = text.clone();
    while (big.len() as u64) < MAP_FROM {
        big.push_str(&" ".repeat(64 << 10));
        big.push('\n');
    }
    std::fs::write(&file, &big).unwrap();
    let (snap, integrity) = read_file_checked(&file).unwrap();
    assert_eq!((written(&snap), integrity), (text, Integrity::Verified));
}

#[test]
fn duplicate_resource_rows_are_rejected() {
    let text = written(&sample());
    let header = text.lines().next().unwrap();
    let start = header.find(r#""resources":["#).unwrap() + r#""resources":["#.len();
    let end = header[start..].find("}]").unwrap() + start + 1;
    let row = &header[start..end];
    let doubled = text.replacen(row, &format!("{row},{row}"), 1);
    let err = parse(Path::new("x"), doubled.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("resource rows 0 and 1"), "{err}");
    assert_eq!(err.exit_code(), crate::error::exit::INPUT);
}

#[test]
fn kubectl_json_is_rejected_with_a_hint() {
    let err = parse(
        Path::new("x"),
        br#"{"apiVersion":"v1","kind":"List","items":[]}"#,
    )
    .unwrap_err();
    assert!(err.hint().unwrap().contains("-f"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

    /// Any edit of a valid snapshot: read or refused, never a panic. A snapshot cut short is
    /// refused, except when exactly the trailer is gone: then every object is there, and the
    /// snapshot is read as unverified (like one written before trailers existed).
    #[test]
    fn edited_or_cut_snapshots_never_panic(pos in 0usize..4096, byte in 0u8..=255, cut in 0usize..4096) {
        let text = written(&sample()).into_bytes();
        let mut edited = text.clone();
        let p = pos % edited.len();
        edited[p] = byte;
        let _ = parse(Path::new("x"), &edited);
        let cut = cut % (text.len() - 1);
        match parse_reader(Path::new("x"), &text[..cut], 0) {
            Err(_) => {}
            Ok((s, integrity)) => {
                proptest::prop_assert_eq!(integrity, Integrity::Unverified);
                proptest::prop_assert_eq!(s.store.len(), 1, "cut at {}", cut);
            }
        }
    }
}

/// `--snapshot` takes what `-f` takes: the one snapshot of a glob, of any compression, or in
/// an archive reads as the plain file does; two where one is expected, or none, is an error.
#[test]
fn a_snapshot_is_found_by_the_input_layers_walker() {
    let dir = tempfile::tempdir().unwrap();
    let snap = sample();
    let plain = dir.path().join("s.ndjson");
    write_file(&snap, &plain).unwrap();
    let bytes = std::fs::read(&plain).unwrap();
    let zst = dir.path().join("z.ndjson.zst");
    std::fs::write(&zst, zstd::stream::encode_all(&bytes[..], 1).unwrap()).unwrap();
    let mut tar = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_gnu();
    header.set_size(bytes.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "snapshot.ndjson", &bytes[..])
        .unwrap();
    let archived = dir.path().join("a.tar");
    std::fs::write(&archived, tar.into_inner().unwrap()).unwrap();
    for path in [zst.clone(), archived, dir.path().join("z*.zst")] {
        let (back, integrity) = read_path(&path, 0).unwrap();
        assert_eq!(written(&back), written(&snap), "{}", path.display());
        assert_eq!(integrity, Integrity::Verified, "{}", path.display());
    }
    let two = read_path(&dir.path().join("*"), 0).unwrap_err().to_string();
    assert!(
        two.contains("a second input where one snapshot was expected"),
        "{two}"
    );
    let none = read_path(&dir.path().join("x*"), 0)
        .unwrap_err()
        .to_string();
    assert!(none.contains("no file matches this pattern"), "{none}");
}
