//! Errors name what was wrong: the offending byte, number, string, key or
//! verb, beside the offset where it stands.

mod common;

use common::{edit, malformed, value};
use quarry_core::{Arena, DecodeError};
use quarry_nostr::SAMPLE_EVENT;
use sha2::{Digest, Sha256};

fn event_err(json: &str) -> DecodeError {
    let arena = Arena::new();
    quarry_nostr::decode_event(&arena, json.as_bytes()).unwrap_err()
}

fn message_err(json: &str) -> DecodeError {
    let arena = Arena::new();
    quarry_nostr::decode_message(&arena, json.as_bytes()).unwrap_err()
}

#[test]
fn numbers_out_of_range_are_named() {
    let cases = [
        (r#""kind":1,"#, r#""kind":70000,"#, "70000"),
        (r#""kind":1,"#, r#""kind":-1,"#, "-1"),
        (r#""kind":1,"#, r#""kind":1.5,"#, "1.5"),
        (r#""kind":1,"#, r#""kind":007,"#, "007"),
        (r#""created_at":1673347337"#, r#""created_at":1e9"#, "1e9"),
        (
            r#""created_at":1673347337"#,
            r#""created_at":18446744073709551616"#,
            "18446744073709551616",
        ),
    ];
    for (from, to, shown) in cases {
        let json = edit(SAMPLE_EVENT, from, to);
        let e = event_err(&json);
        assert_eq!(value(&e), shown, "{to}");
        let at = json.find(to).unwrap() + to.find(':').unwrap() + 1;
        assert_eq!(e.offset(), at, "{to}");
        assert!(e.to_string().contains(shown), "{e}");
    }
}

#[test]
fn bad_hex_is_named_whole() {
    let bad = "zz".repeat(32);
    let json = edit(
        SAMPLE_EVENT,
        "989c0b76cb563971fdc9bef31ec06c3560f3249d6ee9e5d83c57625596e05f6f",
        &bad,
    );
    let e = event_err(&json);
    assert_eq!(value(&e), format!("\"{bad}\""));
    assert_eq!(malformed(&e).0, "pubkey must be 64 hex digits");
    // A value past 160 characters is cut, with its length.
    let long = "a".repeat(300);
    let json = edit(SAMPLE_EVENT, "10a841dc", &format!("{long}10a841dc"));
    let shown = value(&event_err(&json)).to_owned();
    assert!(
        shown.starts_with(&format!("\"{}\"…", "a".repeat(160))),
        "{shown}"
    );
    assert!(shown.ends_with("(364 characters)"), "{shown}");
}

#[test]
fn bad_bytes_in_strings_are_named() {
    // A raw control character, and a bad digit in a \u escape: the byte
    // itself, where it stands.
    let json = edit(SAMPLE_EVENT, "Walled", "Wal\u{1}led");
    let at = json.find('\u{1}').unwrap();
    assert_eq!(
        event_err(&json),
        DecodeError::UnexpectedByte {
            offset: at,
            byte: 1,
            context: "raw control character in string"
        }
    );
    let json = edit(SAMPLE_EVENT, "Walled", r"Wal\u00g1led");
    let at = json.find("g1").unwrap();
    assert_eq!(
        event_err(&json),
        DecodeError::UnexpectedByte {
            offset: at,
            byte: b'g',
            context: "invalid hex digit in \\u escape"
        }
    );
}

#[test]
fn bad_escapes_are_named() {
    for (raw, what, shown) in [
        (r"\q", "invalid escape sequence", r"\q"),
        (r"\é", "invalid escape sequence", r"\é"),
        (r"\ud800x", "lone high surrogate escape", r"\ud800"),
        (r"\udc00", "lone low surrogate escape", r"\udc00"),
        (r"\uD83D\u0041", "lone high surrogate escape", r"\uD83D"),
    ] {
        let json = edit(SAMPLE_EVENT, "Walled", &format!("{raw}Walled"));
        let e = event_err(&json);
        let at = json.find(raw).unwrap();
        assert_eq!(malformed(&e), (what, at), "{raw}");
        assert_eq!(value(&e), shown, "{raw}");
    }
}

#[test]
fn keys_verbs_and_subscription_ids_are_named() {
    let json = edit(SAMPLE_EVENT, r#""kind":1,"#, r#""kind":1,"kind":1,"#);
    let e = event_err(&json);
    assert_eq!(value(&e), r#""kind""#);
    assert_eq!(e.to_string(), {
        let at = json.rfind(r#""kind""#).unwrap();
        format!(r#"duplicate member in event: "kind" at byte {at}"#)
    });

    let e = message_err(r#"["HELLO","x"]"#);
    assert_eq!(value(&e), r#""HELLO""#);
    assert_eq!(e.offset(), 1);

    let e = message_err(r#"["CLOSE",""]"#);
    assert_eq!(value(&e), r#""""#);
    let e = message_err(r#"["COUNT","s",{"count":1,"hll":"ab","hll":"cd"}]"#);
    assert_eq!(value(&e), r#""hll""#);
    let e = message_err(r##"["REQ","s",{"#1":["x"]}]"##);
    assert_eq!(value(&e), r##""#1""##);
    let e = message_err(r##"["REQ","s",{"kinds":[1],"kinds":[2]}]"##);
    assert_eq!(value(&e), r#""kinds""#);
    // A quote or control character in the value is written as JSON does.
    let e = message_err(r#"["HE\"L\nLO"]"#);
    assert_eq!(value(&e), r#""HE\"L\nLO""#);
}

#[test]
fn an_id_that_does_not_match_names_the_hash_of_the_content() {
    // The preimage, written by hand from SAMPLE_EVENT's members with its
    // content changed, hashed here.
    let json = edit(SAMPLE_EVENT, "Walled gardens", "Walled orchards");
    let preimage = concat!(
        r#"[0,"989c0b76cb563971fdc9bef31ec06c3560f3249d6ee9e5d83c57625596e05f6f",1673347337,1,"#,
        r#"[["e","3da979448d9ba263864c4d6f14984c423a3838364ec255f03c7904b1ae77f206"],"#,
        r#"["p","bf2376e17ba4ec269d10fcc996a4746b451152be9031fa48e74553dde5526bce"]],"#,
        r#""Walled orchards became prisons, and nostr is the first step towards tearing down the prison walls."]"#
    );
    let hash: String = Sha256::digest(preimage.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let e = event_err(&json);
    assert_eq!(malformed(&e), ("event id does not match its content", 0));
    assert_eq!(value(&e), format!("the content hashes to {hash}"));
}
