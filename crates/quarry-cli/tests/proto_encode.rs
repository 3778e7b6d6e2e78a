//! `quarry proto encode`, run as a process: random messages of the test
//! schemas and WhatsApp's (built and encoded by prost-reflect) go through
//! `decode --json` then `encode`, and prost-reflect's own canonical JSON
//! goes through `encode`; prost-reflect must decode the bytes back to the
//! very message. Then JSON written by hand with bytes worked out by hand,
//! and bad JSON with its exact error line.

mod common;
#[path = "../../quarry-proto-tests/tests/common/mod.rs"]
mod random;

use std::path::{Path, PathBuf};

use common::quarry;
use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor};

fn proto_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../quarry-proto-tests/proto")
}

fn wa_proto() -> String {
    format!("{}/whatsapp.proto", quarry_proto_tests::WA_PROTO_DIR)
}

fn wkt_proto() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/wkt.proto")
        .to_string_lossy()
        .into_owned()
}

fn pool(file: &str) -> DescriptorPool {
    let path = proto_dir().join(file);
    let dir = path.parent().expect("a directory");
    let name = path.file_name().expect("a file name");
    let set = protox::compile([name], [dir]).expect("the schema compiles");
    DescriptorPool::from_file_descriptor_set(set).expect("descriptors")
}

/// `quarry proto <command> --proto <file> --type <name> <extra>… -`.
fn run(
    command: &str,
    file: &str,
    name: &str,
    extra: &[&str],
    stdin: &[u8],
) -> std::process::Output {
    let proto = proto_dir().join(file).to_string_lossy().into_owned();
    let mut args = vec!["proto", command, "--proto", &proto, "--type", name];
    args.extend_from_slice(extra);
    args.push("-");
    quarry(&args, stdin)
}

