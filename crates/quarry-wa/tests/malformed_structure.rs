//! Structurally malformed input, written by hand: lying sizes, bad tags in
//! every string slot, bad and nested JIDs, bombs. quarry alone: every case
//! is a typed error at a hand-computed byte offset, fails fast, reserves no
//! memory in proportion to a lie, and never recurses on the native stack.

mod common;

use quarry_core::{Arena, DecodeError, DecodeOptions, InvalidUtf8};
use quarry_wa::{Decoder, max_arena_bytes};

fn decode_err(input: &[u8]) -> DecodeError {
    let arena = Arena::new();
    match quarry_wa::decode(&arena, input) {
        Ok(node) => panic!("accepted {input:02x?} as {node}"),
        Err(e) => e,
    }
}

/// Arena bytes a decode of `input` into a fresh arena may hold: the
/// documented bound, plus bumpalo rounding its one chunk up to whole 4 KiB
/// pages.
fn arena_bound(input_len: usize) -> usize {
    max_arena_bytes(input_len) + 4096
}

/// Decode into a fresh arena; the error, and what the arena holds after.
fn decode_err_with_stats(input: &[u8]) -> (DecodeError, usize) {
    let arena = Arena::new();
    let err = quarry_wa::decode(&arena, input).map(|_| ()).unwrap_err();
    (err, arena.stats().allocated_bytes)
}

/// A test of an error's variant and offset.
type Matcher = Box<dyn Fn(&DecodeError) -> bool>;

fn eof(offset: usize) -> DecodeError {
    DecodeError::UnexpectedEof { offset }
}

fn byte(offset: usize, byte: u8) -> impl Fn(&DecodeError) -> bool {
    move |e| matches!(*e, DecodeError::UnexpectedByte { offset: o, byte: b, .. } if o == offset && b == byte)
}

fn malformed(offset: usize) -> impl Fn(&DecodeError) -> bool {
    move |e| matches!(*e, DecodeError::Malformed { offset: o, .. } if o == offset)
}

// ---------------------------------------------------------------------------
// Offsets, computed by hand from the spec's layout.

