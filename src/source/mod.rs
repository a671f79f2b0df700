//! Where metadata comes from. Each source turns its input into a [`crate::snapshot::Snapshot`]
//! and records how completely it read it, so that what was not read is *unknown* downstream,
//! never *absent*:
//!
//! * [`live`]: a cluster, through a kubeconfig like kubectl: the GC's discovery, then
//!   concurrent metadata-only lists of every resource the GC monitors (forbidden, failed and
//!   skipped lists are recorded per resource); also the real GC's graph for `graph --from-gc`.
//! * [`files`]: `kubectl get -o json|yaml` output, support bundles and must-gathers, with
//!   coverage inferred from what the input holds.
//! * [`audit`] and [`controller_log`]: for forensics, API-server audit logs and
//!   kube-controller-manager's own log (the GC's and the namespace controller's lines).
//!
//! Saved snapshots (`--snapshot FILE`) are read by [`crate::snapshot::format`].

pub mod audit;
pub mod controller_log;
pub mod files;
pub mod live;
