//! Unit tests across views.

mod why_outcome;
