//! WhatsApp binary node cases: the shapes of `wacore-binary`'s own
//! `binary_benchmark`, built with its `NodeBuilder` and marshalled by its
//! `marshal`, so quarry and the peer decode the very same bytes; and the
//! small-stanza corpus of [`crate::wa_corpus`] ([`corpus`]), decoded stanza
//! by stanza and counted in total.

use std::hint::black_box;
use std::sync::LazyLock;

use quarry_core::Arena;
use quarry_wa::OwnedNode;
use wacore_binary::builder::NodeBuilder;
use wacore_binary::marshal::{marshal, marshal_exact, marshal_ref, unmarshal_ref};
use wacore_binary::node::{Node as PeerNode, NodeRef as PeerNodeRef};

/// One benchmark input.
pub struct WaCase {
    /// Short name, used in bench ids and report rows.
    pub name: &'static str,
    /// Node bytes as the peer marshals them, without the leading flags byte.
    pub bytes: Vec<u8>,
    /// The peer's owned tree the bytes were marshalled from (the input of
    /// the peer's encode benches).
    pub tree: PeerNode,
    /// The same tree as quarry's owned builder type (decoded from `bytes`
    /// and converted): the input of quarry's encode benches.
    pub quarry_tree: OwnedNode,
}

/// Every case name, in report order.
pub const CASE_NAMES: [&str; 7] = [
    "fanout",
    "large",
    "ack",
    "small",
    "usync_like",
    "jid_heavy",
    "many_children",
];

/// All cases, built once per process.
pub fn cases() -> &'static [WaCase] {
    static CASES: LazyLock<Vec<WaCase>> = LazyLock::new(|| {
        CASE_NAMES
            .iter()
            .map(|&name| {
                let tree = build(name);
                let mut framed = marshal(&tree).expect("the peer marshals its own tree");
                // `marshal` writes the flags byte first; both decoders take
                // the node bytes after it.
                framed.remove(0);
                let arena = Arena::new();
                let quarry_tree = quarry_wa::decode(&arena, &framed)
                    .expect("quarry decodes the peer's bytes")
                    .to_owned_node();
                WaCase {
                    name,
                    bytes: framed,
                    tree,
                    quarry_tree,
                }
            })
            .collect()
    });
    &CASES
}

/// The case called `name`.
///
/// # Panics
/// When no case has that name (a typo in a bench definition).
pub fn case(name: &str) -> &'static WaCase {
    cases()
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no WhatsApp bench case {name:?}"))
}

/// The node bytes of case `name`.
pub fn input(name: &str) -> &'static [u8] {
    &case(name).bytes
}

/// The name of the small-stanza corpus in bench ids and report rows.
pub const CORPUS: &str = "corpus";

/// The node bytes of every stanza of the small-stanza corpus
/// ([`crate::wa_corpus`]), built once per process.
pub fn corpus() -> &'static [&'static [u8]] {
    static CORPUS: LazyLock<Vec<&'static [u8]>> = LazyLock::new(|| {
        crate::wa_corpus::stanzas()
            .into_iter()
            .map(|s| &*s.bytes.leak())
            .collect()
    });
    &CORPUS
}

/// The inputs of bench id `name`: the one case's bytes, or every stanza of
/// the corpus for [`CORPUS`].
pub fn inputs(name: &str) -> &'static [&'static [u8]] {
    if name == CORPUS {
        return corpus();
    }
    static ONE: LazyLock<Vec<&'static [u8]>> =
        LazyLock::new(|| cases().iter().map(|c| c.bytes.as_slice()).collect());
    let at = CASE_NAMES
        .iter()
        .position(|&n| n == name)
        .unwrap_or_else(|| panic!("no WhatsApp bench case {name:?}"));
    &ONE[at..=at]
}

fn build(name: &str) -> PeerNode {
    match name {
        "fanout" => fanout(),
        "large" => large(),
        "ack" => ack(),
        "small" => small(),
        "usync_like" => usync_like(),
        "jid_heavy" => jid_heavy(),
        "many_children" => many_children(),
        other => panic!("no WhatsApp bench case {other:?}"),
    }
}

