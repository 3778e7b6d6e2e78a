//! The encoder's limits on built messages: nesting past the decoder's
//! `max_depth` (100 by default, prost's limit too) and encodings past
//! protobuf's 2 GiB are refused with an error, where the expected bytes
//! and offsets are worked out here from the wire format and the verdicts
//! held to prost's.

use prost::Message as _;
use quarry_core::{Arena, DecodeError, DecodeOptions};
use quarry_proto::{DEFAULT_OPTIONS, MAX_ENCODED_LEN, UnknownField};
use quarry_proto_tests::pb;
use quarry_proto_tests::views::quarry::test3::{All3Builder, InnerBuilder, InnerView};

/// Bytes of the varint of `v`.
fn varint_len(v: usize) -> usize {
    let mut n = 1;
    let mut v = v >> 7;
    while v > 0 {
        n += 1;
        v >>= 7;
    }
    n
}

/// An `Inner` chain: the root and `levels` messages below it, each the
/// `next` (field 3) of the one above; the innermost holds `n` (field 2)
/// and, with `unknown`, unknown field 15 as a varint. Built innermost
/// first through the generated builders.
fn built_chain<'a>(arena: &'a Arena, levels: usize, n: i32, unknown: bool) -> InnerView<'a> {
    let mut b = InnerBuilder::new(arena);
    b.set_n(n);
    if unknown {
        b.push_unknown(UnknownField::Raw {
            tag: 15 << 3,
            value: &[0x01],
        });
    }
    let mut view = b.build();
    for _ in 0..levels {
        let mut b = InnerBuilder::new(arena);
        b.set_next(view);
        view = b.build();
    }
    view
}

/// The same chain with prost's types (no unknown field).
fn prost_chain(levels: usize, n: i32) -> pb::test3::Inner {
    let mut m = pb::test3::Inner {
        n,
        ..Default::default()
    };
    for _ in 0..levels {
        m = pb::test3::Inner {
            next: Some(Box::new(m)),
            ..Default::default()
        };
    }
    m
}

/// Where the innermost message's body starts in the chain's encoding, its
/// body taking `innermost` bytes: each of the `levels` enclosing `next`
/// fields puts its tag (0x1A, one byte) and its length before it.
fn innermost_offset(levels: usize, innermost: usize) -> usize {
    let mut body = innermost;
    let mut offset = 0;
    for _ in 0..levels {
        let prefix = 1 + varint_len(body);
        offset += prefix;
        body += prefix;
    }
    offset
}

const LIMIT: usize = DEFAULT_OPTIONS.max_depth as usize;
const LIMIT_U32: u32 = DEFAULT_OPTIONS.max_depth;

/// A decoder whose depth limit is one level past the default.
fn decoder_one_level_deeper() -> quarry_proto::Decoder {
    quarry_proto::Decoder {
        options: DecodeOptions {
            max_depth: LIMIT_U32 + 1,
            ..DEFAULT_OPTIONS
        },
        ..quarry_proto::Decoder::new()
    }
}

#[test]
fn a_chain_at_the_depth_limit_encodes_as_prost_does() {
    let arena = Arena::new();
    let view = built_chain(&arena, LIMIT, 7, false);
    let bytes = view.encode().unwrap();
    let want = prost_chain(LIMIT, 7).encode_to_vec();
    assert_eq!(bytes, want);
    // `n = 7` innermost (0x10 0x07), 100 prefixes around it.
    assert_eq!(bytes.len(), innermost_offset(LIMIT, 2) + 2);
    assert_eq!(bytes[innermost_offset(LIMIT, 2)..], [0x10, 0x07]);
    // prost reads it back (its limit is 100 too), and so does quarry.
    assert_eq!(
        pb::test3::Inner::decode(&bytes[..]).unwrap(),
        prost_chain(LIMIT, 7)
    );
    assert_eq!(InnerView::decode(&arena, &bytes).unwrap(), view);
    let mut out = b"head".to_vec();
    view.encode_into(&mut out).unwrap();
    assert_eq!(out[4..], want);
}

