//! Writes the seed corpus of every fuzz target into `fuzz/seeds/<target>/`
//! with quarry's own encoders: `quarry_wa::encode`, quarry-nostr's
//! `encode_into`, `quarry_proto::encode`. Each seed is checked to
//! decode before it is written. Run from anywhere:
//!
//! ```text
//! cargo run --manifest-path fuzz/Cargo.toml -p quarry-fuzz-seedgen
//! ```

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use prost::Message as _;
use quarry_core::Arena;
use quarry_nostr::{ControlChars, Decoder, IdCheck};
use quarry_proto::MessageRef;
use quarry_proto_tests::pb::{test2, test3};
use quarry_proto_tests::views::{quarry::test2::All2View, quarry::test3::All3View};
use quarry_proto_tests::wa::{HistorySyncView, MessageView, SyncActionDataView};
use quarry_wa::{Jid, OwnedJid, OwnedNode, Server};

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../seeds");
    let mut total = 0;
    for (target, seeds) in [
        ("wa_node", wa_node()),
        ("wa_frame", wa_frame()),
        ("wa_node_peer", wa_node()),
        ("nostr_relay", nostr_relay()),
        ("nostr_client", nostr_client()),
        // The differential targets start from the same messages, and
        // from the bare events.
        ("nostr_event_peer", nostr_events()),
        ("nostr_relay_peer", nostr_relay()),
        ("nostr_client_peer", nostr_client()),
        ("proto_test", proto_test()),
        ("proto_wa_message", proto_wa_message()),
        ("proto_wa_message_peer", proto_wa_message()),
        ("proto_wa_sync", proto_wa_sync()),
        ("proto_wa_sync_action_peer", proto_wa_sync_action()),
        ("proto_wa_history_sync_peer", proto_wa_history_sync()),
    ] {
        let dir = root.join(target);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create the seed directory");
        for (name, bytes) in &seeds {
            write(&dir, name, bytes);
            total += bytes.len();
        }
        println!("{target}: {} seeds", seeds.len());
    }
    println!("{total} bytes in all");
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    fs::write(dir.join(name), bytes).expect("write a seed");
}

type Seeds = Vec<(String, Vec<u8>)>;

// ---------------------------------------------------------------------------
// WhatsApp

fn stanzas() -> Vec<(&'static str, OwnedNode)> {
    let me = Jid::new("5511999990000", Server::Pn);
    vec![
        (
            "message_enc",
            OwnedNode::new("message")
                .attr("id", "3EB0C4F1A2B3C4D5")
                .attr("type", "text")
                .jid_attr("to", me)
                .attr("t", 1_700_000_000u64)
                .children([OwnedNode::new("enc")
                    .attr("v", "2")
                    .attr("type", "pkmsg")
                    .bytes(vec![0x33; 40])]),
        ),
        (
            "receipt_devices",
            OwnedNode::new("receipt")
                .attr("id", "1")
                .jid_attr("from", me.with_device(7))
                .jid_attr(
                    "participant",
                    Jid::new("212345678901234", Server::Lid).with_device(2),
                )
                .children([OwnedNode::new("list").children([
                    OwnedNode::new("item").attr("id", "ABCDEF0123"),
                    OwnedNode::new("item").attr("id", "2"),
                ])]),
        ),
        (
            "iq_usync",
            OwnedNode::new("iq")
                .attr("xmlns", "usync")
                .attr("type", "get")
                .jid_attr("to", Jid::new("", Server::Pn))
                .children([OwnedNode::new("usync")
                    .attr("sid", "1.2-3")
                    .attr("mode", "query")
                    .children([
                        OwnedNode::new("query")
                            .children([OwnedNode::new("devices").attr("version", "2")]),
                        OwnedNode::new("list").children([OwnedNode::new("user")
                            .jid_attr("jid", Jid::new("15551234567", Server::Pn))]),
                    ])]),
        ),
        (
            "group_and_others",
            OwnedNode::new("notification")
                .jid_attr("from", Jid::new("120363000000000001", Server::Group))
                .attr("participant", "15551230000@s.whatsapp.net")
                .attr("notify", "Ada Lovelace")
                .attr("empty", "")
                .children([
                    OwnedNode::new("body").text("hello, world"),
                    OwnedNode::new("count").text("12345"),
                    OwnedNode::new("hash").text("0A1B2C"),
                    OwnedNode::new("none").children([]),
                    OwnedNode::new("msgr").jid_attr(
                        "jid",
                        OwnedJid {
                            user: "100001".into(),
                            server: Server::Messenger,
                            agent: 0,
                            device: 3,
                            integrator: 0,
                        }
                        .as_view(),
                    ),
                    OwnedNode::new("interop").jid_attr(
                        "jid",
                        OwnedJid {
                            user: "4242".into(),
                            server: Server::Interop,
                            agent: 0,
                            device: 1,
                            integrator: 9,
                        }
                        .as_view(),
                    ),
                ]),
        ),
        (
            "binary_20",
            OwnedNode::new("media")
                .attr("type", "image")
                .bytes(vec![0x5A; 300]),
        ),
        ("bare", OwnedNode::new("ack")),
    ]
}

