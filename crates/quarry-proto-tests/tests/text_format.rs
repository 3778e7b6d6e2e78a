//! The text format against protobuf's own printer's rules (the printer
//! `protoc --decode` runs), on hand-encoded inputs: every map entry, in
//! key order, with both key and value printed and no unknown fields, unknown
//! fields by number with length-delimited values shown as nested blocks
//! when they read as fields (at most 10 levels), and groups as blocks.

use quarry_core::Arena;
use quarry_proto::MessageRef;
use quarry_proto_tests::views::{quarry::test3::All3View, quarry::test3::InnerView};

fn text(message: MessageRef, input: &[u8]) -> String {
    let arena = Arena::new();
    let record = quarry_proto::decode(message, &arena, input).unwrap();
    quarry_proto::text::to_text(message, record)
}

/// `bytes` as a length-delimited field `number` (field numbers below 16).
fn len_field(number: u8, bytes: &[u8]) -> Vec<u8> {
    assert!(bytes.len() < 128);
    let mut out = vec![number << 3 | 2, bytes.len() as u8];
    out.extend_from_slice(bytes);
    out
}

/// One entry per key prints (the last on the wire, as a parsed map holds
/// it), sorted by key, each with its key and value even where the input
/// left them out. The expected text is what `protoc --decode` (libprotoc
/// 35.1) printed for these bytes, less the entries a later entry with the
/// same key overrides, which protoc's dynamic message keeps and prints
/// (`b: "x"`, `0: MOOD_UNSPECIFIED`, `7: MOOD_SAD`).
#[test]
fn map_entries_print_as_protoc_prints_them() {
    let mut input = Vec::new();
    // m_mood (52, map<fixed32, Mood>): {7: SAD}, {2: absent}, {7: HAPPY}.
    input.extend([0xA2, 0x03, 7, 0x0D, 7, 0, 0, 0, 0x10, 2]);
    input.extend([0xA2, 0x03, 5, 0x0D, 2, 0, 0, 0]);
    input.extend([0xA2, 0x03, 7, 0x0D, 7, 0, 0, 0, 0x10, 1]);
    // m_inner (51, map<sint64, Inner>): {-1: absent}, {1: {n: 5}},
    // {absent: {text: "x"}}.
    input.extend([0x9A, 0x03, 2, 0x08, 0x01]);
    input.extend([0x9A, 0x03, 6, 0x08, 0x02, 0x12, 2, 0x10, 5]);
    input.extend([0x9A, 0x03, 5, 0x12, 3, 0x0A, 1, b'x']);
    // m_mood again: {absent: absent}, {0 written out: SAD}. (The fuzz
    // target found a key printed when absent but not when written out at
    // its default.)
    input.extend([0xA2, 0x03, 0]);
    input.extend([0xA2, 0x03, 7, 0x0D, 0, 0, 0, 0, 0x10, 2]);
    // m_mood: {9 with an unknown field 4 and no value}: the value's
    // default prints, the unknown field does not (protobuf keeps no unknown
    // fields in a map entry).
    input.extend([0xA2, 0x03, 7, 0x0D, 9, 0, 0, 0, 0x20, 7]);
    // m_str (50, map<string, string>): {"b": "x"}, {"a": "y"}, {"B"},
    // {"b": "z"}.
    input.extend([0x92, 0x03, 6, 0x0A, 1, b'b', 0x12, 1, b'x']);
    input.extend([0x92, 0x03, 6, 0x0A, 1, b'a', 0x12, 1, b'y']);
    input.extend([0x92, 0x03, 3, 0x0A, 1, b'B']);
    input.extend([0x92, 0x03, 6, 0x0A, 1, b'b', 0x12, 1, b'z']);
    let expected = "\
m_str {
  key: \"B\"
  value: \"\"
}
m_str {
  key: \"a\"
  value: \"y\"
}
m_str {
  key: \"b\"
  value: \"z\"
}
m_inner {
  key: -1
  value {
  }
}
m_inner {
  key: 0
  value {
    text: \"x\"
  }
}
m_inner {
  key: 1
  value {
    n: 5
  }
}
m_mood {
  key: 0
  value: MOOD_SAD
}
m_mood {
  key: 2
  value: MOOD_UNSPECIFIED
}
m_mood {
  key: 7
  value: MOOD_HAPPY
}
m_mood {
  key: 9
  value: MOOD_UNSPECIFIED
}
";
    assert_eq!(text(All3View::TABLE, &input), expected);
}

