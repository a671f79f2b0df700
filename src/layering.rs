//! The layering `lib.rs` describes, checked: every top-level module may import only the
//! modules listed for it in [`LAYERS`]. A `crate::name` path anywhere in a module's files
//! (imports and inline paths; comments excluded) is an import of `name`.
//!
//! Test code (files under a `tests/` folder, `tests.rs`, and everything after a
//! `#[cfg(test)]` line) may also import what [`TEST_ONLY`] adds (test support); otherwise it
//! obeys the same table. Set
//! `KGC_LAYERING_SRC` to check another tree's `src/` (e.g. an older checkout).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each top-level module and the modules it may import, bottom layer first.
const LAYERS: &[(&str, &[&str])] = &[
    ("error", &[]),
    ("util", &[]),
    ("build_info", &[]),
    ("model", &["error"]),
    // The input layer: paths, walks, archives, decompression, memory maps, under every file
    // reader.
    ("input", &["error"]),
    ("catalog", &["model"]),
    ("snapshot", &["input", "model", "catalog", "error", "util"]),
    (
        "source",
        &["input", "snapshot", "model", "catalog", "error", "util"],
    ),
    ("lookup", &["snapshot", "model", "catalog", "error"]),
    // The namespace controller (what holds a namespace being deleted), beside the GC: its
    // simulation asks it what a terminating namespace loses and whether it goes.
    ("namespace", &["model", "snapshot", "catalog", "error"]),
    // The emulated GC: nothing that judges, renders, applies or parses flags.
    (
        "gc",
        &["namespace", "model", "snapshot", "catalog", "error", "util"],
    ),
    (
        "diagnose",
        &[
            "source",
            "lookup",
            "gc",
            "namespace",
            "model",
            "snapshot",
            "catalog",
            "error",
            "util",
            "build_info",
        ],
    ),
    // The analysis runner: the threads of an analysis, which the engine above only names
    // (`util::fork`). After diagnose; before everything that runs an analysis.
    ("run", &["diagnose", "gc", "snapshot", "catalog", "util"]),
    // The shadow GC: findings kept up to date from watch streams. After diagnose; before the
    // renderers, which format its transitions.
    (
        "watch",
        &[
            "run",
            "diagnose",
            "gc",
            "namespace",
            "source",
            "model",
            "snapshot",
            "catalog",
            "error",
            "util",
            "build_info",
        ],
    ),
    // The admission webhook: the GC's verdicts on a write, read from the watch's graph. After
    // watch; renders nothing.
    (
        "admit",
        &[
            "watch",
            "diagnose",
            "gc",
            "namespace",
            "model",
            "snapshot",
            "catalog",
            "error",
            "util",
            "build_info",
        ],
    ),
    (
        "render",
        &[
            "watch",
            "diagnose",
            "gc",
            "namespace",
            "model",
            "snapshot",
            "catalog",
            "error",
            "util",
            "build_info",
        ],
    ),
    (
        "apply",
        &[
            "run", "diagnose", "gc", "source", "model", "snapshot", "catalog", "error", "util",
        ],
    ),
    (
        "cli",
        &[
            "render",
            "diagnose",
            "source",
            "catalog",
            "error",
            "util",
            "build_info",
        ],
    ),
    // `kubectl gc mcp`: runs the commands as child processes; in process only the read, the
    // plan and the apply of `apply_plan`. Beside the commands, which wire it.
    (
        "mcp",
        &[
            "run", "apply", "render", "cli", "gc", "lookup", "source", "snapshot", "model",
            "catalog", "error", "util",
        ],
    ),
    (
        "commands",
        &[
            "mcp",
            "run",
            "admit",
            "watch",
            "cli",
            "apply",
            "render",
            "diagnose",
            "gc",
            "namespace",
            "lookup",
            "source",
            "snapshot",
            "model",
            "catalog",
            "error",
            "util",
            "build_info",
            "testkit",
        ],
    ),
    // Test support (not shipped): builds snapshots and loads clusters.
    (
        "testkit",
        &["source", "snapshot", "model", "catalog", "error", "util"],
    ),
];

