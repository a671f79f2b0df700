//! Output for people and machines. Renderers take the analysis results and a writer; they
//! never print directly, so every format is testable byte for byte. Colour is decided once
//! ([`Styles`]) and is off unless stdout is a terminal and `NO_COLOR` is unset (or forced).

pub mod audit;
pub mod graph;
pub mod plan;

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

/// Writes `value` as YAML.
pub fn write_yaml<T: Serialize>(w: &mut dyn Write, value: &T) -> std::io::Result<()> {
    let v = serde_json::to_value(value).map_err(std::io::Error::other)?;
    let text = serde_saphyr::to_string(&v).map_err(std::io::Error::other)?;
    w.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes `value` as pretty JSON plus a newline.
pub fn write_json<T: Serialize>(w: &mut dyn Write, value: &T) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, value).map_err(std::io::Error::other)?;
    w.write_all(b"\n")
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

/// Writes a table, trimming the trailing spaces comfy-table pads lines with.
pub fn write_table(w: &mut dyn Write, t: &comfy_table::Table) -> std::io::Result<()> {
    for line in t.lines() {
        writeln!(w, "{}", line.trim_end())?;
    }
    Ok(())
}
