//! `quarry wa decode --json`: the output is compared byte for byte with a
//! document built from the peer's (`wacore-binary`) decode of the same
//! bytes, and parsed as JSON.

mod common;

use common::*;

fn assert_json_matches(args: &[&str], input: &[u8], expected: &str) {
    let out = success(&quarry(args, input));
    assert_eq!(out, expected, "args {args:?}");
    let parsed: serde_json::Value = serde_json::from_str(&out).expect("output is JSON");
    assert!(parsed.is_object());
}

#[test]
fn benchmark_shapes_agree_with_the_peer() {
    for (name, tree) in shapes() {
        let bytes = node_bytes(&tree);
        let expected = expected_for_node_bytes(&bytes);
        let out = success(&quarry(&["wa", "decode", "--json", "-"], &bytes));
        assert!(
            out == expected,
            "{name}: output differs from the peer's decode"
        );
    }
}

#[test]
fn framed_and_compressed_shapes_agree_with_the_peer() {
    for (name, tree) in shapes() {
        let bytes = node_bytes(&tree);
        let mut plain = vec![0x00];
        plain.extend_from_slice(&bytes);
        // Other flag bits are ignored; only 0x02 means compressed.
        let mut other_bits = vec![0xF9];
        other_bits.extend_from_slice(&bytes);
        let compressed = compressed_frame(&bytes);
        for frame in [plain, other_bits, compressed] {
            let expected = expected_for_frame(&frame);
            let out = success(&quarry(
                &["wa", "decode", "--framed", "--json", "-"],
                &frame,
            ));
            assert!(out == expected, "{name} (flags {:#04x}) differs", frame[0]);
        }
    }
}

#[test]
fn reads_a_file_argument() {
    let bytes = node_bytes(&fanout());
    let path = temp_file("fanout.bin", &bytes);
    let out = success(&quarry(
        &["wa", "decode", "--json", path.to_str().unwrap()],
        b"",
    ));
    assert_eq!(out, expected_for_node_bytes(&bytes));
}

#[test]
fn default_output_is_the_xml_like_display() {
    let bytes = node_bytes(&fanout());
    let out = success(&quarry(&["wa", "decode", "-"], &bytes));
    let arena = quarry_core::Arena::new();
    let node = quarry_wa::decode(&arena, &bytes).unwrap();
    assert_eq!(out, format!("{node}\n"));
    assert!(
        out.starts_with("<message to=\"5511999990000@g.us\""),
        "{out}"
    );
}

#[test]
fn edge_vectors_agree_with_the_peer() {
    for (name, bytes) in edge_vectors() {
        let expected = expected_for_node_bytes(&bytes);
        let out = success(&quarry(&["wa", "decode", "--json", "-"], &bytes));
        assert_eq!(out, expected, "{name}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut frame = vec![0x00];
        frame.extend_from_slice(&bytes);
        assert_json_matches(
            &["wa", "decode", "--framed", "--json", "-"],
            &frame,
            &expected,
        );
        let frame = compressed_frame(&bytes);
        assert_json_matches(
            &["wa", "decode", "--framed", "--json", "-"],
            &frame,
            &expected,
        );
    }
}

#[test]
fn hand_computed_document() {
    // <message type="enc"/> in tokens: the canonical form, byte for byte.
    let out = success(&quarry(
        &["wa", "decode", "--json", "-"],
        &[0xF8, 3, 19, 4, 29],
    ));
    assert_eq!(
        out,
        "{\"tag\":\"message\",\"attrs\":[[\"type\",\"enc\"]],\"content\":null}\n"
    );
}
