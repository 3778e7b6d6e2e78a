//! `quarry proto decode` on the odd corners of quarry-proto-tests'
//! `proto/odd2.proto` and `odd3.proto` (which `.ci/protoc-diff` and the
//! agreement tests with prost also run): enum aliases, names that
//! lowerCamelCase changes, `json_name`, and map keys of signed types.
//! Inputs are encoded by hand; the expected text and JSON are written from
//! protobuf's rules (a number that aliases share prints as the first name
//! declared for it; the text format sorts map entries by key; JSON keys
//! are the `json_name`, else the name with each `_` dropped and the letter
//! after it upper-cased).

mod common;

use std::path::Path;

use common::{proto_decode, success};

/// `quarry proto decode` of `bytes` as `root` of `file`, with `extra`
/// options; its stdout, which must be a success.
fn decode(file: &str, root: &str, extra: &[&str], bytes: &[u8]) -> String {
    let proto = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../quarry-proto-tests/proto")
        .join(file);
    success(&proto_decode(&proto, root, extra, bytes))
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("the output is JSON")
}

/// The ten-byte varint of -1 as an `int32` or enum writes it.
const MINUS_ONE: [u8; 10] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01];

#[test]
fn closed_enum_aliases_print_the_first_declared_name() {
    // Sign declares NEG = -1, MINUS = -1, ZERO = 0, NIL = 0.
    let mut b = vec![0xA0, 0x01]; // sign (20), varint
    b.extend(MINUS_ONE);
    b.extend([0xA8, 0x01, 0x00]); // signs (21) = 0
    b.extend([0xB2, 0x01, 0x0B, 0x00]); // signs_packed (22), LEN 11: 0
    b.extend(MINUS_ONE); //                                          -1
    assert_eq!(
        decode("odd2.proto", "quarry.odd2.Odd", &[], &b),
        "sign: NEG\nsigns: ZERO\nsigns_packed: ZERO\nsigns_packed: NEG\n"
    );
    assert_eq!(
        json(&decode("odd2.proto", "quarry.odd2.Odd", &["--json"], &b)),
        json(r#"{"sign":"NEG","signs":["ZERO"],"signsPacked":["ZERO","NEG"]}"#)
    );
}

#[test]
fn open_enum_aliases_print_the_first_declared_name() {
    // Tone declares TONE_NONE = 0, TONE_ZERO = 0, TONE_LOW = -7,
    // TONE_HIGH = 7.
    let mut b = vec![0xAA, 0x01, 0x0C, 0x00]; // tones (21), LEN 12: 0
    b.extend([0xF9, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]); // -7
    b.push(0x07); // 7
    b.extend([0xB8, 0x01, 0x00]); // maybe_tone (23) = 0, present
    assert_eq!(
        decode("odd3.proto", "quarry.odd3.Odd", &[], &b),
        "tones: TONE_NONE\ntones: TONE_LOW\ntones: TONE_HIGH\nmaybe_tone: TONE_NONE\n"
    );
    assert_eq!(
        json(&decode("odd3.proto", "quarry.odd3.Odd", &["--json"], &b)),
        json(r#"{"tones":["TONE_NONE","TONE_LOW","TONE_HIGH"],"maybeTone":"TONE_NONE"}"#)
    );
}

#[test]
fn json_keys_are_json_names_or_names_without_underscores() {
    // foo_bar, foo__baz, _lead, trail_, x1_y2, CamelCase, a_b_c_d,
    // renamed [json_name = "otherName"], odd_json [json_name = "with space"]
    // = 1 to 9.
    let b: Vec<u8> = (1u8..=9).flat_map(|n| [n << 3, n]).collect();
    assert_eq!(
        decode("odd2.proto", "quarry.odd2.Odd", &[], &b),
        "foo_bar: 1\nfoo__baz: 2\n_lead: 3\ntrail_: 4\nx1_y2: 5\nCamelCase: 6\n\
         a_b_c_d: 7\nrenamed: 8\nodd_json: 9\n"
    );
    assert_eq!(
        decode("odd2.proto", "quarry.odd2.Odd", &["--json"], &b),
        "{\"fooBar\":1,\"fooBaz\":2,\"Lead\":3,\"trail\":4,\"x1Y2\":5,\"CamelCase\":6,\
         \"aBCD\":7,\"otherName\":8,\"with space\":9}\n"
    );
}

#[test]
fn text_format_sorts_signed_map_keys_as_numbers() {
    // k_sfixed64 (10) with keys 5 then -5, k_sint32 (5) with keys 1 then
    // -1 (zigzag 2 and 1).
    let mut b = vec![0x52, 0x0C, 0x09, 5, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x01, b'a'];
    b.extend([
        0x52, 0x0C, 0x09, 0xFB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ]);
    b.extend([0x12, 0x01, b'b']);
    b.extend([0x2A, 0x05, 0x08, 0x02, 0x12, 0x01, b'c']);
    b.extend([0x2A, 0x05, 0x08, 0x01, 0x12, 0x01, b'd']);
    assert_eq!(
        decode("odd2.proto", "quarry.odd2.Maps", &[], &b),
        "k_sint32 {\n  key: -1\n  value: \"d\"\n}\nk_sint32 {\n  key: 1\n  value: \"c\"\n}\n\
         k_sfixed64 {\n  key: -5\n  value: \"b\"\n}\nk_sfixed64 {\n  key: 5\n  value: \"a\"\n}\n"
    );
    assert_eq!(
        json(&decode("odd2.proto", "quarry.odd2.Maps", &["--json"], &b)),
        json(r#"{"kSint32":{"1":"c","-1":"d"},"kSfixed64":{"5":"a","-5":"b"}}"#)
    );
}
