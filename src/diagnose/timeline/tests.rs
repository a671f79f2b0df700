//! The timeline against the GC's cases.
