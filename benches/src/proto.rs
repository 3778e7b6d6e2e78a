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
    Encodable, buffa_build_encode, buffa_encode, buffa_owned, buffa_view, build_arena,
    decode_inputs, encodable, prost, prost_build_encode, prost_encode, quarry, quarry_build_encode,
    quarry_encode, quarry_fresh, quarry_reused, sample, samples, variants,
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

/// The encoders, as the benches name them (`proto_iai` adds `_encode`), in
/// report order; the last is quarry's, the others are peers.
pub const ENCODERS: [&str; 3] = ["prost", "buffa_owned", "quarry"];

/// One encode of `e` by `encoder` (a name of [`ENCODERS`]), plus drop.
///
/// # Panics
/// On a name not in [`ENCODERS`].
pub fn encode(encoder: &str, e: &Encodable) -> usize {
    match encoder {
        "prost" => prost_encode(e),
        "buffa_owned" => buffa_encode(e),
        "quarry" => quarry_encode(e),
        other => panic!("no encoder {other}"),
    }
}

/// The id `proto_iai` gives `encoder`'s encode benches.
pub fn iai_encode_id(encoder: &str) -> &'static str {
    match encoder {
        "prost" => "prost_encode",
        "buffa_owned" => "buffa_encode",
        _ => "quarry_encode",
    }
}

/// Allocations and bytes requested by one encode of every sample by every
/// encoder (after one warm-up encode); `op` is the encoder's name in
/// [`ENCODERS`] and `held` is 0 (the bytes are dropped).
///
/// # Panics
/// When [`CountingAlloc`](crate::alloc_count::CountingAlloc) is not the
/// global allocator.
pub fn measure_encode_alloc() -> Vec<AllocRow> {
    let mut rows = Vec::new();
    for s in samples() {
        let e = encodable(s);
        for op in ENCODERS {
            encode(op, e);
            let (counts, _) = measure(|| encode(op, e));
            rows.push(AllocRow {
                case: s.name,
                op,
                allocations: counts.allocations,
                requested: counts.requested,
                held: 0,
                arena_used: None,
            });
        }
    }
    rows
}

/// The builders of the build + encode benches, as they name them
/// (`proto_iai` adds `_build_encode`), in report order; the last is
/// quarry's, the others are peers.
pub const BUILDERS: [&str; 3] = ["prost", "buffa_owned", "quarry"];

/// One build + encode of sample `name` by `builder` (a name of
/// [`BUILDERS`]), plus drop; quarry's into `arena`, reset after.
///
/// # Panics
/// On a name not in [`BUILDERS`].
pub fn build_encode(builder: &str, arena: &mut quarry_core::Arena, name: &str) -> usize {
    match builder {
        "prost" => prost_build_encode(name),
        "buffa_owned" => buffa_build_encode(name),
        "quarry" => quarry_build_encode(arena, name),
        other => panic!("no builder {other}"),
    }
}

/// The id `proto_iai` gives `builder`'s build + encode benches.
pub fn iai_build_id(builder: &str) -> &'static str {
    match builder {
        "prost" => "prost_build_encode",
        "buffa_owned" => "buffa_build_encode",
        _ => "quarry_build_encode",
    }
}

/// Allocations and bytes requested by one build + encode of every sample
/// by every builder (after one warm-up build, so quarry's arena is
/// reused); `op` is the builder's name in [`BUILDERS`] and `held` is 0.
///
/// # Panics
/// When [`CountingAlloc`](crate::alloc_count::CountingAlloc) is not the
/// global allocator.
pub fn measure_build_alloc() -> Vec<AllocRow> {
    let mut rows = Vec::new();
    for s in samples() {
        for op in BUILDERS {
            let mut arena = build_arena(s.name);
            build_encode(op, &mut arena, s.name);
            let (counts, _) = measure(|| build_encode(op, &mut arena, s.name));
            rows.push(AllocRow {
                case: s.name,
                op,
                allocations: counts.allocations,
                requested: counts.requested,
                held: 0,
                arena_used: None,
            });
        }
    }
    rows
}

/// The id `proto_iai` gives `sample` or a variant of it (its
/// `#[bench::…]` name): the name, with `history_sync_50x20` shortened to
/// `history_sync`.
pub fn iai_id(sample: &str) -> String {
    match sample.strip_prefix("history_sync_50x20") {
        Some(rest) => format!("history_sync{rest}"),
        None => sample.to_owned(),
    }
}

