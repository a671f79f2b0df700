//! The live binary's test runner: suites of tests that share a context (a control plane), run in
//! order, selected like libtest selects tests.
//!
//! A test's full name is `<suite>::<test>`. Arguments are libtest's: name filters (substrings,
//! or whole names with `--exact`), `--skip FILTER`, `--list` (with `--format terse`: names
//! only), `--ignored` (there are none: runs nothing); `--nocapture`, `--show-output`,
//! `--test-threads N`, `--quiet`, `--color WHEN` are accepted and change nothing (output is
//! never captured; tests run one at a time: the control planes need the machine). Unknown
//! options are an error.
//!
//! A suite's context is built (its control plane started) only when one of its tests is
//! selected. A test may name earlier tests of its suite it builds on (`needs`): they run too
//! when it is selected, and when one of them failed it is reported failed without running.
//! When the context cannot be built, every selected test of the suite is reported failed —
//! a missing control plane is never a skip.

use std::any::Any;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

/// One test of a suite.
pub struct Test<C> {
    /// Its name within the suite.
    pub name: &'static str,
    /// Earlier tests of the suite whose results it builds on.
    pub needs: &'static [&'static str],
    /// The test: panics on failure.
    pub run: fn(&C),
}

/// Tests that share a context.
pub struct Suite<C: 'static> {
    /// The suite's name: the first part of its tests' names.
    pub name: &'static str,
    /// Builds the context (starts the control plane); an error fails every selected test.
    pub setup: fn() -> Result<C, String>,
    /// The tests, in the order they run.
    pub tests: &'static [Test<C>],
}

/// A suite with its context type erased, so suites of different contexts form one list.
pub trait AnySuite {
    /// The suite's name.
    fn name(&self) -> &'static str;
    /// Its tests' names and needs, in order.
    fn tests(&self) -> Vec<(&'static str, &'static [&'static str])>;
    /// Runs the tests whose index is in `selected` (already closed under `needs`).
    fn run(&self, selected: &[bool], report: &mut Report);
}

impl<C: 'static> AnySuite for Suite<C> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn tests(&self) -> Vec<(&'static str, &'static [&'static str])> {
        self.tests.iter().map(|t| (t.name, t.needs)).collect()
    }

    fn run(&self, selected: &[bool], report: &mut Report) {
        let t = Instant::now();
        println!("\n{}: setting up", self.name);
        let ctx = match catch_unwind(self.setup) {
            Ok(Ok(ctx)) => ctx,
            Ok(Err(e)) => return self.setup_failed(&e, selected, report),
            Err(panic) => return self.setup_failed(&panic_message(&*panic), selected, report),
        };
        println!("{}: set up in {:.1}s", self.name, t.elapsed().as_secs_f64());
        let mut failed: Vec<&str> = Vec::new();
        for (test, _) in self.tests.iter().zip(selected).filter(|(_, s)| **s) {
            let name = format!("{}::{}", self.name, test.name);
            if let Some(need) = test.needs.iter().find(|n| failed.contains(n)) {
                failed.push(test.name);
                report.failed(
                    &name,
                    0.0,
                    &format!("not run: it needs `{need}`, which failed"),
                );
                continue;
            }
            let _ = std::io::stdout().flush();
            let t = Instant::now();
            let result = catch_unwind(AssertUnwindSafe(|| (test.run)(&ctx)));
            let secs = t.elapsed().as_secs_f64();
            match result {
                Ok(()) => report.passed(&name, secs),
                Err(panic) => {
                    failed.push(test.name);
                    report.failed(&name, secs, &panic_message(&*panic));
                }
            }
        }
        // Stops the control plane(s), also when a test panicked.
        drop(ctx);
    }
}

impl<C: 'static> Suite<C> {
    fn setup_failed(&self, error: &str, selected: &[bool], report: &mut Report) {
        eprintln!("{}: cannot set up the suite: {error}", self.name);
        for (test, _) in self.tests.iter().zip(selected).filter(|(_, s)| **s) {
            report.failed(
                &format!("{}::{}", self.name, test.name),
                0.0,
                &format!("not run: the suite's setup failed: {error}"),
            );
        }
    }
}

fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "(panic without a message)".to_owned())
}

/// Results so far.
#[derive(Default)]
pub struct Report {
    passed: usize,
    failures: Vec<(String, String)>,
}

impl Report {
    fn passed(&mut self, name: &str, secs: f64) {
        self.passed += 1;
        println!("test {name} ... ok ({secs:.1}s)");
    }

