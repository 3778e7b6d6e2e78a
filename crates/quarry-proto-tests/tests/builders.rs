//! Building messages with quarry's builders, held to prost: the same
//! values built with prost's types (or prost-reflect's dynamic messages)
//! encode to the same bytes; messages start from decoded ones, quote them,
//! change fields and keep unknown fields.

mod common;

use std::collections::HashMap;

use proptest::prelude::*;
use prost::Message as _;
use prost_reflect::{DynamicMessage, Kind as RKind, MapKey, Value};
use quarry_core::Arena;
use quarry_proto::{MapValue, MessageRef, Record, RecordBuilder, UnknownField};
use quarry_proto_tests::sends::{self, Source};
use quarry_proto_tests::views::{
    self, quarry::test3::All3Builder, quarry::test3::InnerBuilder, quarry::test3::Mood,
};
use quarry_proto_tests::{pb, samples, wa};

#[test]
fn samples_built_with_builders_encode_as_prost_does() {
    let src = Source::new(50, 20);
    let want = samples::all();
    for (i, (name, _)) in sends::NAMES.iter().enumerate() {
        assert_eq!(want[i].name, *name);
        let prost = sends::prost_encode(name, &src);
        assert_eq!(prost, want[i].bytes, "{name}: prost's build of the source");
        let arena = Arena::new();
        let quarry = sends::quarry_encode(name, &arena, &src);
        assert_eq!(quarry, want[i].bytes, "{name}");
        // Exactly the length, one allocation.
        assert_eq!(quarry.capacity(), quarry.len(), "{name}");
    }
}

#[test]
fn encode_into_appends_to_a_callers_buffer() {
    let arena = Arena::new();
    let view = sends::quarry_contact(&arena);
    let mut out = b"frame:".to_vec();
    view.encode_into(&mut out).unwrap();
    assert_eq!(&out[..6], b"frame:");
    assert_eq!(out[6..], sends::prost_encode("contact", &Source::new(0, 0)));
}

#[test]
fn a_built_message_reads_through_its_view() {
    let arena = Arena::new();
    let src = Source::new(2, 3);
    let sync = sends::quarry_history(&arena, &src);
    assert_eq!(sync.conversations().len(), 2);
    let conv = sync.conversations().nth(1).unwrap();
    assert_eq!(conv.id(), src.history[1].id);
    assert_eq!(conv.messages().len(), 3);
    assert_eq!(sync.to_prost(), sends::prost_history(&src));
}

#[test]
fn a_reply_quotes_a_decoded_message_without_copying_it() {
    let received = samples::all()
        .into_iter()
        .find(|s| s.name == "group_skdm")
        .unwrap()
        .bytes;
    let arena = Arena::new();
    let quoted = wa::MessageView::decode(&arena, &received).unwrap();
    let reply = sends::quarry_reply_to(&arena, Some(quoted));
    // The quoted text is still the received bytes, not a copy.
    let text = reply
        .extended_text_message()
        .and_then(|e| e.context_info())
        .and_then(|c| c.quoted_message())
        .map(|q| q.conversation())
        .unwrap();
    assert!(received.as_ptr_range().contains(&text.as_ptr()));

    let mut want = sends::prost_text_reply(true);
    let ctx = want
        .extended_text_message
        .as_mut()
        .and_then(|e| e.context_info.as_mut())
        .unwrap();
    ctx.quoted_message = Some(Box::new(
        pb::whatsapp::Message::decode(&received[..]).unwrap(),
    ));
    assert_eq!(reply.encode().unwrap(), want.encode_to_vec());
}

