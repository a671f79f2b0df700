//! `shell_word`, checked character by character: which characters stay plain is written out
//! here, not taken from the function, and the shells themselves read every word back.

use super::shell_word;
use std::process::Command;

/// The characters no shell (bash, zsh, dash) treats specially anywhere in a word but the
/// first position, written out: a word made only of these is printed as it is.
const PLAIN: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-";

/// Characters a reader never sees as themselves, which must never be printed raw inside a
/// command (they reorder, hide or control what the terminal shows): C0 and C1 controls, DEL,
/// the bidirectional marks, embeddings, overrides and isolates, zero-width characters, the
/// BOM, line and paragraph separators, tag characters.
const INVISIBLE: &[char] = &[
    '\u{1}',
    '\u{7}',
    '\u{8}',
    '\t',
    '\n',
    '\u{b}',
    '\u{c}',
    '\r',
    '\u{1b}',
    '\u{7f}',
    '\u{85}',
    '\u{9b}',
    '\u{9d}',
    '\u{61c}',
    '\u{180e}',
    '\u{200b}',
    '\u{200c}',
    '\u{200d}',
    '\u{200e}',
    '\u{200f}',
    '\u{2028}',
    '\u{2029}',
    '\u{202a}',
    '\u{202b}',
    '\u{202c}',
    '\u{202d}',
    '\u{202e}',
    '\u{2060}',
    '\u{2066}',
    '\u{2067}',
    '\u{2068}',
    '\u{2069}',
    '\u{feff}',
    '\u{e0001}',
    '\u{e0041}',
    '\u{e007f}',
];

/// Visible non-ASCII text, quoted (no shell splits or expands it) and kept as it is: letters,
/// scripts, symbols, emoji (beyond the BMP), combining marks, spaces that are not ASCII.
const VISIBLE: &[&str] = &[
    "é",
    "ünï",
    "ж",
    "名前",
    "مرحبا",
    "✓",
    "€",
    "😀",
    "e\u{301}",
    "a\u{a0}b",
    "a\u{3000}b",
];

/// What `sh -c` prints for each word, read back through `printf '%s\0'`; also checks that
/// nothing was created in the working directory (no word ran a command) and that the files
/// put there to catch globbing are all that is left.
fn read_back(shell: &str, words: &[String]) -> Vec<Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    for f in ["a", "ab", "b", "x"] {
        std::fs::write(dir.path().join(f), "").unwrap();
    }
    let mut script = String::new();
    for w in words {
        script.push_str(&format!("printf '%s\\0' {}\n", shell_word(w)));
    }
    let out = Command::new(shell)
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .env("LC_ALL", "C.UTF-8")
        .env("HOME", "/nonexistent-home")
        .output()
        .unwrap_or_else(|e| panic!("{shell}: {e}"));
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{shell}: {}\n{script}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["a", "ab", "b", "x"],
        "{shell} ran something:\n{script}"
    );
    let mut got: Vec<Vec<u8>> = out.stdout.split(|&b| b == 0).map(<[u8]>::to_vec).collect();
    assert_eq!(
        got.pop(),
        Some(vec![]),
        "{shell}: output ends with the last NUL"
    );
    got
}

/// Each ASCII character (NUL cannot be in an argument) alone, doubled, between, before and
/// after letters, and as the separator of a would-be command.
fn ascii_words() -> Vec<String> {
    let mut words = Vec::new();
    for b in 1u8..=127 {
        let c = b as char;
        words.extend([
            c.to_string(),
            format!("{c}{c}"),
            format!("a{c}b"),
            format!("{c}a"),
            format!("a{c}"),
            format!("x{c}touch pwned{b}{c}"),
        ]);
    }
    words
}

#[test]
fn a_word_stays_plain_only_when_every_character_is_in_the_written_out_set() {
    for b in 1u8..=127 {
        let c = b as char;
        let inner = format!("a{c}b");
        let q = shell_word(&inner);
        if PLAIN.contains(c) {
            assert_eq!(q, inner, "{c:?} is plain");
        } else {
            assert!(
                q.starts_with('\'') || q.starts_with("$'"),
                "{c:?} must be quoted: {q}"
            );
        }
    }
    // The characters a quoting regression would let through first.
    for w in [
        "a;b", "a`b`", "a$b", "a|b", "a&b", "a b", "a*", "~a", "a#b", "a!b", "a\\b",
    ] {
        assert_ne!(shell_word(w), w, "{w:?}");
    }
    // zsh expands a leading `=` (`=ls` is ls's path); elsewhere it is plain.
    assert_eq!(shell_word("=ls"), "'=ls'");
    assert_eq!(shell_word("a=b"), "a=b");
    assert_eq!(shell_word(""), "''");
}

#[test]
fn every_ascii_character_reads_back_exactly_in_bash_and_runs_nothing() {
    let words = ascii_words();
    let got = read_back("bash", &words);
    assert_eq!(got.len(), words.len());
    for (w, g) in words.iter().zip(&got) {
        assert_eq!(g, w.as_bytes(), "{w:?} quoted as {}", shell_word(w));
    }
}

#[test]
fn words_without_invisible_characters_read_back_in_posix_sh_too() {
    // dash has no `$'…'`: the words quoted with plain single quotes are the POSIX ones.
    let words: Vec<String> = ascii_words()
        .into_iter()
        .chain(VISIBLE.iter().map(|s| s.to_string()))
        .filter(|w| !shell_word(w).starts_with("$'"))
        .collect();
    assert!(words.len() > 500, "{}", words.len());
    let got = read_back("dash", &words);
    for (w, g) in words.iter().zip(&got) {
        assert_eq!(g, w.as_bytes(), "{w:?} quoted as {}", shell_word(w));
    }
}

#[test]
fn unicode_reads_back_in_bash_and_invisible_characters_are_never_printed_raw() {
    let mut words: Vec<String> = VISIBLE.iter().map(|s| s.to_string()).collect();
    for &c in INVISIBLE {
        words.extend([
            format!("{c}"),
            format!("web{c}x"),
            format!("it's{c}$(touch p)"),
        ]);
    }
    let got = read_back("bash", &words);
    for (w, g) in words.iter().zip(&got) {
        assert_eq!(g, w.as_bytes(), "{w:?} quoted as {}", shell_word(w));
    }
    for v in VISIBLE {
        assert_eq!(
            shell_word(v),
            format!("'{v}'"),
            "visible text is kept as it is"
        );
    }
    for &c in INVISIBLE {
        let q = shell_word(&format!("web{c}x"));
        assert!(q.starts_with("$'web\\"), "{c:?}: {q}");
        assert!(q.is_ascii(), "{c:?} is escaped: {q}");
        assert!(!q.chars().any(|x| x.is_ascii_control()), "{c:?}: {q:?}");
    }
    // The escapes' forms, as bash reads them.
    assert_eq!(shell_word("esc\u{1b}x"), "$'esc\\x1bx'");
    assert_eq!(
        shell_word("nel\u{85}"),
        "$'nel\\u0085'",
        "a C1 control is two bytes"
    );
    assert_eq!(shell_word("rtl\u{202e}x"), "$'rtl\\u202ex'");
    assert_eq!(shell_word("tag\u{e0041}"), "$'tag\\U000e0041'");
    assert_eq!(shell_word("it's\n"), "$'it\\'s\\x0a'");
    assert_eq!(shell_word("web"), "web");
    assert_eq!(shell_word("it's"), "'it'\\''s'");
}
