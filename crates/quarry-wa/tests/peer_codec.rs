//! The node building, encoding and decoding expectations of
//! `wacore-binary` 0.7's unit tests, held by quarry's encoder and decoder.
//! Byte vectors and expected values are the peer's; where quarry differs on
//! purpose (listed in `docs/wa-format.md`, "Differences from
//! wacore-binary"), the test asserts quarry's documented behaviour and says
//! so.

use quarry_core::{Arena, DecodeError};
use quarry_wa::wire::{
    AD_JID, BINARY_8, BINARY_20, HEX_8, INTEROP_JID, JID_PAIR, LIST_8, LIST_16, NIBBLE_8,
};
use quarry_wa::{Content, Jid, OwnedJid, OwnedNode, Server, Value};

fn token(text: &str) -> u8 {
    match quarry_wa::Dictionary::v3().lookup(text) {
        Some(quarry_wa::Token::Single(b)) => b,
        other => panic!("{text} is {other:?}"),
    }
}

fn frame(node: &OwnedNode) -> Vec<u8> {
    quarry_wa::encode_frame(node).unwrap()
}

/// The bytes a string takes as a node's content (after `LIST_8 2, tag`).
fn content_bytes(text: &str) -> Vec<u8> {
    let bytes = quarry_wa::encode(&OwnedNode::new("message").text(text)).unwrap();
    assert_eq!(bytes[..3], [LIST_8, 2, token("message")]);
    bytes[3..].to_vec()
}

fn decode_err(input: &[u8]) -> DecodeError {
    let arena = Arena::new();
    quarry_wa::decode(&arena, input).map(|_| ()).unwrap_err()
}

#[test]
fn a_token_node_and_a_nibble_string() {
    let node = OwnedNode::new("message").text("receipt");
    assert_eq!(frame(&node), [0, 248, 2, 19, 7]);
    let arena = Arena::new();
    let bytes = frame(&node);
    let view = quarry_wa::decode_frame(&arena, &bytes).unwrap();
    assert_eq!(view.tag(), "message");
    assert!(view.attrs().is_empty());
    assert_eq!(view.content(), Content::Text("receipt"));

    let node = OwnedNode::new("test").text("-.0123456789");
    let want = [
        0, 248, 2, 252, 4, 116, 101, 115, 116, 255, 6, 171, 1, 35, 69, 103, 137,
    ];
    assert_eq!(frame(&node), want);
    let view = quarry_wa::decode_frame(&arena, &want).unwrap();
    assert_eq!(view.content_str(), Some("-.0123456789"));
}

#[test]
fn list_headers_at_the_list_8_boundary() {
    let children = |n| (0..n).map(|_| OwnedNode::new("x")).collect::<Vec<_>>();
    let bytes = quarry_wa::encode(&OwnedNode::new("message").children(children(255))).unwrap();
    assert_eq!(bytes[..5], [LIST_8, 2, 19, LIST_8, 255]);
    let bytes = quarry_wa::encode(&OwnedNode::new("message").children(children(256))).unwrap();
    assert_eq!(bytes[..6], [LIST_8, 2, 19, LIST_16, 0x01, 0x00]);
    let arena = Arena::new();
    assert_eq!(
        quarry_wa::decode(&arena, &bytes).unwrap().children().len(),
        256
    );
}

#[test]
fn payload_lengths_at_the_binary_8_boundary() {
    let bytes = quarry_wa::encode(&OwnedNode::new("message").bytes(vec![0x42; 255])).unwrap();
    assert_eq!(bytes[3..5], [BINARY_8, 255]);
    let bytes = quarry_wa::encode(&OwnedNode::new("message").bytes(vec![0x42; 256])).unwrap();
    assert_eq!(bytes[3..7], [BINARY_20, 0x00, 0x01, 0x00]);
}

