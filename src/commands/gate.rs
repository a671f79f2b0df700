//! The CI gate shared by `audit` and `check`: suppressions, baselines and the exit code.

use crate::cli::{FailOn, GateArgs};
use crate::diagnose::Finding;
use crate::diagnose::suppress::{self, Baseline};
use crate::error::{Result, exit};
use crate::render::audit::Coverage;
use crate::snapshot::Snapshot;

/// Applies annotation and baseline suppressions; writes a baseline if asked. Returns the
/// findings kept and how many were suppressed.
pub fn suppress<'f>(
    snap: &Snapshot,
    gate: &GateArgs,
    findings: Vec<&'f Finding>,
) -> Result<(Vec<&'f Finding>, usize)> {
    let baseline = gate.baseline.as_deref().map(Baseline::read).transpose()?;
    let (kept, suppressed) = suppress::apply(snap, findings, baseline.as_ref());
    if let Some(path) = &gate.write_baseline {
        Baseline::of(snap, &kept).write(path)?;
        eprintln!(
            "wrote {} finding(s) to baseline {}",
            kept.len(),
            path.display()
        );
    }
    Ok((kept, suppressed))
}

/// The exit code: writing a baseline succeeds (it is how a team adopts the gate on a cluster
/// that has findings); otherwise findings at or above `--fail-on` first, then incomplete
/// coverage when `--strict-coverage`.
pub fn exit_code(
    findings: &[&Finding],
    fail_on: FailOn,
    gate: &GateArgs,
    coverage: &Coverage,
) -> u8 {
    if gate.write_baseline.is_some() {
        return exit::OK;
    }
    let failing = match fail_on {
        FailOn::Never => false,
        FailOn::At(sev) => findings.iter().any(|f| f.severity >= sev),
    };
    let incomplete = !coverage.gaps.is_empty() || !coverage.discovery_failures.is_empty();
    if failing {
        exit::FINDINGS
    } else if gate.strict_coverage && incomplete {
        exit::INCOMPLETE
    } else {
        exit::OK
    }
}
