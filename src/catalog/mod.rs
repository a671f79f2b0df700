//! Built-in knowledge of Kubernetes: the standard kinds (group, plural, scope, which versions are
//! served by which release) and the versions whose GC behaviour differs.

pub mod builtin;
pub mod version;

pub use version::KubeVersion;