#[test]
fn which_strings_are_packed() {
    for hex in ["0123456789ABCDEF", "DEADBEEF", "1234ABCD"] {
        assert_eq!(content_bytes(hex)[0], HEX_8, "{hex}");
    }
    // (A lone "-" or "." is a token, which comes first.)
    for nibble in ["0123456789", "1-2", "3.4", "123-456.789"] {
        assert_eq!(content_bytes(nibble)[0], NIBBLE_8, "{nibble}");
    }
    for raw in ["abcdef", "DeadBeef", " ", "abc", "123abc", "123!456"] {
        assert_eq!(content_bytes(raw)[0], BINARY_8, "{raw}");
    }
    // PACKED_MAX: 127 characters pack, 128 go raw.
    let at = "0".repeat(127);
    let over = "0".repeat(128);
    assert_eq!(content_bytes(&at)[..2], [NIBBLE_8, 0x80 | 64]);
    assert_eq!(content_bytes(&over)[..2], [BINARY_8, 128]);
    let arena = Arena::new();
    let node = OwnedNode::new("test").text(over.as_str());
    let bytes = quarry_wa::encode(&node).unwrap();
    let view = quarry_wa::decode(&arena, &bytes).unwrap();
    assert_eq!(view.content_bytes(), Some(over.as_bytes()));
    let node = OwnedNode::new("test").text(at.as_str());
    let bytes = quarry_wa::encode(&node).unwrap();
    let view = quarry_wa::decode(&arena, &bytes).unwrap();
    assert_eq!(view.content_str(), Some(at.as_str()));
}

#[test]
fn the_empty_string_is_binary_8_of_length_0() {
    assert_eq!(content_bytes(""), [BINARY_8, 0]);
    let node = OwnedNode::new("test")
        .attr("key", "")
        .attr("", "value")
        .text("");
    let bytes = quarry_wa::encode(&node).unwrap();
    let arena = Arena::new();
    let view = quarry_wa::decode(&arena, &bytes).unwrap();
    assert_eq!(view.tag(), "test");
    assert_eq!(view.attr("key"), Some(Value::Str("")));
    assert_eq!(view.attr(""), Some(Value::Str("value")));
    assert_eq!(view.content(), Content::Bytes(b""));
}

#[test]
fn only_short_text_is_read_as_a_jid() {
    assert_eq!(content_bytes("user@s.whatsapp.net")[0], JID_PAIR);
    let long = "x".repeat(300) + "@s.whatsapp.net";
    assert_eq!(content_bytes(&long)[0], BINARY_20);
    let arena = Arena::new();
    let bytes = quarry_wa::encode(&OwnedNode::new("msg").text(long.as_str())).unwrap();
    let view = quarry_wa::decode(&arena, &bytes).unwrap();
    assert_eq!(view.content_bytes(), Some(long.as_bytes()));

    // A user without a numeric suffix stays whole.
    let text = "hello_world@s.whatsapp.net";
    let bytes = quarry_wa::encode(&OwnedNode::new("msg").text(text)).unwrap();
    assert_eq!(
        quarry_wa::decode(&arena, &bytes).unwrap().content_str(),
        Some(text)
    );
    // "foo:bar@…" is no JID (the device is not a number): quarry writes it
    // raw, so it comes back as bytes (the peer writes a JID_PAIR; see the
    // differences in docs/wa-format.md).
    let text = "foo:bar@s.whatsapp.net";
    let bytes = quarry_wa::encode(&OwnedNode::new("msg").text(text)).unwrap();
    assert_eq!(
        quarry_wa::decode(&arena, &bytes).unwrap().content_bytes(),
        Some(text.as_bytes())
    );
}

/// The `AD_JID` bytes of `<to jid=…>`: `[domain, device]`.
fn ad_jid_domain_device(node: &OwnedNode) -> [u8; 2] {
    let bytes = quarry_wa::encode(node).unwrap();
    let at = bytes.iter().position(|&b| b == AD_JID).expect("an AD_JID");
    [bytes[at + 1], bytes[at + 2]]
}

