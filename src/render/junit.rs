//! `-o junit`: JUnit XML test reports, for the test-report views of CI systems (GitLab's
//! merge-request test summary, Jenkins' JUnit plugin, GitHub through a test-reporter action).
//!
//! # One test case per finding, one suite per cluster
//!
//! ```xml
//! <testsuites name="kubectl-gc audit" tests="3" failures="1" errors="0" skipped="1">
//!   <testsuite name="prod" tests="3" failures="1" errors="0" skipped="1">
//!     <properties><property name="gcVersion" value="1.28"/>…</properties>
//!     <testcase classname="prod.GC001 dangling-owner" name="ConfigMap/web-settings -n shop (owner ReplicaSet/web-58b6c4f9d7)">
//!       <failure type="error" message="the GC will delete this object …">…message, remedies…</failure>
//!     </testcase>
//!     <testcase classname="prod.GC007 unknown-owner" name="Pod/… -n shop (owner Job/…)">
//!       <skipped message="info is below --fail-on error"/>
//!     </testcase>
//!     <testcase classname="prod.coverage" name="coverage"/>
//!   </testsuite>
//! </testsuites>
//! ```
//!
//! Why per finding (an object × code × owner) rather than per code: CI systems track test
//! cases by (classname, name) across runs. Jenkins shows each failing case with "failing
//! since build N" and its history; GitLab's merge-request widget lists failures that are *new*
//! compared with the target branch and those that were fixed. With one case per object those
//! work as they do for tests: a new dangling reference is one new failure, a fixed one
//! disappears, and each failure's text is that object's message and remedy. One case per code
//! would collapse every object into one failure whose text changes whenever any object
//! changes — no "new", no "fixed", no history. The classname `<cluster>.<code> <name>` groups
//! the cases per code (Jenkins splits it into package = cluster, class = code).
//!
//! Findings at or above `--fail-on` are failures (the same rule as the exit code), findings
//! below it are skipped (visible, not failing). Every cluster also has a `coverage` case —
//! failing under `--strict-coverage` when something could not be read, else passing with the
//! gaps in `system-out` — so a clean cluster still reports one passing test (Jenkins fails a
//! build whose reports contain no test at all). A cluster that could not be audited has one
//! case with an `<error>`.
//!
//! Every string is escaped for XML; characters XML 1.0 cannot carry are shown as `\u{NNNN}`.

use super::ci::{CiReport, ClusterOutcome, owner_text, subject_text};
use super::escape::{xml, xml_line};
use crate::diagnose::Code;
use std::fmt::Write as _;
use std::io::{self, Write};

struct Case {
    classname: String,
    name: String,
    /// The manifest's file and line (`check apply`): the `file` and `line` attributes
    /// GitLab and Jenkins link to.
    source: Option<super::audit::SourceLocation>,
    result: CaseResult,
    system_out: Option<String>,
}

enum CaseResult {
    Passed,
    /// `<failure type message>text</failure>`.
    Failure {
        ty: String,
        message: String,
        text: String,
    },
    /// `<skipped message/>`, the text in `system-out`.
    Skipped {
        message: String,
        text: String,
    },
    /// `<error type="cluster" message>text</error>`.
    Error {
        message: String,
        text: String,
    },
}

