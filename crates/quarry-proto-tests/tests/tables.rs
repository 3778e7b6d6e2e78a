//! The generated tables (and the CLI's run-time ones) carry each field's
//! decoder reader in `FieldTable::op`; the decoder trusts it, so it must
//! be what `FieldTable::op_of` derives from the field's kind, label and
//! oneof (`FieldTable::whole_entry_op` for a map's closed-enum value), for
//! every field of every schema here. The same holds for each
//! message's `short` lookup and `dense` flag (`MessageTable::short_of`,
//! `MessageTable::dense_of`).

use quarry_proto::{FieldTable, Kind, Label, MessageTable, Schema};
use quarry_proto_tests::views::{
    quarry::test2::All2View, quarry::test3::All3View, quarry::test3::InnerView,
};
use quarry_proto_tests::wa;

/// Checks every table of `schema`; returns the number of fields and how
/// many of them are read through their whole entry.
fn check(schema: &Schema) -> (usize, usize) {
    let (mut fields, mut whole) = (0, 0);
    for m in schema.messages {
        assert_eq!(m.short, MessageTable::short_of(m.fields), "{}", m.full_name);
        assert_eq!(m.dense, MessageTable::dense_of(m.fields), "{}", m.full_name);
        for f in m.fields {
            // The value of a map entry whose values are a closed enum has no
            // reader of its own; every other field has op_of's.
            let closed_map_value = m.map_entry
                && f.number == 2
                && f.kind == Kind::Enum
                && schema.enums[f.sub as usize].closed;
            let want = if closed_map_value {
                whole += 1;
                FieldTable::whole_entry_op(f.kind)
            } else {
                FieldTable::op_of(f.kind, f.label, f.oneof != 0, f.utf8)
            };
            assert_eq!(f.op, want, "{}.{}", m.full_name, f.name);
            fields += 1;
        }
    }
    (fields, whole)
}

#[test]
fn every_generated_field_op_is_derived_from_its_entry() {
    // The test schemas are generated into one Schema. test2's m_enum and
    // m_str_level and odd2's v_level map to closed enums; the maps of test3
    // and odd3 hold open enums.
    assert!(std::ptr::eq(All2View::TABLE.schema, All3View::TABLE.schema));
    let (n, whole) = check(All2View::TABLE.schema);
    assert!(n > 100 && whole == 3, "{n} fields, {whole} read whole");
    // WhatsApp's schema: thousands of fields.
    assert!(check(wa::MessageView::TABLE.schema).0 > 1000);
}

#[test]
fn short_lookup_of_a_small_message_by_hand() {
    // quarry.test3.Inner: string text = 1; int32 n = 2; Inner next = 3.
    // Entry n: tag byte (n << 3 | wire type), reader << 8, index << 12.
    let short = InnerView::TABLE.table().short;
    assert_eq!(short[1], 0x0A | 1 << 8); // string read as UTF-8 (reader 1)
    assert_eq!(short[2], 0x10 | 6 << 8 | 1 << 12); // int32 (reader 6)
    assert_eq!(short[3], 0x1A | 3 << 8 | 2 << 12); // message (reader 3)
    for n in [0, 4, 5, 15] {
        assert_eq!(short[n], 0xFF, "number {n} is no field");
    }
}

#[test]
fn run_time_tables_derive_the_same_ops() {
    let dir = std::env::temp_dir().join(format!("quarry-tables-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.proto");
    std::fs::write(
        &path,
        "syntax = \"proto3\";\npackage t;\nmessage M {\n  string s = 1;\n  repeated M kids = 2;\n  \
         repeated int32 ns = 3;\n  oneof k { bytes b = 4; M m = 5; }\n  sint64 z = 6;\n}\n",
    )
    .unwrap();
    let schema = quarry_proto_build::load(&[&path], &[&dir]).unwrap();
    let m = schema.message("t.M").unwrap();
    assert_eq!(check(m.schema), (6, 0));
    let ops: Vec<u8> = m.table().fields.iter().map(|f| f.op >> 3).collect();
    // string, repeated message, repeated scalar (no reader of its own),
    // two oneof members (their readers, bytes 2 and message 3, under the
    // member mark 0x80 >> 3), sint64: hand-derived from op_of's rules.
    let expect = [
        FieldTable::op_of(Kind::String, Label::Implicit, false, true) >> 3,
        FieldTable::op_of(Kind::Message, Label::Repeated, false, true) >> 3,
        0,
        16 | 2,
        16 | 3,
        FieldTable::op_of(Kind::SInt64, Label::Implicit, false, true) >> 3,
    ];
    assert_eq!(ops, expect);
    assert!(ops[0] != 0 && ops[1] != 0 && ops[5] != 0);
    // Its short lookup: fields without a reader of their own are 0xFF;
    // oneof members have bit 7 of their tag byte set.
    let short = m.table().short;
    assert_eq!(short[1], 0x0A | 1 << 8);
    assert_eq!(short[2], 0x12 | 4 << 8 | 1 << 12); // repeated message (reader 4)
    assert_eq!(short[3], 0xFF);
    assert_eq!(short[4], 0x80 | 0x22 | 2 << 8 | 3 << 12); // bytes member (reader 2)
    assert_eq!(short[5], 0x80 | 0x2A | 3 << 8 | 4 << 12); // message member (reader 3)
    assert_eq!(short[6], 0x30 | 10 << 8 | 5 << 12); // sint64 (reader 10)
    // Repeated and message fields: no dense records.
    assert!(!m.table().dense);
    std::fs::remove_dir_all(&dir).ok();
}
