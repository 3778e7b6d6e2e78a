//! Ids, keys and signatures must be exactly 64/64/128 hex digits: bad
//! digits, short and long strings (rust-nostr silently truncates a long
//! one) and bech32 (rust-nostr accepts `note1…`/`npub1…`) are rejected.

mod common;

use common::{edit, malformed, must_fail};

#[test]
fn bad_digits_wrong_lengths_and_bech32_are_rejected_at_the_value() {
    let json = common::valid_event();
    let ev = common::shape(4, 0);
    let id = ev.id.to_hex();
    let pk = ev.pubkey.to_hex();
    let sig = ev.sig.to_string();
    let cases = [
        (
            format!("\"{id}\""),
            format!("\"{}g\"", &id[..63]),
            "id must be 64 hex digits",
        ),
        (
            format!("\"{id}\""),
            format!("\"{}\"", &id[..62]),
            "id must be 64 hex digits",
        ),
        (
            format!("\"{id}\""),
            format!("\"{id}00\""),
            "id must be 64 hex digits",
        ),
        (
            format!("\"{id}\""),
            "\"note1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq\"".to_string(),
            "id must be 64 hex digits",
        ),
        (
            format!("\"{pk}\""),
            format!("\"{pk}0\""),
            "pubkey must be 64 hex digits",
        ),
        (
            format!("\"{pk}\""),
            "\"npub1sn0wdenkukak0d9dfczzeacvhkrgz92ak56egt7vdgzn8pv2wfqqhrjdv9\"".to_string(),
            "pubkey must be 64 hex digits",
        ),
        (
            format!("\"{pk}\""),
            format!("\"nostr:{pk}\""),
            "pubkey must be 64 hex digits",
        ),
        (
            format!("\"{sig}\""),
            format!("\"{sig}00\""),
            "sig must be 128 hex digits",
        ),
        (
            format!("\"{sig}\""),
            format!("\"{}\"", &sig[..126]),
            "sig must be 128 hex digits",
        ),
        (
            format!("\"{sig}\""),
            format!("\"{} \"", &sig[..127]),
            "sig must be 128 hex digits",
        ),
    ];
    for (from, to, what) in cases {
        let bad = edit(&json, &from, &to);
        let at = bad.find(&to).unwrap();
        let e = must_fail(bad.as_bytes());
        assert_eq!(malformed(&e), (what, at), "{to}");
    }
}

#[test]
fn non_strings_where_hex_belongs_are_rejected() {
    let json = common::valid_event();
    let id = common::shape(4, 0).id.to_hex();
    for to in ["null", "123", "[]"] {
        let bad = edit(&json, &format!("\"{id}\""), to);
        let at = bad.find(&format!("\"id\":{to}")).unwrap() + 5;
        let e = must_fail(bad.as_bytes());
        assert_eq!(e.offset(), at, "{to}: {e}");
    }
}

#[test]
fn upper_case_hex_is_accepted_and_the_id_still_checks() {
    // NIP-01 says lower case; rust-nostr accepts upper case and so do we.
    // The id preimage writes the pubkey in lower case, so the id matches.
    let json = common::valid_event();
    let ev = common::shape(4, 0);
    let up = json
        .replace(&ev.id.to_hex(), &ev.id.to_hex().to_uppercase())
        .replace(&ev.pubkey.to_hex(), &ev.pubkey.to_hex().to_uppercase());
    let arena = quarry_core::Arena::new();
    let ours = quarry_nostr::decode_event(&arena, up.as_bytes()).unwrap();
    assert_eq!(ours.id(), ev.id.as_bytes());
    assert_eq!(ours.id_valid(), Some(true));
}

#[test]
fn ok_message_event_id_must_be_hex() {
    let bad = r#"["OK","zz","#.to_string() + &"ab".repeat(31) + r#"",true,""]"#;
    let arena = quarry_core::Arena::new();
    let e = quarry_nostr::decode_relay_message(&arena, bad.as_bytes()).unwrap_err();
    assert_eq!(malformed(&e), ("event id must be 64 hex digits", 6));
}

#[test]
fn tag_ids_are_decoded_only_when_they_are_64_hex_digits() {
    let arena = quarry_core::Arena::new();
    let json = common::valid_event();
    let ev = quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap();
    let e = ev.tags().first("e").unwrap();
    assert_eq!(e.as_id(1), Some([1u8; 32]));
    assert_eq!(e.as_id(2), None); // the relay url
    assert_eq!(e.as_id(9), None);
    let t = ev.tags().first("t").unwrap();
    assert_eq!(t.as_id(1), None);
}
