//! `kind` must be an integer in 0..=65535 and `created_at` a non-negative
//! integer that fits u64: negatives, floats, exponents, strings, leading
//! zeros and overflow are rejected at the value.

mod common;

use common::{edit, malformed, must_fail};

#[test]
fn bad_kinds_are_rejected() {
    let json = common::valid_event();
    for to in [
        "65536",
        "70000",
        "-1",
        "1.0",
        "1e3",
        "1E3",
        "99999999999999999999999",
    ] {
        let bad = edit(&json, "\"kind\":1,", &format!("\"kind\":{to},"));
        let at = bad.find("\"kind\":").unwrap() + 7;
        let e = must_fail(bad.as_bytes());
        assert_eq!(
            malformed(&e),
            ("kind must be an integer in 0..=65535", at),
            "{to}"
        );
    }
    for to in ["\"1\"", "null", "true", "[1]", "+1", ".5"] {
        let bad = edit(&json, "\"kind\":1,", &format!("\"kind\":{to},"));
        let at = bad.find("\"kind\":").unwrap() + 7;
        let e = must_fail(bad.as_bytes());
        assert_eq!(e.offset(), at, "{to}: {e}");
    }
    let bad = edit(&json, "\"kind\":1,", "\"kind\":01,");
    let at = bad.find("\"kind\":").unwrap() + 7;
    assert_eq!(
        malformed(&must_fail(bad.as_bytes())),
        ("leading zero in number", at)
    );
}

#[test]
fn bad_timestamps_are_rejected() {
    let json = common::valid_event();
    let ts = format!(
        "\"created_at\":{},",
        common::shape(4, 0).created_at.as_secs()
    );
    let what = "created_at must be an integer in 0..2^64";
    for to in [
        "-1",
        "1.5",
        "1745000000.0",
        "1.745e9",
        "100000000000000000000",
        "18446744073709551616",
    ] {
        let bad = edit(&json, &ts, &format!("\"created_at\":{to},"));
        let at = bad.find("\"created_at\":").unwrap() + 13;
        assert_eq!(malformed(&must_fail(bad.as_bytes())), (what, at), "{to}");
    }
}

#[test]
fn extreme_valid_numbers_are_accepted() {
    // kind 65535 and created_at u64::MAX are valid (nostrdb truncates the
    // latter to 32 bits when hashing; we hash the full number).
    let keys = common::keys(3);
    let ev = common::sign(&keys, u64::MAX, 65535, &[], "max");
    let arena = quarry_core::Arena::new();
    let json = ev.as_json();
    let ours = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
    assert_eq!((ours.kind(), ours.created_at()), (65535, u64::MAX));
    assert_eq!(ours.id_valid(), Some(true));
}
