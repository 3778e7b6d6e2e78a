//! Inputs the fuzz targets (`fuzz/`, docs/SECURITY.md) turned up, checked
//! in with what they must do.

use quarry_core::Arena;
use quarry_wa::{Node, OwnedJid, OwnedNode, OwnedValue, Server};

/// `wa_node`: a JID user that arrives
/// HEX_8-packed (`FB 01 00`, the user "00") is written back packed by
/// `encode` of a view (a view re-encodes byte for byte) but as the token that
/// spells "00" by `encode` of the owned copy, which holds the user as
/// text. Two encodings, one tree: both must decode to it.
#[test]
fn a_packed_jid_user_that_is_a_token_re_encodes_to_the_same_tree_both_ways() {
    let input = [
        0xF8, 0x07, 0x85, // <relay_id, 3 attributes
        0xF7, 0x01, 0x07, 0xFB, 0x01, 0xF8, // key: AD_JID(lid, 7, HEX_8 "F8")
        0x06, // value: token "from"
        0x85, // key "relay_id"
        0xF7, 0x01, 0x07, 0xFB, 0x01, 0x00, // value: AD_JID(lid, 7, HEX_8 "00")
        0x06, 0x00, // key "from", value LIST_EMPTY ("")
    ];
    let arena = Arena::new();
    let node = quarry_wa::decode(&arena, &input).unwrap();
    // Expected from the format spec: a JID in a key slot is rendered to
    // text; a JID value stays structured; LIST_EMPTY as a value is "".
    let jid = OwnedJid {
        user: "00".into(),
        server: Server::Lid,
        agent: 0,
        device: 7,
        integrator: 0,
    };
    let expected = OwnedNode {
        tag: "relay_id".into(),
        attrs: vec![
            ("F8:7@lid", OwnedValue::Str("from".into())),
            ("relay_id", OwnedValue::Jid(jid)),
            ("from", OwnedValue::Str("".into())),
        ]
        .into(),
        content: quarry_wa::OwnedContent::None,
    };
    assert_eq!(node.to_owned_node(), expected);

    let from_view = quarry_wa::encode(node).unwrap();
    let from_owned = quarry_wa::encode(&expected).unwrap();
    // The view keeps the packed user: its bytes reappear verbatim.
    assert!(from_view.windows(3).any(|w| w == [0xFB, 0x01, 0x00]));
    assert_ne!(from_view, from_owned);
    for bytes in [&from_view, &from_owned] {
        let arena = Arena::new();
        let again = quarry_wa::decode(&arena, bytes).unwrap();
        assert_eq!(rendered(again), rendered(node));
    }
}

/// Tag, attributes (values rendered) and content, recursively: the tree
/// as text, whatever form each JID took.
fn rendered(node: Node<'_>) -> String {
    let attrs: Vec<String> = node
        .attrs()
        .iter()
        .map(|(k, v)| format!("{k}={}", v.to_text()))
        .collect();
    format!(
        "<{} {}>{:?}",
        node.tag(),
        attrs.join(" "),
        node.content_bytes()
    )
}
