//! The encoder's allocation contract, counted exactly: one encode is one
//! heap allocation (the output, at its final size), and the output never
//! grows. This binary installs a counting global allocator; counting is per
//! thread, so other tests running in parallel cannot disturb it.

use quarry_core::Arena;
use quarry_wa::{Jid, OwnedNode, Server};

#[global_allocator]
static GLOBAL: quarry_testkit::CountingAlloc = quarry_testkit::CountingAlloc;

/// The group-message fanout shape WhatsApp's own benchmarks use: a message
/// to a group, a `participants` list of eight device `to` nodes, each
/// holding one `enc` of 128 bytes.
fn fanout() -> OwnedNode {
    let devices = (0..8u16).map(|i| {
        OwnedNode::new("to")
            .jid_attr("jid", Jid::new("5511999990000", Server::Pn).with_device(i))
            .children([OwnedNode::new("enc")
                .attr("v", "2")
                .attr("type", "msg")
                .bytes(vec![0xAB; 128])])
    });
    OwnedNode::new("message")
        .attr("to", "5511999990000@g.us")
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("type", "text")
        .children([OwnedNode::new("participants").children(devices)])
}

#[test]
fn one_allocation_per_encode_and_capacity_equals_length() {
    let tree = fanout();
    // The dictionary builds its reverse index on first use; that is a
    // one-time cost of the process, not of an encode.
    let _ = quarry_wa::encode(&tree).unwrap();

    let (n, bytes) = quarry_testkit::count_allocs(|| quarry_wa::encode(&tree).unwrap());
    assert_eq!(n, 1, "encode of the fanout shape");
    assert_eq!(bytes.capacity(), bytes.len());

    let (n, frame) = quarry_testkit::count_allocs(|| quarry_wa::encode_frame(&tree).unwrap());
    assert_eq!(n, 1, "encode_frame of the fanout shape");
    assert_eq!(frame.capacity(), frame.len());
    assert_eq!(frame[1..], bytes[..]);

    // Re-encoding a decoded view: the same single allocation.
    let arena = Arena::new();
    let view = quarry_wa::decode(&arena, &bytes).unwrap();
    let (n, again) = quarry_testkit::count_allocs(|| quarry_wa::encode(view).unwrap());
    assert_eq!(n, 1, "encode of the fanout view");
    assert_eq!(again.capacity(), again.len());
    assert_eq!(again, bytes);

    // Appending into a buffer that already has room: nothing at all.
    let mut out = Vec::with_capacity(2 * bytes.len());
    let (n, ()) = quarry_testkit::count_allocs(|| quarry_wa::encode_into(&tree, &mut out).unwrap());
    assert_eq!(n, 0, "encode_into a buffer with room");
    assert_eq!(out, bytes);
    // Appending into one without: one reservation, exactly the size.
    let mut out = vec![0x00];
    let (n, ()) = quarry_testkit::count_allocs(|| quarry_wa::encode_into(&tree, &mut out).unwrap());
    assert_eq!(n, 1, "encode_into a full buffer");
    assert_eq!(out.capacity(), out.len());

    // Text that contains '@' but is no JID costs nothing extra either.
    let odd = OwnedNode::new("iq")
        .attr("to", "someone@example.com")
        .attr("from", "x:y@s.whatsapp.net");
    let _ = quarry_wa::encode(&odd).unwrap();
    let (n, _) = quarry_testkit::count_allocs(|| quarry_wa::encode(&odd).unwrap());
    assert_eq!(n, 1, "encode of non-JID '@' text");
}

