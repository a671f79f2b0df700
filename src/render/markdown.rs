//! `-o markdown`: a pull-request comment (GitHub-flavoured Markdown): a summary line, one row
//! per cluster, a table of findings, and the details and fixes in a collapsed `<details>`
//! block. The whole comment stays within GitHub's comment limit ([`MAX_CHARS`]): rows and
//! details that do not fit are counted in a "…and N more" note.
//!
//! Every string from the cluster is escaped ([`super::escape`]): object names in code spans,
//! messages as text with Markdown punctuation backslash-escaped, `<`/`>` as entities, no line
//! breaks, no `@` mentions. Commands go into fenced blocks whose fence is longer than any
//! backtick run inside.

use super::ci::{CiReport, ClusterOutcome, SEVERITIES, owner_text};
use super::escape::{markdown as md, markdown_code as code, markdown_fence};
use crate::diagnose::{Code, Severity};
use crate::render::audit::FindingJson;
use std::fmt::Write as _;
use std::io::{self, Write};

/// GitHub refuses comments longer than 65,536 characters; we count bytes (never fewer than
/// characters), so the comment always fits.
pub const MAX_CHARS: usize = 65_536;

/// Room kept for the closing notes and the legend.
const RESERVE: usize = 4_096;

fn icon(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "🔴 critical",
        Severity::Error => "🟠 error",
        Severity::Warning => "🟡 warning",
        Severity::Info => "🔵 info",
    }
}

fn object_cell(f: &FindingJson) -> String {
    let cell = object_only(f);
    match &f.source {
        Some(src) => match src.line {
            Some(l) => format!("{cell} at {}", code(&format!("{}:{l}", src.file))),
            None => format!("{cell} at {}", code(&src.file)),
        },
        None => cell,
    }
}

fn object_only(f: &FindingJson) -> String {
    match (&f.object, &f.resource) {
        (Some(o), _) => code(&crate::model::spell_object(&o.kind, &o.name, &o.namespace)),
        (None, Some(r)) => format!("resource {}", code(r)),
        (None, None) => "-".into(),
    }
}

/// Writes the comment.
pub fn write(w: &mut dyn Write, r: &CiReport) -> io::Result<()> {
    w.write_all(render(r, MAX_CHARS).as_bytes())
}

