//! Every truncation of every fixture is an error: a typed `DecodeError`
//! whose offset lies within the input, never a panic, never an accepted
//! prefix, and never more arena than the input length allows.

mod common;

use quarry_core::{Arena, DecodeError};
use quarry_wa::max_arena_bytes;

/// The prefix lengths to try: every one, except in the middle of the 40 KB
/// `many_children` fixture. A prefix costs a decode of its own length, so
/// all 40,146 of them would take minutes in a debug build; there every
/// prefix below 8 KiB (where the 2,048-child count is checked against the
/// bytes left), every prefix in the last 128 bytes, and every 401st in
/// between are tried.
fn prefix_lengths(len: usize) -> Vec<usize> {
    if len <= 8192 {
        return (0..len).collect();
    }
    let mut out: Vec<usize> = (0..8192).collect();
    out.extend((8192..len - 128).step_by(401));
    out.extend(len - 128..len);
    out
}

/// Decode proper prefixes of `input` into one arena (reset between
/// prefixes, as a server would) and check each error.
fn every_prefix_fails(name: &str, input: &[u8]) {
    let mut arena = Arena::new();
    for len in prefix_lengths(input.len()) {
        let prefix = &input[..len];
        let result = quarry_wa::decode(&arena, prefix).map(|_| ());
        match result {
            Ok(()) => panic!("{name}: prefix of {len} bytes accepted"),
            Err(err) => {
                // A proper prefix of one whole node can only run out of
                // bytes: every count it announced is still owed.
                assert!(
                    matches!(err, DecodeError::UnexpectedEof { .. }),
                    "{name}: prefix {len}: {err:?}"
                );
                assert!(err.offset() <= len, "{name}: prefix {len}: {err:?}");
            }
        }
        arena.reset();
    }
    // The whole input decodes, and one byte more is trailing.
    assert!(quarry_wa::decode(&arena, input).is_ok(), "{name}");
    arena.reset();
    let mut longer = input.to_vec();
    longer.push(0);
    assert_eq!(
        quarry_wa::decode(&arena, &longer).map(|_| ()).unwrap_err(),
        DecodeError::TrailingBytes {
            offset: input.len(),
            count: 1
        },
        "{name}"
    );
}

#[test]
fn every_prefix_of_every_fixture_is_an_error() {
    for fixture in common::fixtures() {
        every_prefix_fails(fixture.name, fixture.node_bytes());
    }
}

#[test]
fn every_prefix_is_also_rejected_by_the_peer() {
    // The independent expectation: the peer's decoder rejects each prefix
    // too (so "a prefix is an error" is the format's rule, not ours).
    for fixture in common::fixtures() {
        let input = fixture.node_bytes();
        for len in prefix_lengths(input.len()) {
            assert!(
                wacore_binary::marshal::unmarshal_ref(&input[..len]).is_err(),
                "{}: peer accepts prefix {len}",
                fixture.name
            );
        }
    }
}

#[test]
fn every_prefix_of_every_frame_is_an_error() {
    for fixture in common::fixtures() {
        let mut arena = Arena::new();
        for len in prefix_lengths(fixture.framed.len()) {
            arena.reset();
            let err = quarry_wa::decode_frame(&arena, &fixture.framed[..len])
                .map(|_| ())
                .unwrap_err();
            // Plain frames count the flags byte.
            assert!(
                err.offset() <= len,
                "{}: frame prefix {len}: {err:?}",
                fixture.name
            );
            if len > 0 {
                assert!(matches!(err, DecodeError::UnexpectedEof { .. }), "{err:?}");
            }
        }
    }
    // Compressed: each prefix of the zlib stream is an error too.
    let frame = common::compressed_fanout_frame();
    let mut arena = Arena::new();
    for len in 0..frame.len() {
        arena.reset();
        let err = quarry_wa::decode_frame(&arena, &frame[..len])
            .map(|_| ())
            .unwrap_err();
        assert!(err.offset() <= len, "compressed prefix {len}: {err:?}");
    }
}

#[test]
fn truncations_stay_within_the_arena_bound() {
    // A fresh arena per prefix: what it holds after the error is what one
    // hostile message can cost.
    for fixture in common::fixtures() {
        let input = fixture.node_bytes();
        for len in prefix_lengths(input.len()) {
            let arena = Arena::new();
            let _ = quarry_wa::decode(&arena, &input[..len]);
            let held = arena.stats().allocated_bytes;
            assert!(
                held <= max_arena_bytes(len) + 4096,
                "{}: prefix {len} made the arena hold {held} bytes",
                fixture.name
            );
        }
    }
}
