//! The allocation contract, counted exactly by a counting global allocator
//! (its own test binary): decoding each of the spec's samples into a fresh
//! arena makes one heap allocation (the arena's chunk, sized by the
//! decoder's estimate), into a reset arena none.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use quarry::Arena;
use quarry_proto::{Decoder, MessageRef, Reserve};
use quarry_proto_tests::samples::{self, Root};
use quarry_proto_tests::wa;

struct Counting;

// Counting is per thread: the test harness runs tests on several threads at
// once, and a process-wide counter would charge one test with another's
// allocations (it did: both tests failed when run in parallel).
thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn record() {
    // `try_with`: the allocator also runs while thread-locals are torn down.
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

// SAFETY: every method forwards to `System` unchanged; the only addition is
// bumping a thread-local counter, which never allocates (const thread-locals
// of `Cell<_>` have no lazy initialisation and no destructor).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn table(root: Root) -> MessageRef {
    match root {
        Root::SyncActionData => wa::SyncActionDataView::TABLE,
        Root::Message => wa::MessageView::TABLE,
        Root::HistorySync => wa::HistorySyncView::TABLE,
    }
}

/// Heap allocations (alloc, alloc_zeroed, realloc) this thread makes in `f`.
fn count(f: impl FnOnce()) -> usize {
    COUNT.with(|c| c.set(0));
    COUNTING.with(|on| on.set(true));
    f();
    COUNTING.with(|on| on.set(false));
    COUNT.with(Cell::get)
}

#[test]
fn the_counter_is_live() {
    assert_eq!(
        count(|| {
            std::hint::black_box(vec![1u8; 100]);
        }),
        1
    );
    assert_eq!(
        count(|| {
            let mut v: Vec<u64> = Vec::with_capacity(1);
            v.extend([1, 2, 3]);
            std::hint::black_box(v);
        }),
        2
    );
}

fn check(decoder: Decoder) {
    for s in samples::all() {
        let mut arena = Arena::new();
        let fresh = count(|| {
            decoder.decode(table(s.root), &arena, &s.bytes).unwrap();
        });
        assert_eq!(fresh, 1, "{} fresh ({:?})", s.name, decoder.reserve);
        arena.reset();
        let reused = count(|| {
            decoder.decode(table(s.root), &arena, &s.bytes).unwrap();
        });
        assert_eq!(reused, 0, "{} reused ({:?})", s.name, decoder.reserve);
        let stats = arena.stats();
        println!(
            "{:>20} {:>7} B input: arena holds {:>8} B, uses {:>8} B ({:?})",
            s.name,
            s.bytes.len(),
            stats.allocated_bytes,
            stats.allocated_bytes - stats.free_in_current_chunk,
            decoder.reserve
        );
    }
}

#[test]
fn one_allocation_fresh_none_reused() {
    check(Decoder::new());
    check(Decoder {
        reserve: Reserve::WorstCase,
        ..Decoder::new()
    });
}

#[test]
fn generated_decode_costs_the_same() {
    let bytes = samples::text_reply_quoted();
    let bytes = prost::Message::encode_to_vec(&bytes);
    let mut arena = Arena::new();
    assert_eq!(
        count(|| {
            wa::MessageView::decode(&arena, &bytes).unwrap();
        }),
        1
    );
    arena.reset();
    assert_eq!(
        count(|| {
            let m = wa::MessageView::decode(&arena, &bytes).unwrap();
            // Reading allocates nothing either.
            let ctx = m.extended_text_message().unwrap().context_info().unwrap();
            assert_eq!(
                ctx.quoted_message().unwrap().conversation(),
                "Dinner at eight? Booked the usual."
            );
        }),
        0
    );
}
