//! `quarry proto decode --json` on the well-known types: the forms
//! protobuf's JSON mapping gives them (expected strings written from the
//! mapping's rules and checked dates), and the values protobuf's printer
//! refuses, which exit 2. Inputs are built and encoded by prost-reflect.

mod common;

use std::path::{Path, PathBuf};

use common::proto_decode;
use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, MapKey, MessageDescriptor, Value};

fn schema_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/wkt.proto")
}

fn known() -> MessageDescriptor {
    let dir = schema_path().parent().expect("a directory").to_path_buf();
    let set = protox::compile(["wkt.proto"], [dir]).expect("the schema compiles");
    let pool = DescriptorPool::from_file_descriptor_set(set).expect("descriptors");
    pool.get_message_by_name("quarry.wkt.Known").expect("Known")
}

/// A message of `desc`'s field `field`'s type, with `fields` set.
fn sub(desc: &MessageDescriptor, field: &str, fields: &[(&str, Value)]) -> DynamicMessage {
    let f = desc.get_field_by_name(field).expect("field");
    let prost_reflect::Kind::Message(m) = f.kind() else {
        panic!("{field} is not a message field");
    };
    message(&m, fields)
}

fn message(desc: &MessageDescriptor, fields: &[(&str, Value)]) -> DynamicMessage {
    let mut m = DynamicMessage::new(desc.clone());
    for (name, value) in fields {
        m.set_field_by_name(name, value.clone());
    }
    m
}

/// `quarry proto decode --json` of `bytes` as a `Known`.
fn decode_known(bytes: &[u8]) -> std::process::Output {
    decode_as("quarry.wkt.Known", bytes)
}

/// `quarry proto decode --json` of `bytes` as `type_name`, with the test
/// schema (which imports the well-known types).
fn decode_as(type_name: &str, bytes: &[u8]) -> std::process::Output {
    proto_decode(&schema_path(), type_name, &["--json"], bytes)
}

/// The `Known` message with `field` set to `value`, through the CLI.
fn run(field: &str, value: Value) -> std::process::Output {
    let mut m = DynamicMessage::new(known());
    m.set_field_by_name(field, value);
    decode_known(&m.encode_to_vec())
}

fn json_of(field: &str, value: Value) -> String {
    let out = run(field, value);
    common::success(&out).trim_end().to_owned()
}

fn time(seconds: i64, nanos: i32) -> Value {
    Value::Message(sub(
        &known(),
        "time",
        &[
            ("seconds", Value::I64(seconds)),
            ("nanos", Value::I32(nanos)),
        ],
    ))
}

fn span(seconds: i64, nanos: i32) -> Value {
    Value::Message(sub(
        &known(),
        "span",
        &[
            ("seconds", Value::I64(seconds)),
            ("nanos", Value::I32(nanos)),
        ],
    ))
}

/// A `google.protobuf.Value` holding `kind` (a field name of `Value`).
fn value(kind: &str, v: Value) -> Value {
    Value::Message(sub(&known(), "value", &[(kind, v)]))
}

fn empty_value() -> Value {
    Value::Message(sub(&known(), "value", &[]))
}