#[test]
fn one_level_more_is_refused_where_the_decoder_would_refuse_it() {
    let arena = Arena::new();
    let view = built_chain(&arena, LIMIT + 1, 7, false);
    // The 101st `next` tag: the one inside the message 100 levels down,
    // after the prefixes of the 100 `next` fields around that message,
    // whose body is the 101st field's tag, length (2) and `n = 7`.
    let offset = innermost_offset(LIMIT, 4);
    let want = DecodeError::DepthLimit {
        offset,
        limit: LIMIT_U32,
    };
    assert_eq!(view.encode(), Err(want.clone()));
    let mut out = b"head".to_vec();
    assert_eq!(view.encode_into(&mut out), Err(want.clone()));
    assert_eq!(out, b"head", "nothing appended");
    // Through the untyped layer: the same record, the same error.
    assert_eq!(
        quarry_proto::encode(InnerView::TABLE, view.record()),
        Err(want)
    );

    // With the limit raised it encodes to prost's bytes, which prost
    // refuses to decode (past its own limit of 100).
    let raised = decoder_one_level_deeper();
    let bytes = quarry_proto::encode_with(&raised, InnerView::TABLE, view.record()).unwrap();
    assert_eq!(bytes, prost_chain(LIMIT + 1, 7).encode_to_vec());
    assert_eq!(bytes[offset], 0x1A);
    assert!(pb::test3::Inner::decode(&bytes[..]).is_err());
    let mut out = Vec::new();
    quarry_proto::encode_into_with(&raised, InnerView::TABLE, view.record(), &mut out).unwrap();
    assert_eq!(out, bytes);
}

#[test]
fn an_unknown_field_needs_a_level_as_prost_counts_them() {
    let arena = Arena::new();
    // Innermost body: `n = 7` (0x10 0x07) then field 15 as a varint
    // (0x78 0x01).
    let inner = [0x10, 0x07, 0x78, 0x01];
    let below = built_chain(&arena, LIMIT - 1, 7, true);
    let bytes = below.encode().unwrap();
    assert_eq!(bytes[innermost_offset(LIMIT - 1, 4)..], inner);
    assert!(pb::test3::Inner::decode(&bytes[..]).is_ok());

    let at = built_chain(&arena, LIMIT, 7, true);
    let unknown_at = innermost_offset(LIMIT, 4) + 2;
    assert_eq!(
        at.encode(),
        Err(DecodeError::DepthLimit {
            offset: unknown_at,
            limit: LIMIT_U32,
        })
    );
    let raised = decoder_one_level_deeper();
    let bytes = quarry_proto::encode_with(&raised, InnerView::TABLE, at.record()).unwrap();
    assert_eq!(bytes[unknown_at..], [0x78, 0x01]);
    // prost refuses the unknown field 100 levels down, not the message.
    assert!(pb::test3::Inner::decode(&bytes[..]).is_err());
}

/// A chain built 100,000 levels deep is refused, and measured, on a
/// 64 KiB stack, which recursion once per level would overflow.
#[test]
fn a_very_deep_chain_is_refused_on_a_small_stack() {
    const LEVELS: usize = 100_000;
    let result = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(|| {
            let arena = Arena::new();
            let view = built_chain(&arena, LEVELS, 7, false);
            (
                view.encode(),
                quarry_proto::encoded_len(InnerView::TABLE, view.record()),
            )
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(
        result.0,
        Err(DecodeError::DepthLimit {
            offset: innermost_offset(LIMIT, innermost_offset(LEVELS - LIMIT, 2) + 2),
            limit: LIMIT_U32,
        })
    );
    assert_eq!(result.1, innermost_offset(LEVELS, 2) + 2);
}

#[test]
fn an_encoding_past_2_gib_is_refused_before_it_is_allocated() {
    // 2,048 references to one MiB: each element of `r_bytes` (field 47,
    // a two-byte tag) takes 2 + 3 + 2^20 bytes, 2,147,493,888 in all,
    // past 2^31 - 1.
    let mib = vec![0u8; 1 << 20];
    let arena = Arena::new();
    let mut b = All3Builder::new(&arena);
    b.set_r_bytes(std::iter::repeat_n(&mib[..], 2048));
    let view = b.build();
    let len = 2048 * (2 + 3 + (1 << 20));
    assert_eq!(len, 2_147_493_888);
    assert!(len > MAX_ENCODED_LEN);
    assert_eq!(MAX_ENCODED_LEN, 2_147_483_647);
    assert_eq!(quarry_proto::encoded_len(view_table(), view.record()), len);
    let want = DecodeError::invalid_value(
        MAX_ENCODED_LEN,
        "encoding longer than protobuf's 2 GiB limit, in bytes",
        len,
    );
    assert_eq!(view.encode(), Err(want.clone()));
    assert_eq!(
        want.to_string(),
        "encoding longer than protobuf's 2 GiB limit, in bytes: 2147493888 at byte 2147483647"
    );
    let mut out = b"head".to_vec();
    assert_eq!(view.encode_into(&mut out), Err(want));
    assert_eq!(out, b"head");
    assert_eq!(out.capacity(), 4, "nothing reserved");
}

fn view_table() -> quarry_proto::MessageRef {
    quarry_proto_tests::views::quarry::test3::All3View::TABLE
}
