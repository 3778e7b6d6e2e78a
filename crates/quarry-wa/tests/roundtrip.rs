//! Round trips, with expectations from outside the encoder:
//!
//! (a) `decode(encode(tree))` equals the tree, up to the two lossy spots the
//!     format itself has (raw text content returns as bytes; an attribute
//!     value that is exactly a JID's text returns as a structured JID). The
//!     generator knows which strings it made as what, so the expected tree
//!     is built from that knowledge, the spec's packing rule and the token
//!     dictionary, never from the encoder.
//! (b) `encode(decode(bytes)) == bytes` for canonical bytes made by
//!     the peer crate's `marshal` (and by our own encoder, in (a)).
//! (c) our encoder's output decodes with the peer's `unmarshal_ref` to the
//!     same expected tree: an independent decoder checks our writer.

use std::borrow::Cow;

use proptest::prelude::*;
use quarry_core::Arena;
use quarry_wa::{Dictionary, OwnedContent, OwnedJid, OwnedNode, OwnedValue, Server};
use wacore_binary as peer;
use wacore_binary::node::{NodeContent, NodeContentRef, NodeValue, ValueRef};

// ---------------------------------------------------------------------------
// What the generators produce, and what a decode must give back for it.

/// A generated string and, when it was made as the exact rendering of a
/// JID the wire can carry, that JID.
#[derive(Clone, Debug)]
struct Text {
    text: String,
    jid: Option<OwnedJid>,
}

#[derive(Clone, Debug)]
enum GenValue {
    Text(Text),
    Jid(OwnedJid),
}

#[derive(Clone, Debug)]
enum GenContent {
    None,
    Text(Text),
    Bytes(Vec<u8>),
    Nodes(Vec<GenNode>),
}

#[derive(Clone, Debug)]
struct GenNode {
    tag: Text,
    attrs: Vec<(Text, GenValue)>,
    content: GenContent,
}

fn is_token(text: &str) -> bool {
    Dictionary::v3().lookup(text).is_some()
}

/// The spec's packing rule (section 5): non-empty, at most 127 characters,
/// all of `[0-9.-]` or all of `[0-9A-F]`.
fn packable(text: &str) -> bool {
    let b = text.as_bytes();
    !b.is_empty()
        && b.len() <= 127
        && (b
            .iter()
            .all(|c| c.is_ascii_digit() || *c == b'-' || *c == b'.')
            || b.iter()
                .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(c)))
}

/// Written as something other than raw bytes (so it decodes as text).
fn not_raw(t: &Text) -> bool {
    !t.text.is_empty() && (is_token(&t.text) || packable(&t.text) || t.jid.is_some())
}

fn build(g: &GenNode) -> OwnedNode {
    OwnedNode {
        tag: g.tag.text.clone().into(),
        attrs: g
            .attrs
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    GenValue::Text(t) => OwnedValue::Str(t.text.clone().into()),
                    GenValue::Jid(j) => OwnedValue::Jid(j.clone()),
                };
                (k.text.clone(), v)
            })
            .collect(),
        content: match &g.content {
            GenContent::None => OwnedContent::None,
            GenContent::Text(t) => OwnedContent::Text(t.text.clone()),
            GenContent::Bytes(b) => OwnedContent::Bytes(b.clone()),
            GenContent::Nodes(n) => OwnedContent::Nodes(n.iter().map(build).collect()),
        },
    }
}

/// The tree a decode must give back for `g`.
fn expect(g: &GenNode) -> OwnedNode {
    OwnedNode {
        tag: g.tag.text.clone().into(),
        attrs: g
            .attrs
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    GenValue::Text(t) if is_token(&t.text) || packable(&t.text) => {
                        OwnedValue::Str(t.text.clone().into())
                    }
                    GenValue::Text(Text { jid: Some(j), .. }) => OwnedValue::Jid(j.clone()),
                    GenValue::Text(t) => OwnedValue::Str(t.text.clone().into()),
                    GenValue::Jid(j) => OwnedValue::Jid(j.clone()),
                };
                (k.text.clone(), v)
            })
            .collect(),
        content: match &g.content {
            GenContent::None => OwnedContent::None,
            GenContent::Text(t) if not_raw(t) => OwnedContent::Text(t.text.clone()),
            GenContent::Text(t) => OwnedContent::Bytes(t.text.clone().into_bytes()),
            GenContent::Bytes(b) => OwnedContent::Bytes(b.clone()),
            GenContent::Nodes(n) => OwnedContent::Nodes(n.iter().map(expect).collect()),
        },
    }
}

