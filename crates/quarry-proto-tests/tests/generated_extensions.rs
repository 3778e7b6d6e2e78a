//! Extensions in generated views: `proto/odd2.proto` extends `Odd` at file
//! scope (`ext_int` = 1000 …) and inside `Holder` (`held_bytes` = 1500,
//! `held` = 1501). Each extension gets a getter named after it (and a
//! `has_` method where it has presence), reads as a declared field does,
//! and is not an unknown field. Inputs are encoded by hand.

use quarry_core::Arena;
use quarry_proto_tests::views::{quarry::odd2::OddView, quarry::odd2::Sign};

/// Declared `foo_bar` (1) = 3, then extensions in number order:
/// `ext_int` = 7, `ext_strings` = ["a", "bc"], `ext_inner` = {req: 5},
/// `ext_packed` = [1, -1] (zigzag 2, 1), `held_bytes` = "xy", `held` =
/// {name: "h"}.
fn input() -> Vec<u8> {
    let mut b = vec![0x08, 0x03];
    b.extend([0xC0, 0x3E, 0x07]); // 1000 << 3 | 0
    b.extend([0xCA, 0x3E, 0x01, b'a']); // 1001 << 3 | 2
    b.extend([0xCA, 0x3E, 0x02, b'b', b'c']);
    b.extend([0xD2, 0x3E, 0x02, 0x08, 0x05]); // 1002 << 3 | 2
    b.extend([0xE2, 0x3E, 0x02, 0x02, 0x01]); // 1004 << 3 | 2, packed
    b.extend([0xE2, 0x5D, 0x02, b'x', b'y']); // 1500 << 3 | 2
    b.extend([0xEA, 0x5D, 0x03, 0x0A, 0x01, b'h']); // 1501 << 3 | 2
    b
}

#[test]
fn extensions_read_through_their_own_getters() {
    let bytes = input();
    let arena = Arena::new();
    let v = OddView::decode(&arena, &bytes).unwrap();
    assert_eq!(v.foo_bar(), 3);
    assert!(v.has_ext_int());
    assert_eq!(v.ext_int(), 7);
    assert_eq!(v.ext_strings(), ["a", "bc"]);
    assert_eq!(v.ext_inner().map(|i| i.req()), Some(5));
    assert!(!v.has_ext_sign());
    assert_eq!(v.ext_sign(), Sign::Neg); // Sign's first value
    assert_eq!(v.ext_packed().collect::<Vec<_>>(), [1, -1]);
    assert!(v.has_held_bytes());
    assert_eq!(v.held_bytes(), b"xy");
    assert_eq!(v.held().map(|h| h.name()), Some("h"));
    assert_eq!(v.unknown_fields().count(), 0);
    assert_eq!(v.encode().unwrap(), bytes);
}

#[test]
fn extensions_print_under_their_bracketed_names() {
    let bytes = input();
    let arena = Arena::new();
    let v = OddView::decode(&arena, &bytes).unwrap();
    assert_eq!(
        v.to_json().unwrap(),
        "{\"fooBar\":3,\"[quarry.odd2.ext_int]\":7,\"[quarry.odd2.ext_strings]\":[\"a\",\"bc\"],\
         \"[quarry.odd2.ext_inner]\":{\"req\":5},\"[quarry.odd2.ext_packed]\":[1,-1],\
         \"[quarry.odd2.Holder.held_bytes]\":\"eHk=\",\"[quarry.odd2.Holder.held]\":{\"name\":\"h\"}}"
    );
}
