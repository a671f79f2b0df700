//! The input layer: everything between a path on the command line and the bytes a reader
//! parses, shared by every file reader (`-f` in [`crate::source`]'s `files`, `--audit-log` in
//! its `audit`), so that they accept the same inputs by construction.
//!
//! * [`walk`]: the one walker. Paths, `-` for standard input, shell-style globs the shell did
//!   not expand, directories, tar and zip archives (nested ones too), gzip, xz and zstd
//!   streams (by their magic bytes, not their names), size caps on whatever has no known
//!   length, one nesting limit ([`walk::MAX_NESTING`]). A reader says which names it reads in
//!   a walk and whether it wants a large file mapped; it gets each decompressed input as
//!   text, and every problem of the walk through one callback ([`walk::Reader`]).
//! * [`parallel`]: the one ordered parallel map: jobs made here, worked on several threads,
//!   results handed back here in the order the jobs were made.
//! * [`stream`]: what a stream's first bytes say it is, the cap, and the wording of read
//!   errors; [`bytes`]: memory maps, a map's text checked once, the SIMD string scan (the
//!   layer's only `unsafe`); [`json_scan`]: the one-pass JSON cursor of the scanners.
//!
//! A new input format needs none of this changed: its reader implements [`walk::Reader`]
//! (or is one more branch of an existing reader's text) and parses the text it is given.

pub mod bytes;
pub mod feed;
pub mod json_scan;
pub mod parallel;
pub(crate) mod stream;
pub mod walk;

pub use stream::read_error;
