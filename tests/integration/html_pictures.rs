//! The ownership pictures of `-o html`: every label fits inside its box, in the monospace font
//! the page asks for (0.6 em per character at 12 px, as Menlo, DejaVu and Liberation Mono
//! advance).

use crate::support::run::kubectl_gc;

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_label_fits_inside_its_box() {
    let mut longest = 0;
    for snap in [
        "stuck-foreground-deletion.json",
        "redis-operator-incident.json",
    ] {
        let (code, out, err) = kubectl_gc(&["audit", "--snapshot", &example(snap), "-o", "html"]);
        assert_eq!(code, 5, "{err}");
        let doc = roxmltree::Document::parse_with_options(
            &out,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            },
        )
        .expect("well-formed");
        let num = |n: roxmltree::Node<'_, '_>, a: &str| -> f64 {
            n.attribute(a).unwrap().parse().unwrap()
        };
        for g in doc
            .descendants()
            .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("obj"))
        {
            let rect = g.children().find(|n| n.has_tag_name("rect")).unwrap();
            let right = num(rect, "x") + num(rect, "width");
            for t in g.children().filter(|n| n.has_tag_name("text")) {
                let chars = t.text().unwrap_or("").chars().count();
                longest = longest.max(chars);
                let end = num(t, "x") + chars as f64 * 0.6 * 12.0;
                assert!(
                    end + 2.0 <= right,
                    "{snap}: {:?} ends at {end:.1}, its box at {right:.1}",
                    t.text()
                );
            }
        }
    }
    // The labels the newcomer saw overflow ("deleting dependents: foregroundDeletion").
    assert!(longest >= 35, "no long label drawn: {longest}");
}

/// The names of the boxes marked as deleted by the GC, in `audit -o html` of `snap`.
fn marked_deleted(snap: &str) -> Vec<String> {
    let (_, out, err) = kubectl_gc(&["audit", "--snapshot", &example(snap), "-o", "html"]);
    let doc = roxmltree::Document::parse_with_options(
        &out,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}: {err}"));
    let mut names: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("obj"))
        .filter(|g| {
            g.children()
                .any(|t| t.attribute("class") == Some("sub deleted"))
        })
        .filter_map(|g| {
            g.children()
                .find(|t| t.attribute("class") == Some("name"))
                .and_then(|t| t.text())
                .map(str::to_owned)
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn the_pictures_mark_what_the_gc_deletes() {
    // The cross-namespace reference: the GC deletes the exporter, then its Pod (collect's
    // waves 3 and 6); the RedisFailover and its own StatefulSet stay.
    assert_eq!(
        marked_deleted("redis-operator-incident.json"),
        [
            "Pod/redis-cache-exporter-0",
            "StatefulSet/redis-cache-exporter"
        ]
    );
    // A blocked foreground deletion deletes nothing while it stays blocked.
    assert_eq!(
        marked_deleted("stuck-foreground-deletion.json"),
        Vec::<String>::new()
    );
}
