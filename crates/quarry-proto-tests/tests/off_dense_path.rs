//! What a dense record cannot hold, at random.
//!
//! A singular message field set twice (protobuf merges the two), an
//! unknown field or a closed enum's unlisted value inside a dense record
//! end the dense read where they stand; the message goes on sparse, and
//! repeated message fields are merged when the root ends. These properties
//! cover those paths (`displaced_members.rs` covers oneof members) on `quarry.test2.Link` and `Point` (dense
//! records, the closed enum `Color`), against prost's decode of the same
//! bytes.
//!
//! A second property does the same on `quarry.test3.All3` (proto3, a
//! sparse record): `f_inner` and `child` twice, a oneof's message member
//! twice, map entries whose keys repeat, repeated messages, and `Inner`
//! (dense) bodies that leave the dense path themselves.
//!
//! Each input is a random sequence of fields, mixing well-formed ones with
//! malformed bodies (lengths past the end, invalid UTF-8, truncated
//! varints), so both the verdict and the value are compared.

use std::fmt::Debug;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use quarry_core::Arena;
use quarry_proto::UnknownField;
use quarry_proto_tests::pb::test2::{Link, Point};
use quarry_proto_tests::pb::test3::All3;
use quarry_proto_tests::views::{quarry::test2::LinkView, quarry::test3::All3View};

/// `tag` (its bytes) followed by `body` as a length-delimited field (the
/// length written by prost's varint encoder).
fn delimited(tag: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = tag.to_vec();
    prost::encoding::encode_varint(body.len() as u64, &mut out);
    out.extend_from_slice(body);
    out
}

/// A few bytes of anything: often a truncated or nonsensical field.
fn junk() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 1..4)
}

/// One field of a `Point` body. `Color` is closed: 1, 2 and 3 are listed,
/// 0, 4 and 5 are not (kept by quarry as unknown fields, which a dense
/// record cannot hold).
fn point_field() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (0u8..0x80).prop_map(|v| vec![0x08, v]),
        (0u8..0x80).prop_map(|v| vec![0x10, v]),
        // The label: UTF-8 or not.
        proptest::collection::vec(prop_oneof![Just(b'a'), Just(0xC3), Just(0x28)], 0..4)
            .prop_map(|s| delimited(&[0x1A], &s)),
        (0u8..6).prop_map(|v| vec![0x20, v]),
        any::<[u8; 4]>().prop_map(|m| [&[0xA5, 0x01][..], &m[..]].concat()),
        // Unknown fields: a varint (6) and a length-delimited one (7).
        (0u8..0x80).prop_map(|v| vec![0x30, v]),
        proptest::collection::vec(any::<u8>(), 0..3).prop_map(|b| delimited(&[0x3A], &b)),
        junk(),
    ]
}

fn point_body() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(point_field(), 0..5).prop_map(|f| f.concat())
}

/// A `Link` body: `value`, `next` (a link, so `next` twice merges two
/// links), `point` (twice merges two points), unknown fields and junk.
fn link_body() -> impl Strategy<Value = Vec<u8>> {
    let leaf = proptest::collection::vec(
        prop_oneof![
            (0u8..0x80).prop_map(|v| vec![0x08, v]),
            point_body().prop_map(|p| delimited(&[0x1A], &p)),
            (0u8..0x80).prop_map(|v| vec![0x20, v]),
        ],
        0..4,
    )
    .prop_map(|f| f.concat());
    leaf.prop_recursive(4, 64, 6, |inner| {
        proptest::collection::vec(
            prop_oneof![
                (0u8..0x80).prop_map(|v| vec![0x08, v]),
                inner.prop_map(|l| delimited(&[0x12], &l)),
                point_body().prop_map(|p| delimited(&[0x1A], &p)),
                (0u8..0x80).prop_map(|v| vec![0x20, v]),
                proptest::collection::vec(any::<u8>(), 0..3).prop_map(|b| delimited(&[0x2A], &b)),
                junk(),
            ],
            0..6,
        )
        .prop_map(|f| f.concat())
    })
}

/// An `Inner` body (proto3, dense): `text`, `n`, `next` (so `next` twice
/// merges), an unknown field (9) and junk.
fn inner_body() -> impl Strategy<Value = Vec<u8>> {
    let field = || {
        prop_oneof![
            proptest::collection::vec(prop_oneof![Just(b'z'), Just(0xFF)], 0..3)
                .prop_map(|t| delimited(&[0x0A], &t)),
            (0u8..0x80).prop_map(|v| vec![0x10, v]),
            (0u8..0x80).prop_map(|v| vec![0x48, v]),
            junk(),
        ]
    };
    let leaf = proptest::collection::vec(field(), 0..3).prop_map(|f| f.concat());
    leaf.prop_recursive(3, 24, 4, move |inner| {
        proptest::collection::vec(
            prop_oneof![field(), inner.prop_map(|b| delimited(&[0x1A], &b))],
            0..4,
        )
        .prop_map(|f| f.concat())
    })
}