#[test]
fn errors_point_at_hand_computed_offsets() {
    // (input, expected error); token 19 = message, 8 = id, 29 = enc, 3 =
    // s.whatsapp.net.
    let exact: Vec<(Vec<u8>, DecodeError)> = vec![
        (vec![], eof(0)),
        (vec![0xF8], eof(1)),
        (vec![0xF9, 0x00], eof(1)),
        (vec![0xF8, 0x01], eof(2)),
        (vec![0xF8, 0x02, 19], eof(3)),
        (vec![0xF8, 0x03, 19, 8], eof(4)),
        (vec![0xF8, 0x02, 19, 0xFC, 5, 1, 2], eof(5)),
        // The 4-byte length is read, then 0xFFFF_FFFF bytes are missing.
        (vec![0xF8, 0x02, 19, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF], eof(8)),
        (vec![0xF8, 0x02, 19, 0xFD, 0x0F, 0xFF, 0xFF, 0x00], eof(7)),
        (vec![0xF8, 0x03, 19, 8, 0xFF, 0x03, 0x12], eof(6)),
        // Interop JID with no trailing server.
        (
            vec![0xF8, 0x03, 19, 8, 0xF5, 0xFF, 0x81, 0x1F, 0, 1, 0, 2],
            eof(12),
        ),
        // A byte left over after the root.
        (
            vec![0xF8, 0x01, 19, 0x00],
            DecodeError::TrailingBytes {
                offset: 3,
                count: 1,
            },
        ),
        (
            vec![0xF8, 0x01, 19, 1, 2, 3],
            DecodeError::TrailingBytes {
                offset: 3,
                count: 3,
            },
        ),
    ];
    for (input, want) in &exact {
        assert_eq!(&decode_err(input), want, "{input:02x?}");
    }

    // Raw text (BINARY_8, 0xFC, then a length byte) that is not UTF-8: the
    // offset of its first invalid byte, and the offending sequence.
    let not_utf8: [(&[u8], usize, &[u8], &str); 4] = [
        // An attribute value C3 28: a two-byte lead, then '(' (not a
        // continuation byte).
        (
            &[0xF8, 0x03, 19, 8, 0xFC, 2, 0xC3, 0x28],
            6,
            &[0xC3],
            "invalid UTF-8: bytes [c3] at byte 6",
        ),
        // A tag that is FF, never a UTF-8 byte.
        (
            &[0xF8, 0x01, 0xFC, 1, 0xFF],
            4,
            &[0xFF],
            "invalid UTF-8: bytes [ff] at byte 4",
        ),
        // A tag "a" then a three-byte character cut short by the end of
        // the text.
        (
            &[0xF8, 0x01, 0xFC, 3, b'a', 0xE2, 0x82],
            5,
            &[0xE2, 0x82],
            "invalid UTF-8: bytes [e2 82] at byte 5",
        ),
        // An attribute value "ok", then ED A0 80 (a surrogate: ED can be
        // followed by 80..9F only).
        (
            &[0xF8, 0x03, 19, 8, 0xFC, 5, b'o', b'k', 0xED, 0xA0, 0x80],
            8,
            &[0xED],
            "invalid UTF-8: bytes [ed] at byte 8",
        ),
    ];
    for (input, offset, bytes, text) in not_utf8 {
        let e = decode_err(input);
        assert_eq!(
            e,
            DecodeError::InvalidUtf8(Box::new(InvalidUtf8 {
                offset,
                bytes: bytes.to_vec(),
            })),
            "{input:02x?}"
        );
        assert_eq!(e.to_string(), text);
    }

    let shaped: Vec<(Vec<u8>, Matcher)> = vec![
        (vec![0x00], Box::new(byte(0, 0x00))),
        (vec![0xFC, 0x01, b'x'], Box::new(byte(0, 0xFC))),
        (vec![0xF8, 0x00], Box::new(malformed(0))),
        (
            vec![0xF8, 0x02, 19, 0xF8, 0x01, 0xF9, 0x00, 0x00],
            Box::new(malformed(5)),
        ),
        (vec![0xF8, 0x01, 0x00], Box::new(byte(2, 0x00))),
        (vec![0xF8, 0x03, 19, 0x00, 29], Box::new(byte(3, 0x00))),
        (vec![0xF8, 0x01, 240], Box::new(byte(2, 240))),
        (vec![0xF8, 0x03, 19, 8, 0xF8], Box::new(byte(4, 0xF8))),
        // (Three bytes follow the child count, so the count is no lie.)
        (
            vec![0xF8, 0x02, 19, 0xF8, 0x01, 0x00, 0x00, 0x00],
            Box::new(byte(5, 0x00)),
        ),
        // Nibble 12 in the second packed byte (packed bytes start at 6).
        (
            vec![0xF8, 0x03, 19, 8, 0xFF, 0x02, 0x12, 0xC0],
            Box::new(byte(7, 0xC0)),
        ),
        // ... even in the pad position the odd flag drops.
        (
            vec![0xF8, 0x03, 19, 8, 0xFF, 0x81, 0x1C],
            Box::new(byte(6, 0x1C)),
        ),
        // Unknown JID_PAIR server, at the server's first byte.
        (
            vec![0xF8, 0x03, 19, 8, 0xFA, 0x00, 0xFC, 3, b'f', b'o', b'o'],
            Box::new(byte(6, 0xFC)),
        ),
        // Unknown JID_PAIR server given as a token (19, "message").
        (
            vec![0xF8, 0x03, 19, 8, 0xFA, 0x00, 19],
            Box::new(byte(6, 19)),
        ),
        // AD_JID domain 2, at the domain byte.
        (
            vec![0xF8, 0x03, 19, 8, 0xF7, 2, 0, 0xFF, 0x81, 0x1F],
            Box::new(byte(5, 2)),
        ),
        // AD_JID with an absent (LIST_EMPTY) user.
        (
            vec![0xF8, 0x03, 19, 8, 0xF7, 0, 0, 0x00],
            Box::new(byte(7, 0x00)),
        ),
        // Messenger JID whose server is s.whatsapp.net, at the server.
        (
            vec![0xF8, 0x03, 19, 8, 0xF6, 0xFF, 0x81, 0x1F, 0, 1, 3],
            Box::new(byte(10, 3)),
        ),
        // Interop JID whose server is absent (LIST_EMPTY).
        (
            vec![0xF8, 0x03, 19, 8, 0xF5, 0xFF, 0x81, 0x1F, 0, 1, 0, 2, 0x00],
            Box::new(byte(12, 0x00)),
        ),
        // A JID in a JID's user slot, at the inner tag.
        (
            vec![0xF8, 0x03, 19, 8, 0xFA, 0xFA, 0x00, 3, 3],
            Box::new(byte(5, 0xFA)),
        ),
    ];
    for (input, want) in &shaped {
        let err = decode_err(input);
        assert!(want(&err), "{input:02x?} gave {err:?}");
    }
}

