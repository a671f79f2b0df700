//! One answer per object: `why`'s `outcome` is what `collect` reports for the same object on
//! the same input (issue 56, item 1). `collect`'s side is read from its JSON report — the
//! document users get from `collect -o json` — built from a plan simulated separately, so
//! the test holds `why`'s reading of the plan against the report's, object by object.
//!
//! A **consistency** test, not an oracle of the simulation: both sides read the same
//! `Plan::steady_state` (through `diagnose::analysis` and `render::plan::report`), so a wrong
//! end state that both report alike passes here (engine mutants do: docs/testing.md, M1 and
//! M14). What the engine predicts is held to independent oracles elsewhere: upstream's own
//! cases (`gc/tests/upstream/`), literal scenarios (`gc/tests/`, `diagnose/tests/`) and the
//! real v1.20.2 GC (`tests/live/differential.rs`, `check.rs`, `apply_safety.rs`).

use crate::catalog::KubeVersion;
use crate::diagnose::analysis::Analysis;
use crate::diagnose::timeline::{Reason, Timeline, When};
use crate::diagnose::why::{Extras, why};
use crate::gc::{GarbageCollector, Plan};
use crate::snapshot::Snapshot;
use crate::testkit::forests::{forest_cluster, random_forests};
use crate::testkit::generate::{GenOptions, generate};
use serde_json::Value;
use std::collections::HashMap;

/// `collect`'s word for one object: its outcome in the report, or, for an object the report
/// does not list, the state it is left in as it is (the report lists every object the plan
/// touches, leaves terminating or leaves stuck).
fn collect_says<'a>(by_uid: &HashMap<&str, &'a Value>, uid: &str) -> (String, Option<&'a Value>) {
    let Some(o) = by_uid.get(uid) else {
        return ("kept".to_owned(), None);
    };
    let state = o["state"].as_str().expect("state").to_owned();
    let alternatives = o.get("alternatives").and_then(Value::as_array);
    if alternatives.is_some_and(|a| !a.is_empty()) {
        return ("order-dependent".to_owned(), Some(o));
    }
    if state == "kept" && o["why"].as_str().is_some_and(|w| w.starts_with("unknown")) {
        return ("unknown".to_owned(), Some(o));
    }
    (state, Some(o))
}

/// Holds `why`'s outcome of every object of `snap` against `collect`'s report at `version`;
/// returns how many objects each state was checked on.
fn check(snap: &Snapshot, version: KubeVersion, what: &str) -> HashMap<String, usize> {
    let gc = GarbageCollector::new(snap, version);
    let (steady, start) = (Plan::steady_state(&gc), Plan::restart(&gc));
    let mut report = crate::render::plan::report(&gc, &steady, "collect");
    let timings = Timeline::new(&gc, &steady, &start, []).of_actions();
    crate::render::plan::time_actions(&mut report, &steady, &timings);
    let report = serde_json::to_value(report).expect("report as JSON");
    let outcomes = report["outcomes"].as_array().expect("outcomes");
    let by_uid: HashMap<&str, &Value> = outcomes
        .iter()
        .map(|o| (o["target"]["uid"].as_str().expect("uid"), o))
        .collect();
    let deletes: HashMap<&str, u64> = report["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .filter(|a| a["verb"] == "delete")
        .map(|a| {
            (
                a["target"]["uid"].as_str().expect("uid"),
                a["wave"].as_u64().expect("wave"),
            )
        })
        .collect();
    // collect's word for when each request goes out.
    let whens: HashMap<&str, &str> = report["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .map(|a| {
            (
                a["target"]["uid"].as_str().expect("uid"),
                a["when"].as_str().expect("every action says when"),
            )
        })
        .collect();
    let analysis = Analysis::new(&gc);
    let mut seen: HashMap<String, usize> = HashMap::new();
    for id in snap.store.ids() {
        let answer = why(&gc, &analysis, id, &Extras::default());
        let uid = answer.object.uid.as_str();
        let (state, listed) = collect_says(&by_uid, uid);
        let got = &answer.outcome;
        let at = format!("{what} at {version}: {} ({uid})", answer.object);
        assert_eq!(
            got.state, state,
            "{at}: why says {got:?}, collect {listed:?}"
        );
        if state == "order-dependent" {
            let o = listed.expect("listed");
            let mut all = vec![serde_json::json!({"state": o["state"]})];
            all.extend(
                o["alternatives"]
                    .as_array()
                    .expect("alternatives")
                    .iter()
                    .cloned(),
            );
            let why_states: Vec<&str> = got.alternatives.iter().map(|a| a.state).collect();
            let collect_states: Vec<&str> = all
                .iter()
                .map(|a| a["state"].as_str().expect("state"))
                .collect();
            assert_eq!(why_states, collect_states, "{at}");
        }
        if let Some(&wave) = deletes.get(uid) {
            assert_eq!(
                got.wave,
                Some(wave as u32),
                "{at}: collect deletes it in wave {wave}"
            );
            assert_eq!(got.by, Some("garbage-collector"), "{at}");
            // Deleted, and when: unless (before 1.20) nothing ever puts it on a queue.
            assert!(
                !matches!(got.when, When::Never | When::Unknown)
                    || got.when_reason == Some(Reason::Unreached),
                "{at}: {got:?}"
            );
        }
        if got.by == Some("garbage-collector")
            && let Some(&when) = whens.get(uid)
        {
            assert_eq!(got.when.as_str(), when, "{at}: collect says {when}");
        }
        if let Some(owner) = got.after.as_ref() {
            assert!(
                deletes
                    .get(owner.uid.as_str())
                    .is_some_and(|&w| Some(w as u32) < got.wave),
                "{at}: it follows {owner:?}, which collect deletes before it"
            );
        }
        *seen.entry(state).or_default() += 1;
    }
    seen
}