// ---------------------------------------------------------------------------
// Strategies.

fn plain(s: impl Strategy<Value = String>) -> impl Strategy<Value = Text> {
    s.prop_map(|text| Text { text, jid: None })
}

fn token() -> impl Strategy<Value = Text> {
    let dict = Dictionary::v3();
    prop_oneof![
        (1u8..=235).prop_map(move |i| dict.single(i).unwrap().to_owned()),
        (0u8..4, any::<u8>()).prop_map(move |(d, i)| dict.double(d, i).unwrap().to_owned()),
    ]
    .prop_map(|text| Text { text, jid: None })
}

fn server() -> impl Strategy<Value = Server> {
    proptest::sample::select(Server::ALL.to_vec())
}

/// A user that renders and parses unambiguously (no `.`, `:`, `@`, `_`).
fn simple_user() -> impl Strategy<Value = String> {
    prop_oneof!["[0-9]{1,15}", "[a-z][a-z0-9]{0,9}", "[0-9A-F]{1,12}"]
}

/// Any JID the wire can carry, structured.
fn any_jid() -> impl Strategy<Value = OwnedJid> {
    let user = prop_oneof![
        1 => Just(String::new()),
        6 => simple_user(),
        2 => "[a-z0-9.:@_ ]{1,12}",
    ];
    (user, server(), any::<u16>(), any::<u16>(), any::<bool>()).prop_map(
        |(user, server, device, integrator, with_device)| {
            let device = if with_device { device } else { 0 };
            let (device, integrator) = match server {
                Server::Interop => (device, integrator),
                Server::Messenger => (device, 0),
                s if s.is_ad_capable() => (device % 256, 0),
                _ => (0, 0),
            };
            let mut jid = OwnedJid::new(user, server)
                .with_device(device)
                .with_integrator(integrator);
            if jid.user.is_empty() && (device != 0 || integrator != 0) {
                jid.user = "1".into();
            }
            jid
        },
    )
}

/// The text of a JID that the encoder must write as that JID: simple user,
/// no integrator, a device only where the wire carries one.
fn jid_text(peer_safe: bool) -> impl Strategy<Value = Text> {
    (simple_user(), server(), 0u16..=300, any::<bool>()).prop_map(
        move |(user, server, device, with_device)| {
            let device = match server {
                _ if !with_device => 0,
                s if s.is_ad_capable() => device % 256,
                // WhatsApp's string path drops these devices: not canonical.
                Server::Messenger | Server::Interop if !peer_safe => device,
                _ => 0,
            };
            let jid = OwnedJid::new(user, server).with_device(device);
            Text {
                text: jid.to_string(),
                jid: Some(jid),
            }
        },
    )
}

/// A group JID's text around the spec's 48-byte limit: only text of at
/// most 48 bytes is considered as a JID.
fn long_jid_text() -> impl Strategy<Value = Text> {
    "[a-z]{38,48}".prop_map(|user| {
        let jid = OwnedJid::new(user, Server::Group);
        let text = jid.to_string();
        Text {
            jid: (text.len() <= 48).then_some(jid),
            text,
        }
    })
}

/// Text with '@' that is not exactly a JID the wire can carry.
fn at_text() -> impl Strategy<Value = Text> {
    plain(prop_oneof![
        "[a-z]{1,8}@example\\.com",
        "[0-9]{5,13}:0@s\\.whatsapp\\.net",
        "[a-z]{1,5}:[a-z]{1,3}@lid",
        "@g\\.us",
        "[a-z]{1,4}:[1-9][0-9]?@g\\.us",
        "[0-9]{1,6}:(25[6-9]|[3-9][0-9]{2})@s\\.whatsapp\\.net",
        "[a-z]{49,60}@g\\.us",
    ])
}