#[test]
fn frame_errors_count_the_flags_byte() {
    let arena = Arena::new();
    // Plain frame: node-byte offsets move by one.
    let err = quarry_wa::decode_frame(&arena, &[0x00, 0xF8, 0x02, 19]).unwrap_err();
    assert_eq!(err, eof(4));
    let err = quarry_wa::decode_frame(&arena, &[]).unwrap_err();
    assert_eq!(err, eof(0));
    let err = quarry_wa::decode_frame(&arena, &[0x00]).unwrap_err();
    assert_eq!(err, eof(1));
    // Flag bits other than 0x02 are ignored.
    let node = quarry_wa::decode_frame(&arena, &[0xFD, 0xF8, 0x01, 19]).unwrap();
    assert_eq!(node.tag(), "message");
}

// ---------------------------------------------------------------------------
// Bad tags in every string slot.

/// Inputs with one string slot each, the slot's tag byte at `.1`
/// (replaced by the byte under test).
fn string_slots() -> Vec<(&'static str, Vec<u8>, usize)> {
    let x = 0xAA; // placeholder
    vec![
        ("tag", vec![0xF8, 0x01, x], 2),
        ("key", vec![0xF8, 0x03, 19, x, 29], 3),
        ("value", vec![0xF8, 0x03, 19, 8, x], 4),
        ("JID_PAIR user", vec![0xF8, 0x03, 19, 8, 0xFA, x, 3], 5),
        ("JID_PAIR server", vec![0xF8, 0x03, 19, 8, 0xFA, 0x00, x], 6),
        ("AD_JID user", vec![0xF8, 0x03, 19, 8, 0xF7, 0, 0, x], 7),
        (
            "INTEROP user",
            vec![0xF8, 0x03, 19, 8, 0xF5, x, 0, 1, 0, 1],
            5,
        ),
        (
            "INTEROP server",
            vec![0xF8, 0x03, 19, 8, 0xF5, 0xFF, 0x81, 0x1F, 0, 1, 0, 2, x],
            12,
        ),
        ("FB user", vec![0xF8, 0x03, 19, 8, 0xF6, x, 0, 1], 5),
        (
            "FB server",
            vec![0xF8, 0x03, 19, 8, 0xF6, 0xFF, 0x81, 0x1F, 0, 1, x],
            10,
        ),
        ("JID user in tag position", vec![0xF8, 0x01, 0xFA, x, 3], 3),
        (
            "key of a child",
            vec![0xF8, 0x02, 19, 0xF8, 0x01, 0xF8, 0x03, 29, x, 29],
            8,
        ),
    ]
}

