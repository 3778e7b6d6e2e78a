//! `quarry wa encode --json`: the inverse of `decode --json`.

mod common;

use common::*;

fn encode(args: &[&str], json: &[u8]) -> Vec<u8> {
    let out = quarry(&[&["wa", "encode"][..], args, &["-"]].concat(), json);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "status {:?}, stderr {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// decode --json, encode --json, and the peer decodes the new bytes to the
/// same document.
fn assert_round_trip(name: &str, bytes: &[u8]) {
    let json = success(&quarry(&["wa", "decode", "--json", "-"], bytes));
    let encoded = encode(&["--json"], json.as_bytes());
    assert_eq!(
        expected_for_node_bytes(&encoded),
        json,
        "{name}: node bytes"
    );
    let framed = encode(&["--json", "--framed"], json.as_bytes());
    assert_eq!(framed[0], 0x00, "{name}: flags byte");
    assert_eq!(framed[1..], encoded[..], "{name}: framed body");
    // And our own decoder reads it back the same way.
    let again = success(&quarry(
        &["wa", "decode", "--framed", "--json", "-"],
        &framed,
    ));
    assert_eq!(again, json, "{name}: decode of the encoded frame");
}

#[test]
fn shapes_round_trip() {
    for (name, tree) in shapes() {
        assert_round_trip(name, &node_bytes(&tree));
    }
}

#[test]
fn edge_vectors_round_trip() {
    for (name, bytes) in edge_vectors() {
        assert_round_trip(name, &bytes);
    }
}

/// Where the peer's encoding is canonical, ours is the same bytes. The
/// fanout is not: the peer writes device 0 of `…:0@s.whatsapp.net` as an
/// AD_JID, which decodes to a JID with no device and is written back as a
/// JID_PAIR (spec section 7, "Re-encoding a decoded tree can change bytes").
#[test]
fn same_bytes_as_the_peer_encoder() {
    for (name, tree) in shapes() {
        let bytes = node_bytes(&tree);
        let json = success(&quarry(&["wa", "decode", "--json", "-"], &bytes));
        let ours = encode(&["--json"], json.as_bytes());
        if name == "fanout" {
            assert_ne!(ours, bytes, "{name}");
            assert_eq!(
                ours.len(),
                bytes.len() - 1,
                "{name}: AD_JID = 247 domain device user, JID_PAIR = 250 user server-token"
            );
        } else {
            assert_eq!(ours, bytes, "{name}");
        }
    }
}

#[test]
fn hand_computed_bytes() {
    // Tokens: message = 19, type = 4, enc = 29 (spec section 4, v3 table).
    let json = br#"{"tag":"message","attrs":[["type","enc"]],"content":null}"#;
    assert_eq!(encode(&["--json"], json), [0xF8, 3, 19, 4, 29]);
    assert_eq!(
        encode(&["--json", "--framed"], json),
        [0x00, 0xF8, 3, 19, 4, 29]
    );
    // Members in another order, whitespace, attrs and content left out.
    let json = b" { \"tag\" : \"message\" } \n";
    assert_eq!(encode(&["--json"], json), [0xF8, 1, 19]);
    // Bytes content: BINARY_8; upper-case hex accepted.
    let json = br#"{"tag":"message","attrs":[],"content":{"bytes":"AB01"}}"#;
    assert_eq!(
        encode(&["--json"], json),
        [0xF8, 2, 19, 0xFC, 2, 0xAB, 0x01]
    );
    // The empty string is BINARY_8 00 in every slot, tag and key included
    // (as WhatsApp's encoder writes it; the decoder reads it back).
    assert_eq!(encode(&["--json"], br#"{"tag":""}"#), [0xF8, 1, 0xFC, 0]);
    assert_eq!(
        encode(&["--json"], br#"{"tag":"","attrs":[["",""]]}"#),
        [0xF8, 3, 0xFC, 0, 0xFC, 0, 0xFC, 0]
    );
}

fn assert_encode_fails(json: &[u8], starts: &str) {
    for framed in [false, true] {
        let args: &[&str] = if framed {
            &["--json", "--framed"]
        } else {
            &["--json"]
        };
        let out = quarry(&[&["wa", "encode"][..], args, &["-"]].concat(), json);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}",
            String::from_utf8_lossy(json)
        );
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.starts_with(&format!("error: {starts}")) && stderr.ends_with('\n'),
            "{}: {stderr}",
            String::from_utf8_lossy(json)
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}

#[test]
fn malformed_json_exits_2() {
    assert_encode_fails(b"", "invalid JSON");
    assert_encode_fails(b"{\"tag\":", "invalid JSON");
    assert_encode_fails(b"{\"tag\":\"a\"} x", "invalid JSON");
    assert_encode_fails(b"[1]", "$: expected a node");
    assert_encode_fails(
        b"{\"tag\":\"a\",\"attrs\":{}}",
        "$.attrs: expected an array",
    );
    assert_encode_fails(b"\xff", "invalid JSON");
    assert_encode_fails(
        "[".repeat(100_000).as_bytes(),
        "JSON nested deeper than 400 levels",
    );
}

#[test]
fn unencodable_trees_exit_2() {
    // 129 node levels: past the encoder's (and the decoder's) depth of 128.
    let mut json = String::new();
    for _ in 0..128 {
        json.push_str("{\"tag\":\"n\",\"content\":{\"nodes\":[");
    }
    json.push_str("{\"tag\":\"leaf\"}");
    json.push_str(&"]}}".repeat(128));
    assert_encode_fails(json.as_bytes(), "cannot encode");
}

#[test]
fn deepest_tree_round_trips() {
    // 128 node levels: the most both decoders accept.
    let mut bytes = Vec::new();
    for _ in 0..127 {
        bytes.extend_from_slice(&[0xF8, 2, 19, 0xF8, 1]);
    }
    bytes.extend_from_slice(&[0xF8, 1, 19]);
    assert_round_trip("128 levels", &bytes);
}
