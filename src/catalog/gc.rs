//! The garbage collector's own configuration by release: which resources it never monitors.
//!
//! The rule lives here, next to the other per-release knowledge, because two stages need it:
//! the live reader skips listing what the GC ignores, and the GC model
//! ([`crate::gc::graph_builder`]) leaves those objects out of its graph.

use super::KubeVersion;

/// True for the resources GC release `gc` never watches (gc-model §5.2, Appendix A): core
/// `events` always; `events.k8s.io` `events` since v1.25 (PR #110888). Before, the GC watched
/// `events.k8s.io` events (the same objects as core events, under another group): their
/// ownerReferences were acted on and they could block a foreground deletion.
pub fn gc_ignored_by(group: &str, plural: &str, gc: KubeVersion) -> bool {
    plural == "events" && (group.is_empty() || (group == "events.k8s.io" && gc.at_least(25)))
}
