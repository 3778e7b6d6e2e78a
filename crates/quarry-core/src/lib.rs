//! quarry core: one bump arena per message, typed views into it, and the
//! limits and errors every format decoder shares.
//!
//! The core knows no wire format. A format crate (`quarry-wa`, …) reads its
//! input once, front to back, writes every record it decodes into an
//! [`Arena`] through a [`BoundedAlloc`] (which enforces
//! [`DecodeOptions::max_arena_bytes`]), reads bytes through a [`ByteReader`]
//! (every failure carries its byte offset), and hands back small `Copy`
//! views that borrow the arena.
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

mod arena;
mod bounded_alloc;
mod byte_reader;
mod error;
mod handle;
mod options;
mod owned;
mod pool;
mod sizing;
pub mod utf8;

pub use arena::{Arena, ArenaStats};
pub use bounded_alloc::BoundedAlloc;
pub use byte_reader::ByteReader;
pub use error::DecodeError;
pub use handle::Id;
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
