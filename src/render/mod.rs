//! Output for people and machines. Renderers take the analysis results and a writer; they
//! never print directly, so every format is testable byte for byte. Colour is decided once
//! ([`Styles`]) and is off unless stdout is a terminal and `NO_COLOR` is unset (or forced).

pub mod audit;
pub mod graph;
pub mod grid;
pub mod history;
pub mod jsonpath;
pub mod list;
pub mod plan;
pub mod relink;
pub mod text;
pub mod watch;
pub mod why;
// `why`'s outcome held against `collect`'s report: here, where both views are in reach.
#[cfg(test)]
mod tests;

// CI report formats (`-o sarif|junit|markdown|html`), the fleet report, `--output-file`.
pub mod ci;
pub mod escape;
pub mod fleet;
pub mod html;
pub mod junit;
pub mod markdown;
pub mod sarif;
pub mod sink;

pub use crate::build_info::REPORT_API_VERSION;
pub use crate::gc::object_ref::ObjectRef;
use crate::model::OwnerRef;
use crate::snapshot::Snapshot;
use crate::snapshot::format::OwnerRefOut;
use serde::Serialize;
use std::io::{IsTerminal, Write};

/// When to colour output (`--color`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Colour decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Styles {
    /// Emit ANSI colours.
    pub color: bool,
}

impl Styles {
    /// Decides colour for stdout from `--color` and the environment (`NO_COLOR`).
    pub fn for_stdout(choice: ColorChoice) -> Styles {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var("TERM").map_or(true, |t| t != "dumb")
            }
        };
        Styles { color }
    }

    /// Plain output.
    pub fn plain() -> Styles {
        Styles { color: false }
    }
}

/// An ownerReference in reports (Kubernetes' own field names).
pub fn owner_ref_json(snap: &Snapshot, r: &OwnerRef) -> serde_json::Value {
    serde_json::to_value(OwnerRefOut::new(&snap.store, r)).unwrap_or_default()
}

/// Writes `value` as YAML, fields in the order JSON shows them (the structs' order: `apiVersion`
/// and `kind` first), not sorted.
pub fn write_yaml<T: Serialize>(w: &mut dyn Write, value: &T) -> std::io::Result<()> {
    let text = serde_saphyr::to_string(value).map_err(std::io::Error::other)?;
    w.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes `value` as pretty JSON plus a newline.
///
/// The serializer writes token by token (a quote, a key, a colon, an indent): through `&mut
/// dyn Write` each is a virtual call into the sink's writer. A buffer of our own, typed, makes
/// those plain copies and hands the sink large blocks.
pub fn write_json<T: Serialize>(w: &mut dyn Write, value: &T) -> std::io::Result<()> {
    let mut buf = std::io::BufWriter::with_capacity(256 * 1024, w);
    serde_json::to_writer_pretty(&mut buf, value).map_err(std::io::Error::other)?;
    buf.write_all(b"\n")?;
    buf.flush()
}

/// A kubectl-looking table (no borders, three spaces between columns).
pub fn table(styles: Styles) -> comfy_table::Table {
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::NOTHING);
    if styles.color {
        t.enforce_styling();
    } else {
        t.force_no_tty();
    }
    t.set_content_arrangement(comfy_table::ContentArrangement::Disabled);
    t
}

/// Sets kubectl-like padding on every column of a table whose header is set.
pub fn pad_columns(t: &mut comfy_table::Table) {
    let n = t.column_count();
    for i in 0..n {
        if let Some(c) = t.column_mut(i) {
            c.set_padding((0, if i + 1 == n { 0 } else { 3 }));
        }
    }
}

/// How a table is laid out (`-o wide`, `--no-headers`, `-L`, `--show-labels`, the width).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableOptions {
    /// `-o wide`: more columns, never truncated.
    pub wide: bool,
    /// `--no-headers`: rows only (no header, detail blocks or summary line).
    pub no_headers: bool,
    /// Fit the table in this many columns, truncating long cells with `…` (`None`: never
    /// truncate, as when stdout is not a terminal and `COLUMNS` is unset).
    pub width: Option<u16>,
    /// `-L`: a column per label key.
    pub label_columns: Vec<String>,
    /// `--show-labels`: a LABELS column.
    pub show_labels: bool,
}

impl TableOptions {
    /// Plain table options (`-o table` or `-o wide`), no width limit.
    pub fn of(wide: bool) -> TableOptions {
        TableOptions {
            wide,
            ..TableOptions::default()
        }
    }

    /// The header of a `-L` column: the key's last segment, upper-cased (as kubectl).
    pub fn label_header(key: &str) -> String {
        key.rsplit('/').next().unwrap_or(key).to_uppercase()
    }

    /// The headers of the label columns, after the renderer's own.
    pub fn label_headers(&self) -> Vec<String> {
        let mut h: Vec<String> = self
            .label_columns
            .iter()
            .map(|k| Self::label_header(k))
            .collect();
        if self.show_labels {
            h.push("LABELS".into());
        }
        h
    }

