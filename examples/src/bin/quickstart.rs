//! Decode embedded, real-shaped messages (WhatsApp binary nodes, Nostr
//! relay messages, WhatsApp protobuf messages) and show what each decode
//! costs in heap allocations: one into a fresh arena, none into a reused
//! one.
//!
//! Run with `cargo run --release -p quarry-examples --bin quickstart`.

use quarry_core::Arena;
use quarry_examples::CountingAlloc;
use quarry_proto_tests::samples::{self, Root};
use quarry_proto_tests::wa::{HistorySyncView, MessageView, SyncActionDataView};
use quarry_wa::{Jid, OwnedNode, Server};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// WhatsApp stanzas of the shapes a client receives and sends all day,
/// built with quarry's own encoder (the wire form is what matters here).
fn stanzas() -> Vec<(&'static str, Vec<u8>)> {
    let me = "5511999990000";
    let group_message = OwnedNode::new("message")
        .jid_attr("to", Jid::new("120363012345678901", Server::Group))
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("type", "text")
        .children([
            OwnedNode::new("participants").children((0..8u16).map(|device| {
                OwnedNode::new("to")
                    .jid_attr("jid", Jid::new(me, Server::Pn).with_device(device))
                    .children([OwnedNode::new("enc")
                        .attr("v", "2")
                        .attr("type", "msg")
                        .bytes(vec![0xAB; 128])])
            })),
        ]);
    let receipt = OwnedNode::new("receipt")
        .jid_attr("from", Jid::new(me, Server::Pn).with_device(3))
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("t", "1764460800")
        .attr("type", "read");
    let ack = OwnedNode::new("ack")
        .jid_attr("to", Jid::new(me, Server::Pn))
        .attr("id", "3EB0A1B2C3D4E5F60718")
        .attr("class", "message");
    let usync = OwnedNode::new("iq")
        .attr("type", "result")
        .attr("id", "27")
        .children([
            OwnedNode::new("usync").children([OwnedNode::new("list").children((0..5).map(|i| {
                OwnedNode::new("user")
                    .jid_attr("jid", Jid::new(&format!("55119999900{i:02}"), Server::Pn))
                    .children([OwnedNode::new("devices")
                        .children([OwnedNode::new("device-list").children(
                            (0..3).map(|d| OwnedNode::new("device").attr("id", d.to_string())),
                        )])])
            }))]),
        ]);
    [
        ("group message fanout", group_message),
        ("read receipt", receipt),
        ("ack", ack),
        ("usync result", usync),
    ]
    .into_iter()
    .map(|(name, node)| (name, quarry_wa::encode(&node).expect("encodable stanza")))
    .collect()
}

/// Nostr relay messages: a signed note with tags, and an end-of-stored-events.
fn relay_messages() -> Vec<(&'static str, String)> {
    vec![
        (
            "EVENT (signed note, 2 tags)",
            format!(r#"["EVENT","timeline",{}]"#, quarry_nostr::SAMPLE_EVENT),
        ),
        ("EOSE", r#"["EOSE","timeline"]"#.to_owned()),
    ]
}

fn main() {
    let mut reused = Arena::new();
    println!("== WhatsApp binary nodes ==");
    for (name, bytes) in stanzas() {
        let (fresh_allocs, ()) = CountingAlloc::count(|| {
            let arena = Arena::new();
            let node = quarry_wa::decode(&arena, &bytes).expect("valid stanza");
            std::hint::black_box(node);
        });
        reused.reset();
        quarry_wa::decode(&reused, &bytes).expect("valid stanza");
        reused.reset();
        let (reused_allocs, node) =
            CountingAlloc::count(|| quarry_wa::decode(&reused, &bytes).expect("valid stanza"));
        println!(
            "\n-- {name}: {} bytes, {fresh_allocs} allocation(s) into a fresh arena, \
             {reused_allocs} into a reused one",
            bytes.len()
        );
        println!("{node}");
    }

    println!("\n== Nostr relay messages ==");
    for (name, text) in relay_messages() {
        let (fresh_allocs, ()) = CountingAlloc::count(|| {
            let arena = Arena::new();
            let msg =
                quarry_nostr::decode_relay_message(&arena, text.as_bytes()).expect("valid message");
            std::hint::black_box(msg);
        });
        reused.reset();
        quarry_nostr::decode_relay_message(&reused, text.as_bytes()).expect("valid message");
        reused.reset();
        let (reused_allocs, msg) = CountingAlloc::count(|| {
            quarry_nostr::decode_relay_message(&reused, text.as_bytes()).expect("valid message")
        });
        println!(
            "\n-- {name}: {} bytes, {fresh_allocs} allocation(s) into a fresh arena, \
             {reused_allocs} into a reused one",
            text.len()
        );
        match msg.event() {
            Some(event) => println!(
                "kind {} at {} with {} tags, id valid: {:?}, content {:?}",
                event.kind(),
                event.created_at(),
                event.tags().len(),
                event.id_valid(),
                event.content()
            ),
            None => println!("{text}"),
        }
    }

    println!("\n== Protobuf: WhatsApp's schema, through generated views ==");
    for sample in samples::all() {
        let bytes = sample.bytes.as_slice();
        let table = match sample.root {
            Root::SyncActionData => SyncActionDataView::TABLE,
            Root::Message => MessageView::TABLE,
            Root::HistorySync => HistorySyncView::TABLE,
        };
        // A fresh arena sized by the decoder's own estimate: its one
        // allocation, and none during the decode.
        let (fresh_allocs, ()) = CountingAlloc::count(|| {
            let arena = quarry_proto::arena_for(bytes);
            let record = quarry_proto::decode(table, &arena, bytes).expect("valid sample");
            std::hint::black_box(record);
        });
        reused.reset();
        quarry_proto::decode(table, &reused, bytes).expect("valid sample");
        reused.reset();
        let (reused_allocs, record) = CountingAlloc::count(|| {
            quarry_proto::decode(table, &reused, bytes).expect("valid sample")
        });
        println!(
            "\n-- {} ({}): {} bytes, {fresh_allocs} allocation(s) into a fresh arena, \
             {reused_allocs} into a reused one",
            sample.name,
            table.table().full_name,
            bytes.len()
        );
        if sample.root == Root::HistorySync {
            // Typed access: the generated view's getters.
            let history = HistorySyncView::from_record(record).expect("a HistorySync record");
            let messages: usize = history.conversations().map(|c| c.messages().len()).sum();
            let first = history.conversations().next().map(|c| c.id());
            println!(
                "{} conversations, {messages} messages; the first is {first:?}",
                history.conversations().len()
            );
        } else {
            // Schema-driven access: protobuf's canonical JSON.
            let json = quarry_proto::json::to_json(table, record).expect("no well-known types");
            println!("{json}");
        }
    }
}
