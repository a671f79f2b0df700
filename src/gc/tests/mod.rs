//! Unit tests of the GC model, one file per part.

mod graph;
mod plan;
mod scenarios;
mod upstream;
