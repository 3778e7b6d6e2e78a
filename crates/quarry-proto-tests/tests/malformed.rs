//! Malformed input: truncations, mutations, overlong varints, lengths past
//! the end, deep nesting, wrong wire types, invalid UTF-8 and limits. Every
//! failure is a typed error with a byte offset; nothing panics.

mod common;

use proptest::prelude::*;
use prost::Message as _;
use quarry_core::{Arena, DecodeError, DecodeOptions, InvalidUtf8};
use quarry_proto::Decoder;
use quarry_proto_tests::samples::{self, Root};
use quarry_proto_tests::views::{quarry::test3::All3View, quarry::test3::InnerView};
use quarry_proto_tests::{pb, wa};

/// quarry's and prost's verdicts on `bytes` as a sample's root type.
fn both(root: Root, bytes: &[u8]) -> (Result<(), DecodeError>, bool) {
    let arena = Arena::new();
    match root {
        Root::SyncActionData => (
            wa::SyncActionDataView::decode(&arena, bytes).map(|_| ()),
            pb::whatsapp::SyncActionData::decode(bytes).is_ok(),
        ),
        Root::Message => (
            wa::MessageView::decode(&arena, bytes).map(|_| ()),
            pb::whatsapp::Message::decode(bytes).is_ok(),
        ),
        Root::HistorySync => (
            wa::HistorySyncView::decode(&arena, bytes).map(|_| ()),
            pb::whatsapp::HistorySync::decode(bytes).is_ok(),
        ),
    }
}