/// A user ending in `.N` with N past a byte, on a server where `.N` is an
/// agent: no agent, so the whole text is the user, and the text is a JID.
fn dotted_user_jid_text() -> impl Strategy<Value = Text> {
    (
        "[a-z]{1,5}\\.(25[6-9]|[3-9][0-9]{2})",
        prop::sample::select(vec![Server::Bot, Server::Interop, Server::HostedLid]),
    )
        .prop_map(|(user, server)| {
            let jid = OwnedJid::new(user, server);
            Text {
                text: jid.to_string(),
                jid: Some(jid),
            }
        })
}

/// Any UTF-8 without '@' (non-ASCII, controls, NUL included).
fn unicode() -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<char>().prop_filter("no '@'", |c| *c != '@'), 0..24)
        .prop_map(String::from_iter)
}

/// Every kind of string; `peer_safe` leaves out what WhatsApp's encoder
/// writes lossily or undecodably.
fn text(peer_safe: bool) -> BoxedStrategy<Text> {
    let common = prop_oneof![
        4 => token(),
        3 => plain("[0-9.-]{1,127}"),
        3 => plain("[0-9A-F]{1,127}"),
        3 => plain("[a-zA-Z _]{0,40}"),
        1 => plain("[a-z]{128,300}"),
        1 => plain("[0-9]{128,140}"),
        2 => plain(unicode()),
        3 => jid_text(peer_safe),
        1 => dotted_user_jid_text(),
        1 => long_jid_text(),
    ];
    if peer_safe {
        common.boxed()
    } else {
        prop_oneof![6 => common, 1 => at_text()].boxed()
    }
}

/// A tag or key: any text, the empty string included (written `BINARY_8
/// 00`, as the peer writes it).
fn name(peer_safe: bool) -> impl Strategy<Value = Text> {
    text(peer_safe)
}

fn value(peer_safe: bool) -> BoxedStrategy<GenValue> {
    if peer_safe {
        prop_oneof![
            3 => text(true).prop_map(GenValue::Text),
            1 => any_jid()
                .prop_filter("WhatsApp's canonical JIDs", |j| {
                    j.integrator == 0
                        && !j.user.contains(['@', '_', ':', '.'])
                        && (j.device == 0 || (!j.user.is_empty() && j.server.is_ad_capable()))
                })
                .prop_map(GenValue::Jid),
        ]
        .boxed()
    } else {
        prop_oneof![
            3 => text(false).prop_map(GenValue::Text),
            1 => any_jid().prop_map(GenValue::Jid),
        ]
        .boxed()
    }
}

fn leaf_content(peer_safe: bool) -> BoxedStrategy<GenContent> {
    let base = prop_oneof![
        2 => Just(GenContent::None),
        2 => text(peer_safe).prop_map(GenContent::Text),
        2 => proptest::collection::vec(any::<u8>(), 0..600).prop_map(GenContent::Bytes),
    ];
    if peer_safe {
        base.boxed()
    } else {
        prop_oneof![6 => base, 1 => Just(GenContent::Nodes(Vec::new()))].boxed()
    }
}

fn tree(peer_safe: bool) -> impl Strategy<Value = GenNode> {
    let attrs = move || proptest::collection::vec((name(peer_safe), value(peer_safe)), 0..5);
    let leaf =
        (name(peer_safe), attrs(), leaf_content(peer_safe)).prop_map(|(tag, attrs, content)| {
            GenNode {
                tag,
                attrs,
                content,
            }
        });
    leaf.prop_recursive(4, 32, 4, move |inner| {
        (
            name(peer_safe),
            attrs(),
            proptest::collection::vec(inner, 1..5),
        )
            .prop_map(|(tag, attrs, kids)| GenNode {
                tag,
                attrs,
                content: GenContent::Nodes(kids),
            })
    })
}

// ---------------------------------------------------------------------------
// The peer's trees.