#[test]
fn a_decoded_message_changed_keeps_the_rest_and_its_unknown_fields() {
    let mut input = sends::prost_contact().encode_to_vec();
    // Unknown field 99 (varint 5) and 100 (bytes "hi").
    let unknown = [0x98, 0x06, 0x05, 0xA2, 0x06, 0x02, b'h', b'i'];
    input.extend_from_slice(&unknown);
    let arena = Arena::new();
    let received = wa::SyncActionDataView::decode(&arena, &input).unwrap();
    let mut b = wa::SyncActionDataBuilder::from_view(&arena, received);
    b.set_version(3).clear_padding();
    let changed = b.build();
    assert_eq!(changed.unknown_fields().count(), 2);
    assert_eq!(changed.version(), 3);

    let mut want = sends::prost_contact();
    want.version = Some(3);
    want.padding = None;
    let mut want = want.encode_to_vec();
    want.extend_from_slice(&unknown);
    assert_eq!(changed.encode().unwrap(), want);
    // The received message is as it was.
    assert_eq!(received.encode().unwrap(), input);
}

#[test]
fn unknown_fields_can_be_added() {
    let arena = Arena::new();
    let mut b = wa::SyncActionDataBuilder::new(&arena);
    b.set_version(1).push_unknown(UnknownField::Raw {
        tag: 99 << 3,
        value: &[0x05],
    });
    assert_eq!(b.build().encode().unwrap(), [0x20, 0x01, 0x98, 0x06, 0x05]);
}

fn inner<'a>(arena: &'a Arena, text: &'a str, n: i32) -> views::quarry::test3::InnerView<'a> {
    let mut b = InnerBuilder::new(arena);
    b.set_text(text).set_n(n);
    b.build()
}

fn pb_inner(text: &str, n: i32) -> pb::test3::Inner {
    pb::test3::Inner {
        text: text.into(),
        n,
        next: None,
    }
}

#[test]
fn every_proto3_field_kind_builds_as_prost_encodes_it() {
    let arena = Arena::new();
    let mut child = All3Builder::new(&arena);
    child.set_f_sint32(-5);
    let child = child.build();
    let mut b = All3Builder::new(&arena);
    b.set_f_double(-1.5)
        .set_f_float(2.25)
        .set_f_int64(-7)
        .set_f_uint64(u64::MAX)
        .set_f_int32(-1)
        .set_f_fixed64(9)
        .set_f_fixed32(10)
        .set_f_bool(true)
        .set_f_string("héllo")
        .set_f_bytes(b"\x00\xff")
        .set_f_uint32(u32::MAX)
        .set_f_sfixed32(-12)
        .set_f_sfixed64(-13)
        .set_f_sint32(i32::MIN)
        .set_f_sint64(i64::MIN)
        .set_f_mood(Mood::Sad)
        .set_f_inner(inner(&arena, "in", 1))
        .set_o_int32(0)
        .set_o_string("")
        .set_r_double([1.0, -0.0])
        .set_r_float([0.5f32])
        .set_r_int64([-1, 0, 1])
        .set_r_uint64([3u64])
        .set_r_int32([-2, 300])
        .set_r_fixed64([1u64, 2])
        .set_r_fixed32([4u32])
        .set_r_bool([true, false])
        .set_r_uint32([5u32])
        .set_r_sfixed32([-6])
        .set_r_sfixed64([-7])
        .set_r_sint32([-8, 8])
        .set_r_sint64([-9])
        .set_r_mood([Mood::Happy, Mood::Unspecified])
        .set_r_unpacked([1, 2, 3])
        .set_r_string(["a", "", "c"])
        .set_r_bytes([&b"x"[..], b""])
        .set_r_inner([inner(&arena, "a", 1), inner(&arena, "b", 2)])
        .set_m_str([("k", "v")])
        .set_m_inner([(-3i64, inner(&arena, "m", 3))])
        .set_m_mood([(7u32, 2)])
        .set_m_bytes([("b", &b"\x01"[..])])
        .set_k_string("first")
        .set_k_u64(64)
        .set_child(child)
        .set_list([child, child]);
    let built = b.build();

    let want = pb::test3::All3 {
        f_double: -1.5,
        f_float: 2.25,
        f_int64: -7,
        f_uint64: u64::MAX,
        f_int32: -1,
        f_fixed64: 9,
        f_fixed32: 10,
        f_bool: true,
        f_string: "héllo".into(),
        f_bytes: b"\x00\xff".to_vec(),
        f_uint32: u32::MAX,
        f_sfixed32: -12,
        f_sfixed64: -13,
        f_sint32: i32::MIN,
        f_sint64: i64::MIN,
        f_mood: 2,
        f_inner: Some(pb_inner("in", 1)),
        o_int32: Some(0),
        o_string: Some(String::new()),
        r_double: vec![1.0, -0.0],
        r_float: vec![0.5],
        r_int64: vec![-1, 0, 1],
        r_uint64: vec![3],
        r_int32: vec![-2, 300],
        r_fixed64: vec![1, 2],
        r_fixed32: vec![4],
        r_bool: vec![true, false],
        r_uint32: vec![5],
        r_sfixed32: vec![-6],
        r_sfixed64: vec![-7],
        r_sint32: vec![-8, 8],
        r_sint64: vec![-9],
        r_mood: vec![1, 0],
        r_unpacked: vec![1, 2, 3],
        r_string: vec!["a".into(), String::new(), "c".into()],
        r_bytes: vec![b"x".to_vec(), Vec::new()],
        r_inner: vec![pb_inner("a", 1), pb_inner("b", 2)],
        m_str: HashMap::from([("k".into(), "v".into())]),
        m_inner: HashMap::from([(-3, pb_inner("m", 3))]),
        m_mood: HashMap::from([(7, 2)]),
        m_bytes: HashMap::from([("b".into(), vec![1])]),
        // The second member set replaced the first.
        kind: Some(pb::test3::all3::Kind::KU64(64)),
        child: Some(Box::new(pb::test3::All3 {
            f_sint32: -5,
            ..Default::default()
        })),
        list: vec![
            pb::test3::All3 {
                f_sint32: -5,
                ..Default::default()
            };
            2
        ],
    };
    assert_eq!(built.encode().unwrap(), want.encode_to_vec());
    assert_eq!(built.to_prost(), want);
}

