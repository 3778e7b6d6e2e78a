//! Generated trees: the peer encodes them, and `quarry wa decode --json`
//! must print what the peer decodes, as node bytes and as a compressed
//! frame; `encode --json` of that output must decode (by the peer) to the
//! same document.

mod common;

use common::*;
use proptest::prelude::*;
use wacore_binary::builder::NodeBuilder;
use wacore_binary::node::Node;

/// Strings of every class the peer's encoder tells apart (spec section 7):
/// tokens, nibble- and hex-packable, JIDs on known servers, raw text with
/// escapes. No other `@`: the peer encodes `x@unknown` as a JID_PAIR its
/// own decoder rejects.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "message",
            "type",
            "enc",
            "to",
            "id",
            "iq",
            "participants",
            "s.whatsapp.net",
            "g.us",
            "notification",
            "receipt",
            "xmlns",
        ])
        .prop_map(str::to_owned),
        "[0-9.-]{1,30}",
        "[0-9A-F]{1,30}",
        (
            "[0-9]{1,15}",
            prop::sample::select(vec![
                "s.whatsapp.net",
                "g.us",
                "lid",
                "broadcast",
                "newsletter",
                "c.us"
            ])
        )
            .prop_map(|(user, server)| format!("{user}@{server}")),
        (
            "[0-9]{1,15}",
            0u8..=99,
            prop::sample::select(vec!["s.whatsapp.net", "lid"])
        )
            .prop_map(|(user, device, server)| format!("{user}:{device}@{server}")),
        "[^@]{0,40}",
        "[a-z\"\\\\\n\t\u{0}-\u{1f}\u{7f}\u{2028}é😀]{0,20}",
        "[a-z]{200,300}",
    ]
}

fn non_empty_text() -> impl Strategy<Value = String> {
    text().prop_filter("tags and keys are non-empty", |s| !s.is_empty())
}

fn tree() -> impl Strategy<Value = Node> {
    let leaf = (
        non_empty_text(),
        prop::collection::vec((non_empty_text(), text()), 0..4),
        prop_oneof![
            Just(None),
            text().prop_map(|t| Some(Ok(t))),
            prop::collection::vec(any::<u8>(), 0..40).prop_map(|b| Some(Err(b))),
        ],
    )
        .prop_map(|(tag, attrs, content)| {
            let mut node = NodeBuilder::new_dynamic(tag);
            for (k, v) in attrs {
                node = node.attr(Box::leak(k.into_boxed_str()), v);
            }
            match content {
                None => node.build(),
                Some(Ok(text)) => node.string_content(text).build(),
                Some(Err(bytes)) => node.bytes(bytes).build(),
            }
        });
    leaf.prop_recursive(4, 40, 5, |inner| {
        (
            non_empty_text(),
            prop::collection::vec((non_empty_text(), text()), 0..3),
            prop::collection::vec(inner, 0..5),
        )
            .prop_map(|(tag, attrs, children)| {
                let mut node = NodeBuilder::new_dynamic(tag);
                for (k, v) in attrs {
                    node = node.attr(Box::leak(k.into_boxed_str()), v);
                }
                node.children(children).build()
            })
    })
}

proptest! {
    // A process per run, three per case: 48 by default, PROPTEST_CASES for a
    // longer sweep.
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(48)
    ))]

    #[test]
    fn generated_trees_agree_with_the_peer(tree in tree()) {
        let bytes = node_bytes(&tree);
        let expected = expected_for_node_bytes(&bytes);
        let out = success(&quarry(&["wa", "decode", "--json", "-"], &bytes));
        prop_assert_eq!(&out, &expected);
        let frame = compressed_frame(&bytes);
        let out = success(&quarry(&["wa", "decode", "--framed", "--json", "-"], &frame));
        prop_assert_eq!(&out, &expected);
        let encoded = quarry(&["wa", "encode", "--json", "-"], out.as_bytes());
        prop_assert!(encoded.status.success(), "{}", String::from_utf8_lossy(&encoded.stderr));
        prop_assert_eq!(expected_for_node_bytes(&encoded.stdout), expected);
    }
}
