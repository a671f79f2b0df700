use super::*;

#[test]
fn glob_patterns() {
    assert!(glob_match("*.log.gz", "audit-1.log.gz"));
    assert!(!glob_match("*.log.gz", ".audit.log.gz"));
    assert!(glob_match(".*", ".hidden"));
    assert!(glob_match("audit-?.log", "audit-1.log"));
    assert!(!glob_match("audit-?.log", "audit-12.log"));
    assert!(glob_match("node-[12]-*", "node-2-audit.log"));
    assert!(!glob_match("node-[!12]-*", "node-2-audit.log"));
    assert!(glob_match("node-[a-c]x", "node-bx"));
    assert!(glob_match("a*b*c", "aXXbYYbZc"));
    assert!(!glob_match("a*b*c", "aXXbYYbZ"));
    assert!(glob_match("[", "["));
    assert!(glob_match("x[]]y", "x]y"));
}

/// Records what the walker hands over.
#[derive(Default)]
struct Seen {
    texts: Vec<(String, Vec<u8>, bool)>,
    problems: Vec<(String, String)>,
    ignored: Vec<String>,
}

impl Visitor for Seen {
    fn candidate(&self, name: &str) -> bool {
        !name.ends_with(".md")
    }
    fn text(&mut self, text: Text<'_>) -> Result<()> {
        let mut bytes = Vec::new();
        match text.r.read_to_end(&mut bytes) {
            Ok(_) => self
                .texts
                .push((text.name.to_owned(), bytes, text.source.explicit)),
            Err(e) => self
                .problems
                .push((text.name.to_owned(), Problem::Read(e).cause())),
        }
        Ok(())
    }
    fn event(&mut self, event: Event<'_>) -> Result<()> {
        match event {
            Event::Problem(name, p) => self.problems.push((name.to_owned(), p.cause())),
            Event::Ignored(name) => self.ignored.push(name.to_owned()),
            Event::Special(_) | Event::Archive(_) => {}
        }
        Ok(())
    }
}

const WORDS: Words = Words {
    not_found: "hint",
    stdin_terminal: ("terminal", "hint"),
    empty_dir: ("empty", "hint"),
};

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn walk(max_bytes: u64) -> Walk<'static> {
    Walk {
        recursive: true,
        max_bytes,
        words: &WORDS,
    }
}

#[test]
fn compression_is_followed_to_the_nesting_limit_and_no_further() {
    let mut data = b"text".to_vec();
    for _ in 0..MAX_NESTING {
        data = gzip(&data);
    }
    let mut seen = Seen::default();
    walk(0)
        .read_stream("x", &mut &data[..], Source::named(None), &mut seen)
        .unwrap();
    assert_eq!(seen.texts.len(), 1);
    assert_eq!(seen.texts[0].1, b"text");
    assert!(seen.problems.is_empty());

    let once_more = gzip(&data);
    let mut seen = Seen::default();
    walk(0)
        .read_stream("x", &mut &once_more[..], Source::named(None), &mut seen)
        .unwrap();
    assert!(seen.texts.is_empty());
    assert_eq!(seen.problems.len(), 1);
    assert!(seen.problems[0].1.contains("nested too deeply"));
}

#[test]
fn decompressed_data_stops_at_the_cap() {
    let data = gzip(&vec![b'a'; 10_000]);
    let mut seen = Seen::default();
    walk(100)
        .read_stream(
            "bomb.gz",
            &mut &data[..],
            Source::named(Some(data.len() as u64)),
            &mut seen,
        )
        .unwrap();
    // The text is handed over; reading past the cap fails, in words that name the flag.
    assert!(seen.texts.is_empty());
    assert_eq!(seen.problems.len(), 1);
    assert!(
        seen.problems[0]
            .1
            .starts_with("more than 100 bytes after decompression or from a pipe: stopped (raise the limit with --max-input-size)"),
        "{:?}",
        seen.problems
    );
}

#[test]
fn globs_directories_and_archives_reach_every_reader_alike() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.log"), b"one").unwrap();
    std::fs::write(dir.path().join("b.log.gz"), gzip(b"two")).unwrap();
    std::fs::write(dir.path().join("c.md"), b"not read").unwrap();
    let mut tar = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_gnu();
    header.set_size(5);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "inner.log", &b"three"[..])
        .unwrap();
    std::fs::write(
        dir.path().join("d.tar.gz"),
        gzip(&tar.into_inner().unwrap()),
    )
    .unwrap();

    let mut seen = Seen::default();
    walk(0)
        .read_paths(&[dir.path().join("*")], &mut seen)
        .unwrap();
    let texts: Vec<&[u8]> = seen.texts.iter().map(|t| &t.1[..]).collect();
    assert_eq!(texts, [&b"one"[..], b"two", b"three"]);
    assert!(
        seen.texts.iter().all(|t| !t.2),
        "a glob's matches are not named"
    );
    assert!(seen.texts[2].0.ends_with("d.tar.gz/inner.log"));
    assert_eq!(seen.ignored.len(), 1);

    let mut by_dir = Seen::default();
    walk(0)
        .read_paths(&[dir.path().to_owned()], &mut by_dir)
        .unwrap();
    assert_eq!(by_dir.texts, seen.texts);

    let err = walk(0)
        .read_paths(&[dir.path().join("*.none")], &mut Seen::default())
        .unwrap_err();
    assert!(err.to_string().contains("no file matches this pattern"));
}