#[test]
fn setting_again_replaces_and_clearing_removes() {
    let arena = Arena::new();
    let mut b = All3Builder::new(&arena);
    // Out of number order, set twice, cleared.
    b.set_f_string("x")
        .set_f_int64(1)
        .set_f_string("y")
        .set_o_int32(4)
        .set_k_mood(Mood::Happy)
        .clear_o_int32()
        .set_k_string("z")
        .clear_kind()
        .set_f_bool(true);
    let want = pb::test3::All3 {
        f_string: "y".into(),
        f_int64: 1,
        f_bool: true,
        ..Default::default()
    };
    assert_eq!(b.build().encode().unwrap(), want.encode_to_vec());
}

#[test]
fn map_entries_leave_defaults_out_as_prost_does() {
    let arena = Arena::new();
    let mut b = All3Builder::new(&arena);
    b.set_m_str([("", "")])
        .set_m_inner([(0, InnerBuilder::new(&arena).build())])
        .set_m_mood([(0u32, Mood::Unspecified)]);
    let want = pb::test3::All3 {
        m_str: HashMap::from([(String::new(), String::new())]),
        m_inner: HashMap::from([(0, pb_inner("", 0))]),
        m_mood: HashMap::from([(0, 0)]),
        ..Default::default()
    };
    assert_eq!(b.build().encode().unwrap(), want.encode_to_vec());
}

#[test]
fn enums_convert_both_ways() {
    assert_eq!(Mood::try_from(2), Ok(Mood::Sad));
    assert_eq!(Mood::try_from(9), Err(9));
    assert_eq!(i32::from(Mood::Happy), 1);
    assert_eq!(Mood::default(), Mood::Unspecified);
    assert_eq!(Mood::from_str_name("MOOD_SAD"), Some(Mood::Sad));
    assert_eq!(Mood::from_str_name("SAD"), None);
    assert_eq!(Mood::Sad.as_str_name(), "MOOD_SAD");
    assert_eq!(
        wa::WebMessageInfoStatus::from_str_name("READ").map(i32::from),
        Some(4)
    );
}

