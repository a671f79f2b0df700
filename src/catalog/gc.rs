//! The garbage collector's own configuration by release: which resources it never monitors.
//!
//! The rule lives here, next to the other per-release knowledge, because two stages need it:
//! the live reader skips listing what the GC ignores, and the GC model
//! ([`crate::gc::graph_builder`]) leaves those objects out of its graph.

use super::KubeVersion;
use super::version::Change;

/// True for the resources GC release `gc` never watches (gc-model §5.2, Appendix A): core
/// `events` always; `events.k8s.io` `events` since v1.25 (PR #110888). Before, the GC watched
/// `events.k8s.io` events (the same objects as core events, under another group): their
/// ownerReferences were acted on and they could block a foreground deletion.
pub fn gc_ignored_by(group: &str, plural: &str, gc: KubeVersion) -> bool {
    plural == "events"
        && (group.is_empty() || (group == "events.k8s.io" && gc.has(Change::EventsK8sIoIgnored)))
}

/// True when GC release `gc` watches the objects of this resource, under this resource or
/// another one serving the same objects: everything it does not ignore, plus core `events`
/// before v1.25 — the same stored Events are served as `events.k8s.io` events, which those
/// releases monitor (gc-model §5.2: `GetDeletableResources` minus the GC's ignored
/// resources, which list only core `events` until #110888; issue 14 case 3). A file input (kubectl dump, must-gather) carries Events as
/// core `v1` only, and they are nodes of a GC before 1.25 all the same.
pub fn gc_monitors_objects_of(group: &str, plural: &str, gc: KubeVersion) -> bool {
    !gc_ignored_by(group, plural, gc)
        || (plural == "events" && group.is_empty() && !gc.has(Change::EventsK8sIoIgnored))
}

/// For resources whose monitoring by GC release `gc` is not known (the boundary of row A10 is
/// unverified, and `gc` lies inside its window): why not, as a sentence for reports. Such
/// objects stay out of the graph (the table's date is the model's guess), and the verdicts on
/// their broken ownerReferences are unknown rather than "kept".
pub fn gc_monitoring_unsettled(group: &str, plural: &str, gc: KubeVersion) -> Option<String> {
    (gc_monitoring_unsettled_resource(group, plural) && gc.unsettled(Change::EventsK8sIoIgnored))
        .then(|| {
            let row = Change::EventsK8sIoIgnored.row();
            let until = row
                .seen_in
                .map_or_else(|| "a later release".to_owned(), |v| format!("v{v}"));
            format!(
                "it is not known whether the GC of v{gc} watches Events: kubernetes#{} made it \
             ignore events.k8s.io Events in a release from v{} to {until} that kubectl-gc has \
             not verified",
                row.pr, row.first,
            )
        })
}

/// The resources whose monitoring an unverified release boundary can leave unsettled (row A10:
/// Events, core and `events.k8s.io`).
pub fn gc_monitoring_unsettled_resource(group: &str, plural: &str) -> bool {
    plural == "events" && (group.is_empty() || group == "events.k8s.io")
}