/// Writes the JUnit document.
pub fn write(w: &mut dyn Write, r: &CiReport) -> io::Result<()> {
    let mut suites = String::new();
    let (mut tests, mut failures, mut errors, mut skipped) = (0, 0, 0, 0);
    for c in &r.clusters {
        let class_prefix = c.name.replace('\n', " ");
        let mut cases: Vec<Case> = Vec::new();
        let mut props: Vec<(&str, String)> = Vec::new();
        match &c.outcome {
            ClusterOutcome::Failed(e) => {
                let mut text = e.message.clone();
                if let Some(h) = &e.hint {
                    let _ = write!(text, "\nhint: {h}");
                }
                cases.push(Case {
                    classname: format!("{class_prefix}.{}", r.command.replace(' ', "-")),
                    source: None,
                    name: format!("read and analyse {}", c.name),
                    result: CaseResult::Error {
                        message: e.message.clone(),
                        text,
                    },
                    system_out: None,
                });
            }
            ClusterOutcome::Report { report, .. } => {
                props.push(("gcVersion", report.gc_version.clone()));
                props.push(("capturedAt", report.source.captured_at.clone()));
                if let Some(v) = &report.source.server_version {
                    props.push(("serverVersion", v.clone()));
                }
                props.push(("objects", report.summary.objects.to_string()));
                props.push(("suppressed", report.summary.suppressed.to_string()));
                props.push(("failOn", r.fail_on_text().into()));
                for f in &report.findings {
                    let code = Code::parse(f.code);
                    let mut name = subject_text(f);
                    if let Some(o) = owner_text(f) {
                        let _ = write!(name, " (owner {o})");
                    }
                    let mut text = format!("{}\n{}\n", f.message, f.consequence);
                    for e in &f.evidence {
                        let _ = writeln!(text, "evidence: {e}");
                    }
                    if !f.fixes.is_empty() {
                        text.push_str("to fix, safest first:\n");
                        for (i, m) in f.fixes.iter().enumerate() {
                            let _ = writeln!(text, "  {}. {}", i + 1, m.note);
                            if !m.command.is_empty() {
                                let _ = writeln!(text, "     {}", m.command);
                            }
                        }
                    }
                    if let Some(code) = code {
                        let _ = write!(text, "\n{} {}", f.code, code.info().remedy);
                    }
                    let result = if r.fails(f.severity) {
                        CaseResult::Failure {
                            ty: f.severity.as_str().into(),
                            message: f.consequence.clone(),
                            text,
                        }
                    } else {
                        CaseResult::Skipped {
                            message: format!(
                                "{} is below --fail-on {}",
                                f.severity.as_str(),
                                r.fail_on_text()
                            ),
                            text,
                        }
                    };
                    cases.push(Case {
                        classname: format!("{class_prefix}.{} {}", f.code, f.name),
                        name,
                        source: f.source.clone(),
                        result,
                        system_out: None,
                    });
                }
                let cov = &report.summary.coverage;
                let gaps: Vec<String> = cov
                    .gaps
                    .iter()
                    .map(|g| {
                        format!(
                            "{}{}{} {}{}",
                            g.resource,
                            if g.group.is_empty() { "" } else { "." },
                            g.group,
                            g.outcome,
                            g.message
                                .as_deref()
                                .map(|m| format!(": {m}"))
                                .unwrap_or_default()
                        )
                    })
                    .chain(
                        cov.discovery_failures
                            .iter()
                            .map(|d| format!("discovery {}: {}", d.group_version, d.message)),
                    )
                    .collect();
                let incomplete = !cov.gaps.is_empty() || !cov.discovery_failures.is_empty();
                let text = if gaps.is_empty() {
                    if cov.complete {
                        "coverage complete".to_owned()
                    } else {
                        "file input: owners of kinds or namespaces the input does not hold are unknown".to_owned()
                    }
                } else {
                    format!(
                        "not fully read (their owners are unknown, never dangling):\n{}",
                        gaps.join("\n")
                    )
                };
                cases.push(Case {
                    classname: format!("{class_prefix}.coverage"),
                    source: None,
                    name: "coverage".into(),
                    result: if r.strict_coverage && incomplete {
                        CaseResult::Failure {
                            ty: "coverage".into(),
                            message: format!("{} resource(s) not fully read", gaps.len()),
                            text: text.clone(),
                        }
                    } else {
                        CaseResult::Passed
                    },
                    system_out: Some(text),
                });
            }
        }
        let (t, f, e, s) = cases
            .iter()
            .fold((0, 0, 0, 0), |(t, f, e, s), c| match &c.result {
                CaseResult::Error { .. } => (t + 1, f, e + 1, s),
                CaseResult::Skipped { .. } => (t + 1, f, e, s + 1),
                CaseResult::Failure { .. } => (t + 1, f + 1, e, s),
                CaseResult::Passed => (t + 1, f, e, s),
            });
        tests += t;
        failures += f;
        errors += e;
        skipped += s;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{t}\" failures=\"{f}\" errors=\"{e}\" skipped=\"{s}\">",
            xml_line(&c.name)
        );
        if !props.is_empty() {
            suites.push_str("    <properties>\n");
            for (k, v) in &props {
                let _ = writeln!(
                    suites,
                    "      <property name=\"{k}\" value=\"{}\"/>",
                    xml_line(v)
                );
            }
            suites.push_str("    </properties>\n");
        }
        for case in &cases {
            let _ = write!(
                suites,
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml_line(&case.classname),
                xml_line(&case.name)
            );
            if let Some(src) = &case.source {
                let _ = write!(suites, " file=\"{}\"", xml_line(&src.file));
                if let Some(l) = src.line {
                    let _ = write!(suites, " line=\"{l}\"");
                }
            }
            if matches!(case.result, CaseResult::Passed) && case.system_out.is_none() {
                suites.push_str("/>\n");
                continue;
            }
            suites.push_str(">\n");
            match &case.result {
                CaseResult::Passed => {}
                CaseResult::Skipped { message, text } => {
                    let _ = writeln!(
                        suites,
                        "      <skipped message=\"{}\"/>\n      <system-out>{}</system-out>",
                        xml_line(message),
                        xml(text)
                    );
                }
                CaseResult::Failure { ty, message, text } => {
                    let _ = writeln!(
                        suites,
                        "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                        xml_line(ty),
                        xml_line(message),
                        xml(text)
                    );
                }
                CaseResult::Error { message, text } => {
                    let _ = writeln!(
                        suites,
                        "      <error type=\"cluster\" message=\"{}\">{}</error>",
                        xml_line(message),
                        xml(text)
                    );
                }
            }
            if let Some(out) = &case.system_out {
                let _ = writeln!(suites, "      <system-out>{}</system-out>", xml(out));
            }
            suites.push_str("    </testcase>\n");
        }
        suites.push_str("  </testsuite>\n");
    }
    let mut doc = String::with_capacity(suites.len() + 200);
    doc.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        doc,
        "<testsuites name=\"kubectl-gc {}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">",
        r.command
    );
    doc.push_str(&suites);
    doc.push_str("</testsuites>\n");
    w.write_all(doc.as_bytes())
}
