//! The nesting limit at its edge, held to prost's verdict on the same
//! bytes (both at their default of 100 levels).
//!
//! prost counts a level for every nested message, map entry and group,
//! known or unknown, and checks it when it reads a field of that level
//! that is not a plain known value: a nested message, a map entry, a
//! group, or any unknown field (even a varint). So a message 100 levels
//! below the root may hold known scalars and strings but no unknown field,
//! and 100 unknown groups may nest inside the root as long as the
//! innermost is empty. Every input is decoded as it is and behind a repeated
//! singular message field at the root, which the decoder merges when the
//! root ends (the merge walks the whole nesting again).

use prost::Message as _;
use quarry_core::{Arena, DecodeError};
use quarry_proto_tests::pb;
use quarry_proto_tests::views::{
    quarry::test2::All2View, quarry::test3::All3View, quarry::test3::InnerView,
};

/// `tag`, the varint length of `body`, `body`.
fn field(tag: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = tag.to_vec();
    prost::encoding::encode_varint(body.len() as u64, &mut out);
    out.extend_from_slice(body);
    out
}

/// `levels` nested `Inner.next` fields (tag 0x1A) around `innermost`.
fn inner_chain(levels: usize, innermost: &[u8]) -> Vec<u8> {
    let mut bytes = innermost.to_vec();
    for _ in 0..levels {
        bytes = field(&[0x1A], &bytes);
    }
    bytes
}

/// `k` unknown groups of field 11 (start 0x5B, end 0x5C) around `body`.
fn unknown_groups(k: usize, body: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0x5B; k];
    bytes.extend_from_slice(body);
    bytes.extend(std::iter::repeat_n(0x5C, k));
    bytes
}

/// An unknown varint field (field 9) and a known scalar of `Inner` (n = 1).
const UNKNOWN_VARINT: [u8; 2] = [0x48, 0x01];
const KNOWN_SCALAR: [u8; 2] = [0x10, 0x01];

/// The same message with an empty `next` in front: `next` twice, which
/// the decoder merges (as prost does).
fn through_merging(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1A, 0x00];
    out.extend_from_slice(bytes);
    out
}

fn verdicts<P: prost::Message + Default>(
    decode: impl Fn(&Arena, &[u8]) -> Result<(), DecodeError>,
    bytes: &[u8],
) -> (Result<(), DecodeError>, bool) {
    let arena = Arena::new();
    (decode(&arena, bytes), P::decode(bytes).is_ok())
}

/// quarry accepts exactly when prost does; a refusal is the depth limit.
#[track_caller]
fn agree<P: prost::Message + Default>(
    what: &str,
    decode: impl Fn(&Arena, &[u8]) -> Result<(), DecodeError>,
    bytes: &[u8],
) {
    let (ours, theirs) = verdicts::<P>(&decode, bytes);
    match ours {
        Ok(()) => assert!(theirs, "{what}: quarry accepts, prost rejects"),
        Err(e) => {
            assert!(!theirs, "{what}: quarry rejects ({e}), prost accepts");
            assert!(
                matches!(e, DecodeError::DepthLimit { limit: 100, .. }),
                "{what}: {e}"
            );
        }
    }
}

fn inner(arena: &Arena, bytes: &[u8]) -> Result<(), DecodeError> {
    InnerView::decode(arena, bytes).map(|_| ())
}

/// Both decoders of `Inner` on `bytes`.
#[track_caller]
fn agree_inner(what: &str, bytes: &[u8]) {
    agree::<pb::test3::Inner>(what, inner, bytes);
    agree::<pb::test3::Inner>(&format!("{what}, merging"), inner, &through_merging(bytes));
}

