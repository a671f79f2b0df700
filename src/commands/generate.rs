//! `kubectl gc generate` (hidden; test support, built with the `testkit` feature): a synthetic
//! cluster for benchmarks, written as a snapshot and/or created in a disposable test cluster.

use crate::cli::{GenerateArgs, GlobalArgs};
use crate::error::{Error, Result, exit};
use crate::snapshot::format;
use crate::testkit::generate::{GenOptions, generate};
use std::io::Write;
use std::time::Instant;

pub async fn run(g: &GlobalArgs, args: &GenerateArgs) -> Result<u8> {
    if g.snapshot.is_some() || !g.filename.is_empty() {
        return Err(Error::usage(
            "generate makes up its own cluster and reads no input",
            "drop --snapshot/-f",
        ));
    }
    let d = GenOptions::default();
    let opts = GenOptions {
        objects: args.objects,
        seed: args.seed,
        namespaces: args.namespaces,
        dangling_rate: args.dangling_rate.unwrap_or(d.dangling_rate),
        cross_namespace_rate: args.cross_namespace_rate.unwrap_or(d.cross_namespace_rate),
        unresolvable_rate: args.unresolvable_rate.unwrap_or(d.unresolvable_rate),
        foreground_rate: args.foreground_rate.unwrap_or(d.foreground_rate),
        orphan_rate: args.orphan_rate.unwrap_or(d.orphan_rate),
        server_version: args.server_version.clone(),
        ..d
    };
    let start = Instant::now();
    let generated = super::progress::step("generating", || generate(&opts));
    let i = generated.injected;
    eprintln!(
        "generated {} objects in {} namespaces ({:.1}s): {} dangling, {} cross-namespace, {} unresolvable, {} blocked foreground chains, {} orphan finalizers",
        generated.objects.len(),
        generated.namespaces.len(),
        start.elapsed().as_secs_f64(),
        i.dangling,
        i.cross_namespace,
        i.unresolvable,
        i.foreground,
        i.orphan
    );
    if let Some(path) = &args.output {
        super::progress::step("writing the snapshot", || -> Result<()> {
            let snap = generated.to_snapshot();
            if path.as_os_str() == "-" {
                let mut out = super::stdout();
                format::write(&snap, &mut out)?;
                out.flush()?;
            } else {
                format::write_file(&snap, path)?;
            }
            Ok(())
        })?;
        if path.as_os_str() != "-" {
            eprintln!("wrote {}", path.display());
        }
    }
    if let Some(kubeconfig) = &args.apply_to_kubeconfig {
        let mut copts = super::input::connect_options(g);
        copts.kubeconfig = Some(kubeconfig.clone());
        let conn = crate::source::live::connect(&copts).await?;
        eprintln!(
            "loading into {} (context {}) with {} concurrent requests",
            conn.server_url,
            conn.context.as_deref().unwrap_or("in-cluster"),
            args.load_concurrency
        );
        let bar =
            super::progress::Spinner::counter("creating objects", generated.objects.len() as u64);
        let stats = crate::testkit::load::load(
            &conn,
            &generated,
            args.load_concurrency as usize,
            &|done, _total| bar.set_position(done as u64),
        )
        .await?;
        drop(bar);
        eprintln!(
            "created {} objects ({} already existed), deleted {} to leave them terminating, in {:.1}s ({:.0} objects/s)",
            stats.created,
            stats.existing,
            stats.deleted,
            stats.elapsed.as_secs_f64(),
            (stats.created + stats.existing) as f64 / stats.elapsed.as_secs_f64().max(1e-9)
        );
    }
    Ok(exit::OK)
}
