//! `quarry proto decode`, run as a process, checked against prost-reflect:
//! random messages of the project's test schemas (proto2 and proto3) are
//! built and encoded by prost-reflect; the CLI's `--json` must be the same
//! JSON value as prost-reflect's canonical JSON mapping, and its text
//! format must parse (with prost-reflect's text-format parser) back to the
//! very message. Then `--repeat`, `--reuse-arena`, and the exit codes.

mod common;
// The seeded random-message generator of quarry-proto-tests' agreement
// tests (it needs only prost-reflect), shared rather than copied.
#[path = "../../quarry-proto-tests/tests/common/mod.rs"]
mod random;

use std::path::{Path, PathBuf};

use common::quarry;
use prost::Message as _;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor};

/// The test schemas, where the repository keeps them.
fn proto_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../quarry-proto-tests/proto")
}

/// WhatsApp's schema, in the waproto package (an absolute path, which the
/// helpers below take as it is).
fn wa_proto() -> String {
    format!("{}/whatsapp.proto", quarry_proto_tests::WA_PROTO_DIR)
}

/// The descriptors of `file` (in the test schemas' directory, or an
/// absolute path), compiled by protox (the same compiler the CLI uses, but
/// read here by prost-reflect, whose decoder and printers are its own).
fn pool(file: &str) -> DescriptorPool {
    let path = proto_dir().join(file);
    let dir = path.parent().expect("a directory");
    let name = path.file_name().expect("a file name");
    let set = protox::compile([name], [dir]).expect("the schema compiles");
    DescriptorPool::from_file_descriptor_set(set).expect("descriptors")
}

fn decode_args<'a>(file: &'a str, name: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let proto = Box::leak(
        proto_dir()
            .join(file)
            .to_string_lossy()
            .into_owned()
            .into_boxed_str(),
    );
    let mut args = vec!["proto", "decode", "--proto", proto, "--type", name];
    args.extend_from_slice(extra);
    args.push("-");
    args
}