#[test]
fn unknown_fields_print_as_protobufs_printer_does() {
    let mut unknown = Vec::new();
    unknown.extend([0x48, 0xAC, 0x02]); // 9: varint 300
    unknown.extend([0x55, 4, 3, 2, 1]); // 10: fixed32
    unknown.extend([0x59, 1, 0, 0, 0, 0, 0, 0, 0]); // 11: fixed64
    unknown.extend(len_field(12, b"hi")); // reads as field 13, varint 105
    unknown.extend(len_field(13, &[0xFF])); // a cut varint: a string
    unknown.extend(len_field(14, b"")); // empty: a string
    unknown.extend(len_field(15, &len_field(1, b"ab"))); // "ab" does not read
    unknown.extend([0x83, 0x01, 0x08, 7, 0x84, 0x01]); // group 16 { 1: 7 }
    // group 17 { group 2 { 1: 5 } }
    unknown.extend([0x8B, 0x01, 0x13, 0x08, 5, 0x14, 0x8C, 0x01]);
    unknown.extend(len_field(15, &[0x08, 1, 0x14])); // a stray end-group
    // Inner { n: 1, next: Inner { <unknown> } }: the unknown fields print
    // one level in.
    let mut input = vec![0x10, 1];
    input.extend([0x1A, unknown.len() as u8]);
    input.extend(&unknown);
    let expected = "\
n: 1
next {
  9: 300
  10: 0x01020304
  11: 0x0000000000000001
  12 {
    13: 105
  }
  13: \"\\377\"
  14: \"\"
  15 {
    1: \"ab\"
  }
  16 {
    1: 7
  }
  17 {
    2 {
      1: 5
    }
  }
  15: \"\\010\\001\\024\"
}
";
    assert_eq!(text(InnerView::TABLE, &input), expected);
}

/// protobuf's printer tries a length-delimited unknown field as a message
/// 10 levels deep (`kUnknownFieldRecursionLimit`): the 11th level prints
/// as a string.
#[test]
fn length_delimited_unknown_fields_nest_ten_levels_then_print_as_strings() {
    for levels in [9usize, 10, 11] {
        // `levels` length-delimited fields inside one another around
        // `1: 1`; the outermost is field 9 of Inner, unknown.
        let mut payload = vec![0x08, 1];
        for _ in 1..levels {
            payload = len_field(1, &payload);
        }
        let input = len_field(9, &payload);
        let mut expected = String::new();
        let blocks = levels.min(10);
        for d in 0..blocks {
            let name = if d == 0 { "9" } else { "1" };
            expected += &format!("{}{name} {{\n", "  ".repeat(d));
        }
        let inner = if levels <= 10 {
            "1: 1".to_string()
        } else {
            // The 11th level: a field 1 holding `1: 1`, escaped.
            "1: \"\\010\\001\"".to_string()
        };
        expected += &format!("{}{inner}\n", "  ".repeat(blocks));
        for d in (0..blocks).rev() {
            expected += &format!("{}}}\n", "  ".repeat(d));
        }
        assert_eq!(text(InnerView::TABLE, &input), expected, "{levels} levels");
    }
}

#[test]
fn views_debug_as_their_name_and_text_format() {
    // Inner { text: "a\nb", n: 5, next: { n: -1 } }; -1 as an int32 is a
    // ten-byte varint.
    let mut input = len_field(1, b"a\nb");
    input.extend([0x10, 5]);
    let mut next = vec![0x10];
    next.extend([0xFF; 9]);
    next.push(0x01);
    input.extend(len_field(3, &next));
    let arena = Arena::new();
    let view = InnerView::decode(&arena, &input).unwrap();
    assert_eq!(
        format!("{view:?}"),
        r#"quarry.test3.Inner { text: "a\nb" n: 5 next { n: -1 } }"#
    );
    assert_eq!(
        format!("{view:#?}"),
        "quarry.test3.Inner {\n  text: \"a\\nb\"\n  n: 5\n  next {\n    n: -1\n  }\n}"
    );
    // An absent message field is `None`; an empty message is its bare name.
    assert_eq!(format!("{:?}", view.next().unwrap().next()), "None");
    assert_eq!(
        format!("{:?}", InnerView::default()),
        "quarry.test3.Inner {}"
    );
}
