//! quarry core: one bump arena per message, typed views into it, and the
//! limits and errors every format decoder shares.
//!
//! The core knows no wire format. A format crate (`quarry-wa`, …) reads its
//! input once, front to back, writes every record it decodes into an
//! [`Arena`] through a [`BoundedAlloc`] (which enforces
//! [`DecodeOptions::max_arena_bytes`]), reports every failure as a
//! [`DecodeError`] with its byte offset, and hands back small `Copy` views
//! that borrow the arena.
//!
//! ```
//! use quarry_core::{Arena, BoundedAlloc, DecodeOptions};
//!
//! let mut arena = Arena::new();
//! {
//!     let alloc = BoundedAlloc::new(&arena, &DecodeOptions::default());
//!     let text = alloc.alloc_str("hello", 0).unwrap();
//!     assert_eq!(text, "hello");
//! }
//! arena.reset(); // every view of the previous message is gone by now
//! ```

// The crate README's example runs as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod arena;
mod bounded_alloc;
mod error;
mod item_budget;
mod options;
mod owned;
mod pool;
mod sizing;
pub mod utf8;

pub use arena::{Arena, ArenaStats};
pub use bounded_alloc::BoundedAlloc;
pub use error::{DecodeError, InvalidUtf8, InvalidValue};
pub use item_budget::ItemBudget;
pub use options::DecodeOptions;
pub use owned::{Covariant, MessageArena, Owned, ViewFamily};
pub use pool::{ArenaPool, ArenaPoolBuilder, PoolStats, PooledArena};
pub use sizing::{ArenaBytes, arena_for, reserve};

/// The shared byte buffer owned messages keep their input in, re-exported
/// so format crates and callers use the same version.
pub use bytes;

/// The bump allocator the arena is built on, re-exported so format crates
/// use the same version.
pub use bumpalo;
