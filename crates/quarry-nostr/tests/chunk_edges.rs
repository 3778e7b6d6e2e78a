//! The string and hex fast paths read 16 bytes at a time: escapes,
//! non-ASCII characters, raw control characters, bad hex digits and
//! truncation at every offset across the 8- and 16-byte chunk edges decode
//! (or fail) as serde_json and the byte-at-a-time grammar say.

mod common;

use quarry_core::{Arena, DecodeError};
use quarry_nostr::{Decoder, IdCheck};

const SKIP: Decoder = Decoder {
    id_check: IdCheck::Skip,
    ..Decoder::new()
};

/// Escapes and characters placed at each offset.
const PIECES: [&str; 11] = [
    "\\\"",
    "\\\\",
    "\\/",
    "\\n",
    "\\t",
    "\\b\\f\\r",
    "\\u00e9",
    "\\u001f",
    "\\ud83e\\udd80",
    "é",
    "🦀",
];

/// An event whose content is the JSON string body `raw` and whose one tag
/// element is `raw` too.
fn event_with(raw: &str) -> String {
    format!(
        "{{\"id\":\"{0}\",\"pubkey\":\"{0}\",\"created_at\":1,\"kind\":1,\"tags\":[[\"t\",\"{raw}\"]],\"content\":\"{raw}\",\"sig\":\"{0}{0}\"}}",
        "ab".repeat(32)
    )
}

#[test]
fn escapes_and_non_ascii_at_every_offset_decode_as_serde_json_does() {
    for piece in PIECES {
        for before in 0..40 {
            for after in [0, 1, 7, 8, 9, 15, 16, 17] {
                let raw = format!("{}{piece}{}", "a".repeat(before), "z".repeat(after));
                let want: String = serde_json::from_str(&format!("\"{raw}\"")).unwrap();
                let json = event_with(&raw);
                let arena = Arena::new();
                let event = SKIP.decode_event(&arena, json.as_bytes()).unwrap();
                assert_eq!(event.content(), want, "{raw}");
                assert_eq!(event.tags().get(0).unwrap().get(1), Some(&*want), "{raw}");
                // Twice in a row, and beside non-ASCII text.
                let raw2 = format!("{raw}{piece}ü{raw}");
                let want2: String = serde_json::from_str(&format!("\"{raw2}\"")).unwrap();
                let json2 = event_with(&raw2);
                let event = SKIP.decode_event(&arena, json2.as_bytes()).unwrap();
                assert_eq!(event.content(), want2, "{raw2}");
            }
        }
    }
}

#[test]
fn raw_control_characters_and_bad_escapes_fail_at_every_offset() {
    for before in 0..40 {
        for (bad, delta, what) in [
            ("\u{1}", 0, "raw control character in string"),
            ("\n", 0, "raw control character in string"),
            ("\\x", 0, "invalid escape sequence"),
            ("\\u12G4", 4, "invalid hex digit in \\u escape"),
        ] {
            // After an escape too, so the walk over escaped strings meets it.
            for lead in ["", "\\n"] {
                let raw = format!("{lead}{}{bad}tail", "a".repeat(before));
                let json = event_with(&raw);
                assert!(serde_json::from_str::<serde_json::Value>(&json).is_err());
                let at = json.find(&raw).unwrap() + lead.len() + before + delta;
                let e = common::must_fail(json.as_bytes());
                assert_eq!(common::malformed(&e), (what, at), "{raw:?}");
            }
        }
    }
}

#[test]
fn truncation_inside_strings_and_escapes_is_an_error_not_a_panic() {
    for piece in PIECES {
        let raw = format!("{}{piece}{}", "a".repeat(13), "b".repeat(20));
        let json = event_with(&raw);
        let content = json.find("\"content\"").unwrap();
        let arena = Arena::new();
        for cut in content..json.len() {
            let Some(head) = json.get(..cut) else {
                continue;
            };
            let e = SKIP.decode_event(&arena, head.as_bytes()).unwrap_err();
            assert!(
                matches!(
                    e,
                    DecodeError::UnexpectedEof { .. }
                        | DecodeError::Malformed { .. }
                        | DecodeError::InvalidValue(_)
                ),
                "{head}: {e:?}"
            );
        }
    }
}

#[test]
fn a_bad_hex_digit_at_every_position_of_id_pubkey_and_sig_is_refused() {
    let json = event_with("x");
    for (member, len) in [
        ("\"id\":\"", 64),
        ("\"pubkey\":\"", 64),
        ("\"sig\":\"", 128),
    ] {
        let start = json.find(member).unwrap() + member.len();
        for k in 0..len {
            for bad in [b'g', b'G', b'/', b':', b'@', b'`', 0x80, b' '] {
                let mut bytes = json.clone().into_bytes();
                bytes[start + k] = bad;
                let arena = Arena::new();
                assert!(
                    SKIP.decode_event(&arena, &bytes).is_err(),
                    "{member} digit {k} = {bad:#x}"
                );
            }
            // Upper case is hex too.
            let mut bytes = json.clone().into_bytes();
            bytes[start + k] = b'B';
            let arena = Arena::new();
            let event = SKIP.decode_event(&arena, &bytes).unwrap();
            let want = if k % 2 == 0 { 0xBB } else { 0xAB };
            let got = match member {
                "\"id\":\"" => event.id()[k / 2],
                "\"pubkey\":\"" => event.pubkey()[k / 2],
                _ => event.sig()[k / 2],
            };
            assert_eq!(got, want, "{member} digit {k}");
        }
    }
}

#[test]
fn strings_with_many_escapes_decode_as_serde_json_does() {
    // Profiles carry JSON as content: dozens of `\"`, past any fixed count
    // of escapes a decoder keeps track of.
    for n in [1, 31, 63, 64, 65, 66, 100, 300] {
        for gap in ["", "a", "abcdefghijklmno", "é🦀"] {
            let raw: String = (0..n)
                .map(|k| format!("{gap}{}", PIECES[k % PIECES.len()]))
                .collect();
            let want: String = serde_json::from_str(&format!("\"{raw}\"")).unwrap();
            let json = event_with(&raw);
            let arena = Arena::new();
            let event = SKIP.decode_event(&arena, json.as_bytes()).unwrap();
            assert_eq!(event.content(), want, "{n} escapes, gap {gap:?}");
        }
    }
}
