//! The reservation policy every format shares: how big a fresh arena's
//! one chunk is, and how that agrees with what an [`ArenaPool`] keeps.
//!
//! Each format has two functions of its input:
//!
//! * **the bound** (`max_arena_bytes(len)` in each format crate): the most
//!   arena bytes one decode can write, for any input of that length. The
//!   decoders use it to choose their unchecked path (when the bound fits
//!   the budget, no allocation can break it) and never reserve it.
//! * **the estimate** (`estimate_arena_bytes(input)`): what a decode
//!   reserves before it starts, in one allocation. It is measured, not
//!   proved: it covers what the decode writes on every benchmark shape and
//!   the formats' real-shaped samples, with margin, and is never above the
//!   bound. An input that writes more than its estimate makes bumpalo add
//!   a chunk, at least twice the one before; each format names the inputs
//!   that can and bounds what they hold.
//!
//! [`reserve`] and [`arena_for`] apply an estimate under a budget; a format
//! supplies only its ratios ([`ArenaBytes`]) and, where it reads the input
//! to estimate, that reading.
//!
//! [`ArenaPool`]: crate::ArenaPool

use crate::{Arena, DecodeOptions};

/// A linear function of the input length, `per_input_byte × len +
/// constant` (saturating): the form every format's bound and estimate
/// take.
///
/// ```
/// use quarry_core::ArenaBytes;
///
/// const BOUND: ArenaBytes = ArenaBytes { per_input_byte: 31, constant: 256 };
/// assert_eq!(BOUND.of(100), 31 * 100 + 256);
/// assert_eq!(BOUND.of(usize::MAX), usize::MAX);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArenaBytes {
    /// Bytes per input byte.
    pub per_input_byte: usize,
    /// Bytes on top, whatever the length.
    pub constant: usize,
}

impl ArenaBytes {
    /// The bytes for an input of `len` bytes.
    #[inline]
    pub const fn of(self, len: usize) -> usize {
        len.saturating_mul(self.per_input_byte)
            .saturating_add(self.constant)
    }
}

/// The reservation a decode makes before it starts: when `arena`'s current
/// chunk has less room than `floor` (a cheap lower estimate; none when the
/// arena has no chunk yet), one chunk for `estimate()` bytes (at least
/// `floor`), capped by the budget the decode has left: one heap
/// allocation. An arena with room for `floor` (reused after a reset), or
/// made by [`Arena::with_capacity`] and not reset since (a format's
/// `arena_for`), is used as it is, and `estimate` is not called: when a message needs more than its chunk holds, bumpalo
/// adds a chunk of at least twice its size, which a reset then keeps. So a
/// steady stream of similar messages through one arena or a pool allocates
/// nothing once the chunk has grown to what they need.
///
/// ```
/// let arena = quarry_core::Arena::new();
/// quarry_core::reserve(&arena, 100, || 10_000, 4096);
/// assert_eq!(arena.stats().allocated_bytes, quarry_core::Arena::chunk_bytes_for(4096));
/// quarry_core::reserve(&arena, 100, || unreachable!("the chunk has room"), 1 << 20);
/// // Sized by its maker: left as it is, even for a larger floor.
/// let sized = quarry_core::Arena::with_capacity(100);
/// quarry_core::reserve(&sized, 1000, || unreachable!("presized"), 1 << 20);
/// ```
#[inline]
pub fn reserve(arena: &Arena, floor: usize, estimate: impl FnOnce() -> usize, budget_left: usize) {
    if arena.presized.get() {
        return;
    }
    if arena.bump().chunk_capacity() < floor.min(budget_left) || arena.bump().allocated_bytes() == 0
    {
        arena.reserve(estimate().max(floor).min(budget_left));
    }
}

/// A fresh arena whose one chunk holds `estimate` bytes, capped by the
/// default budget ([`DecodeOptions::DEFAULT`]`.max_arena_bytes`): what each
/// format's `arena_for(input)` returns, so its decode allocates nothing.
///
/// ```
/// let arena = quarry_core::arena_for(1000);
/// assert_eq!(arena.stats().allocated_bytes, quarry_core::Arena::chunk_bytes_for(1000));
/// ```
pub fn arena_for(estimate: usize) -> Arena {
    Arena::with_capacity(estimate.min(DecodeOptions::DEFAULT.max_arena_bytes))
}