#[test]
fn the_deepest_message_holds_known_scalars_but_no_unknown_field() {
    for levels in [98, 99, 100, 101] {
        agree_inner(
            &format!("{levels} levels, empty"),
            &inner_chain(levels, &[]),
        );
        agree_inner(
            &format!("{levels} levels, a known scalar"),
            &inner_chain(levels, &KNOWN_SCALAR),
        );
        agree_inner(
            &format!("{levels} levels, an unknown varint"),
            &inner_chain(levels, &UNKNOWN_VARINT),
        );
    }
    // The edges themselves, as prost has them.
    assert!(pb::test3::Inner::decode(&inner_chain(100, &KNOWN_SCALAR)[..]).is_ok());
    assert!(pb::test3::Inner::decode(&inner_chain(100, &UNKNOWN_VARINT)[..]).is_err());
    assert!(pb::test3::Inner::decode(&inner_chain(99, &UNKNOWN_VARINT)[..]).is_ok());
}

#[test]
fn unknown_groups_count_a_level_each() {
    for levels in [0, 1, 50, 98, 99, 100] {
        for k in (98 - levels.min(98))..=(101 - levels.min(101)) {
            for (body, name) in [(&[][..], "empty"), (&UNKNOWN_VARINT[..], "a varint")] {
                let bytes = inner_chain(levels, &unknown_groups(k, body));
                agree_inner(&format!("{levels} levels, {k} groups, {name}"), &bytes);
            }
        }
    }
    // The edges at the root, as prost has them.
    assert!(pb::test3::Inner::decode(&unknown_groups(100, &[])[..]).is_ok());
    assert!(pb::test3::Inner::decode(&unknown_groups(101, &[])[..]).is_err());
    assert!(pb::test3::Inner::decode(&unknown_groups(99, &UNKNOWN_VARINT)[..]).is_ok());
    assert!(pb::test3::Inner::decode(&unknown_groups(100, &UNKNOWN_VARINT)[..]).is_err());
}

#[test]
fn map_entries_count_a_level() {
    fn all3(arena: &Arena, bytes: &[u8]) -> Result<(), DecodeError> {
        All3View::decode(arena, bytes).map(|_| ())
    }
    // `All3.m_inner` (field 51, tag 0x9A 0x03; map<sint64, Inner>): the
    // entry is level 1, its `Inner` value (entry field 2) level 2, and
    // `levels` more below that.
    for levels in [96, 97, 98, 99] {
        for innermost in [&[][..], &KNOWN_SCALAR[..], &UNKNOWN_VARINT[..]] {
            let mut entry = vec![0x08, 0x02];
            entry.extend(field(&[0x12], &inner_chain(levels, innermost)));
            let bytes = field(&[0x9A, 0x03], &entry);
            agree::<pb::test3::All3>(&format!("map value, {levels} levels"), all3, &bytes);
        }
    }
    // Unknown groups inside the entry count from it.
    for k in [97, 98, 99, 100] {
        for body in [&[][..], &UNKNOWN_VARINT[..]] {
            let mut entry = vec![0x08, 0x02];
            entry.extend(unknown_groups(k, body));
            let bytes = field(&[0x9A, 0x03], &entry);
            agree::<pb::test3::All3>(&format!("map entry, {k} groups"), all3, &bytes);
        }
    }
}

#[test]
fn groups_inside_a_known_group_count_from_it() {
    fn all2(arena: &Arena, bytes: &[u8]) -> Result<(), DecodeError> {
        All2View::decode(arena, bytes).map(|_| ())
    }
    // `All2.FGroup` (field 18: start 0x93 0x01, end 0x94 0x01) around `k`
    // unknown groups, and the required field `f_required` (21) set.
    for k in [97, 98, 99, 100] {
        for body in [&[][..], &UNKNOWN_VARINT[..]] {
            let mut bytes = vec![0xA8, 0x01, 0x01, 0x93, 0x01];
            bytes.extend(unknown_groups(k, body));
            bytes.extend([0x94, 0x01]);
            agree::<pb::test2::All2>(&format!("FGroup around {k} groups"), all2, &bytes);
        }
    }
}
