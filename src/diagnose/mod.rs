//! Diagnostics built on the GC model: findings with stable codes, restart and upgrade
//! predictions, GC health, suppressions.

pub mod audit;
pub mod check;
pub mod restart;
pub mod suppress;

#[cfg(test)]
mod tests;