#[test]
fn unassigned_tags_240_to_244_fail_in_every_string_slot() {
    for (name, template, at) in string_slots() {
        for tag in 240..=244u8 {
            let mut input = template.clone();
            input[at] = tag;
            let err = decode_err(&input);
            assert!(byte(at, tag)(&err), "{name}, tag {tag}: {err:?}");
        }
    }
    // ... and in content position.
    for tag in 240..=244u8 {
        assert!(byte(3, tag)(&decode_err(&[0xF8, 0x02, 19, tag])));
    }
}

#[test]
fn list_headers_fail_in_every_string_slot() {
    for (name, template, at) in string_slots() {
        for tag in [0xF8u8, 0xF9] {
            let mut input = template.clone();
            input[at] = tag;
            input.extend_from_slice(&[1, 1, 19]); // what a list would need
            let err = decode_err(&input);
            assert!(byte(at, tag)(&err), "{name}, list tag {tag:#x}: {err:?}");
        }
    }
}

#[test]
fn list_empty_is_not_a_tag_a_key_or_a_required_jid_part() {
    let required = [
        "tag",
        "key",
        "AD_JID user",
        "INTEROP user",
        "INTEROP server",
        "FB user",
        "FB server",
        "JID_PAIR server",
        "key of a child",
    ];
    for (name, template, at) in string_slots() {
        let mut input = template.clone();
        input[at] = 0x00;
        let arena = Arena::new();
        let result = quarry_wa::decode(&arena, &input).map(|n| n.to_string());
        if required.contains(&name) {
            let err = result.unwrap_err();
            assert!(byte(at, 0x00)(&err), "{name}: {err:?}");
        } else {
            // A value, a JID_PAIR user and a tag-position JID user may be
            // LIST_EMPTY ("" and an empty user).
            assert!(result.is_ok(), "{name}: {result:?}");
        }
    }
}

#[test]
fn empty_jid_users_are_rejected() {
    // A zero-length raw string or packed value as the user of an AD,
    // interop or Messenger JID (the peer accepts these; see docs).
    let cases: Vec<(Vec<u8>, usize)> = vec![
        (vec![0xF8, 0x03, 19, 8, 0xF7, 0, 1, 0xFC, 0x00], 7),
        (vec![0xF8, 0x03, 19, 8, 0xF7, 0, 1, 0xFF, 0x00], 7),
        (vec![0xF8, 0x03, 19, 8, 0xF7, 0, 1, 0xFF, 0x80], 7),
        (
            vec![
                0xF8, 0x03, 19, 8, 0xF6, 0xFC, 0x00, 0, 1, 0xFC, 4, b'm', b's', b'g', b'r',
            ],
            5,
        ),
        (
            vec![
                0xF8, 0x03, 19, 8, 0xF5, 0xFB, 0x00, 0, 1, 0, 1, 0xFC, 7, b'i', b'n', b't', b'e',
                b'r', b'o', b'p',
            ],
            5,
        ),
    ];
    for (input, at) in &cases {
        let err = decode_err(input);
        assert!(malformed(*at)(&err), "{input:02x?}: {err:?}");
    }
}

// ---------------------------------------------------------------------------
// Lying sizes fail fast and reserve nothing in proportion to the lie.

