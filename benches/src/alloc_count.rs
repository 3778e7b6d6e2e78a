//! A counting global allocator and the allocation report built on it.
//!
//! A binary that wants the report installs the allocator itself:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: quarry_benches::alloc_count::CountingAlloc = quarry_benches::alloc_count::CountingAlloc;
//! ```
//!
//! (Not in this library, so the criterion and iai benches, which link it,
//! keep the system allocator untouched.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use crate::wa;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static REQUESTED: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting allocations (a `realloc` counts as one),
/// bytes requested, and bytes live.
pub struct CountingAlloc;

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees carry over; the counters are plain
// atomics and never allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        REQUESTED.fetch_add(layout.size(), Relaxed);
        LIVE.fetch_add(layout.size(), Relaxed);
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        REQUESTED.fetch_add(layout.size(), Relaxed);
        LIVE.fetch_add(layout.size(), Relaxed);
        // SAFETY: forwarded unchanged; the caller upholds `alloc_zeroed`'s contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: forwarded unchanged; `ptr` came from this allocator, i.e. from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        REQUESTED.fetch_add(new_size, Relaxed);
        LIVE.fetch_add(new_size, Relaxed);
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: forwarded unchanged; `ptr` came from `System` with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// The counters at one moment.
#[derive(Clone, Copy, Debug)]
struct Snapshot {
    allocations: usize,
    requested: usize,
    live: usize,
}

fn snapshot() -> Snapshot {
    Snapshot {
        allocations: ALLOCATIONS.load(Relaxed),
        requested: REQUESTED.load(Relaxed),
        live: LIVE.load(Relaxed),
    }
}

/// Whether [`CountingAlloc`] is this process's global allocator.
pub fn is_installed() -> bool {
    let before = snapshot().allocations;
    let probe = std::hint::black_box(Box::new(1u64));
    let after = snapshot().allocations;
    drop(probe);
    after > before
}

/// What one decode of one case cost one decoder.
#[derive(Clone, Debug)]
pub struct AllocRow {
    /// Case name.
    pub case: &'static str,
    /// `peer`, `quarry_fresh` or `quarry_reused`.
    pub decoder: &'static str,
    /// Heap allocations (including reallocations) during the decode.
    pub allocations: usize,
    /// Bytes asked of the heap during the decode.
    pub requested: usize,
    /// Heap bytes held while the result is alive: for the peer, live bytes
    /// after the decode minus before; for quarry, the arena's chunks.
    pub held: usize,
    /// For quarry, the arena bytes the decode wrote (records, expanded
    /// strings); `None` for the peer, whose records are its allocations.
    pub arena_used: Option<usize>,
}

/// Measure every WhatsApp case with every decoder, each after one warm-up
/// decode of the same input (so lazily built tables are not charged).
///
/// # Panics
/// When [`CountingAlloc`] is not the global allocator: the report would be
/// all zeros.
pub fn measure_wa() -> Vec<AllocRow> {
    assert!(
        is_installed(),
        "install quarry_benches::alloc_count::CountingAlloc as #[global_allocator]"
    );
    let mut rows = Vec::new();
    for case in wa::cases() {
        let bytes = case.bytes.as_slice();

        wa::peer_decode(bytes);
        let before = snapshot();
        let node = wacore_binary::marshal::unmarshal_ref(bytes).expect("peer decodes its bytes");
        let after = snapshot();
        drop(std::hint::black_box(node));
        rows.push(AllocRow {
            case: case.name,
            decoder: "peer",
            allocations: after.allocations - before.allocations,
            requested: after.requested - before.requested,
            held: after.live - before.live,
            arena_used: None,
        });

        wa::quarry_decode_fresh(bytes);
        let before = snapshot();
        let arena = quarry::Arena::new();
        let node = quarry_wa::decode(&arena, bytes).expect("quarry decodes the peer's bytes");
        let after = snapshot();
        std::hint::black_box(node);
        let stats = arena.stats();
        rows.push(AllocRow {
            case: case.name,
            decoder: "quarry_fresh",
            allocations: after.allocations - before.allocations,
            requested: after.requested - before.requested,
            held: stats.allocated_bytes,
            arena_used: Some(stats.allocated_bytes - stats.free_in_current_chunk),
        });
        drop(arena);

        let mut arena = wa::warmed_arena(bytes);
        let free_before = arena.stats().free_in_current_chunk;
        let before = snapshot();
        arena.reset();
        let node = quarry_wa::decode(&arena, bytes).expect("quarry decodes the peer's bytes");
        let after = snapshot();
        std::hint::black_box(node);
        let stats = arena.stats();
        rows.push(AllocRow {
            case: case.name,
            decoder: "quarry_reused",
            allocations: after.allocations - before.allocations,
            requested: after.requested - before.requested,
            held: stats.allocated_bytes,
            arena_used: Some(free_before - stats.free_in_current_chunk),
        });
    }
    rows
}

/// The rows as JSON lines, one object per row.
pub fn to_json_lines(rows: &[AllocRow]) -> String {
    rows.iter()
        .map(|r| {
            let mut obj = serde_json::json!({
                "case": r.case,
                "decoder": r.decoder,
                "allocations": r.allocations,
                "requested": r.requested,
                "held": r.held,
            });
            if let Some(used) = r.arena_used {
                obj["arena_used"] = used.into();
            }
            obj.to_string() + "\n"
        })
        .collect()
}
