//! Malformed input inside a oneof member that a later member displaces:
//! protobuf reads every member as it comes, so a bad body or invalid UTF-8
//! there fails the decode even though the member does not survive. quarry must
//! read such members too (a fuzz run found the WhatsApp case below, which
//! prost rejects).
//!
//! Each input starts the oneof with `k_inner` holding an unknown field
//! (`0x48 0x00`, field 9): `Inner` is read as a dense record, which cannot
//! hold one, so its read goes on sparse from there. The malformed part
//! comes after that point.

use prost::Message as _;
use quarry_core::{Arena, DecodeError, InvalidUtf8};
use quarry_proto_tests::views::quarry::test3::All3View;
use quarry_proto_tests::{pb, wa};

/// `k_inner` (61, tag EA 03) holding `body`.
fn k_inner(body: &[u8]) -> Vec<u8> {
    let mut out = vec![0xEA, 0x03, body.len() as u8];
    out.extend_from_slice(body);
    out
}

/// `k_string` (60, tag E2 03) holding `bytes`.
fn k_string(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![0xE2, 0x03, bytes.len() as u8];
    out.extend_from_slice(bytes);
    out
}

/// `k_u64` (64, tag 80 04) = 1.
const K_U64: [u8; 3] = [0x80, 0x04, 0x01];

/// An `Inner` body that leaves the dense path: an unknown field.
const OFF_DENSE: [u8; 2] = [0x48, 0x00];

fn decode3(bytes: &[u8]) -> Result<(), DecodeError> {
    let arena = Arena::new();
    All3View::decode(&arena, bytes).map(|_| ())
}

fn prost_accepts(bytes: &[u8]) -> bool {
    pb::test3::All3::decode(bytes).is_ok()
}

#[test]
fn a_well_formed_displaced_member_is_dropped() {
    // Control: leaving the dense path alone is fine, and the last member
    // wins.
    let bytes = [k_inner(&OFF_DENSE), K_U64.to_vec()].concat();
    assert!(prost_accepts(&bytes));
    let arena = Arena::new();
    let view = All3View::decode(&arena, &bytes).unwrap();
    let theirs = pb::test3::All3::decode(&bytes[..]).unwrap();
    assert_eq!(view.to_prost(), theirs);
    assert_eq!(theirs.kind, Some(pb::test3::all3::Kind::KU64(1)));
}

#[test]
fn a_tag_byte_of_wire_type_7_is_no_oneof_member() {
    // 0x7F is field 15 with wire type 7, which no field has: an error, as
    // in prost, read sparse or dense, in a message with oneofs or not.
    for bytes in [
        vec![0x7F],
        k_inner(&[0x7F]),
        k_inner(&[OFF_DENSE[0], OFF_DENSE[1], 0x7F]),
    ] {
        assert!(!prost_accepts(&bytes), "{bytes:02X?}");
        assert!(decode3(&bytes).is_err(), "{bytes:02X?}");
    }
}

#[test]
fn a_displaced_message_member_with_a_bad_length_is_an_error() {
    // k_inner { 9: 0, text: claims 5 bytes, has 1 }, then k_u64.
    let bytes = [k_inner(&[0x48, 0x00, 0x0A, 0x05, b'a']), K_U64.to_vec()].concat();
    assert!(!prost_accepts(&bytes));
    assert_eq!(
        decode3(&bytes),
        Err(DecodeError::invalid_value(
            6,
            "length past the end of the message",
            "5 bytes, 1 left"
        ))
    );
}

#[test]
fn a_displaced_string_member_must_be_utf8() {
    // k_inner (off the dense path), k_string = C3 28, then k_u64 wins.
    let bytes = [k_inner(&OFF_DENSE), k_string(&[0xC3, 0x28]), K_U64.to_vec()].concat();
    assert!(!prost_accepts(&bytes));
    // C3 is the first byte of k_string's text, at byte 8; '(' cannot
    // continue it.
    let want = DecodeError::InvalidUtf8(Box::new(InvalidUtf8 {
        offset: 8,
        bytes: vec![0xC3],
    }));
    assert_eq!(decode3(&bytes), Err(want));
}

#[test]
fn an_earlier_occurrence_of_the_surviving_member_is_read_too() {
    // k_inner { 9: 0, text: claims 5 }, k_u64, k_inner {}: k_inner
    // survives, but its first occurrence is still malformed.
    let bytes = [
        k_inner(&[0x48, 0x00, 0x0A, 0x05, b'a']),
        K_U64.to_vec(),
        k_inner(&[]),
    ]
    .concat();
    assert!(!prost_accepts(&bytes));
    assert_eq!(
        decode3(&bytes),
        Err(DecodeError::invalid_value(
            6,
            "length past the end of the message",
            "5 bytes, 1 left"
        ))
    );
    // Well formed, the same arrangement decodes as prost reads it: only
    // the occurrences after the last displaced member count.
    let bytes = [
        k_inner(&[0x48, 0x00, 0x10, 0x07]),
        K_U64.to_vec(),
        k_inner(&[0x10, 0x09]),
    ]
    .concat();
    let arena = Arena::new();
    let view = All3View::decode(&arena, &bytes).unwrap();
    let theirs = pb::test3::All3::decode(&bytes[..]).unwrap();
    assert_eq!(view.to_prost(), theirs);
    assert_eq!(view.k_inner().map(|i| i.n()), Some(9));
}