#[test]
fn lying_list_sizes_fail_fast_without_reserving_for_the_lie() {
    let mut cases: Vec<Vec<u8>> = vec![
        // Child lists far longer than the bytes left.
        vec![0xF8, 0x02, 19, 0xF8, 0xFF],
        vec![0xF8, 0x02, 19, 0xF9, 0xFF, 0xFF, 0xF8, 0x01, 19],
        // Root and child headers promising 32,767 attributes (odd sizes).
        vec![0xF8, 0xFF, 19, 8, 29],
        vec![0xF9, 0xFF, 0xFF, 19, 8, 29],
        vec![0xF8, 0x02, 19, 0xF8, 0x01, 0xF9, 0xFF, 0xFF, 29, 8, 29],
        // Even sizes: attributes and a content slot.
        vec![0xF9, 0xFF, 0xFE, 19, 8, 29, 8, 29],
        // Byte strings far longer than the input.
        vec![0xF8, 0x02, 19, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF],
        vec![0xF8, 0x03, 19, 8, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, b'x'],
        vec![0xF8, 0x02, 19, 0xFD, 0xFF, 0xFF, 0xFF],
        vec![0xF8, 0x01, 0xFE, 0x7F, 0xFF, 0xFF, 0xFF],
        // A packed string promising 127 bytes.
        vec![0xF8, 0x03, 19, 8, 0xFF, 0x7F, 0x12],
    ];
    // A long valid prefix does not make a lie at its end cheaper: 1,000
    // children then a list of 65,535 promised ones.
    let mut long = vec![0xF8, 0x02, 19, 0xF9, 0x03, 0xE9];
    for _ in 0..1000 {
        long.extend_from_slice(&[0xF8, 0x01, 29]);
    }
    long.extend_from_slice(&[0xF8, 0x02, 29, 0xF9, 0xFF, 0xFF, 0xF8, 0x01, 29]);
    cases.push(long);

    for input in &cases {
        let (err, held) = decode_err_with_stats(input);
        assert!(
            matches!(err, DecodeError::UnexpectedEof { .. }),
            "{input:02x?}: {err:?}"
        );
        assert!(err.offset() <= input.len());
        assert!(
            held <= arena_bound(input.len()),
            "{} input bytes made the arena hold {held} bytes",
            input.len()
        );
    }
}

#[test]
fn nested_lying_child_counts_do_not_multiply_memory() {
    // 100 nested nodes, each announcing as many children as the bytes left
    // could hold if each were a minimal three-byte node, then 30,000 zero
    // bytes. Each count passes a check against the bytes remaining on its
    // own; together they promise the same bytes 100 times over. Nothing
    // decoded is valid past the headers (the first child at depth 100 is a
    // zero byte), so the arena must not hold more than the documented
    // multiple of the input length.
    const LEVELS: usize = 100;
    const FILLER: usize = 30_000;
    let total = LEVELS * 6 + FILLER;
    let mut input = Vec::with_capacity(total);
    for level in 0..LEVELS {
        let count = (total - 6 * (level + 1)) / 3;
        input.extend_from_slice(&[0xF8, 0x02, 19, 0xF9]);
        input.extend_from_slice(&u16::try_from(count).unwrap().to_be_bytes());
    }
    input.resize(total, 0x00);

    let (err, held) = decode_err_with_stats(&input);
    // Either the first zero byte is reached, or a count is refused up front
    // because the bytes it needs are already promised to open lists.
    let refused_early = err == eof(input.len());
    assert!(refused_early || byte(LEVELS * 6, 0x00)(&err), "{err:?}");
    assert!(
        held <= arena_bound(input.len()),
        "{} input bytes made the arena hold {held} bytes (bound {})",
        input.len(),
        arena_bound(input.len())
    );
}

// ---------------------------------------------------------------------------
// Nested JID bombs and deep lists, on a small stack.

/// Run `f` on a thread with a 256 KiB stack: a decoder that recursed once
/// per level on these inputs would overflow it and abort the test binary.
fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic")
}