/// A message to a group: eight device-qualified recipients (AD_JID), each
/// with a 128-byte encrypted payload.
fn fanout() -> PeerNode {
    let recipients = (0..8).map(|device| {
        NodeBuilder::new("to")
            .attr("jid", format!("5511999990000:{device}@s.whatsapp.net"))
            .children([NodeBuilder::new("enc")
                .attr("v", "2")
                .attr("type", "msg")
                .bytes(vec![0xAB; 128])
                .build()])
            .build()
    });
    NodeBuilder::new("message")
        .attr("to", "5511999990000@g.us")
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("type", "text")
        .children([NodeBuilder::new("participants")
            .children(recipients)
            .build()])
        .build()
}

/// A usync query with a list of twenty indexed 32-byte items.
fn large() -> PeerNode {
    let query = NodeBuilder::new("usync")
        .attr("sid", "message:1")
        .attr("mode", "query")
        .attr("last", "true")
        .children([NodeBuilder::new("query")
            .children([NodeBuilder::new("business").build()])
            .build()])
        .build();
    let items = (0..20u8).map(|i| {
        NodeBuilder::new("item")
            .attr("index", i.to_string())
            .bytes(vec![i; 32])
            .build()
    });
    NodeBuilder::new("iq")
        .attr("to", "server@s.whatsapp.net")
        .attr("id", "abcdef")
        .attr("type", "get")
        .attr("xmlns", "usync")
        .children([query, NodeBuilder::new("list").children(items).build()])
        .build()
}

/// A receipt ack: a JID pair, a nibble-packed number, a hex-packed id.
fn ack() -> PeerNode {
    NodeBuilder::new("ack")
        .attr("to", "5511999990000@s.whatsapp.net")
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("class", "message")
        .build()
}

/// A bare message header with three attributes.
fn small() -> PeerNode {
    NodeBuilder::new("message")
        .attr("to", "user@s.whatsapp.net")
        .attr("id", "12345")
        .attr("type", "text")
        .build()
}

/// A usync result: fifty users, each with a three-device list and a
/// contact node.
fn usync_like() -> PeerNode {
    let users = (0..50).map(|user| {
        let devices = (0..3).map(|d| NodeBuilder::new("device").attr("id", d.to_string()).build());
        NodeBuilder::new("user")
            .attr("jid", format!("{user}@s.whatsapp.net"))
            .children([
                NodeBuilder::new("devices")
                    .children([NodeBuilder::new("device-list").children(devices).build()])
                    .build(),
                NodeBuilder::new("contact").attr("type", "in").build(),
            ])
            .build()
    });
    NodeBuilder::new("iq")
        .attr("type", "result")
        .children([NodeBuilder::new("usync")
            .children([NodeBuilder::new("list").children(users).build()])
            .build()])
        .build()
}

/// One node with five JID attributes.
fn jid_heavy() -> PeerNode {
    NodeBuilder::new("message")
        .attr("from", "15551234567@s.whatsapp.net")
        .attr("to", "15559876543@s.whatsapp.net")
        .attr("participant", "15555555555@s.whatsapp.net")
        .attr("recipient", "15556666666@s.whatsapp.net")
        .attr("notify", "15557777777@s.whatsapp.net")
        .attr("id", "ABCDEF123456")
        .attr("type", "text")
        .build()
}

/// An iq with 2048 small children, each with two attributes and text.
fn many_children() -> PeerNode {
    let items = (0..2048).map(|i| {
        NodeBuilder::new("item")
            .attr("index", i.to_string())
            .attr("type", "entry")
            .string_content("ok")
            .build()
    });
    NodeBuilder::new("iq")
        .attr("to", "server@s.whatsapp.net")
        .attr("id", "many-children")
        .children(items)
        .build()
}