fn encode(node: &OwnedNode) -> Vec<u8> {
    let bytes = quarry_wa::encode(node).expect("a seed stanza encodes");
    let arena = Arena::new();
    quarry_wa::decode(&arena, &bytes).expect("a seed stanza decodes");
    bytes
}

fn wa_node() -> Seeds {
    stanzas()
        .iter()
        .map(|(name, node)| (name.to_string(), encode(node)))
        .collect()
}

fn wa_frame() -> Seeds {
    let mut seeds = Seeds::new();
    for (name, node) in stanzas() {
        let plain = quarry_wa::encode_frame(&node).expect("a seed frame encodes");
        let nodes = encode(&node);
        let mut compressed = vec![0x02];
        compressed.extend(miniz_oxide::deflate::compress_to_vec_zlib(&nodes, 6));
        let arena = Arena::new();
        quarry_wa::decode_frame(&arena, &compressed).expect("a compressed seed decodes");
        // The target's own mode: 0x80 | level, then node bytes it compresses.
        let mut self_compressed = vec![0x86];
        self_compressed.extend(&nodes);
        seeds.push((format!("{name}_plain"), plain));
        seeds.push((format!("{name}_zlib"), compressed));
        seeds.push((format!("{name}_mode"), self_compressed));
    }
    seeds
}

// ---------------------------------------------------------------------------
// Nostr

const PUBKEY: &str = "989c0b76cb563971fdc9bef31ec06c3560f3249d6ee9e5d83c57625596e05f6f";
const OTHER: &str = "bf2376e17ba4ec269d10fcc996a4746b451152be9031fa48e74553dde5526bce";

/// An event object with a valid id: decoded with the id unchecked, its id
/// computed by quarry-nostr, spliced in, and written back by its writer.
fn event(created_at: u64, kind: u16, tags: &str, content: &str) -> String {
    let sig = "ab".repeat(64);
    let draft = format!(
        r#"{{"id":"{zero}","pubkey":"{PUBKEY}","created_at":{created_at},"kind":{kind},"tags":{tags},"content":{content},"sig":"{sig}"}}"#,
        zero = "0".repeat(64)
    );
    let arena = Arena::new();
    let skip = Decoder {
        id_check: IdCheck::Skip,
        ..Decoder::new()
    };
    let e = skip
        .decode_event(&arena, draft.as_bytes())
        .expect("a draft event decodes");
    let id: String = e
        .compute_id(ControlChars::Escape)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let signed = draft.replacen(&"0".repeat(64), &id, 1);
    let e = quarry_nostr::decode_event(&arena, signed.as_bytes()).expect("the id matches");
    let mut out = Vec::new();
    e.encode_into(&mut out);
    String::from_utf8(out).expect("JSON is UTF-8")
}

