//! Hand-computed vectors from the format spec; token codes come from
//! the dictionary, never from the encoder.

use super::bound::CLASS_SLACK;
use super::*;
use crate::dictionary::Token;
use crate::jid::{Jid, Server};
use crate::owned::{OwnedContent, OwnedJid, OwnedNode, OwnedValue};
use crate::wire::*;

fn t(text: &str) -> Vec<u8> {
    match Dictionary::v3().lookup(text) {
        Some(Token::Single(b)) => vec![b],
        Some(Token::Double(d, i)) => vec![DICTIONARY_0 + d, i],
        None => panic!("{text} is not a token"),
    }
}

fn raw(text: &[u8]) -> Vec<u8> {
    assert!(text.len() < 256);
    [&[BINARY_8, text.len() as u8][..], text].concat()
}

fn token_or_raw(text: &str) -> Vec<u8> {
    match Dictionary::v3().lookup(text) {
        Some(_) => t(text),
        None => raw(text.as_bytes()),
    }
}

fn enc(node: &OwnedNode) -> Vec<u8> {
    encode(node).unwrap()
}

/// Wherever the stack scratch runs out, the bytes are the same: a stanza
/// with every kind of string (packed ones, a JID in text and a structured
/// one, a payload) encoded alone (it fits) and after a payload that ends
/// the scratch at each of its bytes in turn.
#[test]
fn the_encoding_is_the_same_wherever_the_scratch_runs_out() {
    let every_kind = OwnedNode::new("message")
        .attr("id", "3EB0A1B2C3D4E5F6")
        .attr("t", "1717000000")
        .attr("to", "5511999990000@s.whatsapp.net")
        .attr("notify", "Zoë")
        .attr("edit", "")
        .jid_attr(
            "participant",
            Jid::new("5511999990000", Server::Pn).with_device(3),
        )
        .children([
            OwnedNode::new("enc").attr("v", "2").bytes(vec![0xAB; 300]),
            OwnedNode::new("body").text("hello"),
        ]);
    let alone = enc(&every_kind);
    assert!(alone.len() < 400);
    // <iq><enc>payload</enc>every_kind</iq>: LIST_8 2, iq, LIST_8 2, then
    // the payload node (LIST_8 2, enc, BINARY_20 + 3 bytes, payload).
    let before_payload = 2 + 1 + 2 + 2 + 1 + 4;
    // Miri (which checks the scratch's unsafe read) runs a sample of the
    // positions: each encode there takes a quarter of a second.
    let step = if cfg!(miri) { 13 } else { 1 };
    for end in (0..=alone.len()).step_by(step) {
        let pad = SCRATCH_LEN - before_payload - end;
        let node = OwnedNode::new("iq").children([
            OwnedNode::new("enc").bytes(vec![0; pad]),
            every_kind.clone(),
        ]);
        let bytes = enc(&node);
        assert_eq!(
            bytes[bytes.len() - alone.len()..],
            alone[..],
            "scratch ends {end} bytes in"
        );
        assert_eq!(bytes.capacity(), bytes.len());
        assert_eq!(Encoder::new().encoded_len(&node).unwrap(), bytes.len());
        assert!(bytes_bound(&node, 0) >= bytes.len());
    }
}

#[test]
fn tokens_and_empty_attribute_value() {
    let node = OwnedNode::new("iq").attr("type", "get").attr("id", "");
    let want = [
        &[LIST_8, 5][..],
        &t("iq"),
        &t("type"),
        &t("get"),
        &t("id"),
        &[BINARY_8, 0],
    ]
    .concat();
    assert_eq!(enc(&node), want);
}

/// NIBBLE_8 of a string of digits, by the spec: two digits a byte,
/// an odd length padded with 15 and flagged in the length byte.
fn nibble(digits: &str) -> Vec<u8> {
    let d: Vec<u8> = digits.bytes().map(|b| b - b'0').collect();
    let mut out = vec![
        NIBBLE_8,
        (d.len().div_ceil(2) as u8) | (d.len() as u8 % 2) << 7,
    ];
    out.extend(
        d.chunks(2)
            .map(|p| p[0] << 4 | p.get(1).copied().unwrap_or(15)),
    );
    out
}

#[test]
fn a_long_run_of_token_and_packed_strings() {
    let id = |i: u32| (900_000 + i).to_string();
    let kids: Vec<OwnedNode> = (0..150)
        .map(|i| OwnedNode::new("item").attr("id", id(i)).attr("type", "get"))
        .collect();
    let node = OwnedNode::new("iq").children(kids);
    let mut want = [&[LIST_8, 2][..], &t("iq"), &[LIST_8, 150]].concat();
    for i in 0..150 {
        want.extend([LIST_8, 5]);
        want.extend(t("item"));
        want.extend(t("id"));
        assert_eq!(Dictionary::v3().lookup(&id(i)), None);
        want.extend(nibble(&id(i)));
        want.extend(t("type"));
        want.extend(t("get"));
    }
    assert_eq!(enc(&node), want);
    assert_eq!(Encoder::new().encoded_len(&node).unwrap(), want.len());
    let mut appended = vec![7];
    encode_into(&node, &mut appended).unwrap();
    assert_eq!(appended[1..], want[..]);
}