#[test]
fn nested_jid_bombs_return_an_error() {
    // `F8 01` then 100,000 JID tags: the peer recurses once per tag and
    // aborts. The inner tag is reported where it stands in the user slot.
    for (tag, inner_at) in [(0xFAu8, 3usize), (0xF7, 5), (0xF6, 3), (0xF5, 3)] {
        let mut bomb = vec![0xF8, 0x01];
        bomb.extend(std::iter::repeat_n(tag, 100_000));
        let (err, held) = on_small_stack(move || {
            let arena = Arena::new();
            let err = quarry_wa::decode(&arena, &bomb).map(|_| ()).unwrap_err();
            (err, arena.stats().allocated_bytes)
        });
        assert!(byte(inner_at, tag)(&err), "tag {tag:#x}: {err:?}");
        assert!(held <= arena_bound(100_002));

        // The same bomb in an attribute value and as compressed frames.
        let mut in_value = vec![0xF8, 0x03, 19, 8];
        in_value.extend(std::iter::repeat_n(tag, 100_000));
        let frame = common::compressed_frame(&in_value);
        assert!(
            frame.len() < 1_000,
            "zlib makes the bomb tiny: {} bytes",
            frame.len()
        );
        let err = on_small_stack(move || {
            let arena = Arena::new();
            let plain = quarry_wa::decode(&arena, &in_value)
                .map(|_| ())
                .unwrap_err();
            let arena = Arena::new();
            let compressed = quarry_wa::decode_frame(&arena, &frame)
                .map(|_| ())
                .unwrap_err();
            (plain, compressed)
        });
        assert!(byte(inner_at + 2, tag)(&err.0), "tag {tag:#x}: {:?}", err.0);
        assert!(
            byte(inner_at + 2, tag)(&err.1),
            "tag {tag:#x} compressed: {:?}",
            err.1
        );
    }
}

fn nested_lists(levels: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(levels * 5);
    for _ in 0..levels - 1 {
        out.extend_from_slice(&[0xF8, 0x02, 19, 0xF8, 0x01]);
    }
    out.extend_from_slice(&[0xF8, 0x01, 19]);
    out
}

#[test]
fn depth_past_the_limit_with_100_000_nested_lists() {
    let input = nested_lists(100_000);
    let len = input.len();
    let (err, held) = on_small_stack(move || {
        let arena = Arena::new();
        let err = quarry_wa::decode(&arena, &input).map(|_| ()).unwrap_err();
        (err, arena.stats().allocated_bytes)
    });
    // The node at depth 127 starts at 5 * 127 = 635; its child list header
    // ends at 640, where the child at depth 128 would begin.
    assert_eq!(
        err,
        DecodeError::DepthLimit {
            offset: 640,
            limit: 128
        }
    );
    assert!(err.is_limit());
    assert!(
        held <= arena_bound(len),
        "{len} input bytes, arena holds {held}"
    );

    // Truncated: a chain whose innermost node is missing fails the same
    // way (depth is checked before the missing bytes are reached).
    let mut cut = nested_lists(100_000);
    cut.truncate(cut.len() - 3);
    let err = on_small_stack(move || {
        let arena = Arena::new();
        quarry_wa::decode(&arena, &cut).map(|_| ()).unwrap_err()
    });
    assert_eq!(
        err,
        DecodeError::DepthLimit {
            offset: 640,
            limit: 128
        }
    );
}

// ---------------------------------------------------------------------------
// Compressed frames: bombs and corrupt streams.

#[test]
fn the_zlib_builder_makes_valid_streams() {
    // Checked against an independent inflater before it is trusted below.
    for (prefix, zeros) in [
        (&b""[..], 0),
        (b"", 1),
        (b"ab", 300),
        (&[0xF8, 0x02, 19, 0xFE][..], 70_000),
        (b"", 258 * 3 + 1),
    ] {
        let stream = common::zlib_prefix_then_zeros(prefix, zeros);
        let inflated = miniz_oxide::inflate::decompress_to_vec_zlib(&stream).expect("valid zlib");
        let mut want = prefix.to_vec();
        want.resize(prefix.len() + zeros, 0);
        assert_eq!(inflated, want);
    }
}

