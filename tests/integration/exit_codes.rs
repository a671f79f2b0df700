//! One list of exit codes (issue 56, W15, C5, C23): the codes `src/error.rs` defines are each
//! listed, in numeric order, by `kubectl gc --help`, by README.md's table and by
//! docs/exit-codes.md; each command's `--help` lists, in numeric order, the codes that command
//! returns; and "the object named does not exist" is 8 in every command that names one.

use crate::support::run::kubectl_gc;
use std::collections::BTreeSet;

fn read(rel: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The codes `error::exit` defines, read from its source: a code added there without being
/// documented fails this test.
fn defined() -> BTreeSet<u8> {
    let src = read("src/error.rs");
    let module = src
        .split("pub mod exit {")
        .nth(1)
        .and_then(|rest| rest.split("\n}").next())
        .expect("error.rs has `pub mod exit { … }`");
    let codes: BTreeSet<u8> = module
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub const "))
        .map(|l| {
            let value = l.split('=').nth(1).expect("a constant has a value");
            value.trim().trim_end_matches(';').parse().expect("a u8")
        })
        .collect();
    // Every variant's code comes from one of these constants.
    let mapping = src
        .split("pub fn exit_code(&self) -> u8 {")
        .nth(1)
        .and_then(|rest| rest.split("\n    }").next())
        .expect("Error::exit_code");
    assert!(mapping.contains("exit::NOT_FOUND"), "{mapping}");
    assert!(
        !mapping.chars().any(|c| c.is_ascii_digit()),
        "exit_code maps to the named constants only:\n{mapping}"
    );
    codes
}

/// The codes of a help text's "Exit codes:" block, in the order listed.
fn listed(help: &str) -> Vec<u8> {
    let block = help
        .split("Exit codes:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no exit codes in:\n{help}"));
    block
        .lines()
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            l.split_whitespace()
                .next()
                .and_then(|c| c.parse().ok())
                .unwrap_or_else(|| panic!("not a code line: {l:?}"))
        })
        .collect()
}

fn help(args: &[&str]) -> String {
    let mut a = args.to_vec();
    a.push("--help");
    let (code, out, err) = kubectl_gc(&a);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

/// The codes of the first Markdown table after `heading` (`| 0 | … |` rows).
fn table_codes(doc: &str, heading: &str) -> Vec<u8> {
    let section = doc
        .split(heading)
        .nth(1)
        .unwrap_or_else(|| panic!("no {heading:?}"));
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.trim_start_matches('|').split('|').next())
        .filter_map(|c| c.trim().parse().ok())
        .collect()
}

#[test]
fn every_exit_code_is_documented_in_order_everywhere() {
    let all: Vec<u8> = defined().into_iter().collect();
    assert_eq!(
        all,
        (0..=8).chain([130, 143]).collect::<Vec<u8>>(),
        "the codes error.rs defines"
    );
    assert_eq!(listed(&help(&[])), all, "kubectl gc --help");
    assert_eq!(
        table_codes(&read("README.md"), "\n## Exit codes\n"),
        all,
        "README.md's table"
    );
    assert_eq!(
        table_codes(&read("docs/exit-codes.md"), "\n## The codes\n"),
        all,
        "docs/exit-codes.md"
    );
}

