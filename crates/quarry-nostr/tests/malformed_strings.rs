//! The string grammar: lone surrogates, raw control characters, invalid
//! UTF-8, a BOM and bad escapes are rejected where they stand.

mod common;

use common::{edit, malformed, must_fail};
use quarry_core::{Arena, DecodeError, InvalidUtf8};

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

/// The error for invalid UTF-8 at `offset` whose offending sequence is
/// `bytes`.
fn bad_utf8(offset: usize, bytes: &[u8]) -> DecodeError {
    DecodeError::InvalidUtf8(Box::new(InvalidUtf8 {
        offset,
        bytes: bytes.to_vec(),
    }))
}

#[test]
fn invalid_utf8_is_rejected_at_its_first_byte() {
    let json = common::valid_event();
    let at = json.find("agreed").unwrap();
    // Inserted bytes and the sequence the error names: UTF-8's maximal
    // subparts (a lead byte with the continuations that fit it, before the
    // letter 'a' that follows).
    for (bad_bytes, named) in [
        (&[0xFFu8][..], &[0xFFu8][..]),
        (&[0xC3], &[0xC3]),
        (&[0xE2, 0x82], &[0xE2, 0x82]),
        (&[0xED, 0xA0, 0x80], &[0xED]),
        (&[0xC0, 0xAF], &[0xC0]),
    ] {
        let mut bad = json.as_bytes().to_vec();
        bad.splice(at..at, bad_bytes.iter().copied());
        assert_eq!(must_fail(&bad), bad_utf8(at, named), "{bad_bytes:x?}");
    }
}

#[test]
fn invalid_utf8_names_its_bytes_and_offset_in_the_message() {
    // Content starting "a", C3 (a two-byte lead), "(b": C3 is one byte
    // past the content's opening quote.
    let (json, at) = content_with("a");
    let lead = at + 1;
    let mut bytes = json.into_bytes();
    bytes.splice(lead..lead, [0xC3, b'(', b'b']);
    let e = must_fail(&bytes);
    assert_eq!(e, bad_utf8(lead, &[0xC3]));
    assert_eq!(
        e.to_string(),
        format!("invalid UTF-8: bytes [c3] at byte {lead}")
    );

    // A subscription id: `["CLOSE","a` is 11 bytes, so E2 82 (a
    // three-byte lead and one continuation, then '(') is at byte 11.
    let arena = Arena::new();
    let close = b"[\"CLOSE\",\"a\xE2\x82(\"]";
    let e = quarry_nostr::decode_client_message(&arena, close).unwrap_err();
    assert_eq!(e, bad_utf8(11, &[0xE2, 0x82]));
    assert_eq!(e.to_string(), "invalid UTF-8: bytes [e2 82] at byte 11");

    // A structural error before it (a number where the id must be) does
    // not hide it: the input's first invalid byte is reported.
    let close = b"[\"CLOSE\",1,\"\xFF\"]";
    let e = quarry_nostr::decode_client_message(&arena, close).unwrap_err();
    assert_eq!(e.to_string(), "invalid UTF-8: bytes [ff] at byte 12");
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
