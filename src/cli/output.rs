//! `-o` values: kubectl's output formats (`table`, `wide`, `json`, `yaml`, `name`,
//! `jsonpath=TEMPLATE`, `custom-columns=SPEC`) for reports, and the graph's own (`tree`, `dot`,
//! `mermaid`, …). The formats are plain `Copy` values so every command can match on them; the
//! template of `jsonpath=`/`custom-columns=` is kept for the life of the process.

use clap::builder::{PossibleValue, TypedValueParser};

/// Output formats of reports (`audit`, `check`, `collect`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    /// A table that fits the terminal (long cells truncated with `…`).
    Table,
    /// A table with more columns, never truncated.
    Wide,
    /// JSON (stable, documented schema).
    Json,
    /// YAML (the JSON document, fields in the same order).
    Yaml,
    /// `kind.group/name` of each object, one per line (kubectl's `-o name`).
    Name,
    /// A kubectl JSONPath template over the JSON document (`jsonpath=` or `jsonpath-as-json=`
    /// are not distinguished: values print as kubectl prints them).
    JsonPath(&'static str),
    /// kubectl's custom columns over the report's items: `HEADER:JSONPATH,…`.
    CustomColumns(&'static str),
    // CI report formats (audit and check; src/render/{sarif,junit,markdown,html}.rs).
    /// SARIF 2.1.0 for code scanning.
    Sarif,
    /// JUnit XML test report, one test case per finding.
    Junit,
    /// Markdown for a pull-request comment.
    Markdown,
    /// A self-contained HTML page with ownership pictures.
    Html,
}

/// `graph` output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphFormat {
    /// kubectl-tree-like: owners above dependents, with the GC's view on every line.
    Tree,
    /// Graphviz DOT: styled for people, or byte-for-byte the GC debug endpoint's format (see
    /// --dot-format).
    Dot,
    /// A Mermaid flowchart (renders on GitHub).
    Mermaid,
    /// JSON: nodes and edges with the DOT attributes.
    Json,
    /// YAML: the JSON document.
    Yaml,
    /// `kind.group/name` of each object drawn, one per line.
    Name,
    /// A kubectl JSONPath template over the JSON document.
    JsonPath(&'static str),
    /// kubectl's custom columns over the JSON document's nodes.
    CustomColumns(&'static str),
}

/// The plain format names and the template-taking ones, with their help.
struct Spec {
    plain: &'static [(&'static str, &'static str)],
}

const REPORT: Spec = Spec {
    plain: &[
        ("table", "a table that fits the terminal"),
        ("wide", "a table with more columns, never truncated"),
        ("json", "the JSON report"),
        ("yaml", "the JSON report as YAML"),
        ("name", "kind.group/name of each object"),
        ("sarif", "SARIF 2.1.0 for code scanning (audit, check)"),
        (
            "junit",
            "JUnit XML, one test case per finding (audit, check)",
        ),
        (
            "markdown",
            "Markdown for a pull-request comment (audit, check)",
        ),
        (
            "html",
            "a self-contained HTML page with pictures (audit, check)",
        ),
    ],
};

const GRAPH: Spec = Spec {
    plain: &[
        ("tree", "owners above dependents, with the GC's view"),
        ("dot", "Graphviz DOT (see --dot-format)"),
        ("mermaid", "a Mermaid flowchart"),
        ("json", "nodes and edges as JSON"),
        ("yaml", "the JSON document as YAML"),
        ("name", "kind.group/name of each object"),
    ],
};

const TEMPLATES: &[(&str, &str)] = &[
    (
        "jsonpath=",
        "a kubectl JSONPath template: jsonpath={.findings[*].code}",
    ),
    (
        "custom-columns=",
        "columns HEADER:JSONPATH,… over the items: custom-columns=CODE:.code",
    ),
];

/// A parsed `-o` value before it is mapped to a command's format.
enum Parsed {
    Plain(&'static str),
    JsonPath(&'static str),
    CustomColumns(&'static str),
}

fn parse(spec: &Spec, value: &str) -> Result<Parsed, String> {
    if let Some((name, _)) = spec.plain.iter().find(|(n, _)| *n == value) {
        return Ok(Parsed::Plain(name));
    }
    let leak = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
    for prefix in ["jsonpath=", "jsonpath-as-json="] {
        if let Some(t) = value.strip_prefix(prefix) {
            if t.trim().is_empty() {
                return Err("jsonpath= needs a template, e.g. jsonpath='{.items[*].name}'".into());
            }
            return Ok(Parsed::JsonPath(leak(t)));
        }
    }
    if let Some(t) = value.strip_prefix("custom-columns=") {
        if t.trim().is_empty() {
            return Err(
                "custom-columns= needs columns, e.g. custom-columns=CODE:.code,NAME:.object.name"
                    .into(),
            );
        }
        return Ok(Parsed::CustomColumns(leak(t)));
    }
    let names: Vec<&str> = spec.plain.iter().map(|(n, _)| *n).collect();
    let hint = if value == "jsonpath" || value == "custom-columns" {
        format!("; {value} takes its template after '=': -o {value}=…")
    } else {
        String::new()
    };
    Err(format!(
        "expected {}, jsonpath=TEMPLATE or custom-columns=SPEC, got {value:?}{hint}",
        names.join(", ")
    ))
}

/// The clap value parser of a format enum.
#[derive(Clone)]
pub struct FormatParser<T> {
    spec: &'static Spec,
    map: fn(Parsed) -> T,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for FormatParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let text = value.to_str().ok_or_else(|| {
            clap::Error::raw(clap::error::ErrorKind::InvalidUtf8, "-o is not UTF-8\n").with_cmd(cmd)
        })?;
        parse(self.spec, text).map(self.map).map_err(|m| {
            use clap::error::{ContextKind, ContextValue, ErrorKind};
            let mut e = clap::Error::new(ErrorKind::InvalidValue).with_cmd(cmd);
            let arg_text = arg.map_or_else(|| "--output <FORMAT>".to_owned(), |a| a.to_string());
            e.insert(ContextKind::InvalidArg, ContextValue::String(arg_text));
            e.insert(
                ContextKind::InvalidValue,
                ContextValue::String(text.to_owned()),
            );
            e.insert(
                ContextKind::ValidValue,
                ContextValue::Strings(
                    self.spec
                        .plain
                        .iter()
                        .chain(TEMPLATES)
                        .map(|(n, _)| {
                            if n.ends_with('=') {
                                format!("{n}…")
                            } else {
                                (*n).to_owned()
                            }
                        })
                        .collect(),
                ),
            );
            if m.contains("takes its template") || m.contains("needs") {
                e.insert(
                    ContextKind::Suggested,
                    ContextValue::StyledStrs(vec![m.into()]),
                );
            }
            e
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            self.spec
                .plain
                .iter()
                .chain(TEMPLATES)
                .map(|(n, h)| PossibleValue::new(*n).help(*h)),
        ))
    }
}

/// The parser of reports' `-o`.
pub fn report_parser() -> FormatParser<ReportFormat> {
    FormatParser {
        spec: &REPORT,
        map: |p| match p {
            Parsed::Plain("wide") => ReportFormat::Wide,
            Parsed::Plain("json") => ReportFormat::Json,
            Parsed::Plain("yaml") => ReportFormat::Yaml,
            Parsed::Plain("name") => ReportFormat::Name,
            Parsed::Plain("sarif") => ReportFormat::Sarif,
            Parsed::Plain("junit") => ReportFormat::Junit,
            Parsed::Plain("markdown") => ReportFormat::Markdown,
            Parsed::Plain("html") => ReportFormat::Html,
            Parsed::Plain(_) => ReportFormat::Table,
            Parsed::JsonPath(t) => ReportFormat::JsonPath(t),
            Parsed::CustomColumns(t) => ReportFormat::CustomColumns(t),
        },
    }
}

/// The parser of `graph -o`.
pub fn graph_parser() -> FormatParser<GraphFormat> {
    FormatParser {
        spec: &GRAPH,
        map: |p| match p {
            Parsed::Plain("dot") => GraphFormat::Dot,
            Parsed::Plain("mermaid") => GraphFormat::Mermaid,
            Parsed::Plain("json") => GraphFormat::Json,
            Parsed::Plain("yaml") => GraphFormat::Yaml,
            Parsed::Plain("name") => GraphFormat::Name,
            Parsed::Plain(_) => GraphFormat::Tree,
            Parsed::JsonPath(t) => GraphFormat::JsonPath(t),
            Parsed::CustomColumns(t) => GraphFormat::CustomColumns(t),
        },
    }
}

impl ReportFormat {
    /// True for the human table formats.
    pub fn is_table(self) -> bool {
        matches!(self, ReportFormat::Table | ReportFormat::Wide)
    }

    /// True for the CI formats, which report findings (audit and check only).
    pub fn is_ci(self) -> bool {
        matches!(
            self,
            ReportFormat::Sarif | ReportFormat::Junit | ReportFormat::Markdown | ReportFormat::Html
        )
    }
}