#[test]
fn a_decompression_bomb_hits_the_inflated_limit() {
    // 100 MiB of zeros in about 660 KB of zlib.
    const HUNDRED_MIB: usize = 100 << 20;
    let mut frame = vec![0x02];
    frame.extend(common::zlib_prefix_then_zeros(&[], HUNDRED_MIB));
    assert!(frame.len() < 700_000);

    // Default limit: 16 MiB.
    let arena = Arena::new();
    let err = quarry_wa::decode_frame(&arena, &frame)
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(err, DecodeError::InflatedLimit { limit, .. } if limit == 16 << 20),
        "{err:?}"
    );
    assert!(err.is_limit());
    assert!(err.offset() <= frame.len());
    let held = arena.stats().allocated_bytes;
    let budget = DecodeOptions::default().max_arena_bytes;
    assert!(
        held <= budget + 4096,
        "the bomb made the arena hold {held} bytes, budget {budget}"
    );

    // A small configured limit.
    let decoder = Decoder {
        options: DecodeOptions {
            max_inflated_bytes: 64 << 10,
            ..DecodeOptions::default()
        },
        ..Decoder::new()
    };
    let arena = Arena::new();
    let err = decoder
        .decode_frame(&arena, &frame)
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(err, DecodeError::InflatedLimit { limit, .. } if limit == 64 << 10),
        "{err:?}"
    );
    let held = arena.stats().allocated_bytes;
    assert!(
        held < 4 << 20,
        "a 64 KiB inflate limit let the arena hold {held} bytes"
    );
}

#[test]
fn corrupt_zlib_streams_are_inflate_errors() {
    let body = common::fixture("fanout").node_bytes().to_vec();
    let good = common::compressed_frame(&body);
    let arena = Arena::new();
    assert!(quarry_wa::decode_frame(&arena, &good).is_ok());

    let is_inflate = |e: &DecodeError| matches!(e, DecodeError::Inflate { .. });

    // Bad zlib header (CMF/FLG check fails).
    let mut bad_header = good.clone();
    bad_header[2] ^= 0x01;
    // A reserved block type (BTYPE = 3) right after the header.
    let reserved_block = vec![0x02, 0x78, 0x01, 0x07, 0x00];
    // Adler-32 mismatch: flip the last trailer byte.
    let mut bad_adler = good.clone();
    *bad_adler.last_mut().unwrap() ^= 0xFF;
    // Not zlib at all.
    let garbage = vec![0x02, 0xF8, 0x01, 19];
    // Empty body.
    let empty = vec![0x02];

    for (name, frame) in [
        ("bad header", &bad_header),
        ("reserved block type", &reserved_block),
        ("adler mismatch", &bad_adler),
        ("not zlib", &garbage),
        ("empty body", &empty),
    ] {
        let err = quarry_wa::decode_frame(&arena, frame)
            .map(|_| ())
            .unwrap_err();
        assert!(is_inflate(&err), "{name}: {err:?}");
        assert!(err.offset() <= frame.len(), "{name}: {err:?}");
    }
    let err = quarry_wa::decode_frame(&arena, &bad_adler)
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(err, DecodeError::Inflate { what, .. } if what.contains("adler")),
        "{err:?}"
    );

    // Every truncation of the compressed body is an error, never a panic.
    for len in 0..good.len() {
        let err = quarry_wa::decode_frame(&arena, &good[..len])
            .map(|_| ())
            .unwrap_err();
        assert!(err.offset() <= len, "prefix {len}: {err:?}");
    }
    // Bytes after the zlib stream's end.
    let mut trailing = good.clone();
    trailing.push(0);
    let err = quarry_wa::decode_frame(&arena, &trailing)
        .map(|_| ())
        .unwrap_err();
    assert_eq!(
        err,
        DecodeError::TrailingBytes {
            offset: good.len(),
            count: 1
        }
    );
}

#[test]
fn a_compressed_body_that_is_not_one_node_is_a_node_error() {
    // A valid zlib stream whose content is broken node bytes: the offset
    // counts from the start of the inflated bytes.
    let frame = common::compressed_frame(&[0xF8, 0x02, 19]);
    let arena = Arena::new();
    assert_eq!(
        quarry_wa::decode_frame(&arena, &frame)
            .map(|_| ())
            .unwrap_err(),
        eof(3)
    );
}