/// Past its 4 KiB stack scratch the encoder continues in the heap: one
/// allocation reserved for an upper bound of the encoding, shrunk in place
/// to the length at the end (a `realloc`, which the counter counts too).
/// Appending into a buffer with room for that bound allocates nothing.
/// The size plan alone allocates nothing.
#[test]
fn encodings_past_the_scratch_buffer() {
    let _ = quarry_wa::encode(&fanout()).unwrap();

    // Few strings, many bytes: 3 strings and a 5,000-byte payload.
    let few = OwnedNode::new("iq").children([OwnedNode::new("enc").bytes(vec![0xAB; 5_000])]);
    // Many strings: 600 nodes of three strings each.
    let many = OwnedNode::new("iq").children((0..600u32).map(|i| {
        OwnedNode::new("item")
            .attr("id", (1_000_000 + i).to_string())
            .children([OwnedNode::new("enc").bytes(vec![0xCD; 3])])
    }));
    for (name, tree) in [("few strings", &few), ("many strings", &many)] {
        let len = quarry_wa::Encoder::new().encoded_len(tree).unwrap();
        assert!(len > 4096, "{name}: {len} bytes");
        let (n, len_again) =
            quarry_testkit::count_allocs(|| quarry_wa::Encoder::new().encoded_len(tree).unwrap());
        assert_eq!((n, len_again), (0, len), "{name}: encoded_len");

        let (n, bytes) = quarry_testkit::count_allocs(|| quarry_wa::encode(tree).unwrap());
        assert_eq!(n, 2, "{name}: encode (reserve, then shrink)");
        assert_eq!((bytes.len(), bytes.capacity()), (len, len), "{name}");

        let arena = Arena::new();
        let view = quarry_wa::decode(&arena, &bytes).unwrap();
        assert_eq!(&view.to_owned_node(), tree, "{name}: round trip");
        let (n, again) = quarry_testkit::count_allocs(|| quarry_wa::encode(view).unwrap());
        assert_eq!(n, 2, "{name}: encode of the view");
        assert_eq!((again.len(), again.capacity()), (len, len), "{name}");
        assert_eq!(again, bytes, "{name}");

        // Into an empty buffer: the one reservation, kept (no shrink of a
        // caller's buffer).
        let mut out = Vec::new();
        let (n, ()) =
            quarry_testkit::count_allocs(|| quarry_wa::encode_into(tree, &mut out).unwrap());
        assert_eq!(n, 1, "{name}: encode_into an empty buffer");
        assert_eq!(out, bytes, "{name}");
        // Into that buffer again, cleared: it has room, nothing is asked.
        out.clear();
        let (n, ()) =
            quarry_testkit::count_allocs(|| quarry_wa::encode_into(tree, &mut out).unwrap());
        assert_eq!(n, 0, "{name}: encode_into a buffer with room");
        assert_eq!(out, bytes, "{name}");
    }
}

#[test]
fn building_a_small_node_allocates_no_more_than_the_peers_builder() {
    use wacore_binary::builder::NodeBuilder;
    // `<enc v="2" type="msg">` with a 40-byte payload that already exists
    // (moved in, as a ciphertext is).
    let (peer, node) = {
        let payload = vec![0xAB; 40];
        quarry_testkit::count_allocs(|| {
            NodeBuilder::new("enc")
                .attr("v", "2")
                .attr("type", "msg")
                .bytes(payload)
                .build()
        })
    };
    let (ours, built) = {
        let payload = vec![0xAB; 40];
        quarry_testkit::count_allocs(|| {
            OwnedNode::new("enc")
                .attr("v", "2")
                .attr("type", "msg")
                .bytes(payload)
        })
    };
    assert_eq!(peer, 0, "the peer's NodeBuilder");
    assert_eq!(ours, 0, "OwnedNode's builder");
    // A number as a value is formatted inline too.
    let (n, receipt) = quarry_testkit::count_allocs(|| {
        OwnedNode::new("receipt")
            .attr("id", "3EB0C4F1A2")
            .attr("t", 1_700_000_000u64)
    });
    assert_eq!(n, 0, "a receipt with a numeric attribute");
    assert_eq!(receipt.attr_str("t"), Some("1700000000"));
    // The same stanza on the wire.
    let peer_bytes = wacore_binary::marshal::marshal(&node).unwrap();
    assert_eq!(quarry_wa::encode(&built).unwrap(), peer_bytes[1..]);
}