/// Allocations, bytes requested and bytes held per decode of every sample
/// by every decoder, each after one warm-up decode. "Held" is what the
/// decoded message keeps while alive: for prost and buffa the heap bytes
/// still live after the decode plus the size of the root value (they keep
/// wide structs inline); for quarry the arena's chunk plus the root view,
/// and for its owned record (`quarry_owned`) the heap bytes it keeps beyond
/// its input (its arena, boxed) plus its own size.
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

        // An owned record (`OwnedRecord::decode`, its own arena): what it
        // holds beyond its input, which it shares (`Bytes`, made shared
        // before the count).
        let table = match root {
            Root::SyncActionData => wa::SyncActionDataView::TABLE,
            Root::Message => wa::MessageView::TABLE,
            Root::HistorySync => wa::HistorySyncView::TABLE,
        };
        let input = quarry_core::bytes::Bytes::from(s.bytes.clone());
        drop(input.clone());
        drop(quarry_proto::OwnedRecord::decode(table, input.clone()));
        let (counts, owned) = measure(|| {
            quarry_proto::OwnedRecord::decode(table, input.clone()).expect("quarry decodes")
        });
        rows.push(AllocRow {
            case: name,
            op: "quarry_owned",
            allocations: counts.allocations,
            requested: counts.requested,
            held: counts.live + size_of_val(&owned),
            arena_used: Some(owned.arena().stats().used_bytes()),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The report reads each variant's instructions under the id
    /// [`iai_id`] gives it, so `proto_iai` must list every variant under
    /// that id, and no two inputs may share one.
    #[test]
    fn proto_iai_lists_every_variant_under_its_id() {
        let bench = include_str!("../benches/proto_iai.rs");
        let mut ids = std::collections::BTreeSet::new();
        for s in decode_inputs() {
            let id = iai_id(s.name);
            let line = format!("#[bench::{id}(args = (\"{}\"), setup = $setup)]", s.name);
            assert!(bench.contains(&line), "proto_iai lacks {line}");
            assert!(ids.insert(id), "two inputs share the id of {}", s.name);
        }
        assert_eq!(
            iai_id("history_sync_50x20_oneof_twice"),
            "history_sync_oneof_twice"
        );
    }

    /// The encode benches compare like with like only if every encoder
    /// writes the same bytes: the samples are prost's encoding, which is
    /// canonical, so each encoder must give back exactly those bytes.
    #[test]
    fn every_encoder_writes_the_sample_bytes() {
        for s in samples() {
            let e = encodable(s);
            let want = s.bytes.as_slice();
            let prost = match s.root {
                Root::SyncActionData => pb::whatsapp::SyncActionData::decode(want)
                    .unwrap()
                    .encode_to_vec(),
                Root::Message => pb::whatsapp::Message::decode(want).unwrap().encode_to_vec(),
                Root::HistorySync => pb::whatsapp::HistorySync::decode(want)
                    .unwrap()
                    .encode_to_vec(),
            };
            let buffa = match s.root {
                Root::SyncActionData => bw::SyncActionData::decode_from_slice(want)
                    .unwrap()
                    .encode_to_vec(),
                Root::Message => bw::Message::decode_from_slice(want)
                    .unwrap()
                    .encode_to_vec(),
                Root::HistorySync => bw::HistorySync::decode_from_slice(want)
                    .unwrap()
                    .encode_to_vec(),
            };
            let arena = quarry_core::Arena::new();
            let quarry = match s.root {
                Root::SyncActionData => wa::SyncActionDataView::decode(&arena, want)
                    .unwrap()
                    .encode(),
                Root::Message => wa::MessageView::decode(&arena, want).unwrap().encode(),
                Root::HistorySync => wa::HistorySyncView::decode(&arena, want).unwrap().encode(),
            }
            .unwrap();
            assert_eq!(prost, want, "{}: prost", s.name);
            assert_eq!(buffa, want, "{}: buffa", s.name);
            assert_eq!(quarry, want, "{}: quarry", s.name);
            for op in ENCODERS {
                assert_eq!(encode(op, e), want.len(), "{}: {op}", s.name);
            }
        }
    }

    /// The build benches compare like with like only if every builder
    /// builds the same values: each must write exactly the sample's bytes.
    #[test]
    fn every_builder_writes_the_sample_bytes() {
        use quarry_proto_tests::sends;
        let src = common::send_source();
        for s in samples() {
            let want = s.bytes.as_slice();
            assert_eq!(sends::prost_encode(s.name, src), want, "{}: prost", s.name);
            assert_eq!(common::buffa_build_bytes(s.name), want, "{}: buffa", s.name);
            let arena = quarry_core::Arena::new();
            assert_eq!(
                sends::quarry_encode(s.name, &arena, src),
                want,
                "{}: quarry",
                s.name
            );
            let mut arena = build_arena(s.name);
            for op in BUILDERS {
                assert_eq!(
                    build_encode(op, &mut arena, s.name),
                    want.len(),
                    "{}: {op}",
                    s.name
                );
            }
        }
    }
}
