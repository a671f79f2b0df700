//! Sentences the remedy catalogue shares with the checks made at write time (`kubectl gc
//! admit`, `kubectl gc policy`), so that `why` and the admission messages give a break the
//! same fix in the same words.

/// The fix for a reference no served kind matches.
pub const FIX_COORDINATES: &str =
    "set the reference's apiVersion, kind and name to the owner's, as the API server serves them";

/// When removing a reference to an owner the GC cannot find is the fix.
pub const ABSENT_WHEN: &str =
    "if the object should stay (while the reference is there, the GC deletes it)";

/// Why removing the reference is the fix for a cluster-scoped object naming a namespaced owner.
pub const INVALID_SCOPE_WHEN: &str = "a cluster-scoped object cannot be owned by a namespaced one; \
     the GC ignores it until the reference is gone";