/// Decode with the peer and drop the tree. Returns the root's child count
/// so the work cannot be optimised away.
///
/// # Panics
/// When the peer rejects the input (the cases are the peer's own output).
#[inline(never)]
pub fn peer_decode(bytes: &[u8]) -> usize {
    let node = unmarshal_ref(black_box(bytes)).expect("the peer decodes its own bytes");
    let n = node.children().map_or(0, |c| c.len());
    drop(black_box(node));
    n
}

/// Decode with quarry into a fresh arena, then drop the view and the arena.
///
/// # Panics
/// When quarry rejects the input.
#[inline(never)]
pub fn quarry_decode_fresh(bytes: &[u8]) -> usize {
    let arena = quarry_wa::arena_for(bytes);
    let node =
        quarry_wa::decode(&arena, black_box(bytes)).expect("quarry decodes the peer's bytes");
    let n = node.children().len();
    black_box(node);
    drop(arena);
    n
}

/// Decode with quarry into `arena` (reset first, so it keeps its chunk from
/// earlier decodes) and drop the view.
///
/// # Panics
/// When quarry rejects the input.
#[inline(never)]
pub fn quarry_decode_reused(arena: &mut Arena, bytes: &[u8]) -> usize {
    arena.reset();
    let node = quarry_wa::decode(arena, black_box(bytes)).expect("quarry decodes the peer's bytes");
    let n = node.children().len();
    black_box(node);
    n
}

/// An arena that has decoded `bytes` once and been reset: the state a
/// reused arena is in from the second message on.
pub fn warmed_arena(bytes: &[u8]) -> Arena {
    warmed_arena_for(&[bytes])
}

/// An arena that has decoded each of `inputs` once and been reset.
pub fn warmed_arena_for(inputs: &[&[u8]]) -> Arena {
    let mut arena = Arena::new();
    for bytes in inputs {
        quarry_decode_reused(&mut arena, bytes);
    }
    arena.reset();
    arena
}

/// Encode an owned tree with the peer's default `marshal` (flags byte
/// included, output grown as it goes), drop the output, return its length.
///
/// # Panics
/// When the peer cannot encode its own tree.
#[inline(never)]
pub fn peer_marshal(tree: &PeerNode) -> usize {
    let out = marshal(black_box(tree)).expect("the peer encodes its own tree");
    let n = out.len();
    drop(black_box(out));
    n
}

/// The peer's two-pass `marshal_exact` (size plan, then one allocation).
///
/// # Panics
/// When the peer cannot encode its own tree.
#[inline(never)]
pub fn peer_marshal_exact(tree: &PeerNode) -> usize {
    let out = marshal_exact(black_box(tree)).expect("the peer encodes its own tree");
    let n = out.len();
    drop(black_box(out));
    n
}

/// Re-encode a decoded tree with the peer's `marshal_ref`.
///
/// # Panics
/// When the peer cannot encode its own decoded tree.
#[inline(never)]
pub fn peer_marshal_ref(node: &PeerNodeRef<'_>) -> usize {
    let out = marshal_ref(black_box(node)).expect("the peer re-encodes its own tree");
    let n = out.len();
    drop(black_box(out));
    n
}

/// Encode an owned tree with `quarry_wa::encode_frame` (flags byte
/// included, like the peer's `marshal`), drop the output.
///
/// # Panics
/// When quarry cannot encode the tree.
#[inline(never)]
pub fn quarry_encode(tree: &OwnedNode) -> usize {
    let out = quarry_wa::encode_frame(black_box(tree)).expect("quarry encodes the case");
    let n = out.len();
    drop(black_box(out));
    n
}

/// Re-encode a decoded view with `quarry_wa::encode_frame`.
///
/// # Panics
/// When quarry cannot encode the view.
#[inline(never)]
pub fn quarry_encode_view(node: quarry_wa::Node<'_>) -> usize {
    let out = quarry_wa::encode_frame(black_box(node)).expect("quarry re-encodes the case");
    let n = out.len();
    drop(black_box(out));
    n
}

