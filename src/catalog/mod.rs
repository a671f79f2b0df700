//! Built-in knowledge of Kubernetes: the standard kinds (group, plural, scope, which versions are
//! served by which release, kubectl's short names), the versions whose GC behaviour differs and
//! the resources the GC never monitors.

pub mod builtin;
pub mod finalizers;
pub mod gc;
pub mod managers;
pub mod short_names;
pub mod version;

pub use gc::{gc_ignored_by, gc_monitors_objects_of};

/// What support-bundle collectors (troubleshoot.sh's redactors: kURL, Replicated) write in
/// place of a value they hide, such as an IP address. Metadata that holds it does not say what
/// the cluster holds.
pub const REDACTED: &str = "***HIDDEN***";
pub use version::KubeVersion;

#[cfg(test)]
mod tests;
