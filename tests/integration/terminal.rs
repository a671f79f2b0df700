//! A real terminal (a pty through util-linux `script`): tables fit its width, progress is drawn
//! on stderr while long steps run, and nothing of either happens on a pipe.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-gc");
const STUCK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/stuck-foreground-deletion.json"
);
const INCIDENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/redis-operator-incident.json"
);

/// Runs `shell` (a `sh -c` command line) in a pty `cols` wide; returns what the terminal got.
fn in_terminal(shell: &str, cols: u16) -> String {
    let line = format!("stty cols {cols} rows 50; {shell}");
    let o = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env_remove("COLUMNS")
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .env("KUBECONFIG", "/nonexistent-kubeconfig")
        .output()
        .expect("util-linux script (a pty) is needed for the terminal tests");
    // `script -e` exits with the command's code (audit: 5 for findings); only a failure of
    // script itself matters here.
    assert!(
        o.status.code().is_some_and(|c| c < 100),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Text as it shows: escape sequences removed, each carriage return restarting the line.
fn screen_lines(raw: &str) -> Vec<String> {
    let mut text = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for n in chars.by_ref() {
                    if ('@'..='~').contains(&n) {
                        break;
                    }
                }
            }
            continue;
        }
        text.push(c);
    }
    // The terminal ends lines with CRLF; a lone CR redraws the line.
    text.replace("\r\n", "\n")
        .split('\n')
        .map(|l| l.rsplit('\r').next().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn tables_fit_the_terminal_width() {
    for (cols, cmd, input) in [
        (80, "audit", STUCK),
        (100, "audit", STUCK),
        (80, "collect", INCIDENT),
        (60, "check", STUCK),
    ] {
        let raw = in_terminal(&format!("{BIN} {cmd} --snapshot {input}"), cols);
        let lines = screen_lines(&raw);
        // The table is everything before the first blank line (then remedies and summary).
        let table: Vec<&String> = lines.iter().take_while(|l| !l.trim().is_empty()).collect();
        assert!(table.len() >= 2, "{cmd} at {cols}: {raw}");
        for l in &table {
            assert!(
                l.chars().count() <= cols as usize,
                "{cmd} at {cols} columns: {} wide: {l:?}",
                l.chars().count()
            );
        }
        assert!(
            table.iter().any(|l| l.contains('…')),
            "{cmd} at {cols}: something is cut to fit"
        );
    }
    // -o wide never truncates, even on a terminal.
    let raw = in_terminal(&format!("{BIN} audit --snapshot {STUCK} -o wide"), 80);
    assert!(!raw.contains('…'), "{raw}");
}

#[test]
fn progress_is_drawn_on_a_terminal_and_never_on_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("big.ndjson");
    let snap_s = snap.to_str().unwrap();
    // Big enough that reading it and rendering take longer than the spinner's delay.
    let o = Command::new(BIN)
        .args(["generate", "--objects", "60000", "-o", snap_s])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(Path::new(&snap).exists());
    let out = dir.path().join("graph.json");
    let raw = in_terminal(
        &format!(
            "{BIN} graph --snapshot {snap_s} -A -o json > {}",
            out.display()
        ),
        100,
    );
    // Steps shorter than the spinner's delay draw nothing, and reading a snapshot of this size
    // can be (the streaming reader is fast): rendering it as JSON is not.
    assert!(raw.contains("rendering…"), "{raw:?}");
    // Cleared at the end: the last thing on screen is an erased line.
    let last = screen_lines(&raw).last().cloned().unwrap_or_default();
    assert!(last.trim().is_empty(), "{last:?}");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).unwrap()).expect("stdout is clean JSON");
    assert_eq!(doc["kind"], "OwnershipGraph");
    // The same on a pipe: stderr holds no progress at all.
    let o = Command::new(BIN)
        .args(["graph", "--snapshot", snap_s, "-A", "-o", "json"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("…") && !err.contains('\r'), "{err:?}");
    // generate shows its own progress on a terminal.
    let raw = in_terminal(
        &format!(
            "{BIN} generate --objects 60000 -o {}",
            dir.path().join("g2.ndjson").display()
        ),
        100,
    );
    assert!(
        raw.contains("writing the snapshot…") || raw.contains("generating…"),
        "{raw:?}"
    );
}