#[test]
fn each_command_lists_the_codes_it_returns_in_order() {
    // What each command can return, from its code: 1 for an unexpected failure (an API call
    // failing mid-run, output that cannot be written) and 2 for a bad command line everywhere;
    // 3 where it reads files; 4 where it reads a cluster; 5/6 where it gates; 7 where it
    // applies, and 130/143 there for a second Ctrl-C/SIGTERM; 8 where it looks up an object
    // by name.
    let expected: &[(&[&str], &[u8])] = &[
        (&["audit"], &[0, 1, 2, 3, 4, 5, 6]),
        (&["check"], &[0, 1, 2, 3, 4, 5, 6]),
        (&["check", "restart"], &[0, 1, 2, 3, 4, 5, 6]),
        (&["check", "upgrade"], &[0, 1, 2, 3, 4, 5, 6]),
        (&["check", "health"], &[0, 1, 2, 3, 4, 5, 6]),
        (&["check", "apply"], &[0, 1, 2, 3, 4, 5, 6]),
        (&["collect"], &[0, 1, 2, 3, 4, 7, 8, 130, 143]),
        (&["snapshot"], &[0, 1, 2, 3, 4]),
        (&["graph"], &[0, 1, 2, 3, 4, 5, 8]),
        (&["history"], &[0, 1, 2, 3, 4]),
        (&["relink"], &[0, 1, 2, 3, 4, 7, 130, 143]),
        (&["why"], &[0, 1, 2, 3, 4, 8]),
        (&["watch"], &[0, 1, 2, 3, 4, 5]),
        (&["admit"], &[0, 1, 2, 3, 4]),
        (&["policy"], &[0, 1, 2, 3]),
        (&["completion"], &[0, 1, 2]),
        (&["options"], &[0, 1, 2]),
        (&["version"], &[0, 1, 2]),
    ];
    let all = defined();
    // docs/exit-codes.md's "By command" table has a row naming each command (NM1: admit and
    // policy had none).
    let by_command = read("docs/exit-codes.md");
    let by_command = by_command
        .split("\n## By command\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/exit-codes.md has a \"By command\" section");
    let mut covered = BTreeSet::new();
    for (cmd, codes) in expected {
        let first = format!("`{}`", cmd[0]);
        assert!(
            by_command
                .lines()
                .any(|l| l.starts_with("| ")
                    && l.split('|').nth(1).is_some_and(|c| c.contains(&first))),
            "docs/exit-codes.md \"By command\" has no row for {first}"
        );
        let got = listed(&help(cmd));
        assert_eq!(got, *codes, "kubectl gc {} --help", cmd.join(" "));
        covered.extend(got);
    }
    assert_eq!(
        covered, all,
        "every defined code is returned by some command"
    );
}

#[test]
fn an_object_that_is_not_in_the_input_is_exit_8_in_every_command() {
    let snap = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/redis-operator-incident.json"
    );
    for args in [
        &["why", "deployment/nope", "-n", "kube-system"][..],
        &["graph", "deployment/nope", "-n", "kube-system"],
        &[
            "collect",
            "--delete",
            "deployment/nope",
            "-n",
            "kube-system",
        ],
        &["graph", "-A", "statefulset/nope"],
    ] {
        let mut a = args.to_vec();
        a.extend(["--snapshot", snap]);
        let (code, out, err) = kubectl_gc(&a);
        assert_eq!(code, 8, "{args:?}: {out}{err}");
        assert!(err.contains("not found"), "{args:?}: {err}");
        assert!(err.contains("hint:"), "{args:?}: {err}");
    }
    // The nearest names are offered (as `why` always did).
    let (_, _, err) = kubectl_gc(&[
        "graph",
        "statefulset/rfr-redis-cach",
        "-n",
        "kube-system",
        "--snapshot",
        snap,
    ]);
    assert!(
        err.contains("nearest: rfr-redis-cache -n kube-system"),
        "{err}"
    );
    // A kind nobody has stays a usage error (2), as in kubectl.
    let (code, _, err) = kubectl_gc(&["graph", "frobnicator/x", "--snapshot", snap]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_history_filter_that_names_nothing_in_the_log_says_so_and_exits_2() {
    let log = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/audit-shop.log");
    for (args, said) in [
        (&["-n", "nope"][..], "-n nope"),
        (&["--kind", "deploy"], "--kind deploy"),
    ] {
        let mut a = vec!["history", "--audit-log", log];
        a.extend(args);
        let (code, out, err) = kubectl_gc(&a);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains(&format!(
                "error: {said} matched none of the 3 action(s) in the log"
            )),
            "{err}"
        );
        assert!(
            err.contains("hint: the log's actions are on configmaps, in namespaces shop"),
            "{err}"
        );
        assert!(!out.contains("No deletions"), "{out}");
    }
    // The namespace the actions are in, and a kind spelled as kubectl spells it, still match.
    let (code, out, err) =
        kubectl_gc(&["history", "--audit-log", log, "-n", "shop", "--kind", "cm"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("3 action(s)"), "{out}");
    // Filters that select by who or when keep exit 0, and say the log had actions.
    let (code, out, err) = kubectl_gc(&[
        "history",
        "--audit-log",
        log,
        "--since",
        "2030-01-01T00:00:00Z",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("None of the 3 action(s) in the log matches the filters."),
        "{out}"
    );
}