fn ok(out: std::process::Output, what: &str) -> Vec<u8> {
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `msg` through the CLI's JSON and back, and through prost-reflect's
/// JSON: both encodings decode (by prost-reflect) to `msg`.
fn check(file: &str, desc: &MessageDescriptor, generated: &DynamicMessage) {
    let name = desc.full_name();
    let bytes = generated.encode_to_vec();
    // What the bytes mean, as prost-reflect decodes them (a generated
    // field set to its default is not on the wire, so it is not set here).
    let msg = &DynamicMessage::decode(desc.clone(), bytes.as_slice()).expect("peer decodes");
    let json = ok(run("decode", file, name, &["--json"], &bytes), "decode");
    let ours = ok(run("encode", file, name, &["--json"], &json), "encode");
    let back = DynamicMessage::decode(desc.clone(), ours.as_slice()).expect("peer decodes ours");
    assert!(
        &back == msg,
        "decode --json | encode gave\n{}\nnot\n{}\nJSON: {}",
        back.to_text_format(),
        msg.to_text_format(),
        String::from_utf8_lossy(&json)
    );
    let peer = random::json::peer_json(msg).to_string();
    let ours = ok(run("encode", file, name, &[], peer.as_bytes()), "encode");
    let back = DynamicMessage::decode(desc.clone(), ours.as_slice()).expect("peer decodes ours");
    assert!(
        &back == msg,
        "encode of prost-reflect's JSON {peer} gave {ours:02x?}"
    );
}

#[test]
fn random_messages_round_trip_through_json() {
    for (file, root) in [
        ("test3.proto", "quarry.test3.All3"),
        ("test2.proto", "quarry.test2.All2"),
    ] {
        let pool = pool(file);
        let desc = pool.get_message_by_name(root).expect("root type");
        let mut generator = random::Gen::new(0x0E4C_0DE0 ^ root.len() as u64);
        for _ in 0..32 {
            let msg = generator.message(&desc);
            check(file, &desc, &msg);
        }
    }
}

#[test]
fn random_whatsapp_messages_round_trip_through_json() {
    let file = wa_proto();
    let pool = pool(&file);
    for root in [
        "whatsapp.Message",
        "whatsapp.SyncActionData",
        "whatsapp.HistorySync",
    ] {
        let desc = pool.get_message_by_name(root).expect("root type");
        let mut generator = random::Gen::new(0x44_0006 ^ root.len() as u64);
        for _ in 0..6 {
            let msg = generator.message(&desc);
            check(&file, &desc, &msg);
        }
    }
}

/// JSON written by hand, and the bytes the protobuf encoding rules give
/// for it (worked out by hand: tag = number << 3 | wire type).
#[test]
fn hand_written_json_encodes_to_hand_computed_bytes() {
    let all3 = "quarry.test3.All3";
    for (json, want) in [
        // f_int64 = -1 as a string: 10-byte varint.
        (
            r#"{"fInt64":"-1"}"#,
            &[
                0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
            ][..],
        ),
        // The proto field name, a number for an int64, 1e2 for an int32.
        (
            r#"{"f_int64": 150, "fInt32": 1e2}"#,
            &[0x18, 0x96, 0x01, 0x28, 0x64],
        ),
        // uint64 max as a string.
        (
            r#"{"fUint64":"18446744073709551615"}"#,
            &[
                0x20, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
            ],
        ),
        // sint32 -1 zigzags to 1; bool true; enum by name and by number.
        (
            r#"{"fSint32":-1,"fBool":true,"fMood":"MOOD_SAD"}"#,
            &[0x40, 0x01, 0x70, 0x01, 0x80, 0x01, 0x02],
        ),
        (r#"{"fMood":1}"#, &[0x80, 0x01, 0x01]),
        // An open enum keeps a number it does not list.
        (r#"{"fMood":7}"#, &[0x80, 0x01, 0x07]),
        // double "Infinity": 0x7FF0000000000000 little-endian.
        (
            r#"{"fDouble":"Infinity"}"#,
            &[0x09, 0, 0, 0, 0, 0, 0, 0xF0, 0x7F],
        ),
        // float 1.5 = 0x3FC00000.
        (r#"{"fFloat":1.5}"#, &[0x15, 0, 0, 0xC0, 0x3F]),
        // The largest float as the shortest printers write it (a little
        // above it as a double) rounds to it: 0x7F7FFFFF.
        (
            r#"{"fFloat":3.4028235e38}"#,
            &[0x15, 0xFF, 0xFF, 0x7F, 0x7F],
        ),
        // bytes 0xFB 0xFF in URL-safe base64 without padding, and standard.
        (r#"{"fBytes":"-_8"}"#, &[0x52, 0x02, 0xFB, 0xFF]),
        (r#"{"fBytes":"+/8="}"#, &[0x52, 0x02, 0xFB, 0xFF]),
        // Defaults of implicit-presence fields are not written; null is
        // absence; proto3 optional keeps its 0.
        (
            r#"{"fInt32":0,"fString":"","fInner":null,"oInt32":0}"#,
            &[0x90, 0x01, 0x00],
        ),
        // Packed repeated int32, unpacked repeated int32.
        (
            r#"{"rInt32":[1,300],"rUnpacked":[1,2]}"#,
            &[
                0x9A, 0x02, 0x03, 0x01, 0xAC, 0x02, 0xE8, 0x02, 0x01, 0xE8, 0x02, 0x02,
            ],
        ),
        // A map<string,string> entry, a map<sint64, Inner> entry with key -1
        // (zigzag 1) and an empty value (left out, as prost does).
        (
            r#"{"mStr":{"a":"b"},"mInner":{"-1":{}}}"#,
            &[
                0x92, 0x03, 0x06, 0x0A, 0x01, b'a', 0x12, 0x01, b'b', 0x9A, 0x03, 0x02, 0x08, 0x01,
            ],
        ),
        // A oneof member, and a nested message.
        (
            r#"{"kInner":{"text":"x","next":{"n":2}}}"#,
            &[0xEA, 0x03, 0x07, 0x0A, 0x01, b'x', 0x1A, 0x02, 0x10, 0x02],
        ),
    ] {
        let out = run("encode", "test3.proto", all3, &["--json"], json.as_bytes());
        assert_eq!(ok(out, json), want, "{json}");
    }
}

/// Bad JSON: exit 2, nothing on stdout, and exactly this line.
#[test]
fn bad_json_exits_2_naming_what_and_where() {
    let all3 = "quarry.test3.All3";
    for (json, line) in [
        ("{\"fInt32\":", "error: unexpected end of JSON at byte 10"),
        ("[]", "error: expected an object for quarry.test3.All3 at $"),
        (
            r#"{"nope":1}"#,
            "error: no field \"nope\" in quarry.test3.All3 at $.nope",
        ),
        (
            r#"{"fInt32":1.5}"#,
            "error: expected an integer (int32), got \"1.5\" at $.fInt32",
        ),
        (
            r#"{"fInt32":2147483648}"#,
            "error: 2147483648 is out of range for int32 at $.fInt32",
        ),
        (
            r#"{"fUint32":-1}"#,
            "error: -1 is out of range for uint32 at $.fUint32",
        ),
        (
            r#"{"fMood":"MOOD_GLAD"}"#,
            "error: no value \"MOOD_GLAD\" in enum quarry.test3.Mood at $.fMood",
        ),
        (
            r#"{"fBool":"true"}"#,
            "error: expected true or false at $.fBool",
        ),
        (
            r#"{"fFloat":1e39}"#,
            "error: out of range for float at $.fFloat",
        ),
        (r#"{"fBytes":"Zg="}"#, "error: invalid base64 at $.fBytes"),
        (
            r#"{"fInt32":1,"f_int32":2}"#,
            "error: field f_int32 given twice at $.f_int32",
        ),
        (
            r#"{"kString":"a","kU64":"1"}"#,
            "error: oneof kind has more than one field set at $.kU64",
        ),
        (
            r#"{"list":[{},{"rString":["a",3]}]}"#,
            "error: expected a string at $.list[1].rString[1]",
        ),
        (
            r#"{"rInt32":[1,null]}"#,
            "error: null in a repeated field at $.rInt32[1]",
        ),
        (
            r#"{"mInner":{"x":{}}}"#,
            "error: expected an integer (sint64), got \"x\" at $.mInner[\"x\"]",
        ),
        (
            r#"{"child":{"fInner":{"next":{"n":"2x"}}}}"#,
            "error: expected an integer (int32), got \"2x\" at $.child.fInner.next.n",
        ),
        (r#"{"a":1,"a":2}"#, "error: duplicate key at byte 7"),
    ] {
        let out = run("encode", "test3.proto", all3, &[], json.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{json}");
        assert!(out.stdout.is_empty(), "{json}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("{line}\n"),
            "{json}"
        );
    }
    // A closed (proto2) enum refuses a number it does not list.
    let out = run(
        "encode",
        "test2.proto",
        "quarry.test2.All2",
        &[],
        br#"{"fColor":99}"#,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: 99 is not a value of closed enum"),
        "{err}"
    );
    // Deep nesting: refused with the path, not a stack overflow; 100
    // levels (the root and 99 children) is the encoder's limit and holds.
    let nested = |n: usize| format!("{}{{}}{}", r#"{"child":"#.repeat(n), "}".repeat(n));
    let out = run("encode", "test3.proto", all3, &[], nested(99).as_bytes());
    // Each level is tag D2 05, a length, the level below: 3 bytes a level
    // while the length fits one byte (43 levels: 129 bytes), 4 after
    // (129 + 4 * 56 = 353).
    assert_eq!(ok(out, "99 children").len(), 353);
    let out = run("encode", "test3.proto", all3, &[], nested(100).as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: messages nested deeper than 100 levels at ${}\n",
            ".child".repeat(100)
        )
    );
    let out = run("encode", "test3.proto", all3, &[], nested(300).as_bytes());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: JSON nested too deep at byte 1800\n"
    );
}

/// The well-known types in their JSON forms, encoded: each expected byte
/// string worked out by hand from the field numbers of
/// `google/protobuf/*.proto`.
#[test]
fn well_known_types_read_their_json_forms() {
    let file = wkt_proto();
    let text = std::fs::read_to_string(&file).expect("wkt.proto");
    assert!(text.contains("message Known"), "{file}");
    let desc = {
        let dir = Path::new(&file).parent().expect("dir").to_path_buf();
        let set = protox::compile(["wkt.proto"], [dir]).expect("compiles");
        DescriptorPool::from_file_descriptor_set(set)
            .expect("descriptors")
            .get_message_by_name("quarry.wkt.Known")
            .expect("Known")
    };
    let number = |name: &str| desc.get_field_by_name(name).expect(name).number();
    let key = |name: &str| (number(name) << 3 | 2) as u8;
    for (json, field, inner) in [
        // Timestamp 1970-01-01T00:00:01.5+00:00 -> seconds 1, nanos 5e8.
        (
            r#"{"time":"1970-01-01T01:00:01.500+01:00"}"#,
            "time",
            vec![0x08, 0x01, 0x10, 0x80, 0xCA, 0xB5, 0xEE, 0x01],
        ),
        // Duration -1.5s -> seconds -1, nanos -5e8 (10-byte varints).
        (
            r#"{"span":"-1.5s"}"#,
            "span",
            [
                &[0x08][..],
                &[0xFF; 9],
                &[
                    0x01, 0x10, 0x80, 0xB6, 0xCA, 0x91, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
                ],
            ]
            .concat(),
        ),
    ] {
        let out = quarry(
            &[
                "proto",
                "encode",
                "--proto",
                &file,
                "--type",
                "quarry.wkt.Known",
                "-",
            ],
            json.as_bytes(),
        );
        let mut want = vec![key(field), inner.len() as u8];
        want.extend(&inner);
        assert_eq!(ok(out, json), want, "{json}");
    }
}

/// Every well-known type at once: our bytes decode (by prost-reflect) to
/// the message prost-reflect's own JSON parser reads from the same text.
#[test]
fn well_known_types_read_as_prost_reflect_reads_them() {
    let file = wkt_proto();
    let dir = Path::new(&file).parent().expect("dir").to_path_buf();
    let set = protox::compile(["wkt.proto"], [dir]).expect("compiles");
    let desc = DescriptorPool::from_file_descriptor_set(set)
        .expect("descriptors")
        .get_message_by_name("quarry.wkt.Known")
        .expect("Known");
    for json in [
        r#"{"time":"2009-02-13T23:31:30.123456789Z","span":"3s","mask":"a.fooBar,b"}"#,
        r#"{"time":"0001-01-01T00:00:00Z","span":"-0.000000001s"}"#,
        r#"{"doc":{"a":[1,"x",null,true,{"b":{}}],"c":-2.5},"value":"s","list":[[],{}]}"#,
        r#"{"value":null,"values":[1,null,{"k":[false]}],"byName":{"n":null,"z":0}}"#,
        r#"{"any":{"@type":"type.googleapis.com/quarry.wkt.Inner","x":3,"name":"q"}}"#,
        r#"{"any":{"@type":"type.googleapis.com/google.protobuf.Duration","value":"1.5s"}}"#,
        r#"{"any":{"@type":"type.googleapis.com/google.protobuf.Value","value":{"a":1}}}"#,
        r#"{"empty":{},"null":null,"i64":"-5","u32":7,"flag":false,"text":"","blob":"AAE="}"#,
        r#"{"real":"NaN","single":3.5,"times":["1970-01-01T00:00:00Z"],"inner":{"x":1}}"#,
        r#"{"real":-0.5,"single":"-Infinity","i64":12}"#,
    ] {
        let out = quarry(
            &[
                "proto",
                "encode",
                "--proto",
                &file,
                "--type",
                "quarry.wkt.Known",
                "-",
            ],
            json.as_bytes(),
        );
        let ours = ok(out, json);
        let back = DynamicMessage::decode(desc.clone(), ours.as_slice()).expect("peer decodes");
        let mut de = serde_json::Deserializer::from_str(json);
        let peer = DynamicMessage::deserialize(desc.clone(), &mut de).expect("peer reads the JSON");
        // Compared as prost-reflect's JSON of each: NaN is not equal to
        // itself as a value, and the order of map entries is not kept.
        assert_eq!(
            random::json::peer_json(&back),
            random::json::peer_json(&peer),
            "{json}: ours {ours:02x?}"
        );
    }
}

/// The six WhatsApp samples (built and encoded by prost): `decode --json`
/// then `encode` gives back prost's very bytes.
#[test]
fn whatsapp_samples_round_trip_to_prosts_bytes() {
    use quarry_proto_tests::samples::{Root, all};
    let file = wa_proto();
    for sample in all() {
        let root = match sample.root {
            Root::SyncActionData => "whatsapp.SyncActionData",
            Root::Message => "whatsapp.Message",
            Root::HistorySync => "whatsapp.HistorySync",
        };
        let json = ok(
            run("decode", &file, root, &["--json"], &sample.bytes),
            sample.name,
        );
        let ours = ok(run("encode", &file, root, &["--json"], &json), sample.name);
        assert!(ours == sample.bytes, "{}: bytes differ", sample.name);
    }
}