#[test]
fn packed_strings_pad_odd_lengths_with_f() {
    let node = OwnedNode::new("iq")
        .attr("id", "123")
        .attr("t", "12-.")
        .attr("to", "3EB0")
        .attr("from", "ABC");
    let want = [
        &[LIST_8, 9][..],
        &t("iq"),
        &t("id"),
        &[NIBBLE_8, 0x82, 0x12, 0x3F],
        &t("t"),
        &[NIBBLE_8, 0x02, 0x12, 0xAB],
        &t("to"),
        &[HEX_8, 0x02, 0x3E, 0xB0],
        &t("from"),
        &[HEX_8, 0x82, 0xAB, 0xCF],
    ]
    .concat();
    assert_eq!(enc(&node), want);
}

#[test]
fn jid_text_becomes_a_jid_pair_and_other_at_text_stays_raw() {
    let node = OwnedNode::new("iq")
        .attr("to", "123@s.whatsapp.net")
        .attr("from", "foo@example.com")
        .attr("jid", "5511999990000:0@s.whatsapp.net");
    let want = [
        &[LIST_8, 7][..],
        &t("iq"),
        &t("to"),
        &[JID_PAIR, NIBBLE_8, 0x82, 0x12, 0x3F],
        &t("s.whatsapp.net"),
        &t("from"),
        &raw(b"foo@example.com"),
        &t("jid"),
        &raw(b"5511999990000:0@s.whatsapp.net"),
    ]
    .concat();
    assert_eq!(enc(&node), want);
}

#[test]
fn structured_jids_pick_their_wire_form() {
    let ad = OwnedJid::new("123", Server::Lid).with_device(5);
    let interop = OwnedJid::new("123", Server::Interop)
        .with_device(1)
        .with_integrator(2);
    let fb = OwnedJid::new("123", Server::Messenger).with_device(3);
    let pair = OwnedJid::new("", Server::Group);
    let node = OwnedNode::new("iq")
        .attr("to", ad)
        .attr("from", interop)
        .attr("jid", fb)
        .attr("participant", pair);
    let user = [NIBBLE_8, 0x82, 0x12, 0x3F];
    let want = [
        &[LIST_8, 9][..],
        &t("iq"),
        &t("to"),
        &[AD_JID, 1, 5],
        &user,
        &t("from"),
        &[INTEROP_JID],
        &user,
        &[0, 1, 0, 2],
        &token_or_raw("interop"),
        &t("jid"),
        &[FB_JID],
        &user,
        &[0, 3],
        &t("msgr"),
        &t("participant"),
        &[JID_PAIR, LIST_EMPTY],
        &t("g.us"),
    ]
    .concat();
    assert_eq!(enc(&node), want);
}

#[test]
fn agent_text_stays_in_the_user() {
    // "abc.1@bot": Jid::parse reads agent 1; the wire has no agent, so
    // the user is written as "abc.1", which renders the same.
    let node = OwnedNode::new("iq").attr("to", "abc.1@bot");
    let want = [
        &[LIST_8, 3][..],
        &t("iq"),
        &t("to"),
        &[JID_PAIR],
        &raw(b"abc.1"),
        &token_or_raw("bot"),
    ]
    .concat();
    assert_eq!(enc(&node), want);
}

#[test]
fn content_kinds() {
    let empty_list = OwnedNode::new("message").children([]);
    assert_eq!(
        enc(&empty_list),
        [&[LIST_8, 2][..], &t("message"), &[LIST_8, 0]].concat()
    );
    let text = OwnedNode::new("message").text("hello");
    assert_eq!(
        enc(&text),
        [&[LIST_8, 2][..], &t("message"), &raw(b"hello")].concat()
    );
    let long_digits = "1".repeat(128);
    let text = OwnedNode::new("message").text(long_digits.clone());
    assert_eq!(
        enc(&text),
        [
            &[LIST_8, 2][..],
            &t("message"),
            &[BINARY_8, 128],
            long_digits.as_bytes()
        ]
        .concat()
    );
    let b20 = OwnedNode::new("message").bytes(vec![7; 300]);
    assert_eq!(
        enc(&b20),
        [
            &[LIST_8, 2][..],
            &t("message"),
            &[BINARY_20, 0, 1, 0x2C],
            &[7; 300]
        ]
        .concat()
    );
    let b32 = OwnedNode::new("message").bytes(vec![7; 1 << 20]);
    let out = enc(&b32);
    assert_eq!(
        out[..8],
        [&[LIST_8, 2][..], &t("message"), &[BINARY_32, 0, 0x10, 0, 0]].concat()[..]
    );
    assert_eq!(out.len(), 8 + (1 << 20));
}

