//! The string grammar: lone surrogates, raw control characters, invalid
//! UTF-8, a BOM and bad escapes are rejected where they stand.

mod common;

use common::{edit, malformed, must_fail};
use quarry_core::DecodeError;

fn content_with(raw: &str) -> (String, usize) {
    let json = common::valid_event();
    let at = json.find("\"content\":\"").unwrap() + 11;
    (
        edit(&json, "\"content\":\"", &format!("\"content\":\"{raw}")),
        at,
    )
}

#[test]
fn lone_surrogates_are_rejected() {
    for (raw, what) in [
        ("\\ud83d", "lone high surrogate escape"),
        ("\\ud83dx", "lone high surrogate escape"),
        ("\\ud83d\\u0041", "lone high surrogate escape"),
        ("\\ud83d\\ud83d", "lone high surrogate escape"),
        ("\\ude00", "lone low surrogate escape"),
        ("\\uDE00\\ud83d", "lone low surrogate escape"),
    ] {
        let (bad, at) = content_with(raw);
        assert_eq!(malformed(&must_fail(bad.as_bytes())), (what, at), "{raw}");
    }
}

#[test]
fn raw_control_characters_are_rejected() {
    for c in (0u8..0x20).map(char::from) {
        let (bad, at) = content_with(&c.to_string());
        let e = must_fail(bad.as_bytes());
        assert_eq!(
            malformed(&e),
            ("raw control character in string", at),
            "{c:?}"
        );
    }
    // Also inside a tag element and a key.
    let json = common::valid_event();
    let bad = edit(&json, "[\"t\",\"nostr\"]", "[\"t\",\"no\tstr\"]");
    let at = bad.find("no\tstr").unwrap() + 2;
    assert_eq!(malformed(&must_fail(bad.as_bytes())).1, at);
}

#[test]
fn bad_escapes_are_rejected() {
    for (raw, what, delta) in [
        ("\\x", "invalid escape sequence", 0),
        ("\\'", "invalid escape sequence", 0),
        ("\\u12g4", "invalid hex digit in \\u escape", 4),
        ("\\U0041", "invalid escape sequence", 0),
    ] {
        let (bad, at) = content_with(raw);
        assert_eq!(
            malformed(&must_fail(bad.as_bytes())),
            (what, at + delta),
            "{raw}"
        );
    }
}

#[test]
fn invalid_utf8_is_rejected_at_its_first_byte() {
    let json = common::valid_event();
    let at = json.find("agreed").unwrap();
    for bad_bytes in [
        &[0xFFu8][..],
        &[0xC3],
        &[0xE2, 0x82],
        &[0xED, 0xA0, 0x80],
        &[0xC0, 0xAF],
    ] {
        let mut bad = json.as_bytes().to_vec();
        bad.splice(at..at, bad_bytes.iter().copied());
        assert_eq!(
            must_fail(&bad),
            DecodeError::InvalidUtf8 { offset: at },
            "{bad_bytes:x?}"
        );
    }
}

#[test]
fn a_byte_order_mark_is_rejected() {
    let json = format!("\u{FEFF}{}", common::valid_event());
    let e = must_fail(json.as_bytes());
    assert_eq!(e.offset(), 0, "{e}");
}

#[test]
fn every_valid_escape_decodes() {
    // Escapes whose values are plain text: the decoded content is what the
    // escapes say (rust-nostr must agree; the id check then fails because
    // the id was computed for the original content, so use Report).
    let (json, _) = content_with(r#"\"\\\/\b\f\n\r\t\u0041\u00e9\u00E9\ud83e\udd80\u0000"#);
    let arena = quarry_core::Arena::new();
    let d = quarry_nostr::Decoder {
        id_check: quarry_nostr::IdCheck::Report,
        ..Default::default()
    };
    let ev = d.decode_event(&arena, json.as_bytes()).unwrap();
    let theirs = nostr::event::Event::from_json(&json).unwrap();
    assert_eq!(ev.content(), theirs.content);
    assert!(
        ev.content()
            .starts_with("\"\\/\u{8}\u{c}\n\r\tA\u{e9}\u{e9}\u{1F980}\u{0}")
    );
    assert_eq!(ev.id_valid(), Some(false));
}
