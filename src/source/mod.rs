//! (in progress)

pub mod files;
pub mod live;
