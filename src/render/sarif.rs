//! `-o sarif`: SARIF 2.1.0, for code scanning (GitHub's `upload-sarif`, GitLab, Azure
//! DevOps, SARIF viewers). Built with the `serde-sarif` types (generated from the OASIS
//! schema); the output is validated against that schema in the tests.
//!
//! * One `run` per cluster, its `automationDetails.id` `kubectl-gc-<command>/<cluster>/`,
//!   so the runs of a fleet report are separate categories in code scanning and the same
//!   cluster's runs are compared with each other; run properties carry the GC version,
//!   server version, capture time and coverage. A cluster that could not be audited is a
//!   run with `executionSuccessful: false` and the error as a tool execution notification.
//! * One rule per finding code (all of them, in code order, so `ruleIndex` is stable), with
//!   the short and full description and help text (text and Markdown) of the code.
//! * One result per finding, up to GitHub code scanning's [`MAX_RESULTS_PER_RUN`] (25,000):
//!   beyond it a run holds the most severe, its invocation has a warning notification saying
//!   how many were left out, and `properties.omittedResults` the count. Results are written as
//!   they are built (the run's other parts first), never held together. `level`: critical and error → `error`, warning → `warning`,
//!   info → `note` (the exact severity is in `properties.severity`). The location is the
//!   object, as a relative URI `<cluster>/<namespace>/<Kind>/<name>` (`_cluster` for
//!   cluster-scoped objects, `_resources/<plural.group>` for resource-level findings; every
//!   segment percent-encoded) and as a logical location (`fullyQualifiedName`
//!   `<namespace>/<Kind>/<name>`). Code scanning needs a physical location; the URI does not
//!   name a file of the repository, so alerts show without a source snippet — except for
//!   `check apply`, whose findings are about manifests: there the location is the manifest's
//!   file (relative to `%SRCROOT%`, as given to `-f`) and the line of the ownerReference
//!   involved, else of the object.
//! * `partialFingerprints["kubectlGc/v1"]`: the finding's identity (code, object UID or
//!   resource, owner UID — [`super::ci::fingerprint`]), so code scanning tracks an alert across
//!   runs while the problem stays, and closes it when it is fixed.

use super::audit::FindingJson;
use super::ci::{CiReport, ClusterOutcome, ClusterReport, fingerprint, owner_text, subject_text};
use crate::diagnose::{Code, Severity};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_sarif::sarif as s;
use std::collections::BTreeMap;
use std::io::{self, Write};

/// The key of our fingerprint in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "kubectlGc/v1";

/// The schema URI written in `$schema`.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// URI path segments keep RFC 3986's unreserved characters only.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'~')
    .remove(b'.');

fn segment(s: &str) -> String {
    // Empty and dot segments would change the path's meaning.
    match s {
        "" => "-".into(),
        "." | ".." => s.replace('.', "%2E"),
        _ => utf8_percent_encode(s, SEGMENT).to_string(),
    }
}

fn level(sev: Severity) -> s::ResultLevel {
    match sev {
        Severity::Critical | Severity::Error => s::ResultLevel::Error,
        Severity::Warning => s::ResultLevel::Warning,
        Severity::Info => s::ResultLevel::Note,
    }
}

fn rules() -> Vec<s::ReportingDescriptor> {
    Code::ALL
        .iter()
        .map(|&c| {
            let h = c.info();
            let text = format!("{}\n\n{}\n\nFix: {}", h.title, h.sentence, h.remedy);
            let markdown = format!(
                "**{} {}**: {}\n\n{}\n\n**Fix:** {}",
                c.id(),
                c.name(),
                h.title,
                h.sentence,
                h.remedy
            );
            let mut props = BTreeMap::new();
            props.insert(
                "tags".to_owned(),
                serde_json::json!(["kubernetes", "garbage-collector", "ownerReferences"]),
            );
            s::ReportingDescriptor::builder()
                .id(c.id())
                .name(c.name())
                .short_description(&h.title.to_owned())
                .full_description(&h.sentence.to_owned())
                .help(
                    s::MultiformatMessageString::builder()
                        .text(text)
                        .markdown(markdown)
                        .build(),
                )
                .help_uri(concat!(env!("CARGO_PKG_REPOSITORY"), "#finding-codes"))
                .properties(
                    s::PropertyBag::builder()
                        .additional_properties(props)
                        .build(),
                )
                .build()
        })
        .collect()
}

