//! The one-pass decoder's scratch stack: slots pending across nesting
//! levels past its first buffer (8 slots), so it grows while messages are
//! open, and repeated message fields met once (kept as their one element,
//! no gather); and dense records whose messages hold unknown fields,
//! which end the dense read (`Dec::spill`). Inputs are built by hand
//! here from a model of the message, the expectation. The scratch's push
//! writes without a second capacity check (`one_pass.rs`, `Dec::push`),
//! so these tests also run under Miri in CI.

use quarry_core::Arena;
use quarry_proto::{
    FieldTable, Kind, Label, MessageRef, MessageTable, Record, Schema, decode, json::to_json,
};

// message Node { string name = 1; repeated Node children = 2;
//                repeated int32 ids = 3; uint64 n = 4; }
// (A repeated field keeps the table sparse: every field is a scratch slot.)
static NODE: [FieldTable; 4] = [
    FieldTable::new(1, "name", "name", Kind::String, Label::Implicit),
    FieldTable {
        sub: 0,
        ..FieldTable::new(2, "children", "children", Kind::Message, Label::Repeated)
    },
    FieldTable::new(3, "ids", "ids", Kind::Int32, Label::Repeated),
    FieldTable::new(4, "n", "n", Kind::UInt64, Label::Implicit),
];
static MESSAGES: [MessageTable; 1] = [MessageTable::new("t.Node", &NODE, &[])];
static SCHEMA: Schema = Schema {
    messages: &MESSAGES,
    enums: &[],
};
const NODE_TYPE: MessageRef = MessageRef::new(&SCHEMA, 0);

