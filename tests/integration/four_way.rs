//! The four-way agreement test (issue 64 item 7): for every object of the scenario corpus
//! (`tests/data/corpus/`: each fixture the GC's scenario tests build — `src/gc/tests/scenarios.rs`,
//! `plan.rs`, `graph.rs` and upstream's tests re-expressed in `src/gc/tests/upstream/` — kept
//! by `testkit::corpus`), the binary is asked four ways and each answer is read from the
//! command's own JSON, not from a value the commands share:
//!
//! * `why -o json`: `outcome.state` and `outcome.when`;
//! * `collect -o json`: the object's end state in `outcomes`, and `when` on its requests;
//! * `audit -o json`: `when` on the findings about the object that say what the GC does to it;
//! * `check restart -o json`: `when` on GC015 (what a start does to it), and whether a start
//!   acts on it at all.
//!
//! They must agree, at the newest release and at v1.20.2 (the live suites' release). One
//! `collect`, `audit` and `check restart` per snapshot and release, one `why` per object.

use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Codes whose *when* is the object's own (the GC acting on it); the others answer a fixed
/// *when* about the finding (stuck: never; unknown; a start's order-dependent risk).
const OBJECT_CODES: &[&str] = &[
    "GC001", "GC002", "GC003", "GC004", "GC009", "GC014", "GC021",
];

fn run(file: &Path, version: Option<&str>, args: &[&str]) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-gc"));
    cmd.args(args)
        .arg("--snapshot")
        .arg(file)
        .args(["-o", "json"]);
    if let Some(v) = version {
        cmd.args(["--gc-version", v]);
    }
    let out = cmd
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run kubectl-gc");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{} {args:?} --gc-version {version:?}: {e}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// An object of a snapshot file, as `why` names it.
struct Obj {
    uid: String,
    namespace: String,
    /// `plural[.group]/name`.
    name: String,
}

fn objects(text: &str) -> Vec<Obj> {
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().expect("header")).expect("header");
    let resources = header["resources"].as_array().expect("resources");
    let mut out = Vec::new();
    for line in lines {
        let v: Value = serde_json::from_str(line).expect("line");
        let (Some(r), Some(m)) = (v["resource"].as_u64(), v.get("metadata")) else {
            continue; // the trailer
        };
        let r = &resources[r as usize];
        let (plural, group) = (r["plural"].as_str().unwrap(), r["group"].as_str().unwrap());
        let resource = if group.is_empty() {
            plural.to_owned()
        } else {
            format!("{plural}.{group}")
        };
        out.push(Obj {
            uid: m["uid"].as_str().unwrap().to_owned(),
            namespace: m["namespace"].as_str().unwrap_or("").to_owned(),
            name: format!("{resource}/{}", m["name"].as_str().unwrap()),
        });
    }
    // Two objects under one name (a fixture of two captures) are no object `why` can name.
    let mut names: BTreeMap<(String, String), usize> = BTreeMap::new();
    for o in &out {
        *names
            .entry((o.namespace.clone(), o.name.clone()))
            .or_default() += 1;
    }
    out.retain(|o| names[&(o.namespace.clone(), o.name.clone())] == 1);
    out
}