/// One field of an `All3` body. The keys of `m_inner` entries are drawn
/// from three values, so they often repeat (the last entry wins).
fn all3_field() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        inner_body().prop_map(|b| delimited(&[0x8A, 0x01], &b)),
        inner_body().prop_map(|b| delimited(&[0xEA, 0x03], &b)),
        inner_body().prop_map(|b| delimited(&[0x82, 0x03], &b)),
        (0u8..3, inner_body()).prop_map(|(k, b)| {
            let entry = [vec![0x08, k], delimited(&[0x12], &b)].concat();
            delimited(&[0x9A, 0x03], &entry)
        }),
        // `child`: a small All3 of its own.
        (0u8..0x80, inner_body()).prop_map(|(v, b)| {
            let body = [vec![0x28, v], delimited(&[0x8A, 0x01], &b)].concat();
            delimited(&[0xD2, 0x05], &body)
        }),
        proptest::collection::vec(any::<u8>(), 0..3).prop_map(|b| delimited(&[0xE2, 0x03], &b)),
        (0u8..0x80).prop_map(|v| vec![0x28, v]),
        (0u8..0x80).prop_map(|v| vec![0x98, 0x06, v]),
        junk(),
    ]
}

/// Whether prost's message holds a closed enum's unlisted value, the one
/// documented difference (quarry keeps it as an unknown field; prost
/// stores it in the field; docs/protobuf.md).
fn holds_unlisted_color(link: &Link) -> bool {
    let unlisted = |p: &Point| p.color.is_some_and(|c| !(1..=3).contains(&c));
    link.point.as_ref().is_some_and(unlisted)
        || link.next.as_deref().is_some_and(holds_unlisted_color)
}

/// Whether quarry kept a closed enum's unlisted value as an unknown field
/// of a `Point`. Re-encoded, it follows the known fields, so prost, which
/// stores any value in the field, reads it last; protobuf's own runtimes
/// read it as unknown again and keep the listed value.
fn keeps_unlisted_color(link: LinkView<'_>) -> bool {
    link.point().is_some_and(|p| {
        p.unknown_fields()
            .any(|u| matches!(u, UnknownField::Raw { tag, .. } if tag >> 3 == 4))
    }) || link.next().is_some_and(keeps_unlisted_color)
}

/// The failure when one side accepts what the other rejects: both results
/// and the input.
fn verdicts_differ<T: Debug, E: Debug, F: Debug>(
    ours: Result<T, E>,
    theirs: Result<T, F>,
    bytes: &[u8],
) -> TestCaseError {
    TestCaseError::fail(format!("quarry {ours:?}, prost {theirs:?} on {bytes:02X?}"))
}

proptest::proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2048,
        ..ProptestConfig::default()
    })]

    /// Any sequence of `Link` fields, nested links and points included:
    /// quarry accepts exactly what prost accepts and reads the same
    /// message; its re-encoding decodes (with quarry, and with prost where
    /// no unlisted value was kept) to that message again.
    #[test]
    fn every_dense_exit_agrees_with_prost(bytes in link_body()) {
        let arena = Arena::new();
        let ours = LinkView::decode(&arena, &bytes);
        let theirs = <Link as prost::Message>::decode(&bytes[..]);
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => {
                let encoded = ours.encode().unwrap();
                let again = Arena::new();
                let again = LinkView::decode(&again, &encoded);
                prop_assert_eq!(again.map(|v| v.to_prost()).ok(), Some(ours.to_prost()));
                if !holds_unlisted_color(&theirs) {
                    prop_assert_eq!(ours.to_prost(), theirs.clone());
                }
                if !keeps_unlisted_color(ours) {
                    let by_prost = <Link as prost::Message>::decode(&encoded[..]);
                    prop_assert_eq!(by_prost.ok(), Some(theirs));
                }
            }
            (Err(_), Err(_)) => {}
            (ours, theirs) => return Err(verdicts_differ(ours.map(|v| v.to_prost()), theirs, &bytes)),
        }
    }

    /// Any sequence of `All3` fields of the kinds that merge or leave the
    /// dense path:
    /// quarry accepts exactly what prost accepts, reads the same message,
    /// and its re-encoding decodes with prost to that message again.
    #[test]
    fn every_proto3_merge_agrees_with_prost(
        fields in proptest::collection::vec(all3_field(), 0..6),
    ) {
        let bytes = fields.concat();
        let arena = Arena::new();
        let ours = All3View::decode(&arena, &bytes);
        let theirs = <All3 as prost::Message>::decode(&bytes[..]);
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => {
                prop_assert_eq!(ours.to_prost(), theirs.clone());
                let by_prost = <All3 as prost::Message>::decode(&ours.encode().unwrap()[..]);
                prop_assert_eq!(by_prost.ok(), Some(theirs));
            }
            (Err(_), Err(_)) => {}
            (ours, theirs) => return Err(verdicts_differ(ours.map(|v| v.to_prost()), theirs, &bytes)),
        }
    }
}