fn peer_server(server: Server) -> peer::jid::Server {
    peer::jid::Server::parse_known(server.as_str()).unwrap()
}

fn peer_jid(j: &OwnedJid) -> peer::jid::Jid {
    peer::jid::Jid {
        user: j.user.as_str().into(),
        server: peer_server(j.server),
        agent: j.agent,
        device: j.device,
        integrator: j.integrator,
    }
}

fn to_peer(g: &GenNode) -> peer::node::Node {
    let mut attrs = peer::node::Attrs::new();
    for (k, v) in &g.attrs {
        let v = match v {
            GenValue::Text(t) => NodeValue::from(t.text.as_str()),
            GenValue::Jid(j) => NodeValue::Jid(peer_jid(j)),
        };
        attrs.push(k.text.clone(), v);
    }
    peer::node::Node {
        tag: Cow::Owned(g.tag.text.clone()),
        attrs,
        content: match &g.content {
            GenContent::None => None,
            GenContent::Text(t) => Some(NodeContent::String(t.text.as_str().into())),
            GenContent::Bytes(b) => Some(NodeContent::Bytes(b.clone())),
            GenContent::Nodes(n) => Some(NodeContent::Nodes(n.iter().map(to_peer).collect())),
        },
    }
}

fn from_peer(n: &peer::node::NodeRef<'_>) -> OwnedNode {
    OwnedNode {
        tag: n.tag.to_string().into(),
        attrs: n
            .attrs
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    ValueRef::String(s) => OwnedValue::Str(s.to_string().into()),
                    ValueRef::Jid(j) => OwnedValue::Jid(OwnedJid {
                        user: j.user.to_string().into(),
                        server: Server::from_name(j.server.as_str()).unwrap(),
                        agent: j.agent,
                        device: j.device,
                        integrator: j.integrator,
                    }),
                };
                (k.to_string(), v)
            })
            .collect(),
        content: match &n.content {
            None => OwnedContent::None,
            Some(NodeContentRef::Bytes(b)) => OwnedContent::Bytes(b.to_vec()),
            Some(NodeContentRef::String(s)) => OwnedContent::Text(s.to_string()),
            Some(NodeContentRef::Nodes(kids)) => {
                OwnedContent::Nodes(kids.iter().map(from_peer).collect())
            }
        },
    }
}

/// Encode with ours, then decode with ours and with the peer's decoder;
/// both must give `expected`, and our output must re-encode to itself.
fn check_both_decoders(tree: &OwnedNode, expected: &OwnedNode) -> Result<(), TestCaseError> {
    let bytes = quarry_wa::encode(tree).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(bytes.capacity(), bytes.len());
    prop_assert_eq!(
        quarry_wa::Encoder::new().encoded_len(tree).unwrap(),
        bytes.len()
    );

    let arena = Arena::new();
    let view = quarry_wa::decode(&arena, &bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&view.to_owned_node(), expected, "our decoder");
    prop_assert_eq!(&quarry_wa::encode(view).unwrap(), &bytes, "re-encode");

    let theirs = peer::marshal::unmarshal_ref(&bytes)
        .map_err(|e| TestCaseError::fail(format!("peer decoder: {e}")))?;
    prop_assert_eq!(&from_peer(&theirs), expected, "peer decoder");

    let frame = quarry_wa::encode_frame(tree).unwrap();
    prop_assert_eq!(frame[0], 0);
    prop_assert_eq!(&frame[1..], &bytes[..]);
    let mut out = vec![1, 2, 3];
    quarry_wa::encode_into(tree, &mut out).unwrap();
    prop_assert_eq!(&out[..3], &[1, 2, 3]);
    prop_assert_eq!(&out[3..], &bytes[..]);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// (a) and (c): every value kind, both decoders.
    #[test]
    fn encoded_trees_decode_to_the_same_tree(g in tree(false)) {
        check_both_decoders(&build(&g), &expect(&g))?;
    }

    /// (b): WhatsApp's canonical bytes re-encode byte for byte.
    #[test]
    fn peer_canonical_bytes_re_encode_identically(g in tree(true)) {
        let framed = peer::marshal::marshal(&to_peer(&g)).unwrap();
        prop_assert_eq!(framed[0], 0);
        let arena = Arena::new();
        let view = quarry_wa::decode_frame(&arena, &framed)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&view.to_owned_node(), &expect(&g));
        prop_assert_eq!(&quarry_wa::encode(view).unwrap(), &framed[1..]);
        prop_assert_eq!(&quarry_wa::encode_frame(view).unwrap(), &framed);
        // Our own encoder writes the same bytes as the peer's here.
        prop_assert_eq!(&quarry_wa::encode(&build(&g)).unwrap(), &framed[1..]);
    }
}