#[test]
fn timestamps_are_rfc3339_with_3_6_or_9_fraction_digits() {
    for (seconds, nanos, want) in [
        (1_234_567_890, 0, "2009-02-13T23:31:30Z"),
        (951_782_400, 0, "2000-02-29T00:00:00Z"),
        (-1, 0, "1969-12-31T23:59:59Z"),
        (0, 10_000_000, "1970-01-01T00:00:00.010Z"),
        (0, 10_000, "1970-01-01T00:00:00.000010Z"),
        (0, 1, "1970-01-01T00:00:00.000000001Z"),
        (-62_135_596_800, 0, "0001-01-01T00:00:00Z"),
        (
            253_402_300_799,
            999_999_999,
            "9999-12-31T23:59:59.999999999Z",
        ),
    ] {
        let got = json_of("time", time(seconds, nanos));
        assert_eq!(
            got,
            format!(r#"{{"time":"{want}"}}"#),
            "{seconds} s {nanos} ns"
        );
    }
}

#[test]
fn durations_are_seconds_with_an_s() {
    for (seconds, nanos, want) in [
        (3, 0, "3s"),
        (-3, 0, "-3s"),
        (1, 500_000_000, "1.500s"),
        (-1, -500_000_000, "-1.500s"),
        (0, -1, "-0.000000001s"),
        (0, 1_000, "0.000001s"),
        (315_576_000_000, 0, "315576000000s"),
    ] {
        let got = json_of("span", span(seconds, nanos));
        assert_eq!(
            got,
            format!(r#"{{"span":"{want}"}}"#),
            "{seconds} s {nanos} ns"
        );
    }
}

#[test]
fn field_masks_wrappers_and_null() {
    let mask = Value::Message(sub(
        &known(),
        "mask",
        &[(
            "paths",
            Value::List(vec![
                Value::String("foo_bar".into()),
                Value::String("a.b_c2".into()),
            ]),
        )],
    ));
    assert_eq!(json_of("mask", mask), r#"{"mask":"fooBar,a.bC2"}"#);
    let wrapper =
        |field: &str, fields: &[(&str, Value)]| Value::Message(sub(&known(), field, fields));
    for (field, inner, want) in [
        ("i64", vec![("value", Value::I64(-5))], r#""-5""#),
        ("i64", vec![], r#""0""#),
        ("u32", vec![("value", Value::U32(7))], "7"),
        ("flag", vec![], "false"),
        (
            "text",
            vec![("value", Value::String("a<".into()))],
            r#""a\u003c""#,
        ),
        (
            "blob",
            vec![("value", Value::Bytes(vec![0xFF].into()))],
            r#""/w==""#,
        ),
        ("real", vec![("value", Value::F64(f64::NAN))], r#""NaN""#),
        ("single", vec![("value", Value::F32(0.1))], "0.1"),
    ] {
        let got = json_of(field, wrapper(field, &inner));
        assert_eq!(got, format!(r#"{{"{field}":{want}}}"#), "{field}");
    }
    // NullValue's only value is 0, which proto3 leaves off the wire; a
    // Value holding null_value prints null.
    assert_eq!(
        json_of("value", value("null_value", Value::EnumNumber(0))),
        r#"{"value":null}"#
    );
    // An empty Empty is an empty object.
    assert_eq!(
        json_of("empty", Value::Message(sub(&known(), "empty", &[]))),
        r#"{"empty":{}}"#
    );
}

#[test]
fn struct_value_and_list_value_are_plain_json_without_empty_values() {
    let desc = known();
    assert_eq!(
        json_of("value", value("number_value", Value::F64(2.5))),
        r#"{"value":2.5}"#
    );
    assert_eq!(
        json_of("value", value("string_value", Value::String("s".into()))),
        r#"{"value":"s"}"#
    );
    assert_eq!(
        json_of("value", value("bool_value", Value::Bool(true))),
        r#"{"value":true}"#
    );
    // A Value holding nothing is left out, as a field.
    assert_eq!(json_of("value", empty_value()), "{}");
    let value_desc = match desc.get_field_by_name("value").expect("value").kind() {
        prost_reflect::Kind::Message(m) => m,
        _ => unreachable!(),
    };
    let list_desc = match desc.get_field_by_name("list").expect("list").kind() {
        prost_reflect::Kind::Message(m) => m,
        _ => unreachable!(),
    };
    let list = message(
        &list_desc,
        &[(
            "values",
            Value::List(vec![
                Value::Message(message(
                    &value_desc,
                    &[("string_value", Value::String("x".into()))],
                )),
                Value::Message(message(&value_desc, &[])),
                Value::Message(message(&value_desc, &[("bool_value", Value::Bool(false))])),
            ]),
        )],
    );
    assert_eq!(
        json_of("list", Value::Message(list.clone())),
        r#"{"list":["x",false]}"#
    );
    let mut fields = std::collections::HashMap::new();
    fields.insert(
        MapKey::String("a".into()),
        Value::Message(message(&value_desc, &[("number_value", Value::F64(1.0))])),
    );
    fields.insert(
        MapKey::String("gone".into()),
        Value::Message(message(&value_desc, &[])),
    );
    fields.insert(
        MapKey::String("l".into()),
        Value::Message(message(
            &value_desc,
            &[("list_value", Value::Message(list))],
        )),
    );
    let doc = Value::Message(sub(&desc, "doc", &[("fields", Value::Map(fields))]));
    let got: serde_json::Value = serde_json::from_str(&json_of("doc", doc)).expect("JSON");
    assert_eq!(got, serde_json::json!({"doc": {"a": 1, "l": ["x", false]}}));
    // Repeated and map fields of Value drop empty Values too.
    let values = Value::List(vec![
        Value::Message(message(&value_desc, &[])),
        Value::Message(message(
            &value_desc,
            &[("null_value", Value::EnumNumber(0))],
        )),
    ]);
    assert_eq!(json_of("values", values), r#"{"values":[null]}"#);
}

#[test]
fn any_prints_the_packed_message_with_its_type() {
    let desc = known();
    let inner_desc = desc
        .parent_pool()
        .get_message_by_name("quarry.wkt.Inner")
        .expect("Inner");
    let inner = message(
        &inner_desc,
        &[("x", Value::I32(1)), ("name", Value::String("n".into()))],
    );
    let any = |url: &str, bytes: Vec<u8>| {
        Value::Message(sub(
            &desc,
            "any",
            &[
                ("type_url", Value::String(url.into())),
                ("value", Value::Bytes(bytes.into())),
            ],
        ))
    };
    let url = "type.googleapis.com/quarry.wkt.Inner";
    assert_eq!(
        json_of("any", any(url, inner.encode_to_vec())),
        r#"{"any":{"@type":"type.googleapis.com/quarry.wkt.Inner","x":1,"name":"n"}}"#
    );
    // A well-known packed type: its form under "value".
    let stamp = match time(1_234_567_890, 0) {
        Value::Message(m) => m.encode_to_vec(),
        _ => unreachable!(),
    };
    assert_eq!(
        json_of(
            "any",
            any("type.googleapis.com/google.protobuf.Timestamp", stamp)
        ),
        r#"{"any":{"@type":"type.googleapis.com/google.protobuf.Timestamp","value":"2009-02-13T23:31:30Z"}}"#
    );
    assert_eq!(
        json_of("any", Value::Message(sub(&desc, "any", &[]))),
        r#"{"any":{}}"#
    );
    // A type URL and no value: how an empty message packs. It prints as the
    // empty message (a well-known one in its form under "value"), as
    // protobuf's C++ and Python printers print it.
    assert_eq!(
        json_of("any", any(url, Vec::new())),
        r#"{"any":{"@type":"type.googleapis.com/quarry.wkt.Inner"}}"#
    );
    assert_eq!(
        json_of(
            "any",
            any("type.googleapis.com/google.protobuf.Timestamp", Vec::new())
        ),
        r#"{"any":{"@type":"type.googleapis.com/google.protobuf.Timestamp","value":"1970-01-01T00:00:00Z"}}"#
    );
    // A packed `Value` that holds nothing (here only an unknown field 7):
    // null under "value", as Python's printer writes it.
    assert_eq!(
        json_of(
            "any",
            any(
                "type.googleapis.com/google.protobuf.Value",
                vec![0x38, 0x01]
            )
        ),
        r#"{"any":{"@type":"type.googleapis.com/google.protobuf.Value","value":null}}"#
    );
}

/// Values protobuf's printer refuses: exit 2, one `error:` line.
#[test]
fn what_json_cannot_carry_exits_2() {
    let desc = known();
    let any = |fields: &[(&str, Value)]| Value::Message(sub(&desc, "any", fields));
    // An `Any` of `url` holding field 1 = 1.
    let packed = |url: &str| {
        any(&[
            ("type_url", Value::String(url.into())),
            ("value", Value::Bytes(vec![8, 1].into())),
        ])
    };
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "time",
            time(253_402_300_800, 0),
            "maximum acceptable time value",
        ),
        (
            "time",
            time(-62_135_596_801, 0),
            "minimum acceptable time value",
        ),
        // Nanos outside 0..=999,999,999 (protobuf's C++ printer checks
        // them after the seconds).
        ("time", time(7, -1), "nanos must be in range"),
        ("time", time(0, 1_000_000_000), "nanos must be in range"),
        ("time", time(0, i32::MAX), "nanos must be in range"),
        ("span", span(1, -1), "signs do not match"),
        ("span", span(315_576_000_001, 0), "duration out of range"),
        ("span", span(0, 1_000_000_000), "duration out of range"),
        ("value", value("number_value", Value::F64(f64::NAN)), "NaN"),
        (
            "value",
            value("number_value", Value::F64(f64::INFINITY)),
            "infinity",
        ),
        (
            "mask",
            Value::Message(sub(
                &desc,
                "mask",
                &[("paths", Value::List(vec![Value::String("Foo".into())]))],
            )),
            "unexpected character",
        ),
        (
            // C++ takes only `a`-`z`, `0`-`9`, `.` and single `_`s in a path;
            // protobuf's Python printer would print these control
            // characters.
            "mask",
            Value::Message(sub(
                &desc,
                "mask",
                &[(
                    "paths",
                    Value::List(vec![Value::String("a\u{8}\u{1}".into())]),
                )],
            )),
            "unexpected character",
        ),
        (
            "any",
            any(&[("value", Value::Bytes(vec![8, 1].into()))]),
            "missing type URL",
        ),
        // C++'s rule for the URL: a host, a `/`, the type's full name
        // (Python's printer would take these two).
        ("any", packed("quarry.wkt.Inner"), "nonempty host"),
        ("any", packed("/quarry.wkt.Inner"), "nonempty host"),
        ("any", packed("x/quarry.wkt.Nope"), "not in the schema"),
        (
            "any",
            any(&[
                ("type_url", Value::String("x/quarry.wkt.Inner".into())),
                // Field 2 (a string) cut short.
                ("value", Value::Bytes(vec![0x12, 0x05, b'a'].into())),
            ]),
            "Inner value",
        ),
    ];
    for (field, v, what) in cases {
        let out = run(field, v);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{field}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8(out.stderr).expect("UTF-8");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(what),
            "{field}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}

/// `Any` packed in `Any`, `levels` deep, around an `Inner { x: 1 }`.
fn any_chain(levels: usize) -> Vec<u8> {
    fn any(url: &str, value: &[u8]) -> Vec<u8> {
        let mut out = vec![0x0A, url.len() as u8];
        out.extend_from_slice(url.as_bytes());
        out.push(0x12);
        prost::encoding::encode_varint(value.len() as u64, &mut out);
        out.extend_from_slice(value);
        out
    }
    let mut bytes = any("x/quarry.wkt.Inner", &[0x08, 0x01]);
    for _ in 1..levels {
        bytes = any("x/google.protobuf.Any", &bytes);
    }
    // Known.any is field 7.
    let mut known = vec![0x3A];
    prost::encoding::encode_varint(bytes.len() as u64, &mut known);
    known.extend(bytes);
    known
}

#[test]
fn any_chains_are_printed_to_a_bounded_depth() {
    // Known, then one level per Any: 199 levels print.
    let out = decode_known(&any_chain(198));
    let json = common::success(&out);
    // (Deeper than serde_json reads by default: checked as text.)
    let layer = r#"{"@type":"x/google.protobuf.Any","value":"#;
    let want = format!(
        r#"{{"any":{}{{"@type":"x/quarry.wkt.Inner","x":1}}{}}}"#,
        layer.repeat(197),
        "}".repeat(197)
    );
    assert_eq!(json.trim_end(), want);
    // Past MAX_JSON_DEPTH (200): an error, not a stack overflow.
    for levels in [200, 5_000] {
        let out = decode_known(&any_chain(levels));
        assert_eq!(out.status.code(), Some(2), "{levels}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("nested deeper than 200 levels"),
            "{levels}: {stderr}"
        );
    }
}

/// A well-known type at the root prints its own form; a
/// `google.protobuf.Value` that holds nothing prints `null` there (as
/// protobuf's Python printer; C++ prints nothing, which is not JSON).
#[test]
fn well_known_roots_print_their_form() {
    let root = |type_name: &str, bytes: &[u8]| {
        common::success(&decode_as(type_name, bytes))
            .trim_end()
            .to_owned()
    };
    assert_eq!(root("google.protobuf.Value", &[]), "null");
    // Only an unknown field (7): still no kind.
    assert_eq!(root("google.protobuf.Value", &[0x38, 0x01]), "null");
    // bool_value (4) = true.
    assert_eq!(root("google.protobuf.Value", &[0x20, 0x01]), "true");
    assert_eq!(
        root("google.protobuf.Timestamp", &[]),
        r#""1970-01-01T00:00:00Z""#
    );
    assert_eq!(root("google.protobuf.Struct", &[]), "{}");
    assert_eq!(root("google.protobuf.Int64Value", &[]), r#""0""#);
}
