//! `kubectl gc snapshot`.

use super::flags;
use crate::cli::{GlobalArgs, SnapshotArgs};
use crate::error::{Error, Result, exit};
use crate::snapshot::format;
use std::io::Write;

pub async fn run(g: &GlobalArgs, args: &SnapshotArgs) -> Result<u8> {
    if g.snapshot.is_some() {
        return Err(Error::usage(
            "snapshot reads a live cluster or -f files, not another snapshot",
            "copy the file instead",
        ));
    }
    flags::check_snapshot_output(&args.output)?;
    // A snapshot is for later analysis of anything: all namespaces unless -n says otherwise.
    let mut g = g.clone();
    if g.namespace.is_none() {
        g.all_namespaces = true;
    }
    let loaded = super::load_input(&g, true).await?;
    if let Some(ns) = g.namespace.as_deref() {
        // A namespace the input shows does not exist is an error, not an empty snapshot.
        super::select::Selection::parse(&g)?.resolve(&loaded.snapshot, Some(ns), true)?;
    }
    let start = std::time::Instant::now();
    super::progress::step("writing the snapshot", || -> Result<()> {
        if args.output.as_os_str() == "-" {
            let mut out = super::stdout();
            format::write(&loaded.snapshot, &mut out)?;
            out.flush()?;
        } else {
            format::write_file(&loaded.snapshot, &args.output)?;
        }
        Ok(())
    })?;
    eprintln!(
        "wrote {} objects of {} resources to {} in {:.1}s",
        loaded.snapshot.store.len(),
        loaded
            .snapshot
            .resources
            .iter()
            .filter(|r| r.monitored())
            .count(),
        args.output.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(exit::OK)
}