/// A root whose encoding outgrows the encoder's first-run scratch (4 KiB):
/// `lead` childless `ping` nodes (one string each, so more than 256 put
/// the memo's spill to work), then a payload of `pad` bytes, then the
/// generated trees. `pad` moves the point where the scratch runs out
/// across the generated strings of every kind.
fn past_scratch(lead: usize, pad: usize, kids: Vec<GenNode>) -> GenNode {
    let token = |text: &str| Text {
        text: text.to_owned(),
        jid: None,
    };
    let leaf = |tag: &str, content| GenNode {
        tag: token(tag),
        attrs: Vec::new(),
        content,
    };
    let mut children: Vec<GenNode> = (0..lead).map(|_| leaf("ping", GenContent::None)).collect();
    children.push(leaf("enc", GenContent::Bytes(vec![0xA5; pad])));
    children.extend(kids);
    GenNode {
        tag: token("iq"),
        attrs: Vec::new(),
        content: GenContent::Nodes(children),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// (a), (b) and (c) for encodings longer than the first run's scratch,
    /// which the encoder writes in a second run.
    #[test]
    fn encodings_past_the_scratch_buffer(
        lead in prop_oneof![Just(0usize), 200usize..700],
        pad in 3_600usize..4_200,
        kids in proptest::collection::vec(tree(false), 1..4),
        peer_kids in proptest::collection::vec(tree(true), 1..4),
    ) {
        let g = past_scratch(lead, pad, kids);
        check_both_decoders(&build(&g), &expect(&g))?;

        let g = past_scratch(lead, pad, peer_kids);
        let framed = peer::marshal::marshal(&to_peer(&g)).unwrap();
        prop_assert_eq!(&quarry_wa::encode(&build(&g)).unwrap(), &framed[1..]);
        let arena = Arena::new();
        let view = quarry_wa::decode_frame(&arena, &framed)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&quarry_wa::encode_frame(view).unwrap(), &framed);
    }
}

// ---------------------------------------------------------------------------
// Sizes too large for the generators, and shapes worth naming.

#[test]
fn binary_20_and_binary_32_payloads() {
    for len in [255, 256, (1 << 20) - 1, 1 << 20] {
        let node = OwnedNode::new("enc").bytes(vec![0x5A; len]);
        let bytes = quarry_wa::encode(&node).unwrap();
        let tag = match len {
            0..=255 => 252,
            256..=0xF_FFFF => 253,
            _ => 254,
        };
        assert_eq!(bytes[3], tag, "length {len}");
        check_both_decoders(&node, &node).unwrap();
    }
    // Raw text content of BINARY_20 size returns as bytes.
    let text = "x".repeat(70_000);
    let node = OwnedNode::new("body").text(text.clone());
    check_both_decoders(&node, &OwnedNode::new("body").bytes(text.into_bytes())).unwrap();
}

