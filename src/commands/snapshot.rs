//! `kubectl gc snapshot`.

use super::load;
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
    // A snapshot is for later analysis of anything: all namespaces unless -n says otherwise.
    let mut g = g.clone();
    if g.namespace.is_none() {
        g.all_namespaces = true;
    }
    let loaded = load(&g, true).await?;
    let start = std::time::Instant::now();
    if args.output.as_os_str() == "-" {
        let mut out = super::stdout();
        format::write(&loaded.snapshot, &mut out)?;
        out.flush()?;
    } else {
        format::write_file(&loaded.snapshot, &args.output)?;
    }
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
