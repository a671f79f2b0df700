//! `kubectl gc admit`: a validating admission webhook that says, when an ownerReference is
//! written, what the garbage collector will make of it.
//!
//! The checks are the GC's own verdicts ([`crate::gc::classify`]) on the references a CREATE
//! or UPDATE adds, judged on the graph `kubectl gc watch` keeps ([`crate::watch`]): one
//! informer set, one classification. For each new reference, the object as the write would
//! leave it is put beside the objects an owner lookup can reach (the owner by name, in its
//! namespace and at cluster scope, and whatever holds the reference's UID) in a snapshot of
//! their own ([`crate::watch::world::World::mini_with`]), and the emulated GC classifies it
//! there exactly as it classifies references on the whole cluster. What the GC then does with
//! the object (`attemptToDeleteItem`'s verdict) is what the message says.
//!
//! | module | what |
//! |---|---|
//! | [`review`] | `AdmissionReview` v1 and v1beta1 in, the answer out |
//! | [`decide`] | the fast paths that admit at once, and the checks on the graph |
//! | [`graph`] | the world the checks read while the watch loop writes it; lost watches |
//! | [`metrics`] | requests, verdicts, latency, how long a request waited for the graph |
//! | [`server`] | `/validate`, `/healthz`, `/metrics`: deadlines, permits per kind of work |
//! | [`conns`] | connections: the cap, shedding the oldest idle or slow one, timeouts |
//! | [`tls`] | the serving certificate reloaded by content, client certificates |
//! | [`config`] | the `ValidatingWebhookConfiguration` to apply |
//! | [`policy`] | the checks that need no lookup, as a `ValidatingAdmissionPolicy` |
//! | [`permission`] | what OwnerReferencesPermissionEnforcement would refuse, asked of the authorizer |
//!
//! After `watch` in the pipeline: it reads the watch's engine and the GC, and renders nothing.

pub mod config;
pub mod conns;
pub mod decide;
pub mod graph;
pub mod metrics;
pub mod permission;
pub mod policy;
pub mod review;
pub mod server;
pub mod tls;

#[cfg(test)]
mod tests;

pub use decide::{Mode, Policy};

/// At most this many characters of a name or other string from a request go into a message
/// (the API server cuts warnings longer than 256 characters).
const CLIP: usize = 63;

/// `s` for a message: terminal-hostile characters escaped (kubectl prints warnings to a
/// terminal as they come) and cut to [`CLIP`] characters.
pub fn clip(s: &str) -> String {
    clip_to(s, CLIP)
}

/// `s` with terminal-hostile characters escaped and cut to `limit` characters (an ellipsis
/// marks the cut).
pub fn clip_to(s: &str, limit: usize) -> String {
    let mut out = String::with_capacity(s.len().min(limit + 4));
    for (n, c) in s.chars().enumerate() {
        if n == limit {
            out.push('…');
            break;
        }
        if crate::util::is_terminal_hostile(c) {
            out.push_str(&format!("\\u{{{:04x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}