/// Run the CLI on `bytes`; its stdout on success.
fn cli(file: &str, name: &str, extra: &[&str], bytes: &[u8]) -> String {
    let out = quarry(&decode_args(file, name, extra), bytes);
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn check(file: &str, desc: &MessageDescriptor, generated: &DynamicMessage) {
    check_bytes(file, desc, &generated.encode_to_vec());
}

/// The CLI's JSON and text format of `bytes` against prost-reflect's
/// reading of them.
fn check_bytes(file: &str, desc: &MessageDescriptor, bytes: &[u8]) {
    let name = desc.full_name();
    // What the bytes mean, as prost-reflect decodes them (a generated field
    // set to its default is not on the wire, so it is not set here).
    let msg = &DynamicMessage::decode(desc.clone(), bytes).expect("peer decodes");

    let json = cli(file, name, &["--json"], bytes);
    assert!(json.ends_with('\n') && json.lines().count() == 1, "{json}");
    let ours: serde_json::Value = serde_json::from_str(&json).expect("the CLI prints JSON");
    let peer = random::json::peer_json(msg);
    if let Some(at) = random::json::first_difference(&ours, &peer) {
        panic!("JSON differs at {at}\nours: {ours}\npeer: {peer}\nbytes: {bytes:02x?}");
    }

    let text = cli(file, name, &[], bytes);
    let back = DynamicMessage::parse_text_format(desc.clone(), &text)
        .unwrap_or_else(|e| panic!("prost-reflect cannot parse our text format: {e}\n{text}"));
    // (prost-reflect's Debug of a message recurses through its
    // descriptors, so mismatches are shown in text format.)
    assert!(
        &back == msg,
        "text format of {bytes:02x?}:\n{text}\nreads back as\n{}\nnot\n{}",
        back.to_text_format(),
        msg.to_text_format()
    );
}

#[test]
fn random_messages_print_as_prost_reflect_reads_and_writes_them() {
    for (file, root) in [
        ("test3.proto", "quarry.test3.All3"),
        ("test2.proto", "quarry.test2.All2"),
    ] {
        let pool = pool(file);
        let desc = pool.get_message_by_name(root).expect("root type");
        let mut generator = random::Gen::new(0x5EED_0000 ^ root.len() as u64);
        for _ in 0..48 {
            let msg = generator.message(&desc);
            check(file, &desc, &msg);
        }
    }
}

/// The same on random messages of WhatsApp's schema (the real one, from
/// the waproto package): the three roots the benchmarks decode.
#[test]
fn random_whatsapp_messages_print_as_prost_reflect_reads_and_writes_them() {
    let file = wa_proto();
    let pool = pool(&file);
    for root in [
        "whatsapp.Message",
        "whatsapp.SyncActionData",
        "whatsapp.HistorySync",
    ] {
        let desc = pool.get_message_by_name(root).expect("root type");
        let mut generator = random::Gen::new(0x3A_0000 ^ root.len() as u64);
        // Eight each: every run compiles the 5,000-line schema (about half
        // a second in a debug build).
        for _ in 0..8 {
            let msg = generator.message(&desc);
            check(&file, &desc, &msg);
        }
    }
}

/// A map field whose entries repeat a key holds the last entry of each key,
/// as a parsed map does in protobuf: the JSON object has one member per
/// key (protobuf 7.36's Python `json_format` printed this object for these
/// bytes), and the text format shows each key once, sorted by key. That is
/// what `protoc --decode` (libprotoc 35.1) printed for these bytes less the
/// entries a later entry overrides (`"b": "x"` and `7: MOOD_SAD`), which
/// protoc's dynamic message keeps and prints (a documented difference).
#[test]
fn maps_with_repeated_keys_print_as_protobuf_does() {
    let pool = pool("test3.proto");
    let desc = pool.get_message_by_name("quarry.test3.All3").expect("root");
    // m_str (50): {"b": "x"}, {"a": "y"}, {"b": "z"}; m_mood (52,
    // fixed32 keys): {7: SAD}, {7: HAPPY}, {2: absent}.
    let mut bytes = Vec::new();
    bytes.extend([0x92, 0x03, 6, 0x0A, 1, b'b', 0x12, 1, b'x']);
    bytes.extend([0x92, 0x03, 6, 0x0A, 1, b'a', 0x12, 1, b'y']);
    bytes.extend([0x92, 0x03, 6, 0x0A, 1, b'b', 0x12, 1, b'z']);
    bytes.extend([0xA2, 0x03, 7, 0x0D, 7, 0, 0, 0, 0x10, 2]);
    bytes.extend([0xA2, 0x03, 7, 0x0D, 7, 0, 0, 0, 0x10, 1]);
    bytes.extend([0xA2, 0x03, 5, 0x0D, 2, 0, 0, 0]);
    check_bytes("test3.proto", &desc, &bytes);
    let json = cli("test3.proto", desc.full_name(), &["--json"], &bytes);
    assert_eq!(
        json.trim_end(),
        r#"{"mStr":{"a":"y","b":"z"},"mMood":{"2":"MOOD_UNSPECIFIED","7":"MOOD_HAPPY"}}"#
    );
    let text = cli("test3.proto", desc.full_name(), &[], &bytes);
    let entry = |field: &str, key: &str, value: &str| {
        format!("{field} {{\n  key: {key}\n  value: {value}\n}}\n")
    };
    let want = [
        entry("m_str", "\"a\"", "\"y\""),
        entry("m_str", "\"b\"", "\"z\""),
        entry("m_mood", "2", "MOOD_UNSPECIFIED"),
        entry("m_mood", "7", "MOOD_HAPPY"),
    ]
    .concat();
    assert_eq!(text, want);
}

#[test]
fn repeat_and_reuse_arena_decode_and_print_nothing() {
    let pool = pool("test3.proto");
    let desc = pool.get_message_by_name("quarry.test3.All3").expect("root");
    let bytes = random::Gen::new(7).message(&desc).encode_to_vec();
    for extra in [
        &["--repeat", "5"][..],
        &["--repeat=5", "--reuse-arena"],
        &["--repeat", "0"],
        &["--json", "--repeat", "2"],
    ] {
        let out = quarry(
            &decode_args("test3.proto", "quarry.test3.All3", extra),
            &bytes,
        );
        assert_eq!(common::success(&out), "", "{extra:?}");
    }
}

#[test]
fn malformed_input_exits_2_with_the_byte() {
    // All3: field 5 (f_int32), its varint cut (the input ends at byte 2);
    // field 9 (f_string), 5 bytes announced by the length at byte 1 and 1
    // there; field 1 (a double) with wire type 7; a tag of field 0 in five
    // bytes.
    let cases: [(&[u8], usize); 4] = [
        (&[0x28, 0x80], 2),
        (&[0x4A, 0x05, b'a'], 1),
        (&[0x0F], 0),
        (&[0x80, 0x80, 0x80, 0x80, 0x00], 0),
    ];
    for (bytes, offset) in cases {
        for extra in [
            &[][..],
            &["--json"],
            &["--repeat", "3"],
            &["--repeat", "3", "--reuse-arena"],
        ] {
            let out = quarry(
                &decode_args("test3.proto", "quarry.test3.All3", extra),
                bytes,
            );
            let line = common::assert_decode_error(&out, bytes.len());
            assert!(
                line.ends_with(&format!(" at byte {offset}")),
                "{bytes:02x?} {extra:?}: {line}"
            );
        }
    }
}

#[test]
fn schema_and_file_errors_exit_1_or_2() {
    let file = |args: &[&str]| quarry(args, b"");
    // The input file does not exist: an I/O error.
    let proto = proto_dir().join("test3.proto");
    let proto = proto.to_str().expect("UTF-8 path");
    let missing = file(&[
        "proto",
        "decode",
        "--proto",
        proto,
        "--type",
        "All3",
        "/no/such/input",
    ]);
    assert_eq!(missing.status.code(), Some(1));
    // Neither does the schema.
    let out = file(&[
        "proto",
        "decode",
        "--proto",
        "/no/such.proto",
        "--type",
        "M",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(1));
    // A type the schema does not have, a schema that does not compile, and
    // a missing --type: malformed input or usage, status 2.
    let out = file(&[
        "proto",
        "decode",
        "--proto",
        proto,
        "--type",
        "quarry.test3.Nope",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let broken = common::temp_file("broken.proto", b"syntax = \"proto3\"; message {");
    let broken = broken.to_str().expect("UTF-8 path");
    let out = file(&["proto", "decode", "--proto", broken, "--type", "M", "-"]);
    assert_eq!(out.status.code(), Some(2));
    let out = file(&["proto", "decode", "--proto", proto, "-"]);
    assert_eq!(out.status.code(), Some(2));
    for out in [missing, out] {
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("error: "), "{stderr}");
    }
}

/// `--include DIR` adds a place to find imports; the schema's own directory
/// stays one, so a schema outside DIR compiles (it did not: the schema was
/// "not in any include path"). A schema inside DIR takes its name below
/// DIR, as with protoc's `-I`, so a second file importing it by that name
/// does not define its types twice.
#[test]
fn include_adds_an_import_directory_beside_the_schemas_own() {
    let root = std::env::temp_dir().join(format!("quarry-include-{}", std::process::id()));
    let (schemas, shared) = (root.join("schemas"), root.join("shared"));
    std::fs::create_dir_all(schemas.join("sub")).expect("temp dir");
    std::fs::create_dir_all(&shared).expect("temp dir");
    std::fs::write(
        shared.join("dep.proto"),
        "syntax = \"proto3\";\npackage dep;\nmessage Dep { string s = 1; }\n",
    )
    .expect("write");
    std::fs::write(
        schemas.join("sub/base.proto"),
        "syntax = \"proto3\";\npackage base;\nmessage Base { int32 n = 1; }\n",
    )
    .expect("write");
    std::fs::write(
        schemas.join("sub/top.proto"),
        "syntax = \"proto3\";\npackage top;\nimport \"dep.proto\";\nimport \"sub/base.proto\";\n\
         message Top { dep.Dep dep = 1; base.Base base = 2; }\n",
    )
    .expect("write");
    let run = |proto: &Path, include: &Path| {
        let (proto, include) = (proto.to_str().unwrap(), include.to_str().unwrap());
        quarry(
            &[
                "proto",
                "decode",
                "--proto",
                proto,
                "--include",
                include,
                "--type",
                "top.Top",
                "--json",
                "-",
            ],
            // dep { s: "x" }, base { n: 5 }.
            &[0x0A, 0x03, 0x0A, 0x01, b'x', 0x12, 0x02, 0x08, 0x05],
        )
    };
    // dep.proto is found through --include, sub/base.proto nowhere: top.proto
    // lives in schemas/sub, so "sub/base.proto" is not below any directory.
    let out = run(&schemas.join("sub/top.proto"), &shared);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // With the imports side by side under one root, both resolve.
    std::fs::copy(shared.join("dep.proto"), schemas.join("dep.proto")).expect("copy");
    let out = run(&schemas.join("sub/top.proto"), &schemas);
    assert_eq!(
        common::success(&out).trim_end(),
        r#"{"dep":{"s":"x"},"base":{"n":5}}"#
    );
    // And a schema outside --include, importing only from it.
    std::fs::write(
        root.join("alone.proto"),
        "syntax = \"proto3\";\npackage top;\nimport \"dep.proto\";\nmessage Top { dep.Dep dep = 1; }\n",
    )
    .expect("write");
    let out = quarry(
        &[
            "proto",
            "decode",
            "--proto",
            root.join("alone.proto").to_str().unwrap(),
            "--include",
            shared.to_str().unwrap(),
            "--type",
            "top.Top",
            "--json",
            "-",
        ],
        &[0x0A, 0x03, 0x0A, 0x01, b'x'],
    );
    assert_eq!(common::success(&out).trim_end(), r#"{"dep":{"s":"x"}}"#);
    let _ = std::fs::remove_dir_all(&root);
}
