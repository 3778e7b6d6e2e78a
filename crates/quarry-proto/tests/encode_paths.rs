//! The encoder's two write paths (one write into the 1 KiB stack buffer, or
//! measure and write into the output) on either side of the buffer's size,
//! against canonical bytes built by hand in this file. Neither path zeroes
//! its buffer first (`encode/back_buf.rs`), so these tests also run under
//! Miri in CI.

use quarry_core::Arena;
use quarry_proto::{
    FieldTable, Kind, Label, MessageRef, MessageTable, Schema, decode, encode, encode_into,
    encoded_len,
};

// message Outer { string s = 1; Inner inner = 2; repeated int32 nums = 3;
//                 repeated Inner items = 4; }
// message Inner { bytes b = 1; uint64 n = 2; }
static OUTER: [FieldTable; 4] = [
    FieldTable::new(1, "s", "s", Kind::String, Label::Implicit),
    FieldTable {
        sub: 1,
        ..FieldTable::new(2, "inner", "inner", Kind::Message, Label::Explicit)
    },
    FieldTable::new(3, "nums", "nums", Kind::Int32, Label::Repeated),
    FieldTable {
        sub: 1,
        ..FieldTable::new(4, "items", "items", Kind::Message, Label::Repeated)
    },
];
static INNER: [FieldTable; 2] = [
    FieldTable::new(1, "b", "b", Kind::Bytes, Label::Implicit),
    FieldTable::new(2, "n", "n", Kind::UInt64, Label::Implicit),
];
static MESSAGES: [MessageTable; 2] = [
    MessageTable::new("t.Outer", &OUTER, &[]),
    MessageTable::new("t.Inner", &INNER, &[]),
];
static SCHEMA: Schema = Schema {
    messages: &MESSAGES,
    enums: &[],
};
const ROOT: MessageRef = MessageRef::new(&SCHEMA, 0);

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Field `number`, length-delimited, holding `payload`.
fn delimited(number: u64, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    varint(number << 3 | 2, &mut out);
    varint(payload.len() as u64, &mut out);
    out.extend_from_slice(payload);
    out
}

/// An `Inner` with `b` and `n` (proto3: not written when 0), and an
/// unknown varint field 9 (kept and written after the known fields).
fn inner(b: &[u8], n: u64) -> Vec<u8> {
    let mut out = delimited(1, b);
    if n != 0 {
        out.push(2 << 3);
        varint(n, &mut out);
    }
    out.push(9 << 3);
    varint(300, &mut out);
    out
}

/// A canonical `Outer` whose string field takes `s_len` bytes.
fn outer(s_len: usize) -> Vec<u8> {
    let text = "abcdefghijklm".repeat(s_len / 13 + 1);
    let mut out = delimited(1, &text.as_bytes()[..s_len]);
    out.extend(delimited(2, &inner(b"\x00\xff", 150)));
    let mut packed = Vec::new();
    for n in [1i64, -1, 300] {
        varint(n as u64, &mut packed);
    }
    out.extend(delimited(3, &packed));
    for k in 0..3 {
        out.extend(delimited(4, &inner(&[k; 5], k.into())));
    }
    out
}

#[test]
fn encode_gives_back_canonical_bytes_on_both_sides_of_the_scratch_size() {
    let mut lengths = Vec::new();
    // String lengths whose encodings end just under, at and just past the
    // 1,024-byte stack buffer, and one far past it.
    for s_len in (940..970).chain([3000]) {
        let input = outer(s_len);
        if input.len().abs_diff(1024) > 3 && s_len != 3000 {
            continue;
        }
        lengths.push(input.len());
        let arena = Arena::new();
        let record = decode(ROOT, &arena, &input).expect("canonical input decodes");
        assert_eq!(encoded_len(ROOT, record), input.len());
        assert_eq!(
            encode(ROOT, record).unwrap(),
            input,
            "{} bytes",
            input.len()
        );
        let mut framed = b"frame".to_vec();
        encode_into(ROOT, record, &mut framed).unwrap();
        assert_eq!(framed.get(..5), Some(&b"frame"[..]));
        assert_eq!(framed.get(5..), Some(&input[..]), "{} bytes", input.len());
    }
    // Every length from 1,021 to 1,027 was met. The fields after the
    // string take 67 bytes: `inner` 2 + 10, `nums` 2 + 13 (-1 takes ten),
    // the three `items` 2 + 10, 2 + 12, 2 + 12; so 3,000 string bytes
    // with their 3-byte tag and length give 3,070.
    lengths.sort_unstable();
    assert_eq!(lengths, [1021, 1022, 1023, 1024, 1025, 1026, 1027, 3070]);
}

#[test]
fn encode_into_a_buffer_with_room_keeps_its_bytes() {
    let input = outer(2000);
    let arena = Arena::new();
    let record = decode(ROOT, &arena, &input).expect("canonical input decodes");
    let mut out = Vec::with_capacity(8000);
    out.extend_from_slice(b"xy");
    encode_into(ROOT, record, &mut out).unwrap();
    encode_into(ROOT, record, &mut out).unwrap();
    assert_eq!(out.len(), 2 + 2 * input.len());
    assert_eq!(out.get(..2), Some(&b"xy"[..]));
    assert_eq!(out.get(2..2 + input.len()), Some(&input[..]));
    assert_eq!(out.get(2 + input.len()..), Some(&input[..]));
}