#[test]
#[should_panic(expected = "is not a singular string")]
fn the_untyped_builder_refuses_a_value_of_another_kind() {
    let arena = Arena::new();
    // Field 0 of All3 is a double.
    RecordBuilder::new(&arena, views::quarry::test3::All3View::TABLE).set_str(0, "x");
}

/// `message` built with the untyped builder, field by field, in the
/// dynamic message's order (so maps iterate as prost-reflect encodes
/// them).
fn build_dynamic<'a>(arena: &'a Arena, message: MessageRef, dm: &'a DynamicMessage) -> Record<'a> {
    let table = message.table();
    let mut b = RecordBuilder::new(arena, message);
    for (fd, value) in dm.fields() {
        let field = table.field_index(fd.number()).unwrap();
        let f = &table.fields[field as usize];
        match value {
            Value::List(list) => match fd.kind() {
                RKind::String => {
                    b.set_strs(field, list.iter().map(|v| v.as_str().unwrap()));
                }
                RKind::Bytes => {
                    b.set_bytes_list(field, list.iter().map(|v| &v.as_bytes().unwrap()[..]));
                }
                RKind::Message(_) => {
                    let sub = message.sub_message(f);
                    let items: Vec<Record<'a>> = list
                        .iter()
                        .map(|v| build_dynamic(arena, sub, v.as_message().unwrap()))
                        .collect();
                    b.set_messages(field, items);
                }
                _ => {
                    b.set_scalars(field, list.iter().map(scalar));
                }
            },
            Value::Map(map) => {
                // Each entry with its key and value set, as prost-reflect
                // writes them (prost leaves defaults out: `set_map`).
                let entry = message.sub_message(f);
                let vsub = entry.sub_message(&entry.table().fields[1]);
                let entries: Vec<Record<'a>> = map
                    .iter()
                    .map(|(k, v)| {
                        let mut e = RecordBuilder::new(arena, entry);
                        match map_key(k) {
                            MapValue::Str(s) => e.set_str(0, s),
                            MapValue::Scalar(n) => e.set_scalar(0, n),
                            other => panic!("not a key: {other:?}"),
                        };
                        match leaf(arena, vsub, v) {
                            MapValue::Str(s) => e.set_str(1, s),
                            MapValue::Bytes(b) => e.set_bytes(1, b),
                            MapValue::Message(m) => e.set_message(1, m),
                            MapValue::Scalar(n) => e.set_scalar(1, n),
                        };
                        e.build()
                    })
                    .collect();
                b.set_messages(field, entries);
            }
            Value::String(s) => {
                b.set_str(field, s);
            }
            Value::Bytes(v) => {
                b.set_bytes(field, v);
            }
            Value::Message(m) => {
                let sub = build_dynamic(arena, message.sub_message(f), m);
                b.set_message(field, sub);
            }
            v => {
                b.set_scalar(field, scalar(v));
            }
        }
    }
    b.build()
}

/// A scalar as quarry stores it.
fn scalar(v: &Value) -> u64 {
    match *v {
        Value::Bool(b) => u64::from(b),
        Value::I32(n) | Value::EnumNumber(n) => n as i64 as u64,
        Value::I64(n) => n as u64,
        Value::U32(n) => u64::from(n),
        Value::U64(n) => n,
        Value::F32(x) => u64::from(x.to_bits()),
        Value::F64(x) => x.to_bits(),
        _ => panic!("not a scalar: {v:?}"),
    }
}

