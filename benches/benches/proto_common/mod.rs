//! The protobuf decoders compared, on the spec's WhatsApp-shaped samples
//! (built with prost's types and encoded by prost, so every decoder reads the
//! same bytes): prost 0.14, waproto 0.7's buffa types (owned and views), and
//! quarry's generated views into a fresh or a reused arena. Each function
//! decodes once, drops the result and returns a number derived from it so
//! the work cannot be optimised away.

#![allow(dead_code)]

use std::hint::black_box;
use std::sync::OnceLock;

use buffa::Message as _;
use buffa::view::MessageView as _;
use prost::Message as _;
use quarry::Arena;
use quarry_proto_tests::samples::{self, Root, Sample};
use quarry_proto_tests::{pb, wa};
use waproto::buffa;
use waproto::whatsapp as bw;

/// The samples, built once.
pub fn samples() -> &'static [Sample] {
    static S: OnceLock<Vec<Sample>> = OnceLock::new();
    S.get_or_init(samples::all)
}

/// The sample named `name`.
pub fn sample(name: &str) -> &'static Sample {
    samples()
        .iter()
        .find(|s| s.name == name)
        .expect("known sample")
}

/// prost 0.14 into its owned types.
pub fn prost(s: &Sample) -> usize {
    let b = s.bytes.as_slice();
    match s.root {
        Root::SyncActionData => {
            black_box(pb::whatsapp::SyncActionData::decode(b).unwrap()).version() as usize
        }
        Root::Message => black_box(pb::whatsapp::Message::decode(b).unwrap())
            .conversation()
            .len(),
        Root::HistorySync => black_box(pb::whatsapp::HistorySync::decode(b).unwrap())
            .conversations
            .len(),
    }
}

/// buffa (waproto 0.7) into its owned types.
pub fn buffa_owned(s: &Sample) -> usize {
    let b = s.bytes.as_slice();
    match s.root {
        Root::SyncActionData => black_box(bw::SyncActionData::decode_from_slice(b).unwrap())
            .version
            .unwrap_or(0) as usize,
        Root::Message => black_box(bw::Message::decode_from_slice(b).unwrap())
            .conversation
            .as_ref()
            .map_or(0, |c| c.len()),
        Root::HistorySync => black_box(bw::HistorySync::decode_from_slice(b).unwrap())
            .conversations
            .len(),
    }
}

/// buffa (waproto 0.7) into its borrowed views.
pub fn buffa_view(s: &Sample) -> usize {
    let b = s.bytes.as_slice();
    match s.root {
        Root::SyncActionData => black_box(bw::SyncActionDataView::decode_view(b).unwrap())
            .version
            .unwrap_or(0) as usize,
        Root::Message => black_box(bw::MessageView::decode_view(b).unwrap())
            .conversation
            .map_or(0, |c| c.len()),
        Root::HistorySync => black_box(bw::HistorySyncView::decode_view(b).unwrap())
            .conversations
            .len(),
    }
}

/// quarry's generated views into `arena`.
pub fn quarry(arena: &Arena, s: &Sample) -> usize {
    let b = s.bytes.as_slice();
    match s.root {
        Root::SyncActionData => {
            black_box(wa::SyncActionDataView::decode(arena, b).unwrap()).version() as usize
        }
        Root::Message => black_box(wa::MessageView::decode(arena, b).unwrap())
            .conversation()
            .len(),
        Root::HistorySync => black_box(wa::HistorySyncView::decode(arena, b).unwrap())
            .conversations()
            .len(),
    }
}

/// quarry into a fresh arena sized by the decoder's estimate
/// (`quarry_proto::arena_for`, one heap allocation), dropped after.
pub fn quarry_fresh(s: &Sample) -> usize {
    let arena = quarry_proto::arena_for(&s.bytes);
    quarry(&arena, s)
}

/// quarry into a reused arena, reset after.
pub fn quarry_reused(arena: &mut Arena, s: &Sample) -> usize {
    let n = quarry(arena, s);
    arena.reset();
    n
}