    /// The label cells of an object (`None`: a row without an object, e.g. a resource).
    pub fn label_cells(&self, snap: &Snapshot, id: Option<crate::model::ObjId>) -> Vec<String> {
        if self.label_columns.is_empty() && !self.show_labels {
            return Vec::new();
        }
        let labels: Vec<(&str, &str)> = id
            .map(|id| {
                snap.store
                    .labels(id)
                    .iter()
                    .map(|(k, v)| (snap.store.str(*k), snap.store.str(*v)))
                    .collect()
            })
            .unwrap_or_default();
        let mut cells: Vec<String> = self
            .label_columns
            .iter()
            .map(|key| {
                labels
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| v.to_string())
                    .unwrap_or_default()
            })
            .collect();
        if self.show_labels {
            let mut all: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            all.sort();
            cells.push(if all.is_empty() {
                "<none>".into()
            } else {
                all.join(",")
            });
        }
        cells
    }
}

/// kubectl's AGE: `45s`, `5m30s`, `65m`, `3h10m`, `20h`, `2d3h`, `30d`, `2y30d`, `10y`
/// (apimachinery's HumanDuration); `<unknown>` when a timestamp is missing or unreadable.
pub fn age(from_rfc3339: &str, now_secs: Option<i64>) -> String {
    let (Some(then), Some(now)) = (crate::snapshot::parse_rfc3339(from_rfc3339), now_secs) else {
        return "<unknown>".into();
    };
    let s = (now - then).max(0);
    let (m, h, d) = (s / 60, s / 3600, s / 86_400);
    if s < 120 {
        format!("{s}s")
    } else if m < 10 {
        if s % 60 == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{}s", s % 60)
        }
    } else if h < 3 {
        format!("{m}m")
    } else if h < 8 {
        if m % 60 == 0 {
            format!("{h}h")
        } else {
            format!("{h}h{}m", m % 60)
        }
    } else if h < 48 {
        format!("{h}h")
    } else if h < 24 * 8 {
        if h % 24 == 0 {
            format!("{d}d")
        } else {
            format!("{d}d{}h", h % 24)
        }
    } else if d < 365 * 2 {
        format!("{d}d")
    } else if d < 365 * 8 {
        let y = d / 365;
        if d % 365 == 0 {
            format!("{y}y")
        } else {
            format!("{y}y{}d", d % 365)
        }
    } else {
        format!("{}y", d / 365)
    }
}

/// The moment ages are measured at: when the input was captured (a live read: now), so a
/// saved snapshot reads the same every day.
pub fn captured_secs(snap: &Snapshot) -> Option<i64> {
    crate::snapshot::parse_rfc3339(&snap.provenance.captured_at)
}

/// Lays a finished table out for [`TableOptions`]: kubectl's padding, and with a width, the
/// columns in `fixed` keep their content's width while the others share what is left,
/// truncated to one line with `…`.
pub fn fit(t: &mut comfy_table::Table, opts: &TableOptions, fixed: &[usize]) {
    pad_columns(t);
    let Some(width) = opts.width.filter(|_| !opts.wide) else {
        return;
    };
    use comfy_table::{ColumnConstraint, Width};
    t.set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
    t.set_width(width);
    t.set_truncation_indicator("…");
    // The header is cut like any row when the terminal is very narrow.
    if let Some(h) = t.header() {
        let mut h = h.clone();
        h.max_height(1);
        t.set_header(h);
    }
    for (i, col) in t.column_iter_mut().enumerate() {
        if fixed.contains(&i) {
            col.set_constraint(ColumnConstraint::ContentWidth);
        } else {
            // At least a few characters of every column (plus kubectl's 3-space gap).
            col.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(4 + 3)));
        }
    }
    for row in t.row_iter_mut() {
        row.max_height(1);
    }
}

/// A table cell showing `text` sanitised ([`text::sanitize`]): every cell of every table is
/// made with it, so no cell can carry a control character to the terminal.
pub fn cell(text: impl AsRef<str>) -> comfy_table::Cell {
    comfy_table::Cell::new(text::sanitize(text.as_ref()))
}

/// A row of [`cell`]s.
pub fn cells<S: AsRef<str>>(texts: impl IntoIterator<Item = S>) -> Vec<comfy_table::Cell> {
    texts.into_iter().map(cell).collect()
}

/// Writes one line of unstyled text, sanitised ([`text::sanitize`]), and a newline.
pub fn write_line(w: &mut dyn Write, line: &str) -> std::io::Result<()> {
    w.write_all(text::sanitize(line).as_bytes())?;
    w.write_all(b"\n")
}

/// Writes a table, trimming the trailing spaces comfy-table pads lines with.
pub fn write_table(w: &mut dyn Write, t: &comfy_table::Table) -> std::io::Result<()> {
    for line in t.lines() {
        writeln!(w, "{}", line.trim_end())?;
    }
    Ok(())
}