fn location(cluster: &str, f: &FindingJson) -> s::Location {
    let (uri, fqn) = match (&f.object, &f.resource) {
        (Some(o), _) => {
            let ns = if o.namespace.is_empty() {
                "_cluster"
            } else {
                &o.namespace
            };
            (
                format!(
                    "{}/{}/{}/{}",
                    segment(cluster),
                    segment(ns),
                    segment(&o.kind),
                    segment(&o.name)
                ),
                format!("{ns}/{}/{}", o.kind, o.name),
            )
        }
        (None, Some(r)) => (
            format!("{}/_resources/{}", segment(cluster), segment(r)),
            format!("_resources/{r}"),
        ),
        (None, None) => (segment(cluster), String::new()),
    };
    let logical = s::LogicalLocation::builder()
        .name(subject_text(f))
        .fully_qualified_name(fqn)
        .kind("resource")
        .build();
    let physical = match &f.source {
        // A manifest (`check apply`): its file, relative to the repository root like the
        // path given to -f, and the line of the reference or object, so code scanning
        // annotates that line.
        Some(src) => {
            let artifact = s::ArtifactLocation::builder().uri(file_uri(&src.file));
            let artifact = if src.file.starts_with('/') {
                artifact.build()
            } else {
                artifact.uri_base_id("%SRCROOT%").build()
            };
            match src.line {
                Some(l) => s::PhysicalLocation::builder()
                    .artifact_location(artifact)
                    .region(s::Region::builder().start_line(i64::from(l)).build())
                    .build(),
                None => s::PhysicalLocation::builder()
                    .artifact_location(artifact)
                    .build(),
            }
        }
        None => s::PhysicalLocation::builder()
            .artifact_location(s::ArtifactLocation::builder().uri(uri).build())
            .region(s::Region::builder().start_line(1).build())
            .build(),
    };
    s::Location::builder()
        .physical_location(physical)
        .logical_locations(vec![logical])
        .build()
}

/// A file path as a URI reference: each segment percent-encoded (`./` dropped), absolute
/// paths as `file://` URIs.
fn file_uri(path: &str) -> String {
    let rel = path.trim_start_matches("./");
    let encoded: Vec<String> = rel
        .split('/')
        .map(|seg| match seg {
            "" | "." | ".." => seg.to_owned(),
            _ => utf8_percent_encode(seg, SEGMENT).to_string(),
        })
        .collect();
    let joined = encoded.join("/");
    if path.starts_with('/') {
        format!("file://{joined}")
    } else {
        joined
    }
}

fn result(cluster: &str, f: &FindingJson) -> s::Result {
    let rule_index = Code::ALL.iter().position(|c| c.id() == f.code).unwrap_or(0) as i64;
    let mut text = format!("{}: {}", subject_text(f), f.message);
    if !f.message.ends_with('.') {
        text.push('.');
    }
    text.push(' ');
    text.push_str(&f.consequence);
    let mut fp = BTreeMap::new();
    fp.insert(FINGERPRINT_KEY.to_owned(), fingerprint(f));
    let mut props = BTreeMap::new();
    props.insert(
        "severity".to_owned(),
        serde_json::json!(f.severity.as_str()),
    );
    props.insert("cluster".to_owned(), serde_json::json!(cluster));
    props.insert("consequence".to_owned(), serde_json::json!(f.consequence));
    if let Some(o) = &f.object {
        props.insert(
            "object".to_owned(),
            serde_json::to_value(o).unwrap_or_default(),
        );
    }
    if let Some(r) = &f.owner_reference {
        props.insert("ownerReference".to_owned(), r.clone());
    }
    if let Some(c) = f.classification {
        props.insert("classification".to_owned(), serde_json::json!(c));
    }
    if !f.remedies.is_empty() {
        props.insert("remedies".to_owned(), serde_json::json!(f.remedies));
    }
    if !f.evidence.is_empty() {
        props.insert("evidence".to_owned(), serde_json::json!(f.evidence));
    }
    if let Some(o) = owner_text(f) {
        props.insert("owner".to_owned(), serde_json::json!(o));
    }
    s::Result::builder()
        .rule_id(f.code)
        .rule_index(rule_index)
        .level(level(f.severity))
        .message(&text)
        .locations(vec![location(cluster, f)])
        .partial_fingerprints(fp)
        .properties(
            s::PropertyBag::builder()
                .additional_properties(props)
                .build(),
        )
        .build()
}

/// GitHub code scanning's limit on results per run: an upload with more is rejected. Beyond it,
/// a run keeps the most severe results and says how many it left out (`-o json` has them all).
pub const MAX_RESULTS_PER_RUN: usize = 25_000;

/// A run's results, serialized one at a time as they are built: a backup with 249k findings
/// must not hold 249k SARIF results (with their property maps) in memory at once. Up to
/// `limit` of them: in the report's order when all fit (the output is then what it always
/// was), else the most severe first — a pass per severity over the report, stable within one,
/// so the choice is deterministic and costs no copy of the findings.
struct Results<'a> {
    cluster: &'a str,
    findings: &'a [FindingJson],
    limit: usize,
}

