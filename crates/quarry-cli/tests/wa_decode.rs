//! `quarry wa decode --json`: the output is compared byte for byte with a
//! document built from the peer's (`wacore-binary`) decode of the same
//! bytes, and parsed as JSON.

mod common;

use common::*;
use wacore_binary::token::{TokenKind, index_of_token};

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
    let arena = quarry::Arena::new();
    let node = quarry_wa::decode(&arena, &bytes).unwrap();
    assert_eq!(out, format!("{node}\n"));
    assert!(
        out.starts_with("<message to=\"5511999990000@g.us\""),
        "{out}"
    );
}

fn tok(text: &str) -> Vec<u8> {
    match index_of_token(text).unwrap_or_else(|| panic!("{text} is a token")) {
        TokenKind::Single(b) => vec![b],
        TokenKind::Double(d, i) => vec![236 + d, i],
    }
}

fn raw(text: &[u8]) -> Vec<u8> {
    let mut out = vec![0xFC, u8::try_from(text.len()).unwrap()];
    out.extend_from_slice(text);
    out
}

/// A node: LIST_8 header with the right size, then the pieces.
fn node(tag: Vec<u8>, attrs: &[(Vec<u8>, Vec<u8>)], content: Option<Vec<u8>>) -> Vec<u8> {
    let n = 1 + 2 * attrs.len() + usize::from(content.is_some());
    let mut out = vec![0xF8, u8::try_from(n).unwrap()];
    out.extend(tag);
    for (k, v) in attrs {
        out.extend(k);
        out.extend(v);
    }
    out.extend(content.unwrap_or_default());
    out
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// Hand-made vectors for every value kind and the spec's accepted
/// oddities (section 9), each decoded by the peer for the expectation.
fn edge_vectors() -> Vec<(&'static str, Vec<u8>)> {
    let pn = tok("s.whatsapp.net");
    let nibble_12 = vec![0xFF, 0x01, 0x12];
    let jid_pair = cat(&[&[0xFA], &nibble_12, &pn]);
    let group_no_user = cat(&[&[0xFA, 0x00], &tok("g.us")]);
    let ad_lid_dev3 = cat(&[&[0xF7, 1, 3], &nibble_12]);
    let ad_pn_dev0 = cat(&[&[0xF7, 0, 0], &nibble_12]);
    let interop = cat(&[
        &[0xF5],
        &raw(b"abc"),
        &[0x01, 0x02, 0x00, 0x07],
        &raw(b"interop"),
    ]);
    let fb = cat(&[&[0xF6], &raw(b"fbuser"), &[0x00, 0x05], &raw(b"msgr")]);
    let msg = tok("message");
    let ty = tok("type");
    let odd = "q\"uote\\ \n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f} é ✓ \u{2028}\u{2029} 😀";
    vec![
        ("bare tag", node(msg.clone(), &[], None)),
        ("LIST_EMPTY content", node(msg.clone(), &[], Some(vec![0]))),
        (
            "empty child list",
            node(msg.clone(), &[], Some(vec![0xF8, 0])),
        ),
        (
            "empty attribute value",
            node(msg.clone(), &[(ty.clone(), vec![0])], None),
        ),
        ("token content", node(msg.clone(), &[], Some(tok("enc")))),
        ("double-byte token", node(tok("participants"), &[], None)),
        (
            "JID_PAIR value",
            node(msg.clone(), &[(tok("to"), jid_pair.clone())], None),
        ),
        (
            "JID_PAIR empty user",
            node(msg.clone(), &[(tok("to"), group_no_user.clone())], None),
        ),
        (
            "AD_JID value",
            node(msg.clone(), &[(tok("to"), ad_lid_dev3.clone())], None),
        ),
        (
            "AD_JID device 0",
            node(msg.clone(), &[(tok("to"), ad_pn_dev0.clone())], None),
        ),
        (
            "INTEROP_JID value",
            node(msg.clone(), &[(tok("to"), interop.clone())], None),
        ),
        (
            "FB_JID value",
            node(msg.clone(), &[(tok("to"), fb.clone())], None),
        ),
        ("JID in tag position", node(jid_pair.clone(), &[], None)),
        (
            "AD_JID in tag position",
            node(ad_lid_dev3.clone(), &[], None),
        ),
        (
            "JID in key position",
            node(msg.clone(), &[(ad_lid_dev3.clone(), raw(b"v"))], None),
        ),
        (
            "JID_PAIR content",
            node(msg.clone(), &[], Some(jid_pair.clone())),
        ),
        (
            "server-only JID content",
            node(msg.clone(), &[], Some(group_no_user)),
        ),
        ("interop content", node(msg.clone(), &[], Some(interop))),
        ("FB content", node(msg.clone(), &[], Some(fb))),
        (
            "nibble NUL quirk",
            node(
                msg.clone(),
                &[(ty.clone(), vec![0xFF, 0x02, 0x1F, 0x23])],
                None,
            ),
        ),
        (
            "nibble odd flag",
            node(
                msg.clone(),
                &[(ty.clone(), vec![0xFF, 0x82, 0x1B, 0x2A])],
                None,
            ),
        ),
        (
            "hex odd flag",
            node(
                msg.clone(),
                &[(ty.clone(), vec![0xFB, 0x82, 0x3E, 0xB0])],
                None,
            ),
        ),
        (
            "packed content",
            node(msg.clone(), &[], Some(vec![0xFB, 0x02, 0xAB, 0xCD])),
        ),
        ("packed tag", node(vec![0xFF, 0x01, 0x12], &[], None)),
        (
            "escapes in tag, key, value",
            node(
                raw(odd.as_bytes()),
                &[(raw(odd.as_bytes()), raw(odd.as_bytes()))],
                None,
            ),
        ),
        (
            "raw text content is bytes",
            node(msg.clone(), &[], Some(raw(odd.as_bytes()))),
        ),
        (
            "non-UTF-8 bytes content",
            node(msg.clone(), &[], Some(raw(&[0xFF, 0x00, 0x80]))),
        ),
        (
            "empty bytes content",
            node(msg.clone(), &[], Some(vec![0xFC, 0])),
        ),
        (
            "BINARY_20 with a top nibble",
            node(
                msg.clone(),
                &[],
                Some(cat(&[&[0xFD, 0xF0, 0x01, 0x2C], &[7u8; 300]])),
            ),
        ),
        (
            "BINARY_32",
            node(msg.clone(), &[], Some(cat(&[&[0xFE, 0, 0, 0, 3], b"abc"]))),
        ),
        (
            "LIST_16 header and children",
            cat(&[
                &[0xF9, 0x00, 0x02],
                &msg,
                &[0xF9, 0x00, 0x02],
                &node(tok("enc"), &[], None),
                &node(tok("to"), &[], None),
            ]),
        ),
        (
            "duplicate keys",
            node(
                msg.clone(),
                &[(ty.clone(), raw(b"a")), (ty.clone(), raw(b"b"))],
                None,
            ),
        ),
        (
            "nested children",
            node(
                msg.clone(),
                &[(ty.clone(), raw(b"x"))],
                Some(cat(&[
                    &[0xF8, 2],
                    &node(tok("enc"), &[(tok("v"), raw(b"2"))], Some(raw(&[1, 2, 3]))),
                    &node(
                        tok("to"),
                        &[],
                        Some(cat(&[&[0xF8, 1], &node(tok("enc"), &[], None)])),
                    ),
                ])),
            ),
        ),
    ]
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
