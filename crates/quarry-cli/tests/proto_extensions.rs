//! `quarry proto decode` on extension fields (`tests/data/extensions.proto`):
//! protobuf's printers list them with the declared fields in field-number
//! order, under their full name in brackets (`[pkg.ext]`), in JSON and in
//! the text format alike. The expected strings are written from those
//! rules for a hand-encoded input; prost-reflect, which decodes extensions
//! with its own code, must read the same values.

mod common;

use std::path::{Path, PathBuf};

use common::proto_decode;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor, SerializeOptions};

fn schema_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/extensions.proto")
}

fn base() -> MessageDescriptor {
    let dir = schema_path().parent().expect("a directory").to_path_buf();
    let set = protox::compile(["extensions.proto"], [dir]).expect("the schema compiles");
    let pool = DescriptorPool::from_file_descriptor_set(set).expect("descriptors");
    pool.get_message_by_name("quarry.ext.Base").expect("Base")
}

/// `quarry proto decode` of `bytes` as a `Base`, with `extra` options.
fn run(extra: &[&str], bytes: &[u8]) -> std::process::Output {
    proto_decode(&schema_path(), "quarry.ext.Base", extra, bytes)
}

/// Its stdout, which must be a success.
fn decode(extra: &[&str], bytes: &[u8]) -> String {
    let out = run(extra, bytes);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Every kind of extension, in an order that is not the field numbers'
/// (the repeated `scores` split around the others).
fn input() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend([0x08, 7]); // id (1) = 7
    b.extend([0xE2, 0x12, 3]); // tail (300), LEN 3
    b.extend(b"end");
    b.extend([0xB2, 0x09, 2]); // [label] (150), LEN 2
    b.extend(b"hi");
    b.extend([0xC0, 0x07, 3]); // [scores] (120) = 3
    b.extend([0xCA, 0x07, 8, 1, 0, 0, 0, 2, 0, 0, 0]); // [marks] (121), packed 1, 2
    b.extend([0x92, 0x08, 4, 0x08, 0x02, 0x10, 0x01]); // [where] (130) {x: 1, y: -1}
    b.extend([0xE0, 0x08, 1]); // [color] (140) = GREEN
    b.extend([0x83, 0x0A, 0x08, 0x01, 0x84, 0x0A]); // [extra] (160) group {on: true}
    b.extend([0xF0, 0x06, 1]); // [Scope.flag] (110) = true
    b.extend([0xC0, 0x07, 4]); // [scores] (120) = 4
    b
}

#[test]
fn json_lists_extensions_by_number_under_bracketed_full_names() {
    let bytes = input();
    let json = decode(&["--json"], &bytes);
    assert_eq!(
        json.trim_end(),
        concat!(
            r#"{"id":7,"[quarry.ext.Scope.flag]":true,"[quarry.ext.scores]":[3,4],"#,
            r#""[quarry.ext.marks]":[1,2],"[quarry.ext.where]":{"x":1,"y":-1},"#,
            r#""[quarry.ext.color]":"GREEN","[quarry.ext.label]":"hi","#,
            r#""[quarry.ext.extra]":{"on":true},"tail":"end"}"#
        )
    );
    // prost-reflect reads the same members (it lists extensions after the
    // declared fields, so the objects are compared, not the strings).
    let msg = DynamicMessage::decode(base(), bytes.as_slice()).expect("peer decodes");
    let mut ser = serde_json::Serializer::new(Vec::new());
    msg.serialize_with_options(&mut ser, &SerializeOptions::new())
        .expect("serializable");
    let peer: serde_json::Value = serde_json::from_slice(&ser.into_inner()).expect("JSON");
    let ours: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(ours, peer);
}

#[test]
fn text_format_lists_extensions_by_number_under_bracketed_full_names() {
    let bytes = input();
    let text = decode(&[], &bytes);
    let expected = "\
id: 7
[quarry.ext.Scope.flag]: true
[quarry.ext.scores]: 3
[quarry.ext.scores]: 4
[quarry.ext.marks]: 1
[quarry.ext.marks]: 2
[quarry.ext.where] {
  x: 1
  y: -1
}
[quarry.ext.color]: GREEN
[quarry.ext.label]: \"hi\"
[quarry.ext.extra] {
  on: true
}
tail: \"end\"
";
    assert_eq!(text, expected);
    // (One descriptor for both: messages of two compiled pools differ.)
    let desc = base();
    let msg = DynamicMessage::decode(desc.clone(), bytes.as_slice()).expect("peer decodes");
    let back = DynamicMessage::parse_text_format(desc, &text).expect("prost-reflect parses it");
    assert!(back == msg, "reads back as {}", back.to_text_format());
}

/// An extension number no `extend` declares stays an unknown field, and an
/// extension of the wrong wire type is an error, as for declared fields.
#[test]
fn undeclared_numbers_stay_unknown_and_wrong_wire_types_fail() {
    // 170 is in the extension range, but nothing extends Base with it.
    let text = decode(&[], &[0x08, 1, 0xD0, 0x0A, 5]);
    assert_eq!(text, "id: 1\n170: 5\n");
    assert_eq!(
        decode(&["--json"], &[0x08, 1, 0xD0, 0x0A, 5]).trim_end(),
        r#"{"id":1}"#
    );
    // [label] (150) as a varint.
    let out = run(&[], &[0xB0, 0x09, 1]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(DynamicMessage::decode(base(), &[0xB0u8, 0x09, 1][..]).is_err());
}
