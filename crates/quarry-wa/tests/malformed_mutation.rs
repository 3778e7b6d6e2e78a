//! Random mutations of every fixture (bit flips, byte overwrites with
//! tag-like values, insertions, deletions, truncations; deterministic
//! seeds): quarry never panics, every error is typed with an offset inside
//! the input, and no decode holds more arena than the documented bound.
//! Agreement with the peer on mutated inputs is tested in `peer.rs`; this
//! file runs quarry alone, so it affords more cases and multi-edit inputs.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};

use quarry_core::{Arena, DecodeError};
use quarry_wa::max_arena_bytes;

/// Decode `input` into `arena`; on a panic, fail with the input in hex.
fn decode_checked(arena: &Arena, input: &[u8], framed: bool) -> Result<usize, DecodeError> {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let node = if framed {
            quarry_wa::decode_frame(arena, input)
        } else {
            quarry_wa::decode(arena, input)
        };
        // Touch the whole tree, so a bad record would show here too.
        node.map(|n| n.to_string().len())
    }));
    match result {
        Ok(r) => r,
        Err(_) => panic!("decoder panicked on {input:02x?}"),
    }
}

fn check(input: &[u8], framed: bool) -> bool {
    let arena = Arena::new();
    let result = decode_checked(&arena, input, framed);
    let held = arena.stats().allocated_bytes;
    if let Err(err) = &result {
        assert!(err.offset() <= input.len(), "{err:?} for {input:02x?}");
    }
    if !framed {
        assert!(
            held <= max_arena_bytes(input.len()) + 4096,
            "{} input bytes made the arena hold {held}: {input:02x?}",
            input.len()
        );
    }
    result.is_ok()
}

#[test]
fn mutated_fixtures_never_panic() {
    let mut accepted = 0;
    let mut total = 0;
    for (i, fixture) in common::fixtures().iter().enumerate() {
        let cases = if fixture.name == "many_children" {
            400
        } else {
            8_000
        };
        let mut rng = common::Rng::new(0x0BAD_0000 + i as u64);
        for _ in 0..cases {
            let edits = 1 + rng.below(8);
            let mutated = common::mutate_n(&mut rng, fixture.node_bytes(), edits);
            accepted += usize::from(check(&mutated, false));
            total += 1;
        }
    }
    assert!(accepted > 200, "{accepted} of {total} mutations decoded");
}

#[test]
fn mutated_frames_never_panic() {
    // Plain frames (flags byte included) and compressed ones: mutations of
    // a zlib stream exercise the inflater's error paths.
    let mut rng = common::Rng::new(0xF4A3_0001);
    for fixture in common::fixtures()
        .iter()
        .filter(|f| f.name != "many_children")
    {
        for _ in 0..1_000 {
            let edits = 1 + rng.below(4);
            let mutated = common::mutate_n(&mut rng, &fixture.framed, edits);
            check(&mutated, true);
        }
    }
    let compressed = common::compressed_fanout_frame();
    let mut inflate_errors = 0;
    for _ in 0..3_000 {
        let edits = 1 + rng.below(3);
        let mutated = common::mutate_n(&mut rng, &compressed, edits);
        let arena = Arena::new();
        if let Err(DecodeError::Inflate { .. }) = decode_checked(&arena, &mutated, true) {
            inflate_errors += 1;
        }
    }
    assert!(
        inflate_errors > 1_000,
        "only {inflate_errors} inflate errors"
    );
}

#[test]
fn random_bytes_never_panic() {
    // Short inputs made of tag-like bytes reach every branch of the tag
    // table quickly.
    let mut rng = common::Rng::new(0x5EED_5EED);
    for _ in 0..20_000 {
        let len = rng.below(24);
        let input: Vec<u8> = (0..len)
            .map(|_| {
                if rng.below(3) == 0 {
                    rng.byte()
                } else {
                    common::INTERESTING[rng.below(common::INTERESTING.len())]
                }
            })
            .collect();
        // Most random inputs are rejected at once; start them as a node
        // half of the time so they get further.
        let input = if rng.below(2) == 0 {
            let mut with_header = vec![0xF8, rng.below(8) as u8];
            with_header.extend(input);
            with_header
        } else {
            input
        };
        check(&input, false);
    }
}

#[test]
fn reusing_one_arena_across_failures_is_sound() {
    // The server pattern: one arena, reset between messages, most of them
    // hostile. A good message after a thousand bad ones decodes to the same
    // text as in a fresh arena.
    let fixture = common::fixture("fanout");
    let want = {
        let arena = Arena::new();
        quarry_wa::decode(&arena, fixture.node_bytes())
            .unwrap()
            .to_string()
    };
    let mut arena = Arena::new();
    let mut rng = common::Rng::new(0xA4E4_A000);
    for round in 0..1_000 {
        let edits = 1 + rng.below(4);
        let mutated = common::mutate_n(&mut rng, fixture.node_bytes(), edits);
        let _ = decode_checked(&arena, &mutated, false);
        arena.reset();
        if round % 100 == 99 {
            let got = quarry_wa::decode(&arena, fixture.node_bytes())
                .unwrap()
                .to_string();
            assert_eq!(got, want);
            arena.reset();
        }
    }
}
