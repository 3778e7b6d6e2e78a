//! The limits through frames, exactly at their boundaries (`limits.rs`
//! covers raw node bytes): depth and items inside a compressed frame (error
//! offsets in the inflated bytes), the arena budget of a plain and of a
//! compressed frame (inflater state and output buffer included), and the
//! arena bound of a compressed frame on generated trees:
//!
//! `size_of(DecompressorOxide) + B + 31 x I + 256 + 16`, where `I` is the
//! inflated size and `B = min(max_inflated_bytes, max(8 x C + 1024, 2 x I))`
//! the inflater's output buffer for a `C`-byte compressed body (its first
//! guess, doubled until the output fits). docs/SECURITY.md.

mod common;

use miniz_oxide::inflate::core::DecompressorOxide;
use proptest::prelude::*;
use quarry_core::{Arena, DecodeError};
use quarry_wa::{Decoder, OwnedNode, max_arena_bytes};

fn frame(decoder: &Decoder, frame: &[u8]) -> Result<(), DecodeError> {
    let arena = Arena::new();
    decoder.decode_frame(&arena, frame).map(|_| ())
}

#[test]
fn depth_inside_a_compressed_frame() {
    for max_depth in [1u32, 7, 128] {
        let d = common::decoder_with(|o| o.max_depth = max_depth);
        let deepest = max_depth as usize;
        assert_eq!(
            frame(
                &d,
                &common::compressed_frame(&common::nested_messages(deepest))
            ),
            Ok(())
        );
        // Offsets of a compressed frame count in its inflated bytes: the
        // node at depth max_depth starts at 5 * max_depth there.
        assert_eq!(
            frame(
                &d,
                &common::compressed_frame(&common::nested_messages(deepest + 1))
            ),
            Err(DecodeError::DepthLimit {
                offset: 5 * deepest,
                limit: max_depth
            })
        );
        // In a plain frame, one byte further (the flags byte).
        let mut plain = vec![0x00];
        plain.extend(common::nested_messages(deepest + 1));
        assert_eq!(
            frame(&d, &plain),
            Err(DecodeError::DepthLimit {
                offset: 5 * deepest + 1,
                limit: max_depth
            })
        );
    }
}

#[test]
fn items_inside_a_compressed_frame() {
    // <message id=enc type=enc to=enc><enc id=enc/><enc id=enc/></message>:
    // 3 nodes + 5 attributes = 8 items; the eighth is child 2's attribute
    // (child 2 starts at 16).
    let nodes = [
        0xF8, 0x08, 19, 8, 29, 4, 29, 17, 29, 0xF8, 0x02, 0xF8, 0x03, 29, 8, 29, 0xF8, 0x03, 29, 8,
        29,
    ];
    let compressed = common::compressed_frame(&nodes);
    assert_eq!(
        frame(&common::decoder_with(|o| o.max_items = 8), &compressed),
        Ok(())
    );
    let err = frame(&common::decoder_with(|o| o.max_items = 7), &compressed).unwrap_err();
    assert!(
        matches!(err, DecodeError::ItemLimit { limit: 7, .. }),
        "{err:?}"
    );
    assert!((16..21).contains(&err.offset()), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("item limit 7 exceeded at byte {}", err.offset())
    );
}

/// The smallest `max_arena_bytes` under which `input` decodes as a frame.
fn least_frame_budget(input: &[u8]) -> usize {
    let ok = |limit| frame(&common::decoder_with(|o| o.max_arena_bytes = limit), input).is_ok();
    let (mut lo, mut hi) = (0, 64 << 20);
    assert!(ok(hi));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) { hi = mid } else { lo = mid + 1 }
    }
    lo
}

#[test]
fn frame_arena_budget_at_the_limit_decodes_and_one_less_fails() {
    let state = std::mem::size_of::<DecompressorOxide>();
    for fixture in common::fixtures() {
        let nodes = fixture.node_bytes();
        let compressed = common::compressed_frame(nodes);
        let plain = [&[0u8][..], nodes].concat();
        for (kind, input) in [("plain", plain), ("compressed", compressed)] {
            let least = least_frame_budget(&input);
            let name = format!("{} {kind}", fixture.name);
            assert_eq!(
                frame(&common::decoder_with(|o| o.max_arena_bytes = least), &input),
                Ok(()),
                "{name}"
            );
            let err = frame(
                &common::decoder_with(|o| o.max_arena_bytes = least - 1),
                &input,
            )
            .unwrap_err();
            assert!(
                matches!(err, DecodeError::ArenaLimit { limit, .. } if limit == least - 1),
                "{name}: {err:?}"
            );
            if kind == "compressed" {
                // The inflater's state and its first output buffer (8 bytes
                // per compressed byte + 1024, at most the limit) are charged
                // before a node is read.
                let body = input.len() - 1;
                assert!(least >= state + 8 * body + 1024, "{name}: {least}");
                assert!(
                    least <= frame_bound(body, nodes.len(), 16 << 20),
                    "{name}: {least}"
                );
            } else {
                assert!(least <= max_arena_bytes(nodes.len()), "{name}: {least}");
            }
        }
    }
}