/// The comment, at most `limit` bytes long (a limit below a few kilobytes still gets the
/// summary).
pub fn render(r: &CiReport, limit: usize) -> String {
    let fleet = r.is_fleet();
    let mut all: Vec<(&str, &FindingJson)> = Vec::new();
    for c in &r.clusters {
        if let Some(rep) = c.report() {
            all.extend(rep.findings.iter().map(|f| (c.name.as_str(), f)));
        }
    }
    // Highest severity first across clusters; stable within a cluster's own order.
    all.sort_by_key(|b| std::cmp::Reverse(b.1.severity));
    let failed: Vec<_> = r.clusters.iter().filter(|c| c.error().is_some()).collect();
    let failing = all.iter().filter(|(_, f)| r.fails(f.severity)).count();

    let mut out = String::new();
    let counts: Vec<String> = SEVERITIES
        .iter()
        .filter_map(|s| {
            let n = all.iter().filter(|(_, f)| f.severity == *s).count();
            (n > 0).then(|| format!("{n} {}", s.as_str()))
        })
        .collect();
    let verdict = if !failed.is_empty() || failing > 0 {
        "❌"
    } else {
        "✅"
    };
    let _ = write!(
        out,
        "### {verdict} kubectl-gc {}: {} finding{}",
        r.command,
        all.len(),
        if all.len() == 1 { "" } else { "s" }
    );
    if !counts.is_empty() {
        let _ = write!(out, " ({})", counts.join(", "));
    }
    if fleet {
        let _ = write!(out, " in {} clusters", r.clusters.len());
    }
    out.push_str("\n\n");
    let _ = writeln!(
        out,
        "{failing} at or above `--fail-on {}`{}.\n",
        r.fail_on_text(),
        if failed.is_empty() {
            String::new()
        } else {
            format!(
                "; {} cluster{} could not be audited",
                failed.len(),
                if failed.len() == 1 { "" } else { "s" }
            )
        }
    );

    // One row per cluster: where the findings come from, and what could not be read.
    out.push_str("| cluster | findings | GC | objects | coverage |\n|---|---|---|---|---|\n");
    for c in &r.clusters {
        match &c.outcome {
            ClusterOutcome::Failed(e) => {
                let _ = writeln!(
                    out,
                    "| {} | ❌ not audited: {}{} | | | |",
                    code(&c.name),
                    md(&e.message),
                    e.hint
                        .as_deref()
                        .map(|h| format!(" (hint: {})", md(h)))
                        .unwrap_or_default()
                );
            }
            ClusterOutcome::Report { report, .. } => {
                let cov = &report.summary.coverage;
                let coverage = if !cov.gaps.is_empty() || !cov.discovery_failures.is_empty() {
                    let names: Vec<String> = cov
                        .gaps
                        .iter()
                        .take(5)
                        .map(|g| format!("{} {}", code(&g.resource), g.outcome))
                        .collect();
                    format!(
                        "⚠️ incomplete: {}{}{}",
                        names.join(", "),
                        if cov.gaps.len() > 5 { ", …" } else { "" },
                        if cov.discovery_failures.is_empty() {
                            String::new()
                        } else {
                            format!(
                                "; {} API group-version(s) unreadable",
                                cov.discovery_failures.len()
                            )
                        }
                    )
                } else if cov.complete {
                    "complete".into()
                } else {
                    "file input".into()
                };
                let _ = writeln!(
                    out,
                    "| {} | {}{} | {} | {} | {} |",
                    code(&c.name),
                    report.summary.findings,
                    if report.summary.suppressed > 0 {
                        format!(" ({} suppressed)", report.summary.suppressed)
                    } else {
                        String::new()
                    },
                    code(&report.gc_version),
                    report.summary.objects,
                    coverage
                );
            }
        }
    }
    for c in &r.clusters {
        if let ClusterOutcome::Report { report, .. } = &c.outcome
            && let Some(hint) = super::audit::assume_complete_hint(report)
        {
            let _ = writeln!(
                out,
                "\nOwners of kinds the input does not hold completely are unknown: {}.",
                md(hint).replace("--assume-complete", &code("--assume-complete"))
            );
        }
    }
    out.push('\n');
    if all.is_empty() {
        return out;
    }

    // The findings table, as many rows as fit.
    let mut table = String::from("| severity | code | ");
    if fleet {
        table.push_str("cluster | ");
    }
    table.push_str("object | owner | what the GC does |\n|---|---|");
    table.push_str(if fleet {
        "---|---|---|---|\n"
    } else {
        "---|---|---|\n"
    });
    let budget = limit.saturating_sub(RESERVE);
    let mut shown = 0;
    for (cluster, f) in &all {
        let mut row = format!("| {} | {} {} | ", icon(f.severity), f.code, md(f.name));
        if fleet {
            let _ = write!(row, "{} | ", code(cluster));
        }
        let _ = writeln!(
            row,
            "{} | {} | {} |",
            object_cell(f),
            owner_text(f)
                .map(|o| code(&o))
                .unwrap_or_else(|| "-".into()),
            md(&f.consequence)
        );
        if out.len() + table.len() + row.len() > budget {
            break;
        }
        table.push_str(&row);
        shown += 1;
    }
    out.push_str(&table);
    if shown < all.len() {
        let _ = writeln!(
            out,
            "\n…and {} more finding{} not shown (GitHub's comment limit): see the full report (`-o html`, `-o json`).",
            all.len() - shown,
            if all.len() - shown == 1 { "" } else { "s" }
        );
    }
    out.push('\n');

    // Details and fixes of the findings shown, collapsed.
    let mut details = String::new();
    let mut detailed = 0;
    for (cluster, f) in all.iter().take(shown) {
        let mut d = format!("#### {} {}", f.code, object_cell(f));
        if fleet {
            let _ = write!(d, " ({})", code(cluster));
        }
        d.push_str("\n\n");
        let _ = writeln!(d, "{}\n", md(&f.message));
        for e in &f.evidence {
            let _ = writeln!(d, "- evidence: {}", md(e));
        }
        if !f.evidence.is_empty() {
            d.push('\n');
        }
        // Each fix as a shell comment (what it does) above its command: inside the fence
        // names are literal text, and the block still pastes as it is.
        let mut body: Vec<String> = Vec::new();
        for (i, m) in f.fixes.iter().enumerate() {
            body.push(format!("# {}. {}", i + 1, super::escape::one_line(&m.note)));
            if !m.command.is_empty() {
                body.push(super::escape::one_line(&m.command));
            }
        }
        if f.fixes.is_empty() {
            // Findings from a source without notes (watch): the commands alone.
            body.extend(f.remedies.iter().map(|m| super::escape::one_line(m)));
        }
        if !body.is_empty() {
            let body = body.join("\n");
            let fence = markdown_fence(&body);
            let _ = writeln!(d, "{fence}sh\n{body}\n{fence}\n");
        }
        if out.len() + details.len() + d.len() + 64 > limit.saturating_sub(RESERVE / 2) {
            break;
        }
        details.push_str(&d);
        detailed += 1;
    }
    if detailed > 0 {
        let _ = write!(
            out,
            "<details><summary>Details and fixes ({detailed})</summary>\n\n{details}"
        );
        if detailed < shown {
            let _ = writeln!(
                out,
                "…and {} more not shown (GitHub's comment limit).\n",
                shown - detailed
            );
        }
        out.push_str("</details>\n\n");
    }

    // The codes that appear, explained.
    let mut codes: Vec<Code> = all
        .iter()
        .filter_map(|(_, f)| Code::parse(f.code))
        .collect();
    codes.sort();
    codes.dedup();
    let mut legend = String::from(
        "<details><summary>Finding codes</summary>\n\n| code | meaning | fix |\n|---|---|---|\n",
    );
    for c in codes {
        let h = c.info();
        let _ = writeln!(
            legend,
            "| {} {} | {} | {} |",
            c.id(),
            md(c.name()),
            md(h.title),
            md(h.remedy)
        );
    }
    legend.push_str("\n</details>\n");
    if out.len() + legend.len() <= limit {
        out.push_str(&legend);
    }
    out
}