#[test]
fn empty_tag_and_key_are_written_as_the_peer_writes_them() {
    // LIST_8 3, tag "" as BINARY_8 00, key "" as BINARY_8 00, value token
    // "get" (the dictionary's single-byte token, checked against the peer's
    // own table).
    let Some(peer::token::TokenKind::Single(get)) = peer::token::index_of_token("get") else {
        panic!("\"get\" is a single-byte token");
    };
    let want = [0xF8, 3, 0xFC, 0, 0xFC, 0, get];
    let node = OwnedNode::new("").attr("", "get");
    assert_eq!(quarry_wa::encode(&node).unwrap(), want);
    let theirs = peer::builder::NodeBuilder::new("").attr("", "get").build();
    assert_eq!(&peer::marshal::marshal(&theirs).unwrap()[1..], &want);
    check_both_decoders(&node, &node).unwrap();
    // A decoded empty tag re-encodes to the bytes it came from.
    let arena = Arena::new();
    let view = quarry_wa::decode(&arena, &want).unwrap();
    assert_eq!(view.tag(), "");
    assert_eq!(quarry_wa::encode(view).unwrap(), want);
}

#[test]
fn a_chain_127_deep_round_trips_and_128_does_not_encode() {
    let mut node = OwnedNode::new("leaf").text("1.2");
    for i in 0..127 {
        node = OwnedNode::new(if i % 2 == 0 { "iq" } else { "item" }).children([node]);
    }
    check_both_decoders(&node, &node).unwrap();
    let too_deep = OwnedNode::new("iq").children([node]);
    assert_eq!(
        quarry_wa::encode(&too_deep),
        Err(quarry_wa::EncodeError::TooDeep { limit: 128 })
    );
}

#[test]
fn at_text_that_is_a_jid_only_by_rendering() {
    // "a@b@g.us" parses (user "a@b") and renders identically; the user
    // slot is written raw, never as a nested JID.
    let node = OwnedNode::new("iq").attr("to", "a@b@g.us").text("a@b@g.us");
    let expected = OwnedNode::new("iq")
        .attr("to", OwnedJid::new("a@b", Server::Group))
        .text("a@b@g.us");
    check_both_decoders(&node, &expected).unwrap();
    // An agent has no field on the wire: it stays in the user.
    let node = OwnedNode::new("iq").attr("to", "ab.7:3@hosted");
    let expected =
        OwnedNode::new("iq").attr("to", OwnedJid::new("ab.7", Server::Hosted).with_device(3));
    check_both_decoders(&node, &expected).unwrap();
}

#[test]
fn peer_fixture_shapes_decode_the_same_after_re_encoding() {
    // The peer's fanout writes "…:0@s.whatsapp.net" as AD_JID with device
    // 0, which re-encodes as JID_PAIR: different bytes, same tree.
    let devices = (0..8)
        .map(|i| {
            peer::builder::NodeBuilder::new("to")
                .attr("jid", format!("5511999990000:{i}@s.whatsapp.net"))
                .children(vec![
                    peer::builder::NodeBuilder::new("enc")
                        .attr("v", "2")
                        .attr("type", "msg")
                        .bytes(vec![0xAB; 128])
                        .build(),
                ])
                .build()
        })
        .collect::<Vec<_>>();
    let fanout = peer::builder::NodeBuilder::new("message")
        .attr("to", "5511999990000@g.us")
        .children(vec![
            peer::builder::NodeBuilder::new("participants")
                .children(devices)
                .build(),
        ])
        .build();
    let framed = peer::marshal::marshal(&fanout).unwrap();
    let arena = Arena::new();
    let view = quarry_wa::decode_frame(&arena, &framed).unwrap();
    let again = quarry_wa::encode(view).unwrap();
    assert_ne!(again, framed[1..]);
    let arena2 = Arena::new();
    assert_eq!(
        quarry_wa::decode(&arena2, &again).unwrap().to_owned_node(),
        view.to_owned_node()
    );
}