impl Serialize for Results<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> std::result::Result<S::Ok, S::Error> {
        let (cluster, findings) = (self.cluster, self.findings);
        if findings.len() <= self.limit {
            return ser.collect_seq(findings.iter().map(|f| result(cluster, f)));
        }
        let by_severity = [
            Severity::Critical,
            Severity::Error,
            Severity::Warning,
            Severity::Info,
        ]
        .into_iter()
        .flat_map(|sev| findings.iter().filter(move |f| f.severity == sev));
        ser.collect_seq(by_severity.take(self.limit).map(|f| result(cluster, f)))
    }
}

/// One run: everything but the results (small: the rules, the invocation, the properties),
/// then the results, streamed.
#[derive(serde::Serialize)]
struct StreamedRun<'a> {
    #[serde(flatten)]
    run: s::Run,
    results: Results<'a>,
}

/// The whole log, streamed run by run.
struct Log<'a> {
    r: &'a CiReport,
    limit: usize,
}

impl Serialize for Log<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = ser.serialize_struct("sarif", 3)?;
        m.serialize_field("$schema", SCHEMA_URI)?;
        m.serialize_field("version", &s::Version::V2_1_0.to_string())?;
        m.serialize_field("runs", &Runs(self))?;
        m.end()
    }
}

struct Runs<'a, 'b>(&'b Log<'a>);

impl Serialize for Runs<'_, '_> {
    fn serialize<S: Serializer>(&self, ser: S) -> std::result::Result<S::Ok, S::Error> {
        let (r, limit) = (self.0.r, self.0.limit);
        ser.collect_seq(r.clusters.iter().map(|c| {
            let findings = c.report().map_or(&[][..], |rep| &rep.findings[..]);
            StreamedRun {
                run: run(r, c, findings.len().saturating_sub(limit)),
                results: Results {
                    cluster: &c.name,
                    findings,
                    limit,
                },
            }
        }))
    }
}

/// A run of `r` for cluster `c`, without its results; `omitted`: how many results the limit
/// leaves out.
fn run(r: &CiReport, c: &ClusterReport, omitted: usize) -> s::Run {
    let driver = s::ToolComponent::builder()
        .name("kubectl-gc")
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .information_uri(env!("CARGO_PKG_REPOSITORY"))
        .rules(rules())
        .build();
    let automation = s::RunAutomationDetails::builder()
        // `check apply` runs apart from `check`: its own category, so neither upload closes
        // the other's alerts.
        .id(format!(
            "kubectl-gc-{}/{}/",
            r.command.replace(' ', "-"),
            segment(&c.name)
        ))
        .build();
    let mut props = BTreeMap::new();
    props.insert("cluster".to_owned(), serde_json::json!(c.name));
    props.insert("exitCode".to_owned(), serde_json::json!(c.exit_code));
    props.insert("failOn".to_owned(), serde_json::json!(r.fail_on_text()));
    let invocation = match &c.outcome {
        ClusterOutcome::Report { report, .. } => {
            props.insert("gcVersion".to_owned(), serde_json::json!(report.gc_version));
            props.insert(
                "source".to_owned(),
                serde_json::to_value(&report.source).unwrap_or_default(),
            );
            props.insert(
                "summary".to_owned(),
                serde_json::to_value(&report.summary).unwrap_or_default(),
            );
            let invocation = s::Invocation::builder()
                .execution_successful(true)
                .exit_code(i64::from(c.exit_code));
            if omitted == 0 {
                invocation.build()
            } else {
                props.insert("omittedResults".to_owned(), serde_json::json!(omitted));
                let total = report.findings.len();
                let note = s::Notification::builder()
                    .level(serde_json::json!("warning"))
                    .message(&format!(
                        "{omitted} of {total} results left out: GitHub code scanning accepts at \
                         most {MAX_RESULTS_PER_RUN} per run, so this run holds the \
                         {MAX_RESULTS_PER_RUN} most severe (-o json lists every finding)"
                    ))
                    .build();
                invocation.tool_execution_notifications(vec![note]).build()
            }
        }
        ClusterOutcome::Failed(e) => {
            let mut text = e.message.clone();
            if let Some(h) = &e.hint {
                text.push_str(" (hint: ");
                text.push_str(h);
                text.push(')');
            }
            let note = s::Notification::builder()
                .level(serde_json::json!("error"))
                .message(&text)
                .build();
            s::Invocation::builder()
                .execution_successful(false)
                .exit_code(i64::from(c.exit_code))
                .tool_execution_notifications(vec![note])
                .build()
        }
    };
    s::Run::builder()
        .tool(driver)
        .automation_details(automation)
        .invocations(vec![invocation])
        .properties(
            s::PropertyBag::builder()
                .additional_properties(props)
                .build(),
        )
        .build()
}

/// Writes the SARIF log (pretty JSON), each run's results streamed and capped at
/// [`MAX_RESULTS_PER_RUN`].
pub fn write(w: &mut dyn Write, r: &CiReport) -> io::Result<()> {
    super::write_json(
        w,
        &Log {
            r,
            limit: MAX_RESULTS_PER_RUN,
        },
    )
}