/// The peer's decoded tree of case `name`, kept for the whole process (for
/// the re-encode benches).
pub fn peer_view(name: &str) -> &'static PeerNodeRef<'static> {
    Box::leak(Box::new(
        unmarshal_ref(input(name)).expect("the peer decodes its own bytes"),
    ))
}

/// quarry's decoded view of case `name`, its arena kept for the whole
/// process (for the re-encode benches).
pub fn quarry_view(name: &str) -> quarry_wa::Node<'static> {
    let arena: &'static Arena = Box::leak(Box::new(Arena::new()));
    quarry_wa::decode(arena, input(name)).expect("quarry decodes the peer's bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    // The encode benches compare like with like only if both encoders
    // produce the same frame for the same tree. One deliberate difference
    // (docs/wa-format.md, "lossy spots"): quarry writes an AD_JID with
    // device 0 as the one byte shorter JID_PAIR, and fanout's first
    // recipient is `5511999990000:0@s.whatsapp.net`. The peer's own
    // re-encode of its decoded tree (`marshal_ref`) does the same.
    #[test]
    fn both_encoders_write_the_peers_bytes() {
        for case in cases() {
            let peer = marshal(&case.tree).unwrap();
            assert_eq!(peer[1..], case.bytes[..], "{}", case.name);
            assert_eq!(marshal_exact(&case.tree).unwrap(), peer, "{}", case.name);
            let owned = quarry_wa::encode_frame(&case.quarry_tree).unwrap();
            let view = quarry_wa::encode_frame(quarry_view(case.name)).unwrap();
            assert_eq!(owned, view, "{}", case.name);
            let peer_view_bytes = marshal_ref(peer_view(case.name)).unwrap();
            assert_eq!(
                view, peer_view_bytes,
                "{}: re-encode of the decoded tree",
                case.name
            );
            if case.name == "fanout" {
                // AD_JID (F7), domain 0, device 0, user; versus JID_PAIR
                // (FA), user, server token.
                let Some(wacore_binary::token::TokenKind::Single(server)) =
                    wacore_binary::token::index_of_token("s.whatsapp.net")
                else {
                    panic!("s.whatsapp.net is a single-byte token");
                };
                let at = peer.windows(3).position(|w| w == [0xF7, 0, 0]).unwrap();
                let user = &peer[at + 3..at + 12]; // NIBBLE_8 of 13 digits: 2 + 7 bytes
                assert_eq!(user[..2], [0xFF, 0x87]);
                let mut expected = peer[..at].to_vec();
                expected.push(0xFA);
                expected.extend_from_slice(user);
                expected.push(server);
                expected.extend_from_slice(&peer[at + 12..]);
                assert_eq!(owned, expected, "fanout");
            } else {
                assert_eq!(owned, peer, "{}: quarry_wa::encode_frame", case.name);
            }
        }
    }

    #[test]
    fn the_measured_functions_do_the_work() {
        for case in cases() {
            let n = match &case.quarry_tree.content {
                quarry_wa::OwnedContent::Nodes(children) => children.len(),
                _ => 0,
            };
            assert_eq!(quarry_decode_fresh(&case.bytes), n, "{}", case.name);
            assert_eq!(peer_decode(&case.bytes), n, "{}", case.name);
            let mut arena = warmed_arena(&case.bytes);
            assert_eq!(
                quarry_decode_reused(&mut arena, &case.bytes),
                n,
                "{}",
                case.name
            );
            let len = case.bytes.len() + 1;
            assert_eq!(peer_marshal(&case.tree), len);
            assert_eq!(peer_marshal_exact(&case.tree), len);
            // One byte shorter on fanout: see the test above.
            let quarry_len = len - usize::from(case.name == "fanout");
            assert_eq!(peer_marshal_ref(peer_view(case.name)), quarry_len);
            assert_eq!(quarry_encode(&case.quarry_tree), quarry_len);
            assert_eq!(quarry_encode_view(quarry_view(case.name)), quarry_len);
        }
    }
}
