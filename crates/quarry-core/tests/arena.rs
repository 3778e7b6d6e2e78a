//! The arena's reservation, reset and budget behave as the allocation
//! contract needs.

use quarry_core::{Arena, BoundedAlloc, DecodeError, DecodeOptions};

#[test]
fn a_new_arena_holds_nothing() {
    let arena = Arena::new();
    assert_eq!(arena.stats().allocated_bytes, 0);
}

#[test]
fn reserve_leaves_the_requested_room_in_one_chunk() {
    let arena = Arena::new();
    arena.reserve(10_000);
    let stats = arena.stats();
    assert!(stats.free_in_current_chunk >= 10_000, "{stats:?}");
    // Everything reserved fits without a second chunk.
    let held = stats.allocated_bytes;
    let alloc = BoundedAlloc::new(&arena, &DecodeOptions::default());
    for _ in 0..100 {
        alloc.alloc_slice_fill_copy(100, 0u8, 0).unwrap();
    }
    assert_eq!(arena.stats().allocated_bytes, held);
}

#[test]
fn reserve_with_room_to_spare_changes_nothing() {
    let arena = Arena::with_capacity(4096);
    let before = arena.stats();
    arena.reserve(1000);
    assert_eq!(arena.stats(), before);
}

#[test]
fn reset_keeps_the_chunk_and_frees_its_room() {
    let mut arena = Arena::new();
    arena.reserve(50_000);
    {
        let alloc = BoundedAlloc::new(&arena, &DecodeOptions::default());
        alloc.alloc_slice_fill_copy(40_000, 1u8, 0).unwrap();
    }
    let held = arena.stats().allocated_bytes;
    assert!(arena.stats().free_in_current_chunk < 50_000);
    arena.reset();
    assert_eq!(arena.stats().allocated_bytes, held);
    assert!(arena.stats().free_in_current_chunk >= 50_000);
}

#[test]
fn the_budget_is_checked_before_the_arena_is_asked() {
    let arena = Arena::new();
    let opts = DecodeOptions {
        max_arena_bytes: 1 << 20,
        ..Default::default()
    };
    let alloc = BoundedAlloc::new(&arena, &opts);
    // A hostile length: fails on the budget, allocates nothing.
    assert_eq!(
        alloc.alloc_slice_fill_copy(usize::MAX / 2, 0u64, 17),
        Err(DecodeError::ArenaLimit {
            offset: 17,
            limit: 1 << 20
        })
    );
    assert_eq!(arena.stats().allocated_bytes, 0);
    assert_eq!(alloc.used(), 0);
}

#[test]
fn values_written_through_the_budget_read_back() {
    let arena = Arena::new();
    let alloc = BoundedAlloc::new(&arena, &DecodeOptions::default());
    let text = alloc.alloc_str("héllo", 3).unwrap();
    let bytes = alloc.alloc_bytes(&[1, 2, 3], 3).unwrap();
    let filled = alloc.alloc_slice_fill_with(4, 0, |i| i * 10).unwrap();
    assert_eq!(text, "héllo");
    assert_eq!(bytes, &[1, 2, 3]);
    assert_eq!(filled, &[0, 10, 20, 30]);
    assert_eq!(
        alloc.used(),
        "héllo".len() + 3 + 4 * std::mem::size_of::<usize>()
    );
}

/// `Arena::chunk_bytes_for` is bumpalo's own rounding: every size from 1
/// byte to 3 pages, and some large ones, gives the chunk `with_capacity`
/// really makes (a bumpalo release that rounds otherwise fails here).
#[test]
fn chunk_bytes_for_is_what_with_capacity_holds() {
    let sizes = (1..3 * 4096).chain([100_000, 1 << 20, (1 << 20) + 1, 3 << 20]);
    let step = if cfg!(miri) { 397 } else { 1 };
    for bytes in sizes.step_by(step) {
        let held = Arena::with_capacity(bytes).stats().allocated_bytes;
        assert_eq!(
            Arena::chunk_bytes_for(bytes),
            held,
            "with_capacity({bytes})"
        );
        // An empty arena's reservation makes the same chunk.
        let arena = Arena::new();
        arena.reserve(bytes);
        assert_eq!(arena.stats().allocated_bytes, held, "reserve({bytes})");
    }
}

/// Bytes used are what was written: two allocations of 24 and 40 bytes,
/// 8-aligned, in a fresh chunk.
#[test]
fn used_bytes_counts_what_was_written() {
    let arena = Arena::with_capacity(4096);
    assert_eq!(arena.stats().used_bytes(), 0);
    arena.bump().alloc([1u64; 3]);
    arena.bump().alloc([2u64; 5]);
    assert_eq!(arena.stats().used_bytes(), 64);
}
