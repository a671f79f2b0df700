//! The namespace controller of kube-controller-manager, laid out like upstream's
//! `pkg/controller/namespace`: [`deletion`] is its `NamespacedResourcesDeleter` — what it does
//! with a namespace being deleted, and what keeps the namespace from going (docs/gc-model.md
//! §10).
//!
//! It sits beside the GC, not inside it: the GC's simulation ([`crate::gc::simulation`]) asks it
//! which content a terminating namespace loses and whether the namespace itself can go, and
//! `diagnose` asks it why a namespace is stuck.

pub mod deletion;

pub use deletion::{Blocker, ContentGroup, NamespaceDeletion, Outlook, evaluate};

#[cfg(test)]
mod tests;