#[test]
fn truncation_at_every_offset_agrees_with_prost() {
    for s in samples::all().into_iter().filter(|s| s.bytes.len() < 1000) {
        for cut in 0..s.bytes.len() {
            let (ours, prost_ok) = both(s.root, &s.bytes[..cut]);
            if let Err(e) = &ours {
                assert!(e.offset() <= cut, "{} cut {cut}: {e}", s.name);
            }
            assert_eq!(ours.is_ok(), prost_ok, "{} cut {cut}: {ours:?}", s.name);
        }
    }
    let big = samples::history_sync(5, 5).encode_to_vec();
    for cut in 0..big.len() {
        let (ours, prost_ok) = both(Root::HistorySync, &big[..cut]);
        assert_eq!(ours.is_ok(), prost_ok, "cut {cut}: {ours:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn mutations_never_panic_and_agree_with_prost(
        which in 0usize..5,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
    ) {
        let s = &samples::all()[which];
        let mut bytes = s.bytes.clone();
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        let (ours, prost_ok) = both(s.root, &bytes);
        if let Err(e) = &ours {
            prop_assert!(e.offset() <= bytes.len());
        }
        // Closed enums are the one place the two differ by design: prost
        // keeps any number in the field, quarry moves unlisted ones to the
        // unknown fields; both accept the input.
        prop_assert_eq!(ours.is_ok(), prost_ok, "{:?}", ours);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let arena = Arena::new();
        if let Err(e) = All3View::decode(&arena, &bytes) {
            prop_assert!(e.offset() <= bytes.len());
        }
        if let Err(e) = wa::MessageView::decode(&arena, &bytes) {
            prop_assert!(e.offset() <= bytes.len());
        }
    }
}

fn decode3(bytes: &[u8]) -> Result<(), DecodeError> {
    let arena = Arena::new();
    All3View::decode(&arena, bytes).map(|_| ())
}

#[test]
fn overlong_varints_are_errors_at_their_first_byte() {
    // f_int64 (3) with an 11-byte varint.
    let mut bytes = vec![0x18];
    bytes.extend([0xFF; 10]);
    bytes.push(0x01);
    assert_eq!(
        decode3(&bytes),
        Err(DecodeError::invalid_value(
            1,
            "varint overflows 64 bits",
            "tenth byte 0xff"
        ))
    );
    // A ten-byte varint whose last byte carries bits past 64.
    let mut bytes = vec![0x18];
    bytes.extend([0xFF; 9]);
    bytes.push(0x02);
    assert_eq!(
        decode3(&bytes),
        Err(DecodeError::invalid_value(
            1,
            "varint overflows 64 bits",
            "tenth byte 0x02"
        ))
    );
    // An overlong tag.
    assert_eq!(
        decode3(&[0xFF; 11]),
        Err(DecodeError::invalid_value(
            0,
            "varint overflows 64 bits",
            "tenth byte 0xff"
        ))
    );
    // A varint cut short.
    assert_eq!(
        decode3(&[0x18, 0x80]),
        Err(DecodeError::UnexpectedEof { offset: 2 })
    );
}

#[test]
fn lengths_past_the_end_are_errors_at_the_length() {
    // f_string (9) claims 5 bytes, has 1.
    assert_eq!(
        decode3(&[0x4A, 0x05, b'a']),
        Err(DecodeError::invalid_value(
            1,
            "length past the end of the message",
            "5 bytes, 1 left"
        ))
    );
    // f_inner (17) holds 2 bytes; inside, text (1) claims 5.
    assert_eq!(
        decode3(&[0x8A, 0x01, 0x02, 0x0A, 0x05]),
        Err(DecodeError::invalid_value(
            4,
            "length past the end of the message",
            "5 bytes, 0 left"
        ))
    );
    // A length of 2^63.
    let mut bytes = vec![0x4A];
    bytes.extend([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
    assert_eq!(
        decode3(&bytes),
        Err(DecodeError::invalid_value(
            1,
            "length past the end of the message",
            "9223372036854775808 bytes, 0 left"
        ))
    );
}

#[test]
fn nesting_is_limited_to_100_by_default_like_prost() {
    let arena = Arena::new();
    let ok = common::deep_inner(100);
    assert!(InnerView::decode(&arena, &ok).is_ok());
    assert!(pb::test3::Inner::decode(&ok[..]).is_ok());
    let deep = common::deep_inner(101);
    assert!(pb::test3::Inner::decode(&deep[..]).is_err());
    let err = InnerView::decode(&arena, &deep).unwrap_err();
    assert!(
        matches!(err, DecodeError::DepthLimit { limit: 100, .. }),
        "{err}"
    );
    // At the tag of the 101st level, the last header in the input.
    assert_eq!(err.offset(), deep.len() - 2);
}

#[test]
fn the_depth_limit_is_an_option() {
    let arena = Arena::new();
    let decoder = Decoder {
        options: DecodeOptions {
            max_depth: 10,
            ..quarry_proto::DEFAULT_OPTIONS
        },
        ..Decoder::new()
    };
    assert!(
        decoder
            .decode(InnerView::TABLE, &arena, &common::deep_inner(10))
            .is_ok()
    );
    let err = decoder
        .decode(InnerView::TABLE, &arena, &common::deep_inner(11))
        .unwrap_err();
    // Ten headers of 2 bytes each precede the 11th level's tag.
    assert_eq!(
        err,
        DecodeError::DepthLimit {
            offset: 20,
            limit: 10
        }
    );
    // A million levels fail without touching the stack.
    let bomb = common::deep_inner(100_000);
    assert!(matches!(
        InnerView::decode(&arena, &bomb),
        Err(DecodeError::DepthLimit { .. })
    ));
}

#[test]
fn nested_unknown_groups_are_depth_limited() {
    // 200 nested starts of unknown group 1000, then as many ends.
    let mut bytes = Vec::new();
    for _ in 0..200 {
        bytes.extend([0xDB, 0x3E]);
    }
    for _ in 0..200 {
        bytes.extend([0xDC, 0x3E]);
    }
    assert!(matches!(
        decode3(&bytes),
        Err(DecodeError::DepthLimit { .. })
    ));
}

/// Every group, nested ones inside an unknown group included, must end
/// with its own number; prost rejects the same inputs. Nesting past the
/// 32 levels kept inline is checked as well.
#[test]
fn nested_groups_must_end_with_their_own_number() {
    use quarry_proto_tests::pb::test3::All3;
    // Unknown group 20 (0xA3 0x01 .. 0xA4 0x01) holding group 5 (0x2B ..
    // 0x2C), or a wrongly closed one at byte 3.
    let well_formed = [0xA3, 0x01, 0x2B, 0x08, 0x01, 0x2C, 0xA4, 0x01];
    let wrong_inner = [0xA3, 0x01, 0x2B, 0x08, 0x01, 0x34, 0xA4, 0x01];
    assert_eq!(decode3(&well_formed), Ok(()));
    assert!(All3::decode(&well_formed[..]).is_ok());
    assert_eq!(
        decode3(&wrong_inner),
        Err(DecodeError::invalid_value(
            5,
            "end-group tag does not match its start",
            "field 6 closes group 5"
        ))
    );
    assert!(All3::decode(&wrong_inner[..]).is_err());
    // 60 groups nested in group 20, level `l` numbered `l % 15 + 1` (one-
    // byte tags); closed in order, then with the ends of levels 50 and 49
    // (numbers 6 and 5, past the inline ones) swapped.
    let nested = |swap: bool| {
        let number = |level: u8| level % 15 + 1;
        let mut bytes = vec![0xA3, 0x01];
        for level in 1..=60u8 {
            bytes.push(number(level) << 3 | 3);
        }
        for level in (1..=60u8).rev() {
            let level = match (swap, level) {
                (true, 50) => 49,
                (true, 49) => 50,
                _ => level,
            };
            bytes.push(number(level) << 3 | 4);
        }
        bytes.extend([0xA4, 0x01]);
        bytes
    };
    let options = quarry_core::DecodeOptions {
        max_depth: 1000,
        ..quarry_proto::DEFAULT_OPTIONS
    };
    let decoder = quarry_proto::Decoder {
        options,
        ..quarry_proto::Decoder::new()
    };
    let arena = Arena::new();
    assert!(
        decoder
            .decode(All3View::TABLE, &arena, &nested(false))
            .is_ok()
    );
    assert!(All3::decode(&nested(false)[..]).is_ok());
    assert!(All3::decode(&nested(true)[..]).is_err());
    // The swapped end of level 50 is the 11th end tag: after 2 + 60 bytes of
    // starts and 10 ends.
    assert_eq!(
        decoder
            .decode(All3View::TABLE, &arena, &nested(true))
            .map(|_| ()),
        Err(DecodeError::invalid_value(
            2 + 60 + 10,
            "end-group tag does not match its start",
            "field 5 closes group 6"
        ))
    );
}

#[test]
fn wrong_wire_types_are_errors_at_the_tag() {
    // f_double (1) as a varint; f_string (9) as a fixed32.
    assert_eq!(
        decode3(&[0x08, 0x01]),
        Err(DecodeError::invalid_value(
            0,
            "wrong wire type for field",
            "0 for field 1"
        ))
    );
    assert_eq!(
        decode3(&[0x28, 0x01, 0x4D, 1, 2, 3, 4]),
        Err(DecodeError::invalid_value(
            2,
            "wrong wire type for field",
            "5 for field 9"
        ))
    );
    // Wire types 6 and 7, field number 0, a stray end-group.
    assert_eq!(
        decode3(&[0x0E]),
        Err(DecodeError::invalid_value(
            0,
            "invalid wire type",
            "6 (field 1)"
        ))
    );
    assert_eq!(
        decode3(&[0x0F]),
        Err(DecodeError::invalid_value(
            0,
            "invalid wire type",
            "7 (field 1)"
        ))
    );
    assert_eq!(
        decode3(&[0x00, 0x00]),
        Err(DecodeError::invalid_value(0, "invalid field number", "0"))
    );
    assert_eq!(
        decode3(&[0x28, 0x01, 0x0C]),
        Err(DecodeError::invalid_value(
            2,
            "wrong wire type for field",
            "4 for field 1"
        ))
    );
    // A packed run of doubles (31) whose length is not a multiple of 8.
    assert_eq!(
        decode3(&[0xFA, 0x01, 0x07, 0, 0, 0, 0, 0, 0, 0]),
        Err(DecodeError::invalid_value(
            3,
            "packed run length is not a multiple of the element size",
            "7 bytes"
        ))
    );
}

/// The error for invalid UTF-8 at `offset` whose offending sequence is
/// `bytes`.
fn bad_utf8(offset: usize, bytes: &[u8]) -> DecodeError {
    DecodeError::InvalidUtf8(Box::new(InvalidUtf8 {
        offset,
        bytes: bytes.to_vec(),
    }))
}

#[test]
fn invalid_utf8_in_a_string_is_an_error_at_its_first_bad_byte() {
    // f_string (9, tag 4A), 2 bytes: C3 (a two-byte lead), '(' (not a
    // continuation byte).
    assert_eq!(
        decode3(&[0x4A, 0x02, 0xC3, 0x28]),
        Err(bad_utf8(2, &[0xC3]))
    );
    assert!(pb::test3::All3::decode(&[0x4A, 0x02, 0xC3, 0x28][..]).is_err());
    // "hi", then F0 9F: a four-byte character cut short by the string's
    // end (the next field's tag does not complete it).
    let cut = [0x4A, 0x04, b'h', b'i', 0xF0, 0x9F, 0x4A, 0x00];
    let e = decode3(&cut).unwrap_err();
    assert_eq!(e, bad_utf8(4, &[0xF0, 0x9F]));
    assert_eq!(e.to_string(), "invalid UTF-8: bytes [f0 9f] at byte 4");
    assert!(pb::test3::All3::decode(&cut[..]).is_err());
    // In a repeated string (46) too; bytes (10) take anything.
    assert_eq!(
        decode3(&[0xF2, 0x02, 0x01, 0xFF]),
        Err(bad_utf8(3, &[0xFF]))
    );
    assert!(decode3(&[0x52, 0x02, 0xC3, 0x28]).is_ok());
}

/// A map entry whose closed-enum value is unlisted becomes an unknown field
/// whole, but its string key is still checked: m_str_level (54, map<string,
/// Level>) with key bytes C3 28 and value 99, in either order.
#[test]
fn invalid_utf8_key_of_an_unknown_map_entry_is_still_an_error() {
    let required = [0xA8, 0x01, 0x01];
    let key_first = [
        &required[..],
        &[0xB2, 0x03, 6, 0x0A, 2, 0xC3, 0x28, 0x10, 99],
    ]
    .concat();
    let value_first = [
        &required[..],
        &[0xB2, 0x03, 6, 0x10, 99, 0x0A, 2, 0xC3, 0x28],
    ]
    .concat();
    for (bytes, offset) in [(key_first, 8), (value_first, 10)] {
        let arena = Arena::new();
        assert_eq!(
            quarry_proto_tests::views::quarry::test2::All2View::decode(&arena, &bytes).map(|_| ()),
            Err(bad_utf8(offset, &[0xC3]))
        );
    }
    // A valid key: the entry is an unknown field, the decode succeeds.
    let ok = [&required[..], &[0xB2, 0x03, 5, 0x0A, 1, b'k', 0x10, 99]].concat();
    let arena = Arena::new();
    let view = quarry_proto_tests::views::quarry::test2::All2View::decode(&arena, &ok).unwrap();
    assert_eq!(view.m_str_level().count(), 0);
    assert_eq!(view.unknown_fields().count(), 1);
}

#[test]
fn arena_and_item_limits_are_typed_errors() {
    let bytes = samples::history_sync(10, 10).encode_to_vec();
    let arena = Arena::new();
    let small = Decoder {
        options: DecodeOptions {
            max_arena_bytes: 4096,
            ..quarry_proto::DEFAULT_OPTIONS
        },
        ..Decoder::new()
    };
    let err = small
        .decode(wa::HistorySyncView::TABLE, &arena, &bytes)
        .unwrap_err();
    assert!(
        matches!(err, DecodeError::ArenaLimit { limit: 4096, .. }),
        "{err}"
    );
    assert!(err.offset() < bytes.len());
    let few = Decoder {
        options: DecodeOptions {
            max_items: 50,
            ..quarry_proto::DEFAULT_OPTIONS
        },
        ..Decoder::new()
    };
    let err = few
        .decode(wa::HistorySyncView::TABLE, &arena, &bytes)
        .unwrap_err();
    assert!(
        matches!(err, DecodeError::ItemLimit { limit: 50, .. }),
        "{err}"
    );
}

#[test]
fn random_messages_cut_anywhere_never_panic() {
    let pool = common::pool(quarry_proto_tests::TEST_DESCRIPTORS);
    let desc = pool.get_message_by_name("quarry.test3.All3").unwrap();
    for seed in 0..40u64 {
        let bytes = common::Gen::new(seed).message(&desc).encode_to_vec();
        for cut in 0..bytes.len() {
            let ours = decode3(&bytes[..cut]);
            let prost_ok = pb::test3::All3::decode(&bytes[..cut]).is_ok();
            assert_eq!(ours.is_ok(), prost_ok, "seed {seed} cut {cut}: {ours:?}");
        }
    }
}