#[test]
fn building_nodes_addressed_to_jids_allocates_no_more_than_the_peers_builder() {
    use quarry_wa::OwnedJid;
    use wacore_binary::builder::NodeBuilder;
    use wacore_binary::jid::Jid as PeerJid;

    // A read receipt to a phone user's device, with a numeric timestamp.
    let (peer, peer_receipt) = quarry_testkit::count_allocs(|| {
        NodeBuilder::new("receipt")
            .attr("to", PeerJid::pn_device("5511999887766", 3))
            .attr("id", "3EB0C4F1A2B3C4D5E6F7")
            .attr("type", "read")
            .attr("t", 1_733_500_000u64)
            .build()
    });
    let (ours, receipt) = quarry_testkit::count_allocs(|| {
        OwnedNode::new("receipt")
            .attr("to", OwnedJid::pn_device("5511999887766", 3))
            .attr("id", "3EB0C4F1A2B3C4D5E6F7")
            .attr("type", "read")
            .attr("t", 1_733_500_000u64)
    });
    // Four attributes: more than either builder keeps inline.
    assert_eq!(peer, 1, "the peer's receipt (its attribute list)");
    assert_eq!(ours, 1, "a receipt to a device JID (its attribute list)");
    let peer_bytes = wacore_binary::marshal::marshal(&peer_receipt).unwrap();
    assert_eq!(quarry_wa::encode(&receipt).unwrap(), peer_bytes[1..]);

    // A 1:1 message to a LID user holding one `enc` (the payload is moved
    // in): quarry's one allocation is the child list.
    let (peer, peer_message) = {
        let payload = vec![0x5A; 120];
        quarry_testkit::count_allocs(|| {
            NodeBuilder::new("message")
                .attr("to", PeerJid::lid("123456789012345"))
                .attr("id", "3EB0C4F1A2B3C4D5E6F7")
                .attr("type", "text")
                .children([NodeBuilder::new("enc")
                    .attr("v", "2")
                    .attr("type", "pkmsg")
                    .bytes(payload)
                    .build()])
                .build()
        })
    };
    let (ours, message) = {
        let payload = vec![0x5A; 120];
        quarry_testkit::count_allocs(|| {
            OwnedNode::new("message")
                .attr("to", OwnedJid::lid("123456789012345"))
                .attr("id", "3EB0C4F1A2B3C4D5E6F7")
                .attr("type", "text")
                .children([OwnedNode::new("enc")
                    .attr("v", "2")
                    .attr("type", "pkmsg")
                    .bytes(payload)])
        })
    };
    assert_eq!(peer, 2, "the peer's message");
    assert_eq!(ours, 1, "a message to a LID (its child list)");
    let peer_bytes = wacore_binary::marshal::marshal(&peer_message).unwrap();
    assert_eq!(quarry_wa::encode(&message).unwrap(), peer_bytes[1..]);
}

#[test]
fn owning_a_decoded_jid_keeps_its_user_inline() {
    use quarry_wa::{OwnedJid, Value};
    // `to` = 5511999887766:3@s.whatsapp.net as an AD_JID with a packed user.
    let bytes = quarry_wa::encode(
        &OwnedNode::new("receipt").attr("to", OwnedJid::pn_device("5511999887766", 3)),
    )
    .unwrap();
    let arena = Arena::new();
    let node = quarry_wa::decode(&arena, &bytes).unwrap();
    let Some(Value::Jid(jid)) = node.attr("to") else {
        panic!("`to` decodes as a JID");
    };
    assert_eq!(
        jid.user().as_unpacked_str(),
        None,
        "the user arrives packed"
    );
    let (n, owned) = quarry_testkit::count_allocs(|| OwnedJid::from(jid));
    assert_eq!(n, 0, "the packed user is expanded inline");
    assert!(owned.user.is_inline());
    assert_eq!(owned.to_string(), "5511999887766:3@s.whatsapp.net");
}