#[test]
fn a_displaced_member_deeper_than_the_limit_is_an_error() {
    // k_inner nests 120 levels of `next` (3) after the unknown field; prost's
    // and quarry's limit is 100.
    let mut body = vec![0x48, 0x00];
    let mut inner: Vec<u8> = Vec::new();
    for _ in 0..120 {
        let mut next = vec![0x1A];
        prost::encoding::encode_varint(inner.len() as u64, &mut next);
        next.extend_from_slice(&inner);
        inner = next;
    }
    body.extend_from_slice(&inner);
    let mut bytes = vec![0xEA, 0x03];
    prost::encoding::encode_varint(body.len() as u64, &mut bytes);
    bytes.extend_from_slice(&body);
    bytes.extend_from_slice(&K_U64);
    assert!(!prost_accepts(&bytes));
    assert!(matches!(
        decode3(&bytes),
        Err(DecodeError::DepthLimit { limit: 100, .. })
    ));
}

#[test]
fn the_whatsapp_input_the_fuzzer_found_is_an_error() {
    // Message { interactiveMessage (45) { shopStorefrontMessage (4) { 7: {},
    // 5: claims 64 bytes, has 0 }, collectionMessage {}, footer {},
    // carouselMessage {}, collectionMessage {} }, 2011: 40 }. ShopMessage is
    // a dense record, so its unknown field 7 sends it to the sparse path;
    // the shop member is displaced by the collection.
    let bytes = [
        234, 2, 14, 34, 4, 58, 0, 42, 64, 42, 0, 26, 0, 58, 0, 42, 0, 216, 253, 0, 40,
    ];
    assert!(pb::whatsapp::Message::decode(&bytes[..]).is_err());
    let arena = Arena::new();
    assert_eq!(
        wa::MessageView::decode(&arena, &bytes).map(|_| ()),
        Err(DecodeError::invalid_value(
            8,
            "length past the end of the message",
            "64 bytes, 0 left"
        ))
    );
}

/// One oneof member of `All3.kind` with a body of random bytes: the
/// string, message and bytes members take them as they are (often
/// malformed or not UTF-8), the varint members a one-byte value.
fn member() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let body = proptest::collection::vec(any::<u8>(), 0..6);
    prop_oneof![
        body.clone().prop_map(|b| k_string(&b)),
        body.clone().prop_map(|b| k_inner(&b)),
        body.clone()
            .prop_map(|b| k_inner(&[&OFF_DENSE[..], &b[..]].concat())),
        body.prop_map(|b| {
            let mut out = vec![0xFA, 0x03, b.len() as u8];
            out.extend_from_slice(&b);
            out
        }),
        (0u8..0x80).prop_map(|v| vec![0xF0, 0x03, v]),
        (0u8..0x80).prop_map(|v| vec![0x80, 0x04, v]),
    ]
}

/// `interactiveMessage` (field 45 of WhatsApp's `Message`, tag EA 02)
/// holding `body`.
fn interactive(body: &[u8]) -> Vec<u8> {
    let mut out = vec![0xEA, 0x02, body.len() as u8];
    out.extend_from_slice(body);
    out
}

#[test]
fn a_member_that_restarted_in_a_later_occurrence_drops_the_earlier_ones() {
    use pb::whatsapp::message::interactive_message::{InteractiveMessage, ShopMessage};
    // Three occurrences of one `InteractiveMessage`, merged: the first
    // sets the member `shopStorefrontMessage` (4) to `id: "x\ny"`; the
    // second sets `collectionMessage` (5), then `shopStorefrontMessage`
    // twice, empty (a narrow message of scalars: its two occurrences are
    // merged first); the third holds only field 14, which the schema does
    // not list. The member restarted in the second occurrence, so the
    // first one's `id` is gone: an empty `ShopMessage`.
    let bytes = [
        interactive(&[0x22, 0x05, 0x0A, 0x03, b'x', b'\n', b'y']),
        interactive(&[0x2A, 0x00, 0x22, 0x00, 0x22, 0x00]),
        interactive(&[0x70, 0x01]),
    ]
    .concat();
    let theirs = pb::whatsapp::Message::decode(&bytes[..]).unwrap();
    let member = theirs
        .interactive_message
        .as_ref()
        .and_then(|m| m.interactive_message.clone());
    assert_eq!(
        member,
        Some(InteractiveMessage::ShopStorefrontMessage(
            ShopMessage::default()
        ))
    );
    let arena = Arena::new();
    let ours = wa::MessageView::decode(&arena, &bytes).unwrap();
    assert_eq!(ours.to_prost(), theirs);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 2048,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Any run of oneof members, well formed or not: quarry accepts what
    /// prost accepts, and then reads the same message.
    #[test]
    fn runs_of_members_agree_with_prost(
        members in proptest::collection::vec(member(), 1..6),
    ) {
        let bytes = members.concat();
        let arena = Arena::new();
        let ours = All3View::decode(&arena, &bytes);
        let theirs = pb::test3::All3::decode(&bytes[..]);
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => proptest::prop_assert_eq!(ours.to_prost(), theirs),
            (Err(_), Err(_)) => {}
            (ours, theirs) => proptest::prop_assert!(
                false,
                "quarry {:?}, prost {:?} on {:02X?}",
                ours.map(|v| v.to_prost()),
                theirs,
                bytes
            ),
        }
    }
}
