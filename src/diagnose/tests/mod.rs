//! Unit tests of the diagnostics, one file per part.

mod apply;
mod audit;
mod check;
mod fidelity;
mod remedy;
mod upstream;
mod version_matrix;
