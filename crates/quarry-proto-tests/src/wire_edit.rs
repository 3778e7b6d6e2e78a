//! Editing encoded protobuf messages in place of a generator: enter a
//! nested message by field number and rewrite the lengths on the way out,
//! append fields, replace varints. The forward-compatible variants
//! (`crate::variants`) are the samples edited this way.
//!
//! A module of its own so that its tests (`tests/wire_edit.rs`) compile it
//! alone, without the generated code of the rest of the crate.

use prost::encoding::{WireType, decode_key, decode_varint, encode_key, encode_varint};

/// One step of a path into nested messages: a length-delimited field's
/// number and which of its occurrences (counted from 0) to enter, `None`
/// for every one.
pub(crate) type Step = (u32, Option<usize>);

/// One field of an encoded message: number, wire type, the bytes of the
/// whole field (tag included) and of its value (without a length prefix).
struct Field {
    number: u32,
    wire: WireType,
    whole: std::ops::Range<usize>,
    value: std::ops::Range<usize>,
}

/// The fields of the encoded message `msg`, in order.
///
/// # Panics
/// On a malformed message or a group (the samples have none).
fn fields(msg: &[u8]) -> Vec<Field> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < msg.len() {
        let mut rest = &msg[at..];
        let (number, wire) = decode_key(&mut rest).expect("a valid tag");
        let mut start = msg.len() - rest.len();
        let end = match wire {
            WireType::Varint => {
                decode_varint(&mut rest).expect("a valid varint");
                msg.len() - rest.len()
            }
            WireType::SixtyFourBit => start + 8,
            WireType::ThirtyTwoBit => start + 4,
            WireType::LengthDelimited => {
                let len = decode_varint(&mut rest).expect("a valid length") as usize;
                start = msg.len() - rest.len();
                start + len
            }
            WireType::StartGroup | WireType::EndGroup => panic!("no groups in the samples"),
        };
        assert!(end <= msg.len(), "a field within the message");
        out.push(Field {
            number,
            wire,
            whole: at..end,
            value: start..end,
        });
        at = end;
    }
    out
}

/// `msg` with the message at `path` replaced by `f` of its bytes; every
/// message on the path is written again with its new length, every other
/// field copied as it is.
///
/// # Panics
/// When a step names no length-delimited field of its message.
pub(crate) fn edit(msg: &[u8], path: &[Step], f: &dyn Fn(&[u8]) -> Vec<u8>) -> Vec<u8> {
    let Some((&(number, which), rest)) = path.split_first() else {
        return f(msg);
    };
    let mut out = Vec::with_capacity(msg.len() + 64);
    let mut seen = 0;
    let mut entered = false;
    for field in fields(msg) {
        if field.number == number {
            let nth = seen;
            seen += 1;
            if which.is_none_or(|w| w == nth) {
                assert_eq!(field.wire, WireType::LengthDelimited, "field {number}");
                let inner = edit(&msg[field.value], rest, f);
                put_len(number, &inner, &mut out);
                entered = true;
                continue;
            }
        }
        out.extend_from_slice(&msg[field.whole]);
    }
    assert!(entered, "no field {number} ({which:?}) in the message");
    out
}

/// `msg` followed by what `add` writes.
pub(crate) fn appended(msg: &[u8], add: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = msg.to_vec();
    add(&mut out);
    out
}

/// `msg` with every varint field `number` holding `value` instead.
///
/// # Panics
/// When `msg` has no varint field `number`.
pub(crate) fn with_varint(msg: &[u8], number: u32, value: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(msg.len() + 8);
    let mut found = false;
    for field in fields(msg) {
        if field.number == number && field.wire == WireType::Varint {
            put_varint(number, value, &mut out);
            found = true;
        } else {
            out.extend_from_slice(&msg[field.whole]);
        }
    }
    assert!(found, "no varint field {number} in the message");
    out
}

/// Field `number`, varint `value`.
pub(crate) fn put_varint(number: u32, value: u64, out: &mut Vec<u8>) {
    encode_key(number, WireType::Varint, out);
    encode_varint(value, out);
}

/// Field `number`, length-delimited `bytes`.
pub(crate) fn put_len(number: u32, bytes: &[u8], out: &mut Vec<u8>) {
    encode_key(number, WireType::LengthDelimited, out);
    encode_varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}