fn versions() -> [KubeVersion; 3] {
    [
        KubeVersion::parse("1.13").expect("version"),
        KubeVersion::parse("1.20.2").expect("version"),
        KubeVersion::NEWEST,
    ]
}

#[test]
fn why_tells_collects_end_state_for_every_object_of_generated_clusters() {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for seed in 1..=4 {
        let generated = generate(&GenOptions {
            objects: 400,
            seed,
            namespaces: Some(3),
            dangling_rate: 0.03,
            cross_namespace_rate: 0.02,
            unresolvable_rate: 0.01,
            foreground_rate: 0.02,
            orphan_rate: 0.02,
            ..GenOptions::default()
        });
        let snap = generated.to_snapshot();
        for v in versions() {
            for (state, n) in check(&snap, v, &format!("generated seed {seed}")) {
                *seen.entry(state).or_default() += n;
            }
        }
    }
    // The clusters exercise more than one answer: deletions, cascades, kept objects and
    // deletions in progress.
    for state in ["deleted", "kept", "terminating"] {
        assert!(seen.get(state).is_some_and(|&n| n > 0), "{state}: {seen:?}");
    }
}

#[test]
fn why_tells_collects_end_state_for_every_object_of_random_forests() {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for seed in 1..=30 {
        let snap = forest_cluster(&random_forests(seed, 12)).build();
        for v in versions() {
            for (state, n) in check(&snap, v, &format!("forest seed {seed}")) {
                *seen.entry(state).or_default() += n;
            }
        }
    }
    for state in ["deleted", "kept", "terminating", "order-dependent"] {
        assert!(seen.get(state).is_some_and(|&n| n > 0), "{state}: {seen:?}");
    }
}

#[test]
fn why_and_collect_agree_on_events_across_the_unverified_a10_window() {
    // Row A10's boundary is unverified (v1.25.0 to v1.28.0): inside it both views must say
    // unknown for an Event with a broken reference, and outside it the same certain answer.
    let mut c = crate::testkit::Cluster::new();
    c.resource("events.k8s.io", "v1", "Event", "events", true);
    c.obj("v1", "Pod", "ns", "p", "p");
    c.obj("events.k8s.io/v1", "Event", "ns", "dangling", "e1")
        .owner("v1", "Pod", "gone", "gone");
    c.obj("events.k8s.io/v1", "Event", "ns", "held", "e2")
        .owner("v1", "Pod", "p", "p");
    let snap = c.build();
    let at = |v: &str| check(&snap, KubeVersion::parse(v).expect("version"), v);
    assert_eq!(at("1.24").get("deleted"), Some(&1), "{:?}", at("1.24"));
    assert_eq!(at("1.26").get("unknown"), Some(&1), "{:?}", at("1.26"));
    assert_eq!(at("1.26").get("deleted"), None);
    assert_eq!(at("1.28").get("unknown"), None, "{:?}", at("1.28"));
    assert_eq!(at("1.28").get("deleted"), None);
}
