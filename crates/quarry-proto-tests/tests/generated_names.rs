//! Generated views of `proto/names.proto`, whose names collide with what
//! generated code writes: enums named `Option`, `Result`, `Vec`, `String`,
//! `Box`, `Iterator`, `Self`…, and fields named after Rust keywords and the
//! views' own methods. That the crate compiles is half the test; this file
//! reads a hand-encoded input through the renamed getters (keywords raw or
//! with a `_`, method names with a `_`) and checks each value against the
//! input's bytes. Oneof enums whose generated name an enum of the schema
//! or another oneof has taken get a number (`PickerPickOneof2`,
//! `ClashABOneof2`).

use quarry_core::Arena;
use quarry_proto_tests::views::{
    quarry::names::ClashABOneof, quarry::names::ClashABOneof2, quarry::names::ClashAView,
    quarry::names::ClashView, quarry::names::KeywordsLoopOneof, quarry::names::KeywordsView,
    quarry::names::Option as OptionEnum, quarry::names::PickerPickOneof,
    quarry::names::PickerPickOneof2, quarry::names::PickerView,
    quarry::names::Result as ResultEnum, quarry::names::Self_,
};

/// Fields 1 to 13 set to their numbers, `option` (20) = 1, `results` (21)
/// packed [1, 0], and the oneof's `self_kind` (31) = 1.
fn input() -> Vec<u8> {
    let mut b: Vec<u8> = (1u8..=13).flat_map(|n| [n << 3, n]).collect();
    b.extend([0xA0, 0x01, 0x01]);
    b.extend([0xAA, 0x01, 0x02, 0x01, 0x00]);
    b.extend([0xF8, 0x01, 0x01]);
    b
}

#[test]
fn keyword_and_method_named_fields_read_through_renamed_getters() {
    let bytes = input();
    let arena = Arena::new();
    let v = KeywordsView::decode(&arena, &bytes).unwrap();
    let got = [
        v.r#type(),
        v.self_(),
        v.crate_(),
        v.r#async(),
        v.r#fn(),
        v.r#gen(),
        v.decode_(),
        v.encode_(),
        v.to_prost_(),
        v.from_record_(),
        v.unknown_fields_(),
        v.default_(),
        v.next(),
    ];
    assert_eq!(got, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    // The view's own methods keep their names.
    assert_eq!(v.encode().unwrap(), bytes);
    assert_eq!(v.unknown_fields().count(), 0);
}

#[test]
fn enums_named_after_std_types_read_as_themselves() {
    let bytes = input();
    let arena = Arena::new();
    let v = KeywordsView::decode(&arena, &bytes).unwrap();
    assert_eq!(v.option(), Ok(OptionEnum::One));
    assert_eq!(
        v.results().collect::<Vec<_>>(),
        [Ok(ResultEnum::One), Ok(ResultEnum::Zero)]
    );
    assert!(!v.has_maybe());
    assert_eq!(v.maybe(), Ok(ResultEnum::Zero));
    match v.r#loop() {
        Some(KeywordsLoopOneof::SelfKind(kind)) => assert_eq!(kind, Ok(Self_::One)),
        other => panic!("oneof `loop`: {other:?}"),
    }
}

#[test]
fn a_oneof_named_as_a_schema_enum_takes_a_number() {
    // `text` (2) = "hi", then `tag` (3) = 1.
    let bytes = [0x12, 0x02, b'h', b'i', 0x18, 0x01];
    let arena = Arena::new();
    let v = PickerView::decode(&arena, &bytes).unwrap();
    match v.pick() {
        Some(PickerPickOneof2::Text(t)) => assert_eq!(t, "hi"),
        other => panic!("oneof `pick`: {other:?}"),
    }
    // The schema's enum keeps its name.
    assert_eq!(v.tag(), Ok(PickerPickOneof::One));
}

#[test]
fn two_oneofs_of_one_flattened_name_are_told_apart_by_a_number() {
    // `Clash.a_b`'s `x` (1) = 7; `ClashA.b`'s `y` (1) = "yo".
    let arena = Arena::new();
    let first = [0x08, 0x07];
    match ClashView::decode(&arena, &first).unwrap().a_b() {
        Some(ClashABOneof::X(x)) => assert_eq!(x, 7),
        other => panic!("oneof `a_b`: {other:?}"),
    }
    let second = [0x0A, 0x02, b'y', b'o'];
    match ClashAView::decode(&arena, &second).unwrap().b() {
        Some(ClashABOneof2::Y(y)) => assert_eq!(y, "yo"),
        other => panic!("oneof `b`: {other:?}"),
    }
}