    fn failed(&mut self, name: &str, secs: f64, why: &str) {
        println!("test {name} ... FAILED ({secs:.1}s)");
        self.failures.push((name.to_owned(), why.to_owned()));
    }
}

/// What the command line asks for.
#[derive(Default)]
struct Args {
    filters: Vec<String>,
    skip: Vec<String>,
    exact: bool,
    list: bool,
    terse: bool,
    ignored: bool,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut out = Args::default();
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .ok_or_else(|| format!("option {flag} needs a value"))
        };
        match a.as_str() {
            "--list" => out.list = true,
            "--exact" => out.exact = true,
            "--ignored" => out.ignored = true,
            "--skip" => out.skip.push(value("--skip")?),
            "--format" => out.terse = value("--format")? == "terse",
            "--include-ignored" | "--nocapture" | "--show-output" | "-q" | "--quiet" => {}
            "--test-threads" | "--color" | "-Z" => {
                value(&a)?;
            }
            s if s.starts_with("--format=") => out.terse = s == "--format=terse",
            s if s.starts_with("--test-threads=") || s.starts_with("--color=") => {}
            s if s.starts_with('-') => {
                return Err(format!(
                    "unknown option {s}: the live harness takes name filters, --exact, \
                     --skip FILTER, --list (see ARCHITECTURE.md, Tests)"
                ));
            }
            _ => out.filters.push(a),
        }
    }
    Ok(out)
}

impl Args {
    fn matches(&self, name: &str) -> bool {
        let hit = |f: &String| {
            if self.exact {
                name == f
            } else {
                name.contains(f.as_str())
            }
        };
        !self.ignored
            && (self.filters.is_empty() || self.filters.iter().any(hit))
            && !self.skip.iter().any(hit)
    }
}

/// Runs the suites as the command line `args` asks; returns the process's exit code (0 when
/// every selected test passed, 101 like libtest otherwise, 2 for a bad command line).
pub fn main(suites: &[&dyn AnySuite], args: impl IntoIterator<Item = String>) -> u8 {
    let args = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    // Per suite: which tests run, closed under `needs`.
    let mut plan: Vec<Vec<bool>> = Vec::new();
    let (mut total, mut wanted) = (0, 0);
    for suite in suites {
        let tests = suite.tests();
        let mut selected: Vec<bool> = tests
            .iter()
            .map(|(name, _)| args.matches(&format!("{}::{name}", suite.name())))
            .collect();
        for i in (0..tests.len()).rev() {
            if selected[i] {
                mark_needs(suite.name(), &tests, i, &mut selected);
            }
        }
        total += tests.len();
        wanted += selected.iter().filter(|s| **s).count();
        plan.push(selected);
    }
    if args.list {
        for (suite, selected) in suites.iter().zip(&plan) {
            for ((name, _), _) in suite.tests().iter().zip(selected).filter(|(_, s)| **s) {
                println!("{}::{name}: test", suite.name());
            }
        }
        if !args.terse {
            println!("\n{wanted} tests, 0 benchmarks");
        }
        return 0;
    }

    let started = Instant::now();
    println!("\nrunning {wanted} tests");
    let mut report = Report::default();
    for (suite, selected) in suites.iter().zip(&plan) {
        if selected.iter().any(|s| *s) {
            suite.run(selected, &mut report);
        }
    }
    let failed = report.failures.len();
    if failed > 0 {
        println!("\nfailures:");
        for (name, why) in &report.failures {
            println!("    {name}: {}", why.lines().next().unwrap_or(""));
        }
    }
    println!(
        "\ntest result: {}. {} passed; {failed} failed; 0 ignored; 0 measured; {} filtered out; \
         finished in {:.2}s\n",
        if failed == 0 { "ok" } else { "FAILED" },
        report.passed,
        total - wanted,
        started.elapsed().as_secs_f64()
    );
    if failed == 0 { 0 } else { 101 }
}

/// Selects what test `i` needs, transitively. A need that is not an earlier test of the suite is
/// a mistake in the suite's table: it panics.
fn mark_needs(
    suite: &str,
    tests: &[(&'static str, &'static [&'static str])],
    i: usize,
    selected: &mut [bool],
) {
    for need in tests[i].1 {
        let j = tests[..i]
            .iter()
            .position(|(name, _)| name == need)
            .unwrap_or_else(|| {
                panic!(
                    "{suite}::{} needs `{need}`, which is not an earlier test of {suite}",
                    tests[i].0
                )
            });
        if !selected[j] {
            selected[j] = true;
            mark_needs(suite, tests, j, selected);
        }
    }
}