fn map_key(k: &MapKey) -> MapValue<'_> {
    match k {
        MapKey::Bool(b) => MapValue::Scalar(u64::from(*b)),
        MapKey::I32(n) => MapValue::Scalar(*n as i64 as u64),
        MapKey::I64(n) => MapValue::Scalar(*n as u64),
        MapKey::U32(n) => MapValue::Scalar(u64::from(*n)),
        MapKey::U64(n) => MapValue::Scalar(*n),
        MapKey::String(s) => MapValue::Str(s),
    }
}

fn leaf<'a>(arena: &'a Arena, sub: MessageRef, v: &'a Value) -> MapValue<'a> {
    match v {
        Value::String(s) => MapValue::Str(s),
        Value::Bytes(b) => MapValue::Bytes(b),
        Value::Message(m) => MapValue::Message(build_dynamic(arena, sub, m)),
        v => MapValue::Scalar(scalar(v)),
    }
}

macro_rules! dynamic_agreement {
    ($test:ident, $table:expr, $descriptors:expr, $name:expr, $cases:expr) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: $cases, ..ProptestConfig::default() })]

            #[test]
            fn $test(seed in any::<u64>()) {
                let pool = common::pool($descriptors);
                let desc = pool.get_message_by_name($name).unwrap();
                let mut rng = common::Gen::new(seed);
                rng.max_depth = 3;
                rng.fill = 40;
                let dm = rng.message(&desc);
                prop_assert_eq!($table.table().full_name, $name);
                let arena = Arena::new();
                let record = build_dynamic(&arena, $table, &dm);
                prop_assert_eq!(quarry_proto::encode($table, record).unwrap(), dm.encode_to_vec());
            }
        }
    };
}

dynamic_agreement!(
    built_all2_encodes_as_prost_reflect,
    views::quarry::test2::All2View::TABLE,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.test2.All2",
    256
);
dynamic_agreement!(
    built_all3_encodes_as_prost_reflect,
    views::quarry::test3::All3View::TABLE,
    quarry_proto_tests::TEST_DESCRIPTORS,
    "quarry.test3.All3",
    256
);
dynamic_agreement!(
    built_wa_message_encodes_as_prost_reflect,
    wa::MessageView::TABLE,
    quarry_proto_tests::WA_DESCRIPTORS,
    "whatsapp.Message",
    64
);
dynamic_agreement!(
    built_sync_action_data_encodes_as_prost_reflect,
    wa::SyncActionDataView::TABLE,
    quarry_proto_tests::WA_DESCRIPTORS,
    "whatsapp.SyncActionData",
    128
);
dynamic_agreement!(
    built_history_sync_encodes_as_prost_reflect,
    wa::HistorySyncView::TABLE,
    quarry_proto_tests::WA_DESCRIPTORS,
    "whatsapp.HistorySync",
    32
);

#[test]
fn from_record_refuses_a_record_of_another_type() {
    let arena = Arena::new();
    let contact = sends::quarry_contact(&arena);
    let rec = contact.record();
    assert_eq!(wa::SyncActionDataView::from_record(rec), Some(contact));
    // Field 0 of HistorySync is an enum, field 2 of Message a message:
    // the contact's bytes fit neither.
    assert!(wa::HistorySyncView::from_record(rec).is_none());
    assert!(wa::MessageView::from_record(rec).is_none());
    // An empty record is any message.
    assert!(wa::MessageView::from_record(Record::default()).is_some());
}

#[test]
fn fields_with_presence_read_as_options_and_index_keeps_its_name() {
    let arena = Arena::new();
    let contact = sends::quarry_contact(&arena);
    assert_eq!(contact.version_opt(), Some(2));
    assert_eq!(contact.padding_opt(), Some(&b""[..]));
    assert_eq!(contact.index(), sends::CONTACT_INDEX.as_bytes());
    let empty = wa::SyncActionDataBuilder::new(&arena).build();
    assert_eq!((empty.version_opt(), empty.version()), (None, 0));
    assert_eq!(empty.index_opt(), None);
}
