//! Printing a report in the format `-o` asks for, with kubectl's list flags: the table (sized
//! to the terminal), JSON/YAML, `name`, `jsonpath=`, `custom-columns=`; `--sort-by` orders the
//! items first.

use crate::cli::{ColorChoice, ListOutputArgs, ReportFormat};
use crate::error::{Error, Result};
use crate::render::jsonpath::{Path, Template};
use crate::render::list::{self, Columns};
use crate::render::sink::Sink;
use crate::render::{Styles, TableOptions};
use serde::Serialize;
use serde_json::Value;
use std::io::{IsTerminal, Write};

/// The width tables fit: `COLUMNS` when set (as kubectl and most tools honour it), else the
/// terminal's when stdout is one; `None` (never truncate) for pipes and files.
pub fn terminal_width() -> Option<u16> {
    if let Some(cols) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .filter(|&c| c >= 20)
    {
        return Some(cols);
    }
    if std::io::stdout().is_terminal() {
        return terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| w.0);
    }
    None
}

/// The table options of a command line.
pub fn table_options(list: &ListOutputArgs, wide: bool) -> TableOptions {
    TableOptions {
        wide,
        no_headers: list.no_headers,
        width: terminal_width(),
        label_columns: list.label_columns.clone(),
        show_labels: list.show_labels,
    }
}

/// Parses a JSONPath given on the command line (`--sort-by`), as a usage error.
pub fn path(flag: &str, text: &str) -> Result<Path> {
    Path::parse(text).map_err(|e| {
        Error::usage(
            format!("{flag}: {e}"),
            "a kubectl JSONPath, e.g. --sort-by .object.name or '{.severity}'",
        )
    })
}

/// Checks the templates of `-o jsonpath=`/`custom-columns=` before any work is done.
pub fn check_templates(format: ReportFormat, sort_by: Option<&str>) -> Result<()> {
    match format {
        ReportFormat::JsonPath(t) => {
            template(t)?;
        }
        ReportFormat::CustomColumns(c) => {
            columns(c)?;
        }
        _ => {}
    }
    if let Some(s) = sort_by {
        path("--sort-by", s)?;
    }
    Ok(())
}

fn template(t: &str) -> Result<Template> {
    Template::parse(t).map_err(|e| {
        Error::usage(
            format!("-o jsonpath: {e}"),
            "e.g. -o jsonpath='{.findings[*].object.name}' or '{range .findings[*]}{.code}{\"\\n\"}{end}'",
        )
    })
}

fn columns(c: &str) -> Result<Columns> {
    Columns::parse(c).map_err(|e| {
        Error::usage(
            format!("-o {e}"),
            "e.g. -o custom-columns=CODE:.code,NAME:.object.name",
        )
    })
}

/// The order `--sort-by` gives the report's items (`items_key`: `findings`, `actions`, …);
/// `None` without `--sort-by`.
pub fn sort_order<T: Serialize>(
    report: &T,
    items_key: &str,
    sort_by: Option<&str>,
) -> Result<Option<Vec<usize>>> {
    let Some(text) = sort_by else {
        return Ok(None);
    };
    let p = path("--sort-by", text)?;
    let doc = serde_json::to_value(report).map_err(std::io::Error::other)?;
    let items = doc[items_key].as_array().cloned().unwrap_or_default();
    Ok(Some(list::sort_order(&items, &p)))
}

/// Prints a report to `sink` (stdout, or `--output-file`): `table` draws table/wide; the other
/// formats are generic over its JSON. `items_key` names the report's list (custom-columns
/// rows), `object_key` the object of each item (`-o name`; `None`: the item itself is the
/// object). The CI formats are rendered by the commands that report findings; here they are
/// refused.
#[allow(clippy::too_many_arguments)]
pub fn emit<T: Serialize>(
    sink: Sink,
    format: ReportFormat,
    color: ColorChoice,
    list_args: &ListOutputArgs,
    report: &T,
    items_key: &str,
    object_key: Option<&str>,
    table: impl FnOnce(&mut dyn Write, &TableOptions, Styles) -> std::io::Result<()>,
) -> Result<()> {
    emit_with(
        sink,
        format,
        color,
        list_args,
        report,
        |doc| doc[items_key].as_array().cloned().unwrap_or_default(),
        object_key,
        table,
    )
}

/// [`emit`] with the items (custom-columns rows, `-o name`) taken from the report's JSON by
/// `items` (a fleet's findings are spread over its clusters).
#[allow(clippy::too_many_arguments)]
pub fn emit_with<T: Serialize>(
    mut sink: Sink,
    format: ReportFormat,
    color: ColorChoice,
    list_args: &ListOutputArgs,
    report: &T,
    items: impl FnOnce(&Value) -> Vec<Value>,
    object_key: Option<&str>,
    table: impl FnOnce(&mut dyn Write, &TableOptions, Styles) -> std::io::Result<()>,
) -> Result<()> {
    // A file gets no colour and is never cut to the terminal's width.
    let (styles, opts) = if sink.is_file() {
        let mut opts = table_options(list_args, format == ReportFormat::Wide);
        opts.width = None;
        (Styles::plain(), opts)
    } else {
        (
            Styles::for_stdout(color),
            table_options(list_args, format == ReportFormat::Wide),
        )
    };
    let out = sink.writer();
    match format {
        ReportFormat::Json => crate::render::write_json(out, report)?,
        ReportFormat::Yaml => crate::render::write_yaml(out, report)?,
        ReportFormat::Table | ReportFormat::Wide => table(out, &opts, styles)?,
        ReportFormat::Name | ReportFormat::JsonPath(_) | ReportFormat::CustomColumns(_) => {
            let doc = serde_json::to_value(report).map_err(std::io::Error::other)?;
            let items = items(&doc);
            match format {
                ReportFormat::Name => list::write_names(
                    out,
                    items
                        .iter()
                        .filter_map(|i| list::name_of(object_key.map_or(i, |k| &i[k]))),
                )?,
                ReportFormat::JsonPath(t) => list::write_jsonpath(out, &doc, &template(t)?)?,
                ReportFormat::CustomColumns(c) => {
                    columns(c)?.write(out, &items, list_args.no_headers)?
                }
                _ => unreachable!("matched above"),
            }
        }
        ReportFormat::Sarif | ReportFormat::Junit | ReportFormat::Markdown | ReportFormat::Html => {
            return Err(super::refuse_ci_format(format));
        }
    }
    sink.commit()?;
    Ok(())
}

/// [`emit`] for a document that is not a list (`version -o json`).
pub fn emit_value(value: &Value, yaml: bool) -> Result<()> {
    let mut out = super::stdout();
    if yaml {
        crate::render::write_yaml(&mut out, value)?;
    } else {
        crate::render::write_json(&mut out, value)?;
    }
    out.flush()?;
    Ok(())
}
