//! `--state-file`: the findings held, saved, so that a restarted `watch` reports only what
//! changed while it was down (the same identities; nothing repeated, nothing lost).
//!
//! The file holds what a transition needs (code, severity, when, the object, the message) —
//! names and UIDs from metadata, never annotations or Secret data. It is written atomically
//! (a temporary file renamed over it).

use super::engine::Held;
use super::{GcAction, WatchFinding, When};
use crate::diagnose::{Code, Severity};
use crate::error::{Error, Result};
use crate::gc::{ObjectRef, Policy};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file.
#[derive(Serialize, Deserialize, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct StateFile {
    /// `kubectl-gc.io/v1`.
    pub api_version: String,
    /// `WatchState`.
    pub kind: String,
    /// The findings held.
    pub findings: Vec<Entry>,
}

/// One finding held.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// Its identity.
    pub id: String,
    /// The subject (object UID).
    pub subject: String,
    /// `GC0NN`.
    pub code: String,
    /// Severity.
    pub severity: String,
    /// When the GC acts.
    pub when: Option<When>,
    /// Why then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_reason: Option<crate::diagnose::timeline::Reason>,
    /// What it does: `delete:<policy>`, `remove-owner-references`, `orphan`.
    pub action: Option<String>,
    /// The object.
    pub object: Option<ObjectRef>,
    /// The resource of resource-level findings.
    #[serde(default)]
    pub resource: Option<String>,
    /// The ownerReference.
    #[serde(default)]
    pub owner_reference: Option<serde_json::Value>,
    /// Its classification.
    #[serde(default)]
    pub classification: Option<String>,
    /// Consequence.
    pub consequence: String,
    /// Message.
    pub message: String,
}

fn action_text(a: GcAction) -> String {
    match a {
        GcAction::Delete { policy } => format!("delete:{}", policy.as_str()),
        GcAction::RemoveOwnerReferences => "remove-owner-references".into(),
        GcAction::Orphan => "orphan".into(),
    }
}

fn parse_action(s: &str) -> Option<GcAction> {
    Some(match s {
        "remove-owner-references" => GcAction::RemoveOwnerReferences,
        "orphan" => GcAction::Orphan,
        "delete:Orphan" => GcAction::Delete {
            policy: Policy::Orphan,
        },
        "delete:Foreground" => GcAction::Delete {
            policy: Policy::Foreground,
        },
        "delete:Background" => GcAction::Delete {
            policy: Policy::Background,
        },
        _ => return None,
    })
}

/// The classifications a finding can carry (`RefClass::label`).
fn static_label(s: &str) -> Option<&'static str> {
    [
        "solid",
        "waiting",
        "dangling",
        "unresolvable",
        "invalid-scope",
        "unknown",
    ]
    .into_iter()
    .find(|l| *l == s)
}

impl Entry {
    /// The entry of a held finding.
    pub fn of(id: &str, h: &Held) -> Entry {
        let f = &h.finding;
        Entry {
            id: id.to_owned(),
            subject: h.subject().to_owned(),
            code: f.code.id().to_owned(),
            severity: f.severity.as_str().to_owned(),
            when: h.when,
            when_reason: h.reason,
            action: h.action.map(action_text),
            object: f.object.clone(),
            resource: f.resource.clone(),
            owner_reference: f.owner_reference.clone(),
            classification: f.classification.map(str::to_owned),
            consequence: f.consequence.clone(),
            message: f.message.clone(),
        }
    }

    /// Back to a held finding; `None` for an entry this version cannot read.
    pub fn held(&self) -> Option<Held> {
        let code = Code::parse(&self.code)?;
        let severity: Severity = self.severity.parse().ok()?;
        let finding = WatchFinding {
            code,
            severity,
            object: self.object.clone(),
            resource: self.resource.clone(),
            owner_reference: self.owner_reference.clone(),
            classification: self.classification.as_deref().and_then(static_label),
            consequence: self.consequence.clone(),
            message: self.message.clone(),
            related: Vec::new(),
            remedies: Vec::new(),
        };
        let action = match &self.action {
            Some(a) => Some(parse_action(a)?),
            None => None,
        };
        let mut held = Held::new(finding, self.when, action, self.subject.clone());
        held.reason = self.when_reason;
        Some(held)
    }
}

/// Reads a state file; a missing file is an empty state.
pub fn load(path: &Path) -> Result<Vec<Entry>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(Error::input(
                path,
                format!("cannot read the state file: {e}"),
                None,
            ));
        }
    };
    let file: StateFile = serde_json::from_str(&text).map_err(|e| {
        Error::input(
            path,
            format!("not a kubectl gc watch state file: {e}"),
            Some("remove it; the next run writes a new one".into()),
        )
    })?;
    Ok(file.findings)
}

/// Writes a state file atomically.
pub fn save(path: &Path, entries: Vec<Entry>) -> std::io::Result<()> {
    let file = StateFile {
        api_version: crate::build_info::REPORT_API_VERSION.to_owned(),
        kind: "WatchState".into(),
        findings: entries,
    };
    let tmp = path.with_extension("tmp");
    std::fs::write(
        &tmp,
        serde_json::to_vec(&file).map_err(std::io::Error::other)?,
    )?;
    std::fs::rename(&tmp, path)
}
