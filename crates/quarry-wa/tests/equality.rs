//! `Node`'s `PartialEq` is value equality: nodes from different arenas and
//! different wire forms of the same tree compare equal, and a change
//! anywhere in the tree compares unequal. The owned tree's equality (its
//! own code, in `owned.rs`) is the reference.

use quarry_core::{Arena, DecodeOptions};
use quarry_wa::{Decoder, Jid, Node, OwnedNode, Server};

/// Tokens of the v3 dictionary used below (`docs/wa-format.md`).
const MESSAGE: u8 = 19;
const TYPE: u8 = 4;
const ENC: u8 = 29;

fn decode<'a>(arena: &'a Arena, bytes: &'a [u8]) -> Node<'a> {
    quarry_wa::decode(arena, bytes).expect("test input decodes")
}

#[test]
fn a_token_and_the_same_text_as_raw_bytes_are_equal_values() {
    // <message type="enc"/>: the value once as a token, once as BINARY_8.
    let token = [0xF8, 3, MESSAGE, TYPE, ENC];
    let raw = [0xF8, 3, MESSAGE, TYPE, 0xFC, 3, b'e', b'n', b'c'];
    let (one, two) = (Arena::new(), Arena::new());
    let (a, b) = (decode(&one, &token), decode(&two, &raw));
    assert_eq!(a, b);
    assert_eq!(a.attrs(), b.attrs());
    assert_eq!(a.content(), b.content());
}

/// A tree with attributes, a JID, nested children and byte payloads.
fn tree(change: Option<&str>) -> OwnedNode {
    let c = |what: &str| change == Some(what);
    let enc = |i: u8| {
        OwnedNode::new("enc")
            .attr("v", "2")
            .attr(
                "type",
                if c("deep attr") && i == 2 {
                    "pkmsg"
                } else {
                    "msg"
                },
            )
            .bytes(vec![if c("deep bytes") && i == 1 { 0xEE } else { i }; 40])
    };
    let to = |i: u8| {
        OwnedNode::new("to")
            .jid_attr(
                "jid",
                Jid::new("5511999990000", Server::Pn).with_device(if c("device") && i == 0 {
                    9
                } else {
                    u16::from(i)
                }),
            )
            .children([enc(i)])
    };
    let mut participants: Vec<OwnedNode> = (0..3).map(to).collect();
    if c("one child fewer") {
        participants.pop();
    }
    if c("children swapped") {
        participants.swap(0, 1);
    }
    let mut root = OwnedNode::new(if c("tag") { "receipt" } else { "message" })
        .attr("to", "120363000000000000@g.us")
        .attr("id", if c("attr value") { "3EB0AA" } else { "3EB0FF" });
    if c("extra attr") {
        root = root.attr("t", "1700000000");
    }
    let body = OwnedNode::new("participants").children(participants);
    // Text that is a token stays text on the wire; bytes stay bytes.
    if c("text for bytes") {
        root.children([body, OwnedNode::new("body").text("enc")])
    } else {
        root.children([body, OwnedNode::new("body").bytes(b"enc".to_vec())])
    }
}

#[test]
fn equal_trees_from_two_arenas_are_equal_and_each_change_is_not() {
    let wire = quarry_wa::encode(&tree(None)).unwrap();
    let (one, two) = (Arena::new(), Arena::new());
    let copy = wire.clone();
    let (a, b) = (decode(&one, &wire), decode(&two, &copy));
    assert_eq!(a, b);
    assert_eq!(a.children(), b.children());

    let changes = [
        "tag",
        "attr value",
        "extra attr",
        "device",
        "one child fewer",
        "children swapped",
        "deep attr",
        "deep bytes",
        "text for bytes",
    ];
    for change in changes {
        let changed = tree(Some(change));
        assert_ne!(changed, tree(None), "{change}: the reference sees a change");
        let other = quarry_wa::encode(&changed).unwrap();
        let arena = Arena::new();
        let c = decode(&arena, &other);
        assert_ne!(a, c, "{change}");
        assert_ne!(c, a, "{change}");
    }
}

#[test]
fn equality_agrees_with_the_owned_trees() {
    let variants: Vec<Vec<u8>> = [
        None,
        Some("tag"),
        Some("device"),
        Some("deep bytes"),
        Some("text for bytes"),
    ]
    .into_iter()
    .map(|c| quarry_wa::encode(&tree(c)).unwrap())
    .collect();
    let arena = Arena::new();
    let views: Vec<Node<'_>> = variants.iter().map(|w| decode(&arena, w)).collect();
    for x in &views {
        for y in &views {
            assert_eq!(x == y, x.to_owned_node() == y.to_owned_node());
        }
    }
}

#[test]
fn a_deep_tree_compares_on_a_small_stack() {
    // 20,000 nested nodes: `F8 02 <token> F8 01` per level, a leaf last.
    const LEVELS: usize = 20_000;
    let mut bytes = Vec::new();
    for _ in 0..LEVELS {
        bytes.extend_from_slice(&[0xF8, 2, MESSAGE, 0xF8, 1]);
    }
    bytes.extend_from_slice(&[0xF8, 1, ENC]);
    let mut changed = bytes.clone();
    *changed.last_mut().unwrap() = MESSAGE;
    let decoder = Decoder {
        options: DecodeOptions {
            max_depth: 30_000,
            ..DecodeOptions::DEFAULT
        },
        ..Decoder::new()
    };
    // Decoded here, compared on a thread of 64 KiB: what is under test is
    // the comparison (an unoptimized build's decoder frame alone takes
    // more than that).
    let (one, two, three) = (Arena::new(), Arena::new(), Arena::new());
    let a = decoder.decode(&one, &bytes).unwrap();
    let b = decoder.decode(&two, &bytes).unwrap();
    let c = decoder.decode(&three, &changed).unwrap();
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn_scoped(scope, || {
                assert!(a == b);
                assert!(a != c);
            })
            .unwrap()
            .join()
            .unwrap();
    });
}