/// `collect`'s end state of an object (as `why` words it), and when its requests go out.
fn collect_says(doc: &Value, uid: &str) -> (String, Vec<String>) {
    let whens = doc["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["target"]["uid"] == uid)
        .map(|a| {
            a["when"]
                .as_str()
                .expect("every request says when")
                .to_owned()
        })
        .collect();
    let listed = doc["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["target"]["uid"] == uid);
    let state = match listed {
        None => "kept".to_owned(),
        Some(o) if o["alternatives"].as_array().is_some_and(|a| !a.is_empty()) => {
            "order-dependent".to_owned()
        }
        Some(o)
            if o["state"] == "kept"
                && o["why"].as_str().is_some_and(|w| w.starts_with("unknown")) =>
        {
            "unknown".to_owned()
        }
        Some(o) => o["state"].as_str().unwrap().to_owned(),
    };
    (state, whens)
}

/// Each finding about `uid` of a report: (code, when).
fn findings_on(doc: &Value, uid: &str) -> Vec<(String, Option<String>)> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["object"]["uid"] == uid)
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_owned(),
                f["when"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

/// Every disagreement of the four views on one snapshot at one release.
fn disagreements(
    file: &Path,
    version: Option<&str>,
    seen: &Mutex<BTreeMap<String, usize>>,
) -> Vec<String> {
    let text = std::fs::read_to_string(file).expect("corpus file");
    let collect = run(file, version, &["collect", "-A"]);
    let audit = run(file, version, &["audit", "-A"]);
    let restart = run(file, version, &["check", "restart", "-A"]);
    let mut out = Vec::new();
    for o in objects(&text) {
        let mut args = vec!["why", o.name.as_str()];
        if !o.namespace.is_empty() {
            args.extend(["-n", o.namespace.as_str()]);
        }
        let why = run(file, version, &args);
        let (state, when) = (
            why["outcome"]["state"].as_str().unwrap_or("?").to_owned(),
            why["outcome"]["when"].as_str().unwrap_or("?").to_owned(),
        );
        let at = format!(
            "{} at {}: {} -n {:?}",
            file.file_name().unwrap().to_string_lossy(),
            version.unwrap_or("the newest release"),
            o.name,
            o.namespace
        );
        *seen
            .lock()
            .unwrap()
            .entry(format!("{state} {when}"))
            .or_default() += 1;
        let (c_state, c_whens) = collect_says(&collect, &o.uid);
        if c_state != state {
            out.push(format!("{at}: why says {state}, collect {c_state}"));
        }
        // A request's time is the object's, unless the object is kept (its requests strip
        // references) or goes with its namespace.
        if why["outcome"]["by"] == "garbage-collector" {
            for w in c_whens.iter().filter(|w| **w != when) {
                out.push(format!(
                    "{at}: why says {when}, collect sends a request {w}"
                ));
            }
        }
        for (code, w) in findings_on(&audit, &o.uid) {
            if let Some(w) = w.filter(|w| OBJECT_CODES.contains(&code.as_str()) && *w != when) {
                out.push(format!("{at}: why says {when}, audit's {code} {w}"));
            }
        }
        let at_start = findings_on(&restart, &o.uid);
        for (code, w) in &at_start {
            if let Some(w) = w.as_ref().filter(|w| code == "GC015" && **w != when) {
                out.push(format!("{at}: why says {when}, check restart's GC015 {w}"));
            }
        }
        // Waiting for a start is what check restart reports: GC015 (what the start does) or
        // GC016 (what it may do, by order).
        let listed = at_start.iter().any(|(c, _)| c == "GC015" || c == "GC016");
        if when == "restart" && state != "kept" && !listed {
            out.push(format!(
                "{at}: why says restart, check restart lists nothing"
            ));
        }
    }
    out
}

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/data/corpus")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ndjson"))
        .collect();
    files.sort();
    // One run per distinct fixture: several tests build the same cluster.
    let mut texts = HashSet::new();
    files.retain(|p| texts.insert(std::fs::read(p).expect("corpus file")));
    files
}

#[test]
fn why_collect_audit_and_check_restart_agree_on_every_object_of_the_scenario_corpus() {
    let files = corpus();
    assert!(
        files.len() > 80,
        "the corpus holds the scenarios: {}",
        files.len()
    );
    let jobs: Vec<(&PathBuf, Option<&str>)> = files
        .iter()
        .flat_map(|f| [(f, None), (f, Some("1.20.2"))])
        .collect();
    let next = AtomicUsize::new(0);
    let found = Mutex::new(Vec::new());
    let seen = Mutex::new(BTreeMap::new());
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(&(file, version)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let d = disagreements(file, version, &seen);
                    found.lock().unwrap().extend(d);
                }
            });
        }
    });
    let found = found.into_inner().unwrap();
    assert!(
        found.is_empty(),
        "{} disagreement(s):\n{}",
        found.len(),
        found.join("\n")
    );
    // The corpus exercises the timeline's answers, not one of them.
    let seen = seen.into_inner().unwrap();
    eprintln!(
        "four-way: {} snapshot(s), two releases; objects by answer: {seen:?}",
        files.len()
    );
    for answer in [
        "deleted restart",
        "deleted now-or-restart",
        "deleted now",
        "kept never",
    ] {
        assert!(seen.contains_key(answer), "{answer}: {seen:?}");
    }
}