/// What test code may import beyond its module's layer: test support everywhere; the
/// generator's own tests check what it generates with the GC and the audit; the namespace
/// controller's tests check what the GC's simulation makes of it.
const TEST_ONLY: &[(&str, &[&str])] = &[
    ("*", &["testkit"]),
    ("testkit", &["gc", "diagnose"]),
    ("namespace", &["gc"]),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src/") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `crate::name` module names a line refers to, outside comments and string literals.
fn crate_refs(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    let mut in_str = false;
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b'c' if !in_str && code[i..].starts_with("crate::") => {
                let boundary =
                    i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
                let rest = &code[i + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if boundary && !name.is_empty() {
                    out.push(name);
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Every import that breaks the layering, as `file:line: module imports other`.
fn violations(src: &Path) -> Vec<String> {
    let layers: std::collections::BTreeMap<&str, BTreeSet<&str>> = LAYERS
        .iter()
        .map(|(m, allowed)| (*m, allowed.iter().copied().collect()))
        .collect();
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src).expect("under src/");
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let module = parts[0].trim_end_matches(".rs").to_owned();
        if module == "lib" || module == "main" || module == "layering" {
            continue;
        }
        let Some(allowed) = layers.get(module.as_str()) else {
            out.push(format!(
                "{}: module `{module}` has no layer in src/layering.rs",
                rel.display()
            ));
            continue;
        };
        let test_file = parts.iter().any(|p| p == "tests" || p == "tests.rs");
        let text = std::fs::read_to_string(&file).expect("read source file");
        let mut in_test = test_file;
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                in_test = true;
            }
            for name in crate_refs(line) {
                let ok = name == module
                    || allowed.contains(name.as_str())
                    || (in_test
                        && TEST_ONLY.iter().any(|(m, extra)| {
                            (*m == "*" || *m == module) && extra.contains(&name.as_str())
                        }));
                if !ok {
                    out.push(format!(
                        "{}:{}: `{module}` imports `{name}`",
                        rel.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn modules_import_only_the_layers_below_them() {
    let src = std::env::var_os("KGC_LAYERING_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let found = violations(&src);
    assert!(
        found.is_empty(),
        "imports that break the layering of lib.rs (fix the import, or the table in \
         src/layering.rs if the design changed):\n{}",
        found.join("\n")
    );
}

#[test]
fn crate_paths_are_found_in_code_only() {
    assert_eq!(
        crate_refs("use crate::gc::{Plan, State}; let x = crate::model::ObjId(1);"),
        ["gc", "model"]
    );
    assert!(crate_refs("// see crate::render").is_empty());
    assert!(crate_refs(r#"let s = "crate::cli";"#).is_empty());
    assert!(crate_refs("use kubectl_crate::x;").is_empty());
}

/// The engine's modules: single-threaded code, whose independent work goes through a
/// `util::fork::Fork` that the analysis runner (`crate::run`) gives threads.
const ENGINE: &[&str] = &["gc", "namespace", "diagnose"];

/// What starts a thread or a task, however it is spelled: `std::thread` (spawn, scope,
/// Builder), scoped spawns, thread pools and async tasks.
const THREADING: &[&str] = &[
    "thread::",
    "spawn",
    "scope(|",
    "rayon",
    "crossbeam",
    "tokio::",
];

/// Lines of engine code outside tests that start threads, as `file:line: text`.
fn engine_threads(src: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for module in ENGINE {
        let mut files = Vec::new();
        let dir = src.join(module);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        }
        files.sort();
        for file in files {
            let rel = file.strip_prefix(src).expect("under src/");
            if rel
                .components()
                .any(|c| c.as_os_str() == "tests" || c.as_os_str() == "tests.rs")
            {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("read source file");
            for (n, line) in text.lines().enumerate() {
                if line.trim_start().starts_with("#[cfg(test)]") {
                    break;
                }
                if starts_threads(line) {
                    out.push(format!("{}:{}: {}", rel.display(), n + 1, line.trim()));
                }
            }
        }
    }
    out
}

/// Whether a line's code (not its comment) starts a thread or a task.
fn starts_threads(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    THREADING.iter().any(|t| code.contains(t))
}

#[test]
fn the_engine_starts_no_threads() {
    let src = std::env::var_os("KGC_LAYERING_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let found = engine_threads(&src);
    assert!(
        found.is_empty(),
        "the engine (gc, namespace, diagnose) is single-threaded code: name the independent \
         work through `util::fork::join` and let the runner (src/run) give it threads:\n{}",
        found.join("\n")
    );
}

#[test]
fn thread_starts_are_recognised_in_code_only() {
    for line in [
        "    let (a, b) = std::thread::scope(|s| {",
        "std::thread::Builder::new().name(n).spawn_scoped(scope, f)",
        "        crate::util::spawn_scoped(threads, \"flip-runs\", f)",
        "    let (a, b) = rayon::join(f, g);",
        "use rayon::prelude::*;",
        "    tokio::task::spawn_blocking(f)",
    ] {
        assert!(starts_threads(line), "{line}");
    }
    for line in [
        "    let scope = c.scope(gc, seeds);",
        "    if !self.in_scope(id) {",
        "    // std::thread::spawn is the runner's",
        "    join(gc.fork, \"plan\", a, b)",
    ] {
        assert!(!starts_threads(line), "{line}");
    }
}