/// Inputs our decoder accepts but no canonical encoder writes: re-encoding
/// changes the bytes and keeps the tree.
#[test]
fn non_canonical_inputs_re_encode_to_the_same_tree() {
    let dict = Dictionary::v3();
    let t = |s: &str| match dict.lookup(s) {
        Some(quarry_wa::Token::Single(b)) => b,
        _ => panic!("{s} is not a single-byte token"),
    };
    let (iq, to, message) = (t("iq"), t("to"), t("message"));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "AD_JID device 0",
            vec![0xF8, 3, iq, to, 0xF7, 0, 0, 0xFF, 0x82, 0x12, 0x3F],
        ),
        (
            "AD_JID hosted domain 130",
            vec![0xF8, 3, iq, to, 0xF7, 130, 2, 0xFF, 0x82, 0x12, 0x3F],
        ),
        ("FB_JID device 0", {
            let mut v = vec![0xF8, 3, iq, to, 0xF6, 0xFF, 0x82, 0x12, 0x3F, 0, 0];
            v.push(t("msgr"));
            v
        }),
        (
            "non-F pad nibble",
            vec![0xF8, 3, iq, to, 0xFF, 0x82, 0x12, 0x34],
        ),
        (
            "NUL from a mid-string pad",
            vec![0xF8, 3, iq, to, 0xFF, 0x02, 0x1F, 0x23],
        ),
        (
            "BINARY_20 top nibble",
            vec![0xF8, 2, message, 0xFD, 0xF0, 0, 2, b'h', b'i'],
        ),
        (
            "BINARY_32 for a short value",
            vec![0xF8, 2, message, 0xFE, 0, 0, 0, 2, b'h', b'i'],
        ),
        ("LIST_EMPTY content", vec![0xF8, 2, message, 0]),
        ("LIST_EMPTY attribute value", vec![0xF8, 3, iq, to, 0]),
        ("LIST_16 header", vec![0xF9, 0, 1, message]),
        (
            "raw-encoded token",
            [&[0xF8, 1, 0xFC, 7][..], b"message"].concat(),
        ),
        ("packed attribute value over 127 characters", {
            let mut v = vec![0xF8, 3, iq, to, 0xFF, 100];
            v.extend([0x12; 100]);
            v
        }),
    ];
    for (what, bytes) in cases {
        let arena = Arena::new();
        let first = quarry_wa::decode(&arena, &bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        let again = quarry_wa::encode(first).unwrap();
        assert_ne!(again, bytes, "{what}: expected different bytes");
        let arena2 = Arena::new();
        let second = quarry_wa::decode(&arena2, &again).unwrap();
        assert_eq!(second.to_owned_node(), first.to_owned_node(), "{what}");
        // Whatever we write, the peer's decoder reads the same way.
        let theirs = peer::marshal::unmarshal_ref(&again).unwrap();
        assert_eq!(from_peer(&theirs), first.to_owned_node(), "{what}: peer");
    }

    // In content position the same over-long packed string cannot come back
    // as text: the encoder packs at most 127 characters (as WhatsApp's
    // does), so it writes raw bytes, which decode as bytes.
    let mut bytes = vec![0xF8, 2, message, 0xFF, 100];
    bytes.extend([0x12; 100]);
    let arena = Arena::new();
    let first = quarry_wa::decode(&arena, &bytes).unwrap();
    assert_eq!(first.content_str(), Some("12".repeat(100).as_str()));
    let again = quarry_wa::encode(first).unwrap();
    let second = quarry_wa::decode(&arena, &again).unwrap();
    assert_eq!(second.content_bytes(), Some("12".repeat(100).as_bytes()));
    // So does a NUL from a mid-string pad nibble.
    let bytes = [0xF8, 2, message, 0xFF, 0x02, 0x1F, 0x23];
    let first = quarry_wa::decode(&arena, &bytes).unwrap();
    assert_eq!(first.content_str(), Some("1\u{0}23"));
    let again = quarry_wa::encode(first).unwrap();
    let second = quarry_wa::decode(&arena, &again).unwrap();
    assert_eq!(second.content_bytes(), Some(&b"1\x0023"[..]));
    // And a rendered JID whose text reads as a device its server lacks.
    let bytes = [0xF8, 2, message, 0xFA, 0xFC, 3, b'a', b':', b'5', t("g.us")];
    let first = quarry_wa::decode(&arena, &bytes).unwrap();
    assert_eq!(first.content_str(), Some("a:5@g.us"));
    let again = quarry_wa::encode(first).unwrap();
    let second = quarry_wa::decode(&arena, &again).unwrap();
    assert_eq!(second.content_bytes(), Some(&b"a:5@g.us"[..]));
}
