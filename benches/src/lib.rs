//! Side-by-side benchmarks of quarry against the peer crates.
//!
//! The library holds what the criterion benches, the iai-callgrind benches,
//! the allocation report and the report/gate binaries share: the inputs
//! (built with each peer's own encoder), the measured operations (so every
//! tool measures the very same function), and readers for the tools' output
//! files.

pub mod alloc_count;
pub mod gate;
pub mod outputs;
pub mod wa;
