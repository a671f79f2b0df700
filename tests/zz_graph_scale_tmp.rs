use kubectl_gc::analysis::Analysis;
use kubectl_gc::catalog::KubeVersion;
use kubectl_gc::render::graph::{Selection, Subgraph, dot, tree};
use kubectl_gc::testkit::generate::{GenOptions, generate};
use std::time::Instant;

#[test]
fn scale() {
    let t = Instant::now();
    let g = generate(&GenOptions {
        objects: 1_000_000,
        ..GenOptions::default()
    });
    let snap = g.to_snapshot();
    eprintln!(
        "generate+snapshot {:?} objects {}",
        t.elapsed(),
        snap.store.len()
    );
    let t = Instant::now();
    let a = Analysis::new(&snap, KubeVersion::v1(30));
    eprintln!("analysis {:?} nodes {}", t.elapsed(), a.graph.len());
    // A pod near the end.
    let root = a.graph.node_of_object(kubectl_gc::model::ObjId(500_000));
    let t = Instant::now();
    let sub = Subgraph::select(
        &a,
        &Selection {
            roots: vec![root],
            ..Selection::default()
        },
    );
    eprintln!(
        "component select {:?}: {} vertices {} edges",
        t.elapsed(),
        sub.vertex_count(),
        sub.edge_count()
    );
    let t = Instant::now();
    let sub = Subgraph::select(&a, &Selection::default());
    eprintln!(
        "whole select {:?}: {} vertices {} edges",
        t.elapsed(),
        sub.vertex_count(),
        sub.edge_count()
    );
    let t = Instant::now();
    let mut sink = std::io::sink();
    let mut counter = Counter(0, &mut sink);
    dot::write(&mut counter, &sub).unwrap();
    eprintln!("whole dot {:?}: {} bytes", t.elapsed(), counter.0);
    let t = Instant::now();
    let mut counter = Counter(0, &mut sink);
    dot::write_legacy(&mut counter, &sub).unwrap();
    eprintln!("whole legacy dot {:?}: {} bytes", t.elapsed(), counter.0);
    let t = Instant::now();
    let mut counter = Counter(0, &mut sink);
    tree::write(&mut counter, &sub, kubectl_gc::render::Styles::plain()).unwrap();
    eprintln!("whole tree {:?}: {} bytes", t.elapsed(), counter.0);
}

struct Counter<'a>(usize, &'a mut dyn std::io::Write);
impl std::io::Write for Counter<'_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        self.1.write(b)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
