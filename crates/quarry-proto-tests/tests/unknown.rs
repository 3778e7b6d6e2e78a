//! Unknown fields, closed enums, merging and groups, on hand-computed
//! vectors (tags worked out from the protobuf encoding spec).

use prost::Message as _;
use quarry_core::Arena;
use quarry_proto::UnknownField;
use quarry_proto_tests::views::{
    quarry::test2::All2ChoiceOneof, quarry::test2::All2View, quarry::test2::Color,
    quarry::test2::NestedView, quarry::test3::All3View, quarry::test3::Mood,
};
use quarry_proto_tests::{pb, views};

/// `f_required = 1` (field 21, varint): every All2 vector starts with it.
const REQUIRED: [u8; 3] = [0xA8, 0x01, 0x01];

#[test]
fn unknown_fields_of_every_wire_type_survive_a_round_trip() {
    // f_int32 = 150 (field 5), then unknown fields 1000..=1004.
    let mut bytes = vec![0x28, 0x96, 0x01];
    let unknown: &[u8] = &[
        0xC0, 0x3E, 0xAC, 0x02, // 1000 varint 300
        0xC9, 0x3E, 1, 2, 3, 4, 5, 6, 7, 8, // 1001 fixed64
        0xD2, 0x3E, 3, b'a', b'b', b'c', // 1002 bytes "abc"
        0xDB, 0x3E, 0x08, 0x05, 0xDC, 0x3E, // 1003 group { 1: 5 }
        0xE5, 0x3E, 9, 9, 9, 9, // 1004 fixed32
    ];
    bytes.extend_from_slice(unknown);
    let arena = Arena::new();
    let view = All3View::decode(&arena, &bytes).unwrap();
    assert_eq!(view.f_int32(), 150);
    let got: Vec<UnknownField<'_>> = view.unknown_fields().collect();
    assert_eq!(
        got,
        vec![
            UnknownField::Raw {
                tag: 8000,
                value: &[0xAC, 0x02]
            },
            UnknownField::Raw {
                tag: 8009,
                value: &[1, 2, 3, 4, 5, 6, 7, 8]
            },
            UnknownField::Raw {
                tag: 8018,
                value: b"abc"
            },
            UnknownField::Raw {
                tag: 8027,
                value: &[0x08, 0x05]
            },
            UnknownField::Raw {
                tag: 8037,
                value: &[9, 9, 9, 9]
            },
        ]
    );
    assert_eq!(view.encode().unwrap(), bytes);
    // prost drops them; the known part agrees.
    assert_eq!(
        pb::test3::All3::decode(&view.encode().unwrap()[..]).unwrap(),
        pb::test3::All3::decode(&bytes[..]).unwrap()
    );
}