#[test]
fn ad_jid_domains_follow_the_server() {
    let to = |jid| OwnedNode::new("to").jid_attr("jid", jid);
    assert_eq!(
        ad_jid_domain_device(&to(Jid::lid_device("236395184570386", 39))),
        [1, 39]
    );
    assert_eq!(
        ad_jid_domain_device(&to(Jid::pn_device("551199887766", 33))),
        [0, 33]
    );
    assert_eq!(
        ad_jid_domain_device(&to(
            Jid::new("100000000000001", Server::Hosted).with_device(99)
        )),
        [128, 99]
    );
    assert_eq!(
        ad_jid_domain_device(&to(
            Jid::new("100000000000002", Server::HostedLid).with_device(99)
        )),
        [129, 99]
    );
    // An agent on s.whatsapp.net is no part of the JID: domain 0, and the
    // decoded JID is the same chat, agent 0.
    let with_agent = Jid::pn_device("551199887766", 33).with_agent(2);
    let node = to(with_agent);
    assert_eq!(ad_jid_domain_device(&node), [0, 33]);
    let bytes = quarry_wa::encode(&node).unwrap();
    let arena = Arena::new();
    let back = quarry_wa::decode(&arena, &bytes)
        .unwrap()
        .attr_parser()
        .optional_jid("jid")
        .unwrap();
    assert!(with_agent.is_same_chat_as(&back));
    assert_eq!(back.agent(), 0);
}

#[test]
fn a_jid_as_text_and_as_a_jid_encode_alike() {
    let jids = [
        Jid::lid_device("236395184570386", 39),
        Jid::pn_device("551199887766", 33),
        Jid::lid("236395184570386"),
        Jid::pn("551199887766"),
        Jid::parse("5511999887766:99@hosted").unwrap(),
        Jid::parse("100000012345678:99@hosted.lid").unwrap(),
    ];
    let arena = Arena::new();
    for jid in jids {
        let text = jid.to_string();
        let as_text = quarry_wa::encode(&OwnedNode::new("to").attr("jid", text.as_str())).unwrap();
        let as_jid = quarry_wa::encode(&OwnedNode::new("to").jid_attr("jid", jid)).unwrap();
        assert_eq!(as_text, as_jid, "{jid}");
        let back = quarry_wa::decode(&arena, &as_jid)
            .unwrap()
            .attr_parser()
            .optional_jid("jid")
            .unwrap();
        assert_eq!(
            (back.user(), back.device(), back.server()),
            (jid.user(), jid.device(), jid.server()),
            "{jid}"
        );
    }
}

#[test]
fn jids_of_servers_without_devices_travel_as_jid_pairs() {
    let arena = Arena::new();
    for text in [
        "867051314767696@bot",
        "867051314767696:0@bot",
        "120363021033254949@g.us",
        "12345@broadcast",
        "12345@newsletter",
        "12345@call",
    ] {
        let bytes = quarry_wa::encode(&OwnedNode::new("msg").attr("from", text)).unwrap();
        assert!(!bytes.contains(&AD_JID), "{text}");
        let view = quarry_wa::decode(&arena, &bytes).unwrap();
        let got = view.attr("from").unwrap().to_string();
        let (user, server) = text.split_once('@').unwrap();
        assert!(got.ends_with(&format!("@{server}")), "{text}: {got}");
        assert!(
            got.starts_with(user.split(':').next().unwrap()),
            "{text}: {got}"
        );
    }
    let bytes = quarry_wa::encode(&OwnedNode::new("call").attr("from", "12345@call")).unwrap();
    let view = quarry_wa::decode(&arena, &bytes).unwrap();
    assert_eq!(view.attr("from").unwrap(), "12345@call");
}

#[test]
fn an_interop_jid_carries_its_integrator() {
    let base = OwnedJid::new("123456789", Server::Interop)
        .with_device(7)
        .with_integrator(300);
    let other = base.clone().with_integrator(301);
    let node = |jid: &OwnedJid| OwnedNode::new("iq").attr("jid", jid.clone());
    let (a, b) = (
        quarry_wa::encode(&node(&base)).unwrap(),
        quarry_wa::encode(&node(&other)).unwrap(),
    );
    assert_ne!(a, b);
    assert!(a.contains(&INTEROP_JID));
    assert!(a.windows(4).any(|w| w == [0x00, 0x07, 0x01, 0x2C]));
    let arena = Arena::new();
    let back = quarry_wa::decode(&arena, &a)
        .unwrap()
        .attr("jid")
        .unwrap()
        .to_jid()
        .unwrap();
    assert_eq!((back.device(), back.integrator()), (7, 300));
}