/// What the input says, field by field.
#[derive(Debug, PartialEq)]
struct Node {
    name: String,
    children: Vec<Node>,
    ids: Vec<i32>,
    n: u64,
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The canonical encoding, except that `ids` is written unpacked (one
/// varint field per value, which a decoder must accept), so each value is
/// a slot of its own.
fn encode(node: &Node) -> Vec<u8> {
    let mut out = Vec::new();
    if !node.name.is_empty() {
        out.push(1 << 3 | 2);
        varint(node.name.len() as u64, &mut out);
        out.extend_from_slice(node.name.as_bytes());
    }
    for child in &node.children {
        let body = encode(child);
        out.push(2 << 3 | 2);
        varint(body.len() as u64, &mut out);
        out.extend(body);
    }
    for &id in &node.ids {
        out.push(3 << 3);
        varint(i64::from(id) as u64, &mut out);
    }
    if node.n != 0 {
        out.push(4 << 3);
        varint(node.n, &mut out);
    }
    out
}

fn read(record: Record<'_>) -> Node {
    Node {
        name: record.str(0).unwrap_or_default().to_owned(),
        children: record.messages(1).map(read).collect(),
        ids: record.scalars(2).iter().map(|&v| v as i64 as i32).collect(),
        n: record.scalar(3).unwrap_or(0),
    }
}

fn leaf(name: &str, ids: &[i32], n: u64) -> Node {
    Node {
        name: name.to_owned(),
        children: Vec::new(),
        ids: ids.to_vec(),
        n,
    }
}

/// A tree `depth` levels deep whose every node has `fan` children and
/// `ids` unpacked values: the slots of all open levels are pending at once.
fn tree(depth: u32, fan: usize, ids: usize, at: &mut u64) -> Node {
    *at += 1;
    let id = *at;
    Node {
        name: format!("node {id}"),
        children: if depth == 0 {
            Vec::new()
        } else {
            (0..fan).map(|_| tree(depth - 1, fan, ids, at)).collect()
        },
        ids: (0..ids).map(|k| k as i32 * 1000 - 3).collect(),
        n: id * 1_000_003,
    }
}

#[test]
fn a_repeated_message_field_met_once_is_a_list_of_one() {
    let model = Node {
        name: "root".into(),
        children: vec![leaf("only", &[], 0)],
        ids: Vec::new(),
        n: 7,
    };
    let bytes = encode(&model);
    let arena = Arena::new();
    let record = decode(NODE_TYPE, &arena, &bytes).unwrap();
    assert_eq!(record.messages(1).count(), 1);
    assert_eq!(read(record), model);
    // Written back as it came (canonical: `ids` is empty), and printed as
    // an array, as protobuf's JSON printer does for a repeated field.
    assert_eq!(quarry_proto::encode(NODE_TYPE, record).unwrap(), bytes);
    assert_eq!(
        to_json(NODE_TYPE, record).unwrap(),
        r#"{"name":"root","children":[{"name":"only"}],"n":"7"}"#
    );
}

#[test]
fn slots_pending_on_every_open_level_grow_the_scratch() {
    let arena = Arena::new();
    for (depth, fan, ids) in [(1, 1, 9), (2, 2, 5), (3, 3, 4), (4, 1, 20), (2, 12, 1)] {
        let model = tree(depth, fan, ids, &mut 0);
        let bytes = encode(&model);
        let record = decode(NODE_TYPE, &arena, &bytes).unwrap();
        assert_eq!(read(record), model, "depth {depth}, fan {fan}, ids {ids}");
    }
}

#[test]
fn every_prefix_of_a_nested_input_decodes_or_errs() {
    let model = tree(2, 2, 3, &mut 0);
    let bytes = encode(&model);
    let mut arena = Arena::new();
    let mut complete = 0;
    for len in 0..=bytes.len() {
        // A prefix ends cleanly only between the root's own fields.
        if let Ok(record) = decode(NODE_TYPE, &arena, &bytes[..len]) {
            let node = read(record);
            assert!(node.children.len() <= model.children.len());
            complete += 1;
        }
        arena.reset();
    }
    // The empty input, and the end of each of the root's fields.
    let root_fields = 1 + model.children.len() + model.ids.len() + 1;
    assert_eq!(complete, 1 + root_fields);
}

// message Pair { string name = 1; Pair inner = 2; uint64 n = 3; }
// (Few singular fields: a dense record, one slot per field.)
static PAIR: [FieldTable; 3] = [
    FieldTable::new(1, "name", "name", Kind::String, Label::Explicit),
    FieldTable {
        sub: 0,
        ..FieldTable::new(2, "inner", "inner", Kind::Message, Label::Explicit)
    },
    FieldTable::new(3, "n", "n", Kind::UInt64, Label::Explicit),
];
static PAIR_MESSAGES: [MessageTable; 1] = [MessageTable::new("t.Pair", &PAIR, &[])];
static PAIR_SCHEMA: Schema = Schema {
    messages: &PAIR_MESSAGES,
    enums: &[],
};
const PAIR_TYPE: MessageRef = MessageRef::new(&PAIR_SCHEMA, 0);

/// The unknown fields of `record` as (tag, bytes after the tag).
fn unknowns(record: Record<'_>) -> Vec<(u32, Vec<u8>)> {
    record
        .unknown_fields()
        .map(|u| match u {
            quarry_proto::UnknownField::Raw { tag, value } => (tag, value.to_vec()),
            other => panic!("not a raw unknown field: {other:?}"),
        })
        .collect()
}

#[test]
fn unknown_fields_of_a_dense_record_follow_its_present_fields() {
    assert!(MessageTable::dense_of(&PAIR));
    // inner: n = 5, then field 9 (bytes "xy") and field 10 (varint 300),
    // which Pair does not declare; its name is absent.
    let inner = [3 << 3, 5, 9 << 3 | 2, 2, b'x', b'y', 10 << 3, 0xac, 0x02];
    // root: name "ab", field 7 (varint 1) between known fields, inner,
    // n = 2, field 11 (fixed32 1) last.
    let mut bytes = vec![1 << 3 | 2, 2, b'a', b'b', 7 << 3, 1, 2 << 3 | 2];
    bytes.push(inner.len() as u8);
    bytes.extend_from_slice(&inner);
    bytes.extend_from_slice(&[3 << 3, 2, 11 << 3 | 5, 1, 0, 0, 0]);
    let mut arena = Arena::new();
    for _ in 0..2 {
        let root = decode(PAIR_TYPE, &arena, &bytes).unwrap();
        assert_eq!(root.str(0), Some("ab"));
        assert_eq!(root.scalar(2), Some(2));
        assert_eq!(
            unknowns(root),
            [(7 << 3, vec![1]), (11 << 3 | 5, vec![1, 0, 0, 0])]
        );
        let inner = root.message(1).unwrap();
        assert_eq!(inner.str(0), None);
        assert!(!inner.has(0) && !inner.has(1));
        assert_eq!(inner.scalar(2), Some(5));
        assert_eq!(
            unknowns(inner),
            [(9 << 3 | 2, b"xy".to_vec()), (10 << 3, vec![0xac, 0x02])]
        );
        assert_eq!(root.present_fields(), 3);
        assert_eq!(inner.present_fields(), 1);
        arena.reset();
    }
    // Unknown fields last in each message: written back as they came.
    let last = [
        &[1 << 3 | 2, 1, b'z', 2 << 3 | 2, 4, 3 << 3, 9, 12 << 3, 1][..],
        &[13 << 3, 0x7f, 14 << 3, 0],
    ]
    .concat();
    let root = decode(PAIR_TYPE, &arena, &last).unwrap();
    assert_eq!(unknowns(root.message(1).unwrap()), [(12 << 3, vec![1])]);
    assert_eq!(unknowns(root), [(13 << 3, vec![0x7f]), (14 << 3, vec![0])]);
    assert_eq!(quarry_proto::encode(PAIR_TYPE, root).unwrap(), last);
}