fn events() -> Vec<String> {
    vec![
        quarry_nostr::SAMPLE_EVENT.to_owned(),
        event(1, 1, "[]", r#""""#),
        event(
            1_700_000_000,
            1,
            &format!(
                r#"[["e","{OTHER}","wss://relay.example","reply"],["p","{OTHER}"],["t","nostr"]]"#
            ),
            r#""line\nbreak \"quoted\" tab\t back\\slash \u0001 é 🎉""#,
        ),
        event(
            1_700_000_001,
            30023,
            r#"[["d","slug"],["title","A \"title\""],["l","id"]]"#,
            r#""long-form""#,
        ),
        event(
            2,
            22242,
            r#"[["relay","wss://relay.example"],["challenge","c0ffee"]]"#,
            r#""""#,
        ),
    ]
}

fn nostr_events() -> Seeds {
    events()
        .into_iter()
        .enumerate()
        .map(|(i, e)| (format!("event_{i}"), e.into_bytes()))
        .collect()
}

/// `json` decoded with `decode` and written back with quarry-nostr's
/// writer (so every seed is in the writer's canonical form).
fn rewrite(json: &str, relay: bool) -> Vec<u8> {
    let arena = Arena::new();
    let mut out = Vec::new();
    if relay {
        quarry_nostr::decode_relay_message(&arena, json.as_bytes())
            .unwrap_or_else(|e| panic!("{json}: {e}"))
            .encode_into(&mut out);
    } else {
        quarry_nostr::decode_client_message(&arena, json.as_bytes())
            .unwrap_or_else(|e| panic!("{json}: {e}"))
            .encode_into(&mut out);
    }
    out
}

fn nostr_relay() -> Seeds {
    let mut seeds = Seeds::new();
    for (i, e) in events().iter().enumerate() {
        seeds.push((
            format!("event_{i}"),
            rewrite(&format!(r#"["EVENT","sub1",{e}]"#), true),
        ));
    }
    let others = [
        ("ok", format!(r#"["OK","{OTHER}",true,""]"#)),
        (
            "ok_rejected",
            format!(r#"["OK","{OTHER}",false,"blocked: spam"]"#),
        ),
        ("eose", r#"["EOSE","sub1"]"#.to_owned()),
        (
            "closed",
            r#"["CLOSED","sub1","auth-required: log in"]"#.to_owned(),
        ),
        ("notice", r#"["NOTICE","slow down \u00e9"]"#.to_owned()),
        ("auth", r#"["AUTH","challenge-1"]"#.to_owned()),
        (
            "count",
            r#"["COUNT","sub1",{"count":42,"approximate":true,"hll":"0a0b"}]"#.to_owned(),
        ),
        ("neg_msg", r#"["NEG-MSG","sub1","6100"]"#.to_owned()),
        (
            "neg_err",
            r#"["NEG-ERR","sub1","closed: too big"]"#.to_owned(),
        ),
    ];
    for (name, json) in others {
        seeds.push((name.to_owned(), rewrite(&json, true)));
    }
    seeds
}

fn nostr_client() -> Seeds {
    let mut seeds = Seeds::new();
    let events = events();
    for (i, e) in events.iter().enumerate() {
        seeds.push((
            format!("event_{i}"),
            rewrite(&format!(r#"["EVENT",{e}]"#), false),
        ));
    }
    seeds.push((
        "auth".into(),
        rewrite(&format!(r#"["AUTH",{}]"#, events[4]), false),
    ));
    let filter = format!(
        r##"{{"ids":["{OTHER}"],"authors":["{PUBKEY}","{OTHER}"],"kinds":[0,1,30023],"#e":["{OTHER}"],"#t":["nostr","rust"],"since":1700000000,"until":1800000000,"limit":20,"search":"best \"nostr\" apps"}}"##
    );
    let others = [
        (
            "req",
            format!(r#"["REQ","sub1",{filter},{{"kinds":[1]}},{{}}]"#),
        ),
        ("count", format!(r#"["COUNT","sub2",{filter}]"#)),
        ("close", r#"["CLOSE","sub1"]"#.to_owned()),
        (
            "neg_open",
            r#"["NEG-OPEN","sub1",{"kinds":[1]},"6100"]"#.to_owned(),
        ),
        ("neg_msg", r#"["NEG-MSG","sub1","6100"]"#.to_owned()),
        ("neg_close", r#"["NEG-CLOSE","sub1"]"#.to_owned()),
    ];
    for (name, json) in others {
        seeds.push((name.to_owned(), rewrite(&json, false)));
    }
    seeds
}

// ---------------------------------------------------------------------------
// Protobuf

/// prost's encoding of a value, decoded by quarry and re-encoded by
/// quarry's encoder.
fn requote(message: MessageRef, prost_bytes: &[u8]) -> Vec<u8> {
    let arena = Arena::new();
    let record = quarry_proto::decode(message, &arena, prost_bytes).expect("a seed decodes");
    quarry_proto::encode(message, record).expect("a seed encodes")
}

fn nested(id: i32, depth: usize) -> test2::Nested {
    test2::Nested {
        id: Some(id),
        name: Some(format!("nested {id}")),
        inner: (depth > 0).then(|| Box::new(nested(id + 1, depth - 1))),
        colors: vec![1, 3, 7],
    }
}

fn inner(n: i32, depth: usize) -> test3::Inner {
    test3::Inner {
        text: format!("inner {n}"),
        n,
        next: (depth > 0).then(|| Box::new(inner(n + 1, depth - 1))),
    }
}

fn all2() -> Vec<test2::All2> {
    let full = test2::All2 {
        f_double: Some(1.5),
        f_float: Some(-0.25),
        f_int64: Some(-5),
        f_uint64: Some(u64::MAX),
        f_int32: Some(-1),
        f_fixed64: Some(7),
        f_fixed32: Some(8),
        f_bool: Some(true),
        f_string: Some("héllo".into()),
        f_bytes: Some(vec![0, 1, 2, 255]),
        f_uint32: Some(300),
        f_sfixed32: Some(-9),
        f_sfixed64: Some(-10),
        f_sint32: Some(-11),
        f_sint64: Some(-12),
        f_color: Some(2),
        f_nested: Some(nested(1, 2)),
        fgroup: Some(test2::all2::FGroup {
            a: Some(19),
            b: Some("group".into()),
        }),
        f_required: 21,
        r_int32: vec![1, -2, 3],
        r_int32_packed: vec![4, 5, 600],
        r_string: vec!["a".into(), "".into(), "ccc".into()],
        r_bytes: vec![vec![1], vec![]],
        r_nested: vec![nested(10, 0), nested(20, 1)],
        r_color: vec![1, 2],
        r_color_packed: vec![3, 1],
        r_double: vec![0.5, -1e300],
        r_sint64: vec![-1, 1],
        r_fixed32: vec![1, 2, 3],
        rgroup: vec![test2::all2::RGroup { x: Some(42) }],
        m_str_int: HashMap::from([("one".into(), 1)]),
        m_int_msg: HashMap::from([(-1, nested(5, 0))]),
        m_bool_bytes: HashMap::from([(true, vec![9])]),
        m_enum: HashMap::from([(3, 1)]),
        d_int32: Some(-42),
        recursive: Some(Box::new(test2::All2 {
            f_required: 1,
            ..Default::default()
        })),
        children: vec![test2::All2 {
            f_required: 2,
            f_string: Some("child".into()),
            ..Default::default()
        }],
        far_field: Some(1),
        choice: Some(test2::all2::Choice::OString("one of".into())),
        ..Default::default()
    };
    vec![
        full,
        test2::All2 {
            f_required: 0,
            choice: Some(test2::all2::Choice::ONested(nested(1, 4))),
            ..Default::default()
        },
        test2::All2::default(),
    ]
}

fn all3() -> Vec<test3::All3> {
    let full = test3::All3 {
        f_double: 2.5,
        f_float: 1.0,
        f_int64: -3,
        f_uint64: 4,
        f_int32: -5,
        f_fixed64: 6,
        f_fixed32: 7,
        f_bool: true,
        f_string: "text".into(),
        f_bytes: vec![1, 2, 3],
        f_uint32: 11,
        f_sfixed32: -12,
        f_sfixed64: -13,
        f_sint32: -14,
        f_sint64: -15,
        f_mood: 2,
        f_inner: Some(inner(1, 3)),
        o_int32: Some(0),
        o_string: Some(String::new()),
        r_double: vec![1.0, 2.0],
        r_float: vec![3.0],
        r_int64: vec![-1, 2],
        r_uint64: vec![3],
        r_int32: vec![4, -5],
        r_fixed64: vec![6],
        r_fixed32: vec![7],
        r_bool: vec![true, false],
        r_uint32: vec![8],
        r_sfixed32: vec![-9],
        r_sfixed64: vec![-10],
        r_sint32: vec![-11],
        r_sint64: vec![-12],
        r_mood: vec![0, 1, 5],
        r_unpacked: vec![1, 2, 3],
        r_string: vec!["x".into(), "yz".into()],
        r_bytes: vec![vec![0xFF]],
        r_inner: vec![inner(7, 0), inner(8, 1)],
        m_str: HashMap::from([("k".into(), "v".into())]),
        m_inner: HashMap::from([(-7, inner(0, 0))]),
        m_mood: HashMap::from([(1, 2)]),
        m_bytes: HashMap::from([("b".into(), vec![1, 2])]),
        child: Some(Box::new(test3::All3 {
            f_string: "child".into(),
            ..Default::default()
        })),
        list: vec![test3::All3 {
            f_int32: 1,
            ..Default::default()
        }],
        kind: Some(test3::all3::Kind::KInner(inner(3, 0))),
    };
    vec![
        full,
        test3::All3 {
            kind: Some(test3::all3::Kind::KU64(u64::MAX)),
            ..Default::default()
        },
        test3::All3::default(),
    ]
}

fn proto_test() -> Seeds {
    let mut seeds = Seeds::new();
    // The target's first byte picks the schema: even All2, odd All3.
    for (i, m) in all2().iter().enumerate() {
        let mut seed = vec![0];
        seed.extend(requote(All2View::TABLE, &m.encode_to_vec()));
        seeds.push((format!("all2_{i}"), seed));
    }
    for (i, m) in all3().iter().enumerate() {
        let mut seed = vec![1];
        seed.extend(requote(All3View::TABLE, &m.encode_to_vec()));
        seeds.push((format!("all3_{i}"), seed));
    }
    // Unknown fields of every wire type, and an unknown group.
    let mut unknown = vec![1];
    unknown.extend([0xA8, 0x06, 0x01]); // field 101 varint
    unknown.extend([0xB1, 0x06, 1, 2, 3, 4, 5, 6, 7, 8]); // 102 fixed64
    unknown.extend([0xBA, 0x06, 0x02, b'h', b'i']); // 103 length-delimited
    unknown.extend([0xC5, 0x06, 1, 2, 3, 4]); // 104 fixed32
    unknown.extend([0xCB, 0x06, 0x08, 0x01, 0xCC, 0x06]); // group 105 { 1: 1 }
    seeds.push(("all3_unknown".into(), requote_with_selector(&unknown)));
    seeds
}

fn requote_with_selector(seed: &[u8]) -> Vec<u8> {
    let mut out = vec![seed[0]];
    out.extend(requote(All3View::TABLE, &seed[1..]));
    out
}

fn proto_wa_message() -> Seeds {
    let mut seeds = Seeds::new();
    for s in quarry_proto_tests::samples::all() {
        if s.root == quarry_proto_tests::samples::Root::Message {
            seeds.push((s.name.to_owned(), requote(MessageView::TABLE, &s.bytes)));
        }
    }
    let hello = quarry_proto_tests::pb::whatsapp::Message {
        conversation: Some("hello".into()),
        ..Default::default()
    };
    seeds.push((
        "conversation".into(),
        requote(MessageView::TABLE, &hello.encode_to_vec()),
    ));
    // An input `proto_wa_message_peer` found: oneof members displaced by a
    // later member, one of them malformed, which protobuf rejects since it
    // reads every member. Kept as found (not re-encoded: it does not
    // decode).
    seeds.push((
        "displaced_oneof_member_malformed".into(),
        vec![
            0xEA, 0x02, 0x0E, 0x22, 0x04, 0x3A, 0x00, 0x2A, 0x40, 0x2A, 0x00, 0x1A, 0x00, 0x3A,
            0x00, 0x2A, 0x00, 0xD8, 0xFD, 0x00, 0x28,
        ],
    ));
    seeds
}

fn proto_wa_sync_action() -> Seeds {
    quarry_proto_tests::samples::all()
        .into_iter()
        .filter(|s| s.root == quarry_proto_tests::samples::Root::SyncActionData)
        .map(|s| {
            (
                s.name.to_owned(),
                requote(SyncActionDataView::TABLE, &s.bytes),
            )
        })
        .collect()
}

/// The seeds of the two peer targets behind the root-picking byte of
/// `proto_wa_sync`: even `SyncActionData`, odd `HistorySync`.
fn proto_wa_sync() -> Seeds {
    let with = |root: u8, seeds: Seeds| {
        seeds
            .into_iter()
            .map(move |(name, bytes)| (name, [vec![root], bytes].concat()))
    };
    with(0, proto_wa_sync_action())
        .chain(with(1, proto_wa_history_sync()))
        .collect()
}

/// Small history syncs: the benchmark's shape, a few conversations of a
/// few messages (the fuzzer mutates better from short inputs).
fn proto_wa_history_sync() -> Seeds {
    [(1, 1), (2, 3), (3, 2)]
        .into_iter()
        .map(|(c, m)| {
            let bytes = quarry_proto_tests::samples::history_sync(c, m).encode_to_vec();
            (
                format!("history_sync_{c}x{m}"),
                requote(HistorySyncView::TABLE, &bytes),
            )
        })
        .collect()
}
