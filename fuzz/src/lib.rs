//! The properties every fuzz target checks, one module per format.
//!
//! Each check decodes the input three times:
//!
//! 1. into a fresh [`Arena`] (what a caller does first),
//! 2. into a thread-local arena that is reset and still holds the chunk of
//!    the previous input (what a server with a pooled arena does), which
//!    must give the same tree or the same error,
//! 3. into an arena pre-sized well past the documented bound, where the
//!    drop in free space is exactly the arena bytes the decode wrote; that
//!    must be within the bound for the input length (docs/SECURITY.md).
//!
//! A successful decode is then re-encoded with the crate's own encoder,
//! decoded again and compared with the first tree, and the re-encoding of
//! the second tree must be the same bytes (a fixed point). A failure must
//! carry an offset inside the input. Any broken property panics, which
//! libFuzzer reports as a crash with the input saved.

use std::cell::RefCell;

use quarry_core::{Arena, DecodeError};

pub mod nostr;
pub mod nostr_peer;
pub mod proto;
pub mod proto_peer;
pub mod wa;
pub mod wa_peer;

thread_local! {
    /// The arena every check reuses: reset before each decode, so it keeps
    /// the largest chunk any earlier input needed.
    static REUSED: RefCell<Arena> = RefCell::new(Arena::new());
}

/// Run `decode` in the reused arena (reset first) and return what it
/// produced; the closure turns the views into something owned.
pub fn in_reused_arena<T>(decode: impl FnOnce(&Arena) -> T) -> T {
    REUSED.with(|cell| {
        let mut arena = cell.borrow_mut();
        arena.reset();
        decode(&arena)
    })
}

/// Arena bytes `decode` writes: measured in an arena whose first chunk
/// holds `capacity` bytes as the drop in that chunk's free space. Panics
/// when the decode needed a second chunk (it wrote more than `capacity`).
pub fn arena_bytes_written<T>(capacity: usize, decode: impl FnOnce(&Arena) -> T) -> (usize, T) {
    let arena = Arena::with_capacity(capacity);
    let before = arena.stats();
    let out = decode(&arena);
    let after = arena.stats();
    assert_eq!(
        after.allocated_bytes, before.allocated_bytes,
        "the decode wrote more than {capacity} arena bytes (a second chunk was allocated)"
    );
    (
        before
            .free_in_current_chunk
            .saturating_sub(after.free_in_current_chunk),
        out,
    )
}

/// A failed decode must point inside (or just past the end of) its input.
pub fn check_offset(error: &DecodeError, len: usize) {
    assert!(
        error.offset() <= len,
        "error offset {} past the {len}-byte input: {error}",
        error.offset()
    );
}