#[test]
fn nibbles_12_to_14_fail_in_either_half_of_any_packed_byte() {
    for nibble in 12..=14u8 {
        // High half of the first packed byte (offset 6), low half of the
        // first, then either half of the second (offset 7).
        for (packed, at) in [
            ([nibble << 4, 0x12], 6),
            ([0x10 | nibble, 0x12], 6),
            ([0x12, nibble << 4 | 1], 7),
            ([0x12, 0x10 | nibble], 7),
        ] {
            let input = [0xF8, 0x03, 19, 8, 0xFF, 0x02, packed[0], packed[1]];
            let err = decode_err(&input);
            assert!(byte(at, input[at])(&err), "{input:02x?}: {err:?}");
        }
    }
    // HEX_8 has no invalid nibble.
    let arena = Arena::new();
    let node = quarry_wa::decode(&arena, &[0xF8, 0x03, 19, 8, 0xFB, 0x02, 0xCD, 0xEF]).unwrap();
    assert_eq!(node.attr_str("id"), Some("CDEF"));
}

#[test]
fn interop_and_messenger_servers_must_match() {
    let msgr = [0xFC, 4, b'm', b's', b'g', b'r'];
    let interop = [0xFC, 7, b'i', b'n', b't', b'e', b'r', b'o', b'p'];
    // Interop JID ending in "msgr": wrong server, at its first byte (12).
    let wrong = [
        &[0xF8, 0x03, 19, 8, 0xF5, 0xFF, 0x81, 0x1F, 0, 1, 0, 2][..],
        &msgr,
    ]
    .concat();
    assert!(byte(12, 0xFC)(&decode_err(&wrong)));
    // Messenger JID ending in "interop" (at 10), or with no server at all.
    let wrong = [
        &[0xF8, 0x03, 19, 8, 0xF6, 0xFF, 0x81, 0x1F, 0, 1][..],
        &interop,
    ]
    .concat();
    assert!(byte(10, 0xFC)(&decode_err(&wrong)));
    assert_eq!(
        decode_err(&[0xF8, 0x03, 19, 8, 0xF6, 0xFF, 0x81, 0x1F, 0, 1]),
        eof(10)
    );
    // An unknown name in either slot.
    let unknown = [
        &[0xF8, 0x03, 19, 8, 0xF6, 0xFF, 0x81, 0x1F, 0, 1][..],
        &[0xFC, 1, b'x'],
    ]
    .concat();
    assert!(byte(10, 0xFC)(&decode_err(&unknown)));
    // The right servers decode.
    let arena = Arena::new();
    let ok = [
        &[0xF8, 0x03, 19, 8, 0xF6, 0xFF, 0x81, 0x1F, 0, 1][..],
        &msgr,
    ]
    .concat();
    assert_eq!(
        quarry_wa::decode(&arena, &ok).unwrap().attr("id").unwrap(),
        "1:1@msgr"
    );
}

#[test]
fn error_messages_name_the_offending_value() {
    // (input, the message): each names the byte it stopped at and what it
    // expected there.
    let cases: [(&[u8], &str); 5] = [
        (
            &[0xF8, 0x03, 19, 8, 0xF7, 2, 0, 0xFF, 0x81, 0x1F],
            "unexpected byte 0x02 (not an AD_JID domain) at byte 5",
        ),
        (
            &[0xF8, 0x03, 19, 8, 0xFF, 0x01, 0xD1],
            "unexpected byte 0xd1 (a NIBBLE_8 byte holding a nibble 12, 13 or 14) at byte 6",
        ),
        (
            &[0xF8, 0x03, 19, 8, 0xFA, 0x00, 19],
            "unexpected byte 0x13 (not one of the twelve JID servers) at byte 6",
        ),
        (
            &[0xF8, 0x01, 0x00],
            "unexpected byte 0x00 (LIST_EMPTY where a node tag must be) at byte 2",
        ),
        (
            &[0xF8, 0x01, 242],
            "unexpected byte 0xf2 (expected a string) at byte 2",
        ),
    ];
    for (input, message) in cases {
        assert_eq!(decode_err(input).to_string(), message, "{input:02x?}");
    }
}