#[test]
fn a_budget_below_the_inflater_state_fails_before_inflating() {
    let compressed = common::compressed_fanout_frame();
    let err = frame(
        &common::decoder_with(|o| o.max_arena_bytes = 1000),
        &compressed,
    )
    .unwrap_err();
    // Charged at the first byte of the compressed body.
    assert_eq!(
        err,
        DecodeError::ArenaLimit {
            offset: 1,
            limit: 1000
        }
    );
}

/// The documented bound for a compressed frame whose `body`-byte zlib
/// stream inflates to `inflated` bytes.
fn frame_bound(body: usize, inflated: usize, limit: usize) -> usize {
    let buffer = (8 * body + 1024).max(2 * inflated).min(limit);
    std::mem::size_of::<DecompressorOxide>() + buffer + max_arena_bytes(inflated) + 16
}

/// Arena bytes a frame decode writes: the drop in free space of one chunk
/// big enough for the decoder's reservation and the bound.
fn frame_bytes_written(input: &[u8], inflated: usize) -> usize {
    let body = input.len() - 1;
    let guess = 8 * body + 1024;
    let capacity = frame_bound(body, inflated, 16 << 20)
        + std::mem::size_of::<DecompressorOxide>()
        + guess
        + max_arena_bytes(guess);
    let arena = Arena::with_capacity(capacity);
    let before = arena.stats();
    quarry_wa::decode_frame(&arena, input).unwrap();
    let after = arena.stats();
    assert_eq!(
        after.allocated_bytes, before.allocated_bytes,
        "no second chunk"
    );
    before.free_in_current_chunk - after.free_in_current_chunk
}

#[test]
fn frames_inflating_past_the_first_guess_stay_within_the_bound() {
    // A BINARY_32 payload of zeros: tiny compressed, large inflated, so
    // the output buffer doubles several times.
    for inflated in [2_000usize, 50_000, 1 << 20] {
        let payload = inflated - 8;
        let mut prefix = vec![0xF8, 0x02, 19, 0xFE];
        prefix.extend_from_slice(&(payload as u32).to_be_bytes());
        let mut input = vec![0x02];
        input.extend(common::zlib_prefix_then_zeros(&prefix, payload));
        let used = frame_bytes_written(&input, inflated);
        let bound = frame_bound(input.len() - 1, inflated, 16 << 20);
        assert!(used <= bound, "{inflated}: {used} > {bound}");
    }
}

fn tree() -> impl Strategy<Value = OwnedNode> {
    let leaf = (
        "[a-z]{1,8}",
        prop::collection::vec(("[a-z]{1,6}", "[a-z0-9@.]{0,12}"), 0..4),
        prop::option::of(prop::collection::vec(any::<u8>(), 0..64)),
    )
        .prop_map(|(tag, attrs, bytes)| {
            let mut n = OwnedNode::new(tag);
            for (k, v) in attrs {
                n = n.attr(k, v);
            }
            match bytes {
                Some(b) => n.bytes(b),
                None => n,
            }
        });
    leaf.prop_recursive(4, 64, 8, |inner| {
        ("[a-z]{1,8}", prop::collection::vec(inner, 0..8))
            .prop_map(|(tag, kids)| OwnedNode::new(tag).children(kids))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn compressed_frames_stay_within_the_documented_bound(node in tree()) {
        let nodes = quarry_wa::encode(&node).unwrap();
        let input = common::compressed_frame(&nodes);
        let used = frame_bytes_written(&input, nodes.len());
        let bound = frame_bound(input.len() - 1, nodes.len(), 16 << 20);
        prop_assert!(used <= bound, "{} > {}", used, bound);
        // The node part alone is within the node bound.
        prop_assert!(used - std::mem::size_of::<DecompressorOxide>() <= bound);
    }
}