#[test]
fn device_jids_round_trip_through_the_wire_and_through_text() {
    let arena = Arena::new();
    for server in [Server::Pn, Server::Lid, Server::Hosted, Server::HostedLid] {
        let original = Jid::new("123456789012345", server).with_device(7);
        let bytes = quarry_wa::encode(&OwnedNode::new("iq").jid_attr("jid", original)).unwrap();
        let from_wire = quarry_wa::decode(&arena, &bytes)
            .unwrap()
            .attr("jid")
            .and_then(Value::to_jid)
            .unwrap();
        assert_eq!(from_wire, original, "{server:?}");
        let text = from_wire.to_string();
        assert_eq!(Jid::parse(&text).unwrap(), from_wire, "{server:?}");
    }
}

#[test]
fn encoded_len_and_the_writers_agree_with_encode() {
    let node = OwnedNode::new("message")
        .attr("id", "ABC123")
        .attr("to", "123456789@s.whatsapp.net")
        .jid_attr("participant", Jid::pn("15551234567"))
        .attr("hex", "DEADBEEF")
        .children([
            OwnedNode::new("item").bytes(vec![1, 2, 3, 4, 5, 6, 7, 8]),
            OwnedNode::new("text").text("hello".repeat(40)),
        ]);
    let large = OwnedNode::new("message").bytes(vec![0xAB; 64 * 1024 + 2048]);
    let arena = Arena::new();
    for node in [&node, &large] {
        let bytes = quarry_wa::encode(node).unwrap();
        assert_eq!(quarry_wa::encoded_len(node).unwrap(), bytes.len());
        let view = quarry_wa::decode(&arena, &bytes).unwrap();
        assert_eq!(quarry_wa::encoded_len(view).unwrap(), bytes.len());

        let mut written = Vec::new();
        quarry_wa::encode_to(node, &mut written).unwrap();
        assert_eq!(written, bytes);
        let mut written = std::io::Cursor::new(Vec::new());
        quarry_wa::encode_to(view, &mut written).unwrap();
        assert_eq!(written.into_inner(), bytes);
        let mut framed = Vec::new();
        quarry_wa::encode_frame_to(node, &mut framed).unwrap();
        assert_eq!(framed, quarry_wa::encode_frame(node).unwrap());
        let mut appended = vec![0xEE];
        quarry_wa::encode_into(view, &mut appended).unwrap();
        assert_eq!(appended[1..], bytes[..]);
    }
}

#[test]
fn a_failing_writer_is_an_io_error() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let err = quarry_wa::encode_to(&OwnedNode::new("iq"), &mut Full).unwrap_err();
    assert!(matches!(
        err,
        quarry_wa::EncodeError::Io {
            kind: std::io::ErrorKind::StorageFull,
            ..
        }
    ));
}

#[test]
fn packed_strings_decode() {
    let arena = Arena::new();
    let tag = token("message");
    // HEX_8 "ABCDEF", NIBBLE_8 odd "123", and the empty packed string.
    for (packed, text) in [
        (&[HEX_8, 3, 0xAB, 0xCD, 0xEF][..], "ABCDEF"),
        (&[NIBBLE_8, 0x82, 0x12, 0x3F], "123"),
        (&[NIBBLE_8, 0], ""),
    ] {
        let input = [&[LIST_8, 2, tag][..], packed].concat();
        let view = quarry_wa::decode(&arena, &input).unwrap();
        assert_eq!(view.content_str(), Some(text), "{packed:02x?}");
    }
    // Nibbles 12, 13 and 14 are refused, naming the byte.
    for byte in [0xC0, 0xD0, 0xE0] {
        let input = [LIST_8, 2, tag, NIBBLE_8, 1, byte];
        assert!(
            matches!(decode_err(&input), DecodeError::UnexpectedByte { offset: 5, byte: b, .. } if b == byte),
            "{byte:#x}"
        );
    }
}

#[test]
fn truncation_and_lying_lengths_are_errors() {
    let tag = token("message");
    for input in [
        &[][..],
        &[LIST_16, 0x00],
        &[LIST_8, 2, tag, BINARY_8, 100, 1, 2, 3, 4, 5],
        &[LIST_8, 2, tag, BINARY_20, 0x00, 0x01, 0x00, 1, 2, 3],
        &[LIST_8, 2, tag, 0xFE, 0x00, 0x00, 0x01],
        &[LIST_8, 10, tag],
        &[LIST_8, 2, tag, AD_JID],
    ] {
        assert!(
            matches!(decode_err(input), DecodeError::UnexpectedEof { .. }),
            "{input:02x?}: {:?}",
            decode_err(input)
        );
    }
    // An AD_JID domain that names no server: the error names it.
    let input = [LIST_8, 2, tag, AD_JID, 2, 1, BINARY_8, 3, b'1', b'2', b'3'];
    let err = decode_err(&input);
    assert!(matches!(
        err,
        DecodeError::UnexpectedByte {
            offset: 4,
            byte: 2,
            ..
        }
    ));
    assert!(err.to_string().contains("0x02"), "{err}");
}