#[test]
fn list_16_headers() {
    let mut node = OwnedNode::new("iq");
    for i in 0..128 {
        node.attrs.push((format!("k{i}").into(), "v".into()));
    }
    let out = enc(&node);
    assert_eq!(out[..3], [LIST_16, 0x01, 0x01]); // 1 + 2 * 128 = 257
    let node = OwnedNode::new("iq").children(vec![OwnedNode::new("iq"); 300]);
    let out = enc(&node);
    let at = 2 + t("iq").len();
    assert_eq!(out[at..at + 3], [LIST_16, 0x01, 0x2C]);
}

#[test]
fn errors() {
    let err = |node: &OwnedNode| encode(node).unwrap_err();
    let mut many = OwnedNode::new("iq").text("x");
    many.attrs = vec![("k", "v"); 32767].into();
    assert!(matches!(
        err(&many),
        EncodeError::TooManyAttributes { max: 32766, .. }
    ));
    many.content = OwnedContent::None;
    assert!(encode(&many).is_ok());
    many.attrs.push(("k".into(), "v".into()));
    assert!(matches!(
        err(&many),
        EncodeError::TooManyAttributes { max: 32767, .. }
    ));
    let wide = OwnedNode::new("iq").children(vec![OwnedNode::new("a"); 65536]);
    assert!(matches!(
        err(&wide),
        EncodeError::TooManyChildren { count: 65536, .. }
    ));
    let jid_err = |jid: OwnedJid| err(&OwnedNode::new("iq").attr("to", jid));
    let mut agent = OwnedJid::new("abc", Server::Bot);
    agent.agent = 1;
    for jid in [
        agent,
        OwnedJid::new("abc", Server::Group).with_device(1),
        OwnedJid::new("abc", Server::Pn).with_device(256),
        OwnedJid::new("", Server::Pn).with_device(1),
        OwnedJid::new("abc", Server::Pn).with_integrator(1),
    ] {
        assert!(matches!(jid_err(jid), EncodeError::Jid { .. }));
    }
    let mut deep = OwnedNode::new("a");
    for _ in 0..MAX_DEPTH {
        deep = OwnedNode::new("a").children([deep]);
    }
    assert_eq!(err(&deep), EncodeError::TooDeep { limit: MAX_DEPTH });
    let OwnedContent::Nodes(kids) = &deep.content else {
        unreachable!()
    };
    assert!(encode(&kids[0]).is_ok());
}

/// `bytes_bound` against the encoded length where a string's class writes
/// more than its raw form: texts of `newsletter` JIDs (a JID pair whose
/// server is no token) and structured JIDs of every form, with raw keys,
/// so nothing else in the bound is loose enough to hide a missing byte.
#[test]
fn the_byte_bound_covers_strings_written_longer_than_raw() {
    let key = |i: usize| format!("k{i:03}x");
    let mut many_texts = OwnedNode::new("zz");
    many_texts.attrs = (0..500)
        .map(|i| (key(i), OwnedValue::Str(format!("{i}@newsletter").into())))
        .collect();
    let texts = OwnedNode::new("zz").children([many_texts]);
    let jids = [
        Jid::new("120363", Server::Newsletter),
        Jid::new("5511999990000", Server::Pn).with_device(7),
        Jid::new("5511999990000", Server::Interop)
            .with_device(3)
            .with_integrator(9),
        Jid::new("100000123", Server::Messenger).with_device(2),
        Jid::new("", Server::Pn),
    ];
    let mut many_jids = OwnedNode::new("zz");
    many_jids.attrs = (0..500)
        .map(|i| {
            (
                key(i),
                OwnedValue::Jid(OwnedJid::from(jids[i % jids.len()])),
            )
        })
        .collect();
    let structured = OwnedNode::new("zz").children([many_jids]);
    for node in [&texts, &structured] {
        let len = Encoder::new().encoded_len(node).unwrap();
        let bound = bytes_bound(node, 0);
        assert!(bound >= len, "bound {bound} < encoded {len}");
        assert_eq!(enc(node).len(), len);
    }
    // The texts are the tight case: the bound is their raw length plus
    // the slack of each of the 1,002 strings and a few header bytes.
    let len = Encoder::new().encoded_len(&texts).unwrap();
    assert!(
        bytes_bound(&texts, 0) - len <= 1_002 * CLASS_SLACK + 16,
        "{len}"
    );
}
