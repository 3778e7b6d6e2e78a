//! Allocations, bytes requested and bytes held per protobuf decode of the
//! WhatsApp samples, for prost 0.14, buffa (waproto 0.7) owned and views and
//! quarry (fresh and reused arena), counted by a counting global allocator.
//! "held" is what the decoded message keeps while alive: heap bytes still
//! live after the decode plus the size of the root value (prost and buffa
//! keep wide structs inline), or for quarry the arena's chunk.
//!
//! Run: `cargo run --release -p quarry-benches --bin proto_alloc`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use prost::Message as _;
use quarry::Arena;
use quarry_proto_tests::samples::{Root, Sample};
use quarry_proto_tests::{pb, wa};
use waproto::buffa::Message as _;
use waproto::buffa::view::MessageView as _;
use waproto::whatsapp as bw;

#[path = "../../benches/proto_common/mod.rs"]
mod proto_common;

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static REQUESTED: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to `System` unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        REQUESTED.fetch_add(layout.size(), Relaxed);
        LIVE.fetch_add(layout.size(), Relaxed);
        // SAFETY: the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        REQUESTED.fetch_add(new_size, Relaxed);
        LIVE.fetch_add(new_size, Relaxed);
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: the caller upholds `realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// (allocations, requested, held) of `f`, whose result lives until counted.
fn count<R>(f: impl FnOnce() -> R) -> (usize, usize, usize) {
    let (a, r, l) = (
        ALLOCS.load(Relaxed),
        REQUESTED.load(Relaxed),
        LIVE.load(Relaxed),
    );
    let out = f();
    let counts = (
        ALLOCS.load(Relaxed) - a,
        REQUESTED.load(Relaxed) - r,
        LIVE.load(Relaxed) - l + size_of::<R>(),
    );
    drop(out);
    counts
}

fn row(sample: &Sample, who: &str, (allocs, requested, held): (usize, usize, usize)) {
    println!(
        "| {} | {} | {} | {} | {} |",
        sample.name, who, allocs, requested, held
    );
}

fn main() {
    println!("| sample | decoder | allocations | bytes requested | bytes held |");
    println!("|---|---|---:|---:|---:|");
    for s in proto_common::samples() {
        let b = s.bytes.as_slice();
        match s.root {
            Root::SyncActionData => {
                row(
                    s,
                    "prost",
                    count(|| pb::whatsapp::SyncActionData::decode(b).unwrap()),
                );
                row(
                    s,
                    "buffa_owned",
                    count(|| bw::SyncActionData::decode_from_slice(b).unwrap()),
                );
                row(
                    s,
                    "buffa_view",
                    count(|| bw::SyncActionDataView::decode_view(b).unwrap()),
                );
            }
            Root::Message => {
                row(
                    s,
                    "prost",
                    count(|| pb::whatsapp::Message::decode(b).unwrap()),
                );
                row(
                    s,
                    "buffa_owned",
                    count(|| bw::Message::decode_from_slice(b).unwrap()),
                );
                row(
                    s,
                    "buffa_view",
                    count(|| bw::MessageView::decode_view(b).unwrap()),
                );
            }
            Root::HistorySync => {
                row(
                    s,
                    "prost",
                    count(|| pb::whatsapp::HistorySync::decode(b).unwrap()),
                );
                row(
                    s,
                    "buffa_owned",
                    count(|| bw::HistorySync::decode_from_slice(b).unwrap()),
                );
                row(
                    s,
                    "buffa_view",
                    count(|| bw::HistorySyncView::decode_view(b).unwrap()),
                );
            }
        }
        // quarry: the arena is what is held (the view itself is 16 bytes).
        let arena = Arena::new();
        let (allocs, requested, _) = count(|| proto_common::quarry(&arena, s));
        row(
            s,
            "quarry_fresh",
            (allocs, requested, arena.stats().allocated_bytes + 16),
        );
        let mut arena = arena;
        arena.reset();
        let (allocs, requested, _) = count(|| proto_common::quarry(&arena, s));
        row(
            s,
            "quarry_reused",
            (allocs, requested, arena.stats().allocated_bytes + 16),
        );
        let _ = wa::MessageView::TABLE;
    }
}
