//! Protobuf: the decoders compared on the WhatsApp samples (shared with the
//! `proto_criterion` and `proto_iai` benches, so every tool measures the
//! very same functions) and their allocation counts.

#[path = "../benches/proto_common/mod.rs"]
mod common;

use prost::Message as _;
use quarry_proto_tests::samples::Root;
use quarry_proto_tests::{pb, wa};
use waproto::buffa::Message as _;
use waproto::buffa::view::MessageView as _;
use waproto::whatsapp as bw;

use crate::alloc_count::{AllocRow, measure};

pub use common::{
    buffa_owned, buffa_view, prost, quarry, quarry_fresh, quarry_reused, sample, samples,
};

/// The decoders, as the benches name them, in report order.
pub const DECODERS: [&str; 5] = [
    "prost",
    "buffa_owned",
    "buffa_view",
    "quarry_fresh",
    "quarry_reused",
];

/// The peers among [`DECODERS`].
pub const PEERS: [&str; 3] = ["prost", "buffa_owned", "buffa_view"];

/// The id `proto_iai` gives `sample` (its `#[bench::…]` name).
pub fn iai_id(sample: &str) -> &str {
    match sample {
        "history_sync_50x20" => "history_sync",
        other => other,
    }
}

/// Allocations, bytes requested and bytes held per decode of every sample
/// by every decoder, each after one warm-up decode. "Held" is what the
/// decoded message keeps while alive: for prost and buffa the heap bytes
/// still live after the decode plus the size of the root value (they keep
/// wide structs inline); for quarry the arena's chunk plus the root view.
///
/// # Panics
/// When [`CountingAlloc`](crate::alloc_count::CountingAlloc) is not the
/// global allocator.
pub fn measure_alloc() -> Vec<AllocRow> {
    let mut rows = Vec::new();
    for s in samples() {
        let b = s.bytes.as_slice();
        let (name, root) = (s.name, s.root);
        prost(s);
        buffa_owned(s);
        buffa_view(s);
        let (p, o, v) = match root {
            Root::SyncActionData => (
                held(|| pb::whatsapp::SyncActionData::decode(b)),
                held(|| bw::SyncActionData::decode_from_slice(b)),
                held(|| bw::SyncActionDataView::decode_view(b)),
            ),
            Root::Message => (
                held(|| pb::whatsapp::Message::decode(b)),
                held(|| bw::Message::decode_from_slice(b)),
                held(|| bw::MessageView::decode_view(b)),
            ),
            Root::HistorySync => (
                held(|| pb::whatsapp::HistorySync::decode(b)),
                held(|| bw::HistorySync::decode_from_slice(b)),
                held(|| bw::HistorySyncView::decode_view(b)),
            ),
        };
        for (op, (allocations, requested, held)) in
            [("prost", p), ("buffa_owned", o), ("buffa_view", v)]
        {
            rows.push(AllocRow {
                case: name,
                op,
                allocations,
                requested,
                held,
                arena_used: None,
            });
        }

        quarry_fresh(s);
        let view = view_size(root);
        let (counts, arena) = measure(|| {
            let arena = quarry_proto::arena_for(&s.bytes);
            quarry(&arena, s);
            arena
        });
        let stats = arena.stats();
        rows.push(AllocRow {
            case: name,
            op: "quarry_fresh",
            allocations: counts.allocations,
            requested: counts.requested,
            held: stats.allocated_bytes + view,
            arena_used: Some(stats.allocated_bytes - stats.free_in_current_chunk),
        });
        let mut arena = arena;
        arena.reset();
        let free_before = arena.stats().free_in_current_chunk;
        let (counts, _) = measure(|| quarry(&arena, s));
        let stats = arena.stats();
        rows.push(AllocRow {
            case: name,
            op: "quarry_reused",
            allocations: counts.allocations,
            requested: counts.requested,
            held: stats.allocated_bytes + view,
            arena_used: Some(free_before - stats.free_in_current_chunk),
        });
    }
    rows
}

/// (allocations, requested, held) of a peer's decode: live heap bytes of
/// the result plus the result's own size.
fn held<R, E: std::fmt::Debug>(op: impl FnOnce() -> Result<R, E>) -> (usize, usize, usize) {
    let (counts, result) = measure(op);
    let value = result.expect("the peer decodes prost's encoding");
    let out = (
        counts.allocations,
        counts.requested,
        counts.live + size_of::<R>(),
    );
    drop(value);
    out
}

fn view_size(root: Root) -> usize {
    match root {
        Root::SyncActionData => size_of::<wa::SyncActionDataView<'static>>(),
        Root::Message => size_of::<wa::MessageView<'static>>(),
        Root::HistorySync => size_of::<wa::HistorySyncView<'static>>(),
    }
}
