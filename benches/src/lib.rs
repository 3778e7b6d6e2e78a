//! Side-by-side benchmarks of quarry against the peer crates.
//!
//! The library holds what the criterion benches, the iai-callgrind benches,
//! the allocation report and the report/gate binaries share: the inputs
//! (built with each peer's own encoder), the measured operations (so every
//! tool measures the very same function), readers for the tools' output
//! files, and the pieces of the report.

pub mod alloc_count;
pub mod binsize;
pub mod callgrind_profile;
pub mod gate;
#[cfg(feature = "nostr")]
pub mod nostr_corpus;
pub mod outputs;
#[cfg(feature = "buffa")]
pub mod proto;
pub mod report;
pub mod rng;
pub mod wa;
pub mod wa_corpus;