#[test]
fn unknown_fields_keep_input_order_whatever_their_numbers() {
    // Unknown fields are stored with their number in the slot's field word
    // (the largest number, 2^29 - 1, included) and must come back in input
    // order, before or after the known fields, numbers rising or falling.
    let known: &[u8] = &[0x28, 0x96, 0x01]; // f_int32 = 150 (field 5)
    let u1004: &[u8] = &[0xE5, 0x3E, 9, 9, 9, 9]; // 1004 fixed32
    let u_max: &[u8] = &[0xF8, 0xFF, 0xFF, 0xFF, 0x0F, 0x01]; // 536870911 varint 1
    let u1000: &[u8] = &[0xC0, 0x3E, 0xAC, 0x02]; // 1000 varint 300
    let f1004 = UnknownField::Raw {
        tag: 8037,
        value: &[9, 9, 9, 9],
    };
    let f_max = UnknownField::Raw {
        tag: 0xFFFF_FFF8,
        value: &[0x01],
    };
    let f1000 = UnknownField::Raw {
        tag: 8000,
        value: &[0xAC, 0x02],
    };
    let cases: [(Vec<&[u8]>, Vec<UnknownField<'static>>); 6] = [
        // Falling numbers, one unknown field before the known one.
        (vec![u1004, known, u_max, u1000], vec![f1004, f_max, f1000]),
        // Rising numbers after the known field.
        (vec![known, u1000, u1004, u_max], vec![f1000, f1004, f_max]),
        // The same number twice around another.
        (vec![u1000, u_max, known, u1000], vec![f1000, f_max, f1000]),
        // Falling numbers after the known field.
        (vec![known, u_max, u1004, u1000], vec![f_max, f1004, f1000]),
        // The same number twice in a row after the known field.
        (vec![known, u1000, u1000], vec![f1000, f1000]),
        // One unknown field after the known one.
        (vec![known, u1004], vec![f1004]),
    ];
    for (parts, want) in cases {
        let bytes = parts.concat();
        let arena = Arena::new();
        let view = All3View::decode(&arena, &bytes).unwrap();
        assert_eq!(view.f_int32(), 150);
        assert_eq!(
            view.unknown_fields().collect::<Vec<_>>(),
            want,
            "{bytes:02x?}"
        );
        // Known fields are written first, then the unknown ones as read.
        let unknown: Vec<&[u8]> = parts.iter().copied().filter(|p| *p != known).collect();
        assert_eq!(view.encode().unwrap(), [known, &unknown.concat()].concat());
    }
}

#[test]
fn unknown_value_of_a_closed_enum_is_an_unknown_field() {
    // f_color (16) = 7, which Color does not list.
    let bytes = [&REQUIRED[..], &[0x80, 0x01, 0x07]].concat();
    let arena = Arena::new();
    let view = All2View::decode(&arena, &bytes).unwrap();
    assert!(!view.has_f_color());
    assert_eq!(view.f_color(), Color::Red);
    assert_eq!(
        view.unknown_fields().collect::<Vec<_>>(),
        vec![UnknownField::Raw {
            tag: 128,
            value: &[7]
        }]
    );
    assert_eq!(view.encode().unwrap(), bytes);
}

#[test]
fn unknown_values_of_a_packed_closed_enum_become_unknown_varints() {
    // r_color_packed (37) = [1, 9, 2]: 9 is not a Color.
    let bytes = [&REQUIRED[..], &[0xAA, 0x02, 0x03, 0x01, 0x09, 0x02]].concat();
    let arena = Arena::new();
    let view = All2View::decode(&arena, &bytes).unwrap();
    assert_eq!(
        view.r_color_packed().collect::<Vec<_>>(),
        vec![Color::Red, Color::Green]
    );
    assert_eq!(view.unknown_fields().count(), 1);
    // The listed values stay packed; 9 goes out as field 37, varint.
    assert_eq!(
        view.encode().unwrap(),
        [
            &REQUIRED[..],
            &[0xAA, 0x02, 0x02, 0x01, 0x02],
            &[0xA8, 0x02, 0x09]
        ]
        .concat()
    );
}

#[test]
fn unknown_value_of_an_open_enum_stays_in_the_field() {
    let bytes = [0x80, 0x01, 0x07]; // f_mood (16) = 7
    let arena = Arena::new();
    let view = All3View::decode(&arena, &bytes).unwrap();
    assert_eq!(view.f_mood(), Err(7));
    assert_eq!(view.unknown_fields().count(), 0);
    assert_eq!(view.to_json().unwrap(), r#"{"fMood":7}"#);
    assert_eq!(view.encode().unwrap(), bytes);
    let bytes = [0x80, 0x01, 0x02];
    let view = All3View::decode(&arena, &bytes).unwrap();
    assert_eq!(view.f_mood(), Ok(Mood::Sad));
    assert_eq!(view.to_json().unwrap(), r#"{"fMood":"MOOD_SAD"}"#);
}

#[test]
fn repeated_occurrences_of_a_message_field_merge() {
    // f_nested (17) {id: 1}, then f_nested {name: "x"}, then f_int32 twice.
    let bytes = [
        &REQUIRED[..],
        &[0x8A, 0x01, 0x02, 0x08, 0x01],
        &[0x28, 0x03, 0x28, 0x04],
        &[0x8A, 0x01, 0x03, 0x12, 0x01, b'x'],
    ]
    .concat();
    let arena = Arena::new();
    let view = All2View::decode(&arena, &bytes).unwrap();
    let nested: NestedView<'_> = view.f_nested().unwrap();
    assert_eq!((nested.id(), nested.name()), (1, "x"));
    assert_eq!(view.f_int32(), 4, "the last scalar wins");
    assert_eq!(
        view.to_prost(),
        pb::test2::All2::decode(&bytes[..]).unwrap()
    );
    // Re-encoded canonically: field-number order, one merged message.
    assert_eq!(
        view.encode().unwrap(),
        [
            &[0x28, 0x04][..],
            &[0x8A, 0x01, 0x05, 0x08, 0x01, 0x12, 0x01, b'x'],
            &REQUIRED[..]
        ]
        .concat()
    );
}

#[test]
fn a_oneof_keeps_its_last_member_and_only_its_later_occurrences() {
    // o_nested (72) {id: 1}; o_int (70) = 5; o_nested {name: "x"}.
    let bytes = [
        &REQUIRED[..],
        &[0xC2, 0x04, 0x02, 0x08, 0x01],
        &[0xB0, 0x04, 0x05],
        &[0xC2, 0x04, 0x03, 0x12, 0x01, b'x'],
    ]
    .concat();
    let arena = Arena::new();
    let view = All2View::decode(&arena, &bytes).unwrap();
    match view.choice() {
        Some(All2ChoiceOneof::ONested(n)) => {
            assert!(!n.has_id());
            assert_eq!(n.name(), "x");
        }
        other => panic!("{other:?}"),
    }
    assert!(!view.has_o_int());
    assert_eq!(
        view.to_prost(),
        pb::test2::All2::decode(&bytes[..]).unwrap()
    );
    // And a scalar member after a message member wins outright.
    let bytes = [
        &REQUIRED[..],
        &[0xC2, 0x04, 0x02, 0x08, 0x01],
        &[0xB0, 0x04, 0x05],
    ]
    .concat();
    let view = All2View::decode(&arena, &bytes).unwrap();
    assert!(matches!(view.choice(), Some(All2ChoiceOneof::OInt(5))));
    assert!(view.o_nested().is_none());
}

/// A message field written twice merges, and a oneof member that displaced
/// another inside the second occurrence starts afresh: its fields from the
/// first occurrence do not count (protobuf replaces the member when another
/// one is set between).
#[test]
fn a_oneof_reset_inside_one_occurrence_holds_across_the_merge() {
    // child (90) { k_inner (61) { n (2) = 1 } }
    // child (90) { k_u64 (64) = 5, k_inner (61) {} }
    let bytes = [
        &[0xD2, 0x05, 0x05, 0xEA, 0x03, 0x02, 0x10, 0x01][..],
        &[0xD2, 0x05, 0x06, 0x80, 0x04, 0x05, 0xEA, 0x03, 0x00],
    ]
    .concat();
    let prost_value = pb::test3::All3::decode(&bytes[..]).unwrap();
    let arena = Arena::new();
    let view = All3View::decode(&arena, &bytes).unwrap();
    let child = view.child().unwrap();
    match child.kind() {
        Some(views::quarry::test3::All3KindOneof::KInner(inner)) => assert_eq!(inner.n(), 0),
        other => panic!("{other:?}"),
    }
    assert_eq!(view.to_prost(), prost_value);
    // Without the displacing member the two occurrences merge: n stays 1.
    let bytes = [
        &[0xD2, 0x05, 0x05, 0xEA, 0x03, 0x02, 0x10, 0x01][..],
        &[0xD2, 0x05, 0x03, 0xEA, 0x03, 0x00],
    ]
    .concat();
    let view = All3View::decode(&arena, &bytes).unwrap();
    match view.child().unwrap().kind() {
        Some(views::quarry::test3::All3KindOneof::KInner(inner)) => assert_eq!(inner.n(), 1),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        view.to_prost(),
        pb::test3::All3::decode(&bytes[..]).unwrap()
    );
}

#[test]
fn groups_decode_and_re_encode() {
    // FGroup (18) { a (19) = 5 }, RGroup (41) twice.
    let bytes = [
        &[0x93, 0x01, 0x98, 0x01, 0x05, 0x94, 0x01][..],
        &REQUIRED[..],
        &[0xCB, 0x02, 0xD0, 0x02, 0x01, 0xCC, 0x02],
        &[0xCB, 0x02, 0xCC, 0x02],
    ]
    .concat();
    let arena = Arena::new();
    let view = All2View::decode(&arena, &bytes).unwrap();
    assert_eq!(view.fgroup().unwrap().a(), 5);
    let xs: Vec<i32> = view.rgroup().map(|g| g.x()).collect();
    assert_eq!(xs, vec![1, 0]);
    assert_eq!(
        view.to_prost(),
        pb::test2::All2::decode(&bytes[..]).unwrap()
    );
    assert_eq!(view.encode().unwrap(), bytes);
}

#[test]
fn proto2_defaults_apply_to_absent_fields() {
    let arena = Arena::new();
    let view = All2View::decode(&arena, &REQUIRED).unwrap();
    assert_eq!(view.d_int32(), -42);
    assert_eq!(view.d_string(), "hé\"llo");
    assert_eq!(view.d_bytes(), b"\x01\x02x");
    assert_eq!(view.d_double(), 1.5);
    assert_eq!(view.d_float(), f32::NEG_INFINITY);
    assert!(view.d_bool());
    assert_eq!(view.d_color(), Color::Blue);
    assert_eq!(view.d_uint64(), u64::MAX);
    assert_eq!(view.f_color(), Color::Red, "first value of a closed enum");
    assert!(!view.has_d_int32());
    assert!(view.f_nested().is_none());
    assert_eq!(view.far_field(), 0);
    // Present values override them, even when equal to the zero value.
    let bytes = [&REQUIRED[..], &[0xE0, 0x03, 0x00]].concat(); // d_int32 (60) = 0
    let view = All2View::decode(&arena, &bytes).unwrap();
    assert_eq!(view.d_int32(), 0);
    assert!(view.has_d_int32());
}

#[test]
fn maps_read_as_key_value_pairs() {
    // m_str_int (50): {"a": 1}, {"b": 2}; prost-encoded.
    let msg = pb::test2::All2 {
        f_required: 1,
        m_str_int: [("a".to_string(), 1), ("b".to_string(), 2)]
            .into_iter()
            .collect(),
        far_field: Some(-3),
        ..Default::default()
    };
    let bytes = msg.encode_to_vec();
    let arena = Arena::new();
    let view = views::quarry::test2::All2View::decode(&arena, &bytes).unwrap();
    let mut pairs: Vec<(&str, i32)> = view.m_str_int().collect();
    pairs.sort();
    assert_eq!(pairs, vec![("a", 1), ("b", 2)]);
    assert_eq!(view.far_field(), -3);
}

/// A map whose values are a closed enum: an entry whose value (its last
/// occurrence) the enum does not list is an unknown field of the map's
/// message, whole; an entry that ends with a listed value keeps it and
/// drops the earlier unlisted one. `protoc --decode` (libprotoc 35.1) shows
/// the same three map entries and two unknown entries for these bytes.
#[test]
fn map_entry_with_an_unlisted_closed_enum_value_is_an_unknown_field() {
    let e1: &[u8] = &[0x08, 1, 0x10, 1]; // {1: HIGH}
    let e2: &[u8] = &[0x08, 2, 0x10, 99]; // {2: 99}: unknown
    let e3: &[u8] = &[0x08, 3, 0x10, 1, 0x10, 99]; // {3: HIGH, then 99}: unknown
    let e4: &[u8] = &[0x08, 4, 0x10, 99, 0x10, 1]; // {4: 99, then HIGH}: HIGH
    let e5: &[u8] = &[0x08, 5]; // {5}: LOW
    // m_enum is field 53, length-delimited: tag 426 = 0xAA 0x03.
    let entry = |payload: &[u8]| [&[0xAA, 0x03, payload.len() as u8][..], payload].concat();
    let bytes = [
        REQUIRED.to_vec(),
        entry(e1),
        entry(e2),
        entry(e3),
        entry(e4),
        entry(e5),
    ]
    .concat();
    let arena = Arena::new();
    let view = All2View::decode(&arena, &bytes).unwrap();
    let map: Vec<(u32, views::quarry::test2::Level)> = view.m_enum().collect();
    assert_eq!(
        map,
        vec![
            (1, views::quarry::test2::Level::High),
            (4, views::quarry::test2::Level::High),
            (5, views::quarry::test2::Level::Low)
        ]
    );
    assert_eq!(
        view.unknown_fields().collect::<Vec<_>>(),
        vec![
            UnknownField::Raw {
                tag: 426,
                value: e2
            },
            UnknownField::Raw {
                tag: 426,
                value: e3
            },
        ]
    );
    // Known entries first (e4 without its dropped 99), then the unknown ones
    // as they came.
    let e4_kept: &[u8] = &[0x08, 4, 0x10, 1];
    let want = [
        REQUIRED.to_vec(),
        entry(e1),
        entry(e4_kept),
        entry(e5),
        entry(e2),
        entry(e3),
    ]
    .concat();
    assert_eq!(view.encode().unwrap(), want);
}
