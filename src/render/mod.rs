//! Output for people and machines. Renderers take the analysis results and a writer; they
//! never print directly, so every format is testable byte for byte. Colour is decided once
//! ([`Styles`]) and is off unless stdout is a terminal and `NO_COLOR` is unset (or forced).

pub mod audit;
pub mod graph;
pub mod plan;

use crate::cli::ColorChoice;
use crate::model::{ObjId, OwnerRef};
use crate::snapshot::Snapshot;
use crate::snapshot::format::OwnerRefOut;
use serde::Serialize;
use std::io::{IsTerminal, Write};

/// `apiVersion` of every report kubectl-gc prints.
pub const REPORT_API_VERSION: &str = "kubectl-gc.io/v1";

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

/// An object reference in reports: `{apiVersion, kind, namespace, name, uid}`.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    /// apiVersion of the object's resource.
    pub api_version: String,
    /// kind.
    pub kind: String,
    /// namespace (omitted when cluster-scoped).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// name.
    pub name: String,
    /// uid.
    pub uid: String,
}

impl ObjectRef {
    /// The reference of a snapshot object.
    pub fn of(snap: &Snapshot, id: ObjId) -> ObjectRef {
        let o = snap.store.object(id);
        let r = snap.resource_of(o);
        ObjectRef {
            api_version: r.api_version(),
            kind: r.kind.clone(),
            namespace: snap.store.str(o.namespace).to_owned(),
            name: snap.store.str(o.name).to_owned(),
            uid: snap.store.str(o.uid).to_owned(),
        }
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