#[test]
fn binary_20_lengths() {
    let arena = Arena::new();
    let tag = token("message");
    for len in [0usize, 256, 65_536, 1_048_575] {
        let header = [(len >> 16) as u8, (len >> 8) as u8, len as u8];
        let input = [&[LIST_8, 2, tag, BINARY_20][..], &header, &vec![7u8; len]].concat();
        let view = quarry_wa::decode(&arena, &input).unwrap();
        assert_eq!(view.content_bytes().map(<[u8]>::len), Some(len));
    }
}

#[test]
fn nesting_up_to_the_depth_limit() {
    fn nested(levels: usize) -> OwnedNode {
        let mut node = OwnedNode::new("leaf");
        for i in 0..levels {
            node = OwnedNode::new(format!("l{i}")).children([node]);
        }
        node
    }
    let arena = Arena::new();
    let bytes = quarry_wa::encode(&nested(50)).unwrap();
    assert_eq!(quarry_wa::decode(&arena, &bytes).unwrap().tag(), "l49");
    // The deepest accepted tree: a leaf at depth 127.
    let bytes = quarry_wa::encode(&nested(127)).unwrap();
    assert_eq!(quarry_wa::decode(&arena, &bytes).unwrap().tag(), "l126");
    // One level more does not encode, and its bytes do not decode.
    assert!(quarry_wa::encode(&nested(128)).is_err());
    let one_more = [&[LIST_8, 2, token("message"), LIST_8, 1][..], &bytes].concat();
    assert!(matches!(
        decode_err(&one_more),
        DecodeError::DepthLimit { limit: 128, .. }
    ));
}

#[test]
fn an_owned_stanza_survives_moves_and_slices_without_copying() {
    use quarry_core::bytes::Bytes;
    let node = OwnedNode::new("iq")
        .attr("id", "abc")
        .bytes(b"payload".to_vec());
    let stanza =
        quarry_wa::OwnedStanza::decode(Bytes::from(quarry_wa::encode(&node).unwrap())).unwrap();
    // Moved through a Box and a Vec before anything is read back.
    let mut moved = vec![*Box::new(stanza)];
    let stanza = moved.pop().unwrap();
    let root = stanza.get();
    assert_eq!(root.tag(), "iq");
    assert!(root.attr("id").unwrap() == "abc");
    assert_eq!(root.content_bytes(), Some(&b"payload"[..]));
    assert_eq!(root.to_owned_node(), node);

    let content = root.content_bytes().unwrap();
    let view = stanza.slice_bytes(content);
    assert_eq!(&view[..], b"payload");
    assert_eq!(view.as_ptr(), content.as_ptr(), "slice_bytes copied");
}

#[test]
fn dictionary_edges() {
    let dict = quarry_wa::Dictionary::v3();
    assert_eq!(dict.lookup("xyzzy_not_a_token_12345"), None);
    assert_eq!(dict.lookup(""), None);
    // Index 0 is LIST_EMPTY's byte, not a token (the peer returns "" there;
    // see docs/wa-format.md), and no tag byte is a token.
    assert_eq!(dict.single(0), None);
    for byte in [
        LIST_8, LIST_16, JID_PAIR, HEX_8, BINARY_8, BINARY_20, 0xFE, NIBBLE_8,
    ] {
        assert_eq!(dict.single(byte), None, "{byte:#x}");
    }
    let first = dict.single(1).unwrap();
    for near in [
        format!("{first}_modified"),
        format!("prefix_{first}"),
        format!("{first}!"),
    ] {
        assert_eq!(dict.lookup(&near), None, "{near}");
    }
    for (table, index) in [(4, 0), (5, 100), (255, 0)] {
        assert_eq!(dict.double(table, index), None);
    }
}
